"""Fitting NCCL's protocol regimes per chip and collective kind: `fit_protocols` finds,
for each of LL, LL128 and Simple, the per-call overhead o_p, per-step latency a_p, bus
bandwidth bw_p and cost per message byte c_p with which the cheapest protocol reproduces
the measured NCCL times of one kind on 2..8 GPUs of a node, plus the NVLS (in-switch)
all_reduce's (o_N, bw_N) on chips whose switch reduces; `protocol_topology` builds the
switch `Topology` those values describe, and `protocol_times` prices rows on it with
`collective_time`, the model `predict` uses (the formulas are in `models.comm.flat`'s
docstring).

Why this form: the residuals of the single alpha-beta fit (`fit`) run in bands of
message size: too slow below ~64 KiB, too fast in 64 KiB - 4 MiB, where NCCL switches
from LL to LL128 to Simple, each with its own latency and bandwidth. Per step the
small-message latency grows linearly with the ring's step count (H100 all_reduce at
512 B: 6.2 / 9.5 / 15.6 us on 2 / 4 / 8 GPUs: +0.8 us per step of 2(n-1)), which is
what lets a fit on two GPU counts predict the third. The cost per message byte c_p:
at a given size NCCL's bus bandwidth rises with the GPU count, which bus bytes alone
((n-1)/n B, 2(n-1)/n B for all_reduce) at one bandwidth cannot follow: H100 all_gather
at 512 MiB takes 1040 / 1267 / 1400 us on 2 / 4 / 8 GPUs (bus bandwidth 258 / 318 /
335 GB/s), 1 : 1.22 : 1.35 where the bus bytes grow 1 : 1.5 : 1.75; a per-byte term
independent of n (as if each GPU paid for its own buffer at a fixed rate beside the
bus bytes) fits all three within 2 %. On the aiconfigurator tables it takes the p90
error per chip from 17-19 % to 14 % on held-out sizes and from 21-25 % to 15-19 % on
held-out GPU counts (benchmarks/RESULTS.md). NVLS: on 8 H100 / H200 an f16
all_reduce of 512 MiB reaches a bus bandwidth of 445 GB/s (H100) against 352 GB/s for
i8, which NVLS does not reduce, while at 4 GPUs both run at the ring's 350 GB/s:
the (n+1)/n bytes factor of NVLS (`flat`'s docstring) makes it cheaper than the ring's
2(n-1)/n at 8 GPUs and not at 4 with one fitted bandwidth.

Method: least squares on log time with a soft-L1 loss (as `fit`), over the logs of the
values, from several starts; a weak prior (`PRIOR_WEIGHT` per log unit) towards the
starting values keeps directions the data cannot decide (a protocol that never wins)
finite. Rows off by more than 2x and 5 robust standard deviations after a first fit are
dropped and the fit redone. No bus bandwidth may exceed the chip's datasheet link
bandwidth (a ring cannot beat its links, nor NVLS's (n+1)/n B per port): without that
bound the slow rise of NCCL's bus bandwidth from 16 to 512 MiB is fitted with a
"protocol" of 800 us overhead and 1.7x the link. The per-byte cost's rate 1 / c_p lies
within `BUFFER_SHARES` x the link bandwidth and starts (and is drawn by the prior) at
`BUFFER_SHARE_START` x, with two more starts at 1/10 and 10x that; NVLS has no such term
(fitting one moved no held-out p90 by more than 0.2 points). The protocols are named by
their large-message speed (1 / (1 / bw_p + c_p)) after the fit (slowest: LL, fastest:
Simple): the min over protocols is symmetric in them. A protocol that is the cheapest on
no training row is dropped: the data does not identify it (its values would be the
prior's). NVLS is kept only where the data shows it: on the rows it is chosen for, i8
(which NVLS does not reduce) of the same size and GPU count must run `NVLS_MIN_CONTRAST`
or more slower (else NVLS merely imitates the ring, or noise, on the f16 rows). So a fit
without 8-GPU rows has no NVLS: the data shows NVLS at 8 GPUs only (f16 vs i8 at 512 MiB
on 8 H100: 2111 vs 2672 us, +27 %; on 4: +1 %). B200's table shows +9 % at 8 GPUs (1355
vs 1479 us) and +5 % at 4: its all_reduce is fitted without NVLS.

all_to_all: NCCL runs it as n-1 grouped point-to-point sends of B/n bytes (not a ring),
concurrent, each on a few channels of its own, so its per-byte cost is per peer message:
o_p + (n-1) a_p + (n-1)/n B / bw_p + d_p B/n (`peer_seconds_per_byte`), with no c_p B
term. The per-peer rate 1 / d_p is bounded by `PEER_SHARES` x the link bandwidth, not
`BUFFER_SHARES`: it is far below the port's (H100 LL: about 6 GB/s per peer, 0.16 us per
KiB of each peer's message on 2, 4 and 8 GPUs alike), which is why at 64-128 KiB an
all_to_all on 8 GPUs is faster than on 2 (9.9 vs 13.8 us at 128 KiB). On the
aiconfigurator tables this takes the all_to_all p90 error with GPU counts held out from
30 / 29 / 20 % to 24 / 24 / 17 % (H100 / H200 / B200; A100 13 %), held-out sizes
unchanged or better (benchmarks/comm_calibration.py).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...errors import InvalidArgumentError
from ...hardware import CalibratedProtocol, Hardware, get_hardware
from ...models.comm.collectives import collective_time
from ...models.comm.phases import (
    ALL_GATHER,
    ALL_REDUCE,
    ALL_TO_ALL,
    DIRECT,
    IN_SWITCH,
    NVLS_PROTOCOL,
    REDUCE_SCATTER,
    RING,
)
from ...models.comm.topology import SWITCH, Link, Topology
from .fit import NVLS_REDUCTION_DTYPES
from .measurements import CollectiveMeasurement

PROTOCOL_NAMES = ("LL", "LL128", "Simple")
PRIOR_WEIGHT = 0.01            # per log unit of distance from the start
OUTLIER_FACTOR = 5.0
OUTLIER_MIN_LOG = math.log(2)
_LOSS_SCALE = 0.05
# Starting values per protocol: overhead s, latency s, bandwidth as a share of the
# chip's datasheet link bandwidth (LL moves 8 bytes of data per 16-byte store: ~half).
_START = ((5e-6, 0.8e-6, 0.07), (8e-6, 1.5e-6, 0.33), (20e-6, 3e-6, 0.67))
# The rate of the per-byte cost (1 / c_p) as shares of the link bandwidth: its bounds
# (at 1000x the link the term is 0.1 % of the bus time) and its start (the prior's
# centre), with further starts that move only it (log units).
BUFFER_SHARES = (0.3, 1000.0)
BUFFER_SHARE_START = 10.0
_BUFFER_SHIFTS = (-math.log(10.0), math.log(10.0))
# all_to_all: the bounds of the per-peer rate 1 / d_p (module docstring), shares of the
# link bandwidth; it starts where the buffer rate does.
PEER_SHARES = (0.001, 1000.0)
_RING_VALUES = 4               # o, a, bw, 1 / c per ring protocol
_NVLS_START = (20e-6, 0.67)
MAX_OVERHEAD_S = 200e-6
NVLS_MIN_CONTRAST = 0.10       # i8 at least 10 % slower than f16 where NVLS is chosen
MAX_LATENCY_S = 20e-6
_SHIFTS = (0.0, -0.5, 0.5, 1.0)


@dataclass(frozen=True)
class ProtocolParams:
    """The protocol regimes fitted to one chip and kind (NVLS last, when fitted)."""

    hardware: str
    kind: str
    protocols: tuple[CalibratedProtocol, ...]
    train_rows: int = 0
    outliers: int = 0

    @property
    def nvls(self) -> CalibratedProtocol | None:
        return next((p for p in self.protocols if p.name == NVLS_PROTOCOL), None)

    @property
    def ring(self) -> tuple[CalibratedProtocol, ...]:
        return tuple(p for p in self.protocols if p.name != NVLS_PROTOCOL)

    @property
    def overhead_s(self) -> float:
        return min(p.overhead_s for p in self.protocols)

    @property
    def simple(self) -> CalibratedProtocol:
        """The fastest ring protocol for large messages: the link values for everything
        else."""
        return max(self.ring, key=speed_bytes_per_s)

    def link_bandwidth_bytes_per_s(self, num_devices: int) -> float:
        """The bus bandwidth of `simple` on `num_devices` GPUs (its per-byte cost as
        bus time): the link bandwidth of the algorithms the protocols do not price."""
        p = self.simple
        n = float(max(num_devices, 2))
        _, factor = _steps_and_factor(self.kind, np.array([n]))
        return 1.0 / (1.0 / p.bandwidth_bytes_per_s
                      + (p.buffer_seconds_per_byte + p.peer_seconds_per_byte / n)
                      / float(factor[0]))


def speed_bytes_per_s(p: CalibratedProtocol) -> float:
    """A protocol's large-message speed, 1 / (1 / bw_p + c_p + d_p): how they are named."""
    return 1.0 / (1.0 / p.bandwidth_bytes_per_s + p.buffer_seconds_per_byte
                  + p.peer_seconds_per_byte)


