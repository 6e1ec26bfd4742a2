"""``nc2600 synth`` / nc2600.hwtools.synth: Yosys synth_xilinx counts on small designs with known answers.

Oracles: a hand-written Verilog design whose mapped resources are known by construction
(an 8-bit counter: 8 flip-flops; a 1024 x 32 synchronous RAM: 32 Kib = one RAMB36 or two
RAMB18; a registered 16 x 16 multiply: one DSP48E1), Zynq-7045 capacities from DS190,
and the fit arithmetic worked by hand.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from nc2600.hls_models.platform import XC7Z045
from nc2600.hwtools import synth

KNOWN = """
module known (input wire clk, input wire [9:0] addr, input wire [31:0] wdata, input wire we,
              input wire signed [15:0] a, input wire signed [15:0] b,
              output reg [7:0] count, output reg [31:0] rdata, output reg signed [31:0] prod);
    reg [31:0] mem [0:1023];
    always @(posedge clk) begin
        count <= count + 8'd1;
        if (we) mem[addr] <= wdata;
        rdata <= mem[addr];
        prod <= a * b;
    end
endmodule
"""


def test_count_resources_by_hand():
    cells = {"LUT1": 2, "LUT6": 10, "RAM64M": 3, "SRLC32E": 2, "FDRE": 7, "FDSE": 1, "RAMB18E1": 3,
             "RAMB36E1": 2, "DSP48E1": 4, "CARRY4": 5, "MUXF7": 6}
    r = synth.count_resources(cells)
    assert (r["lut"], r["lutram"], r["luts"], r["ff"], r["bram36"], r["dsp"], r["carry4"]) == \
        (12, 3 * 4 + 2, 26, 8, 3.5, 4, 5)
    assert r["other"] == {"MUXF7": 6}


def test_fit_by_hand():
    res = {"luts": 1000, "ff": 100, "bram36": 2.5, "dsp": 0}
    f = synth.fit(res)
    # 218,600 / 1000 = 218; 437,200 / 100 = 4372; 545 / 2.5 = 218 -> 218, LUTs first at equality
    assert f["instances"] == 218 and f["limited_by"] in ("luts", "bram36")
    assert XC7Z045["luts"] == 218_600 and XC7Z045["ff"] == 437_200
    assert XC7Z045["bram36"] == 545 and XC7Z045["dsp"] == 900


def test_known_design_counts():
    rep = synth.synth_block("known", KNOWN, use_cache=False)
    r = rep["resources"]
    assert r["ff"] == 8                      # the counter; RAM output and product sit in BRAM / DSP registers
    assert r["bram36"] == 1.0                # 1024 x 32 bits = one RAMB36 (or two RAMB18)
    assert r["dsp"] == 1                     # 16 x 16 signed multiply
    assert r["luts"] >= 1                    # at least the counter's bit-0 inverter (INV = LUT1)
    assert rep["fit"]["instances"] == 545 and rep["fit"]["limited_by"] == "bram36"


def test_action_select_nonzero_and_stable():
    verilog = synth.available_blocks(block="action_select")["action_select"]
    a = synth.synth_block("action_select", verilog, use_cache=False)
    b = synth.synth_block("action_select", verilog, use_cache=False)
    assert a["cells"] == b["cells"]
    r = a["resources"]
    assert r["luts"] > 100 and r["ff"] > 100 and r["dsp"] == 0 and r["bram36"] == 0
    assert a["fit"]["instances"] == math.floor(min(218_600 / r["luts"], 437_200 / r["ff"]))
    # the cache returns the same figures
    c = synth.synth_block("action_select", verilog)
    assert c["cached"] and c["cells"] == a["cells"]


def test_node_incomplete_without_console():
    blocks = {"preprocessor": {"resources": dict(lut=10, lutram=2, luts=12, ff=5, bram36=4.0, dsp=0, carry4=1)},
              "action_select": {"resources": dict(lut=3, lutram=0, luts=3, ff=7, bram36=0.0, dsp=0, carry4=0)}}
    node = synth.node_totals(blocks, {"console": 2, "preprocessor": 2, "action_select": 2})
    assert node["missing"] == ["console"] and not node["complete"] and node["fit"] is None
    assert node["resources"]["luts"] == 2 * 12 + 2 * 3 and node["resources"]["bram36"] == 8.0
    full = synth.node_totals(blocks, {"preprocessor": 1, "action_select": 1})
    assert full["complete"] and full["fit"]["instances"] == math.floor(545 / 4.0)


def test_cli_one_block_json(capsys):
    from nc2600.host.cli import main
    assert main(["synth", "--block", "action_select", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert set(rep["blocks"]) == {"action_select"} and rep["blocks"]["action_select"]["resources"]["luts"] > 0
    assert "DS190" in rep["device"]["source"]


def test_one_block_elaborates_its_own_module_only(monkeypatch):
    """``available_blocks(block=...)`` (``nc2600 synth --block``) runs the ``generate()`` of the
    block's module only (each module takes seconds; the whole list about a minute), the module
    nc2600.hwtools.generate.RTL declares for the block's file (``nc2600.hw.console`` for ``console_cc3``); the text is
    the committed ``rtl/`` file's (current by tests/rtl). ``lanes`` with ``--block policy_engine`` elaborates the
    engine of that shape only (its ``generate()`` a stand-in here: the call is what is checked)."""
    import importlib
    called = []
    for name in synth.generating_modules():
        module = importlib.import_module(name)

        def spy(*a, _name=name, _generate=module.generate, **k):
            called.append((_name, a, k))
            return _generate(*a, **k)
        monkeypatch.setattr(module, "generate", spy)
    rtl = Path(__file__).resolve().parents[2] / "rtl"
    for block, module in (("action_select", "nc2600.hw.action_select"), ("console_cc3", "nc2600.hw.console")):
        called.clear()
        assert synth.available_blocks(block=block) == {block: (rtl / f"{block}.v").read_text()}
        assert called == [(module, (), {})], block
    called.clear()
    monkeypatch.setattr(importlib.import_module("nc2600.hw.policy_engine"), "generate",
                        lambda *a, **k: called.append(("nc2600.hw.policy_engine", a, k))
                        or {"policy_engine.v": "4 lanes"})
    assert synth.available_blocks(lanes=4, block="policy_engine") == {"policy_engine": "4 lanes"}
    assert called == [("nc2600.hw.policy_engine", (4,), {})]


def test_rtl_declares_every_generating_module_and_its_files_tops():
    """Every ``hw/*.py`` defining ``generate()`` (read from the source) is declared in
    nc2600.hwtools.generate.RTL or generated on request (the node), each declared top module is the
    file's stem (the name yosys gets as ``-top``), and the declared files are the committed rtl/."""
    import re

    from nc2600.hwtools.generate import MODULES, RTL
    root = Path(__file__).resolve().parents[2]
    generating = {f"nc2600.hw.{p.stem}" for p in (root / "hw").glob("*.py") if re.search(r"^def generate\(",
                                                                                         p.read_text(), re.M)}
    assert generating == set(MODULES) | {v.partition(":")[0] for v in synth.ON_REQUEST.values()}
    assert synth.generating_modules() == list(MODULES)
    assert all(Path(f).stem == g.top for f, g in RTL.items())
    assert set(RTL) == {p.name for p in (root / "rtl").glob("*.v")}


def test_collect_takes_the_declared_map_only(monkeypatch):
    """collect(files) elaborates the declared module of each file asked for (none for a name RTL
    does not declare), and refuses a module that returns an undeclared file or a file that does not
    define its declared top (hand-made generate() stand-ins)."""
    import importlib

    from nc2600.hwtools import generate
    called = []
    action_select = importlib.import_module("nc2600.hw.action_select")
    preprocessor = importlib.import_module("nc2600.hw.preprocessor")
    monkeypatch.setattr(action_select, "generate", lambda: called.append("as") or {
        "action_select.v": "// x\nmodule action_select(a);\nendmodule\n"})
    monkeypatch.setattr(preprocessor, "generate", lambda: called.append("pp") or {
        "preprocessor_cc1.v": "module preprocessor_cc1 (a);\n",
        "preprocessor_cc3.v": "module \\preprocessor_cc3 (a);\n"})
    assert generate.collect(["action_select.v",
                             "nonesuch.v"]) == {"action_select.v": "// x\nmodule action_select(a);\nendmodule\n"}
    assert called == ["as"]
    assert list(generate.collect(["preprocessor_cc3.v", "action_select.v", "preprocessor_cc1.v"])) == [
        "preprocessor_cc1.v", "preprocessor_cc3.v", "action_select.v"]      # RTL's order
    called.clear()
    assert generate.collect([]) == {} and generate.collect(["nonesuch.v"]) == {} and called == []
    monkeypatch.setattr(action_select, "generate", lambda: {"action_select.v": "module action_select(a);",
                                                            "extra.v": "module extra(a);"})
    with pytest.raises(RuntimeError, match=r"returns \['action_select.v', 'extra.v'\]"):
        generate.collect(["action_select.v"])
    monkeypatch.setattr(action_select, "generate", lambda: {"action_select.v": "module action_select_x(a);"})
    with pytest.raises(RuntimeError, match="does not define its top module action_select"):
        generate.collect(["action_select.v"])



def test_report_without_pnr_names_a_cached_pnr_result(monkeypatch):
    """Without --pnr the timing line still gives what an earlier --pnr measured on exactly this
    Verilog (the cache `nc2600 report` reads); with no such entry it says only that P&R was not run."""
    from nc2600.hwtools import ecp5_pnr
    root = Path(__file__).resolve().parents[2]
    verilog = (root / "rtl" / "action_select.v").read_text()     # = generated (tests/architecture checks)
    monkeypatch.setattr(synth, "available_blocks",
                        lambda lanes=None, block=None, array=None: {"action_select": verilog})
    seen = []

    def fake_cached(name, text, *a, **k):
        seen.append((name, text == verilog))
        return {"fmax_mhz": 123.45, "seed": 2}
    monkeypatch.setattr(ecp5_pnr, "cached_pnr", fake_cached)
    rep = synth.report("action_select")
    assert seen == [("action_select", True)]
    assert rep["proxy_pnr"] == (synth.PROXY_PNR + f"; known on {ecp5_pnr.ECP5['label']}: action_select Fmax 123.45 "
                                "MHz measured by an earlier --pnr of this exact Verilog (seed 2, cached)")
    assert "timing: " + rep["proxy_pnr"] in synth.format_report(rep)
    monkeypatch.setattr(ecp5_pnr, "cached_pnr", lambda *a, **k: None)
    assert synth.report("action_select")["proxy_pnr"] == synth.PROXY_PNR

def test_cli_bad_block(capsys, monkeypatch, tmp_path):
    from nc2600.host.cli import main

    def no_elaboration(*a, **k):
        raise AssertionError("elaborated before the name and --out were checked")
    # refused before the elaboration of every block (tens of seconds): a new user's find
    monkeypatch.setattr(synth, "available_blocks", no_elaboration)
    assert main(["synth", "--block", "nosuchblock"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown block" in err
    (tmp_path / "file").write_text("x")
    assert main(["synth", "--block", "console_cc1", "--out", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a folder" in err
    monkeypatch.undo()
    with pytest.raises(SystemExit) as exc:
        main(["synth", "--family", "ice40"])
    assert exc.value.code == 2


def test_engines_beside_by_hand():
    node = {"luts": 10_000, "ff": 4_000, "bram36": 45, "dsp": 12}
    engine = {"luts": 2_000, "ff": 3_000, "bram36": 100, "dsp": 16}
    # BRAM36: (545 - 45) / 100 = 5; DSP: 888 / 16 = 55; LUT: 208,600 / 2,000 = 104
    got = synth.engines_beside(node, engine)
    assert got["engines"] == 5 and got["limited_by"] == "bram36"
    assert got["left"]["bram36"] == 500


def test_array_engines_beside_by_hand():
    """The array engine's instances keep the word stack: 16 rows, 8 BRAM36 against the byte
    stack's 7 (nc2600.hw.preprocessor.bram36), so a node's two preprocessors take 2 more; BRAM36:
    (545 - 345 - 2) / 196 = 1.01 -> 1 engine (without the word stack's two blocks: (545 - 345) / 196
    = 1.02, also 1; with a 347-block node, 198 / 196 = 1.01)."""
    node = {"luts": 20_000, "ff": 12_000, "bram36": 345, "dsp": 52}
    engine = {"luts": 8_000, "ff": 4_400, "bram36": 196, "dsp": 256}
    got = synth.array_engines_beside(node, engine, (16, 16))
    assert got["stack_bram36"] == 2 and got["left"]["bram36"] == 545 - 347
    assert got["engines"] == 1 and got["limited_by"] == "bram36"
    node["bram36"] = 150     # (545 - 152) / 196 = 2.005 -> 2; DSP (900 - 52) / 256 = 3.3
    got = synth.array_engines_beside(node, engine, (16, 16))
    assert got["engines"] == 2 and got["limited_by"] == "bram36"


def test_cli_lanes_bad_input(capsys):
    from nc2600.host.cli import main
    assert main(["synth", "--block", "policy_engine", "--lanes", "6"]) == 2
    assert "--lanes: lanes must be a multiple of 4" in capsys.readouterr().err
    assert main(["synth", "--block", "console_cc1", "--lanes", "16"]) == 2
    assert "--lanes applies to the policy engine" in capsys.readouterr().err


def test_node_netlist_line_by_hand():
    """``--block node``: the node's own netlist figures and its fit are printed (hand-made report)."""
    res = dict(lut=90_000, lutram=10_000, luts=100_000, ff=50_000, bram36=400.0, dsp=40, carry4=0)
    fit = synth.fit(res)
    assert fit["instances"] == 1 and fit["limited_by"] == "bram36"     # 545 / 400 = 1; 218,600 / 100,000 = 2
    rep = {"family": "xc7", "yosys": "y", "device": synth.XC7Z045, "depth_rule": "r", "proxy_pnr": "p",
           "blocks": {"node": {"resources": res, "fit": fit, "depth": {"levels": 9, "estimate_mhz": 100.0,
                                                                        "from": "a", "to": "b"}}},
           "node_netlist": {"instances": 2, "resources": res, "fit": fit, "note": "two instances"}}
    text = synth.format_report(rep)
    assert "node as one netlist (two instances): 100,000 LUT, 50,000 FF, 400 BRAM36, 40 DSP; 1 per XC7Z045 " \
           "(limited by bram36)" in text
    assert "node" in synth.ON_REQUEST and "nc2600.hw.node" not in synth.generating_modules()


SHARED = """
module \\cell.sub (input wire clk, input wire [3:0] a, output reg [3:0] q);
    always @(posedge clk) q <= q + a;
endmodule
module cell (input wire clk, input wire [3:0] a, output wire [3:0] q);
    \\cell.sub s (.clk(clk), .a(a), .q(q));
endmodule
module twice (input wire clk, input wire [3:0] a, output wire [3:0] q0, output wire [3:0] q1, output reg x);
    cell c0 (.clk(clk), .a(a), .q(q0));
    cell c1 (.clk(clk), .a(~a), .q(q1));
    always @(posedge clk) x <= ^(q0 ^ q1);
endmodule
"""


def test_keep_hierarchy_counts_every_copy(monkeypatch):
    """A module kept whole through synth_xilinx (mapped once, instantiated twice, as the node's
    ``instance``) still counts in every copy: 2 x 4 accumulator flip-flops + 1 = 9 FF, one
    flattened module, and the depth walk reaches the parity register through both copies."""
    monkeypatch.setitem(synth.KEEP_HIERARCHY, "twice", ("cell",))
    script = synth.yosys_script("twice")
    assert "setattr -mod -set keep_hierarchy 1 cell; synth_xilinx" in script
    assert "setattr -mod -unset keep_hierarchy cell; flatten; tee" in script
    rep = synth.synth_block("twice", SHARED, use_cache=False)
    assert rep["resources"]["ff"] == 9 and rep["resources"]["bram36"] == 0
    assert rep["depth"]["levels"] >= 2


def test_node_text_holds_the_instance_once():
    """``nc2600.hw.node.generate()``: the instance's module text (``rtl/instance_cc3.v``, the committed
    generation) once, and the node's two cells of it connecting every port of that module."""
    import re
    from pathlib import Path

    from nc2600.hw.node import generate
    text = generate()["node.v"]
    inst = (Path(synth.REPO_ROOT) / "rtl" / "instance_cc3.v").read_text()
    assert text.startswith(inst) and len(re.findall(r"^module instance_cc3\(", text, re.M)) == 1
    header = re.search(r"^module instance_cc3\((.*?)\);", inst, re.M | re.S).group(1)
    ports = sorted(p.strip() for p in header.split(","))
    cells = re.findall(r"^  instance_cc3 \\cell  \((.*?)\);", text[len(inst):], re.M | re.S)
    assert len(cells) == 2
    for cell in cells:
        assert sorted(re.findall(r"\.(\w+)\(", cell)) == ports


LOOP = """
module looped (input wire clk, input wire x, input wire y, output reg q);
    wire a, b;
    assign a = b ^ x;
    assign b = ~(a & y);
    always @(posedge clk) q <= a;
endmodule
"""


def test_combinational_loop_is_reported_not_raised():
    """A netlist with a structural combinational loop (here a real one, written by hand) has no
    longest path: the block's report says so (levels None, the loop's cells) and the tables print
    it, instead of the depth walk's ValueError ending ``nc2600 synth`` with a traceback."""
    rep = synth.synth_block("looped", LOOP, use_cache=False)
    d = rep["depth"]
    assert d["levels"] is None and d["estimate_mhz"] is None and "combinational loop" in d["loop"]
    assert rep["resources"]["ff"] == 1
    text = synth.format_report({"family": "xc7", "yosys": "y", "device": synth.XC7Z045, "depth_rule": "r",
                                "proxy_pnr": "p", "blocks": {"looped": rep}})
    row = next(line for line in text.splitlines() if line.startswith("looped "))
    assert row.split()[-2:] == ["loop", "-"] and "  looped: no depth: combinational loop" in text
