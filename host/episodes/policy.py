"""The Such et al. (2017) Atari policy network, float32, batched over individuals.

Architecture (Such et al. 2017, Sec. 4, the released configuration; Mnih et al. 2013 sizes):
input ``(4, 84, 84)`` uint8 scaled by 1/255 -> conv 16 filters 8x8 stride 4 (-> 20x20) -> ReLU
-> conv 32 filters 4x4 stride 2 (-> 9x9) -> ReLU -> dense 256 -> ReLU -> dense ``|A|``
(action values). Action = argmax, ties to the lowest index (numpy's rule).

Parameter layout (one flat float32 vector per individual, in this order; the int8 model in
``hls_models`` and the RTL engine use the same layout):

====  =====================  ==============================================================
name  shape                  meaning
====  =====================  ==============================================================
w1    (256, 16)              conv1 weights; rows ordered (in_channel, kh, kw) = (4, 8, 8)
b1    (16,)                  conv1 bias
w2    (256, 32)              conv2 weights; rows ordered (in_channel, kh, kw) = (16, 4, 4)
b2    (32,)                  conv2 bias
w3    (2592, 256)            dense1 weights; rows ordered (y, x, channel) = (9, 9, 32)
b3    (256,)
w4    (256, A)               dense2 weights
b4    (A,)
====  =====================  ==============================================================

Activations are kept channel-last (y, x, channel) between layers.

Batching: :func:`forward` evaluates ``S`` observations, each with its own parameters, in one
call per layer (``np.matmul`` over a stack of per-slot matrices). Each slot's arithmetic has
the same shapes whatever ``S`` is, so a slot's action values do not depend on the batch it
was computed in (checked by a test against :func:`forward_reference`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

OBS_SHAPE = (4, 84, 84)


def layer_shapes(n_actions: int) -> list[tuple[str, tuple[int, ...]]]:
    """``[(name, shape), ...]`` of the parameter tensors in flat-vector order."""
    if n_actions <= 0:
        raise ValueError(f"n_actions must be positive, got {n_actions}")
    return [("w1", (256, 16)), ("b1", (16,)), ("w2", (256, 32)), ("b2", (32,)),
            ("w3", (2592, 256)), ("b3", (256,)), ("w4", (256, n_actions)), ("b4", (n_actions,))]


def n_params(n_actions: int) -> int:
    """Number of float parameters of the network for ``n_actions`` outputs."""
    return sum(int(np.prod(s)) for _, s in layer_shapes(n_actions))


def unflatten(flat: np.ndarray, n_actions: int) -> dict[str, np.ndarray]:
    """Views of ``flat`` (shape ``(..., n_params)``) as named tensors ``(..., *shape)``."""
    out, pos = {}, 0
    lead = flat.shape[:-1]
    for name, shape in layer_shapes(n_actions):
        size = int(np.prod(shape))
        out[name] = flat[..., pos:pos + size].reshape(*lead, *shape)
        pos += size
    if pos != flat.shape[-1]:
        raise ValueError(f"parameter vector has {flat.shape[-1]} entries, expected {pos}")
    return out


def init_params(seed: int, n_actions: int) -> np.ndarray:
    """Initial parameters theta_0 = phi(seed): LeCun normal weights (std 1/sqrt(fan_in)), zero biases.

    Args:
        seed: non-negative integer; the same seed always gives the same vector.
    Returns:
        ``(n_params(n_actions),)`` float32.
    """
    rng = np.random.default_rng([int(seed), 0x1717])
    parts = []
    for name, shape in layer_shapes(n_actions):
        if name.startswith("w"):
            parts.append((rng.standard_normal(shape, dtype=np.float32) / np.float32(np.sqrt(shape[0]))).ravel())
        else:
            parts.append(np.zeros(shape, np.float32).ravel())
    return np.concatenate(parts)


def _conv1_patches(obs: np.ndarray) -> np.ndarray:
    """``(S, 4, 84, 84)`` uint8 -> ``(S, 400, 256)`` float32 patches, rows (c, kh, kw)."""
    x = obs.astype(np.float32) * np.float32(1.0 / 255.0)
    win = sliding_window_view(x, (8, 8), axis=(2, 3))[:, :, ::4, ::4]      # S,4,20,20,8,8
    return np.ascontiguousarray(win.transpose(0, 2, 3, 1, 4, 5)).reshape(obs.shape[0], 400, 256)


def _conv2_patches(h1: np.ndarray) -> np.ndarray:
    """``(S, 20, 20, 16)`` -> ``(S, 81, 256)`` patches, rows (c, kh, kw)."""
    win = sliding_window_view(h1, (4, 4), axis=(1, 2))[:, ::2, ::2]        # S,9,9,16,4,4
    return np.ascontiguousarray(win).reshape(h1.shape[0], 81, 256)


def forward(obs: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
    """Action values for ``S`` observations, each with its own parameters.

    Args:
        obs: ``(S, 4, 84, 84)`` uint8 stacked observations.
        params: named tensors with a leading ``S`` axis (see :func:`unflatten`).
    Returns:
        ``(S, A)`` float32 action values.
    """
    s = obs.shape[0]
    h = np.matmul(_conv1_patches(obs), params["w1"]) + params["b1"][:, None, :]
    np.maximum(h, 0, out=h)
    h = np.matmul(_conv2_patches(h.reshape(s, 20, 20, 16)), params["w2"]) + params["b2"][:, None, :]
    np.maximum(h, 0, out=h)
    h = np.matmul(h.reshape(s, 1, 2592), params["w3"]) + params["b3"][:, None, :]
    np.maximum(h, 0, out=h)
    q = np.matmul(h, params["w4"]) + params["b4"][:, None, :]
    return q[:, 0, :]


def forward_reference(obs: np.ndarray, flat: np.ndarray, n_actions: int) -> np.ndarray:
    """Straightforward single-observation network (explicit convolution loops), float64.

    Independent of :func:`forward`'s im2col and batching; used by tests.
    Args: obs ``(4, 84, 84)`` uint8, flat ``(n_params,)``. Returns ``(A,)`` float64.
    """
    p = {k: v.astype(np.float64) for k, v in unflatten(flat, n_actions).items()}
    x = obs.astype(np.float64) / 255.0
    k1 = p["w1"].reshape(4, 8, 8, 16)
    h1 = np.zeros((20, 20, 16))
    for y in range(20):
        for xx in range(20):
            h1[y, xx] = np.einsum("chw,chwo->o", x[:, 4 * y:4 * y + 8, 4 * xx:4 * xx + 8], k1)
    h1 = np.maximum(h1 + p["b1"], 0)
    k2 = p["w2"].reshape(16, 4, 4, 32)
    h2 = np.zeros((9, 9, 32))
    for y in range(9):
        for xx in range(9):
            h2[y, xx] = np.einsum("hwc,chwo->o", h1[2 * y:2 * y + 4, 2 * xx:2 * xx + 4, :], k2)
    h2 = np.maximum(h2 + p["b2"], 0)
    h3 = np.maximum(h2.reshape(2592) @ p["w3"] + p["b3"], 0)
    return h3 @ p["w4"] + p["b4"]


def select_actions(q: np.ndarray) -> np.ndarray:
    """Greedy action indices ``(S,)`` int64 from ``(S, A)`` values; ties to the lowest index."""
    return np.argmax(q, axis=-1)


def space_to_depth_weights(params: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Convolution weights rearranged for :func:`forward_s2d`.

    conv1 (8x8 stride 4) is a 2x2 convolution over 4x4 pixel blocks: ``w1s`` has shape
    ``(..., 64, 64)``, rows (in_channel, dy, dx) of a block, columns (by, bx, out_channel),
    scaled by 1/255 (the input scaling). conv2 (4x4 stride 2) likewise over 2x2 blocks:
    ``w2s`` ``(..., 64, 128)``, rows (dy, dx, in_channel), columns (by, bx, out_channel).
    """
    w1, w2 = params["w1"], params["w2"]
    lead = w1.shape[:-2]
    n = len(lead)
    a = w1.reshape(*lead, 4, 2, 4, 2, 4, 16)                   # c, by, dy, bx, dx, o
    w1s = a.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3, n + 5).reshape(*lead, 64, 64)
    b = w2.reshape(*lead, 16, 2, 2, 2, 2, 32)                   # c, by, dy, bx, dx, o
    w2s = b.transpose(*range(n), n + 2, n + 4, n, n + 1, n + 3, n + 5).reshape(*lead, 64, 128)
    return (w1s * np.float32(1.0 / 255.0)).astype(np.float32), np.ascontiguousarray(w2s, np.float32)


