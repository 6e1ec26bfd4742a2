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
    p.add_argument("--records", metavar="DIR", default=None,
                   help=f"folder of *.jsonl records (at least one record; default: the checkout's "
                        f"{results.RESULTS_DIR.relative_to(results.ROOT)})")
    p.add_argument("--lockstep", metavar="DIR", default=None,
                   help=f"folder of lockstep results files (nc2600 lockstep --results; default: the "
                        f"checkout's {results.LOCKSTEP_DIR.relative_to(results.ROOT)})")
    p.add_argument("--out", metavar="FILE", default=None,
                   help=f"the page to write (default: the checkout's {results.PAGE.relative_to(results.ROOT)})")
    p.add_argument("--readme", metavar="FILE", default=None,
                   help="the README whose generated blocks (like for like, results at a glance) are rewritten from the "
                        "records (a file without them is left as it is; default: the repository's README.md when --out "
                        "is the default page, which also rewrites docs/hardware/timing.md's)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when FILE differs from what the records give")
    p.set_defaults(func=main)


def main(args) -> int:
    from nc2600.host.report import doc_blocks, results
    if None in (args.records, args.lockstep, args.out):
        # the defaults are the checkout's record and page, absent from an installed wheel
        from nc2600.hwtools.cache import NotACheckout, checkout_root
        try:
            checkout_root("nc2600 results (with its default folders)")
        except NotACheckout as exc:
            raise UserError(f"{exc}; name --records, --lockstep and --out") from None
        args.records = str(results.RESULTS_DIR) if args.records is None else args.records
        args.lockstep = str(results.LOCKSTEP_DIR) if args.lockstep is None else args.lockstep
        args.out = str(results.PAGE) if args.out is None else args.out
    if not Path(args.records).is_dir():
        raise UserError(f"--records {args.records!r} is not a folder")
    if not Path(args.lockstep).is_dir():
        raise UserError(f"--lockstep {args.lockstep!r} is not a folder")
    if args.out.strip() == "":
        raise UserError("--out is empty; give the page's file name")
    if args.check:
        # the page compared must be a file that exists: a folder, a missing file or a missing
        # folder is a wrong path (exit 2), not a page out of date (exit 1)
        if not Path(args.out).is_file():
            what = "a folder" if Path(args.out).is_dir() else "missing"
            raise UserError(f"--out {args.out!r} is {what}; --check compares an existing page")
    else:
        from nc2600.host.rundir import check_output_file
        check_output_file(args.out)
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
    new_readme = None if old_readme is None else doc_blocks.with_blocks(results.readme_text(old_readme, areas), areas,
                                                                        doc_blocks.README_BLOCKS)
    # the guides' generated blocks are the checkout's, rewritten with its own page only
    guides = {} if out.resolve() != results.PAGE.resolve() else {
        path: doc_blocks.with_blocks(path.read_text(encoding="utf-8"), areas, blocks)
        for path, blocks in doc_blocks.GUIDE_BLOCKS.items() if path.is_file()}
    stale = [path for path, text in guides.items() if text != path.read_text(encoding="utf-8")]
    if args.check:
        same = out.is_file() and out.read_text(encoding="utf-8") == text
        same_readme = new_readme == old_readme
        print(f"nc2600 results: {out} is {'current' if same else 'out of date: run nc2600 results'}"
              + ("" if same_readme else f"; {readme}'s generated blocks are out of date")
              + "".join(f"; {path}'s generated blocks are out of date" for path in stale), file=sys.stderr)
        return 0 if same and same_readme and not stale else 1
    from nc2600.host.rundir import atomic_write_bytes
    atomic_write_bytes(out, text.encode("utf-8"))
    if new_readme is not None and new_readme != old_readme:
        atomic_write_bytes(readme, new_readme.encode("utf-8"))
    for path in stale:
        atomic_write_bytes(path, guides[path].encode("utf-8"))
    print(f"nc2600 results: wrote {out} ({text.count(chr(10))} lines)", file=sys.stderr)
    return 0
