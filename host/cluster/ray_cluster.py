"""Evaluation on a Ray cluster (``nc2600 run --cluster ray [--ray-address ADDR]``).

Layout: one :class:`NodeEvaluator` Ray actor per node of the cluster, pinned to that node
(``NodeAffinitySchedulingStrategy``, not soft). Each actor owns an ordinary
:class:`host.launcher.evaluator.Evaluator` with one emulator worker process per CPU that Ray gives the
node (``ray start --num-cpus N``), so every node keeps the evaluator's batched inference and
double buffering. The driver (:class:`RayEvaluator`, the ``nc2600 run`` process) keeps the
algorithm, the checkpoints and the run directory; it cuts each ``evaluate`` call's job list
into contiguous chunks, ships a chunk with the parameter vectors of its individuals to an idle
actor (at most two chunks queued per actor, so that an actor never waits for the driver) and
reassembles the results in job order.

Same results: an episode's result depends only on its individual's parameters and its episode
seed (:mod:`host.launcher.evaluator`), never on the node, slot or chunk that ran it, so the fitness
values, elites and ``log.jsonl`` equal the local backend's for any number of nodes or CPUs.

Faults: a chunk's result is accepted once, when its task returns. If an actor's process dies
(SIGKILL, out of memory), Ray restarts the actor on its node (``max_restarts``) and runs the
lost task again (``max_task_retries``); an emulator process that dies inside an actor makes
the actor exit so that the same path applies. If the node itself is gone, the driver moves the
chunk to another node. Either way every (individual, episode) is recorded exactly once and the
values are those of an undisturbed run (the tasks are pure functions of their inputs).

Before a run directory is created, :func:`connect` joins (or starts) Ray and checks every node
with a small probe task: the node must import this package, and report the same versions of
Python, nc2600, numpy, ale-py and Ray and the same source fingerprint
(:func:`source_fingerprint`) as the driver; otherwise :class:`~host.errors.UserError` (one
line, exit 2).
"""
from __future__ import annotations

import hashlib
import logging
import math
import os
import socket
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from hls_models.platform import FRAME_SKIP
from host.errors import UserError

if TYPE_CHECKING:
    from host.launcher.evaluator import EpisodeResult, Job

RAY_VERSION = "2.60.0"            #: the pinned Ray (pyproject.toml)
PROBE_TIMEOUT_S = 120.0           #: a node that does not answer the probe within this is an error
CONNECT_TIMEOUT_S = 5.0           #: TCP check of --ray-address before Ray's own (long) retries
CHUNK_ROUNDS = 8                  #: a chunk holds up to this many episodes per actor slot
QUEUED_PER_ACTOR = 2              #: chunks in flight per actor (one running, one waiting)
_PACKAGES = ("host", "hls_models", "hw")  #: source folders covered by the fingerprint


