"""``nc2600 report`` / nc2600.host.report.throughput: figures checked against the inputs they were computed from.

The pure part (:func:`nc2600.host.report.throughput.compute`) gets hand-made inputs and every derived figure
is worked out by hand here (the policy cycle count from the network's shapes, not from the
model); the end-to-end run checks the measured RTL figures against hand-derived values and
the fabric figures against mesh_sim run directly with the same options.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from nc2600.host.report import measure, render
from nc2600.host.report import throughput as rp

FAKE_MESH = {"projected_fps": 1.0e6, "ceiling_fps": 1.4e6, "time_fractions": {"counted_frames": 0.7, "barrier": 0.3},
             "gap_fps": {"barrier": 4e5}, "topology": {"instances": 832}, "schedule": "static",
             "instance": {"colour_clocks_per_frame": 59736, "colour_clocks_source": "given"},
             "options": {"generations": 2, "population": 1000, "episode_steps": "fixed:5000", "elite_episodes": 0}}


def small_inputs() -> rp.Inputs:
    pong = rp.GameInputs("pong", n_actions=6, colour_clocks=np.array([59736, 59736, 60192, 59280]),
                         pp_latencies=[7, 7, 7], screen="NTSC, 210 rows")
    brk = rp.GameInputs("breakout", n_actions=4, colour_clocks_missing="no console here",
                        pp_missing="no preprocessor here")
    return rp.Inputs(games=[pong, brk], clock_mhz=100.0, lanes=8, frame_skip=4, action_select_latency=5,
                     mesh={"pong": {"headline": FAKE_MESH}})


def find(figs, name_start, game):
    hits = [f for f in figs if f.name.startswith(name_start) and f.game == game]
    assert len(hits) == 1, (name_start, game, [f.name for f in figs])
    return hits[0]


def test_compute_against_hand_worked_values():
    figs = rp.compute(small_inputs())["figures"]
    # colour clocks: mean (59736*2 + 60192 + 59280) / 4 = 59736, min 59280, max 60192
    assert find(figs, "colour clocks per frame, mean", "pong").value == 59736
    assert find(figs, "colour clocks per frame, min", "pong").value == 59280
    assert find(figs, "colour clocks per frame, max", "pong").value == 60192
    assert find(figs, "colour clocks per frame, mean", "pong").kind == rp.RTL
    # policy, 6 actions on 8 lanes, by hand from the layer shapes (P * ceil(N/L) * K):
    # conv1 400*2*256 + conv2 81*4*256 + dense1 1*32*2592 + dense2 1*1*256 = 370,944;
    # + write-back gaps after conv1, conv2, dense1 of (4 + 2 + 8 busy lanes) each = 42 (MAC pipeline
    # 4, requantiser 2), the last group's 4 + 1, argmax latency ceil(log2 6) = 3  ->  370,994
    inf = find(figs, "policy inference", "pong")
    assert inf.value == 370_994 and inf.kind == rp.MODEL
    # emulation only: 100 MHz / 59,736
    emu = find(figs, "frames/s, emulation only", "pong")
    assert emu.value == pytest.approx(100e6 / 59736) and emu.kind == rp.DERIVED
    # serial decision: 4 * 59,736 + 7 + (370,994 - 3) + 5 = 609,947 cycles per 4 frames
    assert find(figs, "frames/s, serial", "pong").value == pytest.approx(4e8 / 609_947)
    # pipelined: the decision path 371,003 outlasts the 238,944-cycle period: 371,003 per decision
    assert find(figs, "frames/s, pipelined", "pong").value == pytest.approx(4e8 / 371_003)
    # fabric figures are the mesh report's, unchanged
    assert find(figs, "projected fabric frames/s, headline", "pong").value == 1.0e6
    assert find(figs, "headline: instance time in barrier", "pong").value == pytest.approx(30.0)
    # the published figures are there, the per-instance 2514 only at its own 150 MHz
    pub = {f.name: f.value for f in figs if f.kind == rp.PUBLISHED}
    assert 1.2e6 in pub.values() and 2.09e6 in pub.values() and 2514 not in pub.values()


def test_missing_blocks_are_missing_not_invented():
    figs = rp.compute(small_inputs())["figures"]
    cc = find(figs, "colour clocks per frame (RTL console)", "breakout")
    assert cc.kind == rp.MISSING and cc.value is None and "no console here" in cc.source
    assert find(figs, "preprocessor latency", "breakout").value is None
    assert find(figs, "frames/s with preprocessing and inference", "breakout").kind == rp.MISSING
    assert find(figs, "projected fabric frames/s (mesh_sim)", "breakout").kind == rp.MISSING
    # the nominal NTSC frame is labelled a model, never an RTL measurement
    emu = find(figs, "frames/s, emulation only", "breakout")
    assert emu.kind == rp.MODEL and "console RTL missing" in emu.source
    assert emu.value == pytest.approx(100e6 / 59736)
    for f in figs:
        assert (f.value is None) == (f.kind == rp.MISSING)
        assert f.kind in rp.KINDS


def test_write_renders_md_html_json(tmp_path):
    render.write(small_inputs(), tmp_path, {"command": "test"})
    md = (tmp_path / "report.md").read_text()
    html = (tmp_path / "report.html").read_text()
    data = json.loads((tmp_path / "report.json").read_text())
    assert "## Missing" in md and "no console here" in md
    assert sorted(data["images"]) == ["colour_clocks_pong.png", "decision_cycles.png", "fabric_fps.png",
                                      "fabric_time.png"]
    for name in data["images"]:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert name in md
    assert html.count("data:image/png;base64,") == 4 and "src='colour" not in html
    assert data["per_game"]["pong"]["colour_clocks"] == [59736, 59736, 60192, 59280]
    assert not list(tmp_path.glob(".*tmp*"))



def test_a_report_written_over_an_earlier_one_leaves_one_report(tmp_path):
    """A second report into the same folder removes what the earlier report made and this one did
    not (another game's plot and measurement inputs), after it is complete; the user's own files
    and anything the earlier report did not list stay."""
    import dataclasses
    first = small_inputs()
    boxing = rp.GameInputs("boxing", n_actions=18, colour_clocks=np.array([59736, 59736]),
                           pp_latencies=[7], screen="NTSC, 210 rows")
    first = dataclasses.replace(first, games=[*first.games, boxing])
    render.write(first, tmp_path, {"command": "first"})
    assert (tmp_path / "colour_clocks_boxing.png").is_file()
    for name in ("actions_boxing.npy", "actions_pong.npy"):               # as measure_colour_clocks leaves them
        (tmp_path / "inputs").mkdir(exist_ok=True)
        np.save(tmp_path / "inputs" / name, np.zeros(4, np.int64))
    (tmp_path / "inputs" / "rtl_play_boxing").mkdir()
    (tmp_path / "inputs" / "rtl_play_boxing" / "colour_clocks.npy").write_bytes(b"x")
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "other.png").write_bytes(b"mine")
    render.write(small_inputs(), tmp_path, {"command": "second"})               # pong and breakout only
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["meta"]["command"] == "second" and sorted(data["per_game"]) == ["breakout", "pong"]
    assert not (tmp_path / "colour_clocks_boxing.png").exists()
    assert not (tmp_path / "inputs" / "actions_boxing.npy").exists()
    assert not (tmp_path / "inputs" / "rtl_play_boxing").exists()
    assert (tmp_path / "inputs" / "actions_pong.npy").is_file()
    assert (tmp_path / "notes.txt").read_text() == "mine" and (tmp_path / "other.png").read_bytes() == b"mine"
    for name in data["images"]:
        assert (tmp_path / name).is_file()

def test_action_select_latency_on_rtl():
    # ceil(log2 18) = 5 registered tree levels (hand count for 18 lanes), 1 for 2 lanes, 3 for 6
    assert measure.measure_action_select_latency(18) == 5
    assert measure.measure_action_select_latency(2) == 1
    assert measure.measure_action_select_latency(6) == 3


def test_cli_end_to_end(tmp_path, capsys):
    from dataclasses import replace

    from nc2600.host.cli import main
    from nc2600.mesh_sim.project import simulate
    out = tmp_path / "rep"
    assert main(["report", "--game", "pong", "--frames", "8", "--clock-mhz", "100", "--no-instance",
                 "--out", str(out)]) == 0
    data = json.loads((out / "report.json").read_text())
    figs = [rp.Figure(**f) for f in data["figures"]]
    assert find(figs, "preprocessor latency", "pong").value == 8      # 2 observations (frames 3 and 7)
    assert "max over 2 observations" in find(figs, "preprocessor latency", "pong").name
    assert find(figs, "action-select latency", None).value == 5
    measured = data["per_game"]["pong"]["colour_clocks"]
    if not measure.rtl_play_available():
        assert measured is None
        assert find(figs, "colour clocks per frame (RTL console)", "pong").kind == rp.MISSING
        cc = None
    else:
        # the console's own output file (nc2600 rtl-play colour_clocks.npy), 8 frames
        raw = np.load(out / "inputs" / "rtl_play_pong" / "colour_clocks.npy")
        assert measured == raw.tolist() and len(raw) == 8
        assert find(figs, "colour clocks per frame, mean", "pong").value == pytest.approx(raw.mean())
        assert find(figs, "colour clocks per frame, max", "pong").value == raw.max()
        cc = int(round(raw.mean()))
    # the default engine is the 16 x 16 array: its model's 11,642 cycles for pong's 6 actions (hand
    # count in test_array_engine_figures_from_its_model_and_its_instance)
    assert find(figs, "policy inference", "pong").value == 11_642
    # the fabric figure is mesh_sim's for the same options (pong: 6 actions, the array engine's
    # decision path, 100 MHz)
    opts = measure.mesh_cases()["headline"]
    want = simulate(replace(opts, clock_mhz=100.0, lanes=16, n_actions=6, colour_clocks_per_frame=cc,
                            inference_cycles=11_642))
    assert find(figs, "projected fabric frames/s, headline", "pong").value == pytest.approx(want["projected_fps"])
    # and the three-colour-clock console's case: the same options at 3 colour clocks per clock
    want3 = simulate(replace(opts, clock_mhz=100.0, lanes=16, n_actions=6, colour_clocks_per_frame=cc,
                             colour_clocks=3, inference_cycles=11_642))
    three = find(figs, "projected fabric frames/s, 3 colour clocks per clock, headline", "pong")
    assert three.value == pytest.approx(want3["projected_fps"]) and "--colour-clocks 3" in three.command
    assert want3["ceiling_fps"] == pytest.approx(3 * want["ceiling_fps"])
    assert (out / "report.html").exists() and (out / "report.md").exists()
    err = capsys.readouterr().err
    assert "[1/4]" in err and "[4/4]" in err


@pytest.mark.parametrize("argv,needle", [(["--game", "nosuchgame"], "nosuchgame"),
                                         (["--clock-mhz", "0"], "a clock in MHz in [0.001, 10000]"),
                                         (["--game", "pong", "--game", "pong"], "twice"),
                                         (["--array", "16x"], "ROWSxCOLS"), (["--array", "16x32"], "cols"),
                                         (["--lanes", "32"], "--engine lane"),
                                         (["--engine", "lane", "--array", "8x8"], "--array applies")])
def test_cli_bad_input(argv, needle, tmp_path, capsys):
    from nc2600.host.cli import main
    try:
        rc = main(["report", "--out", str(tmp_path / "r"), *argv])
    except SystemExit as exc:
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err
    assert needle in err and err.strip().count("\n") == 0
    assert not (tmp_path / "r" / "report.md").exists()


@pytest.mark.parametrize("kw,engine", [({}, "array"), ({"engine": "lane"}, "lane"), ({"array": (8, 8)}, "array")])
def test_gather_defaults_to_the_instances_engine(monkeypatch, tmp_path, kw, engine):
    """measure.gather without an engine measures and models the instance's default engine (the
    16 x 16 array, nc2600.hls_models.engines.DEFAULT_ENGINE); ``engine="lane"`` the lane engine. The RTL
    measurements are stand-ins here (each reported missing); the inference figure and the mesh
    projection's decision path are the engine's model for pong's 6 actions."""
    import nc2600.hw.console
    from nc2600.hls_models.engines import DEFAULT_ENGINE
    from nc2600.hls_models.policy_array import inference_cycles as array_cycles
    from nc2600.hls_models.policy_int8 import inference_cycles as lane_cycles
    assert DEFAULT_ENGINE == "array"
    monkeypatch.setattr(nc2600.hw.console, "generate", lambda: {})          # no console elaboration: P&R cache missing
    monkeypatch.setattr(measure, "measure_action_select_latency", lambda *a: 3)
    monkeypatch.setattr(measure, "measure_colour_clocks", lambda *a, **k: (None, "stand-in", "cmd"))
    monkeypatch.setattr(measure, "measure_preprocessor_latency", lambda *a, **k: (None, "stand-in", "NTSC, 210 rows"))
    inp = measure.gather(["pong"], frames=8, instance=False, progress=lambda m: None, work=tmp_path, **kw)
    shape = kw.get("array", (16, 16))
    want = array_cycles(6, *shape) if engine == "array" else lane_cycles(6, 16)
    assert inp.array == (shape if engine == "array" else None)
    assert find(rp.compute(inp)["figures"], "policy inference", "pong").value == want
    for rep in inp.mesh["pong"].values():
        assert rep["instance"]["engine"] == engine and rep["instance"]["inference_cycles"] == want
    with pytest.raises(ValueError, match="array applies to the array engine"):
        measure.gather(["pong"], engine="lane", array=(16, 16), progress=lambda m: None)


