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

Timing contract with :class:`hw.console.Console`: ``bus_*`` describe a completed CPU access
at the clock edge where ``bus_strobe`` is high (the last colour clock of the CPU cycle);
``hpos`` is the colour clock in the line (0..227, HBLANK is 0..67), ``line`` the scanline
of the frame; ``advance`` is high on the edges where the console moves ``hpos`` on. The TIA
keeps, beside ``hpos``, registers derived from it that would otherwise start its longest paths
(the write's colour clock ``hpos + 1 mod 228``, its CPU cycle of the line, the RESPx and RESMx
positions it gives, the pixel column ``hpos - 68``): they advance with ``advance`` and equal
the formulas at every clock (both start at ``hpos = 0`` after reset). ``cyc`` is Stella's CPU cycle count of the frame for the current cycle minus 1.
"""
from __future__ import annotations

from amaranth import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.hdl import Elaboratable

__all__ = ["Tia", "hmove_motion", "POKE_DELAY"]

#: Stella 2.4.2 write delays in colour clocks by register (-1: playfield rule).
POKE_DELAY = {0x01: 1, 0x04: 8, 0x05: 8, 0x0B: 1, 0x0C: 1, 0x0D: -1, 0x0E: -1, 0x0F: -1,
              0x12: 8, 0x13: 8, 0x1B: 1, 0x1C: 1}


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


def _copy_offsets(mode: int) -> tuple[int, ...]:
    return {0: (0,), 1: (0, 16), 2: (0, 32), 3: (0, 16, 32), 4: (0, 64), 5: (0,), 6: (0, 32, 64),
            7: (0,)}[mode]


def _hm_cap(cycle: int) -> int:
    return 15 if cycle == 75 else 15 - max(0, _ceil_div4(3 * cycle - 10))


def _hm_k(cycle: int) -> int:
    return 15 - _ceil_div4(3 * cycle - 162)


_HM_CAP = Array([Const(_hm_cap(c) if (c <= 20 or c == 75) else 0, 4) for c in range(128)])
_HM_K = Array([Const(_hm_k(c) if 54 <= c <= 74 else 15, 4) for c in range(128)])


class Tia(Elaboratable):
    """TIA registers, object drawing, collisions and reads (see the module docstring).

    Inputs: bus_strobe, bus_write, bus_addr[6] (write: A5..A0; read: A3..A0 used),
    bus_wdata[8], bus_last[8] (data bus before this access), hpos[8], line_drawn
    (this clock is in the drawn window), advance (hpos moves on at this edge), cyc[32],
    cycles_since_reset... and the frame controls ``frame_start`` (one clock: the new
    frame begins; Stella's cycle counter is reset). Configuration: pal, hmove_blanks.
    Controllers: inpt4, inpt5 (1 = button up), paddle_needed[4] (16 bits, CPU cycles),
    paddle_mode[4] (0 timing rule, 1 always charged, 2 never charged).
    Outputs: rdata[8] (read data of a TIA read at this cycle), pixel[8] (palette index of
    the current colour clock, valid when line_drawn and hpos >= 68), wsync (CPU must wait
    for the start of the next line), frame_end (pulse at the write that ends the frame),
    vsync_bit.
    """

    def __init__(self):
        self.bus_strobe = Signal()
        self.cycle_end = Signal()       # last colour clock of every CPU cycle (held ones too)
        self.bus_write = Signal()
        self.bus_addr = Signal(6)
        self.bus_wdata = Signal(8)
        self.bus_last = Signal(8)
        self.last_was_read = Signal()
        self.hpos = Signal(8)
        self.advance = Signal()         # hpos moves on at this edge (the console is counting)
        self.drawn = Signal()           # this colour clock is a drawn pixel (window, hpos>=68)
        self.line_end_drawn = Signal()  # last clock of a drawn scanline
        self.cyc = Signal(32)
        self.frame_start = Signal()
        self.line = Signal(16)          # scanline of the frame at this clock
        self.pal = Signal()
        self.hmove_blanks = Signal()
        self.inpt4 = Signal(init=1)
        self.inpt5 = Signal(init=1)
        self.paddle_needed = Array(Signal(32, name=f"paddle_needed{i}") for i in range(4))
        self.paddle_mode = Array(Signal(2, name=f"paddle_mode{i}", init=2) for i in range(4))
        self.odd_last_frame = Signal()

        self.rdata = Signal(8)
        self.pixel = Signal(8)
        self.wsync = Signal()
        self.frame_end = Signal()
        self.collision = Signal(15)
        # registers visible for debugging
        self.posp0 = Signal(8)
        self.posp1 = Signal(8)
        self.posm0 = Signal(8)
        self.posm1 = Signal(8)
        self.posbl = Signal(8)

    def elaborate(self, platform):
        m = Module()

        vblank = Signal(8)
        vblank_dump = Signal()   # VBLANK bit 7 as of the last write (not delayed)
        dump_enabled = Signal()
        dump_disabled_cycle = Signal(32)
        nusiz0 = Signal(8)
        nusiz1 = Signal(8)
        colup0 = Signal(7)
        colup1 = Signal(7)
        colupf = Signal(7)
        colubk = Signal(7)
        ctrlpf = Signal(8)
        refp0 = Signal()
        refp1 = Signal()
        pf = Signal(20)
        grp0 = Signal(8)
        grp1 = Signal(8)
        dgrp0 = Signal(8)
        dgrp1 = Signal(8)
        enam0 = Signal()
        enam1 = Signal()
        enabl = Signal()
        denabl = Signal()
        hmp0 = Signal(4)
        hmp1 = Signal(4)
        hmm0 = Signal(4)
        hmm1 = Signal(4)
        hmbl = Signal(4)
        vdelp0 = Signal()
        vdelp1 = Signal()
        vdelbl = Signal()
        resmp0 = Signal()
        resmp1 = Signal()
        collision = self.collision
        posp0, posp1, posm0, posm1, posbl = self.posp0, self.posp1, self.posm0, self.posm1, self.posbl
        p0_skip = Signal()
        p1_skip = Signal()
        pf_reflect = Signal()
        hmove_blank = Signal()
        since_hmove = Signal(8, init=255)   # CPU cycles since the last HMOVE (saturating)
        vsync_armed = Signal()
        cosmic = Signal()          # Stella's "Cosmic Ark" missile-0 motion bug enabled
        cosmic_cnt = Signal(2)
        m0_mode = Signal(2)        # missile-0 mask: 0 normal, 1 at least 2 wide, 2 off (the bug)
        vsync_count = Signal(8)              # CPU cycles since VSYNC was set (saturating)

        # ---------------------------------------------------------------- drawing
        def reflect8(v):
            return Cat(*[v[7 - i] for i in range(8)])

        g0 = Mux(vdelp0, dgrp0, grp0)
        g1 = Mux(vdelp1, dgrp1, grp1)
        cur_grp0 = Mux(refp0, reflect8(g0), g0)
        cur_grp1 = Mux(refp1, reflect8(g1), g1)
        ball_en = Mux(vdelbl, denabl, enabl)
        m0_en = enam0 & ~resmp0
        m1_en = enam1 & ~resmp1

        # the pixel column hpos - 68 (mod 256) as a register beside hpos: no subtract in front of
        # the five object distances
        x = Signal(8, init=(0 - 68) % 256)
        with m.If(self.advance):
            m.d.sync += x.eq(Mux(self.hpos == 227, (0 - 68) % 256, x + 1))

        def dist(pos):
            d = Signal(8)
            diff = Signal(signed(10))
            m.d.comb += diff.eq(x.as_signed() - pos.as_signed() if False else
                                Cat(x, Const(0, 2)).as_signed() - Cat(pos, Const(0, 2)).as_signed())
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
            m.d.comb += size.eq(nusiz[4:6] | widen)
            width = Signal(6)
            m.d.comb += width.eq(Const(1, 6) << size)
            hit = Signal()
            with m.Switch(nusiz[0:3]):
                for mo in range(8):
                    with m.Case(mo):
                        conds = [(d >= off) & (d < off + width) for off in _copy_offsets(mo)]
                        h = conds[0]
                        for c in conds[1:]:
                            h = h | c
                        m.d.comb += hit.eq(h)
            return hit & en & ~off

        def ball_bit():
            d = dist(posbl)
            width = Signal(6)
            m.d.comb += width.eq(Const(1, 6) << ctrlpf[4:6])
            return (d < width) & ball_en

        p0 = player_bit(posp0, nusiz0[0:3], p0_skip, cur_grp0)
        p1 = player_bit(posp1, nusiz1[0:3], p1_skip, cur_grp1)
        m0 = missile_bit(posm0, nusiz0, m0_en, widen=(m0_mode == 1), off=(m0_mode == 2))
        m1 = missile_bit(posm1, nusiz1, m1_en)
        bl = ball_bit()

        # playfield bit for this pixel
        k = Signal(6)
        kk = Signal(5)
        pfidx = Signal(5)
        m.d.comb += k.eq(x >> 2)
        m.d.comb += kk.eq(Mux(k < 20, k, Mux(pf_reflect, 39 - k, k - 20)))
        m.d.comb += pfidx.eq(Mux((kk < 4) | (kk >= 12), kk, 15 - kk))
        pfb = Signal()
        m.d.comb += pfb.eq(pf.bit_select(pfidx, 1))

        score = ctrlpf[1]
        prio = ctrlpf[2]
        left = x < 80
        only_pf = (pf != 0) & (cur_grp0 == 0) & (cur_grp1 == 0) & ~m0_en & ~m1_en & ~ball_en
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
        colreg = Array([colubk, colupf, colup0, colup1])[color]
        loss = self.pal & self.odd_last_frame
        blanked = vblank[1] | (hmove_blank & (x < 8))
        m.d.comb += self.pixel.eq(Mux(blanked, 0, Cat(loss, colreg)))

        coll_now = Signal(15)
        m.d.comb += coll_now.eq(Cat(
            m0 & p1, m0 & p0, m1 & p0, m1 & p1,
            p0 & pfb, p0 & bl, p1 & pfb, p1 & bl,
            m0 & pfb, m0 & bl, m1 & pfb, m1 & bl,
            bl & pfb, p0 & p1, m0 & m1))
        coll_vis = Signal(15)
        m.d.comb += coll_vis.eq(Mux(self.drawn & ~vblank[1], coll_now, 0))

        # ---------------------------------------------------------------- reads
        c = collision | coll_vis
        noise = self.bus_last[0:6]
        rd = Signal(2)
        with m.Switch(self.bus_addr[0:4]):
            for i in range(8):
                with m.Case(i):
                    if i < 6:
                        hi = (c[2 * i], c[2 * i + 1])
                    elif i == 6:
                        hi = (c[12], Const(0, 1))
                    else:
                        hi = (c[13], c[14])
                    m.d.comb += rd.eq(Cat(hi[1], hi[0]))
            for i in range(4):
                with m.Case(8 + i):
                    mode = self.paddle_mode[i]
                    charged = Signal()
                    m.d.comb += charged.eq(
                        (mode == 1) | ((mode == 0) & ~dump_enabled &
                                       ((self.cyc + 1) > (dump_disabled_cycle + self.paddle_needed[i])[0:32])))
                    m.d.comb += rd.eq(Cat(Const(0, 1), charged))
            with m.Case(12):
                m.d.comb += rd.eq(Cat(Const(0, 1), self.inpt4))
            with m.Case(13):
                m.d.comb += rd.eq(Cat(Const(0, 1), self.inpt5))
        m.d.comb += self.rdata.eq(Cat(noise, rd))

        # ---------------------------------------------------------------- writes
        # Stella's colour clock of the write (end of the CPU cycle) in the line
        # kept as registers beside the console's hpos (hpos + 1 mod 228, its CPU cycle of the line
        # and the RESMx position it gives), so that no write path starts with an add, a divide by
        # 3 or a wrap from hpos (the console's critical path before)
        wr_hpos = Signal(8, init=1)
        wr_phase = Signal(2, init=1)     # wr_hpos mod 3
        wr_cycle = Signal(7)             # wr_hpos // 3
        wr_resm = Signal(8, init=2)      # RESMx/RESBL position for a write at wr_hpos
        wr_resp = Signal(8, init=3)      # RESPx position for a write at wr_hpos
        nxt_hpos = Signal(8)
        m.d.comb += nxt_hpos.eq(Mux(wr_hpos == 227, 0, wr_hpos + 1))
        with m.If(self.advance):
            m.d.sync += [
                wr_hpos.eq(nxt_hpos),
                wr_phase.eq(Mux((wr_hpos == 227) | (wr_phase == 2), 0, wr_phase + 1)),
                wr_cycle.eq(Mux(wr_hpos == 227, 0, Mux(wr_phase == 2, wr_cycle + 1, wr_cycle))),
                wr_resm.eq(Mux(nxt_hpos < 68, 2, Mux(nxt_hpos - 68 + 4 >= 160, nxt_hpos - 68 + 4 - 160,
                                                     nxt_hpos - 68 + 4))),
                wr_resp.eq(Mux(nxt_hpos < 68, 3, Mux(nxt_hpos - 68 + 5 >= 160, nxt_hpos - 68 + 5 - 160,
                                                     nxt_hpos - 68 + 5))),
            ]
        is_write = self.bus_strobe & self.bus_write
        waddr = self.bus_addr

        # pending (delayed) generic write
        pend = Signal()
        pend_addr = Signal(6)
        pend_data = Signal(8)
        pend_hpos = Signal(8)
        pend_cycle = Signal(7)
        pend_resm = Signal(8)
        pend_cnt = Signal(4)
        pend_since = Signal(8)   # CPU cycles since HMOVE at the write (Stella's RESMx/RESBL cases)
        wm = Signal(4)           # clocks Stella has already drawn ahead of now
        # pending RESPx during a drawn copy (+11)
        rp_valid = [Signal(name="rp0_valid"), Signal(name="rp1_valid")]
        rp_cnt = [Signal(4, name="rp0_cnt"), Signal(4, name="rp1_cnt")]
        rp_x = [Signal(8, name="rp0_x"), Signal(8, name="rp1_x")]
        rp_skip = [Signal(name="rp0_skip"), Signal(name="rp1_skip")]

        m.d.sync += wm.eq(Mux(wm != 0, wm - 1, 0))
        with m.If(self.cycle_end & (since_hmove != 255)):
            m.d.sync += since_hmove.eq(since_hmove + 1)
        with m.If(self.cycle_end & (vsync_count != 255)):
            m.d.sync += vsync_count.eq(vsync_count + 1)

        # delay of this write
        pf_d = Array([Const(4, 4), Const(5, 4), Const(2, 4), Const(3, 4)])[wr_cycle[0:2]]
        delay = Signal(4)
        with m.Switch(waddr):
            for a, dl in POKE_DELAY.items():
                with m.Case(a):
                    m.d.comb += delay.eq(pf_d if dl < 0 else dl)
        eff = Signal(4)
        m.d.comb += eff.eq(Mux(wm > delay, wm, delay))

        # RESPx: when-condition at the write
        newx = Signal(8)
        m.d.comb += newx.eq(wr_resp)

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

        w0 = when_of(posp0, nusiz0[0:3])
        w1 = when_of(posp1, nusiz1[0:3])

        frame_end = self.frame_end
        maxlines = Mux(self.pal, 342, 290)
        line_at_write = Signal(16)
        m.d.comb += line_at_write.eq(self.line + (self.hpos == 227))

        # the apply logic, shared by immediate and delayed writes
        def apply(addr, data, hpos_w, cyc_w, resm_x, since):
            with m.Switch(addr):
                with m.Case(0x01):
                    m.d.sync += vblank.eq(data)
                with m.Case(0x04):
                    m.d.sync += [nusiz0.eq(data), p0_skip.eq(0), m0_mode.eq(0)]
                with m.Case(0x05):
                    m.d.sync += [nusiz1.eq(data), p1_skip.eq(0)]
                with m.Case(0x06):
                    m.d.sync += colup0.eq(data[1:8])
                with m.Case(0x07):
                    m.d.sync += colup1.eq(data[1:8])
                with m.Case(0x08):
                    m.d.sync += colupf.eq(data[1:8])
                with m.Case(0x09):
                    m.d.sync += colubk.eq(data[1:8])
                with m.Case(0x0A):
                    m.d.sync += ctrlpf.eq(data)
                    with m.If(hpos_w < 68 + 79):
                        m.d.sync += pf_reflect.eq(data[0])
                with m.Case(0x0B):
                    m.d.sync += refp0.eq(data[3])
                with m.Case(0x0C):
                    m.d.sync += refp1.eq(data[3])
                with m.Case(0x0D):
                    m.d.sync += pf[0:4].eq(data[4:8])
                with m.Case(0x0E):
                    m.d.sync += pf[4:12].eq(data)
                with m.Case(0x0F):
                    m.d.sync += pf[12:20].eq(data)
                with m.Case(0x12, 0x13, 0x14):
                    p = resm_x
                    with m.If(addr == 0x12):
                        # Stella's Dolphin case: RESM0 20 CPU cycles after HMOVE at hpos 69
                        m.d.sync += [posm0.eq(Mux((since == 20) & (hpos_w == 69), 8, p)), m0_mode.eq(0)]
                    with m.Elif(addr == 0x13):
                        with m.If((since == 3) & (hpos_w == 18)):
                            m.d.sync += posm1.eq(3)
                        with m.Else():
                            m.d.sync += posm1.eq(p)
                    with m.Else():
                        with m.If((since == 18) & ((hpos_w == 60) | (hpos_w == 69))):
                            m.d.sync += posbl.eq(10)
                        with m.Elif((since == 3) & (hpos_w == 18)):
                            m.d.sync += posbl.eq(3)
                        with m.Elif((since == 7) & (hpos_w == 30)):
                            m.d.sync += posbl.eq(6)
                        with m.Elif((since == 6) & (hpos_w == 27)):
                            m.d.sync += posbl.eq(5)
                        with m.Else():
                            m.d.sync += posbl.eq(p)
                with m.Case(0x1B):
                    m.d.sync += [grp0.eq(data), dgrp1.eq(grp1)]
                with m.Case(0x1C):
                    m.d.sync += [grp1.eq(data), dgrp0.eq(grp0), denabl.eq(enabl)]
                with m.Case(0x1D):
                    m.d.sync += enam0.eq(data[1])
                with m.Case(0x1E):
                    m.d.sync += enam1.eq(data[1])
                with m.Case(0x1F):
                    m.d.sync += enabl.eq(data[1])
                with m.Case(0x20):
                    m.d.sync += hmp0.eq(data[4:8])
                with m.Case(0x21):
                    m.d.sync += hmp1.eq(data[4:8])
                with m.Case(0x22):
                    m.d.sync += hmm0.eq(data[4:8])
                    with m.If((since == 21) & (hmm0 == 7) & (data[4:8] == 6)):
                        m.d.sync += [cosmic.eq(1), cosmic_cnt.eq(0)]
                with m.Case(0x23):
                    m.d.sync += hmm1.eq(data[4:8])
                with m.Case(0x24):
                    m.d.sync += hmbl.eq(data[4:8])
                with m.Case(0x25):
                    m.d.sync += vdelp0.eq(data[0])
                with m.Case(0x26):
                    m.d.sync += vdelp1.eq(data[0])
                with m.Case(0x27):
                    m.d.sync += vdelbl.eq(data[0])
                with m.Case(0x28, 0x29):
                    for (reg, posm, posp, nus) in ((0x28, posm0, posp0, nusiz0), (0x29, posm1, posp1, nusiz1)):
                        resmp = resmp0 if reg == 0x28 else resmp1
                        with m.If(addr == reg):
                            with m.If(resmp & ~data[1]):
                                middle = Mux(nus[0:3] == 5, 8, Mux(nus[0:3] == 7, 16, 4))
                                s = posp + middle
                                m.d.sync += posm.eq(Mux(s >= 160, s - 160, s))
                                if reg == 0x28:
                                    m.d.sync += m0_mode.eq(0)
                            m.d.sync += resmp.eq(data[1])
                with m.Case(0x2A):
                    with m.If(self.hmove_blanks & ((cyc_w <= 20) | (cyc_w == 75))):
                        m.d.sync += hmove_blank.eq(1)
                    for pos, hm in ((posp0, hmp0), (posp1, hmp1), (posm0, hmm0), (posm1, hmm1), (posbl, hmbl)):
                        mv = Signal(signed(6), name="hmove_mv")
                        extra = hm ^ 8
                        with m.If((cyc_w <= 20) | (cyc_w == 75)):
                            cap = _HM_CAP[cyc_w]
                            m.d.comb += mv.eq(8 - Mux(extra < cap, extra, cap))
                        with m.Elif(cyc_w >= 54):
                            kk_ = _HM_K[cyc_w]
                            m.d.comb += mv.eq(-Mux(extra > kk_, extra - kk_, 0))
                        s = Signal(signed(10), name="hmove_sum")
                        m.d.comb += s.eq(Cat(pos, Const(0, 2)).as_signed() + mv)
                        m.d.sync += pos.eq(Mux(s >= 160, s - 160, Mux(s < 0, s + 160, s)))
                    m.d.sync += [p0_skip.eq(0), p1_skip.eq(0), since_hmove.eq(1), cosmic.eq(0), m0_mode.eq(0)]
                with m.Case(0x2B):
                    m.d.sync += [hmp0.eq(0), hmp1.eq(0), hmm0.eq(0), hmm1.eq(0), hmbl.eq(0)]

        # collisions accumulate every drawn clock (CXCLR applied below wins)
        m.d.sync += collision.eq(collision | coll_vis)

        # end of a drawn line: Stella resets the first-copy skip and the PF reflection
        with m.If(self.line_end_drawn):
            m.d.sync += [p0_skip.eq(0), p1_skip.eq(0), pf_reflect.eq(ctrlpf[0])]
            # Stella's Cosmic Ark bug: missile 0 jumps by 18, 33, 0, 17 pixels left per line
            with m.If(cosmic):
                nc = Signal(2)
                jump = Signal(8)
                mv = Signal(signed(10))
                m.d.comb += [nc.eq(cosmic_cnt + 1),
                             jump.eq(Array([Const(18, 8), Const(33, 8), Const(0, 8), Const(17, 8)])[nc]),
                             mv.eq(Cat(posm0, Const(0, 2)).as_signed() - jump)]
                m.d.sync += [cosmic_cnt.eq(nc), posm0.eq(Mux(mv < 0, mv + 160, mv)),
                             m0_mode.eq(Mux(nc == 1, 1, Mux(nc == 2, 2, 0)))]
        # HMOVE blank ends after the 8th drawn pixel
        with m.If(self.drawn & (x == 7)):
            m.d.sync += hmove_blank.eq(0)

        # One apply path: the delayed write when it fires, else an immediate new write (a new
        # immediate write on the very clock a delayed one fires is applied one clock later).
        fire = Signal()
        m.d.comb += fire.eq(pend & (pend_cnt == 1))
        new_generic = Signal()
        m.d.comb += new_generic.eq(is_write & (waddr != 0x10) & (waddr != 0x11))
        ap_en = Signal()
        ap_addr = Signal(6)
        ap_data = Signal(8)
        ap_hpos = Signal(8)
        ap_cycle = Signal(7)
        ap_resm = Signal(8)
        ap_since = Signal(8)
        with m.If(fire):
            m.d.comb += [ap_en.eq(1), ap_addr.eq(pend_addr), ap_data.eq(pend_data), ap_hpos.eq(pend_hpos), ap_cycle.eq(pend_cycle), ap_resm.eq(pend_resm),
                         ap_since.eq(pend_since)]
        with m.Elif(new_generic & (eff == 0)):
            m.d.comb += [ap_en.eq(1), ap_addr.eq(waddr), ap_data.eq(self.bus_wdata), ap_hpos.eq(wr_hpos), ap_cycle.eq(wr_cycle), ap_resm.eq(wr_resm),
                         ap_since.eq(since_hmove)]
        with m.If(pend):
            m.d.sync += pend_cnt.eq(pend_cnt - 1)
            with m.If(pend_cnt == 1):
                m.d.sync += pend.eq(0)
        with m.If(ap_en):
            apply(ap_addr, ap_data, ap_hpos, ap_cycle, ap_resm, ap_since)
            with m.If(ap_addr == 0x2C):
                m.d.sync += collision.eq(0)
        # delayed RESPx fires
        for i, (pos, skip) in enumerate(((posp0, p0_skip), (posp1, p1_skip))):
            with m.If(rp_valid[i]):
                m.d.sync += rp_cnt[i].eq(rp_cnt[i] - 1)
                with m.If(rp_cnt[i] == 1):
                    m.d.sync += [rp_valid[i].eq(0), pos.eq(rp_x[i]), skip.eq(rp_skip[i])]

        # a new write at this edge
        with m.If(is_write):
            with m.If(line_at_write > maxlines):
                m.d.comb += frame_end.eq(1)
            with m.Switch(waddr):
                with m.Case(0x00):
                    with m.If(self.bus_wdata[1]):
                        m.d.sync += [vsync_armed.eq(1), vsync_count.eq(1)]
                    with m.Elif(vsync_armed & (vsync_count >= 76)):
                        m.d.sync += vsync_armed.eq(0)
                        m.d.comb += frame_end.eq(1)
                with m.Case(0x01):
                    with m.If(~vblank_dump & self.bus_wdata[7]):
                        m.d.sync += dump_enabled.eq(1)
                    with m.If(vblank_dump & ~self.bus_wdata[7]):
                        m.d.sync += [dump_enabled.eq(0), dump_disabled_cycle.eq(self.cyc + 1)]
                    m.d.sync += vblank_dump.eq(self.bus_wdata[7])
                with m.Case(0x02):
                    with m.If(self.last_was_read & (wr_hpos != 0)):
                        m.d.sync += self.wsync.eq(1)
                with m.Case(0x10, 0x11):
                    for i, (w, pos, skip) in enumerate(((w0, posp0, p0_skip), (w1, posp1, p1_skip))):
                        with m.If(waddr[0] == i):
                            disp, dly = w
                            with m.If(disp):
                                cnt = Mux(wm > 11, wm, 11)
                                m.d.sync += [rp_valid[i].eq(1), rp_cnt[i].eq(cnt), rp_x[i].eq(newx),
                                             rp_skip[i].eq(1)]
                                m.d.sync += wm.eq(cnt - 1)
                            with m.Elif(wm != 0):
                                m.d.sync += [rp_valid[i].eq(1), rp_cnt[i].eq(wm), rp_x[i].eq(newx),
                                             rp_skip[i].eq(~dly)]
                            with m.Else():
                                m.d.sync += [pos.eq(newx), skip.eq(~dly)]
            with m.If((waddr != 0x10) & (waddr != 0x11)):
                with m.If((eff != 0) | fire):
                    m.d.sync += [pend.eq(1), pend_addr.eq(waddr), pend_data.eq(self.bus_wdata),
                                 pend_hpos.eq(wr_hpos), pend_cycle.eq(wr_cycle), pend_resm.eq(wr_resm),
                                 pend_since.eq(since_hmove),
                                 pend_cnt.eq(Mux(eff == 0, 1, eff)),
                                 wm.eq(Mux(eff == 0, 0, eff - 1))]

        with m.If(self.wsync & (self.hpos == 227)):
            m.d.sync += self.wsync.eq(0)

        # Stella resets its cycle counter at each frame start
        with m.If(self.frame_start):
            m.d.sync += dump_disabled_cycle.eq(dump_disabled_cycle - self.cyc)
        return m
