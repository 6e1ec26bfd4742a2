"""``nc2600 bench rtl``: console RTL frames/s per core beside ALE frames/s, same game, same run.

:func:`measure` runs ``frames`` frames of random minimal-set actions (frame_skip 1,
``default_rng(0)``) in this one process (one core) on ALE, then on the Verilated console
(:class:`nc2600.host.drivers.rtl_console.RtlConsole`, :mod:`nc2600.hwtools.console_harness`) after its power-on
sequence, with a RAM read-out each frame on both (ALE's ``getRAM``). It returns one dict (the
command prints it as one JSON line): frames/s of wall time and, less sensitive to other jobs on a
shared machine, frames per second of this process's CPU time (``*_per_cpu_s``), the RTL's colour
clocks per second and its power-on time. The target of the console issue is
:data:`TARGET_RTL_FPS` RTL frames/s per core.
"""
from __future__ import annotations

import time

import numpy as np
from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS

TARGET_RTL_FPS = 200   #: console RTL frames/s per core the console issue aims at


def measure(game: str, rom_path, frames: int, colour_clocks: int = DEFAULT_COLOUR_CLOCKS) -> dict:
    """The figures of the module doc as a dict.

    Raises:
        nc2600.host.errors.UserError: the game's mapper is not in the RTL (from ``RtlConsole``).
    """
    from nc2600.host.episodes.ale_oracle import open_ale
    from nc2600.host.drivers.rtl_console import RtlConsole

    ale = open_ale(rom_path)
    acts = ale.getMinimalActionSet()
    rng = np.random.default_rng(0)
    seq = [acts[i] for i in rng.integers(0, len(acts), frames)]
    t0, c0 = time.perf_counter(), time.process_time()
    for a in seq:
        ale.act(a)
        ale.getRAM()
    ale_fps = frames / (time.perf_counter() - t0)
    ale_cpu_fps = frames / max(time.process_time() - c0, 1e-9)

    rtl = RtlConsole(game, rom_path, colour_clocks=colour_clocks)
    t0 = time.perf_counter()
    rtl.power_on()
    power_on_s = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    clocks = 0
    for a in seq:
        clocks += rtl.act(int(a.value)).colour_clocks
        rtl.ram()
    dt = time.perf_counter() - t0
    cpu_dt = max(time.process_time() - c0, 1e-9)
    return {"game": game, "mapper": rtl.mapper, "frames": frames,
            "colour_clocks": colour_clocks,
            "rtl_frames_per_s": round(frames / dt, 1),
            "rtl_colour_clocks_per_s": round(clocks / dt),
            "ale_frames_per_s": round(ale_fps, 1),
            "rtl_frames_per_cpu_s": round(frames / cpu_dt, 1),
            "ale_frames_per_cpu_s": round(ale_cpu_fps, 1),
            "rtl_power_on_s": round(power_on_s, 2), "target_rtl_fps": TARGET_RTL_FPS}
