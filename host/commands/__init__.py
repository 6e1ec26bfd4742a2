"""The ``nc2600`` subcommands (one module each, ``register(subparsers, groups)``) and the options
they share: the parser class whose errors are one line, and the help formatter.

This package imports nothing from :mod:`nc2600.host.cli` (the console script on top of it).
"""
import argparse
import sys

from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS
from nc2600.host.cli_types import ascii_int


class OneLineParser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit code 2. A description taken
    from a module docstring is shown as plain text: reStructuredText's double backquotes
    (````--load````) become single ones."""

    def __init__(self, *args, **kwargs):
        if isinstance(kwargs.get("description"), str):
            kwargs["description"] = kwargs["description"].replace("``", "`")
        super().__init__(*args, **kwargs)

    def error(self, message):  # noqa: D401 - argparse API
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


class DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows ``(default: X)`` only where it informs: not for a None or False default (a flag's),
    and not when the help text already states its default; a default of 0 or 0.0 is shown."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default is None or action.default is False or action.default is argparse.SUPPRESS \
                or "default" in text:
            return text
        return super()._get_help_string(action)


def add_colour_clocks_option(parser) -> None:
    """The ``--colour-clocks {1,3}`` option of the commands that run the RTL console
    (:class:`nc2600.hw.console.Console`: colour clocks the TIA advances per clock; 3 runs one CPU cycle
    per clock). Anything else: argparse's one-line error, exit 2."""
    parser.add_argument("--colour-clocks", type=ascii_int, choices=(1, 3), default=DEFAULT_COLOUR_CLOCKS,
                        metavar="{1,3}",
                        help="console configuration: colour clocks per clock (3: one CPU cycle per clock)")