INSTANCE = {"frames": 100, "decisions": 24, "episode_seed": 0, "lanes": 16, "emulation_per_frame": 59738.0,
            "host_rules_per_frame": 41.0, "preprocessor_per_decision": 1.0, "inference_per_decision": 185923.0,
            "action_select_per_decision": 5.0, "controller_per_episode": 1, "param_load": 512508,
            "reset_replay": 11683338}


def test_instance_phases_give_the_per_instance_figures():
    """With the fabric instance measured, the per-instance frames/s come from its phases (hand-worked)
    and every phase is reported as measured on the RTL."""
    inp = small_inputs()
    inp.games[0].instance = dict(INSTANCE)
    inp.games[0].instance_command = "nc2600 instance-play ..."
    res = rp.compute(inp)
    figs = res["figures"]
    assert find(figs, "fabric instance: inference per decision", "pong").value == 185923
    assert find(figs, "fabric instance: inference per decision", "pong").kind == rp.RTL
    assert find(figs, "fabric instance: parameter load", "pong").value == 512508
    # serial: 4 x (59,738 + 41) + 1 + 185,923 + 5 = 425,045 cycles per 4 frames at 100 MHz
    ser = find(figs, "frames/s, serial", "pong")
    assert ser.value == pytest.approx(4e8 / 425_045) and ser.kind == rp.DERIVED and "Verilated" in ser.source
    # pipelined: path 185,929 < 238,952 -> no stall: 4 x 59,779 = 239,116
    assert find(figs, "frames/s, pipelined", "pong").value == pytest.approx(4e8 / 239_116)
    assert res["per_game"]["pong"]["cycles"]["host_rules"] == 164
    # the game without a measurement says so
    assert find(figs, "fabric instance cycles by phase", "breakout").kind == rp.MISSING
    # mesh_sim options from the phases: 59,779 cycles per frame, a 185,929-cycle decision path
    t = measure.instance_mesh_timing(INSTANCE)
    assert (t["colour_clocks_per_frame"], t["inference_cycles"]) == (59779, 185929)


