"""Register tests generated from the register description (:data:`nc2600.hls_models.registers.INSTANCE`),
run over any AXI4-Lite master of the instance: the Verilated harness
(:class:`nc2600.hwtools.instance_harness.InstanceSim`, :func:`run_sync`) and cocotb with cocotbext-axi
(:func:`run_async`, ``tests/instance/cocotb_instance.py``).

The walk (:func:`walk`) starts from reset and checks, for every register of the description:

* every readable register with a reset value reads that value (``OKAY``);
* every read-write register: each field bit written alone (walking ones) and cleared alone from
  all ones (walking zeros) reads back exactly, bits no field covers read 0; then every entry of
  every read-write register is written with a distinct pattern and all are read back (no two
  addresses alias); fields with a ``write_check`` rule take only its legal values, and a value
  outside it answers ``SLVERR``, reads 0 and sets STATUS's error bit;
* write-only registers answer ``DECERR`` to a read; read-only ones ``DECERR`` to a write and keep
  their value; every address of the map with no register (and unaligned ones, and address
  bit 16) answers ``DECERR`` both ways; the memory windows read ``OKAY``;
* the CONTROL strobes self-clear: each acts once (start/manual without a ROM: ``SLVERR`` and
  ``err_no_rom``), the controller stays idle afterwards, and after ``clear_errors`` a new error
  sets its bit again.

The walk is a generator of bus operations, ``("read", addr)`` (answered with ``(data, resp)``),
``("write", addr, value)`` (answered with ``resp``) and ``("idle", clocks)``, so one definition
serves the synchronous harness and cocotb's coroutines. A failed check raises
``AssertionError`` naming the register, the field and the address.
"""
from __future__ import annotations

import re

from nc2600.hls_models.registers import ENUMS, INSTANCE as R

OKAY, SLVERR, DECERR = 0, 2, 3
RESP_NAMES = {0: "OKAY", 1: "EXOKAY", 2: "SLVERR", 3: "DECERR"}
#: addresses beyond the map that must answer DECERR: past the last register, address bit 16
#: (never decoded), the top of the instance's window
OUTSIDE = (R.size, R.size + 0x100, 0x10000, 0x10000 + R.STATUS.offset, 0x1FFFC)


def _check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def _read(addr):
    return (yield ("read", addr))


def _write(addr, value):
    return (yield ("write", addr, value))


def _expect_read(addr, what, want=None, resp=OKAY):
    data, r = yield ("read", addr)
    _check(r == resp, f"{what} @0x{addr:05x}: read answered {RESP_NAMES.get(r, r)}, expected {RESP_NAMES[resp]}")
    if want is not None:
        _check(data == want, f"{what} @0x{addr:05x}: read 0x{data:08x}, expected 0x{want:08x}")
    return data


def _expect_write(addr, value, what, resp=OKAY):
    r = yield ("write", addr, value)
    _check(r == resp, f"{what} @0x{addr:05x}: write of 0x{value:08x} answered {RESP_NAMES.get(r, r)}, "
                      f"expected {RESP_NAMES[resp]}")


def legal_values(field) -> tuple[list[int], list[int]]:
    """A ``write_check`` field's legal and illegal test values, from its rule
    ``"a multiple of M in LO..HI"``.

    Raises:
        ValueError: the rule is not in that form.
    """
    m = re.fullmatch(r"a multiple of (\d+) in (\d+)\.\.(\d+)", field.write_check or "")
    if not m:
        raise ValueError(f"{field.register}.{field.name}: write_check {field.write_check!r} "
                         "is not 'a multiple of M in LO..HI'")
    step, lo, hi = map(int, m.groups())
    legal = list(range(lo, hi + 1, step))
    illegal = sorted({v for v in (0, 1, step - 1, step + 1, lo - step, hi + step, hi + 1, field.mask >> field.lsb)
                      if 0 <= v <= field.mask >> field.lsb and v not in legal})
    return legal, illegal


def _rw_registers():
    return [r for r in R if r.access == "rw" and not r.memory_window]


def _plain(reg) -> bool:
    """A read-write register whose every write is stored as it is (no checked field)."""
    return not any(f.write_check for f in reg.fields)


def _status_error_mask() -> int:
    m = 0
    for f in R.STATUS.fields:
        if f.name.startswith("err_"):
            m |= f.mask
    return m


