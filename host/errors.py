"""User-facing errors of the nc2600 command line, and the checks that raise them.

Any code path that rejects user input (unknown game, bad ROM, bad option value,
missing file) raises :class:`UserError`. ``nc2600`` catches it, prints one line
``nc2600: error: <message>`` on stderr and exits with code 2, never a traceback
(:func:`guarded`, which every command runs under).

The argparse types here are the one family every command uses for numbers: each parses
a decimal (or 0x/0o/0b-prefixed) integer, or a finite float, and checks a closed range,
so that ``inf``, ``nan``, ``1e300`` or a 20-digit count is refused by the parser with
one line (``nc2600 CMD: error: argument --X: expected ...``) before any work starts.
"""
from __future__ import annotations

import contextlib
import errno
import math
import os
import signal
import stat
import sys


class UserError(Exception):
    """Bad input from the user; printed as one line, exit code 2."""


#: seeds: ALE, numpy and the run's generator all accept 0 .. 2**31 - 1 (ALE takes an int)
SEED_MAX = 2**31 - 1
#: largest count any option accepts when it has no narrower limit (an int64 stays exact)
COUNT_MAX = 2**53


def _int(text: str) -> int:
    """Decimal (leading zeros allowed, ``_`` separators) or 0x/0o/0b-prefixed integer in ASCII
    characters; raises ValueError (also for more than 40 characters: nothing here needs that
    many, and for other scripts' digits, e.g. Arabic-Indic ``٣``, which Python's ``int`` takes)."""
    if len(text) > 40 or not text.isascii():
        raise ValueError(text)
    try:
        return int(text, 10)
    except ValueError:
        return int(text, 0)


def _float(text: str) -> float:
    """A finite float in ASCII characters; raises ValueError for inf, nan, overflow (``1e999``)
    and other scripts' digits (Python's ``float`` takes ``٣``)."""
    if len(text) > 40 or not text.isascii():
        raise ValueError(text)
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _fmt(x) -> str:
    return f"{x:,}".replace(",", "_") if isinstance(x, int) and abs(x) >= 100_000 else f"{x:g}" if isinstance(x, float) else str(x)


def int_range(lo: int, hi: int = COUNT_MAX, what: str | None = None):
    """argparse type: an integer in ``[lo, hi]``. ``what`` names the value in the message."""
    desc = what or f"an integer in [{_fmt(lo)}, {_fmt(hi)}]"
    return _checked(_int, lambda v: lo <= v <= hi, desc)


def float_range(lo: float, hi: float, *, lo_open: bool = False, what: str | None = None):
    """argparse type: a finite float in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``)."""
    if what:
        desc = what
    elif lo_open and lo == 0:
        desc = f"a positive number, at most {_fmt(float(hi))}"
    else:
        desc = f"a number in {'(' if lo_open else '['}{_fmt(float(lo))}, {_fmt(float(hi))}]"
    ok = (lambda v: lo < v <= hi) if lo_open else (lambda v: lo <= v <= hi)
    return _checked(_float, ok, desc)


def _checked(parse, ok, what: str):
    """An argparse type: ``parse(text)`` then ``ok(value)``, else ``ArgumentTypeError`` naming ``what``."""
    import argparse

    def convert(text: str):
        try:
            value = parse(text)
        except (ValueError, OverflowError):
            value = None
        if value is None or not ok(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text[:60]!r}")
        return value
    convert.__name__ = what  # argparse names the type in some messages
    return convert


def mac_lanes(text: str) -> int:
    """argparse type: a policy-engine MAC-lane count, by the engine's own rule
    (:func:`nc2600.hls_models.policy_engine.check_lanes`: a multiple of 4 in 4..256), as ``synth`` checks it."""
    import argparse
    from nc2600.hls_models.policy_engine import check_lanes
    try:
        return check_lanes(_int(text))
    except ValueError:
        try:
            check_lanes(-1)
        except ValueError as exc:          # the rule's own words, with the text given
            rule = str(exc).rsplit(", got", 1)[0]
        raise argparse.ArgumentTypeError(f"{rule}, got {text[:60]!r}") from None


