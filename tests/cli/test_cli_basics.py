"""CLI plumbing: bad input gives one line on stderr and exit code 2."""
import subprocess
import sys


def _nc2600(*args):
    return subprocess.run([sys.executable, "-m", "host.cli", *args], capture_output=True, text=True)


def test_unknown_subcommand_is_one_line_exit_2():
    proc = _nc2600("no-such-command")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "no-such-command" in proc.stderr
    assert "Traceback" not in proc.stderr
