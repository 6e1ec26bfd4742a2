"""Wide clock counters without a wide carry chain in one clock (xc7 logic depth).

:func:`count_clocks` is used by the frame-skip controller's cycle counters
(:mod:`nc2600.hw.frame_skip`), the console's Stella cycle count (``cyc``, :mod:`nc2600.hw.console`) and the
RIOT's cycles since its timer write (``delta``, :mod:`nc2600.hw.riot`).
"""
from __future__ import annotations

from amaranth import Module, Signal

__all__ = ["count_clocks"]


def count_clocks(m: Module, value: Signal, inc, clear, name: str) -> None:
    """``value`` (a 32-bit register) counts the clocks with ``inc``, and is 0 after a clock with
    ``clear`` (``clear`` wins): as two 16-bit halves, the high one stepped by a flag registered a
    clock ahead that says the low one is 0xFFFF, so that no path holds a 32-bit carry chain
    (as one step, a 32-bit increment with its clear would be 10 xc7 levels). Exact at every clock: the flag
    is set exactly when the low half becomes 0xFFFF and cleared when it leaves it.

    Raises:
        ValueError: ``value`` is not 32 bits wide.
    """
    if len(value) != 32:
        raise ValueError(f"count_clocks counts 32-bit registers, not {len(value)}-bit ones")
    low, high = value[:16], value[16:]
    full = Signal(name=f"{name}_low_full")
    with m.If(clear):
        m.d.sync += [value.eq(0), full.eq(0)]
    with m.Elif(inc):
        m.d.sync += [low.eq(low + 1), full.eq(low == 0xFFFE)]
        with m.If(full):
            m.d.sync += high.eq(high + 1)
