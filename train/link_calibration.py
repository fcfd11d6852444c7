"""Calibration of the collective models' link values against measured NCCL collectives.

    report = calibrate_collectives("stablecost-data")       # a root `stablecost import
    print(report.format())                                  #   aiconfigurator` wrote
    write_catalog(report)                                   # -> [interconnect.calibrated]

What is fitted
--------------
`collectives.collective_time` prices a collective on one NVSwitch node as
``overhead_s + steps x alpha + bytes_factor x B / bw`` (÷ `in_switch_reduction_efficiency`
for in-switch algorithms), taking the cheapest of the library's algorithms. Per chip
this module fits, to nccl-tests latencies of all_reduce, all_gather, reduce_scatter and
all_to_all on 2..chips_per_node GPUs of one node, the values those formulas need:
the effective per-direction bandwidth `bw`, the per-step latency `alpha`, the per-call
`overhead` and, on chips whose switch reduces (NVLS), the in-switch efficiency. One fit
per chip over all four kinds (what `Topology` can hold: one link, one overhead) and one
per chip and kind (`[interconnect.calibrated.<kind>]`).

Method: weighted least squares on log time (relative error), `scipy.optimize.
least_squares` over the logs of the values (positive by construction), a soft-L1 loss
(residuals beyond ~5 % count linearly, so a few bad rows cannot pull the fit) and a weak
prior (weight `PRIOR_WEIGHT` per log unit) towards the catalog values, which only
decides directions the data cannot (all_to_all runs one step for every group size, so
its alpha and overhead are one sum). Several starts; the best cost wins. Rows whose
residual after a first fit is more than `OUTLIER_FACTOR` x the chip's MAD (and at
least 2x off) are dropped as outliers and the fit is redone; rows whose repeats vary by
more than `MAX_CV` are dropped before. The importer's `outlier` flag is *not* used to
drop rows: it compares nccl-tests bus bandwidth with the datasheet link bandwidth,
which NVLS all_reduce legitimately exceeds (it moves ~B per GPU, busbw counts
2(n-1)/n B), and those rows are the ones that pin the in-switch efficiency.

The fit evaluates the model through the terms `collective_time` itself returns on a
unit switch (latency 1 s, bandwidth 1 B/s: `alpha_s` = steps, `beta_s` = the bytes
factor), so no formula is copied here; every error reported is recomputed with
`collective_time` on the fitted `Topology` (the tests check both agree).

Algorithm choice: like the model, the cheapest of ring / tree / in_switch (all_reduce),
ring / in_switch (all_gather, reduce_scatter), direct (all_to_all), with one rule the
model cannot apply because it does not see dtypes: NCCL's NVLS reductions do not
support 8-bit types (`ncclNvlsSupported`, NCCL src/include/device.h: sum over
(u)int32/64, f16, bf16, f32, f64 only), so i8 all_reduce / reduce_scatter rows never
use in_switch. The data shows it: on 8 H100 a 512 MiB f16 all_reduce takes 2.11 ms and
an i8 one 2.67 ms (ring), while at 4 GPUs both take 2.3 ms. `VARIANTS` lists the other
algorithm sets fitted for comparison (the report's variant table).

In-switch (NVLS) or not: on chips whose switch reduces, every fit is done twice, with
and without the in-switch algorithm, and the one with the lower median *training*
error is kept (`fit_chip`; efficiency 0 = without). On the aiconfigurator data
(H100, H200, B200) "without" wins for every kind: the model's in-switch algorithm
costs 2 alpha steps (1 for all_gather / reduce_scatter) whatever the group size, so it
would be chosen at every small size, while NCCL's small-message times grow with the
group (H100 all_reduce at 512 B: 6.2 / 9.5 / 15.6 us on 2 / 4 / 8 GPUs: ring/tree)
and NCCL only takes NVLS for large f16 all_reduce on 8 GPUs. Fitted with in-switch,
its efficiency runs to the lower bound to keep it out; fitted without, the held-out
error is 3-7 points lower. (An extra fixed NVLS latency of ~45 us on Hopper, ~100 us on
Blackwell, would let the model pick NVLS where NCCL does; it gains < 1 point of
median error on this data, so it is not part of the model.)

Held-out evaluation: the split is by message size. Sizes whose round(log2 bytes) is a
multiple of `HELD_OUT_EVERY` (3: 512 B, 4 KiB, 32 KiB, 256 KiB, 2 MiB, 16 MiB, 128 MiB
of the 512 B..512 MiB sweep) are never fitted; every row of such a size (any group size,
dtype or NCCL version) is held out. Errors are reported per chip, kind and size band
(latency-bound < 64 KiB, transition 64 KiB - 4 MiB, bandwidth-bound >= 4 MiB), before
(catalog datasheet values, the model as it is) and after calibration (per-kind values
and the chip-wide values).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..errors import DatasetError, InvalidArgumentError, UnknownHardwareError
from ..hardware import CalibratedLinks, Hardware, get_hardware
from ..models.comm.collectives import collective_time
from ..models.comm.phases import (
    ALL_GATHER,
    ALL_REDUCE,
    ALL_TO_ALL,
    DIRECT,
    HALVING_DOUBLING,
    IN_SWITCH,
    REDUCE_SCATTER,
    RING,
    TREE,
    CollectiveCost,
)
from ..models.comm.topology import SWITCH, Link, Topology, topology_for

CALIBRATED_KINDS = (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL)
ALL_KINDS = "all"              # the chip-wide fit / error row over every kind
LIBRARY = "library"            # the model's own algorithm choice
# Algorithm sets fitted per kind: the model's choice first, then alternatives.
VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    ALL_REDUCE: {LIBRARY: (RING, TREE, IN_SWITCH), "ring": (RING,), "tree": (TREE,),
                 "ring+tree": (RING, TREE)},
    ALL_GATHER: {LIBRARY: (RING, IN_SWITCH), "ring": (RING,), "direct": (DIRECT,)},
    REDUCE_SCATTER: {LIBRARY: (RING, IN_SWITCH), "ring": (RING,), "direct": (DIRECT,)},
    ALL_TO_ALL: {LIBRARY: (DIRECT,), "ring": (RING,),
                 "halving_doubling": (HALVING_DOUBLING,)},
}
_ALGOS = (RING, TREE, DIRECT, IN_SWITCH, HALVING_DOUBLING)   # design-matrix columns
_REDUCING = (ALL_REDUCE, REDUCE_SCATTER)
# Element types NCCL's NVLS (in-switch) reductions support (ncclNvlsSupported, sum).
NVLS_REDUCTION_DTYPES = frozenset({"f16", "bf16", "f32", "f64", "i32", "ui32", "i64",
                                   "ui64"})
SIZE_BANDS = (("< 64 KiB", 0.0, 2.0 ** 16), ("64 KiB - 4 MiB", 2.0 ** 16, 2.0 ** 22),
              (">= 4 MiB", 2.0 ** 22, math.inf))
ALL_BANDS = "all sizes"
HELD_OUT_EVERY = 3
MAX_CV = 0.25                  # repeats varying more than this: an unstable measurement
OUTLIER_FACTOR = 5.0           # x 1.4826 MAD of the log residuals ...
OUTLIER_MIN_LOG = math.log(2)  # ... and at least 2x off
PRIOR_WEIGHT = 0.05            # per log unit of distance from the catalog value
_LOSS_SCALE = 0.05             # soft-L1 switches to linear beyond ~5 % (log units)
_LIBRARY_NAME = "NCCL"         # the imported variant the fit uses (custom all-reduce
                               # kernels of TRT-LLM / vLLM / SGLang are other algorithms)


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class CollectiveMeasurement:
    """One measured collective: `time_s` for `kind` over `num_devices` GPUs of one node,
    `bytes_per_device` in nccl-tests' `size` convention (as `collective_time`)."""

    hardware: str
    kind: str
    num_devices: int
    bytes_per_device: float
    dtype: str
    time_s: float
    library: str = ""          # e.g. "NCCL 2.27.3"
    cv: float = 0.0            # spread of the merged repeats
    flagged: bool = False      # the importer's outlier flag (kept; see module docstring)


