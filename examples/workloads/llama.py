"""LLaMA-3-style decoders: a training step (forward, causal-LM loss, backward, AdamW) sharded
FSDP, and the two inference steps (prefill of a prompt, one decode step with a KV cache)
sharded Megatron-style over the same devices.

The model is LLaMA 3's: RMSNorm, rotary position embeddings (theta 500,000), grouped-query
attention, a SwiGLU MLP, a 128,256-token vocabulary, and (as in LLaMA 3.2 1B/3B) the
output projection tied to the embedding. The layers are stacked and run by `jax.lax.scan`
(MaxText's `scan_layers`), so a program's size does not grow with its depth.

Training follows MaxText's defaults: float32 master weights and AdamW moments, bf16
activations and matmuls, a float32 loss, full rematerialization of each layer
(`jax.checkpoint`, MaxText's `remat_policy: full`). FSDP: every weight and optimizer
state is split over the "fsdp" axis along its model dimension, the batch along the same
axis, and the activations are held batch-sharded, so the partitioner all-gathers the
weights of each layer and reduce-scatters their gradients.

Attention is the plain formulation (the scores of every head materialized, as
`jax.nn.dot_product_attention(implementation="xla")`): StableHLO has no portable fused
attention op, so at sequence 4,096 the step is memory-bound where MaxText's flash
attention is not (benchmarks/RESULTS.md, "Workloads").

Nothing is allocated: the arguments are `jax.ShapeDtypeStruct`s whose `sharding` is a
bare `PartitionSpec`, lowered under an abstract mesh (see `workloads.lower`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

FSDP, MODEL = "fsdp", "model"
VOCAB = 128_256
ROPE_THETA = 500_000.0


@dataclass(frozen=True)
class LlamaConfig:
    """One decoder's shape. `mlp` is the SwiGLU hidden width; `kv_heads` < `heads` is GQA."""

    name: str
    d_model: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    mlp: int
    vocab: int = VOCAB

    @property
    def params_per_layer(self) -> int:
        attn = self.d_model * self.head_dim * (2 * self.heads + 2 * self.kv_heads)
        return attn + 3 * self.d_model * self.mlp + 2 * self.d_model   # + two RMSNorm scales

    @property
    def param_count(self) -> int:
        """Exact: tied embedding, the layers, the final RMSNorm."""
        return self.vocab * self.d_model + self.layers * self.params_per_layer + self.d_model


# 100M: the MaxText LLaMA-3 setting of the issue. 1B and 3B: LLaMA 3.2 1B and 3B exactly.
# 200M, 500M, 2B: on the same family's scaling (head_dim 128, 8 query heads per KV head
# where the width allows, MLP 3.5x the width as in the 100M), depth chosen for the size.
CONFIGS = {c.name: c for c in (
    LlamaConfig("100m", d_model=576, layers=7, heads=9, kv_heads=3, head_dim=128, mlp=2016),
    LlamaConfig("200m", d_model=768, layers=13, heads=6, kv_heads=2, head_dim=128, mlp=2688),
    LlamaConfig("500m", d_model=1280, layers=16, heads=10, kv_heads=2, head_dim=128, mlp=4480),
    LlamaConfig("1b", d_model=2048, layers=16, heads=32, kv_heads=8, head_dim=64, mlp=8192),
    LlamaConfig("2b", d_model=2560, layers=20, heads=20, kv_heads=4, head_dim=128, mlp=8960),
    LlamaConfig("3b", d_model=3072, layers=28, heads=24, kv_heads=8, head_dim=128, mlp=8192),
)}


def tiny(layers: int = 2, d_model: int = 64, heads: int = 8, kv_heads: int = 4,
         head_dim: int = 8, mlp: int = 128, vocab: int = 512) -> LlamaConfig:
    """A small config with the same structure, for tests."""
    return LlamaConfig("tiny", d_model, layers, heads, kv_heads, head_dim, mlp, vocab)


# -- the model ------------------------------------------------------------------------------

def _layer_shapes(c: LlamaConfig) -> dict[str, tuple[int, ...]]:
    L, d = c.layers, c.d_model
    return {"attn_norm": (L, d), "wq": (L, d, c.heads, c.head_dim),
            "wk": (L, d, c.kv_heads, c.head_dim), "wv": (L, d, c.kv_heads, c.head_dim),
            "wo": (L, c.heads, c.head_dim, d), "mlp_norm": (L, d), "w_gate": (L, d, c.mlp),
            "w_up": (L, d, c.mlp), "w_down": (L, c.mlp, d)}


def _rms_norm(x, scale):
    x32 = x.astype(jnp.float32)
    x32 = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + 1e-5)
    return (x32 * scale.astype(jnp.float32)).astype(x.dtype)


def _rope(x, positions):
    """Rotary embedding of x (b, s, h, k) at `positions` (b, s)."""
    half = x.shape[-1] // 2
    freq = ROPE_THETA ** (-jnp.arange(half, dtype=jnp.float32) / half)
    angle = positions[..., None].astype(jnp.float32) * freq           # (b, s, half)
    cos, sin = jnp.cos(angle)[:, :, None, :], jnp.sin(angle)[:, :, None, :]
    x1, x2 = x[..., :half].astype(jnp.float32), x[..., half:].astype(jnp.float32)
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).astype(x.dtype)


