"""`nc2600 cpu-run`: stop reasons, JSON fields, and one-line errors (exit 2) on bad input."""
import json
import subprocess
import sys

import pytest


def _nc2600(*args):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", "cpu-run", *args],
                          capture_output=True, text=True, timeout=600)


def _write(tmp_path, data, name="image.bin"):
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return str(path)


def test_trap_counts_the_jmp_and_dumps(tmp_path):
    # $0200: LDA #$5A ; STA $0300 ; JMP $0207   (2 + 4 + 3 cycles, 3 instructions)
    image = _write(tmp_path, [0xA9, 0x5A, 0x8D, 0x00, 0x03, 0x4C, 0x05, 0x02])
    # the trap is the JMP at $0205 (to itself): 2 + 4 + 3 = 9 cycles
    proc = _nc2600("--image", image, "--load", "0x200", "--start", "0x200", "--dump", "0x2FF:0x301", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"a", "x", "y", "sp", "p", "pc", "cycles", "instructions", "stop", "dump"}
    assert (out["stop"], out["cycles"], out["instructions"]) == ("trap", 9, 3)
    assert (out["a"], out["x"], out["y"], out["sp"], out["p"], out["pc"]) == (0x5A, 0, 0, 0xFF, 0x30, 0x205)
    assert out["dump"] == "005a00"


def test_jam_and_limit(tmp_path):
    image = _write(tmp_path, [0xE8, 0xE8, 0x02])                 # INX ; INX ; JAM
    out = json.loads(_nc2600("--image", image, "--load", "0", "--start", "0", "--json").stdout)
    assert (out["stop"], out["cycles"], out["instructions"], out["x"], out["pc"]) == ("jam", 6, 3, 2, 3)
    loop = _write(tmp_path, [0xE8, 0x4C, 0x00, 0x00], "loop.bin")  # INX ; JMP $0000
    out = json.loads(_nc2600("--image", loop, "--load", "0", "--start", "0", "--max-cycles", "50",
                             "--json").stdout)
    assert (out["stop"], out["cycles"], out["x"]) == ("limit", 50, 10)


def test_text_output(tmp_path):
    image = _write(tmp_path, [0x4C, 0x00, 0x10])
    proc = _nc2600("--image", image, "--load", "0x1000", "--start", "0x1000")
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == ["A=$00 X=$00 Y=$00 SP=$FF P=$30 PC=$1000",
                                        "stop=trap cycles=3 instructions=1"]


@pytest.mark.parametrize("args,needle", [
    (["--load", "0xFFF0", "--start", "0"], "does not fit"),
    (["--load", "0x10000", "--start", "0"], "--load"),
    (["--load", "0", "--start", "-1"], "--start"),
    (["--load", "zz", "--start", "0"], "--load"),
    (["--load", "0", "--start", "0", "--dump", "0x10:0x0F"], "--dump"),
    (["--load", "0", "--start", "0", "--dump", "0x10"], "--dump"),
    (["--load", "0", "--start", "0", "--max-cycles", "0"], "--max-cycles"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, args, needle):
    image = _write(tmp_path, range(32))
    proc = _nc2600("--image", image, *args)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_unreadable_and_oversized_images(tmp_path):
    proc = _nc2600("--image", str(tmp_path / "missing.bin"), "--load", "0", "--start", "0")
    assert proc.returncode == 2 and "cannot read image" in proc.stderr
    proc = _nc2600("--image", str(tmp_path), "--load", "0", "--start", "0")     # a directory
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    big = _write(tmp_path, bytes(0x10001), "big.bin")
    proc = _nc2600("--image", big, "--load", "0", "--start", "0")
    assert proc.returncode == 2 and "larger than 64 KiB" in proc.stderr
    full = _write(tmp_path, bytes([0x02]) * 0x10000, "full.bin")                 # exactly 64 KiB fits
    proc = _nc2600("--image", full, "--load", "0", "--start", "0", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["stop"] == "jam"


def test_bench_cpu_json():
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "bench", "cpu", "--cycles", "200000",
                           "--cocotb-cycles", "0", "--py65-instructions", "2000", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["cocotb_cycles_per_s"] is None
    # the benchmark loop averages 3 cycles per instruction on both engines
    assert abs(out["rtl_cycles_per_s"] / out["rtl_instructions_per_s"] - 3.0) < 0.01
    assert abs(out["py65_cycles_per_s"] / out["py65_instructions_per_s"] - 3.0) < 0.01
