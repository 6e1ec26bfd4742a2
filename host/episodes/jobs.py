"""The episode vocabulary that every evaluator shares: a job (one episode to play), its result,
and the error of a worker that died. The local process pool
(:class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator`), the Ray evaluator
(:class:`nc2600.host.cluster.ray_evaluator.RayEvaluator`) and the fabric instance's
(:class:`nc2600.host.drivers.fabric_backend.FabricEvaluator`) take :class:`Job` and return
:class:`EpisodeResult`."""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Iterable


@dataclass
class Job:
    """One episode to evaluate: ``individual`` (index into the caller's table) and its seed."""
    individual: int
    episode_seed: int
    tag: object = None


@dataclass
class EpisodeResult:
    """Outcome of one :class:`Job`: raw return, emulated frames (reset included), decisions, and
    ``actions_crc32``: :func:`actions_crc32` of the episode's actions (0 where not recorded)."""
    job: Job
    episode_return: float
    frames: int
    steps: int
    reset_frames: int
    actions_crc32: int = 0


def actions_crc32(actions: Iterable[int], crc: int = 0) -> int:
    """CRC-32 (:func:`zlib.crc32`) of action indices (into the game's minimal action set), one
    byte each in decision order, continuing from ``crc``: a per-episode digest of the decisions,
    so that two paths with equal returns and frames can also be shown to have decided alike."""
    return zlib.crc32(bytes(int(a) for a in actions), int(crc))


class WorkerDied(RuntimeError):
    """A worker process ended during an evaluation (killed, out of memory, emulator crash)."""
