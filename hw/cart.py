"""Cartridge mappers of ALE's ROM set as Amaranth logic (Stella 2.4.2 bank-switching rules).

The ROM image lives in a 16 KiB memory loaded by the host (``host_*`` ports); the mapper is
a run-time input (``mapper``, codes in :data:`MAPPER_CODES`), chosen by the host from the
ROM with :func:`hls_models.cartridge.detect_mapper` (ALE's auto-detection), never from the
file name. Rules (read from Stella 2.4.2's ``Cart*.cxx``):

* ``2K``: 2 KiB mirrored; ``4K``: 4 KiB.
* ``F8``/``F6``: any access (read or write, non-dummy) to ``$1FF8-$1FF9`` /
  ``$1FF6-$1FF9`` selects 4 KiB bank 0..1 / 0..3; a read of a hotspot returns the byte of
  the *new* bank. Reset bank: F8 1, F6 0.
* ``F8SC``/``F6SC``: as F8/F6 plus 128 bytes of RAM written at ``$1000-$107F`` and read at
  ``$1080-$10FF``; a read of the write port returns ROM. Reset bank: F8SC 1, F6SC 0; the
  RAM is re-filled by the host with ALE's RNG draws at each reset.
* ``E0``: four 1 KiB segments; accesses to ``$1FE0-$1FE7``/``$1FE8-$1FEF``/``$1FF0-$1FF7``
  select the slice of segment 0/1/2; segment 3 is slice 7. Reset slices 4, 5, 6.

Not yet implemented here: FE and DPC (the console refuses them: see
``hw.console.SUPPORTED``).
"""
from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.hdl import Elaboratable
from amaranth.lib.memory import Memory

__all__ = ["Cart", "MAPPER_CODES"]

MAPPER_CODES = {"2K": 0, "4K": 1, "F8": 2, "F6": 3, "F8SC": 4, "F6SC": 5, "E0": 6}


class Cart(Elaboratable):
    """Bank-switching logic, ROM and SuperChip RAM.

    Bus: ``sel`` (A12 = 1), ``addr[13]`` (A12..A0), ``write``, ``wdata``, ``strobe`` (the
    access completes at this edge, non-dummy), ``rdata`` (combinational).
    Host: ``host_we_rom``, ``host_we_ram``, ``host_addr[14]``, ``host_wdata``,
    ``host_rdata`` (cart RAM byte at ``host_addr``).
    """

    def __init__(self):
        self.mapper = Signal(4)
        self.sel = Signal()
        self.addr = Signal(13)
        self.write = Signal()
        self.wdata = Signal(8)
        self.strobe = Signal()
        self.rdata = Signal(8)
        self.host_we_rom = Signal()
        self.host_we_ram = Signal()
        self.host_addr = Signal(14)
        self.host_wdata = Signal(8)
        self.host_rdata = Signal(8)
        self.bank = Signal(2)

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = Memory(shape=8, depth=16384, init=[])
        m.submodules.ram = ram = Memory(shape=8, depth=128, init=[])
        rom_r = rom.read_port(domain="comb")
        rom_w = rom.write_port()
        ram_r = ram.read_port(domain="comb")
        ram_h = ram.read_port(domain="comb")
        ram_w = ram.write_port()
        m.d.comb += [rom_w.addr.eq(self.host_addr), rom_w.data.eq(self.host_wdata),
                     rom_w.en.eq(self.host_we_rom),
                     ram_h.addr.eq(self.host_addr[0:7]), self.host_rdata.eq(ram_h.data)]

        mp = self.mapper
        a = self.addr[0:12]
        bank = self.bank
        init_done = Signal()
        slices = [Signal(3, name=f"slice{i}") for i in range(3)]
        with m.If(~init_done):
            m.d.sync += init_done.eq(1)
            m.d.sync += bank.eq(Mux((mp == MAPPER_CODES["F8"]) | (mp == MAPPER_CODES["F8SC"]), 1, 0))
            m.d.sync += [slices[0].eq(4), slices[1].eq(5), slices[2].eq(6)]

        access = self.sel & self.strobe
        f8 = (mp == MAPPER_CODES["F8"]) | (mp == MAPPER_CODES["F8SC"])
        f6 = (mp == MAPPER_CODES["F6"]) | (mp == MAPPER_CODES["F6SC"])
        sc = (mp == MAPPER_CODES["F8SC"]) | (mp == MAPPER_CODES["F6SC"])
        e0 = mp == MAPPER_CODES["E0"]

        # bank after this access (hotspot reads return the new bank's byte)
        new_bank = Signal(2)
        m.d.comb += new_bank.eq(bank)
        with m.If(self.sel):
            with m.If(f8 & ((a == 0xFF8) | (a == 0xFF9))):
                m.d.comb += new_bank.eq(a - 0xFF8)
            with m.If(f6 & (a >= 0xFF6) & (a <= 0xFF9)):
                m.d.comb += new_bank.eq(a - 0xFF6)
        new_slices = [Signal(3, name=f"new_slice{i}") for i in range(3)]
        for i in range(3):
            m.d.comb += new_slices[i].eq(slices[i])
            with m.If(self.sel & e0 & (a >= 0xFE0 + 8 * i) & (a < 0xFE8 + 8 * i)):
                m.d.comb += new_slices[i].eq(a[0:3])
        with m.If(access & init_done):
            m.d.sync += bank.eq(new_bank)
            for i in range(3):
                m.d.sync += slices[i].eq(new_slices[i])

        seg = a[10:12]
        e0_slice = Mux(seg == 3, 7, Mux(seg == 0, new_slices[0], Mux(seg == 1, new_slices[1], new_slices[2])))
        rom_addr = Signal(14)
        with m.If(mp == MAPPER_CODES["2K"]):
            m.d.comb += rom_addr.eq(a[0:11])
        with m.Elif(mp == MAPPER_CODES["4K"]):
            m.d.comb += rom_addr.eq(a)
        with m.Elif(e0):
            m.d.comb += rom_addr.eq(Cat(a[0:10], e0_slice))
        with m.Else():
            m.d.comb += rom_addr.eq(Cat(a, new_bank))
        m.d.comb += rom_r.addr.eq(rom_addr)

        ram_read = sc & (a[7:12] == 1)       # $1080-$10FF
        ram_write = sc & (a[7:12] == 0)      # $1000-$107F
        m.d.comb += ram_r.addr.eq(a[0:7])
        m.d.comb += self.rdata.eq(Mux(ram_read, ram_r.data, rom_r.data))
        with m.If(self.host_we_ram):
            m.d.comb += [ram_w.addr.eq(self.host_addr[0:7]), ram_w.data.eq(self.host_wdata), ram_w.en.eq(1)]
        with m.Elif(access & self.write & ram_write):
            m.d.comb += [ram_w.addr.eq(a[0:7]), ram_w.data.eq(self.wdata), ram_w.en.eq(1)]
        return m
