"""Integer preprocessing against a float reference on real ALE frames; batched policy vs a
per-individual reference; ALE instance protocol against a plain ALE run."""
import ale_py
import ale_py.roms
import numpy as np
import pytest

from nc2600.hls_models import preprocessor
from nc2600.host.episodes.ale_oracle import open_ale
from nc2600.host.episodes.env import AleEnv
from nc2600.host.episodes.policy import SlotWeights, forward, forward_reference, init_params, n_params, unflatten

ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)


def _frames(game, n, seed=0):
    ale = open_ale(ale_py.roms.get_rom_path(game), random_seed=seed)
    actions = ale.getMinimalActionSet()
    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        ale.act(actions[rng.integers(len(actions))])
        if t % 7 in (5, 6):
            out.append(ale.getScreenGrayscale())
        if ale.game_over():
            ale.reset_game()
    return out


@pytest.mark.parametrize("game", ["breakout", "seaquest", "carnival", "pooyan", "journey_escape", "air_raid"])
def test_integer_resize_within_one_grey_level_of_float(game):
    frames = _frames(game, 140)
    worst = 0.0
    for prev, cur in zip(frames[::2], frames[1::2]):
        got = preprocessor.observe(prev, cur).astype(np.float64)
        ref = preprocessor.float_reference(prev, cur)
        worst = max(worst, np.abs(got - ref).max())
        np.testing.assert_array_equal(got, np.floor(ref + 0.5 + 1e-9))   # round half up, once
    assert worst <= 0.5 + 1e-9


def test_area_weights_hand_worked():
    w = preprocessor.area_weights(5, 2)        # output 0 covers input [0, 2.5): weights 2, 2, 1 (x2)
    np.testing.assert_array_equal(w, [[2, 2, 1, 0, 0], [0, 0, 1, 2, 2]])
    assert (preprocessor.area_weights(210).sum(axis=1) == 210).all()
    assert (preprocessor.area_weights(160).sum(axis=0) == 84).all()


def test_stack_push_order():
    stack = np.zeros((4, 84, 84), np.uint8)
    for v in (1, 2, 3, 4, 5):
        preprocessor.push_frame(stack, np.full((84, 84), v, np.uint8))
    assert [int(stack[i, 0, 0]) for i in range(4)] == [2, 3, 4, 5]


def test_batched_policy_equals_reference_and_is_batch_independent():
    a = 6
    flats = np.stack([init_params(s, a) for s in (1, 2, 3)])
    rng = np.random.default_rng(0)
    obs = rng.integers(0, 256, (3, 4, 84, 84), dtype=np.uint8)
    q = forward(obs, unflatten(flats, a))
    for i in range(3):
        np.testing.assert_allclose(q[i], forward_reference(obs[i], flats[i], a), rtol=1e-4, atol=1e-5)
    single = forward(obs[1:2], unflatten(flats[1:2], a))
    np.testing.assert_array_equal(single[0], q[1])
    sw = SlotWeights(3, a)                   # the launcher's space-to-depth path
    for i in range(3):
        sw.load(i, flats[i])
    fast = sw.q_values(obs)
    np.testing.assert_allclose(fast, q, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(sw.q_values(obs, np.array([2, 0])), fast[[2, 0]])   # batch-independent
    np.testing.assert_array_equal(sw.act(obs), np.argmax(fast, axis=1))
    np.testing.assert_array_equal(sw.act(obs, np.array([2, 0])), np.argmax(fast[[2, 0]], axis=1))
    assert flats.shape[1] == n_params(a) == 16 * 256 + 16 + 32 * 256 + 32 + 2592 * 256 + 256 + 256 * a + a


def test_instance_matches_plain_ale_run():
    """The instance's episode equals a fresh ALE console driven by hand with the same frames."""
    path = ale_py.roms.get_rom_path("breakout")
    inst = AleEnv(path, frame_skip=4)
    inst.reset(99)
    for _ in range(30):            # give the instance a history; the next episode must not see it
        inst.step(1)
    stack = np.zeros((4, 84, 84), np.uint8)
    reset_frames = inst.reset(7, stack)
    noops = int(np.random.default_rng([7, 0x5EED]).integers(1, 31))
    assert inst.fire_index == 1 and reset_frames == noops + 4

    ale = open_ale(path, reset=True)
    actions = ale.getMinimalActionSet()
    for _ in range(noops):
        ale.act(actions[0])
    grey = []
    for f in range(4):
        ale.act(actions[1])
        grey.append(ale.getScreenGrayscale())
    np.testing.assert_array_equal(stack[3], preprocessor.observe(grey[2], grey[3]))
    np.testing.assert_array_equal(stack[0], stack[3])
    rng = np.random.default_rng(1)
    total_inst = total_ale = 0.0
    for _ in range(150):
        a = int(rng.integers(len(actions)))
        r, frames, over = inst.step(a, stack)
        g = []
        for f in range(4):
            total_ale += ale.act(actions[a])
            g.append(ale.getScreenGrayscale())
        total_inst += r
        assert frames == 4
        np.testing.assert_array_equal(stack[3], preprocessor.observe(g[2], g[3]))
        assert over == ale.game_over()
        if over:
            break
    assert total_inst == total_ale


def test_sticky_actions_repeat_previous_action_at_rate_p():
    path = ale_py.roms.get_rom_path("pong")
    inst = AleEnv(path, frame_skip=4, sticky=0.25)
    inst.reset(3)
    taken = []

    class Recorder:
        def __init__(self, ale):
            self._ale = ale

        def act(self, a):
            taken.append(int(a.value))
            return self._ale.act(a)

        def __getattr__(self, name):
            return getattr(self._ale, name)

    inst.ale = Recorder(inst.ale)
    for t in range(500):
        inst.step(t % 2 + 2)          # alternate RIGHT / LEFT every decision
    assert len(taken) == 2000
    wanted = np.array([int(inst._actions[t % 2 + 2].value) for t in range(500)])
    differs = (np.array(taken).reshape(500, 4) != wanted[:, None]).mean(axis=0)
    # each frame keeps the previous frame's action with p = 0.25, so the k-th frame of a
    # decision still shows the previous decision's action with probability 0.25**k
    np.testing.assert_allclose(differs, [0.25, 0.0625, 0.015625, 0.0039], atol=0.045)
    assert differs[0] > 0.18 and differs[1] < 0.12
