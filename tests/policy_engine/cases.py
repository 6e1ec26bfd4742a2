"""Policies and observations for the policy-engine tests: random integer policies and the
adversarial cases (saturating activations, all-zero observations, maximal weights,
most negative biases), each within the engine's format (:func:`nc2600.hls_models.policy_engine.check_parameters`)."""
from __future__ import annotations

import numpy as np

from nc2600.hls_models import policy_engine as pm
from nc2600.hls_models.policy_int8 import QuantizedPolicy

INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def _policy(n_actions, ws, bs, shifts, act_max=255) -> QuantizedPolicy:
    qp = QuantizedPolicy(n_actions, ws[0], bs[0], ws[1], bs[1], ws[2], bs[2], ws[3], bs[3], *shifts, {}, act_max)
    return pm.check_parameters(qp)


def _shapes(n_actions):
    s = pm.field_shapes(n_actions)
    return [s[f"w{i}"] for i in range(1, 5)], [s[f"b{i}"] for i in range(1, 5)]


def random_policy(rng: np.random.Generator, n_actions: int, shifts=(11, 11, 12), act_max: int = 255) -> QuantizedPolicy:
    """Uniform int8 weights in -127..127, biases up to +-2**16, shifts that keep activations in range."""
    wsh, bsh = _shapes(n_actions)
    ws = [rng.integers(-127, 128, s).astype(np.int8) for s in wsh]
    bs = [rng.integers(-(2 ** 16), 2 ** 16, s).astype(np.int32) for s in bsh]
    return _policy(n_actions, ws, bs, shifts, act_max)


def _at_bound(ws, in_max, low: bool):
    """Biases at the int32 bound the loader allows: the most negative (``low``) or most positive."""
    out = []
    for w, a in zip(ws, in_max):
        w = w.astype(np.int64)
        if low:
            out.append((INT32_MIN - np.where(w < 0, w, 0).sum(axis=0) * a).astype(np.int64))
        else:
            out.append((INT32_MAX - np.where(w > 0, w, 0).sum(axis=0) * a).astype(np.int64))
    return out


def adversarial_cases(n_obs: int = 2, n_actions: int = 18, seed: int = 12):
    """``[(name, policy, observations (n_obs, 4, 84, 84) uint8), ...]``."""
    rng = np.random.default_rng(seed)
    wsh, _ = _shapes(n_actions)
    noise = rng.integers(0, 256, (n_obs, 4, 84, 84), np.uint8)
    zeros = np.zeros((n_obs, 4, 84, 84), np.uint8)
    white = np.full((n_obs, 4, 84, 84), 255, np.uint8)
    plus = [np.full(s, 127, np.int8) for s in wsh]
    minus = [np.full(s, -127, np.int8) for s in wsh]
    alt = [np.where(rng.random(s) < 0.5, 127, -127).astype(np.int8) for s in wsh]
    in255 = [255, 255, 255, 255]
    cases = [
        ("saturating activations (shifts 0)", random_policy(rng, n_actions, (0, 0, 0)), noise),
        ("saturating activations, act_max 127", random_policy(rng, n_actions, (2, 1, 3), 127), noise),
        ("all-zero observations", random_policy(rng, n_actions), zeros),
        ("all-zero observations, zero weights and biases",
         _policy(n_actions, [np.zeros(s, np.int8) for s in wsh], [np.zeros(s[1], np.int32) for s in wsh],
                 (0, 0, 0)), zeros),
        ("+127 everywhere, most negative biases (int32 min)",
         _policy(n_actions, plus, _at_bound(plus, in255, True), (5, 9, 13)), white),
        ("+127 everywhere, biases at the positive bound, white observations (acc = int32 max)",
         _policy(n_actions, plus, _at_bound(plus, in255, False), (31, 31, 31)), white),
        ("-127 everywhere, biases int32 max, shift 31 (rounding at the top of the range)",
         _policy(n_actions, minus, _at_bound(minus, in255, False), (31, 30, 31)), noise),
        ("+-127 at random, most negative biases the loader allows",
         _policy(n_actions, alt, _at_bound(alt, in255, True), (20, 3, 17)), noise),
        ("+-127 at random, most positive biases the loader allows, act_max 127",
         _policy(n_actions, alt, _at_bound(alt, [255, 127, 127, 127], False), (24, 24, 24), 127), white),
    ]
    return cases
