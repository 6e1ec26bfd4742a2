// Fast C++ harness for the Verilated 6507 core (hw/cpu6507.py), loaded from Python with ctypes.
//
// The Verilated top is the wrapper `cpu6507_sim` (hwtools/cpu6507_harness.py): the core with
// ce = rdy = 1, its memory reads and writes served here through DPI imports over a flat
// 64 KiB array, and its register-load / reset controls latched from a control word that
// the wrapper fetches from here at every rising edge. One call runs up to millions of CPU
// cycles (one cycle = one rising clock edge).
//
// Speed: the model has no inputs but the clock, so Verilator evaluates all logic once per
// edge (no input-combinational pass). One evaluation per cycle: after the rising-edge
// evaluation the clock is put back to 0 and Verilator's edge detector is re-armed directly
// (the design has no falling-edge logic), and the model's internal eval is called without
// the per-call end-of-eval bookkeeping (no $display/$finish in the design). Both rely on
// the pinned Verilator (5.48) generated names.
//
// A load or reset takes two edges: the first latches the control word (the core's cycle at
// that edge is discarded: its bus write is ignored), the second performs it.
//
// Optional bus log: one uint32 per logged cycle,
//   addr[15:0] | data[23:16] | read<<24 | dummy<<25 | sync<<26.
// Stop reasons of cpu_run: 0 cycle limit, 1 instruction limit, 2 trap (the instruction
// just executed was a JMP abs to its own address), 3 jam (JAM opcode executed).
#include <cstdint>
#include <cstring>
#include "Vcpu6507_sim.h"
#include "Vcpu6507_sim___024root.h"
#include "Vcpu6507_sim__Dpi.h"
#include "verilated.h"

void Vcpu6507_sim___024root___eval(Vcpu6507_sim___024root* vlSelf);

namespace {

struct Harness {
    VerilatedContext ctx;
    Vcpu6507_sim* top;
    uint8_t mem[65536];
    uint32_t* log = nullptr;
    uint64_t log_capacity = 0;
    uint64_t log_count = 0;
    int log_mode = 0;  // 0 off, 1 writes only, 2 every cycle
    uint64_t control = 0;      // word returned to the wrapper at each edge
    bool ignore_writes = false;

    Harness();
    ~Harness() {
        top->final();
        delete top;
    }
    // One rising edge, then the clock back to 0 without a falling-edge evaluation.
    inline void edge() {
        Vcpu6507_sim___024root* r = top->rootp;
        r->clk = 1;
        Vcpu6507_sim___024root___eval(r);
        r->clk = 0;
        r->__Vtrigprevexpr___TOP__clk__0 = 0;
    }
};

Harness* current = nullptr;  // the harness being run (DPI imports have no context argument)

Harness::Harness() {
    current = this;
    top = new Vcpu6507_sim{&ctx};
    std::memset(mem, 0, sizeof mem);
    top->clk = 0;
    top->eval();
}

}  // namespace

// DPI imports used by the wrapper.
extern "C" int cpu6507_sim_read(int addr) { return current->mem[addr & 0xFFFF]; }
extern "C" void cpu6507_sim_write(int addr, int data) {
    if (!current->ignore_writes) current->mem[addr & 0xFFFF] = uint8_t(data);
}
extern "C" long long cpu6507_sim_control() { return (long long)current->control; }

namespace {
// Apply a control word (load and/or reset) over two edges; no CPU cycle is counted.
void apply_control(Harness* h, uint64_t word) {
    h->ignore_writes = true;
    h->control = word;
    h->edge();            // latch the word (this edge's core cycle is discarded)
    h->control = 0;
    h->edge();            // perform the load / reset
    h->ignore_writes = false;
}
}  // namespace

