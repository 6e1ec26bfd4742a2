"""Bad input: one line on stderr, exit code 2, no run files left behind."""
import subprocess
import sys

import pytest


def nc2600(*args):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True)


def one_line_exit_2(proc, *needles):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_unknown_game_suggests_close_names(tmp_path):
    one_line_exit_2(nc2600("run", "--game", "breakuot", "--out", str(tmp_path / "x")), "breakout")
    assert not (tmp_path / "x").exists()


def test_unreadable_rom(tmp_path):
    one_line_exit_2(nc2600("run", "--rom", str(tmp_path / "missing.bin"), "--out", str(tmp_path / "x")),
                    "cannot read ROM")


def test_wrong_size_rom(tmp_path):
    rom = tmp_path / "odd.bin"
    rom.write_bytes(b"\0" * 1000)
    one_line_exit_2(nc2600("run", "--rom", str(rom), "--out", str(tmp_path / "x")), "1000 bytes")


def test_md5_not_an_ale_game(tmp_path):
    rom = tmp_path / "blank.bin"
    rom.write_bytes(b"\xea" * 4096)
    one_line_exit_2(nc2600("run", "--rom", str(rom), "--out", str(tmp_path / "x")), "not one of ALE's")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("opt,value", [("--population", "0"), ("--generations", "-3"), ("--max-frames", "0"),
                                       ("--episode-frames", "abc"), ("--sticky", "1.5"), ("--workers", "0")])
def test_bad_values(opt, value, tmp_path):
    one_line_exit_2(nc2600("run", opt, value, "--out", str(tmp_path / "x")), opt)


def test_es_needs_even_population(tmp_path):
    one_line_exit_2(nc2600("run", "--algo", "es", "--population", "5", "--out", str(tmp_path / "x")), "even")


