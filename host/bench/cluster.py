"""``nc2600 bench ray``: what Ray costs, measured on this machine, and a labelled projection.

Three parts, one JSON object:

- ``ratio``: the same episodes (random-initialised networks, one episode each, fixed seeds)
  evaluated alternately by the local backend (:class:`nc2600.host.launcher.local_pool.LocalPoolEvaluator`, W workers)
  and by ``--cluster ray`` on an embedded local Ray with W CPUs
  (:class:`nc2600.host.cluster.ray_evaluator.RayEvaluator`), ``repeats`` times each, in one process; frames/s of each
  (Ray start-up excluded, reported as ``ray_start_s``) and ``ray_fps / local_fps`` (target >= 0.9). The episode results
  of the two backends are compared (``identical``).
- ``overhead``: per population size N (100, 1,000, 10,000 by default) one generation of N
  individuals on the same local Ray with the node's emulation left out (``mode:
  transfer_only``: chunks scheduled, every parameter vector shipped to the node and read, results
  returned), plus one generation of the first N with emulation (``mode: evaluate``, a small
  episode cap): wall seconds, seconds the node spent inside its chunks, and their difference,
  the time the node waited on Ray (scheduling, object transfer, the driver): ``overhead_ms``,
  with the driver's parameter shipping (``put_ms``, one float32 vector of 2.7 MB per
  individual).
  The same is measured with seed-list genomes (``shipped: seed lists``, 50 seeds each, what
  ``nc2600 run --cluster ray`` ships for the GA and random search), and ``rebuild_only``: the
  node's own cost of rebuilding children of 20 cached parents from their seed lists.
- ``projection`` (a model, not a measurement): frames/s of a 720-core cluster (45 nodes of 16
  cores) on the Such et al. (2017) Atari settings (population 1,000, 20,000-frame episodes, the
  training episodes of one generation), from the per-core frames/s measured in ``ratio``, the
  Ray overhead measured nearest N = 1,000, and either seed lists (rebuilt on the nodes in
  parallel) or float32 vectors (over an assumed 10 Gbit/s link from the driver). The tail of a
  generation (the slowest episode) is modelled as whole rounds of episodes per node.
"""
from __future__ import annotations

import math
import time

import numpy as np

from nc2600.host.episodes.jobs import Job

from nc2600.host.launcher.local_pool import LocalPoolEvaluator

SEED_BASE = 1_000_003


def _tree_cpu(root: int) -> dict[int, float]:
    """CPU seconds (user + system) of ``root`` and every descendant process, by pid (Linux
    ``/proc/<pid>/stat``; processes that end between two reads are missed)."""
    import os
    tick = os.sysconf("SC_CLK_TCK")
    stat: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stat[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    keep, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _) in stat.items():
            if ppid == parent and pid not in keep:
                keep.add(pid)
                frontier.append(pid)
    return {pid: stat[pid][1] for pid in keep if pid in stat}


def _process_name(pid: int) -> str:
    """A short name for a process: Ray's title (``ray::NodeEvaluator``), else the executable."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
    except OSError:
        return "?"
    first = argv[0].decode(errors="replace")
    if first.startswith("ray::"):
        return first.split()[0]
    return first.rsplit("/", 1)[-1][:40] or "?"


def _jobs(n: int) -> list[Job]:
    rng = np.random.default_rng(SEED_BASE)
    return [Job(i, int(s)) for i, s in enumerate(rng.integers(2**31 - 1, size=n))]


def _params(n_actions: int, distinct: int = 16):
    """``params_for``: ``distinct`` random networks reused round-robin (each individual is still
    shipped and loaded as its own vector)."""
    from nc2600.host.episodes.policy import init_params
    table = [init_params(SEED_BASE + i, n_actions) for i in range(distinct)]
    return lambda i: table[i % distinct][:]   # a new view: shipped as its own vector, as in a run


class _SyntheticGenomes:
    """``params_for`` naming seed-list genomes of a GA in mid-run: individual ``i`` is the child
    (one new seed) of parent ``i mod parents``, whose genome has ``length - 1`` seeds. Only the
    genomes travel (``.genome``); the vectors are :func:`_params`'s."""

    def __init__(self, n_actions: int, length: int = 50, parents: int = 20):
        rng = np.random.default_rng(SEED_BASE + 1)
        self.parents = [[int(s) for s in rng.integers(2**31 - 1, size=length - 1)] for _ in range(parents)]
        self.vectors = _params(n_actions)

    def __call__(self, i: int):
        return self.vectors(i)

    def genome(self, i: int) -> list[int]:
        return self.parents[i % len(self.parents)] + [SEED_BASE + 7 * i]

    def parents_only(self) -> "_SyntheticGenomes":
        """The same object with individual ``i`` = parent ``i`` (to warm a node's cache)."""
        other = _SyntheticGenomes.__new__(_SyntheticGenomes)
        other.parents, other.vectors = self.parents, self.vectors
        other.genome = lambda i: self.parents[i % len(self.parents)]
        return other