def test_array_engine_figures_from_its_model_and_its_instance():
    """``--array 16x16``: the inference figure is the array engine's model (6 actions, by hand:
    issue cycles P * ceil(N/16) * K/16: conv1 400*1*16 + conv2 81*2*16 + dense1 1*16*162 + dense2
    1*1*16 = 11,600, three layer gaps of 6 + log2 16 = 10, the pipeline 4 + 4 and one cycle:
    11,639; argmax ceil(log2 6) = 3: 11,642), and the serial frames/s come from the array instance's phases:
    4 x (19,914 + 36) + 1 + 11,655 + 5 = 91,461 cycles per 4 frames at 100 MHz."""
    inp = small_inputs()
    inp.array = (16, 16)
    inp.games[0].instance = dict(INSTANCE, array="16 x 16", emulation_per_frame=19914.0, host_rules_per_frame=36.0,
                                 inference_per_decision=11655.0)
    figs = rp.compute(inp)["figures"]
    inf = find(figs, "policy inference", "pong")
    assert inf.value == 11_642 and "array engine 16 x 16" in inf.name and "policy_array" in inf.source
    ser = find(figs, "frames/s, serial", "pong")
    assert ser.value == pytest.approx(4e8 / 91_461)
    assert "array engine 16 x 16" in find(figs, "fabric instance: inference per decision", "pong").source
    assert "--array 16x16" in find(figs, "projected fabric frames/s, headline", "pong").command


