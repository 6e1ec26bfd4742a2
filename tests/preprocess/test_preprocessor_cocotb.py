"""Runs the cocotb testbench of the committed rtl/preprocessor.v in Verilator on 3 mid-game pong frames."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def test_cocotb_preprocessor(monkeypatch, tmp_path):
    runner_mod = pytest.importorskip("cocotb_tools.runner")
    from host.commands.preprocess import record_screens
    from hw.verilator_build import verilator_env
    from hls_models import preprocess as pp
    from hls_models.palette import to_grey
    screens, _, fmt = record_screens("pong", 60, seed=11)
    screens = screens[-3:]                  # mid-game: the ball moves, so the flicker max matters
    assert fmt == "NTSC" and screens.shape[1] == 210
    grey = to_grey(screens)
    assert not np.array_equal(pp.observe(grey[1], grey[2]), pp.observe(grey[2], grey[2]))
    np.save(tmp_path / "frames.npy", screens)
    for key in ("VERILATOR_ROOT", "PATH"):
        monkeypatch.setenv(key, verilator_env()[key])
    build = Path(os.environ.get("NC2600_CACHE", REPO / ".cache")) / "cocotb" / "preprocessor"
    runner = runner_mod.get_runner("verilator")
    runner.build(sources=[REPO / "rtl" / "preprocessor.v"], hdl_toplevel="preprocessor",
                 build_dir=build, timescale=("1ns", "1ps"), build_args=["-Wno-fatal", "-Wno-lint", "-Wno-style"])
    runner.test(hdl_toplevel="preprocessor", test_module="tests.preprocess.cocotb_preprocessor",
                build_dir=build, test_dir=build, extra_env={"NC2600_PP_FRAMES": str(tmp_path / "frames.npy")})
