"""The step calibration: a whole step's time from the per-kernel model's predictions and a
handful of fitted terms that mean something on any machine.

    step = floor
         + sum over kernel groups g of max(scale_g x S_g + per_launch_g x L_g,
                                           MIN_GROUP_SHARE x S_g, P_g)

    S_g = sum over the group's kernels of executions x predicted kernel seconds
    L_g = sum over the group's kernels of executions (launches per step)
    P_g = sum over the group's kernels of executions x physical floor seconds
          (`physical_floor_s`: roofline compute time, or memory time at CACHE_SPEEDUP
          times the calibrated bandwidth)

Kernels the kernel model does not cover (`models.coverage`), priced by the roofline,
are left out of S_g and L_g and added to the step at their roofline time.

Two groups: kernels holding a dot_general or a convolution ("matmul") and the rest
("other"). Why this shape. The per-kernel model learned from kernel samples, each timed
as its own executable, so every prediction carries the per-call cost of a standalone
executable; a kernel inside a program, and above all inside a loop body, does not pay
it again. The per-launch terms take it back out (they come out negative: about -40 µs
per matmul-class launch on the reference data, the dispatch that an XLA:CPU dot pays
when it is called alone), and the scales absorb how back-to-back kernels share caches.
Five numbers fitted over every training program, so the fit cannot learn a family: on
families held out of the fit it stays near its in-distribution error, where the step
GNN (thousands of weights over 136 node features) does not
(`benchmarks/leave_one_family_out.py`). The clamp keeps a group of many tiny launches
from going negative.

It prices programs the step GNN does not (programs with loops too small for it) and
is blended with the GNN's answer where both price a step, the more the further they
disagree (`BLEND_LOG2`: the GNN extrapolating outside its training families). It is fitted by
`train/step_calibration.py` and saved as `step_calibration/meta.json` in the bundle,
with the manifest every model directory has (models/manifest.py).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from ..featurize.program import FEATURIZER_VERSION
from .features import FEATURE_SCHEMA_VERSION, FEATURES

MODEL_NAME = "step_calibration"
META_FILE = "meta.json"
GROUPS = ("matmul", "other")
# a group's calibrated time never falls below this share of its summed predictions
MIN_GROUP_SHARE = 0.1
# nor below what the chip can physically do: its kernels' roofline compute time, or
# their memory time at this many times the calibrated bandwidth (data a loop body
# keeps in cache moves faster than the probe's 128 MiB stream: 40-50 GB/s on 4-16 MiB
# against 9 GB/s calibrated on the Intel machine of benchmarks/RESULTS.md). Without it
# the per-launch terms took loops of many mid-sized kernels (an Ising sweep's 65k-element
# updates, 120 launches each) down to the tenth of their kernel sum.
CACHE_SPEEDUP = 10.0
_RL_COLUMNS = tuple(FEATURES.index(name) for name in ("rl_compute_us", "rl_memory_us"))
# Where the step GNN and the calibration both price a step, the step is their geometric
# blend, the GNN's weight falling linearly with their disagreement, from 1 when they
# agree to 0 when they differ by 2**BLEND_LOG2 (4x) or more: a GNN far from a
# five-number model of the same kernels is likely extrapolating, and a blend keeps a
# sweep's predictions continuous (a hard switch between the two models reordered a
# configuration sweep). Chosen on leave-one-family-out, the test split and the ranking
# sweep (benchmarks/RESULTS.md): held out by family 31.4 % (GNN alone 59.9 %,
# calibration alone 30.0 %), test split 18.3 % (GNN alone 15.1 %), sweep τ 1.00.
BLEND_LOG2 = 2.0


def gnn_weight(gnn_s: float, calibrated_s: float) -> float:
    """The step GNN's weight in the blend (see BLEND_LOG2)."""
    apart = abs(math.log2(max(gnn_s, 1e-30) / max(calibrated_s, 1e-30)))
    return min(1.0, max(0.0, 1.0 - apart / BLEND_LOG2))


def blend(gnn_s: float, calibrated_s: float) -> float:
    """The blended step seconds (geometric, GNN weight `gnn_weight`)."""
    w = gnn_weight(gnn_s, calibrated_s)
    return float(gnn_s ** w * calibrated_s ** (1.0 - w))
_MATMUL_COLUMNS = tuple(FEATURES.index(name) for name in ("op_dot_general", "op_convolution"))


