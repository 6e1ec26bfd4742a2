"""The evaluations a GA run asks of the fabric: who plays which episode for how long.

An **evaluation** is one episode of one individual: the key
``(generation, kind, individual, episode)`` with ``kind`` in ``train`` (the generation's
population), ``elite`` (re-evaluation of the elite candidates) and ``test`` (the final elite).
Evaluations come in **phases** separated by a barrier in the generational schedules: a
generation's ``train`` phase, then its ``elite`` phase (which needs the ranking of ``train``);
``test`` phases last.

Sources:

* a run directory of the launcher (``nc2600 run``): ``episodes.jsonl`` with one record per
  evaluated episode ``{"generation", "individual", "episode", "kind", "frames", "steps",
  "return", "reset_frames"}`` and ``config.json`` (``game``, ``population``, ``frame_skip``,
  ``episode_frames``); the very episode lengths of that run are replayed;
* a distribution (:class:`EpisodeDistribution`), default ``lognormal:2500:0.8``: policy steps
  drawn from a log-normal with median 2500 steps and sigma 0.8, cut at the Such et al.
  training cap of 5000 steps (20,000 frames); no-op starts of 1..30 frames. This is an
  assumption standing in for "a mix of games and of good and bad individuals": about 19 %
  of episodes reach the cap, the mean is about 2,780 policy steps (about 11,100 frames).
  With it the published configuration lands at the published *sustained* rate (about
  0.56 M frames/s); with every episode at the cap it lands at the *headline* 1.2 M
  (see ``mesh_sim/CALIBRATION.md``).
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field

import numpy as np

from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.platform import FRAME_SKIP

KINDS = ("train", "elite", "test")


#: the largest step, frame or index count accepted (an int64 and a float64 hold it exactly)
STEPS_MAX = 2**53


@dataclass(frozen=True)
class EpisodeDistribution:
    """Distribution of an episode's policy steps (before the cap).

    ``spec`` forms: ``fixed:STEPS``, ``uniform:LO:HI`` (inclusive; the step counts whole numbers,
    1 to 2**53), ``lognormal:MEDIAN:SIGMA`` (median > 0 and sigma >= 0, any finite numbers).
    ``noop_max``: no-op start *frames* uniform in ``1..noop_max`` (0: none), as the launcher
    does them (``host/episodes/env.py``: 1..30 NOOP frames after the start state).
    """

    spec: str = "lognormal:2500:0.8"
    noop_max: int = 30

    def __post_init__(self):
        self.parse()

    def parse(self) -> tuple[str, tuple[float, ...]]:
        """``(name, parameters)``; raises ``ValueError`` on a malformed spec."""
        parts = self.spec.split(":")
        name, args = parts[0], parts[1:]
        want = {"fixed": 1, "uniform": 2, "lognormal": 2}
        if name not in want or len(args) != want[name]:
            raise ValueError(f"episode distribution must be fixed:N, uniform:LO:HI or "
                             f"lognormal:MEDIAN:SIGMA, got {self.spec!r}")
        from fractions import Fraction
        try:
            # read exactly (ASCII only): as a float, 9007199254740993 (2**53 + 1) rounds to 2**53
            # and would pass the range check below; the checks compare the exact values
            if not all(a.isascii() for a in args):
                raise ValueError(self.spec)
            exact = tuple(Fraction(a) for a in args)
            vals = tuple(float(v) if abs(v) <= 1 << 1000 else math.inf for v in exact)
        except (ValueError, OverflowError, ZeroDivisionError):
            raise ValueError(f"episode distribution has a non-number: {self.spec!r}") from None
        if any(not math.isfinite(v) or v < 0 for v in vals) or (name != "lognormal" and vals[0] < 1) \
                or (name == "uniform" and vals[1] < vals[0]) or (name == "lognormal" and vals[0] <= 0):
            raise ValueError(f"episode distribution out of range: {self.spec!r}")
        if any(v > STEPS_MAX for v in exact):       # an int64 draw; the cap clips longer episodes anyway
            raise ValueError(f"episode distribution out of range: {self.spec!r} (each number at most 2**53)")
        if name != "lognormal" and not all(v.denominator == 1 for v in exact):
            raise ValueError(f"episode distribution: {name}'s step counts must be whole numbers, got {self.spec!r}")
        if self.noop_max < 0:
            raise ValueError("noop_max must be >= 0")
        return name, vals

    def sample_steps(self, rng: np.random.Generator, n: int, cap_steps: int) -> np.ndarray:
        """``n`` policy-step counts, int64, each in ``1..cap_steps``."""
        name, v = self.parse()
        if name == "fixed":
            s = np.full(n, int(v[0]), dtype=np.int64)
        elif name == "uniform":
            s = rng.integers(int(v[0]), int(v[1]) + 1, size=n, dtype=np.int64)
        else:
            # clipped as floats: a long tail's exp() may overflow to inf (a capped episode), never
            # an int64 cast of an out-of-range float
            with np.errstate(over="ignore", under="ignore"):
                x = v[0] * np.exp(v[1] * rng.standard_normal(n))
            return np.clip(np.rint(x), 1, cap_steps).astype(np.int64)
        return np.clip(s, 1, cap_steps)

    def sample_noops(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` no-op start frame counts, int64, uniform in ``1..noop_max`` (zeros if 0)."""
        if self.noop_max == 0:
            return np.zeros(n, dtype=np.int64)
        return rng.integers(1, self.noop_max + 1, size=n, dtype=np.int64)


