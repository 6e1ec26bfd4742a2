"""Regression tests of bad input that once crashed or misled: one line on stderr, exit 2.

Oracles: the fabric's register widths (``nc2600.hls_models.frame_skip.MAX_EPISODE_FRAMES``, the
instance's 24-bit ``EP_FRAMES``), the commands' documented bounds.
"""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from nc2600.hls_models.frame_skip import MAX_EPISODE_FRAMES


def nc2600(*args, **kw):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *map(str, args)], capture_output=True, text=True,
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
    from nc2600.host.launcher.settings import RunConfig
    cfg = dataclasses.asdict(RunConfig())
    cfg["episode_frames"] = MAX_EPISODE_FRAMES + 1
    (tmp_path / "config.json").write_text(json.dumps({"config": cfg}))
    one_line_exit_2(nc2600("run", "--resume", tmp_path), "damaged", "--episode-frames", "16,777,215")


# -- defaults that follow the population -------------------------------------------------
def _build(*argv):
    from nc2600.host.cli import build_parser
    from nc2600.host.commands.run import build
    cfg = build(build_parser().parse_args(["run", *argv]))[0]
    cfg.validate()
    return cfg


def test_population_defaults_are_min_cap_and_half_the_population():
    from nc2600.host.launcher.settings import population_defaults
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


def test_random_search_refuses_truncation_it_does_not_use():
    """Random search draws fresh individuals (no parents): --truncation is refused, not recorded."""
    from nc2600.host.errors import UserError
    with pytest.raises(UserError, match=r"^--truncation applies to --algo ga only \(this run: --algo rs\)$"):
        _build("--algo", "rs", "--population", "4", "--truncation", "10")


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
    from nc2600.host.launcher.run import Run
    cfg = _build("--algo", "es", "--population", "6", "--es-l2", "0.25", "--noise-table-size", str(1 << 20))
    run = Run(cfg, tmp_path / "r")
    run.prepare()
    run.folder.release()
    saved = json.loads((tmp_path / "r" / "config.json").read_text())["config"]
    assert (saved["truncation"], saved["elite_candidates"], saved["es_l2"]) == (3, 3, 0.25)


def test_sigma_at_float32s_smallest_normal_still_mutates():
    import numpy as np
    from nc2600.host.launcher.settings import SIGMA_MIN
    assert SIGMA_MIN == float(np.finfo(np.float32).tiny)
    assert np.float32(SIGMA_MIN) * np.float32(1.0) > 0 and np.float32(1e-300) == 0
    assert _build("--sigma", repr(SIGMA_MIN)).sigma == SIGMA_MIN


# -- damaged run folders: a checkpoint belongs to its run; files read only when regular -----
TINY = ["--game", "breakout", "--population", "4", "--episode-frames", "200", "--elite-episodes", "1",
        "--test-episodes", "1", "--envs-per-block", "1", "--noise-table-size", str(1 << 20), "--progress", "lines",
        "--workers", "1", "--no-video"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    for seed in (1, 2):
        proc = nc2600("run", *TINY, "--generations", "1", "--seed", seed, "--out", base / f"s{seed}")
        assert proc.returncode == 0, proc.stderr
    return base


def _copy(src, dst):
    import shutil
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".lock"))
    return dst


def test_a_checkpoint_of_another_run_is_refused(two_runs, tmp_path):
    run = _copy(two_runs / "s1", tmp_path / "r")
    (run / "checkpoint.npz").write_bytes((two_runs / "s2" / "checkpoint.npz").read_bytes())
    before = (run / "log.jsonl").read_text()
    one_line_exit_2(nc2600("run", "--resume", run, "--generations", "2"),
                    "checkpoint", "does not belong to this run: its run id differ")
    assert (run / "log.jsonl").read_text() == before


def test_a_config_edited_to_another_game_is_refused(two_runs, tmp_path):
    run = _copy(two_runs / "s1", tmp_path / "r")
    doc = json.loads((run / "config.json").read_text())
    doc["config"]["game"] = "pong"
    (run / "config.json").write_text(json.dumps(doc))
    one_line_exit_2(nc2600("run", "--resume", run, "--generations", "2"), "is not the run's", "damaged")
    doc["rom_md5"] = json.loads((two_runs / "s1" / "config.json").read_text())["rom_md5"]
    doc["config"]["game"], doc["config"]["seed"] = "breakout", 5            # the settings, not the ROM
    (run / "config.json").write_text(json.dumps(doc))
    one_line_exit_2(nc2600("run", "--resume", run, "--generations", "2"),
                    "does not belong to this run: its settings (config.json) differ")


