"""Instruction-level reference model of the 6507 as ALE 0.12 emulates it.

ALE (ale-py 0.12) runs Stella 2.4.2's ``M6502Low`` core by default.  This module
models that core one instruction at a time, bit for bit:

* the opcode table: all 151 documented opcodes plus the undocumented ones ALE
  implements (LAX, SAX, DCP, ISB, SLO, RLA, SRE, RRA, ANC, ALR, ARR, ANE, LXA, SBX,
  LAS, SHA, SHX, SHY, SHS, SBC $EB and the NOP variants); the 12 JAM (KIL) opcodes
  stop the core (ALE treats them as a fatal error);
* the cycle count of every instruction: ALE's per-opcode table, plus one cycle when
  a *read* through abs,X / abs,Y / (zp),Y crosses a page, plus one cycle for a taken
  branch and one more when the branch target is on another page;
* decimal mode by ALE's BCD rule (:func:`ale_bcd_adc`, :func:`ale_bcd_sbc`), or the
  NMOS rule (:func:`nmos_bcd_adc`, :func:`nmos_bcd_sbc`) for comparison;
* reset as ALE does it: A = X = Y = 0, SP = $FF, P = $20, PC from $FFFC/$FFFD.

The status register P always reads with bit 5 and the B bit (bit 4) set, as ALE's
``M6502::PS()`` does (the 6507 has no IRQ/NMI pins, so B is always 1 when pushed).

Known difference from ALE kept on purpose: the high byte of a (zp,X) / (zp),Y
pointer at $FF is read from $00 (the NMOS zero-page wrap), where ALE reads $0100.
In an Atari 2600 both addresses decode to TIA register 0, so games cannot see it.

Sources: ALE ``src/ale/emucore/M6502.m4``, ``M6502Low.m4``, ``M6502.cxx``
(read for understanding, re-written here); the MOS MCS6500 programming manual;
"6502.org tutorial: Decimal mode" appendix A for the NMOS decimal rule.
"""
from __future__ import annotations

from dataclasses import dataclass

