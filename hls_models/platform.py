"""The fixed numbers of the platform, in one place: the 2600's frame geometry and clocks, the
frame skip of the experiments, and the target FPGA's capacities.

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

#: The console configuration of the default instance, and the default of every console and
#: instance everywhere (``Console``, ``GameInstance``, the harnesses, the CLI's ``--colour-clocks``):
#: 3 colour clocks per fabric clock (one CPU cycle per clock); 1 is the published machine's
#: (one colour clock per clock, the CPU stepping on every third).
DEFAULT_COLOUR_CLOCKS = 3
COLOUR_CLOCK_CONFIGS = (1, 3)    #: the console configurations (colour clocks per fabric clock)

#: colour clocks of one NTSC frame (59,736)
NTSC_COLOUR_CLOCKS_PER_FRAME = LINES["NTSC"] * COLOUR_CLOCKS_PER_LINE


def frame_rate(display: str) -> float:
    """Real frames/s of the console: NTSC 59.92, PAL 49.86 (``display`` ``"NTSC"``/``"PAL"``).

    Raises:
        KeyError: another display name.
    """
    return COLOUR_CLOCK_HZ[display] / (LINES[display] * COLOUR_CLOCKS_PER_LINE)


#: Emulated frames per decision and per pushed observation (Such et al. 2017, after Mnih et al.
#: 2015): the default of ``nc2600 run --frame-skip``, the frame-skip controller and the models.
FRAME_SKIP = 4

#: XC7Z045 programmable-logic resources. Source: Xilinx DS190 "Zynq-7000 SoC Data Sheet:
#: Overview" (v1.11.1, 2018), Table 1 (Zynq-7000 SoC Family Description), column Z-7045:
#: 218,600 LUTs, 437,200 flip-flops, 19.2 Mb block RAM = 545 x 36 Kb, 900 DSP slices.
XC7Z045 = {"device": "XC7Z045", "luts": 218_600, "ff": 437_200, "bram36": 545, "dsp": 900,
           "source": "Xilinx DS190 Zynq-7000 SoC Data Sheet: Overview, Table 1 (Z-7045)"}
