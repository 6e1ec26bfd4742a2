"""``nc2600 play --run DIR``: re-evaluate a saved agent and watch it (see :mod:`nc2600.host.launcher.play`)."""
from __future__ import annotations

import json
import os
import sys

from nc2600.hls_models.frame_skip import MAX_EPISODE_FRAMES
from nc2600.host.cli_types import float_range, int_range, probability, seed_int


from nc2600.host.errors import UserError
def register(sub, groups):
    p = sub.add_parser(
        "play", help="re-evaluate a run's elite (or a checkpointed individual) and write a video",
        description="Evaluate the saved elite of a run folder (or --individual N of its last checkpointed "
                    "population) for N episodes with a chosen seed and protocol, print the scores, and "
                    "write one episode as an MP4 (or GIF) at the console's real frame rate.")
    p.add_argument("--run", required=True, metavar="DIR", help="a run folder of `nc2600 run`")
    p.add_argument("--individual", type=int_range(0, 1_000_000), metavar="I", default=None,
                   help="population member of the last checkpoint (0 is the elite; default: the saved elite)")
    p.add_argument("--episodes", type=int_range(1, 100_000), metavar="N", default=10, help="episodes (default 10)")
    p.add_argument("--seed", type=seed_int, metavar="S", default=0,
                   help="seed of the episode seeds (no-op starts, sticky actions; default 0)")
    p.add_argument("--sticky", type=probability, metavar="P", default=None,
                   help="sticky-action probability (default: the run's)")
    p.add_argument("--episode-frames", type=int_range(35, MAX_EPISODE_FRAMES), metavar="E", default=None,
                   help="episode cap in emulated frames, at most the fabric's 24-bit limit (default: the run's)")
    p.add_argument("--policy", choices=("float", "int8"), default=None,
                   help="network arithmetic (default: the run's); the other one re-evaluates the agent under "
                        "float32 or the fabric's int8 (quantised as `run --policy int8` does)")
    p.add_argument("--workers", type=int_range(1, 1024), metavar="W", default=None,
                   help=f"worker processes (default: cores, {os.cpu_count()})")
    v = p.add_mutually_exclusive_group()
    v.add_argument("--video", metavar="FILE", default=None,
                   help="video of the first episode, .mp4 or .gif (default DIR/play-<who>-s<seed>.mp4)")
    v.add_argument("--no-video", action="store_true", help="scores only")
    p.add_argument("--scale", type=int_range(1, 8), metavar="K", default=None,
                   help="video pixels: K x taller, 2K x wider (default 2: 640 x 420)")
    p.add_argument("--video-seconds", type=float_range(0, 3600, lo_open=True), metavar="T", default=None,
                   help="longest video, seconds of console time (default 120)")
    p.add_argument("--json", action="store_true", help="one JSON object per line: the episodes, then the summary")
    p.set_defaults(func=main)


