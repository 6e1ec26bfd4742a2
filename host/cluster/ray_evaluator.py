"""Evaluation on a Ray cluster (``nc2600 run --cluster ray [--ray-address ADDR]``): the node
actors and the driver's evaluator.

Layout: one :class:`NodeEvaluator` Ray actor per node of the cluster, pinned to that node
(``NodeAffinitySchedulingStrategy``, not soft). Each actor owns an ordinary
:class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator` with one emulator worker process per CPU that Ray gives the
node (``ray start --num-cpus N``), so every node keeps the evaluator's batched inference and
double buffering. The driver (:class:`RayEvaluator`, the ``nc2600 run`` process) keeps the
algorithm, the checkpoints and the run directory; it cuts each ``evaluate`` call's job list
into contiguous chunks, ships a chunk with the parameter vectors of its individuals to an idle
actor (at most two chunks queued per actor, so that an actor never waits for the driver) and
reassembles the results in job order.

Same results: an episode's result depends only on its individual's parameters and its episode
seed (:mod:`nc2600.host.launcher.local_pool`), never on the node, slot or chunk that ran it, so the fitness
values, elites and ``log.jsonl`` equal the local backend's for any number of nodes or CPUs.

Faults: a chunk's result is accepted once, when its task returns. If an actor's process dies
(SIGKILL, out of memory), Ray restarts the actor on its node (``max_restarts``) and runs the
lost task again (``max_task_retries``); an emulator process that dies inside an actor makes
the actor exit so that the same path applies. If the node itself is gone, the driver moves the
chunk to another node. Either way every (individual, episode) is recorded exactly once and the
values are those of an undisturbed run (the tasks are pure functions of their inputs).

Stopping: when a SIGINT/SIGTERM ends the driver, :meth:`RayEvaluator.close` cancels the chunks in
flight (a running one ends within one frame-skip step, even a long RTL episode), has every actor
stop its emulator processes, free its shared segment and remove its ROM folder, and kills an
actor that does not manage it in :data:`SHUTDOWN_TIMEOUT_S` seconds, then removes that actor's
files from its node; nothing is left for the next evaluator to clear.

The connection these run over (joining or starting Ray, the node checks) is
:mod:`nc2600.host.cluster.ray_cluster`.
"""
from __future__ import annotations

import math
import os
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from nc2600.hls_models.platform import FRAME_SKIP
from nc2600.host.cluster.ray_cluster import PROBE_TIMEOUT_S, SIGNAL_POLL_S, RayCluster, _first_line
from nc2600.host.cluster.supervisor import remove_stale_rom_dirs
from nc2600.host.errors import UserError

if TYPE_CHECKING:
    from nc2600.host.episodes.jobs import EpisodeResult, Job

CHUNK_ROUNDS = 8                  #: a chunk holds up to this many episodes per actor slot
QUEUED_PER_ACTOR = 2              #: chunks in flight per actor (one running, one waiting)
SHUTDOWN_TIMEOUT_S = 5.0          #: an actor that has not stopped its evaluator by then is killed
CLEANUP_TIMEOUT_S = 20.0          #: the most :meth:`RayEvaluator.close` waits for a killed actor's files


def _task_cancelled() -> bool:
    """In a Ray actor task: whether the driver has called ``ray.cancel`` on it (Ray 2.60: a
    flag that a regular actor's running task reads, ``RuntimeContext.is_canceled``); False
    outside a Ray worker (the class used directly)."""
    try:
        import ray
        return bool(ray.get_runtime_context().is_canceled())
    except (ImportError, RuntimeError, AttributeError):
        return False


def _unless_cancelled(build, items) -> list | None:
    """``[build(x) for x in items]``, or None as soon as the running actor task is cancelled
    (:func:`_task_cancelled`, read before each item): a chunk's policies rebuilt from long
    seed-list genomes take seconds, and the actor's shutdown is queued behind the task."""
    out = []
    for x in items:
        if _task_cancelled():
            return None
        out.append(build(x))
    return out


