"""The model zoo for `stablecost collect programs`: parameterized JAX training steps and
forward passes whose whole-step time is measured.

Eighteen families (MLP, ResNet-style CNN, transformer decoder forward and training
step, MLP-mixer, scan-based RNN, embedding + softmax cross-entropy, pre-norm residual
MLP, SwiGLU MLP, depthwise-separable CNN, multi-head attention, dilated 1-D
convolutions, dense autoencoder, transposed-convolution decoder, LSTM/GRU unrolled by a
Python loop, top-1 mixture of experts, graph network over edge lists, 3-D
convolutions), each swept over model size, batch and dtype. Training steps are plain SGD on the gradient, so the program is
forward + backward + update with no optimizer library. Like kernel samples, a program
is rebuilt from its parameters alone.

Group ids are family/size/dtype: the batch sizes of one model form one group, so a
held-out group is a model size the learner never saw.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..dtypes import jax_dtype
from ..errors import InvalidArgumentError
from .kernels import ArgSpec


@dataclass(frozen=True)
class ProgramSpec:
    family: str
    size: str                      # the size name within the family
    dtype: str
    params: dict[str, Any]

    @property
    def variant(self) -> str:
        return self.size

    @property
    def group_id(self) -> str:
        return f"{self.family}/{self.size}/{self.dtype}"


# --------------------------------------------------------------------------- building blocks
def _dense_init(shapes: dict[str, tuple[int, ...]], dtype: str) -> dict[str, Any]:
    import jax

    return {k: jax.ShapeDtypeStruct(v, jax_dtype(dtype)) for k, v in shapes.items()}


def _sgd(loss: Callable[..., Any]) -> Callable[..., Any]:
    import jax

    def step(params, *batch):
        value, grads = jax.value_and_grad(loss)(params, *batch)
        new = jax.tree_util.tree_map(lambda p, g: p - (0.01 * g).astype(p.dtype), params, grads)
        return value, new
    return step


def _layernorm(x):
    import jax.numpy as jnp
    from jax import lax

    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5)


# --------------------------------------------------------------------------- families
def _mlp(p):
    import jax
    import jax.numpy as jnp

    d, layers, b = p["width"], p["layers"], p["batch"]
    shapes = {f"w{i}": (d, d) for i in range(layers)} | {f"b{i}": (d,) for i in range(layers)}
    params = _dense_init(shapes, p["dtype"])

    def loss(params, x, y):
        h = x
        for i in range(layers):
            h = jax.nn.gelu(h @ params[f"w{i}"] + params[f"b{i}"])
        return jnp.mean(jnp.square(h - y).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, d), p["dtype"]), ArgSpec((b, d), p["dtype"])]


def _cnn(p):
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
    params = _dense_init(shapes, p["dtype"])

    def conv(x, w, stride=1):
        return lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def loss(params, x, y):
        h = jax.nn.relu(conv(x, params["stem"]))
        for s in range(stages):
            stride = 1 if s == 0 else 2
            r = jax.nn.relu(_layernorm(conv(h, params[f"s{s}a"], stride)))
            r = _layernorm(conv(r, params[f"s{s}b"]))
            h = jax.nn.relu(r + conv(h, params[f"s{s}p"], stride))
        logits = jnp.mean(h, axis=(1, 2)) @ params["head"]
        return jnp.mean(jnp.square(logits - y).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, img, img, 3), p["dtype"]), ArgSpec((b, 10), p["dtype"])]


def _transformer_params(p):
    d, layers, vocab = p["d_model"], p["layers"], p["vocab"]
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, d)}
    for i in range(layers):
        shapes |= {f"qkv{i}": (d, 3 * d), f"o{i}": (d, d), f"up{i}": (d, 4 * d),
                   f"down{i}": (4 * d, d)}
    return _dense_init(shapes, p["dtype"])


def _decoder(params, tokens, p):
    import jax
    import jax.numpy as jnp

    d, heads, layers = p["d_model"], p["heads"], p["layers"]
    b, t = tokens.shape
    h = params["embed"][tokens]
    mask = jnp.tril(jnp.ones((t, t), bool))
    for i in range(layers):
        x = _layernorm(h)
        q, k, v = jnp.split(x @ params[f"qkv{i}"], 3, axis=-1)
        q, k, v = (z.reshape(b, t, heads, d // heads) for z in (q, k, v))
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(d // heads).astype(np.float32)
        scores = jnp.where(mask, scores, jnp.asarray(-1e4, scores.dtype))
        attn = jax.nn.softmax(scores, axis=-1)
        out = jnp.einsum("bhqk,bkhd->bqhd", attn, v).reshape(b, t, d)
        h = h + out @ params[f"o{i}"]
        h = h + jax.nn.gelu(_layernorm(h) @ params[f"up{i}"]) @ params[f"down{i}"]
    return _layernorm(h) @ params["embed"].T


def _xent(logits, labels):
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))


def _transformer_fwd(p):
    params = _transformer_params(p)
    b, t = p["batch"], p["seq"]
    return (lambda params, tokens: _decoder(params, tokens, p)), params, \
        [ArgSpec((b, t), "i32", p["vocab"])]


def _transformer_train(p):
    params = _transformer_params(p)
    b, t = p["batch"], p["seq"]

    def loss(params, tokens, labels):
        return _xent(_decoder(params, tokens, p), labels)
    return _sgd(loss), params, [ArgSpec((b, t), "i32", p["vocab"]), ArgSpec((b, t), "i32", p["vocab"])]


def _mixer(p):
    import jax
    import jax.numpy as jnp

    patches, hidden, layers, b = p["patches"], p["hidden"], p["layers"], p["batch"]
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(layers):
        shapes |= {f"tok1{i}": (patches, 2 * patches), f"tok2{i}": (2 * patches, patches),
                   f"ch1{i}": (hidden, 4 * hidden), f"ch2{i}": (4 * hidden, hidden)}
    params = _dense_init(shapes, p["dtype"])

    def loss(params, x, y):
        h = x
        for i in range(layers):
            t = jnp.swapaxes(_layernorm(h), 1, 2)
            t = jax.nn.gelu(t @ params[f"tok1{i}"]) @ params[f"tok2{i}"]
            h = h + jnp.swapaxes(t, 1, 2)
            h = h + jax.nn.gelu(_layernorm(h) @ params[f"ch1{i}"]) @ params[f"ch2{i}"]
        return jnp.mean(jnp.square(jnp.mean(h, axis=1) - y).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, patches, hidden), p["dtype"]),
                                ArgSpec((b, hidden), p["dtype"])]


def _rnn(p):
    import jax
    import jax.numpy as jnp

    hidden, steps, b = p["hidden"], p["steps"], p["batch"]
    params = _dense_init({"wx": (hidden, hidden), "wh": (hidden, hidden), "b": (hidden,)},
                         p["dtype"])

    def loss(params, xs, y):
        def cell(h, x):
            h = jnp.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
            return h, None
        h, _ = jax.lax.scan(cell, jnp.zeros((b, hidden), xs.dtype), xs)
        return jnp.mean(jnp.square(h - y).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((steps, b, hidden), p["dtype"]),
                                ArgSpec((b, hidden), p["dtype"])]


def _embed_xent(p):
    vocab, d, tokens = p["vocab"], p["d_model"], p["batch"]
    params = _dense_init({"embed": (vocab, d), "proj": (d, d)}, p["dtype"])

    def loss(params, ids, labels):
        h = params["embed"][ids] @ params["proj"]
        return _xent(h @ params["embed"].T, labels)
    return _sgd(loss), params, [ArgSpec((tokens,), "i32", vocab), ArgSpec((tokens,), "i32", vocab)]


def _resmlp(p):
    import jax
    import jax.numpy as jnp

    d, layers, b = p["width"], p["layers"], p["batch"]
    shapes = {f"up{i}": (d, 4 * d) for i in range(layers)} | \
        {f"down{i}": (4 * d, d) for i in range(layers)} | {f"g{i}": (d,) for i in range(layers)}
    params = _dense_init(shapes, p["dtype"])

    def loss(params, x, y):
        h = x
        for i in range(layers):   # pre-norm residual blocks
            h = h + jax.nn.gelu((_layernorm(h) * params[f"g{i}"]) @ params[f"up{i}"]) \
                @ params[f"down{i}"]
        return jnp.mean(jnp.square(h - y).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, d), p["dtype"]), ArgSpec((b, d), p["dtype"])]


def _gated_mlp(p):
    import jax
    import jax.numpy as jnp

    d, layers, b = p["width"], p["layers"], p["batch"]
    hidden = 8 * d // 3 // 64 * 64
    shapes = {f"{n}{i}": (d, hidden) for i in range(layers) for n in ("gate", "up")} | \
        {f"down{i}": (hidden, d) for i in range(layers)}
    params = _dense_init(shapes, p["dtype"])

    def loss(params, x, y):
        h = x
        for i in range(layers):   # SwiGLU feed-forward blocks
            g = jax.nn.silu(h @ params[f"gate{i}"]) * (h @ params[f"up{i}"])
            h = h + g @ params[f"down{i}"]
        return jnp.mean(jnp.square(h - y).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, d), p["dtype"]), ArgSpec((b, d), p["dtype"])]


def _sepconv(p):
    import jax
    import jax.numpy as jnp
    from jax import lax

    c, blocks, img, b = p["channels"], p["blocks"], p["image"], p["batch"]
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, c), "head": (c, 10)}
    for i in range(blocks):
        shapes |= {f"dw{i}": (3, 3, 1, c), f"pw{i}": (1, 1, c, c)}
    params = _dense_init(shapes, p["dtype"])
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
    return _sgd(loss), params, [ArgSpec((b, img, img, 3), p["dtype"]), ArgSpec((b, 10), p["dtype"])]


def _attention(p):
    import jax
    import jax.numpy as jnp

    d, heads, t, b = p["d_model"], p["heads"], p["seq"], p["batch"]
    hd = d // heads
    params = _dense_init({"q": (d, heads, hd), "k": (d, heads, hd), "v": (d, heads, hd),
                          "o": (heads, hd, d)}, p["dtype"])

    def loss(params, x, y):
        q, k, v = (jnp.einsum("bsd,dhk->bshk", x, params[n]) for n in ("q", "k", "v"))
        scores = jnp.einsum("bqhk,bshk->bhqs", q, k) / jnp.sqrt(float(hd)).astype(x.dtype)
        attn = jax.nn.softmax(scores.astype(jnp.float32), axis=-1).astype(x.dtype)
        out = jnp.einsum("bqhk,hkd->bqd", jnp.einsum("bhqs,bshk->bqhk", attn, v), params["o"])
        return jnp.mean(jnp.square(out - y).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, t, d), p["dtype"]), ArgSpec((b, t, d), p["dtype"])]


def _conv1d(p):
    import jax.numpy as jnp
    from jax import lax

    c, layers, length, b = p["channels"], p["layers"], p["length"], p["batch"]
    shapes: dict[str, tuple[int, ...]] = {"stem": (1, 8, c)}
    shapes |= {f"w{i}": (3, c, c) for i in range(layers)}
    params = _dense_init(shapes, p["dtype"])
    dn = ("NWC", "WIO", "NWC")

    def loss(params, x, y):
        h = lax.conv_general_dilated(x, params["stem"], (1,), "SAME", dimension_numbers=dn)
        for i in range(layers):   # dilated causal-style temporal convolutions
            h = h + jnp.tanh(lax.conv_general_dilated(
                h, params[f"w{i}"], (1,), "SAME", rhs_dilation=(2 ** (i % 4),),
                dimension_numbers=dn))
        return jnp.mean(jnp.square(jnp.mean(h, axis=1) - y).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, length, 8), p["dtype"]), ArgSpec((b, c), p["dtype"])]


def _autoencoder(p):
    import jax
    import jax.numpy as jnp

    d, code, b = p["width"], p["code"], p["batch"]
    dims = [d, d // 2, d // 4, code]
    shapes = {f"e{i}": (a, c) for i, (a, c) in enumerate(zip(dims[:-1], dims[1:]))} | \
        {f"d{i}": (c, a) for i, (a, c) in enumerate(zip(dims[:-1], dims[1:]))}
    params = _dense_init(shapes, p["dtype"])

    def loss(params, x):
        h = x
        for i in range(len(dims) - 1):
            h = jnp.tanh(h @ params[f"e{i}"])
        for i in reversed(range(len(dims) - 1)):
            h = jax.nn.sigmoid(h @ params[f"d{i}"])
        return jnp.mean(jnp.square(h - x).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, d), p["dtype"])]


def _decoder_cnn(p):
    import jax
    import jax.numpy as jnp
    from jax import lax

    c, stages, base, b = p["channels"], p["stages"], p["base"], p["batch"]
    shapes = {f"t{i}": (4, 4, max(c >> i, 4), max(c >> (i + 1), 4)) for i in range(stages)}
    params = _dense_init(shapes, p["dtype"])
    dn = ("NHWC", "HWIO", "NHWC")

    def loss(params, z):
        h = z
        for i in range(stages):   # each transposed convolution doubles the side
            h = jax.nn.relu(lax.conv_transpose(h, params[f"t{i}"], (2, 2), "SAME",
                                               dimension_numbers=dn))
        return jnp.mean(jnp.square(h).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, base, base, c), p["dtype"])]


def _unrolled_rnn(p):
    import jax
    import jax.numpy as jnp

    hidden, steps, b, cell = p["hidden"], p["steps"], p["batch"], p["cell"]
    gates = 4 if cell == "lstm" else 3
    params = _dense_init({"wx": (hidden, gates * hidden), "wh": (hidden, gates * hidden)},
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
    return _sgd(loss), params, [ArgSpec((steps, b, hidden), p["dtype"])]


def _moe(p):
    import jax
    import jax.numpy as jnp

    d, experts, tokens = p["d_model"], p["experts"], p["batch"]
    per_expert = max(1, tokens // experts)
    shapes = {"router": (d, experts), "up": (experts, d, 2 * d), "down": (experts, 2 * d, d)}
    params = _dense_init(shapes, p["dtype"])

    def loss(params, x):
        choice = jnp.argmax(x @ params["router"], axis=-1)    # top-1 routing
        out = jnp.zeros_like(x)
        for e in range(experts):   # each expert's tokens gathered, results scattered back
            idx = jnp.nonzero(choice == e, size=per_expert, fill_value=0)[0]
            h = jax.nn.gelu(x[idx] @ params["up"][e]) @ params["down"][e]
            out = out.at[idx].add(h)
        return jnp.mean(jnp.square(out).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((tokens, d), p["dtype"])]


def _graph_net(p):
    import jax
    import jax.numpy as jnp

    nodes, degree, width, layers = p["nodes"], p["degree"], p["width"], p["layers"]
    edges = nodes * degree
    params = _dense_init({f"w{i}": (width, width) for i in range(layers)}, p["dtype"])

    def loss(params, x, src, dst):
        h = x
        for i in range(layers):   # gather along edges, scatter-add into the targets
            h = jax.nn.relu(jax.ops.segment_sum(h[src], dst, num_segments=nodes)
                            @ params[f"w{i}"])
        return jnp.mean(jnp.square(h).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((nodes, width), p["dtype"]),
                                ArgSpec((edges,), "i32", nodes), ArgSpec((edges,), "i32", nodes)]


def _conv3d(p):
    import jax
    import jax.numpy as jnp
    from jax import lax

    c, frames, side, b = p["channels"], p["frames"], p["side"], p["batch"]
    params = _dense_init({"w0": (3, 3, 3, 3, c), "w1": (3, 3, 3, c, c)}, p["dtype"])
    dn = ("NDHWC", "DHWIO", "NDHWC")

    def loss(params, x):
        h = x
        for i in range(2):
            h = jax.nn.relu(lax.conv_general_dilated(h, params[f"w{i}"], (1, 1, 1), "SAME",
                                                     dimension_numbers=dn))
        return jnp.mean(jnp.square(h).astype(jnp.float32))
    return _sgd(loss), params, [ArgSpec((b, frames, side, side, 3), p["dtype"])]


_FAMILIES: dict[str, tuple[Callable[..., Any], list[tuple[str, dict[str, Any]]], list[int]]] = {
    # family: (builder, [(size name, size params)], batches)
    "mlp": (_mlp, [(f"w{w}-l{l}", {"width": w, "layers": l})
                   for w, l in itertools.product((256, 512, 1024, 2048), (2, 4, 8))],
            [8, 32, 128]),
    "cnn": (_cnn, [(f"c{c}-s{s}-i{i}", {"channels": c, "stages": s, "image": i})
                   for c, s, i in itertools.product((8, 16, 32), (2, 3), (32, 64))],
            [2, 8, 16]),
    "transformer_fwd": (_transformer_fwd,
                        [(f"d{d}-l{l}-t{t}", {"d_model": d, "layers": l, "seq": t,
                                              "heads": max(2, d // 64), "vocab": 2048})
                         for d, l, t in itertools.product((128, 256, 512), (1, 2), (64, 256))],
                        [1, 4, 8]),
    "transformer_train": (_transformer_train,
                          [(f"d{d}-l{l}-t{t}", {"d_model": d, "layers": l, "seq": t,
                                                "heads": max(2, d // 64), "vocab": 2048})
                           for d, l, t in itertools.product((128, 256, 512), (1, 2), (64, 256))],
                          [1, 4, 8]),
    "mixer": (_mixer, [(f"p{pt}-h{h}-l{l}", {"patches": pt, "hidden": h, "layers": l})
                       for pt, h, l in itertools.product((16, 64), (128, 256, 512), (2, 4))],
              [4, 16, 32]),
    "rnn_scan": (_rnn, [(f"h{h}-t{t}", {"hidden": h, "steps": t})
                        for h, t in itertools.product((128, 256, 512, 1024), (16, 64))],
                 [8, 32, 64]),
    "embed_xent": (_embed_xent, [(f"v{v}-d{d}", {"vocab": v, "d_model": d})
                                 for v, d in itertools.product((1024, 4096, 16384), (64, 256, 512))],
                   [256, 1024, 4096]),
    "resmlp": (_resmlp, [(f"w{w}-l{l}", {"width": w, "layers": l})
                         for w, l in itertools.product((128, 256, 512), (2, 6, 12))],
               [16, 64]),
    "gated_mlp": (_gated_mlp, [(f"w{w}-l{l}", {"width": w, "layers": l})
                               for w, l in itertools.product((256, 512, 1024), (2, 4))],
                  [8, 64]),
    "sepconv": (_sepconv, [(f"c{c}-b{n}-i{i}", {"channels": c, "blocks": n, "image": i})
                           for c, n, i in itertools.product((16, 32, 64), (2, 4), (16, 32))],
                [4, 16]),
    "attention": (_attention, [(f"d{d}-t{t}", {"d_model": d, "heads": d // 64, "seq": t})
                               for d, t in itertools.product((128, 256), (64, 256, 1024))],
                  [1, 4]),
    "conv1d": (_conv1d, [(f"c{c}-l{l}", {"channels": c, "layers": l, "length": 512})
                         for c, l in itertools.product((32, 64, 128), (3, 6))],
               [4, 16]),
    "autoencoder": (_autoencoder, [(f"w{w}-c{c}", {"width": w, "code": c})
                                   for w, c in itertools.product((256, 1024, 2048), (16, 64))],
                    [16, 128]),
    "decoder_cnn": (_decoder_cnn, [(f"c{c}-s{n}-b{base}", {"channels": c, "stages": n,
                                                            "base": base})
                                   for c, n, base in itertools.product((32, 128), (2, 3), (4, 8))],
                    [2, 8]),
    "unrolled_rnn": (_unrolled_rnn, [(f"{cell}-h{h}-t{t}", {"cell": cell, "hidden": h,
                                                            "steps": t})
                                     for cell, h, t in itertools.product(("lstm", "gru"),
                                                                         (128, 512), (4, 16))],
                     [8, 32]),
    "moe": (_moe, [(f"d{d}-e{e}", {"d_model": d, "experts": e})
                   for d, e in itertools.product((128, 512), (4, 16))],
            [256, 1024]),
    "graph_net": (_graph_net, [(f"n{n}-k{k}-w{w}", {"nodes": n, "degree": k, "width": w,
                                                     "layers": 2})
                               for n, k, w in itertools.product((1024, 8192), (4, 16), (64, 256))],
                  [1]),
    "conv3d": (_conv3d, [(f"c{c}-f{f}-s{s}", {"channels": c, "frames": f, "side": s})
                         for c, f, s in itertools.product((8, 32), (4, 16), (16, 32))],
               [1, 2]),
}
PROGRAM_FAMILIES = tuple(_FAMILIES)
PROGRAM_DTYPES = ("f32", "bf16")


def program_specs(seed: int, families: tuple[str, ...] = PROGRAM_FAMILIES,
                  dtypes: tuple[str, ...] = PROGRAM_DTYPES) -> list[ProgramSpec]:
    """The whole sweep, interleaved across families and shuffled within each family by
    `seed`, so any prefix of it (a short budget) covers every family."""
    rng = np.random.default_rng(seed)
    per_family = []
    for family in families:
        _, sizes, batches = _FAMILIES[family]
        specs = [ProgramSpec(family, name, dtype, {**size, "batch": batch, "dtype": dtype,
                                                   "family": family, "size": name})
                 for (name, size), batch, dtype in itertools.product(sizes, batches, dtypes)]
        per_family.append([specs[i] for i in rng.permutation(len(specs))])
    out = []
    for i in range(max(len(s) for s in per_family)):
        out.extend(s[i] for s in per_family if i < len(s))
    return out


def build_program(params: dict[str, Any]) -> tuple[Callable[..., Any], list[Any]]:
    """The flat function and its flat argument specs (ShapeDtypeStruct or ArgSpec)."""
    import jax

    family = params["family"]
    if family not in _FAMILIES:
        raise InvalidArgumentError(f"unknown program family {family!r}; "
                                   f"allowed: {', '.join(PROGRAM_FAMILIES)}")
    fn, model_params, data = _FAMILIES[family][0](params)
    leaves, treedef = jax.tree_util.tree_flatten(model_params)
    n = len(leaves)

    def flat(*args):
        return fn(jax.tree_util.tree_unflatten(treedef, args[:n]), *args[n:])

    specs = [ArgSpec(tuple(leaf.shape), params["dtype"]) for leaf in leaves] + list(data)
    return flat, specs
