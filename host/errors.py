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


def positive_int(text: str) -> int:
    """argparse type: an integer > 0 (raises ``argparse.ArgumentTypeError``)."""
    import argparse
    try:
        value = _int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    import argparse
    try:
        value = _int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def probability(text: str) -> float:
    """argparse type: a float in [0, 1]."""
    import argparse
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability in [0, 1], got {text!r}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a float > 0."""
    import argparse
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0.0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value
