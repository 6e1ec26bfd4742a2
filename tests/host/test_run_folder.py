"""Run folders that cannot be corrupted: one writer, no mixing, nothing lost,
stops that say why, SIGTERM like Ctrl-C, no /dev/shm leak after SIGKILL."""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nc2600.host.episodes.processes import segment_names
from nc2600.host.rundir import RunFolder

TINY = ["--game", "breakout", "--population", "4", "--generations", "2", "--episode-frames", "200",
        "--elite-candidates", "2", "--elite-episodes", "1", "--test-episodes", "2", "--envs-per-block", "2",
        "--truncation", "2", "--noise-table-size", str(1 << 20), "--progress", "lines", "--workers", "1",
        "--no-video"]


def nc2600(*args, **kw):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True, **kw)


def digest(folder: Path) -> dict[str, str]:
    """md5 of every file (the lock file's content, a pid, excluded)."""
    return {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.is_file() and p.name != ".lock"}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("fin") / "run"
    proc = nc2600("run", *TINY, "--seed", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_stop_reason_printed_and_in_summary(finished):
    out, proc = finished
    assert "nc2600 run: stopped: reached --generations 2" in proc.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == "generations" and summary["generations"] == 2


def test_resume_of_finished_run_changes_no_file(finished, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(finished[0], out)
    before = digest(out)
    n_episodes = len((out / "episodes.jsonl").read_text().splitlines())
    proc = nc2600("run", "--resume", str(out), "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert "is finished (2 generations); nothing to do" in proc.stdout
    assert digest(out) == before
    # 2 generations x (4 train + 2 elite x 1) + 2 test episodes: the test lines are kept
    assert n_episodes == 14


def test_resume_records_settings_in_force_and_history(finished, tmp_path):
    out = tmp_path / "more"
    shutil.copytree(finished[0], out)
    proc = nc2600("run", "--resume", str(out), "--generations", "3", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["config"]["generations"] == 3 and cfg["config"]["workers"] == 2
    assert [h["event"] for h in cfg["history"]] == ["start", "resume"]
    assert cfg["history"][1]["generation"] == 2
    assert cfg["history"][1]["changed"] == {"generations": [2, 3], "workers": [1, 2]}
    assert json.loads((out / "summary.json").read_text())["generations"] == 3


def test_frame_budget_stop_is_said(tmp_path):
    out = tmp_path / "budget"
    proc = nc2600("run", *TINY, "--generations", "5", "--max-frames", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == "frame_budget" and summary["generations"] == 1
    assert "frame budget reached after generation 0" in proc.stdout
    assert "4 of --generations 5 not run" in summary["stop_message"]


def test_second_writer_exits_2_with_one_line(finished, tmp_path):
    out = tmp_path / "locked"
    shutil.copytree(finished[0], out)
    holder = RunFolder(out).open_existing()          # this process owns the folder
    try:
        before = digest(out)
        proc = nc2600("run", "--resume", str(out), "--generations", "3")
        assert proc.returncode == 2
        assert proc.stderr == (f"nc2600: error: run folder {str(out)!r} is in use by another nc2600 "
                               f"process (pid {os.getpid()}); wait for it to finish or stop it\n")
        assert digest(out) == before
    finally:
        holder.release()
    # a lock whose owner is gone (released here; a crash releases it the same way) is free again
    assert nc2600("run", "--resume", str(out)).returncode == 0


def test_two_fresh_runs_into_one_folder(tmp_path):
    out = tmp_path / "twice"
    out.mkdir()
    holder = RunFolder(out).open_new()
    try:
        proc = nc2600("run", *TINY, "--out", str(out))
        assert proc.returncode == 2 and "is in use by another nc2600 process" in proc.stderr
        assert sorted(os.listdir(out)) == [".lock"]
    finally:
        holder.release()


def test_refuses_non_empty_folder_that_is_not_a_run(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "summary.json").write_text("my own notes")
    proc = nc2600("run", *TINY, "--out", str(out))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "is not empty and holds no run (summary.json)" in proc.stderr
    assert os.listdir(out) == ["summary.json"] and (out / "summary.json").read_text() == "my own notes"


@pytest.mark.parametrize("damage,message", [
    ("log", "line 1 is not a JSON object"),
    ("config", "is not a run configuration"),
])
def test_damaged_run_folder_is_one_line(finished, tmp_path, damage, message):
    out = tmp_path / "damaged"
    shutil.copytree(finished[0], out)
    (out / "summary.json").unlink()
    if damage == "log":
        (out / "log.jsonl").write_text("not json\n" + (out / "log.jsonl").read_text())
    else:
        (out / "config.json").write_text("[1, 2]")
    before = digest(out)
    proc = nc2600("run", "--resume", str(out))
    assert proc.returncode == 2 and message in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert digest(out) == before


#: The CLI in a child whose ``os.mkdir`` refuses, as the kernel does (EACCES), any folder inside
#: ``argv[1]``: a read-only folder also for root, whom the kernel lets write anywhere.
READ_ONLY_CHILD = """
import errno, os, runpy, sys
read_only = os.path.abspath(sys.argv.pop(1))
real_mkdir = os.mkdir
def mkdir(path, *args, **kwargs):
    if os.path.dirname(os.path.abspath(os.fspath(path))) == read_only:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
    return real_mkdir(path, *args, **kwargs)
os.mkdir = mkdir
sys.argv[0] = "nc2600"
runpy.run_module("nc2600.host.cli", run_name="__main__")
"""


def test_read_only_folder_is_one_line(tmp_path):
    """``--out`` inside a folder the user may not write: one line, exit 2, nothing made. The
    folder is made read-only (mode 0500) and, since the kernel ignores that for root (CI runs as
    root), the child's ``os.mkdir`` refuses it too."""
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    try:
        proc = subprocess.run([sys.executable, "-c", READ_ONLY_CHILD, str(out), "run", *TINY, "--out",
                               str(out / "sub")],
                              capture_output=True, text=True)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert "Permission denied" in proc.stderr and str(out / "sub") in proc.stderr, proc.stderr
        assert list(out.iterdir()) == []
    finally:
        out.chmod(0o700)


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_full_disk_is_one_line_and_the_run_resumes(tmp_path):
    """A write that fails (here: RLIMIT_FSIZE, as a full disk would) stops the run with one line
    and the resume command, leaves no temp file, and the run resumes to the end."""
    import resource
    out = tmp_path / "full"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))    # best_params.npy is 2.7 MB
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "run", *TINY, "--out", str(out)],
                          capture_output=True, text=True, preexec_fn=limit)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "cannot write" in proc.stderr and f"continue with: nc2600 run --resume {out}" in proc.stderr
    assert not [p for p in out.iterdir() if ".tmp" in p.name] and not (out / "summary.json").exists()
    done = nc2600("run", "--resume", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "summary.json").read_text())["generations"] == 2


