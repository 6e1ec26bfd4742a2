"""Where the tooling keeps its build caches, written once.

Every cache (Verilator builds ``verilator/``, cocotb builds ``cocotb/`` and ``cocotb-sim/``,
synthesis ``synth/``, place and route ``pnr/``, the lz4 shim) lives under one root:
``$NC2600_CACHE`` when set, else ``<checkout>/.cache``.
"""
from __future__ import annotations

import json
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


def read_json_entry(path: Path, keys: tuple[str, ...]) -> dict | None:
    """A cached JSON result, or None when ``path`` is absent or unreadable as one (not JSON, not
    an object, or without one of ``keys``): the caller then recomputes and rewrites it, so a
    damaged cache entry costs a rerun, never a traceback."""
    try:
        rep = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(rep, dict) or any(k not in rep for k in keys):
        return None
    return rep
