"""How well the protocol model (`protocols`) predicts NCCL collectives it was not fitted
to, against the single alpha-beta fit per kind (`fit.fit_chip`, the previous calibrated
model) under the same splits:

- held-out message sizes: `measurements.held_out_mask` (every third power of two);
- held-out GPU counts: for each group size n measured, fit on the other counts and
  predict n (8 from 2 and 4 is an extrapolation; 4 from 2 and 8 an interpolation);
- 8-GPU all_reduce at 16-256 MiB: measured (median over the NCCL versions) against the
  model fitted to every row, fitted without that message size, and fitted without 8-GPU
  rows, and the alpha-beta fit without that message size.

Errors are absolute percentage errors |model / measured - 1|, reported as median and
90th percentile per chip and kind (and over every kind). Every model time is
`collective_time` on the topology the fitted values describe (`protocol_time_s`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ...hardware import CalibratedProtocol, get_hardware
from ...models.comm.phases import ALL_REDUCE
from .fit import LinkParams, fit_chip
from .measurements import (
    CALIBRATED_KINDS,
    HELD_OUT_EVERY,
    CollectiveMeasurement,
    held_out_mask,
    load_collective_measurements,
)
from .protocols import ProtocolParams, fit_protocols, protocol_times
from .report import _relative_errors, percent

ALL = "all"
SIZES = "sizes"                  # the held-out-size split
COUNTS = "gpus"                  # every held-out GPU count together
MIB = 2 ** 20
ALL_REDUCE_SIZES_BYTES = tuple(m * MIB for m in (16, 32, 64, 128, 256))
ALL_REDUCE_DEVICES = 8


@dataclass(frozen=True)
class Ape:
    """Absolute percentage errors of a set of rows: count, median, p90, max."""

    rows: int
    median: float
    p90: float
    max: float

    @classmethod
    def of(cls, relative_errors: Sequence[float] | np.ndarray) -> "Ape":
        e = np.abs(np.asarray(relative_errors, dtype=float))
        if e.size == 0:
            return cls(0, math.nan, math.nan, math.nan)
        return cls(int(e.size), float(np.median(e)), float(np.percentile(e, 90)),
                   float(e.max()))

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "median": self.median, "p90": self.p90, "max": self.max}


@dataclass(frozen=True)
class SplitRow:
    """One chip, kind (or `ALL`) and split (`SIZES`, `COUNTS` or `gpus=<n>`): the
    protocol model's errors and the alpha-beta fit's on the same held-out rows."""

    hardware: str
    kind: str
    split: str
    protocols: Ape
    alpha_beta: Ape

    def to_dict(self) -> dict[str, Any]:
        return {"hardware": self.hardware, "kind": self.kind, "split": self.split,
                "protocols": self.protocols.to_dict(), "alpha_beta": self.alpha_beta.to_dict()}


@dataclass(frozen=True)
class AllReduceRow:
    """One 8-GPU all_reduce size and dtype: measured and predicted seconds."""

    hardware: str
    dtype: str
    num_devices: int
    bytes_per_device: float
    measured_s: float
    versions: int
    fitted_s: float             # protocols, fitted to every row
    size_held_out_s: float      # protocols, fitted without this message size
    count_held_out_s: float     # protocols, fitted without this GPU count
    alpha_beta_size_held_out_s: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ProtocolReport:
    """The final per-kind protocol fits (every row) and their held-out validation."""

    data_root: str
    fits: tuple[ProtocolParams, ...]
    splits: tuple[SplitRow, ...]
    all_reduce: tuple[AllReduceRow, ...]
    group_sizes: dict[str, tuple[int, ...]]

    def fit(self, hardware: str, kind: str) -> ProtocolParams | None:
        name = get_hardware(hardware).name
        return next((f for f in self.fits if f.hardware == name and f.kind == kind), None)

    def split(self, hardware: str, kind: str, split: str) -> SplitRow | None:
        name = get_hardware(hardware).name
        return next((s for s in self.splits if (s.hardware, s.kind, s.split) ==
                     (name, kind, split)), None)

    def to_dict(self) -> dict[str, Any]:
        return {"data_root": self.data_root,
                "fits": [{"hardware": f.hardware, "kind": f.kind,
                          "train_rows": f.train_rows, "outliers": f.outliers,
                          "protocols": [p.__dict__ for p in f.protocols]}
                         for f in self.fits],
                "splits": [s.to_dict() for s in self.splits],
                "all_reduce": [r.to_dict() for r in self.all_reduce]}

    def format(self) -> str:
        lines = [f"NCCL protocol model (LL / LL128 / Simple ring, NVLS all_reduce) from "
                 f"{self.data_root}", "",
                 "Fitted protocols (every row): overhead us / latency per step us / bus "
                 "bandwidth GB/s / rate of the per-byte cost GB/s (- none; p: all_to_all's per "
                 "peer message)",
                 f"{'chip':<14} {'kind':<15} {'rows':>5} {'outl':>4}  protocols"]
        for f in self.fits:
            cells = "  ".join(f"{p.name} {p.overhead_s * 1e6:.1f}/{p.latency_s * 1e6:.2f}/"
                              f"{p.bandwidth_bytes_per_s / 1e9:.0f}/{_rate_gb(p)}"
                              for p in f.protocols)
            lines.append(f"{f.hardware:<14} {f.kind:<15} {f.train_rows:>5} {f.outliers:>4}"
                         f"  {cells}")
        lines += ["", "Held-out absolute percentage error, median / p90 (rows): protocol "
                  "model vs the alpha-beta fit per kind",
                  f"{'chip':<14} {'kind':<15} {'held out':<9} {'rows':>5} "
                  f"{'protocols':>17} {'alpha-beta':>17}"]
        for s in self.splits:
            lines.append(f"{s.hardware:<14} {s.kind:<15} {s.split:<9} {s.protocols.rows:>5} "
                         f"{_pair(s.protocols):>17} {_pair(s.alpha_beta):>17}")
        lines.append("(sizes: every message size whose round(log2 bytes) % "
                     f"{HELD_OUT_EVERY} == 0, fitted on the others; gpus=n: fitted on the "
                     "other GPU counts; gpus: every gpus=n row together)")
        lines += ["", f"{ALL_REDUCE_DEVICES}-GPU all_reduce: measured (median over NCCL "
                  "versions) and predicted, us (error)",
                  f"{'chip':<14} {'dtype':<5} {'size':>8} {'measured':>9} {'fitted':>15} "
                  f"{'size held out':>15} {'8 GPUs held out':>15} {'alpha-beta, size h.o.':>22}"]
        for r in self.all_reduce:
            lines.append(
                f"{r.hardware:<14} {r.dtype:<5} {r.bytes_per_device / MIB:>5.0f} MiB "
                f"{r.measured_s * 1e6:>9.1f} {_cell(r.fitted_s, r.measured_s):>15} "
                f"{_cell(r.size_held_out_s, r.measured_s):>15} "
                f"{_cell(r.count_held_out_s, r.measured_s):>15} "
                f"{_cell(r.alpha_beta_size_held_out_s, r.measured_s):>22}")
        return "\n".join(lines)


def _rate_gb(p: CalibratedProtocol) -> str:
    """The rate of the per-byte cost, GB/s; all_to_all's per-peer rate marked 'p'."""
    if p.peer_seconds_per_byte > 0:
        return f"p{1e-9 / p.peer_seconds_per_byte:.1f}"
    c = p.buffer_seconds_per_byte
    return f"{1e-9 / c:.0f}" if c > 0 else "-"


