"""``nc2600 lockstep``: the console RTL and ALE frame by frame from power-on.

ale-py 0.12 (``frame_skip`` 1, ``repeat_action_probability`` 0, default system seed) loads
the ROM; the RTL (:class:`host.rtl_console.RtlConsole`) replays the same power-on and reset
sequence on the Verilated console. Then both get the same action each frame, and after
every frame the RIOT RAM (``getRAM``), the SuperChip cartridge RAM (from ALE's serialized
state) and the screen (``getScreen`` palette indices) are compared.

Per game: ``game, mapper, frames_compared, first_ram_mismatch_frame,
first_screen_mismatch_frame`` (null when none; frame 0 is the first ``act``), and at the
first mismatch the differing RAM addresses (ALE / RTL values) or the differing pixel count
and first pixel, with the RTL's CPU PC and the frame's scanline count at the stop.

At ALE's game over (ALE stops emulating there) both run ALE's ``reset_game`` sequence and
the comparison goes on (``resets`` counts them).

Exit 0 only when every compared frame of every game matches; 1 otherwise; 2 on bad input.
``--all`` runs every loadable game, ``--games A,B,...`` a list (a table, each row printed as
the game finishes; games with a mapper the RTL lacks are listed as ``unsupported``),
``--jobs J`` in parallel processes.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from host.errors import UserError, int_range, positive_int, seed_int


#: Upper bound of ``--frames`` (about 9 days of 2600 time; keeps allocations bounded).
MAX_FRAMES = 50_000_000


def load_action_file(spec: str):
    """``(n,)`` int64 ALE action ids from a ``.npy`` file; :class:`UserError` unless it holds a
    non-empty 1-D integer array of values 0..17 (shared by ``lockstep`` and ``rtl-play``)."""
    import numpy as np
    p = Path(spec)
    if not spec or not p.is_file():
        raise UserError(f"--actions: {spec!r} is not random, noop or an existing .npy file")
    try:
        a = np.load(p, allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - any load failure is bad input
        raise UserError(f"--actions: cannot read {spec}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    if not isinstance(a, np.ndarray) or a.ndim != 1 or a.size == 0 or not np.issubdtype(a.dtype, np.integer) \
            or a.min() < 0 or a.max() > 17:
        raise UserError("--actions: need a non-empty 1-D integer array of ALE action ids 0..17")
    return a.astype(np.int64)


def _actions(spec: str, n: int, minimal: list[int], seed: int):
    import numpy as np
    if spec == "noop":
        return np.zeros(n, np.int64)
    if spec == "random":
        rng = np.random.default_rng(seed)
        return np.asarray(minimal, np.int64)[rng.integers(0, len(minimal), n)]
    a = load_action_file(spec)
    if len(a) < n:
        raise UserError(f"--actions: {spec} holds {len(a)} actions, fewer than --frames {n}")
    return a[:n]


def lockstep_game(game: str, frames: int, seed: int = 0, actions: str = "random",
                  stop_at_mismatch: bool = True) -> dict:
    """Run ``game`` in ALE and the RTL side by side; return the result record (see module)."""
    import ale_py
    import numpy as np

    from host.ale_oracle import open_ale, superchip_ram
    from host.games import resolve_rom
    from host.rtl_console import RtlConsole

    name, path = resolve_rom(game=game)
    rtl = RtlConsole(name, path)
    ale = open_ale(path)
    minimal = [int(a.value) if hasattr(a, "value") else int(a) for a in ale.getMinimalActionSet()]
    acts = _actions(actions, frames, minimal, seed)
    rtl.power_on()
    rec = {"game": name, "mapper": rtl.mapper, "frames_requested": frames, "actions": actions,
           "seed": seed if actions == "random" else None, "frames_compared": 0,
           "first_ram_mismatch_frame": None, "first_screen_mismatch_frame": None}
    act_enum = {int(a.value): a for a in ale_py.Action}
    screen = np.zeros((rtl.height, 160), np.uint8)
    rtl_time = 0.0
    for f, a in enumerate(acts):
        ale.act(act_enum[int(a)])
        t0 = time.perf_counter()
        res = rtl.act(int(a))
        rtl_time += time.perf_counter() - t0
        rec["frames_compared"] = f + 1
        ar, rr = ale.getRAM(), rtl.ram()
        if rtl.sc:
            ax = superchip_ram(ale)
            rx = rtl.cart_ram()
            ar, rr = np.concatenate([ar, ax]), np.concatenate([rr, rx])
        if rec["first_ram_mismatch_frame"] is None and not np.array_equal(ar, rr):
            d = np.nonzero(ar != rr)[0]
            rec["first_ram_mismatch_frame"] = f
            rec["ram_mismatch"] = {
                "addresses": [(f"${0x80 + int(i):02X}" if i < 128 else f"SC${int(i) - 128:02X}") for i in d[:16]],
                "ale": [int(v) for v in ar[d[:16]]], "rtl": [int(v) for v in rr[d[:16]]],
                "pc": f"${res.pc:04X}", "scanlines": res.scanlines, "status": res.status}
        ale.getScreen(screen)
        if rec["first_screen_mismatch_frame"] is None and not np.array_equal(screen, rtl.screen):
            ys, xs = np.nonzero(screen != rtl.screen)
            rec["first_screen_mismatch_frame"] = f
            rec["screen_mismatch"] = {
                "pixels": int(len(ys)), "first_row": int(ys[0]), "first_x": int(xs[0]),
                "ale": int(screen[ys[0], xs[0]]), "rtl": int(rtl.screen[ys[0], xs[0]]),
                "pc": f"${res.pc:04X}", "scanlines": res.scanlines}
        if stop_at_mismatch and rec["first_ram_mismatch_frame"] is not None and \
                rec["first_screen_mismatch_frame"] is not None:
            break
        if ale.game_over():
            # ALE refuses to emulate past game over: both sides run ALE's reset_game
            ale.reset_game()
            rtl.reset_game()
            rec["resets"] = rec.get("resets", 0) + 1
    rec["rtl_fps"] = round(rec["frames_compared"] / rtl_time, 1) if rtl_time > 0 else None
    rec["match"] = rec["first_ram_mismatch_frame"] is None and rec["first_screen_mismatch_frame"] is None
    return rec


def _one(args):
    game, frames, seed, actions = args
    from hls_models.cartridge import detect_mapper
    from host.games import resolve_rom
    from hw.console import SUPPORTED
    name, path = resolve_rom(game=game)
    mapper = detect_mapper(Path(path).read_bytes())
    if mapper not in SUPPORTED:
        return {"game": name, "mapper": mapper, "frames_compared": 0, "first_ram_mismatch_frame": None,
                "first_screen_mismatch_frame": None, "match": False, "unsupported": True}
    try:
        return lockstep_game(name, frames, seed, actions)
    except Exception as exc:  # noqa: BLE001 - one game's failure is a table row
        return {"game": name, "mapper": mapper, "frames_compared": 0, "first_ram_mismatch_frame": None,
                "first_screen_mismatch_frame": None, "match": False, "error": str(exc)[:200]}


def _result_word(r: dict) -> str:
    if r.get("unsupported"):
        return "unsupported"
    if r.get("error"):
        return "error: " + r["error"]
    if r["match"]:
        return "exact"
    parts = []
    if r["first_ram_mismatch_frame"] is not None:
        parts.append(f"RAM@{r['first_ram_mismatch_frame']}")
    if r["first_screen_mismatch_frame"] is not None:
        parts.append(f"screen@{r['first_screen_mismatch_frame']}")
    return " ".join(parts)


def run(args) -> int:
    from host.games import loadable_games, resolve_rom
    if args.frames > MAX_FRAMES:
        raise UserError(f"--frames: at most {MAX_FRAMES:,}")
    if args.actions not in ("random", "noop"):
        _actions(args.actions, args.frames, [], 0)   # an action file is checked once, before any game runs
    from host.cluster import check_cluster_options
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
    if not multi:
        from hls_models.cartridge import detect_mapper
        from hw.console import SUPPORTED
        mapper = detect_mapper(Path(resolve_rom(game=games[0])[1]).read_bytes())
        if mapper not in SUPPORTED:
            raise UserError(f"{games[0]}: mapper {mapper} is not implemented by the console RTL yet")
        results = [lockstep_game(games[0], args.frames, args.seed, args.actions)]
    else:
        work = [(g, args.frames, args.seed, args.actions) for g in games]
        header = f"{'game':<22} {'mapper':<6} {'frames':>6}  {'result':<28} {'RTL fps':>8}"
        if not args.json:
            print(header, flush=True)
        results = []
        pool = None
        if args.cluster == "ray":
            from host.cluster import ray_imap
            rows = ray_imap(_one, work, args.ray_address, args.jobs)
        elif args.jobs > 1:
            import multiprocessing as mp
            pool = mp.get_context("spawn").Pool(args.jobs)
            rows = pool.imap(_one, work, chunksize=1)
        else:
            rows = map(_one, work)
        try:
            for r in rows:       # each row as soon as it (and the ones before it) finished
                results.append(r)
                if not args.json:
                    print(f"{r['game']:<22} {r['mapper']:<6} {r['frames_compared']:>6}  {_result_word(r):<28} "
                          f"{r.get('rtl_fps') or '':>8}", flush=True)
        finally:
            if pool is not None:
                pool.terminate()
            if hasattr(rows, "close"):
                rows.close()
    if args.json:
        json.dump(results if multi else results[0], sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif multi:
        n = sum(r["match"] for r in results)
        print(f"{n}/{len(results)} games exact for their compared frames")
    else:
        r = results[0]
        for k, v in r.items():
            print(f"{k}: {v}")
    return 0 if all(r["match"] for r in results) else 1


def register(subparsers, groups) -> None:
    p = subparsers.add_parser("lockstep", help="compare the console RTL with ALE frame by frame",
                              description=__doc__.split("\n\n")[0])
    which = p.add_mutually_exclusive_group()
    which.add_argument("--game", help="ALE ROM id")
    which.add_argument("--all", action="store_true", help="every loadable game")
    which.add_argument("--games", help="comma-separated ALE ROM ids (a table, as --all)")
    p.add_argument("--frames", type=positive_int, default=1000, help="frames to compare (default 1000)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of the random actions (only with --actions random)")
    p.add_argument("--actions", default="random",
                   help="random | noop | PATH.npy of ALE action ids (1-D integers 0..17, at least --frames of them)")
    p.add_argument("--jobs", type=int_range(1, 256), default=1, help="parallel games with --all/--games")
    p.add_argument("--json", action="store_true", help="JSON output")
    from host.cluster import add_cluster_options
    add_cluster_options(p)
    p.set_defaults(func=run)
