"""A run's per-generation figures as TensorBoard scalars (``<run>/tensorboard/``).

Each generation of ``nc2600 run`` becomes one TensorBoard event (step = the generation
number, 0-based) with the scalars of :data:`TAGS`, taken from the generation's
``log.jsonl`` line: ``fitness/best``, ``fitness/mean``, ``fitness/median``,
``fitness/elite_score``, ``frames/total`` (cumulative emulated frames) and
``frames/per_second`` (the generation's frames per second of wall time). View them with
``tensorboard --logdir runs/``.

Files: TensorBoard event files (TFRecord of ``Event`` protocol buffers, tensorboardX's
writer, synchronous: no writer thread, so the evaluator may fork at any time), one per
start or resume of the run, ``events.out.tfevents.<s>.<host>.<ns>`` (its start time). A
generation is written after its checkpoint, so the event files only ever hold checkpointed generations; on
resume, the generations of the checkpointed history that no event file holds (a stop
between the checkpoint and the event) are written first, so the curves continue without
duplicates or gaps. Event files holding a generation the history does not (an older
checkpoint put back by hand) are removed and the whole history is written again.
A file cut short (full disk, SIGKILL) is read up to its last whole record.
"""
from __future__ import annotations

import os
import struct
import time
from pathlib import Path

#: log.jsonl field -> TensorBoard tag
TAGS = {"best": "fitness/best", "mean": "fitness/mean", "median": "fitness/median",
        "elite_score": "fitness/elite_score", "frames": "frames/total", "fps": "frames/per_second"}
FOLDER = "tensorboard"          #: sub-folder of the run folder holding the event files
_PREFIX = "events.out.tfevents."


def event_files(folder: Path) -> list[Path]:
    """The event files in ``folder`` (regular files only), sorted by name (= by start time)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.startswith(_PREFIX) and p.is_file() and not p.is_symlink())


def read_records(path: Path) -> list[bytes]:
    """The whole records of one TFRecord file (length u64, masked CRC32C of the length,
    data, masked CRC32C of the data; little-endian); stops at the first record cut short or
    failing its checksums."""
    from tensorboardX.record_writer import masked_crc32c
    data = Path(path).read_bytes()
    out, at = [], 0
    while at + 12 <= len(data):
        header = data[at:at + 8]
        (n,), (crc,) = struct.unpack("<Q", header), struct.unpack("<I", data[at + 8:at + 12])
        end = at + 12 + n + 4
        if crc != masked_crc32c(header) or end > len(data):
            break
        body = data[at + 12:at + 12 + n]
        if struct.unpack("<I", data[end - 4:end])[0] != masked_crc32c(body):
            break
        out.append(body)
        at = end
    return out


def read_scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the event files in ``folder``: tag -> ``[(step, value), ...]`` in file
    order."""
    from tensorboardX.proto import event_pb2
    scalars: dict[str, list[tuple[int, float]]] = {}
    for path in event_files(folder):
        for record in read_records(path):
            event = event_pb2.Event.FromString(record)
            for value in event.summary.value:
                scalars.setdefault(value.tag, []).append((int(event.step), float(value.simple_value)))
    return scalars


class ScalarLog:
    """The TensorBoard scalars of one run folder (module doc).

    Args:
        run_folder: the run folder (its ``tensorboard/`` sub-folder is created on the first write).
        history: the run's checkpointed ``log.jsonl`` lines (dicts with ``generation`` and
            the fields of :data:`TAGS`); those no event file holds are written at once.
    Raises:
        UserError: the folder or an event file cannot be written (full disk, permissions).
    """

    def __init__(self, run_folder: Path, history: list[dict]):
        self.folder = Path(run_folder) / FOLDER
        self._writer = None
        held = {step for values in read_scalars(self.folder).values() for step, _ in values}
        wanted = {int(line["generation"]) for line in history}
        if not held <= wanted:
            for path in event_files(self.folder):
                self._guard(path.unlink, path)
            held = set()
        for line in history:
            if int(line["generation"]) not in held:
                self.add(line, flush=False)
        if self._writer is not None:
            self._guard(self._writer.flush, self.folder)

    def _guard(self, fn, path, *args):
        try:
            return fn(*args)
        except OSError as exc:
            from nc2600.host.rundir import fs_error
            raise fs_error(exc, "write", path) from None

    def add(self, line: dict, flush: bool = True) -> None:
        """Write one generation's scalars (step ``line["generation"]``); fields that are None
        or absent are left out. ``flush``: flush and fsync the file now."""
        from tensorboardX.event_file_writer import EventsWriter
        from tensorboardX.proto import event_pb2, summary_pb2
        if self._writer is None:
            self._guard(os.makedirs, self.folder, self.folder, 0o777, True)
            # the writer names files by the second; the suffix keeps two starts in one second
            # apart; an absolute path is never taken for a cloud URL ("s3:...", "gs:...")
            self._writer = self._guard(EventsWriter, self.folder, os.path.join(os.path.abspath(self.folder), "events"),
                                       f".{time.time_ns()}")
        values = [summary_pb2.Summary.Value(tag=tag, simple_value=float(line[key]))
                  for key, tag in TAGS.items() if line.get(key) is not None]
        event = event_pb2.Event(wall_time=time.time(), step=int(line["generation"]),
                                summary=summary_pb2.Summary(value=values))
        self._guard(self._writer.write_event, self.folder, event)
        if flush:
            self._guard(self._writer.flush, self.folder)

    def close(self) -> None:
        """Flush and close the event file (idempotent)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            self._guard(writer.close, self.folder)
