"""Fitting the link values of the alpha-beta collective models to measured collectives:
`LinkParams` (effective per-direction bandwidth, per-step latency, per-call overhead,
in-switch reduction efficiency), the model's time of a measurement under them
(`modeled_time`, `predict_times`), and the fits (`fit_link_params`, with outlier removal
`fit_robust`, with and without the in-switch algorithm `fit_chip`).

What is fitted: `collectives.collective_time` prices a collective on one NVSwitch node
as ``overhead_s + steps x alpha + bytes_factor x B / bw`` (÷
`in_switch_reduction_efficiency` for in-switch algorithms), taking the cheapest of the
library's algorithms. Per chip the values those formulas need are fitted to nccl-tests
latencies of all_reduce, all_gather, reduce_scatter and all_to_all on 2..chips_per_node
GPUs of one node: one fit per chip over all four kinds (what `Topology` can hold: one
link, one overhead) and one per chip and kind (`[interconnect.calibrated.<kind>]`).

Method: weighted least squares on log time (relative error), `scipy.optimize.
least_squares` over the logs of the values (positive by construction), a soft-L1 loss
(residuals beyond ~5 % count linearly, so a few bad rows cannot pull the fit) and a weak
prior (weight `PRIOR_WEIGHT` per log unit) towards the catalog values, which only
decides directions the data cannot (all_to_all runs one step for every group size, so
its alpha and overhead are one sum). Several starts; the best cost wins. Rows whose
residual after a first fit is more than `OUTLIER_FACTOR` x the chip's MAD (and at
least 2x off) are dropped as outliers and the fit is redone.

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
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from ...errors import InvalidArgumentError
from ...hardware import CalibratedLinks, Hardware, get_hardware
from ...models.comm.collectives import collective_time
from ...models.comm.phases import (
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
from ...models.comm.topology import SWITCH, Link, Topology
from .measurements import CollectiveMeasurement

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
OUTLIER_FACTOR = 5.0           # x 1.4826 MAD of the log residuals ...
OUTLIER_MIN_LOG = math.log(2)  # ... and at least 2x off
PRIOR_WEIGHT = 0.05            # per log unit of distance from the catalog value
_LOSS_SCALE = 0.05             # soft-L1 switches to linear beyond ~5 % (log units)


@dataclass(frozen=True)
class LinkParams:
    """The values of one node's links the collective model uses."""

    bandwidth_bytes_per_s: float
    latency_s: float
    overhead_s: float
    # None: the switch cannot reduce; 0: it can, but the fitted model does better
    # without the in-switch algorithm (see `fit_chip`).
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
    assert best is not None  # _STARTS is not empty
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


def log_residuals(rows: Sequence[CollectiveMeasurement], params: LinkParams,
                  variant: str = LIBRARY) -> np.ndarray:
    """log(model time / measured time) of every row (`predict_times`)."""
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
        r = log_residuals([m for m, x in zip(rows, o) if not x], p)
        return float(np.median(np.abs(np.exp(r) - 1.0)))

    if train_error(without, out2) < train_error(params, out) - 1e-4:
        return without, out2
    return params, out


def fit_robust(rows: Sequence[CollectiveMeasurement], prior: LinkParams, *,
               variant: str = LIBRARY) -> tuple[LinkParams, tuple[bool, ...]]:
    """`fit_link_params`, then again without the rows more than `OUTLIER_FACTOR` robust
    standard deviations (and 2x) off: (values, per-row outlier flags)."""
    params, _ = fit_link_params(rows, prior, variant=variant)
    r = log_residuals(rows, params, variant)
    spread = 1.4826 * float(np.median(np.abs(r - np.median(r))))
    cut = max(OUTLIER_FACTOR * spread, OUTLIER_MIN_LOG)
    out = np.abs(r - np.median(r)) > cut
    if out.any() and (~out).sum() >= 4:
        params, _ = fit_link_params([m for m, o in zip(rows, out) if not o], prior,
                                    variant=variant)
    return params, tuple(bool(o) for o in out)


