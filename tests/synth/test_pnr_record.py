"""Place and route reproduces the results record (slow: minutes per block; the lookup runs in CI).

nextpnr with a fixed placement seed, the pinned yowasp tool versions and the same netlist is
deterministic, so each fixed-seed Fmax of ``docs/results/timing.jsonl`` must come out exactly
again from the committed ``rtl/`` (tolerance 0, the figure as the record rounds it: two decimals).
The record compared is the newest of the figure's names (the block's name in ``rtl/``, then its
name before the ``_cc1``/``_cc3`` file names); a failure means the RTL, the flow or the tools
changed since the figure was recorded: measure it again (``nc2600 synth --block B --pnr nexus
--pnr-seed 1 --record docs/results/timing.jsonl``) and commit the record with the change.
Every run here is fresh (``use_cache=False``): synthesis and place and route, no cached result.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from nc2600.host.report import results

REPO = Path(__file__).resolve().parents[2]
TIMING = REPO / "docs" / "results" / "timing.jsonl"


def recorded(*figures: str) -> float:
    """The value of the newest record (by date) among ``figures`` in docs/results/timing.jsonl."""
    recs = [r for r in results.load(TIMING) if r["figure"] in figures]
    assert recs, f"no record of {figures}"
    return max(recs, key=lambda r: r["date"])["value"]


def _nexus(block: str, old: str) -> tuple[str, tuple[str, ...]]:
    name = "LIFCL-40-9, placed and routed, seed 1"
    return block, (f"{block} Fmax on {name}", f"{old} Fmax on {name}")


NEXUS = [_nexus("action_select", "action_select"), _nexus("cpu6507", "cpu6507"),
         _nexus("preprocessor_cc1", "preprocessor"), _nexus("preprocessor_cc3", "preprocessor3"),
         _nexus("console_cc1", "console"), _nexus("console_cc3", "console3")]
ECP5 = [("action_select", ("action_select Fmax on ECP5-85, placed and routed",
                           "action select Fmax on ECP5-85, placed and routed")),
        ("console_cc1", ("console_cc1 Fmax on ECP5-85, placed and routed",
                         "console Fmax on ECP5-85, placed and routed"))]


def test_every_pinned_figure_is_in_the_record():
    """Each pinned block's figure names resolve to a record (a renamed figure fails here, in CI)."""
    assert {b: recorded(*f) for b, f in NEXUS} == {
        "action_select": 223.51, "cpu6507": 82.25, "preprocessor_cc1": 129.84, "preprocessor_cc3": 132.33,
        "console_cc1": 141.14, "console_cc3": 71.72}
    assert {b: recorded(*f) for b, f in ECP5} == {"action_select": 106.71, "console_cc1": 73.05}
    from nc2600.host.commands.input_probe import DEFAULT_CLOCK_MHZ
    assert DEFAULT_CLOCK_MHZ == recorded(*dict(NEXUS)["console_cc3"])     # input-probe's default clock


@pytest.mark.slow
@pytest.mark.parametrize("block,figures", NEXUS, ids=[b for b, _ in NEXUS])
def test_nexus_seed_1_fmax_is_the_recorded_figure(block, figures):
    from nc2600.hwtools import nexus
    rep = nexus.pnr_block(block, (REPO / "rtl" / f"{block}.v").read_text(), seed=1, use_cache=False)
    assert not rep["cached"] and rep["seed"] == 1 and rep["carry"] == "ccu2"
    assert round(rep["fmax_mhz"], 2) == recorded(*figures), (rep["fmax_mhz"], rep["router"], rep["critical_path"])


@pytest.mark.slow
@pytest.mark.parametrize("block,figures", ECP5, ids=[b for b, _ in ECP5])
def test_ecp5_seed_1_fmax_is_the_recorded_figure(block, figures):
    from nc2600.hwtools import ecp5_pnr
    rep = ecp5_pnr.pnr_block(block, (REPO / "rtl" / f"{block}.v").read_text(), seed=1, use_cache=False)
    assert not rep["cached"]
    assert round(rep["fmax_mhz"], 2) == recorded(*figures), (rep["fmax_mhz"], rep["critical_path"])

