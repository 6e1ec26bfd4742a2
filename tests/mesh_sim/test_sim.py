"""Whole-simulation cases small enough to work out by hand, determinism, and time accounting."""
import pytest

from nc2600.mesh_sim.faults import Fault
from nc2600.mesh_sim.links import LinkParams
from nc2600.mesh_sim.node import NodeParams
from nc2600.mesh_sim.sim import FabricSim, SimConfig
from nc2600.mesh_sim.topology import MeshTopology
from nc2600.mesh_sim.workload import EpisodeDistribution, fixed_workload, generations_workload, synthetic_workload

US = 1e-6
F = 59736 / 150e6          # seconds per frame at 150 MHz
# 1 us per hop, serialisation negligible, host link free, no selection time
LINKS = LinkParams(latency_s=1 * US, bandwidth_Bps=1e15, header_bytes=0, host_latency_s=0.0,
                   host_bandwidth_Bps=1e18)
BARE = NodeParams(inference_cycles=0, ale_reset_frames=0, weight_load_s=0.0)


def one_worker(instances=1):
    # 1 card of 2 nodes: node 0 = entry (I/O), node 1 = worker, one hop apart
    return MeshTopology(cards=1, nodes_per_card=2, instances_per_node=instances)


def cfg(schedule):
    return SimConfig(schedule=schedule, host_select_s=0.0, dispatch_s=0.0)


def run(topo, wl, schedule, node=BARE, faults=()):
    return FabricSim(topo, wl, node, LINKS, cfg(schedule), list(faults)).run()


def test_one_instance_static_by_hand():
    r = run(one_worker(), fixed_workload([1000, 2000, 3000]), "static")
    # genomes 1 hop (1 us), 6000 frames back to back, results 1 hop (1 us)
    assert r["makespan_s"] == pytest.approx(6000 * F + 2 * US, rel=1e-9)
    assert r["frames"] == 6000
    assert r["projected_fps"] == pytest.approx(6000 / (6000 * F + 2 * US), rel=1e-9)
    assert r["ceiling_fps"] == pytest.approx(150e6 / 59736)
    assert r["lost_evaluations"] == 0 and r["duplicated_evaluations"] == 0


def test_one_instance_pull_by_hand():
    r = run(one_worker(), fixed_workload([1000, 2000, 3000]), "pull")
    # genomes 1 us; request 1 us + reply 1 us before each episode; last result 1 us
    assert r["makespan_s"] == pytest.approx(6000 * F + 1 * US + 3 * 2 * US + 1 * US, rel=1e-9)


def test_two_instances_static_round_robin_by_hand():
    r = run(one_worker(2), fixed_workload([1000, 2000, 3000]), "static")
    # slot 0 gets episodes 0 and 2 (4000 frames), slot 1 episode 1 (2000 frames)
    assert r["makespan_s"] == pytest.approx(4000 * F + 2 * US, rel=1e-9)
    assert r["utilization"] == pytest.approx(6000 * F / (2 * r["makespan_s"]), rel=1e-9)


def test_two_instances_pull_by_hand():
    r = run(one_worker(2), fixed_workload([1000, 3000, 2000]), "pull")
    # slot 0: ep 0 (1000) then asks again and gets ep 2 (2000); slot 1: ep 1 (3000)
    # slot 1 ends at 3 us + 3000 F, its result reaches the entry node 1 us later;
    # slot 0 ends at 3 us + 1000 F + 2 us + 2000 F + 1 us: the same frames, 2 us later
    assert r["makespan_s"] == pytest.approx(3000 * F + 6 * US, rel=1e-9)
    # static would give slot 0 episodes 0 and 2, slot 1 episode 1: also 3000 F
    r2 = run(one_worker(2), fixed_workload([1000, 3000, 2000, 500]), "static")
    assert r2["makespan_s"] == pytest.approx(3500 * F + 2 * US, rel=1e-9)
    r3 = run(one_worker(2), fixed_workload([1000, 3000, 2000, 500]), "pull")
    # pull: slot 0 runs 1000 then 2000 (free at 5 us + 3000 F); slot 1 runs 3000, is free first
    # (3 us + 3000 F), takes the 500: ends 3 us + 3000 F + 2 us + 500 F, result 1 us later
    assert r3["makespan_s"] == pytest.approx(3500 * F + 6 * US, rel=1e-9)


def test_inference_serial_and_pipelined_by_hand():
    wl = fixed_workload([1000], steps=[250])
    serial = NodeParams(inference_cycles=15000, ale_reset_frames=0, weight_load_s=0.0, inference_pipelined=False)
    r = run(one_worker(), wl, "static", serial)
    assert r["makespan_s"] == pytest.approx(1000 * F + 250 * 100 * US + 2 * US, rel=1e-9)
    # pipelined: 15,000 cycles fit in a 4-frame period (238,944 cycles): no stall
    piped = NodeParams(inference_cycles=15000, ale_reset_frames=0, weight_load_s=0.0)
    assert run(one_worker(), wl, "static", piped)["makespan_s"] == pytest.approx(1000 * F + 2 * US, rel=1e-9)
    # pipelined but too slow: stalls by the excess, (300,000 - 238,944) cycles per decision
    slow = NodeParams(inference_cycles=300000, ale_reset_frames=0, weight_load_s=0.0)
    assert run(one_worker(), wl, "static", slow)["makespan_s"] == pytest.approx(
        1000 * F + 250 * (300000 - 4 * 59736) / 150e6 + 2 * US, rel=1e-9)