mac_lanes.__name__ = "MAC-lane count"


def array_shape(text: str) -> tuple[int, int]:
    """argparse type: an array-engine shape ``RxC`` (``16x16``; ``X`` also) as ``(rows, cols)``,
    two decimal integers that the engine's own rule (:func:`nc2600.hls_models.policy_array.check_shape`)
    accepts for at least one network of :data:`nc2600.hls_models.networks.NETWORKS` (``64x16`` tiles the
    nature network only). A command checks the shape further for the network or instance it
    builds (e.g. :func:`nc2600.hwtools.instance_harness.check_config`); when no network takes it, the
    message is the small network's rule, e.g. ``rows must be one of (4, 8, 16, 32, 64), got 0``.

    Raises:
        argparse.ArgumentTypeError: not ``ROWSxCOLS`` (``16x``, ``16x16x2``, ``abc``, a sign), or
            a shape no network takes (``0x16``, ``12x12``, ``8x16``).
    """
    import argparse
    import re

    from nc2600.hls_models.networks import NETWORKS
    from nc2600.hls_models.policy_array import check_shape
    m = re.fullmatch(r"([0-9]{1,6})[xX]([0-9]{1,6})", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLS, e.g. 16x16, got {text[:60]!r}")
    rows, cols = int(m[1]), int(m[2])
    first = None
    for network in ("small", *sorted(set(NETWORKS) - {"small"})):
        try:
            return check_shape(rows, cols, network)
        except ValueError as exc:
            first = first or exc
    raise argparse.ArgumentTypeError(f"{text!r}: {first}")


array_shape.__name__ = "array shape"


def ascii_int(text: str) -> int:
    """argparse type for an option with ``choices`` (``--colour-clocks {1,3}``): an integer
    written in ASCII (Python's ``int`` takes ``٣`` as 3); ValueError otherwise, which argparse
    reports as an invalid value."""
    return _int(text)


ascii_int.__name__ = "integer"

#: argparse type: an integer in [1, 2**53]
positive_int = int_range(1, COUNT_MAX, "a positive integer (at most 2**53)")
#: argparse type: an integer in [0, 2**53]
non_negative_int = int_range(0, COUNT_MAX, "a non-negative integer (at most 2**53)")
#: argparse type: a seed in [0, 2**31 - 1]
seed_int = int_range(0, SEED_MAX, "a seed in [0, 2147483647]")
#: argparse type: a float in [0, 1]
probability = float_range(0.0, 1.0, what="a probability in [0, 1]")
#: argparse type: a finite float > 0 (at most 1e12)
positive_float = float_range(0.0, 1e12, lo_open=True, what="a positive finite number (at most 1e12)")

#: the fabric clocks a command models, in MHz: 1 kHz (below it nothing is a clocked fabric, and a
#: frame of 59,736 colour clocks would take over a minute) to 10 GHz
CLOCK_MHZ_MIN, CLOCK_MHZ_MAX = 0.001, 10_000.0
#: argparse type: a fabric clock in MHz, in [CLOCK_MHZ_MIN, CLOCK_MHZ_MAX]
clock_mhz = float_range(CLOCK_MHZ_MIN, CLOCK_MHZ_MAX, what="a clock in MHz in [0.001, 10000] (1 kHz to 10 GHz)")


# -- sizes bounded by the machine ---------------------------------------------------
def available_memory() -> int:
    """Bytes of memory a new allocation can use now: ``MemAvailable`` from /proc/meminfo
    (Linux), else physical memory from ``sysconf``."""
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh.read(1 << 16).decode().splitlines():
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def human_bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} EiB"


