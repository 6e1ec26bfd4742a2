"""Lockstep catches faults: a console with one injected difference is reported at
exactly the frame where the difference appears, with the RTL's PC, scanline and cycle count.

The faulty consoles are the real Verilated console (:class:`nc2600.host.drivers.rtl_console.RtlConsole`) with
one change after a chosen frame: one RIOT RAM byte flipped in the console itself (so the game
carries it on), one pixel of the reported screen flipped, or one SuperChip RAM byte flipped.
The oracle is ALE (through :func:`nc2600.host.verify.lockstep.lockstep_game`); without the fault the same
runs match (``tests/console/test_lockstep.py``)."""
import pytest

from nc2600.host.verify.lockstep import lockstep_game
from nc2600.host.drivers.rtl_console import RtlConsole


class RamFault(RtlConsole):
    """Flips bit ``bit`` of RIOT RAM byte ``index`` (address $80 + index) in the console after
    ALE frame ``at`` (frame 0 is the first ``act``)."""

    def __init__(self, game, at, index, bit=0):
        super().__init__(game)
        self.at, self.index, self.bit = at, index, bit

    def act(self, action):
        res = super().act(action)
        if self.frames - 1 == self.at:
            ram = self.ram().copy()
            ram[self.index] ^= 1 << self.bit
            self.sim.write_riot_ram(bytes(ram))
        return res


class PixelFault(RtlConsole):
    """Reports the screen of ALE frame ``at`` with pixel (row, x) changed to another colour."""

    def __init__(self, game, at, row, x):
        super().__init__(game)
        self.at, self.row, self.x = at, row, x

    @property
    def screen(self):
        s = self.sim.screen
        if self.frames - 1 == self.at:
            s = s.copy()
            s[self.row, self.x] ^= 0x02
        return s


class CartRamFault(RtlConsole):
    """Flips SuperChip RAM byte ``index`` in the console after ALE frame ``at``."""

    def __init__(self, game, at, index):
        super().__init__(game)
        self.at, self.index = at, index

    def act(self, action):
        res = super().act(action)
        if self.frames - 1 == self.at:
            x = self.cart_ram().copy()
            x[self.index] ^= 0x80
            self.sim.write_cart_ram(bytes(x))
        return res


@pytest.mark.parametrize("at,index", [(0, 0x10), (37, 0x7F)])
def test_ram_fault_reported_at_its_frame(at, index):
    r = lockstep_game("boxing", at + 20, seed=0, console=RamFault("boxing", at, index))
    assert not r["match"]
    assert r["first_ram_mismatch_frame"] == at, r
    m = r["ram_mismatch"]
    assert f"${0x80 + index:02X}" in m["addresses"]
    i = m["addresses"].index(f"${0x80 + index:02X}")
    assert m["ale"][i] ^ m["rtl"][i] == 1                      # exactly the flipped bit
    assert m["pc"].startswith("$") and m["scanlines"] > 200
    # the cycle count: every frame so far ran, and the fault's frame is the last one counted
    assert m["cycle"] > 0 and 0 < m["cycles_in_frame"] <= m["cycle"]


def test_cycle_count_is_the_sum_of_the_frames():
    """``cycle`` at a fault in frame F equals the CPU cycles of frames 0..F of an unfaulted
    console run with the same actions (independent count from the console's FrameResults)."""
    at = 12
    r = lockstep_game("boxing", at + 3, seed=0, console=RamFault("boxing", at, 0x20))
    from nc2600.host.episodes.ale_oracle import open_ale
    from nc2600.host.games import resolve_rom
    from nc2600.host.verify.lockstep import action_sequence
    path = resolve_rom(game="boxing")[1]
    minimal = [int(a.value) for a in open_ale(path).getMinimalActionSet()]
    acts = action_sequence("random", at + 1, minimal, 0)
    c = RtlConsole("boxing")
    c.power_on()
    total = sum(c.act(int(a)).cycles for a in acts)
    assert r["ram_mismatch"]["cycle"] == total


def test_pixel_fault_reported_at_its_frame_and_pixel():
    r = lockstep_game("boxing", 30, seed=0, console=PixelFault("boxing", 21, 100, 77))
    assert r["first_ram_mismatch_frame"] is None
    assert r["first_screen_mismatch_frame"] == 21, r
    m = r["screen_mismatch"]
    assert (m["pixels"], m["first_row"], m["first_x"]) == (1, 100, 77)
    assert m["ale"] ^ m["rtl"] == 0x02 and m["cycle"] > 0


def test_superchip_ram_fault_reported():
    """elevator_action (F8SC): a cartridge-RAM difference is found as ``SC$xx``."""
    r = lockstep_game("elevator_action", 12, seed=0, console=CartRamFault("elevator_action", 5, 0x33))
    assert r["first_ram_mismatch_frame"] == 5, r
    assert "SC$33" in r["ram_mismatch"]["addresses"]


def test_cli_fails_with_the_frame(monkeypatch, capsys):
    """``nc2600 lockstep`` on the faulty console: exit 1 and the frame and cycle in the output."""
    import nc2600.host.drivers.rtl_console
    from nc2600.host.cli import main

    class Faulty(RamFault):
        def __init__(self, game, rom_path=None, **kw):
            super().__init__(game, 9, 0x05)

    monkeypatch.setattr(nc2600.host.drivers.rtl_console, "RtlConsole", Faulty)
    assert main(["lockstep", "--game", "boxing", "--frames", "15"]) == 1
    out = capsys.readouterr().out
    assert "first_ram_mismatch_frame: 9" in out and "'cycle': " in out
