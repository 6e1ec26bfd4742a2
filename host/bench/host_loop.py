"""``nc2600 bench host``: raw ALE speed against the full evaluation loop and the gymnasium
vector environment, in the same run.

:func:`measure` returns one dict (the command prints it as one JSON line):

- ``raw_fps_per_core``: one ale-py console, frame skip 1, random minimal-set actions, no screen
  fetch, resets on game over (single process; :func:`raw_fps`);
- ``loop_fps``: the launcher's evaluation loop (W workers, frame skip 4, grey fetch, max-pool,
  84x84 resize, stack, batched policy inference in each worker) on random-initialised
  networks, frames per second of wall time over one unbroken stream of episodes of
  ``seconds`` after start-up (:func:`loop_fps`: the loop stops at the deadline);
- ``ratio = loop_fps / (raw_fps_per_core * W)``; target >= 0.5 (EnvPool reaches about 0.3-0.4).
- ``cpu_ratio``: the same ratio from CPU time instead of wall time (CPU seconds per frame of the
  raw console over CPU seconds per frame of the whole loop, main process and workers together),
  which stays meaningful on a machine shared with other work; on an idle machine with W cores
  it approaches ``ratio``.
- ``loop_cpu_us_per_frame_by_part``: emulation (the raw figure), screen fetch and pooling,
  preprocessing, inference, parameter loads, pipe traffic and loop; ``worker_idle_share``: the
  workers' wall time spent with no episode to run (0 in a steady stream).
- ``gym_vector_fps``: the gymnasium environment of :mod:`nc2600.host.gym_env` (the same protocol and
  preprocessing, no network) as ``gymnasium.vector.AsyncVectorEnv`` over W worker processes,
  one environment each, uniformly random actions from the main process, emulated frames per
  second of wall time (:func:`gym_vector_fps`); ``gym_vector_ratio`` is it over
  ``raw_fps_per_core * W``, comparable with ``ratio``.
"""
from __future__ import annotations

import itertools
import os
import resource
import time
from typing import Callable

import numpy as np

TARGET_RATIO = 0.5   #: loop frames/s over W raw consoles' frames/s the launcher aims at