def walk(arrays: str = "all", unaligned: bool = True):
    """The register walk (see module doc), as a generator of bus operations.

    Args:
        arrays: ``"all"`` walks every entry of an array register bit by bit; ``"ends"`` only its
            first and last entries (every entry still gets the reset, alias and access checks).
        unaligned: also check that unaligned addresses answer DECERR (a master that issues them
            as they are, like the Verilated harness; cocotbext-axi's master splits an unaligned
            access into aligned word accesses with byte strobes, so its walk leaves them out).
    Returns (as the generator's value): the number of checks made.
    """
    n = 0
    mapped = set()
    for reg in R:
        mapped.update(reg.addresses)
    # -- reset values ------------------------------------------------------------------------
    for reg in R:
        if reg.readable and reg.reset is not None:
            for i, a in enumerate(reg.addresses):
                yield from _expect_read(a, f"{reg.name}[{i}] reset value", reg.reset)
                n += 1
    # -- access: write-only, read-only, memory windows, gaps -------------------------------
    for reg in R:
        for i, a in enumerate(reg.addresses):
            what = f"{reg.name}[{i}]"
            if not reg.readable:
                yield from _expect_read(a, f"{what} (write-only)", resp=DECERR)
                n += 1
            if not reg.writable:
                before = yield from _expect_read(a, what)
                yield from _expect_write(a, ~before & 0xFFFFFFFF, f"{what} (read-only)", resp=DECERR)
                if reg.reset is not None:
                    yield from _expect_read(a, f"{what} after a refused write", reg.reset)
                n += 2
    gaps = [a for a in range(0, R.size, 4) if a not in mapped]
    odd = [R.EP_CFG.offset + 2, R.ACTION_TABLE.offset + 1, R.STATUS.offset + 3] if unaligned else []
    for a in gaps + odd + list(OUTSIDE):
        yield from _expect_read(a, "no register", resp=DECERR)
        yield from _expect_write(a, 0xFFFFFFFF, "no register", resp=DECERR)
        n += 2
    # -- read-write registers: walking ones and zeros per field bit -------------------------
    for reg in _rw_registers():
        if not _plain(reg):
            continue
        entries = range(reg.count) if arrays == "all" or reg.count <= 2 else (0, reg.count - 1)
        for i in entries:
            a = reg.address(i)
            for f in reg.fields:
                for bit in range(f.lsb, f.msb + 1):
                    what = f"{reg.name}[{i}].{f.name} bit {bit}"
                    yield from _expect_write(a, 1 << bit, f"{what} (walking one)")
                    yield from _expect_read(a, f"{what} (walking one)", 1 << bit)
                    yield from _expect_write(a, 0xFFFFFFFF & ~(1 << bit), f"{what} (walking zero)")
                    yield from _expect_read(a, f"{what} (walking zero)", reg.mask & ~(1 << bit))
                    n += 2
            yield from _expect_write(a, 0xFFFFFFFF, f"{reg.name}[{i}] all ones")
            yield from _expect_read(a, f"{reg.name}[{i}] all ones (bits of no field read 0)", reg.mask)
            yield from _expect_write(a, reg.reset, f"{reg.name}[{i}] back to reset")
            n += 1
    # -- no aliasing: a distinct pattern in every read-write entry, all read back -------------
    pattern = {}
    for reg in _rw_registers():
        if not _plain(reg):
            continue
        for i, a in enumerate(reg.addresses):
            pattern[a] = ((a * 0x9E3779B1) >> 3 ^ 0x5A5A5A5A) & reg.mask
            yield from _expect_write(a, pattern[a], f"{reg.name}[{i}] pattern")
    for a, want in pattern.items():
        reg, i = R.at(a)
        yield from _expect_read(a, f"{reg.name}[{i}] pattern (aliasing)", want)
        n += 1
    for a in pattern:
        reg, i = R.at(a)
        yield from _expect_write(a, reg.reset, f"{reg.name}[{i}] back to reset")
    # -- checked fields: legal values stored, illegal ones SLVERR + error bit, read 0 -------
    errors = _status_error_mask()
    for reg in _rw_registers():
        for f in (f for f in reg.fields if f.write_check):
            legal, illegal = legal_values(f)
            for v in legal:
                yield from _expect_write(reg.address(), v << f.lsb, f"{reg.name}.{f.name} = {v} (legal)")
                yield from _expect_read(reg.address(), f"{reg.name}.{f.name} = {v}", v << f.lsb)
                n += 1
            for v in illegal:
                yield from _expect_write(reg.address(), v << f.lsb, f"{reg.name}.{f.name} = {v} (illegal)",
                                         resp=SLVERR)
                yield from _expect_read(reg.address(), f"{reg.name}.{f.name} after {v}", 0)
                st = yield from _expect_read(R.STATUS.offset, "STATUS")
                _check(st & errors, f"{reg.name}.{f.name} = {v}: SLVERR without a STATUS error bit (0x{st:08x})")
                yield from _expect_write(R.CONTROL.offset, R.CONTROL.pack(clear_errors=1), "CONTROL.clear_errors")
                n += 2
            yield from _expect_write(reg.address(), reg.reset, f"{reg.name} back to reset",
                                     resp=OKAY if legal_ok(f, reg.reset) else SLVERR)
            yield from _expect_write(R.CONTROL.offset, R.CONTROL.pack(clear_errors=1), "CONTROL.clear_errors")
    n += yield from _control_strobes()
    # -- memory windows read OKAY ------------------------------------------------------------
    for reg in R:
        if reg.memory_window:
            for i, a in enumerate(reg.addresses):
                yield from _expect_read(a, f"{reg.name}[{i}]")
                n += 1
    return n


