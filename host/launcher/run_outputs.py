"""The end-of-run outputs of a run folder: the best parameters, the fitness plot, the elite's
GIF and the fabric projection of the run's episodes (each file written atomically)."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from nc2600.host.rundir import atomic_write_bytes, atomic_write_json


def write_best(out: Path, best: np.ndarray, genome: dict) -> None:
    """``best_params.npy`` (``best`` as given, float32 from the algorithms) and ``best_genome.json``."""
    buf = io.BytesIO()
    np.save(buf, best)
    atomic_write_bytes(out / "best_params.npy", buf.getvalue())
    atomic_write_json(out / "best_genome.json", genome)


def write_fitness_plot(out: Path, history: list[dict], title: str) -> None:
    """``fitness.png``: best, elite score, mean and median return of each generation (the
    lines of ``log.jsonl``) against the cumulative frames; nothing without a generation."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if not history:
        return
    frames = np.array([h["frames"] for h in history]) / 1e6
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    for key, style in (("best", "-o"), ("elite_score", "-s"), ("mean", "--"), ("median", ":")):
        ax.plot(frames, [h[key] for h in history], style, label=key.replace("_", " "), markersize=3)
    ax.set_xlabel("frames (millions, frame skip included)")
    ax.set_ylabel("episode return (raw score)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    atomic_write_bytes(out / "fitness.png", buf.getvalue())


def write_elite_gif(out: Path, cfg, rom_path, display: str, policy, max_steps: int = 1500) -> str:
    """The elite playing one episode (episode seed = ``cfg.seed``) as ``best.gif``, one frame per
    decision at the console's real frame rate (``display``: the ROM's TV standard;
    :mod:`nc2600.host.launcher.play`; ``nc2600 play`` writes MP4s). ``policy`` is the elite's
    policy as the slot weights load it. Returns the file name."""
    import imageio.v3 as iio
    from nc2600.host.episodes.env import AleEnv
    from nc2600.host.episodes.policy import make_slot_weights
    from nc2600.host.launcher.policy_int8 import make_int8_slots
    from nc2600.host.launcher.video import frame_rate, gif_delays_cs
    inst = AleEnv(rom_path, cfg.frame_skip, cfg.sticky, cfg.episode_frames)
    make = make_int8_slots if cfg.policy == "int8" else make_slot_weights
    weights = make(1, inst.n_actions, cfg.network)
    weights.load(0, policy)
    stack = np.zeros((1, 4, 84, 84), np.uint8)
    inst.reset(cfg.seed, stack[0])
    frames = [inst.rgb()]
    for _ in range(max_steps):
        _, _, over = inst.step(int(weights.act(stack)[0]), stack[0])
        frames.append(inst.rgb())
        if over:
            break
    buf = io.BytesIO()
    # one frame per decision, each shown for frame_skip console frames at the real rate
    delays = gif_delays_cs(len(frames), frame_rate(display), stride=cfg.frame_skip)
    iio.imwrite(buf, np.stack(frames), extension=".gif", duration=[10 * d for d in delays], loop=0)
    atomic_write_bytes(out / "best.gif", buf.getvalue())
    return "best.gif"


def fabric_projection(out: Path) -> dict:
    """The run's recorded episodes (``out/episodes.jsonl``) replayed on the modelled
    832-instance fabric (:func:`nc2600.mesh_sim.project.project_run`); on a run it cannot
    project, ``{"projected_fabric_fps": None, "projected_fabric_error": why}``."""
    try:
        from nc2600.mesh_sim.project import project_run
        return project_run(str(out))
    except (ImportError, ValueError) as exc:
        return {"projected_fabric_fps": None, "projected_fabric_error": str(exc)}
