"""``--cluster ray`` (host/cluster/): same results as the local backend, faults, bad input.

The oracle is the local backend (``nc2600.host.launcher.local_pool.LocalPoolEvaluator`` / ``--cluster local``) on the
same seed and settings: fitness values, elites, ``log.jsonl`` (without times) and ``episodes.jsonl`` must be identical,
also when an evaluator actor is killed with SIGKILL mid-generation. The Ray clusters here are two-node
``ray.cluster_utils.Cluster`` instances on this machine (one CPU per node, small object stores, no dashboard), started
once for the module; each test finds it with no driver connected and both CPUs free.

The runs play Space Invaders with a 300-frame cap, where the episodes score and differ (and every
line of ``episodes.jsonl`` holds the CRC-32 of the episode's actions): an evaluator that swapped
individuals or seeds, or played another network, changes what is compared.
"""
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import ray

from nc2600.host.cluster.ray_evaluator import RayEvaluator
from nc2600.host.cluster.ray_cluster import version_mismatch
from nc2600.host.launcher.run import Run, RunConfig

NODE = dict(num_cpus=1, object_store_memory=150 * 2**20, include_dashboard=False)
SMALL = dict(game="space_invaders", population=8, generations=1, episode_frames=300, elite_candidates=2,
             elite_episodes=1, test_episodes=1, envs_per_block=2, truncation=3, noise_table_size=1 << 21,
             seed=11, video=False)


def _cli(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {}), "PYTHONPATH": str(Path(__file__).resolve().parents[2])})


def _run(cfg: RunConfig, out: Path) -> dict:
    run = Run(cfg, out, progress=False)
    try:
        run.prepare()
        return run.execute()
    finally:
        run.close()


