"""Run folders that cannot be corrupted: one writer at a time, only empty folders or runs,
files replaced whole.

A run folder is owned by one process at a time through an exclusive ``flock`` on its
``.lock`` file (taken non-blocking; the kernel releases it when the process ends, however it
ends, so a crash never leaves a folder locked). The lock file holds the owner's pid, which
the refusal message names. Forked children (the evaluator's workers) close their inherited
copy at once (``os.register_at_fork``), so the lock dies with the process that took it.

A fresh run goes only into a missing or empty folder (a folder holding nothing but a
``.lock`` counts as empty: a run stopped before it wrote ``config.json``); a folder with
``config.json`` is a run (``--resume`` it), any other non-empty folder is the user's and is
refused untouched.

Every file is written to a temp name beside it, fsynced and renamed over the target
(:func:`atomic_write_bytes`); a failed write (full disk, read-only folder) removes its temp
file and raises :class:`~nc2600.host.errors.UserError` with one line. The temp file of a write cut
by SIGKILL is removed by the next process that locks the folder (``--resume``).
"""
from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path

from nc2600.host.errors import UserError

from nc2600.host.inputs import file_kind
LOCK_NAME = ".lock"
_TEMP = re.compile(r"^\..+\.tmp\d+$")        #: atomic_write_bytes' temp names
_held_fds: set[int] = set()


def _close_in_child() -> None:
    for fd in list(_held_fds):
        try:
            os.close(fd)
        except OSError:
            pass
    _held_fds.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_in_child)


def fs_error(exc: OSError, action: str, path) -> UserError:
    """One-line UserError for a file-system fault (``action`` e.g. ``"write"``)."""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        reason = "no space left on the device"
    elif exc.errno == errno.ENAMETOOLONG:
        reason = "file name too long"
    return UserError(f"cannot {action} {str(path)!r}: {reason}")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file and ``os.replace`` (never half-written).

    Raises:
        UserError: the folder is not writable, the disk is full, the name is too long; the
        temp file is removed and ``path`` keeps its previous contents.
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):    # never rename over a FIFO, device, socket
        raise UserError(f"cannot write {str(path)!r}: it exists and is {file_kind(mode)}")
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        try:
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            try:                   # a file rewritten keeps its permissions (e.g. 600)
                os.chmod(tmp, os.stat(path).st_mode & 0o7777)
            except FileNotFoundError:
                pass
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as exc:
        raise fs_error(exc, "write", path) from None


def atomic_write_json(path: Path, obj) -> None:
    atomic_write_bytes(path, (json.dumps(obj, indent=2) + "\n").encode())


