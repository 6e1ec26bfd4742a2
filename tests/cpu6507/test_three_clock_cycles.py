"""The console's CPU configuration (``Cpu6507(clocks_per_cycle=3)``, ``ce`` every third clock) against
ALE's reference model (``nc2600.hls_models.cpu6507``): the pipelined operation unit must give every
write (stores of A/X, PHP's status byte, RMW results) the model gives, on random programs of
the operations it pipelines (ADC/SBC in both decimal and binary mode with random operands and
carries, compares, ARR/ANC/ALR/SBX/LAX, shifts and RMW, transfers, INC/DEC, branches on the flags)
and of the registered address sums (indexed and (zp),Y reads across pages, PHA/PLA/TXS/PHP).

Amaranth's own simulator runs the core; memory is a Python dict served at each clock.
"""
from __future__ import annotations

import random

import pytest
from amaranth.sim import Simulator

from nc2600.hls_models.cpu6507 import Cpu6507Model
from nc2600.hw.cpu6507 import Cpu6507

ORG = 0x1000


def _program(rng: random.Random, n: int) -> list[int]:
    """n random operations, each followed by PHP and stores of A and X to zero page."""
    code: list[int] = []
    for i in range(n):
        if rng.random() < 0.25:
            code += [rng.choice([0x18, 0x38]), rng.choice([0xF8, 0xD8])]   # CLC/SEC, SED/CLD
        v = rng.randrange(256)
        zp = 0x80 + rng.randrange(16)
        op = rng.choice([
            [0xA9, v], [0x69, v], [0xE9, v], [0x65, zp], [0xE5, zp], [0xC9, v], [0xE0, v], [0xC0, v],
            [0x6B, v], [0x0B, v], [0x4B, v], [0xCB, v], [0xA7, zp], [0x2A], [0x6A], [0x0A], [0x4A],
            [0x26, zp], [0x66, zp], [0xE6, zp], [0xC6, zp], [0x67, zp], [0xE7, zp], [0x07, zp],
            [0xAA], [0xA8], [0x8A], [0x98], [0xE8], [0xC8], [0xCA], [0x88], [0x24, zp], [0xA2, v],
            [0xA0, v], [0x29, v], [0x09, v], [0x49, v], [0xB8],
            # indexed and indirect reads (page crossings), zero-page stores, the stack
            [0xB5, zp], [0xB9, v, rng.randrange(256)], [0x3D, v, rng.randrange(256)], [0xB1, zp], [0x95, zp],
            [0xFE, zp, 0x00], [0x48], [0x68], [0x9A],
        ])
        code += op
        branch = rng.choice([0x10, 0x30, 0x50, 0x70, 0x90, 0xB0, 0xD0, 0xF0])
        code += [branch, 0x00]                                  # taken or not, to the next byte
        code += [0x08, 0x85, 0x90 + (i % 16), 0x86, 0xA0 + (i % 16)]   # PHP, STA zp, STX zp
    return code + [0x4C, 0xFF, 0x1F]   # JMP $1FFF (stop marker)


def _model_writes(mem: bytearray, insns: int) -> list[tuple[int, int]]:
    cpu = Cpu6507Model(mem)
    cpu.reset()
    writes = []
    for _ in range(insns):
        if cpu.pc == 0x1FFF:
            break
        cpu.step()
        writes += cpu.writes
    return writes


def _rtl_writes(mem: bytearray, max_clocks: int, dut=None, trace: list | None = None,
                flags: list | None = None) -> list[tuple[int, int]]:
    """The core's writes (address, value); ``dut`` default ``Cpu6507(clocks_per_cycle=3)`` with
    ce every third clock, else ce on every clock; ``trace`` gets (addr, rw, sync, dummy, dout
    of a write) at every edge; ``flags`` (three clocks per cycle) gets (write, rw, dummy,
    write_addr == addr) at every clock."""
    every = 3 if dut is None else 1
    dut = Cpu6507(clocks_per_cycle=3) if dut is None else dut
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    mem = bytearray(mem)
    writes = []

    async def bench(ctx):
        ce = 0
        for clk in range(max_clocks):
            ce = int(clk % every == every - 1)
            ctx.set(dut.ce, ce)
            addr = ctx.get(dut.addr)
            if addr == 0x1FFF and ctx.get(dut.sync):
                break
            if ce and trace is not None:
                rw = ctx.get(dut.rw)
                trace.append((addr, rw, ctx.get(dut.sync), ctx.get(dut.dummy), None if rw else ctx.get(dut.dout)))
            if flags is not None:
                flags.append((ctx.get(dut.write), ctx.get(dut.rw), ctx.get(dut.dummy),
                              ctx.get(dut.write_addr) == addr))
            ctx.set(dut.din, mem[addr])
            if ce and not ctx.get(dut.rw) and not ctx.get(dut.dummy):
                value = ctx.get(dut.dout)
                writes.append((addr, value))
                mem[addr] = value
            elif ce and not ctx.get(dut.rw):
                mem[addr] = ctx.get(dut.dout)
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    return writes


