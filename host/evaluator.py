"""Batched, double-buffered episode evaluation on W worker processes.

Layout: ``W`` worker processes each own ``2 x K`` game instances, split in two blocks
(0 and 1). Observations, actions and per-step results live in one shared-memory segment.
The main process runs the policy for every running episode of a block in one batched
call per layer (:class:`host.policy.SlotWeights`), while the workers emulate the other
block (double buffering)::

    main:    infer(block 0) | send 0 | wait 1 | infer(block 1) | send 1 | wait 0 | ...
    workers:                  step block 0 ...  step block 1 ...

Evaluations (jobs) are pulled by idle slots in order (dynamic scheduling). A job is
``(individual, episode_seed)``; its result does not depend on the slot, the worker count
or the batch it was evaluated in (instances restore a fixed start state, episode seeds
drive the no-op starts and sticky actions, and each slot's network arithmetic has fixed
shapes), so a run's fitness values are identical for any ``--workers``.

Leaks and signals: the shared segment is ``/dev/shm/nc2600-<pid>-<random>`` on Linux, made
and removed by the parent alone (:class:`_Shared`); every new :class:`Evaluator` first
removes the segments of nc2600 processes that no longer run (:func:`remove_stale_segments`),
so a SIGKILLed run's segment goes at the next run, ``--resume``, ``play`` or ``bench host``.
Workers die with their parent (``PR_SET_PDEATHSIG`` on Linux, and an EOF on their pipe
anywhere), take SIGTERM's default action (quiet exit) and ignore SIGINT (the parent, which
gets the same Ctrl-C, stops them through their pipes). A worker that dies under the parent
raises :class:`WorkerDied` (one line in the CLI), or KeyboardInterrupt when a SIGINT/SIGTERM
killed it (a signal sent to the whole process group).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import secrets
import signal
import time
from dataclasses import dataclass
from multiprocessing import shared_memory
from typing import Callable, Iterable

import numpy as np

from hls_models import preprocessor
from host.policy import make_slot_weights


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


SEGMENT_PREFIX = "nc2600-"
SHM_DIR = "/dev/shm"


class WorkerDied(RuntimeError):
    """A worker process ended during an evaluation (killed, out of memory, emulator crash)."""


def _pid_running(pid: int) -> bool:
    """True when ``pid`` is a live (not zombie) process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def segment_names(pid: int | None = None) -> list[str]:
    """Names of nc2600 shared segments in ``/dev/shm`` (of process ``pid`` only, if given)."""
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return []
    prefix = SEGMENT_PREFIX + (f"{pid}-" if pid is not None else "")
    return sorted(n for n in names if n.startswith(prefix))


def remove_stale_segments() -> list[str]:
    """Unlink the shared segments of nc2600 processes that are no longer running (left by a
    SIGKILL or a power cut); returns their names. Segments of live processes are kept."""
    removed = []
    for name in segment_names():
        try:
            pid = int(name[len(SEGMENT_PREFIX):].split("-")[0])
        except ValueError:
            continue
        if pid != os.getpid() and not _pid_running(pid):
            try:
                os.unlink(os.path.join(SHM_DIR, name))
                removed.append(name)
            except OSError:
                pass
    return removed


