"""The distribution: ``python -m build`` gives an sdist and a wheel holding only the ``nc2600``
package, with every module and every data file a run reads (the generated Verilog, the C++
harness sources, the register description and its exports, the game rules); the wheel works in
a fresh virtual environment outside the checkout (slow).

The oracle is the checkout itself: its tracked files under the package folders, mapped by the
``package-dir`` table of ``pyproject.toml`` (``hw/console.py`` -> ``nc2600/hw/console.py``).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
#: the files of the checkout that are package data, by suffix (the rest of a package folder's
#: non-Python files, e.g. caches, are not shipped)
DATA_SUFFIXES = {".v", ".cpp", ".h", ".rdl", ".toml", ".xml", ".md"}


def _source_files() -> list[str]:
    """The checkout's files that a build sees: tracked and untracked-but-not-ignored."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    return sorted({p for p in out.split("\0") if p and (REPO / p).is_file()})


def _copy_source(dest: Path) -> Path:
    """The checkout's source files copied to ``dest`` (a build there leaves the checkout as it is)."""
    for rel in _source_files():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, dest / rel)
    return dest


def build_dist(tmp: Path, *formats: str) -> dict[str, Path]:
    """``python -m build`` (no isolation: setuptools, wheel and build come from the test extra)
    of a copy of the checkout into ``tmp/dist``; returns ``{"wheel": path, "sdist": path}``."""
    src = _copy_source(tmp / "src")
    flags = [f"--{f}" for f in formats]
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", *flags, "--outdir", str(tmp / "dist"),
                           str(src)], capture_output=True, text=True, cwd=tmp)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    found = {}
    for p in (tmp / "dist").iterdir():
        found["wheel" if p.suffix == ".whl" else "sdist"] = p
    return found


def expected_wheel_files() -> set[str]:
    """The wheel's files as the checkout and ``pyproject.toml`` give them: every ``.py`` file
    and every data file (:data:`DATA_SUFFIXES`) under a mapped folder, at its ``nc2600/...`` name."""
    mapping = PYPROJECT["tool"]["setuptools"]["package-dir"]
    folders = {src: pkg.replace(".", "/") for pkg, src in mapping.items()}
    out = set()
    for rel in _source_files():
        top, _, rest = rel.partition("/")
        if top in folders and (rel.endswith(".py") or Path(rel).suffix in DATA_SUFFIXES):
            out.add(f"{folders[top]}/{rest}")
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_dist(tmp_path_factory.mktemp("wheel"), "wheel")["wheel"]


