"""The instance's register map in the Verilated RTL (hw/instance.py) against the register
description (hls_models/registers/nc2600.rdl): the walk generated from the description
(:func:`nc2600.hwtools.register_walk.walk`: reset values, walking ones and zeros on every read-write
field, no aliasing, checked values, read-only / write-only / gap responses, CONTROL's strobes)
over the harness's AXI4-Lite transactions. Oracle: the compiled description (offsets, widths,
access, reset values), independent of the RTL's decode."""
import pytest

from nc2600.hls_models.registers import INSTANCE as R
from nc2600.hwtools.register_walk import run_sync


@pytest.fixture(scope="module")
def sim():
    from nc2600.hwtools.instance_harness import InstanceSim
    return InstanceSim(210, "NTSC")


def test_register_walk_generated_from_the_description(sim):
    checks = run_sync(sim)
    rw_bits = sum(bin(r.mask).count("1") * r.count for r in R if r.access == "rw" and r.name != "ROM_SIZE")
    assert checks >= 2 * rw_bits          # every read-write field bit walked (ones and zeros)


def test_walk_detects_a_register_that_differs_from_the_description(sim):
    """The walk is not vacuous: the same RTL seen through an MMIO view that drops one bit of
    EP_CFG's frame_skip on reads fails, naming the field."""
    class Broken:
        def __init__(self, mmio):
            self.mmio = mmio

        def read(self, offset):
            v = self.mmio.read(offset)
            return v & ~(1 << R.EP_CFG.frame_skip.msb) if offset == R.EP_CFG.offset else v

        def write(self, offset, value):
            self.mmio.write(offset, value)

        def idle(self, n):
            self.mmio.idle(n)

    with pytest.raises(AssertionError, match=r"EP_CFG\[0\]\.noops bit 0 \(walking zero\).*read 0x3f7ffffe"):
        run_sync(Broken(sim))
