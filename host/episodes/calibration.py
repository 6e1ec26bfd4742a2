"""The calibration observations of ``--policy int8``: stacks of random play on ALE that set the
int8 requantisation shifts (:func:`nc2600.hls_models.policy_int8.quantize`), the same for every
command that quantises a network (``run``, ``play``, ``instance-play``, ``instance-lockstep``)."""
from __future__ import annotations

import numpy as np

from nc2600.host.episodes.env import AleEnv

#: episode seeds are drawn below this (ALE takes a 31-bit int)
SEED_LIMIT = 2**31 - 1


def calibration_observations(rom_path, frame_skip: int, episode_frames: int, seed: int, n: int) -> np.ndarray:
    """``(n, 4, 84, 84)`` uint8 stacks from random play on ALE (seeded by ``seed``): the
    observations that set the int8 requantisation shifts (``--policy int8``)."""
    inst = AleEnv(rom_path, frame_skip, 0.0, episode_frames)
    rng = np.random.default_rng([seed, 0xCA11B])
    stack = np.zeros((4, 84, 84), np.uint8)
    inst.reset(int(rng.integers(SEED_LIMIT)), stack)
    out = []
    while len(out) < n:
        for _ in range(4):
            _, _, over = inst.step(int(rng.integers(inst.n_actions)), stack)
            if over:
                inst.reset(int(rng.integers(SEED_LIMIT)), stack)
        out.append(stack.copy())
    return np.stack(out)
