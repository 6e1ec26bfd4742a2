"""The frame-skip controller model (nc2600.hls_models.frame_skip) against hand-worked schedules, Stella's
paddle formula, and a plain ale-py loop written here from the protocol's definition."""
import numpy as np
import pytest

from nc2600.hls_models import frame_skip as fs
from nc2600.hls_models.frame_skip import EpisodeConfig, Frame, Outcome, episode_schedule


def _drive(cfg, over_at=None, actions=None):
    """Run the schedule; the game ends after frame ``over_at`` (1-based); returns the events."""
    gen = episode_schedule(cfg)
    out, frames, send = [], 0, None
    actions = list(actions or [])
    try:
        while True:
            item = gen.send(send)
            if isinstance(item, Frame):
                frames += 1
                out.append(item)
                send = over_at is not None and frames >= over_at
            else:
                out.append(item)
                send = actions.pop(0) if actions else 2
    except StopIteration as stop:
        return out, stop.value


def test_hand_worked_no_fire():
    # 3 no-ops (no FIRE): the 3rd is pushed; cap 10, skip 4: decisions at 3 and 7 (3 frames)
    ev, res = _drive(EpisodeConfig(noops=3, frame_skip=4, episode_frames=10), actions=[5, 6])
    kinds = [(e.phase, e.action, e.push, e.zero_prev, e.capture) if isinstance(e, Frame) else ("D", e.frames)
             for e in ev]
    assert kinds == [("noop", 0, False, True, False), ("noop", 0, False, False, True),
                     ("noop", 0, True, False, True), ("D", 3),
                     ("step", 5, False, False, False), ("step", 5, False, False, False),
                     ("step", 5, False, False, True), ("step", 5, True, False, True), ("D", 7),
                     ("step", 6, False, False, False), ("step", 6, False, False, True),
                     ("step", 6, True, False, True)]
    assert res == Outcome(frames=10, decisions=2, start_frames=3, game_over=False)


def test_hand_worked_fire_and_game_over():
    # 1 no-op (not pushed, FIRE follows), 4 FIRE frames (last pushed), game over at frame 7
    ev, res = _drive(EpisodeConfig(noops=1, fire_index=1, frame_skip=4, episode_frames=100), over_at=7)
    frames = [e for e in ev if isinstance(e, Frame)]
    assert [(f.phase, f.action, f.push) for f in frames] == [
        ("noop", 0, False), ("fire", 1, False), ("fire", 1, False), ("fire", 1, False), ("fire", 1, True),
        ("step", 2, False), ("step", 2, False)]
    assert frames[0].capture and frames[0].zero_prev
    assert res == Outcome(frames=7, decisions=1, start_frames=5, game_over=True)


def test_game_over_during_noops_skips_fire():
    ev, res = _drive(EpisodeConfig(noops=5, fire_index=1, frame_skip=4, episode_frames=100), over_at=2)
    assert [e.phase for e in ev] == ["noop", "noop"] and res.frames == 2 and res.game_over


def test_fire_run_not_cut_by_cap():
    _, res = _drive(EpisodeConfig(noops=2, fire_index=1, frame_skip=4, episode_frames=3))
    assert res == Outcome(frames=6, decisions=0, start_frames=6, game_over=False)


@pytest.mark.parametrize("bad", [dict(noops=0), dict(noops=31), dict(noops=1, frame_skip=0),
                                 dict(noops=1, frame_skip=256), dict(noops=1, episode_frames=0)])
def test_config_checked(bad):
    with pytest.raises(ValueError):
        EpisodeConfig(**bad)


def test_noop_frames_is_the_launchers_draw():
    for seed in (0, 1, 7, 123456789):
        assert fs.noop_frames(seed) == int(np.random.default_rng([seed, 0x5EED]).integers(1, 31))


def test_paddle_needed_equals_stellas_doubles_exhaustively():
    r = np.arange(0, fs.PADDLE_R_MAX + 1, dtype=np.int64)
    ref = (1.6 * r.astype(np.float64) * 0.01E-6 * 1.19E6).astype(np.int64)   # same operation order
    assert np.array_equal((r * fs.PADDLE_MULT) >> fs.PADDLE_SHIFT, ref)
    assert fs.paddle_needed(408823) == int(1.6 * 408823 * 0.01E-6 * 1.19E6)
    with pytest.raises(ValueError):
        fs.paddle_needed(fs.PADDLE_R_MAX + 1)


def test_paddle_direction_from_ales_action_names():
    # ALE's own names: an action whose name says RIGHT turns the paddle right (-1), LEFT left (+1)
    import ale_py
    for action in list(ale_py.Action)[:18]:
        want = -1 if "RIGHT" in action.name else 1 if "LEFT" in action.name else 0
        assert fs.paddle_direction(action.value) == want, action.name