@dataclass
class Workload:
    """All evaluations of a run, as parallel numpy arrays indexed by evaluation id (eid).

    ``generation, individual, episode`` int64; ``kind`` int8 index into :data:`KINDS`;
    ``frames`` (counted frames, frame skip and no-op starts included), ``steps`` (policy
    decisions), ``reset_frames`` (no-op start frames as recorded) int64.
    ``phases``: list of int64 eid arrays, in execution order; ``phase_generation``: the
    generation of each phase. ``source``: a sentence saying where the lengths came from.
    ``frame_skip``, ``n_actions``, ``game``: run settings (``n_actions`` may be None).
    """

    generation: np.ndarray
    individual: np.ndarray
    episode: np.ndarray
    kind: np.ndarray
    frames: np.ndarray
    steps: np.ndarray
    reset_frames: np.ndarray
    phases: list[np.ndarray]
    phase_generation: list[int]
    source: str
    frame_skip: int = FRAME_SKIP
    n_actions: int | None = None
    game: str | None = None
    population: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def n_evaluations(self) -> int:
        return int(self.frames.shape[0])

    @property
    def n_generations(self) -> int:
        """GA generations: distinct generations with train or elite evaluations (a final
        test phase, which the launcher files under the next generation number, is not one)."""
        gens = {int(g) for g, k in zip(self.generation.tolist(), self.kind.tolist()) if k != 2}
        return max(1, len(gens))

    def key(self, eid: int) -> tuple[int, str, int, int]:
        """``(generation, kind, individual, episode)`` of evaluation ``eid``."""
        return (int(self.generation[eid]), KINDS[int(self.kind[eid])],
                int(self.individual[eid]), int(self.episode[eid]))