def kernel_groups(X: np.ndarray) -> np.ndarray:
    """The group of each kernel (an index into GROUPS) from its feature rows."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != len(FEATURES):
        raise ModelError(f"kernel features must be (kernels, {len(FEATURES)}), got {X.shape}")
    matmul = (X[:, list(_MATMUL_COLUMNS)] > 0).any(axis=1)
    return np.where(matmul, 0, 1)


def physical_floor_s(X: np.ndarray) -> np.ndarray:
    """Per kernel (feature rows), the least time the chip can take for it: its roofline
    compute time, or its memory time at CACHE_SPEEDUP times the calibrated bandwidth."""
    X = np.asarray(X, dtype=np.float64)
    compute_us, memory_us = (np.exp2(X[:, c]) - 1.0 for c in _RL_COLUMNS)
    return np.maximum(compute_us, memory_us / CACHE_SPEEDUP) * 1e-6


def group_sums(groups: np.ndarray, kernel_s: np.ndarray, counts: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(S, L): per group, the summed executions x kernel seconds and the launches."""
    groups = np.asarray(groups, dtype=np.int64)
    weights = np.asarray(counts, dtype=np.float64)
    seconds = np.bincount(groups, weights * np.asarray(kernel_s, dtype=np.float64),
                          minlength=len(GROUPS))
    launches = np.bincount(groups, weights, minlength=len(GROUPS))
    return seconds, launches


@dataclass(frozen=True)
class StepCalibration:
    floor_s: float
    scale: tuple[float, ...]           # per group, dimensionless
    per_launch_s: tuple[float, ...]    # per group, seconds per launch (may be negative)
    # the smallest training program (kernels) and the log(measured / predicted)
    # quantiles of the fit's held-out residuals (the 80 % interval)
    min_kernels: int = 1
    interval_log_ratio: tuple[float, float] = (0.0, 0.0)
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        numbers = [self.floor_s, *self.scale, *self.per_launch_s, *self.interval_log_ratio]
        if len(self.scale) != len(GROUPS) or len(self.per_launch_s) != len(GROUPS):
            raise ModelError(f"a step calibration needs {len(GROUPS)} scales and per-launch "
                             "terms")
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers):
            raise ModelError("step calibration terms must be finite numbers")
        if not 0.0 <= self.floor_s < 1.0 or not all(0.0 <= s < 1e3 for s in self.scale) \
                or not all(abs(v) < 1.0 for v in self.per_launch_s):
            raise ModelError("step calibration terms out of range (floor in [0, 1) s, "
                             "scales in [0, 1000), per-launch terms within 1 s)")
        low, high = self.interval_log_ratio
        if low > high:
            raise ModelError("step calibration interval: low must not exceed high")

    def step_s(self, groups: np.ndarray, kernel_s: np.ndarray, counts: np.ndarray,
               physical_s: np.ndarray | None = None) -> float:
        """The calibrated step seconds of kernels in `groups` with predicted seconds
        `kernel_s` per execution, each run `counts` times; `physical_s`: each kernel's
        `physical_floor_s`, below which no group's time falls."""
        seconds, launches = group_sums(groups, kernel_s, counts)
        floor = np.zeros_like(seconds) if physical_s is None else \
            group_sums(groups, physical_s, counts)[0]
        return self.floor_s + float(self.group_parts(seconds, launches, floor).sum())

    def group_parts(self, seconds: np.ndarray, launches: np.ndarray,
                    physical: np.ndarray) -> np.ndarray:
        """Each group's calibrated seconds from its sums (arrays of any leading shape,
        groups last): the linear terms, kept above MIN_GROUP_SHARE of the predictions
        and above the physical floor."""
        scale, per_launch = np.array(self.scale), np.array(self.per_launch_s)
        return np.maximum(np.maximum(scale * seconds + per_launch * launches,
                                     MIN_GROUP_SHARE * seconds), physical)

    # -- persistence -------------------------------------------------------------------
    def save(self, directory: str | Path) -> Path:
        from ..atomicio import atomic_write_bytes
        from .manifest import write_manifest

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        meta = {**self.meta, "model": MODEL_NAME, "featurizer_version": FEATURIZER_VERSION,
                "feature_schema_version": FEATURE_SCHEMA_VERSION, "features": list(FEATURES),
                "groups": list(GROUPS), "floor_s": self.floor_s, "scale": list(self.scale),
                "per_launch_s": list(self.per_launch_s), "min_kernels": self.min_kernels,
                "interval_log_ratio": list(self.interval_log_ratio)}
        atomic_write_bytes(directory / META_FILE, (json.dumps(meta, indent=1) + "\n").encode())
        write_manifest(directory)
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> StepCalibration:
        from .bundle_checks import read_bundle

        directory = Path(directory)
        meta, _ = read_bundle(directory, MODEL_NAME, [])
        path = directory / META_FILE
        if meta.get("groups") != list(GROUPS):
            raise ModelError(f"{path}: kernel groups {meta.get('groups')!r}, this stablecost "
                             f"has {list(GROUPS)}; refit it")
        try:
            return cls(floor_s=_number(meta["floor_s"]),
                       scale=tuple(_number(v) for v in meta["scale"]),
                       per_launch_s=tuple(_number(v) for v in meta["per_launch_s"]),
                       min_kernels=int(meta["min_kernels"]),
                       interval_log_ratio=(_number(meta["interval_log_ratio"][0]),
                                           _number(meta["interval_log_ratio"][1])),
                       meta=meta)
        except ModelError as exc:
            raise ModelError(f"{path}: {exc}") from None
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ModelError(f"{path}: damaged step calibration ({type(exc).__name__}: "
                             f"{exc})") from None


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ModelError(f"{value!r} is not a number")
    return float(value)
