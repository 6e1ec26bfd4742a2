"""The two-instance node (hw/node.py, Verilated: the default configuration, two 16 x 16 array
engine instances with the three-colour-clock console) behind one AXI4-Lite slave: each instance's
registers at its own 0x20000 window, and an episode on the second instance equal to ALE int8
(oracle: ale-py 0.12 + nc2600.hls_models.policy_int8, per decision).

In the default set: one Verilator build of the node (the instance module compiled once for its
two cells, :func:`nc2600.hwtools.instance_harness.build_node`) and one short episode (Skiing, 60
frames: ALE's start sequence replayed on the instance, then 14 decisions, and once more from the
start-state snapshot).
"""
from nc2600.hls_models.registers import INSTANCE as R
from nc2600.host.drivers.instance import ID_VALUE, InstanceDriver, InstanceEpisodeRunner

EP_FRAMES, DECISIONS, FRAMES = R.EP_FRAMES.offset, R.DECISIONS.offset, R.FRAMES.offset
SECOND = 0x20000            #: the second instance's window (nc2600.hls_models.registers.NODE's stride)


def test_node_second_instance_window_and_episode_equal_ale_int8():
    """The windows are two instances (a register written through one is not the other's; an
    unmapped offset answers DECERR and leaves the other instance alone); then one episode through
    the second window's driver (``MmioWindow(node, 0x20000)``, as ``pynq.MMIO(base + 0x20000,
    0x20000)`` on a board): every decision's action, the return and the frames equal ALE int8, on
    a configuration where they depend on the instance (Skiing, seed 3, a 60-frame cap: ALE int8
    takes all 3 actions and scores -88, Skiing's reward being its elapsed-time penalty read from the
    console's RAM); the first instance took no decision and emulated no frame. The same episode
    from the harness's snapshot of the node (``save_state``/``restore_state``) is equal again, clock
    for clock."""
    import pytest

    from nc2600.hls_models.registers import NODE
    from nc2600.host.games import resolve_rom
    from nc2600.hwtools.instance_harness import BusError, InstanceSim, MmioWindow
    from tests.instance.test_instance import _varied_policy
    assert NODE.stride == SECOND
    node = InstanceSim(210, "NTSC", node=True)
    assert node.read(0x00000) == ID_VALUE and node.read(SECOND) == ID_VALUE
    node.write(SECOND + EP_FRAMES, 1234)
    node.write(EP_FRAMES, 777)
    assert (node.read(SECOND + EP_FRAMES), node.read(EP_FRAMES)) == (1234, 777)
    with pytest.raises(BusError, match="DECERR"):
        node.read(SECOND + 0x3F0)
    with pytest.raises(BusError, match="DECERR"):
        node.write(0x003F0, 1)
    assert node.read(SECOND + EP_FRAMES) == 1234     # the error left the other instance alone

    _, rom = resolve_rom(game="skiing")
    runner = InstanceEpisodeRunner(InstanceDriver(MmioWindow(node, SECOND)), "skiing", rom, episode_frames=60)
    qp, (ref_actions, ref_ret, ref_frames) = _varied_policy(rom, len(runner.ids), 3, 60)
    # worth comparing: the actions vary and the episode scores
    assert len(set(ref_actions)) == 3 and ref_ret != 0 and len(ref_actions) == 14, (ref_actions, ref_ret)
    ep = runner.run(3, qp, record_actions=True)
    assert ep.actions == ref_actions
    assert (ep.episode_return, ep.frames, ep.decisions) == (ref_ret, ref_frames, len(ref_actions))
    assert node.read(SECOND + DECISIONS) == len(ref_actions)
    assert (node.read(DECISIONS), node.read(FRAMES), node.read(EP_FRAMES)) == (0, 0, 777)   # instance 0 untouched
    # the same episode again from the node's snapshot (both instances' state, the start state of the first run)
    again = runner.run(3, qp, record_actions=True)
    assert again.restored and again.reset_cycles == 0
    assert (again.actions, again.episode_return, again.frames, again.cycles) == \
        (ref_actions, ref_ret, ref_frames, ep.cycles)
