"""The per-game console data file (``hls_models/console_settings.toml``): every game id is a
game ALE 0.12 loads, entries are checked when the file loads, and the ``setMode`` stop
conditions are rule-language expressions (hand-worked values below)."""
import ale_py
import ale_py.roms  # noqa: F401  (submodule)
import numpy as np
import pytest

from nc2600.hls_models.console_settings import (SETTINGS_PATH, ConsoleSettings, SelectMode, console_settings,
                                         listed_games, parse_settings)
from nc2600.hls_models.game_rules import RuleError


def test_every_game_id_is_an_ale_game():
    """Each id names a ROM that ale-py 0.12 ships and supports (``isSupportedROM``)."""
    ale_ids = set(ale_py.roms.get_all_rom_ids())
    listed = listed_games()
    assert len(listed) == 70
    for g in listed:
        assert g in ale_ids, g
        assert ale_py.ALEInterface.isSupportedROM(ale_py.roms.get_rom_path(g)), g
    assert "jamesbond" in listed and "james_bond" not in ale_ids


def test_a_wrong_game_id_is_refused():
    with pytest.raises(RuleError, match="'james_bond' is not a game of the rules table"):
        parse_settings('[games.james_bond]\nsetmode = "soft_reset"\n')


@pytest.mark.parametrize("entry,needle", [
    ('ystart = "34"', "ystart"),
    ("colour = true", "unknown field"),
    ('setmode = "select"', "setmode"),
    ('setmode = { until = "ram[0x12] == mode", select_frames = 2 }', "outside $80..$FF"),
    ('setmode = { until = "ram[0x80] == mode" }', "needs until and select_frames"),
    ('setmode = { until = "foo == 1", select_frames = 2 }', "unknown name 'foo'"),
    ("paddle_range = [1, 2]", "only for controller"),
    ('controller = "paddles"\npaddle_range = [5, 1]', "paddle_range"),
])
def test_malformed_entries_name_game_and_field(entry, needle):
    with pytest.raises(RuleError) as e:
        parse_settings(f"[games.pong]\n{entry}\n")
    assert "'pong'" in str(e.value) and needle in str(e.value)


def test_setmode_conditions_hand_worked():
    ram = np.zeros(128, np.uint8)
    sw = console_settings("space_war").setmode          # BCD mode number at $A7
    ram[0x27] = 0x12
    assert sw.until(ram, None, 12) and not sw.until(ram, None, 0x12)
    cb = console_settings("crossbow").setmode           # $8D holds mode + 1, 8-bit wrap
    ram[0x0D] = 0
    assert cb.until(ram, None, 255) and not cb.until(ram, None, 0)
    jb = console_settings("jamesbond").setmode          # $8C = mode or mode + $48
    ram[0x0C] = 0x48
    assert jb.until(ram, None, 0) and not jb.until(ram, None, 1)
    klax = console_settings("klax").setmode             # SuperChip RAM byte $6A
    x = np.zeros(128, np.uint8)
    x[0x6A] = 3
    assert klax.until(ram, x, 3) and not klax.until(ram, x, 2)
    assert isinstance(jb, SelectMode) and jb.select_frames == 20


def test_defaults_and_listed_values():
    assert console_settings("boxing") == ConsoleSettings(game="boxing")      # not listed: ALE's defaults
    pong = console_settings("pong")
    assert pong.paddles and pong.swap_paddles and pong.right_paddles and pong.paddle_range == (27450, 790196)
    assert console_settings("backgammon").paddle_range == (27450, 1_000_000)
    assert [console_settings(g).ystart for g in ("carnival", "pooyan", "qbert", "up_n_down")] == [26, 26, 40, 30]
    assert console_settings("adventure").setmode == "soft_reset"
    assert console_settings("gopher").setmode.soft_reset_first
    assert SETTINGS_PATH.name == "console_settings.toml"
