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
resumes. A program whose stored profile indexes an older featurizer's kernels that do not
all map onto this version's (`kernel_seconds`) is profiled again: its sample then names
this version ("featurizer" in params), and readers take the newer profile.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

import numpy as np

from ..hardware.timing import TimingStats, summarize

KIND = "profile"
T = TypeVar("T")
STEPS = 5
WARMUP = 3


def profile_samples(path: str | Path, families: tuple[str, ...] | None, *,
                    rows: list[Any] | None = None,
                    stored: Callable[[], dict[str, list[str]]] | None = None
                    ) -> Iterator[Any]:
    """One profile sample per program row under `path` (`rows`: its `program_rows`).
    `stored()` (read when the first sample is asked for): the `kernel_times` of the
    profiles the output dataset holds, by program; a program none of whose profiles
    covers every kernel of this featurizer gets a sample naming this version, so that
    it is profiled again."""
    from ..featurize.program import FEATURIZER_VERSION
    from ..featurize.step_profile import SPLIT
    from .collect import Sample
    from .outlined import program_rows

    held = stored() if stored is not None else {}
    for row in rows if rows is not None else program_rows(path, families):
        params = {**json.loads(row.params), "program": row.sample_id, "split": SPLIT}
        times = held.get(row.sample_id)
        if times and not any(covers_every_kernel(t, row.stablehlo) for t in times):
            params["featurizer"] = FEATURIZER_VERSION
        yield Sample(KIND, str(row.family), str(row.variant), str(row.dtype),
                     str(row.group_id), params, stablehlo=row.stablehlo)


def stored_profiles(dataset: str | Path) -> dict[str, list[str]]:
    """The `kernel_times` of the profiles `dataset` holds, by program (none for a new
    dataset), newest featurizer first."""
    from . import store

    if not (Path(dataset) / "dataset.json").exists():
        return {}
    frame = store.read_frame(dataset, columns=["kind", "params", "kernel_times"])
    return by_program(frame[frame["kind"] == KIND])


def by_program(profiles: Any) -> dict[str, list[str]]:
    """The `kernel_times` of a frame of profile rows, by program, newest featurizer
    first (a program profiled again keeps both rows)."""
    out: dict[str, list[str]] = {}
    for params, times in zip(profiles["params"], profiles["kernel_times"]):
        if times:
            out.setdefault(json.loads(params)["program"], []).append(times)
    return {program: newest_first(times) for program, times in out.items()}


def newest_first(profiles: list[T], times: Callable[[T], str] = str) -> list[T]:
    """Profiles (their `kernel_times`, or rows whose `times(row)` they are), those of
    this featurizer version first, and among them those of this split rule: a program
    profiled again after a version or rule change keeps its older row too."""
    from ..featurize.program import FEATURIZER_VERSION
    from ..featurize.step_profile import SPLIT

    def older(profile: T) -> tuple[bool, bool]:
        data = json.loads(times(profile))
        return (str(data.get("featurizer_version")) != str(FEATURIZER_VERSION),
                data.get("split") != SPLIT)

    return sorted(profiles, key=older)


def covers_every_kernel(kernel_times: str, text: str) -> bool:
    """Whether a stored profile gives a time to every priced kernel of `text` as this
    featurizer forms them (a profile of this version does; an older one when its
    kernels map onto all of these)."""
    from ..featurize.program import FEATURIZER_VERSION
    from ..featurize.step_profile import SPLIT

    data = json.loads(kernel_times)
    if data.get("split") != SPLIT or data.get("kernels", "analyze") != "analyze":
        return False
    if str(data.get("featurizer_version")) == str(FEATURIZER_VERSION):
        return True
    from ..featurize.analysis import analyze
    from ..featurize.ingest import load_program

    analysis = analyze(load_program(text))
    seconds = kernel_seconds(kernel_times, analysis=analysis)
    wanted = {k.index for k in analysis.kernels if k.kind != "collective" and k.priced}
    return seconds is not None and wanted <= set(seconds)


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


# Older featurizer versions whose kernels `fuse` can still form, by the options that
# form them: a profile of one is mapped onto this version's kernels kernel by kernel.
LEGACY_FUSION: dict[str, dict[str, bool]] = {"6": {"widening_epilogue": True}}
# `fuse` options of each kind of profiled kernels (`StepProfile.kernels`)
_KERNEL_RULES: dict[str, dict[str, bool]] = {
    "analyze": {}, "multi-output": {"multi_output": True, "xla_gpu": True}}


def kernel_seconds(kernel_times: str | None, kernels: str = "analyze",
                   analysis: Any = None) -> dict[int, float] | None:
    """Seconds per step by kernel index of a profile row's `kernel_times`; None when
    the row has none, kernels merged otherwise than `kernels` says
    (`StepProfile.kernels`; a profile without the key split the analysis's own kernels,
    as the first XLA:GPU profiles did), a rule no longer read split the thunks among
    them (`step_profile.READABLE_SPLITS`), or they index another featurizer's kernels.
    A profile of a version in `LEGACY_FUSION` is mapped onto this version's kernels
    when the program's `analysis` (`analyze`'s, of the profiled text) is given: a kernel
    made of the same ops as one of that version keeps its time, one the versions group
    differently has none. A CPU profile of an older split rule needs the `analysis`
    too: its kernels holding a convolution XLA:CPU runs densely (a depthwise filter
    gradient), whose thunks that rule left unmapped, have no time."""
    from ..featurize.program import FEATURIZER_VERSION
    from ..featurize.step_profile import READABLE_SPLITS, SPLIT

    if not kernel_times:
        return None
    data = json.loads(kernel_times)
    split = data.get("split")
    if split not in READABLE_SPLITS or data.get("kernels", "analyze") != kernels:
        return None
    if split != SPLIT and kernels == "analyze" and analysis is None:
        return None
    seconds = {int(k): float(v) for k, v in data["kernel_s"].items()}
    version = str(data.get("featurizer_version"))
    if version != str(FEATURIZER_VERSION):
        if version not in LEGACY_FUSION or analysis is None:
            return None
        seconds = migrated(seconds, analysis,
                           {**_KERNEL_RULES[kernels], **LEGACY_FUSION[version]})
    if split != SPLIT and kernels == "analyze":   # XLA:GPU has batch-grouped convolutions
        dense = set(densely_rewritten(analysis))
        seconds = {k: v for k, v in seconds.items() if k not in dense}
    return seconds


def densely_rewritten(analysis: Any) -> list[int]:
    """The indices of `analysis`'s kernels holding a convolution that XLA:CPU rewrites
    into a dense one (`featurize.conv_lowering.dense_on_cpu_groups`)."""
    from ..featurize.conv_lowering import dense_on_cpu_groups

    ops = analysis.program.ops
    return [k.index for k in analysis.kernels
            if any(ops[i].opcode == "convolution" and dense_on_cpu_groups(ops[i]) > 1
                   for i in k.ops)]


def migrated(seconds: dict[int, float], analysis: Any, legacy: dict[str, bool]
             ) -> dict[int, float]:
    """`seconds` of the kernels `fuse(..., **legacy)` forms, by index, onto
    `analysis`'s kernels of the same ops (this version's indices)."""
    from ..featurize.fusion import fuse

    if not seconds:
        return {}
    old = fuse(analysis.program, analysis.costs, **legacy)
    by_ops = {frozenset(k.ops): k.index for k in old}
    out: dict[int, float] = {}
    for kernel in analysis.kernels:
        index = by_ops.get(frozenset(kernel.ops))
        if index is not None and index in seconds:
            out[kernel.index] = seconds[index]
    return out
