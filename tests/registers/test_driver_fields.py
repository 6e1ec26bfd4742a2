"""The fabric driver's register access by name (host/drivers/fabric.py) over a recording MMIO object:
the words it writes are the hand-packed values of the register map (offsets and bit positions
read off nc2600.rdl by hand), and a value that does not fit raises ValueError naming the field."""
import pytest

from host.drivers.fabric import FabricDriver, error_names


class RecordingMmio:
    """pynq.MMIO's read/write; ID reads 'NC26', every other read 0."""

    def __init__(self):
        self.writes = []

    def read(self, offset):
        return 0x4E433236 if offset == 0 else 0

    def write(self, offset, value):
        self.writes.append((offset, value))


def test_fields_written_by_name_are_the_hand_packed_words():
    from hls_models.registers import INSTANCE as R
    mmio = RecordingMmio()
    d = FabricDriver(mmio)
    d.write(R.EP_CFG, noops=3, noop_index=0, fire_en=1, fire_index=1, frame_skip=4, n_actions=6)
    d.write(R.ACTION_TABLE, 17, swcha=0xEF, inpt4=0, inpt5=1, paddle=2)
    d.write(R.CONTROL, manual=1)
    d.write(R.INPUTS, swchb=0x0B)                       # the rest at their reset values
    d.write(R.PARAM_ADDR, lane=5, row=0x3FFFF, space=2)
    d.write(R.REWARD, value=-2)
    assert mmio.writes == [
        (0x010, 3 | 1 << 10 | 1 << 11 | 4 << 16 | 6 << 24),
        (0x0C0 + 17 * 4, 0xEF | 0 << 8 | 1 << 9 | 2 << 10),
        (0x008, 2),
        (0x01C, 0xFF | 0x0B << 8 | 1 << 16 | 1 << 17 | 0xAA << 18),
        (0x190, 5 | 0x3FFFF << 8 | 2 << 26),
        (0x034, 0xFFFFFFFE),
    ]


def test_a_value_that_does_not_fit_names_the_field():
    from hls_models.registers import INSTANCE as R
    mmio = RecordingMmio()
    d = FabricDriver(mmio)
    with pytest.raises(ValueError, match=r"EP_CFG\.frame_skip: 256 does not fit 8 bits"):
        d.write(R.EP_CFG, frame_skip=256)
    with pytest.raises(ValueError, match=r"PARAM_ADDR\.row: 262144 does not fit 18 bits"):
        d.write(R.PARAM_ADDR, row=1 << 18)
    assert mmio.writes == []                            # nothing reached the bus


def test_error_names_from_the_status_fields():
    assert error_names(1 << 17 | 1 << 22 | 1 << 10) == ["bad ROM size", "rules out of turn or parameters while busy"]
    assert error_names(0x7F << 16) == [
        "start or manual frame without a ROM", "bad ROM size", "command while busy", "preprocessor sync error",
        "CPU jam", "memory write past the end", "rules out of turn or parameters while busy"]
