"""Python driver of the array inference engine's RTL in Verilator (a ctypes-loaded C++ loop).

:class:`PolicyArraySim` builds :func:`nc2600.hw.policy_array.generate`'s Verilog for an ``R x C``
array with :func:`nc2600.hwtools.verilator_build.build_shared_lib` (cached by content), loads
parameters through the engine's write port (:func:`nc2600.hls_models.policy_array.load_words`, one word
per cycle) and runs inferences, serving the observation word port from
:func:`nc2600.hls_models.policy_array.obs_words`.
"""
from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from nc2600.hls_models import policy_array as model
from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.policy_int8 import QuantizedPolicy, check_obs
from nc2600.hwtools import verilator_build
from nc2600.hw.policy_array import generate

HARNESS_CPP = Path(__file__).resolve().parent / "cpp" / "policy_array_harness.cpp"


class PolicyArraySim(verilator_build.VerilatedModel):
    """The array engine of ``rows x cols`` MACs (18 action registers) in Verilator.

    Raises:
        ValueError: a shape the engine does not support (:func:`nc2600.hls_models.policy_array.check_shape`).
    """

    FREE = "pa_free"

    def __init__(self, rows: int = 16, cols: int = 16):
        self.rows, self.cols = model.check_shape(rows, cols)
        verilog = generate(self.rows, self.cols, MAX_ACTIONS)["policy_array.v"]
        lib_path = verilator_build.build_shared_lib(f"policy_array_{self.rows}x{self.cols}", verilog,
                                                    "policy_array",
                                                    verilator_build.engine_harness(HARNESS_CPP.read_text()))
        lib = self._lib = verilator_build.load(lib_path)
        lib.pa_new.restype = ctypes.c_void_p
        lib.pa_new.argtypes = [ctypes.c_int]
        lib.pa_free.argtypes = [ctypes.c_void_p]
        lib.pa_cycles.argtypes = [ctypes.c_void_p]
        lib.pa_cycles.restype = ctypes.c_uint64
        lib.pa_load.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        lib.pa_infer.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        lib.pa_infer.restype = ctypes.c_int64
        self._h = ctypes.c_void_p(lib.pa_new(self.rows))
        self.n_actions: int | None = None
        self.last_cycles: int | None = None

    @property
    def cycles(self) -> int:
        """Clock cycles simulated so far."""
        return int(self._lib.pa_cycles(self._h))

    def load_words(self, words: np.ndarray) -> int:
        """Write raw ``(W, 4)`` ``(space, row, lane, data)`` words, one per cycle; returns cycles."""
        words = np.ascontiguousarray(words, dtype=np.int64)
        if words.ndim != 2 or words.shape[1] != 4:
            raise ValueError(f"words must have shape (W, 4), got {words.shape}")
        before = self.cycles
        self._lib.pa_load(self._h, words.ctypes.data, words.shape[0])
        return self.cycles - before

    def load(self, policy: QuantizedPolicy) -> int:
        """Load one policy (checked, :func:`nc2600.hls_models.policy_array.load_words`); returns cycles.

        Raises:
            ValueError: the parameters do not fit the engine's format (the field is named).
        """
        cycles = self.load_words(model.load_words(policy, self.rows, self.cols))
        self.n_actions = policy.n_actions
        return cycles

    def action_values(self, obs: np.ndarray) -> np.ndarray:
        """Action values ``(B, A)`` int32 for observations ``(B, 4, 84, 84)`` uint8, one inference
        each; :attr:`last_cycles` holds the start -> done cycles of the last one.

        Raises:
            ValueError: bad observations, or no parameters loaded.
            RuntimeError: the engine did not finish, or its handshake misbehaved.
        """
        if self.n_actions is None:
            raise ValueError("no parameters loaded")
        obs = check_obs(obs)
        out = np.zeros((obs.shape[0], self.n_actions), np.int32)
        buf = np.zeros(MAX_ACTIONS, np.int32)
        count = ctypes.c_int32(0)
        limit = 2 * model.engine_cycles(self.n_actions, self.rows, self.cols) + 1000
        for i in range(obs.shape[0]):
            words = np.ascontiguousarray(model.obs_words(obs[i], self.rows, self.cols))
            n = self._lib.pa_infer(self._h, words.ctypes.data, buf.ctypes.data, ctypes.byref(count), limit)
            if n < 0:
                raise RuntimeError({-1: "engine did not assert done", -2: "busy/done/valid handshake broken",
                                    -3: "action-value beat not accepted"}[int(n)])
            if count.value != self.n_actions:
                raise RuntimeError(f"engine reported count {count.value}, loaded {self.n_actions} actions")
            out[i] = buf[:self.n_actions]
            self.last_cycles = int(n)
        return out



def bench(rows: int = 16, cols: int = 16, inferences: int = 2, seed: int = 0) -> dict:
    """Measure one engine size on the Verilated RTL: start -> done cycles (checked equal to the
    model), MAC efficiency start -> chosen action, load cycles, and the simulator's speed (CPU
    seconds of this process). A random int8 policy with 18 actions (weights -127..127, biases up
    to 2**16, shifts 11/11/12) on random observations; every result is checked against the
    model first, so a wrong engine cannot report a figure.

    Raises:
        RuntimeError: values or cycles differ from the model.
    """
    import time
    from nc2600.hls_models.policy_engine import check_parameters
    from nc2600.hls_models.policy_int8 import mac_count
    rng = np.random.default_rng(seed)
    eng = PolicyArraySim(rows, cols)
    wsh = [(256, 16), (256, 32), (2592, 256), (256, 18)]
    qp = check_parameters(QuantizedPolicy(
        18, *[x for s in wsh for x in (rng.integers(-127, 128, s).astype(np.int8),
                                         rng.integers(-(2 ** 16), 2 ** 16, s[1]).astype(np.int32))],
        11, 11, 12, {}, 255))
    obs = rng.integers(0, 256, (inferences, 4, 84, 84), np.uint8)
    load = eng.load(qp)
    c0 = time.process_time()
    got = eng.action_values(obs)
    cpu = time.process_time() - c0
    want_cycles = model.engine_cycles(18, eng.rows, eng.cols)
    if not np.array_equal(got, qp.action_values(obs)) or eng.last_cycles != want_cycles:
        raise RuntimeError(f"engine {rows} x {cols} and model disagree (cycles {eng.last_cycles} vs {want_cycles})")
    to_action = model.inference_cycles(18, eng.rows, eng.cols)
    return {"rows": eng.rows, "cols": eng.cols, "multipliers": eng.rows * eng.cols,
            "engine_cycles_measured": eng.last_cycles, "engine_cycles_model": want_cycles,
            "start_to_action_cycles": to_action,
            "mac_efficiency": round(mac_count(18) / (eng.rows * eng.cols * to_action), 4),
            "load_cycles": load, "cycles_per_cpu_s": round(inferences * eng.last_cycles / cpu)}


if __name__ == "__main__":
    import argparse
    import json
    parser = argparse.ArgumentParser(prog="python -m nc2600.hwtools.policy_array_harness",
                                     description="Measured cycles of the array engine's RTL per size (Verilator).")
    parser.add_argument("--shape", nargs="+", default=["8x8", "16x8", "16x16", "32x16"], help="RxC shapes")
    parser.add_argument("--inferences", type=int, default=2, help="inferences per shape")
    args = parser.parse_args()
    for shape in args.shape:
        r, c = (int(v) for v in shape.lower().split("x"))
        print(json.dumps(bench(r, c, args.inferences)), flush=True)
