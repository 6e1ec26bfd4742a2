"""Links, routing and message timing on the mesh, with failed nodes and links.

Link model (per direction of each link, store-and-forward):

* a message of ``size`` bytes occupies a link for ``size / bandwidth`` seconds
  (serialisation) and reaches the next node ``latency`` seconds after that;
* a link carries one message at a time; messages wait in FIFO order (**contention**);
* a node forwards a message once it has received all of it; a node's links work in
  parallel (one engine per port).

Defaults (documented assumptions; the published figure is only "up to 432 GB/s
aggregate per card", which is 16 GB/s per node = 16 GTX transceivers x 8 Gb/s usable):
``bandwidth_Bps = 16e9 / 6`` (a node's share spread over its 6 ports, 2.67 GB/s per link
direction) and ``latency_s = 1e-6`` per hop (SerDes + Aurora framing + a fabric router,
rounded up). The host computer reaches the entry node over 1 Gb/s Ethernet with 50 us
latency. The GA's traffic is tiny (a genome is a few integers), so the projection is not
sensitive to these figures; ``nc2600 mesh --link-latency-us`` changes them.

Timing is computed by **path reservation**: when a message is injected, it books each
link of its route in turn (``start = max(arrival, link_free)``). Each link therefore serves
messages in injection order rather than strict arrival order; the two agree whenever
messages reach a shared link in the order they were injected (every hand-worked case in
the tests) and differ only by idle gaps under heavy cross traffic, which this workload
does not have. It costs one simulation event per message instead of one per hop, which
is what lets a 10,000-node mesh run in seconds.

Routing: dimension-order (X, Y, Z) while the whole dimension-order route is alive;
otherwise a shortest path in the graph of live nodes and links (networkx BFS, neighbours in
increasing id order, so deterministic) -- the routing tables the host would recompute
after a fault. Messages already under way when a part fails are handled in
:meth:`Network.fail_node` / :meth:`Network.fail_link`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import networkx as nx

from .topology import MeshTopology


@dataclass(frozen=True)
class LinkParams:
    """Link and host-link parameters (seconds, bytes/second, bytes).

    ``latency_s``           per-hop latency after serialisation
    ``bandwidth_Bps``       bytes/s per link direction
    ``retry_s``             link-layer retransmission delay for a message cut by a link failure
    ``host_latency_s``      host computer <-> entry node latency
    ``host_bandwidth_Bps``  host computer <-> entry node bandwidth
    ``header_bytes``        bytes added to every message
    """

    latency_s: float = 1e-6
    bandwidth_Bps: float = 16e9 / 6
    retry_s: float = 10e-6
    host_latency_s: float = 50e-6
    host_bandwidth_Bps: float = 125e6
    header_bytes: int = 32


@dataclass(eq=False)
class Message:
    """A message under way: its route, and its arrival/departure time at each route node.

    ``path[i]`` is reached at ``arrive[i]`` and left at ``depart[i]`` (``i < len(path)-1``);
    the message is delivered at ``arrive[-1]``. ``payload`` is opaque to the network;
    ``version`` increases whenever the message is rerouted (stale delivery events are ignored).
    """

    mid: int
    src: int
    dst: int
    size: int
    payload: object
    on_deliver: Callable[["Message"], None]
    on_lost: Callable[["Message", float], None]
    path: list[int] = field(default_factory=list)
    arrive: list[float] = field(default_factory=list)
    depart: list[float] = field(default_factory=list)
    version: int = 0
    rerouted: int = 0


class Network:
    """Live state of the mesh (failed nodes and links) and the timing of messages.

    ``schedule(delay, fn)`` is the simulator's way to run ``fn()`` ``delay`` seconds from
    ``now()``; the network uses it to deliver messages.
    """

    def __init__(self, topo: MeshTopology, params: LinkParams, now: Callable[[], float],
                 schedule: Callable[[float, Callable[[], None]], None]):
        self.topo = topo
        self.p = params
        self.now = now
        self.schedule = schedule
        self.n = topo.n_nodes
        self.link_free: dict[int, float] = {}
        self.link_busy_s: dict[int, float] = {}
        self.dead_nodes: set[int] = set()
        self.dead_links: set[tuple[int, int]] = set()
        self._live: nx.Graph | None = None
        self._paths: dict[int, dict[int, list[int]]] = {}
        self.in_flight: dict[int, Message] = {}
        self._next_mid = 0
        self.messages_sent = 0
        self.bytes_sent = 0
        self.hops_sent = 0
        self.messages_lost = 0
        self.messages_rerouted = 0

    # ----- live graph and routes ---------------------------------------------------------
    @property
    def faulty(self) -> bool:
        return bool(self.dead_nodes or self.dead_links)

    def link_alive(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) not in self.dead_links and a not in self.dead_nodes and b not in self.dead_nodes

    def live_graph(self) -> nx.Graph:
        """The mesh graph without failed nodes and links (cached until the next fault)."""
        if self._live is None:
            g = nx.Graph()
            g.add_nodes_from(n for n in range(self.n) if n not in self.dead_nodes)
            g.add_edges_from((a, b) for a, b in self.topo.links()
                             if (a, b) not in self.dead_links and a not in self.dead_nodes and b not in self.dead_nodes)
            self._live = g
        return self._live

    def route(self, a: int, b: int) -> list[int] | None:
        """Route from ``a`` to ``b``: dimension order if alive, else a live shortest path.

        ``None`` when ``b`` cannot be reached (failed, or cut off).
        """
        if a in self.dead_nodes or b in self.dead_nodes:
            return None
        path = self.topo.dor_route(a, b)
        if not self.faulty:
            return path
        if all(self.link_alive(path[i], path[i + 1]) for i in range(len(path) - 1)):
            return path
        paths = self._paths.get(a)
        if paths is None:
            paths = self._paths[a] = nx.single_source_shortest_path(self.live_graph(), a)
        p = paths.get(b)
        return list(p) if p is not None else None

    def reachable_from(self, root: int) -> set[int]:
        """Live nodes connected to ``root``."""
        if root in self.dead_nodes:
            return set()
        return set(nx.node_connected_component(self.live_graph(), root))

    def tree_parents(self, root: int) -> dict[int, int]:
        """Multicast / reduction tree rooted at ``root`` over the live nodes reachable from it.

        Without faults: the tree of dimension-order routes (every node's parent is the
        previous node of its dimension-order route from ``root``). With faults: the BFS tree
        of the live graph (deterministic). Returns ``{node: parent}`` (root excluded).
        """
        if not self.faulty:
            return {n: self.topo.dor_parent(root, n) for n in range(self.n) if n != root}
        return dict(nx.bfs_predecessors(self.live_graph(), root))

    # ----- timing ------------------------------------------------------------------------
    def _book(self, path: list[int], t0: float, size: int) -> tuple[list[float], list[float]]:
        ser = size / self.p.bandwidth_Bps
        lat = self.p.latency_s
        arrive, depart = [t0], []
        t = t0
        free, busy, n = self.link_free, self.link_busy_s, self.n
        for i in range(len(path) - 1):
            key = path[i] * n + path[i + 1]
            start = free.get(key, 0.0)
            if start < t:
                start = t
            free[key] = start + ser
            busy[key] = busy.get(key, 0.0) + ser
            depart.append(start)
            t = start + ser + lat
            arrive.append(t)
        return arrive, depart

    def hop_time(self, size: int) -> float:
        """Seconds for one uncontended hop of a ``size``-byte message (header included)."""
        return (size + self.p.header_bytes) / self.p.bandwidth_Bps + self.p.latency_s

    def send(self, src: int, dst: int, payload_bytes: int, payload, on_deliver, on_lost, t0: float | None = None) -> Message:
        """Inject a message at ``src`` now (or at ``t0 >= now``) for ``dst``.

        ``on_deliver(msg)`` runs at delivery; ``on_lost(msg, t)`` runs if a failure destroys
        the message (at the failure time ``t``), or at once if ``dst`` is unreachable.
        """
        now = self.now()
        t0 = now if t0 is None else max(t0, now)
        size = payload_bytes + self.p.header_bytes
        msg = Message(self._next_mid, src, dst, size, payload, on_deliver, on_lost)
        self._next_mid += 1
        self.messages_sent += 1
        self.bytes_sent += size
        path = self.route(src, dst)
        if path is None:
            self.messages_lost += 1
            on_lost(msg, now)
            return msg
        msg.path = path
        msg.arrive, msg.depart = self._book(path, t0, size)
        self.hops_sent += len(path) - 1
        self._arm(msg)
        return msg

    def _arm(self, msg: Message):
        self.in_flight[msg.mid] = msg
        version = msg.version

        def deliver():
            if msg.version != version or msg.mid not in self.in_flight:
                return
            del self.in_flight[msg.mid]
            msg.on_deliver(msg)

        self.schedule(msg.arrive[-1] - self.now(), deliver)

    def _lose(self, msg: Message, t: float):
        self.in_flight.pop(msg.mid, None)
        msg.version += 1
        self.messages_lost += 1
        msg.on_lost(msg, t)

    def _reroute(self, msg: Message, i: int, t: float):
        """Send ``msg`` on from ``path[i]`` at time ``t`` along a new live route."""
        node = msg.path[i]
        rest = self.route(node, msg.dst)
        if rest is None:
            self._lose(msg, self.now())
            return
        arrive, depart = self._book(rest, t, msg.size)
        msg.path = msg.path[:i] + rest
        msg.arrive = msg.arrive[:i] + arrive
        msg.depart = msg.depart[:i] + depart
        msg.version += 1
        msg.rerouted += 1
        self.messages_rerouted += 1
        self.hops_sent += len(rest) - 1
        self._arm(msg)

    # ----- faults ------------------------------------------------------------------------
    def _invalidate(self):
        self._live = None
        self._paths = {}

    def fail_link(self, a: int, b: int):
        """Fail link ``a-b`` now. A message crossing it is retransmitted by the upstream node
        after ``retry_s`` along a new route; a message that would cross it later is rerouted
        from the upstream node when it gets there."""
        t = self.now()
        self.dead_links.add((min(a, b), max(a, b)))
        self._invalidate()
        for msg in list(self.in_flight.values()):
            for i in range(len(msg.path) - 1):
                u, v = msg.path[i], msg.path[i + 1]
                if {u, v} == {a, b} and msg.arrive[i + 1] > t:
                    if msg.depart[i] <= t:
                        self._reroute(msg, i, t + self.p.retry_s)
                    else:
                        self._reroute(msg, i, max(msg.arrive[i], t))
                    break

    def fail_node(self, node: int):
        """Fail ``node`` now. Messages for it, or held inside it, are lost (``on_lost``);
        a message on its way into it is retransmitted by the previous node along a new route
        (the previous node keeps a copy until the hop is acknowledged); a message that would
        pass it later is rerouted before it gets there."""
        t = self.now()
        self.dead_nodes.add(node)
        self._invalidate()
        for msg in list(self.in_flight.values()):
            if msg.dst == node:
                self._lose(msg, t)
                continue
            if msg.src == node:
                if msg.depart and msg.depart[0] > t:
                    self._lose(msg, t)
                    continue
            for i in range(1, len(msg.path) - 1):
                if msg.path[i] != node:
                    continue
                if msg.arrive[i] <= t:
                    if msg.depart[i] > t:
                        self._lose(msg, t)
                elif msg.depart[i - 1] <= t:
                    self._reroute(msg, i - 1, t + self.p.retry_s)
                else:
                    self._reroute(msg, i - 1, max(msg.arrive[i - 1], t))
                break

    def link_utilisation(self, makespan_s: float) -> float:
        """Busiest link direction's busy fraction over ``makespan_s``."""
        if not self.link_busy_s or makespan_s <= 0:
            return 0.0
        return max(self.link_busy_s.values()) / makespan_s
