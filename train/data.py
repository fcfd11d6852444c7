"""From dataset rows to model inputs: featurize every sample's StableHLO at load time.

A kernel *sample* is a small program; our fusion may split it into a few kernels (a
layernorm is two reductions and a loop kernel). Each kernel becomes one training row;
the sample's measured time, minus the per-call floor, is shared among its kernels in
proportion to their roofline times, so that the per-kernel predictions of a sample add
up to its measurement, which is also how a whole program is predicted:

    step time = floor + sum over kernels of (executions x predicted kernel time)

The floor is what one call of a compiled executable costs with no work in it (host
dispatch on CPU); it is estimated as the 1st percentile of the collected kernel
samples' medians, and 0 for imported GPU rows (CUDA-event timings of the kernel alone).
"""

from __future__ import annotations

import fnmatch
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from ..datasets import store
from ..datasets.splits import assign_splits
from ..errors import DatasetError, InvalidArgumentError
from ..featurize.analysis import Analysis, analyze, for_chip_kind
from ..featurize.fusion import COLLECTIVE
from ..featurize.ingest import load_program
from ..hardware import Hardware, get_hardware, parse_spec
from ..models.coverage import cpu_kernel_kinds
from ..models.features import N_FEATURES, program_features
from ..models.roofline import kernel_times

HARDWARE_FILE = "hardware.toml"


def dataset_hardware(dataset: Path) -> Hardware:
    """The spec a dataset's rows are priced against: its own `hardware.toml` (host-cpu
    calibrated where it was collected) or the catalog entry of its hardware name."""
    import tomllib

    info = store.DatasetInfo.read(dataset)
    spec_path = dataset / HARDWARE_FILE
    problem = store.check_file(dataset, HARDWARE_FILE)
    if problem:
        raise DatasetError(f"{spec_path}: {problem}; restore it, or move it away to price the "
                           f"rows against the catalog's {info.hardware}")
    if spec_path.is_file():
        return parse_spec(tomllib.loads(spec_path.read_text()), str(spec_path))
    return get_hardware(info.hardware)


def pick_dataset(path: str | Path, hardware: str | None) -> Path:
    """The one dataset under `path` for `hardware` (or the only one)."""
    found = store.find_datasets(path)
    if hardware:
        wanted = hardware.lower()
        matches = [d for d in found if store.DatasetInfo.read(d).hardware.lower() == wanted]
        if not matches:
            names = sorted({store.DatasetInfo.read(d).hardware for d in found})
            raise InvalidArgumentError(f"no dataset for hardware {hardware!r} under {path}; "
                                       f"it has: {', '.join(names)}")
        found = matches
    if len(found) > 1:
        listing = ", ".join(f"{store.DatasetInfo.read(d).hardware} ({d.name})" for d in found)
        raise InvalidArgumentError(f"{path} holds several datasets ({listing}); "
                                   "choose one with --hardware")
    return found[0]


def data_digest(frame: pd.DataFrame) -> str:
    """Digest of the rows a model is trained from (ids and timings)."""
    h = hashlib.sha256()
    for sid, t in sorted(zip(frame["sample_id"], frame["median_s"])):
        h.update(f"{sid}:{t:.9g};".encode())
    return h.hexdigest()[:16]


def per_call_floor_s(frame: pd.DataFrame) -> float:
    collected = frame[(frame["source"] == "collected") & (frame["kind"] == "kernel")]
    if collected.empty:
        return 0.0
    return float(np.quantile(collected["median_s"], 0.01))


@dataclass
class Featurized:
    """Per-kernel rows of many samples."""

    X: np.ndarray               # (kernel rows, features)
    roofline_s: np.ndarray      # roofline time of one execution of each kernel
    count: np.ndarray           # executions per step
    sample: np.ndarray          # index of the owning sample in `samples`
    samples: pd.DataFrame       # one row per sample that featurized, with `split`
    failures: list[str]
    # per kernel row: how XLA:CPU runs it, where that is outside a CPU kernel model's data
    # (`models.coverage.cpu_kernel_kind`)
    cpu_kind: np.ndarray | None = None

    def sample_roofline_s(self) -> np.ndarray:
        return np.bincount(self.sample, weights=self.roofline_s * self.count,
                           minlength=len(self.samples))

    def sum_per_sample(self, per_kernel_s: np.ndarray) -> np.ndarray:
        return np.bincount(self.sample, weights=per_kernel_s * self.count,
                           minlength=len(self.samples))


def featurize_rows(frame: pd.DataFrame, hw: Hardware, *,
                   progress: Callable[[int, int], None] | None = None,
                   keep_analyses: bool = False) -> tuple[Featurized, list[Analysis] | None]:
    """Load, analyze and featurize every row's program on `hw`."""
    blocks, rls, counts, owners, failures, loops = [], [], [], [], [], []
    kept: list[int] = []
    analyses: list[Analysis] | None = [] if keep_analyses else None
    # Imported data measures the same program many times (frameworks, versions):
    # featurize each distinct text once.
    cache: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Analysis] | str] = {}
    for i, row in enumerate(frame.itertuples(index=False)):
        entry = cache.get(row.stablehlo)
        if entry is None:
            entry = cache[row.stablehlo] = _featurize_text(row.stablehlo, row.sample_id, hw)
        if isinstance(entry, str):
            failures.append(f"{row.sample_id} ({row.family}/{row.variant}): {entry}"[:240])
            continue
        features, rl, count, loop, analysis = entry
        loops.append(loop)
        owners.append(np.full(len(features), len(kept), dtype=np.int64))
        kept.append(i)
        blocks.append(features)
        rls.append(rl)
        counts.append(count)
        if analyses is not None:
            analyses.append(analysis)
        if progress is not None and (i + 1) % 200 == 0:
            progress(i + 1, len(frame))
    samples = frame.iloc[kept].reset_index(drop=True)
    if not kept:
        empty = np.zeros((0, N_FEATURES), np.float32)
        return Featurized(empty, np.zeros(0), np.zeros(0), np.zeros(0, np.int64), samples,
                          failures, np.zeros(0, np.int8)), analyses
    return Featurized(np.concatenate(blocks), np.concatenate(rls), np.concatenate(counts),
                      np.concatenate(owners), samples, failures,
                      np.concatenate(loops)), analyses


