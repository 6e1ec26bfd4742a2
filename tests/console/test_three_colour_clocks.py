"""The console that advances the TIA three colour clocks per clock (one CPU cycle per clock,
``Console(colour_clocks_per_cycle=3)``) against ALE 0.12, frame by frame from power-on.

The oracle is ale-py itself (:func:`host.lockstep.lockstep_game`): RIOT RAM,
SuperChip RAM and the screen after every frame. The sample covers every mapper type (2K, 4K,
F8, F6, E0, F8SC, F6SC, FE, DPC), paddles, PAL, the Cosmic Ark bug, frames cut by the
instruction limit and a game that runs ALE's game-over reset. The same games are in
``test_lockstep.py`` for the one-colour-clock console.
"""
import numpy as np
import pytest

from host.lockstep import lockstep_game

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


@pytest.mark.parametrize("game,frames,why", CASES, ids=[c[0] for c in CASES])
def test_three_colour_clock_console_lockstep_exact(game, frames, why):
    r = lockstep_game(game, frames, seed=0, actions="random", stop_at_mismatch=True,
                      colour_clocks_per_cycle=3)
    assert r["frames_compared"] == frames, r
    assert r["first_ram_mismatch_frame"] is None, (why, r)
    assert r["first_screen_mismatch_frame"] is None, (why, r)


def test_three_colour_clock_console_same_colour_clocks_as_one():
    # the same frames take the same colour clocks in both configurations (the three-clock
    # harness counts 3 per clock): ALE's frame boundaries fall at the same CPU cycles
    from host.rtl_console import RtlConsole
    runs = []
    for n in (1, 3):
        rtl = RtlConsole("freeway", colour_clocks_per_cycle=n)
        rtl.power_on()
        acts = np.random.default_rng(5).choice([0, 1, 2], 40)
        runs.append([(rtl.act(int(a)).colour_clocks, rtl.act(int(a)).cycles) for a in acts])
    assert runs[0] == runs[1]
    assert all(c % 3 == 0 for c, _ in runs[1])


def test_bad_configuration_values():
    from hw.console import Console
    from hw.tia import Tia
    from hwtools.console_harness import ConsoleSim
    for bad in (0, 2, 4):
        with pytest.raises(ValueError, match="must be 1 or 3"):
            Console(colour_clocks_per_cycle=bad)
        with pytest.raises(ValueError, match="must be 1 or 3"):
            Tia(colour_clocks=bad)
        with pytest.raises(ValueError, match="must be 1 or 3"):
            ConsoleSim(colour_clocks_per_cycle=bad)


@pytest.mark.parametrize("cmd", [["lockstep", "--game", "pong", "--frames", "3"],
                                 ["bench", "rtl", "--frames", "3"],
                                 ["rtl-play", "--game", "pong", "--actions", "a.npy", "--out", "o"]])
@pytest.mark.parametrize("value", ["2", "0", "x"])
def test_colour_clocks_option_bad_value_is_one_line_exit_2(capsys, cmd, value):
    from host.cli import main
    with pytest.raises(SystemExit) as e:
        main([*cmd, "--colour-clocks-per-cycle", value])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--colour-clocks-per-cycle" in err[0], err
