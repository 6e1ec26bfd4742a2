"""Branches random play never reaches, driven in ALE itself by writing RAM (setRAM) mid-game.

ALE's settings and the rule read the same RAM after each frame, so the comparison stays an
oracle check; each case also asserts that ALE really reported game over (the branch ran).
"""
import pytest

from nc2600.hls_models.game_rules import RuleState, load_rules

BOARD = {a: 0 for lo in (0x80, 0x89, 0x92, 0x9B) for a in range(lo, lo + 8)}   # the 32 dark squares

CASES = {
    # game: (frames before the write, {address: value})
    "pitfall2": (200, {0xC7: 0x19, 0xC8: 0x90, 0xC9: 0x00}),                 # score 199000
    "superman": (200, {0x80: 0xAC, 0x81: 0xF2, 0x9F: 0x40}),                 # Clark Kent at $F2AC
    "backgammon": (100, {**{a: 0 for a in range(0x80, 0x9C)}, 0x8E: 15, 0x81: 0xF1}),  # computer bears off 15
    "video_cube": (300, {a: 0x11 for a in range(0xA0, 0xD6)}),               # all six faces one colour
    "video_chess": (200, {0xE1: 0x82, 0xEE: 0x00}),                          # white's turn, black mated
    "video_checkers": (200, {**BOARD, 0x80: 0x10}),                          # no white piece left
    "earthworld": (200, {0xA7: 0x10}),                                       # score 10
    "space_war": (200, {0x80: 0x00}),                                        # timer out
    "darkchambers": (600, {0xCA: 0x00}),                                     # no health
    "elevator_action": (200, {0x83: 0x00, 0x81: 0x01}),                      # no lives, not start screen
    "miniature_golf": (200, {0xAF: 0x00}),                                    # back to hole 0: course over
}


def _ale(game, mode=None):
    from ale_py import roms

    from nc2600.host.episodes.ale_oracle import open_ale
    return open_ale(roms.get_rom_path(game), mode=mode, reset=mode is not None)


@pytest.mark.parametrize("game, mode, expect_reward", [(g, None, None) for g in sorted(CASES)]
                         + [("video_checkers", 1, 1), ("video_checkers", 11, -1)])
def test_rare_game_over_branch_matches_ale(game, mode, expect_reward):
    """Mode 11 is reverse checkers: losing every piece of the other side costs a point."""
    pre_frames, writes = CASES[game]
    ale = _ale(game, mode)
    noop = ale.getMinimalActionSet()[0]
    state = RuleState(load_rules()[game], mode)
    ale.reset_game()
    assert state.reset(ale.getRAM())[1:] == (ale.game_over(), ale.lives())
    for _ in range(pre_frames):
        reward = ale.act(noop)
        assert state.step(ale.getRAM()) == (reward, ale.game_over(), ale.lives())
    assert not ale.game_over()
    for addr, value in writes.items():
        ale.setRAM(addr - 0x80, value)
    for _ in range(3):
        reward = ale.act(noop)
        assert state.step(ale.getRAM()) == (reward, ale.game_over(), ale.lives())
        if ale.game_over():
            break
    assert ale.game_over(), f"{game}: the write did not reach ALE's game over"
    if expect_reward is not None:
        assert reward == expect_reward
