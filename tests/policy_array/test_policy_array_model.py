"""The array engine's model (:mod:`nc2600.hls_models.policy_array`): cycles, layout, loader and its
schedule against the bit-exact int8 model.

Oracles: :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` (itself checked against an
int64 reference in ``tests/policy_int8``), hand-worked cycle counts, and an independent decoding
of the load words and the observation words by the layout formulas written out here as loops.
"""
from __future__ import annotations

import numpy as np
import pytest

from nc2600.hls_models import policy_array as pa
from nc2600.hls_models.policy_int8 import mac_count, quantize
from tests.policy_engine.cases import adversarial_cases, random_policy

SHAPES = [(4, 4), (8, 8), (16, 8), (16, 16), (32, 16), (32, 4)]


def test_cycles_hand_worked():
    # 16 x 16, 18 actions: conv1 400 positions x 1 group x 256/16 = 6400; conv2 81 x 2 x 16 = 2592;
    # dense1 16 groups x 2592/16 = 2592; dense2 2 x 16 = 32 -> 11,616 issue cycles; gaps (6 + 4) x 3;
    # pipeline 4 + 4 and the values register 1; action select of 18: 5
    assert pa.engine_cycles(18, 16, 16) == 11_616 + 30 + 9
    assert pa.inference_cycles(18, 16, 16) == 11_660
    # 8 x 8: 400*2*32 + 81*4*32 + 32*324 + 3*32 = 25,600 + 10,368 + 10,368 + 96; gaps (6+3) x 3; 7 + 1
    assert pa.engine_cycles(18, 8, 8) == 46_432 + 27 + 8
    # 32 x 16, 6 actions: 400*8 + 81*2*8 + 16*81 + 1*8 = 3200 + 1296 + 1296 + 8; gaps 11 x 3; 9 + 1
    assert pa.engine_cycles(6, 32, 16) == 5_800 + 33 + 10


def test_targets_of_the_256_multiplier_engine():
    """Small network, 18 actions: at most 20,000 cycles start -> action at MAC efficiency >= 0.7."""
    cycles = pa.inference_cycles(18, 16, 16)
    assert cycles <= 20_000
    eff = pa.mac_efficiency(18, 16, 16)
    assert eff == pytest.approx(2_970_112 / (256 * 11_660))
    assert eff >= 0.7
    assert mac_count(18) == 2_970_112


def test_nature_network_cycles():
    # conv1 400 x 2 x 256/16, conv2 81 x 4 x 512/16, conv3 49 x 4 x 576/16, dense1 32 x 3136/16, dense2 2 x 512/16
    issue = 400 * 2 * 16 + 81 * 4 * 32 + 49 * 4 * 36 + 32 * 196 + 2 * 32
    assert pa.engine_cycles(18, 16, 16, "nature") == issue + 4 * 10 + 9
    used = 256 * 32 + 512 * 64 + 576 * 64 + 3136 * 512 + 512 * 18
    assert pa.memory(16, 16, 18, "nature")["weight_bytes_used"] == used


def test_shapes_refused_with_reasons():
    for rows, cols, pattern in ((3, 4, "rows must be one of"), (16, 32, "cols must be one of"),
                                (8, 16, r"cols \(16\) must not exceed rows \(8\)"),
                                (64, 16, r"rows \(64\) must divide dense1's 2592 inputs"),
                                (True, 4, "rows must be one of"), (16.0, 4, "rows must be one of")):
        with pytest.raises(ValueError, match=pattern):
            pa.check_shape(rows, cols)
    assert pa.check_shape(64, 16, "nature") == (64, 16)


def _decode(words, rows, cols, max_actions=18):
    wmem = np.zeros((sum(pa.weight_rows(rows, cols, max_actions)), rows * cols), np.int64)
    bmem = np.zeros((sum(pa.bias_rows(rows, cols, max_actions)), cols), np.int64)
    cfg = {}
    for space, row, lane, data in words:
        if space == 0:
            for b in range(4):
                byte = (int(data) >> (8 * b)) & 0xFF
                wmem[row, 4 * lane + b] = byte - 256 if byte > 127 else byte
        elif space == 1:
            bmem[row, lane] = data - (1 << 32) if data >= 1 << 31 else data
        else:
            cfg[int(row)] = int(data)
    return wmem, bmem, cfg


