"""`stablecost collect kernels --from-programs PATH`: the kernels real programs are made
of, timed as kernel samples.

Kernel templates (`datasets/kernels`) sweep shapes chosen in advance; a program's own
kernels (a transposed convolution's gradient, a norm's fused tail, a loop body) are
what the kernel model must price. Every program row of the dataset(s) under PATH is
cut into its fused kernels (`featurize.outline`), each distinct kernel is timed once
as its own executable by the kernel timing rule, and stored as a kernel row:

    family   "outlined"
    variant  the program's family (so a model judged on a held-out program family can
             leave that family's kernels out too)
    group_id "outlined/" + the program's group (a model size and its batches: the
             split keeps them together, as it does the programs)
    params   {"program": the program's sample id, "kernel": its index, "digest": the
             kernel text's digest}

A kernel that several programs share is measured once, for the first of them in sweep
order (families, then sample ids, sorted); a rerun skips every kernel whose digest the
dataset holds, so an interrupted collection resumes and a collection over more programs
times only the kernels that are new.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from ..errors import DatasetError, InvalidArgumentError
from ..hardware.timing import TimingStats

FAMILY = "outlined"


def program_rows(path: str | Path, families: tuple[str, ...] | None) -> list[Any]:
    """The program rows (not outliers) of every dataset under `path`, in sweep order,
    with a one-line error for a path without programs or a family it lacks."""
    from . import store

    found = store.find_datasets(path)
    if not found:
        raise InvalidArgumentError(f"--from-programs {path}: no dataset there (a folder "
                                   "holding dataset.json, or a root of such folders)")
    frames = []
    for dataset in found:
        frame = store.read_frame(dataset)
        frames.append(frame[(frame["kind"] == "program") & (~frame["outlier"])])
    import pandas as pd

    rows = pd.concat(frames, ignore_index=True).drop_duplicates("sample_id")
    if rows.empty:
        raise DatasetError(f"--from-programs {path}: its datasets hold no program rows; "
                           "collect some first (stablecost collect programs)")
    have = sorted(rows["family"].astype(str).unique())
    if families:
        unknown = [f for f in families if f not in have]
        if unknown:
            raise InvalidArgumentError(f"--families {','.join(unknown)}: no such program "
                                       f"family under {path}; it has: {', '.join(have)}")
        rows = rows[rows["family"].isin(list(families))]
    return list(rows.sort_values(["family", "sample_id"]).itertuples(index=False))


def stored_digests(dataset: str | Path) -> set[str]:
    """The digests of the outlined kernels `dataset` holds (none for a new one)."""
    import json

    from . import store

    if not (Path(dataset) / "dataset.json").exists():
        return set()
    frame = store.read_frame(dataset, columns=["family", "params"])
    return {json.loads(p)["digest"] for p in frame.loc[frame["family"] == FAMILY, "params"]}


def outlined_samples(path: str | Path, families: tuple[str, ...] | None, *,
                     stored: Callable[[], set[str]] | None = None,
                     rows: list[Any] | None = None) -> Iterator[Any]:
    """One kernel sample per distinct kernel of the programs under `path` (`rows`: its
    `program_rows`, when the caller has read them), leaving out the digests `stored()`
    returns (read when the first sample is asked for)."""
    from ..featurize.outline import outline
    from .collect import Sample

    seen: set[str] = set(stored()) if stored is not None else set()
    for row in rows if rows is not None else program_rows(path, families):
        try:
            kernels = outline(row.stablehlo, row.sample_id).kernels
        except Exception:  # noqa: BLE001 - a program that no longer parses adds nothing
            continue
        for kernel in kernels:
            digest = kernel.digest
            if digest in seen:
                continue
            seen.add(digest)
            params = {"program": row.sample_id, "kernel": kernel.index, "digest": digest}
            yield Sample("kernel", FAMILY, str(row.family), str(row.dtype),
                         f"{FAMILY}/{row.group_id}", params, stablehlo=kernel.text)


def measure_outlined(sample: Any, *, flush: Callable[[], None] | None,
                     rng: np.random.Generator) -> tuple[str, TimingStats]:
    """Time one outlined kernel (its text is the sample's): what `measure_into` calls."""
    from ..featurize.xla_compile import time_module
    from ..hardware.timing import KERNEL_TIMING

    del rng   # the arguments are drawn as the measured fidelity draws them
    return sample.stablehlo, time_module(sample.stablehlo.encode(), sample.sample_id,
                                         KERNEL_TIMING, flush)
