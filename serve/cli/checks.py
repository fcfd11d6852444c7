"""Checks on command-line values that run before any work does.

A command that trains for minutes, or measures for an hour, must not find out at the
end that it cannot write where it was told to: these raise `InvalidArgumentError` (one
line, exit 2) up front.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from ...errors import InvalidArgumentError


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def positive(**values: float | None) -> None:
    """Each value (named by its flag, `max_rows` -> `--max-rows`) is None or a finite
    number > 0; NaN and infinity are refused."""
    for name, value in values.items():
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InvalidArgumentError(f"{_flag(name)} {value}: must be a finite number > 0")


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def output_file(path: str | None, flag: str) -> None:
    """`path` can be written as a file: not a directory, in a folder that exists and
    is writable."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise InvalidArgumentError(f"{flag} {path!r} is a directory; give a file path")
    folder = target.absolute().parent
    if not folder.is_dir():
        raise InvalidArgumentError(f"{flag} {path!r}: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise InvalidArgumentError(f"{flag} {path!r}: the folder {str(folder)!r} is not writable")


def output_dir(path: str | None, flag: str) -> None:
    """`path` is, or can be created as, a writable directory."""
    if path is None:
        return
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InvalidArgumentError(f"{flag} {path!r} is a file; give a directory (created "
                                   "when missing)")
    existing = _nearest_existing(target)
    if not existing.is_dir():
        raise InvalidArgumentError(f"{flag} {path!r}: {str(existing)!r} is a file, not a folder")
    if not os.access(existing, os.W_OK):
        raise InvalidArgumentError(f"{flag} {path!r}: {str(existing)!r} is not writable")


def tracking_store(uri: str | None, experiment: str) -> None:
    """Connect to the MLflow store before any long work, not after it
    (`train.tracking.configure_checked`)."""
    from ...train.tracking import configure_checked

    configure_checked(uri, experiment)
