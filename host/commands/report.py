"""``nc2600 report``: cycle-accurate throughput report (report.md, self-contained report.html, PNGs).

Measures each block's timing on the RTL where the RTL exists (console colour clocks per frame
through ``nc2600 rtl-play``, preprocessor latency in Verilator, action-select latency in
Amaranth's simulator), takes policy inference cycles from the int8 engine's cycle model (the array
engine's, ``--array RxC``, by default the shape in :mod:`nc2600.hls_models.engines`, 16x16, or with
``--engine lane`` the lane engine's, ``--lanes``), measures
the cycles by phase of one episode on the Verilated fabric instance (``--no-instance`` leaves
it out), and
projects the whole fabric with mesh_sim, beside the published 1.2 M frames/s and 2.09 M
ceiling. Every figure says how it was obtained and which command reproduces it; a block that
is not built yet is listed as missing. See :mod:`nc2600.host.report.throughput`.
"""
from __future__ import annotations

from nc2600.host.commands import DefaultsFormatter

import shlex
import sys
import time

from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_LANES, DEFAULT_ROWS
from nc2600.host.cli_types import array_shape, clock_mhz, int_range, mac_lanes, seed_int


from nc2600.host.errors import UserError
def register(subparsers, groups):
    p = subparsers.add_parser("report", help="cycle-accurate throughput report (markdown + HTML with plots)",
                              description=__doc__.splitlines()[0],
                              formatter_class=DefaultsFormatter)
    p.add_argument("--game", action="append", metavar="G", help="ALE game id (repeatable; default: pong)")
    p.add_argument("--clock-mhz", type=clock_mhz, default=150.0, metavar="F",
                   help="fabric clock in MHz, 0.001 (1 kHz) to 10000; one colour clock per cycle (published: 150)")
    p.add_argument("--out", default="report", metavar="DIR", help="output folder")
    p.add_argument("--frames", type=int_range(1, 100_000), default=400, metavar="N",
                   help="frames per game for the RTL measurements (random minimal-set actions, frame skip 4)")
    p.add_argument("--engine", choices=("array", "lane"), default=DEFAULT_ENGINE,
                   help="the instance's policy engine: the array engine (hw/policy_array.py, --array) or the lane "
                        "engine (hw/policy_engine.py, --lanes); its instance is measured and its model gives the "
                        "inference figure")
    p.add_argument("--array", type=array_shape, default=None, metavar="RxC",
                   help=f"rows x columns of the array engine (default {DEFAULT_ROWS}x{DEFAULT_COLS})")
    p.add_argument("--lanes", type=mac_lanes, default=None, metavar="L",
                   help=f"MAC lanes of the lane engine with --engine lane (a multiple of 4 in 4..256; default "
                        f"{DEFAULT_LANES}; the instance is built with {DEFAULT_LANES})")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S", help="seed of the random actions and ALE")
    p.add_argument("--no-instance", action="store_true",
                   help="leave out the fabric instance's episode (its cycles by phase, measured in Verilator)")
    from nc2600.host.report.results import add_record_option
    add_record_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from nc2600.host.report import measure, render
    from nc2600.host.report import throughput as report
    from nc2600.hls_models.frame_skip import NOOP_MAX
    from nc2600.hls_models.platform import FRAME_SKIP
    # the instance's episode starts with up to NOOP_MAX no-op frames and needs one decision after
    # them (the rule `nc2600 run --episode-frames` has); the preprocessor's latency needs one
    # decision's frames
    if args.no_instance:
        least, why = FRAME_SKIP, f"the preprocessor's latency needs one frame-skip period ({FRAME_SKIP})"
    else:
        least, why = NOOP_MAX + FRAME_SKIP + 1, (f"the instance's episode starts with up to {NOOP_MAX} no-op "
                                                 f"frames and needs one frame-skip period ({FRAME_SKIP}) after them")
    if args.frames < least:
        raise UserError(f"--frames must be at least {least}: {why}; got {args.frames}")
    array, lanes = None, args.lanes or DEFAULT_LANES
    if args.engine == "lane" and args.array is not None:
        raise UserError("--array applies to the array engine, not --engine lane")
    if args.engine == "array" and args.lanes is not None:
        raise UserError("--lanes applies to the lane engine: give --engine lane")
    if args.engine == "array":
        from nc2600.hwtools.instance_harness import check_config
        array = (DEFAULT_ROWS, DEFAULT_COLS) if args.array is None else args.array
        try:
            check_config(1, "array", *array)
        except ValueError as exc:
            raise UserError(f"--array: {exc}") from None
    games = args.game or ["pong"]
    if len(set(games)) != len(games):
        raise UserError(f"a game is given twice: {' '.join(games)}")
    from nc2600.host.games import resolve_rom
    for g in games:                  # an unknown game: refused before the folder is made
        resolve_rom(game=g)
    from nc2600.host.rundir import prepare_output_folder
    out = prepare_output_folder(args.out)
    t0 = time.perf_counter()

    def progress(m):
        print(m, file=sys.stderr, flush=True)
    inp = measure.gather(games, clock_mhz=args.clock_mhz, lanes=lanes, frames=args.frames, seed=args.seed,
                        work=out, progress=progress, instance=not args.no_instance, array=array,
                        engine=args.engine)
    command = "nc2600 report " + " ".join(
        [f"--game {shlex.quote(g)}" for g in games]
        + [f"--clock-mhz {report.cli_number(args.clock_mhz)}", f"--frames {args.frames}",
           f"--engine lane --lanes {lanes}" if array is None else f"--array {array[0]}x{array[1]}",
           f"--seed {args.seed}"]
        + (["--no-instance"] if args.no_instance else []) + [f"--out {shlex.quote(str(out))}"])
    result = render.write(inp, out, {"command": command, "wall_s": round(time.perf_counter() - t0, 1)})
    missing = [f for f in result["figures"] if f.kind == report.MISSING]
    for f in result["figures"]:
        if f.section in ("Per instance", "Whole fabric") and f.value is not None and f.unit in ("frames/s", "x"):
            print(f"{f.game or '':14s} {f.name:60s} {render._fmt(f.value):>14s} {f.unit}  [{f.kind}]")
    for f in missing:
        print(f"{f.game or '':14s} {f.name:60s} {'missing':>14s}  ({f.source})")
    for line in report.like_for_like_table(result["figures"]):     # ceilings with ceilings, sustained with sustained
        print(line)
    from nc2600.host.report import record_figures, results
    results.write_figures(args, record_figures.report(result["figures"]))
    print(f"wrote {out / 'report.md'}, {out / 'report.html'} in {time.perf_counter() - t0:.1f} s")
    return 0
