"""Programs written after the bundled models were trained and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained models once. The file's SHA-256 is committed beside it
(`SHA256`); `fresh_programs.py --set never-seen` refuses to run when the file no longer
matches it, since an edited set is no longer unseen.

Twelve training steps (forward, loss, backward, plain SGD) of kinds neither the program
zoo nor fresh_programs.py has: a ViT classifier, a U-Net block, a DLRM-style
recommender, a gated 1-D convolution stack, a contrastive siamese encoder, an RMSNorm
SiLU MLP, encoder-decoder cross-attention, RBF kernel regression, a 1-D ConvMixer,
teacher-student distillation, unrolled capsule routing and a squeeze-and-excitation CNN.
"""

from __future__ import annotations

from typing import Any, Callable


def _sgd(loss_fn: Callable[..., Any]) -> Callable[..., Any]:
    import jax

    def step(params, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads), loss
    return step


def _lower(loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    import jax

    return jax.jit(_sgd(loss_fn)).lower(params, *batch)


def _ln(x):
    from jax import lax

    m = x.mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)


def vit_classifier(batch: int = 8, image: int = 64, patch: int = 8, d: int = 192,
                   blocks: int = 2, classes: int = 100) -> Any:
    import jax
    import jax.numpy as jnp

    n = (image // patch) ** 2

    def loss_fn(p, x, y):
        patches = x.reshape(batch, image // patch, patch, image // patch, patch, 3)
        patches = patches.transpose(0, 1, 3, 2, 4, 5).reshape(batch, n, patch * patch * 3)
        h = patches @ p["embed"] + p["pos"]
        for b in p["blocks"]:
            a = _ln(h)
            s = jnp.einsum("bqd,bkd->bqk", a @ b["q"], a @ b["k"]) / jnp.sqrt(d)
            h = h + jax.nn.softmax(s, -1) @ (a @ b["v"])
            h = h + jax.nn.gelu(_ln(h) @ b["up"]) @ b["down"]
        logits = _ln(h.mean(1)) @ p["head"]
        return -(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, classes)).sum(-1).mean()

    p = {"embed": jnp.ones((patch * patch * 3, d)) * 0.01, "pos": jnp.zeros((n, d)),
         "head": jnp.ones((d, classes)) * 0.01,
         "blocks": [{k: jnp.ones(s) * 0.01 for k, s in (("q", (d, d)), ("k", (d, d)),
                                                        ("v", (d, d)), ("up", (d, 4 * d)),
                                                        ("down", (4 * d, d)))}
                    for _ in range(blocks)]}
    return _lower(loss_fn, p, jnp.ones((batch, image, image, 3)),
                  jnp.zeros((batch,), jnp.int32))


def unet_block(batch: int = 4, side: int = 64, c: int = 32) -> Any:
    import jax
    import jax.numpy as jnp

    dn = ("NHWC", "HWIO", "NHWC")

    def conv(x, w, stride=1):
        return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                            dimension_numbers=dn)

    def loss_fn(p, x):
        e1 = jax.nn.relu(conv(x, p["e1"]))
        e2 = jax.nn.relu(conv(e1, p["e2"], 2))
        mid = jax.nn.relu(conv(e2, p["mid"]))
        up = jax.lax.conv_transpose(mid, p["up"], (2, 2), "SAME", dimension_numbers=dn)
        d1 = jax.nn.relu(conv(jnp.concatenate([up, e1], -1), p["d1"]))
        return ((conv(d1, p["out"]) - x) ** 2).mean()

    p = {"e1": (3, 3, 3, c), "e2": (3, 3, c, 2 * c), "mid": (3, 3, 2 * c, 2 * c),
         "up": (2, 2, 2 * c, c), "d1": (3, 3, 2 * c, c), "out": (1, 1, c, 3)}
    return _lower(loss_fn, {k: jnp.ones(s) * 0.01 for k, s in p.items()},
                  jnp.ones((batch, side, side, 3)))