def conv1_blocks(obs: np.ndarray) -> np.ndarray:
    """Space to depth: ``(S, 4, 84, 84)`` uint8 -> ``(S, 441, 64)`` uint8 blocks, rows (by, bx),
    columns (in_channel, dy, dx). The four pixels ``dx = 0..3`` of a block row are moved as one
    32-bit word (a quarter of the element copies of a byte-wise transpose)."""
    n = obs.shape[0]
    words = np.ascontiguousarray(obs).view(np.uint32).reshape(n, 4, 21, 4, 21)   # S, c, by, dy, bx
    return np.ascontiguousarray(words.transpose(0, 2, 4, 1, 3)).view(np.uint8).reshape(n, 441, 64)


def forward_s2d(obs: np.ndarray, params: dict[str, np.ndarray], w1s: np.ndarray, w2s: np.ndarray) -> np.ndarray:
    """:func:`forward` computed by space-to-depth (no im2col copy); same network, float32.

    Each convolution is one matmul over the block grid producing the four block-offset
    partial sums, then three shifted additions. Results equal :func:`forward` up to float32
    rounding order (checked by a test); per-slot shapes are independent of ``S``.
    """
    s = obs.shape[0]
    blocks = conv1_blocks(obs).astype(np.float32)
    p = np.matmul(blocks, w1s).reshape(s, 21, 21, 2, 2, 16)
    h = p[:, :20, :20, 0, 0] + p[:, :20, 1:, 0, 1]
    h += p[:, 1:, :20, 1, 0]
    h += p[:, 1:, 1:, 1, 1]
    h += params["b1"][:, None, None, :]
    np.maximum(h, 0, out=h)                                                 # S,20,20,16
    blocks = h.reshape(s, 10, 2, 10, 2, 16).transpose(0, 1, 3, 2, 4, 5).reshape(s, 100, 64)
    p = np.matmul(blocks, w2s).reshape(s, 10, 10, 2, 2, 32)
    h = p[:, :9, :9, 0, 0] + p[:, :9, 1:, 0, 1]
    h += p[:, 1:, :9, 1, 0]
    h += p[:, 1:, 1:, 1, 1]
    h += params["b2"][:, None, None, :]
    np.maximum(h, 0, out=h)                                                 # S,9,9,32
    h = np.matmul(h.reshape(s, 1, 2592), params["w3"]) + params["b3"][:, None, :]
    np.maximum(h, 0, out=h)
    q = np.matmul(h, params["w4"]) + params["b4"][:, None, :]
    return q[:, 0, :]


