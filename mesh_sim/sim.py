"""Discrete-event simulation of GA generations on the mesh (SimPy engine).

What happens in one phase (a generation's ``train`` or ``elite`` evaluations, see
:mod:`nc2600.mesh_sim.workload`), per schedule:

``static`` (round-robin, generation barrier)
    The host sends the phase's genomes (seed lists) to the entry node; they are multicast
    down the tree (:meth:`Network.tree_parents`), one copy per tree link. Evaluation ``j``
    of the phase goes to live slot ``j mod S`` (slots instance-major, so a short phase is
    spread over many nodes). A node runs its slots' lists; when its own lists are done and
    every child in the tree has reported, it sends the concatenated results (fitness,
    frames) to its parent: a reduction tree back to the entry node. The phase ends when
    the entry node holds every result; the results cross to the host, which ranks them
    (``host_select_s``) and starts the next phase.
``pull`` (dynamic, generation barrier)
    The genomes are multicast as above. Each instance asks the entry node's dispatcher for
    work (a request message; the previous result rides on it); the dispatcher answers with
    the next evaluation of the phase, or "none" and remembers the idle instance. The phase
    ends when every result is in.
``async`` (steady-state GA, no barrier)
    Like ``pull`` but with a single queue of all evaluations of the run: an instance that
    finishes gets the next evaluation at once; the genome rides on the reply (a steady-state
    GA draws a parent from the current elite whenever an instance frees up). Same
    evaluations, same lengths: only the barriers go.

Faults (:mod:`nc2600.mesh_sim.faults`): at a node failure its running evaluations are aborted,
and everything the node held (queued evaluations, results waiting to be forwarded, messages
inside it or addressed to it) is lost. After ``detect_s`` (heartbeat timeout) the host
re-queues every lost evaluation with a new attempt number; the dispatcher (pull/async) or
a round-robin over live slots (static, results returned point to point) runs them again.
The multicast/reduction tree is rebuilt over the live nodes at once (routing tables), and
nodes cut off from the entry node are retired like failed ones.

**Exactly-once invariant**: the host accepts a result only for the evaluation's current
attempt; at the end, every planned evaluation must have been accepted exactly once.
``lost_evaluations`` counts planned evaluations never accepted, ``duplicated_evaluations``
the extra acceptances; both are computed from the log of accepted results, independently
of the bookkeeping that produced it.
"""
from __future__ import annotations

import gc
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import simpy

from .faults import Fault
from .links import LinkParams, Message, Network
from .node import NodeParams
from .topology import MeshTopology
from .workload import Workload

SCHEDULES = ("static", "pull", "async")


@dataclass(frozen=True)
class SimConfig:
    """Protocol parameters (seconds, bytes).

    ``schedule``        static | pull | async
    ``host_select_s``   host ranks a phase's fitness and draws the next seeds
    ``dispatch_s``      entry node's dispatcher handles one request (pull/async)
    ``detect_s``        heartbeat timeout: a node failure is noticed this long after it happens
    ``genome_bytes``    one individual in a broadcast or a reply (parent index + seed: 2 x u32)
    ``result_bytes``    one result (evaluation id u32, attempt u16, fitness f32, frames u32 + pad)
    ``request_bytes``   a work request without result
    """

    schedule: str = "static"
    host_select_s: float = 1e-3
    dispatch_s: float = 2e-6
    detect_s: float = 10e-3
    genome_bytes: int = 8
    result_bytes: int = 16
    request_bytes: int = 8

    def __post_init__(self):
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, got {self.schedule!r}")


# time categories of slot-seconds
CATEGORIES = ("counted_frames", "reset", "inference", "weight_load", "communication", "host",
              "barrier", "fault_lost_work", "fault_dead_slots")


@dataclass
class _Slot:
    node: int
    alive: bool = True
    died_at: float = 0.0
    eid: int = -1
    att: int = 0
    direct: bool = False
    start: float = 0.0
    version: int = 0
    queue: deque = field(default_factory=deque)
    last_ind: tuple = (-1, -1)
    requested_at: float = -1.0


