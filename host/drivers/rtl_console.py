"""The RTL console (Verilated ``nc2600.hw.console``) driven exactly as ALE 0.12 drives its emulator.

:class:`RtlConsole` replays, on the hardware model, what ``ALEInterface.loadROM`` does
(ALE 0.12's source, ``src/ale/emucore`` and ``src/ale/environment``; ALE's ``Console.cxx``, ``M6532.cxx``,
``stella_environment.cpp``):

1. console built: 128 RIOT RAM bytes and one timer value drawn from the system RNG
   (``std::mt19937`` seeded 4753849; numpy's ``RandomState`` gives the same stream);
2. display auto-detection: ``System::reset``, 60 frames (NTSC limits, the ROM's own height);
3. ``System::reset`` (now with the detected format: PAL = 342-line limit, colour loss,
   250 rows);
4. environment reset: ``System::reset``; 60 NOOP frames; RESET held 4 frames; the game's
   ``setMode`` for its default mode (SELECT presses until the mode shows in RAM, then RESET
   held 4 frames; Double Dunk walks its menu); RESET held 4 frames; the game's starting
   actions.

The per-game data (YStart, HMOVE blanks, the ``setMode`` sequence, paddles, swapped ports,
difficulty switches) is :mod:`nc2600.hls_models.console_settings` (``console_settings.toml``); the
starting actions are the rules table's (:mod:`nc2600.hls_models.game_rules`).

Every ``System::reset`` draws the RIOT timer (``25 + next() % 75``) and, for SuperChip
cartridges, 128 new cartridge RAM bytes. After :meth:`RtlConsole.power_on`, each
:meth:`RtlConsole.act` is one ALE ``act`` with ``frame_skip = 1``.

Known gaps: Adventure's and Video Cube's ``setMode`` (presses drawn from ALE's environment
RNG / a cube number) are replaced by a plain soft reset, which is what they amount to for
the default mode as long as no press is needed (true for ALE 0.12's ROMs); the default mode
is read from ale-py's ``getAvailableModes`` (metadata only, no emulation).
"""
from __future__ import annotations

import numpy as np

from nc2600.hls_models.cartridge import cartridge_image
from nc2600.hls_models.frame_skip import PaddleMode, paddle_direction, paddle_needed, paddle_step
from nc2600.hwtools.console_harness import ConsoleSim, FrameResult
from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS

__all__ = ["RtlConsole", "SYSTEM_SEED", "joystick_inputs", "paddle_inputs"]

SYSTEM_SEED = 4753849           #: ALE's default ``system_random_seed``
RESET_ACTION = 40               #: ALE's RESET console-switch action id


# ALE action id -> (up, down, left, right, fire) for player A
_DIRS = {0: "", 1: "F", 2: "U", 3: "R", 4: "L", 5: "D", 6: "UR", 7: "UL", 8: "DR", 9: "DL",
         10: "UF", 11: "RF", 12: "LF", 13: "DF", 14: "URF", 15: "ULF", 16: "DRF", 17: "DLF"}


def joystick_inputs(action: int, swap_ports: bool = False, swchb: int = 0x3F) -> dict:
    """Console inputs for ALE action id ``action`` on the left joystick (Stella's mapping:
    SWCHA bits 4..7 = up, down, left, right, active low; INPT4 bit 7 = fire, active low;
    SWCHB = 0x3F: colour, both difficulties B, SELECT and RESET up;
    RESET (40) clears SWCHB bit 0)."""
    keys = _DIRS.get(int(action), "")
    if int(action) == RESET_ACTION:
        swchb &= ~0x01
    swcha = 0xFF
    for k, bit in (("U", 0x10), ("D", 0x20), ("L", 0x40), ("R", 0x80)):
        if k in keys:
            swcha &= ~(bit >> 4 if swap_ports else bit)
    fire = 0 if "F" in keys else 1
    if swap_ports:
        return {"swcha": swcha, "swchb": swchb, "inpt4": 1, "inpt5": fire}
    return {"swcha": swcha, "swchb": swchb, "inpt4": fire, "inpt5": 1}


def paddle_inputs(action: int, resistance: tuple[int, int] | None, swap: bool = False,
                  right_paddles: bool = False, swchb: int = 0x3F) -> dict:
    """Console inputs for ALE action ``action`` on paddles (left port, Stella's pins):
    paddle 0 fire = SWCHA bit 7, paddle 1 fire = bit 6 (active low); INPT0/INPT1 from the
    two resistances (``None``: ALE's events are unset, resistance 0, always charged);
    ``swap`` (Stella's SwapPaddles): paddle 0 on INPT1 with its fire on bit 6. The right
    port: paddles whose events ALE never sets (resistance 0, always charged) or a joystick
    (infinite resistance, never charged)."""
    a = int(action)
    swcha = 0xFF
    if "F" in _DIRS.get(a, ""):            # FIRE and the 8 direction+FIRE actions
        swcha &= ~(0x40 if swap else 0x80)
    if a == RESET_ACTION:
        swchb &= ~0x01
    right = PaddleMode.CHARGED if right_paddles else PaddleMode.NONE
    if resistance is None:
        needed, mode = (0, 0, 0, 0), (PaddleMode.CHARGED, PaddleMode.CHARGED, right, right)
    else:
        n0, n1 = paddle_needed(resistance[0]), paddle_needed(resistance[1])
        needed = (n1, n0, 0, 0) if swap else (n0, n1, 0, 0)
        mode = (PaddleMode.TIMING, PaddleMode.TIMING, right, right)
    return {"swcha": swcha, "swchb": swchb, "inpt4": 1, "inpt5": 1, "paddle_needed": needed,
            "paddle_mode": mode}


