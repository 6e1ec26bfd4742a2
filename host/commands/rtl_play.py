"""``nc2600 rtl-play``: run the console RTL alone (no ALE emulation) and save what it did.

From power-on through the same reset sequence ALE performs when it loads a ROM
(:mod:`nc2600.host.drivers.rtl_console`), then one action per frame (frame 0 is the first frame after
that sequence, as for ALE's first ``act``). Writes into ``--out``:

* ``ram.npy``: (frames, 128) uint8, RIOT RAM after each frame;
* ``screens.npy``: (frames, Height, 160) uint8 palette indices after each frame;
* ``colour_clocks.npy``: (frames,) int64, colour clocks run by each frame.

All three are written under temporary names and renamed only when all three are complete
(an older set in ``--out`` is replaced as a whole).
"""
from __future__ import annotations


def run(args) -> int:
    from nc2600.host.drivers.rtl_play import rtl_play
    print(rtl_play(args.game, args.actions, args.out, args.colour_clocks))
    return 0


def register(subparsers, groups) -> None:
    p = subparsers.add_parser("rtl-play", help="run the console RTL alone on a list of actions",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, help="ALE ROM id")
    p.add_argument("--actions", required=True, help="PATH.npy: 1-D integer ALE action ids 0..17, one per frame")
    p.add_argument("--out", required=True, help="output folder")
    from nc2600.host.commands import add_colour_clocks_option
    add_colour_clocks_option(p)
    p.set_defaults(func=run)
