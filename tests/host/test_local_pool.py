"""The evaluator's worker-side inference: results independent of the worker and slot layout,
a clean stop at a deadline, slot ranges as views, and one BLAS thread per worker.

Oracles: the same jobs evaluated by another layout (1 worker x 1 slot, no neighbours) and by a
plain single-instance rollout (``tests/host/test_run_e2e.py``); hand-worked ranges; the full
batch's action values for the slot-range views."""
from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

def _rom():
    import ale_py.roms
    return ale_py.roms.get_rom_path("breakout")


def _params(n_actions: int):
    from nc2600.host.episodes.policy import init_params
    table = [init_params(s, n_actions) for s in (11, 12, 13)]
    return lambda i: table[i % 3]


def test_runs_of_running_slots():
    from nc2600.host.launcher.local_pool import _runs
    assert _runs(np.array([False, False])) == []
    assert _runs(np.array([True, True, False, True])) == [(0, 2), (3, 4)]
    assert _runs(np.array([False, True, True, True])) == [(1, 4)]
    assert _runs(np.array([True, False, True, False, True])) == [(0, 1), (2, 3), (4, 5)]


def test_results_do_not_depend_on_workers_or_slots():
    """9 episodes with different numbers of decisions (so slots free up at different steps and
    inference runs over partial slot ranges): 1 worker x 2 slots, 2 workers x 4 slots and 1 worker x 6 slots
    give identical results, in job order."""
    from nc2600.host.episodes.jobs import Job
    from nc2600.host.launcher.local_pool import LocalPoolEvaluator
    jobs = [Job(i, 500 + 7 * i) for i in range(9)]
    got = []
    for workers, k in ((1, 1), (2, 2), (1, 3)):
        with LocalPoolEvaluator(_rom(), workers, k, episode_frames=150) as ev:
            params_for = _params(ev.n_actions)
            res = ev.evaluate(jobs, params_for)
        assert [r.job for r in res] == jobs
        got.append([(r.episode_return, r.frames, r.steps, r.reset_frames) for r in res])
    assert got[0] == got[1] == got[2]
    assert len({g[2] for g in got[0]}) > 1     # decisions differ (no-op starts): slots free at different steps


def test_deadline_stops_promptly_and_the_evaluator_goes_on():
    """A stream of jobs with a deadline: evaluate returns about at the deadline (not after a
    further batch of episodes), the finished episodes equal the same jobs run to the end, the
    dropped episodes' frames are counted, and the next call runs normally."""
    from nc2600.host.episodes.jobs import Job
    from nc2600.host.launcher.local_pool import LocalPoolEvaluator
    with LocalPoolEvaluator(_rom(), 1, 1, episode_frames=2000) as ev:
        params_for = _params(ev.n_actions)
        stream = (Job(j % 3, 900 + j) for j in itertools.count())
        t0 = time.monotonic()
        res = ev.evaluate(stream, params_for, deadline=t0 + 1.0)
        took = time.monotonic() - t0
        assert took < 1.0 + 5.0, took                  # one step per slot after the deadline, not episodes
        assert ev.dropped_frames > 0                   # 2,000-frame episodes were running
        assert all(r.frames > 0 for r in res)
        again = ev.evaluate([r.job for r in res] + [Job(0, 77)], params_for)
        assert [(r.episode_return, r.frames) for r in again[:len(res)]] == \
            [(r.episode_return, r.frames) for r in res]
        assert again[-1].job == Job(0, 77) and again[-1].frames > 0


def test_a_stop_request_drops_the_running_episodes_and_the_evaluator_goes_on():
    """``stop`` (a Ray actor's cancelled flag) is polled while the call waits for its workers:
    from the first look after 1 s it says True, and the call returns (an endless stream of
    jobs: without the stop it would never return) with the episodes that had finished, equal
    to the same jobs run to the end, the dropped running episodes' frames counted; the next
    call runs normally."""
    from nc2600.host.episodes.jobs import Job
    from nc2600.host.launcher.local_pool import LocalPoolEvaluator
    looks = []

    def stop() -> bool:
        looks.append(time.monotonic())
        return looks[-1] - looks[0] > 1.0
    with LocalPoolEvaluator(_rom(), 1, 1, episode_frames=2000) as ev:
        params_for = _params(ev.n_actions)
        stream = (Job(j % 3, 900 + j) for j in itertools.count())
        res = ev.evaluate(stream, params_for, stop=stop)
        assert len(looks) >= 2 and looks[-1] - looks[0] > 1.0
        assert ev.dropped_frames > 0                   # a slot always holds a running episode
        again = ev.evaluate([r.job for r in res] + [Job(0, 77)], params_for)
        assert [(r.episode_return, r.frames) for r in again[:len(res)]] == \
            [(r.episode_return, r.frames) for r in res]
        assert again[-1].job == Job(0, 77) and again[-1].frames > 0


