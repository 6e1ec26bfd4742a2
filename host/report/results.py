"""The results record: every figure the project states, with its provenance, as JSON Lines.

A record is one JSON object on one line of ``docs/results/<area>.jsonl`` (the file's stem is the
area the figure belongs to: ``console``, ``launcher``, ``timing``, ...). Its fields, in this order:

``figure``   (str) what was measured, one name per figure: later records of the same name are
             newer measurements of the same thing.
``value``    (int, float or str) the figure; a str where it is not one number ("104/104").
``unit``     (str) ``frames/s``, ``MHz``, ``LUT``, ``games``, ... (``""`` for a ratio).
``label``    ``measured`` (run on the machine named), ``model`` (computed by a model of this
             package) or ``quoted`` (from a publication or data sheet: ``citation`` is required).
``command``  (str) the command line that produced it (a quoted figure: ``""``).
``date``     (str) ISO 8601 UTC, ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM:SSZ``.
``commit``   (str) the source revision measured (``git rev-parse --short=12 HEAD``, ``-dirty``
             appended when tracked files differ from it), ``""`` where it does not apply.
``machine``  (dict) ``cpu`` (the model name of ``/proc/cpuinfo``), ``cores`` (logical CPUs),
             ``load_average`` (1, 5 and 15 minutes, when the figure was taken); ``{}`` for a
             quoted or model figure.
``citation`` (str) arXiv id, data-sheet number and table, ... (``""`` unless quoted).
``notes``    (str) conditions that qualify the figure (``""`` when none).

Two optional fields, after those (:data:`OPTIONAL_FIELDS`), for throughput set beside the published
machine:

``basis``    ``ceiling`` (emulation and the decision path only: no resets, GA generations or host
             loop) or ``sustained`` (a whole fabric's training throughput, quoted or projected by
             mesh_sim with resets and generations): what a frames/s figure measures.
``ratio_of`` ``[numerator figure, denominator figure]``: the record is the ratio (unit ``x``) of the
             newest records of those two figures, which have its ``basis`` both. A ratio is stated
             only so, never in a record's notes (:func:`like_for_like_faults` checks both).

:func:`record` builds a record and fills ``date``, ``commit`` and ``machine`` from the running
process; :func:`append` adds it to a file; :func:`render` turns every record of a folder into
the Markdown page ``docs/results.md`` (``nc2600 results``), byte for byte the same for the same
records: grouped by area in :data:`AREAS` order, one section per figure with its newest record
first and the older ones folded below it.
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from nc2600.hwtools.cache import CHECKOUT, REPO_ROOT

FIELDS = ("figure", "value", "unit", "label", "command", "date", "commit", "machine", "citation", "notes")
LABELS = ("measured", "model", "quoted")
OPTIONAL_FIELDS = ("basis", "ratio_of")
BASES = ("ceiling", "sustained")
#: a multiple of the published machine stated in prose (notes), which a ratio record must state instead
_PROSE_RATIO = re.compile(r"\d(\.\d+)?\s*x\s+(the\s+|against\s+the\s+)?published", re.I)
#: frames/s units and their factors, for checking a ratio's value against its operands
_RATE_UNITS = {"frames/s": 1.0, "k frames/s": 1e3, "M frames/s": 1e6}

#: the areas of the results page, in page order, with their titles; a file whose stem is not
#: listed is shown after these under its stem
AREAS = {
    "console": "Console and CPU against ALE",
    "launcher": "Launcher throughput and training",
    "cluster": "Ray cluster",
    "policy": "int8 policy and inference engine",
    "instance": "The fabric instance",
    "timing": "Synthesis, place and route, timing",
    "mesh": "Fabric projection (mesh model)",
    "published": "The published machine and other anchors",
    "reliability": "Reliability and the test suite",
}

#: the checkout whose ``docs/`` holds the results record (:data:`nc2600.hwtools.cache.REPO_ROOT`);
#: the page and the record are the checkout's, so from an installed wheel the command that renders
#: them (``nc2600 results``) says it needs a checkout (:data:`nc2600.hwtools.cache.CHECKOUT` is None)
ROOT = REPO_ROOT
RESULTS_DIR = ROOT / "docs" / "results"
LOCKSTEP_DIR = ROOT / "docs" / "lockstep"
PAGE = ROOT / "docs" / "results.md"

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$")


# ---------------------------------------------------------------------------------------------
# provenance of the running process

def machine() -> dict:
    """The machine running this process: ``{"cpu": model name, "cores": logical CPUs,
    "load_average": [1 min, 5 min, 15 min]}`` (load rounded to 2 decimals)."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = []
    return {"cpu": cpu, "cores": os.cpu_count() or 1, "load_average": load}


