"""Rotating samples for CI: a different subset of a long sweep on every commit, so that the
commits of a branch cover the whole sweep over time while each CI run pays for a few cases.

The subset of a commit is :func:`rotating_subset`'s group ``g = seed mod G`` of the sorted items
(``G = ceil(n / k)`` groups, group ``g`` the items ``g, g + G, g + 2G, ...``), the seed the
commit's id (the first 12 hex digits of ``git rev-parse HEAD`` as an integer, so that a shallow
clone rotates too) plus a per-sweep ``salt``. ``NC2600_ROTATION=<int>`` replaces the commit's
seed (to rerun the group a CI run failed on: its test ids name the games); outside a git
checkout the seed is 0.
"""
from __future__ import annotations

import os
import subprocess
import zlib
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=None)
def commit_seed() -> int:
    """The rotation seed (module doc): ``NC2600_ROTATION``, else the commit id's first 12 hex digits."""
    if os.environ.get("NC2600_ROTATION", "").strip():
        return int(os.environ["NC2600_ROTATION"])
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True,
                             timeout=30).stdout.strip()
        return int(sha[:12], 16)
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def rotating_subset(items, k: int, salt: str = "") -> list:
    """This commit's group of about ``k`` of ``items`` (sorted; module doc); every item lies in
    exactly one of the ``ceil(n / k)`` groups."""
    items = sorted(items)
    groups = -(-len(items) // k)
    g = (commit_seed() + zlib.crc32(salt.encode())) % groups
    return items[g::groups]
