"""The documentation site: ``make docs`` (Sphinx, MyST, warnings as errors) builds, the register
map page holds every register of the code's register description, and every link into the
results page names an anchor the generated page has."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from nc2600.host.report import results

ROOT = Path(__file__).resolve().parents[2]


def _register_names() -> list[str]:
    try:
        from nc2600.hls_models.registers import INSTANCE
        return [r.name for r in INSTANCE]
    except ImportError:
        from nc2600.hw.instance import REGISTERS
        return list(REGISTERS)


def test_site_builds_without_warnings(tmp_path):
    out = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(ROOT / "docs"), str(out), "-d", str(tmp_path / "doctrees")],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for page in ("index", "user-guide", "hardware/index", "hardware/instance", "hardware/register-map",
                 "hardware/timing", "verification", "mesh", "design-decisions", "api", "results", "game_rules"):
        assert (out / f"{page}.html").is_file(), page
    regmap = (out / "hardware" / "register-map.html").read_text(encoding="utf-8")
    names = _register_names()
    assert len(names) > 30
    for name in names:
        assert f"<p>{name}</p>" in regmap, name
    api = (out / "api.html").read_text(encoding="utf-8")
    for obj in ("nc2600.hw.instance.GameInstance", "nc2600.host.drivers.instance.InstanceDriver",
                "nc2600.host.launcher.run.Run", "nc2600.mesh_sim.project.simulate",
                "nc2600.hw.interfaces.PixelStreamSignature"):
        assert f'id="{obj}"' in api, obj


def test_links_into_the_results_page_name_its_anchors():
    anchors = results.anchors(results.PAGE.read_text(encoding="utf-8"))
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    seen = 0
    for f in files:
        for anchor in re.findall(r"results\.md#([A-Za-z0-9_-]+)", f.read_text(encoding="utf-8")):
            seen += 1
            assert anchor in anchors, f"{f.relative_to(ROOT)}: results.md#{anchor} is not a heading of docs/results.md"
    assert seen >= 10


def test_every_source_path_the_docs_name_exists():
    """A file named in README.md or a docs page (``host/drivers/instance.py``) is in the repository."""
    pattern = re.compile(r"\b((?:hw|hls_models|hwtools|host|mesh_sim|tests|rtl)/[\w/]+\.(?:py|v|toml|md))\b")
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    missing = [f"{f.relative_to(ROOT)}: {m}" for f in files if f.name != "results.md"
               for m in sorted(set(pattern.findall(f.read_text(encoding="utf-8")))) if not (ROOT / m).exists()]
    assert not missing, missing
