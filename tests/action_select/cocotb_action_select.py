"""cocotb testbench of rtl/action_select.v (18 lanes, 32-bit signed values) against the rule (first maximum, a
plain loop).

Run by ``make sim`` (rule 1 of :mod:`nc2600.hwtools.sim`) and by ``test_action_select_cocotb.py`` through the same path.
"""
from __future__ import annotations

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import NextTimeStep, ReadOnly, RisingEdge

from nc2600.hls_models.action_select import latency
from tests.action_select.vectors import adversarial_vectors, first_maximum

N, WIDTH = 18, 32


def pack(values, count: int = N) -> int:
    """One action-values beat (nc2600.hw.interfaces.action_values_layout): ``values`` lanes from
    bit 0, ``count`` above them."""
    word = 0
    for i, v in enumerate(values):
        word |= (int(v) & ((1 << WIDTH) - 1)) << (WIDTH * i)
    return word | int(count) << (WIDTH * N)


async def reset(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.action_values__valid.value = 0
    dut.action_values__payload.value = pack([0] * N)
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0


async def stream(dut, vectors: np.ndarray, counts: np.ndarray) -> list[tuple[int, int, int]]:
    """Present one vector per cycle; collect (index, value, cycles after its input) per output."""
    outputs, cycle, sent = [], 0, []
    total = len(vectors)
    while len(outputs) < total:
        if len(sent) < total:
            t = len(sent)
            dut.action_values__payload.value = pack(vectors[t], counts[t])
            dut.action_values__valid.value = 1
            sent.append(cycle)
        else:
            dut.action_values__valid.value = 0
        await RisingEdge(dut.clk)
        cycle += 1
        await ReadOnly()
        assert int(dut.action_values__ready.value) == 1     # always ready
        if int(dut.chosen__valid.value):
            k = len(outputs)
            outputs.append((int(dut.chosen__index.value), dut.chosen__value.value.to_signed(), cycle - sent[k]))
        assert cycle < total + 20, "chosen__valid missing"
        await NextTimeStep()              # leave the read-only phase before driving again
    return outputs


def check(vectors, counts, outputs):
    for v, c, (idx, val, lat) in zip(vectors, counts, outputs):
        want = first_maximum(v, c)                 # the rule as a plain loop: first maximum
        assert idx == want, (v.tolist(), c, idx, want)
        assert val == int(v[want])
        assert lat == latency(N)


@cocotb.test()
async def adversarial_vectors_back_to_back(dut):
    """All equal, ties at both ends, the most negative and most positive values."""
    await reset(dut)
    vectors = adversarial_vectors(N, WIDTH)
    counts = np.full(len(vectors), N)
    check(vectors, counts, await stream(dut, vectors, counts))


@cocotb.test()
async def random_vectors_and_counts(dut):
    """Random 32-bit values, random small values (many ties), random lane counts."""
    await reset(dut)
    rng = np.random.default_rng(2600)
    wide = rng.integers(-(1 << 31), 1 << 31, size=(60, N))
    narrow = rng.integers(-3, 4, size=(60, N))
    vectors = np.concatenate([wide, narrow])
    counts = rng.integers(1, N + 1, size=len(vectors))
    check(vectors, counts, await stream(dut, vectors, counts))
