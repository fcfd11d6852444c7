"""Integer bit manipulation: the `bitwise` family (xor, shifts, rotations) and
whole random-bit draws (threefry bits, dropout masks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core import (
    MAX_BYTES,
    ArgSpec,
    KernelSpec,
    builder,
    log2_bucket,
    num_elements,
    random_shape,
    sampler,
    shrink_to_fit,
)

BITWISE_VARIANTS = ("xor", "shift_right_logical", "rotate", "random_bits", "dropout")


@sampler("bitwise")
def sample_bitwise(rng: np.random.Generator) -> KernelSpec:
    """Integer bit manipulation: what a counter-based RNG (threefry, behind dropout and
    every jax.random draw inside a step) is made of, and whole random-bit draws."""
    variant = str(rng.choice(BITWISE_VARIANTS, p=[0.2, 0.2, 0.2, 0.2, 0.2]))
    dtype = "f32" if variant == "dropout" else "u32"
    # a random draw is ~20 integer ops per element: smaller arrays than plain ones
    shape = random_shape(rng, 1e3, MAX_BYTES / 16)
    if variant in ("random_bits", "dropout"):
        shape = shrink_to_fit(shape, lambda sh: float(num_elements(sh)), MAX_BYTES / 64)
    params = {"shape": shape, "dtype": dtype, "rate": float(rng.choice([0.1, 0.2, 0.5]))}
    return KernelSpec("bitwise", variant, dtype, params, log2_bucket(num_elements(shape)))


@builder("bitwise", *BITWISE_VARIANTS)
def _build_bitwise(p: dict[str, Any]):
    import jax
    import jax.numpy as jnp
    from jax import lax

    shape, variant = tuple(p["shape"]), p["variant"]
    key = ArgSpec((2,), "u32", 1 << 31)
    if variant == "xor":
        return (lambda a, b: a ^ b), [ArgSpec(shape, "u32", 1 << 31)] * 2
    if variant == "shift_right_logical":
        return (lambda a: lax.shift_right_logical(a, jnp.uint32(13))), \
            [ArgSpec(shape, "u32", 1 << 31)]
    if variant == "rotate":   # threefry's rotation: (x << r) | (x >> (32 - r)), then a xor
        def rotate(a, b):
            r = jnp.uint32(13)
            return ((a << r) | lax.shift_right_logical(a, jnp.uint32(32) - r)) ^ b
        return rotate, [ArgSpec(shape, "u32", 1 << 31)] * 2
    if variant == "random_bits":
        return (lambda k: jax.random.bits(jax.random.wrap_key_data(k), shape)), [key]
    rate = p["rate"]

    def dropout(x, k):
        keep = jax.random.bernoulli(jax.random.wrap_key_data(k), 1.0 - rate, shape)
        return jnp.where(keep, x / (1.0 - rate), 0.0)
    return dropout, [ArgSpec(shape, "f32"), key]
