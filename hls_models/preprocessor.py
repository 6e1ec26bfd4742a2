"""Integer frame preprocessor: the bit-exact reference shared by the launcher and the RTL.

Pipeline (Mnih et al. 2015 / Such et al. 2017 observation, written as integer arithmetic):

1. grey: each pixel's 8-bit grey level, ``round(0.2989 R + 0.5870 G + 0.1140 B)`` of the
   palette colour (ALE 0.12 ``getScreenGrayscale``). The launcher takes it from ALE; the
   hardware maps palette indices through a 256-entry lookup table.
2. flicker removal: element-wise maximum of the last two frames' grey images.
3. resize ``H x 160 -> 84 x 84`` by exact area averaging in fixed point (below).
4. stack: the last 4 resized frames, oldest first, shape ``(4, 84, 84)``.

Fixed-point area resize
-----------------------
Output row ``r`` covers input rows ``[r*H/84, (r+1)*H/84)``. Multiplying by 84 gives integer
interval ends: input row ``k`` spans ``[84k, 84k+84)`` and output row ``r`` spans
``[r*H, r*H+H)``; their overlap length ``wy[r, k]`` is an integer in ``0..84`` and each
output row's weights sum to ``H``. Columns likewise with ``wx[c, i]`` summing to 160 (W).
Every output pixel is then::

    acc   = sum_k sum_i wy[r, k] * wx[c, i] * g[k, i]      (integer, < 255 * H * W < 2**24)
    out   = (acc + (H*W) // 2) // (H*W)                       (round half up)

which is the exact area mean (OpenCV INTER_AREA in real arithmetic) rounded once, so it is
within 0.5 grey level of a float area resize of the same max-pooled grey image.
The sums are separable (horizontal pass per line, vertical accumulation over lines), which is
how the streaming RTL computes them with line buffers; the final division by the constant
``H*W`` is the only rounding step.

All functions are pure numpy; dtypes and shapes are stated per function.
"""
from __future__ import annotations

from functools import lru_cache
from math import gcd

import numpy as np

from nc2600.hls_models.palette import to_grey
from nc2600.hls_models.platform import FRAME_SKIP  # noqa: F401  (frames per pushed observation; used here and re-read by users)

OUT_SIZE = 84          #: output height and width (pixels)
STACK = 4              #: frames in the observation stack
SCREEN_WIDTH = 160     #: ALE screen width (pixels = colour clocks of the visible line)
#: cycles of the RTL block (``nc2600.hw.preprocessor``) from the last visible pixel of a pushed frame to
#: ``obs_valid``, one pixel per cycle; and in beats with three pixels per beat (one more stage)
LATENCY_CYCLES, LATENCY_CYCLES3 = 8, 9


@lru_cache(maxsize=None)
def area_weights(n_in: int, n_out: int = OUT_SIZE) -> np.ndarray:
    """Integer area-overlap weights, shape ``(n_out, n_in)``, dtype int64.

    ``w[o, i]`` = length of ``[o*n_in, (o+1)*n_in) ∩ [i*n_out, (i+1)*n_out)``; each row
    sums to ``n_in``, each column to ``n_out``.

    Raises:
        ValueError: ``n_in`` or ``n_out`` not positive.
    """
    if n_in <= 0 or n_out <= 0:
        raise ValueError(f"sizes must be positive, got n_in={n_in}, n_out={n_out}")
    o = np.arange(n_out)[:, None]
    i = np.arange(n_in)[None, :]
    lo = np.maximum(o * n_in, i * n_out)
    hi = np.minimum((o + 1) * n_in, (i + 1) * n_out)
    w = np.clip(hi - lo, 0, None).astype(np.int64)
    w.setflags(write=False)
    return w


