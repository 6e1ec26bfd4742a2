// What the harnesses built with --savable share (hwtools/verilator_build.py prepends this text to
// a harness's source: MEM_SERIALIZE_H): Verilator's (de)serialiser to and from memory
// (VerilatedSave / VerilatedRestore write and read a file descriptor; these keep the snapshot in
// a byte vector), the save and restore of a whole model with the harness's own fields
// (save_model, restore_model), and the clock edge that runs the model's NBA region alone
// (nba_edge).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
#include "verilated.h"
#include "verilated_save.h"

namespace nc2600 {
// Verilator's serialiser into a byte vector (VerilatedSave writes a file descriptor).
struct MemSave final : VerilatedSerialize {
    std::vector<uint8_t>& out;
    explicit MemSave(std::vector<uint8_t>& o) : out(o) {
        out.clear();
        m_isOpen = true;
        header();
    }
    void flush() override {
        out.insert(out.end(), m_bufp, m_cp);
        m_cp = m_bufp;
    }
    void close() override {
        if (!m_isOpen) return;
        trailer();
        flush();
        m_isOpen = false;
    }
    ~MemSave() override { close(); }
};

// Verilator's deserialiser from a byte range (VerilatedRestore reads a file descriptor).
struct MemRestore final : VerilatedDeserialize {
    const uint8_t* src;
    size_t left;
    MemRestore(const uint8_t* p, size_t n) : src(p), left(n) {
        m_isOpen = true;
        m_cp = m_endp = m_bufp;
        header();
    }
    void fill() override {
        uint8_t* rp = m_bufp;
        for (const uint8_t* sp = m_cp; sp < m_endp; *rp++ = *sp++) {}
        m_endp = m_bufp + (m_endp - m_cp);
        m_cp = m_bufp;
        size_t n = std::min(left, static_cast<size_t>(m_bufp + bufferSize() - m_endp));
        std::memcpy(m_endp, src, n);
        src += n;
        left -= n;
        m_endp += n;
        while (m_endp < m_bufp + bufferSize()) *m_endp++ = 0;
    }
    void close() override {
        if (!m_isOpen) return;
        trailer();
        m_isOpen = false;
    }
    ~MemRestore() override { close(); }
};

// Serialises the context, the model `top` and the harness's own fields into `snap` (cleared
// first); returns its size in bytes. `each_field(f)` calls f(pointer, bytes) once per field, in
// the same order as for restore_model.
template <typename Top, typename Fields>
uint64_t save_model(std::vector<uint8_t>& snap, VerilatedContext& ctx, Top& top, Fields each_field) {
    {
        MemSave os(snap);
        VerilatedSerialize& s = os;
        s << &ctx << top;
        each_field([&](void* d, size_t n) { s.write(d, n); });
    }
    return snap.size();
}

// Restores what save_model wrote (`n` bytes at `data`, from a build of the same model and
// harness), then settles the model's combinational logic with eval().
template <typename Top, typename Fields>
void restore_model(const uint8_t* data, uint64_t n, VerilatedContext& ctx, Top& top, Fields each_field) {
    {
        MemRestore is(data, n);
        VerilatedDeserialize& d = is;
        d >> &ctx >> top;
        each_field([&](void* q, size_t m) { d.read(q, m); });
    }
    top.eval();
}

// For a harness without fields of its own.
struct NoFields {
    template <typename F>
    void operator()(F&&) const {}
};

// One rising edge of `clk` on the model's root `r`, as the NBA region alone: the design has one
// clock and no other trigger, so the edge's act phase only ever sets trigger bit 0 (clk rose)
// and one NBA pass settles it; the input-combinational pass has nothing to do when every input
// change was followed by a full eval() (the harnesses' rule). Calling the NBA body directly
// saves the phase functions and trigger bookkeeping (about 7 % of the console's time per frame,
// measured; two full eval() calls per clock ran it 2.5x slower). Relies on the pinned
// Verilator's (5.48) generated names and trigger layout; the lockstep tests check the result.
template <typename Root, void (*EvalNba)(Root*)>
inline void nba_edge(Root* r) {
    r->clk = 1;
    r->__VnbaTriggered[0] = 1;
    EvalNba(r);
    r->__VnbaTriggered[0] = 0;
    r->clk = 0;
    r->__Vtrigprevexpr___TOP__clk__0 = 0;
}
}  // namespace nc2600

