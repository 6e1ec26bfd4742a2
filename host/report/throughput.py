"""Cycle-accurate throughput report (``nc2600 report``): what each block costs per frame and decision.

The report gathers, per game:

* colour clocks per frame **measured on the RTL** console over an episode of random actions
  (``nc2600 rtl-play``); while the console RTL does not exist this figure is reported
  as *missing*, and the per-instance figures that need it fall back to the nominal NTSC frame
  (262 lines x 228 colour clocks = 59,736), labelled as such;
* preprocessor latency **measured on the RTL** (:class:`nc2600.hwtools.preprocessor_harness.PreprocessorSim`
  in Verilator, fed the game's own ALE frames): cycles from the last visible pixel of the
  4th frame to ``obs_valid``;
* policy inference cycles **computed by the model** :func:`nc2600.hls_models.policy_int8.inference_cycles`
  for the game's minimal action set and ``lanes`` MAC lanes;
* action-select latency **measured on the RTL** (:class:`nc2600.hw.action_select.ActionSelect`, 18
  lanes, in Amaranth's simulator): rising edges from the action-values beat to ``chosen.valid``;
* cycles by phase **measured on the Verilated fabric instance** (:mod:`nc2600.hw.instance`: console,
  preprocessor, int8 engine, action select and frame-skip controller in one design, driven by
  :class:`nc2600.host.drivers.instance.InstanceEpisodeRunner`): one episode of ``frames`` frames with the network
  ``init_params(1)`` quantised as ``nc2600 instance-play`` does; emulation and host rules per
  frame, preprocessor wait, inference (engine start->done) and action select per decision, the
  parameter load and the reset replay per episode (16 lanes: the instance harness's build);
* frames/s per instance at ``clock_mhz`` (one colour clock per cycle), computed from the
  instance's measured phases when they exist, else from the block figures above, and at the console's Fmax **measured
  by place and route** on an ECP5-85 (a proxy
  device, not the Zynq-7045) when ``nc2600 synth --pnr`` has placed this exact console
  (the result is looked up in its cache; the report never runs place and route itself), and the
  same at the three-colour-clock console's measured Fmax (``console_cc3``: a frame in a third of
  the clocks) with the ratio of the two; the same (and per device: two instances per node, and the
  published fabric's 832 instances all emulating) at each console's Fmax measured by nextpnr-nexus on a
  28 nm LIFCL-40-9 (:data:`PNR_NEXUS`, a second proxy, not the XC7Z045), with the Fmax spread over
  placer seeds 1-3 when ``nc2600 synth --pnr nexus --pnr-seed S`` has placed them; and for the whole fabric from
  :func:`nc2600.mesh_sim.project.simulate` (one GA generation of
  the published configuration), beside the published 1.2 M frames/s and the 2.09 M ceiling, for
  one and for three colour clocks per clock (``mesh_sim`` ``colour_clocks``) at the same clock.

Per decision (``frame_skip`` frames) an instance spends, in cycles::

    emulation      frame_skip x colour_clocks_per_frame
    preprocessing  preprocessor latency (after the last pixel of the decision's last frame)
    forward pass   inference_cycles(A, lanes) - latency_model(A)   (MAC layers and drains)
    action select  the RTL's argmax latency (the model's own argmax term is replaced by it)

With the instance measured, emulation is ``frame_skip`` x (its emulation + host-rules cycles per
frame) and the decision path its preprocessor + inference + action-select cycles per decision.
``serial`` (Such et al.'s semantics and the instance RTL's: the console waits for each decision) costs their sum;
``pipelined`` (the published design, and mesh_sim's default) overlaps the decision path with
the next ``frame_skip`` frames and stalls only for what exceeds them; ``stalled`` (the instance
with ``EP_CFG.hide``, measured on the default instance as ``stall_per_decision``) costs the
clocks the console was held at its first controller read after the decision. Frames/s per instance =
``frame_skip x clock / cycles per decision``. Resets and the GA's barriers are in the fabric
projection (mesh_sim), not in the per-instance figures.

Like for like (:func:`like_for_like`): every ratio to the published machine sets a ceiling
(:data:`CEILING`: emulation and the decision only) beside its ceiling, 150 MHz / 59,736 colour
clocks = 2,511 frames/s per instance (5,022 per device), and a projected fabric figure
(:data:`SUSTAINED`: mesh_sim with resets and generations) beside its sustained 1.2 M frames/s
(quoted) and the same model of its configuration (``nc2600 mesh --calibrate``, 1.25 M);
:func:`ratio` refuses anything else.

Every figure carries its kind (:data:`KINDS`), its source and a command that reproduces it.
:func:`compute` (this module) is a pure function of the gathered inputs (tests give it small
hand-made inputs); :func:`nc2600.host.report.measure.gather` does the measurements;
:func:`nc2600.host.report.render.write` renders ``report.md`` and a self-contained ``report.html`` (PNG
plots embedded) into a folder.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nc2600.hls_models.platform import FRAME_SKIP
# the report's vocabulary, re-exported: report users read it from this module
from nc2600.host.report.figures import (  # noqa: F401
    ACTION_SELECT_LANES, BASES, CEILING, DERIVED, FABRIC_INSTANCES, INSTANCES_PER_DEVICE, KINDS, MISSING, MODEL,
    NEXUS_SEEDS, NTSC_COLOUR_CLOCKS, PNR, PNR_NEXUS, PUBLISHED, PUBLISHED_CEILING_FPS, PUBLISHED_CLOCK_MHZ,
    PUBLISHED_DEVICE_CEILING_FPS, PUBLISHED_FABRIC_FPS, PUBLISHED_INSTANCE_CEILING_FPS, PUBLISHED_INSTANCE_FPS,
    PUBLISHED_SOURCE, RTL, SUSTAINED, Figure, ratio)


@dataclass
class GameInputs:
    """What :func:`gather` measured for one game (or what a test hands to :func:`compute`).

    ``colour_clocks``: per-frame colour clocks measured on the RTL console (``(frames,)`` int),
    or None with ``colour_clocks_missing`` saying why. ``pp_latencies``: preprocessor latency
    (cycles) of each decision's observation, or None with ``pp_missing``. ``instance``: the
    fabric instance's measured cycles (:func:`measure_instance_cycles`), or None with
    ``instance_missing``.
    """

    game: str
    n_actions: int
    colour_clocks: np.ndarray | None = None
    colour_clocks_missing: str = ""
    colour_clocks_command: str = ""
    pp_latencies: list[int] | None = None
    pp_missing: str = ""
    screen: str = ""
    instance: dict | None = None          # measure_instance_cycles
    instance_missing: str = ""
    instance_command: str = ""


@dataclass
class Inputs:
    """All inputs of :func:`compute`."""

    games: list[GameInputs]
    clock_mhz: float = 150.0
    lanes: int = 16
    frame_skip: int = FRAME_SKIP
    action_select_latency: int | None = None
    action_select_missing: str = ""
    frames: int = 400
    seed: int = 0
    mesh: dict = field(default_factory=dict)   # game -> nc2600.mesh_sim.project.simulate report
    console_pnr: dict | None = None            # nc2600.hwtools.ecp5_pnr.pnr_block of the console's current Verilog
    console_pnr_missing: str = ""
    console3_pnr: dict | None = None           # the same for the three-colour-clock console (console_cc3)
    console3_pnr_missing: str = ""
    # nc2600.hwtools.nexus.pnr_block results (LIFCL-40-9, one per placer seed found in the cache) of each console
    console_nexus: list[dict] = field(default_factory=list)
    console3_nexus: list[dict] = field(default_factory=list)
    nexus_missing: str = ""
    array: tuple[int, int] | None = None       # (rows, cols): the array engine instead of ``lanes``
    # the like-for-like comparison's projections (mesh_sim, headline regime): the published
    # configuration (``nc2600 mesh --calibrate``'s first case) and, per game, the default instance
    # (three colour clocks per clock) at console_cc3's LIFCL-40-9 Fmax with its measured cycles
    published_mesh: dict | None = None
    lfl_mesh: dict = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# The computation (pure)
# ---------------------------------------------------------------------------------------------

def cli_number(x: float) -> str:
    """``x`` as a command line gives it back exactly: ``"150"`` for 150.0, the shortest text that
    parses to ``x`` when six significant digits (``:g``) would round it (``"123.4567891"``)."""
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def decision_cycles(colour_clocks_per_frame: float, pp_latency: int, forward_cycles: int, as_latency: int,
                    frame_skip: int = FRAME_SKIP) -> dict:
    """Cycles of one decision: ``{"emulation", "preprocessing", "forward", "action_select", "path",
    "serial", "pipelined", "stall_pipelined"}`` (module doc)."""
    emu = frame_skip * colour_clocks_per_frame
    path = pp_latency + forward_cycles + as_latency
    stall = max(0.0, path - emu)
    return {"emulation": emu, "preprocessing": pp_latency, "forward": forward_cycles, "action_select": as_latency,
            "path": path, "serial": emu + path, "pipelined": emu + stall, "stall_pipelined": stall}


INSTANCE_PHASES = (("emulation_per_frame", "emulation per frame", "cycles"),
                   ("host_rules_per_frame", "host rules wait per frame", "cycles"),
                   ("preprocessor_per_decision", "preprocessor wait per decision", "cycles"),
                   ("inference_per_decision", "inference per decision (engine start->done)", "cycles"),
                   ("action_select_per_decision", "action select per decision", "cycles"),
                   ("controller_per_episode", "controller (stack clear) per episode", "cycles"),
                   ("param_load", "parameter load per individual", "cycles"),
                   ("reset_replay", "reset replay per episode", "cycles"))


def instance_decision_cycles(m: dict, frame_skip: int = FRAME_SKIP) -> dict:
    """Cycles of one decision from the fabric instance's measured phases ``m``
    (:func:`measure_instance_cycles`): the keys of :func:`decision_cycles` plus ``host_rules``.
    ``serial`` is what the instance RTL does (the console waits for the decision path);
    ``pipelined`` overlaps the decision path with the next ``frame_skip`` frames."""
    emu = frame_skip * m["emulation_per_frame"]
    host = frame_skip * m["host_rules_per_frame"]
    pp, inf, sel = m["preprocessor_per_decision"], m["inference_per_decision"], m["action_select_per_decision"]
    path = pp + inf + sel
    stall = max(0.0, path - emu)
    out = {"emulation": emu, "host_rules": host, "preprocessing": pp, "forward": inf, "action_select": sel,
           "path": path, "serial": emu + host + path, "pipelined": emu + host + stall, "stall_pipelined": stall}
    if m.get("stall_per_decision") is not None:     # the instance hides the decision behind the console
        out["stalled"] = m["stall_per_decision"]
    return out


def _inference_model(inp: Inputs, n_actions: int) -> tuple[int, str, str, str]:
    """The engine's model cycles from start to the chosen action: ``(cycles, engine in words, the
    model function's dotted name, its arguments as text)`` (the lane engine's
    :func:`nc2600.hls_models.policy_int8.inference_cycles`, or with ``inp.array`` the array engine's
    :func:`nc2600.hls_models.policy_array.inference_cycles`)."""
    if inp.array is None:
        from nc2600.hls_models.policy_int8 import inference_cycles
        return (inference_cycles(n_actions, inp.lanes), f"{inp.lanes} lanes",
                "nc2600.hls_models.policy_int8.inference_cycles", f"{n_actions}, {inp.lanes}")
    from nc2600.hls_models.policy_array import inference_cycles as array_cycles
    r, c = inp.array
    return (array_cycles(n_actions, r, c), f"array engine {r} x {c}", "nc2600.hls_models.policy_array.inference_cycles",
            f"{n_actions}, {r}, {c}")


def _stall_words(mode: str, cyc: dict) -> str:
    """Before a decision path's terms in a frames/s source: nothing for ``serial`` (the terms are
    added), the stall they cause beyond the emulation for ``pipelined`` (:func:`decision_cycles`)."""
    if mode == "serial":
        return ""
    return f"the decision path's stall beyond the emulation, {cyc['stall_pipelined']:,.0f}, of "


def like_for_like(inp: Inputs, cc3: dict | None) -> list[Figure]:
    """The comparison with the published machine, like for like (section "Like for like"): per
    game with the instance measured, our ceiling per instance and per device at console_cc3's
    LIFCL-40-9 Fmax (``cc3``: its seed-1 result, or None) beside the published machine's ceiling
    (:data:`PUBLISHED_INSTANCE_CEILING_FPS`, per device x2), and our projected fabric (mesh_sim,
    headline regime, ``inp.lfl_mesh``) beside the published sustained 1.2 M (quoted) and the same
    model of the published configuration (``inp.published_mesh``); each pair with its ratio
    (:func:`ratio`: ceilings with ceilings, sustained with sustained)."""
    sect = "Like for like with the published machine"
    figs: list[Figure] = []
    pub_inst = Figure(sect, "published machine: ceiling per instance (150 MHz / 59,736 colour clocks a frame, "
                      "inference pipelined)", None, PUBLISHED_INSTANCE_CEILING_FPS, "frames/s", MODEL,
                      f"the published {PUBLISHED_CLOCK_MHZ:g} MHz / the NTSC frame's {NTSC_COLOUR_CLOCKS:,} colour "
                      f"clocks at one colour clock per clock (quoted per instance: {PUBLISHED_INSTANCE_FPS:,}); "
                      + PUBLISHED_SOURCE, basis=CEILING, record="published machine: ceiling per instance")
    pub_dev = Figure(sect, f"published machine: ceiling per device ({INSTANCES_PER_DEVICE} instances)", None,
                     PUBLISHED_DEVICE_CEILING_FPS, "frames/s", MODEL,
                     f"{INSTANCES_PER_DEVICE} x {PUBLISHED_INSTANCE_CEILING_FPS:,.1f}", basis=CEILING,
                     record="published machine: ceiling per device")
    pub_quoted = Figure(sect, "published machine: sustained training throughput (quoted)", None, PUBLISHED_FABRIC_FPS,
                        "frames/s", PUBLISHED, PUBLISHED_SOURCE, basis=SUSTAINED,
                        record="published machine: training throughput")
    figs += [pub_inst, pub_dev, pub_quoted]
    pub_model = None
    if inp.published_mesh is not None:
        pub_model = Figure(sect, "published configuration in mesh_sim, headline regime", None,
                           inp.published_mesh["projected_fps"], "frames/s", MODEL,
                           "mesh_sim, the published configuration (150 MHz, one colour clock per clock, 832 instances, "
                           "pipelined inference), headline regime", "nc2600 mesh --calibrate", basis=SUSTAINED,
                           record="fabric headline throughput, published configuration")
        figs.append(pub_model)
    for g in inp.games:
        m = g.instance
        if m is None or cc3 is None:
            figs.append(Figure(sect, "ceiling per instance at console_cc3's LIFCL-40-9 Fmax", g.game, None,
                               "frames/s", MISSING, "needs the instance's measured cycles and console_cc3's LIFCL-40 "
                               "place-and-route result (nc2600 synth --block console_cc3 --pnr nexus)"))
            continue
        mhz = float(cc3["fmax_mhz"])
        cyc = instance_decision_cycles(m, inp.frame_skip)
        # three colour clocks per clock: the emulation and host-rules colour clocks in a third of the
        # clocks, the console's wait per decision in clocks as measured
        emu3 = (cyc["emulation"] + cyc["host_rules"]) / 3
        wait, how = ((cyc["stalled"], "the console stalled only until the action was ready at its first controller "
                      "read") if "stalled" in cyc else (cyc["path"], "the console waits for each decision"))
        fps = inp.frame_skip * mhz * 1e6 / (emu3 + wait)
        src = (f"{inp.frame_skip} x {mhz:g} MHz (console_cc3's Fmax on {cc3.get('device', 'LIFCL-40-9')}, seed "
               f"{cc3.get('seed')}) / ({emu3:,.0f} clocks of emulation and host rules per decision at three colour "
               f"clocks per clock + {wait:,.0f} cycles of the console's wait per decision, {how}), from the cycles "
               "measured on the Verilated instance")
        cmd = f"nc2600 report --game {g.game}"
        # the results records' names (docs/results: the like-for-like table's rows)
        rec = _lfl_record_names(inp, cc3, mhz, g.game, "stalled" in cyc)
        ours_inst = Figure(sect, f"ceiling per instance at console_cc3's LIFCL-40-9 Fmax, {mhz:g} MHz", g.game, fps,
                           "frames/s", DERIVED, src, cmd, basis=CEILING, record=rec["inst"])
        ours_dev = Figure(sect, f"ceiling per device ({INSTANCES_PER_DEVICE} instances) at {mhz:g} MHz", g.game,
                          INSTANCES_PER_DEVICE * fps, "frames/s", DERIVED, f"{INSTANCES_PER_DEVICE} x the instance's",
                          cmd, basis=CEILING, record=rec["dev"])
        figs += [ours_inst, _named(ratio(sect, "ceiling per instance: ours / published", g.game, ours_inst, pub_inst),
                                   rec["inst_ratio"]),
                 ours_dev, _named(ratio(sect, "ceiling per device: ours / published", g.game, ours_dev, pub_dev),
                                  rec["dev_ratio"])]
        mesh = inp.lfl_mesh.get(g.game)
        if mesh is None:
            continue
        o = mesh["options"]
        ours_fab = Figure(sect, f"fabric projection at {mhz:g} MHz, headline regime (mesh_sim)", g.game,
                          mesh["projected_fps"], "frames/s", MODEL,
                          f"mesh_sim, {mesh['topology']['instances']} instances at {mhz:g} MHz, three colour clocks "
                          f"per clock, {o['colour_clocks_per_frame']} clocks per frame and "
                          f"{o['inference_cycles']} cycles per decision the console waits ({o.get('timing_source')}), "
                          "headline regime",
                          f"nc2600 mesh --generations {o['generations']} --episode-steps {o['episode_steps']} "
                          f"--elite-episodes {o['elite_episodes']} --clock-mhz {cli_number(mhz)} --colour-clocks 3 "
                          f"--colour-clocks-per-frame {o['colour_clocks_per_frame']} --inference-cycles "
                          f"{o['inference_cycles']} --inference serial", basis=SUSTAINED, record=rec["fab"])
        figs += [ours_fab, _named(ratio(sect, "fabric, headline regime: ours / published (quoted 1.2 M)", g.game,
                                        ours_fab, pub_quoted), rec["fab_quoted"])]
        if pub_model is not None:
            figs.append(_named(ratio(sect, "fabric, headline regime: ours / the published configuration's model",
                                     g.game, ours_fab, pub_model), rec["fab_model"]))
    return figs


def _named(fig: Figure, record: str) -> Figure:
    """``fig`` with its results-record name set."""
    fig.record = record
    return fig


def _lfl_record_names(inp: Inputs, cc3: dict, mhz: float, game: str, hidden: bool) -> dict[str, str]:
    """The like-for-like figures' names in docs/results at console_cc3's clock ``mhz`` (seed
    ``cc3["seed"]``) for ``game``: the operands and the ratios of the README's like-for-like table;
    ``hidden``: the console stalled only until the action was ready (the instance's measured stall;
    the names end in ", decision hidden, <game>"), else it waited for each decision (the names end
    in ", <game>", except Boxing's: the like-for-like headline game, whose records name no game)."""
    engine = (f"the array engine {inp.array[0]} x {inp.array[1]}" if inp.array is not None
              else f"the lane engine ({inp.lanes} lanes)")
    at = f"console_cc3 at {mhz:g} MHz (LIFCL-40-9, seed {cc3.get('seed')})"
    short = f"console_cc3 at {mhz:g} MHz (LIFCL-40-9)"
    if hidden:
        at, short = f"{at}, decision hidden, {game}", f"{short}, decision hidden, {game}"
    elif game != "boxing":
        at, short = f"{at}, {game}", f"{short}, {game}"
    return {"inst": f"frames/s per instance, {engine.removeprefix('the ')}, {at}",
            "dev": f"frames/s per device, two instances with {engine}, {at}",
            "fab": f"fabric projection with {engine}, {at}, headline regime",
            "inst_ratio": f"like for like: ceiling per instance, {short} / published",
            "dev_ratio": f"like for like: ceiling per device, {short} / published",
            "fab_quoted": f"like for like: fabric, headline regime, {short} / published quoted",
            "fab_model": f"like for like: fabric, headline regime, {short} / published configuration in mesh_sim"}


def like_for_like_table(figures: list[Figure]) -> list[str]:
    """The like-for-like comparison as Markdown table lines (empty when there is none): one row per
    ratio of :func:`like_for_like`, its basis, both operands and the ratio, side by side."""
    rows = [f for f in figures if f.unit == "x" and len(f.operands) == 2 and f.value is not None]
    if not rows:
        return []
    out = ["| game | comparison | basis | nc2600 | published machine | ratio |", "|---|---|---|---:|---:|---:|"]
    for f in rows:
        a, b = f.operands
        out.append(f"| {f.game or ''} | {a.name} / {b.name} | {f.basis} | {a.value:,.0f} {a.unit} "
                   f"| {b.value:,.0f} {b.unit} | {f.value:.2f}x |")
    return out


def compute(inp: Inputs) -> dict:
    """Every figure of the report from its inputs. Returns ``{"figures": [Figure], "per_game": {...}}``.

    ``per_game[game]`` holds the numbers behind the plots: ``colour_clocks`` (list or None),
    ``cycles`` (:func:`decision_cycles` or None when a part is missing) and ``mesh``.
    """
    from nc2600.hls_models.action_select import latency as model_argmax_latency

    clock_hz = inp.clock_mhz * 1e6
    figs: list[Figure] = []
    per_game: dict[str, dict] = {}
    sect_rtl, sect_inst, sect_fab = "Block timing", "Per instance", "Whole fabric"
    if inp.action_select_latency is None:
        figs.append(Figure(sect_rtl, "action-select latency (18 lanes)", None, None, "cycles", MISSING,
                           inp.action_select_missing or "not measured"))
    else:
        figs.append(Figure(sect_rtl, f"action-select latency ({ACTION_SELECT_LANES} lanes)", None,
                           int(inp.action_select_latency), "cycles", RTL,
                           "hw/action_select.py in Amaranth's simulator: edges from the action-values beat to "
                           "chosen.valid",
                           "nc2600 report (or make sim: tests/action_select/cocotb_action_select.py)"))
    pnr = inp.console_pnr
    pnr_cmd = "nc2600 synth --block console_cc1 --pnr"
    if pnr is None:
        figs.append(Figure(sect_rtl, "console Fmax (place and route, ECP5-85)", None, None, "MHz", MISSING,
                           inp.console_pnr_missing or f"no place-and-route result for this console ({pnr_cmd})"))
    else:
        cp = pnr.get("critical_path") or {}
        figs.append(Figure(sect_rtl, "console Fmax (place and route, ECP5-85; not the Zynq-7045)", None,
                           float(pnr["fmax_mhz"]), "MHz", PNR,
                           f"nextpnr-ecp5 on {pnr['device']} speed {pnr['speed']}, seed {pnr['seed']}; critical path "
                           f"{cp.get('from')} -> {cp.get('to')}, {cp.get('delay_ns')} ns", pnr_cmd))
    pnr3 = inp.console3_pnr
    pnr3_cmd = "nc2600 synth --block console_cc3 --pnr"
    if pnr3 is None:
        figs.append(Figure(sect_rtl, "three-colour-clock console Fmax (place and route, ECP5-85)", None, None, "MHz",
                           MISSING,
                           inp.console3_pnr_missing or f"no place-and-route result for this console ({pnr3_cmd})"))
    else:
        cp = pnr3.get("critical_path") or {}
        figs.append(Figure(sect_rtl, "three-colour-clock console Fmax (place and route, ECP5-85; not the Zynq-7045)",
                           None, float(pnr3["fmax_mhz"]), "MHz", PNR,
                           f"console_cc3 (one CPU cycle per clock): nextpnr-ecp5 on {pnr3['device']} speed "
                           f"{pnr3['speed']}, "
                           f"seed {pnr3['seed']}; critical path {cp.get('from')} -> {cp.get('to')}, "
                           f"{cp.get('delay_ns')} ns", pnr3_cmd))
    nexus = {}    # block -> the seed-1 (else first) LIFCL-40 result
    for block, results, what in (("console_cc1", inp.console_nexus, "console"),
                                 ("console_cc3", inp.console3_nexus, "three-colour-clock console")):
        ripup = " --pnr-tmg-ripup" if any(x.get("tmg_ripup") for x in results) else ""
        cmd = f"nc2600 synth --block {block} --pnr nexus --pnr-seed S{ripup} (S = {', '.join(map(str, NEXUS_SEEDS))})"
        if not results:
            figs.append(Figure(sect_rtl, f"LIFCL-40: {what} Fmax (place and route)", None, None, "MHz", MISSING,
                               inp.nexus_missing or f"no LIFCL-40 place-and-route result for this console ({cmd})"))
            continue
        r = nexus[block] = min(results, key=lambda x: x["seed"] != 1)
        cp = r.get("critical_path") or {}
        figs.append(Figure(sect_rtl,
                           f"LIFCL-40: {what} Fmax (place and route, speed 9, 28 nm; a proxy, not the XC7Z045)",
                           None, float(r["fmax_mhz"]), "MHz", PNR_NEXUS,
                           f"nextpnr-nexus on {r['device']}, seed {r['seed']}, carry {r['carry']}"
                           f"{', router2 with timing-driven rip-up' if r.get('tmg_ripup') else ''}; critical path "
                           f"{cp.get('from')} -> {cp.get('to')}, {cp.get('delay_ns')} ns "
                           f"({cp.get('logic_ns')} logic + {cp.get('routing_ns')} routing)",
                           f"nc2600 synth --block {block} --pnr nexus --pnr-seed {r['seed']}{ripup}"))
        if len(results) > 1:
            from nc2600.hwtools.nexus import seed_spread
            sp = seed_spread(results)
            figs.append(Figure(sect_rtl, f"LIFCL-40: {what} Fmax spread over placer seeds "
                               f"{', '.join(map(str, sp['seeds']))}", None, sp["spread_pct"], "%", PNR_NEXUS,
                               "(max - min) / min of the routed Fmax: " + ", ".join(
                                   f"seed {s} {f:g} MHz" for s, f in zip(sp["seeds"], sp["fmax_mhz"])), cmd))
    for g in inp.games:
        row: dict = {"colour_clocks": None, "cycles": None, "mesh": None, "nominal_frame": False}
        per_game[g.game] = row
        if g.colour_clocks is None:
            figs.append(Figure(sect_rtl, "colour clocks per frame (RTL console)", g.game, None, "colour clocks",
                               MISSING, g.colour_clocks_missing or "console RTL not built"))
            ccpf, ccpf_kind = float(NTSC_COLOUR_CLOCKS), MODEL
            ccpf_src = "nominal NTSC frame 262 x 228 (console RTL missing)"
            row["nominal_frame"] = True
        else:
            cc = np.asarray(g.colour_clocks, dtype=np.int64)
            row["colour_clocks"] = cc.tolist()
            ccpf, ccpf_kind = float(cc.mean()), RTL
            ccpf_src = f"mean over {cc.size} frames of the RTL console"
            for stat, val in (("mean", cc.mean()), ("min", cc.min()), ("median", float(np.median(cc))),
                              ("max", cc.max())):
                figs.append(Figure(sect_rtl, f"colour clocks per frame, {stat} over {cc.size} frames", g.game,
                                   float(val), "colour clocks", RTL, "RTL console (nc2600 rtl-play colour_clocks.npy)",
                                   g.colour_clocks_command))
        if g.pp_latencies is None:
            figs.append(Figure(sect_rtl, "preprocessor latency", g.game, None, "cycles", MISSING,
                               g.pp_missing or "not measured"))
            pp = None
        else:
            lat = np.asarray(g.pp_latencies)
            pp = int(lat.max())
            figs.append(Figure(sect_rtl, f"preprocessor latency (max over {lat.size} observations)", g.game, pp,
                               "cycles", RTL, f"hw/preprocessor.py in Verilator on the game's ALE frames ({g.screen}); "
                               "last visible pixel to obs_valid",
                               f"nc2600 report --game {g.game} --frames {inp.frames} --seed {inp.seed}"))
        total, engine, model_fn, model_args = _inference_model(inp, g.n_actions)
        model_arg = model_argmax_latency(g.n_actions)
        forward = total - model_arg
        figs.append(Figure(sect_rtl, f"policy inference ({g.n_actions} actions, {engine})", g.game, total,
                           "cycles", MODEL, f"{model_fn} (includes the model's argmax latency of {model_arg})",
                           f"python -c \"from {model_fn.rsplit('.', 1)[0]} import inference_cycles as c; "
                           f"print(c({model_args}))\""))
        emu_fps = clock_hz / ccpf
        figs.append(Figure(sect_inst, f"frames/s, emulation only, at {inp.clock_mhz:g} MHz", g.game, emu_fps,
                           "frames/s",
                           DERIVED if ccpf_kind == RTL else MODEL,
                           f"clock {inp.clock_mhz:g} MHz / {ccpf:,.1f} colour clocks per frame ({ccpf_src})",
                           f"nc2600 report --game {g.game} --clock-mhz {cli_number(inp.clock_mhz)}"))
        if pnr is not None:
            figs.append(Figure(sect_inst, f"frames/s at the console's ECP5-85 Fmax, {pnr['fmax_mhz']:g} MHz "
                               "(proxy device, not the Zynq-7045; emulation only)", g.game,
                               pnr["fmax_mhz"] * 1e6 / ccpf, "frames/s", DERIVED if ccpf_kind == RTL else MODEL,
                               f"Fmax {pnr['fmax_mhz']:g} MHz measured by place and route on {pnr['device']} (a "
                               f"proxy device, not the Zynq-7045) / {ccpf:,.1f} colour clocks per frame", pnr_cmd))
        if pnr3 is not None:
            fps3 = pnr3["fmax_mhz"] * 1e6 * 3 / ccpf
            figs.append(Figure(sect_inst, f"frames/s at the three-colour-clock console's ECP5-85 Fmax, "
                               f"{pnr3['fmax_mhz']:g} MHz (proxy device, not the Zynq-7045; emulation only)",
                               g.game, fps3, "frames/s", DERIVED if ccpf_kind == RTL else MODEL,
                               f"Fmax {pnr3['fmax_mhz']:g} MHz measured by place and route on {pnr3['device']} (a "
                               f"proxy device, not the Zynq-7045) / ({ccpf:,.1f} colour clocks per frame / 3 "
                               "colour clocks per clock)", pnr3_cmd))
            if pnr is not None:
                figs.append(Figure(sect_inst,
                                   "three vs one colour clock per clock, frames/s at each one's ECP5-85 Fmax",
                                   g.game, pnr3["fmax_mhz"] * 3 / pnr["fmax_mhz"], "x",
                                   DERIVED if ccpf_kind == RTL else MODEL,
                                   f"3 x {pnr3['fmax_mhz']:g} MHz / {pnr['fmax_mhz']:g} MHz (emulation only; the same "
                                   "frames, a third of the clocks each)", f"{pnr_cmd}; {pnr3_cmd}"))
        # frames/s per instance, per device and for the published fabric's instances at each proxy's Fmax
        kind = DERIVED if ccpf_kind == RTL else MODEL
        at = [(pnr, 1, "console", "ECP5-85", "an ECP5-85 (a proxy device, not the Zynq-7045)", pnr_cmd),
              (pnr3, 3, "three-colour-clock console", "ECP5-85", "an ECP5-85 (a proxy device, not the Zynq-7045)",
               pnr3_cmd)]
        at += [(nexus.get(b), k, w, "LIFCL-40-9", "a LIFCL-40-9 (28 nm; a proxy, not the XC7Z045)",
                f"nc2600 synth --block {b} --pnr nexus")
               for b, k, w in (("console_cc1", 1, "console"), ("console_cc3", 3, "three-colour-clock console"))]
        for r, ccpc, what, dev, dev_words, cmd in at:
            if r is None:
                continue
            fps = r["fmax_mhz"] * 1e6 * ccpc / ccpf
            basis = (f"Fmax {r['fmax_mhz']:g} MHz measured by place and route on {dev_words} / "
                     + (f"{ccpf:,.1f} colour clocks per frame" if ccpc == 1 else
                        f"({ccpf:,.1f} colour clocks per frame / {ccpc} colour clocks per clock)"))
            if dev != "ECP5-85":      # the ECP5 per-instance figures are above, under their own names
                figs.append(Figure(sect_inst, f"frames/s per instance at the {what}'s {dev} Fmax, "
                                   f"{r['fmax_mhz']:g} MHz (emulation only)", g.game, fps, "frames/s", kind, basis,
                                   cmd))
            figs.append(Figure(sect_inst, f"frames/s per device ({INSTANCES_PER_DEVICE} instances) at the {what}'s "
                               f"{dev} Fmax, {r['fmax_mhz']:g} MHz (emulation only)", g.game,
                               INSTANCES_PER_DEVICE * fps, "frames/s", kind,
                               f"{INSTANCES_PER_DEVICE} instances per node (one device) x {basis}", cmd))
            figs.append(Figure(sect_fab, f"fabric ceiling at the {what}'s {dev} Fmax, {r['fmax_mhz']:g} MHz "
                               f"({FABRIC_INSTANCES} instances emulating)", g.game, FABRIC_INSTANCES * fps,
                               "frames/s", kind, f"{FABRIC_INSTANCES} instances (published fabric) x {basis}", cmd))
        m = g.instance
        if m is None:
            figs.append(Figure(sect_inst, "fabric instance cycles by phase (Verilated RTL)", g.game, None, "cycles",
                               MISSING, g.instance_missing or "not measured"))
        else:
            src = ("measured: Verilator RTL of the fabric instance (hw/instance.py, "
                   + (f"array engine {m['array']}" if "array" in m else f"{m['lanes']} lanes") + "), one "
                   f"episode of {m['frames']} frames, {m['decisions']} decisions (episode seed {m['episode_seed']})")
            for key, name, unit in INSTANCE_PHASES:
                figs.append(Figure(sect_inst, f"fabric instance: {name}", g.game, m[key], unit, RTL, src,
                                   g.instance_command))
        if m is not None:
            cyc = instance_decision_cycles(m, inp.frame_skip)
            row["cycles"] = cyc
            for mode in ("serial", "pipelined"):
                what = ("as the instance RTL runs: the console waits for each decision" if mode == "serial" else
                        "the decision path overlapped with the next frames (projection from the measured phases)")
                figs.append(Figure(sect_inst, f"frames/s, {mode} decisions (frame skip {inp.frame_skip})", g.game,
                                   inp.frame_skip * clock_hz / cyc[mode], "frames/s", DERIVED,
                                   f"{inp.frame_skip} x clock / ({cyc[mode]:,.0f} cycles per decision measured on "
                                   f"the Verilated fabric instance: emulation {cyc['emulation']:,.0f} + host rules "
                                   f"{cyc['host_rules']:,.0f} + {_stall_words(mode, cyc)}"
                                   f"preprocessor {cyc['preprocessing']:,.0f} + inference "
                                   f"{cyc['forward']:,.0f} + action select {cyc['action_select']:,.0f}; {what})",
                                   g.instance_command))
        elif pp is None or inp.action_select_latency is None:
            figs.append(Figure(sect_inst, "frames/s with preprocessing and inference", g.game, None, "frames/s",
                               MISSING, "a block timing above is missing"))
        else:
            cyc = decision_cycles(ccpf, pp, forward, int(inp.action_select_latency), inp.frame_skip)
            row["cycles"] = cyc
            for mode in ("serial", "pipelined"):
                figs.append(Figure(sect_inst, f"frames/s, {mode} decisions (frame skip {inp.frame_skip})", g.game,
                                   inp.frame_skip * clock_hz / cyc[mode], "frames/s",
                                   MODEL if row["nominal_frame"] else DERIVED,
                                   f"{inp.frame_skip} x clock / ({cyc[mode]:,.0f} cycles per decision: emulation "
                                   f"{cyc['emulation']:,.0f} + {_stall_words(mode, cyc)}"
                                   f"preprocessing {pp} + forward {forward:,} + action select {cyc['action_select']}"
                                   + (", overlapped with the next frames" if mode == "pipelined" else "")
                                   + ")", f"nc2600 report --game {g.game} --clock-mhz {cli_number(inp.clock_mhz)}"))
        if inp.clock_mhz == PUBLISHED_CLOCK_MHZ:
            figs.append(Figure(sect_inst, "published frames/s per instance at 150 MHz", g.game,
                               PUBLISHED_INSTANCE_FPS, "frames/s", PUBLISHED, PUBLISHED_SOURCE))
        cases = inp.mesh.get(g.game)
        if not cases:
            figs.append(Figure(sect_fab, "projected fabric frames/s (mesh_sim)", g.game, None, "frames/s", MISSING,
                               "mesh_sim projection not run"))
            cases = {}
        row["mesh"] = {}
        for case, mesh in cases.items():
            row["mesh"][case] = {"projected_fps": mesh["projected_fps"], "ceiling_fps": mesh["ceiling_fps"],
                                 "time_fractions": mesh["time_fractions"], "gap_fps": mesh["gap_fps"],
                                 "instances": mesh["topology"]["instances"]}
            inst, o = mesh["instance"], mesh["options"]
            ccpc = inst.get("colour_clocks", 1)
            cmd = (f"nc2600 mesh --clock-mhz {cli_number(inp.clock_mhz)} --n-actions {g.n_actions} "
                   + (f"--engine lane --lanes {inp.lanes} " if inp.array is None
                      else f"--array {inp.array[0]}x{inp.array[1]} ")
                   + ("" if ccpc == 1 else f"--colour-clocks {ccpc} ")
                   + 
                   f"--generations {o['generations']} --episode-steps {o['episode_steps']} "
                   f"--elite-episodes {o['elite_episodes']}" + ("" if row["nominal_frame"] and m is None else
                                         f" --colour-clocks-per-frame {inst['colour_clocks_per_frame']}")
                   + ("" if o.get("inference_cycles") is None else
                      f" --inference-cycles {o['inference_cycles']} --timing-source '{o.get('timing_source')}'"))
            src = (f"mesh_sim, {case} regime: {mesh['topology']['instances']} instances, {o['generations']} GA "
                   f"generations of population {o['population']}, episodes {o['episode_steps']} steps, "
                   f"{o['elite_episodes']} elite episodes, {mesh['schedule']} schedule; "
                   f"{inst['colour_clocks_per_frame']} colour clocks/frame ({inst['colour_clocks_source']})"
                   + ("" if ccpc == 1 else f" at {ccpc} colour clocks per clock (the three-colour-clock console; "
                      "the decision path in clocks as measured for the one-colour-clock instance)")
                   + (f"; {inst['inference_cycles']} decision-path cycles ({inst['inference_source']})"
                      if "inference_cycles" in inst else ""))
            figs.append(Figure(sect_fab, f"projected fabric frames/s, {case}", g.game, mesh["projected_fps"],
                               "frames/s", MODEL, src, cmd, basis=SUSTAINED))
            if case == next(iter(cases)):
                figs.append(Figure(sect_fab, "fabric ceiling (all instances emulating)", g.game, mesh["ceiling_fps"],
                                   "frames/s", MODEL, "instances x clock / colour clocks per frame (mesh_sim)", cmd))
            for part, frac in mesh["time_fractions"].items():
                figs.append(Figure(sect_fab, f"{case}: instance time in {part.replace('_', ' ')}", g.game,
                                   100.0 * frac, "%", MODEL, "mesh_sim time_fractions (sum 100 %)", cmd))
    figs.append(Figure(sect_fab, "published training throughput", None, PUBLISHED_FABRIC_FPS, "frames/s",
                       PUBLISHED, PUBLISHED_SOURCE, basis=SUSTAINED))
    figs.append(Figure(sect_fab, "published ceiling (832 x 2514 at 150 MHz)", None, PUBLISHED_CEILING_FPS, "frames/s",
                       PUBLISHED, PUBLISHED_SOURCE, basis=CEILING))
    figs += like_for_like(inp, nexus.get("console_cc3"))
    for f in figs:
        if f.unit == "frames/s" and not f.basis:     # every other frames/s figure: emulation and decisions only
            f.basis = CEILING
        assert f.kind in KINDS, f
        assert f.unit != "x" or not f.basis or (len(f.operands) == 2 and {o.basis for o in f.operands} == {f.basis}), f
        assert (f.value is None) == (f.kind == MISSING), f
    return {"figures": figs, "per_game": per_game}
