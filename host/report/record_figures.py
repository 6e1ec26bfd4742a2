"""Which figures each measuring command writes with ``--record FILE`` (:mod:`nc2600.host.report.results`).

Each function takes the command's own result (the dict it prints as JSON) and returns
``[(figure, value, unit[, notes]), ...]`` for :func:`nc2600.host.report.results.write_figures`. Figure names
are the ones in ``docs/results/*.jsonl``, so that a new measurement lands in the same figure's
history on the results page.
"""
from __future__ import annotations

_CC = {1: "one colour clock per clock", 3: "three colour clocks per clock"}


def bench_host(r: dict) -> list[tuple]:
    """``nc2600 bench host``: raw ALE frames/s per core, the loop's frames/s and their ratio."""
    where = f"{r['game']}, {r['workers']} workers x {r['envs_per_block']} instances per block"
    return [("raw ALE frames/s per core", r["raw_fps_per_core"], "frames/s",
             f"{r['game']}, frame skip 1, no screen fetch"),
            (f"evaluation loop frames/s, {r['workers']} workers, {r['policy']}", r["loop_fps"], "frames/s", where),
            (f"evaluation loop wall ratio to raw ALE, {r['policy']}", r["ratio"], "",
             f"{where}; CPU ratio {r['cpu_ratio']}; {r['loop_cpu_us_per_frame']} us CPU per frame; "
             f"workers idle {r['worker_idle_share']:.1%}")]


def bench_policy(r: dict) -> list[tuple]:
    """``nc2600 bench policy``: int8 over float32 decisions per CPU second."""
    return [(f"policy decisions per CPU second, int8 over float32, {r['network']} network", r["int8_over_float"], "x",
             f"{r['game']}: {r['int8_decisions_per_s']} vs {r['float_decisions_per_s']}, {r['slots']} slots; "
             f"bit-exact {r['int8_bit_exact']}")]


def bench_rtl(r: dict) -> list[tuple]:
    """``nc2600 bench rtl``: console RTL frames/s (wall) beside ALE's."""
    cc = r["colour_clocks"]
    return [(f"console RTL speed in Verilator, {_CC.get(cc, cc)}", r["rtl_frames_per_s"], "frames/s",
             f"{r['game']}, {r['frames']} frames; {r['rtl_frames_per_cpu_s']} per CPU-second; "
             f"ALE {r['ale_frames_per_s']} frames/s in the same run")]


def bench_cpu(r: dict) -> list[tuple]:
    """``nc2600 bench cpu``: the 6507 harness's cycles per CPU-second (M)."""
    cocotb = r.get("cocotb_cycles_per_s")
    return [("6507 Verilator harness speed", round(r["rtl_cycles_per_cpu_s"] / 1e6, 2), "M cycles per CPU-second",
             (f"cocotb {cocotb / 1e3:.1f}k cycles/s; " if cocotb else "")
             + f"py65 {r['py65_cycles_per_s'] / 1e6:.2f} M cycles/s")]


def bench_ray(r: dict) -> list[tuple]:
    """``nc2600 bench ray``: the Ray backend's wall and CPU ratios to the local backend."""
    q = r.get("ratio") or {}
    out = []
    if q:
        out.append(("Ray backend wall ratio to the local backend", q["ratio"], "",
                    f"{q['ray_fps']} vs {q['local_fps']} frames/s, population {q['population']}"))
        if q.get("cpu_ratio") is not None:
            out.append(("Ray backend CPU-time ratio to the local backend", q["cpu_ratio"], ""))
    for row in r.get("overhead", []):
        if row["mode"] == "transfer_only" and row["shipped"] == "seed lists" and row["population"] == 1000:
            out.append(("Ray per-generation overhead, seed-list genomes, population 1,000", row["overhead_ms"], "ms"))
    return out


def bench_mesh(rows: list[dict]) -> list[tuple]:
    """``nc2600 bench mesh``: seconds of mesh_sim per case and schedule."""
    return [(f"fabric model speed, {row['case']}, {row['schedule']}", round(row["wall_s"], 3), "s",
             f"{row['nodes']} nodes, {row['evaluations']} evaluations") for row in rows]


def lockstep(exact: int, games: int, frames: int, colour_clocks: int, rtl: str | None) -> list[tuple]:
    """``nc2600 lockstep``: games exact over the frames compared (``rtl``: the console's build key)."""
    return [(f"games exact against ALE over {frames:,} frames, {_CC.get(colour_clocks, colour_clocks)}",
             f"{exact}/{games}", "games", f"console RTL build {rtl}" if rtl else "")]


