"""`dataset validate`: checks every shard of a dataset (readable, our schema,
its fingerprint, unique ids, sane timings, optionally loadable programs).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from ...errors import DatasetError
from .layout import JOURNAL, SHARD_DIR, DatasetInfo, find_datasets, read_journal, shard_paths
from .schema import KINDS, SCHEMA, SCHEMA_VERSION, SHARD_META_KEY, normalize_row


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
        for row in read_journal(dataset / JOURNAL):
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
    raw = (table.schema.metadata or {}).get(SHARD_META_KEY)
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
            from ...featurize.ingest import load_program

            try:
                load_program(row["stablehlo"])
            except Exception as exc:  # noqa: BLE001 - report every failure by sample
                problems.append(f"{where}: program does not load ({exc})")
    return problems
