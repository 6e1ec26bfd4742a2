"""cocotb testbench of the array inference engine (``policy_array.v``, the 16 x 16 engine of
:func:`nc2600.hw.policy_array.generate`) against the bit-exact int8 model.

A network quantised by :func:`nc2600.hls_models.policy_int8.quantize` on recorded pong observations is
loaded through the parameter port (:func:`nc2600.hls_models.policy_array.load_words`); the
observation word port is served by :class:`ObservationWordPort` (the word of one cycle's
address in the next, :func:`nc2600.hls_models.policy_array.obs_words`'s layout; the other ports are
driven by tests/policy_engine/engine_ports.py); every action value
and the start->done cycle count are compared with :meth:`QuantizedPolicy.action_values` and
:func:`nc2600.hls_models.policy_array.engine_cycles`. ``NC2600_SIM_FULL=1`` (``make sim-full``) runs
more observations and every adversarial case. Found by ``make sim`` (``hwtools/sim.py``,
zero-configuration rule).
"""
from __future__ import annotations

import os

import cocotb
import numpy as np
from cocotb.triggers import ReadOnly, RisingEdge

from nc2600.hls_models import policy_array as pa
from nc2600.hls_models.policy_int8 import quantize
from tests.policy_engine.engine_ports import load, reset, start_and_read

ROWS, COLS = 16, 16
FULL = os.environ.get("NC2600_SIM_FULL") == "1"


class ObservationWordPort:
    """Serves the engine's observation word port: the word addressed in one cycle is driven in
    the next (a synchronous read of a word-wide stack memory)."""

    def __init__(self, dut):
        self.dut = dut
        self.words = [0] * (4 * 84 * 84 // ROWS)
        cocotb.start_soon(self._serve())

    def set(self, obs: np.ndarray) -> None:
        words = pa.obs_words(obs, ROWS, COLS)
        self.words = [int.from_bytes(w.tobytes(), "little") for w in words]

    async def _serve(self):
        d = self.dut
        while True:
            await ReadOnly()
            addr = int(d.obs__addr.value)
            await RisingEdge(d.clk)
            d.obs__data.value = self.words[addr] if addr < len(self.words) else 0


async def setup(dut) -> ObservationWordPort:
    await reset(dut)
    return ObservationWordPort(dut)


async def infer(dut, port: ObservationWordPort, obs: np.ndarray, n_actions: int) -> tuple[np.ndarray, int]:
    """One inference of ``obs`` (``(4, 84, 84)``); returns (values, cycles)."""
    port.set(obs)
    return await start_and_read(dut, n_actions, pa.engine_cycles(n_actions, ROWS, COLS) + 100)


@cocotb.test()
async def recorded_observations(dut):
    """A pong network (quantised from init_params(2)) on recorded pong observations."""
    from nc2600.host.verify.ale_recordings import record_observations
    from nc2600.host.episodes.policy import init_params
    port = await setup(dut)
    n_actions = 6
    calib = record_observations("pong", 8, 100)
    obs = record_observations("pong", 4 if FULL else 2, 7)
    qp = quantize(init_params(2, n_actions), n_actions, calib)
    assert await load(dut, pa.load_words(qp, ROWS, COLS)) == pa.load_cycles(n_actions, ROWS, COLS)
    want = qp.action_values(obs)
    for i in range(len(obs)):
        values, cycles = await infer(dut, port, obs[i], n_actions)
        assert values.tolist() == want[i].tolist(), i
        assert cycles == pa.engine_cycles(n_actions, ROWS, COLS)


@cocotb.test()
async def adversarial(dut):
    """Maximal weights with the most negative biases (every adversarial case under --full)."""
    from tests.policy_engine.cases import adversarial_cases
    port = await setup(dut)
    cases = adversarial_cases(n_obs=1)
    if not FULL:
        cases = [c for c in cases if c[0].startswith("+-127 at random, most negative")]
    assert len(cases) == (9 if FULL else 1), [c[0] for c in cases]
    for name, qp, obs in cases:
        await load(dut, pa.load_words(qp, ROWS, COLS))
        values, cycles = await infer(dut, port, obs[0], qp.n_actions)
        assert values.tolist() == qp.action_values(obs)[0].tolist(), name
        assert cycles == pa.engine_cycles(qp.n_actions, ROWS, COLS)
