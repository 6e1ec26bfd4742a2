"""Decimal mode: ALE's BCD rule (default core) and the NMOS rule (decimal="nmos").

Oracles: hand-worked cases from the documented rules (ALE 0.12 M6502.m4 for the BCD rule,
the 6502.org decimal-mode tutorial appendix A for NMOS), py65 for the accumulator and carry
of valid-BCD NMOS cases, and the reference model hls_models/cpu6507.py for random cases
on the RTL (ADC/SBC in several addressing modes, RRA, ISB, ARR).
"""
import numpy as np
import pytest
from py65.devices.mpu6502 import MPU

from diffutil import describe, random_case, run_model, run_rtl
from nc2600.hls_models.cpu6507 import ale_bcd_adc, ale_bcd_sbc, nmos_bcd_adc, nmos_bcd_sbc

# (A, operand, C) -> (result, N, V, Z, C), worked by hand from ALE's rule.
ALE_ADC = [
    ((0x99, 0x01, 0), (0x00, 0, 0, 1, 1)),   # the ALE fact: Z = 1 (NMOS gives Z = 0)
    ((0x58, 0x46, 1), (0x05, 0, 0, 0, 1)),   # 58 + 46 + 1 = 105
    ((0x12, 0x34, 0), (0x46, 0, 0, 0, 0)),
    ((0x0F, 0x01, 0), (0x16, 0, 0, 0, 0)),   # bcd($0F) = 15
    ((0xFF, 0xFF, 1), (0x75, 0, 1, 0, 1)),   # 165 + 165 + 1 = 331, 331 mod 256 = 75
    ((0x79, 0x00, 1), (0x80, 1, 1, 0, 0)),   # N from the BCD result
]
ALE_SBC = [
    ((0x00, 0x01, 1), (0x99, 1, 1, 0, 0)),
    ((0x46, 0x12, 1), (0x34, 0, 0, 0, 1)),
    ((0x40, 0x13, 0), (0x26, 0, 0, 0, 1)),
    ((0x50, 0x50, 1), (0x00, 0, 0, 1, 1)),
    ((0x00, 0xFF, 0), (0x7C, 0, 0, 0, 0)),   # 0 - 165 - 1 + 100 = -66: ALE reads table0[190] = 124
]
NMOS_ADC = [
    ((0x99, 0x01, 0), (0x00, 1, 0, 0, 1)),   # Z from the binary sum $9A; N from $A0
    ((0x58, 0x46, 1), (0x05, 1, 1, 0, 1)),   # intermediate $A5: N = 1, V = 1
    ((0x12, 0x34, 0), (0x46, 0, 0, 0, 0)),
]
NMOS_SBC = [
    ((0x00, 0x01, 1), (0x99, 1, 0, 0, 0)),   # flags of the binary $00 - $01 = $FF
    ((0x46, 0x12, 1), (0x34, 0, 0, 0, 1)),
    ((0x40, 0x13, 0), (0x26, 0, 0, 0, 1)),
]


@pytest.mark.parametrize("args,expected", ALE_ADC)
def test_ale_bcd_adc_hand_worked(args, expected):
    assert ale_bcd_adc(*args) == expected


@pytest.mark.parametrize("args,expected", ALE_SBC)
def test_ale_bcd_sbc_hand_worked(args, expected):
    assert ale_bcd_sbc(*args) == expected


@pytest.mark.parametrize("args,expected", NMOS_ADC)
def test_nmos_bcd_adc_hand_worked(args, expected):
    assert nmos_bcd_adc(*args) == expected


@pytest.mark.parametrize("args,expected", NMOS_SBC)
def test_nmos_bcd_sbc_hand_worked(args, expected):
    assert nmos_bcd_sbc(*args) == expected


def _bcd(n):
    return ((n // 10) << 4) | (n % 10)


def test_nmos_rule_matches_py65_on_valid_bcd():
    """py65's decimal A and C agree with the NMOS rule for valid BCD operands (all of them)."""
    mem = [0] * 0x10000
    mpu = MPU(memory=mem)
    for opcode, rule in ((0x69, nmos_bcd_adc), (0xE9, nmos_bcd_sbc)):
        for a in range(100):
            for o in range(100):
                for c in (0, 1):
                    mem[0:2] = [opcode, _bcd(o)]
                    mpu.pc, mpu.a, mpu.p = 0, _bcd(a), 0x38 | c
                    mpu.step()
                    result, _, _, _, carry = rule(_bcd(a), _bcd(o), c)
                    assert (mpu.a, mpu.p & 1) == (result, carry), (hex(opcode), a, o, c)


def test_ale_rule_on_valid_bcd_is_decimal_arithmetic():
    for a in range(100):
        for o in range(100):
            for c in (0, 1):
                r, n, v, z, carry = ale_bcd_adc(_bcd(a), _bcd(o), c)
                assert (r, carry) == (_bcd((a + o + c) % 100), int(a + o + c > 99))
                assert (n, z) == (r >> 7, int(r == 0))
                r, n, v, z, carry = ale_bcd_sbc(_bcd(a), _bcd(o), c)
                assert (r, carry) == (_bcd((a - o - (1 - c)) % 100), int(a - o - (1 - c) >= 0))


# ADC/SBC in several addressing modes, RRA/ISB (RMW + ADC/SBC), ARR's decimal path.
DECIMAL_OPCODES = [0x69, 0x65, 0x7D, 0x71, 0xE9, 0xE5, 0xFD, 0xF1, 0xEB, 0x67, 0x7F, 0xE7, 0xFB, 0x6B]


@pytest.mark.parametrize("opcode", DECIMAL_OPCODES, ids=lambda op: f"{op:02X}")
def test_rtl_decimal_matches_ale_bcd_model(harness, opcode):
    rng = np.random.default_rng(opcode)
    for _ in range(300):
        case = random_case(rng, opcode, decimal=True)
        ref = run_model(case, decimal="ale")
        got, _ = run_rtl(harness, case)
        assert (got.regs, got.writes, got.cycles) == (ref.regs, ref.writes, ref.cycles), describe(opcode, case)


@pytest.mark.parametrize("args,expected", ALE_ADC)
def test_rtl_adc_hand_worked(harness, args, expected):
    a, o, c = args
    harness.memory[0x1000:0x1002] = [0x69, o]
    harness.load_state(a=a, p=0x28 | c, pc=0x1000)
    harness.run(100, max_instructions=1)
    regs, _ = harness.state()
    result, n, v, z, carry = expected
    assert (regs.a, regs.p) == (result, 0x38 | n << 7 | v << 6 | z << 1 | carry)


@pytest.mark.parametrize("opcode", [0x69, 0xE9, 0x6F, 0xE3], ids=lambda op: f"{op:02X}")
def test_rtl_nmos_decimal_matches_nmos_model(harness_nmos, opcode):
    rng = np.random.default_rng(50 + opcode)
    for _ in range(300):
        case = random_case(rng, opcode, decimal=True)
        ref = run_model(case, decimal="nmos")
        got, _ = run_rtl(harness_nmos, case)
        assert (got.regs, got.writes, got.cycles) == (ref.regs, ref.writes, ref.cycles), describe(opcode, case)
