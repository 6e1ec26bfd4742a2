"""The rules table loads, covers every loadable game, and rejects malformed entries by name."""
from pathlib import Path

import numpy as np
import pytest

from nc2600.hls_models.game_rules import RULES_PATH, RuleError, RuleState, load_rules, parse_rules, render_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_table_covers_the_104_loadable_games():
    """Oracle: the bundled ROMs that ALE 0.12 itself accepts (``isSupportedROM``)."""
    from nc2600.host.games import loadable_games
    rules = load_rules()
    assert sorted(rules) == sorted(loadable_games())
    assert len(rules) == 104


def test_metadata_matches_ale():
    """minimal action sets, modes and difficulties as ale-py 0.12 reports them."""
    from ale_py import Action, roms

    from nc2600.host.episodes.ale_oracle import open_ale
    rules = load_rules()
    for name in sorted(rules):
        ale = open_ale(roms.get_rom_path(name))
        rule = rules[name]
        assert [Action(a).name for a in ale.getMinimalActionSet()] == list(rule.minimal_actions), name
        assert [int(m) for m in ale.getAvailableModes()] == list(rule.modes), name
        assert [int(d) for d in ale.getAvailableDifficulties()] == list(rule.difficulties), name
        assert rule.minimal_action_ids == tuple(a.value for a in ale.getMinimalActionSet())


def _entry(extra="", step="s = dec(0x80)\nreward = s - score\nscore = s\nterminal = ram[0x81] == 1", **fields):
    lines = ["[games.toy]", 'vars = { reward = 0, terminal = false, score = 0 }',
             f"step = '''\n{step}\n'''", 'minimal_actions = ["NOOP", "FIRE"]', "modes = [0]", "difficulties = [0]"]
    for k, v in fields.items():
        lines.append(f"{k} = {v}")
    return "\n".join(lines) + "\n" + extra


def test_toy_entry_parses_and_evaluates():
    rule = parse_rules(_entry())["toy"]
    assert rule.ram_addresses == (0x80, 0x81)
    st = RuleState(rule)
    ram = np.zeros(128, np.uint8)
    assert st.reset(ram) == (0, False, 1)
    ram[0] = 0x12
    assert st.step(ram) == (12, False, 1)
    ram[0] = 0x2A           # nibble above 9 decodes as ALE does: 2*10 + 10 = 30
    ram[1] = 1
    assert st.step(ram) == (18, True, 0)


@pytest.mark.parametrize("step, field, fragment", [
    ("reward = nosuch + 1\nterminal = False", "step", "unknown name 'nosuch'"),
    ("reward = ram[0x7F]\nterminal = False", "step", "outside $80..$FF"),
    ("reward = 1.5\nterminal = False", "step", "not an integer"),
    ("reward = open(1)\nterminal = False", "step", "unknown function 'open'"),
    ("ram = 3\nterminal = False", "step", "reserved name 'ram'"),
    ("reward = (1\nterminal = False", "step", "syntax error"),
    ("reward = [x for x in score]\nterminal = False", "step", "unsupported syntax"),
    ("reward = score.__class__\nterminal = False", "step", "unsupported syntax"),
    ("import os", "step", "only 'name = expression'"),
    ("reward = dec(0x80, 0x81, 0x82, 0x83)", "step", "1..3 arguments"),
])
def test_malformed_step_names_game_and_field(step, field, fragment):
    with pytest.raises(RuleError) as exc:
        parse_rules(_entry(step=step))
    msg = str(exc.value)
    assert "'toy'" in msg and f"'{field}'" in msg and fragment in msg


@pytest.mark.parametrize("fields, field, fragment", [
    ({"starting_actions": '["JUMP"]'}, "starting_actions", "unknown action 'JUMP'"),
    ({"lives": '"game_over + nosuch"'}, "lives", "unknown name 'nosuch'"),
    ({"terminal": '"game_over"'}, "terminal", "only available in the lives output"),
    ({"default_mode": "4"}, "default_mode", "not in modes"),
    ({"colour": "1"}, "colour", "unknown field"),
])
def test_malformed_fields_name_game_and_field(fields, field, fragment):
    with pytest.raises(RuleError) as exc:
        parse_rules(_entry(**fields))
    msg = str(exc.value)
    assert "'toy'" in msg and f"'{field}'" in msg and fragment in msg


def test_missing_field_and_bad_vars():
    text = "[games.toy]\nvars = { reward = 0 }\nstep = 'reward = 1'\nmodes = [0]\ndifficulties = [0]\n"
    with pytest.raises(RuleError, match="'toy', field 'minimal_actions': missing"):
        parse_rules(text)
    with pytest.raises(RuleError, match="'toy', field 'vars'.*'x y'"):
        parse_rules(_entry().replace("score = 0 }", '"x y" = 0 }'))
    with pytest.raises(RuleError, match="not valid TOML"):
        parse_rules("[games.toy\n")


def test_docs_are_generated_from_the_table():
    doc = (ROOT / "docs" / "game_rules.md").read_text()
    assert doc == render_markdown(load_rules())
    assert "| breakout | $B9 $CC $CD |" in doc


def test_rules_path_is_the_package_file():
    assert RULES_PATH.name == "game_rules.toml" and RULES_PATH.exists()
