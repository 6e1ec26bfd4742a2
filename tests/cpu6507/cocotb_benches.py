"""``make sim`` registration of the 6507 testbench (:mod:`nc2600.hwtools.sim`, rule 2).

``cocotb_cpu6507.py`` runs one short program by default and every program of
``tests/cpu6507/programs.py`` under ``--full`` (``CPU6507_COCOTB_FULL``), against py65.
"""
from __future__ import annotations

from nc2600.hwtools.sim import CocotbBench

COCOTB_BENCHES = [CocotbBench("cpu6507", "cpu6507", "cpu6507", "cocotb_cpu6507", ("cpu6507.v",),
                              python_path=(".",), env={"CPU6507_COCOTB_FULL": "0"},
                              full_env={"CPU6507_COCOTB_FULL": "1"})]
