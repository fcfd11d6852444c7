"""The single writer of a dataset: checksummed journal lines, then immutable shards
listed in `manifest.json`.

Crash safety: a sample is durable once its journal line is fsynced. Every
``shard_rows`` samples (and on close) the journal becomes a shard: its temp file is
written and fsynced, its SHA-256 listed in the manifest (atomically rewritten), the
temp file renamed into place, and the journal emptied. A SIGKILL loses at most the
sample being measured: a torn last journal line is dropped on the next open (named in
`warnings`), a listed shard still under its temp name is rolled back (its rows are
still in the journal), and journal rows that already reached a shard (a kill between
the rename and the truncation) are dropped by sample id.

Integrity on open (see `integrity` for every command's policy): a dataset without a
manifest (written before there was one) gets one, listing the shards that read back
whole with this dataset's fingerprint; a listed shard that is damaged or missing, or a
damaged manifest, is a one-line error; a shard the manifest does not list is left
alone; a journal line that fails its checks is set aside in `journal.damaged`. Each of
these is named in `warnings`.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Mapping, TextIO

import pyarrow as pa
import pyarrow.parquet as pq

from ...atomicio import atomic_write_bytes, fsync_dir
from ...errors import DatasetError
from ...hardware.fingerprint import fingerprint_id
from .integrity import embedded_problem, shard_problem, update_manifest
from .journal import encode_line, scan_journal
from .layout import (
    DATASET_FILE,
    JOURNAL,
    JOURNAL_SET_ASIDE,
    LOCK,
    MANIFEST,
    SHARD_DIR,
    DatasetInfo,
    dataset_dir,
    one_line,
    shard_paths,
)
from .manifest import Manifest, ShardEntry, file_sha256
from .schema import SCHEMA, SCHEMA_VERSION, SHARD_META_KEY, normalize_row

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
        self._journal: BinaryIO | None = None   # open between _open() and close()
        self._lock: TextIO | None = None        # holds the dataset's flock while open
        self.warnings: list[str] = []   # what was damaged, set aside or left alone
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
        created = not meta_path.exists()
        if not created:
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
        self._lock = open(self.path / LOCK, "a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            self._lock = None
            raise DatasetError(f"{self.path} is being written by another stablecost process") \
                from None
        try:
            self.info = DatasetInfo.read(self.path)
            self._manifest = self._load_manifest(created)
            for stale in (self.path / SHARD_DIR).glob(".part-*.parquet.tmp"):
                stale.unlink(missing_ok=True)   # a shard write killed before its listing
            self.stored_ids: set[str] = set(self._shard_ids(verify=True))
            self.done_ids: set[str] = set(self.stored_ids)
            self._fold_journal()
            self._journal = open(self.path / JOURNAL, "ab")
        except BaseException:
            self._unlock()
            raise

    def _load_manifest(self, created: bool) -> Manifest:
        """The dataset's manifest: made for a new dataset, recorded for one written before
        manifests, with interrupted shard writes rolled back."""
        manifest = Manifest.read(self.path)
        if manifest is None:
            if created:
                digest, _ = file_sha256(self.path / DATASET_FILE)
                manifest = Manifest(files={DATASET_FILE: digest})
                manifest.write(self.path)
                return manifest
            update = update_manifest(self.path, self.info, locked=True)
            shards = sum(name.endswith(".parquet") for name in update.added)
            if shards or update.refused:
                self.warnings.append(f"{self.path / MANIFEST}: none; recorded the checksums "
                                     f"of the {shards} shards that read back whole as this "
                                     "dataset's")
            self.warnings += update.refused
            manifest = update.manifest
        for name in sorted(manifest.shards):
            shard = self.path / SHARD_DIR / name
            if shard.exists():
                continue
            if not shard.with_name(f".{name}.tmp").exists():
                raise DatasetError(
                    f"{shard}: listed in {MANIFEST} but missing; restore it, or run "
                    f"`stablecost dataset validate --write-manifest {self.path}` to forget "
                    "it (its samples are then measured again)")
            manifest = manifest.without_shard(name)   # killed between listing and rename
            manifest.write(self.path)
            self.warnings.append(f"{shard}: an interrupted shard write was rolled back "
                                 "(its rows are folded from the journal again)")
        return manifest

    def _fold_journal(self) -> None:
        """Move the journal file's rows that no shard holds yet into a new shard, then
        empty the journal. The file, not what this process holds in memory, is the
        record: a sample is in it once `add` returned, whatever interrupted us since;
        and a shard written just before an interrupt is not written twice."""
        journal = self.path / JOURNAL
        scan = scan_journal(journal)
        rows: dict[str, dict[str, Any]] = {}
        for line in scan.lines:
            sid = line.row["sample_id"]
            if sid not in self.stored_ids and sid not in rows:
                rows[sid] = line.row
        if rows:
            self._write_shard(list(rows.values()))
            self.stored_ids.update(rows)
        self.done_ids.update(rows)
        if scan.damaged:
            aside = self.path / JOURNAL_SET_ASIDE
            before = aside.read_bytes() if aside.exists() else b""
            atomic_write_bytes(aside, before + b"".join(
                raw if raw.endswith(b"\n") else raw + b"\n" for raw in scan.damaged_bytes))
            self.warnings += [f"{item}; set aside in {aside.name} (its sample is measured "
                              "again)" for item in scan.damaged]
        if scan.torn is not None:
            self.warnings.append(f"{scan.torn}; dropped")
        atomic_write_bytes(journal, b"")
        self._pending = 0

    def close(self) -> None:
        if self._journal is None:
            return
        self._journal.close()
        self._journal = None
        try:
            # re-read what the listed shards hold: an interrupt may have come between a
            # shard's rename and the bookkeeping after it
            self.stored_ids = set(self._shard_ids(verify=False))
            self._fold_journal()
        finally:
            self._unlock()

    def _unlock(self) -> None:
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
        assert self._journal is not None, "add() on a closed DatasetWriter"
        self._journal.write(encode_line(full))
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
        self._journal = open(self.path / JOURNAL, "ab")

    def keep_file(self, name: str, data: bytes) -> None:
        """Write one of the files the manifest checks (`hardware.toml`) and list it."""
        atomic_write_bytes(self.path / name, data)
        self._manifest = self._manifest.with_file(name, file_sha256(self.path / name)[0])
        self._manifest.write(self.path)

    def _write_shard(self, rows: list[dict[str, Any]], compression_level: int = 9) -> Path:
        table = pa.Table.from_pylist(rows, schema=SCHEMA)
        meta = {"fingerprint_id": self.fingerprint_id, "schema_version": SCHEMA_VERSION,
                "hardware": self.info.hardware}
        table = table.replace_schema_metadata({SHARD_META_KEY: json.dumps(meta).encode()})
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        final = self.path / SHARD_DIR / f"part-{stamp}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = final.with_name(f".{final.name}.tmp")
        unlisted = self._manifest
        listed = False
        try:
            pq.write_table(table, tmp, compression="zstd", compression_level=compression_level)
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            digest, size = file_sha256(tmp)
            self._manifest = unlisted.with_shard(final.name, ShardEntry(digest, len(rows), size))
            self._manifest.write(self.path)    # listed before it exists: see the docstring
            listed = True
            os.replace(tmp, final)
        except BaseException:
            if listed and not final.exists():
                unlisted.write(self.path)    # if this fails too, the temp file stays and
                self._manifest = unlisted    # the next open rolls the listing back
            tmp.unlink(missing_ok=True)
            raise
        fsync_dir(final.parent)
        return final

    def _shard_ids(self, verify: bool) -> Iterator[str]:
        """Sample ids of the listed shards (checked against the manifest with `verify`);
        shards not listed are named in `warnings` and left alone."""
        listed = self._manifest.shards
        for shard in shard_paths(self.path):
            entry = listed.get(shard.name)
            if entry is None:
                if verify:
                    self.warnings.append(f"{shard}: not in {MANIFEST}; left alone, its rows "
                                         "do not count as measured")
                continue
            if verify:
                problem = shard_problem(shard, entry) or embedded_problem(shard, self.info)
                if problem:
                    raise DatasetError(
                        f"{shard}: {problem}; move it away (its samples are then measured "
                        f"again) and run `stablecost dataset validate --write-manifest "
                        f"{self.path}`")
            try:
                ids = pq.read_table(shard, columns=["sample_id"]).column("sample_id").to_pylist()
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
                raise DatasetError(f"{shard}: unreadable shard ({one_line(str(exc))[:160]}); run "
                                   f"`stablecost dataset validate {self.path}`") from None
            yield from ids
