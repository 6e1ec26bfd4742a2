// Verilator's (de)serialiser to and from memory, shared by the harnesses built with --savable
// (hwtools/verilator_build.py prepends this text to a harness's source: MEM_SERIALIZE_H).
// VerilatedSave / VerilatedRestore write and read a file descriptor; these keep the snapshot in
// a byte vector, so that a harness can save its model's whole state and restore it in memory.
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
}  // namespace nc2600