def commit() -> str:
    """The source revision of this checkout (12 hex digits, ``-dirty`` when tracked files are
    changed), or ``""`` when it is not a git checkout."""
    try:
        if CHECKOUT is None:    # an installed wheel: no source revision to name
            return ""
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return ""
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return ""


def now() -> str:
    """The current UTC time as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def command_line(argv: list[str] | None = None) -> str:
    """``nc2600 ARGS`` for the arguments of this process (or ``argv``), shell-quoted."""
    import shlex
    args = sys.argv[1:] if argv is None else list(argv)
    return " ".join(["nc2600", *(shlex.quote(a) for a in args)])


# ---------------------------------------------------------------------------------------------
# records

def check(rec: dict) -> dict:
    """``rec`` if it is a valid record (every field of :data:`FIELDS`, no other); raises
    ValueError naming the first fault."""
    if not set(FIELDS) <= set(rec) <= set(FIELDS) | set(OPTIONAL_FIELDS):
        raise ValueError(f"record fields {sorted(rec)} differ from {sorted(FIELDS)} (and optionally "
                         f"{', '.join(OPTIONAL_FIELDS)})")
    if "basis" in rec and rec["basis"] not in BASES:
        raise ValueError(f"{rec.get('figure')}: basis {rec['basis']!r} is not one of {BASES}")
    if "ratio_of" in rec:
        ro = rec["ratio_of"]
        if not (isinstance(ro, list) and len(ro) == 2 and all(isinstance(x, str) and x.strip() for x in ro)):
            raise ValueError(f"{rec.get('figure')}: ratio_of must be [numerator figure, denominator figure]")
        if "basis" not in rec or rec.get("unit") != "x":
            raise ValueError(f"{rec.get('figure')}: a ratio record needs unit 'x' and a basis")
    if not isinstance(rec["figure"], str) or not rec["figure"].strip():
        raise ValueError("figure: a non-empty string")
    v = rec["value"]
    if isinstance(v, bool) or not isinstance(v, (int, float, str)) or (isinstance(v, float) and not math.isfinite(v)):
        raise ValueError(f"{rec['figure']}: value must be a finite number or a string, not {v!r}")
    if rec["label"] not in LABELS:
        raise ValueError(f"{rec['figure']}: label {rec['label']!r} is not one of {LABELS}")
    if rec["label"] == "quoted" and not rec["citation"]:
        raise ValueError(f"{rec['figure']}: a quoted figure needs its citation")
    if not _DATE.match(rec["date"]):
        raise ValueError(f"{rec['figure']}: date {rec['date']!r} is not YYYY-MM-DD[THH:MM:SSZ]")
    if not isinstance(rec["machine"], dict):
        raise ValueError(f"{rec['figure']}: machine must be an object")
    for k in ("unit", "command", "commit", "citation", "notes"):
        if not isinstance(rec[k], str):
            raise ValueError(f"{rec['figure']}: {k} must be a string")
    return rec


def record(figure: str, value, unit: str, label: str = "measured", *, command: str | None = None,
           notes: str = "", citation: str = "", date: str | None = None, commit_id: str | None = None,
           machine_info: dict | None = None, basis: str | None = None, ratio_of: list[str] | None = None) -> dict:
    """A checked record. ``command`` defaults to this process's command line, ``date`` to now,
    ``commit_id`` to this checkout's revision and ``machine_info`` to :func:`machine` (for a
    ``quoted`` or ``model`` figure the machine defaults to ``{}``); ``basis`` and ``ratio_of`` are
    the optional fields (module doc), left out when None."""
    if machine_info is None:
        machine_info = machine() if label == "measured" else {}
    rec = {"figure": figure, "value": value, "unit": unit, "label": label,
           "command": command_line() if command is None else command,
           "date": date or now(), "commit": commit() if commit_id is None else commit_id,
           "machine": machine_info, "citation": citation, "notes": notes}
    if basis is not None:
        rec["basis"] = basis
    if ratio_of is not None:
        rec["ratio_of"] = list(ratio_of)
    return check(rec)


def dumps(rec: dict) -> str:
    """One record as its JSON line (fields in :data:`FIELDS` order, then the optional ones it has,
    no trailing newline)."""
    return json.dumps({k: rec[k] for k in FIELDS + OPTIONAL_FIELDS if k in rec}, ensure_ascii=False)


def newest(areas: dict[str, list[dict]]) -> dict[str, dict]:
    """``{figure: its newest record}`` over ``{area: records}`` (the latest date, then file order)."""
    out: dict[str, tuple] = {}
    for recs in areas.values():
        for i, r in enumerate(recs):
            key = (r["date"], i)
            if r["figure"] not in out or key >= out[r["figure"]][0]:
                out[r["figure"]] = (key, r)
    return {k: v[1] for k, v in out.items()}


def _rate(r: dict) -> float | None:
    """A record's value in frames/s (None when it is not a number in a frames/s unit)."""
    f = _RATE_UNITS.get(r["unit"])
    return None if f is None or isinstance(r["value"], str) else float(r["value"]) * f


