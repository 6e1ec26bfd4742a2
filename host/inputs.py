"""Reading the files a user names (ROMs, action files, parameter files, run records).

A path is read only when it is a regular file within a size limit; anything else (missing,
a folder, a FIFO, a device, too large) is one line (:class:`~nc2600.host.errors.UserError`,
exit 2), never a hang or an unbounded read.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from nc2600.host.errors import UserError


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


def load_action_file(spec: str, others: str = "random, noop or "):
    """``(n,)`` int64 ALE action ids from a ``.npy`` file (``lockstep`` and ``rtl-play``).
    ``others``: the other values the command's ``--actions`` takes, for the message
    (``""`` for ``rtl-play``, which takes a file only).

    Raises:
        UserError: unless it holds a non-empty 1-D integer array of values 0..17.
    """
    import numpy as np
    p = Path(spec)
    if not spec or not p.is_file():
        raise UserError(f"--actions: {spec!r} is not {others}an existing .npy file")
    try:
        with open(p, "rb") as fh:
            if fh.read(6) != b"\x93NUMPY":          # the .npy magic (NumPy format, version 1-3)
                raise UserError(f"--actions: {spec} is not a .npy file (save one with numpy.save)")
        a = np.load(p, allow_pickle=False)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - any load failure is bad input
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UserError(f"--actions: cannot read {spec}: {why}") from None
    if not isinstance(a, np.ndarray) or a.ndim != 1 or a.size == 0 or not np.issubdtype(a.dtype, np.integer) \
            or a.min() < 0 or a.max() > 17:
        raise UserError("--actions: need a non-empty 1-D integer array of ALE action ids 0..17")
    return a.astype(np.int64)