@dataclass
class SlotWeights:
    """Per-slot parameter buffers for a block of ``S`` emulator slots.

    Weights are copied into a slot when it starts an episode (once per episode, not per
    step), so that :meth:`act` is one batched call per layer with no gather; the
    convolution weights are kept in :func:`forward_s2d`'s arrangement.
    """
    n_slots: int
    n_actions: int

    def __post_init__(self):
        self.flat = np.zeros((self.n_slots, n_params(self.n_actions)), np.float32)
        self.params = unflatten(self.flat, self.n_actions)
        self.w1s = np.zeros((self.n_slots, 64, 64), np.float32)
        self.w2s = np.zeros((self.n_slots, 64, 128), np.float32)

    def load(self, slot: int, flat: np.ndarray) -> None:
        """Copy one individual's ``(n_params,)`` float32 vector into ``slot``."""
        self.flat[slot] = flat
        one = unflatten(self.flat[slot], self.n_actions)
        self.w1s[slot], self.w2s[slot] = space_to_depth_weights(one)

    def q_values(self, obs: np.ndarray, slots: np.ndarray | None = None) -> np.ndarray:
        """``(S, A)`` float32 action values for ``obs`` ``(S, 4, 84, 84)`` (or the subset ``slots``;
        a slice selects views, no copy)."""
        if slots is None:
            return forward_s2d(obs, self.params, self.w1s, self.w2s)
        sub = {k: v[slots] for k, v in self.params.items()}
        return forward_s2d(obs[slots], sub, self.w1s[slots], self.w2s[slots])

    def act(self, obs: np.ndarray, slots: np.ndarray | None = None) -> np.ndarray:
        """Greedy actions ``(S,)`` for ``obs`` (or the subset ``slots``); ties to the lowest index."""
        return select_actions(self.q_values(obs, slots))


# ---------------------------------------------------------------------------------------------
# Any network of nc2600.hls_models.networks (``--network``), batched over slots
# ---------------------------------------------------------------------------------------------

def init_network_params(seed: int, n_actions: int, network: str = "small") -> np.ndarray:
    """Initial parameters of ``network`` (:mod:`nc2600.hls_models.networks`): LeCun normal weights
    (std ``1/sqrt(K)``), zero biases, drawn as :func:`init_params` does (``small`` gives exactly
    :func:`init_params`). Returns ``(n_params,)`` float32."""
    from nc2600.hls_models.networks import layer_shapes as net_shapes
    rng = np.random.default_rng([int(seed), 0x1717])
    parts = []
    for name, shape in net_shapes(network, n_actions):
        if name.startswith("w"):
            parts.append((rng.standard_normal(shape, dtype=np.float32) / np.float32(np.sqrt(shape[0]))).ravel())
        else:
            parts.append(np.zeros(shape, np.float32).ravel())
    return np.concatenate(parts)


