"""``host.sweep.sweep_imap``: results in job order, or as the jobs finish (``ordered=False``).

Oracle: two jobs whose order of finishing is forced (``sh -c`` through ``subprocess.check_output``,
a module-level function the spawned workers can unpickle): the first waits until the second has
created a file, so it finishes last however the two worker processes are scheduled."""
import subprocess

from host.sweep import sweep_imap


def _jobs(flag):
    slow = f"for i in $(seq 600); do [ -e {flag} ] && break; sleep 0.1; done; echo slow"
    return [["sh", "-c", slow], ["sh", "-c", f"touch {flag}; echo fast"]]


def test_ordered_waits_for_the_first_job_unordered_yields_the_fast_one_first(tmp_path):
    assert list(sweep_imap(subprocess.check_output, _jobs(tmp_path / "a"), jobs=2)) == [b"slow\n", b"fast\n"]
    assert list(sweep_imap(subprocess.check_output, _jobs(tmp_path / "b"), jobs=2, ordered=False)) == \
        [b"fast\n", b"slow\n"]
