"""Bus cycles: the NMOS cycle-by-cycle sequences, dummy marking, reset, CE and RDY.

Expected sequences are written by hand from the MCS6500 family hardware manual's
cycle tables (as summarised in 64doc): (address, R/W, dummy) per cycle; `dummy` marks
the accesses ALE's CPU does not make (it has no dummy reads or writes), so JSR's stack
read, RTS's final PC read and BRK's padding-byte read are real ALE accesses.
CE and RDY are checked in Amaranth's simulator on the Component itself.
"""
import pytest
from amaranth.sim import Simulator

from nc2600.hw.cpu6507 import Cpu6507

R, W = True, False

# name, code at pc, pc, registers (a, x, y, sp, p), memory, [(addr, read, dummy)...]
CASES = [
    ("LDA abs,X page cross", [0xBD, 0xF0, 0x20], 0x1000, (0, 0x20, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x1002, R, 0), (0x2010, R, 1), (0x2110, R, 0)]),
    ("LDA abs,X same page", [0xBD, 0x10, 0x20], 0x1000, (0, 0x01, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x1002, R, 0), (0x2011, R, 0)]),
    ("INC zp", [0xE6, 0x30], 0x1000, (0, 0, 0, 0xFF, 0x30), {0x30: 0x41},
     [(0x1000, R, 0), (0x1001, R, 0), (0x0030, R, 0), (0x0030, W, 1), (0x0030, W, 0)]),
    ("STA abs,X", [0x9D, 0x00, 0x20], 0x1000, (0, 5, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x1002, R, 0), (0x2005, R, 1), (0x2005, W, 0)]),
    ("JSR", [0x20, 0x00, 0x30], 0x1000, (0, 0, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x01FF, R, 0), (0x01FF, W, 0), (0x01FE, W, 0), (0x1002, R, 0)]),
    ("RTS", [0x60], 0x1000, (0, 0, 0, 0xFD, 0x30), {0x1FE: 0x02, 0x1FF: 0x10},
     [(0x1000, R, 0), (0x1001, R, 1), (0x01FD, R, 0), (0x01FE, R, 0), (0x01FF, R, 0), (0x1002, R, 0)]),
    ("BNE taken, page cross", [0xD0, 0x20], 0x10F0, (0, 0, 0, 0xFF, 0x30), {},
     [(0x10F0, R, 0), (0x10F1, R, 0), (0x10F2, R, 1), (0x1012, R, 1)]),
    ("BNE taken", [0xD0, 0x02], 0x1000, (0, 0, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x1002, R, 1)]),
    ("BEQ not taken", [0xF0, 0x02], 0x1000, (0, 0, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0)]),
    ("LDA (zp),Y page cross", [0xB1, 0x40], 0x1000, (0, 0, 0x20, 0xFF, 0x30), {0x40: 0xF0, 0x41: 0x20},
     [(0x1000, R, 0), (0x1001, R, 0), (0x0040, R, 0), (0x0041, R, 0), (0x2010, R, 1), (0x2110, R, 0)]),
    ("LDA (zp,X)", [0xA1, 0x40], 0x1000, (0, 2, 0, 0xFF, 0x30), {0x42: 0x34, 0x43: 0x12},
     [(0x1000, R, 0), (0x1001, R, 0), (0x0040, R, 1), (0x0042, R, 0), (0x0043, R, 0), (0x1234, R, 0)]),
    ("PHA", [0x48], 0x1000, (0x77, 0, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 1), (0x01FF, W, 0)]),
    ("PLA", [0x68], 0x1000, (0, 0, 0, 0xFE, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 1), (0x01FE, R, 0), (0x01FF, R, 0)]),
    ("BRK", [0x00], 0x1000, (0, 0, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x01FF, W, 0), (0x01FE, W, 0), (0x01FD, W, 0), (0xFFFE, R, 0),
      (0xFFFF, R, 0)]),
    ("JMP (ind) page wrap", [0x6C, 0xFF, 0x10], 0x1000, (0, 0, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x1002, R, 0), (0x10FF, R, 0), (0x1000, R, 0)]),
    ("LAX zp (ALE: 4 cycles)", [0xA7, 0x10], 0x1000, (0, 0, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x0010, R, 1), (0x0010, R, 0)]),
    ("ASL A", [0x0A], 0x1000, (0, 0, 0, 0xFF, 0x30), {}, [(0x1000, R, 0), (0x1001, R, 1)]),
    ("INC abs,X", [0xFE, 0xFF, 0x20], 0x1000, (0, 1, 0, 0xFF, 0x30), {},
     [(0x1000, R, 0), (0x1001, R, 0), (0x1002, R, 0), (0x2000, R, 1), (0x2100, R, 0), (0x2100, W, 1),
      (0x2100, W, 0)]),
]


@pytest.mark.parametrize("name,code,pc,regs,memory,expected", CASES, ids=[c[0] for c in CASES])
def test_bus_sequence(harness, name, code, pc, regs, memory, expected):
    harness.memory[:] = 0
    harness.memory[pc:pc + len(code)] = code
    for addr, value in memory.items():
        harness.memory[addr] = value
    harness.load_state(*regs, pc=pc)
    harness.set_log(64, "all")
    res = harness.run(64, max_instructions=1)
    log = harness.log()
    assert res.cycles == len(expected)
    assert [(c.addr, c.read, int(c.dummy)) for c in log] == expected
    assert [c.sync for c in log] == [True] + [False] * (len(expected) - 1)


