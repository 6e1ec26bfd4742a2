"""Checking the game rules table against ALE frame by frame (the library behind
``nc2600 games verify``).

For each game, ALE (:func:`nc2600.host.episodes.ale_oracle.open_ale`: ``repeat_action_probability = 0``,
``frame_skip = 1``, ``random_seed`` the run's seed) plays random actions from the game's
minimal action set over several episodes (``reset_game`` at game over, and after
``max_episode_frames`` frames).  After every single frame the rule from
:mod:`nc2600.hls_models.game_rules` is evaluated on ALE's own RAM (``getRAM()``, plus the SuperChip
cartridge RAM for games that read it) and its reward, game over and lives are compared with
``act``'s return value, ``game_over()`` and ``lives()``.  After each reset the rule state is
rebuilt from the RAM left by ALE's reset sequence and game over and lives are compared there
too.
"""
from __future__ import annotations

import time

#: Games the CI sample checks (fast, and covering the rule kinds: BCD with byte order,
#: binary scores, wrap, latches, counters, cartridge RAM).
CI_SAMPLE = ("breakout", "pong", "asteroids", "qbert", "klax", "tennis")


def _xram_reader(ale):
    """128 SuperChip RAM bytes of ``ale`` (:func:`nc2600.host.episodes.ale_oracle.superchip_ram`).

    Raises:
        RuntimeError: the cartridge has no SuperChip RAM (a rule that reads it on another game).
    """
    from nc2600.host.episodes.ale_oracle import superchip_ram
    x = superchip_ram(ale)
    if x is None:
        raise RuntimeError("no SuperChip cartridge RAM in the ALE state")
    return x


def _rule_constants(rule) -> list[int]:
    """Byte values the rule compares against (constants 0..255 in its text), and their neighbours."""
    import ast
    vals = set()
    for src in (rule.step_source, rule.reward_source, rule.terminal_source, rule.lives_source):
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value <= 255:
                vals.update({node.value, (node.value - 1) & 0xFF, (node.value + 1) & 0xFF})
    return sorted(vals)


def verify_game(rule, frames: int, seed: int, max_episode_frames: int, poke: float = 0.0,
                mode: int | None = None, difficulty: int | None = None) -> dict:
    """Run ALE and the rule side by side for ``frames`` frames; return the counts.

    ``poke`` > 0 also writes, before that fraction of the frames, one RAM byte the rule
    watches (``setRAM``) with a value the rule compares against (or a random byte), so
    that rarely reached branches (game over of a chess game, score wrap) are exercised;
    ALE's settings and the rule still see the same RAM after each frame, so the
    comparison stays exact.  ``mode`` / ``difficulty`` select a game mode and difficulty
    switch setting (default: ALE's, the rule's ``default_mode`` and 0).

    Returns a dict with ``game, frames, episodes, game_overs, reward_mismatches,
    terminal_mismatches, lives_mismatches, first_mismatch`` (a short text or None),
    ``seconds``.
    """
    import numpy as np
    from ale_py import roms

    from nc2600.hls_models.game_rules import RuleState
    from nc2600.host.episodes.ale_oracle import open_ale

    ale = open_ale(roms.get_rom_path(rule.name), random_seed=seed, mode=mode, difficulty=difficulty)
    actions = ale.getMinimalActionSet()
    rng = np.random.default_rng(seed)
    read_x = _xram_reader if rule.uses_xram else (lambda _ale: None)

    state = RuleState(rule, mode)
    counts = {"reward": 0, "terminal": 0, "lives": 0}
    first = None

    def note(kind, frame, ours, ale_val):
        nonlocal first
        counts[kind] += 1
        if first is None:
            first = f"frame {frame}: {kind} ours={ours} ale={ale_val}"

    def start_episode(frame):
        ale.reset_game()
        _, term, lives = state.reset(ale.getRAM(), read_x(ale))
        if term != ale.game_over():
            note("terminal", frame, term, ale.game_over())
        if lives != ale.lives():
            note("lives", frame, lives, ale.lives())

    t0 = time.perf_counter()
    episodes, game_overs, ep_frames = 1, 0, 0
    start_episode(0)
    picks = rng.integers(0, len(actions), size=frames)
    poke_addrs = [a - 0x80 for a in rule.ram_addresses]
    poke_vals = _rule_constants(rule)
    for f in range(frames):
        if poke and poke_addrs and rng.random() < poke:
            addr = poke_addrs[rng.integers(len(poke_addrs))]
            value = poke_vals[rng.integers(len(poke_vals))] if rng.random() < 0.75 else int(rng.integers(256))
            ale.setRAM(addr, value)
        reward = ale.act(actions[picks[f]])
        ours_r, ours_t, ours_l = state.step(ale.getRAM(), read_x(ale))
        over = ale.game_over()
        if ours_r != reward:
            note("reward", f + 1, ours_r, reward)
        if ours_t != over:
            note("terminal", f + 1, ours_t, over)
        lives = ale.lives()
        if ours_l != lives:
            note("lives", f + 1, ours_l, lives)
        ep_frames += 1
        if over or (max_episode_frames and ep_frames >= max_episode_frames):
            game_overs += int(over)
            if f + 1 < frames:
                episodes += 1
                ep_frames = 0
                start_episode(f + 1)
    return {
        "game": rule.name, "mode": state.mode, "frames": frames, "episodes": episodes, "game_overs": game_overs,
        "reward_mismatches": counts["reward"], "terminal_mismatches": counts["terminal"],
        "lives_mismatches": counts["lives"], "first_mismatch": first,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def verify_job(job: tuple) -> dict:
    """One run of a sweep, ``job = (rule name, frames, seed, max_episode_frames, poke, mode,
    difficulty)``: its :func:`verify_game` result. Module-level for worker processes and Ray."""
    rule_name, frames, seed, max_ep, poke, mode, difficulty = job
    from nc2600.hls_models.game_rules import load_rules
    return verify_game(load_rules()[rule_name], frames, seed, max_ep, poke, mode, difficulty)


def verify_games(jobs, n_jobs: int = 1, cluster: str = "local", ray_address: str | None = None):
    """:func:`verify_job` for every job, yielded in the order given as each finishes
    (``n_jobs`` processes here, or one Ray task per job: :func:`nc2600.host.verify.sweep.sweep_imap`)."""
    from nc2600.host.verify.sweep import sweep_imap
    return sweep_imap(verify_job, jobs, n_jobs, cluster, ray_address)

