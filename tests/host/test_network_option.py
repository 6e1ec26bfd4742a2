"""``nc2600 run --network nature``: GA and ES train it (float32 and int8), its genomes rebuild
bit for bit, and a resume cannot change the network or the arithmetic (one line, exit 2)."""
import json
import subprocess
import sys

import numpy as np
import pytest

TINY = ["--game", "pong", "--population", "4", "--generations", "1", "--episode-frames", "120",
        "--elite-candidates", "1", "--elite-episodes", "1", "--test-episodes", "1", "--envs-per-block", "1",
        "--truncation", "2", "--noise-table-size", str(1 << 21), "--progress", "lines", "--workers", "1",
        "--no-video", "--network", "nature"]


def nc2600(*args):
    return subprocess.run([sys.executable, "-m", "host.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def nature_int8_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("nature") / "ga"
    proc = nc2600("run", *TINY, "--policy", "int8", "--seed", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_ga_int8_on_nature(nature_int8_run):
    from host.noise import NoiseTable, genome_params
    cfg = json.loads((nature_int8_run / "config.json").read_text())
    from hls_models.networks import n_params
    assert cfg["network"] == "nature" and cfg["n_params"] == n_params("nature", 6) == 1_693_362 - 12 * 513
    best = np.load(nature_int8_run / "best_params.npy")
    genome = json.loads((nature_int8_run / "best_genome.json").read_text())
    assert best.shape == (n_params("nature", 6),)
    assert np.array_equal(best, genome_params(genome["seeds"], 6, 0.002, NoiseTable(1 << 21, 123), "nature"))


def test_es_float_on_nature(tmp_path):
    proc = nc2600("run", *TINY, "--algo", "es", "--out", str(tmp_path / "es"))
    assert proc.returncode == 0, proc.stderr
    from hls_models.networks import n_params
    assert np.load(tmp_path / "es" / "best_params.npy").shape == (n_params("nature", 6),)


@pytest.mark.parametrize("args,needle", [
    (["--network", "small"], "--network differs from the run being resumed"),
    (["--policy", "float"], "--policy differs from the run being resumed"),
])
def test_resume_with_another_network_or_policy(nature_int8_run, args, needle):
    proc = nc2600("run", "--resume", str(nature_int8_run), *args)
    assert proc.returncode == 2 and needle in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


@pytest.mark.parametrize("opt,value", [("--network", "huge"), ("--policy", "int4")])
def test_bad_choice_one_line(opt, value, tmp_path):
    proc = nc2600("run", opt, value, "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and "invalid choice" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
