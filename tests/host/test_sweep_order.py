"""``host.sweep.sweep_imap``: results in job order, or as the jobs finish (``ordered=False``).

Oracle: jobs whose durations are known (``sh -c "sleep S; echo NAME"`` through
``subprocess.check_output``, a module-level function the spawned workers can unpickle)."""
import subprocess

from host.sweep import sweep_imap

JOBS = [["sh", "-c", "sleep 2; echo slow"], ["sh", "-c", "echo fast"]]


def test_ordered_waits_for_the_first_job_unordered_yields_the_fast_one_first():
    assert list(sweep_imap(subprocess.check_output, JOBS, jobs=2)) == [b"slow\n", b"fast\n"]
    assert list(sweep_imap(subprocess.check_output, JOBS, jobs=2, ordered=False)) == [b"fast\n", b"slow\n"]
