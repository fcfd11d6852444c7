"""What an import did, per dataset and overall: rows written, already present,
merged, skipped by reason, outliers flagged; as text, table rows or JSON.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class DatasetSummary:
    """What one import did to one dataset."""

    path: Path
    hardware: str
    device_name: str
    in_catalog: bool
    written: int = 0
    already_present: int = 0
    merged_repeats: int = 0          # identical parameter rows folded into one sample
    outliers: int = 0
    skipped: Counter = field(default_factory=Counter)            # reason -> source rows
    outlier_reasons: Counter = field(default_factory=Counter)    # kind of excess -> rows
    families: Counter = field(default_factory=Counter)           # family -> rows written
    warnings: list[str] = field(default_factory=list)   # damaged data its writer named


@dataclass
class ImportSummary:
    """Per dataset: rows written, already present, merged, skipped by reason, outliers
    flagged, rows per family. `rows_read` = written + already present + merged + skipped
    always holds."""

    project: str
    source_path: Path
    out_root: Path
    datasets: dict[str, DatasetSummary] = field(default_factory=dict)
    skipped_files: Counter = field(default_factory=Counter)     # reason -> files/folders
    skipped_rows: Counter = field(default_factory=Counter)      # reason -> rows (no dataset)
    files_read: int = 0
    rows_read: int = 0
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def written(self) -> int:
        return sum(d.written for d in self.datasets.values())

    @property
    def already_present(self) -> int:
        return sum(d.already_present for d in self.datasets.values())

    @property
    def outliers(self) -> int:
        return sum(d.outliers for d in self.datasets.values())

    @property
    def skipped(self) -> Counter:
        """Skipped source rows by reason, over every dataset and files with none."""
        total = Counter(self.skipped_rows)
        for d in self.datasets.values():
            total.update(d.skipped)
        return total

    def counts(self) -> dict[tuple[str, str], int]:
        """Rows written per (hardware, family)."""
        out: Counter = Counter()
        for d in self.datasets.values():
            for family, n in d.families.items():
                out[(d.hardware, family)] += n
        return dict(sorted(out.items()))

    def table_rows(self) -> list[dict[str, Any]]:
        """One dict per (dataset, family), for a rich table or JSON."""
        rows = []
        for d in self.datasets.values():
            for family, n in sorted(d.families.items()):
                rows.append({"dataset": str(d.path), "hardware": d.hardware,
                             "in_catalog": d.in_catalog, "family": family, "written": n})
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project, "source_path": str(self.source_path),
            "out_root": str(self.out_root), "files_read": self.files_read,
            "rows_read": self.rows_read, "written": self.written,
            "already_present": self.already_present, "outliers": self.outliers,
            "elapsed_s": self.elapsed_s, "skipped": dict(self.skipped),
            "skipped_files": dict(self.skipped_files), "notes": list(self.notes),
            "datasets": [{
                "path": str(d.path), "hardware": d.hardware, "device_name": d.device_name,
                "in_catalog": d.in_catalog, "written": d.written,
                "already_present": d.already_present, "merged_repeats": d.merged_repeats,
                "outliers": d.outliers, "outlier_reasons": dict(d.outlier_reasons),
                "skipped": dict(d.skipped), "families": dict(d.families),
            } for d in self.datasets.values()],
        }

    def format(self) -> str:
        """A plain-text report (fixed-width table plus skip reasons)."""
        lines = [f"{self.project}: {self.rows_read} rows from {self.files_read} files in "
                 f"{self.elapsed_s:.1f} s -> {self.out_root}",
                 f"  written {self.written}, already present {self.already_present}, "
                 f"skipped {sum(self.skipped.values())}, outliers flagged {self.outliers}"]
        header = f"  {'hardware':<26} {'family':<16} {'written':>9}"
        lines.append(header)
        for (hw, family), n in self.counts().items():
            lines.append(f"  {hw:<26} {family:<16} {n:>9}")
        for d in self.datasets.values():
            where = "catalog" if d.in_catalog else "NOT in catalog (slug of the device name)"
            lines.append(f"  dataset {d.path}: {d.hardware} [{d.device_name}, {where}] "
                         f"written {d.written}, present {d.already_present}, merged repeats "
                         f"{d.merged_repeats}, outliers {d.outliers}")
            for reason, n in d.outlier_reasons.most_common():
                lines.append(f"      outlier: {reason}: {n}")
        skipped = self.skipped
        if skipped:
            lines.append("  skipped rows:")
            lines += [f"    {n:>9}  {reason}" for reason, n in skipped.most_common()]
        if self.skipped_files:
            lines.append("  skipped files/folders:")
            lines += [f"    {n:>9}  {reason}" for reason, n in self.skipped_files.most_common()]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)
