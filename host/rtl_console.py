"""The RTL console (Verilated ``hw.console``) driven exactly as ALE 0.12 drives its emulator.

:class:`RtlConsole` replays, on the hardware model, what ``ALEInterface.loadROM`` does
(``shared/reference/ale-oracle-facts.md``; ALE's ``Console.cxx``, ``M6532.cxx``,
``stella_environment.cpp``):

1. console built: 128 RIOT RAM bytes and one timer value drawn from the system RNG
   (``std::mt19937`` seeded 4753849; numpy's ``RandomState`` gives the same stream);
2. display auto-detection: ``System::reset``, 60 frames (NTSC limits, the ROM's own height);
3. ``System::reset`` (now with the detected format: PAL = 342-line limit, colour loss,
   250 rows);
4. environment reset: ``System::reset``; 60 NOOP frames; RESET held 4 frames; the game's
   ``setMode`` for its default mode (:data:`SETMODE`: SELECT presses until the mode shows
   in RAM, then RESET held 4 frames; Double Dunk walks its menu); RESET held 4 frames;
   the game's starting actions (:data:`STARTING_ACTIONS`).

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

from hwtools.console_harness import ConsoleSim, FrameResult

__all__ = ["RtlConsole", "SYSTEM_SEED", "YSTART", "NO_HMOVE_BLANKS", "STARTING_ACTIONS",
           "SETMODE_SOFT_RESET", "joystick_inputs"]

SYSTEM_SEED = 4753849           #: ALE's default ``system_random_seed``
DEFAULT_YSTART = 34
#: Per-ROM ``Display.YStart`` properties of ALE's ROM set.
YSTART = {"carnival": 26, "pooyan": 26, "qbert": 40, "up_n_down": 30}
#: ROMs whose ``Emulation.HmoveBlanks`` property is NO.
NO_HMOVE_BLANKS = frozenset({"asteroids", "battle_zone", "darkchambers", "ms_pacman"})
RESET_ACTION = 40
#: ``RomSettings::getStartingActions`` of ALE 0.12 (ALE action ids; 40 = RESET).
STARTING_ACTIONS = {
    "air_raid": [1], "asterix": [1], "beam_rider": [3], "casino": [0] * 60 + [1, 1],
    "darkchambers": [0] * 486, "double_dunk": [10], "elevator_action": [1] * 16, "enduro": [1],
    "entombed": [1, 0, 0, 0, 0, 0], "gopher": [1], "gravitar": [1] * 16, "journey_escape": [1],
    "kaboom": [1], "keystone_kapers": [RESET_ACTION], "klax": [1, 0], "laser_gates": [RESET_ACTION],
    "lost_luggage": [1], "mario_bros": [0] * 10 + [1] * 7, "mr_do": [1], "pitfall": [2],
    "pitfall2": [2], "private_eye": [2], "sir_lancelot": [RESET_ACTION, 4], "skiing": [5] * 16,
    "turmoil": [1], "up_n_down": [1], "video_cube": [0] * 61 + [1, 0, 0],
    "word_zapper": [0] * 486 + [1, 0, 0], "yars_revenge": [1],
}
def _b(v: int) -> int:
    return v & 0xFF


def _bcd(v: int) -> int:
    return (v >> 4) * 10 + (v & 15)


#: ALE 0.12 ``setMode`` of the games that select their mode with SELECT, for the default
#: mode ``m``: (SELECT frames pressed first, NOOP acts first, done(ram, xram, m), SELECT
#: frames per press). ``ram`` is indexed by address & 0x7F; ``xram`` is the SuperChip RAM.
#: Each press is followed by one NOOP frame, and the whole ends with a soft reset.
SETMODE = {
    "air_raid": (20, 0, lambda r, x, m: r[0x2A] == m, 10),
    "alien": (0, 0, lambda r, x, m: r[0x01] == m, 1),
    "asteroids": (0, 0, lambda r, x, m: r[0x00] == m, 2),
    "atlantis": (0, 0, lambda r, x, m: r[0x0D] == m, 2),
    "backgammon": (0, 0, lambda r, x, m: r[0x5C] == 3, 1),
    "bank_heist": (0, 0, lambda r, x, m: r[0x00] == m, 1),
    "basic_math": (0, 0, lambda r, x, m: r[0x45] == m, 2),
    "battle_zone": (0, 0, lambda r, x, m: r[0x21] == m, 2),
    "berzerk": (0, 20, lambda r, x, m: r[0x00] == m, 2),
    "bowling": (0, 0, lambda r, x, m: r[0x02] == m, 2),
    "breakout": (0, 0, lambda r, x, m: r[0x32] == m, 1),
    "casino": (0, 0, lambda r, x, m: r[0x54] == m, 2),
    "centipede": (0, 0, lambda r, x, m: r[0x27] == m, 2),
    "chopper_command": (0, 0, lambda r, x, m: r[0x60] == m, 2),
    "crazy_climber": (0, 0, lambda r, x, m: r[0x00] == m, 2),
    "crossbow": (0, 0, lambda r, x, m: _b(int(r[0x0D]) - 1) == m, 2),
    "defender": (0, 0, lambda r, x, m: r[0x1B] == m, 2),
    "demon_attack": (0, 0, lambda r, x, m: r[0x6A] == m, 1),
    "et": (0, 0, lambda r, x, m: _b(int(r[0x6A]) - 1) == m, 25),
    "flag_capture": (0, 0, lambda r, x, m: r[0x56] == m, 2),
    "freeway": (0, 0, lambda r, x, m: r[0x00] == m, 1),
    "frogger": (0, 0, lambda r, x, m: r[0x5D] == 1 + 2 * m, 2),
    "frostbite": (0, 0, lambda r, x, m: r[0x00] == m, 1),
    "galaxian": (0, 0, lambda r, x, m: r[0x33] == m, 1),
    "gravitar": (0, 0, lambda r, x, m: r[0x00] == m, 10),
    "hangman": (0, 0, lambda r, x, m: r[0x6E] == m, 2),
    "haunted_house": (0, 0, lambda r, x, m: r[0x4C] == m, 2),
    "hero": (0, 0, lambda r, x, m: r[0x00] == m, 1),
    "human_cannonball": (0, 0, lambda r, x, m: _b(int(r[0x36]) - 1) == m and r[0x37] == 1, 2),
    "ice_hockey": (0, 0, lambda r, x, m: r[0x00] == m, 2),
    "jamesbond": (0, 0, lambda r, x, m: r[0x0C] in (m, m + 0x48), 20),
    "kangaroo": (0, 0, lambda r, x, m: r[0x3A] in (m, m + 0x80), 2),
    "king_kong": (0, 0, lambda r, x, m: r[0x6C] == 2 * m, 2),
    "klax": (0, 0, lambda r, x, m: x[0x6A] == m, 2),
    "lost_luggage": (0, 0, lambda r, x, m: r[0x14] == 1 + 3 * m, 2),
    "mario_bros": (0, 0, lambda r, x, m: r[0x00] == m, 5),
    "mr_do": (0, 0, lambda r, x, m: r[0x00] == m, 5),
    "ms_pacman": (0, 0, lambda r, x, m: r[0x19] == 1 and r[0x21] == 1, 10),
    "name_this_game": (0, 0, lambda r, x, m: r[0x5E] == m, 2),
    "othello": (0, 0, lambda r, x, m: _b(int(r[0x5E]) - 1) == m, 2),
    "pacman": (0, 0, lambda r, x, m: _b(int(r[0x4C]) - 1) == m and r[0x66] == 0, 2),
    "pong": (0, 0, lambda r, x, m: r[0x16] == m, 2),
    "pooyan": (2, 0, lambda r, x, m: r[0x3D] == m, 2),
    "private_eye": (0, 0, lambda r, x, m: r[0x00] == m, 2),
    "space_invaders": (0, 0, lambda r, x, m: r[0x5C] == m, 2),
    "space_war": (0, 0, lambda r, x, m: _bcd(r[0x27]) == m, 2),
    "star_gunner": (0, 0, lambda r, x, m: r[0x74] == m, 15),
    "surround": (0, 0, lambda r, x, m: r[0x79] == m + 1, 2),
    "tennis": (0, 0, lambda r, x, m: r[0x00] == m, 2),
    "tic_tac_toe_3d": (0, 0, lambda r, x, m: r[0x08] == m, 2),
    "turmoil": (0, 0, lambda r, x, m: r[0x6A] == m, 2),
    "tutankham": (0, 0, lambda r, x, m: r[0x2B] == m, 2),
    "video_checkers": (0, 0, lambda r, x, m: r[0x76] == (m + 6 if m >= 11 else m), 1),
    "video_chess": (0, 0, lambda r, x, m: r[0x6A] == m, 1),
    "video_pinball": (0, 0, lambda r, x, m: r[0x41] == m, 2),
    "word_zapper": (0, 0, lambda r, x, m: r[0x5B] == m, 2),
    "yars_revenge": (2, 0, lambda r, x, m: r[0x63] == m, 1),
    "zaxxon": (0, 0, lambda r, x, m: r[0x02] == m, 10),
}
#: Games whose ``setMode`` soft-resets before selecting (Gopher).
SETMODE_PRE_SOFT_RESET = frozenset({"gopher"})
SETMODE["gopher"] = (0, 0, lambda r, x, m: r[0x53] == m, 5)

#: Games whose ALE ``setMode`` ends with a ``softReset`` (RESET held 4 more frames).
SETMODE_SOFT_RESET = frozenset("""
adventure air_raid alien asteroids atlantis backgammon bank_heist basic_math battle_zone berzerk
bowling breakout casino centipede chopper_command crazy_climber crossbow defender demon_attack
double_dunk et flag_capture freeway frogger frostbite galaxian gopher gravitar hangman
haunted_house hero human_cannonball ice_hockey james_bond kangaroo king_kong klax lost_luggage
mario_bros mr_do ms_pacman name_this_game othello pacman pong pooyan private_eye space_invaders
space_war star_gunner surround tennis tic_tac_toe_3d turmoil tutankham video_checkers video_chess
video_cube video_pinball word_zapper yars_revenge zaxxon""".split())

#: Games ALE drives with paddles (actions move the paddle resistance).
PADDLE_GAMES = frozenset({"backgammon", "blackjack", "breakout", "casino", "kaboom", "pong"})
PADDLE_MIN, PADDLE_MAX, PADDLE_DELTA = 27450, 790196, 23000   #: ALE 0.12 paddle model (ohms)
#: Games whose ROM settings change ALE's paddle range (``modifyEnvironmentSettings`` sets
#: ``paddle_max``; ALE 0.12 Backgammon.cpp, Blackjack.cpp); the others use
#: ``(PADDLE_MIN, PADDLE_MAX)``. The reset position is the midpoint of the game's range
#: (``ALEState::resetPaddles``).
PADDLE_LIMITS = {"backgammon": (PADDLE_MIN, 1_000_000), "blackjack": (PADDLE_MIN, 795_000)}

#: Stella properties of ALE's ROM set that change the inputs: ports swapped (player A's
#: joystick on the right port), paddles swapped in their jack, paddles on the right port
#: too, both difficulty switches A until ALE first sets them (ALE then holds them at B).
SWAP_PORTS = frozenset({"surround", "wizard_of_wor"})
SWAP_PADDLES = frozenset({"pong"})
RIGHT_PADDLES = frozenset({"pong"})
DIFFICULTY_A = frozenset({"amidar"})

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


def paddle_needed(resistance: int) -> int:
    """CPU cycles after the dump is released until a paddle of ``resistance`` ohms reads
    charged: Stella 2.4.2's ``(uint32)(1.6 * r * 0.01e-6 * 1.19e6)`` in doubles."""
    return int(1.6 * resistance * 0.01E-6 * 1.19E6)


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
    if a == 1 or 10 <= a <= 17:
        swcha &= ~(0x40 if swap else 0x80)
    if a == RESET_ACTION:
        swchb &= ~0x01
    right = 1 if right_paddles else 2
    if resistance is None:
        needed, mode = (0, 0, 0, 0), (1, 1, right, right)
    else:
        n0, n1 = paddle_needed(resistance[0]), paddle_needed(resistance[1])
        needed = (n1, n0, 0, 0) if swap else (n0, n1, 0, 0)
        mode = (0, 0, right, right)
    return {"swcha": swcha, "swchb": swchb, "inpt4": 1, "inpt5": 1, "paddle_needed": needed,
            "paddle_mode": mode}


