"""One fabric instance as one design: console -> preprocessor -> policy engine -> action select
-> frame-skip controller, behind an AXI4-Lite slave (the node processor's view).

Blocks and arrows (each arrow a ``wiring.Signature`` defined next to its producer):

- :class:`nc2600.hw.console.Console` ``pixels`` (:data:`nc2600.hw.console.PixelStreamSignature`, or
  :data:`nc2600.hw.console.PixelStream3Signature` with three colour clocks per cycle) ->
  :class:`nc2600.hw.preprocessor.Preprocessor` ``stream``, joined with ``wiring.connect``;
- the engine's observation read port (:data:`nc2600.hw.interfaces.ObservationReadSignature`, a byte
  per read, for the lane engine; :func:`nc2600.hw.interfaces.observation_word_signature`, an ``R``-byte
  word per read, for the array engine) -> the preprocessor's stack, ``wiring.connect``;
- the engine's action values (:func:`nc2600.hw.policy_engine.action_values_signature`, a stream) ->
  :class:`nc2600.hw.action_select.ActionSelect`, ``wiring.connect``;
- the chosen action -> :class:`nc2600.hw.frame_skip.FrameSkip`, which drives the console
  (:data:`nc2600.hw.frame_skip.ConsoleDriveSignature`: clock enable, frame start, and the controller
  inputs :data:`nc2600.hw.console.ControllerSignature` joined with ``wiring.connect``) and the preprocessor
  (:data:`nc2600.hw.preprocessor.PreprocessorControlSignature`).

The console runs under a clock enable (``EnableInserter``) that the controller holds low
between frames (at ALE's frame boundary, where the pixel stream is idle), so the episode
pauses for the rules, the observation and the inference while the preprocessor's pipeline
keeps running.

The engine is :class:`nc2600.hw.policy_array.ArrayPolicyEngine` (``engine="array"``, the default:
``rows x cols`` MACs, 16 x 16 by default, the preprocessor keeping its stack in the array's
``rows``-byte words, ``Preprocessor(stack_rows=rows)``) or :class:`nc2600.hw.policy_engine.PolicyEngine`
(``engine="lane"``: ``lanes`` MAC lanes, the preprocessor's byte stack); both int8, bit-exact with
:mod:`nc2600.hls_models.policy_int8`.
The host loads an individual's parameters through ``PARAM_ADDR``/``PARAM_DATA`` (the engine's
parameter write port) between episodes, in the engine's load format
(:func:`nc2600.hls_models.policy_engine.load_words` or :func:`nc2600.hls_models.policy_array.load_words`);
each ``PARAM_DATA`` write steps ``PARAM_ADDR`` to the format's next word of the row
(:func:`nc2600.hls_models.engines.param_step`).

Register map: the SystemRDL description ``hls_models/registers/nc2600.rdl``
(:data:`nc2600.hls_models.registers.INSTANCE`; page ``docs/hardware/register-map.md``). The register file
is built from it (:mod:`nc2600.hw.register_file`: every register's width, field positions and reset
value), the decode takes every address from it, and elaboration fails when the RTL's groups of
registers (stored, command, read source, memory window) differ from the description's access.
Unmapped addresses answer ``DECERR``; a command the instance cannot run
(start or manual frame without a ROM or while not idle, rules when not waiting for them, a ROM
size that is not a multiple of 2 KiB up to 16 KiB, a memory write past its end, a parameter
write while not idle) answers ``SLVERR`` and sets a sticky error bit in ``STATUS``.
"""
from __future__ import annotations

from amaranth import Array, Cat, Const, EnableInserter, Module, Mux, ResetInserter, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In

from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS
from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.engines import (DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_LANES, DEFAULT_ROWS, ENGINES,  # noqa: F401
                                check_engine, param_step)
from nc2600.hls_models.registers import ENUMS, INSTANCE as R, NODE
from nc2600.hw import register_file as rf
from nc2600.hw import reproducible
from nc2600.hw.action_select import ActionSelect
from nc2600.hw.axi_lite import DECERR, OKAY, SLVERR, AxiLiteSignature
from nc2600.hw.console import Console
from nc2600.hw.frame_skip import FrameSkip, State
from nc2600.hw.interfaces import ACC_BITS, ParameterWriteSignature
from nc2600.hw.policy_array import ArrayPolicyEngine
from nc2600.hw.policy_engine import PolicyEngine
from nc2600.hw.preprocessor import Preprocessor

