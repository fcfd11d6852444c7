"""Single-kernel sample generators for `stablecost collect kernels`.

Each op family has a *sampler* that draws one configuration (shapes log-uniform over
realistic ranges, a variant, a dtype) from a seeded generator, and a *builder* that
turns that configuration back into a JAX function and its argument specs. Samples are
reproducible from their parameters alone, which is how `dataset noise` re-measures a
row.

Group ids (for grouped splits) are the family, variant, dtype and the log2 bucket of
the sample's size: a held-out group is a region of shape space the model never saw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..dtypes import jax_dtype
from ..errors import InvalidArgumentError

# Largest work one kernel sample may do: keeps every call well under ~0.1 s on a
# 2-core CPU so a sweep covers many shapes.
MAX_FLOPS = 4e9
MAX_BYTES = 256e6


@dataclass(frozen=True)
class ArgSpec:
    shape: tuple[int, ...]
    dtype: str
    index_high: int | None = None  # integer operand drawn in [0, index_high)


@dataclass(frozen=True)
class KernelSpec:
    family: str
    variant: str
    dtype: str
    params: dict[str, Any]
    size_bucket: int               # log2 of the sample's dominant size

    @property
    def group_id(self) -> str:
        return f"{self.family}/{self.variant}/{self.dtype}/s{self.size_bucket}"


Builder = Callable[[dict[str, Any]], tuple[Callable[..., Any], list[ArgSpec]]]
Sampler = Callable[[np.random.Generator], KernelSpec]

_BUILDERS: dict[tuple[str, str], Builder] = {}


def builder(family: str, *variants: str) -> Callable[[Builder], Builder]:
    def register(fn: Builder) -> Builder:
        for variant in variants:
            _BUILDERS[(family, variant)] = fn
        return fn
    return register


def build(family: str, variant: str, params: dict[str, Any]) -> tuple[Callable[..., Any], list[ArgSpec]]:
    try:
        make = _BUILDERS[(family, variant)]
    except KeyError:
        raise InvalidArgumentError(f"no kernel builder for {family}/{variant}") from None
    return make(params)


# --------------------------------------------------------------------------- helpers
def log_uniform_int(rng: np.random.Generator, low: int, high: int) -> int:
    return int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))


def _maybe_round(rng: np.random.Generator, value: int, p_pow2: float = 0.4) -> int:
    """Real programs favour multiples of 8 and powers of two; keep some odd sizes too."""
    r = rng.uniform()
    if r < p_pow2:
        return 2 ** max(0, round(math.log2(max(value, 1))))
    if r < 0.75:
        return max(8, 8 * round(value / 8))
    return max(1, value)


def _bucket(value: float) -> int:
    return int(math.floor(math.log2(max(value, 1.0))))


def _shrink_to_fit(sizes: list[int], cost: Callable[[list[int]], float], limit: float) -> list[int]:
    """Halve the largest size until `cost(sizes) <= limit`."""
    sizes = list(sizes)
    while cost(sizes) > limit and max(sizes) > 1:
        i = int(np.argmax(sizes))
        sizes[i] = max(1, sizes[i] // 2)
    return sizes


def _elems(shape: tuple[int, ...] | list[int]) -> int:
    return int(np.prod(shape)) if len(shape) else 1


def _random_shape(rng: np.random.Generator, low_elems: float, high_elems: float,
                  max_rank: int = 4) -> list[int]:
    total = log_uniform_int(rng, int(low_elems), int(high_elems))
    rank = int(rng.integers(1, max_rank + 1))
    if rank == 1:
        return [_maybe_round(rng, total)]
    # Split log(total) over the dims; the last dim gets a realistic feature width.
    last = _maybe_round(rng, log_uniform_int(rng, 8, 4096))
    rest = max(1, total // last)
    dims = [last]
    for _ in range(rank - 2):
        d = max(1, int(round(rest ** rng.uniform(0.2, 0.6))))
        dims.insert(0, d)
        rest = max(1, rest // d)
    dims.insert(0, max(1, rest))
    return dims


# --------------------------------------------------------------------------- dot_general
DOT_DTYPES = ("f32", "bf16", "f16", "i8")


def sample_dot(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(DOT_DTYPES, p=[0.4, 0.25, 0.2, 0.15]))
    variant = str(rng.choice(["square", "rect", "skinny", "batched", "transposed"]))
    batch = 1
    if variant == "square":
        m = n = k = _maybe_round(rng, log_uniform_int(rng, 32, 2048))
    elif variant == "skinny":
        m = log_uniform_int(rng, 1, 32)
        n = _maybe_round(rng, log_uniform_int(rng, 256, 8192))
        k = _maybe_round(rng, log_uniform_int(rng, 256, 8192))
    elif variant == "batched":
        batch = log_uniform_int(rng, 2, 64)
        m, n, k = (_maybe_round(rng, log_uniform_int(rng, 16, 512)) for _ in range(3))
    else:
        m, n, k = (_maybe_round(rng, log_uniform_int(rng, 16, 2048)) for _ in range(3))
    limit = MAX_FLOPS if dtype == "f32" else MAX_FLOPS / 8  # non-f32 CPU matmuls are slow
    batch, m, n, k = _shrink_to_fit([batch, m, n, k], lambda s: 2.0 * s[0] * s[1] * s[2] * s[3],
                                    limit)
    params = {"batch": batch, "m": m, "n": n, "k": k, "dtype": dtype}
    return KernelSpec("dot_general", variant, dtype, params, _bucket(2.0 * batch * m * n * k))


@builder("dot_general", "square", "rect", "skinny", "batched", "transposed")
def _build_dot(p: dict[str, Any]):
    import jax.numpy as jnp
    from jax import lax

    dtype = p["dtype"]
    out = jnp.int32 if dtype == "i8" else None
    b, m, n, k = p["batch"], p["m"], p["n"], p["k"]
    high = 8 if dtype == "i8" else None
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


# --------------------------------------------------------------------------- convolution
CONV_VARIANTS = ("fwd_nhwc", "fwd_nchw", "strided", "dilated", "grouped", "depthwise",
                 "bwd_data", "bwd_filter")


def sample_conv(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16"], p=[0.75, 0.25]))
    variant = str(rng.choice(CONV_VARIANTS))
    n = log_uniform_int(rng, 1, 32)
    hw = _maybe_round(rng, log_uniform_int(rng, 7, 112), 0.3)
    cin = _maybe_round(rng, log_uniform_int(rng, 3, 256))
    cout = _maybe_round(rng, log_uniform_int(rng, 8, 256))
    kernel = int(rng.choice([1, 3, 3, 5, 7]))
    stride = 2 if variant == "strided" else 1
    dilation = int(rng.choice([2, 3])) if variant == "dilated" else 1
    groups = 1
    if variant == "grouped":
        groups = int(rng.choice([2, 4, 8]))
        cin = max(groups, cin // groups * groups)
        cout = max(groups, cout // groups * groups)
    elif variant == "depthwise":
        groups = cin
        cout = cin
    hw = max(hw, (kernel - 1) * dilation + 1)

    def flops(s: list[int]) -> float:
        nn, hh, ci, co = s
        return 2.0 * nn * hh * hh * co * (ci // groups if groups > 1 else ci) * kernel * kernel / stride ** 2

    limit = MAX_FLOPS / 4 if dtype == "f32" else MAX_FLOPS / 32
    n, hw, cin2, cout2 = _shrink_to_fit([n, hw, cin, cout], flops, limit)
    if groups == 1:
        cin, cout = cin2, cout2
    hw = max(hw, (kernel - 1) * dilation + 1)
    if variant == "strided" and rng.random() < 0.5:
        # Half the strided draws become the decoder's op, its transpose: a stride-2
        # transposed convolution (an input dilated by 2). Drawn last, so the other
        # variants' samples (and their ids) are what they were before it existed.
        variant = "transposed"

        def flops(s: list[int]) -> float:
            nn, hh, ci, co = s
            return 2.0 * nn * (2 * hh) ** 2 * co * ci * kernel * kernel

        n, hw, cin, cout = _shrink_to_fit([n, hw, cin, cout], flops, limit)
    params = {"n": n, "hw": hw, "cin": cin, "cout": cout, "kernel": kernel, "stride": stride,
              "dilation": dilation, "groups": groups, "dtype": dtype,
              "layout": "NCHW" if variant == "fwd_nchw" else "NHWC"}
    return KernelSpec("convolution", variant, dtype, params, _bucket(flops([n, hw, cin, cout])))


@builder("convolution", *CONV_VARIANTS, "transposed")
def _build_conv(p: dict[str, Any]):
    from jax import lax

    layout = p["layout"]
    lhs_spec = "NCHW" if layout == "NCHW" else "NHWC"
    dn = (lhs_spec, "HWIO", lhs_spec)
    n, hw, cin, cout, kk = p["n"], p["hw"], p["cin"], p["cout"], p["kernel"]
    groups, stride, dil = p["groups"], p["stride"], p["dilation"]
    x_shape = (n, cin, hw, hw) if layout == "NCHW" else (n, hw, hw, cin)
    w_shape = (kk, kk, cin // groups, cout)
    dtype = p["dtype"]

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (stride, stride), "SAME", rhs_dilation=(dil, dil),
                                        dimension_numbers=dn, feature_group_count=groups)

    variant = p.get("variant", "fwd")
    if variant == "transposed":
        def conv_transpose(x, w):
            return lax.conv_transpose(x, w, (stride, stride), "SAME", dimension_numbers=dn)
        return conv_transpose, [ArgSpec(x_shape, dtype), ArgSpec((kk, kk, cin, cout), dtype)]
    return _conv_pass(conv, variant, x_shape, w_shape, dtype)


def _conv_pass(conv: Callable[[Any, Any], Any], variant: str, x_shape: tuple[int, ...],
               w_shape: tuple[int, ...], dtype: str):
    """`conv` itself, or its backward-data / backward-filter convolution (the transpose
    of the linear map in the input or in the weights), with the argument specs."""
    import jax

    if variant not in ("bwd_data", "bwd_filter"):
        return conv, [ArgSpec(x_shape, dtype), ArgSpec(w_shape, dtype)]
    x_struct = jax.ShapeDtypeStruct(x_shape, jax_dtype(dtype))
    w_struct = jax.ShapeDtypeStruct(w_shape, jax_dtype(dtype))
    y_shape = tuple(jax.eval_shape(conv, x_struct, w_struct).shape)
    if variant == "bwd_data":
        def bwd_data(w, dy):
            (dx,) = jax.linear_transpose(lambda x: conv(x, w), x_struct)(dy)
            return dx
        return bwd_data, [ArgSpec(w_shape, dtype), ArgSpec(y_shape, dtype)]

    def bwd_filter(x, dy):
        (dw,) = jax.linear_transpose(lambda w: conv(x, w), w_struct)(dy)
        return dw
    return bwd_filter, [ArgSpec(x_shape, dtype), ArgSpec(y_shape, dtype)]


# --------------------------------------------------------------------------- elementwise
UNARY = ("neg", "abs", "sqrt", "rsqrt", "floor", "sign")
BINARY = ("add", "mul", "sub", "max", "div", "pow")
TRANSCENDENTAL = ("exp", "log", "tanh", "logistic", "erf", "sin", "log1p", "expm1")
ELEMENTWISE_DTYPES = ("f32", "bf16", "f16", "i8")


def _apply(name: str, *xs):
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
    shape = _random_shape(rng, 1e3, MAX_BYTES / 16)
    params = {"op": op, "shape": shape, "dtype": dtype}
    return KernelSpec("elementwise", variant, dtype, params, _bucket(_elems(shape)))


@builder("elementwise", "unary", "binary")
def _build_elementwise(p: dict[str, Any]):
    shape, dtype, op = tuple(p["shape"]), p["dtype"], p["op"]
    high = 16 if dtype == "i8" else None
    if op in BINARY:
        return (lambda x, y: _apply(op, x, y), [ArgSpec(shape, dtype, high), ArgSpec(shape, dtype, high)])
    return (lambda x: _apply(op, x), [ArgSpec(shape, dtype, high)])


def sample_transcendental(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "f16"], p=[0.6, 0.25, 0.15]))
    op = str(rng.choice(TRANSCENDENTAL))
    shape = _random_shape(rng, 1e3, MAX_BYTES / 16)
    params = {"op": op, "shape": shape, "dtype": dtype}
    return KernelSpec("transcendental", op, dtype, params, _bucket(_elems(shape)))


@builder("transcendental", *TRANSCENDENTAL)
def _build_transcendental(p: dict[str, Any]):
    op = p["op"]
    return (lambda x: _apply(op, x), [ArgSpec(tuple(p["shape"]), p["dtype"])])


# --------------------------------------------------------------------------- data movement
MOVEMENT = ("broadcast", "transpose", "slice", "pad", "concatenate", "reverse", "reshape_transpose")


def sample_movement(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "i8"], p=[0.6, 0.3, 0.1]))
    variant = str(rng.choice(MOVEMENT))
    rank = 2 if variant in ("broadcast", "slice") else int(rng.integers(2, 5))
    shape = _random_shape(rng, 1e3, MAX_BYTES / 16, max_rank=rank)
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
    return KernelSpec("data_movement", variant, dtype, params, _bucket(_elems(shape)))


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


# --------------------------------------------------------------------------- reductions
def sample_reduce(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "f16"], p=[0.6, 0.25, 0.15]))
    variant = str(rng.choice(["sum_last", "sum_first", "max_last", "sum_all", "argmax_last"]))
    shape = _random_shape(rng, 1e3, MAX_BYTES / 8, max_rank=3)
    if len(shape) == 1 and variant != "sum_all":
        shape = [max(1, shape[0] // 64), 64]
    params = {"shape": shape, "dtype": dtype}
    return KernelSpec("reduce", variant, dtype, params, _bucket(_elems(shape)))


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
    hw = _maybe_round(rng, log_uniform_int(rng, 8, 112), 0.3)
    c = _maybe_round(rng, log_uniform_int(rng, 8, 256))
    n, hw, c = _shrink_to_fit([n, hw, c], lambda s: 4.0 * s[0] * s[1] * s[1] * s[2], max_bytes)
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


def sample_reduce_window(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16"], p=[0.7, 0.3]))
    variant = str(rng.choice(["max_pool", "avg_pool"]))
    params = _pool_params(rng, dtype, MAX_BYTES / 4)
    return KernelSpec("reduce_window", variant, dtype, params, _bucket(_elems(params["shape"])))


@builder("reduce_window", "max_pool", "avg_pool")
def _build_reduce_window(p: dict[str, Any]):
    if p["variant"] == "max_pool":
        fn = _pool(p, "max")
    else:
        pool_sum, area = _pool(p, "sum"), p["window"] ** 2
        fn = lambda x: pool_sum(x) / area  # noqa: E731
    return fn, [ArgSpec(tuple(p["shape"]), p["dtype"])]


# --------------------------------------------------------------------------- gather / scatter
GATHER = ("gather_rows", "scatter_add", "dynamic_slice", "dynamic_update_slice")


def sample_gather(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16"], p=[0.7, 0.3]))
    variant = str(rng.choice(GATHER))
    rows = _maybe_round(rng, log_uniform_int(rng, 64, 65536))
    width = _maybe_round(rng, log_uniform_int(rng, 8, 2048))
    count = log_uniform_int(rng, 1, 16384)
    rows, width, count = _shrink_to_fit([rows, width, count],
                                        lambda s: 4.0 * (s[0] + s[2]) * s[1], MAX_BYTES / 2)
    params = {"rows": rows, "width": width, "count": count, "dtype": dtype}
    return KernelSpec("gather_scatter", variant, dtype, params, _bucket(count * width))


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


# --------------------------------------------------------------------------- sort, select, convert, iota
def sample_sort(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "i32"], p=[0.7, 0.3]))
    variant = str(rng.choice(["values", "key_value"]))
    length = _maybe_round(rng, log_uniform_int(rng, 16, 1 << 16))
    rows = log_uniform_int(rng, 1, 256)
    rows, length = _shrink_to_fit([rows, length], lambda s: float(s[0] * s[1]), 4e6)
    params = {"rows": rows, "length": length, "dtype": dtype}
    return KernelSpec("sort", variant, dtype, params, _bucket(rows * length))


@builder("sort", "values", "key_value")
def _build_sort(p: dict[str, Any]):
    import jax.numpy as jnp
    from jax import lax

    shape = (p["rows"], p["length"])
    high = 1 << 20 if p["dtype"] == "i32" else None
    if p["variant"] == "values":
        return (lambda x: jnp.sort(x, axis=-1), [ArgSpec(shape, p["dtype"], high)])
    return (lambda k, v: lax.sort((k, v), dimension=1, num_keys=1),
            [ArgSpec(shape, p["dtype"], high), ArgSpec(shape, "f32")])


def sample_select(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "i8"], p=[0.6, 0.25, 0.15]))
    variant = str(rng.choice(["select", "compare", "clamp"]))
    shape = _random_shape(rng, 1e3, MAX_BYTES / 16)
    params = {"shape": shape, "dtype": dtype}
    return KernelSpec("select_compare", variant, dtype, params, _bucket(_elems(shape)))


@builder("select_compare", "select", "compare", "clamp")
def _build_select(p: dict[str, Any]):
    import jax.numpy as jnp

    shape, dtype = tuple(p["shape"]), p["dtype"]
    high = 64 if dtype == "i8" else None
    if p["variant"] == "select":
        return (lambda c, a, b: jnp.where(c > 0, a, b),
                [ArgSpec(shape, dtype, high), ArgSpec(shape, dtype, high), ArgSpec(shape, dtype, high)])
    if p["variant"] == "compare":
        return (lambda a, b: a < b, [ArgSpec(shape, dtype, high), ArgSpec(shape, dtype, high)])
    return (lambda a, lo, hi: jnp.clip(a, lo, hi),
            [ArgSpec(shape, dtype, high), ArgSpec((), dtype, high), ArgSpec((), dtype, high)])


CONVERSIONS = (("f32", "bf16"), ("bf16", "f32"), ("f32", "f16"), ("f16", "f32"),
               ("f32", "i32"), ("i32", "f32"), ("i8", "f32"), ("f32", "i8"), ("bf16", "f16"))


def sample_convert(rng: np.random.Generator) -> KernelSpec:
    src, dst = CONVERSIONS[int(rng.integers(len(CONVERSIONS)))]
    shape = _random_shape(rng, 1e3, MAX_BYTES / 16)
    params = {"shape": shape, "dtype": src, "to": dst}
    return KernelSpec("convert", f"{src}_to_{dst}", src, params, _bucket(_elems(shape)))


@builder("convert", *(f"{a}_to_{b}" for a, b in CONVERSIONS))
def _build_convert(p: dict[str, Any]):
    to = jax_dtype(p["to"])
    high = 100 if p["dtype"] in ("i8", "i32") else None
    return (lambda x: x.astype(to), [ArgSpec(tuple(p["shape"]), p["dtype"], high)])


def sample_iota(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["i32", "f32"]))
    variant = str(rng.choice(["iota", "iota_add"]))
    shape = _random_shape(rng, 1e3, MAX_BYTES / 16, max_rank=3)
    params = {"shape": shape, "dtype": dtype}
    return KernelSpec("iota", variant, dtype, params, _bucket(_elems(shape)))


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


# --------------------------------------------------------------------------- FFT
FFT_VARIANTS = ("c2c", "rfft", "irfft", "c2c_2d", "rfft_2d")


def sample_fft(rng: np.random.Generator) -> KernelSpec:
    """Batched 1-D and 2-D transforms (spectral filters, Fourier layers, convolution by
    FFT); lengths favour powers of two but keep odd ones, which XLA's FFT is slower on."""
    variant = str(rng.choice(FFT_VARIANTS, p=[0.25, 0.25, 0.2, 0.15, 0.15]))
    if variant.endswith("_2d"):
        h = _maybe_round(rng, log_uniform_int(rng, 8, 512), 0.6)
        w = _maybe_round(rng, log_uniform_int(rng, 8, 512), 0.6)
        batch = log_uniform_int(rng, 1, 64)
        batch, h, w = _shrink_to_fit([batch, h, w], lambda s: float(s[0] * s[1] * s[2]), 4e6)
        lengths, batch_shape = [h, w], [batch]
    else:
        n = _maybe_round(rng, log_uniform_int(rng, 16, 1 << 16), 0.6)
        rows = log_uniform_int(rng, 1, 1024)
        rows, n = _shrink_to_fit([rows, n], lambda s: float(s[0] * s[1]), 4e6)
        lengths, batch_shape = [max(n, 2)], [rows]
    points = _elems(batch_shape) * _elems(lengths)
    params = {"batch": batch_shape, "lengths": lengths, "dtype": "f32"}
    return KernelSpec("fft", variant, "f32", params, _bucket(points))


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