def like_for_like_faults(areas: dict[str, list[dict]]) -> list[str]:
    """What breaks the like-for-like rule in ``{area: records}`` (empty when nothing): a ratio
    record whose operands are missing, lack a basis, differ from each other's or its own basis
    (a ceiling against a sustained figure), or whose value is not their quotient to 0.5 %; and
    any record that states a multiple of the published machine in its notes instead."""
    faults = []
    cur = newest(areas)
    for recs in areas.values():
        for r in recs:
            if _PROSE_RATIO.search(r["notes"]):
                faults.append(f"{r['figure']} ({r['date']}): a ratio to the published machine in the notes "
                              f"({_PROSE_RATIO.search(r['notes']).group(0)!r}); state it as a ratio record")
    for name, r in cur.items():
        if "ratio_of" not in r:
            continue
        ops = [cur.get(x) for x in r["ratio_of"]]
        if None in ops:
            faults.append(f"{name}: operand {r['ratio_of'][ops.index(None)]!r} has no record")
            continue
        bases = [o.get("basis") for o in ops]
        if bases != [r["basis"]] * 2:
            faults.append(f"{name}: a {r['basis']} ratio of {bases[0] or 'no-basis'} {ops[0]['figure']!r} and "
                          f"{bases[1] or 'no-basis'} {ops[1]['figure']!r}")
            continue
        a, b = _rate(ops[0]), _rate(ops[1])
        if a is None or b is None or not b or isinstance(r["value"], str) or \
                abs(float(r["value"]) - a / b) > 0.005 * (a / b):
            faults.append(f"{name}: value {r['value']!r} is not {ops[0]['figure']!r} / {ops[1]['figure']!r}")
    return faults


