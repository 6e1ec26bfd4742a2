"""Reproducible Verilog of a block: the text ``make rtl`` commits and every harness builds.

Amaranth's ``verilog.convert(..., strip_internal_attrs=True)`` drops the attributes that hold
source paths, except the ``(* src = "..." *)`` lines it still leaves on memories (absolute paths,
so the text would differ between checkouts); :func:`convert` removes those too. Every
``hw/<block>.py`` builds its ``generate()`` on it, so the same sources give the same bytes in
any folder.
"""
from __future__ import annotations

import re

from amaranth.back import verilog

_SRC_ATTR = re.compile(r"^\s*\(\* src = .*\*\)\n", re.M)


def strip_src_attributes(text: str) -> str:
    """Remove the ``(* src = "..." *)`` lines from Verilog text."""
    return _SRC_ATTR.sub("", text)


def convert(top, name: str) -> str:
    """Verilog text of the elaboratable ``top`` as module ``name``, with no source paths."""
    return strip_src_attributes(verilog.convert(top, name=name, strip_internal_attrs=True))


_ZERO_INIT = re.compile(r"  initial begin\n((?:    (\w+)\[\d+\] = \d+'h0+;\n)+)  end\n")


def tidy_memories(text: str) -> str:
    """Make the Verilog compact: a memory initialised to all zeros is written by Yosys as one assignment
    per word (33,600 lines for the preprocessor's previous-frame memory); it becomes an equivalent
    ``for`` loop. Used by the blocks with large zeroed memories (preprocessor, policy engine, instance).
    """

    def loop(match: re.Match) -> str:
        name = match.group(2)
        words = match.group(1).count("\n")
        return (f"  integer {name}__i;\n  initial begin\n"
                f"    for ({name}__i = 0; {name}__i < {words}; {name}__i = {name}__i + 1) {name}[{name}__i] = 0;\n"
                f"  end\n")
    return _ZERO_INIT.sub(loop, text)


#: The loop :func:`tidy_memories` writes (groups: memory name, words), for the tools that read it
#: back (:func:`nc2600.hwtools.yosys_input.yosys_input` hands it to Yosys as ``$readmemh``).
ZERO_LOOP = re.compile(r"^  integer (\w+)__i;\n  initial begin\n    for \(\1__i = 0; \1__i < (\d+); "
                       r"\1__i = \1__i \+ 1\) \1\[\1__i\] = 0;\n  end\n", re.M)
