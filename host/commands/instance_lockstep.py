"""``nc2600 instance-lockstep``: whole episodes on the fabric instance RTL and on ALE int8, frame by frame.

The comparison and its record are :mod:`nc2600.host.verify.instance_lockstep`'s: per game one seeded
network (``init_params(--seed)``, its last biases centred on the calibration observations, quantised
to int8 as ``nc2600 run --policy int8`` does with ``--calib-seed``) plays episodes (episode seeds 0,
1, ...; each capped at ``--episode-frames``) on the Verilated default instance (``--colour-clocks``)
and on ALE (``--backend ale --policy int8``: no-op starts, FIRE, frame skip 4, the cap, sticky
probability 0) until at least ``--frames`` frames have been compared; every frame's phase,
decision, action, reward, lives and game over, and each episode's return, frames and decisions,
are compared; the first difference is reported with its episode, frame, decision and phase.
Any one game is replayed alone with ``--game NAME`` and the same ``--seed``, ``--calib-seed``,
``--frames`` and ``--episode-frames`` (the record names them and the parameters' SHA-256).

Exit 0 only when every compared game is exact; 1 otherwise; 2 on bad input. ``--all`` runs every
loadable game, ``--games A,B,...`` a list (a table in the order given, each row printed once its game
and the ones before it have finished), ``--jobs J`` in parallel processes, ``--cluster ray`` one Ray
task per game. ``--json`` prints JSON Lines: one object per game, then (``--games``/``--all``) one
``{"summary": ...}`` line. ``--results PATH`` (with ``--games``/``--all``) keeps every finished game's
record in a file (:class:`nc2600.host.verify.lockstep.ResultsFile`, kind ``instance-lockstep``); run
again with the same options and RTL, the games already there are not run again (a sweep of
CPU-hours survives being cut off). The Verilated instance runs about 12 frames per CPU-second: a
game of 2,000 frames takes about 3 CPU-minutes, plus one build of the instance per screen height
(five heights among ALE's games, a few minutes each, cached).
"""
from __future__ import annotations

import json
import sys
import time

from nc2600.host.errors import UserError


def run(args) -> int:
    opened: list = []          # the --results file, whose lock is let go however the run ends
    try:
        return _run(args, opened)
    finally:
        for store in opened:
            store.close()


