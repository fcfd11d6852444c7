"""Sorting: full `sort`s along the last axis and `top_k`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .core import (
    ArgSpec,
    KernelSpec,
    builder,
    log2_bucket,
    log_uniform_int,
    maybe_round,
    sampler,
    shrink_to_fit,
)


# --------------------------------------------------------------------------- sort and top-k
@sampler("sort")
def sample_sort(rng: np.random.Generator) -> KernelSpec:
    """A sort along the last axis: the keys alone, with an f32 value, or with their i32
    positions (`argsort`, the sort programs run most: ranks, top-k by sorting, sorting by
    a key). The bundled kernel model's data predates the argsort variant, and prices a
    1-D argsort of 8,192 f32 keys at 0.65 ms on its machine's spec against 1.48 ms for
    the same keys with an f32 value; both take 1.6-1.7 ms on the Intel machine
    (benchmarks/RESULTS.md)."""
    dtype = str(rng.choice(["f32", "i32"], p=[0.7, 0.3]))
    variant = str(rng.choice(["values", "key_value", "argsort"]))
    length = maybe_round(rng, log_uniform_int(rng, 16, 1 << 16))
    rows = log_uniform_int(rng, 1, 256)
    rows, length = shrink_to_fit([rows, length], lambda s: float(s[0] * s[1]), 4e6)
    params = {"rows": rows, "length": length, "dtype": dtype}
    return KernelSpec("sort", variant, dtype, params, log2_bucket(rows * length))


@builder("sort", "values", "key_value", "argsort")
def _build_sort(p: dict[str, Any]):
    import jax.numpy as jnp
    from jax import lax

    shape = (p["rows"], p["length"])
    high = 1 << 20 if p["dtype"] == "i32" else None
    if p["variant"] == "values":
        return (lambda x: jnp.sort(x, axis=-1), [ArgSpec(shape, p["dtype"], high)])
    if p["variant"] == "argsort":
        return (lambda x: jnp.argsort(x, axis=-1), [ArgSpec(shape, p["dtype"], high)])
    return (lambda k, v: lax.sort((k, v), dimension=1, num_keys=1),
            [ArgSpec(shape, p["dtype"], high), ArgSpec(shape, "f32")])



@sampler("top_k")
def sample_top_k(rng: np.random.Generator) -> KernelSpec:
    """lax.top_k over the last axis (beam search, MoE routing, retrieval scorers)."""
    dtype = str(rng.choice(["f32", "bf16"], p=[0.8, 0.2]))
    length = maybe_round(rng, log_uniform_int(rng, 16, 1 << 17))
    rows = log_uniform_int(rng, 1, 2048)
    # bf16 top-k is a full sort on XLA:CPU (f32 has a dedicated kernel): 100x slower
    limit = 4e6 if dtype == "f32" else 2e5
    rows, length = shrink_to_fit([rows, length], lambda s: float(s[0] * s[1]), limit)
    length = max(length, 2)
    k = min(length, int(rng.choice([1, 2, 4, 8, 10, 32, 64, 100, 256])))
    params = {"rows": rows, "length": length, "k": k, "dtype": dtype}
    return KernelSpec("top_k", "top_k", dtype, params, log2_bucket(rows * length))


@builder("top_k", "top_k")
def _build_top_k(p: dict[str, Any]):
    from jax import lax

    k = p["k"]
    return (lambda x: lax.top_k(x, k), [ArgSpec((p["rows"], p["length"]), p["dtype"])])
