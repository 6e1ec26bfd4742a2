"""Like for like with the published machine: a ceiling is set only beside a ceiling, a sustained
(or projected) fabric figure only beside a sustained one, in the report
(:func:`nc2600.host.report.throughput.ratio`, :func:`~nc2600.host.report.throughput.like_for_like`) and in the
results records (``basis``, ``ratio_of``; :func:`nc2600.host.report.results.like_for_like_faults`).
Expected values are worked by hand from the inputs given here."""
from __future__ import annotations

import copy

import pytest

from nc2600.host.report import results
from nc2600.host.report import throughput as rp

#: the array instance's measured phases (one colour clock per clock, Boxing-like, by hand)
INSTANCE = {"frames": 400, "decisions": 99, "episode_seed": 0, "lanes": 16, "array": "16 x 16",
            "emulation_per_frame": 59738.0, "host_rules_per_frame": 42.0, "preprocessor_per_decision": 1.0,
            "inference_per_decision": 11655.0, "action_select_per_decision": 5.0, "controller_per_episode": 4,
            "param_load": 512509, "reset_replay": 11685169}
MESH = {"projected_fps": 1.448e6, "ceiling_fps": 2.77e6, "time_fractions": {"counted_frames": 1.0}, "gap_fps": {},
        "topology": {"instances": 832}, "schedule": "static",
        "instance": {"colour_clocks_per_frame": 59780, "colour_clocks_source": "given"},
        "options": {"generations": 2, "population": 1000, "episode_steps": "fixed:5000", "elite_episodes": 0,
                    "colour_clocks_per_frame": 59780, "inference_cycles": 11661, "timing_source": "measured"}}


def lfl_inputs() -> rp.Inputs:
    g = rp.GameInputs("boxing", n_actions=18, instance=dict(INSTANCE), instance_command="nc2600 instance-play ...")
    inp = rp.Inputs(games=[g], clock_mhz=150.0, frame_skip=4, action_select_latency=5, array=(16, 16),
                    published_mesh={"projected_fps": 1.25e6}, lfl_mesh={"boxing": MESH})
    inp.console3_nexus = [{"fmax_mhz": 66.45, "seed": 1, "device": "LIFCL-40-9BG400C", "carry": "ccu2",
                           "critical_path": {}}]
    return inp


def by_name(figs, start):
    hits = [f for f in figs if f.name.startswith(start)]
    assert len(hits) == 1, (start, [f.name for f in figs])
    return hits[0]


def test_ratio_refuses_a_ceiling_against_a_sustained_figure():
    a = rp.Figure("s", "ours", None, 2910.0, "frames/s", rp.DERIVED, "", basis=rp.CEILING)
    b = rp.Figure("s", "theirs", None, 2885.0, "frames/s", rp.PUBLISHED, "", basis=rp.SUSTAINED)
    with pytest.raises(ValueError, match="ceiling figure .* sustained"):
        rp.ratio("s", "ours / theirs", None, a, b)
    with pytest.raises(ValueError, match="basis"):
        rp.ratio("s", "no basis", None, rp.Figure("s", "x", None, 1.0, "frames/s", rp.MODEL, ""), b)
    c = rp.Figure("s", "theirs", None, 2500.0, "frames/s", rp.MODEL, "", basis=rp.CEILING)
    r = rp.ratio("s", "ours / theirs", None, a, c)
    assert r.value == pytest.approx(1.164) and r.basis == rp.CEILING and r.unit == "x" and r.kind == rp.MODEL


def test_report_compares_like_for_like_by_hand():
    """Per decision at three colour clocks per clock: 4 x (59,738 + 42) / 3 = 79,706.67 clocks of
    emulation and host rules + 1 + 11,655 + 5 = 11,661 cycles of the console's wait = 91,367.67;
    4 x 66.45 MHz / 91,367.67 = 2,909.1 frames/s per instance, 1.1585x 150 MHz / 59,736 = 2,511.05;
    per device 5,818.3 against 5,022.1 (the same ratio); the fabric 1.448 M against 1.2 M quoted
    (1.2067x) and the published configuration's model 1.25 M (1.1584x)."""
    figs = rp.compute(lfl_inputs())["figures"]
    inst = by_name(figs, "ceiling per instance at console_cc3's LIFCL-40-9 Fmax")
    assert inst.value == pytest.approx(4 * 66.45e6 / (4 * 59780 / 3 + 11661)) and inst.basis == rp.CEILING
    assert inst.value == pytest.approx(2909.1, abs=0.1)
    assert by_name(figs, "published machine: ceiling per instance").value == pytest.approx(150e6 / 59736)
    ri = by_name(figs, "ceiling per instance: ours / published")
    assert ri.value == pytest.approx(inst.value / (150e6 / 59736)) and ri.value == pytest.approx(1.1585, abs=1e-4)
    rd = by_name(figs, "ceiling per device: ours / published")
    assert rd.operands[0].value == pytest.approx(2 * inst.value) and rd.operands[1].value == pytest.approx(5022.1,
                                                                                                           abs=0.1)
    assert by_name(figs, "fabric, headline regime: ours / published (quoted").value == pytest.approx(1.448 / 1.2)
    rm = by_name(figs, "fabric, headline regime: ours / the published configuration's model")
    assert rm.value == pytest.approx(1.448 / 1.25) and rm.basis == rp.SUSTAINED
    # every ratio in the report: two operands of its own basis; every frames/s figure has a basis
    for f in figs:
        if f.unit == "x" and f.basis:
            assert [o.basis for o in f.operands] == [f.basis, f.basis], f.name
        if f.unit == "frames/s" and f.value is not None:
            assert f.basis in rp.BASES, f.name
    table = rp.like_for_like_table(figs)
    assert len(table) == 2 + 4 and all(("| ceiling |" in x) or ("| sustained |" in x) for x in table[2:])


