"""The RTL backend of the launcher's ``Instance`` interface (``nc2600 run --backend rtl``).

An :class:`RtlInstance` plays one game on the Verilated console (:class:`host.rtl_console.RtlConsole`)
under exactly the protocol of :class:`host.instance.AleInstance` (frame skip, no-op starts,
FIRE at reset, sticky actions from the episode seed, episode cap, max-pooled grey frames):

- episode start: the console is powered on and taken through ALE's load and reset sequence
  (``power_on``), then ``reset_game`` once more, which is the state ``AleInstance`` captures
  after ``loadROM`` + ``reset_game`` and restores for every episode (the RTL harness has no
  state snapshot yet, so the sequence is replayed per episode: about 270 frames of RTL time);
- reward, game over and lives come from the RIOT (and SuperChip) RAM after every frame through
  the game rules table (:mod:`hls_models.game_rules`), as a fabric node would compute them,
  not from ALE;
- grey: palette index -> grey through ALE's lookup table (:mod:`hls_models.palette`).

When the console agrees with ALE bit for bit on a game, an episode gives the same return,
frame count and observations on both backends (checked by ``tests/host/test_rtl_instance.py``
on games that ``nc2600 lockstep`` passes).
"""
from __future__ import annotations

import numpy as np

from hls_models import preprocess
from host.instance import NOOP_MAX


class RtlInstance:
    """One Verilated console under the launcher protocol (see module doc).

    Args:
        rom_path: ROM file of one of ALE's games (checked by md5).
        frame_skip, sticky, episode_frames: as :class:`host.instance.AleInstance`.
    Raises:
        UserError: the ROM is not an ALE game, or its mapper is not implemented in RTL.
    """

    def __init__(self, rom_path, frame_skip: int = 4, sticky: float = 0.0, episode_frames: int = 20_000):
        from hls_models.game_rules import load_rules
        from host.games import game_info, resolve_rom
        self.game, self.rom_path = resolve_rom(rom=rom_path)
        info = game_info(self.game, self.rom_path)
        self.rule = load_rules()[self.game]
        self._actions = list(info.minimal_actions)          # ALE action ids
        self.fire_index = self._actions.index(1) if 1 in self._actions else None
        self.n_actions = len(self._actions)
        self.fmt = info.display
        self.frame_skip, self.sticky, self.episode_frames = int(frame_skip), float(sticky), int(episode_frames)
        self._grey = np.zeros((2, info.screen_height, info.screen_width), np.uint8)
        self._cur = 0
        self.pooled = np.zeros((info.screen_height, info.screen_width), np.uint8)
        self._rng = np.random.default_rng(0)
        self._prev_action = 0
        self.frames = 0
        self.over = True
        self.lives = 0
        self.console = None

    def _frame(self, action: int) -> float:
        if self.sticky > 0.0 and self._rng.random() < self.sticky:
            action = self._prev_action
        self._prev_action = action
        self.frames += 1
        self.console.act(action)
        reward, terminal, self.lives = self._rules.step(self.console.ram(), self._xram())
        self._terminal = bool(terminal)
        return float(reward)

    def _xram(self):
        return self.console.cart_ram() if self.rule.uses_xram else None

    def _run(self, action: int, n: int) -> float:
        from hls_models.palette import to_grey
        reward = 0.0
        for i in range(n):
            reward += self._frame(action)
            if self._terminal or i >= n - 2:
                self._cur ^= 1
                self._grey[self._cur] = to_grey(self.console.screen, self.fmt)
            if self._terminal:
                break
        np.maximum(self._grey[0], self._grey[1], out=self.pooled)
        return reward

    def reset(self, episode_seed: int, stack: np.ndarray | None = None) -> int:
        """Start an episode (see :class:`host.instance.Instance`); returns its reset frames."""
        from hls_models.game_rules import RuleState
        from host.rtl_console import RtlConsole
        self.console = RtlConsole(self.game, self.rom_path)
        self.console.power_on()
        self.console.reset_game()
        self._rules = RuleState(self.rule)
        _, terminal, self.lives = self._rules.reset(self.console.ram(), self._xram())
        self._terminal = bool(terminal)
        self._rng = np.random.default_rng([int(episode_seed), 0x5EED])
        self._prev_action = 0
        self.frames = 0
        self._grey[:] = 0
        self._run(0, int(self._rng.integers(1, NOOP_MAX + 1)))
        if self.fire_index is not None and not self._terminal:
            self._run(1, self.frame_skip)
        self.over = self._terminal or self.frames >= self.episode_frames
        if stack is not None:
            stack[:] = preprocess.resize(self.pooled)
        return self.frames

    def step(self, action: int, stack: np.ndarray | None = None) -> tuple[float, int, bool]:
        """Hold minimal-set action index ``action`` for one frame-skip period."""
        before = self.frames
        n = min(self.frame_skip, self.episode_frames - self.frames)
        reward = self._run(self._actions[int(action)], max(n, 1))
        self.over = self._terminal or self.frames >= self.episode_frames
        if stack is not None:
            preprocess.push_frame(stack, preprocess.resize(self.pooled))
        return reward, self.frames - before, self.over
