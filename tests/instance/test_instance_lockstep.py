"""``nc2600 instance-lockstep`` (host/verify/instance_lockstep.py): whole episodes on the Verilated default
instance against ALE int8 frame by frame, its results file and its bad input; and every game's ROM
within the sizes the instance takes.

Oracles: ale-py 0.12 (an episode of the same seeded network played here on a plain
:class:`nc2600.host.episodes.env.AleEnv` with :class:`nc2600.hls_models.policy_int8.QuantizedPolicy`), Stella
2.4.2's ``CartridgeDPC`` (8,192 program bytes and the 2,048-byte display image, file offsets
0..10,239) and hand-worked frame records. The runs use the default instance's build (the one
tests/instance/test_instance.py builds).
"""
import json

import numpy as np
import pytest

from nc2600.host.cli import main
from nc2600.host.drivers.instance import FrameRecord
from nc2600.host.verify.instance_lockstep import first_difference, sweep_policy

FRAMES = 40      # the least the command takes is 35 (no-op start and FIRE); a few decisions past it


def _ale_int8_episode(rom, qp, seed, cap):
    """The episode on ALE: each decision's action, the return, the frames (sticky 0, frame skip 4)."""
    from nc2600.host.episodes.env import AleEnv
    env = AleEnv(rom, episode_frames=cap)
    stack = np.zeros((4, 84, 84), np.uint8)
    frames = env.reset(seed, stack)
    actions, ret = [], 0.0
    while not env.over:
        a = int(qp.act(stack[None])[0])
        actions.append(a)
        r, f, _ = env.step(a, stack)
        ret, frames = ret + r, frames + f
    return actions, ret, frames


def test_every_game_rom_fits_the_instance():
    """The bytes every loadable game's cartridge addresses are a size the instance's ROM_SIZE
    takes (2,048..16,384 in steps of 2,048): Pitfall II's 10,495-byte dump loads as its first
    10,240 bytes (Stella's DPC: 8,192 program + 2,048 display bytes); every other game's whole
    file."""
    from nc2600.hls_models.cartridge import cartridge_image, detect_mapper
    from nc2600.hw.instance import ROM_SIZES
    from nc2600.host.games import loadable_games, resolve_rom
    games = loadable_games()
    assert len(games) == 104
    for g in games:
        data = resolve_rom(game=g)[1].read_bytes()
        image = cartridge_image(data)
        assert len(image) in ROM_SIZES, g
        if detect_mapper(data) == "DPC":
            assert (g, len(data), image) == ("pitfall2", 10_495, data[:8192 + 2048])
        else:
            assert image == data, g


def test_first_difference_names_frame_decision_phase_and_fields():
    a = [FrameRecord(1, "NOOP", 0, -1, 0, 3, False), FrameRecord(2, "STEP", 1, 4, 0, 3, False),
         FrameRecord(3, "STEP", 1, 4, 5, 2, False)]
    assert first_difference(a, list(a)) is None
    b = a[:2] + [FrameRecord(3, "STEP", 1, 4, 0, 2, False)]
    assert first_difference(b, a) == {"frame": 3, "decision": 1, "phase": "STEP",
                                      "fields": {"reward": {"instance": 0, "ale": 5}}}
    assert first_difference(a[:2], a) == {"frame": 3, "decision": 1, "phase": "STEP",
                                          "fields": {"ended": {"instance": True, "ale": False}}}


