"""The inference engine of a fabric instance as the host driver sees it (:class:`EngineConfig`):
its parameter-load format and how the instance steps ``PARAM_ADDR`` through it.

Which engine an instance has is a build parameter of the design (:class:`hw.instance.GameInstance`
``engine="array"``, the default, or ``"lane"``), not a register; the driver
(:class:`host.drivers.fabric.FabricDriver`) takes it from the MMIO object's ``engine``, ``lanes``,
``rows`` and ``cols`` attributes or as given, and an MMIO object without them (``pynq.MMIO`` on a
board) is taken to be the default design's (:data:`hw.instance.DEFAULT_ENGINE`, 16 x 16).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hls_models.registers import ENUMS

ENGINE_LANES = 16                          #: MAC lanes of the lane engine (hw.instance.DEFAULT_LANES)
ParamSpace = ENUMS["param_space_e"]        #: PARAM_ADDR.space's encodings


@dataclass(frozen=True)
class EngineConfig:
    """The inference engine an instance was built with: ``kind`` ``"array"`` (``rows x cols`` MACs,
    :mod:`hls_models.policy_array`; the default, as :data:`hw.instance.DEFAULT_ENGINE`) or
    ``"lane"`` (``lanes`` MAC lanes, :mod:`hls_models.policy_engine`)."""
    kind: str = "array"
    lanes: int = ENGINE_LANES
    rows: int = 16
    cols: int = 16

    @classmethod
    def of(cls, mmio) -> "EngineConfig":
        """The engine an MMIO object declares (attributes ``engine``, ``lanes``, ``rows``,
        ``cols``; each absent one the default's)."""
        d = cls()
        return cls(getattr(mmio, "engine", d.kind), getattr(mmio, "lanes", d.lanes), getattr(mmio, "rows", d.rows),
                   getattr(mmio, "cols", d.cols))

    def load_words(self, policy) -> np.ndarray:
        """The engine's parameter-load sequence ``(W, 4)`` ``(space, row, lane, data)`` of an int8 policy."""
        if self.kind == "lane":
            from hls_models.policy_engine import load_words
            return load_words(policy, self.lanes)
        from hls_models.policy_array import load_words
        return load_words(policy, self.rows, self.cols)

    def param_step(self) -> tuple[dict, dict]:
        """How the instance steps ``PARAM_ADDR.lane`` after a ``PARAM_DATA`` write, per space
        (weights, biases, configuration): ``({space: lane step}, {space: lanes per row})``, the
        engine model's rule (:func:`hls_models.policy_engine.param_step`,
        :func:`hls_models.policy_array.param_step`; the instance's RTL is built from the same
        functions); past a row's last lane the next row's lane 0."""
        if self.kind == "lane":
            from hls_models.policy_engine import param_step
            return param_step(self.lanes)
        from hls_models.policy_array import param_step
        return param_step(self.rows, self.cols)

    def inference_cycles(self, n_actions: int) -> int:
        """The model's cycles from the engine's start to the chosen action."""
        if self.kind == "lane":
            from hls_models.policy_engine import inference_cycles
            return inference_cycles(n_actions, self.lanes)
        from hls_models.policy_array import inference_cycles
        return inference_cycles(n_actions, self.rows, self.cols)
