"""Every ``--json`` output is JSON Lines (one JSON object per line).

``test_every_json_command_is_covered`` walks the real argument parser, so a new command with
``--json`` must be added to ``RUNS`` (or to ``ELSEWHERE`` with the test that covers it).
Each run below is the command's cheap form; the oracle is the ``json`` module reading each
line on its own."""
import json

import pytest

from nc2600.host.cli import build_parser, main

#: command path -> argv of a cheap run and the number of lines it must print
RUNS = {
    ("games",): (["games", "--json"], 104),
    ("games", "verify"): (["games", "verify", "--game", "pong", "--game", "boxing", "--frames", "300", "--json"], 3),
    ("lockstep",): (["lockstep", "--games", "boxing,seaquest", "--frames", "5", "--json"], 3),
    ("mesh",): (["mesh", "--json", "--population", "200", "--elite-episodes", "5"], 1),
    ("bench", "mesh"): (["bench", "mesh", "--json"], 1),
    ("preprocessor",): (["preprocessor", "--game", "pong", "--frames", "8", "--json"], 1),
    ("input-probe",): (["input-probe", "--game", "boxing", "--decisions", "3", "--json"], 1),
}
#: commands with --json whose JSON Lines output other tests check (they need a run folder, a
#: Verilated instance, yosys or a CPU image): the test that checks it
ELSEWHERE = {
    ("cpu-run",): "tests/cpu6507/test_cpu_run_cli.py (one JSON line per run)",
    ("bench", "cpu"): "tests/cpu6507 (bench cpu: one JSON line)",
    ("play",): "tests/host/test_play.py (episode lines, then a summary line)",
    ("instance-play",): "tests/instance (one JSON line per episode)",
    ("instance-lockstep",): "tests/instance/test_instance_lockstep.py (one JSON line per game, then a summary)",
    ("synth",): "tests/synth/test_synth.py::test_cli_one_block_json (one line)",
}


def _json_commands():
    """Paths of the subcommands that take ``--json`` (from the parser itself)."""
    import argparse
    found, seen = set(), set()

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():     # an alias maps to a parser already seen
                    if id(sub) not in seen:
                        seen.add(id(sub))
                        walk(sub, path + (name,))
            elif "--json" in action.option_strings:
                found.add(path)
    walk(build_parser(), ())
    return found


def test_every_json_command_is_covered():
    assert _json_commands() == set(RUNS) | set(ELSEWHERE)


@pytest.mark.parametrize("path", sorted(RUNS), ids=" ".join)
def test_json_output_is_one_object_per_line(path, capsys):
    argv, n_lines = RUNS[path]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert len(lines) == n_lines, out[:500]
    for line in lines:
        assert isinstance(json.loads(line), dict), line[:200]
    if n_lines > 1 and path != ("games",):    # sweeps: the objects, then one summary line
        assert set(json.loads(lines[-1])) == {"summary"}
        assert all("summary" not in json.loads(ln) for ln in lines[:-1])


def test_single_game_lockstep_is_one_line(capsys):
    assert main(["lockstep", "--game", "boxing", "--frames", "3", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["game"] == "boxing" and json.loads(lines[0])["match"]
