"""``make test-full`` (tests/full_run.py) on tiny selections: the slow-set fixture
(``fixtures/slow_set/check_slow_set.py``: 2 pass, 1 fails on request, 1 skipped, 1 not slow) and
the ``make sim`` counter fixture (``fixtures/counter``). Oracle: the fixtures' known outcomes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SLOW = "tests/sim_framework/fixtures/slow_set/check_slow_set.py"
SIM = "--tests-root tests/sim_framework/fixtures --bench counter_pass$"


def _full(tmp_path: Path, *, fail: bool, sim: str = SIM) -> tuple[subprocess.CompletedProcess, list[dict]]:
    record = tmp_path / "reliability.jsonl"
    proc = subprocess.run([sys.executable, "-m", "tests.full_run", "--record", str(record), "--out",
                           str(tmp_path / "o"),
                           "--pytest-args", SLOW, "--sim-args", sim], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "NC2600_FIXTURE_FAIL": "1" if fail else "0"}, timeout=900)
    recs = [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []
    return proc, recs


def test_a_passing_run_records_counts_wall_time_and_commit(tmp_path):
    from nc2600.host.report.results import check, commit
    proc, recs = _full(tmp_path, fail=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert [r["figure"] for r in recs] == ["full test target: slow pytest set", "full test target: make sim",
                                           "full test target: wall time"]
    slow, sim, wall = recs
    assert (slow["value"], slow["unit"]) == ("3/4", "tests passed")        # 3 passed, 1 skipped of 4 slow
    assert slow["notes"].startswith("0 failed, 0 errors, 1 skipped; exit status 0;")
    # counter_pass: the correct test passes, the wrong one is skipped there
    assert (sim["value"], sim["unit"]) == ("1/2", "cases passed")
    assert sim["notes"].startswith("0 failed, 0 errors, 1 skipped; exit status 0;")
    assert wall["unit"] == "s" and wall["value"] >= 0 and wall["notes"].endswith("every case passed")
    assert all(check(r) and r["commit"] == commit() and r["command"].startswith("make test-full") for r in recs)
    assert "test-full: passed" in proc.stdout


def test_a_failing_case_fails_the_target_and_is_named(tmp_path):
    proc, recs = _full(tmp_path, fail=True)
    assert proc.returncode == 1
    slow = recs[0]
    assert slow["value"] == "2/4"
    assert "1 failed" in slow["notes"] and "check_slow_set::test_fails_when_asked" in slow["notes"]
    assert recs[2]["notes"].endswith("FAILED") and "test-full: FAILED" in proc.stdout


def test_a_part_that_runs_nothing_fails_the_target(tmp_path):
    """A selection that finds no test bench is no pass."""
    proc, recs = _full(tmp_path, fail=False, sim="--tests-root tests/sim_framework/fixtures --bench nosuchbench")
    assert proc.returncode == 1
    assert recs[1]["value"] == "no result" and "test-full: FAILED" in proc.stdout
