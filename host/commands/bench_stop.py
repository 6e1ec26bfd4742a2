"""``nc2600 bench stop``: seconds from a SIGINT/SIGTERM to the end of ``nc2600 run`` with W
workers, at several moments, and whether anything was left (:mod:`nc2600.host.bench.stop`); one
JSON line."""
from __future__ import annotations

import json
import signal
import sys

from nc2600.host.commands import DefaultsFormatter
from nc2600.host.cli_types import float_range, int_range


def register(sub, groups):
    p = groups["bench"].add_parser("stop", help="seconds from one SIGINT to the end of a run with W workers, and "
                                                "what is left (one JSON line)", formatter_class=DefaultsFormatter)
    p.add_argument("--workers", type=int_range(1, 1024), default=24, metavar="W", help="the run's worker processes")
    p.add_argument("--at", type=float_range(0, 600, lo_open=True), nargs="+", default=[2.0, 6.0, 12.0],
                   metavar="S", help="seconds after the run's start at which the signal is sent, one try each")
    p.add_argument("--signal", choices=("SIGINT", "SIGTERM"), default="SIGINT", help="the signal, sent to the "
                                                                                      "run's process group")
    p.add_argument("--twice", action="store_true", help="send it again 0.1 s later (a double Ctrl-C)")
    p.add_argument("--cluster", choices=("local", "ray"), default="local", help="the run's --cluster")
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=main)


def main(args) -> int:
    from nc2600.host.bench.stop import measure
    from nc2600.host.resources import require_processes
    require_processes(args.workers, f"--workers {args.workers}")
    say = lambda m: print(f"nc2600 bench stop: {m}", file=sys.stderr, flush=True)  # noqa: E731
    r = measure(args.workers, args.at, getattr(signal, args.signal), 0.1 if args.twice else None, args.cluster, say)
    print(json.dumps(r))
    say(f"exit {r['median_exit_s']:g} s median, {r['max_exit_s']:g} s at most after the {r['signal']} "
        f"({'nothing left' if r['all_clean'] else 'SOMETHING LEFT: see the tries'})")
    from nc2600.host.report import results
    how = f"{r['signal']}{' twice' if args.twice else ''} to the process group, {len(r['tries'])} tries at " \
          f"{', '.join(f'{t:g}' for t in args.at)} s; exit code 130 and nothing left (workers, /dev/shm " \
          f"segment, temp files): {r['all_clean']}; load average {r['load_average_1min']:g}"
    results.write_figures(args, [(f"seconds from one {r['signal']} to the exit of nc2600 run, {r['workers']} "
                                  f"workers, {r['cluster']}, largest of the tries", r["max_exit_s"], "s", how)])
    return 0 if r["all_clean"] else 1
