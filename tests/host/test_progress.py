"""Long commands print a line at least every ``HEARTBEAT_S`` seconds when their output
is redirected (``nc2600.host.launcher.progress.Heartbeat``, shared by ``run``, ``lockstep`` and ``games verify``).

The oracle is the clock: a fake one for the rule itself, the real one for the thread and the
commands (with the period shortened to a fraction of a second)."""
import time

import pytest

from nc2600.host.launcher import progress
from nc2600.host.launcher.progress import Heartbeat


class FakeClock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_beat_only_after_a_silent_period():
    clock, lines = FakeClock(), []
    hb = Heartbeat(lines.append, period=30, clock=clock)
    clock.t += 29.9
    assert not hb.beat(lambda: "status") and lines == []
    clock.t += 0.1                       # 30 s without a line
    assert hb.beat(lambda: "status") and lines == ["status"]
    clock.t += 20
    hb.say("a table row")                # any line the command prints restarts the period
    clock.t += 29
    assert not hb.beat(lambda: "status")
    clock.t += 1
    assert hb.beat(lambda: "status 2") and lines == ["status", "a table row", "status 2"]


def test_thread_keeps_lines_at_most_one_period_apart():
    """One long step (1.2 s without a line) under a 0.2 s period: status lines appear, each at
    most one period (plus scheduling slack) after the one before."""
    stamps = []
    hb = Heartbeat(lambda m: stamps.append(time.monotonic()), period=0.2)
    start = time.monotonic()
    with hb.running(lambda: "working"):
        time.sleep(1.2)
    gaps = [b - a for a, b in zip([start] + stamps, stamps)]
    assert len(stamps) >= 4, stamps
    assert max(gaps) <= 0.2 + 0.15, gaps
    n = len(stamps)
    time.sleep(0.5)
    assert len(stamps) == n              # the thread stops with the block


@pytest.mark.parametrize("argv,word", [
    (["lockstep", "--games", "boxing,seaquest", "--frames", "300"], "lockstep: "),
    (["games", "verify", "--game", "pong", "--game", "breakout", "--frames", "6000"], "games verify: "),
])
def test_sweeps_print_heartbeat_lines_when_redirected(argv, word, monkeypatch, capsys):
    """With stdout/stderr captured (not a terminal) and the period at 0.25 s, the sweep writes
    status lines to stderr while it works; stdout keeps only the table."""
    from nc2600.host.cli import main
    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.25)
    assert main(argv) == 0
    out, err = capsys.readouterr()
    beats = [ln for ln in err.splitlines() if ln.startswith(word)]
    assert beats, err
    assert all(" done, " in ln for ln in beats), beats
    assert word not in out
