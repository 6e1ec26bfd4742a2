"""`nc2600 mesh` and `nc2600 bench mesh` through the CLI entry point (in-process)."""
import json

import pytest

from nc2600.host.cli import main


def run_cli(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_mesh_json_fields(capsys):
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5")
    assert rc == 0, err
    rep = json.loads(out)
    for k in ("projected_fps", "ceiling_fps", "utilization", "lost_evaluations", "duplicated_evaluations",
              "sim_wall_s", "generations_per_hour", "time_fractions", "gap_fps"):
        assert k in rep
    assert rep["topology"]["nodes"] == 432 and rep["topology"]["instances"] == 832
    assert rep["instance"]["inference_source"]
    assert rep["lost_evaluations"] == 0 and rep["duplicated_evaluations"] == 0
    assert rep["evaluations"] == 200 + 10 * 5


def test_mesh_three_colour_clocks(capsys):
    """--colour-clocks 3: a frame in 59,736 / 3 = 19,912 clocks, so 3x the ceiling
    (832 x 150 MHz / 19,912 = 6.268 M frames/s, hand-worked)."""
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5",
                           "--colour-clocks", "3")
    assert rc == 0, err
    rep = json.loads(out)
    assert rep["instance"]["colour_clocks"] == 3 and rep["instance"]["cycles_per_frame"] == 19912
    assert rep["ceiling_fps"] == pytest.approx(832 * 150e6 / 19912)


def test_mesh_engine_default_and_lane(capsys):
    """The default engine is the 16 x 16 array: the decision path's cycles are its model's (11,660
    for 18 actions); --engine lane --lanes 16 gives the lane engine's model (185,932: 185,927 of the
    engine and 5 of action select, tests/policy_engine)."""
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5",
                           "--inference", "serial")
    assert rc == 0, err
    inst = json.loads(out)["instance"]
    assert inst["inference_cycles"] == 11_660 and "policy_array" in inst["inference_source"]
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5",
                           "--inference", "serial", "--engine", "lane", "--lanes", "16")
    assert rc == 0, err
    assert json.loads(out)["instance"]["inference_cycles"] == 185_932


def test_mesh_array_engine_inference_cycles(capsys):
    """--array 16x16: the decision path's cycles are the array engine's model (11,660 for 18
    actions: nc2600.hls_models.policy_array.inference_cycles), labelled so; --inference-cycles wins."""
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5",
                           "--array", "16x16", "--inference", "serial")
    assert rc == 0, err
    inst = json.loads(out)["instance"]
    assert inst["inference_cycles"] == 11_660 and "policy_array" in inst["inference_source"]
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5",
                           "--array", "16x16", "--inference-cycles", "11661")
    assert rc == 0, err
    assert json.loads(out)["instance"]["inference_cycles"] == 11_661


def _six_action_run(path, network=None):
    """A run folder of `nc2600 run` (config.json and episodes.jsonl) for a 6-action game."""
    path.mkdir()
    (path / "config.json").write_text(json.dumps({"game": "pong", "n_actions": 6, "population": 2, "frame_skip": 4,
                                                  **({} if network is None else {"network": network})}))
    (path / "episodes.jsonl").write_text("".join(json.dumps(
        {"generation": 0, "individual": i, "episode": 0, "kind": "train", "frames": 400, "steps": 100,
         "return": 0.0, "reset_frames": 60}) + "\n" for i in range(2)))
    return str(path)