def _remove_files_of(pid: int, wait_s: float) -> list[str]:
    """Ray task on the node of a killed actor: wait up to ``wait_s`` seconds for process
    ``pid`` to end, then remove the files of the node's nc2600 processes that no longer run
    (its ROM folder, :func:`remove_stale_rom_dirs`; its shared segment,
    :func:`nc2600.host.episodes.processes.remove_stale_segments`). Returns the names removed."""
    from nc2600.host.episodes.processes import pid_running, remove_stale_segments
    end = time.monotonic() + wait_s
    while pid_running(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return remove_stale_rom_dirs() + remove_stale_segments()


# -- the per-node actor ---------------------------------------------------------------------
class NodeEvaluator:
    """Ray actor: one :class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator` on one node.

    Args:
        rom_name, rom_bytes: the game's ROM, shipped from the driver (nodes need no ROM files).
        workers: emulator worker processes on this node (its CPUs in Ray).
        envs_per_block, frame_skip, sticky, episode_frames, backend, policy, network: as the LocalPoolEvaluator.
    """

    def __init__(self, rom_name: str, rom_bytes: bytes, workers: int, envs_per_block: int, frame_skip: int,
                 sticky: float, episode_frames: int, backend: str, policy: str, network: str = "small",
                 genome_spec: dict | None = None):
        from nc2600.host.launcher.local_pool import LocalPoolEvaluator
        remove_stale_rom_dirs()
        self._dir = tempfile.TemporaryDirectory(prefix=f"nc2600-rom-{os.getpid()}-")
        rom = Path(self._dir.name) / rom_name
        rom.write_bytes(rom_bytes)
        self.ev = LocalPoolEvaluator(rom, workers, envs_per_block, frame_skip, sticky, episode_frames, backend, policy,
                            network=network)
        self.slots = 2 * workers * envs_per_block
        self.policy, self.network, self.genome_spec = policy, network, genome_spec
        self._builder = None

    def info(self) -> dict:
        return {"pid": os.getpid(), "slots": self.slots, "n_actions": self.ev.n_actions}

    def evaluate(self, seeds: np.ndarray, individuals: np.ndarray, params: list) -> tuple[np.ndarray, float]:
        """Run one chunk: episode ``j`` is individual ``params[individuals[j]]`` with episode seed
        ``seeds[j]``. Returns ``(n, 5)`` float64 (return, frames, steps, reset frames, actions CRC-32) and the
        seconds this node spent on the chunk."""
        from nc2600.host.episodes.jobs import Job, WorkerDied
        t0 = time.perf_counter()
        jobs = [Job(int(i), int(s)) for i, s in zip(individuals, seeds)]
        try:
            # a chunk that the driver cancels (it is stopping) ends within one frame-skip step,
            # so that the actor's shutdown, queued behind it, runs at once
            results = self.ev.evaluate(jobs, lambda i: params[i], stop=_task_cancelled)
        except WorkerDied:
            # an emulator process of this node died: exit so that Ray restarts this actor and
            # runs the chunk again (the driver never sees a partial chunk)
            os._exit(75)
        table = np.array([[r.episode_return, r.frames, r.steps, r.reset_frames, r.actions_crc32] for r in results],
                         np.float64)
        return table, time.perf_counter() - t0

    def _genome_spec_checked(self) -> dict:
        """The genome specification this evaluator was started with, its
        :class:`nc2600.host.launcher.noise.GenomeBuilder` made on first use. Raises RuntimeError without one."""
        from nc2600.host.launcher.noise import GenomeBuilder
        spec = self.genome_spec
        if spec is None:
            raise RuntimeError("this evaluator was started without a genome specification")
        if self._builder is None:
            self._builder = GenomeBuilder(spec["n_actions"], spec["sigma"], spec["noise_size"], spec["noise_seed"],
                                          self.network)
        return spec

    def _genome_params(self, genomes: list) -> tuple[list | None, float]:
        """The policies of seed-list genomes, rebuilt here (:class:`nc2600.host.launcher.noise.GenomeBuilder`; int8:
        quantised as the driver does, :func:`nc2600.host.launcher.run.Run._policy_for`), None when the task is
        cancelled meanwhile (:func:`_unless_cancelled`); and the seconds spent."""
        t0 = time.perf_counter()
        spec = self._genome_spec_checked()
        params = _unless_cancelled(self._builder.params, genomes)
        if params is not None and self.policy == "int8":
            from nc2600.hls_models.policy_int8 import quantize_network
            params = _unless_cancelled(lambda p: quantize_network(p, self.network, spec["n_actions"],
                                                                  spec["calib_obs"]), params)
        return params, time.perf_counter() - t0

    def _es_params(self, centre: np.ndarray, perturbations: list) -> tuple[list | None, float]:
        """OpenAI-ES individuals ``centre +- sigma * eps(seed)`` rebuilt here
        (:func:`nc2600.host.launcher.algorithms.es_individual`, the driver's own operations); int8 quantised as
        the driver does. Returns the policies and the seconds spent."""
        from nc2600.host.launcher.algorithms import es_individual
        t0 = time.perf_counter()
        spec = self._genome_spec_checked()
        centre = np.asarray(centre, np.float32)
        params = _unless_cancelled(lambda sp: es_individual(centre, int(sp[0]), int(sp[1]), spec["sigma"],
                                                            self._builder.noise), perturbations)
        if params is not None and self.policy == "int8":
            from nc2600.hls_models.policy_int8 import quantize_network
            params = _unless_cancelled(lambda p: quantize_network(p, self.network, spec["n_actions"],
                                                                  spec["calib_obs"]), params)
        return params, time.perf_counter() - t0

    def evaluate_es(self, seeds: np.ndarray, individuals: np.ndarray, centre: np.ndarray,
                    perturbations: list) -> tuple[np.ndarray, float]:
        """:meth:`evaluate` with ES individuals given as the centre (shipped once per call) and
        ``(seed, sign)`` each; the seconds returned include the rebuild."""
        params, build_s = self._es_params(centre, perturbations)
        if params is None:                        # cancelled: the driver is stopping and reads nothing
            return np.zeros((0, 5), np.float64), build_s
        table, seconds = self.evaluate(seeds, individuals, params)
        return table, seconds + build_s

    def evaluate_genomes(self, seeds: np.ndarray, individuals: np.ndarray, genomes: list) -> tuple[np.ndarray, float]:
        """:meth:`evaluate` with seed-list genomes instead of parameter vectors (rebuilt here,
        bit-identical); the seconds returned include the rebuild."""
        params, build_s = self._genome_params(genomes)
        if params is None:                        # cancelled: the driver is stopping and reads nothing
            return np.zeros((0, 5), np.float64), build_s
        table, seconds = self.evaluate(seeds, individuals, params)
        return table, seconds + build_s

    def transfer_only_genomes(self, seeds: np.ndarray, individuals: np.ndarray, genomes: list) -> tuple[np.ndarray,
                                                                                                        float]:
        """Like :meth:`transfer_only` for seed-list genomes: reads every seed, rebuilds nothing."""
        touched = sum(len(g) for g in genomes)
        table = np.zeros((len(seeds), 4), np.float64)
        table[:, 0] = 0.0 * touched
        return table, 0.0

    def rebuild_only(self, seeds: np.ndarray, individuals: np.ndarray, genomes: list) -> tuple[np.ndarray, float]:
        """Rebuild the genomes' parameters (the node's cost of seed lists), no emulation; returns
        zero results and the seconds spent rebuilding."""
        _, build_s = self._genome_params(genomes)
        return np.zeros((len(seeds), 4), np.float64), build_s

    def transfer_only(self, seeds: np.ndarray, individuals: np.ndarray, params: list) -> tuple[np.ndarray, float]:
        """Like :meth:`evaluate` but without emulation (for measuring Ray's own cost): reads
        every parameter vector once and returns zero results and zero node seconds."""
        touched = sum(float(np.asarray(p).ravel()[-1]) for p in params)
        table = np.zeros((len(seeds), 4), np.float64)
        table[:, 0] = 0.0 * touched
        return table, 0.0

    def shutdown(self) -> None:
        """Stop the emulator processes, free the shared memory and remove the ROM folder
        (before ``ray.kill``, which ends the process without Python's clean-up). The emulator
        processes are killed at once (their chunks are delivered or cancelled by now: nothing of
        theirs needs an orderly end), so a stop does not wait for a worker's next step."""
        try:
            self.ev.close(kill=True)
        finally:
            self._dir.cleanup()

    def pids(self) -> list[int]:
        """This actor's process and its emulator worker processes (for fault-injection tests)."""
        return [os.getpid(), *(p.pid for p in self.ev.procs)]


# -- the driver side --------------------------------------------------------------------
class RayEvaluator:
    """Drop-in for :class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator` that evaluates on every node of a
    Ray cluster.

    Args:
        cluster: from :func:`connect`.
        rom_path: ROM file on the driver (its bytes are shipped to the nodes).
        envs_per_block: game instances per block per emulator worker (``--envs-per-block``).
        chunk_rounds: a chunk holds at most ``chunk_rounds`` episodes per slot of its actor,
            and at most an equal share of the call's jobs per actor.
        genome_spec: ``{"n_actions", "sigma", "noise_size", "noise_seed", "calib_obs"}`` (the
            run's network outputs, mutation power, noise table and, for ``--policy int8``, its
            calibration observations): when given, a ``params_for`` that names seed-list genomes
            (:class:`nc2600.host.launcher.algorithms.SeedListIndividuals`, GA and RS) is shipped as seed lists and
            the nodes rebuild the parameters (:class:`nc2600.host.launcher.noise.GenomeBuilder`, bit-identical);
            an ES generation's ``params_for`` (:class:`nc2600.host.launcher.algorithms.ESIndividuals`) travels as
            its centre (once per call) and ``(seed, sign)`` per individual; otherwise (no spec,
            or a plain ``params_for``) the parameter vectors travel.
    Attributes:
        stats: per :meth:`evaluate` call: chunks, resubmitted chunks, seconds spent in the
            driver shipping parameters (``put_s``), seconds each node spent inside its chunks
            (``node_s``), wall seconds (``wall_s``); ``wall_s - max(node_s)`` is the time the
            busiest node waited on Ray (scheduling, transfers, the driver).
    """

    def __init__(self, cluster: RayCluster, rom_path, envs_per_block: int, frame_skip: int = FRAME_SKIP,
                 sticky: float = 0.0, episode_frames: int = 20_000, backend: str = "ale",
                 policy: str = "float", chunk_rounds: int = CHUNK_ROUNDS, network: str = "small",
                 genome_spec: dict | None = None):
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        self.genome_spec = genome_spec
        ray = self.ray = cluster.ray
        self.cluster, self.chunk_rounds = cluster, int(chunk_rounds)
        rom_path = Path(rom_path)
        rom_bytes = rom_path.read_bytes()
        actor_cls = ray.remote(NodeEvaluator)
        self.actors, self.slots, self.pids = [], [], []
        self._inflight: dict = {}
        try:
            for node in cluster.nodes:
                actor = actor_cls.options(
                    num_cpus=node.cpus, max_restarts=-1, max_task_retries=-1, max_concurrency=1,
                    scheduling_strategy=NodeAffinitySchedulingStrategy(node.node_id, soft=False),
                ).remote(rom_path.name, rom_bytes, node.cpus, envs_per_block, frame_skip, sticky,
                         episode_frames, backend, policy, network, genome_spec)
                self.actors.append(actor)
            refs = [a.info.remote() for a in self.actors]
            deadline = time.monotonic() + PROBE_TIMEOUT_S
            # polled (SIGNAL_POLL_S), so that a signal while the actors start is handled at once
            while ray.wait(refs, num_returns=len(refs), timeout=SIGNAL_POLL_S)[1]:
                if time.monotonic() > deadline:
                    raise ray.exceptions.GetTimeoutError(f"no answer from the node actors in {PROBE_TIMEOUT_S:g} s")
            infos = ray.get(refs)
        except Exception as exc:  # noqa: BLE001
            self.close()
            raise UserError(f"a Ray node could not start its evaluator: {_first_line(exc)}") from None
        except BaseException:                # a SIGINT/SIGTERM while the actors start: stop them too
            self.close()
            raise
        self.pids = [i["pid"] for i in infos]
        self.slots = [i["slots"] for i in infos]
        self.n_actions = infos[0]["n_actions"]
        self.alive = [True] * len(self.actors)
        self.node_method = "evaluate"   # "transfer_only": Ray's cost alone (nc2600.host.bench.cluster)
        self.load = [0] * len(self.actors)
        self.stats: list[dict] = []

    # ------------------------------------------------------------------------------
    def _chunks(self, n_jobs: int) -> list[tuple[int, int]]:
        n_alive = max(1, sum(self.alive))
        smallest = min(s for s, a in zip(self.slots, self.alive) if a) if any(self.alive) else 1
        size = max(1, min(smallest * self.chunk_rounds, math.ceil(n_jobs / n_alive)))
        return [(a, min(a + size, n_jobs)) for a in range(0, n_jobs, size)]

    def evaluate(self, jobs: Iterable[Job], params_for: Callable[[int], object],
                 on_result: Callable[[EpisodeResult], None] | None = None) -> list[EpisodeResult]:
        """Run every job to the end of its episode on the cluster; results in job order.

        Same contract as :meth:`nc2600.host.launcher.local_pool.LocalPoolEvaluator.evaluate`; ``on_result`` is called as
        each chunk's results arrive. Raises :class:`nc2600.host.episodes.jobs.WorkerDied` when no node is left.
        """
        from nc2600.host.episodes.jobs import EpisodeResult
        ray = self.ray
        t0 = time.perf_counter()
        jobs = list(jobs)
        results: list[EpisodeResult | None] = [None] * len(jobs)
        chunks = self._chunks(len(jobs))
        todo = deque(range(len(chunks)))
        # ObjectRef -> (actor index, chunk index); kept on self, so that close() can cancel the
        # chunks of a call that a signal interrupted
        inflight: dict = {}
        self._inflight = inflight
        load = self.load = [0] * len(self.actors)   # chunks in flight per actor
        payload: dict[int, tuple] = {}
        put_s = 0.0
        node_s = [0.0] * len(self.actors)          # seconds each node spent on accepted chunks
        resubmitted = 0
        genomes = self.genome_spec is not None and hasattr(params_for, "genome")
        es = self.genome_spec is not None and not genomes and hasattr(params_for, "perturbation") \
            and self.node_method == "evaluate"
        method = self.node_method + ("_genomes" if genomes and self.node_method != "rebuild_only" else "") + \
            ("_es" if es else "")
        centre_ref = None
        if es:                                   # the ES centre travels once per call
            t = time.perf_counter()
            centre_ref = ray.put(np.asarray(params_for.centre))
            put_s += time.perf_counter() - t

        def build(c: int):
            nonlocal put_s
            t = time.perf_counter()
            a, b = chunks[c]
            order: dict[int, int] = {}
            for j in range(a, b):
                order.setdefault(jobs[j].individual, len(order))
            params = [None] * len(order)
            for ind, k in order.items():
                params[k] = list(params_for.genome(ind)) if genomes else \
                    tuple(params_for.perturbation(ind)) if es else params_for(ind)
            seeds = np.array([jobs[j].episode_seed for j in range(a, b)], np.int64)
            local = np.array([order[jobs[j].individual] for j in range(a, b)], np.int64)
            out = (seeds, local, centre_ref, ray.put(params)) if es else (seeds, local, ray.put(params))
            put_s += time.perf_counter() - t
            return out

        def submit() -> None:
            while todo:
                free = [i for i in range(len(self.actors)) if self.alive[i] and load[i] < QUEUED_PER_ACTOR]
                if not free:
                    return
                i = min(free, key=lambda x: load[x])
                c = todo.popleft()
                if c not in payload:
                    payload[c] = build(c)
                ref = getattr(self.actors[i], method).remote(*payload[c])
                inflight[ref] = (i, c)
                load[i] += 1

        submit()
        while inflight:
            # a timeout hands control back to Python (SIGNAL_POLL_S), so that a signal's handler
            # runs at once (a blocking wait can take many seconds to notice it)
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=SIGNAL_POLL_S)
            if not ready:
                continue
            ref = ready[0]
            i, c = inflight.pop(ref)
            load[i] -= 1
            try:
                out = ray.get(ref)
            except ray.exceptions.ActorUnavailableError:
                todo.appendleft(c)             # restarting: run the chunk again, node kept
                resubmitted += 1
                submit()
                continue
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnschedulableError,
                    ray.exceptions.NodeDiedError, ray.exceptions.ObjectLostError,
                    ray.exceptions.WorkerCrashedError):
                # the node is gone (a killed process alone is restarted and retried by Ray)
                self.alive[i] = False
                todo.appendleft(c)
                resubmitted += 1
                if not any(self.alive):
                    from nc2600.host.episodes.jobs import WorkerDied
                    raise WorkerDied("every Ray node of the evaluation died") from None
                submit()
                continue
            a, b = chunks[c]
            del payload[c]
            out, seconds = out
            node_s[i] += seconds
            for j, row in zip(range(a, b), out):
                res = EpisodeResult(jobs[j], float(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]))
                results[j] = res
                if on_result is not None:
                    on_result(res)
            submit()
        self.stats.append({"jobs": len(jobs), "chunks": len(chunks), "resubmitted": resubmitted, "genomes": genomes,
                           "es_perturbations": es,
                           "put_s": put_s, "node_s": node_s, "wall_s": time.perf_counter() - t0})
        return results  # type: ignore[return-value]

    def actor_pids(self) -> list[list[int]]:
        """Per node: the actor's process id, then its emulator processes' ids."""
        return self.ray.get([a.pids.remote() for a in self.actors])

    def close(self) -> None:
        """Stop the node actors and leave nothing of theirs behind; idempotent.

        Order (also when a SIGINT/SIGTERM interrupted :meth:`evaluate`): the chunks still in
        flight are cancelled (``ray.cancel``: a queued one never runs, a running one ends
        within one frame-skip step, :meth:`NodeEvaluator.evaluate`; a cancelled task is not
        retried, so Ray prints no task-failure line); each actor then stops its emulator
        processes, frees its shared segment and removes its ROM folder
        (:meth:`NodeEvaluator.shutdown`, at most :data:`SHUTDOWN_TIMEOUT_S` seconds); then
        ``ray.kill``. An actor that did not finish its shutdown in time (stuck, or still
        starting) is killed all the same, and a task on its node removes its folder and
        segment once its process has ended (at most :data:`CLEANUP_TIMEOUT_S` seconds); with
        an embedded Ray whose daemons are gone too, this process removes them (at most 5 s)."""
        actors = getattr(self, "actors", [])
        if not actors:
            return
        ray = self.ray
        for ref in list(getattr(self, "_inflight", {})):
            try:
                ray.cancel(ref)
            except Exception:  # noqa: BLE001 - finished, or its actor is gone
                pass
        self._inflight = {}
        pending: dict = {}                    # shutdown ObjectRef -> actor index
        for i, a in enumerate(actors):
            try:
                # never retried: on a dead actor it fails at once, with no "will be retried" line
                pending[a.shutdown.options(max_task_retries=0).remote()] = i
            except Exception:  # noqa: BLE001 - a dead actor
                pass
        stopped: set[int] = set()
        if pending:
            try:
                ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=SHUTDOWN_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - Ray going down: the fallback below
                ready = []
            for ref in ready:
                try:
                    ray.get(ref, timeout=1.0)
                    stopped.add(pending[ref])
                except Exception:  # noqa: BLE001 - its actor died: the fallback below
                    pass
            for ref in pending:
                if pending[ref] not in stopped:
                    try:
                        ray.cancel(ref)       # not retried on the killed actor (no failure line)
                    except Exception:  # noqa: BLE001
                        pass
        for a in actors:
            try:
                ray.kill(a)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors = []
        cleanups: dict = {}                   # cleanup ObjectRef -> actor index
        pids = getattr(self, "pids", [])
        left = [i for i in range(min(len(actors), len(self.cluster.nodes), len(pids))) if i not in stopped]
        for i in left:
            try:
                from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
                task = ray.remote(num_cpus=0, max_retries=0)(_remove_files_of).options(
                    scheduling_strategy=NodeAffinitySchedulingStrategy(self.cluster.nodes[i].node_id, soft=False))
                cleanups[task.remote(pids[i], CLEANUP_TIMEOUT_S - 2.0)] = i
            except Exception:  # noqa: BLE001 - Ray itself is going down: see below
                pass
        cleaned: set[int] = set()
        if cleanups:
            try:
                ready, _ = ray.wait(list(cleanups), num_returns=len(cleanups), timeout=CLEANUP_TIMEOUT_S)
            except Exception:  # noqa: BLE001
                ready = []
            for ref in ready:
                try:
                    ray.get(ref, timeout=1.0)
                    cleaned.add(cleanups[ref])
                except Exception:  # noqa: BLE001 - Ray's daemons ended too (every process signalled)
                    pass
        if self.cluster.started_here:
            # an embedded Ray's nodes are this machine: what no task could remove (its raylet
            # ended as well, e.g. a batch scheduler signalled every process) is removed from here
            for i in left:
                if i not in cleaned:
                    _remove_files_of(pids[i], 5.0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
