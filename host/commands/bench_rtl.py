"""``nc2600 bench rtl``: console RTL frames/s per core beside ALE frames/s, same game, same run;
one JSON line. The measurement and its fields are :mod:`nc2600.host.bench.rtl_console`'s; this module is
the command line."""
from __future__ import annotations

import json

from nc2600.host.errors import UserError, int_range


def run(args) -> int:
    from nc2600.host.games import resolve_rom
    from nc2600.host.bench.rtl_console import measure

    if args.frames > 1_000_000:
        raise UserError("--frames: at most 1,000,000")
    name, path = resolve_rom(game=args.game)
    result = measure(name, path, args.frames, args.colour_clocks)
    print(json.dumps(result))
    from nc2600.host.report import record_figures, results
    results.write_figures(args, record_figures.bench_rtl(result))
    return 0


def register(subparsers, groups) -> None:
    p = groups["bench"].add_parser("rtl", help="console RTL frames/s per core beside ALE frames/s (one JSON line)",
                                   description="Console RTL frames/s per core (Verilator) beside ALE frames/s, "
                                               "same game and random actions, one JSON line.")
    p.add_argument("--game", default="seaquest", help="ALE game id (default seaquest)")
    p.add_argument("--frames", type=int_range(1, 10**6), default=600, help="frames to time (default 600)")
    from nc2600.host.commands import add_colour_clocks_option
    add_colour_clocks_option(p)
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=run)
