"""Instance lockstep: whole episodes on the Verilated fabric instance and on ALE with the same int8
network, compared frame by frame (the library behind ``nc2600 instance-lockstep``).

Per game (:func:`instance_lockstep_game`) one seeded network (:func:`sweep_policy`) plays
episodes with episode seeds 0, 1, 2, ... on both sides until at least ``frames`` frames have been
compared:

- the instance: :class:`nc2600.hwtools.instance_harness.InstanceSim` (the default instance: the 16 x 16
  array engine; the console with ``colour_clocks`` colour clocks per clock) behind
  :class:`nc2600.host.drivers.instance.InstanceEpisodeRunner` (ALE's reset sequence replayed for the
  first episode, the harness's snapshot of that start state restored for the others); the
  instance runs the no-op start, FIRE, frame skip, the preprocessor, the engine, action select
  and the cap itself; the host answers the game rules from the instance's RAM each frame;
- ALE: ``nc2600 run --backend ale --policy int8`` semantics (:class:`nc2600.host.episodes.env.AleEnv`:
  no-op starts and FIRE from the episode seed, frame skip 4, the episode cap, sticky actions at
  probability 0 as ``--backend fabric`` requires, and ALE's own reward, ``lives()`` and
  ``game_over()``), the decisions by :class:`nc2600.hls_models.policy_int8.QuantizedPolicy` on the
  model preprocessor's stack.

Every frame gives a :class:`nc2600.host.drivers.instance.FrameRecord` on each side (frame count,
phase, decision count, the action held, reward, lives, game over, and the instance's error bits,
e.g. the preprocessor's sync error); the first frame where they
differ (or where one side's episode has ended and the other's has not) is the record's
``first_difference``: episode seed, frame, decision, phase and the differing fields with both
values. After each episode its totals (return, frames, decisions, game over) are compared too.

The record (one per game, one JSON line in a sweep): ``game, mapper, display, height,
colour_clocks, rtl`` (the instance's build key), ``network`` (how to rebuild it: seed,
calibration seed, the SHA-256 of the int8 parameters), ``episodes`` (per episode: seed, frames,
decisions, return, game over, the distinct actions taken), ``frames_compared``,
``decisions_compared``, ``first_difference`` (null when none), ``match``, ``instance_fps`` (the
episodes' frames per CPU-second of the instance's simulation and its driver: the first episode's
replay of ALE's reset sequence, about 200 manual frames, and the parameter load included; ALE and
the comparison left out) and ``cpu_s`` (the whole game's CPU seconds in this process: the
network's calibration, both sides and the comparison; a build of the instance not included).
"""
from __future__ import annotations

import time

import numpy as np

from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS, FRAME_SKIP
from nc2600.host.drivers.instance import FrameRecord

#: the frame record's fields in the order a difference lists them
FIELDS = ("frame", "phase", "decision", "action", "reward", "lives", "terminal", "errors")
#: calibration observations of random play that set the int8 shifts (as ``nc2600 run --policy int8``)
CALIBRATION_OBSERVATIONS = 32


def sweep_policy(rom_path, n_actions: int, seed: int, calib_seed: int, episode_frames: int):
    """The seeded network of a game: ``init_params(seed)`` (LeCun normal weights, zero biases;
    :func:`nc2600.host.episodes.policy.init_params`) with the last layer's biases set to minus the mean
    float action values on the calibration observations, so that the decisions follow what
    changes on the screen (an untrained network's outputs are nearly constant in games where
    little of the screen moves), quantised to int8 on those observations exactly as
    ``nc2600 run --policy int8`` does (:func:`nc2600.host.episodes.calibration.calibration_observations`, run seed
    ``calib_seed``, 32 observations).

    Returns:
        ``(policy, sha256)``: the :class:`nc2600.hls_models.policy_int8.QuantizedPolicy` and the hex
        SHA-256 of its int8 weights, biases, shifts and ``act_max``
        (:func:`nc2600.host.drivers.fabric_backend.policy_key`).
    """
    from nc2600.hls_models.policy_int8 import quantize
    from nc2600.host.drivers.fabric_backend import policy_key
    from nc2600.host.episodes.policy import forward, init_params, unflatten
    from nc2600.host.episodes.calibration import calibration_observations
    calib = calibration_observations(rom_path, FRAME_SKIP, episode_frames, calib_seed, CALIBRATION_OBSERVATIONS)
    flat = init_params(seed, n_actions)
    p = unflatten(flat[None], n_actions)
    q = forward(calib, {k: np.broadcast_to(v, (len(calib), *v.shape[1:])) for k, v in p.items()})
    unflatten(flat, n_actions)["b4"][:] = -q.mean(0)
    policy = quantize(flat, n_actions, calib)
    return policy, policy_key(policy).hex()