@dataclass(frozen=True)
class Measurements:
    """The collectives read from a dataset root, and what was left out and why."""

    rows: tuple[CollectiveMeasurement, ...]
    excluded: Mapping[str, int]
    data_root: str = ""

    def hardware(self) -> list[str]:
        return sorted({r.hardware for r in self.rows})


_COLUMNS = ["sample_id", "kind", "family", "variant", "dtype", "params", "median_s", "cv",
            "hardware", "source", "outlier"]


def _read_collective_rows(root: Path) -> list[dict[str, Any]]:
    """The `kind == "collective"` rows of every dataset at `root` (columns `_COLUMNS`),
    read with a predicate pushed into the Parquet reader (an import holds millions of
    kernel rows); a dataset with pending journal rows is read whole."""
    import pyarrow.parquet as pq

    from ..datasets import store

    rows: list[dict[str, Any]] = []
    for dataset in store.find_datasets(root):
        store.DatasetInfo.read(dataset)
        journal = dataset / store.JOURNAL
        if journal.exists() and journal.stat().st_size > 0:
            table = store.read_table(dataset, columns=_COLUMNS)
            rows += [r for r in table.to_pylist() if r["kind"] == "collective"]
            continue
        for shard in store.shard_paths(dataset):
            try:
                table = pq.read_table(shard, columns=_COLUMNS, schema=store.SCHEMA,
                                      filters=[("kind", "=", "collective")])
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
                raise DatasetError(f"{shard}: unreadable shard ({exc})") from None
            rows += table.to_pylist()
    seen: set[str] = set()
    return [r for r in rows if not (r["sample_id"] in seen or seen.add(r["sample_id"]))]


