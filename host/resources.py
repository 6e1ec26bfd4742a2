"""Sizes bounded by the machine: the memory and the worker processes a command may ask for.

A command that would need more than the machine has is refused before it starts, with one
line (:class:`~nc2600.host.errors.UserError`, exit 2), instead of swapping or forking the
machine to a standstill.
"""
from __future__ import annotations

import os

from nc2600.host.errors import UserError


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
#: they only add start-up time and memory, and a thousand forks can hold a small machine for
#: minutes
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
