"""Regression tests of bad input that once crashed or misled: one line on stderr, exit 2.

Oracles: the fabric's register widths (``hls_models.frame_skip.MAX_EPISODE_FRAMES``, the
instance's 24-bit ``EP_FRAMES``), the commands' documented bounds.
"""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from hls_models.frame_skip import MAX_EPISODE_FRAMES


def nc2600(*args, **kw):
    return subprocess.run([sys.executable, "-m", "host.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120, **kw)


def one_line_exit_2(proc, *needles):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_the_fabric_holds_24_bit_episode_caps():
    assert MAX_EPISODE_FRAMES == (1 << 24) - 1 == 16_777_215


@pytest.mark.parametrize("command", [
    ["run", "--out", "{tmp}/x"],
    ["play", "--run", "{tmp}"],
    ["bench", "host", "--seconds", "1"],
    ["instance-play", "--game", "pong", "--params", "{tmp}/p.npy"],
])
def test_episode_frames_above_the_fabrics_24_bits_is_refused_before_any_work(command, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in command]
    one_line_exit_2(nc2600(*argv, "--episode-frames", MAX_EPISODE_FRAMES + 1), "--episode-frames", "16_777_215")
    assert not (tmp_path / "x").exists()


def test_resume_of_a_config_with_a_cap_above_24_bits_is_refused(tmp_path):
    from host.run import RunConfig
    cfg = dataclasses.asdict(RunConfig())
    cfg["episode_frames"] = MAX_EPISODE_FRAMES + 1
    (tmp_path / "config.json").write_text(json.dumps({"config": cfg}))
    one_line_exit_2(nc2600("run", "--resume", tmp_path), "damaged", "--episode-frames", "16,777,215")


# -- defaults that follow the population -------------------------------------------------
def _build(*argv):
    from host.cli import build_parser
    from host.commands.run import build
    cfg = build(build_parser().parse_args(["run", *argv]))[0]
    cfg.validate()
    return cfg


def test_population_defaults_are_min_cap_and_half_the_population():
    from host.run import population_defaults
    assert population_defaults(40) == {"truncation": 10, "elite_candidates": 5}      # the default run's
    assert population_defaults(6) == {"truncation": 3, "elite_candidates": 3}
    assert population_defaults(2) == {"truncation": 1, "elite_candidates": 1}
    assert population_defaults(1000) == {"truncation": 10, "elite_candidates": 5}


@pytest.mark.parametrize("argv, truncation, elite", [
    (["--population", "6"], 3, 3),
    (["--population", "3"], 1, 1),
    (["--algo", "rs", "--population", "4"], 2, 2),
    (["--population", "6", "--truncation", "5"], 5, 3),      # a given value is kept
    ([], 10, 5),
])
def test_options_never_given_fit_the_population(argv, truncation, elite):
    cfg = _build(*argv)
    assert (cfg.truncation, cfg.elite_candidates) == (truncation, elite)


def test_random_search_has_no_truncation_to_refuse():
    cfg = _build("--algo", "rs", "--population", "4", "--truncation", "10")
    assert cfg.population == 4


@pytest.mark.parametrize("argv, words", [
    (["--population", "6", "--truncation", "10"], "--truncation (10) must be at most the population (6)"),
    (["--population", "6", "--elite-candidates", "7"], "--elite-candidates (7) must be at most the population (6)"),
    (["--sigma", "1e-300"], "argument --sigma: expected a number in [1.17549e-38, 10]"),
    (["--es-l2", "-1"], "argument --es-l2: expected a number in [0, 1]"),
])
def test_values_that_do_not_fit_are_one_line(argv, words, tmp_path):
    one_line_exit_2(nc2600("run", *argv, "--out", tmp_path / "x"), words)
    assert not (tmp_path / "x").exists()


def test_help_states_the_population_rule_and_es_l2():
    text = " ".join(nc2600("run", "--help").stdout.split())
    assert "default min(10, population / 2), rounded down" in text
    assert "default min(5, population / 2), rounded down" in text
    assert "--es-l2 L2 ES weight decay coefficient (default 0.005)" in text


def test_config_json_records_the_values_used(tmp_path):
    from host.run import Run
    cfg = _build("--population", "6", "--es-l2", "0.25", "--noise-table-size", str(1 << 20))
    run = Run(cfg, tmp_path / "r")
    run.prepare()
    run.folder.release()
    saved = json.loads((tmp_path / "r" / "config.json").read_text())["config"]
    assert (saved["truncation"], saved["elite_candidates"], saved["es_l2"]) == (3, 3, 0.25)


def test_sigma_at_float32s_smallest_normal_still_mutates():
    import numpy as np
    from host.run import SIGMA_MIN
    assert SIGMA_MIN == float(np.finfo(np.float32).tiny)
    assert np.float32(SIGMA_MIN) * np.float32(1.0) > 0 and np.float32(1e-300) == 0
    assert _build("--sigma", repr(SIGMA_MIN)).sigma == SIGMA_MIN
