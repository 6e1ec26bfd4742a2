"""Runs the cocotb testbench of the committed rtl/preprocessor_cc1.v in Verilator on 3 mid-game pong
frames, through the registration that ``make sim`` uses (``tests/preprocessor/cocotb_benches.py``)."""
from __future__ import annotations

import numpy as np

from nc2600.hwtools.sim import run_registered
from tests.cocotb_cases import assert_cases_passed


def test_pong_frames_exercise_the_flicker_max():
    """The testbench's frames are worth testing: pong's ball moves between the last two, so the
    max of two frames differs from the last frame alone."""
    from nc2600.hls_models import preprocessor as pp
    from nc2600.hls_models.palette import to_grey
    from nc2600.host.verify.ale_recordings import record_screens
    screens, _, fmt = record_screens("pong", 60, seed=11)
    screens = screens[-3:]
    assert fmt == "NTSC" and screens.shape[1] == 210
    grey = to_grey(screens)
    assert not np.array_equal(pp.observe(grey[1], grey[2]), pp.observe(grey[2], grey[2]))


def test_cocotb_preprocessor(tmp_path):
    res = run_registered("preprocessor.preprocessor_pong", tmp_path)
    assert_cases_passed(res, ["real_frames_match_model"])
