"""``nc2600.host.verify.sweep.sweep_imap``: results in job order, or as the jobs finish (``ordered=False``).

Oracle: two jobs whose order of finishing is forced (``sh -c`` through ``subprocess.check_output``,
a module-level function the spawned workers can unpickle). The slow job polls for a flag file and
finishes only once it exists (or after 60 s, so a broken generator fails the test, never hangs it).

- ordered: the fast job creates the flag itself; the first result must still be the slow one's.
- unordered: the test creates the flag only after the first result has come back, so the slow job
  cannot finish first however the worker processes are scheduled (an earlier form let the fast
  job touch the flag, which left a 0.1 s race between the two workers' result puts; it failed once
  under CI load)."""
import subprocess

from nc2600.host.verify.sweep import sweep_imap


def _slow(flag):
    return ["sh", "-c", f"for i in $(seq 600); do [ -e {flag} ] && break; sleep 0.1; done; echo slow"]


def test_ordered_yields_in_job_order_although_the_second_job_finishes_first(tmp_path):
    flag = tmp_path / "a"
    jobs = [_slow(flag), ["sh", "-c", f"touch {flag}; echo fast"]]
    assert list(sweep_imap(subprocess.check_output, jobs, jobs=2)) == [b"slow\n", b"fast\n"]


def test_unordered_yields_the_finished_job_while_the_first_still_runs(tmp_path):
    flag = tmp_path / "b"
    rows = sweep_imap(subprocess.check_output, [_slow(flag), ["sh", "-c", "echo fast"]], jobs=2,
                      ordered=False)
    try:
        assert next(rows) == b"fast\n"
        assert not flag.exists()
        flag.touch()                  # only now can the slow job finish
        assert next(rows) == b"slow\n"
        assert list(rows) == []
    finally:
        flag.touch()
        rows.close()