def ale_episode(env, policy, episode_seed: int) -> tuple[list[FrameRecord], dict]:
    """One episode of ``policy`` on ``env`` (an :class:`AleTrace`): its frame records and totals
    (``return``, ``frames``, ``decisions``, ``game_over``)."""
    stack = np.zeros((4, 84, 84), np.uint8)
    env.rows = []
    env.decision = 0
    env.noops = _noops(episode_seed)
    ret = 0.0
    env.reset(episode_seed, stack)
    while not env.over:
        a = int(policy.act(stack[None])[0])
        env.decision += 1
        env.action = a
        r, _, _ = env.step(a, stack)
        ret += r
    return env.rows, {"return": ret, "frames": env.frames, "decisions": env.decision,
                      "game_over": bool(env.game_over)}


def _noops(seed: int) -> int:
    from nc2600.hls_models.frame_skip import noop_frames
    return noop_frames(seed)


def _ale_trace_class():
    from nc2600.host.episodes.env import AleEnv

    class AleTrace(AleEnv):
        """:class:`AleEnv` (sticky 0) that keeps a :class:`FrameRecord` of every frame: the phase
        from the frame count (no-op frames first, then ``frame_skip`` FIRE frames when FIRE is
        in the minimal set), ALE's reward, ``lives()`` and ``game_over()``."""

        def __init__(self, rom_path, episode_frames: int):
            super().__init__(rom_path, FRAME_SKIP, 0.0, episode_frames)
            self.rows: list[FrameRecord] = []
            self.decision = self.action = self.noops = 0

        def _frame(self, action) -> float:
            reward = super()._frame(action)
            f = self.frames
            fire = self.fire_index is not None
            phase = ("NOOP" if f <= self.noops else
                     "FIRE" if fire and f <= self.noops + self.frame_skip else "STEP")
            self.rows.append(FrameRecord(f, phase, self.decision, self.action if phase == "STEP" else -1,
                                         int(reward), int(self.ale.lives()), bool(self.ale.game_over())))
            return reward

    return AleTrace


def first_difference(inst: list[FrameRecord], ale: list[FrameRecord]) -> dict | None:
    """The first frame whose records differ: ``{"frame", "decision", "phase", "fields": {name:
    {"instance": v, "ale": v}}}`` (frame, decision and phase as ALE has them), or where one
    episode has ended before the other (``fields`` ``{"ended": ...}``); None when equal."""
    for i in range(max(len(inst), len(ale))):
        a = ale[i] if i < len(ale) else None
        b = inst[i] if i < len(inst) else None
        if a == b:
            continue
        where = a or b
        out = {"frame": i + 1, "decision": where.decision, "phase": where.phase}
        if a is None or b is None:
            out["fields"] = {"ended": {"instance": b is None, "ale": a is None}}
        else:
            out["fields"] = {k: {"instance": getattr(b, k), "ale": getattr(a, k)}
                             for k in FIELDS if getattr(a, k) != getattr(b, k)}
        return out
    return None


