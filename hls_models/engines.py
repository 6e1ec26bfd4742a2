"""The inference engines an instance may be built with, and the one dispatch by engine kind to
their models' rules.

Two engines, both int8 and bit-exact with :mod:`nc2600.hls_models.policy_int8`:

``"array"`` (the default)
    ``rows x cols`` multiply-accumulators (:mod:`nc2600.hls_models.policy_array`; 16 x 16 by default).
``"lane"``
    ``lanes`` MAC lanes (:mod:`nc2600.hls_models.policy_engine`; 16 by default).

The defaults here are the instance's (:class:`nc2600.hw.instance.GameInstance`, ``rtl/instance_cc3.v``) and
the host driver's (:class:`nc2600.host.drivers.engine.EngineConfig`), which take them from this module.
Each function takes the engine's kind and all three size arguments and uses those of its kind
(``lanes`` for the lane engine, ``rows`` and ``cols`` for the array engine).
"""
from __future__ import annotations

import numpy as np

ENGINES = ("lane", "array")     #: the engine kinds
DEFAULT_ENGINE = "array"        #: the engine of the default instance
DEFAULT_ROWS = DEFAULT_COLS = 16   #: the array engine's default shape (``rows x cols`` MACs)
DEFAULT_LANES = 16              #: the lane engine's default MAC lanes


def check_engine(kind: str) -> str:
    """``kind`` if it is one of :data:`ENGINES`.

    Raises:
        ValueError: another value.
    """
    if kind not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {kind!r}")
    return kind


def param_step(kind: str, lanes: int = DEFAULT_LANES, rows: int = DEFAULT_ROWS,
               cols: int = DEFAULT_COLS) -> tuple[dict[int, int], dict[int, int]]:
    """How the instance steps ``PARAM_ADDR.lane`` after a ``PARAM_DATA`` write, per parameter space
    (weights, biases, configuration): ``({space: lane step}, {space: lanes per row})``; past a
    row's last lane the address goes to lane 0 of the next row. The rule is the engine model's,
    beside its load format: :func:`nc2600.hls_models.policy_engine.param_step` (``lanes``) or
    :func:`nc2600.hls_models.policy_array.param_step` (``rows x cols``).

    Raises:
        ValueError: ``kind`` not in :data:`ENGINES`, or a size the engine's model refuses.
    """
    if check_engine(kind) == "lane":
        from nc2600.hls_models.policy_engine import param_step as rule
        return rule(lanes)
    from nc2600.hls_models.policy_array import param_step as rule
    return rule(rows, cols)


def load_words(kind: str, qp, lanes: int = DEFAULT_LANES, rows: int = DEFAULT_ROWS,
               cols: int = DEFAULT_COLS) -> np.ndarray:
    """The engine's parameter-load sequence of the int8 policy ``qp``: int64 ``(W, 4)`` rows
    ``(space, row, lane, data)`` (:func:`nc2600.hls_models.policy_engine.load_words` or
    :func:`nc2600.hls_models.policy_array.load_words`).

    Raises:
        ValueError: ``kind`` not in :data:`ENGINES`, or a size or policy the engine's model refuses.
    """
    if check_engine(kind) == "lane":
        from nc2600.hls_models.policy_engine import load_words as words
        return words(qp, lanes)
    from nc2600.hls_models.policy_array import load_words as words
    return words(qp, rows, cols)


def inference_cycles(kind: str, n_actions: int, lanes: int = DEFAULT_LANES, rows: int = DEFAULT_ROWS,
                     cols: int = DEFAULT_COLS, network: str = "small") -> int:
    """The model's cycles from the engine's start to the chosen action for ``n_actions`` actions of
    ``network`` (:data:`nc2600.hls_models.networks.NETWORKS`): the lane engine's
    :func:`nc2600.hls_models.policy_int8.inference_cycles` or :func:`nc2600.hls_models.policy_array.inference_cycles`.

    Raises:
        ValueError: ``kind`` not in :data:`ENGINES`, or a size the engine's model refuses.
    """
    if check_engine(kind) == "lane":
        from nc2600.hls_models.policy_int8 import inference_cycles as cycles
        return cycles(n_actions, lanes, network)
    from nc2600.hls_models.policy_array import inference_cycles as cycles
    return cycles(n_actions, rows, cols, network)
