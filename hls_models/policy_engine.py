"""Model of the int8 policy inference engine (:mod:`nc2600.hw.policy_engine`): memory layout, parameter
load image, parameter checks and the exact cycle count.

The arithmetic is :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` (the engine is
bit-exact with it); this module holds what is specific to the engine built from ``L`` MAC lanes.

Schedule (the one :mod:`nc2600.hls_models.policy_int8`'s cycle model describes)
------------------------------------------------------------------------
Layers run in order (conv1, conv2, dense1, dense2; :func:`nc2600.hls_models.policy_int8.layer_dims`
gives ``P`` output positions, ``N`` outputs per position, ``K`` inputs per output). Lane ``j``
computes output channels ``g*L + j`` of group ``g``; for each position and each of the
``G = ceil(N / L)`` groups the engine streams the ``K`` inputs of the receptive field, one per
cycle, in the weight-row order ``(c, kh, kw)`` (dense: the input index): one activation read
broadcast to all lanes and one ``L``-byte weight word. The bias enters with the first product.
A completed group's ``L`` accumulators are captured while the next group runs; one shared
requantiser (ReLU, round half up by ``s``, saturate at ``act_max``) writes them back one byte
per cycle (``active <= L <= K`` cycles, so it keeps up). At a layer's end the engine waits for
that write-back, because the next layer reads the results
(:func:`nc2600.hls_models.policy_int8.layer_gap_cycles`). The last layer's accumulators go to the
action-value registers instead. The cycle count is :func:`nc2600.hls_models.policy_int8.inference_cycles`
(start to the chosen action) less the action-select latency: :func:`engine_cycles`.

Memory layout (one BRAM word = all ``L`` lanes)
-----------------------------------------------
- Weights: row ``weight_base(l) + (pos-independent) g*K + k`` holds, in lane ``j``, the int8
  weight ``w_l[k, g*L + j]`` (0 where ``g*L + j >= N``). Depth :func:`weight_rows`.
- Biases: row ``bias_base(l) + g`` holds, in lane ``j``, the int32 ``b_l[g*L + j]``.
- Activations: conv1 and dense1 outputs share one buffer (6,400 bytes; conv1's results are dead
  when dense1 writes), conv2's outputs a second (2,592 bytes); output ``n`` of position ``pos``
  at address ``pos*N + n``: for the next layer that is ``(y, x, c)`` order, the order conv2
  reads its patches' channels and dense1 reads its 2,592 inputs (:mod:`nc2600.host.episodes.policy`'s layout).
- Observation: read in place through the preprocessor's port, ``frame = c``,
  ``index = (4y + kh) * 84 + 4x + kw``.

Parameter load (:data:`nc2600.hw.interfaces.ParameterWriteSignature`, one 32-bit word per cycle):
``space`` 0 = weights (``row``, ``lane`` = first of 4 lanes, ``data`` = 4 int8 little-endian),
1 = biases (``row``, ``lane``, ``data`` = int32), 2 = configuration (``row`` = register:
0 ``n_actions``, 1 ``act_max``, 2..4 the shifts ``s1..s3``). :func:`load_words` writes only
words with an active lane, so a full load is :func:`load_cycles` cycles (170,240 weight words
whatever ``L``, 304 + A bias words, 5 configuration words).
"""
from __future__ import annotations

import numpy as np

from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.action_select import latency as argmax_latency
from nc2600.hls_models.policy_int8 import QuantizedPolicy, W_MAX, inference_cycles, layer_dims

MIN_LANES, MAX_LANES, LANE_STEP = 4, 256, 4   #: supported MAC-lane counts: 4, 8, ..., 256
MAX_SHIFT = 31                                 #: largest requantisation shift (5-bit field)
ACT_MAX_CHOICES = (127, 255)
N_CONFIG = 5                                   #: configuration registers (n_actions, act_max, s1..s3)
CONFIG_N_ACTIONS, CONFIG_ACT_MAX, CONFIG_SHIFT0 = 0, 1, 2
SPACE_WEIGHTS, SPACE_BIASES, SPACE_CONFIG = 0, 1, 2
ROW_BITS, LANE_BITS = 18, 8                    #: address fields of the parameter write port

