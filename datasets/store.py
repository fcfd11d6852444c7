"""The measurement store: append-only Parquet shards, one dataset per hardware fingerprint.

Layout of a dataset directory::

    <dataset>/
      dataset.json          what measured it: fingerprint, schema version, hardware name
      shards/part-*.parquet  immutable shards, each written to a temp file and renamed
      journal.jsonl          finished samples not yet in a shard (fsynced line by line)
      .lock                  held by the one writer

A *root* is any directory holding datasets (``collect --out d`` writes ``d/<slug>/``);
every reader accepts either a dataset or a root.

Crash safety: a sample is durable once its journal line is fsynced. Every
``shard_rows`` samples (and on close) the journal becomes a shard (temp file, fsync,
rename) and is then emptied. A SIGKILL loses at most the sample being measured: a torn
last journal line is dropped on the next open, and journal rows that already reached a
shard (a kill between the rename and the truncation) are dropped by sample id.

Rows keep the StableHLO text of what was measured and never its features: features are
computed at load time, so a new featurizer never needs re-measuring.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from ..atomicio import atomic_write_bytes, fsync_dir
from ..errors import DatasetError

SCHEMA_VERSION = 1
DATASET_FILE = "dataset.json"
SHARD_DIR = "shards"
JOURNAL = "journal.jsonl"
KINDS = ("kernel", "program", "collective")

SCHEMA = pa.schema([
    ("sample_id", pa.string()),        # content hash of what was measured and how
    ("group_id", pa.string()),         # workload / shape family, for grouped splits
    ("kind", pa.string()),             # kernel | program | collective
    ("family", pa.string()),           # op family (dot_general, convolution, ...) or model family
    ("variant", pa.string()),
    ("dtype", pa.string()),
    ("params", pa.string()),           # JSON: the generator parameters (rebuilds the sample)
    ("stablehlo", pa.large_string()),  # the program measured, StableHLO text
    ("median_s", pa.float64()),
    ("p10_s", pa.float64()),
    ("p90_s", pa.float64()),
    ("min_s", pa.float64()),
    ("mean_s", pa.float64()),
    ("cv", pa.float64()),              # std / mean of the repeats
    ("repeats", pa.int32()),
    ("warmup", pa.int32()),
    ("cache_flush", pa.string()),      # how caches were flushed between repeats ("none", ...)
    ("kernel_times", pa.string()),     # JSON per-kernel times inside a step, when profiled
    ("hardware", pa.string()),         # catalog name ("host-cpu", "H100-SXM", ...)
    ("device_name", pa.string()),
    ("fingerprint", pa.string()),
    ("backend", pa.string()),
    ("jax_version", pa.string()),
    ("jaxlib_version", pa.string()),
    ("collector_version", pa.string()),
    ("timestamp", pa.timestamp("us", tz="UTC")),
    ("source", pa.string()),           # "collected" or "imported:<project>/<path>"
    ("outlier", pa.bool_()),
    ("outlier_reason", pa.string()),
])
COLUMNS = tuple(SCHEMA.names)
_NULLABLE = {"kernel_times", "outlier_reason", "jax_version", "jaxlib_version"}
_META_KEY = b"stablecost"
# Collected shards are small and shipped: compress hard. Bulk imports write millions
# of rows: zstd level 3 is ~6x faster per row than 9 for files ~35 % larger.
BULK_COMPRESSION_LEVEL = 3


def fingerprint_id(fingerprint: Mapping[str, Any]) -> str:
    """A short stable id of a hardware fingerprint (sorted-key JSON, SHA-256)."""
    blob = json.dumps(dict(fingerprint), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def sample_id(*parts: Any) -> str:
    """Content id of a sample: the same measurement spec always gets the same id."""
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


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


def normalize_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Check one row against the schema; fill optional columns; raise on a bad row."""
    missing = [c for c in COLUMNS if c not in row and c not in _NULLABLE
               and c not in ("outlier", "timestamp", "cache_flush", "warmup")]
    if missing:
        raise DatasetError(f"row {row.get('sample_id', '?')}: missing columns {missing}")
    out = {c: row.get(c) for c in COLUMNS}
    out.setdefault("outlier", False)
    if out["outlier"] is None:
        out["outlier"] = False
    if out["cache_flush"] is None:
        out["cache_flush"] = "none"
    if out["warmup"] is None:
        out["warmup"] = 0
    ts = out["timestamp"]
    if ts is None:
        out["timestamp"] = datetime.now(timezone.utc)
    elif isinstance(ts, str):
        out["timestamp"] = datetime.fromisoformat(ts)
    if out["kind"] not in KINDS:
        raise DatasetError(f"row {out['sample_id']}: kind {out['kind']!r}, allowed: {KINDS}")
    for key in ("median_s", "p10_s", "p90_s", "min_s", "mean_s"):
        value = out[key]
        if value is None or not math.isfinite(value) or value <= 0:
            raise DatasetError(f"row {out['sample_id']}: {key}={value!r} is not a positive time")
    return out


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


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
        self._journal = None
        self._lock = None
        self._open()

    # -- lifecycle -------------------------------------------------------------------
    def _open(self) -> None:
        (self.path / SHARD_DIR).mkdir(parents=True, exist_ok=True)
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
        for raw in _read_journal(journal):
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
        line = json.dumps(full, default=_json_default, separators=(",", ":"))
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
        self._journal.close()
        self._journal = None
        self._fold_journal()
        self._journal = open(self.path / JOURNAL, "a", encoding="utf-8")

    def _write_shard(self, rows: list[dict[str, Any]], compression_level: int = 9) -> Path:
        table = pa.Table.from_pylist(rows, schema=SCHEMA)
        meta = {"fingerprint_id": self.fingerprint_id, "schema_version": SCHEMA_VERSION}
        table = table.replace_schema_metadata({_META_KEY: json.dumps(meta).encode()})
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