@pytest.mark.parametrize("engine", ["array", "lane"])
def test_mesh_run_takes_the_runs_action_count_and_shows_the_engine(capsys, tmp_path, engine):
    """--run DIR: the decision path's cycles are the engine's model for the run's 6 actions
    (config.json), not 18, and the report names the engine: the array's shape for the array engine
    (no lanes), the lanes for the lane engine. Expected values from the models."""
    from nc2600.hls_models.policy_array import inference_cycles as array_cycles
    from nc2600.hls_models.policy_int8 import inference_cycles as lane_cycles
    run = _six_action_run(tmp_path / "run")
    extra = ("--array", "8x8") if engine == "array" else ("--engine", "lane", "--lanes", "32")
    rc, out, err = run_cli(capsys, "mesh", "--json", "--run", run, *extra)
    assert rc == 0, err
    inst = json.loads(out)["instance"]
    assert inst["n_actions"] == 6 and inst["engine"] == engine
    if engine == "array":
        assert inst["inference_cycles"] == array_cycles(6, 8, 8) != array_cycles(18, 8, 8)
        assert inst["array"] == "8x8" and "lanes" not in inst
        assert inst["inference_source"] == "nc2600.hls_models.policy_array.inference_cycles(6, 8, 8)"
    else:
        assert inst["inference_cycles"] == lane_cycles(6, 32) != lane_cycles(18, 32)
        assert inst["lanes"] == 32 and "array" not in inst
    rc, out, err = run_cli(capsys, "mesh", "--run", run, *extra)
    assert rc == 0, err
    shown = "array engine 8x8, 6 actions" if engine == "array" else "lane engine, 32 lanes, 6 actions"
    assert shown in out and (engine == "lane") == ("lanes" in out)
    # --n-actions still wins over the run's count
    rc, out, err = run_cli(capsys, "mesh", "--json", "--run", run, "--n-actions", "18", *extra)
    assert rc == 0, err
    want = array_cycles(18, 8, 8) if engine == "array" else lane_cycles(18, 32)
    assert json.loads(out)["instance"]["inference_cycles"] == want


def test_mesh_run_of_the_nature_network_on_the_array_engine(capsys, tmp_path):
    """A run of the nature network: the array engine's model for that network (the run's), and its
    shape checked for that network: 64 x 16 tiles the nature network's layers but not the small
    one's (dense1's 2,592 inputs; nc2600.hls_models.policy_array.check_shape), refused in one line there."""
    from nc2600.hls_models.policy_array import check_shape, inference_cycles as array_cycles
    nature = _six_action_run(tmp_path / "nature", network="nature")
    rc, out, err = run_cli(capsys, "mesh", "--json", "--run", nature)
    assert rc == 0, err
    inst = json.loads(out)["instance"]
    assert inst["network"] == "nature"
    assert inst["inference_cycles"] == array_cycles(6, 16, 16, "nature") != array_cycles(6, 16, 16)
    assert check_shape(64, 16, "nature") == (64, 16)
    rc, out, err = run_cli(capsys, "mesh", "--json", "--run", nature, "--array", "64x16")
    assert rc == 0, err
    assert json.loads(out)["instance"]["inference_cycles"] == array_cycles(6, 64, 16, "nature")
    with pytest.raises(ValueError) as exc:
        check_shape(64, 16)
    rc, out, err = run_cli(capsys, "mesh", "--run", _six_action_run(tmp_path / "small"), "--array", "64x16")
    assert rc == 2 and str(exc.value) in err and len(err.strip().splitlines()) == 1


def test_mesh_faults_and_out_file(capsys, tmp_path):
    out_file = tmp_path / "mesh.json"
    rc, out, err = run_cli(capsys, "mesh", "--schedule", "pull", "--population", "300", "--fail-nodes", "8",
                           "--fail-links", "12", "--fault-seed", "3", "--out", str(out_file))
    assert rc == 0, err
    assert "lost_evaluations 0, duplicated_evaluations 0" in out
    rep = json.loads(out_file.read_text())
    assert rep["nodes_failed"] >= 8 and rep["faults"]["fault_free_fps"] >= rep["projected_fps"]
    assert [p.name for p in tmp_path.iterdir()] == ["mesh.json"]  # no temp file left behind


