"""cocotb testbench of rtl/preprocessor_cc1.v (NTSC palette, 210 rows) on real ALE frames.

The frames (palette indices) come from the registration's ``prepare`` hook
(``cocotb_benches.py``) in a ``.npy`` file named by the environment variable ``NC2600_PP_FRAMES``: ``(T, 210, 160)``
uint8; the last frame is pushed.
The stack read back through the read port must equal :mod:`nc2600.hls_models.preprocessor`'s, and
``obs_valid`` must rise ``LATENCY_CYCLES`` after the last visible pixel.
Run by ``make sim`` and by ``test_preprocessor_cocotb.py`` through the same registration.
"""
from __future__ import annotations

import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from nc2600.hls_models import preprocessor as pp
from nc2600.hls_models.palette import to_grey
from nc2600.hw.preprocessor import LATENCY_CYCLES

LINES, CLOCKS, FIRST_VISIBLE, YSTART = 262, 228, 68, 34


class PixelDriver:
    """Drives the console -> preprocessor stream: one colour clock per clock cycle.

    ``driving_last_pixel`` is True while the frame's last visible pixel is on the inputs.
    """

    def __init__(self, dut):
        self.dut = dut
        self.driving_last_pixel = False

    async def idle(self, n: int):
        self.dut.stream__visible.value = 0
        self.dut.stream__line_end.value = 0
        self.dut.stream__frame_end.value = 0
        self.driving_last_pixel = False
        await ClockCycles(self.dut.clk, n)

    async def frame(self, screen: np.ndarray, push: bool):
        d = self.dut
        d.ctl__push.value = int(push)
        height = screen.shape[0]
        for line in range(LINES):
            visible = YSTART <= line < YSTART + height
            await self.idle(FIRST_VISIBLE if visible else CLOCKS - 1)
            if visible:
                row = screen[line - YSTART]
                d.stream__visible.value = 1
                for x in range(160):
                    d.stream__pixel.value = int(row[x])
                    if x == 159:
                        d.stream__line_end.value = 1
                        self.driving_last_pixel = line == YSTART + height - 1
                    await RisingEdge(d.clk)
            else:
                d.stream__line_end.value = 1
                d.stream__frame_end.value = int(line == LINES - 1)
                await RisingEdge(d.clk)
        await self.idle(1)


async def watch(dut, driver: PixelDriver, events: dict):
    """Count cycles; record the cycle carrying the last visible pixel and every rise of obs_valid.

    In the read-only phase after clock edge ``k`` the inputs and outputs hold cycle ``k``'s values.
    """
    k, prev = 0, 0
    while True:
        await RisingEdge(dut.clk)
        await ReadOnly()
        k += 1
        if driver.driving_last_pixel and int(dut.stream__visible.value):
            events["last_pixel"].append(k)
        now = int(dut.ctl__obs_valid.value)
        if now and not prev:
            events["rises"].append(k)
        prev = now


async def read(dut, frame: int, index: int) -> int:
    dut.rd__frame.value = frame
    dut.rd__index.value = index
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    return int(dut.rd__data.value)


@cocotb.test()
async def real_frames_match_model(dut):
    screens = np.load(os.environ["NC2600_PP_FRAMES"])
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.ctl__clear.value = 0
    dut.rd__frame.value = 0
    dut.rd__index.value = 0
    driver = PixelDriver(dut)
    await driver.idle(2)
    dut.rst.value = 0
    events = {"last_pixel": [], "rises": []}
    cocotb.start_soon(watch(dut, driver, events))
    for t, screen in enumerate(screens):
        await driver.frame(screen, push=t == len(screens) - 1)
    grey = to_grey(screens)
    want = pp.observe(grey[-2], grey[-1])
    assert len(events["rises"]) == 1 and len(events["last_pixel"]) == len(screens), events
    assert events["rises"][0] - events["last_pixel"][-1] == LATENCY_CYCLES, events
    # newest frame fully through the read port; the three older logical frames repeat it
    # (stack filled with the first observation) - checked on a sample of pixels
    got = np.array([await read(dut, 3, i) for i in range(84 * 84)], np.uint8).reshape(84, 84)
    assert np.array_equal(got, want), int((got != want).sum())
    for f in range(3):
        for i in (0, 83, 3528, 7055):
            assert await read(dut, f, i) == want.flat[i]
