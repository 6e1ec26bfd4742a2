"""``nc2600 mesh``: project GA throughput on the 432-node 3D-mesh fabric; ``nc2600 bench mesh``.

``nc2600 mesh`` runs :func:`nc2600.mesh_sim.project.simulate` (or :func:`nc2600.mesh_sim.project.calibrate`
with ``--calibrate``) and prints the report: one JSON object with ``--json``, else a short
summary. Main fields:

``projected_fps``            counted frames (frame skip and no-op starts included) / makespan
``ceiling_fps``              instances x clock / clocks per frame (2.09 M published; clocks per frame =
                             colour clocks per frame / ``--colour-clocks``)
``utilization``              projected_fps / ceiling_fps
``lost_evaluations``         planned (generation, kind, individual, episode) never accepted (must be 0)
``duplicated_evaluations``   extra acceptances of an evaluation (must be 0)
``sim_wall_s``               wall-clock seconds of the whole command's simulation work
``generations_per_hour``     GA generations per hour of fabric time (0 when the run could not finish)
``completed``                False when failures left work that no live instance could do
``time_fractions``           instance-seconds split (sums to 1): counted_frames (= utilization),
                             reset (uncounted reset frames), inference (console stalled for the
                             policy), weight_load (ARM rebuilds and loads an individual),
                             communication (waiting for genomes or a work reply), host (results to
                             the host, selection, genomes back), barrier (idle: waiting for the
                             phase's last result, incl. the reduction-tree gather, or for the run
                             to drain), fault_lost_work (work destroyed by failures),
                             fault_dead_slots (instances on failed nodes)
``gap_fps``                  the same split of ceiling - projected, in frames/s
``faults``                   the fault plan and, with faults, the fault-free rate and what was lost

``nc2600 bench mesh`` times one generation of the published configuration (target < 1 s) and
one generation on a 10,368-node mesh (384 cards; target < 10 s) for each schedule.
"""
from __future__ import annotations

from nc2600.host.commands import DefaultsFormatter

import argparse
import json
import sys
import time
from pathlib import Path

from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_LANES, DEFAULT_ROWS
from nc2600.hls_models.platform import FRAME_SKIP
from nc2600.host.cli_types import array_shape, ascii_int, clock_mhz, float_range, int_range, mac_lanes, seed_int


