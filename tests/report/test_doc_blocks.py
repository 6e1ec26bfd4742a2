"""The generated blocks of README.md and docs/hardware/timing.md (:mod:`nc2600.host.report.doc_blocks`):
current with the committed record, every row backed by a record, and the tables worked by hand
from hand-made records."""
from __future__ import annotations

from nc2600.host.report import doc_blocks, results

AREAS = results.load_folder(results.RESULTS_DIR)


def _rec(figure: str, value, unit: str, label: str = "measured", date: str = "2026-01-01T00:00:00Z",
         notes: str = "") -> dict:
    return {"figure": figure, "value": value, "unit": unit, "label": label, "date": date, "notes": notes}


def test_readme_and_timing_blocks_are_current():
    """The committed pages hold each block, as ``nc2600 results`` writes it from the committed record."""
    readme = results.README.read_text(encoding="utf-8")
    for name in doc_blocks.README_BLOCKS:
        assert doc_blocks.block_begin(name) in readme and doc_blocks.block_end(name) in readme
    assert doc_blocks.with_blocks(readme, AREAS, doc_blocks.README_BLOCKS) == readme
    for path, blocks in doc_blocks.GUIDE_BLOCKS.items():
        text = path.read_text(encoding="utf-8")
        for name in blocks:
            assert doc_blocks.block_begin(name) in text and doc_blocks.block_end(name) in text, (path, name)
        assert doc_blocks.with_blocks(text, AREAS, blocks) == text, f"{path}: run nc2600 results"


def test_every_glance_figure_has_a_record():
    cur = results.newest(AREAS)
    missing = [f for _, figures in doc_blocks.GLANCE for f, _ in figures if f not in cur]
    assert missing == []
    assert not any("(no record)" in line for line in doc_blocks.glance_lines(AREAS))


def test_replace_block_keeps_the_hand_written_text():
    name = "x"
    text = f"before\n{doc_blocks.block_begin(name)}\nold 1\nold 2\n{doc_blocks.block_end(name)}\nafter\n"
    assert doc_blocks.replace_block(text, name, ["a", "b"]) == (
        f"before\n{doc_blocks.block_begin(name)}\na\nb\n{doc_blocks.block_end(name)}\nafter\n")
    assert doc_blocks.replace_block("no block\n", name, ["a"]) == "no block\n"
    # the end line before the first: not a block, left as it is
    swapped = f"{doc_blocks.block_end(name)}\n{doc_blocks.block_begin(name)}\n"
    assert doc_blocks.replace_block(swapped, name, ["a"]) == swapped


def test_glance_rows_by_hand(monkeypatch):
    """The newest record of each figure; one unit: values joined, unit once, qualifiers in one
    bracket; two units: each value with its unit and qualifier; a missing record said so."""
    monkeypatch.setattr(doc_blocks, "GLANCE", (
        ("speed", (("f a", "cc1"), ("f b", "cc3"))),
        ("mixed", (("f c", ""), ("f d", "timed"))),
        ("gone", (("f e", ""),)),
    ))
    areas = {"one": [_rec("f a", 5.0, "frames/s", date="2026-01-01T00:00:00Z"),
                     _rec("f a", 6.4, "frames/s", date="2026-02-01T00:00:00Z"),     # newer: this one
                     _rec("f b", 7.9, "frames/s"),
                     _rec("f c", 11571, "LUT"), _rec("f d", 154, "MHz (estimate)", label="model")]}
    assert doc_blocks.glance_lines(areas) == [
        "| figure | value | label |", "|---|---|---|",
        "| [speed](docs/results.md#f-a) | 6.4, 7.9 frames/s (cc1, cc3) | measured |",
        "| [mixed](docs/results.md#f-c) | 11,571 LUT, 154 MHz (estimate) (timed) | measured; model |",
        "| [gone](docs/results.md#f-e) | (no record) | (no record) |",
    ]


def test_lifcl_table_by_hand(monkeypatch):
    """Seed 1 linked, the seeds on record, router and critical path from seed 1's notes; a block
    or flow without a seed-1 record has no row."""
    monkeypatch.setattr(doc_blocks, "LIFCL_BLOCKS", ((("console",), "console_cc1"), (("cpu6507",), "cpu6507")))
    name = "console Fmax on LIFCL-40-9, placed and routed, seed {}"
    notes = "seed 1, carry ccu2, router router2; critical path a -> b, 6.6 ns (2.8 logic + 3.8 routing); 7 cells"
    areas = {"timing": [_rec(name.format(1), 139.43, "MHz", notes=notes), _rec(name.format(2), 143.82, "MHz"),
                        _rec("cpu6507 Fmax on LIFCL-40-9, placed and routed, seed 2", 80.0, "MHz")]}
    assert doc_blocks.lifcl_lines(areas) == [
        "| block | flow | Fmax, seed 1 | seeds on record | router, critical path (seed 1) |", "|---|---|---|---|---|",
        "| console_cc1 | default | [139.43 MHz](../results.md#console-fmax-on-lifcl-40-9-placed-and-routed-seed-1) | "
        "139.43, 143.82 | router2; a -> b, 6.6 ns (2.8 logic + 3.8 routing) |",
    ]


def test_lifcl_table_block_with_two_record_names(monkeypatch):
    """A block the records name two ways (``preprocessor``, ``preprocessor_cc1``) shows the name whose
    seed-1 record is newer, with that name's seeds only."""
    monkeypatch.setattr(doc_blocks, "LIFCL_BLOCKS", ((("preprocessor", "preprocessor_cc1"), "preprocessor_cc1"),))
    old, new = ("preprocessor Fmax on LIFCL-40-9, placed and routed, seed {}",
                "preprocessor_cc1 Fmax on LIFCL-40-9, placed and routed, seed {}")
    areas = {"timing": [_rec(old.format(1), 134.17, "MHz", date="2026-12-04T14:37:47Z"),
                        _rec(old.format(2), 131.0, "MHz", date="2026-12-04T15:00:00Z"),
                        _rec(new.format(1), 129.84, "MHz", date="2026-12-07T15:29:00Z")]}
    assert doc_blocks.lifcl_lines(areas)[2:] == [
        "| preprocessor_cc1 | default | [129.84 MHz]"
        "(../results.md#preprocessor_cc1-fmax-on-lifcl-40-9-placed-and-routed-seed-1) |  |  |"]
