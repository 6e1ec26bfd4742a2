"""``nc2600 input-probe``: where each game first reads its controller in the frame after a
decision, how much of the decision's wait the instance hides behind the console there, and the
frames/s per instance that gives at a clock (:mod:`nc2600.host.verify.input_probe`).

Prints one JSON line per game (``--json``) or a table, and with ``--all`` a summary; ``--out
FILE`` keeps the per-game lines (JSON Lines, written when the probe is done); ``--record FILE``
appends the summary's figures as results records."""
from __future__ import annotations

import json
import sys

from nc2600.host.commands import DefaultsFormatter
from nc2600.host.cli_types import int_range

from nc2600.host.errors import UserError

#: console_cc3's routed Fmax on the LIFCL-40-9, seed 1, in MHz (the results record "console_cc3 Fmax on
#: LIFCL-40-9, placed and routed, seed 1", checked by tests/synth/test_pnr_record.py): the default clock
DEFAULT_CLOCK_MHZ = 71.72


def register(subparsers, groups) -> None:
    p = subparsers.add_parser("input-probe", help="where each game first reads its controller after a decision; "
                              "the decision's wait hidden and frames/s per instance",
                              description=__doc__.split("\n\n")[0],
                              formatter_class=DefaultsFormatter)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--game", help="ALE ROM id")
    which.add_argument("--games", help="comma-separated ALE ROM ids")
    which.add_argument("--all", action="store_true", help="every loadable game the console RTL runs")
    p.add_argument("--decisions", type=int_range(1, 10_000), default=25, help="decisions per game")
    p.add_argument("--seed", type=int_range(0, 2**31 - 1), default=0, help="episode seed (no-ops, random actions)")
    p.add_argument("--clock-mhz", type=float, default=DEFAULT_CLOCK_MHZ,
                   help="fabric clock for frames/s (default: console_cc3's LIFCL-40-9 Fmax, seed 1)")
    p.add_argument("--json", action="store_true", help="one JSON object per game")
    p.add_argument("--out", metavar="FILE", default=None, help="write the per-game JSON lines here")
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=main)


def main(args) -> int:
    import math

    import numpy as np

    from nc2600.host.games import check_game_name, loadable_games
    from nc2600.host.verify.input_probe import frames_per_second, probe_game
    if not (math.isfinite(args.clock_mhz) and 0 < args.clock_mhz <= 10_000):
        raise UserError(f"--clock-mhz must be in (0, 10000], not {args.clock_mhz}")
    if args.all:
        games = list(loadable_games())
    else:
        games = [g.strip() for g in (args.games.split(",") if args.games else [args.game]) if g.strip()]
        if not games:
            raise UserError("--games: no game named")
        for g in games:
            check_game_name(g)
    from nc2600.hls_models.cartridge import SUPPORTED_MAPPERS, detect_mapper
    from nc2600.host.games import resolve_rom
    rows, skipped = [], []
    for g in games:
        name, path = resolve_rom(game=g)
        with open(path, "rb") as fh:
            mapper = detect_mapper(fh.read())
        if mapper not in SUPPORTED_MAPPERS:
            skipped.append(f"{name} ({mapper})")
            continue
        p = probe_game(name, args.decisions, args.seed)
        p["fps_hidden"] = frames_per_second(p, args.clock_mhz)
        p["fps_serial"] = frames_per_second(p, args.clock_mhz, p["serial_stall"])
        p["clock_mhz"] = args.clock_mhz
        rows.append(p)
        if args.json:
            print(json.dumps(p), flush=True)
        else:
            f = p["median_first_input"]
            print(f"{name:22s} first read at {'-' if f is None else f'{f:,.0f}':>7s} clocks  "
                  f"stall {p['mean_stall']:8,.0f} of {p['serial_stall']:,}  "
                  f"hidden {100 * p['hidden_fraction']:5.1f} %  {p['fps_hidden']:7,.0f} frames/s "
                  f"(serial {p['fps_serial']:,.0f})", flush=True)
    if skipped:
        print(f"nc2600 input-probe: not run (mapper not in the console RTL): {', '.join(skipped)}", file=sys.stderr)
    if args.out:
        from nc2600.host.rundir import atomic_write_bytes
        atomic_write_bytes(args.out, "".join(json.dumps(p) + "\n" for p in rows).encode("utf-8"))
    if len(rows) > 1:
        hid = np.array([p["hidden_fraction"] for p in rows])
        fh = np.array([p["fps_hidden"] for p in rows])
        fs = np.array([p["fps_serial"] for p in rows])
        print(f"{len(rows)} games: hidden {100 * np.median(hid):.1f} % of the wait (median; all of it in "
              f"{int(np.sum(hid >= 0.999))}); frames/s per instance at {args.clock_mhz:g} MHz: median "
              f"{np.median(fh):,.0f} hidden, {np.median(fs):,.0f} waiting (min {fh.min():,.0f}, max {fh.max():,.0f})")
        from nc2600.host.report import record_figures
        from nc2600.host.report.results import write_figures
        write_figures(args, record_figures.input_probe(rows, skipped, args.decisions, args.seed, args.clock_mhz,
                                                       args.clock_mhz == DEFAULT_CLOCK_MHZ))
    return 0
