"""``Riot(ram_read="next")`` (the three-colour-clock console's RIOT RAM read a clock ahead from the
CPU's next access, transparent for the write at that edge) against ``Riot(ram_read="comb")`` (the
RAM read combinationally at the access's address, the form that matched ALE on all 104 games):
fed the same random access at every clock, and the "next" one the following clock's access on
``next_bus``, the read data must be equal at every clock. The accesses are biased to what the
read-ahead must get right: a write then a read of the same byte in the next clock (the transparent
case), RAM mirrors ($80-$FF with A8 and A10/A11 set), reads held over several clocks (RDY), and
host writes between CPU accesses.
"""
from __future__ import annotations

import random

import pytest
from amaranth import Elaboratable, Module
from amaranth.sim import Simulator

from nc2600.hw.riot import Riot

HOT = [0x80, 0xF0, 0xFF]     # a few bytes, so that writes and reads meet


def _access(rng: random.Random, prev: dict | None) -> dict:
    """One bus access (sel, A9..A0, write, wdata, strobe) and maybe a host write."""
    if prev is not None and rng.random() < 0.15:
        acc = dict(prev)                        # the access held (RDY low: no strobe, same address)
        acc["strobe"] = 0
    else:
        kind = rng.random()
        if kind < 0.6:       # RAM: A9 = 0, A7 = 1, mirrors through A8 and the unused A10..A12 bits
            low = rng.choice(HOT) if rng.random() < 0.9 else 0x80 | rng.randrange(0x80)
            a = low | rng.choice([0, 0x100, 0x400, 0x500])
        elif kind < 0.8:     # I/O and timer: A9 = 1
            a = 0x280 | rng.randrange(0x20)
        else:                # not the RIOT (TIA or cartridge): sel low
            a = rng.randrange(0x80)
        acc = {"sel": int(bool(a & 0x80)), "addr": a, "write": int(rng.random() < 0.35),
               "wdata": rng.randrange(256), "strobe": int(rng.random() < 0.9)}
    acc["host_we"] = int(rng.random() < 0.05)
    acc["host_addr"] = rng.choice(HOT) & 0x7F if rng.random() < 0.7 else rng.randrange(0x80)
    acc["host_wdata"] = rng.randrange(256)
    return acc


class _Both(Elaboratable):
    def __init__(self):
        self.comb, self.nxt = Riot(ram_read="comb"), Riot(ram_read="next")

    def elaborate(self, platform):
        m = Module()
        m.submodules.comb, m.submodules.nxt = self.comb, self.nxt
        return m


def _run(seed: int, clocks: int) -> tuple[int, int, list]:
    rng = random.Random(seed)
    accesses = []
    for _ in range(clocks + 1):
        accesses.append(_access(rng, accesses[-1] if accesses else None))
    both = _Both()
    comb, nxt = both.comb, both.nxt
    sim = Simulator(both)
    sim.add_clock(1e-6)
    out = {"reads": 0, "after_write": 0, "bad": []}

    def drive(ctx, acc, nb):
        for riot in (comb, nxt):
            for name in ("sel", "addr", "write", "wdata", "strobe"):
                ctx.set(getattr(riot.bus, name), acc[name])
            ctx.set(riot.bus.cycle_end, 1)
            ctx.set(riot.host.we, acc["host_we"])
            ctx.set(riot.host.addr, acc["host_addr"])
            ctx.set(riot.host.wdata, acc["host_wdata"])
        for name in ("sel", "addr", "write"):
            ctx.set(getattr(nxt.next_bus, name), nb[name])
        ctx.set(nxt.next_bus.a13, 0)

    async def bench(ctx):
        idle = {"sel": 0, "addr": 0, "write": 0, "wdata": 0, "strobe": 0, "host_we": 0, "host_addr": 0,
                "host_wdata": 0}
        drive(ctx, idle, accesses[0])
        await ctx.tick()
        for k in range(clocks):
            drive(ctx, accesses[k], accesses[k + 1])
            acc = accesses[k]
            if acc["sel"] and not acc["write"] and not acc["addr"] & 0x200:
                got, want = ctx.get(nxt.bus.rdata), ctx.get(comb.bus.rdata)
                out["reads"] += 1
                prev = accesses[k - 1] if k else idle
                if (prev["write"] and prev["strobe"] and prev["sel"] and not prev["addr"] & 0x200
                        and prev["addr"] & 0x7F == acc["addr"] & 0x7F):
                    out["after_write"] += 1
                if got != want:
                    out["bad"].append((k, hex(acc["addr"]), got, want))
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    return out["reads"], out["after_write"], out["bad"]


@pytest.mark.parametrize("seed", [1, 2])
def test_next_access_ram_read_equals_the_combinational_read(seed):
    reads, after_write, bad = _run(seed, clocks=3000)
    assert bad == []
    assert reads > 700 and after_write > 40     # the transparent case exercised


def test_riot_rejects_an_unknown_ram_read():
    with pytest.raises(ValueError, match="ram_read must be 'comb' or 'next', not 'sync'"):
        Riot(ram_read="sync")
