"""hw/frame_skip.py (Amaranth simulator) against hls_models.frame_skip.episode_schedule: the same
frames (action, push, zero_prev), decisions, frame count and return, with a scripted console
(a frame = a few clocks), rules (game over at a given frame) and engine (chosen actions)."""
import numpy as np
import pytest
from amaranth.sim import Simulator

from hls_models.frame_skip import EpisodeConfig, Frame, episode_schedule
from hw.frame_skip import FrameSkip, State


def _model(cfg, over_at, choices, rewards):
    gen, frames, out, send, k, ret = episode_schedule(cfg), 0, [], None, 0, 0
    try:
        while True:
            item = gen.send(send)
            if isinstance(item, Frame):
                frames += 1
                out.append((item.action, item.push, item.zero_prev))
                if item.phase == "step":
                    ret += rewards[frames - 1]
                send = over_at is not None and frames >= over_at
            else:
                send, k = choices[k], k + 1
    except StopIteration as stop:
        return out, stop.value, ret


def _rtl(cfg, over_at, choices, rewards, frame_clocks=5):
    dut = FrameSkip(18)
    got = {"frames": [], "res": None}

    async def bench(ctx):
        ctx.set(dut.noops, cfg.noops)
        ctx.set(dut.noop_index, cfg.noop_index)
        ctx.set(dut.fire_en, cfg.fire_index is not None)
        ctx.set(dut.fire_index, cfg.fire_index or 0)
        ctx.set(dut.frame_skip, cfg.frame_skip)
        ctx.set(dut.episode_frames, cfg.episode_frames)
        ctx.set(dut.swchb, 0x3F)
        for i in range(18):
            ctx.set(dut.actions[i].swcha, i)          # the action's index shows on SWCHA
        ctx.set(dut.pre.obs_valid, 1)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        clocks, n, k, pending = 0, 0, 0, []
        for _ in range(20000):
            ctx.set(dut.drive.frame.at_boundary, clocks >= frame_clocks)
            ctx.set(dut.rules_ack, 0)
            ctx.set(dut.engine.done, 0)
            ctx.set(dut.chosen.valid, 0)
            st = ctx.get(dut.state)
            if st == State.RULES:
                n += 1
                ctx.set(dut.rules_ack, 1)
                ctx.set(dut.terminal, over_at is not None and n >= over_at)
                ctx.set(dut.reward, rewards[n - 1])
            if ctx.get(dut.engine.start):
                pending = [3, choices[k]]
                k += 1
            if pending:
                pending[0] -= 1
                if pending[0] == 1:
                    ctx.set(dut.engine.done, 1)
                if pending[0] == 0:
                    ctx.set(dut.chosen.valid, 1)
                    ctx.set(dut.chosen.index, pending[1])
                    pending = []
            if ctx.get(dut.drive.frame.start_frame):
                got["frames"].append((ctx.get(dut.drive.controllers.swcha), bool(ctx.get(dut.pre.push)),
                                      bool(ctx.get(dut.pre.zero_prev))))
                clocks = 1
            elif ctx.get(dut.drive.ce):
                clocks += 1
            if st == State.IDLE and ctx.get(dut.done):
                got["res"] = (ctx.get(dut.frames), ctx.get(dut.decisions), bool(ctx.get(dut.game_over)),
                              ctx.get(dut.episode_return))
                return
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return got


@pytest.mark.parametrize("cfg,over_at", [
    (EpisodeConfig(noops=3, frame_skip=4, episode_frames=23), None),
    (EpisodeConfig(noops=1, fire_index=1, frame_skip=4, episode_frames=40), 14),
    (EpisodeConfig(noops=2, fire_index=1, frame_skip=3, episode_frames=4), None),
    (EpisodeConfig(noops=5, fire_index=1, frame_skip=4, episode_frames=40), 3),
])
def test_controller_rtl_equals_model(cfg, over_at):
    rng = np.random.default_rng(cfg.noops)
    choices = [int(x) for x in rng.integers(0, 18, 64)]
    rewards = [int(x) for x in rng.integers(-2, 3, 200)]
    frames, outcome, ret = _model(cfg, over_at, choices, rewards)
    got = _rtl(cfg, over_at, choices, rewards)
    assert got["frames"] == frames
    assert got["res"] == (outcome.frames, outcome.decisions, outcome.game_over, ret)