@pytest.mark.parametrize("argv", [
    ["--mesh", "10x10x3"], ["--mesh", "12x12"], ["--cards", "-1"], ["--population", "0"],
    ["--fail-nodes", "500"], ["--fail-links", "5000"], ["--run", "/nonexistent/run"],
    ["--episode-steps", "weird"], ["--faults", "node:0@1"], ["--schedule", "random"],
    ["--clock-mhz", "-5"], ["--nodes-per-card", "27", "--mesh", "12x12x4"], ["--colour-clocks", "2"],
    # options --calibrate would ignore, and a label with nothing to label (a new user's find: both
    # ran and exited 0)
    ["--calibrate", "--clock-mhz", "300"], ["--calibrate", "--colour-clocks", "3"],
    ["--calibrate", "--schedule", "async"], ["--timing-source", "foo"],
    ["--array", "16"], ["--array", "12x12"], ["--array", "4x16"], ["--calibrate", "--array", "16x16"],
    ["--lanes", "32"], ["--engine", "lane", "--array", "16x16"], ["--calibrate", "--engine", "lane"],
])
def test_bad_input_is_one_line_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        rc = main(["mesh", *argv])
        raise SystemExit(rc)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["--run", "RUN", "--population", "20", "--episodes", "2", "--generations", "1"],
     "--run replays the run's recorded episodes; --episodes, --population shape a drawn workload and do not "
     "apply (--generations keeps the run's first G)"),
    (["--run", "RUN", "--episode-steps", "fixed:10"],
     "--run replays the run's recorded episodes; --episode-steps shape a drawn workload"),
    (["--fault-seed", "3"],
     "--fault-seed shape the random failures of --fail-nodes / --fail-links; give one of those"),
    (["--fault-window-s", "2", "--fault-seed", "3", "--faults", "node:17@1"],
     "--fault-seed, --fault-window-s shape the random failures of --fail-nodes / --fail-links; give one of those"),
])
def test_options_that_would_be_dropped_are_named_as_given(capsys, tmp_path, argv, message):
    """The options a run's recorded episodes, or an absent random fault plan, would drop: named
    as the user spells them (the flag, not the destination), sorted, in one line, exit 2."""
    argv = [str(tmp_path) if a == "RUN" else a for a in argv]
    rc, out, err = run_cli(capsys, "mesh", *argv)
    assert rc == 2 and out == ""
    assert err.startswith(f"nc2600: error: {message}") and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("cmd", ["mesh", "report"])
def test_clock_below_1_khz_or_above_10_ghz_is_refused(capsys, cmd):
    """A fabric clock is taken from 1 kHz to 10 GHz (0.001 .. 10,000 MHz), both ends included."""
    from nc2600.host.cli import build_parser
    parser = build_parser()
    for text, mhz in (("0.001", 0.001), ("1e-3", 0.001), ("150", 150.0), ("10000", 10_000.0)):
        assert parser.parse_args([cmd, "--clock-mhz", text]).clock_mhz == mhz
    for text in ("1e-300", "0.0009", "0", "-5", "10000.5", "inf", "nan"):
        with pytest.raises(SystemExit) as exc:
            main([cmd, "--clock-mhz", text])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err == (f"nc2600 {cmd}: error: argument --clock-mhz: expected a clock in MHz "
                                               f"in [0.001, 10000] (1 kHz to 10 GHz), got {text!r}\n")


@pytest.mark.parametrize("spec, message", [
    ("fixed:1.5", "fixed's step counts must be whole numbers, got 'fixed:1.5'"),
    ("uniform:1:2.5", "uniform's step counts must be whole numbers, got 'uniform:1:2.5'"),
    ("uniform:0.5:3", "out of range: 'uniform:0.5:3'"),
    ("fixed:x", "has a non-number: 'fixed:x'"),
    ("weird", "must be fixed:N, uniform:LO:HI or lognormal:MEDIAN:SIGMA, got 'weird'"),
])
def test_episode_steps_refused_at_parse_time(capsys, spec, message):
    with pytest.raises(SystemExit) as exc:
        main(["mesh", "--episode-steps", spec])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.splitlines()) == 1
    assert err.startswith("nc2600 mesh: error: argument --episode-steps: episode distribution") and message in err


