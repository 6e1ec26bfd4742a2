"""The RTL core and the reference model against ALE itself: decimal mode and undocumented opcodes.

Each case runs one instruction on ale-py 0.12 (from the console RAM, see ale_exec.py), on
the RTL (fast harness, the same bytes at $80-$FF of a flat memory) and on the reference
model, from the same random registers, flags and RAM; A, X, Y, SP, P and the RAM must agree.
Operands stay in RAM ($C0-$FF), where the 2600 and a flat memory agree; for the stack
instructions SP stays in $C8-$FE, where the stack page ($01xx) mirrors that RAM.
"""
import numpy as np
import pytest

from ale_exec import AleExecutor
from diffutil import Case, run_model, run_rtl
from nc2600.hls_models.cpu6507 import OPCODES, Cpu6507Registers

CASES = 150


@pytest.fixture(scope="module")
def ale():
    return AleExecutor()


def _operand_bytes(rng, opcode, regs):
    """Operand bytes keeping every access in RAM $C0-$FF (and pointers there too)."""
    mode = OPCODES[opcode][1]
    a, x, y = regs[0], regs[1], regs[2]
    target = int(rng.integers(0xC0, 0x100))
    if mode in ("imp", "psh", "pul"):
        return [], regs
    if mode == "imm":
        return [int(rng.integers(0, 256))], regs
    if mode == "abs":
        return [target, 0x00], regs
    if mode == "zp":
        return [target], regs
    if mode in ("zpx", "zpy"):
        idx = int(rng.integers(0, 0x40))
        regs = (a, idx, y) if mode == "zpx" else (a, x, idx)
        return [0xC0 + int(rng.integers(0, 0x40 - idx))], regs
    if mode in ("abx", "aby"):
        idx = int(rng.integers(0, 0x20))
        regs = (a, idx, y) if mode == "abx" else (a, x, idx)
        return [0xC0 + int(rng.integers(0, 0x20)), 0x00], regs
    if mode == "izy":
        idx = int(rng.integers(0, 0x10))
        return [0xF0], (a, x, idx)                       # pointer at $F0/$F1 set by the caller
    if mode == "izx":
        idx = int(rng.integers(0, 0x08))
        return [0xF0 - idx], (a, idx, y)
    raise AssertionError(mode)


OPCODES_UNDER_TEST = [
    0x69, 0xE9, 0xEB,                                    # ADC/SBC # (decimal and binary)
    0x0B, 0x2B, 0x4B, 0x6B, 0x8B, 0xAB, 0xCB,            # ANC ANC ALR ARR ANE LXA SBX
    0x07, 0x27, 0x47, 0x67, 0xC7, 0xE7,                  # SLO RLA SRE RRA DCP ISB zp
    0x17, 0x77, 0xF7, 0xD7,                              # ... zp,X
    0x1B, 0x7B, 0xFB, 0x5F, 0x3F,                        # ... abs,Y / abs,X
    0x03, 0x63, 0xE3, 0x13, 0x73, 0xF3, 0xD3,            # ... (zp,X) / (zp),Y
    0xA7, 0xB7, 0xAF, 0xBF, 0xA3, 0xB3,                  # LAX
    0x87, 0x97, 0x8F, 0x83,                              # SAX
    0xBB, 0x9F, 0x9E, 0x9C, 0x9B, 0x93,                  # LAS SHA SHX SHY SHS SHA
    0x04, 0x14, 0x0C, 0x1C, 0x80, 0x1A,                  # NOPs
    0x65, 0xF5, 0x79, 0xF1, 0x6D,                        # decimal ADC/SBC, other modes
    0x24, 0x2C, 0xC5, 0xE4, 0xC4, 0x26, 0x66, 0xE6, 0xC6, 0x06, 0x46,   # documented, RAM operands
    0x0A, 0x2A, 0x4A, 0x6A, 0xBA, 0x9A, 0xAA, 0xA8, 0x8A, 0x98, 0xE8, 0xC8, 0xCA, 0x88,
    0x18, 0x38, 0x58, 0x78, 0xB8, 0xD8, 0xF8, 0xEA,
    0x08, 0x28, 0x48, 0x68,                              # PHP PLP PHA PLA (stack page mirrors RAM)
]
STACK_OPS = {0x08, 0x28, 0x48, 0x68}


@pytest.mark.parametrize("opcode", OPCODES_UNDER_TEST, ids=lambda op: f"{op:02X}")
def test_rtl_and_model_match_ale(ale, harness, opcode):
    rng = np.random.default_rng(7000 + opcode)
    for _ in range(CASES):
        a, x, y = (int(v) for v in rng.integers(0, 256, 3))
        operand, (a, x, y) = _operand_bytes(rng, opcode, (a, x, y))
        sp = int(rng.integers(0xC8, 0xFF)) if opcode in STACK_OPS else int(rng.integers(0, 256))
        p = int(rng.integers(0, 256)) | 0x30
        ram = [int(v) for v in rng.integers(0, 256, 128)]
        ram[0x70:0x72] = [0xC0 + int(rng.integers(0, 0x20)), 0x00]   # pointer at $F0: into $C0-$DF
        code = [opcode, *operand]
        regs_ale, ram_ale = ale.run(code, a, x, y, sp, p, ram)

        mem = np.zeros(65536, dtype=np.uint8)
        placed = list(ram)
        placed[:len(code)] = code
        mem[0x80:0x100] = placed
        mem[0x180:0x200] = placed          # the 2600 decodes $0180-$01FF to the same RAM
        case = Case(mem, Cpu6507Registers(a, x, y, sp, p, 0x80))
        rtl, _ = run_rtl(harness, case)
        model = run_model(case)
        what = f"{OPCODES[opcode]} code={code} A={a:02X} X={x:02X} Y={y:02X} SP={sp:02X} P={p:02X}"
        for got in (rtl, model):
            assert (got.regs.a, got.regs.x, got.regs.y, got.regs.sp, got.regs.p) == regs_ale, what
            written = {(0x80 | a & 0x7F) if 0x180 <= a < 0x200 else a: v for a, v in got.writes}
            expect = [written.get(0x80 + i, placed[i]) for i in range(128)]
            # the loop's STA WSYNC never touches RAM; compare everything after the code
            assert expect[len(code) + 5:] == ram_ale[len(code) + 5:], what
