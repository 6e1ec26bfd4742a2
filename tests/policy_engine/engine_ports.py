"""cocotb drivers of the ports both inference engines share (``rtl/policy_engine.v``, the lane
engine, and ``rtl/policy_array.v``, the array engine): the parameter write port, the control
port (start, busy, done) and the action-value stream. Used by tests/policy_engine/
cocotb_policy_engine.py and tests/policy_array/cocotb_policy_array.py; each serves its own
observation port (the two engines read observations differently).

Action-value beat (both engines): ``MAX_ACTIONS`` signed 32-bit values, value ``i`` in bits
``32 i .. 32 i + 31``, then the action count in the 5 bits above them.
"""
from __future__ import annotations

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from nc2600.hls_models.action_select import MAX_ACTIONS

WIDTH = 32      #: bits of one action value in the beat


async def reset(dut) -> None:
    """Start a 10 ns clock, hold ``rst`` for two cycles with every input idle, release it."""
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.control__start.value = 0
    dut.params__valid.value = 0
    dut.action_values__ready.value = 0
    dut.obs__data.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0


async def load(dut, words: np.ndarray) -> int:
    """Drive the parameter write port with the ``(n, 4)`` rows ``(space, row, lane, data)``
    (the models' ``load_words``), one word per cycle; returns the words written."""
    for space, row, lane, data in words.tolist():
        dut.params__valid.value = 1
        dut.params__space.value = space
        dut.params__row.value = row
        dut.params__lane.value = lane
        dut.params__data.value = data
        await RisingEdge(dut.clk)
    dut.params__valid.value = 0
    return len(words)


async def start_and_read(dut, n_actions: int, max_cycles: int) -> tuple[np.ndarray, int]:
    """One inference on the observation the caller's port serves: ``start`` for one cycle, wait
    for ``done`` (``busy`` high until then, at most ``max_cycles`` cycles), read the action-value
    beat (its count must be ``n_actions``) and take it with ``ready`` for one cycle.

    Returns:
        ``(values, cycles)``: ``(n_actions,)`` int64 action values, and the cycles from the
        start cycle (cycle 0) to the one in which ``done`` is high.
    """
    dut.control__start.value = 1
    await RisingEdge(dut.clk)                   # end of the start cycle (cycle 0)
    dut.control__start.value = 0
    cycles = 1
    while True:
        await ReadOnly()
        if int(dut.control__done.value):
            break
        assert int(dut.control__busy.value) == 1, f"busy low in cycle {cycles} before done"
        assert cycles < max_cycles, "done did not rise"
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
