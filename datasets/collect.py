"""`stablecost collect kernels|programs`: measure samples on the local JAX backend and
append them to the dataset of this machine's fingerprint.

Every sample is lowered to StableHLO (the text is what the row keeps), compiled, fed
random inputs and timed by `timing.measure`. A re-run with the same `--out` and seed
walks the same sequence and skips every sample already stored, so an interrupted sweep
resumes where it stopped; SIGKILL loses at most the sample being measured.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TextIO

import numpy as np

from ..dtypes import jax_dtype
from ..errors import InvalidArgumentError
from ..hardware.fingerprint import Machine, local_machine
from ..hardware.timing import (  # the settings live with the rule the measured fidelity shares
    KERNEL_TIMING,
    PROGRAM_TIMING,
    CacheEvictor,
    TimingStats,
    blocking,
    measure,
)
from . import kernels as kernel_gen
from . import zoo
from .store.schema import sample_id
from .store.writer import DatasetWriter

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID

COLLECTOR_VERSION = "1"


@dataclass
class Sample:
    """One thing to measure: which generator made it and the parameters rebuilding it."""

    kind: str                      # kernel | program | profile
    family: str
    variant: str
    dtype: str
    group_id: str
    params: dict[str, Any]
    # the sample's StableHLO when it is not rebuilt from a generator (outlined kernels)
    stablehlo: str | None = field(default=None, repr=False)

    @property
    def sample_id(self) -> str:
        return sample_id(self.kind, self.family, self.variant, self.dtype, self.params)

    def build(self) -> tuple[Callable[..., Any], list[Any]]:
        if self.kind == "kernel":
            return kernel_gen.build(self.family, self.variant, self.params)
        return zoo.build_program(self.params)


@dataclass
class CollectSummary:
    dataset: Path
    kind: str
    measured: Counter = field(default_factory=Counter)       # per family
    skipped_done: int = 0
    failures: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    elapsed_s: float = 0.0
    interrupted: bool = False
    total_rows: int = 0
    warnings: list[str] = field(default_factory=list)   # damaged data the writer named
    hosts: dict[str, Path] = field(default_factory=dict)   # a fleet: each host's own dataset

    @property
    def samples(self) -> int:
        return sum(self.measured.values())

    @property
    def samples_per_min(self) -> float:
        return 60.0 * self.samples / self.elapsed_s if self.elapsed_s > 0 else 0.0


def kernel_samples(seed: int, families: tuple[str, ...]) -> Iterator[Sample]:
    index = 0
    while True:
        spec = kernel_gen.kernel_spec(index, seed, families)
        yield Sample("kernel", spec.family, spec.variant, spec.dtype, spec.group_id, spec.params)
        index += 1


def program_samples(seed: int, families: tuple[str, ...], tier: str = "zoo"
                    ) -> Iterator[Sample]:
    for spec in zoo.program_specs(seed, families, tier=tier):
        yield Sample("program", spec.family, spec.variant, spec.dtype, spec.group_id, spec.params)


def check_families(kind: str, families: list[str] | None) -> tuple[str, ...]:
    allowed = kernel_gen.FAMILIES if kind == "kernel" else zoo.PROGRAM_FAMILIES
    if not families:
        return allowed
    unknown = [f for f in families if f not in allowed]
    if unknown:
        raise InvalidArgumentError(f"unknown {kind} families {', '.join(unknown)}; "
                                   f"allowed: {', '.join(allowed)}")
    return tuple(dict.fromkeys(families))


# --------------------------------------------------------------------------- measuring one sample
def make_args(specs: list[Any], rng: np.random.Generator) -> list[Any]:
    """Random device arrays for argument specs (normal floats, in-range integers)."""
    import jax
    import jax.numpy as jnp

    out = []
    for spec in specs:
        dtype = jax_dtype(spec.dtype)
        if spec.dtype.startswith(("i", "u")):
            high = spec.index_high or 100
            value = rng.integers(0, max(high, 1), size=spec.shape, dtype=np.int64)
        elif spec.dtype == "c64":
            value = (rng.standard_normal(size=spec.shape, dtype=np.float32)
                     + 1j * rng.standard_normal(size=spec.shape, dtype=np.float32))
        else:
            value = rng.standard_normal(size=spec.shape, dtype=np.float32)
        out.append(jax.device_put(jnp.asarray(value, dtype=dtype)))
    return out


def lower(fn: Callable[..., Any], specs: list[Any]) -> Any:
    import jax

    structs = [jax.ShapeDtypeStruct(s.shape, jax_dtype(s.dtype)) for s in specs]
    return jax.jit(fn).lower(*structs)


def measure_sample(sample: Sample, *, flush: Callable[[], None] | None,
                   rng: np.random.Generator) -> tuple[str, TimingStats]:
    """Lower, compile and time one sample: (StableHLO text, timing statistics)."""
    fn, specs = sample.build()
    lowered = lower(fn, specs)
    text = lowered.as_text()
    compiled = lowered.compile()
    args = make_args(specs, rng)
    settings = KERNEL_TIMING if sample.kind == "kernel" else PROGRAM_TIMING
    stats = measure(blocking(compiled, *args), flush=flush, **settings)
    return text, stats


def row_for(sample: Sample, text: str, stats: TimingStats, machine: Machine) -> dict[str, Any]:
    import json

    return {
        "sample_id": sample.sample_id, "group_id": sample.group_id, "kind": sample.kind,
        "family": sample.family, "variant": sample.variant, "dtype": sample.dtype,
        "params": json.dumps(sample.params, sort_keys=True), "stablehlo": text,
        **stats.as_row(), "kernel_times": None, "hardware": machine.hardware,
        "device_name": machine.device_name, "backend": machine.backend,
        "jax_version": machine.jax_version, "jaxlib_version": machine.jaxlib_version,
        "collector_version": COLLECTOR_VERSION, "timestamp": datetime.now(timezone.utc),
        "source": "collected", "outlier": False, "outlier_reason": None,
    }


# --------------------------------------------------------------------------- the sweep
def sweep(kind: str, seed: int, families: tuple[str, ...], tier: str = "zoo"
          ) -> Iterator[Sample]:
    """The samples of `kind` drawn from `seed`, in sweep order (kernels: endless;
    programs: the zoo's `tier`)."""
    if kind == "kernel":
        return kernel_samples(seed, families)
    return program_samples(seed, families, tier)


def check_sweep(kind: str, budget_minutes: float | None,
                families: list[str] | None, tier: str = "zoo") -> tuple[str, ...]:
    """The families of a sweep after checking its arguments (one-line errors)."""
    if kind not in ("kernel", "program"):
        raise InvalidArgumentError(f"collect kind {kind!r}; allowed: kernel, program")
    if tier not in zoo.TIERS:
        raise InvalidArgumentError(f"zoo tier {tier!r}; allowed: {', '.join(zoo.TIERS)}")
    if tier != "zoo" and kind != "program":
        raise InvalidArgumentError(f"tier {tier!r} is a size tier of the program zoo: "
                                   "use it with `collect programs`")
    if budget_minutes is not None and not budget_minutes > 0:   # NaN too
        raise InvalidArgumentError(f"--budget-minutes {budget_minutes}: must be > 0")
    return check_families(kind, families)


def open_dataset(out: str | Path, machine: Machine) -> DatasetWriter:
    """The writer of `machine`'s dataset under the root `out` (its host spec kept)."""
    writer = DatasetWriter(out, hardware=machine.hardware, fingerprint=machine.fingerprint)
    try:
        _keep_host_spec(writer, machine)
    except BaseException:
        writer.close()
        raise
    return writer


def collect(kind: str, out: str | Path, *, budget_minutes: float | None = None,
            max_samples: int | None = None, families: list[str] | None = None, seed: int = 0,
            flush_caches: bool = False, progress: "Progress | None" = None,
            from_programs: str | Path | None = None, tier: str = "zoo") -> CollectSummary:
    """Measure samples of `kind` ("kernel", "program" or "profile") into `out`.

    The sweep is the sequence of samples drawn from `seed`; it ends after its first
    `max_samples` samples, when `budget_minutes` have passed, or (programs) at the end
    of the zoo's `tier` ("zoo" or "large", `zoo.TIERS`). Samples already in the
    dataset are skipped, so running the same command again completes an interrupted
    sweep. `from_programs` (kernels only): the sweep is
    the kernels of the program rows under that path instead (`datasets.outlined`;
    `families` then names program families); with kind "profile" (which needs it) the
    steps of those programs, profiled (`datasets.profiles`)."""
    if kind == "profile" and from_programs is None:
        raise InvalidArgumentError("`collect profiles` profiles the steps of stored programs: "
                                   "give --from-programs PATH")
    if from_programs is not None:
        from .outlined import measure_outlined, outlined_samples, program_rows, stored_digests

        if kind == "program":
            raise InvalidArgumentError("--from-programs reads stored programs: use it with "
                                       "`collect kernels` (their kernels timed alone) or "
                                       "`collect profiles` (their steps profiled)")
        check_sweep("kernel", budget_minutes, None)
        if tier != "zoo":
            raise InvalidArgumentError(f"tier {tier!r} is a size tier of the program zoo: "
                                       "use it with `collect programs`")
        chosen = tuple(families or ())
        rows = program_rows(from_programs, chosen)   # a wrong path or family: now
        timing: Measure
        samples: Iterable[Sample]
        if kind == "profile":
            from .profiles import measure_profile, profile_samples, stored_profiles

            samples = profile_samples(from_programs, chosen, rows=rows,
                                      stored=lambda: stored_profiles(writer.path))
            timing = measure_profile
        else:
            # a kernel the dataset holds is not timed again, even when it is now first met
            # in another program (the programs under the path grew): the generator reads
            # the stored digests when the loop below first asks it for a sample
            samples = outlined_samples(
                from_programs, chosen, stored=lambda: stored_digests(writer.path), rows=rows)
            timing = measure_outlined
    else:
        chosen = check_sweep(kind, budget_minutes, families, tier)
        samples = sweep(kind, seed, chosen, tier)
        timing = measure_sample
    machine = local_machine()
    flush = CacheEvictor() if flush_caches and machine.backend == "cpu" else None
    budget_s = budget_minutes * 60.0 if budget_minutes is not None else None
    progress = progress or Progress(budget_s=budget_s, max_samples=max_samples)

    writer = open_dataset(out, machine)
    summary = CollectSummary(dataset=writer.path, kind=kind)
    start = time.perf_counter()
    try:
        measure_into(writer, machine, itertools.islice(samples, max_samples),
                     summary, budget_s=budget_s, rng=np.random.default_rng(seed), flush=flush,
                     progress=progress, measure=timing)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        writer.close()
        summary.elapsed_s = time.perf_counter() - start
        progress.close()
    summary.total_rows = len(writer.done_ids)
    summary.warnings = list(writer.warnings)
    return summary


# `measure_sample`'s signature; a measure may add a third item, the row's kernel_times
Measure = Callable[..., tuple[Any, ...]]


def measure_into(writer: DatasetWriter, machine: Machine, samples: Iterable[Sample],
                 summary: CollectSummary, *, budget_s: float | None,
                 rng: np.random.Generator, flush: Callable[[], None] | None = None,
                 progress: "Progress | None" = None, measure: Measure = measure_sample,
                 on_row: Callable[[dict[str, Any]], None] | None = None) -> None:
    """Measure each of `samples` the writer does not hold yet and add its row, until
    `budget_s` seconds have passed (counted from this call): the loop of `collect`, and
    of each worker of a fleet (`datasets.fleet`) over its chunk of the sweep. A sample
    that fails is named in `summary.failures`; `on_row` sees every row added."""
    start = time.perf_counter()
    for position, sample in enumerate(samples, 1):
        if budget_s is not None and time.perf_counter() - start >= budget_s:
            break
        if writer.has(sample.sample_id):
            summary.skipped_done += 1
            continue
        try:
            text, stats, *kernel_times = measure(sample, flush=flush, rng=rng)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - one bad sample must not end a sweep
            summary.failures[sample.family].append(
                f"{sample.variant} {sample.params}: {type(exc).__name__}: {exc}"[:300])
            continue
        row = row_for(sample, text, stats, machine)
        if kernel_times:
            row["kernel_times"] = kernel_times[0]
        writer.add(row)
        if on_row is not None:
            on_row(row)
        summary.measured[sample.family] += 1
        if progress is not None:
            progress.update(summary, time.perf_counter() - start, sample, position)
        if summary.samples % 500 == 0:
            import jax

            jax.clear_caches()  # each sample is a fresh function: keep caches bounded


def _keep_host_spec(writer: DatasetWriter, machine: Machine) -> None:
    """Rows of host-cpu are priced against this machine's calibration: keep a copy of
    it with the data (`hardware.toml`, listed in the manifest) so models trained
    elsewhere use the same spec."""
    if machine.hardware != "host-cpu" or (writer.path / "hardware.toml").exists():
        return
    from ..hardware import host_cpu_path

    spec = host_cpu_path()
    if spec.is_file():
        writer.keep_file("hardware.toml", spec.read_bytes())


class Progress:
    """A rich progress bar on a terminal, a status line every 15 s otherwise."""

    def __init__(self, *, budget_s: float | None, max_samples: int | None,
                 stream: TextIO | None = None) -> None:
        self.budget_s = budget_s
        self.max_samples = max_samples
        self.stream = stream or sys.stderr
        self._bar: RichProgress | None = None
        self._task: TaskID | None = None     # set together with _bar
        self._last_line = 0.0
        if self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(),
                                     TextColumn("{task.fields[status]}"), TimeElapsedColumn(),
                                     TextColumn("ETA"), TimeRemainingColumn(),
                                     console=Console(file=self.stream), transient=False)
            total = budget_s if budget_s is not None else max_samples
            self._task = self._bar.add_task("collecting", total=total, status="")
            self._bar.start()

    def update(self, summary: CollectSummary, elapsed_s: float, sample: Sample,
               position: int) -> None:
        rate = summary.samples / elapsed_s if elapsed_s > 0 else 0.0
        status = (f"{summary.samples} samples, {rate:.1f}/s, last {sample.family}/{sample.variant}")
        if self._bar is not None:
            done = elapsed_s if self.budget_s is not None else position
            assert self._task is not None
            self._bar.update(self._task, completed=done, status=status)
            return
        now = time.monotonic()
        if now - self._last_line >= 15.0:
            self._last_line = now
            eta = ""
            if self.budget_s is not None:
                eta = f", ETA {max(0.0, self.budget_s - elapsed_s):.0f} s"
            elif self.max_samples and rate > 0:
                eta = f", ETA {(self.max_samples - position) / rate:.0f} s"
            self.stream.write(f"collect: {status}{eta}\n")
            self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