def _pair(a: Ape) -> str:
    return f"{percent(a.median)} / {percent(a.p90)}" if a.rows else "-"


def _cell(predicted: float, measured: float) -> str:
    return f"{predicted * 1e6:.1f} ({100 * (predicted / measured - 1):+.0f}%)"


def _errors(params: ProtocolParams, rows: Sequence[CollectiveMeasurement]) -> np.ndarray:
    return protocol_times(params, rows) / np.array([r.time_s for r in rows]) - 1.0


def _alpha_beta_errors(train: Sequence[CollectiveMeasurement],
                       test: Sequence[CollectiveMeasurement]) -> np.ndarray:
    hw = get_hardware(train[0].hardware)
    params, _ = fit_chip(train, LinkParams.of_catalog(hw))
    return _relative_errors(test, hw, params)


def validate_protocols(data_root: str | Path, hardware: str | Sequence[str] | None = None,
                       *, held_out_every: int = HELD_OUT_EVERY,
                       all_reduce_sizes: Sequence[float] = ALL_REDUCE_SIZES_BYTES,
                       ) -> ProtocolReport:
    """Fit the protocol model per chip and kind at `data_root` (every row: the values the
    catalog gets) and validate it on held-out message sizes and GPU counts (module
    docstring). `hardware`: only these chips."""
    data = load_collective_measurements(data_root, hardware)
    fits: list[ProtocolParams] = []
    splits: list[SplitRow] = []
    ar_rows: list[AllReduceRow] = []
    group_sizes: dict[str, tuple[int, ...]] = {}
    for name in data.hardware():
        chip_rows = [r for r in data.rows if r.hardware == name]
        counts = tuple(sorted({r.num_devices for r in chip_rows}))
        group_sizes[name] = counts
        pooled: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        count_fits: dict[tuple[str, int], ProtocolParams] = {}
        for kind in CALIBRATED_KINDS:
            rows = [r for r in chip_rows if r.kind == kind]
            if not rows:
                continue
            fits.append(fit_protocols(rows, kind))
            mask = held_out_mask([r.bytes_per_device for r in rows], held_out_every)
            train = [r for r, m in zip(rows, mask) if not m]
            test = [r for r, m in zip(rows, mask) if m]
            if train and test:
                e_p = _errors(fit_protocols(train, kind), test)
                e_a = _alpha_beta_errors(train, test)
                splits.append(SplitRow(name, kind, SIZES, Ape.of(e_p), Ape.of(e_a)))
                pooled.setdefault(SIZES, []).append((e_p, e_a))
            all_p, all_a = [], []
            for n in counts:
                train = [r for r in rows if r.num_devices != n]
                test = [r for r in rows if r.num_devices == n]
                if len({r.num_devices for r in train}) < 2 or not test:
                    continue
                count_fits[kind, n] = fit_protocols(train, kind)
                e_p = _errors(count_fits[kind, n], test)
                e_a = _alpha_beta_errors(train, test)
                splits.append(SplitRow(name, kind, f"{COUNTS}={n}", Ape.of(e_p), Ape.of(e_a)))
                pooled.setdefault(f"{COUNTS}={n}", []).append((e_p, e_a))
                all_p.append(e_p)
                all_a.append(e_a)
            if all_p:
                splits.append(SplitRow(name, kind, COUNTS, Ape.of(np.concatenate(all_p)),
                                       Ape.of(np.concatenate(all_a))))
                pooled.setdefault(COUNTS, []).append((np.concatenate(all_p),
                                                      np.concatenate(all_a)))
        for split, parts in pooled.items():
            splits.append(SplitRow(name, ALL, split,
                                   Ape.of(np.concatenate([p for p, _ in parts])),
                                   Ape.of(np.concatenate([a for _, a in parts]))))
        fitted = next((f for f in fits if f.hardware == name and f.kind == ALL_REDUCE), None)
        if fitted is not None:
            ar_rows += _all_reduce_rows(name, chip_rows, fitted,
                                        count_fits.get((ALL_REDUCE, ALL_REDUCE_DEVICES)),
                                        all_reduce_sizes)
    return ProtocolReport(str(data.data_root), tuple(fits), tuple(splits), tuple(ar_rows),
                          group_sizes)


