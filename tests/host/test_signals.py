"""A SIGTERM always stops a command: exit 130, one line (with the resume hint for a run), no
traceback, whatever the process is doing when it arrives.

The moments are made deterministic with Python's own hooks: ``signal.raise_signal`` inside a
``__del__`` (a context where Python prints "Exception ignored" and drops the exception), inside
an ``os.register_at_fork`` hook (the worker pool's start-up), and inside a suppressed block
followed by the failure a half-stopped library gives (the video writer). Each test's
expectation rules out what a stop can go wrong into: the command going on and exiting 0, the
workers printing tracebacks, a ``ValueError`` traceback and exit 1.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import os, signal, sys
from nc2600.host.cli import guarded, install_sigterm_handler
install_sigterm_handler()
"""


def _python(code: str, *args, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


SWALLOWED = """
class Finalised:
    def __del__(self):
        signal.raise_signal(signal.SIGTERM)     # the handler's Terminated is raised in __del__
def body():
    import time
    x = Finalised()
    del x
    for _ in range({steps}):                    # the command's further work
        time.sleep(0.01)
    print("went on", flush=True)
    return 0
{hook}
sys.exit(guarded(body))
"""


@pytest.mark.parametrize("steps", [3000, 0])
def test_a_sigterm_raised_where_python_drops_exceptions_still_stops_the_command(steps):
    """Raised again in the main thread (within 30 s of further work: the re-raise comes from a
    timer thread, which a loaded machine may not schedule for seconds; a passing run stops a
    few milliseconds after the signal), or, when the command ends first, still exit 130."""
    proc = _python(SWALLOWED.format(hook="", steps=steps))
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert proc.stderr == "nc2600: terminated (SIGTERM)\n"
    assert ("went on" in proc.stdout) == (steps == 0)      # with work left, it is not done


def test_a_sigterm_whose_handler_runs_inside_the_redelivery_hook_is_not_lost():
    """The hook's re-sent SIGTERM may reach the main thread before the hook has returned (a loaded
    machine deschedules the main thread for over the hook's 1 ms): its handler, run inside the
    hook, must not drop it. Here the handler runs with the hook's flag set, deterministically;
    the command must still stop (exit 130) before its further work is done."""
    proc = _python("""
        import nc2600.host.signals as signals
        def body():
            import time
            signals._IN_HOOK = True                 # the handler runs as if inside the hook
            signal.raise_signal(signal.SIGTERM)
            signals._IN_HOOK = False
            for _ in range(3000):                   # the command's further work (30 s)
                time.sleep(0.01)
            print("went on", flush=True)
            return 0
        sys.exit(guarded(body))
    """)
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert proc.stderr == "nc2600: terminated (SIGTERM)\n"
    assert "went on" not in proc.stdout


def test_without_the_redelivery_the_same_sigterm_is_lost():
    """The failure the redelivery prevents: Python's default hook prints and goes on."""
    proc = _python(SWALLOWED.format(hook="sys.unraisablehook = sys.__unraisablehook__", steps=20))
    assert proc.returncode == 0 and "went on" in proc.stdout and "Exception ignored" in proc.stderr


def test_a_sigterm_during_the_pools_fork_stops_at_the_first_worker():
    """SIGTERM delivered while ``fork`` runs (an at-fork hook in the parent): the evaluator
    stops after that one fork, exits 130 with one line; no further worker is forked."""
    proc = _python("""
        import ale_py.roms
        from nc2600.host.launcher.local_pool import LocalPoolEvaluator
        forks = []
        def after_in_parent():
            forks.append(1)
            if len(forks) == 1:
                signal.raise_signal(signal.SIGTERM)
        os.register_at_fork(after_in_parent=after_in_parent)
        def body():
            with LocalPoolEvaluator(ale_py.roms.get_rom_path("pong"), 6, 1, episode_frames=100):
                print("started", flush=True)
            return 0
        rc = guarded(body)
        print("forks", len(forks), flush=True)
        sys.exit(rc)
    """)
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert proc.stderr == "nc2600: terminated (SIGTERM)\n"
    assert "started" not in proc.stdout and "forks 1" in proc.stdout


def test_a_sigterm_to_a_worker_during_its_start_is_quiet(tmp_path):
    """A SIGTERM that reaches a worker between its fork and its own handlers (a signal to the
    process group at start-up) waits, blocked, until the worker has set SIGTERM's default
    action, then ends it quietly; the parent stops with one line: no worker traceback."""
    proc = _python("""
        import ale_py.roms
        from nc2600.host.launcher.local_pool import LocalPoolEvaluator
        def after_in_child():
            blocked = signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, [])
            with open(sys.argv[1] + f"/{os.getpid()}", "w") as fh:
                fh.write(str(blocked))
            os.kill(os.getpid(), signal.SIGTERM)
        os.register_at_fork(after_in_child=after_in_child)
        def body():
            with LocalPoolEvaluator(ale_py.roms.get_rom_path("pong"), 2, 1, episode_frames=100):
                print("started", flush=True)
            return 0
        sys.exit(guarded(body))
    """, tmp_path)
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert proc.stderr == "nc2600: terminated (SIGTERM)\n"
    assert "Traceback" not in proc.stderr and "started" not in proc.stdout
    seen = [p.read_text() for p in tmp_path.iterdir()]
    assert seen and set(seen) == {"True"}                 # every worker started with it blocked


RUN = ["--game", "breakout", "--population", "4", "--generations", "1", "--episode-frames", "200",
       "--elite-candidates", "2", "--elite-episodes", "1", "--test-episodes", "1", "--envs-per-block", "1",
       "--truncation", "2", "--noise-table-size", str(1 << 20), "--progress", "lines", "--workers", "1"]


@pytest.mark.parametrize("moment", ["write_elite_gif", "write_fitness_plot"])
def test_a_sigterm_while_the_outputs_are_written_gives_the_resume_hint(moment, tmp_path):
    """A SIGTERM caught inside a library (here: a suppressing block) that then fails with
    its own error (imageio's "unknown file extension" after its plugin loading was cut):
    exit 130 and the resume hint, no traceback; the resume finishes the run."""
    out = tmp_path / "run"
    proc = _python(f"""
        import contextlib
        import nc2600.host.launcher.run
        from nc2600.host.cli import main
        def stopped(*args, **kw):
            with contextlib.suppress(KeyboardInterrupt):
                signal.raise_signal(signal.SIGTERM)
            raise ValueError("unknown file extension: .gif")
        nc2600.host.launcher.run.{moment} = stopped          # the end-of-run output the run calls
        sys.exit(main(sys.argv[1:]))
    """, "run", *RUN, "--out", out, timeout=300)
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert proc.stderr == f"nc2600: terminated (SIGTERM); continue with: nc2600 run --resume {out}\n"
    resumed = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "run", "--resume", str(out)],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert (out / "summary.json").exists() and (out / "best.gif").exists()