def test_out_dir_holding_a_run_needs_resume(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    one_line_exit_2(nc2600("run", "--out", str(tmp_path)), "--resume")


def test_resume_without_checkpoint(tmp_path):
    one_line_exit_2(nc2600("run", "--resume", str(tmp_path)), "config.json")


def test_bench_unknown_game():
    one_line_exit_2(nc2600("bench", "host", "--game", "pongg"), "pong")


def test_game_and_rom_must_agree(tmp_path):
    import ale_py.roms
    one_line_exit_2(nc2600("run", "--game", "boxing", "--rom", ale_py.roms.get_rom_path("pong"),
                           "--out", str(tmp_path / "x")), "pong")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("opt,value,needle", [("--episode-frames", "20", "no-op"), ("--frame-skip", "500", "64"),
                                              ("--noise-table-size", "1", "network size")])
def test_sizes_that_cannot_work(opt, value, needle, tmp_path):
    one_line_exit_2(nc2600("run", opt, value, "--out", str(tmp_path / "x")), needle)
    assert not (tmp_path / "x").exists()


def test_out_cannot_be_created(tmp_path):
    (tmp_path / "file").write_text("x")
    one_line_exit_2(nc2600("run", "--out", str(tmp_path / "file" / "sub")), "cannot create")


def test_unreadable_checkpoint(tmp_path):
    (tmp_path / "config.json").write_text('{"config": {"game": "pong"}}')
    (tmp_path / "checkpoint.npz").write_bytes(b"")
    one_line_exit_2(nc2600("run", "--resume", str(tmp_path)), "cannot read checkpoint")


# -- output files that exist and are not regular files are refused, never replaced --------------
def _special_files(tmp_path):
    """A FIFO and a socket inside ``tmp_path`` (never a real device: without the check, the output
    would be renamed over them, and only these files could be lost)."""
    import os
    import socket
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    cwd = os.getcwd()
    os.chdir(tmp_path)             # a socket's path must be short: bind it relative
    try:
        sock.bind("sock.json")
    finally:
        os.chdir(cwd)
    return sock, {"a FIFO": fifo, "a socket": tmp_path / "sock.json"}


def test_output_file_check_refuses_fifo_and_socket(tmp_path):
    import stat
    from nc2600.host.errors import UserError
    from nc2600.host.rundir import atomic_write_bytes, check_output_file
    sock, files = _special_files(tmp_path)
    try:
        for kind, path in files.items():
            with pytest.raises(UserError, match=f"--out '{path}' exists and is {kind}"):
                check_output_file(path)
            with pytest.raises(UserError, match=f"exists and is {kind}"):
                atomic_write_bytes(path, b"{}")
            assert not stat.S_ISREG(path.lstat().st_mode)          # still the FIFO / socket
        assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.json", "sock.json"]   # no temp file
    finally:
        sock.close()


def test_mesh_out_fifo_or_socket_refused_not_replaced(tmp_path):
    import stat
    sock, files = _special_files(tmp_path)
    try:
        for kind, path in files.items():
            one_line_exit_2(nc2600("mesh", "--population", "20", "--out", str(path)),
                            f"--out '{path}' exists and is {kind}")
            assert not stat.S_ISREG(path.lstat().st_mode)
    finally:
        sock.close()


@pytest.mark.parametrize("spec", ["fixed:1e20", "uniform:1:1e20"])
def test_mesh_episode_steps_beyond_int64_one_line(spec):
    one_line_exit_2(nc2600("mesh", "--population", "20", "--episode-steps", spec),
                    f"episode distribution out of range: '{spec}' (each number at most 2**53)")


def test_mesh_run_with_huge_frame_count_one_line(tmp_path):
    import json
    (tmp_path / "episodes.jsonl").write_text(json.dumps(
        {"generation": 0, "individual": 0, "episode": 0, "kind": "train", "frames": 10**30, "steps": 45,
         "return": 0.0, "reset_frames": 20}) + "\n")
    one_line_exit_2(nc2600("mesh", "--run", str(tmp_path)), "episodes.jsonl:1: field 'frames' is larger than 2**53")


@pytest.mark.parametrize("cmd", [["games", "verify"], ["lockstep", "--game", "pong"], ["run"]])
@pytest.mark.parametrize("host", ["a..b", "x" * 64])
def test_ray_address_with_invalid_host_name_one_line(cmd, host, tmp_path):
    extra = ["--out", str(tmp_path / "r")] if cmd == ["run"] else []
    one_line_exit_2(nc2600(*cmd, *extra, "--cluster", "ray", "--ray-address", f"{host}:6379"),
                    f"--ray-address '{host}:6379': '{host}' is not a valid host name")
    assert not (tmp_path / "r").exists()


def _pong_params(tmp_path, value, dtype):
    import numpy as np
    from nc2600.host.episodes.policy import n_params
    path = tmp_path / "p.npy"
    np.save(path, np.full(n_params(6), value, dtype))
    return path


@pytest.mark.parametrize("value,dtype", [(float("nan"), "float32"), (float("inf"), "float32"), (1e300, "float64")])
def test_instance_play_refuses_non_finite_parameters(tmp_path, value, dtype):
    from nc2600.host.episodes.policy import n_params
    n = n_params(6)
    path = _pong_params(tmp_path, value, dtype)
    one_line_exit_2(nc2600("instance-play", "--game", "pong", "--params", str(path)),
                    f"--params {path}: {n:,} of {n:,} parameters are not finite float32 numbers")


@pytest.mark.parametrize("extra,message", [
    (["--engine", "lane", "--array", "8x8"], "--array applies to the array engine, not --engine lane"),
    (["--array", "16by16"], "--array: expected ROWSxCOLS, e.g. 16x16, got '16by16'"),
    (["--array", "4x4", "--colour-clocks", "3"],
     "--array: three pixels per cycle need stack words of two or more columns"),
])
def test_instance_play_engine_options(tmp_path, extra, message):
    """The array engine is the default; its shape is checked against the word stack before any
    build, and ``--array`` with the lane engine is refused."""
    path = _pong_params(tmp_path, 0.01, "float32")
    one_line_exit_2(nc2600("instance-play", "--game", "pong", "--params", str(path), *extra), message)


def test_instance_play_params_not_npy_without_numpy_advice(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"a": 1}\n')
    proc = nc2600("instance-play", "--game", "pong", "--params", str(path))
    one_line_exit_2(proc, f"--params: {path} is not a .npy array file")
    assert "pickle" not in proc.stderr


# -- run folders holding a FIFO or damaged values -------------------------------------------
def _episodes_line():
    import json
    return json.dumps({"generation": 0, "individual": 0, "episode": 0, "kind": "train", "frames": 200,
                       "steps": 45, "return": 0.0, "reset_frames": 20}) + "\n"


@pytest.mark.parametrize("fifo", ["config.json", "episodes.jsonl"])
def test_mesh_run_with_a_fifo_refused_at_once(tmp_path, fifo):
    import os
    other = "episodes.jsonl" if fifo == "config.json" else "config.json"
    (tmp_path / other).write_text(_episodes_line() if other == "episodes.jsonl" else "{}")
    os.mkfifo(tmp_path / fifo)
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "mesh", "--run", str(tmp_path)],
                          capture_output=True, text=True, timeout=20)
    one_line_exit_2(proc, f"{tmp_path}/{fifo} is a FIFO; give a regular file")


