"""``nc2600 games verify``: check the game rules table against ALE, frame by frame.

For each game, ale-py 0.12 (``repeat_action_probability = 0``, ``frame_skip = 1``) plays
random actions from the game's minimal action set over several episodes (``reset_game``
at game over, and after ``--max-episode-frames`` frames).  After every single frame the
rule from :mod:`hls_models.game_rules` is evaluated on ALE's own RAM (``getRAM()``, plus
the SuperChip cartridge RAM for games that read it) and its reward, game over and lives
are compared with ``act``'s return value, ``game_over()`` and ``lives()``.  After each
reset the rule state is rebuilt from the RAM left by ALE's reset sequence and game over
and lives are compared there too.

Exit code 0 only when every count of mismatches is zero, 1 otherwise, 2 on bad input.
"""
from __future__ import annotations

from host.cli import DefaultsFormatter

import json
import sys
import time

from host.errors import UserError, int_range, probability, seed_int

#: Games the CI sample checks (fast, and covering the rule kinds: BCD with byte order,
#: binary scores, wrap, latches, counters, cartridge RAM).
CI_SAMPLE = ("breakout", "pong", "asteroids", "qbert", "klax", "tennis")


def _xram_reader(ale):
    """128 SuperChip RAM bytes of ``ale`` (:func:`host.ale_oracle.superchip_ram`).

    Raises:
        RuntimeError: the cartridge has no SuperChip RAM (a rule that reads it on another game).
    """
    from host.ale_oracle import superchip_ram
    x = superchip_ram(ale)
    if x is None:
        raise RuntimeError("no SuperChip cartridge RAM in the ALE state")
    return x


def _rule_constants(rule) -> list[int]:
    """Byte values the rule compares against (constants 0..255 in its text), and their neighbours."""
    import ast
    vals = set()
    for src in (rule.step_source, rule.reward_source, rule.terminal_source, rule.lives_source):
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value <= 255:
                vals.update({node.value, (node.value - 1) & 0xFF, (node.value + 1) & 0xFF})
    return sorted(vals)


