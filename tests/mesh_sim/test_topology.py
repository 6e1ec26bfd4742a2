"""Topology facts of the 3D mesh, checked by hand and against networkx (independent oracle)."""
import collections
import itertools

import networkx as nx
import numpy as np
import pytest

from nc2600.mesh_sim.topology import MeshTopology, most_cubic_factors, parse_shape


@pytest.fixture(scope="module")
def topo():
    return MeshTopology()


def test_published_counts(topo):
    # 16 cards x 27 nodes in a 12 x 12 x 3 mesh; one I/O node per card; 2 instances per worker
    assert topo.shape == (12, 12, 3)
    assert topo.card_dims == (3, 3, 3)
    assert topo.n_nodes == 432
    assert len(topo.io_nodes) == 16 and len(set(topo.io_nodes)) == 16
    assert len(topo.worker_nodes) == 416
    assert topo.n_slots == 832
    # links by hand: (X-1)YZ + X(Y-1)Z + XY(Z-1) = 11*12*3 + 12*11*3 + 12*12*2
    assert topo.n_links == 396 + 396 + 288 == 1080
    g = topo.graph()
    assert g.number_of_nodes() == 432 and g.number_of_edges() == 1080


def test_degree_histogram_by_hand(topo):
    # degree = 6 - (number of axes on which the node is at a face); Z = 3 has faces z=0, z=2
    # deg 3: 2*2*2 = 8 corners; deg 4: 2*2*1 + 2*10*2 + 10*2*2 = 84;
    # deg 5: 2*10*1 + 10*2*1 + 10*10*2 = 240; deg 6: 10*10*1 = 100
    hist = collections.Counter(d for _, d in topo.graph().degree())
    assert hist == {3: 8, 4: 84, 5: 240, 6: 100}


def test_card_blocks_and_link_split(topo):
    g = topo.graph()
    per_card = collections.Counter(topo.card_of(n) for n in range(topo.n_nodes))
    assert set(per_card.values()) == {27} and len(per_card) == 16
    for k in range(16):
        coords = np.array([topo.coord(n) for n in range(topo.n_nodes) if topo.card_of(n) == k])
        assert (coords.max(0) - coords.min(0)).tolist() == [2, 2, 2]  # a 3x3x3 cube
        assert topo.card_of(topo.io_nodes[k]) == k
    intra = sum(1 for a, b, d in g.edges(data=True) if d["intra_card"])
    # a 3x3x3 cube has 3 * (2*3*3) = 54 links; 16 cards -> 864; card-to-card: 3 seams x 12 x 3 per axis
    assert intra == 16 * 54 == 864
    assert g.number_of_edges() - intra == 2 * 3 * 12 * 3 == 216
    assert topo.entry_node == 0 and g.nodes[0]["role"] == "entry"


def test_diameter(topo):
    assert topo.diameter == 11 + 11 + 2 == 24
    # networkx: eccentricity of a corner in a mesh is the diameter
    assert nx.eccentricity(topo.graph(), 0) == 24
    assert topo.hops(topo.node_id(0, 0, 0), topo.node_id(11, 11, 2)) == 24


def test_dimension_order_route_by_hand(topo):
    a, b = topo.node_id(2, 5, 1), topo.node_id(0, 3, 2)
    want = [(2, 5, 1), (1, 5, 1), (0, 5, 1), (0, 4, 1), (0, 3, 1), (0, 3, 2)]  # X, then Y, then Z
    assert [topo.coord(n) for n in topo.dor_route(a, b)] == want
    assert topo.hops(a, b) == 5
    assert topo.dor_route(a, a) == [a]
    nodes, lids = topo.dor_route_array(a, b)
    assert nodes.tolist() == topo.dor_route(a, b)
    # ports: -x, -x, -y, -y, +z
    assert (lids - 6 * nodes[:-1]).tolist() == [0, 0, 2, 2, 5]
    assert lids.tolist() == topo.link_ids(nodes).tolist()


def test_dor_routes_are_shortest_paths(topo):
    g = topo.graph()
    rng = np.random.default_rng(7)
    for a, b in rng.integers(0, topo.n_nodes, size=(60, 2)).tolist():
        path = topo.dor_route(a, b)
        assert all(g.has_edge(u, v) for u, v in zip(path, path[1:]))
        assert len(path) - 1 == nx.shortest_path_length(g, a, b) == topo.hops(a, b)


def test_dor_tree_is_a_spanning_tree(topo):
    root = topo.entry_node
    t = nx.Graph((n, topo.dor_parent(root, n)) for n in range(topo.n_nodes) if n != root)
    assert nx.is_tree(t) and t.number_of_nodes() == 432
    assert all(nx.shortest_path_length(t, root, n) == topo.hops(root, n) for n in range(0, 432, 37))


def test_other_shapes_and_bad_shapes():
    t = MeshTopology(cards=384)
    assert t.shape == (72, 48, 3) and t.n_nodes == 10368 and t.n_slots == 384 * 26 * 2
    t = MeshTopology(cards=16, mesh=(6, 6, 12))
    assert t.n_nodes == 432 and len(t.io_nodes) == 16
    with pytest.raises(ValueError, match="positions"):
        MeshTopology(mesh=(10, 10, 3))
    with pytest.raises(ValueError, match="whole number"):
        MeshTopology(cards=16, mesh=(4, 36, 3))
    with pytest.raises(ValueError):
        MeshTopology(cards=0)
    with pytest.raises(ValueError):
        MeshTopology(nodes_per_card=1)


def test_helpers():
    assert most_cubic_factors(27) == (3, 3, 3)
    assert most_cubic_factors(16, 2) == (4, 4)
    assert most_cubic_factors(26) == (1, 2, 13)
    for n in (1, 12, 30, 64, 100):
        f = most_cubic_factors(n)
        assert int(np.prod(f)) == n and min(
            max(c) - min(c) for c in itertools.product(range(1, n + 1), repeat=3) if np.prod(c) == n
        ) == max(f) - min(f)
    assert parse_shape("12x12x3") == (12, 12, 3)
    for bad in ("12x12", "axbxc", "0x1x1", "-1x2x3"):
        with pytest.raises(ValueError):
            parse_shape(bad)
