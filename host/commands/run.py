"""``nc2600 run``: the neuroevolution launcher (see :mod:`nc2600.host.launcher.run`)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from nc2600.host.cli_types import float_range, int_range, probability, seed_int

from nc2600.host.errors import UserError
_D = None  # every option defaults to None so that --resume can tell what was given


def _option_type(f, metadata):
    """The argparse type of a :class:`nc2600.host.launcher.settings.RunConfig` field (see its ``setting``)."""
    from nc2600.host.launcher.settings import ES_L2_MAX, ES_LR_MAX, SIGMA_MAX, SIGMA_MIN
    kind, bound = metadata["type"], metadata["bound"]
    if bound is not None:
        return int_range(1, bound)
    return {"seed": seed_int, "probability": probability, None: None,
            "sigma": float_range(SIGMA_MIN, SIGMA_MAX), "es_lr": float_range(0, ES_LR_MAX, lo_open=True),
            "es_l2": float_range(0, ES_L2_MAX)}[kind]


def option_fields() -> list:
    """The :class:`~nc2600.host.launcher.settings.RunConfig` fields that are options, in the help's order
    (a field's ``after`` moves it behind the named one)."""
    from nc2600.host.launcher.settings import RunConfig
    listed = [f for f in dataclasses.fields(RunConfig) if f.metadata["help"] is not None]
    for f in [f for f in listed if f.metadata["after"]]:
        listed.remove(f)
        listed.insert(next(i for i, g in enumerate(listed) if g.name == f.metadata["after"]) + 1, f)
    return listed


def register(sub, groups):
    from nc2600.host.launcher.evaluation import BACKENDS, CLUSTERS, choices_help, one_of
    from nc2600.host.launcher.settings import RunConfig
    d = RunConfig()
    p = sub.add_parser(
        "run", help="run a neuroevolution experiment (deep GA, ES or random search) on an Atari game: on ALE, "
                    "the console RTL or the fabric instance (--backend)",
        description="Deep GA (Such et al. 2017), OpenAI-ES or random search on an Atari 2600 game of ALE 0.12, "
                    "played by ale-py, the Verilated console RTL or the Verilated fabric instance "
                    f"(--backend {one_of(BACKENDS)}; default {d.backend}). "
                    "With no options: the embedded default experiment (about 4-5 minutes on 2 cores).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    registries = {"backends": ("game instances", BACKENDS), "clusters": ("where episodes run", CLUSTERS)}
    for f in option_fields():
        m = f.metadata
        text = m["help"].format(default=getattr(d, f.name), cores=os.cpu_count())
        if m["flag"] is not None:
            p.add_argument(m["flag"], dest=f.name, action="store_const", const=False, default=_D, help=text)
            continue
        kw = {"metavar": m["metavar"]} if m["metavar"] else {}
        choices = m["choices"]
        if choices in registries:
            what, registry = registries[choices]
            choices, text = tuple(registry), choices_help(what, registry)
        if choices is not None:
            kw["choices"] = choices
        kind = _option_type(f, m)
        if kind is not None:
            kw["type"] = kind
        p.add_argument("--" + f.name.replace("_", "-"), default=_D, help=text, **kw)
        if f.name == "seed":      # the run folder's options follow the seed
            p.add_argument("--out", metavar="DIR", default=_D,
                           help="run directory (default runs/<game>-<algo>-s<seed>-<time>)")
            p.add_argument("--resume", metavar="DIR", default=_D,
                           help="continue the run in DIR from its last complete checkpoint")
            p.add_argument("--restart", metavar="DIR", default=_D,
                           help="start the run in DIR over from generation 0 with its saved settings (its "
                                "history, checkpoint and outputs are removed): for a damaged run folder")
    p.add_argument("--progress", choices=("auto", "bar", "lines"), default="auto",
                   help="progress display: a bar on a terminal, plain lines otherwise (default auto)")
    p.set_defaults(func=main, uses_ray=_uses_ray)


def _uses_ray(args) -> bool:
    """Whether this run is a Ray driver (``--cluster ray``, or a ``--resume`` of a Ray run): the
    CLI then runs it under :func:`nc2600.host.cluster.supervisor.supervised_driver`. Bad input: False (the command
    reports it)."""
    try:
        return build(args)[0].cluster == "ray"
    except Exception:  # noqa: BLE001 - the command itself raises the same error
        return False


def _option_name(name: str) -> str:
    """The option that sets the field ``name`` (``--no-video`` for ``video``)."""
    from nc2600.host.launcher.settings import RunConfig
    f = next(f for f in dataclasses.fields(RunConfig) if f.name == name)
    return f.metadata["flag"] or "--" + name.replace("_", "-")


def build(args) -> tuple:
    """(RunConfig, out_dir, resume) from parsed arguments; raises UserError."""
    from nc2600.host.launcher.settings import RESUME_MUTABLE, RunConfig, check_applies
    given = {f.name: getattr(args, f.name) for f in option_fields() if getattr(args, f.name, None) is not None}
    restart = getattr(args, "restart", None)
    if restart is not None and (args.resume is not None or args.out is not None):
        raise UserError("give one of --out, --resume and --restart")
    if args.resume is not None or restart is not None:
        option, folder = ("--resume", args.resume) if restart is None else ("--restart", restart)
        if args.out is not None:
            raise UserError("give either --out or --resume, not both")
        if folder.strip() == "":
            raise UserError(f"{option} is empty; give the run folder")
        out = Path(folder)
        from nc2600.host.inputs import read_regular_file
        from nc2600.host.launcher.settings import CONFIG_MAX_BYTES
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
                names = ", ".join(_option_name(m) for m in RESUME_MUTABLE)
                was = cfg.effective_sigma() if k == "sigma" else getattr(cfg, k)
                raise UserError(f"--{k.replace('_', '-')} differs from the run being resumed "
                                f"({was!r}); only {names} may change")
        if "cluster" in given and "ray_address" not in given:
            cfg.ray_address = None      # a new --cluster drops the saved address
        check_applies(cfg, given)
        return cfg, out, True
    cfg = RunConfig(workers=os.cpu_count() or 1)
    for k, v in given.items():
        setattr(cfg, k, v)
    from nc2600.host.launcher.settings import population_defaults
    for k, v in population_defaults(cfg.population).items():   # those not given follow the population
        if k not in given:
            setattr(cfg, k, v)
    if "game" not in given and "rom" in given:
        cfg.game = None
    check_applies(cfg, given)
    if args.out is not None and args.out.strip() == "":
        raise UserError("--out is empty; give a folder name")
    out = Path(args.out) if args.out is not None else Path("runs") / (
        f"{cfg.game or Path(cfg.rom).stem}-{cfg.algo}-s{cfg.seed}-{time.strftime('%Y%m%d-%H%M%S')}")
    return cfg, out, False


def main(args) -> int:
    from nc2600.host.signals import interrupt_name, sigterm_received
    from nc2600.host.episodes.jobs import WorkerDied
    from nc2600.host.launcher.run import Run
    cfg, out, resume = build(args)
    progress = {"auto": None, "bar": True, "lines": False}[args.progress]
    restart = getattr(args, "restart", None) is not None
    run = Run(cfg, out, resume=resume and not restart, progress=progress, restart=restart)
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
            from nc2600.host.cluster.supervisor import set_interrupt_hint
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
