"""Run one instruction on ALE itself (ale-py 0.12), from the console's RAM.

ALE only runs cartridges it knows, so this loads pong and edits a saved state
(``cloneState().serialize()``): the CPU registers (the ``M6502Low`` section: A, X, Y, SP, IR,
PC as int32, then the flags N V B D I notZ C as ALE's bool words) and the 128 bytes of RIOT
RAM (the ``M6532`` section: a count of 128, then one int32 per byte). The code is put in
RAM at $80 followed by ``STA WSYNC ; JMP`` to that store, PC is set to $80, and one frame
is emulated (``act``): the instruction under test runs once, then the loop only writes
WSYNC until ALE ends the frame. Registers and RAM are read back from a new saved state.
"""
from __future__ import annotations

import struct

TRUE_WORD, FALSE_WORD = 0xFAB1FAB2, 0xBAD1BAD2


class AleExecutor:
    """One ALE instance that executes single instructions placed in RAM at $80."""

    def __init__(self):
        from ale_py import roms

        from nc2600.host.episodes.ale_oracle import open_ale
        self.ale = open_ale(roms.get_rom_path("pong"))
        self.base = self.ale.cloneState().serialize()
        self.cpu_at = self._cpu_offset(self.base)
        self.ram_at = self._ram_offset(self.base)

    @staticmethod
    def _cpu_offset(blob: bytes) -> int:
        i = blob.find(b"M6502Low")
        assert i > 0 and struct.unpack_from("<i", blob, i - 4)[0] == 8
        return i + 8

    @staticmethod
    def _ram_offset(blob: bytes) -> int:
        i = blob.find(b"M6532")
        assert i > 0 and struct.unpack_from("<i", blob, i + 5)[0] == 128
        return i + 9

    def run(self, code: list[int], a: int, x: int, y: int, sp: int, p: int, ram: list[int]):
        """Execute ``code`` (one instruction) at $80 with the registers and RAM ($80-$FF) given.

        ``ram`` is 128 bytes; the code and the loop overwrite its first ``len(code) + 5``.
        Returns ((a, x, y, sp, p), ram_after) with p read as ALE's PS() (bits 5, 4 set).
        """
        from ale_py import ALEState
        blob = bytearray(self.base)
        struct.pack_into("<6i", blob, self.cpu_at, a, x, y, sp, 0, 0x80)
        flags = (p >> 7 & 1, p >> 6 & 1, 1, p >> 3 & 1, p >> 2 & 1, 1 - (p >> 1 & 1), p & 1)
        struct.pack_into("<7I", blob, self.cpu_at + 24, *(TRUE_WORD if f else FALSE_WORD for f in flags))
        mem = list(ram)
        loop = 0x80 + len(code)
        program = list(code) + [0x85, 0x02, 0x4C, loop, 0x00]     # STA WSYNC ; JMP loop
        mem[:len(program)] = program
        struct.pack_into("<128i", blob, self.ram_at, *mem)
        self.ale.restoreState(ALEState(bytes(blob)))
        self.ale.act(0)
        out = self.ale.cloneState().serialize()
        c, r = self._cpu_offset(out), self._ram_offset(out)
        a, x, y, sp, _ir, pc = struct.unpack_from("<6i", out, c)
        assert pc in (loop, loop + 2), f"ALE did not reach the loop (PC=${pc:04X})"
        f = [w == TRUE_WORD for w in struct.unpack_from("<7I", out, c + 24)]
        p = f[0] << 7 | f[1] << 6 | 0x30 | f[3] << 3 | f[4] << 2 | (not f[5]) << 1 | f[6]
        return (a, x, y, sp, p), [v & 0xFF for v in struct.unpack_from("<128i", out, r)]
