"""Workloads: a launcher run directory replayed, the default distribution, bad input."""
import json

import numpy as np
import pytest

from nc2600.mesh_sim.project import MeshOptions, project_run, simulate
from nc2600.mesh_sim.workload import EpisodeDistribution, load_run, synthetic_workload

F = 59736 / 150e6


def write_run(path, records, config=None):
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config or {"game": "pong", "population": 3, "frame_skip": 4,
                                                           "episode_frames": 20000}))
    (path / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def rec(g, i, e, kind, frames, steps, reset=40):
    return {"generation": g, "individual": i, "episode": e, "kind": kind, "frames": frames, "steps": steps,
            "return": -21.0, "reset_frames": reset}


RECORDS = [rec(0, 0, 0, "train", 3040, 750), rec(0, 1, 0, "train", 4040, 1000), rec(0, 2, 0, "train", 840, 200),
           rec(0, 1, 0, "elite", 4040, 1000), rec(0, 1, 1, "elite", 2040, 500),
           rec(1, 0, 0, "train", 1040, 250), rec(1, 1, 0, "train", 2040, 500), rec(1, 2, 0, "train", 440, 100),
           rec(1, 2, 0, "test", 4040, 1000)]


def test_load_run_phases(tmp_path):
    wl = load_run(write_run(tmp_path / "run", RECORDS))
    assert wl.n_evaluations == 9 and wl.n_generations == 2 and wl.game == "pong"
    wl2 = load_run(write_run(tmp_path / "run2", RECORDS[:8] + [rec(2, 2, 0, "test", 4040, 1000)]))
    assert wl2.n_generations == 2  # the launcher files the final test under the next generation
    kinds = [sorted({wl.key(e)[1] for e in p}) for p in wl.phases]
    assert kinds == [["train"], ["elite"], ["train"], ["test"]]
    assert [len(p) for p in wl.phases] == [3, 2, 3, 1]
    assert int(wl.frames.sum()) == sum(r["frames"] for r in RECORDS)
    assert load_run(str(tmp_path / "run"), generations=1).n_evaluations == 5


def test_project_run_replays_the_recorded_lengths(tmp_path):
    run = write_run(tmp_path / "run", RECORDS)
    out = project_run(run)
    assert set(out) >= {"projected_fabric_fps", "projected_fabric_wall_s"}
    # 832 slots, at most 3 evaluations per phase: each phase lasts its longest episode
    # (+ 68 reset frames, no inference stall, weight load, messages); the run cannot be faster
    # than the sum of the phases' longest episodes
    longest = (4040 + 68) * F + (4040 + 68) * F + (2040 + 68) * F + (4040 + 68) * F
    assert longest < out["projected_fabric_wall_s"] < longest + 0.05
    assert out["projected_fabric_fps"] == pytest.approx(sum(r["frames"] for r in RECORDS)
                                                        / out["projected_fabric_wall_s"])


@pytest.mark.parametrize("content, msg", [
    ("not json\n", "not JSON"),
    (json.dumps({"generation": 0}) + "\n", "missing"),
    (json.dumps(rec(0, 0, 0, "warmup", 10, 2)) + "\n", "kind"),
    (json.dumps(rec(0, 0, 0, "train", -1, 2)) + "\n", "negative"),
    (json.dumps(rec(0, 0, 0, "train", 10**30, 2)) + "\n", "field 'frames' is larger than 2\\*\\*53"),
    (json.dumps(rec(0, 0, 10**19, "train", 10, 2)) + "\n", "field 'episode' is larger than 2\\*\\*53"),
    (json.dumps(rec(0, 0, 0, "train", 10, 2)) + "\n" + json.dumps(rec(0, 0, 0, "train", 10, 2)) + "\n", "twice"),
    ("", "no episode"),
])
def test_bad_run_files(tmp_path, content, msg):
    d = tmp_path / "bad"
    d.mkdir()
    (d / "episodes.jsonl").write_text(content)
    with pytest.raises(ValueError, match=msg):
        load_run(str(d))


def test_missing_and_unreadable_run(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_run(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="not found"):
        load_run(str(tmp_path / "empty"))
    d = tmp_path / "binary"
    d.mkdir()
    (d / "episodes.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError):
        load_run(str(d))


def test_default_distribution_statistics():
    dist = EpisodeDistribution()
    steps = dist.sample_steps(np.random.default_rng(0), 200_000, 5000)
    # log-normal median 2500, sigma 0.8, cut at 5000: P(cap) = P(Z > ln 2 / 0.8) = 0.193
    assert (steps == 5000).mean() == pytest.approx(0.193, abs=0.005)
    assert np.median(steps) == pytest.approx(2500, rel=0.02)
    noops = dist.sample_noops(np.random.default_rng(0), 100_000)
    assert noops.min() == 1 and noops.max() == 30
    wl = synthetic_workload(1000, 2, seed=1)
    # per generation 1000 train + 10 x 30 elite evaluations
    assert wl.n_evaluations == 2 * 1300 and [len(p) for p in wl.phases] == [1000, 300, 1000, 300]
    assert (wl.frames == (wl.steps * 4 + wl.reset_frames)).all()
    for bad in ("fixed:0", "uniform:5:1", "lognormal:0:1", "gamma:1:2", "fixed:x"):
        with pytest.raises(ValueError):
            EpisodeDistribution(bad)
    for bad in ("fixed:1.5", "uniform:1:2.5", "uniform:2.5:9"):
        with pytest.raises(ValueError, match="step counts must be whole numbers"):
            EpisodeDistribution(bad)
    steps = EpisodeDistribution("uniform:2:7.0").sample_steps(np.random.default_rng(0), 1000, 5000)
    assert steps.dtype == np.int64 and set(steps.tolist()) == {2, 3, 4, 5, 6, 7}


def test_bad_options():
    for kw in ({"cards": 0}, {"population": -1}, {"clock_mhz": 0.0}, {"inference": "magic"},
               {"elite_candidates": 2000}, {"mesh": (10, 10, 3)}, {"fail_nodes": 432},
               {"faults": "node:3@1", "fail_nodes": 1}):
        with pytest.raises(ValueError):
            simulate(MeshOptions(**kw))


@pytest.mark.parametrize("spec", ["fixed:1e20", "uniform:1:1e20", "uniform:1e19:1e20", "lognormal:1e54:0.5"])
def test_distribution_numbers_beyond_int64_refused(spec):
    with pytest.raises(ValueError, match=r"out of range: .* \(each number at most 2\*\*53\)"):
        EpisodeDistribution(spec)


def test_lognormal_long_tail_is_capped_not_wrapped():
    """sigma 50: half the draws are far above the cap (many overflow float64 to inf); each is a
    capped episode, none a 1-step one from an int64 cast of a huge float."""
    import warnings
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # no overflow RuntimeWarning either
        steps = EpisodeDistribution("lognormal:2500:50").sample_steps(rng, 20_000, 5000)
    z = np.random.default_rng(0).standard_normal(20_000)
    with np.errstate(over="ignore", under="ignore"):
        want = np.clip(np.rint(2500 * np.exp(50 * z)), 1, 5000).astype(np.int64)
    assert (steps == want).all()
    assert (steps == 5000).sum() == (z > np.log(2) / 50).sum() > 9000    # above the cap: capped
    big = EpisodeDistribution("fixed:9007199254740992").sample_steps(rng, 3, 5000)
    assert big.tolist() == [5000, 5000, 5000]


def test_project_run_uses_the_default_instance_engine(tmp_path, capsys):
    """The projection `nc2600 run` writes into summary.json is the one `nc2600 mesh --run DIR` prints
    with no engine option: the default instance's 16 x 16 array engine, its cycles for the run's
    6 actions (nc2600.hls_models.policy_array.inference_cycles(6, 16, 16) = 11,642), not the lane engine's
    (nc2600.hls_models.policy_int8.inference_cycles(6, 16) = 185,674); an engine given still wins."""
    from nc2600.hls_models.policy_array import inference_cycles as array_cycles
    from nc2600.hls_models.policy_int8 import inference_cycles as lane_cycles
    from nc2600.host.cli import main
    run = write_run(tmp_path / "run", RECORDS, config={"game": "pong", "n_actions": 6, "population": 3,
                                                       "frame_skip": 4})
    out = project_run(run, inference="serial")
    assert out["projected_fabric_inference_source"] == "nc2600.hls_models.policy_array.inference_cycles(6, 16, 16)"
    # By hand: the 16 x 16 array issues P x G x T words (T = K / 16 rows, G = ceil(N / 16 columns)):
    # conv1 400 x 1 x 16, conv2 81 x 2 x 16, dense1 1 x 16 x 162, dense2 (6 actions) 1 x 1 x 16,
    # then 3 layer gaps of 10, the 9-cycle pipeline and action select's ceil(log2 6) = 3
    # (nc2600.hls_models.policy_array.engine_cycles: 11,655 for 18 actions, whose dense2 is 2 x 16).
    assert array_cycles(6, 16, 16) == 6400 + 2592 + 2592 + 16 + 3 * 10 + 9 + 3 == 11_642
    # the 16-lane engine: P x ceil(N/16) x K = 400 x 1 x 256 + 81 x 2 x 256 + 1 x 16 x 2592 + 1 x 1 x 256,
    # gaps (4 + 2 + 16) after conv1, conv2 and dense1, 4 + 1 after the last input, 3 for the argmax
    assert lane_cycles(6, 16) == 102_400 + 41_472 + 41_472 + 256 + 3 * 22 + 5 + 3 == 185_674
    rep = simulate(MeshOptions(run_dir=run, inference="serial", array=(16, 16)))
    assert rep["instance"]["inference_cycles"] == 11_642
    assert out["projected_fabric_fps"] == rep["projected_fps"]
    assert main(["mesh", "--json", "--run", run, "--inference", "serial"]) == 0
    assert json.loads(capsys.readouterr().out)["projected_fps"] == out["projected_fabric_fps"]
    lane = project_run(run, inference="serial", lanes=16)
    assert lane["projected_fabric_inference_source"] == "nc2600.hls_models.policy_int8"
    assert lane["projected_fabric_fps"] < out["projected_fabric_fps"]


def test_run_files_without_line_breaks_or_too_large_are_refused_at_once(tmp_path):
    """episodes.jsonl is read a line of at most 65,536 characters at a time and config.json at most
    16 MiB (the bound nc2600 run --resume reads it with): a 1 GiB sparse file with no line break
    is refused at once, never read whole into memory; a record padded to exactly 65,536
    characters is read."""
    import os
    from nc2600.mesh_sim.workload import CONFIG_MAX_BYTES, EPISODE_LINE_MAX
    assert EPISODE_LINE_MAX == 65_536 and CONFIG_MAX_BYTES == 16 * 2**20
    run = tmp_path / "run"
    write_run(run, RECORDS[:1])
    with open(run / "episodes.jsonl", "r+b") as fh:
        fh.truncate(2**30)                      # line 1 the record, line 2 NUL bytes to 1 GiB
    with pytest.raises(ValueError, match=r"episodes.jsonl:2: longer than 65,536 characters"):
        load_run(str(run))
    line = json.dumps(RECORDS[0])
    (run / "episodes.jsonl").write_text(line + " " * (EPISODE_LINE_MAX - len(line) - 1) + "\n")
    assert load_run(str(run)).n_evaluations == 1
    (run / "episodes.jsonl").write_text(line + " " * (EPISODE_LINE_MAX - len(line)) + "\n")
    with pytest.raises(ValueError, match="longer than 65,536"):
        load_run(str(run))
    (run / "episodes.jsonl").write_text(line + "\n")
    with open(run / "config.json", "r+b") as fh:
        fh.truncate(CONFIG_MAX_BYTES + 1)
    with pytest.raises(ValueError, match=r"config.json is larger than 16 MiB"):
        load_run(str(run))
    cfg = json.dumps({"game": "pong", "population": 3, "frame_skip": 4})
    (run / "config.json").write_text(cfg + " " * (CONFIG_MAX_BYTES - len(cfg)))
    assert load_run(str(run)).game == "pong"
    assert os.path.getsize(run / "config.json") == CONFIG_MAX_BYTES
