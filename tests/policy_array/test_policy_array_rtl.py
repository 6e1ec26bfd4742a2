"""The array engine's RTL (Verilator) against the bit-exact int8 model and its cycle model.

Oracles: :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` for every action value,
:func:`nc2600.hls_models.policy_array.engine_cycles` (hand-worked in ``test_policy_array_model.py``) for every
inference's start -> done cycles, :func:`nc2600.hls_models.policy_array.load_cycles` for the load.
The fast checks run the 8 x 8 engine (real observations of three games, adversarial cases);
``-m slow`` runs 4 x 4, 16 x 8, 16 x 16 and 32 x 16 as well.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from nc2600.hls_models import policy_array as pa
from nc2600.hls_models.policy_int8 import quantize
from tests.policy_engine.cases import adversarial_cases, random_policy


@lru_cache(maxsize=None)
def _engine(rows: int, cols: int):
    from nc2600.hwtools.policy_array_harness import PolicyArraySim
    return PolicyArraySim(rows, cols)


def _check_real_observations(eng, n_obs: int):
    from nc2600.host.verify.ale_recordings import record_observations
    from nc2600.host.episodes.policy import init_params
    for game, n_actions, net in (("ms_pacman", 9, 1), ("pong", 6, 2), ("bank_heist", 18, 3)):
        calib = record_observations(game, 8, 100)
        obs = record_observations(game, n_obs, 7)
        qp = quantize(init_params(net, n_actions), n_actions, calib)
        assert eng.load(qp) == pa.load_cycles(n_actions, eng.rows, eng.cols)
        assert np.array_equal(eng.action_values(obs), qp.action_values(obs)), game
        assert eng.last_cycles == pa.engine_cycles(n_actions, eng.rows, eng.cols)


def _check_adversarial(eng, every: bool):
    cases = adversarial_cases(n_obs=1)
    assert len(cases) == 9
    if not every:
        cases = [c for c in cases if c[0].startswith(("saturating activations (shifts 0)", "+-127 at random, most neg",
                                                      "-127 everywhere"))]
        assert len(cases) == 3, [c[0] for c in cases]          # one case per prefix
    for name, qp, obs in cases:
        eng.load(qp)
        assert np.array_equal(eng.action_values(obs), qp.action_values(obs)), name
        assert eng.last_cycles == pa.engine_cycles(qp.n_actions, eng.rows, eng.cols)


def test_rtl_8x8_real_observations_and_cycles():
    _check_real_observations(_engine(8, 8), 2)


def test_rtl_8x8_adversarial():
    _check_adversarial(_engine(8, 8), every=False)


def test_rtl_drops_bad_words_and_writes_while_busy():
    """Out-of-range configuration values, rows and lanes written to the port are ignored."""
    eng = _engine(8, 8)
    rng = np.random.default_rng(9)
    qp = random_policy(rng, 5)
    eng.load(qp)
    obs = rng.integers(0, 256, (1, 4, 84, 84), np.uint8)
    want = qp.action_values(obs)
    rows = sum(pa.weight_rows(8, 8))
    brows = sum(pa.bias_rows(8, 8))
    eng.load_words(np.array([[2, 0, 0, 0], [2, 0, 0, 19], [2, 1, 0, 100], [2, 2, 0, 32],
                             [0, rows, 0, 0x7F7F7F7F], [0, 0, 16, 0x7F7F7F7F], [1, brows, 0, 12345],
                             [1, 0, 8, 12345]]))
    assert np.array_equal(eng.action_values(obs), want)


def test_bad_shapes_refused():
    from nc2600.hw.policy_array import ArrayPolicyEngine
    with pytest.raises(ValueError, match=r"ArrayPolicyEngine: cols \(16\) must not exceed rows \(8\)"):
        ArrayPolicyEngine(8, 16)
    with pytest.raises(ValueError, match=r"ArrayPolicyEngine: rows \(64\) must divide dense1's 2592 inputs"):
        ArrayPolicyEngine(64, 16)
    with pytest.raises(ValueError, match="n_actions"):
        ArrayPolicyEngine(8, 8, max_actions=19)


@pytest.mark.slow
@pytest.mark.parametrize("rows,cols", [(4, 4), (16, 8), (16, 16), (32, 16)])
def test_rtl_sizes_full(rows, cols):
    eng = _engine(rows, cols)
    _check_real_observations(eng, 3)
    _check_adversarial(eng, every=True)


def test_datapath_block_changes_only_the_weight_memory():
    """The place-and-route proxy of the array engine (``policy_array_datapath``): the 8 x 4 engine's
    Verilog with the weight memory's depth cut to 512 words, every other line (the datapath, the
    control, the other memories) the same as the 8 x 4 engine's; its memories fit the LIFCL-40
    (by hand: weights 512 words of 8 * 4 bytes, act_a 800 words of 8 bytes (conv1's 400
    positions x 16 channels / 8 rows), act_b 324 (81 x 32 / 8), the biases the model's rows of
    4 int32); bad depths refused."""
    import difflib

    from nc2600.hw import policy_array as hw_pa
    from nc2600.hwtools import nexus
    full = hw_pa.generate(8, 4)["policy_array.v"].replace("policy_array", "top").splitlines()
    proxy = hw_pa.generate_datapath()["policy_array_datapath.v"].replace("policy_array_datapath", "top").splitlines()
    changed = [line for line in difflib.unified_diff(full, proxy, lineterm="", n=0)
               if line[:1] in "+-" and line[:3] not in ("---", "+++")]
    wrows = sum(pa.weight_rows(8, 4, 18))
    assert f"-  reg [255:0] weights [{wrows - 1}:0];" in changed and "+  reg [255:0] weights [511:0];" in changed
    other = [line for line in changed if not any(k in line for k in ("weights", "addr", "wrow", "params__row"))]
    assert other == [f"-  (* init = {(wrows - 1).bit_length()}'h0000 *)"]   # the row counter, written as a reg
    fit = nexus.memory_fit("\n".join(proxy))
    brows = sum(pa.bias_rows(8, 4, 18))
    assert fit["fits"] and fit["largest"] == ("weights", 256, 512)   # (name, width, depth)
    assert fit["memory_bits"] == 512 * 256 + 800 * 64 + 324 * 64 + brows * 4 * 32
    from nc2600.hw.policy_array import ArrayPolicyEngine
    for bad in (0, 100, 8192, True, 512.0):
        with pytest.raises(ValueError, match="weight_words must be None or a power of two in 16..4096"):
            ArrayPolicyEngine(8, 4, weight_words=bad)
