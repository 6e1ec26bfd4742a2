"""Link timing, contention and routing around failures, worked by hand.

Unless said otherwise: latency 1 us per hop, 1 GB/s, no header, so a 1000-byte message
takes 1 us to serialise and 2 us per uncontended hop.
"""
import networkx as nx
import numpy as np
import pytest
import simpy

from nc2600.mesh_sim.links import LinkParams, Network
from nc2600.mesh_sim.topology import MeshTopology

US = 1e-6


def harness(topo, **kw):
    env = simpy.Environment()

    def schedule(delay, fn):
        env.timeout(max(delay, 0.0)).callbacks.append(lambda _e: fn())

    params = dict(latency_s=1 * US, bandwidth_Bps=1e9, header_bytes=0, retry_s=10 * US)
    params.update(kw)
    return env, Network(topo, LinkParams(**params), now=lambda: env.now, schedule=schedule)


@pytest.fixture
def strip():
    # 6 x 2 x 1 mesh, nodes 0..5 on row y=0, 6..11 on row y=1 (node 6+i above node i)
    return MeshTopology(cards=4, nodes_per_card=3, card_shape=(3, 1, 1), mesh=(6, 2, 1))


def send(env, net, src, dst, size=1000, at=0.0):
    rec = {}

    def go():
        rec["msg"] = net.send(src, dst, size, None, lambda m: rec.__setitem__("t", env.now),
                              lambda m, t: rec.__setitem__("lost", t))

    env.timeout(at).callbacks.append(lambda _e: go())
    return rec


def test_single_message_five_hops(strip):
    env, net = harness(strip)
    r = send(env, net, 0, 5)
    env.run()
    assert r["t"] == pytest.approx(10 * US)  # 5 hops x (1 us serialisation + 1 us latency)
    assert r["msg"].path == [0, 1, 2, 3, 4, 5]


def test_two_messages_on_one_route_queue_behind_each_other(strip):
    env, net = harness(strip)
    a, b = send(env, net, 0, 5), send(env, net, 0, 5)
    env.run()
    # b waits 1 us for the first link, then follows a one serialisation behind: 11 us
    assert a["t"] == pytest.approx(10 * US) and b["t"] == pytest.approx(11 * US)


def test_merging_traffic_waits_for_the_shared_link(strip):
    env, net = harness(strip)
    a = send(env, net, 0, 2)           # uses link 1->2 during [2 us, 3 us]
    b = send(env, net, 1, 2, at=2 * US)  # ready at 2 us, link busy until 3 us
    env.run()
    assert a["t"] == pytest.approx(4 * US)
    assert b["t"] == pytest.approx(3 * US + 2 * US)


def test_opposite_directions_do_not_contend(strip):
    env, net = harness(strip)
    a, b = send(env, net, 0, 1), send(env, net, 1, 0)
    env.run()
    assert a["t"] == pytest.approx(2 * US) and b["t"] == pytest.approx(2 * US)


def test_vectorised_booking_equals_the_hop_loop():
    topo = MeshTopology()
    _, net = harness(topo)
    rng = np.random.default_rng(3)
    for _ in range(30):
        a, b = rng.integers(0, topo.n_nodes, 2).tolist()
        nodes, lids = topo.dor_route_array(a, b)
        net.link_free[lids] = rng.uniform(0, 40 * US, len(lids))
        free0 = net.link_free.copy()
        t0 = float(rng.uniform(0, 20 * US))
        arrive, depart = net._book(lids, t0, 1000)
        # reference: the store-and-forward rule hop by hop
        t, ref_a, ref_d = t0, [t0], []
        for lid in lids.tolist():
            start = max(t, free0[lid])
            ref_d.append(start)
            t = start + 1 * US + 1 * US
            ref_a.append(t)
            assert net.link_free[lid] == pytest.approx(start + 1 * US, abs=1e-15)
        assert arrive == pytest.approx(ref_a, abs=1e-15) and depart == pytest.approx(ref_d, abs=1e-15)


def live_graph_check(net, topo, path):
    g = topo.graph()
    for u, v in zip(path, path[1:]):
        assert g.has_edge(u, v) and net.link_alive(u, v)


def test_route_avoids_failed_link(strip):
    env, net = harness(strip)
    net.fail_link(2, 3)
    nodes, lids = net.route(0, 5)
    g = strip.graph()
    g.remove_edge(2, 3)
    assert nodes[0] == 0 and nodes[-1] == 5 and len(nodes) - 1 == nx.shortest_path_length(g, 0, 5) == 7
    live_graph_check(net, strip, nodes)
    assert lids.tolist() == strip.link_ids(nodes).tolist()
    # a route that does not need the failed link keeps its dimension-order path
    assert net.route(3, 5)[0] == [3, 4, 5]


def test_route_avoids_failed_node_and_reports_unreachable(strip):
    env, net = harness(strip)
    net.fail_node(2)
    nodes, _ = net.route(0, 5)
    assert 2 not in nodes and len(nodes) - 1 == 7
    live_graph_check(net, strip, nodes)
    assert net.route(0, 2) is None
    # cut node 5 off: its links are 4-5 and 5-11
    net.fail_link(4, 5)
    net.fail_link(5, 11)
    assert net.route(0, 5) is None and 5 not in net.reachable_from(0)


def test_message_rerouted_before_it_reaches_a_failed_link(strip):
    env, net = harness(strip)
    r = send(env, net, 0, 5)
    env.timeout(5 * US).callbacks.append(lambda _e: net.fail_link(3, 4))
    env.run()
    # at node 3 at 6 us, detour 3-9-10-(11-5 | 4-5) = 4 hops: 6 + 8 = 14 us
    assert r["t"] == pytest.approx(14 * US)
    p = r["msg"].path
    assert p[:4] == [0, 1, 2, 3] and p[-1] == 5 and len(p) - 1 == 7
    assert not any({u, v} == {3, 4} for u, v in zip(p, p[1:]))


def test_message_cut_on_a_failing_link_is_retransmitted(strip):
    env, net = harness(strip)
    r = send(env, net, 0, 5)
    env.timeout(6.5 * US).callbacks.append(lambda _e: net.fail_link(3, 4))
    env.run()
    # on link 3-4 since 6 us; node 3 retransmits at 6.5 + 10 us over the 4-hop detour
    assert r["t"] == pytest.approx(16.5 * US + 8 * US)


def test_node_failure_reroutes_through_traffic_and_loses_what_it_holds(strip):
    env, net = harness(strip)
    through = send(env, net, 0, 5)       # on link 2->3 during [4 us, 6 us] at 5 us
    to_dead = send(env, net, 1, 3)
    env.timeout(5 * US).callbacks.append(lambda _e: net.fail_node(3))
    env.run()
    assert to_dead.get("lost") == pytest.approx(5 * US) and "t" not in to_dead
    # node 2 retransmits at 5 + 10 us around node 3: 2-8-9-10-(11-5 | 4-5) = 5 hops
    assert through["t"] == pytest.approx(15 * US + 10 * US)
    assert 3 not in through["msg"].path[2:]


def test_message_held_in_a_failing_node_is_lost(strip):
    env, net = harness(strip)
    lid = strip.link_ids([3, 4])[0]
    net.link_free[lid] = 20 * US        # link 3->4 busy until 20 us: the message waits in node 3
    r = send(env, net, 0, 5)
    env.timeout(7 * US).callbacks.append(lambda _e: net.fail_node(3))
    env.run()
    assert r.get("lost") == pytest.approx(7 * US) and "t" not in r
    assert net.messages_lost == 1
