"""Streaming frame preprocessor: palette indices in, a ``4 x 84 x 84`` grey observation stack out.

Computes, bit for bit, :func:`nc2600.hls_models.preprocessor.observe` (max of the last two frames'
grey images, fixed-point area resize ``H x 160 -> 84 x 84`` with one rounding) and
:func:`nc2600.hls_models.preprocessor.push_frame` (stack of 4), with the grey levels of
:func:`nc2600.hls_models.palette.grey_lut` (ALE 0.12 ``getScreenGrayscale``).

Input stream (:data:`PixelStreamSignature`, one beat per colour clock, never stalled):
``pixel`` (8-bit palette index, bit 0 included), ``visible`` (the pixel is inside ALE's
screen window: rows ``YStart .. YStart+H-1``, colour clocks 68..227), ``line_end`` (strobe,
end of a scanline) and ``frame_end`` (strobe, ALE's end of frame). A frame is ``H`` lines of 160
visible pixels or fewer; ``frame_end`` restarts its counters, so a short or long frame cannot
misalign the next one.

Screens as ALE 0.12 has them: Stella's TIA draws frame ``n`` into one of two frame buffers and
swaps them at each frame's start, and ALE's screen is the buffer just drawn, so the rows (and
pixels of a row) that a short frame does not reach are those of frame ``n - 2``. The block keeps
the same two screen buffers of grey levels (frame ``n`` writes buffer ``n % 2``; ``parity``
swaps at every ``frame_end``, empty frames included) and reads the other buffer as the previous
frame. A partial frame (fewer than ``H`` lines, or none: a frame with no visible pixel is pushed
when ``push`` was high at any clock after the last ``frame_end``) that is pushed is completed after
its ``frame_end``: its missing pixels run through the same pipeline as flushed beats (one
pixel, or up to three to the line's end, per cycle) whose grey comes from the frame's own
buffer, until the frame is ``H`` lines; ``obs_valid`` rises after that (``H*160 - drawn`` cycles
later, a third of that with three pixels per cycle). A partial frame that is not pushed needs
nothing: its buffer already holds the rest. ``sync_error`` (sticky until ``clear``) records a
``line_end`` inside a visible line, a broken three-pixel beat, or a visible pixel or
``frame_end`` of the stream while a flush runs (its pixels are lost: a stream that does not wait
for the observation and whose next frame shows pixels before the flush ends; the instance's
console waits for it). ``clear`` ends a flush.

How it computes without a buffer of the current frame (see the fixed-point scheme in
:mod:`nc2600.hls_models.preprocessor`): with output row ``r`` covering ``[r*H, (r+1)*H)`` and input
row ``k`` covering ``[84k, 84k+84)`` (both scaled by 84), every input row touches at most two
output rows, and every input pixel at most two output columns (because ``H, 160 >= 84``).
Two counters per axis (the position of the current input row/pixel inside its first output
row/column) give the two integer overlap weights on the fly, with no weight tables, so the
same logic serves any screen height ``84 <= H <= 255``.

Pipeline, one pixel per cycle (stage: work):

- S0: count the pixel; read the grey LUT (256 x 8 ROM) and both screen buffers at the same
  position (``H*160 x 8`` memories);
- S1: write ``grey`` into this frame's screen buffer (a flushed pixel: ``grey`` is that buffer's
  value as read, nothing is written);
- S1b: ``g = max(grey, previous grey)`` (the other buffer's; ``grey`` alone in a ``zero_prev`` frame) and the
  products ``wxa*g`` and ``wxb*g`` with the two column weights, from the grey and previous grey
  registered as read (the block RAMs' read data and the max in different clocks);
- S2: horizontal accumulation; when an output column completes its sum ``hsum`` (< 2**16)
  is emitted and the accumulator restarts with ``wxb*g``; the column's vertical accumulator is
  read (84 x 24 memory);
- S3: products ``wya*hsum``, ``wyb*hsum`` with the two row weights;
- S4: ``acc + wya*hsum``; if the input row completes the output row, the total plus ``H*160/2``
  goes on, and ``wyb*hsum`` is written back as the next output row's start; else the sum is
  written back;
- S5: multiply by the reciprocal constant ``M`` (:func:`division_constants`);
- S6: shift right by ``S`` (exactly ``(acc + HW/2) // HW`` over the whole accumulator range,
  proven exhaustively by :func:`division_constants`), write the 8-bit result into the stack
  memory.

``obs_valid`` rises in cycle ``T + LATENCY_CYCLES`` when cycle ``T`` carries the last visible
pixel of a frame that was pushed (8 cycles, measured by ``tests/preprocessor``); it stays high
until the first visible pixel of the next pushed frame (the stack is being overwritten then)
or ``clear``. It does not wait for ``frame_end``.

Observation stack: ``push`` is sampled at a frame's first visible pixel; only pushed frames
(normally the last frame of each frame-skip period) enter the stack. The ``4 x 7056 x 8``
stack memory is a ring of four frame slots with a head pointer, so a push overwrites the
oldest slot and shifts nothing. After ``clear`` the stack is empty; logical frames not yet
written read as the oldest written frame, which is the launcher's "fill the stack with the
first observation" rule at an episode start (:meth:`nc2600.host.episodes.env.AleEnv.reset`). The
screen buffers are written on every frame, pushed or not.

Read port: ``rd_frame`` (0 = oldest .. 3 = newest) and ``rd_index`` (``row*84 + column``);
``rd_data`` holds the grey level in the next cycle. It may be read at any time; the inference
engine must finish reading a stack before the next pushed frame starts (one frame-skip period).

Three pixels per cycle (``Preprocessor(pixels_per_cycle=3)``, ``rtl/preprocessor_cc3.v``, for the
three-colour-clock console): one beat per CPU cycle (:data:`PixelStream3Signature`: colour clocks
0, 1, 2 of the cycle; 76 beats per scanline, the first visible beat carrying colour clock 68
alone). The beat's visible pixels must be contiguous (else ``sync_error``); any alignment is
taken. The same arithmetic, widened: three grey LUT reads; each screen buffer in three banks
(frame address ``3*row + bank``, so a beat's three pixels always fall into different banks);
each pixel's column and position in it from the beat's start position (``px + 84 j`` against
multiples of 160: constant compares, not a chain over the pixels); the horizontal accumulation
over the beat's pixels completes at most two output columns per beat (three pixels span
``3*84 = 252 < 2*160`` scaled units), consecutive ones, so one even and one odd. One more stage
than the one-pixel pipeline, S2a, forms the beat's sums from its products alone (the first
column's part, the second column's sum, the sum carried out), each a carry-save step and one
adder, so that S2b adds the sum carried in from the last beat with one adder (the loop). Then
stages S3-S6 run twice, one column lane for even and one for odd output columns, each with its
own vertical-accumulator bank (42 x 24 bit) and stack bank (``4 x 3528`` bytes, index
``(row*84 + column) / 2``). Latency ``LATENCY_CYCLES3`` = 9 beats after the beat with the last
visible pixel (:func:`latency_cycles`). The read port is unchanged (the index's low bit picks the
bank). Depth: 9 xc7 levels (``nc2600 synth --block preprocessor_cc3``).

Word stack (``Preprocessor(stack_rows=R)``, the array engine's :mod:`nc2600.hw.policy_array`): the same
four slots kept in the engine's ``R``-byte words (:func:`nc2600.hls_models.policy_array.obs_words`,
conv1's tiling ``(4, R_h, R_w)``, :func:`word_stack_tiling`): output pixel ``(r, c)`` of every
frame is in word ``(r // R_h) * (84 / R_w) + c // R_w`` at pixel lane
``p = (r % R_h) * R_w + c % R_w``, its four frames in byte lanes ``4p .. 4p + 3``, one per
physical slot. A pixel is written as one byte of its word (byte enables: lane ``4p + head``); the
row counter ``row_base`` holds the row's first word (and ``r % R_h`` above it) instead of
``r * 84``. The read port (:func:`nc2600.hw.interfaces.observation_word_signature`) takes a word
address and gives the word one cycle later with each pixel's four bytes put in logical order
(oldest first) by the slot of each logical frame (``head`` and the fill rule, as the byte
port's), a 4:1 byte multiplexer per lane after the block RAM. With three pixels per cycle the
even and odd columns' banks each hold half of every word (pixel lanes of their parity), both read
at the same address, so ``R_w >= 2`` (``R >= 8``). 28,224 bytes either way; in block RAM
``28224 / R`` words of ``8 R`` bits.

Memories (H = 210): two screen buffers of 33,600 B, stack 28,224 B, vertical accumulator
84 x 24 bit, grey LUT 256 B (:func:`bram36`). Multipliers: 7x8 (two), 7x16 (two), 24x23 (one).
Synthesis figures (``nc2600 synth --block preprocessor``) are on the results page.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from nc2600.hls_models.palette import grey_lut
from nc2600.hls_models.policy_array import COLS_CHOICES, layer_plan
from nc2600.hls_models.preprocessor import LATENCY_CYCLES, LATENCY_CYCLES3, OUT_SIZE, SCREEN_WIDTH, STACK
from nc2600.hw import reproducible
from nc2600.hw.interfaces import (OBS_BYTES, OBS_PIXELS, ObservationReadSignature, PixelStream3Signature,
                           PixelStreamSignature, PreprocessorControlSignature, observation_word_signature)

MIN_HEIGHT, MAX_HEIGHT = OUT_SIZE, 255
PIXELS_PER_CYCLE = (1, 3)              #: the stream widths the block takes (pixels per beat)


def latency_cycles(pixels_per_cycle: int = 1) -> int:
    """Cycles (beats) from the beat carrying a pushed frame's last visible pixel to ``obs_valid``:
    :data:`LATENCY_CYCLES` for one pixel per cycle, :data:`LATENCY_CYCLES3` for three (one more
    stage: the beat's sums before the horizontal accumulation). Measured by ``tests/preprocessor``.

    Raises:
        ValueError: ``pixels_per_cycle`` not in :data:`PIXELS_PER_CYCLE`.
    """
    pixel_stream_signature(pixels_per_cycle)
    return LATENCY_CYCLES if pixels_per_cycle == 1 else LATENCY_CYCLES3


def pixel_stream_signature(pixels_per_cycle: int = 1) -> wiring.Signature:
    """The console stream the preprocessor takes at ``pixels_per_cycle`` pixels per beat
    (1: :data:`PixelStreamSignature`, 3: :data:`PixelStream3Signature`).

    Raises:
        ValueError: ``pixels_per_cycle`` not in :data:`PIXELS_PER_CYCLE`.
    """
    if pixels_per_cycle not in PIXELS_PER_CYCLE:
        raise ValueError(f"pixels_per_cycle must be 1 or 3, not {pixels_per_cycle!r}")
    return PixelStreamSignature if pixels_per_cycle == 1 else PixelStream3Signature


@lru_cache(maxsize=None)
def division_constants(height: int) -> tuple[int, int]:
    """``(M, S)`` with ``(x * M) >> S == x // (height*160)`` for every ``x`` in ``0 .. 255*HW + HW//2``.

    That range holds every ``acc + HW//2`` of the resize (``acc <= 255*HW``), so the hardware's
    multiply-and-shift equals the model's ``(acc + HW//2) // HW``. ``S`` is the smallest shift
    for which ``M = ceil(2**S / HW)`` passes the exhaustive check (done here, ~10**7 values).
    """
    check_height(height)
    d = height * SCREEN_WIDTH
    xs = np.arange(0, 255 * d + d // 2 + 1, dtype=np.int64)
    q = xs // d
    for s in range(16, 48):
        mult = -(-(1 << s) // d)
        if np.array_equal((xs * mult) >> s, q):
            return mult, s
    raise AssertionError(f"no reciprocal found for {d}")  # pragma: no cover


def check_height(height: int) -> int:
    """Validate a screen height (rows) for the preprocessor; returns it."""
    if not isinstance(height, (int, np.integer)) or not MIN_HEIGHT <= height <= MAX_HEIGHT:
        raise ValueError(f"screen height must be an integer in {MIN_HEIGHT}..{MAX_HEIGHT}, got {height!r}")
    return int(height)


def word_stack_tiling(rows: int, pixels_per_cycle: int = 1) -> tuple[int, int]:
    """``(R_h, R_w)`` of the stack's word layout for an ``R = rows`` array engine: conv1's tiling
    (:func:`nc2600.hls_models.policy_array.conv_tiling`), the four frames in the lanes of a pixel
    (``R_c = 4``), then ``R_w`` columns and ``R_h`` rows of the frame per word.

    Raises:
        ValueError: ``rows`` is not an array engine's (:func:`nc2600.hls_models.policy_array.check_shape`),
            or with three pixels per cycle a word holds one column (``R_w = 1``, rows 4): the two
            column banks of that variant each take half of every word.
    """
    pixel_stream_signature(pixels_per_cycle)
    rc, rh, rw = layer_plan(rows, min(COLS_CHOICES))[0]["tiling"]
    if rc != STACK:
        raise ValueError(f"a stack word of {rows} bytes holds {rc} frames of a pixel, not {STACK}")
    if pixels_per_cycle == 3 and rw < 2:
        raise ValueError(f"three pixels per cycle need stack words of two or more columns (rows >= 8), "
                         f"not {rows} bytes of {rw} column")
    return rh, rw


def _stage(m, name, shape, value):
    """A pipeline register ``name`` of ``shape`` that takes ``value`` at every clock."""
    sig = Signal(shape, name=name)
    m.d.sync += sig.eq(value)
    return sig


class Preprocessor(wiring.Component):
    """Streaming preprocessor for one console (see module doc).

    Args:
        height: ALE screen height H in rows (210 default; 214, 220, 230, 250 for some games).
        fmt: ``"NTSC"`` or ``"PAL"``: which palette's grey LUT the ROM holds.
        pixels_per_cycle: 1 (one beat per colour clock, the one-colour-clock console) or 3
            (one beat per CPU cycle, the three-colour-clock console: see "Three pixels per
            cycle" in the module doc).
        stack_rows: None (the stack a byte per read, :data:`ObservationReadSignature`: the lane
            engine's) or an array engine's rows ``R`` (the stack in ``R``-byte words, read a word
            per cycle: see "Word stack" in the module doc).

    Raises:
        ValueError: bad ``height``, ``pixels_per_cycle`` or ``stack_rows`` (:func:`word_stack_tiling`).

    Ports:
        stream: In(:func:`pixel_stream_signature` ``(pixels_per_cycle)``), one beat per clock.
        ctl: In(:data:`PreprocessorControlSignature`), the controller's drive:
            ``push``, sampled at a frame's first visible pixel (for a frame with none, high at any
            clock since the last frame's end): the frame enters the stack;
            ``zero_prev``, sampled with ``push``: this frame's flicker max uses an all-zero
            previous frame (an episode's first frame: the launcher zeroes its double buffer);
            ``clear``: empty the stack, drop ``obs_valid`` and ``sync_error`` (between frames);
            ``obs_valid`` (out): the stack holds a complete observation (see module doc).
        sync_error: Out(1), sticky: the stream broke the H x 160 contract.
        rd: In(:data:`ObservationReadSignature`), or with ``stack_rows`` In(
            :func:`nc2600.hw.interfaces.observation_word_signature` ``(R)``): the inference engine's read port.
    """

    def __init__(self, height: int = 210, fmt: str = "NTSC", pixels_per_cycle: int = 1,
                 stack_rows: int | None = None):
        try:
            self.height = check_height(height)
            stream = pixel_stream_signature(pixels_per_cycle)
            self.stack_rows = stack_rows
            if stack_rows is not None:
                rh, rw = word_stack_tiling(stack_rows, pixels_per_cycle)
                wb = ((OUT_SIZE - 1) // rh * (OUT_SIZE // rw)).bit_length()
                self.word_tiling = SimpleNamespace(rh=rh, rw=rw, wb=wb, lg_rh=rh.bit_length() - 1,
                                                   lg_rw=rw.bit_length() - 1)
                rd = observation_word_signature(stack_rows)
            else:
                rd = ObservationReadSignature
        except ValueError:
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise
        self.pixels_per_cycle = pixels_per_cycle
        self.fmt = fmt
        self.lut = [int(v) for v in grey_lut(fmt)]
        self.mult, self.shift = division_constants(self.height)
        super().__init__({
            "stream": In(stream),
            "ctl": In(PreprocessorControlSignature),
            "sync_error": Out(1),
            "rd": In(rd),
        })

    def elaborate(self, platform):
        """The stream's position in the frame with its line-end bookkeeping, the stack's slots, their
        bookkeeping and the read port's slot are shared (:meth:`_positions`,
        :meth:`_line_bookkeeping`, :meth:`_stack_control`, :meth:`_read_slot`); between them the
        pixels' path of one pixel per beat (:meth:`_pixels_one`) or three (:meth:`_pixels_three`)."""
        m = Module()
        pos = self._positions(m)
        head = Signal(2)                 # physical slot of the oldest frame = next to write
        filled = Signal(range(STACK + 1))
        if self.pixels_per_cycle == 1:
            frame_done, read = self._pixels_one(m, pos, head)
        else:
            frame_done, read = self._pixels_three(m, pos, head)
        self._stack_control(m, pos, head, filled, frame_done)
        if self.stack_rows is None:
            read(self._read_slot(m, head, filled))
        else:
            read(self._word_slots(m, head, filled))
        return m

    def _positions(self, m) -> SimpleNamespace:
        """The stream's position in the frame (S0), one set for both variants: ``x`` the line's
        visible pixel (of the beat's first pixel), ``y`` the visible line (H = frame complete),
        ``px``/``c`` the position inside output column ``c`` (84*x - 160*c), ``py``/``row_base`` the
        position inside output row r (84*y - H*r) and r * 84; ``accept`` (driven by the variant: the
        beat has visible pixels of an incomplete frame), ``first`` (the frame's first pixel),
        ``this_push``/``this_zero`` (push and zero_prev sampled at the frame's first pixel), the row
        weights ``row_done``, ``wya``, ``wyb``."""
        H, W, N = self.height, SCREEN_WIDTH, OUT_SIZE
        x = Signal(range(W))            # visible pixel in the line
        y = Signal(range(H + 1))        # visible line in the frame (H = frame complete)
        px = Signal(range(W))           # 84*x - 160*c: position inside output column c
        c = Signal(range(N))
        py = Signal(range(H))           # 84*y - H*r: position inside output row r
        row_base = Signal(range(OBS_PIXELS))   # r * 84
        frame_push = Signal()           # push sampled at this frame's first pixel
        frame_zero = Signal()           # zero_prev sampled at this frame's first pixel
        accept = Signal()
        first = Signal()
        m.d.comb += first.eq((x == 0) & (y == 0))
        flushing = Signal()
        this_push = Signal()
        m.d.comb += this_push.eq(Mux(first & ~flushing, self.ctl.push, frame_push))
        this_zero = Signal()
        m.d.comb += this_zero.eq(Mux(first & ~flushing, self.ctl.zero_prev, frame_zero))
        # overlap weights of this row with its first and second output row
        row_done = Signal()             # this input row completes output row r
        wya, wyb = Signal(range(N + 1)), Signal(range(N + 1))
        m.d.comb += [row_done.eq(py + N >= H), wya.eq(Mux(row_done, H - py, N)),
                     wyb.eq(Mux(row_done, py + N - H, 0))]
        # the beats the pixels' path takes: the stream's, or while a short pushed frame's missing
        # pixels are flushed (``flushing``) beats of visible pixels that continue the frame's position
        # (their grey from the frame's own screen buffer, as written two frames before), with no
        # line or frame end; a flush beat has every pixel to the line's end, up to ``P``
        P = self.pixels_per_cycle
        src = SimpleNamespace(visible=Signal(P, name="src_visible"),
                              pixel=Signal.like(self.stream.pixel, name="src_pixel"),
                              line_end=Signal(name="src_line_end"), frame_end=Signal(name="src_frame_end"))
        with m.If(flushing):
            if P == 1:
                m.d.comb += src.visible.eq(1)
            else:
                m.d.comb += src.visible.eq(Mux(x + P <= W, (1 << P) - 1, Mux(x + 2 == W, 0b011, 0b001)))
        with m.Else():
            m.d.comb += [src.visible.eq(self.stream.visible), src.pixel.eq(self.stream.pixel),
                         src.line_end.eq(self.stream.line_end), src.frame_end.eq(self.stream.frame_end)]
        parity = Signal()               # the screen buffer of this frame (0, 1), the other one holds the last
        return SimpleNamespace(x=x, y=y, px=px, c=c, py=py, row_base=row_base, frame_push=frame_push,
                               frame_zero=frame_zero, accept=accept, first=first, this_push=this_push,
                               this_zero=this_zero, row_done=row_done, wya=wya, wyb=wyb, src=src,
                               flushing=flushing, parity=parity)

    def _line_bookkeeping(self, m, pos, line_done, on_accept, in_line, line_error, frame_resets) -> None:
        """The position's step for an accepted beat (``on_accept``: the variant's own sync
        statements first; at the line's end, ``line_done``, the next line and output row, else
        ``in_line()``, the variant's move along the line), ``sync_error`` on ``line_error``, and at
        the frame's end (after the flush of a pushed partial frame) the position's reset (with
        ``frame_resets``) and the screen buffers' swap."""
        H, N = self.height, OUT_SIZE
        s, x, y, px, c, py, row_base = self.stream, pos.x, pos.y, pos.px, pos.c, pos.py, pos.row_base
        with m.If(pos.accept):
            m.d.sync += on_accept
            with m.If(pos.first & ~pos.flushing):
                m.d.sync += [pos.frame_push.eq(self.ctl.push), pos.frame_zero.eq(self.ctl.zero_prev)]
            with m.If(line_done):
                m.d.sync += [x.eq(0), px.eq(0), c.eq(0), y.eq(y + 1)]
                with m.If(pos.row_done):
                    m.d.sync += [py.eq(py + N - H), self._next_row_base(row_base)]
                with m.Else():
                    m.d.sync += py.eq(py + N)
            with m.Else():
                in_line()
        with m.If(line_error):
            m.d.sync += self.sync_error.eq(1)
        # the frame's end (ALE 0.12 on Stella's two swapped screen buffers: a frame that ends short
        # leaves the rest of its buffer as drawn two frames before). A partial frame (some pixels,
        # fewer than H lines) that is pushed is completed first: its missing pixels are flushed
        # through the path from its own buffer (``flushing``) until the position reaches H lines.
        # Then (or at once for any other frame) the position restarts and the buffers swap
        partial, empty, ends = Signal(), Signal(), Signal()
        m.d.comb += [empty.eq((y == 0) & (x == 0)), partial.eq(~((y == H) | empty))]
        # a frame with no pixel takes push and zero_prev as driven at any clock since the last frame's end
        seen_push, seen_zero = Signal(), Signal()
        push_any, zero_any = seen_push | self.ctl.push, seen_zero | self.ctl.zero_prev
        m.d.sync += [seen_push.eq(push_any), seen_zero.eq(zero_any)]
        flush_from = pos.src.frame_end & ((partial & pos.frame_push) | (empty & push_any))
        with m.If(flush_from):
            m.d.sync += pos.flushing.eq(1)
        with m.If(pos.src.frame_end):
            m.d.sync += [seen_push.eq(0), seen_zero.eq(0)]
            with m.If(empty):
                m.d.sync += [pos.frame_push.eq(push_any), pos.frame_zero.eq(zero_any)]
        m.d.comb += ends.eq((pos.src.frame_end & ~flush_from) | (pos.flushing & ((y == H) | self.ctl.clear)))
        with m.If(ends):
            m.d.sync += [x.eq(0), y.eq(0), px.eq(0), c.eq(0), py.eq(0), row_base.eq(0), *frame_resets,
                         pos.flushing.eq(0), pos.parity.eq(~pos.parity)]
        # the stream's next frame must not show a visible pixel or end before the flush is done
        with m.If(pos.flushing & ((s.visible != 0) | s.frame_end)):
            m.d.sync += self.sync_error.eq(1)

    def _next_row_base(self, row_base):
        """``row_base``'s step to the next output row: ``r * 84`` (the byte stack), or in the word
        stack ``(r // R_h) * (84 / R_w)`` (the row's first word) in the bits below ``wb`` and
        ``r % R_h`` above them."""
        if self.stack_rows is None:
            return row_base.eq(row_base + OUT_SIZE)
        t = self.word_tiling
        if t.rh == 1:
            return row_base.eq(row_base + OUT_SIZE // t.rw)
        return row_base.eq(Mux(row_base[t.wb:] == t.rh - 1, row_base[:t.wb] + OUT_SIZE // t.rw,
                               row_base + (1 << t.wb)))

    def _word_pixel(self, row_base, c, banks: int = 1):
        """The word stack's pixel index of output pixel (row, column ``c``) in a bank:
        ``word * (R/4/banks) + (pixel lane) // banks`` with ``word = row_base[:wb] + c // R_w``
        and pixel lane ``(r % R_h) * R_w + c % R_w`` (``row_base`` as :meth:`_next_row_base`;
        ``banks`` 2: the even and odd columns' banks of three pixels per cycle)."""
        t = self.word_tiling
        lg_b = banks.bit_length() - 1
        word = row_base[:t.wb] + (c >> t.lg_rw)
        return Cat(c[lg_b:t.lg_rw], row_base[t.wb:t.wb + t.lg_rh], word)

    def _word_memory(self, banks: int = 1):
        """One bank of the word stack: ``28224 / R`` words of ``R / banks`` bytes."""
        return Memory(shape=8 * self.stack_rows // banks, depth=OBS_BYTES // self.stack_rows, init=[])

    def _word_write(self, m, wr, idx, value, en, head, banks: int = 1) -> None:
        """Write the byte ``value`` of pixel index ``idx`` (:meth:`_word_pixel`) into frame slot
        ``head``: word ``idx // (R/4/banks)``, byte lane ``(idx % (R/4/banks)) * 4 + head``
        (byte enables)."""
        pixels = self.stack_rows // STACK // banks
        lg = pixels.bit_length() - 1
        lane = idx[:lg]
        m.d.comb += [wr.addr.eq(idx >> lg), wr.data.eq(value[:8].replicate(STACK * pixels)),
                     wr.en.eq(Cat(en & (head == s) & ((lane == p) if lg else 1)
                                  for p in range(pixels) for s in range(STACK)))]

    def _word_slots(self, m, head, filled):
        """The physical slot (2 bits) of each logical frame 0 (oldest) .. 3, as :meth:`_read_slot`
        gives it (frames not yet written read the oldest written one)."""
        oldest = Signal(range(STACK), name="word_oldest")
        m.d.comb += oldest.eq(Mux(filled == 0, STACK - 1, STACK - filled))
        slots = []
        for f in range(STACK):
            slot = Signal(2, name=f"slot_of_frame{f}")
            m.d.comb += slot.eq(head + Mux(f < oldest, oldest, f))
            slots.append(slot)
        return slots

    def _word_read(self, m, banks, slots) -> None:
        """The word read port: every bank at ``rd.addr``; lane ``4p + f`` of ``rd.data`` (pixel
        lane ``p``, logical frame ``f``) is byte ``4 (p // banks) + slots[f]`` of bank
        ``p % banks`` (the four frames of a pixel put in oldest..newest order)."""
        n = len(banks)
        for b in banks:
            m.d.comb += b.addr.eq(self.rd.addr)
        out = []
        for p in range(self.stack_rows // STACK):
            word = banks[p % n].data
            slot_bytes = Array(word[8 * (4 * (p // n) + s):8 * (4 * (p // n) + s) + 8] for s in range(STACK))
            out += [slot_bytes[slots[f]] for f in range(STACK)]
        m.d.comb += self.rd.data.eq(Cat(*out))

    def _stack_control(self, m, pos, head, filled, frame_done) -> None:
        """The stack's slots: a pushed frame's first pixel drops ``obs_valid``; its last written
        pixel (``frame_done``) advances ``head`` and raises ``obs_valid``; ``clear`` empties the
        stack and drops ``obs_valid`` and ``sync_error``."""
        with m.If(pos.accept & pos.first & pos.this_push):
            m.d.sync += self.ctl.obs_valid.eq(0)
        with m.If(frame_done):
            m.d.sync += [head.eq(head + 1), self.ctl.obs_valid.eq(1),
                         filled.eq(Mux(filled == STACK, STACK, filled + 1))]
        with m.If(self.ctl.clear):
            m.d.sync += [head.eq(0), filled.eq(0), self.ctl.obs_valid.eq(0), self.sync_error.eq(0)]

    def _read_slot(self, m, head, filled):
        """The read port's physical slot (2 bits) of logical frame ``rd.frame`` (frames not yet
        written read the oldest written one)."""
        oldest = Signal(range(STACK))    # first logical frame that has been written
        m.d.comb += oldest.eq(Mux(filled == 0, STACK - 1, STACK - filled))
        logical = Signal(2)
        m.d.comb += logical.eq(Mux(self.rd.frame < oldest, oldest, self.rd.frame))
        return (head + logical)[:2]

    def _pixels_one(self, m, pos, head):
        """One pixel per beat: S0's column weights and frame address, then S1..S6 (module doc).
        Returns ``(frame_done, read)``: the last pixel of a pushed frame is written (1 bit), and
        the read port's addressing from the physical slot."""
        H, W, N = self.height, SCREEN_WIDTH, OUT_SIZE
        hw = H * W
        s = pos.src
        x, y, px, c, row_base = pos.x, pos.y, pos.px, pos.c, pos.row_base
        accept, this_push, this_zero = pos.accept, pos.this_push, pos.this_zero
        row_done, wya, wyb = pos.row_done, pos.wya, pos.wyb

        m.submodules.lut = lut = Memory(shape=8, depth=256, init=self.lut)
        screens = [Memory(shape=8, depth=hw, init=[]) for _ in range(2)]
        m.submodules.screen0, m.submodules.screen1 = screens
        m.submodules.vacc = vacc = Memory(shape=24, depth=N, init=[])
        m.submodules.stack = stack = (Memory(shape=8, depth=STACK * OBS_PIXELS, init=[]) if self.stack_rows is None
                                      else self._word_memory())
        lut_rd = lut.read_port()
        screen_rd, screen_wr = [b.read_port() for b in screens], [b.write_port() for b in screens]
        vacc_rd, vacc_wr = vacc.read_port(), vacc.write_port()
        stack_wr, stack_rd = stack.write_port(granularity=None if self.stack_rows is None else 8), stack.read_port()

        # ---- S0: frame address, overlap weights of this pixel with its first and second output column
        addr = Signal(range(hw))        # y*160 + x
        m.d.comb += accept.eq(s.visible & (y < H))
        col_done = Signal()             # this pixel completes output column c
        wxa, wxb = Signal(range(N + 1)), Signal(range(N + 1))
        m.d.comb += [
            col_done.eq(px + N >= W),
            wxa.eq(Mux(col_done, W - px, N)),
            wxb.eq(Mux(col_done, px + N - W, 0)),
        ]
        m.d.comb += [lut_rd.addr.eq(s.pixel), *(r.addr.eq(addr) for r in screen_rd)]

        def in_line():
            m.d.sync += x.eq(x + 1)
            with m.If(col_done):
                m.d.sync += [px.eq(px + N - W), c.eq(c + 1)]
            with m.Else():
                m.d.sync += px.eq(px + N)
        # a line ends after its 160th pixel (which may arrive in the same cycle as line_end)
        self._line_bookkeeping(m, pos, x == W - 1, [addr.eq(addr + 1)], in_line,
                               s.line_end & (x != 0) & ~(accept & (x == W - 1)), [addr.eq(0)])

        # per-pixel fields carried down the pipeline
        def stage(name, shape, value, src_domain=m.d.sync):
            sig = Signal(shape, name=name)
            src_domain += sig.eq(value)
            return sig

        v1 = stage("v1", 1, accept)
        x0_1 = stage("x0_1", 1, x == 0)
        cd1 = stage("cd1", 1, col_done)
        wxa1, wxb1 = stage("wxa1", range(N + 1), wxa), stage("wxb1", range(N + 1), wxb)
        c1 = stage("c1", range(N), c)
        rd1 = stage("rd1", 1, row_done)
        wya1, wyb1 = stage("wya1", range(N + 1), wya), stage("wyb1", range(N + 1), wyb)
        top1 = stage("top1", 1, y == 0)
        base1 = stage("base1", range(OBS_PIXELS), row_base)
        last1 = stage("last1", 1, (x == W - 1) & (y == H - 1))
        push1 = stage("push1", 1, this_push)
        addr1 = stage("addr1", range(hw), addr)
        zero1 = stage("zero1", 1, this_zero)
        par1, flush1 = stage("parity1", 1, pos.parity), stage("flush1", 1, pos.flushing)

        # ---- S1: the frame's grey into its screen buffer; a flushed pixel's grey is the buffer's
        # (two frames before), the other buffer's is the last frame's -------------------------
        this_rd = Mux(par1, screen_rd[1].data, screen_rd[0].data)
        last_rd = Mux(par1, screen_rd[0].data, screen_rd[1].data)
        grey = Signal(8)
        m.d.comb += grey.eq(Mux(flush1, this_rd, lut_rd.data))
        for b, wr in enumerate(screen_wr):
            m.d.comb += [wr.addr.eq(addr1), wr.data.eq(lut_rd.data), wr.en.eq(v1 & ~flush1 & (par1 == b))]

        # ---- S1b: the max and the column products, from the grey and previous grey registered as
        # read (block RAM read data -> register, then compare, select and multiply) --------------
        grey_b, prev_b, zero_b = stage("grey1b", 8, grey), stage("prev1b", 8, last_rd), stage("zero1b", 1, zero1)
        g = Signal(8)
        m.d.comb += g.eq(Mux(zero_b | (grey_b > prev_b), grey_b, prev_b))
        v1, x0_1, cd1, c1 = (stage("v1b", 1, v1), stage("x0_1b", 1, x0_1), stage("cd1b", 1, cd1),
                             stage("c1b", range(N), c1))
        wxa1, wxb1 = stage("wxa1b", range(N + 1), wxa1), stage("wxb1b", range(N + 1), wxb1)
        rd1, wya1, wyb1 = stage("rd1b", 1, rd1), stage("wya1b", range(N + 1), wya1), stage("wyb1b", range(N + 1), wyb1)
        top1, base1, last1, push1 = (stage("top1b", 1, top1), stage("base1b", range(OBS_PIXELS), base1),
                                     stage("last1b", 1, last1), stage("push1b", 1, push1))
        pa2 = stage("pa2", 16, wxa1 * g)
        pb2 = stage("pb2", 16, wxb1 * g)
        v2, x0_2, cd2, c2 = (stage("v2", 1, v1), stage("x0_2", 1, x0_1), stage("cd2", 1, cd1),
                             stage("c2", range(N), c1))
        rd2, wya2, wyb2 = stage("rd2", 1, rd1), stage("wya2", range(N + 1), wya1), stage("wyb2", range(N + 1), wyb1)
        top2, base2, last2, push2 = (stage("top2", 1, top1), stage("base2", range(OBS_PIXELS), base1),
                                     stage("last2", 1, last1), stage("push2", 1, push1))

        # ---- S2: horizontal accumulation, vertical accumulator read --------------------
        hacc = Signal(16)
        hsum = Signal(16)
        m.d.comb += hsum.eq(Mux(x0_2, 0, hacc) + pa2)
        with m.If(v2):
            m.d.sync += hacc.eq(Mux(cd2, pb2, hsum))
        m.d.comb += vacc_rd.addr.eq(c2)
        v3 = stage("v3", 1, v2 & cd2)
        h3 = stage("h3", 16, hsum)
        c3 = stage("c3", range(N), c2)
        rd3, wya3, wyb3 = stage("rd3", 1, rd2), stage("wya3", range(N + 1), wya2), stage("wyb3", range(N + 1), wyb2)
        top3, base3, last3, push3 = (stage("top3", 1, top2), stage("base3", range(OBS_PIXELS), base2),
                                     stage("last3", 1, last2), stage("push3", 1, push2))

        # ---- S3: row products, accumulator operand --------------------------------------
        va4 = stage("va4", 24, wya3 * h3)
        vb4 = stage("vb4", 24, wyb3 * h3)
        acc4 = stage("acc4", 24, Mux(top3, 0, vacc_rd.data))
        v4, c4, rd4 = stage("v4", 1, v3), stage("c4", range(N), c3), stage("rd4", 1, rd3)
        base4, last4, push4 = (stage("base4", range(OBS_PIXELS), base3), stage("last4", 1, last3),
                               stage("push4", 1, push3))

        # ---- S4: vertical accumulation and write-back ------------------------------------
        tot = Signal(24)
        m.d.comb += tot.eq(acc4 + va4)
        m.d.comb += [vacc_wr.addr.eq(c4), vacc_wr.data.eq(Mux(rd4, vb4, tot)), vacc_wr.en.eq(v4)]
        v5 = stage("v5", 1, v4 & rd4)
        num5 = stage("num5", 24, tot + hw // 2)
        idx5 = stage("idx5", range(OBS_PIXELS),
                     base4 + c4 if self.stack_rows is None else self._word_pixel(base4, c4))
        last5, push5 = stage("last5", 1, last4), stage("push5", 1, push4)

        # ---- S5: reciprocal multiply ----------------------------------------------------
        prod6 = stage("prod6", 24 + self.mult.bit_length(), num5 * self.mult)
        v6, idx6 = stage("v6", 1, v5), stage("idx6", range(OBS_PIXELS), idx5)
        last6, push6 = stage("last6", 1, last5), stage("push6", 1, push5)

        # ---- S6: shift, write into the stack slot at the head ----------------------------
        if self.stack_rows is not None:
            self._word_write(m, stack_wr, idx6, prod6 >> self.shift, v6 & push6, head)
            return v6 & push6 & last6, lambda slots: self._word_read(m, [stack_rd], slots)
        slot_base = Array(Const(k * OBS_PIXELS, range(STACK * OBS_PIXELS)) for k in range(STACK))
        m.d.comb += [
            stack_wr.addr.eq(slot_base[head] + idx6),
            stack_wr.data.eq(prod6 >> self.shift),
            stack_wr.en.eq(v6 & push6),
        ]

        def read(slot):
            m.d.comb += [stack_rd.addr.eq(slot_base[slot] + self.rd.index),
                         self.rd.data.eq(stack_rd.data)]
        return v6 & push6 & last6, read

    def _pixels_three(self, m, pos, head):
        """Three pixels per beat (module doc, "Three pixels per cycle"): the one-pixel pipeline's
        stages with three pixel lanes up to the horizontal accumulation and two column lanes
        (even and odd output columns) after it: S0 (:meth:`_beat_three`), S1/S1b
        (:meth:`_greys_three`), S2a/S2b (:meth:`_horizontal_three`), S3..S6
        (:meth:`_vertical_three`). Returns ``(frame_done, read)`` as :meth:`_pixels_one`."""
        t = SimpleNamespace(pos=pos, head=head)    # the stages hand on their registers by name
        self._beat_three(m, t)
        self._greys_three(m, t)
        self._horizontal_three(m, t)
        self._vertical_three(m, t)
        stack_rd, slot_base = t.stack_rd, t.slot_base
        if self.stack_rows is not None:
            return t.frame_done[0] | t.frame_done[1], lambda slots: self._word_read(m, stack_rd, slots)

        def read(slot):
            odd = Signal()
            m.d.sync += odd.eq(self.rd.index[0])
            for lane in range(2):
                m.d.comb += stack_rd[lane].addr.eq(slot_base[slot] + self.rd.index[1:])
            m.d.comb += self.rd.data.eq(Mux(odd, stack_rd[1].data, stack_rd[0].data))
        return t.frame_done[0] | t.frame_done[1], read

    def _beat_three(self, m, t):
        """S0 with three pixels per beat: the memories, the beat's visible run, each pixel's column
        and weights, the position's step (:meth:`_line_bookkeeping`), and the stage-1 registers."""
        pos = t.pos
        H, W, N, P = self.height, SCREEN_WIDTH, OUT_SIZE, 3
        hw = H * W
        s = pos.src
        x, y, px, c, row_base = pos.x, pos.y, pos.px, pos.c, pos.row_base
        accept, this_push, this_zero = pos.accept, pos.this_push, pos.this_zero
        row_done, wya, wyb = pos.row_done, pos.wya, pos.wyb

        m.submodules.lut = lut = Memory(shape=8, depth=256, init=self.lut)
        lut_rd = [lut.read_port() for _ in range(P)]
        screen_rd, screen_wr = [[], []], [[], []]     # [buffer][bank]
        for buf in range(2):
            for b in range(P):             # bank b holds the pixels at frame addresses 3*row + b
                bank = Memory(shape=8, depth=-(-hw // P), init=[])
                m.submodules[f"screen{buf}_{b}"] = bank
                screen_rd[buf].append(bank.read_port())
                screen_wr[buf].append(bank.write_port())
        vacc_rd, vacc_wr, stack_wr, stack_rd = [], [], [], []
        for lane in range(2):              # lane 0: even output columns, lane 1: odd
            vacc = Memory(shape=24, depth=N // 2, init=[])
            stack = (Memory(shape=8, depth=STACK * OBS_PIXELS // 2, init=[]) if self.stack_rows is None
                     else self._word_memory(banks=2))
            m.submodules[f"vacc{lane}"] = vacc
            m.submodules[f"stack{lane}"] = stack
            vacc_rd.append(vacc.read_port())
            vacc_wr.append(vacc.write_port())
            stack_wr.append(stack.write_port(granularity=None if self.stack_rows is None else 8))
            stack_rd.append(stack.read_port())

        # ---- S0: the beat's visible run, position counters --------------------------------
        n = Signal(range(P + 1))        # visible pixels in the beat
        k0 = Signal(range(P))           # colour clock of the first of them
        broken = Signal()               # visible pixels not contiguous
        with m.Switch(s.visible):
            for mask in range(1 << P):
                ks = [k for k in range(P) if mask >> k & 1]
                with m.Case(mask):
                    m.d.comb += [n.eq(len(ks)), k0.eq(ks[0] if ks else 0),
                                 broken.eq(bool(ks) and ks != list(range(ks[0], ks[-1] + 1)))]
        pix = []                        # the visible pixels in order: pix[j] = pixel[k0 + j]
        for j in range(P):
            pj = Signal(8, name=f"pix{j}")
            with m.Switch(k0):
                for kk in range(P):
                    with m.Case(kk):
                        m.d.comb += pj.eq(s.pixel[kk + j] if kk + j < P else 0)
            pix.append(pj)
        q = Signal(range(-(-hw // P) + 1))   # frame address y*160 + x = 3*q + mb
        mb = Signal(range(P))
        m.d.comb += accept.eq((n != 0) & (y < H))
        line_done = Signal()            # the beat carries the line's last pixel
        m.d.comb += line_done.eq(accept & (x + n >= W))

        # per pixel j: valid, column weights, column. Pixel j sits at t_j = px + N*j (scaled units
        # from the start of column c), i.e. in column c + t_j // W at px_j = t_j % W; t_j < 3*W, so
        # the quotient is two compares of px with constants (no chain of the beat's pixels)
        def cols_passed(j):
            """floor((px + N*j) / W) as a value, from constant compares of px (0..2)."""
            flags = [Const(1, 1) if k * W - N * j <= 0 else (px >= k * W - N * j) for k in (1, 2)]
            q = Signal(range(3), name=f"cols_passed{j}")
            m.d.comb += q.eq(flags[0] + flags[1])
            return q

        passed = [cols_passed(j) for j in range(P + 1)]
        pos = []                            # px_j = px + N*j - W*passed[j]
        for j in range(P + 1):
            pj = Signal(range(W), name=f"px_at{j}")
            m.d.comb += pj.eq(Mux(passed[j] == 2, px + (N * j - 2 * W),
                                  Mux(passed[j] == 1, px + (N * j - W), px + N * j)))
            pos.append(pj)
        valid, cds, wxas, wxbs, cols, lasts = [], [], [], [], [], []
        for j in range(P):
            v = Signal(name=f"valid{j}")
            cd = Signal(name=f"col_done{j}")
            wxa, wxb = Signal(range(N + 1), name=f"wxa{j}"), Signal(range(N + 1), name=f"wxb{j}")
            cc = Signal(range(N + P), name=f"col{j}")
            last = Signal(name=f"last{j}")
            m.d.comb += [
                v.eq(accept & (j < n) & (x + j < W)),
                cd.eq(passed[j + 1] != passed[j]),
                wxa.eq(Mux(cd, W - pos[j], N)),
                wxb.eq(Mux(cd, pos[j + 1], 0)),
                cc.eq(c + passed[j]),
                last.eq((x + j == W - 1) & (y == H - 1)),
            ]
            valid.append(v), cds.append(cd), wxas.append(wxa), wxbs.append(wxb), cols.append(cc), lasts.append(last)
        for j in range(P):
            m.d.comb += lut_rd[j].addr.eq(pix[j])
        for b in range(P):
            m.d.comb += [screen_rd[buf][b].addr.eq(q + (b < mb)) for buf in range(2)]

        mb_sum = mb + n               # a beat past the line's end is a sync_error (below)

        def in_line():
            m.d.sync += x.eq(x + n)
            with m.Switch(n):
                for k in range(1, P + 1):
                    with m.Case(k):
                        m.d.sync += [px.eq(pos[k]), c.eq(c + passed[k])]
        # a line ends after its 160th pixel (which may arrive in the same beat as line_end);
        # a beat's visible pixels are contiguous and do not run past the line
        self._line_bookkeeping(
            m, t.pos, line_done,
            [q.eq(q + (mb_sum >= P) + (mb_sum >= 2 * P)),
             mb.eq(mb_sum - Mux(mb_sum >= 2 * P, 2 * P, Mux(mb_sum >= P, P, 0)))],
            in_line, (s.line_end & (x != 0) & ~line_done) | broken | (accept & (x + n > W)), [q.eq(0), mb.eq(0)])

        def stage(name, shape, value):
            return _stage(m, name, shape, value)

        v1 = [stage(f"v1_{j}", 1, valid[j]) for j in range(P)]
        cd1 = [stage(f"cd1_{j}", 1, cds[j]) for j in range(P)]
        wxa1 = [stage(f"wxa1_{j}", range(N + 1), wxas[j]) for j in range(P)]
        wxb1 = [stage(f"wxb1_{j}", range(N + 1), wxbs[j]) for j in range(P)]
        c1 = [stage(f"c1_{j}", range(N + P), cols[j]) for j in range(P)]
        last1 = [stage(f"last1_{j}", 1, lasts[j]) for j in range(P)]
        x0_1 = stage("x0_1", 1, x == 0)
        rd1 = stage("rd1", 1, row_done)
        wya1, wyb1 = stage("wya1", range(N + 1), wya), stage("wyb1", range(N + 1), wyb)
        top1 = stage("top1", 1, y == 0)
        base1 = stage("base1", range(OBS_PIXELS), row_base)
        push1, zero1 = stage("push1", 1, this_push), stage("zero1", 1, this_zero)
        q1, mb1 = stage("q1", range(-(-hw // P) + 1), q), stage("mb1", range(P), mb)
        par1, flush1 = stage("parity1", 1, t.pos.parity), stage("flush1", 1, t.pos.flushing)
        vars(t).update(H=H, W=W, N=N, P=P, hw=hw, stage=stage, lut_rd=lut_rd, screen_rd=screen_rd,
                       screen_wr=screen_wr, par1=par1, flush1=flush1,
                       vacc_rd=vacc_rd, vacc_wr=vacc_wr, stack_wr=stack_wr, stack_rd=stack_rd, v1=v1, cd1=cd1,
                       wxa1=wxa1, wxb1=wxb1, c1=c1, last1=last1, x0_1=x0_1, rd1=rd1, wya1=wya1, wyb1=wyb1,
                       top1=top1, base1=base1, push1=push1, zero1=zero1, q1=q1, mb1=mb1)

    def _greys_three(self, m, t):
        """S1/S1b with three pixels per beat: the frame's greys into its screen buffer (pixel j in
        bank (mb + j) % 3), the flicker max with the other buffer and the column products."""
        N, P, base1, c1, cd1, last1 = t.N, t.P, t.base1, t.c1, t.cd1, t.last1
        lut_rd, mb1, push1, q1 = t.lut_rd, t.mb1, t.push1, t.q1
        screen_rd, screen_wr, par1, flush1 = t.screen_rd, t.screen_wr, t.par1, t.flush1
        rd1, stage, top1, v1, wxa1, wxb1 = t.rd1, t.stage, t.top1, t.v1, t.wxa1, t.wxb1
        wya1, wyb1, x0_1, zero1 = t.wya1, t.wyb1, t.x0_1, t.zero1
        # ---- S1: the frame's greys into its screen buffer (pixel j in bank (mb + j) % 3); a flushed
        # pixel's grey is its buffer's (two frames before), the other buffer's is the last frame's
        pa2, pb2, gs = [], [], []
        greys = [lut_rd[j].data for j in range(P)]
        for j in range(P):
            this_j = Signal(8, name=f"this_grey{j}")
            last_j = Signal(8, name=f"last_grey{j}")
            with m.Switch(mb1):
                for r in range(P):
                    with m.Case(r):
                        b = (r + j) % P
                        m.d.comb += [this_j.eq(Mux(par1, screen_rd[1][b].data, screen_rd[0][b].data)),
                                     last_j.eq(Mux(par1, screen_rd[0][b].data, screen_rd[1][b].data))]
            grey_j = Signal(8, name=f"grey{j}")
            m.d.comb += grey_j.eq(Mux(flush1, this_j, greys[j]))
            gs.append((stage(f"grey1b_{j}", 8, grey_j), stage(f"prev1b_{j}", 8, last_j)))
        zero_b = stage("zero1b", 1, zero1)
        with m.Switch(mb1):
            for r in range(P):
                with m.Case(r):
                    for b in range(P):
                        j = (b - r) % P
                        for buf in range(2):
                            m.d.comb += [screen_wr[buf][b].addr.eq(q1 + (b < r)),
                                         screen_wr[buf][b].data.eq(greys[j]),
                                         screen_wr[buf][b].en.eq(v1[j] & ~flush1 & (par1 == buf))]

        # ---- S1b: the max and the column products, from the greys and previous greys registered as
        # read (block RAM read data -> bank select -> register, then compare, select and multiply)
        for j in range(P):
            g = Signal(8, name=f"g{j}")
            m.d.comb += g.eq(Mux(zero_b | (gs[j][0] > gs[j][1]), gs[j][0], gs[j][1]))
            gs[j] = g
        v1 = [stage(f"v1b_{j}", 1, v1[j]) for j in range(P)]
        cd1 = [stage(f"cd1b_{j}", 1, cd1[j]) for j in range(P)]
        c1 = [stage(f"c1b_{j}", range(N + P), c1[j]) for j in range(P)]
        last1 = [stage(f"last1b_{j}", 1, last1[j]) for j in range(P)]
        wxa1 = [stage(f"wxa1b_{j}", range(N + 1), wxa1[j]) for j in range(P)]
        wxb1 = [stage(f"wxb1b_{j}", range(N + 1), wxb1[j]) for j in range(P)]
        x0_1, rd1 = stage("x0_1b", 1, x0_1), stage("rd1b", 1, rd1)
        wya1, wyb1 = stage("wya1b", range(N + 1), wya1), stage("wyb1b", range(N + 1), wyb1)
        top1, base1, push1 = (stage("top1b", 1, top1), stage("base1b", range(OBS_PIXELS), base1),
                              stage("push1b", 1, push1))
        for j in range(P):
            pa2.append(stage(f"pa2_{j}", 16, wxa1[j] * gs[j]))
            pb2.append(stage(f"pb2_{j}", 16, wxb1[j] * gs[j]))
        v2_0 = stage("v2_0", 1, v1[0])    # the beat has pixels (valid pixels start at 0)
        c2 = [stage(f"c2_{j}", range(N + P), c1[j]) for j in range(P)]
        last2 = [stage(f"last2_{j}", 1, last1[j]) for j in range(P)]
        x0_2, rd2 = stage("x0_2", 1, x0_1), stage("rd2", 1, rd1)
        wya2, wyb2 = stage("wya2", range(N + 1), wya1), stage("wyb2", range(N + 1), wyb1)
        top2, base2, push2 = (stage("top2", 1, top1), stage("base2", range(OBS_PIXELS), base1),
                              stage("push2", 1, push1))
        vars(t).update(base2=base2, c2=c2, cd1=cd1, last2=last2, pa2=pa2, pb2=pb2)
        vars(t).update(push2=push2, rd2=rd2, top2=top2, v1=v1, v2_0=v2_0, wya2=wya2)
        vars(t).update(wyb2=wyb2, x0_2=x0_2)

    def _horizontal_three(self, m, t):
        """S2a/S2b with three pixels per beat: the beat's sums from its products, the horizontal
        accumulation (one add on the carried sum), each completed column to its column lane."""
        N, P, base2, c2, cd1, last2 = t.N, t.P, t.base2, t.c2, t.cd1, t.last2
        pa2, pb2, push2, rd2, stage, top2 = t.pa2, t.pb2, t.push2, t.rd2, t.stage, t.top2
        v1, v2_0, wya2, wyb2, x0_2 = t.v1, t.v2_0, t.wya2, t.wyb2, t.x0_2
        # ---- S2a: the beat's sums, from its products alone. Pixel j adds pa_j to the running column
        # sum; a pixel that completes a column (cd_j) emits running + pa_j and restarts it with pb_j.
        # Up to two columns complete per beat, consecutive ones (one even, one odd), at pixels
        # j1 < j2 (jl: the last). Then, with acc the sum carried in from earlier beats:
        #   first emitted sum  = acc + A,  A = sum of pa_j over the valid j <= j1 (all valid j if none)
        #   second emitted sum = B = pb_j1 + sum of pa_j over j1 < j <= j2
        #   carried out        = acc + A if no column completes, else T = pb_jl + sum of pa_j, j > jl
        # so only one adder (acc + A) depends on the carried sum: the loop is one add deep ----------
        # which product each pixel adds to each sum, decided from S1b's flags (registered with the
        # products, so S2a is a select and a three-term add: a carry-save step and one adder)
        vcd = [v1[j] & cd1[j] for j in range(P)]
        before = [Const(0, 2)]              # completions among the pixels before j
        for j in range(P):
            cnt = Signal(range(P + 1), name=f"completions_before{j + 1}")
            m.d.comb += cnt.eq(before[j] + vcd[j])
            before.append(cnt)
        total = before[P]
        sel_a = [stage(f"head_sel{j}", 1, v1[j] & (before[j] == 0)) for j in range(P)]
        sel_b = [stage(f"second_sel{j}", 1, v1[j] & ((vcd[j] & (before[j] == 0)) | (before[j] == 1)))
                 for j in range(P)]
        b_pb = [stage(f"second_pb{j}", 1, before[j] == 0) for j in range(P)]
        sel_t = [stage(f"tail_sel{j}", 1, v1[j] & (before[j] + vcd[j] == total)) for j in range(P)]
        t_pb = [stage(f"tail_pb{j}", 1, vcd[j]) for j in range(P)]
        first_of = [stage(f"first_of{j}", 1, vcd[j] & (before[j] == 0)) for j in range(P)]
        second_of = [stage(f"second_of{j}", 1, vcd[j] & (before[j] == 1)) for j in range(P)]
        completions = stage("completions", range(P + 1), total)

        def masked_sum(name, terms):
            """The 16-bit sum of the terms (value, select): value where select, else 0; three
            terms reduced to two by a carry-save step (sum and majority bits) before one adder."""
            vals = [Mux(sel, val, 0) for val, sel in terms]
            a, b, c = (Signal(16, name=f"{name}_t{k}") for k in range(3))
            m.d.comb += [a.eq(vals[0]), b.eq(vals[1]), c.eq(vals[2])]
            out = Signal(16, name=name)
            m.d.comb += out.eq((a ^ b ^ c) + (((a & b) | (a & c) | (b & c)) << 1))
            return out

        a_sum = masked_sum("beat_head", [(pa2[j], sel_a[j]) for j in range(P)])
        b_sum = masked_sum("beat_second", [(Mux(b_pb[j], pb2[j], pa2[j]), sel_b[j]) for j in range(P)])
        t_sum = masked_sum("beat_tail", [(Mux(t_pb[j], pb2[j], pa2[j]), sel_t[j]) for j in range(P)])

        def pick(name, shape, sels, values):
            out = Signal(shape, name=name)
            for sel, val in zip(sels, values):
                with m.If(sel):
                    m.d.comb += out.eq(val)
            return out

        e1 = stage("emit_first", 1, completions != 0)
        e1_col = stage("emit_first_col", range(N), pick("first_col", range(N + P), first_of, c2))
        e1_last = stage("emit_first_last", 1, pick("first_last", 1, first_of, last2))
        e2 = stage("emit_second", 1, completions == 2)
        e2_col = stage("emit_second_col", range(N), pick("second_col", range(N + P), second_of, c2))
        e2_last = stage("emit_second_last", 1, pick("second_last", 1, second_of, last2))
        head_s, second_s, tail_s = stage("beat_head_s", 16, a_sum), stage("beat_second_s", 16, b_sum), \
            stage("beat_tail_s", 16, t_sum)
        beat_v = stage("beat_valid", 1, v2_0)
        x0_2, rd2 = stage("x0_2b", 1, x0_2), stage("rd2b", 1, rd2)
        wya2, wyb2 = stage("wya2b", range(N + 1), wya2), stage("wyb2b", range(N + 1), wyb2)
        top2, base2, push2 = (stage("top2b", 1, top2), stage("base2b", range(OBS_PIXELS), base2),
                              stage("push2b", 1, push2))

        # ---- S2b: horizontal accumulation (the one add on the carried sum); each completed
        # column goes to its column lane ----------------------------------------------------------
        acc = Signal(16, name="hacc_in")
        hacc = Signal(16)
        m.d.comb += acc.eq(Mux(x0_2, 0, hacc))
        hs = Signal(16, name="hsum")
        m.d.comb += hs.eq(acc + head_s)
        emit = [Signal(name=f"emit{lane}") for lane in range(2)]
        esum = [Signal(16, name=f"esum{lane}") for lane in range(2)]
        ecol = [Signal(range(N), name=f"ecol{lane}") for lane in range(2)]
        elast = [Signal(name=f"elast{lane}") for lane in range(2)]
        for lane in range(2):
            with m.If(e1 & (e1_col[0] == lane)):
                m.d.comb += [emit[lane].eq(1), esum[lane].eq(hs), ecol[lane].eq(e1_col), elast[lane].eq(e1_last)]
            with m.If(e2 & (e2_col[0] == lane)):
                m.d.comb += [emit[lane].eq(1), esum[lane].eq(second_s), ecol[lane].eq(e2_col),
                             elast[lane].eq(e2_last)]
        with m.If(beat_v):
            m.d.sync += hacc.eq(Mux(e1, tail_s, hs))
        vars(t).update(base2=base2, ecol=ecol, elast=elast, emit=emit, esum=esum, push2=push2)
        vars(t).update(rd2=rd2, top2=top2, wya2=wya2, wyb2=wyb2)

    def _vertical_three(self, m, t):
        """S3..S6 per column lane: the one-pixel pipeline's vertical pass, the division and the
        write into the stack slot at ``head``."""
        N, base2, ecol, elast, emit, esum = t.N, t.base2, t.ecol, t.elast, t.emit, t.esum
        head, hw, push2, rd2, stack_wr, stage = t.head, t.hw, t.push2, t.rd2, t.stack_wr, t.stage
        top2, vacc_rd, vacc_wr, wya2, wyb2 = t.top2, t.vacc_rd, t.vacc_wr, t.wya2, t.wyb2
        # ---- S3..S6 per column lane: the one-pixel pipeline's vertical pass -------------------
        half = OBS_PIXELS // 2
        slot_base = Array(Const(k * half, range(STACK * half)) for k in range(STACK))
        frame_done = []
        for lane in range(2):
            m.d.comb += vacc_rd[lane].addr.eq(ecol[lane][1:])
            v3 = stage(f"v3_{lane}", 1, emit[lane])
            h3 = stage(f"h3_{lane}", 16, esum[lane])
            c3 = stage(f"c3_{lane}", range(N), ecol[lane])
            l3 = stage(f"l3_{lane}", 1, elast[lane])
            rd3, wya3, wyb3 = (stage(f"rd3_{lane}", 1, rd2), stage(f"wya3_{lane}", range(N + 1), wya2),
                               stage(f"wyb3_{lane}", range(N + 1), wyb2))
            top3, base3, push3 = (stage(f"top3_{lane}", 1, top2), stage(f"base3_{lane}", range(OBS_PIXELS), base2),
                                  stage(f"push3_{lane}", 1, push2))
            va4 = stage(f"va4_{lane}", 24, wya3 * h3)
            # the same product with the rounding's half added (num5 below: one add, not two in a
            # row before the division's multiply; xc7 timed estimate)
            va4h = stage(f"va4h_{lane}", 24, wya3 * h3 + hw // 2)
            vb4 = stage(f"vb4_{lane}", 24, wyb3 * h3)
            acc4 = stage(f"acc4_{lane}", 24, Mux(top3, 0, vacc_rd[lane].data))
            v4, c4, rd4 = stage(f"v4_{lane}", 1, v3), stage(f"c4_{lane}", range(N), c3), stage(f"rd4_{lane}", 1, rd3)
            base4, l4, push4 = (stage(f"base4_{lane}", range(OBS_PIXELS), base3), stage(f"l4_{lane}", 1, l3),
                                stage(f"push4_{lane}", 1, push3))
            tot = Signal(24, name=f"tot{lane}")
            m.d.comb += tot.eq(acc4 + va4)
            m.d.comb += [vacc_wr[lane].addr.eq(c4[1:]), vacc_wr[lane].data.eq(Mux(rd4, vb4, tot)),
                         vacc_wr[lane].en.eq(v4)]
            v5 = stage(f"v5_{lane}", 1, v4 & rd4)
            num5 = stage(f"num5_{lane}", 24, acc4 + va4h)    # = tot + hw // 2
            idx5 = stage(f"idx5_{lane}", range(half),    # row*84 + c is even in lane 0
                         (base4 + c4)[1:] if self.stack_rows is None else self._word_pixel(base4, c4, banks=2))
            l5, push5 = stage(f"l5_{lane}", 1, l4), stage(f"push5_{lane}", 1, push4)
            # the division's multiply as two products of num5 with the constant's low 17 bits and
            # the bits above, each within one DSP48E1 (24 x 17 unsigned) and registered, their sum
            # formed on the way into the write (xc7 timed estimate: as one 24 x 24
            # multiply it was two DSPs without registers in a cascade, 9.19 ns)
            m_lo, m_hi = self.mult & 0x1FFFF, self.mult >> 17
            p6_lo = stage(f"prod6_lo_{lane}", 24 + 17, num5 * m_lo)
            p6_hi = stage(f"prod6_hi_{lane}", 24 + max(m_hi.bit_length(), 1), num5 * m_hi)
            prod6 = Signal(24 + self.mult.bit_length() + 1, name=f"prod6_{lane}")
            m.d.comb += prod6.eq((p6_hi << 17) + p6_lo)
            v6, idx6 = stage(f"v6_{lane}", 1, v5), stage(f"idx6_{lane}", range(half), idx5)
            l6, push6 = stage(f"l6_{lane}", 1, l5), stage(f"push6_{lane}", 1, push5)
            if self.stack_rows is None:
                m.d.comb += [stack_wr[lane].addr.eq(slot_base[head] + idx6),
                             stack_wr[lane].data.eq(prod6 >> self.shift),
                             stack_wr[lane].en.eq(v6 & push6)]
            else:
                self._word_write(m, stack_wr[lane], idx6, prod6 >> self.shift, v6 & push6, head, banks=2)
            frame_done.append(v6 & push6 & l6)
        vars(t).update(frame_done=frame_done, slot_base=slot_base)




def generate(height: int = 210, fmt: str = "NTSC", pixels_per_cycle: int | None = None) -> dict[str, str]:
    """Verilog of :class:`Preprocessor`, reproducible: ``{"preprocessor_cc1.v": ...}`` (module
    ``preprocessor_cc1``, one pixel per cycle) and ``{"preprocessor_cc3.v": ...}`` (module
    ``preprocessor_cc3``, three pixels per cycle); both when ``pixels_per_cycle`` is None.

    Raises:
        ValueError: bad ``height`` or ``pixels_per_cycle``.
    """
    check_height(height)
    widths = PIXELS_PER_CYCLE if pixels_per_cycle is None else (pixels_per_cycle,)
    out = {}
    for p in widths:
        name = f"preprocessor_cc{p}"
        text = reproducible.convert(Preprocessor(height, fmt, p), name)
        out[f"{name}.v"] = reproducible.tidy_memories(text)
    return out


#: Block RAM aspect ratios with byte write enables (Xilinx UG473, RAMB36E1): data bits per byte
#: enable group x depth (4K x 8, 2K x 16, 1K x 32, and 512 x 64 in simple dual-port mode; the
#: parity bits unused)
BRAM36_BYTE_ASPECTS = ((8, 4096), (16, 2048), (32, 1024), (64, 512))


def word_memory_bram36(width_bits: int, depth: int) -> int:
    """BRAM36 blocks of a memory of ``depth`` words of ``width_bits`` bits written a byte at a
    time (byte enables): the fewest over :data:`BRAM36_BYTE_ASPECTS` of
    ``ceil(width / w) * ceil(depth / d)``."""
    return min(-(-width_bits // w) * -(-depth // d) for w, d in BRAM36_BYTE_ASPECTS)


def bram36(height: int = 210, pixels_per_cycle: int = 1, stack_rows: int | None = None) -> dict[str, int]:
    """BRAM36 blocks of one preprocessor (Xilinx 7-series, 4K x 9 per block, parity bit unused).

    Two screen buffers of ``H*160`` grey bytes and the ``4 x 7056`` byte stack; the 256-byte grey
    LUT and the 84 x 24-bit vertical accumulator fit in distributed RAM (not counted). With three
    pixels per cycle each screen buffer is three banks of ``ceil(H*160/3)`` bytes and the stack
    two banks (even and odd columns) of ``4 x 3528`` bytes, each rounded up to whole blocks.
    With ``stack_rows`` ``R`` (the word stack of the array engine, ``Preprocessor(stack_rows=R)``)
    the stack is ``28224 / R`` words of ``8 R`` bits (two banks of ``4 R`` bits with three pixels
    per cycle), written a byte at a time: :func:`word_memory_bram36` per bank (16 rows: 1,764 x
    128 bits in 8 blocks of 2K x 16, against 7 for the byte stack).

    Raises:
        ValueError: bad ``height``, ``pixels_per_cycle`` or ``stack_rows`` (:func:`word_stack_tiling`).
    """
    h = check_height(height)
    pixel_stream_signature(pixels_per_cycle)
    screen_banks, stack_banks = (1, 1) if pixels_per_cycle == 1 else (3, 2)
    bank_bytes = -(-(h * SCREEN_WIDTH) // screen_banks)
    screens = 2 * screen_banks * -(-bank_bytes // 4096)
    if stack_rows is None:
        stack = stack_banks * -(-(STACK * OBS_PIXELS // stack_banks) // 4096)
    else:
        word_stack_tiling(stack_rows, pixels_per_cycle)
        stack = stack_banks * word_memory_bram36(8 * stack_rows // stack_banks, OBS_BYTES // stack_rows)
    return {"screen_buffers": screens, "stack": stack, "total": screens + stack}
