"""``nc2600 instance-play``: play episodes of one individual on the fabric instance RTL.

The Verilated instance (:mod:`nc2600.hw.instance`) runs each episode itself (no-op start, FIRE, frame
skip, preprocessor, action select) behind its AXI4-Lite interface; the host driver
(:mod:`nc2600.host.drivers.instance`) loads the game and the int8 parameters, replays ALE's reset sequence and
answers the per-frame rules. The episode start state is replayed for the first episode and
restored from the harness's model snapshot for the others (``--replay-reset``: replay it every
episode, as a board does). ``--ale`` plays the same episodes on ALE with the same int8 network
and compares (return, frames, CPU seconds). The parameters (a float vector, e.g. a
run's ``best_params.npy``) are quantised to int8 exactly as ``nc2600 run --policy int8`` does
(shifts from 32 random-play observations, run seed ``--calib-seed``). Prints one line per
episode and the cycles per decision by phase. ``--fst PATH`` records a waveform of every signal
of the instance over ``--fst-cycles`` clocks of the first episode, from ``--fst-after`` clocks
past its start command (the simulation is then built with Verilator ``--trace-fst``, once; the
file appears under its name only when complete, ``PATH.partial`` until then).
The instance has the array engine (:mod:`nc2600.hw.policy_array`, ``--array RxC``, by default the shape of
:mod:`nc2600.hls_models.engines`, 16x16) unless ``--engine lane`` (that module's 16-lane engine,
:mod:`nc2600.hw.policy_engine`), with the three-colour-clock console
(one CPU cycle per clock) unless ``--colour-clocks 1``.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_LANES, DEFAULT_ROWS
from nc2600.host.cli_types import ascii_int


from nc2600.host.errors import UserError
def run(args) -> int:
    import numpy as np

    from nc2600.hls_models.cartridge import detect_mapper
    from nc2600.hls_models.policy_int8 import quantize
    from nc2600.host.drivers.instance import InstanceDriver, InstanceEpisodeRunner, InstanceError
    from nc2600.host.games import game_info, resolve_rom
    from nc2600.host.episodes.policy import n_params
    from nc2600.host.episodes.calibration import calibration_observations
    from nc2600.hls_models.cartridge import SUPPORTED_MAPPERS as SUPPORTED

    if args.fst is None:
        for option, value in (("--fst-cycles", args.fst_cycles), ("--fst-after", args.fst_after)):
            if value is not None:
                raise UserError(f"{option} applies to the waveform only; give --fst PATH with it")
    args.fst_cycles = 500_000 if args.fst_cycles is None else args.fst_cycles
    args.fst_after = 0 if args.fst_after is None else args.fst_after
    name, path = resolve_rom(game=args.game)
    mapper = detect_mapper(open(path, "rb").read())
    if mapper not in SUPPORTED:
        raise UserError(f"{name}: mapper {mapper} is not implemented by the console RTL yet")
    info = game_info(name, path)
    n_actions = len(info.minimal_actions)
    if not Path(args.params).is_file():
        raise UserError(f"--params: {args.params} is not a readable .npy file")
    try:
        flat = np.load(args.params, allow_pickle=False)
    except OSError as exc:
        raise UserError(f"--params: cannot read {args.params}: {exc.strerror or exc}") from None
    except (ValueError, EOFError):  # not .npy (numpy would suggest allow_pickle), damaged, or empty
        raise UserError(f"--params: {args.params} is not a .npy array file (e.g. a run's best_params.npy)") from None
    if flat.ndim != 1 or flat.shape[0] != n_params(n_actions) or not np.issubdtype(flat.dtype, np.floating):
        raise UserError(f"--params: expected a 1-D float vector of {n_params(n_actions)} parameters for {name} "
                        f"({n_actions} actions), got {flat.dtype} {flat.shape}")
    from nc2600.host.launcher.play import check_finite
    with np.errstate(over="ignore"):           # beyond float32 becomes inf: refused below
        flat = check_finite(flat.astype(np.float32), f"--params {args.params}")
    if args.episodes <= 0 or args.episode_frames <= 0:
        raise UserError("--episodes and --episode-frames must be positive")
    rows, cols = _array_shape(args)
    qp = quantize(flat, n_actions,
                  calibration_observations(path, 4, args.episode_frames, args.calib_seed, 32))
    fst = partial = None
    if args.fst is not None:
        fst = Path(args.fst)
        if fst.is_dir() or not fst.parent.is_dir() or not os.access(fst.parent, os.W_OK):
            raise UserError(f"--fst: {args.fst} is not a writable file path")
        partial = fst.with_name(fst.name + ".partial")
    from nc2600.hwtools.instance_harness import InstanceSim
    sim = InstanceSim(info.screen_height, info.display, trace=fst is not None,
                      colour_clocks=args.colour_clocks, engine=args.engine, rows=rows, cols=cols)
    runner = InstanceEpisodeRunner(InstanceDriver(sim), name, path, 4, args.episode_frames,
                                 restore=not args.replay_reset)
    if fst is not None:
        runner.trace_next_episode(partial, args.fst_cycles, args.fst_after)
    import time
    ale = None
    if args.ale:
        from nc2600.host.episodes.env import AleEnv
        ale = AleEnv(path, 4, 0.0, args.episode_frames)
    differ = 0
    for e in range(args.episodes):
        seed = args.seed + e
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            ep = runner.run(seed, qp)
        except InstanceError as exc:
            raise UserError(f"{name}: {exc}") from None
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        per = {k: round(v / max(ep.decisions, 1), 1) for k, v in ep.cycles.items()}
        rec = {"game": name, "episode_seed": seed, "return": ep.episode_return, "frames": ep.frames,
               "decisions": ep.decisions, "game_over": ep.game_over, "cycles": ep.cycles,
               "cycles_per_decision": per, "reset_cycles": ep.reset_cycles, "load_cycles": ep.load_cycles,
               "start_state": "restored" if ep.restored else "replayed",
               "engine": args.engine,
               **({"engine_lanes": DEFAULT_LANES} if args.engine == "lane" else {"array": f"{rows}x{cols}"}),
               "colour_clocks": args.colour_clocks,
               "wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}
        if ale is not None:
            c0 = time.process_time()
            stack = np.zeros((4, 84, 84), np.uint8)
            frames, ret = ale.reset(seed, stack), 0.0
            while not ale.over:
                r, f, _ = ale.step(int(qp.act(stack[None])[0]), stack)
                ret, frames = ret + r, frames + f
            same = (ret, frames) == (ep.episode_return, ep.frames)
            differ += not same
            rec["ale"] = {"return": ret, "frames": frames, "cpu_s": round(time.process_time() - c0, 3), "equal": same}
        if args.json:
            print(json.dumps(rec))
        else:
            print(f"{name} seed {seed}: return {ep.episode_return:g}  frames {ep.frames}  decisions {ep.decisions}"
                  f"  {'game over' if ep.game_over else 'cap'}  "
                  + ("start state restored (snapshot)" if ep.restored else f"reset replay {ep.reset_cycles:,} cycles")
                  + f"  parameter load {ep.load_cycles:,} cycles  {wall:.1f} s")
            print("  cycles per decision: " + ", ".join(f"{k} {v:,.0f}" for k, v in per.items()))
            if ale is not None:
                a = rec["ale"]
                print(f"  ALE --policy int8: return {a['return']:g}  frames {a['frames']}  "
                      f"{'equal' if a['equal'] else 'DIFFERENT'}; CPU {cpu:.1f} s instance, {a['cpu_s']:.2f} s ALE")
    if fst is not None:
        sim.trace_stop()
        os.replace(partial, fst)
        print(f"waveform: {fst} (clocks {args.fst_after:,}..{args.fst_after + args.fst_cycles - 1:,} after the first "
              f"episode's start command, at most; FST, time unit half a clock)", file=sys.stderr)
    if differ:
        print(f"nc2600 instance-play: {differ} of {args.episodes} episodes differ from ALE --policy int8",
              file=sys.stderr)
        return 1
    return 0


def _array_shape(args) -> tuple[int, int]:
    """``--array RxC`` as ``(rows, cols)`` (parsed by :func:`nc2600.host.cli_types.array_shape`; the
    default :data:`nc2600.hls_models.engines.DEFAULT_ROWS` x ``DEFAULT_COLS`` when not given, also with
    ``--engine lane``, whose instance ignores it), checked with the instance's rule for the
    console configuration (:func:`nc2600.hwtools.instance_harness.check_config`: the engine's shape and
    the preprocessor's word stack).

    Raises:
        UserError: ``--array`` with ``--engine lane``, or a shape the instance does not take.
    """
    from nc2600.hwtools.instance_harness import check_config
    if args.engine == "lane":
        if args.array is not None:
            raise UserError("--array applies to the array engine, not --engine lane")
        return DEFAULT_ROWS, DEFAULT_COLS
    r, c = (DEFAULT_ROWS, DEFAULT_COLS) if args.array is None else args.array
    try:
        check_config(args.colour_clocks, "array", r, c)
    except ValueError as exc:
        raise UserError(f"--array: {exc}") from None
    return r, c


def register(subparsers, groups) -> None:
    from nc2600.hls_models.frame_skip import MAX_EPISODE_FRAMES
    from nc2600.host.cli_types import array_shape, int_range, non_negative_int, positive_int
    p = subparsers.add_parser("instance-play", help="play episodes of one individual on the fabric instance RTL",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, help="ALE ROM id")
    p.add_argument("--params", required=True, metavar="P.npy",
                   help="float parameter vector (e.g. a run's best_params.npy)")
    p.add_argument("--episodes", type=positive_int, default=1, metavar="N", help="episodes (default 1)")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="first episode seed (default 0)")
    p.add_argument("--episode-frames", type=int_range(35, MAX_EPISODE_FRAMES), default=2000, metavar="F",
                   help="episode cap, at most the instance's 24-bit EP_FRAMES and at least 35 frames as in nc2600 run "
                        "(up to 30 no-op frames and FIRE start an episode; "
                        "default 2000: the Verilated instance runs about 12 frames per CPU-second, so a capped "
                        "episode takes about 3 minutes)")
    p.add_argument("--calib-seed", type=non_negative_int, default=0, metavar="S",
                   help="run seed of the int8 calibration observations (default 0, as nc2600 run --seed 0)")
    p.add_argument("--replay-reset", action="store_true",
                   help="replay ALE's reset sequence before every episode (default: replay once, then restore "
                        "the simulator's snapshot of the start state)")
    p.add_argument("--ale", action="store_true",
                   help="also play each episode on ALE with the same int8 network (nc2600 run --backend ale --policy "
                        "int8): return, frames and CPU seconds beside the instance's; exit 1 when one differs")
    p.add_argument("--json", action="store_true", help="one JSON record per episode")
    p.add_argument("--engine", choices=("array", "lane"), default=DEFAULT_ENGINE,
                   help=f"the instance's inference engine (default {DEFAULT_ENGINE}): the array engine or the "
                        f"{DEFAULT_LANES}-lane engine")
    p.add_argument("--array", type=array_shape, metavar="RxC", default=None,
                   help=f"rows x columns of the array engine (default {DEFAULT_ROWS}x{DEFAULT_COLS}; not with --engine "
                        "lane)")
    p.add_argument("--colour-clocks", type=ascii_int, choices=(1, 3), default=3,
                   help="colour clocks per fabric clock of the console (3 default: one CPU cycle per clock; 1: "
                        "one colour clock per clock)")
    p.add_argument("--fst", metavar="PATH", help="record an FST waveform of the first episode (every signal of the "
                   "instance; builds the traced simulation once)")
    p.add_argument("--fst-cycles", type=int_range(1, 100_000_000), default=None, metavar="N",
                   help="clocks in the waveform (default 500,000: about 8 frames of emulation)")
    p.add_argument("--fst-after", type=int_range(0, 10**10), default=None, metavar="C",
                   help="start the waveform C clocks after the episode's start command (default 0)")
    p.set_defaults(func=run)
