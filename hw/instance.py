"""One fabric instance as one design: console -> preprocessor -> policy engine -> action select
-> frame-skip controller, behind an AXI4-Lite slave (the node processor's view).

Blocks and arrows (each arrow a ``wiring.Signature`` defined next to its producer):

- :class:`hw.console.Console` ``pixels`` (:data:`hw.console.PixelStreamSignature`, or
  :data:`hw.console.PixelStream3Signature` with three colour clocks per cycle) ->
  :class:`hw.preprocessor.Preprocessor` ``stream``, joined with ``wiring.connect``;
- the engine's observation read port (:data:`hw.preprocessor.ObservationReadSignature`) ->
  the preprocessor's stack, ``wiring.connect``;
- the engine's action values (:func:`hw.policy_engine.action_values_signature`, a stream) ->
  :class:`hw.action_select.ActionSelect`, ``wiring.connect``;
- the chosen action -> :class:`hw.frame_skip.FrameSkip`, which drives the console
  (:data:`hw.frame_skip.ConsoleDriveSignature`: clock enable, frame start, and the controller
  inputs :data:`hw.console.ControllerSignature` joined with ``wiring.connect``) and the preprocessor (:data:`hw.preprocessor.PreprocessorControlSignature`).

The console runs under a clock enable (``EnableInserter``) that the controller holds low
between frames (at ALE's frame boundary, where the pixel stream is idle), so the episode
pauses for the rules, the observation and the inference while the preprocessor's pipeline
keeps running.

The engine is :class:`hw.policy_engine.PolicyEngine` (``lanes`` MAC lanes, int8, bit-exact with
:mod:`hls_models.policy_int8`); the host loads an individual's parameters through
``PARAM_ADDR``/``PARAM_DATA`` (the engine's parameter write port) between episodes.

Register map (byte addresses, 32-bit registers; rendered in ``docs/hardware/register-map.md``):
see :data:`REGISTERS`. Unmapped addresses answer ``DECERR``; a command the instance cannot run
(start or manual frame without a ROM or while not idle, rules when not waiting for them, a ROM
size that is not a multiple of 2 KiB up to 16 KiB, a memory write past its end, a parameter
write while not idle) answers ``SLVERR`` and sets a sticky error bit in ``STATUS``.
"""
from __future__ import annotations

from amaranth import Array, Cat, Const, EnableInserter, Module, Mux, ResetInserter, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from hls_models.action_select import MAX_ACTIONS
from hw import reproducible
from hw.action_select import ActionSelect
from hw.axi_lite import DECERR, OKAY, SLVERR, AxiLiteSignature
from hw.console import Console
from hw.frame_skip import FrameSkip, State
from hw.policy_engine import ACC_BITS, ParameterWriteSignature, PolicyEngine
from hw.preprocessor import Preprocessor

ADDR_WIDTH = 17
ID_VALUE = 0x4E433236            #: "NC26"
ROM_SIZES = tuple(range(2048, 16385, 2048))    #: ROM images the instance takes (bytes; DPC: 10 KiB)

