"""cocotb testbench of the array inference engine (``policy_array.v``, the 16 x 16 engine of
:func:`hw.policy_array.generate`) against the bit-exact int8 model.

A network quantised by :func:`hls_models.policy_int8.quantize` on recorded pong observations is
loaded through the parameter port (:func:`hls_models.policy_array.load_words`); the
observation word port is served by :class:`ObservationWordPort` (the word of one cycle's
address in the next, :func:`hls_models.policy_array.obs_words`'s layout); every action value
and the start->done cycle count are compared with :meth:`QuantizedPolicy.action_values` and
:func:`hls_models.policy_array.engine_cycles`. ``NC2600_SIM_FULL=1`` (``make sim-full``) runs
more observations and every adversarial case. Found by ``make sim`` (``hwtools/sim.py``,
zero-configuration rule).
"""
from __future__ import annotations

import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from hls_models import policy_array as pa
from hls_models.policy_int8 import quantize

ROWS, COLS, MAX_ACTIONS, WIDTH = 16, 16, 18, 32
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


async def load(dut, words: np.ndarray) -> int:
    """Drive the parameter write port, one word per cycle; returns the words written."""
    for space, row, lane, data in words.tolist():
        dut.params__valid.value = 1
        dut.params__space.value = space
        dut.params__row.value = row
        dut.params__lane.value = lane
        dut.params__data.value = data
        await RisingEdge(dut.clk)
    dut.params__valid.value = 0
    return len(words)


async def setup(dut) -> ObservationWordPort:
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.control__start.value = 0
    dut.params__valid.value = 0
    dut.action_values__ready.value = 0
    dut.obs__data.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    return ObservationWordPort(dut)


async def infer(dut, port: ObservationWordPort, obs: np.ndarray, n_actions: int) -> tuple[np.ndarray, int]:
    """One inference: ``start`` for one cycle, wait for ``done``; returns (values, cycles)."""
    port.set(obs)
    dut.control__start.value = 1
    await RisingEdge(dut.clk)                   # end of the start cycle (cycle 0)
    dut.control__start.value = 0
    cycles = 1
    limit = pa.engine_cycles(n_actions, ROWS, COLS) + 100
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
    assert (word >> (WIDTH * MAX_ACTIONS)) & 0x1F == n_actions
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
    for name, qp, obs in cases:
        await load(dut, pa.load_words(qp, ROWS, COLS))
        values, cycles = await infer(dut, port, obs[0], qp.n_actions)
        assert values.tolist() == qp.action_values(obs)[0].tolist(), name
        assert cycles == pa.engine_cycles(qp.n_actions, ROWS, COLS)
