"""The check every pytest wrapper of a registered cocotb bench makes on its result."""
from __future__ import annotations


def assert_cases_passed(res, names: list[str]) -> None:
    """``res`` (:class:`nc2600.hwtools.sim.BenchResult`) holds exactly the test cases ``names``, in
    that order, each passed: a bench whose cases were all skipped, or that lost a case, fails."""
    got = [(c[0], c[1]) for c in res.cases]
    assert got == [(n, "passed") for n in names], res.cases