def test_workers_use_one_blas_thread_whatever_the_parent_has():
    from threadpoolctl import threadpool_limits
    from nc2600.host.launcher.local_pool import LocalPoolEvaluator
    with threadpool_limits(2, user_api="blas"):            # what a Ray actor or a notebook may have
        with LocalPoolEvaluator(_rom(), 1, 1, episode_frames=100) as ev:
            assert ev.worker_blas_threads == [1]


@pytest.mark.parametrize("policy,network", [("float", "small"), ("float", "nature"), ("int8", "small"),
                                            ("int8", "nature")])
def test_slot_range_views_equal_the_full_batch(policy, network):
    """``act(obs, slice(a, b))`` (what a worker runs over a range of running slots) equals the
    full batch's actions for those slots, for every slot class."""
    from nc2600.hls_models.networks import n_params
    from nc2600.host.episodes.policy import init_network_params, make_slot_weights
    rng = np.random.default_rng(3)
    n_slots, n_actions = 5, 6
    obs = rng.integers(0, 256, (n_slots, 4, 84, 84), dtype=np.uint8)
    flats = [init_network_params(40 + s, n_actions, network) for s in range(n_slots)]
    assert flats[0].size == n_params(network, n_actions)
    if policy == "int8":
        from nc2600.hls_models.policy_int8 import quantize_network
        from nc2600.host.launcher.policy_int8 import make_int8_slots
        slots = make_int8_slots(n_slots, n_actions, network)
        pols = [quantize_network(f, network, n_actions, obs[:2]) for f in flats]
        values = lambda sel=None: slots.action_values(obs, sel)  # noqa: E731
    else:
        slots = make_slot_weights(n_slots, n_actions, network)
        pols = flats
        values = lambda sel=None: slots.q_values(obs, sel)  # noqa: E731
    for s, p in enumerate(pols):
        slots.load(s, p)
    full = values()
    for a, b in ((0, 5), (1, 3), (4, 5), (0, 1)):
        assert np.array_equal(values(slice(a, b)), full[a:b]), (a, b)
        assert np.array_equal(slots.act(obs, slice(a, b)), np.argmax(full[a:b], axis=-1))


def test_bench_host_stops_at_its_seconds_with_long_episodes():
    """``nc2600 bench host`` measures one stream of episodes and stops at ``--seconds``: with
    a 1,000,000-frame cap (a random Breakout network that never fires again plays to the cap,
    minutes here) it still ends within seconds (it does not run its last batch of
    episodes to the end)."""
    import json
    import subprocess
    import sys
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "bench", "host", "--seconds", "2", "--workers", "1",
                           "--envs-per-block", "1", "--episode-frames", "1000000"],
                          capture_output=True, text=True, timeout=300)
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert took < 60, took                         # 2 s + 2 s + start-up, not minutes
    assert out["loop_frames"] > 0 and out["loop_fps"] > 0 and 0 <= out["worker_idle_share"] < 1
    # the gymnasium vector environment's figure beside them (nc2600.host.gym_env, AsyncVectorEnv)
    assert out["gym_vector_fps"] > 0
    assert out["gym_vector_ratio"] == pytest.approx(out["gym_vector_fps"] / out["raw_fps_per_core"], abs=2e-3)


def test_a_killed_worker_raises_worker_died_not_a_hang():
    """SIGKILL of a worker in the middle of an evaluation: ``WorkerDied`` naming the worker and
    the signal (the CLI's one line), not a hang; the evaluator closes cleanly afterwards."""
    import os
    import signal as sig
    from nc2600.host.episodes.jobs import Job, WorkerDied
    from nc2600.host.launcher.local_pool import LocalPoolEvaluator
    with LocalPoolEvaluator(_rom(), 2, 1, episode_frames=100_000) as ev:
        params_for = _params(ev.n_actions)
        victim = ev.procs[1].pid
        killed = []

        def jobs():
            for j in range(100):
                if j == 6 and not killed:          # both workers hold episodes by now
                    os.kill(victim, sig.SIGKILL)
                    killed.append(victim)
                yield Job(j % 3, j)
        t0 = time.monotonic()
        with pytest.raises(WorkerDied, match=r"worker process 1 \(pid \d+\) died: killed by signal 9"):
            ev.evaluate(jobs(), params_for)
        assert time.monotonic() - t0 < 60
    assert killed == [victim]
