"""Bit-exact model of the action-selection block (:mod:`nc2600.hw.action_select`).

The block picks the action with the highest action value: ``argmax`` over the first
``count`` of up to ``n`` signed ``width``-bit values, ties to the lowest index (numpy's
``argmax`` rule, and :func:`nc2600.host.episodes.policy.select_actions`). The RTL is a registered binary
comparison tree, so its result appears :func:`latency` cycles after the values.
"""
from __future__ import annotations

import numpy as np

MAX_ACTIONS = 18   #: ALE's full action set


def latency(n: int) -> int:
    """Cycles from the action-values beat (``action_values.valid``) to ``chosen.valid`` of
    :class:`nc2600.hw.action_select.ActionSelect` with ``n`` lanes.

    One registered tree level per halving: ``ceil(log2 n)``, at least 1 (n = 18 -> 5 cycles).
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return max(1, (n - 1).bit_length())


def check_values(values: np.ndarray, width: int) -> np.ndarray:
    """Validate ``(..., n)`` integer action values that must fit in signed ``width`` bits; returns int64."""
    v = np.asarray(values)
    if v.ndim < 1 or v.shape[-1] < 1 or v.shape[-1] > MAX_ACTIONS or not np.issubdtype(v.dtype, np.integer):
        raise ValueError(f"action values must be an integer array of shape (..., n) with 1 <= n <= {MAX_ACTIONS}, "
                         f"got shape {v.shape} dtype {v.dtype}")
    v = v.astype(np.int64)
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if v.size and (v.min() < lo or v.max() > hi):
        raise ValueError(f"action values must fit in signed {width} bits [{lo}, {hi}]")
    return v


def select(values: np.ndarray, width: int = 32, count: int | np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Argmax as the RTL computes it.

    Args:
        values: ``(..., n)`` integers, each within signed ``width`` bits.
        width: bit width of a value (the RTL parameter).
        count: number of valid lanes (``1..n``, scalar or ``(...)``); lanes ``>= count`` are
            ignored. Default ``n``.
    Returns:
        ``(index, value)``: ``(...)`` int64 index of the first maximum among the valid lanes and
        ``(...)`` int64 its value.
    Raises:
        ValueError: wrong shape/dtype, values out of range, or count outside ``1..n``.
    """
    v = check_values(values, width)
    n = v.shape[-1]
    cnt = np.broadcast_to(np.asarray(n if count is None else count, dtype=np.int64), v.shape[:-1])
    if cnt.size and (cnt.min() < 1 or cnt.max() > n):
        raise ValueError(f"count must be in 1..{n}")
    lane = np.arange(n)
    masked = np.where(lane < cnt[..., None], v, np.iinfo(np.int64).min)
    idx = np.argmax(masked, axis=-1)
    return idx, np.take_along_axis(v, idx[..., None], axis=-1)[..., 0]
