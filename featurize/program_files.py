"""A program's bytes from a file, or for the CLI from a path or stdin (`-`); a missing,
unreadable or empty input is a user error."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InvalidArgumentError


def read_source_arg(arg: str) -> tuple[bytes, str]:
    """CLI helper: `-` reads stdin (text or bytecode), anything else is a path."""
    if arg == "-":
        data = sys.stdin.buffer.read()
        if not data.strip():
            raise InvalidArgumentError("the program on stdin is empty (pipe MLIR text or "
                                       ".mlirbc bytecode, or give a path)")
        return data, "<stdin>"
    return read_program_file(Path(arg), "a .mlir or .mlirbc path, or - for stdin"), arg


def read_program_file(path: Path, allowed: str) -> bytes:
    """A program file's bytes; a missing, unreadable or empty path is a user error
    (`allowed` says what could be given instead)."""
    shown = str(path)
    if path.is_dir():
        raise InvalidArgumentError(f"program path {shown!r} is a directory (give {allowed})")
    if not path.exists():
        raise InvalidArgumentError(f"program file not found: {shown!r} (give {allowed})")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidArgumentError(
            f"cannot read program file {shown!r}: {exc.strerror or exc} (give {allowed})"
        ) from None
    if not data.strip():
        raise InvalidArgumentError(f"program file {shown!r} is empty (give {allowed})")
    return data