def verify_game(rule, frames: int, seed: int, max_episode_frames: int, poke: float = 0.0,
                mode: int | None = None, difficulty: int | None = None) -> dict:
    """Run ALE and the rule side by side for ``frames`` frames; return the counts.

    ``poke`` > 0 also writes, before that fraction of the frames, one RAM byte the rule
    watches (``setRAM``) with a value the rule compares against (or a random byte), so
    that rarely reached branches (game over of a chess game, score wrap) are exercised;
    ALE's settings and the rule still see the same RAM after each frame, so the
    comparison stays exact.  ``mode`` / ``difficulty`` select a game mode and difficulty
    switch setting (default: ALE's, the rule's ``default_mode`` and 0).

    Returns a dict with ``game, frames, episodes, game_overs, reward_mismatches,
    terminal_mismatches, lives_mismatches, first_mismatch`` (a short text or None),
    ``seconds``.
    """
    import numpy as np
    from ale_py import roms

    from hls_models.game_rules import RuleState
    from host.ale_oracle import open_ale

    ale = open_ale(roms.get_rom_path(rule.name), random_seed=seed, mode=mode, difficulty=difficulty)
    actions = ale.getMinimalActionSet()
    rng = np.random.default_rng(seed)
    read_x = _xram_reader if rule.uses_xram else (lambda _ale: None)

    state = RuleState(rule, mode)
    counts = {"reward": 0, "terminal": 0, "lives": 0}
    first = None

    def note(kind, frame, ours, ale_val):
        nonlocal first
        counts[kind] += 1
        if first is None:
            first = f"frame {frame}: {kind} ours={ours} ale={ale_val}"

    def start_episode(frame):
        ale.reset_game()
        _, term, lives = state.reset(ale.getRAM(), read_x(ale))
        if term != ale.game_over():
            note("terminal", frame, term, ale.game_over())
        if lives != ale.lives():
            note("lives", frame, lives, ale.lives())

    t0 = time.perf_counter()
    episodes, game_overs, ep_frames = 1, 0, 0
    start_episode(0)
    picks = rng.integers(0, len(actions), size=frames)
    poke_addrs = [a - 0x80 for a in rule.ram_addresses]
    poke_vals = _rule_constants(rule)
    for f in range(frames):
        if poke and poke_addrs and rng.random() < poke:
            addr = poke_addrs[rng.integers(len(poke_addrs))]
            value = poke_vals[rng.integers(len(poke_vals))] if rng.random() < 0.75 else int(rng.integers(256))
            ale.setRAM(addr, value)
        reward = ale.act(actions[picks[f]])
        ours_r, ours_t, ours_l = state.step(ale.getRAM(), read_x(ale))
        over = ale.game_over()
        if ours_r != reward:
            note("reward", f + 1, ours_r, reward)
        if ours_t != over:
            note("terminal", f + 1, ours_t, over)
        lives = ale.lives()
        if ours_l != lives:
            note("lives", f + 1, ours_l, lives)
        ep_frames += 1
        if over or (max_episode_frames and ep_frames >= max_episode_frames):
            game_overs += int(over)
            if f + 1 < frames:
                episodes += 1
                ep_frames = 0
                start_episode(f + 1)
    return {
        "game": rule.name, "mode": state.mode, "frames": frames, "episodes": episodes, "game_overs": game_overs,
        "reward_mismatches": counts["reward"], "terminal_mismatches": counts["terminal"],
        "lives_mismatches": counts["lives"], "first_mismatch": first,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def _run_one(job):
    rule_name, frames, seed, max_ep, poke, mode, difficulty = job
    from hls_models.game_rules import load_rules
    return verify_game(load_rules()[rule_name], frames, seed, max_ep, poke, mode, difficulty)


def run(args) -> int:
    from hls_models.game_rules import RuleError, load_rules
    from host.cluster import check_cluster_options
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
        from host.games import check_game_name
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
        hdr = f"{'game':<20} {'mode':>4} {'frames':>7} {'episodes':>8} {'game_overs':>10} {'reward_mm':>9} {'terminal_mm':>11} {'lives_mm':>8}"
        print(hdr, flush=True)

    def emit(res):
        results.append(res)
        if show:
            line = (f"{res['game']:<20} {res['mode']:>4} {res['frames']:>7} {res['episodes']:>8} {res['game_overs']:>10} "
                    f"{res['reward_mismatches']:>9} {res['terminal_mismatches']:>11} {res['lives_mismatches']:>8}")
            if res["first_mismatch"]:
                line += f"  first: {res['first_mismatch']}"
            print(line, flush=True)

    if args.cluster == "ray":
        from host.cluster import ray_imap
        for res in ray_imap(_run_one, jobs, args.ray_address, args.jobs):
            emit(res)
    elif args.jobs > 1 and len(jobs) > 1:
        from multiprocessing import get_context
        with get_context("spawn").Pool(args.jobs) as pool:
            for res in pool.imap(_run_one, jobs):
                emit(res)
    else:
        for job in jobs:
            emit(_run_one(job))

    bad = [r for r in results if r["reward_mismatches"] or r["terminal_mismatches"] or r["lives_mismatches"]]
    if args.json:
        json.dump({"frames_per_game": args.frames, "seed": args.seed, "poke": args.poke, "games": results,
                   "games_with_mismatches": sorted({r["game"] for r in bad}), "ok": not bad}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        total = sum(r["frames"] for r in results)
        print(f"{len(results)} runs, {len(set(r['game'] for r in results))} games, {total} frames, "
              f"{len(bad)} with mismatches" + (": " + ", ".join(f"{r['game']}:{r['mode']}" for r in bad) if bad else ""))
    return 1 if bad else 0


def register(subparsers, groups) -> None:
    """Add ``nc2600 games verify``."""
    import argparse
    p = groups["games"].add_parser(
        "verify", help="check the game rules table against ALE frame by frame",
        description="Play random actions in ale-py and compare the reward, game over and lives that the "
                    "game rules table computes from ALE's RAM after every frame with ALE's own values.",
        formatter_class=DefaultsFormatter)
    sel = p.add_mutually_exclusive_group()
    sel.add_argument("--game", action="append", metavar="NAME", help="game to check (repeatable)")
    sel.add_argument("--all", action="store_true", help="check every game in the table")
    sel.add_argument("--sample", action="store_true", help=f"check the CI sample: {', '.join(CI_SAMPLE)}")
    p.add_argument("--frames", type=int_range(1, 10**7), default=20000, metavar="N", help="random-action frames per game")
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
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    from host.cluster import add_cluster_options
    add_cluster_options(p)
    p.set_defaults(func=run)
