"""Action-select RTL (Amaranth simulation) and its model against the rule stated as a plain loop
(:func:`tests.action_select.vectors.first_maximum`: first maximum, ties to the lowest index)."""
from __future__ import annotations

import numpy as np
import pytest
from amaranth.sim import Simulator

from nc2600.hls_models import action_select as model
from nc2600.hw.action_select import ActionSelect, generate
from tests.action_select.vectors import adversarial_vectors, first_maximum


def run_rtl(n: int, width: int, vectors: np.ndarray, counts: np.ndarray) -> tuple[list, list, int]:
    """Stream ``vectors`` ``(T, n)`` back to back through the RTL; return indices, values, latency (cycles)."""
    dut = ActionSelect(n, width)
    out_idx, out_val, lat = [], [], []

    async def tb(ctx):
        t_in = 0
        cycle = 0
        starts = []
        total = len(vectors)
        while len(out_idx) < total:
            if t_in < total:
                for i in range(n):
                    ctx.set(dut.action_values.payload.values[i], int(vectors[t_in, i]))
                ctx.set(dut.action_values.payload.count, int(counts[t_in]))
                ctx.set(dut.action_values.valid, 1)
                starts.append(cycle)
                t_in += 1
            else:
                ctx.set(dut.action_values.valid, 0)
            await ctx.tick()
            cycle += 1
            if ctx.get(dut.chosen.valid):
                out_idx.append(ctx.get(dut.chosen.index))
                out_val.append(ctx.get(dut.chosen.value))
                lat.append(cycle - starts[len(out_idx) - 1])
            assert cycle < total + 20
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    assert len(set(lat)) == 1
    return out_idx, out_val, lat[0]


@pytest.mark.parametrize("n,width", [(18, 32), (18, 8), (4, 16), (3, 2), (1, 8)])
def test_rtl_and_model_match_the_rule(n, width):
    rng = np.random.default_rng(n * 100 + width)
    lo, hi = -(1 << (width - 1)), (1 << (width - 1))
    rand = rng.integers(lo, hi, size=(40, n))
    small = rng.integers(-2, 3, size=(40, n))          # many ties
    vectors = np.concatenate([adversarial_vectors(n, width), rand, np.clip(small, lo, hi - 1)])
    counts = np.full(len(vectors), n)
    counts[-20:] = rng.integers(1, n + 1, size=20)       # partly masked lanes
    idx, val, lat = run_rtl(n, width, vectors, counts)
    # oracle: the rule as a plain loop over the valid lanes (ties to the lowest index)
    want = np.array([first_maximum(v, c) for v, c in zip(vectors, counts)])
    assert idx == want.tolist()
    assert val == [int(v[i]) for v, i in zip(vectors, want)]
    assert lat == model.latency(n)
    m_idx, m_val = model.select(vectors, width, counts)
    assert m_idx.tolist() == want.tolist() and m_val.tolist() == val


def test_latency_hand_values():
    # ceil(log2 n) registered levels, at least one
    assert [model.latency(n) for n in (1, 2, 3, 4, 5, 8, 9, 16, 17, 18)] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_rule_statement_hand_worked():
    """The oracle itself on hand-worked vectors (first maximum, masked lanes, negatives)."""
    assert first_maximum([3, 7, 7, 1]) == 1
    assert first_maximum([-5, -5, -5, -5]) == 0
    assert first_maximum([-128, 127, 127, -128]) == 1
    assert first_maximum([1, 2, 9, 0], 2) == 1
    assert first_maximum([0, -1, -2, 5], 3) == 0
    assert first_maximum([4]) == 0


def test_model_hand_examples():
    idx, val = model.select(np.array([[3, 7, 7, 1], [-5, -5, -5, -5], [-128, 127, 127, -128]]), width=8)
    assert idx.tolist() == [1, 0, 1] and val.tolist() == [7, -5, 127]
    idx, _ = model.select(np.array([1, 2, 9, 0]), width=8, count=2)
    assert int(idx) == 1


def test_model_bad_input():
    with pytest.raises(ValueError, match=r"\(\.\.\., n\)"):
        model.select(np.zeros((2, 19), np.int32))
    with pytest.raises(ValueError, match="signed 8 bits"):
        model.select(np.array([128]), width=8)
    with pytest.raises(ValueError, match="shape"):
        model.select(np.zeros(4, np.float32))


def test_committed_rtl_is_generated():
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "rtl" / "action_select.v").read_text()
    assert text == generate()["action_select.v"]
