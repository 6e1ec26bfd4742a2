"""``make rtl``: regenerate ``rtl/`` from the Amaranth sources in ``hw/``, byte for byte.

Every hardware module that ships Verilog defines ``generate() -> dict[str, str]`` (file name
-> Verilog text, produced by :func:`nc2600.hw.reproducible.convert` so that no absolute source path
leaks into it). :data:`RTL` declares each file, the module that generates it and its top module;
``python -m nc2600.hwtools.generate rtl`` writes the files and ``python -m nc2600.hwtools.generate --check rtl``
exits 1 when a committed file is out of date.
"""
from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

class Generated(NamedTuple):
    """Where a file of ``rtl/`` comes from: the ``hw`` module whose ``generate()`` returns it, and
    the Verilog module at its top (the name a simulator or synthesiser is given as top)."""
    module: str
    top: str


#: ``rtl/``: file name -> :class:`Generated`, in build order. Every file a listed module's
#: ``generate()`` returns is declared here, and every declared file is returned by its module
#: (:func:`collect` checks both, and that the file defines its top module).
RTL = {
    "cpu6507.v": Generated("nc2600.hw.cpu6507", "cpu6507"),
    "console_cc1.v": Generated("nc2600.hw.console", "console_cc1"),
    "console_cc3.v": Generated("nc2600.hw.console", "console_cc3"),
    "preprocessor_cc1.v": Generated("nc2600.hw.preprocessor", "preprocessor_cc1"),
    "preprocessor_cc3.v": Generated("nc2600.hw.preprocessor", "preprocessor_cc3"),
    "action_select.v": Generated("nc2600.hw.action_select", "action_select"),
    "policy_engine.v": Generated("nc2600.hw.policy_engine", "policy_engine"),
    "policy_array.v": Generated("nc2600.hw.policy_array", "policy_array"),
    "instance_cc3.v": Generated("nc2600.hw.instance", "instance_cc3"),
}
#: hw modules with a ``generate()`` function that ``make rtl`` runs, in build order (those of :data:`RTL`)
MODULES = tuple(dict.fromkeys(g.module for g in RTL.values()))


def defines_module(text: str, top: str) -> bool:
    """Whether the Verilog ``text`` defines module ``top`` (plain, or as an escaped identifier
    ``\\top``, as Amaranth writes a name that is a Verilog keyword such as ``instance``)."""
    return re.search(rf"^module \\?{re.escape(top)}[ (]", text, re.M) is not None


def collect(files: Iterable[str] | None = None) -> dict[str, str]:
    """Generated files ``{file name: Verilog text}`` in :data:`RTL`'s order: all of them, or with
    ``files`` (file names, e.g. ``["console_cc3.v"]``) those of :data:`RTL` among them, elaborating
    only the modules that generate them (a name :data:`RTL` does not declare is left out; none
    are elaborated for an empty list).

    Raises:
        RuntimeError: a module's ``generate()`` returns other files than :data:`RTL` declares for
            it, or a file that does not define its declared top module.
    """
    wanted = set(RTL) if files is None else set(files) & set(RTL)
    out: dict[str, str] = {}
    for name in dict.fromkeys(RTL[f].module for f in RTL if f in wanted):
        generated = importlib.import_module(name).generate()
        declared = {f for f, g in RTL.items() if g.module == name}
        if set(generated) != declared:
            raise RuntimeError(f"{name}.generate() returns {sorted(generated)}, declared in "
                               "nc2600.hwtools.generate.RTL: "
                               f"{sorted(declared)}")
        for fname, text in generated.items():
            if not defines_module(text, RTL[fname].top):
                raise RuntimeError(f"{fname} from {name} does not define its top module {RTL[fname].top}")
            out[fname] = text
    return {f: out[f] for f in RTL if f in wanted}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nc2600.hwtools.generate", description=__doc__.splitlines()[0])
    parser.add_argument("outdir", nargs="?", default=None,
                        help="output folder (default: the checkout's rtl/; required outside a checkout)")
    parser.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on a difference")
    args = parser.parse_args(argv)
    if args.outdir is None:
        from nc2600.hwtools.cache import NotACheckout, checkout_root
        try:
            out = checkout_root("make rtl") / "rtl"
        except NotACheckout as exc:
            print(f"nc2600.hwtools.generate: {exc}; name an output folder to write the Verilog elsewhere",
                  file=sys.stderr)
            return 2
    else:
        out = Path(args.outdir)
    stale = []
    for fname, text in collect().items():
        path = out / fname
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(fname)
            continue
        out.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{fname}.tmp")
        tmp.write_text(text)
        tmp.replace(path)
        print(f"wrote {path} ({len(text):,} bytes)")
    if stale:
        print(f"out of date (run `make rtl`): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