def test_mesh_sim_takes_the_measured_instance_timing():
    from dataclasses import replace

    from nc2600.mesh_sim.project import simulate
    opts = replace(measure.mesh_cases()["sustained"], n_actions=18, inference="serial")
    model = simulate(opts)
    # nc2600.hls_models.policy_int8, 16 lanes, 18 actions, by hand: P x ceil(N/16) x K over the layers
    # (102,400 + 41,472 + 41,472 + 1 x 2 x 256), gaps 3 x (4 + 2 + 16), 4 + 1 after the last
    # input, ceil(log2 18) = 5 for the argmax
    assert model["instance"]["inference_cycles"] == 102_400 + 41_472 + 41_472 + 512 + 3 * 22 + 5 + 5 == 185_932
    given = simulate(replace(opts, **measure.instance_mesh_timing(INSTANCE)))
    # INSTANCE's decision path: preprocessor 1 + inference 185,923 + action select 5; its frame
    # 59,738 emulation + 41 host-rules cycles
    assert given["instance"]["inference_cycles"] == 1 + 185_923 + 5 == 185_929
    assert given["instance"]["inference_source"] == "measured on the Verilated fabric instance"
    assert given["instance"]["colour_clocks_source"] == "measured on the Verilated fabric instance"
    assert given["instance"]["colour_clocks_per_frame"] == 59_738 + 41 == 59_779
    # a longer frame and decision path: the serial projection is slower
    assert given["projected_fps"] < model["projected_fps"]


