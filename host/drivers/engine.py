"""The inference engine of a fabric instance as the host driver sees it (:class:`EngineConfig`):
its parameter-load format and how the instance steps ``PARAM_ADDR`` through it.

Which engine an instance has is a build parameter of the design (:class:`nc2600.hw.instance.GameInstance`
``engine="array"``, the default, or ``"lane"``), not a register; the driver
(:class:`nc2600.host.drivers.instance.InstanceDriver`) takes it from the MMIO object's ``engine``, ``lanes``,
``rows`` and ``cols`` attributes or as given, and an MMIO object without them (``pynq.MMIO`` on a
board) is taken to be the default design's (:data:`nc2600.hls_models.engines.DEFAULT_ENGINE`, 16 x 16,
the instance's default). The engine kinds, their defaults and the dispatch to each engine's model
are :mod:`nc2600.hls_models.engines`'s.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nc2600.hls_models import engines
from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ENGINE, DEFAULT_LANES, DEFAULT_ROWS
from nc2600.hls_models.registers import ENUMS

ParamSpace = ENUMS["param_space_e"]        #: PARAM_ADDR.space's encodings


@dataclass(frozen=True)
class EngineConfig:
    """The inference engine an instance was built with: ``kind`` ``"array"`` (``rows x cols`` MACs,
    :mod:`nc2600.hls_models.policy_array`) or ``"lane"`` (``lanes`` MAC lanes,
    :mod:`nc2600.hls_models.policy_engine`); the defaults are the instance's
    (:data:`nc2600.hls_models.engines.DEFAULT_ENGINE`, 16 x 16)."""
    kind: str = DEFAULT_ENGINE
    lanes: int = DEFAULT_LANES
    rows: int = DEFAULT_ROWS
    cols: int = DEFAULT_COLS

    @classmethod
    def of(cls, mmio) -> "EngineConfig":
        """The engine an MMIO object declares (attributes ``engine``, ``lanes``, ``rows``,
        ``cols``; each absent one the default's)."""
        d = cls()
        return cls(getattr(mmio, "engine", d.kind), getattr(mmio, "lanes", d.lanes), getattr(mmio, "rows", d.rows),
                   getattr(mmio, "cols", d.cols))

    def load_words(self, policy) -> np.ndarray:
        """The engine's parameter-load sequence ``(W, 4)`` ``(space, row, lane, data)`` of an int8
        policy (:func:`nc2600.hls_models.engines.load_words`)."""
        return engines.load_words(self.kind, policy, self.lanes, self.rows, self.cols)

    def param_step(self) -> tuple[dict, dict]:
        """How the instance steps ``PARAM_ADDR.lane`` after a ``PARAM_DATA`` write, per space
        (weights, biases, configuration): ``({space: lane step}, {space: lanes per row})``, the
        engine model's rule through :func:`nc2600.hls_models.engines.param_step`, the function the
        instance's RTL is built from; past a row's last lane the next row's lane 0."""
        return engines.param_step(self.kind, self.lanes, self.rows, self.cols)

    def inference_cycles(self, n_actions: int) -> int:
        """The model's cycles from the engine's start to the chosen action
        (:func:`nc2600.hls_models.engines.inference_cycles`)."""
        return engines.inference_cycles(self.kind, n_actions, self.lanes, self.rows, self.cols)
