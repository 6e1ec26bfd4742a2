"""The RIOT's timer with one CPU cycle per clock (``Riot(read_clocks=1)``, the three-colour-clock
console's) against Stella 2.4.2's ``M6532::peek``/``poke`` formulas written here from the
source's rules (cycle stamps, 32-bit arithmetic, the read-after-interrupt restart): INTIM and
TIMINT at every read of random programs of timer writes (all four intervals), reads and idle
stretches across expiry.

Amaranth's simulator runs the RIOT alone: clock 0 loads ``timer_init`` (no cycle end), every
later clock ends one CPU cycle; Stella's ``cycles()`` at clock k is k.
"""
from __future__ import annotations

import random

import pytest
from amaranth.sim import Simulator

from nc2600.hw.riot import Riot

M32 = 0xFFFFFFFF
INTIM, TIMINT, TIM1T = 0x284, 0x285, 0x294     # A9 = 1 (I/O); TIM1T + 0..3: 1, 8, 64, 1024 cycles


def _i32(v: int) -> int:
    v &= M32
    return v - (1 << 32) if v & 0x80000000 else v


class StellaTimer:
    """Stella 2.4.2's M6532 timer: cycle stamps, ``delta = cycles() - 1 - set``."""

    def __init__(self, init: int):
        self.t, self.shift, self.set, self.rai, self.irq_reset = init, 6, 0, False, 0

    def poke(self, cycles: int, value: int, sel: int) -> None:
        self.t, self.shift, self.set, self.rai = value, (0, 3, 6, 10)[sel], cycles, False

    def _delta(self, cycles: int) -> int:
        return (cycles - 1 - self.set) & M32

    def intim(self, cycles: int) -> int:
        delta = self._delta(cycles)
        timer = _i32(self.t - (delta >> self.shift) - 1)
        if timer >= 0:
            return timer & 0xFF
        timer = _i32((self.t << self.shift) - delta - 1)
        if timer <= -2 and not self.rai:
            self.rai, self.irq_reset = True, cycles
        if self.rai:
            offset = _i32(self.irq_reset - (self.set + (self.t << self.shift)))
            timer = _i32(self.t - (delta >> self.shift) - offset)
        return timer & 0xFF

    def timint(self, cycles: int) -> int:
        timer = _i32(self.t - (self._delta(cycles) >> self.shift) - 1)
        return 0 if timer >= 0 or self.rai else 0x80


def _program(rng: random.Random, clocks: int) -> list[tuple]:
    """(clock, kind, value, sel) accesses: kind 'w' (timer write), 'i' (INTIM), 'f' (TIMINT)."""
    out, k = [], 1
    while k < clocks:
        r = rng.random()
        if r < 0.08:
            sel = rng.choice([0, 1, 1, 2, 3]) if rng.random() < 0.9 else 3
            value = rng.choice([0, 1, 2, 3, rng.randrange(256)]) if sel < 3 else rng.choice([0, 1])
            out.append((k, "w", value, sel))
        elif r < 0.7:
            out.append((k, rng.choice("iiif"), 0, 0))
        k += rng.choice([1, 1, 1, 2, 3, 5, 17, 60]) if rng.random() < 0.97 else rng.randrange(100, 700)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_counted_timer_matches_stella(seed):
    rng = random.Random(seed)
    init = rng.randrange(25, 100)          # ALE's draw: 25 + next() % 75
    prog = _program(rng, 6000)
    ref = StellaTimer(init)
    expected = []
    for k, kind, value, sel in prog:
        if kind == "w":
            ref.poke(k, value, sel)
        else:
            expected.append(ref.intim(k) if kind == "i" else ref.timint(k))
    assert len(set(expected)) > 20 and 0x80 in expected and 0 in expected   # expiry and restarts reached

    dut = Riot(read_clocks=1)
    got = []

    async def bench(ctx):
        ctx.set(dut.timer_init, init)
        ctx.set(dut.bus.sel, 1)
        await ctx.tick()                     # clock 0: the reset load, no cycle end
        ctx.set(dut.bus.cycle_end, 1)
        acc = {k: (kind, value, sel) for k, kind, value, sel in prog}
        for k in range(1, prog[-1][0] + 1):
            kind, value, sel = acc.get(k, (None, 0, 0))
            ctx.set(dut.bus.strobe, kind is not None)
            ctx.set(dut.bus.write, kind == "w")
            ctx.set(dut.bus.wdata, value)
            ctx.set(dut.bus.addr, TIM1T + sel if kind == "w" else TIMINT if kind == "f" else INTIM)
            if kind in ("i", "f"):
                got.append(ctx.get(dut.bus.rdata) & (0xFF if kind == "i" else 0x80))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got == expected