@pytest.mark.slow
def test_measure_instance_cycles_on_the_rtl():
    """One short Boxing episode on the Verilated instance: inference per decision equals the engine's
    cycle model (measured equal on the engine RTL), action select ceil(log2 18) = 5."""
    from nc2600.hls_models.policy_engine import engine_cycles
    m, why, cmd = measure.measure_instance_cycles("boxing", 40, 3)
    assert m is not None, why
    assert m["frames"] == 40 and m["decisions"] > 0
    assert m["inference_per_decision"] == engine_cycles(18, 16)
    assert m["action_select_per_decision"] == 5
    assert 59_736 <= m["emulation_per_frame"] < 61_000
    assert m["reset_replay"] > 10_000_000 and m["param_load"] > 170_000
    assert "instance-play --game boxing" in cmd


def test_console_fmax_from_place_and_route():
    """The per-instance frames/s at the P&R Fmax: hand-worked 20 MHz / 59,736; labelled with the device."""
    inp = small_inputs()
    figs = rp.compute(inp)["figures"]
    fm = find(figs, "console Fmax", None)
    assert fm.kind == rp.MISSING and "nc2600 synth --block console_cc1 --pnr" in fm.source
    inp.console_pnr = {"fmax_mhz": 20.0, "device": "LFE5UM-85F", "speed": 6, "seed": 1,
                       "critical_path": {"from": "hpos[0]", "to": "posm0", "delay_ns": 50.0}}
    figs = rp.compute(inp)["figures"]
    fm = find(figs, "console Fmax", None)
    assert fm.value == 20.0 and fm.kind == rp.PNR and "not the Zynq-7045" in fm.kind
    at = find(figs, "frames/s at the console's ECP5-85 Fmax", "pong")
    assert at.value == pytest.approx(20e6 / 59736) and at.kind == rp.DERIVED
    assert "LFE5UM-85F" in at.source
    # the nominal-frame game is a model figure
    assert find(figs, "frames/s at the console's ECP5-85 Fmax", "breakout").kind == rp.MODEL