def instance_lockstep(exact: int, games: int, frames: int, colour_clocks: int, rtl: str | None,
                      differ: list[str]) -> list[tuple]:
    """``nc2600 instance-lockstep``: games whose whole episodes on the default instance equal ALE
    int8 frame by frame (``rtl``: the instance's build key at 210 NTSC rows; ``differ``: the games
    that differ or failed)."""
    notes = f"instance RTL build {rtl}" if rtl else ""
    if differ:
        notes += ("; " if notes else "") + "not exact: " + ", ".join(sorted(differ))
    return [(f"games whose instance episodes equal ALE int8 over >= {frames:,} frames, "
             f"{_CC.get(colour_clocks, colour_clocks)}", f"{exact}/{games}", "games", notes)]


def games_verify(results: list[dict], frames: int) -> list[tuple]:
    """``nc2600 games verify``: games whose rules from RAM equal ALE's reward, game over and lives."""
    games = {r["game"] for r in results}
    bad = {r["game"] for r in results if r["reward_mismatches"] or r["terminal_mismatches"] or r["lives_mismatches"]}
    return [("game rules from RAM against ALE", f"{len(games - bad)}/{len(games)}", "games",
             f"{frames:,} random-action frames per game" + (f"; mismatches: {', '.join(sorted(bad))}" if bad else ""))]


def synth(rep: dict) -> list[tuple]:
    """``nc2600 synth``: per block the xc7 LUT count (with FF, BRAM36, DSP, levels in the notes),
    the timed estimate, and with ``--pnr`` the ECP5-85 or (``--pnr nexus``) the LIFCL-40 Fmax, the
    latter named with its speed grade, seed and (when asked for) router2's timing-driven rip-up, and
    noted with its carry mode and router."""
    out = []
    for name, b in rep.get("blocks", {}).items():
        res, d = b["resources"], b["depth"]
        out.append((f"{name} resources on xc7", res["luts"], "LUT",
                    f"{res['lutram']} LUT RAM, {res['ff']} FF, {res['bram36']} BRAM36, {res['dsp']} DSP48E1, "
                    f"{res['carry4']} CARRY4; {d['levels']} levels"))
        t = d.get("timed") or {}
        if t.get("mhz"):
            out.append((f"{name} timed estimate on xc7", t["mhz"], "MHz (estimate)",
                        f"{t['ns']} ns, {t['levels']} levels"))
    for name, p in (rep.get("pnr") or {}).items():
        if p.get("fmax_mhz") and str(p.get("device", "")).startswith("LIFCL"):
            ripup = ", timing-driven rip-up" if p.get("tmg_ripup") else ""
            out.append((f"{name} Fmax on LIFCL-40-{p['speed']}, placed and routed, seed {p['seed']}{ripup}",
                        p["fmax_mhz"], "MHz", _nexus_notes(p)))
        elif p.get("fmax_mhz"):
            out.append((f"{name} Fmax on ECP5-85, placed and routed", p["fmax_mhz"], "MHz",
                        "nextpnr-ecp5, a proxy device (not the Zynq-7045)"))
    return out


def _nexus_notes(p: dict) -> str:
    """The notes of a LIFCL-40 Fmax record (:func:`nc2600.hwtools.nexus.pnr_block`'s result): tools, part,
    speed grade, carry mode, router, the critical path and the cells used."""
    cp = p.get("critical_path") or {}
    util = p.get("utilization") or {}
    used = ", ".join(f"{util[k][0]:,} {what}" for k, what in (("OXIDE_COMB", "logic cells"), ("OXIDE_FF", "FF"),
                                                               ("OXIDE_EBR", "EBR")) if k in util)
    carry = f"carry {p.get('carry')}" + (f" (fallback: {p['carry_fallback']})" if p.get("carry_fallback") else "")
    router = f"router {p.get('router') or 'router2'}" + (" with timing-driven rip-up (--tmg-ripup)"
                                                         if p.get("tmg_ripup")
                                                          else "") + (
        f" (router2: {p['router_fallback']})" if p.get("router_fallback") else "")
    path = (f"critical path {cp.get('from')} -> {cp.get('to')}, {cp.get('delay_ns')} ns ({cp.get('logic_ns')} logic "
            f"+ {cp.get('routing_ns')} routing)") if cp else "no critical path reported"
    return (f"{p.get('tools', 'nextpnr-nexus')}; {p['device']}, speed {p['speed']}, seed {p['seed']}, {carry}, "
            f"{router}; {p.get('label', '')}; {path}; {used}, {p.get('ccu2_cells')} CCU2")


def report(figures) -> list[tuple]:
    """``nc2600 report``: the per-instance and whole-fabric frames/s figures it prints, and the
    like-for-like comparison of its first game with the instance measured (the operands under their
    records' names, ``Figure.record``, with their basis; the ratios with ``ratio_of``, the README's
    like-for-like table); the published operands are records of their own (published.jsonl,
    ``nc2600 mesh --calibrate``) and are not written again."""
    out = _like_for_like(figures)
    for f in figures:
        if f.section in ("Per instance", "Whole fabric") and f.value is not None and f.unit in ("frames/s", "x"):
            if f.kind.startswith("quoted"):
                continue                       # the published figures: docs/results/published.jsonl
            label = "measured" if f.kind.startswith("measured") else "model"
            out.append((f"report: {f.name}" + (f", {f.game}" if f.game else ""), f.value, f.unit, f.kind, label))
    return out


