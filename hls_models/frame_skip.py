"""The frame-skip controller: the episode protocol of one fabric instance, frame by frame.

This is the one statement of the evaluation protocol (Such et al. 2017 / Machado et al. 2018
as the launcher runs it, :mod:`nc2600.host.episodes.env`) that both engines follow: the launcher's
:class:`nc2600.host.episodes.env.ProtocolEnv` drives its consoles (ALE, RTL) with
:func:`episode_schedule`, and the controller RTL (:mod:`nc2600.hw.frame_skip`) is its cycle-level
twin (its tests compare the two).

Protocol (per episode; ``k`` = frame skip, default 4):

1. episode start: the console is in its episode start state (ALE's state after
   ``loadROM`` + ``reset_game``); the observation stack is emptied;
2. ``n`` NOOP frames, ``n`` in ``1..NOOP_MAX`` drawn from the episode seed
   (:func:`noop_frames`; no-op starts, Mnih et al. 2015);
3. when FIRE is in the minimal action set and the game is not over: ``k`` FIRE frames
   (OpenAI baselines' FireResetEnv; the episode cap does not shorten this run);
4. decisions until game over or ``frames >= episode_frames``: one action (a minimal-set
   index chosen by the policy from the observation) held for ``min(k, episode_frames -
   frames)`` frames; a run stops early at game over.

Game over is looked at after every frame (ALE ``game_over()``, from the game rules). Every
emulated frame counts against ``episode_frames``, the start's included.

Observation marks (what the preprocessor is told per frame):

- ``push``: the frame's pooled image (max of this and the previous frame) enters the
  observation stack: the last frame of the run that precedes a decision (the start's FIRE
  run, or the no-op run when there is no FIRE, and every decision's run);
- ``zero_prev``: the frame's max uses an all-zero previous frame: the first frame of an
  episode (the launcher zeroes its double buffer at reset, so a 1-frame no-op run with no
  FIRE gives ``max(0, frame)``);
- ``capture``: the launcher's double buffer keeps this frame's grey image (the last two
  frames of a run, or a frame that ends the game). The preprocessor RTL keeps every frame's
  image instead; both give the same pooled image for every pushed frame, because a pushed
  frame's predecessor is always either captured, or the previous run's last frame, or the
  zeroed buffer at the episode start.

Hiding the decision behind the console (the controller's ``hide``; :func:`hidden_stall`): a
decision's action can be observed by the game only when it reads a controller input the action
drives (SWCHA, INPT0-5; ALE applies the action from the frame's start, and the console's other
state does not depend on it). So the console may run on into the run's first frame while the
engine infers, and is held only at its first such read (or the frame's end) until the action is
in its inputs; every frame, count and input is then what the protocol above gives. Not when the
run's first frame is pushed (a run of one frame: the preprocessor would overwrite the stack the
engine reads): then the console waits for the decision.

Paddles (ALE 0.12 ``ALEState::applyActionPaddles``): a paddle game's action moves paddle 0's
resistance by ``-PADDLE_DELTA`` (right) / ``+PADDLE_DELTA`` (left) ohms before each frame,
clamped to the game's range; the console needs the capacitor charge time in CPU cycles,
Stella 2.4.2's ``int(1.6 * r * 0.01e-6 * 1.19e6)``, which :func:`paddle_needed` computes in
integers as ``(r * PADDLE_MULT) >> PADDLE_SHIFT`` (exact for ``0 <= r <= PADDLE_R_MAX``,
checked exhaustively by the tests).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Generator

import numpy as np

from nc2600.hls_models.platform import FRAME_SKIP   # default frames per decision

NOOP_MAX = 30                  #: no-op starts draw 1..NOOP_MAX NOOP frames (Mnih et al. 2015)
MAX_FRAME_SKIP = 255           #: largest frame skip the controller RTL holds (8-bit register)
MAX_EPISODE_FRAMES = (1 << 24) - 1   #: largest episode cap the controller RTL holds (24-bit)
PADDLE_DELTA = 23000           #: ohms per frame of a paddle action (ALE 0.12)
PADDLE_MULT, PADDLE_SHIFT = 40888089, 31   #: needed = (r * MULT) >> SHIFT
PADDLE_R_MAX = 1_000_000       #: largest resistance the integer formula is exact for (ohms)


class PaddleMode(enum.IntEnum):
    """How a dump-capacitor input (INPT0-3 bit 7) of one paddle reads (Stella 2.4.2's TIA pins, as
    ALE 0.12 drives them): the 2-bit ``mode`` of the console's paddle drive
    (:data:`nc2600.hw.interfaces.PaddlesSignature`) and of the instance's PADDLE_CFG and INPUTS."""
    TIMING = 0     #: charged ``needed`` CPU cycles after the dump's release (a paddle, :func:`paddle_needed`)
    CHARGED = 1    #: always charged
    NONE = 2       #: never charged: no paddle (a joystick port's pin)