def dlrm_recommender(batch: int = 512, tables: int = 8, rows: int = 4096, d: int = 64) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, dense, ids, y):
        bottom = jax.nn.relu(jax.nn.relu(dense @ p["b1"]) @ p["b2"])
        embs = [p["tables"][t][ids[:, t]] for t in range(tables)]
        feats = jnp.stack([bottom, *embs], 1)
        inter = jnp.einsum("bid,bjd->bij", feats, feats).reshape(batch, -1)
        top = jax.nn.relu(jnp.concatenate([bottom, inter], -1) @ p["t1"]) @ p["t2"]
        return jnp.mean(jax.nn.softplus(top[:, 0]) - y * top[:, 0])

    f = tables + 1
    p = {"b1": jnp.ones((13, 256)) * 0.01, "b2": jnp.ones((256, d)) * 0.01,
         "tables": [jnp.ones((rows, d)) * 0.01 for _ in range(tables)],
         "t1": jnp.ones((d + f * f, 256)) * 0.01, "t2": jnp.ones((256, 1)) * 0.01}
    return _lower(loss_fn, p, jnp.ones((batch, 13)), jnp.zeros((batch, tables), jnp.int32),
                  jnp.ones((batch,)))


def gated_conv1d(batch: int = 16, length: int = 512, c: int = 128, layers: int = 4) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x):
        for w in p:
            h = jax.lax.conv_general_dilated(x, w, (1,), "SAME",
                                             dimension_numbers=("NWC", "WIO", "NWC"))
            a, g = jnp.split(h, 2, axis=-1)
            x = x + a * jax.nn.sigmoid(g)
        return (x ** 2).mean()

    return _lower(loss_fn, [jnp.ones((5, c, 2 * c)) * 0.01 for _ in range(layers)],
                  jnp.ones((batch, length, c)))


def siamese_contrastive(batch: int = 256, dim: int = 512, embed: int = 128) -> Any:
    import jax
    import jax.numpy as jnp

    def encode(p, x):
        h = jax.nn.relu(x @ p["w1"])
        z = h @ p["w2"]
        return z / jnp.linalg.norm(z, axis=-1, keepdims=True)

    def loss_fn(p, a, b):
        sim = encode(p, a) @ encode(p, b).T / 0.07
        return -(jnp.diag(jax.nn.log_softmax(sim, -1))).mean()

    p = {"w1": jnp.ones((dim, 512)) * 0.01, "w2": jnp.ones((512, embed)) * 0.01}
    return _lower(loss_fn, p, jnp.ones((batch, dim)), jnp.ones((batch, dim)) * 0.5)


def rmsnorm_silu_mlp(batch: int = 128, d: int = 384, layers: int = 6) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x):
        for layer in p:
            n = x * jax.lax.rsqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * layer["g"]
            x = x + jax.nn.silu(n @ layer["up"]) @ layer["down"]
        return (x ** 2).mean()

    p = [{"g": jnp.ones((d,)), "up": jnp.ones((d, 3 * d)) * 0.01,
          "down": jnp.ones((3 * d, d)) * 0.01} for _ in range(layers)]
    return _lower(loss_fn, p, jnp.ones((batch, d)))


def cross_attention(batch: int = 4, queries: int = 128, memory: int = 512,
                    d: int = 256) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, q_in, mem):
        q, k, v = q_in @ p["q"], mem @ p["k"], mem @ p["v"]
        s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(d)
        out = jax.nn.softmax(s, -1) @ v
        return ((_ln(q_in + out @ p["o"])) ** 2).mean()

    p = {k: jnp.ones((d, d)) * 0.01 for k in ("q", "k", "v", "o")}
    return _lower(loss_fn, p, jnp.ones((batch, queries, d)), jnp.ones((batch, memory, d)))


def rbf_kernel_regression(points: int = 1024, centers: int = 512, dim: int = 32) -> Any:
    import jax.numpy as jnp

    def loss_fn(p, x, y):
        d2 = (x ** 2).sum(-1)[:, None] + (p["c"] ** 2).sum(-1)[None] - 2 * x @ p["c"].T
        k = jnp.exp(-d2 / (2 * p["scale"] ** 2))
        return ((k @ p["alpha"] - y) ** 2).mean()

    p = {"c": jnp.ones((centers, dim)) * 0.1, "alpha": jnp.zeros((centers,)),
         "scale": jnp.ones(())}
    return _lower(loss_fn, p, jnp.ones((points, dim)), jnp.ones((points,)))