def append_lines(path: Path, lines: list[str]) -> None:
    """Append ``lines`` (each without its newline) and fsync. A failed append (full disk)
    raises UserError; a partial last line is cut by the next resume (line counts are
    checkpointed)."""
    if not lines:
        return
    try:
        with open(path, "a") as fh:
            fh.write("\n".join(lines) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise fs_error(exc, "write", path) from None


def make_folders(path) -> list[Path]:
    """Create ``path`` and its missing parents, without recursion (``Path.mkdir(parents=True)``
    recurses once per missing level: a 2,000-level path raised RecursionError). Returns the
    folders created, outermost first. On failure the ones created are removed again (innermost
    first) and the OSError is raised: a refused path leaves no empty folders behind."""
    path = Path(os.path.abspath(os.fspath(path)))
    missing = []
    p = path
    while not os.path.lexists(p):
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    created: list[Path] = []
    try:
        for folder in reversed(missing):
            os.mkdir(folder)
            created.append(folder)
        if not missing and not path.is_dir():
            raise FileExistsError(errno.EEXIST, "exists and is not a folder", str(path))
    except OSError:
        remove_folders(created)
        raise
    return created


def remove_folders(created: list[Path]) -> None:
    """Remove folders made by :func:`make_folders` that are still empty, innermost first."""
    for folder in reversed(created):
        try:
            os.rmdir(folder)
        except OSError:
            break


class RunFolder:
    """The exclusive owner of one run folder (see module doc). Use :meth:`open_new` or
    :meth:`open_existing`; the lock is held until :meth:`release` or the process ends."""

    def __init__(self, path) -> None:
        text = os.fspath(path)
        if text == "" or text.isspace():
            raise UserError("the run folder path is empty; give --out DIR")
        self.path = Path(text)
        self.fd: int | None = None

    # ------------------------------------------------------------------------------
    def _entries(self) -> set[str]:
        try:
            return set(os.listdir(self.path)) - {LOCK_NAME}
        except OSError as exc:
            raise fs_error(exc, "read folder", self.path) from None

    def _check_new(self) -> None:
        p = self.path
        if not p.exists():
            return
        if not p.is_dir():
            raise UserError(f"--out {str(p)!r} exists and is not a folder")
        entries = self._entries()
        if "config.json" in entries:
            owner = self.lock_owner()
            if owner is not None:
                raise UserError(f"{str(p)!r} holds a run that another nc2600 process (pid {owner}) is "
                                f"running now; give another --out")
            raise UserError(f"{str(p)!r} already holds a run; use --resume {p} or another --out")
        if entries:
            shown = ", ".join(sorted(entries)[:3]) + (", ..." if len(entries) > 3 else "")
            raise UserError(f"--out {str(p)!r} is not empty and holds no run ({shown}); "
                            f"give a new or empty folder")

    def lock_owner(self) -> str | None:
        """The pid (as written in ``.lock``; ``"?"`` when unreadable) of the live process that
        holds this folder's lock, or None when no process holds it. Takes and drops a shared
        ``flock`` (never creates the lock file)."""
        import fcntl
        try:
            fd = os.open(self.path / LOCK_NAME, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return None
            try:
                return os.pread(fd, 64, 0).decode(errors="replace").split()[0]
            except (OSError, IndexError):
                return "?"
        finally:
            os.close(fd)
        return None

    def open_new(self) -> "RunFolder":
        """Create (or take an empty) folder for a fresh run and lock it."""
        self._check_new()
        try:
            created = make_folders(self.path)
        except OSError as exc:
            raise fs_error(exc, "create --out", self.path) from None
        try:
            self._lock()
        except UserError:
            remove_folders(created)
            raise
        try:
            self._check_new()          # another process may have filled it before our lock
        except UserError:
            self.release()
            raise
        return self

    def open_existing(self) -> "RunFolder":
        """Lock the run in an existing folder (``--resume``)."""
        p = self.path
        if not p.is_dir():
            raise UserError(f"--resume {str(p)!r}: no such folder")
        if not (p / "config.json").is_file():
            raise UserError(f"{str(p)!r} holds no run (config.json missing)")
        self._lock()
        self.remove_stale_temp_files()
        return self

    def remove_stale_temp_files(self) -> list[str]:
        """Remove the temp files of writes cut short by a SIGKILL (``.NAME.tmpPID``): with the
        lock held, no other process writes here. Returns their names."""
        removed = []
        for name in self._entries():
            if _TEMP.match(name):
                try:
                    os.unlink(self.path / name)
                    removed.append(name)
                except OSError:
                    pass
        return removed

    def _lock(self) -> None:
        self.fd = lock_exclusive(
            self.path / LOCK_NAME, self.path, "?",
            lambda owner: f"run folder {str(self.path)!r} is in use by another nc2600 process "
                          f"(pid {owner}); wait for it to finish or stop it")
        _held_fds.add(self.fd)

    def release(self) -> None:
        """Drop the lock (the ``.lock`` file stays: removing it would race a waiting process)."""
        if self.fd is not None:
            _held_fds.discard(self.fd)
            os.close(self.fd)
            self.fd = None


def lock_exclusive(lock: Path, where, unknown: str, busy) -> int:
    """Take an exclusive ``flock`` on the file ``lock`` (created if missing, close-on-exec) and
    write this process's pid into it; returns its descriptor (closing it lets go).

    Raises:
        UserError: ``busy(owner)`` when another process holds it (``owner``: the pid written
        there, or ``unknown``); a file-system fault as :func:`fs_error` naming ``where``.
    """
    import fcntl
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise fs_error(exc, "lock", where) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        try:
            owner = os.pread(fd, 64, 0).decode(errors="replace").split()[0]
        except (OSError, IndexError):
            owner = unknown
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise UserError(busy(owner)) from None
        raise fs_error(exc, "lock", where) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass                        # the pid is only for the message
    return fd


# -- output folders and files of the other commands (report, synth, mesh, play, rtl-play) --
def _write_probe(folder: Path) -> None:
    """Write and remove a one-byte probe file in ``folder``: the check that it is writable.
    Raises OSError where that fails."""
    probe = folder / f".nc2600-write-test-{os.getpid()}"
    with open(probe, "wb") as fh:
        fh.write(b"x")
    os.unlink(probe)


def prepare_output_folder(path, option: str = "--out") -> Path:
    """Check and create an output folder before any work: a non-empty name, not an existing
    file, creatable and writable (a temp file is made and removed), so that a command fails in
    its first second, with one line, rather than after its work.

    Raises:
        UserError: empty name, a file in the way, permission, read-only file system, /proc, ...
    """
    text = os.fspath(path)
    if text.strip() == "":
        raise UserError(f"{option} is empty; give a folder name")
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise UserError(f"{option} {text!r} exists and is not a folder")
    created: list[Path] = []
    try:
        created = make_folders(out)
        _write_probe(out)
    except OSError as exc:
        remove_folders(created)
        raise fs_error(exc, f"write into {option}", out) from None
    return out


def check_output_file(path, option: str = "--out") -> Path:
    """Check an output file's path before any work: non-empty, not a folder nor any other
    existing non-regular file (FIFO, device, socket), its folder exists and is writable.
    Raises UserError."""
    text = os.fspath(path)
    if text.strip() == "":
        raise UserError(f"{option} is empty; give a file name")
    p = Path(text)
    if p.is_dir():
        raise UserError(f"{option} {text!r} is a folder; give a file name")
    try:
        st = os.stat(p)
    except OSError:
        st = None                  # missing (or unreadable: the probe below reports it)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # a FIFO, a device (/dev/null, /dev/full), a socket: the result is written by renaming a
        # temp file over the path, which would replace it
        raise UserError(f"{option} {text!r} exists and is {file_kind(st.st_mode)}; give a regular file name")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise UserError(f"{option} {text!r}: folder {str(folder)!r} {what}")
    try:
        _write_probe(folder)
    except OSError as exc:
        raise fs_error(exc, f"write {option}", p) from None
    return p