def test_pitfall2_against_ale_and_resume(tmp_path, capsys):
    """Pitfall II on the instance: the DPC game whose 10,495-byte ROM the instance refused (SLVERR,
    bad ROM size) before the host loaded the bytes its cartridge addresses. Its record is exact,
    and its episode equals an ALE int8 episode of the same network played here: every decision,
    the return and the frames. Run again on the same results file, the game is taken from the
    file (none runs) and its row is the same."""
    from nc2600.host.drivers.fabric_backend import policy_key
    from nc2600.host.games import game_info, resolve_rom
    results = tmp_path / "sweep.jsonl"
    argv = ["instance-lockstep", "--games", "pitfall2", "--frames", str(FRAMES), "--results", str(results), "--json"]
    assert main(argv) == 0
    first = capsys.readouterr()
    assert "0 of 1 games from" in first.err and "1 to run" in first.err
    rec, summary = [json.loads(x) for x in first.out.splitlines()]
    assert summary["summary"] == {**summary["summary"], "games": 1, "exact": 1, "match": True, "from_results": 0}
    kept = [json.loads(x) for x in results.read_text().splitlines()]
    assert kept[0]["instance_lockstep_results"]["frames"] == FRAMES and kept[1:] == [rec]
    name, rom = resolve_rom(game="pitfall2")
    qp, digest = sweep_policy(rom, len(game_info(name, rom).minimal_actions), 0, 0, FRAMES)
    assert digest == policy_key(qp).hex()
    assert rec["network"] == {"seed": 0, "calib_seed": 0, "sha256": digest}
    actions, ret, frames = _ale_int8_episode(rom, qp, 0, FRAMES)
    ep = rec["episodes"][0]
    assert (rec["mapper"], rec["match"], rec["first_difference"]) == ("DPC", True, None)
    assert (ep["return"], ep["frames"], ep["decisions"]) == (ret, frames, len(actions))
    assert ep["actions_used"] == len(set(actions))
    assert rec["frames_compared"] == frames == FRAMES
    assert rec["decisions_compared"] == len(actions)
    assert main(argv) == 0
    second = capsys.readouterr()
    assert "1 of 1 games from" in second.err and "0 to run" in second.err
    again, summary = [json.loads(x) for x in second.out.splitlines()]
    assert again == rec and summary["summary"]["from_results"] == 1


@pytest.mark.parametrize("game", ["backgammon", pytest.param("video_checkers", marks=pytest.mark.slow)])
def test_games_whose_minimal_set_lacks_noop_against_ale(game, tmp_path, capsys):
    """Backgammon and Video Checkers, whose minimal action sets have no NOOP (the action table then
    has NOOP after the set, nc2600.hls_models.frame_skip.action_table): the record is exact and equal
    to an ALE int8 episode of the same network played here (every decision, the return, the frames)."""
    from nc2600.host.games import game_info, resolve_rom
    results = tmp_path / "sweep.jsonl"
    argv = ["instance-lockstep", "--games", game, "--frames", str(FRAMES), "--results", str(results), "--json"]
    assert main(argv) == 0
    *recs, summary = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["game"] for r in recs] == [game]
    assert summary["summary"] == {**summary["summary"], "games": 1, "exact": 1, "match": True}
    for rec in recs:
        name, rom = resolve_rom(game=rec["game"])
        n = len(game_info(name, rom).minimal_actions)
        assert 0 not in [int(a) for a in game_info(name, rom).minimal_actions]
        qp, _ = sweep_policy(rom, n, 0, 0, FRAMES)
        actions, ret, frames = _ale_int8_episode(rom, qp, 0, FRAMES)
        ep = rec["episodes"][0]
        assert (rec["match"], rec["first_difference"], "error" in ep) == (True, None, False)
        assert (ep["return"], ep["frames"], ep["decisions"]) == (ret, frames, len(actions))
        assert rec["decisions_compared"] == len(actions) > 0


@pytest.mark.slow
def test_alien_short_pushed_frame_equals_ale(tmp_path, capsys):
    """Alien (seed 0, the sweep's network) draws a 223-scanline frame at frame 717 of the episode,
    which is pushed: ALE's screen keeps the rows it does not reach from two frames before. The
    instance's record over 760 frames is exact against ALE int8, frame by frame (the preprocessor
    completes the frame from its two screen buffers instead of reporting a sync error)."""
    results = tmp_path / "alien.jsonl"
    assert main(["instance-lockstep", "--games", "alien", "--frames", "760", "--results", str(results), "--json"]) == 0
    rec = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (rec["match"], rec["first_difference"], rec["frames_compared"]) == (True, None, 760)
    assert "error" not in rec["episodes"][0]


class _ActionFault:
    """The instance's MMIO with its ACTION register read off by one from ``decision`` on (a
    fault in the read path, as a wrong action select would show)."""

    def __init__(self, sim, decision: int):
        from nc2600.hls_models.registers import INSTANCE as R
        self.sim, self.decision, self.R = sim, decision, R

    def __getattr__(self, name):
        return getattr(self.sim, name)

    def read(self, offset, length=4):
        v = self.sim.read(offset, length)
        R = self.R
        if offset == R.ACTION.offset and self.sim.read(R.DECISIONS.offset) >= self.decision:
            v = (v + 1) % 18
        return v


