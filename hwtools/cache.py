"""Where the package's files and build caches are, written once.

The package's parts lie side by side under :data:`PACKAGE_ROOT`: in a checkout that is the
repository (``hw/``, ``hwtools/``, ``rtl/``, ``hls_models/`` ...), in an installed wheel the folder
``site-packages/nc2600`` (``nc2600/hw``, ``nc2600/rtl`` ...: the same layout, by the
``package-dir`` mapping of ``pyproject.toml``). Package data is read relative to it.

Every cache (Verilator builds ``verilator/``, the instance's generated Verilog ``verilog/``, cocotb builds
``cocotb/`` and ``cocotb-sim/``,
synthesis ``synth/``, place and route ``pnr/``, the lz4 shim) lives under one root:
``$NC2600_CACHE`` when set; else ``<checkout>/.cache`` when running from a checkout; else the
user's cache folder (``platformdirs.user_cache_dir("nc2600")``, e.g. ``~/.cache/nc2600`` on
Linux). Never inside ``site-packages``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

#: The folder the package's parts lie in (the folder above ``hwtools/``): the checkout, or
#: ``site-packages/nc2600`` in an installed wheel.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent

#: The generated Verilog (``make rtl``): ``<checkout>/rtl`` or the wheel's ``nc2600/rtl``.
RTL_DIR = PACKAGE_ROOT / "rtl"


def _checkout() -> Path | None:
    """:data:`PACKAGE_ROOT` when it is a checkout of the repository (``pyproject.toml`` and
    ``tests/`` beside the packages), else None (an installed wheel)."""
    if (PACKAGE_ROOT / "pyproject.toml").is_file() and (PACKAGE_ROOT / "tests").is_dir():
        return PACKAGE_ROOT
    return None


#: The checkout of the repository this code runs from, or None when it runs from an installed
#: wheel. Commands for the checkout's developers (``make rtl``, ``make regs``, the cocotb runner's
#: discovery, ``nc2600 results``) use :func:`checkout_root`.
CHECKOUT: Path | None = _checkout()

#: Kept for callers that name the checkout's files: the checkout, else :data:`PACKAGE_ROOT`.
REPO_ROOT = CHECKOUT or PACKAGE_ROOT


class NotACheckout(RuntimeError):
    """A developer command of the checkout was run from an installed wheel; the message is one
    line for the user."""


def checkout_root(what: str) -> Path:
    """The checkout, for the developer command ``what`` (e.g. ``"make regs"``).

    Raises:
        NotACheckout: running from an installed wheel (no checkout): the message says that
            ``what`` is a command for a clone of the repository.
    """
    if CHECKOUT is None:
        raise NotACheckout(f"{what} is a command for a clone of the nc2600 repository (it reads and writes "
                           f"the checkout's files), not for the installed package at {PACKAGE_ROOT}")
    return CHECKOUT


def cache_root() -> Path:
    """``$NC2600_CACHE``; else ``<checkout>/.cache`` in a checkout; else the user's cache folder
    (``platformdirs.user_cache_dir("nc2600")``). Not created here."""
    env = os.environ.get("NC2600_CACHE")
    if env:
        return Path(env)
    if CHECKOUT is not None:
        return CHECKOUT / ".cache"
    import platformdirs
    return Path(platformdirs.user_cache_dir("nc2600", appauthor=False))


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
