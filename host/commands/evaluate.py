"""``nc2600 evaluate --run DIR``: re-evaluate a finished run's elite under float32 and/or int8.

The elite's parameters (``best_params.npy``) are played on ``--episodes`` fresh episodes with
the run's protocol (game, frame skip, sticky actions, episode cap from ``config.json``) under
each arithmetic asked for; int8 quantises them exactly as ``nc2600 run --policy int8`` does
(per individual, shifts calibrated on the run's calibration observations). Every arithmetic
plays the same episode seeds (drawn from ``--seed``), so the scores are paired. Prints one
JSON line: per arithmetic the mean, standard deviation and the episode returns, and the
arithmetic the run trained under.
"""
from __future__ import annotations

import json

from host.cli import DefaultsFormatter
from host.errors import UserError, non_negative_int, positive_int


def register(sub, groups):
    p = sub.add_parser("evaluate", help="re-evaluate a run's elite under float32 and/or int8 (one JSON line)",
                       formatter_class=DefaultsFormatter,
                       description="Play a finished run's elite (best_params.npy) on fresh episodes under "
                                   "float32 and/or int8 arithmetic, same episode seeds for both.")
    p.add_argument("--run", required=True, metavar="DIR", help="run directory of nc2600 run")
    p.add_argument("--policy", choices=("float", "int8", "both"), default="both", help="arithmetic(s)")
    p.add_argument("--episodes", type=positive_int, default=10, metavar="N", help="episodes per arithmetic")
    p.add_argument("--seed", type=non_negative_int, default=12345, metavar="S", help="seed of the episode seeds")
    p.add_argument("--workers", type=positive_int, default=None, metavar="W", help="worker processes (default: cores)")
    p.set_defaults(func=main)


def evaluate_elite(run_dir, policies, episodes: int, seed: int, workers: int) -> dict:
    """The figures of the module doc as a dict; raises UserError for a directory without a
    finished run."""
    import os
    from pathlib import Path

    import numpy as np

    from host.evaluator import Evaluator, Job
    from host.run import SEED_LIMIT, Run, RunConfig

    run_dir = Path(run_dir)
    try:
        saved = json.loads((run_dir / "config.json").read_text())["config"]
        best = np.load(run_dir / "best_params.npy")
    except (OSError, ValueError, KeyError) as exc:
        raise UserError(f"{str(run_dir)!r} holds no finished run ({type(exc).__name__}: "
                        f"config.json and best_params.npy are needed)") from None
    import dataclasses
    names = {f.name for f in dataclasses.fields(RunConfig)}
    cfg = RunConfig(**{k: v for k, v in saved.items() if k in names})
    run = Run(cfg, run_dir, resume=True, progress=False)
    from host.games import game_info, resolve_rom
    name, run.rom_path = resolve_rom(cfg.game, cfg.rom)
    run.info = game_info(name, run.rom_path)
    n_actions = len(run.info.minimal_actions)
    from host.policy import n_params
    if best.shape != (n_params(n_actions),):
        raise UserError(f"best_params.npy has shape {best.shape}, not a parameter vector")
    seeds = np.random.default_rng([seed, 0xE7A1]).integers(SEED_LIMIT, size=episodes)
    out = {"run": str(run_dir), "game": name, "trained_policy": cfg.policy, "episodes": episodes,
           "episode_frames": cfg.episode_frames, "seed": seed}
    for policy in policies:
        if policy == "int8":
            cfg.policy = "int8"
            run.calib_obs = run._calibration_observations()
        cfg.policy = policy
        params = run._policy_for(best)
        with Evaluator(run.rom_path, workers or os.cpu_count() or 1, max(1, min(6, episodes // 2)), cfg.frame_skip,
                       cfg.sticky, cfg.episode_frames, cfg.backend, policy) as ev:
            results = ev.evaluate([Job(0, int(s)) for s in seeds], lambda i: params)
        returns = [r.episode_return for r in results]
        out[policy] = {"mean": float(np.mean(returns)), "std": float(np.std(returns)), "returns": returns}
    cfg.policy = saved.get("policy", "float")
    return out


def main(args) -> int:
    policies = ("float", "int8") if args.policy == "both" else (args.policy,)
    print(json.dumps(evaluate_elite(args.run, policies, args.episodes, args.seed, args.workers)))
    return 0
