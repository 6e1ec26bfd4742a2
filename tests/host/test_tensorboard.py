"""TensorBoard scalars of a run (nc2600.host.tensorboard), read back by an independent reader.

The reader here follows the TFRecord format from its specification (TensorFlow's
``tf.io.TFRecordWriter``: u64 length, masked CRC32C of the length, data, masked CRC32C of
the data, little-endian; mask ``((crc >> 15) | (crc << 17)) + 0xa282ead8``), with its own
bitwise CRC32C (Castagnoli, reflected polynomial 0x82F63B78), and decodes the records as
``Event`` protocol buffers. Values are compared with the run's ``log.jsonl`` (float32, the
width of ``simple_value``).
"""
from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nc2600.host.tensorboard import TAGS, ScalarLog


def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    crc = _crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def test_the_crc_is_castagnolis():
    assert _crc32c(b"123456789") == 0xE3069283          # the CRC-32C check value


def read_events(folder: Path) -> list[tuple[str, int, dict[str, float]]]:
    """``(file name, step, {tag: value})`` of every event with a summary, files in name order;
    every record's checksums verified."""
    from tensorboardX.proto import event_pb2
    out = []
    for path in sorted(folder.glob("events.out.tfevents.*")):
        data, at = path.read_bytes(), 0
        first = True
        while at < len(data):
            (n,) = struct.unpack("<Q", data[at:at + 8])
            assert struct.unpack("<I", data[at + 8:at + 12])[0] == _masked(data[at:at + 8])
            body = data[at + 12:at + 12 + n]
            assert struct.unpack("<I", data[at + 12 + n:at + 16 + n])[0] == _masked(body)
            at += 16 + n
            event = event_pb2.Event.FromString(body)
            if first:
                assert event.file_version == "brain.Event:2"
                first = False
            if event.summary.value:
                out.append((path.name, event.step, {v.tag: v.simple_value for v in event.summary.value}))
    return out


def _lines(n: int, start: int = 0) -> list[dict]:
    return [{"generation": g, "best": 10.0 + g, "mean": 2.5 * g, "median": g / 3,
             "elite_score": None if g == 0 else 7.25,
             "frames": 1000 * (g + 1), "wall_s": 1.0, "fps": 333.3} for g in range(start, start + n)]


def _expected(line: dict) -> dict[str, float]:
    return {tag: float(np.float32(line[key])) for key, tag in TAGS.items() if line[key] is not None}


def test_each_generation_is_one_event_with_the_log_lines_values(tmp_path):
    log = ScalarLog(tmp_path, [])
    assert not (tmp_path / "tensorboard").exists()          # nothing written, no folder
    for line in _lines(3):
        log.add(line)
    log.close()
    events = read_events(tmp_path / "tensorboard")
    assert [step for _, step, _ in events] == [0, 1, 2]
    for (_, _, values), line in zip(events, _lines(3)):
        assert values == _expected(line)
    assert "fitness/elite_score" not in events[0][2]         # None is left out


def test_resume_writes_only_the_checkpointed_generations_the_files_lack(tmp_path):
    history = _lines(4)
    log = ScalarLog(tmp_path, [])
    for line in history[:3]:
        log.add(line)
    log.close()
    # stopped after generation 3's checkpoint, before its event: the resume writes it first
    log = ScalarLog(tmp_path, history)
    log.add(_lines(1, start=4)[0])
    log.close()
    events = read_events(tmp_path / "tensorboard")
    assert [step for _, step, _ in events] == [0, 1, 2, 3, 4]
    assert len({name for name, _, _ in events}) == 2          # one file per start
    assert events[3][2] == _expected(history[3])


def test_events_beyond_the_checkpointed_history_are_rewritten(tmp_path):
    log = ScalarLog(tmp_path, [])
    for line in _lines(5):
        log.add(line)
    log.close()
    history = _lines(2)
    history[1]["best"] = 99.0                                  # an older checkpoint's history
    ScalarLog(tmp_path, history).close()
    events = read_events(tmp_path / "tensorboard")
    assert [step for _, step, _ in events] == [0, 1]
    assert events[1][2]["fitness/best"] == 99.0


def test_a_file_cut_short_is_read_to_its_last_whole_record(tmp_path):
    log = ScalarLog(tmp_path, [])
    for line in _lines(3):
        log.add(line)
    log.close()
    (path,) = (tmp_path / "tensorboard").glob("events.out.tfevents.*")
    path.write_bytes(path.read_bytes()[:-5])                   # the last event cut (full disk)
    ScalarLog(tmp_path, _lines(3)).close()
    from nc2600.host.tensorboard import read_scalars
    assert [s for s, _ in read_scalars(tmp_path / "tensorboard")["fitness/best"]] == [0, 1, 2]


def test_an_unwritable_folder_is_one_user_error(tmp_path):
    from nc2600.host.errors import UserError
    (tmp_path / "tensorboard").write_text("a file where the folder goes")
    with pytest.raises(UserError, match="cannot write .*tensorboard"):
        ScalarLog(tmp_path, _lines(1))


def test_a_run_and_its_resume_give_one_curve_equal_to_log_jsonl(tmp_path):
    small = ["--game", "breakout", "--population", "4", "--episode-frames", "200", "--elite-candidates", "2",
             "--elite-episodes", "1", "--test-episodes", "1", "--envs-per-block", "1", "--truncation", "2",
             "--noise-table-size", str(1 << 20), "--progress", "lines", "--workers", "1", "--no-video"]
    out = tmp_path / "run"
    for args in (["--generations", "1", "--out", out], ["--resume", out, "--generations", "3"]):
        proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "run",
                               *(small if args[0] != "--resume" else []),
                               *map(str, args)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    lines = [json.loads(t) for t in (out / "log.jsonl").read_text().splitlines()]
    events = read_events(out / "tensorboard")
    assert [step for _, step, _ in events] == [0, 1, 2]
    assert len({name for name, _, _ in events}) == 2
    for (_, _, values), line in zip(events, lines):
        assert values == _expected(line)
