"""``nc2600 bench rtl``: console RTL frames/s per core beside ALE frames/s, same game, same run;
one JSON line. The measurement and its fields are :mod:`nc2600.host.bench.rtl_console`'s; with
``--callgrind N`` or ``--instance``, :mod:`nc2600.host.bench.sim_profile`'s (frames per CPU-second
of the model without Python, instructions per frame counted by callgrind over ``N`` frames). This
module is the command line."""
from __future__ import annotations

import json

from nc2600.host.cli_types import int_range


from nc2600.host.errors import UserError
def run(args) -> int:
    from nc2600.host.games import resolve_rom
    from nc2600.host.bench.rtl_console import measure

    if args.frames > 1_000_000:
        raise UserError("--frames: at most 1,000,000")
    name, path = resolve_rom(game=args.game)
    from nc2600.host.report import record_figures, results
    if args.instance or args.callgrind:
        from nc2600.host.bench import sim_profile
        try:
            result = sim_profile.profile("instance" if args.instance else "console", name, path, args.frames,
                                         args.colour_clocks, args.callgrind)
        except RuntimeError as exc:
            raise UserError(str(exc).splitlines()[0]) from None
        print(json.dumps(result))
        results.write_figures(args, sim_profile.as_figures(result))
        return 0
    result = measure(name, path, args.frames, args.colour_clocks)
    print(json.dumps(result))
    results.write_figures(args, record_figures.bench_rtl(result))
    return 0


def register(subparsers, groups) -> None:
    p = groups["bench"].add_parser("rtl", help="console RTL frames/s per core beside ALE frames/s (one JSON line)",
                                   description="Console RTL frames/s per core (Verilator) beside ALE frames/s, "
                                               "same game and random actions, one JSON line.")
    p.add_argument("--game", default="seaquest", help="ALE game id (default seaquest)")
    p.add_argument("--frames", type=int_range(1, 10**6), default=600, help="frames to time (default 600)")
    p.add_argument("--callgrind", type=int_range(0, 10_000), default=0, metavar="N",
                   help="also count the instructions per frame with valgrind's callgrind over N frames, running "
                        "the model from a snapshot in a C driver without Python (default 0: no count)")
    p.add_argument("--instance", action="store_true",
                   help="the default fabric instance (array engine, seeded random int8 network, frame skip 4) "
                        "instead of the console, from a snapshot in the C driver")
    from nc2600.host.commands import add_colour_clocks_option
    add_colour_clocks_option(p)
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=run)
