"""Timing model of one worker node and its game instances.

A worker node is a Zynq-7045: two ARM Cortex-A9 cores (control: receive genomes, rebuild
weights, start episodes, return fitness), the programmable fabric holding
``instances_per_node`` instances (console + preprocessor + policy engine + action select)
and 1 GB of DRAM. One instance evaluates one episode at a time. The time an instance is
busy with one evaluation is::

    t_eval = (frames + ale_reset_frames) * t_frame          console emulation
           + steps * t_inference                             policy forward passes
           + t_weight_load   (when the individual changes)   ARM rebuilds weights, AXI load

with ``t_frame = colour_clocks_per_frame / colour_clocks / clock_hz`` (one colour clock
per fabric cycle in the published design, arXiv 2005.04536; three with the
three-colour-clock console, ``nc2600.hw.console.Console(colour_clocks=3)``, one CPU cycle per
clock) and ``t_inference = inference_cycles / clock_hz``.
``frames`` are the frames the launcher counted for the episode (frame skip and no-op starts
included); ``ale_reset_frames`` is ALE's reset sequence that nobody counts (ALE 0.12
``reset_game``: 60 NOOP frames, RESET held 4 frames, RESET held 4 frames again = 68 frames,
plus a game's own starting actions, which are ignored here).

How inference meets emulation (``inference_pipelined``):

* ``True`` (default, the published design: "preprocessing and inference are pipelined in
  the fabric"): the policy engine works on the last observation while the console goes on emulating the next frame-skip
  period, so the console only stalls when a forward pass is longer than a period:
  ``stall = max(0, inference_cycles - frame_skip * cycles_per_frame)`` cycles per decision
  (``cycles_per_frame = colour_clocks_per_frame / colour_clocks``). (The new action then takes effect one period later.)
* ``False``: Such et al.'s exact semantics, the console waits for every decision:
  ``stall = inference_cycles``.
"""
from __future__ import annotations

from dataclasses import dataclass

from nc2600.hls_models.platform import FRAME_SKIP, NTSC_COLOUR_CLOCKS_PER_FRAME  # 262 scanlines x 228 colour clocks

#: ALE 0.12 environment reset: 60 NOOP frames + 4 frames RESET + 4 frames RESET.
ALE_RESET_FRAMES = 60 + 4 + 4
#: Fixed cost of one forward pass of the fallback count, in cycles: per layer, filling the
#: pipeline and draining it (about 64 cycles x 4 layers) plus the argmax over the outputs.
FALLBACK_OVERHEAD_CYCLES = 4 * 64 + 32


def such_network_macs(n_actions: int) -> int:
    """Multiply-accumulates of one forward pass of the Such et al. (2017) network.

    Input 4 x 84 x 84; conv 16 8x8/4 -> 16 x 20 x 20; conv 32 4x4/2 -> 32 x 9 x 9;
    dense 2592 -> 256; dense 256 -> ``n_actions``. Biases and ReLUs not counted.
    For 18 actions: 1,638,400 + 663,552 + 663,552 + 4,608 = 2,970,112.
    """
    if n_actions <= 0:
        raise ValueError("n_actions must be positive")
    conv1 = 20 * 20 * 16 * (4 * 8 * 8)
    conv2 = 9 * 9 * 32 * (16 * 4 * 4)
    dense1 = 9 * 9 * 32 * 256
    dense2 = 256 * n_actions
    return conv1 + conv2 + dense1 + dense2


def such_network_params(n_actions: int) -> int:
    """Number of weights and biases of the Such et al. network (e.g. 679,906 for 18 actions)."""
    return (256 * 16 + 16) + (256 * 32 + 32) + (2592 * 256 + 256) + (256 * n_actions + n_actions)


