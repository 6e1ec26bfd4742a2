"""``nc2600 lockstep --results PATH`` (a 10,000-frame sweep of all games takes CPU-hours,
so one that is cut off must go on where it stopped, and no finished game's result may be lost).

The oracle for a resumed sweep is the same sweep run whole: its JSON records, game by game."""
import json

import pytest

from nc2600.host.cli import main

GAMES = ["pong", "boxing"]
FRAMES = "3"


def _records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _run(capsys, path, games=GAMES, frames=FRAMES, extra=()):
    rc = main(["lockstep", "--games", ",".join(games), "--frames", frames, "--results", str(path), "--json", *extra])
    cap = capsys.readouterr()
    return rc, _records(cap.out), cap.err


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The sweep run whole (no results file), and the file a run with --results leaves."""
    import io
    from contextlib import redirect_stdout
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["lockstep", "--games", ",".join(GAMES), "--frames", FRAMES, "--json"]) == 0
    return _records(buf.getvalue())


def _same(a: dict, b: dict) -> bool:
    """Two records equal but for the measured RTL speed."""
    return {k: v for k, v in a.items() if k != "rtl_fps"} == {k: v for k, v in b.items() if k != "rtl_fps"}


def test_results_file_holds_every_finished_game(tmp_path, capsys, whole):
    path = tmp_path / "r.jsonl"
    rc, recs, err = _run(capsys, path)
    assert rc == 0 and "0 of 2 games from" in err
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    head = lines[0]["lockstep_results"]
    assert head["frames"] == 3 and head["actions"] == "random" and head["seed"] == 0
    assert head["rtl"].startswith("console_cc3-") and head["colour_clocks"] == 3
    assert [r["game"] for r in lines[1:]] == GAMES
    assert all(_same(a, b) for a, b in zip(lines[1:], whole[:2]))
    assert all(_same(a, b) for a, b in zip(recs[:2], whole[:2])) and recs[2]["summary"]["from_results"] == 0


def test_cut_off_sweep_goes_on_where_it_stopped(tmp_path, capsys, monkeypatch, whole):
    import nc2600.host.verify.lockstep as lockstep
    path = tmp_path / "r.jsonl"
    assert _run(capsys, path)[0] == 0
    # the file as a sweep cut off after its first game left it (a game with an error record too)
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1] + "\n")
    ran = []
    real = lockstep.lockstep_job
    monkeypatch.setattr(lockstep, "lockstep_job", lambda job: ran.append(job[0]) or real(job))
    rc, recs, err = _run(capsys, path)
    assert rc == 0 and ran == ["boxing"] and "1 of 2 games from" in err
    assert [r["game"] for r in recs[:2]] == GAMES and all(_same(a, b) for a, b in zip(recs[:2], whole[:2]))
    assert recs[2]["summary"] == {**whole[2]["summary"], "from_results": 1}
    # run again: nothing left to run, the same rows
    ran.clear()
    rc, recs2, err = _run(capsys, path)
    assert rc == 0 and ran == [] and "2 of 2 games from" in err and recs2 == [*recs[:2], {**recs[2], "summary": {
        **recs[2]["summary"], "from_results": 2}}]


def test_failed_game_is_not_kept(tmp_path):
    from nc2600.host.verify.lockstep import ResultsFile
    store = ResultsFile(tmp_path / "r.jsonl", {"rtl": "x"})   # a new file: its header is written at once
    assert (tmp_path / "r.jsonl").read_text() == '{"lockstep_results": {"rtl": "x"}}\n'
    store.add({"game": "pong", "error": "boom", "match": False})
    assert (tmp_path / "r.jsonl").read_text() == '{"lockstep_results": {"rtl": "x"}}\n' and store.records == {}
    rec = {"game": "pong", "mapper": "2K", "frames_compared": 3, "match": True}
    store.add(rec)
    store.close()
    assert ResultsFile(tmp_path / "r.jsonl", {"rtl": "x"}).records == {"pong": rec}


@pytest.mark.parametrize("case", ["other_frames", "folder", "garbage", "no_folder", "single_game", "game_not_text",
                                  "record_fields_missing", "fifo", "empty", "device"])
def test_bad_results_file_is_one_line_exit_2(tmp_path, capsys, case):
    import os

    from nc2600.host.verify.lockstep import run_identity
    path = tmp_path / "r.jsonl"
    argv = ["lockstep", "--games", "pong", "--frames", "3", "--results", str(path)]
    before = None
    if case == "other_frames":
        path.write_text(json.dumps({"lockstep_results": {"rtl": "console-0", "frames": 4, "extra": 1}}) + "\n")
    elif case in ("game_not_text", "record_fields_missing"):
        head = json.dumps({"lockstep_results": run_identity(3, 0, "random")})
        rec = {"game": ["pong"]} if case == "game_not_text" else {"game": "pong", "match": True}
        path.write_text(head + "\n" + json.dumps(rec) + "\n")
    elif case == "fifo":
        os.mkfifo(path)      # would block a read: refused before it
    elif case == "garbage":
        path.write_text("not json\n")
    elif case == "folder":
        argv[-1] = str(tmp_path)
    elif case == "no_folder":
        argv[-1] = str(tmp_path / "missing" / "r.jsonl")
    elif case == "single_game":
        argv[1:3] = ["--game", "pong"]
    elif case == "empty":
        argv[-1] = ""
    elif case == "device":                    # no lock file may appear beside it (/dev/.null.lock)
        argv[-1] = "/dev/null"
        assert not os.path.exists("/dev/.null.lock")
    if path.is_file():
        before = path.read_bytes()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--results" in err[0], err
    if case == "other_frames":   # every differing key named, the file's extra ones too
        assert "frames 4 there, 3 now" in err[0] and "extra 1 there, None now" in err[0]
    if before is not None:
        assert path.read_bytes() == before    # the file is left as it was
    if case == "device":
        assert "not a regular file" in err[0] and not os.path.exists("/dev/.null.lock")
    if case == "empty":
        assert "--results is empty" in err[0]


def test_each_game_is_kept_as_it_finishes_and_rows_print_in_order(tmp_path, capsys, monkeypatch, whole):
    """Games finish out of order (two workers, the first game slower): each record is in the
    file as soon as its game ends (checked at the moment the next one arrives), the rows are
    printed in the order given."""
    import nc2600.host.commands.lockstep as command
    path = tmp_path / "r.jsonl"
    seen = []

    def finishing_backwards(todo, *args, ordered=True, **kw):
        assert ordered is False
        for r in reversed(whole[:2]):
            yield r
            seen.append([json.loads(x)["game"] for x in path.read_text().splitlines()[1:]])
    monkeypatch.setattr(command, "lockstep_games", finishing_backwards)
    rc, recs, err = _run(capsys, path)
    assert rc == 0
    assert seen == [["boxing"], ["boxing", "pong"]]
    assert [r["game"] for r in recs[:2]] == GAMES
    assert all(_same(a, b) for a, b in zip(recs[:2], whole[:2]))


def test_one_run_per_results_file(tmp_path):
    """A second run on the same file (here: the same path through a symbolic link) is refused
    with one line naming the writer's pid, before any game; once the first lets go, it may run."""
    import gc
    import os

    from nc2600.host.errors import UserError
    from nc2600.host.verify.lockstep import ResultsFile
    ident = {"rtl": "console-test", "frames": 3}
    rec = {"game": "pong", "mapper": "2K", "frames_compared": 3, "match": True}
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "r.jsonl")
    first = ResultsFile(tmp_path / "link.jsonl", ident)        # through the link: the target is written
    first.add(rec)
    assert (tmp_path / "link.jsonl").is_symlink() and len((tmp_path / "r.jsonl").read_text().splitlines()) == 2
    for path in ("r.jsonl", "link.jsonl"):
        with pytest.raises(UserError, match=rf"another lockstep run is writing it \(pid {os.getpid()}\)"):
            ResultsFile(tmp_path / path, ident)
    other = ResultsFile(tmp_path / "other.jsonl", ident)     # another file: no conflict
    first.close()
    with ResultsFile(tmp_path / "r.jsonl", ident) as again:
        assert again.records == {"pong": rec}
    del other
    gc.collect()
    assert ResultsFile(tmp_path / "other.jsonl", ident).records == {}


def test_a_refused_or_bad_file_lets_the_lock_go_and_stale_temp_files_go(tmp_path):
    from nc2600.host.errors import UserError
    from nc2600.host.verify.lockstep import ResultsFile
    path = tmp_path / "r.jsonl"
    ResultsFile(path, {"rtl": "a"}).close()
    with pytest.raises(UserError, match="holds another run's results"):
        ResultsFile(path, {"rtl": "b"})
    (tmp_path / ".r.jsonl.tmp99999").write_text("half")        # as a killed run leaves it
    with ResultsFile(path, {"rtl": "a"}) as store:              # not locked by the refused one
        assert store.records == {} and not (tmp_path / ".r.jsonl.tmp99999").exists()
