// Fast C++ harness for the Verilated 6507 core (hw/cpu6507.py), loaded from Python with ctypes.
//
// The CPU runs against a flat 64 KiB memory held here; one call runs up to millions of
// CPU cycles (one cycle = one clock edge with ce = rdy = 1). Optional bus log: one
// uint32 per logged cycle, addr[15:0] | data[23:16] | rw<<24 | dummy<<25 | sync<<26
// (data = byte read or written).
//
// Stop reasons returned by cpu_run: 0 cycle limit, 1 instruction limit, 2 trap (the
// instruction just executed was a JMP abs to its own address), 3 jam (JAM opcode).
#include <cstdint>
#include <cstring>
#include "Vcpu6507.h"
#include "verilated.h"

namespace {

struct Harness {
    VerilatedContext ctx;
    Vcpu6507* top;
    uint8_t mem[65536];
    uint32_t* log = nullptr;
    uint64_t log_capacity = 0;
    uint64_t log_count = 0;
    int log_mode = 0;  // 0 off, 1 writes only, 2 every cycle

    Harness() {
        top = new Vcpu6507{&ctx};
        std::memset(mem, 0, sizeof mem);
        top->ce = 1;
        top->rdy = 1;
        top->load_en = 0;
        top->rst = 0;
        top->clk = 0;
        top->eval();
    }
    ~Harness() {
        top->final();
        delete top;
    }
    inline void edge() {
        top->clk = 1;
        top->eval();
        top->clk = 0;
        top->eval();
    }
};

}  // namespace

extern "C" {

void* cpu_new() { return new Harness(); }

void cpu_free(void* h) { delete static_cast<Harness*>(h); }

uint8_t* cpu_mem(void* h) { return static_cast<Harness*>(h)->mem; }

// Pulse the reset line: the core then reads the vector at $FFFC/$FFFD (2 cycles of the next run).
void cpu_reset(void* hp) {
    Harness* h = static_cast<Harness*>(hp);
    h->top->rst = 1;
    h->edge();
    h->top->rst = 0;
}

// Load registers (p: N V - B D I Z C; bits 5 and 4 ignored); the next cycle fetches at pc.
void cpu_load_state(void* hp, int a, int x, int y, int sp, int p, int pc) {
    Harness* h = static_cast<Harness*>(hp);
    Vcpu6507* t = h->top;
    t->load___05Fa = a;
    t->load___05Fx = x;
    t->load___05Fy = y;
    t->load___05Fsp = sp;
    t->load___05Fp = p;
    t->load___05Fpc = pc;
    t->load_en = 1;
    h->edge();
    t->load_en = 0;
    t->eval();
}

// out: a, x, y, sp, p, pc, jammed, sync
void cpu_get_state(void* hp, int32_t* out) {
    Vcpu6507* t = static_cast<Harness*>(hp)->top;
    out[0] = t->state___05Fa;
    out[1] = t->state___05Fx;
    out[2] = t->state___05Fy;
    out[3] = t->state___05Fsp;
    out[4] = t->state___05Fp;
    out[5] = t->state___05Fpc;
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
// Counts are added to *cycles and *instructions (cycles: CPU cycles; instructions: opcode fetches).
int cpu_run(void* hp, uint64_t max_cycles, uint64_t max_instructions, int stop_on_trap,
            uint64_t* cycles_out, uint64_t* instructions_out) {
    Harness* h = static_cast<Harness*>(hp);
    Vcpu6507* t = h->top;
    uint8_t* mem = h->mem;
    uint64_t cycles = 0, instructions = 0;
    bool trap_pending = false;
    int reason = 0;
    const int log_mode = h->log_mode;
    while (cycles < max_cycles) {
        if (t->jammed) { reason = 3; break; }
        const uint32_t addr = t->addr;
        if (t->sync) {
            if (trap_pending) { reason = 2; break; }
            if (max_instructions && instructions == max_instructions) { reason = 1; break; }
            ++instructions;
            if (stop_on_trap && mem[addr] == 0x4C &&
                (uint32_t)(mem[(addr + 1) & 0xFFFF] | (mem[(addr + 2) & 0xFFFF] << 8)) == addr)
                trap_pending = true;
        }
        uint8_t data;
        const bool rd = t->rw;
        if (rd) {
            data = mem[addr];
            t->din = data;
        } else {
            data = t->dout;
            mem[addr] = data;
        }
        if (log_mode && (log_mode == 2 || !rd) && h->log_count < h->log_capacity) {
            h->log[h->log_count++] = addr | (uint32_t(data) << 16) | (uint32_t(rd) << 24) |
                                     (uint32_t(t->dummy) << 25) | (uint32_t(t->sync) << 26);
        }
        h->edge();
        ++cycles;
    }
    *cycles_out += cycles;
    *instructions_out += instructions;
    return reason;
}

}  // extern "C"