# --------------------------------------------------------------------------- 3-D convolution
CONV3D_VARIANTS = ("fwd", "strided", "bwd_data", "bwd_filter")


def sample_conv3d(rng: np.random.Generator) -> KernelSpec:
    """Volumetric convolutions (video, medical imaging, 3-D U-Nets) in NDHWC, forward
    and both backward passes."""
    dtype = str(rng.choice(["f32", "bf16"], p=[0.75, 0.25]))
    variant = str(rng.choice(CONV3D_VARIANTS))
    n = log_uniform_int(rng, 1, 8)
    dhw = _maybe_round(rng, log_uniform_int(rng, 4, 48), 0.4)
    cin = _maybe_round(rng, log_uniform_int(rng, 1, 128))
    cout = _maybe_round(rng, log_uniform_int(rng, 4, 128))
    kernel = int(rng.choice([1, 3, 3, 3]))
    stride = 2 if variant == "strided" else 1

    def flops(s: list[int]) -> float:
        nn, dd, ci, co = s
        return 2.0 * nn * dd ** 3 * ci * co * kernel ** 3 / stride ** 3

    # XLA:CPU runs 3-D convolutions at a few GFLOP/s: smaller caps than 2-D ones
    limit = MAX_FLOPS / 16 if dtype == "f32" else MAX_FLOPS / 64
    n, dhw, cin, cout = _shrink_to_fit([n, dhw, cin, cout], flops, limit)
    dhw = max(dhw, kernel)
    params = {"n": n, "dhw": dhw, "cin": cin, "cout": cout, "kernel": kernel,
              "stride": stride, "dtype": dtype}
    return KernelSpec("conv3d", variant, dtype, params, _bucket(flops([n, dhw, cin, cout])))


