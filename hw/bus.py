"""The 2600's CPU bus as its chips see it, and the host's load port to the console's memories.

Two ``wiring.Signature`` s, each defined once here and reused by every block on either side:

* :data:`CpuBusSignature`: one chip's view of the 6507's bus (producer: the console, which
  decodes the CPU's address into chip selects; consumers: :class:`nc2600.hw.tia.Tia`,
  :class:`nc2600.hw.riot.Riot`, :class:`nc2600.hw.cartridge.Cartridge`). One access per CPU cycle; ``strobe`` is the
  clock edge at which the access completes (Stella performs the access there: writes, bank
  switching, timer side effects), ``cycle_end`` the edge that ends every CPU cycle, accessed or
  not (the TIA counts CPU cycles since HMOVE and VSYNC with it, the three-stage RIOT timer its
  cycle differences). When ``rdata`` is valid is each chip's timing contract (its docstring).
* :data:`NextAccessSignature`: the access of the next clock, a clock ahead, as the
  cartridge needs it to address its ROM in block RAM (producers: the three-colour-clock console,
  from the CPU's next-cycle probe, ``Cpu6507(addr_probe=True)``, and the one-colour-clock
  console, from the CPU's outputs, which its bus registers take at every clock; consumers:
  ``Cartridge(rom_read="next")`` and ``Cartridge(rom_read="ahead")``, ``Riot(ram_read="next")``).
* :data:`HostLoadSignature`: the host's port to one memory of the console (producer: the
  host side: :mod:`nc2600.hwtools.console_harness`, :class:`nc2600.hw.instance.GameInstance`; consumers:
  the RIOT's RAM, the cartridge's ROM and SuperChip RAM): one byte written per clock while the
  console is held in reset, and a combinational read of the byte at ``addr`` (the RAMs; the
  ROM has no host read port, its ``rdata`` is 0).
"""
from __future__ import annotations

from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["CpuBusSignature", "HostLoadSignature", "NextAccessSignature"]

#: One chip's view of the CPU bus (producer: the console's address decode).
CpuBusSignature = wiring.Signature({
    "sel": Out(1),        # chip select: the address is this chip's (nc2600.hw.console.chip_selects)
    "addr": Out(13),      # A12..A0, the 6507's address pins
    "write": Out(1),      # 1 write, 0 read (the 6507's R/W inverted)
    "wdata": Out(8),      # the CPU's data out (valid for writes)
    "strobe": Out(1),     # the access completes at this edge (not a dummy cycle; a read only with RDY high)
    "cycle_end": Out(1),  # a CPU cycle ends at this edge (every cycle: dummy and RDY-held ones too)
    "rdata": In(8),       # the chip's read data (timing: the chip's contract)
})

#: The next clock's access, one clock ahead (producer: the console; three colour clocks per
#: clock: the CPU's ``addr_next``/``rw_next`` probe, valid when the CPU's cycle ends at this
#: clock's edge, the present access again while it is held; one: the CPU's outputs, which the
#: bus registers take at this edge).
NextAccessSignature = wiring.Signature({
    "sel": Out(1),        # the next access's chip select (nc2600.hw.console.chip_selects)
    "addr": Out(13),      # its A12..A0
    "write": Out(1),      # it is a write
    "a13": Out(1),        # A13 of the CPU's 16-bit address (the FE mapper's bank)
})

#: The host's port to one console memory (producer: the host side; byte addresses).
HostLoadSignature = wiring.Signature({
    "we": Out(1),         # write wdata at addr at this clock edge (the console held in reset)
    "addr": Out(14),      # byte address (ROM: 0..16383; RAMs: 0..127, the low 7 bits)
    "wdata": Out(8),
    "rdata": In(8),       # the byte at addr, combinational (RAMs; the ROM answers 0)
})
