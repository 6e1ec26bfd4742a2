"""The TIA of the Atari 2600 as Amaranth logic, with ALE 0.12 (Stella 2.4.2) semantics.

:class:`Tia` is clocked once per colour clock. It is not a gate model of the real chip:
it reproduces what ALE's emulator draws and latches, which is what this project is judged
against (``shared/reference/ale-oracle-facts.md``). The rules, read from Stella 2.4.2's
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

Timing contract with :class:`hw.console.Console`: ``bus`` describes a completed CPU access
at the clock edge where ``bus.strobe`` and ``bus.sel`` are high (the last colour clock of the CPU cycle);
``hpos`` is the colour clock in the line (0..227, HBLANK is 0..67), ``line`` the scanline
of the frame; ``advance`` is high on the edges where the console moves ``hpos`` on. The TIA
keeps, beside ``hpos``, registers derived from it that would otherwise start its longest paths
(the write's colour clock ``hpos + 1 mod 228``, its CPU cycle of the line, the RESPx and RESMx
positions it gives, the pixel column ``hpos - 68``): they advance with ``advance`` and equal
the formulas at every clock (both start at ``hpos = 0`` after reset). ``cyc`` is Stella's CPU
cycle count of the frame for the current cycle minus 1.

One colour clock is one application of :meth:`Tia._step` (state + the clock's ports -> next
state). ``Tia(colour_clocks=3)`` applies it three times per clock, chained combinationally, with
the ports of each of the three colour clocks in ``clocks[k]`` (:data:`TiaClockSignature`; the CPU
bus, :data:`hw.bus.CpuBusSignature`, acts at the last of them): the same behaviour as three clocks
of ``Tia()`` fed the same ports (tested on random register traffic and by ``nc2600 lockstep
--colour-clocks-per-cycle 3``), one CPU cycle per clock.
"""
from __future__ import annotations

from amaranth import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, enum, wiring
from amaranth.lib.wiring import In, Out

from hw.bus import CpuBusSignature

__all__ = ["Tia", "TiaClockSignature", "PaddlesSignature", "TiaWrite", "TiaRead", "NusizLayout", "CtrlpfLayout", "hmove_motion", "POKE_DELAY"]

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


def _ge_const(v, c: int):
    """``v >= c`` for an unsigned Amaranth value ``v`` and an integer constant ``c``, by
    :func:`_cmp_const`."""
    if c <= 0:
        return Const(1, 1)
    if c >= 1 << len(v):
        return Const(0, 1)
    gt, eq = _cmp_const(v, c)
    return gt | eq


def _copy_offsets(mode: int) -> tuple[int, ...]:
    return {0: (0,), 1: (0, 16), 2: (0, 32), 3: (0, 16, 32), 4: (0, 64), 5: (0,), 6: (0, 32, 64),
            7: (0,)}[mode]


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


_HM_CODE = Array([Const(_hm_code(c), 6) for c in range(128)])
#: HMOVE's motion by (extra, limit) (index extra | limit << 4): in HBLANK and late in the line.
_HM_EARLY = Array([Const(8 - min(i & 15, i >> 4), signed(6)) for i in range(256)])
_HM_LATE = Array([Const(-max(0, (i & 15) - (i >> 4)), signed(6)) for i in range(256)])



