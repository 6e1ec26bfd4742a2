"""The stop signals of every command: SIGINT (Ctrl-C) and SIGTERM.

Both stop a command the same way (a KeyboardInterrupt in the main thread; SIGTERM as its
subclass :class:`Terminated`), once per stop, never inside an import, and never lost where
Python drops an exception (:func:`redeliver_swallowed_interrupts`). Worker processes are
forked with the signals held (:func:`stop_signals_held`) and set their own
(:func:`worker_signals`). The CLI installs the handlers (:func:`nc2600.host.cli.install_sigterm_handler`)
and reports the stop in one line (:func:`interrupt_name`).
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys


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
    handler in its middle (ale-py 0.12's nanobind module, imported on a run's first ROM
    look-up, ends the process with SIGSEGV, or with SIGABRT after ``terminate called after
    throwing an instance of 'nanobind::python_error'``). Sent again, the signal stops the
    command as soon as the import is done."""
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
    (:func:`defer_if_importing`: a Ctrl-C during ``import ale_py`` can end the process with
    SIGSEGV or SIGABRT, as a SIGTERM can)."""
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
    Python prints "Exception ignored" and goes on (the stop is lost and the command exits 0),
    and a child forked before it set its own
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
    "Exception ignored in ..." and lost, and the command would go on. Instead the same signal is sent again to the main
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


_WORKER_SIGTERM_SEEN = False      # a pool worker's first SIGTERM has raised (exit_on_sigterm)


def exit_on_sigterm(signum, frame):
    """SIGTERM handler of a pool worker (a sweep's, the fabric evaluator's): the first SIGTERM
    raises SystemExit (the worker unwinds, releasing the pool's locks); a
    later one ends the process at once with the same status. A worker that has begun to exit
    gets a second SIGTERM from ``Pool.terminate()`` (after a SIGTERM to the whole process
    group), often while the interpreter is finalising: raised there, SystemExit is printed as
    "Exception ignored in ... threading._shutdown" with a traceback (seen in CI)."""
    global _WORKER_SIGTERM_SEEN
    if _WORKER_SIGTERM_SEEN:
        import os
        os._exit(128 + signum)
    _WORKER_SIGTERM_SEEN = True
    raise SystemExit(128 + signum)
