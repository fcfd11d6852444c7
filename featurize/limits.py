"""Budgets on the work one program may cause, and the cheap checks that run before
jaxlib's parser sees it: input that would crash the process inside the MLIR bindings
(names holding bytes that are not UTF-8, thousands of nested regions) or make a load
run without end (functions that call the next one twice, 40 deep) is a one-line error.

Every budget has a default and an environment variable that overrides it:

| budget | default | variable |
|---|---|---|
| program bytes read | 512 MiB | STABLECOST_MAX_PROGRAM_BYTES |
| nesting depth of regions (`{` in the text) | 256 | STABLECOST_MAX_NESTING |
| depth of inlined function calls | 256 | STABLECOST_MAX_CALL_DEPTH |
| ops after inlining calls | 1,000,000 | STABLECOST_MAX_OPS |
| seconds to read MLIR bytecode (in a child process) | 60 | STABLECOST_MAX_PARSE_SECONDS |
| seconds of XLA's SPMD partitioner (in a child process) | 600 | STABLECOST_MAX_PARTITION_SECONDS |

A walk nested about 500 deep exceeds Python's recursion limit, and the parser itself
crashed on 3,500 nested whiles: 256 keeps both far away, and real programs nest a few
levels (a scan in a remat in a while: under 10). Bytecode gets a structural check
(`featurize/bytecode.py`) and, from outside, a child process (`featurize/isolation.py`).
"""

from __future__ import annotations

import os
import re

from ..errors import InvalidArgumentError, ProgramParseError, UnsupportedProgramError
from .bytecode import BYTECODE_MAGIC, check_bytecode

_DEFAULTS = {"STABLECOST_MAX_PROGRAM_BYTES": 512 * 1024 * 1024,
             "STABLECOST_MAX_NESTING": 256,
             "STABLECOST_MAX_CALL_DEPTH": 256,
             "STABLECOST_MAX_OPS": 1_000_000,
             "STABLECOST_MAX_PARSE_SECONDS": 60,
             "STABLECOST_MAX_PARTITION_SECONDS": 600}

# a quoted MLIR string: "..." with backslash escapes
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_ESCAPE = re.compile(rb"\\([0-9A-Fa-f]{2})")
_BRACES = re.compile(rb"[{}]")


def budget(variable: str) -> int:
    """The budget named by `variable` (see the table above)."""
    text = os.environ.get(variable)
    if text is None:
        return _DEFAULTS[variable]
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise InvalidArgumentError(f"{variable}={text!r}: must be a positive integer")
    return value


def check_source(source: str | bytes, name: str) -> None:
    """Refuse input a parser would die on: text that is not UTF-8, a quoted name whose
    escapes are not UTF-8, regions nested deeper than the budget; bytecode whose
    envelope is malformed (`featurize/bytecode.py`)."""
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else \
        bytes(source)
    limit = budget("STABLECOST_MAX_PROGRAM_BYTES")
    if len(data) > limit:
        raise UnsupportedProgramError(
            f"{name}: the program is {len(data):,} bytes, over the {limit:,}-byte budget "
            "(STABLECOST_MAX_PROGRAM_BYTES)")
    if data.startswith(BYTECODE_MAGIC):
        check_bytecode(data, name)
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ProgramParseError(f"{name}:{line}: the text is not UTF-8 (byte "
                                f"{data[exc.start]:#04x}); MLIR text must be UTF-8") from None
    _check_escapes(data, name)
    _check_nesting(data, name)


def _check_escapes(data: bytes, name: str) -> None:
    if b"\\" not in data:   # no escapes at all: nothing to decode
        return
    for match in _STRING.finditer(data):
        literal = match.group()
        if b"\\" not in literal:
            continue
        raw = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), literal)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            line = data.count(b"\n", 0, match.start()) + 1
            shown = literal[:40].decode("ascii", "replace")
            raise ProgramParseError(
                f"{name}:{line}: the string {shown} holds escaped bytes that are not "
                "UTF-8; names and strings must be UTF-8") from None


def _check_nesting(data: bytes, name: str) -> None:
    limit = budget("STABLECOST_MAX_NESTING")
    if data.count(b"{") <= limit:   # fewer braces than the budget cannot nest deeper
        return
    outside = _STRING.sub(b'""', data)
    depth = deepest = 0
    for match in _BRACES.finditer(outside):
        depth += 1 if match.group() == b"{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                line = outside.count(b"\n", 0, match.start()) + 1
                raise UnsupportedProgramError(
                    f"{name}:{line}: regions nested more than {limit} deep (budget "
                    "STABLECOST_MAX_NESTING)")
