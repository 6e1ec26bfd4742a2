"""A new user's first hour: the README's quick starts write under ``runs/`` (git-ignored), time
estimates come from measurement, and ``bench host`` says when a figure is under its target.
Oracles: the README's own text, ``.gitignore``, hand-worked ratios."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: options whose value is a file or folder a command writes (or, for --actions/--params, a
#: file a quick start made)
WRITTEN = ("--out", "--video", "--fst", "--actions", "--params", "--results")


def _readme_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```\n(.*?)```", text, flags=re.S)
    commands = []
    for block in blocks:
        block = block.replace("\\\n", " ")
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("nc2600 "):
                commands.append(shlex.split(line))
    return commands


def test_the_readme_quick_starts_write_under_runs():
    commands = _readme_commands()
    assert len(commands) >= 10
    seen = 0
    for argv in commands:
        for i, word in enumerate(argv[:-1]):
            if word in WRITTEN and argv[0:2] != ["nc2600", "results"]:
                assert argv[i + 1].startswith("runs/"), " ".join(argv)
                seen += 1
    assert seen >= 10
    assert "runs/" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_readme_actions_file_is_made_under_runs():
    text = (ROOT / "README.md").read_text()
    assert "np.save('runs/actions.npy'" in text and "np.save('actions.npy'" not in text


@pytest.mark.parametrize("ratio, cpu_ratio, load, words", [
    (0.62, 0.7, 0.5, "loop/raw ratio 0.62 meets its target (>= 0.5)"),
    (0.5, 0.7, 0.5, "loop/raw ratio 0.5 meets its target (>= 0.5)"),
    (0.31, 0.55, 1.0, "loop/raw ratio 0.31 is UNDER its target (>= 0.5): 62% of it (CPU ratio 0.55)"),
])
def test_bench_host_says_when_its_ratio_is_under_target(monkeypatch, ratio, cpu_ratio, load, words):
    import os

    from nc2600.host.commands.bench_host import target_verdict
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert target_verdict({"ratio": ratio, "target_ratio": 0.5, "cpu_ratio": cpu_ratio,
                           "load_average_1min": load}) == words


def test_bench_host_names_a_loaded_machine(monkeypatch):
    import os

    from nc2600.host.commands.bench_host import target_verdict
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    line = target_verdict({"ratio": 0.2, "target_ratio": 0.5, "cpu_ratio": 0.5, "load_average_1min": 17.2})
    assert line.endswith("the machine was loaded (load average 17.2 on 2 cores), so the wall figures are low")


def test_a_verilator_build_announces_this_machines_last_build_time(tmp_path):
    from nc2600.hwtools import verilator_build as vb
    assert vb._build_estimate(tmp_path, "console_cc3") == vb.BUILD_ESTIMATE
    vb._remember_build_seconds(tmp_path, "console_cc3", 123.4)
    vb._remember_build_seconds(tmp_path, "instance_cc3", 200.0)
    assert vb._build_estimate(tmp_path, "console_cc3") == "about 123 s, as its last build on this machine"
    assert vb._build_estimate(tmp_path, "instance_cc3") == "about 200 s, as its last build on this machine"
    assert vb._build_estimate(tmp_path, "other") == vb.BUILD_ESTIMATE
    (tmp_path / vb.BUILD_TIMES).write_text("not json")
    assert vb._build_estimate(tmp_path, "console_cc3") == vb.BUILD_ESTIMATE
