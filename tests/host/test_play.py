"""``nc2600 play --run DIR``: scores and actions (their CRC-32) equal a plain single-instance
rollout of the saved agent, videos at the console's real frame rate.

Space Invaders with a 300-frame cap: the episodes score and differ (a cap where every episode
scores 0 would compare only the cap)."""
import json
import subprocess
import sys

import numpy as np
import pytest

from nc2600.host.launcher.play import NTSC_FPS, PAL_FPS, episode_seeds, gif_delays_cs

GAME, N_ACTIONS, CAP = "space_invaders", 6, 300
TINY = ["--game", GAME, "--population", "4", "--generations", "1", "--episode-frames", str(CAP),
        "--elite-candidates", "2", "--elite-episodes", "1", "--test-episodes", "1", "--envs-per-block", "2",
        "--truncation", "2", "--noise-table-size", str(1 << 20), "--progress", "lines", "--workers", "1",
        "--no-video", "--seed", "5"]


def nc2600(*args):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("play") / "run"
    proc = nc2600("run", *TINY, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def _crc(actions) -> int:
    import zlib
    return zlib.crc32(bytes(actions))


def rollout(params: np.ndarray, seed: int, episode_frames: int = CAP, act=None) -> tuple[float, int]:
    """Independent oracle: one AleEnv and one float policy (or ``act(stack)``), step by step;
    the return and the CRC-32 of the actions (one byte each)."""
    import ale_py.roms
    from nc2600.host.episodes.env import AleEnv
    from nc2600.host.episodes.policy import n_params, forward_reference
    inst = AleEnv(ale_py.roms.get_rom_path(GAME), 4, 0.0, episode_frames)
    if act is None:
        assert params.size == n_params(inst.n_actions)
        act = lambda stack: int(np.argmax(forward_reference(stack, params, inst.n_actions)))  # noqa: E731
    stack = np.zeros((4, 84, 84), np.uint8)
    inst.reset(seed, stack)
    total, over, actions = 0.0, inst.over, []
    while not over:
        actions.append(act(stack))
        r, _, over = inst.step(actions[-1], stack)
        total += r
    return total, _crc(actions)


def test_real_frame_rates_and_gif_delays():
    assert NTSC_FPS == pytest.approx(59.923, abs=1e-3) and PAL_FPS == pytest.approx(49.861, abs=1e-3)
    delays = gif_delays_cs(134, NTSC_FPS, 3, total=400)
    assert sum(delays) == round(400 / NTSC_FPS * 100)          # 6.68 s of console time
    assert set(delays[:-1]) == {5, 6} and delays.count(6) == 1  # 3 frames = 5.006 cs: one 6 in 133
    assert delays[-1] == 2                                     # the last stands for 1 frame
    assert gif_delays_cs(3, 15.0, 1) == [7, 6, 7]              # 66.7 ms, cumulative rounding


def test_play_scores_equal_a_plain_rollout_and_video_is_real_time(run_dir, tmp_path):
    video = tmp_path / "elite.mp4"
    proc = nc2600("play", "--run", str(run_dir), "--episodes", "3", "--seed", "11", "--workers", "2",
                  "--video", str(video), "--json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    episodes = sorted((x for x in lines if "episode" in x), key=lambda x: x["episode"])
    summary = lines[-1]["summary"]
    seeds = episode_seeds(11, 3)
    params = np.load(run_dir / "best_params.npy")
    assert [e["seed"] for e in episodes] == seeds.tolist()
    assert [(e["return"], e["actions_crc32"]) for e in episodes] == [rollout(params, int(s)) for s in seeds]
    assert len({e["return"] for e in episodes}) > 1, episodes        # worth comparing: the episodes differ
    assert summary["mean"] == pytest.approx(np.mean([e["return"] for e in episodes]))
    import imageio.v3 as iio
    meta = iio.immeta(video)
    assert meta["fps"] == pytest.approx(NTSC_FPS, abs=0.01) and meta["size"] == (640, 420)
    assert summary["video"]["video_frames"] == episodes[0]["frames"] == CAP
    assert summary["video"]["seconds"] == pytest.approx(CAP / NTSC_FPS)


def test_play_checkpointed_individual_and_gif(run_dir, tmp_path):
    from nc2600.host.launcher.noise import NoiseTable, genome_params
    proc = nc2600("play", "--run", str(run_dir), "--episodes", "1", "--individual", "2",
                  "--video", str(tmp_path / "i2.gif"), "--json")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout.splitlines()[0])
    with np.load(run_dir / "checkpoint.npz") as z:
        genome = json.loads(bytes(z["meta"]).decode())["algo"]["genomes"][2]
    params = genome_params(genome, N_ACTIONS, 0.002, NoiseTable(1 << 20, 123))
    assert (row["return"], row["actions_crc32"]) == rollout(params, int(episode_seeds(0, 1)[0]))
    from PIL import Image
    im = Image.open(tmp_path / "i2.gif")
    total = 0
    for i in range(im.n_frames):
        im.seek(i)
        total += im.info["duration"]
    assert total == 10 * round(CAP / NTSC_FPS * 100)


@pytest.mark.parametrize("args,needle", [
    (["--individual", "4"], "out of range: the population has 4"),
    (["--video", "x.avi"], "give a .mp4 or .gif"),
    (["--episodes", "0"], "expected an integer in [1, 100_000]"),
    (["--seed", "-1"], "expected a seed"),
])
def test_play_bad_input_one_line(run_dir, args, needle):
    proc = nc2600("play", "--run", str(run_dir), "--no-video" if "--video" not in args else "--json", *args)
    assert proc.returncode == 2 and needle in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_play_without_a_run(tmp_path):
    proc = nc2600("play", "--run", str(tmp_path))
    assert proc.returncode == 2 and "holds no run" in proc.stderr


def test_play_under_the_other_arithmetic(run_dir):
    """``--policy int8`` re-evaluates a float-trained elite as the fabric would run it: scores
    equal a plain rollout of the numpy int8 model quantised with the run's calibration set, action
    for action."""
    from nc2600.host.launcher.play import load_agent, policy_for
    proc = nc2600("play", "--run", str(run_dir), "--episodes", "2", "--seed", "3", "--policy", "int8",
                  "--no-video", "--json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    summary = lines[-1]["summary"]
    assert summary["policy"] == "int8" and summary["trained_policy"] == "float"
    agent = load_agent(run_dir)
    agent.cfg.policy = "int8"
    qp = policy_for(agent, agent.params)
    rows = sorted((x for x in lines if "episode" in x), key=lambda x: x["episode"])
    assert len(rows) == 2
    for row, seed in zip(rows, episode_seeds(3, 2)):
        assert (row["return"], row["actions_crc32"]) == rollout(None, int(seed), act=lambda s: int(qp.act(s[None])[0]))


def test_play_video_fifo_refused_not_replaced(run_dir, tmp_path):
    import os
    import stat
    fifo = tmp_path / "v.mp4"
    os.mkfifo(fifo)
    proc = nc2600("play", "--run", str(run_dir), "--episodes", "1", "--video", str(fifo))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert f"--video '{fifo}' exists and is a FIFO" in proc.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def _copy_run(run_dir, tmp_path):
    import shutil
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns(".lock", "*.mp4", "*.gif"))
    return copy


@pytest.mark.parametrize("policy", ["int8", "float"])
def test_play_refuses_non_finite_parameters(run_dir, tmp_path, policy):
    run = _copy_run(run_dir, tmp_path)
    n = np.load(run / "best_params.npy").size
    np.save(run / "best_params.npy", np.full(n, np.nan, np.float32))
    proc = nc2600("play", "--run", str(run), "--policy", policy, "--no-video", "--episodes", "1")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert f"best_params.npy: {n:,} of {n:,} parameters are not finite float32 numbers" in proc.stderr
    assert proc.stdout == ""                           # no episode played


def test_play_config_with_a_non_string_rom_is_damaged(run_dir, tmp_path):
    run = _copy_run(run_dir, tmp_path)
    doc = json.loads((run / "config.json").read_text())
    doc["config"]["rom"] = 123
    (run / "config.json").write_text(json.dumps(doc))
    proc = nc2600("play", "--run", str(run), "--no-video", "--episodes", "1")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert f"'{run}/config.json' is damaged: --rom must be a file path, got 123" in proc.stderr


def test_play_config_fifo_refused_at_once(tmp_path):
    import os
    os.mkfifo(tmp_path / "config.json")
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "play", "--run", str(tmp_path), "--no-video"],
                          capture_output=True, text=True, timeout=20)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert f"run configuration '{tmp_path}/config.json' is a FIFO; give a regular file" in proc.stderr


def test_play_empty_run_and_video_and_conflicting_video_options(run_dir, tmp_path):
    proc = nc2600("play", "--run", "", "--no-video")
    assert proc.returncode == 2 and proc.stderr == "nc2600: error: --run is empty; give the run folder\n"
    proc = nc2600("play", "--run", str(run_dir), "--video", "", "--episodes", "1")
    assert proc.returncode == 2 and proc.stderr == "nc2600: error: --video is empty; give a file name\n"
    proc = nc2600("play", "--run", str(run_dir), "--video", str(tmp_path / "x.mp4"), "--no-video")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "argument --no-video: not allowed with argument --video" in proc.stderr
    assert not (tmp_path / "x.mp4").exists()
