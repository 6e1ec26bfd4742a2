"""Python driver of the preprocessor RTL in Verilator (a ctypes-loaded C++ frame loop).

:class:`PreprocessorSim` builds ``hw/preprocessor.py``'s Verilog for one screen height and
palette with :func:`nc2600.hwtools.verilator_build.build_shared_lib` (cached) and feeds whole console
frames to it: ``lines_total`` scanlines of 228 colour clocks, the ALE screen rows at
``ystart .. ystart+H-1`` and colour clocks 68..227, ``line_end`` on each line's last colour
clock and ``frame_end`` on the frame's last one (the console's timing, ALE 0.12 window).
"""
from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from nc2600.hls_models.preprocessor import OUT_SIZE, SCREEN_WIDTH, STACK
from nc2600.hwtools import verilator_build
from nc2600.hw.preprocessor import check_height, generate

HARNESS_CPP = Path(__file__).resolve().parent / "cpp" / "preprocessor_harness.cpp"
DEFAULT_YSTART = 34   #: ALE's default first screen row (scanline)
FIRST_VISIBLE = 68    #: colour clock of a line's first visible pixel (after the 68-clock horizontal blank)
CLOCKS_PER_LINE = 228  #: colour clocks per scanline


class PreprocessorSim(verilator_build.VerilatedModel):
    """The preprocessor RTL for screen height ``height`` and palette ``fmt`` in Verilator.

    Args:
        height: ALE screen height (rows).
        fmt: ``"NTSC"`` or ``"PAL"``.
        lines_total: scanlines per frame fed (default 262 NTSC, 312 PAL-height screens).
        ystart: scanline of the first screen row (ALE ``YStart``, default 34).
        pixels_per_cycle: 1 (``rtl/preprocessor_cc1.v``, one colour clock per beat) or 3
            (``preprocessor_cc3``: three colour clocks per beat, 76 beats per scanline, the
            three-colour-clock console's stream).
        first_visible: colour clock of a line's first visible pixel (68, the console's; 0..68:
            another start moves the pixels against the three-pixel beats, for tests of the
            preprocessor's "any alignment" rule).

    Raises:
        ValueError: the screen rows or columns do not fit in the frame's lines or a scanline.
    """

    FREE = "pp_free"

    def __init__(self, height: int = 210, fmt: str = "NTSC", lines_total: int | None = None,
                 ystart: int = DEFAULT_YSTART, pixels_per_cycle: int = 1, first_visible: int = FIRST_VISIBLE):
        self.height = check_height(height)
        self.pixels_per_cycle = pixels_per_cycle
        self.ystart = int(ystart)
        self.lines_total = int(lines_total or (262 if ystart + height <= 262 else 312))
        if self.ystart + self.height > self.lines_total:
            raise ValueError(f"screen rows {ystart}..{ystart + height - 1} do not fit in {self.lines_total} lines")
        if not 0 <= int(first_visible) <= CLOCKS_PER_LINE - SCREEN_WIDTH:
            raise ValueError(f"first visible colour clock {first_visible} leaves no room for {SCREEN_WIDTH} pixels "
                             f"in a {CLOCKS_PER_LINE}-colour-clock line")
        self.first_visible = int(first_visible)
        files = generate(self.height, fmt, pixels_per_cycle)
        top = f"preprocessor_cc{pixels_per_cycle}"
        harness = HARNESS_CPP.read_text().replace("Vpreprocessor", f"V{top}")
        if pixels_per_cycle != 1:
            harness = f"#define NC_PIXELS_PER_CYCLE {pixels_per_cycle}\n" + harness
        lib_path = verilator_build.build_shared_lib(f"{top}_{self.height}_{fmt.lower()}", files[f"{top}.v"],
                                                    top, harness)
        lib = self._lib = verilator_build.load(lib_path)
        lib.pp_new.restype = ctypes.c_void_p
        lib.pp_free.argtypes = [ctypes.c_void_p]
        lib.pp_clear.argtypes = [ctypes.c_void_p]
        lib.pp_cycles.argtypes = [ctypes.c_void_p]
        lib.pp_cycles.restype = ctypes.c_uint64
        lib.pp_sync_error.argtypes = [ctypes.c_void_p]
        lib.pp_obs_valid.argtypes = [ctypes.c_void_p]
        lib.pp_feed_frame.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                      ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.pp_read_stack.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.pp_idle.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self._h = ctypes.c_void_p(lib.pp_new())

    def clear(self) -> None:
        """Pulse ``clear`` for one cycle (empty stack, ``obs_valid`` and ``sync_error`` low)."""
        self._lib.pp_clear(self._h)

    def feed_frame(self, screen: np.ndarray, push: bool, short: bool = False, lines: int | None = None) -> int | None:
        """Stream one frame of palette indices.

        Args:
            screen: ``(H, 160)`` uint8 palette indices (ALE ``getScreen``).
            push: drive ``push`` for this frame (it enters the stack).
            short: allow fewer than ``H`` rows (none too): a frame whose screen rows stop early (the
                rows after them not visible, as when the console's frame ends before the screen's end).
            lines: scanlines of this frame (default ``lines_total``); ``ystart + rows`` at least.
        Returns:
            cycles from the cycle carrying the last visible pixel to the first cycle with
            ``obs_valid`` high, or None if it did not rise during the frame.
        Raises:
            ValueError: wrong shape or dtype, or ``lines`` too few for the rows.
        """
        screen = np.asarray(screen)
        rows = screen.shape[0] if screen.ndim == 2 else -1
        rows_ok = rows == self.height or (short and 0 <= rows < self.height)
        if not rows_ok or screen.shape[1] != SCREEN_WIDTH or screen.dtype != np.uint8:
            raise ValueError(f"screen must be uint8 of shape ({self.height}, {SCREEN_WIDTH}), "
                             f"got {screen.dtype} {screen.shape}")
        lines = self.lines_total if lines is None else int(lines)
        if lines < self.ystart + screen.shape[0]:
            raise ValueError(f"{lines} scanlines do not hold rows {self.ystart}..{self.ystart + screen.shape[0] - 1}")
        screen = np.ascontiguousarray(screen)
        lat = self._lib.pp_feed_frame(self._h, screen.ctypes.data, screen.shape[0], self.ystart,
                                      lines, int(bool(push)), self.first_visible)
        return None if lat < 0 else int(lat)

    def idle(self, cycles: int) -> None:
        """Run ``cycles`` clocks with no beat on the stream (no visible pixel, no line or frame end)."""
        self._lib.pp_idle(self._h, int(cycles))

    def read_stack(self) -> np.ndarray:
        """The stack through the read port, ``(4, 84, 84)`` uint8, oldest frame first."""
        out = np.empty((STACK, OUT_SIZE, OUT_SIZE), np.uint8)
        self._lib.pp_read_stack(self._h, out.ctypes.data)
        return out

    @property
    def obs_valid(self) -> bool:
        return bool(self._lib.pp_obs_valid(self._h))

    @property
    def sync_error(self) -> bool:
        return bool(self._lib.pp_sync_error(self._h))

    @property
    def cycles(self) -> int:
        """Clock cycles (beats: colour clocks, or CPU cycles with three pixels per cycle) simulated so far."""
        return int(self._lib.pp_cycles(self._h))
