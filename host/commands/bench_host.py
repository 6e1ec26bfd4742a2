"""``nc2600 bench host``: raw ALE speed against the full evaluation loop, in the same run; one
JSON line. The measurement and its fields are :mod:`nc2600.host.bench.host_loop`'s; this module is the
command line."""
from __future__ import annotations

import json
import os
import sys

from nc2600.hls_models.frame_skip import MAX_EPISODE_FRAMES
from nc2600.host.commands import DefaultsFormatter
from nc2600.host.cli_types import float_range, int_range


def register(sub, groups):
    p = groups["bench"].add_parser("host", help="raw ALE frames/s vs the evaluation loop's and the gymnasium vector "
                                                "env's (one JSON line)",
                                   formatter_class=DefaultsFormatter)
    p.add_argument("--game", default="breakout", metavar="G", help="ALE game id")
    p.add_argument("--seconds", type=float_range(0, 3600, lo_open=True), default=20.0, metavar="S",
                   help="measuring time per part")
    p.add_argument("--workers", type=int_range(1, 1024), default=None, metavar="W",
                   help="worker processes (default: cores)")
    p.add_argument("--envs-per-block", type=int_range(1, 4096), default=6, metavar="K",
                   help="instances per block per worker")
    p.add_argument("--episode-frames", type=int_range(35, MAX_EPISODE_FRAMES), default=4000, metavar="E",
                   help="episode cap in frames (the fabric's 24-bit limit)")
    p.add_argument("--policy", choices=("float", "int8"), default="float", help="network arithmetic of the loop")
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=main)


def main(args) -> int:
    from nc2600.host.bench.host_loop import measure
    from nc2600.host.games import resolve_rom
    name, rom = resolve_rom(args.game)
    workers = args.workers or os.cpu_count() or 1
    from nc2600.host.resources import require_memory, require_processes
    from nc2600.host.launcher.settings import RunConfig
    require_processes(workers, f"--workers {workers}")
    parts = RunConfig(workers=workers, envs_per_block=args.envs_per_block, policy=args.policy).memory_bytes()
    require_memory(parts["evaluator weights"] + parts["slot observations"] + parts["worker processes"],
                   f"--workers {workers} x --envs-per-block {args.envs_per_block} x 2 instances")
    say = lambda m: print(f"nc2600 bench host: {m}", file=sys.stderr, flush=True)  # noqa: E731
    result = measure(name, rom, args.seconds, workers, args.envs_per_block, args.episode_frames, args.policy, say)
    print(json.dumps(result))
    say(target_verdict(result))
    from nc2600.host.report import record_figures, results
    results.write_figures(args, record_figures.bench_host(result))
    return 0


def target_verdict(result: dict) -> str:
    """One line saying whether the loop's wall ratio meets its target (``target_ratio``) and,
    when it is under, by how much, with the CPU ratio (the wall ratio of an idle machine) and
    the load beside it: a ratio under target on a machine busier than its cores is the load's."""
    ratio, target = result["ratio"], result["target_ratio"]
    cores = os.cpu_count() or 1
    load = result.get("load_average_1min")
    busy = (f"; the machine was loaded (load average {load:g} on {cores} cores), so the wall figures are low"
            if load is not None and load > cores else "")
    if ratio >= target:
        return f"loop/raw ratio {ratio:g} meets its target (>= {target:g})"
    return (f"loop/raw ratio {ratio:g} is UNDER its target (>= {target:g}): {ratio / target:.0%} of it "
            f"(CPU ratio {result['cpu_ratio']:g}){busy}")

