"""A local sweep (``host.sweep.sweep_imap``, spawned pool workers) stopped by one SIGTERM to its
process group while one worker is idle: it must end at once with the stop (exit 130), not hang.
Measured before the fix: the idle worker, killed by SIGTERM's default action while it held the
pool's task-queue lock, left ``Pool.terminate()`` waiting for that lock until a second signal."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = r"""
import subprocess, sys
from host.cli import install_sigterm_handler
install_sigterm_handler()
from host.sweep import sweep_imap
jobs = [["sh", "-c", "sleep 60; echo slow"], ["sh", "-c", "echo fast"]]
try:
    for r in sweep_imap(subprocess.check_output, jobs, jobs=2, ordered=False):
        print(r.decode().strip(), flush=True)
except KeyboardInterrupt:
    print("stopped", flush=True)
    sys.exit(130)
"""


def test_one_sigterm_to_the_group_with_an_idle_worker_stops_the_sweep(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout.readline() == "fast\n"          # one worker is idle now, the other sleeps
    time.sleep(1.0)
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("the sweep hung after one SIGTERM") from None
    assert proc.returncode == 130 and out == "stopped\n", (proc.returncode, out, err)
    assert "Traceback" not in err
