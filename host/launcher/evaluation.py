"""Where and on what episodes run: one :class:`Evaluator` protocol, backends and clusters by name.

A *backend* is what plays the episodes (``ale``: ale-py processes with the policy models;
``rtl``: the Verilated console with the same models; ``fabric``: the Verilated fabric instance,
console, preprocessor and int8 engine, through its register driver). A *cluster* is where the
backend's evaluators run (``local``: processes on this machine; ``ray``: one evaluator actor per
node of a Ray cluster). Every combination the registry allows gives an object with the
:class:`Evaluator` protocol; the launcher (:mod:`nc2600.host.launcher.run`) opens one through
:func:`open_evaluator` and never asks which it drives.

The registry is the one place that says:

- the names accepted by ``--backend`` and ``--cluster`` and their help (:data:`BACKENDS`,
  :data:`CLUSTERS`; a cluster that lives above the launcher, Ray, adds itself with
  :func:`register_cluster` when :mod:`nc2600.host.cluster` is imported, which ``import nc2600``
  arranges right after this module's import, ``nc2600._AFTER_IMPORT``);
- which settings each backend needs (:attr:`Backend.requires`, checked by :func:`check_settings`
  in the order listed, each with its one-line message);
- which clusters each backend runs on (:attr:`Backend.clusters`; :func:`combinations` lists
  every valid pair).

Results depend only on the individual, the episode seed and the arithmetic: every
combination with the same ``--policy`` (and network) returns the same episodes
(``tests/host/test_backends.py`` runs one generation through each).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Evaluator(Protocol):
    """What the launcher evaluates episodes with (a context manager).

    Attributes:
        n_actions: outputs of the policy (the game's minimal action set).
    """
    n_actions: int

    def evaluate(self, jobs: Sequence, params_for: Callable[[int], Any],
                 on_result: Callable[[Any], None] | None = None) -> list:
        """Play every job's episode (:class:`nc2600.host.episodes.jobs.Job`: individual, episode
        seed) with the policy ``params_for(job.individual)`` (a float32 vector, or a quantised
        policy for ``--policy int8``); returns one :class:`nc2600.host.episodes.jobs.EpisodeResult`
        per job, in job order, calling ``on_result`` as each arrives. Raises
        :class:`nc2600.host.episodes.jobs.WorkerDied` when the evaluation cannot continue."""

    def close(self) -> None:
        """Stop the workers; idempotent."""

    def __enter__(self) -> "Evaluator": ...

    def __exit__(self, *exc) -> None: ...


@dataclass(frozen=True)
class EvaluationSettings:
    """The settings an evaluator is built from (the run's, :class:`nc2600.host.launcher.run.RunConfig`).

    ``genome_spec`` (``n_actions, sigma, noise_size, noise_seed, calib_obs``) lets a cluster
    ship seed lists instead of parameter vectors (see :class:`nc2600.host.cluster.ray_evaluator.RayEvaluator`);
    a local evaluator ignores it.
    """
    rom_path: Path
    workers: int
    envs_per_block: int
    frame_skip: int
    sticky: float
    episode_frames: int
    backend: str
    policy: str
    network: str
    genome_spec: dict | None = None


@dataclass(frozen=True)
class Requirement:
    """A setting a backend needs: ``holds(settings)`` must be true, else ``message`` (one line)."""
    holds: Callable[[Any], bool]
    message: str


@dataclass(frozen=True)
class Backend:
    """One ``--backend``.

    Attributes:
        name: the option value.
        help: its words in ``--backend``'s help.
        clusters: the clusters it runs on.
        cluster_message: the one line when asked for another (empty: it runs on every cluster).
        requires: the settings it needs, checked in order.
        local: builds its evaluator on this machine from :class:`EvaluationSettings`.
    """
    name: str
    help: str
    clusters: tuple[str, ...]
    cluster_message: str
    requires: tuple[Requirement, ...]
    local: Callable[[EvaluationSettings], Evaluator]


@dataclass(frozen=True)
class Cluster:
    """One ``--cluster``.

    Attributes:
        name: the option value.
        help: its words in ``--cluster``'s help.
        connect: ``connect(address, workers)`` -> the connection the evaluators of this cluster
            need (``None`` for ``local``); the caller closes it (``.close()``).
        evaluator: ``evaluator(backend, connection, settings)`` -> an :class:`Evaluator`.
    """
    name: str
    help: str
    connect: Callable[[str | None, int], Any]
    evaluator: Callable[[Backend, Any, EvaluationSettings], Evaluator]


def _worker_pool(s: EvaluationSettings) -> Evaluator:
    """``ale`` and ``rtl``: W worker processes over game instances
    (:class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator`)."""
    from nc2600.host.launcher.local_pool import LocalPoolEvaluator as WorkerPool
    return WorkerPool(s.rom_path, s.workers, s.envs_per_block, s.frame_skip, s.sticky, s.episode_frames,
                      s.backend, s.policy, network=s.network)


def _fabric(s: EvaluationSettings) -> Evaluator:
    """``fabric``: W worker processes, each with one Verilated instance
    (:class:`nc2600.host.drivers.fabric_backend.FabricEvaluator`)."""
    from nc2600.host.drivers.fabric_backend import FabricEvaluator
    return FabricEvaluator(s.rom_path, s.workers, s.frame_skip, s.episode_frames)


def _local_connect(address: str | None, workers: int) -> None:
    return None


def _local_evaluator(backend: Backend, connection, s: EvaluationSettings) -> Evaluator:
    return backend.local(s)


#: ``--backend`` values, in the order of the help text
BACKENDS: dict[str, Backend] = {b.name: b for b in (
    Backend("ale", "ale-py", ("local", "ray"), "", (), _worker_pool),
    Backend("rtl", "the Verilated console RTL; reward from RAM by the game rules; slow: about 100 frames/s "
                   "per instance", ("local", "ray"), "", (), _worker_pool),
    Backend("fabric", "whole episodes inside the Verilated fabric instance through its AXI4-Lite driver; "
                      "needs --policy int8", ("local",),
            "--backend fabric runs on this machine only (--cluster local)",
            (Requirement(lambda c: c.policy == "int8", "--backend fabric runs the int8 network: use --policy int8"),
             Requirement(lambda c: not c.sticky > 0, "--backend fabric has no sticky actions (--sticky 0)"),
             Requirement(lambda c: c.network == "small",
                         "--backend fabric runs the small network (the instance's engine): --network small")),
            _fabric),
)}

#: ``--cluster`` values, in the order of the help text: ``local`` here; ``ray`` registers itself
#: from :mod:`nc2600.host.cluster` (:func:`register_cluster`) when that package is imported
CLUSTERS: dict[str, Cluster] = {c.name: c for c in (
    Cluster("local", "worker processes on this machine", _local_connect, _local_evaluator),
)}


def register_cluster(cluster: Cluster) -> None:
    """Add (or replace) ``cluster`` under its name in :data:`CLUSTERS`; a cluster package above the
    launcher registers itself this way, so the registry names no module above it."""
    CLUSTERS[cluster.name] = cluster


def one_of(names) -> str:
    """``"a, b or c"``."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def choices_help(what: str, registry: dict) -> str:
    """A ``--backend``/``--cluster`` help text: ``what: a (help), b (help) or c (help)``."""
    return f"{what}: " + one_of(f"{e.name} ({e.help})" for e in registry.values())


def combinations() -> list[tuple[str, str]]:
    """Every valid ``(backend, cluster)`` pair, in registry order."""
    return [(b.name, c) for b in BACKENDS.values() for c in CLUSTERS if c in b.clusters]


def check_backend(settings) -> None:
    """UserError naming the first thing wrong with ``settings.backend`` (an unknown name, a
    setting the backend needs, a cluster it does not run on). ``settings`` has the fields of
    :class:`nc2600.host.launcher.run.RunConfig` that the requirements read."""
    from nc2600.host.errors import UserError
    backend = BACKENDS.get(settings.backend)
    if backend is None:
        raise UserError(f"--backend must be {one_of(BACKENDS)}, got {settings.backend!r}")
    for req in backend.requires:
        if not req.holds(settings):
            raise UserError(req.message)
    if backend.cluster_message and settings.cluster not in backend.clusters:
        raise UserError(backend.cluster_message)


def check_cluster(settings) -> None:
    """UserError for an unknown ``settings.cluster``."""
    from nc2600.host.errors import UserError
    if settings.cluster not in CLUSTERS:
        raise UserError(f"--cluster must be {one_of(CLUSTERS)}, got {settings.cluster!r}")


def connect(cluster: str, address: str | None, workers: int):
    """The connection the evaluators of ``cluster`` need (``None`` for ``local``); raises
    UserError as :func:`nc2600.host.cluster.ray_cluster.connect`."""
    return CLUSTERS[cluster].connect(address, workers)


def open_evaluator(cluster: str, connection, settings: EvaluationSettings) -> Evaluator:
    """The evaluator of ``settings.backend`` on ``cluster`` (a valid combination, see
    :func:`check_backend`); ``connection`` from :func:`connect`."""
    return CLUSTERS[cluster].evaluator(BACKENDS[settings.backend], connection, settings)
