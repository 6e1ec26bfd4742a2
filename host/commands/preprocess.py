"""``nc2600 preprocess``: the frame preprocessor model (and RTL) against ALE's own frames.

Runs ale-py (``repeat_action_probability = 0``, one uniformly random minimal-set action held
for each frame-skip period of 4 frames), takes every emulated frame's palette-index screen
(``getScreen``) and feeds it to

- the integer model: :func:`hls_models.palette.to_grey` then :mod:`hls_models.preprocess`
  (max of the last two frames, fixed-point 84 x 84 area resize, stack of 4), pushing one
  observation per frame-skip period (the 4th frame, pooled with the 3rd), as the launcher does;
- the float reference: ALE's ``getScreenGrayscale``, max-pooled, area-resized in float
  (:func:`hls_models.preprocess.float_reference`); reported as ``max_abs_diff_vs_float``
  (grey levels, over all pixels of all observations);
- with ``--rtl``: the streaming RTL (:mod:`hw.preprocessor`) in Verilator, fed one palette
  index per colour clock with line and frame strobes; its whole ``4 x 84 x 84`` stack is read
  back through the read port after every observation and compared with the model
  (``rtl_mismatched_pixels``), and the cycles from the last visible pixel to ``obs_valid``
  are measured (``latency_cycles``).

Exit code 0 when the model is within one grey level of the float reference and (with
``--rtl``) the RTL equals the model on every pixel; 1 otherwise; 2 on bad input.
"""
from __future__ import annotations

from host.cli import DefaultsFormatter

import json
import sys

import numpy as np

from host.errors import UserError, int_range, seed_int

FRAME_SKIP = 4  #: frames per action and per pushed observation (Such et al. 2017)


def record_screens(game: str, frames: int, seed: int = 0, frame_skip: int = FRAME_SKIP):
    """Run ALE with random minimal-set actions and record every frame.

    Args:
        game: ALE ROM id (e.g. ``"pong"``).
        frames: number of emulated frames (frame skip 1 inside ALE; one action is held for
            ``frame_skip`` frames).
        seed: seed of the action choice (numpy ``default_rng``) and of ALE's ``random_seed``.
    Returns:
        ``(screens, greys, display)``: ``(frames, H, 160)`` uint8 palette indices
        (``getScreen``), ``(frames, H, 160)`` uint8 ALE grey (``getScreenGrayscale``), and
        ``"NTSC"``/``"PAL"``. The game is reset when it ends (the next frame is the first
        after ``reset_game``).
    Raises:
        UserError: unknown game.
    """
    from host.games import game_info, resolve_rom
    import ale_py
    name, rom = resolve_rom(game=game)
    info = game_info(name, rom)
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", int(seed) & 0x7FFFFFFF)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(str(rom))
    ale.reset_game()
    actions = list(ale.getMinimalActionSet())
    rng = np.random.default_rng([int(seed), 0x9E])
    h, w = ale.getScreenDims()
    screens = np.empty((frames, h, w), np.uint8)
    greys = np.empty((frames, h, w), np.uint8)
    action = actions[0]
    for t in range(frames):
        if t % frame_skip == 0:
            action = actions[int(rng.integers(len(actions)))]
        ale.act(action)
        ale.getScreen(screens[t])
        ale.getScreenGrayscale(greys[t])
        if ale.game_over():
            ale.reset_game()
    return screens, greys, info.display


