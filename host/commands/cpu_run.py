"""``nc2600 cpu-run``: run a raw 6502 binary image on the RTL 6507 core (fast Verilator harness).

The image is loaded into a flat 64 KiB RAM at ``--load`` (the rest is zero), the
registers are set as after ALE's reset (A = X = Y = 0, SP = $FF, P = $20) with PC =
``--start``, and the core runs until it executes a ``JMP`` to its own address (a trap;
that JMP's 3 cycles are counted), executes a JAM opcode, or reaches ``--max-cycles``.

Output: the registers, cycle and instruction counts and the stop reason; with ``--json``
one JSON object ``{a, x, y, sp, p, pc, cycles, instructions, stop, dump}`` where ``stop``
is ``trap``, ``jam`` or ``limit`` and ``dump`` is the ``--dump`` range as a hex string
(both ends included; empty without ``--dump``). ``p`` reads with bits 5 and 4 set, as
ALE's status register does. Exit code 0 on any stop reason, 2 on bad input.

This module also registers ``nc2600 bench cpu``: CPU cycles/s of the RTL core in the fast
harness (wall clock and per CPU-second) and under cocotb, and py65 instructions/s, from
one run on the same program.
"""
from __future__ import annotations

from nc2600.host.commands import DefaultsFormatter

import argparse
import json
import sys

from nc2600.host.cli_types import int_range

from nc2600.host.errors import UserError
DEFAULT_MAX_CYCLES = 10_000_000


def _address(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an address 0..0xFFFF (0x hex accepted), got {text!r}") from None
    if not 0 <= value <= 0xFFFF:
        raise argparse.ArgumentTypeError(f"address out of range 0..0xFFFF: {text!r}")
    return value


def _dump_range(text: str) -> tuple[int, int]:
    start, sep, end = text.partition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected START:END, got {text!r}")
    lo, hi = _address(start), _address(end)
    if hi < lo:
        raise argparse.ArgumentTypeError(f"dump range END is below START: {text!r}")
    return lo, hi


def register(subparsers, groups) -> None:
    parser = subparsers.add_parser(
        "cpu-run", help="run a raw 6502 binary on the RTL 6507 core (Verilator) and print registers",
        description=__doc__.split("\n\n")[1], formatter_class=DefaultsFormatter)
    parser.add_argument("--image", required=True, metavar="FILE", help="raw binary image (at most 64 KiB)")
    parser.add_argument("--load", required=True, type=_address, metavar="ADDR",
                        help="address of the image's first byte")
    parser.add_argument("--start", required=True, type=_address, metavar="ADDR", help="initial PC")
    parser.add_argument("--max-cycles", type=int_range(1, 10**11), default=DEFAULT_MAX_CYCLES, metavar="N",
                        help="stop after N CPU cycles")
    parser.add_argument("--dump", type=_dump_range, metavar="START:END",
                        help="memory range to print after the run (both ends included)")
    parser.add_argument("--decimal", choices=("ale", "nmos"), default="ale",
                        help="decimal-mode rule of the core: ALE's BCD rule or the NMOS part's")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)

    bench = groups["bench"].add_parser(
        "cpu", help="6507 core speed: fast Verilator harness and cocotb (CPU cycles/s), py65 (instructions/s)",
        formatter_class=DefaultsFormatter)
    bench.add_argument("--cycles", type=int_range(1, 10**11), default=50_000_000, metavar="N",
                       help="CPU cycles timed in the fast harness")
    bench.add_argument("--cocotb-cycles", type=int_range(0, 10**9), default=100_000, metavar="N",
                       help="CPU cycles timed under cocotb (0 skips cocotb)")
    bench.add_argument("--py65-instructions", type=int_range(1, 10**10), default=200_000, metavar="N",
                       help="instructions timed on py65")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    from nc2600.host.report.results import add_record_option
    add_record_option(bench)
    bench.set_defaults(func=bench_cpu)