from nc2600.host.errors import UserError
from nc2600.host.resources import require_memory
def _shape(text: str):
    from nc2600.mesh_sim.topology import parse_shape
    try:
        return parse_shape(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _episode_steps(text: str) -> str:
    """argparse type: an episode-length spec that :class:`nc2600.mesh_sim.workload.EpisodeDistribution`
    takes (``fixed:N``, ``uniform:LO:HI``, ``lognormal:MEDIAN:SIGMA``), returned as given."""
    from nc2600.mesh_sim.workload import EpisodeDistribution
    try:
        EpisodeDistribution(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


#: the options of a drawn workload (``nc2600.mesh_sim.workload.synthetic_workload``), which ``--run``'s
#: recorded episodes replace
_SYNTHETIC = ("population", "episodes", "elite_candidates", "elite_episodes", "test_episodes", "episode_steps",
              "episode_frames", "frame_skip", "seed")

#: upper bounds of the machine and workload options (a mesh of 1,000 cards is 27,000 nodes)
_CARDS, _COUNT = 1000, 100_000
#: the most nodes a mesh may have (cards x nodes per card): 1,000 cards of 27, a mesh the model
#: projects in seconds and well under the memory of a small machine (a million nodes does not)
_NODES = _CARDS * 27


def register(subparsers, groups):
    p = subparsers.add_parser(
        "mesh", help="project GA throughput on the 432-node 3D-mesh fabric (faults, schedules, scale)",
        description="Discrete-event model of the neural computer's 3D mesh (16 cards x 27 Zynq nodes, "
                    "832 game instances) running a deep GA: prints projected frames/s, utilisation, "
                    "where the time goes, and the exactly-once check under faults.",
        formatter_class=DefaultsFormatter)
    m = p.add_argument_group("machine")
    m.add_argument("--cards", type=int_range(1, _CARDS), default=16, metavar="C", help="module cards")
    m.add_argument("--nodes-per-card", type=int_range(1, 1000), default=27, metavar="N",
                   help=f"nodes per card (one is the card's I/O node); cards x nodes per card at most {_NODES:,}")
    m.add_argument("--instances-per-node", type=int_range(1, 64), default=2, metavar="I",
                   help="game instances per worker node")
    m.add_argument("--mesh", type=_shape, default=None, metavar="XxYxZ",
                   help="node mesh shape (default: cards in a square grid, 16 cards -> 12x12x3)")
    m.add_argument("--clock-mhz", type=clock_mhz, default=150.0, metavar="F",
                   help="fabric clock in MHz, 0.001 (1 kHz) to 10000")
    m.add_argument("--colour-clocks-per-frame", type=int_range(1, 10**7), default=None, metavar="CC",
                   help="per-game frame length (default: the run's figure or 262 x 228 = 59736)")
    m.add_argument("--colour-clocks", type=ascii_int, choices=(1, 3), default=1, metavar="{1,3}",
                   help="console configuration: colour clocks per fabric clock (3: the three-colour-clock "
                        "console, one CPU cycle per clock, a frame in a third of the clocks)")
    m.add_argument("--engine", choices=("array", "lane"), default=DEFAULT_ENGINE,
                   help="the instance's policy engine: the array engine (hw/policy_array.py, --array) or the "
                        "lane engine (hw/policy_engine.py, --lanes)")
    m.add_argument("--array", type=array_shape, default=None, metavar="RxC",
                   help=f"rows x columns of the array engine (default {DEFAULT_ROWS}x{DEFAULT_COLS}; checked for "
                        "the run's network, else the small one): the decision path's default cycles "
                        "from its model (nc2600.hls_models.policy_array.inference_cycles) for the action count "
                        "(--n-actions, else the run's, else 18)")
    m.add_argument("--lanes", type=mac_lanes, default=None, metavar="L",
                   help="MAC lanes of the lane engine with --engine lane (a multiple of 4 in 4..256; default "
                        f"{DEFAULT_LANES}, or "
                        "for a run of the nature network the fewest whose forward pass fits a frame-skip period)")
    m.add_argument("--inference-cycles", type=int_range(1, 10**9), default=None, metavar="N",
                   help="cycles per decision (at least 1: a decision takes time) the console waits for the decision "
                        "path (default: the engine's cycle "
                        "model of --engine; e.g. the fabric instance's measured preprocessor + inference + action "
                        "select from nc2600 report)")
    m.add_argument("--timing-source", default=None, metavar="TEXT",
                   help="label of a given --colour-clocks-per-frame / --inference-cycles in the report")
    m.add_argument("--n-actions", type=int_range(1, 18), default=None, metavar="A",
                   help="policy outputs (default: the run's or 18)")
    m.add_argument("--inference", choices=("pipelined", "serial"), default="pipelined",
                   help="pipelined: console stalls only when a forward pass outlasts a frame-skip period "
                        "(published design); serial: console waits for every decision")
    m.add_argument("--reset-frames", type=int_range(0, 10**6), default=68, metavar="F",
                   help="uncounted frames per reset (ALE's 60+4+4; 1 models a state-snapshot reset)")
    m.add_argument("--link-latency-us", type=float_range(0, 1e6), default=1.0, metavar="US",
                   help="per-hop link latency")
    m.add_argument("--link-gbytes-s", type=float_range(0, 1e6, lo_open=True), default=16 / 6, metavar="GB",
                   help="bandwidth per link direction (432 GB/s per card / 27 nodes / 6 ports)")
    g = p.add_argument_group("GA workload")
    g.add_argument("--run", dest="run_dir", default=None, metavar="DIR",
                   help="replay the episodes recorded by `nc2600 run` in DIR (episodes.jsonl, config.json); the other "
                        "options of this group but --generations shape a drawn workload and are refused with it")
    g.add_argument("--population", type=int_range(1, _COUNT), default=1000, metavar="P",
                   help="GA individuals per generation")
    g.add_argument("--generations", type=int_range(1, 1000), default=None, metavar="G",
                   help="generations (default 1; with --run: all recorded)")
    g.add_argument("--episodes", type=int_range(1, 1000), default=1, metavar="E",
                   help="training episodes per individual")
    g.add_argument("--elite-candidates", type=int_range(0, _COUNT), default=10, metavar="K",
                   help="elite candidates re-evaluated per generation")
    g.add_argument("--elite-episodes", type=int_range(0, 1000), default=30, metavar="E",
                   help="re-evaluation episodes per elite candidate (0: no elite phase)")
    g.add_argument("--test-episodes", type=int_range(0, _COUNT), default=0, metavar="E",
                   help="final test episodes of the elite")
    g.add_argument("--episode-steps", type=_episode_steps, default="lognormal:2500:0.8", metavar="SPEC",
                   help="policy steps per episode: fixed:N, uniform:LO:HI (whole numbers, 1 to 2**53) or "
                        "lognormal:MEDIAN:SIGMA")
    g.add_argument("--episode-frames", type=int_range(1, 10**9), default=20000, metavar="F",
                   help="episode cap in frames (Such et al.: 5000 steps x 4)")
    g.add_argument("--frame-skip", type=int_range(1, 64), default=FRAME_SKIP, metavar="K",
                   help="frames per policy decision")
    g.add_argument("--seed", type=seed_int, default=0, metavar="S", help="seed of the episode lengths")
    s = p.add_argument_group("schedule and faults")
    s.add_argument("--schedule", choices=("static", "pull", "async"), default="static",
                   help="static round-robin, dynamic pull, or asynchronous steady-state GA")
    s.add_argument("--fail-nodes", type=int_range(0, _COUNT), default=0, metavar="K", help="random node failures")
    s.add_argument("--fail-links", type=int_range(0, _COUNT), default=0, metavar="L", help="random link failures")
    s.add_argument("--fault-seed", type=seed_int, default=0, metavar="S", help="seed of the random fault plan")
    s.add_argument("--fault-window-s", type=float_range(0, 1e9, lo_open=True), default=None, metavar="T",
                   help="random failures happen in [0, T) simulated seconds (default: ideal makespan)")
    s.add_argument("--faults", default=None, metavar="LIST",
                   help="explicit failures, e.g. node:17@2.5,link:3-4@1.0 (simulated seconds)")
    s.add_argument("--detect-ms", type=float_range(0, 1e9, lo_open=True), default=10.0, metavar="MS",
                   help="heartbeat timeout before lost evaluations are re-queued")
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print one JSON object")
    o.add_argument("--calibrate", action="store_true",
                   help="run the published configuration and the design changes (mesh_sim/CALIBRATION.md); "
                        "--generations sets the generations per case (default 4)")
    o.add_argument("--out", default=None, metavar="FILE", help="also write the JSON report to FILE")
    p.set_defaults(func=run_mesh)
    # each option's flag by destination, for _given's messages: argparse (3.11) lists a parser's
    # actions only in the private ``_actions`` (add_argument returns each Action, but keeping them
    # would wrap every call above); its entries are the public ``argparse.Action`` objects
    p.set_defaults(mesh_defaults=vars(p.parse_args([])),
                   mesh_flags={a.dest: a.option_strings[-1] for a in p._actions if a.option_strings})

    b = groups["bench"].add_parser("mesh", help="mesh_sim speed: one published generation, a 10,000-node mesh",
                                   formatter_class=DefaultsFormatter)
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.add_argument("--big-cards", type=int_range(1, _CARDS), default=384, metavar="C",
                   help="cards of the large mesh (384 x 27 = 10,368 nodes)")
    from nc2600.host.report.results import add_record_option
    add_record_option(b)
    b.set_defaults(func=run_bench)


def _engine_shape(args) -> tuple[int, int] | None:
    """The array engine's ``(rows, cols)`` for the options (``--array RxC``, parsed by
    :func:`nc2600.host.cli_types.array_shape`; :data:`nc2600.hls_models.engines.DEFAULT_ROWS` x ``DEFAULT_COLS``
    when not given), or None with ``--engine lane``. The shape is checked for the network (the
    run's, else the small one), and the inference cycles of either engine are its model's for the
    action count (``--n-actions``, else the run's, else 18) unless ``--inference-cycles`` gives
    them, by :func:`nc2600.mesh_sim.project.build`.

    Raises:
        UserError: ``--lanes`` without ``--engine lane``, or ``--array`` with it.
    """
    if args.engine == "lane":
        if args.array is not None:
            raise UserError("--array applies to the array engine, not --engine lane")
        return None
    if args.lanes is not None:
        raise UserError("--lanes applies to the lane engine: give --engine lane")
    return (DEFAULT_ROWS, DEFAULT_COLS) if args.array is None else args.array


def _options(args):
    from nc2600.mesh_sim.project import MeshOptions
    array = _engine_shape(args)
    return MeshOptions(
        cards=args.cards, nodes_per_card=args.nodes_per_card, instances_per_node=args.instances_per_node,
        mesh=args.mesh, clock_mhz=args.clock_mhz, colour_clocks_per_frame=args.colour_clocks_per_frame,
        colour_clocks=args.colour_clocks,
        lanes=args.lanes, array=array, n_actions=args.n_actions, reset_frames=args.reset_frames,
        inference=args.inference, inference_cycles=args.inference_cycles, timing_source=args.timing_source,
        link_latency_us=args.link_latency_us, link_gbytes_s=args.link_gbytes_s,
        population=args.population, generations=args.generations, episodes=args.episodes,
        elite_candidates=args.elite_candidates, elite_episodes=args.elite_episodes,
        test_episodes=args.test_episodes, episode_steps=args.episode_steps, episode_frames=args.episode_frames,
        frame_skip=args.frame_skip, seed=args.seed, run_dir=args.run_dir, schedule=args.schedule,
        fail_nodes=args.fail_nodes, fail_links=args.fail_links, fault_seed=args.fault_seed,
        faults=args.faults, fault_window_s=args.fault_window_s, detect_ms=args.detect_ms)


def _write_atomic(path: str, text: str):
    from nc2600.host.rundir import atomic_write_bytes
    atomic_write_bytes(Path(path), text.encode())


def _count(n: int, noun: str) -> str:
    """``"1 card"``, ``"16 cards"``: ``n`` and the noun, plural unless ``n`` is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _seconds(s: float) -> str:
    """A makespan in seconds: two decimals, or three significant digits from 10^9 s up (a
    microscopic clock or link gives 10^300 s, which fixed point would print digit by digit)."""
    return f"{s:.2f} s" if s < 1e9 else f"{s:.3g} s"


def _percent(fraction: float) -> str:
    """``fraction`` as a percentage with one decimal (``0.125`` -> ``"12.5%"``); a value that rounds
    to zero is ``"0.0%"``, never ``"-0.0%"`` (a fault that costs nothing can leave a throughput
    a few parts in 10^9 above the fault-free one)."""
    return f"{fraction:.1%}" if round(fraction * 100, 1) != 0 else f"{0.0:.1%}"


def _summary(rep: dict) -> str:
    t = rep["topology"]
    i = rep["instance"]
    lines = [
        f"mesh {t['mesh']} ({_count(t['cards'], 'card')} of {t['card_shape']}), {_count(t['nodes'], 'node')}, "
        f"{_count(t['links'], 'link')}, {_count(t['instances'], 'instance')}, diameter "
        f"{_count(t['diameter_hops'], 'hop')}",
        f"instance: {i['clock_mhz']:g} MHz, {i['colour_clocks']} colour clock(s) per clock, "
        f"{i['colour_clocks_per_frame']} colour clocks/frame = {i['cycles_per_frame']:,.0f} clocks "
        f"({i['instance_fps']:.0f} frames/s), "
        + (f"array engine {i['array']}" if i["engine"] == "array" else f"lane engine, {i['lanes']} lanes")
        + f", {_count(i['n_actions'], 'action')}: inference {i['inference_cycles']} cycles [{i['inference_source']}], "
        f"{i['inference']}",
        f"workload: {rep['workload']['evaluations']} evaluations, {rep['generations']} generation(s); "
        f"{rep['workload']['source']}",
        f"schedule {rep['schedule']}: projected {rep['projected_fps'] / 1e6:.3f} M frames/s of a "
        f"{rep['ceiling_fps'] / 1e6:.3f} M ceiling (utilisation {rep['utilization']:.1%}), "
        f"{rep['generations_per_hour']:.1f} generations/hour, makespan {_seconds(rep['makespan_s'])}",
        "time: " + ", ".join(f"{k} {v:.1%}" for k, v in rep["time_fractions"].items() if v >= 0.0005),
        f"exactly-once: lost_evaluations {rep['lost_evaluations']}, duplicated_evaluations "
        f"{rep['duplicated_evaluations']} (requeued {rep['requeued_evaluations']})",
    ]
    f = rep["faults"]
    if f["plan"]:
        lines.append(f"faults: {rep['nodes_failed']} nodes, {rep['links_failed']} links failed; fault-free "
                     f"{f['fault_free_fps'] / 1e6:.3f} M frames/s, lost {_percent(f['throughput_lost_fraction'])}")
    lines.append(f"sim_wall_s {rep['sim_wall_s']:.2f}")
    return "\n".join(lines)


def _given(args, exclude=(), only=None) -> list[str]:
    """The options of ``nc2600 mesh`` given on the command line with a value other than their
    default, as the user spells them (``--run``, not its destination ``run_dir``), sorted; those
    whose destinations are in ``exclude`` left out, and with ``only`` those in it alone."""
    flags = args.mesh_flags
    return sorted(flags[k] for k, v in args.mesh_defaults.items()
                  if k in flags and k not in exclude and (only is None or k in only) and getattr(args, k, v) != v)


def _check_memory(args) -> None:
    """Refuse a drawn workload whose evaluations (:func:`nc2600.mesh_sim.project.planned_evaluations`, the
    largest calibration case's with ``--calibrate``) need more memory than is available, at
    :data:`nc2600.mesh_sim.project.BYTES_PER_EVALUATION` each: each option is in range, but e.g.
    ``--population 100000 --generations 1000 --episodes 1000`` asks for 10^11 evaluations.

    Raises:
        UserError: the memory needed exceeds :func:`nc2600.host.resources.available_memory`.
    """
    from nc2600.mesh_sim.project import BYTES_PER_EVALUATION, calibration_cases, planned_evaluations
    if args.calibrate:
        n = max(planned_evaluations(o) for _, o in calibration_cases(args.generations or 4))
        what = f"--calibrate --generations {args.generations or 4} ({n:,} evaluations in its largest case)"
    else:
        try:
            n = planned_evaluations(_options(args))
        except UserError:
            return                      # refused with its own words by run_mesh
        if n is None:
            return
        what = f"a workload of {n:,} evaluations"
    require_memory(n * BYTES_PER_EVALUATION, what)


def run_mesh(args) -> int:
    from nc2600.mesh_sim.project import calibrate, simulate
    if args.out is not None:
        from nc2600.host.rundir import check_output_file
        check_output_file(args.out)
    if args.calibrate:
        # the calibration's cases are fixed (mesh_sim/CALIBRATION.md): an option it would ignore
        # is refused rather than dropped silently (a new user's find)
        ignored = _given(args, exclude=("calibrate", "generations", "json", "out"))
        if ignored:
            raise UserError(f"--calibrate runs the published configuration and its design changes as fixed cases; "
                            f"it takes only --generations, --json and --out, not {', '.join(ignored)}")
    elif args.run_dir and not args.run_dir.isspace() and (drawn := _given(args, only=_SYNTHETIC)):
        # the run's recorded episodes are the workload: a drawn workload's option does not apply to them
        # (an empty --run is refused by nc2600.mesh_sim.workload.load_run, as such)
        raise UserError(f"--run replays the run's recorded episodes; {', '.join(drawn)} "
                        f"shape a drawn workload and do not apply (--generations keeps the run's first G)")
    elif args.timing_source is not None and args.inference_cycles is None and args.colour_clocks_per_frame is None:
        raise UserError("--timing-source labels a given --inference-cycles or --colour-clocks-per-frame; give one")
    elif not (args.fail_nodes or args.fail_links) and (fault_draw := _given(args,
                                                                            only=("fault_seed", "fault_window_s"))):
        # they draw the random failures; without any (or with an explicit --faults list) they would be dropped
        raise UserError(f"{', '.join(fault_draw)} shape the random failures of --fail-nodes / --fail-links; give one "
                        "of those")
    if args.cards * args.nodes_per_card > _NODES:
        raise UserError(f"--cards {args.cards} x --nodes-per-card {args.nodes_per_card} = "
                        f"{args.cards * args.nodes_per_card:,} nodes; the model takes at most {_NODES:,}")
    _check_memory(args)
    try:
        if args.calibrate:
            rep = calibrate(args.generations or 4)
        else:
            rep = simulate(_options(args))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    text = json.dumps(rep, indent=None if args.json else 2, sort_keys=False)
    if args.out:
        _write_atomic(args.out, text + "\n")
    if args.json:
        print(text)
    elif args.calibrate:
        for c in rep["cases"]:
            print(f"{c['projected_fps'] / 1e6:6.3f} M frames/s  {c['utilization']:6.1%}  {c['case']}")
        ch = rep["checks"]
        print(f"headline band {ch['headline_band']}: {'in' if ch['headline_in_band'] else 'OUT'}; "
              f"sustained band {ch['sustained_band']}: {'in' if ch['sustained_in_band'] else 'OUT'}; "
              f"sim_wall_s {rep['sim_wall_s']:.2f}")
    else:
        print(_summary(rep))
    if not args.calibrate and (rep["lost_evaluations"] or rep["duplicated_evaluations"]):
        why = "" if rep["slots_alive_at_end"] else " (no live instance left)"
        sys.stderr.write(f"nc2600 mesh: exactly-once invariant violated: {rep['lost_evaluations']} lost, "
                         f"{rep['duplicated_evaluations']} duplicated{why}\n")
        return 1
    return 0


def run_bench(args) -> int:
    from nc2600.mesh_sim.project import MeshOptions, simulate
    rows = []
    for label, opts, target in (
            ("published, 1 generation", MeshOptions(generations=1), 1.0),
            (f"{args.big_cards} cards, 1 generation, population 20000",
             MeshOptions(cards=args.big_cards, population=20000, generations=1), 10.0)):
        for sched in ("static", "pull", "async"):
            t0 = time.perf_counter()
            rep = simulate(MeshOptions(**{**opts.__dict__, "schedule": sched}))
            wall = time.perf_counter() - t0
            rows.append({"case": label, "schedule": sched, "nodes": rep["topology"]["nodes"],
                         "instances": rep["topology"]["instances"], "evaluations": rep["evaluations"],
                         "messages": rep["messages"], "message_hops": rep["message_hops"],
                         "wall_s": wall, "target_s": target, "met": wall < target,
                         "projected_fps": rep["projected_fps"]})
    from nc2600.host.report import record_figures, results
    results.write_figures(args, record_figures.bench_mesh(rows))
    if args.json:
        print(json.dumps({"bench": "mesh", "rows": rows}))
    else:
        for r in rows:
            print(f"{r['case']:45s} {r['schedule']:6s} {r['nodes']:6d} nodes {r['evaluations']:6d} evals "
                  f"{r['message_hops']:8d} hops  {r['wall_s']:6.2f} s (target < {r['target_s']:g} s) "
                  f"{'ok' if r['met'] else 'SLOW'}")
    return 0
