"""Where a dataset keeps what: its directory name, `dataset.json`, the shard
and journal files, and finding datasets under a root.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ...errors import DatasetError
from ...hardware.fingerprint import fingerprint_id
from .schema import SCHEMA_VERSION

DATASET_FILE = "dataset.json"
SHARD_DIR = "shards"
JOURNAL = "journal.jsonl"


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


def read_journal(path: Path) -> Iterator[dict[str, Any]]:
    """Complete journal lines; a torn last line (killed mid-write) is skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and "sample_id" in row:
            yield row


def shard_paths(dataset: Path) -> list[Path]:
    return sorted((dataset / SHARD_DIR).glob("part-*.parquet"))
