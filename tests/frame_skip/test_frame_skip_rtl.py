"""hw/frame_skip.py (Amaranth simulator) against nc2600.hls_models.frame_skip.episode_schedule: the same
frames (action, push, zero_prev), decisions, frame count and return, with a scripted console
(a frame = a few clocks, with its at_boundary predicted a clock ahead as a console does), rules (game over at a given
frame) and engine (chosen actions)."""
import numpy as np
import pytest
from amaranth.sim import Simulator

from nc2600.hls_models.frame_skip import EpisodeConfig, Frame, episode_schedule
from nc2600.hw.frame_skip import FrameSkip, State


def _simulate(dut, bench):
    """Run ``bench`` (an async testbench) against ``dut`` on a 1 MHz sync clock until it returns."""
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


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
        clocks, n, k, pending, reward_set = 0, 0, 0, [], False
        for _ in range(20000):
            ctx.set(dut.drive.frame.at_boundary, clocks >= frame_clocks)
            ctx.set(dut.rules_ack, 0)
            ctx.set(dut.engine.done, 0)
            ctx.set(dut.chosen.valid, 0)
            st = ctx.get(dut.state)
            # the reward is set a clock before the acknowledgement and held through it (the
            # controller's contract); any other clock shows a value no frame has, which would
            # reach the return if the controller sampled the reward at another clock
            if st == State.RULES and reward_set:
                n += 1
                ctx.set(dut.rules_ack, 1)
                ctx.set(dut.terminal, over_at is not None and n >= over_at)
                reward_set = False
            elif st == State.RULES:
                ctx.set(dut.reward, rewards[n])
                reward_set = True
            else:
                ctx.set(dut.reward, 1000)
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
            # the console's prediction for the next clock if it runs (FrameSignature's contract)
            sf = ctx.get(dut.drive.frame.start_frame)
            ctx.set(dut.drive.frame.at_boundary_next, (1 if sf else clocks + 1) >= frame_clocks)
            if sf:
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

    _simulate(dut, bench)
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


def _manual_frames(boundary, jam, runs, insn_every=2):
    """Manual frames on a scripted console whose clock at position p of the frame (0 = the frame's
    start, counting on across a partial frame's continuation) starts an instruction when p is a
    multiple of ``insn_every``, is at the frame boundary from p = ``boundary`` and jammed from
    p = ``jam`` (None: never), with the *_next flags predicted as FrameSignature says. Returns
    per manual command (frame_status, clocks the console ran, start_frame pulses)."""
    dut = FrameSkip(18)
    out = []

    def flags(p):
        return (p % insn_every == 0, boundary is not None and p >= boundary, jam is not None and p >= jam)

    async def bench(ctx):
        p = 0
        for _ in range(runs):
            ctx.set(dut.manual, 1)
            await ctx.tick()
            ctx.set(dut.manual, 0)
            ran, starts = 0, 0
            for _ in range(200000):
                sf = ctx.get(dut.drive.frame.start_frame)
                if sf:
                    p, starts = 0, starts + 1
                ins, ab, jm = flags(p)
                nins, nab, njm = flags(p + 1)
                ctx.set(dut.drive.frame.insn_start, ins)
                ctx.set(dut.drive.frame.at_boundary, ins and ab)
                ctx.set(dut.drive.frame.jammed, jm)
                ctx.set(dut.drive.frame.insn_start_next, nins)
                ctx.set(dut.drive.frame.at_boundary_next, nins and nab)
                ctx.set(dut.drive.frame.jammed_next, njm)
                if ctx.get(dut.drive.ce):
                    ran, p = ran + 1, p + 1
                if ctx.get(dut.state) == State.IDLE and ctx.get(dut.done):
                    break
                await ctx.tick()
            out.append((ctx.get(dut.frame_status), ran, starts))
            await ctx.tick()

    _simulate(dut, bench)
    return out


def test_instruction_limit_partial_frame_and_its_continuation():
    # ALE's 25,000-instruction limit (hand count): instructions start at positions 0, 2, 4, ...;
    # the 25,001st would start at position 50,000, where the console stops without running that
    # clock (status 1, partial). The continuation (no new frame start) runs from position 50,000:
    # the boundary at 50,010 (an instruction start) ends it after 10 more clocks (status 0).
    assert _manual_frames(boundary=50010, jam=None, runs=2) == [(1, 50000, 1), (0, 10, 0)]
    # an instruction start at every clock (no real console: the count's next value matters)
    assert _manual_frames(boundary=25005, jam=None, runs=2, insn_every=1) == [(1, 25000, 1), (0, 5, 0)]


def test_jam_stops_the_frame_at_the_jammed_clock():
    # jammed from position 7: the console runs positions 0..6 and stops at 7 (status 2)
    assert _manual_frames(boundary=None, jam=7, runs=1) == [(2, 7, 1)]
    # a boundary at 4 (an instruction start) ends the frame first (status 0)
    assert _manual_frames(boundary=4, jam=7, runs=1) == [(0, 4, 1)]


