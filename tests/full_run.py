"""``make test-full``: the slow pytest set and ``make sim`` in one run, its summary in the results record.

Usage::

    python -m tests.full_run [--record FILE] [--out DIR] [--pytest-args ARGS] [--sim-args ARGS]

Runs, one after the other, ``pytest -q -p no:cacheprovider -m slow --junitxml=OUT/slow.xml``
(``--pytest-args``: a shell-quoted string added after ``-m slow``, e.g. a selection of paths or
``-k``; a later ``-m`` replaces the marker) and ``python -m nc2600.hwtools.sim --out OUT/sim``
(``--sim-args`` added likewise, e.g. ``--full`` or ``--block cpu6507``). Both write JUnit XML;
their test cases are counted from it (passed, failed, errors, skipped), never from the console
output. The summary (counts, the failing cases' names, wall seconds of each part and of the
whole, the commit) is printed and, with ``--record``, appended to FILE as three results records
(:mod:`nc2600.host.report.results`): ``full test target: slow pytest set`` and ``full test
target: make sim`` (value ``"passed/total"``) and ``full test target: wall time`` (seconds).

Exit status: 0 when both parts ran and every case passed; 1 when a case failed or errored, a
part collected no test case, or a part's JUnit XML is missing (a crash); 2 bad input.
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: at most this many failing case names go into a record's notes (the rest are counted)
NAMES_IN_NOTES = 20


def junit_counts(path: Path) -> dict:
    """``{"total", "passed", "failed", "errors", "skipped", "failing": [names]}`` of a JUnit XML
    file (pytest's or :mod:`nc2600.hwtools.sim`'s): every ``<testcase>`` counted once, by its
    first ``<failure>``, ``<error>`` or ``<skipped>`` child (none: passed). A case's name is
    ``classname::name`` (pytest) or ``testsuite.name`` (make sim). Raises FileNotFoundError
    when the file is missing, ET.ParseError when it is not XML."""
    root = ET.parse(path).getroot()
    counts = {"total": 0, "passed": 0, "failed": 0, "errors": 0, "skipped": 0, "failing": []}
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    for suite in suites:
        for case in suite.findall("testcase"):
            counts["total"] += 1
            name = (f"{case.get('classname')}::{case.get('name')}" if case.get("classname")
                    else f"{suite.get('name')}.{case.get('name')}")
            if case.find("failure") is not None:
                counts["failed"] += 1
                counts["failing"].append(name)
            elif case.find("error") is not None:
                counts["errors"] += 1
                counts["failing"].append(name)
            elif case.find("skipped") is not None:
                counts["skipped"] += 1
            else:
                counts["passed"] += 1
    return counts


def _part(argv: list[str], junit: Path) -> tuple[dict | None, int, float]:
    """Run one part; ``(counts or None when its JUnit XML is missing or unreadable, exit status,
    wall seconds)``. Its output goes to this process's stdout and stderr as it comes."""
    t0 = time.perf_counter()
    rc = subprocess.run(argv, cwd=REPO).returncode
    wall = time.perf_counter() - t0
    try:
        return junit_counts(junit), rc, wall
    except (FileNotFoundError, ET.ParseError):
        return None, rc, wall


def _notes(counts: dict | None, rc: int, wall: float, extra: list[str]) -> str:
    if counts is None:
        return f"no JUnit XML (exit status {rc}); {wall:.0f} s"
    parts = [f"{counts['failed']} failed, {counts['errors']} errors, {counts['skipped']} skipped",
             f"exit status {rc}", f"{wall:.0f} s wall"]
    if extra:
        parts.append("arguments " + shlex.join(extra))
    names = counts["failing"]
    if names:
        shown = ", ".join(names[:NAMES_IN_NOTES])
        more = f" and {len(names) - NAMES_IN_NOTES} more" if len(names) > NAMES_IN_NOTES else ""
        parts.append(f"failing: {shown}{more}")
    return "; ".join(parts)


def _ok(counts: dict | None) -> bool:
    return counts is not None and counts["total"] > 0 and counts["failed"] == counts["errors"] == 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.full_run", description=__doc__.splitlines()[0])
    p.add_argument("--record", metavar="FILE", help="append the summary to FILE as results records")
    p.add_argument("--out", default=str(REPO / "build" / "test-full"), metavar="DIR",
                   help="folder of the JUnit XML files and make sim's outputs")
    p.add_argument("--pytest-args", default="", metavar="ARGS", help="added to 'pytest -m slow' (shell-quoted)")
    p.add_argument("--sim-args", default="", metavar="ARGS", help="added to 'python -m nc2600.hwtools.sim'")
    args = p.parse_args(argv)
    try:
        pytest_extra, sim_extra = shlex.split(args.pytest_args), shlex.split(args.sim_args)
    except ValueError as exc:
        p.error(f"--pytest-args/--sim-args: {exc}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from nc2600.host.report import results

    commit = results.commit()
    t0 = time.perf_counter()
    slow_xml = out / "slow.xml"
    slow_xml.unlink(missing_ok=True)
    slow, slow_rc, slow_s = _part([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "slow",
                                   f"--junitxml={slow_xml}", *pytest_extra], slow_xml)
    sim_xml = out / "sim" / "junit.xml"
    sim_xml.unlink(missing_ok=True)
    sim, sim_rc, sim_s = _part([sys.executable, "-m", "nc2600.hwtools.sim", "--out", str(out / "sim"), *sim_extra],
                               sim_xml)
    wall = time.perf_counter() - t0

    ok = _ok(slow) and _ok(sim)
    for name, c, rc, s in (("slow pytest set", slow, slow_rc, slow_s), ("make sim", sim, sim_rc, sim_s)):
        head = "no JUnit XML" if c is None else f"{c['passed']}/{c['total']} passed"
        print(f"test-full: {name}: {head}; {_notes(c, rc, s, [])}")
    print(f"test-full: {'passed' if ok else 'FAILED'} in {wall:.0f} s at {commit}")
    if args.record:
        def value(c):
            return "no result" if c is None else f"{c['passed']}/{c['total']}"
        cmd = "make test-full" + (f" PYTEST_ARGS={shlex.quote(args.pytest_args)}" if args.pytest_args else "") + \
            (f" SIM_ARGS={shlex.quote(args.sim_args)}" if args.sim_args else "")
        recs = [results.record("full test target: slow pytest set", value(slow), "tests passed", command=cmd,
                               commit_id=commit, notes=_notes(slow, slow_rc, slow_s, pytest_extra)),
                results.record("full test target: make sim", value(sim), "cases passed", command=cmd,
                               commit_id=commit, notes=_notes(sim, sim_rc, sim_s, sim_extra)),
                results.record("full test target: wall time", round(wall), "s", command=cmd, commit_id=commit,
                               notes=f"slow pytest set {slow_s:.0f} s, make sim {sim_s:.0f} s; "
                                     f"{'every case passed' if ok else 'FAILED'}")]
        results.append(args.record, recs)
        print(f"test-full: recorded in {args.record}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