def _wait_for(path: Path, timeout: float = 120.0) -> None:
    t0 = time.monotonic()
    while not path.exists():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"{path} not written within {timeout} s")
        time.sleep(0.05)


def test_sigterm_to_the_whole_process_group_is_reported_as_sigterm(tmp_path):
    """``kill -TERM -PGID`` (what systemd and batch schedulers do) also ends the workers; their
    deaths must not turn the exit into "interrupted" or a second exception: one line naming
    SIGTERM with the resume hint, exit 130, no segment left."""
    out = tmp_path / "grp"
    args = [sys.executable, "-m", "nc2600.host.cli", "run", *TINY, "--workers", "2", "--generations", "50", "--out",
            str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    _wait_for(out / "checkpoint.npz")
    os.killpg(proc.pid, signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr == f"nc2600: terminated (SIGTERM); continue with: nc2600 run --resume {out}\n"
    assert segment_names(proc.pid) == []


def test_sigterm_is_like_ctrl_c_and_sigkill_leaks_nothing(tmp_path):
    out = tmp_path / "sig"
    args = [sys.executable, "-m", "nc2600.host.cli", "run", *TINY, "--generations", "50", "--out", str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(out / "checkpoint.npz")
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert stderr == f"nc2600: terminated (SIGTERM); continue with: nc2600 run --resume {out}\n"
    assert segment_names(proc.pid) == []
    # SIGKILL: the segment stays until the next evaluator (here: the resume) removes it
    proc = subprocess.Popen([sys.executable, "-m", "nc2600.host.cli", "run", "--resume", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while not segment_names(proc.pid) and time.monotonic() - t0 < 120:
        time.sleep(0.05)
    assert segment_names(proc.pid), "the resumed run never created its segment"
    t0 = time.monotonic()
    while not (workers := _children(proc.pid)) and time.monotonic() - t0 < 60:
        time.sleep(0.05)                                       # forked right after the segment
    assert len(workers) == 1                                   # TINY: --workers 1
    proc.kill()
    proc.communicate(timeout=60)
    assert len(segment_names(proc.pid)) == 1
    t0 = time.monotonic()                                      # the workers die with their parent
    while any(_running(w) for w in workers) and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    assert not any(_running(w) for w in workers)
    done = nc2600("run", "--resume", str(out), "--generations", "3", timeout=300)
    assert done.returncode == 0, done.stderr
    assert segment_names(proc.pid) == []
    assert json.loads((out / "summary.json").read_text())["generations"] == 3