def like_for_like_lines(areas: dict[str, list[dict]], links: bool = True) -> list[str]:
    """The like-for-like table (Markdown lines; empty without ratio records): per ratio record, its
    basis, both operands and the ratio; ``links``: the ratio and the operands linked to their
    sections of the results page (else plain, the ratio's name without its ``like for like:``)."""
    cur = newest(areas)
    rows = [r for r in cur.values() if "ratio_of" in r]
    if not rows:
        return []
    out = ["| comparison | basis | nc2600 | published machine | ratio |", "|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda x: (BASES.index(x["basis"]), x["figure"])):
        ops = [cur.get(x) for x in r["ratio_of"]]
        if links:
            name = f"[{_cell(r['figure'])}](docs/results.md#{slug(r['figure'])})"
            cells = [f"[{_value_text(o)}](docs/results.md#{slug(o['figure'])})" if o else "(no record)" for o in ops]
        else:
            name = _cell(r["figure"].removeprefix("like for like: "))
            cells = [_value_text(o) if o else "(no record)" for o in ops]
        out.append(f"| {name} | {r['basis']} | {cells[0]} | {cells[1]} | **{format_value(r['value'])}x** |")
    return out


#: the README's like-for-like block, between these lines, is :func:`like_for_like_lines` (``nc2600 results``)
README = ROOT / "README.md"
README_BEGIN = "<!-- like-for-like: generated by nc2600 results from docs/results/*.jsonl -->"
README_END = "<!-- end of like-for-like -->"


def readme_text(readme: str, areas: dict[str, list[dict]]) -> str:
    """``readme`` with its like-for-like block replaced by the records' table (unchanged when it
    has no block)."""
    i, j = readme.find(README_BEGIN), readme.find(README_END)
    if i < 0 or j < i:
        return readme
    return readme[:i + len(README_BEGIN)] + "\n" + "\n".join(like_for_like_lines(areas,
                                                                                 links=False)) + "\n" + readme[j:]


def append(path, records) -> None:
    """Append ``records`` (one dict or a list) to the JSON Lines file ``path`` (created with its
    folder), each checked first, in one write."""
    recs = [records] if isinstance(records, dict) else list(records)
    text = "".join(dumps(check(r)) + "\n" for r in recs)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def load(path) -> list[dict]:
    """The records of one JSON Lines file, each checked; raises ValueError naming the line."""
    out = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(check(json.loads(line)))
        except ValueError as exc:
            raise ValueError(f"{path}:{i}: {exc}") from None
    return out


def record_path(text: str) -> str:
    """argparse type of ``--record``: a file that can be appended to, checked before any work:
    its folder exists (a missing one is refused, never created: as ``play --video``), it is not
    a folder, FIFO or device, and the folder is writable (a probe file is made and removed).

    Raises:
        nc2600.host.errors.UserError: one line naming the path (the CLI's exit 2).
    """
    from nc2600.host.rundir import check_output_file
    check_output_file(text, "--record")
    return text


def add_record_option(parser) -> None:
    """``--record FILE`` on a measuring command: its figures are appended to FILE as records
    (FILE's folder must exist: :func:`record_path`)."""
    parser.add_argument("--record", metavar="FILE", default=None, type=record_path,
                        help="append this run's figures to FILE as results records (docs/results/AREA.jsonl)")


def write_figures(args, figures, *, notes: str = "") -> None:
    """Append one record per ``(figure, value, unit[, notes[, label[, fields]]])`` to the file
    ``args.record`` (label ``measured`` unless given; ``fields`` a dict of the optional fields,
    ``basis`` and ``ratio_of``), each with the command line (``args.argv``, set by
    :func:`nc2600.host.cli.main`), date, commit and machine (read once). Nothing happens when
    ``args.record`` is None; ``args`` may also be the path itself."""
    path = args if isinstance(args, (str, os.PathLike)) or args is None else getattr(args, "record", None)
    if path is None:
        return
    mach, rev, date, cmd = machine(), commit(), now(), command_line(getattr(args, "argv", None))
    recs = []
    for f in figures:
        name, value, unit = f[:3]
        extra = f[3] if len(f) > 3 else ""
        label = f[4] if len(f) > 4 else "measured"
        fields = f[5] if len(f) > 5 else {}
        recs.append(record(name, value, unit, label, command=cmd, notes="; ".join(x for x in (extra, notes) if x),
                           date=date, commit_id=rev, machine_info=mach,
                           basis=fields.get("basis"), ratio_of=fields.get("ratio_of")))
    append(path, recs)


# ---------------------------------------------------------------------------------------------
# the page

def slug(text: str) -> str:
    """The anchor GitHub and MyST give a heading: lower case, punctuation other than ``-`` and
    ``_`` dropped, spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def format_value(v) -> str:
    """A value as the page shows it: integers with thousands separators, floats as written
    (with separators in the integer part), strings as they are."""
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        s = repr(v)
        if "e" in s or "inf" in s or "nan" in s:
            return s
        whole, _, frac = s.partition(".")
        whole = f"{int(whole):,}" if whole not in ("-0",) else whole
        return whole if frac == "0" else f"{whole}.{frac}"
    return str(v)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _machine_text(m: dict) -> str:
    if not m:
        return ""
    load = m.get("load_average") or []
    parts = [m.get("cpu", "unknown"), f"{m.get('cores', '?')} cores"]
    if load:
        parts.append("load " + " / ".join(f"{x:g}" for x in load))
    return ", ".join(str(p) for p in parts)


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def _value_text(r: dict) -> str:
    return f"{format_value(r['value'])} {r['unit']}".strip()


def load_folder(folder) -> dict[str, list[dict]]:
    """``{area: [records in file order]}`` for every ``*.jsonl`` in ``folder``."""
    return {p.stem: load(p) for p in sorted(Path(folder).glob("*.jsonl"))}


def _area_order(areas) -> list[str]:
    known = [a for a in AREAS if a in areas]
    return known + sorted(a for a in areas if a not in AREAS)


_WORDS = {1: "one", 2: "two", 3: "three"}


def lockstep_summary(folder) -> list[str]:
    """Markdown lines summarising every lockstep results file in ``folder`` (``nc2600 lockstep
    --results``): its configuration header, games exact per mapper."""
    lines: list[str] = []
    for p in sorted(Path(folder).glob("*.jsonl")):
        rows = [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]
        if not rows or "lockstep_results" not in rows[0]:
            continue
        head, games = rows[0]["lockstep_results"], rows[1:]
        exact = sum(bool(g.get("match")) for g in games)
        cc = head.get("colour_clocks", 1)
        lines += [f"### Lockstep sweep: `docs/{p.parent.name}/{p.name}`", "",
                  f"Console RTL build `{head.get('rtl', '?')}`, {_WORDS.get(cc, cc)} colour "
                  f"clock{'s' if cc != 1 else ''} per clock, {format_value(head.get('frames', 0))} frames per game, "
                  f"actions {head.get('actions', '?')} (seed {head.get('seed', '?')}), "
                  f"ale-py {head.get('ale_py', '?')}: "
                  f"**{exact} of {len(games)} games exact** (RIOT RAM, SuperChip RAM and screen after every frame).",
                  "",
                  "| mapper | games | exact | not exact | games |", "|---|---|---|---|---|"]
        by_mapper: dict[str, list[dict]] = {}
        for g in games:
            by_mapper.setdefault(g.get("mapper", "?"), []).append(g)
        for m in sorted(by_mapper, key=lambda k: (-len(by_mapper[k]), k)):
            gs = by_mapper[m]
            bad = ", ".join(sorted(g["game"] for g in gs if not g.get("match"))) or "none"
            names = ", ".join(sorted(g["game"] for g in gs))
            lines.append(f"| {m} | {len(gs)} | {sum(bool(g.get('match')) for g in gs)} | {bad} | {names} |")
        lines.append("")
    return lines


def instance_lockstep_summary(folder) -> list[str]:
    """Markdown lines summarising every instance lockstep results file in ``folder``
    (``nc2600 instance-lockstep --results``): its configuration header, the games run so far (a
    sweep resumes), the frames compared, the games exact and each difference with its place."""
    lines: list[str] = []
    for p in sorted(Path(folder).glob("*.jsonl")):
        rows = [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]
        if not rows or "instance_lockstep_results" not in rows[0]:
            continue
        head, games = rows[0]["instance_lockstep_results"], rows[1:]
        exact = sum(bool(g.get("match")) for g in games)
        cc = head.get("colour_clocks", 3)
        frames = sum(g.get("frames_compared", 0) for g in games)
        lines += [f"### Instance lockstep sweep: `docs/{p.parent.name}/{p.name}`", "",
                  f"Instance build `{head.get('rtl', '?')}` (210 NTSC rows; each game's record names its own), "
                  f"{_WORDS.get(cc, cc)} colour clock{'s' if cc != 1 else ''} per clock, at least "
                  f"{format_value(head.get('frames', 0))} frames per game (episodes capped at "
                  f"{format_value(head.get('episode_frames', 0))}), network seed {head.get('seed', '?')}, calibration "
                  f"seed {head.get('calib_seed', '?')}, ale-py {head.get('ale_py', '?')}: **{exact} of {len(games)} "
                  f"games exact** over {format_value(frames)} frames (every frame's phase, decision, action, reward, "
                  f"lives and game over against ALE int8); {len(games)} of the 104 games run.", ""]
        bad = [g for g in games if not g.get("match")]
        if bad:
            lines += ["| game | first difference |", "|---|---|"]
            for g in sorted(bad, key=lambda g: g["game"]):
                d = g.get("first_difference") or {}
                what = ", ".join(f"{k} {v.get('instance')} (ALE {v.get('ale')})" for k,
                                 v in d.get("fields", {}).items())
                lines.append(f"| {g['game']} | episode {d.get('episode_seed')}, frame {d.get('frame')}, decision "
                             f"{d.get('decision')}, {d.get('phase')}: {what} |")
            lines.append("")
        if games:
            lines += ["Games run: " + ", ".join(sorted(g["game"] for g in games)) + ".", ""]
    return lines


def render(folder=RESULTS_DIR, lockstep_folder=LOCKSTEP_DIR) -> str:
    """The results page (Markdown, ending in one newline) for the records in ``folder`` and the
    lockstep files in ``lockstep_folder``. Pure function of those files' contents."""
    areas = load_folder(folder)
    out = ["# Results", "",
           "Every figure this project states, generated by `nc2600 results` from the records in "
           "`docs/results/*.jsonl` (one JSON object per line: figure, value, unit, label, command, date, "
           "commit, machine, citation, notes) and the lockstep files in `docs/lockstep/`. "
           "Do not edit this page: append a record (`--record FILE` on the measuring commands, or "
           "`nc2600.host.report.results.append`) and run `nc2600 results`.", "",
           "Labels: **measured** (run on the machine named, with the command shown), **model** (computed by a "
           "model in this package), **quoted** (from the publication or data sheet cited). Wall-clock speeds "
           "depend on the machine's load, which each measured record gives.", ""]
    lfl = like_for_like_lines(areas)
    if lfl:
        out += ["## Like for like with the published machine", "",
                "Ceilings (emulation and the decision path only) against the published machine's ceiling "
                "(150 MHz / 59,736 colour clocks a frame per instance); projected or sustained fabric throughput "
                "against its sustained 1.2 M frames/s and the same model of its configuration. Each ratio is a "
                "record whose operands have its basis.", "",
                *[x.replace("(docs/results.md#", "(#") for x in lfl], ""]
    seen: set[str] = set()
    for area in _area_order(areas):
        recs = areas[area]
        if not recs:
            continue
        out += [f"## {AREAS.get(area, area)}", ""]
        figures: dict[str, list[tuple[int, dict]]] = {}
        for i, r in enumerate(recs):
            figures.setdefault(r["figure"], []).append((i, r))
        for name in figures:
            if slug(name) in seen:
                raise ValueError(f"figure {name!r} ({area}) has the anchor of another figure: rename one")
            seen.add(slug(name))
        for name, items in figures.items():
            items = sorted(items, key=lambda t: (t[1]["date"], t[0]), reverse=True)
            cur = items[0][1]
            out += [f"### {name}", "", f"**{_cell(_value_text(cur))}** ({cur['label']})", ""]
            facts = []
            if cur["command"]:
                facts.append(f"- command: {_code(cur['command'])}")
            facts.append(f"- date: {cur['date']}" + (f", commit `{cur['commit']}`" if cur["commit"] else ""))
            if cur["machine"]:
                facts.append(f"- machine: {_machine_text(cur['machine'])}")
            if cur["citation"]:
                facts.append(f"- citation: {cur['citation']}")
            if cur.get("basis"):
                facts.append(f"- basis: {cur['basis']}")
            if cur.get("ratio_of"):
                facts.append("- ratio of: " + " / ".join(f"[{x}](#{slug(x)})" for x in cur["ratio_of"]))
            if cur["notes"]:
                facts.append(f"- notes: {cur['notes']}")
            out += facts + [""]
            older = [r for _, r in items[1:]]
            if older:
                out += ["<details>", f"<summary>{len(older)} earlier record{'s' if len(older) > 1 else ''}</summary>",
                        "",
                        "| date | value | label | commit | machine | command | notes |",
                        "|---|---|---|---|---|---|---|"]
                for r in older:
                    out.append("| " + " | ".join(_cell(x) for x in (
                        r["date"], _value_text(r), r["label"], _code(r["commit"]), _machine_text(r["machine"]),
                        _code(r["command"]), "; ".join(x for x in (r["citation"], r["notes"]) if x))) + " |")
                out += ["", "</details>", ""]
        if area == "console":
            out += lockstep_summary(lockstep_folder)
        if area == "instance":
            out += instance_lockstep_summary(lockstep_folder)
    return "\n".join(out).rstrip("\n") + "\n"


def anchors(page_text: str) -> set[str]:
    """The heading anchors of a rendered page (for links such as ``docs/results.md#ANCHOR``)."""
    return {slug(line.lstrip("#").strip()) for line in page_text.splitlines() if line.startswith("#")}
