"""``nc2600 lockstep``: the console RTL and ALE frame by frame from power-on.

The comparison and its result record are :mod:`nc2600.host.verify.lockstep`'s (per game: ``game, mapper,
frames_compared, first_ram_mismatch_frame, first_screen_mismatch_frame`` and, at the first
mismatch, the differing RAM addresses or pixels with the RTL's PC, scanline and cycle count);
this module is the command line.

Every record names the console RTL compared (``colour_clocks``); ``rtl_fps`` is the
RTL's own stepping in wall-clock frames per second (ALE and the comparison left out).

Exit 0 only when every compared frame of every game matches; 1 otherwise; 2 on bad input.
``--all`` runs every loadable game, ``--games A,B,...`` a list (a table in the order given, each
row printed once its game and the ones before it have finished; games with a mapper the RTL lacks
are listed as ``unsupported``),
``--jobs J`` in parallel processes, ``--cluster ray`` one Ray task per game. ``--json`` prints
JSON Lines: one object per game, then (``--games``/``--all``) one ``{"summary": ...}`` line.
``--results PATH`` (with ``--games``/``--all``) keeps every finished game's record in a file
(:class:`nc2600.host.verify.lockstep.ResultsFile`); run again with the same options and RTL, the games already
there are not run again: their rows come first, from the file, and a line on stderr says how
many (a sweep of CPU-hours survives being cut off).
"""
from __future__ import annotations

import json
import time

from nc2600.host.cli_types import int_range, positive_int, seed_int
from nc2600.host.errors import UserError
from nc2600.host.verify.lockstep import (MAX_FRAMES, ResultsFile, action_sequence, lockstep_game, lockstep_games,
                                         result_word,
                           run_identity)
from nc2600.host.launcher.progress import Heartbeat


def run(args) -> int:
    opened: list = []          # the --results file, whose lock is let go however the run ends
    try:
        return _run(args, opened)
    finally:
        for store in opened:
            store.close()


