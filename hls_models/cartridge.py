"""Cartridge mapper (bank-switching scheme) detection from the ROM image.

Rule: Stella 2.4.2 ``Cartridge::autodetectType`` as embedded in ALE 0.12 (ALE has no
properties database, so every ROM goes through auto-detection; the ALE log line
``Bankswitch Type: AUTO-DETECT ==> <type>`` shows the result). Decision by size, then
by byte signatures in the image:

- 2048 bytes, or 4096 with identical halves -> ``2K`` (``CV`` if a CommaVid RAM store is seen)
- 4096 -> ``4K`` (or ``CV``)
- 8192 -> ``F8SC`` (first 256 bytes of every 4K bank constant, Superchip RAM) / ``4K``
  (identical halves) / ``E0`` / ``3E`` / ``3F`` / ``UA`` / ``FE`` (signatures) / else ``F8``
- 10240, 10495, 10496 -> ``DPC`` (Pitfall II)
- 12288 -> ``FASC``; 16384 -> ``F6SC`` / ``E7`` / ``3E`` / ``3F`` / ``F6``;
  32768 -> ``F4SC`` / ``3E`` / ``3F`` / ``F4``; 65536 -> ``3E``/``3F``/``MB``;
  131072 -> ``3E``/``3F``/``MC``; multiples of 8448 -> ``AR``.

The cartridge hardware addresses fewer bytes than some dumps hold: :func:`cartridge_image` gives
the bytes a host loads into the console's ROM memory.

Two ROM md5s are forced to ``F8 swapped`` by ALE before detection (not among ALE's games).
The nc2600 console implements the mappers of ALE's 104 loadable games: 2K, 4K, F8, F6, E0,
F8SC, F6SC, FE, DPC (:data:`SUPPORTED_MAPPERS`).
"""
from __future__ import annotations

SUPPORTED_MAPPERS = ("2K", "4K", "F8", "F6", "E0", "F8SC", "F6SC", "FE", "DPC")

#: Stella's mapper names -> the code of the console's ``mapper`` configuration input (the RTL's
#: ``nc2600.hw.cartridge.Mapper``; the host drivers write it): one code per mapper of :data:`SUPPORTED_MAPPERS`.
MAPPER_CODES = {"2K": 0, "4K": 1, "F8": 2, "F6": 3, "F8SC": 4, "F6SC": 5, "E0": 6, "FE": 7, "DPC": 8}

#: bytes of a ROM file that a mapper addresses, where a dump may hold more: Stella 2.4.2
#: ``CartridgeDPC`` copies the 8,192 program bytes (file offsets 0..8,191) and the 2,048-byte display
#: image (8,192..10,239) and never reads the rest of a 10,495- or 10,496-byte dump.
ADDRESSED_BYTES = {"DPC": 8192 + 2048}

_E0 = (b"\x8d\xe0\x1f", b"\x8d\xe0\x5f", b"\x8d\xe9\xff", b"\xad\xe9\xff", b"\xad\xed\xff", b"\xad\xf3\xbf")
_FE = (b"\x20\x00\xd0\xc6\xc5", b"\x20\xc3\xf8\xa5\x82", b"\xd0\xfb\x20\x73\xfe", b"\x20\x00\xf0\x84\xd6")
_CV = (b"\x9d\xff\xf3", b"\x99\x00\xf4")


def count_signature(image: bytes, signature: bytes, min_hits: int) -> bool:
    """True when ``signature`` occurs at least ``min_hits`` times in ``image``.

    Stella's scan: start offsets ``0 .. len(image) - len(signature) - 1`` (the very last
    possible offset is not examined) and, after a hit, the scan resumes
    ``len(signature) + 1`` bytes further on.
    """
    n, k = len(image), len(signature)
    if k > n:
        return False
    count, i = 0, 0
    while i < n - k:
        if image[i:i + k] == signature:
            count += 1
            i += k
        if count >= min_hits:
            break
        i += 1
    return count >= min_hits


def _superchip(image: bytes) -> bool:
    for bank in range(len(image) // 4096):
        area = image[bank * 4096: bank * 4096 + 256]
        if area.count(area[0]) != 256:
            return False
    return True


def _e7(image: bytes) -> bool:
    first = image[0x3800]
    if image[0x3800:0x3A00].count(first) != 0x200:
        return False
    before = image[0x3800 - 32:0x3800]
    after = image[0x3A00:0x3A00 + 32]
    return before.count(first) != 32 or after.count(first) != 32


def _any(image: bytes, sigs: tuple[bytes, ...]) -> bool:
    return any(count_signature(image, s, 1) for s in sigs)


def _3e(image: bytes) -> bool:
    return count_signature(image, b"\x85\x3e\xa9\x00", 1)


def _3f(image: bytes) -> bool:
    return count_signature(image, b"\x85\x3f", 2)


def detect_mapper(image: bytes) -> str:
    """Mapper name for a ROM image (Stella 2.4.2 auto-detection, see module doc).

    Args:
        image: the whole ROM file as bytes.
    Returns:
        Stella's type name, e.g. ``"4K"``, ``"F8"``, ``"DPC"``.
    Raises:
        ValueError: the size matches no known scheme (Stella's "Unrecognized cartridge").
    """
    size = len(image)
    if size and size % 8448 == 0:
        return "AR"
    if size == 2048 or (size == 4096 and image[:2048] == image[2048:]):
        return "CV" if _any(image, _CV) else "2K"
    if size == 4096:
        return "CV" if _any(image, _CV) else "4K"
    if size == 8192:
        if _superchip(image):
            return "F8SC"
        if image[:4096] == image[4096:]:
            return "4K"
        for name, test in (("E0", lambda im: _any(im, _E0)), ("3E", _3e), ("3F", _3f),
                           ("UA", lambda im: count_signature(im, b"\x8d\x40\x02", 1)),
                           ("FE", lambda im: _any(im, _FE))):
            if test(image):
                return name
        return "F8"
    if size in (10495, 10496, 10240):
        return "DPC"
    if size == 12288:
        return "FASC"
    if size == 16384:
        if _superchip(image):
            return "F6SC"
        if _e7(image):
            return "E7"
        return "3E" if _3e(image) else "3F" if _3f(image) else "F6"
    if size == 32768:
        if _superchip(image):
            return "F4SC"
        return "3E" if _3e(image) else "3F" if _3f(image) else "F4"
    if size in (65536, 131072):
        return "3E" if _3e(image) else "3F" if _3f(image) else ("MB" if size == 65536 else "MC")
    if _3e(image):
        return "3E"
    if _3f(image):
        return "3F"
    raise ValueError(f"unrecognized cartridge: ROM size was {size} bytes")


def cartridge_image(image: bytes, mapper: str | None = None) -> bytes:
    """The bytes of a ROM file that its cartridge addresses (:data:`ADDRESSED_BYTES`): a DPC
    dump's first 10,240 bytes (8 KiB program + 2 KiB display image), every other mapper's whole
    file. What a host loads into the console's ROM memory (the fabric instance takes
    ``ROM_SIZE`` in multiples of 2,048 bytes, :data:`nc2600.hw.instance.ROM_SIZES`).

    Args:
        image: the whole ROM file.
        mapper: its mapper (:func:`detect_mapper` of ``image`` when None).
    Raises:
        ValueError: an unrecognised size (:func:`detect_mapper`).
    """
    mapper = detect_mapper(image) if mapper is None else mapper
    n = ADDRESSED_BYTES.get(mapper)
    return bytes(image) if n is None else bytes(image[:n])
