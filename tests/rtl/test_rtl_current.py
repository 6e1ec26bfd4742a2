"""The committed rtl/ equals what `make rtl` generates from hw/ (byte for byte).

Oracle: the committed files, written by `make rtl` in another process (and checkout); the
generation is elaborated once per test session (:func:`generated`, about a minute of CPU) and
once more for the determinism check.
"""
import fcntl
import json
from pathlib import Path

import pytest

from nc2600.hwtools.generate import collect

RTL = Path(__file__).resolve().parents[2] / "rtl"


@pytest.fixture(scope="session")
def generated(tmp_path_factory, request):
    """:func:`nc2600.hwtools.generate.collect` once per test session: under pytest-xdist the first worker
    that asks generates and stores it (JSON in the session's temporary folder, which the workers
    share, under a lock) and the others read it; without xdist in this process."""
    if not hasattr(request.config, "workerinput"):          # not an xdist worker
        return collect()
    shared = tmp_path_factory.getbasetemp().parent
    path = shared / "rtl-generated.json"
    with open(shared / "rtl-generated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            return json.loads(path.read_text())
        files = collect()
        path.write_text(json.dumps(files))
        return files


def test_committed_rtl_is_current(generated):
    assert generated, "no hardware module generated any Verilog"
    for name, text in generated.items():
        assert (RTL / name).read_text() == text, f"rtl/{name} is stale: run `make rtl`"


def test_no_checkout_paths_in_rtl(generated):
    """Regression: memories kept ``(* src = "/abs/path/hw/cartridge.py:72" *)`` attributes, so the
    committed Verilog differed between checkouts."""
    for name, text in generated.items():
        assert "src = " not in text, name
        assert str(RTL.parent) not in text, name


def test_generation_is_deterministic(generated):
    """A second generation in this process equals the session's first (made in this process, or
    under pytest-xdist perhaps in another worker's)."""
    assert collect() == generated
