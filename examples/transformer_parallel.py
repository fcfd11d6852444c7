"""One transformer block training step, parallelized over a ("data", "model") mesh two
ways: sharded by annotations (the partitioner inserts the collectives) and written with
`jax.shard_map` (the collectives are explicit: Megatron-style tensor parallelism over
"model", data parallelism over "data").

Neither needs devices: `stablecost.load_program(step, *args, mesh=...)` lowers the
function under an abstract mesh of the requested shape. The arguments are
`jax.ShapeDtypeStruct`s whose `sharding` is a bare `PartitionSpec`.

    from examples.transformer_parallel import annotated_step, shard_map_step
    step, args = annotated_step(batch=16)
    program = stablecost.load_program(step, *args, mesh={"data": 4, "model": 2})
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

DATA, MODEL = "data", "model"


def _shapes(d_model: int, heads: int, ffn: int) -> dict[str, tuple[int, ...]]:
    head_dim = d_model // heads
    return {"ln1": (d_model,), "ln2": (d_model,), "wq": (d_model, heads, head_dim),
            "wk": (d_model, heads, head_dim), "wv": (d_model, heads, head_dim),
            "wo": (heads, head_dim, d_model), "w1": (d_model, ffn), "w2": (ffn, d_model)}


# Megatron layout: attention heads and the FFN hidden dimension split over "model".
PARAM_SPECS = {"ln1": P(), "ln2": P(), "wq": P(None, MODEL, None), "wk": P(None, MODEL, None),
               "wv": P(None, MODEL, None), "wo": P(MODEL, None, None), "w1": P(None, MODEL),
               "w2": P(MODEL, None)}
BATCH_SPEC = P(DATA, None, None)


def _layer_norm(x, scale):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale


def _block(p, x, psum_model=None):
    """The block; `psum_model` sums the partial results of the row-parallel matmuls
    (shard_map), or None when the partitioner does it (annotations)."""
    reduce = psum_model or (lambda y: y)
    seq = x.shape[1]
    head_dim = p["wq"].shape[-1]
    h = _layer_norm(x, p["ln1"])
    q, k, v = (jnp.einsum("bsd,dhk->bshk", h, p[n]) for n in ("wq", "wk", "wv"))
    scores = jnp.einsum("bqhk,bshk->bhqs", q, k) / jnp.sqrt(head_dim).astype(x.dtype)
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    scores = jnp.where(mask, scores, jnp.finfo(x.dtype).min)
    attn = jax.nn.softmax(scores.astype(jnp.float32), axis=-1).astype(x.dtype)
    out = jnp.einsum("bhqs,bshk->bqhk", attn, v)
    x = x + reduce(jnp.einsum("bqhk,hkd->bqd", out, p["wo"]))
    h = _layer_norm(x, p["ln2"])
    return x + reduce(jax.nn.gelu(h @ p["w1"]) @ p["w2"])


def _sgd(params, grads):
    return jax.tree.map(lambda a, g: a - 1e-3 * g.astype(a.dtype), params, grads)


def _args(batch, seq, d_model, heads, ffn, dtype, with_specs):
    def sds(shape, dt, spec):
        return jax.ShapeDtypeStruct(shape, dt, sharding=spec if with_specs else None)

    params = {n: sds(s, dtype, PARAM_SPECS[n]) for n, s in _shapes(d_model, heads, ffn).items()}
    x = sds((batch, seq, d_model), dtype, BATCH_SPEC)
    target = sds((batch, seq, d_model), jnp.float32, BATCH_SPEC)
    return params, x, target


def annotated_step(batch: int = 16, seq: int = 128, d_model: int = 256, heads: int = 8,
                   ffn: int = 1024, dtype=jnp.bfloat16):
    """(step, args): the training step, sharded by annotations on the arguments."""
    def loss_fn(p, x, target):
        return jnp.mean((_block(p, x).astype(jnp.float32) - target) ** 2)

    def step(params, x, target):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, target)
        return _sgd(params, grads), loss

    return step, _args(batch, seq, d_model, heads, ffn, dtype, with_specs=True)


def shard_map_step(batch: int = 16, seq: int = 128, d_model: int = 256, heads: int = 8,
                   ffn: int = 1024, dtype=jnp.bfloat16):
    """(step, args): the same model and layout written with `jax.shard_map`: psum over
    "model" after the row-parallel matmuls, gradients all-reduced over "data"."""
    def local_loss(p, x, target):
        y = _block(p, x, psum_model=lambda t: jax.lax.psum(t, MODEL))
        return jnp.mean((y.astype(jnp.float32) - target) ** 2)

    def local_step(params, x, target):
        loss, grads = jax.value_and_grad(local_loss)(params, x, target)
        grads = jax.lax.pmean(grads, DATA)
        return _sgd(params, grads), jax.lax.pmean(loss, DATA)

    step = jax.shard_map(local_step, in_specs=(PARAM_SPECS, BATCH_SPEC, BATCH_SPEC),
                         out_specs=(PARAM_SPECS, P()))
    return step, _args(batch, seq, d_model, heads, ffn, dtype, with_specs=False)
