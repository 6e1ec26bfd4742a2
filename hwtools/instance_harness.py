"""Verilator harness of the fabric instance (:mod:`nc2600.hw.instance`) with a PYNQ-shaped MMIO object.

:class:`InstanceSim` builds (cached by content, :func:`nc2600.hwtools.verilator_build.build_shared_lib`) the
Verilated :class:`nc2600.hw.instance.GameInstance` for one screen height and palette and exposes
``read(offset)`` / ``write(offset, value)`` exactly as ``pynq.MMIO`` does, each one a real
AXI4-Lite transaction run clock by clock (the design keeps running meanwhile). A bus error
response raises :class:`BusError`; a handshake that never completes raises :class:`BusTimeout`.
``poll`` is an accelerator for the driver's wait loops (the same reads, done in C++);
``cycles`` counts the clocks run.

``save_state`` / ``restore_state`` snapshot the whole Verilated model in memory (Verilator's
``--savable`` serialisation: every register and memory of the design, the console, the
preprocessor's stack and the engine's parameters included); the episode runner
(:class:`nc2600.host.drivers.instance.InstanceEpisodeRunner`) uses them for the episode start state instead of
replaying ALE's power-on and reset sequence for every episode. This is a simulation facility
(the harness's, not the design's): on a board the start state is replayed.
"""
from __future__ import annotations

import ctypes
from pathlib import Path

from nc2600.hw.instance import DEFAULT_COLOUR_CLOCKS, DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_LANES, DEFAULT_ROWS
from nc2600.hwtools.verilog_cache import cached_generate
from nc2600.hwtools.verilator_build import (SAVABLE_ARGS, ModelState, VerilatedModel, bind_snapshots, fst_link_args,
                                      lz4_shim_args, restore_model, save_model, savable_harness)

HARNESS_CPP = Path(__file__).resolve().parent / "cpp" / "instance_harness.cpp"
HANDSHAKE_LIMIT = 1000          #: clocks a single AXI handshake may take

_LIBS: dict = {}


class BusError(RuntimeError):
    """The instance answered SLVERR (2) or DECERR (3)."""

    def __init__(self, kind: str, offset: int, resp: int):
        name = {2: "SLVERR", 3: "DECERR"}.get(resp, str(resp))
        super().__init__(f"AXI {kind} at 0x{offset:05x}: {name}")
        self.offset, self.resp = offset, resp


class BusTimeout(RuntimeError):
    """An AXI4-Lite handshake did not complete within its clock limit."""


