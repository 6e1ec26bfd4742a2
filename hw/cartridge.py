"""Cartridge mappers of ALE's ROM set as Amaranth logic (Stella 2.4.2 bank-switching rules).

The ROM image lives in a 16 KiB memory loaded by the host (``host_rom`` port); the mapper is
a run-time input (``mapper``, codes in :data:`MAPPER_CODES`), chosen by the host from the
ROM with :func:`nc2600.hls_models.cartridge.detect_mapper` (ALE's auto-detection), never from the
file name. Rules (read from Stella 2.4.2's ``Cartridge*.cxx``):

* ``2K``: 2 KiB mirrored; ``4K``: 4 KiB.
* ``F8``/``F6``: any access (read or write, non-dummy) to ``$1FF8-$1FF9`` /
  ``$1FF6-$1FF9`` selects 4 KiB bank 0..1 / 0..3; a read of a hotspot returns the byte of
  the *new* bank. Reset bank: F8 1, F6 0.
* ``F8SC``/``F6SC``: as F8/F6 plus 128 bytes of RAM written at ``$1000-$107F`` and read at
  ``$1080-$10FF``; a read of the write port returns ROM. Reset bank: F8SC 1, F6SC 0; the
  RAM is re-filled by the host with ALE's RNG draws at each reset.
* ``FE``: 8 KiB; the 4 KiB bank is chosen by A13 of the CPU's full 16-bit address on
  every access (A13 = 1: bank 0, A13 = 0: bank 1), as Stella 2.4.2 does it (the stack
  accesses of JSR/RTS at ``$01FE/$01FF`` versus code at ``$Fxxx``/``$Dxxx``).
* ``E0``: four 1 KiB segments; accesses to ``$1FE0-$1FE7``/``$1FE8-$1FEF``/``$1FF0-$1FF7``
  select the slice of segment 0/1/2; segment 3 is slice 7. Reset slices 4, 5, 6.

* ``DPC`` (Pitfall II): F8-style banks (reset bank 1) over the first 8 KiB, the 2 KiB
  display image at image offset 8192, and the DPC chip: eight data fetchers (top, bottom,
  11-bit counter, flag) read at ``$1000-$103F`` (function = A5..A3: random number, display
  byte, byte AND flag, flag) and written at ``$1040-$107F`` (top, bottom, counter low,
  counter high + music mode, reset of the random number); the 8-bit random number
  generator (Stella's feedback table, starts at 1, not reset by RESET) is clocked by
  every access Stella routes to the cartridge device: reads of ``$1000-$107F`` and
  ``$1FC0-$1FFF`` and every write to the cartridge. Music mode fetchers do not count
  down on reads; the music amplitude read (function 0, fetchers 4..7) returns 0 (Stella
  computes it from a 15,750 Hz clock; it only feeds the audio registers). DPC state keeps
  its value across ``System::reset``, as in Stella.
"""
from __future__ import annotations

from types import SimpleNamespace

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import enum, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from nc2600.hls_models.cartridge import MAPPER_CODES as _MAPPER_CODES
from nc2600.hw.bus import CpuBusSignature, HostLoadSignature, NextAccessSignature

__all__ = ["Cartridge", "Mapper", "MAPPER_CODES"]


class Mapper(enum.Enum, shape=4):
    """The console's ``mapper`` input: the bank-switching scheme of the cartridge (Stella 2.4.2's
    names, as :func:`nc2600.hls_models.cartridge.detect_mapper` returns them: ``"2K"`` is ``K2``,
    ``"4K"`` is ``K4``)."""
    K2 = 0      #: 2 KiB, mirrored (Stella Cartridge2K)
    K4 = 1      #: 4 KiB (Cartridge4K)
    F8 = 2      #: 8 KiB, two banks, hotspots $1FF8/$1FF9
    F6 = 3      #: 16 KiB, four banks, $1FF6-$1FF9
    F8SC = 4    #: F8 with the 128-byte SuperChip RAM
    F6SC = 5    #: F6 with the SuperChip RAM
    E0 = 6      #: Parker Brothers: four 1 KiB slices
    FE = 7      #: Activision: bank from A13 of the JSR/RTS stack access
    DPC = 8     #: Pitfall II's Display Processor Chip


