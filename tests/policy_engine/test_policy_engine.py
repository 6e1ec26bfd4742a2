"""The policy-engine RTL (Verilator) against the bit-exact int8 model, its cycle model and its loader.

Oracles: :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` (itself checked against
an int64 reference in ``tests/policy_int8``), hand-worked cycle counts, and an independent
decoding of the parameter-load words. The fast checks run one lane count (16) on a few real
observations; ``-m slow`` runs the full verification set (``tests/policy_engine/test_full.py``).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nc2600.hls_models import policy_engine as pm
from nc2600.hls_models.policy_int8 import QuantizedPolicy, inference_cycles, quantize, simulate_schedule
from nc2600.host.episodes.policy import init_params
from tests.policy_engine.cases import adversarial_cases, random_policy


# ---- model: cycles, layout, loader ----------------------------------------------------------

def test_engine_cycles_hand_worked():
    # MAC pipeline 4 (read, operand register, multiply, accumulate), requantiser 2
    # L=4, A=6: MAC steps 400*4*256 + 81*8*256 + 1*64*2592 + 1*2*256 = 741,888; gaps (4+2+4) x 3 = 30; +5
    assert pm.engine_cycles(6, 4) == 741_888 + 30 + 5
    # L=16, A=18: 102,400 + 41,472 + 41,472 + 512 = 185,856; gaps (4+2+16) x 3 = 66; +5
    assert pm.engine_cycles(18, 16) == 185_856 + 66 + 5
    # L=64, A=18: conv1 16 and conv2 32 of 64 lanes busy: 102,400 + 20,736 + 10,368 + 256
    assert pm.engine_cycles(18, 64) == 133_760 + (6 + 16) + (6 + 32) + (6 + 64) + 5
    # start -> chosen action adds the 18-lane argmax tree (5 cycles)
    assert inference_cycles(18, 16) == 185_927 + 5


@pytest.mark.parametrize("lanes", [4, 16, 32, 64])
def test_cycle_models_agree(lanes):
    """The schedule simulator of policy_int8 counts the same cycles as the engine's formula."""
    qp = random_policy(np.random.default_rng(lanes), 7)
    obs = np.random.default_rng(1).integers(0, 256, (4, 84, 84), np.uint8)
    values, counts = simulate_schedule(qp, obs, lanes)
    assert counts["cycles"] == inference_cycles(7, lanes) == pm.engine_cycles(7, lanes) + 3   # argmax of 7: 3
    assert np.array_equal(values, qp.action_values(obs[None])[0])


def test_bad_lanes_refused():
    from nc2600.hw.policy_engine import PolicyEngine
    for bad in (0, 2, 6, 260, 4.0, True):
        with pytest.raises(ValueError, match=r"PolicyEngine: lanes must be a multiple of 4 in 4\.\.256"):
            PolicyEngine(bad)
    with pytest.raises(ValueError, match="n_actions"):
        PolicyEngine(16, max_actions=19)


def test_load_words_decode_to_the_weights():
    """Rebuild every weight and bias from the load words by the documented layout."""
    qp = random_policy(np.random.default_rng(3), 18)
    for lanes in (4, 12, 64):
        words = pm.load_words(qp, lanes)
        assert len(words) == pm.load_cycles(18, lanes)
        wmem = np.zeros((sum(pm.weight_rows(lanes)), lanes), np.int64)
        bmem = np.zeros((sum(pm.bias_rows(lanes)), lanes), np.int64)
        cfg = {}
        for space, row, lane, data in words:
            if space == pm.SPACE_WEIGHTS:
                for b in range(4):
                    byte = (data >> (8 * b)) & 0xFF
                    wmem[row, lane + b] = byte - 256 if byte > 127 else byte
            elif space == pm.SPACE_BIASES:
                bmem[row, lane] = data - (1 << 32) if data >= 1 << 31 else data
            else:
                cfg[int(row)] = int(data)
        assert cfg == {0: 18, 1: qp.act_max, 2: qp.s1, 3: qp.s2, 4: qp.s3}
        wbase, bbase = pm.bases(pm.weight_rows(lanes)), pm.bases(pm.bias_rows(lanes))
        for layer, (w, b) in enumerate(zip(qp.weights(), qp.biases())):
            k, n = w.shape
            for out in range(n):
                g, j = divmod(out, lanes)
                rows = wbase[layer] + g * k + np.arange(k)
                assert np.array_equal(wmem[rows, j], w[:, out]), (lanes, layer, out)
                assert bmem[bbase[layer] + g, j] == b[out]


def test_load_cycles_figure():
    # 256*16 + 256*32 + 2592*256 weight bytes / 4, plus 256*ceil(18/4) words, 322 biases, 5 registers
    assert pm.load_cycles(18, 16) == 1024 + 2048 + 165_888 + 256 * 5 + 322 + 5


