"""The gymnasium environment (nc2600.host.gym_env) against the launcher's own instances.

Oracles: :class:`nc2600.host.episodes.env.AleEnv` (the launcher's protocol over ale-py, itself
tested against ALE and the fabric's frame-skip model), ALE's ``lives()``, gymnasium's own
``check_env``, and the protocol's constants (no-op starts 1..30 frames, FIRE for one
frame-skip period).
"""
from __future__ import annotations

import ale_py.roms
import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from nc2600.host.games import loadable_games
from nc2600.host.gym_env import Nc2600Env, env_id, make_vector_env, register_envs
from nc2600.host.episodes.env import AleEnv


def _actions(n_actions: int, count: int, seed: int = 0) -> list[int]:
    return [int(a) for a in np.random.default_rng(seed).integers(n_actions, size=count)]


def _play_instance(inst, seed: int, actions: list[int]):
    stack = np.zeros((4, 84, 84), np.uint8)
    frames = inst.reset(seed, stack)
    out = [(stack.copy(), 0.0, False, frames)]
    for a in actions:
        reward, frames, over = inst.step(a, stack)
        out.append((stack.copy(), reward, over, frames))
        if over:
            break
    return out


def _play_env(env, seed: int, actions: list[int]):
    obs, info = env.reset(seed=seed)
    out = [(obs, 0.0, False, info["frames"])]
    ends = []
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(a)
        out.append((obs, reward, terminated or truncated, info["frames"]))
        ends.append((terminated, truncated))
        if terminated or truncated:
            break
    return out, ends, info


def _assert_same(a, b):
    assert len(a) == len(b)
    for (oa, ra, ea, fa), (ob, rb, eb, fb) in zip(a, b):
        np.testing.assert_array_equal(oa, ob)
        assert (ra, ea, fa) == (rb, eb, fb)


def test_every_supported_game_is_registered_under_its_camel_case_id():
    ids = register_envs()
    assert len(ids) == len(loadable_games()) == 104
    assert env_id("boxing") == "nc2600/Boxing-v0" and env_id("montezuma_revenge") == "nc2600/MontezumaRevenge-v0"
    assert all(i in gymnasium.registry for i in ids)
    assert gymnasium.registry["nc2600/Pong-v0"].kwargs == {"game": "pong"}
    env = gymnasium.make("nc2600/Pong-v0")
    assert env.observation_space == gymnasium.spaces.Box(0, 255, (4, 84, 84), np.uint8)
    assert env.action_space == gymnasium.spaces.Discrete(6)           # Pong's minimal set (ALE)
    inst = env.unwrapped.instance                                      # the launcher's defaults
    assert (inst.frame_skip, inst.sticky, inst.episode_frames, inst.noop_max) == (4, 0.0, 2000, 30)
    env.close()


FRESH = """
import sys, gymnasium
from gymnasium.utils.env_checker import check_env
assert "nc2600.host.gym_env" not in sys.modules
{before}
env = gymnasium.make({env_id!r}, episode_frames=100)
check_env(env.unwrapped)
obs, info = env.reset(seed=1)
print(env.action_space.n, obs.shape, obs.dtype, info["lives"], "nc2600.host.gym_env" in sys.modules)
"""