def main(args) -> int:
    import numpy as np

    from nc2600.host.launcher import play
    from nc2600.host.resources import require_memory
    from nc2600.host.rundir import check_output_file
    if args.run.strip() == "":
        raise UserError("--run is empty; give the run folder")
    if args.no_video:
        for option, value in (("--scale", args.scale), ("--video-seconds", args.video_seconds)):
            if value is not None:
                raise UserError(f"{option} applies to the video only; it cannot be given with --no-video")
    args.scale = 2 if args.scale is None else args.scale
    args.video_seconds = 120.0 if args.video_seconds is None else args.video_seconds
    agent = play.load_agent(args.run, args.individual)
    cfg = agent.cfg
    trained_policy = cfg.policy
    if args.policy is not None:
        cfg.policy = args.policy
    if args.sticky is not None:
        cfg.sticky = args.sticky
    if args.episode_frames is not None:
        if args.episode_frames <= 30 + cfg.frame_skip:
            raise UserError(f"--episode-frames must exceed the no-op start (up to 30 frames) plus one "
                            f"frame-skip period ({cfg.frame_skip})")
        cfg.episode_frames = args.episode_frames
    workers = args.workers or os.cpu_count() or 1
    workers = min(workers, args.episodes)
    k = max(1, min(6, -(-args.episodes // (2 * workers))))
    cfg.workers, cfg.envs_per_block = workers, k
    from nc2600.host.resources import require_processes
    require_processes(workers, f"--workers {workers}")
    require_memory(sum(cfg.memory_bytes().values()) - 4 * cfg.noise_table_size
                   - cfg.memory_bytes()["population parameters"], f"--workers {workers}")
    video = None
    if not args.no_video:
        who = "elite" if args.individual in (None, 0) else f"i{args.individual}"
        # the text as given: Path("") would be "." (a folder) and hide an empty --video
        if args.video is None:
            from nc2600.host.rundir import RunFolder
            owner = RunFolder(args.run).lock_owner()
            if owner is not None:       # never write into a folder a live run holds
                raise UserError(f"--run {args.run!r} is in use by a running nc2600 (pid {owner}); the default "
                                f"video goes into that folder: give --video FILE elsewhere, or --no-video")
        video = check_output_file(args.video if args.video is not None
                                  else os.path.join(args.run, f"play-{who}-s{args.seed}.mp4"), "--video")
        if video.suffix.lower() not in (".mp4", ".gif"):
            raise UserError(f"--video {str(video)!r}: give a .mp4 or .gif file name")
    seeds = play.episode_seeds(args.seed, args.episodes)
    head = (f"nc2600 play: {cfg.game}, {agent.label}, {args.episodes} episodes, seed {args.seed}, "
            f"frame skip {cfg.frame_skip}, sticky {cfg.sticky:g}, cap {cfg.episode_frames:,} frames, "
            f"policy {cfg.policy}")
    if not args.json:
        print(head, flush=True)

    waiting: dict[int, object] = {}        # finished out of order: printed once the earlier ones are
    shown = [0]

    def on_result(r) -> None:
        waiting[r.job.tag] = r
        while shown[0] in waiting:
            show(waiting.pop(shown[0]))
            shown[0] += 1

    def show(r) -> None:
        row = {"episode": r.job.tag, "seed": r.job.episode_seed, "return": r.episode_return,
               "frames": r.frames, "steps": r.steps, "actions_crc32": r.actions_crc32}
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(f"episode {r.job.tag:5d}  seed {r.job.episode_seed:10d}  return {r.episode_return:9.1f}  "
                  f"frames {r.frames:>8,d}", flush=True)

    results = play.evaluate(agent, seeds, workers, k, on_result)
    returns = np.array([r.episode_return for r in results])
    summary = {"game": cfg.game, "agent": agent.label, "episodes": args.episodes, "seed": args.seed,
               "sticky": cfg.sticky, "episode_frames": cfg.episode_frames, "policy": cfg.policy,
               "trained_policy": trained_policy,
               "mean": float(returns.mean()), "std": float(returns.std(ddof=1)) if returns.size > 1 else 0.0,
               "min": float(returns.min()), "max": float(returns.max()),
               "frames": int(sum(r.frames for r in results))}
    if video is not None:
        if not args.json:
            print(f"recording episode 0 (seed {int(seeds[0])}) -> {video}", file=sys.stderr, flush=True)
        rec = play.record(agent, int(seeds[0]), video, args.scale, args.video_seconds)
        if rec["return"] != results[0].episode_return:       # same seed, same protocol: same episode
            raise RuntimeError(f"recorded episode returned {rec['return']}, evaluator {results[0].episode_return}")
        summary["video"] = {k: rec[k] for k in ("path", "fps", "seconds", "video_frames")}
    if args.json:
        print(json.dumps({"summary": summary}))
    else:
        print(f"mean {summary['mean']:.2f} +- {summary['std']:.2f} (sample std, n={args.episodes}), "
              f"min {summary['min']:g}, max {summary['max']:g}")
        if video is not None:
            v = summary["video"]
            print(f"video: {v['path']} ({v['video_frames']} frames at {v['fps']:.2f} frames/s, "
                  f"{v['seconds']:.1f} s of console time)")
    return 0