def _run(args, opened: list) -> int:
    from nc2600.host.games import loadable_games, resolve_rom
    if args.frames > MAX_FRAMES:
        raise UserError(f"--frames: at most {MAX_FRAMES:,}")
    if args.seed is not None and args.actions != "random":
        raise UserError("--seed seeds --actions random only (no-ops and an action file have no seed)")
    if args.seed is None:
        args.seed = 0
    if args.actions not in ("random", "noop"):
        action_sequence(args.actions, args.frames, [], 0)   # an action file is checked once, before any game runs
    from nc2600.host.cluster.ray_cluster import check_cluster_options
    check_cluster_options(args)
    multi = bool(args.all or args.games is not None)
    if args.all:
        games = list(loadable_games())
    elif args.games is not None:
        names = [g.strip() for g in args.games.split(",")]
        if not names or any(not g for g in names):
            raise UserError("--games: give a comma-separated list of ALE ROM ids without empty entries")
        games = [resolve_rom(game=g)[0] for g in names]
        if len(set(games)) != len(games):
            raise UserError("--games: a game is listed twice")
    elif args.game:
        games = [resolve_rom(game=args.game)[0]]   # raises UserError for unknown games
    else:
        raise UserError("give --game NAME, --games A,B,... or --all")
    if not multi and args.jobs != 1:
        raise UserError("--jobs needs --games or --all (one game runs in one process)")
    store = None
    if args.results is not None:
        if not multi:
            raise UserError("--results needs --games or --all")
        store = ResultsFile(args.results, lambda: run_identity(args.frames, args.seed, args.actions,
                                                               args.colour_clocks))
        opened.append(store)
        kept = [g for g in games if g in store.records]
        from nc2600.host.cluster.supervisor import set_interrupt_hint
        set_interrupt_hint(f"; the finished games are kept in {args.results}: the same command continues")
        import sys
        print(f"lockstep: {len(kept)} of {len(games)} games from {args.results} ({store.identity['rtl']}), "
              f"{len(games) - len(kept)} to run", file=sys.stderr, flush=True)
    # a line on stderr at least every HEARTBEAT_S seconds while no row is printed
    heartbeat, t0 = Heartbeat(), time.monotonic()
    config = {"colour_clocks": args.colour_clocks}   # which console RTL: in every record shown
    if not multi:   # a mapper the RTL lacks is a UserError here (RtlConsole), a table row in a sweep
        with heartbeat.running(lambda: f"lockstep: 0/1 games done, {games[0]} running, {time.monotonic() - t0:.0f} s"):
            results = [{**lockstep_game(games[0], args.frames, args.seed, args.actions,
                                        colour_clocks=args.colour_clocks), **config}]
    else:
        header = f"{'game':<22} {'mapper':<6} {'frames':>6}  {'result':<28} {'RTL frames/s (wall)':>19}"
        if not args.json:
            print(header, flush=True)
        results = []

        def show(r):
            results.append(r)
            if args.json:
                print(json.dumps(r), flush=True)
            else:
                print(f"{r['game']:<22} {r['mapper']:<6} {r['frames_compared']:>6}  {result_word(r):<28} "
                      f"{r.get('rtl_fps') or '':>19}", flush=True)
        for g in games:     # the games a results file already holds: their rows first
            if store is not None and g in store.records:
                show({**store.records[g], **config})   # (records kept before the key existed lack it)
        todo = [g for g in games if store is None or g not in store.records]
        # in the order the games finish: each record is kept (--results) as soon as its game ends,
        # so an interrupt loses no finished game while an earlier one still runs; rows are printed
        # in the order given, each once it and the ones before it have finished
        rows = lockstep_games(todo, args.frames, args.seed, args.actions, args.jobs, args.cluster, args.ray_address,
                              colour_clocks=args.colour_clocks, ordered=False)
        finished: dict = {}
        status = lambda: (f"lockstep: {len(results) + len(finished)}/{len(games)} games done, "  # noqa: E731
                          f"{time.monotonic() - t0:.0f} s")
        try:
            with heartbeat.running(status):
                waiting = iter(todo)
                nxt = next(waiting, None)
                for r in rows:
                    r = {**r, **config}
                    if store is not None:
                        store.add(r)   # before its row is printed (a failed game's error row is not kept)
                    finished[r["game"]] = r
                    while nxt is not None and nxt in finished:
                        show(finished.pop(nxt))
                        nxt = next(waiting, None)
                    heartbeat.mark()
        finally:
            rows.close()
    n = sum(r["match"] for r in results)
    from nc2600.host.report import record_figures, results as records
    records.write_figures(args, record_figures.lockstep(n, len(results), args.frames, args.colour_clocks,
                                                                store.identity["rtl"] if store is not None else None))
    if args.json:   # JSON Lines: the game's record; with --games/--all one per game (above), then a summary
        print(json.dumps({"summary": {"games": len(results), "exact": n, "frames_requested": args.frames,
                                      "actions": args.actions, "match": n == len(results), **config,
                                      **({"from_results": len(kept)} if store is not None else {})}}
                         if multi else results[0]), flush=True)
    elif multi:
        print(f"{n}/{len(results)} games exact for their compared frames (console RTL: "
              f"{_console_words(args.colour_clocks)})")
    else:
        r = results[0]
        for k, v in r.items():
            print(f"{k}: {_plain(v)}")
    return 0 if all(r["match"] for r in results) else 1


def _console_words(colour_clocks: int) -> str:
    return ("one colour clock per clock (rtl/console_cc1.v)" if colour_clocks == 1 else
            f"three colour clocks per clock (rtl/console_cc{colour_clocks}.v)")


def _plain(v) -> str:
    """A record's value as a person reads it: ``none`` and ``yes``/``no`` for Python's None and bools."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def register(subparsers, groups) -> None:
    p = subparsers.add_parser("lockstep", help="compare the console RTL with ALE frame by frame",
                              description=__doc__.split("\n\n")[0])
    which = p.add_mutually_exclusive_group()
    which.add_argument("--game", help="ALE ROM id")
    which.add_argument("--all", action="store_true", help="every loadable game")
    which.add_argument("--games", help="comma-separated ALE ROM ids (a table, as --all)")
    p.add_argument("--frames", type=positive_int, default=1000,
                   help=f"frames to compare (default 1000, at most {MAX_FRAMES:,})")
    p.add_argument("--seed", type=seed_int, default=None,
                   help="seed of the random actions (default 0; only with --actions random)")
    p.add_argument("--actions", default="random",
                   help="random | noop | PATH.npy of ALE action ids (1-D integers 0..17, at least --frames of them)")
    p.add_argument("--jobs", type=int_range(1, 256), default=1, help="parallel games with --all/--games")
    p.add_argument("--json", action="store_true",
                   help="JSON Lines: one object per game (in the order given, as soon as it and the ones "
                        "before it have finished), then with --games/--all a summary line")
    p.add_argument("--results", metavar="PATH",
                   help="with --games/--all: keep each finished game's record in PATH (JSON Lines); run again "
                        "with the same options and RTL, the games already there are not run again")
    from nc2600.host.commands import add_colour_clocks_option
    add_colour_clocks_option(p)
    from nc2600.host.cluster.ray_cluster import add_cluster_options
    add_cluster_options(p)
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=run)
