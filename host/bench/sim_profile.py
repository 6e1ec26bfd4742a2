"""Instructions per frame of the Verilated console and fabric instance, counted by callgrind.

Frames per CPU-second move with the machine's load (other processes share its caches and cores);
the number of machine instructions a frame takes does not. :func:`profile` measures both on one
build, outside Python: a snapshot of the model at a fixed point (:func:`console_state`: after
ALE's power-on and reset sequence; :func:`instance_state`: an episode just started with a seeded
random int8 network) is restored by ``hwtools/cpp/profile_driver.c`` (compiled here with the
system C compiler, cached), which runs ``frames`` frames natively for the CPU time, then again
under ``valgrind --tool=callgrind`` for the instruction count (every instruction from the
snapshot's restore to the end: the model's evaluation functions, the harness loop and the
driver's own few calls a frame). The count is exact and repeatable for one build and one
compiler; the CPU time is ``clock()`` of the native run.

Console frames are ALE ``update()`` calls with a joystick input drawn from a fixed LCG and a RIOT
RAM read each (as ``nc2600 bench rtl``); instance frames are host turns (the instance asks for the
game rules once a frame; the driver answers reward 0, not terminal), so a frame includes the
inference clocks of its decision (one decision per frame-skip period). The report names the
hottest functions of the callgrind profile with their share of the instructions.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from nc2600.hwtools.cache import REPO_ROOT, cache_dir

DRIVER_C = REPO_ROOT / "hwtools" / "cpp" / "profile_driver.c"


def driver() -> Path:
    """``profile_driver`` compiled from :data:`DRIVER_C` with ``cc -O2`` (cached by the source's
    content hash). Raises RuntimeError when the compiler fails."""
    import hashlib
    src = DRIVER_C.read_text()
    out = cache_dir("profile") / f"profile_driver-{hashlib.sha256(src.encode()).hexdigest()[:16]}"
    if not out.exists():
        tmp = out.with_name(out.name + f".tmp{os.getpid()}")
        proc = subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", str(tmp), str(DRIVER_C), "-ldl"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"cc failed on {DRIVER_C}:\n{proc.stderr[-2000:]}")
        tmp.rename(out)
    return out


def console_state(game: str, rom_path, colour_clocks: int) -> tuple[str, bytes, list[str]]:
    """``(library, snapshot, extra driver arguments)`` of the console after ALE's power-on and
    reset sequence (:meth:`nc2600.host.drivers.rtl_console.RtlConsole.power_on`)."""
    from nc2600.host.drivers.rtl_console import RtlConsole
    rtl = RtlConsole(game, rom_path, colour_clocks=colour_clocks)
    rtl.power_on()
    st = rtl.sim.save_state()
    return st.build, st.data, []


def instance_state(game: str, rom_path, colour_clocks: int, seed: int = 0) -> tuple[str, bytes, list[str]]:
    """``(library, snapshot, extra driver arguments)`` of the default instance (array engine)
    right after an episode's start command (no-op starts of episode seed 1, frame skip 4, a
    20,000-frame cap), with the int8 network of ``init_params(seed)`` quantised as ``--policy
    int8`` does (calibration seed 0); the extra arguments are the host-turn protocol's register
    offsets and values (module doc)."""
    from nc2600.hls_models.frame_skip import action_table, noop_frames
    from nc2600.hls_models.policy_int8 import quantize
    from nc2600.host.drivers import instance as I
    from nc2600.host.episodes.policy import init_params
    from nc2600.host.episodes.calibration import calibration_observations
    from nc2600.host.games import game_info
    from nc2600.hwtools.instance_harness import InstanceSim

    info = game_info(game, rom_path)
    n_actions = len(info.minimal_actions)
    qp = quantize(init_params(seed, n_actions), n_actions, calibration_observations(rom_path, 4, 2000, 0, 32))
    sim = InstanceSim(info.screen_height, info.display, colour_clocks=colour_clocks)
    d = I.InstanceDriver(sim)
    runner = I.InstanceEpisodeRunner(d, game, rom_path, 4, 36)
    runner.run(0, qp)                               # replays the reset sequence, keeps its snapshot
    R = I.R
    sim.restore_state(runner._snapshot)             # the episode start state the runner restores
    # the runner's own start of an episode (InstanceEpisodeRunner.run), without its host loop
    ids = runner.ids
    _, noop_index, fire_index = action_table(ids)
    d.write(R.EP_CFG, noops=noop_frames(1), noop_index=noop_index, fire_en=int(fire_index is not None),
            fire_index=fire_index or 0, frame_skip=4, n_actions=len(ids))
    d.write(R.EP_FRAMES, frames=20_000)
    d.write(R.CONTROL, start=1)
    st = sim.save_state()
    turn = R.STATUS["host_turn"]
    extra = [R.STATUS.offset, turn.mask, turn.pack(1), d.poll_gap, R.REWARD.address(0), R.REWARD.pack(value=0),
             R.RULES.address(0), R.RULES.pack(terminal=0)]
    return st.build, st.data, [str(int(v)) for v in extra]


def _parse_driver(text: str, per_clock: int) -> dict:
    """The driver's line; ``clocks`` in model clocks (the console driver counts colour clocks,
    ``per_clock`` of them a clock)."""
    m = re.search(r"frames (\d+) clocks (\d+) cpu_s ([\d.]+) frames_per_cpu_s ([\d.]+)", text)
    if not m:
        raise RuntimeError(f"profile_driver printed no result:\n{text[-2000:]}")
    return {"frames": int(m[1]), "clocks": int(m[2]) // per_clock, "cpu_s": float(m[3]),
            "frames_per_cpu_s": float(m[4])}


def callgrind_functions(path: Path, top: int = 8) -> tuple[int, list[tuple[str, float]]]:
    """``(total instructions, [(function, share), ...])`` of a callgrind output file (self cost,
    the ``top`` largest) via ``callgrind_annotate``."""
    proc = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", str(path)],
                          capture_output=True, text=True)
    total, cost = 0, {}
    for line in proc.stdout.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*([\d.]+)%\)\s+(.*)", line)
        if not m:
            continue
        n = int(m[1].replace(",", ""))
        if "PROGRAM TOTALS" in m[3]:
            total = n
        else:   # "file:function [object]": one function's code inlined from several files sums up
            name = m[3].split(" [")[0].split(":", 1)[-1]
            cost[name] = cost.get(name, 0) + n
    rows = sorted(cost.items(), key=lambda kv: -kv[1])[:top]
    return total, [(name, n / max(total, 1)) for name, n in rows]


def profile(kind: str, game: str, rom_path, frames: int, colour_clocks: int, callgrind_frames: int) -> dict:
    """Frames per CPU-second (native, ``frames`` frames) and instructions per frame (callgrind,
    ``callgrind_frames`` frames; none when 0) of ``kind`` (``"console"`` or ``"instance"``) from
    one snapshot.

    Raises:
        RuntimeError: valgrind is not installed, or the driver failed.
    """
    if callgrind_frames and shutil.which("valgrind") is None:
        raise RuntimeError("valgrind is not installed (apt-get install valgrind)")
    lib, data, extra = (console_state if kind == "console" else instance_state)(game, rom_path, colour_clocks)
    exe = driver()
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.bin"
        state.write_bytes(data)
        args = [str(exe), kind, lib, str(state)]
        native = subprocess.run(args + [str(frames)] + extra, capture_output=True, text=True)
        if native.returncode != 0:
            raise RuntimeError(f"profile_driver failed:\n{native.stderr[-2000:]}")
        per_clock = colour_clocks if kind == "console" else 1
        timed = _parse_driver(native.stdout, per_clock)
        result = {"kind": kind, "game": game, "colour_clocks": colour_clocks, "build": Path(lib).parent.name,
                  "frames": timed["frames"], "clocks_per_frame": round(timed["clocks"] / max(timed["frames"], 1)),
                  "frames_per_cpu_s": timed["frames_per_cpu_s"]}
        if not callgrind_frames:
            return result
        out = Path(tmp) / "callgrind.out"
        cg = subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=no", f"--callgrind-out-file={out}",
                             *args, str(callgrind_frames), *extra], capture_output=True, text=True)
        if cg.returncode != 0 or not out.exists():
            raise RuntimeError(f"callgrind run failed:\n{cg.stderr[-2000:]}")
        counted = _parse_driver(cg.stdout, per_clock)
        total, functions = callgrind_functions(out)
    # the restore and the driver's start-up are counted once: per frame they are a small
    # share at tens of frames (a restore is one copy of the model, a few hundred kB)
    return {**result, "callgrind_frames": counted["frames"],
            "instructions_per_frame": round(total / max(counted["frames"], 1)),
            "instructions_per_clock": round(total / max(counted["clocks"], 1)),
            "hottest": [[name, round(share, 4)] for name, share in functions]}


def as_figures(r: dict) -> list[tuple]:
    """``--record`` figures of a :func:`profile` result."""
    what = "console RTL" if r["kind"] == "console" else "default fabric instance"
    cc = {1: "one colour clock per clock", 3: "three colour clocks per clock"}[r["colour_clocks"]]
    note = "" if "hottest" not in r else (f"{r['game']}; {r['build']}; {r['clocks_per_frame']:,} clocks a frame; "
            f"{r['instructions_per_clock']:,} instructions a clock; hottest: "
            + ", ".join(f"{n} {s:.0%}" for n, s in r["hottest"][:3]))
    out = [(f"{what} frames per CPU-second in Verilator without Python, {cc}", r["frames_per_cpu_s"],
            "frames per CPU-second", f"{r['game']}, {r['frames']} frames; {r['build']}")]
    if "instructions_per_frame" in r:
        out.append((f"{what} instructions per frame (callgrind), {cc}", r["instructions_per_frame"], "instructions",
                    note))
    return out
