"""Hand-worked frames through real table entries (rules read from ALE 0.12's RomSettings)."""
import numpy as np
import pytest

from nc2600.hls_models.game_rules import RuleState, load_rules


def ram_with(**bytes_at):
    ram = np.zeros(128, np.uint8)
    for k, v in bytes_at.items():
        ram[int(k[1:], 16) - 0x80] = v
    return ram


@pytest.fixture(scope="module")
def rules():
    return load_rules()


def test_breakout_score_lives_and_started_latch(rules):
    st = RuleState(rules["breakout"])
    # Before 5 lives were ever seen, 0 lives is not game over (the attract mode).
    assert st.reset(ram_with(xB9=0)) == (0, False, 0)
    assert st.step(ram_with(xB9=5)) == (0, False, 5)
    # Score 1 x $CC low nibble (hundreds) + BCD $CD: $02,$47 -> 247.
    assert st.step(ram_with(xB9=5, xCC=0x02, xCD=0x47)) == (247, False, 5)
    assert st.step(ram_with(xB9=0, xCC=0x02, xCD=0x54)) == (7, True, 0)


def test_asteroids_score_wraps_at_100000(rules):
    st = RuleState(rules["asteroids"])
    st.reset(ram_with(xBC=0x40, xBD=0x99, xBE=0x90))      # 10 x 9990 = 99900, 4 lives
    assert st.registers["score"] == 99900
    r, term, lives = st.step(ram_with(xBC=0x40, xBD=0x00, xBE=0x02))   # 20 after the wrap
    assert (r, term, lives) == (100000 - 99900 + 20, False, 4)


def test_qbert_signed_lives_counter(rules):
    st = RuleState(rules["qbert"])
    st.reset(ram_with(x88=2))
    assert st.lives == 4
    assert st.step(ram_with(x88=1))[2] == 3       # 2 -> 1: one life lost
    assert st.step(ram_with(x88=0))[2] == 2
    assert st.step(ram_with(x88=0xFF))[2] == 1    # 0 -> -1 (signed byte)
    assert st.step(ram_with(x88=0xFE)) == (0, True, 0)


def test_tennis_reward_from_point_then_game_difference(rules):
    st = RuleState(rules["tennis"])
    st.reset(ram_with())
    assert st.step(ram_with(xC5=1)) == (1, False, 0)            # I win a game
    assert st.step(ram_with(xC5=1, xC8=1)) == (-1, False, 0)    # they win a set point
    # Game difference 1 -> 0 with the point difference unchanged: the game change counts.
    assert st.step(ram_with(xC5=0, xC8=1)) == (-1, False, 0)
    assert st.step(ram_with(xC5=0, xC8=1)) == (0, False, 0)
    assert st.registers == {"reward": 0, "terminal": False, "prev_points": -1, "prev_games": 0}


def test_gopher_lives_from_carrot_bits(rules):
    st = RuleState(rules["gopher"])
    st.reset(ram_with(xB4=0b111))
    assert st.lives == 3
    assert st.step(ram_with(xB4=0b101))[2] == 2
    assert st.step(ram_with(xB4=0b000)) == (0, True, 0)


def test_klax_needs_cartridge_ram(rules):
    st = RuleState(rules["klax"])
    with pytest.raises(ValueError, match="cartridge RAM"):
        st.step(ram_with())
    x = np.zeros(128, np.uint8)
    x[0x34], x[0x35] = 0x50, 0x01                               # 150
    st.reset(ram_with(), x)
    x[0x34] = 0x75
    assert st.step(ram_with(), x) == (25, False, 1)


def test_ram_shape_is_checked(rules):
    st = RuleState(rules["pong"])
    with pytest.raises(ValueError, match="shape"):
        st.step(np.zeros(64, np.uint8))