#: Stella's mapper names -> the ``mapper`` input's code (:class:`Mapper`), stated by the model
#: (:data:`nc2600.hls_models.cartridge.MAPPER_CODES`, which the host drivers use too).
MAPPER_CODES = _MAPPER_CODES


def _mapper_kind(mp) -> SimpleNamespace:
    """The mapper's flags (1-bit values of the ``mapper`` port ``mp``): ``f8`` (F8, F8SC and DPC's
    two banks), ``f6`` (F6, F6SC), ``sc`` (SuperChip RAM), ``e0``, ``dpc``; and ``mp`` itself."""
    f8 = (mp == Mapper.F8) | (mp == Mapper.F8SC)
    f6 = (mp == Mapper.F6) | (mp == Mapper.F6SC)
    sc = (mp == Mapper.F8SC) | (mp == Mapper.F6SC)
    e0 = mp == Mapper.E0
    dpc = mp == Mapper.DPC
    f8 = f8 | dpc
    return SimpleNamespace(mp=mp, f8=f8, f6=f6, sc=sc, e0=e0, dpc=dpc)


def _switched(m, kind, sel, a, bank, slices, suffix="", equalities=False):
    """The bank and E0 slices after an access at ``a`` (A11..A0) with chip select ``sel``, from
    ``bank`` and ``slices`` (``kind``: the mapper's flags, :func:`_mapper_kind`; hotspot reads
    return the new bank's byte): returns ``(new_bank, new_slices)``. ``equalities``: the hotspot
    ranges as equality tests on bit fields and the bank as bits of ``a`` (the same values, no
    carry chains: the next-access path)."""
    new_bank = Signal(2, name="new_bank" + suffix)
    m.d.comb += new_bank.eq(bank)
    # (equalities: $FF6-$FF9 is $FFx with x in 6..9; a - $FF8 there is A1..A0, a - $FF6 A1..A0 ^ 2)
    with m.If(sel):
        with m.If(kind.f8 & ((a == 0xFF8) | (a == 0xFF9))):
            m.d.comb += new_bank.eq(a[0:2] if equalities else a - 0xFF8)
        with m.If(kind.f6 & (a[4:12] == 0xFF) & ((a[0:4] == 6) | (a[0:4] == 7) | (a[0:4] == 8) | (a[0:4] == 9))
                  if equalities else kind.f6 & (a >= 0xFF6) & (a <= 0xFF9)):
            m.d.comb += new_bank.eq(a[0:2] ^ 2 if equalities else a - 0xFF6)
    new_slices = [Signal(3, name=f"new_slice{i}{suffix}") for i in range(3)]
    for i in range(3):
        m.d.comb += new_slices[i].eq(slices[i])
        # $FE0 + 8i .. $FE7 + 8i: A11..A3 = ($FE0 + 8i) >> 3
        with m.If(sel & kind.e0 & (a[3:12] == (0xFE0 + 8 * i) >> 3) if equalities else
                  sel & kind.e0 & (a >= 0xFE0 + 8 * i) & (a < 0xFE8 + 8 * i)):
            m.d.comb += new_slices[i].eq(a[0:3])
    return new_bank, new_slices


def _flag_rule(cnt, top, bottom, flag):
    """A DPC fetcher's flag as a read of it sees it (Stella 2.x's DPC: set at the top,
    cleared at the bottom, else kept)."""
    return Mux(cnt[0:8] == top, 0xFF, Mux(cnt[0:8] == bottom, 0, flag))


def _display_read(kind, sel, write, a, equalities=False):
    """A DPC register read at ``a``, and one of the display byte's (function 1 or 2)
    (``equalities``: ``a < $40`` as A11..A6 = 0)."""
    reg_read = kind.dpc & sel & ~write & ((a[6:12] == 0) if equalities else (a < 0x040))
    return reg_read, reg_read & ((a[3:6] == 1) | (a[3:6] == 2))


