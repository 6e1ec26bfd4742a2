"""The RTL backend (Verilated console + game rules from RAM) against the ALE backend.

Boxing passes `nc2600 lockstep` (RAM and screen equal to ALE frame by frame), so an episode
on the RTL backend must give exactly the ALE backend's rewards, frame counts and observations.
"""
import ale_py.roms
import numpy as np

from host.backends import make_instance
from host.instance import AleInstance


def test_rtl_backend_equals_ale_backend_on_boxing():
    rom = ale_py.roms.get_rom_path("boxing")
    ale = AleInstance(rom, frame_skip=4, episode_frames=400)
    rtl = make_instance("rtl", rom, 4, 0.0, 400)
    assert rtl.n_actions == ale.n_actions == 18
    s_ale = np.zeros((4, 84, 84), np.uint8)
    s_rtl = np.zeros((4, 84, 84), np.uint8)
    assert rtl.reset(11, s_rtl) == ale.reset(11, s_ale)
    np.testing.assert_array_equal(s_rtl, s_ale)
    rng = np.random.default_rng(2)
    for _ in range(25):
        a = int(rng.integers(18))
        assert rtl.step(a, s_rtl) == ale.step(a, s_ale)
        np.testing.assert_array_equal(rtl.pooled, ale.pooled)
        np.testing.assert_array_equal(s_rtl, s_ale)
    assert rtl.lives == ale.ale.lives()