def measure(rom_path, workers: int = 2, envs_per_block: int = 6, population: int = 48,
            episode_frames: int = 2_000, repeats: int = 2, overhead_populations=(100, 1_000, 10_000),
            overhead_episode_frames: int = 40, project_cores: int = 720, project_cores_per_node: int = 16,
            project_population: int = 1_000, project_episode_frames: int = 20_000,
            project_link_gbit_s: float = 10.0) -> dict:
    """Run the three parts (see module doc); returns the JSON-able result."""
    from nc2600.host.cluster.ray_evaluator import RayEvaluator
    from nc2600.host.cluster.ray_cluster import connect
    out: dict = {"machine": {"workers": workers, "envs_per_block": envs_per_block}}
    jobs = _jobs(population)
    local = LocalPoolEvaluator(rom_path, workers, envs_per_block, episode_frames=episode_frames)
    cluster = None
    try:
        params_for = _params(local.n_actions)
        t = time.perf_counter()
        cluster = connect(None, workers)
        ray_ev = RayEvaluator(cluster, rom_path, envs_per_block, episode_frames=episode_frames)
        out["ray_start_s"] = round(time.perf_counter() - t, 2)
        import os
        walls = {"local": 0.0, "ray": 0.0}
        cpu = {"local": 0.0, "ray": 0.0}
        frames = {"local": 0, "ray": 0}
        local_pids = {os.getpid(), *(p.pid for p in local.procs)}
        names = {}
        for pids in ray_ev.actor_pids():        # the actor, then its emulator processes
            names[pids[0]] = "actor (NodeEvaluator)"
            names.update({pid: "actor's emulator workers" for pid in pids[1:]})
        ray_parts: dict[str, float] = {}
        results = {}
        for _ in range(repeats):
            for name, ev in (("local", local), ("ray", ray_ev)):
                before = _tree_cpu(os.getpid())
                t = time.perf_counter()
                res = ev.evaluate(jobs, params_for)
                walls[name] += time.perf_counter() - t
                after = _tree_cpu(os.getpid())
                # local: this process and the local workers; ray: this process and every Ray
                # process (GCS, raylet, the actor and its workers), the idle side left out
                mine = (lambda pid: pid in local_pids) if name == "local" else \
                    (lambda pid: pid == os.getpid() or pid not in local_pids)
                cpu[name] += sum(after[p] - before.get(p, 0.0) for p in after if mine(p))
                if name == "ray":
                    for p in after:
                        if mine(p):
                            key = "driver" if p == os.getpid() else names.get(p) or _process_name(p)
                            ray_parts[key] = ray_parts.get(key, 0.0) + after[p] - before.get(p, 0.0)
                frames[name] += sum(r.frames for r in res)
                results[name] = [(r.episode_return, r.frames, r.steps, r.reset_frames) for r in res]
        local_fps, ray_fps = frames["local"] / walls["local"], frames["ray"] / walls["ray"]
        out["ratio"] = {"population": population, "episode_frames": episode_frames, "repeats": repeats,
                        "frames": frames["local"] // repeats, "local_fps": round(local_fps, 1),
                        "ray_fps": round(ray_fps, 1), "ratio": round(ray_fps / local_fps, 3),
                        "identical": results["local"] == results["ray"],
                        "local_cpu_us_per_frame": round(1e6 * cpu["local"] / frames["local"], 1),
                        "ray_cpu_us_per_frame": round(1e6 * cpu["ray"] / frames["ray"], 1),
                        "cpu_ratio": round(cpu["local"] / cpu["ray"], 3) if cpu["ray"] else None,
                        "ray_cpu_us_per_frame_by_process": {
                            k: round(1e6 * v / frames["ray"], 1)
                            for k, v in sorted(ray_parts.items(), key=lambda kv: -kv[1]) if v > 0}}
        local.close()
        ray_ev.close()

        rows = []
        from nc2600.host.launcher.noise import DEFAULT_TABLE_SEED, DEFAULT_TABLE_SIZE
        spec = {"n_actions": local.n_actions, "sigma": 0.002, "noise_size": DEFAULT_TABLE_SIZE,
                "noise_seed": DEFAULT_TABLE_SEED, "calib_obs": None}
        genomes_for = _SyntheticGenomes(local.n_actions)
        ev = RayEvaluator(cluster, rom_path, envs_per_block, episode_frames=overhead_episode_frames, genome_spec=spec)
        try:
            # emulating: the first population only (a 10,000-episode generation takes minutes here);
            # then Ray's cost alone with float32 vectors, with seed-list genomes (50 seeds), and the
            # node's cost of rebuilding children of 20 parents from seed lists (first population)
            modes = [("evaluate", overhead_populations[0], params_for)] + \
                [("transfer_only", n, params_for) for n in overhead_populations] + \
                [("transfer_only", n, genomes_for) for n in overhead_populations] + \
                [("rebuild_only", overhead_populations[0], genomes_for)]
            for mode, n, individuals in modes:
                ev.node_method = mode
                if mode == "rebuild_only":          # the parents once (a real node has them cached)
                    ev.evaluate(_jobs(len(genomes_for.parents)), individuals.parents_only())
                ev.evaluate(_jobs(n), individuals)
                st = ev.stats[-1]
                node = max(st["node_s"])
                rows.append({"mode": mode, "shipped": "seed lists" if st["genomes"] else "float32 vectors",
                             "population": n, "episode_frames": overhead_episode_frames,
                             "chunks": st["chunks"], "wall_s": round(st["wall_s"], 3), "node_s": round(node, 3),
                             "overhead_ms": round(1e3 * (st["wall_s"] - node), 1),
                             "put_ms": round(1e3 * st["put_s"], 1),
                             "overhead_ms_per_individual": round(1e3 * (st["wall_s"] - node) / n, 3),
                             "put_ms_per_individual": round(1e3 * st["put_s"] / n, 3)})
        finally:
            ev.close()
        out["overhead"] = rows
    finally:
        local.close()
        if cluster is not None:
            cluster.close()

    # -- projection (model) ------------------------------------------------------------
    fps_core = out["ratio"]["ray_fps"] / workers
    nodes = math.ceil(project_cores / project_cores_per_node)
    pop, e = project_population, project_episode_frames
    per_node = math.ceil(pop / nodes)
    slots_per_node = 2 * project_cores_per_node * envs_per_block
    rounds = math.ceil(per_node / slots_per_node)
    # a node runs its episodes side by side (up to its slots); its cores share them
    compute_s = per_node * e / (project_cores_per_node * fps_core) if rounds == 1 else \
        rounds * slots_per_node * e / (project_cores_per_node * fps_core)
    def nearest(shipped: str) -> dict:
        return min((r for r in out["overhead"] if r["mode"] == "transfer_only" and r["shipped"] == shipped),
                   key=lambda r: abs(r["population"] - pop))
    from nc2600.host.episodes.policy import n_params
    vec, seeds = nearest("float32 vectors"), nearest("seed lists")
    rebuild = next(r for r in out["overhead"] if r["mode"] == "rebuild_only")
    # float32 vectors: Ray's overhead and the driver's link; seed lists (GA, RS): Ray's overhead
    # with 50-seed genomes (400 bytes) and each node rebuilding its children (in parallel)
    ray_vec_s = vec["overhead_ms_per_individual"] * pop / 1e3
    transfer_s = pop * 4 * n_params(18) * 8 / (project_link_gbit_s * 1e9)
    ray_seed_s = seeds["overhead_ms_per_individual"] * pop / 1e3
    rebuild_s = rebuild["node_s"] / rebuild["population"] * per_node
    gen_vec_s = compute_s + ray_vec_s + transfer_s
    gen_seed_s = compute_s + ray_seed_s + rebuild_s
    out["projection"] = {
        "label": "projection (model): not measured on a cluster",
        "cores": project_cores, "nodes": nodes, "cores_per_node": project_cores_per_node,
        "population": pop, "episode_frames": e, "fps_per_core_measured_here": round(fps_core, 1),
        "episodes_per_node": per_node, "compute_s": round(compute_s, 2),
        "seed_lists": {"ray_overhead_s": round(ray_seed_s, 3), "ray_overhead_from_population": seeds["population"],
                       "node_rebuild_s": round(rebuild_s, 3), "generation_s": round(gen_seed_s, 2),
                       "fps": round(pop * e / gen_seed_s)},
        "float32_vectors": {"ray_overhead_s": round(ray_vec_s, 2), "ray_overhead_from_population": vec["population"],
                            "param_transfer_s": round(transfer_s, 2), "link_gbit_s_assumed": project_link_gbit_s,
                            "generation_s": round(gen_vec_s, 2), "fps": round(pop * e / gen_vec_s)},
        "frames_per_generation": pop * e, "fps_without_ray": round(pop * e / compute_s),
    }
    return out
