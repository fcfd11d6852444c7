"""Reductions and windows: `reduce`, 2-D pooling (`reduce_window`) and its
gradient (`pool_grad`), and cumulative `scan`s.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...dtypes import jax_dtype
from .core import (
    MAX_BYTES,
    ArgSpec,
    KernelSpec,
    builder,
    log2_bucket,
    log_uniform_int,
    maybe_round,
    num_elements,
    random_shape,
    sampler,
    shrink_to_fit,
)


# --------------------------------------------------------------------------- reductions
@sampler("reduce")
def sample_reduce(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "f16"], p=[0.6, 0.25, 0.15]))
    variant = str(rng.choice(["sum_last", "sum_first", "max_last", "sum_all", "argmax_last"]))
    shape = random_shape(rng, 1e3, MAX_BYTES / 8, max_rank=3)
    if len(shape) == 1 and variant != "sum_all":
        shape = [max(1, shape[0] // 64), 64]
    params = {"shape": shape, "dtype": dtype}
    return KernelSpec("reduce", variant, dtype, params, log2_bucket(num_elements(shape)))


@builder("reduce", "sum_last", "sum_first", "max_last", "sum_all", "argmax_last")
def _build_reduce(p: dict[str, Any]):
    import jax.numpy as jnp

    fn = {"sum_last": lambda x: jnp.sum(x, axis=-1), "sum_first": lambda x: jnp.sum(x, axis=0),
          "max_last": lambda x: jnp.max(x, axis=-1), "sum_all": jnp.sum,
          "argmax_last": lambda x: jnp.argmax(x, axis=-1)}[p["variant"]]
    return fn, [ArgSpec(tuple(p["shape"]), p["dtype"])]


def _pool_params(rng: np.random.Generator, dtype: str, max_bytes: float) -> dict[str, Any]:
    """An NHWC input and a 2-D pooling window of stride 2."""
    n = log_uniform_int(rng, 1, 32)
    hw = maybe_round(rng, log_uniform_int(rng, 8, 112), 0.3)
    c = maybe_round(rng, log_uniform_int(rng, 8, 256))
    n, hw, c = shrink_to_fit([n, hw, c], lambda s: 4.0 * s[0] * s[1] * s[1] * s[2], max_bytes)
    hw = max(hw, 4)
    window = int(rng.choice([2, 3]))
    return {"shape": [n, hw, hw, c], "window": window, "stride": 2, "dtype": dtype}


def _pool(p: dict[str, Any], kind: str) -> Callable[[Any], Any]:
    """Max or summing 2-D pooling of `p`'s window and stride (SAME padding)."""
    import jax.numpy as jnp
    from jax import lax

    w, s = p["window"], p["stride"]
    dims, strides = (1, w, w, 1), (1, s, s, 1)
    if kind == "max":
        return lambda x: lax.reduce_window(x, -jnp.inf, lax.max, dims, strides, "SAME")
    return lambda x: lax.reduce_window(x, 0.0, lax.add, dims, strides, "SAME")


@sampler("reduce_window")
def sample_reduce_window(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16"], p=[0.7, 0.3]))
    variant = str(rng.choice(["max_pool", "avg_pool"]))
    params = _pool_params(rng, dtype, MAX_BYTES / 4)
    size = log2_bucket(num_elements(params["shape"]))
    return KernelSpec("reduce_window", variant, dtype, params, size)


@builder("reduce_window", "max_pool", "avg_pool")
def _build_reduce_window(p: dict[str, Any]):
    if p["variant"] == "max_pool":
        fn = _pool(p, "max")
    else:
        pool_sum, area = _pool(p, "sum"), p["window"] ** 2
        fn = lambda x: pool_sum(x) / area  # noqa: E731
    return fn, [ArgSpec(tuple(p["shape"]), p["dtype"])]


# --------------------------------------------------------------------------- pooling gradients
POOL_GRAD_VARIANTS = ("max_pool_grad", "avg_pool_grad")


@sampler("pool_grad")
def sample_pool_grad(rng: np.random.Generator) -> KernelSpec:
    """The backward pass of 2-D pooling: max pooling's is a select_and_scatter."""
    dtype = str(rng.choice(["f32", "bf16"], p=[0.7, 0.3]))
    variant = str(rng.choice(POOL_GRAD_VARIANTS))
    # select_and_scatter runs at ~25 ns per element on XLA:CPU: smaller inputs
    params = _pool_params(rng, dtype, MAX_BYTES / 16)
    size = log2_bucket(num_elements(params["shape"]))
    return KernelSpec("pool_grad", variant, dtype, params, size)


@builder("pool_grad", *POOL_GRAD_VARIANTS)
def _build_pool_grad(p: dict[str, Any]):
    import jax

    pool = _pool(p, "max" if p["variant"] == "max_pool_grad" else "sum")
    x_shape = tuple(p["shape"])
    y_shape = tuple(jax.eval_shape(pool, jax.ShapeDtypeStruct(
        x_shape, jax_dtype(p["dtype"]))).shape)

    def grad(x, dy):
        return jax.vjp(pool, x)[1](dy)[0]
    return grad, [ArgSpec(x_shape, p["dtype"]), ArgSpec(y_shape, p["dtype"])]


# --------------------------------------------------------------------------- scans
SCAN_VARIANTS = ("cumsum_last", "cumsum_first", "cummax_last", "cumprod_last")


@sampler("scan")
def sample_scan(rng: np.random.Generator) -> KernelSpec:
    """Cumulative reductions (jnp.cumsum and friends): a reduce_window as wide as its
    axis, which XLA rewrites into a tiled scan."""
    variant = str(rng.choice(SCAN_VARIANTS, p=[0.4, 0.2, 0.2, 0.2]))
    dtype = str(rng.choice(["f32", "bf16", "i32"], p=[0.6, 0.2, 0.2]))
    if variant == "cumprod_last" and dtype == "i32":
        dtype = "f32"
    length = maybe_round(rng, log_uniform_int(rng, 17, 1 << 15))
    rows = log_uniform_int(rng, 1, 4096)
    rows, length = shrink_to_fit([rows, length], lambda s: float(s[0] * s[1]), MAX_BYTES / 16)
    length = max(length, 17)
    shape = [length, rows] if variant == "cumsum_first" else [rows, length]
    params = {"shape": shape, "dtype": dtype}
    return KernelSpec("scan", variant, dtype, params, log2_bucket(rows * length))


@builder("scan", *SCAN_VARIANTS)
def _build_scan(p: dict[str, Any]):
    import jax.numpy as jnp
    from jax import lax

    fn = {"cumsum_last": lambda x: jnp.cumsum(x, axis=-1),
          "cumsum_first": lambda x: jnp.cumsum(x, axis=0),
          "cummax_last": lambda x: lax.cummax(x, axis=1),
          "cumprod_last": lambda x: jnp.cumprod(x, axis=-1)}[p["variant"]]
    high = 100 if p["dtype"] == "i32" else None
    return fn, [ArgSpec(tuple(p["shape"]), p["dtype"], high)]
