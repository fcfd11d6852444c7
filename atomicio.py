"""Atomic file writes: a reader sees the old file or the new one, never half of either.

    atomic_write_bytes(Path("model/meta.json"), b"{}")   # temp file, fsync, rename, fsync dir
    atomic_write_toml(Path("spec.toml"), {"name": "x"})

A failed write (full disk, rename onto a directory, an interrupt) leaves the target as
it was and no temp file behind.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path
from typing import Any, Mapping


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` through a temp file beside it."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


def atomic_write_toml(path: Path, data: Mapping[str, Any]) -> Path:
    """Write `data` as TOML to `path` (creating its directory), atomically."""
    import tomli_w

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, tomli_w.dumps(dict(data)).encode())
    return path


def fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (best effort: some filesystems refuse)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
