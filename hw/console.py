"""The Atari 2600 console top: 6507 CPU, TIA, RIOT and cartridge, one colour clock per clock
(default) or three (``Console(colour_clocks_per_cycle=3)``: one CPU cycle per clock, the TIA's
single colour-clock step applied three times in a chain, ``rtl/console3.v``; same results).

:class:`Console` ties :class:`hw.cpu6507.Cpu6507` (one CPU cycle every third clock, RDY
from the TIA's WSYNC), :class:`hw.tia.Tia`, :class:`hw.riot.Riot` and :class:`hw.cart.Cart`
together with the 2600's address decode (13 address bits: A12 cartridge, else A7 = 0 TIA,
else A9 = 0 RIOT RAM, else RIOT I/O) and the frame bookkeeping of ALE 0.12 (Stella 2.4.2):

* Timing (one colour clock per clock): a CPU cycle is colour clocks 0, 1, 2 and its
  access completes at the end of clock 2 (the strobe: writes, bank switching, timer side
  effects, Stella's colour clock of the write). The CPU runs one clock behind that grid: its
  cycle edge (``ce``) is at the end of the next cycle's clock 0, with the RDY of clock 2 and
  the read data formed in clock 0 from what was registered at the strobe's edge (TIA
  collision and input latches, the RIOT's value, the cartridge's byte: its ROM block RAM
  read addressed in clock 1 from the CPU's outputs, ``Cart(rom_read="ahead")``, so that the
  CPU's read data starts from flip-flops, not from the block RAM's output). Its bus outputs (address, read/write, data
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
  write past 290/342 scanlines); the console then reports ``at_boundary`` (its ``frame`` port,
  :data:`FrameSignature`, with ``start_frame``, ``insn_start`` and ``jammed``) at the next
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
RIOT timer). Controllers: ``controllers`` (:data:`ControllerSignature`: SWCHA, SWCHB, INPT4,
INPT5 and the four paddles, :data:`hw.tia.PaddlesSignature`). Host ports (:data:`hw.bus.HostLoadSignature`,
written while the console is held in reset): ``host_rom`` (the cartridge ROM image), ``host_ram``
(the SuperChip RAM) and ``host_riot`` (the RIOT RAM); the RAMs read combinationally.

Inside, the CPU bus reaches each chip as one :data:`hw.bus.CpuBusSignature` (its chip select
from :func:`chip_selects`), joined with ``wiring.connect``; the registered parts of the path
(the one-colour-clock console's bus registers and read-data stage) stay explicit. The
three-colour-clock console also gives the cartridge the next CPU cycle's access a clock ahead
(:data:`hw.bus.NextAccessSignature`, from ``Cpu6507(addr_probe=True)``), so that its ROM is a
block RAM read (``Cart(rom_read="next")``); the one-colour-clock console gives it the CPU's
outputs, which are its bus registers' next value (``Cart(rom_read="ahead")``).

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
from hw.bus import CpuBusSignature, HostLoadSignature, NextAccessSignature
from hw.cart import MAPPER_CODES, Cart, Mapper
from hw.counters import count_clocks
from hw.cpu6507 import Cpu6507
from hw.riot import Riot
from hw.tia import PaddlesSignature, Tia

__all__ = ["Console", "ControllerSignature", "PixelStreamSignature", "PixelStream3Signature", "SUPPORTED",
           "chip_selects", "generate"]

#: Mappers the console implements (see :mod:`hw.cart`).
SUPPORTED = tuple(MAPPER_CODES)

#: The console -> preprocessor stream, one beat per colour clock (producer: the console).
PixelStreamSignature = wiring.Signature({
    "pixel": Out(8),        # palette index of this colour clock (ALE getScreen value)
    "visible": Out(1),      # pixel inside ALE's screen window (rows YStart..YStart+H-1, clocks 68..227)
    "line_end": Out(1),     # strobe: last colour clock (227) of a drawn scanline
    "frame_end": Out(1),    # strobe: ALE's frame boundary (the clock that starts the next frame)
})

#: The console's controller inputs, Stella's pins (producer: whoever plays: the frame-skip
#: controller's drive, :data:`hw.frame_skip.ConsoleDriveSignature`, or a harness; consumer: the
#: console, which passes SWCHA/SWCHB to the RIOT and the fire buttons and paddles to the TIA).
#: Initial values: nothing pressed, switches as ALE leaves them, no paddle attached.
ControllerSignature = wiring.Signature({
    "swcha": Out(8, init=0xFF),   # joystick directions of both ports (bits 7..4 left port: right, left,
                                  # down, up; 3..0 right port), paddle fire buttons; active low
    "swchb": Out(8, init=0x3F),   # console switches: 0 reset, 1 select (both active low), 3 colour
                                  # (0 = black and white), 6/7 left/right difficulty (0 = B)
    "inpt4": Out(1, init=1),      # left joystick fire (INPT4 bit 7), active low
    "inpt5": Out(1, init=1),      # right joystick fire (INPT5 bit 7), active low
    "paddles": Out(PaddlesSignature),   # paddles 0..3 (INPT0..3)
})


#: The console's frame handshake with whoever runs it (producer of the status: the console, which
#: takes it as ``Out``; the frame-skip controller takes it as ``In`` and drives ``start_frame``):
#: ``start_frame`` (in) the first clock of a new frame, pulsed at a frame boundary; ``insn_start``
#: (out) a clock in which the CPU starts an instruction (an opcode fetch); ``at_boundary`` (out)
#: ``insn_start`` once the frame-ending write was made (ALE's frame boundary: the frame is over);
#: ``jammed`` (out) the CPU executed a KIL/JAM opcode and stopped (see the module doc).
#: ``at_boundary_next``, ``insn_start_next``, ``jammed_next`` (out): the values those three take at
#: the next clock if the console's clock is enabled in this one (with this clock's
#: ``start_frame``); a console whose clock is not enabled keeps them. The frame-skip controller
#: registers its stop from these, so that no path runs from the console's state into the
#: console's own clock enable (xc7 logic depth); the console harness checks them at every clock.
FrameSignature = wiring.Signature({
    "start_frame": In(1), "at_boundary": Out(1), "insn_start": Out(1), "jammed": Out(1),
    "at_boundary_next": Out(1), "insn_start_next": Out(1), "jammed_next": Out(1),
})


#: The console's ports for one colour clock per cycle (see the module docstring), in order.
_PORTS = {
    "mapper": In(Mapper),
    "pal": In(1),
    "hmove_blanks": In(1),
    "ystart": In(9),
    "height": In(9),
    "timer_init": In(8),
    "controllers": In(ControllerSignature),
    "frame": Out(FrameSignature),
    "host_rom": In(HostLoadSignature),
    "host_ram": In(HostLoadSignature),
    "host_riot": In(HostLoadSignature),
    "pixel": Out(8),
    "drawn": Out(1),
    "pixel_x": Out(8),
    "row": Out(9),
    "hpos": Out(8),
    "line": Out(16),
    "cyc": Out(32),
    "frame_pending": Out(1),
    "tia_touch": Out(1),
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
    """The 2600's chip selects from the 13-bit address ``a``: (cartridge, TIA, RIOT), each a
    1-bit Amaranth value. A12 selects the cartridge; below it A7 = 0 is the TIA, A7 = 1 the RIOT
    (whose A9 picks RAM or I/O and timer inside it: :class:`hw.riot.Riot`) (Stella 2.4.2's
    ``System``/``M6532`` mapping; 6532 data sheet chip-select pins)."""
    return a[12], ~a[12] & ~a[7], ~a[12] & a[7]


def _chip_buses(m, a, write, wdata, strobe, cycle_end):
    """The CPU bus as each chip sees it: three :data:`hw.bus.CpuBusSignature` interfaces
    (cartridge, TIA, RIOT), each with its chip select from :func:`chip_selects` and the shared
    address ``a`` (A12..A0), ``write``, ``wdata``, ``strobe`` and ``cycle_end``; the chips are
    joined to them with ``wiring.connect`` and their ``rdata`` read back here."""
    buses = []
    for name, sel in zip(("cart_bus", "tia_bus", "riot_bus"), chip_selects(a)):
        bus = CpuBusSignature.create(path=(name,))
        m.d.comb += [bus.sel.eq(sel), bus.addr.eq(a), bus.write.eq(write), bus.wdata.eq(wdata),
                     bus.strobe.eq(strobe), bus.cycle_end.eq(cycle_end)]
        buses.append(bus)
    return buses


def _read_data(m, cart_bus, tia_bus, riot_rdata, cart_rdata=None):
    """The CPU's read data: the selected chip's ``rdata`` (``riot_rdata``, ``cart_rdata``: the
    RIOT's and the cartridge's, possibly registered by the caller; ``cart_rdata`` None: the
    cartridge bus's own); returns an 8-bit Signal."""
    din = Signal(8)
    with m.If(cart_bus.sel):
        m.d.comb += din.eq(cart_bus.rdata if cart_rdata is None else cart_rdata)
    with m.Elif(tia_bus.sel):
        m.d.comb += din.eq(tia_bus.rdata)
    with m.Else():
        m.d.comb += din.eq(riot_rdata)
    return din

def _connect_chips(m, console, tia, riot, cart, buses):
    """The plain arrows between the console's ports, its CPU bus and the chips: the chip buses,
    the host load ports, the paddles; SWCHA/SWCHB go to the RIOT and the fire buttons to the
    TIA (the controller port split between the two chips)."""
    cart_bus, tia_bus, riot_bus = buses
    wiring.connect(m, cart_bus, cart.bus)
    wiring.connect(m, tia_bus, tia.bus)
    wiring.connect(m, riot_bus, riot.bus)
    wiring.connect(m, wiring.flipped(console.host_rom), cart.host_rom)
    wiring.connect(m, wiring.flipped(console.host_ram), cart.host_ram)
    wiring.connect(m, wiring.flipped(console.host_riot), riot.host)
    ctl = console.controllers
    wiring.connect(m, wiring.flipped(ctl.paddles), tia.paddles)
    m.d.comb += [riot.swcha.eq(ctl.swcha), riot.swchb.eq(ctl.swchb),
                 tia.inpt4.eq(ctl.inpt4), tia.inpt5.eq(ctl.inpt5),
                 tia.pal.eq(console.pal), tia.hmove_blanks.eq(console.hmove_blanks),
                 riot.timer_init.eq(console.timer_init), cart.mapper.eq(console.mapper),
                 console.bank.eq(cart.bank)]

class Console(wiring.Component):
    """The whole console (see the module docstring for the ports' meaning).

    Args:
        colour_clocks_per_cycle: 1 (one colour clock per clock, the CPU steps every third
            clock) or 3 (one CPU cycle per clock: the TIA's colour-clock step applied three
            times per clock, :class:`hw.tia.Tia`; the cartridge ROM in block RAM, addressed a
            clock ahead with the CPU's next-cycle access, ``Cart(rom_read="next")``;
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
        m.submodules.cart = cart = Cart(rom_read="ahead")

        ph = Signal(2)
        m.d.sync += ph.eq(Mux(ph == 2, 0, ph + 1))
        started = Signal()
        counting = Signal()

        rdy = ~tia.wsync
        # The CPU runs one colour clock behind the console's cycle grid: its cycle ends (ce) at the
        # first clock of the next CPU cycle, with the RDY of the cycle's last clock (rdy_seen) and the
        # read data of the access that completed at that clock's edge (formed in the clock after it
        # from registers: the cartridge's byte, the RIOT's value and the TIA's latches; din below).
        # So no path runs from the TIA's drawing, the RIOT timer or the memories into the CPU's
        # registers.
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
        cycle_sync_next = Mux(ph == 2, Mux(cpu.rw & ~rdy, cpu.sync, fetch_next), cycle_sync)
        m.d.sync += cycle_sync.eq(cycle_sync_next)
        with m.If(cycle_sync):
            m.d.sync += started.eq(1)
        # counting = started | cycle_sync, as a register (started stays set once the CPU fetched)
        m.d.sync += counting.eq(started | cycle_sync | cycle_sync_next)

        # the CPU cycle's last colour clock (ph 2) while counting, registered in the clock before
        # (counting does not change from ph 1 to ph 2): the chips' strobes start from registers
        cycle_end = Signal()
        strobe = Signal()
        m.d.sync += cycle_end.eq((ph == 1) & counting)
        m.d.comb += strobe.eq(cycle_end & ~bus_dummy & (~bus_rw | rdy))

        hpos = Signal(8)
        line = Signal(16)
        frame_line = Signal(16)
        cyc = Signal(32)
        m.d.comb += line.eq(Mux(self.frame.start_frame, 0, frame_line))
        # hpos == 227 (the line's last colour clock) as a register beside hpos, so that the TIA's
        # end-of-line rules (the Cosmic Ark jump) start from registers (xc7 logic depth)
        hpos_end = Signal()
        with m.If(counting):
            m.d.sync += [hpos.eq(Mux(hpos_end, 0, hpos + 1)), hpos_end.eq(hpos == 226)]
            with m.If(hpos_end & (frame_line != 0xFFFF)):
                m.d.sync += frame_line.eq(line + 1)
        # Stella's cycle count of the frame: CPU cycles since the frame start, as two 16-bit halves
        # (as one step, the 32-bit increment under the fabric instance's clock enable would be 10 xc7 levels)
        count_clocks(m, cyc, cycle_end, self.frame.start_frame, "cyc")
        with m.If(self.frame.start_frame):
            with m.If(~(hpos_end & counting)):
                m.d.sync += frame_line.eq(0)

        a = bus_addr[0:13]
        buses = _chip_buses(m, a, ~bus_rw, bus_dout, strobe, cycle_end)
        cart_bus, tia_bus, riot_bus = buses
        _connect_chips(m, self, tia, riot, cart, buses)
        m.d.comb += cart.a13.eq(bus_addr[13])
        # the cartridge's ROM (block RAM) addressed a clock ahead: the bus registers take the CPU's
        # outputs at every clock, so the CPU's outputs are the next clock's access
        # (NextAccessSignature); the byte of the access is then read in its own last clock (ph 2)
        # and registered at its edge (cart_seen), so the CPU's read data starts from a flip-flop,
        # not from the block RAM's output (xc7 timed estimate: 2.45 ns clock-to-out)
        next_bus = NextAccessSignature.create(path=("next_bus",))
        m.d.comb += [next_bus.sel.eq(chip_selects(cpu.addr[0:13])[0]), next_bus.addr.eq(cpu.addr[0:13]),
                     next_bus.write.eq(~cpu.rw), next_bus.a13.eq(cpu.addr[13])]
        wiring.connect(m, next_bus, cart.next_bus)
        last_bus = Signal(8)
        last_was_read = Signal()
        odd_last = Signal()

        # Inside ALE's screen window (scanlines ystart .. ystart + height - 1). Only read where
        # hpos >= 68 (drawn) or hpos == 227 (a drawn line's end), so from registers: the compare of
        # the scanline register is registered every clock (stale only in the clock after the
        # scanline changes: at hpos 0 after a line end, or after start_frame, where line 0's
        # flag from the configuration is used), no adder and compare in front of the TIA's
        # drawing and end-of-line rules (xc7 logic depth). Line 0's flag is registered too
        # (ystart and height are set before reset; the clocks after reset that see the register's
        # reset value read the reset vector, where nothing counts, so nothing is drawn).
        def window(v):
            return (v >= self.ystart) & (v < self.ystart + self.height)
        win_line = Signal()        # window(frame_line) one clock ago
        after_start = Signal()     # start_frame was high in the previous clock
        win_line0 = Signal()       # window(0) one clock ago
        m.d.sync += [win_line.eq(window(frame_line)), after_start.eq(self.frame.start_frame),
                     win_line0.eq(window(0))]
        in_window = Mux(self.frame.start_frame | after_start, win_line0, win_line)
        drawn = Signal()
        m.d.comb += drawn.eq(counting & in_window & (hpos >= 68))

        # the TIA write that completes at the next clock's edge, from the CPU's outputs (valid from
        # the cycle's second clock, ph 1): the TIA registers it (its write paths then start from a
        # register, not from the strobe and chip-select logic); counting does not change from ph 1
        # to ph 2
        m.d.comb += [tia.write_ahead.eq((ph == 1) & counting & ~cpu.dummy & ~cpu.rw & chip_selects(cpu.addr)[1]),
                     tia.addr_ahead.eq(cpu.addr[0:6])]
        clk = tia.clocks[0]
        m.d.comb += [
            tia.bus_last.eq(last_bus), tia.last_was_read.eq(last_was_read),
            clk.hpos.eq(hpos), clk.advance.eq(counting), clk.drawn.eq(drawn),
            # (hpos_end implies counting: hpos moved 227 times, so the CPU started, and it counts from
            # then on)
            clk.line_end_drawn.eq(in_window & hpos_end),
            clk.cyc.eq(cyc), clk.frame_start.eq(self.frame.start_frame),
            clk.line.eq(line), clk.odd_last_frame.eq(odd_last),
        ]
        # read data of the access that completed at the previous edge, formed in the clock after it
        # (the CPU samples it there): the cartridge's byte and the RIOT's value registered at the
        # edge (cart_seen, riot_seen), the TIA's latches from the address still held in bus_addr
        riot_seen = Signal(8)
        m.d.sync += riot_seen.eq(riot_bus.rdata)
        strobe_seen = Signal()
        m.d.sync += strobe_seen.eq(strobe)
        cart_seen = Signal(8)     # the cartridge's byte of the access in its own clock (ROM, RAM, DPC)
        m.d.sync += cart_seen.eq(cart_bus.rdata)
        din = _read_data(m, cart_bus, tia_bus, riot_seen, cart_seen)
        m.d.comb += cpu.din.eq(din)
        with m.If(strobe_seen):
            m.d.sync += [last_bus.eq(Mux(bus_rw, din, bus_dout)), last_was_read.eq(bus_rw)]

        pending = Signal()
        pending_next = Signal()
        m.d.comb += pending_next.eq(~self.frame.start_frame & (pending | clk.frame_end))
        m.d.sync += pending.eq(pending_next)
        with m.If(self.frame.start_frame):
            m.d.sync += odd_last.eq(frame_line[0])
        insn_start = Signal()
        m.d.comb += insn_start.eq((ph == 0) & cycle_sync & rdy & counting)
        # the same at the next clock, from the next values of its terms (FrameSignature's *_next)
        insn_start_next = Signal()
        m.d.comb += insn_start_next.eq((ph == 2) & cycle_sync_next & ~tia.wsync_next &
                                       (started | cycle_sync | cycle_sync_next))
        m.d.comb += [self.frame.insn_start_next.eq(insn_start_next),
                     self.frame.at_boundary_next.eq(insn_start_next & pending_next),
                     self.frame.jammed_next.eq(cpu.jammed_next)]

        m.d.comb += [
            self.pixel.eq(clk.pixel), self.drawn.eq(drawn), self.pixel_x.eq(hpos - 68),
            self.row.eq(line - self.ystart), self.hpos.eq(hpos), self.line.eq(line),
            self.cyc.eq(cyc), self.frame.insn_start.eq(insn_start),
            self.frame.at_boundary.eq(insn_start & pending), self.frame_pending.eq(pending),
            self.frame.jammed.eq(cpu.jammed), self.pc.eq(Mux(cpu.ce, cpu.pc_next, cpu.state.pc)),
            self.tia_touch.eq(strobe & tia_bus.sel),
            self.pixels.pixel.eq(clk.pixel), self.pixels.visible.eq(drawn),
            self.pixels.line_end.eq(counting & in_window & hpos_end),
            self.pixels.frame_end.eq(self.frame.start_frame),
        ]
        return m

    def _elaborate_three(self, platform):
        """Three colour clocks per clock: one CPU cycle per clock (``ce`` high from the second
        clock after reset), the TIA stepping colour clocks 0, 1, 2 of the cycle in a
        combinational chain; the console's bookkeeping is the one-colour-clock console's seen
        at those three clocks (``hpos`` of clock 0 is a multiple of 3: clock 2 of a cycle ends a
        line; ``start_frame`` acts in clock 0; the CPU's access completes at the end of clock
        2). The bus's address and R/W are registers holding the CPU's next-cycle access from the
        clock before (``addr_next``, ``rw_next``: its own outputs for the cycle, stable), its write
        data the CPU's own output. ``start_frame`` comes at a
        frame boundary (an opcode fetch, ``at_boundary``) or in the first clock after a reset,
        while the CPU waits (``booted``); the RIOT's timer counts cycles since its write, which
        the restart of the cycle counter does not change. ``ystart`` and ``height`` are set
        before reset (their window flags are registers)."""
        m = Module()
        # operations registered at the edge and carried out over the next two clocks (Cpu6507
        # staged_ops=2, the branch flags forwarded): no path from the read data or A through the
        # operation unit in one clock (xc7 logic depth);
        # the ROM in block RAM, addressed a clock ahead with the CPU's next-cycle access
        # (addr_probe, Cart rom_read="next") instead of a combinational read of distributed RAM
        m.submodules.cpu = cpu = Cpu6507(staged_ops=2, addr_probe=True)
        m.submodules.tia = tia = Tia(colour_clocks=3)
        m.submodules.riot = riot = Riot(ram_read="next")
        m.submodules.cart = cart = Cart(rom_read="next")

        started = Signal()
        # counting = started | cpu.sync, as a register from the next values of its terms (the
        # CPU's sync_next): it enables every colour clock's step of the TIA, so that its wide
        # fan-out starts from a flip-flop, not from the CPU's state decode (xc7 logic depth)
        counting = Signal()
        m.d.sync += counting.eq(started | cpu.sync | cpu.sync_next)
        with m.If(cpu.sync):
            m.d.sync += started.eq(1)
        rdy = ~tia.wsync
        # the CPU's first cycle (the reset vector read) waits one clock after reset, for the
        # cartridge's reset bank (set at the first clock, hw.cart), as the one-colour-clock
        # console's CPU waits for its third clock
        booted = Signal()
        m.d.sync += booted.eq(1)
        m.d.comb += [cpu.ce.eq(booted), cpu.rdy.eq(rdy)]
        # the bus's address and R/W as registers: the CPU's next-cycle access (addr_probe: equal
        # to its own address and R/W in the clock after every edge; at reset the address of the
        # reset vector's low byte, $FFFC), so that the chips' read selects start from flip-flops, not from the CPU's
        # state decode (xc7 logic depth)
        addr_q = Signal(14, init=0xFFFC & 0x3FFF, name="bus_addr_q")
        rw_q = Signal(init=1, name="bus_rw_q")
        m.d.sync += [addr_q.eq(cpu.addr_next[0:14]), rw_q.eq(cpu.rw_next)]
        bus_addr, bus_rw, bus_dout = addr_q, rw_q, cpu.dout
        strobe = Signal()      # the access completes at the end of colour clock 2
        m.d.comb += strobe.eq(counting & ~cpu.dummy & (~bus_rw | rdy))

        sf = self.frame.start_frame
        hpos = Signal(8)       # colour clock 0 of this cycle (0, 3, ... 225)
        frame_line = Signal(16)
        cyc = Signal(32)
        odd_last = Signal()
        fl_after0 = Signal(16)     # frame_line after colour clock 0 (start_frame resets it)
        cyc_after0 = Signal(32)
        m.d.comb += [fl_after0.eq(Mux(sf, 0, frame_line)), cyc_after0.eq(Mux(sf, 0, cyc))]
        # hpos + k of the cycle's colour clocks k = 1, 2, the drawn-column flags (hpos + k >= 68)
        # and the line end (hpos == 225) as registers beside hpos, so that the TIA's chained steps
        # start from registers, not from adders and compares (xc7 logic depth)
        hk = [hpos] + [Signal(8, name=f"hpos_c{k}", init=k) for k in (1, 2)]
        ge68 = [Signal(name=f"hpos_ge68_c{k}") for k in range(3)]
        line_ends = Signal()
        with m.If(counting):
            hpos_next = Mux(line_ends, 0, hpos + 3)
            m.d.sync += [hpos.eq(hpos_next), line_ends.eq(hpos_next == 225)]
            m.d.sync += [hk[k].eq(Mux(line_ends, k, hk[k] + 3)) for k in (1, 2)]
            m.d.sync += [ge68[k].eq(hpos_next + k >= 68) for k in range(3)]
        m.d.sync += [
            frame_line.eq(Mux(counting & line_ends & (fl_after0 != 0xFFFF), fl_after0 + 1, fl_after0)),
            cyc.eq(Mux(counting, cyc_after0 + 1, cyc_after0)),
        ]
        with m.If(sf):
            m.d.sync += odd_last.eq(frame_line[0])

        a = bus_addr[0:13]
        # every clock ends a CPU cycle once the console counts
        buses = _chip_buses(m, a, ~bus_rw, bus_dout, strobe, counting)
        cart_bus, tia_bus, riot_bus = buses
        _connect_chips(m, self, tia, riot, cart, buses)
        m.d.comb += cart.a13.eq(bus_addr[13])
        next_bus = NextAccessSignature.create(path=("next_bus",))
        m.d.comb += [next_bus.sel.eq(chip_selects(cpu.addr_next[0:13])[0]), next_bus.addr.eq(cpu.addr_next[0:13]),
                     next_bus.write.eq(~cpu.rw_next), next_bus.a13.eq(cpu.addr_next[13])]
        wiring.connect(m, next_bus, cart.next_bus, riot.next_bus)
        # the TIA write of the next cycle, from the CPU's next-cycle access (a write cycle always
        # counts: it follows the first opcode fetch): the TIA registers it with its address
        # classes, so that its write paths start from registers (xc7 logic depth)
        m.d.comb += [tia.write_ahead.eq(cpu.write_next & chip_selects(cpu.addr_next[0:13])[1]),
                     tia.addr_ahead.eq(cpu.addr_next[0:6])]
        last_bus = Signal(8)
        last_was_read = Signal()

        m.d.comb += [tia.bus_last.eq(last_bus), tia.last_was_read.eq(last_was_read)]
        # the scanline is the same in the cycle's three colour clocks (a line ends at clock 2)
        line = fl_after0
        # Inside ALE's screen window, from registers as in the one-colour-clock console: the
        # compare of frame_line registered every clock is stale only in the cycle after frame_line
        # changes: at hpos 0 after a line end (where no clock of the cycle is drawn or ends a line)
        # or after start_frame, where line 0's flag from the configuration is used (xc7 logic depth)
        def window(v):
            return (v >= self.ystart) & (v < self.ystart + self.height)
        win_line = Signal()        # window(frame_line) one clock ago
        after_start = Signal()     # start_frame was high in the previous clock
        # line 0's flag registered too: ystart and height are set before reset, and the clocks
        # after reset that see the register's reset value read the reset vector (nothing is drawn)
        win_line0 = Signal()
        m.d.sync += [win_line.eq(window(frame_line)), after_start.eq(sf), win_line0.eq(window(0))]
        in_window = Mux(sf | after_start, win_line0, win_line)
        drawn = []
        line_end = Signal()
        for k, clk in enumerate(tia.clocks):
            d = Signal(name=f"drawn_c{k}")
            m.d.comb += d.eq(counting & in_window & ge68[k])
            drawn.append(d)
            m.d.comb += [
                clk.hpos.eq(hk[k]), clk.advance.eq(counting), clk.drawn.eq(d),
                # hpos + k == 227 only at k = 2 (hpos is a multiple of 3, at most 225)
                clk.line_end_drawn.eq((counting & in_window & line_ends) if k == 2 else 0),
                clk.cyc.eq(cyc if k == 0 else cyc_after0),
                clk.frame_start.eq(sf if k == 0 else 0),
                clk.line.eq(line),
                clk.odd_last_frame.eq(odd_last if k == 0 else Mux(sf, frame_line[0], odd_last)),
            ]
            if k == 2:
                m.d.comb += line_end.eq(counting & in_window & line_ends)
        din = _read_data(m, cart_bus, tia_bus, riot_bus.rdata)
        # the next-address probe's read data without the TIA's read bits 7..6 (its collision
        # latches with this cycle's three drawing steps: the console's slowest source), which
        # never reach a cartridge address (Cpu6507 addr_probe); bits 5..0 are the data bus's
        m.d.comb += [cpu.din.eq(din),
                     cpu.din_probe.eq(Cat(din[0:6], Mux(cart_bus.sel, cart_bus.rdata, riot_bus.rdata)[6:8]))]
        with m.If(strobe):
            m.d.sync += [last_bus.eq(Mux(bus_rw, din, bus_dout)), last_was_read.eq(bus_rw)]

        # the frame-ending write (clock 2) comes after a frame start (clock 0) in the same cycle
        pending = Signal()
        pending_next = Signal()
        frame_end = tia.clocks[0].frame_end | tia.clocks[1].frame_end | tia.clocks[2].frame_end
        m.d.comb += pending_next.eq(Mux(frame_end, 1, Mux(sf, 0, pending)))
        m.d.sync += pending.eq(pending_next)
        insn_start = Signal()
        m.d.comb += insn_start.eq(cpu.sync & rdy & counting)
        # the same at the next clock, from the next values of its terms (FrameSignature's *_next)
        insn_start_next = Signal()
        m.d.comb += insn_start_next.eq(cpu.sync_next & ~tia.wsync_next & (started | cpu.sync | cpu.sync_next))
        m.d.comb += [self.frame.insn_start_next.eq(insn_start_next),
                     self.frame.at_boundary_next.eq(insn_start_next & pending_next),
                     self.frame.jammed_next.eq(cpu.jammed_next)]
        m.d.comb += [
            self.pixel.eq(tia.clocks[0].pixel), self.drawn.eq(drawn[0]), self.pixel_x.eq(hpos - 68),
            self.row.eq(line - self.ystart), self.hpos.eq(hpos), self.line.eq(line),
            self.cyc.eq(cyc), self.frame.insn_start.eq(insn_start),
            self.frame.at_boundary.eq(insn_start & pending), self.frame_pending.eq(pending),
            self.frame.jammed.eq(cpu.jammed), self.pc.eq(cpu.state.pc),
            self.tia_touch.eq(strobe & tia_bus.sel),
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
