"""Progress lines for long work whose output may be redirected: a line at least every
:data:`HEARTBEAT_S` seconds.

One mechanism for every long command: ``nc2600 run`` (between its generation lines, when no
progress bar is shown), ``nc2600 lockstep`` and ``nc2600 games verify`` (between the rows of
their tables, while a long game runs). A :class:`Heartbeat` remembers when the command last
printed a line; :meth:`Heartbeat.beat` prints a status line once :data:`HEARTBEAT_S` seconds
have passed without one, and :meth:`Heartbeat.running` calls it from a background thread for
work that cannot call back (a game running in this process or in a worker process).
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable

HEARTBEAT_S = 30.0    #: a line at least this often (seconds) during long work


def stderr_line(msg: str) -> None:
    """Write ``msg`` and a newline to stderr in one call, flushed (safe from a thread)."""
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


class Heartbeat:
    """A status line when no line was printed for ``period`` seconds.

    Args:
        write: prints one line (default :func:`stderr_line`: stdout stays the command's result).
        period: seconds (default :data:`HEARTBEAT_S`, read when the heartbeat is made).
        clock: monotonic seconds (tests pass a fake clock).
    """

    def __init__(self, write: Callable[[str], None] = stderr_line, period: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.write, self.clock = write, clock
        self.period = HEARTBEAT_S if period is None else float(period)
        self.last = clock()
        self._lock = threading.Lock()

    def mark(self) -> None:
        """The command printed a line just now (restarts the period)."""
        self.last = self.clock()

    def due(self, early: float = 0.0) -> bool:
        """``period - early`` seconds or more since the last line."""
        return self.clock() - self.last >= self.period - early

    def say(self, msg: str) -> None:
        """Print ``msg`` with ``write`` and restart the period."""
        with self._lock:
            self.write(msg)
            self.mark()

    def beat(self, status: Callable[[], str], early: float = 0.0) -> bool:
        """Print ``status()`` if a line is due (:meth:`due`); True when one was printed."""
        with self._lock:
            if not self.due(early):
                return False
            self.write(status())
            self.mark()
            return True

    @contextlib.contextmanager
    def running(self, status: Callable[[], str]):
        """Within the block, a daemon thread calls :meth:`beat` (``status()`` gives the line)
        every ``tick = min(1 s, period / 4)`` and prints once ``period - tick`` seconds have
        passed, so a line comes at most ``period`` seconds after the last one however long
        one step of the work takes."""
        stop = threading.Event()
        tick = min(1.0, self.period / 4)

        def loop():
            while not stop.wait(tick):
                self.beat(status, early=tick)

        t = threading.Thread(target=loop, name="heartbeat", daemon=True)
        t.start()
        try:
            yield self
        finally:
            stop.set()
            t.join()
