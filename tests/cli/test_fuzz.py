"""Seeded fuzz of every command that takes a file or a number (issue 17).

Each case is one command line: a small valid base command with one option set to a value drawn
(seeded) from pools of bad numbers (empty, signs, non-finite, 20-digit, overflowing floats,
words), small valid numbers, and bad paths (empty, missing, a FIFO, a character device, a
folder, under /proc, a 300-character name, a garbage file, a damaged run folder, a folder of
someone's files). Every case must end in exit 0, or exit 2 with exactly one line on stderr;
no exception may escape ``host.cli.main`` (a traceback), none may take longer than the time
limit, no temp file may stay behind, and a failed case must leave no output that looks
complete (summary.json, report.md, synth.json, the mesh report, rtl-play's screens).

Cases run in this process through ``host.cli.main`` (about 1,000 times faster than a
subprocess per case). Work that takes minutes once the input is accepted (an evolution run,
the RTL builds and runs, the report's measurements, Yosys, the throughput benchmarks) is
replaced by a stub that records that validation let the case through (counted as exit 0);
the cheap commands (mesh, games verify, preprocess, cpu-run's argument checks) run for real.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import time
from pathlib import Path

import numpy as np
import pytest

CASES = 300
SEED = 17
TIME_LIMIT_S = 60

INT_BAD = ["", " ", "-1", "0x", "abc", "1.5", "1e3", "inf", "nan", "--", "99999999999999999999",
           "18446744073709551616", "-9223372036854775809", "1000000000000", "0b102", "7" * 45]
INT_OK = ["0", "1", "2", "3", "0x2", "+2", " 2 "]
FLOAT_BAD = ["inf", "-inf", "nan", "1e300", "1e999", "-1", "abc", "", "0x10", "-1e-9", "infinity"]
FLOAT_OK = ["0", "0.5", "1", "0.25", "2e-3", "150"]
COMPLETE = ("summary.json", "report.md", "report.json", "synth.json", "synth.txt", "screens.npy",
            "mesh.json", "play.mp4")


class _Reached(Exception):
    """Raised by a stub: validation accepted the case and long work would start here."""


def _stub(*args, **kwargs):
    raise _Reached()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The files the cases point at."""
    from host.launcher.policy import init_params, n_params
    from host.launcher.run import RunConfig
    import dataclasses
    root = tmp_path_factory.mktemp("fuzzworld")
    fifo = root / "fifo"
    os.mkfifo(fifo)
    (root / "folder").mkdir()
    (root / "garbage").write_bytes(b"\x00\xffnot a rom or a run\n" * 7)
    (root / "empty").write_bytes(b"")
    image = root / "image.bin"
    image.write_bytes(bytes([0xEA] * 16 + [0x02]))                  # NOPs, then a JAM
    actions = root / "actions.npy"
    np.save(actions, np.zeros(20, np.int64))
    run = root / "run"                                                # a loadable run folder
    run.mkdir()
    cfg = dataclasses.asdict(RunConfig(game="breakout", population=4, truncation=2, elite_candidates=2,
                                       noise_table_size=1 << 20, workers=1, envs_per_block=1))
    (run / "config.json").write_text(json.dumps({"config": cfg, "n_actions": 4, "n_params": n_params(4)}))
    np.save(run / "best_params.npy", init_params(0, 4))
    damaged = root / "damaged"
    damaged.mkdir()
    (damaged / "config.json").write_text("[1, 2, 3]")
    users = root / "users"
    users.mkdir()
    (users / "notes.txt").write_text("mine")
    paths = ["", " ", str(root / "missing" / "x"), str(fifo), "/dev/zero", str(root / "folder"),
             "/proc/nc2600-fuzz/x", str(root / ("a" * 300)), str(root / "garbage"), str(root / "empty"),
             str(damaged), str(users)]
    return {"root": root, "paths": paths, "image": str(image), "actions": str(actions), "run": str(run)}


