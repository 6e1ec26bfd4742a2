"""``nc2600 games``: the 104 loadable games with mapper, ROM size, display and screen size."""
from __future__ import annotations

import json
import sys


def register(sub, groups):
    p = groups["games_parser"]
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    p.set_defaults(func=main)


def main(args) -> int:
    from nc2600.host.games import game_info, loadable_games
    names = loadable_games()
    iterator = names
    if sys.stderr.isatty() and not args.json:
        from tqdm import tqdm
        iterator = tqdm(names, desc="loading ROMs", leave=False, file=sys.stderr)
    elif not args.json:
        print(f"nc2600 games: loading {len(names)} ROMs in ALE (about 10 s) ...", file=sys.stderr, flush=True)
    infos = [game_info(n) for n in iterator]
    if args.json:
        for i in infos:
            print(json.dumps({"game": i.name, "mapper": i.mapper, "rom_bytes": i.rom_bytes, "display": i.display,
                              "screen_height": i.screen_height, "screen_width": i.screen_width,
                              "minimal_actions": len(i.minimal_actions), "fire_reset": i.fire_reset,
                              "md5": i.md5}))
        return 0
    print(f"{'game':<22}{'mapper':<8}{'bytes':>7}  {'display':<8}{'screen':<9}{'actions':>7}")
    for i in infos:
        print(f"{i.name:<22}{i.mapper:<8}{i.rom_bytes:>7}  {i.display:<8}{i.screen_height}x{i.screen_width:<5}"
              f"{len(i.minimal_actions):>7}")
    print(f"{len(infos)} games")
    return 0
