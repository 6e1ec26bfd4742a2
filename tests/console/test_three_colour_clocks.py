"""The console that advances the TIA three colour clocks per clock (one CPU cycle per clock,
``Console(colour_clocks=3)``) against ALE 0.12, frame by frame from power-on.

The oracle is ale-py itself (:func:`nc2600.host.verify.lockstep.lockstep_game`): RIOT RAM,
SuperChip RAM and the screen after every frame. The sample covers every mapper type (2K, 4K,
F8, F6, E0, F8SC, F6SC, FE, DPC), paddles, PAL, the Cosmic Ark bug, frames cut by the
instruction limit and a game that runs ALE's game-over reset. The same games are in
``test_lockstep.py`` for the one-colour-clock console.
"""
import numpy as np
import pytest

from nc2600.host.verify.lockstep import lockstep_game

CASES = [
    # game, frames, what it covers in the three-colour-clock configuration
    ("boxing", 300, "2K; seed-dependent RAM"),
    ("seaquest", 300, "4K"),
    ("asterix", 200, "F8 hotspots"),
    ("montezuma_revenge", 200, "E0 slices (combinational ROM read through the slice)"),
    ("elevator_action", 200, "F8SC RAM"),
    ("klax", 200, "F6SC; PAL colour loss (odd-frame flag as of clock 0 of the start cycle)"),
    ("robotank", 200, "FE bank from A13"),
    ("pitfall2", 200, "DPC fetchers; RESMx/RESBL HMOVE cases"),
    ("pong", 200, "paddles: dump-capacitor cycle counts"),
    ("journey_escape", 150, "Cosmic Ark missile bug at the end of drawn lines (colour clock 2)"),
    ("tic_tac_toe_3d", 40, "frames cut by the instruction limit: lazy drawing at TIA accesses"),
    ("road_runner", 300, "F6; ALE game over inside the run"),
]


def _rotation() -> list[str]:
    """This commit's 3 of the 92 games outside :data:`CASES` (tests/rotation.py: all of them in 31
    commits' groups)."""
    from nc2600.hls_models.game_rules import load_rules
    from tests.rotation import rotating_subset
    return rotating_subset(sorted(set(load_rules()) - {c[0] for c in CASES}), 3, salt="three_colour_clocks")


ROTATION = _rotation()


@pytest.mark.parametrize("game", ROTATION)
def test_three_colour_clock_console_lockstep_exact_rotating(game):
    """500 frames of this commit's rotating games (``NC2600_ROTATION=N`` picks group N)."""
    assert 2 <= len(ROTATION) <= 3                  # 92 games in 31 groups: 30 of 3, one of 2
    r = lockstep_game(game, 500, seed=0, actions="random", stop_at_mismatch=True, colour_clocks=3)
    assert r["frames_compared"] == 500, r
    assert r["first_ram_mismatch_frame"] is None and r["first_screen_mismatch_frame"] is None, r


@pytest.mark.parametrize("game,frames,why", CASES, ids=[c[0] for c in CASES])
def test_three_colour_clock_console_lockstep_exact(game, frames, why):
    r = lockstep_game(game, frames, seed=0, actions="random", stop_at_mismatch=True,
                      colour_clocks=3)
    assert r["frames_compared"] == frames, r
    assert r["first_ram_mismatch_frame"] is None, (why, r)
    assert r["first_screen_mismatch_frame"] is None, (why, r)


def test_three_colour_clock_console_same_colour_clocks_as_one():
    # the same frames take the same colour clocks in both configurations (the three-clock
    # harness counts 3 per clock): ALE's frame boundaries fall at the same CPU cycles
    from nc2600.host.drivers.rtl_console import RtlConsole
    runs = []
    for n in (1, 3):
        rtl = RtlConsole("freeway", colour_clocks=n)
        rtl.power_on()
        acts = np.random.default_rng(5).choice([0, 1, 2], 40)
        runs.append([(rtl.act(int(a)).colour_clocks, rtl.act(int(a)).cycles) for a in acts])
    assert runs[0] == runs[1]
    assert all(c % 3 == 0 for c, _ in runs[1])


def test_bad_configuration_values():
    from nc2600.hw.console import Console
    from nc2600.hw.tia import Tia
    from nc2600.hwtools.console_harness import ConsoleSim
    for bad in (0, 2, 4):
        with pytest.raises(ValueError, match="must be 1 or 3"):
            Console(colour_clocks=bad)
        with pytest.raises(ValueError, match="must be 1 or 3"):
            Tia(colour_clocks=bad)
        with pytest.raises(ValueError, match="must be 1 or 3"):
            ConsoleSim(colour_clocks=bad)


@pytest.mark.parametrize("cmd", [["lockstep", "--game", "pong", "--frames", "3"],
                                 ["bench", "rtl", "--frames", "3"],
                                 ["rtl-play", "--game", "pong", "--actions", "a.npy", "--out", "o"]])
