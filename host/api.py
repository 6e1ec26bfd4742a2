"""The Python API of nc2600 (re-exported by :mod:`nc2600`): a run, playing saved parameters, and
the fabric instance, for a notebook or a script. Each is the code path of its command:

- :func:`train` is ``nc2600 run`` (:func:`nc2600.host.commands.run.build` makes the run's
  configuration from the same options, :class:`nc2600.host.launcher.run.Run` runs it);
- :func:`play` is ``nc2600 play --no-video`` (or ``--video FILE``);
- :func:`instance` is the instance of ``nc2600 instance-play``: the Verilated fabric instance
  (:class:`nc2600.hwtools.instance_harness.InstanceSim`) behind its AXI4-Lite driver
  (:class:`nc2600.host.drivers.instance.InstanceDriver`).

Bad input raises :class:`nc2600.host.errors.UserError` with the command's one-line message
(an option is named as its command-line flag, e.g. ``--population``).
"""
from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nc2600.host.errors import UserError

__all__ = ["FabricInstance", "TrainResult", "instance", "play", "train"]


@dataclass
class TrainResult:
    """What a run leaves (its folder is as ``nc2600 run --out DIR`` writes it).

    Attributes:
        folder: the run folder (``config.json``, ``log.jsonl``, checkpoints, ``best_params.npy``,
            ``summary.json``; ``--resume`` continues it).
        best_params: the elite's parameters, ``(n_params,)`` float32 (``best_params.npy``).
        fitness_log: one dict per generation (``log.jsonl``: ``generation``, ``best``, ``mean``,
            ``median``, ``elite_score``, ``frames``, ``wall_s``, ``fps``; fitness is the game's
            score per episode).
        summary: the run's summary (``summary.json``, the JSON line ``nc2600 run`` ends with).
    """
    folder: Path
    best_params: np.ndarray
    fitness_log: list[dict] = field(default_factory=list)
    summary: dict = field(default_factory=dict)


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _run_options() -> dict[str, object]:
    """``{field name: RunConfig field}`` of the options of ``nc2600 run``."""
    from nc2600.host.commands.run import option_fields
    return {f.name: f for f in option_fields()}


def train(game: str | None = None, algorithm: str | None = None, population: int | None = None,
          generations: int | None = None, *, out: str | os.PathLike | None = None,
          resume: str | os.PathLike | None = None, progress: bool = False, **options) -> TrainResult:
    """Run deep neuroevolution on a game: ``nc2600 run`` with the same options.

    Args:
        game: ALE game id (``nc2600 games``); default ``nc2600 run``'s.
        algorithm: ``"ga"`` (deep GA), ``"es"`` (OpenAI-ES) or ``"rs"`` (random search): ``--algo``.
        population, generations: ``--population``, ``--generations``.
        out: the run folder (``--out``; default ``runs/<game>-<algo>-s<seed>-<time>``).
        resume: continue the run in this folder (``--resume``; ``out`` then not given).
        progress: a progress bar (True) or one line per generation (False, the default).
        options: any other option of ``nc2600 run`` by its field name, e.g.
            ``episode_frames=2000``, ``backend="rtl"``, ``workers=2``, ``seed=1``, ``video=False``
            (``--no-video``); ``nc2600 run --help`` lists them.
    Returns:
        the :class:`TrainResult` of the finished run.
    Raises:
        UserError: a bad option (the command's message); TypeError: an unknown option name.
    """
    fields = _run_options()
    given = dict(options, game=game, algo=algorithm, population=population, generations=generations)
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise TypeError(f"train() got unknown options {', '.join(unknown)} (options: {', '.join(sorted(fields))})")
    args = argparse.Namespace(**{name: None for name in fields}, out=None, resume=None)
    for name, value in given.items():
        setattr(args, name, value)
    args.out = None if out is None else os.fspath(out)
    args.resume = None if resume is None else os.fspath(resume)
    from nc2600.host.commands.run import build
    from nc2600.host.launcher.run import Run
    cfg, folder, resumed = build(args)
    run = Run(cfg, folder, resume=resumed, progress=progress)
    try:
        run.prepare()
        summary = run.execute()
    finally:
        if run.folder is not None:
            run.folder.release()
        run.close()
    best = folder / "best_params.npy"
    return TrainResult(folder=folder, best_params=np.load(best, allow_pickle=False) if best.is_file() else None,
                       fitness_log=_read_jsonl(folder / "log.jsonl"), summary=summary)


