"""Palette and grey LUT against ALE 0.12 itself (getScreen / getScreenGrayscale / getScreenRGB)."""
from __future__ import annotations

import numpy as np
import pytest

from nc2600.hls_models import palette


def _frames(game: str, n: int = 120, seed: int = 5):
    from nc2600.host.episodes.ale_oracle import open_ale
    from nc2600.host.games import resolve_rom
    _, rom = resolve_rom(game=game)
    ale = open_ale(rom)
    actions = ale.getMinimalActionSet()
    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        ale.act(actions[int(rng.integers(len(actions)))])
        if t % 10 == 9:
            out.append((ale.getScreen(), ale.getScreenGrayscale(), ale.getScreenRGB()))
    return out


@pytest.mark.parametrize("game,fmt", [("pong", "NTSC"), ("journey_escape", "NTSC"),
                                      ("air_raid", "PAL"), ("adventure", "PAL")])
def test_lut_equals_ale_grey_and_rgb(game, fmt):
    seen_odd = False
    for screen, grey, rgb in _frames(game):
        assert np.array_equal(palette.grey_lut(fmt)[screen], grey)
        assert np.array_equal(palette.rgb_lut(fmt)[screen], rgb)
        seen_odd |= bool((screen & 1).any())
    if game == "air_raid":       # the game that writes odd colour values (bit 0 set)
        assert seen_odd


def test_grey_formula_hand_values():
    # NTSC colour 0x08 = (0x48, 0x48, 0x00): 0.2989*72 + 0.5870*72 = 63.79 -> 64
    assert palette.grey_lut("NTSC")[0x10] == 64
    # PAL luminance ramp of hue 0 is grey already: (0x2B,0x2B,0x2B) -> 43
    assert palette.grey_lut("PAL")[2] == 0x2B
    # odd index: blue channel of the next colour; 255 reads past the table -> 0
    assert palette.grey_lut("NTSC")[0x0F] == 0x00 and palette.grey_lut("NTSC")[0x11] == 0x0F
    assert palette.grey_lut("NTSC")[255] == 0 and palette.grey_lut("PAL")[255] == 0


def test_bad_input():
    with pytest.raises(ValueError, match="uint8"):
        palette.to_grey(np.zeros((210, 160), np.int32))
    with pytest.raises(ValueError, match="NTSC"):
        palette.grey_lut("SECAM")