def _local_oracle(cfg: dict, out: Path, cwd: Path) -> dict:
    """The local backend's run of ``cfg`` (RunConfig fields; one worker) in a process of its own:
    not forked from this one, whose Ray cluster client (gRPC threads) makes a fork unsafe (an
    evaluator worker forked here died of SIGSEGV in CI once). Returns the run's summary."""
    # an option of another algorithm is refused (GA's truncation and elite candidates with ES)
    unused = ("truncation", "elite_candidates") if cfg.get("algo") == "es" else ()
    args = [f"--{k.replace('_', '-')}={v}" for k, v in cfg.items() if k != "video" and k not in unused]
    proc = _cli("run", *args, "--no-video", "--workers", "1", "--out", str(out), cwd=cwd,
                env={"OPENBLAS_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def _episodes_worth_comparing(out: Path) -> str:
    """``out``'s episodes.jsonl, after checking that its episodes differ: more than one return,
    and one action CRC-32 per training individual of generation 0."""
    text = (out / "episodes.jsonl").read_text()
    eps = [json.loads(line) for line in text.splitlines()]
    assert len({e["return"] for e in eps}) > 1, eps
    train = [e for e in eps if e["generation"] == 0 and e["kind"] == "train"]
    assert len({e["actions_crc32"] for e in train}) == len({e["individual"] for e in train}) > 1, train
    return text


def _log(out: Path):
    return [{k: v for k, v in json.loads(line).items() if k not in ("wall_s", "fps")}
            for line in (out / "log.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def _two_node_cluster():
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args=NODE)
    try:
        cluster.add_node(**NODE)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()


#: seconds a test waits for the cluster's CPUs that the previous test's actors held
FREE_CPUS_TIMEOUT_S = 60.0


@pytest.fixture
def two_nodes(_two_node_cluster):
    """The module's two-node cluster (started once), as each test finds it: no driver
    connected, both nodes alive, both CPUs free (the previous test's actors ended)."""
    import time
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address=_two_node_cluster.address)
    try:
        end = time.monotonic() + FREE_CPUS_TIMEOUT_S
        while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < end:
            time.sleep(0.2)
        assert sum(1 for n in ray.nodes() if n["Alive"]) == 2
        assert ray.available_resources().get("CPU", 0) == 2, ray.available_resources()
    finally:
        ray.shutdown()
    yield _two_node_cluster
    if ray.is_initialized():
        ray.shutdown()


def test_two_node_ga_equals_local_and_survives_sigkill(two_nodes, tmp_path, monkeypatch):
    """A small GA on a two-node cluster equals the local backend's run, although the evaluator
    actor of one node is killed (SIGKILL) while it holds a chunk of generation 0's episodes."""
    # the local oracle in its own process (one BLAS thread: OpenBLAS's spinning threads slow the
    # local evaluator's main process by 10x when other jobs load the cores)
    args = [f"--{k.replace('_', '-')}={v}" for k, v in SMALL.items() if k != "video"]
    proc = _cli("run", *args, "--no-video", "--workers", "2", "--out", str(tmp_path / "local"), cwd=tmp_path,
                env={"OPENBLAS_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr
    local = json.loads(proc.stdout.splitlines()[-1])

    killed = []
    original = RayEvaluator.evaluate

    shipped = []

    def evaluate_with_kill(self, jobs, params_for, on_result=None):
        self._calls = getattr(self, "_calls", 0) + 1
        if self._calls != 1:            # generation 0's training episodes
            out = original(self, jobs, params_for, on_result)
            shipped.append(self.stats[-1]["genomes"])
            return out
        before = self.actor_pids()

        def kill_busy_actor(result):
            if on_result is not None:
                on_result(result)
            if not killed:
                busy = [i for i, n in enumerate(self.load) if n > 0]
                if busy:
                    os.kill(before[busy[0]][0], signal.SIGKILL)
                    killed.append(before[busy[0]][0])

        out = original(self, jobs, params_for, kill_busy_actor)
        shipped.append(self.stats[-1]["genomes"])
        after = self.actor_pids()
        killed.append(("restarted", before != after))
        return out

    monkeypatch.setattr(RayEvaluator, "evaluate", evaluate_with_kill)
    address = two_nodes.address
    remote = _run(RunConfig(**SMALL, workers=2, cluster="ray", ray_address=address), tmp_path / "ray")

    assert killed and isinstance(killed[0], int), "no actor held a chunk when the first results came"
    assert killed[-1] == ("restarted", True)
    # generation 0's training and elite episodes travelled as seed-list genomes (the final test
    # episodes of the saved elite as its vector)
    assert shipped[:2] == [True, True], shipped
    assert _log(tmp_path / "ray") == _log(tmp_path / "local")
    ray_eps = (tmp_path / "ray" / "episodes.jsonl").read_text().splitlines()
    assert ray_eps == _episodes_worth_comparing(tmp_path / "local").splitlines()
    keys = Counter((e["generation"], e["individual"], e["episode"], e["kind"]) for e in map(json.loads, ray_eps))
    assert max(keys.values()) == 1                       # every (individual, episode) exactly once
    assert sum(1 for k in keys if k[0] == 0 and k[3] == "train") == SMALL["population"]
    for key in ("best_fitness", "elite_score", "elite_test_score", "frames"):
        assert remote[key] == local[key], key
    assert json.loads((tmp_path / "ray" / "best_genome.json").read_text()) == \
        json.loads((tmp_path / "local" / "best_genome.json").read_text())


def test_int8_ga_from_seed_lists_equals_local(two_nodes, tmp_path):
    """``--policy int8`` on Ray: the nodes rebuild each genome and quantise it with the run's
    calibration observations; every episode equals the local backend's."""
    cfg = dict(SMALL, policy="int8", population=6, truncation=2, test_episodes=1)
    _local_oracle(cfg, tmp_path / "local", tmp_path)
    _run(RunConfig(**cfg, workers=2, cluster="ray", ray_address=two_nodes.address), tmp_path / "ray")
    assert (tmp_path / "ray" / "episodes.jsonl").read_text() == _episodes_worth_comparing(tmp_path / "local")
    assert _log(tmp_path / "ray") == _log(tmp_path / "local")


def test_es_from_centre_and_seeds_equals_local(two_nodes, tmp_path, monkeypatch):
    """``--algo es`` on Ray: the centre travels once per generation and each individual as
    (seed, sign); the nodes rebuild ``centre +- sigma * eps`` and every episode equals the local
    backend's."""
    shipped = []
    original = RayEvaluator.evaluate

    def spy(self, jobs, params_for, on_result=None):
        out = original(self, jobs, params_for, on_result)
        shipped.append(self.stats[-1]["es_perturbations"])
        return out
    monkeypatch.setattr(RayEvaluator, "evaluate", spy)
    cfg = dict(SMALL, algo="es", population=4, test_episodes=1)
    _local_oracle(cfg, tmp_path / "local", tmp_path)
    _run(RunConfig(**cfg, workers=2, cluster="ray", ray_address=two_nodes.address), tmp_path / "ray")
    assert shipped[0] is True                       # generation 0's training episodes
    assert (tmp_path / "ray" / "episodes.jsonl").read_text() == _episodes_worth_comparing(tmp_path / "local")
    assert _log(tmp_path / "ray") == _log(tmp_path / "local")


def test_errors_ray_pushes_to_the_driver_are_printed_on_stderr(monkeypatch, capsys):
    """An error Ray's cluster pushes to the driver (what its driver prints when an actor is
    SIGKILLed mid-run) is printed on stderr, in full, not on stdout among the command's own
    output; :func:`connect` installs this, and installing it twice prints it once. Oracle: Ray's
    own printing function with the record its error listener gives it."""
    from ray._private import worker

    from nc2600.host.cluster.ray_cluster import pushed_errors_to_stderr
    monkeypatch.setattr(worker, "print_to_stdstream", worker.print_to_stdstream)     # put back after the test
    line = "A worker died or was killed while executing a task by an unexpected system error. (test record)"
    pushed_errors_to_stderr()
    pushed_errors_to_stderr()
    worker.print_to_stdstream({"lines": [line], "pid": "raylet", "is_err": False}, ignore_prefix=False)
    out, err = capsys.readouterr()
    assert out == "" and err.count(line) == 1, (out, err)


def test_version_mismatch_names_the_first_difference():
    here = {"nc2600": "0.1.0", "numpy": "2.4.6", "source": "abc"}
    assert version_mismatch(here, dict(here)) is None
    assert version_mismatch(here, {**here, "nc2600": "0.2.0"}) == "nc2600 0.1.0 here, 0.2.0 on the node"
    assert version_mismatch(here, {k: v for k, v in here.items() if k != "numpy"}) == \
        "numpy 2.4.6 here, missing on the node"


@pytest.mark.parametrize("args, needle", [
    (["--cluster", "ray", "--ray-address", "127.0.0.1:1"], "cannot reach the Ray head at 127.0.0.1:1"),
    (["--cluster", "ray", "--ray-address", "nohostport"], "--ray-address must be HOST:PORT"),
    (["--ray-address", "127.0.0.1:6379"], "--ray-address needs --cluster ray"),
])
def test_bad_cluster_input_one_line_no_run_folder(args, needle, tmp_path):
    out = tmp_path / "run"
    proc = _cli("run", "--game", "pong", "--out", str(out), *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr, proc.stderr
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("fake, needle", [
    ({"host/__init__.py": "raise ModuleNotFoundError(\"No module named 'host'\")\n"},
     "cannot run the nc2600 evaluator: ModuleNotFoundError: No module named 'host'"),
    ({"ale_py/__init__.py": "raise ModuleNotFoundError(\"No module named 'ale_py'\")\n"},
     "cannot run the nc2600 evaluator: ModuleNotFoundError: No module named 'ale_py'"),
    ({"nc2600-9.9.9.dist-info/METADATA": "Metadata-Version: 2.1\nName: nc2600\nVersion: 9.9.9\n"},
     "differs from this machine: nc2600 0.1.0 here, 9.9.9 on the node"),
])
def test_bad_worker_node_one_line_no_run_folder(fake, needle, tmp_path):
    """A worker node without the package (or ale-py), or with another nc2600 version: the
    node's environment gets a PYTHONPATH folder that shadows the installed package."""
    from ray.cluster_utils import Cluster
    shadow = tmp_path / "shadow"
    for name, text in fake.items():
        (shadow / name).parent.mkdir(parents=True, exist_ok=True)
        (shadow / name).write_text(text)
    cluster = Cluster(initialize_head=True, head_node_args=NODE)
    try:
        cluster.add_node(**NODE, env_vars={"PYTHONPATH": str(shadow)})
        cluster.wait_for_nodes()
        out = tmp_path / "run"
        proc = _cli("run", "--game", "pong", "--out", str(out), "--cluster", "ray",
                    "--ray-address", cluster.address, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and needle in proc.stderr, proc.stderr
        assert not out.exists()
    finally:
        cluster.shutdown()


def _without_times(obj):
    if isinstance(obj, dict):
        return {k: _without_times(v) for k, v in obj.items() if k not in ("seconds", "rtl_fps", "ale_fps", "wall_s")}
    if isinstance(obj, list):
        return [_without_times(v) for v in obj]
    return obj


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["games", "verify", "--game", "pong", "--game", "breakout", "--game", "seaquest", "--frames", "1500"],
    ["lockstep", "--games", "pong,boxing", "--frames", "60"],
])
def test_sweep_on_ray_equals_local(command, tmp_path):
    """``games verify`` and ``lockstep`` over several games: the JSON results on an embedded Ray
    (one task per game) equal the local run's, timings aside."""
    local = _cli(*command, "--json", cwd=tmp_path)
    remote = _cli(*command, "--json", "--cluster", "ray", "--jobs", "2", cwd=tmp_path)
    assert local.returncode == remote.returncode == 0, remote.stderr
    lines = lambda out: [json.loads(ln) for ln in out.splitlines()]  # noqa: E731  (JSON Lines)
    assert _without_times(lines(remote.stdout)) == _without_times(lines(local.stdout))


def test_sweep_ray_address_needs_cluster_ray(tmp_path):
    for command in (["games", "verify", "--game", "pong"], ["lockstep", "--games", "pong,boxing"]):
        proc = _cli(*command, "--ray-address", "127.0.0.1:6379", cwd=tmp_path)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert "--ray-address needs --cluster ray" in proc.stderr


@pytest.mark.slow
def test_driver_stopped_then_resumed_locally_equals_uninterrupted(tmp_path):
    """The driver of a ``--cluster ray`` run gets SIGTERM after its first generation; ``--resume``
    on the local backend finishes it with the log and episodes of an uninterrupted local run."""
    import time
    args = [f"--{k.replace('_', '-')}={v}" for k, v in {**SMALL, "generations": 3}.items() if k != "video"]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = tmp_path / "ray"
    proc = subprocess.Popen([sys.executable, "-m", "nc2600.host.cli", "run", *args, "--no-video", "--progress", "lines",
                             "--cluster", "ray", "--out", str(out)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    while not ((out / "log.jsonl").exists() and (out / "log.jsonl").read_text().strip()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and f"nc2600 run --resume {out}" in err, err
    assert 1 <= len(_log(out)) < 3
    resumed = _cli("run", "--resume", str(out), "--cluster", "local", cwd=tmp_path, env={"OPENBLAS_NUM_THREADS": "1"})
    assert resumed.returncode == 0, resumed.stderr
    local = _cli("run", *args, "--no-video", "--out", str(tmp_path / "local"), cwd=tmp_path,
                 env={"OPENBLAS_NUM_THREADS": "1"})
    assert local.returncode == 0, local.stderr
    assert _log(out) == _log(tmp_path / "local")
    assert (out / "episodes.jsonl").read_text() == _episodes_worth_comparing(tmp_path / "local")


def test_embedded_ray_writes_no_token_home_and_group_sigterm_is_sigterm(tmp_path):
    """``--cluster ray`` without an address: Ray 2.60 would write a new ``~/.ray/auth_token``
    into the user's home (token authentication on by default); nc2600 gives the embedded
    instance its own token instead. SIGTERM to the process group the command was started in (the
    supervisor, which forwards it to the driver; Ray's daemons are in the driver's own group:
    ``nc2600.host.cluster.supervisor.supervised_driver``) ends the run with the SIGTERM line, the resume hint
    and 130."""
    import time
    home, out = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    args = [f"--{k.replace('_', '-')}={v}" for k, v in SMALL.items() if k != "video"]
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for var in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS"):
        env.pop(var, None)
    proc = subprocess.Popen([sys.executable, "-m", "nc2600.host.cli", "run", *args, "--generations", "50", "--no-video",
                             "--workers", "1", "--cluster", "ray", "--out", str(out)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    t0 = time.monotonic()
    while not (out / "checkpoint.npz").exists():
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() - t0 < 300, "no checkpoint within 300 s"
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.endswith(f"nc2600: terminated (SIGTERM); continue with: nc2600 run --resume {out}\n"), stderr
    assert "Traceback" not in stderr
    assert not (home / ".ray" / "auth_token").exists()
