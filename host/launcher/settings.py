"""The settings of a run (``nc2600 run``), stated once: :class:`RunConfig`'s fields carry their
help, bounds and whether a resume may change them; the command's options
(:mod:`nc2600.host.commands.run`), the bounds checked by :meth:`RunConfig.validate` (:data:`LIMITS`) and
the resume rules (:data:`RESUME_MUTABLE`) are built from them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from nc2600.hls_models.frame_skip import MAX_EPISODE_FRAMES
from nc2600.hls_models.platform import FRAME_SKIP
from nc2600.host.cli_types import SEED_MAX


from nc2600.host.errors import UserError
from nc2600.host.resources import human_bytes, require_memory
def setting(default, help: str | None = None, *, metavar: str | None = None, choices=None, bound: int | None = None,
            type: str | None = None, flag: str | None = None, after: str | None = None, resume: bool = False,
            note: str | None = None, applies: dict[str, tuple] | None = None):
    """A :class:`RunConfig` field with its option's description (``dataclasses.field`` metadata).

    Args:
        default: the value when the option is not given.
        help: the option's help (``{default}`` and ``{cores}`` are filled in); None: no option.
        metavar, choices: as argparse's; ``choices`` ``"backends"``/``"clusters"``: the names of
            the evaluation registry (:mod:`nc2600.host.launcher.evaluation`), the help listing them.
        bound: an integer in ``[1, bound]`` (the option's parser and :meth:`RunConfig.validate`).
        type: the parser of a value that is not a count: ``"seed"``, ``"probability"``,
            ``"sigma"`` (``[SIGMA_MIN, SIGMA_MAX]``), ``"es_lr"`` (``(0, ES_LR_MAX]``) or ``"es_l2"``
            (``[0, ES_L2_MAX]``).
        flag: an option that stores False (``--no-video``) instead of ``--NAME VALUE``.
        after: the option is listed after this field's (the help's order).
        resume: a ``--resume`` may change it (it does not change the results).
        note: what the value means, for a reader of this file.
        applies: the settings under which the value is used, ``{field: (values, ...)}``
            (``{"algo": ("ga",)}``: GA only); an option given under other settings is refused
            in one line naming what it applies to (:func:`check_applies`). None: every run.
    """
    return field(default=default, metadata={"help": help, "metavar": metavar, "choices": choices, "bound": bound,
                                            "type": type, "flag": flag, "after": after, "resume": resume,
                                            "note": note, "applies": applies})


SIGMA_MAX = 10.0      #: mutation power / ES noise std above this are meaningless (weights ~ 0.1)
#: the smallest normal float32 (1.18e-38): a smaller sigma underflows the float32 mutation
#: ``sigma * noise`` to 0 or to subnormals, so that nothing mutates
SIGMA_MIN = float(np.finfo(np.float32).tiny)
ES_LR_MAX = 1.0
ES_L2_MAX = 1.0       #: ES weight decay coefficient bound (decay factor 1 - lr * l2 stays in [0, 1])
#: defaults that follow the population: ``min(cap, population // 2)``
#: (the caps are the embedded default experiment's values for population 40)
POPULATION_DEFAULT_CAPS = {"truncation": 10, "elite_candidates": 5}


def population_defaults(population: int) -> dict[str, int]:
    """The defaults of ``--truncation`` and ``--elite-candidates`` for ``population`` (>= 2):
    ``min(10, population // 2)`` and ``min(5, population // 2)`` (10 and 5 at population 40),
    so that a small population needs neither option."""
    return {name: min(cap, max(1, int(population) // 2)) for name, cap in POPULATION_DEFAULT_CAPS.items()}


@dataclass
class RunConfig:
    """Every setting of a run (saved in ``config.json``).

    The defaults are the embedded default experiment (about 4-5 minutes on 2 cores); the
    Such et al. (2017) Atari settings are population 1000, truncation 20, sigma 0.002,
    elite candidates 10 x 30 episodes, test 200 episodes, episode cap 20,000 frames.
    """
    game: str = setting("boxing", "ALE game id (default {default}; `nc2600 games` lists them)", metavar="G")
    rom: str | None = setting(None, "a ROM file instead of --game (checked by md5)", metavar="PATH")
    algo: str = setting("ga", "search algorithm (default {default})", choices=("ga", "es", "rs"))
    population: int = setting(40, "individuals per generation (default {default})", metavar="N", bound=1_000_000)
    generations: int = setting(20, "generations (default {default})", metavar="K", bound=10_000_000, resume=True)
    max_frames: int | None = setting(
        None, "optional whole-run frame budget, frame skip included, checked before each generation; the run "
              "says when it stops on it (default: none, --generations alone ends the run)",
        metavar="F", bound=10**15, resume=True)
    episode_frames: int = setting(2_000, "cap on emulated frames per episode (default {default}; Such et al.: 20000)",
                                  metavar="E", bound=MAX_EPISODE_FRAMES)
    workers: int = setting(2, "emulator worker processes (default: number of cores, {cores})", metavar="W",
                           bound=1024, resume=True)
    envs_per_block: int = setting(
        6, "game instances per block per worker; each worker holds two blocks (default {default})",
        metavar="K", bound=4096, resume=True)
    seed: int = setting(0, "run seed (default {default})", metavar="S", type="seed")
    sticky: float = setting(0.0, "sticky-action probability per frame (0: none; 0.25: Machado et al. 2018)",
                            metavar="P", type="probability")
    frame_skip: int = setting(FRAME_SKIP, "frames per decision (default {default})", metavar="K", bound=64)
    truncation: int = setting(10, "GA parents, at most the population (default min(10, population / 2), rounded "
                                  "down; Such et al.: 20)",
                              metavar="T", bound=1_000_000, applies={"algo": ("ga",)})
    sigma: float | None = setting(None, "mutation power / ES noise std, at least float32's smallest normal number "
                                        "(default GA 0.002, ES 0.02)", metavar="S",
                                  type="sigma", applies={"algo": ("ga", "es")})
    elite_candidates: int = setting(
        5, "GA/RS elite candidates, at most the population (default min(5, population / 2), rounded down; "
           "Such et al.: 10)",
        metavar="C", bound=1_000_000, applies={"algo": ("ga", "rs")})
    elite_episodes: int = setting(3, "episodes per elite candidate (default {default}; Such et al.: 30)",
                                  metavar="E", bound=100_000)
    test_episodes: int = setting(10, "final elite test episodes (default {default}; Such et al.: 200)",
                                 metavar="N", bound=1_000_000)
    es_lr: float = setting(0.01, "ES Adam step size (default {default})", metavar="LR", type="es_lr",
                         applies={"algo": ("es",)})
    es_l2: float = setting(0.005, "ES weight decay coefficient (default {default})", metavar="L2", type="es_l2",
                           note="ES weight decay (L2 coefficient)", applies={"algo": ("es",)})
    noise_table_size: int = setting(1 << 25, "shared noise table entries (default {default})", metavar="N",
                                    bound=1 << 34, applies={"algo": ("ga", "es")})
    noise_table_seed: int = setting(123, note="seed of the shared noise table")
    backend: str = setting("ale", "game instances", choices="backends")
    policy: str = setting("float", "network arithmetic: float32, or the int8 model the fabric runs "
                                   "(nc2600.hls_models.policy_int8)", choices=("float", "int8"))
    network: str = setting(
        "small", "policy network: small (conv 16 8x8/4, conv 32 4x4/2, dense 256; default) or nature "
                 "(Mnih et al. 2015: conv 32 8x8/4, conv 64 4x4/2, conv 64 3x3/1, dense 512)",
        choices=("small", "nature"), after="ray_address")
    calibration_obs: int = setting(32, bound=100_000, note="int8: observations (random play) that set the shifts")
    video: bool = setting(True, "skip best.gif", flag="--no-video", after="network", resume=True)
    cluster: str = setting("local", "where episodes run", choices="clusters", resume=True)
    ray_address: str | None = setting(
        None, "with --cluster ray: the head of a cluster started with `ray start --head` (default: start an "
              "embedded local Ray with --workers CPUs)", metavar="HOST:PORT", resume=True)


    def effective_sigma(self) -> float:
        if self.sigma is not None:
            return self.sigma
        return 0.02 if self.algo == "es" else 0.002

    def validate(self) -> None:
        """Raises UserError naming the first bad value."""
        if self.game is not None and (not isinstance(self.game, str) or not self.game):   # None: --rom's
            raise UserError(f"--game must be a game name, got {self.game!r}")
        if self.rom is not None and (not isinstance(self.rom, str) or not self.rom):
            raise UserError(f"--rom must be a file path, got {self.rom!r}")
        from nc2600.host.launcher.evaluation import check_backend, check_cluster
        check_backend(self)             # the registry's rules: name, settings it needs, clusters
        if self.policy not in ("float", "int8"):
            raise UserError(f"--policy must be float or int8, got {self.policy!r}")
        check_cluster(self)
        if self.ray_address is not None and self.cluster != "ray":
            raise UserError("--ray-address needs --cluster ray")
        from nc2600.hls_models.networks import NETWORKS
        if self.network not in NETWORKS:
            raise UserError(f"--network must be one of {', '.join(NETWORKS)}, got {self.network!r}")
        if self.algo not in ("ga", "es", "rs"):
            raise UserError(f"--algo must be ga, es or rs, got {self.algo!r}")
        for name, hi in LIMITS.items():
            value = getattr(self, name)
            if name == "max_frames" and value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= hi:
                raise UserError(f"--{name.replace('_', '-')} must be an integer in [1, {hi:,}], got {value!r}")
        if self.population < 2:
            raise UserError("--population must be at least 2")
        if self.algo != "es":
            # random search draws fresh individuals: it has no parents, so no truncation to check
            for name in ("truncation", "elite_candidates") if self.algo == "ga" else ("elite_candidates",):
                if getattr(self, name) > self.population:
                    raise UserError(f"--{name.replace('_', '-')} ({getattr(self, name)}) must be at most "
                                    f"the population ({self.population})")
        for name in ("sticky", "es_lr", "es_l2") + (() if self.sigma is None else ("sigma",)):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not np.isfinite(value):
                raise UserError(f"--{name.replace('_', '-')} must be a finite number, got {value!r}")
        if not SIGMA_MIN <= self.effective_sigma() <= SIGMA_MAX:
            raise UserError(f"--sigma must be in [{SIGMA_MIN:g}, {SIGMA_MAX:g}] (float32's smallest normal "
                            f"number and up), got {self.sigma}")
        if not 0 <= self.es_l2 <= ES_L2_MAX:
            raise UserError(f"--es-l2 must be in [0, {ES_L2_MAX:g}], got {self.es_l2}")
        if not 0 < self.es_lr <= ES_LR_MAX:
            raise UserError(f"--es-lr must be in (0, {ES_LR_MAX:g}], got {self.es_lr}")
        if not isinstance(self.seed, int) or not 0 <= self.seed <= SEED_MAX:
            raise UserError(f"--seed must be an integer in [0, {SEED_MAX}], got {self.seed!r}")
        if self.algo == "es" and self.population % 2:
            raise UserError("--population must be even for ES (antithetic pairs)")
        if not 0.0 <= self.sticky <= 1.0:
            raise UserError(f"--sticky must be a probability in [0, 1], got {self.sticky}")
        if self.episode_frames <= 30 + self.frame_skip:
            raise UserError(f"--episode-frames must exceed the no-op start (up to 30 frames) plus one "
                            f"frame-skip period ({self.frame_skip}), got {self.episode_frames}")
        from nc2600.hls_models.networks import n_params
        if self.noise_table_size < n_params(self.network, 18):
            raise UserError(f"--noise-table-size must be at least the network size ({n_params(self.network, 18)}, "
                            f"{self.network} network), got {self.noise_table_size}")

    def memory_bytes(self) -> dict[str, int]:
        """Estimated peak memory of the run by part (bytes; the network of 18 actions, the
        largest): the noise table (float32), the GA's parameters (current and next generation,
        float32), the evaluator's weight tables (one network per slot, in the workers, float32 or
        int8), the slots' 4 x 84 x 84 observations (in the workers) and the worker
        processes (about 40 MiB each measured, plus 1 MiB per ALE instance, 0.9 measured); with
        the embedded Ray (``--cluster ray`` without ``--ray-address``) also its node actor's own
        noise table and genome cache. The noise table is drawn into its array in place
        (:class:`nc2600.host.launcher.noise.NoiseTable`): its peak is the table itself."""
        from nc2600.hls_models.networks import n_params
        n = n_params(self.network, 18)
        slots = self.workers * self.envs_per_block
        per_slot = n * (1 if self.policy == "int8" else 4)
        parts = {"noise table": 4 * self.noise_table_size,
                 "population parameters": 0 if self.algo == "es" else 2 * 4 * n * self.population,
                 "evaluator weights": 2 * slots * per_slot,
                 "slot observations": 2 * slots * (4 * 84 * 84 + 64),
                 "worker processes": self.workers * (40 << 20) + 2 * slots * (1 << 20)}
        if self.cluster == "ray" and self.ray_address is None:
            # the embedded Ray's node actor runs on this machine too: its own noise table and
            # genome cache (nc2600.host.launcher.noise.GenomeBuilder, at most GENOME_CACHE_BYTES)
            from nc2600.host.launcher.noise import GENOME_CACHE_BYTES
            parts["node actor's noise table and genome cache"] = (
                (0 if self.algo == "rs" else 4 * self.noise_table_size) + GENOME_CACHE_BYTES)
        return parts

    def check_memory(self) -> None:
        """UserError naming the settings when :meth:`memory_bytes` exceeds the memory available,
        or the worker processes the machine's cores or process limit
        (:func:`nc2600.host.resources.require_processes`)."""
        from nc2600.host.resources import require_processes
        require_processes(self.workers, f"--workers {self.workers}")
        parts = self.memory_bytes()
        biggest = max(parts, key=parts.get)
        require_memory(sum(parts.values()),
                       f"this run (population {self.population:,}, noise table {self.noise_table_size:,}, "
                       f"{self.workers:,} workers x {self.envs_per_block:,} x 2 instances; "
                       f"largest part: {biggest}, {human_bytes(parts[biggest])})")


def check_applies(cfg: RunConfig, given) -> None:
    """UserError (one line) for the first option in ``given`` (field names of the options the
    user gave) that ``cfg`` does not use: a field whose ``applies`` metadata names other values
    of the settings it depends on (``--truncation`` with ``--algo es``), e.g.
    ``--truncation applies to --algo ga only (this run: --algo es)``."""
    for f in fields(RunConfig):
        rule = f.metadata["applies"]
        if f.name not in given or not rule:
            continue
        for key, values in rule.items():
            if getattr(cfg, key) not in values:
                option = f.metadata["flag"] or "--" + f.name.replace("_", "-")
                where = " or ".join(f"--{key.replace('_', '-')} {v}" for v in values)
                raise UserError(f"{option} applies to {where} only (this run: --{key.replace('_', '-')} "
                                f"{getattr(cfg, key)})")


#: the largest config.json read back (a run's settings and its resume history: a few KiB)
CONFIG_MAX_BYTES = 16 << 20

#: largest accepted values of the run's size settings (the memory check comes on top)
LIMITS = {f.name: f.metadata["bound"] for f in fields(RunConfig) if f.metadata["bound"] is not None}

#: settings that may differ on ``--resume`` (they do not change the results)
RESUME_MUTABLE = tuple(f.name for f in fields(RunConfig) if f.metadata["resume"])