def _default_mode(rom_path) -> int:
    """ALE's default game mode (the first of ``getAvailableModes``), from ale-py's settings."""
    from nc2600.host.episodes.ale_oracle import open_ale
    modes = list(open_ale(rom_path).getAvailableModes())
    return int(modes[0]) if modes else 0


class _Mt:
    """ALE's system RNG: 32-bit mt19937 draws."""

    def __init__(self, seed: int):
        self._rs = np.random.RandomState(seed)

    def next(self) -> int:
        return int(self._rs.randint(0, 2 ** 32, dtype=np.uint32))


class RtlConsole:
    """One RTL console running one game with ALE's power-on sequence.

    Args:
        game: ALE ROM id (``nc2600.host.games.resolve_rom``); the mapper comes from the ROM
            (:func:`nc2600.hls_models.cartridge.detect_mapper`).
        seed: the system RNG seed (ALE's ``system_random_seed``).
        sim: the console to drive (default: a new :class:`nc2600.hwtools.console_harness.ConsoleSim`); any
            object with its methods, e.g. a fabric instance's console
            (:class:`nc2600.host.drivers.instance.MmioConsolePort`).
        colour_clocks: the default console's configuration, 1 or 3
            (:class:`nc2600.hw.console.Console`); ignored when ``sim`` is given.
    """

    def __init__(self, game: str, rom_path=None, seed: int = SYSTEM_SEED, sim=None,
                 colour_clocks: int = DEFAULT_COLOUR_CLOCKS):
        from nc2600.hls_models.cartridge import detect_mapper
        from nc2600.host.errors import UserError
        from nc2600.host.games import game_info, resolve_rom
        from nc2600.hls_models.cartridge import SUPPORTED_MAPPERS as SUPPORTED
        name, path = resolve_rom(game=game) if rom_path is None else (game, rom_path)
        self.game = name
        with open(path, "rb") as rom:
            self.image = rom.read()
        self.mapper = detect_mapper(self.image)
        if self.mapper not in SUPPORTED:
            raise UserError(f"{name}: mapper {self.mapper} is not implemented by the console RTL yet")
        info = game_info(name, path) if rom_path is None else game_info(name, rom_path)
        self.pal = info.display == "PAL"
        self.height = info.screen_height
        from nc2600.hls_models.console_settings import console_settings
        from nc2600.hls_models.game_rules import load_rules
        self.settings = cs = console_settings(name)
        self.starting_actions = load_rules()[name].starting_action_ids
        self.ystart = cs.ystart
        self.hmove_blanks = cs.hmove_blanks
        self.sc = self.mapper in ("F8SC", "F6SC")
        self.rng = _Mt(seed)
        self.sim = ConsoleSim(colour_clocks) if sim is None else sim
        self.frames = 0
        self.frames_run = 0          #: ``update()`` calls since construction (power-on and reset included)
        self.last: FrameResult | None = None
        self.paddles = cs.paddles
        self.paddle: list[int] | None = None     # ALE's paddle positions (None: events unset)
        self.paddle_range = cs.paddle_range
        # difficulty switches from the ROM properties until ALE's first action sets them to B
        self.swchb = 0xFF if cs.difficulty_a else 0x3F
        self.default_mode = _default_mode(path)

    # -- ALE's building blocks ------------------------------------------------------
    def system_reset(self) -> None:
        """``System::reset``: RIOT timer draw, SuperChip RAM draws, registers reset."""
        timer = 25 + self.rng.next() % 75
        if self.sc:
            self.sim.write_cart_ram(bytes(self.rng.next() & 0xFF for _ in range(128)))
        self.sim.reset(timer)

    def frame(self, action: int = 0, select: bool = False) -> FrameResult:
        """One ``TIA::update()`` with ``action`` held (ALE action id), SELECT if asked."""
        swchb = self.swchb
        if select:
            self.swchb &= ~0x02
        if self.paddles:
            if self.paddle is not None:
                lo, hi = self.paddle_range
                self.paddle[0] = paddle_step(self.paddle[0], paddle_direction(action), lo, hi)
            self.sim.set_inputs(**paddle_inputs(action, None if self.paddle is None else tuple(self.paddle),
                                                swap=self.settings.swap_paddles,
                                                right_paddles=self.settings.right_paddles, swchb=self.swchb))
        else:
            self.sim.set_inputs(**joystick_inputs(action, self.settings.swap_ports, self.swchb))
        self.swchb = swchb
        self.frames_run += 1
        self.last = self.sim.run_frame()
        return self.last

    def power_on(self) -> None:
        """Everything ``ALEInterface.loadROM`` does before the first ``act``."""
        sim = self.sim
        # console built: RAM, then the timer of the RIOT constructor's reset
        ram = bytes(self.rng.next() & 0xFF for _ in range(128))
        self.rng.next()
        det_height = 210 if (self.pal and self.height == 250) else self.height
        sim.configure(self.mapper, pal=False, hmove_blanks=self.hmove_blanks, ystart=self.ystart,
                      height=det_height)
        sim.load_rom(cartridge_image(self.image, self.mapper))
        sim.write_riot_ram(ram)
        self.system_reset()
        for _ in range(60):
            self.frame(0)
        sim.configure(self.mapper, pal=self.pal, hmove_blanks=self.hmove_blanks, ystart=self.ystart,
                      height=self.height)
        self.system_reset()
        self.reset_game()

    def soft_reset(self) -> None:
        for _ in range(4):
            self.frame(RESET_ACTION)

    def press_select(self, frames: int) -> None:
        """ALE's ``pressSelect(n)``: SELECT held ``n`` frames, then one NOOP frame."""
        for _ in range(frames):
            self.frame(0, select=True)
        self.frame(0)

    def _double_dunk_mode(self, m: int) -> None:
        """ALE's DoubleDunk ``setMode``: a menu walked with DOWN and LEFT/RIGHT."""
        def go_down():
            prev = self.ram()[0x30]
            for _ in range(100):
                if self.ram()[0x30] != prev:
                    break
                self.frame(5)
                self.frame(0)

        def option(bit, on):
            for _ in range(100):
                if bool(self.ram()[0x00] & bit) == on:
                    break
                self.frame(3 if on else 4)
                self.frame(0)

        self.press_select(1)
        go_down()
        go_down()
        for bit, mbit in ((0x08, 1), (0x10, 2), (0x04, 4), (0x20, 8)):
            if bit != 0x08:
                go_down()
            option(bit, bool(m & mbit))
        self.soft_reset()
        self.frame(10)
        self.frame(0)

    def set_mode(self) -> None:
        """ALE's ``setMode`` for the game's default mode (first of its available modes), as
        the game's console settings describe it."""
        from nc2600.hls_models.console_settings import SelectMode
        sm = self.settings.setmode
        if sm == "double_dunk_menu":
            self._double_dunk_mode(self.default_mode)
        elif sm == "soft_reset":
            self.soft_reset()
        elif isinstance(sm, SelectMode):
            if sm.soft_reset_first:
                self.soft_reset()
            if sm.select_first:
                self.press_select(sm.select_first)
            for _ in range(sm.noops_first):
                self.frame(0)
            for _ in range(200):
                if sm.until(self.ram(), self.sim.cart_ram(), self.default_mode):
                    break
                self.press_select(sm.select_frames)
            self.soft_reset()

    def reset_game(self) -> None:
        """ALE's ``StellaEnvironment::reset`` (also what ``reset_game()`` does later)."""
        lo, hi = self.paddle_range
        self.paddle = [(lo + hi) // 2, (lo + hi) // 2]
        self.swchb = 0x3F
        self.system_reset()
        for _ in range(60):
            self.frame(0)
        self.soft_reset()
        self.set_mode()
        self.soft_reset()
        for a in self.starting_actions:
            self.frame(a)
        self.frames = 0

    # -- snapshots (simulation only) ------------------------------------------------
    def save_state(self):
        """Snapshot the console between frames: the Verilated model and harness
        (:meth:`nc2600.hwtools.console_harness.ConsoleSim.save_state`) and this object's own state (the
        system RNG, paddle positions, switches, frame count), as ALE's ``cloneState`` takes
        it. Needs a :class:`~nc2600.hwtools.console_harness.ConsoleSim` (not a fabric port)."""
        import copy
        return (self.sim.save_state(), copy.deepcopy((self.rng, self.paddle, self.swchb, self.frames, self.last)))

    def restore_state(self, state) -> None:
        """Put the console back into a :meth:`save_state` snapshot (the snapshot stays usable).

        Raises:
            ValueError: the snapshot comes from another console build.
        """
        import copy
        sim_state, own = state
        self.sim.restore_state(sim_state)
        self.rng, self.paddle, self.swchb, self.frames, self.last = copy.deepcopy(own)

    # -- per-frame interface --------------------------------------------------------
    def act(self, action: int) -> FrameResult:
        """One ALE ``act`` (frame_skip 1) with ALE action id ``action`` (0..17)."""
        self.frames += 1
        return self.frame(int(action))

    @property
    def screen(self) -> np.ndarray:
        """Palette indices of the last frame, ``(height, 160)`` uint8 (ALE ``getScreen``)."""
        return self.sim.screen

    def ram(self) -> np.ndarray:
        """RIOT RAM (ALE ``getRAM``), 128 uint8."""
        return self.sim.riot_ram()

    def cart_ram(self) -> np.ndarray:
        """SuperChip RAM, 128 uint8 (zeros for cartridges without RAM)."""
        return self.sim.cart_ram() if self.sc else np.zeros(128, np.uint8)

