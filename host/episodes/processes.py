"""The operating-system helpers of the worker pools: whether a process runs, the shared-memory
segments of nc2600 processes (``/dev/shm/nc2600-<pid>-<random>``) and their removal once their
process is gone, and the signal a worker gets when its parent ends (Linux ``PR_SET_PDEATHSIG``)."""
from __future__ import annotations

import os


SEGMENT_PREFIX = "nc2600-"
SHM_DIR = "/dev/shm"


def pid_running(pid: int) -> bool:
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
        if pid != os.getpid() and not pid_running(pid):
            try:
                os.unlink(os.path.join(SHM_DIR, name))
                removed.append(name)
            except OSError:
                pass
    return removed


def signal_when_parent_ends(parent_pid: int, sig: int) -> None:
    """Linux: deliver ``sig`` to this process when its parent ends (prctl ``PR_SET_PDEATHSIG``);
    a parent already gone before the prctl (``os.getppid()`` no longer ``parent_pid``) gets the
    same signal at once. Elsewhere the prctl is skipped and only that check runs.

    Used by the evaluator's workers (SIGKILL: nothing of theirs needs an orderly end) and by
    :func:`nc2600.host.cluster.supervisor.supervised_driver`'s Ray driver (SIGTERM: it stops Ray in order)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(sig), 0, 0, 0)                      # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent_pid:                            # the parent died before prctl
        os.kill(os.getpid(), sig)
