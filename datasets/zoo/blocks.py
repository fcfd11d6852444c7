"""Building blocks the zoo's families share: abstract parameters, the plain-SGD
training step, layer norm and softmax cross-entropy.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ...dtypes import jax_dtype


def dense_init(shapes: Mapping[str, tuple[int, ...]], dtype: str) -> dict[str, Any]:
    import jax

    return {k: jax.ShapeDtypeStruct(v, jax_dtype(dtype)) for k, v in shapes.items()}


def sgd(loss: Callable[..., Any]) -> Callable[..., Any]:
    import jax

    def step(params, *batch):
        value, grads = jax.value_and_grad(loss)(params, *batch)
        new = jax.tree_util.tree_map(lambda p, g: p - (0.01 * g).astype(p.dtype), params, grads)
        return value, new
    return step


def layernorm(x):
    import jax.numpy as jnp
    from jax import lax

    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5)


def xent(logits, labels):
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))
