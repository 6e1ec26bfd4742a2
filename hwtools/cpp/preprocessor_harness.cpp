// Verilator harness of the streaming preprocessor (hw/preprocessor.py), loaded by ctypes
// from hwtools/preprocessor_harness.py. One call feeds one whole console frame, colour clock by
// colour clock, so the Python side never steps single cycles.
#include <cstdint>
// Verilator escapes the double underscore of Amaranth's flattened port names as ___05F.
#include "verilated.h"
#include "Vpreprocessor.h"

#ifndef NC_PIXELS_PER_CYCLE
#define NC_PIXELS_PER_CYCLE 1         // 3: the three-pixel stream (module preprocessor_cc3)
#endif

namespace {
constexpr int kP = NC_PIXELS_PER_CYCLE;  // colour clocks (pixels) per beat
constexpr int kClocksPerLine = 228;   // colour clocks per scanline
constexpr int kFirstVisible = 68;     // first visible colour clock (after horizontal blank)
constexpr int kWidth = 160;
constexpr int kObsPixels = 84 * 84;

struct Harness {
  VerilatedContext* ctx;
  Vpreprocessor* top;
  uint64_t cycles;
};

inline void tick(Harness* h) {
  h->top->clk = 0;
  h->top->eval();
  h->top->clk = 1;
  h->top->eval();
  h->cycles++;
}

inline void idle_inputs(Vpreprocessor* t) {
  t->stream___05Fpixel = 0;
  t->stream___05Fvisible = 0;
  t->stream___05Fline_end = 0;
  t->stream___05Fframe_end = 0;
  t->ctl___05Fclear = 0;
  t->ctl___05Fpush = 0;               // push is driven during its frame only (as the frame-skip controller)
}
}  // namespace

extern "C" {

void* pp_new() {
  auto* h = new Harness;
  h->ctx = new VerilatedContext;
  h->top = new Vpreprocessor{h->ctx};
  h->cycles = 0;
  idle_inputs(h->top);
  h->top->ctl___05Fpush = 0;
  h->top->rd___05Fframe = 0;
  h->top->rd___05Findex = 0;
  h->top->rst = 1;
  tick(h);
  tick(h);
  h->top->rst = 0;
  return h;
}

void pp_free(void* p) {
  auto* h = static_cast<Harness*>(p);
  h->top->final();
  delete h->top;
  delete h->ctx;
  delete h;
}

void pp_clear(void* p) {
  auto* h = static_cast<Harness*>(p);
  h->top->ctl___05Fclear = 1;
  tick(h);
  h->top->ctl___05Fclear = 0;
}

uint64_t pp_cycles(void* p) { return static_cast<Harness*>(p)->cycles; }

int pp_sync_error(void* p) { return static_cast<Harness*>(p)->top->sync_error; }

int pp_obs_valid(void* p) { return static_cast<Harness*>(p)->top->ctl___05Fobs_valid; }

// Feed one frame of `lines_total` scanlines; rows ystart..ystart+height-1 carry the
// `height` x 160 palette indices of `screen` at colour clocks first_visible..first_visible+159
// (68..227 on the console; other starts move the pixels against the beats). One beat carries kP
// colour clocks (beat i of a line: clocks kP*i .. kP*i+kP-1, element k in pixel bits 8k..8k+7
// and visible bit k, as the three-colour-clock console's stream). line_end is on the last beat
// of every line, frame_end on the last beat of the frame.
// Returns the cycles from the cycle carrying the last visible pixel to the first cycle in
// which obs_valid rises (low -> high) after it, or -1 if it did not rise before the frame ended.
int pp_feed_frame(void* p, const uint8_t* screen, int height, int ystart, int lines_total, int push,
                  int first_visible) {
  auto* h = static_cast<Harness*>(p);
  Vpreprocessor* t = h->top;
  t->ctl___05Fpush = push ? 1 : 0;
  int64_t last_pixel_cycle = -1;
  int latency = -1;
  int was_valid = t->ctl___05Fobs_valid;
  for (int line = 0; line < lines_total; ++line) {
    const bool vis_line = line >= ystart && line < ystart + height;
    const uint8_t* row = vis_line ? screen + (size_t)(line - ystart) * kWidth : nullptr;
    for (int clk0 = 0; clk0 < kClocksPerLine; clk0 += kP) {
      uint32_t pixel = 0, vis = 0;
      for (int k = 0; k < kP; ++k) {
        const int clk = clk0 + k;
        if (vis_line && clk >= first_visible && clk < first_visible + kWidth) {
          vis |= 1u << k;
          pixel |= (uint32_t)row[clk - first_visible] << (8 * k);
        }
      }
      const bool line_last = clk0 + kP == kClocksPerLine;
      t->stream___05Fvisible = vis;
      t->stream___05Fpixel = pixel;
      t->stream___05Fline_end = line_last;
      t->stream___05Fframe_end = (line == lines_total - 1) && line_last;
      const int last_clk = first_visible + kWidth - 1;     // the line's last visible colour clock
      if (line == ystart + height - 1 && clk0 <= last_clk && last_clk < clk0 + kP)
        last_pixel_cycle = (int64_t)h->cycles;
      tick(h);
      if (latency < 0 && last_pixel_cycle >= 0 && t->ctl___05Fobs_valid && !was_valid)
        latency = (int)((int64_t)h->cycles - last_pixel_cycle);
      was_valid = t->ctl___05Fobs_valid;
    }
  }
  idle_inputs(t);
  return latency;
}

// Run `cycles` clocks with no beat (the stream idle, as between a console's frames when it is held).
void pp_idle(void* p, int cycles) {
  auto* h = static_cast<Harness*>(p);
  idle_inputs(h->top);
  for (int i = 0; i < cycles; ++i) tick(h);
}

// Read the whole stack through the read port: out[f * 7056 + i] = frame f (0 = oldest),
// index i = row * 84 + column. The address is presented one cycle before the data.
void pp_read_stack(void* p, uint8_t* out) {
  auto* h = static_cast<Harness*>(p);
  Vpreprocessor* t = h->top;
  idle_inputs(t);
  for (int f = 0; f < 4; ++f) {
    for (int i = 0; i < kObsPixels; ++i) {
      t->rd___05Fframe = f;
      t->rd___05Findex = i;
      tick(h);
      out[f * kObsPixels + i] = t->rd___05Fdata;
    }
  }
}

}  // extern "C"