def load_collective_measurements(data_root: str | Path,
                                 hardware: str | Sequence[str] | None = None,
                                 ) -> Measurements:
    """The NCCL all_reduce / all_gather / reduce_scatter / all_to_all measurements at
    `data_root` (a dataset or a root, as `stablecost import aiconfigurator` writes it) on
    2..chips_per_node GPUs of one node of a catalog chip with a switch fabric.
    `hardware`: only these chips (names or aliases). Raises `DatasetError` when none is
    left, naming what was found instead."""
    root = Path(data_root)
    wanted = _wanted(hardware)
    excluded: Counter[str] = Counter()
    out = []
    chips: dict[str, Hardware | None] = {}
    for r in _read_collective_rows(root):
        name = str(r["hardware"])
        if name not in chips:
            try:
                chips[name] = get_hardware(name)
            except UnknownHardwareError:
                chips[name] = None
        hw = chips[name]
        if wanted is not None and (hw is None or hw.name not in wanted):
            excluded["another chip than asked for"] += 1
            continue
        if hw is None:
            excluded[f"chip {name!r} is not in the catalog"] += 1
            continue
        if r["variant"] != _LIBRARY_NAME:
            excluded[f"not NCCL ({r['variant']}: its own algorithms)"] += 1
            continue
        if r["family"] not in CALIBRATED_KINDS:
            excluded[f"kind {r['family']} is not calibrated"] += 1
            continue
        if hw.topology != "nvswitch":
            excluded[f"{hw.name}: topology {hw.topology!r} (calibration fits switch "
                     "nodes)"] += 1
            continue
        try:
            params = json.loads(r["params"])
            program = params["program"]
            n = int(program["num_devices"])
            size = float(program["bytes"])
        except (TypeError, ValueError, KeyError):
            excluded["params without program num_devices / bytes"] += 1
            continue
        if not 2 <= n <= hw.chips_per_node:
            excluded["group size outside 2..chips_per_node (one node)"] += 1
            continue
        t = r["median_s"]
        if t is None or not (t > 0 and math.isfinite(t)) or size <= 0:
            excluded["latency or size not positive"] += 1
            continue
        cv = r["cv"] if r["cv"] is not None and math.isfinite(r["cv"]) else 0.0
        if cv > MAX_CV:
            excluded[f"repeats vary by more than cv {MAX_CV}"] += 1
            continue
        # The version folder names the NCCL build (the `version` column of some
        # aiconfigurator files repeats another folder's); the column is the fallback.
        m = re.search(r"/nccl/([^/]+)/", str(r["source"]))
        version = m.group(1) if m else (params.get("row") or {}).get("version") or ""
        out.append(CollectiveMeasurement(
            hardware=hw.name, kind=r["family"], num_devices=n, bytes_per_device=size,
            dtype=str(r["dtype"]), time_s=float(t),
            library=f"NCCL {version}".strip(), cv=float(cv), flagged=bool(r["outlier"])))
    if not out:
        found = ", ".join(f"{k} ({v})" for k, v in excluded.most_common()) or \
            "no collective rows at all"
        asked = "" if wanted is None else f" for {sorted(wanted)}"
        raise DatasetError(
            f"{root}: no NCCL collective measurements{asked} to calibrate with (kind "
            f"'collective', variant 'NCCL', one of {list(CALIBRATED_KINDS)} on 2.."
            f"chips_per_node GPUs of a catalog switch chip); found: {found}. Import them "
            "with `stablecost import aiconfigurator <aiconfigurator systems dir> --out "
            f"{root}`")
    out.sort(key=lambda m: (m.hardware, m.kind, m.num_devices, m.bytes_per_device,
                            m.dtype, m.library))
    return Measurements(tuple(out), dict(excluded), str(root))


