"""Fused patterns: matmul epilogues, elementwise chains, softmax, layer norm and
reduce-of-product, the shapes XLA fuses into one kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core import (
    MAX_BYTES,
    MAX_FLOPS,
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
from .elementwise import BINARY, apply_op

FUSED = ("dot_bias_gelu", "dot_bias_relu", "elementwise_chain", "softmax", "layernorm",
         "reduce_of_product")


@sampler("fused")
def sample_fused(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "f16"], p=[0.6, 0.25, 0.15]))
    variant = str(rng.choice(FUSED))
    if variant.startswith("dot"):
        m, n, k = (maybe_round(rng, log_uniform_int(rng, 16, 2048)) for _ in range(3))
        limit = MAX_FLOPS if dtype == "f32" else MAX_FLOPS / 8
        m, n, k = shrink_to_fit([m, n, k], lambda s: 2.0 * s[0] * s[1] * s[2], limit)
        params: dict[str, Any] = {"m": m, "n": n, "k": k, "dtype": dtype}
        return KernelSpec("fused", variant, dtype, params, log2_bucket(2.0 * m * n * k))
    shape = random_shape(rng, 1e3, MAX_BYTES / 16, max_rank=3)
    if len(shape) == 1:
        shape = [max(1, shape[0] // 128), 128]
    params = {"shape": shape, "dtype": dtype}
    if variant == "elementwise_chain":
        params["ops"] = [str(o) for o in rng.choice(["add", "mul", "max", "exp", "tanh", "neg"],
                                                    size=int(rng.integers(2, 7)))]
    return KernelSpec("fused", variant, dtype, params, log2_bucket(num_elements(shape)))


@builder("fused", *FUSED)
def _build_fused(p: dict[str, Any]):
    import jax
    import jax.numpy as jnp

    variant, dtype = p["variant"], p["dtype"]
    if variant.startswith("dot"):
        act = jax.nn.gelu if variant == "dot_bias_gelu" else jax.nn.relu
        m, n, k = p["m"], p["n"], p["k"]
        return (lambda x, w, b: act(x @ w + b),
                [ArgSpec((m, k), dtype), ArgSpec((k, n), dtype), ArgSpec((n,), dtype)])
    shape = tuple(p["shape"])
    if variant == "elementwise_chain":
        ops = p["ops"]

        def chain(x, y):
            for op in ops:
                x = apply_op(op, x, y) if op in BINARY else apply_op(op, x)
            return x
        return chain, [ArgSpec(shape, dtype), ArgSpec(shape, dtype)]
    if variant == "softmax":
        return (lambda x: jax.nn.softmax(x, axis=-1), [ArgSpec(shape, dtype)])
    if variant == "layernorm":
        def layernorm(x, g):
            mean = jnp.mean(x, axis=-1, keepdims=True)
            var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
            return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g
        return layernorm, [ArgSpec(shape, dtype), ArgSpec(shape[-1:], dtype)]
    return (lambda x, y: jnp.sum(x * y, axis=-1), [ArgSpec(shape, dtype), ArgSpec(shape, dtype)])
