"""The table against the oracle: ale-py 0.12 run frame by frame, rule evaluated on its RAM."""
import json
import subprocess
import sys

import pytest

from nc2600.hls_models.game_rules import load_rules
from nc2600.host.verify.games_verify import CI_SAMPLE, verify_game
from tests.rotation import rotating_subset

#: this commit's 8 of the games outside the CI sample (tests/rotation.py: every game in 13 commits'
#: groups), checked as the slow sweep checks every game
ROTATION = rotating_subset(sorted(set(load_rules()) - set(CI_SAMPLE)), 8, salt="game_rules")


def _nc2600(*args):
    return subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True)


@pytest.mark.parametrize("game", CI_SAMPLE)
def test_sample_game_matches_ale_every_frame(game):
    res = verify_game(load_rules()[game], frames=3000, seed=1, max_episode_frames=1500)
    assert res["episodes"] >= 2
    assert (res["reward_mismatches"], res["terminal_mismatches"], res["lives_mismatches"]) == (0, 0, 0), res


def test_the_rotation_is_eight_games_outside_the_sample():
    assert len(load_rules()) == 104 and 7 <= len(ROTATION) <= 8 and not set(ROTATION) & set(CI_SAMPLE)


@pytest.mark.parametrize("game", ROTATION)
def test_rotating_games_match_ale_for_20000_frames(game):
    """This commit's group of the sweep below (``NC2600_ROTATION=N`` picks group N)."""
    res = verify_game(load_rules()[game], frames=20000, seed=0, max_episode_frames=18000)
    assert (res["reward_mismatches"], res["terminal_mismatches"], res["lives_mismatches"]) == (0, 0, 0), res


def test_a_wrong_rule_is_caught():
    """The check is not vacuous: pong with the score difference's sign flipped disagrees with ALE."""
    from nc2600.hls_models.game_rules import RULES_PATH, parse_rules
    text = RULES_PATH.read_text().replace("s = ram[0x8E] - ram[0x8D]", "s = ram[0x8D] - ram[0x8E]", 1)
    bad = parse_rules(text)["pong"]
    res = verify_game(bad, frames=3000, seed=3, max_episode_frames=3000)
    assert res["reward_mismatches"] > 0
    assert res["terminal_mismatches"] == 0 and res["lives_mismatches"] == 0


def test_cli_json_and_exit_code():
    proc = _nc2600("games", "verify", "--game", "pong", "--frames", "600", "--json")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()             # JSON Lines: the game's object, then the summary
    assert len(lines) == 2
    game, summary = json.loads(lines[0]), json.loads(lines[1])["summary"]
    assert summary["ok"] is True and summary["runs"] == 1 and game["game"] == "pong"
    assert game["frames"] == 600
    for key in ("episodes", "reward_mismatches", "terminal_mismatches", "lives_mismatches"):
        assert key in game


def test_cli_unknown_game_is_one_line_exit_2():
    proc = _nc2600("games", "verify", "--game", "no_such_game")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "nc2600: error: unknown game 'no_such_game'; did you mean name_this_game, lost_luggage?"]
    proc = _nc2600("games", "verify", "--game", "pongg")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["nc2600: error: unknown game 'pongg'; did you mean pong, pooyan, "
                                                "boxing?"]


def test_cli_needs_a_selection_and_valid_frames():
    proc = _nc2600("games", "verify")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    proc = _nc2600("games", "verify", "--all", "--frames", "0")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_cli_malformed_table_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    import nc2600.hls_models.game_rules as gr
    from nc2600.host.cli import main
    bad = tmp_path / "rules.toml"
    bad.write_text(gr.RULES_PATH.read_text().replace("s = dec(0xAA, 0xA9, 0xA8)", "s = dec(0xAA, 0xA9, 0x28)", 1))
    monkeypatch.setattr(gr, "RULES_PATH", bad)
    assert main(["games", "verify", "--game", "air_raid", "--frames", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["nc2600: error: game rules table: game 'air_raid', field 'step': RAM address 0x28 outside $80..$FF"]


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(load_rules()))
def test_every_game_matches_ale_for_20000_frames(game):
    """The full check (`nc2600 games verify --all`), one game per test; about 4 minutes in all."""
    res = verify_game(load_rules()[game], frames=20000, seed=0, max_episode_frames=18000)
    assert (res["reward_mismatches"], res["terminal_mismatches"], res["lives_mismatches"]) == (0, 0, 0), res


def test_cli_mode_not_available_is_one_line_exit_2():
    proc = _nc2600("games", "verify", "--game", "breakout", "--mode", "3")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "nc2600: error: mode 3 is not available for breakout (modes: 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44)"]


def test_non_default_mode_matches_ale():
    res = verify_game(load_rules()["breakout"], frames=2000, seed=5, max_episode_frames=2000, mode=12, difficulty=1)
    assert (res["reward_mismatches"], res["terminal_mismatches"], res["lives_mismatches"]) == (0, 0, 0), res
