"""Recordings of ALE runs (random play) used as references: screens and observation stacks.

Everything that compares the preprocessor, the policy models or the hardware with ALE's own
frames takes them from here; ALE is opened by :func:`nc2600.host.episodes.ale_oracle.open_ale` (the project's
settings). Kept apart from :mod:`nc2600.host.episodes.ale_oracle` because it resolves game names through
:mod:`nc2600.host.games`, which itself opens ALE through :mod:`nc2600.host.episodes.ale_oracle`.
"""
from __future__ import annotations

import numpy as np

from nc2600.hls_models.preprocessor import FRAME_SKIP, observation_stacks
from nc2600.host.episodes.ale_oracle import open_ale


def record_screens(game: str, frames: int, seed: int = 0, frame_skip: int = FRAME_SKIP):
    """Run ALE with random minimal-set actions and record every frame.

    Args:
        game: ALE ROM id (e.g. ``"pong"``).
        frames: number of emulated frames (frame skip 1 inside ALE; one action is held for
            ``frame_skip`` frames).
        seed: seed of the action choice (numpy ``default_rng``) and of ALE's ``random_seed``.
    Returns:
        ``(screens, greys, display)``: ``(frames, H, 160)`` uint8 palette indices
        (``getScreen``), ``(frames, H, 160)`` uint8 ALE grey (``getScreenGrayscale``), and
        ``"NTSC"``/``"PAL"``. The game is reset when it ends (the next frame is the first
        after ``reset_game``).
    Raises:
        UserError: unknown game.
    """
    from nc2600.host.games import game_info, resolve_rom
    name, rom = resolve_rom(game=game)
    info = game_info(name, rom)
    ale = open_ale(rom_path=rom, random_seed=seed, reset=True)
    actions = list(ale.getMinimalActionSet())
    rng = np.random.default_rng([int(seed), 0x9E])
    h, w = ale.getScreenDims()
    screens = np.empty((frames, h, w), np.uint8)
    greys = np.empty((frames, h, w), np.uint8)
    action = actions[0]
    for t in range(frames):
        if t % frame_skip == 0:
            action = actions[int(rng.integers(len(actions)))]
        ale.act(action)
        ale.getScreen(screens[t])
        ale.getScreenGrayscale(greys[t])
        if ale.game_over():
            ale.reset_game()
    return screens, greys, info.display


def record_observations(game: str, n_obs: int, seed: int = 0) -> np.ndarray:
    """``(n_obs, 4, 84, 84)`` uint8 observation stacks from random play of ``game`` (frame skip 4).

    For calibrating :func:`nc2600.hls_models.policy_int8.quantize` and for tests.
    """
    screens, _, fmt = record_screens(game, n_obs * FRAME_SKIP, seed)
    return observation_stacks(screens, fmt)
