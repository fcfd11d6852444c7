"""The single writer of a dataset: journal lines, then immutable shards.

Crash safety: a sample is durable once its journal line is fsynced. Every
``shard_rows`` samples (and on close) the journal becomes a shard (temp file, fsync,
rename) and is then emptied. A SIGKILL loses at most the sample being measured: a torn
last journal line is dropped on the next open, and journal rows that already reached a
shard (a kill between the rename and the truncation) are dropped by sample id.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, TextIO

import pyarrow as pa
import pyarrow.parquet as pq

from ...atomicio import atomic_write_bytes, fsync_dir
from ...errors import DatasetError
from ...hardware.fingerprint import fingerprint_id
from .layout import (
    DATASET_FILE,
    JOURNAL,
    SHARD_DIR,
    DatasetInfo,
    dataset_dir,
    read_journal,
    shard_paths,
)
from .schema import (
    SCHEMA,
    SCHEMA_VERSION,
    SHARD_META_KEY,
    json_default,
    normalize_row,
)

# Collected shards are small and shipped: compress hard. Bulk imports write millions
# of rows: zstd level 3 is ~6x faster per row than 9 for files ~35 % larger.
BULK_COMPRESSION_LEVEL = 3


class DatasetWriter:
    """The single writer of one dataset: `add()` makes a sample durable; `close()`
    folds the journal into a shard. Use as a context manager."""

    def __init__(self, root: str | os.PathLike, *, hardware: str,
                 fingerprint: Mapping[str, Any], shard_rows: int = 256) -> None:
        self.path = dataset_dir(Path(root), hardware, fingerprint)
        self.hardware = hardware
        self.fingerprint = dict(fingerprint)
        self.fingerprint_id = fingerprint_id(fingerprint)
        self.shard_rows = shard_rows
        self._pending = 0            # journal rows since the last fold into a shard
        self._journal: TextIO | None = None   # open between _open() and close()
        self._lock: TextIO | None = None      # holds the dataset's flock while open
        self._open()

    # -- lifecycle -------------------------------------------------------------------
    def _open(self) -> None:
        try:
            (self.path / SHARD_DIR).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise   # the CLI's full-disk message
            raise DatasetError(f"{self.path}: cannot create the dataset there "
                               f"({exc.strerror or exc}); give a writable --out") from None
        meta_path = self.path / DATASET_FILE
        if meta_path.exists():
            info = DatasetInfo.read(self.path)
            if info.fingerprint_id != self.fingerprint_id:
                raise DatasetError(
                    f"{self.path} holds measurements of another machine "
                    f"({info.fingerprint_id}); this one is {self.fingerprint_id}")
        else:
            meta = {"schema_version": SCHEMA_VERSION, "hardware": self.hardware,
                    "fingerprint": self.fingerprint,
                    "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
            atomic_write_bytes(meta_path, json.dumps(meta, indent=2).encode() + b"\n")
        self._lock = open(self.path / ".lock", "a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            self._lock = None
            raise DatasetError(f"{self.path} is being written by another stablecost process") \
                from None
        for stale in (self.path / SHARD_DIR).glob(".part-*.parquet.tmp"):
            stale.unlink(missing_ok=True)   # a shard write killed before its rename
        self.stored_ids: set[str] = set(_shard_ids(self.path))
        self.done_ids: set[str] = set(self.stored_ids)
        self._fold_journal()
        self._journal = open(self.path / JOURNAL, "a", encoding="utf-8")

    def _fold_journal(self) -> None:
        """Move the journal file's rows that no shard holds yet into a new shard, then
        empty the journal. The file, not what this process holds in memory, is the
        record: a sample is in it once `add` returned, whatever interrupted us since;
        and a shard written just before an interrupt is not written twice."""
        journal = self.path / JOURNAL
        rows: dict[str, dict[str, Any]] = {}
        for raw in read_journal(journal):
            if raw["sample_id"] in self.stored_ids or raw["sample_id"] in rows:
                continue
            try:
                rows[raw["sample_id"]] = normalize_row(raw)
            except DatasetError as exc:
                raise DatasetError(f"{journal}: {exc} (fix or delete that line; the other "
                                   "rows are kept)") from None
        if rows:
            self._write_shard(list(rows.values()))
            self.stored_ids.update(rows)
        self.done_ids.update(rows)
        atomic_write_bytes(journal, b"")
        self._pending = 0

    def close(self) -> None:
        if self._journal is None:
            return
        self._journal.close()
        self._journal = None
        # re-read what the shards hold: an interrupt may have come between a shard's
        # rename and the bookkeeping after it
        self.stored_ids = set(_shard_ids(self.path))
        self._fold_journal()
        if self._lock is not None:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None

    def __enter__(self) -> "DatasetWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------
    def has(self, sample_id: str) -> bool:
        return sample_id in self.done_ids

    def add(self, row: Mapping[str, Any]) -> None:
        """Append one finished sample; it is durable when this returns."""
        full = normalize_row({**row, "fingerprint": self.fingerprint_id,
                              "hardware": row.get("hardware") or self.hardware})
        if full["sample_id"] in self.done_ids:
            return
        line = json.dumps(full, default=json_default, separators=(",", ":"))
        assert self._journal is not None, "add() on a closed DatasetWriter"
        self._journal.write(line + "\n")
        self._journal.flush()
        os.fsync(self._journal.fileno())
        self.done_ids.add(full["sample_id"])
        self._pending += 1
        if self._pending >= self.shard_rows:
            self.flush()

    def add_many(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Bulk append for importers: straight to shards, no journal. Returns rows added."""
        batch: list[dict[str, Any]] = []
        added = 0
        for row in rows:
            full = normalize_row({**row, "fingerprint": self.fingerprint_id,
                                  "hardware": row.get("hardware") or self.hardware})
            if full["sample_id"] in self.done_ids:
                continue
            self.done_ids.add(full["sample_id"])
            batch.append(full)
            if len(batch) >= 50_000:
                self._write_shard(batch, BULK_COMPRESSION_LEVEL)
                self.stored_ids.update(r["sample_id"] for r in batch)
                added += len(batch)
                batch = []
        if batch:
            self._write_shard(batch, BULK_COMPRESSION_LEVEL)
            self.stored_ids.update(r["sample_id"] for r in batch)
            added += len(batch)
        return added

    def flush(self) -> None:
        """Move the journal's rows into a new shard."""
        if not self._pending:
            return
        assert self._journal is not None   # pending rows went through the open journal
        self._journal.close()
        self._journal = None
        self._fold_journal()
        self._journal = open(self.path / JOURNAL, "a", encoding="utf-8")

    def _write_shard(self, rows: list[dict[str, Any]], compression_level: int = 9) -> Path:
        table = pa.Table.from_pylist(rows, schema=SCHEMA)
        meta = {"fingerprint_id": self.fingerprint_id, "schema_version": SCHEMA_VERSION}
        table = table.replace_schema_metadata({SHARD_META_KEY: json.dumps(meta).encode()})
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        final = self.path / SHARD_DIR / f"part-{stamp}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = final.with_name(f".{final.name}.tmp")
        try:
            pq.write_table(table, tmp, compression="zstd", compression_level=compression_level)
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        fsync_dir(final.parent)
        return final


def _shard_ids(dataset: Path) -> Iterator[str]:
    for shard in shard_paths(dataset):
        try:
            table = pq.read_table(shard, columns=["sample_id"])
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
            raise DatasetError(f"{shard}: unreadable shard ({exc}); run `stablecost dataset "
                               f"validate {dataset}`") from None
        yield from table.column("sample_id").to_pylist()
