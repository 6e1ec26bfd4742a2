"""``nc2600 bench ray``: frames/s of ``--cluster ray`` (local) over the local backend, Ray's
per-generation overhead against the population, and a labelled 720-core projection
(see :mod:`nc2600.host.bench.cluster`). Prints one JSON object."""
from __future__ import annotations

import json

from nc2600.host.commands import DefaultsFormatter
from nc2600.host.cli_types import int_range


def _populations(text: str) -> tuple[int, ...]:
    import argparse
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        values = ()
    if not values or any(not 1 <= v <= 100_000 for v in values):
        raise argparse.ArgumentTypeError(f"expected comma-separated populations in [1, 100000], got {text!r}")
    return values


def register(sub, groups):
    p = groups["bench"].add_parser("ray",
                                   help="--cluster ray (local) vs the local backend; Ray overhead per generation",
                                   formatter_class=DefaultsFormatter)
    p.add_argument("--game", default="boxing", metavar="G", help="ALE game id")
    p.add_argument("--workers", type=int_range(1, 1024), default=2, metavar="W", help="worker processes / Ray CPUs")
    p.add_argument("--envs-per-block", type=int_range(1, 4096), default=6, metavar="K",
                   help="instances per block per worker")
    p.add_argument("--population", type=int_range(2, 100_000), default=48, metavar="N",
                   help="episodes per ratio measurement")
    p.add_argument("--episode-frames", type=int_range(35, 10**6), default=2000, metavar="E",
                   help="episode cap for the ratio")
    p.add_argument("--repeats", type=int_range(1, 100), default=2, metavar="R",
                   help="alternating local/ray measurements")
    p.add_argument("--overhead-populations", type=_populations, default=(100, 1000, 10000), metavar="N,N,...",
                   help="populations for the overhead part (default 100,1000,10000)")
    p.add_argument("--overhead-episode-frames", type=int_range(35, 10**6), default=40, metavar="E",
                   help="episode cap for the overhead part")
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=main, uses_ray=lambda args: True)   # an embedded Ray driver (nc2600.host.cli)


def main(args) -> int:
    from nc2600.host.bench.cluster import measure
    from nc2600.host.games import resolve_rom
    _, rom = resolve_rom(args.game, None)
    result = measure(rom, args.workers, args.envs_per_block, args.population, args.episode_frames, args.repeats,
                     args.overhead_populations, args.overhead_episode_frames)
    print(json.dumps(result), flush=True)
    from nc2600.host.report import record_figures, results
    results.write_figures(args, record_figures.bench_ray(result))
    return 0