@pytest.mark.parametrize("name", ["checkpoint.npz", "log.jsonl", "config.json"])
def test_a_fifo_in_a_run_file_is_refused_not_waited_on(name, two_runs, tmp_path):
    import os
    run = _copy(two_runs / "s1", tmp_path / "r")
    (run / name).unlink()
    os.mkfifo(run / name)
    one_line_exit_2(nc2600("run", "--resume", run, "--generations", "2"), repr(str(run / name)), "a FIFO")


def test_a_fifo_in_place_of_the_summary_is_a_damaged_summary(two_runs, tmp_path):
    """Not read (no wait): the run is finished again and the summary written in its place."""
    import os
    import stat
    run = _copy(two_runs / "s1", tmp_path / "r")
    (run / "summary.json").unlink()
    os.mkfifo(run / "summary.json")
    proc = nc2600("run", "--resume", run)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISREG(os.stat(run / "summary.json").st_mode)
    assert json.loads((run / "summary.json").read_text())["generations"] == 1


def test_a_run_stopped_by_max_frames_names_max_frames(two_runs, tmp_path):
    run = _copy(two_runs / "s1", tmp_path / "r")
    frames = json.loads((run / "log.jsonl").read_text().splitlines()[-1])["frames"]   # the budget's count
    proc = nc2600("run", "--resume", run, "--generations", "5", "--max-frames", frames)
    assert proc.returncode == 0, proc.stderr
    (line,) = [t for t in proc.stdout.splitlines() if "is finished" in t]
    assert "is finished (1 generations); nothing to do (a larger --max-frames continues it)" in line
    proc = nc2600("run", "--resume", run, "--generations", "1")
    (line,) = [t for t in proc.stdout.splitlines() if "is finished" in t]
    assert line.endswith("(a larger --generations continues it)")


def test_another_out_on_a_live_run_says_it_is_in_use(two_runs, tmp_path):
    import os
    from nc2600.host.rundir import RunFolder
    run = _copy(two_runs / "s1", tmp_path / "r")
    held = RunFolder(run).open_existing()
    try:
        one_line_exit_2(nc2600("run", *TINY, "--out", run),
                        f"another nc2600 process (pid {os.getpid()}) is running now")
    finally:
        held.release()
    one_line_exit_2(nc2600("run", *TINY, "--out", run), "already holds a run; use --resume")


# -- play / instance-play / rtl-play ------------------------------------------------------
def _with_config(run, **changes):
    doc = json.loads((run / "config.json").read_text())
    doc["config"].update(changes)
    (run / "config.json").write_text(json.dumps(doc))
    return run


def test_play_of_a_fabric_run_replays_it_on_ale_with_the_int8_network(two_runs, tmp_path):
    """The fabric runs the int8 network on consoles equal to ALE's: ``play`` gives the same
    episodes as the same run folder labelled ``--backend ale --policy int8``."""
    fabric = _with_config(_copy(two_runs / "s1", tmp_path / "f"), backend="fabric", policy="int8")
    ale = _with_config(_copy(two_runs / "s1", tmp_path / "a"), backend="ale", policy="int8")
    outs = []
    for run in (fabric, ale):
        proc = nc2600("play", "--run", run, "--episodes", "2", "--workers", "1", "--no-video", "--json")
        assert proc.returncode == 0, proc.stderr
        outs.append([json.loads(t) for t in proc.stdout.splitlines()])
    assert outs[0] == outs[1] and outs[0][-1]["summary"]["policy"] == "int8"


def test_instance_play_of_an_empty_params_file_is_one_line(tmp_path):
    (tmp_path / "p.npy").write_bytes(b"")
    one_line_exit_2(nc2600("instance-play", "--game", "boxing", "--params", tmp_path / "p.npy"),
                    "--params", "is not a .npy array file")


