"""`stablecost dataset noise`: the run-to-run error floor of a dataset.

Re-measures a random sample of a dataset's collected rows on this machine, rebuilt from
their parameters and timed exactly as the collector did, and compares the new median
with the stored one. The distribution of |new - old| / old is the floor below which no
model's error means anything. `by_statistic` asks the same of the other timing
statistics every row keeps (10th percentile, minimum): whether a faster-end statistic
would be a steadier label than the median. The report is also saved as `noise.json`
in the dataset.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..atomicio import atomic_write_bytes
from ..errors import DatasetError, InvalidArgumentError
from ..hardware.fingerprint import local_machine
from . import store
from .collect import Sample, measure_sample

STATISTICS = ("median_s", "p10_s", "min_s")


@dataclass
class NoiseStats:
    rows: int
    median_error: float           # signed: drift between the collection and now
    median_abs_error: float
    p90_abs_error: float
    within_5pct: float
    within_10pct: float
    median_cv: float              # median within-run coefficient of variation

    @classmethod
    def of(cls, errors: list[float], cvs: list[float]) -> "NoiseStats":
        a = np.abs(np.asarray(errors))
        return cls(rows=len(a), median_error=float(np.median(errors)),
                   median_abs_error=float(np.median(a)),
                   p90_abs_error=float(np.quantile(a, 0.9)),
                   within_5pct=float(np.mean(a <= 0.05)), within_10pct=float(np.mean(a <= 0.10)),
                   median_cv=float(np.median(cvs)))


@dataclass
class NoiseReport:
    dataset: str
    overall: NoiseStats
    by_kind: dict[str, NoiseStats] = field(default_factory=dict)
    by_family: dict[str, NoiseStats] = field(default_factory=dict)
    # "median_s" / "p10_s" / "min_s": the same comparison for each stored statistic
    by_statistic: dict[str, NoiseStats] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def noise(path: str | Path, *, samples: int = 100, seed: int = 0,
          progress: Callable[[int, int], None] | None = None) -> NoiseReport:
    if samples <= 0:
        raise InvalidArgumentError(f"--samples {samples}: must be > 0")
    datasets = store.find_datasets(path)
    machine = local_machine()
    fp = store.fingerprint_id(machine.fingerprint)
    mine = [d for d in datasets if store.DatasetInfo.read(d).fingerprint_id == fp]
    if not mine:
        names = ", ".join(f"{d.name}" for d in datasets)
        raise DatasetError(f"{path}: no dataset was measured on this machine (fingerprint {fp}); "
                           f"found {names}. Noise can only be re-measured where rows were taken")
    dataset = mine[0]
    frame = store.read_frame(dataset)
    # profiles are re-timings of program rows under the profiler, not samples of a sweep
    frame = frame[(frame["source"] == "collected") & frame["kind"].isin(["kernel", "program"])]
    if frame.empty:
        raise DatasetError(f"{dataset}: has no collected rows to re-measure")
    rng = np.random.default_rng(seed)
    chosen = frame.iloc[rng.permutation(len(frame))[:samples]]
    errors: dict[str, list[float]] = {}
    cvs: dict[str, list[float]] = {}
    by_stat: dict[str, list[float]] = {k: [] for k in STATISTICS}
    failures = []
    start = time.perf_counter()
    for i, row in enumerate(chosen.itertuples(index=False)):
        sample = Sample(row.kind, row.family, row.variant, row.dtype, row.group_id,
                        json.loads(row.params))
        try:
            _, stats = measure_sample(sample, flush=None, rng=rng)
        except Exception as exc:  # noqa: BLE001 - report, keep going
            failures.append(f"{row.sample_id}: {type(exc).__name__}: {exc}"[:300])
            continue
        err = (stats.median_s - row.median_s) / row.median_s
        for key in STATISTICS:
            old = getattr(row, key)
            if old and old > 0:
                by_stat[key].append((getattr(stats, key) - old) / old)
        for key in ("all", f"kind:{row.kind}", f"family:{row.kind}/{row.family}"):
            errors.setdefault(key, []).append(err)
            cvs.setdefault(key, []).append(stats.cv)
        if progress is not None:
            progress(i + 1, len(chosen))
    if "all" not in errors:
        raise DatasetError(f"{dataset}: no row could be re-measured ({failures[:1]})")
    report = NoiseReport(
        dataset=str(dataset), overall=NoiseStats.of(errors["all"], cvs["all"]),
        by_kind={k[5:]: NoiseStats.of(v, cvs[k]) for k, v in errors.items()
                 if k.startswith("kind:")},
        by_family={k[7:]: NoiseStats.of(v, cvs[k]) for k, v in errors.items()
                   if k.startswith("family:")},
        by_statistic={k: NoiseStats.of(v, cvs["all"]) for k, v in by_stat.items() if v},
        failures=failures, elapsed_s=time.perf_counter() - start)
    atomic_write_bytes(dataset / "noise.json",
                              json.dumps(report.to_dict(), indent=2).encode() + b"\n")
    return report
