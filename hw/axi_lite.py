"""AXI4-Lite (AMBA AXI4-Lite, ARM IHI 0022E, section B1): the Signature, as seen by a master.

A slave takes it flipped: ``In(AxiLiteSignature(addr_width))``. 32-bit data, no ``PROT``
(unused by the slaves here). Responses: ``OKAY`` 0, ``SLVERR`` 2 (the slave refused the
access: a bad value or a command it cannot run now), ``DECERR`` 3 (no register at that address).
"""
from __future__ import annotations

from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

OKAY, EXOKAY, SLVERR, DECERR = 0, 1, 2, 3


def AxiLiteSignature(addr_width: int) -> wiring.Signature:
    """The five AXI4-Lite channels (write address, write data, write response, read
    address, read data) with ``addr_width`` address bits and 32-bit data, master's view."""
    if not 2 <= addr_width <= 32:
        raise ValueError(f"addr_width must be in 2..32, got {addr_width}")
    return wiring.Signature({
        "awaddr": Out(addr_width), "awvalid": Out(1), "awready": In(1),
        "wdata": Out(32), "wstrb": Out(4), "wvalid": Out(1), "wready": In(1),
        "bresp": In(2), "bvalid": In(1), "bready": Out(1),
        "araddr": Out(addr_width), "arvalid": Out(1), "arready": In(1),
        "rdata": In(32), "rresp": In(2), "rvalid": In(1), "rready": Out(1),
    })
