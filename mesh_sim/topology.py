"""3D-mesh topology of the neural computer: cards of nodes tiled into one mesh.

The published machine (see arXiv 2003.11178 and arXiv 2005.04536) has 16 module cards x 27
nodes, each card a 3 x 3 x 3 cube of Zynq-7045 nodes, the cards joined into one 3D mesh.
How the cards are arranged is not published; the default here is a 4 x 4 x 1 grid of cards,
i.e. a 12 x 12 x 3 node mesh (a documented, configurable assumption: ``--mesh``).

Conventions used throughout :mod:`mesh_sim`:

* A node is an ``int`` id, ``id = x + X * (y + Y * z)`` for the coordinate ``(x, y, z)`` in an
  ``X x Y x Z`` mesh. Links join the (up to) 6 nearest neighbours; the mesh has no wrap-around
  (it is a mesh, not a torus).
* A card is a ``cx x cy x cz`` block of the mesh. Card ``k`` has block coordinate
  ``(kx, ky, kz)``, ``k = kx + gx * (ky + gy * kz)`` with ``(gx, gy, gz)`` the card grid.
* One node per card is its **I/O node** (the published machine leaves one node per card for
  other duties); by default the card-local corner ``(0, 0, 0)``. The others are **worker
  nodes**, each running ``instances_per_node`` game instances (**slots**).
* The host computer talks to the mesh through the **entry node**: the I/O node of card 0,
  i.e. node 0 at the mesh origin.
* Routing is **dimension-order** (X first, then Y, then Z), the deterministic minimal routing
  of mesh networks (Dally & Towles, *Principles and Practices of Interconnection Networks*,
  ch. 14); it is deadlock free on a mesh and its routes from one source form a spanning tree,
  which is the default multicast / reduction tree.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx
import numpy as np


def most_cubic_factors(n: int, k: int = 3) -> tuple[int, ...]:
    """Factor ``n`` into ``k`` positive integers, as close to equal as possible.

    Returns a non-decreasing tuple, e.g. ``most_cubic_factors(27) == (3, 3, 3)``,
    ``most_cubic_factors(16, 2) == (4, 4)``, ``most_cubic_factors(26) == (1, 2, 13)``.
    Ties are broken by the smallest largest factor, then lexicographically.
    """
    if n <= 0:
        raise ValueError(f"cannot factor {n}")
    best: tuple[int, ...] | None = None

    def rec(rest: int, parts: list[int], lo: int):
        nonlocal best
        if len(parts) == k - 1:
            if rest >= lo:
                cand = tuple(parts + [rest])
                if best is None or (cand[-1] - cand[0], cand[-1], cand) < (best[-1] - best[0], best[-1], best):
                    best = cand
            return
        f = lo
        while f ** (k - len(parts)) <= rest:
            if rest % f == 0:
                rec(rest // f, parts + [f], f)
            f += 1

    rec(n, [], 1)
    assert best is not None
    return best


def parse_shape(text: str) -> tuple[int, int, int]:
    """Parse ``"XxYxZ"`` (e.g. ``"12x12x3"``) into a tuple of three positive ints.

    Raises ``ValueError`` with a one-line message on anything else.
    """
    parts = text.lower().replace("*", "x").split("x")
    if len(parts) != 3:
        raise ValueError(f"mesh shape must be XxYxZ (e.g. 12x12x3), got {text!r}")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"mesh shape must be XxYxZ with integers, got {text!r}") from None
    if any(d <= 0 for d in dims):
        raise ValueError(f"mesh dimensions must be positive, got {text!r}")
    return dims  # type: ignore[return-value]


@dataclass(frozen=True)
class MeshTopology:
    """The fabric's nodes, cards, links and dimension-order routes.

    Parameters (all counts, no units):

    ``cards``               number of module cards (published: 16)
    ``nodes_per_card``      nodes per card (published: 27)
    ``instances_per_node``  game instances per worker node (published: 2)
    ``mesh``                node mesh ``(X, Y, Z)``; default: cards tiled in the most
                            square ``gx x gy x 1`` grid, e.g. 16 cards -> 12 x 12 x 3
    ``card_shape``          card block ``(cx, cy, cz)``; default: the most cubic
                            factorisation of ``nodes_per_card`` (27 -> 3 x 3 x 3)
    ``io_local``            card-local coordinate of each card's I/O node (default corner)

    Raises ``ValueError`` (one line) when the mesh cannot hold the cards as blocks.
    """

    cards: int = 16
    nodes_per_card: int = 27
    instances_per_node: int = 2
    mesh: tuple[int, int, int] | None = None
    card_shape: tuple[int, int, int] | None = None
    io_local: tuple[int, int, int] = (0, 0, 0)
    _derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.cards <= 0 or self.nodes_per_card <= 0 or self.instances_per_node <= 0:
            raise ValueError("cards, nodes per card and instances per node must be positive")
        if self.nodes_per_card < 2:
            raise ValueError("a card needs at least 2 nodes (one I/O node and one worker)")
        card = self.card_shape
        if card is None:
            card = most_cubic_factors(self.nodes_per_card)
            # put the largest factor on X so that thin cards lie flat
            card = (card[2], card[1], card[0])
        if card[0] * card[1] * card[2] != self.nodes_per_card:
            raise ValueError(f"card shape {card} does not hold {self.nodes_per_card} nodes")
        mesh = self.mesh
        if mesh is None:
            gx, gy = most_cubic_factors(self.cards, 2)[::-1]
            mesh = (gx * card[0], gy * card[1], card[2])
        X, Y, Z = mesh
        if X * Y * Z != self.cards * self.nodes_per_card:
            raise ValueError(
                f"mesh {X}x{Y}x{Z} has {X * Y * Z} positions but {self.cards} cards x "
                f"{self.nodes_per_card} nodes = {self.cards * self.nodes_per_card} nodes")
        if X % card[0] or Y % card[1] or Z % card[2]:
            raise ValueError(
                f"mesh {X}x{Y}x{Z} is not a whole number of {card[0]}x{card[1]}x{card[2]} cards")
        if not all(0 <= self.io_local[i] < card[i] for i in range(3)):
            raise ValueError(f"I/O node position {self.io_local} lies outside the card {card}")
        self._derived["card"] = tuple(card)
        self._derived["mesh"] = (X, Y, Z)

    # ----- shape -------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int, int]:
        """Mesh shape ``(X, Y, Z)`` in nodes."""
        return self._derived["mesh"]

    @property
    def card_dims(self) -> tuple[int, int, int]:
        """Card block shape ``(cx, cy, cz)`` in nodes."""
        return self._derived["card"]

    @property
    def n_nodes(self) -> int:
        """Total number of nodes (I/O nodes included)."""
        X, Y, Z = self.shape
        return X * Y * Z

    def coord(self, node: int) -> tuple[int, int, int]:
        """Coordinate ``(x, y, z)`` of a node id."""
        X, Y, _ = self.shape
        return node % X, (node // X) % Y, node // (X * Y)

    def node_id(self, x: int, y: int, z: int) -> int:
        """Node id of coordinate ``(x, y, z)``."""
        X, Y, _ = self.shape
        return x + X * (y + Y * z)

    def card_of(self, node: int) -> int:
        """Card index holding ``node``."""
        x, y, z = self.coord(node)
        cx, cy, cz = self.card_dims
        X, Y, _ = self.shape
        gx, gy = X // cx, Y // cy
        return x // cx + gx * (y // cy + gy * (z // cz))

    @cached_property
    def io_nodes(self) -> list[int]:
        """I/O node of each card, indexed by card (sorted by card index)."""
        cx, cy, cz = self.card_dims
        X, Y, Z = self.shape
        gx, gy = X // cx, Y // cy
        out = []
        for k in range(self.cards):
            kx, ky, kz = k % gx, (k // gx) % gy, k // (gx * gy)
            lx, ly, lz = self.io_local
            out.append(self.node_id(kx * cx + lx, ky * cy + ly, kz * cz + lz))
        return out

    @property
    def entry_node(self) -> int:
        """The node the host computer is attached to (I/O node of card 0)."""
        return self.io_nodes[0]

    @cached_property
    def worker_nodes(self) -> list[int]:
        """Worker node ids in increasing order (every node that is not an I/O node)."""
        io = set(self.io_nodes)
        return [n for n in range(self.n_nodes) if n not in io]

    @property
    def n_slots(self) -> int:
        """Number of game-instance slots (``len(worker_nodes) * instances_per_node``)."""
        return len(self.worker_nodes) * self.instances_per_node

    @cached_property
    def slot_nodes(self) -> list[int]:
        """Node of each slot. Slots are numbered instance-major,
        ``slot = instance * n_workers + worker_index``, so that consecutive slots lie on
        different nodes (round-robin then spreads a short phase over many nodes)."""
        w = self.worker_nodes
        return [w[s % len(w)] for s in range(self.n_slots)]

    # ----- links -------------------------------------------------------------------------
    @property
    def n_links(self) -> int:
        """Number of (bidirectional) links: ``(X-1)YZ + X(Y-1)Z + XY(Z-1)``."""
        X, Y, Z = self.shape
        return (X - 1) * Y * Z + X * (Y - 1) * Z + X * Y * (Z - 1)

    def neighbours(self, node: int) -> list[int]:
        """Mesh neighbours of ``node`` in the order -x, +x, -y, +y, -z, +z (those that exist)."""
        X, Y, Z = self.shape
        x, y, z = self.coord(node)
        out = []
        if x > 0:
            out.append(node - 1)
        if x < X - 1:
            out.append(node + 1)
        if y > 0:
            out.append(node - X)
        if y < Y - 1:
            out.append(node + X)
        if z > 0:
            out.append(node - X * Y)
        if z < Z - 1:
            out.append(node + X * Y)
        return out

    def links(self) -> list[tuple[int, int]]:
        """All links as ``(a, b)`` with ``a < b``, in increasing order."""
        return [(a, b) for a in range(self.n_nodes) for b in self.neighbours(a) if a < b]

    def is_intra_card(self, a: int, b: int) -> bool:
        """True when link ``a-b`` lies inside one card (card back-plane vs card-to-card cable)."""
        return self.card_of(a) == self.card_of(b)

    def graph(self) -> nx.Graph:
        """The mesh as a networkx graph.

        Node attributes: ``coord`` (x, y, z), ``card`` (int), ``role`` ("entry", "io",
        "worker"), ``instances`` (slots on the node). Edge attribute ``intra_card`` (bool).
        Nodes and edges are inserted in increasing id order, so BFS results are deterministic.
        """
        g = nx.Graph()
        io = set(self.io_nodes)
        for n in range(self.n_nodes):
            role = "entry" if n == self.entry_node else ("io" if n in io else "worker")
            g.add_node(n, coord=self.coord(n), card=self.card_of(n), role=role,
                       instances=0 if n in io else self.instances_per_node)
        for a, b in self.links():
            g.add_edge(a, b, intra_card=self.is_intra_card(a, b))
        return g

    # ----- routing -----------------------------------------------------------------------
    def hops(self, a: int, b: int) -> int:
        """Hop count of the dimension-order route from ``a`` to ``b`` (Manhattan distance)."""
        ax, ay, az = self.coord(a)
        bx, by, bz = self.coord(b)
        return abs(ax - bx) + abs(ay - by) + abs(az - bz)

    @property
    def diameter(self) -> int:
        """Largest hop count between two nodes: ``(X-1) + (Y-1) + (Z-1)``."""
        X, Y, Z = self.shape
        return X + Y + Z - 3

    def dor_route(self, a: int, b: int) -> list[int]:
        """Dimension-order route from ``a`` to ``b``: correct X first, then Y, then Z.

        Returns the node ids visited, both ends included (``[a]`` when ``a == b``).
        """
        X, Y, _ = self.shape
        ax, ay, az = self.coord(a)
        bx, by, bz = self.coord(b)
        path = [a]
        n = a
        step = 1 if bx > ax else -1
        for _ in range(abs(bx - ax)):
            n += step
            path.append(n)
        step = X if by > ay else -X
        for _ in range(abs(by - ay)):
            n += step
            path.append(n)
        step = X * Y if bz > az else -X * Y
        for _ in range(abs(bz - az)):
            n += step
            path.append(n)
        return path

    def dor_route_array(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`dor_route` as arrays: ``(nodes, link_ids)``, both int64.

        ``link_ids[i]`` is the directed link ``nodes[i] -> nodes[i+1]`` as
        ``6 * nodes[i] + port`` with ports 0..5 = -x, +x, -y, +y, -z, +z.
        """
        X, Y, _ = self.shape
        ax, ay, az = self.coord(a)
        bx, by, bz = self.coord(b)
        segs, ports = [np.array([a], dtype=np.int64)], []
        n = a
        for delta, unit, port_neg in ((bx - ax, 1, 0), (by - ay, X, 2), (bz - az, X * Y, 4)):
            if delta:
                k = abs(delta)
                step = unit if delta > 0 else -unit
                segs.append(n + step * np.arange(1, k + 1, dtype=np.int64))
                ports.append(np.full(k, port_neg + (1 if delta > 0 else 0), dtype=np.int64))
                n += step * k
        nodes = np.concatenate(segs)
        port = np.concatenate(ports) if ports else np.zeros(0, dtype=np.int64)
        return nodes, 6 * nodes[:-1] + port

    def link_ids(self, nodes) -> np.ndarray:
        """Directed link ids (``6 * node + port``) of a route given as a node sequence."""
        X, Y, _ = self.shape
        nodes = np.asarray(nodes, dtype=np.int64)
        dx = np.diff(nodes % X)
        dy = np.diff((nodes // X) % Y)
        dz = np.diff(nodes // (X * Y))
        if (np.abs(dx) + np.abs(dy) + np.abs(dz) != 1).any():
            raise ValueError("route steps between nodes that are not neighbours")
        port = np.where(dx != 0, (dx > 0), np.where(dy != 0, 2 + (dy > 0), 4 + (dz > 0)))
        return 6 * nodes[:-1] + port.astype(np.int64)

    def dor_parent(self, root: int, node: int) -> int | None:
        """Parent of ``node`` in the tree of dimension-order routes from ``root``.

        The route from ``root`` to ``node`` corrects X, then Y, then Z, so its last hop is
        along the highest dimension still differing; the parent steps back along it.
        ``None`` for the root itself.
        """
        if node == root:
            return None
        X, Y, _ = self.shape
        rx, ry, rz = self.coord(root)
        x, y, z = self.coord(node)
        if z != rz:
            return node - X * Y if z > rz else node + X * Y
        if y != ry:
            return node - X if y > ry else node + X
        return node - 1 if x > rx else node + 1