def test_episode_steps_whole_numbers_in_any_notation(capsys):
    """fixed:1e3 is 1,000 steps: 20 episodes of 1,000 x 4 frames + 1..30 no-op frames."""
    from nc2600.host.cli import build_parser
    assert build_parser().parse_args(["mesh", "--episode-steps", "lognormal:2500.5:0.25"]).episode_steps \
        == "lognormal:2500.5:0.25"
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "20", "--elite-episodes", "0",
                           "--episode-steps", "fixed:1e3")
    assert rc == 0, err
    wl = json.loads(out)["workload"]
    assert wl["mean_steps"] == 1000 and 4001 <= wl["mean_frames"] <= 4030


def test_fault_that_costs_nothing_prints_no_negative_zero(capsys):
    """Three failed links of seed 2 leave the static schedule's throughput 6 parts in 10^9 above
    the fault-free one (a negative loss in the JSON): the summary prints "lost 0.0%"."""
    from nc2600.host.commands.mesh import _percent
    argv = ["mesh", "--population", "200", "--elite-episodes", "0", "--fail-links", "3", "--fault-seed", "2"]
    rc, out, err = run_cli(capsys, *argv, "--json")
    assert rc == 0, err
    assert -1e-6 < json.loads(out)["faults"]["throughput_lost_fraction"] < 0
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 0, err
    assert "links failed; fault-free 0.283 M frames/s, lost 0.0%\n" in out and "-0.0%" not in out
    assert [_percent(v) for v in (0.125, 0.0, -0.0, -0.0004, 0.0004, -0.0006, 1.0)] == \
        ["12.5%", "0.0%", "0.0%", "0.0%", "0.0%", "-0.1%", "100.0%"]


def test_unreadable_run_file_exit_2(capsys, tmp_path):
    (tmp_path / "episodes.jsonl").write_text("{broken\n")
    rc, out, err = run_cli(capsys, "mesh", "--run", str(tmp_path))
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "not JSON" in err
    rc, out, err = run_cli(capsys, "mesh", "--out", str(tmp_path / "no" / "dir.json"), "--population", "10")
    assert rc == 2


def test_invariant_violation_exits_1(capsys):
    # the only worker node fails: nothing can finish, the report says so and the exit code is 1
    rc, out, err = run_cli(capsys, "mesh", "--json", "--cards", "1", "--nodes-per-card", "2", "--faults",
                           "node:1@0.5", "--population", "10", "--elite-episodes", "0")
    rep = json.loads(out)
    assert rc == 1 and rep["lost_evaluations"] == 10 and not rep["completed"]
    assert rep["generations_per_hour"] == 0.0 and "no live instance" in err


@pytest.mark.parametrize("setting, value", [
    ("frame_skip", "x"), ("frame_skip", [4]), ("frame_skip", 0), ("frame_skip", -4),
    ("frame_skip", 4.5), ("frame_skip", 1e300), ("frame_skip", float("inf")),
    ("n_actions", 0), ("n_actions", 19), ("n_actions", 1000), ("n_actions", True), ("n_actions", "6"),
    ("population", "x"), ("population", [1]), ("population", -5), ("population", float("inf")),
    ("colour_clocks_per_frame", float("inf")), ("colour_clocks_per_frame", 0.5),
    ("colour_clocks_per_frame", True), ("colour_clocks_per_frame", 1e300), ("colour_clocks_per_frame", "59736"),
    ("network", 5), ("network", ["nature"]),
])
def test_mesh_run_with_a_damaged_config_setting_is_one_line_exit_2(capsys, tmp_path, setting, value):
    """A config.json setting of another type or out of the range nc2600 run writes (frame skip
    1..64, 1..18 actions, population >= 0, 1..10^7 colour clocks per frame, a network name) is
    refused in one line naming it, for either engine: never a traceback, never a projection of
    1,000 actions or 1 colour clock per frame."""
    run = tmp_path / "run"
    _six_action_run(run)
    cfg = json.loads((run / "config.json").read_text())
    cfg[setting] = value
    (run / "config.json").write_text(json.dumps(cfg))
    for engine in ("array", "lane"):
        rc, out, err = run_cli(capsys, "mesh", "--run", str(run), "--engine", engine)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert f"'{setting}' is " in err and "damaged" in err


