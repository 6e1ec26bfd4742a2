"""A tiny two-pass 6502 assembler for the test programs (documented opcodes, ALE mnemonics).

Syntax, one statement per line, ``;`` comments:
``label:``, ``LDA #$10``, ``LDA $10`` (zero page), ``LDA $1234``, ``LDA $10,X``,
``LDA ($10),Y``, ``LDA ($10,X)``, ``JMP ($1234)``, ``BNE label``, ``ASL`` (accumulator),
``.org $1000``, ``.byte $01, 2, label`` and ``.word label``. Numbers: ``$hex``, ``%bin``
or decimal; a label operand is absolute (two bytes) except for branches; ``<label`` /
``>label`` give its low / high byte as an immediate or ``.byte``.
"""
from __future__ import annotations

import re

from nc2600.hls_models.cpu6507 import OPCODES

_OPS: dict[tuple[str, str], int] = {}
for _op, (_mn, _mode) in enumerate(OPCODES):
    _OPS.setdefault((_mn, _mode), _op)
for _mn, _op in (("NOP", 0xEA), ("SBC", 0xE9)):  # prefer the documented encodings
    _OPS[(_mn, "imp" if _mn == "NOP" else "imm")] = _op

_SIZE = {"imp": 1, "imm": 2, "zp": 2, "zpx": 2, "zpy": 2, "izx": 2, "izy": 2, "rel": 2,
         "abs": 3, "abx": 3, "aby": 3, "jmp": 3, "ind": 3, "jsr": 3, "brk": 1, "rts": 1, "rti": 1,
         "psh": 1, "pul": 1, "jam": 1}


def _value(text: str, labels: dict[str, int], strict: bool) -> int:
    text = text.strip()
    if text.startswith("<") or text.startswith(">"):
        v = _value(text[1:], labels, strict)
        return v & 0xFF if text[0] == "<" else v >> 8
    if text.startswith("$"):
        return int(text[1:], 16)
    if text.startswith("%"):
        return int(text[1:], 2)
    if text[0].isdigit():
        return int(text)
    if text in labels:
        return labels[text]
    if strict:
        raise ValueError(f"unknown label {text!r}")
    return 0x1234  # placeholder in pass 1 (labels are absolute-sized)


def _modes_for(mn: str) -> set[str]:
    return {mode for (m, mode) in _OPS if m == mn}


def assemble(source: str, org: int = 0x1000) -> dict[int, int]:
    """Assemble ``source``; returns {address: byte}."""
    labels: dict[str, int] = {}
    for strict in (False, True):
        out: dict[int, int] = {}
        pc = org
        for raw in source.splitlines():
            line = raw.split(";")[0].strip()
            if not line:
                continue
            m = re.match(r"^([A-Za-z_]\w*):\s*(.*)$", line)
            if m:
                if not strict:
                    labels[m.group(1)] = pc
                line = m.group(2).strip()
                if not line:
                    continue
            head, _, arg = line.partition(" ")
            head, arg = head.upper(), arg.strip()
            if head == ".ORG":
                pc = _value(arg, labels, True)
                continue
            if head in (".BYTE", ".WORD"):
                for item in arg.split(","):
                    v = _value(item, labels, strict)
                    if head == ".BYTE":
                        out[pc] = v & 0xFF
                        pc += 1
                    else:
                        out[pc], out[pc + 1] = v & 0xFF, (v >> 8) & 0xFF
                        pc += 2
                continue
            mode, operand = _parse_operand(head, arg, labels, strict)
            op = _OPS[(head, mode)]
            size = _SIZE[mode]
            out[pc] = op
            if mode == "rel":
                off = operand - (pc + 2) if strict else 0
                if strict and not -128 <= off <= 127:
                    raise ValueError(f"branch out of range: {raw!r}")
                out[pc + 1] = off & 0xFF
            elif size == 2:
                out[pc + 1] = operand & 0xFF
            elif size == 3:
                out[pc + 1], out[pc + 2] = operand & 0xFF, (operand >> 8) & 0xFF
            pc += size
    return out


def _parse_operand(mn: str, arg: str, labels, strict) -> tuple[str, int]:
    modes = _modes_for(mn)
    if not arg or arg.upper() == "A":
        for mode in ("imp", "brk", "rts", "rti", "psh", "pul"):
            if mode in modes:
                return mode, 0
        raise ValueError(f"{mn} needs an operand")
    if "rel" in modes:
        return "rel", _value(arg, labels, strict)
    if mn == "JSR":
        return "jsr", _value(arg, labels, strict)
    if arg.startswith("#"):
        return "imm", _value(arg[1:], labels, strict)
    m = re.match(r"^\((.+),\s*[Xx]\)$", arg)
    if m:
        return "izx", _value(m.group(1), labels, strict)
    m = re.match(r"^\((.+)\),\s*[Yy]$", arg)
    if m:
        return "izy", _value(m.group(1), labels, strict)
    m = re.match(r"^\((.+)\)$", arg)
    if m:
        return "ind", _value(m.group(1), labels, strict)
    index = None
    m = re.match(r"^(.+),\s*([XxYy])$", arg)
    if m:
        arg, index = m.group(1), m.group(2).lower()
    is_label = not (arg[0] in "$%" or arg[0].isdigit())
    v = _value(arg, labels, strict)
    if mn == "JMP":
        return "jmp", v
    zp = not is_label and v < 0x100
    if index is None:
        mode = "zp" if zp and "zp" in modes else "abs"
    else:
        mode = ("zp" if zp and f"zp{index}" in modes else "ab") + index
    return mode, v
