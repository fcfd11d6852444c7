"""Dense families: the MLP, the pre-norm residual MLP, the SwiGLU MLP and the
dense autoencoder.
"""

from __future__ import annotations

from ..kernels import ArgSpec
from .blocks import dense_init, layernorm, sgd


def mlp(p):
    import jax
    import jax.numpy as jnp

    d, layers, b = p["width"], p["layers"], p["batch"]
    shapes = {f"w{i}": (d, d) for i in range(layers)} | {f"b{i}": (d,) for i in range(layers)}
    params = dense_init(shapes, p["dtype"])

    def loss(params, x, y):
        h = x
        for i in range(layers):
            h = jax.nn.gelu(h @ params[f"w{i}"] + params[f"b{i}"])
        return jnp.mean(jnp.square(h - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, d), p["dtype"]), ArgSpec((b, d), p["dtype"])]


def resmlp(p):
    import jax
    import jax.numpy as jnp

    d, layers, b = p["width"], p["layers"], p["batch"]
    shapes = {f"up{i}": (d, 4 * d) for i in range(layers)} | \
        {f"down{i}": (4 * d, d) for i in range(layers)} | {f"g{i}": (d,) for i in range(layers)}
    params = dense_init(shapes, p["dtype"])

    def loss(params, x, y):
        h = x
        for i in range(layers):   # pre-norm residual blocks
            h = h + jax.nn.gelu((layernorm(h) * params[f"g{i}"]) @ params[f"up{i}"]) \
                @ params[f"down{i}"]
        return jnp.mean(jnp.square(h - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, d), p["dtype"]), ArgSpec((b, d), p["dtype"])]


def gated_mlp(p):
    import jax
    import jax.numpy as jnp

    d, layers, b = p["width"], p["layers"], p["batch"]
    hidden = 8 * d // 3 // 64 * 64
    shapes = {f"{n}{i}": (d, hidden) for i in range(layers) for n in ("gate", "up")} | \
        {f"down{i}": (hidden, d) for i in range(layers)}
    params = dense_init(shapes, p["dtype"])

    def loss(params, x, y):
        h = x
        for i in range(layers):   # SwiGLU feed-forward blocks
            g = jax.nn.silu(h @ params[f"gate{i}"]) * (h @ params[f"up{i}"])
            h = h + g @ params[f"down{i}"]
        return jnp.mean(jnp.square(h - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, d), p["dtype"]), ArgSpec((b, d), p["dtype"])]


def autoencoder(p):
    import jax
    import jax.numpy as jnp

    d, code, b = p["width"], p["code"], p["batch"]
    dims = [d, d // 2, d // 4, code]
    shapes = {f"e{i}": (a, c) for i, (a, c) in enumerate(zip(dims[:-1], dims[1:]))} | \
        {f"d{i}": (c, a) for i, (a, c) in enumerate(zip(dims[:-1], dims[1:]))}
    params = dense_init(shapes, p["dtype"])

    def loss(params, x):
        h = x
        for i in range(len(dims) - 1):
            h = jnp.tanh(h @ params[f"e{i}"])
        for i in reversed(range(len(dims) - 1)):
            h = jax.nn.sigmoid(h @ params[f"d{i}"])
        return jnp.mean(jnp.square(h - x).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, d), p["dtype"])]
