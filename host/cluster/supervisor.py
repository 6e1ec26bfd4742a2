"""A Ray driver under a supervisor process: signals reach the driver, which stops Ray in order
(:func:`supervised_driver`, the CLI runs every Ray driver under it), and the process group Ray's
daemons start in (:class:`_own_group_for_ray_daemons`).
"""
from __future__ import annotations

import os
import sys
import time
from typing import Callable


#: the pipe to the supervising process, in a driver started by :func:`supervised_driver`
_SUPERVISOR_FD: int | None = None


def supervised_driver(body: Callable[[], int]) -> int:
    """Run ``body`` (a command's work as a Ray driver: returns its exit code, its errors already
    turned into their one line) in a forked child process, and wait for it here; returns the
    exit code for this process.

    Why: Ray 2.60's core ends a driver at once with exit status 1 and no word on stderr when the
    local raylet has died (``plasma::StoreConn::ExitIfErrorStatus`` -> ``QuickExit``: any use of
    the object store after that death, such as the object recovery that the resubmission of a
    lost actor task starts). A SIGTERM sent to the whole process group of an embedded Ray would
    end the raylet too, so the driver could be ended before its SIGTERM handler ran
    (``test_embedded_ray_writes_no_token_home_and_group_sigterm_is_sigterm`` checks it does not).

    So: the driver (the child) stays in the caller's process group, but :func:`connect` starts
    Ray's daemons from a process group of their own (:func:`_own_group_for_ray_daemons`), which
    a Ctrl-C or a SIGTERM to the caller's group does not reach: the driver gets the signal and
    stops Ray in order. This process (the supervisor) forwards SIGINT and SIGTERM (the driver
    ignores a second one while it stops), gives the driver SIGTERM if it dies itself
    (``PR_SET_PDEATHSIG``), and reports a driver that still ends without its exit code (every
    process signalled, as a batch scheduler may do; a raylet that crashed; SIGKILL) in one line:
    after SIGINT/SIGTERM as the interrupted command (exit 130), else as an error (exit 1); either
    line ends with the hint the driver gave through :func:`set_interrupt_hint` (e.g. the
    ``--resume`` command). It returns once the driver has ended and what the driver wrote to its
    pipe is read (:func:`_read_driver_pipe`), whatever a process forked from the driver that holds
    the pipe open still writes. POSIX only (``os.fork``).
    """
    import signal
    import threading
    stops = (signal.SIGINT, signal.SIGTERM)
    started = time.monotonic()
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
            from nc2600.host.episodes.processes import signal_when_parent_ends
            signal_when_parent_ends(parent, signal.SIGTERM)
            signal.signal(signal.SIGCHLD, old_chld)
            from nc2600.host.signals import on_sigint, on_sigterm
            for sig, usual in ((signal.SIGINT, (signal.default_int_handler, on_sigint)),
                               (signal.SIGTERM, (on_sigterm,))):
                if signal.getsignal(sig) in usual:
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
                from nc2600.host.signals import interrupt_name
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
    ended = threading.Event()                      # set once waitpid has the driver's status
    got: dict = {"rc": None, "hint": ""}           # the driver's last exit code and hint lines
    reader = threading.Thread(target=_read_driver_pipe, args=(r, ended, got), name="nc2600-driver-pipe",
                              daemon=True)
    reader.start()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
    try:
        status = _wait_with_handlers(pid)
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    # no time limit here: once ``ended`` is set the reader takes only what the pipe holds at
    # that moment (a deadline would drop the driver's exit code when the reader thread is not
    # scheduled in time on a loaded machine)
    ended.set()
    reader.join()
    rc, hint = got["rc"], got["hint"]
    if rc is not None:
        return rc
    _remove_files_of_ended_evaluators(time.time() - time.monotonic() + started)
    code = os.waitstatus_to_exitcode(status)
    if seen:
        how = "terminated (SIGTERM)" if signal.SIGTERM in seen else "interrupted"
        sys.stderr.write(f"nc2600: {how}{hint}\n")
        return 130
    how = f"killed by signal {-code}" if code < 0 else f"exit status {code}" + \
        ("; Ray's core ends a driver whose local raylet died" if code == 1 else "")
    sys.stderr.write(f"nc2600: error: the Ray driver process ended without finishing ({how}){hint}\n")
    return 1


def _pipe_bytes(fd: int) -> int:
    """Bytes readable from the pipe ``fd`` now, without blocking (``FIONREAD``)."""
    import array
    import fcntl
    import termios
    n = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, n, True)
    return n[0]


def _read_driver_pipe(fd: int, ended, got: dict) -> None:
    """The supervisor's reader of the driver's pipe ``fd`` (closed when it returns): ``got["rc"]``
    (int) and ``got["hint"]`` (str) become the last ``rc N`` and ``hint JSON`` lines read; a line
    that is neither, or does not parse, is skipped. Each line is written with one ``os.write``
    (:func:`set_interrupt_hint`, the driver's exit code); POSIX keeps a write of at most
    ``PIPE_BUF`` (4,096) bytes whole, so such lines of several writers do not interleave.

    Until ``ended`` (a :class:`threading.Event`) is set, i.e. while the driver runs, the pipe is
    drained as written (every :data:`WAIT_POLL_S` seconds at most), so a writer never blocks on
    it. Once ``ended`` is set, the driver has exited and everything it wrote is in the pipe: the
    reader takes the bytes the pipe holds at that moment (``FIONREAD``, at most the pipe's
    capacity, 64 KiB by default on Linux) and returns; it also returns at EOF. So a process forked
    from the driver (not exec'd) that keeps the pipe open, idle or writing, never holds the
    supervisor, and what it writes after the driver's exit is not read. Memory: the longest line.
    """
    import json
    import select

    partial = bytearray()

    def take(chunk: bytes) -> None:
        partial.extend(chunk)
        *lines, rest = partial.split(b"\n")
        partial[:] = rest
        for line in lines:
            kind, _, value = line.decode(errors="replace").partition(" ")
            try:
                if kind == "rc":
                    got["rc"] = int(value)
                elif kind == "hint":
                    got["hint"] = str(json.loads(value))
            except ValueError:
                pass
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    try:
        while not ended.is_set():
            if poller.poll(1000 * WAIT_POLL_S):
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return
                take(chunk)
        left = _pipe_bytes(fd)
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                return
            take(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)


