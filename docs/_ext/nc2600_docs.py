"""Sphinx extension of the nc2600 docs: the ``register-map`` and ``api-objects`` directives and
plain-text docstrings.

``{register-map}`` renders the fabric instance's registers as a table from the code's own
register description (:mod:`nc2600.hls_models.registers` when it exists, else
:data:`nc2600.hw.instance.REGISTERS`), so the map is never typed twice.

``{api-objects}`` takes lines ``DIRECTIVE NAME[|OTHER NAME...] [OPTION ...]``
(``autoclass nc2600.host.drivers.instance.InstanceDriver|nc2600.host.drivers.instance.InstanceDriver :members:``) and
emits the autodoc directive for the first name that imports, so the API page survives a module's move between packages;
a line none of whose names imports is an error.

The project's docstrings are written as plain text with reStructuredText inline markup
(````code````, ``:class:``), not always as valid reStructuredText blocks (indented continuation
lines, aligned columns). :func:`plain_docstrings` checks each docstring autodoc reads with docutils
and shows one that is not valid as a literal block, as written, instead of failing the
warnings-as-errors build.
"""
from __future__ import annotations

import io
import re

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive

_ROLE = re.compile(r":(?:py:)?[a-z]+:`")


def _valid_rst(text: str) -> bool:
    """Whether ``text`` parses as reStructuredText without a warning (roles read as literals)."""
    stream = io.StringIO()
    try:
        _parse(text, stream)
    except Exception:                     # a construct only Sphinx knows: shown as written
        return False
    return not stream.getvalue()


def _parse(text: str, stream) -> None:
    publish_doctree(_ROLE.sub("`", text).replace("`", "``").replace("````", "``"),
                    settings_overrides={"report_level": 2, "halt_level": 5, "warning_stream": stream,
                                        "file_insertion_enabled": False, "raw_enabled": False})


def plain_docstrings(app, what, name, obj, options, lines) -> None:
    """autodoc-process-docstring: keep a valid docstring; show any other as a literal block."""
    if lines and not _valid_rst("\n".join(lines)):
        body = ["    " + x if x.strip() else "" for x in lines]
        lines[:] = ["::", ""] + body + [""]


def _instance_map():
    """The compiled SystemRDL description (:data:`nc2600.hls_models.registers.INSTANCE`), or None."""
    try:
        from nc2600.hls_models.registers import INSTANCE
    except ImportError:
        return None
    return INSTANCE


def register_rows() -> list[tuple[str, str, str, str]]:
    """``[(name, offset, access, meaning)]`` in address order from the register description."""
    regs = _instance_map()
    if regs is not None:
        rows = []
        for r in regs:
            sw = {f.sw for f in r.fields}
            acc = "RW" if "rw" in sw or {"r", "w"} <= sw else "".join(sorted(sw)).upper() or "-"
            extent = f" ({r.count} words, {r.stride} bytes apart)" if r.count > 1 else ""
            rows.append((r.name, f"0x{r.offset:05X}", acc, " ".join((r.desc or r.label or "").split()) + extent))
        return rows
    from nc2600.hw.instance import REGISTERS
    return [(name, f"0x{off:05X}", acc, meaning)
            for name, (off, acc, meaning) in sorted(REGISTERS.items(), key=lambda kv: kv[1][0])]


def field_rows() -> list[tuple[str, list[tuple[str, str, str, str, str]]]]:
    """``[(register, [(bits, field, access, reset, meaning)])]`` when the description has fields."""
    regs = _instance_map()
    if regs is None:
        return []
    out = []
    for r in regs:
        rows = []
        for f in r.fields:
            bits = f"{f.lsb}" if f.width == 1 else f"{f.msb}:{f.lsb}"
            reset = "-" if f.reset is None else f"0x{f.reset:X}"
            meaning = " ".join((f.desc or f.label or "").split())
            if f.encode is not None:
                meaning += " (" + ", ".join(f"{int(m)} {f.encode.labels.get(m, m.name)}" for m in f.encode) + ")"
            rows.append((bits, f.name, f.sw.upper(), reset, meaning))
        out.append((r.name, rows))
    return out


def _table(header, rows, widths):
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)

    def row(cells, strong=False):
        r = nodes.row()
        for c in cells:
            entry = nodes.entry()
            entry += nodes.paragraph("", "", nodes.strong(text=c)) if strong else nodes.paragraph(text=c)
            r += entry
        return r
    head = nodes.thead()
    head += row(header, strong=True)
    group += head
    body = nodes.tbody()
    for cells in rows:
        body += row(cells)
    group += body
    return table


class RegisterMap(Directive):
    """A table of the instance's registers (name, byte offset, access, meaning) and, when the
    description has them, one table of fields per register."""

    has_content = False

    def run(self):
        out = [_table(("register", "offset", "access", "meaning"), register_rows(), (14, 10, 8, 68))]
        for name, rows in field_rows():
            if rows:
                out.append(nodes.rubric(text=name))
                out.append(_table(("bits", "field", "access", "reset", "meaning"), rows, (8, 16, 8, 10, 58)))
        return out


def _resolve(dotted: str):
    """The object a dotted name denotes, or None when it does not import."""
    import importlib
    try:
        return importlib.import_module(dotted)
    except ImportError:
        pass
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


class ApiObjects(Directive):
    """autodoc directives for objects named by one of several dotted paths each."""

    has_content = True

    def run(self):
        from docutils.statemachine import StringList
        rst: list[str] = []
        for line in self.content:
            if not line.strip():
                continue
            kind, names, *rest = line.split(None, 2)
            name = next((n for n in names.split("|") if _resolve(n) is not None), None)
            if name is None:
                raise self.error(f"api-objects: none of {names} imports")
            rst.append(f".. {kind}:: {name}")
            for key, value in re.findall(r":([\w-]+):((?:\s+[^:\s]\S*)*)", rest[0] if rest else ""):
                rst.append(f"   :{key}: {value.strip()}".rstrip())
            rst.append("")
        # MyST parses nested content as Markdown: the reStructuredText goes in an eval-rst fence
        text = ["```{eval-rst}", *rst, "```"] if "myst" in type(self.state).__module__.lower() else rst
        node = nodes.section()
        node.document = self.state.document
        self.state.nested_parse(StringList(text, source="api-objects"), self.content_offset, node)
        return node.children


def setup(app):
    app.add_directive("register-map", RegisterMap)
    app.add_directive("api-objects", ApiObjects)
    app.connect("autodoc-process-docstring", plain_docstrings)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
