"""The launcher's evaluation backends by name: one factory over every :class:`host.launcher.instance.Instance`.

``ale`` is :class:`host.launcher.instance.AleInstance` (ale-py), ``rtl`` is
:class:`host.drivers.rtl_instance.RtlInstance` (the Verilated console). The protocol itself lives in
:mod:`host.launcher.instance`; the backends build on it, and this module sits above both.
"""
from __future__ import annotations

from hls_models.platform import FRAME_SKIP
from host.launcher.instance import AleInstance, Instance
from host.drivers.rtl_instance import RtlInstance

#: backend names accepted by :func:`make_instance` (``nc2600 run --backend``)
BACKENDS = ("ale", "rtl")


def make_instance(backend: str, rom_path, frame_skip: int = FRAME_SKIP, sticky: float = 0.0,
                  episode_frames: int = 20_000) -> Instance:
    """Create an instance of the named backend: ``"ale"`` (ale-py) or ``"rtl"`` (the Verilated
    console, :class:`host.drivers.rtl_instance.RtlInstance`).

    Raises:
        ValueError: unknown backend name.
    """
    if backend == "ale":
        return AleInstance(rom_path, frame_skip, sticky, episode_frames)
    if backend == "rtl":
        return RtlInstance(rom_path, frame_skip, sticky, episode_frames)
    raise ValueError(f"unknown backend {backend!r} (available: {', '.join(BACKENDS)})")
