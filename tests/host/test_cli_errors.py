"""Bad input: one line on stderr, exit code 2, no run files left behind."""
import subprocess
import sys

import pytest


def nc2600(*args):
    return subprocess.run([sys.executable, "-m", "host.cli", *args], capture_output=True, text=True)


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
    one_line_exit_2(nc2600("run", "--rom", str(tmp_path / "missing.bin"), "--out", str(tmp_path / "x")), "cannot read ROM")


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
    from host.errors import UserError
    from host.rundir import atomic_write_bytes, check_output_file
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