def test_paddle_step_clamps():
    assert fs.paddle_step(30000, -1, 27450, 790196) == 27450
    assert fs.paddle_step(780000, +1, 27450, 790196) == 790196
    assert fs.paddle_step(400000, 0, 27450, 790196) == 400000


def _reference_episode(game, seed, actions, cap, k=4):
    """The protocol written directly on ale-py (the launcher's documented rules), independent of
    nc2600.hls_models.frame_skip: returns [(reward, frames, over, pooled)] for the reset and each step."""
    import ale_py

    from nc2600.host.episodes.ale_oracle import open_ale
    from nc2600.host.games import resolve_rom
    _, rom = resolve_rom(game=game)
    ale = open_ale(rom, reset=True)
    acts = list(ale.getMinimalActionSet())
    h, w = ale.getScreenDims()
    buf = [np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)]
    frames = 0

    def run(a, n):
        nonlocal frames
        rew = 0
        for i in range(n):
            rew += ale.act(a)
            frames += 1
            if ale.game_over() or i >= n - 2:
                buf.append(ale.getScreenGrayscale())
                buf.pop(0)
            if ale.game_over():
                break
        return rew

    n = int(np.random.default_rng([seed, 0x5EED]).integers(1, 31))
    run(ale_py.Action.NOOP, n)     # the no-op start presses nothing, listed in the minimal set or not
    if ale_py.Action.FIRE in acts and not ale.game_over():
        run(ale_py.Action.FIRE, k)
    out = [(0, frames, ale.game_over() or frames >= cap, np.maximum(*buf))]
    for a in actions:
        if out[-1][2]:
            break
        before = frames
        r = run(acts[a], min(k, cap - frames))
        out.append((r, frames - before, ale.game_over() or frames >= cap, np.maximum(*buf)))
    return out


@pytest.mark.parametrize("game,seed,cap", [("boxing", 3, 63), ("breakout", 11, 50), ("pong", 5, 47),
                                           ("backgammon", 2, 60), ("video_checkers", 4, 60)])
def test_launcher_protocol_equals_plain_ale_loop(game, seed, cap):
    """nc2600.host.episodes.env.AleEnv (driven by episode_schedule) == the plain loop, every step;
    also on the two games whose minimal action set has no NOOP (the no-op start's action)."""
    from nc2600.host.games import resolve_rom
    from nc2600.host.episodes.env import AleEnv
    _, rom = resolve_rom(game=game)
    inst = AleEnv(rom, episode_frames=cap)
    rng = np.random.default_rng(seed)
    actions = [int(a) for a in rng.integers(0, inst.n_actions, 40)]
    ref = _reference_episode(game, seed, actions, cap)
    got = [(0, inst.reset(seed), inst.over, inst.pooled.copy())]
    for a in actions:
        if inst.over:
            break
        r, f, over = inst.step(a)
        got.append((r, f, over, inst.pooled.copy()))
    assert len(got) == len(ref) and got[-1][2]
    for g, r in zip(got, ref):
        assert g[:3] == r[:3]
        assert np.array_equal(g[3], r[3])


def test_action_table_appends_noop_where_the_minimal_set_lacks_it():
    """ALE 0.12's minimal sets (ale-py): Backgammon FIRE, RIGHT, LEFT and Video Checkers FIRE and the
    four diagonals have no NOOP; the table is the set, then NOOP (hand-worked indices). Pong's set
    starts with NOOP and is the table as it is."""
    from nc2600.host.episodes.ale_oracle import open_ale
    from nc2600.host.games import resolve_rom
    sets = {g: [int(a.value) for a in open_ale(resolve_rom(game=g)[1]).getMinimalActionSet()]
            for g in ("backgammon", "video_checkers", "pong")}
    assert sets == {"backgammon": [1, 3, 4], "video_checkers": [1, 6, 7, 8, 9], "pong": [0, 1, 3, 4, 11, 12]}
    assert fs.action_table(sets["backgammon"]) == ([1, 3, 4, 0], 3, 0)
    assert fs.action_table(sets["video_checkers"]) == ([1, 6, 7, 8, 9, 0], 5, 0)
    assert fs.action_table(sets["pong"]) == ([0, 1, 3, 4, 11, 12], 0, 1)
    assert fs.action_table([2, 5]) == ([2, 5, 0], 2, None)
    for bad in ([], [1, 1], [18], [-1]):
        with pytest.raises(ValueError, match="distinct ALE action ids"):
            fs.action_table(bad)
