"""One tiny generation through every backend x cluster x policy the registry allows
(:mod:`nc2600.host.launcher.evaluation`), each equal to ALE's on this machine.

The oracle is the ``ale`` backend on the ``local`` cluster with the same ``--policy``: ale-py
plays the game and the numpy models (float32, or the bit-exact int8 model) choose the actions.
The ``rtl`` backend runs the same models on the Verilated console (bit-exact with ALE 0.12 on the
games it supports), the ``fabric`` backend the int8 model's RTL inside the Verilated instance,
and ``--cluster ray`` the same evaluators on Ray's nodes; so every episode (return, frames,
decisions, reset frames, the CRC-32 of every decision's action, in the same order) must be
identical. Runs go through the CLI in processes of their own (a process connected to Ray must not
fork evaluator workers).

The configuration is one where the episodes differ: Space Invaders, seed 5, a 300-frame cap,
where ALE's returns are 5, 0, 5, 5, 5 (int8) and 10, 0, 5, 5, 10 (float32) and every individual
decides differently; a console, rule or policy fault shows in the returns or the actions' CRC-32
(a configuration where every episode scores 0 and runs to the cap compares only seeds).

Cost: Space Invaders, population 3, 300-frame episodes, one worker. CI runs the registry check and
``rtl``/``local``/``int8`` (about a minute on two busy cores); the other combinations are marked
slow (``fabric``: about 4 minutes there, most of it the instance's first build and ALE's reset
sequence replayed; ``ray``: an embedded Ray each): ``pytest -m slow tests/host/test_backends.py``.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nc2600.host.errors import UserError
from nc2600.host.launcher.evaluation import BACKENDS, CLUSTERS, check_backend, combinations
from nc2600.host.launcher.run import RunConfig

REPO = Path(__file__).resolve().parents[2]
TINY = ["--game", "space_invaders", "--population", "3", "--generations", "1", "--truncation", "2",
        "--episode-frames", "300", "--elite-candidates", "1", "--elite-episodes", "1", "--test-episodes", "1",
        "--workers", "1", "--envs-per-block", "1", "--noise-table-size", str(1 << 21), "--seed", "5",
        "--no-video", "--progress", "lines"]


def _valid() -> list[tuple[str, str, str]]:
    """(backend, cluster, policy) for every valid pair of the registry and each policy it accepts."""
    out = []
    for backend, cluster in combinations():
        for policy in ("float", "int8"):
            try:
                check_backend(RunConfig(backend=backend, cluster=cluster, policy=policy))
            except UserError:
                continue
            out.append((backend, cluster, policy))
    return out


def _episodes(tmp: Path, backend: str, cluster: str, policy: str) -> list[tuple]:
    out = tmp / f"{backend}-{cluster}-{policy}"
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "run", *TINY, "--backend", backend,
                           "--cluster", cluster, "--policy", policy, "--out", str(out)],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    return [(e["generation"], e["kind"], e["individual"], e["episode"], e["return"], e["frames"], e["steps"],
             e["reset_frames"], e["actions_crc32"]) for e in lines]


@pytest.fixture(scope="module")
def ale_local(tmp_path_factory):
    """The oracle's episodes per policy, computed once."""
    tmp = tmp_path_factory.mktemp("oracle")
    return {policy: _episodes(tmp, "ale", "local", policy) for policy in ("float", "int8")}


def test_registry_states_the_combinations():
    """The registry's pairs and rules, as the launcher documents them: fabric runs the small int8
    network here only; ale and rtl run anywhere with either arithmetic."""
    assert list(BACKENDS) == ["ale", "rtl", "fabric"]
    assert list(CLUSTERS) == ["local", "ray"]
    assert combinations() == [("ale", "local"), ("ale", "ray"), ("rtl", "local"), ("rtl", "ray"),
                              ("fabric", "local")]
    assert _valid() == [("ale", "local", "float"), ("ale", "local", "int8"), ("ale", "ray", "float"),
                        ("ale", "ray", "int8"), ("rtl", "local", "float"), ("rtl", "local", "int8"),
                        ("rtl", "ray", "float"), ("rtl", "ray", "int8"), ("fabric", "local", "int8")]
    with pytest.raises(UserError, match="runs on this machine only"):
        check_backend(RunConfig(backend="fabric", cluster="ray", policy="int8"))
    with pytest.raises(UserError, match="no sticky actions"):
        check_backend(RunConfig(backend="fabric", policy="int8", sticky=0.25))
    with pytest.raises(UserError, match="must be ale, rtl or fabric, got 'tpu'"):
        check_backend(RunConfig(backend="tpu"))


@pytest.mark.parametrize("backend, cluster, policy", [
    pytest.param(*c, id="-".join(c), marks=[] if c == ("rtl", "local", "int8") else [pytest.mark.slow])
    for c in _valid() if c[:2] != ("ale", "local")])
def test_one_generation_equals_ale_local(backend, cluster, policy, ale_local, tmp_path):
    ref = ale_local[policy]
    # 3 training episodes, 1 elite episode, 1 test episode, each played (not empty)
    assert [e[1] for e in ref].count("train") == 3 and len(ref) == 5
    assert all(e[5] > 0 and e[6] > 0 for e in ref)
    # worth comparing: the returns differ between episodes, and so do the training individuals' actions
    assert len({e[4] for e in ref}) > 1, ref
    assert len({e[8] for e in ref if e[1] == "train"}) == 3, ref
    assert _episodes(tmp_path, backend, cluster, policy) == ref
