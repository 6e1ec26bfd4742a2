"""A gymnasium environment whose observations and protocol are exactly the fabric's.

One :class:`Nc2600Env` is one console (ale-py, or the Verilated console RTL) under the
launcher's evaluation protocol (:class:`nc2600.host.episodes.env.ProtocolEnv`,
:mod:`nc2600.hls_models.frame_skip`): frame skip, sticky actions drawn from the episode seed, no-op
starts, FIRE at reset, the episode cap. So an agent trained here sees what a fabric instance
computes.

- observation: the ``(4, 84, 84)`` uint8 stack of the project's integer preprocessing
  (:mod:`nc2600.hls_models.preprocessor`: grey, max of the last two frames of the skip, fixed-point
  84 x 84 area resize, oldest frame first), ``Box(0, 255, (4, 84, 84), uint8)``;
- action: a minimal-action-set index, ``Discrete(n)`` (ALE's order);
- reward: the game score change over the frame-skip period (unclipped, ALE's raw score);
- ``terminated``: game over (ALE ``game_over()``; on ``rtl`` the game rules from RAM);
  ``truncated``: the episode cap (``episode_frames`` emulated frames, the start's included)
  was reached without game over;
- ``info``: ``lives``, ``episode_frame_number`` (emulated frames of this episode),
  ``frames`` (emulated frames of this step or reset) and ``episode_seed``; the emulated
  frames since the environment was made are :attr:`Nc2600Env.frame_number` (not in
  ``info``, which depends only on the episode seed and the actions).

Seeding: ``reset(seed=s)`` plays the episode of episode seed ``s``, the same episode as
``ProtocolEnv.reset(s)`` of the launcher (the same actions then give the same
observations, rewards and ends); ``reset()`` without a seed plays the episode whose seed is
the next draw (``integers(0, 2**31)``) of the environment's ``np_random``, so a seeded
environment's sequence of episodes is reproducible.

Registration: ``import nc2600`` registers ``nc2600/<Game>-v0`` for each of the 104 games ALE
0.12 supports (:mod:`nc2600.host.gym_registration`; ``<Game>`` is the CamelCase of ALE's id,
``boxing`` -> ``Boxing``, ``montezuma_revenge`` -> ``MontezumaRevenge``), and so does importing
this module::

    import gymnasium, nc2600
    env = gymnasium.make("nc2600/Pong-v0", backend="ale", frame_skip=4)
    # or without the import: gymnasium.make("nc2600.host.gym_env:nc2600/Pong-v0")

gymnasium 1.4.0 (the tested version) registers third-party environments only on import (it
reads no package entry points: ``gymnasium.envs`` registers its own environments and nothing
else), as ale-py's own environments are; a bare ``gymnasium.make("nc2600/Pong-v0")`` in a new
interpreter that imported nothing of nc2600 raises ``gymnasium.error.NamespaceNotFound``. Vector environments:
``gymnasium.make_vec("nc2600/Pong-v0", num_envs=8, vectorization_mode="async")`` or
:func:`make_vector_env` (one worker process per environment).
"""
from __future__ import annotations

import numbers
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from nc2600.hls_models.frame_skip import MAX_EPISODE_FRAMES, MAX_FRAME_SKIP, NOOP_MAX
from nc2600.hls_models.preprocessor import OUT_SIZE, STACK
from nc2600.host.errors import UserError
from nc2600.host.gym_registration import NAMESPACE, env_id, register_ids
from nc2600.host.launcher.settings import RunConfig

__all__ = ["BACKENDS", "NAMESPACE", "Nc2600Env", "env_id", "make_vector_env", "register_envs"]

#: backends of the environment (``nc2600.host.launcher.backends``): ale-py, or the Verilated console RTL
BACKENDS = ("ale", "rtl")
_DEFAULTS = RunConfig()
#: the launcher's defaults (``nc2600 run``)
DEFAULT_FRAME_SKIP = _DEFAULTS.frame_skip
DEFAULT_STICKY = _DEFAULTS.sticky
DEFAULT_EPISODE_FRAMES = _DEFAULTS.episode_frames
_SEED_DRAW = 1 << 31     #: unseeded resets draw episode seeds in [0, 2**31)


def _int_option(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi:,}], got {value!r}")
    return int(value)


