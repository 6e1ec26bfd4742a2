"""The ``nc2600`` subcommands (one module each, ``register(subparsers, groups)``) and the options
they share."""


def add_colour_clocks_option(parser) -> None:
    """The ``--colour-clocks-per-cycle {1,3}`` option of the commands that run the RTL console
    (:class:`hw.console.Console`: colour clocks the TIA advances per clock; 3 runs one CPU cycle
    per clock). Anything else: argparse's one-line error, exit 2."""
    parser.add_argument("--colour-clocks-per-cycle", type=int, choices=(1, 3), default=1, metavar="{1,3}",
                        help="console configuration: colour clocks per clock (3: one CPU cycle per clock)")
