"""``nc2600 bench rtl --callgrind``: the C driver runs whole console frames from the power-on
snapshot, and callgrind counts them."""
import shutil

import pytest

from nc2600.host.bench import sim_profile
from nc2600.host.games import resolve_rom

pytestmark = pytest.mark.slow


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")
def test_console_profile_counts_whole_ntsc_frames():
    name, path = resolve_rom(game="pong")
    r = sim_profile.profile("console", name, path, frames=4, colour_clocks=3, callgrind_frames=1)
    # an NTSC frame of Pong is 262 scanlines of 76 CPU cycles, one clock each (Stella's frame)
    assert r["clocks_per_frame"] == 262 * 76
    # the clock edge's NBA region is the model's evaluation: nearly all of the count
    name, share = r["hottest"][0]
    assert name.startswith("Vconsole_cc3___024root___nba_sequent__TOP__0") and share > 0.9
    assert r["instructions_per_frame"] > 1000 * r["clocks_per_frame"]

