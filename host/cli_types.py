"""The argparse types of the nc2600 command line.

They are the one family every command uses for numbers: each parses a decimal (or
0x/0o/0b-prefixed) integer, or a finite float, and checks a closed range, so that ``inf``,
``nan``, ``1e300`` or a 20-digit count is refused by the parser with one line
(``nc2600 CMD: error: argument --X: expected ...``) before any work starts. The types of a
hardware parameter (:func:`mac_lanes`, :func:`array_shape`) apply the models' own ``check_*``
rules, so the CLI and the model refuse the same values with the same words.
"""
from __future__ import annotations

import math


#: seeds: ALE, numpy and the run's generator all accept 0 .. 2**31 - 1 (ALE takes an int)
SEED_MAX = 2**31 - 1
#: largest count any option accepts when it has no narrower limit (an int64 stays exact)
COUNT_MAX = 2**53


def _int(text: str) -> int:
    """Decimal (leading zeros allowed, ``_`` separators) or 0x/0o/0b-prefixed integer in ASCII
    characters; raises ValueError (also for more than 40 characters: nothing here needs that
    many, and for other scripts' digits, e.g. Arabic-Indic ``٣``, which Python's ``int`` takes)."""
    if len(text) > 40 or not text.isascii():
        raise ValueError(text)
    try:
        return int(text, 10)
    except ValueError:
        return int(text, 0)


def _float(text: str) -> float:
    """A finite float in ASCII characters; raises ValueError for inf, nan, overflow (``1e999``)
    and other scripts' digits (Python's ``float`` takes ``٣``)."""
    if len(text) > 40 or not text.isascii():
        raise ValueError(text)
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _fmt(x) -> str:
    if isinstance(x, int) and abs(x) >= 100_000:
        return f"{x:,}".replace(",", "_")
    return f"{x:g}" if isinstance(x, float) else str(x)


def int_range(lo: int, hi: int = COUNT_MAX, what: str | None = None):
    """argparse type: an integer in ``[lo, hi]``. ``what`` names the value in the message."""
    desc = what or f"an integer in [{_fmt(lo)}, {_fmt(hi)}]"
    return _checked(_int, lambda v: lo <= v <= hi, desc)


def float_range(lo: float, hi: float, *, lo_open: bool = False, what: str | None = None):
    """argparse type: a finite float in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``)."""
    if what:
        desc = what
    elif lo_open and lo == 0:
        desc = f"a positive number, at most {_fmt(float(hi))}"
    else:
        desc = f"a number in {'(' if lo_open else '['}{_fmt(float(lo))}, {_fmt(float(hi))}]"
    ok = (lambda v: lo < v <= hi) if lo_open else (lambda v: lo <= v <= hi)
    return _checked(_float, ok, desc)


def _checked(parse, ok, what: str):
    """An argparse type: ``parse(text)`` then ``ok(value)``, else ``ArgumentTypeError`` naming ``what``."""
    import argparse

    def convert(text: str):
        try:
            value = parse(text)
        except (ValueError, OverflowError):
            value = None
        if value is None or not ok(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text[:60]!r}")
        return value
    convert.__name__ = what  # argparse names the type in some messages
    return convert


def mac_lanes(text: str) -> int:
    """argparse type: a policy-engine MAC-lane count, by the engine's own rule
    (:func:`nc2600.hls_models.policy_engine.check_lanes`: a multiple of 4 in 4..256), as ``synth`` checks it."""
    import argparse
    from nc2600.hls_models.policy_engine import check_lanes
    try:
        return check_lanes(_int(text))
    except ValueError:
        try:
            check_lanes(-1)
        except ValueError as exc:          # the rule's own words, with the text given
            rule = str(exc).rsplit(", got", 1)[0]
        raise argparse.ArgumentTypeError(f"{rule}, got {text[:60]!r}") from None


mac_lanes.__name__ = "MAC-lane count"


def array_shape(text: str) -> tuple[int, int]:
    """argparse type: an array-engine shape ``RxC`` (``16x16``; ``X`` also) as ``(rows, cols)``,
    two decimal integers that the engine's own rule (:func:`nc2600.hls_models.policy_array.check_shape`)
    accepts for at least one network of :data:`nc2600.hls_models.networks.NETWORKS` (``64x16`` tiles the
    nature network only). A command checks the shape further for the network or instance it
    builds (e.g. :func:`nc2600.hwtools.instance_harness.check_config`); when no network takes it, the
    message is the small network's rule, e.g. ``rows must be one of (4, 8, 16, 32, 64), got 0``.

    Raises:
        argparse.ArgumentTypeError: not ``ROWSxCOLS`` (``16x``, ``16x16x2``, ``abc``, a sign), or
            a shape no network takes (``0x16``, ``12x12``, ``8x16``).
    """
    import argparse
    import re

    from nc2600.hls_models.networks import NETWORKS
    from nc2600.hls_models.policy_array import check_shape
    m = re.fullmatch(r"([0-9]{1,6})[xX]([0-9]{1,6})", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLS, e.g. 16x16, got {text[:60]!r}")
    rows, cols = int(m[1]), int(m[2])
    first = None
    for network in ("small", *sorted(set(NETWORKS) - {"small"})):
        try:
            return check_shape(rows, cols, network)
        except ValueError as exc:
            first = first or exc
    raise argparse.ArgumentTypeError(f"{text!r}: {first}")


array_shape.__name__ = "array shape"


def ascii_int(text: str) -> int:
    """argparse type for an option with ``choices`` (``--colour-clocks {1,3}``): an integer
    written in ASCII (Python's ``int`` takes ``٣`` as 3); ValueError otherwise, which argparse
    reports as an invalid value."""
    return _int(text)


ascii_int.__name__ = "integer"

#: argparse type: an integer in [1, 2**53]
positive_int = int_range(1, COUNT_MAX, "a positive integer (at most 2**53)")
#: argparse type: an integer in [0, 2**53]
non_negative_int = int_range(0, COUNT_MAX, "a non-negative integer (at most 2**53)")
#: argparse type: a seed in [0, 2**31 - 1]
seed_int = int_range(0, SEED_MAX, "a seed in [0, 2147483647]")
#: argparse type: a float in [0, 1]
probability = float_range(0.0, 1.0, what="a probability in [0, 1]")
#: argparse type: a finite float > 0 (at most 1e12)
positive_float = float_range(0.0, 1e12, lo_open=True, what="a positive finite number (at most 1e12)")

#: the fabric clocks a command models, in MHz: 1 kHz (below it nothing is a clocked fabric, and a
#: frame of 59,736 colour clocks would take over a minute) to 10 GHz
CLOCK_MHZ_MIN, CLOCK_MHZ_MAX = 0.001, 10_000.0
#: argparse type: a fabric clock in MHz, in [CLOCK_MHZ_MIN, CLOCK_MHZ_MAX]
clock_mhz = float_range(CLOCK_MHZ_MIN, CLOCK_MHZ_MAX, what="a clock in MHz in [0.001, 10000] (1 kHz to 10 GHz)")
