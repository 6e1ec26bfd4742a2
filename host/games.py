"""Catalogue of the ALE games nc2600 can run, and ROM resolution with input checks.

The games are the ROMs bundled with ale-py 0.12.1 that ALE supports (it has game settings for
them): 104 of the 108 files (combat, joust, maze_craze and warlords are refused by ALE).
Loading an unsupported ROM aborts the ALE process, so support is checked first with
``ALEInterface.isSupportedROM`` (an md5 lookup).
"""
from __future__ import annotations

import difflib
import hashlib
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from nc2600.host.errors import UserError

#: ROM sizes (bytes) of the cartridge schemes ALE's games use; any other size is refused early.
KNOWN_ROM_SIZES = (2048, 4096, 8192, 10240, 10495, 10496, 12288, 16384, 32768, 65536, 131072)


def _ale():
    import ale_py
    import ale_py.roms  # noqa: F401  (submodule, not imported by the package)
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    return ale_py


@lru_cache(maxsize=1)
def loadable_games() -> tuple[str, ...]:
    """Sorted names of the bundled ROMs that ALE 0.12 loads (104 names)."""
    ale_py = _ale()
    names = []
    for name in ale_py.roms.get_all_rom_ids():
        path = ale_py.roms.get_rom_path(name)
        if path is not None and ale_py.ALEInterface.isSupportedROM(path):
            names.append(name)
    return tuple(sorted(names))


def resolve_rom(game: str | None = None, rom: str | os.PathLike | None = None) -> tuple[str, Path]:
    """Find the game name and ROM path from ``--game`` and/or ``--rom``.

    Returns:
        ``(game_name, rom_path)``.
    Raises:
        UserError: unknown game (with close names suggested), unreadable ROM file,
        a size no cartridge scheme has, or an md5 that is not one of ALE's games.
    """
    ale_py = _ale()
    if rom is not None:
        from nc2600.host.inputs import read_regular_file
        path = Path(rom)
        data = read_regular_file(rom, max(KNOWN_ROM_SIZES), "ROM")
        if len(data) not in KNOWN_ROM_SIZES:
            raise UserError(f"ROM {str(path)!r} has {len(data)} byte{'' if len(data) == 1 else 's'}, not a 2600 "
                            "cartridge size "
                            f"({', '.join(map(str, KNOWN_ROM_SIZES))})")
        name = ale_py.ALEInterface.isSupportedROM(path)
        if not name:
            md5 = hashlib.md5(data).hexdigest()
            bundled = {m: n for n, m in unsupported_bundled_roms().items()}.get(md5)
            if bundled is not None:
                raise UserError(f"ROM {str(path)!r} is ALE's bundled {bundled!r}, {_UNSUPPORTED}")
            raise UserError(f"ROM {str(path)!r} (md5 {md5}) is not one of ALE's supported games")
        if game is not None and game != name:
            raise UserError(f"--game {game!r} does not match the ROM, which is {name!r}")
        return name, path.resolve()
    if game is None:
        raise UserError("give --game NAME or --rom PATH")
    check_game_name(game)
    return game, Path(ale_py.roms.get_rom_path(game)).resolve()


_UNSUPPORTED = ("one of the ROMs ale-py 0.12 ships that ALE has no game settings for (reward, game over, "
                "actions), outside its 104 supported games; `nc2600 games` lists those")


@lru_cache(maxsize=1)
def unsupported_bundled_roms() -> dict[str, str]:
    """The ROMs bundled with ale-py 0.12 that ALE refuses to load (combat, joust, maze_craze,
    warlords): name -> md5 of the file."""
    ale_py = _ale()
    out = {}
    for name in ale_py.roms.get_all_rom_ids():
        path = ale_py.roms.get_rom_path(name)
        if path is not None and not ale_py.ALEInterface.isSupportedROM(path):
            out[name] = hashlib.md5(Path(path).read_bytes()).hexdigest()
    return out


def check_game_name(game: str, names=None) -> None:
    """Raise UserError for a name not in ``names`` (default: the loadable games), suggesting
    the closest names (difflib); one of ALE's bundled but unsupported ROMs is named as such."""
    names = sorted(loadable_games() if names is None else names)
    if game not in names and game in unsupported_bundled_roms():
        raise UserError(f"game {game!r} is {_UNSUPPORTED}")
    if game not in names:
        close = difflib.get_close_matches(game, names, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `nc2600 games` lists them"
        raise UserError(f"unknown game {game!r}{hint}")


@dataclass(frozen=True)
class GameInfo:
    """Static facts about one game as ALE 0.12 sets it up.

    Attributes:
        name: ALE's snake-case ROM id.
        rom_path: the ROM file.
        md5: hex md5 of the ROM file.
        rom_bytes: ROM size in bytes.
        mapper: bank-switching scheme (Stella 2.4.2 auto-detection, :mod:`nc2600.hls_models.cartridge`).
        screen_height, screen_width: ``getScreenDims()`` in pixels (rows, colour clocks).
        display: ``"PAL"`` when ALE detected a PAL ROM (250 rows), else ``"NTSC"``.
        minimal_actions: ALE action ids of the minimal action set, in ALE's order.
        fire_reset: FIRE (id 1) is in the minimal set, so an episode starts with one FIRE step.
    """
    name: str
    rom_path: Path
    md5: str
    rom_bytes: int
    mapper: str
    screen_height: int
    screen_width: int
    display: str
    minimal_actions: tuple[int, ...] = field(default=())
    fire_reset: bool = False


@lru_cache(maxsize=None)
def game_info(name: str, rom_path: Path | None = None) -> GameInfo:
    """Load the ROM in ALE once and collect its :class:`GameInfo`."""
    from nc2600.hls_models.cartridge import detect_mapper
    from nc2600.host.episodes.ale_oracle import open_ale
    if rom_path is None:
        name, rom_path = resolve_rom(game=name)
    data = Path(rom_path).read_bytes()
    ale = open_ale(rom_path)
    width, height = ale.getScreenDims()[1], ale.getScreenDims()[0]
    actions = tuple(int(a.value) if hasattr(a, "value") else int(a) for a in ale.getMinimalActionSet())
    return GameInfo(name=name, rom_path=Path(rom_path), md5=hashlib.md5(data).hexdigest(),
                    rom_bytes=len(data), mapper=detect_mapper(data), screen_height=height,
                    screen_width=width, display="PAL" if height == 250 else "NTSC",
                    minimal_actions=actions, fire_reset=1 in actions)