@pytest.mark.parametrize("direction", [1, 2, 0])
def test_paddle_charge_time_is_set_before_the_console_runs(direction):
    """With the paddle on, each frame's action moves paddle 0 by +PADDLE_DELTA ohms (direction 1),
    -PADDLE_DELTA (2) or not at all (0), clamped to PADDLE_LO..PADDLE_HI;
    at every clock the console runs (``drive.ce``), the paddle's charge time it sees must be
    :func:`nc2600.hls_models.frame_skip.paddle_needed` of that frame's resistance (ALE sets the
    resistance before the frame's first instruction), and the resistances step as the model's
    clamp says. Oracle: the model's integer formula and clamp worked here."""
    from nc2600.hls_models.frame_skip import PADDLE_DELTA, paddle_needed
    dut = FrameSkip(18)
    lo, hi, start = 100_000, 200_000, 150_000
    seen = []

    async def bench(ctx):
        ctx.set(dut.noops, 6)
        ctx.set(dut.frame_skip, 4)
        ctx.set(dut.episode_frames, 6)
        ctx.set(dut.swchb, 0x3F)
        for i in range(18):
            ctx.set(dut.actions[i].paddle, i % 3)      # the no-op run's action is entry `direction`
        ctx.set(dut.noop_index, direction)
        ctx.set(dut.paddle_en, 1)
        ctx.set(dut.paddle_lo, lo)
        ctx.set(dut.paddle_hi, hi)
        ctx.set(dut.paddle_start, start)
        ctx.set(dut.pre.obs_valid, 1)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        clocks = 0
        for _ in range(2000):
            st = ctx.get(dut.state)
            ctx.set(dut.rules_ack, st == State.RULES)
            ctx.set(dut.terminal, 0)
            ctx.set(dut.drive.frame.at_boundary, clocks >= 5)
            sf = ctx.get(dut.drive.frame.start_frame)
            ctx.set(dut.drive.frame.at_boundary_next, (1 if sf else clocks + 1) >= 5)
            if ctx.get(dut.drive.ce):
                r = ctx.get(dut.paddle_r)
                seen.append((r, ctx.get(dut.drive.controllers.paddles.needed[0])))
                clocks = 1 if sf else clocks + 1
            if st == State.IDLE and ctx.get(dut.done):
                return
            await ctx.tick()

    _simulate(dut, bench)
    step = {1: PADDLE_DELTA, 2: -PADDLE_DELTA, 0: 0}[direction]
    expect_r = [min(hi, max(lo, start + step * (k + 1))) for k in range(6)]   # e.g. 173,000, 196,000, 200,000...
    assert sorted({r for r, _ in seen}) == sorted(set(expect_r))
    assert len(seen) == 6 * 5
    assert all(needed == paddle_needed(r) for r, needed in seen)


def test_count_clocks_across_the_low_half_wrap():
    """``count_clocks`` (the cycle counters' two 16-bit halves with a registered carry flag)
    against a plain Python count at every clock, over a clear and past 0xFFFF -> 0x10000 twice,
    with clocks that do not count in between."""
    from amaranth import Module, Signal
    from nc2600.hw.counters import count_clocks
    m = Module()
    value, inc, clear = Signal(32), Signal(), Signal()
    count_clocks(m, value, inc, clear, "t")
    rng = np.random.default_rng(7)
    plan = [(1, 0)] * 30 + [(0, 1)] + [(int(x), 0) for x in rng.random(139_000) < 0.97]
    bad = []

    async def bench(ctx):
        expect = 0
        for step, (i, c) in enumerate(plan):
            ctx.set(inc, i)
            ctx.set(clear, c)
            await ctx.tick()
            expect = 0 if c else (expect + i) & 0xFFFFFFFF
            if ctx.get(value) != expect:
                bad.append((step, ctx.get(value), expect))
                return
        bad.append(("end", expect))

    _simulate(m, bench)
    assert bad[0][0] == "end" and bad[0][1] > 2 * 65_536, bad


def test_paddle_charge_time_split_is_exact_over_the_whole_range():
    """The controller forms (r * PADDLE_MULT) >> PADDLE_SHIFT from two registered partial products,
    (r * M_HI + ((r * M_LO) >> 17)) >> (PADDLE_SHIFT - 17) with PADDLE_MULT = M_HI * 2**17 + M_LO;
    equal to :func:`nc2600.hls_models.frame_skip.paddle_needed` for every resistance 0..PADDLE_R_MAX."""
    from nc2600.hls_models.frame_skip import PADDLE_MULT, PADDLE_R_MAX, PADDLE_SHIFT, paddle_needed
    r = np.arange(PADDLE_R_MAX + 1, dtype=np.int64)
    m_lo, m_hi = PADDLE_MULT & ((1 << 17) - 1), PADDLE_MULT >> 17
    split = (r * m_hi + ((r * m_lo) >> 17)) >> (PADDLE_SHIFT - 17)
    ref = np.array([paddle_needed(int(x)) for x in r], dtype=np.int64)
    assert np.array_equal(split, ref)
