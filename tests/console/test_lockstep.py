"""The console RTL against ALE 0.12, frame by frame from power-on (RAM, SuperChip RAM, screen).

One game per mapper type (2K, 4K, F8, F6, E0, F8SC, F6SC, FE, DPC), paddles, a PAL game and
games whose RAM depends on ALE's system seed, each for a few hundred random-action frames;
the oracle is ale-py itself (:func:`nc2600.host.verify.lockstep.lockstep_game`). Each game is
also a regression test of the fault classes found on the way (listed per game).
"""
import pytest

from nc2600.host.verify.lockstep import lockstep_game

CASES = [
    # game, frames, fault classes it guards
    ("boxing", 200, "SWCHB default 0x3F (difficulty B, colour); seed-dependent RAM"),
    ("freeway", 200, "mt19937 RAM/timer draws in ALE's order"),
    ("seaquest", 200, "4K; seed-dependent RAM"),
    ("asterix", 150, "F8 hotspots, starting action"),
    ("montezuma_revenge", 150, "E0 slices"),
    ("elevator_action", 150, "F8SC RAM and its re-randomisation at each reset"),
    ("klax", 150, "F6SC; PAL (342-line limit, colour loss, 250 rows)"),
    ("robotank", 150, "FE bank from A13 of the full address"),
    ("pitfall2", 150, "DPC fetchers and RNG; RESMx/RESBL HMOVE cases use the write-time cycle count"),
    ("pong", 150, "paddles: resistance model, SwapPaddles, right-port paddles"),
    ("amidar", 150, "difficulty A property until ALE's first action"),
    ("berzerk", 120, "setMode: NOOP acts, then SELECT presses until the default mode shows in RAM"),
    ("surround", 120, "swapped ports (player A on the right joystick, INPT5); setMode"),
    ("journey_escape", 120, "Stella's Cosmic Ark missile bug; Height 230"),
    ("tic_tac_toe_3d", 40, "frames cut by the 25,000-instruction limit: Stella draws lazily, at TIA accesses"),
    ("backgammon", 60, "per-game paddle range: ALE's paddle_max from the ROM settings sets the reset resistance"),
    ("battle_zone", 840, "Stella's RESM0 case 20 CPU cycles after HMOVE at hpos 69 (title screen, frame 829)"),
    ("road_runner", 300, "F6; ALE game over inside the run: both sides run reset_game"),
]


@pytest.mark.parametrize("game,frames,why", CASES, ids=[c[0] for c in CASES])
def test_lockstep_exact(game, frames, why):
    r = lockstep_game(game, frames, seed=0, actions="random", stop_at_mismatch=True)
    assert r["frames_compared"] == frames, r
    assert r["first_ram_mismatch_frame"] is None, (why, r)
    assert r["first_screen_mismatch_frame"] is None, (why, r)


#: The milestone set, 5,000 random-action frames each (about 1 minute per game): every
#: mapper type (2K, 4K, F8, F6, E0, F8SC, F6SC, FE, DPC), seed-dependent RAM (boxing, freeway,
#: seaquest), PAL (adventure, air_raid, klax, mr_do), paddles (pong, breakout, backgammon).
MILESTONE_5000 = [
    "adventure", "air_raid", "alien", "amidar", "boxing", "freeway", "seaquest", "pong", "breakout",
    "asterix", "road_runner", "montezuma_revenge", "elevator_action", "klax", "robotank", "pitfall2",
    "battle_zone", "backgammon", "mr_do", "space_invaders", "ms_pacman", "pitfall", "enduro", "riverraid",
    "tennis", "skiing", "fishing_derby", "kangaroo", "frostbite", "qbert", "beam_rider", "solaris",
    "tutankham", "darkchambers",
]


@pytest.mark.slow
@pytest.mark.parametrize("game", MILESTONE_5000)
def test_lockstep_exact_5000(game):
    r = lockstep_game(game, 5000, seed=0, actions="random")
    assert r["frames_compared"] == 5000 and r["match"], r


@pytest.mark.slow
@pytest.mark.parametrize("game", ["space_invaders", "hero", "darkchambers", "mr_do", "breakout", "adventure"])
def test_lockstep_exact_long(game):
    r = lockstep_game(game, 2000, seed=1, actions="random")
    assert r["match"], r



