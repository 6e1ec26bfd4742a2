"""The policy networks as data: layer geometry and flat parameter layout (``--network``).

Two networks share one description and one layout convention (a spec; the float network, the
int8 model, their batched host paths and the cycle/resource model all read it):

``small`` (default; Such et al. 2017's released configuration, Mnih et al. 2013 sizes)
    conv 16 8x8/4 -> conv 32 4x4/2 -> dense 256 -> dense |A|; 680,770 parameters for 18 actions,
    2.97 M multiply-accumulates per decision.
``nature`` (Mnih et al. 2015, "Human-level control through deep reinforcement learning", the
    "Nature DQN"; Such et al. 2017 evolved it too)
    conv 32 8x8/4 -> conv 64 4x4/2 -> conv 64 3x3/1 -> dense 512 -> dense |A|;
    1,693,362 parameters for 18 actions (the "over four million" of Such et al. and Uber's post
    is not this network's count by its shapes), 9.35 M multiply-accumulates per decision.

Every layer but the last is followed by ReLU; the action is the argmax of the last layer (ties
to the lowest index). Input: the ``(4, 84, 84)`` uint8 observation stack, scaled by 1/255 in the
float network. Spatial sizes: 84 -> 20 (8x8/4) -> 9 (4x4/2) -> 7 (3x3/1).

Flat layout: one float32 vector per individual holding, layer after layer, the weights
``w<l>`` with shape ``(K, N)`` (``K`` inputs per output, ``N`` outputs) and the bias ``b<l>``
``(N,)``. Convolution weight rows are ordered (in_channel, kh, kw); activations are kept
channel-last ``(y, x, channel)`` between layers, so the first dense layer's rows are ordered
(y, x, channel). For ``nature``:

====  ===========  =====================================================================
name  shape        meaning
====  ===========  =====================================================================
w1    (256, 32)    conv1; rows (in_channel, kh, kw) = (4, 8, 8)
b1    (32,)
w2    (512, 64)    conv2; rows (in_channel, kh, kw) = (32, 4, 4)
b2    (64,)
w3    (576, 64)    conv3; rows (in_channel, kh, kw) = (64, 3, 3)
b3    (64,)
w4    (3136, 512)  dense1; rows (y, x, channel) = (7, 7, 64)
b4    (512,)
w5    (512, A)     dense2 (action values)
b5    (A,)
====  ===========  =====================================================================

(``small`` is the same scheme with three fewer tensors; its table is in
:mod:`nc2600.host.episodes.policy`.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OBS_SHAPE = (4, 84, 84)       #: observation: 4 stacked 84x84 grey frames, oldest first


@dataclass(frozen=True)
class Layer:
    """One layer: ``kind`` "conv" (``kernel`` x ``kernel``, ``stride``) or "dense"; ``out`` outputs
    per position (0 for the action layer: ``|A|``)."""
    kind: str
    out: int
    kernel: int = 0
    stride: int = 0


NETWORKS: dict[str, tuple[Layer, ...]] = {
    "small": (Layer("conv", 16, 8, 4), Layer("conv", 32, 4, 2), Layer("dense", 256), Layer("dense", 0)),
    "nature": (Layer("conv", 32, 8, 4), Layer("conv", 64, 4, 2), Layer("conv", 64, 3, 1),
               Layer("dense", 512), Layer("dense", 0)),
}


def check_network(network: str) -> tuple[Layer, ...]:
    """The layers of ``network``; raises ValueError naming the choices."""
    try:
        return NETWORKS[network]
    except (KeyError, TypeError):
        raise ValueError(f"unknown network {network!r} (choices: {', '.join(NETWORKS)})") from None


@dataclass(frozen=True)
class LayerGeometry:
    """A layer's shapes: input ``(in_h, in_w, in_c)`` (channel-last; the observation counts as
    ``(84, 84, 4)``), output positions ``P = out_h * out_w``, outputs ``N`` and inputs ``K`` per
    output (``w`` is ``(K, N)``)."""
    name: str
    kind: str
    in_h: int
    in_w: int
    in_c: int
    out_h: int
    out_w: int
    n: int
    k: int
    kernel: int
    stride: int

    @property
    def positions(self) -> int:
        return self.out_h * self.out_w


def geometry(network: str, n_actions: int) -> list[LayerGeometry]:
    """Per-layer shapes of ``network`` with ``n_actions`` outputs (module doc).

    Raises:
        ValueError: unknown network, ``n_actions < 1``.
    """
    layers = check_network(network)
    if not isinstance(n_actions, (int, np.integer)) or n_actions < 1:
        raise ValueError(f"n_actions must be a positive integer, got {n_actions!r}")
    h, w, c = OBS_SHAPE[1], OBS_SHAPE[2], OBS_SHAPE[0]
    out, conv_i, dense_i = [], 0, 0
    for layer in layers:
        n = layer.out or int(n_actions)
        if layer.kind == "conv":
            conv_i += 1
            oh, ow = (h - layer.kernel) // layer.stride + 1, (w - layer.kernel) // layer.stride + 1
            out.append(LayerGeometry(f"conv{conv_i}", "conv", h, w, c, oh, ow, n, c * layer.kernel ** 2,
                                     layer.kernel, layer.stride))
            h, w, c = oh, ow, n
        else:
            dense_i += 1
            out.append(LayerGeometry(f"dense{dense_i}", "dense", h, w, c, 1, 1, n, h * w * c, 0, 0))
            h, w, c = 1, 1, n
    return out


def layer_shapes(network: str, n_actions: int) -> list[tuple[str, tuple[int, ...]]]:
    """``[(name, shape), ...]`` of the parameter tensors in flat-vector order."""
    shapes = []
    for i, g in enumerate(geometry(network, n_actions), start=1):
        shapes += [(f"w{i}", (g.k, g.n)), (f"b{i}", (g.n,))]
    return shapes


def n_params(network: str, n_actions: int) -> int:
    """Number of float parameters (e.g. small 18 actions: 674,562; nature 18 actions: 1,693,362)."""
    return sum(int(np.prod(s)) for _, s in layer_shapes(network, n_actions))


def unflatten(flat: np.ndarray, network: str, n_actions: int) -> dict[str, np.ndarray]:
    """Views of ``flat`` (shape ``(..., n_params)``) as named tensors ``(..., *shape)``.

    Raises:
        ValueError: wrong length.
    """
    out, pos = {}, 0
    lead = flat.shape[:-1]
    for name, shape in layer_shapes(network, n_actions):
        size = int(np.prod(shape))
        out[name] = flat[..., pos:pos + size].reshape(*lead, *shape)
        pos += size
    if pos != flat.shape[-1]:
        raise ValueError(f"parameter vector has {flat.shape[-1]} entries, the {network} network with "
                         f"{n_actions} actions has {pos}")
    return out


def mac_count(network: str, n_actions: int) -> int:
    """Multiply-accumulates of one forward pass: ``sum P * N * K``."""
    return sum(g.positions * g.n * g.k for g in geometry(network, n_actions))
