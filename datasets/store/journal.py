"""The journal: one JSON line per finished sample, each line carrying its own SHA-256.

A line is the row's JSON object (ASCII, no spaces) with one last member added, the
SHA-256 of the line as it would read without that member::

    {"sample_id":"s0",...,"outlier_reason":null,"line_sha256":"9f2c...e1"}
    checked by hashing b'{"sample_id":"s0",...,"outlier_reason":null}'

so a check hashes the stored bytes and never re-encodes the row. Lines written before
checksums existed have no such member: they are read, checked against the schema and
counted as *unchecked*.

`scan_journal` sorts every line into a row, a damaged line (named by its number: not
UTF-8, not JSON, a checksum that does not match, an unknown field, a missing field, a
value of the wrong type) or the *torn* last line a kill mid-write leaves (no newline
at its end, and never a complete checked line). What a caller does with a damaged line
is its policy, see `integrity`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ...errors import DatasetError
from .layout import Damage
from .schema import COLUMNS, json_default, normalize_row

CHECKSUM_KEY = "line_sha256"
_TAG = re.compile(rb',"line_sha256":"([0-9a-f]{64})"\}\Z')
_TAG_ANYWHERE = re.compile(rb',"line_sha256":"[0-9a-f]{64}"\}')
_KNOWN = frozenset(COLUMNS) | {CHECKSUM_KEY}


def encode_line(row: Mapping[str, Any]) -> bytes:
    """The journal line of a normalized row, checksum and newline included."""
    body = json.dumps(row, default=json_default, separators=(",", ":")).encode()
    digest = hashlib.sha256(body).hexdigest().encode()
    return body[:-1] + b',"' + CHECKSUM_KEY.encode() + b'":"' + digest + b'"}\n'


@dataclass(frozen=True)
class JournalLine:
    number: int                 # 1-based line number in the file
    row: dict[str, Any]         # normalized (`schema.normalize_row`)
    checked: bool               # carried a checksum that matched


@dataclass(frozen=True)
class JournalScan:
    """Every line of one journal file, sorted."""

    path: Path
    lines: tuple[JournalLine, ...] = ()
    damaged: tuple[Damage, ...] = ()
    damaged_bytes: tuple[bytes, ...] = ()   # the damaged lines verbatim, newline included
    torn: Damage | None = None

    @property
    def unchecked(self) -> int:
        return sum(not line.checked for line in self.lines)


def scan_journal(path: Path) -> JournalScan:
    """Read and sort every line of the journal at `path` (none there: an empty scan)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return JournalScan(path)
    except OSError as exc:
        damage = Damage(path, f"unreadable journal ({exc.strerror or exc})")
        return JournalScan(path, damaged=(damage,))
    lines: list[JournalLine] = []
    damaged: list[Damage] = []
    raw: list[bytes] = []
    torn = None
    chunks = data.split(b"\n")
    last = len(chunks) - 1          # the text after the last newline: b"" or a torn line
    for index, chunk in enumerate(chunks):
        number = index + 1
        if not chunk.strip():
            continue
        if index == last and _is_torn(chunk):
            torn = Damage(path, "torn last line (a write cut short; its sample is not "
                                "stored and is measured again)", number)
            continue
        why, row, checked = _read_line(chunk)
        if why is not None:
            damaged.append(Damage(path, why, number))
            raw.append(chunk if index == last else chunk + b"\n")
            continue
        assert row is not None
        lines.append(JournalLine(number, row, checked))
    return JournalScan(path, tuple(lines), tuple(damaged), tuple(raw), torn)


def _is_torn(chunk: bytes) -> bool:
    """Whether the text after the last newline is what a kill mid-write leaves: a strict
    prefix of a line, which is never a JSON object and never holds a whole checksum
    member (a line that does is complete, and damaged if its newline is gone)."""
    if _TAG_ANYWHERE.search(chunk):
        return False
    try:
        json.loads(chunk)
    except ValueError:
        return True
    return False


def _read_line(chunk: bytes) -> tuple[str | None, dict[str, Any] | None, bool]:
    """(why the line is damaged or None, its normalized row, whether it was checked)."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte {exc.start} of the line)", None, False
    try:
        row = json.loads(text)
    except ValueError as exc:
        return f"not JSON ({getattr(exc, 'msg', exc)} at column {getattr(exc, 'colno', '?')})", \
            None, False
    if not isinstance(row, dict):
        return f"a JSON {type(row).__name__}, not a row object", None, False
    tag = _TAG.search(chunk)
    checked = CHECKSUM_KEY in row
    if checked:
        if tag is None:
            return f"damaged checksum member {CHECKSUM_KEY!r}", None, False
        digest = hashlib.sha256(chunk[:tag.start()] + b"}").hexdigest()
        if digest != tag.group(1).decode():
            return "checksum does not match the line (its bytes changed after writing)", \
                None, False
        del row[CHECKSUM_KEY]
    unknown = sorted(set(row) - _KNOWN)
    if unknown:
        return f"unknown fields {unknown[:3]}", None, False
    try:
        return None, normalize_row(row), checked
    except DatasetError as exc:
        return str(exc), None, False