@pytest.mark.parametrize("setting, value, shown", [
    ("frame_skip", 64, None), ("frame_skip", None, None), ("n_actions", 1, "1 action: inference"),
                                                   ("n_actions", 18, "18 actions"),
    ("colour_clocks_per_frame", 19912, "19912 colour clocks/frame"), ("population", 0, None),
])
def test_mesh_run_config_settings_at_their_edges_are_taken(capsys, tmp_path, setting, value, shown):
    """The ends of each range are taken, and null is read as absent (the default)."""
    run = tmp_path / "run"
    _six_action_run(run)
    cfg = json.loads((run / "config.json").read_text())
    cfg[setting] = value
    (run / "config.json").write_text(json.dumps(cfg))
    rc, out, err = run_cli(capsys, "mesh", "--run", str(run))
    assert rc == 0, err
    if shown:
        assert shown in out


def test_calibrate_refusal_names_the_options_as_spelt(capsys, tmp_path):
    """--calibrate with options it would ignore: the one line names them as the user typed them
    (`--run`, whose destination is run_dir; there is no --run-dir option)."""
    run = _six_action_run(tmp_path / "run")
    rc, out, err = run_cli(capsys, "mesh", "--calibrate", "--run", run, "--engine", "lane")
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert err.strip().endswith("not --engine, --run") and "--run-dir" not in err


@pytest.mark.parametrize("extra, named", [
    (["--population", "5"], "--population"), (["--frame-skip", "2"], "--frame-skip"),
    (["--episode-steps", "fixed:10", "--seed", "3"], "--episode-steps, --seed"),
    (["--elite-episodes", "0", "--episodes", "2"], "--elite-episodes, --episodes"),
    (["--test-episodes", "4"], "--test-episodes"), (["--episode-frames", "100"], "--episode-frames"),
    (["--elite-candidates", "1"], "--elite-candidates"),
])
def test_mesh_run_refuses_the_drawn_workload_options(capsys, tmp_path, extra, named):
    """--run replays the recorded episodes: an option that shapes a drawn workload does not apply
    to them, so it is refused in one line naming it; --generations (the run's first G) still
    applies (the run's 2 recorded evaluations)."""
    run = _six_action_run(tmp_path / "run")
    rc, out, err = run_cli(capsys, "mesh", "--run", run, *extra)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and f"; {named} shape" in err, err
    rc, out, err = run_cli(capsys, "mesh", "--json", "--run", run, "--generations", "1")
    assert rc == 0, err
    assert json.loads(out)["workload"]["evaluations"] == 2


def test_mesh_workload_beyond_memory_is_one_line_exit_2(capsys):
    """Every option in range, their product not: 1,000 generations x (100,000 individuals x 1,000
    episodes + 10 x 30 elite re-evaluations) = 100,000,300,000 evaluations (hand-worked), about
    93 TiB at 1 KiB each; refused in one line before anything is drawn."""
    rc, out, err = run_cli(capsys, "mesh", "--population", "100000", "--generations", "1000", "--episodes", "1000")
    assert rc == 2 and len(err.strip().splitlines()) == 1 and out == ""
    assert "a workload of 100,000,300,000 evaluations needs 93.1 TiB of memory" in err


@pytest.mark.parametrize("kw", [dict(population=7, generations=3, episodes=2, elite_candidates=2, elite_episodes=3,
                                     test_episodes=5),
                                dict(population=4, elite_candidates=0, elite_episodes=30),
                                dict(population=4, elite_candidates=3, elite_episodes=0, test_episodes=1)])