extern "C" {

void* cpu_new() { return new Harness(); }

void cpu_free(void* h) {
    if (current == h) current = nullptr;
    delete static_cast<Harness*>(h);
}

uint8_t* cpu_mem(void* h) { return static_cast<Harness*>(h)->mem; }

// Pulse the reset line: ALE's reset register values; the next 2 cycles read the vector at $FFFC/$FFFD.
void cpu_reset(void* hp) {
    Harness* h = current = static_cast<Harness*>(hp);
    apply_control(h, 2);
}

// Load registers (p: N V - B D I Z C; bits 5 and 4 ignored); the next cycle fetches at pc.
void cpu_load_state(void* hp, int a, int x, int y, int sp, int p, int pc) {
    Harness* h = current = static_cast<Harness*>(hp);
    uint64_t word = 1 | (uint64_t(a & 0xFF) << 2) | (uint64_t(x & 0xFF) << 10) | (uint64_t(y & 0xFF) << 18) |
                    (uint64_t(sp & 0xFF) << 26) | (uint64_t(p & 0xFF) << 34) | (uint64_t(pc & 0xFFFF) << 42);
    apply_control(h, word);
}

// out: a, x, y, sp, p, pc, jammed, sync
void cpu_get_state(void* hp, int32_t* out) {
    Vcpu6507_sim* t = static_cast<Harness*>(hp)->top;
    out[0] = t->st_a;
    out[1] = t->st_x;
    out[2] = t->st_y;
    out[3] = t->st_sp;
    out[4] = t->st_p;
    out[5] = t->st_pc;
    out[6] = t->jammed;
    out[7] = t->sync;
}

void cpu_set_log(void* hp, uint32_t* buf, uint64_t capacity, int mode) {
    Harness* h = static_cast<Harness*>(hp);
    h->log = buf;
    h->log_capacity = buf ? capacity : 0;
    h->log_mode = buf ? mode : 0;
    h->log_count = 0;
}

uint64_t cpu_log_count(void* hp) { return static_cast<Harness*>(hp)->log_count; }

// Run until a stop condition. max_instructions = 0: no instruction limit.
// Counts are added to *cycles_out (CPU cycles) and *instructions_out (opcode fetches).
int cpu_run(void* hp, uint64_t max_cycles, uint64_t max_instructions, int stop_on_trap,
            uint64_t* cycles_out, uint64_t* instructions_out) {
    Harness* h = current = static_cast<Harness*>(hp);
    Vcpu6507_sim* t = h->top;
    const uint8_t* mem = h->mem;
    uint64_t cycles = 0, instructions = 0;
    bool trap_pending = false;
    int reason = 0;
    const int log_mode = h->log_mode;
    // Memory changed from Python since the last edge is seen by the core only after an edge.
    // At an instruction boundary, reload the same registers to re-read it (no cycle counted).
    if (t->rw && t->din_o != mem[t->addr] && t->sync && !t->jammed)
        cpu_load_state(hp, t->st_a, t->st_x, t->st_y, t->st_sp, t->st_p, t->st_pc);
    while (cycles < max_cycles) {
        if (t->jammed) { reason = 3; break; }
        if (t->sync) {
            if (trap_pending) { reason = 2; break; }
            if (max_instructions && instructions == max_instructions) { reason = 1; break; }
            ++instructions;
            if (stop_on_trap) {
                const uint32_t pc = t->addr;
                if (mem[pc] == 0x4C &&
                    (uint32_t)(mem[(pc + 1) & 0xFFFF] | (mem[(pc + 2) & 0xFFFF] << 8)) == pc)
                    trap_pending = true;
            }
        }
        if (log_mode) {
            const bool rd = t->rw;
            if ((log_mode == 2 || !rd) && h->log_count < h->log_capacity) {
                const uint32_t addr = t->addr;
                const uint32_t data = rd ? mem[addr] : t->dout;
                h->log[h->log_count++] = addr | (data << 16) | (uint32_t(rd) << 24) |
                                         (uint32_t(t->dummy) << 25) | (uint32_t(t->sync) << 26);
            }
        }
        h->edge();
        ++cycles;
    }
    *cycles_out += cycles;
    *instructions_out += instructions;
    return reason;
}

}  // extern "C"
