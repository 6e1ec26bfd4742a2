"""The int8 policy model: bit exactness, quantiser, agreement with the float network, cycle model."""
from __future__ import annotations

import numpy as np
import pytest

from nc2600.hls_models import policy_int8 as q8
from nc2600.host.episodes.policy import forward, init_params, n_params, unflatten


@pytest.fixture(scope="module")
def observations():
    from nc2600.host.verify.ale_recordings import record_observations
    return {g: (record_observations(g, 24, seed=100), record_observations(g, 160, seed=7))
            for g in ("pong", "asteroids")}


def reference_int(policy: q8.QuantizedPolicy, obs: np.ndarray) -> np.ndarray:
    """Independent integer forward pass (explicit convolution loops in int64), one observation."""
    a = obs.astype(np.int64)
    k1 = policy.w1.astype(np.int64).reshape(4, 8, 8, 16)
    acc = np.zeros((20, 20, 16), np.int64)
    for y in range(20):
        for x in range(20):
            acc[y, x] = np.einsum("chw,chwo->o", a[:, 4 * y:4 * y + 8, 4 * x:4 * x + 8], k1)
    h1 = q8.requantize(acc + policy.b1, policy.s1, policy.act_max)
    k2 = policy.w2.astype(np.int64).reshape(16, 4, 4, 32)
    acc = np.zeros((9, 9, 32), np.int64)
    for y in range(9):
        for x in range(9):
            acc[y, x] = np.einsum("hwc,chwo->o", h1[2 * y:2 * y + 4, 2 * x:2 * x + 4], k2)
    h2 = q8.requantize(acc + policy.b2, policy.s2, policy.act_max)
    h3 = q8.requantize(h2.reshape(2592) @ policy.w3.astype(np.int64) + policy.b3, policy.s3, policy.act_max)
    return h3 @ policy.w4.astype(np.int64) + policy.b4


@pytest.mark.parametrize("act_max", [255, 127])
def test_model_is_bit_exact_integer_arithmetic(observations, act_max):
    calib, test = observations["asteroids"]
    flat = init_params(3, 14)
    qp = q8.quantize(flat, 14, calib, act_max)
    got = qp.action_values(test[:6])
    for i in range(6):
        assert np.array_equal(got[i], reference_int(qp, test[i]))
    assert got.dtype == np.int32


def test_quantiser_ranges_and_error_bound(observations):
    calib, _ = observations["pong"]
    flat = init_params(1, 6)
    qp = q8.quantize(flat, 6, calib)
    p = unflatten(flat, 6)
    for i, w in enumerate(qp.weights(), start=1):
        assert w.dtype == np.int8 and np.abs(w.astype(int)).max() <= 127
        assert np.abs(w.astype(int)).max() >= 64            # the power-of-two scale uses the top bit
        e = qp.exponents[f"e{i}"]
        wf = p[f"w{i}"].astype(np.float64) / (255.0 if i == 1 else 1.0)
        assert np.abs(w / 2.0 ** e - wf).max() <= 0.5 * 2.0 ** -e + 1e-12   # round to nearest
    assert all(s >= 0 for s in qp.shifts())
    # calibration: no saturation on the calibration frames, top code used within a factor 2
    acc = qp.layer_accumulators(calib, 0)
    assert qp.act_max // 2 < np.max(acc) / 2 ** qp.s1 <= qp.act_max + 0.5


def test_agreement_with_float_network(observations):
    """Per game and network, the int8 argmax equals the float argmax on >= 95 % of real
    observations (the 99 % target: test_agreement_target_99 and the report)."""
    for game, n_actions in (("pong", 6), ("asteroids", 14)):
        calib, test = observations[game]
        for seed in (0, 1):
            flat = init_params(seed, n_actions)
            want = np.argmax(forward(test, unflatten(flat[None], n_actions)), axis=-1)
            got = q8.quantize(flat, n_actions, calib).act(test)
            assert (got == want).mean() >= 0.95, (game, seed, (got == want).mean())


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="int8 post-training quantisation of random-init networks reaches "
                   "93-100 % per game, below the issue's 99 % target (near-tie action values)")
def test_agreement_target_99():
    from nc2600.host.verify.ale_recordings import record_observations
    from nc2600.host.games import game_info
    for game in ("pong", "breakout", "asteroids", "space_invaders", "journey_escape"):
        n = len(game_info(game).minimal_actions)
        calib, test = record_observations(game, 32, 100), record_observations(game, 300, 7)
        for seed in range(4):
            flat = init_params(seed, n)
            want = np.argmax(forward(test, unflatten(flat[None], n)), axis=-1)
            assert (q8.quantize(flat, n, calib).act(test) == want).mean() >= 0.99


