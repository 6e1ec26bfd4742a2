"""``make regs``: compile the register description (``hls_models/registers/nc2600.rdl``,
SystemRDL 2.0) with systemrdl-compiler and write everything that follows from it.

Outputs (all committed; :func:`stale` lists those that differ from what the description gives,
and ``tests/registers`` fails on any):

* ``hls_models/registers/generated.py``: the compiled map as Python data (registers, fields,
  access, reset values, enumerations), read by :mod:`nc2600.hls_models.registers` and through it by the
  RTL (:mod:`nc2600.hw.instance`, :mod:`nc2600.hw.node`) and the host driver; so neither needs the compiler
  at run time;
* ``hls_models/registers/export/nc2600.h``: C header of the node (and its instance) for the ARM
  side (PeakRDL-cheader: ``INSTANCE__<REG>__<FIELD>_bm/_bp/_bw/_reset`` and packed structs);
* ``hls_models/registers/export/instance.xml`` and ``node.xml``: IP-XACT components
  (PeakRDL-ipxact) in IEEE 1685-2009, the SPIRIT schema of the ``component.xml`` files that the
  Xilinx IP packager reads and writes.

The register page, ``docs/hardware/register-map.md``, is rendered from the Python description
when the documentation is built (``docs/_ext/nc2600_docs.py``), so it is never stale.

Usage: ``python -m nc2600.hwtools.registers`` (write), ``--check`` (exit 1 and name the stale files).
A description the compiler rejects raises :class:`RegisterDescriptionError` with the compiler's
messages (exit 2 from the command line).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from nc2600.hwtools.cache import PACKAGE_ROOT, REPO_ROOT, NotACheckout, checkout_root

#: the description and the files made from it, under the package's root (the checkout's, or the
#: wheel's ``nc2600/``: the description and its exports travel as package data); writing or checking
#: them is a command of the checkout (:func:`main`)
RDL = PACKAGE_ROOT / "hls_models" / "registers" / "nc2600.rdl"
GENERATED_PY = PACKAGE_ROOT / "hls_models" / "registers" / "generated.py"
EXPORT_DIR = PACKAGE_ROOT / "hls_models" / "registers" / "export"
TOPS = ("instance", "node")          #: the description's top-level address maps
IPXACT_VENDOR, IPXACT_LIBRARY, IPXACT_VERSION = "nc2600", "nc2600", "0.1"


class RegisterDescriptionError(ValueError):
    """The SystemRDL compiler rejected the description; the message holds its diagnostics."""


class _Collect:
    """A systemrdl message printer that keeps the messages (for the exception's text)."""

    def __init__(self):
        self.lines: list[str] = []

    def print_message(self, severity, text, src_ref):
        where = ""
        if src_ref is not None and getattr(src_ref, "filename", None):
            line = getattr(src_ref, "line", None)
            where = f"{Path(src_ref.filename).name}:{line}: " if line else f"{Path(src_ref.filename).name}: "
        self.lines.append(f"{where}{severity.name.lower()}: {text}")


def compile_description(path: Path | str = RDL, top: str = "instance"):
    """Compile and elaborate one top-level ``addrmap`` of the description.

    Returns:
        systemrdl's ``RootNode`` of ``top``.
    Raises:
        RegisterDescriptionError: the compiler's errors (file, line and message), e.g. a syntax
            error, overlapping registers or an unknown property.
    """
    from systemrdl import RDLCompileError, RDLCompiler
    collect = _Collect()
    rdlc = RDLCompiler(message_printer=collect)
    try:
        rdlc.compile_file(str(path))
        return rdlc.elaborate(top)
    except RDLCompileError:
        raise RegisterDescriptionError("register description rejected by systemrdl-compiler:\n  "
                                       + "\n  ".join(collect.lines or ["(no message)"])) from None


def _access(node) -> str:
    """``"r"``, ``"w"``, ``"rw"`` or ``""``: the software access of a field."""
    return ("r" if node.is_sw_readable else "") + ("w" if node.is_sw_writable else "")


def _udp(node, name, default=None):
    try:
        return node.get_property(name)
    except LookupError:
        return default


def _enum_name(enum_cls) -> str:
    return enum_cls.type_name


def describe(root) -> dict:
    """The compiled ``instance`` map as plain data (the contents of ``generated.py``)."""
    from systemrdl.node import FieldNode, RegNode
    top = root.top
    enums: dict[str, list] = {}
    regs = []
    for reg in top.children():
        if not isinstance(reg, RegNode):
            raise RegisterDescriptionError(f"{reg.inst_name}: only registers belong in the instance map")
        fields = []
        for f in reg.fields():
            assert isinstance(f, FieldNode)
            enc = f.get_property("encode")
            if enc is not None:
                enums.setdefault(_enum_name(enc), [(m.name, m.value, m.rdl_name, m.rdl_desc or "") for m in enc])
            fields.append({
                "name": f.inst_name, "lsb": f.lsb, "width": f.width, "sw": _access(f),
                "hw_writes": bool(f.is_hw_writable), "reset": f.get_property("reset"),
                "singlepulse": bool(f.get_property("singlepulse")), "swmod": bool(f.get_property("swmod")),
                "sticky": bool(f.get_property("stickybit")), "signed": bool(_udp(f, "is_signed", False)),
                "write_check": _udp(f, "write_check"), "encode": _enum_name(enc) if enc is not None else None,
                "label": f.get_property("name") if f.get_property("name") != f.inst_name else None,
                "desc": f.get_property("desc") or "",
            })
        dims = reg.array_dimensions or [1]
        if len(dims) != 1:
            raise RegisterDescriptionError(f"{reg.inst_name}: one array dimension at most")
        regs.append({
            "name": reg.inst_name, "offset": reg.raw_address_offset, "count": dims[0],
            "stride": reg.array_stride or reg.size, "size": reg.size,
            "memory_window": bool(_udp(reg, "memory_window", False)),
            "label": reg.get_property("name"), "desc": reg.get_property("desc") or "", "fields": fields,
        })
    return {"name": top.inst_name, "label": top.get_property("name"), "desc": top.get_property("desc") or "",
            "enums": enums, "registers": regs}


def describe_node(root) -> dict:
    """The node map (its instances' count, stride and size) as plain data."""
    from systemrdl.node import AddrmapNode
    top = root.top
    kids = list(top.children())
    if len(kids) != 1 or not isinstance(kids[0], AddrmapNode) or kids[0].type_name != "instance":
        raise RegisterDescriptionError("the node map holds one array of instance address maps")
    inst = kids[0]
    return {"name": top.inst_name, "label": top.get_property("name"), "desc": top.get_property("desc") or "",
            "instances": inst.array_dimensions[0], "offset": inst.raw_address_offset,
            "stride": inst.array_stride, "size": top.size}


def _kv(d: dict, hex_keys=()) -> str:
    return ", ".join(f"{k}={hex(v) if k in hex_keys and isinstance(v, int) else repr(v)}" for k, v in d.items())


def python_text(instance: dict, node: dict) -> str:
    """``generated.py``: the data of :func:`describe` and :func:`describe_node`, one line per
    field (offsets and reset values in hexadecimal)."""
    lines = ['"""The compiled register description (``nc2600.rdl``) as data: generated by',
             "``python -m nc2600.hwtools.registers`` (``make regs``); do not edit. Read through",
             ':mod:`nc2600.hls_models.registers`."""', "", "# flake8: noqa: E501", ""]
    lines.append(f"NAME, LABEL = {instance['name']!r}, {instance['label']!r}")
    lines.append(f"DESC = {instance['desc']!r}")
    lines += ["", "#: enumerations: name -> (member, value, label or None, description)", "ENUMS = {"]
    for name, members in instance["enums"].items():
        lines.append(f"    {name!r}: (")
        lines += [f"        {tuple(m)!r}," for m in members]
        lines.append("    ),")
    lines += ["}", "", "#: registers in address order, each with its fields", "REGISTERS = ("]
    for r in instance["registers"]:
        head = {k: v for k, v in r.items() if k != "fields"}
        lines.append(f"    dict({_kv(head, ('offset', 'stride', 'size'))}, fields=(")
        lines += [f"        dict({_kv(f, ('reset',))})," for f in r["fields"]]
        lines.append("    )),")
    lines += [")", "", f"NODE = dict({_kv(node, ('offset', 'stride', 'size'))})", ""]
    return "\n".join(lines)


def _exports(tmp: Path) -> dict[Path, str]:
    from peakrdl_cheader.exporter import CHeaderExporter
    from peakrdl_ipxact import IPXACTExporter, Standard
    out: dict[Path, str] = {}
    node = compile_description(RDL, "node")
    inst = compile_description(RDL, "instance")
    CHeaderExporter().export(node.top, str(tmp / "nc2600.h"))
    out[EXPORT_DIR / "nc2600.h"] = (tmp / "nc2600.h").read_text()
    for name, root in (("instance", inst), ("node", node)):
        IPXACTExporter(vendor=IPXACT_VENDOR, library=IPXACT_LIBRARY, version=IPXACT_VERSION,
                       standard=Standard.IEEE_1685_2009).export(
            root.top, str(tmp / f"{name}.xml"))
        out[EXPORT_DIR / f"{name}.xml"] = (tmp / f"{name}.xml").read_text()
    n = describe_node(node)
    out[GENERATED_PY] = python_text(describe(inst), n)
    return out


def outputs() -> dict[Path, str]:
    """Every generated file's path and text (nothing written)."""
    with tempfile.TemporaryDirectory(prefix="nc2600-regs-") as tmp:
        return _exports(Path(tmp))


def stale() -> list[Path]:
    """The generated files that are missing or differ from what the description gives."""
    return [p for p, text in outputs().items() if not p.exists() or p.read_text() != text]


def write() -> list[Path]:
    """Write every generated file (only those that change); returns the paths written."""
    written = []
    for p, text in outputs().items():
        if not p.exists() or p.read_text() != text:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
            written.append(p)
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m nc2600.hwtools.registers",
                                description="regenerate everything that follows from hls_models/registers/nc2600.rdl")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file is stale")
    args = p.parse_args(argv)
    try:
        checkout_root("make regs" + (" --check" if args.check else ""))
    except NotACheckout as e:
        print(f"nc2600.hwtools.registers: {e}", file=sys.stderr)
        return 2
    try:
        if args.check:
            bad = stale()
            for path in bad:
                print(f"stale: {path.relative_to(REPO_ROOT)} (run make regs)")
            return 1 if bad else 0
        for path in write():
            print(f"wrote {path.relative_to(REPO_ROOT)}")
    except RegisterDescriptionError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
