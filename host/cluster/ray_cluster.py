"""The connection to Ray: joining a cluster or starting an embedded one, and the checks that every
node runs the same code (``--cluster ray [--ray-address ADDR]``); and Ray tasks for sweeps
(:func:`ray_imap`: ``lockstep --all``, ``games verify --all``).

Before a run directory is created, :func:`connect` joins (or starts) Ray and checks every node
with a small probe task: the node must import this package, and report the same versions of
Python, nc2600, numpy, ale-py and Ray and the same source fingerprint
(:func:`source_fingerprint`) as the driver; otherwise :class:`~nc2600.host.errors.UserError` (one
line, exit 2).
"""
from __future__ import annotations

import hashlib
import logging
import os
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from nc2600.host.cluster.supervisor import _own_group_for_ray_daemons
from nc2600.host.errors import UserError
from nc2600.host.signals import stopping

RAY_VERSION = "2.60.0"            #: the tested Ray (constraints.txt; the extra nc2600[ray])
PROBE_TIMEOUT_S = 120.0           #: a node that does not answer the probe within this is an error
CONNECT_TIMEOUT_S = 5.0           #: TCP check of --ray-address before Ray's own (long) retries
#: The longest a driver's ``ray.wait`` blocks (seconds): Python runs a signal's handler only when
#: control returns from C++, and a blocked ``ray.wait`` returns at its timeout, so this bounds how
#: late a SIGINT/SIGTERM starts the stop (a 1 s poll made a stop under load take up to 3.2 s).
SIGNAL_POLL_S = 0.1
_PACKAGES = ("host", "hls_models", "hw")  #: source folders covered by the fingerprint


