"""Scaled dot-product attention with grouped-query heads (prefill and decode,
causal and sliding-window masks, quantized kv caches), with its work.
"""

from __future__ import annotations

import math
from functools import lru_cache

from .mlir import NEG_INF_F32, Work, module_text, nbytes


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
    return _skeleton(module_text("attention", [q_t, k_t_in, k_t_in], results, body, returns))


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


def fused_attention(batch: int, heads: int, kv_heads: int, q_len: int, kv_len: int,
                    head_dim: int, *, compute: str = "bf16", causal: bool = False,
                    window: int = 0) -> str:
    """The same attention as one fused flash-attention kernel, as XLA:GPU runs
    `jax.nn.dot_product_attention(..., implementation="cudnn")`: a `__cudnn$fmhaSoftmax`
    custom call on q `[b, q_len, heads, d]`, k and v `[b, kv_len, kv_heads, d]` (jax's
    BTNH layout), returning o `[b, heads, q_len, d]` and cuDNN's empty workspace. Its
    backend config carries what the cost rule reads (`featurize.attributes`): the score
    shape `[b, heads, q_len, kv_len]`, the mask (`CAUSAL`: cuDNN's top-left aligned
    mask, exact here where q_len == kv_len; decode's single query sees every key, so
    `causal` with q_len == 1 is `NO_MASK`) and the sliding window.

    Example (a 2-token causal prefill, one head of 4): the score shape is [1, 1, 2, 2]
    and the cost rule counts 3 visible (query, key) pairs."""
    if heads % kv_heads:
        raise ValueError(f"heads={heads} is not a multiple of kv_heads={kv_heads}")
    if causal and q_len not in (1, kv_len):
        raise ValueError(f"causal fused attention needs q_len == kv_len (or 1), got "
                         f"q_len={q_len}, kv_len={kv_len}: cuDNN's mask is top-left aligned")
    mask = "CAUSAL" if causal and q_len > 1 else "NO_MASK"
    reach = window if causal and 0 < window < kv_len else 0
    q_t = f"tensor<{batch}x{q_len}x{heads}x{head_dim}x{compute}>"
    k_t = f"tensor<{batch}x{kv_len}x{kv_heads}x{head_dim}x{compute}>"
    o_t = f"tensor<{batch}x{heads}x{q_len}x{head_dim}x{compute}>"
    config = (
        '{"operation_queue_id": "0", "cudnn_fmha_backend_config": {'
        f'"fmha_scale": {1.0 / math.sqrt(head_dim):.9e}, "intermediate_tensor_shape": '
        f'{{"element_type": "{compute.upper()}", "dimensions": ["{batch}", "{heads}", '
        f'"{q_len}", "{kv_len}"]}}, "is_flash_attention": true, "mask_type": "{mask}", '
        f'"dropout_rate": 0.0, "sliding_window_length": {reach}}}}}')
    escaped = config.replace('"', "\\22")
    body = [f"%0:2 = stablehlo.custom_call @__cudnn$fmhaSoftmax(%arg0, %arg1, %arg2) "
            f'{{api_version = 2 : i32, backend_config = "{escaped}"}} : '
            f"({q_t}, {k_t}, {k_t}) -> ({o_t}, tensor<0xui8>)"]
    return module_text("fused_attention", [q_t, k_t, k_t], [o_t], body, ["%0#0"])