def _fresh(code: str, tmp_path):
    """``code`` in a new interpreter started outside the checkout (as after ``make install``:
    the package on the path, nothing imported)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                          cwd=tmp_path, env=env)


@pytest.mark.parametrize("before, env_id", [("import nc2600.host.gym_env", "nc2600/Pong-v0"),
                                            ("", "nc2600.host.gym_env:nc2600/Pong-v0")])
def test_the_documented_forms_make_pong_in_a_fresh_interpreter(before, env_id, tmp_path):
    """Both documented forms in a new interpreter: the import, then the plain id; or the id
    prefixed by the module (gymnasium imports it, which registers every game). The environment
    passes gymnasium's ``check_env``; Pong has ALE's 6 minimal actions and no lives counter
    (ALE's ``lives()`` is 0); the observation is the fabric's uint8 stack."""
    proc = _fresh(FRESH.format(before=before, env_id=env_id), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["6", "(4,", "84,", "84)", "uint8", "0", "True"]


def test_without_the_import_the_plain_id_is_unknown_to_the_pinned_gymnasium(tmp_path):
    """gymnasium 1.4.0 reads no package entry points (it registers an environment only when
    its module is imported), so the plain id in a new interpreter that imported nothing of
    the project names an unknown namespace: the reason for the two documented forms. If a
    later gymnasium loads plugins, this fails and the entry point can be declared."""
    code = ("import gymnasium\n"
            "try:\n    gymnasium.make('nc2600/Pong-v0')\n"
            "except gymnasium.error.NamespaceNotFound as exc:\n    print('unknown', exc)\n")
    proc = _fresh(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("unknown Namespace nc2600 not found."), proc.stdout
    assert gymnasium.__version__ == "1.4.0"


@pytest.mark.parametrize("sticky", [0.0, 0.25])
def test_reset_seed_gives_the_launchers_episode(sticky):
    """Breakout ends by game over within about 700 frames of random play: the same actions
    give identical observations, rewards, frame counts and ends on the environment and on
    the launcher's ``AleEnv`` with the same episode seed; ``terminated`` at game over
    with 0 lives left (ALE's ``lives()``)."""
    rom = ale_py.roms.get_rom_path("breakout")
    actions = _actions(4, 5000, seed=7)
    for seed in (0, 12345):
        ref = _play_instance(AleEnv(rom, 3, sticky, 100_000), seed, actions)
        env = gymnasium.make("nc2600/Breakout-v0", frame_skip=3, sticky=sticky, episode_frames=100_000)
        got, ends, info = _play_env(env, seed, actions)
        _assert_same(got, ref)
        assert ends[-1] == (True, False) and not any(any(e) for e in ends[:-1])
        assert info["lives"] == 0 and info["episode_seed"] == seed
        assert info["episode_frame_number"] == sum(f for *_, f in ref)
        env.close()


def test_truncated_at_the_cap_and_frame_counts():
    env = gymnasium.make("nc2600/Breakout-v0", episode_frames=50)
    obs, info = env.reset(seed=4)
    assert info["lives"] == 5 and 1 + 4 <= info["frames"] <= 30 + 4   # no-op start + FIRE run
    start = total = info["frames"]
    while True:
        obs, reward, terminated, truncated, info = env.step(0)
        total += info["frames"]
        if terminated or truncated:
            break
        assert info["frames"] == 4
    assert (terminated, truncated) == (False, True)
    assert info["episode_frame_number"] == total == 50 and env.unwrapped.frame_number == 50
    assert info["frames"] == (50 - start) % 4 or info["frames"] == 4   # the last run is cut to the cap
    with pytest.raises(RuntimeError):
        env.unwrapped.step(0)
    env.close()


def test_unseeded_resets_follow_the_seeded_generator():
    a = Nc2600Env("pong", episode_frames=200)
    b = Nc2600Env("pong", episode_frames=200)
    a.reset(seed=9)
    b.reset(seed=9)
    seeds = []
    for _ in range(3):
        oa, ia = a.reset()
        ob, ib = b.reset()
        np.testing.assert_array_equal(oa, ob)
        assert ia == ib
        seeds.append(ia["episode_seed"])
    assert len(set(seeds)) == 3
    # and an unseeded episode is the launcher's episode of the seed it reports
    ref = _play_instance(AleEnv(ale_py.roms.get_rom_path("pong"), 4, 0.0, 200), seeds[-1], [])
    np.testing.assert_array_equal(oa, ref[0][0])


def test_noop_max_and_fire_reset_options():
    """noop_max 1: the start is one NOOP frame, then FIRE for one frame-skip period (Breakout
    has FIRE): 1 + 4 frames; without FIRE at reset: 1 frame."""
    env = Nc2600Env("breakout", noop_max=1)
    assert env.reset(seed=3)[1]["frames"] == 1 + 4
    env = Nc2600Env("breakout", noop_max=1, fire_reset=False)
    assert env.reset(seed=3)[1]["frames"] == 1
    env = Nc2600Env("breakout", fire_reset=False)                     # 1..30 NOOP frames only
    from nc2600.hls_models.frame_skip import noop_frames
    assert env.reset(seed=3)[1]["frames"] == noop_frames(3)


@pytest.mark.parametrize("options, words", [
    ({"frame_skip": -1}, "frame_skip must be an integer in [1, 255], got -1"),
    ({"frame_skip": 2.5}, "frame_skip must be an integer"),
    ({"backend": "fpga"}, "backend must be one of ale, rtl, got 'fpga'"),
    ({"sticky": 1.5}, "sticky must be a probability in [0, 1], got 1.5"),
    ({"episode_frames": 1 << 24}, "episode_frames must be an integer in [1, 16,777,215]"),
    ({"noop_max": 0}, "noop_max must be an integer in [1, 30], got 0"),
    ({"fire_reset": 1}, "fire_reset must be True or False"),
    ({"render_mode": "ansi"}, "render_mode must be None or 'rgb_array', got 'ansi'"),
    ({"game": "pongg"}, "unknown game 'pongg'; did you mean pong"),
    ({"rom": "/nonexistent/rom.bin"}, "/nonexistent/rom.bin"),
])
def test_bad_options_raise_value_error_at_make(options, words):
    with pytest.raises(ValueError) as info:
        gymnasium.make("nc2600/Pong-v0", **options)
    assert words in str(info.value)


def test_a_game_without_its_mapper_in_rtl_is_refused_at_make(monkeypatch):
    """Refused before any console is built, naming the mapper (Pong is a 2K cartridge)."""
    import nc2600.hw.console
    monkeypatch.setattr(nc2600.hw.console, "SUPPORTED", ("F8",))
    with pytest.raises(ValueError, match="pong: the console RTL has no 2K cartridge mapper"):
        Nc2600Env("pong", backend="rtl")


def test_bad_actions_are_refused():
    env = Nc2600Env("pong", episode_frames=100)
    env.reset(seed=0)
    for bad in (6, -1, 1.0, True):
        with pytest.raises(ValueError, match=r"action must be an integer in \[0, 5\]"):
            env.step(bad)
    env.step(np.int64(5))


def test_check_env_passes_on_ale_and_render():
    env = Nc2600Env("pong", episode_frames=300, render_mode="rgb_array")
    check_env(env)
    env.reset(seed=1)
    np.testing.assert_array_equal(env.render(), env.instance.ale.getScreenRGB())


@pytest.mark.slow
def test_rtl_backend_passes_check_env_and_equals_the_launchers_ale_episode():
    """Boxing passes ``nc2600 lockstep``: the Verilated console's episode equals the launcher's
    ALE episode for the same seed and actions."""
    env = Nc2600Env("boxing", backend="rtl", episode_frames=60)
    check_env(env)
    actions = _actions(18, 40, seed=3)
    got, ends, _ = _play_env(env, 11, actions)
    ref = _play_instance(AleEnv(ale_py.roms.get_rom_path("boxing"), 4, 0.0, 60), 11, actions)
    _assert_same(got, ref)
    assert ends[-1] == (False, True)
    env.close()


def test_vector_env_gives_each_seeds_episode():
    actions = _actions(4, 30, seed=1)
    vec = make_vector_env("breakout", 2, episode_frames=400)
    try:
        obs, info = vec.reset(seed=[21, 22])
        assert obs.shape == (2, 4, 84, 84) and obs.dtype == np.uint8
        refs = [_play_instance(AleEnv(ale_py.roms.get_rom_path("breakout"), 4, 0.0, 400), s, actions)
                for s in (21, 22)]
        for i in range(2):
            np.testing.assert_array_equal(obs[i], refs[i][0][0])
        for t, a in enumerate(actions[:20]):
            obs, reward, terminated, truncated, info = vec.step(np.array([a, a]))
            for i in range(2):
                np.testing.assert_array_equal(obs[i], refs[i][t + 1][0])
                assert reward[i] == refs[i][t + 1][1]
    finally:
        vec.close()
    with pytest.raises(ValueError, match="frame_skip"):
        make_vector_env("breakout", 2, frame_skip=0)