def _run(args, opened: list) -> int:
    from nc2600.host.cluster.ray_cluster import check_cluster_options
    from nc2600.host.launcher.progress import Heartbeat
    from nc2600.host.games import loadable_games, resolve_rom
    from nc2600.host.verify.instance_lockstep import (instance_lockstep_games, instance_lockstep_job, result_word,
                                                      run_identity)
    from nc2600.host.verify.lockstep import ResultsFile
    episode_frames = args.frames if args.episode_frames is None else args.episode_frames
    check_cluster_options(args)
    multi = bool(args.all or args.games is not None)
    if args.all:
        games = list(loadable_games())
    elif args.games is not None:
        names = [g.strip() for g in args.games.split(",")]
        if any(not g for g in names):
            raise UserError("--games: give a comma-separated list of ALE ROM ids without empty entries")
        games = [resolve_rom(game=g)[0] for g in names]
        if len(set(games)) != len(games):
            raise UserError("--games: a game is listed twice")
    elif args.game:
        games = [resolve_rom(game=args.game)[0]]
    else:
        raise UserError("give --game NAME, --games A,B,... or --all")
    if not multi and args.jobs != 1:
        raise UserError("--jobs needs --games or --all (one game runs in one process)")
    store = kept = None
    if args.results is not None:
        if not multi:
            raise UserError("--results needs --games or --all")
        store = ResultsFile(args.results, lambda: run_identity(args.frames, episode_frames, args.seed, args.calib_seed,
                                                               args.colour_clocks), kind="instance-lockstep")
        opened.append(store)
        kept = [g for g in games if g in store.records]
        from nc2600.host.cluster.supervisor import set_interrupt_hint
        set_interrupt_hint(f"; the finished games are kept in {args.results}: the same command continues")
        print(f"instance-lockstep: {len(kept)} of {len(games)} games from {args.results} ({store.identity['rtl']}), "
              f"{len(games) - len(kept)} to run", file=sys.stderr, flush=True)
    heartbeat, t0 = Heartbeat(), time.monotonic()
    results: list = []

    def show(r):
        results.append(r)
        if args.json:
            print(json.dumps(r), flush=True)
        else:
            print(f"{r['game']:<22} {r['mapper']:<6} {r['frames_compared']:>7} {r.get('decisions_compared', 0):>9}  "
                  f"{result_word(r):<40} {r.get('instance_fps') or '':>12}", flush=True)

    if not args.json:
        print(f"{'game':<22} {'mapper':<6} {'frames':>7} {'decisions':>9}  {'result':<40} {'instance fps':>12}",
              flush=True)
    job = (games[0], args.frames, episode_frames, args.seed, args.calib_seed, args.colour_clocks)
    if not multi:
        with heartbeat.running(lambda: f"instance-lockstep: {games[0]} running, {time.monotonic() - t0:.0f} s"):
            show(instance_lockstep_job(job))
    else:
        for g in games:     # the games a results file already holds: their rows first
            if store is not None and g in store.records:
                show(store.records[g])
        todo = [g for g in games if store is None or g not in store.records]
        # in the order the games finish (each kept at once), rows printed in the order given
        rows = instance_lockstep_games(todo, args.frames, episode_frames, args.seed, args.calib_seed,
                                       args.colour_clocks, args.jobs, args.cluster, args.ray_address, ordered=False)
        finished: dict = {}
        status = lambda: (f"instance-lockstep: {len(results) + len(finished)}/{len(games)} games done, "  # noqa: E731
                          f"{time.monotonic() - t0:.0f} s")
        try:
            with heartbeat.running(status):
                waiting = iter(todo)
                nxt = next(waiting, None)
                for r in rows:
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
    frames = sum(r["frames_compared"] for r in results)
    from nc2600.host.report import record_figures, results as records
    records.write_figures(args, record_figures.instance_lockstep(
        n, len(results), args.frames, args.colour_clocks, store.identity["rtl"] if store is not None else None,
        [r["game"] for r in results if not r["match"]]))
    summary = {"games": len(results), "exact": n, "frames_compared": frames, "frames_requested": args.frames,
               "episode_frames": episode_frames, "seed": args.seed, "calib_seed": args.calib_seed,
               "colour_clocks": args.colour_clocks, "match": n == len(results),
               **({"from_results": len(kept)} if store is not None else {})}
    if args.json:
        if multi:
            print(json.dumps({"summary": summary}), flush=True)
    else:
        print(f"{n}/{len(results)} games exact over {frames:,} compared frames (the instance with the 16 x 16 "
              f"array engine, {args.colour_clocks} colour clock{'s' if args.colour_clocks > 1 else ''} per clock, "
              f"against ALE --policy int8)")
    return 0 if n == len(results) else 1


def register(subparsers, groups) -> None:
    from nc2600.hls_models.frame_skip import MAX_EPISODE_FRAMES
    from nc2600.host.commands import add_colour_clocks_option
    from nc2600.host.cli_types import int_range, non_negative_int
    p = subparsers.add_parser("instance-lockstep",
                              help="compare whole episodes on the fabric instance RTL with ALE int8, frame by frame",
                              description=__doc__.split("\n\n")[0])
    which = p.add_mutually_exclusive_group()
    which.add_argument("--game", help="ALE ROM id")
    which.add_argument("--all", action="store_true", help="every loadable game")
    which.add_argument("--games", help="comma-separated ALE ROM ids (a table, as --all)")
    p.add_argument("--frames", type=int_range(35, MAX_EPISODE_FRAMES), default=2000, metavar="F",
                   help="frames to compare per game, at least (whole episodes; default 2000: about 3 CPU-minutes "
                        "per game on the Verilated instance)")
    p.add_argument("--episode-frames", type=int_range(35, MAX_EPISODE_FRAMES), default=None, metavar="F",
                   help="episode cap (at least 35 frames: up to 30 no-op frames and FIRE; default: --frames, at "
                        "most the instance's 24-bit EP_FRAMES)")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S",
                   help="seed of every game's network, init_params(S) (default 0)")
    p.add_argument("--calib-seed", type=non_negative_int, default=0, metavar="S",
                   help="run seed of the int8 calibration observations (default 0, as nc2600 run --seed 0)")
    p.add_argument("--jobs", type=int_range(1, 256), default=1, help="parallel games with --all/--games")
    p.add_argument("--json", action="store_true",
                   help="JSON Lines: one object per game (in the order given), then with --games/--all a summary")
    p.add_argument("--results", metavar="PATH",
                   help="with --games/--all: keep each finished game's record in PATH (JSON Lines); run again "
                        "with the same options and RTL, the games already there are not run again")
    add_colour_clocks_option(p)
    from nc2600.host.cluster.ray_cluster import add_cluster_options
    add_cluster_options(p)
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=run)
