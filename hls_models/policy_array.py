"""Model of the array inference engine (:mod:`nc2600.hw.policy_array`): an ``R x C`` array of MACs,
parallel over the inputs of a receptive field (``R`` rows) and over output channels (``C``
columns); schedule, memory layout and banking, parameter-load format, exact cycle count.

The arithmetic is :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` bit for bit
(int8 weights, 8-bit activation codes, int32 accumulators, per-layer ReLU, round half up by
``s`` bits, saturation at ``act_max``); :func:`simulate` runs this module's schedule through its
memory layout and returns the same values, so the layout is checked without the RTL.

Why rows over inputs and not over output positions
--------------------------------------------------
An array with weights shared along ``P`` output positions keeps only its ``C`` columns busy on
the dense layers (one position): dense1's 663,552 MACs alone would take 41,472 cycles on
16 x 16. Splitting each receptive field over the rows keeps all ``R x C`` multipliers busy on
every layer of the small network (``K / R`` is an integer for each), at the price of one
weight per multiplier per cycle (an ``R*C``-byte weight word), which the dense layers need
in any case since each of their weights is used once per decision.

Schedule
--------
Layers run in order. A layer with ``P`` positions, ``N`` outputs and ``K`` inputs per output
is ``P x G`` passes (``G = ceil(N / C)`` column groups, positions outer, groups inner), each
``T = K / R`` cycles. In cycle ``t`` of a pass every row ``r`` reads one activation byte (all
``R`` from one ``R``-byte word of the input buffer, same address), every column ``j`` multiplies
it by its own weight ``w[k(t, r), g*C + j]`` (one ``R*C``-byte weight word per cycle), each
column sums its ``R`` products in a registered adder tree (``log2 R`` levels) and accumulates
(the bias enters with the first sum). At a pass's end the ``C`` accumulators go through ``C``
requantisers at once and are written as ``C`` bytes of one word of the next layer's buffer
(byte enables); the last layer's go to the action-value registers. Between layers the engine
waits for the last write (:func:`layer_gap_cycles`).

Pipeline (cycles after an input is issued): read 1, operand register 1, multiply 1, adder tree
``log2 R``, accumulate 1 -> the sum is complete :data:`MAC_PIPELINE_BASE` ``+ log2 R`` cycles after
its last input; requantise 2, write 1.

Memory layout (a word = ``R`` bytes, lane ``r`` = array row ``r``)
--------------------------------------------------------------
- Convolution inputs (the observation, conv1's outputs; channel-last ``(y, x, c)``): per layer a
  tiling ``(R_c, R_h, R_w)`` with ``R = R_c R_h R_w`` (:func:`conv_tiling`; ``R_c`` channels,
  ``R_h`` rows, ``R_w`` columns of the input, ``R_h`` and ``R_w`` dividing the stride so that
  every pass reads whole words). Element ``(y, x, c)`` is in word
  ``((y // R_h) * (W / R_w) + x // R_w) * (C_in / R_c) + c // R_c`` at lane
  ``((y % R_h) * R_w + x % R_w) * R_c + c % R_c`` (:func:`conv_word_lane`). For the observation,
  ``c`` is the frame (0 = oldest) and ``(y, x)`` its pixel (:func:`obs_words`).
- Dense inputs (conv2's outputs, dense1's): flat index ``k`` (nc2600.host.episodes.policy's ``(y, x, c)``
  order) in word ``k // R`` at lane ``k % R``.
- The ``C`` outputs of a pass are ``C`` consecutive channels of one position: ``C`` consecutive
  lanes of one word in either layout (``C`` divides ``R_c`` and ``R``: :func:`check_shape`).
- Buffers: ``A`` holds conv1's outputs, later dense1's (6,400 / 256 bytes); ``B`` conv2's
  outputs (2,592 bytes); the observation is read through the stack's word port.
- Weights: one ``R*C``-byte word per cycle of a pass; lane ``r*C + j`` of row
  ``weight_base(l) + g*T + t`` holds ``w_l[k(t, r), g*C + j]`` (0 for ``g*C + j >= N``), where
  for a convolution ``t = (hh * (ks / R_w) + ww) * (C_in / R_c) + cc`` and row ``r`` = lane
  ``(rh*R_w + rw)*R_c + rc`` reads input ``c = cc R_c + rc``, ``kh = hh R_h + rh``,
  ``kw = ww R_w + rw`` (``k = (c*ks + kh)*ks + kw``), and for a dense layer ``k = t*R + r``.
  Biases: row ``bias_base(l) + g``, lane ``j`` = ``b_l[g*C + j]`` (int32).

Parameter load (:data:`nc2600.hw.policy_engine.ParameterWriteSignature`, one 32-bit word per cycle):
space 0 weights (``row``, ``lane`` = the 32-bit word of the row: weight lanes ``4*lane ..
4*lane + 3``, the first in bits 0..7), 1 biases (``row``, ``lane`` = column ``j``, int32),
2 configuration as :mod:`nc2600.hls_models.policy_engine` (0 ``n_actions``, 1 ``act_max``, 2..4
``s1..s3``). :func:`load_words` writes only weight words with an active column.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.action_select import latency as argmax_latency
from nc2600.hls_models.networks import geometry
from nc2600.hls_models.platform import XC7Z045
from nc2600.hls_models.policy_engine import (N_CONFIG, SPACE_BIASES, SPACE_CONFIG, SPACE_WEIGHTS, check_actions,
                                      check_parameters)
from nc2600.hls_models.policy_int8 import QuantizedPolicy, check_obs, mac_count, requantize

ROWS_CHOICES = (4, 8, 16, 32, 64)   #: array rows R (inputs per cycle per column); a network may allow fewer
COLS_CHOICES = (4, 8, 16)           #: array columns C (output channels per pass)
MAC_PIPELINE_BASE = 4               #: read, operand register, multiply, accumulate (+ log2 R tree levels)
WRITEBACK_CYCLES = 3                #: requantise (2 registered stages), write
BRAM36_BYTES_X9 = 4096              #: a BRAM36 as 4K x 9: 4096 bytes (parity unused)

#: the default array shape per multiplier count (the figures of :func:`table`)
SHAPES = {64: (8, 8), 128: (16, 8), 256: (16, 16), 512: (32, 16)}


def conv_tiling(rows: int, in_c: int, kernel: int, stride: int, in_w: int, in_h: int) -> tuple[int, int, int]:
    """``(R_c, R_h, R_w)`` of a convolution input for ``rows`` array rows: as many channels as
    possible (``R_c = min(R, C_in)``), then columns, then rows of the input, each of ``R_w``,
    ``R_h`` at most the stride and dividing it, the kernel and the input size.

    Raises:
        ValueError: no such tiling (e.g. a stride-1 layer with fewer channels than rows).
    """
    rc = min(rows, in_c)
    rest = rows // rc
    if in_c % rc or rows % rc:
        raise ValueError(f"{rows} rows do not tile {in_c} input channels")
    rw = min(rest, stride)
    rh = rest // max(rw, 1)
    for r, size in ((rw, in_w), (rh, in_h)):
        if r > stride or stride % r or kernel % r or size % r:
            raise ValueError(f"{rows} rows do not tile a {kernel}x{kernel}/{stride} convolution over "
                             f"{in_h}x{in_w}x{in_c} inputs")
    return rc, rh, rw


def _is_pow2(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0 and v & (v - 1) == 0


def check_shape(rows, cols, network: str = "small") -> tuple[int, int]:
    """Validate an array shape for ``network``: ``rows`` in :data:`ROWS_CHOICES`, ``cols`` in
    :data:`COLS_CHOICES`, every layer tiled (:func:`conv_tiling`; dense ``K`` a multiple of ``R``),
    and ``C`` dividing every buffer's ``R_c`` (and ``R``) so that a pass's outputs are one word.

    Returns ``(rows, cols)`` as ints.
    Raises:
        ValueError: naming what does not fit (small network: rows 4..32, cols 4..16, cols <= rows).
    """
    if rows not in ROWS_CHOICES or not _is_pow2(rows):
        raise ValueError(f"rows must be one of {ROWS_CHOICES}, got {rows!r}")
    if cols not in COLS_CHOICES or not _is_pow2(cols):
        raise ValueError(f"cols must be one of {COLS_CHOICES}, got {cols!r}")
    rows, cols = int(rows), int(cols)
    if cols > rows:
        raise ValueError(f"cols ({cols}) must not exceed rows ({rows}): a pass writes its outputs into one word")
    for i, g in enumerate(geometry(network, 1)):
        if g.kind == "conv":
            rc, _, _ = conv_tiling(rows, g.in_c, g.kernel, g.stride, g.in_w, g.in_h)
            if i > 0 and rc % cols:
                raise ValueError(f"cols ({cols}) must divide {g.name}'s {rc} channels per word")
        elif g.k % rows:
            raise ValueError(f"rows ({rows}) must divide {g.name}'s {g.k} inputs")
    return rows, cols


def layer_plan(rows: int, cols: int, n_actions: int = MAX_ACTIONS, network: str = "small") -> list[dict]:
    """Per layer: ``name, kind, P, N, K, G, T`` (pass length ``K / R``), ``issue`` (``P*G*T``
    cycles), ``macs`` (``P*N*K``), and for a convolution ``tiling (R_c, R_h, R_w)``, ``stride``,
    ``kernel``, ``in_h, in_w, in_c``."""
    rows, cols = check_shape(rows, cols, network)
    out = []
    for g in geometry(network, n_actions):
        groups = -(-g.n // cols)
        t = g.k // rows
        d = {"name": g.name, "kind": g.kind, "P": g.positions, "N": g.n, "K": g.k, "G": groups, "T": t,
             "issue": g.positions * groups * t, "macs": g.positions * g.n * g.k,
             "in_h": g.in_h, "in_w": g.in_w, "in_c": g.in_c, "out_h": g.out_h, "out_w": g.out_w}
        if g.kind == "conv":
            d.update(tiling=conv_tiling(rows, g.in_c, g.kernel, g.stride, g.in_w, g.in_h), stride=g.stride,
                     kernel=g.kernel)
        out.append(d)
    return out


def tree_levels(rows: int) -> int:
    """Registered adder-tree levels of a column: ``log2 R``."""
    return int(rows).bit_length() - 1


def mac_pipeline_cycles(rows: int) -> int:
    """Cycles from a pass's last input issued to its sum in the accumulator:
    :data:`MAC_PIPELINE_BASE` ``+ log2 R``."""
    return MAC_PIPELINE_BASE + tree_levels(rows)


def layer_gap_cycles(rows: int) -> int:
    """Idle issue cycles between two layers: the last pass's sum (:func:`mac_pipeline_cycles`),
    requantise and write (:data:`WRITEBACK_CYCLES`), less the one cycle the next read overlaps
    (the write lands at the end of the cycle before the next read's address is sampled) ->
    ``6 + log2 R``."""
    return mac_pipeline_cycles(rows) + WRITEBACK_CYCLES - 1


def engine_cycles(n_actions: int, rows: int, cols: int, network: str = "small") -> int:
    """Cycles from ``start`` (the cycle it is high, cycle 0) to ``done`` (the cycle it is high)
    of :class:`nc2600.hw.policy_array.ArrayPolicyEngine`; the action values are valid in the ``done``
    cycle. The first input is issued in cycle 1, then ``sum_l P*G*T`` issue cycles, the gaps
    between layers (:func:`layer_gap_cycles`), and after the last input the pipeline
    (:func:`mac_pipeline_cycles`) plus one cycle registering the action values.

    E.g. 16 x 16, 18 actions: 6400 + 2592 + 2592 + 32 + 3 * 10 + 9 = 11,655.
    """
    n_actions = check_actions(n_actions, 10 ** 6)
    plan = layer_plan(rows, cols, n_actions, network)
    return (sum(p["issue"] for p in plan) + (len(plan) - 1) * layer_gap_cycles(rows)
            + mac_pipeline_cycles(rows) + 1)


def inference_cycles(n_actions: int, rows: int, cols: int, network: str = "small") -> int:
    """Cycles from ``start`` to the chosen action: :func:`engine_cycles` plus the action-select
    tree (:func:`nc2600.hls_models.action_select.latency`)."""
    return engine_cycles(n_actions, rows, cols, network) + argmax_latency(n_actions)


def mac_efficiency(n_actions: int, rows: int, cols: int, network: str = "small") -> float:
    """Multiply-accumulates of one decision / (multipliers x :func:`inference_cycles`)."""
    return mac_count(n_actions, network) / (rows * cols * inference_cycles(n_actions, rows, cols, network))


# ---------------------------------------------------------------------------------------------
# Memory layout
# ---------------------------------------------------------------------------------------------

def weight_rows(rows: int, cols: int, max_actions: int = MAX_ACTIONS, network: str = "small") -> list[int]:
    """Weight-memory rows (``R*C``-byte words) of each layer, ``G * T`` (the last layer sized for
    ``max_actions``)."""
    return [p["G"] * p["T"] for p in layer_plan(rows, cols, max_actions, network)]


def bias_rows(rows: int, cols: int, max_actions: int = MAX_ACTIONS, network: str = "small") -> list[int]:
    """Bias-memory rows (``C`` int32) of each layer, ``G``."""
    return [p["G"] for p in layer_plan(rows, cols, max_actions, network)]


def bases(counts: list[int]) -> list[int]:
    """First row of each layer: the running sum of ``counts``."""
    return [int(v) for v in np.concatenate([[0], np.cumsum(counts)[:-1]])]


def conv_word_lane(y, x, c, tiling, in_w: int, in_c: int):
    """Word and lane of element ``(y, x, c)`` of a convolution input (module doc); arrays broadcast."""
    rc, rh, rw = tiling
    word = ((np.asarray(y) // rh) * (in_w // rw) + np.asarray(x) // rw) * (in_c // rc) + np.asarray(c) // rc
    lane = ((np.asarray(y) % rh) * rw + np.asarray(x) % rw) * rc + np.asarray(c) % rc
    return word, lane


def obs_words(obs: np.ndarray, rows: int, cols: int = 4) -> np.ndarray:
    """The observation stack ``(4, 84, 84)`` uint8 (frame 0 oldest) as the engine reads it:
    ``(28224 / R, R)`` uint8 words (conv1's tiling, module doc)."""
    obs = check_obs(np.asarray(obs)[None])[0]
    conv1 = layer_plan(rows, cols)[0]
    c, y, x = np.meshgrid(np.arange(4), np.arange(84), np.arange(84), indexing="ij")
    word, lane = conv_word_lane(y, x, c, conv1["tiling"], 84, 4)
    out = np.zeros((obs.size // rows, rows), np.uint8)
    out[word, lane] = obs
    return out


def _input_k_of_cycle(plan: dict, rows: int) -> np.ndarray:
    """``(T, R)``: the input index ``k`` that row ``r`` reads in cycle ``t`` of a pass."""
    t_count = plan["T"]
    if plan["kind"] == "dense":
        return np.arange(t_count)[:, None] * rows + np.arange(rows)[None, :]
    rc, rh, rw = plan["tiling"]
    ks, n_cc, n_ww = plan["kernel"], plan["in_c"] // rc, plan["kernel"] // rw
    t = np.arange(t_count)
    hh, ww, cc = t // (n_ww * n_cc), (t // n_cc) % n_ww, t % n_cc
    r = np.arange(rows)
    rh_, rw_, rc_ = r // (rw * rc), (r // rc) % rw, r % rc
    c = cc[:, None] * rc + rc_[None, :]
    kh = hh[:, None] * rh + rh_[None, :]
    kw = ww[:, None] * rw + rw_[None, :]
    return (c * ks + kh) * ks + kw


def _input_words_of_pass(plan: dict, rows: int) -> np.ndarray:
    """``(P, T)``: the input-buffer word read in cycle ``t`` of position ``p``'s passes."""
    if plan["kind"] == "dense":
        return np.broadcast_to(np.arange(plan["T"])[None, :], (1, plan["T"]))
    rc, rh, rw = plan["tiling"]
    s, ks, in_w, in_c = plan["stride"], plan["kernel"], plan["in_w"], plan["in_c"]
    n_cc, n_ww = in_c // rc, ks // rw
    t = np.arange(plan["T"])
    hh, ww, cc = t // (n_ww * n_cc), (t // n_cc) % n_ww, t % n_cc
    p = np.arange(plan["P"])
    oy, ox = p // plan["out_w"], p % plan["out_w"]
    pos = ((s // rh) * oy * (in_w // rw) + (s // rw) * ox) * n_cc
    return pos[:, None] + (hh * (in_w // rw) * n_cc + ww * n_cc + cc)[None, :]


def weight_image(qp: QuantizedPolicy, rows: int, cols: int, max_actions: int = MAX_ACTIONS) -> np.ndarray:
    """The weight memory ``(sum weight_rows, R*C)`` int8 (module doc); unused lanes 0."""
    plans = layer_plan(rows, cols, max_actions)
    wb = bases(weight_rows(rows, cols, max_actions))
    mem = np.zeros((sum(weight_rows(rows, cols, max_actions)), rows * cols), np.int8)
    for layer, (plan, w) in enumerate(zip(plans, qp.weights())):
        n = w.shape[1]
        kk = _input_k_of_cycle(plan, rows)                              # (T, R)
        padded = np.zeros((w.shape[0], plan["G"] * cols), np.int8)
        padded[:, :n] = w
        blk = padded[kk]                                                # (T, R, G*C)
        blk = blk.reshape(plan["T"], rows, plan["G"], cols).transpose(2, 0, 1, 3)   # (G, T, R, C)
        mem[wb[layer]:wb[layer] + plan["G"] * plan["T"]] = blk.reshape(-1, rows * cols)
    return mem


def load_words(qp: QuantizedPolicy, rows: int, cols: int, max_actions: int = MAX_ACTIONS) -> np.ndarray:
    """The parameter-load sequence: ``(W, 4)`` int64 rows ``(space, row, lane, data)``, ``data``
    the unsigned 32-bit word, in write order (weights, biases, configuration; module doc).

    Raises:
        ValueError: the parameters do not fit the engine (:func:`nc2600.hls_models.policy_engine.check_parameters`)
            or the shape is not supported.
    """
    rows, cols = check_shape(rows, cols)
    qp = check_parameters(qp, max_actions=max_actions)
    a = qp.n_actions
    image = weight_image(qp, rows, cols, max_actions).astype(np.int64) & 0xFF     # (rows_total, R*C)
    words = image.reshape(image.shape[0], -1, 4)
    data = words[..., 0] | words[..., 1] << 8 | words[..., 2] << 16 | words[..., 3] << 24
    plans = layer_plan(rows, cols, a)
    wb, bb = bases(weight_rows(rows, cols, max_actions)), bases(bias_rows(rows, cols, max_actions))
    parts = []
    q = np.arange(rows * cols // 4)
    for layer, plan in enumerate(plans):
        for g in range(plan["G"]):
            act_q = q[(q * 4) % cols + g * cols < plan["N"]]      # words whose columns j..j+3 are active
            rr = wb[layer] + g * plan["T"] + np.arange(plan["T"])
            r_, q_ = np.meshgrid(rr, act_q, indexing="ij")
            parts.append(np.stack([np.full(r_.size, SPACE_WEIGHTS), r_.ravel(), q_.ravel(),
                                   data[r_, q_].ravel()], 1))
        b = qp.biases()[layer].astype(np.int64) & 0xFFFFFFFF
        idx = np.arange(plan["N"])
        parts.append(np.stack([np.full(idx.size, SPACE_BIASES), bb[layer] + idx // cols, idx % cols, b], 1))
    cfg = [a, qp.act_max, *qp.shifts()]
    parts.append(np.array([[SPACE_CONFIG, i, 0, v] for i, v in enumerate(cfg)], np.int64))
    return np.concatenate(parts).astype(np.int64)


def param_step(rows: int, cols: int) -> tuple[dict[int, int], dict[int, int]]:
    """How the instance's ``PARAM_ADDR`` steps after each ``PARAM_DATA`` write of this engine's load
    format (:func:`load_words`): ``({space: lane step}, {space: lanes per row})`` for
    :data:`SPACE_WEIGHTS`, :data:`SPACE_BIASES` and :data:`SPACE_CONFIG`; past a row's last lane the
    address goes to lane 0 of the next row. Every write steps the lane by one: a weight row holds
    ``rows * cols`` int8 weights in ``rows * cols / 4`` 32-bit words, a bias row (and the
    configuration's) ``cols`` values.

    Raises:
        ValueError: a shape :func:`check_shape` refuses.
    """
    rows, cols = check_shape(rows, cols)
    return {SPACE_WEIGHTS: 1, SPACE_BIASES: 1, SPACE_CONFIG: 1}, {SPACE_WEIGHTS: rows * cols // 4,
                                                                   SPACE_BIASES: cols, SPACE_CONFIG: cols}


def load_cycles(n_actions: int, rows: int, cols: int) -> int:
    """Words (one per cycle) of :func:`load_words`: weight words with an active column, one per
    bias, :data:`nc2600.hls_models.policy_engine.N_CONFIG` configuration words."""
    w = 0
    for p in layer_plan(rows, cols, n_actions):
        last = p["N"] - (p["G"] - 1) * cols
        w += p["T"] * rows * ((p["G"] - 1) * cols // 4 + -(-last // 4))
    return w + sum(p["N"] for p in layer_plan(rows, cols, n_actions)) + N_CONFIG


# ---------------------------------------------------------------------------------------------
# The schedule run through the memories (values and counts)
# ---------------------------------------------------------------------------------------------

def simulate(qp: QuantizedPolicy, obs: np.ndarray, rows: int, cols: int,
             max_actions: int = MAX_ACTIONS) -> tuple[np.ndarray, dict]:
    """One inference by this module's schedule and layout: the parameter memories are filled
    from :func:`load_words` (decoded by the layout), the observation from :func:`obs_words`;
    each pass reads its ``T`` input words and weight words, sums per column in int64 and
    writes its ``C`` requantised bytes at the layout's word and lanes of the next buffer.

    Args:
        obs: ``(4, 84, 84)`` uint8.
    Returns:
        ``(action values (A,) int64, counts)``: ``issue_cycles`` (cycles reading inputs),
        ``cycles`` (:func:`engine_cycles` by the schedule's own count), ``macs`` (multiplies
        on active columns), ``word_reads``, ``word_writes``.
    Raises:
        RuntimeError: a pass's outputs would not land in one word (a layout error).
    """
    rows, cols = check_shape(rows, cols)
    a = qp.n_actions
    words = load_words(qp, rows, cols, max_actions)
    wmem = np.zeros((sum(weight_rows(rows, cols, max_actions)), rows * cols), np.int64)
    bmem = np.zeros((sum(bias_rows(rows, cols, max_actions)), cols), np.int64)
    w = words[words[:, 0] == SPACE_WEIGHTS]
    for b in range(4):
        wmem[w[:, 1], 4 * w[:, 2] + b] = ((w[:, 3] >> (8 * b)) & 0xFF).astype(np.uint8).view(np.int8)
    bw = words[words[:, 0] == SPACE_BIASES]
    bmem[bw[:, 1], bw[:, 2]] = bw[:, 3].astype(np.uint32).view(np.int32)
    cfg = {int(row): int(data) for _, row, _, data in words[words[:, 0] == SPACE_CONFIG]}
    shifts, act_max = [cfg[2], cfg[3], cfg[4]], cfg[1]
    plans = layer_plan(rows, cols, a)
    wb, bb = bases(weight_rows(rows, cols, max_actions)), bases(bias_rows(rows, cols, max_actions))
    buf = obs_words(obs, rows, cols).astype(np.int64)
    counts = {"issue_cycles": 0, "macs": 0, "word_reads": 0, "word_writes": 0}
    for layer, plan in enumerate(plans):
        addr = _input_words_of_pass(plan, rows)                          # (P, T)
        act = buf[addr]                                                    # (P, T, R)
        wl = wmem[wb[layer]:wb[layer] + plan["G"] * plan["T"]].reshape(plan["G"], plan["T"], rows, cols)
        acc = np.einsum("ptr,gtrj->pgj", act, wl) + bmem[bb[layer]:bb[layer] + plan["G"]][None]
        counts["issue_cycles"] += plan["issue"]
        counts["word_reads"] += plan["issue"]
        counts["macs"] += plan["P"] * plan["T"] * rows * plan["N"]
        if layer == len(plans) - 1:
            values = acc.reshape(-1)[:a]
            break
        q = requantize(acc, shifts[layer], act_max)                       # (P, G, C)
        nxt = plans[layer + 1]
        out = np.zeros((nxt["in_h"] * nxt["in_w"] * nxt["in_c"] // rows, rows), np.int64)
        p, g = np.meshgrid(np.arange(plan["P"]), np.arange(plan["G"]), indexing="ij")
        for j in range(cols):
            ch = g * cols + j
            ok = ch < plan["N"]
            y, x = p // plan["out_w"], p % plan["out_w"]
            if nxt["kind"] == "conv":
                word, lane = conv_word_lane(y, x, ch, nxt["tiling"], nxt["in_w"], nxt["in_c"])
            else:
                k = (y * plan["out_w"] + x) * plan["N"] + ch
                word, lane = k // rows, k % rows
            if j == 0:
                base_word, base_lane = word, lane
            elif not (np.array_equal(word[ok], base_word[ok]) and np.array_equal(lane[ok], base_lane[ok] + j)):
                raise RuntimeError(f"{plan['name']}: a pass's outputs leave one word")
            out[word[ok], lane[ok]] = q[..., j][ok]
        counts["word_writes"] += plan["P"] * plan["G"]
        buf = out
    counts["cycles"] = (counts["issue_cycles"] + (len(plans) - 1) * layer_gap_cycles(rows)
                        + mac_pipeline_cycles(rows) + 1)
    return values.astype(np.int64), counts


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------

def _bram36_for(width_bytes: int, depth: int) -> int:
    """BRAM36 blocks for a ``depth x width_bytes`` byte memory, as UG473's aspect ratios allow
    (``q`` bytes wide as ``(4096/q) x 9q`` for q in 1, 2, 4, 8): the best count."""
    return min(-(-width_bytes // q) * -(-depth // (BRAM36_BYTES_X9 // q)) for q in (1, 2, 4, 8))


def memory(rows: int, cols: int, n_actions: int = MAX_ACTIONS, network: str = "small") -> dict:
    """Memory of an ``R x C`` engine for ``network``: weight memory (words, width, bytes stored,
    BRAM36), bias memory (bits), activation buffers (bytes, words, BRAM36 if in block RAM).

    The activation buffers hold each layer's output but the last (two for the small network,
    as the engine shares ``A`` between conv1 and dense1; the Nature network counted one per
    layer output). The observation stack is the preprocessor's (not counted here)."""
    plan = layer_plan(rows, cols, n_actions, network)
    wrows = sum(p["G"] * p["T"] for p in plan)
    acts = [p["P"] * p["N"] for p in plan[:-1]]
    if network == "small":
        acts = [max(acts[0], acts[2]), acts[1]]
    return {"weight_words": wrows, "weight_word_bytes": rows * cols, "weight_bytes": wrows * rows * cols,
            "weight_bytes_used": sum(p["N"] * p["K"] for p in plan),
            "weight_bram36": _bram36_for(rows * cols, wrows),
            "bias_bits": sum(p["G"] for p in plan) * cols * 32,
            "activation_bytes": sum(acts), "activation_bram36": sum(_bram36_for(rows, -(-b // rows)) for b in acts)}


def figures(rows: int, cols: int, n_actions: int = MAX_ACTIONS, network: str = "small") -> dict:
    """Cycles, MAC efficiency and memory of one engine size (one line of :func:`table`)."""
    cyc = inference_cycles(n_actions, rows, cols, network)
    mem = memory(rows, cols, n_actions, network)
    return {"network": network, "rows": rows, "cols": cols, "multipliers": rows * cols,
            "engine_cycles": engine_cycles(n_actions, rows, cols, network), "inference_cycles": cyc,
            "mac_efficiency": round(mac_efficiency(n_actions, rows, cols, network), 4),
            "per_layer_issue": {p["name"]: p["issue"] for p in layer_plan(rows, cols, n_actions, network)},
            **mem, "dsp48": rows * cols, "two_instances_dsp_fit": 2 * rows * cols <= XC7Z045["dsp"]}


@lru_cache(maxsize=None)
def table(n_actions: int = MAX_ACTIONS) -> str:
    """A text table of :func:`figures` for the shapes of :data:`SHAPES`, small and Nature networks."""
    head = (f"{'network':8} {'mults':>5} {'R x C':>7} {'cycles':>8} {'MAC eff':>7} {'weights B':>10} "
            f"{'W BRAM36':>8} {'act B':>6} {'act BRAM36':>10}")
    lines = [f"array engine ({n_actions} actions): cycles from start to the chosen action (model, "
             "nc2600.hls_models.policy_array)", head]
    for network in ("small", "nature"):
        for mults, (r, c) in SHAPES.items():
            f = figures(r, c, n_actions, network)
            lines.append(f"{network:8} {mults:5d} {f'{r} x {c}':>7} {f['inference_cycles']:8d} "
                         f"{f['mac_efficiency']:7.3f} {f['weight_bytes']:10d} {f['weight_bram36']:8d} "
                         f"{f['activation_bytes']:6d} {f['activation_bram36']:10d}")
    return "\n".join(lines)


if __name__ == "__main__":   # pragma: no cover
    print(table())
