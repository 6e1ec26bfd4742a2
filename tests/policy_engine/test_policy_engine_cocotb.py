"""Runs the cocotb testbench of the committed rtl/policy_engine.v (16 MAC lanes) in Verilator, through
the registration that ``make sim`` uses (rule 1: ``tests/policy_engine/cocotb_policy_engine.py``).
Slow: the whole small network's parameter load and inferences driven from Python take minutes."""
from __future__ import annotations

import pytest

from nc2600.hwtools.sim import run_registered
from tests.cocotb_cases import assert_cases_passed

pytestmark = pytest.mark.slow


def test_cocotb_policy_engine(tmp_path):
    res = run_registered("policy_engine.policy_engine", tmp_path)
    assert_cases_passed(res, ["recorded_observations", "adversarial"])
