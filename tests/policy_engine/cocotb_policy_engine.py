"""cocotb testbench of rtl/policy_engine.v (16 MAC lanes) against the bit-exact int8 model.

Recorded observations (ALE random play of pong, seed 7) and a network quantised by
:func:`hls_models.policy_int8.quantize` are loaded through the engine's parameter port, the
observation read port is served by :class:`ObservationPort` (data one cycle after the address,
as the preprocessor's), and every action value and the start->done cycle count are compared
with :meth:`QuantizedPolicy.action_values` and :func:`hls_models.policy_engine.engine_cycles`.
``NC2600_SIM_FULL=1`` (``make sim-full``) runs more observations and every adversarial case.
Found by ``make sim`` (``hwtools/sim.py``, zero-configuration rule).
"""
from __future__ import annotations

import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from hls_models import policy_engine as pm
from hls_models.policy_int8 import quantize

LANES, MAX_ACTIONS, WIDTH = 16, 18, 32
FULL = os.environ.get("NC2600_SIM_FULL") == "1"


class ObservationPort:
    """Serves the engine's observation read port from a ``(4, 84, 84)`` stack: the address of
    one cycle is answered in the next, like the preprocessor's synchronous stack memory."""

    def __init__(self, dut):
        self.dut = dut
        self.obs = np.zeros((4, 84 * 84), np.uint8)
        cocotb.start_soon(self._serve())

    async def _serve(self):
        d = self.dut
        while True:
            await ReadOnly()
            frame, index = int(d.obs__frame.value), int(d.obs__index.value)
            await RisingEdge(d.clk)
            d.obs__data.value = int(self.obs[frame, index]) if index < 84 * 84 else 0


class ParameterLoader:
    """Drives the parameter write port, one word per cycle."""

    def __init__(self, dut):
        self.dut = dut

    async def load(self, words: np.ndarray) -> int:
        d = self.dut
        for space, row, lane, data in words.tolist():
            d.params__valid.value = 1
            d.params__space.value = space
            d.params__row.value = row
            d.params__lane.value = lane
            d.params__data.value = data
            await RisingEdge(d.clk)
        d.params__valid.value = 0
        return len(words)


async def setup(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.control__start.value = 0
    dut.params__valid.value = 0
    dut.action_values__ready.value = 0
    dut.obs__data.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    return ObservationPort(dut), ParameterLoader(dut)


async def infer(dut, port: ObservationPort, obs: np.ndarray, n_actions: int) -> tuple[np.ndarray, int]:
    """One inference: ``start`` for one cycle, wait for ``done``; returns (values, cycles)."""
    port.obs = obs.reshape(4, -1)
    dut.control__start.value = 1
    await RisingEdge(dut.clk)                   # end of the start cycle (cycle 0)
    dut.control__start.value = 0
    cycles = 1
    limit = pm.engine_cycles(n_actions, LANES) + 100
    while True:
        await ReadOnly()
        if int(dut.control__done.value):
            break
        assert int(dut.control__busy.value) == 1, f"busy low in cycle {cycles} before done"
        assert cycles < limit, "done did not rise"
        await RisingEdge(dut.clk)
        cycles += 1
    assert int(dut.action_values__valid.value) == 1 and int(dut.control__busy.value) == 0
    word = int(dut.action_values__payload.value)
    count = (word >> (WIDTH * MAX_ACTIONS)) & 0x1F
    assert count == n_actions
    values = []
    for i in range(n_actions):
        v = (word >> (WIDTH * i)) & 0xFFFFFFFF
        values.append(v - (1 << 32) if v >> 31 else v)
    await RisingEdge(dut.clk)
    dut.action_values__ready.value = 1          # take the beat
    await RisingEdge(dut.clk)
    dut.action_values__ready.value = 0
    await ReadOnly()
    assert int(dut.action_values__valid.value) == 0
    await RisingEdge(dut.clk)
    return np.array(values, np.int64), cycles


@cocotb.test()
async def recorded_observations(dut):
    """A pong network (quantised from init_params(2)) on recorded pong observations."""
    from host.verify.ale_recordings import record_observations
    from host.launcher.policy import init_params
    port, loader = await setup(dut)
    n_actions = 6
    calib = record_observations("pong", 8, 100)
    obs = record_observations("pong", 4 if FULL else 2, 7)
    qp = quantize(init_params(2, n_actions), n_actions, calib)
    words = pm.load_words(qp, LANES)
    assert await loader.load(words) == pm.load_cycles(n_actions, LANES)
    want = qp.action_values(obs)
    for i in range(len(obs)):
        values, cycles = await infer(dut, port, obs[i], n_actions)
        assert values.tolist() == want[i].tolist(), i
        assert cycles == pm.engine_cycles(n_actions, LANES)


@cocotb.test()
async def adversarial(dut):
    """Maximal weights with the most negative biases (and every other adversarial case under --full)."""
    from tests.policy_engine.cases import adversarial_cases
    port, loader = await setup(dut)
    cases = adversarial_cases(n_obs=1)
    if not FULL:
        cases = [c for c in cases if c[0].startswith("+-127 at random, most negative")]
    for name, qp, obs in cases:
        await loader.load(pm.load_words(qp, LANES))
        values, cycles = await infer(dut, port, obs[0], qp.n_actions)
        assert values.tolist() == qp.action_values(obs)[0].tolist(), name
        assert cycles == pm.engine_cycles(qp.n_actions, LANES)