# ---------------------------------------------------------------------------
# Opcode table
# ---------------------------------------------------------------------------
#: Addressing modes (also used by the hardware decoder in hw/cpu6507.py).
#: imp: implied/accumulator, imm: immediate, zp, zpx, zpy, abs, abx, aby,
#: izx: (zp,X), izy: (zp),Y, rel: branch, jmp: JMP abs, ind: JMP (abs),
#: plus the control instructions with their own sequences: brk, jsr, rts, rti,
#: psh (PHA/PHP), pul (PLA/PLP), jam.
_ROWS = """
BRK brk|ORA izx|JAM jam|SLO izx|NOP zp |ORA zp |ASL zp |SLO zp |PHP psh|ORA imm|ASL imp|ANC imm|NOP abs|ORA abs|ASL abs|SLO abs
BPL rel|ORA izy|JAM jam|SLO izy|NOP zpx|ORA zpx|ASL zpx|SLO zpx|CLC imp|ORA aby|NOP imp|SLO aby|NOP abx|ORA abx|ASL abx|SLO abx
JSR jsr|AND izx|JAM jam|RLA izx|BIT zp |AND zp |ROL zp |RLA zp |PLP pul|AND imm|ROL imp|ANC imm|BIT abs|AND abs|ROL abs|RLA abs
BMI rel|AND izy|JAM jam|RLA izy|NOP zpx|AND zpx|ROL zpx|RLA zpx|SEC imp|AND aby|NOP imp|RLA aby|NOP abx|AND abx|ROL abx|RLA abx
RTI rti|EOR izx|JAM jam|SRE izx|NOP zp |EOR zp |LSR zp |SRE zp |PHA psh|EOR imm|LSR imp|ALR imm|JMP jmp|EOR abs|LSR abs|SRE abs
BVC rel|EOR izy|JAM jam|SRE izy|NOP zpx|EOR zpx|LSR zpx|SRE zpx|CLI imp|EOR aby|NOP imp|SRE aby|NOP abx|EOR abx|LSR abx|SRE abx
RTS rts|ADC izx|JAM jam|RRA izx|NOP zp |ADC zp |ROR zp |RRA zp |PLA pul|ADC imm|ROR imp|ARR imm|JMP ind|ADC abs|ROR abs|RRA abs
BVS rel|ADC izy|JAM jam|RRA izy|NOP zpx|ADC zpx|ROR zpx|RRA zpx|SEI imp|ADC aby|NOP imp|RRA aby|NOP abx|ADC abx|ROR abx|RRA abx
NOP imm|STA izx|NOP imm|SAX izx|STY zp |STA zp |STX zp |SAX zp |DEY imp|NOP imm|TXA imp|ANE imm|STY abs|STA abs|STX abs|SAX abs
BCC rel|STA izy|JAM jam|SHA izy|STY zpx|STA zpx|STX zpy|SAX zpy|TYA imp|STA aby|TXS imp|SHS aby|SHY abx|STA abx|SHX aby|SHA aby
LDY imm|LDA izx|LDX imm|LAX izx|LDY zp |LDA zp |LDX zp |LAX zp |TAY imp|LDA imm|TAX imp|LXA imm|LDY abs|LDA abs|LDX abs|LAX abs
BCS rel|LDA izy|JAM jam|LAX izy|LDY zpx|LDA zpx|LDX zpy|LAX zpy|CLV imp|LDA aby|TSX imp|LAS aby|LDY abx|LDA abx|LDX aby|LAX aby
CPY imm|CMP izx|NOP imm|DCP izx|CPY zp |CMP zp |DEC zp |DCP zp |INY imp|CMP imm|DEX imp|SBX imm|CPY abs|CMP abs|DEC abs|DCP abs
BNE rel|CMP izy|JAM jam|DCP izy|NOP zpx|CMP zpx|DEC zpx|DCP zpx|CLD imp|CMP aby|NOP imp|DCP aby|NOP abx|CMP abx|DEC abx|DCP abx
CPX imm|SBC izx|NOP imm|ISB izx|CPX zp |SBC zp |INC zp |ISB zp |INX imp|SBC imm|NOP imp|SBC imm|CPX abs|SBC abs|INC abs|ISB abs
BEQ rel|SBC izy|JAM jam|ISB izy|NOP zpx|SBC zpx|INC zpx|ISB zpx|SED imp|SBC aby|NOP imp|ISB aby|NOP abx|SBC abx|INC abx|ISB abx
"""


def _parse_rows() -> list[tuple[str, str]]:
    table = []
    for line in _ROWS.strip().splitlines():
        for cell in line.split("|"):
            mnemonic, mode = cell.split()
            table.append((mnemonic, mode))
    assert len(table) == 256
    return table


#: ``OPCODES[op] = (mnemonic, mode)`` for all 256 opcodes (ALE's names, upper case).
OPCODES: list[tuple[str, str]] = _parse_rows()

#: The 12 JAM (KIL) opcodes: fatal in ALE, stop the core in hardware.
JAM_OPCODES = frozenset(op for op, (mn, _) in enumerate(OPCODES) if mn == "JAM")

_UNDOCUMENTED_MNEMONICS = {"SLO", "RLA", "SRE", "RRA", "SAX", "LAX", "DCP", "ISB", "ANC", "ALR",
                           "ARR", "ANE", "LXA", "SBX", "LAS", "SHA", "SHX", "SHY", "SHS", "JAM"}
#: The 151 documented NMOS 6502 opcodes.
DOCUMENTED_OPCODES = frozenset(
    op for op, (mn, mode) in enumerate(OPCODES)
    if mn not in _UNDOCUMENTED_MNEMONICS and not (mn == "NOP" and op != 0xEA) and op != 0xEB)
assert len(DOCUMENTED_OPCODES) == 151 and len(JAM_OPCODES) == 12

#: Base cycle count per opcode, ALE's ``ourInstructionProcessorCycleTable``
#: (JAM entries: the 2 cycles ALE charges before it stops).
BASE_CYCLES: tuple[int, ...] = tuple(int(c, 16) for c in (
    "7628335532224466" "2528446624274477" "6628335542224466" "2528446624274477"
    "6628335532223466" "2528446624274477" "6628335542225466" "2528446624274477"
    "2626333322224444" "2626444425255555" "2626333422224444" "2525444424244444"
    "2628335522224466" "2528446624274477" "2628335522224466" "2528446624274477"))
