"""Where each game first reads its controller in a frame, and what that hides of a decision (the
library behind ``nc2600 input-probe``).

The RTL console (:class:`nc2600.host.drivers.rtl_console.RtlConsole`, ALE's power-on and reset
sequence, as ``nc2600 lockstep`` replays it) plays the episode protocol of
:mod:`nc2600.hls_models.frame_skip` (the no-op start of the episode seed, the FIRE run, then
``decisions`` runs of ``frame_skip`` frames, each a random action of the minimal set held, the
random draws from ``numpy.random.default_rng(seed)``; the game's own game over is not looked at,
as a probe of where the reads fall). For the first frame of every decision's run (the frame the
console runs on into while the engine infers, with ``hide``) it keeps the console's clocks before
the frame's first read of a controller input an action drives (SWCHA, INPT0-5:
:func:`nc2600.hw.console.input_read`; ``None`` when the frame reads none) and the frame's clocks, and
from them the clocks the console would wait per decision (:func:`nc2600.hls_models.frame_skip.hidden_stall`)
against the waiting decision's (:func:`nc2600.hls_models.frame_skip.serial_stall`), and the frames/s
per instance at a clock: ``frame_skip x clock / (frame_skip x (clocks per frame + host rules per
frame) + stall per decision)``.
"""
from __future__ import annotations

import numpy as np

from nc2600.hls_models.frame_skip import hidden_stall, noop_frames, serial_stall
from nc2600.hls_models.platform import FRAME_SKIP

#: Host rules wait per frame (clocks) used for frames/s: measured on the Verilated default instance
#: (Boxing, three colour clocks per clock, 400 frames: 35.7; results record "fabric instance cycles
#: per decision, inference, array engine 16 x 16, three colour clocks per clock, Boxing").
HOST_RULES_PER_FRAME = 35.7


def probe_game(game: str, decisions: int = 25, seed: int = 0, frame_skip: int = FRAME_SKIP,
               colour_clocks: int = 3, decision_clocks: int | None = None) -> dict:
    """Probe one game (module doc). Returns a JSON-ready dict: ``game``, ``decisions``,
    ``first_input`` (per decision's first frame: clocks before its first controller read, or
    None), ``frame_clocks`` (that frame's clocks), ``stall`` (hidden, per decision), and the means
    ``mean_stall``, ``serial_stall``, ``hidden_fraction`` (of the serial wait hidden),
    ``clocks_per_frame`` (all frames of the decisions' runs), ``no_read_fraction``.

    Raises:
        nc2600.host.errors.UserError: an unknown game or a mapper the console RTL lacks.
    """
    from nc2600.hls_models.action_select import MAX_ACTIONS, latency
    from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ROWS
    from nc2600.hls_models.policy_array import engine_cycles
    from nc2600.host.drivers.rtl_console import RtlConsole
    from nc2600.host.games import game_info, resolve_rom
    name, path = resolve_rom(game=game)
    info = game_info(name, path)
    ids = [int(a) for a in info.minimal_actions]
    if decision_clocks is None:   # the engine for the game's actions, the instance's 18-lane action select
        decision_clocks = engine_cycles(len(ids), DEFAULT_ROWS, DEFAULT_COLS) + latency(MAX_ACTIONS)
    con = RtlConsole(name, path, colour_clocks=colour_clocks)
    con.power_on()
    con.reset_game()
    rng = np.random.default_rng(seed)
    for _ in range(noop_frames(seed)):
        con.act(0)
    if 1 in ids:
        for _ in range(frame_skip):
            con.act(1)
    firsts, lengths, all_clocks = [], [], []
    for _ in range(decisions):
        a = ids[int(rng.integers(len(ids)))]
        for k in range(frame_skip):
            r = con.act(a)
            clocks = r.colour_clocks // colour_clocks
            all_clocks.append(clocks)
            if k == 0:
                firsts.append(None if r.first_input < 0 else int(r.first_input))
                lengths.append(int(clocks))
    stalls = [hidden_stall(f, n, decision_clocks) for f, n in zip(firsts, lengths)]
    ser = serial_stall(decision_clocks)
    return {"game": name, "decisions": decisions, "seed": seed, "frame_skip": frame_skip,
            "colour_clocks": colour_clocks, "decision_clocks": int(decision_clocks),
            "first_input": firsts, "frame_clocks": lengths, "stall": stalls,
            "mean_stall": float(np.mean(stalls)), "serial_stall": ser,
            "hidden_fraction": 1.0 - float(np.mean(stalls)) / ser,
            "median_first_input": None if all(f is None for f in firsts) else
            float(np.median([f if f is not None else n for f, n in zip(firsts, lengths)])),
            "no_read_fraction": sum(f is None for f in firsts) / len(firsts),
            "clocks_per_frame": float(np.mean(all_clocks))}


def frames_per_second(p: dict, clock_mhz: float, stall: float | None = None,
                      host_rules: float = HOST_RULES_PER_FRAME) -> float:
    """Frames/s per instance at ``clock_mhz`` for a probe result ``p``: ``frame_skip x clock /
    (frame_skip x (clocks per frame + host_rules) + stall)``, ``stall`` the mean hidden stall
    unless given (e.g. ``p["serial_stall"]``)."""
    k = p["frame_skip"]
    s = p["mean_stall"] if stall is None else stall
    return k * clock_mhz * 1e6 / (k * (p["clocks_per_frame"] + host_rules) + s)