def test_wheel_holds_only_nc2600_and_every_source_and_data_file(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    dist_info = f"nc2600-{PYPROJECT['project']['version']}.dist-info"
    assert {n.split("/")[0] for n in names} == {"nc2600", dist_info}
    files = {n for n in names if not n.startswith(dist_info + "/")}
    assert files == expected_wheel_files()
    # what a run reads, named by hand (the oracle above could miss a whole folder)
    for must in ("nc2600/rtl/console_cc3.v", "nc2600/rtl/instance_cc3.v", "nc2600/hwtools/cpp/console_harness.cpp",
                 "nc2600/hwtools/cpp/mem_serialize.h", "nc2600/hls_models/registers/nc2600.rdl",
                 "nc2600/hls_models/registers/export/nc2600.h", "nc2600/hls_models/game_rules.toml",
                 "nc2600/host/cli.py", "nc2600/__init__.py"):
        assert must in files, must
    assert not any(n.startswith(("nc2600/tests/", "nc2600/docs/")) for n in files)
    top_level = zipfile.ZipFile(wheel).read(f"{dist_info}/top_level.txt").decode().split()
    assert top_level == ["nc2600"]
    entry_points = zipfile.ZipFile(wheel).read(f"{dist_info}/entry_points.txt").decode()
    assert "nc2600 = nc2600.host.cli:entry" in entry_points


def test_expected_files_follow_the_mapping():
    """The oracle maps the checkout's folders as ``pyproject.toml`` says (a hand-checked case)."""
    files = expected_wheel_files()
    assert "nc2600/hw/console.py" in files and "hw/console.py" not in files
    assert "nc2600/rtl/action_select.v" in files
    assert not any(f.startswith("nc2600/tests") for f in files)


# ---------------------------------------------------------------------------------------------
# the wheel in a fresh virtual environment, outside the checkout

def _run(argv, cwd, env, timeout=900):
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.slow
def test_wheel_works_in_a_fresh_venv_outside_the_checkout(tmp_path):
    """``pip install dist/nc2600-*.whl`` into a new venv (the pinned versions of
    ``constraints.txt``), then from a folder outside the checkout: ``nc2600 run``, ``lockstep``,
    ``instance-play`` of the run's parameters, ``synth --block action_select`` and
    ``gymnasium.make("nc2600/Pong-v0")`` after ``import nc2600`` work; the developer commands of
    the checkout say so in one line (exit 2); caches go to the user's cache folder (or
    ``$NC2600_CACHE`` when the caller sets it), and nothing is written inside site-packages."""
    dist = build_dist(tmp_path, "sdist", "wheel")
    assert dist["sdist"].name == f"nc2600-{PYPROJECT['project']['version']}.tar.gz"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py, nc = venv / "bin" / "python", venv / "bin" / "nc2600"
    cons = ["-c", str(REPO / "constraints.txt")] if (REPO / "constraints.txt").is_file() else []
    rc, out, err = _run([str(py), "-m", "pip", "install", "-q", *cons, str(dist["wheel"])], tmp_path, None, 1800)
    assert rc == 0, err[-3000:]
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VERILATOR_ROOT")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    site = Path(_run([str(py), "-c", "import nc2600, os; print(os.path.dirname(nc2600.__file__))"],
                     work, env)[1].strip())
    assert site.is_relative_to(venv) and site.name == "nc2600"     # not the checkout's
    before = sorted(p for p in site.rglob("*") if "__pycache__" not in p.parts)

    # the cache folder: $NC2600_CACHE, else the user's (never the package's folder)
    code = "from nc2600.hwtools.cache import cache_root, CHECKOUT; print(cache_root(), CHECKOUT)"
    plain = {k: v for k, v in env.items() if k != "NC2600_CACHE"}
    assert _run([str(py), "-c", code], work, plain)[1].split() == [str(tmp_path / "xdg" / "nc2600"), "None"]

    rc, out, err = _run([str(nc), "run", "--game", "pong", "--population", "2", "--generations", "1",
                         "--episode-frames", "200", "--truncation", "1", "--elite-candidates", "1",
                         "--elite-episodes", "1", "--test-episodes", "1", "--workers", "1", "--no-video",
                         "--out", "r"], work, env)
    assert rc == 0, err[-3000:]
    summary = json.loads((work / "r" / "summary.json").read_text())
    assert summary["game"] == "pong" and summary["generations"] == 1
    assert (work / "r" / "best_params.npy").is_file()

    rc, out, err = _run([str(nc), "lockstep", "--game", "pong", "--frames", "100"], work, env)
    assert rc == 0, out[-2000:] + err[-2000:]
    assert "frames_requested: 100" in out

    rc, out, err = _run([str(nc), "instance-play", "--game", "pong", "--params", "r/best_params.npy",
                         "--episodes", "1", "--episode-frames", "100", "--ale"], work, env, 1800)
    assert rc == 0, out[-2000:] + err[-2000:]
    assert "equal" in out and "DIFFERENT" not in out

    rc, out, err = _run([str(nc), "synth", "--block", "action_select"], work, env)
    assert rc == 0, err[-2000:]
    assert "action_select" in out

    code = ("import nc2600, gymnasium; from gymnasium.utils.env_checker import check_env; "
            "e = gymnasium.make('nc2600/Pong-v0'); check_env(e.unwrapped); "
            "print(e.observation_space.shape, len([i for i in gymnasium.registry if i.startswith('nc2600/')]))")
    rc, out, err = _run([str(py), "-c", code], work, env)
    assert rc == 0, err[-2000:]
    assert out.split("\n")[-2] == "(4, 84, 84) 104"

    for argv, what in (([str(py), "-m", "nc2600.hwtools.registers", "--check"], "make regs --check"),
                       ([str(py), "-m", "nc2600.hwtools.generate"], "make rtl"),
                       ([str(py), "-m", "nc2600.hwtools.sim", "--list"], "make sim"),
                       ([str(nc), "results"], "nc2600 results")):
        rc, out, err = _run(argv, work, env)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and what in err, (argv, rc, err)
        assert "clone of the nc2600 repository" in err and "Traceback" not in err

    after = sorted(p for p in site.rglob("*") if "__pycache__" not in p.parts)
    assert after == before                   # no cache, build or record inside site-packages
    if "NC2600_CACHE" not in env:
        assert (tmp_path / "xdg" / "nc2600" / "verilator").is_dir()
