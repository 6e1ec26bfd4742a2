"""ALE as the oracle: one way to open ale-py 0.12 with the project's settings, and recordings.

Everything that compares the hardware or the models with ALE opens ALE through
:func:`open_ale`, so that every comparison runs under the same settings:

- ``frame_skip = 1`` (:data:`ALE_FRAME_SKIP`): one ``act`` is one emulated frame (ALE's
  default too); frame skip is the caller's loop (``nc2600.hls_models.frame_skip``), not ALE's;
- ``repeat_action_probability = 0`` (:data:`REPEAT_ACTION_PROBABILITY`): no sticky actions.
  ALE 0.12's default is 0.25, which would repeat the previous action on a quarter of frames
  and make ALE disagree with any deterministic model;
- ``random_seed = 0`` (:data:`RANDOM_SEED`) unless the caller gives one. ALE 0.12's default is
  -1 (seeded from the clock). This seed drives ALE's environment RNG only (sticky actions, and
  the SELECT presses of Adventure's ``setMode`` for a non-default mode); with sticky actions
  off, the RAM of every loadable game under random play is the same for any seed in the
  default mode (measured on all 104 games, 400 frames, seeds -1 / 0 / 987654), while
  Adventure's other modes differ by seed. The console's own RNG (RIOT RAM and timer, the
  ``system_random_seed`` 4753849) is not touched;
- logger mode ``Error`` (ALE prints nothing but errors).

Facts: ALE 0.12's source (``ale_interface.cpp``,
``stella_environment.cpp``).
"""
from __future__ import annotations

import os

import numpy as np

ALE_FRAME_SKIP = 1                 #: ALE's own ``frame_skip``: one ``act`` = one frame
REPEAT_ACTION_PROBABILITY = 0.0    #: ALE's sticky-action probability (ALE 0.12 default 0.25)
RANDOM_SEED = 0                    #: ALE's ``random_seed`` unless the caller gives one (ALE 0.12 default -1)


def open_ale(rom_path: str | os.PathLike, *, random_seed: int = RANDOM_SEED, mode: int | None = None,
             difficulty: int | None = None, reset: bool = False):
    """An ``ale_py.ALEInterface`` with the project's settings (module docstring) and a ROM loaded.

    Args:
        rom_path: the ROM file, already checked (``nc2600.host.games.resolve_rom``, or
            ``ale_py.roms.get_rom_path`` of a loadable game): ALE aborts the process on a ROM
            it has no settings for.
        random_seed: ALE's ``random_seed`` (environment RNG), taken modulo 2**31.
        mode, difficulty: ``setMode`` / ``setDifficulty`` after ``loadROM`` (None: ALE's
            default mode and difficulty 0). ALE applies them at the next ``reset_game``.
        reset: call ``reset_game`` before returning (needed after ``mode``/``difficulty``;
            ``loadROM`` itself ends with ALE's environment reset).
    Returns:
        The ``ALEInterface``; after ``loadROM`` it stands where ALE's first ``act`` starts.
    """
    import ale_py
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", int(random_seed) & 0x7FFFFFFF)
    ale.setFloat("repeat_action_probability", REPEAT_ACTION_PROBABILITY)
    ale.setInt("frame_skip", ALE_FRAME_SKIP)
    ale.loadROM(str(rom_path))
    if mode is not None:
        ale.setMode(mode)
    if difficulty is not None:
        ale.setDifficulty(difficulty)
    if reset:
        ale.reset_game()
    return ale


def superchip_ram(ale) -> np.ndarray | None:
    """``(128,)`` uint8 SuperChip cartridge RAM read from ALE's serialized state, or None when
    the cartridge has none.

    The cartridge section of ``cloneState().serialize()`` is the cartridge name
    (``CartridgeF6SC``/``F8SC``/``F4SC``), the bank (int32), the RAM size (int32, 128) and one
    little-endian int32 per RAM byte (ALE's ``Serializer``).
    """
    blob = ale.cloneState().serialize()
    for tag in (b"CartridgeF6SC", b"CartridgeF8SC", b"CartridgeF4SC"):
        i = blob.find(tag)
        if i >= 0:
            words = np.frombuffer(blob, dtype="<i4", count=128, offset=i + len(tag) + 8)
            return (words & 0xFF).astype(np.uint8)
    return None

