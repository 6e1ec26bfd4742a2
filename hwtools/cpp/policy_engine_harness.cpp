// Verilator harness of the int8 policy inference engine (hw/policy_engine.py), loaded by ctypes
// from hwtools/policy_engine_harness.py. The observation read port is served here as the
// preprocessor serves it (data one cycle after frame/index); one call loads a whole parameter
// image or runs a whole inference, so Python never steps single cycles.
#include <cstdint>
#include "verilated.h"
#include "Vpolicy_engine.h"

namespace {
constexpr int kObsPixels = 84 * 84;
constexpr int kMaxActions = 18;

struct Harness {
  VerilatedContext* ctx;
  Vpolicy_engine* top;
  uint64_t cycles;
  const uint8_t* obs;   // 4 x 7056 bytes, frame 0 = oldest
  uint8_t pending;      // read-port data for the next cycle
};

// One clock cycle: the read port's data for the address of the previous cycle is presented,
// the address of this cycle is sampled at the rising edge (a synchronous read, as the
// preprocessor's stack memory).
inline void tick(Harness* h) {
  Vpolicy_engine* t = h->top;
  t->obs___05Fdata = h->pending;
  t->clk = 0;
  t->eval();
  unsigned frame = t->obs___05Fframe & 3, index = t->obs___05Findex;
  t->clk = 1;
  t->eval();
  h->pending = (h->obs && index < kObsPixels) ? h->obs[frame * kObsPixels + index] : 0;
  h->cycles++;
}
}  // namespace

extern "C" {

void* pe_new() {
  auto* h = new Harness;
  h->ctx = new VerilatedContext;
  h->top = new Vpolicy_engine{h->ctx};
  h->cycles = 0;
  h->obs = nullptr;
  h->pending = 0;
  Vpolicy_engine* t = h->top;
  t->control___05Fstart = 0;
  t->params___05Fvalid = 0;
  t->action_values___05Fready = 0;
  t->rst = 1;
  tick(h);
  tick(h);
  t->rst = 0;
  return h;
}

void pe_free(void* p) {
  auto* h = static_cast<Harness*>(p);
  h->top->final();
  delete h->top;
  delete h->ctx;
  delete h;
}

uint64_t pe_cycles(void* p) { return static_cast<Harness*>(p)->cycles; }

// Write `n` parameter words, one per cycle: rows of (space, row, lane, data).
void pe_load(void* p, const int64_t* words, int64_t n) {
  auto* h = static_cast<Harness*>(p);
  Vpolicy_engine* t = h->top;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* w = words + 4 * i;
    t->params___05Fvalid = 1;
    t->params___05Fspace = (uint8_t)w[0];
    t->params___05Frow = (uint32_t)w[1];
    t->params___05Flane = (uint8_t)w[2];
    t->params___05Fdata = (uint32_t)w[3];
    tick(h);
  }
  t->params___05Fvalid = 0;
}

// Run one inference on `obs` (4 x 7056 uint8). Pulses start for one cycle, runs until done
// (at most `max_cycles`), accepts the action-value beat, and writes `count` values to `out`.
// Returns the cycles from the start cycle to the done cycle, or -1 on a timeout, -2 if busy
// or done misbehaved (busy not high from the cycle after start until done, or values not valid
// with done), -3 if the beat was not accepted in the done cycle.
int64_t pe_infer(void* p, const uint8_t* obs, int32_t* out, int32_t* count, int64_t max_cycles) {
  auto* h = static_cast<Harness*>(p);
  Vpolicy_engine* t = h->top;
  h->obs = obs;
  t->action_values___05Fready = 0;
  t->control___05Fstart = 1;
  tick(h);                      // the start cycle (cycle 0)
  t->control___05Fstart = 0;
  int64_t n = 1;
  for (; n <= max_cycles; ++n) {
    t->clk = 0;                 // settle outputs of this cycle before looking at them
    t->eval();
    if (t->control___05Fdone) break;
    if (!t->control___05Fbusy) return -2;
    tick(h);
  }
  if (n > max_cycles) return -1;
  if (!t->action_values___05Fvalid || t->control___05Fbusy) return -2;
  const int c = (int)((t->action_values___05Fpayload[kMaxActions] ) & 0x1f);
  for (int i = 0; i < kMaxActions; ++i) out[i] = (int32_t)t->action_values___05Fpayload[i];
  *count = c;
  t->action_values___05Fready = 1;
  tick(h);                      // the beat is taken in this cycle
  t->action_values___05Fready = 0;
  t->clk = 0;
  t->eval();
  if (t->action_values___05Fvalid || t->control___05Fdone) return -3;
  h->obs = nullptr;
  return n;
}

}  // extern "C"
