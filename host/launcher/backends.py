"""Game instances by backend name: the instances a worker process of the local evaluator plays.

``ale`` is :class:`host.launcher.instance.AleInstance` (ale-py), ``rtl`` is
:class:`host.drivers.rtl_instance.RtlInstance` (the Verilated console). The protocol itself lives in
:mod:`host.launcher.instance`; the backends build on it, and this module sits above both. Which
backends exist and where they run is the registry's (:mod:`host.launcher.evaluation`); the
``fabric`` backend plays whole episodes in the hardware and has no per-frame instance here.
"""
from __future__ import annotations

from hls_models.platform import FRAME_SKIP
from host.launcher.instance import AleInstance, Instance
from host.drivers.rtl_instance import RtlInstance

#: backend name -> instance class (``cls(rom_path, frame_skip, sticky, episode_frames)``)
INSTANCES: dict[str, type[Instance]] = {"ale": AleInstance, "rtl": RtlInstance}


def make_instance(backend: str, rom_path, frame_skip: int = FRAME_SKIP, sticky: float = 0.0,
                  episode_frames: int = 20_000) -> Instance:
    """Create an instance of the named backend: ``"ale"`` (ale-py) or ``"rtl"`` (the Verilated
    console, :class:`host.drivers.rtl_instance.RtlInstance`).

    Raises:
        ValueError: unknown backend name.
    """
    if backend not in INSTANCES:
        raise ValueError(f"unknown backend {backend!r} (available: {', '.join(INSTANCES)})")
    return INSTANCES[backend](rom_path, frame_skip, sticky, episode_frames)