def test_planned_evaluations_are_the_drawn_workloads(kw):
    from nc2600.mesh_sim.project import MeshOptions, planned_evaluations
    from nc2600.mesh_sim.workload import synthetic_workload
    opts = MeshOptions(**kw)
    wl = synthetic_workload(opts.population, opts.generations or 1, episodes_per_individual=opts.episodes,
                            elite_candidates=opts.elite_candidates, elite_episodes=opts.elite_episodes,
                            test_episodes=opts.test_episodes)
    assert planned_evaluations(opts) == wl.n_evaluations


def test_mesh_run_of_the_nature_network_takes_the_lanes_given(capsys, tmp_path):
    """--engine lane --lanes 16 on a nature-network run models 16 lanes as asked
    (nc2600.hls_models.policy_int8.inference_cycles(6, 16, "nature") = 584,544 cycles), although 16 is
    also the default; without --lanes the lane engine sizes itself for the network
    (nc2600.hls_models.policy_int8.min_lanes: 64 lanes, 197,952 cycles)."""
    from nc2600.hls_models.policy_int8 import inference_cycles as lane_cycles, min_lanes
    nature = _six_action_run(tmp_path / "nature", network="nature")
    # By hand (module doc of nc2600.hls_models.policy_int8): sum over layers of positions P x
    # ceil(outputs N / lanes L) x inputs K, the gaps after every layer but the last
    # (4-cycle MAC pipeline + 2-cycle write-back + the last group's N - (ceil(N/L) - 1) L outputs),
    # 4 + 1 cycles after the last input, and the ceil(log2 6) = 3 of action select. The nature
    # network on 4 x 84 x 84: conv1 8x8/4 -> 20 x 20 x 32 (K 256), conv2 4x4/2 -> 9 x 9 x 64
    # (K 512), conv3 3x3/1 -> 7 x 7 x 64 (K 576), dense 512 (K 3136), dense 6 (K 512).
    l16 = 400 * 2 * 256 + 81 * 4 * 512 + 49 * 4 * 576 + 1 * 32 * 3136 + 1 * 1 * 512     # 584,448
    gaps16 = (6 + 16) + (6 + 16) + (6 + 16) + (6 + 16)                                   # last groups of 16
    l64 = 400 * 1 * 256 + 81 * 1 * 512 + 49 * 1 * 576 + 1 * 8 * 3136 + 1 * 1 * 512      # 197,696
    gaps64 = (6 + 32) + (6 + 64) + (6 + 64) + (6 + 64)
    assert lane_cycles(6, 16, "nature") == l16 + gaps16 + 5 + 3 == 584_544
    assert lane_cycles(6, 64, "nature") == l64 + gaps64 + 5 + 3 == 197_952
    # 64 is the fewest lanes within one frame-skip period, 4 x 59,736 = 238,944 cycles: with 63,
    # conv2 and conv3 take two groups of 63 for their 64 outputs and the compute alone is over
    assert 197_952 <= 4 * 59_736 < 400 * 256 + 81 * 2 * 512 + 49 * 2 * 576
    assert min_lanes(6, network="nature") == 64
    for extra, lanes in ((["--lanes", "16"], 16), ([], 64), (["--lanes", "32"], 32)):
        rc, out, err = run_cli(capsys, "mesh", "--json", "--run", nature, "--engine", "lane", *extra)
        assert rc == 0, err
        inst = json.loads(out)["instance"]
        assert inst["lanes"] == lanes and inst["inference_cycles"] == lane_cycles(6, lanes, "nature")
    small = _six_action_run(tmp_path / "small")
    rc, out, err = run_cli(capsys, "mesh", "--json", "--run", small, "--engine", "lane")
    assert rc == 0, err
    assert json.loads(out)["instance"]["lanes"] == 16


