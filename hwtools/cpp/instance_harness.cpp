// Verilator harness of the fabric instance (hw/instance.py): an AXI4-Lite master with
// PYNQ-shaped MMIO access (read a word, write a word), loaded with ctypes by
// hwtools/instance_harness.py. Every access runs the AXI4-Lite handshakes clock by clock, so the
// design keeps running (the console emulates, the controller waits) while the host talks.
// Each call fails (returns -1) when a handshake takes more than `limit` clocks.
// Built with --savable: inst_save / inst_restore snapshot the whole model (every register and
// memory of the design, the bus inputs included) to memory, the harness's episode start state.
// Built with NC_TRACE defined (and --trace-fst): inst_trace records an FST waveform of every
// signal over a window of clocks (time 2c+1 after the rising edge of clock c, 2c+2 after the
// falling edge, c counted from the harness's start as inst_cycles counts).
// A clock edge (without NC_TRACE) runs the model's NBA region once and nothing else, as the
// console harness does (nba_edge in hwtools/cpp/mem_serialize.h, where the reasoning is): every input
// change below is followed by a full eval() before the next edge, so the input-combinational
// pass has nothing to do on an edge. Two full eval() calls per clock ran the console 2.5x
// slower (README, "console RTL speed"). The trace build keeps them (it dumps after each).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
#include "Vinstance.h"
#include "Vinstance___024root.h"
#include "verilated.h"
#ifdef NC_TRACE
#include "verilated_fst_c.h"
#endif

void Vinstance___024root___eval_nba(Vinstance___024root* vlSelf);

namespace {
struct Harness {
    VerilatedContext ctx;
    Vinstance* top;
    uint64_t cycles = 0;
    std::vector<uint8_t> snap;
#ifdef NC_TRACE
    VerilatedFstC* tfp = nullptr;
    bool traced = false;                     // one waveform per harness
    uint64_t trace_from = 0, trace_to = 0;   // clocks [trace_from, trace_to) are recorded
    void trace_close() {
        if (!tfp) return;
        tfp->close();
        delete tfp;
        tfp = nullptr;
    }
#endif
    Harness() {
#ifdef NC_TRACE
        ctx.traceEverOn(true);
#endif
        top = new Vinstance{&ctx};
        top->clk = 0;
        top->rst = 1;
        top->eval();
        edge();
        edge();
        top->rst = 0;
        top->eval();
    }
    ~Harness() {
#ifdef NC_TRACE
        trace_close();
#endif
        top->final();
        delete top;
    }
    inline void edge() {
#ifndef NC_TRACE
        // the NBA region alone (mem_serialize.h's nba_edge)
        nc2600::nba_edge<Vinstance___024root, Vinstance___024root___eval_nba>(top->rootp);
#else
        top->clk = 1;
        top->eval();
        const bool rec = tfp && cycles >= trace_from;
        if (rec) tfp->dump(2 * cycles + 1);
        top->clk = 0;
        top->eval();
        if (rec) {
            tfp->dump(2 * cycles + 2);
            if (cycles + 1 >= trace_to) trace_close();
        }
#endif
        ++cycles;
    }
};
}  // namespace

