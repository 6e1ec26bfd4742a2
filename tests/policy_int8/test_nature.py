"""``--network nature`` (Mnih et al. 2015 sizes): layout, float and int8 models, batched host paths.

Oracles: hand-counted shapes and parameter counts, explicit-loop float64 and int64 references
written here, the small network's own (independently tested) paths, int64 numpy products.
"""
from __future__ import annotations

import numpy as np
import pytest

from nc2600.hls_models import networks
from nc2600.hls_models import policy_int8 as q8
from nc2600.host.episodes.policy import (forward, forward_network, forward_network_reference, init_network_params,
                                         init_params,
                         layer_shapes, n_params, unflatten)
from nc2600.host.launcher.policy_int8 import Int8NetworkSlots


@pytest.fixture(scope="module")
def observations():
    from nc2600.host.verify.ale_recordings import record_observations
    return record_observations("pong", 16, seed=100), record_observations("pong", 30, seed=7)


def test_layout_hand_counted():
    # conv 32 8x8/4: 84 -> 20; conv 64 4x4/2: 20 -> 9; conv 64 3x3/1: 9 -> 7; dense 7*7*64 -> 512 -> A
    shapes = dict(networks.layer_shapes("nature", 18))
    assert shapes == {"w1": (256, 32), "b1": (32,), "w2": (512, 64), "b2": (64,), "w3": (576, 64), "b3": (64,),
                      "w4": (3136, 512), "b4": (512,), "w5": (512, 18), "b5": (18,)}
    assert networks.n_params("nature", 18) == (8192 + 32) + (32768 + 64) + (36864 + 64) + (1605632 + 512) \
        + (9216 + 18) == 1_693_362
    assert networks.mac_count("nature", 18) == 400 * 32 * 256 + 81 * 64 * 512 + 49 * 64 * 576 + 3136 * 512 + 512 * 18
    for a in (4, 18):
        assert networks.layer_shapes("small", a) == layer_shapes(a)
        assert networks.n_params("small", a) == n_params(a)
    with pytest.raises(ValueError, match="choices: small, nature"):
        networks.geometry("huge", 4)


def test_small_through_the_generic_path_equals_its_own():
    rng = np.random.default_rng(0)
    obs = rng.integers(0, 256, (2, 4, 84, 84), dtype=np.uint8)
    flats = np.stack([init_params(s, 6) for s in (1, 2)])
    assert np.array_equal(init_network_params(1, 6, "small"), flats[0])
    got = forward_network(obs, networks.unflatten(flats, "small", 6), "small", 6)
    assert np.allclose(got, forward(obs, unflatten(flats, 6)), rtol=1e-5, atol=1e-6)


def test_nature_float_batched_equals_loop_reference(observations):
    _, test = observations
    flats = np.stack([init_network_params(s, 6, "nature") for s in (3, 4)])
    obs = test[[5, 20]]
    got = forward_network(obs, networks.unflatten(flats, "nature", 6), "nature", 6)
    for i in range(2):
        want = forward_network_reference(obs[i], flats[i], "nature", 6)
        assert np.allclose(got[i], want, rtol=1e-4, atol=1e-5)


def reference_int_nature(qn: q8.QuantizedNetwork, obs: np.ndarray) -> np.ndarray:
    """Independent integer forward pass: explicit convolution loops in int64, one observation."""
    a = obs.astype(np.int64).transpose(1, 2, 0)
    geo = networks.geometry(qn.network, qn.n_actions)
    for i, g in enumerate(geo):
        w, b = qn.w[i].astype(np.int64), qn.b[i].astype(np.int64)
        if g.kind == "conv":
            k = w.reshape(g.in_c, g.kernel, g.kernel, g.n)
            acc = np.zeros((g.out_h, g.out_w, g.n), np.int64)
            for y in range(g.out_h):
                for x in range(g.out_w):
                    win = a[g.stride * y:g.stride * y + g.kernel, g.stride * x:g.stride * x + g.kernel]
                    acc[y, x] = np.einsum("hwc,chwo->o", win, k)
            acc += b
        else:
            acc = a.reshape(-1) @ w + b
        if i == len(geo) - 1:
            return acc
        a = q8.requantize(acc, qn.s[i], qn.act_max)


