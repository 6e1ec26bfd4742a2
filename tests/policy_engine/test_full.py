"""Full verification of the policy-engine RTL, ``pytest -m slow tests/policy_engine``.

- Six games (pong, breakout, ms_pacman, boxing (|A| = 18), air_raid (PAL), klax (PAL, |A| = 18)),
  four networks each: the elite of a real ``nc2600 run`` of that game (genome in
  ``elites.json``) and ``init_params(0..2)``, all quantised by
  :func:`nc2600.hls_models.policy_int8.quantize` on 32 calibration observations (random play, seed 100);
  200 observations per network (random play, seed 7), every action value equal to the model,
  and every inference's start->done cycles equal to :func:`nc2600.hls_models.policy_engine.engine_cycles`,
  on the 16-lane engine.
- L in {4, 32, 64}: the adversarial cases and one network per lane count on 20 observations,
  values and cycles.
Result recorded in ``docs/results/policy.jsonl``.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from nc2600.hls_models import policy_engine as pm
from nc2600.hls_models.policy_int8 import quantize
from tests.policy_engine.cases import adversarial_cases

pytestmark = pytest.mark.slow

ELITES = json.loads((Path(__file__).with_name("elites.json")).read_text())
GAMES = ("pong", "breakout", "ms_pacman", "boxing", "air_raid", "klax")
N_OBS = 200


@lru_cache(maxsize=None)
def _engine(lanes: int):
    from nc2600.hwtools.policy_engine_harness import PolicyEngineSim
    return PolicyEngineSim(lanes)


@lru_cache(maxsize=None)
def _noise(size: int, seed: int):
    from nc2600.host.launcher.noise import NoiseTable
    return NoiseTable(size, seed)


def elite_params(game: str) -> tuple[np.ndarray, int]:
    """Float parameters of the recorded elite of ``game`` and its action count."""
    from nc2600.host.launcher.noise import genome_params
    rec = ELITES[game]
    g = rec["genome"]
    noise = _noise(g["noise_table"]["size"], g["noise_table"]["seed"])
    return genome_params(g["seeds"], rec["n_actions"], g["sigma"], noise), rec["n_actions"]


def networks(game: str):
    from nc2600.host.verify.ale_recordings import record_observations
    from nc2600.host.episodes.policy import init_params
    elite, n = elite_params(game)
    calib = record_observations(game, 32, 100)
    nets = [("elite", elite)] + [(f"init_params({s})", init_params(s, n)) for s in range(3)]
    return [(name, quantize(flat, n, calib)) for name, flat in nets], n


@pytest.mark.parametrize("game", GAMES)
def test_game_networks_200_observations(game):
    from nc2600.host.verify.ale_recordings import record_observations
    engine = _engine(16)
    obs = record_observations(game, N_OBS, 7)
    nets, n = networks(game)
    assert len(nets) >= 4
    for name, qp in nets:
        engine.load(qp)
        want = qp.action_values(obs)
        for i in range(len(obs)):
            got = engine.action_values(obs[i:i + 1])
            assert np.array_equal(got[0], want[i]), (game, name, i, got[0], want[i])
            assert engine.last_cycles == pm.engine_cycles(n, 16), (game, name, i)


@pytest.mark.parametrize("lanes", [4, 32, 64])
def test_other_lane_counts(lanes):
    from nc2600.host.verify.ale_recordings import record_observations
    engine = _engine(lanes)
    for name, qp, obs in adversarial_cases(n_obs=1):
        engine.load(qp)
        assert np.array_equal(engine.action_values(obs), qp.action_values(obs)), (lanes, name)
        assert engine.last_cycles == pm.engine_cycles(qp.n_actions, lanes)
    game = {4: "boxing", 32: "air_raid", 64: "ms_pacman"}[lanes]
    nets, n = networks(game)
    obs = record_observations(game, 20, 7)
    engine.load(nets[0][1])
    assert np.array_equal(engine.action_values(obs), nets[0][1].action_values(obs))
    assert engine.last_cycles == pm.engine_cycles(n, lanes)