def test_three_colour_clock_console_at_its_fmax():
    """The three-colour-clock console's frames/s at its own P&R Fmax: hand-worked 12 MHz x 3 / 59,736
    (a frame in a third of the clocks), and the ratio to the one-colour-clock console at 20 MHz:
    3 x 12 / 20 = 1.8."""
    inp = small_inputs()
    figs = rp.compute(inp)["figures"]
    assert find(figs, "three-colour-clock console Fmax", None).kind == rp.MISSING
    inp.console_pnr = {"fmax_mhz": 20.0, "device": "LFE5UM-85F", "speed": 6, "seed": 1, "critical_path": {}}
    inp.console3_pnr = {"fmax_mhz": 12.0, "device": "LFE5UM-85F", "speed": 6, "seed": 1,
                        "critical_path": {"from": "cpu.ir", "to": "tia.posm0", "delay_ns": 83.3}}
    figs = rp.compute(inp)["figures"]
    fm = find(figs, "three-colour-clock console Fmax", None)
    assert fm.value == 12.0 and fm.kind == rp.PNR and "console_cc3 --pnr" in fm.command
    at = find(figs, "frames/s at the three-colour-clock console's ECP5-85 Fmax", "pong")
    assert at.value == pytest.approx(12e6 * 3 / 59736) and at.kind == rp.DERIVED
    ratio = find(figs, "three vs one colour clock per clock", "pong")
    assert ratio.value == pytest.approx(1.8) and ratio.unit == "x"


def test_lifcl40_figures_beside_the_ecp5_ones():
    """LIFCL-40 (nextpnr-nexus) results of three seeds: the seed-1 Fmax is the figure, the spread is
    (110 - 100) / 100 = 10 %; per instance 100 MHz / 59,736 colour clocks, per device 2 x that, the
    published fabric's 832 instances 832 x that; console_cc3 at 60 MHz: 60 MHz x 3 / 59,736. The ECP5
    figures stay as they were, each with its per-device figure beside it (2 x 20 MHz / 59,736)."""
    inp = small_inputs()
    figs = rp.compute(inp)["figures"]
    assert find(figs, "LIFCL-40: console Fmax", None).kind == rp.MISSING
    assert "--pnr nexus" in find(figs, "LIFCL-40: console Fmax", None).source
    cp = {"from": "dut.tia.hpos[3]", "to": "dut.tia.posm0", "delay_ns": 10.0, "logic_ns": 4.0, "routing_ns": 6.0}
    inp.console_nexus = [{"fmax_mhz": f, "seed": s, "device": "LIFCL-40-9BG400C", "carry": "ccu2", "critical_path": cp}
                         for s, f in ((2, 110.0), (1, 100.0), (3, 104.0))]
    inp.console3_nexus = [{"fmax_mhz": 60.0, "seed": 1, "device": "LIFCL-40-9BG400C", "carry": "ccu2",
                           "critical_path": {}}]
    inp.console_pnr = {"fmax_mhz": 20.0, "device": "LFE5UM-85F", "speed": 6, "seed": 1, "critical_path": {}}
    figs = rp.compute(inp)["figures"]
    fm = find(figs, "LIFCL-40: console Fmax (", None)
    assert fm.value == 100.0 and fm.kind == rp.PNR_NEXUS
    assert fm.kind == "measured: nextpnr-nexus place and route, LIFCL-40 speed 9, 28 nm; a proxy, not the XC7Z045"
    assert "seed 1, carry ccu2" in fm.source and "dut.tia.hpos[3] -> dut.tia.posm0" in fm.source
    sp = find(figs, "LIFCL-40: console Fmax spread", None)
    assert sp.value == pytest.approx(10.0) and "seed 2 110 MHz" in sp.source
    assert find(figs, "console Fmax", None).value == 20.0      # the ECP5 figure, unchanged
    inst = find(figs, "frames/s per instance at the console's LIFCL-40-9 Fmax", "pong")
    assert inst.value == pytest.approx(100e6 / 59736) and inst.kind == rp.DERIVED
    dev = find(figs, "frames/s per device (2 instances) at the console's LIFCL-40-9 Fmax", "pong")
    assert dev.value == pytest.approx(2 * 100e6 / 59736)
    fab = find(figs, "fabric ceiling at the console's LIFCL-40-9 Fmax", "pong")
    assert fab.value == pytest.approx(832 * 100e6 / 59736) and fab.section == "Whole fabric"
    assert find(figs, "frames/s per device (2 instances) at the console's ECP5-85 Fmax", "pong").value == \
        pytest.approx(2 * 20e6 / 59736)
    c3 = find(figs, "frames/s per instance at the three-colour-clock console's LIFCL-40-9 Fmax", "pong")
    assert c3.value == pytest.approx(60e6 * 3 / 59736)
    assert not [f for f in figs if f.name.startswith("LIFCL-40: three-colour-clock console Fmax spread")]
    assert find(figs, "frames/s per instance at the console's LIFCL-40-9 Fmax", "breakout").kind == rp.MODEL


