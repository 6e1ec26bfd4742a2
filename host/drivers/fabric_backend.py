"""The launcher's ``--backend fabric``: whole episodes of a generation on Verilated fabric
instances, one per worker process (:class:`FabricEvaluator`), each played by
:class:`nc2600.host.drivers.instance.InstanceEpisodeRunner` through the instance's driver."""
from __future__ import annotations

import numpy as np

from nc2600.hls_models.frame_skip import FRAME_SKIP, noop_frames
from nc2600.host.drivers.instance import InstanceDriver, InstanceEpisodeRunner

_WORKER: dict = {}


def _fabric_worker_init(game: str, rom_path: str, frame_skip: int, episode_frames: int) -> None:
    """A pool worker (forked with SIGTERM/SIGINT blocked): SIGINT ignored, SIGTERM raises
    SystemExit (a quiet exit that releases the pool's locks first, as a sweep's workers do,
    :func:`nc2600.host.signals.exit_on_sigterm`), then its Verilated instance."""
    from nc2600.host.signals import exit_on_sigterm, worker_signals
    worker_signals(exit_on_sigterm)
    from nc2600.host.games import game_info
    from nc2600.hwtools.instance_harness import InstanceSim
    info = game_info(game, rom_path)
    sim = InstanceSim(info.screen_height, info.display)
    _WORKER["runner"] = InstanceEpisodeRunner(InstanceDriver(sim), game, rom_path, frame_skip, episode_frames)
    _WORKER["sim"] = sim


def policy_key(policy) -> bytes:
    """A digest of an int8 policy's parameters (weights, biases, shifts, act_max)."""
    import hashlib
    h = hashlib.sha256()
    for a in (*policy.weights(), *policy.biases()):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(np.array([*policy.shifts(), policy.act_max, policy.n_actions], np.int64).tobytes())
    return h.digest()


def _fabric_worker_run(item):
    index, seed, policy = item
    runner = _WORKER["runner"]
    key = policy_key(policy)
    if _WORKER.get("key") == key:
        policy = runner._loaded          # the same parameters are in the engine already
    ep = runner.run(seed, policy, record_actions=True)
    _WORKER["key"] = key
    return index, ep


class FabricEvaluator:
    """The evaluation backend ``--backend fabric``: every episode runs inside a Verilated
    instance (:class:`InstanceEpisodeRunner`); same interface as
    :class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator`.

    ``W`` worker processes each own one instance; jobs are pulled in order; an episode's
    result depends only on its individual and seed (every episode starts from ALE's reset state:
    replayed for a worker's first episode, restored from the harness's snapshot after that), so
    results are identical for any ``W``.

    Args:
        rom_path: the game's ROM (an ALE game; its mapper implemented by the console RTL).
        n_workers: worker processes (instances).
        frame_skip, episode_frames: the protocol.
    """

    def __init__(self, rom_path, n_workers: int, frame_skip: int = FRAME_SKIP, episode_frames: int = 20_000):
        import multiprocessing as mp
        from nc2600.host.games import game_info, resolve_rom
        self.game, self.rom_path = resolve_rom(rom=rom_path)
        info = game_info(self.game, self.rom_path)
        self.n_actions = len(info.minimal_actions)
        self.frame_skip = int(frame_skip)
        from nc2600.host.signals import stop_signals_held
        # forked with SIGTERM/SIGINT blocked; the pool's threads keep that mask, so the workers
        # it forks later too start blocked; _fabric_worker_init sets their handlers, then unblocks
        with stop_signals_held():
            self._pool = mp.get_context("fork").Pool(
                int(n_workers), _fabric_worker_init,
                (self.game, str(self.rom_path), int(frame_skip), int(episode_frames)))

    def evaluate(self, jobs, params_for, on_result=None):
        """Run every job's episode; results (:class:`nc2600.host.episodes.jobs.EpisodeResult`) in job order.
        ``params_for(individual)`` must give a :class:`nc2600.hls_models.policy_int8.QuantizedPolicy`."""
        from nc2600.host.episodes.jobs import EpisodeResult, actions_crc32
        jobs = list(jobs)
        items = [(i, int(j.episode_seed), params_for(j.individual)) for i, j in enumerate(jobs)]
        results = [None] * len(jobs)
        fire = None
        for i, ep in self._pool.imap_unordered(_fabric_worker_run, items):
            if fire is None:
                from nc2600.host.games import game_info
                fire = 1 in [int(a) for a in game_info(self.game, self.rom_path).minimal_actions]
            start = noop_frames(jobs[i].episode_seed) + (self.frame_skip if fire else 0)
            res = EpisodeResult(jobs[i], ep.episode_return, ep.frames, ep.decisions, min(start, ep.frames),
                                actions_crc32(ep.actions))
            results[i] = res
            if on_result is not None:
                on_result(res)
        return results

    def close(self) -> None:
        if getattr(self, "_pool", None) is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