def instance_lockstep_game(game: str, frames: int, episode_frames: int, seed: int = 0, calib_seed: int = 0,
                           colour_clocks: int = DEFAULT_COLOUR_CLOCKS, sim=None) -> dict:
    """Compare ``game`` on the instance and on ALE int8 for at least ``frames`` frames (episodes
    capped at ``episode_frames``); the record of the module doc.

    Args:
        game: ALE ROM id.
        frames: frames to compare at least (whole episodes: the last one is played to its end).
        episode_frames: the episode cap (35..MAX_EPISODE_FRAMES).
        seed, calib_seed: the network's seeds (:func:`sweep_policy`).
        colour_clocks: the instance's console configuration (1 or 3).
        sim: the MMIO object (default: a new :class:`nc2600.hwtools.instance_harness.InstanceSim` of the
            game's screen and ``colour_clocks``); any object with its interface (tests inject faults).
    Raises:
        UserError: unknown game, a mapper the console RTL lacks.
        InstanceError: the instance refused a command or stopped answering.
    """
    from nc2600.hls_models.cartridge import detect_mapper
    from nc2600.host.drivers.instance import InstanceDriver, InstanceEpisodeRunner, InstanceError
    from nc2600.host.games import game_info, resolve_rom
    name, path = resolve_rom(game=game)
    info = game_info(name, path)
    mapper = detect_mapper(open(path, "rb").read())
    c0 = time.process_time()
    policy, digest = sweep_policy(path, len(info.minimal_actions), seed, calib_seed, episode_frames)
    if sim is None:
        from nc2600.hwtools.instance_harness import InstanceSim
        sim = InstanceSim(info.screen_height, info.display, colour_clocks=colour_clocks)
    rtl = getattr(sim, "build_key", None)
    runner = InstanceEpisodeRunner(InstanceDriver(sim), name, path, FRAME_SKIP, episode_frames)
    env = _ale_trace_class()(path, episode_frames)
    rec = {"game": name, "mapper": mapper, "display": info.display, "height": info.screen_height,
           "colour_clocks": colour_clocks, "rtl": rtl,
           "network": {"seed": seed, "calib_seed": calib_seed, "sha256": digest},
           "frames_requested": frames, "episode_frames": episode_frames, "episodes": [],
           "frames_compared": 0, "decisions_compared": 0, "first_difference": None}
    inst_time = 0.0
    episode_seed = 0
    while rec["frames_compared"] < frames and rec["first_difference"] is None:
        rows: list[FrameRecord] = []
        t0 = time.process_time()
        try:
            ep, failed = runner.run(episode_seed, policy, frames_out=rows), None
        except InstanceError as exc:        # the episode ended with an error bit: its frames are compared
            if not rows:
                raise
            ep, failed = None, str(exc)
        inst_time += time.process_time() - t0
        ale_rows, tot = ale_episode(env, policy, episode_seed)
        diff = first_difference(rows, ale_rows)
        mine = (tot if failed else {"return": ep.episode_return, "frames": ep.frames, "decisions": ep.decisions,
                                    "game_over": ep.game_over})
        if diff is None and failed:
            diff = {"frame": len(rows), "decision": rows[-1].decision, "phase": "end",
                    "fields": {"error": {"instance": failed, "ale": None}}}
        if diff is None and mine != tot:     # equal frames but other totals: the registers' sums
            diff = {"frame": ep.frames, "decision": ep.decisions, "phase": "end",
                    "fields": {k: {"instance": mine[k], "ale": tot[k]} for k in mine if mine[k] != tot[k]}}
        same = next((i for i, (a, b) in enumerate(zip(rows, ale_rows)) if a != b), min(len(rows), len(ale_rows)))
        rec["frames_compared"] += same
        rec["decisions_compared"] += ale_rows[same - 1].decision if same else 0
        if failed:
            mine = {"return": None, "frames": len(rows), "decisions": rows[-1].decision, "game_over": None,
                    "error": failed}
        rec["episodes"].append({"seed": episode_seed, **mine,
                                "actions_used": len({r.action for r in rows if r.phase == "STEP"})})
        if diff is not None:
            rec["first_difference"] = {"episode_seed": episode_seed, **diff}
        episode_seed += 1
    rec["match"] = rec["first_difference"] is None
    rec["instance_fps"] = round(sum(e["frames"] for e in rec["episodes"]) / inst_time, 1) if inst_time > 0 else None
    rec["cpu_s"] = round(time.process_time() - c0, 1)
    return rec


