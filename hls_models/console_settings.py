"""Per-game console settings as data (``hls_models/console_settings.toml``), loaded and checked.

What a console must know, beyond the ROM, to replay ALE 0.12's power-on and reset sequence for
one game (``host/drivers/rtl_console.py``): the screen's first scanline (``YStart``), whether HMOVE
blanks are drawn, the ``setMode`` sequence for the default mode, the controller (joystick or
paddles, paddle range, swapped paddles or ports) and the difficulty switches. The ``setMode``
stop conditions are expressions of the game rules language, compiled by the same checker
(:func:`nc2600.hls_models.game_rules.compile_condition`); the starting actions come from the rules
table. The file's header lists the fields and their sources.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from nc2600.hls_models.game_rules import RuleError, compile_condition, load_rules

SETTINGS_PATH = Path(__file__).with_name("console_settings.toml")

DEFAULT_YSTART = 34                          #: ALE's default ``Display.YStart`` (scanlines)
PADDLE_MIN, PADDLE_MAX = 27450, 790196       #: ALE 0.12 paddle resistance range (ohms)

_FIELDS = {"ystart", "hmove_blanks", "setmode", "controller", "paddle_range", "swap_paddles",
           "right_paddles", "swap_ports", "difficulty_a"}
_SETMODE_FIELDS = {"soft_reset_first", "select_first", "noops_first", "select_frames", "until"}


@dataclass(frozen=True)
class SelectMode:
    """A ``setMode`` by SELECT presses (see the data file's header). ``until(ram, xram, mode)``:
    ``ram``/``xram`` 128 uint8 each (index = address & 0x7F), ``mode`` the game mode."""
    until_source: str
    until: object
    select_frames: int
    select_first: int = 0
    noops_first: int = 0
    soft_reset_first: bool = False


@dataclass(frozen=True)
class ConsoleSettings:
    """One game's console settings (defaults for a game the file does not list).

    Attributes: ``ystart`` (scanline), ``hmove_blanks``, ``setmode`` (None, ``"soft_reset"``,
    ``"double_dunk_menu"`` or a :class:`SelectMode`), ``paddles``, ``paddle_range`` (ohms),
    ``swap_paddles``, ``right_paddles``, ``swap_ports``, ``difficulty_a``.
    """
    game: str
    ystart: int = DEFAULT_YSTART
    hmove_blanks: bool = True
    setmode: object = None
    paddles: bool = False
    paddle_range: tuple[int, int] = (PADDLE_MIN, PADDLE_MAX)
    swap_paddles: bool = False
    right_paddles: bool = False
    swap_ports: bool = False
    difficulty_a: bool = False


def _entry(game: str, e: dict) -> ConsoleSettings:
    def fail(fld, msg):
        raise RuleError(f"console settings, game {game!r}, field {fld!r}: {msg}")

    def boolean(fld):
        v = e.get(fld, False)
        if type(v) is not bool:
            fail(fld, "expected true or false")
        return v

    def count(d, fld, lo, hi, where):
        v = d.get(fld, 0)
        if type(v) is not int or not lo <= v <= hi:
            fail(where, f"{fld} must be an integer in {lo}..{hi}")
        return v

    if not isinstance(e, dict):
        fail("-", "entry is not a table")
    for k in e:
        if k not in _FIELDS:
            fail(k, "unknown field")
    ystart = e.get("ystart", DEFAULT_YSTART)
    if type(ystart) is not int or not 0 <= ystart <= 100:
        fail("ystart", "expected a scanline 0..100")
    hmove = e.get("hmove_blanks", True)
    if type(hmove) is not bool:
        fail("hmove_blanks", "expected true or false")
    sm = e.get("setmode")
    if isinstance(sm, dict):
        for k in sm:
            if k not in _SETMODE_FIELDS:
                fail("setmode", f"unknown field {k!r}")
        if "until" not in sm or "select_frames" not in sm:
            fail("setmode", "needs until and select_frames")
        sfr = sm.get("soft_reset_first", False)
        if type(sfr) is not bool:
            fail("setmode", "soft_reset_first must be true or false")
        sm = SelectMode(until_source=sm["until"], until=compile_condition(game, "setmode.until", sm["until"]),
                        select_frames=count(sm, "select_frames", 1, 255, "setmode"),
                        select_first=count(sm, "select_first", 0, 255, "setmode"),
                        noops_first=count(sm, "noops_first", 0, 255, "setmode"), soft_reset_first=sfr)
    elif sm not in (None, "soft_reset", "double_dunk_menu"):
        fail("setmode", "expected a table, \"soft_reset\" or \"double_dunk_menu\"")
    controller = e.get("controller", "joystick")
    if controller not in ("joystick", "paddles"):
        fail("controller", "expected \"joystick\" or \"paddles\"")
    paddles = controller == "paddles"
    rng = e.get("paddle_range", [PADDLE_MIN, PADDLE_MAX])
    if not (isinstance(rng, list) and len(rng) == 2 and all(type(v) is int for v in rng) and 0 < rng[0] < rng[1]):
        fail("paddle_range", "expected [min, max] ohms, 0 < min < max")
    for k in ("paddle_range", "swap_paddles", "right_paddles"):
        if k in e and not paddles:
            fail(k, "only for controller = \"paddles\"")
    return ConsoleSettings(game=game, ystart=ystart, hmove_blanks=hmove, setmode=sm, paddles=paddles,
                           paddle_range=(rng[0], rng[1]), swap_paddles=boolean("swap_paddles"),
                           right_paddles=boolean("right_paddles"), swap_ports=boolean("swap_ports"),
                           difficulty_a=boolean("difficulty_a"))


def parse_settings(text: str, games=None) -> dict[str, ConsoleSettings]:
    """Parse and check a console settings table; ``games``: the known game ids (default: the
    rules table's). Raises :class:`nc2600.hls_models.game_rules.RuleError` naming game and field."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"console settings file is not valid TOML: {exc}") from None
    if set(doc) - {"games"}:
        raise RuleError(f"console settings: unknown top-level keys {sorted(set(doc) - {'games'})}")
    entries = doc.get("games", {})
    known = set(load_rules()) if games is None else set(games)
    out = {}
    for name, e in entries.items():
        if name not in known:
            raise RuleError(f"console settings: game {name!r} is not a game of the rules table")
        out[name] = _entry(name, e)
    return out


@lru_cache(maxsize=1)
def _all() -> dict[str, ConsoleSettings]:
    return parse_settings(SETTINGS_PATH.read_text())


def listed_games() -> tuple[str, ...]:
    """The game ids the data file lists (sorted)."""
    return tuple(sorted(_all()))


def console_settings(game: str) -> ConsoleSettings:
    """The console settings of ALE game ``game`` (defaults when the file does not list it)."""
    return _all().get(game) or ConsoleSettings(game=game)