def _display_address(m, cnt, complement=False):
    """The display image's byte of a fetcher's 11-bit counter (ROM offset 8192 + 2047 - count;
    ``complement``: formed as the count's complement in bits 0..10 with bit 13 set, the same value
    without a subtraction)."""
    disp_addr = Signal(14, name="disp_addr")
    m.d.comb += disp_addr.eq(Cat(~cnt[0:11], Const(0b100, 3)) if complement else 8192 + (2047 - cnt))
    return disp_addr


def _rom_address(m, kind, a, a13, new_bank, new_slices, display, disp_addr, suffix=""):
    """The ROM byte address (14 bits) of an access at ``a`` (A11..A0) by the mapper (``kind``,
    :func:`_mapper_kind`), from its bank, E0 slices and DPC display read and address."""
    seg = a[10:12]
    e0_slice = Mux(seg == 3, 7, Mux(seg == 0, new_slices[0], Mux(seg == 1, new_slices[1], new_slices[2])))
    rom_addr = Signal(14, name="rom_addr" + suffix)
    with m.If(kind.mp == Mapper.K2):
        m.d.comb += rom_addr.eq(a[0:11])
    with m.Elif(kind.mp == Mapper.K4):
        m.d.comb += rom_addr.eq(a)
    with m.Elif(kind.e0):
        m.d.comb += rom_addr.eq(Cat(a[0:10], e0_slice))
    with m.Elif(kind.mp == Mapper.FE):
        m.d.comb += rom_addr.eq(Cat(a, ~a13))
    with m.Elif(display):
        m.d.comb += rom_addr.eq(disp_addr)
    with m.Else():
        m.d.comb += rom_addr.eq(Cat(a, new_bank))
    return rom_addr


