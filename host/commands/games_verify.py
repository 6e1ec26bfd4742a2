"""``nc2600 games verify``: check the game rules table against ALE, frame by frame.

The check is :mod:`nc2600.host.verify.games_verify`'s (ALE with the project's settings plays random actions;
after every frame the rule's reward, game over and lives, computed from ALE's RAM, are
compared with ALE's own); this module is the command line.

``--json`` prints JSON Lines: one object per run (game and mode), then one ``{"summary": ...}``
line. Exit code 0 only when every count of mismatches is zero, 1 otherwise, 2 on bad input.
"""
from __future__ import annotations

import json
import time

from nc2600.host.commands import DefaultsFormatter
from nc2600.host.cli_types import int_range, probability, seed_int
from nc2600.host.errors import UserError
from nc2600.host.verify.games_verify import CI_SAMPLE, verify_games
from nc2600.host.launcher.progress import Heartbeat


def run(args) -> int:
    from nc2600.hls_models.game_rules import RuleError, load_rules
    from nc2600.host.cluster.ray_cluster import check_cluster_options
    check_cluster_options(args)

    try:
        rules = load_rules()
    except RuleError as exc:
        raise UserError(f"game rules table: {exc}") from None
    if args.all:
        names = sorted(rules)
    elif args.sample:
        names = list(CI_SAMPLE)
    elif args.game:
        names = []
        from nc2600.host.games import check_game_name
        for g in args.game:
            check_game_name(g, rules)
            names.append(g)
    else:
        raise UserError("give --game NAME (repeatable), --sample or --all")

    if args.all_modes and args.mode is not None:
        raise UserError("give --mode M or --all-modes, not both")
    for n in names:
        if args.mode is not None and args.mode not in rules[n].modes:
            raise UserError(f"mode {args.mode} is not available for {n} (modes: {', '.join(map(str, rules[n].modes))})")
        if args.difficulty is not None and args.difficulty not in rules[n].difficulties:
            raise UserError(f"difficulty {args.difficulty} is not available for {n} "
                            f"(difficulties: {', '.join(map(str, rules[n].difficulties))})")
    if args.all_modes:
        jobs = [(n, args.frames, args.seed, args.max_episode_frames, args.poke, m, args.difficulty)
                for n in names for m in rules[n].modes]
    else:
        jobs = [(n, args.frames, args.seed, args.max_episode_frames, args.poke, args.mode, args.difficulty)
                for n in names]
    results = []
    show = not args.json
    if show:
        hdr = (f"{'game':<20} {'mode':>4} {'frames':>7} {'episodes':>8} {'game_overs':>10} {'reward_mm':>9} "
               f"{'terminal_mm':>11} {'lives_mm':>8}")
        print(hdr, flush=True)

    def emit(res):
        results.append(res)
        if args.json:
            print(json.dumps(res), flush=True)
        if show:
            line = (f"{res['game']:<20} {res['mode']:>4} {res['frames']:>7} {res['episodes']:>8} "
                    f"{res['game_overs']:>10} "
                    f"{res['reward_mismatches']:>9} {res['terminal_mismatches']:>11} {res['lives_mismatches']:>8}")
            if res["first_mismatch"]:
                line += f"  first: {res['first_mismatch']}"
            print(line, flush=True)

    rows = verify_games(jobs, args.jobs, args.cluster, args.ray_address)
    # a line on stderr at least every HEARTBEAT_S seconds while no row is printed
    heartbeat, t0 = Heartbeat(), time.monotonic()
    try:
        with heartbeat.running(lambda: f"games verify: {len(results)}/{len(jobs)} runs done, "
                                       f"{time.monotonic() - t0:.0f} s"):
            for res in rows:
                emit(res)
                heartbeat.mark()
    finally:
        rows.close()

    bad = [r for r in results if r["reward_mismatches"] or r["terminal_mismatches"] or r["lives_mismatches"]]
    from nc2600.host.report import record_figures, results as records
    records.write_figures(args, record_figures.games_verify(results, args.frames))
    if args.json:   # JSON Lines: one object per run (above), then the summary
        print(json.dumps({"summary": {"frames_per_game": args.frames, "seed": args.seed, "poke": args.poke,
                                      "runs": len(results), "games": len({r["game"] for r in results}),
                                      "games_with_mismatches": sorted({r["game"] for r in bad}), "ok": not bad}}),
              flush=True)
    else:
        total = sum(r["frames"] for r in results)
        print(f"{len(results)} runs, {len(set(r['game'] for r in results))} games, {total} frames, "
              f"{len(bad)} with mismatches"
              + (": " + ", ".join(f"{r['game']}:{r['mode']}" for r in bad) if bad else ""))
    return 1 if bad else 0


def register(subparsers, groups) -> None:
    """Add ``nc2600 games verify``."""
    p = groups["games"].add_parser(
        "verify", help="check the game rules table against ALE frame by frame",
        description="Play random actions in ale-py and compare the reward, game over and lives that the "
                    "game rules table computes from ALE's RAM after every frame with ALE's own values.",
        formatter_class=DefaultsFormatter)
    sel = p.add_mutually_exclusive_group()
    sel.add_argument("--game", action="append", metavar="NAME", help="game to check (repeatable)")
    sel.add_argument("--all", action="store_true", help="check every game in the table")
    sel.add_argument("--sample", action="store_true", help=f"check the CI sample: {', '.join(CI_SAMPLE)}")
    p.add_argument("--frames", type=int_range(1, 10**7), default=20000, metavar="N",
                   help="random-action frames per game")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S",
                   help="seed of the action choice and of ALE's random_seed")
    p.add_argument("--max-episode-frames", type=int_range(0, 10**9), default=18000, metavar="N",
                   help="reset_game after this many frames of one episode even without game over (0: never)")
    p.add_argument("--poke", type=probability, default=0.0, metavar="P",
                   help="fraction of frames before which one watched RAM byte is overwritten (setRAM) to reach rare "
                        "branches such as game over; 0 for plain random play")
    p.add_argument("--mode", type=int_range(0, 255), default=None, metavar="M",
                   help="game mode; None: each game's ALE default mode")
    p.add_argument("--all-modes", action="store_true",
                   help="check every game mode of each selected game (--frames each)")
    p.add_argument("--difficulty", type=int_range(0, 255), default=None, metavar="D",
                   help="difficulty switch setting; None: ALE's default, 0")
    p.add_argument("--jobs", type=int_range(1, 256), default=1, metavar="N", help="games checked in parallel")
    p.add_argument("--json", action="store_true",
                   help="JSON Lines: one object per game (and mode) as each finishes, then a summary line")
    from nc2600.host.cluster.ray_cluster import add_cluster_options
    add_cluster_options(p)
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=run)