@builder("conv3d", *CONV3D_VARIANTS)
def _build_conv3d(p: dict[str, Any]):
    from jax import lax

    n, d, cin, cout, kk, stride = p["n"], p["dhw"], p["cin"], p["cout"], p["kernel"], p["stride"]
    dtype = p["dtype"]
    dn = ("NDHWC", "DHWIO", "NDHWC")
    x_shape, w_shape = (n, d, d, d, cin), (kk, kk, kk, cin, cout)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (stride,) * 3, "SAME", dimension_numbers=dn)

    return _conv_pass(conv, p["variant"], x_shape, w_shape, dtype)


# --------------------------------------------------------------------------- scans and top-k
SCAN_VARIANTS = ("cumsum_last", "cumsum_first", "cummax_last", "cumprod_last")


def sample_scan(rng: np.random.Generator) -> KernelSpec:
    """Cumulative reductions (jnp.cumsum and friends): a reduce_window as wide as its
    axis, which XLA rewrites into a tiled scan."""
    variant = str(rng.choice(SCAN_VARIANTS, p=[0.4, 0.2, 0.2, 0.2]))
    dtype = str(rng.choice(["f32", "bf16", "i32"], p=[0.6, 0.2, 0.2]))
    if variant == "cumprod_last" and dtype == "i32":
        dtype = "f32"
    length = _maybe_round(rng, log_uniform_int(rng, 17, 1 << 15))
    rows = log_uniform_int(rng, 1, 4096)
    rows, length = _shrink_to_fit([rows, length], lambda s: float(s[0] * s[1]), MAX_BYTES / 16)
    length = max(length, 17)
    shape = [length, rows] if variant == "cumsum_first" else [rows, length]
    params = {"shape": shape, "dtype": dtype}
    return KernelSpec("scan", variant, dtype, params, _bucket(rows * length))


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


