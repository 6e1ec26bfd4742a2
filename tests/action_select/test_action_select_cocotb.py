"""Runs the cocotb testbench of the committed rtl/action_select.v in Verilator, through the
registration that ``make sim`` uses (rule 1: ``tests/action_select/cocotb_action_select.py``)."""
from __future__ import annotations

from nc2600.hwtools.sim import run_registered
from tests.cocotb_cases import assert_cases_passed


def test_cocotb_action_select(tmp_path):
    res = run_registered("action_select.action_select", tmp_path)
    assert_cases_passed(res, ["adversarial_vectors_back_to_back", "random_vectors_and_counts"])