def _commands(w, out: Path):
    """``(base argv, {option: kind})`` per command; kinds: int, float, prob, path, out."""
    tiny = ["--game", "breakout", "--population", "4", "--generations", "1", "--episode-frames", "200",
            "--elite-candidates", "2", "--elite-episodes", "1", "--test-episodes", "1", "--envs-per-block", "1",
            "--truncation", "2", "--noise-table-size", str(1 << 20), "--workers", "1", "--progress", "lines"]
    ints = lambda *names: {n: "int" for n in names}  # noqa: E731
    return [
        (["run", *tiny, "--out", str(out / "run")],
         {**ints("--population", "--generations", "--episode-frames", "--workers", "--envs-per-block", "--seed",
                 "--truncation", "--elite-candidates", "--elite-episodes", "--test-episodes",
                 "--noise-table-size", "--frame-skip", "--max-frames"),
          "--sticky": "prob", "--sigma": "float", "--es-lr": "float", "--rom": "path", "--out": "out"}),
        (["run", "--resume", w["run"]], {"--resume": "path", "--generations": "int", "--workers": "int"}),
        (["play", "--run", w["run"], "--no-video", "--episodes", "2"],
         {**ints("--episodes", "--seed", "--individual", "--episode-frames", "--workers", "--scale"),
          "--sticky": "prob", "--video-seconds": "float", "--run": "path"}),
        (["play", "--run", w["run"], "--video", str(out / "play.mp4")], {"--video": "out"}),
        (["mesh", "--json", "--population", "20", "--generations", "1"],
         {**ints("--cards", "--nodes-per-card", "--instances-per-node", "--colour-clocks-per-frame", "--lanes",
                 "--n-actions", "--reset-frames", "--population", "--episodes", "--elite-candidates",
                 "--elite-episodes", "--test-episodes", "--episode-frames", "--frame-skip", "--seed",
                 "--fail-nodes", "--fail-links", "--fault-seed"),
          "--clock-mhz": "float", "--link-latency-us": "float", "--link-gbytes-s": "float",
          "--fault-window-s": "float", "--detect-ms": "float", "--out": "out", "--run": "path"}),
        (["bench", "mesh"], {"--big-cards": "int"}),
        (["games", "verify", "--game", "pong", "--frames", "40"],
         {**ints("--frames", "--seed", "--max-episode-frames", "--mode", "--difficulty", "--jobs"), "--poke": "prob"}),
        (["preprocess", "--game", "pong", "--frames", "8"], ints("--frames", "--seed")),
        (["report", "--out", str(out / "report")],
         {**ints("--frames", "--lanes", "--seed"), "--clock-mhz": "float", "--out": "out"}),
        (["synth", "--out", str(out / "synth")], {"--out": "out"}),
        (["cpu-run", "--image", w["image"], "--load", "0x1000", "--start", "0x1000", "--max-cycles", "50"],
         {"--image": "path", "--max-cycles": "int", "--load": "int", "--start": "int"}),
        (["bench", "host"], {"--seconds": "float", **ints("--workers", "--envs-per-block", "--episode-frames")}),
        (["bench", "rtl"], ints("--frames")),
        (["lockstep", "--game", "pong", "--frames", "10"], {**ints("--frames", "--seed"), "--actions": "path",
                                                             "--results": "out"}),
        (["rtl-play", "--game", "pong", "--actions", w["actions"], "--out", str(out / "rtlplay")],
         {"--actions": "path", "--out": "out"}),
    ]


def _value(rng: random.Random, kind: str, w) -> str:
    if kind == "int":
        return rng.choice(INT_BAD + INT_OK)
    if kind == "float":
        return rng.choice(FLOAT_BAD + FLOAT_OK)
    if kind == "prob":
        return rng.choice(FLOAT_BAD + ["0", "0.25", "1", "1.0001", "-0.0"])
    if kind == "path":
        return rng.choice(w["paths"])
    return rng.choice(w["paths"] + [""] * 2)                          # "out": also a fresh name below


def _set(argv: list[str], opt: str, value: str) -> list[str]:
    argv = list(argv)
    if opt in argv:
        argv[argv.index(opt) + 1] = value
    else:
        argv += [opt, value]
    return argv


