// The inference engines' common ports driven from a Verilator harness: the parameter write
// port (hw/interfaces.py ParameterWriteSignature), the start/busy/done handshake
// (InferenceControlSignature) and the action-value stream (action_values_signature), the same
// for the lane engine (hw/policy_engine.py) and the array engine (hw/policy_array.py).
//
// `H` is a harness with a Verilated `top` whose ports carry those names; `tick(h)` runs one
// clock cycle with the harness's own observation port served. Prepended to a harness's source
// by hwtools/verilator_build.py (engine_harness), so it is part of the build's cache key.
#include <cstdint>

namespace engine_ports {
constexpr int kMaxActions = 18;   // the action-value registers (nc2600.hls_models.action_select.MAX_ACTIONS)

// Idle inputs, then reset held for two clock cycles.
template <class H, class Tick>
void reset(H* h, Tick tick) {
  auto* t = h->top;
  t->control___05Fstart = 0;
  t->params___05Fvalid = 0;
  t->action_values___05Fready = 0;
  t->rst = 1;
  tick(h);
  tick(h);
  t->rst = 0;
}

// Write `n` parameter words, one per cycle: rows of (space, row, lane, data).
template <class H, class Tick>
void load(H* h, Tick tick, const int64_t* words, int64_t n) {
  auto* t = h->top;
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

// One inference: pulses start for one cycle, runs until done (at most `max_cycles`), accepts
// the action-value beat, writes the 18 values to `out` and the beat's count to `count`.
// Returns the cycles from the start cycle to the done cycle, or -1 on a timeout, -2 if busy or
// done misbehaved (busy not high from the cycle after start until done, or values not valid
// with done), -3 if the beat was not accepted in the done cycle.
template <class H, class Tick>
int64_t infer(H* h, Tick tick, int32_t* out, int32_t* count, int64_t max_cycles) {
  auto* t = h->top;
  t->action_values___05Fready = 0;
  t->control___05Fstart = 1;
  tick(h);                      // the start cycle (cycle 0)
  t->control___05Fstart = 0;
  int64_t n = 1;
  for (; n <= max_cycles; ++n) {
    t->clk = 0;                 // settle the outputs of this cycle before looking at them
    t->eval();
    if (t->control___05Fdone) break;
    if (!t->control___05Fbusy) return -2;
    tick(h);
  }
  if (n > max_cycles) return -1;
  if (!t->action_values___05Fvalid || t->control___05Fbusy) return -2;
  *count = (int)((t->action_values___05Fpayload[kMaxActions]) & 0x1f);
  for (int i = 0; i < kMaxActions; ++i) out[i] = (int32_t)t->action_values___05Fpayload[i];
  t->action_values___05Fready = 1;
  tick(h);                      // the beat is taken in this cycle
  t->action_values___05Fready = 0;
  t->clk = 0;
  t->eval();
  if (t->action_values___05Fvalid || t->control___05Fdone) return -3;
  return n;
}
}  // namespace engine_ports