assert len(BASE_CYCLES) == 256

#: Modes whose read instructions take one more cycle when indexing crosses a page.
PAGE_PENALTY_MODES = frozenset({"abx", "aby", "izy"})
READ_MNEMONICS = frozenset({"LDA", "LDX", "LDY", "LAX", "ORA", "AND", "EOR", "ADC", "SBC", "CMP",
                            "CPX", "CPY", "BIT", "NOP", "LAS"})
WRITE_MNEMONICS = frozenset({"STA", "STX", "STY", "SAX", "SHA", "SHX", "SHY", "SHS"})
RMW_MNEMONICS = frozenset({"ASL", "LSR", "ROL", "ROR", "INC", "DEC",
                           "SLO", "RLA", "SRE", "RRA", "DCP", "ISB"})

# P register bits
FLAG_C, FLAG_Z, FLAG_I, FLAG_D, FLAG_B, FLAG_U, FLAG_V, FLAG_N = (1 << i for i in range(8))


# ---------------------------------------------------------------------------
# Decimal mode rules
# ---------------------------------------------------------------------------
def bcd_to_binary(value: int) -> int:
    """ALE's ``ourBCDTable[0]``: high nibble * 10 + low nibble, for any byte (0..165)."""
    return (value >> 4) * 10 + (value & 0x0F)


