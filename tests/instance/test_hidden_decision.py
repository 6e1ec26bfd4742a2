"""The decision hidden behind the console (``EP_CFG.hide``): episodes equal to ALE int8 decision by
decision, and each decision's stall (``STALL_LAST``) equal to the model
(:func:`nc2600.hls_models.frame_skip.hidden_stall`) of where the console first reads its controller
in the run's first frame, found independently by replaying the same frames' inputs on the
Verilated console alone (:class:`nc2600.host.drivers.rtl_console.RtlConsole`, its
``first_input``)."""
from __future__ import annotations

import pytest

from nc2600.hls_models.frame_skip import hidden_stall, noop_frames, serial_stall
from nc2600.host.drivers.instance import InstanceDriver, InstanceEpisodeRunner

from tests.instance.test_instance import _varied_policy


def _console_first_inputs(game, rom, seed, ids, actions, frame_skip, frames):
    """Replay the episode's frames (no-ops, FIRE run, each decision's action held) on the console
    alone; returns ``[(first_input, frame clocks)]`` of each decision's first frame."""
    from nc2600.host.drivers.rtl_console import RtlConsole
    con = RtlConsole(game, rom, colour_clocks=3)
    con.power_on()
    con.reset_game()
    n = 0
    for _ in range(noop_frames(seed)):
        con.act(0)
        n += 1
    if 1 in ids:
        for _ in range(frame_skip):
            con.act(1)
            n += 1
    out = []
    for a in actions:
        for k in range(min(frame_skip, frames - n)):
            r = con.act(ids[a])
            n += 1
            if k == 0:
                out.append((None if r.first_input < 0 else r.first_input, r.colour_clocks // 3))
    assert n == frames
    return out


def _check(game, seed, cap):
    from nc2600.hls_models.action_select import MAX_ACTIONS, latency
    from nc2600.hls_models.policy_array import engine_cycles
    from nc2600.host.games import game_info, resolve_rom
    from nc2600.hwtools.instance_harness import InstanceSim
    _, rom = resolve_rom(game=game)
    info = game_info(game, rom)
    sim = InstanceSim(info.screen_height, info.display)
    hidden = InstanceEpisodeRunner(InstanceDriver(sim), game, rom, episode_frames=cap)
    qp, (ref_actions, ref_ret, ref_frames) = _varied_policy(rom, len(hidden.ids), seed, cap)
    ep = hidden.run(seed, qp, record_actions=True)
    assert (ep.actions, ep.episode_return, ep.frames) == (ref_actions, ref_ret, ref_frames)
    waiting = InstanceEpisodeRunner(InstanceDriver(sim), game, rom, episode_frames=cap, hide=False)
    ep0 = waiting.run(seed, qp, record_actions=True)
    assert (ep0.actions, ep0.episode_return, ep0.frames) == (ref_actions, ref_ret, ref_frames)
    # the engine's cycles for the game's actions and the instance's 18-lane action select's latency
    d = engine_cycles(len(hidden.ids), 16, 16) + latency(MAX_ACTIONS)
    assert ep0.stalls == [serial_stall(d)] * ep0.decisions
    firsts = _console_first_inputs(game, rom, seed, hidden.ids, ep.actions, 4, ep.frames)
    # a run of one frame (the cap's last) is pushed at once: the console waits for that decision
    start = noop_frames(seed) + (4 if 1 in hidden.ids else 0)
    runs = [min(4, ep.frames - (start + 4 * i)) for i in range(ep.decisions)]
    model = [hidden_stall(f, n, d) if k >= 2 else serial_stall(d) for (f, n), k in zip(firsts, runs)]
    assert ep.stalls == model
    assert ep.cycles["stall"] == sum(ep.stalls) and ep0.cycles["stall"] == sum(ep0.stalls)
    # the same frames: the console's clocks differ only by the wait, and for paddles by the three
    # set-up clocks of the charge time before a waiting decision's frame (a hidden one sets it
    # while the console runs)
    from nc2600.hls_models.console_settings import console_settings
    hidden_runs = sum(k >= 2 for k in runs)
    paddle_cycles = 3 * hidden_runs if console_settings(game).paddles else 0
    assert ep0.cycles["emulation"] - ep.cycles["emulation"] == paddle_cycles
    assert ep.cycles["inference"] == ep0.cycles["inference"]
    return ep, firsts


def test_hidden_decision_boxing():
    """Boxing reads its joystick about 1,600 clocks into the frame: each decision stalls the
    console 11,665 minus that (and the observation's clock), as the model says."""
    ep, firsts = _check("boxing", 7, 60)
    assert ep.stalls[0] <= 11_661                 # 18 actions: 11,655 + 5 to the action, and the observation's clock
    assert all(f is not None and 1000 < f < 3000 for f, _ in firsts)
    assert all(0 < s < 11_661 for s in ep.stalls)


@pytest.mark.slow
@pytest.mark.parametrize("game,seed,cap", [("pong", 5, 200), ("air_raid", 2, 200), ("hero", 4, 200)])
def test_hidden_decision_slow(game, seed, cap):
    """A paddle game (Pong: the paddle's charge time set while the console is held), PAL (Air
    Raid) and F8 bank switching (H.E.R.O.)."""
    _check(game, seed, cap)