def _cpu_self() -> float:
    """CPU seconds (user + system) of this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def raw_fps(rom_path, seconds: float) -> tuple[float, float]:
    """``(frames/s, CPU s/frame)`` of one ale-py console over at least ``seconds`` of wall time:
    frame skip 1, random minimal actions (``default_rng(0)``), no screen fetch."""
    from nc2600.host.episodes.ale_oracle import open_ale
    ale = open_ale(rom_path)
    actions = ale.getMinimalActionSet()
    choice = np.random.default_rng(0).integers(len(actions), size=1 << 16)
    frames, i = 0, 0
    start, cpu0 = time.perf_counter(), _cpu_self()
    while True:
        for _ in range(1000):
            ale.act(actions[choice[i & 0xFFFF]])
            i += 1
            if ale.game_over():
                ale.reset_game()
        frames += 1000
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return frames / elapsed, (_cpu_self() - cpu0) / frames


def loop_fps(rom_path, seconds: float, workers: int, k: int, episode_frames: int,
             policy: str = "float", game: str = "breakout") -> tuple[float, float, dict]:
    """``(frames/s, CPU s/frame, profile)`` of the evaluation loop on random-initialised
    networks, over a window of ``seconds`` after start-up and a warm-up episode.

    The window is one unbroken stream of episodes (``LocalPoolEvaluator.evaluate`` with a deadline), as
    in a long run: at the deadline every running episode is dropped, and the frames counted
    are every frame emulated up to that moment (those of finished episodes and the dropped
    episodes' frames so far); the wall and CPU times end when the last worker has stopped, so
    the benchmark takes ``seconds`` plus a step, never a further batch of episodes. CPU time
    counts the main process and the workers. ``profile``: CPU microseconds per frame of the
    workers' stepping (emulation, grey fetch, max-pool), preprocessing (resize, stack),
    inference, parameter loads and the rest of the workers (pipe traffic, loop), the main
    process (job dispatch), and ``worker_idle``: the share of the workers' wall time spent
    waiting with no episode to run."""
    from nc2600.host.episodes.jobs import Job
    from nc2600.host.launcher.local_pool import LocalPoolEvaluator
    from nc2600.host.episodes.policy import init_params
    with LocalPoolEvaluator(rom_path, workers, k, episode_frames=episode_frames, policy=policy) as ev:
        params = [init_params(i, ev.n_actions) for i in range(16)]
        if policy == "int8":
            from nc2600.hls_models.policy_int8 import quantize
            from nc2600.host.verify.ale_recordings import record_observations
            calib = record_observations(game, 32, seed=100)
            params = [quantize(p, ev.n_actions, calib) for p in params]
        ev.evaluate([Job(0, 0)], lambda i: params[i])          # warm-up
        w0, main0, idle0 = ev.worker_cpu_s(), _cpu_self(), ev.worker_idle_s()
        start = time.perf_counter()
        jobs = (Job(j % 16, j) for j in itertools.count(1))
        results = ev.evaluate(jobs, lambda i: params[i], deadline=time.monotonic() + seconds)
        frames = sum(r.frames for r in results) + ev.dropped_frames
        wall = time.perf_counter() - start
        w1, main1, idle1 = ev.worker_cpu_s(), _cpu_self(), ev.worker_idle_s()
    us = 1e6 / frames
    d = {name: (w1[name] - w0[name]) * us for name in w1}
    profile = {"worker_step": d["step"], "worker_preprocess": d["preprocess"], "worker_inference": d["inference"],
               "worker_load": d["load"],
               "worker_other": d["total"] - d["step"] - d["preprocess"] - d["inference"] - d["load"],
               "main": (main1 - main0) * us}
    total = sum(profile.values())
    profile["worker_idle"] = (idle1 - idle0) / (wall * workers)
    profile["episodes_finished"], profile["frames"] = len(results), frames
    return frames / wall, total * 1e-6, profile


def gym_vector_fps(game: str, seconds: float, workers: int, episode_frames: int) -> tuple[float, int]:
    """``(frames/s, frames)`` of :func:`nc2600.host.gym_env.make_vector_env` with ``workers``
    environments of ``game`` (launcher defaults otherwise), stepped with uniformly random
    actions (``default_rng(0)``) for at least ``seconds`` of wall time after its first reset.
    Frames are the emulated ones (``info["frames"]``, the automatic resets' included)."""
    from nc2600.host.gym_env import make_vector_env
    vec = make_vector_env(game, workers, episode_frames=episode_frames)
    try:
        rng = np.random.default_rng(0)
        _, info = vec.reset(seed=list(range(workers)))
        n = int(vec.single_action_space.n)
        frames = 0
        start = time.perf_counter()
        while True:
            _, _, _, _, info = vec.step(rng.integers(n, size=workers))
            frames += int(np.sum(info["frames"]))
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return frames / elapsed, frames
    finally:
        vec.close()


def measure(game: str, rom_path, seconds: float, workers: int, envs_per_block: int, episode_frames: int,
            policy: str = "float", say: Callable[[str], None] = lambda m: None) -> dict:
    """The figures of the module doc as a dict: :func:`raw_fps` then :func:`loop_fps`, each over
    ``seconds`` (the loop plus its start-up); ``say`` gets one progress line before each part."""
    say(f"[1/3] raw ALE frames/s on one core, {seconds:g} s")
    raw, raw_cpu = raw_fps(rom_path, seconds)
    say(f"[2/3] evaluation loop, {workers} workers x 2 x {envs_per_block} instances, {seconds:g} s "
        "(plus start-up)")
    loop, loop_cpu, profile = loop_fps(rom_path, seconds, workers, envs_per_block, episode_frames, policy, game)
    say(f"[3/3] gymnasium AsyncVectorEnv, {workers} environments, {seconds:g} s (plus start-up)")
    gym_fps, _ = gym_vector_fps(game, seconds, workers, episode_frames)
    # the workers' stepping split into emulation (raw ALE's CPU per frame, same run) and the rest
    emulation = raw_cpu * 1e6
    split = {"emulation": emulation, "screen_fetch_and_pooling": profile["worker_step"] - emulation,
             "preprocessing": profile["worker_preprocess"], "inference": profile["worker_inference"],
             "parameter_load": profile["worker_load"],
             "ipc_and_loop": profile["worker_other"] + profile["main"]}
    return {"game": game, "policy": policy, "workers": workers, "envs_per_block": envs_per_block,
            "raw_fps_per_core": round(raw, 1), "loop_fps": round(loop, 1),
            "ratio": round(loop / (raw * workers), 3), "target_ratio": TARGET_RATIO,
            "raw_cpu_us_per_frame": round(raw_cpu * 1e6, 2), "loop_cpu_us_per_frame": round(loop_cpu * 1e6, 2),
            "cpu_ratio": round(raw_cpu / loop_cpu, 3),
            "loop_cpu_us_per_frame_by_part": {k: round(v, 2) for k, v in split.items()},
            "worker_idle_share": round(profile["worker_idle"], 4),
            "episodes_finished": profile["episodes_finished"], "loop_frames": profile["frames"],
            "gym_vector_fps": round(gym_fps, 1), "gym_vector_ratio": round(gym_fps / (raw * workers), 3),
            "load_average_1min": round(os.getloadavg()[0], 2)}
