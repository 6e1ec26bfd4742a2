"""The quantised (int8) Such et al. policy network: bit-exact model, quantiser, cycle/resource model.

Network (:mod:`nc2600.host.episodes.policy`): conv 16 8x8/4 -> ReLU -> conv 32 4x4/2 -> ReLU -> dense 256 ->
ReLU -> dense |A|, action = argmax (ties to the lowest index). Same flat parameter layout.

Number format (fixed point with power-of-two scales only)
-----------------------------------------------------------
- Input: the observation's uint8 grey levels ``a0 = obs`` (0..255), unchanged.
- Weights: int8 in ``-127..127``, ``wq = round(w * 2**e)`` with one exponent ``e`` per layer
  (the largest with ``max|w| * 2**e <= 127``). The first layer folds the float network's
  ``1/255`` input scaling into its weights (``w1 / 255``).
- Accumulators: int32; ``acc_l = a_{l-1} @ wq_l + bq_l`` with ``bq_l = round(b_l * 2**(e_l + f_{l-1}))``
  (``f_0 = 0``), so ``acc_l ~= z_l * 2**(e_l + f_{l-1})`` where ``z_l`` is the float pre-activation.
- Activations: 8-bit codes, non-negative after ReLU:
  ``a_l = min((max(acc_l, 0) + 2**(s_l-1)) >> s_l, act_max)`` (round half up, saturate; ``s_l >= 0``
  a per-layer requantisation shift, ``f_l = e_l + f_{l-1} - s_l``). ``act_max = 255`` (default)
  uses all 8 bits of an unsigned byte, since ReLU outputs are never negative; ``act_max = 127``
  keeps them in the positive half of int8. The multipliers are 8-bit x int8 either way; the
  unsigned code halves the activation rounding error (measured agreement: ``tests/policy_int8``).
- Output: the last layer's int32 accumulators are the action values; argmax picks the action.
  Every accumulator is bounded (checked at quantisation): ``|acc| <= K * 255 * 127 + |bq| < 2**31``.

Quantiser (:func:`quantize`): the weight exponents come from the weights; each shift ``s_l`` is
calibrated on observations: the smallest shift for which the largest accumulator of layer ``l``
over the calibration observations (computed by this integer model, layer after layer) fits
``act_max * 2**s_l`` (so calibration frames never saturate; clipping harder loses agreement).

Agreement with the float network (``nc2600 policy-int8 --agreement GAMES``,
300 observations per game, networks ``init_params(0..3)``): 93.7-100 % per network, game means
96.9 % (asteroids) to 99.9 % (ms_pacman); per game mean / min: pong 99.6 / 99.0, breakout
98.4 / 93.7, asteroids 96.9 / 95.7, space_invaders 98.3 / 97.3, journey_escape 97.2 / 95.3,
ms_pacman 99.9 / 99.7. This is below a 99 % per-game target. The disagreements
are frames whose float top-two action values differ by less than the int8 model's error
(about 2 % of the spread of the action values; e.g. breakout ``init_params(2)``: actions 1 and 3
are within 3 % of the spread on 22 % of frames). The error comes in about equal parts from the
four weight tensors and the three activation roundings (each alone: 0.3-1.6 % of the spread), so
no single fix removes it; and where the 32 calibration frames (start of the game) do not cover
later screens, activations saturate (journey_escape ``init_params(1)``: conv1 saturates on a
third of the frames), which a larger or more varied calibration set would help.

Not used, as none raises the agreement (same table, and a hold-out set of 300 further frames, ALE seed 200):
per-channel weight exponents, non-power-of-two weight scales, clipped activation calibration,
empirical bias correction, GPTQ-style error-compensating weight rounding (over-fits the
calibration frames); cross-layer equalization (Nagel et al. 2019, "Data-Free Quantization
Through Weight Equalization and Bias Correction"; exact for this network since ReLU is positively
homogeneous, conv2 channel ``c`` -> dense rows ``(y, x, c)``): balancing the weight ranges lowers
the overall agreement (mean of the 24 networks 97.6 % vs 98.4 %, breakout ``init_params(2)``
80 %); equalising the activation ranges from calibration maxima fails (17-42 %: channels almost
silent on the calibration frames get large scales, then saturate or dominate the layer's weight
exponent). A float simulation with a real-valued scale per weight column and per layer
activation (the best that equalization can do for the weights) still gives breakout 97.4 % and journey_escape
97.8 %. GPTQ rounding of all layers with an output-bias correction from the calibration frames
(float minus int8 mean action values) lowers the output error (3.8 % -> 2.9 % of the spread) but
not the disagreements on hold-out frames (four weakest games, mean 97.4 % vs 97.6 % without); one
bit of activation headroom, or 1.3x, removes most of journey_escape's saturation error but costs
more elsewhere (asteroids 95.3 % with one bit).

Bit-exact model: :meth:`QuantizedPolicy.action_values` uses only integer arithmetic. The
matrix products are evaluated in floating point, which is exact because every product and
partial sum is an integer of bounded size: float32 for a layer whose worst case stays below
``2**24`` (conv1, conv2 in practice), float64 (``< 2**53``) otherwise. ``tests/policy_int8``
compares it with an int64 reference.

Cycle and resource model (:func:`inference_cycles`, :func:`resources`, :func:`simulate_schedule`)
------------------------------------------------------------------------------------------
An engine of ``L`` MAC lanes (one DSP48E1 each, 8x8 multiply into a 32-bit accumulator) runs
the layers in order. Lane ``j`` computes output channels ``j, j+L, ...``; for each output
position and each group of ``L`` output channels the engine streams the ``K`` inputs of the
receptive field, one per cycle: one activation read (broadcast to all lanes) and one weight
read per active lane per cycle; the bias is loaded into the accumulator with the first
product; requantisation (bias already in, ReLU, shift, saturate) and the activation write-back
(one byte per cycle) are pipelined behind the next group. At the end of each of the first three
layers the engine waits for the write-back (:func:`layer_gap_cycles`: the MAC pipeline, the
requantiser and one cycle per output of the last group) because the next layer reads its
results. The last layer's values are registered :data:`MAC_PIPELINE_CYCLES` + 1 cycles after its
last input and go to the action-select tree (:func:`nc2600.hls_models.action_select.latency`).
So ``cycles = sum_layers P * ceil(N / L) * K + drain_cycles + latency(A)`` (:func:`drain_cycles`).
These are the RTL's cycles (``hw/policy_engine.py``, measured equal for L in {4, 16, 32, 64});
an earlier model charged a fixed 8-cycle drain per layer, which the RTL's one-byte-per-cycle
write-back (one shared requantiser instead of ``L``) replaced.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from nc2600.hls_models.action_select import latency as argmax_latency
from nc2600.hls_models.networks import OBS_SHAPE
from nc2600.hls_models.networks import n_params as _net_n_params
from nc2600.hls_models.networks import unflatten as _net_unflatten
from nc2600.hls_models.platform import FRAME_SKIP, NTSC_COLOUR_CLOCKS_PER_FRAME, XC7Z045

ACT_MAX = 255          #: default largest activation code (unsigned 8-bit, non-negative after ReLU)
W_MAX = 127            #: largest weight magnitude (symmetric int8)
LAYERS = ("conv1", "conv2", "dense1", "dense2")


def n_params(n_actions: int) -> int:
    """Parameters of the ``small`` network (:func:`nc2600.hls_models.networks.n_params`)."""
    return _net_n_params("small", n_actions)


def unflatten(flat: np.ndarray, n_actions: int) -> dict[str, np.ndarray]:
    """Named views of a ``small`` network's flat vector (:func:`nc2600.hls_models.networks.unflatten`)."""
    return _net_unflatten(flat, "small", n_actions)


