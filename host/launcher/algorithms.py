"""Search algorithms: deep GA (Such et al. 2017), OpenAI-ES (Salimans et al. 2017), random search.

Each algorithm runs one generation per :meth:`generation` call and asks the caller to
evaluate parameter vectors through ``evaluate(params_for, n, episodes, kind) -> (n, episodes)``
returns. All randomness comes from one ``numpy.random.Generator`` owned by the run (its
state is checkpointed), so the same seed and settings give the same fitness values.

Deep GA, Such et al. (2017), Algorithm 1:
  1. evaluate the N individuals, one episode each (fitness = raw episode return);
  2. sort by fitness (ties: lower index first); the top T are the parents (truncation);
  3. elite: the top C individuals, plus the previous elite (always individual 0 after the
     first generation), are re-evaluated on E more episodes; the highest mean becomes the elite;
  4. next generation: the elite unchanged, then N-1 children, each a uniformly chosen parent
     plus one Gaussian mutation of power sigma (a new seed appended to its genome); no crossover.

Random search: the same elite bookkeeping, but every non-elite individual of a generation is
a fresh random initialisation (genome of one seed); the elite is the best found so far.

OpenAI-ES: centre theta; N/2 antithetic pairs theta +- sigma*eps_j evaluated on the same
episode seed per pair; fitness shaped by centred ranks in [-0.5, 0.5]; gradient
``g = sum_j (r+_j - r-_j) eps_j / (N sigma) - l2 * theta``; Adam ascent step (Kingma & Ba 2015).
The centre is evaluated on E episodes each generation ("elite" records).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from nc2600.host.launcher.noise import NoiseTable, genome_params, mutate
from nc2600.host.episodes.policy import init_network_params, n_params

SEED_LIMIT = 2**31 - 1

EvaluateFn = Callable[[Callable[[int], np.ndarray], int, int, str], np.ndarray]


@dataclass
class GenerationStats:
    """One generation's figures, as logged in ``log.jsonl`` (fitness = raw return)."""
    best: float
    mean: float
    median: float
    elite_score: float
    elite_index: int


