"""Watch and re-test a saved agent: ``nc2600 play --run DIR``.

Loads the elite of a run folder (``best_params.npy``, or the checkpoint's individual 0 when the
run has not finished) or any individual of the last checkpointed population (GA/RS seed-list
genomes rebuilt from the noise table), evaluates it for N episodes under the run's protocol
(or a changed seed, sticky-action probability, episode cap) on the batched evaluator, and
records one episode as a video at the console's real frame rate.

Real frame rate: a 2600 frame is 262 scanlines x 228 colour clocks (NTSC) or 312 x 228 (PAL)
(Stella Programmer's Guide, 1979), at a colour clock of 3,579,545 Hz (NTSC) or 3,546,894 Hz
(PAL): 59.92 and 49.86 frames/s. The MP4 holds every emulated frame at that rate. A GIF holds
every third frame (browsers clamp delays under 20 ms), with centisecond delays rounded
cumulatively so that its length is the episode's real length within 10 ms.
Pixels are scaled by ``scale`` vertically and ``2 x scale`` horizontally (a colour clock is
about twice as wide on a TV as a scanline is tall), nearest neighbour.
"""
from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from nc2600.host.errors import UserError
from nc2600.host.inputs import read_regular_file
from nc2600.host.resources import require_memory
from nc2600.host.rundir import atomic_write_bytes, fs_error
from nc2600.host.launcher.video import GIF_STRIDE, NTSC_FPS, PAL_FPS, frame_rate, gif_delays_cs  # noqa: F401

SEED_LIMIT = 2**31 - 1


@dataclass
class Agent:
    """A policy loaded from a run folder: ``params`` (n_params,) float32, and what it is."""
    cfg: object              # nc2600.host.launcher.run.RunConfig
    config: dict             # the run's config.json
    params: np.ndarray
    label: str               # "elite" or "individual N (generation G)"
    rom_path: Path


def _read_json(path: Path):
    from nc2600.host.inputs import read_regular_file
    from nc2600.host.launcher.settings import CONFIG_MAX_BYTES
    if not os.path.lexists(path):
        raise UserError(f"{str(path.parent)!r} holds no run ({path.name} missing)")
    # a FIFO or a device there is refused at once (never a read that waits for a writer)
    data = read_regular_file(path, CONFIG_MAX_BYTES, "run configuration")
    try:
        return json.loads(data)
    except ValueError:
        raise UserError(f"{str(path)!r} is not valid JSON; the run folder is damaged") from None


def load_agent(run_dir, individual: int | None = None) -> Agent:
    """The elite (``individual=None``) or population member ``individual`` of the last
    checkpoint of the run in ``run_dir``.

    Raises:
        UserError: no run there, a damaged file, no completed generation yet, an index out of
        range, an ES run asked for an individual (its population is not stored: only the centre).
    """
    from nc2600.host.games import resolve_rom
    from nc2600.host.launcher.settings import RunConfig
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError(f"--run {str(run_dir)!r}: no such folder")
    config = _read_json(run_dir / "config.json")
    if not isinstance(config, dict) or not isinstance(config.get("config"), dict):
        raise UserError(f"{str(run_dir / 'config.json')!r} is not a run configuration")
    names = {f.name for f in fields(RunConfig)}
    try:
        cfg = RunConfig(**{k: v for k, v in config["config"].items() if k in names})
        cfg.validate()
    except (TypeError, UserError) as exc:
        raise UserError(f"{str(run_dir / 'config.json')!r} is damaged: {exc}") from None
    _, rom_path = resolve_rom(cfg.game, cfg.rom)
    if cfg.backend == "fabric":
        # the fabric runs the int8 network (validate: --policy int8, no sticky actions) on
        # consoles that equal ALE's; ALE with the same int8 network gives its episodes bit for bit
        cfg.backend = "ale"
    best = run_dir / "best_params.npy"
    if individual is None and best.is_file():
        params = check_finite(_load_params(best, config), str(best))
        return Agent(cfg, config, params, "elite", rom_path)
    meta, arrays = _checkpoint(run_dir)
    generation = int(meta["algo"]["generation"])
    if cfg.algo == "es":
        if individual not in (None, 0):
            raise UserError("an ES run stores only its centre: give no --individual (or 0)")
        return Agent(cfg, config, check_finite(np.asarray(arrays["theta"], np.float32),
                                               f"the ES centre in {str(run_dir / 'checkpoint.npz')!r}"),
                     f"ES centre after generation {generation - 1}", rom_path)
    genomes = meta["algo"]["genomes"]
    index = 0 if individual is None else individual
    if not 0 <= index < len(genomes):
        raise UserError(f"--individual {index} is out of range: the population has {len(genomes)} "
                        f"(0 is the elite)")
    from nc2600.host.launcher.noise import NoiseTable, genome_params
    n_actions = int(config.get("n_actions", 0)) or None
    if n_actions is None:
        raise UserError(f"{str(run_dir / 'config.json')!r} lacks n_actions")
    noise = NoiseTable(cfg.noise_table_size, cfg.noise_table_seed)
    params = check_finite(genome_params([int(s) for s in genomes[index]], n_actions, cfg.effective_sigma(), noise,
                                        cfg.network), f"individual {index} of {str(run_dir / 'checkpoint.npz')!r}")
    label = "elite" if index == 0 else f"individual {index}"
    return Agent(cfg, config, params, f"{label} of the population after generation {generation - 1}", rom_path)