def _wanted(hardware: str | Sequence[str] | None) -> set[str] | None:
    if hardware is None:
        return None
    names = [hardware] if isinstance(hardware, (str, Hardware)) else list(hardware)
    return {get_hardware(h).name for h in names}


def held_out_mask(bytes_per_device: Iterable[float], every: int = HELD_OUT_EVERY,
                  offset: int = 0) -> np.ndarray:
    """True for the sizes held out of the fit: round(log2 bytes) % every == offset (every
    third power of two by default), so whole message sizes are held out and the held-out
    sizes spread over the whole range."""
    if not (isinstance(every, int) and every >= 2 and 0 <= offset < every):
        raise InvalidArgumentError(
            f"held-out split needs an integer every >= 2 and 0 <= offset < every, got "
            f"every={every!r}, offset={offset!r}")
    b = np.asarray(list(bytes_per_device), dtype=float)
    if np.any(~(b > 0)):
        raise InvalidArgumentError("held-out split needs positive byte counts")
    return np.rint(np.log2(b)).astype(int) % every == offset


def size_band(bytes_per_device: float) -> str:
    for name, lo, hi in SIZE_BANDS:
        if lo <= bytes_per_device < hi:
            return name
    raise InvalidArgumentError(f"bytes_per_device must be >= 0, got {bytes_per_device!r}")


# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class LinkParams:
    """The values of one node's links the collective model uses."""

    bandwidth_bytes_per_s: float
    latency_s: float
    overhead_s: float
    # None: the switch cannot reduce; 0: it can, but the fitted model does better
    # without the in-switch algorithm (see `calibrate_collectives`).
    in_switch_reduction_efficiency: float | None = None

    @property
    def in_switch(self) -> bool:
        return bool(self.in_switch_reduction_efficiency)

    @classmethod
    def of_catalog(cls, hardware: str | Hardware) -> "LinkParams":
        """The datasheet values of a chip (what `topology_for` uses)."""
        hw = get_hardware(hardware)
        overhead = hw.collective_overhead_s if hw.collective_overhead_s is not None \
            else hw.launch_overhead_s
        return cls(hw.intra_node_bandwidth_bytes_per_s, hw.intra_node_latency_s, overhead,
                   hw.in_switch_reduction_efficiency)

    @classmethod
    def of_calibrated(cls, links: CalibratedLinks) -> "LinkParams":
        return cls(links.intra_node_bandwidth_bytes_per_s, links.intra_node_latency_s,
                   links.collective_overhead_s, links.in_switch_reduction_efficiency)

    def applied_to(self, hardware: str | Hardware) -> Hardware:
        """The chip with these intra-node values in place of its datasheet ones (its
        inter-node values unchanged): `topology_for` of it builds the calibrated fabric."""
        return dataclasses.replace(
            get_hardware(hardware), intra_node_bandwidth_bytes_per_s=self.bandwidth_bytes_per_s,
            intra_node_latency_s=self.latency_s, collective_overhead_s=self.overhead_s,
            in_switch_reduction_efficiency=self.in_switch_reduction_efficiency)

    def to_dict(self) -> dict[str, Any]:
        return {"bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
                "latency_s": self.latency_s, "overhead_s": self.overhead_s,
                "in_switch_reduction_efficiency": self.in_switch_reduction_efficiency}


