"""``nc2600 run``: the neuroevolution launcher (see :mod:`host.run`)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from host.errors import UserError, float_range, int_range, probability, seed_int

_D = None  # every option defaults to None so that --resume can tell what was given


def register(sub, groups):
    from host.run import ES_L2_MAX, ES_LR_MAX, LIMITS, POPULATION_DEFAULT_CAPS, SIGMA_MAX, SIGMA_MIN, RunConfig
    d = RunConfig()
    n = lambda name: int_range(1, LIMITS[name])  # noqa: E731
    p = sub.add_parser(
        "run", help="run a neuroevolution experiment (deep GA, ES or random search) on an ALE game",
        description="Deep GA (Such et al. 2017), OpenAI-ES or random search on an ALE 0.12 game. "
                    "With no options: the embedded default experiment (about 4-5 minutes on 2 cores).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", metavar="G", default=_D, help=f"ALE game id (default {d.game}; `nc2600 games` lists them)")
    p.add_argument("--rom", metavar="PATH", default=_D, help="a ROM file instead of --game (checked by md5)")
    p.add_argument("--algo", choices=("ga", "es", "rs"), default=_D, help=f"search algorithm (default {d.algo})")
    p.add_argument("--population", type=n("population"), metavar="N", default=_D, help=f"individuals per generation (default {d.population})")
    p.add_argument("--generations", type=n("generations"), metavar="K", default=_D, help=f"generations (default {d.generations})")
    p.add_argument("--max-frames", type=n("max_frames"), metavar="F", default=_D,
                   help="optional whole-run frame budget, frame skip included, checked before each generation; "
                        "the run says when it stops on it (default: none, --generations alone ends the run)")
    p.add_argument("--episode-frames", type=n("episode_frames"), metavar="E", default=_D,
                   help=f"cap on emulated frames per episode (default {d.episode_frames}; Such et al.: 20000)")
    p.add_argument("--workers", type=n("workers"), metavar="W", default=_D,
                   help=f"emulator worker processes (default: number of cores, {os.cpu_count()})")
    p.add_argument("--envs-per-block", type=n("envs_per_block"), metavar="K", default=_D,
                   help=f"game instances per block per worker; each worker holds two blocks (default {d.envs_per_block})")
    p.add_argument("--seed", type=seed_int, metavar="S", default=_D, help=f"run seed (default {d.seed})")
    p.add_argument("--out", metavar="DIR", default=_D, help="run directory (default runs/<game>-<algo>-s<seed>-<time>)")
    p.add_argument("--resume", metavar="DIR", default=_D, help="continue the run in DIR from its last complete checkpoint")
    p.add_argument("--sticky", type=probability, metavar="P", default=_D,
                   help="sticky-action probability per frame (0: none; 0.25: Machado et al. 2018)")
    p.add_argument("--frame-skip", type=n("frame_skip"), metavar="K", default=_D, help=f"frames per decision (default {d.frame_skip})")
    p.add_argument("--truncation", type=n("truncation"), metavar="T", default=_D, help=f"GA parents, at most the population (default min({POPULATION_DEFAULT_CAPS['truncation']}, "
                        "population / 2), rounded down; Such et al.: 20)")
    p.add_argument("--sigma", type=float_range(SIGMA_MIN, SIGMA_MAX), metavar="S", default=_D,
                   help="mutation power / ES noise std, at least float32's smallest normal number (default GA 0.002, ES 0.02)")
    p.add_argument("--elite-candidates", type=n("elite_candidates"), metavar="C", default=_D, help=f"GA/RS elite candidates, at most the population (default "
                        f"min({POPULATION_DEFAULT_CAPS['elite_candidates']}, population / 2), rounded down; "
                        "Such et al.: 10)")
    p.add_argument("--elite-episodes", type=n("elite_episodes"), metavar="E", default=_D, help=f"episodes per elite candidate (default {d.elite_episodes}; Such et al.: 30)")
    p.add_argument("--test-episodes", type=n("test_episodes"), metavar="N", default=_D, help=f"final elite test episodes (default {d.test_episodes}; Such et al.: 200)")
    p.add_argument("--es-lr", type=float_range(0, ES_LR_MAX, lo_open=True), metavar="LR", default=_D, help=f"ES Adam step size (default {d.es_lr})")
    p.add_argument("--es-l2", type=float_range(0, ES_L2_MAX), metavar="L2", default=_D,
                   help=f"ES weight decay coefficient (default {d.es_l2})")
    p.add_argument("--noise-table-size", type=n("noise_table_size"), metavar="N", default=_D, help=f"shared noise table entries (default {d.noise_table_size})")
    p.add_argument("--backend", choices=("ale", "rtl", "fabric"), default=_D,
                   help="game instances: ale (ale-py), rtl (the Verilated console RTL; reward from RAM by the "
                        "game rules; slow: about 100 frames/s per instance) or fabric (whole episodes inside the "
                        "Verilated fabric instance through its AXI4-Lite driver; needs --policy int8)")
    p.add_argument("--policy", choices=("float", "int8"), default=_D,
                   help="network arithmetic: float32, or the int8 model the fabric runs (hls_models.policy_int8)")
    p.add_argument("--cluster", choices=("local", "ray"), default=_D,
                   help="where episodes run: local (worker processes on this machine) or ray (one evaluator "
                        "actor per node of a Ray cluster; same results; see host/cluster.py)")
    p.add_argument("--ray-address", metavar="HOST:PORT", default=_D,
                   help="with --cluster ray: the head of a cluster started with `ray start --head` "
                        "(default: start an embedded local Ray with --workers CPUs)")
    p.add_argument("--network", choices=("small", "nature"), default=_D,
                   help="policy network: small (conv 16 8x8/4, conv 32 4x4/2, dense 256; default) or nature "
                        "(Mnih et al. 2015: conv 32 8x8/4, conv 64 4x4/2, conv 64 3x3/1, dense 512)")
    p.add_argument("--no-video", dest="video", action="store_const", const=False, default=_D, help="skip best.gif")
    p.add_argument("--progress", choices=("auto", "bar", "lines"), default="auto",
                   help="progress display: a bar on a terminal, plain lines otherwise (default auto)")
    p.set_defaults(func=main, uses_ray=_uses_ray)


def _uses_ray(args) -> bool:
    """Whether this run is a Ray driver (``--cluster ray``, or a ``--resume`` of a Ray run): the
    CLI then runs it under :func:`host.cluster.supervised_driver`. Bad input: False (the command
    reports it)."""
    try:
        return build(args)[0].cluster == "ray"
    except Exception:  # noqa: BLE001 - the command itself raises the same error
        return False


_FIELDS = ("game", "rom", "algo", "population", "generations", "max_frames", "episode_frames", "workers",
           "envs_per_block", "seed", "sticky", "frame_skip", "truncation", "sigma", "elite_candidates",
           "elite_episodes", "test_episodes", "es_lr", "es_l2", "noise_table_size", "backend", "policy", "network", "video",
           "cluster", "ray_address")


def build(args) -> tuple:
    """(RunConfig, out_dir, resume) from parsed arguments; raises UserError."""
    from host.run import RESUME_MUTABLE, RunConfig
    given = {f: getattr(args, f) for f in _FIELDS if getattr(args, f, None) is not None}
    if args.resume is not None:
        if args.out is not None:
            raise UserError("give either --out or --resume, not both")
        if args.resume.strip() == "":
            raise UserError("--resume is empty; give the run folder")
        out = Path(args.resume)
        from host.errors import read_regular_file
        from host.run import CONFIG_MAX_BYTES
        if not os.path.lexists(out / "config.json"):
            raise UserError(f"{str(out)!r} holds no run (config.json missing)")
        # a FIFO or a device there is refused at once (never a read that waits for a writer)
        data = read_regular_file(out / "config.json", CONFIG_MAX_BYTES, "run configuration")
        try:
            saved = json.loads(data)
        except ValueError as exc:
            raise UserError(f"cannot read {str(out / 'config.json')!r}: {exc}") from None
        saved = saved.get("config") if isinstance(saved, dict) else None
        if not isinstance(saved, dict):
            raise UserError(f"{str(out / 'config.json')!r} is not a run configuration (a JSON object with \"config\")")
        names = {f.name for f in dataclasses.fields(RunConfig)}
        try:
            cfg = RunConfig(**{k: v for k, v in saved.items() if k in names})
            cfg.validate()               # the saved settings, before any given option changes them
        except (TypeError, UserError) as exc:
            raise UserError(f"{str(out / 'config.json')!r} is damaged: {exc}") from None
        for k, v in given.items():
            if k in RESUME_MUTABLE:
                setattr(cfg, k, v)
            elif v != getattr(cfg, k) and not (k == "game" and cfg.rom is None and v == cfg.game) and \
                    not (k == "sigma" and v == cfg.effective_sigma()):   # the default, given by its value
                names = ", ".join("--no-video" if m == "video" else "--" + m.replace("_", "-") for m in RESUME_MUTABLE)
                was = cfg.effective_sigma() if k == "sigma" else getattr(cfg, k)
                raise UserError(f"--{k.replace('_', '-')} differs from the run being resumed "
                                f"({was!r}); only {names} may change")
        if "cluster" in given and "ray_address" not in given:
            cfg.ray_address = None      # a new --cluster drops the saved address
        return cfg, out, True
    cfg = RunConfig(workers=os.cpu_count() or 1)
    for k, v in given.items():
        setattr(cfg, k, v)
    from host.run import population_defaults
    for k, v in population_defaults(cfg.population).items():   # those not given follow the population
        if k not in given:
            setattr(cfg, k, v)
    if "game" not in given and "rom" in given:
        cfg.game = None
    if args.out is not None and args.out.strip() == "":
        raise UserError("--out is empty; give a folder name")
    out = Path(args.out) if args.out is not None else Path("runs") / (
        f"{cfg.game or Path(cfg.rom).stem}-{cfg.algo}-s{cfg.seed}-{time.strftime('%Y%m%d-%H%M%S')}")
    return cfg, out, False


def main(args) -> int:
    from host.errors import interrupt_name, sigterm_received
    from host.evaluator import WorkerDied
    from host.run import Run
    cfg, out, resume = build(args)
    progress = {"auto": None, "bar": True, "lines": False}[args.progress]
    run = Run(cfg, out, resume=resume, progress=progress)
    try:
        run.prepare()
    except BaseException as exc:
        stopped = isinstance(exc, KeyboardInterrupt) or (isinstance(exc, Exception) and sigterm_received()
                                                        and not isinstance(exc, UserError))
        if stopped and (out / "config.json").exists():
            if run.folder is not None:
                run.folder.release()
            run.close()
            sys.stderr.write(f"nc2600: {interrupt_name(exc)}; continue with: nc2600 run --resume {out}\n")
            return 130
        if run.folder is not None:
            run.folder.release()
        run.close()
        raise
    try:
        if run.cluster is not None:   # the words of the supervisor's line if Ray ends this driver
            from host.cluster import set_interrupt_hint
            set_interrupt_hint(f"; continue with: nc2600 run --resume {out}")
        where = run.cluster.describe() if run.cluster is not None else f"workers {cfg.workers}"
        print(f"nc2600 run: {cfg.game} {cfg.algo} population {cfg.population} generations {cfg.generations} "
              f"{where} -> {out}", flush=True)
        summary = run.execute()
        if run.finished is not None:
            print(run.stop_line, flush=True)
        print(json.dumps(summary), flush=True)
    except UserError as exc:         # a file-system fault during the run: the folder resumes
        raise UserError(f"{exc}; continue with: nc2600 run --resume {out}") from None
    except (KeyboardInterrupt, Exception) as exc:
        if not isinstance(exc, KeyboardInterrupt) and not sigterm_received():
            if isinstance(exc, WorkerDied):
                sys.stderr.write(f"nc2600: error: {exc}; continue with: nc2600 run --resume {out}\n")
                return 1
            raise
        # Ctrl-C or SIGTERM; after a SIGTERM any failure is its consequence (a worker it ended,
        # a library it stopped half-way, e.g. the video writer's plugin loading)
        sys.stderr.write(f"nc2600: {interrupt_name(exc)}; continue with: nc2600 run --resume {out}\n")
        return 130
    finally:
        if run.folder is not None:
            run.folder.release()
        run.close()
    return 0
