"""The Atari 2600 console top: 6507 CPU, TIA, RIOT and cartridge, one colour clock per clock
(default) or three (``Console(colour_clocks=3)``: one CPU cycle per clock, the TIA's
single colour-clock step applied three times in a chain, ``rtl/console_cc3.v``; same results).

:class:`Console` ties :class:`nc2600.hw.cpu6507.Cpu6507` (one CPU cycle every third clock, RDY from the TIA's WSYNC),
:class:`nc2600.hw.tia.Tia`, :class:`nc2600.hw.riot.Riot` and :class:`nc2600.hw.cartridge.Cartridge` together with the
2600's address decode (13 address bits: A12 cartridge, else A7 = 0 TIA, else A9 = 0 RIOT RAM, else RIOT I/O) and the
frame bookkeeping of ALE 0.12 (Stella 2.4.2):

* Timing (one colour clock per clock): a CPU cycle is colour clocks 0, 1, 2 and its
  access completes at the end of clock 2 (the strobe: writes, bank switching, timer side
  effects, Stella's colour clock of the write). The CPU runs one clock behind that grid: its
  cycle edge (``ce``) is at the end of the next cycle's clock 0, with the RDY of clock 2 and
  the read data formed in clock 0 from what was registered at the strobe's edge (TIA
  collision and input latches, the RIOT's value, the cartridge's other sources) and the
  cartridge ROM's byte, a block RAM read addressed in clock 2 from the bus registers
  (``Cartridge(rom_read="late")``), so that no path runs from the CPU's state through its address
  and the bank mapping into the block RAM's address in one clock (the LIFCL-40's critical path
  with the ROM addressed in clock 1 from the CPU's outputs). Its bus outputs (address, read/write, data
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

Configuration inputs (set before reset): ``mapper`` (:data:`nc2600.hw.cartridge.MAPPER_CODES`), ``pal``,
``hmove_blanks``, ``ystart``, ``height``, ``timer_init`` (ALE's RNG draw for the RIOT timer). Controllers:
``controllers`` (:data:`ControllerSignature`: SWCHA, SWCHB, INPT4, INPT5 and the four paddles,
:data:`nc2600.hw.interfaces.PaddlesSignature`). Host ports (:data:`nc2600.hw.bus.HostLoadSignature`, written while the
console is held in reset): ``host_rom`` (the cartridge ROM image), ``host_ram`` (the SuperChip RAM) and ``host_riot``
(the RIOT RAM); the RAMs read combinationally.

Inside, the CPU bus reaches each chip as one :data:`nc2600.hw.bus.CpuBusSignature` (its chip select
from :func:`chip_selects`), joined with ``wiring.connect``; the registered parts of the path
(the one-colour-clock console's bus registers and read-data stage) stay explicit. The
three-colour-clock console also gives the cartridge the next CPU cycle's access a clock ahead
(:data:`nc2600.hw.bus.NextAccessSignature`, from ``Cpu6507(addr_probe=True)``), so that its ROM is a
block RAM read (``Cartridge(rom_read="next")``); the one-colour-clock console's cartridge reads its
ROM from the bus registers in the access's last clock and gives the byte in the clock after
(``Cartridge(rom_read="late")``), and addresses its SuperChip RAM a clock ahead from the CPU's
outputs, which are its bus registers' next value.

Pixel stream (``pixels``, :data:`PixelStreamSignature`, one beat per colour clock; what the
preprocessor consumes with ``wiring.connect``): ``pixel`` the palette index of this colour
clock, ``visible`` = ``drawn`` (inside ALE's screen window), ``line_end`` (colour clock 227 of a
drawn scanline), ``frame_end`` (strobe in the clock that starts the next frame, i.e. ALE's frame
boundary: ``start_frame``). Whoever pauses the console's clock must do so at a frame boundary,
where ``visible`` and ``line_end`` are low (the beam is past the window).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from nc2600.hw import reproducible
from nc2600.hw.bus import CpuBusSignature, HostLoadSignature, NextAccessSignature
from nc2600.hw.cartridge import MAPPER_CODES, Cartridge, Mapper
from nc2600.hw.counters import count_clocks
from nc2600.hw.interfaces import ControllerSignature, FrameSignature, PixelStream3Signature, PixelStreamSignature
from nc2600.hw.cpu6507 import Cpu6507
from nc2600.hw.riot import Riot
from nc2600.hw.tia import Tia
from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS

__all__ = ["Console", "ControllerSignature", "PixelStreamSignature", "PixelStream3Signature", "SUPPORTED",
           "chip_selects", "generate", "input_read"]

#: Mappers the console implements (see :mod:`nc2600.hw.cartridge`).
SUPPORTED = tuple(MAPPER_CODES)


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


def chip_selects(a):
    """The 2600's chip selects from the 13-bit address ``a``: (cartridge, TIA, RIOT), each a
    1-bit Amaranth value. A12 selects the cartridge; below it A7 = 0 is the TIA, A7 = 1 the RIOT
    (whose A9 picks RAM or I/O and timer inside it: :class:`nc2600.hw.riot.Riot`) (Stella 2.4.2's
    ``System``/``M6532`` mapping; 6532 data sheet chip-select pins)."""
    return a[12], ~a[12] & ~a[7], ~a[12] & a[7]


def input_read(a, read):
    """Whether an access to the 13-bit address ``a`` (``read`` 1 for a read) reads a controller
    input that a chosen action drives: SWCHA (the RIOT's I/O, A9 = 1, A2..A0 = 0) or INPT0..5
    (the TIA's read registers 8..13 by A3..A0). SWCHB is not one (the console switches are
    fixed through an episode). 1-bit Amaranth value (Stella 2.4.2's M6532/TIA read decode)."""
    _, tia, riot = chip_selects(a)
    return read & ((tia & (a[0:4] >= 8) & (a[0:4] <= 13)) | (riot & a[9] & (a[0:3] == 0)))


def _chip_buses(m, a, write, wdata, strobe, cycle_end):
    """The CPU bus as each chip sees it: three :data:`nc2600.hw.bus.CpuBusSignature` interfaces
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

class _Grid:
    """What a console variant's cycle grid (:meth:`Console._grid_one`, :meth:`Console._grid_three`)
    gives the parts both variants share: its registers and values by name (``counting``, the bus
    registers ``bus_addr``/``bus_rw``/``bus_dout``, ``strobe``, ``cycle_end``, ``hpos``, ``line``,
    ``frame_line``, ``cyc``, the next access ``next_addr``/``next_rw`` and its ``next_readers``, ...),
    and what the shared parts add (``buses``, ``in_window``, ``drawn``, ``line_end``, ...)."""

    def update(self, **values):
        self.__dict__.update(values)


class Console(wiring.Component):
    """The whole console (see the module docstring for the ports' meaning).

    Args:
        colour_clocks: 1 (one colour clock per clock, the CPU steps every third
            clock) or 3 (one CPU cycle per clock: the TIA's colour-clock step applied three
            times per clock, :class:`nc2600.hw.tia.Tia`; the cartridge ROM in block RAM, addressed a
            clock ahead with the CPU's next-cycle access, ``Cartridge(rom_read="next")``;
            ``pixels`` is :data:`PixelStream3Signature`, ``pixel``/``drawn``/``pixel_x``/``hpos``
            describe colour clock 0 of the cycle).

    Raises:
        ValueError: ``colour_clocks`` is not 1 or 3.
    """

    def __init__(self, colour_clocks: int = DEFAULT_COLOUR_CLOCKS):
        if colour_clocks not in (1, 3):
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise ValueError(f"colour_clocks must be 1 or 3, not {colour_clocks!r}")
        self.colour_clocks = colour_clocks
        ports = dict(_PORTS)
        if colour_clocks == 3:
            ports["pixels"] = Out(PixelStream3Signature)
        super().__init__(wiring.Signature(ports))

    def elaborate(self, platform):
        """The console of ``colour_clocks``: the variant's chips, its CPU cycle grid and
        beam counters, then the parts both variants share (the CPU bus to the chips, ALE's screen
        window, the read multiplexer, the frame handshake and the output ports) around the
        variant's TIA colour clocks."""
        m = Module()
        if self.colour_clocks == 1:
            chips = self._chips(m, Cpu6507(clocks_per_cycle=3), Tia(), Riot(read_clocks=3), Cartridge(rom_read="late"))
            g = self._grid_one(m, chips)
        else:
            # operations registered at the edge and carried out over the next two clocks (Cpu6507
            # staged_ops=2, the branch flags forwarded): no path from the read data or A through the
            # operation unit in one clock (xc7 logic depth); the ROM in block RAM, addressed a
            # clock ahead with the CPU's next-cycle access (addr_probe, Cartridge rom_read="next")
            # instead of a combinational read of distributed RAM
            chips = self._chips(m, Cpu6507(staged_ops=2, addr_probe=True), Tia(colour_clocks=3),
                                Riot(ram_read="next"), Cartridge(rom_read="next"))
            g = self._grid_three(m, chips)
        g.buses = self._buses(m, chips, g)
        g.in_window = self._window(m, g.frame_line)
        if self.colour_clocks == 1:
            self._tia_clock_one(m, chips, g)
        else:
            self._tia_clocks_three(m, chips, g)
        self._bus_read(m, chips, g)
        self._frame_status(m, chips, g)
        self._outputs(m, chips, g)
        return m

    @staticmethod
    def _chips(m, cpu, tia, riot, cart):
        """The four chips as submodules ``cpu``, ``tia``, ``riot``, ``cart``; returns them in that
        order."""
        m.submodules.cpu = cpu
        m.submodules.tia = tia
        m.submodules.riot = riot
        m.submodules.cart = cart
        return cpu, tia, riot, cart

    def _grid_one(self, m, chips):
        """One colour clock per clock: the CPU cycle grid (``ph`` 0, 1, 2; the CPU's edge, RDY,
        its registered bus outputs, the opcode-fetch flag, ``counting``, the access strobe) and the
        beam counters. Returns the :class:`_Grid` the shared parts read."""
        cpu, tia, riot, cart = chips
        g = _Grid()
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
        # cycle to the first clock of the next (nc2600.hw.cpu6507's timing contract with ce every third
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
        # (the 32-bit increment under the fabric instance's clock enable was 10 xc7 levels)
        count_clocks(m, cyc, cycle_end, self.frame.start_frame, "cyc")
        with m.If(self.frame.start_frame):
            with m.If(~(hpos_end & counting)):
                m.d.sync += frame_line.eq(0)

        # the bus registers take the CPU's outputs at every clock, so the CPU's outputs are the next
        # clock's access (NextAccessSignature: the cartridge's SuperChip RAM read a clock ahead);
        # the cartridge's ROM (block RAM) is addressed from the bus registers in the access's last
        # clock (ph 2) and its byte read in the next (ph 0), where the CPU takes it
        g.update(ph=ph, started=started, counting=counting, rdy=rdy, bus_addr=bus_addr, bus_rw=bus_rw,
                 bus_dout=bus_dout, cycle_sync=cycle_sync, cycle_sync_next=cycle_sync_next, cycle_end=cycle_end,
                 strobe=strobe, hpos=hpos, hpos_end=hpos_end, line=line, frame_line=frame_line, cyc=cyc,
                 next_addr=cpu.addr, next_rw=cpu.rw, next_readers=(cart.next_bus,))
        return g

    def _grid_three(self, m, chips):
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
        before reset (their window flags are registers). Returns the :class:`_Grid` the shared
        parts read."""
        cpu, tia, riot, cart = chips
        g = _Grid()
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
        # cartridge's reset bank (set at the first clock, nc2600.hw.cartridge), as the one-colour-clock
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
        # every clock ends a CPU cycle once the console counts; the scanline is the same in the
        # cycle's three colour clocks (a line ends at clock 2); the cartridge and the RIOT read the
        # CPU's next-cycle access a clock ahead
        g.update(started=started, counting=counting, rdy=rdy, bus_addr=bus_addr, bus_rw=bus_rw, bus_dout=bus_dout,
                 cycle_end=counting, strobe=strobe, hpos=hpos, hk=hk, ge68=ge68, line_ends=line_ends,
                 line=fl_after0, frame_line=frame_line, cyc=cyc, cyc_after0=cyc_after0,
                 next_addr=cpu.addr_next, next_rw=cpu.rw_next, next_readers=(cart.next_bus, riot.next_bus))
        return g

    def _buses(self, m, chips, g):
        """The CPU bus to the chips (shared): each chip's :data:`nc2600.hw.bus.CpuBusSignature` from the
        grid's bus registers, the plain arrows of :func:`_connect_chips`, the cartridge's A13, and
        the CPU's next access (:data:`nc2600.hw.bus.NextAccessSignature`, from ``g.next_addr``/``g.next_rw``)
        to the readers that address their memories a clock ahead. Returns the three chip buses."""
        cpu, tia, riot, cart = chips
        a = g.bus_addr[0:13]
        buses = _chip_buses(m, a, ~g.bus_rw, g.bus_dout, g.strobe, g.cycle_end)
        _connect_chips(m, self, tia, riot, cart, buses)
        m.d.comb += cart.a13.eq(g.bus_addr[13])
        next_bus = NextAccessSignature.create(path=("next_bus",))
        m.d.comb += [next_bus.sel.eq(chip_selects(g.next_addr[0:13])[0]), next_bus.addr.eq(g.next_addr[0:13]),
                     next_bus.write.eq(~g.next_rw), next_bus.a13.eq(g.next_addr[13])]
        wiring.connect(m, next_bus, *g.next_readers)
        g.last_bus = Signal(8, name="last_bus")
        g.last_was_read = Signal(name="last_was_read")
        g.odd_last = Signal(name="odd_last")
        m.d.comb += [tia.bus_last.eq(g.last_bus), tia.last_was_read.eq(g.last_was_read)]
        return buses

    def _window(self, m, frame_line):
        """Inside ALE's screen window (scanlines ``ystart .. ystart + height - 1``), 1 bit, shared by
        both variants. Only read where a pixel is drawn or a drawn line ends, so from registers: the
        compare of the scanline register ``frame_line`` is registered every clock (stale only in the
        clock after the scanline changes: at hpos 0 after a line end, or after ``start_frame``,
        where line 0's flag from the configuration is used), no adder and compare in front of the
        TIA's drawing and end-of-line rules (xc7 logic depth). Line 0's flag is registered too
        (``ystart`` and ``height`` are set before reset; the clocks after reset that see the
        register's reset value read the reset vector, where nothing counts, so nothing is drawn)."""
        def window(v):
            return (v >= self.ystart) & (v < self.ystart + self.height)
        win_line = Signal()        # window(frame_line) one clock ago
        after_start = Signal()     # start_frame was high in the previous clock
        win_line0 = Signal()       # window(0) one clock ago
        m.d.sync += [win_line.eq(window(frame_line)), after_start.eq(self.frame.start_frame),
                     win_line0.eq(window(0))]
        return Mux(self.frame.start_frame | after_start, win_line0, win_line)

    def _tia_clock_one(self, m, chips, g):
        """One colour clock per clock: the TIA's clock ports and its write registered a clock
        ahead; sets ``g.drawn`` (1 bit), ``g.line_end`` and ``g.frame_end``."""
        cpu, tia, riot, cart = chips
        counting, hpos = g.counting, g.hpos
        drawn = Signal()
        m.d.comb += drawn.eq(counting & g.in_window & (hpos >= 68))
        # the TIA write that completes at the next clock's edge, from the CPU's outputs (valid from
        # the cycle's second clock, ph 1): the TIA registers it (its write paths then start from a
        # register, not from the strobe and chip-select logic); counting does not change from ph 1
        # to ph 2. The CPU's write flag (~rw & ~dummy) starts from its state and a registered copy
        # of its decode, not from the decode table's block RAM, and its write address (its address
        # whenever it writes) is the address latch or the stack, picked by two state bits, not the
        # bus address's multiplexer over every state (Cpu6507 write, write_addr); the TIA reads
        # addr_ahead only with write_ahead
        m.d.comb += [tia.write_ahead.eq((g.ph == 1) & counting & cpu.write & chip_selects(cpu.write_addr[0:13])[1]),
                     tia.addr_ahead.eq(cpu.write_addr[0:6])]
        clk = tia.clocks[0]
        m.d.comb += [
            clk.hpos.eq(hpos), clk.advance.eq(counting), clk.drawn.eq(drawn),
            # (hpos_end implies counting: hpos moved 227 times, so the CPU started, and it counts from
            # then on)
            clk.line_end_drawn.eq(g.in_window & g.hpos_end),
            clk.cyc.eq(g.cyc), clk.frame_start.eq(self.frame.start_frame),
            clk.line.eq(g.line), clk.odd_last_frame.eq(g.odd_last),
        ]
        g.update(drawn=[drawn], line_end=counting & g.in_window & g.hpos_end, frame_end=clk.frame_end)

    def _tia_clocks_three(self, m, chips, g):
        """Three colour clocks per clock: the TIA's ports of the cycle's colour clocks 0, 1, 2 and
        its write of the next cycle; sets ``g.drawn`` (a list of three 1-bit signals),
        ``g.line_end`` and ``g.frame_end``."""
        cpu, tia, riot, cart = chips
        sf = self.frame.start_frame
        counting, in_window = g.counting, g.in_window
        # the TIA write of the next cycle, from the CPU's next-cycle access (a write cycle always
        # counts: it follows the first opcode fetch): the TIA registers it with its address
        # classes, so that its write paths start from registers (xc7 logic depth)
        m.d.comb += [tia.write_ahead.eq(cpu.write_next & chip_selects(cpu.addr_next[0:13])[1]),
                     tia.addr_ahead.eq(cpu.addr_next[0:6])]
        drawn = []
        line_end = Signal()
        for k, clk in enumerate(tia.clocks):
            d = Signal(name=f"drawn_c{k}")
            m.d.comb += d.eq(counting & in_window & g.ge68[k])
            drawn.append(d)
            m.d.comb += [
                clk.hpos.eq(g.hk[k]), clk.advance.eq(counting), clk.drawn.eq(d),
                # hpos + k == 227 only at k = 2 (hpos is a multiple of 3, at most 225)
                clk.line_end_drawn.eq((counting & in_window & g.line_ends) if k == 2 else 0),
                clk.cyc.eq(g.cyc if k == 0 else g.cyc_after0),
                clk.frame_start.eq(sf if k == 0 else 0),
                clk.line.eq(g.line),
                clk.odd_last_frame.eq(g.odd_last if k == 0 else Mux(sf, g.frame_line[0], g.odd_last)),
            ]
            if k == 2:
                m.d.comb += line_end.eq(counting & in_window & g.line_ends)
        # the frame-ending write (clock 2) comes after a frame start (clock 0) in the same cycle
        g.update(drawn=drawn, line_end=line_end,
                 frame_end=tia.clocks[0].frame_end | tia.clocks[1].frame_end | tia.clocks[2].frame_end)

    def _bus_read(self, m, chips, g):
        """The CPU's read data (the bus-read multiplexer, :func:`_read_data`) and the data bus's
        last value that the TIA's undriven read bits return. One colour clock per clock: formed in
        the clock after the access from what was registered at its edge (the cartridge's byte, the
        RIOT's value; the TIA's latches from the address still held in the bus registers). Three:
        in the access's own clock, with the next-address probe's read data beside it."""
        cpu, tia, riot, cart = chips
        cart_bus, tia_bus, riot_bus = g.buses
        if self.colour_clocks == 1:
            riot_seen = Signal(8)
            m.d.sync += riot_seen.eq(riot_bus.rdata)
            strobe_seen = Signal()
            m.d.sync += strobe_seen.eq(g.strobe)
            # the cartridge's byte of the access, in the clock after it (Cartridge rom_read="late": the
            # ROM's byte from its block RAM, addressed in the access's clock from the bus registers)
            din = _read_data(m, cart_bus, tia_bus, riot_seen, cart_bus.rdata)
            m.d.comb += cpu.din.eq(din)
            done = strobe_seen
        else:
            din = _read_data(m, cart_bus, tia_bus, riot_bus.rdata)
            # the next-address probe's read data without the TIA's read bits 7..6 (its collision
            # latches with this cycle's three drawing steps: the console's slowest source), which
            # never reach a cartridge address (Cpu6507 addr_probe); bits 5..0 are the data bus's
            m.d.comb += [cpu.din.eq(din),
                         cpu.din_probe.eq(Cat(din[0:6], Mux(cart_bus.sel, cart_bus.rdata, riot_bus.rdata)[6:8]))]
            done = g.strobe
        with m.If(done):
            m.d.sync += [g.last_bus.eq(Mux(g.bus_rw, din, g.bus_dout)), g.last_was_read.eq(g.bus_rw)]

    def _frame_status(self, m, chips, g):
        """The frame handshake (:data:`FrameSignature`, shared): the frame end pending until the
        next ``start_frame``, the instruction start and the frame boundary, now and at the next
        clock; the last frame's scanline parity kept at ``start_frame``. Sets ``g.pending``."""
        cpu, tia, riot, cart = chips
        sf = self.frame.start_frame
        pending = Signal()
        pending_next = Signal()
        insn_start = Signal()
        insn_start_next = Signal()
        if self.colour_clocks == 1:
            m.d.comb += pending_next.eq(~sf & (pending | g.frame_end))
            m.d.comb += insn_start.eq((g.ph == 0) & g.cycle_sync & g.rdy & g.counting)
            # the same at the next clock, from the next values of its terms (FrameSignature's *_next)
            m.d.comb += insn_start_next.eq((g.ph == 2) & g.cycle_sync_next & ~tia.wsync_next &
                                           (g.started | g.cycle_sync | g.cycle_sync_next))
        else:
            # (a frame start at clock 0 and a frame-ending write at clock 2 of the same cycle: pending)
            m.d.comb += pending_next.eq(Mux(g.frame_end, 1, Mux(sf, 0, pending)))
            m.d.comb += insn_start.eq(cpu.sync & g.rdy & g.counting)
            m.d.comb += insn_start_next.eq(cpu.sync_next & ~tia.wsync_next & (g.started | cpu.sync | cpu.sync_next))
        m.d.sync += pending.eq(pending_next)
        with m.If(sf):
            m.d.sync += g.odd_last.eq(g.frame_line[0])
        m.d.comb += [self.frame.insn_start_next.eq(insn_start_next),
                     self.frame.at_boundary_next.eq(insn_start_next & pending_next),
                     self.frame.jammed_next.eq(cpu.jammed_next),
                     # the next clock's access: the bus registers' next value (g.next_addr/next_rw)
                     self.frame.input_next.eq(input_read(g.next_addr[0:13], g.next_rw)),
                     self.frame.insn_start.eq(insn_start),
                     self.frame.at_boundary.eq(insn_start & pending), self.frame_pending.eq(pending),
                     self.frame.jammed.eq(cpu.jammed)]

    def _outputs(self, m, chips, g):
        """The console's observation ports and its pixel stream (shared; with three colour clocks
        per clock ``pixel``, ``drawn``, ``pixel_x`` and ``hpos`` describe the cycle's colour clock 0
        and ``pixels`` carries all three)."""
        cpu, tia, riot, cart = chips
        tia_bus = g.buses[1]
        m.d.comb += [
            self.pixel.eq(tia.clocks[0].pixel), self.drawn.eq(g.drawn[0]), self.pixel_x.eq(g.hpos - 68),
            self.row.eq(g.line - self.ystart), self.hpos.eq(g.hpos), self.line.eq(g.line),
            self.cyc.eq(g.cyc),
            # the program counter after the CPU's coming edge (one colour clock per clock, the CPU
            # steps later in the cycle than the grid's clock 0)
            self.pc.eq(Mux(cpu.ce, cpu.pc_next, cpu.state.pc) if self.colour_clocks == 1
                       else cpu.state.pc),
            self.tia_touch.eq(g.strobe & tia_bus.sel),
            self.pixels.visible.eq(Cat(*g.drawn)), self.pixels.line_end.eq(g.line_end),
            self.pixels.frame_end.eq(self.frame.start_frame),
        ]
        for k, clk in enumerate(tia.clocks):
            pix = self.pixels.pixel if self.colour_clocks == 1 else self.pixels.pixel[k]
            m.d.comb += pix.eq(clk.pixel)


def generate() -> dict[str, str]:
    """Verilog of the console tops, reproducible (no internal attributes): ``rtl/console_cc1.v``
    (one colour clock per clock; module ``console_cc1``) and ``rtl/console_cc3.v`` (three colour
    clocks per clock; module ``console_cc3``): the file's stem is its top module."""
    return {"console_cc1.v": reproducible.convert(Console(colour_clocks=1), "console_cc1"),
            "console_cc3.v": reproducible.convert(Console(colour_clocks=3), "console_cc3")}
