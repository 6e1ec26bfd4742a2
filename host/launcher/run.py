"""``nc2600 run``: one neuroevolution experiment on ALE games, with its run directory.

Run directory contents (all written atomically: temp file, then rename):

- ``.lock``: the exclusive lock of the process that owns the folder (:mod:`nc2600.host.rundir`);
- ``config.json``: the settings in force (:class:`RunConfig`), package versions, ROM md5,
  network size, and ``history``: one entry per start or resume (UTC time, generation,
  the settings changed, old and new);
- ``log.jsonl``: one line per generation: ``generation, best, mean, median, elite_score,
  frames`` (cumulative emulated frames, frame skip and resets included), ``wall_s``, ``fps``;
- ``episodes.jsonl``: one line per evaluated episode: ``generation, individual, episode, kind``
  (``train``/``elite``/``test``), ``frames, steps, return, reset_frames`` (input to mesh_sim), ``actions_crc32`` (CRC-32
  of the episode's action indices, one byte each: :func:`nc2600.host.launcher.local_pool.actions_crc32`);
- ``tensorboard/``: the ``log.jsonl`` figures as TensorBoard scalars, one event per
  checkpointed generation (:mod:`nc2600.host.tensorboard`; ``tensorboard --logdir runs/``);
- ``checkpoint.npz``: the state after the last complete generation (algorithm state, RNG
  state, counters, log/episode line counts); ``--resume DIR`` continues from it and gives
  the same fitness values as an uninterrupted run;
- at the end: ``best_params.npy`` (float32), ``best_genome.json``, ``fitness.png``,
  ``best.gif`` (the elite playing one episode), ``summary.json`` (with ``stop_reason``:
  ``generations`` or ``frame_budget``, and ``stop_message``).

Resuming a finished run changes no file. A run stops only when its generation count or its
optional frame budget (``--max-frames``, off by default) is reached, and says which, or when
interrupted (Ctrl-C or SIGTERM: exit 130 and the ``--resume`` command to continue).
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import sys
import time
from pathlib import Path

import numpy as np

from nc2600.host.errors import UserError
from nc2600.host.episodes.calibration import calibration_observations
from nc2600.host.launcher.checkpoint import check_history, check_no_checkpoint_yet, read_checkpoint, write_checkpoint
from nc2600.host.launcher.progress import Heartbeat
from nc2600.host.launcher.run_outputs import fabric_projection, write_best, write_elite_gif, write_fitness_plot
from nc2600.host.rundir import RunFolder, append_lines, atomic_write_json, fs_error
from nc2600.host.launcher.run_history import (HISTORY_FILES, json_lines, package_versions, read_run_file,
                                              settings_digest, truncate_lines)
from nc2600.host.launcher.settings import RESUME_MUTABLE, RunConfig

SEED_LIMIT = 2**31 - 1



def _utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Run:
    """One experiment in one run directory (see module doc)."""

    def __init__(self, cfg: RunConfig, out: Path, resume: bool = False, progress: bool | None = None,
                 restart: bool = False):
        if resume and restart:
            raise ValueError("resume and restart exclude each other")
        self.cfg, self.out, self.resume, self.restart = cfg, Path(out), resume, restart
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.frames = 0
        self.wall_offset = 0.0
        self.log_lines = 0
        self.episode_lines = 0
        import hashlib
        #: sha256 of the lines of log.jsonl and episodes.jsonl written so far (each with its
        #: newline): the checkpoint keeps their hex digests (:data:`HISTORY_FILES`)
        self.history_hash = {name: hashlib.sha256() for name in HISTORY_FILES}
        self.history: list[dict] = []
        self.folder: RunFolder | None = None
        self.cluster = None                 # nc2600.host.cluster.ray_cluster.RayCluster with --cluster ray
        self.finished: dict | None = None      # the summary of a finished run (resume: no-op)
        self.config_doc: dict | None = None
        self.stop_line: str | None = None
        # without a progress bar, a line at least every HEARTBEAT_S seconds (nc2600.host.launcher.progress)
        self.heartbeat = Heartbeat(write=self._print)

    # ------------------------------------------------------------------------------
    def _make_algorithm(self, n_actions: int, rng):
        from nc2600.host.launcher.algorithms import DeepGA, OpenAIES, RandomSearch
        cfg = self.cfg
        if cfg.algo == "es":
            return OpenAIES(cfg.population, cfg.effective_sigma(), cfg.es_lr, cfg.es_l2, cfg.elite_episodes,
                            n_actions, self.noise, rng, network=cfg.network)
        cls = DeepGA if cfg.algo == "ga" else RandomSearch
        return cls(cfg.population, cfg.truncation, cfg.effective_sigma(), cfg.elite_candidates,
                   cfg.elite_episodes, n_actions, self.noise, rng, network=cfg.network)

    def _evaluate(self, params_for, n: int, episodes: int, kind: str) -> np.ndarray:
        """Evaluate ``n`` parameter vectors on ``episodes`` episodes each; returns ``(n, episodes)``."""
        from nc2600.host.episodes.jobs import Job
        seeds = self.rng.integers(SEED_LIMIT, size=(n, episodes))
        jobs = [Job(i, int(seeds[i, e]), (i, e)) for i in range(n) for e in range(episodes)]
        cache: dict[int, object] = {}

        def params(i: int):
            if i not in cache:
                cache.clear()
                cache[i] = self._policy_for(params_for(i))
            return cache[i]
        if hasattr(params_for, "genome"):     # GA/RS: a Ray evaluator ships the seed list instead
            params.genome = params_for.genome
        if hasattr(params_for, "perturbation"):   # ES: the centre once, (seed, sign) per individual
            params.perturbation, params.centre = params_for.perturbation, params_for.centre

        bar = self._bar(len(jobs), kind)
        if bar:
            on_result = lambda r: bar.update(1)  # noqa: E731
        else:
            done = [0, 0]                       # episodes, frames: a line every 30 s at most

            def on_result(r) -> None:
                done[0] += 1
                done[1] += r.frames
                self.heartbeat.beat(lambda: f"gen {self.algo.generation} {kind}: {done[0]}/{len(jobs)} episodes, "
                                            f"{self.frames + done[1]:,} frames")
        results = self.evaluator.evaluate(jobs, params, on_result=on_result)
        if bar:
            bar.close()
        returns = np.zeros((n, episodes))
        lines = []
        for r in results:
            i, e = r.job.tag
            returns[i, e] = r.episode_return
            self.frames += r.frames
            lines.append(json.dumps({"generation": self.algo.generation, "individual": i, "episode": e,
                                     "kind": kind, "frames": r.frames, "steps": r.steps,
                                     "return": r.episode_return, "reset_frames": r.reset_frames,
                                     "actions_crc32": r.actions_crc32}))
        self._pending_episodes.extend(lines)
        return returns

    def _policy_for(self, flat: np.ndarray):
        """What a slot runs: the float vector itself, or its int8 quantisation (``--policy int8``)."""
        if self.cfg.policy != "int8":
            return flat
        from nc2600.hls_models.policy_int8 import quantize_network
        return quantize_network(flat, self.cfg.network, len(self.info.minimal_actions), self.calib_obs)

    def _calibration_observations(self) -> np.ndarray:
        """``(B, 4, 84, 84)`` uint8 stacks from random play (fixed seeds), for int8 shifts."""
        cfg = self.cfg
        return calibration_observations(self.rom_path, cfg.frame_skip, cfg.episode_frames, cfg.seed,
                                        cfg.calibration_obs)

    def _bar(self, total: int, kind: str):
        if not self.progress:
            return None
        from tqdm import tqdm
        return tqdm(total=total, desc=f"gen {self.algo.generation} {kind}", unit="ep", leave=False,
                    file=sys.stderr, dynamic_ncols=True)

    # ------------------------------------------------------------------------------
    def prepare(self) -> None:
        """Check and create the run directory, load the checkpoint on resume."""
        from nc2600.host.games import game_info, resolve_rom
        cfg = self.cfg
        cfg.validate()
        cfg.check_memory()
        name, rom_path = resolve_rom(cfg.game, cfg.rom)
        cfg.game = name
        self.info = game_info(name, rom_path)
        self.rom_path = rom_path
        out = self.out
        if self.resume:
            self.folder = RunFolder(out).open_existing()
            self.config_doc = self._read_config()
            saved_md5 = self.config_doc.get("rom_md5")
            if saved_md5 is not None and saved_md5 != self.info.md5:
                raise UserError(f"the ROM of {name!r} ({rom_path}, md5 {self.info.md5}) is not the run's "
                                f"(config.json: md5 {saved_md5}); the run folder is damaged")
            if self._finished_summary() is not None:
                return                      # finished: nothing to load, nothing to change
            self._connect_cluster()
        elif self.restart:
            self.folder = RunFolder(out).open_existing()
            old_history = self._read_config().get("history")
            self._connect_cluster()
            self._remove_run_files()
        else:
            folder = RunFolder(out)
            folder._check_new()             # the cheap checks first,
            self._connect_cluster()         # then Ray joined and its nodes checked,
            self.folder = folder.open_new()  # before anything is written
        from nc2600.host.launcher.noise import NoiseTable
        from nc2600.hls_models.networks import n_params
        self.noise = NoiseTable(cfg.noise_table_size, cfg.noise_table_seed)
        self.rng = np.random.default_rng(cfg.seed)
        n_actions = len(self.info.minimal_actions)
        self.algo = self._make_algorithm(n_actions, self.rng)
        if cfg.policy == "int8":
            self.calib_obs = self._calibration_observations()
        self._pending_episodes: list[str] = []
        if self.resume:
            self._load_checkpoint()
            self._record_resume()
        else:
            self.config_doc = {"run_id": secrets.token_hex(16)}
            atomic_write_json(out / "config.json", {
                "run_id": self.config_doc["run_id"],
                "config": dataclasses.asdict(cfg), "sigma": cfg.effective_sigma(),
                "game": name, "rom_path": str(rom_path), "rom_md5": self.info.md5,
                "mapper": self.info.mapper, "n_actions": n_actions, "network": cfg.network,
                                                    "n_params": n_params(cfg.network, n_actions),
                "population": cfg.population, "frame_skip": cfg.frame_skip,
                "episode_frames": cfg.episode_frames, "versions": package_versions(),
                "protocol": "ALE 0.12, minimal action set, frame skip, no-op starts 1..30 frames, "
                            "FIRE at reset when in the minimal set, sticky actions per frame, raw score",
                "history": ([*old_history] if self.restart and isinstance(old_history, list) else []) + [
                    {"time": _utc(), "event": "restart" if self.restart else "start", "generation": 0,
                     "settings": {k: getattr(cfg, k) for k in RESUME_MUTABLE}}],
            })

    #: what a run writes into its folder (``--restart`` removes these, and nothing else)
    RUN_FILES = ("checkpoint.npz", *HISTORY_FILES, "summary.json", "best_params.npy", "best_genome.json",
                 "fitness.png", "best.gif")

    def _remove_run_files(self) -> None:
        """``--restart``: remove the run's outputs (:data:`RUN_FILES`, the TensorBoard folder),
        keeping the folder, its lock and any other file; ``config.json`` is then written anew."""
        import shutil
        for name in self.RUN_FILES:
            try:
                os.unlink(self.out / name)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise fs_error(exc, "remove", self.out / name) from None
        shutil.rmtree(self.out / "tensorboard", ignore_errors=True)

    def _read_config(self) -> dict:
        path = self.out / "config.json"
        try:
            doc = json.loads(read_run_file(path, "run configuration"))
        except ValueError:
            doc = None
        if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict):
            raise UserError(f"{str(path)!r} is not a run configuration (a JSON object with \"config\")")
        return doc

    def _identity(self) -> dict:
        """What a checkpoint belongs to: the run id (``config.json``), the settings digest
        (:func:`settings_digest`) and the ROM's md5."""
        return {"run_id": self.config_doc.get("run_id"), "settings": settings_digest(self.cfg),
                "rom_md5": self.info.md5}

    def _read_checkpoint(self, arrays: bool = True) -> tuple[dict, dict] | None:
        """:func:`nc2600.host.launcher.checkpoint.read_checkpoint` of this run (its identity)."""
        return read_checkpoint(self.out, self._identity(), arrays)

    def _checkpoint_meta(self) -> dict | None:
        """The checkpoint's metadata, or None when the run stopped before its first generation."""
        read = self._read_checkpoint(arrays=False)
        return None if read is None else read[0]

    def _finished_summary(self) -> dict | None:
        """On resume: the run's summary when it is finished under the settings now in force
        (then nothing is loaded, truncated or rewritten), else None."""
        path = self.out / "summary.json"
        meta = self._checkpoint_meta()
        if meta is None or not path.exists():
            return None
        try:
            summary = json.loads(read_run_file(path, "run summary"))
            generation = int(meta["algo"]["generation"])
            frames = int(meta["frames"])
        except (UserError, ValueError, KeyError, TypeError):
            return None                     # damaged summary: finish the run again
        cfg = self.cfg
        if not isinstance(summary, dict):
            return None
        try:
            counts = int(meta["log_lines"]), int(meta["episode_lines"])
        except (KeyError, TypeError, ValueError):
            return None                     # a damaged checkpoint: _load_checkpoint refuses it
        self._check_history(meta, *counts)  # a finished run's history is checked too (nothing is written)
        if generation >= cfg.generations or (cfg.max_frames is not None and frames >= cfg.max_frames):
            self.finished = summary
            self.algo_generation = generation
            self.finished_frames = frames
            return summary
        return None

    def _record_resume(self) -> None:
        """Write the settings now in force into config.json, with a history entry of what changed."""
        doc = self.config_doc
        old = doc["config"]
        changed = {k: [old.get(k), getattr(self.cfg, k)] for k in RESUME_MUTABLE
                   if old.get(k) != getattr(self.cfg, k)}
        doc["config"] = {**old, **{k: getattr(self.cfg, k) for k in RESUME_MUTABLE}}
        history = doc.get("history") if isinstance(doc.get("history"), list) else []
        history.append({"time": _utc(), "event": "resume", "generation": self.algo.generation,
                        "changed": changed})
        doc["history"] = history
        atomic_write_json(self.out / "config.json", doc)

    def _connect_cluster(self) -> None:
        """The connection the evaluators of ``--cluster`` need (:func:`nc2600.host.launcher.evaluation.connect`;
        ``ray``: Ray joined or started and its nodes checked; ``local``: None)."""
        from nc2600.host.launcher.evaluation import connect
        self.cluster = None
        self.cluster = connect(self.cfg.cluster, self.cfg.ray_address, self.cfg.workers)

    def close(self) -> None:
        """Disconnect from Ray (stops the embedded instance); idempotent."""
        if getattr(self, "cluster", None) is not None:
            self.cluster.close()
            self.cluster = None

    def _load_checkpoint(self) -> None:
        path = self.out / "checkpoint.npz"
        read = self._read_checkpoint()
        if read is None:
            check_no_checkpoint_yet(self.out)
            # stopped before the first generation's checkpoint: start again from generation 0
            # (what generation 0 wrote, if anything, is written again identically)
            self._say(f"nc2600 run: {self.out} has no checkpoint yet (stopped in generation 0): "
                      f"starting again at generation 0")
            truncate_lines(self.out / "log.jsonl", 0)
            truncate_lines(self.out / "episodes.jsonl", 0)
            return
        meta, arrays = read
        try:
            self.algo.load_state(meta["algo"], arrays)
            self.rng.bit_generator.state = meta["rng"]
            self.frames, self.wall_offset = int(meta["frames"]), float(meta["wall_s"])
            self.log_lines, self.episode_lines = int(meta["log_lines"]), int(meta["episode_lines"])
        except Exception as exc:  # noqa: BLE001 - any unreadable file is the same user error
            raise UserError(f"cannot read checkpoint {str(path)!r}: {type(exc).__name__}") from None
        self.history = json_lines(self.out / "log.jsonl", self.log_lines)
        json_lines(self.out / "episodes.jsonl", self.episode_lines)     # refuse damage before cutting
        self._check_history(meta, self.log_lines, self.episode_lines)  # before anything is cut
        truncate_lines(self.out / "log.jsonl", self.log_lines)
        truncate_lines(self.out / "episodes.jsonl", self.episode_lines)

    def _check_history(self, meta: dict, log_lines: int, episode_lines: int) -> None:
        """The history files checked against the checkpoint (:func:`nc2600.host.launcher.checkpoint.check_history`);
        the running digests then continue from their checkpointed lines."""
        self.history_hash.update(check_history(self.out, meta, log_lines, episode_lines))

    def _checkpoint(self, wall_s: float) -> None:
        meta_algo, arrays = self.algo.state()
        meta = {"algo": meta_algo, "rng": self.rng.bit_generator.state, "frames": self.frames,
                "wall_s": wall_s, "log_lines": self.log_lines, "episode_lines": self.episode_lines,
                "history_sha256": {name: h.hexdigest() for name, h in self.history_hash.items()},
                "identity": self._identity()}
        write_checkpoint(self.out, meta, arrays)

    def _append(self, name: str, lines: list[str]) -> None:
        append_lines(self.out / name, lines)
        if name in self.history_hash and lines:
            self.history_hash[name].update(("\n".join(lines) + "\n").encode())

    # ------------------------------------------------------------------------------
    def execute(self) -> dict:
        """Run generations until the generation count or frame budget is reached, then the
        final elite test and the outputs. Returns the summary dict."""
        from nc2600.host.launcher.evaluation import EvaluationSettings, open_evaluator
        cfg = self.cfg
        if self.finished is not None:
            by_generations = self.algo_generation >= cfg.generations
            by_frames = cfg.max_frames is not None and self.finished_frames >= cfg.max_frames
            more = " and ".join(o for o, stopped in (("--generations", by_generations), ("--max-frames", by_frames))
                                if stopped)
            self.stop_line = (f"nc2600 run: {self.out} is finished ({self.algo_generation} generations); "
                              f"nothing to do (a larger {more} continues it)")
            return self.finished
        summary_path = self.out / "summary.json"
        if summary_path.exists():
            summary_path.unlink()                                 # continuing: the old one is stale
        start = time.perf_counter()
        wall = lambda: self.wall_offset + time.perf_counter() - start  # noqa: E731
        budget = cfg.max_frames if cfg.max_frames is not None else float("inf")
        # the genome specification lets a cluster ship seed lists / ES perturbations (nodes rebuild vectors)
        spec = {"n_actions": len(self.info.minimal_actions), "sigma": cfg.effective_sigma(),
                "noise_size": self.noise.size, "noise_seed": self.noise.seed,
                "calib_obs": self.calib_obs if cfg.policy == "int8" else None}
        settings = EvaluationSettings(self.rom_path, cfg.workers, cfg.envs_per_block, cfg.frame_skip, cfg.sticky,
                                      cfg.episode_frames, cfg.backend, cfg.policy, cfg.network, spec)
        from nc2600.host.tensorboard import ScalarLog
        with open_evaluator(cfg.cluster, self.cluster, settings) as ev, \
                contextlib.closing(ScalarLog(self.out, self.history)) as scalars:
            self.evaluator = ev
            while self.algo.generation < cfg.generations and self.frames < budget:
                g0_frames, g0_wall = self.frames, wall()
                stats = self.algo.generation_step(self._evaluate)
                now = wall()
                line = {"generation": self.algo.generation - 1, "best": stats.best, "mean": stats.mean,
                        "median": stats.median, "elite_score": stats.elite_score, "frames": self.frames,
                        "wall_s": round(now, 3),
                        "fps": round((self.frames - g0_frames) / max(now - g0_wall, 1e-9), 1)}
                self._append("episodes.jsonl", self._pending_episodes)
                self.episode_lines += len(self._pending_episodes)
                self._pending_episodes = []
                self._append("log.jsonl", [json.dumps(line)])
                self.log_lines += 1
                self.history.append(line)
                self._checkpoint(now)
                scalars.add(line)                      # after the checkpoint: see nc2600.host.tensorboard
                self._print_generation(line)
            if self.algo.generation >= cfg.generations:
                stop_reason = "generations"
                stop_message = f"reached --generations {cfg.generations}"
            else:
                stop_reason = "frame_budget"
                stop_message = (f"frame budget reached after generation {self.algo.generation - 1}: "
                                f"{self.frames:,} frames >= --max-frames {cfg.max_frames:,} "
                                f"({cfg.generations - self.algo.generation} of --generations {cfg.generations} "
                                "not run)")
            self.stop_line = f"nc2600 run: stopped: {stop_message}"
            self._say(self.stop_line)
            best = np.array(self.algo.best_params(), copy=True)
            test_scores = self._evaluate(lambda i: best, 1, cfg.test_episodes, "test")[0]
            self._append("episodes.jsonl", self._pending_episodes)
            self._pending_episodes = []
        wall_s = wall()
        write_best(self.out, best, self.algo.best_genome())
        write_fitness_plot(self.out, self.history, f"{cfg.game}: {cfg.algo}, population {cfg.population}")
        video = (write_elite_gif(self.out, cfg, self.rom_path, self.info.display, self._policy_for(best))
                 if cfg.video else None)
        summary = {"game": cfg.game, "algo": cfg.algo, "generations": self.algo.generation,
                   "frames": self.frames, "best_fitness": max((h["best"] for h in self.history), default=None),
                   "elite_score": self.algo.elite_score,
                   "elite_test_score": float(np.mean(test_scores)), "elite_test_episodes": cfg.test_episodes,
                   "wall_s": round(wall_s, 2), "host_fps": round(self.frames / max(wall_s, 1e-9), 1),
                   "video": video, "stop_reason": stop_reason, "stop_message": stop_message}
        summary.update(fabric_projection(self.out))
        atomic_write_json(self.out / "summary.json", summary)
        return summary

    def _print_generation(self, line: dict) -> None:
        msg = (f"gen {line['generation']:4d}  best {line['best']:9.1f}  mean {line['mean']:9.2f}  "
               f"median {line['median']:8.1f}  elite {line['elite_score']:9.2f}  "
               f"frames {line['frames']:>11,d}  {line['fps']:>8.0f} frames/s  {line['wall_s']:7.1f} s")
        self._say(msg)

    def _say(self, msg: str) -> None:
        self.heartbeat.say(msg)

    def _print(self, msg: str) -> None:
        if self.progress:
            from tqdm import tqdm
            tqdm.write(msg, file=sys.stdout)
        else:
            print(msg, flush=True)