def _read_journal(path: Path) -> Iterator[dict[str, Any]]:
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


def _shard_ids(dataset: Path) -> Iterator[str]:
    for shard in shard_paths(dataset):
        try:
            table = pq.read_table(shard, columns=["sample_id"])
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
            raise DatasetError(f"{shard}: unreadable shard ({exc}); run `stablecost dataset "
                               f"validate {dataset}`") from None
        yield from table.column("sample_id").to_pylist()


def read_table(path: str | os.PathLike, columns: list[str] | None = None) -> pa.Table:
    """Every row of every dataset at `path` (a dataset or a root), journal included."""
    wanted = columns
    if columns is not None and "sample_id" not in columns:
        columns = [*columns, "sample_id"]   # to drop rows stored twice
    tables = []
    for dataset in find_datasets(path):
        DatasetInfo.read(dataset)
        for shard in shard_paths(dataset):
            try:
                tables.append(pq.read_table(shard, columns=columns, schema=SCHEMA))
            except Exception as exc:  # noqa: BLE001
                raise DatasetError(f"{shard}: unreadable shard ({exc})") from None
        pending = [normalize_row(r) for r in _read_journal(dataset / JOURNAL)]
        if pending:
            table = pa.Table.from_pylist(pending, schema=SCHEMA)
            tables.append(table.select(columns) if columns else table)
    if not tables:
        schema = SCHEMA if wanted is None else pa.schema([SCHEMA.field(c) for c in wanted])
        return schema.empty_table()
    table = pa.concat_tables([t.replace_schema_metadata(None) for t in tables])
    if "sample_id" in table.column_names:  # journal rows that also reached a shard
        ids = table.column("sample_id").to_pylist()
        seen: set[str] = set()
        keep = [not (i in seen or seen.add(i)) for i in ids]
        if not all(keep):
            table = table.filter(pa.array(keep))
    return table if wanted is None or wanted == columns else table.select(wanted)


def read_frame(path: str | os.PathLike, columns: list[str] | None = None):
    """`read_table` as a pandas DataFrame."""
    return read_table(path, columns).to_pandas()


@dataclass
class ValidationReport:
    dataset: Path
    rows: int = 0
    shards: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate(path: str | os.PathLike, *, parse: bool = False) -> list[ValidationReport]:
    """Check every shard of every dataset at `path`: readable, our schema, this dataset's
    fingerprint, unique sample ids, sane timings; with `parse`, every program loads."""
    reports = []
    for dataset in find_datasets(path):
        report = ValidationReport(dataset)
        reports.append(report)
        try:
            info = DatasetInfo.read(dataset)
        except DatasetError as exc:
            report.problems.append(str(exc))
            continue
        seen: set[str] = set()
        for stray in (dataset / SHARD_DIR).iterdir():
            if stray.is_file() and stray.suffix == ".parquet" and stray not in shard_paths(dataset):
                report.problems.append(f"{stray}: not a shard name stablecost writes")
        for shard in shard_paths(dataset):
            report.shards += 1
            report.problems.extend(_check_shard(shard, info, seen, parse))
        report.rows = len(seen)
        for row in _read_journal(dataset / JOURNAL):
            if row["sample_id"] not in seen:
                try:
                    normalize_row(row)
                except DatasetError as exc:
                    report.problems.append(f"{dataset / JOURNAL}: {exc}")
                report.rows += 1
                seen.add(row["sample_id"])
    return reports


def _check_shard(shard: Path, info: DatasetInfo, seen: set[str], parse: bool) -> list[str]:
    try:
        file = pq.ParquetFile(shard)
        table = file.read()
    except Exception as exc:  # noqa: BLE001
        return [f"{shard}: unreadable (truncated or not Parquet: {exc})"]
    problems = []
    raw = (table.schema.metadata or {}).get(_META_KEY)
    meta = json.loads(raw) if raw else {}
    if not table.schema.remove_metadata().equals(SCHEMA):
        return [f"{shard}: foreign shard (its columns are not stablecost schema "
                f"v{SCHEMA_VERSION})"]
    if meta.get("fingerprint_id") != info.fingerprint_id:
        return [f"{shard}: foreign shard (fingerprint {meta.get('fingerprint_id')!r}, "
                f"dataset is {info.fingerprint_id})"]
    rows = table.to_pylist()
    for row in rows:
        sid = row["sample_id"]
        where = f"{shard.name} sample {sid}"
        if sid in seen:
            problems.append(f"{where}: duplicate sample id")
        seen.add(sid)
        if row["fingerprint"] != info.fingerprint_id:
            problems.append(f"{where}: fingerprint {row['fingerprint']} is not the dataset's")
        if row["kind"] not in KINDS:
            problems.append(f"{where}: kind {row['kind']!r}")
        times = [row[k] for k in ("p10_s", "median_s", "p90_s")]
        if any(t is None or not math.isfinite(t) or t <= 0 for t in times):
            problems.append(f"{where}: non-positive time {times}")
        elif not times[0] <= times[1] <= times[2]:
            problems.append(f"{where}: p10 <= median <= p90 does not hold {times}")
        if not row["stablehlo"]:
            problems.append(f"{where}: empty StableHLO")
        elif parse:
            from ..featurize.ingest import load_program

            try:
                load_program(row["stablehlo"])
            except Exception as exc:  # noqa: BLE001 - report every failure by sample
                problems.append(f"{where}: program does not load ({exc})")
    return problems
