"""Runs the cocotb testbench of the committed rtl/policy_array.v (16 x 16) in Verilator, through
the registration that ``make sim`` uses (rule 1: ``tests/policy_array/cocotb_policy_array.py``).
Slow: the Verilator build of the 256-multiplier engine and the 170,567-word parameter load
driven from Python take minutes."""
from __future__ import annotations

import pytest

from nc2600.hwtools.sim import run_registered
from tests.cocotb_cases import assert_cases_passed

pytestmark = pytest.mark.slow


def test_cocotb_policy_array(tmp_path):
    res = run_registered("policy_array.policy_array", tmp_path)
    assert_cases_passed(res, ["recorded_observations", "adversarial"])