def calibrated_topology(hardware: str | Hardware, num_devices: int,
                        kind: str | None = None) -> Topology:
    """`topology_for(hardware, num_devices)` with the chip's `[interconnect.calibrated]`
    intra-node values (those fitted to `kind` when the file has them)."""
    hw = get_hardware(hardware)
    if hw.calibrated_links is None:
        raise InvalidArgumentError(
            f"hardware {hw.name!r} has no [interconnect.calibrated] values; calibrated "
            f"chips: {calibrated_chips()}")
    params = LinkParams.of_calibrated(hw.calibrated_links.for_kind(kind))
    return topology_for(params.applied_to(hw), num_devices)


def calibrated_chips() -> list[str]:
    from ..hardware import list_hardware

    return [hw.name for hw in list_hardware() if hw.calibrated_links is not None]


def modeled_time(kind: str, bytes_per_device: float, num_devices: int, topology: Topology,
                 dtype: str | None = None) -> CollectiveCost:
    """`collective_time` for a group of the first `num_devices` devices with the library's
    algorithm choice, except that 8-bit reductions never run in the switch (NCCL's NVLS
    has no int8 / fp8 reductions): the model itself does not see dtypes."""
    cost = collective_time(kind, bytes_per_device, num_devices, topology)
    if (dtype is not None and cost.algorithm == IN_SWITCH and kind in _REDUCING
            and dtype not in NVLS_REDUCTION_DTYPES):
        choices = [a for a in VARIANTS[kind][LIBRARY] if a != IN_SWITCH]
        cost = min((collective_time(kind, bytes_per_device, num_devices, topology, a)
                    for a in choices), key=lambda c: c.time_s)
    return cost


# --------------------------------------------------------------------------- the fit


@lru_cache(maxsize=64)
def _unit_switch(n: int) -> Topology:
    return Topology(SWITCH, (n,), (Link(1.0, 1.0),), 0.0, in_switch_reduction_efficiency=1.0)


@lru_cache(maxsize=65536)
def _unit_terms(kind: str, b: float, n: int, algo: str) -> tuple[float, float]:
    """(steps, bytes factor) of one algorithm: `collective_time` on a switch of unit
    latency and bandwidth, so time = overhead + steps x alpha + factor / bandwidth."""
    c = collective_time(kind, b, n, _unit_switch(n), algo)
    return c.alpha_s, c.beta_s


@dataclass(frozen=True)
class _Design:
    """The fit's view of a set of rows: per row and algorithm column, steps and bytes
    factor (inf where the algorithm is not a candidate), and log measured times."""

    steps: np.ndarray          # (rows, algos)
    factor: np.ndarray         # (rows, algos)
    log_t: np.ndarray          # (rows,)
    in_switch_col: int

    def times(self, alpha: float, bw: float, overhead: float, eff: float) -> np.ndarray:
        scale = np.ones(len(_ALGOS))
        scale[self.in_switch_col] = 1.0 / max(eff, 1e-12)
        t = self.steps * alpha + self.factor * scale / bw
        return overhead + t.min(axis=1)


def _candidates(kind: str, dtype: str, variant: str, nvls: bool) -> tuple[str, ...]:
    algos = VARIANTS[kind].get(variant)
    if algos is None:
        algos = VARIANTS[kind][LIBRARY]
    keep = tuple(a for a in algos if a != IN_SWITCH or (
        nvls and (kind not in _REDUCING or dtype in NVLS_REDUCTION_DTYPES)))
    return keep or tuple(a for a in VARIANTS[kind][LIBRARY] if a != IN_SWITCH)


def _design(rows: Sequence[CollectiveMeasurement], variant: str, nvls: bool) -> _Design:
    steps = np.full((len(rows), len(_ALGOS)), np.inf)
    factor = np.full((len(rows), len(_ALGOS)), np.inf)
    for i, r in enumerate(rows):
        for algo in _candidates(r.kind, r.dtype, variant, nvls):
            j = _ALGOS.index(algo)
            steps[i, j], factor[i, j] = _unit_terms(r.kind, r.bytes_per_device,
                                                    r.num_devices, algo)
    return _Design(steps, factor, np.log([r.time_s for r in rows]), _ALGOS.index(IN_SWITCH))


