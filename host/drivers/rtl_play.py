"""Run the console RTL alone (no ALE emulation) and save what it did.

From power-on through the same reset sequence ALE performs when it loads a ROM
(:mod:`nc2600.host.drivers.rtl_console`), then one action per frame (frame 0 is the first frame after
that sequence, as for ALE's first ``act``). Writes into the output folder:

* ``ram.npy``: (frames, 128) uint8, RIOT RAM after each frame;
* ``screens.npy``: (frames, Height, 160) uint8 palette indices after each frame;
* ``colour_clocks.npy``: (frames,) int64, colour clocks run by each frame.

All three are written under temporary names and renamed only when all three are complete
(an older set in the folder is replaced as a whole). The messages name the options of
``nc2600 rtl-play``, which calls this.
"""
from __future__ import annotations

import os
from pathlib import Path

from nc2600.host.errors import UserError
from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS


def rtl_play(game: str, actions_path: str, out_folder: str, colour_clocks: int = DEFAULT_COLOUR_CLOCKS) -> str:
    """Play the actions of ``actions_path`` (``.npy``, 1-D integer ALE action ids, one per frame) on the
    console RTL of ``game`` from power-on and write the three arrays into ``out_folder`` (created if
    missing; a folder made here and left empty by a failure is removed). Returns the one-line summary
    (game, frames, mapper, files).

    Raises:
        UserError: a mapper the console RTL does not implement, a bad action file, not enough
            memory or disk, an output folder that cannot be written.
    """
    import numpy as np

    from nc2600.hls_models.cartridge import detect_mapper
    from nc2600.host.games import resolve_rom
    from nc2600.host.drivers.rtl_console import RtlConsole
    from nc2600.hls_models.cartridge import SUPPORTED_MAPPERS as SUPPORTED

    name, path = resolve_rom(game=game)
    mapper = detect_mapper(Path(path).read_bytes())
    if mapper not in SUPPORTED:
        raise UserError(f"{name}: mapper {mapper} is not implemented by the console RTL yet")
    from nc2600.host.inputs import load_action_file
    actions = load_action_file(actions_path, others="")
    import shutil

    from nc2600.host.resources import human_bytes, require_memory
    need = len(actions) * (128 + 250 * 160 + 8)      # ram, screens (H <= 250), colour clocks per frame
    require_memory(need, f"--actions of {len(actions):,} frames (RAM, screens and clocks kept in memory)")
    if not out_folder.strip():
        raise UserError("--out is empty; give a folder name")
    created = not os.path.lexists(out_folder)
    from nc2600.host.rundir import RunFolder, prepare_output_folder
    if os.path.isdir(out_folder):
        owner = RunFolder(out_folder).lock_owner()
        if owner is not None:
            raise UserError(f"--out {out_folder!r} is a run folder in use by a running nc2600 (pid {owner}); "
                            f"give another --out")
    try:
        # created and written to (a probe) before the RTL runs; then its disk's free space (a path
        # that cannot be written, e.g. under /proc, is reported as such, not as a full disk)
        out = prepare_output_folder(out_folder)
        try:
            free = shutil.disk_usage(out).free
        except OSError:
            free = None
        if free is not None and need > free:
            raise UserError(f"--actions of {len(actions):,} frames writes {human_bytes(need)}; "
                            f"the disk of --out has {human_bytes(free)} free")
    except UserError:
        if created and os.path.isdir(out_folder) and not os.listdir(out_folder):
            os.rmdir(out_folder)                  # leave no empty folder we made
        raise
    targets = [out / f for f in ("ram.npy", "screens.npy", "colour_clocks.npy")]
    for t in targets:
        if t.exists() and not t.is_file():
            raise UserError(f"--out: {t} exists and is not a file")
    try:
        rtl = RtlConsole(name, path, colour_clocks=colour_clocks)
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
    except BaseException:
        if created and not any(out.iterdir()):   # leave no empty folder we made
            out.rmdir()
        raise
    # all three written under temporary names first, then renamed together, so that a failure
    # never leaves a new file beside an old one; an old set is removed before the new one lands
    tmps = [t.with_name(t.name + f".tmp{os.getpid()}.npy") for t in targets]
    try:
        for tmp, arr in zip(tmps, (ram, screens, clocks)):
            np.save(tmp, arr)
        for t in targets:
            t.unlink(missing_ok=True)
        for tmp, t in zip(tmps, targets):
            os.replace(tmp, t)
    except OSError as exc:
        for tmp in tmps:
            tmp.unlink(missing_ok=True)
        raise UserError(f"--out: cannot write into {out_folder}: {exc.strerror or exc}") from None
    return f"{name}: {n} frames ({mapper}) -> {out}/ram.npy, screens.npy, colour_clocks.npy"
