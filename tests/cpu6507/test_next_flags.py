"""``Cpu6507.sync_next``/``jammed_next`` before a clock edge must equal ``sync``/``jammed`` after it,
at every edge, whatever the core does: random read data at every clock (every opcode, the 12 JAM
opcodes among them), random ``ce`` and ``rdy`` holds, and state loads (which restart a jammed
core; a jammed core is left jammed for a while first, so that staying jammed is predicted too).
The oracle is the core's own outputs one clock later; a frame controller registers these to stop
at an instruction boundary without a path from the state machine into its clock enable
. Both configurations: one cycle per clock (the three-colour-clock console's CPU, with
its operations staged two clocks, one, or not) and ``ce`` at most every third clock (the
one-colour-clock console's).
"""
from __future__ import annotations

import random

import pytest
from amaranth.sim import Simulator

from nc2600.hw.cpu6507 import Cpu6507


def _run(seed: int, clocks: int, dut: Cpu6507, third: bool):
    """(mismatches as (clock, predicted, got), counts of syncs, jams and loads seen)."""
    rng = random.Random(seed)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    out = {"bad": [], "sync": 0, "jam": 0, "jam_held": 0, "loads": 0}

    async def bench(ctx):
        before = None
        for clk in range(clocks):
            now = (ctx.get(dut.sync), ctx.get(dut.jammed))
            if before is not None and now != before:
                out["bad"].append((clk, before, now))
            out["sync"] += now[0]
            out["jam"] += now[1]
            ce = int(rng.random() < 0.9 and (clk % 3 == 0 or not third))
            rdy = int(rng.random() < 0.8)
            load = int(now[1] and rng.random() < 0.2 or rng.random() < 0.002)
            out["jam_held"] += int(now[1] and not load)
            ctx.set(dut.din, rng.randrange(256))
            ctx.set(dut.ce, ce)
            ctx.set(dut.rdy, rdy)
            ctx.set(dut.load_en, load)
            if load:
                ctx.set(dut.load.pc, rng.randrange(65536))
                ctx.set(dut.load.sp, rng.randrange(256))
                out["loads"] += 1
            before = (ctx.get(dut.sync_next), ctx.get(dut.jammed_next))
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    return out


@pytest.mark.parametrize("seed,config", [(1, "staged2"), (2, "staged1"), (3, "plain"), (4, "three")])
def test_sync_next_and_jammed_next_are_the_next_clocks_values(seed, config):
    dut = (Cpu6507(clocks_per_cycle=3) if config == "three" else
           Cpu6507(staged_ops={"staged2": 2, "staged1": 1, "plain": 0}[config]))
    out = _run(seed, 6000, dut, third=config == "three")
    assert out["bad"] == []
    assert out["sync"] > 200 and out["jam"] > 50 and out["jam_held"] > 20 and out["loads"] > 20
