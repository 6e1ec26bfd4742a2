"""`nc2600 mesh` and `nc2600 bench mesh` through the CLI entry point (in-process)."""
import json

import pytest

from host.cli import main


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


def test_mesh_three_colour_clocks_per_cycle(capsys):
    """--colour-clocks-per-cycle 3: a frame in 59,736 / 3 = 19,912 clocks, so 3x the ceiling
    (832 x 150 MHz / 19,912 = 6.268 M frames/s, hand-worked)."""
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5",
                           "--colour-clocks-per-cycle", "3")
    assert rc == 0, err
    rep = json.loads(out)
    assert rep["instance"]["colour_clocks_per_cycle"] == 3 and rep["instance"]["cycles_per_frame"] == 19912
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
    actions: hls_models.policy_array.inference_cycles), labelled so; --inference-cycles wins."""
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5",
                           "--array", "16x16", "--inference", "serial")
    assert rc == 0, err
    inst = json.loads(out)["instance"]
    assert inst["inference_cycles"] == 11_660 and "policy_array" in inst["inference_source"]
    rc, out, err = run_cli(capsys, "mesh", "--json", "--population", "200", "--elite-episodes", "5",
                           "--array", "16x16", "--inference-cycles", "11661")
    assert rc == 0, err
    assert json.loads(out)["instance"]["inference_cycles"] == 11_661


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
    ["--clock-mhz", "-5"], ["--nodes-per-card", "27", "--mesh", "12x12x4"], ["--colour-clocks-per-cycle", "2"],
    # options --calibrate would ignore, and a label with nothing to label (a new user's find: both
    # ran and exited 0)
    ["--calibrate", "--clock-mhz", "300"], ["--calibrate", "--colour-clocks-per-cycle", "3"],
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