def _all_reduce_rows(name: str, chip_rows: Sequence[CollectiveMeasurement],
                     fitted: ProtocolParams, count_fit: ProtocolParams | None,
                     sizes: Sequence[float]) -> list[AllReduceRow]:
    rows = [r for r in chip_rows if r.kind == ALL_REDUCE]
    out = []
    for size in sizes:
        here = [r for r in rows if r.bytes_per_device == size
                and r.num_devices == ALL_REDUCE_DEVICES]
        if not here:
            continue
        others = [r for r in rows if r.bytes_per_device != size]
        size_fit = fit_protocols(others, ALL_REDUCE)
        hw = get_hardware(name)
        ab_params, _ = fit_chip(others, LinkParams.of_catalog(hw))
        for dtype in sorted({r.dtype for r in here}):
            sel = [r for r in here if r.dtype == dtype]
            probe = sel[0]
            measured = float(np.median([r.time_s for r in sel]))
            count_s = (float(protocol_times(count_fit, [probe])[0]) if count_fit is not None
                       else math.nan)
            ab = _relative_errors([probe], hw, ab_params)[0] + 1.0
            out.append(AllReduceRow(
                name, dtype, ALL_REDUCE_DEVICES, size, measured, len(sel),
                float(protocol_times(fitted, [probe])[0]),
                float(protocol_times(size_fit, [probe])[0]), count_s,
                float(ab * probe.time_s)))
    return out
