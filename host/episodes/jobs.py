"""The episode vocabulary that every evaluator shares: a job (one episode to play), its result,
and the error of a worker that died. The local process pool
(:class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator`), the Ray evaluator
(:class:`nc2600.host.cluster.ray_evaluator.RayEvaluator`) and the fabric instance's
(:class:`nc2600.host.drivers.instance.FabricEvaluator`) take :class:`Job` and return
:class:`EpisodeResult`."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass


class Job:
    """One episode to evaluate: ``individual`` (index into the caller's table) and its seed."""
    individual: int
    episode_seed: int
    tag: object = None


@dataclass


class EpisodeResult:
    """Outcome of one :class:`Job`: raw return, emulated frames (reset included), decisions."""
    job: Job
    episode_return: float
    frames: int
    steps: int
    reset_frames: int


class WorkerDied(RuntimeError):
    """A worker process ended during an evaluation (killed, out of memory, emulator crash)."""
