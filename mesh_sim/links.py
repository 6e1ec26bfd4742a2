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
is what lets a 10,000-node mesh run in seconds. (When a failure reroutes a message, the
links it had booked beyond the reroute point stay booked: a small pessimism, only under
faults.)

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
import numpy as np

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


@dataclass(eq=False, slots=True)
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
        # per directed link (id 6 * node + port, see MeshTopology.dor_route_array)
        self.link_free = np.zeros(6 * self.n)
        self.link_busy_s = np.zeros(6 * self.n)
        self.dead_nodes: set[int] = set()
        self.dead_links: set[tuple[int, int]] = set()
        self._live: nx.Graph | None = None
        self._dead_lids: set[int] = set()
        self._preds: dict[int, dict[int, int]] = {}
        self._dor_cache: dict[int, tuple[list[int], np.ndarray, list[int]]] = {}
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
        """The mesh graph without failed nodes and links (kept up to date at each fault)."""
        if self._live is None:
            self._live = self.topo.graph()
            self._live.remove_edges_from(self.dead_links)
            self._live.remove_nodes_from(self.dead_nodes)
        return self._live

    def route(self, a: int, b: int) -> tuple[list[int], np.ndarray] | None:
        """Route from ``a`` to ``b`` as ``(nodes, link_ids)`` (a list, and an int64 array of
        directed link ids, see :meth:`MeshTopology.dor_route_array`): dimension order if
        alive, else a live shortest path. ``None`` when ``b`` cannot be reached.
        Dimension-order routes are cached (they never change).
        """
        if a in self.dead_nodes or b in self.dead_nodes:
            return None
        key = a * self.n + b
        r = self._dor_cache.get(key)
        if r is None:
            nodes, lids = self.topo.dor_route_array(a, b)
            r = self._dor_cache[key] = (nodes.tolist(), lids, lids.tolist())
        if not self._dead_lids or self._dead_lids.isdisjoint(r[2]):
            return r[0], r[1]
        p = self._shortest(a, b)
        if p is None:
            return None
        return p, self.topo.link_ids(p)

    def _bfs(self, root: int) -> dict[int, int]:
        """BFS predecessor map of the live graph from ``root`` (cached until the next fault;
        neighbours are visited in increasing id order, so it is deterministic)."""
        pred = self._preds.get(root)
        if pred is None:
            pred = self._preds[root] = {root: root} | dict(nx.bfs_predecessors(self.live_graph(), root))
        return pred

    def _shortest(self, a: int, b: int) -> list[int] | None:
        """A shortest live path from ``a`` to ``b`` read off a BFS tree rooted at either end
        (the graph is undirected); traffic to and from the entry node costs one BFS per fault."""
        if a in self._preds or b not in self._preds:
            pred = self._bfs(a)
            if b not in pred:
                return None
            path = [b]
            while path[-1] != a:
                path.append(pred[path[-1]])
            return path[::-1]
        pred = self._preds[b]
        if a not in pred:
            return None
        path = [a]
        while path[-1] != b:
            path.append(pred[path[-1]])
        return path

    def reachable_from(self, root: int) -> set[int]:
        """Live nodes connected to ``root``."""
        if root in self.dead_nodes:
            return set()
        return set(self._bfs(root))

    def tree_parents(self, root: int) -> dict[int, int]:
        """Multicast / reduction tree rooted at ``root`` over the live nodes reachable from it.

        Without faults: the tree of dimension-order routes (every node's parent is the
        previous node of its dimension-order route from ``root``). With faults: the BFS tree
        of the live graph (deterministic). Returns ``{node: parent}`` (root excluded).
        """
        if not self.faulty:
            return {n: self.topo.dor_parent(root, n) for n in range(self.n) if n != root}
        pred = dict(self._bfs(root))
        del pred[root]
        return pred

    # ----- timing ------------------------------------------------------------------------
    def _book(self, lids: np.ndarray, t0: float, size: int) -> tuple[list[float], list[float]]:
        """Reserve links ``lids`` in turn for a ``size``-byte message ready at ``t0``.

        Returns ``(arrive, depart)``: arrival time at each route node (``arrive[0] = t0``)
        and departure time from each but the last. Per hop ``k``:
        ``depart[k] = max(arrive[k], link_free)``, the link is then busy ``size/bandwidth``
        and ``arrive[k+1] = depart[k] + size/bandwidth + latency``. Long routes use the
        closed form ``depart[k] = k*c + max_{j<=k}(max(t0, free_j - j*c))`` with
        ``c = size/bandwidth + latency`` (numpy), equal to the loop up to rounding.
        """
        ser = size / self.p.bandwidth_Bps
        c = ser + self.p.latency_s
        h = len(lids)
        free, busy = self.link_free, self.link_busy_s
        if h <= 8:
            arrive, depart = [t0], []
            t = t0
            for lid in lids.tolist():
                start = free[lid]
                if start < t:
                    start = t
                free[lid] = start + ser
                busy[lid] += ser
                depart.append(start)
                t = start + c
                arrive.append(t)
            return arrive, depart
        k_c = np.arange(h) * c
        start = np.maximum.accumulate(np.maximum(free[lids] - k_c, t0)) + k_c
        free[lids] = start + ser
        busy[lids] += ser
        depart = start.tolist()
        return [t0] + (start + c).tolist(), depart

    def hop_time(self, size: int) -> float:
        """Seconds for one uncontended hop of a ``size``-byte message (header included)."""
        return (size + self.p.header_bytes) / self.p.bandwidth_Bps + self.p.latency_s

    def send(self, src: int, dst: int, payload_bytes: int, payload, on_deliver, on_lost,
             t0: float | None = None) -> Message:
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
        r = self.route(src, dst)
        if r is None:
            self.messages_lost += 1
            on_lost(msg, now)
            return msg
        msg.path = r[0]
        msg.arrive, msg.depart = self._book(r[1], t0, size)
        self.hops_sent += len(r[1])
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
        r = self.route(node, msg.dst)
        if r is None:
            self._lose(msg, self.now())
            return
        arrive, depart = self._book(r[1], t, msg.size)
        msg.path = msg.path[:i] + r[0]
        msg.arrive = msg.arrive[:i] + arrive
        msg.depart = msg.depart[:i] + depart
        msg.version += 1
        msg.rerouted += 1
        self.messages_rerouted += 1
        self.hops_sent += len(r[1])
        self._arm(msg)

    # ----- faults ------------------------------------------------------------------------
    def _kill_link(self, a: int, b: int):
        self.dead_links.add((min(a, b), max(a, b)))
        self._dead_lids.update(self.topo.link_ids([a, b]).tolist() + self.topo.link_ids([b, a]).tolist())
        if self._live is not None and self._live.has_edge(a, b):
            self._live.remove_edge(a, b)
        self._preds = {}

    def _kill_node(self, node: int):
        self.dead_nodes.add(node)
        for m in self.topo.neighbours(node):
            self._dead_lids.update(self.topo.link_ids([node, m]).tolist() + self.topo.link_ids([m, node]).tolist())
        if self._live is not None and node in self._live:
            self._live.remove_node(node)
        self._preds = {}

    def fail_link(self, a: int, b: int):
        """Fail link ``a-b`` now. A message crossing it is retransmitted by the upstream node
        after ``retry_s`` along a new route; a message that would cross it later is rerouted
        from the upstream node when it gets there."""
        t = self.now()
        self._kill_link(a, b)
        for msg in list(self.in_flight.values()):
            if a not in msg.path or b not in msg.path:
                continue
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
        self._kill_node(node)
        for msg in list(self.in_flight.values()):
            if msg.dst == node:
                self._lose(msg, t)
                continue
            if msg.src == node:
                if msg.depart and msg.depart[0] > t:
                    self._lose(msg, t)
                    continue
            if node not in msg.path:
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
        if makespan_s <= 0:
            return 0.0
        return float(self.link_busy_s.max()) / makespan_s
