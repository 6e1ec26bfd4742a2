"""``nc2600 preprocessor``: the frame preprocessor model (and RTL) against ALE's own frames.

The checks and the exit rule are :mod:`nc2600.host.verify.preprocessor`'s; this module is the command line.
"""
from __future__ import annotations

import json

from nc2600.hls_models.preprocessor import FRAME_SKIP
from nc2600.host.commands import DefaultsFormatter
from nc2600.host.cli_types import int_range, seed_int
from nc2600.host.resources import require_memory
from nc2600.host.verify.preprocessor import passed, run_preprocess


def _main(args) -> int:
    # palette screens + ALE grey (H <= 250 rows x 160) per frame, and the 84 x 84 stacks
    require_memory(args.frames * (2 * 250 * 160 + 84 * 84 * 2), f"--frames {args.frames:,} (screens kept in memory)")
    result = run_preprocess(args.game, args.frames, args.seed, args.rtl)
    ok = passed(result)
    if args.json:
        print(json.dumps({**result, "passed": ok}))
    else:
        print(f"game                   {result['game']} ({result['display']}, {result['screen_height']} x 160)")
        print(f"frames                 {result['frames']} ({result['observations']} observations, frame skip "
              f"{FRAME_SKIP})")
        print(f"max_abs_diff_vs_float  {result['max_abs_diff_vs_float']:.3f} grey levels")
        if result["rtl_mismatched_pixels"] is None:
            print("rtl_mismatched_pixels  - (use --rtl)")
            print("latency_cycles         -")
        else:
            print(f"rtl_mismatched_pixels  {result['rtl_mismatched_pixels']} "
                  f"(of {result['observations'] * 4 * 84 * 84} stack pixels read back)")
            print(f"latency_cycles         {result['latency_cycles']} (last visible pixel -> obs_valid; "
                  f"expected {result['latency_expected_cycles']})")
            print(f"rtl speed              {result['rtl_cycles_per_s'] / 1e6:.2f} M colour clocks/s (Verilator)")
        print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def register(subparsers, groups) -> None:
    """Add ``nc2600 preprocessor``."""
    p = subparsers.add_parser(
        "preprocessor", aliases=["preprocess"], help="check the frame preprocessor model (and RTL) against ALE frames",
        description="Run ale-py with random actions, preprocess its frames with the integer model "
                    "(and with --rtl the streaming RTL in Verilator); report the difference to a float "
                    "reference, RTL mismatches and the obs_valid latency. Exit 0 only if all agree.",
        formatter_class=DefaultsFormatter)
    p.add_argument("--game", required=True, metavar="NAME", help="ALE game id, e.g. pong (see `nc2600 games`)")
    p.add_argument("--frames", type=int_range(FRAME_SKIP, 1_000_000), default=200, metavar="N",
                   help=f"emulated frames (frame skip 1; at least {FRAME_SKIP}, one frame-skip period)")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S", help="seed of the random actions")
    p.add_argument("--rtl", action="store_true", help="also run the preprocessor RTL in Verilator")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_main)