def centered_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks of ``x`` scaled to [-0.5, 0.5] (Salimans et al. 2017); ties by position."""
    x = np.asarray(x, np.float64).ravel()
    ranks = np.empty(x.size, np.float64)
    ranks[np.argsort(x, kind="stable")] = np.arange(x.size)
    if x.size == 1:
        return np.zeros(1)
    return ranks / (x.size - 1) - 0.5


def truncation_order(fitness: np.ndarray) -> np.ndarray:
    """Indices sorted by decreasing fitness, ties to the lower index (stable)."""
    return np.argsort(-np.asarray(fitness, np.float64), kind="stable")


def select_elite(candidates: list[int], scores: np.ndarray) -> int:
    """The candidate with the highest mean score (first one on ties). ``scores``: (C, E)."""
    means = np.asarray(scores, np.float64).mean(axis=1)
    return candidates[int(np.argmax(means))]


class SeedListIndividuals:
    """``params_for`` of a GA/RS generation that also names each individual's seed-list genome,
    so that a remote evaluator can ship the genome (a few hundred bytes) instead of the vector
    (:mod:`nc2600.host.cluster.ray_evaluator`). ``self(i)`` is individual ``order[i]``'s parameter vector,
    :meth:`genome` its seed list; both describe the same parameters (:func:`nc2600.host.launcher.noise.genome_params`
    rebuilds the vector bit for bit)."""

    def __init__(self, params: np.ndarray, genomes: list[list[int]], order: list[int] | None = None):
        self.params, self.genomes, self.order = params, genomes, order

    def _index(self, i: int) -> int:
        return i if self.order is None else self.order[i]

    def __call__(self, i: int) -> np.ndarray:
        return self.params[self._index(i)]

    def genome(self, i: int) -> list[int]:
        return self.genomes[self._index(i)]


class ESIndividuals:
    """``params_for`` of an OpenAI-ES generation that also names each individual as a
    perturbation of the centre, so that a remote evaluator can ship the centre once and
    ``(seed, sign)`` per individual (:mod:`nc2600.host.cluster.ray_evaluator`): individual ``i`` is
    ``theta + sign * float32(sigma) * eps(seeds[i // 2])`` with ``sign = +1`` for even ``i``."""

    def __init__(self, theta: np.ndarray, seeds: list[int], sigma: float, noise: NoiseTable):
        self.centre, self.seeds, self.sigma, self.noise = theta, seeds, np.float32(sigma), noise

    def perturbation(self, i: int) -> tuple[int, int]:
        """``(noise seed, sign)`` of individual ``i``."""
        return self.seeds[i // 2], (1 if i % 2 == 0 else -1)

    def __call__(self, i: int) -> np.ndarray:
        seed, sign = self.perturbation(i)
        return es_individual(self.centre, seed, sign, self.sigma, self.noise)


def es_individual(theta: np.ndarray, seed: int, sign: int, sigma, noise: NoiseTable) -> np.ndarray:
    """``theta + sigma * eps(seed)`` (``sign`` +1) or ``theta - sigma * eps(seed)`` (-1), float32:
    the same operations on the driver and on a node, hence the same bits."""
    eps = noise.get(seed, theta.size)
    sigma = np.float32(sigma)
    return theta + sigma * eps if sign > 0 else theta - sigma * eps


class DeepGA:
    """Deep GA with seed-list genomes (see module doc).

    Args:
        population: N >= 2. truncation: T parents (1 <= T <= N). sigma: mutation power.
        elite_candidates: C. elite_episodes: E. n_actions: network outputs.
        noise: the shared :class:`NoiseTable`. rng: the run's generator.
    """
    name = "ga"

    def __init__(self, population: int, truncation: int, sigma: float, elite_candidates: int,
                 elite_episodes: int, n_actions: int, noise: NoiseTable, rng: np.random.Generator,
                 network: str = "small"):
        self.network = network
        self.population, self.truncation, self.sigma = population, min(truncation, population), sigma
        self.elite_candidates, self.elite_episodes = min(elite_candidates, population), elite_episodes
        self.n_actions, self.noise, self.rng = n_actions, noise, rng
        self.generation = 0
        self.genomes: list[list[int]] = [[int(s)] for s in rng.integers(SEED_LIMIT, size=population)]
        self.params = np.stack([init_network_params(g[0], n_actions, network) for g in self.genomes])
        self.elite: list[int] | None = None
        self.elite_score = float("nan")

    # -- one generation ------------------------------------------------------------
    def generation_step(self, evaluate: EvaluateFn) -> GenerationStats:
        params, genomes = self.params, self.genomes
        fitness = evaluate(SeedListIndividuals(params, genomes), self.population, 1, "train")[:, 0]
        order = truncation_order(fitness)
        candidates = [int(i) for i in order[:self.elite_candidates]]
        if self.elite is not None and 0 not in candidates:
            candidates.append(0)      # the previous elite is always individual 0
        scores = evaluate(SeedListIndividuals(params, genomes, candidates), len(candidates), self.elite_episodes,
                          "elite")
        elite = select_elite(candidates, scores)
        self.elite = list(self.genomes[elite])
        self.elite_score = float(scores[candidates.index(elite)].mean())
        self._reproduce(order, elite)
        self.generation += 1
        return GenerationStats(float(fitness.max()), float(fitness.mean()), float(np.median(fitness)),
                               self.elite_score, elite)

    def _reproduce(self, order: np.ndarray, elite: int) -> None:
        parents = order[:self.truncation]
        new = np.empty_like(self.params)
        genomes = [list(self.genomes[elite])]
        new[0] = self.params[elite]
        for i in range(1, self.population):
            p = int(parents[self.rng.integers(len(parents))])
            seed = int(self.rng.integers(SEED_LIMIT))
            genomes.append(self.genomes[p] + [seed])
            mutate(self.params[p], seed, self.sigma, self.noise, out=new[i])
        self.genomes, self.params = genomes, new

    # -- outputs and checkpoints ------------------------------------------------------
    def best_params(self) -> np.ndarray:
        """Parameters of the current elite (individual 0 of the next generation)."""
        return self.params[0]

    def best_genome(self) -> dict:
        return {"kind": "seed_list", "seeds": self.elite, "sigma": self.sigma,
                "noise_table": {"size": self.noise.size, "seed": self.noise.seed}}

    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        return ({"generation": self.generation, "genomes": self.genomes, "elite": self.elite,
                 "elite_score": self.elite_score}, {})

    def load_state(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        """Restore from :meth:`state`; parameters are rebuilt from the seed lists."""
        self.generation = int(meta["generation"])
        self.genomes = [list(map(int, g)) for g in meta["genomes"]]
        self.elite = None if meta["elite"] is None else list(map(int, meta["elite"]))
        self.elite_score = float(meta["elite_score"])
        self.params = np.stack([genome_params(g, self.n_actions, self.sigma, self.noise, self.network)
                                for g in self.genomes])


class RandomSearch(DeepGA):
    """Random search with the GA's elite bookkeeping: new individuals are fresh initialisations."""
    name = "rs"

    def _reproduce(self, order: np.ndarray, elite: int) -> None:
        genomes = [list(self.genomes[elite])]
        new = np.empty_like(self.params)
        new[0] = self.params[elite]
        for i in range(1, self.population):
            seed = int(self.rng.integers(SEED_LIMIT))
            genomes.append([seed])
            new[i] = init_network_params(seed, self.n_actions, self.network)
        self.genomes, self.params = genomes, new


class OpenAIES:
    """OpenAI-ES with antithetic sampling, centred ranks and Adam (see module doc).

    Args:
        population: N (even, >= 2). sigma: noise standard deviation. lr: Adam step size.
        l2: weight decay coefficient. elite_episodes: episodes for the centre's score.
    """
    name = "es"

    def __init__(self, population: int, sigma: float, lr: float, l2: float, elite_episodes: int,
                 n_actions: int, noise: NoiseTable, rng: np.random.Generator,
                 beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8, network: str = "small"):
        self.network = network
        if population < 2 or population % 2:
            raise ValueError(f"ES population must be even and >= 2, got {population}")
        self.population, self.sigma, self.lr, self.l2 = population, sigma, lr, l2
        self.elite_episodes, self.n_actions, self.noise, self.rng = elite_episodes, n_actions, noise, rng
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.generation = 0
        self.theta = init_network_params(int(rng.integers(SEED_LIMIT)), n_actions, network)
        self.m = np.zeros_like(self.theta)
        self.v = np.zeros_like(self.theta)
        self.t = 0
        self.elite_score = float("nan")

    def generation_step(self, evaluate: EvaluateFn) -> GenerationStats:
        half = self.population // 2
        seeds = [int(s) for s in self.rng.integers(SEED_LIMIT, size=half)]
        theta = self.theta
        params_for = ESIndividuals(theta, seeds, self.sigma, self.noise)
        fitness = evaluate(params_for, self.population, 1, "train")[:, 0]
        ranks = centered_ranks(fitness).reshape(half, 2)
        weights = ranks[:, 0] - ranks[:, 1]
        grad = np.zeros(theta.size, np.float64)
        for w, s in zip(weights, seeds):
            grad += w * self.noise.get(s, theta.size)
        grad = grad / (self.population * self.sigma) - self.l2 * theta
        self.t += 1
        self.m = (self.beta1 * self.m + (1 - self.beta1) * grad).astype(np.float32)
        self.v = (self.beta2 * self.v + (1 - self.beta2) * grad * grad).astype(np.float32)
        a = self.lr * np.sqrt(1 - self.beta2 ** self.t) / (1 - self.beta1 ** self.t)
        self.theta = (theta + a * self.m / (np.sqrt(self.v) + self.eps)).astype(np.float32)
        centre = self.theta
        scores = evaluate(lambda i: centre, 1, self.elite_episodes, "elite")
        self.elite_score = float(scores.mean())
        self.generation += 1
        return GenerationStats(float(fitness.max()), float(fitness.mean()), float(np.median(fitness)),
                               self.elite_score, -1)

    def best_params(self) -> np.ndarray:
        return self.theta

    def best_genome(self) -> dict:
        return {"kind": "es_centre", "params_file": "best_params.npy"}

    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        return ({"generation": self.generation, "t": self.t, "elite_score": self.elite_score},
                {"theta": self.theta, "m": self.m, "v": self.v})

    def load_state(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        self.generation, self.t = int(meta["generation"]), int(meta["t"])
        self.elite_score = float(meta["elite_score"])
        self.theta, self.m, self.v = (np.array(arrays[k], np.float32) for k in ("theta", "m", "v"))


def parameter_count(n_actions: int) -> int:
    """Network size for the run's action count (re-exported for reports)."""
    return n_params(n_actions)