def _build(rows: list[tuple[int, int, int, int, int, int, int]], **kw) -> Workload:
    """rows: (generation, kind, individual, episode, frames, steps, reset_frames)."""
    arr = np.array(rows, dtype=np.int64).reshape(-1, 7)
    order = np.lexsort((arr[:, 3], arr[:, 2], arr[:, 1], arr[:, 0]))
    arr = arr[order]
    gen, kind = arr[:, 0], arr[:, 1]
    phases, phase_gen = [], []
    # generational order: per generation train then elite; test phases after everything
    for test_last in (False, True):
        for g in np.unique(gen):
            for k in ((2,) if test_last else (0, 1)):
                idx = np.nonzero((gen == g) & (kind == k))[0]
                if idx.size:
                    phases.append(idx.astype(np.int64))
                    phase_gen.append(int(g))
    return Workload(generation=gen.copy(), kind=kind.astype(np.int8), individual=arr[:, 2].copy(),
                    episode=arr[:, 3].copy(), frames=arr[:, 4].copy(), steps=arr[:, 5].copy(),
                    reset_frames=arr[:, 6].copy(), phases=phases, phase_generation=phase_gen, **kw)


def synthetic_workload(population: int = 1000, generations: int = 1, *, episodes_per_individual: int = 1,
                       elite_candidates: int = 10, elite_episodes: int = 30, test_episodes: int = 0,
                       frame_skip: int = FRAME_SKIP, episode_frames: int = 20_000,
                       distribution: EpisodeDistribution | None = None, seed: int = 0) -> Workload:
    """Evaluations of a Such et al. style GA with episode lengths drawn from a distribution.

    Per generation: ``population x episodes_per_individual`` train evaluations, then
    ``elite_candidates x elite_episodes`` elite re-evaluations (candidates drawn at random
    from the population: which ones does not change the timing). After the last generation,
    ``test_episodes`` of one individual. Frames of an episode = policy steps x ``frame_skip``
    + no-op start frames, the steps cut at ``episode_frames / frame_skip``.
    Deterministic for a given ``seed``.
    """
    if min(population, generations, episodes_per_individual, frame_skip, episode_frames) <= 0:
        raise ValueError("population, generations, episodes, frame skip and episode frames must be positive")
    if min(elite_candidates, elite_episodes, test_episodes) < 0:
        raise ValueError("elite candidates, elite episodes and test episodes must be >= 0")
    if elite_candidates > population:
        raise ValueError(f"{elite_candidates} elite candidates exceed the population of {population}")
    dist = distribution or EpisodeDistribution()
    rng = np.random.default_rng(seed)
    cap = max(1, episode_frames // frame_skip)
    rows = []

    def add(g, k, inds, n_ep):
        n = len(inds) * n_ep
        steps = dist.sample_steps(rng, n, cap)
        noops = dist.sample_noops(rng, n)
        i = 0
        for ind in inds:
            for e in range(n_ep):
                rows.append((g, k, int(ind), e, int(steps[i] * frame_skip + noops[i]), int(steps[i]),
                             int(noops[i])))
                i += 1

    for g in range(generations):
        add(g, 0, range(population), episodes_per_individual)
        if elite_candidates and elite_episodes:
            add(g, 1, sorted(rng.choice(population, elite_candidates, replace=False)), elite_episodes)
    if test_episodes:
        add(generations - 1, 2, [0], test_episodes)
    return _build(rows, source=f"distribution {dist.spec} steps, cap {cap} steps, no-op starts 1..{dist.noop_max} "
                               f"frames, seed {seed}",
                  frame_skip=frame_skip, population=population)


def fixed_workload(frames: list[int] | np.ndarray, steps: list[int] | np.ndarray | None = None,
                   reset_frames: int = 0, generation: int = 0) -> Workload:
    """One train phase of evaluations with the given frame (and step) counts (for tests)."""
    frames = list(frames)
    steps = list(steps) if steps is not None else [0] * len(frames)
    rows = [(generation, 0, i, 0, int(f), int(s), reset_frames) for i, (f, s) in enumerate(zip(frames, steps))]
    return _build(rows, source="fixed lengths", population=len(frames))


def generations_workload(frames_per_generation: list[list[int]]) -> Workload:
    """One train phase per generation with the given frame counts, no steps, no no-op starts
    (for hand-worked cases): ``[[3000, 1000], [1000, 3000]]`` is two generations of two."""
    rows = [(g, 0, i, 0, int(f), 0, 0) for g, frames in enumerate(frames_per_generation)
            for i, f in enumerate(frames)]
    return _build(rows, source="fixed lengths", population=max(len(f) for f in frames_per_generation))


_REQUIRED = {"generation": int, "individual": int, "episode": int, "kind": str, "frames": int,
             "steps": int, "reset_frames": int}


#: the ranges of the run settings read from ``config.json`` (those of ``nc2600 run`` and
#: ``nc2600 mesh``): name -> (lowest, highest, accepted JSON types)
_CONFIG_RANGES = {"frame_skip": (1, 64, (int,)), "n_actions": (1, MAX_ACTIONS, (int,)),
                  "population": (0, STEPS_MAX, (int,)), "colour_clocks_per_frame": (1, 10**7, (int, float))}


def _config_value(config: dict, name: str, cfg_path: str):
    """``config[name]`` checked against :data:`_CONFIG_RANGES` (None when absent or null).

    Raises:
        ValueError: a value of another type (booleans included), not finite, or out of range.
    """
    v = config.get(name)
    if v is None:
        return None
    lo, hi, types = _CONFIG_RANGES[name]
    if isinstance(v, bool) or not isinstance(v, types) or not (math.isfinite(v) and lo <= v <= hi):
        kind = "an integer" if types == (int,) else "a number"
        raise ValueError(f"{cfg_path} is damaged: {name!r} is {v!r}, not {kind} in [{lo:,}, {hi:,}]")
    return v


#: the largest config.json read (the bound ``nc2600 run --resume`` and ``nc2600 play`` read it with,
#: ``nc2600.host.launcher.settings.CONFIG_MAX_BYTES``: a run's settings and resume history are a few KiB)
CONFIG_MAX_BYTES = 16 << 20
#: the longest line of episodes.jsonl read, characters: a record of the launcher is about 150
#: (eight fields, each count at most 2**53); the line is read at most this long, so a file with
#: no line breaks (binary garbage, a sparse file) cannot fill the memory
EPISODE_LINE_MAX = 64 << 10


def _open_regular(path: str):
    """``path`` opened for reading as text; a FIFO, a device or a folder there raises
    ``ValueError`` at once (opened non-blocking and checked with fstat: never a read that waits
    for a writer). A missing file raises FileNotFoundError."""
    import stat
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                    else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
            raise ValueError(f"{path} is {kind}; give a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def load_run(run_dir: str, generations: int | None = None) -> Workload:
    """Workload of a launcher run directory (``episodes.jsonl`` + ``config.json``).

    ``generations``: keep only the first N generations recorded (None: all).
    Raises ``ValueError`` (one line) when a file is missing, unreadable or malformed,
    when an evaluation key appears twice, or when a setting of ``config.json`` is of another
    type or out of range: ``frame_skip`` an integer in 1..64, ``n_actions`` one in 1..18 (ALE's
    full action set), ``population`` one >= 0, ``colour_clocks_per_frame`` a number in
    1..10,000,000 (``nc2600 mesh --colour-clocks-per-frame``'s range), ``network`` a string
    (null reads as absent).
    """
    ep_path = os.path.join(run_dir, "episodes.jsonl")
    cfg_path = os.path.join(run_dir, "config.json")
    if run_dir == "" or run_dir.isspace():
        raise ValueError("the run directory is empty; give --run DIR")
    if not os.path.isdir(run_dir):
        if os.path.exists(run_dir):
            raise ValueError(f"run directory {run_dir!r} is not a folder; give the folder of `nc2600 run`")
        raise ValueError(f"run directory {run_dir!r} does not exist")
    config: dict = {}
    if os.path.lexists(cfg_path):
        try:
            with _open_regular(cfg_path) as fh:
                data = fh.buffer.read(CONFIG_MAX_BYTES + 1)
            if len(data) > CONFIG_MAX_BYTES:
                raise ValueError(f"{cfg_path} is larger than {CONFIG_MAX_BYTES >> 20} MiB: not a run's config.json")
            config = json.loads(data.decode("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read {cfg_path}: {exc}") from None
        if not isinstance(config, dict):
            raise ValueError(f"{cfg_path} is not a JSON object")
        inner = config.get("config") if isinstance(config.get("config"), dict) else {}
        for key in ("game", "rom"):              # as `nc2600 play` and `run --resume` refuse them
            for where in (config, inner):
                if where.get(key) is not None and not isinstance(where[key], str):
                    raise ValueError(f"{cfg_path} is damaged: {key!r} is {where[key]!r}, not a string")
    rows, seen = [], set()
    try:
        with _open_regular(ep_path) as fh:
            for lineno, line in enumerate(iter(lambda: fh.readline(EPISODE_LINE_MAX + 1), ""), 1):
                if len(line) > EPISODE_LINE_MAX:
                    raise ValueError(f"{ep_path}:{lineno}: longer than {EPISODE_LINE_MAX:,} characters: "
                                     f"not an episode record")
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{ep_path}:{lineno}: not JSON ({exc.msg})") from None
                if not isinstance(rec, dict):
                    raise ValueError(f"{ep_path}:{lineno}: not a JSON object")
                for name, typ in _REQUIRED.items():
                    v = rec.get(name)
                    if name == "reset_frames" and v is None:
                        v = rec["reset_frames"] = 0
                    if not isinstance(v, typ) or isinstance(v, bool):
                        raise ValueError(f"{ep_path}:{lineno}: field {name!r} missing or not {typ.__name__}")
                if rec["kind"] not in KINDS:
                    raise ValueError(f"{ep_path}:{lineno}: kind {rec['kind']!r} not one of {', '.join(KINDS)}")
                counts = (rec["generation"], rec["individual"], rec["episode"], rec["frames"], rec["steps"],
                          rec["reset_frames"])
                if min(counts) < 0:
                    raise ValueError(f"{ep_path}:{lineno}: negative count")
                if max(counts) > STEPS_MAX:
                    big = next(k for k in ("generation", "individual", "episode", "frames", "steps",
                                           "reset_frames") if rec[k] > STEPS_MAX)
                    raise ValueError(f"{ep_path}:{lineno}: field {big!r} is larger than 2**53")
                key = (rec["generation"], rec["kind"], rec["individual"], rec["episode"])
                if key in seen:
                    raise ValueError(f"{ep_path}:{lineno}: evaluation {key} recorded twice")
                seen.add(key)
                if generations is not None and rec["generation"] >= generations:
                    continue
                rows.append((rec["generation"], KINDS.index(rec["kind"]), rec["individual"], rec["episode"],
                             rec["frames"], rec["steps"], rec["reset_frames"]))
    except FileNotFoundError:
        raise ValueError(f"{ep_path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {ep_path}: {exc}") from None
    if not rows:
        raise ValueError(f"{ep_path} holds no episode records")
    frame_skip = _config_value(config, "frame_skip", cfg_path)
    w = _build(rows, source=f"recorded episodes of {os.path.abspath(run_dir)}",
               frame_skip=FRAME_SKIP if frame_skip is None else frame_skip,
               n_actions=_config_value(config, "n_actions", cfg_path),
               game=config.get("game"), population=_config_value(config, "population", cfg_path) or 0)
    ccpf = _config_value(config, "colour_clocks_per_frame", cfg_path)
    if ccpf is not None:
        w.extra["colour_clocks_per_frame"] = ccpf
    network = config.get("network")
    if network is not None and not isinstance(network, str):
        raise ValueError(f"{cfg_path} is damaged: 'network' is {network!r}, not a string")
    if network not in (None, "small"):
        w.extra["network"] = network      # nc2600 run --network nature
    return w
