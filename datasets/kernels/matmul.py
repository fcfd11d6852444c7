"""Matrix multiplies: the `dot_general` family (square, rectangular, skinny,
batched and transposed operands).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .core import (
    MAX_FLOPS,
    ArgSpec,
    KernelSpec,
    builder,
    log2_bucket,
    log_uniform_int,
    maybe_round,
    sampler,
    shrink_to_fit,
)

if TYPE_CHECKING:
    from jax.lax import DotDimensionNumbers

DOT_DTYPES = ("f32", "bf16", "f16", "i8")


@sampler("dot_general")
def sample_dot(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(DOT_DTYPES, p=[0.4, 0.25, 0.2, 0.15]))
    variant = str(rng.choice(["square", "rect", "skinny", "batched", "transposed"]))
    batch = 1
    if variant == "square":
        m = n = k = maybe_round(rng, log_uniform_int(rng, 32, 2048))
    elif variant == "skinny":
        m = log_uniform_int(rng, 1, 32)
        n = maybe_round(rng, log_uniform_int(rng, 256, 8192))
        k = maybe_round(rng, log_uniform_int(rng, 256, 8192))
    elif variant == "batched":
        batch = log_uniform_int(rng, 2, 64)
        m, n, k = (maybe_round(rng, log_uniform_int(rng, 16, 512)) for _ in range(3))
    else:
        m, n, k = (maybe_round(rng, log_uniform_int(rng, 16, 2048)) for _ in range(3))
    limit = MAX_FLOPS if dtype == "f32" else MAX_FLOPS / 8  # non-f32 CPU matmuls are slow
    batch, m, n, k = shrink_to_fit([batch, m, n, k], lambda s: 2.0 * s[0] * s[1] * s[2] * s[3],
                                   limit)
    params = {"batch": batch, "m": m, "n": n, "k": k, "dtype": dtype}
    return KernelSpec("dot_general", variant, dtype, params, log2_bucket(2.0 * batch * m * n * k))


@builder("dot_general", "square", "rect", "skinny", "batched", "transposed")
def _build_dot(p: dict[str, Any]):
    import jax.numpy as jnp
    from jax import lax

    dtype = p["dtype"]
    out = jnp.int32 if dtype == "i8" else None
    b, m, n, k = p["batch"], p["m"], p["n"], p["k"]
    high = 8 if dtype == "i8" else None
    dims: DotDimensionNumbers
    if b > 1:
        dims = (((2,), (1,)), ((0,), (0,)))
        return (lambda x, y: lax.dot_general(x, y, dims, preferred_element_type=out),
                [ArgSpec((b, m, k), dtype, high), ArgSpec((b, k, n), dtype, high)])
    if p.get("transposed", False) or p.get("variant") == "transposed":
        dims = (((0,), (0,)), ((), ()))
        return (lambda x, y: lax.dot_general(x, y, dims, preferred_element_type=out),
                [ArgSpec((k, m), dtype, high), ArgSpec((k, n), dtype, high)])
    dims = (((1,), (0,)), ((), ()))
    return (lambda x, y: lax.dot_general(x, y, dims, preferred_element_type=out),
            [ArgSpec((m, k), dtype, high), ArgSpec((k, n), dtype, high)])
