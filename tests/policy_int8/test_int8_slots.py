"""The batched int8 training path (nc2600.host.launcher.policy_int8.Int8Slots) against the numpy model.

Oracles: :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` (itself checked against
an int64 loop reference in test_policy_int8.py) and int64 numpy products for the raw kernel.
"""
from __future__ import annotations

import numpy as np
import pytest

from nc2600.hls_models import policy_int8 as q8
from nc2600.host.episodes.policy import init_params
from nc2600.host.episodes.policy import conv1_blocks
from nc2600.host.launcher.policy_int8 import Int8Slots, matmul_u8s8


@pytest.fixture(scope="module")
def observations():
    from nc2600.host.verify.ale_recordings import record_observations
    return record_observations("breakout", 24, seed=100), record_observations("breakout", 40, seed=7)


def _ref(pols, obs):
    return np.concatenate([p.action_values(obs[i:i + 1]) for i, p in enumerate(pols)])


@pytest.mark.parametrize("act_max", [255, 127])
def test_batched_equals_model_on_real_frames(observations, act_max):
    calib, test = observations
    pols = [q8.quantize(init_params(s, 4), 4, calib, act_max) for s in range(5)]
    slots = Int8Slots(5, 4)
    for i, p in enumerate(pols):
        slots.load(i, p)
    for start in (0, 10, 30):
        obs = test[start:start + 5]
        want = _ref(pols, obs)
        got = slots.action_values(obs)
        assert got.dtype == np.int32 and np.array_equal(got, want)
        assert np.array_equal(slots.act(obs), np.argmax(want, axis=-1))
        sub = np.array([3, 0])                     # a subset, in any order
        assert np.array_equal(slots.action_values(obs, sub), want[sub])


def _extreme_policy(rng, n_actions, sign_pattern):
    """A policy whose weights are all +-127 and shifts small, so activations saturate at 255:
    the worst case for a kernel that sums u8 x s8 pairs in 16 bits."""
    shapes = [(256, 16), (256, 32), (2592, 256), (256, n_actions)]
    ws = []
    for shape in shapes:
        if sign_pattern == "plus":
            w = np.full(shape, 127, np.int8)
        else:
            w = np.where(rng.random(shape) < 0.5, 127, -127).astype(np.int8)
        ws.append(w)
    bs = [rng.integers(-1000, 1000, shape[1]).astype(np.int32) for shape in shapes]
    return q8.QuantizedPolicy(n_actions, ws[0], bs[0], ws[1], bs[1], ws[2], bs[2], ws[3], bs[3],
                              int(rng.integers(0, 4)), int(rng.integers(0, 4)), int(rng.integers(0, 4)), {})


def test_batched_equals_model_on_extreme_values():
    rng = np.random.default_rng(5)
    pols = [_extreme_policy(rng, 6, "plus"), _extreme_policy(rng, 6, "mixed"), _extreme_policy(rng, 6, "mixed")]
    obs = np.stack([np.full((4, 84, 84), 255, np.uint8), rng.integers(0, 256, (4, 84, 84), dtype=np.uint8),
                    np.where(rng.random((4, 84, 84)) < 0.5, 255, 128).astype(np.uint8)])
    slots = Int8Slots(3, 6)
    for i, p in enumerate(pols):
        slots.load(i, p)
    assert np.array_equal(slots.action_values(obs), _ref(pols, obs))


def test_kernel_is_exact_where_16_bit_pair_sums_would_saturate():
    rng = np.random.default_rng(1)
    a = np.full((2, 3, 2592), 255, np.uint8)
    a[1] = rng.integers(0, 256, (3, 2592), dtype=np.uint8)
    b = np.where(rng.random((2, 2592, 40)) < 0.5, 127, -127).astype(np.int8)
    b[0, :, :8] = 127
    want = np.matmul(a.astype(np.int64), b.astype(np.int64))
    got = matmul_u8s8(a, b)
    assert got.dtype == np.int32 and np.array_equal(got, want)
    assert np.abs(want).max() > 2 ** 24                          # beyond float32's exact range


def test_conv1_blocks_is_space_to_depth():
    rng = np.random.default_rng(2)
    obs = rng.integers(0, 256, (2, 4, 84, 84), dtype=np.uint8)
    got = conv1_blocks(obs)
    for by, bx in ((0, 0), (3, 17), (20, 20)):
        want = obs[:, :, 4 * by:4 * by + 4, 4 * bx:4 * bx + 4].reshape(2, 64)   # (c, dy, dx)
        assert np.array_equal(got[:, 21 * by + bx], want)


def test_slot_values_do_not_depend_on_the_batch(observations):
    calib, test = observations
    pols = [q8.quantize(init_params(s, 4), 4, calib) for s in (7, 8, 9)]
    big = Int8Slots(3, 4)
    for i, p in enumerate(pols):
        big.load(i, p)
    one = Int8Slots(1, 4)
    one.load(0, pols[1])
    assert np.array_equal(big.action_values(test[:3])[1], one.action_values(test[1:2])[0])


def test_bad_input(observations):
    calib, test = observations
    slots = Int8Slots(2, 4)
    with pytest.raises(ValueError, match="actions"):
        slots.load(0, q8.quantize(init_params(0, 6), 6, calib))
    slots.load(0, q8.quantize(init_params(0, 4), 4, calib, 255))
    with pytest.raises(ValueError, match="act_max"):
        slots.load(1, q8.quantize(init_params(0, 4), 4, calib, 127))
    with pytest.raises(ValueError, match="expected 2 observations"):
        slots.act(test[:3])
    with pytest.raises(ValueError, match=r"\(B, 4, 84, 84\)"):
        slots.act(test[:2].astype(np.float32))