IMPORTING = """
import pathlib, time
pathlib.Path({folder!r}, "stops_in_its_import.py").write_text(
    "import signal\\n"
    "signal.raise_signal(signal.SIGTERM)      # the handler runs at the next line, inside the import\\n"
    "COMPLETE = sum(range(1000)) == 499500\\n")
sys.path.insert(0, {folder!r})
def body():
    import stops_in_its_import
    print("imported", stops_in_its_import.COMPLETE, flush=True)
    for _ in range(3000):                   # the command's further work: 30 s, against a
        time.sleep(0.01)                    # re-sent signal that a loaded machine delays
    print("went on", flush=True)
    return 0
sys.exit(guarded(body))
"""


def test_a_sigterm_inside_an_import_stops_the_command_after_the_import(tmp_path):
    """A SIGTERM whose handler runs while a module is imported is not raised there (a C
    extension's initialiser, ale-py's, crashes on an exception raised in its middle: SIGSEGV or
    SIGABRT): the module's code runs to its end, then the same SIGTERM stops the command before
    its next piece of work: exit 130, one line."""
    proc = _python(IMPORTING.format(folder=str(tmp_path)))
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert proc.stdout == "imported True\n"
    assert proc.stderr == "nc2600: terminated (SIGTERM)\n"


def test_a_ctrl_c_inside_an_import_stops_the_command_after_the_import(tmp_path):
    """The same for SIGINT (a Ctrl-C; Python's KeyboardInterrupt, which crashed ale-py's
    initialiser the same way): the module's code runs to its end, then the command stops: exit
    130, one line. SIGINT is given Python's default handler first, as on a terminal (a runner
    started in the background ignores it, and so would this child)."""
    code = IMPORTING.format(folder=str(tmp_path)).replace("signal.SIGTERM", "signal.SIGINT")
    assert "signal.raise_signal(signal.SIGINT)" in code
    proc = _python("signal.signal(signal.SIGINT, signal.default_int_handler)\ninstall_sigterm_handler()\n" + code)
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert proc.stdout == "imported True\n"
    assert proc.stderr == "nc2600: interrupted\n"