ADDR_WIDTH = NODE.select_bit      #: the instance's address bits (17: the node's instance stride)
ID_VALUE = R.ID.reset             #: 0x4E433236, "NC26"
ROM_SIZES = tuple(range(2048, 16385, 2048))    #: ROM images the instance takes (bytes; DPC: 10 KiB)
#: arrays of at least this many entries decode as one range compare plus a registered entry
#: index (the action table); shorter ones as one compare per entry (NEEDED)
RANGE_DECODE_MIN = 8
#: registers whose write is a command (an action beyond storing the word), by the description:
#: a write-only register, or a field with ``swmod`` or ``singlepulse``
COMMANDS = ("PARAM_DATA", "ROM_SIZE", "MEM_DATA", "RULES", "CONTROL")
#: The default configuration of an instance (:class:`GameInstance`, the Verilated
#: :class:`nc2600.hwtools.instance_harness.InstanceSim`, the node, the CLI): the 16 x 16 array engine with
#: the three-colour-clock console (one CPU cycle per clock, the fastest configuration);
#: ``rtl/instance_cc3.v`` is this configuration. The engine kinds (``ENGINES``), the default engine and
#: its sizes are :mod:`nc2600.hls_models.engines`'s, and :func:`param_step` is its dispatch to the engine
#: model's ``PARAM_ADDR`` stepping rule.


def _is_command(reg) -> bool:
    return reg.writable and (not reg.readable or any(f.swmod or f.singlepulse for f in reg.fields))


def check_groups() -> dict[str, list[str]]:
    """The register groups the RTL implements, checked against the description's access.

    Returns:
        ``{"stored": [...], "commands": [...], "sources": [...], "windows": [...]}``: read-write
        registers held in the register file (written word by word), command registers
        (:data:`COMMANDS`), read-only registers driven by the design, memory windows (RIOT and
        SuperChip RAM).
    Raises:
        ValueError: a register of the description that the RTL does not implement as declared
            (for example a new command register, or a read-write register that became a command).
    """
    groups = {"stored": [], "commands": [], "sources": [], "windows": []}
    for reg in R:
        if reg.memory_window:
            if reg.access != "r":
                raise ValueError(f"{reg.name}: a memory window is read-only")
            groups["windows"].append(reg.name)
        elif _is_command(reg):
            groups["commands"].append(reg.name)
        elif reg.access == "rw":
            groups["stored"].append(reg.name)
        elif reg.access == "r":
            groups["sources"].append(reg.name)
        else:
            raise ValueError(f"{reg.name}: access {reg.access!r} not implemented")
    if set(groups["commands"]) != set(COMMANDS):
        raise ValueError(f"command registers of the description {sorted(groups['commands'])} are not the "
                         f"RTL's {sorted(COMMANDS)}")
    return groups


