"""Timing of the hardware blocks: place and route on a Lattice ECP5, logic depth on Xilinx 7-series.

Two figures per block, each labelled with what it is:

* **Fmax measured on an ECP5-85 (not the Zynq-7045)** by Yosys and nextpnr-ecp5
  (:func:`nc2600.hwtools.ecp5_pnr.pnr_block`). There is no open place and route for Xilinx
  7-series on PyPI, so the ECP5 is a proxy family: an ECP5 LUT4 fabric is slower than a 7-series
  LUT6 fabric and the figure is a lower bound in spirit, not a Zynq-7045 number.
* **Logic depth after ``synth_xilinx -family xc7`` (counted), MHz (rule-of-thumb estimate)**
  (:func:`nc2600.hwtools.logic_depth.netlist_depth`, :func:`nc2600.hwtools.logic_depth.levels_to_mhz`):
  an estimate, not a measurement (routing on a real placement can differ by a factor).

Both read the Verilog as :mod:`nc2600.hwtools.yosys_input` hands it to the tools (work folder with
relative paths: the YoWASP tools run as WebAssembly and see only the folder they start in;
``docs/hardware/timing.md``). This module holds the clock both are measured against.
"""
from __future__ import annotations

__all__ = ["TARGET_MHZ"]

#: The fabric clock every frames/s projection assumes (published machine, arXiv 2005.04536).
TARGET_MHZ = 150.0
