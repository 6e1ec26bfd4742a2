"""``nc2600 preprocessor``: the frame preprocessor model (and RTL) against ALE's own frames.

Runs ale-py (``repeat_action_probability = 0``, one uniformly random minimal-set action held
for each frame-skip period of 4 frames), takes every emulated frame's palette-index screen
(``getScreen``) and feeds it to

- the integer model: :func:`nc2600.hls_models.palette.to_grey` then :mod:`nc2600.hls_models.preprocessor`
  (max of the last two frames, fixed-point 84 x 84 area resize, stack of 4), pushing one
  observation per frame-skip period (the 4th frame, pooled with the 3rd), as the launcher does;
- the float reference: ALE's ``getScreenGrayscale``, max-pooled, area-resized in float
  (:func:`nc2600.hls_models.preprocessor.float_reference`); reported as ``max_abs_diff_vs_float``
  (grey levels, over all pixels of all observations);
- with ``--rtl``: the streaming RTL (:mod:`nc2600.hw.preprocessor`) in Verilator, fed one palette
  index per colour clock with line and frame strobes; its whole ``4 x 84 x 84`` stack is read
  back through the read port after every observation and compared with the model
  (``rtl_mismatched_pixels``), and the cycles from the last visible pixel to ``obs_valid``
  are measured (``latency_cycles``).

Exit code 0 when the model is within one grey level of the float reference and (with
``--rtl``) the RTL equals the model on every pixel; 1 otherwise; 2 on bad input.
"""
from __future__ import annotations

import numpy as np

from nc2600.hls_models import preprocessor
from nc2600.hls_models.preprocessor import FRAME_SKIP, observation_stacks
from nc2600.host.verify.ale_recordings import record_screens
from nc2600.host.errors import UserError


def run_preprocess(game: str, frames: int, seed: int, rtl: bool) -> dict:
    """Compute the figures of ``nc2600 preprocessor`` (see module doc); returns a dict."""
    import time
    if frames < FRAME_SKIP:
        raise UserError(f"--frames must be at least {FRAME_SKIP} (one frame-skip period), got {frames}")
    screens, ale_grey, fmt = record_screens(game, frames, seed)
    height = screens.shape[1]
    stacks = observation_stacks(screens, fmt)
    max_diff = 0.0
    for n, t in enumerate(range(FRAME_SKIP - 1, FRAME_SKIP * len(stacks), FRAME_SKIP)):
        ref = preprocessor.float_reference(ale_grey[t - 1], ale_grey[t])
        max_diff = max(max_diff, float(np.abs(stacks[n][-1].astype(np.float64) - ref).max()))
    result = {"game": game, "display": fmt, "screen_height": int(height), "frames": int(frames),
              "observations": int(len(stacks)), "max_abs_diff_vs_float": round(max_diff, 6),
              "rtl_mismatched_pixels": None, "latency_cycles": None}
    if rtl:
        from nc2600.hls_models.preprocessor import LATENCY_CYCLES
        from nc2600.hwtools.preprocessor_harness import PreprocessorSim
        sim = PreprocessorSim(height, fmt)
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
