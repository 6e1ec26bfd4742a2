"""Episode evaluation on W worker processes, each running its own game instances and policies.

Layout: ``W`` worker processes each own ``S = 2 x K`` game instances (slots; ``K`` is ``--envs-per-block``) and the
policy parameters of the episodes running in them. A worker loops over its running slots: one batched inference call per
layer for all of them (:class:`nc2600.host.episodes.policy.SlotWeights` or the int8
:class:`nc2600.host.launcher.policy_int8.Int8Slots`), then one frame-skip step of every instance, then the 84 x 84
resize and frame stack. The main process only hands out jobs and collects results::

    main:     job -> w0, job -> w1, ...      (wait for a result) -> record, next job -> w
    worker w: [infer all running slots | step them | preprocess] [infer | step | ...]

so each core runs one worker flat out, with no per-step round trip between processes (an
earlier layout ran the inference for every slot in the main process, which made three busy
processes on two cores wait for each other at every step, and capped a node's throughput at
what one process could infer). A worker keeps up to :data:`PREFETCH` queued jobs beyond its
slots, so a slot whose episode ends starts the next one at once; a job's parameters travel
with it through the worker's pipe (once per episode).

Evaluations (jobs) go to workers in order as their slots free up (dynamic scheduling). A job
is ``(individual, episode_seed)``; its result does not depend on the worker, the slot or the
other slots running beside it (instances restore a fixed start state, episode seeds drive
the no-op starts and sticky actions, each slot's network arithmetic has fixed shapes and is
evaluated over contiguous slot ranges as views, never with other slots' data), so a run's
fitness values are identical for any ``--workers`` or ``--envs-per-block``.

Threads: every worker limits BLAS to one thread (threadpoolctl), whatever the environment
(a Ray actor gets ``OMP_NUM_THREADS`` = its CPUs, and two-thread OpenBLAS pools spinning in
each process cost up to 40x the CPU of the product on a loaded machine).

Leaks and signals: the shared segment (``/dev/shm/nc2600-<pid>-<random>`` on Linux: each
worker's CPU counters) is made and removed by the parent alone (:class:`_Shared`); every new
:class:`LocalPoolEvaluator` first removes the segments of nc2600 processes that no longer run
(:func:`remove_stale_segments`), so a SIGKILLed run's segment goes at the next run,
``--resume``, ``play`` or ``bench host``. Workers die with their parent
(``PR_SET_PDEATHSIG`` on Linux, and an EOF on their pipe anywhere), take SIGTERM's default
action (quiet exit) and ignore SIGINT (the parent, which gets the same Ctrl-C, ends them: on
a stop or an error :meth:`LocalPoolEvaluator.close` sends SIGKILL at once, since a worker holds
nothing that needs an orderly end; after a finished evaluation it asks them through their
pipes); they are forked with both signals blocked and set these handlers
before unblocking them, so a signal to the process group during start-up never runs the
parent's handler in a worker, nor the parent's inside ``fork`` (where Python would print and
drop its exception). A worker that dies under the parent raises :class:`WorkerDied` (one
line in the CLI), or KeyboardInterrupt when a SIGINT/SIGTERM killed it (a signal sent to the
whole process group).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import secrets
import signal
import time
import zlib
from multiprocessing import shared_memory
from typing import Callable, Iterable

import numpy as np

from nc2600.hls_models import preprocessor
from nc2600.hls_models.platform import FRAME_SKIP
from nc2600.host.episodes.jobs import EpisodeResult, Job, WorkerDied
from nc2600.host.episodes.processes import SEGMENT_PREFIX, SHM_DIR, remove_stale_segments, signal_when_parent_ends
from nc2600.host.signals import stop_signals_held
from nc2600.host.episodes.policy import make_slot_weights


def _layout(n_workers: int):
    """Shapes of the shared arrays; returns ``[(name, shape, dtype)]``."""
    return [
        ("cpu", (n_workers, len(WORKER_CPU_PARTS)), np.float64),   # CPU s per worker and part
        ("idle", (n_workers,), np.float64),         # wall s per worker blocked with nothing to run
    ]


#: the parts of a worker's CPU time in the shared ``cpu`` array: stepping/resetting the
#: instances (emulation, grey screen fetch, max-pool), preprocessing (84x84 resize, stack),
#: policy inference, loading a job's parameters into its slot, and everything (the rest is
#: the pipe traffic and the loop itself)
WORKER_CPU_PARTS = ("step", "preprocess", "inference", "load", "total")

#: jobs a worker holds queued beyond its slots (a freed slot starts the next episode at once)
PREFETCH = 2
#: seconds between two calls of :meth:`LocalPoolEvaluator.evaluate`'s ``stop`` test while it waits
STOP_POLL_S = 0.2
#: seconds :meth:`LocalPoolEvaluator.close` waits for workers that were asked to exit, then for
#: killed ones to be reaped
CLOSE_WAIT_S = 5.0


class _Shared:
    """The evaluator's arrays (:func:`_layout`) in one shared segment, created by the parent.

    Linux: the file ``/dev/shm/nc2600-<pid>-<random>`` (what ``shm_open`` makes), mapped with
    ``mmap``; workers are forked and use the parent's mapping, so no process but the parent
    opens, registers or unlinks it, and Python's resource tracker never sees it (its
    per-process bookkeeping races when several workers attach the same name). Elsewhere:
    :class:`multiprocessing.shared_memory.SharedMemory`.
    """

    def __init__(self, n_workers: int):
        layout = _layout(n_workers)
        sizes = [int(np.prod(s)) * np.dtype(d).itemsize for _, s, d in layout]
        offsets = np.cumsum([0] + [(x + 63) // 64 * 64 for x in sizes])
        size = int(offsets[-1])
        self.name = f"{SEGMENT_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
        self.path = os.path.join(SHM_DIR, self.name) if os.path.isdir(SHM_DIR) else None
        self.shm = None
        if self.path is not None:
            import mmap
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
            try:
                os.ftruncate(fd, size)
                self.mm = mmap.mmap(fd, size)
            except BaseException:
                os.close(fd)
                os.unlink(self.path)
                raise
            os.close(fd)
            buf = self.mm
        else:                                            # no /dev/shm (not Linux)
            self.shm = shared_memory.SharedMemory(create=True, size=size)
            buf = self.shm.buf
        self.arrays = {n: np.ndarray(s, d, buffer=buf, offset=int(o))
                       for (n, s, d), o in zip(layout, offsets)}

    def __getattr__(self, item):
        try:
            return self.__dict__["arrays"][item]
        except KeyError:
            raise AttributeError(item) from None

    def close(self) -> None:
        """Unmap and remove the segment (the parent only)."""
        self.arrays = {}
        try:
            if self.shm is not None:
                self.shm.close()
                self.shm.unlink()
                return
            try:
                self.mm.close()
            except BufferError:          # an array view still alive: the unmap waits for exit
                pass
        finally:
            if self.path is not None:
                try:
                    os.unlink(self.path)
                except FileNotFoundError:
                    pass


def _limit_blas_threads() -> int:
    """One BLAS thread in this process (threadpoolctl), whatever the environment says; returns
    the largest thread count a BLAS library of the process then reports."""
    from threadpoolctl import threadpool_info, threadpool_limits
    threadpool_limits(1, user_api="blas")
    return max([int(i["num_threads"]) for i in threadpool_info() if i.get("user_api") == "blas"], default=1)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """``[(a, b), ...]``: the maximal ranges of consecutive True entries of a bool vector."""
    if not mask.any():
        return []
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    return [(int(edges[i]), int(edges[i + 1])) for i in range(0, len(edges), 2)]


def _worker_main(index: int, shared: "_Shared", n_slots: int, rom_path: str, frame_skip: int,
                 sticky: float, episode_frames: int, backend: str, policy: str, network: str, conn,
                 parent_ends, parent_pid: int):
    """One worker: ``n_slots`` instances and their policies (see the module doc).

    Messages from the parent: ``("job", job_id, episode_seed, params)``, ``("cancel",)``
    (drop every running and queued job, answer ``("cancelled", frames)`` with the frames the
    dropped episodes had emulated) and ``None`` (exit). To the parent: ``("ready", n_actions,
    screen_shape, blas_threads)`` once, then ``("done", job_id, return, frames, steps, reset_frames,
    actions_crc32)`` per
    finished episode, or ``("error", text)`` when a job cannot run (the worker then exits).
    """
    from collections import deque

    from nc2600.host.signals import worker_signals
    # forked with SIGTERM/SIGINT blocked (stop_signals_held): SIGTERM's default action (a quiet
    # exit, no traceback), SIGINT ignored (the parent stops us through the pipe), then unblocked
    worker_signals(signal.SIG_DFL)
    signal_when_parent_ends(parent_pid, signal.SIGKILL)
    for end in parent_ends:  # copies inherited through fork; the parent's death must show as EOF
        end.close()
    blas_threads = _limit_blas_threads()
    from nc2600.host.launcher.backends import make_instance
    try:
        envs = [make_instance(backend, rom_path, frame_skip, sticky, episode_frames) for _ in range(n_slots)]
        n_actions = envs[0].n_actions
        if policy == "int8":
            from nc2600.host.launcher.policy_int8 import make_int8_slots
            weights = make_int8_slots(n_slots, n_actions, network)
        else:
            weights = make_slot_weights(n_slots, n_actions, network)
        conn.send(("ready", n_actions, envs[0].pooled.shape, blas_threads))
        height, width = envs[0].pooled.shape
        pooled = np.zeros((n_slots, height, width), np.uint8)
        obs = np.zeros((n_slots, 4, 84, 84), np.uint8)
        job_id = [None] * n_slots
        ret = np.zeros(n_slots)
        frames = np.zeros(n_slots, np.int64)
        steps = np.zeros(n_slots, np.int64)
        reset_frames = np.zeros(n_slots, np.int64)
        crc = [0] * n_slots
        running = np.zeros(n_slots, bool)
        actions = np.zeros(n_slots, np.int64)
        queue: deque = deque()
        cpu = shared.cpu[index]
        idle = shared.idle[index:index + 1]
        clock = time.process_time
        cpu0 = clock()

        def finish(s: int) -> None:
            running[s] = False
            conn.send(("done", job_id[s], float(ret[s]), int(frames[s]), int(steps[s]), int(reset_frames[s]), crc[s]))
            job_id[s] = None

        while True:
            # 1. messages: read what is there; block only when there is nothing to run
            while True:
                if running.any() or queue:
                    if not conn.poll():
                        break
                    msg = conn.recv()
                else:                                  # nothing to run: wait for a job
                    w0 = time.perf_counter()
                    msg = conn.recv()
                    idle[0] += time.perf_counter() - w0
                if msg is None:
                    return
                if msg[0] == "job":
                    queue.append(msg[1:])
                elif msg[0] == "cancel":
                    dropped = int(frames[running].sum())
                    running[:] = False
                    job_id[:] = [None] * n_slots
                    queue.clear()
                    cpu[-1] = clock() - cpu0
                    conn.send(("cancelled", dropped))
            t0 = clock()
            # 2. free slots take queued jobs: load the parameters, reset the instance
            fresh = []
            load_s = 0.0
            for s in np.flatnonzero(~running):
                if not queue:
                    break
                jid, seed, params = queue.popleft()
                tl = clock()
                try:
                    weights.load(int(s), params)
                except Exception as exc:  # noqa: BLE001 - a job the policy cannot take
                    conn.send(("error", f"{type(exc).__name__}: {exc}"))
                    return
                load_s += clock() - tl
                job_id[s] = jid
                frames[s] = reset_frames[s] = envs[s].reset(int(seed))
                ret[s], steps[s], crc[s] = 0.0, 0, 0
                running[s] = True
                if envs[s].over:
                    finish(int(s))
                else:
                    pooled[s] = envs[s].pooled
                    fresh.append(int(s))
            t1 = clock()
            if fresh:
                obs[fresh] = preprocessor.resize(pooled[fresh])[:, None]   # the stack: 4 x the first frame
            t2 = clock()
            # 3. one inference per contiguous range of running slots (views: a slot's values
            #    never depend on its neighbours), then one frame-skip step per running slot
            for a, b in _runs(running):
                actions[a:b] = weights.act(obs, slice(a, b))
            t3 = clock()
            stepped = []
            for s in np.flatnonzero(running):
                r, f, over = envs[s].step(int(actions[s]))
                crc[s] = zlib.crc32(bytes((int(actions[s]),)), crc[s])
                ret[s] += r
                frames[s] += f
                steps[s] += 1
                if over:
                    finish(int(s))
                else:
                    pooled[s] = envs[s].pooled
                    stepped.append(int(s))
            t4 = clock()
            if stepped:
                frames84 = preprocessor.resize(pooled[stepped])
                for j, s in enumerate(stepped):
                    preprocessor.push_frame(obs[s], frames84[j])
            t5 = clock()
            cpu[0] += (t1 - t0 - load_s) + (t4 - t3)
            cpu[1] += (t2 - t1) + (t5 - t4)
            cpu[2] += t3 - t2
            cpu[3] += load_s
            cpu[-1] = t5 - cpu0
    except (EOFError, KeyboardInterrupt, BrokenPipeError, ConnectionResetError):
        pass


class LocalPoolEvaluator:
    """Pool of worker processes evaluating episodes, each with its own batched policies.

    Args:
        rom_path: ROM file.
        n_workers: worker processes ``W`` (>= 1).
        envs_per_block: ``K``: each worker holds ``2 K`` instances (slots).
        frame_skip, sticky, episode_frames: the instance protocol (:mod:`nc2600.host.episodes.env`).
        backend: ``"ale"`` (ale-py) or another name registered in :func:`nc2600.host.launcher.backends.make_instance`.
        policy: ``"float"`` (:func:`nc2600.host.episodes.policy.make_slot_weights`; ``params_for`` returns float32
            vectors) or ``"int8"`` (:func:`nc2600.host.launcher.policy_int8.make_int8_slots`, bit-exact with the
            numpy model; ``params_for`` returns :class:`~nc2600.hls_models.policy_int8.QuantizedPolicy`
            or :class:`~nc2600.hls_models.policy_int8.QuantizedNetwork` objects).
        network: ``"small"`` or ``"nature"`` (:mod:`nc2600.hls_models.networks`).
    Use as a context manager; :meth:`close` stops the workers and frees shared memory.
    """

    def __init__(self, rom_path, n_workers: int, envs_per_block: int, frame_skip: int = FRAME_SKIP,
                 sticky: float = 0.0, episode_frames: int = 20_000, backend: str = "ale",
                 policy: str = "float", network: str = "small"):
        self.n_workers, self.k = int(n_workers), int(envs_per_block)
        self.slots_per_worker = 2 * self.k
        self.shared = None
        remove_stale_segments()
        self.shared = _Shared(self.n_workers)
        ctx = mp.get_context("fork")
        self.conns, self.procs = [], []
        try:
            for w in range(self.n_workers):
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_worker_main, daemon=True,
                                   args=(w, self.shared, self.slots_per_worker, str(rom_path), frame_skip,
                                         sticky, episode_frames, backend, policy, network, child,
                                         [*self.conns, parent], os.getpid()))
                with stop_signals_held():     # a SIGTERM now is raised here, after the fork
                    proc.start()
                child.close()  # so that a dead worker shows as EOF here
                self.conns.append(parent)
                self.procs.append(proc)
            hello = [self._recv(w) for w in range(self.n_workers)]
        except BaseException:
            self.close(kill=True)
            raise
        self.n_actions = hello[0][1]
        self.screen_shape = hello[0][2]
        #: BLAS threads per worker as each worker reported them (1)
        self.worker_blas_threads = [h[3] for h in hello]
        #: frames emulated by the episodes dropped at the last ``deadline`` (:meth:`evaluate`)
        self.dropped_frames = 0
        self._dirty = False

    # ------------------------------------------------------------------------------
    def evaluate(self, jobs: Iterable[Job], params_for: Callable[[int], object],
                 on_result: Callable[[EpisodeResult], None] | None = None,
                 deadline: float | None = None, stop: Callable[[], bool] | None = None) -> list[EpisodeResult]:
        """Run every job to the end of its episode; results in job order.

        Args:
            jobs: the episodes to run (any iterable; taken lazily, as slots free up).
            params_for: ``individual -> parameters`` (float32 vector, or the int8 policy object).
            on_result: called as each episode finishes (progress bars, logs).
            deadline: ``time.monotonic()`` value: at that moment every running and queued
                episode is dropped (benchmarks); the result list then holds only the episodes
                that finished, in job order, and :attr:`dropped_frames` the frames the dropped
                ones had emulated. Without a deadline every job finishes.
            stop: called at least every :data:`STOP_POLL_S` seconds while the call waits for
                its workers (a Ray actor's ``is_canceled``): when it returns True the running
                and queued episodes are dropped as at the deadline (each worker stops within
                one frame-skip step) and the finished ones are returned the same way.
        Raises:
            WorkerDied: a worker process ended; KeyboardInterrupt: SIGINT/SIGTERM killed one.
        """
        from multiprocessing.connection import wait
        if self._dirty:                  # an earlier call ended by an exception: clear the workers
            self._cancel([0] * self.n_workers)
        self._dirty = True
        it = iter(jobs)
        taken: list[Job] = []
        results: dict[int, EpisodeResult] = {}
        outstanding = [0] * self.n_workers
        cap = self.slots_per_worker + PREFETCH
        exhausted = False
        conn_of = {id(c): w for w, c in enumerate(self.conns)}

        def feed(w: int) -> bool:
            """Send worker ``w`` its next job; False when there is none."""
            nonlocal exhausted
            if exhausted:
                return False
            job = next(it, None)
            if job is None:
                exhausted = True
                return False
            taken.append(job)
            self._send(w, ("job", len(taken) - 1, int(job.episode_seed), params_for(job.individual)))
            outstanding[w] += 1
            return True

        # one job per worker at a time, so that a short job list spreads over every worker
        while any(outstanding[w] < cap for w in range(self.n_workers)) and not exhausted:
            for w in range(self.n_workers):
                if outstanding[w] < cap and not feed(w):
                    break
        self.dropped_frames = 0
        while sum(outstanding):
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            if stop is not None:
                timeout = STOP_POLL_S if timeout is None else min(timeout, STOP_POLL_S)
            ready = wait(self.conns, timeout)
            if stop is not None and stop():                     # asked to stop: drop the rest
                self._cancel(outstanding)
                break
            if not ready:
                if deadline is None or time.monotonic() < deadline:
                    continue                                    # a look at ``stop`` only
                self._cancel(outstanding)                       # the deadline passed
                break
            for conn in ready:
                w = conn_of[id(conn)]
                msg = self._recv(w)
                if msg[0] == "error":
                    raise RuntimeError(f"worker process {w}: {msg[1]}")
                _, j, ret, frames, steps, reset_frames, crc = msg
                res = EpisodeResult(taken[j], ret, frames, steps, reset_frames, crc)
                results[j] = res
                outstanding[w] -= 1
                if on_result is not None:
                    on_result(res)
                feed(w)
        self._dirty = False
        return [results[j] for j in sorted(results)]

    def _cancel(self, outstanding: list[int]) -> None:
        """Drop every worker's running and queued jobs (finished results still in the pipes
        are discarded with them); adds the dropped episodes' frames to :attr:`dropped_frames`."""
        for w in range(self.n_workers):
            self._send(w, ("cancel",))
        for w in range(self.n_workers):
            while True:
                msg = self._recv(w)
                if msg[0] == "cancelled":
                    self.dropped_frames += msg[1]
                    break
                if msg[0] == "done":                 # finished before it saw the cancel: drop it
                    self.dropped_frames += msg[3]
            outstanding[w] = 0

    def _send(self, w: int, msg) -> None:
        try:
            self.conns[w].send(msg)
        except (BrokenPipeError, ConnectionResetError):
            self._recv(w)                            # raises WorkerDied / KeyboardInterrupt
            raise

    def _recv(self, w: int):
        """The next message of worker ``w``; raises WorkerDied (or KeyboardInterrupt when a
        SIGINT/SIGTERM ended it) if it is gone."""
        try:
            return self.conns[w].recv()
        except (EOFError, ConnectionResetError):
            proc = self.procs[w]
            proc.join(timeout=1)
            code = proc.exitcode
            if code == -signal.SIGTERM:          # a SIGTERM sent to the whole process group
                from nc2600.host.signals import Terminated
                raise Terminated from None
            if code == -signal.SIGINT:
                raise KeyboardInterrupt from None
            how = (f"killed by signal {-code}" + (" (out of memory?)" if code == -signal.SIGKILL else "")
                   if code is not None and code < 0 else f"exit code {code}")
            raise WorkerDied(f"worker process {w} (pid {proc.pid}) died: {how}") from None

    def worker_idle_s(self) -> float:
        """Wall seconds the workers together spent blocked with no episode to run, since start-up
        (a worker that waits for a job is a core the evaluation leaves unused)."""
        return float(self.shared.idle.sum())

    def worker_cpu_s(self) -> dict[str, float]:
        """CPU seconds of all workers since start-up, per part of :data:`WORKER_CPU_PARTS`
        (totals up to each worker's last reply)."""
        return {name: float(self.shared.cpu[:, i].sum()) for i, name in enumerate(WORKER_CPU_PARTS)}

    def close(self, kill: bool = False) -> None:
        """Stop the workers and release the shared memory (idempotent).

        ``kill`` (a stop, an error): every worker gets SIGKILL at once (a worker holds nothing
        that needs an orderly end: its results are either delivered or dropped with the
        generation), so the call takes milliseconds whatever the workers are doing (starting
        up, in an episode step); else each is asked to exit through its pipe and waited for
        (:data:`CLOSE_WAIT_S` in all, then killed). An exception meanwhile (a stop signal)
        kills the rest; the shared segment is removed in every case."""
        procs = list(getattr(self, "procs", []))
        try:
            if not kill:
                for c in getattr(self, "conns", []):
                    try:
                        c.send(None)
                    except (OSError, BrokenPipeError):
                        pass
                end = time.monotonic() + CLOSE_WAIT_S
                for p in procs:
                    p.join(timeout=max(0.0, end - time.monotonic()))
        finally:
            try:
                for p in procs:
                    if p.exitcode is None:
                        try:
                            os.kill(p.pid, signal.SIGKILL)
                        except (ProcessLookupError, TypeError):
                            pass
                for p in procs:
                    p.join(timeout=CLOSE_WAIT_S)        # reaped: no zombie, no worker left
                for c in getattr(self, "conns", []):
                    c.close()
                self.conns, self.procs = [], []
            finally:
                if getattr(self, "shared", None) is not None:
                    self.shared.close()
                    self.shared = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close(kill=exc_type is not None)
