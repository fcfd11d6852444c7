"""`manifest.json`: the SHA-256, size and row count of every shard of a dataset, and the
SHA-256 of the other files a reader relies on (`dataset.json`, `hardware.toml`).

    {
     "files": {"dataset.json": "5e0b...", "hardware.toml": "c41d..."},
     "manifest_sha256": "77aa...",
     "manifest_version": 1,
     "shards": {"part-20261121T070404-ae767236.parquet":
                {"rows": 5862, "sha256": "0f3e...", "size_bytes": 774116}}
    }

The writer lists a shard (atomically rewriting this file) after the shard's temp file
is complete and before it is renamed into place, so a listed shard that is missing
while its temp file is there is an interrupted write, and one missing without it was
deleted. `manifest_sha256` covers the rest of the file, and a file that is not
byte for byte what `encode` writes is refused too: no change to the manifest itself
goes unnoticed.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from ...atomicio import atomic_write_bytes
from ...errors import DatasetError
from .layout import MANIFEST

MANIFEST_VERSION = 1
_HEX64 = re.compile(r"[0-9a-f]{64}")


def file_sha256(path: Path) -> tuple[str, int]:
    """(SHA-256 hex digest, size in bytes) of the file at `path`."""
    with open(path, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256")
        return digest.hexdigest(), fh.tell()


@dataclass(frozen=True)
class ShardEntry:
    sha256: str
    rows: int
    size_bytes: int


@dataclass(frozen=True)
class Manifest:
    shards: Mapping[str, ShardEntry] = field(default_factory=dict)   # by file name
    files: Mapping[str, str] = field(default_factory=dict)           # name -> SHA-256

    @classmethod
    def read(cls, dataset: Path) -> "Manifest | None":
        """The dataset's manifest; None when it has none; a damaged one is refused."""
        path = dataset / MANIFEST
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise DatasetError(f"{path}: unreadable ({exc.strerror or exc})") from None
        try:
            manifest = cls._parse(json.loads(data.decode("utf-8")))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DatasetError(f"{path}: damaged manifest ({_reason(exc)}); restore it, or "
                               "delete it and run `stablecost dataset validate "
                               f"--write-manifest {dataset}`") from None
        if manifest.encode() != data:
            raise DatasetError(f"{path}: damaged manifest (its bytes differ from what "
                               "stablecost writes); restore it, or delete it and run "
                               f"`stablecost dataset validate --write-manifest {dataset}`")
        return manifest

    @classmethod
    def _parse(cls, meta: Any) -> "Manifest":
        if not isinstance(meta, dict) or set(meta) != {"files", "manifest_sha256",
                                                        "manifest_version", "shards"}:
            raise ValueError("not the object stablecost writes")
        if meta["manifest_version"] != MANIFEST_VERSION:
            raise ValueError(f"version {meta['manifest_version']!r}, this stablecost reads "
                             f"{MANIFEST_VERSION}")
        files = {str(k): _hex(v) for k, v in meta["files"].items()}
        shards = {}
        for name, entry in meta["shards"].items():
            if set(entry) != {"rows", "sha256", "size_bytes"}:
                raise ValueError(f"entry of {name} is not the object stablecost writes")
            shards[str(name)] = ShardEntry(_hex(entry["sha256"]), _count(entry["rows"]),
                                           _count(entry["size_bytes"]))
        manifest = cls(shards, files)
        if manifest._digest() != meta["manifest_sha256"]:
            raise ValueError("manifest_sha256 does not match its contents")
        return manifest

    def _body(self) -> dict[str, Any]:
        return {"files": dict(sorted(self.files.items())), "manifest_version": MANIFEST_VERSION,
                "shards": {name: {"rows": e.rows, "sha256": e.sha256, "size_bytes": e.size_bytes}
                           for name, e in sorted(self.shards.items())}}

    def _digest(self) -> str:
        blob = json.dumps(self._body(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def encode(self) -> bytes:
        meta = {**self._body(), "manifest_sha256": self._digest()}
        return json.dumps(meta, sort_keys=True, indent=1).encode() + b"\n"

    def write(self, dataset: Path) -> None:
        atomic_write_bytes(dataset / MANIFEST, self.encode())

    def with_shard(self, name: str, entry: ShardEntry) -> "Manifest":
        return replace(self, shards={**self.shards, name: entry})

    def without_shard(self, name: str) -> "Manifest":
        return replace(self, shards={k: v for k, v in self.shards.items() if k != name})

    def with_file(self, name: str, sha256: str) -> "Manifest":
        return replace(self, files={**self.files, name: sha256})


def _hex(value: Any) -> str:
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise ValueError(f"{value!r} is not a SHA-256 hex digest")
    return value


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{value!r} is not a count")
    return value


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 at byte {exc.start}"
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc.msg} at line {exc.lineno}"
    return str(exc) if isinstance(exc, ValueError) else "not the object stablecost writes"
