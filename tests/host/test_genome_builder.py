"""Seed-list genomes rebuilt on a node (:class:`nc2600.host.launcher.noise.GenomeBuilder`) equal the driver's
parameter vectors bit for bit. Oracle: the GA's own incrementally mutated vectors
(:class:`nc2600.host.launcher.algorithms.DeepGA`) and :func:`nc2600.host.launcher.noise.genome_params` from scratch."""
import numpy as np

from nc2600.host.launcher.algorithms import DeepGA, SeedListIndividuals
from nc2600.host.launcher.noise import GenomeBuilder, NoiseTable, genome_params
from nc2600.host.episodes.policy import n_params


def test_rebuilt_genomes_equal_the_ga_vectors_with_any_cache():
    n_actions, sigma, size, seed = 4, 0.005, 1 << 22, 9
    noise = NoiseTable(size, seed)
    ga = DeepGA(10, 3, sigma, 2, 1, n_actions, noise, np.random.default_rng(5))
    rng = np.random.default_rng(1)
    nbytes = 4 * n_params(n_actions)
    # a cache of one vector (rebuilds from phi(s0) or the parent), and one of 40
    builders = [GenomeBuilder(n_actions, sigma, size, seed, cache_bytes=nbytes),
                GenomeBuilder(n_actions, sigma, size, seed, cache_bytes=40 * nbytes)]
    for _ in range(4):
        ga.generation_step(lambda params_for, n, episodes, kind: rng.normal(size=(n, episodes)))
        ind = SeedListIndividuals(ga.params, ga.genomes)
        for i in range(ga.population):
            assert len(ind.genome(i)) >= 1
            for b in builders:
                assert np.array_equal(b.params(ind.genome(i)), ind(i)), i
    assert len(ga.genomes[-1]) == 5
    g = ga.genomes[-1]
    assert np.array_equal(builders[0].params(g), genome_params(g, n_actions, sigma, noise))
    # the larger cache rebuilt each child from its parent: one mutation per new individual
    assert builders[1].mutations < builders[0].mutations


def test_subset_order_names_the_same_individual():
    params = np.arange(12, dtype=np.float32).reshape(3, 4)
    ind = SeedListIndividuals(params, [[1], [2, 3], [4, 5, 6]], [2, 0])
    assert ind.genome(0) == [4, 5, 6] and np.array_equal(ind(0), params[2])
    assert ind.genome(1) == [1] and np.array_equal(ind(1), params[0])
