"""`dataset validate`: checks every file of a dataset. Its integrity (`integrity`:
shards against `manifest.json` and their embedded fingerprint, hardware and schema,
`dataset.json` and `hardware.toml` against their recorded checksums, every journal line
by number), then every row of the shards it may read (our schema, the dataset's
fingerprint, unique ids, sane timings, the manifest's row count; with `parse`, every
program loads).

Every damaged, foreign or malformed item is a problem; what could not be checked (no
manifest yet, journal lines without a checksum) is a note. `write_manifest` first makes
the manifest describe the good files on disk (`integrity.update_manifest`): the way to
cover a dataset written before manifests, or to forget a shard that was moved away.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from ...errors import DatasetError
from .integrity import ManifestUpdate, scan_dataset, update_manifest
from .layout import DatasetInfo, find_datasets, one_line
from .schema import KINDS


@dataclass
class ValidationReport:
    dataset: Path
    rows: int = 0
    shards: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checksums: bool = False           # the shards were checked against a manifest
    unchecked_lines: int = 0          # journal lines without a checksum
    manifest_update: ManifestUpdate | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def validate(path: str | os.PathLike, *, parse: bool = False,
             write_manifest: bool = False) -> list[ValidationReport]:
    """Check every file of every dataset at `path` (see the module docstring); with
    `write_manifest`, record the good files in each manifest first."""
    reports = []
    for dataset in find_datasets(path):
        report = ValidationReport(dataset)
        reports.append(report)
        try:
            info = DatasetInfo.read(dataset)
            if write_manifest:
                report.manifest_update = update_manifest(dataset, info)
        except DatasetError as exc:
            report.problems.append(str(exc))
            continue
        scan = scan_dataset(dataset, info)
        report.problems += [str(item) for item in scan.damage]
        report.notes += scan.notes
        report.checksums = scan.manifest is not None
        report.unchecked_lines = scan.journal.unchecked
        seen: set[str] = set()
        for shard in scan.shards:
            report.shards += 1
            expected = scan.manifest.shards[shard.name].rows if scan.manifest else None
            report.problems.extend(_check_shard(shard, info, seen, parse, expected))
        report.rows = len(seen)
        for line in scan.journal.lines:
            if line.row["sample_id"] not in seen:
                report.rows += 1
                seen.add(line.row["sample_id"])
    return reports


def _check_shard(shard: Path, info: DatasetInfo, seen: set[str], parse: bool,
                 expected_rows: int | None) -> list[str]:
    try:
        table = pq.read_table(shard)
        table.validate(full=True)    # text columns are UTF-8, offsets in range
        rows = table.to_pylist()
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
        return [f"{shard}: unreadable (damaged or not Parquet: {one_line(str(exc))[:160]})"]
    problems = []
    if expected_rows is not None and table.num_rows != expected_rows:
        problems.append(f"{shard}: {table.num_rows} rows, manifest.json says {expected_rows}")
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
