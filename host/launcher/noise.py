"""The shared Gaussian noise table and seed-list genomes (Such et al. 2017, Sec. 3).

A genome is a list of integer seeds ``[s0, s1, ..., sg]``. ``s0`` picks the initial
parameters ``theta_0 = phi(s0)`` (:func:`nc2600.host.episodes.policy.init_params`); every later seed
``s`` names a slice of one shared table of standard normal noise,
``eps(s) = table[j : j + n]`` with ``j = s mod (len(table) - n + 1)``, and

    theta_k = theta_{k-1} + sigma * eps(s_k)          (float32, in this order)

so a child is its parent plus one mutation. Reconstructing from the seed list performs
exactly the same float32 operations as incremental mutation, hence gives bit-identical
parameters (checked by a test).
"""
from __future__ import annotations

import numpy as np

from nc2600.host.episodes.policy import init_network_params

DEFAULT_TABLE_SIZE = 1 << 25   #: 33,554,432 float32 entries (128 MiB)
DEFAULT_TABLE_SEED = 123       #: the table is the same in every run with this seed


#: entries drawn per call while a table is made (16 MiB of float32, tens of milliseconds): a
#: stop signal's handler runs between two calls, so even a 16 GiB table is interrupted at once
DRAW_CHUNK = 1 << 22


class NoiseTable:
    """``size`` float32 standard normals drawn from ``numpy.random.default_rng(seed)``.

    The table is filled in :data:`DRAW_CHUNK` pieces into one float32 array (no other
    allocation: the peak is ``4 * size`` bytes); the generator's float32 normals do not depend
    on how the draws are split, so the table is the same as one ``standard_normal(size,
    dtype=np.float32)`` call (checked by a test).

    Raises:
        ValueError: ``size`` not positive.
    """

    def __init__(self, size: int = DEFAULT_TABLE_SIZE, seed: int = DEFAULT_TABLE_SEED):
        if size <= 0:
            raise ValueError(f"noise table size must be positive, got {size}")
        self.size, self.seed = int(size), int(seed)
        rng = np.random.default_rng(self.seed)
        table = np.empty(self.size, np.float32)
        for start in range(0, self.size, DRAW_CHUNK):
            rng.standard_normal(out=table[start:start + DRAW_CHUNK], dtype=np.float32)
        self.table = table

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
    """Parameters of a seed-list genome of ``network`` (:mod:`nc2600.hls_models.networks`),
    ``(n_params,)`` float32 (see module doc)."""
    theta = init_network_params(genome[0], n_actions, network)
    for seed in genome[1:]:
        theta = mutate(theta, seed, sigma, noise)
    return theta


#: default memory for a :class:`GenomeBuilder`'s cached vectors (1 GiB)
GENOME_CACHE_BYTES = 1 << 30


class GenomeBuilder:
    """Parameters of seed-list genomes rebuilt where they are evaluated (a Ray node), with a
    cache, so that the driver ships seed lists instead of parameter vectors.

    :meth:`params` starts from the longest cached prefix of the genome (the genome itself, its
    parent, ...; else ``phi(s0)``) and applies the remaining mutations exactly as
    :func:`genome_params` does, so the vector is bit-identical to the driver's (same numpy, same
    table: :mod:`nc2600.host.cluster.ray_cluster` checks the versions). The genome and its parent are cached,
    least recently used first out, within ``cache_bytes``: a GA child then costs one mutation
    when its parent was built here before (its siblings, or the parent's own evaluation), a
    parent that was built elsewhere costs one more from the grandparent.

    Args:
        n_actions, sigma, network: the run's network and mutation power.
        noise_size, noise_seed: the run's noise table (built on first use: 128 MiB by default).
        cache_bytes: memory for cached vectors (default 1 GiB: 390 small networks of 18 actions).
    """

    def __init__(self, n_actions: int, sigma: float, noise_size: int, noise_seed: int,
                 network: str = "small", cache_bytes: int = GENOME_CACHE_BYTES):
        from collections import OrderedDict
        self.n_actions, self.sigma, self.network = int(n_actions), float(sigma), network
        self.noise_size, self.noise_seed = int(noise_size), int(noise_seed)
        self.cache_bytes = int(cache_bytes)
        self._noise: NoiseTable | None = None
        self._cache: OrderedDict = OrderedDict()
        self._bytes = 0
        self.mutations = 0           #: mutations applied (the rebuild cost), for benchmarks

    @property
    def noise(self) -> NoiseTable:
        if self._noise is None:
            self._noise = NoiseTable(self.noise_size, self.noise_seed)
        return self._noise

    def _put(self, key: tuple, theta: np.ndarray) -> None:
        theta.flags.writeable = False
        if key in self._cache:
            self._cache.move_to_end(key)
            return
        self._cache[key] = theta
        self._bytes += theta.nbytes
        while self._bytes > self.cache_bytes and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            self._bytes -= old.nbytes

    def params(self, genome) -> np.ndarray:
        """``(n_params,)`` float32 parameters of ``genome`` (read-only; do not modify)."""
        key = tuple(int(s) for s in genome)
        if not key:
            raise ValueError("a genome needs at least one seed")
        start, theta = 0, None
        for n in range(len(key), 0, -1):
            theta = self._cache.get(key[:n])
            if theta is not None:
                self._cache.move_to_end(key[:n])
                start = n
                break
        if theta is None:
            theta, start = init_network_params(key[0], self.n_actions, self.network), 1
        for m in range(start, len(key)):
            if m == len(key) - 1 and m >= 1:
                self._put(key[:m], theta)            # the parent: its other children come next
            theta = mutate(theta, key[m], self.sigma, self.noise)
            self.mutations += 1
        self._put(key, theta)
        return theta