def bench_cpu(args) -> int:
    """``nc2600 bench cpu``: print the figures (see nc2600.hwtools.cpu6507_harness.benchmark)."""
    from nc2600.hwtools.cpu6507_harness import benchmark, cocotb_benchmark

    if args.cocotb_cycles:
        import importlib.util
        if importlib.util.find_spec("cocotb") is None:
            raise UserError("--cocotb-cycles needs cocotb (pip install 'nc2600[sim]'); --cocotb-cycles 0 skips it")
    figures = benchmark(cycles=args.cycles, py65_instructions=args.py65_instructions)
    figures["cocotb_cycles_per_s"] = cocotb_benchmark(args.cocotb_cycles) if args.cocotb_cycles else None
    from nc2600.host.report import record_figures, results
    results.write_figures(args, record_figures.bench_cpu(figures))
    if args.json:
        sys.stdout.write(json.dumps(figures) + "\n")
        return 0
    sys.stdout.write(f"rtl fast harness : {figures['rtl_cycles_per_s'] / 1e6:8.2f} M CPU cycles/s "
                     f"({figures['rtl_cycles_per_cpu_s'] / 1e6:.2f} M per CPU-second, "
                     f"{figures['rtl_instructions_per_s'] / 1e6:.2f} M instructions/s)\n")
    if figures["cocotb_cycles_per_s"] is not None:
        sys.stdout.write(f"rtl cocotb       : {figures['cocotb_cycles_per_s'] / 1e3:8.1f} k CPU cycles/s\n")
    sys.stdout.write(f"py65             : {figures['py65_instructions_per_s'] / 1e3:8.1f} k instructions/s "
                     f"({figures['py65_cycles_per_s'] / 1e6:.2f} M cycles/s)\n")
    return 0


def load_image(path: str, load: int) -> bytes:
    """Read the image file and check that it fits at ``load`` in 64 KiB (UserError if not)."""
    from nc2600.host.inputs import read_regular_file
    data = read_regular_file(path, 0x10000, "image")
    if not data:
        raise UserError(f"image {path!r} is empty; give the bytes to run")
    if load + len(data) > 0x10000:
        raise UserError(f"image of {len(data)} bytes does not fit at ${load:04X} "
                        f"(it would end at ${load + len(data) - 1:X}, past $FFFF)")
    return data


def run(args) -> int:
    data = load_image(args.image, args.load)
    from nc2600.hwtools.cpu6507_harness import Cpu6507Sim

    harness = Cpu6507Sim(decimal=args.decimal)
    harness.memory[:] = 0
    harness.memory[args.load:args.load + len(data)] = list(data)
    harness.load_state(a=0, x=0, y=0, sp=0xFF, p=0x20, pc=args.start)
    result = harness.run(args.max_cycles, stop_on_trap=True)
    regs, _ = harness.state()
    dump = ""
    if args.dump:
        lo, hi = args.dump
        dump = bytes(harness.memory[lo:hi + 1]).hex()
    stop = {"trap": "trap", "jam": "jam"}.get(result.stop, "limit")
    out = {"a": regs.a, "x": regs.x, "y": regs.y, "sp": regs.sp, "p": regs.p, "pc": regs.pc,
           "cycles": result.cycles, "instructions": result.instructions, "stop": stop, "dump": dump}
    if args.json:
        sys.stdout.write(json.dumps(out) + "\n")
    else:
        sys.stdout.write(f"A=${regs.a:02X} X=${regs.x:02X} Y=${regs.y:02X} SP=${regs.sp:02X} "
                         f"P=${regs.p:02X} PC=${regs.pc:04X}\n")
        sys.stdout.write(f"stop={stop} cycles={result.cycles} instructions={result.instructions}\n")
        if args.dump:
            lo, _ = args.dump
            for off in range(0, len(dump) // 2, 16):
                row = dump[2 * off:2 * off + 32]
                sys.stdout.write(f"{lo + off:04X}: " + " ".join(row[i:i + 2] for i in range(0, len(row), 2)) + "\n")
    return 0
