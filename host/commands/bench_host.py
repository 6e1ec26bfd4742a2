"""``nc2600 bench host``: raw ALE speed against the full evaluation loop, in the same run; one
JSON line. The measurement and its fields are :mod:`host.bench.evaluator`'s; this module is the
command line."""
from __future__ import annotations

import json
import os
import sys

from host.commands import DefaultsFormatter
from host.errors import float_range, int_range


def register(sub, groups):
    p = groups["bench"].add_parser("host", help="raw ALE frames/s vs the evaluation loop's frames/s (one JSON line)",
                                   formatter_class=DefaultsFormatter)
    p.add_argument("--game", default="breakout", metavar="G", help="ALE game id")
    p.add_argument("--seconds", type=float_range(0, 3600, lo_open=True), default=20.0, metavar="S", help="measuring time per part")
    p.add_argument("--workers", type=int_range(1, 1024), default=None, metavar="W", help="worker processes (default: cores)")
    p.add_argument("--envs-per-block", type=int_range(1, 4096), default=6, metavar="K", help="instances per block per worker")
    p.add_argument("--episode-frames", type=int_range(35, 10**9), default=4000, metavar="E", help="episode cap in frames")
    p.add_argument("--policy", choices=("float", "int8"), default="float", help="network arithmetic of the loop")
    p.set_defaults(func=main)


def main(args) -> int:
    from host.bench.evaluator import measure
    from host.verify.games import resolve_rom
    name, rom = resolve_rom(args.game)
    workers = args.workers or os.cpu_count() or 1
    say = lambda m: print(f"nc2600 bench host: {m}", file=sys.stderr, flush=True)  # noqa: E731
    print(json.dumps(measure(name, rom, args.seconds, workers, args.envs_per_block, args.episode_frames,
                             args.policy, say)))
    return 0
