"""Evaluation on a Ray cluster: the connection to Ray, the node evaluators, and the process
supervisor of a Ray driver.

Importing this package registers ``--cluster ray`` with the launcher's registry
(:func:`nc2600.host.launcher.evaluation.register_cluster`) and with the sweeps
(:func:`nc2600.host.verify.sweep.register_imap`); Ray itself is imported only when a cluster is
connected. ``import nc2600`` (run before any of its modules) imports this package right after
either registry's module (``nc2600._AFTER_IMPORT``), so ``--cluster ray`` is known wherever a
setting is checked.
"""
from __future__ import annotations

from nc2600.host.launcher.evaluation import Backend, Cluster, EvaluationSettings, Evaluator, register_cluster
from nc2600.host.verify.sweep import register_imap


def _ray_connect(address: str | None, workers: int):
    """:func:`nc2600.host.cluster.ray_cluster.connect`: Ray joined or started, its nodes checked."""
    from nc2600.host.cluster.ray_cluster import connect
    return connect(address, workers)


def _ray_evaluator(backend: Backend, connection, s: EvaluationSettings) -> Evaluator:
    """One :class:`nc2600.host.cluster.ray_evaluator.NodeEvaluator` per node, each a worker pool of ``backend``."""
    from nc2600.host.cluster.ray_evaluator import RayEvaluator
    return RayEvaluator(connection, s.rom_path, s.envs_per_block, s.frame_skip, s.sticky, s.episode_frames,
                        s.backend, s.policy, network=s.network, genome_spec=s.genome_spec)


def _ray_imap(fn, items, address, jobs, ordered=True):
    """:func:`nc2600.host.cluster.ray_cluster.ray_imap` (one Ray task per item)."""
    from nc2600.host.cluster.ray_cluster import ray_imap
    return ray_imap(fn, items, address, jobs, ordered=ordered)


register_cluster(Cluster("ray", "one evaluator actor per node of a Ray cluster; same results; see host/cluster/",
                         _ray_connect, _ray_evaluator))
register_imap("ray", _ray_imap)
