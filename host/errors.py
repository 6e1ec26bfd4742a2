"""User-facing errors of the nc2600 command line.

Any code path that rejects user input (unknown game, bad ROM, bad option value,
missing file) raises :class:`UserError`. ``nc2600`` catches it, prints one line
``nc2600: error: <message>`` on stderr and exits with code 2, never a traceback.
"""


class UserError(Exception):
    """Bad input from the user; printed as one line, exit code 2."""


def _int(text: str) -> int:
    """Decimal (leading zeros allowed) or 0x/0o/0b-prefixed integer; raises ValueError."""
    try:
        return int(text, 10)
    except ValueError:
        return int(text, 0)


def _checked(parse, ok, what: str):
    """An argparse type: ``parse(text)`` then ``ok(value)``, else ``ArgumentTypeError`` naming ``what``."""
    import argparse

    def convert(text: str):
        try:
            value = parse(text)
        except ValueError:
            value = None
        if value is None or not ok(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return convert


#: argparse type: an integer > 0 (decimal, or 0x/0o/0b-prefixed)
positive_int = _checked(_int, lambda v: v > 0, "a positive integer")
#: argparse type: an integer >= 0
non_negative_int = _checked(_int, lambda v: v >= 0, "a non-negative integer")
#: argparse type: a float in [0, 1]
probability = _checked(float, lambda v: 0.0 <= v <= 1.0, "a probability in [0, 1]")
#: argparse type: a float > 0
positive_float = _checked(float, lambda v: v > 0.0, "a positive number")
