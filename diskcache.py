"""A bounded on-disk cache of results that are costly to recompute and cheap to key:
partitioned programs (`featurize.partition`) and the command line's answers
(`serve.cli.answers`).

Entries are files `cache_dir()/KIND/KEY`, KEY a hex digest the caller computes from
everything the result depends on. Writes are atomic (a reader sees a whole entry or
none); a missing, unreadable or truncated entry is a miss; a full or read-only disk
means nothing is cached, never an error. Each kind keeps its `max_entries` most
recently used entries. STABLECOST_CACHE_DIR=off turns the cache off.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from .userdirs import cache_dir

_KEY = re.compile(r"[0-9a-f]{16,128}")


def _entry(kind: str, key: str) -> Path | None:
    root = cache_dir()
    if root is None:
        return None
    if not _KEY.fullmatch(key):
        raise ValueError(f"cache keys are hex digests, got {key!r}")
    return root / kind / key


def get(kind: str, key: str) -> bytes | None:
    """The entry's bytes, or None. A hit marks the entry recently used."""
    path = _entry(kind, key)
    if path is None:
        return None
    try:
        data = path.read_bytes()
        os.utime(path)
    except OSError:
        return None
    return data


def put(kind: str, key: str, data: bytes, max_entries: int = 256) -> None:
    """Store an entry (replacing one under the same key), then drop the least recently
    used entries of `kind` beyond `max_entries`."""
    path = _entry(kind, key)
    if path is None:
        return
    from .atomicio import atomic_write_bytes

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
        _prune(path.parent, max_entries)
    except OSError:
        return


def _prune(folder: Path, max_entries: int) -> None:
    entries = []
    for entry in os.scandir(folder):
        if _KEY.fullmatch(entry.name):
            with contextlib.suppress(OSError):
                entries.append((entry.stat().st_mtime_ns, entry.path))
    if len(entries) <= max_entries:
        return
    entries.sort()
    for _, path in entries[:len(entries) - max_entries]:
        with contextlib.suppress(OSError):
            os.remove(path)
