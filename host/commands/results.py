"""``nc2600 results``: the results page ``docs/results.md`` generated from the records in
``docs/results/*.jsonl`` and the lockstep files in ``docs/lockstep/`` (:mod:`nc2600.host.report.results`).
A ``--records`` folder holding no records (no ``*.jsonl`` file, or only empty ones) is refused
(one line, exit 2) and nothing is written."""
from __future__ import annotations

import sys
from pathlib import Path

from nc2600.host.commands import DefaultsFormatter
from nc2600.host.errors import UserError


def register(sub, groups):
    from nc2600.host.report import results
    p = sub.add_parser("results", help="generate docs/results.md from the results records",
                       formatter_class=DefaultsFormatter)
    p.add_argument("--records", metavar="DIR", default=str(results.RESULTS_DIR), help="folder of *.jsonl records (at least one record)")
    p.add_argument("--lockstep", metavar="DIR", default=str(results.LOCKSTEP_DIR),
                   help="folder of lockstep results files (nc2600 lockstep --results)")
    p.add_argument("--out", metavar="FILE", default=str(results.PAGE), help="the page to write")
    p.add_argument("--readme", metavar="FILE", default=None,
                   help="the README whose like-for-like block is rewritten from the records (a file without the "
                        "block is left as it is; default: the repository's README.md when --out is the default page)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when FILE differs from what the records give")
    p.set_defaults(func=main)


def main(args) -> int:
    from nc2600.host.report import results
    if not Path(args.records).is_dir():
        raise UserError(f"--records {args.records!r} is not a folder")
    try:
        if not any(results.load_folder(args.records).values()):
            # a page of no figures would replace the real one: a wrong folder, not a result
            raise UserError(f"--records {args.records!r} holds no results records (*.jsonl files of "
                            f"records, as --record FILE appends them)")
        text = results.render(args.records, args.lockstep)
        areas = results.load_folder(args.records)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out = Path(args.out)
    readme = Path(args.readme) if args.readme else (results.README if out.resolve() == results.PAGE.resolve() else None)
    old_readme = readme.read_text(encoding="utf-8") if readme is not None and readme.is_file() else None
    new_readme = None if old_readme is None else results.readme_text(old_readme, areas)
    if args.check:
        same = out.is_file() and out.read_text(encoding="utf-8") == text
        same_readme = new_readme == old_readme
        print(f"nc2600 results: {out} is {'current' if same else 'out of date: run nc2600 results'}"
              + ("" if same_readme else f"; {readme}'s like-for-like block is out of date"), file=sys.stderr)
        return 0 if same and same_readme else 1
    from nc2600.host.launcher.rundir import atomic_write_bytes
    atomic_write_bytes(out, text.encode("utf-8"))
    if new_readme is not None and new_readme != old_readme:
        atomic_write_bytes(readme, new_readme.encode("utf-8"))
    print(f"nc2600 results: wrote {out} ({text.count(chr(10))} lines)", file=sys.stderr)
    return 0