@pytest.mark.parametrize("value", ["2", "0", "x"])
def test_colour_clocks_option_bad_value_is_one_line_exit_2(capsys, cmd, value):
    from nc2600.host.cli import main
    with pytest.raises(SystemExit) as e:
        main([*cmd, "--colour-clocks", value])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--colour-clocks" in err[0], err


def _tia_trace(colour_clocks: int, stim, start_line: int = 30):
    """Run :class:`nc2600.hw.tia.Tia` (1 or 3 colour clocks per clock) in Amaranth's simulator on
    ``stim`` (one entry per CPU cycle: ``("w", addr, data)`` a write, ``("r", addr)`` a read,
    completing at the cycle's third colour clock) from ``hpos = 0`` of scanline ``start_line``;
    returns per colour clock the pixel, and per CPU cycle the read data (with one colour clock
    per clock it is formed in the clock after the access, :meth:`nc2600.hw.tia.Tia._read`), the
    frame-end strobe, WSYNC and the collision latches after the cycle."""
    from amaranth.sim import Simulator

    from nc2600.hw.tia import Tia
    tia = Tia(colour_clocks=colour_clocks)
    sim = Simulator(tia)
    sim.add_clock(1e-6)
    pixels, cycles = [], []

    async def bench(ctx):
        ctx.set(tia.hmove_blanks, 1)
        hpos, line = 0, start_line
        ctx.set(tia.bus.sel, 1)
        for cyc, op in enumerate(stim):
            ctx.set(tia.bus.write, op[0] == "w")
            ctx.set(tia.bus.addr, op[1])
            ctx.set(tia.bus.wdata, op[2] if op[0] == "w" else 0)
            ctx.set(tia.last_was_read, 1)
            for k in range(3):
                clk = tia.clocks[k if colour_clocks == 3 else 0]
                # the access completes at the cycle's last colour clock (with three colour clocks
                # per clock the TIA applies the bus at its clocks[2])
                ctx.set(tia.bus.strobe, k == 2 or colour_clocks == 3)
                if colour_clocks == 1:   # the write that completes at the next clock (registered there)
                    ctx.set(tia.write_ahead, k == 1 and op[0] == "w")
                    ctx.set(tia.addr_ahead, op[1])
                ctx.set(tia.bus.cycle_end, k == 2 or colour_clocks == 3)
                ctx.set(clk.hpos, hpos)
                ctx.set(clk.advance, 1)
                ctx.set(clk.drawn, hpos >= 68)
                ctx.set(clk.line_end_drawn, hpos == 227)
                ctx.set(clk.line, line)
                ctx.set(clk.cyc, cyc)
                if colour_clocks == 1:
                    pixels.append(ctx.get(clk.pixel))
                    if k == 2:
                        frame_end = ctx.get(clk.frame_end)
                    await ctx.tick()
                    if k == 2:   # one colour clock per clock: read data formed in the clock after the access
                        cycles.append((ctx.get(tia.bus.rdata), frame_end, ctx.get(tia.wsync), ctx.get(tia.collision)))
                hpos += 1
                if hpos == 228:
                    hpos, line = 0, line + 1
            if colour_clocks == 3:
                pixels.extend(ctx.get(tia.clocks[k].pixel) for k in range(3))
                cycles.append((ctx.get(tia.bus.rdata), ctx.get(tia.clocks[2].frame_end)))
                # the next cycle's write, registered at this edge (as the console's CPU probe gives it)
                nxt = stim[cyc + 1] if cyc + 1 < len(stim) else ("r", 0)
                ctx.set(tia.write_ahead, nxt[0] == "w")
                ctx.set(tia.addr_ahead, nxt[1])
                await ctx.tick()
                cycles[-1] += (ctx.get(tia.wsync), ctx.get(tia.collision))

    sim.add_testbench(bench)
    sim.run()
    return pixels, cycles


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tia_three_colour_clock_step_equals_three_single_steps(seed):
    # The chained step (Tia(colour_clocks=3)) against the one-colour-clock TIA, which lockstep
    # checks against ALE, on random register traffic: every write register (delays, RESPx in a
    # drawn copy, HMOVE, CXCLR, VSYNC ends) and every read register, about 28 scanlines.
    import random

    from nc2600.hw.tia import TiaRead, TiaWrite
    rng = random.Random(seed)
    writes = [int(r.value) for r in TiaWrite]
    reads = [int(r.value) for r in TiaRead]
    stim = [("w", rng.choice(writes), rng.randrange(256)) if rng.random() < 0.45 else ("r", rng.choice(reads))
            for _ in range(76 * 28)]
    stim[0] = ("r", reads[0])   # (with three colour clocks per clock a write is registered a cycle ahead)
    one = _tia_trace(1, stim)
    three = _tia_trace(3, stim)
    assert sum(p != 0 for p in one[0]) > 1000           # the traffic draws objects
    assert any(c[3] for c in one[1]) and any(c[2] for c in one[1])   # collisions latched, WSYNC set
    assert one[0] == three[0]
    assert one[1] == three[1]