def convmixer_1d(batch: int = 16, length: int = 1024, c: int = 96, depth: int = 4,
                 kernel: int = 9) -> Any:
    import jax
    import jax.numpy as jnp

    dn = ("NWC", "WIO", "NWC")

    def loss_fn(p, x):
        for layer in p:
            dw = jax.lax.conv_general_dilated(x, layer["dw"], (1,), "SAME",
                                              dimension_numbers=dn, feature_group_count=c)
            x = x + jax.nn.gelu(dw)
            x = jax.nn.gelu(x @ layer["pw"])
        return (x.mean(1) ** 2).mean()

    p = [{"dw": jnp.ones((kernel, 1, c)) * 0.1, "pw": jnp.ones((c, c)) * 0.01}
         for _ in range(depth)]
    return _lower(loss_fn, p, jnp.ones((batch, length, c)))


def distillation(batch: int = 256, dim: int = 256, classes: int = 1000) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x, teacher_w):
        teacher = jax.lax.stop_gradient(jax.nn.log_softmax((x @ teacher_w) / 2.0))
        student = jax.nn.log_softmax((jax.nn.relu(x @ p["w1"]) @ p["w2"]) / 2.0)
        return (jnp.exp(teacher) * (teacher - student)).sum(-1).mean()

    p = {"w1": jnp.ones((dim, 128)) * 0.01, "w2": jnp.ones((128, classes)) * 0.01}
    return _lower(loss_fn, p, jnp.ones((batch, dim)), jnp.ones((dim, classes)) * 0.01)


def capsule_routing(batch: int = 32, inputs: int = 256, outputs: int = 16, d_in: int = 8,
                    d_out: int = 16, iterations: int = 3) -> Any:
    import jax
    import jax.numpy as jnp

    def squash(s):
        n2 = (s ** 2).sum(-1, keepdims=True)
        return n2 / (1 + n2) * s / jnp.sqrt(n2 + 1e-8)

    def loss_fn(p, u):
        u_hat = jnp.einsum("bid,iode->bioe", u, p["w"])
        logits = jnp.zeros((batch, inputs, outputs))
        for _ in range(iterations):
            c = jax.nn.softmax(logits, axis=-1)
            v = squash(jnp.einsum("bio,bioe->boe", c, u_hat))
            logits = logits + jnp.einsum("bioe,boe->bio", u_hat, v)
        return ((jnp.linalg.norm(v, axis=-1) - 0.5) ** 2).mean()

    p = {"w": jnp.ones((inputs, outputs, d_in, d_out)) * 0.01}
    return _lower(loss_fn, p, jnp.ones((batch, inputs, d_in)))


def squeeze_excite_cnn(batch: int = 16, side: int = 32, c: int = 64, blocks: int = 3) -> Any:
    import jax
    import jax.numpy as jnp

    dn = ("NHWC", "HWIO", "NHWC")

    def loss_fn(p, x):
        h = jax.lax.conv_general_dilated(x, p["stem"], (1, 1), "SAME", dimension_numbers=dn)
        for b in p["blocks"]:
            r = jax.nn.relu(jax.lax.conv_general_dilated(h, b["conv"], (1, 1), "SAME",
                                                         dimension_numbers=dn))
            se = jax.nn.sigmoid(jax.nn.relu(r.mean((1, 2)) @ b["s1"]) @ b["s2"])
            h = h + r * se[:, None, None, :]
        return (h.mean((1, 2)) ** 2).mean()

    p = {"stem": jnp.ones((3, 3, 3, c)) * 0.01,
         "blocks": [{"conv": jnp.ones((3, 3, c, c)) * 0.01, "s1": jnp.ones((c, c // 4)) * 0.1,
                     "s2": jnp.ones((c // 4, c)) * 0.1} for _ in range(blocks)]}
    return _lower(loss_fn, p, jnp.ones((batch, side, side, 3)))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "vit_classifier/64px-p8-d192": vit_classifier,
    "unet_block/64px-c32": unet_block,
    "dlrm_recommender/8x4096": dlrm_recommender,
    "gated_conv1d/512x128-l4": gated_conv1d,
    "siamese_contrastive/256x512": siamese_contrastive,
    "rmsnorm_silu_mlp/384-l6": rmsnorm_silu_mlp,
    "cross_attention/128x512": cross_attention,
    "rbf_kernel_regression/1024x512": rbf_kernel_regression,
    "convmixer_1d/1024x96-l4": convmixer_1d,
    "distillation/256x1000": distillation,
    "capsule_routing/256x16": capsule_routing,
    "squeeze_excite_cnn/32px-c64": squeeze_excite_cnn,
}
