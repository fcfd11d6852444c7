"""The sink of one dataset: its writer, pending rows, summary and progress ticks;
and which dataset (hardware name) a device's rows go to.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ...errors import UnknownHardwareError
from ..store.layout import slug
from ..store.writer import DatasetWriter
from .summary import DatasetSummary

FLUSH_ROWS = 50_000           # rows buffered per dataset before a shard is written
PROGRESS_EVERY = 20_000       # source rows between progress callbacks


class Sink:
    """One dataset's writer, its pending rows and its summary (one per task)."""

    def __init__(self, out_root: Path, project: str, hardware: str, device_name: str,
                 in_catalog: bool, report: Callable[[int, str], None]) -> None:
        self.project = project
        self.report = report
        self.unreported = 0
        self.now = datetime.now(timezone.utc)
        fingerprint = {"backend": "gpu", "device_name": device_name, "source": project}
        self.writer = DatasetWriter(out_root, hardware=hardware, fingerprint=fingerprint,
                                    shard_rows=FLUSH_ROWS)
        self.summary = DatasetSummary(self.writer.path, hardware, device_name, in_catalog)
        self.pending: list[dict[str, Any]] = []
        self.seen: set[str] = set()

    def tick(self, rows: int, label: str, force: bool = False) -> None:
        self.unreported += rows
        if self.unreported >= PROGRESS_EVERY or (force and self.unreported):
            self.report(self.unreported, label)
            self.unreported = 0

    def add(self, row: dict[str, Any], outlier_category: str | None = None) -> None:
        sid, ds = row["sample_id"], self.summary
        if sid in self.seen or self.writer.has(sid):
            ds.already_present += row["repeats"]
            return
        if outlier_category:
            ds.outlier_reasons[outlier_category] += 1
        self.seen.add(sid)
        self.pending.append(row)
        ds.written += 1
        ds.merged_repeats += row["repeats"] - 1
        ds.families[row["family"]] += 1
        if row["outlier"]:
            ds.outliers += 1
        if len(self.pending) >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.writer.add_many(self.pending)
            self.pending = []

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.writer.close()
            self.summary.warnings = list(self.writer.warnings)


def resolve_hardware(device_name: str) -> tuple[str, bool, Any]:
    """(hardware name, in catalog, Hardware or None) for a device name."""
    from ...hardware import get_hardware

    try:
        hw = get_hardware(device_name)
    except UnknownHardwareError:
        return slug(device_name), False, None
    return hw.name, True, hw
