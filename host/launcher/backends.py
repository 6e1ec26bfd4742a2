"""Game instances by backend name: the instances a worker process of the local evaluator plays.

``ale`` is :class:`nc2600.host.episodes.env.AleEnv` (ale-py), ``rtl`` is
:class:`nc2600.host.drivers.rtl_console_env.RtlConsoleEnv` (the Verilated console). The protocol itself lives in
:mod:`nc2600.host.episodes.env`; the backends build on it, and this module sits above both. Which
backends exist and where they run is the registry's (:mod:`nc2600.host.launcher.evaluation`); the
``fabric`` backend plays whole episodes in the hardware and has no per-frame instance here.
"""
from __future__ import annotations

from nc2600.hls_models.platform import FRAME_SKIP
from nc2600.host.episodes.env import AleEnv, GameEnv
from nc2600.host.drivers.rtl_console_env import RtlConsoleEnv

#: backend name -> instance class (``cls(rom_path, frame_skip, sticky, episode_frames)``)
ENVS: dict[str, type[GameEnv]] = {"ale": AleEnv, "rtl": RtlConsoleEnv}


def make_instance(backend: str, rom_path, frame_skip: int = FRAME_SKIP, sticky: float = 0.0,
                  episode_frames: int = 20_000) -> GameEnv:
    """Create an instance of the named backend: ``"ale"`` (ale-py) or ``"rtl"`` (the Verilated
    console, :class:`nc2600.host.drivers.rtl_console_env.RtlConsoleEnv`).

    Raises:
        ValueError: unknown backend name.
    """
    if backend not in ENVS:
        raise ValueError(f"unknown backend {backend!r} (available: {', '.join(ENVS)})")
    return ENVS[backend](rom_path, frame_skip, sticky, episode_frames)