def test_an_ignored_sigint_stays_ignored():
    """A command started with SIGINT ignored (a background job without job control) keeps
    ignoring it: the handler is installed only over Python's default one."""
    proc = _python("""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        install_sigterm_handler()
        print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        install_sigterm_handler()
        from nc2600.host.signals import on_sigint
        print(signal.getsignal(signal.SIGINT) is on_sigint)
    """)
    assert proc.returncode == 0 and proc.stdout == "True\nTrue\n", proc.stdout + proc.stderr


def test_the_ray_drivers_handler_also_waits_for_the_import(tmp_path):
    """The same in a Ray driver under the supervisor (its own SIGTERM handler): the import
    finishes, then the stop: 130, one line."""
    proc = _python(IMPORTING.format(folder=str(tmp_path)).replace(
        "sys.exit(guarded(body))",
        "from nc2600.host.cluster.supervisor import supervised_driver\nsys.exit(supervised_driver(lambda: "
        "guarded(body)))"))
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert proc.stdout == "imported True\n"
    assert proc.stderr == "nc2600: terminated (SIGTERM)\n"


def test_other_failures_without_a_sigterm_are_not_hidden():
    proc = _python("""
        def body():
            raise ValueError("a real bug")
        sys.exit(guarded(body))
    """)
    assert proc.returncode == 1 and "ValueError: a real bug" in proc.stderr


# -- a SIGTERM to the process group at seeded moments of a whole run (slow) ----------------
MOMENTS = 50
SMALL_RUN = ["--game", "space_invaders", "--population", "4", "--generations", "2", "--episode-frames", "300",
             "--elite-candidates", "2", "--elite-episodes", "1", "--test-episodes", "2", "--envs-per-block", "1",
             "--truncation", "2", "--noise-table-size", str(1 << 20), "--progress", "lines", "--workers", "2",
             "--seed", "3"]


