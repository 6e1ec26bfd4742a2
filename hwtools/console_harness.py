"""Fast Verilator harness of the whole 2600 console: whole frames per call, from Python.

The Verilog comes from :func:`nc2600.hw.console.generate`, the loop from
``hwtools/cpp/console_harness.cpp``; :func:`nc2600.hwtools.verilator_build.build_shared_lib` caches the
build by content hash, so only the first use in a checkout compiles (a few minutes on the
2-core reference machine).

:class:`ConsoleSim` is the raw machine: load a ROM and RAM contents, reset, set the
controller inputs, run one ALE ``update()`` (:meth:`ConsoleSim.run_frame`), read the
frame buffer (``height x 160`` palette indices, uint8), the RIOT RAM (128 bytes) and the
cartridge RAM (128 bytes). The ALE power-on/reset sequence is :mod:`nc2600.host.drivers.rtl_console`.
:meth:`ConsoleSim.save_state` / :meth:`ConsoleSim.restore_state` snapshot the whole model and
the harness's frame state in memory (Verilator's ``--savable``; a simulation facility).

Example::

    sim = ConsoleSim()
    sim.configure(mapper="4K", pal=False, hmove_blanks=True, ystart=34, height=210)
    sim.load_rom(rom_bytes)
    sim.reset(timer_init=60)
    frame = sim.run_frame()          # FrameResult(status=0, screen=(210,160) uint8, ...)
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nc2600.hw.cartridge import MAPPER_CODES
from nc2600.hw.interfaces import ControllerSignature
from nc2600.hwtools.verilator_build import ModelState, VerilatedModel, bind_snapshots, restore_model, save_model
from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS

HARNESS_CPP = Path(__file__).resolve().parent / "cpp" / "console_harness.cpp"
MAX_INSTRUCTIONS = 25000   #: ALE's M6502::execute(25000) per TIA::update()

#: The console configurations: colour clocks per clock -> (Verilator top module, harness prelude).
CONFIGS = {1: ("console_cc1", ""), 3: ("console_cc3", "#define NC_CC3 1\n")}
_LIBS: dict[int, ctypes.CDLL] = {}
#: The controller inputs' released state (nothing pressed, no paddle): the initial values of
#: :data:`nc2600.hw.interfaces.ControllerSignature`, whose members :meth:`ConsoleSim.set_inputs` sets.
RELEASED = {name: ControllerSignature.members[name].init for name in ("swcha", "swchb", "inpt4", "inpt5")}
RELEASED["paddle_mode"] = ControllerSignature.members["paddles"].signature.members["mode"].init


def build(colour_clocks: int = DEFAULT_COLOUR_CLOCKS) -> Path:
    """Build (or find in the cache) ``libconsole.so`` (``libconsole3.so`` for the console that
    runs three colour clocks per clock, :class:`nc2600.hw.console.Console` ``colour_clocks=3``).

    Raises:
        ValueError: ``colour_clocks`` is not 1 or 3.
    """
    from nc2600.hw.console import Console
    from nc2600.hw import reproducible
    from nc2600.hwtools.verilator_build import (NO_DFG_ARGS, NO_VECTORISE_CFLAGS, ONE_FILE_ARGS, SAVABLE_ARGS,
                                         build_shared_lib, savable_harness)
    if colour_clocks not in CONFIGS:
        raise ValueError(f"colour_clocks must be 1 or 3, not {colour_clocks!r}")
    top, prelude = CONFIGS[colour_clocks]
    verilog = reproducible.convert(Console(colour_clocks=colour_clocks), top)
    return build_shared_lib(top, verilog, top, savable_harness(prelude + HARNESS_CPP.read_text()),
                            extra_verilator_args=("-CFLAGS", f"-O3 {NO_VECTORISE_CFLAGS}", *SAVABLE_ARGS,
                                                  *ONE_FILE_ARGS, *NO_DFG_ARGS))


def _lib(colour_clocks: int = DEFAULT_COLOUR_CLOCKS) -> ctypes.CDLL:
    if colour_clocks not in _LIBS:
        path = build(colour_clocks)
        lib = ctypes.CDLL(str(path))
        vp, i32, u8p = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_uint8)
        lib.con_new.restype = vp
        lib.con_free.argtypes = [vp]
        lib.con_config.argtypes = [vp, i32, i32, i32, i32, i32]
        lib.con_write_mem.argtypes = [vp, i32, u8p, i32]
        lib.con_read_ram.argtypes = [vp, i32, u8p, i32]
        lib.con_reset.argtypes = [vp, i32]
        lib.con_inputs.argtypes = [vp, i32, i32, i32, i32, ctypes.POINTER(ctypes.c_uint32),
                                   ctypes.POINTER(ctypes.c_int32)]
        lib.con_run_frame.argtypes = [vp, u8p, ctypes.POINTER(ctypes.c_int64), i32]
        lib.con_run_frame.restype = i32
        bind_snapshots(lib, "con", path)
        _LIBS[colour_clocks] = lib
    return _LIBS[colour_clocks]


@dataclass
class FrameResult:
    """One ALE ``update()``: status 0 frame completed, 1 partial (instruction limit), 2 jam.

    ``colour_clocks``: colour clocks run by this call; ``scanlines``: scanline of the frame
    where it stopped; ``pc``: CPU program counter at the stop; ``cycles``: Stella's CPU
    cycle count of the frame; ``instructions``: instructions executed; ``first_input``: the
    console's clocks in this call before its first access that reads a controller input a
    chosen action drives (SWCHA, INPT0-5: :func:`nc2600.hw.console.input_read`), -1 when none."""
    status: int
    colour_clocks: int
    scanlines: int
    pc: int
    cycles: int
    instructions: int
    first_input: int = -1


def _u8p(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))


class ConsoleSim(VerilatedModel):
    """One Verilated console (see the module docstring); ``colour_clocks`` 1 or 3
    chooses the configuration (:class:`nc2600.hw.console.Console`; same results, by construction).

    Raises:
        ValueError: ``colour_clocks`` is not 1 or 3.
    """

    FREE = "con_free"

    def __init__(self, colour_clocks: int = DEFAULT_COLOUR_CLOCKS):
        self.colour_clocks = colour_clocks
        self._lib = _lib(colour_clocks)
        self._h = self._lib.con_new()
        self.height = 210
        self.screen = np.zeros((self.height, 160), np.uint8)
        self._info = np.zeros(8, np.int64)

    def configure(self, mapper: str, pal: bool, hmove_blanks: bool, ystart: int, height: int) -> None:
        """Set the mapper (:data:`nc2600.hw.cartridge.MAPPER_CODES`), PAL (342-line limit, colour loss),
        HMOVE blanks, and the drawn window (``ystart`` first scanline, ``height`` rows)."""
        if mapper not in MAPPER_CODES:
            raise ValueError(f"mapper {mapper} not implemented by the console RTL")
        self.height = int(height)
        self.screen = np.zeros((self.height, 160), np.uint8)
        self._lib.con_config(self._h, MAPPER_CODES[mapper], int(pal), int(hmove_blanks), int(ystart),
                             int(height))

    def _write(self, which: int, data) -> None:
        a = np.ascontiguousarray(np.frombuffer(bytes(data), np.uint8))
        self._lib.con_write_mem(self._h, which, _u8p(a), len(a))

    def load_rom(self, image: bytes) -> None:
        """Load the ROM image (at most 16 KiB; smaller images are written from address 0)."""
        if len(image) > 16384:
            raise ValueError("ROM larger than 16 KiB")
        self._write(0, image)

    def write_cart_ram(self, data) -> None:
        """Write the 128-byte SuperChip RAM (needs a following :meth:`reset`)."""
        self._write(1, data)

    def write_riot_ram(self, data) -> None:
        """Write the 128-byte RIOT RAM (needs a following :meth:`reset`)."""
        self._write(2, data)

    def reset(self, timer_init: int) -> None:
        """Stella's ``System::reset``: registers to power-on values, RIOT timer = timer_init."""
        self._lib.con_reset(self._h, int(timer_init))

    def set_inputs(self, swcha: int = RELEASED["swcha"], swchb: int = RELEASED["swchb"],
                   inpt4: int = RELEASED["inpt4"], inpt5: int = RELEASED["inpt5"],
                   paddle_needed=(0, 0, 0, 0), paddle_mode=(RELEASED["paddle_mode"],) * 4) -> None:
        """Controller and switch inputs for the next frames: the console's ``controllers`` port
        (:data:`nc2600.hw.interfaces.ControllerSignature`; active-low joystick bits, paddle ``i``'s charge
        time in CPU cycles and mode); the defaults are the signature's released state."""
        n = np.asarray(paddle_needed, np.uint32)
        md = np.asarray(paddle_mode, np.int32)
        self._lib.con_inputs(self._h, swcha, swchb, inpt4, inpt5,
                             n.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)),
                             md.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)))

    def run_frame(self, max_instructions: int = MAX_INSTRUCTIONS) -> FrameResult:
        """Run one ALE ``update()``; the frame buffer is left in :attr:`screen`.

        Raises:
            RuntimeError: the console's ``frame.*_next`` outputs (:data:`nc2600.hw.interfaces.FrameSignature`)
                did not equal the next clock's values at some clock (checked at every clock).
        """
        st = self._lib.con_run_frame(self._h, _u8p(self.screen),
                                     self._info.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                                     max_instructions)
        i = self._info
        if i[6]:
            raise RuntimeError(f"console RTL: frame.*_next mispredicted the next clock at {int(i[6])} clocks "
                               "(nc2600.hw.interfaces.FrameSignature's contract)")
        return FrameResult(int(st), int(i[0]), int(i[1]), int(i[2]), int(i[3]), int(i[4]), int(i[7]))

    def save_state(self) -> ModelState:
        """Snapshot the console between frames: every register and memory of the design (ROM,
        RAMs, inputs included), the harness's frame buffers and partial-frame state, and the
        last screen (about 0.2 MB)."""
        return save_model(self._lib, "con", self._h, extra=(self.height, self.screen.copy()))

    def restore_state(self, state: ModelState) -> None:
        """Put the console back into a :meth:`save_state` snapshot.

        Raises:
            ValueError: the snapshot is not a :class:`ModelState` of this same build.
        """
        restore_model(self._lib, "con", self._h, state, "console")
        self.height = state.extra[0]
        self.screen = state.extra[1].copy()

    def riot_ram(self) -> np.ndarray:
        """The 128 bytes of RIOT RAM ($80-$FF), uint8."""
        out = np.zeros(128, np.uint8)
        self._lib.con_read_ram(self._h, 2, _u8p(out), 128)
        return out

    def cart_ram(self) -> np.ndarray:
        """The 128 bytes of SuperChip RAM (zeros-meaningless for carts without RAM), uint8."""
        out = np.zeros(128, np.uint8)
        self._lib.con_read_ram(self._h, 1, _u8p(out), 128)
        return out