class FabricSim:
    """One simulation of a workload on the fabric. Call :meth:`run` once; it returns the report dict.

    ``topo``: the mesh; ``workload``: the evaluations; ``node``/``links``/``config``: the timing
    and protocol parameters; ``faults``: failures in time order.
    """

    def __init__(self, topo: MeshTopology, workload: Workload, node: NodeParams = NodeParams(),
                 links: LinkParams = LinkParams(), config: SimConfig = SimConfig(), faults: list[Fault] = ()):
        self.topo, self.w, self.np_, self.lp, self.cfg = topo, workload, node, links, config
        self.faults = sorted(faults)
        self.env = simpy.Environment()
        self.net = Network(topo, links, now=lambda: self.env.now, schedule=self._after)
        self.slots = [_Slot(n) for n in topo.slot_nodes]
        self.node_slots: dict[int, list[int]] = {}
        for s, n in enumerate(topo.slot_nodes):
            self.node_slots.setdefault(n, []).append(s)
        self.entry = topo.entry_node
        n_eval = workload.n_evaluations
        self.attempt = np.zeros(n_eval, dtype=np.int64)
        self.accepted = np.zeros(n_eval, dtype=np.int64)
        self.accept_log: list[int] = []
        self.done_parts: dict[tuple[int, int], tuple[float, float, float, float]] = {}
        self.t = dict.fromkeys(CATEGORIES, 0.0)
        self.requeued = 0
        self.stale_results = 0
        self.phase = -1
        self.phase_left = 0
        self.phase_start_s: list[float] = []
        self.end_s: float | None = None
        self.dead_nodes: set[int] = set()
        self.rr = 0  # round-robin pointer for recovery work (static)
        self.last_phase = -1
        self.waiting: dict[int, None] = {}
        self.queue: deque = deque()
        self.bc_started: set[int] = set()
        self.bc_pending: set[int] = set()
        self.bc_lost = False
        self._tree_parent: dict[int, int] | None = None
        self._tree_children: dict[int, list[int]] = {}
        self.bc_sent_at = 0.0
        self.disp_free = 0.0
        self.gs = _GatherState()
        self.eid_phase = np.zeros(n_eval, dtype=np.int64)
        if config.schedule == "async":
            self.phases = [np.concatenate(workload.phases)] if workload.phases else []
        else:
            self.phases = list(workload.phases)
        for p, eids in enumerate(self.phases):
            self.eid_phase[eids] = p

    # ----- engine helpers ----------------------------------------------------------------
    def _after(self, delay: float, fn):
        ev = self.env.timeout(delay if delay > 0 else 0.0)
        ev.callbacks.append(lambda _e: fn())

    def _host_link_s(self, payload_bytes: int) -> float:
        return self.lp.host_latency_s + (payload_bytes + self.lp.header_bytes) / self.lp.host_bandwidth_Bps

    def _live_slots(self) -> list[int]:
        return [s for s, sl in enumerate(self.slots) if sl.alive]

    # ----- evaluation on a slot ----------------------------------------------------------
    def _start_eval(self, s: int, eid: int, att: int, direct: bool = False):
        sl = self.slots[s]
        ind = (int(self.w.generation[eid]), int(self.w.individual[eid]))
        parts = self.np_.eval_parts(int(self.w.frames[eid]), int(self.w.steps[eid]), ind != sl.last_ind)
        sl.last_ind = ind
        sl.eid, sl.att, sl.direct, sl.start = eid, att, direct, self.env.now
        sl.version += 1
        version = sl.version
        self.done_parts[(eid, att)] = parts

        def done():
            if sl.version == version and sl.alive:
                self._eval_done(s)

        self._after(sum(parts), done)

    def _eval_done(self, s: int):
        sl = self.slots[s]
        item = (sl.eid, sl.att)
        direct = sl.direct
        sl.eid = -1
        if self.cfg.schedule == "static":
            if direct:
                self._send_results(sl.node, self.entry, [item])
            else:
                st = self.gs
                st.buffer[sl.node].append(item)
                st.own_pending[sl.node] -= 1
                self._check_forward(sl.node)
            self._static_next(s)
        else:
            self._request(s, item)

    # ----- results at the host -----------------------------------------------------------
    def _accept(self, items):
        for eid, att in items:
            if self.attempt[eid] != att or self.accepted[eid]:
                self.stale_results += 1
                continue
            self.accepted[eid] += 1
            self.accept_log.append(eid)
            parts = self.done_parts.pop((eid, att))
            self.t["counted_frames"] += parts[0]
            self.t["reset"] += parts[1]
            self.t["inference"] += parts[2]
            self.t["weight_load"] += parts[3]
            if self.eid_phase[eid] == self.phase:
                self.phase_left -= 1
        if self.phase_left == 0 and self.phase >= 0 and self.end_s is None:
            self._phase_end()

    def _lost(self, items, t: float):
        """Evaluations destroyed at time ``t``: re-queued ``detect_s`` later."""
        items = list(items)
        if not items:
            return

        def requeue():
            fresh = []
            for eid, att in items:
                if self.accepted[eid] or self.attempt[eid] != att:
                    continue
                parts = self.done_parts.pop((eid, att), None)
                if parts is not None:  # it had finished; its result died with a node
                    self.t["fault_lost_work"] += sum(parts)
                self.attempt[eid] += 1
                fresh.append((int(eid), int(self.attempt[eid])))
            self.requeued += len(fresh)
            if fresh:
                self._requeue(fresh)

        self._after(t + self.cfg.detect_s - self.env.now, requeue)

    # ----- phases ------------------------------------------------------------------------
    def _phase_begin(self, p: int):
        self.phase = self.last_phase = p
        eids = self.phases[p]
        self.phase_left = int(np.count_nonzero(self.accepted[eids] == 0))
        self.phase_start_s.append(self.env.now)
        if self.cfg.schedule == "static":
            self._static_begin(eids)
        else:
            self._pull_begin(eids)

    def _phase_end(self):
        now = self.env.now
        n_res = len(self.phases[self.phase])
        to_host = self._host_link_s(n_res * self.cfg.result_bytes)
        live = len(self._live_slots())
        self.phase = -1
        if self.last_phase + 1 >= len(self.phases):
            self.end_s = now + to_host
            self.t["host"] += live * to_host
            return
        nxt = self.phases[self.last_phase + 1]
        n_gen = len(set(self.w.individual[nxt].tolist()))
        gap = to_host + self.cfg.host_select_s + self._host_link_s(n_gen * self.cfg.genome_bytes)
        self.t["host"] += live * gap
        p_next = self.last_phase + 1
        self._after(gap, lambda: self._phase_begin(p_next))

    # ----- broadcast (static and pull) -----------------------------------------------------
    def _broadcast(self, eids, on_start):
        """Multicast the phase's genomes from the entry node down the current tree;
        ``on_start(node)`` runs at each node when its copy has arrived."""
        n_gen = len(set(self.w.individual[eids].tolist()))
        size = n_gen * self.cfg.genome_bytes
        self.bc_size = size
        self.bc_started = set()
        self.bc_pending = set()
        self.bc_lost = False
        self.bc_on_start = on_start
        self.bc_sent_at = self.env.now
        self._bc_arrive(self.entry)

    def _bc_arrive(self, node: int):
        if node in self.dead_nodes or node in self.bc_started:
            return
        self.bc_started.add(node)
        self.bc_pending.discard(node)
        for c in self.tree_children.get(node, ()):
            self._bc_send(node, c)
        self.bc_on_start(node)

    def _bc_send(self, parent: int, child: int):
        if child in self.bc_started or child in self.bc_pending or child in self.dead_nodes:
            return
        self.bc_pending.add(child)

        def lost(m: Message, t: float):
            self.bc_pending.discard(child)
            self.bc_lost = True

        self.net.send(parent, child, self.bc_size, None, lambda m: self._bc_arrive(child), lost)

    @property
    def tree_parent(self) -> dict[int, int]:
        """Current multicast/reduction tree ``{node: parent}`` (rebuilt lazily after a fault)."""
        if self._tree_parent is None:
            self._build_tree()
        return self._tree_parent

    @property
    def tree_children(self) -> dict[int, list[int]]:
        if self._tree_parent is None:
            self._build_tree()
        return self._tree_children

    def _build_tree(self):
        parents = self.net.tree_parents(self.entry)  # reachable live nodes only
        self._tree_parent = parents
        ch: dict[int, list[int]] = {}
        for n, p in parents.items():
            ch.setdefault(p, []).append(n)
        self._tree_children = ch

    # ----- static schedule ---------------------------------------------------------------
    def _static_begin(self, eids):
        live = self._live_slots()
        st = self.gs = _GatherState()
        for j, eid in enumerate(eids if live else ()):  # no live slot: the phase cannot finish
            if self.accepted[eid]:
                continue
            s = live[j % len(live)]
            self.slots[s].queue.append((int(eid), int(self.attempt[eid]), False))
            st.own_pending[self.slots[s].node] = st.own_pending.get(self.slots[s].node, 0) + 1
        for n in self.tree_parent:
            st.buffer[n] = []
        st.buffer[self.entry] = []
        self._broadcast(eids, self._static_node_start)

    def _static_node_start(self, node: int):
        st = self.gs
        st.started.add(node)
        for s in self.node_slots.get(node, ()):
            sl = self.slots[s]
            if sl.alive:
                self.t["communication"] += self.env.now - self.bc_sent_at
                if sl.eid < 0:
                    self._static_next(s)
        self._check_forward(node)

    def _static_next(self, s: int):
        sl = self.slots[s]
        if sl.eid >= 0 or not sl.alive:
            return
        if sl.node not in self.gs.started and sl.queue and not sl.queue[0][2]:
            return
        while sl.queue:
            eid, att, direct = sl.queue.popleft()
            if self.accepted[eid] or self.attempt[eid] != att:
                continue
            self._start_eval(s, eid, att, direct)
            return

    def _waiting_children(self, node: int) -> bool:
        st = self.gs
        for c in self.tree_children.get(node, ()):
            if c not in st.forwarded and c not in self.dead_nodes:
                return True
        return False

    def _check_forward(self, node: int):
        st = self.gs
        if node == self.entry:
            items = st.buffer.get(node, [])
            st.buffer[node] = []
            if items:
                self._accept(items)
            return
        if node in st.forwarded or node not in st.started or node in self.dead_nodes:
            return
        if st.own_pending.get(node, 0) > 0 or self._waiting_children(node):
            return
        st.forwarded.add(node)
        items = st.buffer.get(node, [])
        st.buffer[node] = []
        parent = self.tree_parent.get(node)
        if parent is None:
            self._lost(items, self.env.now)
            return
        self._send_agg(node, parent, items)

    def _send_agg(self, node: int, parent: int, items):
        def deliver(m: Message):
            st = self.gs
            if m.payload[1] is not st:  # aggregate of an earlier phase: should not happen
                raise AssertionError("aggregate crossed a phase boundary")
            if parent == self.entry:
                self._accept(m.payload[0])
            elif parent in st.forwarded:  # late: relay upward at once
                p2 = self.tree_parent.get(parent)
                if p2 is None:
                    self._lost(m.payload[0], self.env.now)
                else:
                    self._send_agg(parent, p2, m.payload[0])
            else:
                st.buffer[parent].extend(m.payload[0])
            if parent != self.entry:
                self._check_forward(parent)

        self.net.send(node, parent, len(items) * self.cfg.result_bytes, (items, self.gs), deliver,
                      lambda m, t: self._lost(m.payload[0], t))

    def _send_results(self, src: int, dst: int, items):
        self.net.send(src, dst, len(items) * self.cfg.result_bytes, items,
                      lambda m: self._accept(m.payload), lambda m, t: self._lost(m.payload, t))

    # ----- pull / async ------------------------------------------------------------------
    def _pull_begin(self, eids):
        self.queue = deque((int(e), int(self.attempt[e])) for e in eids if not self.accepted[e])
        self.waiting = {}
        if self.cfg.schedule == "async":
            self.bc_sent_at = self.env.now
            for node in sorted(self.node_slots):
                if node not in self.dead_nodes:
                    self._pull_node_start(node)
        else:
            self._broadcast(eids, self._pull_node_start)

    def _pull_node_start(self, node: int):
        for s in self.node_slots.get(node, ()):
            if self.slots[s].alive and self.slots[s].eid < 0:
                self.t["communication"] += self.env.now - self.bc_sent_at
                self._request(s, None)

    def _request(self, s: int, item):
        sl = self.slots[s]
        sl.requested_at = self.env.now
        phase_gs = self.phase
        size = self.cfg.request_bytes + (self.cfg.result_bytes if item else 0)

        def lost(m: Message, t: float):
            if item:
                self._lost([item], t)

        self.net.send(sl.node, self.entry, size, (s, item, phase_gs), self._on_request, lost)

    def _on_request(self, m: Message):
        s, item, _ = m.payload
        if item:
            self._accept([item])
        if self.slots[s].alive:
            self._dispatch(s)

    def _dispatch(self, s: int):
        sl = self.slots[s]
        if self.phase < 0 or not self.queue:
            self.waiting[s] = None
            return
        eid, att = self.queue.popleft()
        while self.accepted[eid] or self.attempt[eid] != att:
            if not self.queue:
                self.waiting[s] = None
                return
            eid, att = self.queue.popleft()
        t0 = max(self.env.now, self.disp_free) + self.cfg.dispatch_s
        self.disp_free = t0
        size = 8 + (self.cfg.genome_bytes if self.cfg.schedule == "async" else 0)
        item = (eid, att)

        def deliver(m: Message):
            if sl.alive:
                if sl.requested_at >= 0:
                    self.t["communication"] += self.env.now - sl.requested_at
                self._start_eval(s, eid, att)
            else:
                self._lost([item], self.env.now)

        self.net.send(self.entry, sl.node, size, item, deliver, lambda m, t: self._lost([item], t), t0=t0)

    # ----- requeue after a fault ---------------------------------------------------------
    def _requeue(self, items):
        if self.cfg.schedule == "static":
            live = self._live_slots()
            if not live:
                return
            per_node: dict[int, list] = {}
            for eid, att in items:
                s = live[self.rr % len(live)]
                self.rr += 1
                per_node.setdefault(self.slots[s].node, []).append((s, eid, att))
            for node, lst in per_node.items():
                def deliver(m: Message, lst=lst):
                    for s, eid, att in lst:
                        sl = self.slots[s]
                        if sl.alive:
                            sl.queue.append((eid, att, True))
                            self._static_next(s)
                        else:
                            self._lost([(eid, att)], self.env.now)

                self.net.send(self.entry, node, len(lst) * 8, lst, deliver,
                              lambda m, t: self._lost([(e, a) for _, e, a in m.payload], t))
        else:
            for it in reversed(items):
                self.queue.appendleft(it)
            for s in list(self.waiting):
                if not self.queue:
                    break
                del self.waiting[s]
                if self.slots[s].alive:
                    self._dispatch(s)

    # ----- faults ------------------------------------------------------------------------
    def _apply_fault(self, f: Fault):
        now = self.env.now
        if f.kind == "node":
            if f.a in self.dead_nodes:
                return
            self.net.fail_node(f.a)
            self._kill_node(f.a, now)
        else:
            if f.a in self.dead_nodes or f.b in self.dead_nodes:
                self.net._kill_link(f.a, f.b)
                return
            self.net.fail_link(f.a, f.b)
        reach = self.net.reachable_from(self.entry)
        for n in range(self.topo.n_nodes):
            if n not in reach and n not in self.dead_nodes:
                self.net.fail_node(n)
                self._kill_node(n, now)
        self._tree_parent = None  # rebuilt when next needed
        if self.cfg.schedule == "static" and self.phase >= 0:
            self._bc_repair()
            for n in list(self.tree_parent):
                self._check_forward(n)
        elif self.cfg.schedule == "pull" and self.phase >= 0 and (self.bc_pending or self.bc_lost):
            self._bc_repair()

    def _bc_repair(self):
        """After a tree change: live nodes still without the phase's genomes get them from
        their new parent if it has them (else when it gets them)."""
        for n, p in self.tree_parent.items():
            if n not in self.bc_started and n not in self.bc_pending and p in self.bc_started:
                self._bc_send(p, n)

    def _kill_node(self, node: int, t: float):
        self.dead_nodes.add(node)
        lost = []
        for s in self.node_slots.get(node, ()):
            sl = self.slots[s]
            if not sl.alive:
                continue
            sl.alive = False
            sl.died_at = t
            sl.version += 1
            if sl.eid >= 0:
                self.t["fault_lost_work"] += t - sl.start
                self.done_parts.pop((sl.eid, sl.att), None)
                lost.append((sl.eid, sl.att))
                sl.eid = -1
            for eid, att, _ in sl.queue:
                lost.append((eid, att))
            sl.queue.clear()
            self.waiting.pop(s, None)
        if self.cfg.schedule == "static":
            lost.extend(self.gs.buffer.get(node, []))
            self.gs.buffer[node] = []
            self.gs.own_pending[node] = 0
        self._lost(lost, t)

    # ----- run ---------------------------------------------------------------------------
    def run(self) -> dict:
        """Simulate every phase; return the report (see :func:`report`)."""
        wall0 = time.perf_counter()
        # Python's cyclic garbage collector would re-scan the large, long-lived route caches
        # and graphs over and over (more than half the run time on a 10,000-node mesh);
        # events and messages are freed by reference counting, so it is paused meanwhile.
        gc_enabled = gc.isenabled()
        gc.disable()
        try:
            for f in self.faults:
                self._after(f.time_s, lambda f=f: self._apply_fault(f))
            if self.phases:
                self._phase_begin(0)
            self.env.run()
        finally:
            if gc_enabled:
                gc.enable()
        self.sim_wall_s = time.perf_counter() - wall0
        return report(self)


