"""The preprocessor's stack in the array engine's word layout (``Preprocessor(stack_rows=R)``),
in Amaranth's simulator: after three frames (the first pushed with a zeroed previous frame, the
second not pushed, the third pushed) every word read through the port equals
:func:`nc2600.hls_models.policy_array.obs_words` of the model's stack (oracle: :mod:`nc2600.hls_models.preprocessor`,
``observe`` and the stack-fill rule: frames not yet written read as the oldest written one).

The frames are 84 rows of random palette indices (the smallest screen the block takes, so that the
simulation stays short); the stream carries only the visible pixels, a ``line_end`` with each
line's last pixel and a ``frame_end`` beat after each frame.
"""
import numpy as np
import pytest
from amaranth.sim import Simulator

from nc2600.hls_models import preprocessor as pp
from nc2600.hls_models.palette import to_grey
from nc2600.hls_models.policy_array import obs_words
from nc2600.hw.preprocessor import Preprocessor, latency_cycles, word_stack_tiling

HEIGHT = 84


def _beats(frame: np.ndarray, pixels_per_cycle: int):
    """The visible beats of one frame: ``(pixels, visible mask, line_end)`` per beat."""
    for row in frame:
        for x in range(0, 160, pixels_per_cycle):
            px = [int(v) for v in row[x:x + pixels_per_cycle]]
            yield px, (1 << len(px)) - 1, x + pixels_per_cycle >= 160


def _run(rows: int, pixels_per_cycle: int, frames: np.ndarray, pushes) -> np.ndarray:
    dut = Preprocessor(HEIGHT, "NTSC", pixels_per_cycle, stack_rows=rows)
    words = np.zeros((4 * 84 * 84 // rows, rows), np.uint8)

    async def bench(ctx):
        s = dut.stream
        ctx.set(dut.ctl.clear, 1)
        await ctx.tick()
        ctx.set(dut.ctl.clear, 0)
        for f, (frame, push) in enumerate(zip(frames, pushes)):
            first = True
            for px, vis, end in _beats(frame, pixels_per_cycle):
                if pixels_per_cycle == 1:
                    ctx.set(s.pixel, px[0])
                else:
                    ctx.set(s.pixel, px + [0] * (pixels_per_cycle - len(px)))
                ctx.set(s.visible, vis)
                ctx.set(s.line_end, end)
                if first:
                    ctx.set(dut.ctl.push, push)
                    ctx.set(dut.ctl.zero_prev, f == 0)
                    first = False
                await ctx.tick()
            ctx.set(s.visible, 0)
            ctx.set(s.line_end, 0)
            for _ in range(latency_cycles(pixels_per_cycle) + 2):
                await ctx.tick()
            ctx.set(s.frame_end, 1)
            await ctx.tick()
            ctx.set(s.frame_end, 0)
        assert ctx.get(dut.ctl.obs_valid) and not ctx.get(dut.sync_error)
        for a in range(words.shape[0]):
            ctx.set(dut.rd.addr, a)
            await ctx.tick()
            v = ctx.get(dut.rd.data)
            words[a] = [(v >> (8 * k)) & 0xFF for k in range(rows)]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return words


@pytest.mark.parametrize("pixels_per_cycle,rows", [
    (3, 16),                                        # the instance's 16 x 16 engine, three pixels per cycle
    pytest.param(1, 16, marks=pytest.mark.slow),    # one pixel per cycle (the instance tests run it too)
    pytest.param(3, 32, marks=pytest.mark.slow),    # two frame rows per word (R_h = 2)
])
def test_word_stack_equals_obs_words_of_the_model(pixels_per_cycle, rows):
    rng = np.random.default_rng(11 + pixels_per_cycle)
    frames = (rng.integers(0, 128, size=(3, HEIGHT, 160)) * 2).astype(np.uint8)
    grey = to_grey(frames)
    obs0 = pp.observe(np.zeros_like(grey[0]), grey[0])
    obs2 = pp.observe(grey[1], grey[2])
    stack = np.stack([obs0, obs0, obs0, obs2])      # two frames written: the older fills the rest
    words = _run(rows, pixels_per_cycle, frames, (1, 0, 1))
    assert np.array_equal(words, obs_words(stack, rows))


def test_word_stack_tiling_and_refusals():
    """conv1's tiling (nc2600.hls_models.policy_array.conv_tiling): 16 rows are 4 columns of 4 frames,
    32 rows two frame rows of them; 4 rows one column, which three pixels per cycle refuse."""
    assert word_stack_tiling(16) == (1, 4) and word_stack_tiling(32, 3) == (2, 4) and word_stack_tiling(4) == (1, 1)
    with pytest.raises(ValueError, match="rows >= 8"):
        word_stack_tiling(4, 3)
    with pytest.raises(ValueError, match="rows must be one of"):
        Preprocessor(210, "NTSC", 1, stack_rows=12)