def _default_mode(rom_path) -> int:
    """ALE's default game mode (the first of ``getAvailableModes``), from ale-py's settings."""
    from host.ale_oracle import open_ale
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
        game: ALE ROM id (``host.games.resolve_rom``); the mapper comes from the ROM
            (:func:`hls_models.cartridge.detect_mapper`).
        seed: the system RNG seed (ALE's ``system_random_seed``).
        sim: the console to drive (default: a new :class:`hwtools.console_harness.ConsoleSim`); any
            object with its methods, e.g. a fabric instance's console
            (:class:`host.fabric.MmioConsolePort`).
        colour_clocks_per_cycle: the default console's configuration, 1 or 3
            (:class:`hw.console.Console`); ignored when ``sim`` is given.
    """

    def __init__(self, game: str, rom_path=None, seed: int = SYSTEM_SEED, sim=None,
                 colour_clocks_per_cycle: int = 1):
        from hls_models.cartridge import detect_mapper
        from host.errors import UserError
        from host.games import game_info, resolve_rom
        from hw.console import SUPPORTED
        name, path = resolve_rom(game=game) if rom_path is None else (game, rom_path)
        self.game = name
        self.image = bytes(open(path, "rb").read())
        self.mapper = detect_mapper(self.image)
        if self.mapper not in SUPPORTED:
            raise UserError(f"{name}: mapper {self.mapper} is not implemented by the console RTL yet")
        info = game_info(name, path) if rom_path is None else game_info(name, rom_path)
        self.pal = info.display == "PAL"
        self.height = info.screen_height
        self.ystart = YSTART.get(name, DEFAULT_YSTART)
        self.hmove_blanks = name not in NO_HMOVE_BLANKS
        self.sc = self.mapper in ("F8SC", "F6SC")
        self.rng = _Mt(seed)
        self.sim = ConsoleSim(colour_clocks_per_cycle) if sim is None else sim
        self.frames = 0
        self.last: FrameResult | None = None
        self.paddles = name in PADDLE_GAMES
        self.paddle: list[int] | None = None     # ALE's paddle positions (None: events unset)
        self.paddle_range = PADDLE_LIMITS.get(name, (PADDLE_MIN, PADDLE_MAX))
        # difficulty switches from the ROM properties until ALE's first action sets them to B
        self.swchb = 0xFF if name in DIFFICULTY_A else 0x3F
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
                a = int(action)
                delta = -PADDLE_DELTA if a in (3, 6, 8, 11, 14, 16) else \
                    PADDLE_DELTA if a in (4, 7, 9, 12, 15, 17) else 0
                lo, hi = self.paddle_range
                self.paddle[0] = min(max(self.paddle[0] + delta, lo), hi)
            self.sim.set_inputs(**paddle_inputs(action, None if self.paddle is None else tuple(self.paddle),
                                                swap=self.game in SWAP_PADDLES,
                                                right_paddles=self.game in RIGHT_PADDLES, swchb=self.swchb))
        else:
            self.sim.set_inputs(**joystick_inputs(action, self.game in SWAP_PORTS, self.swchb))
        self.swchb = swchb
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
        sim.load_rom(self.image[:16384])
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
        """ALE's ``setMode`` for the game's default mode (first of its available modes)."""
        if self.game == "double_dunk":
            self._double_dunk_mode(self.default_mode)
            return
        if self.game in SETMODE_PRE_SOFT_RESET:
            self.soft_reset()
        if self.game in SETMODE:
            first, noops, done, k = SETMODE[self.game]
            m = self.default_mode
            if first:
                self.press_select(first)
            for _ in range(noops):
                self.frame(0)
            for _ in range(200):
                if done(self.ram(), self.sim.cart_ram(), m):
                    break
                self.press_select(k)
            self.soft_reset()
        elif self.game in SETMODE_SOFT_RESET:
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
        for a in STARTING_ACTIONS.get(self.game, []):
            self.frame(a)
        self.frames = 0

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

