"""The results record (:mod:`nc2600.host.report.results`) and the generated page ``docs/results.md``.

Oracles: the committed records themselves (the page must be what ``nc2600 results`` makes of
them, byte for byte), hand-written records with a known newest entry, and the record schema."""
from __future__ import annotations

import json
import re

import pytest

from nc2600.host.report import results
from nc2600.host.cli import main


def test_committed_page_is_what_the_records_give():
    """docs/results.md equals render(docs/results, docs/lockstep): edit a record, run `nc2600 results`."""
    assert results.PAGE.read_text(encoding="utf-8") == results.render(results.RESULTS_DIR, results.LOCKSTEP_DIR)


def test_results_check_command(tmp_path):
    assert main(["results", "--check"]) == 0
    stale = tmp_path / "results.md"
    stale.write_text("# Results\n")
    assert main(["results", "--check", "--out", str(stale)]) == 1
    assert main(["results", "--out", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8") == results.PAGE.read_text(encoding="utf-8")


def test_every_committed_record_is_valid_and_areas_are_known():
    areas = results.load_folder(results.RESULTS_DIR)
    assert set(areas) <= set(results.AREAS), "a records file whose stem is not an area of results.AREAS"
    for recs in areas.values():
        assert recs
        for r in recs:
            # the file keeps the field order, the optional fields after the others
            assert list(r) == [k for k in results.FIELDS + results.OPTIONAL_FIELDS if k in r]
            if r["label"] == "quoted":
                assert r["citation"] and not r["command"]


def test_one_current_lockstep_record_per_console_configuration():
    """docs/lockstep holds one results file per kind (console lockstep, instance lockstep),
    configuration and sweep length, named by them, its header naming the RTL build."""
    heads = []
    for p in sorted(results.LOCKSTEP_DIR.glob("*.jsonl")):
        kind = "instance" if p.name.startswith("instance") else "console"
        assert p.name.startswith(kind) and not any(re.fullmatch(r"[0-9a-f]{7,40}", w) for w in p.stem.split("_")), p
        head = json.loads(p.read_text().splitlines()[0])["instance_lockstep_results" if kind == "instance"
                                                         else "lockstep_results"]
        assert head["rtl"].startswith(kind)
        assert kind == "console" or f"_cc{head['colour_clocks']}_" in p.stem, p
        heads.append((kind, head.get("colour_clocks", head.get("colour_clocks_per_cycle")), head["frames"]))
        assert f"_{head['frames']}_frames" in p.stem, p
    assert heads and len(heads) == len(set(heads))
    assert {h[0] for h in heads} >= {"console"}


def _rec(value, date, **kw):
    base = dict(command="nc2600 bench host", commit_id="abc",
                machine_info={"cpu": "X", "cores": 2, "load_average": [1.0]},
                date=date)
    base.update(kw)
    return results.record("loop frames/s", value, "frames/s", "measured", **base)


def test_newest_first_history_folded_and_reproducible(tmp_path):
    recs = tmp_path / "r"
    results.append(recs / "launcher.jsonl", [_rec(100, "2026-01-02"), _rec(300, "2026-03-01"), _rec(200, "2026-02-01")])
    results.append(recs / "zz_other.jsonl", results.record("paper figure", 1.5, "M", "quoted", command="",
                                                           citation="arXiv 2005.04536", date="2020-05-10"))
    page = results.render(recs, tmp_path / "none")
    assert page == results.render(recs, tmp_path / "none")
    launcher, other = page.index("## Launcher throughput"), page.index("## zz_other")
    assert launcher < other                                   # known areas first, then by stem
    section = page[launcher:other]
    assert section.index("**300 frames/s**") < section.index("2 earlier records") < section.index("| 2026-02-01 | 200")
    assert section.index("| 2026-02-01 | 200") < section.index("| 2026-01-02 | 100")
    assert "arXiv 2005.04536" in page[other:]
    assert "loop-framess" in results.anchors(page)


def test_record_fills_provenance_and_refuses_bad_records(tmp_path):
    r = results.record("x", 1, "s")
    assert r["command"].startswith("nc2600") and r["machine"]["cores"] >= 1 and len(r["machine"]["load_average"]) == 3
    assert results._DATE.match(r["date"]) and r["date"].endswith("Z")
    with pytest.raises(ValueError, match="citation"):
        results.record("y", 1, "s", "quoted")
    with pytest.raises(ValueError, match="label"):
        results.record("y", 1, "s", "guessed")
    with pytest.raises(ValueError, match="finite"):
        results.record("y", float("nan"), "s")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"figure": "x"}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        results.load(bad)


def test_write_figures_appends_measured_records(tmp_path):
    out = tmp_path / "a" / "launcher.jsonl"
    results.write_figures(out, [("f1", 1.5, "x"), ("f2", 2, "y", "note")], notes="load")
    got = results.load(out)
    assert [(r["figure"], r["value"], r["label"], r["notes"]) for r in got] == [
        ("f1", 1.5, "measured", "load"), ("f2", 2, "measured", "note; load")]
    assert got[0]["date"] == got[1]["date"] and got[0]["machine"] == got[1]["machine"]


@pytest.mark.parametrize("value,text", [(1234567, "1,234,567"), (1411.6, "1,411.6"), (72.94, "72.94"),
                                        (1221.0, "1,221"), (0.974, "0.974"), ("104/104", "104/104")])
def test_format_value(value, text):
    assert results.format_value(value) == text


def test_record_option_on_games_verify_and_lockstep(tmp_path):
    """--record FILE appends the command's figure with its own command line; the oracle is the
    command's own JSON summary (ALE for games verify, ALE frame by frame for lockstep)."""
    out = tmp_path / "console.jsonl"
    assert main(["games", "verify", "--game", "pong", "--frames", "200", "--record", str(out)]) == 0
    assert main(["lockstep", "--game", "pong", "--frames", "8", "--record", str(out)]) == 0
    got = results.load(out)
    assert [(r["figure"], r["value"], r["label"]) for r in got] == [
        ("game rules from RAM against ALE", "1/1", "measured"),
        ("games exact against ALE over 8 frames, three colour clocks per clock", "1/1", "measured")]
    assert got[0]["command"].endswith(f"--record {out}") and got[0]["machine"]["cores"] >= 1


def test_synth_and_bench_figures_from_their_reports():
    from nc2600.host.report import record_figures as rf
    rep = {"blocks": {"console": {"resources": {"luts": 4910, "lutram": 0, "ff": 1623, "bram36": 4, "dsp": 0,
                                                "carry4": 9},
                                  "depth": {"levels": 10, "timed": {"mhz": 142.9, "ns": 7.0, "levels": 10}}}},
           "pnr": {"console": {"fmax_mhz": 66.6}}}
    assert [(f[0], f[1], f[2]) for f in rf.synth(rep)] == [
        ("console resources on xc7", 4910, "LUT"), ("console timed estimate on xc7", 142.9, "MHz (estimate)"),
        ("console Fmax on ECP5-85, placed and routed", 66.6, "MHz")]
    host = {"game": "breakout", "policy": "float", "workers": 2, "envs_per_block": 6, "raw_fps_per_core": 17313.0,
            "loop_fps": 18731.0, "ratio": 0.541, "cpu_ratio": 0.544, "loop_cpu_us_per_frame": 106.2,
            "worker_idle_share": 0.005}
    assert [(f[0], f[1]) for f in rf.bench_host(host)] == [
        ("raw ALE frames/s per core", 17313.0), ("evaluation loop frames/s, 2 workers, float", 18731.0),
        ("evaluation loop wall ratio to raw ALE, float", 0.541)]


def test_results_refuses_a_records_folder_without_records(tmp_path, capsys):
    """A --records folder with no record (empty, other files only, or empty .jsonl files) would
    write a page of no figures: one line, exit 2, the page left as it was; one record is enough."""
    recs, page = tmp_path / "recs", tmp_path / "results.md"
    recs.mkdir()
    page.write_text("# kept\n")
    for make in (lambda: None, lambda: (recs / "notes.txt").write_text("x"),
                 lambda: (recs / "launcher.jsonl").write_text("")):
        make()
        for extra in ([], ["--check"]):
            rc = main(["results", "--records", str(recs), "--out", str(page), *extra])
            err = capsys.readouterr().err
            assert rc == 2 and err == (f"nc2600: error: --records '{recs}' holds no results records (*.jsonl files "
                                       f"of records, as --record FILE appends them)\n")
            assert page.read_text() == "# kept\n"
    results.append(recs / "launcher.jsonl", _rec(100, "2026-01-02"))
    (tmp_path / "none").mkdir()                 # a lockstep folder holding no files (a missing one is refused)
    assert main(["results", "--records", str(recs), "--lockstep", str(tmp_path / "none"), "--out", str(page)]) == 0
    assert "**100 frames/s**" in page.read_text()