def legal_ok(field, word) -> bool:
    legal, _ = legal_values(field)
    return field.get(word) in legal


def _control_strobes():
    """CONTROL's singlepulse fields act once and self-clear (see module doc)."""
    n = 0
    state = R.STATUS.state
    idle = ENUMS["ctrl_state_e"].IDLE
    st_addr, ctl = R.STATUS.offset, R.CONTROL.offset
    no_rom = R.STATUS.err_no_rom
    for f in R.CONTROL.fields:
        _check(f.singlepulse, f"CONTROL.{f.name}: a strobe must be singlepulse in the description")
        needs_rom = f.name in ("start", "manual")
        yield from _expect_write(ctl, R.CONTROL.pack(**{f.name: 1}), f"CONTROL.{f.name}",
                                 resp=SLVERR if needs_rom else OKAY)
        yield ("idle", 16)
        st = yield from _expect_read(st_addr, f"STATUS after CONTROL.{f.name}")
        _check(state.get(st) == idle, f"CONTROL.{f.name}: the controller left IDLE (STATUS 0x{st:08x})")
        if needs_rom:
            _check(no_rom.get(st) == 1, f"CONTROL.{f.name} without a ROM: err_no_rom not set (0x{st:08x})")
            yield from _expect_write(ctl, R.CONTROL.pack(clear_errors=1), "CONTROL.clear_errors")
        st = yield from _expect_read(st_addr, f"STATUS after CONTROL.{f.name}")
        _check(st & _status_error_mask() == 0, f"CONTROL.{f.name}: error bits left set (0x{st:08x})")
        n += 2
    # clear_errors is a pulse: an error after it sets its bit again
    yield from _expect_write(ctl, R.CONTROL.pack(start=1), "CONTROL.start without a ROM", resp=SLVERR)
    st = yield from _expect_read(st_addr, "STATUS after clear_errors and a new error")
    _check(no_rom.get(st) == 1, f"err_no_rom not set after clear_errors (clear held?) 0x{st:08x}")
    yield from _expect_write(ctl, R.CONTROL.pack(clear_errors=1), "CONTROL.clear_errors")
    yield from _expect_read(st_addr, "STATUS after clear_errors", R.STATUS.reset)
    return n + 2


def run_sync(mmio, arrays: str = "all", unaligned: bool = True) -> int:
    """Run :func:`walk` on a synchronous MMIO object (``read``/``write`` raising an error with a
    ``resp`` attribute on SLVERR/DECERR, ``idle(clocks)``); returns the number of checks."""
    gen = walk(arrays, unaligned)
    answer = None
    while True:
        try:
            op = gen.send(answer)
        except StopIteration as stop:
            return stop.value
        if op[0] == "read":
            try:
                answer = (mmio.read(op[1]), OKAY)
            except RuntimeError as e:
                if not hasattr(e, "resp"):
                    raise
                answer = (None, e.resp)
        elif op[0] == "write":
            try:
                mmio.write(op[1], op[2])
                answer = OKAY
            except RuntimeError as e:
                if not hasattr(e, "resp"):
                    raise
                answer = e.resp
        else:
            mmio.idle(op[1])
            answer = None


async def run_async(read, write, idle, arrays: str = "all", unaligned: bool = False) -> int:
    """Run :func:`walk` with coroutines: ``await read(addr) -> (data, resp)``,
    ``await write(addr, value) -> resp``, ``await idle(clocks)``; returns the number of checks
    (unaligned addresses left out by default: see :func:`walk`)."""
    gen = walk(arrays, unaligned)
    answer = None
    while True:
        try:
            op = gen.send(answer)
        except StopIteration as stop:
            return stop.value
        if op[0] == "read":
            answer = await read(op[1])
        elif op[0] == "write":
            answer = await write(op[1], op[2])
        else:
            await idle(op[1])
            answer = None
