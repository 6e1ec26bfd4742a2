"""rtl/cpu6507.v is current (equals generate() byte for byte) and lints clean under Verilator.

Lint: `verilator --lint-only -Wall` must report nothing beyond the five warning classes that
Amaranth's Yosys Verilog backend emits for any design (width-adapted operands, `case`
without default, carry bits of adders left unused, `reg x = init` driven from `always @*`):
WIDTHEXPAND, WIDTHTRUNC, CASEINCOMPLETE, UNUSEDSIGNAL, PROCASSINIT. Anything else
(latches, multiple drivers, combinational loops, blocking/non-blocking mixes ...) fails.
"""
import subprocess
from pathlib import Path

from nc2600.hw.cpu6507 import generate
from nc2600.hwtools.verilator_build import verilator_env, verilator_root

RTL = Path(__file__).resolve().parents[2] / "rtl" / "cpu6507.v"
BACKEND_WARNINGS = ("WIDTHEXPAND", "WIDTHTRUNC", "CASEINCOMPLETE", "UNUSEDSIGNAL", "PROCASSINIT")


def test_rtl_is_current():
    files = generate()
    assert set(files) == {"cpu6507.v"}
    assert RTL.read_text() == files["cpu6507.v"], "rtl/cpu6507.v is stale: regenerate it (make rtl)"


def test_generate_is_reproducible():
    assert generate() == generate()
    text = generate()["cpu6507.v"]
    repo = Path(__file__).resolve().parents[2]
    for path in (repo, repo / "hw", Path(__file__).resolve().parents[3]):   # no source paths of this checkout
        assert str(path) not in text, path


def test_verilator_lint_clean(tmp_path):
    path = tmp_path / "cpu6507.v"
    path.write_text(RTL.read_text())
    cmd = [str(verilator_root() / "bin" / "verilator"), "--lint-only", "-Wall",
           *(f"-Wno-{w}" for w in BACKEND_WARNINGS), str(path)]
    proc = subprocess.run(cmd, env=verilator_env(), capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and "%Warning" not in proc.stderr and "%Error" not in proc.stderr, proc.stderr
