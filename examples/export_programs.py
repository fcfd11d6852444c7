"""Export the bundled example programs as StableHLO text (with source locations).

    .venv/bin/python examples/export_programs.py [--out examples/programs]

Each program is one training step (forward, backward and an SGD update) so that the
examples carry the op mix real steps have: matmuls and convolutions with their
transposed backward forms, reductions, elementwise chains and broadcasts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax
import jax.numpy as jnp


def _sgd(loss_fn):
    def step(params, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params = jax.tree.map(lambda p, g: p - 1e-3 * g.astype(p.dtype), params, grads)
        return params, loss
    return step


def mlp_train_step(batch: int = 64, dims=(784, 1024, 1024, 10)):
    def loss_fn(params, x, labels):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jax.nn.relu(h)
        logp = jax.nn.log_softmax(h)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    params = [(jnp.zeros((a, b), jnp.float32), jnp.zeros((b,), jnp.float32))
              for a, b in zip(dims[:-1], dims[1:])]
    args = (params, jnp.zeros((batch, dims[0]), jnp.float32), jnp.zeros((batch,), jnp.int32))
    return jax.jit(_sgd(loss_fn)).lower(*args)


def _layer_norm(x, scale):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale


def transformer_block_train_step(batch: int = 8, seq: int = 512, d_model: int = 1024,
                                 heads: int = 16, ffn: int = 4096, dtype=jnp.bfloat16):
    head_dim = d_model // heads

    def block(p, x):
        h = _layer_norm(x, p["ln1"])
        q, k, v = (jnp.einsum("bsd,dhk->bshk", h, p[n]) for n in ("wq", "wk", "wv"))
        scores = jnp.einsum("bqhk,bshk->bhqs", q, k) / jnp.sqrt(head_dim).astype(dtype)
        mask = jnp.tril(jnp.ones((seq, seq), bool))
        scores = jnp.where(mask, scores, jnp.finfo(dtype).min)
        attn = jax.nn.softmax(scores.astype(jnp.float32), axis=-1).astype(dtype)
        out = jnp.einsum("bhqs,bshk->bqhk", attn, v)
        x = x + jnp.einsum("bqhk,hkd->bqd", out, p["wo"])
        h = _layer_norm(x, p["ln2"])
        x = x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]
        return x

    def loss_fn(p, x, target):
        return jnp.mean((block(p, x).astype(jnp.float32) - target) ** 2)

    z = lambda *s: jnp.zeros(s, dtype)
    params = {"ln1": z(d_model), "ln2": z(d_model), "wq": z(d_model, heads, head_dim),
              "wk": z(d_model, heads, head_dim), "wv": z(d_model, heads, head_dim),
              "wo": z(heads, head_dim, d_model), "w1": z(d_model, ffn), "w2": z(ffn, d_model)}
    args = (params, z(batch, seq, d_model), jnp.zeros((batch, seq, d_model), jnp.float32))
    return jax.jit(_sgd(loss_fn)).lower(*args)


def resnet_cnn_train_step(batch: int = 32, image: int = 32, widths=(32, 64, 128),
                          classes: int = 10):
    dn = ("NHWC", "HWIO", "NHWC")

    def conv(x, w, stride=1):
        return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                            dimension_numbers=dn)

    def norm(x, scale):
        mean = x.mean((0, 1, 2))
        var = x.var((0, 1, 2))
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale

    def loss_fn(p, x, labels):
        h = jax.nn.relu(norm(conv(x, p["stem"]), p["stem_scale"]))
        for i in range(len(widths)):
            s = p[f"stage{i}"]
            stride = 1 if i == 0 else 2
            y = jax.nn.relu(norm(conv(h, s["w1"], stride), s["s1"]))
            y = norm(conv(y, s["w2"]), s["s2"])
            shortcut = conv(h, s["proj"], stride) if "proj" in s else h
            h = jax.nn.relu(y + shortcut)
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        logits = h.mean((1, 2)) @ p["head"]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    z = lambda *s: jnp.zeros(s, jnp.float32)
    params = {"stem": z(3, 3, 3, widths[0]), "stem_scale": z(widths[0]),
              "head": z(widths[-1], classes)}
    prev = widths[0]
    for i, w in enumerate(widths):
        stage = {"w1": z(3, 3, prev, w), "s1": z(w), "w2": z(3, 3, w, w), "s2": z(w)}
        if prev != w or i > 0:
            stage["proj"] = z(1, 1, prev, w)
        params[f"stage{i}"] = stage
        prev = w
    args = (params, z(batch, image, image, 3), jnp.zeros((batch,), jnp.int32))
    return jax.jit(_sgd(loss_fn)).lower(*args)


EXAMPLES = {
    "mlp_train_step": mlp_train_step,
    "transformer_block_train_step": transformer_block_train_step,
    "resnet_cnn_train_step": resnet_cnn_train_step,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "programs"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, build in EXAMPLES.items():
        lowered = build()
        path = out / f"{name}.mlir"
        path.write_text(lowered.as_text(debug_info=True))
        flops = lowered.compile().cost_analysis()["flops"]
        print(f"{path}  ({path.stat().st_size / 1e3:.0f} kB, XLA flops {flops:.4g})")


if __name__ == "__main__":
    main()
