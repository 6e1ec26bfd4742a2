"""README.md is the front door: short, no line over 200 characters, the set-up commands in its
first screen, and every relative link pointing at a file of the repository."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_size():
    lines = README.splitlines()
    assert len(lines) <= 300
    long = [i for i, line in enumerate(lines, 1) if len(line) > 200]
    assert not long, f"lines over 200 characters: {long}"


def test_setup_commands_in_the_first_screen():
    first = "\n".join(README.splitlines()[:50])
    assert "make install" in first and "make test" in first


def test_relative_links_exist():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [x for x in links if not re.match(r"[a-z]+://", x)]
    assert local
    for target in local:
        assert (ROOT / target).exists(), target


def test_the_commands_table_names_every_command():
    from nc2600.host.cli import build_parser
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    names = re.findall(r"^\| `nc2600 ([a-z0-9-]+)", README, flags=re.M)
    for name in names:
        assert name in sub.choices, name
    # the table names every command once; "preprocess" is the alias of "preprocessor"
    commands = {name for name, parser in sub.choices.items() if parser.prog.split()[-1] == name}
    assert len(names) == len(set(names)) == len(commands) == 16 and set(names) == commands, (names, commands)