def test_run_resume_with_a_fifo_config_refused_at_once(tmp_path):
    import os
    os.mkfifo(tmp_path / "config.json")
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "run", "--resume", str(tmp_path)],
                          capture_output=True, text=True, timeout=20)
    one_line_exit_2(proc, f"run configuration '{tmp_path}/config.json' is a FIFO; give a regular file")


def test_interrupt_while_deciding_on_ray_is_one_line(tmp_path, monkeypatch, capsys):
    """``cli.main`` asks the command whether it drives Ray (run --resume reads config.json for
    that) before the command runs: a Ctrl-C or SIGTERM there is one line and 130 too."""
    import nc2600.host.commands.run as run_cmd
    from nc2600.host.cli import main

    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(run_cmd, "_uses_ray", interrupted)
    try:
        rc = main(["run", "--resume", str(tmp_path)])
    except KeyboardInterrupt:
        pytest.fail("the KeyboardInterrupt escaped cli.main (a traceback)")
    assert rc == 130
    assert capsys.readouterr().err == "nc2600: interrupted\n"


def test_config_rom_not_a_string_is_damaged_for_resume_and_mesh(tmp_path):
    import json
    (tmp_path / "config.json").write_text(json.dumps({"game": "pong", "config": {"game": "pong", "rom": 123}}))
    (tmp_path / "episodes.jsonl").write_text(_episodes_line())
    one_line_exit_2(nc2600("run", "--resume", str(tmp_path)),
                    f"'{tmp_path}/config.json' is damaged: --rom must be a file path, got 123")
    one_line_exit_2(nc2600("mesh", "--run", str(tmp_path)),
                    f"{tmp_path}/config.json is damaged: 'rom' is 123, not a string")


@pytest.mark.parametrize("args,needle", [
    (["--run", ""], "the run directory is empty; give --run DIR"),
    (["--faults", ","], "the fault list ',' has an empty item"),
    (["--faults", ""], "the fault list is empty"),
    (["--faults", "link:3-4@inf"], "fault link:3-4@inf: time must be a number of seconds in [0, 1e9]"),
    (["--faults", "node:17@1e308"], "fault node:17@1e+308: time must be a number of seconds in [0, 1e9]"),
    (["--faults", "node:17@nan"], "fault node:17@nan: time must be a number of seconds in [0, 1e9]"),
])
def test_mesh_empty_and_non_finite_values(args, needle):
    one_line_exit_2(nc2600("mesh", "--population", "20", *args), needle)


def test_mesh_run_given_a_file_says_so(tmp_path):
    (tmp_path / "some.json").write_text("{}")
    one_line_exit_2(nc2600("mesh", "--run", str(tmp_path / "some.json")),
                    f"run directory '{tmp_path}/some.json' is not a folder")


