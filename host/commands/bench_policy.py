"""``nc2600 bench policy``: float32 vs int8 policy decisions per second per core; one JSON
line. The measurement and its fields are :mod:`nc2600.host.bench.policy`'s; this module is the command
line."""
from __future__ import annotations

import json

from nc2600.host.commands import DefaultsFormatter
from nc2600.host.cli_types import positive_float, positive_int


from nc2600.host.errors import UserError
def register(sub, groups):
    p = groups["bench"].add_parser("policy", help="float32 vs int8 policy decisions/s per core (one JSON line)",
                                   formatter_class=DefaultsFormatter,
                                   description="Float32 and int8 policy inference, decisions per CPU second, "
                                               "same observations and networks, one JSON line.")
    p.add_argument("--game", default="breakout", metavar="G", help="ALE game id (observations, action count)")
    p.add_argument("--slots", type=positive_int, default=12, metavar="S",
                   help="slots per batched call (the launcher's block: workers x envs-per-block)")
    p.add_argument("--network", choices=("small", "nature"), default="small", help="policy network")
    p.add_argument("--seconds", type=positive_float, default=10.0, metavar="T", help="measuring time per path")
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=main)


def main(args) -> int:
    from nc2600.host.games import resolve_rom
    from nc2600.host.bench.policy import measure
    name, _ = resolve_rom(args.game)
    if args.slots > 256:
        raise UserError("--slots: at most 256")
    result = measure(name, args.slots, args.seconds, args.network)
    print(json.dumps(result))
    from nc2600.host.report import record_figures, results
    results.write_figures(args, record_figures.bench_policy(result))
    return 0
