"""The measurements of the throughput report (:mod:`nc2600.host.report.throughput`): the RTL blocks in
simulation (action select, the console, the preprocessor, the fabric instance) and the fabric
projection (:mod:`mesh_sim`), gathered into :class:`nc2600.host.report.throughput.Inputs` by :func:`gather`.
Something that cannot be measured here is recorded as missing with the reason.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_LANES, DEFAULT_ROWS, check_engine
from nc2600.hls_models.platform import FRAME_SKIP
from nc2600.host.report.throughput import ACTION_SELECT_LANES, NEXUS_SEEDS, GameInputs, Inputs


def measure_action_select_latency(n: int = ACTION_SELECT_LANES, width: int = 32) -> int:
    """Rising edges from the action-values beat (``action_values.valid``) to ``chosen.valid`` of
    :class:`nc2600.hw.action_select.ActionSelect`
    (Amaranth simulator); also checks the index against numpy's argmax. Raises ``RuntimeError``."""
    from amaranth.sim import Simulator

    from nc2600.hw.action_select import ActionSelect
    dut = ActionSelect(n, width)
    values = [(-1) ** i * (i * 37 % 11) for i in range(n)]
    want = int(np.argmax(values))
    result: dict = {}

    async def bench(ctx):
        for i, v in enumerate(values):
            ctx.set(dut.action_values.payload.values[i], v)
        ctx.set(dut.action_values.payload.count, n)
        ctx.set(dut.action_values.valid, 1)
        await ctx.tick()
        ctx.set(dut.action_values.valid, 0)
        for edges in range(1, 64):
            if ctx.get(dut.chosen.valid):
                result["latency"], result["index"] = edges, ctx.get(dut.chosen.index)
                return
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    if "latency" not in result:
        raise RuntimeError("action select: chosen.valid never rose")
    if result["index"] != want:
        raise RuntimeError(f"action select chose {result['index']}, numpy argmax {want}")
    return int(result["latency"])


def rtl_play_available() -> bool:
    """True when the RTL console's player (:mod:`nc2600.host.drivers.rtl_play`, ``nc2600 rtl-play``) is installed."""
    import importlib.util
    return importlib.util.find_spec("nc2600.host.drivers.rtl_play") is not None