def check_finite(params: np.ndarray, what: str) -> np.ndarray:
    """``params``, unless one is NaN or infinite (a diverged run, a damaged file): then
    UserError (a NaN agent would be quantised into garbage, or play silently)."""
    bad = ~np.isfinite(params)
    if bad.any():
        raise UserError(f"{what}: {int(bad.sum()):,} of {params.size:,} parameters are not finite "
                        f"float32 numbers (NaN, infinite or beyond float32); the agent cannot be played")
    return params


def _read_npy_bytes(path: Path) -> io.BytesIO:
    """A run file's bytes (a regular file only: a FIFO or a device is refused, never waited on)."""
    from nc2600.host.launcher.run_history import RUN_FILE_MAX_BYTES
    return io.BytesIO(read_regular_file(path, RUN_FILE_MAX_BYTES, "run file"))


def _load_params(path: Path, config: dict) -> np.ndarray:
    data = _read_npy_bytes(path)
    try:
        params = np.load(data, allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same user error
        raise UserError(f"cannot read {str(path)!r}: {type(exc).__name__}") from None
    want = config.get("n_params")
    if params.ndim != 1 or params.dtype != np.float32 or (want is not None and params.size != want):
        raise UserError(f"{str(path)!r} is not a ({want},) float32 parameter vector")
    return params


def _checkpoint(run_dir: Path) -> tuple[dict, dict]:
    path = run_dir / "checkpoint.npz"
    if not os.path.lexists(path):
        raise UserError(f"{str(run_dir)!r} has no completed generation yet (no checkpoint.npz)")
    data = _read_npy_bytes(path)
    try:
        with np.load(data, allow_pickle=False) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            arrays = {k: z[k] for k in z.files if k != "meta"}
        int(meta["algo"]["generation"])
    except Exception as exc:  # noqa: BLE001
        raise UserError(f"cannot read checkpoint {str(path)!r}: {type(exc).__name__}") from None
    return meta, arrays


def policy_for(agent: Agent, params: np.ndarray):
    """What a slot runs: the float vector, or its int8 quantisation when ``agent.cfg.policy`` is
    ``"int8"`` (shifts calibrated per individual on the run's random-play observations, as
    ``nc2600 run --policy int8`` does)."""
    if agent.cfg.policy != "int8":
        return params
    from nc2600.hls_models.policy_int8 import quantize_network
    from nc2600.host.games import game_info
    from nc2600.host.launcher.run import Run
    probe = Run(agent.cfg, Path("."), progress=False)
    probe.rom_path = agent.rom_path
    n_actions = len(game_info(agent.cfg.game, agent.rom_path).minimal_actions)
    return quantize_network(params, agent.cfg.network, n_actions, probe._calibration_observations())  # noqa: SLF001


def episode_seeds(seed: int, episodes: int) -> np.ndarray:
    """The episode seeds of ``play --seed S``: ``default_rng(S).integers(2**31 - 1, size=N)``."""
    return np.random.default_rng(seed).integers(SEED_LIMIT, size=episodes)


def evaluate(agent: Agent, seeds: np.ndarray, workers: int, envs_per_block: int, on_result=None):
    """Returns ``[EpisodeResult]`` in seed order (:class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator`)."""
    from nc2600.host.episodes.jobs import Job
    from nc2600.host.launcher.local_pool import LocalPoolEvaluator
    cfg = agent.cfg
    policy = policy_for(agent, agent.params)
    with LocalPoolEvaluator(agent.rom_path, workers, envs_per_block, cfg.frame_skip, cfg.sticky, cfg.episode_frames,
                   cfg.backend, cfg.policy, network=cfg.network) as ev:
        return ev.evaluate([Job(0, int(s), i) for i, s in enumerate(seeds)], lambda i: policy, on_result)


def upscale(frame: np.ndarray, scale: int) -> np.ndarray:
    """``(H, W, 3)`` -> ``(scale H, 2 scale W, 3)``, nearest neighbour."""
    return np.repeat(np.repeat(frame, scale, axis=0), 2 * scale, axis=1)


def record(agent: Agent, seed: int, path: Path, scale: int = 2, max_seconds: float = 120.0) -> dict:
    """Play one episode (``seed``) with one ALE instance, write it to ``path`` (``.mp4`` or
    ``.gif``), and return ``{"return", "frames", "video_frames", "fps", "seconds", "path"}``.

    The episode is the same as the evaluator's for that seed (same protocol, fixed start
    state); the video stops after ``max_seconds`` of console time (the return is the whole
    episode's).

    Raises:
        UserError: unknown extension, MP4 without imageio-ffmpeg, a write that fails.
    """
    from nc2600.host.games import game_info
    from nc2600.host.episodes.env import AleEnv
    from nc2600.host.episodes.policy import make_slot_weights
    cfg = agent.cfg
    kind = path.suffix.lower()
    if kind not in (".mp4", ".gif"):
        raise UserError(f"--video {str(path)!r}: give a .mp4 or .gif file name")
    info = game_info(cfg.game, agent.rom_path)
    rate = frame_rate(info.display)
    max_frames = int(max_seconds * rate)
    inst = AleEnv(agent.rom_path, cfg.frame_skip, cfg.sticky, cfg.episode_frames)
    if cfg.policy == "int8":
        from nc2600.host.launcher.policy_int8 import make_int8_slots
        weights = make_int8_slots(1, inst.n_actions, cfg.network)
    else:
        weights = make_slot_weights(1, inst.n_actions, cfg.network)
    weights.load(0, policy_for(agent, agent.params))
    height = info.screen_height
    frame_bytes = scale * height * 2 * scale * 160 * 3
    if kind == ".gif":
        require_memory(max_frames // GIF_STRIDE * frame_bytes * 2, f"a {max_seconds:g} s GIF at --scale {scale}")
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}{kind}")
    frames: list[np.ndarray] = []
    count = [0]
    writer = None
    if kind == ".mp4":
        try:
            import imageio.v2 as iio2
            writer = iio2.get_writer(str(tmp), format="FFMPEG", mode="I", fps=rate, codec="libx264",
                                     quality=7, macro_block_size=1, ffmpeg_log_level="error")
        except (ImportError, ValueError, RuntimeError) as exc:
            raise UserError(f"MP4 needs imageio-ffmpeg ({type(exc).__name__}); give --video NAME.gif") from None
        except OSError as exc:
            raise fs_error(exc, "write", path) from None

    def keep(rgb: np.ndarray) -> None:
        if count[0] < max_frames:
            if writer is not None:
                writer.append_data(upscale(rgb, scale))
            elif count[0] % GIF_STRIDE == 0:
                frames.append(upscale(rgb, scale))
        count[0] += 1

    emulate = inst._emulate                                          # noqa: SLF001

    def emulate_and_keep(action) -> float:
        reward = emulate(action)
        keep(inst.rgb())
        return reward

    inst._emulate = emulate_and_keep                                 # noqa: SLF001
    total = 0.0
    stack = np.zeros((1, 4, 84, 84), np.uint8)
    try:
        inst.reset(int(seed), stack[0])
        over = inst.over
        while not over:
            r, _, over = inst.step(int(weights.act(stack)[0]), stack[0])
            total += r
        if writer is not None:
            writer.close()
            writer = None
        else:
            import imageio.v3 as iio
            buf = io.BytesIO()
            delays = gif_delays_cs(len(frames), rate, total=min(count[0], max_frames))
            iio.imwrite(buf, np.stack(frames), extension=".gif", duration=[10 * d for d in delays], loop=0)
            atomic_write_bytes(tmp, buf.getvalue())
        os.replace(tmp, path)
    except OSError as exc:
        raise fs_error(exc, "write", path) from None
    finally:
        if writer is not None:
            try:
                writer.close()
            except Exception:  # noqa: BLE001 - closing after an error: the temp file goes anyway
                pass
        if tmp.exists():
            tmp.unlink()
    shown = min(count[0], max_frames)
    return {"return": total, "frames": inst.frames, "video_frames": shown if kind == ".mp4" else len(frames),
            "fps": rate if kind == ".mp4" else rate / GIF_STRIDE, "seconds": shown / rate, "path": str(path)}
