"""The register map of the fabric instance and the node, from the one SystemRDL description
``hls_models/registers/nc2600.rdl`` (compiled by ``make regs`` into :mod:`.generated`; this
module needs no SystemRDL compiler at run time).

:data:`INSTANCE` is the instance's map: ``INSTANCE.EP_CFG`` a :class:`Register` (byte offset,
array count and stride, fields), ``INSTANCE.EP_CFG.fire_index`` a :class:`Field` (bit position,
width, software access, reset value, encoding). Words are packed and unpacked by field name::

    word = INSTANCE.EP_CFG.pack(noops=7, fire_en=1, fire_index=1, frame_skip=4)
    INSTANCE.STATUS.unpack(word).state          # a ctrl_state_e member (or int)

and a value that does not fit its field raises ``ValueError`` naming ``REGISTER.field``. :data:`NODE` gives the node's
instances (count, offset, stride: address bit 17 selects one). The RTL (:mod:`nc2600.hw.instance`,
:mod:`nc2600.hw.node`) and the host driver (:mod:`nc2600.host.drivers.instance`) both take their offsets, widths, access
and reset values from here.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field as dc_field

from nc2600.hls_models.registers import generated as _gen

__all__ = ["Field", "Register", "RegisterMap", "NodeMap", "Values", "INSTANCE", "NODE", "ENUMS"]


def _make_enum(name: str, members) -> type[enum.IntEnum]:
    cls = enum.IntEnum(name, [(m[0], m[1]) for m in members])
    cls.labels = {cls[m[0]]: (m[2] or m[0]) for m in members}
    cls.descriptions = {cls[m[0]]: m[3] for m in members}
    return cls


#: the description's enumerations (``enum.IntEnum`` classes; ``.labels`` maps a member to its
#: SystemRDL ``name`` or its identifier, ``.descriptions`` to its ``desc``)
ENUMS: dict[str, type[enum.IntEnum]] = {name: _make_enum(name, members) for name, members in _gen.ENUMS.items()}


@dataclass(frozen=True)
class Field:
    """One field of a register.

    Attributes:
        register: the register's name; name: the field's; lsb, width: its bits ``[lsb+width-1:lsb]``.
        sw: software access, ``"r"``, ``"w"`` or ``"rw"``; hw_writes: the hardware sets it.
        reset: its value after reset, or None (no fixed value: a free-running counter, RAM).
        singlepulse: a write of 1 acts for one clock and the bit reads (if readable) 0 after.
        swmod: a write has a side effect beyond storing (a command, a memory write).
        sticky: set by the hardware and held until cleared (STATUS's error bits).
        signed: two's complement (:meth:`get` sign-extends).
        write_check: the rule the instance checks on a write (SLVERR otherwise), or None.
        encode: the enumeration of its values, or None; label: a human name or None; desc.
    """
    register: str
    name: str
    lsb: int
    width: int
    sw: str
    hw_writes: bool = False
    reset: int | None = 0
    singlepulse: bool = False
    swmod: bool = False
    sticky: bool = False
    signed: bool = False
    write_check: str | None = None
    encode: type[enum.IntEnum] | None = None
    label: str | None = None
    desc: str = ""

    @property
    def msb(self) -> int:
        return self.lsb + self.width - 1

    @property
    def mask(self) -> int:
        """The field's bits in the register word."""
        return ((1 << self.width) - 1) << self.lsb

    @property
    def readable(self) -> bool:
        return "r" in self.sw

    @property
    def writable(self) -> bool:
        return "w" in self.sw

    def check(self, value: int) -> int:
        """``value`` as the field's raw bits.

        Raises:
            ValueError: it does not fit (unsigned: ``0 <= value < 2**width``; signed:
                ``-2**(width-1) <= value < 2**(width-1)``), naming ``REGISTER.field``.
        """
        v = int(value)
        if self.signed:
            lo, hi = -(1 << (self.width - 1)), (1 << (self.width - 1)) - 1
        else:
            lo, hi = 0, (1 << self.width) - 1
        if not lo <= v <= hi:
            raise ValueError(f"{self.register}.{self.name}: {value!r} does not fit {self.width} bits "
                             f"({'signed ' if self.signed else ''}{lo}..{hi})")
        return v & ((1 << self.width) - 1)

    def pack(self, value: int) -> int:
        """``value`` placed at the field's bits (checked: :meth:`check`)."""
        return self.check(value) << self.lsb

    def get(self, word: int) -> int:
        """The field's value in a register word: sign-extended when signed, an :attr:`encode`
        member when the value is one of its encodings."""
        v = (int(word) >> self.lsb) & ((1 << self.width) - 1)
        if self.signed and v >> (self.width - 1):
            v -= 1 << self.width
        if self.encode is not None:
            try:
                return self.encode(v)
            except ValueError:
                return v
        return v


class Values(dict):
    """Field values of one register word by name (``values.state`` or ``values["state"]``)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class Register:
    """One register (or an array of ``count`` registers ``stride`` bytes apart).

    Attributes:
        name, offset (byte address in the instance), count, stride (bytes), fields (in bit order),
        memory_window (the array is a window onto a memory, four bytes per word), label, desc.
    Fields are attributes too: ``reg.fire_index``.
    """
    name: str
    offset: int
    count: int
    stride: int
    fields: tuple[Field, ...]
    memory_window: bool = False
    label: str = ""
    desc: str = ""
    _by_name: dict = dc_field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        self._by_name.update({f.name: f for f in self.fields})

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._by_name[name]
        except KeyError:
            raise AttributeError(f"register {self.name} has no field {name!r}") from None

    def __getitem__(self, name: str) -> Field:
        return self._by_name[name]

    @property
    def readable(self) -> bool:
        return any(f.readable for f in self.fields)

    @property
    def writable(self) -> bool:
        return any(f.writable for f in self.fields)

    @property
    def access(self) -> str:
        return ("r" if self.readable else "") + ("w" if self.writable else "")

    @property
    def width(self) -> int:
        """Bits up to the highest field's (the storage a register needs)."""
        return max(f.msb for f in self.fields) + 1

    @property
    def mask(self) -> int:
        """Every field's bits."""
        m = 0
        for f in self.fields:
            m |= f.mask
        return m

    @property
    def reset(self) -> int | None:
        """The word read after reset (fields' reset values, 0 elsewhere); None when a readable
        field has no fixed reset value."""
        word = 0
        for f in self.fields:
            if f.reset is None:
                if f.readable:
                    return None
                continue
            word |= f.reset << f.lsb
        return word

    def address(self, index: int = 0) -> int:
        """Byte address of entry ``index`` of the array (0 for a single register).

        Raises:
            IndexError: ``index`` outside ``0..count-1``.
        """
        if not 0 <= int(index) < self.count:
            raise IndexError(f"{self.name}[{index}]: the register has {self.count} "
                             f"entr{'y' if self.count == 1 else 'ies'}")
        return self.offset + int(index) * self.stride

    @property
    def addresses(self) -> list[int]:
        return [self.offset + i * self.stride for i in range(self.count)]

    def pack(self, **values) -> int:
        """A register word from field values by name; fields not named take their reset value
        (0 when it has none).

        Raises:
            ValueError: an unknown field name, or a value that does not fit its field (named).
        """
        unknown = set(values) - set(self._by_name)
        if unknown:
            raise ValueError(f"{self.name} has no field {', '.join(sorted(unknown))} "
                             f"(fields: {', '.join(self._by_name)})")
        word = 0
        for f in self.fields:
            word |= f.pack(values[f.name]) if f.name in values else (f.reset or 0) << f.lsb
        return word

    def unpack(self, word: int) -> Values:
        """Every field's value (:meth:`Field.get`) of a register word."""
        return Values({f.name: f.get(word) for f in self.fields})


class RegisterMap:
    """The instance's registers by name (attributes or ``[name]``), in address order when iterated."""

    def __init__(self, name: str, label: str, desc: str, registers):
        self.name, self.label, self.desc = name, label, desc
        self._regs = {r.name: r for r in registers}

    def __getattr__(self, name) -> Register:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._regs[name]
        except KeyError:
            raise AttributeError(f"no register {name!r} in {self.name}") from None

    def __getitem__(self, name: str) -> Register:
        return self._regs[name]

    def __iter__(self):
        return iter(self._regs.values())

    def __len__(self) -> int:
        return len(self._regs)

    def __contains__(self, name) -> bool:
        return name in self._regs

    @property
    def size(self) -> int:
        """Bytes up to the end of the last register."""
        return max(r.offset + r.count * r.stride for r in self)

    def at(self, address: int) -> tuple[Register, int] | None:
        """The register and array index at a byte address, or None (a gap)."""
        for r in self:
            if r.offset <= address < r.offset + r.count * r.stride and (address - r.offset) % r.stride == 0:
                return r, (address - r.offset) // r.stride
        return None


@dataclass(frozen=True)
class NodeMap:
    """A node: ``instances`` copies of the instance map, instance ``i`` at ``offset + i * stride``
    (``stride`` a power of two: address bit ``select_bit`` selects the instance)."""
    name: str
    label: str
    instances: int
    offset: int
    stride: int
    size: int
    instance: RegisterMap

    @property
    def select_bit(self) -> int:
        return self.stride.bit_length() - 1

    @property
    def addr_width(self) -> int:
        """Address bits of the node's bus."""
        return (self.size - 1).bit_length()

    def base(self, i: int) -> int:
        if not 0 <= int(i) < self.instances:
            raise IndexError(f"instance {i}: the node has {self.instances}")
        return self.offset + int(i) * self.stride


def _build() -> RegisterMap:
    regs = []
    for r in _gen.REGISTERS:
        fields = tuple(Field(register=r["name"], **{**f, "encode": ENUMS[f["encode"]] if f["encode"] else None})
                       for f in r["fields"])
        regs.append(Register(r["name"], r["offset"], r["count"], r["stride"], fields, r["memory_window"],
                             r["label"] or "", r["desc"]))
    return RegisterMap(_gen.NAME, _gen.LABEL, _gen.DESC, regs)


#: the fabric instance's register map
INSTANCE = _build()
#: the node: two instances (address bit 17 selects one)
NODE = NodeMap(_gen.NODE["name"], _gen.NODE["label"], _gen.NODE["instances"], _gen.NODE["offset"],
               _gen.NODE["stride"], _gen.NODE["size"], INSTANCE)