_BOUNDS = {  # log-space bounds of each fitted value
    "alpha": (math.log(1e-9), math.log(1e-3)),
    "bw": (math.log(1e9), math.log(1e14)),
    "overhead": (math.log(1e-9), math.log(1e-3)),
    "eff": (math.log(0.05), 0.0),
}


def fit_link_params(rows: Sequence[CollectiveMeasurement], prior: LinkParams, *,
                    variant: str = LIBRARY, prior_weight: float = PRIOR_WEIGHT,
                    ) -> tuple[LinkParams, float]:
    """(fitted values, final cost) of `rows` (one chip) under `variant`'s algorithms,
    starting from and regularised towards `prior`. The in-switch efficiency is fitted
    when `prior` has one > 0 (the switch reduces), else stays as in `prior`."""
    from scipy.optimize import least_squares

    if not rows:
        raise InvalidArgumentError("fit_link_params needs at least one measurement")
    nvls = prior.in_switch
    design = _design(rows, variant, nvls)
    names = ["alpha", "bw", "overhead"] + (["eff"] if nvls else [])
    center = np.log([max(prior.latency_s, 1e-9), prior.bandwidth_bytes_per_s,
                     max(prior.overhead_s, 1e-9)]
                    + ([prior.in_switch_reduction_efficiency] if nvls else []))
    lo = np.array([_BOUNDS[n][0] for n in names])
    hi = np.array([_BOUNDS[n][1] for n in names])
    center = np.clip(center, lo + 1e-9, hi - 1e-9)
    weight = prior_weight

    def unpack(theta: np.ndarray) -> tuple[float, float, float, float]:
        v = np.exp(theta)
        return v[0], v[1], v[2], (v[3] if nvls else 1.0)

    def residuals(theta: np.ndarray) -> np.ndarray:
        r = np.log(design.times(*unpack(theta))) - design.log_t
        return np.concatenate([r, weight * (theta - center)])

    best = None
    for shift in _STARTS:
        x0 = np.clip(center + np.array(shift[:len(names)]), lo + 1e-9, hi - 1e-9)
        sol = least_squares(residuals, x0, bounds=(lo, hi), loss="soft_l1",
                            f_scale=_LOSS_SCALE, x_scale=1.0, max_nfev=400)
        if best is None or sol.cost < best.cost:
            best = sol
    alpha, bw, overhead, eff = unpack(best.x)
    return LinkParams(float(bw), float(alpha), float(overhead),
                      float(eff) if nvls else prior.in_switch_reduction_efficiency), \
        float(best.cost)


# Starts, as log-space shifts of (alpha, bw, overhead, eff) from the catalog values.
_STARTS = ((0.0, 0.0, 0.0, 0.0), (-1.0, -0.3, 0.5, -0.3), (0.5, -0.5, -1.0, -0.1),
           (-2.0, -0.2, 0.8, -0.5))


def predict_times(rows: Sequence[CollectiveMeasurement], params: LinkParams,
                  variant: str = LIBRARY) -> np.ndarray:
    """The model's time of every row with `params` under `variant`'s algorithms, from the
    terms the fit uses (vectorised; equal to `modeled_time` on
    `topology_for(params.applied_to(chip), n)` for the library's choice)."""
    design = _design(rows, variant, params.in_switch)
    return design.times(params.latency_s, params.bandwidth_bytes_per_s, params.overhead_s,
                        params.in_switch_reduction_efficiency or 1.0)


def _log_residuals(rows: Sequence[CollectiveMeasurement], params: LinkParams,
                   variant: str = LIBRARY) -> np.ndarray:
    return np.log(predict_times(rows, params, variant)) - np.log([r.time_s for r in rows])


def fit_chip(rows: Sequence[CollectiveMeasurement], prior: LinkParams,
             ) -> tuple[LinkParams, tuple[bool, ...]]:
    """`fit_robust` with the library's algorithm choice; on a switch that reduces, fitted
    with and without the in-switch algorithm, keeping the one with the lower median
    training error (the in-switch efficiency is then 0 when without won)."""
    params, out = fit_robust(rows, prior)
    if not prior.in_switch:
        return params, out
    without, out2 = fit_robust(rows, dataclasses.replace(
        prior, in_switch_reduction_efficiency=0.0))

    def train_error(p: LinkParams, o: tuple[bool, ...]) -> float:
        r = _log_residuals([m for m, x in zip(rows, o) if not x], p)
        return float(np.median(np.abs(np.exp(r) - 1.0)))

    if train_error(without, out2) < train_error(params, out) - 1e-4:
        return without, out2
    return params, out


