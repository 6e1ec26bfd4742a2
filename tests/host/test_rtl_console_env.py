"""The RTL backend (Verilated console + game rules from RAM) against the ALE backend.

Space Invaders and Boxing pass `nc2600 lockstep` (RAM and screen equal to ALE frame by frame), so
an episode on the RTL backend must give exactly the ALE backend's rewards, frame counts and
observations; the Space Invaders steps include a reward, so the rules are compared too.
"""
import ale_py.roms
import numpy as np
import pytest

from nc2600.host.launcher.backends import make_instance
from nc2600.host.episodes.env import AleEnv


def test_rtl_backend_equals_ale_backend_on_space_invaders():
    """40 random steps of Space Invaders (seed 3, actions of default_rng(2)), where a shot
    scores at step 36: the rules' reward from the RTL's RAM, the frames, the game-over flag, the
    pooled frame and the stack equal ALE's at every step."""
    rom = ale_py.roms.get_rom_path("space_invaders")
    ale = AleEnv(rom, frame_skip=4, episode_frames=400)
    rtl = make_instance("rtl", rom, 4, 0.0, 400)
    assert rtl.n_actions == ale.n_actions == 6
    s_ale = np.zeros((4, 84, 84), np.uint8)
    s_rtl = np.zeros((4, 84, 84), np.uint8)
    assert rtl.reset(3, s_rtl) == ale.reset(3, s_ale)
    np.testing.assert_array_equal(s_rtl, s_ale)
    rng = np.random.default_rng(2)
    rewards = []
    for _ in range(40):
        a = int(rng.integers(6))
        out = ale.step(a, s_ale)
        assert rtl.step(a, s_rtl) == out
        rewards.append(out[0])
        np.testing.assert_array_equal(rtl.pooled, ale.pooled)
        np.testing.assert_array_equal(s_rtl, s_ale)
    assert rtl.lives == ale.ale.lives()
    assert rewards[36] == 5.0 and sum(rewards) == 5.0          # worth comparing: the rules reward a hit


def test_later_episodes_start_from_the_snapshot_and_equal_ale():
    """The first episode replays ALE's power-on and reset (``reset_frames`` RTL frames); later
    ones restore the saved start state, run no replay frame, and still equal ALE's episodes
    (which restore ALE's own cloned state), including after an episode that ran to its cap."""
    rom = ale_py.roms.get_rom_path("boxing")
    ale = AleEnv(rom, frame_skip=4, episode_frames=120)
    rtl = make_instance("rtl", rom, 4, 0.0, 120)
    s_ale = np.zeros((4, 84, 84), np.uint8)
    s_rtl = np.zeros((4, 84, 84), np.uint8)
    rng = np.random.default_rng(5)
    for episode, seed in enumerate((3, 8, 3)):
        run_before = rtl.console.frames_run if rtl.console is not None else 0
        assert rtl.reset(seed, s_rtl) == ale.reset(seed, s_ale)
        np.testing.assert_array_equal(s_rtl, s_ale)
        if episode == 0:
            # Boxing (no setMode, no starting actions; console_settings.toml, game_rules.toml):
            # loadROM's 60 frames, then two reset_game: 60 NOOP frames + RESET 4 + RESET 4 each
            assert rtl.reset_frames == 60 + 2 * (60 + 4 + 4)
            assert rtl.console.frames_run > rtl.reset_frames
        else:                                      # only the episode's own no-op/FIRE frames
            assert rtl.console.frames_run - run_before <= 31
        over = False
        while not over:
            a = int(rng.integers(18))
            out_rtl, out_ale = rtl.step(a, s_rtl), ale.step(a, s_ale)
            assert out_rtl == out_ale
            np.testing.assert_array_equal(s_rtl, s_ale)
            over = out_rtl[2]
        assert rtl.frames == ale.frames == 120


def test_console_snapshot_restores_frames_ram_and_screen():
    """A console restored from a snapshot runs the same frames as the console it was taken from
    (RIOT RAM and screen after every frame), and a snapshot of another build is refused."""
    from nc2600.host.drivers.rtl_console import RtlConsole
    from nc2600.hwtools.verilator_build import ModelState
    con = RtlConsole("boxing")
    con.power_on()
    snap = con.save_state()
    ref = []
    for a in (1, 3, 4, 0, 11, 12, 2, 5):
        con.act(a)
        ref.append((con.ram().copy(), con.screen.copy()))
    for _ in range(2):                             # the snapshot stays usable
        con.restore_state(snap)
        for (ram, screen), a in zip(ref, (1, 3, 4, 0, 11, 12, 2, 5)):
            con.act(a)
            np.testing.assert_array_equal(con.ram(), ram)
            np.testing.assert_array_equal(con.screen, screen)
    with pytest.raises(ValueError, match="another console build"):
        con.sim.restore_state(ModelState("elsewhere/libconsole.so", b"", 0))
