"""Spectral layers: batched `fft`s and the `complex` arithmetic between them."""

from __future__ import annotations

from typing import Any

import numpy as np

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

# --------------------------------------------------------------------------- FFT
FFT_VARIANTS = ("c2c", "rfft", "irfft", "c2c_2d", "rfft_2d")


@sampler("fft")
def sample_fft(rng: np.random.Generator) -> KernelSpec:
    """Batched 1-D and 2-D transforms (spectral filters, Fourier layers, convolution by
    FFT); lengths favour powers of two but keep odd ones, which XLA's FFT is slower on."""
    variant = str(rng.choice(FFT_VARIANTS, p=[0.25, 0.25, 0.2, 0.15, 0.15]))
    if variant.endswith("_2d"):
        h = maybe_round(rng, log_uniform_int(rng, 8, 512), 0.6)
        w = maybe_round(rng, log_uniform_int(rng, 8, 512), 0.6)
        batch = log_uniform_int(rng, 1, 64)
        batch, h, w = shrink_to_fit([batch, h, w], lambda s: float(s[0] * s[1] * s[2]), 4e6)
        lengths, batch_shape = [h, w], [batch]
    else:
        n = maybe_round(rng, log_uniform_int(rng, 16, 1 << 16), 0.6)
        rows = log_uniform_int(rng, 1, 1024)
        rows, n = shrink_to_fit([rows, n], lambda s: float(s[0] * s[1]), 4e6)
        lengths, batch_shape = [max(n, 2)], [rows]
    points = num_elements(batch_shape) * num_elements(lengths)
    params = {"batch": batch_shape, "lengths": lengths, "dtype": "f32"}
    return KernelSpec("fft", variant, "f32", params, log2_bucket(points))


@builder("fft", *FFT_VARIANTS)
def _build_fft(p: dict[str, Any]):
    import jax.numpy as jnp

    batch, lengths = list(p["batch"]), list(p["lengths"])
    axes = tuple(range(-len(lengths), 0))
    variant = p["variant"]
    if variant in ("c2c", "c2c_2d"):
        return (lambda x: jnp.fft.fftn(x, axes=axes),
                [ArgSpec(tuple(batch + lengths), "c64")])
    if variant in ("rfft", "rfft_2d"):
        return (lambda x: jnp.fft.rfftn(x, axes=axes), [ArgSpec(tuple(batch + lengths), "f32")])
    half = lengths[:-1] + [lengths[-1] // 2 + 1]
    return (lambda x: jnp.fft.irfftn(x, s=lengths, axes=axes),
            [ArgSpec(tuple(batch + half), "c64")])


# --------------------------------------------------------------------------- complex arithmetic
COMPLEX_VARIANTS = ("multiply", "add", "abs", "make_complex", "real_part")


@sampler("complex")
def sample_complex(rng: np.random.Generator) -> KernelSpec:
    """Elementwise complex64 arithmetic: what sits between the FFTs of a spectral layer."""
    variant = str(rng.choice(COMPLEX_VARIANTS))
    shape = random_shape(rng, 1e3, MAX_BYTES / 32)
    params = {"shape": shape, "dtype": "c64"}
    return KernelSpec("complex", variant, "c64", params, log2_bucket(num_elements(shape)))


@builder("complex", *COMPLEX_VARIANTS)
def _build_complex(p: dict[str, Any]):
    import jax.numpy as jnp
    from jax import lax

    shape, variant = tuple(p["shape"]), p["variant"]
    z = ArgSpec(shape, "c64")
    if variant == "multiply":
        return (lambda a, b: a * b), [z, z]
    if variant == "add":
        return (lambda a, b: a + b), [z, z]
    if variant == "abs":
        return jnp.abs, [z]
    if variant == "make_complex":
        return lax.complex, [ArgSpec(shape, "f32"), ArgSpec(shape, "f32")]
    return (lambda a: jnp.real(a) * 2.0), [z]
