"""Amaranth shapes and values from the register description (:mod:`nc2600.hls_models.registers`).

A register of the description becomes a ``data.FlexibleLayout`` whose fields sit at the
description's bit positions with its widths (signed where the field is); storage is a ``Signal``
of that layout with the description's reset values, so a register's width, field positions and
reset value cannot differ from the description. :func:`pack` builds a read word from one value
per field, checking that every field is driven with a value of exactly its width.
"""
from __future__ import annotations

from amaranth import Cat, Const, Signal, Value, signed, unsigned
from amaranth.lib import data


def layout(reg) -> data.FlexibleLayout:
    """The register's fields as a layout of ``reg.width`` bits (bits no field covers are unused)."""
    return data.FlexibleLayout(reg.width, {
        f.name: data.Field(signed(f.width) if f.signed else unsigned(f.width), f.lsb) for f in reg.fields})


def reset_values(reg) -> dict[str, int]:
    """Field name -> raw reset bits (fields without a reset value: 0)."""
    return {f.name: (f.reset or 0) - ((1 << f.width) if f.signed and (f.reset or 0) >> (f.width - 1) else 0)
            for f in reg.fields}


def storage(reg, name: str | None = None) -> data.View:
    """A register of ``reg``'s layout holding its reset value after reset."""
    return Signal(layout(reg), init=reset_values(reg), name=name or reg.name.lower())


def pack(reg, **values) -> Value:
    """The read word of ``reg`` (``reg.width`` bits) from one value per field, by name.

    Raises:
        ValueError: a field without a value, an unknown name, or a value whose width is not the
            field's (naming the field).
    """
    names = [f.name for f in reg.fields]
    if set(values) != set(names):
        raise ValueError(f"{reg.name}: fields {sorted(set(names) - set(values))} not driven, "
                         f"unknown {sorted(set(values) - set(names))}")
    parts, pos = [], 0
    for f in sorted(reg.fields, key=lambda f: f.lsb):
        v = Value.cast(values[f.name])
        if len(v) != f.width:
            raise ValueError(f"{reg.name}.{f.name}: a {len(v)}-bit value for a {f.width}-bit field")
        if f.lsb > pos:
            parts.append(Const(0, f.lsb - pos))
        parts.append(v)
        pos = f.lsb + f.width
    return Cat(*parts)


def check_width(reg, value) -> Value:
    """``value`` as the read source of a one-field register, checked to have the field's width.

    Raises:
        ValueError: the register has more than one field, or the widths differ (naming it).
    """
    if len(reg.fields) != 1:
        raise ValueError(f"{reg.name}: {len(reg.fields)} fields; build its word with pack()")
    f = reg.fields[0]
    v = Value.cast(value)
    if len(v) != f.width or f.lsb != 0:
        raise ValueError(f"{reg.name}.{f.name}: a {len(v)}-bit source for bits [{f.msb}:{f.lsb}]")
    return v