def test_slots_match_single_policies(observations):
    calib, test = observations["pong"]
    slots = q8.QuantizedSlots(3, 6)
    pols = [q8.quantize(init_params(s, 6), 6, calib) for s in range(3)]
    for i, p in enumerate(pols):
        slots.load(i, p)
    obs = test[:3]
    assert slots.act(obs).tolist() == [int(p.act(obs[i:i + 1])[0]) for i, p in enumerate(pols)]


def test_bad_input():
    calib = np.zeros((2, 4, 84, 84), np.uint8)
    with pytest.raises(ValueError, match=r"\(B, 4, 84, 84\)"):
        q8.quantize(init_params(0, 4), 4, np.zeros((2, 84, 84), np.uint8))
    with pytest.raises(ValueError, match=r"\(B, 4, 84, 84\)"):
        q8.quantize(init_params(0, 4), 4, calib.astype(np.float32))
    with pytest.raises(ValueError, match=str(n_params(4))):
        q8.quantize(np.zeros(10, np.float32), 4, calib)
    qp = q8.quantize(init_params(0, 4), 4, calib)
    with pytest.raises(ValueError, match=r"\(B, 4, 84, 84\)"):
        qp.act(np.zeros((4, 84, 84), np.uint8))
    with pytest.raises(ValueError, match="lanes"):
        q8.inference_cycles(4, 0)


# ---- cycle and resource model ---------------------------------------------------------------

def test_mac_count_from_network_shapes():
    # output elements x fan-in, from the layer shapes of nc2600.host.episodes.policy (independent of layer_dims)
    from nc2600.host.episodes.policy import layer_shapes
    shapes = dict(layer_shapes(18))
    conv1 = 20 * 20 * shapes["w1"][1] * shapes["w1"][0]
    conv2 = 9 * 9 * shapes["w2"][1] * shapes["w2"][0]
    dense = shapes["w3"][0] * shapes["w3"][1] + shapes["w4"][0] * shapes["w4"][1]
    assert q8.mac_count(18) == conv1 + conv2 + dense == 2_970_112


@pytest.mark.parametrize("lanes", [16, 7, 32, 1])
def test_cycle_model_against_explicit_schedule(observations, lanes):
    calib, test = observations["pong"]
    qp = q8.quantize(init_params(2, 6), 6, calib)
    values, counts = q8.simulate_schedule(qp, test[5], lanes)
    assert np.array_equal(values, qp.action_values(test[5:6])[0])      # the schedule computes the network
    assert counts["macs"] == q8.mac_count(6) == counts["weight_reads"]
    assert counts["cycles"] == q8.inference_cycles(6, lanes)
    assert counts["activation_reads"] == counts["cycles"] - q8.drain_cycles(6, lanes) - 3   # argmax: 3 levels for 6
    assert counts["cycles"] >= q8.mac_count(6) / lanes                  # at most L MACs per cycle


def test_lanes_for_frame_skip_at_150mhz():
    # budget: 4 frames x 262 lines x 228 colour clocks, one colour clock per 150 MHz cycle
    assert q8.frame_skip_period_cycles(150.0) == 238_944
    # 16 lanes, 18 actions: 400*256 + 81*2*256 + 16*2592 + 2*256, write-back gaps 3 x (4 + 2 + 16)
    # (MAC pipeline: read, operand register, multiply, accumulate; requantiser 2; 16 bytes),
    # last group 4 + 1, argmax 5 (the RTL's cycles, hw/policy_engine.py)
    assert q8.inference_cycles(18, 16) == 102_400 + 41_472 + 41_472 + 512 + 66 + 5 + 5 == 185_932
    assert q8.inference_cycles(18, 15) > 238_944                        # ceil(16/15) = 2 groups in conv1
    assert q8.min_lanes(18, 150.0) == 16 and q8.min_lanes(4, 150.0) == 16
    assert q8.resources(18, 16)["fits_frame_skip"] and not q8.resources(18, 8)["fits_frame_skip"]


def test_bram_and_dsp_counts_hand_worked():
    # 16 lanes: per-lane depth 256 + 2*256 + 16*2592 + 2*256 = 42,752 bytes; as 512 x 72 blocks
    # (8 lanes each): 2 * ceil(42752 / 512) = 168
    r = q8.resources(18, 16)
    assert r["weight_bram36"] == 168 and r["activation_bram36"] == 2 + 1 + 1 and r["dsp"] == 16
    # capacity bound: never fewer blocks than bytes / 4096
    for lanes in (1, 3, 8, 16, 64):
        assert q8.weight_bram36(18, lanes) >= -(-q8.resources(18, lanes)["weight_bytes"] // 4096)