def _attention(q, k, v, mask):
    """GQA: q (b, s, h, k), k/v (b, t, g, k) with h = g x r; mask (b or 1, s, t)."""
    b, s, h, dk = q.shape
    g = k.shape[2]
    q = q.reshape(b, s, g, h // g, dk)
    scores = jnp.einsum("bsgrk,btgk->bgrst", q, k).astype(jnp.float32) / jnp.sqrt(dk)
    scores = jnp.where(mask[:, None, None], scores, -1e30)
    probs = jax.nn.softmax(scores, axis=-1).astype(v.dtype)
    return jnp.einsum("bgrst,btgk->bsgrk", probs, v).reshape(b, s, h, dk)


def _mlp(h, p):
    gate = jnp.einsum("bsd,dm->bsm", h, p["w_gate"])
    up = jnp.einsum("bsd,dm->bsm", h, p["w_up"])
    return jnp.einsum("bsm,md->bsd", jax.nn.silu(gate) * up, p["w_down"])


def _layer(x, p, positions, k, v, mask, constrain):
    """One decoder layer on x (b, s, d) given this layer's keys/values (b, t, g, k)."""
    out = _attention(_rope(jnp.einsum("bsd,dhk->bshk", _rms_norm(x, p["attn_norm"]), p["wq"]),
                           positions), k, v, mask)
    x = constrain(x + jnp.einsum("bshk,hkd->bsd", out, p["wo"]))
    return constrain(x + _mlp(_rms_norm(x, p["mlp_norm"]), p))


def _kv(x, p, positions):
    h = _rms_norm(x, p["attn_norm"])
    k = _rope(jnp.einsum("bsd,dgk->bsgk", h, p["wk"]), positions)
    return k, jnp.einsum("bsd,dgk->bsgk", h, p["wv"])


def _logits(x, params):
    x = _rms_norm(x, params["final_norm"])
    return jnp.einsum("bsd,vd->bsv", x, params["embed"].astype(x.dtype))


# -- training: FSDP --------------------------------------------------------------------------

def _train_specs(c: LlamaConfig) -> dict[str, Any]:
    # the model dimension of every weight is split over "fsdp"
    specs = {"attn_norm": P(), "mlp_norm": P(), "wq": P(None, FSDP), "wk": P(None, FSDP),
             "wv": P(None, FSDP), "wo": P(None, None, None, FSDP), "w_gate": P(None, FSDP),
             "w_up": P(None, FSDP), "w_down": P(None, None, FSDP)}
    return {"embed": P(None, FSDP), "final_norm": P(), "layers": specs}


def _param_shapes(c: LlamaConfig) -> dict[str, Any]:
    return {"embed": (c.vocab, c.d_model), "final_norm": (c.d_model,),
            "layers": _layer_shapes(c)}


def _abstract(shapes, specs, dtype):
    return jax.tree.map(lambda s, spec: jax.ShapeDtypeStruct(s, dtype, sharding=spec),
                        shapes, specs, is_leaf=lambda x: isinstance(x, tuple))


def train_step(c: LlamaConfig, devices: int, batch_per_device: int = 1, seq: int = 4096,
               remat: bool = True, dtype=jnp.bfloat16) -> tuple[Callable, tuple]:
    """(step, args): one AdamW training step of `c`, FSDP over `devices` on axis "fsdp"."""
    constrain = lambda x: jax.lax.with_sharding_constraint(x, P(FSDP))  # noqa: E731

    def loss_fn(params, tokens, targets):
        positions = jnp.broadcast_to(jnp.arange(tokens.shape[1]), tokens.shape)
        mask = jnp.tril(jnp.ones((tokens.shape[1],) * 2, bool))[None]
        cast = jax.tree.map(lambda w: w.astype(dtype), params)
        x = constrain(jnp.take(cast["embed"], tokens, axis=0))

        def body(x, p):
            k, v = _kv(x, p, positions)
            return _layer(x, p, positions, k, v, mask, constrain), None

        x, _ = jax.lax.scan(jax.checkpoint(body) if remat else body, x, cast["layers"])
        logits = _logits(x, cast).astype(jnp.float32)
        label = jnp.take_along_axis(logits, targets[..., None], axis=-1)[..., 0]
        return jnp.mean(jax.nn.logsumexp(logits, axis=-1) - label)

    def step(state, tokens, targets):
        loss, grads = jax.value_and_grad(loss_fn)(state["params"], tokens, targets)
        return _adamw(state, grads), loss

    specs = _train_specs(c)
    shapes = _param_shapes(c)
    params = _abstract(shapes, specs, jnp.float32)
    state = {"params": params, "mu": params, "nu": params,
             "count": jax.ShapeDtypeStruct((), jnp.int32, sharding=P())}
    tokens = jax.ShapeDtypeStruct((batch_per_device * devices, seq), jnp.int32,
                                  sharding=P(FSDP, None))
    return step, (state, tokens, tokens)


def _adamw(state, grads, lr=3e-4, b1=0.9, b2=0.95, eps=1e-8, weight_decay=0.1):
    count = state["count"] + 1
    t = count.astype(jnp.float32)
    mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state["mu"], grads)
    nu = jax.tree.map(lambda n, g: b2 * n + (1 - b2) * g * g, state["nu"], grads)

    def update(w, m, n):
        m_hat, n_hat = m / (1 - b1 ** t), n / (1 - b2 ** t)
        return w - lr * (m_hat / (jnp.sqrt(n_hat) + eps) + weight_decay * w)

    params = jax.tree.map(update, state["params"], mu, nu)
    return {"params": params, "mu": mu, "nu": nu, "count": count}


