"""Seeded fuzz of every command that takes a file or a number .

Each case is one command line: a small valid base command with one option set to a value drawn
(seeded) from pools of bad numbers (empty, signs, non-finite, 20-digit, overflowing floats,
words), small valid numbers, and bad paths (empty, missing, a FIFO, a character device, a
folder, under /proc, a 300-character name, a garbage file, a damaged run folder, a folder of
someone's files). Every case must end in exit 0, or exit 2 with exactly one line on stderr;
no exception may escape ``nc2600.host.cli.main`` (a traceback), none may take longer than the time
limit, no temp file may stay behind, and a failed case must leave no output that looks
complete (summary.json, report.md, synth.json, the mesh report, rtl-play's screens).

Cases run in this process through ``nc2600.host.cli.main`` (about 1,000 times faster than a
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
import sys
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
    from nc2600.host.episodes.policy import init_params, n_params
    from nc2600.host.launcher.run import RunConfig
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
    if kind in ("rom", "runfolder"):                                   # the slow fuzz's pools
        return rng.choice(w["roms" if kind == "rom" else "runs"] + w["paths"][:4])
    return rng.choice(w["paths"] + [""] * 2)                          # "out": also a fresh name below


def _set(argv: list[str], opt: str, value: str) -> list[str]:
    argv = list(argv)
    if opt in argv:
        argv[argv.index(opt) + 1] = value
    else:
        argv += [opt, value]
    return argv


def _stubs(monkeypatch):
    import nc2600.host.bench.host_loop
    import nc2600.host.launcher.play
    import nc2600.host.report.measure
    import nc2600.host.drivers.rtl_console
    import nc2600.host.launcher.run
    monkeypatch.setattr(nc2600.host.launcher.run.Run, "execute", _stub)
    monkeypatch.setattr(nc2600.host.launcher.play, "evaluate", _stub)
    monkeypatch.setattr(nc2600.host.report.measure, "gather", _stub)
    monkeypatch.setattr(nc2600.host.drivers.rtl_console, "RtlConsole", _stub)
    monkeypatch.setattr(nc2600.host.bench.host_loop, "raw_fps", _stub)
    import nc2600.hwtools.synth
    import nc2600.hwtools.verilator_build
    monkeypatch.setattr(nc2600.hwtools.verilator_build, "build_shared_lib", _stub)
    monkeypatch.setattr(nc2600.hwtools.synth, "report", _stub)
    monkeypatch.setattr(nc2600.hwtools.synth, "available_blocks", lambda: {"console": "", "preprocessor": ""})


def _run_case(argv: list[str], bench_mesh_stub) -> tuple[int | str, str]:
    from nc2600.host.cli import main
    err, out = io.StringIO(), io.StringIO()
    old_term = signal.getsignal(signal.SIGTERM)
    old_unraisable = sys.unraisablehook

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
        sys.unraisablehook = old_unraisable
    return rc, err.getvalue()


def test_fuzz_every_file_and_number_option(world, tmp_path, monkeypatch):
    _stubs(monkeypatch)
    _fuzz(world, tmp_path, CASES, SEED, _commands)


def _fuzz(world, tmp_path, cases: int, seed: int, commands_of) -> dict:
    """Run ``cases`` seeded cases drawn from ``commands_of(world, out)`` (see the module doc);
    returns the outcome counts."""
    import nc2600.mesh_sim.project
    rng = random.Random(seed)
    counts = {"cases": 0, "exit 0": 0, "accepted (work stubbed)": 0, "exit 2": 0}
    t0 = time.monotonic()
    for i in range(cases):
        out = tmp_path / f"case{i:04d}"
        out.mkdir()
        commands = commands_of(world, out)
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
                mp.setattr(nc2600.mesh_sim.project, "simulate", _stub)
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
    assert counts["cases"] == cases
    assert counts["exit 2"] >= cases // 2          # the pools are mostly bad values
    assert counts["exit 0"] + counts["accepted (work stubbed)"] >= 20
    return counts


def test_policy_int8_agreement_bad_games_one_line():
    import subprocess
    import sys
    for value, needle in (("pongg", "unknown game 'pongg'"), ("", "give comma-separated ALE game ids"),
                          ("pong,,boxing", "give comma-separated ALE game ids")):
        proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "policy-int8", "--agreement", value],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and needle in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


# -- the slow set: 1,000 cases over options, ROM files and damaged run folders ---------------
SLOW_CASES = 1000
SLOW_SEED = 40
TINY_RUN = ["--game", "breakout", "--population", "4", "--generations", "1", "--episode-frames", "200",
            "--elite-candidates", "2", "--elite-episodes", "1", "--test-episodes", "1", "--envs-per-block", "1",
            "--truncation", "2", "--noise-table-size", str(1 << 20), "--workers", "1", "--progress", "lines",
            "--no-video"]


def _damage(rng: random.Random, run: Path, other: Path) -> str:
    """One seeded damage of a copy of a finished run folder; returns what was done."""
    import shutil
    names = ["config.json", "checkpoint.npz", "log.jsonl", "episodes.jsonl", "summary.json", "best_params.npy"]
    name = rng.choice(names)
    path = run / name
    how = rng.choice(["delete", "truncate", "fifo", "folder", "flip", "swap", "config", "garbage", "devzero"])
    if how == "delete":
        path.unlink()
    elif how == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[:rng.randrange(len(data) + 1)])
    elif how == "fifo":
        path.unlink()
        os.mkfifo(path)
    elif how == "folder":
        path.unlink()
        path.mkdir()
    elif how == "flip":
        data = bytearray(path.read_bytes())
        for _ in range(rng.randint(1, 8)):
            if data:
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
    elif how == "swap":                          # the file of another run (another seed)
        shutil.copyfile(other / name, path)
    elif how == "config":
        doc = json.loads((run / "config.json").read_text())
        key = rng.choice(sorted(doc["config"]))
        doc["config"][key] = rng.choice(["x", -1, None, 1e300, [], {}, True, 0, "pong", 2**70])
        if rng.random() < 0.3:
            doc[rng.choice(["rom_md5", "run_id", "n_actions", "n_params"])] = rng.choice(["0" * 32, None, -3])
        (run / "config.json").write_text(json.dumps(doc))
        name = f"config.json[{key}]"
    elif how == "garbage":
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
    else:
        path.unlink()
        path.symlink_to("/dev/zero")
    return f"{how} {name}"


@pytest.fixture(scope="module")
def slow_world(world, tmp_path_factory):
    """The fuzz world plus ROM files (random, cut, flipped, ALE's unsupported bundled ones, a
    real one) and 40 damaged copies of two real finished runs."""
    import shutil
    import subprocess

    import ale_py.roms

    from nc2600.host.games import KNOWN_ROM_SIZES
    root = tmp_path_factory.mktemp("slowworld")
    rng = random.Random(SLOW_SEED)
    real = Path(ale_py.roms.get_rom_path("breakout")).read_bytes()
    roms = []
    for i in range(12):
        p = root / f"random{i}.bin"
        p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.choice(KNOWN_ROM_SIZES))))
        roms.append(p)
    cut = root / "cut.bin"
    cut.write_bytes(real[:rng.randrange(1, len(real))])
    flipped = root / "flipped.bin"
    flipped.write_bytes(bytes([real[0] ^ 1]) + real[1:])
    one = root / "one.bin"
    one.write_bytes(b"\x00")
    roms += [cut, flipped, one, Path(ale_py.roms.get_rom_path("breakout"))]
    roms += [Path(ale_py.roms.get_rom_path(g)) for g in ("combat", "joust", "maze_craze", "warlords")]
    base = []
    for seed in (1, 2):
        out = root / f"base{seed}"
        proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "run", *TINY_RUN, "--seed", str(seed),
                               "--out", str(out)], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        base.append(out)
    runs = [str(base[0])]
    for i in range(40):
        copy = root / f"damaged{i:02d}"
        shutil.copytree(base[0], copy, ignore=shutil.ignore_patterns(".lock"))
        _damage(rng, copy, base[1])
        runs.append(str(copy))
    return {**world, "roms": [str(p) for p in roms], "runs": runs}


def _slow_commands(w, out: Path):
    tiny = TINY_RUN[:-1]
    return _commands(w, out) + [
        (["run", *tiny, "--rom", w["roms"][0], "--out", str(out / "run")], {"--rom": "rom", "--es-l2": "float"}),
        (["run", "--resume", w["runs"][0]], {"--resume": "runfolder", "--max-frames": "int"}),
        (["play", "--run", w["runs"][0], "--no-video", "--episodes", "1", "--workers", "1"], {"--run": "runfolder"}),
        (["instance-play", "--game", "boxing", "--params", w["paths"][8]],
         {"--params": "path", "--episode-frames": "int", "--episodes": "int", "--seed": "int"}),
    ]


@pytest.mark.slow
def test_fuzz_a_thousand_options_roms_and_run_folders(slow_world, tmp_path, monkeypatch):
    _stubs(monkeypatch)
    counts = _fuzz(slow_world, tmp_path, SLOW_CASES, SLOW_SEED, _slow_commands)
    assert counts["cases"] >= 1000
