"""cocotb testbench of rtl/instance_cc3.v (the fabric instance) through its AXI4-Lite slave, driven by
cocotbext-axi's AxiLiteMaster (pinned 0.1.28).

Checks the host interface as a bus master sees it: the ID register, DECERR for an unmapped
address, SLVERR and the sticky error bits for a bad ROM size and a start without a ROM, a ROM
and RAM load through MEM_DATA, a system reset and one manual frame; the RIOT RAM read back
after that frame equals the Verilated console harness (hwtools/console_harness.py) doing the same
steps (an independent path to the same console RTL); and the register walk generated from the
register description (:func:`nc2600.hwtools.register_walk.walk`: reset values, walking ones and zeros on
every read-write field, read-only / write-only / gap responses, CONTROL's self-clearing strobes),
once with the master ready on every clock and once with random back-pressure on all five channels
(cocotbext-axi pause generators). Found by ``make sim`` (``hwtools/sim.py``, zero-configuration
rule).
"""
from __future__ import annotations

import random

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster
from cocotbext.axi.constants import AxiResp

from nc2600.hls_models.registers import INSTANCE as R

ID, STATUS, CONTROL, CONSOLE_CFG, TIMER_INIT = (R.ID.offset, R.STATUS.offset, R.CONTROL.offset,
                                                 R.CONSOLE_CFG.offset, R.TIMER_INIT.offset)
MEM_SEL, MEM_ADDR, MEM_DATA, ROM_SIZE, FRAME_STATUS, RIOT_RAM = (
    R.MEM_SEL.offset, R.MEM_ADDR.offset, R.MEM_DATA.offset, R.ROM_SIZE.offset, R.FRAME_STATUS.offset,
    R.RIOT_RAM.offset)


async def _setup(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    return AxiLiteMaster(AxiLiteBus.from_prefix(dut, "bus_"), dut.clk, dut.rst)


async def _rd(axi, addr):
    r = await axi.read(addr, 4)
    return int.from_bytes(r.data, "little"), r.resp


async def _wr(axi, addr, value):
    r = await axi.write(addr, int(value).to_bytes(4, "little"))
    return r.resp


@cocotb.test()
async def bus_errors(dut):
    axi = await _setup(dut)
    assert await _rd(axi, ID) == (0x4E433236, AxiResp.OKAY)
    assert (await _rd(axi, 0x3F0))[1] == AxiResp.DECERR
    assert await _wr(axi, 0x3F0, 1) == AxiResp.DECERR
    assert await _wr(axi, ROM_SIZE, 3000) == AxiResp.SLVERR
    assert await _wr(axi, CONTROL, 1) == AxiResp.SLVERR         # start without a ROM
    status, _ = await _rd(axi, STATUS)
    assert status >> 16 & 0b11 == 0b11                          # no ROM, bad size
    assert await _wr(axi, CONTROL, 16) == AxiResp.OKAY          # clear errors
    assert (await _rd(axi, STATUS))[0] >> 16 == 0


@cocotb.test()
async def manual_frame_equals_console_harness(dut):
    from nc2600.host.games import resolve_rom
    from nc2600.hwtools.console_harness import ConsoleSim
    _, path = resolve_rom(game="boxing")
    rom = open(path, "rb").read()
    ram = bytes((i * 37 + 11) & 0xFF for i in range(128))
    axi = await _setup(dut)
    assert await _wr(axi, CONSOLE_CFG, 0 | 0 << 4 | 1 << 5 | 34 << 6 | 210 << 15) == AxiResp.OKAY   # 2K, NTSC
    assert await _wr(axi, ROM_SIZE, len(rom)) == AxiResp.OKAY
    for sel, data in ((0, rom), (2, ram)):
        await _wr(axi, MEM_SEL, sel)
        await _wr(axi, MEM_ADDR, 0)
        for w in np.frombuffer(data, "<u4").tolist():
            assert await _wr(axi, MEM_DATA, w) == AxiResp.OKAY
    assert (await _rd(axi, STATUS))[0] >> 8 & 1                 # ROM loaded
    await _wr(axi, TIMER_INIT, 60)
    await _wr(axi, CONTROL, 4)                                  # system reset
    assert await _wr(axi, CONTROL, 2) == AxiResp.OKAY           # one manual frame
    for _ in range(2000):
        await ClockCycles(dut.clk, 100)
        if (await _rd(axi, STATUS))[0] & 0xF == 0:
            break
    assert (await _rd(axi, FRAME_STATUS))[0] == 0
    got = b""
    for i in range(32):
        got += (await _rd(axi, RIOT_RAM + 4 * i))[0].to_bytes(4, "little")
    ref = ConsoleSim()
    ref.configure("2K", pal=False, hmove_blanks=True, ystart=34, height=210)
    ref.load_rom(rom)
    ref.write_riot_ram(ram)
    ref.reset(60)
    ref.set_inputs()
    assert ref.run_frame().status == 0
    assert got == ref.riot_ram().tobytes()


async def _walk(dut, axi):
    from nc2600.hwtools.register_walk import run_async

    async def read(addr):
        r = await axi.read(addr, 4)
        return int.from_bytes(r.data, "little"), int(r.resp)

    async def write(addr, value):
        return int((await axi.write(addr, int(value).to_bytes(4, "little"))).resp)

    async def idle(n):
        await ClockCycles(dut.clk, n)
    return await run_async(read, write, idle)


def _pauses(seed: int, p: float):
    """Random back-pressure: pause on a clock with probability ``p`` (seeded, reproducible)."""
    rng = random.Random(seed)
    while True:
        yield rng.random() < p


@cocotb.test()
async def register_walk(dut):
    axi = await _setup(dut)
    checks = await _walk(dut, axi)
    dut._log.info(f"register walk: {checks} checks")


@cocotb.test()
async def register_walk_back_pressure(dut):
    axi = await _setup(dut)
    w, r = axi.write_if, axi.read_if
    for i, channel in enumerate((w.aw_channel, w.w_channel, w.b_channel, r.ar_channel, r.r_channel)):
        channel.set_pause_generator(_pauses(i + 1, 0.4))
    checks = await _walk(dut, axi)
    dut._log.info(f"register walk under back-pressure: {checks} checks")
