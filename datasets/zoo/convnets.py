"""Convolutional families: the ResNet-style CNN, the depthwise-separable CNN,
dilated 1-D convolutions, the transposed-convolution decoder and 3-D
convolutions.
"""

from __future__ import annotations

from ..kernels import ArgSpec
from .blocks import dense_init, layernorm, sgd


def cnn(p):
    import jax
    import jax.numpy as jnp
    from jax import lax

    c, stages, img, b = p["channels"], p["stages"], p["image"], p["batch"]
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, c)}
    width = c
    for s in range(stages):
        out = c * 2 ** s
        shapes[f"s{s}a"] = (3, 3, width, out)
        shapes[f"s{s}b"] = (3, 3, out, out)
        shapes[f"s{s}p"] = (1, 1, width, out)
        width = out
    shapes["head"] = (width, 10)
    params = dense_init(shapes, p["dtype"])

    def conv(x, w, stride=1):
        return lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def loss(params, x, y):
        h = jax.nn.relu(conv(x, params["stem"]))
        for s in range(stages):
            stride = 1 if s == 0 else 2
            r = jax.nn.relu(layernorm(conv(h, params[f"s{s}a"], stride)))
            r = layernorm(conv(r, params[f"s{s}b"]))
            h = jax.nn.relu(r + conv(h, params[f"s{s}p"], stride))
        logits = jnp.mean(h, axis=(1, 2)) @ params["head"]
        return jnp.mean(jnp.square(logits - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, img, img, 3), p["dtype"]), ArgSpec((b, 10), p["dtype"])]


def sepconv(p):
    import jax
    import jax.numpy as jnp
    from jax import lax

    c, blocks, img, b = p["channels"], p["blocks"], p["image"], p["batch"]
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, c), "head": (c, 10)}
    for i in range(blocks):
        shapes |= {f"dw{i}": (3, 3, 1, c), f"pw{i}": (1, 1, c, c)}
    params = dense_init(shapes, p["dtype"])
    dn = ("NHWC", "HWIO", "NHWC")

    def loss(params, x, y):
        h = lax.conv_general_dilated(x, params["stem"], (1, 1), "SAME", dimension_numbers=dn)
        for i in range(blocks):   # depthwise 3x3, then pointwise 1x1, residual
            d = lax.conv_general_dilated(h, params[f"dw{i}"], (1, 1), "SAME",
                                         dimension_numbers=dn, feature_group_count=c)
            h = h + jax.nn.relu(lax.conv_general_dilated(
                jax.nn.relu(d), params[f"pw{i}"], (1, 1), "SAME", dimension_numbers=dn))
        logits = jnp.mean(h, axis=(1, 2)) @ params["head"]
        return jnp.mean(jnp.square(logits - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, img, img, 3), p["dtype"]), ArgSpec((b, 10), p["dtype"])]


def conv1d(p):
    import jax.numpy as jnp
    from jax import lax

    c, layers, length, b = p["channels"], p["layers"], p["length"], p["batch"]
    shapes: dict[str, tuple[int, ...]] = {"stem": (1, 8, c)}
    shapes |= {f"w{i}": (3, c, c) for i in range(layers)}
    params = dense_init(shapes, p["dtype"])
    dn = ("NWC", "WIO", "NWC")

    def loss(params, x, y):
        h = lax.conv_general_dilated(x, params["stem"], (1,), "SAME", dimension_numbers=dn)
        for i in range(layers):   # dilated causal-style temporal convolutions
            h = h + jnp.tanh(lax.conv_general_dilated(
                h, params[f"w{i}"], (1,), "SAME", rhs_dilation=(2 ** (i % 4),),
                dimension_numbers=dn))
        return jnp.mean(jnp.square(jnp.mean(h, axis=1) - y).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, length, 8), p["dtype"]), ArgSpec((b, c), p["dtype"])]


def decoder_cnn(p):
    import jax
    import jax.numpy as jnp
    from jax import lax

    c, stages, base, b = p["channels"], p["stages"], p["base"], p["batch"]
    shapes = {f"t{i}": (4, 4, max(c >> i, 4), max(c >> (i + 1), 4)) for i in range(stages)}
    params = dense_init(shapes, p["dtype"])
    dn = ("NHWC", "HWIO", "NHWC")

    def loss(params, z):
        h = z
        for i in range(stages):   # each transposed convolution doubles the side
            h = jax.nn.relu(lax.conv_transpose(h, params[f"t{i}"], (2, 2), "SAME",
                                               dimension_numbers=dn))
        return jnp.mean(jnp.square(h).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, base, base, c), p["dtype"])]


def conv3d(p):
    import jax
    import jax.numpy as jnp
    from jax import lax

    c, frames, side, b = p["channels"], p["frames"], p["side"], p["batch"]
    params = dense_init({"w0": (3, 3, 3, 3, c), "w1": (3, 3, 3, c, c)}, p["dtype"])
    dn = ("NDHWC", "DHWIO", "NDHWC")

    def loss(params, x):
        h = x
        for i in range(2):
            h = jax.nn.relu(lax.conv_general_dilated(h, params[f"w{i}"], (1, 1, 1), "SAME",
                                                     dimension_numbers=dn))
        return jnp.mean(jnp.square(h).astype(jnp.float32))
    return sgd(loss), params, [ArgSpec((b, frames, side, side, 3), p["dtype"])]
