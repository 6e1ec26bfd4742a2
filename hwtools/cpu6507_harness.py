"""Fast Verilator harness of the 6507 core: a C++ loop with a flat 64 KiB memory, driven by ctypes.

The Verilog comes from :func:`nc2600.hw.cpu6507.generate`, the loop from
``hwtools/cpp/cpu6507_harness.cpp``; :func:`nc2600.hwtools.verilator_build.build_shared_lib` caches the
build by content hash, so only the first use in a checkout compiles (about a minute).

One CPU cycle = one clock edge with ``ce = rdy = 1`` (the harness never stalls the
core; CE and RDY are exercised in Amaranth's simulator, tests/cpu6507/test_bus_cycles.py).
A call to :meth:`Cpu6507Sim.run` runs millions of cycles in C++: about 27 M CPU
cycles per CPU-second on this project's reference machine (``python -m nc2600.hwtools.cpu6507_harness``
prints the figure).

Memory written from Python (``memory``) is seen by the core from its next cycle; a byte
at the address of the cycle it stopped on is re-read when a run starts at an instruction
boundary (the usual case: runs stop at instruction boundaries unless the cycle limit
ends them mid-instruction).

Example::

    h = Cpu6507Sim()
    h.memory[0x1000:0x1003] = [0x4C, 0x00, 0x10]     # JMP $1000
    h.load_state(pc=0x1000)
    r = h.run(max_cycles=100, stop_on_trap=True)    # RunResult(stop='trap', cycles=3, ...)
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nc2600.hls_models.cpu6507 import Cpu6507Registers
from nc2600.hwtools.verilator_build import VerilatedModel

HARNESS_CPP = Path(__file__).resolve().parent / "cpp" / "cpu6507_harness.cpp"

#: Simulation wrapper (not part of rtl/): the core with ce = rdy = 1, its memory served by
#: the C++ harness through DPI imports, and load/reset taken from a control word that the
#: harness returns at every rising edge. The clock is the model's only input, so Verilator
#: evaluates the logic once per edge (see hwtools/cpp/cpu6507_harness.cpp).
SIM_WRAPPER = """
module cpu6507_sim(clk, addr, dout, din_o, rw, sync, dummy, jammed, st_a, st_x, st_y, st_sp, st_p, st_pc);
  import "DPI-C" pure function int cpu6507_sim_read(input int addr);
  import "DPI-C" function void cpu6507_sim_write(input int addr, input int data);
  import "DPI-C" function longint cpu6507_sim_control();
  input clk;
  output [15:0] addr;
  output [7:0] dout, din_o;
  output rw, sync, dummy, jammed;
  output [7:0] st_a, st_x, st_y, st_sp, st_p;
  output [15:0] st_pc;
  // control word from the harness, latched at every rising edge:
  // [0] load_en, [1] rst, [9:2] a, [17:10] x, [25:18] y, [33:26] sp, [41:34] p, [57:42] pc
  reg [63:0] ctl = 64'd0;
  wire [31:0] rdata = cpu6507_sim_read({16'b0, addr});
  assign din_o = rdata[7:0];
  cpu6507 cpu(.clk(clk), .rst(ctl[1]), .ce(1'b1), .rdy(1'b1), .din(rdata[7:0]), .addr(addr), .dout(dout),
    .rw(rw), .sync(sync), .dummy(dummy), .jammed(jammed), .load_en(ctl[0]), .load__a(ctl[9:2]),
    .load__x(ctl[17:10]), .load__y(ctl[25:18]), .load__sp(ctl[33:26]), .load__p(ctl[41:34]),
    .load__pc(ctl[57:42]), .state__a(st_a), .state__x(st_x), .state__y(st_y), .state__sp(st_sp),
    .state__p(st_p), .state__pc(st_pc));
  always @(posedge clk) begin
    if (!rw && ctl[1:0] == 2'b00) cpu6507_sim_write({16'b0, addr}, {24'b0, dout});
    ctl <= cpu6507_sim_control();
  end
endmodule
"""
STOP_REASONS = ("limit", "instructions", "trap", "jam")

_LIBS: dict[str, ctypes.CDLL] = {}


def build(decimal: str = "ale") -> Path:
    """Build (or find in the cache) the harness library; returns its path."""
    from nc2600.hw.cpu6507 import generate
    from nc2600.hwtools.verilator_build import build_shared_lib
    verilog = generate(decimal=decimal)["cpu6507.v"] + SIM_WRAPPER
    return build_shared_lib(f"cpu6507_{decimal}", verilog, "cpu6507_sim", HARNESS_CPP.read_text(),
                            extra_verilator_args=("-sv", "-CFLAGS", "-O3"))


def _library(decimal: str) -> ctypes.CDLL:
    lib = _LIBS.get(decimal)
    if lib is None:
        lib = ctypes.CDLL(str(build(decimal)))
        vp, u64, i32 = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int
        lib.cpu_new.restype = vp
        lib.cpu_free.argtypes = [vp]
        lib.cpu_mem.restype = ctypes.POINTER(ctypes.c_uint8)
        lib.cpu_mem.argtypes = [vp]
        lib.cpu_reset.argtypes = [vp]
        lib.cpu_load_state.argtypes = [vp, i32, i32, i32, i32, i32, i32]
        lib.cpu_get_state.argtypes = [vp, ctypes.POINTER(ctypes.c_int32)]
        lib.cpu_set_log.argtypes = [vp, ctypes.c_void_p, u64, i32]
        lib.cpu_log_count.restype = u64
        lib.cpu_log_count.argtypes = [vp]
        lib.cpu_run.restype = i32
        lib.cpu_run.argtypes = [vp, u64, u64, i32, ctypes.POINTER(u64), ctypes.POINTER(u64)]
        _LIBS[decimal] = lib
    return lib


@dataclass
class RunResult:
    """Outcome of :meth:`Cpu6507Sim.run`.

    stop: ``"limit"`` (cycle limit), ``"instructions"`` (instruction limit), ``"trap"``
    (a ``JMP`` to its own address was executed, its cycles counted) or ``"jam"``.
    cycles: CPU cycles run by this call; instructions: opcode fetches by this call.
    """
    stop: str
    cycles: int
    instructions: int


@dataclass
class BusCycle:
    """One logged bus cycle: address, data byte, read (else write), dummy, opcode fetch."""
    addr: int
    data: int
    read: bool
    dummy: bool
    sync: bool


class Cpu6507Sim(VerilatedModel):
    """The RTL 6507 (Verilated) with a flat 64 KiB RAM, for tests, ``cpu-run`` and benchmarks.

    Several harnesses may exist in one process, but calls must not run concurrently from
    several threads (the C++ memory hooks of the Verilated model are process-global).

    Args:
        decimal: ``"ale"`` (default) or ``"nmos"``: which core to build.

    Attributes:
        memory: ``numpy.ndarray`` of 65536 uint8, the RAM the CPU sees (a view of the C++
            array: writes from Python are seen by the CPU and the CPU's writes appear here).
    """

    def __init__(self, decimal: str = "ale"):
        self._lib = _library(decimal)
        self._h = self._lib.cpu_new()
        ptr = self._lib.cpu_mem(self._h)
        self.memory = np.ctypeslib.as_array(ptr, shape=(65536,))
        self._log_buf = None
        self._state_buf = (ctypes.c_int32 * 8)()

    FREE = "cpu_free"

    def close(self) -> None:
        """Free the C++ model (also done on garbage collection); ``memory`` goes with it."""
        if getattr(self, "_h", None):
            self.memory = None
        super().close()

    def reset(self) -> None:
        """Pulse RES: registers take ALE's reset values; the next 2 cycles read $FFFC/$FFFD."""
        self._lib.cpu_reset(self._h)

    def load_state(self, a: int = 0, x: int = 0, y: int = 0, sp: int = 0xFF, p: int = 0x20,
                   pc: int = 0) -> None:
        """Set the registers (bytes; pc 16 bits); the next cycle is an opcode fetch at pc."""
        self._lib.cpu_load_state(self._h, a, x, y, sp, p, pc)

    def state(self) -> tuple[Cpu6507Registers, bool]:
        """Current registers (p with bits 5 and 4 set) and whether the core is jammed."""
        s = self._state_buf
        self._lib.cpu_get_state(self._h, s)
        return Cpu6507Registers(s[0], s[1], s[2], s[3], s[4], s[5]), bool(s[6])

    def set_log(self, capacity: int, mode: str = "writes") -> None:
        """Log bus cycles of the following runs: ``"writes"`` or ``"all"``; capacity entries."""
        if capacity <= 0:
            self._log_buf = None
            self._lib.cpu_set_log(self._h, None, 0, 0)
            return
        if mode not in ("writes", "all"):
            raise ValueError(f"mode must be 'writes' or 'all', got {mode!r}")
        self._log_buf = np.zeros(capacity, dtype=np.uint32)
        self._log_mode = 1 if mode == "writes" else 2
        self._lib.cpu_set_log(self._h, self._log_buf.ctypes.data, capacity, self._log_mode)

    def log_raw(self) -> np.ndarray:
        """Logged entries (uint32: addr | data<<16 | read<<24 | dummy<<25 | sync<<26); clears the log."""
        if self._log_buf is None:
            return np.zeros(0, dtype=np.uint32)
        n = int(self._lib.cpu_log_count(self._h))
        out = self._log_buf[:n].copy()
        self._lib.cpu_set_log(self._h, self._log_buf.ctypes.data, len(self._log_buf), self._log_mode)
        return out

    def log(self) -> list[BusCycle]:
        """Logged bus cycles since the last call, decoded."""
        return [BusCycle(int(e) & 0xFFFF, (int(e) >> 16) & 0xFF, bool(e >> 24 & 1), bool(e >> 25 & 1),
                         bool(e >> 26 & 1)) for e in self.log_raw()]

    def run(self, max_cycles: int, max_instructions: int = 0, stop_on_trap: bool = False) -> RunResult:
        """Run the core in C++ until a stop condition (see :class:`RunResult`).

        Args:
            max_cycles: cycle limit of this call.
            max_instructions: stop before the fetch of instruction ``max_instructions + 1``
                (0: no limit).
            stop_on_trap: stop after executing a ``JMP abs`` whose target is itself.
        """
        cycles = ctypes.c_uint64(0)
        instructions = ctypes.c_uint64(0)
        reason = self._lib.cpu_run(self._h, max_cycles, max_instructions, int(stop_on_trap),
                                   ctypes.byref(cycles), ctypes.byref(instructions))
        return RunResult(STOP_REASONS[reason], cycles.value, instructions.value)


#: Benchmark program: a loop of zp,X load, ADC #, abs,Y store, INX, INY, BNE, JMP
#: (a mix of 2- to 5-cycle instructions, 3 cycles per instruction on average).
BENCH_PROGRAM = (0x1000, [0xB5, 0x80, 0x69, 0x01, 0x99, 0x00, 0x02, 0xE8, 0xC8, 0xD0, 0xF5, 0x4C, 0x00, 0x10])


def benchmark(cycles: int = 50_000_000, py65_instructions: int = 200_000) -> dict:
    """Measure the fast harness (CPU cycles/s) and py65 (instructions/s) on BENCH_PROGRAM.

    Returns ``{"rtl_cycles_per_s", "rtl_cycles_per_cpu_s", "rtl_instructions_per_s",
    "py65_instructions_per_s", "py65_cycles_per_s"}``: wall-clock rates and, for the RTL,
    the rate per second of process CPU time (insensitive to other load on the machine).
    """
    import time

    from py65.devices.mpu6502 import MPU

    org, code = BENCH_PROGRAM
    h = Cpu6507Sim()
    h.memory[org:org + len(code)] = code
    h.load_state(pc=org)
    h.run(1_000_000)
    wall, cpu = time.perf_counter(), time.process_time()
    r = h.run(cycles)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    mem = [0] * 0x10000
    mem[org:org + len(code)] = code
    mpu = MPU(memory=mem, pc=org)
    t = time.perf_counter()
    for _ in range(py65_instructions):
        mpu.step()
    t = time.perf_counter() - t
    return {"rtl_cycles_per_s": r.cycles / wall, "rtl_cycles_per_cpu_s": r.cycles / cpu,
            "rtl_instructions_per_s": r.instructions / wall,
            "py65_instructions_per_s": py65_instructions / t, "py65_cycles_per_s": mpu.processorCycles / t}


_COCOTB_BENCH_MODULE = """
import json, os, time
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge


@cocotb.test()
async def bench(dut):
    org, code = {org}, {code}
    mem = bytearray(65536)
    mem[org:org + len(code)] = bytes(code)
    mem[0xFFFC], mem[0xFFFD] = org & 0xFF, org >> 8
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.ce.value, dut.rdy.value, dut.load_en.value, dut.rst.value = 1, 1, 0, 1
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    cycles = int(os.environ["CPU6507_BENCH_CYCLES"])
    start = time.perf_counter()
    for _ in range(cycles):
        await FallingEdge(dut.clk)
        addr = int(dut.addr.value)
        if int(dut.rw.value):
            dut.din.value = mem[addr]
        else:
            mem[addr] = int(dut.dout.value)
    seconds = time.perf_counter() - start
    with open(os.environ["CPU6507_BENCH_OUT"], "w") as f:
        json.dump({{"cycles": cycles, "seconds": seconds}}, f)
"""

_COCOTB_RUNNER = """
import sys
from cocotb_tools.runner import get_runner
build_dir, test_dir, rtl, results = sys.argv[1:5]
from nc2600.hwtools.verilator_build import WARNING_ARGS
runner = get_runner("verilator")
runner.build(sources=[rtl], hdl_toplevel="cpu6507", build_dir=build_dir, timescale=("1ns", "1ps"),
             build_args=list(WARNING_ARGS))
runner.test(hdl_toplevel="cpu6507", test_module="cpu6507_cocotb_bench", build_dir=build_dir,
            test_dir=test_dir, results_xml=results)
"""


def cocotb_benchmark(cycles: int = 100_000) -> float:
    """CPU cycles/s of the core under cocotb + Verilator with a Python memory model.

    The testbench awaits every falling edge and serves the bus from Python (one
    coroutine step per CPU cycle), as a cocotb testbench of the core does. The
    simulator build is cached under ``.cache/cocotb``.
    """
    import hashlib
    import json
    import os
    import subprocess
    import sys
    import tempfile

    from nc2600.hw.cpu6507 import generate
    from nc2600.hwtools.cache import REPO_ROOT, cache_dir
    from nc2600.hwtools.verilator_build import verilator_env

    org, code = BENCH_PROGRAM
    verilog = generate()["cpu6507.v"]
    module = _COCOTB_BENCH_MODULE.format(org=org, code=code)
    key = hashlib.sha256((verilog + module).encode()).hexdigest()[:16]
    root = cache_dir("cocotb") / f"cpu6507-bench-{key}"
    root.mkdir(parents=True, exist_ok=True)
    (root / "cpu6507_cocotb_bench.py").write_text(module)
    (root / "cpu6507.v").write_text(verilog)
    env = verilator_env()
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(REPO_ROOT)])
    env["CPU6507_BENCH_CYCLES"] = str(cycles)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.json"
        env["CPU6507_BENCH_OUT"] = str(out)
        proc = subprocess.run([sys.executable, "-c", _COCOTB_RUNNER, str(root / "build"), str(root),
                               str(root / "cpu6507.v"), str(Path(tmp) / "results.xml")],
                              env=env, capture_output=True, text=True)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError("cocotb benchmark failed:\n" + (proc.stdout + proc.stderr)[-3000:])
        figures = json.loads(out.read_text())
    return figures["cycles"] / figures["seconds"]


if __name__ == "__main__":  # pragma: no cover
    figures = benchmark()
    print(f"RTL 6507, fast Verilator harness: {figures['rtl_cycles_per_s'] / 1e6:.1f} M CPU cycles/s wall, "
          f"{figures['rtl_cycles_per_cpu_s'] / 1e6:.1f} M per CPU-second "
          f"({figures['rtl_instructions_per_s'] / 1e6:.1f} M instructions/s)")
    print(f"py65: {figures['py65_instructions_per_s'] / 1e3:.0f} k instructions/s "
          f"({figures['py65_cycles_per_s'] / 1e6:.2f} M cycles/s)")
    print(f"RTL 6507, cocotb + Verilator: {cocotb_benchmark() / 1e3:.0f} k CPU cycles/s")
