"""The RTL backend of the launcher's ``GameEnv`` interface (``nc2600 run --backend rtl``).

An :class:`RtlConsoleEnv` plays one game on the Verilated console (:class:`nc2600.host.drivers.rtl_console.RtlConsole`)
under exactly the protocol of :class:`nc2600.host.episodes.env.AleEnv` (frame skip, no-op starts,
FIRE at reset, sticky actions from the episode seed, episode cap, max-pooled grey frames):

- episode start: for the first episode the console is powered on and taken through ALE's load
  and reset sequence (``power_on``), then ``reset_game`` once more, which is the state
  ``AleEnv`` captures after ``loadROM`` + ``reset_game`` and restores for every episode;
  that state is saved then (the harness's Verilator snapshot with the console object's own
  state, :meth:`nc2600.host.drivers.rtl_console.RtlConsole.save_state`) and restored for every later episode,
  as ``AleEnv`` does, instead of replaying the sequence (about 270 frames of RTL time:
  ``reset_frames`` counts the frames the replay ran, once per instance);
- reward, game over and lives come from the RIOT (and SuperChip) RAM after every frame through
  the game rules table (:mod:`nc2600.hls_models.game_rules`), as a fabric node would compute them,
  not from ALE;
- grey: palette index -> grey through ALE's lookup table (:mod:`nc2600.hls_models.palette`).

When the console agrees with ALE bit for bit on a game, an episode gives the same return,
frame count and observations on both backends (checked by ``tests/host/test_rtl_console_env.py``
on games that ``nc2600 lockstep`` passes).
"""
from __future__ import annotations

import numpy as np

from nc2600.hls_models.platform import FRAME_SKIP
from nc2600.host.episodes.env import ProtocolEnv


class RtlConsoleEnv(ProtocolEnv):
    """One Verilated console under the launcher protocol (see module doc).

    Args:
        rom_path: ROM file of one of ALE's games (checked by md5).
        frame_skip, sticky, episode_frames: as :class:`nc2600.host.episodes.env.AleEnv`.
    Raises:
        UserError: the ROM is not an ALE game, or its mapper is not implemented in RTL.
    """

    def __init__(self, rom_path, frame_skip: int = FRAME_SKIP, sticky: float = 0.0, episode_frames: int = 20_000):
        from nc2600.hls_models.game_rules import load_rules
        from nc2600.host.games import game_info, resolve_rom
        self.game, self.rom_path = resolve_rom(rom=rom_path)
        info = game_info(self.game, self.rom_path)
        self.rule = load_rules()[self.game]
        self.fmt = info.display
        ids = list(info.minimal_actions)
        super().__init__(ids, ids, (info.screen_height, info.screen_width), frame_skip, sticky, episode_frames)
        self.console = None
        self._start = None
        self.reset_frames = 0       #: RTL frames run by the power-on/reset replay (first episode only)
        self._rules = None
        self._terminal = False
        self.lives = 0

    def _xram(self):
        return self.console.cart_ram() if self.rule.uses_xram else None

    def _start_episode(self) -> None:
        from nc2600.hls_models.game_rules import RuleState
        from nc2600.host.drivers.rtl_console import RtlConsole
        if self._start is None:
            self.console = RtlConsole(self.game, self.rom_path)
            self.console.power_on()        # ALE loadROM (includes one reset_game)
            self.console.reset_game()      # AleEnv's own reset_game before its snapshot
            self.reset_frames = self.console.frames_run
            self._start = self.console.save_state()
        else:
            self.console.restore_state(self._start)
        self._rules = RuleState(self.rule)
        _, terminal, self.lives = self._rules.reset(self.console.ram(), self._xram())
        self._terminal = bool(terminal)

    def _emulate(self, action) -> float:
        self.console.act(action)
        reward, terminal, self.lives = self._rules.step(self.console.ram(), self._xram())
        self._terminal = bool(terminal)
        return float(reward)

    def _game_over(self) -> bool:
        return self._terminal

    def _grey_into(self, out: np.ndarray) -> None:
        from nc2600.hls_models.palette import to_grey
        out[:] = to_grey(self.console.screen, self.fmt)
