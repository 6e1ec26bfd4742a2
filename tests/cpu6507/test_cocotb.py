"""Runs the cocotb testbenches (cocotb_cpu6507.py) on rtl/cpu6507.v with Verilator, through the
registration that ``make sim`` uses (``tests/cpu6507/cocotb_benches.py``).

The default run is a sample (one short program); the full run (``make sim-full``, or
``pytest -m slow``) runs every program.
"""
import pytest

from nc2600.hwtools.sim import run_registered


def _check(res):
    assert {c[0] for c in res.cases} == {"reset_vector_and_registers", "program_matches_py65", "ce_and_rdy"}, res.cases
    assert res.failed == 0, [c for c in res.cases if c[1] != "passed"]


def test_cocotb_sample(tmp_path):
    _check(run_registered("cpu6507.cpu6507", tmp_path))


@pytest.mark.slow
def test_cocotb_full(tmp_path):
    _check(run_registered("cpu6507.cpu6507", tmp_path, full=True))