def sample_top_k(rng: np.random.Generator) -> KernelSpec:
    """lax.top_k over the last axis (beam search, MoE routing, retrieval scorers)."""
    dtype = str(rng.choice(["f32", "bf16"], p=[0.8, 0.2]))
    length = _maybe_round(rng, log_uniform_int(rng, 16, 1 << 17))
    rows = log_uniform_int(rng, 1, 2048)
    # bf16 top-k is a full sort on XLA:CPU (f32 has a dedicated kernel): 100x slower
    limit = 4e6 if dtype == "f32" else 2e5
    rows, length = _shrink_to_fit([rows, length], lambda s: float(s[0] * s[1]), limit)
    length = max(length, 2)
    k = min(length, int(rng.choice([1, 2, 4, 8, 10, 32, 64, 100, 256])))
    params = {"rows": rows, "length": length, "k": k, "dtype": dtype}
    return KernelSpec("top_k", "top_k", dtype, params, _bucket(rows * length))


@builder("top_k", "top_k")
def _build_top_k(p: dict[str, Any]):
    from jax import lax

    k = p["k"]
    return (lambda x: lax.top_k(x, k), [ArgSpec((p["rows"], p["length"]), p["dtype"])])


# --------------------------------------------------------------------------- bitwise and random bits
BITWISE_VARIANTS = ("xor", "shift_right_logical", "rotate", "random_bits", "dropout")