def test_report_uses_the_stall_when_the_instance_measures_it():
    """With the console stalled 2,000 cycles per decision instead of the 11,661-cycle wait:
    4 x 66.45 MHz / (79,706.67 + 2,000) = 3,253.1 frames/s per instance."""
    inp = lfl_inputs()
    inp.games[0].instance["stall_per_decision"] = 2000.0
    inst = by_name(rp.compute(inp)["figures"], "ceiling per instance at console_cc3's LIFCL-40-9 Fmax")
    assert inst.value == pytest.approx(4 * 66.45e6 / (4 * 59780 / 3 + 2000))
    assert "stalled only" in inst.source


def test_report_records_the_like_for_like_rows(tmp_path):
    """``nc2600 report --record``: the hand-worked figures above (66.45 MHz, seed 1) under the README
    table's record names, with their basis and, for the ratios, the operands' names; written next
    to the published operands' records, the like-for-like checker finds nothing wrong and the table
    shows the four rows (the published operands are not written again)."""
    from nc2600.host.report import record_figures
    rows = [r for r in record_figures.report(rp.compute(lfl_inputs())["figures"]) if len(r) == 6]
    at = "console_cc3 at 66.45 MHz (LIFCL-40-9, seed 1)"
    short = "console_cc3 at 66.45 MHz (LIFCL-40-9)"
    got = {r[0]: (r[1], r[2], r[5]) for r in rows}
    inst, dev = f"frames/s per instance, array engine 16 x 16, {at}", \
        f"frames/s per device, two instances with the array engine 16 x 16, {at}"
    fab = f"fabric projection with the array engine 16 x 16, {at}, headline regime"
    assert got[inst] == (2909.1, "frames/s", {"basis": "ceiling"})
    assert got[dev] == (5818.3, "frames/s", {"basis": "ceiling"})
    assert got[fab] == (1.448, "M frames/s", {"basis": "sustained"})
    assert got[f"like for like: ceiling per instance, {short} / published"] == (
        1.159, "x", {"basis": "ceiling", "ratio_of": [inst, "published machine: ceiling per instance"]})
    assert got[f"like for like: fabric, headline regime, {short} / published configuration in mesh_sim"] == (
        1.158, "x", {"basis": "sustained", "ratio_of": [fab, "fabric headline throughput, published configuration"]})
    assert len(rows) == 7 and all(r[4] == "model" for r in rows)
    path = tmp_path / "lfl.jsonl"
    results.write_figures(str(path), rows)
    published = [_rec("published machine: ceiling per instance", 2511.0, "frames/s", "ceiling"),
                 _rec("published machine: ceiling per device", 5022.1, "frames/s", "ceiling"),
                 _rec("published machine: training throughput", 1.2, "M frames/s", "sustained"),
                 _rec("fabric headline throughput, published configuration", 1.25, "M frames/s", "sustained")]
    areas = {"lfl": results.load(path), "published": published}
    assert results.like_for_like_faults(areas) == []
    assert len(results.like_for_like_lines(areas)) == 2 + 4
    # with the instance's measured stall (the decision hidden behind the console): other names
    inp = lfl_inputs()
    inp.games[0].instance["stall_per_decision"] = 2000.0
    hid = {r[0]: r for r in record_figures.report(rp.compute(inp)["figures"]) if len(r) == 6}
    name = f"frames/s per instance, array engine 16 x 16, {at}, decision hidden, boxing"
    assert hid[name][1] == round(4 * 66.45e6 / (4 * 59780 / 3 + 2000), 1) == 3253.1
    assert hid[f"like for like: ceiling per instance, {short}, decision hidden, boxing / published"][5]["ratio_of"] == [
        name, "published machine: ceiling per instance"]