def _fitness(out):
    import json
    return [{k: v for k, v in json.loads(t).items() if k not in ("wall_s", "fps")}
            for t in (out / "log.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    import json
    import time
    out = tmp_path_factory.mktemp("sig") / "ref"
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "run", *SMALL_RUN, "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    # worth comparing: Space Invaders' 300-frame episodes score and differ
    eps = [json.loads(t) for t in (out / "episodes.jsonl").read_text().splitlines()]
    assert len({e["return"] for e in eps}) > 1 and len({e["actions_crc32"] for e in eps}) > 1, eps
    return out, time.monotonic() - t0


@pytest.mark.slow
@pytest.mark.parametrize("moment", range(MOMENTS))
def test_a_sigterm_to_the_group_at_any_moment_stops_cleanly_and_resumes_equal(moment, reference_run, tmp_path):
    """The run (start-up, generations, elite, test, plot, video, shut-down) gets one SIGTERM
    to its process group at a moment drawn uniformly over the reference run's wall time
    (seeded): exit 130 with exactly one line (the resume hint once the folder holds a run) and
    no traceback, or exit 0 when it had finished before the signal; ``--resume`` then gives the
    reference run's fitness lines and test score."""
    import json
    import os
    import random
    import signal
    import time
    ref, wall = reference_run
    out = tmp_path / "run"
    delay = random.Random(moment).uniform(0.0, wall * 1.1)
    proc = subprocess.Popen([sys.executable, "-m", "nc2600.host.cli", "run", *SMALL_RUN, "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(delay)
    killed_at = time.time()
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    stdout, stderr = proc.communicate(timeout=120)
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    if proc.returncode == 0:
        assert stderr == ""
        # finished before the signal (a SIGTERM from the command's end on gives 130): a run
        # that went on working after it lost the signal
        assert (out / "summary.json").stat().st_mtime < killed_at + 1.0, (delay, "the SIGTERM was lost")
    else:
        assert proc.returncode == 130, (delay, stderr)
        hint = f"nc2600: terminated (SIGTERM); continue with: nc2600 run --resume {out}\n"
        assert stderr in (hint, "nc2600: terminated (SIGTERM)\n"), (delay, stderr)
        if stderr == hint:
            again = ["--resume", str(out)]
        elif (out / "config.json").exists():    # stopped as the finished run shut down
            assert (out / "summary.json").exists()
            again = ["--resume", str(out)]
        else:                                   # stopped before the folder held a run
            again = [*SMALL_RUN, "--out", str(out)]
        resumed = subprocess.run([sys.executable, "-m", "nc2600.host.cli", "run", *again],
                                 capture_output=True, text=True, timeout=600)
        assert resumed.returncode == 0, (delay, resumed.stderr)
    assert _fitness(out) == _fitness(ref)
    assert json.loads((out / "summary.json").read_text())["elite_test_score"] == \
        json.loads((ref / "summary.json").read_text())["elite_test_score"]
    assert (out / "episodes.jsonl").read_text() == (ref / "episodes.jsonl").read_text()


def test_a_sigterm_during_the_interpreters_shutdown_no_longer_kills_the_finished_command():
    """Python restores SIGTERM's default action while it shuts down (a run that has written its
    summary would die with status -15); ``entry`` blocks SIGTERM for the shutdown, so
    the finished command exits with its own status and every exit hook runs. An atexit hook
    sends the SIGTERM at that moment."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import atexit, os, signal
        import nc2600.host.cli
        atexit.register(lambda: print("last hook ran", flush=True))
        atexit.register(lambda: os.kill(os.getpid(), signal.SIGTERM))   # LIFO: runs first
        def finished(argv=None):
            nc2600.host.cli.install_sigterm_handler()
            return 0
        nc2600.host.cli.main = finished
        nc2600.host.cli.entry()
    """)], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, "") and "last hook ran" in proc.stdout


def test_a_sigterm_pending_as_the_command_ends_exits_130():
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import os, signal
        import nc2600.host.cli
        def finished(argv=None):
            nc2600.host.cli.install_sigterm_handler()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            os.kill(os.getpid(), signal.SIGTERM)        # arrives, held, as the command returns
            return 0
        nc2600.host.cli.main = finished
        nc2600.host.cli.entry()
    """)], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (130, "nc2600: terminated (SIGTERM)\n")


def test_after_a_sigterm_a_finaliser_failing_in_its_wake_prints_nothing():
    """A writer cut short by the SIGTERM (imageio's) can fail again in its ``__del__``; Python
    would print that traceback after the one line."""
    proc = _python("""
        class Writer:
            def __del__(self):
                raise ValueError("unknown file extension: ")
        def body():
            w = Writer()
            signal.raise_signal(signal.SIGTERM)
        sys.exit(guarded(body))
    """)
    assert (proc.returncode, proc.stderr) == (130, "nc2600: terminated (SIGTERM)\n")
