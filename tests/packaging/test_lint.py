"""ruff (the version pinned in the ``[test]`` extra) passes on the repository with the settings
of ``pyproject.toml`` ``[tool.ruff]``, and every noqa marker names the rule it silences."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _ruff(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_ruff_passes_on_the_repository():
    proc = _ruff(".")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_ruff_with_the_project_settings_fails_on_bad_code(tmp_path):
    """The settings catch an unused import and a line over the limit (the check can fail)."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\nx = '" + "a" * 150 + "'\n")
    proc = _ruff("--config", str(REPO / "pyproject.toml"), "--output-format", "concise", str(bad), cwd=tmp_path)
    assert proc.returncode == 1
    assert "F401" in proc.stdout and "E501" in proc.stdout


BARE_NOQA = re.compile(r"#\s*noqa(?!:\s*[A-Z]+[0-9]+)", re.I)


def test_every_noqa_names_its_rule():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True,
                           check=True).stdout.split()
    bare = [f"{f}:{i}" for f in files if (REPO / f).is_file()
            for i, line in enumerate((REPO / f).read_text(encoding="utf-8").splitlines(), 1) if BARE_NOQA.search(line)]
    assert bare == []
    # the pattern sees a bare marker and passes a named one (the markers are built here, so that
    # this file holds none)
    mark = "# " + "noqa"
    assert BARE_NOQA.search(f"x = 1  {mark}") and BARE_NOQA.search(f"x = 1  {mark} - why")
    assert not BARE_NOQA.search(f"x = 1  {mark}: E731") and not BARE_NOQA.search(f"y  {mark}: E402,F401 - why")
