"""Video timing of recorded episodes (``best.gif`` of a run, ``nc2600 play``): frames at the
console's real frame rate (:func:`nc2600.hls_models.platform.frame_rate`).

A GIF holds every third frame (browsers clamp delays under 20 ms), with centisecond delays
rounded cumulatively so that its length is the episode's real length within 10 ms.
"""
from __future__ import annotations

import numpy as np

from nc2600.hls_models.platform import frame_rate

NTSC_FPS = frame_rate("NTSC")          #: 59.92 frames/s
PAL_FPS = frame_rate("PAL")            #: 49.86 frames/s
GIF_STRIDE = 3                         #: a GIF keeps every third emulated frame

__all__ = ["NTSC_FPS", "PAL_FPS", "GIF_STRIDE", "frame_rate", "gif_delays_cs"]


def gif_delays_cs(n_frames: int, rate: float, stride: int = GIF_STRIDE, total: int | None = None) -> list[int]:
    """Centisecond delays of ``n_frames`` GIF frames, frame ``j`` standing for console frames
    ``j stride .. min((j + 1) stride, total) - 1`` at ``rate`` frames/s, rounded cumulatively
    (the sum is the real length of ``total`` frames, default ``n_frames x stride``, within 1 cs)."""
    total = n_frames * stride if total is None else total
    ends = np.minimum(np.arange(1, n_frames + 1) * stride, total)
    ends = np.rint(ends * 100.0 / rate).astype(np.int64)
    return np.diff(np.concatenate([[0], ends])).tolist()
