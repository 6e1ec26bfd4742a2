"""User-facing errors of the nc2600 command line, and the guard every command runs under.

Any code path that rejects user input (unknown game, bad ROM, bad option value,
missing file) raises :class:`UserError`. ``nc2600`` catches it, prints one line
``nc2600: error: <message>`` on stderr and exits with code 2, never a traceback
(:func:`guarded`, which every command runs under). The checks that raise it live beside
the things they check: :mod:`~nc2600.host.cli_types` (argparse types),
:mod:`~nc2600.host.resources` (memory and processes), :mod:`~nc2600.host.inputs` (input
files); the stop signals' handlers are in :mod:`~nc2600.host.signals`.
"""
from __future__ import annotations

import errno
import os
import sys

from nc2600.host.signals import dropped_interrupt, interrupt_name, sigterm_received


class UserError(Exception):
    """Bad input from the user; printed as one line, exit code 2."""


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