#: Clocks of the controller around a hidden decision (the instance's frame-skip controller,
#: :mod:`nc2600.hw.frame_skip`): the observation's clock (the engine starts), the frame's set-up clock
#: before the console's first clock, and the stages from the chosen action to the console's release
#: (the action's table entry, the inputs and the paddle's step, the charge time's two stages,
#: ``needed``, the TIA's charge cycle registered from it).
OBS_CLOCKS = 1
SETUP_CLOCKS = 1
APPLY_STAGES = 6


def hidden_stall(first_input: int | None, frame_clocks: int, decision_clocks: int) -> int:
    """Clocks the console waits for one hidden decision (the instance's ``STALL_LAST``).

    Args:
        first_input: the console's clocks in the run's first frame before its first read of a
            controller input the action drives (None: no such read in the frame).
        frame_clocks: the console's clocks of that frame (it waits at the frame's end at the latest).
        decision_clocks: clocks from the engine's start to the chosen action: the engine's cycles
            for the game's actions and the instance's action select's latency (built for 18 lanes:
            :func:`nc2600.hls_models.action_select.latency` of 18, 5): 11,660 for the 16 x 16 array and 18
            actions, 11,644 for 6.
    Returns:
        ``OBS_CLOCKS + max(0, decision_clocks + APPLY_STAGES + OBS_CLOCKS - SETUP_CLOCKS - 1 - reach)``
        with ``reach = min(first_input, frame_clocks)`` (11,665 - reach for 11,660): the engine
        starts in the observation's clock ``t``, the chosen action comes in clock ``t +
        decision_clocks``, the console is released from clock ``t + decision_clocks + APPLY_STAGES
        + 1`` on, and its clock ``k`` of the frame (from 0) would run at ``t + OBS_CLOCKS +
        SETUP_CLOCKS + k``.
    Raises:
        ValueError: a negative clock count.
    """
    if frame_clocks < 0 or decision_clocks < 0 or (first_input is not None and first_input < 0):
        raise ValueError("clock counts must be non-negative")
    reach = frame_clocks if first_input is None else min(int(first_input), int(frame_clocks))
    return OBS_CLOCKS + max(0, int(decision_clocks) + APPLY_STAGES + OBS_CLOCKS - SETUP_CLOCKS - 1 - reach)


def serial_stall(decision_clocks: int) -> int:
    """Clocks the console waits for one decision without hiding: the observation's clock, the
    inference and the action select (``decision_clocks`` from the engine's start to the chosen
    action, which comes in the select's last clock)."""
    return OBS_CLOCKS + int(decision_clocks)


def noop_frames(episode_seed: int) -> int:
    """No-op start length of an episode, ``1..NOOP_MAX`` frames, from its seed.

    The draw is the first of ``numpy.random.default_rng([episode_seed, 0x5EED])`` (PCG64),
    the generator the launcher also uses for sticky actions; the fabric's host computes it
    and writes it to the instance (the fabric has no PCG64).
    """
    return int(np.random.default_rng([int(episode_seed), 0x5EED]).integers(1, NOOP_MAX + 1))


def action_table(action_ids) -> tuple[list[int], int, int | None]:
    """The ALE action ids of an episode's action table, and the protocol's NOOP and FIRE indices in it.

    The table is the game's minimal action set in ALE's order (the policy picks among its first
    ``len(action_ids)`` entries), followed by NOOP (ALE id 0) when the set lacks it: the no-op
    starts and the previous action after a reset press nothing (ALE 0.12's ``PLAYER_A_NOOP``,
    which ``act`` takes whatever the minimal set), and two games' minimal sets do not list it
    (Backgammon's is FIRE, RIGHT, LEFT; Video Checkers' FIRE and the four diagonals).

    Args:
        action_ids: the minimal action set as ALE action ids (integers 0..17, no repeats).
    Returns:
        ``(table, noop_index, fire_index)``: ``table`` a list of ALE ids (the set, then NOOP
        when absent from it), ``noop_index`` NOOP's index in it, ``fire_index`` FIRE's (id 1)
        or None when the set has no FIRE.
    Raises:
        ValueError: an id outside 0..17, a repeated id, or an empty set.
    """
    from nc2600.hls_models.action_select import MAX_ACTIONS
    ids = [int(a) for a in action_ids]
    if not ids or len(set(ids)) != len(ids) or not all(0 <= a < MAX_ACTIONS for a in ids):
        raise ValueError(f"action_ids must be distinct ALE action ids 0..{MAX_ACTIONS - 1}, got {ids}")
    table = ids if 0 in ids else ids + [0]
    return table, table.index(0), (table.index(1) if 1 in ids else None)


