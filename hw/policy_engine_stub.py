"""A STUB policy engine: the node's processor computes the action values (not an engine).

STUB, used until the int8 inference engine RTL (issue 12, ``hw/policy_engine.py``) lands: it
has the engine's place in :class:`hw.instance.GameInstance` (started by the frame-skip
controller when the observation is ready, reads the observation stack through the
preprocessor's read port, emits the action values to the action select), but the values
come from the host: on ``start`` it raises ``busy``; the host reads the 4 x 84 x 84 stack
through this block's read port (``host_frame``/``host_index`` -> ``host_data``, forwarded to
the preprocessor), computes :meth:`hls_models.policy_int8.QuantizedPolicy.action_values`, writes
them (``host_we``/``host_sel``/``host_wdata``) and strobes ``host_go``; the values then leave
on ``values`` for one cycle. The cycles spent in it are the host's, not an engine's, and are
reported as such.
"""
from __future__ import annotations

from amaranth import Array, Module, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hls_models.action_select import MAX_ACTIONS
from hls_models.preprocess import STACK
from hw.preprocessor import OBS_PIXELS, ObservationReadSignature

#: The engine -> action select stream (producer: the policy engine): the |A| int32 values
#: of one inference, lane ``i`` = minimal-set action ``i``, ``count`` lanes valid, one beat.
ActionValuesSignature = wiring.Signature({
    "valid": Out(1),
    "values": Out(data.ArrayLayout(signed(32), MAX_ACTIONS)),
    "count": Out(range(MAX_ACTIONS + 1)),
})


class HostInferenceStub(wiring.Component):
    """STUB engine (see module doc). ``n_actions`` lanes are valid."""

    def __init__(self, n_actions: int = MAX_ACTIONS):
        if not 1 <= n_actions <= MAX_ACTIONS:
            raise ValueError(f"n_actions must be in 1..{MAX_ACTIONS}, got {n_actions}")
        self.n_actions = n_actions
        super().__init__({
            "start": In(1), "busy": Out(1),
            "obs": Out(ObservationReadSignature),
            "values": Out(ActionValuesSignature),
            "host_frame": In(range(STACK)), "host_index": In(range(OBS_PIXELS)), "host_data": Out(8),
            "host_we": In(1), "host_sel": In(range(MAX_ACTIONS)), "host_wdata": In(signed(32)),
            "host_go": In(1), "count": In(range(MAX_ACTIONS + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        regs = Array(Signal(signed(32), name=f"value{i}") for i in range(MAX_ACTIONS))
        m.d.comb += [self.obs.frame.eq(self.host_frame), self.obs.index.eq(self.host_index),
                     self.host_data.eq(self.obs.data), self.values.count.eq(self.count)]
        for i in range(MAX_ACTIONS):
            m.d.comb += self.values.values[i].eq(regs[i])
        with m.If(self.host_we):
            m.d.sync += regs[self.host_sel].eq(self.host_wdata)
        with m.If(self.start):
            m.d.sync += self.busy.eq(1)
        with m.If(self.host_go & self.busy):
            m.d.sync += [self.busy.eq(0), self.values.valid.eq(1)]
        with m.Else():
            m.d.sync += self.values.valid.eq(0)
        return m
