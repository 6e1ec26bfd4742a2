"""``nc2600 bench policy``: decisions per second per core of the float32 and the int8 policy paths.

:func:`measure` returns one dict (the command prints it as one JSON line).

Both paths run in this one process (one core, one BLAS / onnxruntime thread), interleaved
round by round so that load from other jobs on the machine hits both alike, on the same
``slots`` real observations (random play of ``game``) with ``slots`` different networks
(``init_network_params(0..slots-1)`` of ``network``; int8: their quantisations, shifts calibrated on
32 other observations). A decision is one slot's forward pass and argmax. The figures:
``float_decisions_per_s`` and ``int8_decisions_per_s`` (per CPU second of this process, the
best round), ``int8_over_float``, and ``int8_bit_exact`` (the batched int8 actions and values
equal :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` of every slot).
"""
from __future__ import annotations

import time

import numpy as np


def measure(game: str, slots: int, seconds: float, network: str = "small") -> dict:
    """The figures of the module doc as a dict: ``slots`` observations and networks of ``game``,
    each path timed until it has run ``seconds`` of wall time and at least 3 rounds."""
    from nc2600.hls_models.policy_int8 import quantize_network
    from nc2600.host.verify.ale_recordings import record_observations
    from nc2600.host.games import game_info
    from nc2600.host.episodes.policy import init_network_params, make_slot_weights
    from nc2600.host.launcher.policy_int8 import make_int8_slots

    n_actions = len(game_info(game).minimal_actions)
    obs = record_observations(game, slots + 20, seed=7)[20:]
    calib = record_observations(game, 32, seed=100)
    fl, q8 = make_slot_weights(slots, n_actions, network), make_int8_slots(slots, n_actions, network)
    pols = []
    for s in range(slots):
        flat = init_network_params(s, n_actions, network)
        fl.load(s, flat)
        pols.append(quantize_network(flat, network, n_actions, calib))
        q8.load(s, pols[-1])
    want = np.concatenate([p.action_values(obs[i:i + 1]) for i, p in enumerate(pols)])
    exact = bool(np.array_equal(q8.action_values(obs), want))
    best = {"float": 0.0, "int8": 0.0}
    calls = {"float": lambda: fl.act(obs), "int8": lambda: q8.act(obs)}
    spent = {"float": 0.0, "int8": 0.0}
    rounds = 0
    while min(spent.values()) < seconds or rounds < 3:
        for name, call in calls.items():
            call()
            c0, n = time.process_time(), 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < 0.5:
                call()
                n += 1
            cpu = time.process_time() - c0
            spent[name] += time.perf_counter() - t0
            best[name] = max(best[name], n * slots / max(cpu, 1e-9))
        rounds += 1
    return {"game": game, "network": network, "slots": slots, "n_actions": n_actions,
            "float_decisions_per_s": round(best["float"], 1), "int8_decisions_per_s": round(best["int8"], 1),
            "int8_over_float": round(best["int8"] / best["float"], 3), "int8_bit_exact": exact,
            "measure": "per CPU second of one process, best 0.5 s round"}