def random_actions(minimal_actions, frames: int, frame_skip: int, seed: int) -> np.ndarray:
    """``(frames,)`` int ALE action ids: uniform over the minimal set, each held ``frame_skip`` frames."""
    rng = np.random.default_rng(seed)
    steps = -(-frames // frame_skip)
    picks = np.asarray(minimal_actions, dtype=np.int64)[rng.integers(len(minimal_actions), size=steps)]
    return np.repeat(picks, frame_skip)[:frames]


def measure_colour_clocks(game: str, actions: np.ndarray, work: Path) -> tuple[np.ndarray | None, str, str]:
    """Colour clocks per frame of the RTL console as ``nc2600 rtl-play`` measures them
    (:func:`nc2600.host.drivers.rtl_play.rtl_play`, its files left in ``work/rtl_play_GAME/``).

    Returns ``(colour_clocks or None, reason when None, reproducing command)``.
    """
    work.mkdir(parents=True, exist_ok=True)
    apath = work / f"actions_{game}.npy"
    np.save(apath, actions)
    out = work / f"rtl_play_{game}"
    cmd = f"nc2600 rtl-play --game {game} --actions {apath} --out {out}"
    if not rtl_play_available():
        return None, "console RTL not built yet (no `nc2600 rtl-play`)", cmd
    import contextlib
    import sys

    from nc2600.host.drivers.rtl_play import rtl_play
    from nc2600.host.errors import guarded
    with contextlib.redirect_stdout(sys.stderr):     # its progress goes with ours, stdout stays the summary
        # under the guard every command runs under: its one-line error, and its exit code here
        rc = guarded(lambda: print(rtl_play(game, str(apath), str(out))))
    if rc == 130:
        # the guard turned the Ctrl-C or SIGTERM into its exit code: the report stops too
        # (exit 130, no report written as if complete)
        raise KeyboardInterrupt("rtl-play interrupted")
    path = out / "colour_clocks.npy"
    if rc != 0 or not path.exists():
        return None, f"`{cmd}` failed (exit {rc})", cmd
    cc = np.load(path)
    if cc.ndim != 1 or cc.size == 0:
        return None, f"{path}: expected a (frames,) array, got shape {cc.shape}", cmd
    return cc.astype(np.int64), "", cmd


def measure_preprocessor_latency(game: str, frames: int, seed: int, frame_skip: int = FRAME_SKIP) -> tuple[list | None,
                                                                                                           str, str]:
    """Preprocessor RTL latency on the game's own ALE frames: one observation per decision.

    Returns ``(latencies or None, reason when None, screen description)``.
    """
    from nc2600.host.verify.ale_recordings import record_screens
    screens, _, fmt = record_screens(game, frames, seed=seed)
    desc = f"{fmt}, {screens.shape[1]} rows"
    try:
        from nc2600.hwtools.preprocessor_harness import PreprocessorSim
        rtl = PreprocessorSim(height=screens.shape[1], fmt=fmt)
    except ValueError as exc:
        return None, f"preprocessor RTL does not support this screen ({desc}): {exc}", desc
    try:
        lats = []
        for t, screen in enumerate(screens):
            push = t % frame_skip == frame_skip - 1
            lat = rtl.feed_frame(screen, push=push)
            if push:
                if lat is None:
                    return None, f"obs_valid did not rise after frame {t}", desc
                lats.append(lat)
    finally:
        rtl.close()
    return lats, "", desc


INSTANCE_LANES = DEFAULT_LANES     #: the MAC lanes of the lane-engine instance build
INSTANCE_NETWORK_SEED = 1   #: the measured network: init_params(1, A), quantised as instance-play does


def measure_instance_cycles(game: str, frames: int, seed: int, frame_skip: int = FRAME_SKIP,
                            array: tuple[int, int] | None = None) -> tuple[dict | None, str, str]:
    """Cycles by phase of one episode (cap ``frames``, episode seed ``seed``) on the Verilated
    fabric instance (:class:`nc2600.host.drivers.instance.InstanceEpisodeRunner`, start state replayed), with the
    network ``init_params(1, A)`` quantised on 32 random-play observations (run seed 0), as
    ``nc2600 instance-play --params P.npy --episode-frames frames --seed seed`` does.

    Returns ``(measurement or None, reason when None, reproducing command)``; the measurement has
    ``frames``, ``decisions``, ``episode_seed``, ``lanes``, the per-frame emulation and host-rules
    cycles, the per-decision preprocessor, inference and action-select cycles, the controller's
    cycles per episode, ``param_load`` and ``reset_replay`` (cycles, ``float``/``int``).
    """
    cmd = (f"nc2600 instance-play --game {game} --params P.npy --episode-frames {frames} --seed {seed} --json "
           + ("--engine lane " if array is None else f"--array {array[0]}x{array[1]} ") + "--colour-clocks 1 "
           + f"(P = nc2600.host.episodes.policy.init_params({INSTANCE_NETWORK_SEED}, A))")
    from nc2600.hls_models.cartridge import detect_mapper
    from nc2600.hls_models.policy_int8 import quantize
    from nc2600.host.drivers.instance import InstanceDriver, InstanceEpisodeRunner, InstanceError
    from nc2600.host.games import game_info, resolve_rom
    from nc2600.host.episodes.policy import init_params
    from nc2600.host.episodes.calibration import calibration_observations
    from nc2600.hls_models.cartridge import SUPPORTED_MAPPERS as SUPPORTED
    name, path = resolve_rom(game=game)
    mapper = detect_mapper(open(path, "rb").read())
    if mapper not in SUPPORTED:
        return None, f"mapper {mapper} is not implemented by the console RTL", cmd
    info = game_info(name, path)
    n = len(info.minimal_actions)
    qp = quantize(init_params(INSTANCE_NETWORK_SEED, n), n, calibration_observations(path, frame_skip, frames, 0, 32))
    try:
        from nc2600.hwtools.instance_harness import InstanceSim
        # one colour clock per cycle whatever the instance's default: the report reads the emulation
        # cycles per frame as colour clocks per frame (and projects the three-colour-clock case from them)
        engine = {"colour_clocks": 1, **({"engine": "lane"} if array is None
                                                   else {"engine": "array", "rows": array[0], "cols": array[1]})}
        runner = InstanceEpisodeRunner(InstanceDriver(InstanceSim(info.screen_height, info.display, **engine)), name,
                                       path,
                                     frame_skip, frames, restore=False, hide=False)
        ep = runner.run(seed, qp)
    except (InstanceError, RuntimeError, ValueError) as exc:
        return None, f"fabric instance: {type(exc).__name__}: {exc}", cmd
    if ep.decisions == 0 or ep.frames == 0:
        return None, f"fabric instance: the episode took {ep.frames} frames and {ep.decisions} decisions", cmd
    stall = None
    if array is not None:
        # the same episode on the default instance (three colour clocks per clock) with the decision
        # hidden behind the console (EP_CFG.hide): the clocks it waited per decision
        try:
            hidden = InstanceEpisodeRunner(InstanceDriver(InstanceSim(info.screen_height, info.display, colour_clocks=3,
                                                                      engine="array", rows=array[0], cols=array[1])),
                                           name, path, frame_skip, frames, restore=False, hide=True)
            eh = hidden.run(seed, qp)
            stall = eh.cycles["stall"] / max(eh.decisions, 1)
        except (InstanceError, RuntimeError, ValueError) as exc:
            return None, f"fabric instance (three colour clocks, hidden decision): {type(exc).__name__}: {exc}", cmd
    c = ep.cycles
    return {"frames": ep.frames, "decisions": ep.decisions, "episode_seed": seed, "lanes": INSTANCE_LANES,
            **({} if array is None else {"array": f"{array[0]} x {array[1]}"}),
            "emulation_per_frame": c["emulation"] / ep.frames, "host_rules_per_frame": c["host_rules"] / ep.frames,
            "preprocessor_per_decision": c["preprocessor"] / ep.decisions,
            "inference_per_decision": c["inference"] / ep.decisions,
            "action_select_per_decision": c["action_select"] / ep.decisions,
            "controller_per_episode": c["controller"], "param_load": ep.load_cycles,
            "reset_replay": ep.reset_cycles,
            **({} if stall is None else {"stall_per_decision": stall})}, "", cmd


def instance_mesh_timing(m: dict, frame_skip: int = FRAME_SKIP, colour_clocks: int = 1) -> dict:
    """mesh_sim options from the instance's measured phases: ``colour_clocks_per_frame`` = the
    emulation + host-rules cycles per frame (rounded), ``inference_cycles`` = the decision path
    (preprocessor + inference + action select per decision, rounded), or where the instance hides
    the decision behind the console (``stall_per_decision`` measured) the cycles it stalled the
    console per decision (measured with three colour clocks per clock: used for ``colour_clocks``
    3 only), with their label."""
    wait = m.get("stall_per_decision") if colour_clocks == 3 else None
    if wait is None:
        wait = m["preprocessor_per_decision"] + m["inference_per_decision"] + m["action_select_per_decision"]
    return {"colour_clocks_per_frame": int(round(m["emulation_per_frame"] + m["host_rules_per_frame"])),
            "inference_cycles": int(round(wait)), "timing_source": "measured on the Verilated fabric instance"}


def mesh_cases(generations: int = 2) -> dict:
    """The mesh_sim regimes the report projects: mesh_sim's own calibration cases
    (:func:`nc2600.mesh_sim.project.calibration_cases`): ``headline`` (every episode at the 20,000-frame
    cap, no elite phase: the regime of the published 1.2 M frames/s) and ``sustained`` (default
    episode mix with the elite phase: the published 0.56-0.67 M frames/s training runs)."""
    from nc2600.mesh_sim.project import calibration_cases
    cases = calibration_cases(generations)
    return {"headline": cases[0][1], "sustained": cases[2][1]}


def gather(games: list[str], clock_mhz: float = 150.0, lanes: int = DEFAULT_LANES, frames: int = 400, seed: int = 0,
           frame_skip: int = FRAME_SKIP, work: Path | None = None, progress=print, instance: bool = True,
           array: tuple[int, int] | None = None, engine: str = DEFAULT_ENGINE) -> Inputs:
    """Measure everything :func:`compute` needs (RTL runs, models, mesh_sim). ``progress(str)`` reports
    steps; ``instance`` False leaves out the fabric instance's episode (reported missing).

    The engine is the instance's default (:data:`nc2600.hls_models.engines.DEFAULT_ENGINE`, the array
    engine) unless ``engine`` says ``"lane"``: with the array engine the instance and the inference
    model are the ``array`` ``(rows, cols)`` engine's (default 16 x 16); with the lane engine,
    ``lanes``' (the instance harness is built with :data:`nc2600.hls_models.engines.DEFAULT_LANES`).

    Raises:
        ValueError: ``engine`` not one of :data:`nc2600.hls_models.engines.ENGINES`, or ``array`` with the
            lane engine.
        nc2600.host.errors.UserError: an unknown game.
    """
    from nc2600.host.games import game_info, resolve_rom
    from dataclasses import replace

    from nc2600.mesh_sim.project import simulate
    if check_engine(engine) == "lane":
        if array is not None:
            raise ValueError("array applies to the array engine, not engine='lane'")
    else:
        array = (DEFAULT_ROWS, DEFAULT_COLS) if array is None else (int(array[0]), int(array[1]))
    work = Path(work) if work else Path(".")
    infos = []
    for g in games:
        name, rom = resolve_rom(game=g)          # UserError on an unknown game
        infos.append(game_info(name, rom))
    steps = 1 + (4 if instance else 3) * len(infos)
    k = 0

    def step(msg):
        nonlocal k
        k += 1
        progress(f"[{k}/{steps}] {msg}")

    inp = Inputs(games=[], clock_mhz=clock_mhz, lanes=lanes, frame_skip=frame_skip, frames=frames, seed=seed,
                 array=array)
    try:   # the console's place-and-route result, if one was made for exactly this Verilog (never runs P&R)
        from nc2600.hw.console import generate as console_verilog
        from nc2600.hwtools.ecp5_pnr import cached_pnr
        consoles = console_verilog()
        inp.console_pnr = cached_pnr("console_cc1", consoles["console_cc1.v"])
        inp.console3_pnr = cached_pnr("console_cc3", consoles["console_cc3.v"])
    except Exception as exc:
        inp.console_pnr_missing = inp.console3_pnr_missing = f"{type(exc).__name__}: {exc}"
    try:   # the same on the LIFCL-40 (nc2600.hwtools.nexus), every placer seed of NEXUS_SEEDS found in the cache:
        # those routed with router2's timing-driven rip-up (--pnr-tmg-ripup) if there are any, else the others
        from nc2600.hwtools import nexus
        for block, found in (("console_cc1", inp.console_nexus), ("console_cc3", inp.console3_nexus)):
            found += nexus.cached_seeds(block, consoles[f"{block}.v"], NEXUS_SEEDS)
    except Exception as exc:
        inp.nexus_missing = f"{type(exc).__name__}: {exc}"
    inp.published_mesh = simulate(mesh_cases()["headline"])   # the published configuration, as --calibrate runs it
    # console_cc3's seed-1 (else first) LIFCL-40 result: the like-for-like comparison's clock
    cc3 = min(inp.console3_nexus, key=lambda x: x["seed"] != 1) if inp.console3_nexus else None
    step("action select: latency on the RTL (Amaranth simulator)")
    try:
        inp.action_select_latency = measure_action_select_latency()
    except Exception as exc:   # reported as missing, with the reason
        inp.action_select_missing = f"{type(exc).__name__}: {exc}"
    for info in infos:
        gi = GameInputs(game=info.name, n_actions=len(info.minimal_actions))
        step(f"{info.name}: colour clocks per frame on the RTL console ({frames} frames)")
        acts = random_actions(info.minimal_actions, frames, frame_skip, seed)
        cc, why, cmd = measure_colour_clocks(info.name, acts, work / "inputs")
        gi.colour_clocks, gi.colour_clocks_missing, gi.colour_clocks_command = cc, why, cmd
        if cc is None:
            progress(f"      missing: {why}")
        step(f"{info.name}: preprocessor latency on the RTL ({frames} ALE frames)")
        gi.pp_latencies, gi.pp_missing, gi.screen = measure_preprocessor_latency(info.name, frames, seed, frame_skip)
        if gi.pp_latencies is None:
            progress(f"      missing: {gi.pp_missing}")
        if not instance:
            gi.instance_missing = "not run (nc2600 report --no-instance)"
        elif lanes != INSTANCE_LANES and array is None:
            gi.instance_missing = f"the instance harness is built with {INSTANCE_LANES} lanes, not {lanes}"
        else:
            step(f"{info.name}: cycles by phase on the fabric instance RTL (Verilator, {frames} frames)")
            gi.instance, gi.instance_missing, gi.instance_command = measure_instance_cycles(
                info.name, frames, seed, frame_skip, array)
            if gi.instance is None:
                progress(f"      missing: {gi.instance_missing}")
        step(f"{info.name}: fabric projection (mesh_sim: {', '.join(mesh_cases())})")
        timing = {ccpc: {"colour_clocks_per_frame": None if cc is None else int(round(float(np.mean(cc))))}
                  for ccpc in (1, 3)}
        if gi.instance is not None:
            timing = {ccpc: instance_mesh_timing(gi.instance, frame_skip, ccpc) for ccpc in (1, 3)}
        inp.mesh[info.name] = {       # without the instance's figure, the engine's model for the decision path
            ("" if ccpc == 1 else "3 colour clocks per clock, ") + case: simulate(replace(
                opts, clock_mhz=clock_mhz, lanes=lanes, array=array, n_actions=gi.n_actions, frame_skip=frame_skip,
                colour_clocks=ccpc, **timing[ccpc]))
            for ccpc in (1, 3) for case, opts in mesh_cases().items()}
        if gi.instance is not None and cc3 is not None:
            inp.lfl_mesh[info.name] = simulate(replace(
                mesh_cases()["headline"], clock_mhz=float(cc3["fmax_mhz"]), array=array, n_actions=gi.n_actions,
                frame_skip=frame_skip, colour_clocks=3, inference="serial", **timing[3]))
        inp.games.append(gi)
    return inp