def test_a_difference_is_found_at_its_frame_decision_and_phase():
    """An injected fault (the action read off by one from decision 3) is reported at the first
    frame of decision 3: after the no-op start (noop_frames(0) frames), FIRE's 4 frames and two
    decisions of 4 frames."""
    from nc2600.hls_models.frame_skip import noop_frames
    from nc2600.host.verify.instance_lockstep import instance_lockstep_game
    from nc2600.hwtools.instance_harness import InstanceSim
    rec = instance_lockstep_game("boxing", FRAMES, FRAMES, sim=_ActionFault(InstanceSim(210, "NTSC"), 3))
    d = rec["first_difference"]
    assert not rec["match"]
    assert (d["episode_seed"], d["frame"], d["decision"], d["phase"]) == (0, noop_frames(0) + 4 + 2 * 4 + 1, 3, "STEP")
    assert list(d["fields"]) == ["action"]
    assert d["fields"]["action"]["instance"] == (d["fields"]["action"]["ale"] + 1) % 18
    assert rec["frames_compared"] == d["frame"] - 1 and rec["decisions_compared"] == 2


def _exit_code(argv) -> int:
    """The command's exit status: ``main``'s return (a UserError) or argparse's SystemExit."""
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


class _SyncFault:
    """The instance's MMIO with STATUS's preprocessor sync error bit set in every status the
    driver waits for from ``frame`` on (a frame the preprocessor could not take, as a short frame
    gives)."""

    def __init__(self, sim, frame: int):
        from nc2600.hls_models.registers import INSTANCE as R
        self.sim, self.frame, self.R = sim, frame, R

    def __getattr__(self, name):
        return getattr(self.sim, name)

    def poll(self, *args):
        v = self.sim.poll(*args)
        if v is not None and self.sim.read(self.R.FRAMES.offset) >= self.frame:
            v |= self.R.STATUS.err_sync.mask
        return v


def test_an_instance_error_is_a_difference_at_its_frame():
    """An error bit (the preprocessor's sync error, injected from frame 30) is the first
    difference at frame 30 (the frames before are compared and equal), and the episode that
    ended with it is kept in the record with its error, not raised."""
    from nc2600.host.verify.instance_lockstep import instance_lockstep_game
    from nc2600.hwtools.instance_harness import InstanceSim
    rec = instance_lockstep_game("boxing", FRAMES, FRAMES, sim=_SyncFault(InstanceSim(210, "NTSC"), 30))
    d = rec["first_difference"]
    assert not rec["match"] and (d["episode_seed"], d["frame"]) == (0, 30)
    assert d["fields"] == {"errors": {"instance": ("preprocessor sync error",), "ale": ()}}
    assert rec["frames_compared"] == 29
    assert "preprocessor sync error" in rec["episodes"][0]["error"]


@pytest.mark.parametrize("args,message", [
    (["--games", "boxing,boxing"], "listed twice"),
    (["--games", "boxing,"], "without empty entries"),
    (["--game", "nosuchgame"], "nosuchgame"),
    (["--game", "boxing", "--jobs", "2"], "--jobs needs --games or --all"),
    (["--game", "boxing", "--results", "x.jsonl"], "--results needs --games or --all"),
    (["--game", "boxing", "--frames", "34"], "--frames"),
    (["--game", "boxing", "--episode-frames", "20000000"], "--episode-frames"),
    (["--frames", "100"], "give --game NAME"),
])
def test_bad_input_is_one_line_exit_2(args, message, capsys):
    assert _exit_code(["instance-lockstep", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_results_file_of_another_sweep_is_refused(tmp_path, capsys):
    """A console lockstep results file is not an instance one: one line, exit 2, file unchanged."""
    path = tmp_path / "lockstep.jsonl"
    text = json.dumps({"lockstep_results": {"rtl": "console_cc3-0"}}) + "\n"
    path.write_text(text)
    assert _exit_code(["instance-lockstep", "--games", "boxing", "--results", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not an instance-lockstep results file" in err
    assert path.read_text() == text