@pytest.mark.parametrize("rows,cols", [(8, 8), (16, 16), (32, 4)])
def test_load_words_decode_by_the_documented_layout(rows, cols):
    """Every weight and bias rebuilt from the words by the module doc's formulas (plain loops)."""
    qp = random_policy(np.random.default_rng(rows + cols), 18)
    words = pa.load_words(qp, rows, cols)
    assert len(words) == pa.load_cycles(18, rows, cols)
    wmem, bmem, cfg = _decode(words, rows, cols)
    assert cfg == {0: 18, 1: qp.act_max, 2: qp.s1, 3: qp.s2, 4: qp.s3}
    wbase = pa.bases(pa.weight_rows(rows, cols))
    bbase = pa.bases(pa.bias_rows(rows, cols))
    # (in_c, kernel, (R_c, R_h, R_w)) of conv1 / conv2 written out by hand
    tilings = {4: (4, 1, 1), 8: (4, 1, 2), 16: (4, 1, 4), 32: (4, 2, 4)}
    tilings2 = {4: (4, 1, 1), 8: (8, 1, 1), 16: (16, 1, 1), 32: (16, 1, 2)}
    convs = [(4, 8, tilings[rows]), (16, 4, tilings2[rows])]
    for layer, (w, b) in enumerate(zip(qp.weights(), qp.biases())):
        k_total, n = w.shape
        t_count = k_total // rows
        got = np.zeros_like(w, dtype=np.int64)
        for g in range(-(-n // cols)):
            for t in range(t_count):
                for r in range(rows):
                    if layer < 2:
                        in_c, ks, (rc, rh, rw) = convs[layer]
                        n_cc, n_ww = in_c // rc, ks // rw
                        hh, ww, cc = t // (n_ww * n_cc), (t // n_cc) % n_ww, t % n_cc
                        rh_, rw_, rc_ = r // (rw * rc), (r // rc) % rw, r % rc
                        k = ((cc * rc + rc_) * ks + hh * rh + rh_) * ks + ww * rw + rw_
                    else:
                        k = t * rows + r
                    for j in range(cols):
                        if g * cols + j < n:
                            got[k, g * cols + j] = wmem[wbase[layer] + g * t_count + t, r * cols + j]
                        else:
                            assert wmem[wbase[layer] + g * t_count + t, r * cols + j] == 0
        assert np.array_equal(got, w), (rows, cols, layer)
        for out in range(n):
            assert bmem[bbase[layer] + out // cols, out % cols] == b[out]


def test_obs_words_by_the_documented_layout():
    rng = np.random.default_rng(2)
    obs = rng.integers(0, 256, (4, 84, 84), np.uint8)
    for rows, (rc, rh, rw) in ((8, (4, 1, 2)), (16, (4, 1, 4)), (32, (4, 2, 4))):
        words = pa.obs_words(obs, rows)
        assert words.shape == (4 * 84 * 84 // rows, rows)
        for _ in range(200):
            c, y, x = rng.integers(0, 4), rng.integers(0, 84), rng.integers(0, 84)
            word = (y // rh) * (84 // rw) + x // rw
            lane = ((y % rh) * rw + x % rw) * rc + c
            assert words[word, lane] == obs[c, y, x]


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_schedule_values_random_policies(rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    for n_actions in (18, 3):
        qp = random_policy(rng, n_actions)
        obs = rng.integers(0, 256, (4, 84, 84), np.uint8)
        values, counts = pa.simulate(qp, obs, rows, cols)
        assert np.array_equal(values, qp.action_values(obs[None])[0])
        assert counts["macs"] == mac_count(n_actions)
        assert counts["cycles"] == pa.engine_cycles(n_actions, rows, cols)


@pytest.mark.parametrize("rows,cols", [(8, 8), (16, 16), (32, 16)])
def test_schedule_values_adversarial(rows, cols):
    for name, qp, obs in adversarial_cases(n_obs=1):
        values, _ = pa.simulate(qp, obs[0], rows, cols)
        assert np.array_equal(values, qp.action_values(obs)[0]), name


def test_schedule_values_real_observations():
    """Three games (9, 6 and 18 actions), quantised networks, real observations."""
    from nc2600.host.verify.ale_recordings import record_observations
    from nc2600.host.episodes.policy import init_params
    for game, n_actions, net in (("ms_pacman", 9, 1), ("pong", 6, 2), ("bank_heist", 18, 3)):
        calib = record_observations(game, 8, 100)
        obs = record_observations(game, 3, 7)
        qp = quantize(init_params(net, n_actions), n_actions, calib)
        want = qp.action_values(obs)
        for rows, cols in ((16, 16), (32, 16), (8, 8)):
            for i in range(len(obs)):
                values, _ = pa.simulate(qp, obs[i], rows, cols)
                assert np.array_equal(values, want[i]), (game, rows, cols, i)


def test_table_lists_every_size():
    text = pa.table()
    for r, c in pa.SHAPES.values():
        assert f"{r} x {c}" in text
    assert "11660" in text and "nature" in text


def test_cli_prints_the_table_and_refuses_two_modes():
    import subprocess
    import sys
    ok = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "policy-int8", "--array"], capture_output=True,
                        text=True)
    assert ok.returncode == 0 and ok.stdout.strip() == pa.table()
    bad = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "policy-int8", "--array", "--agreement", "pong"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_synth_array_option_refuses_bad_shapes_in_one_line():
    import subprocess
    import sys
    for value, pattern in (("8x16", r"cols \(16\) must not exceed rows \(8\)"), ("abc", "expected ROWSxCOLS"),
                           ("64x16", r"rows \(64\) must divide dense1's 2592 inputs")):
        proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "synth", "--array", value],
                              capture_output=True, text=True)
        assert proc.returncode == 2, value
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and __import__("re").search(pattern, lines[0]), proc.stderr
