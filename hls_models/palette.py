"""Atari 2600 colour palettes (NTSC, PAL) and the palette-index -> 8-bit grey lookup table.

The TIA outputs a 7-bit colour per colour clock: hue in bits 7..4, luminance in bits 3..1
(bit 0 of the COLUxx registers is not a colour bit). ALE 0.12 reports it as an 8-bit *palette
index* per pixel (``ALEInterface.getScreen``). The RGB value of each of the
128 colours is Stella's "standard" palette as embedded in ALE 0.12
(``src/ale/common/Palettes.hpp``, even entries; the odd entries there hold the grey of
the preceding colour). The tables below hold those 128 RGB values, one row per hue.

Grey (ALE 0.12 ``ColourPalette::convertGrayscale``, used by ``getScreenGrayscale``)::

    grey = round_half_up(0.2989 R + 0.5870 G + 0.1140 B)      (evaluated in float64)

Odd palette indices. ALE's frame buffer holds the colour register value as written, bit 0
included, and some games write odd values (air_raid does, on many rows). ALE 0.12 looks the
screen up in a 256-entry table whose odd entries hold greys, so for an odd index ``p``:

- ``getScreenRGB`` gives ``(g, g, g)`` with ``g`` the grey of colour ``p - 1``;
- ``getScreenGrayscale`` reads entry ``p + 1`` (an RGB colour) and keeps its low byte, i.e.
  the *blue* channel of colour ``p + 1``; for ``p = 255`` it reads one entry past the
  table, which is 0 in ALE 0.12 for both formats (measured).

:func:`grey_lut` reproduces all 256 entries, so that
``grey_lut(fmt)[ale.getScreen()] == ale.getScreenGrayscale()`` exactly, odd indices included
(checked on real NTSC and PAL game frames, air_raid among them, by ``tests/preprocessor``).
The preprocessor RTL therefore takes the full 8-bit index, and a console feeding it must pass
bit 0 of the colour registers through as Stella 2.4.2 does.

SECAM is not provided: no game that ALE 0.12 loads is SECAM.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

#: display formats with a palette here
FORMATS = ("NTSC", "PAL")

NTSC_RGB = np.array([
    0x000000, 0x4A4A4A, 0x6F6F6F, 0x8E8E8E, 0xAAAAAA, 0xC0C0C0, 0xD6D6D6, 0xECECEC,   # hue 0
    0x484800, 0x69690F, 0x86861D, 0xA2A22A, 0xBBBB35, 0xD2D240, 0xE8E84A, 0xFCFC54,   # hue 1
    0x7C2C00, 0x904811, 0xA26221, 0xB47A30, 0xC3903D, 0xD2A44A, 0xDFB755, 0xECC860,   # hue 2
    0x901C00, 0xA33915, 0xB55328, 0xC66C3A, 0xD5824A, 0xE39759, 0xF0AA67, 0xFCBC74,   # hue 3
    0x940000, 0xA71A1A, 0xB83232, 0xC84848, 0xD65C5C, 0xE46F6F, 0xF08080, 0xFC9090,   # hue 4
    0x840064, 0x97197A, 0xA8308F, 0xB846A2, 0xC659B3, 0xD46CC3, 0xE07CD2, 0xEC8CE0,   # hue 5
    0x500084, 0x68199A, 0x7D30AD, 0x9246C0, 0xA459D0, 0xB56CE0, 0xC57CEE, 0xD48CFC,   # hue 6
    0x140090, 0x331AA3, 0x4E32B5, 0x6848C6, 0x7F5CD5, 0x956FE3, 0xA980F0, 0xBC90FC,   # hue 7
    0x000094, 0x181AA7, 0x2D32B8, 0x4248C8, 0x545CD6, 0x656FE4, 0x7580F0, 0x8490FC,   # hue 8
    0x001C88, 0x183B9D, 0x2D57B0, 0x4272C2, 0x548AD2, 0x65A0E1, 0x75B5EF, 0x84C8FC,   # hue 9
    0x003064, 0x185080, 0x2D6D98, 0x4288B0, 0x54A0C5, 0x65B7D9, 0x75CCEB, 0x84E0FC,   # hue A
    0x004030, 0x18624E, 0x2D8169, 0x429E82, 0x54B899, 0x65D1AE, 0x75E7C2, 0x84FCD4,   # hue B
    0x004400, 0x1A661A, 0x328432, 0x48A048, 0x5CBA5C, 0x6FD26F, 0x80E880, 0x90FC90,   # hue C
    0x143C00, 0x355F18, 0x527E2D, 0x6E9C42, 0x87B754, 0x9ED065, 0xB4E775, 0xC8FC84,   # hue D
    0x303800, 0x505916, 0x6D762B, 0x88923E, 0xA0AB4F, 0xB7C25F, 0xCCD86E, 0xE0EC7C,   # hue E
    0x482C00, 0x694D14, 0x866A26, 0xA28638, 0xBB9F47, 0xD2B656, 0xE8CC63, 0xFCE070,   # hue F
], dtype=np.uint32)

PAL_RGB = np.array([
    0x000000, 0x2B2B2B, 0x525252, 0x767676, 0x979797, 0xB6B6B6, 0xD2D2D2, 0xECECEC,   # hue 0
    0x000000, 0x2B2B2B, 0x525252, 0x767676, 0x979797, 0xB6B6B6, 0xD2D2D2, 0xECECEC,   # hue 1
    0x805800, 0x96711A, 0xAB8732, 0xBE9C48, 0xCFAF5C, 0xDFC06F, 0xEED180, 0xFCE090,   # hue 2
    0x445C00, 0x5E791A, 0x769332, 0x8CAC48, 0xA0C25C, 0xB3D76F, 0xC4EA80, 0xD4FC90,   # hue 3
    0x703400, 0x89511A, 0xA06B32, 0xB68448, 0xC99A5C, 0xDCAF6F, 0xECC280, 0xFCD490,   # hue 4
    0x006414, 0x1A8035, 0x329852, 0x48B06E, 0x5CC587, 0x6FD99E, 0x80EBB4, 0x90FCC8,   # hue 5
    0x700014, 0x891A35, 0xA03252, 0xB6486E, 0xC95C87, 0xDC6F9E, 0xEC80B4, 0xFC90C8,   # hue 6
    0x005C5C, 0x1A7676, 0x328E8E, 0x48A4A4, 0x5CB8B8, 0x6FCBCB, 0x80DCDC, 0x90ECEC,   # hue 7
    0x70005C, 0x841A74, 0x963289, 0xA8489E, 0xB75CB0, 0xC66FC1, 0xD380D1, 0xE090E0,   # hue 8
    0x003C70, 0x195A89, 0x2F75A0, 0x448EB6, 0x57A5C9, 0x68BADC, 0x79CEEC, 0x88E0FC,   # hue 9
    0x580070, 0x6E1A89, 0x8332A0, 0x9648B6, 0xA75CC9, 0xB76FDC, 0xC680EC, 0xD490FC,   # hue A
    0x002070, 0x193F89, 0x2F5AA0, 0x4474B6, 0x578BC9, 0x68A1DC, 0x79B5EC, 0x88C8FC,   # hue B
    0x340080, 0x4A1A96, 0x5F32AB, 0x7248BE, 0x835CCF, 0x936FDF, 0xA280EE, 0xB090FC,   # hue C
    0x000088, 0x1A1A9D, 0x3232B0, 0x4848C2, 0x5C5CD2, 0x6F6FE1, 0x8080EF, 0x9090FC,   # hue D
    0x000000, 0x2B2B2B, 0x525252, 0x767676, 0x979797, 0xB6B6B6, 0xD2D2D2, 0xECECEC,   # hue E
    0x000000, 0x2B2B2B, 0x525252, 0x767676, 0x979797, 0xB6B6B6, 0xD2D2D2, 0xECECEC,   # hue F
], dtype=np.uint32)
NTSC_RGB.setflags(write=False)
PAL_RGB.setflags(write=False)


def _check_format(fmt: str) -> str:
    key = str(fmt).upper()
    if key not in FORMATS:
        raise ValueError(f"display format must be one of {FORMATS}, got {fmt!r}")
    return key


def colours(fmt: str = "NTSC") -> np.ndarray:
    """The 128 colours of ``fmt`` as ``(128, 3)`` uint8 RGB, indexed by ``palette_index >> 1``."""
    packed = (NTSC_RGB if _check_format(fmt) == "NTSC" else PAL_RGB).astype(np.int64)
    rgb = np.stack([(packed >> 16) & 0xFF, (packed >> 8) & 0xFF, packed & 0xFF], axis=1)
    return rgb.astype(np.uint8)


@lru_cache(maxsize=None)
def rgb_lut(fmt: str = "NTSC") -> np.ndarray:
    """``(256, 3)`` uint8: ALE 0.12's ``getScreenRGB`` value of every 8-bit palette index.

    Even ``p``: colour ``p >> 1``. Odd ``p``: grey ``(g, g, g)`` of colour ``p >> 1``
    (ALE's table interleaves each colour with its grey).
    """
    rgb = colours(fmt)
    lut = np.repeat(rgb, 2, axis=0)
    lut[1::2] = grey_of_rgb(rgb)[:, None]
    lut.setflags(write=False)
    return lut


def grey_of_rgb(rgb: np.ndarray) -> np.ndarray:
    """ALE 0.12 grey of ``(..., 3)`` uint8 RGB: ``round_half_up(0.2989 R + 0.5870 G + 0.1140 B)``, uint8."""
    c = np.asarray(rgb).astype(np.float64)
    lum = c[..., 0] * 0.2989 + c[..., 1] * 0.5870 + c[..., 2] * 0.1140
    return np.floor(lum + 0.5).astype(np.uint8)


@lru_cache(maxsize=None)
def grey_lut(fmt: str = "NTSC") -> np.ndarray:
    """``(256,)`` uint8 palette-index -> grey table of ``fmt`` ("NTSC" or "PAL").

    ``grey_lut(fmt)[screen]`` with ``screen = ale.getScreen()`` equals
    ``ale.getScreenGrayscale()`` (ALE 0.12), odd indices included (module doc). This is the
    256-entry ROM of the preprocessor RTL (:mod:`nc2600.hw.preprocessor`).
    """
    rgb = colours(fmt)
    lut = np.empty(256, np.uint8)
    lut[0::2] = grey_of_rgb(rgb)
    lut[1:255:2] = rgb[1:, 2]          # odd p < 255: blue channel of colour (p + 1) >> 1
    lut[255] = 0                       # one past ALE's table: 0 (measured, ALE 0.12)
    lut.setflags(write=False)
    return lut


def to_grey(screen: np.ndarray, fmt: str = "NTSC") -> np.ndarray:
    """Grey image of palette-index screens: ``(..., H, W)`` uint8 -> same shape uint8.

    Raises:
        ValueError: ``screen`` is not uint8 (palette indices are 8-bit).
    """
    screen = np.asarray(screen)
    if screen.dtype != np.uint8:
        raise ValueError(f"palette-index screen must be uint8 of shape (..., H, W), got dtype {screen.dtype}")
    return grey_lut(fmt)[screen]
