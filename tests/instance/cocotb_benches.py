"""``make sim`` registration of the fabric instance's testbench (:mod:`nc2600.hwtools.sim`, rule 2):
``cocotb_instance.py`` on ``rtl/instance_cc3.v`` (the default instance, three colour clocks per
clock), whose top module is ``instance_cc3``."""
from __future__ import annotations

from nc2600.hwtools.sim import CocotbBench

COCOTB_BENCHES = [CocotbBench("instance", "instance", "instance_cc3", "tests.instance.cocotb_instance",
                              ("instance_cc3.v",), python_path=("../..",))]
