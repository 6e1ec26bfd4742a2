"""The fixed numbers of the platform, in one place: the 2600's frame geometry and clocks.

Frame geometry (Stella Programmer's Guide, 1979, sec. 3): a scanline is 228 colour clocks,
68 of horizontal blank then 160 visible pixels (one pixel per colour clock); an NTSC frame is
262 scanlines, a PAL frame 312. The colour clock runs at 3,579,545 Hz (NTSC) or 3,546,894 Hz
(PAL); the 6507 CPU steps once every 3 colour clocks. ALE's screen is 160 pixels wide and
210 (NTSC) or 250 (PAL) rows tall.
"""
from __future__ import annotations

COLOUR_CLOCKS_PER_LINE = 228     #: colour clocks per scanline
HBLANK_COLOUR_CLOCKS = 68        #: colour clocks of horizontal blank at the start of a line
VISIBLE_PIXELS = 160             #: visible pixels (colour clocks) per line
COLOUR_CLOCKS_PER_CPU_CYCLE = 3  #: the 6507 steps on every third colour clock
LINES = {"NTSC": 262, "PAL": 312}                    #: scanlines per frame
COLOUR_CLOCK_HZ = {"NTSC": 3_579_545, "PAL": 3_546_894}
SCREEN_ROWS = {"NTSC": 210, "PAL": 250}              #: rows of ALE's screen

#: colour clocks of one NTSC frame (59,736)
NTSC_COLOUR_CLOCKS_PER_FRAME = LINES["NTSC"] * COLOUR_CLOCKS_PER_LINE


def frame_rate(display: str) -> float:
    """Real frames/s of the console: NTSC 59.92, PAL 49.86 (``display`` ``"NTSC"``/``"PAL"``).

    Raises:
        KeyError: another display name.
    """
    return COLOUR_CLOCK_HZ[display] / (LINES[display] * COLOUR_CLOCKS_PER_LINE)