def test_no_default_video_into_a_live_runs_folder(two_runs, tmp_path):
    import os
    from nc2600.host.rundir import RunFolder
    run = _copy(two_runs / "s1", tmp_path / "r")
    held = RunFolder(run).open_existing()
    try:
        one_line_exit_2(nc2600("play", "--run", run, "--episodes", "1"),
                        f"in use by a running nc2600 (pid {os.getpid()})",
                        "give --video FILE elsewhere, or --no-video")
        import numpy as np
        np.save(tmp_path / "a.npy", np.zeros(3, np.int64))
        one_line_exit_2(nc2600("rtl-play", "--game", "boxing", "--actions", tmp_path / "a.npy", "--out", run),
                        f"is a run folder in use by a running nc2600 (pid {os.getpid()})")
    finally:
        held.release()
    assert not list(run.glob("play-*")) and not (run / "ram.npy").exists()


# -- output folders -----------------------------------------------------------------------
def test_a_2000_level_out_path_is_created_without_recursion(tmp_path):
    from nc2600.host.rundir import RunFolder
    deep = tmp_path.joinpath(*["a"] * 2000)
    folder = RunFolder(deep).open_new()
    folder.release()
    assert deep.is_dir()
    (deep / ".lock").unlink()
    while deep != tmp_path:                    # iteratively: shutil.rmtree recurses per level
        deep.rmdir()
        deep = deep.parent


def test_a_refused_out_path_leaves_no_folder_it_made(tmp_path):
    """The last level's name is longer than NAME_MAX (255 bytes): refused with one line, and
    the three parents made on the way are removed again."""
    out = tmp_path / "a" / "b" / "c" / ("x" * 300)
    one_line_exit_2(nc2600("run", "--out", out, "--population", "4", "--generations", "1"), "--out", "name too long")
    assert list(tmp_path.iterdir()) == []
    from nc2600.host.rundir import make_folders
    with pytest.raises(OSError):
        make_folders(out)
    assert list(tmp_path.iterdir()) == []


# -- sizes and inputs that cannot be meant ------------------------------------------------
def test_worker_counts_beyond_16_per_core_are_refused_before_any_fork():
    import os
    too_many = 16 * (os.cpu_count() or 1) + 1
    for argv in (["bench", "host", "--seconds", "1"], ["run", "--population", "4"]):
        one_line_exit_2(nc2600(*argv, "--workers", too_many),
                        f"--workers {too_many} starts {too_many:,} worker processes",
                        "16 per core")


#: The CLI in a child whose :func:`nc2600.host.resources.available_memory` reports ``argv[1]`` bytes.
MEMORY_CHILD = """
import runpy, sys
import nc2600.host.resources as resources
have = int(sys.argv.pop(1))
resources.available_memory = lambda: have
sys.argv[0] = "nc2600"
runpy.run_module("nc2600.host.cli", run_name="__main__")
"""


def test_bench_host_checks_memory():
    """``bench host`` refuses, before it starts a worker, a configuration that needs one byte more
    than the memory available (reported to the child as that figure, whatever this machine holds)."""
    from nc2600.host.resources import human_bytes
    from nc2600.host.launcher.settings import RunConfig
    parts = RunConfig(workers=2, envs_per_block=4096).memory_bytes()
    need = parts["evaluator weights"] + parts["slot observations"] + parts["worker processes"]
    proc = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(need - 1), "bench", "host", "--workers", "2",
                           "--envs-per-block", "4096", "--seconds", "1"], capture_output=True, text=True, timeout=120)
    one_line_exit_2(proc, "--workers 2 x --envs-per-block 4096 x 2 instances needs", "of memory",
                    f"this machine has {human_bytes(need - 1)} available")


def test_mesh_refuses_zero_inference_cycles():
    one_line_exit_2(nc2600("mesh", "--inference-cycles", "0"), "--inference-cycles", "expected an integer in [1,")


def test_cpu_run_refuses_an_empty_image(tmp_path):
    (tmp_path / "e.bin").write_bytes(b"")
    one_line_exit_2(nc2600("cpu-run", "--image", tmp_path / "e.bin", "--load", "0x1000", "--start", "0x1000"),
                    "is empty")


@pytest.mark.parametrize("game", ["combat", "joust", "maze_craze", "warlords"])
def test_alés_bundled_but_unsupported_roms_are_named_as_such(game):
    import ale_py.roms
    words = "ale-py 0.12 ships that ALE has no game settings for"
    one_line_exit_2(nc2600("run", "--game", game), f"game {game!r} is one of the ROMs", words)
    one_line_exit_2(nc2600("run", "--rom", ale_py.roms.get_rom_path(game)), f"is ALE's bundled {game!r}", words)
