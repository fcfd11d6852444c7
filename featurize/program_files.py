"""A program's bytes from a file, or for the CLI from a path or stdin (`-`); a missing,
unreadable or empty input is a user error."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InvalidArgumentError
from .limits import budget


def read_source_arg(arg: str) -> tuple[bytes, str]:
    """CLI helper: `-` reads stdin (text or bytecode), anything else is a path."""
    if arg == "-":
        limit = budget("STABLECOST_MAX_PROGRAM_BYTES")
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise InvalidArgumentError(f"the program on stdin is over the {limit:,}-byte "
                                       "budget (STABLECOST_MAX_PROGRAM_BYTES)")
        if not data.strip():
            raise InvalidArgumentError("the program on stdin is empty (pipe MLIR text or "
                                       ".mlirbc bytecode, or give a path)")
        return data, "<stdin>"
    return read_program_file(Path(arg), "a .mlir, .mlirbc or .pt2 path, or - for stdin"), arg


def read_program_file(path: Path, allowed: str) -> bytes:
    """A program file's bytes; a missing, unreadable or empty path is a user error
    (`allowed` says what could be given instead)."""
    shown = str(path) if len(str(path)) <= 200 else f"{str(path)[:200]}..."
    try:
        is_dir, exists = path.is_dir(), path.exists()
    except OSError as exc:   # a name too long for the filesystem, a loop of links
        raise InvalidArgumentError(f"cannot read program file {shown!r}: "
                                   f"{exc.strerror or exc} (give {allowed})") from None
    if is_dir:
        raise InvalidArgumentError(f"program path {shown!r} is a directory (give {allowed})")
    if not exists:
        raise InvalidArgumentError(f"program file not found: {shown!r} (give {allowed})")
    limit = budget("STABLECOST_MAX_PROGRAM_BYTES")
    try:
        with path.open("rb") as fh:   # bounded: /dev/zero or a runaway pipe ends here
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InvalidArgumentError(
            f"cannot read program file {shown!r}: {exc.strerror or exc} (give {allowed})"
        ) from None
    if len(data) > limit:
        raise InvalidArgumentError(f"program file {shown!r} is over the {limit:,}-byte budget "
                                   "(STABLECOST_MAX_PROGRAM_BYTES)")
    if not data.strip():
        raise InvalidArgumentError(f"program file {shown!r} is empty (give {allowed})")
    return data
