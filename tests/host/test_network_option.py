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
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def nature_int8_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("nature") / "ga"
    proc = nc2600("run", *TINY, "--policy", "int8", "--seed", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_ga_int8_on_nature(nature_int8_run):
    from nc2600.host.launcher.noise import NoiseTable, genome_params
    cfg = json.loads((nature_int8_run / "config.json").read_text())
    from nc2600.hls_models.networks import n_params
    assert cfg["network"] == "nature" and cfg["n_params"] == n_params("nature", 6) == 1_693_362 - 12 * 513
    best = np.load(nature_int8_run / "best_params.npy")
    genome = json.loads((nature_int8_run / "best_genome.json").read_text())
    assert best.shape == (n_params("nature", 6),)
    assert np.array_equal(best, genome_params(genome["seeds"], 6, 0.002, NoiseTable(1 << 21, 123), "nature"))
    # mesh_sim's projection of the run in summary.json: the default instance's engine (the 16 x 16
    # array) with its cycle model for the nature network; the lane engine (MeshOptions' lanes) sizes
    # itself for the nature network (64 lanes, its cycle model)
    summary = json.loads((nature_int8_run / "summary.json").read_text())
    assert summary["projected_fabric_inference_source"] == \
        "nc2600.hls_models.policy_array.inference_cycles(6, 16, 16, 'nature')"
    from nc2600.mesh_sim.project import MeshOptions, build
    info = build(MeshOptions(run_dir=str(nature_int8_run)))[-1]
    from nc2600.hls_models.policy_int8 import inference_cycles
    assert _find(info, "network") == "nature" and _find(info, "lanes") == 64
    assert _find(info, "inference_cycles") == inference_cycles(6, 64, "nature")


def _find(d, key):
    if isinstance(d, dict):
        if key in d:
            return d[key]
        for v in d.values():
            r = _find(v, key)
            if r is not None:
                return r
    return None


def test_es_float_on_nature(tmp_path):
    ga_only = ("--truncation", "--elite-candidates")           # refused with --algo es
    es_argv = [x for i, x in enumerate(TINY) if x not in ga_only and (i == 0 or TINY[i - 1] not in ga_only)]
    proc = nc2600("run", *es_argv, "--algo", "es", "--out", str(tmp_path / "es"))
    assert proc.returncode == 0, proc.stderr
    from nc2600.hls_models.networks import n_params
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


def test_int8_same_fitness_any_worker_count(tmp_path):
    """``--policy int8``: per-individual shifts and the batched int8 path give the same fitness
    values for 1 and 2 workers (different batches and slots)."""
    small = ["--game", "breakout", "--population", "6", "--generations", "2", "--episode-frames", "300",
             "--elite-candidates", "2", "--elite-episodes", "2", "--test-episodes", "2", "--envs-per-block", "2",
             "--truncation", "3", "--noise-table-size", str(1 << 21), "--progress", "lines", "--no-video",
             "--policy", "int8", "--seed", "11"]
    logs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        proc = nc2600("run", *small, "--workers", workers, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        logs.append([{k: v for k, v in json.loads(line).items() if k not in ("wall_s", "fps")}
                     for line in (out / "log.jsonl").read_text().splitlines()])
    assert logs[0] == logs[1] and len(logs[0]) == 2


def test_nature_slot_values_do_not_depend_on_the_batch():
    from nc2600.hls_models.policy_int8 import quantize_network
    from nc2600.host.episodes.policy import NetworkSlotWeights, init_network_params
    from nc2600.host.launcher.policy_int8 import Int8NetworkSlots
    rng = np.random.default_rng(4)
    obs = rng.integers(0, 256, (3, 4, 84, 84), dtype=np.uint8)
    flats = [init_network_params(s, 5, "nature") for s in (1, 2, 3)]
    pols = [quantize_network(f, "nature", 5, obs[:2]) for f in flats]
    for cls, items in ((NetworkSlotWeights, flats), (Int8NetworkSlots, pols)):
        big, one = cls(3, 5, "nature"), cls(1, 5, "nature")
        for i, item in enumerate(items):
            big.load(i, item)
        one.load(0, items[2])
        values = big.action_values(obs) if cls is Int8NetworkSlots else big.q_values(obs)
        single = one.action_values(obs[2:]) if cls is Int8NetworkSlots else one.q_values(obs[2:])
        assert np.array_equal(values[2], single[0])
