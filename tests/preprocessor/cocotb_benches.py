"""``make sim`` registrations of the preprocessor testbench (:mod:`nc2600.hwtools.sim`, rule 2).

``cocotb_preprocessor.py`` streams recorded ALE frames (palette indices, ``NC2600_PP_FRAMES``)
through the RTL and compares the stack read back with :mod:`nc2600.hls_models.preprocessor`. The frames
are recorded on the host before the simulation (:func:`nc2600.host.verify.ale_recordings.record_screens`): pong by
default; breakout, space_invaders and seaquest later in their episodes under ``--full``.
"""
from __future__ import annotations

from pathlib import Path

from nc2600.hwtools.sim import CocotbBench


def _prepare(game: str, frames: int, seed: int, last: int):
    """``prepare`` hook: the last ``last`` of ``frames`` ALE frames of ``game`` into a .npy."""
    def prepare(work_dir: Path, full: bool) -> dict:
        import numpy as np

        from nc2600.host.verify.ale_recordings import record_screens
        screens, _, fmt = record_screens(game, frames, seed=seed)
        if fmt != "NTSC" or screens.shape[1] != 210:
            raise RuntimeError(f"{game}: the preprocessor testbench needs an NTSC 210-row game, got {fmt} "
                               f"{screens.shape[1]} rows")
        path = work_dir / f"frames_{game}.npy"
        np.save(path, screens[-last:])
        return {"NC2600_PP_FRAMES": str(path)}
    return prepare


def _bench(game: str, frames: int, seed: int, full_only: bool) -> CocotbBench:
    return CocotbBench("preprocessor", f"preprocessor_{game}", "preprocessor_cc1",
                       "tests.preprocessor.cocotb_preprocessor", ("preprocessor_cc1.v",),
                       prepare=_prepare(game, frames, seed, 3), full_only=full_only)


# pong mid-game (the ball moves, so the flicker max matters); --full: more NTSC 210-row games
COCOTB_BENCHES = [_bench("pong", 60, 11, False),
                  *(_bench(game, 200, seed, True)
                    for game, seed in (("breakout", 1), ("space_invaders", 2), ("seaquest", 3)))]
