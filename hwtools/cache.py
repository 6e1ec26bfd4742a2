"""Where the tooling keeps its build caches, written once.

Every cache (Verilator builds ``verilator/``, cocotb builds ``cocotb/`` and ``cocotb-sim/``,
synthesis ``synth/``, place and route ``pnr/``, the lz4 shim) lives under one root:
``$NC2600_CACHE`` when set, else ``<checkout>/.cache``.
"""
from __future__ import annotations

import os
from pathlib import Path

#: The checkout (the folder above ``hwtools/``).
REPO_ROOT = Path(__file__).resolve().parent.parent


def cache_root() -> Path:
    """``$NC2600_CACHE``, else ``<checkout>/.cache`` (not created here)."""
    return Path(os.environ.get("NC2600_CACHE", REPO_ROOT / ".cache"))


def cache_dir(kind: str) -> Path:
    """The cache folder ``kind`` (e.g. ``"verilator"``, ``"synth"``) under :func:`cache_root`,
    created on demand."""
    path = cache_root() / kind
    path.mkdir(parents=True, exist_ok=True)
    return path