@pytest.mark.parametrize("extra, named", [
    (["--fault-seed", "3"], "--fault-seed"), (["--fault-window-s", "5"], "--fault-window-s"),
    (["--faults", "node:17@1", "--fault-window-s", "5"], "--fault-window-s"),
    (["--faults", "node:17@1", "--fault-seed", "2", "--fault-window-s", "5"], "--fault-seed, --fault-window-s"),
])
def test_mesh_random_fault_options_without_random_faults_are_refused(capsys, extra, named):
    """--fault-seed and --fault-window-s draw the failures of --fail-nodes / --fail-links; without
    those (or beside an explicit --faults list) they would change nothing: one line, exit 2.
    With --fail-nodes they apply: a window changes the plan's failure times."""
    rc, out, err = run_cli(capsys, "mesh", "--population", "50", "--elite-episodes", "0", *extra)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and err.startswith(f"nc2600: error: {named} shape"), err
    plans = []
    for window in ("5", "50"):
        rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "50", "--elite-episodes", "0",
                               "--fail-nodes", "2", "--fault-window-s", window)
        assert rc == 0, err
        plans.append(json.loads(out)["faults"])
    assert [p["window_s"] for p in plans] == [5.0, 50.0] and plans[0]["plan"] != plans[1]["plan"]


@pytest.mark.parametrize("cards, per_card, nodes",
                         [(1000, 1000, "1,000,000"), (1000, 28, "28,000"), (28, 1000, "28,000")])
def test_mesh_of_more_than_27000_nodes_is_one_line_exit_2(capsys, cards, per_card, nodes):
    """--cards and --nodes-per-card each in range, their product (hand-worked) beyond the model's
    27,000 nodes (1,000 cards of 27): refused at once (1,000 x 1,000 nodes would take minutes and gigabytes).
    Each option at its own end still runs: 1 card of 1,000 nodes (a 10x10x10 cube, 999 workers)."""
    rc, out, err = run_cli(capsys, "mesh", "--population", "20", "--elite-episodes", "0",
                           "--cards", str(cards), "--nodes-per-card", str(per_card))
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert f"= {nodes} nodes; the model takes at most 27,000" in err
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "20", "--elite-episodes", "0",
                           "--cards", "1", "--nodes-per-card", "1000")
    assert rc == 0, err
    topo = json.loads(out)["topology"]
    assert topo["nodes"] == 1000 and topo["mesh"] == "10x10x10" and topo["instances"] == 999 * 2


def test_mesh_summary_counts_and_huge_makespans(capsys):
    """The summary's counts read as English at 1 (1 card of 2x1x1: one I/O node and one worker of
    2 instances, 1 link, 1 hop; 1 action), and a makespan of 10^9 s or more in three significant
    digits: on the slowest clock taken, 1 kHz, a frame of 10^7 clocks takes 10^4 s; each of the 2
    instances plays 10 of the 20 episodes of 5,000 steps x 4 frames + 1..30 no-op + 68 reset
    frames: 10 x (20,069 .. 20,098) x 10^4 s, plus under a second of communication and weight
    loads (hand-worked; the report's makespan_s, shown as it is in the JSON)."""
    rc, out, err = run_cli(capsys, "mesh", "--cards", "1", "--nodes-per-card", "2", "--population", "2",
                           "--elite-candidates", "0", "--n-actions", "1")
    assert rc == 0, err
    assert "(1 card of 2x1x1), 2 nodes, 1 link, 2 instances, diameter 1 hop\n" in out
    assert ", 1 action: inference " in out
    argv = ["mesh", "--cards", "1", "--nodes-per-card", "2", "--population", "20", "--elite-episodes", "0",
            "--episode-steps", "fixed:5000", "--clock-mhz", "0.001", "--colour-clocks-per-frame", "10000000"]
    rc, out, err = run_cli(capsys, *argv, "--json")
    assert rc == 0, err
    makespan = json.loads(out)["makespan_s"]
    assert 10 * 20_069 * 1e4 <= makespan <= 10 * 20_098 * 1e4 + 1
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 0, err
    assert f"makespan {makespan:.3g} s\n" in out and "makespan 2.01e+09 s\n" in out
