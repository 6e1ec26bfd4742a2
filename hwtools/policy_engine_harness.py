"""Python driver of the policy-engine RTL in Verilator (a ctypes-loaded C++ loop).

:class:`PolicyEngineSim` builds :func:`nc2600.hw.policy_engine.generate`'s Verilog for ``lanes`` MAC
lanes with :func:`nc2600.hwtools.verilator_build.build_shared_lib` (cached by content), loads parameters
through the engine's write port (:func:`nc2600.hls_models.policy_engine.load_words`, one word per
cycle) and runs inferences, serving the observation read port as the preprocessor does.
"""
from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from nc2600.hls_models import policy_engine as model
from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.policy_int8 import QuantizedPolicy, check_obs
from nc2600.hwtools import verilator_build
from nc2600.hw.policy_engine import generate

HARNESS_CPP = Path(__file__).resolve().parent / "cpp" / "policy_engine_harness.cpp"


class PolicyEngineSim(verilator_build.VerilatedModel):
    """The policy engine with ``lanes`` MAC lanes (and 18 action registers) in Verilator.

    Raises:
        ValueError: ``lanes`` outside the supported range (at elaboration).
    """

    FREE = "pe_free"

    def __init__(self, lanes: int = 16):
        self.lanes = model.check_lanes(lanes)
        verilog = generate(self.lanes, MAX_ACTIONS)["policy_engine.v"]
        lib_path = verilator_build.build_shared_lib(f"policy_engine_l{self.lanes}", verilog, "policy_engine",
                                                    verilator_build.engine_harness(HARNESS_CPP.read_text()))
        lib = self._lib = verilator_build.load(lib_path)
        lib.pe_new.restype = ctypes.c_void_p
        lib.pe_free.argtypes = [ctypes.c_void_p]
        lib.pe_cycles.argtypes = [ctypes.c_void_p]
        lib.pe_cycles.restype = ctypes.c_uint64
        lib.pe_load.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        lib.pe_infer.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        lib.pe_infer.restype = ctypes.c_int64
        self._h = ctypes.c_void_p(lib.pe_new())
        self.n_actions: int | None = None
        self.last_cycles: int | None = None
        self.last_load_cycles: int | None = None

    @property
    def cycles(self) -> int:
        """Clock cycles simulated so far."""
        return int(self._lib.pe_cycles(self._h))

    def load_words(self, words: np.ndarray) -> int:
        """Write raw ``(W, 4)`` ``(space, row, lane, data)`` words, one per cycle; returns cycles."""
        words = np.ascontiguousarray(words, dtype=np.int64)
        if words.ndim != 2 or words.shape[1] != 4:
            raise ValueError(f"words must have shape (W, 4), got {words.shape}")
        before = self.cycles
        self._lib.pe_load(self._h, words.ctypes.data, words.shape[0])
        return self.cycles - before

    def load(self, policy: QuantizedPolicy) -> int:
        """Load one individual's parameters (checked, :func:`nc2600.hls_models.policy_engine.load_words`);
        returns the cycles the load took.

        Raises:
            ValueError: the parameters do not fit the engine's format (the field is named).
        """
        words = model.load_words(policy, self.lanes)
        self.last_load_cycles = self.load_words(words)
        self.n_actions = policy.n_actions
        return self.last_load_cycles

    def action_values(self, obs: np.ndarray) -> np.ndarray:
        """Action values ``(B, A)`` int32 for observations ``(B, 4, 84, 84)`` uint8, one inference
        each; :attr:`last_cycles` holds the cycles from ``start`` to ``done`` of the last one.

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
        limit = 4 * model.engine_cycles(self.n_actions, self.lanes) + 1000
        for i in range(obs.shape[0]):
            frame = np.ascontiguousarray(obs[i])
            n = self._lib.pe_infer(self._h, frame.ctypes.data, buf.ctypes.data, ctypes.byref(count), limit)
            if n < 0:
                raise RuntimeError({-1: "engine did not assert done", -2: "busy/done/valid handshake broken",
                                    -3: "action-value beat not accepted"}[int(n)])
            if count.value != self.n_actions:
                raise RuntimeError(f"engine reported count {count.value}, loaded {self.n_actions} actions")
            out[i] = buf[:self.n_actions]
            self.last_cycles = int(n)
        return out


def bench(lanes: int = 16, inferences: int = 5, seed: int = 0) -> dict:
    """Time the Verilated engine: inferences per second per core (CPU time of this process, so
    the figure holds on a loaded machine; the wall figure is given beside it).

    A random int8 policy with 18 actions and random observations; every result is checked
    against the model, so a wrong engine cannot report a speed.
    """
    import time
    rng = np.random.default_rng(seed)
    eng = PolicyEngineSim(lanes)
    wsh = [(256, 16), (256, 32), (2592, 256), (256, 18)]
    qp = model.check_parameters(QuantizedPolicy(
        18, *[x for s in wsh for x in (rng.integers(-127, 128, s).astype(np.int8),
                                         rng.integers(-(2 ** 16), 2 ** 16, s[1]).astype(np.int32))],
        11, 11, 12, {}, 255))
    obs = rng.integers(0, 256, (inferences, 4, 84, 84), np.uint8)
    c0, w0 = time.process_time(), time.perf_counter()
    load = eng.load(qp)
    load_cpu = time.process_time() - c0
    c0, w0 = time.process_time(), time.perf_counter()
    got = eng.action_values(obs)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    if not np.array_equal(got, qp.action_values(obs)):
        raise RuntimeError("engine and model disagree")
    cyc = eng.last_cycles
    return {"lanes": lanes, "inferences": inferences, "cycles_per_inference": cyc,
            "inferences_per_cpu_s": round(inferences / cpu, 2), "inferences_per_wall_s": round(inferences / wall, 2),
            "cycles_per_cpu_s": round(inferences * cyc / cpu), "load_cycles": load,
            "load_cpu_s": round(load_cpu, 3)}


if __name__ == "__main__":
    import argparse
    import json
    parser = argparse.ArgumentParser(prog="python -m nc2600.hwtools.policy_engine_harness",
                                     description="Verilator speed of the policy engine (inferences/s per core).")
    parser.add_argument("--lanes", type=int, nargs="+", default=[16], help="MAC lane counts")
    parser.add_argument("--inferences", type=int, default=5, help="inferences per lane count")
    args = parser.parse_args()
    for lanes in args.lanes:
        print(json.dumps(bench(lanes, args.inferences)), flush=True)