def _memory_and_model_writes(seed: int) -> tuple[bytearray, list[tuple[int, int]]]:
    """A random 64 KiB memory holding :func:`_program`'s 60 operations at ORG (reset vector to
    it), and the writes ALE's model makes running it."""
    rng = random.Random(seed)
    code = _program(rng, 60)
    mem = bytearray(rng.randrange(256) for _ in range(65536))
    mem[ORG:ORG + len(code)] = bytes(code)
    mem[0xFFFC], mem[0xFFFD] = ORG & 0xFF, ORG >> 8
    return mem, _model_writes(bytearray(mem), 100_000)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_three_clock_cycles_match_ale_model(seed):
    mem, expected = _memory_and_model_writes(seed)
    got = _rtl_writes(mem, 3 * 10 * 60 * 12)
    assert len(expected) > 150
    assert got == expected


@pytest.mark.parametrize("seed", [7, 8])
def test_three_clock_write_flag_is_rw_low_and_not_dummy_at_every_clock(seed):
    # the write output (from the state and a registered copy of the decode) against R/W and the
    # dummy mark at every clock, and the write address against the bus address at every clock
    # with R/W low, on the random programs (stores, RMW's two writes, PHA/PHP), while the core's
    # writes stay ALE's model's
    mem, expected = _memory_and_model_writes(seed)
    flags = []
    got = _rtl_writes(mem, 3 * 10 * 60 * 12, flags=flags)
    assert got == expected and len(expected) > 150
    assert sum(1 for w, *_ in flags if w) > 3 * 150           # write cycles last three clocks
    assert sum(1 for _, rw, dummy, _ in flags if not rw and dummy) > 0   # RMW's first writes seen
    assert [w for w, *_ in flags] == [int(not rw and not dummy) for _, rw, dummy, _ in flags]
    assert all(same for _, rw, _, same in flags if not rw)
    assert not all(same for *_, same in flags)           # elsewhere it need not be the address


def test_three_clock_write_address_on_jsr_and_brk_pushes():
    # JSR's and BRK's pushes write on the stack page; a store after them writes at its own
    # address: the write address equals the bus address at every write clock
    code = [0xA2, 0x7F, 0x9A,                 # LDX #$7F, TXS
            0x20, 0x10, 0x10,                 # JSR $1010
            0x00, 0xEA]                       # (BRK at $1006 after the return)
    mem = bytearray(65536)
    mem[ORG:ORG + len(code)] = bytes(code)
    mem[0x1010:0x1014] = bytes([0x85, 0x42, 0x60, 0xEA])    # STA $42, RTS
    mem[0xFFFC], mem[0xFFFD] = ORG & 0xFF, ORG >> 8
    mem[0xFFFE], mem[0xFFFF] = 0xFF, 0x1F                   # BRK's vector: $1FFF (stop)
    flags = []
    got = _rtl_writes(mem, 3 * 60, flags=flags)
    assert got == _model_writes(bytearray(mem), 20)
    assert [a for a, _ in got] == [0x17F, 0x17E, 0x42, 0x17F, 0x17E, 0x17D]   # JSR, STA, BRK
    assert all(same for _, rw, _, same in flags if not rw)


@pytest.mark.parametrize("seed,stages", [(4, 1), (5, 1), (4, 2), (5, 2), (6, 2)])
def test_staged_operations_match_ale_model_and_the_unstaged_bus(seed, stages):
    # Cpu6507(staged_ops=1 or 2), one cycle per clock (the three-colour-clock console's CPU): the
    # model's writes, and the unstaged core's bus (address, R/W, SYNC, dummy mark, written
    # value) at every edge, on the same random programs (two stages: the branches right after
    # an operation take its flags by forwarding)
    mem, expected = _memory_and_model_writes(seed)
    staged, plain = [], []
    got = _rtl_writes(mem, 10 * 60 * 12, Cpu6507(staged_ops=stages), staged)
    assert len(expected) > 150
    assert got == expected
    _rtl_writes(mem, 10 * 60 * 12, Cpu6507(), plain)
    assert len(staged) > 500 and staged == plain


def test_three_clock_cycles_rejects_bad_configuration():
    with pytest.raises(ValueError, match="clocks_per_cycle"):
        Cpu6507(clocks_per_cycle=2)
    with pytest.raises(ValueError, match="ALE's decimal rule"):
        Cpu6507(decimal="nmos", clocks_per_cycle=3)
    with pytest.raises(ValueError, match="staged_ops is for clocks_per_cycle=1"):
        Cpu6507(clocks_per_cycle=3, staged_ops=True)
    with pytest.raises(ValueError, match="staged_ops must be"):
        Cpu6507(staged_ops=3)
    with pytest.raises(ValueError, match="staged_ops=2 implements ALE's decimal rule only"):
        Cpu6507(decimal="nmos", staged_ops=2)
