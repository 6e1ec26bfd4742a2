"""The int8 policy as a fast, batched training path (host face of the ``policy_int8`` block).

:class:`Int8Slots` evaluates ``S`` emulator slots, each with its own
:class:`nc2600.hls_models.policy_int8.QuantizedPolicy`, in one batched call per layer, and returns
exactly the action values of :meth:`QuantizedPolicy.action_values` (the numpy model stays the
reference; ``tests/policy_int8/test_int8_slots.py`` compares them bit for bit, on real and on
extreme inputs).

Arithmetic
----------
Every matrix product is a ``uint8 x int8 -> int32`` product run by onnxruntime's
``MatMulInteger`` (MLAS kernels, one thread), batched over slots (``(S, M, K) x (S, K, N)``).
MLAS's x86 AVX2 and AVX-512BW kernels multiply with ``vpmaddubsw``, which adds *pairs* of
``u8 x s8`` products into a saturating int16: ``255 * 127 * 2 = 64,770`` would overflow, so
the engine never gives it an operand above 127: each activation code ``a`` (0..255) is split
into its low seven bits and its top bit, ``a = lo + 128 * hi`` (``lo`` 0..127, ``hi`` 0..1),
both halves are multiplied with the same weights (two rows of ``M``), and the int32 results
are recombined as ``P(lo) + 128 * P(hi)``. A pair then sums to at most ``2 * 127 * 127 =
32,258 < 2**15``, so every kernel (AVX2, AVX-512BW, AVX-512 VNNI, NEON dot product) computes
the exact integer product. With ``act_max = 127`` the top bit is always 0 and is skipped.

Layouts (per slot, built once in :meth:`Int8Slots.load`, when a slot starts an episode):

- conv1 (8x8 stride 4) as a 2x2 convolution over 4x4 pixel blocks (space to depth, as
  :func:`nc2600.host.episodes.policy.space_to_depth_weights`): ``w1s (64, 64)`` int8, rows (in_channel, dy, dx)
  of a block, columns (by, bx, out_channel); one product over the ``21 x 21`` block grid gives
  the four block-offset partial sums, then three shifted int32 additions.
- conv2 (4x4 stride 2) likewise over 2x2 blocks: ``w2s (64, 128)`` int8.
- dense1 ``w3 (2592, 256)``, dense2 ``w4 (256, A)`` int8 as in the flat layout.
- biases int32, the three requantisation shifts per slot (a slot's shifts are its individual's).

Requantisation (ReLU, round half up by ``s`` bits, saturate to ``act_max``) is done in int32
numpy with each slot's own shifts, as :func:`nc2600.hls_models.policy_int8.requantize`.

Why this is faster than the float path: dense1 is a matrix-vector product per slot, so it is
bound by reading the slot's weights: 663 KB as int8 instead of 2.65 MB as float32 (the
fabric reads 8-bit weights for the same reason); the convolutions read uint8 blocks instead of
float32 ones. ``nc2600 bench policy`` prints both paths' decisions per second in one run.
"""
from __future__ import annotations

import numpy as np

from nc2600.hls_models.policy_int8 import ACT_MAX, QuantizedPolicy, check_obs, quantize
from nc2600.host.episodes.policy import conv1_blocks

_SESSION = None


