"""nc2600: an open simulation and hardware-design package for an FPGA neural computer that runs
Atari 2600 consoles in hardware for deep neuroevolution.

The package's parts are the repository's top-level folders:

- :mod:`nc2600.hls_models`: bit-exact models of every block, with cycle and resource models;
- :mod:`nc2600.hw`: the Amaranth gateware (console, preprocessor, policy engine, action select,
  frame-skip controller, the fabric instance and the node);
- :mod:`nc2600.hwtools`: Verilog generation, Verilator harnesses, synthesis and timing;
- :mod:`nc2600.host`: the launcher (deep GA, ES, random search), backends, drivers, verification
  against ALE, benches and reports; the ``nc2600`` command;
- :mod:`nc2600.mesh_sim`: the model of the 3D-mesh fabric.

Dependencies point one way: ``hls_models`` <- ``hw`` <- ``hwtools`` <- ``host``, ``mesh_sim``.
"""
from __future__ import annotations

__version__ = "0.1.0"
