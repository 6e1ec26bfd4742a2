"""Game catalogue and mapper detection against ALE's own auto-detection log line."""
import re
import subprocess
import sys
from collections import Counter

from nc2600.hls_models.cartridge import count_signature, detect_mapper
from nc2600.host.games import game_info, loadable_games

#: A raw ALEInterface on purpose (not nc2600.host.episodes.ale_oracle.open_ale, which silences ALE's log):
#: the test reads ALE's own Info log line.
_ALE_LOG = """
import ale_py, ale_py.roms, sys
ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Info)
for name in sys.argv[1:]:
    print("GAME " + name, file=sys.stderr, flush=True)
    ale_py.ALEInterface().loadROM(ale_py.roms.get_rom_path(name))
"""


def test_loadable_games_are_alE_supported_set():
    games = loadable_games()
    assert len(games) == 104
    for refused in ("combat", "joust", "maze_craze", "warlords"):
        assert refused not in games


def test_mapper_detection_matches_ale_log_for_every_game():
    games = loadable_games()
    proc = subprocess.run([sys.executable, "-c", _ALE_LOG, *games], capture_output=True, text=True, check=True)
    ale_types, current = {}, None
    for line in proc.stderr.splitlines():
        if line.startswith("GAME "):
            current = line[5:]
        m = re.search(r"Bankswitch Type:\s+AUTO-DETECT ==> (\S+)", line)
        if m:
            ale_types[current] = m.group(1)
    assert len(ale_types) == 104
    ours = {g: detect_mapper(game_info(g).rom_path.read_bytes()) for g in games}
    assert ours == ale_types
    assert Counter(ours.values()) == {"4K": 50, "F8": 23, "2K": 19, "F6": 4, "E0": 3, "F6SC": 2,
                                      "F8SC": 1, "DPC": 1, "FE": 1}


def test_game_info_hand_checked():
    info = game_info("pong")
    assert (info.mapper, info.rom_bytes, info.screen_height, info.display) == ("2K", 2048, 210, "NTSC")
    assert info.minimal_actions == (0, 1, 3, 4, 11, 12) and info.fire_reset
    assert game_info("pitfall2").mapper == "DPC"
    assert game_info("carnival").screen_height == 214
    assert game_info("adventure").display == "PAL"


def test_signature_scan_hand_worked():
    assert count_signature(b"\x85\x3f\x00\x85\x3f\x00", b"\x85\x3f", 2)
    # the scan skips len+1 bytes after a hit, so back-to-back signatures count once
    assert not count_signature(b"\x85\x3f\x85\x3f\x00", b"\x85\x3f", 2)
    # the last possible start offset is not examined
    assert not count_signature(b"\x00\x85\x3f", b"\x85\x3f", 1)