#: the most seconds the supervisor waits for this command's evaluators on this machine to end
FILES_WAIT_S = 5.0


def _started_at(pid: int) -> float | None:
    """Start time of process ``pid`` (seconds since the epoch, from /proc), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            ticks = int(fh.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/stat", "rb") as fh:
            boot = next(int(ln.split()[1]) for ln in fh if ln.startswith(b"btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _remove_files_of_ended_evaluators(since: float) -> None:
    """After a driver that ended without its exit code (e.g. every process of the run signalled,
    Ray's daemons included, so that neither the driver nor a Ray task removed anything): wait up
    to :data:`FILES_WAIT_S` seconds for the evaluator processes on this machine that started
    after ``since`` (this command's, as far as this machine can tell) and own a ROM folder or a
    shared segment, then remove the files of every nc2600 process that no longer runs
    (:func:`remove_stale_rom_dirs`,
    :func:`nc2600.host.episodes.processes.remove_stale_segments`, which every new evaluator also does)."""
    import re
    import tempfile

    from nc2600.host.episodes.processes import SHM_DIR, pid_running, remove_stale_segments
    names = []
    for folder, pattern in ((tempfile.gettempdir(), r"nc2600-rom-(\d+)-\w+"), (SHM_DIR, r"nc2600-(\d+)-[0-9a-f]+")):
        try:
            names += [int(m.group(1)) for m in map(lambda n: re.fullmatch(pattern, n), os.listdir(folder)) if m]
        except OSError:
            pass
    ours = {pid for pid in names if (_started_at(pid) or 0.0) >= since - 1.0}
    end = time.monotonic() + FILES_WAIT_S
    while any(pid_running(pid) for pid in ours) and time.monotonic() < end:
        time.sleep(0.1)
    remove_stale_rom_dirs()
    remove_stale_segments()


#: seconds between the supervisor's looks at its driver (the most a forwarded signal waits)
WAIT_POLL_S = 0.05


def _wait_with_handlers(pid: int) -> int:
    """``os.waitpid(pid, 0)``'s status, but with Python's signal handlers run at least every
    :data:`WAIT_POLL_S` seconds while the child lives. A blocking ``waitpid`` is not enough: a
    signal whose C handler runs after the interpreter's last look at its pending handlers and
    before the call enters the kernel does not interrupt the call (no EINTR), so its Python
    handler (the forward to the driver) waits until the driver has ended by itself
    (``test_sigint_to_the_supervisor_alone_reaches_the_driver`` checks the forward)."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return status
        time.sleep(WAIT_POLL_S)


_FIRST_STOP: float | None = None     #: time.monotonic() of the driver's first SIGINT/SIGTERM
STOP_ECHO_S = 1.0                    #: a second signal within this many seconds is the same stop


def _stop_once(signum, frame) -> None:
    """The driver's SIGINT and SIGTERM handler (under :func:`supervised_driver`): KeyboardInterrupt
    (:class:`nc2600.host.signals.Terminated` for SIGTERM), but not again while one is being handled or
    within :data:`STOP_ECHO_S` of the first: a signal sent to the process group reaches the driver
    itself and again through the supervisor, and the second must not cut the first one's cleanup
    short (a Ctrl-C pressed again later does interrupt it)."""
    global _FIRST_STOP
    import signal

    from nc2600.host import signals
    if signum == signal.SIGTERM:
        signals._SIGTERM_RECEIVED = True          # the stop line says SIGTERM either way
    now = time.monotonic()
    if isinstance(sys.exc_info()[1], KeyboardInterrupt) or \
            (_FIRST_STOP is not None and now - _FIRST_STOP < STOP_ECHO_S):
        return
    if signals.defer_if_importing(signum, frame):   # never inside an import: sent again after it
        return
    _FIRST_STOP = now
    signals._announce_stop(signum)                # "stopping ..." on a terminal, at once
    raise signals.Terminated() if signum == signal.SIGTERM else KeyboardInterrupt


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


def remove_stale_rom_dirs(folder: str | None = None) -> list[str]:
    """Remove the ROM folders (``nc2600-rom-<pid>-*`` in the temporary folder) of node actors
    whose process no longer exists (a SIGKILLed actor cannot remove its own); returns their
    names. Folders of running processes, and of other names, are left alone."""
    import re
    import shutil
    import tempfile

    from nc2600.host.episodes.processes import pid_running
    folder = folder or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        m = re.fullmatch(r"nc2600-rom-(\d+)-\w+", name)
        if m and int(m.group(1)) != os.getpid() and not pid_running(int(m.group(1))):
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
            removed.append(name)
    return removed
