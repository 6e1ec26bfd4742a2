"""Genome reconstruction, truncation selection, elite choice and ES ranks on hand-worked cases."""
import numpy as np
import pytest

from nc2600.host.launcher.algorithms import (DeepGA, OpenAIES, RandomSearch, centered_ranks, select_elite,
                                             truncation_order)
from nc2600.host.launcher.noise import NoiseTable, genome_params
from nc2600.host.episodes.policy import init_params, n_params

A = 4


@pytest.fixture(scope="module")
def noise():
    return NoiseTable(size=1 << 21, seed=5)


def test_noise_slice_is_table_slice(noise):
    n = n_params(A)
    j = 123456789 % (noise.size - n + 1)
    np.testing.assert_array_equal(noise.get(123456789, n), noise.table[j:j + n])
    ref = np.random.default_rng(5).standard_normal(1 << 21, dtype=np.float32)
    np.testing.assert_array_equal(noise.table, ref)


def test_seed_genome_reconstruction_is_bit_identical(noise):
    sigma = 0.002
    theta = init_params(11, A)
    seeds = [11, 5, 99, 123456, 2**31 - 2]
    for s in seeds[1:]:
        theta = theta + np.float32(sigma) * noise.get(s, theta.size)   # incremental, by hand
    np.testing.assert_array_equal(genome_params(seeds, A, sigma, noise), theta)


def test_ga_population_params_match_their_genomes(noise):
    rng = np.random.default_rng(3)
    ga = DeepGA(population=6, truncation=2, sigma=0.01, elite_candidates=2, elite_episodes=2,
                n_actions=A, noise=noise, rng=rng)
    fit = np.array([5.0, 1.0, 7.0, 7.0, 0.0, 2.0])
    ga.generation_step(lambda pf, n, e, kind: np.tile(fit[:n, None], (1, e)) if kind == "train"
                       else np.array([[1.0, 1.0], [3.0, 1.0]]))
    for g, p in zip(ga.genomes, ga.params):
        np.testing.assert_array_equal(genome_params(g, A, 0.01, noise), p)


def test_truncation_and_elite_hand_worked(noise):
    # fitness: individuals 2 and 3 tie at 7 (lower index first), then 0 at 5
    fit = np.array([5.0, 1.0, 7.0, 7.0, 0.0, 2.0])
    np.testing.assert_array_equal(truncation_order(fit), [2, 3, 0, 5, 1, 4])
    # candidates [2, 3]; candidate 3 has the higher mean over its elite episodes (2.0 vs 1.0)
    assert select_elite([2, 3], np.array([[1.0, 1.0], [3.0, 1.0]])) == 3
    assert select_elite([2, 3], np.array([[2.0, 2.0], [3.0, 1.0]])) == 2       # tie -> first
    rng = np.random.default_rng(3)
    ga = DeepGA(population=6, truncation=2, sigma=0.01, elite_candidates=2, elite_episodes=2,
                n_actions=A, noise=noise, rng=rng)
    before = [list(g) for g in ga.genomes]
    seen_kinds = []

    def evaluate(params_for, n, episodes, kind):
        seen_kinds.append((kind, n, episodes))
        if kind == "train":
            return fit[:, None].copy()
        return np.array([[1.0, 1.0], [3.0, 1.0]])

    stats = ga.generation_step(evaluate)
    assert seen_kinds == [("train", 6, 1), ("elite", 2, 2)]
    assert stats.best == 7.0 and stats.elite_index == 3 and stats.elite_score == 2.0
    assert stats.median == 3.5 and stats.mean == pytest.approx(22 / 6)
    assert ga.genomes[0] == before[3]                                  # elite kept unchanged
    for g in ga.genomes[1:]:                                           # children of the top 2 only
        assert len(g) == 2 and g[:1] in (before[2], before[3])
    # second generation: the previous elite (index 0) joins the candidates
    kinds = []

    def evaluate2(params_for, n, episodes, kind):
        kinds.append((kind, n))
        if kind == "train":
            return np.array([[0.0], [9.0], [8.0], [1.0], [1.0], [1.0]])
        return np.array([[1.0, 1.0], [0.0, 0.0], [4.0, 4.0]])          # candidates 1, 2, then 0

    stats = ga.generation_step(evaluate2)
    assert kinds == [("train", 6), ("elite", 3)]
    assert stats.elite_index == 0 and ga.genomes[0] == before[3]


def test_random_search_children_are_fresh(noise):
    rs = RandomSearch(population=4, truncation=2, sigma=0.01, elite_candidates=1, elite_episodes=1,
                      n_actions=A, noise=noise, rng=np.random.default_rng(0))
    rs.generation_step(lambda pf, n, e, kind: np.arange(n, dtype=float)[:, None] if kind == "train"
                       else np.ones((n, e)))
    assert all(len(g) == 1 for g in rs.genomes)
    np.testing.assert_array_equal(rs.params[2], init_params(rs.genomes[2][0], A))


def test_centered_ranks_hand_worked():
    np.testing.assert_allclose(centered_ranks([10.0, -3.0, 4.0, 4.0, 100.0]), [0.25, -0.5, -0.25, 0.0, 0.5])


def test_es_step_matches_numpy_reference(noise):
    rng = np.random.default_rng(8)
    es = OpenAIES(population=4, sigma=0.1, lr=0.01, l2=0.005, elite_episodes=1, n_actions=A,
                  noise=noise, rng=rng)
    theta0 = es.theta.copy()
    seeds_rng = np.random.default_rng(8)
    seeds_rng.integers(2**31 - 1)                      # the draw that initialised theta
    seeds = seeds_rng.integers(2**31 - 1, size=2)
    fitness = np.array([1.0, 3.0, 2.0, 0.0])            # (+eps0, -eps0, +eps1, -eps1)
    captured = {}

    def evaluate(params_for, n, episodes, kind):
        if kind == "train":
            captured["p1"] = params_for(1)
            return fitness[:, None]
        return np.zeros((1, episodes))

    es.generation_step(evaluate)
    e0, e1 = (noise.get(int(s), theta0.size).astype(np.float64) for s in seeds)
    np.testing.assert_allclose(captured["p1"], theta0 - np.float32(0.1) * e0.astype(np.float32), rtol=0, atol=0)
    ranks = np.array([-1 / 6, 0.5, 1 / 6, -0.5])        # ranks of 1, 3, 2, 0 scaled to [-0.5, 0.5]
    grad = ((ranks[0] - ranks[1]) * e0 + (ranks[2] - ranks[3]) * e1) / (4 * 0.1) - 0.005 * theta0
    m = 0.1 * grad
    v = 0.001 * grad * grad
    step = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9) * m / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(es.theta, theta0 + step, rtol=1e-5, atol=1e-6)
