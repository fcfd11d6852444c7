"""`stablecost hardware calibrate`: measure what this machine's JAX CPU backend achieves
(matmul and vector FLOP/s per dtype, memory bandwidth, per-kernel overhead, the rate of a
convolution XLA:CPU runs as a loop nest and of a depthwise one, the cost of a page mapped
afresh on every call) and store
it as the `host-cpu` hardware spec in the user's config dir.

Each probe runs for at least `PROBE_S` (a quarter second; `--quick`: 50 ms) after a
warm-up, and its rate comes from the 10th-percentile call: the rate the machine
sustains when nothing else holds its cores, as STREAM reports its best run. The median
was the rule before, over only 7 calls of a few ms: on this shared 2-core VM three
calibrations a minute apart then measured f32 vector rates of 74, 53 and 48 GFLOP/s.
Run it on an otherwise idle machine all the same (a busy second core slows every call).
"""

from __future__ import annotations

import os
import statistics
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, TextIO

from .fingerprint import cpu_model
from .timing import last_level_cache_bytes

# glibc serves an allocation of 32 MiB or more (its largest dynamic mmap threshold)
# with pages mapped afresh on every call, each faulted in on first touch; XLA:CPU's
# temporary allocation of that size is such an allocation (`fresh_page_s`)
FRESH_BUFFER_BYTES = 32 << 20
PAGE_BYTES = 4096
PROBE_S = 0.25
QUICK_PROBE_S = 0.05
# Rounds of one idle calibration agree within about 6 % on f32 vector FLOP/s
# (benchmarks/RESULTS.md); a wider spread means the machine was not idle.
NOISY_SPREAD = 0.10


def _fast_seconds(fn: Callable[[], Any], repeats: int, min_time_s: float) -> float:
    """The 10th-percentile time of `fn()` over at least `repeats` calls and
    `min_time_s` seconds (at most 10,000 calls), after two warm-up calls."""
    fn()  # compile + warm-up
    fn()
    samples: list[float] = []
    start = time.perf_counter()
    while len(samples) < repeats or (time.perf_counter() - start) < min_time_s:
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
        if len(samples) >= 10_000:
            break
    return statistics.quantiles(samples, n=10, method="inclusive")[0]


