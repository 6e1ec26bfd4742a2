"""``nc2600 policy-int8``: the inference engine's cycle/resource model per MAC-lane count, and
with ``--agreement GAMES`` the int8-vs-float argmax agreement on real game observations."""
from __future__ import annotations

from host.commands import DefaultsFormatter
from host.errors import UserError


def _games(text: str) -> list[str]:
    names = [g.strip() for g in text.split(",")]
    if not all(names):
        raise UserError(f"--agreement: give comma-separated ALE game ids, got {text!r}")
    from host.verify.games import check_game_name
    for name in names:
        check_game_name(name)
    return names


def _main(args) -> int:
    from hls_models.policy_int8 import lanes_table
    if args.agreement is None:
        print(lanes_table())
        return 0
    from host.launcher.policy_int8 import agreement_table
    print(agreement_table(_games(args.agreement), act_max=args.act_max))
    return 0


def register(subparsers, groups) -> None:
    """Add ``nc2600 policy-int8``."""
    from hls_models.policy_int8 import ACT_MAX
    p = subparsers.add_parser(
        "policy-int8", help="int8 inference engine: cycles and BRAM/DSP per MAC-lane count; --agreement",
        description="Without options: the inference engine's cycle and resource model for several MAC-lane "
                    "counts (hls_models.policy_int8). With --agreement: how often the int8 model picks the "
                    "float network's action on real observations of each game (random play).",
        formatter_class=DefaultsFormatter)
    p.add_argument("--agreement", metavar="GAMES", help="comma-separated ALE game ids, e.g. pong,breakout")
    p.add_argument("--act-max", type=int, choices=(127, 255), default=ACT_MAX, help="activation ceiling")
    p.set_defaults(func=_main)