def binary_to_bcd(value: int) -> int:
    """ALE's ``ourBCDTable[1]`` for ``value`` in 0..255: BCD of ``value % 100``."""
    return (((value % 100) // 10) << 4) | (value % 10)


def ale_bcd_adc(a: int, operand: int, carry: int) -> tuple[int, int, int, int, int]:
    """Decimal ADC by ALE's BCD rule (ALE 0.12 ``M6502_ADC`` with D set).

    sum = bcd(A) + bcd(operand) + C (each byte read as high*10 + low, so non-BCD
    bytes give 10..15 per nibble); C = sum > 99; A = BCD of (sum mod 256) mod 100;
    N and Z from that BCD result; V = (A_old ^ A) & (A ^ operand) & $80.

    Args:
        a, operand: bytes 0..255; carry: 0 or 1.
    Returns:
        (result, n, v, z, c), flags as 0/1.
    """
    total = bcd_to_binary(a) + bcd_to_binary(operand) + carry
    result = binary_to_bcd(total & 0xFF)
    c = int(total > 99)
    v = int(bool((a ^ result) & 0x80) and bool((result ^ operand) & 0x80))
    return result, result >> 7, v, int(result == 0), c


def ale_bcd_sbc(a: int, operand: int, carry: int) -> tuple[int, int, int, int, int]:
    """Decimal SBC by ALE's BCD rule (ALE 0.12 ``M6502_SBC`` with D set).

    diff = bcd(A) - bcd(operand) - (1 - C); if diff < 0 add 100; A = BCD of diff.
    When diff is still negative (possible only with non-BCD operands, down to -66),
    ALE indexes ``ourBCDTable[1][diff]`` below its start, which reads
    ``ourBCDTable[0][256 + diff]`` (the tables are one flat array): that is modelled.
    C = A_old >= operand + (1 - C) (a binary compare); N, Z from the result; V as in
    :func:`ale_bcd_adc` with the operand itself (not its complement).

    Returns:
        (result, n, v, z, c), flags as 0/1.
    """
    borrow = 1 - carry
    diff = bcd_to_binary(a) - bcd_to_binary(operand) - borrow
    if diff < 0:
        diff += 100
    result = binary_to_bcd(diff) if diff >= 0 else bcd_to_binary(256 + diff)
    c = int(a >= operand + borrow)
    v = int(bool((a ^ result) & 0x80) and bool((result ^ operand) & 0x80))
    return result, result >> 7, v, int(result == 0), c


def nmos_bcd_adc(a: int, operand: int, carry: int) -> tuple[int, int, int, int, int]:
    """Decimal ADC as an NMOS 6502 performs it (6502.org decimal-mode tutorial, app. A).

    Z comes from the binary sum; N and V from the sum after the low-nibble adjust.
    Returns (result, n, v, z, c).
    """
    lo = (a & 0x0F) + (operand & 0x0F) + carry
    if lo >= 0x0A:
        lo = ((lo + 0x06) & 0x0F) + 0x10
    s = (a & 0xF0) + (operand & 0xF0) + lo
    n = (s >> 7) & 1
    v = int(bool(~(a ^ operand) & (a ^ s) & 0x80))
    if s >= 0xA0:
        s += 0x60
    c = int(s >= 0x100)
    z = int(((a + operand + carry) & 0xFF) == 0)
    return s & 0xFF, n, v, z, c


def nmos_bcd_sbc(a: int, operand: int, carry: int) -> tuple[int, int, int, int, int]:
    """Decimal SBC as an NMOS 6502 performs it: flags as binary SBC, A adjusted.

    Returns (result, n, v, z, c).
    """
    lo = (a & 0x0F) - (operand & 0x0F) + carry - 1
    if lo < 0:
        lo = ((lo - 0x06) & 0x0F) - 0x10
    s = (a & 0xF0) - (operand & 0xF0) + lo
    if s < 0:
        s -= 0x60
    binary = a - operand - (1 - carry)
    n = (binary >> 7) & 1
    v = int(bool((a ^ operand) & (a ^ binary) & 0x80))
    z = int((binary & 0xFF) == 0)
    c = int(binary >= 0)
    return s & 0xFF, n, v, z, c


# ---------------------------------------------------------------------------
# The instruction-level model
# ---------------------------------------------------------------------------
@dataclass
class Cpu6507Registers:
    """Programmer-visible state: 8-bit a, x, y, sp, p (bits 5 and 4 read 1), 16-bit pc."""
    a: int = 0
    x: int = 0
    y: int = 0
    sp: int = 0xFF
    p: int = 0x30
    pc: int = 0


class Cpu6507Model:
    """One 6507 running ALE's ``M6502Low`` rules over a flat 64 KiB memory.

    Args:
        memory: a ``bytearray`` (or any mutable sequence of 65536 ints 0..255); the
            model reads and writes it in place.
        decimal: ``"ale"`` (ALE's BCD rule, the default) or ``"nmos"``.

    Attributes:
        a, x, y, sp, pc: registers; ``p`` property for the status byte.
        cycles: CPU cycles executed (1 cycle = 3 colour clocks).
        instructions: instructions executed.
        jammed: True once a JAM opcode was fetched (the core then stops).
        writes: (address, value) of every memory write of the last :meth:`step`.
    """

    def __init__(self, memory, decimal: str = "ale"):
        if decimal not in ("ale", "nmos"):
            raise ValueError(f"decimal must be 'ale' or 'nmos', got {decimal!r}")
        self.mem = memory
        self.decimal = decimal
        self.a = self.x = self.y = 0
        self.sp = 0xFF
        self.pc = 0
        self.n = self.v = self.d = self.i = self.z = self.c = 0
        self.cycles = 0
        self.instructions = 0
        self.jammed = False
        self.writes: list[tuple[int, int]] = []

    # -- state ------------------------------------------------------------
    @property
    def p(self) -> int:
        """Status byte N V 1 B D I Z C, with B and bit 5 always 1 (ALE ``PS()``)."""
        return (self.n << 7) | (self.v << 6) | 0x30 | (self.d << 3) | (self.i << 2) | (self.z << 1) | self.c

    @p.setter
    def p(self, value: int) -> None:
        self.n, self.v = (value >> 7) & 1, (value >> 6) & 1
        self.d, self.i = (value >> 3) & 1, (value >> 2) & 1
        self.z, self.c = (value >> 1) & 1, value & 1

    def reset(self) -> None:
        """ALE reset: A = X = Y = 0, SP = $FF, P = $20, PC from $FFFC/$FFFD, no cycles."""
        self.a = self.x = self.y = 0
        self.sp = 0xFF
        self.p = 0x20
        self.pc = self.mem[0xFFFC] | (self.mem[0xFFFD] << 8)
        self.jammed = False

    def registers(self) -> Cpu6507Registers:
        return Cpu6507Registers(self.a, self.x, self.y, self.sp, self.p, self.pc)

    def set_registers(self, regs: Cpu6507Registers) -> None:
        self.a, self.x, self.y, self.sp, self.pc = regs.a, regs.x, regs.y, regs.sp, regs.pc
        self.p = regs.p
        self.jammed = False

    # -- bus ----------------------------------------------------------------
    def _rd(self, addr: int) -> int:
        return self.mem[addr & 0xFFFF]

    def _wr(self, addr: int, value: int) -> None:
        addr &= 0xFFFF
        value &= 0xFF
        self.mem[addr] = value
        self.writes.append((addr, value))

    def _fetch(self) -> int:
        value = self.mem[self.pc]
        self.pc = (self.pc + 1) & 0xFFFF
        return value

    def _push(self, value: int) -> None:
        self._wr(0x100 | self.sp, value)
        self.sp = (self.sp - 1) & 0xFF

    def _nz(self, value: int) -> int:
        value &= 0xFF
        self.n, self.z = value >> 7, int(value == 0)
        return value

    # -- arithmetic -----------------------------------------------------------
    def _adc(self, operand: int) -> None:
        if self.d:
            rule = ale_bcd_adc if self.decimal == "ale" else nmos_bcd_adc
            self.a, self.n, self.v, self.z, self.c = rule(self.a, operand, self.c)
            return
        self._adc_binary(operand)

    def _adc_binary(self, operand: int) -> None:
        total = self.a + operand + self.c
        self.v = int(bool(~(self.a ^ operand) & (self.a ^ total) & 0x80))
        self.c = total >> 8
        self.a = self._nz(total)

    def _sbc(self, operand: int) -> None:
        if self.d:
            rule = ale_bcd_sbc if self.decimal == "ale" else nmos_bcd_sbc
            self.a, self.n, self.v, self.z, self.c = rule(self.a, operand, self.c)
            return
        self._adc_binary(operand ^ 0xFF)

    def _compare(self, reg: int, operand: int) -> None:
        diff = reg - operand
        self.c = int(diff >= 0)
        self._nz(diff)

    # -- one instruction -------------------------------------------------------
    def step(self) -> int:
        """Execute one instruction; return its cycle count (0 when jammed)."""
        self.writes = []
        if self.jammed:
            return 0
        opcode = self._fetch()
        mnemonic, mode = OPCODES[opcode]
        cycles = BASE_CYCLES[opcode]
        if mode == "jam":
            self.jammed = True
            self.cycles += cycles
            self.instructions += 1
            return cycles

        addr = None
        if mode == "imm" or mode == "rel":
            addr = self.pc
            self.pc = (self.pc + 1) & 0xFFFF
        elif mode == "zp":
            addr = self._fetch()
        elif mode in ("zpx", "zpy"):
            addr = (self._fetch() + (self.x if mode == "zpx" else self.y)) & 0xFF
        elif mode in ("abs", "abx", "aby", "jmp", "ind"):
            base = self._fetch()
            base |= self._fetch() << 8
            addr = base
            if mode in ("abx", "aby"):
                addr = base + (self.x if mode == "abx" else self.y)
                if mnemonic in READ_MNEMONICS and (addr ^ base) & 0xFF00:
                    cycles += 1
                addr &= 0xFFFF
        elif mode == "izx":
            ptr = (self._fetch() + self.x) & 0xFF
            addr = self._rd(ptr) | (self._rd((ptr + 1) & 0xFF) << 8)
        elif mode == "izy":
            ptr = self._fetch()
            base = self._rd(ptr) | (self._rd((ptr + 1) & 0xFF) << 8)
            addr = base + self.y
            if mnemonic in READ_MNEMONICS and (addr ^ base) & 0xFF00:
                cycles += 1
            addr &= 0xFFFF

        cycles += self._execute(mnemonic, mode, addr)
        self.cycles += cycles
        self.instructions += 1
        return cycles

    def _execute(self, mn: str, mode: str, addr) -> int:
        """Perform the operation; returns extra cycles (taken branches)."""
        if mn in READ_MNEMONICS or mn in ("ANC", "ALR", "ARR", "ANE", "LXA", "SBX"):
            if mode == "imp":  # the implied NOPs
                return 0
            o = self._rd(addr)
            if mn == "LDA":
                self.a = self._nz(o)
            elif mn == "LDX":
                self.x = self._nz(o)
            elif mn == "LDY":
                self.y = self._nz(o)
            elif mn == "LAX":
                self.a = self.x = self._nz(o)
            elif mn == "ORA":
                self.a = self._nz(self.a | o)
            elif mn == "AND":
                self.a = self._nz(self.a & o)
            elif mn == "EOR":
                self.a = self._nz(self.a ^ o)
            elif mn == "ADC":
                self._adc(o)
            elif mn == "SBC":
                self._sbc(o)
            elif mn == "CMP":
                self._compare(self.a, o)
            elif mn == "CPX":
                self._compare(self.x, o)
            elif mn == "CPY":
                self._compare(self.y, o)
            elif mn == "BIT":
                self.z = int((self.a & o) == 0)
                self.n, self.v = o >> 7, (o >> 6) & 1
            elif mn == "LAS":
                self.a = self.x = self.sp = self._nz(self.sp & o)
            elif mn == "ANC":
                self.a = self._nz(self.a & o)
                self.c = self.n
            elif mn == "ALR":
                t = self.a & o
                self.c = t & 1
                self.a = self._nz(t >> 1)
            elif mn == "ARR":
                self._arr(o)
            elif mn == "ANE":
                self.a = self._nz((self.a | 0xEE) & self.x & o)
            elif mn == "LXA":
                self.a = self.x = self._nz((self.a | 0xEE) & o)
            elif mn == "SBX":
                t = (self.a & self.x) - o
                self.c = int(t >= 0)
                self.x = self._nz(t)
            return 0
        if mn in WRITE_MNEMONICS:
            h1 = ((addr >> 8) + 1) & 0xFF  # ALE: high byte of the final address, plus one
            if mn == "STA":
                value = self.a
            elif mn == "STX":
                value = self.x
            elif mn == "STY":
                value = self.y
            elif mn == "SAX":
                value = self.a & self.x
            elif mn == "SHA":
                value = self.a & self.x & h1
            elif mn == "SHX":
                value = self.x & h1
            elif mn == "SHY":
                value = self.y & h1
            else:  # SHS
                self.sp = self.a & self.x
                value = self.a & self.x & h1
            self._wr(addr, value)
            return 0
        if mn in RMW_MNEMONICS and mode != "imp":
            o = self._rd(addr)
            value = self._modify(mn, o)
            self._wr(addr, value)
            if mn == "SLO":
                self.a = self._nz(self.a | value)
            elif mn == "RLA":
                self.a = self._nz(self.a & value)
            elif mn == "SRE":
                self.a = self._nz(self.a ^ value)
            elif mn == "RRA":
                self._adc(value)
            elif mn == "DCP":
                self._compare(self.a, value)
            elif mn == "ISB":
                self._sbc(value)
            else:
                self._nz(value)
            return 0
        if mode == "imp":
            return self._implied(mn)
        if mode == "rel":
            o = self._rd(addr)
            flag = {"BPL": not self.n, "BMI": self.n, "BVC": not self.v, "BVS": self.v,
                    "BCC": not self.c, "BCS": self.c, "BNE": not self.z, "BEQ": self.z}[mn]
            if not flag:
                return 0
            target = (self.pc + (o - 256 if o & 0x80 else o)) & 0xFFFF
            extra = 2 if (target ^ self.pc) & 0xFF00 else 1
            self.pc = target
            return extra
        if mode == "jmp":
            self.pc = addr
        elif mode == "ind":
            hi_addr = (addr & 0xFF00) | ((addr + 1) & 0xFF)  # the NMOS page-wrap bug
            self.pc = self._rd(addr) | (self._rd(hi_addr) << 8)
        elif mode == "jsr":
            lo = self._fetch()
            self._push(self.pc >> 8)
            self._push(self.pc & 0xFF)
            self.pc = lo | (self._rd(self.pc) << 8)
        elif mode == "rts":
            self.sp = (self.sp + 1) & 0xFF
            lo = self._rd(0x100 | self.sp)
            self.sp = (self.sp + 1) & 0xFF
            self.pc = ((lo | (self._rd(0x100 | self.sp) << 8)) + 1) & 0xFFFF
        elif mode == "rti":
            self.sp = (self.sp + 1) & 0xFF
            self.p = self._rd(0x100 | self.sp)
            self.sp = (self.sp + 1) & 0xFF
            lo = self._rd(0x100 | self.sp)
            self.sp = (self.sp + 1) & 0xFF
            self.pc = lo | (self._rd(0x100 | self.sp) << 8)
        elif mode == "brk":
            self.pc = (self.pc + 1) & 0xFFFF
            self._push(self.pc >> 8)
            self._push(self.pc & 0xFF)
            self._push(self.p)
            self.i = 1
            self.pc = self._rd(0xFFFE) | (self._rd(0xFFFF) << 8)
        elif mode == "psh":
            self._push(self.a if mn == "PHA" else self.p)
        elif mode == "pul":
            self.sp = (self.sp + 1) & 0xFF
            o = self._rd(0x100 | self.sp)
            if mn == "PLA":
                self.a = self._nz(o)
            else:
                self.p = o
        else:  # pragma: no cover - table error
            raise AssertionError(f"unhandled {mn} {mode}")
        return 0

    def _modify(self, mn: str, o: int) -> int:
        if mn in ("ASL", "SLO"):
            self.c = o >> 7
            return (o << 1) & 0xFF
        if mn in ("LSR", "SRE"):
            self.c = o & 1
            return o >> 1
        if mn in ("ROL", "RLA"):
            value = ((o << 1) | self.c) & 0xFF
            self.c = o >> 7
            return value
        if mn in ("ROR", "RRA"):
            value = (o >> 1) | (self.c << 7)
            self.c = o & 1
            return value
        if mn in ("INC", "ISB"):
            return (o + 1) & 0xFF
        return (o - 1) & 0xFF  # DEC, DCP

    def _arr(self, o: int) -> None:
        """ARR as ALE performs it (its binary and decimal paths, from 64doc)."""
        t = self.a & o
        r = (t >> 1) | (self.c << 7)
        if not self.d:
            self.a = self._nz(r)
            self.c = (r >> 6) & 1
            self.v = ((r >> 6) ^ (r >> 5)) & 1
            return
        self.n = self.c
        self.z = int(r == 0)
        self.v = ((t ^ r) >> 6) & 1
        if (t & 0x0F) + (t & 0x01) > 0x05:
            r = (r & 0xF0) | ((r + 0x06) & 0x0F)
        if (t & 0xF0) + (t & 0x10) > 0x50:
            r = (r + 0x60) & 0xFF
            self.c = 1
        else:
            self.c = 0
        self.a = r

    def _implied(self, mn: str) -> int:
        if mn == "ASL":
            self.c = self.a >> 7
            self.a = self._nz(self.a << 1)
        elif mn == "LSR":
            self.c = self.a & 1
            self.a = self._nz(self.a >> 1)
        elif mn == "ROL":
            c = self.a >> 7
            self.a = self._nz((self.a << 1) | self.c)
            self.c = c
        elif mn == "ROR":
            c = self.a & 1
            self.a = self._nz((self.a >> 1) | (self.c << 7))
            self.c = c
        elif mn == "TAX":
            self.x = self._nz(self.a)
        elif mn == "TAY":
            self.y = self._nz(self.a)
        elif mn == "TXA":
            self.a = self._nz(self.x)
        elif mn == "TYA":
            self.a = self._nz(self.y)
        elif mn == "TSX":
            self.x = self._nz(self.sp)
        elif mn == "TXS":
            self.sp = self.x
        elif mn == "INX":
            self.x = self._nz(self.x + 1)
        elif mn == "INY":
            self.y = self._nz(self.y + 1)
        elif mn == "DEX":
            self.x = self._nz(self.x - 1)
        elif mn == "DEY":
            self.y = self._nz(self.y - 1)
        elif mn in ("CLC", "SEC"):
            self.c = int(mn == "SEC")
        elif mn in ("CLI", "SEI"):
            self.i = int(mn == "SEI")
        elif mn in ("CLD", "SED"):
            self.d = int(mn == "SED")
        elif mn == "CLV":
            self.v = 0
        elif mn == "NOP":
            pass
        else:  # pragma: no cover
            raise AssertionError(f"unhandled implied {mn}")
        return 0