def _waited(f: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    """`f(*args)`, waited for, as a call without arguments (binds `f` and `args` now)."""
    return lambda: f(*args).block_until_ready()


def measure(quick: bool = False, progress: TextIO | None = None) -> dict[str, float]:
    """Achievable rates on the local JAX CPU backend."""
    import jax
    import jax.numpy as jnp

    def say(message: str) -> None:
        if progress is not None:
            progress.write(f"calibrate: {message}\n")
            progress.flush()

    repeats = 3 if quick else 7
    probe_s = QUICK_PROBE_S if quick else PROBE_S
    results: dict[str, float] = {}
    n = 256 if quick else 1024
    for dtype, key in ((jnp.float32, "f32"), (jnp.bfloat16, "bf16"), (jnp.float16, "f16")):
        size = n if dtype == jnp.float32 else n // 2
        a = jnp.ones((size, size), dtype)
        f = jax.jit(lambda x, y: x @ y)
        t = _fast_seconds(_waited(f, a, a), repeats, probe_s)
        results[f"matmul_{key}"] = 2.0 * size ** 3 / t
        say(f"{key} matmul {size}x{size}: {results[f'matmul_{key}'] / 1e9:.1f} GFLOP/s")

    elements = (1 << 18) if quick else (1 << 21)
    degree = 32  # Horner steps: 2 FLOPs each, all in one fused loop, compute bound
    for dtype, key in ((jnp.float32, "f32"), (jnp.bfloat16, "bf16"), (jnp.float16, "f16")):
        x = jnp.full((elements,), 0.5, dtype)

        def poly(v, dtype=dtype):
            acc = v
            for i in range(degree):
                acc = acc * v + jnp.asarray(0.001 * (i + 1), dtype)
            return acc
        f = jax.jit(poly)
        t = _fast_seconds(_waited(f, x), repeats, probe_s)
        results[f"vector_{key}"] = 2.0 * degree * elements / t
        say(f"{key} vector: {results[f'vector_{key}'] / 1e9:.2f} GFLOP/s")

    results["loop_convolution"] = _loop_convolution_rate(quick, repeats, probe_s)
    say(f"loop-nest convolution: {results['loop_convolution'] / 1e9:.2f} G multiply-adds/s")
    results["grouped_convolution"] = _grouped_convolution_rate(quick, repeats, probe_s)
    say(f"depthwise convolution: {results['grouped_convolution'] / 1e6:.1f} M group-pixels/s")

    x = jnp.full((elements,), 0.5, jnp.float32)
    f = jax.jit(lambda v: jnp.tanh(jnp.exp(-v) * 0.5 + 0.25))
    t = _fast_seconds(_waited(f, x), repeats, probe_s)
    results["transcendentals"] = 2.0 * elements / t
    say(f"transcendentals: {results['transcendentals'] / 1e9:.2f} G/s")
    by_op = _transcendental_rates(quick, repeats, probe_s)
    results.update({f"{_BY_OP_PREFIX}{opcode}": rate for opcode, rate in by_op.items()})
    say("transcendentals by op (G/s): " + ", ".join(
        f"{opcode.removeprefix('chlo.')} {rate / 1e9:.2f}" for opcode, rate in by_op.items()))

    big = (1 << 22) if quick else (1 << 25)  # 16 MiB / 128 MiB of f32, beyond the caches
    y = jnp.ones((big,), jnp.float32)
    f = jax.jit(lambda v: v + 1.0)
    t = _fast_seconds(lambda: f(y).block_until_ready(), repeats, probe_s)
    results["bandwidth"] = 2.0 * 4 * big / t
    say(f"memory bandwidth: {results['bandwidth'] / 1e9:.2f} GB/s")

    results["fresh_page"] = _fresh_page_seconds(quick, repeats, probe_s)
    say(f"fresh pages: {results['fresh_page'] * 1e6:.2f} µs per 4 KiB page of a buffer "
        "mapped on every call")

    # per-kernel overhead: a chain of small dependent matmuls, XLA cannot fuse them
    small = jnp.ones((8, 8), jnp.float32)

    def chain(length):
        def run(v):
            for _ in range(length):
                v = jnp.tanh(v @ v)
            return v
        return jax.jit(run)
    short, long_ = chain(1), chain(65)
    t_short = _fast_seconds(lambda: short(small).block_until_ready(), repeats * 3, probe_s)
    t_long = _fast_seconds(lambda: long_(small).block_until_ready(), repeats * 3, probe_s)
    results["kernel_overhead"] = max((t_long - t_short) / 128.0, 1e-8)
    results["dispatch"] = t_short
    say(f"per-kernel overhead: {results['kernel_overhead'] * 1e6:.2f} µs, "
        f"dispatch {t_short * 1e6:.1f} µs")
    return results


# `measure` keeps each per-opcode transcendental rate under this prefix, so that rounds
# combine them like any other probe
_BY_OP_PREFIX = "transcendental:"
# (opcode, function of one or two arrays, argument range): ranges as programs feed them
# (activations, angles, norms); sine and cosine on narrow ranges run several times faster
# than on [-8, 8] on the machines measured (range reduction), so wide ones are probed
_TRANSCENDENTAL_PROBES: tuple[tuple[str, str, tuple[float, float]], ...] = (
    ("exponential", "exp", (-4.0, 4.0)), ("exponential_minus_one", "expm1", (-4.0, 4.0)),
    ("log", "log", (0.01, 16.0)), ("log_plus_one", "log1p", (0.01, 16.0)),
    ("logistic", "sigmoid", (-4.0, 4.0)), ("tanh", "tanh", (-4.0, 4.0)),
    ("chlo.erf", "erf", (-4.0, 4.0)), ("sine", "sin", (-8.0, 8.0)),
    ("cosine", "cos", (-8.0, 8.0)), ("tan", "tan", (-1.5, 1.5)),
    ("sqrt", "sqrt", (0.01, 16.0)), ("rsqrt", "rsqrt", (0.01, 16.0)),
    ("cbrt", "cbrt", (0.01, 16.0)), ("power", "power", (0.1, 4.0)),
    ("atan2", "atan2", (-4.0, 4.0)),
)
# applications per element in one probe, on distinct arguments, so that the kernel is
# bound by them rather than by its loads and stores
_PROBE_APPLICATIONS = 4


def _transcendental_rates(quick: bool, repeats: int, probe_s: float) -> dict[str, float]:
    """Elements per second of each opcode in `_TRANSCENDENTAL_PROBES` (StableHLO names),
    f32, in one elementwise loop fusion of `_PROBE_APPLICATIONS` applications per element
    on arguments spread uniformly over the probe's range. The rates differ by more than
    10x (atan2 and cbrt against exp on both machines measured), so one rate misprices
    programs that lean on the slow ones."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    functions = {"exp": jnp.exp, "expm1": jnp.expm1, "log": jnp.log, "log1p": jnp.log1p,
                 "sigmoid": jax.nn.sigmoid, "tanh": jnp.tanh, "erf": lax.erf,
                 "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "sqrt": jnp.sqrt,
                 "rsqrt": lax.rsqrt, "cbrt": lax.cbrt,
                 "power": lambda v: jnp.power(v, 2.5 - v),
                 "atan2": lambda v: jnp.arctan2(v, 1.5 - v)}
    elements = (1 << 16) if quick else (1 << 20)
    u = jax.random.uniform(jax.random.PRNGKey(0), (elements,), jnp.float32)
    rates = {}
    for opcode, name, (low, high) in _TRANSCENDENTAL_PROBES:
        fn = functions[name]
        # application i sees the range shifted by a small step: no common subexpression
        shifts = [(high - low) * 0.01 * i for i in range(_PROBE_APPLICATIONS)]

        def probe(v, fn=fn, low=low, high=high, shifts=tuple(shifts)):
            x = v * (high - low - shifts[-1]) + low
            return sum(fn(x + s) for s in shifts)
        t = _fast_seconds(_waited(jax.jit(probe), u), repeats, probe_s)
        rates[opcode] = _PROBE_APPLICATIONS * elements / t
    return rates


def _loop_convolution_rate(quick: bool, repeats: int, probe_s: float) -> float:
    """Multiply-adds per second of a convolution XLA:CPU runs as its own loop nest: the
    filter gradient of a stride-2 transposed convolution, whose window (the output
    gradient) is larger than its input, so XLA swaps the operands and reverses the
    window (featurize/conv_lowering.py). VALID padding: no tap falls off the output,
    so every input pixel meets every kernel tap once."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    n, side, cin, cout, k = (2, 8, 16, 8, 4) if quick else (8, 16, 32, 16, 4)
    dn = ("NHWC", "HWIO", "NHWC")
    x = jnp.ones((n, side, side, cin), jnp.float32)
    w_struct = jax.ShapeDtypeStruct((k, k, cin, cout), jnp.float32)

    def transposed(x, w):
        return lax.conv_transpose(x, w, (2, 2), "VALID", dimension_numbers=dn)
    dy = jnp.ones(jax.eval_shape(transposed, x, w_struct).shape, jnp.float32)

    def filter_gradient(x, dy):
        (dw,) = jax.linear_transpose(lambda w: transposed(x, w), w_struct)(dy)
        return dw
    t = _fast_seconds(_waited(jax.jit(filter_gradient), x, dy), repeats, probe_s)
    return n * side * side * cin * cout * k * k / t


def _grouped_convolution_rate(quick: bool, repeats: int, probe_s: float) -> float:
    """Groups x output pixels per second of a 3x3 depthwise convolution (f32, SAME
    padding, 8 channels): the unit of `featurize.conv_lowering.grouped_units`."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    n, side, channels = (1, 64, 8) if quick else (2, 128, 8)
    x = jnp.ones((n, side, side, channels), jnp.float32)
    w = jnp.ones((3, 3, 1, channels), jnp.float32)

    def depthwise(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=channels)
    t = _fast_seconds(_waited(jax.jit(depthwise), x, w), repeats, probe_s)
    return n * side * side * channels / t


def _fresh_page_seconds(quick: bool, repeats: int, probe_s: float) -> float:
    """Seconds a step spends on each 4 KiB page of a buffer the allocator maps afresh on
    every call: the time of a one-pass f32 kernel whose output is past
    `FRESH_BUFFER_BYTES` (glibc serves that from new pages each call, and the kernel
    takes a page fault on each), less the same kernel's time in four calls of a quarter
    of the size (its buffers reused, warm), per page of the large output."""
    import jax
    import jax.numpy as jnp

    large = (3 if quick else 4) * FRESH_BUFFER_BYTES // 2
    f = jax.jit(lambda v: v * 2.0)
    times = []
    for size in (large, large // 4):
        x = jnp.ones((size // 4,), jnp.float32)
        times.append(_fast_seconds(_waited(f, x), repeats, probe_s))
    return max(times[0] - 4.0 * times[1], 0.0) / (large / PAGE_BYTES) + 1e-12


def host_cpu_spec(m: dict[str, float], quick: bool) -> dict[str, Any]:
    cores = os.cpu_count() or 1
    return {
        "name": "host-cpu",
        "aliases": ["cpu", "host"],
        "vendor": cpu_model(),
        "kind": "cpu",
        "compute": {
            "matmul_flops_per_s": {"f32": m["matmul_f32"], "bf16": m["matmul_bf16"],
                                   "f16": m["matmul_f16"]},
            "vector_flops_per_s": {"f32": m["vector_f32"], "bf16": m["vector_bf16"],
                                   "f16": m["vector_f16"]},
            "transcendentals_per_s": m["transcendentals"],
            "transcendentals_per_s_by_op": {
                key.removeprefix(_BY_OP_PREFIX): rate for key, rate in m.items()
                if key.startswith(_BY_OP_PREFIX)},
            "loop_convolution_macs_per_s": m["loop_convolution"],
            "grouped_convolution_units_per_s": m["grouped_convolution"],
            "f32_matmul_as": "f32",
            "compute_units": cores,
        },
        "memory": {"capacity_bytes": float(os.sysconf("SC_PAGE_SIZE") *
                                           os.sysconf("SC_PHYS_PAGES")),
                   "bandwidth_bytes_per_s": m["bandwidth"],
                   "on_chip_cache_bytes": float(last_level_cache_bytes()),
                   "fresh_page_s": m["fresh_page"]},
        "kernel": {"launch_overhead_s": m["kernel_overhead"]},
        "interconnect": {"chips_per_node": 1, "topology": "none",
                         "intra_node_bandwidth_bytes_per_s": m["bandwidth"],
                         "intra_node_latency_s": m["dispatch"],
                         "inter_node_bandwidth_bytes_per_s": 1.25e9,
                         "inter_node_latency_s": 5e-5},
        "measured": {
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "cpu_model": cpu_model(), "cores": cores, "quick": quick,
            "backend": "jax cpu", "dispatch_s": m["dispatch"],
        },
        "sources": [{"title": "measured by `stablecost hardware calibrate`",
                     "url": "", "covers": "all rates; inter-node values are placeholders"}],
    }


def combine_rounds(rounds: list[dict[str, float]]) -> tuple[dict[str, float],
                                                          dict[str, float]]:
    """The median of each probe over the rounds, and its spread: (max - min) / median."""
    rates = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    spread = {k: (max(r[k] for r in rounds) - min(r[k] for r in rounds)) / rates[k]
              if rates[k] > 0 else 0.0 for k in rounds[0]}
    return rates, spread


def calibrate_host_cpu(quick: bool = False, progress: TextIO | None = None,
                       rounds: int | None = None) -> tuple[Path, dict[str, Any]]:
    """Measure this machine `rounds` times (default 3, `quick` 1) and save the median of
    each probe as the `host-cpu` hardware spec, with the probes' spread over the rounds
    (`[measured.spread]`) and this machine's fingerprint. A probe whose spread exceeds
    `NOISY_SPREAD` is named on `progress`: the machine was busy, or its rate moves."""
    from . import save_host_cpu
    from .fingerprint import cpu_identity

    rounds = rounds if rounds is not None else (1 if quick else 3)
    measured = []
    for i in range(rounds):
        if progress is not None and rounds > 1:
            progress.write(f"calibrate: round {i + 1}/{rounds}\n")
        measured.append(measure(quick=quick, progress=progress))
    rates, spread = combine_rounds(measured)
    spec = host_cpu_spec(rates, quick)
    spec["measured"]["rounds"] = rounds
    spec["measured"]["spread"] = {k: round(v, 4) for k, v in spread.items()}
    identity = cpu_identity()
    spec["measured"]["fingerprint"] = {k: v for k, v in identity.items()
                                       if k != "cache_bytes"}
    noisy = sorted(k for k, v in spread.items() if v > NOISY_SPREAD)
    if noisy and progress is not None:
        progress.write(f"calibrate: warning: {', '.join(noisy)} moved more than "
                       f"{NOISY_SPREAD:.0%} between rounds (spread "
                       f"{', '.join(f'{spread[k]:.0%}' for k in noisy)}); was something "
                       "else running? the medians are kept\n")
    return save_host_cpu(spec), spec
