"""cocotb testbench of rtl/policy_engine.v (16 MAC lanes) against the bit-exact int8 model.

Recorded observations (ALE random play of pong, seed 7) and a network quantised by
:func:`nc2600.hls_models.policy_int8.quantize` are loaded through the engine's parameter port, the
observation read port is served by :class:`ObservationPort` (data one cycle after the address,
as the preprocessor's; the other ports are driven by tests/policy_engine/engine_ports.py), and
every action value and the start->done cycle count are compared
with :meth:`QuantizedPolicy.action_values` and :func:`nc2600.hls_models.policy_engine.engine_cycles`.
``NC2600_SIM_FULL=1`` (``make sim-full``) runs more observations and every adversarial case.
Found by ``make sim`` (``hwtools/sim.py``, zero-configuration rule).
"""
from __future__ import annotations

import os

import cocotb
import numpy as np
from cocotb.triggers import ReadOnly, RisingEdge

from nc2600.hls_models import policy_engine as pm
from nc2600.hls_models.policy_int8 import quantize
from tests.policy_engine.engine_ports import load, reset, start_and_read

LANES = 16
FULL = os.environ.get("NC2600_SIM_FULL") == "1"


class ObservationPort:
    """Serves the engine's observation read port from a ``(4, 84, 84)`` stack: the address of
    one cycle is answered in the next, like the preprocessor's synchronous stack memory."""

    def __init__(self, dut):
        self.dut = dut
        self.obs = np.zeros((4, 84 * 84), np.uint8)
        cocotb.start_soon(self._serve())

    async def _serve(self):
        d = self.dut
        while True:
            await ReadOnly()
            frame, index = int(d.obs__frame.value), int(d.obs__index.value)
            await RisingEdge(d.clk)
            d.obs__data.value = int(self.obs[frame, index]) if index < 84 * 84 else 0


async def setup(dut) -> ObservationPort:
    await reset(dut)
    return ObservationPort(dut)


async def infer(dut, port: ObservationPort, obs: np.ndarray, n_actions: int) -> tuple[np.ndarray, int]:
    """One inference of ``obs`` (``(4, 84, 84)``); returns (values, cycles)."""
    port.obs = obs.reshape(4, -1)
    return await start_and_read(dut, n_actions, pm.engine_cycles(n_actions, LANES) + 100)


@cocotb.test()
async def recorded_observations(dut):
    """A pong network (quantised from init_params(2)) on recorded pong observations."""
    from nc2600.host.verify.ale_recordings import record_observations
    from nc2600.host.episodes.policy import init_params
    port = await setup(dut)
    n_actions = 6
    calib = record_observations("pong", 8, 100)
    obs = record_observations("pong", 4 if FULL else 2, 7)
    qp = quantize(init_params(2, n_actions), n_actions, calib)
    words = pm.load_words(qp, LANES)
    assert await load(dut, words) == pm.load_cycles(n_actions, LANES)
    want = qp.action_values(obs)
    for i in range(len(obs)):
        values, cycles = await infer(dut, port, obs[i], n_actions)
        assert values.tolist() == want[i].tolist(), i
        assert cycles == pm.engine_cycles(n_actions, LANES)


@cocotb.test()
async def adversarial(dut):
    """Maximal weights with the most negative biases (and every other adversarial case under --full)."""
    from tests.policy_engine.cases import adversarial_cases
    port = await setup(dut)
    cases = adversarial_cases(n_obs=1)
    if not FULL:
        cases = [c for c in cases if c[0].startswith("+-127 at random, most negative")]
    assert len(cases) == (9 if FULL else 1), [c[0] for c in cases]
    for name, qp, obs in cases:
        await load(dut, pm.load_words(qp, LANES))
        values, cycles = await infer(dut, port, obs[0], qp.n_actions)
        assert values.tolist() == qp.action_values(obs)[0].tolist(), name
        assert cycles == pm.engine_cycles(qp.n_actions, LANES)