def model_observations(screens: np.ndarray, fmt: str, frame_skip: int = FRAME_SKIP) -> np.ndarray:
    """The launcher's observation stacks for recorded palette-index screens.

    One observation per frame-skip period: ``observe(grey[t-1], grey[t])`` at the last frame
    ``t`` of each period, pushed onto the stack; the first fills all 4 slots
    (:meth:`host.instance.AleInstance.reset`). The grey image before the first frame is zero.

    Args:
        screens: ``(T, H, 160)`` uint8 palette indices.
    Returns:
        ``(T // frame_skip, 4, 84, 84)`` uint8, the stack after each push.
    """
    from hls_models import preprocess
    from hls_models.palette import to_grey
    grey = to_grey(screens, fmt)
    out = np.empty((len(screens) // frame_skip, 4, 84, 84), np.uint8)
    stack = np.zeros((4, 84, 84), np.uint8)
    for n, t in enumerate(range(frame_skip - 1, frame_skip * len(out), frame_skip)):
        prev = grey[t - 1] if t > 0 else np.zeros_like(grey[t])
        obs = preprocess.observe(prev, grey[t])
        if n == 0:
            stack[:] = obs
        else:
            preprocess.push_frame(stack, obs)
        out[n] = stack
    return out


def record_observations(game: str, n_obs: int, seed: int = 0) -> np.ndarray:
    """``(n_obs, 4, 84, 84)`` uint8 observation stacks from random play of ``game`` (frame skip 4).

    For calibrating :func:`hls_models.policy_int8.quantize` and for tests.
    """
    screens, _, fmt = record_screens(game, n_obs * FRAME_SKIP, seed)
    return model_observations(screens, fmt)


def run_preprocess(game: str, frames: int, seed: int, rtl: bool) -> dict:
    """Compute the figures of ``nc2600 preprocess`` (see module doc); returns a dict."""
    import time
    from hls_models import preprocess
    from hls_models.palette import to_grey
    if frames < FRAME_SKIP:
        raise UserError(f"--frames must be at least {FRAME_SKIP} (one frame-skip period), got {frames}")
    screens, ale_grey, fmt = record_screens(game, frames, seed)
    height = screens.shape[1]
    grey = to_grey(screens, fmt)
    stacks = model_observations(screens, fmt)
    max_diff = 0.0
    for n, t in enumerate(range(FRAME_SKIP - 1, FRAME_SKIP * len(stacks), FRAME_SKIP)):
        ref = preprocess.float_reference(ale_grey[t - 1], ale_grey[t])
        max_diff = max(max_diff, float(np.abs(stacks[n][-1].astype(np.float64) - ref).max()))
    result = {"game": game, "display": fmt, "screen_height": int(height), "frames": int(frames),
              "observations": int(len(stacks)), "max_abs_diff_vs_float": round(max_diff, 6),
              "rtl_mismatched_pixels": None, "latency_cycles": None}
    if rtl:
        from hw.preprocessor import LATENCY_CYCLES
        from hw.preprocessor_harness import PreprocessorRTL
        sim = PreprocessorRTL(height, fmt)
        sim.clear()
        mismatched, latencies, n = 0, [], 0
        start_cycles, start = sim.cycles, time.perf_counter()
        for t in range(FRAME_SKIP * len(stacks)):
            push = t % FRAME_SKIP == FRAME_SKIP - 1
            lat = sim.feed_frame(screens[t], push)
            if push:
                latencies.append(-1 if lat is None else lat)
                mismatched += int((sim.read_stack() != stacks[n]).sum())
                n += 1
        elapsed = time.perf_counter() - start
        result["rtl_mismatched_pixels"] = mismatched
        result["latency_cycles"] = max(latencies) if len(set(latencies)) == 1 else latencies
        result["latency_expected_cycles"] = LATENCY_CYCLES
        result["rtl_sync_error"] = sim.sync_error
        result["rtl_cycles_per_s"] = round((sim.cycles - start_cycles) / elapsed)
        sim.close()
    return result


def passed(result: dict) -> bool:
    """Exit-0 rule: within one grey level of the float reference; with RTL, exact and on time."""
    ok = result["max_abs_diff_vs_float"] <= 1.0
    if result["rtl_mismatched_pixels"] is not None:
        ok = ok and result["rtl_mismatched_pixels"] == 0 and not result["rtl_sync_error"] \
            and result["latency_cycles"] == result["latency_expected_cycles"]
    return ok


def _main(args) -> int:
    from host.errors import require_memory
    # palette screens + ALE grey (H <= 250 rows x 160) per frame, and the 84 x 84 stacks
    require_memory(args.frames * (2 * 250 * 160 + 84 * 84 * 2), f"--frames {args.frames:,} (screens kept in memory)")
    result = run_preprocess(args.game, args.frames, args.seed, args.rtl)
    ok = passed(result)
    if args.json:
        print(json.dumps({**result, "passed": ok}))
    else:
        print(f"game                   {result['game']} ({result['display']}, {result['screen_height']} x 160)")
        print(f"frames                 {result['frames']} ({result['observations']} observations, frame skip {FRAME_SKIP})")
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
    """Add ``nc2600 preprocess``."""
    import argparse
    p = subparsers.add_parser(
        "preprocess", help="check the frame preprocessor model (and RTL) against ALE frames",
        description="Run ale-py with random actions, preprocess its frames with the integer model "
                    "(and with --rtl the streaming RTL in Verilator); report the difference to a float "
                    "reference, RTL mismatches and the obs_valid latency. Exit 0 only if all agree.",
        formatter_class=DefaultsFormatter)
    p.add_argument("--game", required=True, metavar="NAME", help="ALE game id, e.g. pong (see `nc2600 games`)")
    p.add_argument("--frames", type=int_range(1, 1_000_000), default=200, metavar="N", help="emulated frames (frame skip 1)")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S", help="seed of the random actions")
    p.add_argument("--rtl", action="store_true", help="also run the preprocessor RTL in Verilator")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_main)