def check_config(colour_clocks: int = DEFAULT_COLOUR_CLOCKS, engine: str = DEFAULT_ENGINE,
                 rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> None:
    """Validate an instance configuration before a build (:func:`nc2600.hw.instance.check_config`).

    Raises:
        ValueError: the configuration named.
    """
    from nc2600.hw.instance import check_config as check
    check(colour_clocks, engine, rows, cols)


def build(height: int = 210, fmt: str = "NTSC", trace: bool = False,
          colour_clocks: int = DEFAULT_COLOUR_CLOCKS, engine: str = DEFAULT_ENGINE,
          rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> Path:
    """Build (or find in the cache) ``libinstance.so`` for one preprocessor configuration,
    console configuration (colour clocks per cycle, 1 or 3) and engine (``"array"``, ``rows x
    cols``, the default 16 x 16, or ``"lane"``, 16 lanes): module :func:`nc2600.hw.instance.module_name`
    (``instance_cc3``, ``instance_cc1``, ``instance_cc3_l16``, ...); ``trace``: the build that can record an FST
    waveform (:meth:`InstanceSim.trace`; Verilator ``--trace-fst``, slower to build and, while
    recording, to run)."""
    from nc2600.hw.instance import generate, module_name
    from nc2600.hwtools.verilator_build import NO_DFG_ARGS, NO_VECTORISE_CFLAGS, build_shared_lib
    top = module_name(colour_clocks, engine, rows, cols)
    # (the generated files from the Verilog cache when the gateware's sources are unchanged)
    verilog = cached_generate(generate, height, fmt, colour_clocks=colour_clocks, engine=engine, rows=rows,
                              cols=cols)[f"{top}.v"]
    harness = HARNESS_CPP.read_text().replace("Vinstance", f"V{top}")
    return build_shared_lib(f"{top}{height}{fmt.lower()}{'-trace' if trace else ''}", verilog, top,
                            savable_harness(_prelude(trace) + harness),
                            extra_verilator_args=("-CFLAGS", f"-O2 {NO_VECTORISE_CFLAGS}", *SAVABLE_ARGS,
                                                  *NO_DFG_ARGS, *_trace_args(trace)),
                            link_args=fst_link_args() if trace else ())


def _prelude(trace: bool) -> str:
    return "#define NC_TRACE 1\n" if trace else ""


def _trace_args(trace: bool) -> tuple[str, ...]:
    return ("--trace-fst", *lz4_shim_args()) if trace else ()


def build_node(height: int = 210, fmt: str = "NTSC", colour_clocks: int = DEFAULT_COLOUR_CLOCKS,
               engine: str = DEFAULT_ENGINE, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> Path:
    """Build (or find in the cache) ``libnode.so``: the two-instance node (:mod:`nc2600.hw.node`) of the
    given instance configuration, with the same harness (its top is ``node`` instead of ``instance``).

    The Verilog is :func:`nc2600.hw.node.generate`'s text unchanged, followed by one Verilator
    configuration command (``no_inline``, in a ```verilator_config`` section) that keeps the
    instance module a C++ class of its own: the node's two cells share its code, so the C++ compiler
    translates the instance once instead of the two inlined copies Verilator makes by default (the
    model's behaviour is the same; only the build's cost changes)."""
    from nc2600.hw.instance import module_name
    from nc2600.hw.node import generate
    from nc2600.hwtools.verilator_build import NO_DFG_ARGS, NO_VECTORISE_CFLAGS, build_shared_lib
    inst = module_name(colour_clocks, engine, rows, cols)
    verilog = cached_generate(generate, height, fmt, colour_clocks=colour_clocks, engine=engine, rows=rows,
                              cols=cols)["node.v"] + f'\n`verilator_config\nno_inline -module "{inst}"\n'
    return build_shared_lib(f"node{inst[len('instance'):]}{height}{fmt.lower()}", verilog, "node",
                            savable_harness(HARNESS_CPP.read_text().replace("Vinstance", "Vnode")),
                            extra_verilator_args=("-CFLAGS", f"-O2 {NO_VECTORISE_CFLAGS}", *SAVABLE_ARGS,
                                                  *NO_DFG_ARGS))


def _lib(height: int, fmt: str, node: bool = False, trace: bool = False,
         colour_clocks: int = DEFAULT_COLOUR_CLOCKS,
         engine: tuple = (DEFAULT_ENGINE, DEFAULT_ROWS, DEFAULT_COLS)) -> ctypes.CDLL:
    key = (height, fmt, node, trace, colour_clocks, engine)
    if key not in _LIBS:
        path = (build_node(height, fmt, colour_clocks, *engine) if node
                else build(height, fmt, trace, colour_clocks, *engine))
        lib = ctypes.CDLL(str(path))
        vp, u32, u64, i32 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int
        lib.inst_new.restype = vp
        lib.inst_free.argtypes = [vp]
        lib.inst_cycles.argtypes = [vp]
        lib.inst_cycles.restype = u64
        lib.inst_idle.argtypes = [vp, u64]
        lib.inst_write.argtypes = [vp, u32, u32, i32]
        lib.inst_write.restype = i32
        lib.inst_read.argtypes = [vp, u32, ctypes.POINTER(u32), i32]
        lib.inst_read.restype = i32
        lib.inst_poll.argtypes = [vp, u32, u32, u32, u64, u64, i32]
        lib.inst_poll.restype = ctypes.c_int64
        lib.inst_trace.argtypes = [vp, ctypes.c_char_p, u64, u64]
        lib.inst_trace.restype = i32
        lib.inst_trace_stop.argtypes = [vp]
        bind_snapshots(lib, "inst", path)
        _LIBS[key] = lib
    return _LIBS[key]


class InstanceSim(VerilatedModel):
    """One Verilated instance behind a PYNQ-shaped MMIO interface (see module doc).

    Args:
        height, fmt: the game's screen height and palette (the preprocessor's configuration).
        node: the two-instance node (:mod:`nc2600.hw.node`, 18-bit addresses: instance ``i`` at
            ``i * 0x20000``; :class:`MmioWindow` gives one instance's view) instead of one instance.
        trace: use the build that can record a waveform (:meth:`trace`; one instance only).
        colour_clocks: the console configuration (1 or 3) of the instance, or of both
            instances of the node.
        engine, rows, cols: the engine (:class:`nc2600.hw.instance.GameInstance`; default the 16 x 16 array
            engine) of the instance, or of both instances of the node; the driver reads them
            (:attr:`engine`, :attr:`rows`, :attr:`cols`, :attr:`lanes`) to load parameters in the
            engine's format.
    Raises:
        ValueError: ``trace`` with ``node``; ``colour_clocks`` not 1 or 3; a bad engine
            or shape.
    """

    FREE = "inst_free"
    lanes = DEFAULT_LANES   #: the lane engine's MAC lanes (``nc2600.hw.instance.GameInstance``'s default)

    def __init__(self, height: int = 210, fmt: str = "NTSC", node: bool = False, trace: bool = False,
                 colour_clocks: int = DEFAULT_COLOUR_CLOCKS, engine: str = DEFAULT_ENGINE,
                 rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS):
        if trace and node:
            raise ValueError("waveform tracing is built for one instance, not the node")
        check_config(colour_clocks, engine, rows, cols)
        self.engine, self.rows, self.cols = engine, rows, cols
        self.traceable = bool(trace)
        self._lib = _lib(height, fmt, node, bool(trace), colour_clocks,
                         (engine, DEFAULT_ROWS, DEFAULT_COLS) if engine == "lane" else (engine, rows, cols))
        self._h = self._lib.inst_new()
        self._word = ctypes.c_uint32()

    # -- pynq.MMIO's interface ---------------------------------------------------------------
    def read(self, offset: int, length: int = 4) -> int:
        """One 32-bit AXI4-Lite read at byte ``offset``."""
        if length != 4:
            raise ValueError("only 32-bit reads")
        r = self._lib.inst_read(self._h, int(offset), ctypes.byref(self._word), HANDSHAKE_LIMIT)
        if r < 0:
            raise BusTimeout(f"AXI read at 0x{offset:05x}: no handshake within {HANDSHAKE_LIMIT} clocks")
        if r:
            raise BusError("read", offset, r)
        return int(self._word.value)

    def write(self, offset: int, value: int) -> None:
        """One 32-bit AXI4-Lite write of ``value`` at byte ``offset``."""
        r = self._lib.inst_write(self._h, int(offset), int(value) & 0xFFFFFFFF, HANDSHAKE_LIMIT)
        if r < 0:
            raise BusTimeout(f"AXI write at 0x{offset:05x}: no handshake within {HANDSHAKE_LIMIT} clocks")
        if r:
            raise BusError("write", offset, r)

    # -- simulation only -----------------------------------------------------------------------
    @property
    def cycles(self) -> int:
        """Clocks run since power-on."""
        return int(self._lib.inst_cycles(self._h))

    def idle(self, cycles: int) -> None:
        """Run ``cycles`` clocks with no bus traffic."""
        self._lib.inst_idle(self._h, int(cycles))

    def poll(self, offset: int, mask: int, want: int, gap: int, max_cycles: int) -> int | None:
        """Read ``offset`` every ``gap`` clocks until ``value & mask == want``; the value, or None
        after ``max_cycles`` clocks."""
        r = self._lib.inst_poll(self._h, int(offset), int(mask), int(want), int(gap), int(max_cycles),
                                HANDSHAKE_LIMIT)
        if r == -2:
            raise BusError("read", offset, 2)
        return None if r < 0 else int(r)

    def trace(self, path, cycles: int, after: int = 0) -> None:
        """Record an FST waveform of every signal of the instance at ``path`` over clocks
        ``[now + after, now + after + cycles)`` (time unit: half a clock; clock ``c`` of
        :attr:`cycles` is at times ``2c+1`` (after its rising edge) and ``2c+2``); the file is
        complete when the window has run, at :meth:`trace_stop`, or at :meth:`close`. One
        waveform per simulation.

        Raises:
            RuntimeError: this simulation was not built with ``trace=True``, it has recorded a
                waveform already, or the file cannot be created.
            ValueError: ``cycles`` < 1 or ``after`` < 0.
        """
        if not self.traceable:
            raise RuntimeError("this instance simulation was built without waveform tracing (trace=True)")
        if int(cycles) < 1 or int(after) < 0:
            raise ValueError(f"trace window: cycles must be >= 1 and after >= 0, not {cycles}, {after}")
        if self._lib.inst_trace(self._h, str(path).encode(), int(after), int(cycles)) != 0:
            raise RuntimeError(f"cannot record a waveform at {path} (one waveform per simulation; "
                               "is the folder writable?)")

    def trace_stop(self) -> None:
        """End the waveform now (the file is complete); nothing when none is being recorded."""
        if self.traceable:
            self._lib.inst_trace_stop(self._h)

    def save_state(self) -> ModelState:
        """Snapshot the whole model (between bus transactions); about 1-2 MB (the engine's
        parameter memories, the preprocessor's stack, the console)."""
        return save_model(self._lib, "inst", self._h, self.cycles)

    def restore_state(self, state: ModelState) -> None:
        """Put the model back into a :meth:`save_state` snapshot (the clock count :attr:`cycles`
        keeps counting: it is the harness's, not the design's).

        Raises:
            ValueError: the snapshot is not a :class:`ModelState` of this same build.
        """
        restore_model(self._lib, "inst", self._h, state, "instance")


class MmioWindow:
    """One instance's registers inside a node's address space: ``read``/``write``/``poll`` at
    ``base + offset`` of ``mmio`` (as ``pynq.MMIO(base, 0x20000)`` gives on a board); the
    snapshot methods of the underlying simulation are passed through."""

    def __init__(self, mmio, base: int):
        self.mmio, self.base = mmio, int(base)
        if hasattr(mmio, "poll"):
            self.poll = lambda offset, *a: mmio.poll(self.base + offset, *a)
        if hasattr(mmio, "save_state"):
            self.save_state, self.restore_state = mmio.save_state, mmio.restore_state
        for name in ("engine", "lanes", "rows", "cols"):     # the engine the driver loads (EngineConfig.of)
            if hasattr(mmio, name):
                setattr(self, name, getattr(mmio, name))

    def read(self, offset: int, length: int = 4) -> int:
        return self.mmio.read(self.base + offset, length)

    def write(self, offset: int, value: int) -> None:
        self.mmio.write(self.base + offset, value)