def _steps_and_factor(kind: str, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(steps, bus-bytes factor) of the ring (all_to_all: direct) under a protocol."""
    if kind == ALL_REDUCE:
        return 2.0 * (n - 1), 2.0 * (n - 1) / n
    if kind in (ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL):
        return 1.0 * (n - 1), (n - 1) / n
    raise InvalidArgumentError(
        f"protocol fit covers {[ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL]}, "
        f"not {kind!r}")


def uses_nvls(hardware: str | Hardware, kind: str) -> bool:
    """Whether the fit includes NVLS: all_reduce on a switch that reduces."""
    return kind == ALL_REDUCE and bool(get_hardware(hardware).in_switch_reduction_efficiency)


def _arrays(rows: Sequence[CollectiveMeasurement]) -> tuple[np.ndarray, ...]:
    n = np.array([r.num_devices for r in rows], dtype=float)
    b = np.array([r.bytes_per_device for r in rows], dtype=float)
    nvls_ok = np.array([r.dtype in NVLS_REDUCTION_DTYPES for r in rows])
    return n, b, nvls_ok


def _per_byte_bytes(kind: str, n: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The bytes the per-byte term prices: the message (c_p B), or for all_to_all one
    point-to-point message (d_p B/n)."""
    return b / n if kind == ALL_TO_ALL else b


def _columns(values: np.ndarray, kind: str, nvls: bool, n: np.ndarray, b: np.ndarray,
             nvls_ok: np.ndarray) -> np.ndarray:
    """(protocols, rows) times: each ring protocol's (values: o, a, bw, 1 / c each; for
    all_to_all 1 / d), then NVLS's (o, bw; inf where the dtype cannot use it)."""
    steps, factor = _steps_and_factor(kind, n)
    per_byte = _per_byte_bytes(kind, n, b)
    cols = []
    for i in range(len(PROTOCOL_NAMES)):
        o, a, bw, rate = values[_RING_VALUES * i:_RING_VALUES * (i + 1)]
        cols.append(o + steps * a + factor * b / bw + per_byte / rate)
    if nvls:
        o, bw = values[-2:]
        cols.append(np.where(nvls_ok, o + (n + 1) / n * b / bw, np.inf))
    return np.vstack(cols)


def _times(values: np.ndarray, kind: str, nvls: bool, n: np.ndarray, b: np.ndarray,
           nvls_ok: np.ndarray) -> np.ndarray:
    return _columns(values, kind, nvls, n, b, nvls_ok).min(axis=0)


def _bounds(nvls: bool, link_bw: float, kind: str = ALL_REDUCE,
            ) -> tuple[np.ndarray, np.ndarray]:
    """Log-space bounds: no protocol's bus bandwidth above the datasheet link bandwidth
    (a ring cannot beat its links; NVLS's (n+1)/n B per port neither), the per-byte
    cost's rate within `BUFFER_SHARES` of it (all_to_all's per-peer rate: `PEER_SHARES`)."""
    shares = PEER_SHARES if kind == ALL_TO_ALL else BUFFER_SHARES
    lo_rate, hi_rate = (math.log(share * link_bw) for share in shares)
    lo = [math.log(1e-7), math.log(1e-10), math.log(1e8), lo_rate] * len(PROTOCOL_NAMES)
    hi = [math.log(MAX_OVERHEAD_S), math.log(MAX_LATENCY_S), math.log(link_bw), hi_rate] * \
        len(PROTOCOL_NAMES)
    if nvls:
        lo += [math.log(1e-7), math.log(1e8)]
        hi += [math.log(MAX_OVERHEAD_S), math.log(link_bw)]
    return np.array(lo), np.array(hi)


def _fit_once(rows: Sequence[CollectiveMeasurement], kind: str, nvls: bool,
              link_bw: float, ring_start: np.ndarray | None = None,
              ) -> tuple[np.ndarray, float]:
    """(values, robust cost of the data residuals without the prior's terms).
    `ring_start`: ring values of a fit without NVLS, one more start for a fit with it."""
    from scipy.optimize import least_squares

    n, b, nvls_ok = _arrays(rows)
    log_t = np.log([r.time_s for r in rows])
    start = [v for o, a, share in _START
             for v in (o, a, share * link_bw, BUFFER_SHARE_START * link_bw)]
    if nvls:
        start += [_NVLS_START[0], _NVLS_START[1] * link_bw]
    center = np.log(start)
    lo, hi = _bounds(nvls, link_bw, kind)

    def residuals(theta: np.ndarray) -> np.ndarray:
        t = _times(np.exp(theta), kind, nvls, n, b, nvls_ok)
        return np.concatenate([np.log(t) - log_t, PRIOR_WEIGHT * (theta - center)])

    rates = np.zeros(len(center))
    rates[_RING_VALUES - 1:_RING_VALUES * len(PROTOCOL_NAMES):_RING_VALUES] = 1.0
    starts = [center + shift for shift in _SHIFTS] + \
        [center + shift * rates for shift in _BUFFER_SHIFTS]
    if ring_start is not None:
        starts.append(np.concatenate([np.log(ring_start), center[len(ring_start):]]))
    best = None
    for x in starts:
        x0 = np.clip(x, lo + 1e-9, hi - 1e-9)
        sol = least_squares(residuals, x0, bounds=(lo, hi), loss="soft_l1",
                            f_scale=_LOSS_SCALE, max_nfev=2000)
        if best is None or sol.cost < best.cost:
            best = sol
    assert best is not None
    r = residuals(best.x)[:len(rows)] / _LOSS_SCALE
    return np.exp(best.x), float(np.sum(2 * (np.sqrt(1 + r * r) - 1)))


def _nvls_shown(values: np.ndarray, kind: str, rows: Sequence[CollectiveMeasurement],
                ) -> bool:
    """Whether the data shows the NVLS regime the fit chose. NVLS is a bandwidth regime:
    for each GPU count, at the largest size measured in both an NVLS-capable dtype and
    i8, NVLS must be the cheapest and the i8 all_reduce (which NVLS cannot reduce)
    measured `NVLS_MIN_CONTRAST` or more slower (median over the GPU counts where NVLS
    wins there). Without i8 rows: whether NVLS wins anywhere."""
    wins = _argmin(values, kind, True, rows) == len(PROTOCOL_NAMES)
    i8: dict[tuple[int, float], list[float]] = {}
    for r in rows:
        if r.dtype not in NVLS_REDUCTION_DTYPES:
            i8.setdefault((r.num_devices, r.bytes_per_device), []).append(r.time_s)
    if not i8:
        return bool(wins.any())
    capable: dict[tuple[int, float], list[tuple[float, bool]]] = {}
    for r, w in zip(rows, wins):
        if r.dtype in NVLS_REDUCTION_DTYPES and (r.num_devices, r.bytes_per_device) in i8:
            capable.setdefault((r.num_devices, r.bytes_per_device), []).append(
                (r.time_s, bool(w)))
    ratios = []
    for n in sorted({n for n, _ in capable}):
        b = max(b for m, b in capable if m == n)
        times, won = zip(*capable[n, b])
        if all(won):
            ratios.append(float(np.median(i8[n, b])) / float(np.median(times)) - 1.0)
    return bool(ratios) and float(np.median(ratios)) >= NVLS_MIN_CONTRAST


def _winners(values: np.ndarray, kind: str, nvls: bool,
             rows: Sequence[CollectiveMeasurement]) -> set[int]:
    """The protocols (index; NVLS last) that are the cheapest on at least one row."""
    return set(_argmin(values, kind, nvls, rows).tolist())


def _argmin(values: np.ndarray, kind: str, nvls: bool,
            rows: Sequence[CollectiveMeasurement]) -> np.ndarray:
    """Per row, the index of the cheapest protocol (NVLS last)."""
    return np.argmin(_columns(values, kind, nvls, *_arrays(rows)), axis=0)


def _params(hardware: str, kind: str, values: np.ndarray, nvls: bool, rows: int,
            outliers: int, winners: set[int]) -> ProtocolParams:
    """The fitted values as named protocols, keeping only those that win on some training
    row: a regime the data never shows is not identified (its values would be the prior)."""
    peer = kind == ALL_TO_ALL       # the per-byte term is d_p (per peer message), not c_p
    fitted = [(CalibratedProtocol("", float(o), float(a), float(bw),
                                  0.0 if peer else 1.0 / float(rate),
                                  1.0 / float(rate) if peer else 0.0), i)
              for i in range(len(PROTOCOL_NAMES))
              for o, a, bw, rate in [values[_RING_VALUES * i:_RING_VALUES * (i + 1)]]]
    fitted.sort(key=lambda pi: speed_bytes_per_s(pi[0]))
    protocols = [dataclasses.replace(p, name=name)
                 for name, (p, i) in zip(PROTOCOL_NAMES, fitted) if i in winners]
    if nvls and len(PROTOCOL_NAMES) in winners:
        protocols.append(CalibratedProtocol(NVLS_PROTOCOL, float(values[-2]), 0.0,
                                            float(values[-1])))
    return ProtocolParams(hardware, kind, tuple(protocols), rows, outliers)


def fit_protocols(rows: Sequence[CollectiveMeasurement], kind: str | None = None,
                  ) -> ProtocolParams:
    """The protocol regimes of one chip and kind fitted to `rows` (all of that chip and
    kind; `kind` defaults to theirs), with outlier removal (module docstring)."""
    if not rows:
        raise InvalidArgumentError("fit_protocols needs at least one measurement")
    chips = {r.hardware for r in rows}
    kinds = {r.kind for r in rows} if kind is None else {kind}
    if len(chips) != 1 or len(kinds) != 1 or any(r.kind not in kinds for r in rows):
        raise InvalidArgumentError(
            f"fit_protocols fits one chip and kind at a time, got chips {sorted(chips)} and "
            f"kinds {sorted({r.kind for r in rows})}")
    hw = get_hardware(chips.pop())
    kind = kinds.pop()
    nvls = uses_nvls(hw, kind)
    link_bw = hw.intra_node_bandwidth_bytes_per_s
    values, cost = _fit_once(rows, kind, nvls, link_bw)
    n, b, nvls_ok = _arrays(rows)
    r = np.log(_times(values, kind, nvls, n, b, nvls_ok)) - np.log([m.time_s for m in rows])
    spread = 1.4826 * float(np.median(np.abs(r - np.median(r))))
    out = np.abs(r - np.median(r)) > max(OUTLIER_FACTOR * spread, OUTLIER_MIN_LOG)
    kept = list(rows)
    if out.any() and (~out).sum() >= 8:
        kept = [m for m, o in zip(rows, out) if not o]
        values, cost = _fit_once(kept, kind, nvls, link_bw)
    if nvls:
        without, _ = _fit_once(kept, kind, False, link_bw)
        values, cost = min((values, cost), _fit_once(kept, kind, True, link_bw, without),
                           key=lambda vc: vc[1])
        if not _nvls_shown(values, kind, kept):
            values, nvls = without, False
    return _params(hw.name, kind, values, nvls, len(kept), len(rows) - len(kept),
                   _winners(values, kind, nvls, kept))


def protocol_topology(params: ProtocolParams, num_devices: int) -> Topology:
    """The switch of `num_devices` GPUs these values describe (as `topology_for(...,
    calibrated=True)` builds it from the chip file's per-kind table)."""
    node = get_hardware(params.hardware).chips_per_node
    link = Link(params.link_bandwidth_bytes_per_s(node), params.simple.latency_s)
    return Topology(SWITCH, (num_devices,), (link,), params.overhead_s,
                    hardware=params.hardware, protocols=params.protocols)


def protocol_time_s(params: ProtocolParams, row: CollectiveMeasurement) -> float:
    """`collective_time` of one measured row on `protocol_topology`, with NCCL's rule the
    model cannot see (it has no dtypes): NVLS does not reduce 8-bit types."""
    topology = protocol_topology(params, row.num_devices)
    cost = collective_time(row.kind, row.bytes_per_device, row.num_devices, topology)
    if cost.algorithm == IN_SWITCH and row.dtype not in NVLS_REDUCTION_DTYPES:
        algo = RING if row.kind != ALL_TO_ALL else DIRECT
        cost = collective_time(row.kind, row.bytes_per_device, row.num_devices, topology,
                               algo)
    return cost.time_s


def protocol_times(params: ProtocolParams,
                   rows: Sequence[CollectiveMeasurement]) -> np.ndarray:
    """`protocol_time_s` of every row."""
    return np.array([protocol_time_s(params, r) for r in rows])


def fitted_times(params: ProtocolParams,
                 rows: Sequence[CollectiveMeasurement]) -> np.ndarray:
    """The fit's own vectorised formula for `rows` (equal to `protocol_times`; the tests
    check it)."""
    values = [v for p in params.ring for v in (p.overhead_s, p.latency_s,
                                               p.bandwidth_bytes_per_s,
                                               _rate(p.buffer_seconds_per_byte
                                                     + p.peer_seconds_per_byte))]
    nvls = params.nvls
    if nvls is not None:
        values += [nvls.overhead_s, nvls.bandwidth_bytes_per_s]
    n, b, nvls_ok = _arrays(rows)
    return _times(np.array(values), params.kind, nvls is not None, n, b, nvls_ok)


def _rate(seconds_per_byte: float) -> float:
    return 1.0 / seconds_per_byte if seconds_per_byte > 0 else math.inf
