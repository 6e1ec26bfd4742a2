"""The Python API of ``import nc2600``: its surface (``__all__`` and the API page list the same
names), the gymnasium ids registered by the import (before or after gymnasium's), the cheap import
of a hardware module, and :func:`nc2600.train` / :func:`nc2600.play` against the commands they
stand for (``nc2600 run`` and ``nc2600 play`` with the same options give the same figures: the
same code path, checked by its output, not by reading the code).
"""
from __future__ import annotations

import importlib
import inspect
import json
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nc2600

REPO = Path(__file__).resolve().parents[2]
API_PAGE = REPO / "docs" / "api.md"
#: the surface, named by hand (the oracle for __all__)
SURFACE = {"train", "TrainResult", "play", "instance", "FabricInstance"}


def _python(code: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """``code`` in a new interpreter outside the checkout (the package as installed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=timeout)


def _nc2600(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def _api_objects(page: str) -> set[str]:
    """The dotted names of the page's ``{api-objects}`` blocks (``autoclass X``, ...)."""
    names = set()
    for block in re.findall(r"```\{api-objects\}\n(.*?)```", page, re.S):
        for line in block.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0].startswith(("auto",)):
                names.add(parts[1])
    return names


def test_all_is_the_documented_surface():
    assert set(nc2600.__all__) - {"__version__"} == SURFACE
    documented = {n.split(".", 1)[1] for n in _api_objects(API_PAGE.read_text()) if n.count(".") == 1
                  and n.startswith("nc2600.")}
    assert documented == SURFACE
    for name in SURFACE:
        assert getattr(nc2600, name).__name__ == name
    with pytest.raises(AttributeError):
        nc2600.no_such_name  # noqa: B018


def _hw_components() -> set[str]:
    from amaranth.lib import wiring
    import nc2600.hw as hw
    found = set()
    for info in pkgutil.iter_modules(hw.__path__):
        mod = importlib.import_module(f"nc2600.hw.{info.name}")
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and obj.__module__ == mod.__name__ and not name.startswith("_") \
                    and issubclass(obj, wiring.Component):
                found.add(f"{mod.__name__}.{obj.__qualname__}")
    return found


def test_every_hw_component_is_on_the_api_page():
    components = _hw_components()
    # the walk finds the blocks named in the hardware guide (it is not empty or blind)
    assert {"nc2600.hw.instance.GameInstance", "nc2600.hw.policy_array.ArrayPolicyEngine",
            "nc2600.hw.console.Console"} <= components
    missing = sorted(components - _api_objects(API_PAGE.read_text()))
    assert missing == [], f"hw Components missing from docs/api.md: {missing}"


def test_api_objects_reader_sees_a_missing_class():
    page = "```{api-objects}\nautoclass nc2600.hw.console.Console\nautodata a.B :no-value:\n```\n"
    assert _api_objects(page) == {"nc2600.hw.console.Console", "a.B"}


@pytest.mark.parametrize("code", [
    "import nc2600, gymnasium",            # the finder registers after gymnasium's import
    "import gymnasium, nc2600",            # gymnasium already imported: registered at once
    "import nc2600.hw.console, gymnasium",
])
def test_import_nc2600_registers_the_104_games(code, tmp_path):
    proc = _python(code + "\nimport sys\nfrom gymnasium.utils.env_checker import check_env\n"
                   "ids = sorted(i for i in gymnasium.registry if i.startswith('nc2600/'))\n"
                   "env = gymnasium.make('nc2600/Pong-v0', episode_frames=100)\ncheck_env(env.unwrapped)\n"
                   "print(len(ids), ids[0], env.action_space.n, gymnasium.__loader__.__class__.__name__)", tmp_path)
    assert proc.returncode == 0, proc.stderr
    # 104 games (ALE 0.12's loadable ROMs), the first in order Adventure; Pong has 6 minimal actions
    assert proc.stdout.split() == ["104", "nc2600/Adventure-v0", "6", "SourceFileLoader"]


def test_registered_ids_are_ale_s_loadable_games():
    from nc2600.host.gym_registration import env_id, game_ids
    from nc2600.host.games import loadable_games
    assert game_ids() == loadable_games()
    assert env_id("montezuma_revenge") == "nc2600/MontezumaRevenge-v0"