def test_an_interrupted_rtl_play_stops_the_report(monkeypatch, tmp_path, capsys):
    """``rtl-play`` runs inside the report's process under the guard every command runs under,
    which turns Ctrl-C or SIGTERM into exit 130: the report must stop (KeyboardInterrupt up to its
    guard: exit 130, no report written), not record the colour clocks as missing and go on."""
    import nc2600.host.drivers.rtl_play
    from nc2600.host.errors import UserError
    calls = []

    def interrupted(*args):
        calls.append(args)
        raise KeyboardInterrupt

    monkeypatch.setattr(nc2600.host.drivers.rtl_play, "rtl_play", interrupted)
    with pytest.raises(KeyboardInterrupt):
        measure.measure_colour_clocks("pong", np.zeros(4, dtype=np.int64), tmp_path)
    assert calls and calls[0][0] == "pong" and calls[0][1] == str(tmp_path / "actions_pong.npy")

    # a failure that is not an interrupt is still a missing figure with its reason, and its line
    def refused(*args):
        raise UserError("pong: mapper X is not implemented by the console RTL yet")

    monkeypatch.setattr(nc2600.host.drivers.rtl_play, "rtl_play", refused)
    cc, why, _ = measure.measure_colour_clocks("pong", np.zeros(4, dtype=np.int64), tmp_path)
    assert cc is None and "exit 2" in why
    assert "nc2600: error: pong: mapper X is not implemented" in capsys.readouterr().err


def test_the_reproducing_commands_give_the_clock_exactly(capsys):
    """A clock that six significant digits would round (123.4567891 MHz) appears whole in the
    figures' commands, and the mesh command of a fabric figure, run, prints that figure's value
    (mesh_sim run directly with the report's options is the oracle)."""
    import shlex
    from dataclasses import replace

    from nc2600.host.cli import main
    from nc2600.mesh_sim.project import simulate
    clock = 123.4567891
    inp = small_inputs()
    inp.clock_mhz = clock
    opts = replace(measure.mesh_cases()["headline"], clock_mhz=clock, lanes=8, n_actions=6, generations=1,
                   colour_clocks_per_frame=59736)
    inp.mesh = {"pong": {"headline": simulate(opts)}}
    figs = rp.compute(inp)["figures"]
    cmds = [f.command for f in figs if f.command and "--clock-mhz" in f.command]
    import re
    assert cmds and all(re.findall(r"--clock-mhz (\S+)", c) == ["123.4567891"] for c in cmds), cmds
    fab = find(figs, "projected fabric frames/s, headline", "pong")
    assert fab.command.startswith("nc2600 mesh ") and "--engine lane --lanes 8" in fab.command
    assert main([*shlex.split(fab.command)[1:], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["projected_fps"] == fab.value
    assert rp.cli_number(150.0) == "150" and rp.cli_number(66.6) == "66.6"
    assert rp.cli_number(0.1 + 0.2) == "0.30000000000000004"
