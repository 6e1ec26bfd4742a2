"""Runs the cocotb testbench of the committed rtl/action_select.v in Verilator."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_cocotb_action_select(monkeypatch):
    runner_mod = pytest.importorskip("cocotb_tools.runner")
    from hw.verilator_build import verilator_env
    for key in ("VERILATOR_ROOT", "PATH"):
        monkeypatch.setenv(key, verilator_env()[key])
    build = Path(os.environ.get("NC2600_CACHE", REPO / ".cache")) / "cocotb" / "action_select"
    runner = runner_mod.get_runner("verilator")
    runner.build(sources=[REPO / "rtl" / "action_select.v"], hdl_toplevel="action_select",
                 build_dir=build, timescale=("1ns", "1ps"), build_args=["-Wno-fatal", "-Wno-lint", "-Wno-style"])
    runner.test(hdl_toplevel="action_select", test_module="tests.action_select.cocotb_action_select",
                build_dir=build, test_dir=build)