def require_memory(needed: int, what: str) -> None:
    """Raise UserError when ``needed`` bytes (for ``what``, e.g. ``"--population 1e9 (genomes)"``)
    exceed the memory available now (:func:`available_memory`)."""
    have = available_memory()
    if needed > have:
        raise UserError(f"{what} needs {human_bytes(needed)} of memory; this machine has "
                        f"{human_bytes(have)} available")


#: worker processes per core beyond which a command refuses to start: more cannot run at once,
#: they only add start-up time and memory (measured: ``bench host --workers 1000`` on 2 cores
#: forked 579 workers, load average 228, for 10 minutes)
MAX_WORKERS_PER_CORE = 16


def require_processes(n: int, what: str) -> None:
    """Raise UserError when ``n`` worker processes (for ``what``, e.g. ``"--workers 1000"``)
    exceed :data:`MAX_WORKERS_PER_CORE` per core of this machine, or this user's process
    limit (``RLIMIT_NPROC``)."""
    cores = os.cpu_count() or 1
    if n > MAX_WORKERS_PER_CORE * cores:
        raise UserError(f"{what} starts {n:,} worker processes on {cores} core{'s' if cores > 1 else ''}; "
                        f"at most {MAX_WORKERS_PER_CORE * cores:,} ({MAX_WORKERS_PER_CORE} per core) are accepted")
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    except (ImportError, AttributeError, OSError, ValueError):
        return
    if soft != resource.RLIM_INFINITY and n >= soft:
        raise UserError(f"{what} starts {n:,} worker processes; this user may run {soft:,} processes (ulimit -u)")


