"""``nc2600.host.episodes.ale_oracle.open_ale``: the project's ALE settings, and that they are what the
comparisons need (the oracle is ale-py itself, opened raw next to ``open_ale``)."""
import ale_py
import ale_py.roms  # noqa: F401  (submodule)
import numpy as np
import pytest

from nc2600.host.episodes.ale_oracle import (ALE_FRAME_SKIP, RANDOM_SEED, REPEAT_ACTION_PROBABILITY, open_ale,
                                             superchip_ram)

ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)


def _raw(game, **settings):
    ale = ale_py.ALEInterface()
    for k, v in settings.items():
        (ale.setFloat if isinstance(v, float) else ale.setInt)(k, v)
    ale.loadROM(ale_py.roms.get_rom_path(game))
    return ale


def test_settings_are_the_documented_ones():
    ale = open_ale(ale_py.roms.get_rom_path("pong"))
    assert (ALE_FRAME_SKIP, REPEAT_ACTION_PROBABILITY, RANDOM_SEED) == (1, 0.0, 0)
    assert ale.getInt("frame_skip") == 1
    assert ale.getFloat("repeat_action_probability") == 0.0
    assert ale.getInt("random_seed") == 0
    assert open_ale(ale_py.roms.get_rom_path("pong"), random_seed=12345).getInt("random_seed") == 12345
    # ALE 0.12's own defaults differ: sticky actions on, clock-seeded
    raw = _raw("pong")
    assert raw.getFloat("repeat_action_probability") == pytest.approx(0.25)
    assert raw.getInt("random_seed") == -1


def test_sticky_actions_off_matches_raw_ale_frame_by_frame():
    """Random play of seaquest (seed-dependent RAM) under open_ale equals a raw ALE with
    sticky actions off, frame by frame, and differs from ALE's sticky default."""
    rng = np.random.default_rng(4)
    ours, raw, sticky = open_ale(ale_py.roms.get_rom_path("seaquest")), \
        _raw("seaquest", repeat_action_probability=0.0, random_seed=0), _raw("seaquest", random_seed=0)
    acts = ours.getMinimalActionSet()
    differed = False
    for _ in range(400):
        a = acts[rng.integers(len(acts))]
        ours.act(a), raw.act(a), sticky.act(a)
        assert np.array_equal(ours.getRAM(), raw.getRAM())
        differed |= not np.array_equal(ours.getRAM(), sticky.getRAM())
    assert differed


def test_mode_and_difficulty_apply_at_reset():
    ale = open_ale(ale_py.roms.get_rom_path("breakout"), mode=12, difficulty=1, reset=True)
    raw = _raw("breakout", repeat_action_probability=0.0)
    raw.setMode(12)
    raw.setDifficulty(1)
    raw.reset_game()
    assert np.array_equal(ale.getRAM(), raw.getRAM())


def test_superchip_ram_is_the_cartridge_ram():
    """elevator_action (F8SC): 128 bytes, drawn from the system RNG at reset (not all equal);
    pong (4K) has none. The lockstep tests compare these bytes with the RTL's cartridge RAM."""
    assert superchip_ram(open_ale(ale_py.roms.get_rom_path("pong"))) is None
    ale = open_ale(ale_py.roms.get_rom_path("elevator_action"))
    x = superchip_ram(ale)
    assert x.shape == (128,) and x.dtype == np.uint8 and len(set(x.tolist())) > 1   # randomised at reset
