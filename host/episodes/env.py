"""Game instances: the ``GameEnv`` interface and its ALE backend.

An instance is one console running one game under the evaluation protocol of
Such et al. (2017) / Machado et al. (2018):

- frame skip ``k`` (default 4): one policy decision is held for ``k`` emulated frames and
  the rewards of those frames are summed;
- observation: :mod:`nc2600.hls_models.preprocessor` (grey, max of the last two frames of the skip,
  fixed-point 84 x 84 resize, stack of 4, oldest first);
- episode start: the console state right after ALE's ``reset_game`` is captured once
  (``cloneState``) and restored for every episode, so an episode's outcome depends only on
  its episode seed and the actions, never on which instance ran it or what ran before;
  then ``n`` NOOP frames with ``n`` uniform in 1..30 drawn from the episode seed
  (no-op starts), then one FIRE step when FIRE is in the minimal action set
  (the "FIRE at reset" rule of OpenAI baselines' FireResetEnv); the stack is filled with
  the first observation;
- sticky actions (Machado et al. 2018): with probability ``p`` per emulated frame the
  previous frame's action is repeated, drawn from the episode seed's generator (ALE's own
  sticky-action RNG is disabled, ``repeat_action_probability = 0``, so that the draws do not
  depend on the instance's history); the previous action is NOOP after a reset (ALE 0.12);
- episode end: ALE ``game_over()`` or the per-episode frame cap (all emulated frames count,
  no-op starts included).
Rewards are ALE's raw game score changes (unclipped).
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from nc2600.hls_models import preprocessor
from nc2600.hls_models.frame_skip import NOOP_MAX, EpisodeConfig, Frame, action_table, episode_schedule
from nc2600.hls_models.platform import FRAME_SKIP

__all__ = ["NOOP_MAX", "GameEnv", "ProtocolEnv", "AleEnv"]


class GameEnv(Protocol):
    """What the launcher needs from one console (ALE or RTL backend)."""

    n_actions: int

    def reset(self, episode_seed: int, stack: np.ndarray) -> int:
        """Start an episode; write the first ``(4, 84, 84)`` uint8 observation into ``stack``.
        Returns the frames emulated by the reset (no-op starts and FIRE step)."""

    def step(self, action: int) -> tuple[float, int, bool]:
        """Hold minimal-set action index ``action`` for one frame-skip period.
        Returns ``(reward, frames emulated, episode over)``; the max-pooled grey frame of the
        last two frames is left in :attr:`pooled` (``(H, 160)`` uint8)."""


class ProtocolEnv:
    """The evaluation protocol of the module doc, over any console (a backend subclasses it).

    A backend provides the console: :meth:`_start_episode` (put the console in the episode
    start state), :meth:`_emulate` (one frame with one action; returns that frame's reward),
    :meth:`_game_over` and :meth:`_grey_into` (the current frame's grey image). The frame
    schedule (no-op starts, FIRE at reset, frame skip, the cap, game over) is
    :func:`nc2600.hls_models.frame_skip.episode_schedule`, the same statement the fabric's
    frame-skip controller RTL is tested against; sticky actions and the grey double buffer
    are here, so that every backend follows exactly the same protocol.

    Args:
        actions: the minimal action set in the form :meth:`_emulate` takes, in ALE's order.
        action_ids: the same actions as ALE action ids (FIRE is id 1, NOOP id 0).
        screen_shape: ``(H, W)`` of the grey image.
        frame_skip, sticky, episode_frames: see the module doc.
        noop: NOOP (ALE id 0) in the form :meth:`_emulate` takes: the no-op starts' action and the
            previous action after a reset, also where the minimal set does not list it
            (:func:`nc2600.hls_models.frame_skip.action_table`).
    Raises:
        ValueError: ``action_ids`` not distinct ALE action ids, or not as many as ``actions``.
    """

    def __init__(self, actions: list, action_ids: list[int], screen_shape: tuple[int, int],
                 frame_skip: int, sticky: float, episode_frames: int, noop=0):
        if len(actions) != len(action_ids):
            raise ValueError(f"{len(actions)} actions but {len(action_ids)} action ids")
        table, self._noop_index, self.fire_index = action_table(action_ids)
        # the action table (frame_skip.action_table): the minimal set, then NOOP where it lacks it
        self._actions = list(actions) + ([noop] if len(table) > len(actions) else [])
        self._noop = self._actions[self._noop_index]
        self.n_actions = len(actions)
        self.frame_skip, self.sticky, self.episode_frames = int(frame_skip), float(sticky), int(episode_frames)
        self._grey = np.zeros((2, *screen_shape), np.uint8)
        self._cur = 0
        self.pooled = np.zeros(screen_shape, np.uint8)
        self._rng = np.random.default_rng(0)
        self._prev_action = self._noop
        self.frames = 0          # emulated frames in the current episode
        self.over = True         # the episode has ended (game over or the cap)
        self.game_over = False   # the episode ended by game over (not by the cap)
        #: no-op starts draw 1..noop_max NOOP frames (1..NOOP_MAX; the protocol's NOOP_MAX)
        self.noop_max = NOOP_MAX

    # -- what a backend provides --------------------------------------------------------
    def _start_episode(self) -> None:
        raise NotImplementedError

    def _emulate(self, action) -> float:
        raise NotImplementedError

    def _game_over(self) -> bool:
        raise NotImplementedError

    def _grey_into(self, out: np.ndarray) -> None:
        raise NotImplementedError

    # -- the protocol (nc2600.hls_models.frame_skip.episode_schedule) --------------------------
    def _frame(self, action) -> float:
        if self.sticky > 0.0 and self._rng.random() < self.sticky:
            action = self._prev_action
        self._prev_action = action
        self.frames += 1
        return self._emulate(action)

    def _advance(self, send) -> float:
        """Run the schedule from ``send`` to its next decision or its end; returns the reward.

        Grey images: the schedule's ``capture`` frames (the last two of a run, or a frame
        that ends the game) go into a double buffer whose maximum is left in
        :attr:`pooled`. When the game ends before the last two frames of a run, the earlier
        of the pair is the last frame captured before (that final observation is never
        given to the policy).
        """
        reward = 0.0
        try:
            item = self._schedule.send(send)
            while isinstance(item, Frame):
                reward += self._frame(self._actions[item.action])
                over = self._game_over()
                if item.capture or over:
                    self._cur ^= 1
                    self._grey_into(self._grey[self._cur])
                item = self._schedule.send(over)
        except StopIteration:
            pass
        np.maximum(self._grey[0], self._grey[1], out=self.pooled)
        return reward

    def reset(self, episode_seed: int, stack: np.ndarray | None = None) -> int:
        """See :class:`GameEnv`. ``stack`` may be None when the caller resizes in batch
        (then :attr:`pooled` holds the frame to resize)."""
        self._start_episode()
        self._rng = np.random.default_rng([int(episode_seed), 0x5EED])
        noops = int(self._rng.integers(1, self.noop_max + 1))   # NOOP_MAX: = frame_skip.noop_frames(seed)
        self._prev_action = self._noop
        self.frames = 0
        self._grey[:] = 0
        self._schedule = episode_schedule(EpisodeConfig(
            noops=noops, noop_index=self._noop_index, fire_index=self.fire_index,
            frame_skip=self.frame_skip, episode_frames=self.episode_frames))
        self._advance(None)
        self.game_over = self._game_over()
        self.over = self.game_over or self.frames >= self.episode_frames
        if stack is not None:
            stack[:] = preprocessor.resize(self.pooled)
        return self.frames

    def step(self, action: int, stack: np.ndarray | None = None) -> tuple[float, int, bool]:
        """See :class:`GameEnv`; with ``stack`` given the new frame is pushed onto it."""
        if self.over:
            raise RuntimeError("step() after the end of the episode (reset first)")
        if not 0 <= int(action) < self.n_actions:
            raise ValueError(f"action must be a minimal-set index 0..{self.n_actions - 1}, got {action}")
        before = self.frames
        reward = self._advance(int(action))
        self.game_over = self._game_over()
        self.over = self.game_over or self.frames >= self.episode_frames
        if stack is not None:
            preprocessor.push_frame(stack, preprocessor.resize(self.pooled))
        return reward, self.frames - before, self.over


class AleEnv(ProtocolEnv):
    """One ALE 0.12 console under the protocol above.

    The episode start state is captured once after ``loadROM`` + ``reset_game``
    (``cloneState``) and restored for every episode.

    Args:
        rom_path: ROM file (already checked by :func:`nc2600.host.games.resolve_rom`).
        frame_skip: emulated frames per decision (>= 1).
        sticky: probability of repeating the previous frame's action, per frame.
        episode_frames: cap on emulated frames per episode.
    """

    def __init__(self, rom_path, frame_skip: int = FRAME_SKIP, sticky: float = 0.0, episode_frames: int = 20_000):
        import ale_py

        from nc2600.host.episodes.ale_oracle import open_ale
        self.ale = ale = open_ale(rom_path, reset=True)
        self._start = ale.cloneState()
        actions = list(ale.getMinimalActionSet())
        super().__init__(actions, [int(a.value) for a in actions], tuple(ale.getScreenDims()),
                         frame_skip, sticky, episode_frames, noop=ale_py.Action.NOOP)

    def _start_episode(self) -> None:
        self.ale.restoreState(self._start)

    def _emulate(self, action) -> float:
        return self.ale.act(action)

    def _game_over(self) -> bool:
        return self.ale.game_over()

    def _grey_into(self, out: np.ndarray) -> None:
        self.ale.getScreenGrayscale(out)

    def rgb(self) -> np.ndarray:
        """Current screen as ``(H, 160, 3)`` uint8 RGB (for videos)."""
        return self.ale.getScreenRGB()