def play(run: str | os.PathLike, episodes: int = 10, seed: int = 0, *, individual: int | None = None,
         workers: int | None = None, video: str | os.PathLike | None = None) -> dict:
    """Re-evaluate a run's saved elite (or ``individual`` of its last checkpoint) for ``episodes``
    episodes under the run's protocol, as ``nc2600 play``.

    Args:
        run: a run folder (of :func:`train` or ``nc2600 run``).
        episodes: how many episodes; their seeds are ``default_rng(seed).integers(2**31 - 1)``.
        seed: the seed of the episode seeds.
        individual: a population member of the last checkpoint (0 is the elite); default the
            saved elite.
        workers: worker processes (default: the cores, at most ``episodes``).
        video: a ``.mp4`` or ``.gif`` file to record the first episode into (default none).
    Returns:
        ``{"returns": [float per episode], "frames": [int per episode], "seeds": [int],
        "mean": float, "game": str, "agent": str}`` (and ``"video"`` with its path when recorded).
    Raises:
        UserError: no run in the folder, bad numbers, a video name that is not .mp4/.gif.
    """
    from nc2600.host.launcher import play as player
    if not isinstance(episodes, int) or isinstance(episodes, bool) or episodes < 1:
        raise UserError(f"--episodes must be a positive integer, got {episodes!r}")
    agent = player.load_agent(os.fspath(run), individual)
    cfg = agent.cfg
    workers = min(workers or os.cpu_count() or 1, episodes)
    cfg.workers, cfg.envs_per_block = workers, max(1, min(6, -(-episodes // (2 * workers))))
    seeds = player.episode_seeds(seed, episodes)
    results = player.evaluate(agent, seeds, workers, cfg.envs_per_block)
    out = {"game": cfg.game, "agent": agent.label, "seeds": [int(s) for s in seeds],
           "returns": [float(r.episode_return) for r in results], "frames": [int(r.frames) for r in results]}
    out["mean"] = float(np.mean(out["returns"]))
    if video is not None:
        from nc2600.host.rundir import check_output_file
        path = check_output_file(os.fspath(video), "--video")
        if path.suffix.lower() not in (".mp4", ".gif"):
            raise UserError(f"--video {str(path)!r}: give a .mp4 or .gif file name")
        out["video"] = str(player.record(agent, int(seeds[0]), path)["path"])
    return out


class FabricInstance:
    """One Verilated fabric instance (console, preprocessor, policy engine, action select,
    frame-skip controller) behind its AXI4-Lite driver, playing one game: what
    ``nc2600 instance-play`` runs. Made by :func:`instance`; a context manager (``close`` frees
    the C++ model).

    Attributes:
        driver: the :class:`nc2600.host.drivers.instance.InstanceDriver` (register reads and
            writes by name, ``load_rom``, ``read_ram``, ``load_params``).
        runner: the :class:`nc2600.host.drivers.instance.InstanceEpisodeRunner` (episodes under
            the launcher's protocol).
        game, rom_path: the ALE game and its ROM.
    """

    def __init__(self, sim, driver, runner, game: str, rom_path: Path, episode_frames: int, calib_seed: int):
        self.sim, self.driver, self.runner = sim, driver, runner
        self.game, self.rom_path = game, rom_path
        self._episode_frames, self._calib_seed = episode_frames, calib_seed

    def quantize(self, params) -> object:
        """The int8 network the instance runs for float parameters ``params`` (a ``(n_params,)``
        array or a ``.npy`` file such as a run's ``best_params.npy``), quantised as
        ``nc2600 instance-play`` does (shifts from 32 random-play observations on ALE)."""
        from nc2600.hls_models.policy_int8 import quantize
        from nc2600.host.launcher.play import check_finite
        from nc2600.host.episodes.policy import n_params
        from nc2600.host.episodes.calibration import calibration_observations
        if isinstance(params, (str, os.PathLike)):
            params = np.load(params, allow_pickle=False)
        flat = np.asarray(params)
        n_actions = len(self.runner.ids)
        if flat.ndim != 1 or flat.shape[0] != n_params(n_actions) or not np.issubdtype(flat.dtype, np.floating):
            raise UserError(f"expected a 1-D float vector of {n_params(n_actions)} parameters for {self.game} "
                            f"({n_actions} actions), got {flat.dtype} {flat.shape}")
        with np.errstate(over="ignore"):
            flat = check_finite(flat.astype(np.float32), "params")
        return quantize(flat, n_actions, calibration_observations(self.rom_path, self.runner.frame_skip,
                                                                  self._episode_frames, self._calib_seed, 32))

    def play(self, params, episode_seed: int = 0):
        """One episode of episode seed ``episode_seed`` with ``params`` (float parameters, a
        ``.npy`` file, or an int8 network of :meth:`quantize`); returns its
        :class:`nc2600.host.drivers.instance.InstanceEpisode` (return, frames, decisions, cycles
        per phase)."""
        from nc2600.hls_models.policy_int8 import QuantizedPolicy
        policy = params if isinstance(params, QuantizedPolicy) else self.quantize(params)
        return self.runner.run(int(episode_seed), policy)

    def close(self) -> None:
        """Free the Verilated model (also done on garbage collection)."""
        self.sim.close()

    def __enter__(self) -> FabricInstance:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def instance(game: str = "pong", *, colour_clocks: int | None = None, engine: str | None = None,
             rows: int | None = None, cols: int | None = None, frame_skip: int = 4,
             episode_frames: int = 20_000, calib_seed: int = 0) -> FabricInstance:
    """Open the Verilated fabric instance for ``game`` behind its driver (the first call for a
    configuration builds the model with Verilator: minutes; later calls reuse the build cache).

    Args:
        game: ALE game id (a mapper the console RTL implements).
        colour_clocks: the console configuration, 1 or 3 (default 3:
            :data:`nc2600.hls_models.platform.DEFAULT_COLOUR_CLOCKS`).
        engine: ``"array"`` (default, the ``rows`` x ``cols`` MAC array, 16 x 16) or ``"lane"``.
        frame_skip, episode_frames: the episode protocol (:mod:`nc2600.hls_models.frame_skip`).
        calib_seed: the seed of the random play that sets the int8 shifts (:meth:`FabricInstance.quantize`).
    Raises:
        UserError: unknown game, a mapper the console RTL lacks, a configuration the instance
            does not take.
    """
    from nc2600.hls_models.cartridge import SUPPORTED_MAPPERS, detect_mapper
    from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_ROWS
    from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS
    from nc2600.host.drivers.instance import InstanceDriver, InstanceEpisodeRunner
    from nc2600.host.games import game_info, resolve_rom
    from nc2600.hwtools.instance_harness import InstanceSim, check_config
    colour_clocks = DEFAULT_COLOUR_CLOCKS if colour_clocks is None else colour_clocks
    engine = DEFAULT_ENGINE if engine is None else engine
    rows, cols = DEFAULT_ROWS if rows is None else rows, DEFAULT_COLS if cols is None else cols
    try:
        check_config(colour_clocks, engine, rows, cols)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    name, path = resolve_rom(game=game)
    mapper = detect_mapper(Path(path).read_bytes())
    if mapper not in SUPPORTED_MAPPERS:
        raise UserError(f"{name}: mapper {mapper} is not implemented by the console RTL")
    info = game_info(name, path)
    sim = InstanceSim(info.screen_height, info.display, colour_clocks=colour_clocks, engine=engine,
                      rows=rows, cols=cols)
    driver = InstanceDriver(sim)
    runner = InstanceEpisodeRunner(driver, name, path, frame_skip, episode_frames)
    return FabricInstance(sim, driver, runner, name, Path(path), episode_frames, calib_seed)
