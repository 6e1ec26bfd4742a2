"""CLI plumbing: bad input gives one line on stderr and exit code 2."""
import subprocess
import sys


def _nc2600(*args):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True)


def test_unknown_subcommand_is_one_line_exit_2():
    proc = _nc2600("no-such-command")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "no-such-command" in proc.stderr
    assert "Traceback" not in proc.stderr


def _subparsers():
    """``{"mesh": parser, "bench mesh": parser, ...}`` of the command line."""
    import argparse

    from nc2600.host.cli import build_parser
    found = {}

    def walk(parser, prefix):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found[f"{prefix}{name}"] = sub
                    walk(sub, f"{prefix}{name} ")
    walk(build_parser(), "")
    return found


def test_help_shows_zero_defaults_and_plain_descriptions():
    """`--help` shows a default of 0 (a default equal to False but not False itself, e.g.
    `mesh --seed S  seed of the episode lengths (default: 0)`), no default for a flag, and a
    description taken from a module docstring without reStructuredText's double backquotes."""
    import re
    subs = _subparsers()
    mesh = subs["mesh"].format_help()
    for opt, words in (("--seed S", "seed of the episode lengths"), ("--fail-nodes K", "random node failures"),
                       ("--test-episodes E", "final test episodes of the elite")):
        assert re.search(re.escape(opt) + r"\s+" + re.escape(words) + r"\s+\(default: 0\)", mesh), opt
    assert "--json                print one JSON object\n" in mesh           # a flag: no "(default: False)"
    for name, parser in subs.items():
        text = parser.format_help()
        assert "``" not in text, name
        assert "(default: False)" not in text and "(default: None)" not in text, name
    assert "`nc2600 synth`: Yosys" in subs["synth"].format_help()


def test_top_level_help_of_run_names_its_backends():
    """``nc2600 --help`` says what ``run`` plays on: the three backends of the launcher's registry
    (ALE, the console RTL, the fabric instance), not ALE alone; ``run --help`` names them as
    ``--backend`` takes them, with its default."""
    from nc2600.host.launcher.evaluation import BACKENDS
    from nc2600.host.launcher.settings import RunConfig
    assert tuple(BACKENDS) == ("ale", "rtl", "fabric") and RunConfig().backend == "ale"
    proc = _nc2600("--help")
    assert proc.returncode == 0
    top = " ".join(proc.stdout.split())
    assert ("run run a neuroevolution experiment (deep GA, ES or random search) on an Atari game: on ALE, "
            "the console RTL or the fabric instance (--backend)") in top
    proc = _nc2600("run", "--help")
    assert proc.returncode == 0
    assert ("played by ale-py, the Verilated console RTL or the Verilated fabric instance "
            "(--backend ale, rtl or fabric; default ale).") in " ".join(proc.stdout.split())
