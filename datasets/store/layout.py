"""Where a dataset keeps what: its directory name, `dataset.json`, the shard,
journal and manifest files, finding datasets under a root, and `Damage`, how every
check names a damaged, foreign or malformed item.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ...errors import DatasetError
from ...hardware.fingerprint import fingerprint_id
from .schema import SCHEMA_VERSION

DATASET_FILE = "dataset.json"
SHARD_DIR = "shards"
JOURNAL = "journal.jsonl"
JOURNAL_SET_ASIDE = "journal.damaged"   # journal lines the writer could not verify, verbatim
MANIFEST = "manifest.json"
LOCK = ".lock"                          # held by the one writer (flock)
CHECKED_FILES = (DATASET_FILE, "hardware.toml")   # besides shards, what the manifest covers


@dataclass(frozen=True)
class Damage:
    """One damaged, foreign or malformed item of a dataset: a file, or a line of one."""

    path: Path
    what: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path} line {self.line}" if self.line is not None else str(self.path)
        return f"{where}: {one_line(self.what)}"


def one_line(text: str) -> str:
    """`text` with its line breaks and runs of spaces made single spaces (a library's
    exception text inside a one-line message)."""
    return " ".join(text.split())


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "unknown"


@dataclass(frozen=True)
class DatasetInfo:
    """What `dataset.json` says about a dataset."""

    path: Path
    hardware: str
    fingerprint: dict[str, Any]
    fingerprint_id: str
    schema_version: int
    created: str

    @classmethod
    def read(cls, path: Path) -> "DatasetInfo":
        meta_path = path / DATASET_FILE
        try:
            meta = json.loads(meta_path.read_text())
        except FileNotFoundError:
            raise DatasetError(f"{path}: not a stablecost dataset (no {DATASET_FILE})") from None
        except (OSError, ValueError) as exc:
            raise DatasetError(f"{meta_path}: unreadable ({exc})") from None
        if not isinstance(meta, dict):
            raise DatasetError(f"{meta_path}: holds a JSON {type(meta).__name__}, not the "
                               "object stablecost writes")
        version = meta.get("schema_version")
        if version != SCHEMA_VERSION:
            raise DatasetError(
                f"{meta_path}: schema version {version!r}, this stablecost reads version "
                f"{SCHEMA_VERSION}")
        fingerprint = meta.get("fingerprint") or {}
        return cls(path=path, hardware=str(meta.get("hardware", "")), fingerprint=fingerprint,
                   fingerprint_id=fingerprint_id(fingerprint), schema_version=version,
                   created=str(meta.get("created", "")))


def dataset_dir(root: Path, hardware: str, fingerprint: Mapping[str, Any]) -> Path:
    """Where the dataset for this fingerprint lives under `root`."""
    return Path(root) / f"{slug(hardware)}-{fingerprint_id(fingerprint)[:8]}"


def find_datasets(path: str | os.PathLike) -> list[Path]:
    """The datasets at `path`: itself if it is one, else every dataset below it."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such directory")
    if (path / DATASET_FILE).exists():
        return [path]
    found = sorted(p.parent for p in path.glob(f"**/{DATASET_FILE}"))
    if not found:
        raise DatasetError(f"{path}: holds no stablecost dataset (no {DATASET_FILE} below it)")
    return found


def shard_paths(dataset: Path) -> list[Path]:
    """Every file named like a shard, listed in the manifest or not (`scan_dataset`
    says which of them may be read)."""
    return sorted((dataset / SHARD_DIR).glob("part-*.parquet"))