def sample_bitwise(rng: np.random.Generator) -> KernelSpec:
    """Integer bit manipulation: what a counter-based RNG (threefry, behind dropout and
    every jax.random draw inside a step) is made of, and whole random-bit draws."""
    variant = str(rng.choice(BITWISE_VARIANTS, p=[0.2, 0.2, 0.2, 0.2, 0.2]))
    dtype = "f32" if variant == "dropout" else "u32"
    # a random draw is ~20 integer ops per element: smaller arrays than plain ones
    shape = _random_shape(rng, 1e3, MAX_BYTES / 16)
    if variant in ("random_bits", "dropout"):
        shape = _shrink_to_fit(shape, lambda sh: float(_elems(sh)), MAX_BYTES / 64)
    params = {"shape": shape, "dtype": dtype, "rate": float(rng.choice([0.1, 0.2, 0.5]))}
    return KernelSpec("bitwise", variant, dtype, params, _bucket(_elems(shape)))


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


# --------------------------------------------------------------------------- complex arithmetic
COMPLEX_VARIANTS = ("multiply", "add", "abs", "make_complex", "real_part")


def sample_complex(rng: np.random.Generator) -> KernelSpec:
    """Elementwise complex64 arithmetic: what sits between the FFTs of a spectral layer."""
    variant = str(rng.choice(COMPLEX_VARIANTS))
    shape = _random_shape(rng, 1e3, MAX_BYTES / 32)
    params = {"shape": shape, "dtype": "c64"}
    return KernelSpec("complex", variant, "c64", params, _bucket(_elems(shape)))


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


