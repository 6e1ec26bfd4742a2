"""The cartridge's block-RAM ROM reads against ``Cartridge(rom_read="comb")`` (the ROM read
combinationally, the reference form that matched ALE on all 104 games), fed the same random
access at every clock:

- ``rom_read="next"`` (the three-colour-clock console's: the ROM addressed a clock ahead from the
  next access on ``next_bus``): the read data equal at every clock, for every mapper;
- ``rom_read="late"`` (the one-colour-clock console's: an access every third clock, held on the
  bus for the clock after it, its byte read from the block RAM in that clock): equal one clock
  later;
- ``rom_read="ahead"`` (no console's: the ROM addressed from the bank registers as they are, for
  accesses that complete every third clock, on ``next_bus`` from the clock before): equal at
  every clock.

The accesses are biased to what the next-access rules must get right and programs rarely do:
bank and E0 hotspots (read and written, dummy or not), DPC fetcher reads of the same fetcher in
consecutive clocks, DPC counter writes right before a display read, SuperChip RAM writes and
reads, FE's A13.

Amaranth's simulator runs both cartridges; the ROM image is set in their memories directly (the
host port's load is :mod:`nc2600.hwtools.console_harness`'s, tested with the console).
"""
from __future__ import annotations

import random

import pytest
from amaranth import Elaboratable, Module
from amaranth.sim import Simulator

from nc2600.hw.cartridge import Cartridge, Mapper

ROM_BYTES = 16384


def _access(rng: random.Random) -> dict:
    """One bus access: sel, A12..A0, write, wdata, strobe, A13."""
    kind = rng.random()
    if kind < 0.25:      # hotspots: F8/F6 $1FF6-$1FF9, E0 $1FE0-$1FF7
        a = rng.choice([0x1FF6, 0x1FF7, 0x1FF8, 0x1FF9]) if rng.random() < 0.5 else rng.randrange(0x1FE0, 0x1FF8)
    elif kind < 0.45:    # DPC registers: reads $1000-$103F (repeats of the same fetcher), writes $1040-$107F
        a = 0x1000 + rng.choice([0x08, 0x09, 0x10, 0x11, 0x0F, 0x17, 0x00, 0x38]) if rng.random() < 0.7 else \
            0x1000 + rng.randrange(0x80)
    elif kind < 0.55:    # SuperChip RAM write and read ports
        a = 0x1000 + rng.randrange(0x100)
    elif kind < 0.65:    # not the cartridge
        a = rng.randrange(0x1000)
    else:                # anywhere in the cartridge
        a = 0x1000 + rng.randrange(0x1000)
    return {"sel": a >> 12 & 1, "addr": a & 0x1FFF, "write": int(rng.random() < 0.2),
            "wdata": rng.randrange(256), "strobe": int(rng.random() < 0.9), "a13": int(rng.random() < 0.5)}


class _Both(Elaboratable):
    """The two cartridges side by side, their ROM memories kept (``roms``) for the testbench."""

    def __init__(self, mode: str = "next"):
        self.comb, self.nxt = Cartridge(rom_read="comb"), Cartridge(rom_read=mode)
        self.roms = []

    def elaborate(self, platform):
        m = Module()
        for name, cart in (("comb", self.comb), ("nxt", self.nxt)):
            body = cart.elaborate(platform)
            cart._MustUse__silence = True   # elaborated here, as its module (the memories kept)
            self.roms.append(body.submodules.rom)
            m.submodules[name] = body
        return m


def _run(mapper: Mapper, seed: int, clocks: int, mode: str = "next") -> tuple[int, list]:
    rng = random.Random(seed)
    rom = [rng.randrange(256) for _ in range(ROM_BYTES)]
    accesses = [_access(rng) for _ in range(clocks + 1)]
    both = _Both(mode)
    comb, nxt = both.comb, both.nxt
    sim = Simulator(both)
    sim.add_clock(1e-6)
    out = {"reads": 0, "bad": []}

    def drive(ctx, acc, nb):
        for cart in (comb, nxt):
            ctx.set(cart.mapper, mapper)
            for name in ("sel", "addr", "write", "wdata", "strobe"):
                ctx.set(getattr(cart.bus, name), acc[name])
            ctx.set(cart.bus.cycle_end, 1)
            ctx.set(cart.a13, acc["a13"])
        for name in ("sel", "addr", "write", "a13"):
            ctx.set(getattr(nxt.next_bus, name), nb[name])

    async def bench(ctx):
        idle = {"sel": 0, "addr": 0, "write": 0, "wdata": 0, "strobe": 0, "a13": 0}
        for mem in both.roms:
            for addr, byte in enumerate(rom):
                ctx.set(mem.data[addr], byte)
        if mode in ("ahead", "late"):
            # the reset bank is set at the first clock (init_done); "ahead" addresses the ROM from
            # the registers, so the first access is given after it (the one-colour-clock console's
            # CPU reads its reset vector from the third clock after reset)
            drive(ctx, idle, idle)
            await ctx.tick()
        drive(ctx, idle, accesses[0])   # a clock for the reset bank (init_done) and the first address
        await ctx.tick()
        for k in range(clocks):
            acc = accesses[k]
            if mode in ("ahead", "late"):
                # the access's last clock (its strobe), then two more on the bus without one, the
                # next access on next_bus in the second of them
                drive(ctx, acc, acc)
            else:
                drive(ctx, acc, accesses[k + 1])
            read = acc["sel"] and not acc["write"]
            if read:
                want = ctx.get(comb.bus.rdata)
                out["reads"] += 1
            if read and mode != "late":
                got = ctx.get(nxt.bus.rdata)
                if got != want:
                    out["bad"].append((k, hex(acc["addr"]), got, want))
            await ctx.tick()
            if mode in ("ahead", "late"):
                held = {**acc, "strobe": 0}
                drive(ctx, held, acc)
                if read and mode == "late":
                    # "late": the access's byte in the clock after its strobe
                    got = ctx.get(nxt.bus.rdata)
                    if got != want:
                        out["bad"].append((k, hex(acc["addr"]), got, want))
                await ctx.tick()
                drive(ctx, held, accesses[k + 1])
                await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    return out["reads"], out["bad"]


@pytest.mark.parametrize("mapper", list(Mapper), ids=[m.name for m in Mapper])
def test_next_access_rom_read_equals_the_combinational_read(mapper):
    reads, bad = _run(mapper, seed=mapper.value, clocks=1500)
    assert bad == []
    assert reads > 700


@pytest.mark.parametrize("mapper", list(Mapper), ids=[m.name for m in Mapper])
def test_ahead_rom_read_every_third_clock_equals_the_combinational_read(mapper):
    reads, bad = _run(mapper, seed=100 + mapper.value, clocks=1000, mode="ahead")
    assert bad == []
    assert reads > 450


@pytest.mark.parametrize("mapper", list(Mapper), ids=[m.name for m in Mapper])
def test_late_rom_read_in_the_clock_after_the_access_equals_the_combinational_read(mapper):
    reads, bad = _run(mapper, seed=200 + mapper.value, clocks=1000, mode="late")
    assert bad == []
    assert reads > 450


def test_cart_rejects_an_unknown_rom_read():
    with pytest.raises(ValueError, match="rom_read must be 'next', 'ahead', 'late' or 'comb', not 'async'"):
        Cartridge(rom_read="async")
