"""Whole programs on the RTL via `nc2600 cpu-run --json`, compared with py65 and checked by value.

Each program (tests/cpu6507/programs.py) runs thousands of instructions and ends in a
`JMP` to itself. The RTL's final registers, cycle and instruction counts and the whole
64 KiB memory must equal py65's; the decimal program is also run on the ALE reference
model, and each program's result is checked against its known value.
"""
import json
import subprocess
import sys

import pytest
from py65.devices.mpu6502 import MPU

from asm import assemble
from nc2600.hls_models.cpu6507 import Cpu6507Model
from programs import PROGRAMS

ORG = 0x1000


def _image(name):
    code = assemble(PROGRAMS[name], org=ORG)
    end = max(code) + 1
    image = bytearray(end - ORG)
    for addr, byte in code.items():
        image[addr - ORG] = byte
    return bytes(image)


def _cpu_run(tmp_path, image, *extra):
    path = tmp_path / "image.bin"
    path.write_bytes(image)
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "cpu-run", "--image", str(path),
                           "--load", hex(ORG), "--start", hex(ORG), "--dump", "0:0xFFFF", "--json", *extra],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _py65(image, max_instructions=5_000_000):
    mem = [0] * 0x10000
    mem[ORG:ORG + len(image)] = list(image)
    mpu = MPU(memory=mem, pc=ORG)
    mpu.p = 0x30
    for n in range(1, max_instructions + 1):
        pc = mpu.pc
        trap = mem[pc] == 0x4C and mem[pc + 1] | mem[pc + 2] << 8 == pc
        mpu.step()
        if trap:
            return mpu, mem, n
    raise AssertionError("py65 run did not reach the trap")


EXPECTED = {
    "sort": lambda mem, regs: mem[0x300] == 0x01 and list(mem[0x400:0x480]) == sorted(mem[0x400:0x480]),
    "bcd_counter": lambda mem, regs: (mem[0x10], mem[0x11], mem[0x12]) == (0, 0, 1) and regs["a"] == 0,
    "stack": lambda mem, regs: mem[0x20] | mem[0x21] << 8 == sum(range(61)) and mem[0x22] == 0xFF,
    "indirect": lambda mem, regs: regs["y"] == 0x42 and regs["x"] == 0,
    "interrupts": lambda mem, regs: mem[0x31] == 0x20 and mem[0x30] & 0x04 and mem[0x32] & 0x10,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_py65(tmp_path, name):
    image = _image(name)
    rtl = _cpu_run(tmp_path, image)
    mpu, mem, instructions = _py65(image)
    assert rtl["stop"] == "trap"
    assert instructions > 1000 or name in ("indirect", "interrupts")
    assert (rtl["a"], rtl["x"], rtl["y"], rtl["sp"], rtl["p"], rtl["pc"]) == \
        (mpu.a, mpu.x, mpu.y, mpu.sp, mpu.p | 0x30, mpu.pc)
    assert rtl["cycles"] == mpu.processorCycles
    assert rtl["instructions"] == instructions
    rtl_mem = bytes.fromhex(rtl["dump"])
    assert rtl_mem == bytes(mem)
    assert EXPECTED[name](rtl_mem, rtl)


def test_bcd_counter_matches_ale_model(tmp_path):
    image = _image("bcd_counter")
    rtl = _cpu_run(tmp_path, image)
    mem = bytearray(0x10000)
    mem[ORG:ORG + len(image)] = image
    model = Cpu6507Model(mem)
    model.pc = ORG
    while True:
        pc = model.pc
        trap = mem[pc] == 0x4C and mem[pc + 1] | mem[pc + 2] << 8 == pc
        model.step()
        if trap:
            break
    assert (rtl["cycles"], rtl["instructions"], rtl["p"]) == (model.cycles, model.instructions, model.p)
    assert bytes.fromhex(rtl["dump"]) == bytes(mem)
    assert rtl["instructions"] > 80_000