class Cartridge(wiring.Component):
    """Bank-switching logic, ROM and SuperChip RAM.

    Ports:
        bus: In(:data:`nc2600.hw.bus.CpuBusSignature`): ``sel`` the cartridge's chip select (A12 = 1),
            ``addr`` A12..A0, ``strobe`` (the access completes at this edge, non-dummy).
            ``bus.rdata`` is the read data of the access in its own clock (the clock whose edge
            completes it), from the 16 KiB ROM read synchronously (a block RAM, 4 BRAM36 on
            7-series) at the clock before, addressed with the access given a clock ahead
            (``next_bus``), the SuperChip RAM's byte likewise (its synchronous read port
            addressed from ``next_bus``, transparent for a write at that edge) and the DPC random
            number and flag in that clock. The one-colour-clock console registers it at the access's edge (the
            CPU samples it a clock later); the three-colour-clock console's CPU samples it there.
        next_bus: In(:data:`nc2600.hw.bus.NextAccessSignature`): the access of the next clock (the
            CPU's outputs, which the one-colour-clock console's bus registers take at every
            clock; the three-colour-clock console's next-cycle probe). The ROM address is formed
            from it with the bank, slices and DPC counters as they will be after this clock's
            access (their next-state values, the same update rules): the byte is the one
            ``"comb"`` reads whenever ``next_bus`` named, in the clock before, this clock's
            ``addr``, ``sel`` and ``a13`` (``rom_read="ahead"``: the registers, below).
        a13: In(1), A13 of the CPU's 16-bit address (the FE mapper's bank, Stella's rule).
        mapper: In(:class:`Mapper`), :data:`MAPPER_CODES` by Stella's names.
        host_rom, host_ram: In(:data:`nc2600.hw.bus.HostLoadSignature`), the ROM image (write only:
            ``host_rom.rdata`` is 0) and the SuperChip RAM (``addr[0:7]``).
        bank: Out(2), the F8/F6 bank (for the host's view).

    ``rom_read="ahead"`` (no console's; the one-colour-clock console reads ``"late"``): the same, with the ROM address
    formed from the bank, slices and DPC counters as they are (the registers, not their next-state values): equal to
    ``"next"`` where no access completes in the clock the ROM is addressed and that clock is not the first after reset
    (whose edge sets the reset bank), as in that console (accesses complete in a cycle's colour clock 2, the ROM is
    addressed in clock 1; the CPU's first read is its reset vector's, from the third clock), and a shorter path from the
    CPU's address (no access's update logic in front of the ROM's address).

    ``rom_read="late"`` (for accesses that complete every third clock and hold the bus for the
    clock after, as the one-colour-clock console's bus registers do): the ROM is addressed in the
    access's own clock from ``bus`` with ``"comb"``'s address (the bank, slices and DPC counters
    as they are, the hotspot's new bank), a synchronous block-RAM read, and ``bus.rdata`` is the
    access's byte in the clock *after* it: the ROM's byte straight from the block RAM, the other
    sources (SuperChip RAM, addressed a clock ahead from ``next_bus`` as in ``"ahead"``, DPC random
    number and flag) and the selects registered at the access's edge, so that one LUT lies between
    the block RAM and ``rdata`` and no path runs from ``next_bus`` into the ROM's address. Every DPC
    fetcher's flag as a read would see it (set at the top, cleared at the bottom) is a register
    formed at every clock from the fetchers' registers, which only an access's edge changes, so it
    holds for an access at least two clocks after the previous one: the access's fetcher picks one
    of the eight (no counter compare between ``bus`` and the read data or the flag registers); the
    hotspots are equality tests and the display byte's address the count's complement (no carry
    chain between ``bus`` and the ROM's address).

    ``rom_read="comb"`` reads the ROM combinationally instead (the reference form the tests
    compare ``"next"`` with; distributed RAM/LUTs instead of block RAM on an FPGA), without the
    ``next_bus`` port; ``bus.rdata`` is again the read data of the access in its own clock.

    Raises:
        ValueError: ``rom_read`` is not ``"next"``, ``"ahead"``, ``"late"`` or ``"comb"``.
    """

    def __init__(self, rom_read: str = "next"):
        if rom_read not in ("next", "ahead", "late", "comb"):
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise ValueError(f"rom_read must be 'next', 'ahead', 'late' or 'comb', not {rom_read!r}")
        self.rom_read = rom_read
        ports = {
            "bus": In(CpuBusSignature),
            "a13": In(1),
            "mapper": In(Mapper),
            "host_rom": In(HostLoadSignature),
            "host_ram": In(HostLoadSignature),
            "bank": Out(2),
        }
        if rom_read in ("next", "ahead", "late"):
            ports["next_bus"] = In(NextAccessSignature)
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        rom_r, ram_r, ram_w = self._memories(m)
        bus, host_ram = self.bus, self.host_ram
        ahead = self.rom_read in ("next", "ahead")          # the ROM addressed from next_bus
        ram_ahead = self.rom_read in ("next", "ahead", "late")   # the SuperChip RAM addressed from next_bus

        mp = self.mapper
        a = bus.addr[0:12]
        bank = self.bank
        init_done = Signal()
        slices = [Signal(3, name=f"slice{i}") for i in range(3)]
        # ---- DPC data fetchers and random number generator (reset_less: Stella keeps them)
        tops = [Signal(8, name=f"dpc_top{i}", reset_less=True) for i in range(8)]
        bottoms = [Signal(8, name=f"dpc_bottom{i}", reset_less=True) for i in range(8)]
        counters = [Signal(11, name=f"dpc_counter{i}", reset_less=True) for i in range(8)]
        flags = [Signal(8, name=f"dpc_flag{i}", reset_less=True) for i in range(8)]
        # The registers the ROM address and the DPC flags are formed from (bank, E0 slices, DPC
        # counters, tops, bottoms and flags) are assigned through ``upd``: at the clock edge, or
        # (rom_read="next") into their next-state values (the same rules), which the registers
        # then take and the next access's ROM address and flag are formed from, a clock ahead.
        nexts = {}
        if self.rom_read == "next":
            for reg in [bank, *slices, *counters, *tops, *bottoms, *flags]:
                nx = Signal(len(reg), name=f"{reg.name}_next")
                nexts[id(reg)] = nx
                m.d.comb += nx.eq(reg)
                m.d.sync += reg.eq(nx)

        def upd(reg, value, lo=None, hi=None):
            target = nexts.get(id(reg))
            dom = m.d.sync if target is None else m.d.comb
            target = reg if target is None else target
            dom.__iadd__((target if lo is None else target[lo:hi]).eq(value))

        with m.If(~init_done):
            m.d.sync += init_done.eq(1)
            upd(bank, Mux((mp == Mapper.F8) | (mp == Mapper.F8SC) | (mp == Mapper.DPC), 1, 0))
            for i, v in enumerate((4, 5, 6)):
                upd(slices[i], v)

        access = bus.sel & bus.strobe
        kind = _mapper_kind(mp)
        sc, dpc = kind.sc, kind.dpc

        # ("late": the hotspot ranges as equality tests, no carry chain between the bus address and
        # the ROM's address)
        late = self.rom_read == "late"
        new_bank, new_slices = _switched(m, kind, bus.sel, a, bank, slices, equalities=late)
        with m.If(access & init_done):
            upd(bank, new_bank)
            for i in range(3):
                upd(slices[i], new_slices[i])

        music = [Signal(name=f"dpc_music{i}", reset_less=True) for i in range(3)]
        rng = Signal(8, init=1, reset_less=True)
        self.dpc_rng = rng
        fb = Const(0b1001011001101001, 16)   # Stella's feedback table, bit i = f[i]
        rng_next = Signal(8)
        m.d.comb += rng_next.eq(Cat(fb.bit_select(Cat(rng[3:6], rng[7]), 1), rng[0:7]))
        dev_read = bus.sel & ~bus.write & ((a < 0x080) | (a >= 0xFC0))
        dev_access = dev_read | (bus.sel & bus.write)
        idx = a[0:3]
        func = a[3:6]
        cnt_i = Array(counters)[idx]
        top_i = Array(tops)[idx]
        bot_i = Array(bottoms)[idx]
        flag_i = Array(flags)[idx]
        flag_new = Signal(8)

        flag_news = self._dpc_flags(m, nexts, idx, (counters, tops, bottoms, flags), (cnt_i, top_i, bot_i, flag_i),
                                    flag_new)
        music_i = Signal()
        m.d.comb += music_i.eq(Mux(idx >= 5, Array(music + [Const(0, 1)] * 5)[idx - 5], 0))

        dpc_reg_read, dpc_rom = _display_read(kind, bus.sel, bus.write, a, equalities=late)
        dpc_rdata = Signal(8)
        disp_addr = _display_address(m, cnt_i, complement=late)
        with m.If(dpc & access & dev_access):
            m.d.sync += rng.eq(rng_next)
        self._dpc_fetcher_writes(m, upd, dpc & access, dpc_reg_read, idx, func, flag_news, counters, tops, bottoms,
                                 flags, music, rng)

        if ahead:
            # the next access's ROM address from the next-state bank, slices and counters (the
            # registers themselves with rom_read="ahead"): the read port's address a clock ahead (block RAM), its
            # byte read in the access's clock
            # (shortened where equal: the E0 hotspots lie in segment 3, always slice 7, so an
            # access never reads a slice its own switch changes: the slices before it serve; the
            # display byte 8192 + 2047 - count of an 11-bit count is count's complement in bits
            # 0..10 with bit 13 set, no subtraction)
            nb = self.next_bus
            a_nx = nb.addr[0:12]
            nxv = [nexts.get(id(r), r) for r in (bank, *slices)]
            new_bank_nx, _ = _switched(m, kind, nb.sel, a_nx, nxv[0], nxv[1:], "_nx", equalities=True)
            _, dpc_rom_nx = _display_read(kind, nb.sel, nb.write, a_nx, equalities=True)
            cnt_nx = Array(nexts.get(id(c), c) for c in counters)[a_nx[0:3]]
            disp_nx = Signal(14, name="disp_addr_next")
            m.d.comb += disp_nx.eq(Cat(~cnt_nx[0:11], Const(0b100, 3)))
            rom_addr = _rom_address(m, kind, a_nx, nb.a13, new_bank_nx, nxv[1:], dpc_rom_nx, disp_nx, "_nx")
        else:
            rom_addr = _rom_address(m, kind, a, self.a13, new_bank, new_slices, dpc_rom, disp_addr)
        m.d.comb += rom_r.addr.eq(rom_addr)
        ram_read = sc & (a[7:12] == 1)       # $1080-$10FF
        ram_write = sc & (a[7:12] == 0)      # $1000-$107F
        m.d.comb += ram_r.addr.eq(self.next_bus.addr[0:7] if ram_ahead else a[0:7])
        # The read data in the access's own clock: the ROM's byte (plain, or ANDed with the DPC
        # fetcher's flag as the access sees it, before its own update of the fetchers), else the
        # other byte (SuperChip RAM, DPC random number or flag, 0)
        flag_seen = Signal(8)
        other_seen = Signal(8)
        rom_seen = Signal()
        masked_seen = Signal()
        seen = m.d.comb
        with m.Switch(func):
            with m.Case(0):
                m.d.comb += dpc_rdata.eq(Mux(idx < 4, rng_next, 0))
            with m.Case(7):
                m.d.comb += dpc_rdata.eq(flag_new)
        seen += [flag_seen.eq(flag_new), other_seen.eq(Mux(ram_read, ram_r.data, dpc_rdata)),
                     rom_seen.eq(~ram_read & (~dpc_reg_read | dpc_rom)), masked_seen.eq(dpc_reg_read & (func == 2))]
        if self.rom_read == "late":
            # the access's byte in the clock after it: per bit (ROM & keep) | other, keep and other
            # registered at the access's edge (keep: the ROM's byte passes, ANDed with the flag
            # where masked; other: the other source's byte where the ROM's does not pass)
            keep_q, other_q = Signal(8, name="rom_keep_q"), Signal(8, name="other_q")
            m.d.sync += [keep_q.eq(Mux(rom_seen, Mux(masked_seen, flag_seen, 0xFF), 0)),
                         other_q.eq(Mux(rom_seen, 0, other_seen))]
            m.d.comb += bus.rdata.eq((rom_r.data & keep_q) | other_q)
        else:
            m.d.comb += bus.rdata.eq(Mux(rom_seen, Mux(masked_seen, rom_r.data & flag_seen, rom_r.data), other_seen))
        # the write port's address and data do not depend on the strobe (only its enable does)
        m.d.comb += [ram_w.addr.eq(Mux(host_ram.we, host_ram.addr[0:7], a[0:7])),
                     ram_w.data.eq(Mux(host_ram.we, host_ram.wdata, bus.wdata)),
                     ram_w.en.eq(host_ram.we | (access & bus.write & ram_write))]
        return m

    def _dpc_flags(self, m, nexts, idx, fetchers, chosen, flag_new):
        """The DPC flag an access to fetcher ``idx`` sees, driven into ``flag_new`` (8 bits), per
        ``rom_read``; returns the eight flags a read of each fetcher sets. ``fetchers``: the fetchers'
        (counters, tops, bottoms, flags), eight each; ``chosen``: the same four of fetcher ``idx``;
        ``nexts``: the next-state signals of the registers (``rom_read="next"``)."""
        counters, tops, bottoms, flags = fetchers
        flag_news = [flag_new] * 8    # the flag a read of fetcher i sets (the chosen one's)
        if self.rom_read == "next":
            # the flag of the next access's fetcher, a register formed a clock ahead: every
            # fetcher's from its next-state registers, the next access's index picking one (so
            # that no compare lies between this access's address and its read data, nor between
            # the next address and the register: xc7 logic depth)
            rules = [_flag_rule(*(nexts[id(regs[i])] for regs in (counters, tops, bottoms, flags))) for i in range(8)]
            m.d.sync += flag_new.eq(Array(rules)[self.next_bus.addr[0:3]])
        elif self.rom_read == "late":
            # every fetcher's flag as a read of it would see it, registered at every clock from the
            # fetchers' registers (which change only at an access's edge, and the next access
            # completes two clocks later at the earliest): the access's fetcher picks one, so that no
            # compare lies between the bus address and the read data or the flag registers
            flag_news = [Signal(8, name=f"dpc_flag_seen{i}", reset_less=True) for i in range(8)]
            m.d.sync += [flag_news[i].eq(_flag_rule(counters[i], tops[i], bottoms[i], flags[i])) for i in range(8)]
            m.d.comb += flag_new.eq(Array(flag_news)[idx])
        else:
            m.d.comb += flag_new.eq(_flag_rule(*chosen))
        return flag_news

    def _memories(self, m):
        """The ROM (16 KiB) and the SuperChip RAM (128 bytes) with the host's ports: returns the
        ROM's and the RAM's read ports for the CPU and the RAM's write port (shared with the
        host)."""
        m.submodules.rom = rom = Memory(shape=8, depth=16384, init=[])
        m.submodules.ram = ram = Memory(shape=8, depth=128, init=[])
        # synchronous read (block RAM), addressed a clock ahead ("late": in the access's clock); or
        # combinational
        ahead = self.rom_read in ("next", "ahead", "late")
        if ahead:
            rom_r = rom.read_port()
        else:
            rom_r = rom.read_port(domain="comb")
        rom_w = rom.write_port()
        ram_w = ram.write_port()
        # rom_read="next"/"ahead": the SuperChip RAM read a clock ahead too, with the next access's
        # address, transparent for the write at that edge (the byte of the access's own clock)
        ram_r = ram.read_port(transparent_for=(ram_w,)) if ahead else ram.read_port(domain="comb")
        ram_h = ram.read_port(domain="comb")
        host_rom, host_ram = self.host_rom, self.host_ram
        m.d.comb += [rom_w.addr.eq(host_rom.addr), rom_w.data.eq(host_rom.wdata),
                     rom_w.en.eq(host_rom.we),
                     ram_h.addr.eq(host_ram.addr[0:7]), host_ram.rdata.eq(ram_h.data)]
        return rom_r, ram_r, ram_w

    def _dpc_fetcher_writes(self, m, upd, dpc_access, dpc_reg_read, idx, func, flag_news, counters, tops, bottoms,
                            flags, music, rng):
        """The DPC's data fetchers at an access (``dpc_access``: a completed access to a DPC
        cartridge) to fetcher ``idx`` (A2..A0) and function ``func`` (A5..A3): a read of fetcher i's
        register moves its counter down and updates its flag (to ``flag_news[i]``, 8 bits; a music fetcher's
        counter holds), a write at $040-$07F sets its top, bottom, counter or music mode, or resets
        the random number generator ``rng`` (Stella 2.x's DPC). Registers assigned through ``upd``
        (see :meth:`elaborate`)."""
        bus = self.bus
        a = bus.addr[0:12]
        with m.If(dpc_access & dpc_reg_read):
            for i in range(8):
                with m.If(idx == i):
                    upd(flags[i], flag_news[i])
                    if i < 5:
                        upd(counters[i], counters[i] - 1)
                    else:
                        with m.If(~music[i - 5]):
                            upd(counters[i], counters[i] - 1)
        with m.If(dpc_access & bus.write & (a >= 0x040) & (a < 0x080)):
            for i in range(8):
                with m.If(idx == i):
                    with m.Switch(func):
                        with m.Case(0):
                            upd(tops[i], bus.wdata)
                            upd(flags[i], 0)
                        with m.Case(1):
                            upd(bottoms[i], bus.wdata)
                        with m.Case(2):
                            if i >= 5:
                                upd(counters[i], Mux(music[i - 5], tops[i], bus.wdata), 0, 8)
                            else:
                                upd(counters[i], bus.wdata, 0, 8)
                        with m.Case(3):
                            upd(counters[i], bus.wdata[0:3], 8, 11)
                            if i >= 5:
                                m.d.sync += music[i - 5].eq(bus.wdata[4])
                        with m.Case(6):
                            m.d.sync += rng.eq(1)
