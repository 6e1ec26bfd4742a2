"""The ``nc2600`` console script.

Subcommands live one per module in :mod:`nc2600.host.commands`; each module defines
``register(subparsers, groups)`` and is discovered at start-up, so a new block adds
its command without editing this file. ``groups`` holds the nested sub-command
tables shared by several modules: ``groups["bench"]`` (``nc2600 bench host``,
``nc2600 bench rtl``) and ``groups["games"]`` (``nc2600 games verify``; the bare ``nc2600 games`` parser is
``groups["games_parser"]``).

Exit codes: 0 success, 1 a check that ran and failed, 2 bad input or a file-system fault
(one line on stderr, never a traceback), 130 interrupted by Ctrl-C or SIGTERM.
"""
from __future__ import annotations

import os

# One BLAS thread per process: the launcher parallelises with processes, and BLAS thread
# pools spinning in every worker oversubscribe the cores.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import importlib  # noqa: E402
import pkgutil  # noqa: E402
import sys  # noqa: E402

from nc2600.host.commands import DefaultsFormatter, OneLineParser  # noqa: E402,F401 - the parser's classes
from nc2600.host.errors import guarded  # noqa: E402,F401 - guarded: every command's errors
from nc2600.host.signals import on_sigterm  # noqa: E402


def _version() -> str:
    """The installed distribution's version (pyproject.toml ``[project] version``), or
    ``"unknown (not installed)"`` when the sources run without ``pip install``."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("nc2600")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """Build the full parser with every discovered subcommand."""
    parser = OneLineParser(
        prog="nc2600",
        description="Open FPGA neural-computer simulation and HLS design package for Atari 2600 neuroevolution.",
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("--version", action="version", version=f"nc2600 {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    groups: dict[str, argparse._SubParsersAction] = {}

    bench = sub.add_parser("bench", help="throughput benchmarks")    # targets listed below
    groups["bench"] = bench.add_subparsers(dest="bench_target", metavar="TARGET", parser_class=OneLineParser)
    groups["bench"].required = True

    games = sub.add_parser("games",
                           help="list the loadable games (mapper, screen size); `games verify` checks game rules",
                           formatter_class=DefaultsFormatter)
    groups["games_parser"] = games
    groups["games"] = games.add_subparsers(dest="games_action", metavar="ACTION", parser_class=OneLineParser)

    import nc2600.host.commands as commands
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"nc2600.host.commands.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub, groups)
    for action in sub._choices_actions:     # `bench`'s help names every target the modules registered
        if action.dest == "bench":
            action.help = f"throughput benchmarks ({', '.join(sorted(groups['bench'].choices))})"
    return parser


def install_sigterm_handler() -> None:
    """Make SIGTERM raise :class:`nc2600.host.signals.Terminated` (a KeyboardInterrupt) in the main
    thread (:func:`nc2600.host.signals.on_sigterm`), so every command stops as on Ctrl-C: its cleanup
    runs, exit code 130, one line. SIGINT, when it has Python's default handler (not when
    ignored, as in a background job without job control), gets :func:`nc2600.host.signals.on_sigint`:
    the same KeyboardInterrupt, never raised inside an import."""
    import signal

    from nc2600.host.signals import on_sigint, redeliver_swallowed_interrupts, reset_stop
    reset_stop()                    # a command run in the same process after an earlier stop
    signal.signal(signal.SIGTERM, on_sigterm)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_sigint)
    sys.unraisablehook = redeliver_swallowed_interrupts


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    install_sigterm_handler()
    holder = {}

    def parse():
        holder["args"] = build_parser().parse_args(argv)
        return 0
    rc = guarded(parse)
    if "args" not in holder:
        return rc
    args = holder["args"]
    args.argv = list(sys.argv[1:] if argv is None else argv)     # the command line, for --record
    uses_ray = getattr(args, "uses_ray", None)     # a command's own test, else --cluster ray

    def decide():   # guarded too: it may read the run folder (run --resume), and Ctrl-C may come
        holder["ray"] = bool(uses_ray(args) if callable(uses_ray) else getattr(args, "cluster", None) == "ray")
        return 0
    rc = guarded(decide)
    if "ray" not in holder:
        return rc
    if holder["ray"] and hasattr(os, "fork"):
        # a Ray driver runs under a supervisor (nc2600.host.cluster.supervisor.supervised_driver): a SIGTERM to the
        # process group then cannot end Ray's daemons before the driver stops them
        from nc2600.host.cluster.supervisor import supervised_driver
        return supervised_driver(lambda: guarded(lambda: args.func(args)))
    return guarded(lambda: args.func(args))


def entry() -> None:
    """The ``nc2600`` program: :func:`main`, then the interpreter's shutdown with SIGTERM and
    SIGINT blocked. Python restores their default actions while it shuts down, so a SIGTERM
    there killed a run that had finished (status -15, no line); blocked, it is never delivered,
    and one already pending when the command ended means the command was stopped: 130 and
    the one line."""
    import signal

    from nc2600.host.signals import STOP_SIGNALS, interrupt_name
    try:
        rc = main()
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    except KeyboardInterrupt as exc:            # between the command's end and the block
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        sys.stderr.write(f"nc2600: {interrupt_name(exc)}\n")
        raise SystemExit(130) from None
    pending = signal.sigpending() & STOP_SIGNALS
    if pending and rc == 0:
        sys.stderr.write("nc2600: " + ("terminated (SIGTERM)" if signal.SIGTERM in pending else "interrupted") + "\n")
        rc = 130
    raise SystemExit(rc)


if __name__ == "__main__":
    entry()