def conv_patches(x: np.ndarray, kernel: int, stride: int) -> np.ndarray:
    """im2col: ``(S, H, W, C)`` channel-last -> ``(S, OH*OW, C*k*k)``, rows (c, kh, kw)."""
    win = sliding_window_view(x, (kernel, kernel), axis=(1, 2))[:, ::stride, ::stride]   # S,OH,OW,C,k,k
    s, oh, ow = win.shape[:3]
    return np.ascontiguousarray(win).reshape(s, oh * ow, -1)


def forward_network(obs: np.ndarray, params: dict[str, np.ndarray], network: str, n_actions: int) -> np.ndarray:
    """Float32 action values ``(S, A)`` of ``network`` for ``obs`` ``(S, 4, 84, 84)`` uint8, each
    slot with its own parameters (named tensors with a leading ``S`` axis). One batched matmul per
    layer (im2col for convolutions); per-slot shapes do not depend on ``S``."""
    from nc2600.hls_models.networks import geometry
    s = obs.shape[0]
    h = obs.transpose(0, 2, 3, 1).astype(np.float32) * np.float32(1.0 / 255.0)     # S,84,84,4
    geo = geometry(network, n_actions)
    for i, g in enumerate(geo, start=1):
        x = conv_patches(h, g.kernel, g.stride) if g.kind == "conv" else h.reshape(s, 1, g.k)
        h = np.matmul(x, params[f"w{i}"]) + params[f"b{i}"][:, None, :]
        if i == len(geo):
            return h[:, 0, :]
        np.maximum(h, 0, out=h)
        h = h.reshape(s, g.out_h, g.out_w, g.n)
    raise AssertionError("unreachable")  # pragma: no cover


def forward_network_reference(obs: np.ndarray, flat: np.ndarray, network: str, n_actions: int) -> np.ndarray:
    """One observation through ``network`` with explicit convolution loops in float64
    (independent of :func:`forward_network`'s im2col and batching; for tests). ``(A,)``."""
    from nc2600.hls_models.networks import geometry, unflatten as net_unflatten
    p = {k: v.astype(np.float64) for k, v in net_unflatten(flat, network, n_actions).items()}
    a = obs.astype(np.float64).transpose(1, 2, 0) / 255.0          # H, W, C
    geo = geometry(network, n_actions)
    for i, g in enumerate(geo, start=1):
        w, b = p[f"w{i}"], p[f"b{i}"]
        if g.kind == "conv":
            k = w.reshape(g.in_c, g.kernel, g.kernel, g.n)
            out = np.zeros((g.out_h, g.out_w, g.n))
            for y in range(g.out_h):
                for x in range(g.out_w):
                    win = a[g.stride * y:g.stride * y + g.kernel, g.stride * x:g.stride * x + g.kernel, :]
                    out[y, x] = np.einsum("hwc,chwo->o", win, k)
            a = out + b
        else:
            a = a.reshape(-1) @ w + b
        if i < len(geo):
            a = np.maximum(a, 0)
    return a


class NetworkSlotWeights:
    """Per-slot float32 parameters of any ``network`` for a block of ``S`` slots (the interface of
    :class:`SlotWeights`, which stays the small network's faster space-to-depth path)."""

    def __init__(self, n_slots: int, n_actions: int, network: str = "nature"):
        from nc2600.hls_models.networks import n_params as net_n_params, unflatten as net_unflatten
        self.n_slots, self.n_actions, self.network = int(n_slots), int(n_actions), network
        self.flat = np.zeros((self.n_slots, net_n_params(network, self.n_actions)), np.float32)
        self.params = net_unflatten(self.flat, network, self.n_actions)

    def load(self, slot: int, flat: np.ndarray) -> None:
        """Copy one individual's ``(n_params,)`` float32 vector into ``slot``."""
        self.flat[slot] = flat

    def q_values(self, obs: np.ndarray, slots: slice | np.ndarray | None = None) -> np.ndarray:
        """``(S', A)`` float32 action values for ``obs (S, 4, 84, 84)`` (or the subset ``slots``;
        a slice selects views, no copy)."""
        if slots is None:
            return forward_network(obs, self.params, self.network, self.n_actions)
        sub = {k: v[slots] for k, v in self.params.items()}
        return forward_network(obs[slots], sub, self.network, self.n_actions)

    def act(self, obs: np.ndarray, slots: slice | np.ndarray | None = None) -> np.ndarray:
        """Greedy actions ``(S',)`` (ties to the lowest index)."""
        return select_actions(self.q_values(obs, slots))


def make_slot_weights(n_slots: int, n_actions: int, network: str = "small"):
    """The float32 slot buffers for ``network``: :class:`SlotWeights` (small) or
    :class:`NetworkSlotWeights`."""
    if network == "small":
        return SlotWeights(n_slots, n_actions)
    return NetworkSlotWeights(n_slots, n_actions, network)
