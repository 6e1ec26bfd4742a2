"""``nc2600 bench rtl``: console RTL frames/s per core beside ALE frames/s, same game, same run.

Both run ``--frames`` frames of random minimal-set actions (frame_skip 1) in this one
process (one core) after their power-on sequence; the RTL figure is the Verilated console
(:mod:`hwtools.console_harness`) with RAM read-out each frame, the ALE figure is ``act`` with a
``getRAM`` each frame. Prints one JSON line: frames/s of wall time and, less sensitive to other
jobs on a shared machine, frames per second of this process's CPU time (``*_per_cpu_s``). The
target of the console issue is 200 RTL frames/s per core.
"""
from __future__ import annotations

import json
import time

from host.errors import UserError, int_range


def run(args) -> int:
    import numpy as np

    from host.ale_oracle import open_ale
    from host.games import resolve_rom
    from host.rtl_console import RtlConsole

    if args.frames > 1_000_000:
        raise UserError("--frames: at most 1,000,000")
    name, path = resolve_rom(game=args.game)
    ale = open_ale(path)
    acts = ale.getMinimalActionSet()
    rng = np.random.default_rng(0)
    seq = [acts[i] for i in rng.integers(0, len(acts), args.frames)]
    t0, c0 = time.perf_counter(), time.process_time()
    for a in seq:
        ale.act(a)
        ale.getRAM()
    ale_fps = args.frames / (time.perf_counter() - t0)
    ale_cpu_fps = args.frames / max(time.process_time() - c0, 1e-9)

    rtl = RtlConsole(name, path, colour_clocks_per_cycle=args.colour_clocks_per_cycle)
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
    print(json.dumps({"game": name, "mapper": rtl.mapper, "frames": args.frames,
                      "colour_clocks_per_cycle": args.colour_clocks_per_cycle,
                      "rtl_frames_per_s": round(args.frames / dt, 1),
                      "rtl_colour_clocks_per_s": round(clocks / dt),
                      "ale_frames_per_s": round(ale_fps, 1),
                      "rtl_frames_per_cpu_s": round(args.frames / cpu_dt, 1),
                      "ale_frames_per_cpu_s": round(ale_cpu_fps, 1),
                      "rtl_power_on_s": round(power_on_s, 2), "target_rtl_fps": 200}))
    return 0


def register(subparsers, groups) -> None:
    p = groups["bench"].add_parser("rtl", help="console RTL frames/s per core beside ALE frames/s (one JSON line)",
                                   description="Console RTL frames/s per core (Verilator) beside ALE frames/s, "
                                               "same game and random actions, one JSON line.")
    p.add_argument("--game", default="seaquest", help="ALE game id (default seaquest)")
    p.add_argument("--frames", type=int_range(1, 10**6), default=600, help="frames to time (default 600)")
    from host.commands import add_colour_clocks_option
    add_colour_clocks_option(p)
    p.set_defaults(func=run)