def test_input_probe_records_by_hand(tmp_path):
    """``nc2600 input-probe --all --record``: three games' hand-made probe rows (hidden 0 %, 50 %,
    100 %; hidden frames/s 3,000, 3,100, 3,400; waiting 2,990, 3,000, 3,010) give the medians 50 %,
    3,100 and 3,000, and 3,100 / 2,511.05 = 1.235x the published ceiling per instance, under the
    names of the records on file; with the published record they pass the like-for-like checker."""
    from nc2600.host.report import record_figures
    rows = [{"game": g, "hidden_fraction": h, "fps_hidden": a, "fps_serial": b, "decision_clocks": 11660}
            for g, h, a, b in (("a", 0.0, 3000.0, 2990.0), ("b", 0.5, 3100.0, 3000.0), ("c", 1.0, 3400.0, 3010.0))]
    got = record_figures.input_probe(rows, [], 10, 0, 71.72, True)
    at = "console_cc3 at 71.72 MHz (LIFCL-40-9, seed 1)"
    hidden = f"frames/s per instance with the decision hidden, {at}, median over the games"
    assert [(r[0], r[1], r[2]) for r in got] == [
        ("decision wait hidden behind the console, median over the games", 50.0, "%"),
        (hidden, 3100.0, "frames/s"),
        (f"frames/s per instance waiting for each decision, {at}, median over the games", 3000.0, "frames/s"),
        ("like for like: ceiling per instance with the decision hidden (median over the games), console_cc3 at "
         "71.72 MHz (LIFCL-40-9) / published", 1.235, "x")]
    assert got[3][5] == {"basis": "ceiling", "ratio_of": [hidden, "published machine: ceiling per instance"]}
    assert "b 3,100 (50 %)" in got[1][3] and "all of it in 1, under 5 % in 1" in got[0][3]
    path = tmp_path / "probe.jsonl"
    results.write_figures(str(path), got)
    pub = _rec("published machine: ceiling per instance", 2511.0, "frames/s", "ceiling")
    assert results.like_for_like_faults({"p": results.load(path), "pub": [pub]}) == []
    other = record_figures.input_probe(rows, [], 10, 0, 100.0, False)        # another clock: no device named
    assert other[1][0] == ("frames/s per instance with the decision hidden, console_cc3 at 100 MHz, "
                           "median over the games")


def _rec(figure, value, unit, basis=None, ratio_of=None, notes=""):
    return results.record(figure, value, unit, "model", command="x", date="2026-12-07", commit_id="",
                          basis=basis, ratio_of=ratio_of, notes=notes)


def test_record_checker_catches_a_ceiling_against_a_sustained_figure():
    ours = _rec("ours per device", 5820.0, "frames/s", "ceiling")
    pub_sus = _rec("published per device, sustained", 2885.0, "frames/s", "sustained")
    pub_ceil = _rec("published per device, ceiling", 5022.1, "frames/s", "ceiling")
    good = _rec("ours / published", 1.159, "x", "ceiling", ["ours per device", "published per device, ceiling"])
    assert results.like_for_like_faults({"a": [ours, pub_sus, pub_ceil, good]}) == []
    bad = _rec("ours / published sustained", 2.017, "x", "ceiling",
               ["ours per device", "published per device, sustained"])
    faults = results.like_for_like_faults({"a": [ours, pub_sus, pub_ceil, bad]})
    assert len(faults) == 1 and "sustained" in faults[0]
    wrong = _rec("ours / published", 2.0, "x", "ceiling", ["ours per device", "published per device, ceiling"])
    assert "is not" in results.like_for_like_faults({"a": [ours, pub_ceil, wrong]})[0]
    prose = _rec("ours", 5820.0, "frames/s", "ceiling", notes="2.02x the published 2,885 per device")
    assert "notes" in results.like_for_like_faults({"a": [prose]})[0]
    with pytest.raises(ValueError, match="basis"):
        results.check({**copy.deepcopy(ours), "basis": "peak"})
    with pytest.raises(ValueError, match="ratio"):
        results.check({**copy.deepcopy(ours), "ratio_of": ["a", "b"]})      # a ratio in frames/s


def test_committed_records_compare_like_for_like():
    areas = results.load_folder(results.RESULTS_DIR)
    assert results.like_for_like_faults(areas) == []
    cur = results.newest(areas)
    ratios = [r for r in cur.values() if "ratio_of" in r]
    assert {r["basis"] for r in ratios} == set(results.BASES)     # both comparisons are stated
    assert cur["published machine: ceiling per instance"]["value"] == pytest.approx(150e6 / 59736, abs=0.1)


def test_readme_like_for_like_block_is_current():
    text = results.README.read_text(encoding="utf-8")
    assert results.README_BEGIN in text and results.README_END in text
    assert results.readme_text(text, results.load_folder(results.RESULTS_DIR)) == text
