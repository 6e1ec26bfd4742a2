"""Action selection: pipelined argmax over up to 18 signed action values.

The inference engine presents its ``n`` action values (``width``-bit signed, e.g. the int32
accumulators of the last dense layer) as one beat of the action-values stream
(:func:`nc2600.hw.interfaces.action_values_signature`, defined once for producer and consumer); the block is
always ready, so a beat is taken in the cycle its ``valid`` is high. The chosen action
(:func:`chosen_action_signature`: ``valid``, ``index``, ``value``) follows
:func:`nc2600.hls_models.action_select.latency` cycles later (``ceil(log2 n)``, 5 for 18 lanes). A new
beat may come every cycle.

Algorithm: a binary tree of comparators, one registered level per halving. Each node keeps
its left (lower-index) candidate unless the right one is valid and strictly greater, so ties
go to the lowest index (numpy's ``argmax``). Lanes at or above ``count`` are invalid and never
win (``count`` comes in the beat; ``count = 0`` yields index 0). An odd candidate
at a level passes through a register.

Bit-exact model: :func:`nc2600.hls_models.action_select.select`.
Yosys ``synth_xilinx -family xc7`` of ``rtl/action_select.v`` (18 lanes, 32 bits): 970 LUTs,
707 flip-flops, 51 CARRY4, no DSP or RAM.
"""
from __future__ import annotations

from amaranth import Module, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from nc2600.hls_models.action_select import MAX_ACTIONS, latency
from nc2600.hw import reproducible
from nc2600.hw.interfaces import action_values_signature, chosen_action_signature


class ActionSelect(wiring.Component):
    """Pipelined argmax (see module doc).

    Args:
        n: lanes (action values), 1..18.
        width: bits of a signed action value.

    Ports:
        action_values: In(:func:`nc2600.hw.interfaces.action_values_signature` ``(n, width)``): payload
            ``values`` (lane ``i`` is action ``i``) and ``count`` (lanes ``>= count`` are
            ignored), ``valid``; ``ready`` is always high.
        chosen: Out(:func:`chosen_action_signature` ``(n, width)``), ``latency(n)`` cycles after the beat.
    """

    def __init__(self, n: int = MAX_ACTIONS, width: int = 32):
        if not 1 <= n <= MAX_ACTIONS:
            raise ValueError(f"n must be in 1..{MAX_ACTIONS}, got {n}")
        if width < 2:
            raise ValueError(f"width must be >= 2, got {width}")
        self.n, self.width = n, width
        self.latency = latency(n)
        super().__init__({
            "action_values": In(action_values_signature(n, width)),
            "chosen": Out(chosen_action_signature(n, width)),
        })

    def elaborate(self, platform):
        m = Module()
        idx_shape = unsigned(max(1, (self.n - 1).bit_length()))
        cand = data.StructLayout({"ok": 1, "index": idx_shape, "value": signed(self.width)})

        beat = self.action_values
        m.d.comb += beat.ready.eq(1)
        level = []
        for i in range(self.n):
            c = Signal(cand, name=f"lane{i}")
            m.d.comb += [c.ok.eq(i < beat.payload.count), c.index.eq(i), c.value.eq(beat.payload.values[i])]
            level.append(c)
        valid = beat.valid
        depth = 0
        while len(level) > 1 or depth == 0:
            nxt = []
            for j in range(0, len(level), 2):
                r = Signal(cand, name=f"l{depth}_{j // 2}")
                if j + 1 < len(level):
                    a, b = level[j], level[j + 1]
                    take_b = b.ok & (~a.ok | (b.value > a.value))
                    with m.If(take_b):
                        m.d.sync += r.eq(b)
                    with m.Else():
                        m.d.sync += r.eq(a)
                else:
                    m.d.sync += r.eq(level[j])
                nxt.append(r)
            v = Signal(name=f"valid{depth}")
            m.d.sync += v.eq(valid)
            level, valid, depth = nxt, v, depth + 1
        assert depth == self.latency
        m.d.comb += [self.chosen.valid.eq(valid), self.chosen.index.eq(level[0].index),
                     self.chosen.value.eq(level[0].value)]
        return m


def generate(n: int = MAX_ACTIONS, width: int = 32) -> dict[str, str]:
    """``{"action_select.v": Verilog}`` of :class:`ActionSelect` (module ``action_select``), reproducible."""
    top = ActionSelect(n, width)
    text = reproducible.convert(top, "action_select")
    return {"action_select.v": text}
