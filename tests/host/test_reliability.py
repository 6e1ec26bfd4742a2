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
