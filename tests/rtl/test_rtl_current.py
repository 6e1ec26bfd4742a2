"""The committed rtl/ equals what `make rtl` generates from hw/ (byte for byte)."""
from pathlib import Path

from hwtools.generate import collect

RTL = Path(__file__).resolve().parents[2] / "rtl"


def test_committed_rtl_is_current():
    files = collect()
    assert files, "no hardware module generated any Verilog"
    for name, text in files.items():
        assert (RTL / name).read_text() == text, f"rtl/{name} is stale: run `make rtl`"


def test_no_checkout_paths_in_rtl():
    """Regression: memories kept ``(* src = "/abs/path/hw/cart.py:72" *)`` attributes, so the
    committed Verilog differed between checkouts."""
    for name, text in collect().items():
        assert "src = " not in text, name
        assert str(RTL.parent) not in text, name


def test_generation_is_deterministic():
    assert collect() == collect()
