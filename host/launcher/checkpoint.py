"""A run folder's checkpoint: ``checkpoint.npz`` written and read back, and the history it vouches for.

``checkpoint.npz`` holds one uint8 array ``meta`` (UTF-8 JSON: the algorithm's metadata, the RNG
state, counters, the line counts of ``log.jsonl`` and ``episodes.jsonl``, the sha256 of those
lines (:data:`~nc2600.host.launcher.run_history.HISTORY_FILES`) and the run's identity) and the
algorithm's arrays. Every refusal is one line (:class:`~nc2600.host.errors.UserError`).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import numpy as np

from nc2600.host.errors import UserError
from nc2600.host.launcher.run_history import HISTORY_FILES, read_lines, read_run_file, restart_hint
from nc2600.host.rundir import atomic_write_bytes

#: the checkpoint's file name in a run folder
CHECKPOINT = "checkpoint.npz"


def write_checkpoint(out: Path, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write ``out/checkpoint.npz`` atomically: ``meta`` (JSON-serialisable) and ``arrays``
    (names other than ``meta``)."""
    buf = io.BytesIO()
    np.savez(buf, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    atomic_write_bytes(out / CHECKPOINT, buf.getvalue())


def read_checkpoint(out: Path, identity: dict, arrays: bool = True) -> tuple[dict, dict] | None:
    """``(meta, arrays)`` of ``out/checkpoint.npz`` (arrays empty unless ``arrays``), or None when
    the run stopped before its first generation.

    ``identity``: ``{"run_id", "settings", "rom_md5"}`` of the run reading it; with a run id of
    None (a run made before checkpoints carried one) the checkpoint's identity is not checked.

    Raises:
        UserError: not a regular file, unreadable, or another run's (run id, settings digest or
        ROM md5 differ from ``identity``).
    """
    path = out / CHECKPOINT
    if not os.path.lexists(path):
        return None
    data = read_run_file(path, "checkpoint")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            if not isinstance(meta, dict):
                raise ValueError("meta")
            values = {k: z[k] for k in z.files if k != "meta"} if arrays else {}
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same user error
        raise UserError(f"cannot read checkpoint {str(path)!r}: {type(exc).__name__}") from None
    if identity["run_id"] is not None:
        theirs = meta.get("identity") if isinstance(meta.get("identity"), dict) else {}
        for key, words in (("run_id", "run id"), ("settings", "settings (config.json)"), ("rom_md5", "ROM md5")):
            if theirs.get(key) != identity[key]:
                raise UserError(f"checkpoint {str(path)!r} does not belong to this run: its {words} "
                                f"differ from the folder's; the run folder is damaged")
    return meta, values


def check_no_checkpoint_yet(out: Path) -> None:
    """With no ``checkpoint.npz``: UserError when the history shows a generation past the
    first (``log.jsonl`` holds more than one line: the checkpoint was removed, not yet to be
    written). A single line of generation 0 is the moment between its append and its
    checkpoint; generation 0 is then run again, giving the same lines."""
    lines = read_lines(out / "log.jsonl")
    if len(lines) > 1:
        raise UserError(f"{str(out / CHECKPOINT)!r} is missing but log.jsonl records "
                        f"{len(lines)} generations; {restart_hint(out)}")


def check_history(out: Path, meta: dict, log_lines: int, episode_lines: int) -> dict[str, object]:
    """The running sha256 of each history file's first checkpointed lines (``{name: hashlib
    object}``, to be continued by the lines appended next).

    Raises:
        UserError: naming the first history file whose first checkpointed lines do not give the
        digest the checkpoint keeps (an edited, reordered, removed or cut line). A checkpoint
        without digests is taken as it is.
    """
    counts = {"log.jsonl": log_lines, "episodes.jsonl": episode_lines}
    kept = meta.get("history_sha256") if isinstance(meta.get("history_sha256"), dict) else None
    running = {}
    for name in HISTORY_FILES:
        path = out / name
        lines = read_lines(path)
        n = counts[name]
        if len(lines) < n:
            raise UserError(f"{str(path)!r} has {len(lines)} lines, the checkpoint records {n}; "
                            f"{restart_hint(out)}")
        h = hashlib.sha256(b"".join(lines[:n]))
        if n and not lines[n - 1].endswith(b"\n"):
            h = None                                # a cut last checkpointed line
        if kept is not None and (h is None or h.hexdigest() != kept.get(name)):
            raise UserError(f"{str(path)!r} does not match the checkpoint (its first {n} lines are not "
                            f"the ones checkpoint.npz recorded); {restart_hint(out)}")
        running[name] = h if h is not None else hashlib.sha256(b"".join(lines[:n]))
    return running
