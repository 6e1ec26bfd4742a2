"""``nc2600 rtl-play``: run the console RTL alone (no ALE emulation) and save what it did.

From power-on through the same reset sequence ALE performs when it loads a ROM
(:mod:`host.rtl_console`), then one action per frame (frame 0 is the first frame after
that sequence, as for ALE's first ``act``). Writes into ``--out``:

* ``ram.npy``: (frames, 128) uint8, RIOT RAM after each frame;
* ``screens.npy``: (frames, Height, 160) uint8 palette indices after each frame;
* ``colour_clocks.npy``: (frames,) int64, colour clocks run by each frame.

Files are written under temporary names and renamed when complete.
"""
from __future__ import annotations

import os
from pathlib import Path

from host.errors import UserError


def run(args) -> int:
    import numpy as np

    from hls_models.cartridge import detect_mapper
    from host.games import resolve_rom
    from host.rtl_console import RtlConsole
    from hw.console import SUPPORTED

    name, path = resolve_rom(game=args.game)
    mapper = detect_mapper(Path(path).read_bytes())
    if mapper not in SUPPORTED:
        raise UserError(f"{name}: mapper {mapper} is not implemented by the console RTL yet")
    p = Path(args.actions)
    try:
        actions = np.load(p)
    except Exception as exc:  # noqa: BLE001 - any load failure is bad input
        raise UserError(f"--actions: cannot read {p}: {exc}") from None
    if actions.ndim != 1 or actions.size == 0 or not np.issubdtype(actions.dtype, np.integer) \
            or actions.min() < 0 or actions.max() > 17:
        raise UserError("--actions: need a non-empty 1-D integer array of ALE action ids 0..17")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rtl = RtlConsole(name, path)
    rtl.power_on()
    n = len(actions)
    ram = np.zeros((n, 128), np.uint8)
    screens = np.zeros((n, rtl.height, 160), np.uint8)
    clocks = np.zeros(n, np.int64)
    for f, a in enumerate(actions):
        res = rtl.act(int(a))
        ram[f] = rtl.ram()
        screens[f] = rtl.screen
        clocks[f] = res.colour_clocks
    for fname, arr in (("ram.npy", ram), ("screens.npy", screens), ("colour_clocks.npy", clocks)):
        tmp = out / (fname + f".tmp{os.getpid()}.npy")
        np.save(tmp, arr)
        os.replace(tmp, out / fname)
    print(f"{name}: {n} frames ({mapper}) -> {out}/ram.npy, screens.npy, colour_clocks.npy")
    return 0


def register(subparsers, groups) -> None:
    p = subparsers.add_parser("rtl-play", help="run the console RTL alone on a list of actions",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, help="ALE ROM id")
    p.add_argument("--actions", required=True, help="PATH.npy: 1-D ALE action ids, one per frame")
    p.add_argument("--out", required=True, help="output folder")
    p.set_defaults(func=run)