def fit_robust(rows: Sequence[CollectiveMeasurement], prior: LinkParams, *,
               variant: str = LIBRARY) -> tuple[LinkParams, tuple[bool, ...]]:
    """`fit_link_params`, then again without the rows more than `OUTLIER_FACTOR` robust
    standard deviations (and 2x) off: (values, per-row outlier flags)."""
    params, _ = fit_link_params(rows, prior, variant=variant)
    r = _log_residuals(rows, params, variant)
    spread = 1.4826 * float(np.median(np.abs(r - np.median(r))))
    cut = max(OUTLIER_FACTOR * spread, OUTLIER_MIN_LOG)
    out = np.abs(r - np.median(r)) > cut
    if out.any() and (~out).sum() >= 4:
        params, _ = fit_link_params([m for m, o in zip(rows, out) if not o], prior,
                                    variant=variant)
    return params, tuple(bool(o) for o in out)


# --------------------------------------------------------------------------- the report


@dataclass(frozen=True)
class ErrorStats:
    """Relative errors (model / measured - 1) of a set of rows: the median and largest
    magnitude, and the median signed error (> 0: the model is too slow)."""

    rows: int
    median: float
    max: float
    bias: float = math.nan

    @classmethod
    def of(cls, relative_errors: Sequence[float]) -> "ErrorStats":
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
                f" {f.train_rows:>5} {f.outliers:>4} {_pct(f.train.median):>9}")
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
            by = {}
            for v in self.variants:
                by.setdefault((v.hardware, v.kind), []).append(v)
            for (hw, kind), vs in by.items():
                best = min(vs, key=lambda v: v.held_out.median)
                cells = [f"{v.variant}{'*' if v is best else ''} {_pct(v.held_out.median)}"
                         for v in vs]
                lines.append(f"{hw:<14} {kind:<15} " + "  ".join(f"{c:<18}" for c in cells))
            lines.append("(* = lowest. library = the model's own choice: all_reduce "
                         "ring/tree/in_switch, all_gather & reduce_scatter ring/in_switch, "
                         "all_to_all direct;\n ring+tree (all_reduce) and ring (all_gather, "
                         "reduce_scatter) are that choice without in_switch)")
        return "\n".join(lines)


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else x


def _pct(x: float) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"


def _signed(x: float) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:+.0f}%"