def _matmul_session():
    """One onnxruntime session computing ``y = MatMulInteger(a, b)`` for ``a (S, M, K)`` uint8,
    ``b (S, K, N)`` int8 -> ``y (S, M, N)`` int32, all dimensions symbolic; one intra-op thread
    (the evaluator's workers use the other cores)."""
    global _SESSION
    if _SESSION is None:
        import onnxruntime as ort
        from onnx import TensorProto, helper
        a = helper.make_tensor_value_info("a", TensorProto.UINT8, ["S", "M", "K"])
        b = helper.make_tensor_value_info("b", TensorProto.INT8, ["S", "K", "N"])
        y = helper.make_tensor_value_info("y", TensorProto.INT32, ["S", "M", "N"])
        graph = helper.make_graph([helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "u8s8", [a, b], [y])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 9
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        _SESSION = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return _SESSION


def matmul_u8s8(a: np.ndarray, b: np.ndarray, split: bool = True) -> np.ndarray:
    """Exact batched ``a @ b``: ``a (S, M, K)`` uint8, ``b (S, K, N)`` int8 -> ``(S, M, N)`` int32.

    ``split``: split ``a`` into 7-bit halves (module doc); only ``False`` when every entry of
    ``a`` is at most 127. The caller guarantees ``K * 255 * 127 < 2**31`` (always true here).
    """
    sess = _matmul_session()
    if not split:
        return sess.run(None, {"a": np.ascontiguousarray(a), "b": b})[0]
    m = a.shape[1]
    both = np.empty((a.shape[0], 2 * m, a.shape[2]), np.uint8)
    np.bitwise_and(a, 127, out=both[:, :m])
    np.right_shift(a, 7, out=both[:, m:])
    y = sess.run(None, {"a": both, "b": b})[0]
    out = y[:, m:]
    out <<= 7
    out += y[:, :m]
    return out


def _dense(a: np.ndarray, w: np.ndarray, split: bool) -> np.ndarray:
    """``(S, 1, K)`` uint8 codes x ``(S, K, N)`` int8 -> ``(S, N)`` int32, exact: the 7-bit halves
    as two single-row products (MLAS's matrix-vector kernel is several times faster for one row
    than for two); the top-bit product is skipped when no code reaches 128."""
    if not split:
        return matmul_u8s8(a, w, False)[:, 0]
    hi = np.right_shift(a, 7)
    out = matmul_u8s8(np.bitwise_and(a, 127), w, False)[:, 0]
    if hi.any():
        top = matmul_u8s8(hi, w, False)[:, 0]
        top <<= 7
        out += top
    return out


def _requantize(acc: np.ndarray, shift: np.ndarray, act_max: int) -> np.ndarray:
    """:func:`nc2600.hls_models.policy_int8.requantize` in int32 with one shift per slot.

    ``acc (S, ...)`` int32 (changed in place), ``shift (S,)`` int -> uint8 codes, same shape.
    """
    s = shift.reshape((-1,) + (1,) * (acc.ndim - 1)).astype(np.int32)
    np.maximum(acc, 0, out=acc)
    acc += (np.int32(1) << s) >> 1               # 2**(s-1), 0 for s == 0: round half up
    acc >>= s
    np.minimum(acc, act_max, out=acc)
    return acc.astype(np.uint8)


class Int8Slots:
    """Per-slot int8 policies for a block of ``S`` emulator slots, evaluated batched.

    Same interface as :class:`nc2600.host.episodes.policy.SlotWeights` and
    :class:`nc2600.hls_models.policy_int8.QuantizedSlots`: :meth:`load` once per episode, then
    :meth:`act` per decision. Every slot must hold a policy with the same ``act_max``.

    Args:
        n_slots: ``S`` (>= 1). n_actions: ``A`` (>= 1).
    """

    def __init__(self, n_slots: int, n_actions: int):
        self.n_slots, self.n_actions = int(n_slots), int(n_actions)
        s, a = self.n_slots, self.n_actions
        self.w1s = np.zeros((s, 64, 64), np.int8)
        self.w2s = np.zeros((s, 64, 128), np.int8)
        self.w3 = np.zeros((s, 2592, 256), np.int8)
        self.w4 = np.zeros((s, 256, a), np.int8)
        self.b1 = np.zeros((s, 16), np.int32)
        self.b2 = np.zeros((s, 32), np.int32)
        self.b3 = np.zeros((s, 256), np.int32)
        self.b4 = np.zeros((s, a), np.int32)
        self.shifts = np.zeros((s, 3), np.int32)
        self.act_max: int | None = None

    def load(self, slot: int, policy: QuantizedPolicy) -> None:
        """Copy ``policy`` (its int8 weights, int32 biases and shifts) into ``slot``.

        Raises:
            ValueError: a policy for another action count or another ``act_max``.
        """
        if policy.n_actions != self.n_actions:
            raise ValueError(f"policy has {policy.n_actions} actions, slots expect {self.n_actions}")
        if self.act_max is not None and policy.act_max != self.act_max:
            raise ValueError(f"policy has act_max {policy.act_max}, slots hold {self.act_max}")
        self.act_max = policy.act_max
        w1 = policy.w1.reshape(4, 2, 4, 2, 4, 16)                  # c, by, dy, bx, dx, o
        self.w1s[slot] = w1.transpose(0, 2, 4, 1, 3, 5).reshape(64, 64)
        w2 = policy.w2.reshape(16, 2, 2, 2, 2, 32)                 # c, by, dy, bx, dx, o
        self.w2s[slot] = w2.transpose(2, 4, 0, 1, 3, 5).reshape(64, 128)
        self.w3[slot], self.w4[slot] = policy.w3, policy.w4
        self.b1[slot], self.b2[slot], self.b3[slot], self.b4[slot] = policy.biases()
        self.shifts[slot] = policy.shifts()

    def action_values(self, obs: np.ndarray, slots: np.ndarray | None = None) -> np.ndarray:
        """``(S', A)`` int32 action values of ``obs (S, 4, 84, 84)`` uint8 for all slots, or for
        the rows ``slots`` (each with its own policy); equal to
        :meth:`QuantizedPolicy.action_values` of each slot's policy."""
        obs = check_obs(obs)
        if obs.shape[0] != self.n_slots:
            raise ValueError(f"expected {self.n_slots} observations, got {obs.shape[0]}")
        if slots is None:
            sel = slice(None)
        else:                       # a slice selects views (no copy of the slots' weights)
            sel = slots if isinstance(slots, slice) else np.asarray(slots, np.int64)
            obs = obs[sel]
        n = obs.shape[0]
        act_max = self.act_max if self.act_max is not None else 255
        split = act_max > 127
        shifts = self.shifts[sel]
        # conv1: 4x4 pixel blocks (space to depth); obs can reach 255: always split
        p = matmul_u8s8(conv1_blocks(obs), self.w1s[sel]).reshape(n, 21, 21, 2, 2, 16)
        h = p[:, :20, :20, 0, 0] + p[:, :20, 1:, 0, 1]
        h += p[:, 1:, :20, 1, 0]
        h += p[:, 1:, 1:, 1, 1]
        h += self.b1[sel][:, None, None, :]
        a1 = _requantize(h, shifts[:, 0], act_max)                        # S,20,20,16
        # conv2: 2x2 blocks of conv1's codes
        blocks = a1.reshape(n, 10, 2, 10, 2, 16).transpose(0, 1, 3, 2, 4, 5).reshape(n, 100, 64)
        p = matmul_u8s8(blocks, self.w2s[sel], split).reshape(n, 10, 10, 2, 2, 32)
        h = p[:, :9, :9, 0, 0] + p[:, :9, 1:, 0, 1]
        h += p[:, 1:, :9, 1, 0]
        h += p[:, 1:, 1:, 1, 1]
        h += self.b2[sel][:, None, None, :]
        a2 = _requantize(h, shifts[:, 1], act_max)                        # S,9,9,32 (y, x, c)
        h = _dense(a2.reshape(n, 1, 2592), self.w3[sel], split)
        h += self.b3[sel]
        a3 = _requantize(h, shifts[:, 2], act_max)
        q = _dense(a3.reshape(n, 1, 256), self.w4[sel], split)
        q += self.b4[sel]
        return q

    def act(self, obs: np.ndarray, slots: np.ndarray | None = None) -> np.ndarray:
        """Greedy actions ``(S',)`` int64 (ties to the lowest index), as :meth:`action_values`."""
        return np.argmax(self.action_values(obs, slots), axis=-1)


class Int8NetworkSlots:
    """:class:`Int8Slots` for any network of :mod:`nc2600.hls_models.networks` (``--network nature``):
    per layer one batched exact ``uint8 x int8`` product (im2col for convolutions), int32 bias
    and per-slot requantisation; equal to :meth:`nc2600.hls_models.policy_int8.QuantizedNetwork.action_values`.
    """

    def __init__(self, n_slots: int, n_actions: int, network: str = "nature"):
        from nc2600.hls_models.networks import geometry
        self.n_slots, self.n_actions, self.network = int(n_slots), int(n_actions), network
        self.geo = geometry(network, self.n_actions)
        self.w = [np.zeros((self.n_slots, g.k, g.n), np.int8) for g in self.geo]
        self.b = [np.zeros((self.n_slots, g.n), np.int32) for g in self.geo]
        self.shifts = np.zeros((self.n_slots, len(self.geo) - 1), np.int32)
        self.act_max: int | None = None

    def load(self, slot: int, policy) -> None:
        """Copy a :class:`~nc2600.hls_models.policy_int8.QuantizedNetwork` of the same network into ``slot``."""
        if getattr(policy, "network", "small") != self.network or policy.n_actions != self.n_actions:
            raise ValueError(f"policy is a {getattr(policy, 'network', 'small')} network with {policy.n_actions} "
                             f"actions, slots hold the {self.network} network with {self.n_actions}")
        if self.act_max is not None and policy.act_max != self.act_max:
            raise ValueError(f"policy has act_max {policy.act_max}, slots hold {self.act_max}")
        self.act_max = policy.act_max
        for layer in range(len(self.geo)):
            self.w[layer][slot] = policy.w[layer]
            self.b[layer][slot] = policy.b[layer]
        self.shifts[slot] = policy.s

    def action_values(self, obs: np.ndarray, slots: slice | np.ndarray | None = None) -> np.ndarray:
        """``(S', A)`` int32 action values of ``obs (S, 4, 84, 84)`` uint8 for all slots, or for
        the rows ``slots`` (a slice selects views, no copy)."""
        from nc2600.host.episodes.policy import conv_patches
        obs = check_obs(obs)
        if obs.shape[0] != self.n_slots:
            raise ValueError(f"expected {self.n_slots} observations, got {obs.shape[0]}")
        sel = slice(None) if slots is None else slots if isinstance(slots, slice) else np.asarray(slots, np.int64)
        obs = obs[sel]
        n = obs.shape[0]
        act_max = self.act_max if self.act_max is not None else 255
        a = obs.transpose(0, 2, 3, 1)
        for layer, g in enumerate(self.geo):
            if g.kind == "conv":
                acc = matmul_u8s8(conv_patches(a, g.kernel, g.stride), self.w[layer][sel], layer == 0 or act_max > 127)
            else:
                acc = _dense(np.ascontiguousarray(a).reshape(n, 1, g.k), self.w[layer][sel], act_max > 127)[:, None, :]
            acc += self.b[layer][sel][:, None, :]
            if layer == len(self.geo) - 1:
                return acc[:, 0, :]
            a = _requantize(acc, self.shifts[sel, layer], act_max).reshape(n, g.out_h, g.out_w, g.n)
        raise AssertionError("unreachable")  # pragma: no cover

    def act(self, obs: np.ndarray, slots: slice | np.ndarray | None = None) -> np.ndarray:
        """Greedy actions ``(S',)`` int64 (ties to the lowest index), as :meth:`action_values`."""
        return np.argmax(self.action_values(obs, slots), axis=-1)


def make_int8_slots(n_slots: int, n_actions: int, network: str = "small"):
    """The int8 slot buffers for ``network``: :class:`Int8Slots` (small) or :class:`Int8NetworkSlots`."""
    if network == "small":
        return Int8Slots(n_slots, n_actions)
    return Int8NetworkSlots(n_slots, n_actions, network)


# --- int8 vs float agreement on real observations (nc2600 policy-int8 --agreement) -----------

def agreement(flat: np.ndarray, n_actions: int, calib_obs: np.ndarray, obs: np.ndarray,
              act_max: int = ACT_MAX) -> float:
    """Fraction of ``obs`` ``(B, 4, 84, 84)`` uint8 on which the int8 argmax equals the float
    network's (:func:`nc2600.host.episodes.policy.forward`, float32); ``flat`` is ``(n_params,)`` float32,
    ``calib_obs`` the observations the shifts are calibrated on."""
    from nc2600.host.episodes.policy import forward, unflatten
    want = np.argmax(forward(check_obs(obs), unflatten(np.asarray(flat)[None], n_actions)), axis=-1)
    return float((quantize(flat, n_actions, calib_obs, act_max).act(obs) == want).mean())


def agreement_table(games: list[str], seeds=(0, 1, 2, 3), n_obs: int = 300, act_max: int = ACT_MAX) -> str:
    """Per-game agreement of int8 and float argmax for networks ``init_params(seed)`` on real
    observations (random play, ALE seed 7; calibration: 32 observations of another run, seed 100).

    Raises:
        UserError: unknown game.
    """
    from nc2600.host.verify.ale_recordings import record_observations
    from nc2600.host.games import game_info
    from nc2600.host.episodes.policy import init_params
    rows = [f"int8 vs float argmax agreement, act_max {act_max}, {n_obs} observations per game, "
            f"networks init_params(seed) for seeds {list(seeds)}"]
    for game in games:
        n = len(game_info(game).minimal_actions)
        calib, obs = record_observations(game, 32, 100), record_observations(game, n_obs, 7)
        vals = [agreement(init_params(s, n), n, calib, obs, act_max) for s in seeds]
        rows.append(f"{game:>16} ({n:2d} actions): " + " ".join(f"{100 * v:6.2f}%" for v in vals)
                    + f"   mean {100 * np.mean(vals):6.2f}%  min {100 * min(vals):6.2f}%")
    return "\n".join(rows)
