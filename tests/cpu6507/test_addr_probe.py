"""``Cpu6507(addr_probe=True)``: ``addr_next``/``rw_next``/``write_next`` before a clock edge must equal
``addr``/``rw``/(R/W low and not ``dummy``) after it, at every edge, whatever the core does: random read data at every
clock (so every opcode, addressing mode, branch and page crossing the data leads to), random ``ce`` and ``rdy`` holds,
and state loads (which also restart a jammed core). The oracle is the core's own bus one clock later; a mutation of the
probe (the address latch or S not probed, ``advance`` ignored, the load not seen) makes it fail.

Amaranth's simulator runs the core (the three-colour-clock console's configuration: one cycle per
clock, operations over two clocks; and staged one clock, and not staged). A directed case: TXS then
PHA (the stack address after an operation's S write, which lands two clocks after its request).
"""
from __future__ import annotations

import random

import pytest
from amaranth.sim import Simulator

from nc2600.hw.cpu6507 import Cpu6507


def _run(seed: int, clocks: int, probe_noise: bool = False, stages: int = 2):
    """(edges checked, opcodes fetched, held edges, loads, mismatches as (clock, got, want)).
    ``probe_noise``: ``din_probe`` gets random bits 7..6 (bits 5..0 ``din``'s), and only bits
    13..0 of an address with A12 = 1 (a cartridge access) are compared, with R/W."""
    rng = random.Random(seed)
    dut = Cpu6507(staged_ops=stages, addr_probe=True)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    out = {"edges": 0, "opcodes": set(), "held": 0, "loads": 0, "bad": [], "cart": 0, "dummy_writes": 0}

    async def bench(ctx):
        before = None
        for clk in range(clocks):
            addr, rw = ctx.get(dut.addr), ctx.get(dut.rw)
            write = int(not rw and not ctx.get(dut.dummy))     # a write the console performs
            out["dummy_writes"] += int(not rw and not write)
            if before is not None and probe_noise:
                if addr & 0x1000 and ((addr & 0x3FFF, rw) != (before[0] & 0x3FFF, before[1])):
                    out["bad"].append((clk, before, (addr, rw)))
                out["cart"] += bool(addr & 0x1000)
            elif before is not None and (addr, rw, write) != before:
                out["bad"].append((clk, before, (addr, rw, write)))
            din = rng.randrange(256)
            ce = int(rng.random() < 0.9)
            rdy = int(rng.random() < 0.8)
            load = int(ctx.get(dut.jammed) or rng.random() < 0.002)
            ctx.set(dut.din, din)
            ctx.set(dut.din_probe, din ^ (rng.randrange(4) << 6 if probe_noise else 0))
            ctx.set(dut.ce, ce)
            ctx.set(dut.rdy, rdy)
            ctx.set(dut.load_en, load)
            if load:
                ctx.set(dut.load.pc, rng.randrange(65536))
                ctx.set(dut.load.sp, rng.randrange(256))
                ctx.set(dut.load.x, rng.randrange(256))
                ctx.set(dut.load.y, rng.randrange(256))
                out["loads"] += 1
            if ce and ctx.get(dut.sync) and (rdy or not rw) and not load:
                out["opcodes"].add(din)
            if ce and rw and not rdy:
                out["held"] += 1
            before = (ctx.get(dut.addr_next), ctx.get(dut.rw_next), ctx.get(dut.write_next))
            out["edges"] += 1
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    return out


@pytest.mark.parametrize("seed,stages", [(1, 2), (2, 2), (1, 1), (2, 0)])
def test_addr_next_is_the_next_cycles_address(seed, stages):
    out = _run(seed, 6000, stages=stages)
    assert out["bad"] == []
    assert out["edges"] == 6000
    assert len(out["opcodes"]) > 200          # most of the 256 opcodes seen (random data)
    assert out["held"] > 100 and out["loads"] > 20
    assert out["dummy_writes"] > 20           # RMW's first write: write_next must leave it out


@pytest.mark.parametrize("seed", [3, 4])
def test_addr_next_of_a_cartridge_access_ignores_bits_7_6_of_the_probe_data(seed):
    # the console feeds din_probe's bits 7..6 without the TIA's (slow) read bits: where the next
    # access is the cartridge's (A12 = 1) its A13..A0 must not depend on them
    out = _run(seed, 6000, probe_noise=True)
    assert out["bad"] == []
    assert out["cart"] > 1000 and len(out["opcodes"]) > 200


def test_addr_probe_rejects_three_clocks_per_cycle():
    with pytest.raises(ValueError, match="addr_probe is for clocks_per_cycle=1"):
        Cpu6507(clocks_per_cycle=3, addr_probe=True)


@pytest.mark.parametrize("stages", [0, 1, 2])
def test_addr_next_after_txs_is_the_new_stack(stages):
    # LDX #$80; TXS; PHA; PHP from $F000 (reset vector there): the pushes go to $0180 and $017F
    rom = {0xF000 + i: b for i, b in enumerate([0xA2, 0x80, 0x9A, 0x48, 0x08, 0xEA, 0xEA, 0xEA])}
    rom.update({0xFFFC: 0x00, 0xFFFD: 0xF0})
    dut = Cpu6507(staged_ops=stages, addr_probe=True)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    seen = []

    async def bench(ctx):
        before = None
        for _ in range(20):
            addr = ctx.get(dut.addr)
            seen.append((before, addr))
            ctx.set(dut.din, rom.get(addr, 0xEA))
            ctx.set(dut.din_probe, rom.get(addr, 0xEA))
            before = ctx.get(dut.addr_next)
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    assert [a for _, a in seen if 0x100 <= a < 0x200] == [0x180, 0x17F]
    assert all(b == a for b, a in seen[1:])
