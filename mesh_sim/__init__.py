"""mesh_sim: a model of the 432-node 3D-mesh Zynq fabric running 832 game instances.

Modules: :mod:`~nc2600.mesh_sim.topology` (cards, nodes, links, dimension-order routes),
:mod:`~nc2600.mesh_sim.links` (link timing, contention, routing around failures),
:mod:`~nc2600.mesh_sim.node` (per-instance time: emulation, reset, inference, weight load),
:mod:`~nc2600.mesh_sim.workload` (evaluations from a launcher run or a distribution),
:mod:`~nc2600.mesh_sim.faults` (fault plans), :mod:`~nc2600.mesh_sim.sim` (SimPy discrete-event
simulation of static / pull / async schedules), :mod:`~nc2600.mesh_sim.project` (one call that
builds everything from options or a run directory, used by ``nc2600 mesh`` and ``nc2600 run``).
``CALIBRATION.md`` beside this file explains the published 1.2 M frames/s and the gap to
the 2.09 M ceiling.

Quick use::

    from nc2600.mesh_sim.project import MeshOptions, simulate, project_run
    rep = simulate(MeshOptions(schedule="pull", fail_nodes=5, fault_seed=1))
    rep["projected_fps"], rep["lost_evaluations"]
    project_run("runs/pong-ga-s0-...")   # {"projected_fabric_fps": ..., "projected_fabric_wall_s": ...}

Not modelled (known limits): DRAM and AXI traffic during an episode (the instance runs
from on-chip memory), ARM-side per-step work (none in the published design), the
host computer's own compute beyond a fixed selection time, repairs of failed parts, a
second host path (the entry node cannot fail), power and thermal limits.
"""