@pytest.mark.parametrize("act_max", [255, 127])
def test_nature_int8_model_and_batched_path_are_exact(observations, act_max):
    calib, test = observations
    pols = [q8.quantize_network(init_network_params(s, 6, "nature"), "nature", 6, calib, act_max) for s in (0, 1)]
    obs = test[[3, 27]]
    for i, p in enumerate(pols):
        assert len(p.shifts()) == 4 and all(s >= 0 for s in p.shifts())
        assert all(w.dtype == np.int8 and np.abs(w.astype(int)).max() <= 127 for w in p.weights())
        assert np.array_equal(p.action_values(obs[i:i + 1])[0], reference_int_nature(p, obs[i]))
    slots = Int8NetworkSlots(2, 6, "nature")
    for i, p in enumerate(pols):
        slots.load(i, p)
    want = np.concatenate([p.action_values(obs[i:i + 1]) for i, p in enumerate(pols)])
    got = slots.action_values(obs)
    assert got.dtype == np.int32 and np.array_equal(got, want)


def test_small_through_quantize_network_is_the_rtl_engines_policy(observations):
    calib, test = observations
    flat = init_params(2, 6)
    qp = q8.quantize_network(flat, "small", 6, calib)
    assert isinstance(qp, q8.QuantizedPolicy)
    generic = q8.QuantizedNetwork("small", 6, qp.weights(), qp.biases(), qp.shifts(), {}, qp.act_max)
    assert np.array_equal(generic.action_values(test[:4]), qp.action_values(test[:4]))


def test_nature_bad_input(observations):
    calib, _ = observations
    with pytest.raises(ValueError, match="1693362|the nature network"):
        q8.quantize_network(init_params(0, 18), "nature", 18, calib)
    slots = Int8NetworkSlots(1, 6, "nature")
    with pytest.raises(ValueError, match="small network"):
        slots.load(0, q8.quantize_network(init_params(0, 6), "small", 6, calib))


def test_nature_engine_cycles_and_block_ram_hand_worked():
    from nc2600.hls_models.action_select import latency
    # 64 lanes: every conv layer is one lane group per position, dense1 512 outputs are 8 groups
    compute = 400 * 1 * 256 + 81 * 1 * 512 + 49 * 1 * 576 + 1 * 8 * 3136 + 1 * 1 * 512
    # MAC pipeline 4 (read, operand register, multiply, accumulate), requantiser 2
    gaps = (4 + 2 + 32) + (4 + 2 + 64) + (4 + 2 + 64) + (4 + 2 + 64)     # after conv1..dense1
    assert q8.inference_cycles(18, 64, "nature") == compute + gaps + 4 + 1 + latency(18)
    assert q8.mac_count(18, "nature") == 9_352_192
    assert q8.min_lanes(18, network="nature") == 64       # 48 lanes: 276,925 cycles > 238,944
    assert q8.inference_cycles(18, 48, "nature") > q8.frame_skip_period_cycles() >= q8.inference_cycles(18, 64,
                                                                                                        "nature")
    # activations: 12,800 + 5,184 + 3,136 + 512 bytes -> 4 + 2 + 1 + 1 BRAM36 (4,096 bytes each)
    assert q8.activation_bram36("nature") == 8 and q8.activation_bram36() == 4
    # weights: 1,692,672 bytes at 64 lanes, one lane per byte lane of 8-lane BRAM36s: 8 x 53 = 424
    assert q8.resources(18, 64, network="nature")["weight_bytes"] == 1_693_362 - (32 + 64 + 64 + 512 + 18)
    assert q8.weight_bram36(18, 64, "nature") == 8 * -(-(256 + 512 + 576 + 8 * 3136 + 512) // 512)
    per = q8.instances_per_device(18, 64, "nature")
    assert per["bram36_per_instance"] == 424 + 8 + 19.5 and per["instances"] == 1    # 545 BRAM36 in an XC7Z045
    assert q8.instances_per_device(18, 16)["instances"] == 2