def check_config(colour_clocks: int = DEFAULT_COLOUR_CLOCKS, engine: str = DEFAULT_ENGINE,
                 rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> None:
    """Validate an instance configuration (:class:`GameInstance`'s arguments of those names).

    Raises:
        ValueError: ``colour_clocks`` not 1 or 3, ``engine`` not in :data:`nc2600.hls_models.engines.ENGINES`, or
            an array shape that the engine (:func:`nc2600.hls_models.policy_array.check_shape`) or the
            preprocessor's word stack (:func:`nc2600.hw.preprocessor.word_stack_tiling`) does not take.
    """
    if colour_clocks not in (1, 3):
        raise ValueError(f"colour_clocks must be 1 or 3, not {colour_clocks!r}")
    check_engine(engine)
    if engine == "array":
        from nc2600.hls_models.policy_array import check_shape
        from nc2600.hw.preprocessor import word_stack_tiling
        check_shape(rows, cols)
        word_stack_tiling(rows, colour_clocks)


class GameInstance(wiring.Component):
    """One instance (see module doc).

    Args:
        height: the game's screen height (rows; the preprocessor's frame size).
        fmt: ``"NTSC"`` or ``"PAL"`` (the preprocessor's grey table).
        lanes: the lane engine's MAC lanes.
        colour_clocks: the console's configuration, 3 (the default) or 1
            (``Console(colour_clocks=3)``: one CPU cycle per clock, its three-pixel
            stream into ``Preprocessor(pixels_per_cycle=3)``; 1: one colour clock per clock, the
            CPU every third); the ``CYCLES_*`` registers count fabric clocks either way.
        engine: ``"array"`` (:class:`nc2600.hw.policy_array.ArrayPolicyEngine`, the default) or ``"lane"``
            (:class:`nc2600.hw.policy_engine.PolicyEngine`).
        rows, cols: the array engine's shape (:func:`nc2600.hls_models.policy_array.check_shape`; with
            three colour clocks per cycle ``rows >= 8``, :func:`nc2600.hw.preprocessor.word_stack_tiling`).
    Raises:
        ValueError: ``colour_clocks`` is not 1 or 3, ``engine`` not in :data:`nc2600.hls_models.engines.ENGINES`,
            or an array shape the engine or the preprocessor's word stack does not take.
    Ports:
        bus: In(:func:`nc2600.hw.axi_lite.AxiLiteSignature` (17)), the host interface.
    """

    def __init__(self, height: int = 210, fmt: str = "NTSC", lanes: int = DEFAULT_LANES,
                 colour_clocks: int = DEFAULT_COLOUR_CLOCKS, engine: str = DEFAULT_ENGINE,
                 rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS):
        try:
            check_config(colour_clocks, engine, rows, cols)
        except ValueError:
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise
        self.height, self.fmt, self.lanes = height, fmt, lanes
        self.engine, self.rows, self.cols = engine, rows, cols
        self.colour_clocks = colour_clocks
        super().__init__({"bus": In(AxiLiteSignature(ADDR_WIDTH))})

    def elaborate(self, platform):
        m = Module()
        b = self._blocks(m)
        regs = self._register_file(m, b)
        self._host_slave(m, b, regs)
        return m

    def _blocks(self, m):
        """The blocks and the arrows between them; returns them by name (``console``, ``pre``,
        ``engine``, ``select``, ``ctrl``, ``drive``, ``con_ce``, ``con_rst``)."""
        con_ce = Signal()
        con_rst = Signal()
        console = Console(self.colour_clocks)
        m.submodules.console = ResetInserter({"sync": con_rst})(EnableInserter({"sync": con_ce})(console))
        if self.engine == "lane":
            m.submodules.pre = pre = Preprocessor(self.height, self.fmt, self.colour_clocks)
            m.submodules.engine = engine = PolicyEngine(self.lanes, MAX_ACTIONS)
        else:
            m.submodules.pre = pre = Preprocessor(self.height, self.fmt, self.colour_clocks,
                                                  stack_rows=self.rows)
            m.submodules.engine = engine = ArrayPolicyEngine(self.rows, self.cols, MAX_ACTIONS)
        m.submodules.select = select = ActionSelect(MAX_ACTIONS, ACC_BITS)
        m.submodules.ctrl = ctrl = FrameSkip(MAX_ACTIONS)

        # the pixel stream registered between the console and the preprocessor (xc7 depth: the
        # TIA's pixel logic and the preprocessor's grey-table read were one path, 12-14 xc7
        # levels): the preprocessor sees every beat one clock later, in the same order; the
        # stream has no valid, the controller's push/zero_prev are sampled at a frame's first
        # visible pixel, thousands of clocks after the frame starts, and the observation is read
        # after the frame has ended, so nothing else moves
        # A beat is the console's clock that ran: its flags are taken with the clock enable, so a
        # clock held mid-frame (a hidden decision's stall at a controller read, which may fall in
        # a drawn line) repeats no pixel; elsewhere the console pauses only between frames, where
        # its flags are low
        pixels_r = console.pixels.signature.create(path=("pixels_r",))
        beat_flags = {"visible", "line_end", "frame_end"}
        for (path, _, src), (_, _, dst) in zip(console.pixels.signature.flatten(console.pixels),
                                               pixels_r.signature.flatten(pixels_r)):
            m.d.sync += dst.eq(Mux(con_ce, src, 0) if path[0] in beat_flags else src)
        wiring.connect(m, pixels_r, pre.stream)
        wiring.connect(m, engine.obs, pre.rd)
        wiring.connect(m, engine.action_values, select.action_values)
        wiring.connect(m, engine.control, ctrl.engine)
        wiring.connect(m, select.chosen, ctrl.chosen)
        wiring.connect(m, ctrl.pre, pre.ctl)
        d = ctrl.drive
        wiring.connect(m, d.controllers, console.controllers)
        # the frame start and stop conditions (ce drives the console's EnableInserter below)
        wiring.connect(m, console.frame, d.frame)
        m.d.comb += con_ce.eq(d.ce | con_rst)
        return _Parts(console=console, pre=pre, engine=engine, select=select, ctrl=ctrl, drive=d,
                      con_ce=con_ce, con_rst=con_rst)

    def _register_file(self, m, b):
        """The registers of the description (:mod:`nc2600.hw.register_file`) and what they drive;
        returns ``store`` (register name -> list of storage views, one per array entry),
        ``sources`` (read-only register name -> its value), ``errors`` (the sticky error
        bits, STATUS's ``err_*`` fields from ``err_base`` on) and ``rom_loaded``."""
        console, ctrl, pre, engine = b.console, b.ctrl, b.pre, b.engine
        groups = check_groups()
        store = {name: [rf.storage(R[name], _storage_name(R[name], i)) for i in range(R[name].count)]
                 for name in groups["stored"] + [n for n in groups["commands"] if R[n].readable]}
        one = {name: views[0] for name, views in store.items() if R[name].count == 1}
        cc, ep, inputs, pc = one["CONSOLE_CFG"], one["EP_CFG"], one["INPUTS"], one["PADDLE_CFG"]
        m.d.comb += [
            console.mapper.eq(cc.mapper), console.pal.eq(cc.pal), console.hmove_blanks.eq(cc.hmove_blanks),
            console.ystart.eq(cc.ystart), console.height.eq(cc.height), console.timer_init.eq(one["TIMER_INIT"].value),
            ctrl.noops.eq(ep.noops), ctrl.noop_index.eq(ep.noop_index), ctrl.fire_en.eq(ep.fire_en),
            ctrl.fire_index.eq(ep.fire_index), ctrl.frame_skip.eq(ep.frame_skip), ctrl.hide.eq(ep.hide),
            ctrl.episode_frames.eq(one["EP_FRAMES"].frames),
            ctrl.swchb.eq(inputs.swchb), ctrl.man_swcha.eq(inputs.swcha), ctrl.man_swchb.eq(inputs.swchb),
            ctrl.man_inpt4.eq(inputs.inpt4), ctrl.man_inpt5.eq(inputs.inpt5),
            ctrl.paddle_en.eq(pc.enable), ctrl.paddle_swap.eq(pc.swap),
            ctrl.paddle_lo.eq(one["PADDLE_LO"].value), ctrl.paddle_hi.eq(one["PADDLE_HI"].value),
            ctrl.paddle_start.eq(one["PADDLE_START"].value),
            ctrl.paddle_fixed_needed.eq(one["PADDLE_FIXED"].value), ctrl.reward.eq(one["REWARD"].value),
        ]
        for i in range(4):
            m.d.comb += [ctrl.man_needed[i].eq(store["NEEDED"][i].value),
                         ctrl.man_mode[i].eq(inputs[f"paddle_mode{i}"]), ctrl.paddle_mode[i].eq(pc[f"mode{i}"])]
        for i in range(MAX_ACTIONS):
            e, t = ctrl.actions[i], store["ACTION_TABLE"][i]
            m.d.comb += [e.swcha.eq(t.swcha), e.inpt4.eq(t.inpt4), e.inpt5.eq(t.inpt5), e.paddle.eq(t.paddle)]

        rom_loaded = Signal()
        sticky = [f for f in R.STATUS.fields if f.sticky]
        err_base = min(f.lsb for f in sticky)
        errors = Signal(max(f.msb for f in sticky) + 1 - err_base)
        cycle = Signal(R.CYCLE.width)
        m.d.sync += cycle.eq(cycle + 1)
        idle = ctrl.state == State.IDLE
        host_turn = Signal()
        status_sync = Signal()
        m.d.comb += host_turn.eq(idle | (ctrl.state == State.RULES))
        err = {f.name: errors[f.lsb - err_base] for f in sticky}
        status = Signal(R.STATUS.width)
        m.d.comb += status.eq(rf.pack(
            R.STATUS, state=ctrl.state.as_value(), phase=ctrl.phase.as_value(), done=ctrl.done,
            game_over=ctrl.game_over, rom_loaded=rom_loaded, engine_busy=engine.control.busy, host_turn=host_turn,
            err_sync=status_sync, **err))
        m.d.comb += status_sync.eq(pre.sync_error)
        with m.If(console.frame.jammed & (ctrl.state == State.FRAME)):
            m.d.sync += err["err_jam"].eq(1)
        sources = {"ID": Const(ID_VALUE, R.ID.width), "STATUS": status,
                   "RETURN": ctrl.episode_return, "FRAMES": ctrl.frames, "DECISIONS": ctrl.decisions,
                   "ACTION": ctrl.action, "FRAME_STATUS": ctrl.frame_status, "PADDLE_R": ctrl.paddle_r,
                   "CYCLES_EMU": ctrl.cycles_emu, "CYCLES_HOST": ctrl.cycles_host,
                   "CYCLES_OBS": ctrl.cycles_obs, "CYCLES_INFER": ctrl.cycles_infer,
                   "CYCLES_SELECT": ctrl.cycles_select, "CYCLES_CTRL": ctrl.cycles_ctrl, "CYCLE": cycle,
                   "CYCLES_STALL": ctrl.cycles_stall, "STALL_LAST": ctrl.stall_last}
        if set(sources) != set(groups["sources"]):
            raise ValueError(f"read-only registers: the RTL drives {sorted(sources)}, the description has "
                             f"{sorted(groups['sources'])}")
        for name, value in sources.items():
            if name != "STATUS":
                rf.check_width(R[name], value)
        return _Parts(store=store, sources=sources, errors=errors, err=err, rom_loaded=rom_loaded, idle=idle,
                      groups=groups)

    def _host_slave(self, m, b, regs):
        """The AXI4-Lite slave: handshakes, the registered write and read decode, the commands."""
        console, engine = b.console, b.engine
        bus = self.bus
        waddr, wdata = Signal(ADDR_WIDTH), Signal(32)
        raddr, rdata = Signal(ADDR_WIDTH), Signal(32)
        bresp, rresp = Signal(2), Signal(2)
        k = Signal(3)                       # byte counter of multi-cycle accesses
        host_addr = Signal(14)
        host_wdata = Signal(8)
        host_we = Signal(3)         # one-hot by MEM_SEL: ROM, SuperChip RAM, RIOT RAM
        MemSel = ENUMS["mem_sel_e"]
        for i, port in enumerate((console.host_rom, console.host_ram, console.host_riot)):
            m.d.comb += [port.addr.eq(host_addr), port.wdata.eq(host_wdata), port.we.eq(host_we[i])]

        # the readable registers (the memory windows apart), in the description's address order:
        # byte address and source, one list
        read_addrs, read_sources = [], []
        for reg in R:
            if reg.readable and not reg.memory_window:
                read_addrs += reg.addresses
                read_sources += ([regs.sources[reg.name]] if reg.name in regs.sources
                                 else [v.as_value() for v in regs.store[reg.name]])
        rsel = Signal(range(len(read_sources) + 1))     # READ -> RMUX: 1 + the source's index, 0 none
        assert len(set(read_addrs)) == len(read_addrs), "read addresses overlap: the encoder needs one-hot hits"
        rhit = Signal(len(read_addrs))      # the read address's compares, registered at the handshake
        rram = Signal()                     # ... and its RIOT / SuperChip RAM test
        is_ram, ram_hi_bit = _ram_decode()
        writes = _WriteDecode(regs)
        whit = Signal(len(writes.targets))   # the write's target (one-hot, 0: none)
        wtab = Signal(range(R.ACTION_TABLE.count))     # the action-table entry of the address
        # MEM_DATA's bounds check, registered at the handshake: MEM_SEL, MEM_ADDR and ROM_SIZE
        # change only in the WRITE and MEMW states, so they are the same in the WRITE clock
        mem_over = Signal()
        one = {name: views[0] for name, views in regs.store.items() if R[name].count == 1}
        mem_sel, mem_addr, rom_size = one["MEM_SEL"].sel, one["MEM_ADDR"].addr, one["ROM_SIZE"].size
        ram_bytes = R.RIOT_RAM.count * R.RIOT_RAM.stride
        # the engine's parameter write, registered: it reaches the engine the clock after WRITE
        # (the next write's handshake is two clocks later, after BRESP; the controller is still
        # IDLE then, so the engine is not busy), so that the engine's write logic starts from
        # registers, not from the write state's decode (xc7 depth: 11-13 xc7 levels into the
        # engine's biases, weights and stages)
        pw = ParameterWriteSignature.create(path=("param_write",))
        wiring.connect(m, pw, engine.params)
        m.d.sync += pw.valid.eq(0)
        # the console's reset, a register (xc7 depth: it is in the console's clock enable, which
        # abc folds into the console's logic): during the four MEMW clocks exactly (set at the
        # write that enters MEMW, held until its last byte), and for one clock after a CONTROL
        # write with the reset bit (the clock of its BRESP: the controller is idle then and the
        # console not running, so a clock later than the write is the same reset)
        m.d.sync += b.con_rst.eq(0)

        with m.FSM(name="axi"):
            with m.State("IDLE"):
                with m.If(bus.awvalid & bus.wvalid):
                    m.d.comb += [bus.awready.eq(1), bus.wready.eq(1)]
                    m.d.sync += [waddr.eq(bus.awaddr), wdata.eq(bus.wdata), k.eq(0),
                                 whit.eq(Cat(*writes.hits(bus.awaddr))),
                                 wtab.eq((bus.awaddr - R.ACTION_TABLE.offset)[2:2 + len(wtab)]),
                                 mem_over.eq(mem_addr + 4 > Mux(mem_sel == MemSel.ROM, rom_size, ram_bytes))]
                    m.next = "WRITE"
                with m.Elif(bus.arvalid):
                    m.d.comb += bus.arready.eq(1)
                    m.d.sync += [raddr.eq(bus.araddr), k.eq(0), rdata.eq(0),
                                 rhit.eq(Cat(bus.araddr == a for a in read_addrs)), rram.eq(is_ram(bus.araddr))]
                    m.next = "READ"
            with m.State("WRITE"):
                m.next = "BRESP"
                self._write_state(m, b, regs, dict(zip(writes.targets, whit)), writes.stored, wtab, wdata,
                                  bresp, mem_over, pw)
            with m.State("MEMW"):
                # one byte per cycle, the console held in reset (as its harness does)
                m.d.comb += [host_addr.eq(mem_addr + k),
                             host_wdata.eq(wdata.word_select(k[0:2], 8)),
                             host_we.eq(Cat(mem_sel == MemSel.ROM, mem_sel == MemSel.CART_RAM,
                                            mem_sel == MemSel.RIOT_RAM))]
                m.d.sync += k.eq(k + 1)
                with m.If(k != 3):
                    m.d.sync += b.con_rst.eq(1)
                with m.If(k == 3):
                    m.d.sync += mem_addr.eq(mem_addr + 4)
                    with m.If((mem_sel == MemSel.ROM) & (mem_addr + 4 >= rom_size)):
                        m.d.sync += regs.rom_loaded.eq(1)
                    m.next = "BRESP"
            with m.State("BRESP"):
                m.d.comb += [bus.bvalid.eq(1), bus.bresp.eq(bresp)]
                with m.If(bus.bready):
                    m.next = "IDLE"
            with m.State("READ"):
                # the address decoded into its source's index, registered (1 + i, 0: none), so that
                # the read-data multiplexer of the next clock starts from a register (xc7 depth: the
                # priority chain of address compares in front of the multiplexer was the instance's
                # deepest path, 17 xc7 levels in the node netlist); the compares themselves are
                # registered at the handshake (rhit), so this clock only encodes (xc7 depth: compares
                # and encoder together were 10 levels into rsel)
                enc = Cat(Cat(rhit[i] for i in range(len(read_addrs)) if (i + 1) >> bit & 1).any()
                          for bit in range(len(rsel)))
                m.d.sync += [rsel.eq(enc), rresp.eq(Mux(rhit.any() | rram, OKAY, DECERR))]
                with m.If(rram):
                    m.next = "RAM"
                with m.Else():
                    m.next = "RMUX"
            with m.State("RMUX"):
                with m.Switch(rsel):
                    for i, sig in enumerate(read_sources):
                        with m.Case(i + 1):
                            m.d.sync += rdata.eq(sig)
                m.next = "RRESP"
            with m.State("RAM"):
                # RIOT / SuperChip RAM: combinational host read port, one byte per cycle
                m.d.comb += host_addr.eq(Cat(k[0:2], raddr[2:ram_hi_bit]))
                rb = Mux(raddr[ram_hi_bit], console.host_ram.rdata, console.host_riot.rdata)
                m.d.sync += [rdata.eq(Cat(rdata[8:32], rb)), k.eq(k + 1)]
                with m.If(k == 3):
                    m.next = "RRESP"
            with m.State("RRESP"):
                m.d.comb += [bus.rvalid.eq(1), bus.rdata.eq(rdata), bus.rresp.eq(rresp)]
                with m.If(bus.rready):
                    m.next = "IDLE"

    def _write_state(self, m, b, regs, hit, stored, wtab, wdata, bresp, mem_over, pw):
        """The WRITE state: the registered target's action and response. The targets are
        one-hot (:class:`_WriteDecode`), so each has a branch of its own and none waits on the
        others' compares; no target (or address bit 16): DECERR."""
        ctrl, engine = b.ctrl, b.engine
        idle, err, store = regs.idle, regs.err, regs.store

        def resp(value):
            m.d.sync += bresp.eq(value)
        ok, dec, fail = (lambda: resp(OKAY)), (lambda: resp(DECERR)), (lambda: resp(SLVERR))
        dec()
        for name, i in stored:
            with m.If(hit[(name, i)]):
                m.d.sync += store[name][i].eq(wdata)
                ok()
        with m.If(hit[("ACTION_TABLE", None)]):
            m.d.sync += Array(store["ACTION_TABLE"])[wtab].eq(wdata)
            ok()
        with m.If(hit[("PARAM_DATA", 0)]):
            with m.If(idle & ~engine.control.busy):
                pa = store["PARAM_ADDR"][0]
                lane, row, space = pa.lane, pa.row, pa.space
                m.d.sync += [pw.valid.eq(1), pw.space.eq(space), pw.row.eq(row), pw.lane.eq(lane),
                             pw.data.eq(wdata)]
                step, per_row = param_step(self.engine, self.lanes, self.rows, self.cols)
                w, b_ = ENUMS["param_space_e"].WEIGHTS, ENUMS["param_space_e"].BIASES
                nxt = lane + Mux(space == w, step[w], step[b_])
                # the lane engine wraps every space at its lanes; the array at its weight words or
                # its columns (biases and the configuration rows alike)
                wrap = self.lanes if self.engine == "lane" else Mux(space == w, per_row[w], per_row[b_])
                with m.If(nxt >= wrap):
                    m.d.sync += [pa.lane.eq(0), pa.row.eq(row + 1)]
                with m.Else():
                    m.d.sync += pa.lane.eq(nxt)
                ok()
            with m.Else():
                m.d.sync += err["err_turn"].eq(1)
                fail()
        with m.If(hit[("ROM_SIZE", 0)]):
            rom_size = store["ROM_SIZE"][0]
            m.d.sync += regs.rom_loaded.eq(0)
            with m.If((wdata[0:min(ROM_SIZES).bit_length() - 1] == 0) & (wdata != 0) & (wdata <= max(ROM_SIZES))):
                m.d.sync += rom_size.eq(wdata)
                ok()
            with m.Else():
                m.d.sync += [rom_size.eq(0), err["err_rom_size"].eq(1)]
                fail()
        with m.If(hit[("MEM_DATA", 0)]):
            with m.If(~idle):
                m.d.sync += err["err_busy"].eq(1)
                fail()
            with m.Elif(mem_over):
                m.d.sync += err["err_mem_over"].eq(1)
                fail()
            with m.Else():
                ok()
                m.d.sync += b.con_rst.eq(1)
                m.next = "MEMW"
        with m.If(hit[("RULES", 0)]):
            with m.If(ctrl.state == State.RULES):
                m.d.comb += [ctrl.rules_ack.eq(1), ctrl.terminal.eq(wdata[R.RULES.terminal.lsb])]
                ok()
            with m.Else():
                m.d.sync += err["err_turn"].eq(1)
                fail()
        with m.If(hit[("CONTROL", 0)]):
            cmd = data.View(rf.layout(R.CONTROL), wdata[0:R.CONTROL.width])
            with m.If(cmd.clear_errors):
                m.d.sync += regs.errors.eq(0)
            with m.If(cmd.abort):
                m.d.comb += ctrl.abort.eq(1)
            with m.If((cmd.start | cmd.manual | cmd.reset) & ~(idle | cmd.abort)):
                m.d.sync += err["err_busy"].eq(1)
                fail()
            with m.Elif((cmd.start | cmd.manual) & ~regs.rom_loaded):
                m.d.sync += err["err_no_rom"].eq(1)
                fail()
            with m.Else():
                m.d.comb += [ctrl.start.eq(cmd.start), ctrl.manual.eq(cmd.manual & ~cmd.start)]
                m.d.sync += b.con_rst.eq(cmd.reset)
                ok()


class _Parts:
    """Named parts handed between the steps of :meth:`GameInstance.elaborate`."""

    def __init__(self, **parts):
        self.__dict__.update(parts)


def _storage_name(reg, i: int) -> str:
    """The storage signal's name in the Verilog (``ep_cfg``; array entries ``needed_reg0``,
    ``action0``)."""
    if reg.count == 1:
        return reg.name.lower()
    return {"NEEDED": "needed_reg", "ACTION_TABLE": "action"}.get(reg.name, reg.name.lower()) + str(i)


def _ram_decode():
    """The memory windows' address test and the address bit that selects between them.

    The description places the RIOT and SuperChip RAM windows next to each other in one aligned
    block of twice a window's size (RIOT RAM in the lower half); returns ``(is_ram(addr), bit)``
    where ``is_ram`` tests a word address in that block and ``addr[bit]`` selects SuperChip RAM.

    Raises:
        ValueError: the description's windows are not laid out so.
    """
    riot, cart = R.RIOT_RAM, R.CART_RAM
    size = riot.count * riot.stride
    if not (riot.stride == cart.stride == 4 and cart.count * cart.stride == size and size & (size - 1) == 0
            and cart.offset == riot.offset + size and riot.offset % (2 * size) == 0):
        raise ValueError("RIOT_RAM and CART_RAM must be equal, adjacent windows in one aligned block")
    bit = size.bit_length() - 1
    base = riot.offset >> (bit + 1)

    def is_ram(a):
        return (a[bit + 1:ADDR_WIDTH] == base) & (a[0:2] == 0)
    return is_ram, bit


class _WriteDecode:
    """The write targets, decoded from the address at the handshake and registered with it (one
    flag per target; the targets' addresses are distinct, so at most one is set), so that the
    write state's actions start from registers, not from a priority chain of address compares
    (xc7 depth: that chain would be 10-13 xc7 levels into the engine's parameters and the console's
    reset).

    Targets, in order: every stored register entry ``(name, i)`` (arrays shorter than
    :data:`RANGE_DECODE_MIN` one per entry), ``("ACTION_TABLE", None)`` (a range compare; the
    entry index is registered apart), then the commands ``(name, 0)``. Address bit 16 never hits.
    """

    def __init__(self, regs):
        self.stored = []
        ranges = []
        for name in regs.groups["stored"]:
            reg = R[name]
            if reg.count >= RANGE_DECODE_MIN:
                ranges.append((name, None))
            else:
                self.stored += [(name, i) for i in range(reg.count)]
        if ranges != [("ACTION_TABLE", None)]:
            raise ValueError(f"range-decoded arrays {ranges}: the RTL implements the action table's alone")
        self.targets = self.stored + ranges + [(name, 0) for name in COMMANDS]
        singles = [R[n].address(i) for n, i in self.stored] + [R[n].address() for n in COMMANDS]
        t = R.ACTION_TABLE
        assert len(set(singles)) == len(singles) and not any(
            t.offset <= a < t.offset + t.stride * t.count for a in singles), \
            "write targets overlap: the WRITE state's independent branches need one-hot hits"

    def hits(self, a):
        out = []
        for name, i in self.targets:
            reg = R[name]
            if i is None:
                h = (a >= reg.offset) & (a < reg.offset + reg.stride * reg.count) & (a[0:2] == 0)
            else:
                h = a == reg.address(i)
            out.append(h & ~a[ADDR_WIDTH - 1])
        return out


def module_name(colour_clocks: int = DEFAULT_COLOUR_CLOCKS, engine: str = DEFAULT_ENGINE,
                rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS, lanes: int = DEFAULT_LANES) -> str:
    """The Verilog module of an instance configuration: ``instance_cc<colour clocks>`` (``instance_cc3``
    is the default configuration, :data:`DEFAULT_ENGINE` ``rows x cols``), then what differs from
    the default engine: ``_a<rows>x<cols>`` for another array shape (``instance_cc3_a8x8``),
    ``_l<lanes>`` for the lane engine (``instance_cc3_l16``, ``instance_cc1_l16``)."""
    name = f"instance_cc{colour_clocks}"
    if engine == "lane":
        return f"{name}_l{lanes}"
    return name if (rows, cols) == (DEFAULT_ROWS, DEFAULT_COLS) else f"{name}_a{rows}x{cols}"


def generate(height: int = 210, fmt: str = "NTSC", lanes: int = DEFAULT_LANES,
             colour_clocks: int = DEFAULT_COLOUR_CLOCKS, engine: str = DEFAULT_ENGINE,
             rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> dict[str, str]:
    """``{"<module>.v": Verilog}`` of :class:`GameInstance`, module :func:`module_name`,
    reproducible; ``rtl/`` holds ``instance_cc3.v`` (the default configuration)."""
    name = module_name(colour_clocks, engine, rows, cols, lanes)
    text = reproducible.convert(GameInstance(height, fmt, lanes, colour_clocks, engine, rows, cols), name)
    return {f"{name}.v": reproducible.tidy_memories(text)}