@pytest.mark.parametrize("cmd", [["mesh", "--population", "20"], ["report", "--no-instance"]])
@pytest.mark.parametrize("lanes", ["5", "2", "260", "0"])
def test_lanes_one_rule_everywhere(cmd, lanes, tmp_path):
    """mesh and report take the MAC lanes synth takes (the engine's check_lanes)."""
    one_line_exit_2(nc2600(*cmd, "--lanes", lanes, *(["--out", str(tmp_path / "r")] if cmd[0] == "report" else [])),
                    f"argument --lanes: lanes must be a multiple of 4 in 4..256, got '{lanes}'")
    assert not (tmp_path / "r").exists()


def test_report_unknown_game_leaves_no_folder(tmp_path):
    one_line_exit_2(nc2600("report", "--game", "nosuch", "--out", str(tmp_path / "rep")), "unknown game 'nosuch'")
    assert not (tmp_path / "rep").exists()



@pytest.mark.parametrize("extra, frames, least", [([], "34", 35), ([], "1", 35), (["--no-instance"], "3", 4)])
def test_report_frames_too_few_for_an_episode_leaves_no_folder(tmp_path, extra, frames, least):
    """The instance's episode starts with 1..30 no-op frames (ALE 0.12's no-op start, as `run`)
    and needs one frame-skip period (4) after them: 34 frames crashed the calibration's episode
    before this check (a traceback and a folder holding only inputs/)."""
    one_line_exit_2(nc2600("report", *extra, "--frames", frames, "--out", str(tmp_path / "rep")),
                    f"--frames must be at least {least}", f"got {frames}")
    assert not (tmp_path / "rep").exists()

def test_rtl_play_actions_message_names_only_a_file(tmp_path):
    proc = nc2600("rtl-play", "--game", "pong", "--actions", "random", "--out", str(tmp_path / "o"))
    one_line_exit_2(proc, "--actions: 'random' is not an existing .npy file")
    assert "noop" not in proc.stderr and not (tmp_path / "o").exists()


def test_bench_help_lists_every_target():
    from nc2600.host.cli import build_parser
    parser = build_parser()
    bench = next(a for a in parser._subparsers._group_actions[0]._choices_actions if a.dest == "bench")
    targets = sorted(parser._subparsers._group_actions[0].choices["bench"]._subparsers._group_actions[0].choices)
    assert {"host", "rtl", "mesh", "policy", "ray"} <= set(targets)
    assert bench.help == f"throughput benchmarks ({', '.join(targets)})"


def test_output_file_under_a_file_says_so(tmp_path):
    """An output path whose folder is a file is refused as such, not as a missing folder (a new
    user's find); a missing folder is still reported as missing."""
    from nc2600.host.errors import UserError
    from nc2600.host.rundir import check_output_file
    (tmp_path / "plain.txt").write_text("x")
    with pytest.raises(UserError, match="plain.txt' is not a folder"):
        check_output_file(tmp_path / "plain.txt" / "out.json")
    with pytest.raises(UserError, match="nowhere' does not exist"):
        check_output_file(tmp_path / "nowhere" / "out.json")


def test_rtl_play_unwritable_out_is_not_called_a_full_disk(tmp_path, capsys):
    """``rtl-play --out`` under /proc: refused as unwritable, not as "0 bytes free" (a new user's
    find: the free-space check ran on the unwritable path first)."""
    import numpy as np
    from nc2600.host.cli import main
    np.save(tmp_path / "a.npy", np.zeros(4, dtype=np.int64))
    assert main(["rtl-play", "--game", "pong", "--actions", str(tmp_path / "a.npy"),
                 "--out", "/proc/nc2600_not_here"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err and "free" not in err


def test_version_names_pyproject_version():
    import tomllib
    from pathlib import Path
    want = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["version"]
    proc = nc2600("--version")
    assert proc.returncode == 0 and proc.stdout == f"nc2600 {want}\n" and proc.stderr == "", proc