# -- what a node must agree on ---------------------------------------------------------
def source_fingerprint() -> str:
    """SHA-256 (first 16 hex digits) over the ``.py`` files of ``host``, ``hls_models`` and
    ``hw`` (relative path and bytes, sorted by path) as installed on this machine. Two nodes
    with the same fingerprint run the same evaluation code. The paths are relative to the
    package's root (the checkout, or a wheel's ``nc2600/``: the same layout), so a checkout and a
    wheel of the same source agree."""
    from nc2600.hwtools.cache import PACKAGE_ROOT
    root = PACKAGE_ROOT
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
        raise UserError(f"--cluster ray needs Ray {RAY_VERSION} (pip install 'nc2600[ray]' ray=={RAY_VERSION}; "
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
    good (a later ``ray start --head`` on the machine then requires it). Give the
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


def pushed_errors_to_stderr() -> None:
    """Print the errors Ray's cluster pushes to this driver on ``sys.stderr`` instead of
    ``sys.stdout``. Ray 2.60's driver prints them from a thread (``listen_error_messages`` in
    ``ray/_private/worker.py``, through the module's ``print_to_stdstream``, whatever
    ``log_to_driver`` says), e.g. "A worker died or was killed while executing a task" when an
    actor is SIGKILLed mid-run: on stdout they fell among the command's own output (its progress
    lines, or the JSON Lines of ``--json``). They are still printed, in full, as errors. Applies
    to the process; a second call changes nothing."""
    from ray._private import worker
    original = worker.print_to_stdstream
    if getattr(original, "nc2600_to_stderr", False):
        return

    def to_stderr(data: dict, ignore_prefix: bool) -> None:
        original({**data, "is_err": True}, ignore_prefix)
    to_stderr.nc2600_to_stderr = True
    worker.print_to_stdstream = to_stderr


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


@dataclass
class NodeInfo:
    """One node of the cluster as the probe saw it."""
    node_id: str
    ip: str
    cpus: int


class RayCluster:
    """A connection to Ray: the driver side of ``--cluster ray``.

    Use :func:`connect` to make one; :class:`nc2600.host.cluster.ray_evaluator.RayEvaluator` builds the per-node actors
    on it; :meth:`close` disconnects (and stops the embedded instance if this process started it).
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

    def close(self) -> None:
        """Disconnect; an embedded Ray's daemons end with it. When the command is stopping on a
        signal, the embedded daemons are killed at once (SIGKILL, reaped) before
        ``ray.shutdown``: the node actors have already stopped their emulator processes and
        removed their files (:meth:`nc2600.host.cluster.ray_evaluator.RayEvaluator.close`), and
        Ray's graceful path (SIGTERM, then a wait per daemon) would take most of the stop's
        2 s budget."""
        try:
            if self.ray.is_initialized():
                if self.started_here and stopping():
                    _daemons_killed_at_shutdown()
                self.ray.shutdown()
        finally:
            if self.native_stderr is not None:
                self.native_stderr.restore()
                self.native_stderr = None
        if self.own_token:                       # the embedded instance's token goes with it
            os.environ.pop("RAY_AUTH_TOKEN", None)
            self.own_token = False


def _daemons_killed_at_shutdown() -> None:
    """Make the next ``ray.shutdown`` end the daemons of the Ray this process started (raylet,
    GCS, dashboard ...) with SIGKILL, reaped, instead of SIGTERM and a wait per daemon: Ray 2.60's
    shutdown disconnects the driver first, then calls its node handle's ``kill_all_processes``
    (``ray._private.worker._global_node``), whose keywords this forces. Killing the daemons before
    the disconnect instead makes the driver wait on them (a slower stop). Nothing when that
    handle is absent (another Ray version: the graceful path)."""
    try:
        from ray._private import worker
        node = getattr(worker, "_global_node", None)
        if node is None or not callable(getattr(node, "kill_all_processes", None)):
            return
        graceful = node.kill_all_processes

        def at_once(*args, **kwargs):
            kwargs.update(allow_graceful=False, wait=True)
            return graceful(*args, **kwargs)
        node.kill_all_processes = at_once
    except Exception:  # noqa: BLE001 - the graceful path
        pass


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
            from nc2600.host.signals import on_sigterm
            try:
                if ray.is_initialized():
                    ray.shutdown()
            finally:
                if own_token:
                    os.environ.pop("RAY_AUTH_TOKEN", None)
            on_sigterm(signal.SIGTERM, None)    # raises nc2600.host.signals.Terminated
        if failure is not None:
            if own_token:
                os.environ.pop("RAY_AUTH_TOKEN", None)
            if "InvalidAuthToken" in captured.text or "Unauthenticated" in captured.text:
                failure = ("the head requires Ray's authentication token: copy its ~/.ray/auth_token "
                           "(`ray get-auth-token` on the head) to this machine or set RAY_AUTH_TOKEN")
            raise UserError(f"cannot {'start Ray' if address is None else 'join the Ray cluster at ' + address}: "
                            f"{failure}")
        pushed_errors_to_stderr()
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


# -- sweeps (lockstep --all, games verify --all) -------------------------------------------
def add_cluster_options(parser) -> None:
    """``--cluster local|ray`` and ``--ray-address HOST:PORT`` for a sweep command."""
    parser.add_argument("--cluster", choices=("local", "ray"), default="local",
                        help="local: --jobs processes here; ray: one Ray task per item on a Ray cluster")
    parser.add_argument("--ray-address", metavar="HOST:PORT", default=None,
                        help="with --cluster ray: the head of a running cluster (default: an embedded "
                             "local Ray with --jobs CPUs)")



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
                # as below: a wait with a timeout hands control back to Python (SIGNAL_POLL_S), so a
                # SIGINT/SIGTERM handler runs even when its signal came just before a blocking call
                while not ray.wait([ref], num_returns=1, timeout=SIGNAL_POLL_S)[0]:
                    pass
                yield ray.get(ref)
        else:
            while refs:
                # a timeout hands control back to Python (SIGNAL_POLL_S: a signal's handler)
                done, refs = ray.wait(refs, num_returns=1, timeout=SIGNAL_POLL_S)
                for ref in done:
                    yield ray.get(ref)
    finally:
        cluster.close()