def test_lockstep_cli_games_table_and_bad_input(capsys):
    # --games: one table row per game, in the order given; exit 0 only when all match
    from nc2600.host.cli import main
    assert main(["lockstep", "--games", "boxing,seaquest", "--frames", "20"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in out[1:3]] == ["boxing", "seaquest"]
    assert out[1].split()[1:4] == ["2K", "20", "exact"] and out[2].split()[1:4] == ["4K", "20", "exact"]
    assert out[-1] == ("2/2 games exact for their compared frames "
                       "(console RTL: three colour clocks per clock (rtl/console_cc3.v))")
    # an unknown name anywhere in the list: one-line error, exit 2, before any game runs
    assert main(["lockstep", "--games", "boxing,no_such_game", "--frames", "20"]) == 2
    captured = capsys.readouterr()
    assert "game" not in captured.out and "unknown game 'no_such_game'" in captured.err



def test_lockstep_records_name_the_console_compared(capsys):
    """Every record and the summary say which console RTL was compared (one or three colour
    clocks per clock); the single-game form prints none/yes, not Python's None/True."""
    import json

    from nc2600.host.cli import main
    assert main(["lockstep", "--games", "pong", "--frames", "3", "--colour-clocks", "3", "--json"]) == 0
    rec, summary = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert rec["game"] == "pong" and rec["match"] is True and rec["colour_clocks"] == 3
    assert summary["summary"]["colour_clocks"] == 3
    assert main(["lockstep", "--game", "pong", "--frames", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "match: yes" in lines and "first_ram_mismatch_frame: none" in lines
    assert "colour_clocks: 3" in lines          # the default, the default instance's console

@pytest.mark.parametrize("argv,needle", [
    (["--games", "pong", "--frames", "5", "--actions", "{neg}"], "1-D integer array"),
    (["--game", "pong", "--frames", "5", "--actions", "{flt}"], "1-D integer array"),
    (["--game", "pong", "--frames", "10", "--actions", "{short}"], "holds 5 actions, fewer than --frames 10"),
    (["--game", "pong", "--frames", "99999999999"], "--frames: at most"),
    (["--games", "pong,,boxing", "--frames", "3"], "without empty entries"),
    (["--game", "pong", "--frames", "3", "--jobs", "2"], "--jobs needs --games or --all"),
    (["--games", "pong,pong", "--frames", "3"], "listed twice"),
    (["--game", "pong", "--frames", "3", "--actions", "{text}"], "is not a .npy file"),
    (["--game", "pong", "--frames", "3", "--actions", "noop", "--seed", "4"], "--seed seeds --actions random only"),
    (["--game", "pong", "--frames", "5", "--actions", "{short}", "--seed", "0"], "--seed seeds --actions random only"),
])
def test_lockstep_bad_input_is_one_line_exit_2(tmp_path, capsys, argv, needle):
    import numpy as np

    from nc2600.host.cli import main
    files = {"neg": np.array([-1, 2]), "flt": np.full(10, 0.5), "short": np.zeros(5, np.int64)}
    for k, v in files.items():
        np.save(tmp_path / f"{k}.npy", v)
    (tmp_path / "text.npy").write_text("0 1 2 3\n")       # a text file named .npy
    argv = [a.format(**{k: str(tmp_path / f"{k}.npy") for k in [*files, "text"]}) for a in argv]
    assert main(["lockstep", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err


def test_lockstep_selectors_are_exclusive(capsys):
    from nc2600.host.cli import main
    with pytest.raises(SystemExit) as e:
        main(["lockstep", "--game", "pong", "--all"])
    assert e.value.code == 2


def test_rtl_play_matches_ale_and_replaces_outputs_as_a_set(tmp_path):
    # rtl-play's ram.npy / screens.npy against ale-py (frame skip 1, no sticky actions) on the
    # same actions; a second run into the same folder replaces all three files
    import ale_py
    import numpy as np

    from nc2600.host.episodes.ale_oracle import open_ale
    from nc2600.host.cli import main
    from nc2600.host.games import resolve_rom
    acts = np.random.default_rng(3).choice([0, 1, 3, 4, 11, 12], 30).astype(np.int64)
    np.save(tmp_path / "a.npy", acts)
    out = tmp_path / "out"
    assert main(["rtl-play", "--game", "pong", "--actions", str(tmp_path / "a.npy"), "--out", str(out)]) == 0
    ale = open_ale(resolve_rom(game="pong")[1])
    ram, screens = np.load(out / "ram.npy"), np.load(out / "screens.npy")
    assert ram.shape == (30, 128) and screens.shape == (30, 210, 160)
    for f, a in enumerate(acts):
        ale.act(ale_py.Action(int(a)))
        assert np.array_equal(ram[f], ale.getRAM()), f
        assert np.array_equal(screens[f], ale.getScreen()), f
    np.save(tmp_path / "b.npy", acts[:7])
    assert main(["rtl-play", "--game", "pong", "--actions", str(tmp_path / "b.npy"), "--out", str(out)]) == 0
    lengths = [len(np.load(out / name)) for name in ("ram.npy", "screens.npy", "colour_clocks.npy")]
    assert lengths == [7, 7, 7]
    assert sorted(p.name for p in out.iterdir()) == ["colour_clocks.npy", "ram.npy", "screens.npy"]
    # an output path that is a file: one-line error, exit 2
    assert main(["rtl-play", "--game", "pong", "--actions", str(tmp_path / "b.npy"), "--out",
                 str(tmp_path / "a.npy")]) == 2
