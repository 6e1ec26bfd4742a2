// Verilator harness of the array inference engine (hw/policy_array.py), loaded by ctypes from
// hwtools/policy_array_harness.py. The observation word port is served here as a word-wide
// stack memory would serve it (R bytes, one cycle after addr); one call loads a whole parameter
// image or runs a whole inference, so Python never steps single cycles. The parameter, control
// and action-value ports are driven by engine_ports.h (prepended by hwtools/verilator_build.py).
#include <cstdint>
#include "verilated.h"
#include "Vpolicy_array.h"

namespace {
constexpr int kObsBytes = 4 * 84 * 84;

struct Harness {
  VerilatedContext* ctx;
  Vpolicy_array* top;
  uint64_t cycles;
  int rows;                 // R: bytes per observation word
  const uint8_t* obs;       // (28224 / R) words of R bytes (nc2600.hls_models.policy_array.obs_words)
  uint32_t pending_addr;    // the word address sampled at the last rising edge
  bool pending_valid;
};

// The observation data port as Verilator types it for each width (R = 4, 8, >= 16 bytes).
inline void set_word(IData& port, const uint8_t* b, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v |= (uint32_t)b[i] << (8 * i);
  port = v;
}
inline void set_word(QData& port, const uint8_t* b, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= (uint64_t)b[i] << (8 * i);
  port = v;
}
template <std::size_t W>
inline void set_word(VlWide<W>& port, const uint8_t* b, int n) {
  for (std::size_t w = 0; w < W; ++w) {
    uint32_t v = 0;
    for (int i = 0; i < 4 && (int)(4 * w) + i < n; ++i) v |= (uint32_t)b[4 * w + i] << (8 * i);
    port[w] = v;
  }
}

// One clock cycle: the data of the word addressed in the previous cycle is presented, this
// cycle's address is sampled at the rising edge (a synchronous read).
inline void tick(Harness* h) {
  Vpolicy_array* t = h->top;
  static const uint8_t zeros[64] = {0};
  const uint8_t* word = (h->obs && h->pending_valid) ? h->obs + (size_t)h->pending_addr * h->rows : zeros;
  set_word(t->obs___05Fdata, word, h->rows);
  t->clk = 0;
  t->eval();
  uint32_t addr = t->obs___05Faddr;
  t->clk = 1;
  t->eval();
  h->pending_addr = addr;
  h->pending_valid = addr < (uint32_t)(kObsBytes / h->rows);
  h->cycles++;
}
}  // namespace

extern "C" {

void* pa_new(int rows) {
  auto* h = new Harness;
  h->ctx = new VerilatedContext;
  h->top = new Vpolicy_array{h->ctx};
  h->cycles = 0;
  h->rows = rows;
  h->obs = nullptr;
  h->pending_addr = 0;
  h->pending_valid = false;
  engine_ports::reset(h, tick);
  return h;
}

void pa_free(void* p) {
  auto* h = static_cast<Harness*>(p);
  h->top->final();
  delete h->top;
  delete h->ctx;
  delete h;
}

uint64_t pa_cycles(void* p) { return static_cast<Harness*>(p)->cycles; }

// Write `n` parameter words, one per cycle: rows of (space, row, lane, data).
void pa_load(void* p, const int64_t* words, int64_t n) {
  engine_ports::load(static_cast<Harness*>(p), tick, words, n);
}

// Run one inference on `obs` (observation words): engine_ports::infer's contract and return codes.
int64_t pa_infer(void* p, const uint8_t* obs, int32_t* out, int32_t* count, int64_t max_cycles) {
  auto* h = static_cast<Harness*>(p);
  h->obs = obs;
  const int64_t n = engine_ports::infer(h, tick, out, count, max_cycles);
  h->obs = nullptr;
  return n;
}

}  // extern "C"
