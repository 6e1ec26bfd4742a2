"""``nc2600 preprocessor``: figures, exit codes, bad input."""
from __future__ import annotations

import json

import pytest

from nc2600.host.cli import main
from nc2600.host.verify.preprocessor import passed


def test_rtl_run_reports_exact_match(capsys):
    rc = main(["preprocessor", "--game", "pong", "--frames", "24", "--seed", "3", "--rtl", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["passed"] is True
    assert out["frames"] == 24 and out["observations"] == 6
    assert out["rtl_mismatched_pixels"] == 0 and out["latency_cycles"] == 8   # stages S0, S1, S1b, S2..S6
    assert 0.0 <= out["max_abs_diff_vs_float"] <= 0.5      # one rounding of an exact area mean


def test_model_only_text_output(capsys):
    rc = main(["preprocess", "--game", "journey_escape", "--frames", "8"])     # the old name, an alias
    text = capsys.readouterr().out
    assert rc == 0 and "journey_escape (NTSC, 230 x 160)" in text and "PASS" in text


def test_failure_rule():
    base = {"max_abs_diff_vs_float": 0.5, "rtl_mismatched_pixels": 0, "rtl_sync_error": False,
            "latency_cycles": 7, "latency_expected_cycles": 7}
    assert passed(base)
    assert not passed({**base, "rtl_mismatched_pixels": 1})
    assert not passed({**base, "latency_cycles": [7, 8]})
    assert not passed({**base, "max_abs_diff_vs_float": 1.5})


@pytest.mark.parametrize("argv", [["--game", "nosuch"], ["--game", "pong", "--frames", "0"],
                                  ["--game", "pong", "--frames", "3"], ["--game", "pong", "--seed", "-1"],
                                  ["--frames", "10"]])
def test_bad_input_exit_2(argv, capsys):
    try:
        rc = main(["preprocessor", *argv])
    except SystemExit as exc:
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
