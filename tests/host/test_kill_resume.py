"""Kill test: SIGKILL and SIGTERM at seeded random moments of a run, then resume until
it finishes; every interrupted run must end with exactly the files of an uninterrupted run
(fitness log, episode log, checkpoint-derived outputs, summary figures, video), and no shared
memory segment of any of its processes may remain in /dev/shm.

``pytest -m slow tests/host/test_kill_resume.py`` (about 5-10 minutes on 2 busy cores).
"""
from __future__ import annotations

import hashlib
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nc2600.host.episodes.processes import segment_names

TINY = ["--game", "breakout", "--population", "6", "--generations", "3", "--episode-frames", "300",
        "--elite-candidates", "2", "--elite-episodes", "2", "--test-episodes", "3", "--envs-per-block", "2",
        "--truncation", "3", "--noise-table-size", str(1 << 20), "--progress", "lines", "--workers", "2",
        "--seed", "4"]
TRIALS = 12
SEED = 1717


def _cmd(out: Path) -> list[str]:
    base = [sys.executable, "-m", "nc2600.host.cli", "run"]
    if (out / "config.json").exists():
        return base + ["--resume", str(out)]
    return base + [*TINY, "--out", str(out)]


def _same_files(out: Path) -> dict:
    """What must equal the uninterrupted run: every output but wall-clock figures."""
    log = [{k: v for k, v in json.loads(x).items() if k not in ("wall_s", "fps")}
           for x in (out / "log.jsonl").read_text().splitlines()]
    summary = {k: v for k, v in json.loads((out / "summary.json").read_text()).items()
               if k not in ("wall_s", "host_fps") and not k.startswith("projected_fabric_wall")}
    files = {n: hashlib.md5((out / n).read_bytes()).hexdigest()
             for n in ("episodes.jsonl", "best_params.npy", "best_genome.json", "best.gif")}
    return {"log": log, "summary": summary, "files": files}


@pytest.mark.slow
def test_random_sigkill_and_sigterm_then_resume_give_identical_results(tmp_path):
    ref = tmp_path / "ref"
    t0 = time.monotonic()
    proc = subprocess.run(_cmd(ref), capture_output=True, text=True)
    ref_wall = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    want = _same_files(ref)
    rng = random.Random(SEED)
    signals_sent = {"SIGKILL": 0, "SIGTERM": 0}
    pids = []
    for trial in range(TRIALS):
        out = tmp_path / f"t{trial}"
        kills = 0
        while True:
            proc = subprocess.Popen(_cmd(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            pids.append(proc.pid)
            if kills < 2:             # at most two interruptions per trial, then let it finish
                time.sleep(rng.uniform(0.2, ref_wall))
                sig = rng.choice([signal.SIGKILL, signal.SIGTERM])
                if proc.poll() is None:
                    proc.send_signal(sig)
                    signals_sent[sig.name] += 1
                kills += 1
            _, err = proc.communicate(timeout=600)
            if "Traceback" in err:
                pytest.fail(f"trial {trial}: traceback:\n{err[-3000:]}", pytrace=False)
            if proc.returncode == 0:
                break
            # 130: SIGTERM handled; -SIGTERM: it came before Python installed the handler (quiet)
            assert proc.returncode in (-signal.SIGKILL, -signal.SIGTERM, 130), (proc.returncode, err)
            if proc.returncode == 130 and (out / "config.json").exists():
                assert err.endswith(f"continue with: nc2600 run --resume {out}\n"), err
        assert _same_files(out) == want, f"trial {trial} differs"
        assert not [p for p in out.iterdir() if ".tmp" in p.name]
    # the resumes removed every segment a SIGKILLed process left; the others cleaned up themselves
    left = [name for pid in pids for name in segment_names(pid)]
    assert left == []
    print(f"\nkill test: {TRIALS} trials, {signals_sent}, reference run {ref_wall:.1f} s")