# -- what a node must agree on ---------------------------------------------------------
def source_fingerprint() -> str:
    """SHA-256 (first 16 hex digits) over the ``.py`` files of ``host``, ``hls_models`` and
    ``hw`` (relative path and bytes, sorted by path) as installed on this machine. Two nodes
    with the same fingerprint run the same evaluation code."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for pkg in _PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            h.update(str(path.relative_to(root)).encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def node_versions() -> dict[str, str]:
    """Versions that must match between the driver and every node (results depend on them)."""
    from importlib import metadata
    out = {"python": sys.version.split()[0], "source": source_fingerprint()}
    for pkg in ("nc2600", "numpy", "ale-py", "ray"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "missing"
    return out


def _probe() -> dict:
    """Runs on a node (Ray task): its versions, address and process id."""
    import importlib
    importlib.import_module("ale_py")   # the evaluator needs it; an ImportError here names the gap
    import ray
    return {"versions": node_versions(), "ip": ray.util.get_node_ip_address(), "pid": os.getpid()}


def version_mismatch(driver: dict[str, str], node: dict[str, str]) -> str | None:
    """First differing entry as ``"name X here, Y on the node"``, or None when all agree."""
    for key in sorted(set(driver) | set(node)):
        if driver.get(key) != node.get(key):
            return f"{key} {driver.get(key, 'missing')} here, {node.get(key, 'missing')} on the node"
    return None


def _first_line(exc: BaseException) -> str:
    """The most specific one-line reason inside a (possibly wrapped) Ray exception."""
    text = str(exc).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):  # Ray puts the remote traceback's last line (the error) last
        if "Error" in ln or "error" in ln:
            return ln[:300]
    return (lines[-1] if lines else type(exc).__name__)[:300]


# -- joining or starting Ray -----------------------------------------------------------
def _import_ray():
    try:
        import ray
    except ImportError:
        raise UserError(f"--cluster ray needs Ray {RAY_VERSION} (pip install ray=={RAY_VERSION}; "
                        "`make install` installs it)") from None
    return ray


def _check_reachable(address: str) -> None:
    """TCP connect to ``host:port`` within :data:`CONNECT_TIMEOUT_S` (Ray itself retries for
    minutes before giving up)."""
    if address in ("auto", "local") or address.startswith("ray://"):
        return
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--ray-address must be HOST:PORT (the head's GCS port, 6379 by default), got {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise UserError(f"cannot reach the Ray head at {address}: {exc.strerror or exc}") from None
    except (UnicodeError, ValueError):       # idna: an empty label (a..b), a label of 64+ characters
        raise UserError(f"--ray-address {address!r}: {host[:80]!r} is not a valid host name") from None


def _token_auth_if_token_here() -> None:
    """Joining a cluster: use token authentication when this machine has a Ray token and
    ``RAY_AUTH_MODE`` is unset, as ``ray start`` does on the head (Ray 2.60 behaviour: a head
    started while ``~/.ray/auth_token`` exists requires the token, a driver does not send it
    unless the mode is set)."""
    if "RAY_AUTH_MODE" in os.environ:
        return
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH") or \
            (Path.home() / ".ray" / "auth_token").is_file():
        os.environ["RAY_AUTH_MODE"] = "token"


def _own_token_for_embedded_ray() -> bool:
    """Embedded local Ray: Ray 2.60 turns token authentication on for a new local instance and,
    when no token exists, writes a new one to ``~/.ray/auth_token``, in the user's home and for
    good (a later ``ray start --head`` on the machine then requires it, see the README). Give the
    instance a random token of its own in ``RAY_AUTH_TOKEN`` instead (this process and the Ray
    processes it starts; authentication stays on, nothing is written). A token the user has
    (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH``, ``~/.ray/auth_token``) or an explicit
    ``RAY_AUTH_MODE`` is left as it is. Returns True when it set the variable."""
    if "RAY_AUTH_MODE" in os.environ or os.environ.get("RAY_AUTH_TOKEN") or \
            os.environ.get("RAY_AUTH_TOKEN_PATH") or (Path.home() / ".ray" / "auth_token").is_file():
        return False
    import secrets
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    return True


class _captured_stderr:
    """Send file descriptor 2 to a temporary file for the block (Ray's C++ core prints a
    warning per retry there); :attr:`text` holds what was written. Restored on exit."""

    def __enter__(self):
        sys.stderr.flush()
        self._file = tempfile.TemporaryFile()
        self._saved = os.dup(2)
        os.dup2(self._file.fileno(), 2)
        self.text = ""
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._file.seek(0)
        self.text = self._file.read().decode(errors="replace")
        self._file.close()
        return False


class _NativeStderrToFile:
    """While Ray is connected: the process's file descriptor 2 (where Ray's C++ core writes its
    own log lines, e.g. "task_manager.cc: Failed to push error to driver" once a second for many
    seconds after a SIGTERM to the process group ended Ray's daemons) goes to a temporary file,
    and Python's ``sys.stderr`` to a copy of the original descriptor, so the command's own lines
    (progress, the one-line errors and stop messages) still reach the terminal and are not
    buried. :meth:`restore` puts both back and deletes the file."""

    def __init__(self):
        sys.stderr.flush()
        self._saved_fd = os.dup(2)
        self._file = tempfile.TemporaryFile(prefix="nc2600-ray-native-stderr-")
        os.dup2(self._file.fileno(), 2)
        self._old_stderr = sys.stderr
        sys.stderr = os.fdopen(os.dup(self._saved_fd), "w", buffering=1, errors="backslashreplace",
                               closefd=True)

    def restore(self) -> None:
        if self._file is None:
            return
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os.dup2(self._saved_fd, 2)
        os.close(self._saved_fd)
        replaced, sys.stderr = sys.stderr, self._old_stderr
        try:
            replaced.close()
        except OSError:
            pass
        self._file.close()
        self._file = None


def remove_stale_rom_dirs(folder: str | None = None) -> list[str]:
    """Remove the ROM folders (``nc2600-rom-<pid>-*`` in the temporary folder) of node actors
    whose process no longer exists (a SIGKILLed actor cannot remove its own); returns their
    names. Folders of running processes, and of other names, are left alone."""
    import re
    import shutil

    from host.launcher.evaluator import _pid_running
    folder = folder or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        m = re.fullmatch(r"nc2600-rom-(\d+)-\w+", name)
        if m and int(m.group(1)) != os.getpid() and not _pid_running(int(m.group(1))):
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
            removed.append(name)
    return removed


@dataclass
class NodeInfo:
    """One node of the cluster as the probe saw it."""
    node_id: str
    ip: str
    cpus: int


class RayCluster:
    """A connection to Ray: the driver side of ``--cluster ray``.

    Use :func:`connect` to make one; :meth:`evaluator` builds the per-node actors;
    :meth:`close` disconnects (and stops the embedded instance if this process started it).
    """

    def __init__(self, ray, nodes: list[NodeInfo], started_here: bool, address: str | None,
                 own_token: bool = False, native_stderr: "_NativeStderrToFile | None" = None):
        self.ray, self.nodes, self.started_here, self.address = ray, nodes, started_here, address
        self.own_token, self.native_stderr = own_token, native_stderr

    @property
    def cpus(self) -> int:
        return sum(n.cpus for n in self.nodes)

    def describe(self) -> str:
        where = "embedded local Ray" if self.started_here else f"Ray cluster {self.address}"
        return f"{where}: {len(self.nodes)} node(s), {self.cpus} CPUs"

    def evaluator(self, rom_path, envs_per_block: int, frame_skip: int = FRAME_SKIP, sticky: float = 0.0,
                  episode_frames: int = 20_000, backend: str = "ale", policy: str = "float",
                  chunk_rounds: int = CHUNK_ROUNDS, network: str = "small",
                  genome_spec: dict | None = None) -> "RayEvaluator":
        return RayEvaluator(self, rom_path, envs_per_block, frame_skip, sticky, episode_frames,
                            backend, policy, chunk_rounds, network, genome_spec)

    def close(self) -> None:
        try:
            if self.ray.is_initialized():
                self.ray.shutdown()
        finally:
            if self.native_stderr is not None:
                self.native_stderr.restore()
                self.native_stderr = None
        if self.own_token:                       # the embedded instance's token goes with it
            os.environ.pop("RAY_AUTH_TOKEN", None)
            self.own_token = False


def connect(address: str | None = None, num_cpus: int = 2, probe_timeout_s: float = PROBE_TIMEOUT_S) -> RayCluster:
    """Join the Ray cluster at ``address`` (``HOST:PORT`` of a head started with ``ray start
    --head``, or ``auto``), or with ``address=None`` start an embedded local instance with
    ``num_cpus`` CPUs (no dashboard). Then probe every alive node (see module doc).

    If this process is already connected to Ray (tests, notebooks), that connection is used.

    Raises:
        UserError: Ray missing here, address unreachable or not a compatible Ray head, a node
            that cannot import the evaluator, a version or source mismatch, a node that does
            not answer within ``probe_timeout_s`` seconds, no node with a CPU.
    """
    if address is not None and "ray" not in sys.modules:
        _token_auth_if_token_here()     # read by Ray's config when Ray is imported
    ray = _import_ray()
    started_here = own_token = False
    if not ray.is_initialized():
        if address is not None:
            _check_reachable(address)
        kwargs = dict(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False,
                      configure_logging=True)
        import signal
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
        stopped = False
        with _captured_stderr() as captured, _own_group_for_ray_daemons():
            try:
                if address is None:
                    own_token = _own_token_for_embedded_ray()
                    # "local": a new instance even when a `ray start` cluster runs on this machine
                    ray.init(address="local", num_cpus=int(num_cpus), **kwargs)
                    started_here = True
                else:
                    ray.init(address=address, **kwargs)
                failure = None
            except SystemExit as exc:
                # ray.init's own SIGTERM handler (sys.exit(15)) caught a SIGTERM during the start
                if exc.code != signal.SIGTERM:
                    raise
                failure, stopped = "SIGTERM during Ray's start", True
            except Exception as exc:  # noqa: BLE001 - Ray raises many types (ConnectionError, RuntimeError...)
                failure = _first_line(exc)
        for sig, handler in handlers.items():   # Ray's core installs its own; keep nc2600's
            if handler is not None and signal.getsignal(sig) is not handler:
                signal.signal(sig, handler)
        if stopped:                             # stopped as by nc2600's handler: exit 130, its line
            from host.errors import on_sigterm
            try:
                if ray.is_initialized():
                    ray.shutdown()
            finally:
                if own_token:
                    os.environ.pop("RAY_AUTH_TOKEN", None)
            on_sigterm(signal.SIGTERM, None)    # raises host.errors.Terminated
        if failure is not None:
            if own_token:
                os.environ.pop("RAY_AUTH_TOKEN", None)
            if "InvalidAuthToken" in captured.text or "Unauthenticated" in captured.text:
                failure = ("the head requires Ray's authentication token: copy its ~/.ray/auth_token "
                           "(`ray get-auth-token` on the head) to this machine or set RAY_AUTH_TOKEN")
            raise UserError(f"cannot {'start Ray' if address is None else 'join the Ray cluster at ' + address}: "
                            f"{failure}")
    try:
        nodes = _probe_nodes(ray, address, probe_timeout_s)
    except BaseException:
        if started_here or address is not None:
            ray.shutdown()
        if own_token:
            os.environ.pop("RAY_AUTH_TOKEN", None)
        raise
    native = _NativeStderrToFile() if started_here or address is not None else None
    return RayCluster(ray, nodes, started_here, address, own_token, native)


def _probe_nodes(ray, address, timeout_s: float) -> list[NodeInfo]:
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    where = address or "local"
    alive = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
    if not alive:
        raise UserError(f"the Ray cluster at {where} has no node with a CPU")
    probe = ray.remote(num_cpus=0, max_retries=0)(_probe)
    refs = [probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote()
            for n in alive]
    mine = node_versions()
    nodes = []
    deadline = time.monotonic() + timeout_s
    for n, ref in zip(alive, refs):
        ip = n.get("NodeManagerAddress", "?")
        try:
            got = ray.get(ref, timeout=max(1.0, deadline - time.monotonic()))
        except ray.exceptions.GetTimeoutError:
            raise UserError(f"Ray node {ip} did not answer within {timeout_s:.0f} s") from None
        except Exception as exc:  # noqa: BLE001 - the node's import error, worker crash, ...
            raise UserError(f"Ray node {ip} cannot run the nc2600 evaluator: {_first_line(exc)}") from None
        diff = version_mismatch(mine, got["versions"])
        if diff is not None:
            raise UserError(f"Ray node {ip} differs from this machine: {diff} "
                            "(install the same nc2600 checkout on every node)")
        nodes.append(NodeInfo(n["NodeID"], ip, int(n["Resources"]["CPU"])))
    return nodes


# -- the per-node actor ---------------------------------------------------------------------
class NodeEvaluator:
    """Ray actor: one :class:`host.launcher.evaluator.Evaluator` on one node.

    Args:
        rom_name, rom_bytes: the game's ROM, shipped from the driver (nodes need no ROM files).
        workers: emulator worker processes on this node (its CPUs in Ray).
        envs_per_block, frame_skip, sticky, episode_frames, backend, policy, network: as the Evaluator.
    """

    def __init__(self, rom_name: str, rom_bytes: bytes, workers: int, envs_per_block: int, frame_skip: int,
                 sticky: float, episode_frames: int, backend: str, policy: str, network: str = "small",
                 genome_spec: dict | None = None):
        from host.launcher.evaluator import Evaluator
        remove_stale_rom_dirs()
        self._dir = tempfile.TemporaryDirectory(prefix=f"nc2600-rom-{os.getpid()}-")
        rom = Path(self._dir.name) / rom_name
        rom.write_bytes(rom_bytes)
        self.ev = Evaluator(rom, workers, envs_per_block, frame_skip, sticky, episode_frames, backend, policy,
                            network=network)
        self.slots = 2 * workers * envs_per_block
        self.policy, self.network, self.genome_spec = policy, network, genome_spec
        self._builder = None

    def info(self) -> dict:
        return {"pid": os.getpid(), "slots": self.slots, "n_actions": self.ev.n_actions}

    def evaluate(self, seeds: np.ndarray, individuals: np.ndarray, params: list) -> tuple[np.ndarray, float]:
        """Run one chunk: episode ``j`` is individual ``params[individuals[j]]`` with episode seed
        ``seeds[j]``. Returns ``(n, 4)`` float64 (return, frames, steps, reset frames) and the
        seconds this node spent on the chunk."""
        from host.launcher.evaluator import Job, WorkerDied
        t0 = time.perf_counter()
        jobs = [Job(int(i), int(s)) for i, s in zip(individuals, seeds)]
        try:
            results = self.ev.evaluate(jobs, lambda i: params[i])
        except WorkerDied:
            # an emulator process of this node died: exit so that Ray restarts this actor and
            # runs the chunk again (the driver never sees a partial chunk)
            os._exit(75)
        table = np.array([[r.episode_return, r.frames, r.steps, r.reset_frames] for r in results], np.float64)
        return table, time.perf_counter() - t0

    def _genome_spec_checked(self) -> dict:
        """The genome specification this evaluator was started with, its
        :class:`host.launcher.noise.GenomeBuilder` made on first use. Raises RuntimeError without one."""
        from host.launcher.noise import GenomeBuilder
        spec = self.genome_spec
        if spec is None:
            raise RuntimeError("this evaluator was started without a genome specification")
        if self._builder is None:
            self._builder = GenomeBuilder(spec["n_actions"], spec["sigma"], spec["noise_size"], spec["noise_seed"],
                                          self.network)
        return spec

    def _genome_params(self, genomes: list) -> tuple[list, float]:
        """The policies of seed-list genomes, rebuilt here (:class:`host.launcher.noise.GenomeBuilder`; int8:
        quantised as the driver does, :func:`host.launcher.run.Run._policy_for`); and the seconds spent."""
        t0 = time.perf_counter()
        spec = self._genome_spec_checked()
        params = [self._builder.params(g) for g in genomes]
        if self.policy == "int8":
            from hls_models.policy_int8 import quantize_network
            params = [quantize_network(p, self.network, spec["n_actions"], spec["calib_obs"]) for p in params]
        return params, time.perf_counter() - t0

    def _es_params(self, centre: np.ndarray, perturbations: list) -> tuple[list, float]:
        """OpenAI-ES individuals ``centre +- sigma * eps(seed)`` rebuilt here
        (:func:`host.launcher.algorithms.es_individual`, the driver's own operations); int8 quantised as
        the driver does. Returns the policies and the seconds spent."""
        from host.launcher.algorithms import es_individual
        t0 = time.perf_counter()
        spec = self._genome_spec_checked()
        centre = np.asarray(centre, np.float32)
        params = [es_individual(centre, int(seed), int(sign), spec["sigma"], self._builder.noise)
                  for seed, sign in perturbations]
        if self.policy == "int8":
            from hls_models.policy_int8 import quantize_network
            params = [quantize_network(p, self.network, spec["n_actions"], spec["calib_obs"]) for p in params]
        return params, time.perf_counter() - t0

    def evaluate_es(self, seeds: np.ndarray, individuals: np.ndarray, centre: np.ndarray,
                    perturbations: list) -> tuple[np.ndarray, float]:
        """:meth:`evaluate` with ES individuals given as the centre (shipped once per call) and
        ``(seed, sign)`` each; the seconds returned include the rebuild."""
        params, build_s = self._es_params(centre, perturbations)
        table, seconds = self.evaluate(seeds, individuals, params)
        return table, seconds + build_s

    def evaluate_genomes(self, seeds: np.ndarray, individuals: np.ndarray, genomes: list) -> tuple[np.ndarray, float]:
        """:meth:`evaluate` with seed-list genomes instead of parameter vectors (rebuilt here,
        bit-identical); the seconds returned include the rebuild."""
        params, build_s = self._genome_params(genomes)
        table, seconds = self.evaluate(seeds, individuals, params)
        return table, seconds + build_s

    def transfer_only_genomes(self, seeds: np.ndarray, individuals: np.ndarray, genomes: list) -> tuple[np.ndarray, float]:
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
        """Stop the emulator processes and free the shared memory (before ``ray.kill``)."""
        self.ev.close()
        self._dir.cleanup()

    def pids(self) -> list[int]:
        """This actor's process and its emulator worker processes (for fault-injection tests)."""
        return [os.getpid(), *(p.pid for p in self.ev.procs)]


# -- the driver side --------------------------------------------------------------------
class RayEvaluator:
    """Drop-in for :class:`host.launcher.evaluator.Evaluator` that evaluates on every node of a Ray cluster.

    Args:
        cluster: from :func:`connect`.
        rom_path: ROM file on the driver (its bytes are shipped to the nodes).
        envs_per_block: game instances per block per emulator worker (``--envs-per-block``).
        chunk_rounds: a chunk holds at most ``chunk_rounds`` episodes per slot of its actor,
            and at most an equal share of the call's jobs per actor.
        genome_spec: ``{"n_actions", "sigma", "noise_size", "noise_seed", "calib_obs"}`` (the
            run's network outputs, mutation power, noise table and, for ``--policy int8``, its
            calibration observations): when given, a ``params_for`` that names seed-list genomes
            (:class:`host.launcher.algorithms.SeedListIndividuals`, GA and RS) is shipped as seed lists and
            the nodes rebuild the parameters (:class:`host.launcher.noise.GenomeBuilder`, bit-identical);
            an ES generation's ``params_for`` (:class:`host.launcher.algorithms.ESIndividuals`) travels as
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
        self.actors, self.slots = [], []
        for node in cluster.nodes:
            actor = actor_cls.options(
                num_cpus=node.cpus, max_restarts=-1, max_task_retries=-1, max_concurrency=1,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node.node_id, soft=False),
            ).remote(rom_path.name, rom_bytes, node.cpus, envs_per_block, frame_skip, sticky,
                     episode_frames, backend, policy, network, genome_spec)
            self.actors.append(actor)
        try:
            infos = ray.get([a.info.remote() for a in self.actors], timeout=PROBE_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001
            self.close()
            raise UserError(f"a Ray node could not start its evaluator: {_first_line(exc)}") from None
        self.slots = [i["slots"] for i in infos]
        self.n_actions = infos[0]["n_actions"]
        self.alive = [True] * len(self.actors)
        self.node_method = "evaluate"   # "transfer_only": Ray's cost alone (host.bench.cluster)
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

        Same contract as :meth:`host.launcher.evaluator.Evaluator.evaluate`; ``on_result`` is called as
        each chunk's results arrive. Raises :class:`host.launcher.evaluator.WorkerDied` when no node is left.
        """
        from host.launcher.evaluator import EpisodeResult
        ray = self.ray
        t0 = time.perf_counter()
        jobs = list(jobs)
        results: list[EpisodeResult | None] = [None] * len(jobs)
        chunks = self._chunks(len(jobs))
        todo = deque(range(len(chunks)))
        inflight: dict = {}                       # ObjectRef -> (actor index, chunk index)
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
            # a timeout hands control back to Python every second, so that a SIGTERM's handler
            # runs at once (a blocking wait can take many seconds to notice it)
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
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
                    from host.launcher.evaluator import WorkerDied
                    raise WorkerDied("every Ray node of the evaluation died") from None
                submit()
                continue
            a, b = chunks[c]
            del payload[c]
            out, seconds = out
            node_s[i] += seconds
            for j, row in zip(range(a, b), out):
                res = EpisodeResult(jobs[j], float(row[0]), int(row[1]), int(row[2]), int(row[3]))
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
        """Stop the node actors (their emulator processes exit with them); idempotent."""
        actors = getattr(self, "actors", [])
        try:
            self.ray.get([a.shutdown.remote() for a in actors], timeout=30)
        except Exception:  # noqa: BLE001 - a dead or stuck actor is killed below
            pass
        for a in actors:
            try:
                self.ray.kill(a)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# -- sweeps (lockstep --all, games verify --all) -------------------------------------------
def add_cluster_options(parser) -> None:
    """``--cluster local|ray`` and ``--ray-address HOST:PORT`` for a sweep command."""
    parser.add_argument("--cluster", choices=("local", "ray"), default="local",
                        help="local: --jobs processes here; ray: one Ray task per item on a Ray cluster")
    parser.add_argument("--ray-address", metavar="HOST:PORT", default=None,
                        help="with --cluster ray: the head of a running cluster (default: an embedded "
                             "local Ray with --jobs CPUs)")


# -- the driver under a supervisor ---------------------------------------------------------
#: the pipe to the supervising process, in a driver started by :func:`supervised_driver`
_SUPERVISOR_FD: int | None = None


def supervised_driver(body: Callable[[], int]) -> int:
    """Run ``body`` (a command's work as a Ray driver: returns its exit code, its errors already
    turned into their one line) in a forked child process, and wait for it here; returns the
    exit code for this process.

    Why: Ray 2.60's core ends a driver at once with exit status 1 and no word on stderr when the
    local raylet has died (``plasma::StoreConn::ExitIfErrorStatus`` -> ``QuickExit``: any use of
    the object store after that death, such as the object recovery that the resubmission of a
    lost actor task starts). A SIGTERM sent to the whole process group of an embedded Ray used to
    end the raylet too, so the driver could be ended before its SIGTERM handler ran (measured: 1
    of 12 runs of ``test_embedded_ray_writes_no_token_home_and_group_sigterm_is_sigterm`` on the
    loaded 2-core machine, and CI on 01abea1).

    So: the driver (the child) stays in the caller's process group, but :func:`connect` starts
    Ray's daemons from a process group of their own (:func:`_own_group_for_ray_daemons`), which
    a Ctrl-C or a SIGTERM to the caller's group does not reach: the driver gets the signal and
    stops Ray in order. This process (the supervisor) forwards SIGINT and SIGTERM (the driver
    ignores a second one while it stops), gives the driver SIGTERM if it dies itself
    (``PR_SET_PDEATHSIG``), and reports a driver that still ends without its exit code (every
    process signalled, as a batch scheduler may do; a raylet that crashed; SIGKILL) in one line:
    after SIGINT/SIGTERM as the interrupted command (exit 130), else as an error (exit 1); either
    line ends with the hint the driver gave through :func:`set_interrupt_hint` (e.g. the
    ``--resume`` command). POSIX only (``os.fork``).
    """
    import json
    import signal
    import threading
    stops = (signal.SIGINT, signal.SIGTERM)
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    r, w = os.pipe()
    old_chld = signal.signal(signal.SIGCHLD, signal.SIG_DFL)   # waitpid needs it (not SIG_IGN)
    seen: list[int] = []
    early: list[int] = []                          # taken before the driver's pid was known
    target: list[int | None] = [None]

    def forward(signum, frame):
        # always: a signal sent to this process alone (kill, timeout -s INT, an IDE's stop button)
        # must reach the driver; one sent to the group reaches it twice, and the driver takes the
        # second as the same stop (_stop_once)
        if os.getpid() != parent:
            return
        seen.append(signum)
        if target[0] is None:                      # before the fork returned: sent from there
            early.append(signum)
            return
        try:
            os.kill(target[0], signum)
        except (ProcessLookupError, PermissionError):
            pass
    # The supervisor's handlers are in place before the fork: a process-directed signal may be
    # taken by any thread (blocking it in this one does not keep it out), and Python runs the
    # handler installed when the main thread gets to it. The child, one thread, blocks the
    # signals across the fork and puts the caller's handlers back before it unblocks them.
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    old = {}
    for sig in stops:
        if signal.getsignal(sig) is not signal.SIG_IGN:   # an ignored signal stays ignored
            old[sig] = signal.signal(sig, forward)
    pid = os.fork()
    if pid == 0:                                   # the driver
        code = 1
        try:
            global _SUPERVISOR_FD
            for sig, handler in old.items():
                signal.signal(sig, handler)
            os.close(r)
            _SUPERVISOR_FD = w
            from host.launcher.evaluator import signal_when_parent_ends
            signal_when_parent_ends(parent, signal.SIGTERM)
            signal.signal(signal.SIGCHLD, old_chld)
            from host.errors import on_sigterm
            for sig, usual in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, on_sigterm)):
                if signal.getsignal(sig) is usual:
                    signal.signal(sig, _stop_once)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
            try:
                code = int(body() or 0)
            except SystemExit as exc:
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    sys.stderr.write(f"{exc.code}\n")
                    code = 1
            except KeyboardInterrupt as exc:
                from host.errors import interrupt_name
                sys.stderr.write(f"nc2600: {interrupt_name(exc)}\n")
                code = 130
            except BaseException:  # noqa: BLE001 - a bug: its traceback, then the exit code
                import traceback
                traceback.print_exc()
                code = 1
        finally:
            signal.pthread_sigmask(signal.SIG_BLOCK, stops)   # nothing can raise past os._exit
            try:
                if "ray" in sys.modules and sys.modules["ray"].is_initialized():
                    sys.modules["ray"].shutdown()
            except BaseException:  # noqa: BLE001 - the exit code counts now
                pass
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:  # noqa: BLE001
                    pass
            try:
                os.write(w, f"rc {code}\n".encode())
            except OSError:
                pass
            os._exit(code)
    target[0] = pid
    while early:                                   # each early signal once (forward sends the rest)
        try:
            os.kill(pid, early.pop(0))
        except (ProcessLookupError, PermissionError):
            pass
    os.close(w)
    signal.signal(signal.SIGCHLD, old_chld)
    lines: list[str] = []

    def read() -> None:              # drained as written: the driver never blocks on the pipe
        with os.fdopen(r, "rb") as pipe:
            for line in pipe:
                lines.append(line.decode(errors="replace"))
    reader = threading.Thread(target=read, name="nc2600-driver-pipe", daemon=True)
    reader.start()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
    try:
        status = _wait_with_handlers(pid)
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    # the driver's lines are in the pipe once it has exited; a process forked from the driver (not
    # exec'd) may still hold the pipe open: wait for the reader briefly, not for that process
    reader.join(timeout=2.0)
    rc, hint = None, ""
    for line in list(lines):
        kind, _, value = line.rstrip("\n").partition(" ")
        try:
            if kind == "rc":
                rc = int(value)
            elif kind == "hint":
                hint = json.loads(value)
        except ValueError:
            pass
    if rc is not None:
        return rc
    code = os.waitstatus_to_exitcode(status)
    if seen:
        how = "terminated (SIGTERM)" if signal.SIGTERM in seen else "interrupted"
        sys.stderr.write(f"nc2600: {how}{hint}\n")
        return 130
    how = f"killed by signal {-code}" if code < 0 else f"exit status {code}" + \
        ("; Ray's core ends a driver whose local raylet died" if code == 1 else "")
    sys.stderr.write(f"nc2600: error: the Ray driver process ended without finishing ({how}){hint}\n")
    return 1


