"""One call from options (or a launcher run directory) to a projection report.

:func:`simulate` builds the topology, node timing, workload and fault plan from a
:class:`MeshOptions`, runs :class:`~nc2600.mesh_sim.sim.FabricSim`, and returns the report with
the parameters that produced it. With faults it also runs the same workload without them
and reports the throughput the faults cost.

:func:`project_run` is what ``nc2600 run`` calls to write ``projected_fabric_fps`` and
``projected_fabric_wall_s`` into its ``summary.json``.

:func:`calibrate` runs the published configuration and the design changes listed in
``mesh_sim/CALIBRATION.md``.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace

import numpy as np

from nc2600.hls_models.platform import FRAME_SKIP

from .faults import parse_faults, random_faults
from .links import LinkParams
from .node import ALE_RESET_FRAMES, NTSC_COLOUR_CLOCKS_PER_FRAME, NodeParams, inference_cycles, such_network_params
from .sim import FabricSim, SimConfig, _plain
from .topology import MeshTopology
from .workload import EpisodeDistribution, load_run, synthetic_workload

#: Published throughput figures (arXiv 2005.04536), frames/s.
PUBLISHED_HEADLINE_FPS = 1.2e6
PUBLISHED_SUSTAINED_FPS = (0.56e6, 0.67e6)
#: Calibration bands the model must land in (tests/mesh_sim/test_calibration.py): the headline
#: within 5 % of the published "about 1.2 M frames/s" (a figure of two significant digits), the
#: sustained within the published 0.56-0.67 M frames/s; either band is left by the model's
#: headline drifting 10 % either way, or its sustained figure drifting 10 % down.
HEADLINE_BAND = (1.14e6, 1.26e6)
SUSTAINED_BAND = PUBLISHED_SUSTAINED_FPS


@dataclass(frozen=True)
class MeshOptions:
    """Every knob of a projection, with the published configuration as defaults.

    Machine: ``cards``, ``nodes_per_card``, ``instances_per_node``, ``mesh`` (X, Y, Z or None),
    ``clock_mhz``, ``colour_clocks_per_frame`` (None: the run's figure or 59,736),
    ``colour_clocks`` (the console's configuration: 1, or 3 for the three-colour-clock
    console, whose frame takes a third of the clocks),
    ``lanes`` (the lane engine's MACs/cycle; None: 16 for the small network, the fewest lanes whose
    forward pass fits one frame-skip period for another, ``nc2600.hls_models.policy_int8.min_lanes``),
    ``array`` (None: the lane engine of ``lanes``;
    ``(rows, cols)``: the array engine of that shape, :mod:`nc2600.hls_models.policy_array`),
    ``n_actions`` (None: the run's or 18),
    ``reset_frames`` (uncounted reset frames; ALE's 68; 1 models a snapshot restore),
    ``inference_cycles`` (None: the engine's cycle model for ``lanes`` or ``array``, the action
    count and the run's network;
    else the cycles per decision that the console waits for, e.g. measured on the fabric
    instance RTL: preprocessor + inference + action select), ``timing_source`` (the label of
    a given ``colour_clocks_per_frame`` / ``inference_cycles``, e.g. "measured on the
    Verilated fabric instance"),
    ``inference`` ("pipelined": the console stalls only when a forward pass outlasts a
    frame-skip period, the published design; "serial": it waits for every decision),
    ``weight_load_ms``, ``link_latency_us``, ``link_gbytes_s``.
    The small network's 16 lanes are the fewest MAC lanes of ``nc2600.hls_models.policy_int8`` whose
    forward pass fits one frame-skip period at 150 MHz; a given ``lanes`` is taken as given.
    GA (ignored with ``run_dir``): ``population``, ``generations`` (None: 1, or all of a run),
    ``episodes``,
    ``elite_candidates``, ``elite_episodes``, ``test_episodes``, ``episode_steps`` (a
    distribution spec), ``episode_frames`` (cap), ``frame_skip``, ``seed``.
    ``run_dir``: replay a launcher run's recorded episodes (``generations`` keeps the first N).
    Schedule and faults: ``schedule``, ``fail_nodes``, ``fail_links``, ``fault_seed``,
    ``faults`` (explicit list), ``fault_window_s`` (None: the fault-free ideal makespan),
    ``detect_ms``.
    """

    cards: int = 16
    nodes_per_card: int = 27
    instances_per_node: int = 2
    mesh: tuple[int, int, int] | None = None
    clock_mhz: float = 150.0
    colour_clocks_per_frame: int | None = None
    colour_clocks: int = 1
    lanes: int | None = None
    array: tuple[int, int] | None = None
    n_actions: int | None = None
    reset_frames: int = ALE_RESET_FRAMES
    inference_cycles: int | None = None
    timing_source: str | None = None
    inference: str = "pipelined"
    weight_load_ms: float | None = None
    link_latency_us: float = 1.0
    link_gbytes_s: float = 16 / 6
    population: int = 1000
    generations: int | None = None
    episodes: int = 1
    elite_candidates: int = 10
    elite_episodes: int = 30
    test_episodes: int = 0
    episode_steps: str = "lognormal:2500:0.8"
    episode_frames: int = 20_000
    frame_skip: int = FRAME_SKIP
    seed: int = 0
    run_dir: str | None = None
    schedule: str = "static"
    fail_nodes: int = 0
    fail_links: int = 0
    fault_seed: int = 0
    faults: str | None = None
    fault_window_s: float | None = None
    detect_ms: float = 10.0


#: peak memory of a projection per evaluation of its workload, bytes: twice the measured ~500
#: (``nc2600 mesh --population 100000 --episodes 3 --elite-episodes 0``: 211 MB peak resident
#: against 62 MB for 1,000 evaluations, static schedule; pull and async ~300)
BYTES_PER_EVALUATION = 1024


def planned_evaluations(opts: MeshOptions) -> int | None:
    """Evaluations of the drawn workload ``opts`` asks for (``generations`` x (``population`` x
    ``episodes`` + ``elite_candidates`` x ``elite_episodes``) + ``test_episodes``, as
    :func:`nc2600.mesh_sim.workload.synthetic_workload` draws them), computed without drawing them;
    None with ``run_dir`` (the run's recorded episodes)."""
    if opts.run_dir is not None:
        return None
    elite = opts.elite_candidates * opts.elite_episodes if opts.elite_candidates and opts.elite_episodes else 0
    return (opts.generations or 1) * (opts.population * opts.episodes + elite) + opts.test_episodes


def build(opts: MeshOptions):
    """``(topology, workload, node_params, link_params, sim_config, info)`` for ``opts``.

    Raises ``ValueError`` (one line) on any impossible setting.
    """
    for name in ("cards", "nodes_per_card", "instances_per_node", "population", "generations", "episodes",
                 "lanes", "episode_frames", "frame_skip"):
        if getattr(opts, name) is not None and getattr(opts, name) <= 0:
            raise ValueError(f"{name.replace('_', ' ')} must be positive, got {getattr(opts, name)}")
    for name in ("clock_mhz", "link_latency_us", "link_gbytes_s", "detect_ms"):
        v = getattr(opts, name)
        if not (v > 0 and np.isfinite(v)) and not (name == "link_latency_us" and v == 0):
            raise ValueError(f"{name.replace('_', ' ')} must be positive, got {v}")
    if opts.inference not in ("pipelined", "serial"):
        raise ValueError(f"inference must be pipelined or serial, got {opts.inference!r}")
    if opts.colour_clocks not in (1, 3):
        raise ValueError(f"colour clocks per cycle must be 1 or 3, got {opts.colour_clocks}")
    if opts.reset_frames < 0:
        raise ValueError("reset frames must be >= 0")
    if opts.inference_cycles is not None and opts.inference_cycles < 0:
        raise ValueError(f"inference cycles must be >= 0, got {opts.inference_cycles}")
    topo = MeshTopology(cards=opts.cards, nodes_per_card=opts.nodes_per_card,
                        instances_per_node=opts.instances_per_node, mesh=opts.mesh)
    if opts.run_dir is not None:           # "" too: load_run refuses it
        wl = load_run(opts.run_dir, generations=opts.generations)
    else:
        wl = synthetic_workload(opts.population, opts.generations or 1, episodes_per_individual=opts.episodes,
                                elite_candidates=opts.elite_candidates, elite_episodes=opts.elite_episodes,
                                test_episodes=opts.test_episodes, frame_skip=opts.frame_skip,
                                episode_frames=opts.episode_frames,
                                distribution=EpisodeDistribution(opts.episode_steps), seed=opts.seed)
    n_actions = opts.n_actions or wl.n_actions or 18
    network = wl.extra.get("network", "small")
    if opts.array is not None:
        from nc2600.hls_models.policy_array import check_shape
        try:
            rows, cols = check_shape(*opts.array, network)
        except ValueError as exc:
            raise ValueError(f"array {'x'.join(map(str, opts.array))} for the {network} network: {exc}") from None
        engine = {"engine": "array", "array": f"{rows}x{cols}"}
    else:
        lanes = opts.lanes
        if lanes is None and network == "small":
            from nc2600.hls_models.engines import DEFAULT_LANES
            lanes = DEFAULT_LANES
        elif lanes is None:
            from nc2600.hls_models.policy_int8 import min_lanes      # the published 16 lanes are the small network's
            lanes = min_lanes(n_actions, network=network)
        engine = {"engine": "lane", "lanes": lanes}
    if opts.inference_cycles is not None:
        cycles, cyc_src = int(opts.inference_cycles), opts.timing_source or "given"
    elif opts.array is not None:
        from nc2600.hls_models.engines import inference_cycles as engine_cycles
        cycles = engine_cycles("array", n_actions, rows=rows, cols=cols, network=network)
        cyc_src = (f"nc2600.hls_models.policy_array.inference_cycles({n_actions}, {rows}, {cols}"
                   + ("" if network == "small" else f", {network!r}") + ")")
    else:
        cycles, cyc_src = inference_cycles(n_actions, lanes, network)
    ccpf = opts.colour_clocks_per_frame or wl.extra.get("colour_clocks_per_frame") or NTSC_COLOUR_CLOCKS_PER_FRAME
    ccpf_src = ((opts.timing_source or "given") if opts.colour_clocks_per_frame else
                "run config" if wl.extra.get("colour_clocks_per_frame") else "NTSC 262 x 228 default")
    n_weights = such_network_params(n_actions)
    if network != "small":
        from nc2600.hls_models.networks import n_params
        n_weights = n_params(network, n_actions)
    wload = (n_weights * (1e-9 + 1 / 1.2e9) if opts.weight_load_ms is None
             else opts.weight_load_ms * 1e-3)
    node = NodeParams(clock_hz=opts.clock_mhz * 1e6, colour_clocks_per_frame=int(ccpf), inference_cycles=cycles,
                      ale_reset_frames=opts.reset_frames, weight_load_s=wload, frame_skip=wl.frame_skip,
                      inference_pipelined=opts.inference == "pipelined",
                      colour_clocks=opts.colour_clocks)
    links = LinkParams(latency_s=opts.link_latency_us * 1e-6, bandwidth_Bps=opts.link_gbytes_s * 1e9)
    cfg = SimConfig(schedule=opts.schedule, detect_s=opts.detect_ms * 1e-3)
    info = {
        "topology": {"mesh": "x".join(map(str, topo.shape)), "card_shape": "x".join(map(str, topo.card_dims)),
                     "cards": topo.cards, "nodes": topo.n_nodes, "links": topo.n_links,
                     "worker_nodes": len(topo.worker_nodes), "io_nodes": len(topo.io_nodes),
                     "instances": topo.n_slots, "diameter_hops": topo.diameter, "entry_node": topo.entry_node},
        "instance": {"clock_mhz": opts.clock_mhz, "colour_clocks_per_frame": int(ccpf),
                     "colour_clocks": opts.colour_clocks,
                     "cycles_per_frame": node.cycles_per_frame,
                     "colour_clocks_source": ccpf_src, "frame_time_us": node.frame_s * 1e6,
                     "instance_fps": node.instance_fps, "n_actions": n_actions, **engine, "network": network,
                     "inference_cycles": cycles, "inference_source": cyc_src,
                     "inference": opts.inference, "inference_stall_us_per_step": node.inference_s * 1e6,
                     "frame_skip": wl.frame_skip, "reset_frames": opts.reset_frames,
                     "weight_load_ms": wload * 1e3},
        "links": {"latency_us": opts.link_latency_us, "gbytes_s": opts.link_gbytes_s,
                  "model": "store-and-forward, FIFO per link direction, path reservation at injection"},
        "workload": {"source": wl.source, "evaluations": wl.n_evaluations, "generations": wl.n_generations,
                     "phases": len(wl.phases), "mean_frames": float(wl.frames.mean()),
                     "mean_steps": float(wl.steps.mean()), "game": wl.game},
    }
    return topo, wl, node, links, cfg, info


def _check_live_instance(faults, topo: MeshTopology) -> list:
    """``faults`` unchanged, or ValueError when they fail every worker node (no instance would be
    left to run the remaining episodes: refused before the simulation, not found in it). For
    the random draw of ``--fail-nodes``; an explicit ``--faults`` list is simulated as given
    (its report shows the evaluations lost, exit 1)."""
    workers = set(topo.worker_nodes)
    dead = {f.a for f in faults if f.kind == "node"} & workers
    if workers and dead == workers:
        raise ValueError(f"the node faults fail all {len(workers)} worker nodes, leaving no live instance; "
                         f"fail at most {len(workers) - 1} of them")
    return faults


def _fault_plan(opts: MeshOptions, topo: MeshTopology, wl, node: NodeParams):
    if opts.faults is not None:            # "" and "," too: parse_faults refuses them
        if opts.fail_nodes or opts.fail_links:
            raise ValueError("give either an explicit fault list or --fail-nodes/--fail-links, not both")
        return parse_faults(opts.faults, topo), None      # a scenario as listed (the report says what it lost)
    if not (opts.fail_nodes or opts.fail_links):
        return [], None
    window = opts.fault_window_s
    if window is None:
        busy = float((wl.frames + node.ale_reset_frames).sum() * node.frame_s + wl.steps.sum() * node.inference_s)
        window = busy / topo.n_slots
    if not window > 0:
        raise ValueError("fault window must be positive")
    return _check_live_instance(random_faults(topo, opts.fail_nodes, opts.fail_links, opts.fault_seed, window),
                                topo), window


def simulate(opts: MeshOptions) -> dict:
    """Run one projection; returns the report (JSON-ready dict). Raises ``ValueError`` on bad input."""
    wall0 = time.perf_counter()
    topo, wl, node, links, cfg, info = build(opts)
    faults, window = _fault_plan(opts, topo, wl, node)
    rep = FabricSim(topo, wl, node, links, cfg, faults).run()
    rep.update(info)
    rep["faults"] = {"plan": [f.describe() for f in faults], "window_s": window}
    if faults:
        base = FabricSim(topo, wl, node, links, cfg, []).run()
        rep["faults"].update({"fault_free_fps": base["projected_fps"],
                              "throughput_lost_fps": base["projected_fps"] - rep["projected_fps"],
                              "throughput_lost_fraction": 1 - rep["projected_fps"] / base["projected_fps"]
                              if base["projected_fps"] else 0.0})
    rep["options"] = {k: v for k, v in asdict(opts).items()}
    rep["sim_wall_s"] = time.perf_counter() - wall0
    return _plain(rep)


def project_run(run_dir: str, **overrides) -> dict:
    """Projection of a launcher run's recorded episodes on the published fabric.

    The instances carry the default instance's engine (:data:`nc2600.hls_models.engines.DEFAULT_ENGINE`,
    the 16 x 16 array), as ``nc2600 mesh --run DIR`` does with no engine option, unless
    ``overrides`` name an engine (``array``, ``lanes``) or give ``inference_cycles``.

    Returns ``{"projected_fabric_fps", "projected_fabric_wall_s", "projected_fabric_utilization",
    "projected_fabric_schedule", "projected_fabric_inference_source"}``; ``overrides`` are
    :class:`MeshOptions` fields (e.g. ``schedule="pull"``). Raises ``ValueError`` on a bad run.
    """
    from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_ROWS
    if DEFAULT_ENGINE == "array" and not {"array", "lanes", "inference_cycles"} & set(overrides):
        overrides = {**overrides, "array": (DEFAULT_ROWS, DEFAULT_COLS)}
    rep = simulate(MeshOptions(run_dir=run_dir, **overrides))
    return {"projected_fabric_fps": rep["projected_fps"], "projected_fabric_wall_s": rep["makespan_s"],
            "projected_fabric_utilization": rep["utilization"], "projected_fabric_schedule": rep["schedule"],
            "projected_fabric_inference_source": rep["instance"]["inference_source"]}


def calibration_cases(generations: int = 4) -> list[tuple[str, MeshOptions]]:
    """The published configuration and the design changes that move it toward the ceiling."""
    pub = MeshOptions(generations=generations)
    headline = replace(pub, episode_steps="fixed:5000", elite_episodes=0)
    return [
        ("headline: published machine (150 MHz, 832 instances, pipelined inference), Such et al. "
         "population 1000, every episode at the 20,000-frame cap, static round-robin with a generation barrier",
         headline),
        ("headline + elite re-evaluation phase (10 candidates x 30 episodes)", replace(headline, elite_episodes=30)),
        ("sustained: published machine and GA (elite phase), default episode-length mix, static", pub),
        ("sustained, inference not pipelined (console waits for every forward pass)",
         replace(pub, inference="serial")),
        ("change: dynamic pull instead of static", replace(pub, schedule="pull")),
        ("change: population 1664 = 2 x 832 slots (static)", replace(pub, population=1664)),
        ("change: asynchronous steady-state GA (no barrier)", replace(pub, schedule="async")),
        ("change: async + reset by state snapshot (68 -> 1 frame)", replace(pub, schedule="async", reset_frames=1)),
    ]


def calibrate(generations: int = 4) -> dict:
    """Run :func:`calibration_cases`; returns ``{"cases": [...], "checks": {...}}``."""
    wall0 = time.perf_counter()
    cases = []
    for name, o in calibration_cases(generations):
        r = simulate(o)
        cases.append({"case": name, "schedule": o.schedule, "projected_fps": r["projected_fps"],
                      "utilization": r["utilization"], "generations_per_hour": r["generations_per_hour"],
                      "time_fractions": r["time_fractions"], "ceiling_fps": r["ceiling_fps"]})
    h, s = cases[0]["projected_fps"], cases[2]["projected_fps"]
    checks = {"published_headline_fps": PUBLISHED_HEADLINE_FPS, "headline_band": HEADLINE_BAND,
              "headline_in_band": HEADLINE_BAND[0] <= h <= HEADLINE_BAND[1],
              "published_sustained_fps": PUBLISHED_SUSTAINED_FPS, "sustained_band": SUSTAINED_BAND,
              "sustained_in_band": SUSTAINED_BAND[0] <= s <= SUSTAINED_BAND[1]}
    return _plain({"cases": cases, "checks": checks, "sim_wall_s": time.perf_counter() - wall0})
