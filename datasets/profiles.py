"""`stablecost collect profiles --from-programs PATH`: program steps timed under XLA's
profiler, with the time of every kernel inside the step (`featurize.step_profile`).

Each program row under PATH is profiled once on this machine and stored as a row of
kind "profile":

    family, variant, dtype, group_id   the program's (a held-out family leaves its
                                       profiles out too; the split keeps groups together)
    params        the program's, plus "program": its sample id and "split": the rule
                  that split thunks among kernels (`step_profile.SPLIT`; a new rule
                  makes new samples, so a rerun profiles every program again)
    stablehlo     the program's text (the kernels are its `analyze` kernels)
    median_s ...  the profiled steps' wall times (the profiler costs about a microsecond
                  per thunk; the program row's own times stay the step's label)
    kernel_times  `StepProfile.as_json()`: seconds per step of each kernel, by
                  `Kernel.index`, the time of thunks holding none of our ops, the busy
                  time, the split rule, and the featurizer version the indices
                  belong to

A rerun skips the programs the dataset has profiles of, so an interrupted collection
resumes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ..hardware.timing import TimingStats, summarize

KIND = "profile"
STEPS = 5
WARMUP = 3


def profile_samples(path: str | Path, families: tuple[str, ...] | None, *,
                    rows: list[Any] | None = None) -> Iterator[Any]:
    """One profile sample per program row under `path` (`rows`: its `program_rows`)."""
    from ..featurize.step_profile import SPLIT
    from .collect import Sample
    from .outlined import program_rows

    for row in rows if rows is not None else program_rows(path, families):
        params = {**json.loads(row.params), "program": row.sample_id, "split": SPLIT}
        yield Sample(KIND, str(row.family), str(row.variant), str(row.dtype),
                     str(row.group_id), params, stablehlo=row.stablehlo)


def measure_profile(sample: Any, *, flush: Any, rng: np.random.Generator
                    ) -> tuple[str, TimingStats, str]:
    """Profile one program's step: (its text, the profiled steps' statistics, the
    kernel times as JSON), what `measure_into` calls for profile samples."""
    from ..featurize.program import FEATURIZER_VERSION
    from ..featurize.step_profile import profile_step

    del flush, rng   # caches stay warm inside a step; arguments as the measured fidelity
    profile = profile_step(sample.stablehlo, sample.sample_id, steps=STEPS, warmup=WARMUP)
    stats = summarize(list(profile.walls_s), WARMUP, "none")
    times = {**profile.as_json(), "featurizer_version": FEATURIZER_VERSION}
    return sample.stablehlo, stats, json.dumps(times, sort_keys=True)


def kernel_seconds(kernel_times: str | None, kernels: str = "analyze"
                   ) -> dict[int, float] | None:
    """Seconds per step by kernel index of a profile row's `kernel_times`; None when
    the row has none, they index another featurizer's kernels or kernels merged
    otherwise than `kernels` says (`StepProfile.kernels`; a profile without the key
    split the analysis's own kernels, as the first XLA:GPU profiles did), or another
    rule split the thunks among them."""
    from ..featurize.program import FEATURIZER_VERSION
    from ..featurize.step_profile import SPLIT

    if not kernel_times:
        return None
    data = json.loads(kernel_times)
    if (str(data.get("featurizer_version")) != str(FEATURIZER_VERSION)
            or data.get("split") != SPLIT or data.get("kernels", "analyze") != kernels):
        return None
    return {int(k): float(v) for k, v in data["kernel_s"].items()}