#: name -> (byte address, access, description)
REGISTERS = {
    "ID": (0x000, "R", "0x4E433236 ('NC26')"),
    "STATUS": (0x004, "R", "[3:0] controller state (0 idle, 1 clear, 2 setup, 3 frame, 4 rules, 5 obs, "
               "6 infer, 7 select), [5:4] phase (0 no-op, 1 FIRE, 2 step, 3 manual), 6 done, 7 game over, "
               "8 ROM loaded, 9 engine busy, 10 the host's turn (idle or rules); sticky errors: 16 start/manual without "
               "ROM, 17 bad ROM size, 18 command while busy, 19 preprocessor sync error (the preprocessor's own flag, cleared at each episode start: frames of the reset replay may be short or long), 20 CPU jam, "
               "21 memory write past the end, 22 rules out of turn or parameters while busy"),
    "CONTROL": (0x008, "W", "strobes: 0 start episode, 1 manual frame, 2 system reset (console "
                "registers, RIOT timer = TIMER_INIT), 3 abort (to idle), 4 clear errors"),
    "CONSOLE_CFG": (0x00C, "RW", "[3:0] mapper code, 4 PAL, 5 HMOVE blanks, [14:6] YStart, [23:15] height"),
    "EP_CFG": (0x010, "RW", "[4:0] no-op frames, [9:5] NOOP index, 10 FIRE in the set, [15:11] FIRE "
               "index, [23:16] frame skip"),
    "EP_FRAMES": (0x014, "RW", "episode cap in frames (24 bit)"),
    "TIMER_INIT": (0x018, "RW", "RIOT timer value of the next system reset (ALE's RNG draw)"),
    "INPUTS": (0x01C, "RW", "manual frame inputs: [7:0] SWCHA, [15:8] SWCHB (also the episode's), "
               "16 INPT4, 17 INPT5, [25:18] paddle modes 0..3 (2 bits each)"),
    "NEEDED0": (0x020, "RW", "paddle 0..3 charge time (CPU cycles) of manual frames; 0x24, 0x28, 0x2C"),
    "RULES": (0x030, "W", "the rules' result of the last frame: bit 0 terminal; the write resumes the episode"),
    "REWARD": (0x034, "RW", "the last frame's reward (signed), written before RULES"),
    "PADDLE_CFG": (0x038, "RW", "0 paddles, 1 paddles swapped, [9:2] episode paddle modes"),
    "PADDLE_LO": (0x03C, "RW", "paddle range low (ohms)"),
    "PADDLE_HI": (0x040, "RW", "paddle range high (ohms)"),
    "PADDLE_START": (0x044, "RW", "paddle 0 resistance at the episode start (ohms)"),
    "PADDLE_FIXED": (0x048, "RW", "charge time of the paddle that does not move (CPU cycles)"),
    "MEM_SEL": (0x04C, "RW", "memory of MEM_DATA: 0 ROM, 1 SuperChip RAM, 2 RIOT RAM"),
    "MEM_ADDR": (0x050, "RW", "byte address of the next MEM_DATA write"),
    "MEM_DATA": (0x054, "W", "4 bytes (little-endian) written at MEM_ADDR (console held in reset), MEM_ADDR += 4"),
    "ROM_SIZE": (0x058, "RW", "ROM image bytes (a multiple of 2048 up to 16384); clears ROM loaded"),
    "RETURN": (0x060, "R", "episode return (signed sum of the decision frames' rewards)"),
    "FRAMES": (0x064, "R", "frames emulated in the episode"),
    "DECISIONS": (0x068, "R", "decisions taken"),
    "ACTION": (0x06C, "R", "minimal-set index of the current action"),
    "FRAME_STATUS": (0x070, "R", "last frame: 0 complete, 1 instruction limit, 2 CPU jam"),
    "PADDLE_R": (0x074, "R", "paddle 0 resistance now (ohms)"),
    "CYCLES_EMU": (0x080, "R", "episode cycles: console emulation"),
    "CYCLES_HOST": (0x084, "R", "episode cycles: waiting for the host's rules"),
    "CYCLES_OBS": (0x088, "R", "episode cycles: waiting for the observation (preprocessor latency)"),
    "CYCLES_INFER": (0x08C, "R", "episode cycles: inference (engine start to done)"),
    "CYCLES_SELECT": (0x090, "R", "episode cycles: action select"),
    "CYCLES_CTRL": (0x094, "R", "episode cycles: controller (stack clear)"),
    "CYCLE": (0x098, "R", "free-running cycle counter"),
    "ACTION_TABLE": (0x0C0, "RW", "18 words: minimal-set action i's drive [7:0] SWCHA, 8 INPT4, 9 INPT5, "
                     "[11:10] paddle (1 left +, 2 right -)"),
    "PARAM_ADDR": (0x190, "RW", "engine parameter address: [7:0] lane, [25:8] row, [27:26] space "
                   "(0 weights, 1 biases, 2 configuration; hls_models.policy_engine.load_words)"),
    "PARAM_DATA": (0x194, "W", "one parameter word to PARAM_ADDR; then lane += 4 (weights) or 1, "
                   "row += 1 and lane = 0 past the last lane"),
    "RIOT_RAM": (0x200, "R", "32 words: RIOT RAM $80..$FF, 4 bytes per word, little-endian"),
    "CART_RAM": (0x280, "R", "32 words: SuperChip RAM"),
}
REG = {k: v[0] for k, v in REGISTERS.items()}