def _featurize_text(text: str, name: str, hw: Hardware):
    """(features, roofline seconds, counts, CPU kernel kinds, analysis) of one program,
    or why it failed."""
    try:
        analysis = for_chip_kind(analyze(load_program(text, name=name)), hw.kind)
    except Exception as exc:  # noqa: BLE001 - a row that does not load is reported
        return str(exc)
    kernels = [k for k in analysis.kernels if k.kind != COLLECTIVE and k.priced]
    if not kernels:
        return "no priced kernel"
    rl = np.array([t.time_s for t in kernel_times(kernels, analysis.program, hw)])
    count = np.array([k.count for k in kernels], dtype=np.float64)
    kinds = cpu_kernel_kinds(kernels, analysis.program)
    return program_features(kernels, analysis.program, hw), rl, count, kinds, analysis


def kernel_targets(f: Featurized, floor_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-kernel target seconds (the sample's time above the floor, shared by roofline)
    and row weights (each sample weighs 1 in total)."""
    total_rl = f.sample_roofline_s()
    share = f.roofline_s * f.count / np.maximum(total_rl[f.sample], 1e-30)
    above = np.maximum(f.samples["median_s"].to_numpy() - floor_s,
                       0.05 * f.samples["median_s"].to_numpy())
    target = above[f.sample] * share / np.maximum(f.count, 1.0)
    weight = share
    return target, weight


def load_frame(dataset: Path, kind: str, *, seed: int = 0, max_rows: int | None = None,
               source: str | None = None,
               variants: Sequence[str] | None = None) -> pd.DataFrame:
    """The dataset's `kind` rows that are not outliers, with their split.

    `source` (an fnmatch pattern on the rows' `source`, e.g.
    ``*/trtllm/1.3.0rc20/*``) and `variants` keep only the matching rows, before
    `max_rows` subsamples them."""
    frame = store.read_frame(dataset, warn=stderr_warning)   # damaged data: refused
    frame = frame[(frame["kind"] == kind) & (~frame["outlier"])]
    if frame.empty:
        raise DatasetError(f"{dataset}: no {kind} rows to train on")
    if source is not None:
        sources = frame["source"].astype(str)
        names = sorted(sources.unique())   # a few table paths for a million rows
        matching = [name for name in names if fnmatch.fnmatchcase(name, source)]
        if not matching:
            raise InvalidArgumentError(
                f"--source {source!r} matches no {kind} rows of {dataset.name}; its sources: "
                f"{_some(names)}")
        frame = frame[sources.isin(matching)]
    if variants:
        keep = frame["variant"].isin(list(variants))
        if not keep.any():
            raise InvalidArgumentError(
                f"--variant {','.join(variants)} matches no {kind} rows of {dataset.name}"
                f"{' from that --source' if source else ''}; its variants: "
                f"{_some(sorted(frame['variant'].astype(str).unique()))}")
        frame = frame[keep]
    frame = frame.sort_values("sample_id").reset_index(drop=True)
    if max_rows is not None and len(frame) > max_rows:
        frame = frame.sample(n=max_rows, random_state=seed).reset_index(drop=True)
    frame["split"] = assign_splits(frame["group_id"].tolist(), seed)
    return frame


def _some(names: list[str], shown: int = 4) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def mixed_sources(frame: pd.DataFrame) -> str | None:
    """A warning when several sources time the same shape groups (imported tables of
    several libraries or library versions), else None: they give one program several
    true times, which bounds any model's accuracy."""
    per_group = frame.groupby("group_id")["source"].nunique()
    shared = per_group[per_group > 1]
    if shared.empty:
        return None
    sources = sorted(frame.loc[frame["group_id"].isin(shared.index), "source"].astype(str).unique())
    return (f"{len(shared) / len(per_group):.0%} of the shape groups are timed by several "
            f"sources ({len(sources)}: {_some(sources, 2)}); different libraries or "
            "versions give one program different times, which caps accuracy: --source "
            "PATTERN (and --variant) train on one")


def stderr_warning(message: str) -> None:
    """What a dataset could not prove about itself (no manifest yet, journal lines
    without a checksum), on stderr."""
    sys.stderr.write(f"warning: {message}\n")
    sys.stderr.flush()


def stderr_progress(label: str) -> Callable[[int, int], None]:
    def report(done: int, total: int) -> None:
        sys.stderr.write(f"{label}: {done}/{total}\n")
        sys.stderr.flush()
    return report


def describe(frame: pd.DataFrame) -> dict[str, Any]:
    return {"rows": int(len(frame)), "groups": int(frame["group_id"].nunique()),
            "by_split": {k: int(v) for k, v in frame["split"].value_counts().items()}}
