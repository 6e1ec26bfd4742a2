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


def _readme_first_run() -> tuple[list[str], list[tuple[int, float, float]]]:
    """The README's first ``nc2600 run`` command and its quoted generation lines
    ``(generation, best, mean)``."""
    text = (ROOT / "README.md").read_text()
    first = next(argv for argv in _readme_commands() if argv[:2] == ["nc2600", "run"])
    quoted = [(int(m[1]), float(m[2]), float(m[3]))
              for m in re.finditer(r"^gen +(\d+) +best +(-?[\d.]+) +mean +(-?[\d.]+)", text, flags=re.M)]
    return first, quoted


def test_the_readme_first_run_quotes_a_rising_fitness():
    argv, quoted = _readme_first_run()
    assert "--out" in argv and argv[argv.index("--out") + 1].startswith("runs/")
    assert len(quoted) >= 3 and quoted[0][0] == 0
    assert max(best for _, best, _ in quoted[1:]) > quoted[0][1]       # the best rises
    assert quoted[-1][2] > quoted[0][2]                                # and the mean


@pytest.mark.slow
def test_the_readme_first_run_prints_what_the_readme_quotes(tmp_path):
    """The README's first run, as written (with --no-video and --out here): its log has the
    quoted best and mean of each quoted generation (the values do not depend on --workers)."""
    import json
    import subprocess
    import sys
    argv, quoted = _readme_first_run()
    argv = argv[1:]
    argv[argv.index("--out") + 1] = str(tmp_path / "first")
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", *argv, "--no-video", "--progress", "lines"],
                          capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stderr
    log = [json.loads(line) for line in (tmp_path / "first" / "log.jsonl").read_text().splitlines()]
    for generation, best, mean in quoted:
        assert (log[generation]["best"], round(log[generation]["mean"], 2)) == (best, mean)
    for generation, best, mean in quoted:
        assert f"gen {generation:4d}  best {best:9.1f}  mean {mean:9.2f}" in proc.stdout