class GameInstance(wiring.Component):
    """One instance (see module doc).

    Args:
        height: the game's screen height (rows; the preprocessor's frame size).
        fmt: ``"NTSC"`` or ``"PAL"`` (the preprocessor's grey table).
        lanes: the engine's MAC lanes.
        colour_clocks_per_cycle: the console's configuration, 1 or 3
            (``Console(colour_clocks_per_cycle=3)``: one CPU cycle per clock, its three-pixel
            stream into ``Preprocessor(pixels_per_cycle=3)``); the ``CYCLES_*`` registers count
            fabric clocks either way.
    Raises:
        ValueError: ``colour_clocks_per_cycle`` is not 1 or 3.
    Ports:
        bus: In(:func:`hw.axi_lite.AxiLiteSignature` (17)), the host interface.
    """

    def __init__(self, height: int = 210, fmt: str = "NTSC", lanes: int = 16, colour_clocks_per_cycle: int = 1):
        if colour_clocks_per_cycle not in (1, 3):
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise ValueError(f"colour_clocks_per_cycle must be 1 or 3, not {colour_clocks_per_cycle!r}")
        self.height, self.fmt, self.lanes = height, fmt, lanes
        self.colour_clocks_per_cycle = colour_clocks_per_cycle
        super().__init__({"bus": In(AxiLiteSignature(ADDR_WIDTH))})

    def elaborate(self, platform):
        m = Module()
        con_ce = Signal()
        con_rst = Signal()
        console = Console(self.colour_clocks_per_cycle)
        m.submodules.console = ResetInserter({"sync": con_rst})(EnableInserter({"sync": con_ce})(console))
        m.submodules.pre = pre = Preprocessor(self.height, self.fmt, self.colour_clocks_per_cycle)
        m.submodules.engine = engine = PolicyEngine(self.lanes, MAX_ACTIONS)
        m.submodules.select = select = ActionSelect(MAX_ACTIONS, ACC_BITS)
        m.submodules.ctrl = ctrl = FrameSkip(MAX_ACTIONS)

        # the pixel stream registered between the console and the preprocessor (xc7 depth: the
        # TIA's pixel logic and the preprocessor's grey-table read were one path, 12-14 xc7
        # levels): the preprocessor sees every beat one clock later, in the same order; the
        # stream has no valid, the controller's push/zero_prev are sampled at a frame's first
        # visible pixel, thousands of clocks after the frame starts, and the observation is read
        # after the frame has ended, so nothing else moves
        pixels_r = console.pixels.signature.create(path=("pixels_r",))
        for (_, _, src), (_, _, dst) in zip(console.pixels.signature.flatten(console.pixels),
                                            pixels_r.signature.flatten(pixels_r)):
            m.d.sync += dst.eq(src)
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

        # ---- registers -----------------------------------------------------------------
        console_cfg, ep_cfg, ep_frames = Signal(24), Signal(29), Signal(24)
        timer_init, reward = Signal(8), Signal(signed(32))
        inputs_init = 0xFF | (0x3F << 8) | (1 << 16) | (1 << 17) | (0xAA << 18)
        inputs = Signal(26, init=inputs_init)
        needed = Array(Signal(32, name=f"needed_reg{i}") for i in range(4))
        paddle_cfg, paddle_lo, paddle_hi, paddle_start, paddle_fixed = (
            Signal(10), Signal(20), Signal(20), Signal(20), Signal(32))
        mem_sel, mem_addr, rom_size = Signal(2), Signal(15), Signal(15)
        param_addr = Signal(28)
        rom_loaded = Signal()
        table = Array(Signal(12, name=f"action{i}", init=0xFF | 0x300) for i in range(MAX_ACTIONS))
        errors = Signal(7)
        cycle = Signal(32)
        m.d.sync += cycle.eq(cycle + 1)

        m.d.comb += [
            console.mapper.eq(console_cfg[0:4]), console.pal.eq(console_cfg[4]),
            console.hmove_blanks.eq(console_cfg[5]), console.ystart.eq(console_cfg[6:15]),
            console.height.eq(console_cfg[15:24]), console.timer_init.eq(timer_init),
            ctrl.noops.eq(ep_cfg[0:5]), ctrl.noop_index.eq(ep_cfg[5:10]), ctrl.fire_en.eq(ep_cfg[10]),
            ctrl.fire_index.eq(ep_cfg[11:16]), ctrl.frame_skip.eq(ep_cfg[16:24]),
            ctrl.episode_frames.eq(ep_frames),
            ctrl.swchb.eq(inputs[8:16]), ctrl.man_swcha.eq(inputs[0:8]), ctrl.man_swchb.eq(inputs[8:16]),
            ctrl.man_inpt4.eq(inputs[16]), ctrl.man_inpt5.eq(inputs[17]),
            ctrl.paddle_en.eq(paddle_cfg[0]), ctrl.paddle_swap.eq(paddle_cfg[1]),
            ctrl.paddle_lo.eq(paddle_lo), ctrl.paddle_hi.eq(paddle_hi), ctrl.paddle_start.eq(paddle_start),
            ctrl.paddle_fixed_needed.eq(paddle_fixed), ctrl.reward.eq(reward),
        ]
        for i in range(4):
            m.d.comb += [ctrl.man_needed[i].eq(needed[i]), ctrl.man_mode[i].eq(inputs[18 + 2 * i:20 + 2 * i]),
                         ctrl.paddle_mode[i].eq(paddle_cfg[2 + 2 * i:4 + 2 * i])]
        for i in range(MAX_ACTIONS):
            e = ctrl.actions[i]
            m.d.comb += [e.swcha.eq(table[i][0:8]), e.inpt4.eq(table[i][8]), e.inpt5.eq(table[i][9]),
                         e.paddle.eq(table[i][10:12])]

        idle = ctrl.state == State.IDLE
        status = Signal(32)
        host_turn = Signal()
        status_sync = Signal()
        m.d.comb += host_turn.eq(idle | (ctrl.state == State.RULES))
        m.d.comb += status.eq(Cat(ctrl.state.as_value(), ctrl.phase.as_value(), ctrl.done, ctrl.game_over,
                                  rom_loaded, engine.control.busy, host_turn, Const(0, 5), errors[0:3], status_sync,
                                  errors[4:7]))
        m.d.comb += status_sync.eq(pre.sync_error)
        with m.If(console.frame.jammed & (ctrl.state == State.FRAME)):
            m.d.sync += errors[4].eq(1)

        # ---- AXI4-Lite slave ----------------------------------------------------------
        bus = self.bus
        waddr, wdata = Signal(ADDR_WIDTH), Signal(32)
        raddr, rdata = Signal(ADDR_WIDTH), Signal(32)
        bresp, rresp = Signal(2), Signal(2)
        k = Signal(3)                       # byte counter of multi-cycle accesses
        host_addr = Signal(14)
        host_wdata = Signal(8)
        host_we = Signal(3)         # one-hot by MEM_SEL: ROM, SuperChip RAM, RIOT RAM
        for i, port in enumerate((console.host_rom, console.host_ram, console.host_riot)):
            m.d.comb += [port.addr.eq(host_addr), port.wdata.eq(host_wdata), port.we.eq(host_we[i])]
        m.d.comb += con_ce.eq(d.ce | con_rst)

        regs = {"ID": Const(ID_VALUE, 32), "STATUS": status, "CONSOLE_CFG": console_cfg,
                "EP_CFG": ep_cfg, "EP_FRAMES": ep_frames, "TIMER_INIT": timer_init, "INPUTS": inputs,
                "REWARD": reward, "PADDLE_CFG": paddle_cfg, "PADDLE_LO": paddle_lo,
                "PADDLE_HI": paddle_hi, "PADDLE_START": paddle_start, "PADDLE_FIXED": paddle_fixed,
                "MEM_SEL": mem_sel, "MEM_ADDR": mem_addr, "ROM_SIZE": rom_size, "PARAM_ADDR": param_addr,
                "RETURN": ctrl.episode_return, "FRAMES": ctrl.frames, "DECISIONS": ctrl.decisions,
                "ACTION": ctrl.action, "FRAME_STATUS": ctrl.frame_status, "PADDLE_R": ctrl.paddle_r,
                "CYCLES_EMU": ctrl.cycles_emu, "CYCLES_HOST": ctrl.cycles_host,
                "CYCLES_OBS": ctrl.cycles_obs, "CYCLES_INFER": ctrl.cycles_infer,
                "CYCLES_SELECT": ctrl.cycles_select, "CYCLES_CTRL": ctrl.cycles_ctrl, "CYCLE": cycle}
        # the readable registers (RIOT / SuperChip RAM apart): byte address and source, one list
        read_addrs = ([REG[name] for name in regs] + [REG["NEEDED0"] + 4 * i for i in range(4)]
                      + [REG["ACTION_TABLE"] + 4 * i for i in range(MAX_ACTIONS)])
        read_sources = list(regs.values()) + list(needed) + list(table)
        rsel = Signal(range(len(read_sources) + 1))     # READ -> RMUX: 1 + the source's index, 0 none
        assert len(set(read_addrs)) == len(read_addrs), "read addresses overlap: the encoder needs one-hot hits"
        rhit = Signal(len(read_addrs))      # the read address's compares, registered at the handshake
        rram = Signal()                     # ... and its RIOT / SuperChip RAM test

        def is_ram(a):
            return (a[8:ADDR_WIDTH] == REG["RIOT_RAM"] >> 8) & (a[0:2] == 0)

        # the write's target decoded from the address at the handshake and registered with it (one
        # flag per target; the targets' addresses are distinct, so at most one is set), so that
        # the write state's actions start from registers, not from a priority chain of address
        # compares (xc7 depth: that chain would be 10-13 xc7 levels into the engine's parameters and the
        # console's reset)
        simple = {"CONSOLE_CFG": console_cfg, "EP_CFG": ep_cfg, "EP_FRAMES": ep_frames,
                  "TIMER_INIT": timer_init, "INPUTS": inputs, "REWARD": reward,
                  "PADDLE_CFG": paddle_cfg, "PADDLE_LO": paddle_lo, "PADDLE_HI": paddle_hi,
                  "PADDLE_START": paddle_start, "PADDLE_FIXED": paddle_fixed, "MEM_SEL": mem_sel,
                  "MEM_ADDR": mem_addr}
        targets = ([*simple, *(f"NEEDED{i}" for i in range(4)), "ACTION_TABLE", "PARAM_ADDR", "PARAM_DATA",
                    "ROM_SIZE", "MEM_DATA", "RULES", "CONTROL"])

        def target_hits(a):
            hits = {name: a == REG[name] for name in simple}
            hits.update({f"NEEDED{i}": a == REG["NEEDED0"] + 4 * i for i in range(4)})
            hits["ACTION_TABLE"] = ((a >= REG["ACTION_TABLE"]) & (a < REG["ACTION_TABLE"] + 4 * MAX_ACTIONS)
                                    & (a[0:2] == 0))
            hits.update({name: a == REG[name] for name in ("PARAM_ADDR", "PARAM_DATA", "ROM_SIZE", "MEM_DATA",
                                                           "RULES", "CONTROL")})
            return [hits[name] & ~a[16] for name in targets]
        whit = Signal(len(targets))          # the write's target (one-hot, 0: none)
        wtab = Signal(5)                     # the action-table entry of the address
        hit = dict(zip(targets, whit))
        single = ([REG[n] for n in simple] + [REG["NEEDED0"] + 4 * i for i in range(4)]
                  + [REG[n] for n in ("PARAM_ADDR", "PARAM_DATA", "ROM_SIZE", "MEM_DATA", "RULES", "CONTROL")])
        assert len(set(single)) == len(single) and not any(
            REG["ACTION_TABLE"] <= a < REG["ACTION_TABLE"] + 4 * MAX_ACTIONS for a in single), \
            "write targets overlap: the WRITE state's independent branches need one-hot hits"
        # MEM_DATA's bounds check, registered at the handshake: MEM_SEL, MEM_ADDR and ROM_SIZE
        # change only in the WRITE and MEMW states, so they are the same in the WRITE clock
        mem_over = Signal()
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
        m.d.sync += con_rst.eq(0)

        with m.FSM(name="axi"):
            with m.State("IDLE"):
                with m.If(bus.awvalid & bus.wvalid):
                    m.d.comb += [bus.awready.eq(1), bus.wready.eq(1)]
                    m.d.sync += [waddr.eq(bus.awaddr), wdata.eq(bus.wdata), k.eq(0),
                                 whit.eq(Cat(*target_hits(bus.awaddr))),
                                 wtab.eq((bus.awaddr - REG["ACTION_TABLE"])[2:7]),
                                 mem_over.eq(mem_addr + 4 > Mux(mem_sel == 0, rom_size, 128))]
                    m.next = "WRITE"
                with m.Elif(bus.arvalid):
                    m.d.comb += bus.arready.eq(1)
                    m.d.sync += [raddr.eq(bus.araddr), k.eq(0), rdata.eq(0),
                                 rhit.eq(Cat(bus.araddr == a for a in read_addrs)), rram.eq(is_ram(bus.araddr))]
                    m.next = "READ"
            with m.State("WRITE"):
                def resp(value):
                    m.d.sync += bresp.eq(value)
                ok, dec, err = (lambda: resp(OKAY)), (lambda: resp(DECERR)), (lambda: resp(SLVERR))
                m.next = "BRESP"
                # the targets are one-hot (asserted above), so each has a branch of its own and
                # none waits on the others' compares; no target (or address bit 16): DECERR
                dec()
                for name, sig in simple.items():
                    with m.If(hit[name]):
                        m.d.sync += sig.eq(wdata)
                        ok()
                for i in range(4):
                    with m.If(hit[f"NEEDED{i}"]):
                        m.d.sync += needed[i].eq(wdata)
                        ok()
                with m.If(hit["ACTION_TABLE"]):
                    m.d.sync += table[wtab].eq(wdata)
                    ok()
                with m.If(hit["PARAM_ADDR"]):
                    m.d.sync += param_addr.eq(wdata)
                    ok()
                with m.If(hit["PARAM_DATA"]):
                    with m.If(idle & ~engine.control.busy):
                        lane, row, space = param_addr[0:8], param_addr[8:26], param_addr[26:28]
                        m.d.sync += [pw.valid.eq(1), pw.space.eq(space), pw.row.eq(row), pw.lane.eq(lane),
                                     pw.data.eq(wdata)]
                        nxt = lane + Mux(space == 0, 4, 1)
                        with m.If(nxt >= self.lanes):
                            m.d.sync += [param_addr[0:8].eq(0), param_addr[8:26].eq(row + 1)]
                        with m.Else():
                            m.d.sync += param_addr[0:8].eq(nxt)
                        ok()
                    with m.Else():
                        m.d.sync += errors[6].eq(1)
                        err()
                with m.If(hit["ROM_SIZE"]):
                    m.d.sync += rom_loaded.eq(0)
                    with m.If((wdata[0:11] == 0) & (wdata != 0) & (wdata <= 16384)):
                        m.d.sync += rom_size.eq(wdata)
                        ok()
                    with m.Else():
                        m.d.sync += [rom_size.eq(0), errors[1].eq(1)]
                        err()
                with m.If(hit["MEM_DATA"]):
                    with m.If(~idle):
                        m.d.sync += errors[2].eq(1)
                        err()
                    with m.Elif(mem_over):
                        m.d.sync += errors[5].eq(1)
                        err()
                    with m.Else():
                        ok()
                        m.d.sync += con_rst.eq(1)
                        m.next = "MEMW"
                with m.If(hit["RULES"]):
                    with m.If(ctrl.state == State.RULES):
                        m.d.comb += [ctrl.rules_ack.eq(1), ctrl.terminal.eq(wdata[0])]
                        ok()
                    with m.Else():
                        m.d.sync += errors[6].eq(1)
                        err()
                with m.If(hit["CONTROL"]):
                    cmd = wdata[0:5]
                    with m.If(cmd[4]):
                        m.d.sync += errors.eq(0)
                    with m.If(cmd[3]):
                        m.d.comb += ctrl.abort.eq(1)
                    with m.If(cmd[0:3].any() & ~(idle | cmd[3])):
                        m.d.sync += errors[2].eq(1)
                        err()
                    with m.Elif(cmd[0:2].any() & ~rom_loaded):
                        m.d.sync += errors[0].eq(1)
                        err()
                    with m.Else():
                        m.d.comb += [ctrl.start.eq(cmd[0]), ctrl.manual.eq(cmd[1] & ~cmd[0])]
                        m.d.sync += con_rst.eq(cmd[2])
                        ok()
            with m.State("MEMW"):
                # one byte per cycle, the console held in reset (as its harness does)
                m.d.comb += [host_addr.eq(mem_addr + k),
                             host_wdata.eq(wdata.word_select(k[0:2], 8)),
                             host_we.eq(Cat(mem_sel == 0, mem_sel == 1, mem_sel == 2))]
                m.d.sync += k.eq(k + 1)
                with m.If(k != 3):
                    m.d.sync += con_rst.eq(1)
                with m.If(k == 3):
                    m.d.sync += mem_addr.eq(mem_addr + 4)
                    with m.If((mem_sel == 0) & (mem_addr + 4 >= rom_size)):
                        m.d.sync += rom_loaded.eq(1)
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
                enc = Cat(Cat(rhit[i] for i in range(len(read_addrs)) if (i + 1) >> b & 1).any()
                          for b in range(len(rsel)))
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
                m.d.comb += host_addr.eq(Cat(k[0:2], raddr[2:7]))
                rb = Mux(raddr[7], console.host_ram.rdata, console.host_riot.rdata)
                m.d.sync += [rdata.eq(Cat(rdata[8:32], rb)), k.eq(k + 1)]
                with m.If(k == 3):
                    m.next = "RRESP"
            with m.State("RRESP"):
                m.d.comb += [bus.rvalid.eq(1), bus.rdata.eq(rdata), bus.rresp.eq(rresp)]
                with m.If(bus.rready):
                    m.next = "IDLE"
        return m


def generate(height: int = 210, fmt: str = "NTSC", lanes: int = 16, colour_clocks_per_cycle: int = 1) -> dict[str, str]:
    """``{"instance.v": Verilog}`` of :class:`GameInstance` (module ``instance``), reproducible; with
    ``colour_clocks_per_cycle=3`` ``{"instance3.v": ...}`` (module ``instance3``, not in ``rtl/``)."""
    name = "instance" if colour_clocks_per_cycle == 1 else f"instance{colour_clocks_per_cycle}"
    text = reproducible.convert(GameInstance(height, fmt, lanes, colour_clocks_per_cycle), name)
    return {f"{name}.v": reproducible.tidy_memories(text)}