# -- input files --------------------------------------------------------------------
def file_kind(mode: int) -> str:
    """``"a folder"``, ``"a FIFO"``, ``"a device"``, ``"a socket"`` or ``"not a regular file"``
    for a non-regular file's ``st_mode`` (the words of the refusals)."""
    return ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def read_regular_file(path, max_bytes: int, what: str = "file") -> bytes:
    """The contents of ``path``, which must be a regular file of at most ``max_bytes`` bytes.

    Opened non-blocking (a FIFO with no writer does not hang the open), checked with fstat
    (FIFOs, character devices such as /dev/zero, sockets and folders are refused), then at
    most ``max_bytes + 1`` bytes are read, so a file that grows or lies about its size cannot
    make the read unbounded.

    Raises:
        UserError: missing, unreadable, not a regular file, or larger than ``max_bytes``.
    """
    name = os.fspath(path)
    if name == "":
        raise UserError(f"{what} path is empty")
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UserError(f"cannot read {what} {name!r}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"{what} {name!r} is {file_kind(st.st_mode)}; give a regular file")
        limit = f"{max_bytes // 1024} KiB" if max_bytes % 1024 == 0 else f"{max_bytes:,} bytes"
        if st.st_size > max_bytes:
            raise UserError(f"{what} {name!r} is larger than {limit} ({st.st_size:,} bytes)")
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise UserError(f"cannot read {what} {name!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise UserError(f"{what} {name!r} is larger than {limit}")
    return data


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, systemd, batch schedulers), handled exactly like Ctrl-C."""


_SIGTERM_RECEIVED = False
_DROPPED: KeyboardInterrupt | None = None    # an interrupt Python dropped, not raised again yet
_IN_HOOK = False                             # redeliver_swallowed_interrupts is running


#: seconds after which a stop signal that arrived inside an import is sent again
IMPORT_RETRY_S = 0.005


def inside_import(frame) -> bool:
    """Whether ``frame`` (a signal handler's) runs inside the import system: a frame of its
    stack is importlib's bootstrap code (a module's import, including a C extension's
    initialiser, which runs under ``importlib._bootstrap``)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False


def defer_if_importing(signum: int, frame) -> bool:
    """In a stop signal's handler: when it runs inside an import (:func:`inside_import`), send
    the same signal to the main thread again :data:`IMPORT_RETRY_S` seconds later and return
    True (the handler then raises nothing); else False.

    Why: a C extension's initialiser does not survive a Python exception raised by a signal
    handler in its middle (measured: ale-py 0.12's nanobind module, imported on a run's first
    ROM look-up about 1.5 s in, ended the process with SIGSEGV, or with SIGABRT after
    ``terminate called after throwing an instance of 'nanobind::python_error'``, in 4 of 144
    SIGTERMs sent 1.40-1.65 s into a small run on a loaded 2-core machine). Sent again, the
    signal stops the command as soon as the import is done."""
    if not inside_import(frame):
        return False
    return send_again(signum, IMPORT_RETRY_S)


def send_again(signum: int, delay_s: float) -> bool:
    """Send ``signum`` to the main thread again ``delay_s`` seconds from now, from a helper
    thread (daemon; the signal's handler then runs in the main thread at its next bytecode).
    Returns False when no thread can be started (the interpreter is shutting down), else True."""
    import threading
    timer = threading.Timer(delay_s, signal.pthread_kill, (threading.main_thread().ident, signum))
    timer.daemon = True
    try:
        timer.start()
    except RuntimeError:
        return False
    return True


#: seconds after a stop's first signal during which another stop signal is the same stop: it
#: does not raise again (a second Ctrl-C, or a signal to the process group that also reaches the
#: process through a child, would cut the cleanup short: a shared-memory segment, a worker or a
#: temporary folder left behind); the cleanup then takes well under this (workers are killed,
#: not waited for). A signal after it interrupts again (a cleanup that hangs can still be left).
STOP_GRACE_S = 10.0

_STOP_STARTED: float | None = None           # time.monotonic() of the stop's first signal


def reset_stop() -> None:
    """Forget an earlier stop (a new command in the same process: the CLI's :func:`main`)."""
    global _STOP_STARTED, _SIGTERM_RECEIVED, _DROPPED
    _STOP_STARTED = None
    _SIGTERM_RECEIVED = False
    _DROPPED = None


def stopping() -> bool:
    """Whether a stop signal has been raised in this process (and not :func:`reset_stop`)."""
    return _STOP_STARTED is not None


def _already_stopping() -> bool:
    """True when a stop is under way (its first signal raised less than :data:`STOP_GRACE_S` ago,
    and not dropped by Python since): the caller's signal is the same stop and raises nothing."""
    import time
    if _STOP_STARTED is None or _DROPPED is not None:
        return False
    return time.monotonic() - _STOP_STARTED < STOP_GRACE_S


def _announce_stop(signum: int) -> None:
    """Mark the stop as started and, on a terminal, say so at once on stderr ("nc2600: stopping
    on Ctrl-C ..."): the cleanup that follows (workers, Ray, shared memory) then runs under a
    visible line, on a line of its own even when a progress bar was being drawn (the bar's line is
    returned to and erased first). Not written to a pipe or file, whose reader gets the command's
    one last line."""
    global _STOP_STARTED
    import time
    first = _STOP_STARTED is None
    _STOP_STARTED = time.monotonic()
    try:
        if first and os.isatty(2):
            what = "SIGTERM" if signum == signal.SIGTERM else "Ctrl-C"
            # "\r" and erase-line (ECMA-48 EL, ESC [ K) first: a progress bar may hold the line
            os.write(2, f"\r\x1b[Knc2600: stopping on {what}: ending the workers and cleaning up ...\n".encode())
    except OSError:
        pass


def on_sigterm(signum, frame) -> None:
    """SIGTERM handler of every command: raise :class:`Terminated` in the main thread, unless
    the process is already stopping on a KeyboardInterrupt (a signal sent to the whole process
    group also ends the workers, whose deaths may surface first: a second exception then must
    not cut the first one's cleanup short), and never inside an import (sent again just after
    it, :func:`defer_if_importing`). Either way :func:`interrupt_name` reports SIGTERM."""
    global _SIGTERM_RECEIVED, _DROPPED
    _SIGTERM_RECEIVED = True
    if isinstance(sys.exc_info()[1], KeyboardInterrupt):
        return                      # already stopping
    if _IN_HOOK:
        # inside redeliver_swallowed_interrupts (where a raise is dropped again): the hook's own
        # re-sent signal may be this one, so it is sent once more, to arrive after the hook
        send_again(signum, IMPORT_RETRY_S)
        return
    if _already_stopping():
        return                      # the same stop: its cleanup goes on
    if defer_if_importing(signum, frame):
        return
    _DROPPED = None
    _announce_stop(signum)
    raise Terminated()


def on_sigint(signum, frame) -> None:
    """SIGINT (Ctrl-C) handler of every command: Python's own behaviour (KeyboardInterrupt in
    the main thread), once per stop (a second Ctrl-C within :data:`STOP_GRACE_S` lets the first
    one's cleanup finish, :func:`_already_stopping`), except inside an import, where it is sent again just after it
    (:func:`defer_if_importing`; measured: Ctrl-C during ``import ale_py`` in ``nc2600 games``
    ended the process with SIGSEGV or SIGABRT in 6 of 12 tries, as a SIGTERM did)."""
    global _DROPPED
    if _IN_HOOK:                    # as on_sigterm: a raise inside the hook would be dropped
        send_again(signum, IMPORT_RETRY_S)
        return
    if _already_stopping():         # a second Ctrl-C: the cleanup of the first goes on
        return
    if defer_if_importing(signum, frame):
        return
    _DROPPED = None
    _announce_stop(signum)
    raise KeyboardInterrupt


def sigterm_received() -> bool:
    """Whether this process has received a SIGTERM (handled by :func:`on_sigterm`)."""
    return _SIGTERM_RECEIVED


#: the signals a command stops on; held while forking (:func:`stop_signals_held`)
STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT})


