"""``nc2600.host.rundir.atomic_write_bytes``: a file rewritten through a temp file and a rename keeps its
permission bits (a results or checkpoint file the user made private stays 600); a new file gets
the default ones."""
import os
import stat

from nc2600.host.rundir import atomic_write_bytes


def test_rewrite_keeps_the_mode(tmp_path):
    path = tmp_path / "r.jsonl"
    atomic_write_bytes(path, b"one\n")
    os.chmod(path, 0o600)
    atomic_write_bytes(path, b"two\n")
    assert path.read_bytes() == b"two\n" and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["r.jsonl"]
