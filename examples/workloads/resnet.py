"""ResNet-18/34/50/101/200 (v1.5: the stride on the 3x3 of a bottleneck) training steps,
data parallel with `jax.shard_map` as in Flax's ImageNet example: every device runs the
forward and backward pass on its own images (batch norm over its own batch), then the
gradients and the batch-norm statistics are averaged over "data" (all-reduces) and every
device applies the same SGD-with-momentum update to its replica of the weights.

Float32 weights, optimizer state and batch-norm statistics; bf16 images, activations and
convolutions. NHWC layout. Nothing is allocated: the arguments are `jax.ShapeDtypeStruct`s.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

DATA = "data"

# depth -> (block kind, blocks per stage)
DEPTHS = {18: ("basic", (2, 2, 2, 2)), 34: ("basic", (3, 4, 6, 3)),
          50: ("bottleneck", (3, 4, 6, 3)), 101: ("bottleneck", (3, 4, 23, 3)),
          200: ("bottleneck", (3, 24, 36, 3))}


def _conv_shape(k: int, cin: int, cout: int) -> dict[str, tuple[int, ...]]:
    # a convolution without bias and its batch norm (scale, bias)
    return {"w": (k, k, cin, cout), "scale": (cout,), "bias": (cout,)}


def param_shapes(depth: int, width: int = 64, classes: int = 1000) -> dict[str, Any]:
    """The weights of ResNet-`depth` as nested {name: shape}."""
    kind, stages = DEPTHS[depth]
    expansion = 4 if kind == "bottleneck" else 1
    params: dict[str, Any] = {"stem": {"conv": _conv_shape(7, 3, width)}}
    cin = width
    for s, blocks in enumerate(stages):
        mid = width * 2 ** s
        cout = mid * expansion
        for b in range(blocks):
            if kind == "basic":
                block = {"conv1": _conv_shape(3, cin, mid), "conv2": _conv_shape(3, mid, cout)}
            else:
                block = {"conv1": _conv_shape(1, cin, mid), "conv2": _conv_shape(3, mid, mid),
                         "conv3": _conv_shape(1, mid, cout)}
            if b == 0 and (s > 0 or cin != cout):
                block["proj"] = _conv_shape(1, cin, cout)
            params[f"stage{s}_block{b}"] = block
            cin = cout
    params["fc"] = {"w": (cin, classes), "b": (classes,)}
    return params


def param_count(depth: int, width: int = 64, classes: int = 1000) -> int:
    """Trainable parameters (convolutions, batch-norm scales and biases, the classifier)."""
    shapes = jax.tree.leaves(param_shapes(depth, width, classes),
                             is_leaf=lambda x: isinstance(x, tuple))
    total = 0
    for shape in shapes:
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


def _stats_shapes(params: dict[str, Any]) -> dict[str, Any]:
    """Running batch-norm mean and variance beside every convolution."""
    return {name: {conv: {"mean": p["scale"], "var": p["scale"]} for conv, p in block.items()}
            for name, block in params.items() if name != "fc"}


def _conv_bn(x, p, stats, stride, relu, momentum=0.9):
    k = p["w"].shape[0]
    y = jax.lax.conv_general_dilated(
        x, p["w"].astype(x.dtype), (stride, stride), [(k // 2, k // 2)] * 2,
        dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y32 = y.astype(jnp.float32)
    mean = y32.mean((0, 1, 2))
    var = jnp.mean(jnp.square(y32), (0, 1, 2)) - jnp.square(mean)
    y32 = (y32 - mean) * jax.lax.rsqrt(var + 1e-5) * p["scale"] + p["bias"]
    new = {"mean": momentum * stats["mean"] + (1 - momentum) * mean,
           "var": momentum * stats["var"] + (1 - momentum) * var}
    y = y32.astype(x.dtype)
    return (jax.nn.relu(y) if relu else y), new


def _forward(params, stats, images):
    new_stats: dict[str, Any] = {"stem": {}}
    x, new_stats["stem"]["conv"] = _conv_bn(images, params["stem"]["conv"],
                                            stats["stem"]["conv"], 2, True)
    x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                              ((0, 0), (1, 1), (1, 1), (0, 0)))
    for name, block in params.items():
        if not name.startswith("stage"):
            continue
        stride = 2 if name.split("_")[1] == "block0" and name != "stage0_block0" else 1
        convs = sorted(c for c in block if c.startswith("conv"))
        # v1.5: the stride is on the block's first 3x3 convolution
        strided = next(c for c in convs if block[c]["w"].shape[0] == 3)
        out, bs = x, {}
        for i, conv in enumerate(convs):
            out, bs[conv] = _conv_bn(out, block[conv], stats[name][conv],
                                     stride if conv == strided else 1, relu=i < len(convs) - 1)
        shortcut = x
        if "proj" in block:
            shortcut, bs["proj"] = _conv_bn(x, block["proj"], stats[name]["proj"], stride, False)
        x = jax.nn.relu(out + shortcut)
        new_stats[name] = bs
    pooled = x.astype(jnp.float32).mean((1, 2))
    return pooled @ params["fc"]["w"] + params["fc"]["b"], new_stats


def train_step(depth: int, devices: int, batch_per_device: int = 256, image: int = 224,
               width: int = 64, classes: int = 1000,
               dtype=jnp.bfloat16) -> tuple[Callable, tuple]:
    """(step, args): one SGD-with-momentum step of ResNet-`depth` on `batch_per_device`
    `image`x`image` images per device, data parallel over `devices` on axis "data"."""
    def loss_fn(params, stats, images, labels):
        logits, new_stats = _forward(params, stats, images)
        logp = jax.nn.log_softmax(logits)
        loss = -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=-1))
        return loss, new_stats

    def local_step(state, images, labels):
        (loss, stats), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            state["params"], state["stats"], images, labels)
        grads, stats, loss = jax.lax.pmean((grads, stats, loss), DATA)
        momentum = jax.tree.map(lambda m, g, w: 0.9 * m + g + 1e-4 * w,
                                state["momentum"], grads, state["params"])
        params = jax.tree.map(lambda w, m: w - 0.1 * m, state["params"], momentum)
        return {"params": params, "momentum": momentum, "stats": stats}, loss

    step = jax.shard_map(local_step, in_specs=(P(), P(DATA), P(DATA)), out_specs=(P(), P()))
    shapes = param_shapes(depth, width, classes)
    leaf = lambda x: isinstance(x, tuple)  # noqa: E731
    params = jax.tree.map(lambda s: jax.ShapeDtypeStruct(s, jnp.float32), shapes, is_leaf=leaf)
    stats = jax.tree.map(lambda s: jax.ShapeDtypeStruct(s, jnp.float32), _stats_shapes(shapes),
                         is_leaf=leaf)
    state = {"params": params, "momentum": params, "stats": stats}
    batch = batch_per_device * devices
    images = jax.ShapeDtypeStruct((batch, image, image, 3), dtype)
    labels = jax.ShapeDtypeStruct((batch,), jnp.int32)
    return step, (state, images, labels)