def fallback_inference_cycles(n_actions: int, lanes: int) -> int:
    """Cycles of one forward pass when ``nc2600.hls_models.policy_int8`` is not available.

    ``ceil(MACs / lanes) + FALLBACK_OVERHEAD_CYCLES``: a policy engine with ``lanes``
    int8 multiply-accumulate units kept busy every cycle, plus a fixed per-pass overhead.
    """
    if lanes <= 0:
        raise ValueError("lanes must be positive")
    macs = such_network_macs(n_actions)
    return -(-macs // lanes) + FALLBACK_OVERHEAD_CYCLES


def inference_cycles(n_actions: int, lanes: int, network: str = "small") -> tuple[int, str]:
    """Cycles of one policy forward pass and where the figure came from.

    Uses ``nc2600.hls_models.policy_int8.inference_cycles(n_actions, lanes)`` (the policy engine's
    own cycle model) when that module exists, otherwise :func:`fallback_inference_cycles`.
    Returns ``(cycles, source)`` with ``source`` one of ``"nc2600.hls_models.policy_int8"`` or
    ``"fallback: ceil(MACs/lanes) + 288"``.
    """
    try:
        from nc2600.hls_models.policy_int8 import inference_cycles as model_cycles  # type: ignore
    except ImportError:
        if network != "small":
            raise ValueError(f"no cycle model for the {network} network without hls_models") from None
        return fallback_inference_cycles(n_actions, lanes), \
            f"fallback: ceil(MACs/lanes) + {FALLBACK_OVERHEAD_CYCLES}"
    if network != "small":
        return int(model_cycles(n_actions, lanes, network)), f"nc2600.hls_models.policy_int8 ({network} network)"
    return int(model_cycles(n_actions, lanes)), "nc2600.hls_models.policy_int8"


@dataclass(frozen=True)
class NodeParams:
    """Timing parameters of a worker node and its instances.

    ``clock_hz``                 fabric clock (published: 150 MHz)
    ``colour_clocks_per_frame``  59,736 (NTSC 262 x 228) unless a per-game figure is given
    ``colour_clocks``  the console's colour clocks per fabric clock: 1 (published) or 3
    ``inference_cycles``         cycles of one forward pass (see :func:`inference_cycles`)
    ``ale_reset_frames``         uncounted frames of a reset (ALE's sequence, 68)
    ``weight_load_s``            seconds to rebuild and load one individual's weights: the ARM
                                 adds the genome's last mutation to a cached parent (about
                                 1 ns per parameter with NEON) and the 680 kB of int8 weights
                                 cross the AXI HP port (about 1.2 GB/s): ~1.25 ms by default
    ``frame_skip``               frames per policy decision (Such et al.: 4)
    ``inference_pipelined``      see the module doc (default True, the published design)
    """

    clock_hz: float = 150e6
    colour_clocks_per_frame: int = NTSC_COLOUR_CLOCKS_PER_FRAME
    inference_cycles: int = fallback_inference_cycles(18, 16)
    ale_reset_frames: int = ALE_RESET_FRAMES
    weight_load_s: float = such_network_params(18) * (1e-9 + 1 / 1.2e9)
    frame_skip: int = FRAME_SKIP
    inference_pipelined: bool = True
    colour_clocks: int = 1

    def __post_init__(self):
        if self.colour_clocks not in (1, 3):
            raise ValueError(f"colour clocks per cycle must be 1 or 3, got {self.colour_clocks}")

    @property
    def cycles_per_frame(self) -> float:
        """Fabric clocks per emulated frame."""
        return self.colour_clocks_per_frame / self.colour_clocks

    @property
    def frame_s(self) -> float:
        """Seconds per emulated frame."""
        return self.cycles_per_frame / self.clock_hz

    @property
    def inference_stall_cycles(self) -> int:
        """Cycles per policy decision that the console waits for the policy engine."""
        if self.inference_pipelined:
            return max(0, int(self.inference_cycles - self.frame_skip * self.cycles_per_frame))
        return self.inference_cycles

    @property
    def inference_s(self) -> float:
        """Seconds per policy decision that the console waits."""
        return self.inference_stall_cycles / self.clock_hz

    @property
    def instance_fps(self) -> float:
        """Frames/s of one instance doing nothing but emulation (the ceiling's unit)."""
        return self.clock_hz / self.cycles_per_frame

    def eval_parts(self, frames: int, steps: int, new_individual: bool) -> tuple[float, float, float, float]:
        """Busy seconds of one evaluation split as ``(emulation, reset, inference, weights)``.

        ``emulation`` covers the counted ``frames``; ``reset`` the uncounted ALE reset.
        """
        return (frames * self.frame_s, self.ale_reset_frames * self.frame_s,
                steps * self.inference_s, self.weight_load_s if new_individual else 0.0)