def test_three_colour_clocks_by_hand():
    """The three-colour-clock console: a frame in 59,736 / 3 = 19,912 clocks, so a third of the
    frame time; the pipelined inference now stalls by 185,928 - 4 x 19,912 = 106,280 cycles."""
    wl = fixed_workload([1000], steps=[250])
    three = NodeParams(inference_cycles=185928, ale_reset_frames=0, weight_load_s=0.0, colour_clocks=3)
    assert three.frame_s == pytest.approx(19912 / 150e6) and three.instance_fps == pytest.approx(150e6 / 19912)
    assert three.inference_stall_cycles == 106280
    assert run(one_worker(), wl, "static", three)["makespan_s"] == pytest.approx(
        1000 * F / 3 + 250 * 106280 / 150e6 + 2 * US, rel=1e-9)
    with pytest.raises(ValueError, match="1 or 3"):
        NodeParams(colour_clocks=2)


def test_reset_and_weight_load_by_hand():
    node = NodeParams(inference_cycles=0, ale_reset_frames=68, weight_load_s=1e-3)
    r = run(one_worker(), fixed_workload([1000, 2000]), "static", node)
    assert r["makespan_s"] == pytest.approx(3000 * F + 2 * 68 * F + 2 * 1e-3 + 2 * US, rel=1e-9)
    fr = r["time_fractions"]
    assert fr["reset"] == pytest.approx(2 * 68 * F / r["makespan_s"], rel=1e-9)
    assert fr["weight_load"] == pytest.approx(2e-3 / r["makespan_s"], rel=1e-9)
    assert sum(fr.values()) == pytest.approx(1.0)


def test_async_has_no_barrier_between_generations():
    topo = one_worker(2)
    wl = generations_workload([[3000, 1000], [1000, 3000]])
    st, pl, asy = run(topo, wl, "static"), run(topo, wl, "pull"), run(topo, wl, "async")
    # static: each generation waits for its 3000-frame episode; genomes 1 us, results 1 us each
    assert st["makespan_s"] == pytest.approx(6000 * F + 4 * US, rel=1e-9)
    # pull: the same barrier; per generation genomes 1 us, request + reply 2 us, result 1 us
    assert pl["makespan_s"] == pytest.approx(6000 * F + 2 * 4 * US, rel=1e-9)
    # async: slot 1 runs 1000, 1000, 3000 back to back: three request/reply round trips of
    # 2 us (no genome broadcast, the first requests leave at t = 0), the last result 1 us
    assert asy["makespan_s"] == pytest.approx(5000 * F + 3 * 2 * US + 1 * US, rel=1e-9)
    assert asy["frames"] == st["frames"] == 8000


def test_phases_are_barriers_in_static():
    topo = one_worker(2)
    wl = synthetic_workload(4, 1, elite_candidates=1, elite_episodes=2,
                            distribution=EpisodeDistribution("uniform:100:500", noop_max=0), seed=1)
    r = run(topo, wl, "static")
    train, elite = (wl.frames[p].tolist() for p in wl.phases)
    # round robin over 2 slots: train -> [0, 2], [1, 3]; elite -> [0], [1]
    t_train = max(train[0] + train[2], train[1] + train[3]) * F
    t_elite = max(elite) * F
    assert r["makespan_s"] == pytest.approx(t_train + t_elite + 4 * US, rel=1e-9)


def test_determinism_for_a_fixed_seed():
    topo = MeshTopology(cards=4)
    wl = synthetic_workload(300, 2, seed=9)
    faults = [Fault(3.0, "node", 40), Fault(5.0, "link", 10, 11)]
    a = FabricSim(topo, wl, config=SimConfig(schedule="pull"), faults=faults).run()
    b = FabricSim(topo, synthetic_workload(300, 2, seed=9), config=SimConfig(schedule="pull"), faults=faults).run()
    a.pop("sim_wall_s"), b.pop("sim_wall_s")
    assert a == b
    c = FabricSim(topo, synthetic_workload(300, 2, seed=10), config=SimConfig(schedule="pull")).run()
    assert c["frames"] != a["frames"]


def test_time_fractions_sum_to_one_everywhere():
    topo = MeshTopology(cards=4)
    wl = synthetic_workload(200, 2, seed=2)
    for s in ("static", "pull", "async"):
        r = FabricSim(topo, wl, config=SimConfig(schedule=s), faults=[Fault(2.0, "node", 50)]).run()
        assert sum(r["time_fractions"].values()) == pytest.approx(1.0)
        assert all(v >= 0 for v in r["time_fractions"].values())
        assert r["utilization"] == pytest.approx(r["time_fractions"]["counted_frames"], rel=1e-9)
