"""mesh_sim: a model of the 432-node 3D-mesh Zynq fabric running 832 game instances.

Modules: :mod:`~mesh_sim.topology` (cards, nodes, links, dimension-order routes),
:mod:`~mesh_sim.links` (link timing, contention, routing around failures),
:mod:`~mesh_sim.node` (per-instance time: emulation, reset, inference, weight load),
:mod:`~mesh_sim.workload` (evaluations from a launcher run or a distribution),
:mod:`~mesh_sim.faults` (fault plans), :mod:`~mesh_sim.sim` (SimPy discrete-event
simulation of static / pull / async schedules), :mod:`~mesh_sim.project` (one call that
builds everything from options or a run directory, used by ``nc2600 mesh`` and ``nc2600 run``).
"""