#: seconds between the supervisor's looks at its driver (the most a forwarded signal waits)
WAIT_POLL_S = 0.05


def _wait_with_handlers(pid: int) -> int:
    """``os.waitpid(pid, 0)``'s status, but with Python's signal handlers run at least every
    :data:`WAIT_POLL_S` seconds while the child lives. A blocking ``waitpid`` is not enough: a
    signal whose C handler runs after the interpreter's last look at its pending handlers and
    before the call enters the kernel does not interrupt the call (no EINTR), so its Python
    handler (the forward to the driver) waits until the driver has ended by itself (measured:
    ``test_sigint_to_the_supervisor_alone_reaches_the_driver`` returned the driver's 0 after its
    30 s sleep once in CI on 968887a; reproduced every time with that window widened by a C
    ``usleep`` before ``waitpid``)."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return status
        time.sleep(WAIT_POLL_S)


_FIRST_STOP: float | None = None     #: time.monotonic() of the driver's first SIGINT/SIGTERM
STOP_ECHO_S = 1.0                    #: a second signal within this many seconds is the same stop


def _stop_once(signum, frame) -> None:
    """The driver's SIGINT and SIGTERM handler (under :func:`supervised_driver`): KeyboardInterrupt
    (:class:`host.errors.Terminated` for SIGTERM), but not again while one is being handled or
    within :data:`STOP_ECHO_S` of the first: a signal sent to the process group reaches the driver
    itself and again through the supervisor, and the second must not cut the first one's cleanup
    short (a Ctrl-C pressed again later does interrupt it)."""
    global _FIRST_STOP
    import signal

    from host import errors
    if signum == signal.SIGTERM:
        errors._SIGTERM_RECEIVED = True          # the stop line says SIGTERM either way
    now = time.monotonic()
    if isinstance(sys.exc_info()[1], KeyboardInterrupt) or \
            (_FIRST_STOP is not None and now - _FIRST_STOP < STOP_ECHO_S):
        return
    _FIRST_STOP = now
    raise errors.Terminated() if signum == signal.SIGTERM else KeyboardInterrupt


def set_interrupt_hint(text: str) -> None:
    """In a driver under :func:`supervised_driver`: ``text`` ends the supervisor's line if the
    driver ends without finishing (e.g. ``"; continue with: nc2600 run --resume OUT"``); the
    last one given counts. Does nothing in any other process."""
    import json
    if _SUPERVISOR_FD is not None:
        try:
            os.write(_SUPERVISOR_FD, f"hint {json.dumps(text)}\n".encode())
        except OSError:
            pass


class _own_group_for_ray_daemons:
    """In a driver under :func:`supervised_driver`: the process moves into a new process group
    of its own while Ray starts its daemons (they inherit it) and back into the caller's group
    afterwards, so that a Ctrl-C or SIGTERM to the caller's group reaches the driver, which stops
    Ray, and not the daemons under it. Elsewhere (no supervisor: the process may lead its group)
    nothing changes."""

    def __enter__(self):
        self.group = None
        if _SUPERVISOR_FD is not None:
            try:
                self.group = os.getpgrp()
                os.setpgid(0, 0)
            except OSError:
                self.group = None
        return self

    def __exit__(self, *exc):
        if self.group is not None:
            try:
                os.setpgid(0, self.group)
            except OSError:
                pass
        return False


def check_cluster_options(args) -> None:
    """UserError for ``--ray-address`` without ``--cluster ray``, or a head that cannot be
    reached (checked here, before a sweep prints anything)."""
    address = getattr(args, "ray_address", None)
    if address is not None and getattr(args, "cluster", "local") != "ray":
        raise UserError("--ray-address needs --cluster ray")
    if address is not None:
        _check_reachable(address)


def ray_imap(fn: Callable, items: Iterable, address: str | None = None, num_cpus: int = 2,
             cpus_per_item: float = 1.0, ordered: bool = True):
    """Like ``multiprocessing.Pool.imap`` (``imap_unordered`` with ``ordered=False``): ``fn(item)``
    for every item as a Ray task (one CPU each), results yielded in item order as they become
    available (or in the order the tasks finish). ``fn`` must be a module-level
    function importable on every node. A task whose worker process or node dies is run again
    by Ray (``max_retries``), so every item yields exactly one result. Joins the cluster at
    ``address`` (or starts an embedded Ray with ``num_cpus``) through :func:`connect`, and
    disconnects when the generator ends or is closed.

    Raises:
        UserError: as :func:`connect`.
    """
    items = list(items)
    cluster = connect(address, num_cpus)
    ray = cluster.ray
    try:
        task = ray.remote(num_cpus=cpus_per_item, max_retries=3)(fn)
        refs = [task.remote(item) for item in items]
        if ordered:
            for ref in refs:
                # as below: a wait with a timeout hands control back to Python every second, so a
                # SIGINT/SIGTERM handler runs even when its signal came just before a blocking call
                while not ray.wait([ref], num_returns=1, timeout=1.0)[0]:
                    pass
                yield ray.get(ref)
        else:
            while refs:
                # a timeout hands control back to Python every second (a SIGTERM's handler)
                done, refs = ray.wait(refs, num_returns=1, timeout=1.0)
                for ref in done:
                    yield ray.get(ref)
    finally:
        cluster.close()