class Nc2600Env(gymnasium.Env):
    """One console under the launcher's protocol, as a gymnasium environment (module doc).

    Args:
        game: ALE game id (``nc2600 games`` lists them); ignored when ``rom`` is given.
        rom: a ROM file instead of ``game`` (checked by md5, as ``nc2600 run --rom``).
        backend: ``"ale"`` (ale-py 0.12) or ``"rtl"`` (the Verilated console; reward, game
            over and lives from RAM by the game rules; about 40-100 frames/s).
        frame_skip: emulated frames per decision, 1..255 (the controller's 8-bit register).
        sticky: probability per emulated frame of repeating the previous frame's action
            (Machado et al. 2018 use 0.25), drawn from the episode seed.
        episode_frames: cap on emulated frames per episode, 1..16,777,215 (the controller's
            24-bit register).
        noop_max: no-op starts draw 1..``noop_max`` NOOP frames from the episode seed
            (1..30; 1 makes the start a single NOOP frame).
        fire_reset: hold FIRE for one frame-skip period after the no-op start when FIRE is
            in the minimal action set (OpenAI baselines' FireResetEnv).
        render_mode: None or ``"rgb_array"`` (the current screen, ``(H, 160, 3)`` uint8).
    Raises:
        ValueError: an option out of range, an unknown backend or game, an unreadable ROM,
            ``rtl`` with a game whose cartridge mapper the console RTL lacks.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 60}

    def __init__(self, game: str = _DEFAULTS.game, *, rom: str | None = None, backend: str = "ale",
                 frame_skip: int = DEFAULT_FRAME_SKIP, sticky: float = DEFAULT_STICKY,
                 episode_frames: int = DEFAULT_EPISODE_FRAMES, noop_max: int = NOOP_MAX,
                 fire_reset: bool = True, render_mode: str | None = None):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        frame_skip = _int_option("frame_skip", frame_skip, 1, MAX_FRAME_SKIP)
        episode_frames = _int_option("episode_frames", episode_frames, 1, MAX_EPISODE_FRAMES)
        noop_max = _int_option("noop_max", noop_max, 1, NOOP_MAX)
        if isinstance(sticky, bool) or not isinstance(sticky, numbers.Real) or not 0.0 <= sticky <= 1.0:
            raise ValueError(f"sticky must be a probability in [0, 1], got {sticky!r}")
        if not isinstance(fire_reset, bool):
            raise ValueError(f"fire_reset must be True or False, got {fire_reset!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        from nc2600.host.launcher.backends import make_instance
        from nc2600.host.games import resolve_rom
        try:
            self.game, rom_path = resolve_rom(game=None if rom is not None else game, rom=rom)
        except UserError as e:
            raise ValueError(str(e)) from None
        if backend == "rtl":
            from nc2600.hls_models.cartridge import detect_mapper
            from nc2600.hw.console import SUPPORTED
            mapper = detect_mapper(rom_path.read_bytes())
            if mapper not in SUPPORTED:
                raise ValueError(f"{self.game}: the console RTL has no {mapper} cartridge mapper "
                                 f"(it has {', '.join(SUPPORTED)}); use backend='ale'")
        self.backend, self.render_mode = backend, render_mode
        self.instance = make_instance(backend, rom_path, frame_skip, float(sticky), episode_frames)
        self.instance.noop_max = noop_max
        if not fire_reset:
            self.instance.fire_index = None
        self.observation_space = spaces.Box(0, 255, (STACK, OUT_SIZE, OUT_SIZE), np.uint8)
        self.action_space = spaces.Discrete(self.instance.n_actions)
        self.metadata = {**self.metadata, "render_fps": 60 / frame_skip}
        self._stack = np.zeros((STACK, OUT_SIZE, OUT_SIZE), np.uint8)
        self.frame_number = 0       #: emulated frames since the environment was made
        self.episode_seed: int | None = None

    def _lives(self) -> int:
        inst = self.instance
        return int(inst.ale.lives()) if hasattr(inst, "ale") else int(getattr(inst, "lives", 0))

    def _info(self, frames: int) -> dict[str, Any]:
        return {"lives": self._lives(), "episode_frame_number": self.instance.frames,
                "frames": frames, "episode_seed": self.episode_seed}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start the episode of episode seed ``seed`` (module doc); returns ``(obs, info)``."""
        super().reset(seed=seed)
        self.episode_seed = int(seed) if seed is not None else int(self.np_random.integers(_SEED_DRAW))
        frames = self.instance.reset(self.episode_seed, self._stack)
        self.frame_number += frames
        return self._stack.copy(), self._info(frames)

    def step(self, action):
        """Hold minimal-set index ``action`` for one frame-skip period; returns
        ``(obs, reward, terminated, truncated, info)``.

        Raises:
            ValueError: ``action`` not an index of the minimal action set.
            RuntimeError: the episode has ended (reset first).
        """
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral) \
                or not 0 <= action < self.action_space.n:
            raise ValueError(f"action must be an integer in [0, {self.action_space.n - 1}], got {action!r}")
        reward, frames, over = self.instance.step(int(action), self._stack)
        self.frame_number += frames
        terminated = bool(self.instance.game_over)
        truncated = bool(over and not terminated)
        return self._stack.copy(), float(reward), terminated, truncated, self._info(frames)

    def render(self):
        """The current screen as ``(H, 160, 3)`` uint8 RGB (``render_mode="rgb_array"``); None
        without a render mode."""
        if self.render_mode is None:
            return None
        inst = self.instance
        if hasattr(inst, "rgb"):
            return inst.rgb()
        from nc2600.hls_models.palette import rgb_lut
        if inst.console is None:      # before the first reset: no console powered on yet
            return np.zeros((*inst.pooled.shape, 3), np.uint8)
        return rgb_lut(inst.fmt)[inst.console.screen]

    def close(self):
        inst = getattr(self, "instance", None)
        sim = getattr(getattr(inst, "console", None), "sim", None)
        if sim is not None and hasattr(sim, "close"):
            sim.close()
        super().close()


def register_envs() -> list[str]:
    """Register ``nc2600/<Game>-v0`` for every game ALE 0.12 supports (idempotent); returns
    the ids (:func:`nc2600.host.gym_registration.register_ids`). The entry point is
    :class:`Nc2600Env` with ``game`` fixed; every other constructor argument is a
    ``gymnasium.make`` keyword."""
    return register_ids()


def make_vector_env(game: str, num_envs: int, **options) -> gymnasium.vector.AsyncVectorEnv:
    """``num_envs`` environments of ``game`` in worker processes (``AsyncVectorEnv``, one
    process each); ``options`` are :class:`Nc2600Env`'s. Bad options raise ValueError here,
    before any process starts."""
    num_envs = _int_option("num_envs", num_envs, 1, 1024)
    Nc2600Env(game, **options).close()          # check the options once, in this process

    def make():
        return Nc2600Env(game, **options)
    return gymnasium.vector.AsyncVectorEnv([make] * num_envs, context="fork")


register_envs()
