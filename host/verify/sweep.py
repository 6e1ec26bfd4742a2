"""One way to run a sweep (one job per game) here or on a Ray cluster, results in job order or
as each job finishes.

Used by ``nc2600 lockstep --games/--all`` (:mod:`nc2600.host.verify.lockstep`) and ``nc2600 games verify``
(:mod:`nc2600.host.verify.games_verify`). ``cluster="local"`` runs ``jobs`` spawned worker processes
(``multiprocessing.Pool.imap``/``imap_unordered``, one job at a time per worker) or, with one job or one item,
the calling process; ``cluster="ray"`` runs one Ray task per item (:func:`nc2600.host.cluster.ray_cluster.ray_imap`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator


def sweep_imap(fn: Callable, items: Iterable, jobs: int = 1, cluster: str = "local",
               ray_address: str | None = None, ordered: bool = True) -> Iterator:
    """``fn(item)`` for every item, yielded in item order as each becomes available, or with
    ``ordered=False`` in the order the jobs finish (a caller that keeps each result at once then
    loses no finished job to an interrupt while an earlier one still runs).

    Args:
        fn: a module-level function (it is pickled to worker processes / Ray tasks).
        items: the jobs' arguments.
        jobs: worker processes (local) or CPUs of an embedded Ray (ray without address).
        cluster: ``"local"`` or ``"ray"``.
        ray_address: ``HOST:PORT`` of a running Ray head (ray only).
    Raises:
        UserError: Ray cannot be reached (from :func:`nc2600.host.cluster.ray_cluster.ray_imap`).
    Workers are terminated when the generator ends or is closed.
    """
    items = list(items)
    if not items:                  # nothing to run: no pool, no Ray started
        return
    if cluster == "ray":
        from nc2600.host.cluster.ray_cluster import ray_imap
        rows = ray_imap(fn, items, ray_address, jobs, ordered=ordered)
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
    ``Pool.terminate()`` then waits for that lock forever (measured: a sweep given one SIGTERM to
    its process group while a worker was idle hung until a second signal); SystemExit unwinds
    the ``with`` of the lock first."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)


_SIGTERM_SEEN = False


def _exit_on_sigterm(signum, frame):
    """The first SIGTERM raises SystemExit (the worker unwinds, releasing the pool's locks); a
    later one ends the process at once with the same status. A worker that has begun to exit
    gets a second SIGTERM from ``Pool.terminate()`` (after a SIGTERM to the whole process
    group), often while the interpreter is finalising: raised there, SystemExit is printed as
    "Exception ignored in ... threading._shutdown" with a traceback (seen in CI)."""
    global _SIGTERM_SEEN
    if _SIGTERM_SEEN:
        import os
        os._exit(128 + signum)
    _SIGTERM_SEEN = True
    raise SystemExit(128 + signum)

