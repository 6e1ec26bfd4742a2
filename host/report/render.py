"""Rendering of the throughput report (:mod:`nc2600.host.report.throughput`): ``report.md``, a
self-contained ``report.html`` with the PNG plots embedded, written into a folder over an earlier
report (:func:`write`).
"""
from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import asdict
from pathlib import Path

import numpy as np

from nc2600.host.report.throughput import (DERIVED, KINDS, MISSING, NTSC_COLOUR_CLOCKS, PUBLISHED,
                                           PUBLISHED_CEILING_FPS,
                                    PUBLISHED_FABRIC_FPS, RTL, Inputs, compute, like_for_like_table)


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, (int, np.integer)) or float(v).is_integer():
        return f"{int(v):,}"
    return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.3g}"


def plots(result: dict, inp: Inputs, out: Path) -> dict[str, str]:
    """Write the PNG plots into ``out``; returns ``{file name: caption}``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    made = {}
    per = result["per_game"]
    for game, row in per.items():
        if row["colour_clocks"] is None:
            continue
        fig, ax = plt.subplots(figsize=(6, 3.2))
        cc = np.asarray(row["colour_clocks"])
        ax.hist(cc, bins=min(50, max(5, len(np.unique(cc)))), color="#4477aa")
        ax.axvline(NTSC_COLOUR_CLOCKS, color="k", ls="--", lw=1, label="NTSC 262 x 228")
        ax.set_xlabel("colour clocks per frame (RTL)")
        ax.set_ylabel("frames")
        ax.set_title(f"{game}: {cc.size} frames")
        ax.legend(fontsize=8)
        fig.tight_layout()
        name = f"colour_clocks_{game}.png"
        fig.savefig(out / name, dpi=100)
        plt.close(fig)
        made[name] = f"{game}: colour clocks per frame measured on the RTL console"
    games = [g for g, r in per.items() if r["cycles"]]
    if games:
        fig, ax = plt.subplots(figsize=(7, 0.6 * len(games) + 1.6))
        parts = (("emulation", "#4477aa"), ("host_rules", "#66ccee"), ("preprocessing", "#ccbb44"),
                 ("forward", "#ee6677"), ("action_select", "#228833"))
        left = np.zeros(len(games))
        names = [f"{g}\n(nominal frame)" if per[g]["nominal_frame"] else g for g in games]
        for part, colour in parts:
            vals = np.array([per[g]["cycles"].get(part, 0.0) for g in games], dtype=float)
            ax.barh(names, vals, left=left, color=colour, label=part.replace("_", " "))
            left += vals
        ax.set_xlabel(f"cycles per decision (frame skip {inp.frame_skip}), serial")
        ax.legend(fontsize=8, loc="lower right")
        fig.tight_layout()
        fig.savefig(out / "decision_cycles.png", dpi=100)
        plt.close(fig)
        made["decision_cycles.png"] = ("where one decision's cycles go (serial: the console waits for the decision"
                                       + ("; 'nominal frame': NTSC 262 x 228 colour clocks, for a game whose console "
                                          "RTL "
                                          "is missing" if any(per[g]["nominal_frame"] for g in games) else "") + ")")
    bars = [(f"{g}: {case}", m) for g, r in per.items() for case, m in (r["mesh"] or {}).items()]
    if bars:
        # one ceiling per configuration (all instances emulating): the cases' names say which
        ceilings: dict[str, float] = {}
        for lab, m in bars:
            config = "3 colour clocks per clock" if "3 colour clocks per clock" in lab else "1 colour clock per clock"
            ceilings.setdefault(f"ceiling, {config} (model)", m["ceiling_fps"])
        labels = [lab for lab, _ in bars] + list(ceilings) + ["published 1.2 M", "published ceiling 2.09 M"]
        vals = [m["projected_fps"] for _, m in bars] + list(ceilings.values()) + [PUBLISHED_FABRIC_FPS,
                                                                                  PUBLISHED_CEILING_FPS]
        colours = ["#4477aa"] * len(bars) + ["#88aacc"] * len(ceilings) + ["#ee6677", "#eeaaaa"]
        # horizontal bars: the long case names stay readable, one per line
        fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(vals) + 1.4))
        ax.barh(range(len(vals)), np.array(vals) / 1e6, color=colours)
        ax.set_yticks(range(len(vals)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("fabric frames/s (millions)")
        ax.set_title(f"whole fabric at {inp.clock_mhz:g} MHz (blue: mesh_sim projection)", fontsize=9)
        fig.tight_layout()
        fig.savefig(out / "fabric_fps.png", dpi=100)
        plt.close(fig)
        made["fabric_fps.png"] = "whole fabric: mesh_sim projections (model) beside the published figures"
        fig, ax = plt.subplots(figsize=(7.5, 0.6 * len(bars) + 1.8))
        keys = list(bars[0][1]["time_fractions"])
        left = np.zeros(len(bars))
        cmap = plt.get_cmap("tab10")
        names = [lab.replace("\n", " ") for lab, _ in bars]
        for i, key in enumerate(keys):
            vals = np.array([m["time_fractions"][key] for _, m in bars]) * 100
            ax.barh(names, vals, left=left, color=cmap(i % 10), label=key.replace("_", " "))
            left += vals
        ax.set_xlabel("share of instance time (%), mesh_sim")
        ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.3))
        fig.tight_layout()
        fig.savefig(out / "fabric_time.png", dpi=100, bbox_inches="tight")
        plt.close(fig)
        made["fabric_time.png"] = "where the fabric's instance time goes (mesh_sim time_fractions)"
    return made


def render_markdown(result: dict, inp: Inputs, images: dict[str, str], meta: dict) -> str:
    """``report.md`` text (images referenced as files beside it)."""
    lines = ["# nc2600 throughput report", "",
             f"Games: {', '.join(g.game for g in inp.games)}; clock {inp.clock_mhz:g} MHz (one colour clock per "
             f"cycle); policy engine {inp.lanes} MAC lanes; frame skip {inp.frame_skip}.",
             f"Command: `{meta.get('command', '')}`", "",
             "Every figure is marked *" + "*, *".join(KINDS) + "*. A missing block is reported as missing; "
             "nothing is filled in for it.", ""]
    missing = [f for f in result["figures"] if f.kind == MISSING]
    if missing:
        lines += ["## Missing", ""]
        lines += [f"- {f.name}{f' ({f.game})' if f.game else ''}: {f.source}" for f in missing]
        lines.append("")
    table = like_for_like_table(result["figures"])
    if table:
        lines += ["## Like for like", "", "Ceilings (emulation and the decision only) against the published "
                  "machine's ceiling; projected fabric throughput (mesh_sim, resets and generations included) against "
                  "its sustained figures. No ratio sets a ceiling against a sustained figure.", "", *table, ""]
    for section in dict.fromkeys(f.section for f in result["figures"]):
        lines += [f"## {section}", "", "| figure | game | value | unit | kind | source | reproduce |",
                  "|---|---|---:|---|---|---|---|"]
        for f in result["figures"]:
            if f.section == section:
                cmd = f"`{f.command}`" if f.command else ""
                lines.append(f"| {f.name} | {f.game or ''} | {_fmt(f.value)} | {f.unit} | {f.kind} | "
                             f"{f.source.replace('|', '/')} | {cmd.replace('|', '/')} |")
        lines.append("")
    if images:
        lines += ["## Plots", ""]
        lines += [f"![{cap}]({name})\n\n*{cap}*\n" for name, cap in images.items()]
    return "\n".join(lines) + "\n"


def render_html(result: dict, inp: Inputs, images: dict[str, str], out: Path, meta: dict) -> str:
    """Self-contained ``report.html``: the same tables, the PNGs embedded as data URIs."""
    e = html.escape
    css = ("body{font-family:sans-serif;max-width:70em;margin:2em auto;color:#222}"
           "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}"
           "td,th{border:1px solid #ccc;padding:0.25em 0.5em;vertical-align:top}td.n{text-align:right}"
           ".missing{background:#fdd}.rtl{background:#dfd}.model{background:#eef}.pub{background:#ffd}")
    cls = {RTL: "rtl", DERIVED: "rtl", PUBLISHED: "pub", MISSING: "missing"}
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>nc2600 throughput report</title>"
             f"<style>{css}</style></head><body><h1>nc2600 throughput report</h1>",
             f"<p>Games: {e(', '.join(g.game for g in inp.games))}; clock {inp.clock_mhz:g} MHz; "
             f"{inp.lanes} MAC lanes; frame skip {inp.frame_skip}.<br>Command: <code>{e(meta.get('command', ''))}"
             f"</code></p><p>Kinds: " + ", ".join(f"<span class='{cls.get(k, 'model')}'>{e(k)}</span>" for k in KINDS)
             + "</p>"]
    for section in dict.fromkeys(f.section for f in result["figures"]):
        parts.append(f"<h2>{e(section)}</h2><table><tr><th>figure</th><th>game</th><th>value</th><th>unit</th>"
                     "<th>kind</th><th>source</th><th>reproduce</th></tr>")
        for f in result["figures"]:
            if f.section == section:
                parts.append(f"<tr class='{cls.get(f.kind, 'model')}'><td>{e(f.name)}</td><td>{e(f.game or '')}</td>"
                             f"<td class='n'>{e(_fmt(f.value))}</td><td>{e(f.unit)}</td><td>{e(f.kind)}</td>"
                             f"<td>{e(f.source)}</td><td><code>{e(f.command)}</code></td></tr>")
        parts.append("</table>")
    if images:
        parts.append("<h2>Plots</h2>")
        for name, cap in images.items():
            data = base64.b64encode((out / name).read_bytes()).decode()
            parts.append(f"<figure><img alt='{e(cap)}' src='data:image/png;base64,{data}'>"
                         f"<figcaption>{e(cap)}</figcaption></figure>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _atomic(path: Path, text: str) -> None:
    from nc2600.host.rundir import atomic_write_bytes
    atomic_write_bytes(path, text.encode())


def write(inp: Inputs, out: Path, meta: dict | None = None) -> dict:
    """Compute and write ``report.md``, ``report.html``, ``report.json`` and the PNGs into ``out``.

    Returns :func:`compute`'s result. The three reports are each written to a temporary name
    and renamed, the JSON last.
    """
    meta = meta or {}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    earlier = _earlier_report(out)
    result = compute(inp)
    images = plots(result, inp, out)
    _atomic(out / "report.md", render_markdown(result, inp, images, meta))
    _atomic(out / "report.html", render_html(result, inp, images, out, meta))
    payload = {"meta": meta, "clock_mhz": inp.clock_mhz, "lanes": inp.lanes, "frame_skip": inp.frame_skip,
               "figures": [{**{k: v for k, v in asdict(f).items() if k != "operands"},
                            "operands": [o.name for o in f.operands]} for f in result["figures"]],
               "per_game": result["per_game"], "images": images}
    _atomic(out / "report.json", json.dumps(payload, indent=1, default=float))
    prune_earlier_report(out, earlier, set(images), set(result["per_game"]))
    return result


_IMAGE_NAME = re.compile(r"[A-Za-z0-9_.-]+\.png")


def _earlier_report(out: Path) -> tuple[set, set]:
    """``(images, games)`` an earlier report in ``out`` says it made (its report.json), or two empty
    sets when there is none or it cannot be read."""
    try:
        old = json.loads((out / "report.json").read_text())
        return ({i for i in old.get("images", {}) if isinstance(i, str)},
                {g for g in old.get("per_game", {}) if isinstance(g, str)})
    except (OSError, ValueError, AttributeError, TypeError):
        return set(), set()


def prune_earlier_report(out: Path, earlier: tuple[set, set], images: set, games: set) -> list[str]:
    """After a report is written into ``out``: remove what an earlier report there made and this one
    did not (its other images, and the inputs of games this one did not measure: ``inputs/actions_G.npy``,
    ``inputs/rtl_play_G/``), so that the folder holds one report. Only plain files and folders of those
    names go (no links, nothing outside ``out``); done after the new report is complete, so an
    interrupted run leaves the earlier report whole. Returns the removed paths relative to ``out``."""
    import shutil
    old_images, old_games = earlier
    gone = []
    for name in sorted(old_images - images):
        f = out / name
        if _IMAGE_NAME.fullmatch(name) and f.is_file() and not f.is_symlink():
            f.unlink()
            gone.append(name)
    for g in sorted(old_games - games):
        if not re.fullmatch(r"[A-Za-z0-9_]+", g):
            continue
        a, d = out / "inputs" / f"actions_{g}.npy", out / "inputs" / f"rtl_play_{g}"
        if a.is_file() and not a.is_symlink():
            a.unlink()
            gone.append(str(a.relative_to(out)))
        if d.is_dir() and not d.is_symlink():
            shutil.rmtree(d)
            gone.append(str(d.relative_to(out)))
    return gone