@contextlib.contextmanager
def stop_signals_held():
    """Block SIGTERM and SIGINT in the calling thread for the ``with`` block; one that arrives
    meanwhile is delivered (its handler runs, :class:`Terminated` is raised) when the block
    ends, after the previous mask is restored.

    Used around ``fork``: a handler run inside ``os.fork`` raises in an at-fork hook, where
    Python prints "Exception ignored" and goes on (measured: a SIGTERM 1.5 s into ``run
    --workers 48`` was lost and the run exited 0), and a child forked before it set its own
    handlers would run the parent's. A child inherits the blocked mask (and threads started
    inside the block, e.g. a ``multiprocessing.Pool``'s, keep it): it sets its handlers,
    then calls :func:`worker_signals` or unblocks with ``pthread_sigmask``.
    """
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def worker_signals(sigterm=signal.SIG_DFL) -> None:
    """The signals of a worker process forked inside :func:`stop_signals_held`: SIGINT ignored
    (the parent, which gets the same Ctrl-C, stops its workers), SIGTERM ``sigterm`` (default:
    the default action, a quiet exit), then both unblocked (a SIGTERM sent to the process group
    during the fork is delivered now, to the worker's own handler: no traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, sigterm)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def redeliver_swallowed_interrupts(unraisable) -> None:
    """``sys.unraisablehook`` of the command line: a KeyboardInterrupt (Ctrl-C, or
    :class:`Terminated` from :func:`on_sigterm`) raised where Python cannot propagate it (a
    weakref callback, ``__del__``, an at-fork hook, a finaliser) would be printed as
    "Exception ignored in ..." and lost, and the command would go on (measured: a SIGTERM near
    the end of a run was swallowed this way). Instead the same signal is sent again to the main
    thread 1 ms later, from a helper thread: a signal made pending from inside this hook would
    run its handler at the hook's next bytecode, inside the same dropping context; 1 ms later the
    main thread is past it (were it in another such context, this hook runs again; were it
    still in this hook, on a loaded machine, the handler sends the signal once more). Other
    unraisable exceptions go to Python's default hook, except after a SIGTERM, when they are
    the stop's consequences and are not printed (the command's one line says it stopped)."""
    global _DROPPED, _IN_HOOK
    exc = unraisable.exc_value
    if isinstance(exc, KeyboardInterrupt):
        _DROPPED = exc
        sig = signal.SIGTERM if isinstance(exc, Terminated) or _SIGTERM_RECEIVED else signal.SIGINT
        _IN_HOOK = True             # a stop signal meanwhile is sent once more (on_sigterm, on_sigint)
        try:
            send_again(sig, 0.001)  # False: the interpreter is shutting down, it is stopping anyway
        finally:
            _IN_HOOK = False
        return
    if _SIGTERM_RECEIVED:
        # a consequence of the stop, printed by no one: e.g. imageio's GIF writer cut short by
        # the SIGTERM fails again in its __del__ ("unknown file extension"; measured)
        return
    sys.__unraisablehook__(unraisable)


def dropped_interrupt() -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM that Python dropped (:func:`redeliver_swallowed_interrupts`) and
    that has not been raised again yet, else None: a command that ends in that moment has still
    been stopped."""
    return _DROPPED


