"""Sequence families: the transformer decoder (forward and training step), the
MLP-mixer, multi-head attention, the scan-based RNN and the LSTM/GRU unrolled
by a Python loop.
"""

from __future__ import annotations

import numpy as np

from ..kernels import ArgSpec
from .blocks import dense_init, layernorm, sgd, xent


def _transformer_params(p):
    d, layers, vocab = p["d_model"], p["layers"], p["vocab"]
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, d)}
    for i in range(layers):
        shapes |= {f"qkv{i}": (d, 3 * d), f"o{i}": (d, d), f"up{i}": (d, 4 * d),
                   f"down{i}": (4 * d, d)}
    return dense_init(shapes, p["dtype"])


def _decoder(params, tokens, p):
    import jax
    import jax.numpy as jnp

    d, heads, layers = p["d_model"], p["heads"], p["layers"]
    b, t = tokens.shape
    h = params["embed"][tokens]
    mask = jnp.tril(jnp.ones((t, t), bool))
    for i in range(layers):
        x = layernorm(h)
        q, k, v = jnp.split(x @ params[f"qkv{i}"], 3, axis=-1)
        q, k, v = (z.reshape(b, t, heads, d // heads) for z in (q, k, v))
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(d // heads).astype(np.float32)
        scores = jnp.where(mask, scores, jnp.asarray(-1e4, scores.dtype))
        attn = jax.nn.softmax(scores, axis=-1)
        out = jnp.einsum("bhqk,bkhd->bqhd", attn, v).reshape(b, t, d)
        h = h + out @ params[f"o{i}"]
        h = h + jax.nn.gelu(layernorm(h) @ params[f"up{i}"]) @ params[f"down{i}"]
    return layernorm(h) @ params["embed"].T


def transformer_fwd(p):
    params = _transformer_params(p)
    b, t = p["batch"], p["seq"]
    return (lambda params, tokens: _decoder(params, tokens, p)), params, \
        [ArgSpec((b, t), "i32", p["vocab"])]


def transformer_train(p):
    params = _transformer_params(p)
    b, t = p["batch"], p["seq"]

    def loss(params, tokens, labels):
        return xent(_decoder(params, tokens, p), labels)
    tokens = ArgSpec((b, t), "i32", p["vocab"])
    return sgd(loss), params, [tokens, tokens]


def mixer(p):
    import jax
    import jax.numpy as jnp

    patches, hidden, layers, b = p["patches"], p["hidden"], p["layers"], p["batch"]
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(layers):
        shapes |= {f"tok1{i}": (patches, 2 * patches), f"tok2{i}": (2 * patches, patches),
                   f"ch1{i}": (hidden, 4 * hidden), f"ch2{i}": (4 * hidden, hidden)}
    params = dense_init(shapes, p["dtype"])

    def loss(params, x, y):
        h = x
        for i in range(layers):
            t = jnp.swapaxes(layernorm(h), 1, 2)
            t = jax.nn.gelu(t @ params[f"tok1{i}"]) @ params[f"tok2{i}"]
            h = h + jnp.swapaxes(t, 1, 2)
            h = h + jax.nn.gelu(layernorm(h) @ params[f"ch1{i}"]) @ params[f"ch2{i}"]
        return jnp.mean(jnp.square(jnp.mean(h, axis=1) - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, patches, hidden), p["dtype"]),
                               ArgSpec((b, hidden), p["dtype"])]


def rnn(p):
    import jax
    import jax.numpy as jnp

    hidden, steps, b = p["hidden"], p["steps"], p["batch"]
    params = dense_init({"wx": (hidden, hidden), "wh": (hidden, hidden), "b": (hidden,)},
                        p["dtype"])

    def loss(params, xs, y):
        def cell(h, x):
            h = jnp.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
            return h, None
        h, _ = jax.lax.scan(cell, jnp.zeros((b, hidden), xs.dtype), xs)
        return jnp.mean(jnp.square(h - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((steps, b, hidden), p["dtype"]),
                               ArgSpec((b, hidden), p["dtype"])]


def attention(p):
    import jax
    import jax.numpy as jnp

    d, heads, t, b = p["d_model"], p["heads"], p["seq"], p["batch"]
    hd = d // heads
    params = dense_init({"q": (d, heads, hd), "k": (d, heads, hd), "v": (d, heads, hd),
                         "o": (heads, hd, d)}, p["dtype"])

    def loss(params, x, y):
        q, k, v = (jnp.einsum("bsd,dhk->bshk", x, params[n]) for n in ("q", "k", "v"))
        scores = jnp.einsum("bqhk,bshk->bhqs", q, k) / jnp.sqrt(float(hd)).astype(x.dtype)
        attn = jax.nn.softmax(scores.astype(jnp.float32), axis=-1).astype(x.dtype)
        out = jnp.einsum("bqhk,hkd->bqd", jnp.einsum("bhqs,bshk->bqhk", attn, v), params["o"])
        return jnp.mean(jnp.square(out - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, t, d), p["dtype"]), ArgSpec((b, t, d), p["dtype"])]


def unrolled_rnn(p):
    import jax
    import jax.numpy as jnp

    hidden, steps, b, cell = p["hidden"], p["steps"], p["batch"], p["cell"]
    gates = 4 if cell == "lstm" else 3
    params = dense_init({"wx": (hidden, gates * hidden), "wh": (hidden, gates * hidden)},
                        p["dtype"])

    def loss(params, xs):
        h = c = jnp.zeros((b, hidden), xs.dtype)
        for t in range(steps):   # a Python loop: every step is inlined, no while op
            g = xs[t] @ params["wx"] + h @ params["wh"]
            if cell == "lstm":
                i, f, u, o = jnp.split(g, 4, axis=-1)
                c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(u)
                h = jax.nn.sigmoid(o) * jnp.tanh(c)
            else:
                r, z, u = jnp.split(g, 3, axis=-1)
                h = (1 - jax.nn.sigmoid(z)) * h + jax.nn.sigmoid(z) * jnp.tanh(
                    u * jax.nn.sigmoid(r))
        return jnp.mean(jnp.square(h).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((steps, b, hidden), p["dtype"])]