@dataclass
class QuantizedPolicy:
    """An int8 policy: weights ``w1..w4`` (int8), biases ``b1..b4`` (int32), shifts ``s1..s3``,
    activation ceiling ``act_max`` (255 or 127).

    Shapes as :func:`nc2600.host.episodes.policy.layer_shapes` (``w1 (256, 16)``, ``w2 (256, 32)``,
    ``w3 (2592, 256)``, ``w4 (256, A)``). ``exponents`` holds ``e_l`` and ``f_l`` for reference.
    """
    n_actions: int
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray
    w4: np.ndarray
    b4: np.ndarray
    s1: int
    s2: int
    s3: int
    exponents: dict
    act_max: int = ACT_MAX

    def weights(self) -> list[np.ndarray]:
        return [self.w1, self.w2, self.w3, self.w4]

    def biases(self) -> list[np.ndarray]:
        return [self.b1, self.b2, self.b3, self.b4]

    def shifts(self) -> list[int]:
        return [self.s1, self.s2, self.s3]

    def layer_accumulators(self, obs: np.ndarray, layer: int, acts: np.ndarray | None = None) -> np.ndarray:
        """int64 accumulators of ``layer`` (0..3) given the previous layer's activations.

        ``acts``: for layer 0 ignored (``obs`` used); else ``(B, 20, 20, 16)``, ``(B, 9, 9, 32)``
        or ``(B, 256)`` activation codes. Returns ``(B, P, N)`` int64 (``P`` output positions).
        """
        w, b = self._float_operands(layer)
        if layer == 0:
            x = _conv1_patches(obs, w.dtype)
        elif layer == 1:
            x = _conv2_patches(acts, w.dtype)
        else:
            x = acts.reshape(acts.shape[0], 1, -1).astype(w.dtype)
        return (np.matmul(x, w) + b).astype(np.int64)

    def _float_operands(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        """Weights and bias of ``layer`` as float32 when every partial sum of that layer stays
        below ``2**24`` in magnitude (then float32 arithmetic is exact), else float64 (exact below
        ``2**53``). Cached; the integer tensors must not be changed afterwards."""
        cache = self.__dict__.setdefault("_float_cache", {})
        if layer not in cache:
            w, b = self.weights()[layer], self.biases()[layer]
            in_max = 255 if layer == 0 else self.act_max
            worst = (np.abs(w.astype(np.int64)).sum(axis=0) * in_max + np.abs(b.astype(np.int64))).max()
            dtype = np.float32 if worst < 2 ** 24 else np.float64
            cache[layer] = (w.astype(dtype), b.astype(dtype))
        return cache[layer]

    def action_values(self, obs: np.ndarray) -> np.ndarray:
        """Bit-exact int32 action values, ``(B, 4, 84, 84)`` uint8 -> ``(B, A)`` int32.

        Raises:
            ValueError: ``obs`` not uint8 of shape ``(B, 4, 84, 84)``.
        """
        obs = check_obs(obs)
        b = obs.shape[0]
        acc = self.layer_accumulators(obs, 0)
        a = requantize(acc, self.s1, self.act_max).reshape(b, 20, 20, 16)
        acc = self.layer_accumulators(obs, 1, a)
        a = requantize(acc, self.s2, self.act_max).reshape(b, 2592)
        acc = self.layer_accumulators(obs, 2, a)
        a = requantize(acc, self.s3, self.act_max).reshape(b, 256)
        q = self.layer_accumulators(obs, 3, a)[:, 0, :]
        return q.astype(np.int32)

    def act(self, obs: np.ndarray) -> np.ndarray:
        """Greedy actions ``(B,)`` int64 for ``(B, 4, 84, 84)`` uint8 observations (ties to the lowest index)."""
        return np.argmax(self.action_values(obs), axis=-1)

    def flat_int8(self) -> np.ndarray:
        """All int8 weights in the flat layout order (w1, w2, w3, w4), for a weight memory image."""
        return np.concatenate([w.ravel() for w in self.weights()]).astype(np.int8)


def check_obs(obs: np.ndarray) -> np.ndarray:
    """Validate a batch of observations: uint8 ``(B, 4, 84, 84)``; returns it."""
    obs = np.asarray(obs)
    if obs.dtype != np.uint8 or obs.ndim != 4 or obs.shape[1:] != OBS_SHAPE:
        raise ValueError(f"observations must be uint8 of shape (B, 4, 84, 84), got {obs.dtype} {obs.shape}")
    return obs


def requantize(acc: np.ndarray, shift: int, act_max: int = ACT_MAX) -> np.ndarray:
    """ReLU, round half up by ``shift`` bits, saturate to ``0..act_max``; int64 in, int64 out."""
    r = np.maximum(acc, 0)
    if shift > 0:
        r = (r + (1 << (shift - 1))) >> shift
    return np.minimum(r, act_max)


def _conv1_patches(obs: np.ndarray, dtype=np.float64) -> np.ndarray:
    """``(B, 4, 84, 84)`` uint8 -> ``(B, 400, 256)`` float patches, rows (c, kh, kw)."""
    win = sliding_window_view(obs, (8, 8), axis=(2, 3))[:, :, ::4, ::4]      # B,4,20,20,8,8
    return np.ascontiguousarray(win.transpose(0, 2, 3, 1, 4, 5), dtype=dtype).reshape(obs.shape[0], 400, 256)


def _conv2_patches(a1: np.ndarray, dtype=np.float64) -> np.ndarray:
    """``(B, 20, 20, 16)`` codes -> ``(B, 81, 256)`` float patches, rows (c, kh, kw)."""
    win = sliding_window_view(a1, (4, 4), axis=(1, 2))[:, ::2, ::2]          # B,9,9,16,4,4
    return np.ascontiguousarray(win, dtype=dtype).reshape(a1.shape[0], 81, 256)


def weight_exponent(w: np.ndarray) -> int:
    """Largest ``e`` with ``max|w| * 2**e <= 127`` (0 for an all-zero tensor)."""
    m = float(np.max(np.abs(w))) if w.size else 0.0
    if m == 0.0:
        return 0
    e = int(np.floor(np.log2(W_MAX / m)))
    while m * 2.0 ** e > W_MAX:          # guard against log2 rounding
        e -= 1
    return e


def quantize_weights(w: np.ndarray, e: int) -> np.ndarray:
    """``round(w * 2**e)`` (half away from zero) clipped to ``-127..127``, int8."""
    x = np.asarray(w, np.float64) * 2.0 ** e
    q = np.sign(x) * np.floor(np.abs(x) + 0.5)
    return np.clip(q, -W_MAX, W_MAX).astype(np.int8)


def quantize_bias(b: np.ndarray, exp: int) -> np.ndarray:
    """``round(b * 2**exp)`` as int32 (saturated)."""
    x = np.asarray(b, np.float64) * 2.0 ** exp
    q = np.sign(x) * np.floor(np.abs(x) + 0.5)
    return np.clip(q, -(2 ** 31 - 1), 2 ** 31 - 1).astype(np.int32)


def calibrated_shift(acc: np.ndarray, act_max: int = ACT_MAX) -> int:
    """Smallest ``s >= 0`` with ``max(acc) <= act_max * 2**s`` (no saturation on the calibration set)."""
    top = int(np.max(acc)) if acc.size else 0
    s = 0
    while top > act_max * (1 << s):
        s += 1
    return s


def quantize(flat: np.ndarray, n_actions: int, calib_obs: np.ndarray, act_max: int = ACT_MAX) -> QuantizedPolicy:
    """Quantise one float parameter vector (GA individual) to a :class:`QuantizedPolicy`.

    Args:
        flat: ``(n_params(n_actions),)`` float32 parameters (:mod:`nc2600.host.episodes.policy` layout).
        n_actions: number of actions ``A``.
        calib_obs: ``(B, 4, 84, 84)`` uint8 observations of the game (``B >= 1``, e.g. 32 from
            random play) used to choose the requantisation shifts (module doc).
        act_max: activation ceiling, 255 (unsigned 8-bit, default) or 127 (int8).
    Raises:
        ValueError: wrong parameter count or observation shape.
    """
    flat = np.asarray(flat)
    if flat.ndim != 1 or flat.shape[0] != n_params(n_actions):
        raise ValueError(f"parameter vector must have shape ({n_params(n_actions)},) for {n_actions} actions, "
                         f"got {flat.shape}")
    calib_obs = check_obs(calib_obs)
    if act_max not in (127, 255):
        raise ValueError(f"act_max must be 127 or 255, got {act_max}")
    p = {k: v.astype(np.float64) for k, v in unflatten(flat, n_actions).items()}
    p["w1"] = p["w1"] / 255.0
    qp = QuantizedPolicy(n_actions, *([None] * 8), 0, 0, 0, {}, act_max)
    f_prev = 0
    acts = None
    b = calib_obs.shape[0]
    shapes = [(20, 20, 16), (9, 9, 32), (256,)]
    for layer in range(4):
        w, bias = p[f"w{layer + 1}"], p[f"b{layer + 1}"]
        e = weight_exponent(w)
        setattr(qp, f"w{layer + 1}", quantize_weights(w, e))
        setattr(qp, f"b{layer + 1}", quantize_bias(bias, e + f_prev))
        qp.exponents[f"e{layer + 1}"] = e
        if layer == 3:
            break
        acc = qp.layer_accumulators(calib_obs, layer, acts)
        s = calibrated_shift(acc, act_max)
        setattr(qp, f"s{layer + 1}", s)
        f_prev = e + f_prev - s
        qp.exponents[f"f{layer + 1}"] = f_prev
        acts = requantize(acc, s, act_max).reshape(b, *shapes[layer])
    _check_accumulator_bounds(qp)
    return qp


def _check_accumulator_bounds(qp: QuantizedPolicy) -> None:
    """Raise if any accumulator could leave int32 (worst case over all inputs)."""
    in_max = [255, qp.act_max, qp.act_max, qp.act_max]
    for w, b, a in zip(qp.weights(), qp.biases(), in_max):
        worst = np.abs(w.astype(np.int64)).sum(axis=0) * a + np.abs(b.astype(np.int64))
        if worst.max() >= 2 ** 31:
            raise ValueError("quantised layer could overflow its int32 accumulator")


class QuantizedSlots:
    """Per-slot int8 policies for a block of emulator slots, like :class:`nc2600.host.episodes.policy.SlotWeights`.

    :meth:`act` evaluates each slot's observation with that slot's own policy.
    """

    def __init__(self, n_slots: int, n_actions: int):
        self.n_slots, self.n_actions = int(n_slots), int(n_actions)
        self.policies: list[QuantizedPolicy | None] = [None] * self.n_slots

    def load(self, slot: int, policy: QuantizedPolicy) -> None:
        """Put ``policy`` into ``slot``."""
        if policy.n_actions != self.n_actions:
            raise ValueError(f"policy has {policy.n_actions} actions, slots expect {self.n_actions}")
        self.policies[slot] = policy

    def act(self, obs: np.ndarray, slots: np.ndarray | None = None) -> np.ndarray:
        """Greedy actions ``(len(slots),)`` for ``obs`` ``(S, 4, 84, 84)`` (rows of ``slots``, default all)."""
        obs = check_obs(obs)
        idx = range(obs.shape[0]) if slots is None else [int(i) for i in slots]
        return np.array([int(self.policies[i].act(obs[i:i + 1])[0]) for i in idx], dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Any network of nc2600.hls_models.networks (``--network nature``): same number format and quantiser
# ---------------------------------------------------------------------------------------------

@dataclass
class QuantizedNetwork:
    """An int8 policy of any network of :mod:`nc2600.hls_models.networks` (the small network keeps its
    own :class:`QuantizedPolicy`, which the RTL engine reads): per layer int8 weights ``(K, N)``
    (flat layout), int32 biases, and a requantisation shift after every layer but the last.
    The number format, rounding and saturation are those of :class:`QuantizedPolicy`."""
    network: str
    n_actions: int
    w: list
    b: list
    s: list
    exponents: dict
    act_max: int = ACT_MAX

    def weights(self) -> list[np.ndarray]:
        return list(self.w)

    def biases(self) -> list[np.ndarray]:
        return list(self.b)

    def shifts(self) -> list[int]:
        return list(self.s)

    def layer_accumulators(self, inputs: np.ndarray, layer: int) -> np.ndarray:
        """int64 accumulators ``(B, P, N)`` of ``layer`` from its input codes: the observation
        ``(B, 4, 84, 84)`` for layer 0, else the previous layer's ``(B, H, W, C)`` codes
        (channel-last). Products in float32 where every partial sum of the layer stays below
        ``2**24`` (exact), else float64 (exact below ``2**53``)."""
        from nc2600.hls_models.networks import geometry
        g = geometry(self.network, self.n_actions)[layer]
        w, bias = self.w[layer], self.b[layer]
        in_max = 255 if layer == 0 else self.act_max
        worst = (np.abs(w.astype(np.int64)).sum(axis=0) * in_max + np.abs(bias.astype(np.int64))).max()
        dtype = np.float32 if worst < 2 ** 24 else np.float64
        a = inputs.transpose(0, 2, 3, 1) if layer == 0 else inputs
        n = a.shape[0]
        if g.kind == "conv":
            win = sliding_window_view(a, (g.kernel, g.kernel), axis=(1, 2))[:, ::g.stride, ::g.stride]
            x = np.ascontiguousarray(win, dtype=dtype).reshape(n, g.positions, g.k)
        else:
            x = a.reshape(n, 1, g.k).astype(dtype)
        return (np.matmul(x, w.astype(dtype)) + bias.astype(dtype)).astype(np.int64)

    def action_values(self, obs: np.ndarray) -> np.ndarray:
        """Bit-exact int32 action values, ``(B, 4, 84, 84)`` uint8 -> ``(B, A)`` int32."""
        from nc2600.hls_models.networks import geometry
        a = check_obs(obs)
        geo = geometry(self.network, self.n_actions)
        for layer, g in enumerate(geo):
            acc = self.layer_accumulators(a, layer)
            if layer == len(geo) - 1:
                return acc[:, 0, :].astype(np.int32)
            a = requantize(acc, self.s[layer], self.act_max).reshape(-1, g.out_h, g.out_w, g.n)
        raise AssertionError("unreachable")  # pragma: no cover

    def act(self, obs: np.ndarray) -> np.ndarray:
        """Greedy actions ``(B,)`` int64 (ties to the lowest index)."""
        return np.argmax(self.action_values(obs), axis=-1)


def quantize_network(flat: np.ndarray, network: str, n_actions: int, calib_obs: np.ndarray,
                     act_max: int = ACT_MAX):
    """:func:`quantize` for any network: ``small`` returns a :class:`QuantizedPolicy` (the same
    object :func:`quantize` gives), others a :class:`QuantizedNetwork` quantised by the same
    rules (per-layer power-of-two weight exponent, biases at the accumulator's scale, the
    smallest shift that does not saturate on ``calib_obs``).

    Raises:
        ValueError: unknown network, wrong parameter count or observation shape, a layer whose
        accumulator could leave int32.
    """
    from nc2600.hls_models.networks import geometry, n_params as net_n_params, unflatten as net_unflatten
    if network == "small":
        return quantize(flat, n_actions, calib_obs, act_max)
    geo = geometry(network, n_actions)
    flat = np.asarray(flat)
    if flat.ndim != 1 or flat.shape[0] != net_n_params(network, n_actions):
        raise ValueError(f"parameter vector must have shape ({net_n_params(network, n_actions)},) for the "
                         f"{network} network with {n_actions} actions, got {flat.shape}")
    calib_obs = check_obs(calib_obs)
    if act_max not in (127, 255):
        raise ValueError(f"act_max must be 127 or 255, got {act_max}")
    p = {k: v.astype(np.float64) for k, v in net_unflatten(flat, network, n_actions).items()}
    p["w1"] = p["w1"] / 255.0
    qn = QuantizedNetwork(network, int(n_actions), [], [], [], {}, act_max)
    f_prev, acts = 0, calib_obs
    for layer, g in enumerate(geo):
        w, bias = p[f"w{layer + 1}"], p[f"b{layer + 1}"]
        e = weight_exponent(w)
        qn.w.append(quantize_weights(w, e))
        qn.b.append(quantize_bias(bias, e + f_prev))
        qn.exponents[f"e{layer + 1}"] = e
        in_max = 255 if layer == 0 else act_max
        worst = np.abs(qn.w[-1].astype(np.int64)).sum(axis=0) * in_max + np.abs(qn.b[-1].astype(np.int64))
        if worst.max() >= 2 ** 31:
            raise ValueError(f"quantised layer {g.name} could overflow its int32 accumulator")
        if layer == len(geo) - 1:
            break
        acc = qn.layer_accumulators(acts, layer)
        s = calibrated_shift(acc, act_max)
        qn.s.append(s)
        f_prev = e + f_prev - s
        qn.exponents[f"f{layer + 1}"] = f_prev
        acts = requantize(acc, s, act_max).reshape(-1, g.out_h, g.out_w, g.n)
    return qn


# ---------------------------------------------------------------------------------------------
# Cycle and resource model of an L-lane inference engine
# ---------------------------------------------------------------------------------------------

#: issue of a group's last input -> its sum: memory read, operand register, multiply, accumulate
MAC_PIPELINE_CYCLES = 4
WRITEBACK_PIPELINE_CYCLES = 2  #: per written byte: ReLU + rounding, shift + saturate (then the write)
COLOUR_CLOCKS_PER_FRAME = NTSC_COLOUR_CLOCKS_PER_FRAME   #: NTSC: 262 lines x 228 colour clocks (59,736)
BRAM36_BYTES_X9 = 4096        #: a BRAM36 as 4K x 9 holds 4096 int8 values (parity bit unused)


def layer_dims(n_actions: int, network: str = "small") -> list[tuple[str, int, int, int]]:
    """``[(name, P positions, N outputs per position, K inputs per output), ...]`` of the layers of
    ``network`` (:mod:`nc2600.hls_models.networks`; the small network's four by default)."""
    if n_actions < 1:
        raise ValueError(f"n_actions must be >= 1, got {n_actions}")
    if network != "small":
        from nc2600.hls_models.networks import geometry
        return [(g.name, g.positions, g.n, g.k) for g in geometry(network, n_actions)]
    return [("conv1", 20 * 20, 16, 4 * 8 * 8), ("conv2", 9 * 9, 32, 16 * 4 * 4),
            ("dense1", 1, 256, 9 * 9 * 32), ("dense2", 1, n_actions, 256)]


def _check_lanes(lanes: int) -> int:
    if not isinstance(lanes, (int, np.integer)) or lanes < 1:
        raise ValueError(f"lanes must be a positive integer, got {lanes!r}")
    return int(lanes)


def inference_cycles(n_actions: int, lanes: int, network: str = "small") -> int:
    """Clock cycles of one inference (observation in memory -> action index) on ``lanes`` MAC lanes.

    ``sum_layers P * ceil(N / L) * K + drain_cycles + argmax latency`` (module doc);
    e.g. 18 actions: 16 lanes -> 185,932 cycles.
    """
    lanes = _check_lanes(lanes)
    compute = sum(p * -(-n // lanes) * k for _, p, n, k in layer_dims(n_actions, network))
    return compute + drain_cycles(n_actions, lanes, network) + argmax_latency(n_actions)


def layer_gap_cycles(n: int, lanes: int) -> int:
    """Idle cycles after a layer with ``n`` outputs per position (not the last layer): the last
    group's sum completes :data:`MAC_PIPELINE_CYCLES` after its last input, then its
    ``n - (ceil(n/L) - 1) * L`` outputs pass the :data:`WRITEBACK_PIPELINE_CYCLES` requantiser one
    per cycle; the next layer's first read follows the last write."""
    lanes = _check_lanes(lanes)
    return MAC_PIPELINE_CYCLES + WRITEBACK_PIPELINE_CYCLES + n - (-(-n // lanes) - 1) * lanes


def drain_cycles(n_actions: int, lanes: int, network: str = "small") -> int:
    """Cycles of one inference that issue no input: one from ``start`` to the first read, the
    gaps after conv1, conv2 and dense1 (:func:`layer_gap_cycles`), and the last group's
    :data:`MAC_PIPELINE_CYCLES` plus the cycle that registers the action values."""
    gaps = sum(layer_gap_cycles(n, lanes) for _, _, n, _ in layer_dims(n_actions, network)[:-1])
    return gaps + MAC_PIPELINE_CYCLES + 1


def frame_skip_period_cycles(f_mhz: float = 150.0, console_mhz: float = 150.0,
                             frame_skip: int = FRAME_SKIP,
                             colour_clocks_per_frame: int = COLOUR_CLOCKS_PER_FRAME) -> int:
    """Engine cycles (at ``f_mhz``) in one frame-skip period of a console clocked at ``console_mhz``
    colour clocks per microsecond (NTSC frame length by default)."""
    return int(frame_skip * colour_clocks_per_frame * f_mhz / console_mhz)


def min_lanes(n_actions: int = 18, f_mhz: float = 150.0, console_mhz: float = 150.0,
              frame_skip: int = FRAME_SKIP, network: str = "small") -> int:
    """Fewest lanes whose inference fits one frame-skip period (16 for 18 actions at 150/150 MHz)."""
    budget = frame_skip_period_cycles(f_mhz, console_mhz, frame_skip)
    for lanes in range(1, 4097):
        if inference_cycles(n_actions, lanes, network) <= budget:
            return lanes
    raise ValueError("no lane count fits")  # pragma: no cover


def weight_bram36(n_actions: int, lanes: int, network: str = "small") -> int:
    """BRAM36 blocks holding all int8 weights, banked one lane per byte lane.

    Lane ``j`` needs ``D = sum_layers ceil(N/L) * K`` weights. A BRAM36 serves ``q`` lanes as
    ``(4096/q) x 9q`` for ``q`` in 1, 2, 4, 8 (UG473 aspect ratios up to 512 x 72); the count is
    the best of ``ceil(L/q) * ceil(D / (4096/q))``.
    """
    lanes = _check_lanes(lanes)
    depth = sum(-(-n // lanes) * k for _, _, n, k in layer_dims(n_actions, network))
    return min(-(-lanes // q) * -(-depth // (BRAM36_BYTES_X9 // q)) for q in (1, 2, 4, 8))


def activation_bram36(network: str = "small") -> int:
    """BRAM36 blocks of the activation buffers, one per layer output but the last: small conv1
    6400 B, conv2 2592 B, dense1 256 B (3); nature conv1 12,800 B, conv2 5184 B, conv3 3136 B,
    dense1 512 B (4 + 2 + 1 + 1 = 8)."""
    return sum(-(-(p * n) // BRAM36_BYTES_X9) for _, p, n, _ in layer_dims(1, network)[:-1])


def resources(n_actions: int, lanes: int, f_mhz: float = 150.0, console_mhz: float = 150.0,
              network: str = "small") -> dict:
    """Cycle and resource figures of one engine: cycles, microseconds, fits, BRAM36, DSP.

    Biases (int32) and shifts live in distributed RAM (not counted as BRAM).
    """
    cycles = inference_cycles(n_actions, lanes, network)
    budget = frame_skip_period_cycles(f_mhz, console_mhz)
    wb = weight_bram36(n_actions, lanes, network)
    ab = activation_bram36(network)
    return {"lanes": int(lanes), "f_mhz": float(f_mhz), "cycles": cycles,
            "inference_us": cycles / f_mhz, "frame_skip_budget_cycles": budget,
            "fits_frame_skip": cycles <= budget, "weight_bram36": wb, "activation_bram36": ab,
            "bram36": wb + ab, "dsp": int(lanes),
            "weight_bytes": sum(p * 0 + n * k for _, p, n, k in layer_dims(n_actions, network))}


#: block RAM and DSPs of one instance besides its policy engine, measured by ``nc2600 synth``
#: (``docs/results.md``): console 4 BRAM36 (its ROM), preprocessor 15.5 BRAM36 and 6 DSP48
INSTANCE_BRAM36_WITHOUT_ENGINE = 4 + 15.5
INSTANCE_DSP_WITHOUT_ENGINE = 6


def instances_per_device(n_actions: int, lanes: int, network: str = "small", device: dict = XC7Z045) -> dict:
    """How many whole instances (console + preprocessor + action select + an ``lanes``-lane engine
    of ``network`` with all its weights in block RAM) fit one device: BRAM36 and DSP per instance
    and the count each allows (the smaller is the answer; LUTs are not the limit).
    E.g. small, 16 lanes: 191.5 BRAM36 per instance, 2 per XC7Z045; nature needs about 450."""
    r = resources(n_actions, lanes, network=network)
    bram = r["bram36"] + INSTANCE_BRAM36_WITHOUT_ENGINE
    dsp = r["dsp"] + INSTANCE_DSP_WITHOUT_ENGINE
    by_bram, by_dsp = int(device["bram36"] // bram), int(device["dsp"] // dsp)
    return {"network": network, "lanes": int(lanes), "bram36_per_instance": bram, "dsp_per_instance": dsp,
            "fits_frame_skip": r["fits_frame_skip"], "cycles": r["cycles"],
            "instances_by_bram36": by_bram, "instances_by_dsp": by_dsp, "instances": min(by_bram, by_dsp)}


def mac_count(n_actions: int, network: str = "small") -> int:
    """Multiply-accumulates of one forward pass, from the network's shapes (small: 2,965,504 +
    256 A; nature: 9,342,976 + 512 A)."""
    if network != "small":
        from nc2600.hls_models.networks import mac_count as net_macs
        return net_macs(network, n_actions)
    return 20 * 20 * 16 * 256 + 9 * 9 * 32 * 256 + 2592 * 256 + 256 * n_actions


def simulate_schedule(policy: QuantizedPolicy, obs: np.ndarray, lanes: int) -> tuple[np.ndarray, dict]:
    """Run one observation through the engine's schedule group by group, counting everything.

    The loops follow the engine literally (layer, output position, lane group; the ``K`` input
    cycles of a group are one vector step): each group adds ``K`` cycles, ``K`` activation
    reads, ``K * active`` weight reads and MACs. The arithmetic is the int8 model's, done in
    the schedule's order, so the result checks that the schedule covers every MAC.

    Args:
        obs: ``(4, 84, 84)`` uint8.
    Returns:
        ``(action_values (A,) int64, counts)`` with counts ``cycles, macs, activation_reads,
        weight_reads, groups``.
    """
    lanes = _check_lanes(lanes)
    obs = check_obs(np.asarray(obs)[None])[0]
    counts = {"cycles": 0, "macs": 0, "activation_reads": 0, "weight_reads": 0, "groups": 0}
    a = obs.astype(np.int64)
    shifts = policy.shifts() + [None]
    for layer, ((name, npos, nout, k), w, b, s) in enumerate(
            zip(layer_dims(policy.n_actions), policy.weights(), policy.biases(), shifts)):
        w = w.astype(np.int64)
        b = b.astype(np.int64)
        out = np.zeros((npos, nout), np.int64)
        for pos in range(npos):
            x = _receptive_field(a, layer, pos)          # the K activations read in order
            assert x.shape == (k,)
            for g in range(0, nout, lanes):
                active = min(lanes, nout - g)
                out[pos, g:g + active] = b[g:g + active] + x @ w[:, g:g + active]
                counts["cycles"] += k
                counts["activation_reads"] += k
                counts["weight_reads"] += k * active
                counts["macs"] += k * active
                counts["groups"] += 1
        counts["cycles"] += (layer_gap_cycles(nout, lanes) if s is not None
                             else MAC_PIPELINE_CYCLES + 1)
        if s is None:
            values = out[0]
        else:
            a = requantize(out, s, policy.act_max)
            a = a.reshape((20, 20, 16) if layer == 0 else (9, 9, 32) if layer == 1 else (256,))
    counts["cycles"] += argmax_latency(policy.n_actions)
    return values, counts


def _receptive_field(a: np.ndarray, layer: int, pos: int) -> np.ndarray:
    """Inputs of output position ``pos`` in the order the engine reads them (weight row order)."""
    if layer == 0:                       # a: (4, 84, 84); rows (c, kh, kw)
        y, x = divmod(pos, 20)
        return a[:, 4 * y:4 * y + 8, 4 * x:4 * x + 8].reshape(-1)
    if layer == 1:                       # a: (20, 20, 16); rows (c, kh, kw)
        y, x = divmod(pos, 9)
        return a[2 * y:2 * y + 4, 2 * x:2 * x + 4, :].transpose(2, 0, 1).reshape(-1)
    return a.reshape(-1)                 # dense: (y, x, c) order


def lanes_table(n_actions: int = 18, f_mhz: float = 150.0, lanes=(1, 2, 4, 8, 12, 16, 24, 32, 64),
                network: str = "small") -> str:
    """Text table of :func:`resources` for several lane counts (``python -m nc2600.hls_models.policy_int8``)."""
    rows = [f"engine model, {network} network, {n_actions} actions, {f_mhz:g} MHz, frame-skip budget "
            f"{frame_skip_period_cycles(f_mhz)} cycles ({FRAME_SKIP} NTSC frames at 150 MHz console)",
            f"{'lanes':>5} {'cycles':>9} {'us':>8} {'fits':>5} {'BRAM36(w+act)':>14} {'DSP':>4}"]
    for lanes in lanes:
        r = resources(n_actions, lanes, f_mhz, network=network)
        rows.append(f"{lanes:>5} {r['cycles']:>9} {r['inference_us']:>8.1f} {str(r['fits_frame_skip']):>5} "
                    f"{r['bram36']:>9} ({r['weight_bram36']}+{r['activation_bram36']}) {r['dsp']:>4}")
    fewest = min_lanes(n_actions, f_mhz, network=network)
    per = instances_per_device(n_actions, fewest, network)
    rows.append(f"fewest lanes that fit: {fewest}; an instance with them: {per['bram36_per_instance']:g} BRAM36, "
                f"{per['dsp_per_instance']} DSP -> {per['instances']} per XC7Z045 "
                f"({XC7Z045['bram36']} BRAM36, {XC7Z045['dsp']} DSP; Xilinx DS190)")
    return "\n".join(rows)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(
        prog="python -m nc2600.hls_models.policy_int8",
        description="Inference-engine cycles and BRAM/DSP per MAC-lane count (the model; "
                    "`nc2600 policy-int8 --agreement GAMES` measures int8-vs-float agreement).")
    parser.add_argument("--network", choices=("small", "nature"), default="small",
                        help="network of the engine model (default small)")
    args = parser.parse_args()
    if args.network == "nature":
        print(lanes_table(network="nature", lanes=(16, 32, 48, 64, 96, 128)))
    else:
        print(lanes_table())