def interrupt_name(exc: BaseException) -> str:
    """``"terminated (SIGTERM)"`` when ``exc`` is :class:`Terminated` or this process got a
    SIGTERM, else ``"interrupted"`` (Ctrl-C): the words of the one-line exit message."""
    return "terminated (SIGTERM)" if isinstance(exc, Terminated) or _SIGTERM_RECEIVED else "interrupted"


#: file-system faults reported as one line and exit 2 wherever they surface (read-only or
#: full disk, a name too long, a folder where a file was expected, ...)
_FS_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.ENAMETOOLONG, errno.EISDIR,
              errno.ENOTDIR, errno.ENOENT, errno.EDQUOT, errno.EEXIST, errno.ELOOP, errno.EFBIG, errno.EXDEV,
              errno.ENOTEMPTY, errno.EBUSY, errno.ETXTBSY, errno.EMFILE, errno.ENFILE}


def guarded(body) -> int:
    """``body()``'s exit code, with the errors every command shares turned into one line on
    stderr: UserError and file-system faults exit 2, Ctrl-C/SIGTERM 130 (also any other exception
    once a SIGTERM has arrived: the stop it caused, and a return just after Python dropped an
    interrupt), a closed output pipe 141."""
    try:
        rc = body()
    except UserError as exc:
        sys.stderr.write(f"nc2600: error: {exc}\n")
        return 2
    except KeyboardInterrupt as exc:
        sys.stderr.write(f"nc2600: {interrupt_name(exc)}\n")
        return 130
    except Exception as exc:       # noqa: BLE001 - _other re-raises what it does not know
        if sigterm_received() and not (isinstance(exc, OSError) and exc.errno in _FS_ERRNOS):
            # a library stopped half-way by the signal can fail afterwards (e.g. a video
            # writer whose plugins were being loaded: "unknown file extension"): the SIGTERM's stop
            sys.stderr.write(f"nc2600: {interrupt_name(exc)}\n")
            return 130
        return _other(exc)
    if dropped_interrupt() is not None:       # stopped just as the command ended
        sys.stderr.write(f"nc2600: {interrupt_name(dropped_interrupt())}\n")
        return 130
    return int(rc or 0)


def _other(exc: Exception) -> int:
    """The exit of :func:`guarded` for an exception that is not a SIGTERM's consequence:
    a closed output pipe 141, a file-system fault one line and 2, anything else re-raised."""
    if isinstance(exc, BrokenPipeError):        # output piped into e.g. `head`: stop quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 141
    if isinstance(exc, OSError) and exc.errno in _FS_ERRNOS:
        where = f" {exc.filename!r}" if exc.filename else ""
        sys.stderr.write(f"nc2600: error: {exc.strerror or exc}{where}\n")
        return 2
    raise exc
