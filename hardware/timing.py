"""Timing one compiled executable: warm-up, then repeats until the median is stable.

The rule: after `warmup` discarded calls, time calls one by one (wall clock around the
call and its `block_until_ready`). After each batch of `batch` calls, compare the
median of all calls so far with the median before the batch; stop when it moved less
than `rtol` and at least `min_repeats` calls were made, or when `max_repeats` calls or
`max_time_s` of timed work are reached. The statistics come from every timed call.

Cache flushing: on CPU, `evict_caches()` writes a buffer larger than the last-level
cache between calls (outside the timed region), so every call starts cold; it is off by
default (`flush=False`) because kernels inside a training step mostly read what their
producer just wrote. On GPU/TPU the runtime gives no host-side cache flush; rows record
what was done in `cache_flush`.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypedDict

import numpy as np


class TimingSettings(TypedDict):
    """Keyword arguments of `measure`, per kind of sample."""

    warmup: int
    min_repeats: int
    max_repeats: int
    max_time_s: float


# The collector's settings (`datasets.collect` re-exports them): single kernels, and
# whole steps, which the measured fidelity times too.
KERNEL_TIMING = TimingSettings(warmup=2, min_repeats=10, max_repeats=100, max_time_s=0.5)
PROGRAM_TIMING = TimingSettings(warmup=2, min_repeats=5, max_repeats=30, max_time_s=3.0)


@dataclass(frozen=True)
class TimingStats:
    median_s: float
    p10_s: float
    p90_s: float
    min_s: float
    mean_s: float
    cv: float
    repeats: int
    warmup: int
    cache_flush: str

    def as_row(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _quantile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolated quantile of an already sorted list."""
    pos = (len(sorted_values) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(samples_s: list[float], warmup: int, cache_flush: str) -> TimingStats:
    values = sorted(samples_s)
    mean = statistics.fmean(values)
    std = statistics.pstdev(values) if len(values) > 1 else 0.0
    return TimingStats(
        median_s=statistics.median(values), p10_s=_quantile(values, 0.1),
        p90_s=_quantile(values, 0.9), min_s=values[0], mean_s=mean,
        cv=std / mean if mean > 0 else 0.0, repeats=len(values), warmup=warmup,
        cache_flush=cache_flush)


def last_level_cache_bytes() -> int:
    """The largest CPU cache, from sysfs; 32 MiB when sysfs does not say."""
    from .fingerprint import cache_sizes_bytes

    return max(cache_sizes_bytes().values(), default=0) or 32 * 1024 ** 2


class CacheEvictor:
    """Writes a buffer of twice the last-level cache to push everything else out."""

    def __init__(self) -> None:
        self._buffer = np.zeros(2 * last_level_cache_bytes() // 8, dtype=np.float64)

    def __call__(self) -> None:
        self._buffer += 1.0


def measure(call: Callable[[], Any], *, warmup: int = 2, min_repeats: int = 10,
            max_repeats: int = 200, batch: int = 5, rtol: float = 0.02,
            max_time_s: float = 1.0, flush: Callable[[], None] | None = None) -> TimingStats:
    """Time `call()` (which must block until its work is done) until the median settles."""
    for _ in range(warmup):
        call()
    samples: list[float] = []
    spent = 0.0
    previous = None
    while True:
        for _ in range(batch):
            if flush is not None:
                flush()
            t0 = time.perf_counter()
            call()
            elapsed = time.perf_counter() - t0
            samples.append(elapsed)
            spent += elapsed
        current = statistics.median(samples)
        settled = previous is not None and abs(current - previous) <= rtol * current
        if len(samples) >= max_repeats or spent >= max_time_s:
            break
        if settled and len(samples) >= min_repeats:
            break
        previous = current
    return summarize(samples, warmup, "evict-llc" if flush is not None else "none")


def blocking(fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    """A zero-argument call of a compiled JAX function that waits for its results."""
    import jax

    def call() -> Any:
        return jax.block_until_ready(fn(*args))

    return call


def cpu_threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def random_args(specs: Sequence[tuple[tuple[int, ...], str]], rng: np.random.Generator,
                index_high: int = 100) -> list[Any]:
    """Random device arrays for (shape, MLIR element type) pairs, drawn as the
    collector's `make_args` draws them: standard normal floats (complex: both parts),
    integers in [0, index_high) (booleans 0/1)."""
    import jax

    if any(dtype in ("f64", "i64", "ui64", "complex<f64>") for _, dtype in specs):
        with jax.enable_x64(True):   # else jax makes them 32-bit, which XLA refuses
            return _draw(specs, rng, index_high)
    return _draw(specs, rng, index_high)


def _draw(specs: Sequence[tuple[tuple[int, ...], str]], rng: np.random.Generator,
          index_high: int) -> list[Any]:
    import jax
    import jax.numpy as jnp

    from ..dtypes import jax_dtype_of_mlir

    out = []
    for shape, dtype in specs:
        target = jax_dtype_of_mlir(dtype)
        if dtype == "i1":
            value: Any = rng.integers(0, 2, size=shape).astype(bool)
        elif dtype.startswith(("i", "ui", "si")):
            value = rng.integers(0, max(index_high, 1), size=shape, dtype=np.int64)
        elif dtype.startswith("complex"):
            value = (rng.standard_normal(size=shape, dtype=np.float32)
                     + 1j * rng.standard_normal(size=shape, dtype=np.float32))
        else:
            value = rng.standard_normal(size=shape, dtype=np.float32)
        out.append(jax.device_put(jnp.asarray(value, dtype=target)))
    return out
