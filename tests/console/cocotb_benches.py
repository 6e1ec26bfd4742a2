"""``make sim`` registrations of the console (:mod:`nc2600.hwtools.sim`, rule 2): commands, not cocotb.

The console is checked against ALE itself, frame by frame, with ``nc2600 lockstep``: a 15-game
sample for 1,000 frames in ``make sim``, every loadable game for 2,000 frames in ``make sim-full``.
"""
from __future__ import annotations

from nc2600.hwtools.sim import SimCommand

#: ``make sim``'s console sample (1,000 random-action frames each, more than CI's few hundred):
#: every mapper type (2K boxing, 4K seaquest, F8 asterix, F6 road_runner, E0 montezuma_revenge,
#: F8SC elevator_action, F6SC klax, FE robotank, DPC pitfall2), paddles (pong, backgammon),
#: PAL (klax, mr_do), seed-dependent RAM (boxing, freeway, seaquest) and Stella's HMOVE/RESxx
#: cases (battle_zone, journey_escape).
LOCKSTEP_SAMPLE = ("boxing", "seaquest", "asterix", "road_runner", "montezuma_revenge", "elevator_action",
                   "klax", "robotank", "pitfall2", "pong", "backgammon", "freeway", "battle_zone",
                   "journey_escape", "mr_do")

SIM_COMMANDS = [
    SimCommand("console", "lockstep_sample", ("nc2600", "lockstep", "--games", ",".join(LOCKSTEP_SAMPLE),
                                              "--frames", "1000", "--jobs", "2", "--json"),
               json_records=True, timeout_s=3600.0),
    SimCommand("console", "lockstep_all_games", ("nc2600", "lockstep", "--all", "--frames", "2000",
                                                 "--jobs", "2", "--json"),
               full_only=True, json_records=True, timeout_s=7200.0),
]
