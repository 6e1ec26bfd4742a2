"""nc2600.host.episodes.processes.signal_when_parent_ends: the signal reaches a process whose parent ended
(Linux PR_SET_PDEATHSIG), and at once when the parent was already gone at the call."""
import os
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")

# The middle process forks a child that arms SIGTERM for its parent's death and reports ready,
# then the middle process exits: the child's handler writes the file when SIGTERM comes.
_SCRIPT = r"""
import os, signal, sys, time
from nc2600.host.episodes.processes import signal_when_parent_ends
out, mode = sys.argv[1], sys.argv[2]
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    def got(signum, frame):
        with open(out, "w") as f:
            f.write(signal.Signals(signum).name)
        os._exit(0)
    signal.signal(signal.SIGTERM, got)
    os.close(r)
    parent = os.getppid() if mode == "alive" else os.getppid() + 10**6   # a pid that is not our parent
    signal_when_parent_ends(parent, signal.SIGTERM)
    os.write(w, b"ready")
    time.sleep(30)
    os._exit(3)                     # no signal came
os.close(w)
os.read(r, 5)
print(pid, flush=True)
"""


@pytest.mark.parametrize("mode", ["alive", "gone"])
def test_the_signal_reaches_the_child_when_its_parent_ends(tmp_path, mode):
    out = tmp_path / "signal.txt"
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, str(out), mode], capture_output=True, text=True,
                          timeout=60, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert proc.returncode == 0, proc.stderr
    child = int(proc.stdout.split()[0])
    deadline = time.monotonic() + 20
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert out.read_text() == "SIGTERM"
    finally:
        try:
            os.kill(child, 9)
        except ProcessLookupError:
            pass
