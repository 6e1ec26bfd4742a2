"""The instance's AXI4-Lite register file read back through the bus (hw/instance.py, Verilated):
every read-write register returns the value written, at its own address (the read path decodes
the address into a registered source index, then multiplexes), and the write-only
registers answer DECERR to a read. Oracle: the register map (``hw.instance.REGISTERS``) and the
field widths it documents; the values are hand-picked within them."""
import pytest

from hw.instance import MAX_ACTIONS, REGISTERS

# name -> a value within the register's documented fields (distinct, so a wrong source shows)
VALUES = {"CONSOLE_CFG": 0x00A5C3B1, "EP_CFG": 0x00C2B5A4, "EP_FRAMES": 0x00D1E2F3, "TIMER_INIT": 0x9D,
          "INPUTS": 0x02A5F1E7, "REWARD": 0xFFFFFF85, "PADDLE_CFG": 0x2B6, "PADDLE_LO": 0x0ABCD,
          "PADDLE_HI": 0xF1234, "PADDLE_START": 0x54321, "PADDLE_FIXED": 0x89ABCDEF, "MEM_SEL": 2,
          "MEM_ADDR": 0x1234, "PARAM_ADDR": 0x0ABCDE1}


@pytest.fixture(scope="module")
def sim():
    from hwtools.instance_harness import InstanceSim
    return InstanceSim(210, "NTSC")


def test_read_write_registers_read_back(sim):
    rw = {n for n, (_, acc, _) in REGISTERS.items() if acc == "RW"}
    # ROM_SIZE (checked value, clears ROM loaded), NEEDED0 and ACTION_TABLE (arrays) apart
    assert rw - set(VALUES) == {"ROM_SIZE", "NEEDED0", "ACTION_TABLE"}
    for name, value in VALUES.items():
        sim.write(REGISTERS[name][0], value)
    needed = [0x11111111 * (i + 1) ^ 0x0F0F0F0F for i in range(4)]
    for i, v in enumerate(needed):
        sim.write(REGISTERS["NEEDED0"][0] + 4 * i, v)
    table = [(0x5A3 + 0x111 * i) & 0xFFF for i in range(MAX_ACTIONS)]
    for i, v in enumerate(table):
        sim.write(REGISTERS["ACTION_TABLE"][0] + 4 * i, v)
    sim.write(REGISTERS["ROM_SIZE"][0], 6144)
    for name, value in VALUES.items():
        assert sim.read(REGISTERS[name][0]) == value, name
    assert [sim.read(REGISTERS["NEEDED0"][0] + 4 * i) for i in range(4)] == needed
    assert [sim.read(REGISTERS["ACTION_TABLE"][0] + 4 * i) for i in range(MAX_ACTIONS)] == table
    assert sim.read(REGISTERS["ROM_SIZE"][0]) == 6144
    assert sim.read(REGISTERS["ID"][0]) == 0x4E433236


def test_write_only_registers_and_gaps_answer_decerr(sim):
    from hwtools.instance_harness import BusError
    write_only = [a for a, acc, _ in REGISTERS.values() if acc == "W"]
    assert len(write_only) == 4                 # CONTROL, RULES, MEM_DATA, PARAM_DATA
    for addr in write_only + [0x05C, 0x078, 0x09C, 0x0C0 + 4 * MAX_ACTIONS, 0x0C2, 0x198, 0x3FC]:
        with pytest.raises(BusError, match="DECERR"):
            sim.read(addr)
