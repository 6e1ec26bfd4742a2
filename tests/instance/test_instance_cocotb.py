"""Runs the cocotb testbench of the committed rtl/instance_cc3.v (the fabric instance) in Verilator
through its AXI4-Lite slave, via the registration that ``make sim`` uses (rule 1:
``tests/instance/cocotb_instance.py``). Slow: the instance's Verilator build under cocotb takes
minutes."""
from __future__ import annotations

import pytest

from nc2600.hwtools.sim import run_registered
from tests.cocotb_cases import assert_cases_passed

pytestmark = pytest.mark.slow


def test_cocotb_instance(tmp_path):
    res = run_registered("instance.instance", tmp_path)
    assert_cases_passed(res, ["bus_errors", "manual_frame_equals_console_harness", "register_walk",
                              "register_walk_back_pressure"])