extern "C" {

void* inst_new() { return new Harness(); }

// Starts an FST waveform at `path` of clocks [now + after, now + after + n); returns 0, or -1
// when this build has no tracing (built without NC_TRACE), a waveform was started before (one
// per harness), or the file cannot be opened. The file is complete when the window has run, at
// inst_trace_stop, or when the harness is freed.
int inst_trace(void* p, const char* path, uint64_t after, uint64_t n) {
#ifdef NC_TRACE
    Harness* h = static_cast<Harness*>(p);
    if (h->traced) return -1;
    h->traced = true;
    h->tfp = new VerilatedFstC;
    h->top->trace(h->tfp, 99);
    h->tfp->open(path);
    if (!h->tfp->isOpen()) {
        delete h->tfp;
        h->tfp = nullptr;
        return -1;
    }
    h->trace_from = h->cycles + after;
    h->trace_to = h->trace_from + n;
    return 0;
#else
    (void)p; (void)path; (void)after; (void)n;
    return -1;
#endif
}

// Ends the waveform now (the file is complete).
void inst_trace_stop(void* p) {
#ifdef NC_TRACE
    static_cast<Harness*>(p)->trace_close();
#else
    (void)p;
#endif
}
void inst_free(void* p) { delete static_cast<Harness*>(p); }

uint64_t inst_cycles(void* p) { return static_cast<Harness*>(p)->cycles; }

// Serialises the whole model into the harness's buffer; returns its size in bytes.
uint64_t inst_save(void* p) {
    Harness* h = static_cast<Harness*>(p);
    return nc2600::save_model(h->snap, h->ctx, *h->top, nc2600::NoFields{});
}

// Copies the last inst_save buffer to `out` (inst_save's size bytes).
void inst_save_copy(void* p, uint8_t* out) {
    Harness* h = static_cast<Harness*>(p);
    std::memcpy(out, h->snap.data(), h->snap.size());
}

// Restores the model from `n` bytes an inst_save of the same build wrote (the harness's clock
// count is not part of it: it keeps counting the clocks this harness has run).
void inst_restore(void* p, const uint8_t* data, uint64_t n) {
    Harness* h = static_cast<Harness*>(p);
    nc2600::restore_model(data, n, h->ctx, *h->top, nc2600::NoFields{});
}

void inst_idle(void* p, uint64_t n) {
    Harness* h = static_cast<Harness*>(p);
    for (uint64_t i = 0; i < n; ++i) h->edge();
}

// One AXI4-Lite write; returns BRESP (0 OKAY, 2 SLVERR, 3 DECERR) or -1 on a timeout.
int inst_write(void* p, uint32_t addr, uint32_t data, int limit) {
    Harness* h = static_cast<Harness*>(p);
    Vinstance* t = h->top;
    t->bus___05Fawaddr = addr;
    t->bus___05Fawvalid = 1;
    t->bus___05Fwdata = data;
    t->bus___05Fwstrb = 0xF;
    t->bus___05Fwvalid = 1;
    t->bus___05Fbready = 1;
    t->eval();
    int n = 0;
    while (!(t->bus___05Fawready && t->bus___05Fwready)) {
        if (++n > limit) { t->bus___05Fawvalid = t->bus___05Fwvalid = 0; t->eval(); return -1; }
        h->edge();
    }
    h->edge();
    t->bus___05Fawvalid = 0;
    t->bus___05Fwvalid = 0;
    t->eval();
    n = 0;
    while (!t->bus___05Fbvalid) {
        if (++n > limit) return -1;
        h->edge();
    }
    int resp = t->bus___05Fbresp;
    h->edge();
    t->bus___05Fbready = 0;
    t->eval();
    return resp;
}

// One AXI4-Lite read into *out; returns RRESP or -1 on a timeout.
int inst_read(void* p, uint32_t addr, uint32_t* out, int limit) {
    Harness* h = static_cast<Harness*>(p);
    Vinstance* t = h->top;
    t->bus___05Faraddr = addr;
    t->bus___05Farvalid = 1;
    t->bus___05Frready = 1;
    t->eval();
    int n = 0;
    while (!t->bus___05Farready) {
        if (++n > limit) { t->bus___05Farvalid = 0; t->eval(); return -1; }
        h->edge();
    }
    h->edge();
    t->bus___05Farvalid = 0;
    t->eval();
    n = 0;
    while (!t->bus___05Frvalid) {
        if (++n > limit) return -1;
        h->edge();
    }
    *out = t->bus___05Frdata;
    int resp = t->bus___05Frresp;
    h->edge();
    t->bus___05Frready = 0;
    t->eval();
    return resp;
}

// Polls `addr` every `gap` idle clocks until (value & mask) == want; returns the value read, or
// -1 after `max_cycles` clocks, -2 on a bus error. (Speeds up the driver's wait loops; the bus
// traffic is what the same loop of single reads would make.)
int64_t inst_poll(void* p, uint32_t addr, uint32_t mask, uint32_t want, uint64_t gap, uint64_t max_cycles,
                  int limit) {
    Harness* h = static_cast<Harness*>(p);
    uint64_t start = h->cycles;
    for (;;) {
        uint32_t v = 0;
        int r = inst_read(p, addr, &v, limit);
        if (r != 0) return -2;
        if ((v & mask) == want) return v;
        if (h->cycles - start > max_cycles) return -1;
        inst_idle(p, gap);
    }
}

}  // extern "C"
