"""How quickly a stop ends ``nc2600 run`` and what it leaves: the run is started in a process
group of its own, SIGINT (or SIGTERM) is sent to the group at given moments, and each try gives
the seconds from the signal to the run's exit, its exit code, and what is left: processes of
the group, the run's ``/dev/shm/nc2600-<pid>-*`` segments, temp files in the run folder.

The run: ``pong``, ``--envs-per-block 1``, population 48, 3,000-frame episodes, no video (a
generation takes long enough that the signal lands inside the evaluation).
"""
from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import tempfile
import time


def run_argv(out, workers: int, cluster: str = "local") -> list[str]:
    """The ``nc2600 run`` command line of one try (:mod:`module doc <nc2600.host.bench.stop>`)."""
    return [sys.executable, "-m", "nc2600.host.cli", "run", "--game", "pong", "--workers", str(workers),
            "--envs-per-block", "1", "--population", "48", "--generations", "50", "--episode-frames", "3000",
            "--no-video", "--progress", "lines", "--noise-table-size", str(1 << 22), "--cluster", cluster,
            "--out", str(out)]


def group_members(pgid: int) -> list[str]:
    """``ps`` rows (pid, pgid, state, command) of the processes in group ``pgid``."""
    rows = subprocess.run(["ps", "-eo", "pid=,pgid=,stat=,args="], capture_output=True, text=True).stdout
    return [r for r in rows.splitlines() if len(r.split()) > 1 and r.split()[1] == str(pgid)]


def stop_try(folder, workers: int, at_s: float, sig: int = signal.SIGINT, second_after_s: float | None = None,
             cluster: str = "local") -> dict:
    """One try: start the run in ``folder``, signal its group ``at_s`` seconds in (again
    ``second_after_s`` later), wait for its exit (at most 120 s, then SIGKILL). Returns
    ``{"workers", "at_s", "exit_s", "rc", "left", "segments", "temp_files", "stderr"}``."""
    out = os.path.join(folder, f"run-{workers}-{at_s}-{time.monotonic_ns()}")
    proc = subprocess.Popen(run_argv(out, workers, cluster), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        time.sleep(at_s)
        t0 = time.monotonic()
        os.killpg(proc.pid, sig)
        if second_after_s is not None:
            time.sleep(second_after_s)
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
        _, err = proc.communicate(timeout=120)
        exit_s = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    time.sleep(0.2)                       # the reaping of killed workers
    temp = [n for n in os.listdir(out) if n.startswith(".") and ".tmp" in n] if os.path.isdir(out) else []
    return {"workers": workers, "at_s": at_s, "exit_s": round(exit_s, 3), "rc": proc.returncode,
            "left": group_members(proc.pid), "segments": glob.glob(f"/dev/shm/nc2600-{proc.pid}-*"),
            "temp_files": temp, "stderr": err.strip().splitlines()[-1:] }


def measure(workers: int, moments: list[float], sig: int = signal.SIGINT, second_after_s: float | None = None,
            cluster: str = "local", say=lambda m: None) -> dict:
    """:func:`stop_try` at each of ``moments`` (seconds after the start); the tries and their
    median and largest exit time."""
    tries = []
    with tempfile.TemporaryDirectory(prefix="nc2600-bench-stop-") as folder:
        for at in moments:
            say(f"run --workers {workers}: {signal.Signals(sig).name} at {at:g} s")
            tries.append(stop_try(folder, workers, at, sig, second_after_s, cluster))
    times = sorted(t["exit_s"] for t in tries)
    clean = all(t["rc"] == 130 and not (t["left"] or t["segments"] or t["temp_files"]) for t in tries)
    return {"workers": workers, "cluster": cluster, "signal": signal.Signals(sig).name,
            "second_after_s": second_after_s, "tries": tries, "median_exit_s": times[len(times) // 2],
            "max_exit_s": times[-1], "all_clean": clean, "load_average_1min": round(os.getloadavg()[0], 2)}
