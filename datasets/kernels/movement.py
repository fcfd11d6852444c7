"""Data movement: the `data_movement` family (broadcast, transpose, slice, pad,
concatenate, reverse, head split) and `gather_scatter` (indexed reads and
writes, dynamic slices).
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
    log_uniform_int,
    maybe_round,
    num_elements,
    random_shape,
    sampler,
    shrink_to_fit,
)

# --------------------------------------------------------------------------- data movement
MOVEMENT = ("broadcast", "transpose", "slice", "pad", "concatenate", "reverse", "reshape_transpose")


@sampler("data_movement")
def sample_movement(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "i8"], p=[0.6, 0.3, 0.1]))
    variant = str(rng.choice(MOVEMENT))
    rank = 2 if variant in ("broadcast", "slice") else int(rng.integers(2, 5))
    shape = random_shape(rng, 1e3, MAX_BYTES / 16, max_rank=rank)
    while len(shape) < 2:
        shape = [max(1, shape[0] // 8), 8]
    params: dict[str, Any] = {"shape": shape, "dtype": dtype}
    if variant == "transpose":
        params["perm"] = [int(i) for i in rng.permutation(len(shape))]
        if params["perm"] == sorted(params["perm"]):
            params["perm"] = params["perm"][::-1]
    elif variant == "broadcast":
        params["axis"] = int(rng.integers(0, 2))
    elif variant == "pad":
        params["pad"] = [int(rng.integers(0, 4)) for _ in shape]
    elif variant == "concatenate":
        params["parts"] = int(rng.integers(2, 5))
    return KernelSpec("data_movement", variant, dtype, params, log2_bucket(num_elements(shape)))


@builder("data_movement", *MOVEMENT)
def _build_movement(p: dict[str, Any]):
    import jax.numpy as jnp
    from jax import lax

    shape, dtype, variant = tuple(p["shape"]), p["dtype"], p["variant"]
    if variant == "broadcast":  # a vector along one axis broadcast to the matrix
        axis = p["axis"]
        vec = (shape[axis],)
        return (lambda v: lax.broadcast_in_dim(v, shape, (axis,)), [ArgSpec(vec, dtype)])
    if variant == "transpose":
        perm = tuple(p["perm"])
        return (lambda x: jnp.transpose(x, perm), [ArgSpec(shape, dtype)])
    if variant == "slice":
        half = tuple(max(1, d // 2) for d in shape)
        start = tuple(d - h for d, h in zip(shape, half))
        return (lambda x: lax.slice(x, start, shape), [ArgSpec(shape, dtype)])
    if variant == "pad":
        cfg = [(a, a, 0) for a in p["pad"]]
        return (lambda x: lax.pad(x, jnp.zeros((), x.dtype), cfg), [ArgSpec(shape, dtype)])
    if variant == "concatenate":
        parts = p["parts"]
        return (lambda *xs: jnp.concatenate(xs, axis=-1), [ArgSpec(shape, dtype)] * parts)
    if variant == "reverse":
        return (lambda x: lax.rev(x, (len(shape) - 1,)), [ArgSpec(shape, dtype)])
    # reshape_transpose: split the last dim into heads and move them forward
    last = shape[-1]
    heads = next((h for h in (8, 4, 2) if last % h == 0), 1)
    new = shape[:-1] + (heads, last // heads)
    perm = (len(new) - 2,) + tuple(range(len(new) - 2)) + (len(new) - 1,)
    return (lambda x: jnp.transpose(x.reshape(new), perm), [ArgSpec(shape, dtype)])


# --------------------------------------------------------------------------- gather / scatter
GATHER = ("gather_rows", "scatter_add", "dynamic_slice", "dynamic_update_slice")


@sampler("gather_scatter")
def sample_gather(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16"], p=[0.7, 0.3]))
    variant = str(rng.choice(GATHER))
    rows = maybe_round(rng, log_uniform_int(rng, 64, 65536))
    width = maybe_round(rng, log_uniform_int(rng, 8, 2048))
    count = log_uniform_int(rng, 1, 16384)
    rows, width, count = shrink_to_fit([rows, width, count],
                                       lambda s: 4.0 * (s[0] + s[2]) * s[1], MAX_BYTES / 2)
    params = {"rows": rows, "width": width, "count": count, "dtype": dtype}
    return KernelSpec("gather_scatter", variant, dtype, params, log2_bucket(count * width))


@builder("gather_scatter", *GATHER)
def _build_gather(p: dict[str, Any]):
    from jax import lax

    rows, width, count, dtype = p["rows"], p["width"], p["count"], p["dtype"]
    variant = p["variant"]
    if variant == "gather_rows":
        return (lambda t, i: t[i], [ArgSpec((rows, width), dtype), ArgSpec((count,), "i32", rows)])
    if variant == "scatter_add":
        return (lambda t, i, u: t.at[i].add(u),
                [ArgSpec((rows, width), dtype), ArgSpec((count,), "i32", rows),
                 ArgSpec((count, width), dtype)])
    size = min(count, rows)
    if variant == "dynamic_slice":
        return (lambda t, i: lax.dynamic_slice(t, (i, 0), (size, width)),
                [ArgSpec((rows, width), dtype), ArgSpec((), "i32", rows - size + 1)])
    return (lambda t, u, i: lax.dynamic_update_slice(t, u, (i, 0)),
            [ArgSpec((rows, width), dtype), ArgSpec((size, width), dtype),
             ArgSpec((), "i32", rows - size + 1)])
