"""``make sim`` driver (hwtools/sim.py): discovery, exit status, JUnit XML, FST waveforms of failures.

The fixture under ``fixtures/counter`` is a hand-written 8-bit counter with two cocotb tests:
one correct (300 enabled edges -> 300 mod 256 = 44) and one that is wrong on purpose (expects
11 after 10 edges). Its ``cocotb_benches.py`` registers it twice: ``counter_pass`` (the wrong
test skipped) and ``counter_fail``.
"""
from __future__ import annotations

import json
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import cocotb_tools.runner  # noqa: F401  (a pinned dependency: a broken install fails here)
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIXTURES = HERE / "fixtures"


def run_sim(*args: str, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nc2600.hwtools.sim", "--tests-root", str(FIXTURES), "--out",
                           str(out), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=900)


def lz4_block_decode(src: bytes, size: int) -> bytes:
    """Decoder of the LZ4 block format (lz4_Block_format.md), written from the spec."""
    out, i = bytearray(), 0
    while i < len(src):
        token = src[i]
        i += 1
        lit = token >> 4
        if lit == 15:
            while True:
                b = src[i]
                i += 1
                lit += b
                if b != 255:
                    break
        out += src[i:i + lit]
        i += lit
        if i >= len(src):
            break
        offset = src[i] | src[i + 1] << 8
        i += 2
        ml = token & 15
        if ml == 15:
            while True:
                b = src[i]
                i += 1
                ml += b
                if b != 255:
                    break
        for _ in range(ml + 4):
            out.append(out[-offset])
    assert len(out) == size
    return bytes(out)


def fst_blocks(data: bytes) -> dict[int, bytes]:
    """FST file -> ``{block type: payload}`` (each block: type byte, big-endian u64 length incl. itself)."""
    blocks, i = {}, 0
    while i < len(data):
        kind = data[i]
        length = struct.unpack(">Q", data[i + 1:i + 9])[0]
        blocks[kind] = data[i + 9:i + 1 + length]
        i += 1 + length
    assert i == len(data)
    return blocks


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim")
    return run_sim(out=out), out


def test_discovery_of_the_repository_benches():
    from nc2600.hwtools.sim import discover
    keys = {b.key: b for b in discover(REPO / "tests")}
    # the committed cocotb modules of the project (rules 1 and 2)
    modules = [path for path in sorted((REPO / "tests").glob("*/cocotb_*.py"))
               if "@cocotb.test" in path.read_text() and path.name != "cocotb_benches.py"]
    assert [f"{p.parent.name}/{p.stem}" for p in modules] == [
        "action_select/cocotb_action_select", "cpu6507/cocotb_cpu6507", "instance/cocotb_instance",
        "policy_array/cocotb_policy_array", "policy_engine/cocotb_policy_engine", "preprocessor/cocotb_preprocessor"]
    for path in modules:
        assert any(getattr(b, "test_module", "").split(".")[-1] == path.stem
                   and Path(b.origin).parent == path.parent for b in keys.values()), path
    # fixtures two levels down never run in make sim
    assert not any(b.block == "counter" for b in keys.values())
    # --full-only variants exist for the preprocessor (more games)
    assert any(b.full_only for b in keys.values() if b.block == "preprocessor")


def test_failing_testbench_fails_make_sim(failing_run):
    proc, out = failing_run
    assert proc.returncode == 1, proc.stdout + proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    total = summary["blocks"][-1]
    assert total["block"] == "total"
    # counter_fail: 2 tests (1 pass, 1 fail); counter_pass: 2 tests (1 pass, 1 skipped);
    # records: 2 records (a matches, b does not)
    assert (total["tests"], total["passed"], total["failed"], total["skipped"]) == (6, 3, 2, 1)
    table = proc.stdout[proc.stdout.index("block "):]
    assert "counter" in table and "total" in table


def test_junit_xml_names_the_failure(failing_run):
    _, out = failing_run
    root = ET.parse(out / "junit.xml").getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"counter.counter_fail", "counter.counter_pass", "counter.records"}
    rec = {c.get("name"): c for c in suites["counter.records"].iter("testcase")}
    assert rec["a"].find("failure") is None
    assert '"first_ram_mismatch_frame": 3' in rec["b"].find("failure").text
    fail = suites["counter.counter_fail"]
    assert (fail.get("tests"), fail.get("failures"), fail.get("errors")) == ("2", "1", "0")
    cases = {c.get("name"): c for c in fail.iter("testcase")}
    assert cases["counts_enabled_edges"].find("failure") is None
    failure = cases["deliberately_wrong_expectation"].find("failure")
    assert failure is not None and "count is 10" in failure.get("message")
    ok = {c.get("name"): c for c in suites["counter.counter_pass"].iter("testcase")}
    assert ok["deliberately_wrong_expectation"].find("skipped") is not None


def test_fst_waveform_kept_for_the_failing_test_only(failing_run):
    _, out = failing_run
    waves = sorted(p.relative_to(out).as_posix() for p in (out / "waves").rglob("*.fst"))
    assert waves == ["waves/counter/counter_fail/deliberately_wrong_expectation.fst"]
    blocks = fst_blocks((out / waves[0]).read_bytes())
    assert 0 in blocks                     # FST_BL_HDR
    hier = blocks[6]                       # FST_BL_HIER_LZ4
    size = struct.unpack(">Q", hier[:8])[0]
    names = lz4_block_decode(hier[8:], size)
    for signal in (b"clk", b"rst", b"en", b"count [7:0]", b"counter"):
        assert signal in names


def test_passing_bench_exits_zero(tmp_path):
    proc = run_sim("--bench", "counter_pass$", out=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / "waves").exists()


def test_bad_input_is_one_line_exit_2(tmp_path):
    proc = run_sim("--block", "nosuchblock", out=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "unknown block nosuchblock" in proc.stderr


def test_unknown_simulator_exit_2(tmp_path):
    import os
    proc = subprocess.run([sys.executable, "-m", "nc2600.hwtools.sim", "--list"], cwd=REPO, capture_output=True,
                          text=True,
                          env={**os.environ, "SIM": "bogus"}, timeout=120)
    assert proc.returncode == 2 and "unknown simulator 'bogus'" in proc.stderr


def test_lz4_shim_output_is_valid_lz4(tmp_path):
    """The literal-only encoder compiled for Verilator's FST writer, run through ctypes."""
    import ctypes
    from nc2600.hwtools.verilator_build import lz4_shim_args
    if not lz4_shim_args():
        pytest.skip("system lz4.h present: no shim used")
    flags = lz4_shim_args()
    shim = Path(flags[1][2:])
    so = tmp_path / "liblz4shim.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", str(shim / "lz4_literal.c"), "-I", str(shim), "-o", str(so)],
                   check=True)
    lib = ctypes.CDLL(str(so))
    for n in (0, 1, 14, 15, 16, 269, 270, 271, 5000):
        data = bytes((i * 7 + 3) & 0xFF for i in range(n))
        cap = lib.LZ4_compressBound(n)
        dst = ctypes.create_string_buffer(cap)
        written = lib.LZ4_compress_default(data, dst, n, cap)
        assert 0 < written <= cap
        assert lz4_block_decode(dst.raw[:written], n) == data