def _stubs(monkeypatch):
    import host.bench.evaluator
    import host.launcher.play
    import host.report.measure
    import host.drivers.rtl_console
    import host.launcher.run
    monkeypatch.setattr(host.launcher.run.Run, "execute", _stub)
    monkeypatch.setattr(host.launcher.play, "evaluate", _stub)
    monkeypatch.setattr(host.report.measure, "gather", _stub)
    monkeypatch.setattr(host.drivers.rtl_console, "RtlConsole", _stub)
    monkeypatch.setattr(host.bench.evaluator, "raw_fps", _stub)
    import hwtools.synth
    import hwtools.verilator_build
    monkeypatch.setattr(hwtools.verilator_build, "build_shared_lib", _stub)
    monkeypatch.setattr(hwtools.synth, "report", _stub)
    monkeypatch.setattr(hwtools.synth, "available_blocks", lambda: {"console": "", "preprocessor": ""})


def _run_case(argv: list[str], bench_mesh_stub) -> tuple[int | str, str]:
    from host.cli import main
    err, out = io.StringIO(), io.StringIO()
    old_term = signal.getsignal(signal.SIGTERM)

    def timeout(signum, frame):
        raise TimeoutError(f"case ran over {TIME_LIMIT_S} s: {argv}")
    old_alarm = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(TIME_LIMIT_S)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), bench_mesh_stub:
            try:
                rc = main(argv)
            except SystemExit as exc:
                rc = exc.code
            except _Reached:
                rc = "reached"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old_alarm)
        signal.signal(signal.SIGTERM, old_term)
    return rc, err.getvalue()


def test_fuzz_every_file_and_number_option(world, tmp_path, monkeypatch):
    _stubs(monkeypatch)
    import mesh_sim.project
    rng = random.Random(SEED)
    counts = {"cases": 0, "exit 0": 0, "accepted (work stubbed)": 0, "exit 2": 0}
    t0 = time.monotonic()
    for i in range(CASES):
        out = tmp_path / f"case{i:03d}"
        out.mkdir()
        commands = _commands(world, out)
        base, options = commands[rng.randrange(len(commands))]
        opt = rng.choice(sorted(options))
        kind = options[opt]
        value = _value(rng, kind, world)
        if kind == "out" and rng.random() < 0.3:
            value = str(out / "fresh" / ("mesh.json" if base[0] == "mesh" else "dir"))
        argv = _set(base, opt, value)
        stub = contextlib.nullcontext()
        if base[:2] == ["bench", "mesh"]:
            stub = pytest.MonkeyPatch.context()
            with stub as mp:
                mp.setattr(mesh_sim.project, "simulate", _stub)
                rc, err = _run_case(argv, contextlib.nullcontext())
        else:
            rc, err = _run_case(argv, stub)
        counts["cases"] += 1
        where = f"case {i}: nc2600 {' '.join(repr(a) if a.strip() != a or not a else a for a in argv)}"
        assert "Traceback" not in err, f"{where}\n{err}"
        if rc == "reached":
            counts["accepted (work stubbed)"] += 1
        elif rc == 0:
            counts["exit 0"] += 1
        else:
            assert rc == 2, f"{where}: exit {rc}\n{err}"
            assert err.count("\n") == 1 and err.endswith("\n"), f"{where}: not one line:\n{err}"
            counts["exit 2"] += 1
            left = [p for p in out.rglob("*") if p.name in COMPLETE]
            assert not left, f"{where}: left {left} after an error"
        temps = [p for p in tmp_path.rglob("*") if ".tmp" in p.name or p.name.startswith(".nc2600-write-test")]
        assert not temps, f"{where}: left temp files {temps}"
    wall = time.monotonic() - t0
    print(f"\nfuzz: {counts} in {wall:.1f} s")
    assert counts["cases"] == CASES
    assert counts["exit 2"] >= CASES // 2          # the pools are mostly bad values
    assert counts["exit 0"] + counts["accepted (work stubbed)"] >= 20


def test_policy_int8_agreement_bad_games_one_line():
    import subprocess
    import sys
    for value, needle in (("pongg", "unknown game 'pongg'"), ("", "give comma-separated ALE game ids"),
                          ("pong,,boxing", "give comma-separated ALE game ids")):
        proc = subprocess.run([sys.executable, "-m", "host.cli", "policy-int8", "--agreement", value],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and needle in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
