"""``nc2600 policy-int8``: the inference engine's cycle/resource model per MAC-lane count (with
``--array`` the array engine's, :mod:`nc2600.hls_models.policy_array`, per multiplier count), and
with ``--agreement GAMES`` the int8-vs-float argmax agreement on real game observations."""
from __future__ import annotations

from nc2600.host.commands import DefaultsFormatter
from nc2600.host.cli_types import ascii_int


from nc2600.host.errors import UserError
def _games(text: str) -> list[str]:
    names = [g.strip() for g in text.split(",")]
    if not all(names):
        raise UserError(f"--agreement: give comma-separated ALE game ids, got {text!r}")
    from nc2600.host.games import check_game_name
    for name in names:
        check_game_name(name)
    return names


def _main(args) -> int:
    from nc2600.hls_models.policy_int8 import lanes_table
    if args.array:
        if args.agreement is not None:
            raise UserError("--array and --agreement: give one of them")
        from nc2600.hls_models.policy_array import table
        print(table())
        return 0
    if args.agreement is None:
        print(lanes_table())
        return 0
    from nc2600.host.launcher.policy_int8 import agreement_table
    print(agreement_table(_games(args.agreement), act_max=args.act_max))
    return 0


def register(subparsers, groups) -> None:
    """Add ``nc2600 policy-int8``."""
    from nc2600.hls_models.policy_int8 import ACT_MAX
    p = subparsers.add_parser(
        "policy-int8", help="int8 inference engine: cycles and BRAM/DSP per MAC-lane count; --agreement",
        description="Without options: the inference engine's cycle and resource model for several MAC-lane "
                    "counts (nc2600.hls_models.policy_int8). With --agreement: how often the int8 model picks the "
                    "float network's action on real observations of each game (random play).",
        formatter_class=DefaultsFormatter)
    p.add_argument("--agreement", metavar="GAMES", help="comma-separated ALE game ids, e.g. pong,breakout")
    p.add_argument("--array", action="store_true",
                   help="the array engine (R x C MACs, nc2600.hls_models.policy_array): cycles, MAC efficiency and "
                        "memory for 64..512 multipliers, small and Nature networks")
    p.add_argument("--act-max", type=ascii_int, choices=(127, 255), default=ACT_MAX, help="activation ceiling")
    p.set_defaults(func=_main)
