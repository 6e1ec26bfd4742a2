"""Adversarial action-value vectors shared by the Amaranth and cocotb testbenches."""
from __future__ import annotations

import numpy as np


def first_maximum(values, count: int | None = None) -> int:
    """The action-select rule stated independently of numpy: scan the first ``count`` lanes
    left to right and keep the first lane whose value is strictly greater than the best so far
    (so a tie keeps the lowest index)."""
    count = len(values) if count is None else int(count)
    best = 0
    for i in range(1, count):
        if int(values[i]) > int(values[best]):
            best = i
    return best


def adversarial_vectors(n: int, width: int) -> np.ndarray:
    """``(K, n)`` int64: all equal, ties at both ends, extreme values, single winners."""
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    rows = [np.full(n, lo), np.full(n, hi), np.zeros(n, np.int64)]
    for extreme, base in ((hi, lo), (hi, 0), (lo + 1, lo), (0, lo)):
        for pos in sorted({0, n - 1, n // 2}):
            r = np.full(n, base)
            r[pos] = extreme
            rows.append(r)
    if n >= 2:
        r = np.full(n, lo)                                             # tie first and last
        r[0] = r[-1] = hi
        rows.append(r)
        r = np.full(n, lo)                                             # tie at the high end
        r[-2:] = hi
        rows.append(r)
        r = np.full(n, hi)                                             # all max but lane 0
        r[0] = lo
        rows.append(r)
        rows.append(np.arange(n) % 2 * hi + (1 - np.arange(n) % 2) * lo)  # alternating
        rows.append(np.linspace(lo, hi, n).astype(np.int64))            # increasing
        rows.append(np.linspace(hi, lo, n).astype(np.int64))            # decreasing
    return np.array(rows, dtype=np.int64)
