"""Options that do not apply to the chosen algorithm, mode or output are refused in one line
(exit 2) naming what they apply to, before any work; numbers are ASCII digits; documented ranges
are read exactly. Oracles: the algorithms' definitions (random search has no parents, so no
truncation; ES has no elite candidates; GA has no Adam step), ``2**53 + 1`` computed in Python.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from nc2600.host.errors import UserError


def nc2600(*args):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def one_line_exit_2(proc, needle):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert needle in lines[0], lines[0]


def _build(*argv):
    from nc2600.host.cli import build_parser
    from nc2600.host.commands.run import build
    return build(build_parser().parse_args(["run", *argv]))[0]


@pytest.mark.parametrize("argv, words", [
    (["--algo", "es", "--truncation", "3"], "--truncation applies to --algo ga only (this run: --algo es)"),
    (["--algo", "rs", "--truncation", "3"], "--truncation applies to --algo ga only (this run: --algo rs)"),
    (["--algo", "ga", "--es-lr", "0.1"], "--es-lr applies to --algo es only (this run: --algo ga)"),
    (["--algo", "rs", "--es-l2", "0.1"], "--es-l2 applies to --algo es only (this run: --algo rs)"),
    (["--algo", "es", "--elite-candidates", "2"],
     "--elite-candidates applies to --algo ga or --algo rs only (this run: --algo es)"),
    (["--algo", "rs", "--sigma", "0.01"], "--sigma applies to --algo ga or --algo es only (this run: --algo rs)"),
    (["--algo", "rs", "--noise-table-size", "100000000"],
     "--noise-table-size applies to --algo ga or --algo es only (this run: --algo rs)"),
])
def test_run_options_of_another_algorithm_are_refused(argv, words):
    with pytest.raises(UserError) as err:
        _build(*argv)
    assert str(err.value) == words


@pytest.mark.parametrize("argv", [
    ["--algo", "ga", "--truncation", "3", "--sigma", "0.01", "--elite-candidates", "2"],
    ["--algo", "es", "--es-lr", "0.1", "--es-l2", "0.01", "--sigma", "0.05", "--population", "4"],
    ["--algo", "rs", "--elite-candidates", "2", "--elite-episodes", "2"],
])
def test_run_options_of_the_chosen_algorithm_are_taken(argv):
    cfg = _build(*argv)
    given = dict(zip(argv[::2], argv[1::2]))
    for option, text in given.items():
        value = getattr(cfg, option[2:].replace("-", "_"))
        assert value == type(value)(text)


def test_run_refusal_is_one_line_and_creates_nothing(tmp_path):
    one_line_exit_2(nc2600("run", "--algo", "es", "--truncation", "3", "--out", tmp_path / "x"),
                    "--truncation applies to --algo ga only")
    assert not (tmp_path / "x").exists()


def test_resume_refuses_an_option_of_another_algorithm(tmp_path):
    import dataclasses
    import json

    from nc2600.host.launcher.settings import RunConfig
    cfg = dataclasses.asdict(RunConfig(algo="rs", population=4, truncation=2, elite_candidates=2))
    (tmp_path / "config.json").write_text(json.dumps({"config": cfg}))
    one_line_exit_2(nc2600("run", "--resume", tmp_path, "--es-lr", "0.1"), "--es-lr")


@pytest.mark.parametrize("text", ["٣", "３", "1٠", "0.٥"])
def test_numbers_are_ascii_digits(text):
    """Python's int() and float() take other scripts' digits (int('٣') == 3); the options do not."""
    assert float(text) >= 0                         # Python itself takes them
    one_line_exit_2(nc2600("run", "--population", text), "argument --population")
    one_line_exit_2(nc2600("run", "--sticky", text), "argument --sticky")


@pytest.mark.parametrize("option, value", [("--scale", "3"), ("--video-seconds", "5")])
def test_play_video_options_with_no_video_are_refused(option, value, tmp_path):
    one_line_exit_2(nc2600("play", "--run", tmp_path, "--no-video", option, value),
                    f"{option} applies to the video only; it cannot be given with --no-video")


@pytest.mark.parametrize("option, value", [("--fst-cycles", "20000"), ("--fst-after", "5")])
def test_instance_play_waveform_options_without_fst_are_refused(option, value, tmp_path):
    one_line_exit_2(nc2600("instance-play", "--game", "pong", "--params", tmp_path / "p.npy", option, value),
                    f"{option} applies to the waveform only; give --fst PATH with it")


@pytest.mark.parametrize("spec, words", [
    (f"fixed:{2**53 + 1}", "out of range"),              # a float read rounds it to 2**53
    (f"uniform:1:{2**53 + 1}", "out of range"),
    ("fixed:٣", "non-number"),
])
def test_mesh_episode_steps_are_read_exactly(spec, words):
    from nc2600.mesh_sim.workload import EpisodeDistribution
    with pytest.raises(ValueError, match=words):
        EpisodeDistribution(spec)
    assert EpisodeDistribution(f"fixed:{2**53}").parse()[1] == (float(2**53),)


def test_mesh_fail_nodes_that_leave_no_live_instance_are_refused_up_front():
    from nc2600.mesh_sim.project import MeshOptions, build, simulate
    topo = build(MeshOptions())[0]
    workers = len(topo.worker_nodes)
    candidates = topo.n_nodes - 1                   # every node but the entry node may fail
    with pytest.raises(ValueError, match=f"fail all {workers} worker nodes, leaving no live instance"):
        simulate(MeshOptions(fail_nodes=candidates, population=20, generations=1))
    one_line_exit_2(nc2600("mesh", "--population", "20", "--fail-nodes", candidates),
                    "leaving no live instance")


@pytest.mark.parametrize("argv", [
    ["bench", "mesh", "--record", "{tmp}/missing/x.jsonl"],
    ["games", "verify", "--game", "pong", "--frames", "5", "--record", "{tmp}/missing/x.jsonl"],
    ["mesh", "--population", "20", "--out", "{tmp}/missing/x.json"],
])
def test_record_and_out_files_into_a_missing_folder_are_refused_not_created(argv, tmp_path):
    """As ``play --video``: the folder of an output file must exist; it is never created."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    one_line_exit_2(nc2600(*argv), f"folder '{tmp_path / 'missing'}' does not exist")
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("argv, words", [
    (["--lockstep", "{tmp}/nonexist"], "--lockstep '{tmp}/nonexist' is not a folder"),
    (["--out", "{tmp}"], "--out '{tmp}' is a folder"),
    (["--out", "{tmp}/nonexist/results.md"], "is missing"),
    (["--out", ""], "--out is empty"),
])
def test_results_check_with_a_bad_path_is_exit_2_not_out_of_date(argv, words, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    one_line_exit_2(nc2600("results", "--check", *argv), words.replace("{tmp}", str(tmp_path)))


def test_a_refused_lockstep_results_file_leaves_no_lock_file(tmp_path):
    page = tmp_path / "README.md"
    page.write_text("# a page, not a results file\n")
    one_line_exit_2(nc2600("lockstep", "--games", "pong", "--frames", "5", "--results", page),
                    "not a lockstep results file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]
    assert page.read_text() == "# a page, not a results file\n"


@pytest.mark.parametrize("argv", [["mesh", "--population", "20", "--colour-clocks", "٣"],
                                  ["synth", "--block", "action_select", "--pnr-speed", "٧"]])
def test_options_with_choices_take_ascii_digits_only(argv):
    """``int('٣') == 3`` would pass ``choices=(1, 3)``; the option refuses it."""
    assert int(argv[-1]) in (3, 7)
    one_line_exit_2(nc2600(*argv), f"invalid integer value: '{argv[-1]}'")
