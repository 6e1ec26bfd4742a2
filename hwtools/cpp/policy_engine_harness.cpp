// Verilator harness of the int8 policy inference engine (hw/policy_engine.py), loaded by ctypes
// from hwtools/policy_engine_harness.py. The observation read port is served here as the
// preprocessor serves it (data one cycle after frame/index); one call loads a whole parameter
// image or runs a whole inference, so Python never steps single cycles. The parameter, control
// and action-value ports are driven by engine_ports.h (prepended by hwtools/verilator_build.py).
#include <cstdint>
#include "verilated.h"
#include "Vpolicy_engine.h"

namespace {
constexpr int kObsPixels = 84 * 84;

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
  engine_ports::reset(h, tick);
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
  engine_ports::load(static_cast<Harness*>(p), tick, words, n);
}

// Run one inference on `obs` (4 x 7056 uint8): engine_ports::infer's contract and return codes.
int64_t pe_infer(void* p, const uint8_t* obs, int32_t* out, int32_t* count, int64_t max_cycles) {
  auto* h = static_cast<Harness*>(p);
  h->obs = obs;
  const int64_t n = engine_ports::infer(h, tick, out, count, max_cycles);
  h->obs = nullptr;
  return n;
}

}  // extern "C"
