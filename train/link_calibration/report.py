"""The calibration and its report: `calibrate_collectives` fits every chip's link values
(per kind and chip-wide) on the training message sizes and measures the relative error
(model / measured - 1) on the held-out sizes, before calibration (the catalog's
datasheet values, the model as it is) and after it (the per-kind values and the
chip-wide ones); `CalibrationReport` holds the fits, the error statistics per chip, kind
and size band (latency-bound < 64 KiB, transition 64 KiB - 4 MiB, bandwidth-bound
>= 4 MiB) and the errors of the alternative algorithm sets, and formats them as text
(`format`) or a dict (`to_dict`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ...errors import DatasetError, InvalidArgumentError
from ...hardware import Hardware, get_hardware
from ...models.comm.collectives import collective_time
from ...models.comm.phases import IN_SWITCH
from ...models.comm.topology import topology_for
from .fit import (
    LIBRARY,
    VARIANTS,
    LinkParams,
    fit_chip,
    fit_robust,
    log_residuals,
    modeled_time,
)
from .measurements import (
    CALIBRATED_KINDS,
    HELD_OUT_EVERY,
    CollectiveMeasurement,
    held_out_mask,
    load_collective_measurements,
)

ALL_KINDS = "all"              # the chip-wide fit / error row over every kind
SIZE_BANDS = (("< 64 KiB", 0.0, 2.0 ** 16), ("64 KiB - 4 MiB", 2.0 ** 16, 2.0 ** 22),
              (">= 4 MiB", 2.0 ** 22, math.inf))
ALL_BANDS = "all sizes"


def size_band(bytes_per_device: float) -> str:
    """The name of the `SIZE_BANDS` band `bytes_per_device` falls in."""
    for name, lo, hi in SIZE_BANDS:
        if lo <= bytes_per_device < hi:
            return name
    raise InvalidArgumentError(f"bytes_per_device must be >= 0, got {bytes_per_device!r}")


@dataclass(frozen=True)
class ErrorStats:
    """Relative errors (model / measured - 1) of a set of rows: the median and largest
    magnitude, and the median signed error (> 0: the model is too slow)."""

    rows: int
    median: float
    max: float
    bias: float = math.nan

    @classmethod
    def of(cls, relative_errors: Sequence[float] | np.ndarray) -> "ErrorStats":
        signed = np.asarray(relative_errors, dtype=float)
        e = np.abs(signed)
        if e.size == 0:
            return cls(0, math.nan, math.nan)
        return cls(int(e.size), float(np.median(e)), float(e.max()),
                   float(np.median(signed)))

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "median_relative_error": _num(self.median),
                "max_relative_error": _num(self.max), "median_signed_error": _num(self.bias)}


@dataclass(frozen=True)
class LinkFit:
    """The values fitted for one chip and kind (`ALL_KINDS`: one set for every kind)."""

    hardware: str
    kind: str
    params: LinkParams
    catalog: LinkParams
    train_rows: int
    outliers: int
    train: ErrorStats
    held_out: ErrorStats
    held_out_before: ErrorStats

    def to_dict(self) -> dict[str, Any]:
        return {"hardware": self.hardware, "kind": self.kind,
                "params": self.params.to_dict(), "catalog": self.catalog.to_dict(),
                "train_rows": self.train_rows, "outliers_dropped": self.outliers,
                "train": self.train.to_dict(), "held_out": self.held_out.to_dict(),
                "held_out_before": self.held_out_before.to_dict()}


@dataclass(frozen=True)
class ErrorRow:
    """Held-out relative errors of one chip, kind and size band: the catalog model
    (`before`), the per-kind calibrated values (`after`) and the chip-wide ones
    (`after_chip`)."""

    hardware: str
    kind: str
    band: str
    before: ErrorStats
    after: ErrorStats
    after_chip: ErrorStats

    def to_dict(self) -> dict[str, Any]:
        return {"hardware": self.hardware, "kind": self.kind, "band": self.band,
                "before": self.before.to_dict(), "after": self.after.to_dict(),
                "after_chip": self.after_chip.to_dict()}


@dataclass(frozen=True)
class VariantRow:
    """Held-out error of one algorithm set fitted to one chip and kind."""

    hardware: str
    kind: str
    variant: str
    algorithms: tuple[str, ...]
    params: LinkParams
    held_out: ErrorStats

    def to_dict(self) -> dict[str, Any]:
        return {"hardware": self.hardware, "kind": self.kind, "variant": self.variant,
                "algorithms": list(self.algorithms), "params": self.params.to_dict(),
                "held_out": self.held_out.to_dict()}


@dataclass(frozen=True)
class CalibrationReport:
    """Fitted link values per chip and kind, with train and held-out errors."""

    data_root: str
    held_out_rule: str
    fits: tuple[LinkFit, ...]
    errors: tuple[ErrorRow, ...]
    variants: tuple[VariantRow, ...]
    rows_used: int
    excluded: Mapping[str, int]
    libraries: Mapping[str, tuple[str, ...]]     # chip -> NCCL versions measured
    dtypes: Mapping[str, tuple[str, ...]]
    group_sizes: Mapping[str, tuple[int, ...]]
    size_range_bytes: Mapping[str, tuple[float, float]]

    def fit(self, hardware: str, kind: str = ALL_KINDS) -> LinkFit:
        name = get_hardware(hardware).name
        for f in self.fits:
            if f.hardware == name and f.kind == kind:
                return f
        raise InvalidArgumentError(
            f"no fit for {hardware!r} / {kind!r}; fitted: "
            f"{sorted({(f.hardware, f.kind) for f in self.fits})}")

    def hardware(self) -> list[str]:
        return sorted({f.hardware for f in self.fits})

    def to_dict(self) -> dict[str, Any]:
        return {"data_root": self.data_root, "held_out_rule": self.held_out_rule,
                "rows_used": self.rows_used, "excluded": dict(self.excluded),
                "libraries": {k: list(v) for k, v in self.libraries.items()},
                "dtypes": {k: list(v) for k, v in self.dtypes.items()},
                "group_sizes": {k: list(v) for k, v in self.group_sizes.items()},
                "size_range_bytes": {k: list(v) for k, v in self.size_range_bytes.items()},
                "fits": [f.to_dict() for f in self.fits],
                "errors": [e.to_dict() for e in self.errors],
                "variants": [v.to_dict() for v in self.variants]}

    def format(self) -> str:
        lines = [f"Collective calibration from {self.data_root}: {self.rows_used} NCCL "
                 f"rows; held out: {self.held_out_rule}."]
        if self.excluded:
            lines.append("Left out: " + "; ".join(f"{v} {k}" for k, v in
                                                  sorted(self.excluded.items(),
                                                         key=lambda kv: -kv[1])))
        lines += ["", "Fitted values (effective, per direction)",
                  f"{'chip':<14} {'kind':<15} {'bw GB/s':>8} {'alpha us':>9} "
                  f"{'overh us':>9} {'nvls eff':>8}   {'catalog bw/alpha/overh/eff':<28}"
                  f" {'rows':>5} {'outl':>4} {'train med':>9}"]
        for f in self.fits:
            p, c = f.params, f.catalog
            cat = (f"{c.bandwidth_bytes_per_s / 1e9:.0f}/{c.latency_s * 1e6:.1f}/"
                   f"{c.overhead_s * 1e6:.1f}/{_eff(c.in_switch_reduction_efficiency)}")
            lines.append(
                f"{f.hardware:<14} {f.kind:<15} {p.bandwidth_bytes_per_s / 1e9:>8.1f} "
                f"{p.latency_s * 1e6:>9.2f} {p.overhead_s * 1e6:>9.2f} "
                f"{_eff(p.in_switch_reduction_efficiency):>8}   {cat:<28}"
                f" {f.train_rows:>5} {f.outliers:>4} {percent(f.train.median):>9}")
        lines += ["", "Held-out relative error (sizes never fitted): median / max",
                  f"{'chip':<14} {'kind':<15} {'size band':<15} {'rows':>5} "
                  f"{'before (catalog)':>17} {'after (per kind)':>17} {'bias':>7} "
                  f"{'after (chip)':>17}"]
        for e in self.errors:
            lines.append(
                f"{e.hardware:<14} {e.kind:<15} {e.band:<15} {e.after.rows:>5} "
                f"{_pair(e.before):>17} {_pair(e.after):>17} {_signed(e.after.bias):>7} "
                f"{_pair(e.after_chip):>17}")
        lines.append("(bias: median signed error after per-kind calibration; > 0: the "
                     "model is slower than measured)")
        if self.variants:
            lines += ["", "Algorithm sets (each fitted on the training sizes): held-out "
                      "median error",
                      f"{'chip':<14} {'kind':<15} " + "  ".join(
                          f"{v:<18}" for v in ("variant 1", "variant 2", "variant 3",
                                               "variant 4"))]
            by: dict[tuple[str, str], list[VariantRow]] = {}
            for v in self.variants:
                by.setdefault((v.hardware, v.kind), []).append(v)
            for (hw, kind), vs in by.items():
                best = min(vs, key=lambda v: v.held_out.median)
                cells = [f"{v.variant}{'*' if v is best else ''} {percent(v.held_out.median)}"
                         for v in vs]
                lines.append(f"{hw:<14} {kind:<15} " + "  ".join(f"{c:<18}" for c in cells))
            lines.append("(* = lowest. library = the model's own choice: all_reduce "
                         "ring/tree/in_switch, all_gather & reduce_scatter ring/in_switch, "
                         "all_to_all direct;\n ring+tree (all_reduce) and ring (all_gather, "
                         "reduce_scatter) are that choice without in_switch)")
        return "\n".join(lines)


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else x


def percent(x: float) -> str:
    """`x` as a percentage with one decimal ('-' when not finite)."""
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"


def _signed(x: float) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:+.0f}%"


def _pair(s: ErrorStats) -> str:
    return f"{percent(s.median)} / {percent(s.max)}" if s.rows else "-"


def _eff(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _relative_errors(rows: Sequence[CollectiveMeasurement], hw: Hardware,
                     params: LinkParams | None) -> np.ndarray:
    """(model - measured) / measured for every row, with `collective_time` on
    `topology_for` of the chip with `params` (None: its catalog values, and the model
    exactly as it is: no dtype rule)."""
    chip = hw if params is None else params.applied_to(hw)
    out = np.empty(len(rows))
    for i, r in enumerate(rows):
        topo = topology_for(chip, r.num_devices)
        cost = collective_time(r.kind, r.bytes_per_device, r.num_devices, topo) \
            if params is None else \
            modeled_time(r.kind, r.bytes_per_device, r.num_devices, topo, r.dtype)
        out[i] = cost.time_s / r.time_s - 1.0
    return out


def calibrate_collectives(data_root: str | Path,
                          hardware: str | Sequence[str] | None = None, *,
                          held_out_every: int = HELD_OUT_EVERY, held_out_offset: int = 0,
                          variants: bool = True) -> "CalibrationReport":
    """Fit every chip's link values at `data_root` (`fit_chip`, per kind and chip-wide;
    the method is in `fit`'s docstring) and report them with their errors on held-out
    message sizes (`held_out_mask`). `hardware`: only these chips.
    `variants`: also fit the alternative algorithm sets of `VARIANTS`."""
    data = load_collective_measurements(data_root, hardware)
    fits: list[LinkFit] = []
    errors: list[ErrorRow] = []
    variant_rows: list[VariantRow] = []
    libraries, dtypes, group_sizes, ranges = {}, {}, {}, {}
    for name in data.hardware():
        hw = get_hardware(name)
        catalog = LinkParams.of_catalog(hw)
        rows = [r for r in data.rows if r.hardware == name]
        libraries[name] = tuple(sorted({r.library for r in rows}))
        dtypes[name] = tuple(sorted({r.dtype for r in rows}))
        group_sizes[name] = tuple(sorted({r.num_devices for r in rows}))
        sizes = [r.bytes_per_device for r in rows]
        ranges[name] = (min(sizes), max(sizes))
        mask = held_out_mask(sizes, held_out_every, held_out_offset)
        train = [r for r, m in zip(rows, mask) if not m]
        test = [r for r, m in zip(rows, mask) if m]
        if not train or not test:
            raise DatasetError(
                f"{data.data_root}: {name} has {len(set(sizes))} message size(s); the "
                f"held-out split (every {held_out_every}th power of two) needs sizes on "
                "both sides")
        before = _relative_errors(test, hw, None)
        chip_params, chip_out = fit_chip(train, catalog)
        chip_after = _relative_errors(test, hw, chip_params)
        kind_params: dict[str, LinkParams] = {}
        after = np.empty(len(test))
        kinds = [k for k in CALIBRATED_KINDS if any(r.kind == k for r in train)]
        for kind in kinds:
            tr = [r for r in train if r.kind == kind]
            te_idx = [i for i, r in enumerate(test) if r.kind == kind]
            te = [test[i] for i in te_idx]
            params, outl = fit_chip(tr, catalog)
            if IN_SWITCH not in VARIANTS[kind][LIBRARY]:     # no in-switch algorithm
                params = dataclasses.replace(params, in_switch_reduction_efficiency=None)
            kind_params[kind] = params
            e_after = _relative_errors(te, hw, params)
            after[te_idx] = e_after
            fits.append(LinkFit(
                name, kind, params, catalog, len(tr) - sum(outl), sum(outl),
                ErrorStats.of([e for e, o in zip(_relative_errors(tr, hw, params), outl)
                               if not o]),
                ErrorStats.of(e_after), ErrorStats.of(before[te_idx])))
            if variants:
                for variant, algos in VARIANTS[kind].items():
                    p = fit_robust(tr, catalog, variant=variant)[0]
                    r = np.exp(log_residuals(te, p, variant)) - 1.0
                    variant_rows.append(VariantRow(name, kind, variant, algos, p,
                                                   ErrorStats.of(r)))
        fits.append(LinkFit(
            name, ALL_KINDS, chip_params, catalog, len(train) - sum(chip_out),
            sum(chip_out),
            ErrorStats.of([e for e, o in zip(_relative_errors(train, hw, chip_params),
                                             chip_out) if not o]),
            ErrorStats.of(chip_after), ErrorStats.of(before)))
        # A kind without training rows (every size held out) uses the chip's values.
        missing = [i for i, r in enumerate(test) if r.kind not in kind_params]
        if missing:
            after[missing] = chip_after[missing]
        for kind in kinds + [ALL_KINDS]:
            sel = [i for i, r in enumerate(test) if kind == ALL_KINDS or r.kind == kind]
            for band in [b[0] for b in SIZE_BANDS] + [ALL_BANDS]:
                idx = [i for i in sel
                       if band == ALL_BANDS or size_band(test[i].bytes_per_device) == band]
                if idx:
                    errors.append(ErrorRow(name, kind, band, ErrorStats.of(before[idx]),
                                           ErrorStats.of(after[idx]),
                                           ErrorStats.of(chip_after[idx])))
    rule = (f"every message size whose round(log2 bytes) % {held_out_every} == "
            f"{held_out_offset}")
    return CalibrationReport(str(data.data_root), rule, tuple(fits), tuple(errors),
                             tuple(variant_rows), len(data.rows), dict(data.excluded),
                             libraries, dtypes, group_sizes, ranges)
