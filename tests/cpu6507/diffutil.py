"""Shared helpers of the 6507 tests: random single-instruction cases run on the RTL and on oracles."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from py65.devices.mpu6502 import MPU

from nc2600.hls_models.cpu6507 import Cpu6507Model, Cpu6507Registers, OPCODES

ADD_SUB = {"ADC", "SBC"}


class LoggingMemory(bytearray):
    """bytearray that records every write (address, value), for py65."""

    def __init__(self, data):
        super().__init__(data)
        self.writes: list[tuple[int, int]] = []

    def __setitem__(self, addr, value):
        self.writes.append((addr, value & 0xFF))
        super().__setitem__(addr, value & 0xFF)


@dataclass
class Outcome:
    regs: Cpu6507Registers
    cycles: int
    writes: list[tuple[int, int]]
    jammed: bool = False


@dataclass
class Case:
    memory: np.ndarray      # 65536 uint8
    regs: Cpu6507Registers


def random_case(rng: np.random.Generator, opcode: int, decimal: bool | None = None) -> Case:
    """Random memory (64 KiB), registers and flags, with ``opcode`` at a random PC.

    decimal: force the D flag on (True) / off (False), or leave it random (None).
    """
    mem = rng.integers(0, 256, 65536, dtype=np.uint8)
    pc = int(rng.integers(0, 0xFFFD))
    mem[pc] = opcode
    a, x, y, sp, p = (int(v) for v in rng.integers(0, 256, 5))
    p |= 0x30
    if decimal is True:
        p |= 0x08
    elif decimal is False:
        p &= ~0x08
    return Case(mem, Cpu6507Registers(a, x, y, sp, p, pc))


def run_py65(case: Case) -> Outcome:
    mem = LoggingMemory(case.memory.tobytes())
    mpu = MPU(memory=mem, pc=case.regs.pc)
    r = case.regs
    mpu.a, mpu.x, mpu.y, mpu.sp, mpu.p = r.a, r.x, r.y, r.sp, r.p
    mem.writes.clear()
    mpu.step()
    return Outcome(Cpu6507Registers(mpu.a, mpu.x, mpu.y, mpu.sp, mpu.p | 0x30, mpu.pc),
                   mpu.processorCycles, list(mem.writes))


def run_model(case: Case, decimal: str = "ale") -> Outcome:
    mem = bytearray(case.memory.tobytes())
    model = Cpu6507Model(mem, decimal=decimal)
    model.set_registers(case.regs)
    cycles = model.step()
    return Outcome(model.registers(), cycles, list(model.writes), model.jammed)


def run_rtl(harness, case: Case) -> tuple[Outcome, list]:
    """One instruction on the RTL; returns the outcome (non-dummy writes) and the dummy writes."""
    harness.memory[:] = case.memory
    r = case.regs
    harness.load_state(r.a, r.x, r.y, r.sp, r.p, r.pc)
    harness.set_log(64, "writes")
    res = harness.run(max_cycles=64, max_instructions=1)
    regs, jammed = harness.state()
    writes, dummies = [], []
    for e in harness.log():
        (dummies if e.dummy else writes).append((e.addr, e.data))
    return Outcome(regs, res.cycles, writes, jammed), dummies


def describe(opcode: int, case: Case) -> str:
    r = case.regs
    mn, mode = OPCODES[opcode]
    ops = [int(case.memory[(r.pc + i) & 0xFFFF]) for i in range(3)]
    return (f"{mn} {mode} (${opcode:02X}) bytes={' '.join(f'{b:02X}' for b in ops)} "
            f"A={r.a:02X} X={r.x:02X} Y={r.y:02X} SP={r.sp:02X} P={r.p:02X} PC={r.pc:04X}")