def instance_lockstep_job(job: tuple) -> dict:
    """One game of a sweep, ``job = (game, frames, episode_frames, seed, calib_seed, colour_clocks)``:
    its :func:`instance_lockstep_game` record, or a record with ``unsupported`` (a mapper the
    console RTL lacks) or ``error`` (any failure, its first 200 characters), both with ``match``
    False. Module-level for worker processes and Ray tasks."""
    game, frames, episode_frames, seed, calib_seed, colour_clocks = job
    from pathlib import Path

    from nc2600.hls_models.cartridge import SUPPORTED_MAPPERS, detect_mapper
    from nc2600.host.games import resolve_rom
    name, path = resolve_rom(game=game)
    mapper = detect_mapper(Path(path).read_bytes())
    base = {"game": name, "mapper": mapper, "colour_clocks": colour_clocks, "frames_compared": 0,
            "first_difference": None, "match": False}
    if mapper not in SUPPORTED_MAPPERS:
        return {**base, "unsupported": True}
    try:
        return instance_lockstep_game(name, frames, episode_frames, seed, calib_seed, colour_clocks)
    except Exception as exc:  # noqa: BLE001 - one game's failure is a table row
        return {**base, "error": f"{type(exc).__name__}: {exc}"[:200]}


def instance_lockstep_games(games, frames: int, episode_frames: int, seed: int = 0, calib_seed: int = 0,
                            colour_clocks: int = DEFAULT_COLOUR_CLOCKS, jobs: int = 1, cluster: str = "local",
                            ray_address: str | None = None, ordered: bool = True):
    """:func:`instance_lockstep_job` for every game (``jobs`` processes here, or one Ray task per
    game: :func:`nc2600.host.verify.sweep.sweep_imap`), in the order given or, with ``ordered=False``,
    as they finish."""
    from nc2600.host.verify.sweep import sweep_imap
    return sweep_imap(instance_lockstep_job,
                      [(g, frames, episode_frames, seed, calib_seed, colour_clocks) for g in games],
                      jobs, cluster, ray_address, ordered=ordered)


def result_word(r: dict) -> str:
    """The table's result column: ``exact``, ``unsupported``, ``error: ...`` or the first
    difference (``ep S frame F decision D PHASE: field instance/ale``)."""
    if r.get("unsupported"):
        return "unsupported"
    if r.get("error"):
        return "error: " + r["error"]
    d = r.get("first_difference")
    if d is None:
        return "exact"
    what = ", ".join(f"{k} {v['instance']}/{v['ale']}" for k, v in d["fields"].items())
    return f"ep {d['episode_seed']} frame {d['frame']} decision {d['decision']} {d['phase']}: {what}"


def run_identity(frames: int, episode_frames: int, seed: int, calib_seed: int,
                 colour_clocks: int = DEFAULT_COLOUR_CLOCKS) -> dict:
    """What every game's record depends on besides the game: the default instance's build key
    (``instance_cc3210ntsc-<hash>``: :func:`nc2600.hwtools.instance_harness.build`'s cache key for 210
    NTSC rows, a hash of the generated Verilog, the harness and the flags; built if not cached;
    every game's record names its own build), the configuration, the frames, the network's seeds
    and the ale-py version."""
    from importlib.metadata import version

    from nc2600.hwtools.instance_harness import build
    return {"rtl": build(210, "NTSC", colour_clocks=colour_clocks).parent.name, "colour_clocks": colour_clocks,
            "frames": frames, "episode_frames": episode_frames, "seed": seed, "calib_seed": calib_seed,
            "ale_py": version("ale-py")}
