"""Host driver of one fabric instance (:mod:`nc2600.hw.instance`) over a PYNQ-shaped MMIO object.

:class:`InstanceDriver` talks to the instance only through ``mmio.read(offset)`` and
``mmio.write(offset, value)`` (32-bit words at byte offsets), the interface of ``pynq.MMIO``.
Every offset, field position, width and encoding comes from the register description
(:data:`nc2600.hls_models.registers.INSTANCE`, compiled from ``hls_models/registers/nc2600.rdl``):
registers are named by their description (``R.EP_CFG``) and words packed and unpacked by field
name (``R.EP_CFG.pack(fire_index=...)``, a value that does not fit raising ``ValueError`` that
names the field). On a Zynq board the same
class runs over ``pynq.MMIO(base_address, 0x20000)`` (pynq is not a dependency of this
package). In this package the MMIO object is :class:`nc2600.hwtools.instance_harness.InstanceSim`, the
Verilated instance; its optional ``poll`` method (the same reads, done in C++) speeds up the
wait loops and is used when present.

Every wait has a cycle limit, measured on the instance's own free-running ``CYCLE`` counter,
and raises :class:`InstanceTimeout` when it passes. A bus error response (SLVERR/DECERR) becomes
:class:`InstanceError` with the instance's error bits named.

:class:`InstanceEpisodeRunner` plays whole episodes: ALE's power-on and reset sequence is replayed with manual frames
(:class:`nc2600.host.drivers.rtl_console.RtlConsole` over :class:`MmioConsolePort`; once, when the MMIO object can
snapshot the model: later episodes restore that state), then the instance runs the episode itself (no-op start, FIRE,
frame skip, the preprocessor, action select, the cap); the host answers the instance's two request: the game rules after
every frame (reward and game over from the RAM, read through the RAM window by the rules of
:mod:`nc2600.hls_models.game_rules`). An individual's int8 parameters are loaded into the instance's engine in that
engine's format (the lane engine's :func:`nc2600.hls_models.policy_engine.load_words`, the array engine's
:func:`nc2600.hls_models.policy_array.load_words`; one AXI write per word) when it changes. Which engine the instance
has is a build parameter of the design (:class:`nc2600.hw.instance.GameInstance`), not a register: the driver takes it
as :class:`nc2600.host.drivers.engine.EngineConfig`, by default from the MMIO object's ``engine``, ``lanes``, ``rows``
and ``cols`` attributes (:class:`nc2600.hwtools.instance_harness.InstanceSim` has them), else the default design's
engine (the 16 x 16 array engine, :data:`nc2600.hls_models.engines.DEFAULT_ENGINE`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nc2600.hls_models.frame_skip import (FRAME_SKIP, PaddleMode, action_table, noop_frames, paddle_direction,
                                         paddle_needed)
from nc2600.hls_models.registers import ENUMS, INSTANCE as R
from nc2600.host.drivers.engine import EngineConfig  # noqa: F401  (the driver's engine, re-exported)

ID_VALUE = R.ID.value.reset                #: what ID reads ('NC26')
State = ENUMS["ctrl_state_e"]              #: STATUS.state's encodings
MemSel = ENUMS["mem_sel_e"]                #: MEM_SEL.sel's encodings
ParamSpace = ENUMS["param_space_e"]        #: PARAM_ADDR.space's encodings
PaddleDir = ENUMS["paddle_dir_e"]          #: ACTION_TABLE.paddle's encodings
Phase = ENUMS["phase_e"]                   #: STATUS.phase's encodings
#: InstanceEpisode.cycles key -> the register counting that phase
CYCLES = {"emulation": R.CYCLES_EMU, "host_rules": R.CYCLES_HOST, "preprocessor": R.CYCLES_OBS,
          "inference": R.CYCLES_INFER, "action_select": R.CYCLES_SELECT, "controller": R.CYCLES_CTRL,
          "stall": R.CYCLES_STALL}
#: STATUS's error fields (sticky, and the preprocessor's sync flag), in bit order
ERROR_FIELDS = tuple(f for f in R.STATUS.fields if f.name.startswith("err_"))

FRAME_CYCLE_LIMIT = 25_000 * 3 * 8 + 400_000   #: clocks from one host turn to the next: a frame
#: (25,000 instructions of <= 8 CPU cycles, 3 clocks each) plus an inference (16 lanes: 185,932)
POLL_GAP = 64                              #: idle clocks between two status reads (simulation)


class InstanceError(RuntimeError):
    """The instance refused an access or a command (its error bits named)."""


class InstanceTimeout(InstanceError):
    """A wait passed its cycle limit."""


def error_names(status: int) -> list[str]:
    """The error bits set in a STATUS word, in words (each field's name in the description)."""
    return [f.label or f.name for f in ERROR_FIELDS if f.get(status)]


class InstanceDriver:
    """Register-level driver of one instance (see module doc).

    Args:
        mmio: an object with ``read(offset) -> int`` and ``write(offset, value)`` (pynq.MMIO's API).
        poll_gap: clocks between status reads when the MMIO object offers ``poll``.
        engine: the instance's engine (:class:`nc2600.host.drivers.engine.EngineConfig`); None: its ``of(mmio)``.
    Raises:
        InstanceError: the ID register does not read 'NC26'.
    """

    def __init__(self, mmio, poll_gap: int = POLL_GAP, engine: EngineConfig | None = None):
        self.mmio = mmio
        self.poll_gap = int(poll_gap)
        self.engine = EngineConfig.of(mmio) if engine is None else engine
        ident = self.read(R.ID)
        if ident != ID_VALUE:
            raise InstanceError(f"no nc2600 instance at this address (ID 0x{ident:08x})")

    # -- registers by name ---------------------------------------------------------------------
    def read(self, reg, index: int = 0) -> int:
        """The word of register ``reg`` (a :class:`nc2600.hls_models.registers.Register`; entry
        ``index`` of an array)."""
        return self._read(reg.address(index))

    def fields(self, reg, index: int = 0):
        """Register ``reg`` read and unpacked: its fields by name (``.state``, ``.game_over``)."""
        return reg.unpack(self._read(reg.address(index)))

    def write(self, reg, index: int = 0, **values) -> None:
        """Write register ``reg`` (entry ``index``) from field values by name; fields not named
        take their reset value.

        Raises:
            ValueError: a value does not fit its field (the field named), or an unknown field.
            InstanceError: the instance answered SLVERR/DECERR.
        """
        self._write(reg.address(index), reg.pack(**values))

    # -- raw access ----------------------------------------------------------------------
    def _read(self, offset: int) -> int:
        try:
            return self.mmio.read(offset)
        except RuntimeError as e:
            if isinstance(e, InstanceError):
                raise
            raise InstanceError(f"{e}{self._errors_suffix()}") from None

    def _write(self, offset: int, value: int) -> None:
        try:
            self.mmio.write(offset, int(value))
        except RuntimeError as e:
            if isinstance(e, InstanceError):
                raise
            raise InstanceError(f"{e}{self._errors_suffix()}") from None

    def _errors_suffix(self) -> str:
        try:
            names = error_names(self.mmio.read(R.STATUS.offset))
        except RuntimeError:
            return ""
        return f" ({'; '.join(names)})" if names else ""

    def status(self) -> int:
        """The STATUS word."""
        return self.read(R.STATUS)

    def clear_errors(self) -> None:
        self.write(R.CONTROL, clear_errors=1)

    def wait(self, max_cycles: int, **status_fields) -> int:
        """Wait until STATUS's named fields hold the given values (``wait(n, host_turn=1)``);
        returns the STATUS word.

        Raises:
            InstanceTimeout: not within ``max_cycles`` clocks (the instance's CYCLE counter).
            ValueError: an unknown STATUS field or a value that does not fit it.
        """
        mask = want = 0
        for name, value in status_fields.items():
            try:
                f = R.STATUS[name]
            except KeyError:
                raise ValueError(f"STATUS has no field {name!r}") from None
            mask |= f.mask
            want |= f.pack(value)
        status = R.STATUS.offset
        poll = getattr(self.mmio, "poll", None)
        if poll is not None:
            v = poll(status, mask, want, self.poll_gap, max_cycles)
            if v is None:
                raise InstanceTimeout(f"instance did not reach STATUS&0x{mask:x}=0x{want:x} in {max_cycles} cycles "
                                    f"(STATUS 0x{self.status():08x})")
            return v
        start = self.read(R.CYCLE)
        while True:
            v = self._read(status)
            if v & mask == want:
                return v
            if (self.read(R.CYCLE) - start) & R.CYCLE.mask > max_cycles:
                raise InstanceTimeout(f"instance did not reach STATUS&0x{mask:x}=0x{want:x} in {max_cycles} cycles")

    # -- memories --------------------------------------------------------------------------
    def _write_mem(self, sel, data: bytes) -> None:
        """``data`` (padded to whole words) into the memory ``sel`` (:data:`MemSel`) from byte 0."""
        data = bytes(data)
        if len(data) % 4:
            data += bytes(4 - len(data) % 4)
        self.write(R.MEM_SEL, sel=sel)
        self.write(R.MEM_ADDR, addr=0)
        address = R.MEM_DATA.address()
        for w in np.frombuffer(data, "<u4").tolist():
            self._write(address, R.MEM_DATA.data.pack(w))

    def load_rom(self, image: bytes) -> None:
        """Load a ROM image (a multiple of 2 KiB up to 16 KiB).

        Raises:
            InstanceError: the instance refuses the size (SLVERR, error bit 17).
        """
        self.write(R.ROM_SIZE, size=len(image))
        self._write_mem(MemSel.ROM, image)
        if not R.STATUS.rom_loaded.get(self.status()):
            raise InstanceError("ROM not loaded after writing it" + self._errors_suffix())

    def read_ram(self, words=range(32), cart: bool = False) -> np.ndarray:
        """RIOT (or SuperChip) RAM, 128 uint8; only the words in ``words`` are read (others 0)."""
        reg = R.CART_RAM if cart else R.RIOT_RAM
        out = np.zeros(reg.count, np.uint32)
        for w in words:
            out[w] = self.read(reg, w)
        return out.view(np.uint8).copy()

    def load_params(self, policy) -> int:
        """Load an int8 policy into the engine; returns the words written.

        The words of the engine's format (:meth:`EngineConfig.load_words`) go to ``PARAM_DATA``;
        the instance steps ``PARAM_ADDR`` itself (:meth:`EngineConfig.param_step`, the engine model's rule: the
        weights' lane by 4 on the lane engine, else by 1, the next row past the row's lanes),
        so the address is written only where the sequence jumps. Raises ValueError (the
        parameters do not fit, the field named) or InstanceError.
        """
        e = self.engine
        words = e.load_words(policy)
        step, per_row = e.param_step()
        pa, data_at = R.PARAM_ADDR, R.PARAM_DATA.address()
        nxt = None
        for space, row, lane, data in words.tolist():
            addr = pa.pack(lane=lane, row=row, space=space)
            if addr != nxt:
                self._write(pa.address(), addr)
            self._write(data_at, R.PARAM_DATA.data.pack(data & R.PARAM_DATA.data.mask))
            lane += step[space]
            wrap = per_row[space]
            nxt = pa.pack(lane=0, row=row + 1, space=space) if lane >= wrap else pa.pack(lane=lane, row=row,
                                                                                         space=space)
        return len(words)


class MmioConsolePort:
    """The console of an instance as :class:`nc2600.host.drivers.rtl_console.RtlConsole` drives it (the
    methods of :class:`nc2600.hwtools.console_harness.ConsoleSim` it uses), over the driver's registers:
    each ``run_frame`` is one manual frame of the instance."""

    def __init__(self, driver: InstanceDriver):
        self.d = driver
        self._inputs = None

    def configure(self, mapper: str, pal: bool, hmove_blanks: bool, ystart: int, height: int) -> None:
        codes = {label: code for code, label in ENUMS["mapper_e"].labels.items()}
        if mapper not in codes:
            raise InstanceError(f"mapper {mapper} not implemented by the console RTL")
        self.d.write(R.CONSOLE_CFG, mapper=codes[mapper], pal=int(pal), hmove_blanks=int(hmove_blanks),
                     ystart=int(ystart), height=int(height))

    def load_rom(self, image: bytes) -> None:
        self.d.load_rom(image)

    def write_cart_ram(self, data) -> None:
        self.d._write_mem(MemSel.CART_RAM, bytes(data))

    def write_riot_ram(self, data) -> None:
        self.d._write_mem(MemSel.RIOT_RAM, bytes(data))

    def reset(self, timer_init: int) -> None:
        self.d.write(R.TIMER_INIT, value=timer_init)
        self.d.write(R.CONTROL, reset=1)

    def set_inputs(self, swcha: int = R.INPUTS.swcha.reset, swchb: int = R.INPUTS.swchb.reset,
                   inpt4: int = R.INPUTS.inpt4.reset, inpt5: int = R.INPUTS.inpt5.reset,
                   paddle_needed=(0, 0, 0, 0), paddle_mode=(PaddleMode.NONE,) * 4) -> None:
        word = R.INPUTS.pack(swcha=int(swcha), swchb=int(swchb), inpt4=int(inpt4), inpt5=int(inpt5),
                             **{f"paddle_mode{i}": int(v) for i, v in enumerate(paddle_mode)})
        key = (word, tuple(int(v) for v in paddle_needed))
        if key == self._inputs:
            return
        self.d._write(R.INPUTS.address(), word)
        for i, v in enumerate(key[1]):
            if self._inputs is None or self._inputs[1][i] != v:
                self.d.write(R.NEEDED, i, value=v)
        self._inputs = key

    def run_frame(self, max_instructions: int = 25000):
        from nc2600.hwtools.console_harness import FrameResult
        self.d.write(R.CONTROL, manual=1)
        self.d.wait(FRAME_CYCLE_LIMIT, host_turn=1)
        return FrameResult(int(self.d.fields(R.FRAME_STATUS).value), 0, 0, 0, 0, 0)

    def riot_ram(self) -> np.ndarray:
        return self.d.read_ram()

    def cart_ram(self) -> np.ndarray:
        return self.d.read_ram(cart=True)


@dataclass(frozen=True)
class FrameRecord:
    """One emulated frame of an episode, as the instance and ALE int8 are compared frame by frame
    (:mod:`nc2600.host.verify.instance_lockstep`).

    Attributes:
        frame: frames emulated in the episode up to and including this one (1 for the first).
        phase: the episode phase of the frame, a :data:`Phase` label: ``"NOOP"`` (the no-op
            start), ``"FIRE"`` (the FIRE step), ``"STEP"`` (a decision's frames).
        decision: decisions taken so far, this frame's included (0 in the start).
        action: minimal-set index of the action held in the frame (in STEP frames; -1 in the
            start, whose actions are the protocol's NOOP and FIRE).
        reward: the frame's reward (ALE's game score change; the instance's from the game rules
            on its RAM).
        lives: the life count after the frame (the game's rules; ALE ``lives()``).
        terminal: the game is over after the frame (the game's rules; ALE ``game_over()``).
        errors: the instance's STATUS error bits set at the frame's rules turn, by name
            (:func:`error_names`; e.g. the preprocessor's sync error after a frame that is not
            ``H`` lines of 160 visible pixels); always empty for ALE.
    """
    frame: int
    phase: str
    decision: int
    action: int
    reward: int
    lives: int
    terminal: bool
    errors: tuple = ()


@dataclass
class InstanceEpisode:
    """One episode on the instance: its return, frames (start included), decisions, the action
    (minimal-set index) of every decision (when recorded), the cycles per phase, the cycles of
    the reset replay (0 when the start state was restored from the harness's snapshot:
    ``restored``) and of the parameter load, and the host's RAM word reads."""
    episode_return: float
    frames: int
    decisions: int
    game_over: bool
    actions: list = field(default_factory=list)
    cycles: dict = field(default_factory=dict)
    reset_cycles: int = 0
    load_cycles: int = 0
    host_reads: int = 0
    restored: bool = False
    stalls: list = field(default_factory=list)   # STALL_LAST of every decision (with record_actions)


class InstanceEpisodeRunner:
    """Plays episodes of one game on one instance (see module doc).

    Args:
        driver: a :class:`InstanceDriver`.
        game, rom_path: the ALE game (``nc2600.host.games.resolve_rom``).
        frame_skip, episode_frames: the protocol (:mod:`nc2600.hls_models.frame_skip`).
        restore: restore the episode start state from a snapshot (when the MMIO object can
            save one) instead of replaying ALE's reset sequence for every episode.
    Raises:
        UserError: the game's mapper is not implemented by the console RTL.
    """

    def __init__(self, driver: InstanceDriver, game: str, rom_path, frame_skip: int = FRAME_SKIP,
                 episode_frames: int = 20_000, restore: bool = True, hide: bool = True):
        from nc2600.hls_models.game_rules import load_rules
        self.hide = bool(hide)
        from nc2600.host.games import game_info
        self.d = driver
        self.game, self.rom_path = game, rom_path
        self.info = game_info(game, rom_path)
        self.ids = [int(a) for a in self.info.minimal_actions]
        self.rule = load_rules()[game]
        self.frame_skip, self.episode_frames = int(frame_skip), int(episode_frames)
        ram = R.RIOT_RAM     # word i holds RIOT RAM bytes $80 + 4i .. $83 + 4i
        self.ram_words = sorted({(a % (ram.count * ram.stride)) // ram.stride for a in self.rule.ram_addresses})
        self.xram_words = sorted({i // R.CART_RAM.stride for i in getattr(self.rule, "xram_indices",
                                                                          ())}) if self.rule.uses_xram else []
        self.port = MmioConsolePort(driver)
        self._loaded = None
        self.restore = bool(restore)
        self._snapshot = self._snapshot_loaded = self._console = None
        self._trace = None

    def _table(self, console) -> None:
        from nc2600.host.drivers.rtl_console import joystick_inputs, paddle_inputs
        cs = console.settings
        # the action table (frame_skip.action_table): the minimal set, then NOOP where it lacks it
        for i, a in enumerate(action_table(self.ids)[0]):
            if console.paddles:
                inp = paddle_inputs(a, tuple(console.paddle), swap=cs.swap_paddles,
                                    right_paddles=cs.right_paddles, swchb=console.swchb)
                direction = {-1: PaddleDir.RIGHT, 1: PaddleDir.LEFT, 0: PaddleDir.NONE}[paddle_direction(a)]
            else:
                inp = joystick_inputs(a, cs.swap_ports, console.swchb)
                direction = PaddleDir.NONE
            self.d.write(R.ACTION_TABLE, i, swcha=inp["swcha"], inpt4=inp["inpt4"], inpt5=inp["inpt5"],
                         paddle=direction)
        if console.paddles:
            inp = paddle_inputs(0, tuple(console.paddle), swap=cs.swap_paddles,
                                right_paddles=cs.right_paddles, swchb=console.swchb)
            lo, hi = console.paddle_range
            self.d.write(R.PADDLE_CFG, enable=1, swap=int(cs.swap_paddles),
                         **{f"mode{i}": int(v) for i, v in enumerate(inp["paddle_mode"])})
            self.d.write(R.PADDLE_LO, value=lo)
            self.d.write(R.PADDLE_HI, value=hi)
            self.d.write(R.PADDLE_START, value=console.paddle[0])
            self.d.write(R.PADDLE_FIXED, value=paddle_needed(console.paddle[1]))
        else:
            # no paddle (PaddleMode.NONE, the register's reset mode): the pot pins never charge,
            # INPT0-3 bit 7 reads 0 as ALE 0.12 reads a joystick port's (Air Raid reads INPT0 into a colour)
            self.d.write(R.PADDLE_CFG, enable=0, swap=0, **{f"mode{i}": PaddleMode.NONE for i in range(4)})
        # the episode's console switches; the manual-frame fields at their reset values
        # (joystick released, buttons up, no paddle)
        self.d.write(R.INPUTS, swchb=console.swchb)

    def trace_next_episode(self, path, cycles: int, after: int = 0) -> None:
        """Record a waveform of the next episode (:meth:`nc2600.hwtools.instance_harness.InstanceSim.trace`):
        ``cycles`` clocks from ``after`` clocks past the episode's start command (after the reset
        replay or restore and the parameter load), into ``path``.

        Raises:
            RuntimeError: the MMIO object cannot record waveforms (a board, a node window, or a
                simulation built without tracing).
        """
        if not getattr(self.d.mmio, "traceable", False):
            raise RuntimeError("this MMIO object cannot record waveforms (needs InstanceSim(trace=True))")
        self._trace = (path, int(cycles), int(after))

    def run(self, episode_seed: int, policy, record_actions: bool = False,
            frames_out: list | None = None) -> InstanceEpisode:
        """One episode with ``policy`` (a :class:`nc2600.hls_models.policy_int8.QuantizedPolicy`, loaded
        into the engine unless it is the one loaded last); ``record_actions`` reads the action
        of every decision (two more reads per frame); ``frames_out``: a list that gets one
        :class:`FrameRecord` per emulated frame (the instance's FRAMES, DECISIONS, ACTION and
        STATUS.phase and error bits at the frame's rules turn, and the rules' reward, lives and
        game over; three more reads per frame), also when the episode ends with an error.

        The episode start state (ALE's power-on and reset sequence, replayed with manual frames)
        is replayed for the first episode; when the MMIO object offers ``save_state`` /
        ``restore_state`` (the Verilated harness) and ``restore`` is on, it is saved then and
        restored for every later episode (``reset_cycles`` 0, ``restored`` True). The snapshot
        holds the engine's parameters of that moment; the runner reloads them when they differ.

        Raises:
            InstanceError / InstanceTimeout: the instance refused a command or stopped answering.
        """
        from nc2600.hls_models.game_rules import RuleState
        d = self.d
        c0 = d.read(R.CYCLE)
        restored = self._snapshot is not None
        if restored:
            self.d.mmio.restore_state(self._snapshot)
            self._loaded = self._snapshot_loaded
        else:
            console = self._replay_reset()
        c1 = d.read(R.CYCLE)
        reset_cycles = 0 if restored else (c1 - c0) & R.CYCLE.mask
        if self._loaded is not policy:
            self._loaded = None
            d.load_params(policy)
            self._loaded = policy
        load_cycles = (d.read(R.CYCLE) - c1) & R.CYCLE.mask
        if not restored and self.restore and hasattr(d.mmio, "save_state"):
            self._snapshot = d.mmio.save_state()
            self._snapshot_loaded = self._loaded
            self._console = console
        console = self._console if restored else console
        rules = RuleState(self.rule)
        xram = console.cart_ram() if self.rule.uses_xram else None
        rules.reset(console.ram(), xram)
        _, noop_index, fire_index = action_table(self.ids)
        d.write(R.EP_CFG, noops=noop_frames(episode_seed), noop_index=noop_index, fire_en=int(fire_index is not None),
                fire_index=fire_index or 0, frame_skip=self.frame_skip, n_actions=len(self.ids),
                hide=int(self.hide))
        d.write(R.EP_FRAMES, frames=self.episode_frames)
        if self._trace is not None:
            path, n, after = self._trace
            self._trace = None
            d.mmio.trace(path, n, after)
        d.write(R.CONTROL, start=1)
        actions, stalls, reads = [], [], 0
        while True:
            st = d.wait(FRAME_CYCLE_LIMIT, host_turn=1)
            state = R.STATUS.state.get(st)
            if state == State.RULES:
                if record_actions and d.fields(R.DECISIONS).value > len(actions):
                    # the decision's action is applied before its first frame ends: STALL_LAST is its whole wait
                    actions.append(int(d.fields(R.ACTION).value))
                    stalls.append(int(d.fields(R.STALL_LAST).value))
                ram = d.read_ram(self.ram_words)
                x = d.read_ram(self.xram_words, cart=True) if self.rule.uses_xram else None
                reads += len(self.ram_words) + len(self.xram_words)
                reward, terminal, lives = rules.step(ram, x)
                if frames_out is not None:
                    phase = R.STATUS.phase.get(st)
                    decision = d.fields(R.DECISIONS).value
                    frames_out.append(FrameRecord(
                        int(d.fields(R.FRAMES).value), Phase.labels.get(phase, str(phase)), int(decision),
                        int(d.fields(R.ACTION).value) if phase == Phase.STEP else -1, int(reward), int(lives),
                        bool(terminal), tuple(error_names(st))))
                d.write(R.REWARD, value=int(reward))
                d.write(R.RULES, terminal=int(terminal))
            elif state == State.IDLE:
                break
        errs = error_names(st)
        if errs:
            raise InstanceError(f"{self.game}: episode ended with errors: {'; '.join(errs)}")
        ret = d.fields(R.RETURN).value
        return InstanceEpisode(float(ret), d.fields(R.FRAMES).value, d.fields(R.DECISIONS).value,
                             bool(R.STATUS.game_over.get(st)), actions,
                             {k: d.fields(reg).value for k, reg in CYCLES.items()}, reset_cycles, load_cycles, reads,
                             restored, stalls)

    def _replay_reset(self):
        """ALE's power-on and reset sequence on the instance (manual frames), the action table
        and the paddle set-up; returns the :class:`nc2600.host.drivers.rtl_console.RtlConsole` that drove it."""
        from nc2600.host.drivers.rtl_console import RtlConsole
        console = RtlConsole(self.game, self.rom_path, sim=self.port)
        console.power_on()        # ALE loadROM (includes one reset_game)
        console.reset_game()      # AleEnv's own reset_game before its snapshot
        self._table(console)
        return console
