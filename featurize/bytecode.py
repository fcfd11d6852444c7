"""A structural check of MLIR bytecode before jaxlib's reader sees it.

The reader trusts much of what it reads: a string that is not UTF-8 aborts the process
when the bindings turn it into a Python `str`, and a count of billions makes it reserve
memory for that many entries. This walks the envelope of the format
(mlir/docs/BytecodeFormat.md) in pure Python and refuses, with one line:

- a header without a version or producer (the magic is checked by the caller);
- a section whose id is unknown, that appears twice, that runs past the end of the
  data, or whose alignment is not a power of two padded with 0xCB bytes;
- a string section whose counts or lengths do not add up, or whose strings are not
  UTF-8 (the crash that random corruption hits most);
- a count (dialects, attributes and types, properties, resource groups) larger than the
  bytes of its section could hold, and attribute/type offsets that do not add up to
  their section, or entries in textual form that are not UTF-8.

It does not decode the IR section or dialect-specific attribute encodings: counts
inside them are checked by the reader, and what it misses there is why bytecode from
outside is parsed in a child process (`featurize/isolation.py`). A 9 kB module is
checked in about 0.5 ms.
"""

from __future__ import annotations

from ..errors import ProgramParseError

BYTECODE_MAGIC = b"ML\xefR"
MAX_VERSION = 64          # the reader knows 0..6 today; anything far above is garbage
_NAMES = ("String", "Dialect", "AttrType", "AttrTypeOffset", "IR", "Resource",
          "ResourceOffset", "DialectVersions", "Properties")
_REQUIRED = (0, 1, 2, 3, 4)
_PADDING = 0xCB


class _Reader:
    def __init__(self, data: bytes, start: int, end: int, what: str, name: str,
                 kind: str = "MLIR bytecode") -> None:
        self.data, self.pos, self.end, self.what, self.name = data, start, end, what, name
        self.kind = kind

    def fail(self, message: str, at: int | None = None) -> ProgramParseError:
        return ProgramParseError(f"{self.name}: corrupt {self.kind}: {self.what} "
                                 f"(byte {self.pos if at is None else at}): {message}")

    def left(self) -> int:
        return self.end - self.pos

    def byte(self) -> int:
        if self.pos >= self.end:
            raise self.fail("ends early")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        """A PrefixVarInt: trailing zero bits of the first byte count the extra bytes."""
        first = self.byte()
        extra = 8 if first == 0 else (first & -first).bit_length() - 1
        if extra > self.left():
            raise self.fail("ends inside a number")
        rest = int.from_bytes(self.data[self.pos:self.pos + extra], "little")
        self.pos += extra
        if first == 0:
            return rest
        return ((rest << 8) | first) >> (extra + 1)

    def count(self, what: str, each_bytes: int = 1) -> int:
        """A count of entries that take at least `each_bytes` each in this section."""
        n = self.varint()
        if n * each_bytes > self.left():
            raise self.fail(f"{n:,} {what} cannot fit in the {self.left():,} bytes left")
        return n


def check_bytecode(data: bytes, name: str) -> None:
    """Raise ProgramParseError for bytecode whose envelope is malformed (see above)."""
    head = _Reader(data, len(BYTECODE_MAGIC), len(data), "header", name)
    version = head.varint()
    if version > MAX_VERSION:
        raise head.fail(f"version {version} (this reader knows 0 to about 6)")
    producer_end = data.find(b"\0", head.pos)
    if producer_end < 0:
        raise head.fail("the producer string has no terminating NUL")
    _utf8(data[head.pos:producer_end], head, "the producer string")
    producer = data[head.pos:producer_end].decode("utf-8")
    if producer.startswith("StableHLO_v"):   # errors name a portable artifact's version
        head.kind = f"StableHLO portable artifact (VHLO bytecode, {producer[:40]})"
    head.pos = producer_end + 1
    sections: dict[int, tuple[int, int]] = {}
    while head.left():
        start = head.pos
        code = head.byte()
        ident, aligned = code & 0x7F, bool(code & 0x80)
        head.what = f"section at byte {start}"
        if ident >= len(_NAMES):
            raise head.fail(f"unknown section id {ident} (0 to {len(_NAMES) - 1})")
        if ident in sections:
            raise head.fail(f"section {_NAMES[ident]} appears twice")
        length = head.varint()
        if aligned:
            alignment = head.varint()
            if alignment < 1 or alignment & (alignment - 1) or alignment > 1 << 16:
                raise head.fail(f"alignment {alignment} is not a power of two up to 65536")
            while head.pos % alignment and head.left() and head.data[head.pos] == _PADDING:
                head.pos += 1
        if length > head.left():
            raise head.fail(f"section {_NAMES[ident]} is {length:,} bytes, only "
                            f"{head.left():,} left")
        sections[ident] = (head.pos, head.pos + length)
        head.pos += length
    missing = [_NAMES[i] for i in _REQUIRED if i not in sections]
    if missing:
        raise head.fail(f"no {', '.join(missing)} section")

    def reader(ident: int) -> _Reader:
        start, end = sections[ident]
        return _Reader(data, start, end, f"{_NAMES[ident]} section", name, head.kind)

    _check_strings(reader(0))
    reader(1).count("dialects")
    _check_attr_types(reader(3), sections[2], data)
    if 8 in sections and sections[8][1] > sections[8][0]:
        reader(8).count("properties")
    if 6 in sections:
        reader(6).count("resource groups", 2)


def _utf8(raw: bytes, where: _Reader, what: str, at: int | None = None) -> None:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise where.fail(f"{what} is not UTF-8 (byte {raw[exc.start]:#04x}); names and "
                         "strings must be UTF-8", at) from None


def _check_strings(r: _Reader) -> None:
    """numStrings, their lengths in reverse order, then the NUL-terminated strings."""
    n = r.count("strings")
    lengths = [r.varint() for _ in range(n)]
    data_start = r.pos
    if sum(lengths) != r.end - data_start:
        raise r.fail(f"string lengths add up to {sum(lengths):,} bytes, the data holds "
                     f"{r.end - data_start:,}")
    at = data_start
    for index, length in enumerate(reversed(lengths)):
        raw = r.data[at:at + length]
        if length < 1 or raw[-1] != 0:
            raise r.fail(f"string #{index} is not NUL-terminated", at)
        _utf8(raw[:-1], r, f"string #{index}", at)
        at += length


def _check_attr_types(r: _Reader, attr_section: tuple[int, int], data: bytes) -> None:
    """numAttrs, numTypes, then per-dialect groups of (size << 1 | custom) entries; the
    sizes tile the AttrType section, and textual entries are UTF-8."""
    total = r.count("attributes") + r.count("types")
    at, end = attr_section
    seen = 0
    while r.left():
        r.varint()   # the dialect (checked by the reader)
        for _ in range(r.count("attributes and types")):
            entry = r.varint()
            size, custom = entry >> 1, entry & 1
            if size > end - at:
                raise r.fail(f"an attribute or type of {size:,} bytes runs past the end of "
                             "the AttrType section")
            if not custom:
                _utf8(data[at:at + size].rstrip(b"\0"), r, "an attribute or type in "
                      "textual form", at)
            at += size
            seen += 1
    if seen != total:
        raise r.fail(f"{seen:,} attribute and type offsets for {total:,} entries")
