"""StableHLO text for the kernels that public GPU measurements time.

Importers turn millions of measured rows into programs, so the text is built from
f-string templates here instead of lowering through JAX (which costs milliseconds per
program). Every template is checked in `tests/test_importers.py` to parse with
`load_program` and to have the FLOPs and bytes that `analyze` counts, against
hand-worked values.

Each builder is cached on its arguments: a sweep over a few thousand distinct shapes
builds each text once. The `*_work` helpers give the *effective* work of the measured
kernel (FLOPs it must do, bytes it must move at least) for outlier checks; they can be
smaller than what `analyze` counts on the dense program (a causal mask still computes
the masked half densely in StableHLO, a flash-attention kernel skips it).

Conventions (those of the programs JAX emits):
- one public `@main`, module attributes `mhlo.num_partitions` / `mhlo.num_replicas`;
- element types in MLIR spelling (`bf16`, `f16`, `f32`, `f8E4M3FN`, `f4E2M1FN`, `i8`,
  `i4`, `i32`);
- a collective is written as the per-device program XLA's partitioner produces: one
  replica group `[[0, 1, ..., n-1]]` over `n` partitions, `use_global_device_ids`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

from ..dtypes import bits_per_element

_HEAD = ("module @{name} attributes {{mhlo.num_partitions = {parts} : i32, "
         "mhlo.num_replicas = 1 : i32}} {{\n")
NEG_INF_F32 = "0xFF800000"


def _t(shape: tuple[int, ...] | list[int], dtype: str) -> str:
    if not shape:
        return f"tensor<{dtype}>"
    return f"tensor<{'x'.join(map(str, shape))}x{dtype}>"


def nbytes(shape: tuple[int, ...] | list[int], dtype: str) -> float:
    """Storage bytes of a tensor (sub-byte types packed)."""
    bits = bits_per_element(dtype)
    if bits is None:
        raise ValueError(f"unknown element type {dtype!r}")
    return math.prod(shape) * bits / 8


def _module(name: str, args: list[str], results: list[str], body: list[str],
            returns: list[str], parts: int = 1) -> str:
    sig = ", ".join(f"%arg{i}: {a}" for i, a in enumerate(args))
    res = results[0] if len(results) == 1 else f"({', '.join(results)})"
    lines = [_HEAD.format(name=name, parts=parts),
             f"  func.func public @main({sig}) -> {res} {{\n"]
    lines.extend(f"    {line}\n" for line in body)
    lines.append(f"    return {', '.join(returns)} : {', '.join(results)}\n  }}\n}}\n")
    return "".join(lines)


class Work(NamedTuple):
    """What the measured kernel must do at least: FLOPs and DRAM bytes."""

    flops: float
    bytes: float


# -- GEMM ----------------------------------------------------------------------------
@lru_cache(maxsize=65536)
def gemm(m: int, n: int, k: int, *, lhs: str = "bf16", rhs: str = "bf16",
         result: str = "bf16", out: str | None = None, dequant_rhs: bool = False) -> str:
    """`[m,k] x [k,n]`. `dequant_rhs`: the weight is stored in `rhs` and converted to
    `lhs` before the dot (weight-only quantization). `out`: convert the dot's `result`
    type to `out` afterwards (an int32 accumulator scaled back to bf16)."""
    a, b = _t((m, k), lhs), _t((k, n), rhs)
    body = []
    w = "%arg1"
    if dequant_rhs:
        body.append(f"%w = stablehlo.convert %arg1 : ({b}) -> {_t((k, n), lhs)}")
        w, b = "%w", _t((k, n), lhs)
    r = _t((m, n), result)
    body.append(f"%0 = stablehlo.dot_general %arg0, {w}, contracting_dims = [1] x [0] : "
                f"({a}, {b}) -> {r}")
    ret, final = "%0", r
    if out is not None and out != result:
        final = _t((m, n), out)
        body.append(f"%1 = stablehlo.convert %0 : ({r}) -> {final}")
        ret = "%1"
    return _module("gemm", [a, _t((k, n), rhs)], [final], body, [ret])


def gemm_work(m: int, n: int, k: int, *, lhs: str = "bf16", rhs: str = "bf16",
              out: str = "bf16") -> Work:
    """2mnk FLOPs; reads A and B once and writes C once."""
    return Work(2.0 * m * n * k,
                nbytes((m, k), lhs) + nbytes((k, n), rhs) + nbytes((m, n), out))


# -- attention -------------------------------------------------------------------------
def _slot(name: str) -> str:
    """A placeholder in a skeleton (see `_skeleton`)."""
    return f"\x00{name}\x00"


_Skeleton = tuple[tuple[str, ...], tuple[str, ...]]    # (literal pieces, slot names)


def _skeleton(text: str) -> _Skeleton:
    """Split text with `_slot` placeholders into (literal pieces, slot names): filling
    it is one join (`_fill`), much faster than `str.format` on a 3 kB template."""
    pieces = text.split("\x00")
    return tuple(pieces[0::2]), tuple(pieces[1::2])


def _fill(skeleton: _Skeleton, values: dict[str, str]) -> str:
    literals, names = skeleton
    out = [literals[0]]
    for name, literal in zip(names, literals[1:]):
        out.append(values[name])
        out.append(literal)
    return "".join(out)


@lru_cache(maxsize=65536)
def attention(batch: int, heads: int, kv_heads: int, q_len: int, kv_len: int,
              head_dim: int, *, compute: str = "bf16", kv_store: str = "bf16",
              out: str = "bf16", causal: bool = False, window: int = 0,
              cache_write: bool = False) -> str:
    """softmax(q kᵀ / sqrt(d)) v with grouped-query heads, as `jax.nn.dot_product_attention`
    writes it: q is `[b, kv_heads, group, q_len, d]` (group = heads / kv_heads), k and v
    are `[b, kv_heads, kv_len, d]`, and both dots batch over (b, kv_heads), so the kv
    heads are shared by their query group without being copied.

    - k/v are stored in `kv_store` and converted to `compute` when the two differ;
      with `cache_write` (prefill into a quantized cache) the program instead takes k/v
      in `compute` and also returns them converted to `kv_store`;
    - scores and softmax in f32, probabilities converted to `compute` for the second
      dot, the result converted to `out`;
    - `causal` masks key j > query i (queries are the last `q_len` of `kv_len`
      positions); `window` > 0 additionally masks keys more than `window - 1` before
      the query (sliding-window attention).
    """
    if heads % kv_heads:
        raise ValueError(f"heads={heads} is not a multiple of kv_heads={kv_heads}")
    if window > 0 and not causal:
        raise ValueError("a sliding window needs causal=True (decode: pass the last "
                         "`window` keys as kv_len instead)")
    windowed = 0 < window < kv_len
    masked = (causal and q_len > 1) or windowed
    skeleton = _attention_skeleton(compute, kv_store, out, masked, windowed, cache_write)
    g = heads // kv_heads
    r = f"tensor<{batch}x{kv_heads}x{g}x{q_len}x"          # the row dims of q, o, scores
    k = f"tensor<{batch}x{kv_heads}x{kv_len}x{head_dim}x"
    s = f"{r}{kv_len}x"
    m = f"tensor<{q_len}x{kv_len}x"
    q = f"{r}{head_dim}x"
    return _fill(skeleton, dict(
        q=f"{q}{compute}>", k_in=f"{k}{compute if cache_write else kv_store}>",
        k=f"{k}{compute}>", kc=f"{k}{kv_store}>", s=f"{s}f32>", sb=f"{s}i1>",
        sc=f"{s}{compute}>", r=f"{r}f32>", o=f"{q}{out}>", o32=f"{q}f32>",
        mi=f"{m}i32>", mb=f"{m}i1>",
        scale=f"{1.0 / math.sqrt(head_dim):.9e}", offset=str(kv_len - q_len),
        window=str(window)))


@lru_cache(maxsize=256)
def _attention_skeleton(compute: str, kv_store: str, out: str, masked: bool,
                        windowed: bool, cache_write: bool) -> "_Skeleton":
    """The attention program with its shapes left as slots (see `_skeleton`)."""
    q_t, k_t_in, k_t, kc_t = _slot("q"), _slot("k_in"), _slot("k"), _slot("kc")
    s_t, sb_t, sc_t, r_t = _slot("s"), _slot("sb"), _slot("sc"), _slot("r")
    o_t, o32, m_i, m_b = _slot("o"), _slot("o32"), _slot("mi"), _slot("mb")
    k_in = compute if cache_write else kv_store
    body: list[str] = []
    k, v = "%arg1", "%arg2"
    if k_in != compute:
        body += [f"%k = stablehlo.convert %arg1 : ({k_t_in}) -> {k_t}",
                 f"%v = stablehlo.convert %arg2 : ({k_t_in}) -> {k_t}"]
        k, v = "%k", "%v"
    body += [
        f"%s0 = stablehlo.dot_general %arg0, {k}, batching_dims = [0, 1] x [0, 1], "
        f"contracting_dims = [4] x [3] : ({q_t}, {k_t}) -> {s_t}",
        f"%scale = stablehlo.constant dense<{_slot('scale')}> : tensor<f32>",
        f"%scale_b = stablehlo.broadcast_in_dim %scale, dims = [] : (tensor<f32>) -> {s_t}",
        f"%s1 = stablehlo.multiply %s0, %scale_b : {s_t}",
    ]
    scores = "%s1"
    if masked:
        body += [f"%qi = stablehlo.iota dim = 0 : {m_i}",
                 f"%kj = stablehlo.iota dim = 1 : {m_i}",
                 f"%off = stablehlo.constant dense<{_slot('offset')}> : {m_i}",
                 f"%qp = stablehlo.add %qi, %off : {m_i}",
                 f"%vis = stablehlo.compare GE, %qp, %kj, SIGNED : ({m_i}, {m_i}) -> {m_b}"]
        mask = "%vis"
        if windowed:
            body += [f"%dist = stablehlo.subtract %qp, %kj : {m_i}",
                     f"%win = stablehlo.constant dense<{_slot('window')}> : {m_i}",
                     f"%inw = stablehlo.compare LT, %dist, %win, SIGNED : "
                     f"({m_i}, {m_i}) -> {m_b}",
                     f"%vis2 = stablehlo.and %vis, %inw : {m_b}"]
            mask = "%vis2"
        body += [f"%mask = stablehlo.broadcast_in_dim {mask}, dims = [3, 4] : "
                 f"({m_b}) -> {sb_t}",
                 f"%ninf = stablehlo.constant dense<{NEG_INF_F32}> : tensor<f32>",
                 f"%ninf_b = stablehlo.broadcast_in_dim %ninf, dims = [] : "
                 f"(tensor<f32>) -> {s_t}",
                 f"%s2 = stablehlo.select %mask, %s1, %ninf_b : {sb_t}, {s_t}"]
        scores = "%s2"
    body += [
        f"%init_max = stablehlo.constant dense<{NEG_INF_F32}> : tensor<f32>",
        f"%mx = stablehlo.reduce({scores} init: %init_max) applies stablehlo.maximum across "
        f"dimensions = [4] : ({s_t}, tensor<f32>) -> {r_t}",
        f"%mx_b = stablehlo.broadcast_in_dim %mx, dims = [0, 1, 2, 3] : ({r_t}) -> {s_t}",
        f"%e0 = stablehlo.subtract {scores}, %mx_b : {s_t}",
        f"%e1 = stablehlo.exponential %e0 : {s_t}",
        "%init_sum = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
        f"%sm = stablehlo.reduce(%e1 init: %init_sum) applies stablehlo.add across "
        f"dimensions = [4] : ({s_t}, tensor<f32>) -> {r_t}",
        f"%sm_b = stablehlo.broadcast_in_dim %sm, dims = [0, 1, 2, 3] : ({r_t}) -> {s_t}",
        f"%p = stablehlo.divide %e1, %sm_b : {s_t}",
    ]
    p = "%p"
    if compute != "f32":
        body.append(f"%pc = stablehlo.convert %p : ({s_t}) -> {sc_t}")
        p = "%pc"
    body.append(f"%o = stablehlo.dot_general {p}, {v}, batching_dims = [0, 1] x [0, 1], "
                f"contracting_dims = [4] x [2] : ({sc_t}, {k_t}) -> {o32}")
    ret = "%o"
    if out != "f32":
        body.append(f"%oc = stablehlo.convert %o : ({o32}) -> {o_t}")
        ret = "%oc"
    results, returns = [o_t], [ret]
    if cache_write and kv_store != compute:
        body += [f"%kc = stablehlo.convert %arg1 : ({k_t}) -> {kc_t}",
                 f"%vc = stablehlo.convert %arg2 : ({k_t}) -> {kc_t}"]
        results += [kc_t, kc_t]
        returns += ["%kc", "%vc"]
    return _skeleton(_module("attention", [q_t, k_t_in, k_t_in], results, body, returns))


def visible_pairs(q_len: int, kv_len: int, *, causal: bool, window: int = 0) -> int:
    """(query, key) pairs one head computes. Queries are the last `q_len` of `kv_len`
    positions; the query at position p sees keys 0..p when `causal` (all keys when
    not), and of those only the last `window` when `window` > 0."""
    cap = window if window > 0 else None
    if not causal:
        return q_len * (min(kv_len, cap) if cap else kv_len)
    offset = kv_len - q_len
    return _sum_min(offset + 1, offset + q_len, cap)


def _sum_min(first: int, last: int, cap: int | None) -> int:
    """sum over x in [first, last] of min(x, cap)."""
    def tri(a: int, b: int) -> int:
        return (a + b) * (b - a + 1) // 2 if b >= a else 0
    if cap is None or cap >= last:
        return tri(first, last)
    if cap < first:
        return cap * (last - first + 1)
    return tri(first, cap) + cap * (last - cap)


def attention_work(batch: int, heads: int, kv_heads: int, q_len: int, kv_len: int,
                   head_dim: int, *, compute: str = "bf16", kv_store: str = "bf16",
                   out: str = "bf16", causal: bool = False, window: int = 0,
                   cache_write: bool = False) -> Work:
    """4·b·h·d per visible (query, key) pair; reads q, k, v once, writes o (and the
    quantized cache when `cache_write`)."""
    pairs = visible_pairs(q_len, kv_len, causal=causal, window=window)
    flops = 4.0 * batch * heads * head_dim * pairs
    qs = (batch, heads, q_len, head_dim)
    ks = (batch, kv_heads, kv_len, head_dim)
    k_in = compute if cache_write else kv_store
    moved = nbytes(qs, compute) + 2 * nbytes(ks, k_in) + nbytes(qs, out)
    if cache_write and kv_store != compute:
        moved += 2 * nbytes(ks, kv_store)
    return Work(flops, moved)


# -- collectives ------------------------------------------------------------------------
COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")


@lru_cache(maxsize=4096)
def collective(op: str, elements: int, dtype: str, num_devices: int) -> str:
    """One collective over all `num_devices` devices, per-device program.

    `elements` is the size of the *larger* per-device buffer, the convention of
    nccl-tests (whose `size` aiconfigurator records): all_reduce and all_to_all take
    and return `elements`; all_gather returns `elements` (takes elements / n);
    reduce_scatter takes `elements` (returns elements / n)."""
    n = num_devices
    if op not in COLLECTIVES:
        raise ValueError(f"collective {op!r}; allowed: {COLLECTIVES}")
    if op != "all_reduce" and elements % n:
        raise ValueError(f"{op} of {elements} elements does not split over {n} devices")
    groups = f"dense<[[{', '.join(str(i) for i in range(n))}]]> : tensor<1x{n}xi64>"
    channel = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
    scalar = _t((), dtype)
    reducer = (f"({{\n    ^bb0(%a: {scalar}, %b: {scalar}):\n"
               f"      %r = stablehlo.add %a, %b : {scalar}\n"
               f"      stablehlo.return %r : {scalar}\n    }})")
    if op == "all_reduce":
        a = r = _t((elements,), dtype)
        line = (f'%0 = "stablehlo.all_reduce"(%arg0) <{{{channel}, replica_groups = {groups}, '
                f"use_global_device_ids}}> {reducer} : ({a}) -> {r}")
    elif op == "all_gather":
        a, r = _t((elements // n,), dtype), _t((elements,), dtype)
        line = (f'%0 = "stablehlo.all_gather"(%arg0) <{{all_gather_dim = 0 : i64, {channel}, '
                f"replica_groups = {groups}, use_global_device_ids}}> : ({a}) -> {r}")
    elif op == "reduce_scatter":
        a, r = _t((elements,), dtype), _t((elements // n,), dtype)
        line = (f'%0 = "stablehlo.reduce_scatter"(%arg0) <{{{channel}, replica_groups = '
                f"{groups}, scatter_dimension = 0 : i64, use_global_device_ids}}> {reducer} "
                f": ({a}) -> {r}")
    else:
        a = r = _t((elements,), dtype)
        line = (f'%0 = "stablehlo.all_to_all"(%arg0) <{{{channel}, concat_dimension = 0 : i64, '
                f"replica_groups = {groups}, split_count = {n} : i64, split_dimension = 0 : i64}}>"
                f" : ({a}) -> {r}")
    return _module(op, [a], [r], [line], ["%0"], parts=n)


def collective_bus_bytes(op: str, elements: int, dtype: str, num_devices: int) -> float:
    """Bytes each device sends (= receives) in a bandwidth-optimal algorithm: nccl-tests'
    "bus" bytes. all_reduce 2(n-1)/n·S, the others (n-1)/n·S, S = the larger buffer."""
    size = nbytes((elements,), dtype)
    share = (num_devices - 1) / num_devices
    return (2.0 if op == "all_reduce" else 1.0) * share * size


# -- NeuSight's fp32 PyTorch ops --------------------------------------------------------------
_BINARY = {"add": "add", "mul": "multiply", "div": "divide", "pow": "power"}
# Scalar operands of the `u` variants (PyTorch tensor-scalar kernels). The values are
# not recorded; pow's kernel name (the generic lambda of pow_tensor_scalar_kernel_impl)
# rules out the exponents PyTorch specializes (2, 3, -2, 0.5, -0.5, -1).
SCALAR_OPERAND = {"add": 1.0, "mul": 2.0, "div": 2.0, "pow": 1.5}


@lru_cache(maxsize=65536)
def elementwise(op: str, rows: int, cols: int, dtype: str = "f32") -> str:
    """NeuSight's vector ops on a `[rows, cols]` tensor: `add|mul|div|pow` of two
    tensors; `addu|mulu|divu|powu` of the tensor and a scalar; `relu`, `tanh`, `gelu`
    (exact, erf form: x/2·(1 + erf(x/√2))), `softmax` over the last dim, `ln`
    (layer norm over the last dim with weight and bias; returns y, mean and 1/std as
    PyTorch's training kernel writes them)."""
    x = _t((rows, cols), dtype)
    s = _t((), dtype)
    if op in _BINARY:
        body = [f"%0 = stablehlo.{_BINARY[op]} %arg0, %arg1 : {x}"]
        return _module(op, [x, x], [x], body, ["%0"])
    if op.endswith("u") and op[:-1] in _BINARY:
        c = SCALAR_OPERAND[op[:-1]]
        body = [f"%c = stablehlo.constant dense<{c:.6e}> : {s}",
                f"%cb = stablehlo.broadcast_in_dim %c, dims = [] : ({s}) -> {x}",
                f"%0 = stablehlo.{_BINARY[op[:-1]]} %arg0, %cb : {x}"]
        return _module(op, [x], [x], body, ["%0"])
    if op == "relu":
        body = [f"%c = stablehlo.constant dense<0.000000e+00> : {s}",
                f"%cb = stablehlo.broadcast_in_dim %c, dims = [] : ({s}) -> {x}",
                f"%0 = stablehlo.maximum %arg0, %cb : {x}"]
        return _module(op, [x], [x], body, ["%0"])
    if op == "tanh":
        return _module(op, [x], [x], [f"%0 = stablehlo.tanh %arg0 : {x}"], ["%0"])
    if op == "gelu":
        body = [f"%h = stablehlo.constant dense<5.000000e-01> : {s}",
                f"%hb = stablehlo.broadcast_in_dim %h, dims = [] : ({s}) -> {x}",
                f"%r = stablehlo.constant dense<7.071067690e-01> : {s}",
                f"%rb = stablehlo.broadcast_in_dim %r, dims = [] : ({s}) -> {x}",
                f"%one = stablehlo.constant dense<1.000000e+00> : {s}",
                f"%oneb = stablehlo.broadcast_in_dim %one, dims = [] : ({s}) -> {x}",
                f"%0 = stablehlo.multiply %arg0, %rb : {x}",
                f"%1 = chlo.erf %0 : {x} -> {x}",
                f"%2 = stablehlo.add %1, %oneb : {x}",
                f"%3 = stablehlo.multiply %arg0, %hb : {x}",
                f"%4 = stablehlo.multiply %3, %2 : {x}"]
        return _module(op, [x], [x], body, ["%4"])
    r = _t((rows,), dtype)
    if op == "softmax":
        body = [f"%ninf = stablehlo.constant dense<{NEG_INF_F32}> : {s}" if dtype == "f32"
                else f"%ninf = stablehlo.constant dense<-1.0e+30> : {s}",
                f"%mx = stablehlo.reduce(%arg0 init: %ninf) applies stablehlo.maximum across "
                f"dimensions = [1] : ({x}, {s}) -> {r}",
                f"%mxb = stablehlo.broadcast_in_dim %mx, dims = [0] : ({r}) -> {x}",
                f"%0 = stablehlo.subtract %arg0, %mxb : {x}",
                f"%1 = stablehlo.exponential %0 : {x}",
                f"%zero = stablehlo.constant dense<0.000000e+00> : {s}",
                f"%sm = stablehlo.reduce(%1 init: %zero) applies stablehlo.add across "
                f"dimensions = [1] : ({x}, {s}) -> {r}",
                f"%smb = stablehlo.broadcast_in_dim %sm, dims = [0] : ({r}) -> {x}",
                f"%2 = stablehlo.divide %1, %smb : {x}"]
        return _module(op, [x], [x], body, ["%2"])
    if op == "ln":
        h = _t((cols,), dtype)
        body = [f"%zero = stablehlo.constant dense<0.000000e+00> : {s}",
                f"%n = stablehlo.constant dense<{float(cols):.6e}> : {r}",
                f"%eps = stablehlo.constant dense<9.99999974E-6> : {r}",
                f"%sum = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across "
                f"dimensions = [1] : ({x}, {s}) -> {r}",
                f"%mean = stablehlo.divide %sum, %n : {r}",
                f"%meanb = stablehlo.broadcast_in_dim %mean, dims = [0] : ({r}) -> {x}",
                f"%d = stablehlo.subtract %arg0, %meanb : {x}",
                f"%d2 = stablehlo.multiply %d, %d : {x}",
                f"%ss = stablehlo.reduce(%d2 init: %zero) applies stablehlo.add across "
                f"dimensions = [1] : ({x}, {s}) -> {r}",
                f"%var = stablehlo.divide %ss, %n : {r}",
                f"%ve = stablehlo.add %var, %eps : {r}",
                f"%rstd = stablehlo.rsqrt %ve : {r}",
                f"%rstdb = stablehlo.broadcast_in_dim %rstd, dims = [0] : ({r}) -> {x}",
                f"%y0 = stablehlo.multiply %d, %rstdb : {x}",
                f"%gb = stablehlo.broadcast_in_dim %arg1, dims = [1] : ({h}) -> {x}",
                f"%y1 = stablehlo.multiply %y0, %gb : {x}",
                f"%bb = stablehlo.broadcast_in_dim %arg2, dims = [1] : ({h}) -> {x}",
                f"%y = stablehlo.add %y1, %bb : {x}"]
        return _module(op, [x, h, h], [x, r, r], body, ["%y", "%mean", "%rstd"])
    raise ValueError(f"unknown elementwise op {op!r}")


def elementwise_work(op: str, rows: int, cols: int, dtype: str = "f32") -> Work:
    """Bytes the kernel must move: each tensor operand read once, each result written."""
    x = nbytes((rows, cols), dtype)
    if op in _BINARY:
        return Work(rows * cols, 3 * x)
    if op == "ln":
        return Work(8.0 * rows * cols, 2 * x + 2 * nbytes((cols,), dtype)
                    + 2 * nbytes((rows,), dtype))
    return Work(rows * cols, 2 * x)


_HIGHEST = "precision = [HIGHEST, HIGHEST]"


@lru_cache(maxsize=65536)
def bmm(batch: int, m: int, n: int, k: int, dtype: str = "f32") -> str:
    """`torch.bmm`: `[b,m,k] x [b,k,n]`, fp32 without TF32 (precision HIGHEST)."""
    a, b, r = _t((batch, m, k), dtype), _t((batch, k, n), dtype), _t((batch, m, n), dtype)
    body = [f"%0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], "
            f"contracting_dims = [2] x [1], {_HIGHEST} : ({a}, {b}) -> {r}"]
    return _module("bmm", [a, b], [r], body, ["%0"])


@lru_cache(maxsize=65536)
def linear(batch: int, m: int, n: int, k: int, dtype: str = "f32") -> str:
    """`F.linear(x, w)` without bias: x `[b,m,k]`, w `[n,k]` (PyTorch's layout),
    y = x·wᵀ `[b,m,n]`, fp32 without TF32."""
    a, w, r = _t((batch, m, k), dtype), _t((n, k), dtype), _t((batch, m, n), dtype)
    body = [f"%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [1], "
            f"{_HIGHEST} : ({a}, {w}) -> {r}"]
    return _module("linear", [a, w], [r], body, ["%0"])


def conv2d_out(size: int, kernel: int, stride: int, padding: int) -> int:
    return (size + 2 * padding - kernel) // stride + 1


@lru_cache(maxsize=65536)
def conv2d(batch: int, c_in: int, c_out: int, kernel: int, size: int, stride: int,
           padding: int, dtype: str = "f32") -> str:
    """`F.conv2d` NCHW x OIHW -> NCHW on a square `size` input, square kernel, no bias,
    fp32 without TF32."""
    o = conv2d_out(size, kernel, stride, padding)
    x = _t((batch, c_in, size, size), dtype)
    w = _t((c_out, c_in, kernel, kernel), dtype)
    r = _t((batch, c_out, o, o), dtype)
    body = [f"%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]"
            f"->[b, f, 0, 1], window = {{stride = [{stride}, {stride}], pad = [[{padding}, "
            f"{padding}], [{padding}, {padding}]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} "
            f"{{batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = "
            f"[#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}} : ({x}, {w}) -> {r}"]
    return _module("conv2d", [x, w], [r], body, ["%0"])


@lru_cache(maxsize=65536)
def conv2d_flops(batch: int, c_in: int, c_out: int, kernel: int, size: int, stride: int,
                 padding: int) -> float:
    """2 x batch x c_in x c_out x (output, kernel) position pairs on real input, per the
    spatial dims (padding excluded): what `analyze` counts and the kernel must do."""
    o = conv2d_out(size, kernel, stride, padding)
    per_dim = sum(1 for y in range(o) for r in range(kernel)
                  if 0 <= y * stride + r - padding < size)
    return 2.0 * batch * c_in * c_out * per_dim * per_dim