def _with(qp: QuantizedPolicy, **changes) -> QuantizedPolicy:
    return dataclasses.replace(qp, **changes)


def test_loader_refuses_bad_parameters_naming_the_field():
    qp = random_policy(np.random.default_rng(4), 6)
    w3 = qp.w3.astype(np.int16)
    w3[5, 7] = 128
    cases = [
        (_with(qp, w3=w3), r"^w3: value 128 outside -127\.\.127"),
        (_with(qp, w1=np.full((256, 16), -128, np.int16)), r"^w1: value -128"),
        (_with(qp, w2=qp.w2[:, :31]), r"^w2: shape \(256, 31\)"),
        (_with(qp, w4=qp.w4.astype(np.float32)), r"^w4: dtype float32"),
        (_with(qp, b4=np.zeros(5, np.int32)), r"^b4: shape \(5,\), expected \(6,\)"),
        (_with(qp, s2=32), r"^s2: 32, expected an integer shift in 0\.\.31"),
        (_with(qp, s1=-1), r"^s1: -1"),
        (_with(qp, act_max=200), r"^act_max: 200"),
        (_with(qp, n_actions=19), r"^n_actions must be an integer in 1\.\.18"),
        (_with(qp, b3=np.full(256, -(2 ** 31) + 1, np.int64)), r"^b3: output \d+'s accumulator can leave int32"),
        (_with(qp, b1=np.full(16, 2 ** 31, np.int64)), r"^b1: value 2147483648 outside"),
    ]
    for bad, pattern in cases:
        with pytest.raises(ValueError, match=pattern):
            pm.load_words(bad, 16)
    with pytest.raises(ValueError, match=r"^n_actions: the policy has 6 actions, the engine is loaded for 4"):
        pm.check_parameters(qp, 4)


def test_flat_vector_loader():
    qp = random_policy(np.random.default_rng(5), 4)
    flat = np.concatenate([getattr(qp, k).astype(np.int64).ravel() for k in
                           ("w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4")])
    back = pm.policy_from_flat(flat, 4, qp.shifts(), qp.act_max)
    obs = np.random.default_rng(0).integers(0, 256, (2, 4, 84, 84), np.uint8)
    assert np.array_equal(back.action_values(obs), qp.action_values(obs))
    with pytest.raises(ValueError, match=r"^flat parameter vector: shape \(\d+,\), expected \(\d+,\) for 4 actions"):
        pm.policy_from_flat(flat[:-1], 4, qp.shifts())
    with pytest.raises(ValueError, match=r"^flat parameter vector: dtype float64"):
        pm.policy_from_flat(flat.astype(np.float64), 4, qp.shifts())
    with pytest.raises(ValueError, match=r"^shifts: 2 values"):
        pm.policy_from_flat(flat, 4, [1, 2])


# ---- RTL ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def engine16():
    from nc2600.hwtools.policy_engine_harness import PolicyEngineSim
    return PolicyEngineSim(16)


def test_rtl_real_observations_and_cycles(engine16):
    """An |A| = 18 game and a 6-action game, real observations, every action value equal; the
    measured start->done cycles equal the model's."""
    from nc2600.host.verify.ale_recordings import record_observations
    for game, n_actions, net in (("ms_pacman", 9, 1), ("pong", 6, 2), ("bank_heist", 18, 3)):
        calib = record_observations(game, 8, 100)
        obs = record_observations(game, 6, 7)
        qp = quantize(init_params(net, n_actions), n_actions, calib)
        load = engine16.load(qp)
        assert load == pm.load_cycles(n_actions, 16)
        got = engine16.action_values(obs)
        want = qp.action_values(obs)
        assert np.array_equal(got, want), game
        assert engine16.last_cycles == pm.engine_cycles(n_actions, 16)


def test_rtl_adversarial(engine16):
    for name, qp, obs in adversarial_cases(n_obs=2):
        engine16.load(qp)
        assert np.array_equal(engine16.action_values(obs), qp.action_values(obs)), name


def test_rtl_drops_bad_configuration_words(engine16):
    """Out-of-range configuration values written to the port are ignored."""
    rng = np.random.default_rng(9)
    qp = random_policy(rng, 5)
    engine16.load(qp)
    obs = rng.integers(0, 256, (1, 4, 84, 84), np.uint8)
    want = qp.action_values(obs)
    # bad configuration words: n_actions 0 and 19, act_max 100, shift 32: all dropped
    engine16.load_words(np.array([[2, 0, 0, 0], [2, 0, 0, 19], [2, 1, 0, 100], [2, 2, 0, 32]]))
    assert np.array_equal(engine16.action_values(obs), want)
