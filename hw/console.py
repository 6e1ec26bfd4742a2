"""The Atari 2600 console top: 6507 CPU, TIA, RIOT and cartridge, one colour clock per clock
(default) or three (``Console(colour_clocks_per_cycle=3)``: one CPU cycle per clock, the TIA's
single colour-clock step applied three times in a chain, ``rtl/console3.v``; same results).

:class:`Console` ties :class:`hw.cpu6507.Cpu6507` (one CPU cycle every third clock, RDY
from the TIA's WSYNC), :class:`hw.tia.Tia`, :class:`hw.riot.Riot` and :class:`hw.cart.Cart`
together with the 2600's address decode (13 address bits: A12 cartridge, else A7 = 0 TIA,
else A9 = 0 RIOT RAM, else RIOT I/O) and the frame bookkeeping of ALE 0.12 (Stella 2.4.2):

* Timing (one colour clock per clock; issue 16): a CPU cycle is colour clocks 0, 1, 2 and its
  access completes at the end of clock 2 (the strobe: writes, bank switching, timer side
  effects, Stella's colour clock of the write). The CPU runs one clock behind that grid: its
  cycle edge (``ce``) is at the end of the next cycle's clock 0, with the RDY of clock 2 and
  the read data formed in clock 0 from what was registered at the strobe's edge (TIA
  collision and input latches, the RIOT's value, the cartridge's byte source and DPC flag) and
  the ROM's synchronous read addressed in clock 2. Its bus outputs (address, read/write, data
  out, dummy mark) are registered every clock and so valid from clock 2 to the next clock 0:
  decode, the TIA/RIOT/cartridge accesses and the read multiplexer start from these
  registers. Whether a cycle is an opcode fetch is decided at the previous cycle's clock 2
  from the CPU's registers (``fetch_next``), so ``insn_start``/``at_boundary`` stay at clock
  0 of the fetch; ``pc`` there is the CPU's program counter after its coming edge.
* Only the accesses ALE's CPU performs take effect: cycles the CPU marks ``dummy`` and
  read cycles held by RDY touch nothing (no bank switch, no timer side effect).
* The CPU's reset vector reads do not count: the colour-clock grid (``hpos``), Stella's
  cycle counter (``cyc``) and the frame's scanline count start at the first opcode fetch,
  as ``System::reset`` starts them at 0.
* Frames: the TIA raises ``frame_end`` (VSYNC cleared 228+ clocks after set, or a TIA
  write past 290/342 scanlines); the console then reports ``at_boundary`` at the next
  instruction boundary the CPU will really execute (after any WSYNC wait), where the host
  stops. The next frame begins when the host pulses ``start_frame`` there: the current
  scanline becomes line 0 of the new frame and the cycle counter restarts (Stella's
  ``startFrame``/``resetCycles``).
* Drawn window: scanlines ``ystart .. ystart + height - 1`` of the frame, colour clocks
  68..227; ``pixel`` is the palette index of the current clock when ``drawn``.
  ``tia_touch`` marks a completed TIA access (Stella draws lazily, up to the current clock,
  only at TIA accesses: the harness uses it for frames cut short by the instruction limit).

Configuration inputs (set before reset): ``mapper`` (:data:`hw.cart.MAPPER_CODES`),
``pal``, ``hmove_blanks``, ``ystart``, ``height``, ``timer_init`` (ALE's RNG draw for the
RIOT timer). Controllers: ``swcha``, ``swchb``, ``inpt4``, ``inpt5``,
``paddle{i}_needed`` (CPU cycles for the paddle capacitor), ``paddle{i}_mode``.
Host port: ``host_we_rom``/``host_we_ram``/``host_we_riot``, ``host_addr``,
``host_wdata``; ``host_riot_rdata``/``host_cart_rdata`` read RAM combinationally.

Pixel stream (``pixels``, :data:`PixelStreamSignature`, one beat per colour clock; what the
preprocessor consumes with ``wiring.connect``): ``pixel`` the palette index of this colour
clock, ``visible`` = ``drawn`` (inside ALE's screen window), ``line_end`` (colour clock 227 of a
drawn scanline), ``frame_end`` (strobe in the clock that starts the next frame, i.e. ALE's frame
boundary: ``start_frame``). Whoever pauses the console's clock must do so at a frame boundary,
where ``visible`` and ``line_end`` are low (the beam is past the window).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hw import reproducible
from hw.cart import MAPPER_CODES, Cart
from hw.cpu6507 import Cpu6507
from hw.riot import Riot
from hw.tia import Tia

__all__ = ["Console", "PixelStreamSignature", "PixelStream3Signature", "SUPPORTED", "generate"]

#: Mappers the console implements (see :mod:`hw.cart`).
SUPPORTED = tuple(MAPPER_CODES)

#: The console -> preprocessor stream, one beat per colour clock (producer: the console).
PixelStreamSignature = wiring.Signature({
    "pixel": Out(8),        # palette index of this colour clock (ALE getScreen value)
    "visible": Out(1),      # pixel inside ALE's screen window (rows YStart..YStart+H-1, clocks 68..227)
    "line_end": Out(1),     # strobe: last colour clock (227) of a drawn scanline
    "frame_end": Out(1),    # strobe: ALE's frame boundary (the clock that starts the next frame)
})


#: The console's ports for one colour clock per cycle (see the module docstring), in order.
_PORTS = {
    "mapper": In(4),
    "pal": In(1),
    "hmove_blanks": In(1),
    "ystart": In(9),
    "height": In(9),
    "timer_init": In(8),
    "swcha": In(8),
    "swchb": In(8),
    "inpt4": In(1),
    "inpt5": In(1),
    "paddle0_needed": In(32),
    "paddle1_needed": In(32),
    "paddle2_needed": In(32),
    "paddle3_needed": In(32),
    "paddle0_mode": In(2),
    "paddle1_mode": In(2),
    "paddle2_mode": In(2),
    "paddle3_mode": In(2),
    "start_frame": In(1),
    "host_we_rom": In(1),
    "host_we_ram": In(1),
    "host_we_riot": In(1),
    "host_addr": In(14),
    "host_wdata": In(8),
    "host_riot_rdata": Out(8),
    "host_cart_rdata": Out(8),
    "pixel": Out(8),
    "drawn": Out(1),
    "pixel_x": Out(8),
    "row": Out(9),
    "hpos": Out(8),
    "line": Out(16),
    "cyc": Out(32),
    "at_boundary": Out(1),
    "insn_start": Out(1),
    "frame_pending": Out(1),
    "tia_touch": Out(1),
    "jammed": Out(1),
    "pc": Out(16),
    "bank": Out(2),
    "pixels": Out(PixelStreamSignature),
}

#: The console -> preprocessor stream of the three-colour-clock console, one beat per CPU cycle
#: (producer: the console): element/bit ``k`` is colour clock ``k`` of the cycle.
PixelStream3Signature = wiring.Signature({
    "pixel": Out(data.ArrayLayout(8, 3)),   # palette indices of the cycle's three colour clocks
    "visible": Out(3),      # bit k: colour clock k is inside ALE's screen window
    "line_end": Out(1),     # strobe: the cycle ends a drawn scanline (its colour clock 2 is 227)
    "frame_end": Out(1),    # strobe: ALE's frame boundary (the cycle that starts the next frame)
})



def chip_selects(a):
    """The 2600's chip selects from the 13-bit address ``a``: (cartridge, TIA, RIOT RAM, RIOT I/O
    and timer), each a 1-bit Amaranth value. A12 selects the cartridge; below it A7 = 0 is the
    TIA, A7 = 1 the RIOT, whose A9 picks RAM (0) or I/O and timer (1) (Stella 2.4.2's
    ``System``/``M6532`` mapping; 6532 data sheet chip-select pins)."""
    return a[12], ~a[12] & ~a[7], ~a[12] & a[7] & ~a[9], ~a[12] & a[7] & a[9]

class Console(wiring.Component):
    """The whole console (see the module docstring for the ports' meaning).

    Args:
        colour_clocks_per_cycle: 1 (one colour clock per clock, the CPU steps every third
            clock) or 3 (one CPU cycle per clock: the TIA's colour-clock step applied three
            times per clock, :class:`hw.tia.Tia`; the cartridge ROM read combinationally;
            ``pixels`` is :data:`PixelStream3Signature`, ``pixel``/``drawn``/``pixel_x``/``hpos``
            describe colour clock 0 of the cycle).

    Raises:
        ValueError: ``colour_clocks_per_cycle`` is not 1 or 3.
    """

    def __init__(self, colour_clocks_per_cycle: int = 1):
        if colour_clocks_per_cycle not in (1, 3):
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise ValueError(f"colour_clocks_per_cycle must be 1 or 3, not {colour_clocks_per_cycle!r}")
        self.colour_clocks_per_cycle = colour_clocks_per_cycle
        ports = dict(_PORTS)
        if colour_clocks_per_cycle == 3:
            ports["pixels"] = Out(PixelStream3Signature)
        super().__init__(wiring.Signature(ports))

    def elaborate(self, platform):
        if self.colour_clocks_per_cycle == 3:
            return self._elaborate_three(platform)
        m = Module()
        m.submodules.cpu = cpu = Cpu6507(clocks_per_cycle=3)
        m.submodules.tia = tia = Tia()
        m.submodules.riot = riot = Riot(read_clocks=3)
        m.submodules.cart = cart = Cart()

        ph = Signal(2)
        m.d.sync += ph.eq(Mux(ph == 2, 0, ph + 1))
        started = Signal()
        counting = Signal()

        rdy = ~tia.wsync
        # The CPU runs one colour clock behind the console's cycle grid: its cycle ends (ce) at the
        # first clock of the next CPU cycle, with the RDY of the cycle's last clock (rdy_seen) and the
        # read data of the access that completed at that clock's edge (formed in the clock after it
        # from registers and the ROM's synchronous read: din below). So no path runs from the
        # TIA's drawing, the RIOT timer or the memories' address logic into the CPU's registers.
        primed = Signal()          # a cycle has ended since reset (the CPU's first edge follows it)
        rdy_seen = Signal(init=1)
        m.d.sync += rdy_seen.eq(rdy)
        with m.If(ph == 2):
            m.d.sync += primed.eq(1)
        m.d.comb += [cpu.ce.eq((ph == 0) & primed), cpu.rdy.eq(rdy_seen)]

        # The CPU's bus outputs depend on its registers only and hold from the second clock of a
        # cycle to the first clock of the next (hw.cpu6507's timing contract with ce every third
        # clock). Registered here every clock they are valid from the cycle's third colour clock
        # on, where the access takes effect (the strobe), and still in the next cycle's first
        # clock, where the read data is formed: the address decode, the TIA/RIOT/cartridge
        # accesses and the read multiplexer start from these registers (the console's Fmax).
        bus_addr = Signal(14)
        bus_rw = Signal(init=1)
        bus_dout = Signal(8)
        bus_dummy = Signal()
        m.d.sync += [bus_addr.eq(cpu.addr[0:14]), bus_rw.eq(cpu.rw), bus_dout.eq(cpu.dout),
                     bus_dummy.eq(cpu.dummy)]
        # this CPU cycle is an opcode fetch: decided at the previous cycle's last clock from the CPU's
        # registers (its next state; the same state when RDY holds a read), valid for the whole cycle
        # (fetch_next depends on registers the CPU sets at its edge, the first clock of a cycle:
        # registered once more at the second)
        cycle_sync = Signal()
        fetch_next = Signal()
        m.d.sync += fetch_next.eq(cpu.fetch_next)
        with m.If(ph == 2):
            m.d.sync += cycle_sync.eq(Mux(cpu.rw & ~rdy, cpu.sync, fetch_next))
        m.d.comb += counting.eq(started | cycle_sync)
        with m.If(cycle_sync):
            m.d.sync += started.eq(1)

        cycle_end = Signal()
        strobe = Signal()
        m.d.comb += cycle_end.eq((ph == 2) & counting)
        m.d.comb += strobe.eq(cycle_end & ~bus_dummy & (~bus_rw | rdy))

        hpos = Signal(8)
        line = Signal(16)
        frame_line = Signal(16)
        cyc = Signal(32)
        m.d.comb += line.eq(Mux(self.start_frame, 0, frame_line))
        with m.If(counting):
            m.d.sync += hpos.eq(Mux(hpos == 227, 0, hpos + 1))
            with m.If((hpos == 227) & (frame_line != 0xFFFF)):
                m.d.sync += frame_line.eq(line + 1)
        with m.If(cycle_end):
            m.d.sync += cyc.eq(cyc + 1)
        with m.If(self.start_frame):
            m.d.sync += cyc.eq(0)
            with m.If(~((hpos == 227) & counting)):
                m.d.sync += frame_line.eq(0)

        a = bus_addr[0:13]
        sel_cart, sel_tia, sel_ram, sel_io = chip_selects(a)
        last_bus = Signal(8)
        last_was_read = Signal()
        odd_last = Signal()

        in_window = (line >= self.ystart) & (line < self.ystart + self.height)
        drawn = Signal()
        m.d.comb += drawn.eq(counting & in_window & (hpos >= 68))

        m.d.comb += [
            tia.bus_strobe.eq(strobe & sel_tia), tia.cycle_end.eq(cycle_end),
            tia.bus_write.eq(~bus_rw), tia.bus_addr.eq(a[0:6]), tia.bus_wdata.eq(bus_dout),
            tia.bus_last.eq(last_bus), tia.last_was_read.eq(last_was_read),
            tia.hpos.eq(hpos), tia.advance.eq(counting), tia.drawn.eq(drawn),
            tia.line_end_drawn.eq(counting & in_window & (hpos == 227)),
            tia.cyc.eq(cyc), tia.frame_start.eq(self.start_frame),
            tia.line.eq(line), tia.pal.eq(self.pal), tia.hmove_blanks.eq(self.hmove_blanks),
            tia.inpt4.eq(self.inpt4), tia.inpt5.eq(self.inpt5), tia.odd_last_frame.eq(odd_last),
        ]
        for i in range(4):
            m.d.comb += [tia.paddle_needed[i].eq(getattr(self, f"paddle{i}_needed")),
                         tia.paddle_mode[i].eq(getattr(self, f"paddle{i}_mode"))]
        m.d.comb += [
            riot.sel_ram.eq(sel_ram), riot.sel_io.eq(sel_io), riot.addr.eq(a[0:10]),
            riot.write.eq(~bus_rw), riot.wdata.eq(bus_dout), riot.strobe.eq(strobe),
            riot.cycle_end.eq(cycle_end),
            riot.timer_init.eq(self.timer_init), riot.swcha.eq(self.swcha), riot.swchb.eq(self.swchb),
            riot.host_we.eq(self.host_we_riot), riot.host_addr.eq(self.host_addr[0:7]),
            riot.host_wdata.eq(self.host_wdata), self.host_riot_rdata.eq(riot.host_rdata),
        ]
        m.d.comb += [
            cart.mapper.eq(self.mapper), cart.sel.eq(sel_cart), cart.addr.eq(a), cart.a13.eq(bus_addr[13]),
            cart.write.eq(~bus_rw), cart.wdata.eq(bus_dout), cart.strobe.eq(strobe & counting),
            cart.host_we_rom.eq(self.host_we_rom), cart.host_we_ram.eq(self.host_we_ram),
            cart.host_addr.eq(self.host_addr), cart.host_wdata.eq(self.host_wdata),
            self.host_cart_rdata.eq(cart.host_rdata), self.bank.eq(cart.bank),
        ]
        # read data of the access that completed at the previous edge, formed in the clock after it
        # (the CPU samples it there): the ROM's synchronous read, the SuperChip RAM and the TIA's
        # latches from the address still held in bus_addr, the RIOT's value registered at the edge
        riot_seen = Signal(8)
        m.d.sync += riot_seen.eq(riot.rdata)
        strobe_seen = Signal()
        m.d.sync += strobe_seen.eq(strobe)
        din = Signal(8)
        with m.If(sel_cart):
            m.d.comb += din.eq(cart.rdata)
        with m.Elif(sel_tia):
            m.d.comb += din.eq(tia.rdata)
        with m.Else():
            m.d.comb += din.eq(riot_seen)
        m.d.comb += cpu.din.eq(din)
        with m.If(strobe_seen):
            m.d.sync += [last_bus.eq(Mux(bus_rw, din, bus_dout)), last_was_read.eq(bus_rw)]

        pending = Signal()
        with m.If(tia.frame_end):
            m.d.sync += pending.eq(1)
        with m.If(self.start_frame):
            m.d.sync += [pending.eq(0), odd_last.eq(frame_line[0])]
        insn_start = Signal()
        m.d.comb += insn_start.eq((ph == 0) & cycle_sync & rdy & counting)

        m.d.comb += [
            self.pixel.eq(tia.pixel), self.drawn.eq(drawn), self.pixel_x.eq(hpos - 68),
            self.row.eq(line - self.ystart), self.hpos.eq(hpos), self.line.eq(line),
            self.cyc.eq(cyc), self.insn_start.eq(insn_start),
            self.at_boundary.eq(insn_start & pending), self.frame_pending.eq(pending),
            self.jammed.eq(cpu.jammed), self.pc.eq(Mux(cpu.ce, cpu.pc_next, cpu.state.pc)),
            self.tia_touch.eq(strobe & sel_tia),
            self.pixels.pixel.eq(tia.pixel), self.pixels.visible.eq(drawn),
            self.pixels.line_end.eq(counting & in_window & (hpos == 227)),
            self.pixels.frame_end.eq(self.start_frame),
        ]
        return m

    def _elaborate_three(self, platform):
        """Three colour clocks per clock: one CPU cycle per clock (``ce`` high from the second
        clock after reset), the TIA stepping colour clocks 0, 1, 2 of the cycle in a
        combinational chain; the console's bookkeeping is the one-colour-clock console's seen
        at those three clocks (``hpos`` of clock 0 is a multiple of 3: clock 2 of a cycle ends a
        line; ``start_frame`` acts in clock 0; the CPU's access completes at the end of clock
        2). The bus is the CPU's own outputs (stable for the cycle). ``start_frame`` is high
        only in a cycle that fetches an opcode (``at_boundary``), so the RIOT, which sees the
        cycle counter before the restart, has no timer access in it."""
        m = Module()
        m.submodules.cpu = cpu = Cpu6507()
        m.submodules.tia = tia = Tia(colour_clocks=3)
        m.submodules.riot = riot = Riot()
        m.submodules.cart = cart = Cart(rom_read="comb")

        started = Signal()
        counting = Signal()
        m.d.comb += counting.eq(started | cpu.sync)
        with m.If(cpu.sync):
            m.d.sync += started.eq(1)
        rdy = ~tia.wsync
        # the CPU's first cycle (the reset vector read) waits one clock after reset, for the
        # cartridge's reset bank (set at the first clock, hw.cart), as the one-colour-clock
        # console's CPU waits for its third clock
        booted = Signal()
        m.d.sync += booted.eq(1)
        m.d.comb += [cpu.ce.eq(booted), cpu.rdy.eq(rdy)]
        bus_addr, bus_rw, bus_dout = cpu.addr[0:14], cpu.rw, cpu.dout
        strobe = Signal()      # the access completes at the end of colour clock 2
        m.d.comb += strobe.eq(counting & ~cpu.dummy & (~bus_rw | rdy))

        sf = self.start_frame
        hpos = Signal(8)       # colour clock 0 of this cycle (0, 3, ... 225)
        frame_line = Signal(16)
        cyc = Signal(32)
        odd_last = Signal()
        fl_after0 = Signal(16)     # frame_line after colour clock 0 (start_frame resets it)
        cyc_after0 = Signal(32)
        m.d.comb += [fl_after0.eq(Mux(sf, 0, frame_line)), cyc_after0.eq(Mux(sf, 0, cyc))]
        line_ends = hpos == 225
        with m.If(counting):
            m.d.sync += hpos.eq(Mux(line_ends, 0, hpos + 3))
        m.d.sync += [
            frame_line.eq(Mux(counting & line_ends & (fl_after0 != 0xFFFF), fl_after0 + 1, fl_after0)),
            cyc.eq(Mux(counting, cyc_after0 + 1, cyc_after0)),
        ]
        with m.If(sf):
            m.d.sync += odd_last.eq(frame_line[0])

        a = bus_addr[0:13]
        sel_cart, sel_tia, sel_ram, sel_io = chip_selects(a)
        last_bus = Signal(8)
        last_was_read = Signal()

        m.d.comb += [
            tia.bus_write.eq(~bus_rw), tia.bus_addr.eq(a[0:6]), tia.bus_wdata.eq(bus_dout),
            tia.bus_last.eq(last_bus), tia.last_was_read.eq(last_was_read),
            tia.pal.eq(self.pal), tia.hmove_blanks.eq(self.hmove_blanks),
            tia.inpt4.eq(self.inpt4), tia.inpt5.eq(self.inpt5),
        ]
        for i in range(4):
            m.d.comb += [tia.paddle_needed[i].eq(getattr(self, f"paddle{i}_needed")),
                         tia.paddle_mode[i].eq(getattr(self, f"paddle{i}_mode"))]
        # the scanline is the same in the cycle's three colour clocks (a line ends at clock 2)
        line = fl_after0
        in_window = (line >= self.ystart) & (line < self.ystart + self.height)
        drawn = []
        line_end = Signal()
        for k, clk in enumerate(tia.clocks):
            d = Signal(name=f"drawn_c{k}")
            m.d.comb += d.eq(counting & in_window & (hpos + k >= 68))
            drawn.append(d)
            m.d.comb += [
                clk.bus_strobe.eq(strobe & sel_tia if k == 2 else 0),
                clk.cycle_end.eq(counting if k == 2 else 0),
                clk.hpos.eq(hpos + k), clk.advance.eq(counting), clk.drawn.eq(d),
                clk.line_end_drawn.eq(counting & in_window & (hpos + k == 227)),
                clk.cyc.eq(cyc if k == 0 else cyc_after0),
                clk.frame_start.eq(sf if k == 0 else 0),
                clk.line.eq(line),
                clk.odd_last_frame.eq(odd_last if k == 0 else Mux(sf, frame_line[0], odd_last)),
            ]
            if k == 2:
                m.d.comb += line_end.eq(counting & in_window & (hpos + k == 227))
        m.d.comb += [
            riot.sel_ram.eq(sel_ram), riot.sel_io.eq(sel_io), riot.addr.eq(a[0:10]),
            riot.write.eq(~bus_rw), riot.wdata.eq(bus_dout), riot.strobe.eq(strobe),
            riot.cyc.eq(cyc), riot.frame_start.eq(sf),
            riot.timer_init.eq(self.timer_init), riot.swcha.eq(self.swcha), riot.swchb.eq(self.swchb),
            riot.host_we.eq(self.host_we_riot), riot.host_addr.eq(self.host_addr[0:7]),
            riot.host_wdata.eq(self.host_wdata), self.host_riot_rdata.eq(riot.host_rdata),
        ]
        m.d.comb += [
            cart.mapper.eq(self.mapper), cart.sel.eq(sel_cart), cart.addr.eq(a), cart.a13.eq(bus_addr[13]),
            cart.write.eq(~bus_rw), cart.wdata.eq(bus_dout), cart.strobe.eq(strobe),
            cart.host_we_rom.eq(self.host_we_rom), cart.host_we_ram.eq(self.host_we_ram),
            cart.host_addr.eq(self.host_addr), cart.host_wdata.eq(self.host_wdata),
            self.host_cart_rdata.eq(cart.host_rdata), self.bank.eq(cart.bank),
        ]
        din = Signal(8)
        with m.If(sel_cart):
            m.d.comb += din.eq(cart.rdata)
        with m.Elif(sel_tia):
            m.d.comb += din.eq(tia.clocks[2].rdata)
        with m.Else():
            m.d.comb += din.eq(riot.rdata)
        m.d.comb += cpu.din.eq(din)
        with m.If(strobe):
            m.d.sync += [last_bus.eq(Mux(bus_rw, din, bus_dout)), last_was_read.eq(bus_rw)]

        # the frame-ending write (clock 2) comes after a frame start (clock 0) in the same cycle
        pending = Signal()
        frame_end = tia.clocks[0].frame_end | tia.clocks[1].frame_end | tia.clocks[2].frame_end
        m.d.sync += pending.eq(Mux(frame_end, 1, Mux(sf, 0, pending)))
        insn_start = Signal()
        m.d.comb += insn_start.eq(cpu.sync & rdy & counting)
        m.d.comb += [
            self.pixel.eq(tia.clocks[0].pixel), self.drawn.eq(drawn[0]), self.pixel_x.eq(hpos - 68),
            self.row.eq(line - self.ystart), self.hpos.eq(hpos), self.line.eq(line),
            self.cyc.eq(cyc), self.insn_start.eq(insn_start),
            self.at_boundary.eq(insn_start & pending), self.frame_pending.eq(pending),
            self.jammed.eq(cpu.jammed), self.pc.eq(cpu.state.pc),
            self.tia_touch.eq(strobe & sel_tia),
            self.pixels.visible.eq(Cat(*drawn)), self.pixels.line_end.eq(line_end),
            self.pixels.frame_end.eq(sf),
        ]
        for k in range(3):
            m.d.comb += self.pixels.pixel[k].eq(tia.clocks[k].pixel)
        return m


def generate() -> dict[str, str]:
    """Verilog of the console tops, reproducible (no internal attributes): ``rtl/console.v``
    (one colour clock per clock) and ``rtl/console3.v`` (three colour clocks per clock; module
    ``console3``)."""
    return {"console.v": reproducible.convert(Console(), "console"),
            "console3.v": reproducible.convert(Console(colour_clocks_per_cycle=3), "console3")}