def _die_with_parent(parent_pid: int) -> None:
    """Linux: SIGKILL this process when its parent ends (prctl PR_SET_PDEATHSIG)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)          # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent_pid:                            # the parent died before prctl
        os._exit(0)


def _layout(n_workers: int, k: int):
    """Shapes of the shared arrays; returns ``[(name, shape, dtype)]``."""
    return [
        ("obs", (n_workers, 2, k, 4, 84, 84), np.uint8),
        ("action", (n_workers, 2, k), np.int32),
        ("reset_seed", (n_workers, 2, k), np.int64),   # >= 0: reset with this seed
        ("active", (n_workers, 2, k), np.bool_),       # step this slot
        ("reward", (n_workers, 2, k), np.float64),
        ("frames", (n_workers, 2, k), np.int64),
        ("over", (n_workers, 2, k), np.bool_),
        ("cpu", (n_workers, 3), np.float64),         # CPU s per worker: WORKER_CPU_PARTS
    ]


#: the parts of a worker's CPU time in ``cpu``: stepping/resetting the instances (emulation,
#: grey screen fetch, max-pool), preprocessing (84x84 resize, stack), and everything
#: (the rest is the pipe traffic and the loop itself)
WORKER_CPU_PARTS = ("step", "preprocess", "total")


class _Shared:
    """The evaluator's arrays (:func:`_layout`) in one shared segment, created by the parent.

    Linux: the file ``/dev/shm/nc2600-<pid>-<random>`` (what ``shm_open`` makes), mapped with
    ``mmap``; workers are forked and use the parent's mapping, so no process but the parent
    opens, registers or unlinks it, and Python's resource tracker never sees it (its
    per-process bookkeeping races when several workers attach the same name). Elsewhere:
    :class:`multiprocessing.shared_memory.SharedMemory`.
    """

    def __init__(self, n_workers: int, k: int):
        layout = _layout(n_workers, k)
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


def _worker_main(index: int, shared: "_Shared", n_workers: int, k: int, rom_path: str,
                 frame_skip: int, sticky: float, episode_frames: int, backend: str, conn, parent_ends,
                 parent_pid: int):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # quiet exit, no traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the parent stops us through the pipe
    _die_with_parent(parent_pid)
    for end in parent_ends:  # copies inherited through fork; the parent's death must show as EOF
        end.close()
    from host.backends import make_instance
    try:
        envs = [[make_instance(backend, rom_path, frame_skip, sticky, episode_frames) for _ in range(k)]
                for _ in range(2)]
        conn.send(("ready", envs[0][0].n_actions, envs[0][0].pooled.shape))
        height, width = envs[0][0].pooled.shape
        pooled = np.zeros((k, height, width), np.uint8)
        cpu = shared.cpu[index]
        clock = time.process_time
        cpu0 = clock()
        while True:
            msg = conn.recv()
            if msg is None:
                break
            block = msg
            t0 = clock()
            obs = shared.obs[index, block]
            fresh = np.zeros(k, bool)
            todo = np.zeros(k, bool)
            for s in range(k):
                env = envs[block][s]
                seed = int(shared.reset_seed[index, block, s])
                if seed >= 0:
                    frames = env.reset(seed)
                    shared.frames[index, block, s] = frames
                    shared.reward[index, block, s] = 0.0
                    shared.over[index, block, s] = env.over
                    shared.reset_seed[index, block, s] = -1
                    fresh[s] = todo[s] = True
                elif shared.active[index, block, s]:
                    r, f, over = env.step(int(shared.action[index, block, s]))
                    shared.reward[index, block, s] = r
                    shared.frames[index, block, s] = f
                    shared.over[index, block, s] = over
                    todo[s] = True
                else:
                    continue
                pooled[s] = env.pooled
            t1 = clock()
            idx = np.flatnonzero(todo)
            if idx.size:
                frames84 = preprocessor.resize(pooled[idx])
                for j, s in enumerate(idx):
                    if fresh[s]:
                        obs[s] = frames84[j]
                    else:
                        preprocessor.push_frame(obs[s], frames84[j])
            t2 = clock()
            cpu[0] += t1 - t0
            cpu[1] += t2 - t1
            cpu[2] = t2 - cpu0
            conn.send(block)
    except (EOFError, KeyboardInterrupt, BrokenPipeError, ConnectionResetError):
        pass


class Evaluator:
    """Pool of worker processes evaluating episodes with batched policies.

    Args:
        rom_path: ROM file.
        n_workers: worker processes ``W`` (>= 1).
        envs_per_block: instances per block per worker ``K`` (each worker holds ``2K``).
        frame_skip, sticky, episode_frames: the instance protocol (:mod:`host.instance`).
        backend: ``"ale"`` (ale-py) or another name registered in :func:`host.backends.make_instance`.
        policy: ``"float"`` (:func:`host.policy.make_slot_weights`; ``params_for`` returns float32
            vectors) or ``"int8"`` (:func:`host.policy_int8.make_int8_slots`, bit-exact with the
            numpy model; ``params_for`` returns :class:`~hls_models.policy_int8.QuantizedPolicy`
            or :class:`~hls_models.policy_int8.QuantizedNetwork` objects).
        network: ``"small"`` or ``"nature"`` (:mod:`hls_models.networks`).
    Use as a context manager; :meth:`close` stops the workers and frees shared memory.
    """

    def __init__(self, rom_path, n_workers: int, envs_per_block: int, frame_skip: int = 4,
                 sticky: float = 0.0, episode_frames: int = 20_000, backend: str = "ale",
                 policy: str = "float", network: str = "small"):
        self.n_workers, self.k = int(n_workers), int(envs_per_block)
        self.shared = None
        remove_stale_segments()
        self.shared = _Shared(self.n_workers, self.k)
        self.shared.reset_seed[:] = -1
        self.shared.active[:] = False
        ctx = mp.get_context("fork")
        self.conns, self.procs = [], []
        try:
            for w in range(self.n_workers):
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_worker_main, daemon=True,
                                   args=(w, self.shared, self.n_workers, self.k, str(rom_path),
                                         frame_skip, sticky, episode_frames, backend, child,
                                         [*self.conns, parent], os.getpid()))
                proc.start()
                child.close()  # so that a dead worker shows as EOF here
                self.conns.append(parent)
                self.procs.append(proc)
            hello = [self._recv(w) for w in range(self.n_workers)]
        except BaseException:
            self.close()
            raise
        self.n_actions = hello[0][1]
        #: main-process CPU seconds spent in policy inference (``act``), for profiles
        self.inference_cpu_s = 0.0
        self.screen_shape = hello[0][2]
        n_slots = self.n_workers * self.k
        if policy == "int8":
            from host.policy_int8 import make_int8_slots
            self.weights = [make_int8_slots(n_slots, self.n_actions, network) for _ in range(2)]
        else:
            self.weights = [make_slot_weights(n_slots, self.n_actions, network) for _ in range(2)]

    # ------------------------------------------------------------------------------
    def evaluate(self, jobs: Iterable[Job], params_for: Callable[[int], np.ndarray],
                 on_result: Callable[[EpisodeResult], None] | None = None) -> list[EpisodeResult]:
        """Run every job to the end of its episode; results in job order.

        Args:
            jobs: the episodes to run.
            params_for: ``individual -> (n_params,)`` float32 parameter vector.
            on_result: called as each episode finishes (progress bars, logs).
        """
        jobs = list(jobs)
        results: list[EpisodeResult | None] = [None] * len(jobs)
        sh, k, n_workers = self.shared, self.k, self.n_workers
        n_slots = n_workers * k
        slot_job = np.full((2, n_slots), -1, np.int64)
        ret = np.zeros((2, n_slots))
        frames = np.zeros((2, n_slots), np.int64)
        steps = np.zeros((2, n_slots), np.int64)
        reset_frames = np.zeros((2, n_slots), np.int64)
        starting = np.zeros((2, n_slots), bool)
        next_job = 0
        done = 0
        sent = [False, False]

        def assign(block: int, slot: int) -> None:
            nonlocal next_job
            w, s = divmod(slot, k)
            if next_job < len(jobs):
                job = jobs[next_job]
                slot_job[block, slot] = next_job
                next_job += 1
                self.weights[block].load(slot, params_for(job.individual))
                sh.reset_seed[w, block, s] = int(job.episode_seed)
                sh.active[w, block, s] = True
                ret[block, slot] = 0.0
                frames[block, slot] = steps[block, slot] = 0
                starting[block, slot] = True
            else:
                slot_job[block, slot] = -1
                sh.active[w, block, s] = False

        def send(block: int) -> None:
            for c in self.conns:
                c.send(block)
            sent[block] = True

        for block in (0, 1):
            for slot in range(n_slots):
                assign(block, slot)
            if (slot_job[block] >= 0).any():
                send(block)

        block = 0
        while done < len(jobs):
            if not sent[block]:
                block ^= 1
                continue
            for w in range(n_workers):
                got = self._recv(w)
                if got != block:
                    raise RuntimeError(f"worker protocol error: expected block {block}, got {got!r}")
            sent[block] = False
            flat = lambda a: a[:, block].reshape(n_slots)  # noqa: E731
            rew, frm, over = flat(sh.reward), flat(sh.frames), flat(sh.over)
            running = []
            for slot in np.flatnonzero(slot_job[block] >= 0):
                frames[block, slot] += frm[slot]
                if starting[block, slot]:
                    reset_frames[block, slot] = frm[slot]
                    starting[block, slot] = False
                else:
                    ret[block, slot] += rew[slot]
                    steps[block, slot] += 1
                if over[slot]:
                    j = int(slot_job[block, slot])
                    res = EpisodeResult(jobs[j], float(ret[block, slot]), int(frames[block, slot]),
                                        int(steps[block, slot]), int(reset_frames[block, slot]))
                    results[j] = res
                    done += 1
                    if on_result is not None:
                        on_result(res)
                    assign(block, slot)
                else:
                    running.append(slot)
            if running:
                obs = sh.obs[:, block].reshape(n_slots, 4, 84, 84)
                idx = np.asarray(running)
                weights = self.weights[block]
                t0 = time.process_time()
                if idx.size == n_slots:
                    actions = weights.act(obs)
                else:
                    actions = flat(sh.action).copy()
                    # every slot in one call (idle slots' values unused): cheaper than
                    # gathering the running slots' weights (2.7 MB float32, 0.7 MB int8 each);
                    # a slot's values do not depend on the batch, so results are unchanged
                    actions[idx] = weights.act(obs)[idx]
                self.inference_cpu_s += time.process_time() - t0
                sh.action[:, block] = actions.reshape(n_workers, k)
            if (slot_job[block] >= 0).any():
                send(block)
            block ^= 1
        return results  # type: ignore[return-value]

    def _recv(self, w: int):
        """The next message of worker ``w``; raises WorkerDied (or KeyboardInterrupt when a
        SIGINT/SIGTERM ended it) if it is gone."""
        try:
            return self.conns[w].recv()
        except (EOFError, ConnectionResetError):
            proc = self.procs[w]
            proc.join(timeout=1)
            code = proc.exitcode
            if code in (-signal.SIGTERM, -signal.SIGINT):
                raise KeyboardInterrupt from None
            how = (f"killed by signal {-code}" + (" (out of memory?)" if code == -signal.SIGKILL else "")
                   if code is not None and code < 0 else f"exit code {code}")
            raise WorkerDied(f"worker process {w} (pid {proc.pid}) died: {how}") from None

    def worker_cpu_s(self) -> dict[str, float]:
        """CPU seconds of all workers since start-up, per part of :data:`WORKER_CPU_PARTS`
        (totals up to each worker's last reply)."""
        return {name: float(self.shared.cpu[:, i].sum()) for i, name in enumerate(WORKER_CPU_PARTS)}

    def close(self) -> None:
        """Stop the workers and release the shared memory (idempotent)."""
        for c in getattr(self, "conns", []):
            try:
                c.send(None)
            except (OSError, BrokenPipeError):
                pass
        for p in getattr(self, "procs", []):
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
        self.conns, self.procs = [], []
        if getattr(self, "shared", None) is not None:
            self.shared.close()
            self.shared = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
