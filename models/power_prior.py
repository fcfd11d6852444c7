"""How much of its tensor peak a GPU sustains, from its FLOP/s per watt.

Large GEMMs on the public measurements (aiconfigurator, `train/gpu_corpus.py`) reach a
share of the datasheet tensor peak that falls as the peak per watt of board power rises:
about 79 % on A100 bf16 (0.78 TFLOP/s per W) and H100/H200 bf16 (1.41), 68 % on B200
bf16 (2.25), 60 % on H100/H200 fp8 (2.83) and 51 % on B200 fp8 (4.5). A chip whose
tensor units could draw more than its board power lowers its clocks under a dense
GEMM. The peak and the power are datasheet numbers, so the share is known for a chip
no measurement comes from; the trees of the kernel model cannot extrapolate it (B200
lies beyond every training chip on every spec feature), a three-number curve can:

    efficiency(x) = e_max                          for x <= knee
                  = e_max * (x / knee) ** -alpha   above it

with x the kernel's tensor TFLOP/s per watt (its dtype's peak over `board_power_w`).
The GPU kernel model learns its log ratio against the roofline with the compute term
divided by this efficiency (`baseline_s`), so what the trees learn is how a kernel's
shape departs from a large GEMM's efficiency, and that carries across chips.

The curve is fitted per training set (`fit_power_prior`) and saved in the bundle's
metadata; a chip with no `board_power_w`, or a kernel off the tensor units (no
matmul FLOPs, or f32 at HIGHEST precision on CUDA cores), keeps efficiency 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from ..dtypes import compute_class
from ..errors import ModelError
from ..featurize.fusion import MATMUL, Kernel
from ..featurize.program import Program
from ..hardware import Hardware
from .roofline import KernelTime, kernel_dtypes

# the groups a fit needs at least: one below the knee and one above it
MIN_GROUPS = 3
# the share of each group's samples, by roofline time, that count as large GEMMs
LARGE_QUANTILE = 0.75


def tensor_tflops_per_watt(kernel: Kernel, program: Program, hw: Hardware) -> float:
    """The tensor-unit peak of `kernel`'s dtype per watt of `hw`'s board power (TFLOP/s
    per W); NaN where no power prior applies: a chip with no `board_power_w`, a kernel
    that is not a dot or convolution (fused attention: on B200 the prior moved its
    held-out median APE from 18 to 23 %), or one on CUDA cores (f64, f32 at HIGHEST
    precision, f32 on a chip without TF32)."""
    power = hw.board_power_w
    if not power or hw.kind != "gpu" or kernel.kind != MATMUL or not kernel.matmul_flops:
        return math.nan
    dtype, _, precision = kernel_dtypes(kernel, program)
    unit = compute_class(dtype)
    if unit == "f32" and precision != "HIGHEST":
        unit = hw.f32_matmul_as      # tf32 on Ampere and later, f32 before
    if unit in ("f32", "f64"):       # CUDA cores, not tensor units
        return math.nan
    return hw.matmul_peak_flops_per_s(dtype, precision) / 1e12 / power


@dataclass(frozen=True)
class PowerPrior:
    e_max: float
    knee: float          # TFLOP/s per W
    alpha: float

    def __post_init__(self) -> None:
        if not (0.0 < self.e_max <= 1.5 and 0.0 < self.knee < 100.0
                and 0.0 <= self.alpha < 5.0):
            raise ModelError(f"power prior out of range: e_max {self.e_max!r} (0-1.5], knee "
                             f"{self.knee!r} (0-100), alpha {self.alpha!r} [0-5)")

    def efficiency(self, x: np.ndarray) -> np.ndarray:
        """The sustained share of peak at `x` TFLOP/s per W (1 where x is NaN)."""
        x = np.asarray(x, dtype=np.float64)
        known = np.isfinite(x) & (x > 0)
        ratio = np.where(known, x, self.knee) / self.knee
        eff = self.e_max * np.minimum(1.0, ratio ** -self.alpha)
        return np.where(known, eff, 1.0)

    def baseline_s(self, times: Sequence[KernelTime], x: np.ndarray) -> np.ndarray:
        """Each kernel's roofline time with its compute term divided by the efficiency."""
        eff = self.efficiency(x)
        return np.array([t.overhead_s + max(t.compute_s / e, t.memory_s)
                         for t, e in zip(times, eff)], dtype=np.float64)

    def to_dict(self) -> dict[str, float]:
        return {"e_max": self.e_max, "knee": self.knee, "alpha": self.alpha}

    @classmethod
    def from_dict(cls, data: Any, where: str = "power_prior") -> PowerPrior:
        if not isinstance(data, Mapping) or set(data) != {"e_max", "knee", "alpha"} \
                or not all(isinstance(v, (int, float)) and math.isfinite(v)
                           for v in data.values()):
            raise ModelError(f"{where}: needs finite numbers e_max, knee and alpha, got "
                             f"{data!r}")
        try:
            return cls(float(data["e_max"]), float(data["knee"]), float(data["alpha"]))
        except ModelError as err:
            raise ModelError(f"{where}: {err}") from None


def fit_power_prior(x: np.ndarray, ratio: np.ndarray, roofline_s: np.ndarray
                    ) -> PowerPrior | None:
    """The curve through the large GEMMs of each distinct `x` (one chip and dtype):
    `ratio` is measured over roofline time per sample, `roofline_s` ranks them by size.
    Each group's efficiency is 1 / the median ratio of its largest quarter; the knee is
    the one (on a grid over the groups' x) whose fit has the least squared log error,
    e_max the geometric mean at or below it, alpha least squares above it. None with
    fewer than MIN_GROUPS groups."""
    x, ratio, roofline_s = (np.asarray(a, dtype=np.float64) for a in (x, ratio, roofline_s))
    keep = np.isfinite(x) & (ratio > 0) & (roofline_s > 0)
    groups: list[tuple[float, float]] = []
    for value in np.unique(np.round(x[keep], 6)):
        rows = keep & (np.abs(x - value) < 1e-6)
        large = rows & (roofline_s >= np.quantile(roofline_s[rows], LARGE_QUANTILE))
        groups.append((float(value), 1.0 / float(np.median(ratio[large]))))
    if len(groups) < MIN_GROUPS:
        return None
    gx, ge = np.log(np.array(groups)).T
    best: tuple[float, PowerPrior] | None = None
    for knee in np.linspace(gx.min(), gx.max(), 60):
        below = gx <= knee + 1e-12
        log_e_max = float(np.mean(ge[below]))
        above = ~below
        lx, ly = gx[above] - knee, ge[above] - log_e_max
        alpha = max(0.0, -float(lx @ ly / (lx @ lx))) if above.any() else 0.0
        fitted = log_e_max - alpha * np.maximum(gx - knee, 0.0)
        err = float(np.sum((fitted - ge) ** 2))
        if best is None or err < best[0] - 1e-12:
            e_max = min(math.exp(log_e_max), 1.5)
            best = (err, PowerPrior(e_max, math.exp(knee), min(alpha, 4.99)))
    assert best is not None
    return best[1]
