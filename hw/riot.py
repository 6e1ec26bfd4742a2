"""The RIOT (MOS 6532) of the Atari 2600 as Amaranth logic, with ALE 0.12 (Stella 2.4.2) rules.

* 128 bytes of RAM (``$80-$FF`` and mirrors where A9 = 0); the host loads and reads it
  through ``host`` (:data:`nc2600.hw.bus.HostLoadSignature`) (power-on contents are ALE's mt19937 draws, loaded by the
  harness).
* Timer with Stella's values, which come from the CPU cycle count, not a 6532 down-counter: a
  write to ``TIM1T/TIM8T/TIM64T/T1024T`` (``A4 = 1``, A1..A0 = interval) records the value, the
  interval shift (0, 3, 6, 10) and the cycle of the write; a read of INTIM at cycle
  ``c`` (Stella's ``cycles() - 1``) returns ``T - ((c - set) >> shift) - 1`` while that is
  non-negative, and afterwards Stella's read-after-interrupt rule (the first read at
  least 2 cycles past expiry restarts the count at one per cycle from that read); TIMINT
  (bit 7) is set from expiry until that first read. All arithmetic is 32-bit modular as
  in Stella; the cycle stamps are kept as differences from the write's cycle (``delta``, ``r``
  below), which Stella's ``System::resetCycles`` at each frame start leaves unchanged: formed
  in three register stages (``read_clocks=3``) or kept as counters of those formulas
  (``read_clocks=1``); ``tests/console/test_riot_timer.py`` checks the latter against them.
* SWCHA/SWCHB reads return the joystick and switch inputs (the data-direction registers
  are ignored, ALE behaviour); SWACNT reads back the last write, SWBCNT reads 0.
* Reset (``System::reset``): timer ``= timer_init`` (ALE draws ``25 + next() % 75``),
  interval 64, set at cycle 0, DDRA = 0. RAM keeps its contents.
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In

from nc2600.hw.bus import CpuBusSignature, HostLoadSignature, NextAccessSignature
from nc2600.hw.counters import count_clocks

__all__ = ["Riot"]


class Riot(wiring.Component):
    """RIOT RAM, timer and ports.

    Ports:
        bus: In(:data:`nc2600.hw.bus.CpuBusSignature`), one access per CPU cycle: ``sel`` the RIOT's
            chip select (A12 = 0, A7 = 1), whose A9 picks RAM (0) or I/O and timer (1);
            ``addr`` A9..A0 used; ``rdata`` is valid combinationally for reads at the access's
            last clock.
        host: In(:data:`nc2600.hw.bus.HostLoadSignature`), the RAM ($80 + ``addr[0:7]``).
        timer_init: In(8), the timer's value after reset (ALE's RNG draw).
        swcha, swchb: In(8), the joystick and console-switch inputs (SWCHA/SWCHB reads).

    ``bus.cycle_end`` marks every edge that ends a CPU cycle, strobe or not: the timer counts
    CPU cycles since its last write (differences of Stella's cycle stamps, which Stella's
    ``System::resetCycles`` at a frame start leaves unchanged). The first clock after reset
    loads ``timer_init`` and must end no CPU cycle (both consoles' CPUs are still in their reset
    sequence then).

    Args:
        read_clocks: 1 (one CPU cycle per clock, the three-colour-clock console: the read value
            from registers in the read's own clock; the timer kept as counters that step at
            each cycle end, so no 32-bit sum lies between them and the read data) or 3 (the
            console with three colour clocks per CPU cycle: the read value formed in three
            register stages from a state that changes only at cycle ends). Both give Stella's
            values (``M6532::peek``/``poke`` of Stella 2.4.2, 32-bit arithmetic) while fewer than
            2**31 CPU cycles pass without a timer write (about 30 minutes of console time; past
            that, with no INTIM read since expiry, Stella's second 32-bit difference turns
            positive and both read the first one's low byte instead).

        ram_read: ``"comb"`` (the RAM read combinationally at ``bus.addr``) or ``"next"`` (the
            three-colour-clock console: the RAM read synchronously at the clock before, addressed
            with the CPU's next access, ``next_bus``, :data:`nc2600.hw.bus.NextAccessSignature`, and
            transparent for the write at that edge, so that ``bus.rdata`` is the same byte in the
            access's own clock, from a register: no path from the CPU's address through the
            RAM into the read data). The host's read port stays combinational.

    Raises:
        ValueError: ``read_clocks`` is not 1 or 3, or ``ram_read`` not ``"comb"`` or ``"next"``.
    """

    def __init__(self, read_clocks: int = 1, ram_read: str = "comb"):
        if read_clocks not in (1, 3) or ram_read not in ("comb", "next"):
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise ValueError(f"read_clocks must be 1 or 3, not {read_clocks!r}" if read_clocks not in (1, 3)
                             else f"ram_read must be 'comb' or 'next', not {ram_read!r}")
        self.read_clocks = read_clocks
        self.ram_read = ram_read
        ports = {
            "bus": In(CpuBusSignature),
            "host": In(HostLoadSignature),
            "timer_init": In(8),
            "swcha": In(8, init=0xFF),
            "swchb": In(8, init=0x3F),
        }
        if ram_read == "next":
            ports["next_bus"] = In(NextAccessSignature)
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        bus, host = self.bus, self.host
        sel_ram = bus.sel & ~bus.addr[9]
        sel_io = bus.sel & bus.addr[9]
        m.submodules.ram = ram = Memory(shape=8, depth=128, init=[])
        wp = ram.write_port()
        if self.ram_read == "next":
            rp = ram.read_port(transparent_for=(wp,))
            m.d.comb += rp.addr.eq(self.next_bus.addr[0:7])
        else:
            rp = ram.read_port(domain="comb")
            m.d.comb += rp.addr.eq(bus.addr[0:7])
        hp = ram.read_port(domain="comb")
        m.d.comb += [hp.addr.eq(host.addr[0:7]), host.rdata.eq(hp.data)]
        # the write port's address and data do not depend on the strobe (only its enable does)
        m.d.comb += [wp.addr.eq(Mux(host.we, host.addr[0:7], bus.addr[0:7])),
                     wp.data.eq(Mux(host.we, host.wdata, bus.wdata)),
                     wp.en.eq(host.we | (sel_ram & bus.write & bus.strobe))]

        ddra = Signal(8)
        # reset value of the timer comes from the host (the RNG draw)
        # (read_clocks=3's timer value register; the counted timer keeps its own counters)
        timer_reg = Signal(8)
        started = Signal()
        with m.If(~started):
            m.d.sync += [timer_reg.eq(self.timer_init), started.eq(1)] if self.read_clocks == 3 else started.eq(1)

        a = bus.addr
        io = sel_io & bus.strobe
        timer_write = io & bus.write & (a[0:3] != 1) & (a[0:3] != 0) & (a[0:3] != 2) & (a[0:3] != 3) & a[4] & a[2]
        intim_read = io & ~bus.write & ((a[0:3] == 4) | (a[0:3] == 6))
        if self.read_clocks == 3:
            intim, timint = self._timer_staged(m, timer_reg, timer_write, intim_read)
        else:
            intim, timint = self._timer_counted(m, started, timer_write, intim_read)

        with m.If(~a[9]):           # RAM (A9 = 0)
            m.d.comb += bus.rdata.eq(rp.data)
        with m.Else():
            with m.Switch(a[0:3]):
                with m.Case(0):
                    m.d.comb += bus.rdata.eq(self.swcha)
                with m.Case(1):
                    m.d.comb += bus.rdata.eq(ddra)
                with m.Case(2):
                    m.d.comb += bus.rdata.eq(self.swchb)
                with m.Case(3):
                    m.d.comb += bus.rdata.eq(0)
                with m.Case(4, 6):
                    m.d.comb += bus.rdata.eq(intim)
                with m.Case(5, 7):
                    m.d.comb += bus.rdata.eq(Cat(Signal(7), timint))

        with m.If(io & bus.write & (a[0:3] == 1)):
            m.d.sync += ddra.eq(bus.wdata)
        if self.read_clocks == 3:
            with m.If(timer_write):
                m.d.sync += timer_reg.eq(bus.wdata)
        return m

    def _timer_counted(self, m, started, timer_write, intim_read):
        """Stella's values from counters that step at each cycle end (``read_clocks=1``).

        With delta = (Stella's cycles() - 1) - (cycle of the write), i.e. CPU cycles since the
        write less one, and T the written value: t1 = T - (delta >> shift) - 1 and t2 =
        (T << shift) - delta - 1 (32-bit), q = T + (T << shift) - (delta >> shift) and delta + 1
        (low bytes, for the value after the interrupt). A cycle end adds one to delta: t2
        drops by one, and t1 and q by one when delta + 1 is a multiple of 2**shift (the low
        ``shift`` bits of delta, ``sub``, all ones); a timer write sets delta to 0. The read
        then picks from registers as :meth:`_timer_staged` does."""
        bus = self.bus
        mask = Signal(10, init=63)       # 2**shift - 1 (reset: TIM64T)
        sub = Signal(10)                 # delta & mask
        t1 = Signal(32)                  # T - (delta >> shift) - 1
        t2 = Signal(32)                  # (T << shift) - delta - 1
        q = Signal(8)                    # low byte of T + (T << shift) - (delta >> shift)
        d1 = Signal(8, init=1)           # low byte of delta + 1
        r8 = Signal(8)                   # low byte of delta + 1 at the first read after the interrupt
        read_after_irq = Signal()

        def load(value, sel):
            """The state just after a write of ``value`` with interval ``sel`` (delta = 0)."""
            tsh = Mux(sel[1], Mux(sel[0], value << 10, value << 6), Mux(sel[0], value << 3, value))
            return [t1.eq(value - 1), t2.eq(tsh - 1), q.eq(value + tsh[0:8]), sub.eq(0), d1.eq(1),
                    mask.eq(Mux(sel[1], Mux(sel[0], 1023, 63), Mux(sel[0], 7, 0)))]

        wrap = Signal()
        m.d.comb += wrap.eq(sub == mask)
        with m.If(bus.cycle_end):
            m.d.sync += [sub.eq(Mux(wrap, 0, sub + 1)), t1.eq(t1 - wrap), t2.eq(t2 - 1), q.eq(q - wrap),
                         d1.eq(d1 + 1)]
        t1_nonneg = ~t1[31]
        becomes_rai = Signal()
        m.d.comb += becomes_rai.eq(~t1_nonneg & t2[31] & (t2 != 0xFFFFFFFF) & ~read_after_irq)
        t3_rai, t3_old = Signal(8), Signal(8)     # T - dsh - offset, offset from this read or the first
        m.d.comb += [t3_rai.eq(q - d1), t3_old.eq(q - r8)]
        intim = Signal(8)
        m.d.comb += intim.eq(Mux(t1_nonneg, t1[0:8], Mux(becomes_rai, t3_rai, Mux(read_after_irq, t3_old, t1[0:8]))))
        timint = Signal()
        m.d.comb += timint.eq(~(t1_nonneg | read_after_irq))

        with m.If(timer_write):
            m.d.sync += [*load(bus.wdata, bus.addr[0:2]), read_after_irq.eq(0)]
        with m.If(intim_read & becomes_rai):
            m.d.sync += [read_after_irq.eq(1), r8.eq(d1)]
        with m.If(~started):                       # reset: timer_init, TIM64T, set now
            m.d.sync += load(self.timer_init, Const(2, 2))
        return intim, timint

    def _timer_staged(self, m, timer_reg, timer_write, intim_read):
        """The same values from cycle differences, in three register stages (``read_clocks=3``).

        delta = cycles() - 1 - (cycle of the write) and r = (cycle of the first read after the
        interrupt) - (cycle of the write), both mod 2^32: delta counts CPU cycles (cycle_end) and
        restarts at 0 on a timer write, so frame starts need no adjustment. A read follows the
        last change of this state (a cycle's last edge) by three clocks: stage 1 registers the
        shifted count, timer << shift and delta + 1; stage 2 Stella's two 32-bit differences and
        the low byte of the read-after-interrupt value for both cases of becomes_rai.
        """
        shift_sel = Signal(2, init=2)     # interval shift 0, 3, 6, 10 (reset: TIM64T)
        delta = Signal(32)
        r_cyc = Signal(32)
        read_after_irq = Signal()

        def by_shift(v, amount):
            return Mux(shift_sel[1], Mux(shift_sel[0], amount(10, v), amount(6, v)),
                       Mux(shift_sel[0], amount(3, v), amount(0, v)))
        dsh = Signal(32)        # delta >> shift
        tsh = Signal(18)        # timer << shift
        delta1 = Signal(32)     # delta + 1
        m.d.sync += [dsh.eq(by_shift(delta, lambda k, v: v >> k)), tsh.eq(by_shift(timer_reg, lambda k, v: v << k)),
                     delta1.eq(delta + 1)]
        t1 = Signal(32)         # Stella: T - (delta >> shift) - 1
        t2 = Signal(32)         # Stella: (T << shift) - delta - 1
        t3_rai = Signal(8)      # low byte of T - dsh - offset when this read starts read-after-interrupt
        t3_old = Signal(8)      # ... when it started before (offset from r)
        m.d.sync += [t1.eq(timer_reg + ~dsh), t2.eq(tsh + ~delta),
                     t3_rai.eq(timer_reg + tsh[0:8] - dsh[0:8] - delta1[0:8]),
                     t3_old.eq(timer_reg + tsh[0:8] - dsh[0:8] - r_cyc[0:8])]
        t1_nonneg = ~t1[31]
        becomes_rai = Signal()
        m.d.comb += becomes_rai.eq(~t1_nonneg & t2[31] & (t2 != 0xFFFFFFFF) & ~read_after_irq)
        intim = Signal(8)
        m.d.comb += intim.eq(Mux(t1_nonneg, t1[0:8], Mux(becomes_rai, t3_rai, Mux(read_after_irq, t3_old, t1[0:8]))))
        timint = Signal()
        m.d.comb += timint.eq(~(t1_nonneg | read_after_irq))

        # delta as two 16-bit halves (as one step, the 32-bit increment under the fabric instance's
        # clock enable was 10 xc7 levels); the timer write's restart wins over the cycle's step
        count_clocks(m, delta, self.bus.cycle_end, timer_write, "delta")
        with m.If(timer_write):
            m.d.sync += [read_after_irq.eq(0), shift_sel.eq(self.bus.addr[0:2])]
        with m.If(intim_read & becomes_rai):
            m.d.sync += [read_after_irq.eq(1), r_cyc.eq(delta1)]
        return intim, timint
