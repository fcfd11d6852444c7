"""Elementwise kernels: arithmetic (`elementwise`), `transcendental` functions,
`select_compare`, dtype `convert` and `iota`, plus `apply_op`, the op table the
fused patterns reuse.
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
    num_elements,
    random_shape,
    sampler,
)

# --------------------------------------------------------------------------- elementwise
UNARY = ("neg", "abs", "sqrt", "rsqrt", "floor", "sign")
BINARY = ("add", "mul", "sub", "max", "div", "pow")
TRANSCENDENTAL = ("exp", "log", "tanh", "logistic", "erf", "sin", "log1p", "expm1")
ELEMENTWISE_DTYPES = ("f32", "bf16", "f16", "i8")


def apply_op(name: str, *xs):
    import jax
    import jax.numpy as jnp
    from jax import lax

    table: dict[str, Callable[..., Any]] = {
        "neg": jnp.negative, "abs": jnp.abs, "sqrt": jnp.sqrt, "rsqrt": lax.rsqrt,
        "floor": jnp.floor, "sign": jnp.sign, "add": jnp.add, "mul": jnp.multiply,
        "sub": jnp.subtract, "max": jnp.maximum, "div": jnp.divide, "pow": lax.pow,
        "exp": jnp.exp, "log": jnp.log, "tanh": jnp.tanh, "logistic": jax.nn.sigmoid,
        "erf": lax.erf, "sin": jnp.sin, "log1p": jnp.log1p, "expm1": jnp.expm1,
        "relu": jax.nn.relu, "gelu": jax.nn.gelu,
    }
    return table[name](*xs)


@sampler("elementwise")
def sample_elementwise(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(ELEMENTWISE_DTYPES, p=[0.45, 0.25, 0.15, 0.15]))
    int_ok_unary = ("neg", "abs", "sign")
    int_ok_binary = ("add", "mul", "sub", "max")
    if rng.uniform() < 0.4:
        variant = "unary"
        op = str(rng.choice(int_ok_unary if dtype == "i8" else UNARY))
    else:
        variant = "binary"
        op = str(rng.choice(int_ok_binary if dtype == "i8" else BINARY))
    shape = random_shape(rng, 1e3, MAX_BYTES / 16)
    params = {"op": op, "shape": shape, "dtype": dtype}
    return KernelSpec("elementwise", variant, dtype, params, log2_bucket(num_elements(shape)))


@builder("elementwise", "unary", "binary")
def _build_elementwise(p: dict[str, Any]):
    shape, dtype, op = tuple(p["shape"]), p["dtype"], p["op"]
    high = 16 if dtype == "i8" else None
    if op in BINARY:
        return (lambda x, y: apply_op(op, x, y),
                [ArgSpec(shape, dtype, high), ArgSpec(shape, dtype, high)])
    return (lambda x: apply_op(op, x), [ArgSpec(shape, dtype, high)])


@sampler("transcendental")
def sample_transcendental(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "f16"], p=[0.6, 0.25, 0.15]))
    op = str(rng.choice(TRANSCENDENTAL))
    shape = random_shape(rng, 1e3, MAX_BYTES / 16)
    params = {"op": op, "shape": shape, "dtype": dtype}
    return KernelSpec("transcendental", op, dtype, params, log2_bucket(num_elements(shape)))


@builder("transcendental", *TRANSCENDENTAL)
def _build_transcendental(p: dict[str, Any]):
    op = p["op"]
    return (lambda x: apply_op(op, x), [ArgSpec(tuple(p["shape"]), p["dtype"])])


# --------------------------------------------------------------------------- select, convert, iota
@sampler("select_compare")
def sample_select(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "i8"], p=[0.6, 0.25, 0.15]))
    variant = str(rng.choice(["select", "compare", "clamp"]))
    shape = random_shape(rng, 1e3, MAX_BYTES / 16)
    params = {"shape": shape, "dtype": dtype}
    return KernelSpec("select_compare", variant, dtype, params, log2_bucket(num_elements(shape)))


@builder("select_compare", "select", "compare", "clamp")
def _build_select(p: dict[str, Any]):
    import jax.numpy as jnp

    shape, dtype = tuple(p["shape"]), p["dtype"]
    high = 64 if dtype == "i8" else None
    if p["variant"] == "select":
        return (lambda c, a, b: jnp.where(c > 0, a, b),
                [ArgSpec(shape, dtype, high)] * 3)
    if p["variant"] == "compare":
        return (lambda a, b: a < b, [ArgSpec(shape, dtype, high), ArgSpec(shape, dtype, high)])
    return (lambda a, lo, hi: jnp.clip(a, lo, hi),
            [ArgSpec(shape, dtype, high), ArgSpec((), dtype, high), ArgSpec((), dtype, high)])


CONVERSIONS = (("f32", "bf16"), ("bf16", "f32"), ("f32", "f16"), ("f16", "f32"),
               ("f32", "i32"), ("i32", "f32"), ("i8", "f32"), ("f32", "i8"), ("bf16", "f16"))


@sampler("convert")
def sample_convert(rng: np.random.Generator) -> KernelSpec:
    src, dst = CONVERSIONS[int(rng.integers(len(CONVERSIONS)))]
    shape = random_shape(rng, 1e3, MAX_BYTES / 16)
    params = {"shape": shape, "dtype": src, "to": dst}
    return KernelSpec("convert", f"{src}_to_{dst}", src, params, log2_bucket(num_elements(shape)))


@builder("convert", *(f"{a}_to_{b}" for a, b in CONVERSIONS))
def _build_convert(p: dict[str, Any]):
    to = jax_dtype(p["to"])
    high = 100 if p["dtype"] in ("i8", "i32") else None
    return (lambda x: x.astype(to), [ArgSpec(tuple(p["shape"]), p["dtype"], high)])


@sampler("iota")
def sample_iota(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["i32", "f32"]))
    variant = str(rng.choice(["iota", "iota_add"]))
    shape = random_shape(rng, 1e3, MAX_BYTES / 16, max_rank=3)
    params = {"shape": shape, "dtype": dtype}
    return KernelSpec("iota", variant, dtype, params, log2_bucket(num_elements(shape)))


@builder("iota", "iota", "iota_add")
def _build_iota(p: dict[str, Any]):
    from jax import lax

    shape, dtype = tuple(p["shape"]), jax_dtype(p["dtype"])
    if p["variant"] == "iota":
        # The scalar operand keeps XLA from folding the program into a literal.
        return (lambda s: lax.broadcasted_iota(dtype, shape, len(shape) - 1) * s,
                [ArgSpec((), p["dtype"], 4 if p["dtype"] == "i32" else None)])
    return (lambda x: x + lax.broadcasted_iota(dtype, shape, len(shape) - 1),
            [ArgSpec(shape, p["dtype"], 100 if p["dtype"] == "i32" else None)])