# -- inference: tensor parallel --------------------------------------------------------------

def _serve_specs() -> dict[str, Any]:
    # Megatron: heads and the MLP width over "model"; the vocabulary of the tied embedding
    specs = {"attn_norm": P(), "mlp_norm": P(), "wq": P(None, None, MODEL),
             "wk": P(None, None, MODEL), "wv": P(None, None, MODEL), "wo": P(None, MODEL),
             "w_gate": P(None, None, MODEL), "w_up": P(None, None, MODEL),
             "w_down": P(None, MODEL)}
    return {"embed": P(MODEL), "final_norm": P(), "layers": specs}


_CACHE_SPEC = P(None, None, None, MODEL)       # (layers, batch, positions, kv heads, head_dim)


def _serve_params(c: LlamaConfig, dtype):
    return _abstract(_param_shapes(c), _serve_specs(), dtype)


def prefill_step(c: LlamaConfig, devices: int, batch: int = 8, prompt: int = 4096,
                 cache_len: int = 4608, dtype=jnp.bfloat16) -> tuple[Callable, tuple]:
    """(step, args): run a `prompt`-token prompt through `c` (bf16 weights, tensor parallel
    over `devices` on axis "model"): the KV cache (`cache_len` positions, the prompt's
    written) and the next token's logits."""
    del devices  # the mesh sets it; the layout is the same for any model-axis size

    def step(params, tokens):
        positions = jnp.broadcast_to(jnp.arange(prompt), tokens.shape)
        mask = jnp.tril(jnp.ones((prompt, prompt), bool))[None]
        x = jnp.take(params["embed"], tokens, axis=0)

        def body(x, p):
            k, v = _kv(x, p, positions)
            x = _layer(x, p, positions, k, v, mask, lambda y: y)
            pad = ((0, 0), (0, cache_len - prompt), (0, 0), (0, 0))
            return x, (jnp.pad(k, pad), jnp.pad(v, pad))

        x, (k_cache, v_cache) = jax.lax.scan(body, x, params["layers"])
        k_cache = jax.lax.with_sharding_constraint(k_cache, _CACHE_SPEC)
        v_cache = jax.lax.with_sharding_constraint(v_cache, _CACHE_SPEC)
        return _logits(x[:, -1:], params), k_cache, v_cache

    tokens = jax.ShapeDtypeStruct((batch, prompt), jnp.int32, sharding=P())
    return step, (_serve_params(c, dtype), tokens)


def decode_step(c: LlamaConfig, devices: int, batch: int = 8, cache_len: int = 4608,
                dtype=jnp.bfloat16) -> tuple[Callable, tuple]:
    """(step, args): one decode step of `c`: one new token per sequence at position `pos`
    (a traced scalar; 4,096 after a 4,096-token prompt), attending to a `cache_len`-position
    KV cache (masked past `pos`), which it updates in place."""
    del devices

    def step(params, tokens, k_cache, v_cache, pos):
        positions = jnp.full(tokens.shape, pos)
        mask = (jnp.arange(cache_len) <= pos)[None, None]
        x = jnp.take(params["embed"], tokens, axis=0)

        def body(x, layer):
            p, k_all, v_all = layer
            k, v = _kv(x, p, positions)
            k_all = jax.lax.dynamic_update_slice_in_dim(k_all, k, pos, axis=1)
            v_all = jax.lax.dynamic_update_slice_in_dim(v_all, v, pos, axis=1)
            return _layer(x, p, positions, k_all, v_all, mask, lambda y: y), (k_all, v_all)

        x, (k_cache, v_cache) = jax.lax.scan(body, x, (params["layers"], k_cache, v_cache))
        return _logits(x, params), k_cache, v_cache

    cache = jax.ShapeDtypeStruct((c.layers, batch, cache_len, c.kv_heads, c.head_dim), dtype,
                                 sharding=_CACHE_SPEC)
    tokens = jax.ShapeDtypeStruct((batch, 1), jnp.int32, sharding=P())
    pos = jax.ShapeDtypeStruct((), jnp.int32, sharding=P())
    return step, (_serve_params(c, dtype), tokens, cache, cache, pos)
