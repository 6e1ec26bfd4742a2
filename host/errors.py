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

import errno
import math
import os
import stat
import sys


class UserError(Exception):
    """Bad input from the user; printed as one line, exit code 2."""


#: seeds: ALE, numpy and the run's generator all accept 0 .. 2**31 - 1 (ALE takes an int)
SEED_MAX = 2**31 - 1
#: largest count any option accepts when it has no narrower limit (an int64 stays exact)
COUNT_MAX = 2**53


def _int(text: str) -> int:
    """Decimal (leading zeros allowed, ``_`` separators) or 0x/0o/0b-prefixed integer;
    raises ValueError (also for more than 40 characters: nothing here needs that many)."""
    if len(text) > 40:
        raise ValueError(text)
    try:
        return int(text, 10)
    except ValueError:
        return int(text, 0)


def _float(text: str) -> float:
    """A finite float; raises ValueError for inf, nan and overflow (``1e999``)."""
    if len(text) > 40:
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
    (:func:`hls_models.policy_engine.check_lanes`: a multiple of 4 in 4..256), as ``synth`` checks it."""
    import argparse
    from hls_models.policy_engine import check_lanes
    try:
        return check_lanes(_int(text))
    except ValueError:
        try:
            check_lanes(-1)
        except ValueError as exc:          # the rule's own words, with the text given
            rule = str(exc).rsplit(", got", 1)[0]
        raise argparse.ArgumentTypeError(f"{rule}, got {text[:60]!r}") from None


mac_lanes.__name__ = "MAC-lane count"


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


def on_sigterm(signum, frame) -> None:
    """SIGTERM handler of every command: raise :class:`Terminated` in the main thread, unless
    the process is already stopping on a KeyboardInterrupt (a signal sent to the whole process
    group also ends the workers, whose deaths may surface first: a second exception then must
    not cut the first one's cleanup short). Either way :func:`interrupt_name` reports SIGTERM."""
    global _SIGTERM_RECEIVED
    _SIGTERM_RECEIVED = True
    import sys
    if isinstance(sys.exc_info()[1], KeyboardInterrupt):
        return
    raise Terminated()


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
    stderr: UserError and file-system faults exit 2, Ctrl-C/SIGTERM 130, a closed output pipe 141."""
    try:
        rc = body()
    except UserError as exc:
        sys.stderr.write(f"nc2600: error: {exc}\n")
        return 2
    except KeyboardInterrupt as exc:
        sys.stderr.write(f"nc2600: {interrupt_name(exc)}\n")
        return 130
    except BrokenPipeError:        # output piped into e.g. `head`: stop quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 141
    except OSError as exc:
        if exc.errno not in _FS_ERRNOS:
            raise
        where = f" {exc.filename!r}" if exc.filename else ""
        sys.stderr.write(f"nc2600: error: {exc.strerror or exc}{where}\n")
        return 2
    return int(rc or 0)