def _pair(s: ErrorStats) -> str:
    return f"{_pct(s.median)} / {_pct(s.max)}" if s.rows else "-"


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
    """Fit every chip's link values at `data_root` (see the module docstring) and report
    them with their errors on held-out message sizes. `hardware`: only these chips.
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
                    r = np.exp(_log_residuals(te, p, variant)) - 1.0
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


# --------------------------------------------------------------------------- catalog


_BEGIN = "# --- begin [interconnect.calibrated]: written by stablecost.train.link_calibration ---"
_END = "# --- end [interconnect.calibrated] ---"
_SOURCE_URL = "https://github.com/ai-dynamo/aiconfigurator"


def _toml_float(x: float) -> str:
    text = f"{x:.4g}"
    return text if any(c in text for c in ".en") else text + ".0"


def _values_toml(p: LinkParams, held_out: ErrorStats) -> list[str]:
    lines = [f"intra_node_bandwidth_bytes_per_s = {_toml_float(p.bandwidth_bytes_per_s)}",
             f"intra_node_latency_s = {_toml_float(p.latency_s)}",
             f"collective_overhead_s = {_toml_float(p.overhead_s)}"]
    if p.in_switch_reduction_efficiency is not None:
        note = ("   # 0: fitted better without the in-switch (NVLS) algorithm"
                if p.in_switch_reduction_efficiency == 0 else "")
        lines.append("in_switch_reduction_efficiency = "
                     f"{_toml_float(p.in_switch_reduction_efficiency)}{note}")
    if held_out.rows:
        lines += [f"held_out_median_relative_error = {_toml_float(held_out.median)}",
                  f"held_out_max_relative_error = {_toml_float(held_out.max)}"]
    return lines


def calibration_toml(report: CalibrationReport, hardware: str) -> str:
    """The `[interconnect.calibrated]` block of one chip's TOML file (between markers, so
    `write_catalog` can replace it)."""
    name = get_hardware(hardware).name
    chip = report.fit(name)
    versions = ", ".join(v.replace("NCCL ", "") for v in report.libraries[name])
    lo, hi = report.size_range_bytes[name]
    sizes = report.group_sizes[name]
    what = (f"aiconfigurator NCCL {versions} measurements (nccl-tests all_reduce, "
            f"all_gather, reduce_scatter, all_to_all; {min(sizes)}-{max(sizes)} GPUs in one "
            f"node; {', '.join(report.dtypes[name])}; {_bytes(lo)}-{_bytes(hi)})")
    source = (f"fitted by train/link_calibration.py to {what}; held-out median error "
              f"{_pct(chip.held_out.median)}")
    lines = [
        _BEGIN,
        f"# Fitted by train/link_calibration.py to {what}.",
        f"# Held out: {report.held_out_rule}; held-out median relative error "
        f"{_pct(chip.held_out.median)} (max {_pct(chip.held_out.max)}), catalog values "
        f"{_pct(chip.held_out_before.median)}.",
        "# Effective values: what the alpha-beta formulas (models/collectives.py) need to",
        "# reproduce NCCL inside one node; the datasheet values above stay the chip's peaks.",
        "[interconnect.calibrated]",
        f"source = {json.dumps(source)}",
        *_values_toml(chip.params, chip.held_out),
    ]
    for kind in CALIBRATED_KINDS:
        try:
            f = report.fit(name, kind)
        except InvalidArgumentError:
            continue
        lines += ["", f"[interconnect.calibrated.{kind}]",
                  f"# held-out median error {_pct(f.held_out.median)} (catalog "
                  f"{_pct(f.held_out_before.median)})",
                  *_values_toml(f.params, f.held_out)]
    lines += ["", "[[sources]]",
              'title = "aiconfigurator systems data: NCCL collective measurements '
              f'(comm/nccl/{{{versions}}}/nccl_perf.parquet)"',
              f'url = "{_SOURCE_URL}"',
              'covers = "[interconnect.calibrated]: effective intra-node bandwidth, '
              'per-step latency, per-call overhead and NVLS efficiency fitted by '
              'train/link_calibration.py"',
              _END]
    return "\n".join(lines) + "\n"


def _bytes(b: float) -> str:
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if b >= size:
            return f"{b / size:g} {unit}"
    return f"{b:g} B"


def write_catalog(report: CalibrationReport, hardware: str | Sequence[str] | None = None,
                  *, directory: str | Path | None = None) -> list[Path]:
    """Write (or replace) the `[interconnect.calibrated]` block of each fitted chip's
    TOML file, before its first `[[sources]]`; returns the files written. `directory`:
    write copies of the catalog files there instead of the catalog itself. A file is
    re-read afterwards, so a block that would not parse is never left behind."""
    from ..atomicio import atomic_write_bytes
    from ..hardware import load_spec_file, reload_catalog

    names = report.hardware() if hardware is None else sorted(_wanted(hardware))
    written = []
    for name in names:
        source = Path(get_hardware(name).path)
        path = source if directory is None else Path(directory) / source.name
        text = (path if path.exists() else source).read_text()
        block = calibration_toml(report, name)
        if _BEGIN in text and _END in text:
            head, rest = text.split(_BEGIN, 1)
            tail = rest.split(_END, 1)[1].lstrip("\n")
            new = head + block + ("\n" + tail if tail else "")
        else:
            at = text.find("\n[[sources]]")
            new = (text.rstrip("\n") + "\n\n" + block if at < 0 else
                   text[:at + 1] + block + "\n" + text[at + 1:])
        atomic_write_bytes(path, new.encode())
        try:
            load_spec_file(path)
        except Exception:
            if path == source or path.exists():
                atomic_write_bytes(path, text.encode())
            raise
        written.append(path)
    reload_catalog()
    return written
