"""A resume trusts nothing: a run folder whose checkpoint is missing, or whose history
(``log.jsonl``, ``episodes.jsonl``) is not the one the checkpoint recorded (its sha256 digest
of the checkpointed lines), is refused in one line naming the file, and no file of the folder
changes; ``--restart DIR`` starts such a folder over. Oracles: the files' bytes before and
after, ``hashlib.sha256`` of the lines, and an untouched run made with the same settings
(``--restart`` must give its log line for line, wall-clock fields aside).
"""
from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

TINY = ["--game", "breakout", "--population", "4", "--episode-frames", "200", "--elite-candidates", "2",
        "--elite-episodes", "1", "--test-episodes", "1", "--envs-per-block", "1", "--truncation", "2",
        "--noise-table-size", str(1 << 20), "--workers", "1", "--progress", "lines", "--no-video"]


def nc2600(*args):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def one_line_exit_2(proc, *needles):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture(scope="module")
def run2(tmp_path_factory):
    """A finished run of 2 generations."""
    out = tmp_path_factory.mktemp("resume") / "r"
    proc = nc2600("run", *TINY, "--generations", "2", "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


def _copy(src, dst):
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".lock"))
    return dst


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name != ".lock"}


def _fitness(folder):
    keep = ("generation", "best", "mean", "median", "elite_score", "frames")
    return [{k: json.loads(line)[k] for k in keep} for line in (folder / "log.jsonl").read_text().splitlines()]


def test_the_checkpoint_keeps_the_digest_of_the_checkpointed_lines(run2):
    with np.load(io.BytesIO((run2 / "checkpoint.npz").read_bytes())) as z:
        meta = json.loads(bytes(z["meta"]).decode())
    for name, key in (("log.jsonl", "log_lines"), ("episodes.jsonl", "episode_lines")):
        lines = (run2 / name).read_bytes().splitlines(keepends=True)[:meta[key]]
        assert meta["history_sha256"][name] == hashlib.sha256(b"".join(lines)).hexdigest()
    assert meta["log_lines"] == 2


def _edit_best(folder):
    lines = (folder / "log.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["best"] = 9999.0
    lines[0] = json.dumps(first)
    (folder / "log.jsonl").write_text("\n".join(lines) + "\n")


def _swap_episodes(folder):
    lines = (folder / "episodes.jsonl").read_text().splitlines()
    lines[0], lines[1] = lines[1], lines[0]
    (folder / "episodes.jsonl").write_text("\n".join(lines) + "\n")


def _drop_log_line(folder):
    lines = (folder / "log.jsonl").read_text().splitlines()
    (folder / "log.jsonl").write_text(lines[0] + "\n")


@pytest.mark.parametrize("damage, file, words", [
    (lambda f: (f / "checkpoint.npz").unlink(), "checkpoint.npz", "is missing but log.jsonl records 2 generations"),
    (_edit_best, "log.jsonl", "does not match the checkpoint"),
    (_swap_episodes, "episodes.jsonl", "does not match the checkpoint"),
    (_drop_log_line, "log.jsonl", "has 1 lines, the checkpoint records 2"),
])
@pytest.mark.parametrize("generations", [None, "3"])       # finished as it is, and continued
def test_a_damaged_history_is_refused_and_nothing_changes(run2, tmp_path, damage, file, words, generations):
    run = _copy(run2, tmp_path / "r")
    damage(run)
    before = _snapshot(run)
    more = [] if generations is None else ["--generations", generations]
    one_line_exit_2(nc2600("run", "--resume", run, *more), repr(str(run / file)), words,
                    f"`nc2600 run --restart {run}` starts it over")
    assert _snapshot(run) == before


def test_restart_starts_a_damaged_folder_over(run2, tmp_path):
    run = _copy(run2, tmp_path / "r")
    _edit_best(run)
    (run / "notes.txt").write_text("the user's file\n")
    proc = nc2600("run", "--restart", run)
    assert proc.returncode == 0, proc.stderr
    assert _fitness(run) == _fitness(run2)                 # the same settings give the same run
    assert (run / "episodes.jsonl").read_text() == (run2 / "episodes.jsonl").read_text()
    assert (run / "notes.txt").read_text() == "the user's file\n"
    events = [h["event"] for h in json.loads((run / "config.json").read_text())["history"]]
    assert events == ["start", "restart"]
    assert nc2600("run", "--resume", run, "--generations", "3").returncode == 0   # its history is its own


def test_restart_takes_no_out_or_resume(run2, tmp_path):
    one_line_exit_2(nc2600("run", "--restart", run2, "--out", tmp_path / "x"),
                    "give one of --out, --resume and --restart")
    one_line_exit_2(nc2600("run", "--restart", tmp_path / "none"), "config.json missing")


def test_no_checkpoint_and_one_generation_zero_line_runs_generation_0_again(run2, tmp_path):
    """The moment between generation 0's log line and its checkpoint: generation 0 runs again
    (saying so) and gives the same lines."""
    run = _copy(run2, tmp_path / "r")
    (run / "checkpoint.npz").unlink()
    (run / "summary.json").unlink()
    log = (run / "log.jsonl").read_text().splitlines()
    (run / "log.jsonl").write_text(log[0] + "\n")
    proc = nc2600("run", "--resume", run)
    assert proc.returncode == 0, proc.stderr
    assert "has no checkpoint yet (stopped in generation 0): starting again at generation 0" in proc.stdout
    assert _fitness(run) == _fitness(run2)
