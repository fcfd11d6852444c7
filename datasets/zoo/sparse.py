"""Families built on gathers and scatters: embedding + softmax cross-entropy,
the top-1 mixture of experts and the graph network over edge lists.
"""

from __future__ import annotations

from ..kernels import ArgSpec
from .blocks import dense_init, sgd, xent


def embed_xent(p):
    vocab, d, tokens = p["vocab"], p["d_model"], p["batch"]
    params = dense_init({"embed": (vocab, d), "proj": (d, d)}, p["dtype"])

    def loss(params, ids, labels):
        h = params["embed"][ids] @ params["proj"]
        return xent(h @ params["embed"].T, labels)
    return sgd(loss), params, [ArgSpec((tokens,), "i32", vocab), ArgSpec((tokens,), "i32", vocab)]


def moe(p):
    import jax
    import jax.numpy as jnp

    d, experts, tokens = p["d_model"], p["experts"], p["batch"]
    per_expert = max(1, tokens // experts)
    shapes = {"router": (d, experts), "up": (experts, d, 2 * d), "down": (experts, 2 * d, d)}
    params = dense_init(shapes, p["dtype"])

    def loss(params, x):
        choice = jnp.argmax(x @ params["router"], axis=-1)    # top-1 routing
        out = jnp.zeros_like(x)
        for e in range(experts):   # each expert's tokens gathered, results scattered back
            idx = jnp.nonzero(choice == e, size=per_expert, fill_value=0)[0]
            h = jax.nn.gelu(x[idx] @ params["up"][e]) @ params["down"][e]
            out = out.at[idx].add(h)
        return jnp.mean(jnp.square(out).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((tokens, d), p["dtype"])]


def graph_net(p):
    import jax
    import jax.numpy as jnp

    nodes, degree, width, layers = p["nodes"], p["degree"], p["width"], p["layers"]
    edges = nodes * degree
    params = dense_init({f"w{i}": (width, width) for i in range(layers)}, p["dtype"])

    def loss(params, x, src, dst):
        h = x
        for i in range(layers):   # gather along edges, scatter-add into the targets
            h = jax.nn.relu(jax.ops.segment_sum(h[src], dst, num_segments=nodes)
                            @ params[f"w{i}"])
        return jnp.mean(jnp.square(h).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((nodes, width), p["dtype"]),
                               ArgSpec((edges,), "i32", nodes), ArgSpec((edges,), "i32", nodes)]
