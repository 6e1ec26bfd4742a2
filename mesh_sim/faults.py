"""Fault plans: which nodes and links fail, and when (simulated seconds).

Either explicit (``node:17@2.5,link:3-4@1.0``: node 17 fails at t = 2.5 s, link 3-4 at
t = 1.0 s) or drawn at random (:func:`random_faults`: ``K`` distinct nodes other than the
entry node and ``L`` distinct links, failure times uniform in ``[0, window_s)``, from a
seeded ``numpy.random.Generator``). The entry node (the host's attachment) cannot fail:
the model has no second host path, so its failure would end the run.

A failed part stays failed for the rest of the run (no repair).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .topology import MeshTopology


@dataclass(frozen=True, order=True)
class Fault:
    """One failure: ``time_s`` (simulated seconds), ``kind`` ("node" or "link"),
    ``a`` (the node, or one end of the link), ``b`` (the other end; -1 for a node)."""

    time_s: float
    kind: str
    a: int
    b: int = -1

    def describe(self) -> str:
        return f"node:{self.a}@{self.time_s:g}" if self.kind == "node" else f"link:{self.a}-{self.b}@{self.time_s:g}"


#: the latest fault time accepted, simulated seconds (as --fault-window-s)
FAULT_TIME_MAX = 1e9


def validate(faults: list[Fault], topo: MeshTopology) -> None:
    """Raise ``ValueError`` (one line) for a fault naming a missing node or link, the
    entry node, a negative time, or the same part twice."""
    seen = set()
    neigh_ok = lambda a, b: 0 <= a < topo.n_nodes and b in topo.neighbours(a)  # noqa: E731
    for f in faults:
        if not 0 <= f.time_s <= FAULT_TIME_MAX:        # nan, inf and 1e308 too
            raise ValueError(f"fault {f.describe()}: time must be a number of seconds in [0, 1e9]")
        if f.kind == "node":
            if not 0 <= f.a < topo.n_nodes:
                raise ValueError(f"fault {f.describe()}: no node {f.a} (mesh has {topo.n_nodes})")
            if f.a == topo.entry_node:
                raise ValueError(f"fault {f.describe()}: the entry node {f.a} (host attachment) cannot fail")
            part = ("node", f.a)
        elif f.kind == "link":
            if not neigh_ok(f.a, f.b):
                raise ValueError(f"fault {f.describe()}: {f.a}-{f.b} is not a link of the mesh")
            part = ("link", min(f.a, f.b), max(f.a, f.b))
        else:
            raise ValueError(f"fault kind must be node or link, got {f.kind!r}")
        if part in seen:
            raise ValueError(f"fault {f.describe()}: that part fails twice")
        seen.add(part)


def parse_faults(text: str, topo: MeshTopology) -> list[Fault]:
    """Parse ``node:N@T`` and ``link:A-B@T`` items separated by commas; validated, sorted by time."""
    out = []
    if not text.strip():
        raise ValueError("the fault list is empty; give e.g. node:17@2.5,link:3-4@1.0")
    for item in (s.strip() for s in text.split(",")):
        if not item:
            raise ValueError(f"the fault list {text[:60]!r} has an empty item; give e.g. node:17@2.5,link:3-4@1.0")
        try:
            what, when = item.split("@")
            kind, ident = what.split(":")
            t = float(when)
            if kind == "node":
                f = Fault(t, "node", int(ident))
            elif kind == "link":
                a, b = ident.split("-")
                f = Fault(t, "link", int(a), int(b))
            else:
                raise ValueError
        except ValueError:
            raise ValueError(f"fault {item!r} is not node:N@SECONDS or link:A-B@SECONDS") from None
        out.append(f)
    validate(out, topo)
    return sorted(out)


def random_faults(topo: MeshTopology, n_nodes: int, n_links: int, seed: int, window_s: float) -> list[Fault]:
    """``n_nodes`` node and ``n_links`` link failures at uniform times in ``[0, window_s)``.

    Nodes are drawn among all nodes but the entry node; links among all links (a link of a
    failed node may be drawn too: it is then already dead, which changes nothing).
    Raises ``ValueError`` when there are more faults than parts.
    """
    if n_nodes < 0 or n_links < 0:
        raise ValueError("fault counts must be >= 0")
    candidates = [n for n in range(topo.n_nodes) if n != topo.entry_node]
    if n_nodes > len(candidates):
        raise ValueError(f"{n_nodes} node faults but only {len(candidates)} nodes can fail")
    links = topo.links()
    if n_links > len(links):
        raise ValueError(f"{n_links} link faults but the mesh has only {len(links)} links")
    rng = np.random.default_rng(seed)
    nodes = rng.choice(len(candidates), size=n_nodes, replace=False) if n_nodes else []
    lks = rng.choice(len(links), size=n_links, replace=False) if n_links else []
    t_nodes = rng.uniform(0.0, window_s, size=n_nodes)
    t_links = rng.uniform(0.0, window_s, size=n_links)
    out = [Fault(float(t), "node", candidates[int(i)]) for i, t in zip(nodes, t_nodes)]
    out += [Fault(float(t), "link", *links[int(i)]) for i, t in zip(lks, t_links)]
    return sorted(out)
