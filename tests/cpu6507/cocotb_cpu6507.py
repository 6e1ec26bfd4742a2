"""cocotb testbenches of the 6507 core (rtl/cpu6507.v), run by test_cocotb.py with Verilator.

`MemoryBus` is the bus model: a flat 64 KiB memory served on the core's addr/din/dout/rw
pins once per completed CPU cycle (ce and rdy honoured). Tests:
* `reset_vector_and_registers`: the two vector reads, then ALE's reset register values;
* `program_matches_py65`: whole programs (tests/cpu6507/programs.py) from reset; final
  registers, memory and cycle count against py65 (the sample runs one short program,
  ``CPU6507_COCOTB_FULL=1`` runs them all);
* `ce_and_rdy`: with CE on every third clock and RDY pulses, the completed-cycle trace is
  the free-running one and write cycles never wait for RDY.
"""
import os
import random
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from asm import assemble  # noqa: E402
from programs import PROGRAMS  # noqa: E402

ORG = 0x1000
FULL = os.environ.get("CPU6507_COCOTB_FULL") == "1"


class MemoryBus:
    """Flat 64 KiB memory on the core's bus, driving clk-side inputs at each falling edge.

    The bus holds RES for the first clock, then serves one byte per clock: a cycle
    completes at a rising edge with ce = 1 and (rdy = 1 or a write); each completed
    cycle is recorded as (addr, rw, data).
    """

    def __init__(self, dut, image: dict[int, int], ce_of=None, rdy_of=None):
        self.dut = dut
        self.mem = bytearray(65536)
        for addr, value in image.items():
            self.mem[addr] = value
        self.trace: list[tuple[int, int, int]] = []
        self.ce_of, self.rdy_of = ce_of, rdy_of
        self.clock = 0
        self.running = True

    async def run(self):
        dut = self.dut
        while self.running:
            await FallingEdge(dut.clk)
            if self.clock == 0:
                dut.rst.value = 1
                dut.ce.value, dut.rdy.value, dut.din.value = 1, 1, 0
                self.clock += 1
                continue
            dut.rst.value = 0
            clk = self.clock - 1
            ce = 1 if self.ce_of is None else self.ce_of(clk)
            rdy = 1 if self.rdy_of is None else self.rdy_of(clk)
            dut.ce.value, dut.rdy.value = ce, rdy
            addr, rw = int(dut.addr.value), int(dut.rw.value)
            data = self.mem[addr] if rw else int(dut.dout.value)
            dut.din.value = data if rw else 0
            if ce and (rdy or not rw):
                if not rw:
                    self.mem[addr] = data
                self.trace.append((addr, rw, data, int(dut.sync.value)))
            self.clock += 1


async def _start(dut, image, ce_of=None, rdy_of=None):
    """Start a bus that resets the core; returns the bus (the test has started the clock)."""
    dut.load_en.value = 0
    bus = MemoryBus(dut, image, ce_of, rdy_of)
    cocotb.start_soon(bus.run())
    return bus


def _clock(dut):
    """Start the clock of this test (cocotb ends a test's tasks with it)."""
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())


async def _cycles(bus, n):
    """Wait until the bus has recorded n completed cycles."""
    while len(bus.trace) < n:
        await RisingEdge(bus.dut.clk)
    await FallingEdge(bus.dut.clk)


def _registers(dut):
    return tuple(int(getattr(dut, f"state__{r}").value) for r in ("a", "x", "y", "sp", "p", "pc"))


async def _run_to_trap(bus, max_cycles):
    """Run until the trap (a JMP to itself) has been executed once; returns its end cycle count."""
    seen = 0
    while len(bus.trace) < max_cycles:
        await RisingEdge(bus.dut.clk)
        await FallingEdge(bus.dut.clk)
        if bus.trace and bus.trace[-1][3]:
            pc = bus.trace[-1][0]
            m = bus.mem
            if m[pc] == 0x4C and m[(pc + 1) & 0xFFFF] | m[(pc + 2) & 0xFFFF] << 8 == pc:
                seen += 1
                if seen == 2:
                    return len(bus.trace) - 1      # the second fetch is not part of the run
    raise AssertionError("no trap reached")


def _py65(code):
    from py65.devices.mpu6502 import MPU
    mem = [0] * 0x10000
    for addr, value in code.items():
        mem[addr] = value
    mpu = MPU(memory=mem, pc=ORG)
    mpu.p = 0x30
    while True:
        pc = mpu.pc
        trap = mem[pc] == 0x4C and mem[pc + 1] | mem[pc + 2] << 8 == pc
        mpu.step()
        if trap:
            return mpu, mem


VECTOR = {0xFFFC: ORG & 0xFF, 0xFFFD: ORG >> 8}


@cocotb.test()
async def reset_vector_and_registers(dut):
    _clock(dut)
    bus = await _start(dut, {ORG: 0x4C, ORG + 1: ORG & 0xFF, ORG + 2: ORG >> 8, **VECTOR})
    await _cycles(bus, 2)
    assert _registers(dut) == (0, 0, 0, 0xFF, 0x30, ORG)
    await _cycles(bus, 3)
    assert [t[0] for t in bus.trace[:3]] == [0xFFFC, 0xFFFD, ORG]
    assert [t[3] for t in bus.trace[:3]] == [0, 0, 1]
    bus.running = False


@cocotb.test()
async def program_matches_py65(dut):
    _clock(dut)
    names = sorted(PROGRAMS) if FULL else ["indirect"]
    for name in names:
        code = {**assemble(PROGRAMS[name], org=ORG), **VECTOR}
        mpu, mem = _py65(code)
        bus = await _start(dut, code)
        end = await _run_to_trap(bus, 2_000_000)
        bus.running = False
        regs = _registers(dut)
        assert regs == (mpu.a, mpu.x, mpu.y, mpu.sp, mpu.p | 0x30, mpu.pc), name
        assert bytes(bus.mem) == bytes(mem), name
        assert end - 2 == mpu.processorCycles, name      # 2 reset-vector cycles before the first fetch
        await FallingEdge(dut.clk)


@cocotb.test()
async def ce_and_rdy(dut):
    _clock(dut)
    code = {**assemble(PROGRAMS["indirect"], org=ORG), **VECTOR}
    bus = await _start(dut, code)
    await _cycles(bus, 150)
    bus.running = False
    reference = bus.trace[:150]
    await FallingEdge(dut.clk)
    rng = random.Random(6507)
    rdy_low = {clk for clk in range(1000) if rng.random() < 0.3}
    bus = await _start(dut, code, ce_of=lambda clk: int(clk % 3 == 2), rdy_of=lambda clk: int(clk not in rdy_low))
    await _cycles(bus, 150)
    bus.running = False
    assert bus.trace[:150] == reference
    assert bus.clock > 3 * 150