def _like_for_like(figures) -> list[tuple]:
    """The like-for-like records of :func:`report` (see there): one game's (the first with any)."""
    named = [f for f in figures if f.record and f.value is not None]
    games = [f.game for f in named if f.game]
    if not games:
        return []
    out = []
    for f in named:
        if f.game != games[0]:
            continue
        fields = {"basis": f.basis}
        if f.unit == "x":
            fields["ratio_of"] = [o.record for o in f.operands]
            value, unit = round(float(f.value), 3), "x"
        elif f.basis == "sustained":
            value, unit = round(float(f.value) / 1e6, 3), "M frames/s"
        else:
            value, unit = round(float(f.value), 1), f.unit
        out.append((f.record, value, unit, f"{f.game}: {f.source}", "model", fields))
    return out


def input_probe(rows: list[dict], skipped: list[str], decisions: int, seed: int, clock_mhz: float,
                lifcl_seed1: bool) -> list[tuple]:
    """``nc2600 input-probe --all``: the median share of the decision's wait hidden behind the
    console, the median frames/s per instance with the decision hidden and waiting for each (both
    ceilings, emulation and the decision only), and the first's ratio to the published machine's
    ceiling per instance (``ratio_of``; :data:`nc2600.host.report.figures.PUBLISHED_INSTANCE_CEILING_FPS`).
    ``rows``: the per-game probe results with ``fps_hidden`` and ``fps_serial`` at ``clock_mhz``;
    ``lifcl_seed1``: the clock is console_cc3's seed-1 LIFCL-40-9 Fmax (the names say so)."""
    import numpy as np

    from nc2600.host.report.figures import PUBLISHED_INSTANCE_CEILING_FPS
    from nc2600.host.verify.input_probe import HOST_RULES_PER_FRAME
    hid = np.array([p["hidden_fraction"] for p in rows])
    fh = np.array([p["fps_hidden"] for p in rows])
    fs = np.array([p["fps_serial"] for p in rows])
    at = f"console_cc3 at {clock_mhz:g} MHz" + (" (LIFCL-40-9, seed 1)" if lifcl_seed1 else "")
    short = f"console_cc3 at {clock_mhz:g} MHz" + (" (LIFCL-40-9)" if lifcl_seed1 else "")
    how = (f"RTL console_cc3 (Verilator) playing the protocol from ALE's reset sequence, {decisions} decisions per "
           f"game (random actions of the minimal set, episode seed {seed}), the first frame of each decision's run; "
           f"{rows[0]['decision_clocks']:,} clocks from the engine's start to the action; host rules "
           f"{HOST_RULES_PER_FRAME:g} clocks per frame; games not run: {', '.join(skipped) or 'none'}")
    per_game = ", ".join(f"{p['game']} {p['fps_hidden']:,.0f} ({100 * p['hidden_fraction']:.0f} %)" for p in rows)
    hidden = f"frames/s per instance with the decision hidden, {at}, median over the games"
    waiting = f"frames/s per instance waiting for each decision, {at}, median over the games"
    med = round(float(np.median(fh)), 1)
    return [
        ("decision wait hidden behind the console, median over the games", round(100 * float(np.median(hid)), 1),
         "%", f"{len(rows)} games; all of it in {int(np.sum(hid >= 0.999))}, under 5 % in "
              f"{int(np.sum(hid < 0.05))}; mean {100 * float(hid.mean()):.1f} %; {how}"),
        (hidden, med, "frames/s",
         f"{len(rows)} games at {clock_mhz:g} MHz; waiting for each decision: median {np.median(fs):,.1f}; hidden: "
         f"min {fh.min():,.1f}, max {fh.max():,.1f}, mean {fh.mean():,.1f}; a ceiling (emulation and the decision "
         f"only); per game: {per_game}", "model", {"basis": "ceiling"}),
        (waiting, round(float(np.median(fs)), 1), "frames/s",
         f"the same games and frames with the console waiting for each decision; a ceiling; {how}", "model",
         {"basis": "ceiling"}),
        (f"like for like: ceiling per instance with the decision hidden (median over the games), {short} / published",
         round(med / PUBLISHED_INSTANCE_CEILING_FPS, 3), "x", "the ratio of the two records named (ratio_of)",
         "model", {"basis": "ceiling", "ratio_of": [hidden, "published machine: ceiling per instance"]}),
    ]