def test_rmw_dummy_write_carries_the_old_value(harness):
    harness.memory[:] = 0
    harness.memory[0x1000:0x1002] = [0xE6, 0x30]
    harness.memory[0x30] = 0x41
    harness.load_state(pc=0x1000)
    harness.set_log(16, "writes")
    harness.run(16, max_instructions=1)
    assert [(c.addr, c.data, c.dummy) for c in harness.log()] == [(0x30, 0x41, True), (0x30, 0x42, False)]


# ---------------------------------------------------------------- Amaranth simulation
PROGRAM = {0xFFFC: 0x00, 0xFFFD: 0x10}
_CODE = [0xA2, 0x05,        # LDX #5
         0x8A,              # loop: TXA
         0x95, 0x80,        # STA $80,X
         0xE6, 0x90,        # INC $90
         0xCA,              # DEX
         0xD0, 0xF8,        # BNE loop
         0x85, 0x02,        # STA $02 (a write; then the fetch below is a read)
         0xA5, 0x81,        # LDA $81
         0x4C, 0x0E, 0x10]  # JMP $100E (self)
PROGRAM.update({0x1000 + i: b for i, b in enumerate(_CODE)})


def _simulate(clocks, ce_of=lambda clk: 1, rdy_of=lambda clk: 1):
    """Run PROGRAM from reset; returns (per-cycle trace, final state, memory).

    Trace: one (addr, rw, data, sync, dummy) per completed CPU cycle.
    """
    dut = Cpu6507()
    mem = bytearray(65536)
    for addr, value in PROGRAM.items():
        mem[addr] = value
    trace, final = [], {}

    async def bench(ctx):
        for clk in range(clocks):
            ce, rdy = ce_of(clk), rdy_of(clk)
            ctx.set(dut.ce, ce)
            ctx.set(dut.rdy, rdy)
            addr, rw = ctx.get(dut.addr), ctx.get(dut.rw)
            data = mem[addr] if rw else ctx.get(dut.dout)
            ctx.set(dut.din, data if rw else 0)
            completes = ce and (rdy or not rw)
            if completes:
                if not rw:
                    mem[addr] = data
                trace.append((addr, rw, data, ctx.get(dut.sync), ctx.get(dut.dummy)))
            await ctx.tick()
        for reg in ("a", "x", "y", "sp", "p", "pc"):
            final[reg] = ctx.get(getattr(dut.state, reg))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return trace, final, mem


def test_reset_reads_the_vector_and_sets_ale_registers():
    trace, _, _ = _simulate(3)
    assert [(t[0], t[1], t[4]) for t in trace] == [(0xFFFC, 1, 0), (0xFFFD, 1, 0), (0x1000, 1, 0)]
    assert [t[3] for t in trace] == [0, 0, 1]    # the third cycle is the first opcode fetch
    _, final, _ = _simulate(2)
    assert final == {"a": 0, "x": 0, "y": 0, "sp": 0xFF, "p": 0x30, "pc": 0x1000}


def test_clock_enable_one_cycle_per_three_clocks():
    ref_trace, ref_final, ref_mem = _simulate(120)
    trace, final, mem = _simulate(360, ce_of=lambda clk: int(clk % 3 == 2))
    assert trace == ref_trace and final == ref_final and mem == ref_mem
    assert mem[0x81] == 1 and mem[0x85] == 5 and mem[0x90] == 5 and ref_final["a"] == 1 and ref_final["x"] == 0
    assert sum(t[3] for t in trace) > 25         # instructions executed, the JMP loop reached


def test_rdy_holds_read_cycles_only():
    ref_trace, ref_final, _ = _simulate(120)
    # the STA $02 write cycle is cycle k: hold RDY low from there for 7 clocks
    write_idx = next(i for i, t in enumerate(ref_trace) if t[0] == 0x02 and t[1] == 0)

    def rdy(clk):
        return int(not (write_idx <= clk < write_idx + 7))
    trace, final, _ = _simulate(126, rdy_of=rdy)    # 6 clocks lost: the write did not wait
    assert trace == ref_trace and final == ref_final
    # the write completed at once although RDY was low; the next read waited for RDY
    held, _, _ = _simulate(write_idx + 3, rdy_of=rdy)
    assert held[-1][:2] == (0x02, 0)
    assert len(held) == write_idx + 1


def test_state_load_works_with_ce_low():
    dut = Cpu6507()

    async def bench(ctx):
        ctx.set(dut.ce, 0)
        for reg, value in (("a", 0x12), ("x", 0x34), ("y", 0x56), ("sp", 0x78), ("p", 0xC3), ("pc", 0xBEEF)):
            ctx.set(getattr(dut.load, reg), value)
        ctx.set(dut.load_en, 1)
        await ctx.tick()
        ctx.set(dut.load_en, 0)
        await ctx.tick()
        assert [ctx.get(getattr(dut.state, r)) for r in ("a", "x", "y", "sp", "p", "pc")] == \
            [0x12, 0x34, 0x56, 0x78, 0xF3, 0xBEEF]
        assert ctx.get(dut.sync) == 1 and ctx.get(dut.addr) == 0xBEEF

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def test_memory_changed_between_runs_is_seen(harness):
    """A byte changed from Python at the address the stopped core is about to read."""
    harness.memory[:] = 0
    harness.memory[0x1000:0x1002] = [0xA9, 0x11]            # LDA #$11
    harness.load_state(pc=0x1000)
    harness.memory[0x1000] = 0xA2                           # now LDX #$11, at the fetch address
    assert harness.run(10, max_instructions=1).cycles == 2
    regs, _ = harness.state()
    assert (regs.a, regs.x, regs.pc) == (0, 0x11, 0x1002)
    harness.memory[0x1002:0x1004] = [0xA0, 0x33]            # LDY #$33 at the next fetch
    harness.run(10, max_instructions=1)
    assert harness.state()[0].y == 0x33
