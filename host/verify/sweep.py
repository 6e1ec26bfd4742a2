"""One way to run a sweep (one job per game) here or on a Ray cluster, results in job order or
as each job finishes.

Used by ``nc2600 lockstep --games/--all`` (:mod:`nc2600.host.verify.lockstep`) and ``nc2600 games verify``
(:mod:`nc2600.host.verify.games_verify`). ``cluster="local"`` runs ``jobs`` spawned worker processes
(``multiprocessing.Pool.imap``/``imap_unordered``, one job at a time per worker) or, with one job or one item,
the calling process; ``cluster="ray"`` runs one Ray task per item (:func:`nc2600.host.cluster.ray_cluster.ray_imap`,
registered by :mod:`nc2600.host.cluster`, which sits above this module).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from nc2600.host.signals import exit_on_sigterm


#: cluster name -> its sweep runner ``imap(fn, items, address, jobs, ordered=...)``, an iterator
#: with ``close()`` (``ray``: :func:`nc2600.host.cluster.ray_cluster.ray_imap`, registered by
#: :mod:`nc2600.host.cluster` with :func:`register_imap`)
REMOTE_IMAPS: dict[str, Callable] = {}


def register_imap(cluster: str, imap: Callable) -> None:
    """Run the sweeps of ``cluster`` (not ``local``) with ``imap``."""
    REMOTE_IMAPS[cluster] = imap


def sweep_imap(fn: Callable, items: Iterable, jobs: int = 1, cluster: str = "local",
               ray_address: str | None = None, ordered: bool = True) -> Iterator:
    """``fn(item)`` for every item, yielded in item order as each becomes available, or with
    ``ordered=False`` in the order the jobs finish (a caller that keeps each result at once then
    loses no finished job to an interrupt while an earlier one still runs).

    Args:
        fn: a module-level function (it is pickled to worker processes / Ray tasks).
        items: the jobs' arguments.
        jobs: worker processes (local) or CPUs of an embedded Ray (ray without address).
        cluster: ``"local"`` or a registered one (:data:`REMOTE_IMAPS`: ``"ray"``).
        ray_address: ``HOST:PORT`` of a running Ray head (ray only).
    Raises:
        UserError: Ray cannot be reached (from :func:`nc2600.host.cluster.ray_cluster.ray_imap`).
        ValueError: a cluster with no registered runner.
    Workers are terminated when the generator ends or is closed.
    """
    items = list(items)
    if not items:                  # nothing to run: no pool, no Ray started
        return
    if cluster != "local":
        if cluster not in REMOTE_IMAPS:
            raise ValueError(f"no sweep runner for cluster {cluster!r} (import nc2600.host.cluster for ray)")
        rows = REMOTE_IMAPS[cluster](fn, items, ray_address, jobs, ordered=ordered)
        try:
            yield from rows
        finally:
            rows.close()
        return
    if jobs > 1 and len(items) > 1:
        import multiprocessing as mp
        pool = mp.get_context("spawn").Pool(min(jobs, len(items)), initializer=_worker_signals)
        try:
            yield from (pool.imap if ordered else pool.imap_unordered)(fn, items, chunksize=1)
        finally:
            pool.terminate()
        return
    for item in items:
        yield fn(item)


def _worker_signals() -> None:
    """A pool worker's signals: SIGINT ignored (the parent stops the pool on Ctrl-C: no worker's
    traceback on the terminal), SIGTERM raises SystemExit. A worker killed by SIGTERM's default
    action while idle dies holding the pool's task-queue lock, and the parent's
    ``Pool.terminate()`` then waits for that lock forever (a sweep given one SIGTERM to its
    process group while a worker is idle hangs until a second signal); SystemExit unwinds the
    ``with`` of the lock first."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, exit_on_sigterm)
