"""Host driver of one fabric instance (:mod:`hw.instance`) over a PYNQ-shaped MMIO object.

:class:`FabricDriver` talks to the instance only through ``mmio.read(offset)`` and
``mmio.write(offset, value)`` (32-bit words at byte offsets of the register map
:data:`hw.instance.REGISTERS`), the interface of ``pynq.MMIO``: on a Zynq board the same
class runs over ``pynq.MMIO(base_address, 0x20000)`` (pynq is not a dependency of this
package). In this package the MMIO object is :class:`hwtools.instance_harness.InstanceSim`, the
Verilated instance; its optional ``poll`` method (the same reads, done in C++) speeds up the
wait loops and is used when present.

Every wait has a cycle limit, measured on the instance's own free-running ``CYCLE`` counter,
and raises :class:`FabricTimeout` when it passes. A bus error response (SLVERR/DECERR) becomes
:class:`FabricError` with the instance's error bits named.

:class:`FabricEpisodeRunner` plays whole episodes: ALE's power-on and reset sequence is
replayed with manual frames (:class:`host.drivers.rtl_console.RtlConsole` over
:class:`MmioConsolePort`; once, when the MMIO object can snapshot the model: later episodes
restore that state), then the instance runs the episode itself (no-op start, FIRE,
frame skip, the preprocessor, action select, the cap); the host answers the instance's two
request: the game rules after every frame (reward and game over from the RAM, read through the
RAM window by the rules of :mod:`hls_models.game_rules`). An individual's int8 parameters are
loaded into the instance's engine (:func:`hls_models.policy_engine.load_words`, one AXI write per
word) when it changes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hls_models.frame_skip import FRAME_SKIP, noop_frames, paddle_direction, paddle_needed

# register map (hw.instance.REGISTERS; repeated here so that the driver needs no hw import)
ID, STATUS, CONTROL, CONSOLE_CFG, EP_CFG, EP_FRAMES, TIMER_INIT, INPUTS = 0x0, 0x4, 0x8, 0xC, 0x10, 0x14, 0x18, 0x1C
NEEDED0, RULES, REWARD, PADDLE_CFG, PADDLE_LO, PADDLE_HI, PADDLE_START, PADDLE_FIXED = (
    0x20, 0x30, 0x34, 0x38, 0x3C, 0x40, 0x44, 0x48)
MEM_SEL, MEM_ADDR, MEM_DATA, ROM_SIZE = 0x4C, 0x50, 0x54, 0x58
RETURN, FRAMES, DECISIONS, ACTION, FRAME_STATUS, PADDLE_R = 0x60, 0x64, 0x68, 0x6C, 0x70, 0x74
CYCLES = {"emulation": 0x80, "host_rules": 0x84, "preprocessor": 0x88, "inference": 0x8C, "action_select": 0x90,
          "controller": 0x94}
CYCLE, ACTION_TABLE, PARAM_ADDR, PARAM_DATA, RIOT_RAM, CART_RAM = 0x98, 0xC0, 0x190, 0x194, 0x200, 0x280
ENGINE_LANES = 16                          #: MAC lanes of the instance's engine (hw.instance default)
ID_VALUE = 0x4E433236
ST_IDLE, ST_RULES = 0, 4
HOST_TURN, ENGINE_BUSY, ROM_LOADED, DONE, GAME_OVER = 1 << 10, 1 << 9, 1 << 8, 1 << 6, 1 << 7
C_START, C_MANUAL, C_RESET, C_ABORT, C_CLEAR = 1, 2, 4, 8, 16
ERRORS = {16: "start or manual frame without a ROM", 17: "bad ROM size", 18: "command while busy",
          19: "preprocessor sync error", 20: "CPU jam", 21: "memory write past the end",
          22: "rules out of turn or parameters while busy"}

FRAME_CYCLE_LIMIT = 25_000 * 3 * 8 + 400_000   #: clocks from one host turn to the next: a frame
#: (25,000 instructions of <= 8 CPU cycles, 3 clocks each) plus an inference (16 lanes: 185,932)
POLL_GAP = 64                              #: idle clocks between two status reads (simulation)


class FabricError(RuntimeError):
    """The instance refused an access or a command (its error bits named)."""


class FabricTimeout(FabricError):
    """A wait passed its cycle limit."""


def error_names(status: int) -> list[str]:
    """The sticky error bits of a STATUS value, in words."""
    return [text for bit, text in ERRORS.items() if status >> bit & 1]


class FabricDriver:
    """Register-level driver of one instance (see module doc).

    Args:
        mmio: an object with ``read(offset) -> int`` and ``write(offset, value)`` (pynq.MMIO's API).
        poll_gap: clocks between status reads when the MMIO object offers ``poll``.
    Raises:
        FabricError: the ID register does not read 'NC26'.
    """

    def __init__(self, mmio, poll_gap: int = POLL_GAP):
        self.mmio = mmio
        self.poll_gap = int(poll_gap)
        ident = self._read(ID)
        if ident != ID_VALUE:
            raise FabricError(f"no nc2600 instance at this address (ID 0x{ident:08x})")

    # -- raw access ----------------------------------------------------------------------
    def _read(self, offset: int) -> int:
        try:
            return self.mmio.read(offset)
        except RuntimeError as e:
            if isinstance(e, FabricError):
                raise
            raise FabricError(f"{e}{self._errors_suffix()}") from None

    def _write(self, offset: int, value: int) -> None:
        try:
            self.mmio.write(offset, int(value) & 0xFFFFFFFF)
        except RuntimeError as e:
            if isinstance(e, FabricError):
                raise
            raise FabricError(f"{e}{self._errors_suffix()}") from None

    def _errors_suffix(self) -> str:
        try:
            names = error_names(self.mmio.read(STATUS))
        except RuntimeError:
            return ""
        return f" ({'; '.join(names)})" if names else ""

    def status(self) -> int:
        return self._read(STATUS)

    def clear_errors(self) -> None:
        self._write(CONTROL, C_CLEAR)

    def wait(self, mask: int, want: int, max_cycles: int) -> int:
        """Wait until ``STATUS & mask == want``; returns STATUS.

        Raises:
            FabricTimeout: not within ``max_cycles`` clocks (the instance's CYCLE counter).
        """
        poll = getattr(self.mmio, "poll", None)
        if poll is not None:
            v = poll(STATUS, mask, want, self.poll_gap, max_cycles)
            if v is None:
                raise FabricTimeout(f"instance did not reach STATUS&0x{mask:x}=0x{want:x} in {max_cycles} cycles "
                                    f"(STATUS 0x{self.status():08x})")
            return v
        start = self._read(CYCLE)
        while True:
            v = self._read(STATUS)
            if v & mask == want:
                return v
            if (self._read(CYCLE) - start) & 0xFFFFFFFF > max_cycles:
                raise FabricTimeout(f"instance did not reach STATUS&0x{mask:x}=0x{want:x} in {max_cycles} cycles")

    # -- memories --------------------------------------------------------------------------
    def _write_mem(self, sel: int, data: bytes) -> None:
        data = bytes(data)
        if len(data) % 4:
            data += bytes(4 - len(data) % 4)
        self._write(MEM_SEL, sel)
        self._write(MEM_ADDR, 0)
        words = np.frombuffer(data, "<u4")
        for w in words.tolist():
            self._write(MEM_DATA, w)

    def load_rom(self, image: bytes) -> None:
        """Load a ROM image (a multiple of 2 KiB up to 16 KiB).

        Raises:
            FabricError: the instance refuses the size (SLVERR, error bit 17).
        """
        self._write(ROM_SIZE, len(image))
        self._write_mem(0, image)
        if not self.status() & ROM_LOADED:
            raise FabricError("ROM not loaded after writing it" + self._errors_suffix())

    def read_ram(self, words=range(32), cart: bool = False) -> np.ndarray:
        """RIOT (or SuperChip) RAM, 128 uint8; only the words in ``words`` are read (others 0)."""
        out = np.zeros(32, np.uint32)
        base = CART_RAM if cart else RIOT_RAM
        for w in words:
            out[w] = self._read(base + 4 * w)
        return out.view(np.uint8).copy()

    def load_params(self, policy, lanes: int = ENGINE_LANES) -> int:
        """Load an int8 policy into the engine; returns the words written.

        The words of :func:`hls_models.policy_engine.load_words` go to ``PARAM_DATA``; the
        instance steps ``PARAM_ADDR`` itself, so the address is written only where the sequence
        jumps. Raises ValueError (the parameters do not fit, the field named) or FabricError.
        """
        from hls_models.policy_engine import SPACE_WEIGHTS, load_words
        words = load_words(policy, lanes)
        nxt = None
        for space, row, lane, data in words.tolist():
            addr = lane | row << 8 | space << 26
            if addr != nxt:
                self._write(PARAM_ADDR, addr)
            self._write(PARAM_DATA, data)
            lane += 4 if space == SPACE_WEIGHTS else 1
            nxt = (0 | (row + 1) << 8 | space << 26) if lane >= lanes else (lane | row << 8 | space << 26)
        return len(words)


class MmioConsolePort:
    """The console of an instance as :class:`host.drivers.rtl_console.RtlConsole` drives it (the
    methods of :class:`hwtools.console_harness.ConsoleSim` it uses), over the driver's registers:
    each ``run_frame`` is one manual frame of the instance."""

    def __init__(self, driver: FabricDriver):
        self.d = driver
        self._inputs = None

    def configure(self, mapper: str, pal: bool, hmove_blanks: bool, ystart: int, height: int) -> None:
        from hls_models.cartridge import MAPPER_CODES
        if mapper not in MAPPER_CODES:
            raise FabricError(f"mapper {mapper} not implemented by the console RTL")
        self.d._write(CONSOLE_CFG, MAPPER_CODES[mapper] | int(pal) << 4 | int(hmove_blanks) << 5
                      | int(ystart) << 6 | int(height) << 15)

    def load_rom(self, image: bytes) -> None:
        self.d.load_rom(image)

    def write_cart_ram(self, data) -> None:
        self.d._write_mem(1, bytes(data))

    def write_riot_ram(self, data) -> None:
        self.d._write_mem(2, bytes(data))

    def reset(self, timer_init: int) -> None:
        self.d._write(TIMER_INIT, timer_init)
        self.d._write(CONTROL, C_RESET)

    def set_inputs(self, swcha: int = 0xFF, swchb: int = 0x3F, inpt4: int = 1, inpt5: int = 1,
                   paddle_needed=(0, 0, 0, 0), paddle_mode=(2, 2, 2, 2)) -> None:
        modes = sum(int(v) << (2 * i) for i, v in enumerate(paddle_mode))
        word = int(swcha) | int(swchb) << 8 | int(inpt4) << 16 | int(inpt5) << 17 | modes << 18
        key = (word, tuple(int(v) for v in paddle_needed))
        if key == self._inputs:
            return
        self.d._write(INPUTS, word)
        for i, v in enumerate(key[1]):
            if self._inputs is None or self._inputs[1][i] != v:
                self.d._write(NEEDED0 + 4 * i, v)
        self._inputs = key

    def run_frame(self, max_instructions: int = 25000):
        from hwtools.console_harness import FrameResult
        self.d._write(CONTROL, C_MANUAL)
        self.d.wait(HOST_TURN, HOST_TURN, FRAME_CYCLE_LIMIT)
        return FrameResult(self.d._read(FRAME_STATUS), 0, 0, 0, 0, 0)

    def riot_ram(self) -> np.ndarray:
        return self.d.read_ram()

    def cart_ram(self) -> np.ndarray:
        return self.d.read_ram(cart=True)


@dataclass
class FabricEpisode:
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


class FabricEpisodeRunner:
    """Plays episodes of one game on one instance (see module doc).

    Args:
        driver: a :class:`FabricDriver`.
        game, rom_path: the ALE game (``host.verify.games.resolve_rom``).
        frame_skip, episode_frames: the protocol (:mod:`hls_models.frame_skip`).
        restore: restore the episode start state from a snapshot (when the MMIO object can
            save one) instead of replaying ALE's reset sequence for every episode.
    Raises:
        UserError: the game's mapper is not implemented by the console RTL.
    """

    def __init__(self, driver: FabricDriver, game: str, rom_path, frame_skip: int = FRAME_SKIP,
                 episode_frames: int = 20_000, restore: bool = True):
        from hls_models.game_rules import load_rules
        from host.verify.games import game_info
        self.d = driver
        self.game, self.rom_path = game, rom_path
        self.info = game_info(game, rom_path)
        self.ids = [int(a) for a in self.info.minimal_actions]
        self.rule = load_rules()[game]
        self.frame_skip, self.episode_frames = int(frame_skip), int(episode_frames)
        self.ram_words = sorted({(a & 0x7F) // 4 for a in self.rule.ram_addresses})
        self.xram_words = sorted({i // 4 for i in getattr(self.rule, "xram_indices", ())}) if self.rule.uses_xram else []
        self.port = MmioConsolePort(driver)
        self._loaded = None
        self.restore = bool(restore)
        self._snapshot = self._snapshot_loaded = self._console = None
        self._trace = None

    def _table(self, console) -> None:
        from host.drivers.rtl_console import joystick_inputs, paddle_inputs
        cs = console.settings
        for i, a in enumerate(self.ids):
            if console.paddles:
                inp = paddle_inputs(a, tuple(console.paddle), swap=cs.swap_paddles,
                                    right_paddles=cs.right_paddles, swchb=console.swchb)
                direction = {-1: 2, 1: 1, 0: 0}[paddle_direction(a)]   # the table's code: 1 left +, 2 right -
            else:
                inp = joystick_inputs(a, cs.swap_ports, console.swchb)
                direction = 0
            self.d._write(ACTION_TABLE + 4 * i, inp["swcha"] | inp["inpt4"] << 8 | inp["inpt5"] << 9 | direction << 10)
        if console.paddles:
            inp = paddle_inputs(0, tuple(console.paddle), swap=cs.swap_paddles,
                                right_paddles=cs.right_paddles, swchb=console.swchb)
            modes = sum(int(v) << (2 * i) for i, v in enumerate(inp["paddle_mode"]))
            lo, hi = console.paddle_range
            self.d._write(PADDLE_CFG, 1 | int(cs.swap_paddles) << 1 | modes << 2)
            self.d._write(PADDLE_LO, lo)
            self.d._write(PADDLE_HI, hi)
            self.d._write(PADDLE_START, console.paddle[0])
            self.d._write(PADDLE_FIXED, paddle_needed(console.paddle[1]))
        else:
            self.d._write(PADDLE_CFG, 0)
        self.d._write(INPUTS, 0xFF | console.swchb << 8 | 3 << 16 | 0xAA << 18)

    def trace_next_episode(self, path, cycles: int, after: int = 0) -> None:
        """Record a waveform of the next episode (:meth:`hwtools.instance_harness.InstanceSim.trace`):
        ``cycles`` clocks from ``after`` clocks past the episode's start command (after the reset
        replay or restore and the parameter load), into ``path``.

        Raises:
            RuntimeError: the MMIO object cannot record waveforms (a board, a node window, or a
                simulation built without tracing).
        """
        if not getattr(self.d.mmio, "traceable", False):
            raise RuntimeError("this MMIO object cannot record waveforms (needs InstanceSim(trace=True))")
        self._trace = (path, int(cycles), int(after))

    def run(self, episode_seed: int, policy, record_actions: bool = False) -> FabricEpisode:
        """One episode with ``policy`` (a :class:`hls_models.policy_int8.QuantizedPolicy`, loaded
        into the engine unless it is the one loaded last); ``record_actions`` reads the action
        of every decision (two more reads per frame).

        The episode start state (ALE's power-on and reset sequence, replayed with manual frames)
        is replayed for the first episode; when the MMIO object offers ``save_state`` /
        ``restore_state`` (the Verilated harness) and ``restore`` is on, it is saved then and
        restored for every later episode (``reset_cycles`` 0, ``restored`` True). The snapshot
        holds the engine's parameters of that moment; the runner reloads them when they differ.

        Raises:
            FabricError / FabricTimeout: the instance refused a command or stopped answering.
        """
        from hls_models.game_rules import RuleState
        d = self.d
        c0 = d._read(CYCLE)
        restored = self._snapshot is not None
        if restored:
            self.d.mmio.restore_state(self._snapshot)
            self._loaded = self._snapshot_loaded
        else:
            console = self._replay_reset()
        c1 = d._read(CYCLE)
        reset_cycles = 0 if restored else (c1 - c0) & 0xFFFFFFFF
        if self._loaded is not policy:
            self._loaded = None
            d.load_params(policy)
            self._loaded = policy
        load_cycles = (d._read(CYCLE) - c1) & 0xFFFFFFFF
        if not restored and self.restore and hasattr(d.mmio, "save_state"):
            self._snapshot = d.mmio.save_state()
            self._snapshot_loaded = self._loaded
            self._console = console
        console = self._console if restored else console
        rules = RuleState(self.rule)
        xram = console.cart_ram() if self.rule.uses_xram else None
        rules.reset(console.ram(), xram)
        fire = 1 in self.ids
        cfg = (noop_frames(episode_seed) | self.ids.index(0) << 5 | int(fire) << 10
               | (self.ids.index(1) if fire else 0) << 11 | self.frame_skip << 16 | len(self.ids) << 24)
        d._write(EP_CFG, cfg)
        d._write(EP_FRAMES, self.episode_frames)
        if self._trace is not None:
            path, n, after = self._trace
            self._trace = None
            d.mmio.trace(path, n, after)
        d._write(CONTROL, C_START)
        actions, reads = [], 0
        while True:
            st = d.wait(HOST_TURN, HOST_TURN, FRAME_CYCLE_LIMIT)
            state = st & 0xF
            if state == ST_RULES:
                if record_actions and d._read(DECISIONS) > len(actions):
                    actions.append(d._read(ACTION))
                ram = d.read_ram(self.ram_words)
                x = d.read_ram(self.xram_words, cart=True) if self.rule.uses_xram else None
                reads += len(self.ram_words) + len(self.xram_words)
                reward, terminal, _ = rules.step(ram, x)
                d._write(REWARD, reward)
                d._write(RULES, int(terminal))
            elif state == ST_IDLE:
                break
        errs = error_names(st)
        if errs:
            raise FabricError(f"{self.game}: episode ended with errors: {'; '.join(errs)}")
        ret = d._read(RETURN)
        ret = ret - (1 << 32) if ret >> 31 else ret
        return FabricEpisode(float(ret), d._read(FRAMES), d._read(DECISIONS), bool(st & GAME_OVER), actions,
                             {k: d._read(v) for k, v in CYCLES.items()}, reset_cycles, load_cycles, reads,
                             restored)

    def _replay_reset(self):
        """ALE's power-on and reset sequence on the instance (manual frames), the action table
        and the paddle set-up; returns the :class:`host.drivers.rtl_console.RtlConsole` that drove it."""
        from host.drivers.rtl_console import RtlConsole
        console = RtlConsole(self.game, self.rom_path, sim=self.port)
        console.power_on()        # ALE loadROM (includes one reset_game)
        console.reset_game()      # AleInstance's own reset_game before its snapshot
        self._table(console)
        return console


# ---------------------------------------------------------------------------------------------
# The launcher's fabric backend: whole episodes on Verilated instances
# ---------------------------------------------------------------------------------------------
_WORKER: dict = {}


def _fabric_worker_init(game: str, rom_path: str, frame_skip: int, episode_frames: int) -> None:
    from host.verify.games import game_info
    from hwtools.instance_harness import InstanceSim
    info = game_info(game, rom_path)
    sim = InstanceSim(info.screen_height, info.display)
    _WORKER["runner"] = FabricEpisodeRunner(FabricDriver(sim), game, rom_path, frame_skip, episode_frames)
    _WORKER["sim"] = sim


def policy_key(policy) -> bytes:
    """A digest of an int8 policy's parameters (weights, biases, shifts, act_max)."""
    import hashlib
    h = hashlib.sha256()
    for a in (*policy.weights(), *policy.biases()):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(np.array([*policy.shifts(), policy.act_max, policy.n_actions], np.int64).tobytes())
    return h.digest()


def _fabric_worker_run(item):
    index, seed, policy = item
    runner = _WORKER["runner"]
    key = policy_key(policy)
    if _WORKER.get("key") == key:
        policy = runner._loaded          # the same parameters are in the engine already
    ep = runner.run(seed, policy)
    _WORKER["key"] = key
    return index, ep


class FabricEvaluator:
    """The evaluation backend ``--backend fabric``: every episode runs inside a Verilated
    instance (:class:`FabricEpisodeRunner`); same interface as :class:`host.launcher.evaluator.Evaluator`.

    ``W`` worker processes each own one instance; jobs are pulled in order; an episode's
    result depends only on its individual and seed (every episode starts from ALE's reset state:
    replayed for a worker's first episode, restored from the harness's snapshot after that), so
    results are identical for any ``W``.

    Args:
        rom_path: the game's ROM (an ALE game; its mapper implemented by the console RTL).
        n_workers: worker processes (instances).
        frame_skip, episode_frames: the protocol.
    """

    def __init__(self, rom_path, n_workers: int, frame_skip: int = FRAME_SKIP, episode_frames: int = 20_000):
        import multiprocessing as mp
        from host.verify.games import game_info, resolve_rom
        self.game, self.rom_path = resolve_rom(rom=rom_path)
        info = game_info(self.game, self.rom_path)
        self.n_actions = len(info.minimal_actions)
        self.frame_skip = int(frame_skip)
        self._pool = mp.get_context("fork").Pool(
            int(n_workers), _fabric_worker_init, (self.game, str(self.rom_path), int(frame_skip), int(episode_frames)))

    def evaluate(self, jobs, params_for, on_result=None):
        """Run every job's episode; results (:class:`host.launcher.evaluator.EpisodeResult`) in job order.
        ``params_for(individual)`` must give a :class:`hls_models.policy_int8.QuantizedPolicy`."""
        from host.launcher.evaluator import EpisodeResult
        jobs = list(jobs)
        items = [(i, int(j.episode_seed), params_for(j.individual)) for i, j in enumerate(jobs)]
        results = [None] * len(jobs)
        fire = None
        for i, ep in self._pool.imap_unordered(_fabric_worker_run, items):
            if fire is None:
                from host.verify.games import game_info
                fire = 1 in [int(a) for a in game_info(self.game, self.rom_path).minimal_actions]
            start = noop_frames(jobs[i].episode_seed) + (self.frame_skip if fire else 0)
            res = EpisodeResult(jobs[i], ep.episode_return, ep.frames, ep.decisions, min(start, ep.frames))
            results[i] = res
            if on_result is not None:
                on_result(res)
        return results

    def close(self) -> None:
        if getattr(self, "_pool", None) is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