def check_lanes(lanes) -> int:
    """Validate an MAC-lane count: a multiple of 4 in 4..256 (4 lanes share one 32-bit load word;
    more than 256 lanes, dense1's width, would never be busy). Returns it as int.

    Raises:
        ValueError: anything else, with the supported range in the message.
    """
    if (not isinstance(lanes, (int, np.integer)) or isinstance(lanes, bool) or not MIN_LANES <= lanes <= MAX_LANES
            or lanes % LANE_STEP):
        raise ValueError(f"lanes must be a multiple of {LANE_STEP} in {MIN_LANES}..{MAX_LANES}, got {lanes!r}")
    return int(lanes)


def check_actions(n_actions, max_actions: int = MAX_ACTIONS) -> int:
    """Validate an action count ``1..max_actions``; returns it."""
    if not isinstance(n_actions, (int, np.integer)) or isinstance(n_actions, bool) or not 1 <= n_actions <= max_actions:
        raise ValueError(f"n_actions must be an integer in 1..{max_actions}, got {n_actions!r}")
    return int(n_actions)


def groups(n: int, lanes: int) -> int:
    """Lane groups of a layer with ``n`` outputs per position: ``ceil(n / lanes)``."""
    return -(-n // lanes)


def last_group_active(n: int, lanes: int) -> int:
    """Busy lanes in a layer's last group: ``n - (groups - 1) * lanes``."""
    return n - (groups(n, lanes) - 1) * lanes


def weight_rows(lanes: int, max_actions: int = MAX_ACTIONS) -> list[int]:
    """Weight-memory rows of each layer, ``G * K`` (dense2 sized for ``max_actions``)."""
    lanes = check_lanes(lanes)
    dims = layer_dims(max_actions)
    return [groups(n, lanes) * k for _, _, n, k in dims]


def bias_rows(lanes: int, max_actions: int = MAX_ACTIONS) -> list[int]:
    """Bias-memory rows of each layer, ``G``."""
    lanes = check_lanes(lanes)
    return [groups(n, lanes) for _, _, n, _ in layer_dims(max_actions)]


def bases(rows: list[int]) -> list[int]:
    """First row of each layer: running sum of ``rows``."""
    return [int(v) for v in np.concatenate([[0], np.cumsum(rows)[:-1]])]


def param_step(lanes: int) -> tuple[dict[int, int], dict[int, int]]:
    """How the instance's ``PARAM_ADDR`` steps after each ``PARAM_DATA`` write of this engine's load
    format (:func:`load_words`), so that the host writes the address only where the sequence jumps:
    ``({space: lane step}, {space: lanes per row})`` for :data:`SPACE_WEIGHTS`,
    :data:`SPACE_BIASES` and :data:`SPACE_CONFIG`; past a row's last lane the address goes to lane 0
    of the next row. A weight write carries four int8 weights (four lanes), a bias or a
    configuration write one value; every row is ``lanes`` wide.

    Raises:
        ValueError: ``lanes`` not a supported lane count (:func:`check_lanes`).
    """
    lanes = check_lanes(lanes)
    return {SPACE_WEIGHTS: 4, SPACE_BIASES: 1, SPACE_CONFIG: 1}, {SPACE_WEIGHTS: lanes, SPACE_BIASES: lanes,
                                                                   SPACE_CONFIG: lanes}


def engine_cycles(n_actions: int, lanes: int) -> int:
    """Cycles from ``start`` (the cycle it is high) to ``done`` (the cycle it is high) of
    :class:`nc2600.hw.policy_engine.PolicyEngine`; the action values are valid in the ``done`` cycle.

    ``sum_l P*G*K + drain_cycles``: the first input is issued in the cycle after ``start``, then
    one input per cycle plus the write-back gaps after conv1, conv2 and dense1
    (:func:`nc2600.hls_models.policy_int8.layer_gap_cycles`); the last group's sum is complete
    :data:`~nc2600.hls_models.policy_int8.MAC_PIPELINE_CYCLES` after its last input and registered as
    the action values one cycle later, the ``done`` cycle. Measured equal on the RTL for
    L in {4, 16, 32, 64} (``tests/policy_engine``).
    """
    lanes = check_lanes(lanes)
    n_actions = check_actions(n_actions)
    return inference_cycles(n_actions, lanes) - argmax_latency(n_actions)


def load_cycles(n_actions: int, lanes: int) -> int:
    """Cycles (one 32-bit write per cycle) of a full parameter load by :func:`load_words`:
    weight words with an active lane, one word per bias, :data:`N_CONFIG` configuration words."""
    lanes = check_lanes(lanes)
    n_actions = check_actions(n_actions)
    w = sum(k * sum(-(-min(lanes, n - g * lanes) // 4) for g in range(groups(n, lanes)))
            for _, _, n, k in layer_dims(n_actions))
    b = sum(n for _, _, n, _ in layer_dims(n_actions))
    return w + b + N_CONFIG


# ---------------------------------------------------------------------------------------------
# Parameter checks and the load image
# ---------------------------------------------------------------------------------------------

_FIELDS = ("w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4")


def field_shapes(n_actions: int) -> dict[str, tuple[int, ...]]:
    """Shapes of the integer tensors, in the flat parameter layout order of :mod:`nc2600.host.episodes.policy`."""
    return {"w1": (256, 16), "b1": (16,), "w2": (256, 32), "b2": (32,), "w3": (2592, 256), "b3": (256,),
            "w4": (256, n_actions), "b4": (n_actions,)}


def flat_length(n_actions: int) -> int:
    """Length of the flat integer parameter vector (weights and biases in :mod:`nc2600.host.episodes.policy` order)."""
    return sum(int(np.prod(s)) for s in field_shapes(n_actions).values())


def policy_from_flat(flat: np.ndarray, n_actions: int, shifts, act_max: int = 255) -> QuantizedPolicy:
    """A :class:`QuantizedPolicy` from a flat integer vector in :mod:`nc2600.host.episodes.policy`'s layout
    (``w1, b1, w2, b2, w3, b3, w4, b4``; weights in -127..127, biases int32), checked.

    Raises:
        ValueError: wrong length or dtype of ``flat``, or any field out of range (named).
    """
    n_actions = check_actions(n_actions)
    flat = np.asarray(flat)
    if flat.ndim != 1 or flat.shape[0] != flat_length(n_actions):
        raise ValueError(f"flat parameter vector: shape {flat.shape}, expected ({flat_length(n_actions)},) "
                         f"for {n_actions} actions")
    if not np.issubdtype(flat.dtype, np.integer):
        raise ValueError(f"flat parameter vector: dtype {flat.dtype}, expected an integer dtype")
    fields, at = {}, 0
    for name, shape in field_shapes(n_actions).items():
        size = int(np.prod(shape))
        fields[name] = flat[at:at + size].reshape(shape)
        at += size
    shifts = list(shifts)
    if len(shifts) != 3:
        raise ValueError(f"shifts: {len(shifts)} values, expected 3 (s1, s2, s3)")
    qp = QuantizedPolicy(n_actions, *(fields[k] for k in _FIELDS), *shifts, {}, act_max)
    return check_parameters(qp, n_actions)


def check_parameters(qp: QuantizedPolicy, n_actions: int | None = None,
                     max_actions: int = MAX_ACTIONS) -> QuantizedPolicy:
    """Check that ``qp`` fits the engine's format; returns a copy with int8/int32 arrays.

    Args:
        qp: the policy.
        n_actions: the action count the engine is loaded for (default ``qp.n_actions``).
    Raises:
        ValueError: naming the field: ``n_actions`` (mismatch or outside 1..max_actions),
            ``w1..w4`` (shape, non-integer, outside -127..127), ``b1..b4`` (shape, outside
            int32, or a worst-case accumulator of the layer outside int32, which the engine's
            32-bit accumulators would wrap), ``s1..s3`` (outside 0..31), ``act_max`` (not 127 or 255).
    """
    a = check_actions(qp.n_actions, max_actions)
    if n_actions is not None and int(n_actions) != a:
        raise ValueError(f"n_actions: the policy has {a} actions, the engine is loaded for {n_actions}")
    if qp.act_max not in ACT_MAX_CHOICES:
        raise ValueError(f"act_max: {qp.act_max!r}, expected 127 or 255")
    shapes = field_shapes(a)
    out = {}
    for name in _FIELDS:
        v = np.asarray(getattr(qp, name))
        if v.shape != shapes[name]:
            raise ValueError(f"{name}: shape {v.shape}, expected {shapes[name]} for {a} actions")
        if not np.issubdtype(v.dtype, np.integer):
            raise ValueError(f"{name}: dtype {v.dtype}, expected an integer dtype")
        v = v.astype(np.int64)
        lo, hi = (-W_MAX, W_MAX) if name[0] == "w" else (-(2 ** 31), 2 ** 31 - 1)
        if v.size and (v.min() < lo or v.max() > hi):
            bad = int(v.min()) if v.min() < lo else int(v.max())
            raise ValueError(f"{name}: value {bad} outside {lo}..{hi}")
        out[name] = v
    for i, s in enumerate(qp.shifts()):
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool) or not 0 <= s <= MAX_SHIFT:
            raise ValueError(f"s{i + 1}: {s!r}, expected an integer shift in 0..{MAX_SHIFT}")
    in_max = [255, qp.act_max, qp.act_max, qp.act_max]
    for layer in range(4):
        w, b = out[f"w{layer + 1}"], out[f"b{layer + 1}"]
        pos = np.where(w > 0, w, 0).sum(axis=0) * in_max[layer] + b
        neg = np.where(w < 0, w, 0).sum(axis=0) * in_max[layer] + b
        if pos.max() > 2 ** 31 - 1 or neg.min() < -(2 ** 31):
            j = int(np.argmax(pos)) if pos.max() > 2 ** 31 - 1 else int(np.argmin(neg))
            raise ValueError(f"b{layer + 1}: output {j}'s accumulator can leave int32 "
                             f"(bias {int(b[j])}, worst case {int(max(pos.max(), -neg.min()))})")
    res = QuantizedPolicy(a, *(out[k].astype(np.int8 if k[0] == "w" else np.int32) for k in _FIELDS),
                          *(int(s) for s in qp.shifts()), dict(qp.exponents), int(qp.act_max))
    return res


def load_words(qp: QuantizedPolicy, lanes: int, max_actions: int = MAX_ACTIONS) -> np.ndarray:
    """The parameter-load sequence for an engine of ``lanes`` lanes: ``(W, 4)`` int64 rows
    ``(space, row, lane, data)`` with ``data`` the unsigned 32-bit word, in write order.

    Weight words pack lanes ``lane .. lane+3`` of one row, lane ``lane`` in bits 0..7; words
    with no active lane are not written (their lanes never reach a result).

    Raises:
        ValueError: the parameters do not fit (:func:`check_parameters`).
    """
    lanes = check_lanes(lanes)
    qp = check_parameters(qp, max_actions=max_actions)
    a = qp.n_actions
    dims = layer_dims(a)
    wb, bb = bases(weight_rows(lanes, max_actions)), bases(bias_rows(lanes, max_actions))
    parts = []
    for layer, (_, _, n, k) in enumerate(dims):
        w = qp.weights()[layer].astype(np.int64) & 0xFF            # (K, N) bytes
        g_count = groups(n, lanes)
        pad = np.zeros((k, g_count * lanes), np.int64)
        pad[:, :n] = w
        for g in range(g_count):
            act = min(lanes, n - g * lanes)
            nwords = -(-act // 4)
            block = pad[:, g * lanes:g * lanes + 4 * nwords].reshape(k, nwords, 4)
            data = block[..., 0] | block[..., 1] << 8 | block[..., 2] << 16 | block[..., 3] << 24
            rows = wb[layer] + g * k + np.arange(k)
            rr, qq = np.meshgrid(rows, np.arange(nwords) * 4, indexing="ij")
            parts.append(np.stack([np.full(data.size, SPACE_WEIGHTS), rr.ravel(), qq.ravel(), data.ravel()], 1))
        b = qp.biases()[layer].astype(np.int64) & 0xFFFFFFFF
        idx = np.arange(n)
        parts.append(np.stack([np.full(n, SPACE_BIASES), bb[layer] + idx // lanes, idx % lanes, b], 1))
    cfg = [a, qp.act_max, *qp.shifts()]
    parts.append(np.array([[SPACE_CONFIG, i, 0, v] for i, v in enumerate(cfg)], np.int64))
    return np.concatenate(parts).astype(np.int64)