# --------------------------------------------------------------------------- pooling gradients
POOL_GRAD_VARIANTS = ("max_pool_grad", "avg_pool_grad")


def sample_pool_grad(rng: np.random.Generator) -> KernelSpec:
    """The backward pass of 2-D pooling: max pooling's is a select_and_scatter."""
    dtype = str(rng.choice(["f32", "bf16"], p=[0.7, 0.3]))
    variant = str(rng.choice(POOL_GRAD_VARIANTS))
    # select_and_scatter runs at ~25 ns per element on XLA:CPU: smaller inputs
    params = _pool_params(rng, dtype, MAX_BYTES / 16)
    return KernelSpec("pool_grad", variant, dtype, params, _bucket(_elems(params["shape"])))


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


# --------------------------------------------------------------------------- fused patterns
FUSED = ("dot_bias_gelu", "dot_bias_relu", "elementwise_chain", "softmax", "layernorm",
         "reduce_of_product")


def sample_fused(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16", "f16"], p=[0.6, 0.25, 0.15]))
    variant = str(rng.choice(FUSED))
    if variant.startswith("dot"):
        m, n, k = (_maybe_round(rng, log_uniform_int(rng, 16, 2048)) for _ in range(3))
        limit = MAX_FLOPS if dtype == "f32" else MAX_FLOPS / 8
        m, n, k = _shrink_to_fit([m, n, k], lambda s: 2.0 * s[0] * s[1] * s[2], limit)
        params: dict[str, Any] = {"m": m, "n": n, "k": k, "dtype": dtype}
        return KernelSpec("fused", variant, dtype, params, _bucket(2.0 * m * n * k))
    shape = _random_shape(rng, 1e3, MAX_BYTES / 16, max_rank=3)
    if len(shape) == 1:
        shape = [max(1, shape[0] // 128), 128]
    params = {"shape": shape, "dtype": dtype}
    if variant == "elementwise_chain":
        params["ops"] = [str(o) for o in rng.choice(["add", "mul", "max", "exp", "tanh", "neg"],
                                                    size=int(rng.integers(2, 7)))]
    return KernelSpec("fused", variant, dtype, params, _bucket(_elems(shape)))


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
                x = _apply(op, x, y) if op in BINARY else _apply(op, x)
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


# --------------------------------------------------------------------------- registry
SAMPLERS: dict[str, Sampler] = {
    "dot_general": sample_dot,
    "convolution": sample_conv,
    "fused": sample_fused,
    "elementwise": sample_elementwise,
    "transcendental": sample_transcendental,
    "data_movement": sample_movement,
    "reduce": sample_reduce,
    "reduce_window": sample_reduce_window,
    "gather_scatter": sample_gather,
    "sort": sample_sort,
    "select_compare": sample_select,
    "convert": sample_convert,
    "iota": sample_iota,
    "fft": sample_fft,
    "conv3d": sample_conv3d,
    "scan": sample_scan,
    "top_k": sample_top_k,
    "bitwise": sample_bitwise,
    "complex": sample_complex,
    "pool_grad": sample_pool_grad,
}
# How often each family comes up in a sweep: the families that dominate step time
# (matmuls, convolutions, fused epilogues and normalizations) get more samples.
WEIGHTS = {"dot_general": 3, "convolution": 3, "fused": 3, "elementwise": 2,
           "transcendental": 1, "data_movement": 2, "reduce": 2, "reduce_window": 1,
           "gather_scatter": 1, "sort": 1, "select_compare": 1, "convert": 1, "iota": 1,
           "fft": 1, "conv3d": 1, "scan": 1, "top_k": 1, "bitwise": 1, "complex": 1,
           "pool_grad": 1}
FAMILIES = tuple(SAMPLERS)


def schedule(families: tuple[str, ...]) -> list[str]:
    """One round of the sweep: families interleaved by weight, so any prefix of the
    sweep (a short budget) covers every requested family."""
    rounds = max(WEIGHTS[f] for f in families)
    order = []
    for r in range(rounds):
        order.extend(f for f in families if WEIGHTS[f] > r)
    return order


def kernel_spec(index: int, seed: int, families: tuple[str, ...]) -> KernelSpec:
    """The `index`-th sample of the sweep with this seed (deterministic)."""
    order = schedule(families)
    family = order[index % len(order)]
    rng = np.random.default_rng([seed, index])
    spec = SAMPLERS[family](rng)
    return KernelSpec(spec.family, spec.variant, spec.dtype,
                      {**spec.params, "variant": spec.variant}, spec.size_bucket)