#: The TIA's state: (name, bits, reset value). One set of registers in the console; the
#: per-colour-clock step (:meth:`Tia._step`) maps one such set to the next.
_STATE = (
    ("vblank", 8, 0), ("vblank_dump", 1, 0), ("dump_enabled", 1, 0), ("dump_disabled_cycle", 32, 0),
    ("nusiz0", NusizLayout, 0), ("nusiz1", NusizLayout, 0), ("colup0", 7, 0), ("colup1", 7, 0), ("colupf", 7, 0),
    ("colubk", 7, 0), ("ctrlpf", CtrlpfLayout, 0), ("refp0", 1, 0), ("refp1", 1, 0), ("pf", 20, 0),
    ("grp0", 8, 0), ("grp1", 8, 0), ("dgrp0", 8, 0), ("dgrp1", 8, 0), ("enam0", 1, 0), ("enam1", 1, 0),
    ("enabl", 1, 0), ("denabl", 1, 0), ("hmp0", 4, 0), ("hmp1", 4, 0), ("hmm0", 4, 0), ("hmm1", 4, 0),
    ("hmbl", 4, 0), ("vdelp0", 1, 0), ("vdelp1", 1, 0), ("vdelbl", 1, 0), ("resmp0", 1, 0),
    ("resmp1", 1, 0), ("collision", 15, 0), ("posp0", 8, 0), ("posp1", 8, 0), ("posm0", 8, 0),
    ("posm1", 8, 0), ("posbl", 8, 0), ("p0_skip", 1, 0), ("p1_skip", 1, 0), ("pf_reflect", 1, 0),
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
    # beside the console's hpos (hpos + 1 mod 228, its CPU cycle of the line and the RESMx/RESPx
    # positions it gives), so that no write path starts with an add, a divide by 3 or a wrap
    ("wr_hpos", 8, 1), ("wr_phase", 2, 1), ("wr_cycle", 7, 0), ("wr_resm", 8, 2), ("wr_resp", 8, 3),
    ("wr_hm", 6, _hm_code(0)),  # HMOVE's motion rule for the write's cycle (_hm_code)
    # the pending (delayed) generic write
    ("pend", 1, 0), ("pend_addr", 6, 0), ("pend_data", 8, 0), ("pend_hpos", 8, 0), ("pend_hm", 6, 0),
    ("pend_resm", 8, 0), ("pend_cnt", 4, 0),
    ("pend_since", 8, 0),      # CPU cycles since HMOVE at the write (Stella's RESMx/RESBL cases)
    ("wm", 4, 0),              # clocks Stella has already drawn ahead of now
    # the pending RESPx during a drawn copy (+11), per player
    ("rp0_valid", 1, 0), ("rp1_valid", 1, 0), ("rp0_cnt", 4, 0), ("rp1_cnt", 4, 0),
    ("rp0_x", 8, 0), ("rp1_x", 8, 0), ("rp0_skip", 1, 0), ("rp1_skip", 1, 0),
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


#: The four paddles' drive of the TIA's INPT0..3 dump-capacitor rule, paddle ``i`` at index ``i``
#: (producer: the console's controllers, :data:`hw.console.ControllerSignature`; consumer: the TIA).
PaddlesSignature = wiring.Signature({
    "needed": Out(32).array(4),        # CPU cycles from the dump's release until the capacitor is charged
    "mode": Out(2, init=2).array(4),   # 0 the timing rule, 1 always charged, 2 never charged (no paddle)
})

#: The ports of one colour clock of a :class:`Tia` cycle (producer: the console's beam and frame
#: bookkeeping). The CPU bus (:data:`hw.bus.CpuBusSignature`) acts at the cycle's last colour clock.
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
        bus: In(:data:`hw.bus.CpuBusSignature`): write A5..A0, read A3..A0; ``strobe`` and
            ``cycle_end`` act at the cycle's last colour clock. ``bus.rdata``: a TIA read
            completing at the end of that clock returns this; with one colour clock per clock it
            is formed in the clock after the access (see :meth:`_read`).
        bus_last: In(8), the data bus before this access; last_was_read: In(1).
        pal, hmove_blanks: In(1), configuration.
        inpt4, inpt5: In(1), the fire buttons (1 = up).
        paddles: In(:data:`PaddlesSignature`), INPT0..3.
        clocks: In(:data:`TiaClockSignature`) x ``colour_clocks``.
        wsync: Out(1), the CPU must wait for the start of the next line; collision: Out(15);
        posp0..posbl: Out(8), object positions (for debugging).

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
            "wsync": Out(1),
            "collision": Out(15),
            "posp0": Out(8), "posp1": Out(8), "posm0": Out(8), "posm1": Out(8), "posbl": Out(8),
        })

    def elaborate(self, platform):
        m = Module()
        ports = {name: getattr(self, name) for name in ("wsync", "collision", "posp0", "posp1", "posm0",
                                                        "posm1", "posbl")}
        regs = _TiaState(given=ports)
        last = self.colour_clocks - 1
        if self.colour_clocks == 1:
            self._step(m, regs, regs, "sync", self.clocks[0], True)
            return m
        cur = regs
        for k, clk in enumerate(self.clocks):
            nxt = _TiaState(suffix=f"_n{k}")
            m.d.comb += [n.eq(c) for n, c in zip(nxt.fields(), cur.fields())]
            self._step(m, cur, nxt, "comb", clk, k == last)
            cur = nxt
        m.d.sync += [r.eq(c) for r, c in zip(regs.fields(), cur.fields())]
        return m

    def _step(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk, bus_clock: bool) -> None:
        """One colour clock: logic from the state ``S`` and the clock's ports ``clk``
        (:data:`TiaClockSignature`) to the next state ``N``, assigned in domain ``dom`` (``sync``
        with ``N`` the registers themselves, or ``comb`` into next-state signals that default to
        ``S``); ``bus_clock``: the CPU bus acts at this clock (the cycle's last colour clock)."""
        coll_vis = self._draw(m, S, N, dom, clk)
        if bus_clock:
            self._read(m, S, clk, coll_vis)
        self._write(m, S, N, dom, clk, coll_vis, bus_clock)

    def _draw(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk):
        """Drawing: the objects' bits at this clock's pixel, priority and colour (``clk.pixel``),
        the pixel column register's step; returns the clock's visible collisions (15 bits, in
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

        # the pixel column hpos - 68 (mod 256) as a register beside hpos: no subtract in front of
        # the five object distances
        with m.If(clk.advance):
            m.d[dom] += N.x.eq(Mux(clk.hpos == 227, (0 - 68) % 256, S.x + 1))

        def dist(pos):
            d = Signal(8)
            diff = Signal(signed(10))
            m.d.comb += diff.eq(Cat(S.x, Const(0, 2)).as_signed() - Cat(pos, Const(0, 2)).as_signed())
            m.d.comb += d.eq(Mux(diff < 0, diff + 160, diff))
            return d

        def player_bit(pos, mode, skip, grp):
            d = dist(pos)
            idx = Signal(3)
            hit = Signal()
            with m.Switch(mode):
                for mo in range(8):
                    with m.Case(mo):
                        if mo in (5, 7):
                            w = 16 if mo == 5 else 32
                            sh = 1 if mo == 5 else 2
                            dm1 = Signal(8)
                            m.d.comb += dm1.eq(d - 1)
                            m.d.comb += [hit.eq(~skip & (d > 0) & (d <= w)), idx.eq(dm1 >> sh)]
                        else:
                            conds = []
                            for i, off in enumerate(_copy_offsets(mo)):
                                c = (d >= off) & (d < off + 8)
                                if off == 0:
                                    c = c & ~skip
                                conds.append((c, off))
                            any_hit = conds[0][0]
                            for c, _ in conds[1:]:
                                any_hit = any_hit | c
                            sel = Const(0, 8)
                            for c, off in reversed(conds):
                                sel = Mux(c, d - off, sel)
                            m.d.comb += [hit.eq(any_hit), idx.eq(sel[0:3])]
            bit = Signal()
            m.d.comb += bit.eq(hit & grp.bit_select(~idx, 1))
            return bit

        def missile_bit(pos, nusiz, en, widen=Const(0, 1), off=Const(0, 1)):
            d = dist(pos)
            size = Signal(2)
            m.d.comb += size.eq(nusiz.missile_size | widen)
            width = Signal(6)
            m.d.comb += width.eq(Const(1, 6) << size)
            hit = Signal()
            with m.Switch(nusiz.mode):
                for mo in range(8):
                    with m.Case(mo):
                        conds = [(d >= off) & (d < off + width) for off in _copy_offsets(mo)]
                        h = conds[0]
                        for c in conds[1:]:
                            h = h | c
                        m.d.comb += hit.eq(h)
            return hit & en & ~off

        def ball_bit():
            d = dist(S.posbl)
            width = Signal(6)
            m.d.comb += width.eq(Const(1, 6) << S.ctrlpf.ball_size)
            return (d < width) & ball_en

        p0 = player_bit(S.posp0, S.nusiz0.mode, S.p0_skip, cur_grp0)
        p1 = player_bit(S.posp1, S.nusiz1.mode, S.p1_skip, cur_grp1)
        m0 = missile_bit(S.posm0, S.nusiz0, m0_en, widen=(S.m0_mode == 1), off=(S.m0_mode == 2))
        m1 = missile_bit(S.posm1, S.nusiz1, m1_en)
        bl = ball_bit()

        # playfield bit for this pixel
        k = Signal(6)
        kk = Signal(5)
        pfidx = Signal(5)
        m.d.comb += k.eq(S.x >> 2)
        m.d.comb += kk.eq(Mux(k < 20, k, Mux(S.pf_reflect, 39 - k, k - 20)))
        m.d.comb += pfidx.eq(Mux((kk < 4) | (kk >= 12), kk, 15 - kk))
        pfb = Signal()
        m.d.comb += pfb.eq(S.pf.bit_select(pfidx, 1))

        score = S.ctrlpf.score
        prio = S.ctrlpf.priority
        left = S.x < 80
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
        blanked = S.vblank[1] | (S.hmove_blank & (S.x < 8))
        m.d.comb += clk.pixel.eq(Mux(blanked, 0, Cat(loss, colreg)))

        coll_now = Signal(15)
        m.d.comb += coll_now.eq(Cat(
            m0 & p1, m0 & p0, m1 & p0, m1 & p1,
            p0 & pfb, p0 & bl, p1 & pfb, p1 & bl,
            m0 & pfb, m0 & bl, m1 & pfb, m1 & bl,
            bl & pfb, p0 & p1, m0 & m1))
        coll_vis = Signal(15)
        m.d.comb += coll_vis.eq(Mux(clk.drawn & ~S.vblank[1], coll_now, 0))
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
        two clocks before the next read's edge; needed only between frames)."""
        registered = self.colour_clocks == 1

        charged = Signal(4, name="charged")
        for i in range(4):
            mode = self.paddles.mode[i]
            if registered:
                charge_at = Signal(32, name=f"paddle{i}_charge_at")
                m.d.sync += charge_at.eq(S.dump_disabled_cycle + self.paddles.needed[i])
                due = clk.cyc >= charge_at
            else:
                due = (clk.cyc + 1) > (S.dump_disabled_cycle + self.paddles.needed[i])[0:32]
            m.d.comb += charged[i].eq((mode == 1) | ((mode == 0) & ~S.dump_enabled & due))
        c = Signal(15, name="coll_read")
        inpt = Signal(6, name="inpt_read")
        if registered:
            m.d.sync += [c.eq(S.collision | coll_vis), inpt.eq(Cat(charged, self.inpt4, self.inpt5))]
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

    def _write(self, m: Module, S: _TiaState, N: _TiaState, dom: str, clk, coll_vis, bus_clock: bool) -> None:
        """Writes and the clocked bookkeeping: the write's colour-clock registers, the delayed
        write and delayed RESPx, collisions, end-of-line and HMOVE-blank rules, VSYNC/VBLANK/WSYNC
        and the frame end (``clk.frame_end``)."""
        rp_valid = [S.rp0_valid, S.rp1_valid]
        rp_cnt = [S.rp0_cnt, S.rp1_cnt]
        rp_x = [S.rp0_x, S.rp1_x]
        rp_skip = [S.rp0_skip, S.rp1_skip]
        n_rp_valid = [N.rp0_valid, N.rp1_valid]
        n_rp_cnt = [N.rp0_cnt, N.rp1_cnt]
        n_rp_x = [N.rp0_x, N.rp1_x]
        n_rp_skip = [N.rp0_skip, N.rp1_skip]

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
                N.wr_cycle.eq(nxt_cycle), N.wr_hm.eq(_HM_CODE[nxt_cycle]),
                N.wr_resm.eq(Mux(nxt_hpos < 68, 2, Mux(nxt_hpos - 68 + 4 >= 160, nxt_hpos - 68 + 4 - 160,
                                                     nxt_hpos - 68 + 4))),
                N.wr_resp.eq(Mux(nxt_hpos < 68, 3, Mux(nxt_hpos - 68 + 5 >= 160, nxt_hpos - 68 + 5 - 160,
                                                     nxt_hpos - 68 + 5))),
            ]
        bus = self.bus
        # the CPU bus acts at the cycle's last colour clock only
        is_write = (bus.strobe & bus.sel & bus.write) if bus_clock else Const(0, 1)
        cycle_end = bus.cycle_end if bus_clock else Const(0, 1)
        waddr = bus.addr[0:6]

        # pending (delayed) generic write
        # pending RESPx during a drawn copy (+11)

        m.d[dom] += N.wm.eq(Mux(S.wm != 0, S.wm - 1, 0))
        with m.If(cycle_end & (S.since_hmove != 255)):
            m.d[dom] += N.since_hmove.eq(S.since_hmove + 1)
        with m.If(cycle_end & (S.vsync_count != 255)):
            m.d[dom] += N.vsync_count.eq(S.vsync_count + 1)

        # delay of this write
        pf_d = Array([Const(4, 4), Const(5, 4), Const(2, 4), Const(3, 4)])[S.wr_cycle[0:2]]
        delay = Signal(4)
        with m.Switch(waddr):
            for a, dl in POKE_DELAY.items():
                with m.Case(a):
                    m.d.comb += delay.eq(pf_d if dl < 0 else dl)
        eff = Signal(4)
        m.d.comb += eff.eq(Mux(S.wm > delay, S.wm, delay))
        # eff == 0 without the compare: nothing drawn ahead and a register without a delay
        now = Signal()
        with m.Switch(waddr):
            with m.Case(*POKE_DELAY):
                m.d.comb += now.eq(0)
            with m.Default():
                m.d.comb += now.eq(S.wm == 0)

        # RESPx: when-condition at the write
        newx = Signal(8)
        m.d.comb += newx.eq(S.wr_resp)

        def when_of(oldx, mode):
            d = Signal(8)
            diff = Signal(signed(10))
            m.d.comb += diff.eq(Cat(newx, Const(0, 2)).as_signed() - Cat(oldx, Const(0, 2)).as_signed())
            m.d.comb += d.eq(Mux(diff < 0, diff + 160, diff))
            disp = Signal()
            dly = Signal()
            with m.Switch(mode):
                for mo in range(8):
                    with m.Case(mo):
                        w = 16 if mo == 5 else 32 if mo == 7 else 8
                        dc = Const(0, 1)
                        pc = Const(0, 1)
                        for off in _copy_offsets(mo):
                            dc = dc | ((d >= off) & (d < off + 4))
                            pc = pc | ((d >= off + 4) & (d < off + 4 + w))
                        m.d.comb += [dly.eq(dc), disp.eq(pc)]
            return disp, dly   # disp: when == 1, dly (and not disp): when == -1

        w0 = when_of(S.posp0, S.nusiz0.mode)
        w1 = when_of(S.posp1, S.nusiz1.mode)

        frame_end = clk.frame_end
        # a write past the frame's last scanline: line + (hpos == 227) > 290 (342 on PAL), the
        # 16-bit sum not wrapping; tested on the line itself (constant compares, no adder)
        past_end = Signal()
        for pal, maxlines in ((0, 290), (1, 342)):
            with m.If(self.pal == pal):
                m.d.comb += past_end.eq(Mux(clk.hpos == 227, _ge_const(clk.line, maxlines) & (clk.line != 0xFFFF),
                                            _ge_const(clk.line, maxlines + 1)))

        # collisions accumulate every drawn clock (CXCLR applied below wins)
        m.d[dom] += N.collision.eq(S.collision | coll_vis)

        # end of a drawn line: Stella resets the first-copy skip and the PF reflection
        with m.If(clk.line_end_drawn):
            m.d[dom] += [N.p0_skip.eq(0), N.p1_skip.eq(0), N.pf_reflect.eq(S.ctrlpf.reflect)]
            # Stella's Cosmic Ark bug: missile 0 jumps by 18, 33, 0, 17 pixels left per line
            with m.If(S.cosmic):
                nc = Signal(2)
                jump = Signal(8)
                mv = Signal(signed(10))
                m.d.comb += [nc.eq(S.cosmic_cnt + 1),
                             jump.eq(Array([Const(18, 8), Const(33, 8), Const(0, 8), Const(17, 8)])[nc]),
                             mv.eq(Cat(S.posm0, Const(0, 2)).as_signed() - jump)]
                m.d[dom] += [N.cosmic_cnt.eq(nc), N.posm0.eq(Mux(mv < 0, mv + 160, mv)),
                             N.m0_mode.eq(Mux(nc == 1, 1, Mux(nc == 2, 2, 0)))]
        # HMOVE blank ends after the 8th drawn pixel
        with m.If(clk.drawn & (S.x == 7)):
            m.d[dom] += N.hmove_blank.eq(0)

        # The delayed write when it fires, else an immediate new write (a new immediate write on
        # the very clock a delayed one fires is applied one clock later). The two sources are
        # applied by two copies of the apply logic, each fed straight from its registers (the
        # pending slot, or the bus and the write's colour-clock registers), and the priority
        # selects their results: no multiplexer between the write decode and the position
        # arithmetic (issue 16's depth).
        fire = Signal()
        m.d.comb += fire.eq(S.pend & (S.pend_cnt == 1))
        new_generic = Signal()
        m.d.comb += new_generic.eq(is_write & (waddr != TiaWrite.RESP0) & (waddr != TiaWrite.RESP1))
        with m.If(S.pend):
            m.d[dom] += N.pend_cnt.eq(S.pend_cnt - 1)
            with m.If(S.pend_cnt == 1):
                m.d[dom] += N.pend.eq(0)
        # HMOVE's new positions, computed once for whichever write applies: the motion of each
        # source from its registers, the source picked by ``fire`` alone, one add with the two
        # wrap-arounds beside it (a selected operand rather than shared adders behind the
        # write decode)
        hm_pos = []
        for pos, hm in ((S.posp0, S.hmp0), (S.posp1, S.hmp1), (S.posm0, S.hmm0), (S.posm1, S.hmm1),
                        (S.posbl, S.hmbl)):
            mv = Signal(signed(6), name="hmove_mv")
            m.d.comb += mv.eq(Mux(fire, self._hmove_mv(S.pend_hm, hm), self._hmove_mv(S.wr_hm, hm)))
            p = Signal(8, name="hmove_pos")
            m.d.comb += p.eq(self._hmove_position(pos, mv))
            hm_pos.append(p)
        with m.If(fire):
            self._apply(m, S, N, dom, S.pend_addr, S.pend_data, S.pend_hpos, S.pend_hm, S.pend_resm,
                        S.pend_since, hm_pos)
        with m.Elif(new_generic & now):
            self._apply(m, S, N, dom, waddr, bus.wdata, S.wr_hpos, S.wr_hm, S.wr_resm, S.since_hmove,
                        hm_pos)
        # delayed RESPx fires
        for i, (pos, skip) in enumerate(((N.posp0, N.p0_skip), (N.posp1, N.p1_skip))):
            with m.If(rp_valid[i]):
                m.d[dom] += n_rp_cnt[i].eq(rp_cnt[i] - 1)
                with m.If(rp_cnt[i] == 1):
                    m.d[dom] += [n_rp_valid[i].eq(0), pos.eq(rp_x[i]), skip.eq(rp_skip[i])]

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
                        m.d[dom] += [N.dump_enabled.eq(0), N.dump_disabled_cycle.eq(clk.cyc + 1)]
                    m.d[dom] += N.vblank_dump.eq(bus.wdata[7])
                with m.Case(TiaWrite.WSYNC):
                    with m.If(self.last_was_read & (S.wr_hpos != 0)):
                        m.d[dom] += N.wsync.eq(1)
                with m.Case(TiaWrite.RESP0, TiaWrite.RESP1):
                    for i, (w, pos, skip) in enumerate(((w0, N.posp0, N.p0_skip), (w1, N.posp1, N.p1_skip))):
                        with m.If(waddr[0] == i):
                            disp, dly = w
                            with m.If(disp):
                                cnt = Mux(S.wm > 11, S.wm, 11)
                                m.d[dom] += [n_rp_valid[i].eq(1), n_rp_cnt[i].eq(cnt), n_rp_x[i].eq(newx),
                                             n_rp_skip[i].eq(1)]
                                m.d[dom] += N.wm.eq(cnt - 1)
                            with m.Elif(S.wm != 0):
                                m.d[dom] += [n_rp_valid[i].eq(1), n_rp_cnt[i].eq(S.wm), n_rp_x[i].eq(newx),
                                             n_rp_skip[i].eq(~dly)]
                            with m.Else():
                                m.d[dom] += [pos.eq(newx), skip.eq(~dly)]
            with m.If((waddr != TiaWrite.RESP0) & (waddr != TiaWrite.RESP1)):
                with m.If(~now | fire):
                    m.d[dom] += [N.pend.eq(1), N.pend_addr.eq(waddr), N.pend_data.eq(bus.wdata),
                                 N.pend_hpos.eq(S.wr_hpos), N.pend_hm.eq(S.wr_hm), N.pend_resm.eq(S.wr_resm),
                                 N.pend_since.eq(S.since_hmove),
                                 N.pend_cnt.eq(Mux(eff == 0, 1, eff)),
                                 N.wm.eq(Mux(eff == 0, 0, eff - 1))]

        with m.If(S.wsync & (clk.hpos == 227)):
            m.d[dom] += N.wsync.eq(0)

        # Stella resets its cycle counter at each frame start
        with m.If(clk.frame_start):
            m.d[dom] += N.dump_disabled_cycle.eq(S.dump_disabled_cycle - clk.cyc)

    @staticmethod
    def _hmove_mv(hm_code, hm):
        """Pixels HMOVE moves an object with motion nibble ``hm`` (signed 6 bits, positive: right)
        under the rule ``hm_code`` of the write's CPU cycle (:func:`_hm_code`; as
        :func:`hmove_motion`): ``8 - min(extra, lim)`` in HBLANK, ``-max(0, extra - lim)`` late,
        with ``extra = hm ^ 8``, read from two 256-entry tables (LUTs rather than compare and
        subtract chains)."""
        lim, early, late = hm_code[0:4], hm_code[4], hm_code[5]
        ix = Cat(hm ^ 8, lim)
        return Mux(early, _HM_EARLY[ix], Mux(late, _HM_LATE[ix], 0))

    @staticmethod
    def _hmove_position(pos, mv):
        """``(pos + mv) mod 160`` for a position ``pos`` (0..159) and a motion ``mv`` (-15..8): the
        sum and both wrap-arounds added side by side (the constant on the position's side, off the
        motion's longer path), picked by their signs."""
        s, above, below = pos + mv, (pos - 160) + mv, (pos + 160) + mv
        return Mux(above >= 0, above, Mux(s < 0, below, s))

    def _apply(self, m: Module, S: _TiaState, N: _TiaState, dom: str, addr, data, hpos_w, hm_code, resm_x,
               since, hm_pos) -> None:
        """A register write taking effect (immediate or delayed): ``addr`` (A5..A0), ``data``,
        the write's colour clock ``hpos_w``, HMOVE's rule for its CPU cycle of the line ``hm_code``
        (:func:`_hm_code`), HMOVE's new positions ``hm_pos`` (P0, P1, M0, M1, BL), RESMx/RESBL
        position ``resm_x`` and CPU cycles since HMOVE ``since``."""
        with m.Switch(addr):
            with m.Case(TiaWrite.VBLANK):
                m.d[dom] += N.vblank.eq(data)
            with m.Case(TiaWrite.NUSIZ0):
                m.d[dom] += [N.nusiz0.eq(data), N.p0_skip.eq(0), N.m0_mode.eq(0)]
            with m.Case(TiaWrite.NUSIZ1):
                m.d[dom] += [N.nusiz1.eq(data), N.p1_skip.eq(0)]
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
                p = resm_x
                with m.If(addr == TiaWrite.RESM0):
                    # Stella's Dolphin case: RESM0 20 CPU cycles after HMOVE at hpos 69
                    m.d[dom] += [N.posm0.eq(Mux((since == 20) & (hpos_w == 69), 8, p)), N.m0_mode.eq(0)]
                with m.Elif(addr == TiaWrite.RESM1):
                    with m.If((since == 3) & (hpos_w == 18)):
                        m.d[dom] += N.posm1.eq(3)
                    with m.Else():
                        m.d[dom] += N.posm1.eq(p)
                with m.Else():
                    with m.If((since == 18) & ((hpos_w == 60) | (hpos_w == 69))):
                        m.d[dom] += N.posbl.eq(10)
                    with m.Elif((since == 3) & (hpos_w == 18)):
                        m.d[dom] += N.posbl.eq(3)
                    with m.Elif((since == 7) & (hpos_w == 30)):
                        m.d[dom] += N.posbl.eq(6)
                    with m.Elif((since == 6) & (hpos_w == 27)):
                        m.d[dom] += N.posbl.eq(5)
                    with m.Else():
                        m.d[dom] += N.posbl.eq(p)
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
                for (reg, posm, posp, nus, resmp) in ((TiaWrite.RESMP0, N.posm0, S.posp0, S.nusiz0, S.resmp0),
                                                      (TiaWrite.RESMP1, N.posm1, S.posp1, S.nusiz1, S.resmp1)):
                    n_resmp = N.resmp0 if reg == TiaWrite.RESMP0 else N.resmp1
                    with m.If(addr == reg):
                        with m.If(resmp & ~data[1]):
                            middle = Mux(nus.mode == 5, 8, Mux(nus.mode == 7, 16, 4))
                            s = posp + middle
                            m.d[dom] += posm.eq(Mux(s >= 160, s - 160, s))
                            if reg == TiaWrite.RESMP0:
                                m.d[dom] += N.m0_mode.eq(0)
                        m.d[dom] += n_resmp.eq(data[1])
            with m.Case(TiaWrite.HMOVE):
                with m.If(self.hmove_blanks & hm_code[4]):
                    m.d[dom] += N.hmove_blank.eq(1)
                m.d[dom] += [N.posp0.eq(hm_pos[0]), N.posp1.eq(hm_pos[1]), N.posm0.eq(hm_pos[2]),
                             N.posm1.eq(hm_pos[3]), N.posbl.eq(hm_pos[4])]
                m.d[dom] += [N.p0_skip.eq(0), N.p1_skip.eq(0), N.since_hmove.eq(1), N.cosmic.eq(0), N.m0_mode.eq(0)]
            with m.Case(TiaWrite.HMCLR):
                m.d[dom] += [N.hmp0.eq(0), N.hmp1.eq(0), N.hmm0.eq(0), N.hmm1.eq(0), N.hmbl.eq(0)]
            with m.Case(TiaWrite.CXCLR):
                m.d[dom] += N.collision.eq(0)