@dataclass
class _GatherState:
    """Per-phase state of the static schedule's reduction tree."""

    started: set = field(default_factory=set)
    forwarded: set = field(default_factory=set)
    own_pending: dict = field(default_factory=dict)
    buffer: dict = field(default_factory=dict)


def report(sim: FabricSim) -> dict:
    """The figures of a finished simulation (see ``nc2600 mesh --help`` for each field)."""
    w, np_ = sim.w, sim.np_
    counts = np.bincount(np.asarray(sim.accept_log, dtype=np.int64), minlength=w.n_evaluations) \
        if sim.accept_log else np.zeros(w.n_evaluations, dtype=np.int64)
    lost = int(np.count_nonzero(counts == 0))
    dup = int(np.sum(np.maximum(counts - 1, 0)))
    done_mask = counts > 0
    frames = int(w.frames[done_mask].sum())
    end = sim.end_s if sim.end_s is not None else sim.env.now
    n_slots = len(sim.slots)
    total = n_slots * end
    t = dict(sim.t)
    for sl in sim.slots:
        if not sl.alive:
            t["fault_dead_slots"] += max(0.0, end - sl.died_at)
    for parts in sim.done_parts.values():  # completed but never accepted
        t["fault_lost_work"] += sum(parts)
    used = sum(v for k, v in t.items() if k != "barrier")
    t["barrier"] = max(0.0, total - used)
    frac = {k: (v / total if total > 0 else 0.0) for k, v in t.items()}
    ceiling = n_slots * np_.instance_fps
    fps = frames / end if end > 0 else 0.0
    gens = w.n_generations
    completed = sim.end_s is not None
    out = {
        "schedule": sim.cfg.schedule,
        "projected_fps": fps,
        "ceiling_fps": ceiling,
        "utilization": fps / ceiling if ceiling else 0.0,
        "lost_evaluations": lost,
        "duplicated_evaluations": dup,
        "sim_wall_s": getattr(sim, "sim_wall_s", 0.0),
        "generations_per_hour": gens / end * 3600 if end > 0 and completed else 0.0,
        "completed": completed,
        "makespan_s": end,
        "generations": gens,
        "evaluations": w.n_evaluations,
        "frames": frames,
        "time_fractions": frac,
        "gap_fps": {k: v * ceiling for k, v in frac.items() if k != "counted_frames"},
        "requeued_evaluations": sim.requeued,
        "stale_results_discarded": sim.stale_results,
        "nodes_failed": len(sim.dead_nodes),
        "links_failed": len(sim.net.dead_links),
        "slots_alive_at_end": sum(1 for sl in sim.slots if sl.alive),
        "messages": sim.net.messages_sent,
        "message_hops": sim.net.hops_sent,
        "messages_lost": sim.net.messages_lost,
        "messages_rerouted": sim.net.messages_rerouted,
        "bytes_on_links": sim.net.bytes_sent,
        "busiest_link_utilization": sim.net.link_utilisation(end),
    }
    return _plain(out)


def _plain(x):
    """numpy scalars -> Python numbers, recursively (for JSON)."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x
