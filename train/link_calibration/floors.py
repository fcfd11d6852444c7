"""What bounds the protocol model's error with GPU counts held out: the spread of the
measured times themselves. The tables hold several rows per collective kind, GPU count
and message size (f16 and i8, and one per NCCL version where several were measured), and
a model that knows only the kind, GPU count and size gives all of them one time. The
floor here is the error of the best such model, one chosen with the held-out rows
themselves: the median of the measured times of each (kind, GPU count, size) group.
The same with one time per (kind, GPU count, size, NCCL version) is the floor of a
model that also takes the NCCL version as an input.

The rows are those `validation.validate_protocols` holds out by GPU count (each group
size n, fitted on the other counts), pooled the same way, so each floor stands next to
the model's error on the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from .measurements import CALIBRATED_KINDS, CollectiveMeasurement, Measurements
from .report import percent
from .validation import ALL, COUNTS, Ape, ProtocolReport

GroupKey = Callable[[CollectiveMeasurement], Hashable]


def by_size(r: CollectiveMeasurement) -> Hashable:
    """One time per collective kind, GPU count and message size."""
    return (r.hardware, r.kind, r.num_devices, r.bytes_per_device)


def by_size_and_version(r: CollectiveMeasurement) -> Hashable:
    """One time per collective kind, GPU count, message size and NCCL version."""
    return (r.hardware, r.kind, r.num_devices, r.bytes_per_device, r.library)


def spread_errors(rows: Sequence[CollectiveMeasurement],
                  key: GroupKey = by_size) -> np.ndarray:
    """Per row, median / time - 1, with the median over the rows of its group (`key`):
    the error of a model that gives each group its median time."""
    groups: dict[Hashable, list[float]] = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r.time_s)
    median = {k: float(np.median(v)) for k, v in groups.items()}
    return np.array([median[key(r)] / r.time_s - 1.0 for r in rows])


@dataclass(frozen=True)
class FloorRow:
    """One chip, kind (or `ALL`) and held-out GPU-count split (`COUNTS` or `gpus=<n>`):
    the protocol model's error and the two floors on the same rows."""

    hardware: str
    kind: str
    split: str
    model: Ape
    floor: Ape                  # one time per (kind, GPUs, size)
    floor_per_version: Ape      # one time per (kind, GPUs, size, NCCL version)

    def to_dict(self) -> dict[str, Any]:
        return {"hardware": self.hardware, "kind": self.kind, "split": self.split,
                "model": self.model.to_dict(), "floor": self.floor.to_dict(),
                "floor_per_version": self.floor_per_version.to_dict()}


@dataclass(frozen=True)
class FloorReport:
    """The floors of every chip, and the NCCL versions each chip's rows come from."""

    rows: tuple[FloorRow, ...]
    versions: dict[str, tuple[str, ...]]

    def to_dict(self) -> dict[str, Any]:
        return {"rows": [r.to_dict() for r in self.rows],
                "versions": {k: list(v) for k, v in self.versions.items()}}

    def format(self) -> str:
        lines = ["Held-out GPU counts, absolute error median / p90: the protocol model "
                 "and the floors set by the",
                 "spread of the measured times (one time per group of rows: their median, "
                 "chosen with the held-out rows)"]
        for chip, versions in self.versions.items():
            lines += ["", f"{chip} ({', '.join(versions)})", "",
                      "| held out | rows | protocol model | one time per (kind, GPUs, "
                      "size) | one time per (kind, GPUs, size, NCCL version) |",
                      "|---|---|---|---|---|"]
            for r in self.rows:
                if r.hardware == chip:
                    lines.append(f"| {_label(r)} | {r.floor.rows} | {_pair(r.model)} | "
                                 f"{_pair(r.floor)} | {_pair(r.floor_per_version)} |")
        return "\n".join(lines)


def _label(r: FloorRow) -> str:
    kinds = "all kinds" if r.kind == ALL else r.kind
    gpus = "every GPU count" if r.split == COUNTS else r.split.replace(f"{COUNTS}=", "") + \
        " GPUs"
    return f"{kinds}, {gpus}"


def _pair(a: Ape) -> str:
    return f"{percent(a.median)} / {percent(a.p90)}" if a.rows else "-"


def held_out_count_floors(data: Measurements, protocols: ProtocolReport) -> FloorReport:
    """The floors on the rows `protocols` (validated on `data`) held out by GPU count:
    every kind pooled, every kind pooled per GPU count, and each kind."""
    out: list[FloorRow] = []
    versions: dict[str, tuple[str, ...]] = {}
    for chip in data.hardware():
        rows = [r for r in data.rows if r.hardware == chip]
        versions[chip] = tuple(sorted({r.library for r in rows}))
        # (kind, n) pairs the validation held out: those it reports a split for
        held = {(kind, n) for kind, n in {(r.kind, r.num_devices) for r in rows}
                if protocols.split(chip, kind, f"{COUNTS}={n}") is not None}
        floor = spread_errors(rows, by_size)
        per_version = spread_errors(rows, by_size_and_version)
        counts = sorted({n for _, n in held})
        wanted = [(ALL, COUNTS)] + [(ALL, f"{COUNTS}={n}") for n in counts] + \
            [(kind, COUNTS) for kind in CALIBRATED_KINDS]
        for kind, split in wanted:
            model = protocols.split(chip, kind, split)
            if model is None:
                continue
            select = np.array([(r.kind, r.num_devices) in held
                               and kind in (ALL, r.kind)
                               and split in (COUNTS, f"{COUNTS}={r.num_devices}")
                               for r in rows])
            out.append(FloorRow(chip, kind, split, model.protocols,
                                Ape.of(floor[select]), Ape.of(per_version[select])))
    return FloorReport(tuple(out), versions)
