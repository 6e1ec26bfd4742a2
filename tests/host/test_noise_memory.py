"""The noise table is drawn in pieces a stop signal interrupts, with the same values as one
``standard_normal`` call (the oracle), and the memory check counts every large allocation of a
run on this machine (the embedded Ray's node actor's own table and genome cache included)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from nc2600.host.launcher import noise
from nc2600.host.launcher.settings import RunConfig


@pytest.mark.parametrize("size", [1, 999, 1000, 1001, 2500, 4096 + 7])
def test_a_table_drawn_in_pieces_equals_one_draw(monkeypatch, size):
    monkeypatch.setattr(noise, "DRAW_CHUNK", 1000)
    table = noise.NoiseTable(size, 123).table
    oracle = np.random.default_rng(123).standard_normal(size, dtype=np.float32)
    assert table.dtype == np.float32 and table.shape == (size,)
    assert np.array_equal(table, oracle)


def test_the_default_table_equals_one_draw():
    size = 3 * noise.DRAW_CHUNK + 17
    assert np.array_equal(noise.NoiseTable(size, 7).table,
                          np.random.default_rng(7).standard_normal(size, dtype=np.float32))


STOP = """
import os, signal, threading, time
from nc2600.host.cli import install_sigterm_handler
install_sigterm_handler()
from nc2600.host.launcher.noise import NoiseTable
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
t0 = time.monotonic()
try:
    NoiseTable(1 << 30)              # 4 GiB, about 13 s to draw here
    print("finished")
except KeyboardInterrupt:
    print(f"stopped {time.monotonic() - t0:.3f}")
"""


def test_a_signal_stops_the_drawing_of_a_large_table():
    proc = subprocess.run([sys.executable, "-c", STOP], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    word, seconds = proc.stdout.split()
    assert word == "stopped" and float(seconds) < 1.5, proc.stdout


def test_the_embedded_rays_node_actor_is_counted():
    local = RunConfig(noise_table_size=1 << 26)
    ray = RunConfig(noise_table_size=1 << 26, cluster="ray")
    remote = RunConfig(noise_table_size=1 << 26, cluster="ray", ray_address="10.0.0.1:6379")
    extra = ray.memory_bytes()["node actor's noise table and genome cache"]
    assert extra == 4 * (1 << 26) + noise.GENOME_CACHE_BYTES
    assert sum(ray.memory_bytes().values()) - sum(local.memory_bytes().values()) == extra
    assert remote.memory_bytes() == local.memory_bytes()       # the nodes' memory is theirs
    rs = RunConfig(noise_table_size=1 << 26, cluster="ray", algo="rs").memory_bytes()
    assert rs["node actor's noise table and genome cache"] == noise.GENOME_CACHE_BYTES


def test_a_table_larger_than_the_memory_is_refused_naming_it(monkeypatch):
    from nc2600.host import resources
    from nc2600.host.errors import UserError
    cfg = RunConfig(noise_table_size=1 << 32, workers=1)     # 16 GiB of float32
    monkeypatch.setattr(resources, "available_memory", lambda: 8 << 30)
    with pytest.raises(UserError, match=r"largest part: noise table, 16\.0 GiB\) needs .* 8\.0 GiB available"):
        cfg.check_memory()