def test_a_hardware_module_imports_neither_gymnasium_nor_the_host(tmp_path):
    proc = _python("import sys, nc2600.hw.console\n"
                   "print(sorted(m for m in ('gymnasium', 'ale_py', 'nc2600.host', 'nc2600.host.api')"
                   " if m in sys.modules))", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_train_and_play_give_the_commands_figures(tmp_path):
    """``nc2600.train`` and ``nc2600 run`` with the same options: the same fitness log and elite;
    ``nc2600.play`` and ``nc2600 play --json``: the same returns."""
    # asterix scores within 300 frames of random play, so the figures compared are not all zero
    opts = dict(game="asterix", algorithm="ga", population=3, generations=2, episode_frames=300, truncation=2,
                elite_candidates=1, elite_episodes=1, test_episodes=1, workers=1, seed=5, video=False)
    result = nc2600.train(out=tmp_path / "api", **opts)
    assert isinstance(result, nc2600.TrainResult) and result.folder == tmp_path / "api"
    proc = _nc2600("run", "--game", "asterix", "--algo", "ga", "--population", "3", "--generations", "2",
                   "--episode-frames", "300", "--truncation", "2", "--elite-candidates", "1", "--elite-episodes", "1",
                   "--test-episodes", "1", "--workers", "1", "--seed", "5", "--no-video", "--out",
                   str(tmp_path / "cli"),
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    cli_log = [json.loads(x) for x in (tmp_path / "cli" / "log.jsonl").read_text().splitlines()]
    strip = ("wall_s", "fps")
    assert [{k: v for k, v in r.items() if k not in strip} for r in result.fitness_log] == \
        [{k: v for k, v in r.items() if k not in strip} for r in cli_log]
    assert len(result.fitness_log) == 2 and any(r["best"] != 0 for r in result.fitness_log)
    np.testing.assert_array_equal(result.best_params, np.load(tmp_path / "cli" / "best_params.npy"))
    assert result.summary["best_fitness"] == json.loads((tmp_path / "cli" / "summary.json").read_text())["best_fitness"]

    scores = nc2600.play(result.folder, episodes=2, seed=3, workers=1)
    proc = _nc2600("play", "--run", str(tmp_path / "cli"), "--episodes", "2", "--seed", "3", "--workers", "1",
                   "--no-video", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = sorted((json.loads(x) for x in proc.stdout.splitlines() if '"episode"' in x), key=lambda r: r["episode"])
    assert scores["returns"] == [r["return"] for r in rows]
    assert scores["seeds"] == [r["seed"] for r in rows]


def test_train_refuses_bad_options_as_the_command_does(tmp_path):
    from nc2600.host.errors import UserError
    with pytest.raises(UserError, match="--population must be at least 2"):
        nc2600.train(game="pong", population=1, generations=1, out=tmp_path / "r")
    with pytest.raises(TypeError, match="unknown options bogus"):
        nc2600.train(game="pong", bogus=1)


def test_the_api_page_example_runs(tmp_path):
    """The first Python block of the API page, as written, in a new interpreter."""
    blocks = re.findall(r"```python\n(.*?)```", API_PAGE.read_text(), re.S)
    proc = _python(blocks[0], tmp_path, 600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    from nc2600.host.episodes.policy import n_params
    lines = proc.stdout.splitlines()
    folder = tmp_path / "runs" / "api-demo"
    last = json.loads((folder / "log.jsonl").read_text().splitlines()[-1])
    # folder, the elite's parameter count for Pong's 6 actions, the last generation's best
    assert f"runs/api-demo ({n_params(6)},) {last['best']}" in lines
    assert np.load(folder / "best_params.npy").shape == (n_params(6),)
    assert lines[-1] == "(4, 84, 84) Discrete(6)"


@pytest.mark.slow
def test_instance_plays_as_instance_play(tmp_path):
    """``nc2600.instance(...).play`` and ``nc2600 instance-play --json``: the same episode."""
    result = nc2600.train(game="pong", population=2, generations=1, episode_frames=150, truncation=1,
                          elite_candidates=1, elite_episodes=1, test_episodes=1, workers=1, video=False,
                          out=tmp_path / "r")
    with nc2600.instance("pong", episode_frames=100) as inst:
        ep = inst.play(result.best_params, episode_seed=0)
        assert inst.driver is inst.runner.d
    proc = _nc2600("instance-play", "--game", "pong", "--params", str(tmp_path / "r" / "best_params.npy"),
                   "--episodes", "1", "--episode-frames", "100", "--json", cwd=tmp_path, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout.splitlines()[0])
    assert (ep.episode_return, ep.frames, ep.decisions) == (rec["return"], rec["frames"], rec["decisions"])