def paddle_needed(resistance: int) -> int:
    """CPU cycles until a paddle of ``resistance`` ohms (0..PADDLE_R_MAX) reads charged,
    in integer arithmetic (equal to Stella 2.4.2's double expression over that range)."""
    if not 0 <= resistance <= PADDLE_R_MAX:
        raise ValueError(f"resistance must be in 0..{PADDLE_R_MAX}, got {resistance}")
    return (int(resistance) * PADDLE_MULT) >> PADDLE_SHIFT


#: ALE action ids that turn paddle 0 right (resistance down): RIGHT, UPRIGHT, DOWNRIGHT and their
#: FIRE forms; and left (resistance up). ALE 0.12 ``ALEState::applyActionPaddles``.
PADDLE_RIGHT_ACTIONS = frozenset((3, 6, 8, 11, 14, 16))
PADDLE_LEFT_ACTIONS = frozenset((4, 7, 9, 12, 15, 17))


def paddle_direction(action: int) -> int:
    """How ALE action id ``action`` (0..17) moves paddle 0: -1 right, +1 left, 0 not at all (the
    ``direction`` of :func:`paddle_step`)."""
    a = int(action)
    return -1 if a in PADDLE_RIGHT_ACTIONS else 1 if a in PADDLE_LEFT_ACTIONS else 0


def paddle_step(resistance: int, direction: int, lo: int, hi: int) -> int:
    """Paddle 0's resistance after one frame of an action moving it ``direction``
    (-1 right, 0 none, +1 left), clamped to ``lo..hi`` ohms (ALE 0.12)."""
    return min(max(int(resistance) + int(direction) * PADDLE_DELTA, lo), hi)


@dataclass(frozen=True)
class EpisodeConfig:
    """What the controller needs per episode.

    Args:
        noops: no-op frames (1..NOOP_MAX; :func:`noop_frames` of the episode seed).
        noop_index: NOOP's index in the action table (:func:`action_table`: the minimal set, ALE
            puts NOOP first, or the entry after the set where it lacks NOOP).
        fire_index: FIRE's index in the action table, or None when FIRE is not in the set.
        frame_skip: frames per decision (1..MAX_FRAME_SKIP).
        episode_frames: cap on emulated frames (1..MAX_EPISODE_FRAMES).
    Raises:
        ValueError: a field out of range.
    """
    noops: int
    noop_index: int = 0
    fire_index: int | None = None
    frame_skip: int = FRAME_SKIP
    episode_frames: int = 20_000

    def __post_init__(self):
        if not 1 <= self.noops <= NOOP_MAX:
            raise ValueError(f"noops must be in 1..{NOOP_MAX}, got {self.noops}")
        if not 1 <= self.frame_skip <= MAX_FRAME_SKIP:
            raise ValueError(f"frame_skip must be in 1..{MAX_FRAME_SKIP}, got {self.frame_skip}")
        if not 1 <= self.episode_frames <= MAX_EPISODE_FRAMES:
            raise ValueError(f"episode_frames must be in 1..{MAX_EPISODE_FRAMES}, got {self.episode_frames}")


@dataclass(frozen=True)
class Frame:
    """One frame to emulate: hold ``action`` (an index of :func:`action_table`); preprocessor marks (module doc);
    ``phase`` is ``"noop"``, ``"fire"`` or ``"step"``; ``index``/``length`` place it in its run."""
    action: int
    push: bool
    zero_prev: bool
    capture: bool
    phase: str
    index: int
    length: int


@dataclass(frozen=True)
class Decide:
    """The policy must choose the next action (send its minimal-set index); ``frames`` so far."""
    frames: int


@dataclass(frozen=True)
class Outcome:
    """How the schedule ended: ``frames`` emulated, ``decisions`` taken, the start's
    ``start_frames``, ``game_over`` (False: stopped by the cap)."""
    frames: int
    decisions: int
    start_frames: int
    game_over: bool


def episode_schedule(cfg: EpisodeConfig) -> Generator[Frame | Decide, object, Outcome]:
    """The protocol as a generator (see module doc).

    Yields :class:`Frame` (send back ``True`` when the game is over after it, else
    ``False``) and :class:`Decide` (send back the chosen minimal-set index); returns an
    :class:`Outcome` (``StopIteration.value``).
    """
    frames = 0
    over = False
    first = True

    def run(action: int, n: int, phase: str, push_last: bool):
        nonlocal frames, over, first
        for i in range(n):
            over = bool((yield Frame(action, push_last and i == n - 1, first, i >= n - 2, phase, i, n)))
            first = False
            frames += 1
            if over:
                return

    fire = cfg.fire_index is not None
    yield from run(cfg.noop_index, cfg.noops, "noop", not fire)
    if fire and not over:
        yield from run(cfg.fire_index, cfg.frame_skip, "fire", True)
    start_frames = frames
    decisions = 0
    while not (over or frames >= cfg.episode_frames):
        action = int((yield Decide(frames)))
        decisions += 1
        yield from run(action, min(cfg.frame_skip, cfg.episode_frames - frames), "step", True)
    return Outcome(frames, decisions, start_frames, over)
