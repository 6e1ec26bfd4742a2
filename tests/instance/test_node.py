"""The two-instance node (hw/node.py, Verilated) behind one AXI4-Lite slave: each instance's
registers at its own 0x20000 window, and an episode on the second instance equal to ALE int8
(oracle: ale-py 0.12 + nc2600.hls_models.policy_int8, per decision). Slow: the node's Verilator build
takes minutes (two instances, two engines)."""
import pytest

from nc2600.hls_models.registers import INSTANCE as R
from nc2600.host.drivers.instance import ID_VALUE, InstanceDriver, InstanceEpisodeRunner

EP_FRAMES = R.EP_FRAMES.offset

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def node():
    from nc2600.hwtools.instance_harness import InstanceSim
    return InstanceSim(210, "NTSC", node=True)


def test_node_windows_are_separate_instances(node):
    from nc2600.hwtools.instance_harness import BusError
    assert node.read(0x00000) == ID_VALUE and node.read(0x20000) == ID_VALUE
    node.write(0x20000 + EP_FRAMES, 1234)
    node.write(EP_FRAMES, 777)
    assert node.read(0x20000 + EP_FRAMES) == 1234
    assert node.read(EP_FRAMES) == 777
    with pytest.raises(BusError, match="DECERR"):
        node.read(0x203F0)
    with pytest.raises(BusError, match="DECERR"):
        node.write(0x003F0, 1)
    assert node.read(0x20000 + EP_FRAMES) == 1234     # the error left the other instance alone


def test_node_second_instance_episode_equals_ale_int8(node):
    from nc2600.host.games import resolve_rom
    from nc2600.hwtools.instance_harness import MmioWindow
    from tests.instance.test_instance import _varied_policy
    _, rom = resolve_rom(game="boxing")
    runner = InstanceEpisodeRunner(InstanceDriver(MmioWindow(node, 0x20000)), "boxing", rom, episode_frames=40)
    qp, (ref_actions, ref_ret, ref_frames) = _varied_policy(rom, 18, 7, 40)
    ep = runner.run(7, qp, record_actions=True)
    assert (ep.actions, ep.episode_return, ep.frames) == (ref_actions, ref_ret, ref_frames)
    assert node.read(0x00000 + 0x68) == 0             # instance 0 took no decisions
