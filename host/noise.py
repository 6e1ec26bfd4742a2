"""The shared Gaussian noise table and seed-list genomes (Such et al. 2017, Sec. 3).

A genome is a list of integer seeds ``[s0, s1, ..., sg]``. ``s0`` picks the initial
parameters ``theta_0 = phi(s0)`` (:func:`host.policy.init_params`); every later seed
``s`` names a slice of one shared table of standard normal noise,
``eps(s) = table[j : j + n]`` with ``j = s mod (len(table) - n + 1)``, and

    theta_k = theta_{k-1} + sigma * eps(s_k)          (float32, in this order)

so a child is its parent plus one mutation. Reconstructing from the seed list performs
exactly the same float32 operations as incremental mutation, hence gives bit-identical
parameters (checked by a test).
"""
from __future__ import annotations

import numpy as np

from host.policy import init_network_params

DEFAULT_TABLE_SIZE = 1 << 25   #: 33,554,432 float32 entries (128 MiB)
DEFAULT_TABLE_SEED = 123       #: the table is the same in every run with this seed


class NoiseTable:
    """``size`` float32 standard normals drawn from ``numpy.random.default_rng(seed)``.

    Raises:
        ValueError: ``size`` not positive.
    """

    def __init__(self, size: int = DEFAULT_TABLE_SIZE, seed: int = DEFAULT_TABLE_SEED):
        if size <= 0:
            raise ValueError(f"noise table size must be positive, got {size}")
        self.size, self.seed = int(size), int(seed)
        self.table = np.random.default_rng(self.seed).standard_normal(self.size, dtype=np.float32)

    def offset(self, seed: int, n: int) -> int:
        """Start index of the slice for ``seed`` (length ``n``).

        Raises:
            ValueError: the table is shorter than ``n``.
        """
        if n > self.size:
            raise ValueError(f"noise table ({self.size}) shorter than the parameter vector ({n})")
        return int(seed) % (self.size - n + 1)

    def get(self, seed: int, n: int) -> np.ndarray:
        """``eps(seed)``: a read-only ``(n,)`` float32 view into the table."""
        j = self.offset(seed, n)
        return self.table[j:j + n]


def mutate(parent: np.ndarray, seed: int, sigma: float, noise: NoiseTable,
           out: np.ndarray | None = None) -> np.ndarray:
    """``parent + sigma * eps(seed)`` in float32 (``out`` may be given to avoid a copy)."""
    step = np.float32(sigma) * noise.get(seed, parent.shape[-1])
    return np.add(parent, step, out=out)


def genome_params(genome: list[int], n_actions: int, sigma: float, noise: NoiseTable,
                  network: str = "small") -> np.ndarray:
    """Parameters of a seed-list genome of ``network`` (:mod:`hls_models.networks`),
    ``(n_params,)`` float32 (see module doc)."""
    theta = init_network_params(genome[0], n_actions, network)
    for seed in genome[1:]:
        theta = mutate(theta, seed, sigma, noise)
    return theta