@lru_cache(maxsize=None)
def taps(n_in: int, n_out: int = OUT_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """Sparse form of :func:`area_weights`: ``(index, weight)``, each ``(T, n_out)`` int32.

    Output ``o`` is ``sum_t weight[t, o] * x[index[t, o]]``; ``T`` is the largest number of
    inputs any output overlaps (4 rows for 210 -> 84, 3 columns for 160 -> 84); unused taps
    have weight 0. This is the form the streaming hardware uses (few taps per output).
    """
    w = area_weights(n_in, n_out)
    n_taps = int((w > 0).sum(axis=1).max())
    index = np.zeros((n_taps, n_out), np.int32)
    weight = np.zeros((n_taps, n_out), np.int32)
    for o in range(n_out):
        nz = np.flatnonzero(w[o])
        index[:len(nz), o] = nz
        index[len(nz):, o] = nz[-1]
        weight[:len(nz), o] = w[o, nz]
    index.setflags(write=False)
    weight.setflags(write=False)
    return index, weight


@lru_cache(maxsize=None)
def column_blocks(width: int, n_out: int = OUT_SIZE) -> np.ndarray:
    """The horizontal resize as one repeating block: ``(width/g, n_out/g)`` float32 weights with
    ``g = gcd(width, n_out)`` (160 -> 84: every 40 input columns make 21 output columns), since
    :func:`area_weights` is block diagonal with ``g`` equal blocks."""
    g = gcd(width, n_out)
    block = area_weights(width, n_out)[:n_out // g, :width // g]
    out = np.ascontiguousarray(block.T.astype(np.float32))
    out.setflags(write=False)
    return out


def _resize_sums(grey: np.ndarray) -> np.ndarray:
    """``wy @ grey @ wx.T`` as exact float32 integers, ``(..., 84, 84)``.

    Vertical pass with the sparse row taps in uint16 (every partial sum is at most
    ``255 * H < 2**16`` for ``H <= 257``), horizontal pass as one float32 product with the
    repeating column block (:func:`column_blocks`), exact because every partial sum is an
    integer below ``255 * H * W < 2**24``.
    """
    height, width = grey.shape[-2:]
    if 255 * height * width >= 1 << 24:
        raise ValueError(f"screen {height}x{width} too large for exact float32 sums")
    yi, yw = taps(height)
    wide = np.uint16 if 255 * height < 1 << 16 else np.int32
    lines = np.take(grey, yi[0], axis=-2).astype(wide)
    lines *= yw[0][:, None].astype(wide)
    for t in range(1, len(yi)):
        lines += yw[t][:, None].astype(wide) * np.take(grey, yi[t], axis=-2)
    block = column_blocks(width)
    lead = lines.shape[:-1]
    return (lines.reshape(-1, block.shape[0]).astype(np.float32) @ block).reshape(*lead, OUT_SIZE)


def resize_accumulators(grey: np.ndarray) -> np.ndarray:
    """Unrounded area sums ``acc = wy @ grey @ wx.T`` of the fixed-point resize.

    Args:
        grey: ``(..., H, W)`` uint8 grey images (``W`` is normally 160).
    Returns:
        ``(..., 84, 84)`` int32 accumulators, exact.
    Raises:
        ValueError: ``255 * H * W >= 2**24``.
    """
    return _resize_sums(grey).astype(np.int32)


def resize(grey: np.ndarray) -> np.ndarray:
    """Fixed-point area resize ``(..., H, W) uint8 -> (..., 84, 84) uint8`` (see module doc).

    ``(acc + H*W // 2) // (H*W)``, computed as a float32 division of the exact integer sum and
    a floor: the quotient is exact when it is an integer and otherwise at least ``1 / (H*W)``
    (>= 2.5e-5 for every ALE screen) from the next integer, more than float32's half ulp below
    256 (7.6e-6), so the floor equals the integer division (checked against it by a test).
    """
    height, width = grey.shape[-2:]
    denom = height * width
    acc = _resize_sums(grey)
    acc += denom // 2
    acc /= denom
    return np.floor(acc, out=acc).astype(np.uint8)


def max_pool(grey_prev: np.ndarray, grey_cur: np.ndarray) -> np.ndarray:
    """Flicker removal: element-wise maximum of two uint8 grey frames of equal shape."""
    return np.maximum(grey_prev, grey_cur)


def observe(grey_prev: np.ndarray, grey_cur: np.ndarray) -> np.ndarray:
    """One preprocessed frame: ``resize(max_pool(prev, cur))``, shape ``(84, 84)`` uint8."""
    return resize(max_pool(grey_prev, grey_cur))


def push_frame(stack: np.ndarray, frame: np.ndarray) -> None:
    """Shift the ``(..., 4, 84, 84)`` uint8 stack one frame older and append ``frame`` in place."""
    stack[..., :-1, :, :] = stack[..., 1:, :, :]
    stack[..., -1, :, :] = frame


def float_reference(grey_prev: np.ndarray, grey_cur: np.ndarray) -> np.ndarray:
    """Float area resize of the max-pooled grey image, ``(84, 84)`` float64 (no rounding).

    An independent computation (explicit per-output-pixel loops over the overlap of
    fractional intervals) used by tests to bound the integer pipeline's error.
    """
    g = np.maximum(grey_prev, grey_cur).astype(np.float64)
    height, width = g.shape

    def spans(n_in: int) -> list[list[tuple[int, float]]]:
        scale = n_in / OUT_SIZE
        out = []
        for o in range(OUT_SIZE):
            a, b = o * scale, (o + 1) * scale
            row = []
            for i in range(int(np.floor(a)), min(n_in, int(np.ceil(b)))):
                overlap = min(b, i + 1) - max(a, i)
                if overlap > 0:
                    row.append((i, overlap / scale))
            out.append(row)
        return out

    ys, xs = spans(height), spans(width)
    out = np.empty((OUT_SIZE, OUT_SIZE))
    for r, yrow in enumerate(ys):
        line = sum(w * g[k] for k, w in yrow)
        for c, xrow in enumerate(xs):
            out[r, c] = sum(w * line[i] for i, w in xrow)
    return out


def observation_stacks(screens: np.ndarray, fmt: str, frame_skip: int = FRAME_SKIP) -> np.ndarray:
    """The launcher's observation stacks for recorded palette-index screens.

    One observation per frame-skip period: ``observe(grey[t-1], grey[t])`` at the last frame
    ``t`` of each period, pushed onto the stack; the first fills all 4 slots
    (as :meth:`nc2600.host.episodes.env.AleEnv.reset` does). The grey image before the first frame is zero.

    Args:
        screens: ``(T, H, 160)`` uint8 palette indices.
    Returns:
        ``(T // frame_skip, 4, 84, 84)`` uint8, the stack after each push.
    """
    grey = to_grey(screens, fmt)
    out = np.empty((len(screens) // frame_skip, 4, 84, 84), np.uint8)
    stack = np.zeros((4, 84, 84), np.uint8)
    for n, t in enumerate(range(frame_skip - 1, frame_skip * len(out), frame_skip)):
        prev = grey[t - 1] if t > 0 else np.zeros_like(grey[t])
        obs = observe(prev, grey[t])
        if n == 0:
            stack[:] = obs
        else:
            push_frame(stack, obs)
        out[n] = stack
    return out
