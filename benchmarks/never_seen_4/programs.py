"""The fourth never-seen set: programs written on 2026-11-25, after the third set
(benchmarks/never_seen_3/) had been run, and never used to choose anything: not for a
feature, a default, a fallback threshold or a model. They exist to judge the next
trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-4` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds neither the program zoo, fresh_programs.py nor the first
three never-seen sets has. Ten are training steps (forward, loss, backward and an
optimizer update): a WaveNet of gated dilated causal 1-D convolutions in channels-first
layout, a ResNeXt of grouped (not depthwise) 3x3 convolutions with batch norm in NCHW,
a DeepLab-style atrous spatial pyramid (dilated 2-D convolutions) for per-pixel
segmentation, a learned ISTA sparse coder unrolled by `lax.scan`, a Gumbel-softmax
categorical VAE, a FiLM-conditioned CNN whose question is a bag of words summed by
`segment_sum`, a two-tower retrieval model with embedding bags and an in-batch softmax,
a mixture-of-softmaxes language-model head, a dynamic-graph CNN (EdgeConv over k nearest
neighbours found by `top_k` and gathered), and a Hamiltonian neural network rolled out
by leapfrog steps under `lax.scan` (a gradient inside the loop, a second derivative in
the step). Five are inference or scientific steps without a gradient: an N-body
gravity integration under `lax.scan`, Metropolis sweeps of an Ising lattice drawing
random numbers inside a `fori_loop`, modern-Hopfield associative retrieval (bfloat16
memory, float32 accumulation) in a `fori_loop`, Kuramoto oscillators with pairwise
sines under `lax.scan`, and Jacobi-preconditioned conjugate gradients on a sparse
Poisson matrix (gather and `segment_sum` matrix-vector products) in a `fori_loop`.
The updates vary: plain SGD, SGD with global-norm clipping, momentum, Nesterov
momentum, RMSProp, Adagrad, Adam (with and without clipping), AdamW and Lion; two
training steps run in bfloat16.
"""

from __future__ import annotations

from typing import Any, Callable


def _tree_zeros(params):
    import jax
    import jax.numpy as jnp

    return jax.tree.map(jnp.zeros_like, params)


def _global_norm_scale(grads, max_norm: float):
    import jax
    import jax.numpy as jnp

    norm = jnp.sqrt(sum((g.astype(jnp.float32) ** 2).sum() for g in jax.tree.leaves(grads)))
    return jnp.minimum(1.0, max_norm / (norm + 1e-6))


def _sgd(loss_fn: Callable[..., Any], clip: float | None = None) -> Callable[..., Any]:
    import jax

    def step(params, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        scale = 1.0 if clip is None else _global_norm_scale(grads, clip)
        return jax.tree.map(lambda p, g: p - 1e-2 * scale * g, params, grads), loss
    return step


def _momentum(loss_fn: Callable[..., Any], nesterov: bool = False) -> Callable[..., Any]:
    import jax

    def step(state, *batch):
        params, velocity = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
        if nesterov:
            params = jax.tree.map(lambda p, v, g: p - 1e-2 * (g + 0.9 * v),
                                  params, velocity, grads)
        else:
            params = jax.tree.map(lambda p, v: p - 1e-2 * v, params, velocity)
        return (params, velocity), loss
    return step


def _rmsprop(loss_fn: Callable[..., Any]) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp

    def step(state, *batch):
        params, sq = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        sq = jax.tree.map(lambda s, g: 0.99 * s + 0.01 * g * g, sq, grads)
        params = jax.tree.map(lambda p, s, g: p - 1e-3 * g / (jnp.sqrt(s) + 1e-8),
                              params, sq, grads)
        return (params, sq), loss
    return step


def _adam_update(params, m, v, t, grads, decay: float = 0.0, b1: float = 0.9,
                 lr: float = 1e-3):
    import jax
    import jax.numpy as jnp

    t = t + 1
    m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v_, g: 0.999 * v_ + 0.001 * g * g, v, grads)
    c1 = 1 - b1 ** t.astype(jnp.float32)
    c2 = 1 - 0.999 ** t.astype(jnp.float32)

    def update(p, m_, v_):
        u = (m_ / c1) / (jnp.sqrt(v_ / c2) + 1e-8) + decay * p
        return p - (lr * u).astype(p.dtype)
    return jax.tree.map(update, params, m, v), m, v, t


def _adam(loss_fn: Callable[..., Any], decay: float = 0.0,
          clip: float | None = None) -> Callable[..., Any]:
    import jax

    def step(state, *batch):
        params, m, v, t = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        if clip is not None:
            scale = _global_norm_scale(grads, clip)
            grads = jax.tree.map(lambda g: (g * scale).astype(g.dtype), grads)
        params, m, v, t = _adam_update(params, m, v, t, grads, decay)
        return (params, m, v, t), loss
    return step


def _lion(loss_fn: Callable[..., Any]) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp

    def step(state, *batch):
        params, m = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params = jax.tree.map(lambda p, m_, g: p - 1e-4 * (jnp.sign(0.9 * m_ + 0.1 * g)
                                                         + 0.01 * p), params, m, grads)
        m = jax.tree.map(lambda m_, g: 0.99 * m_ + 0.01 * g, m, grads)
        return (params, m), loss
    return step


def _adagrad(loss_fn: Callable[..., Any]) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp

    def step(state, *batch):
        params, acc = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        acc = jax.tree.map(lambda a, g: a + g * g, acc, grads)
        params = jax.tree.map(lambda p, a, g: p - 5e-2 * g / (jnp.sqrt(a) + 1e-10),
                              params, acc, grads)
        return (params, acc), loss
    return step


def _adam_state(params: Any) -> Any:
    import jax.numpy as jnp

    return (params, _tree_zeros(params), _tree_zeros(params), jnp.zeros((), jnp.int32))


def _lower(optimizer: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    import jax

    if optimizer in ("sgd", "clipped_sgd"):
        step = _sgd(loss_fn, clip=1.0 if optimizer == "clipped_sgd" else None)
        return jax.jit(step).lower(params, *batch)
    if optimizer in ("momentum", "nesterov"):
        step = _momentum(loss_fn, nesterov=optimizer == "nesterov")
        return jax.jit(step).lower((params, _tree_zeros(params)), *batch)
    if optimizer == "rmsprop":
        return jax.jit(_rmsprop(loss_fn)).lower((params, _tree_zeros(params)), *batch)
    if optimizer in ("adam", "adamw", "clipped_adam"):
        step = _adam(loss_fn, decay=0.01 if optimizer == "adamw" else 0.0,
                     clip=1.0 if optimizer == "clipped_adam" else None)
        return jax.jit(step).lower(_adam_state(params), *batch)
    if optimizer == "adagrad":
        return jax.jit(_adagrad(loss_fn)).lower((params, _tree_zeros(params)), *batch)
    if optimizer == "lion":
        return jax.jit(_lion(loss_fn)).lower((params, _tree_zeros(params)), *batch)
    raise ValueError(optimizer)


def _ln(x):
    from jax import lax

    m = x.mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)


def _init(shapes: dict[str, tuple[int, ...]], scale: float = 0.02, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return {k: (jnp.ones(s, dtype or jnp.float32) * scale) for k, s in shapes.items()}


def _xent(logits, labels, classes: int):
    import jax

    return -(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, classes)).sum(-1).mean()


_NHWC = ("NHWC", "HWIO", "NHWC")


def _conv(x, w, stride: int = 1):
    import jax

    return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                        dimension_numbers=_NHWC)


def wavenet_causal(batch: int = 4, length: int = 1024, c: int = 32, skip: int = 64,
                   layers: int = 10, classes: int = 256) -> Any:
    """WaveNet on 8-bit (mu-law) samples: embedded samples, gated (tanh x sigmoid)
    causal convolutions of width 2 with dilations 1 to 512 in channels-first layout
    (NCW, left padding only), residual and skip 1x1 projections, a softmax over the
    next sample's 256 levels."""
    import jax
    import jax.numpy as jnp

    dn = ("NCW", "OIW", "NCW")

    def loss_fn(p, samples):
        x = p["embed"][samples[:, :-1]].transpose(0, 2, 1)                 # (b, c, l)
        out = jnp.zeros((batch, skip, length))
        for i, w in enumerate(p["layers"]):
            d = 2 ** i
            h = jax.lax.conv_general_dilated(x, w["dil"], (1,), [(d, 0)], rhs_dilation=(d,),
                                             dimension_numbers=dn)
            z = jnp.tanh(h[:, :c]) * jax.nn.sigmoid(h[:, c:])
            x = x + jnp.einsum("oc,bcl->bol", w["res"], z)
            out = out + jnp.einsum("oc,bcl->bol", w["skip"], z)
        h = jax.nn.relu(jnp.einsum("oc,bcl->bol", p["post1"], jax.nn.relu(out)))
        logits = jnp.einsum("oc,bcl->blo", p["post2"], h)
        return _xent(logits, samples[:, 1:], classes)

    p = _init({"embed": (classes, c), "post1": (skip, skip), "post2": (classes, skip)})
    p["layers"] = [_init({"dil": (2 * c, c, 2), "res": (c, c), "skip": (skip, c)})
                   for _ in range(layers)]
    return _lower("adam", loss_fn, p, jnp.zeros((batch, length + 1), jnp.int32))


def resnext_grouped(batch: int = 8, side: int = 32, c: int = 64, width: int = 128,
                    groups: int = 8, blocks: int = 2, classes: int = 100) -> Any:
    """ResNeXt bottleneck blocks in NCHW/OIHW layout: 1x1 reduce, a grouped 3x3
    convolution (8 groups of 16 channels, not depthwise), 1x1 expand, each followed by
    batch normalization over the batch's statistics."""
    import jax
    import jax.numpy as jnp

    dn = ("NCHW", "OIHW", "NCHW")

    def conv(x, w, stride=1, groups=1):
        return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                            dimension_numbers=dn, feature_group_count=groups)

    def bn(x, gb):
        m = x.mean((0, 2, 3), keepdims=True)
        v = ((x - m) ** 2).mean((0, 2, 3), keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * gb[0][:, None, None] + gb[1][:, None, None]

    def loss_fn(p, x, y):
        h = jax.nn.relu(bn(conv(x, p["stem"], 2), p["stem_bn"]))
        for b in p["blocks"]:
            r = jax.nn.relu(bn(conv(h, b["reduce"]), b["bn1"]))
            r = jax.nn.relu(bn(conv(r, b["grouped"], groups=groups), b["bn2"]))
            h = jax.nn.relu(h + bn(conv(r, b["expand"]), b["bn3"]))
        return _xent(h.mean((2, 3)) @ p["fc"], y, classes)

    def affine(n):
        return jnp.stack([jnp.ones((n,)), jnp.zeros((n,))])

    p = _init({"stem": (c, 3, 3, 3), "fc": (c, classes)})
    p["stem_bn"] = affine(c)
    p["blocks"] = [dict(_init({"reduce": (width, c, 1, 1),
                               "grouped": (width, width // groups, 3, 3),
                               "expand": (c, width, 1, 1)}),
                        bn1=affine(width), bn2=affine(width), bn3=affine(c))
                   for _ in range(blocks)]
    return _lower("nesterov", loss_fn, p, jnp.ones((batch, 3, side, side)),
                  jnp.zeros((batch,), jnp.int32))


def aspp_segmentation(batch: int = 8, side: int = 64, c: int = 64, classes: int = 21,
                      rates: tuple[int, ...] = (2, 4, 6)) -> Any:
    """A DeepLab-v3-style segmenter (bfloat16): a strided stem to a quarter of the
    side, an atrous spatial pyramid (a 1x1 branch, 3x3 convolutions dilated by 2, 4 and
    6, and an image-pooling branch) concatenated and projected, logits resized
    bilinearly to the input and a per-pixel cross-entropy."""
    import jax
    import jax.numpy as jnp

    bf16 = jnp.bfloat16

    def atrous(x, w, rate):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(rate, rate),
                                            dimension_numbers=_NHWC)

    def loss_fn(p, x, labels):
        h = jax.nn.relu(_conv(x, p["s1"], 2))
        h = jax.nn.relu(_conv(h, p["s2"], 2))
        branches = [jax.nn.relu(h @ p["b0"])]
        branches += [jax.nn.relu(atrous(h, p[f"b{i + 1}"], r)) for i, r in enumerate(rates)]
        pooled = jax.nn.relu(h.mean((1, 2), keepdims=True) @ p["pool"])
        branches.append(jnp.broadcast_to(pooled, branches[0].shape))
        h = jax.nn.relu(jnp.concatenate(branches, -1) @ p["proj"])
        logits = jax.image.resize(h @ p["cls"], (batch, side, side, classes), "bilinear")
        return _xent(logits.astype(jnp.float32), labels, classes)

    shapes = {"s1": (3, 3, 3, c // 2), "s2": (3, 3, c // 2, c), "b0": (c, c), "pool": (c, c),
              "proj": ((len(rates) + 2) * c, c), "cls": (c, classes)}
    shapes |= {f"b{i + 1}": (3, 3, c, c) for i in range(len(rates))}
    p = _init(shapes, dtype=bf16)
    return _lower("momentum", loss_fn, p, jnp.ones((batch, side, side, 3), bf16),
                  jnp.zeros((batch, side, side), jnp.int32))


def lista_sparse_coding(batch: int = 128, n: int = 256, m: int = 512,
                        iterations: int = 12) -> Any:
    """Learned ISTA: a sparse code refined by `lax.scan` over eleven iterations of
    z <- soft-threshold(W x + S z, theta_k) with a learned threshold per iteration,
    the code decoded by a learned dictionary, trained on reconstruction plus an L1
    penalty."""
    import jax
    import jax.numpy as jnp

    def shrink(u, theta):
        return jnp.sign(u) * jax.nn.relu(jnp.abs(u) - theta)

    def loss_fn(p, x):
        b = x @ p["we"]

        def step(z, theta):
            return shrink(b + z @ p["s"], theta), None

        z, _ = jax.lax.scan(step, shrink(b, p["theta"][0]), p["theta"][1:])
        recon = z @ p["dict"]
        return ((recon - x) ** 2).sum(-1).mean() + 0.1 * jnp.abs(z).sum(-1).mean()

    p = _init({"we": (n, m), "s": (m, m), "dict": (m, n)})
    p["theta"] = jnp.full((iterations, m), 0.1)
    return _lower("rmsprop", loss_fn, p, jnp.ones((batch, n)))


def gumbel_softmax_vae(batch: int = 256, d_in: int = 784, hidden: int = 512,
                       latents: int = 32, categories: int = 16, tau: float = 0.5) -> Any:
    """A categorical VAE (bfloat16 weights and activations): 32 latent variables of 16
    categories sampled by the Gumbel-softmax relaxation of given uniform noise, a
    Bernoulli decoder, and the KL divergence to a uniform prior (float32 losses)."""
    import jax
    import jax.numpy as jnp

    bf16 = jnp.bfloat16

    def loss_fn(p, x, u):
        h = jax.nn.relu(jax.nn.relu(x @ p["e1"]) @ p["e2"])
        logits = (h @ p["e3"]).reshape(batch, latents, categories).astype(jnp.float32)
        gumbel = -jnp.log(-jnp.log(u + 1e-10) + 1e-10)
        y = jax.nn.softmax((logits + gumbel) / tau, -1).astype(bf16)
        h = jax.nn.relu(jax.nn.relu(y.reshape(batch, -1) @ p["d1"]) @ p["d2"])
        out = (h @ p["d3"]).astype(jnp.float32)
        recon = (jax.nn.softplus(out) - x.astype(jnp.float32) * out).sum(-1)
        log_q = jax.nn.log_softmax(logits, -1)
        kl = (jnp.exp(log_q) * (log_q + jnp.log(categories))).sum((1, 2))
        return (recon + kl).mean()

    z = latents * categories
    p = _init({"e1": (d_in, hidden), "e2": (hidden, hidden), "e3": (hidden, z),
               "d1": (z, hidden), "d2": (hidden, hidden), "d3": (hidden, d_in)}, dtype=bf16)
    return _lower("adamw", loss_fn, p, jnp.ones((batch, d_in), bf16),
                  jnp.full((batch, latents, categories), 0.5))


def film_cnn(batch: int = 16, side: int = 32, c: int = 32, blocks: int = 3,
             vocab: int = 1000, d: int = 128, words: int = 12, answers: int = 28) -> Any:
    """A FiLM visual-question model: each question a bag of word embeddings summed by
    `segment_sum` over a flat token list, an MLP writing a per-channel scale and shift
    for every residual block of a CNN, max-pooled features classified into answers."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, img, tokens, question, y):
        bag = jax.ops.segment_sum(p["embed"][tokens], question, num_segments=batch,
                                  indices_are_sorted=True) / words
        film = (jax.nn.relu(bag @ p["q1"]) @ p["film"]).reshape(batch, blocks, 2, c)
        h = jax.nn.relu(_conv(img, p["stem"], 2))
        for i, b in enumerate(p["blocks"]):
            r = _conv(jax.nn.relu(_conv(h, b["c1"])), b["c2"])
            r = (r - r.mean((1, 2), keepdims=True)) * jax.lax.rsqrt(
                r.var((1, 2), keepdims=True) + 1e-5)
            r = r * (1 + film[:, i, 0][:, None, None]) + film[:, i, 1][:, None, None]
            h = h + jax.nn.relu(r)
        return _xent(jax.nn.relu(h.max((1, 2)) @ p["fc1"]) @ p["fc2"], y, answers)

    p = _init({"embed": (vocab, d), "q1": (d, d), "film": (d, blocks * 2 * c),
               "stem": (3, 3, 3, c), "fc1": (c, 4 * c), "fc2": (4 * c, answers)})
    p["blocks"] = [_init({"c1": (3, 3, c, c), "c2": (3, 3, c, c)}) for _ in range(blocks)]
    return _lower("lion", loss_fn, p, jnp.ones((batch, side, side, 3)),
                  jnp.zeros((batch * words,), jnp.int32),
                  jnp.repeat(jnp.arange(batch, dtype=jnp.int32), words),
                  jnp.zeros((batch,), jnp.int32))


def two_tower_retrieval(batch: int = 1024, history: int = 20, tags: int = 4,
                        items: int = 32768, tag_vocab: int = 4096, d: int = 64,
                        hidden: int = 128, temperature: float = 0.05) -> Any:
    """A two-tower retriever: the user tower reads an embedding bag of the items in the
    user's history (gather, `segment_sum`) and dense features, the item tower the item's
    embedding and a bag of its tags; L2-normalized towers scored by an in-batch softmax
    with the sampling-probability (logQ) correction; Adagrad over whole tables."""
    import jax
    import jax.numpy as jnp

    def tower(w, x):
        h = jax.nn.relu(x @ w["w1"]) @ w["w2"]
        return h * jax.lax.rsqrt((h ** 2).sum(-1, keepdims=True) + 1e-6)

    def bag(table, ids, segments, count):
        return jax.ops.segment_sum(table[ids], segments, num_segments=batch,
                                   indices_are_sorted=True) / count

    def loss_fn(p, hist, hist_seg, dense, item, item_tags, tag_seg, log_q):
        user = tower(p["user"], jnp.concatenate(
            [bag(p["items"], hist, hist_seg, history), dense @ p["dense"]], -1))
        cand = tower(p["item"], jnp.concatenate(
            [p["items"][item], bag(p["tags"], item_tags, tag_seg, tags)], -1))
        logits = user @ cand.T / temperature - log_q[None]
        return _xent(logits, jnp.arange(batch), batch)

    p = _init({"items": (items, d), "tags": (tag_vocab, d), "dense": (32, d)}, 0.01)
    p["user"] = _init({"w1": (2 * d, hidden), "w2": (hidden, d)}, 0.05)
    p["item"] = _init({"w1": (2 * d, hidden), "w2": (hidden, d)}, 0.05)
    segments = jnp.arange(batch, dtype=jnp.int32)
    return _lower("adagrad", loss_fn, p, jnp.zeros((batch * history,), jnp.int32),
                  jnp.repeat(segments, history), jnp.ones((batch, 32)),
                  jnp.zeros((batch,), jnp.int32), jnp.zeros((batch * tags,), jnp.int32),
                  jnp.repeat(segments, tags), jnp.full((batch,), -8.0))


def mixture_of_softmaxes(batch: int = 256, context: int = 4, vocab: int = 4096,
                         d: int = 128, hidden: int = 512, mixtures: int = 4) -> Any:
    """A feed-forward n-gram language model with a mixture-of-softmaxes head: the
    concatenated context embeddings, four components each projected to the embedding
    space and scored against the tied embedding table, their log-softmaxes mixed by a
    context-dependent prior with a logsumexp."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, ctx, target):
        h = jnp.tanh(p["embed"][ctx].reshape(batch, context * d) @ p["h1"])
        log_prior = jax.nn.log_softmax(h @ p["prior"])                        # (b, k)
        comps = jnp.tanh(h @ p["comp"]).reshape(batch, mixtures, d)
        log_p = jax.nn.log_softmax(comps @ p["embed"].T + p["bias"], -1)       # (b, k, v)
        mixed = jax.nn.logsumexp(log_prior[..., None] + log_p, 1)             # (b, v)
        return -jnp.take_along_axis(mixed, target[:, None], 1).mean()

    p = _init({"embed": (vocab, d), "h1": (context * d, hidden), "prior": (hidden, mixtures),
               "comp": (hidden, mixtures * d), "bias": (vocab,)})
    return _lower("clipped_sgd", loss_fn, p, jnp.zeros((batch, context), jnp.int32),
                  jnp.zeros((batch,), jnp.int32))


def dgcnn_edgeconv(batch: int = 4, points: int = 512, k: int = 16, c: int = 64,
                   classes: int = 40) -> Any:
    """A dynamic graph CNN on point clouds: two EdgeConv layers, each finding the k
    nearest neighbours in its own input features (pairwise distances, `top_k`),
    gathering them, applying an MLP to [x_i, x_j - x_i] and max-pooling over the
    neighbours; global max and mean pooling, then a classifier."""
    import jax
    import jax.numpy as jnp

    def edge_conv(x, w):
        sq = (x ** 2).sum(-1)
        dist = sq[:, :, None] + sq[:, None, :] - 2 * jnp.einsum("bnf,bmf->bnm", x, x)
        _, idx = jax.lax.top_k(-jax.lax.stop_gradient(dist), k)                # (b, n, k)
        neighbours = jax.vmap(lambda xb, ib: xb[ib])(x, idx)                  # (b, n, k, f)
        centre = jnp.broadcast_to(x[:, :, None], neighbours.shape)
        edges = jnp.concatenate([centre, neighbours - centre], -1)
        return jax.nn.leaky_relu(edges @ w, 0.2).max(2)

    def loss_fn(p, x, y):
        h1 = edge_conv(x, p["e1"])
        h2 = edge_conv(h1, p["e2"])
        h = jax.nn.leaky_relu(jnp.concatenate([h1, h2], -1) @ p["emb"], 0.2)
        g = jnp.concatenate([h.max(1), h.mean(1)], -1)
        return _xent(jax.nn.leaky_relu(g @ p["fc1"], 0.2) @ p["fc2"], y, classes)

    p = _init({"e1": (6, c), "e2": (2 * c, c), "emb": (2 * c, 4 * c), "fc1": (8 * c, 4 * c),
               "fc2": (4 * c, classes)}, 0.05)
    return _lower("clipped_adam", loss_fn, p, jnp.ones((batch, points, 3)),
                  jnp.zeros((batch,), jnp.int32))


def hamiltonian_leapfrog(batch: int = 256, dim: int = 16, hidden: int = 128,
                         steps: int = 10, dt: float = 0.1) -> Any:
    """A Hamiltonian neural network: a scalar energy H(q, p) from an MLP, trajectories
    rolled out by leapfrog steps under `lax.scan` using its gradients dH/dq and dH/dp,
    fitted to observed trajectories (a second derivative of the MLP in the step)."""
    import jax
    import jax.numpy as jnp

    def energy(w, q, mom):
        h = jnp.tanh(jnp.concatenate([q, mom], -1) @ w["w1"] + w["b1"])
        h = jnp.tanh(h @ w["w2"] + w["b2"])
        return (h @ w["w3"]).sum()

    dh_dq = jax.grad(energy, 1)
    dh_dp = jax.grad(energy, 2)

    def loss_fn(w, q0, p0, observed):
        def step(state, target):
            q, mom = state
            half = mom - 0.5 * dt * dh_dq(w, q, mom)
            q = q + dt * dh_dp(w, q, half)
            mom = half - 0.5 * dt * dh_dq(w, q, half)
            return (q, mom), ((q - target[0]) ** 2 + (mom - target[1]) ** 2).mean()

        _, errors = jax.lax.scan(step, (q0, p0), observed)
        return errors.mean()

    w = _init({"w1": (2 * dim, hidden), "b1": (hidden,), "w2": (hidden, hidden),
               "b2": (hidden,), "w3": (hidden, 1)}, 0.05)
    x = jnp.ones((batch, dim))
    return _lower("sgd", loss_fn, w, x, x, jnp.ones((steps, 2, batch, dim)))


def nbody_gravity(bodies: int = 1024, steps: int = 12, dt: float = 1e-3,
                  softening: float = 1e-2) -> Any:
    """Inference: a direct-summation gravitational N-body system advanced by velocity
    Verlet steps under `lax.scan` (all pairwise softened inverse-cube forces each step),
    returning the final state and the kinetic energy after every step."""
    import jax
    import jax.numpy as jnp

    def accel(x, m):
        diff = x[None, :, :] - x[:, None, :]                                    # (n, n, 3)
        inv = jax.lax.rsqrt((diff ** 2).sum(-1) + softening ** 2)
        return jnp.einsum("ij,ijk->ik", m[None, :] * inv ** 3, diff)

    def run(x, v, m):
        def step(state, _):
            x, v, a = state
            v = v + 0.5 * dt * a
            x = x + dt * v
            a = accel(x, m)
            v = v + 0.5 * dt * a
            return (x, v, a), 0.5 * (m * (v ** 2).sum(-1)).sum()

        (x, v, _), kinetic = jax.lax.scan(step, (x, v, accel(x, m)), None, length=steps)
        return x, v, kinetic

    kx, kv = jax.random.split(jax.random.PRNGKey(0))
    return jax.jit(run).lower(jax.random.normal(kx, (bodies, 3)),
                              0.1 * jax.random.normal(kv, (bodies, 3)),
                              jnp.full((bodies,), 1.0 / bodies))


def ising_metropolis(chains: int = 4, side: int = 128, sweeps: int = 12,
                     beta: float = 0.44) -> Any:
    """Inference: checkerboard Metropolis sweeps of 2-D Ising lattices (periodic
    boundaries) in a `fori_loop` over half-sweeps, each drawing its uniforms from a
    key folded with the iteration and accepting by exp(-beta dE); returns the spins,
    magnetization and energy per site."""
    import jax
    import jax.numpy as jnp

    def neighbours(s):
        return (jnp.roll(s, 1, 1) + jnp.roll(s, -1, 1) + jnp.roll(s, 1, 2)
                + jnp.roll(s, -1, 2))

    def run(spins, key):
        parity = (jnp.arange(side)[:, None] + jnp.arange(side)[None, :]) % 2

        def half_sweep(i, s):
            d_e = 2.0 * s * neighbours(s)
            u = jax.random.uniform(jax.random.fold_in(key, i), s.shape)
            flip = (u < jnp.exp(-beta * d_e)) & (parity == i % 2)
            return jnp.where(flip, -s, s)

        s = jax.lax.fori_loop(0, 2 * sweeps, half_sweep, spins)
        return s, s.mean((1, 2)), -(s * neighbours(s)).mean((1, 2)) / 2

    spins = jnp.where(jax.random.bernoulli(jax.random.PRNGKey(1), 0.5, (chains, side, side)),
                      1.0, -1.0)
    return jax.jit(run).lower(spins, jax.random.PRNGKey(0))


def hopfield_retrieval(queries: int = 256, patterns: int = 4096, d: int = 128,
                       iterations: int = 4, beta: float = 8.0) -> Any:
    """Inference: modern-Hopfield (continuous) associative memory retrieval: noisy
    queries updated in a `fori_loop` by xi <- softmax(beta xi X^T) X against a bfloat16
    pattern memory with float32 accumulation, then the nearest stored pattern gathered
    for each query along with its log-sum-exp energy."""
    import jax
    import jax.numpy as jnp

    bf16 = jnp.bfloat16

    def scores(xi, memory):
        return jnp.einsum("qd,pd->qp", xi.astype(bf16), memory,
                          preferred_element_type=jnp.float32)

    def run(memory, xi):
        def update(_, xi):
            a = jax.nn.softmax(beta * scores(xi, memory), -1)
            return jnp.einsum("qp,pd->qd", a.astype(bf16), memory,
                              preferred_element_type=jnp.float32)

        xi = jax.lax.fori_loop(0, iterations, update, xi)
        s = scores(xi, memory)
        energy = -jax.nn.logsumexp(beta * s, -1) / beta + 0.5 * (xi ** 2).sum(-1)
        return xi, memory[jnp.argmax(s, -1)], energy

    km, kq = jax.random.split(jax.random.PRNGKey(0))
    memory = jnp.sign(jax.random.normal(km, (patterns, d))) / jnp.sqrt(d)
    xi = memory[:queries] + 0.05 * jax.random.normal(kq, (queries, d))
    return jax.jit(run).lower(memory.astype(bf16), xi)


def kuramoto_oscillators(oscillators: int = 512, steps: int = 64, dt: float = 0.05) -> Any:
    """Inference: Sakaguchi-Kuramoto oscillators with a dense coupling matrix and
    pairwise phase lags, integrated by Euler steps under `lax.scan` (a sine of every
    pair each step), returning the phases and the order parameter after each step."""
    import jax
    import jax.numpy as jnp

    def run(theta, omega, coupling, lag):
        def step(theta, _):
            pull = (coupling * jnp.sin(theta[None, :] - theta[:, None] - lag)).mean(1)
            theta = jnp.mod(theta + dt * (omega + pull), 2 * jnp.pi)
            order = jnp.sqrt(jnp.cos(theta).mean() ** 2 + jnp.sin(theta).mean() ** 2)
            return theta, order

        return jax.lax.scan(step, theta, None, length=steps)

    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    n = oscillators
    return jax.jit(run).lower(jax.random.uniform(k1, (n,), maxval=2 * jnp.pi),
                              jax.random.normal(k2, (n,)),
                              2.0 * jax.random.uniform(k3, (n, n)),
                              jnp.full((n, n), 0.3))


def conjugate_gradient_poisson(side: int = 128, iterations: int = 48) -> Any:
    """Inference: Jacobi-preconditioned conjugate gradients in a `fori_loop` on a 2-D
    Poisson problem (5-point stencil, shifted) stored as a coordinate list, each
    matrix-vector product a gather of the vector and a `segment_sum` over rows."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    n = side * side
    i, j = np.divmod(np.arange(n), side)
    cols = [np.arange(n)]
    vals = [np.full(n, 4.01)]
    for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        ok = (i + di >= 0) & (i + di < side) & (j + dj >= 0) & (j + dj < side)
        cols.append(np.where(ok, (i + di) * side + (j + dj), np.arange(n)))
        vals.append(np.where(ok, -1.0, 0.0))
    rows = np.repeat(np.arange(n), 5).astype(np.int32)
    cols = np.stack(cols, 1).reshape(-1).astype(np.int32)
    vals = np.stack(vals, 1).reshape(-1).astype(np.float32)

    def run(rows, cols, vals, b):
        def matvec(x):
            return jax.ops.segment_sum(vals * x[cols], rows, num_segments=n,
                                       indices_are_sorted=True)

        diag = jax.ops.segment_sum(jnp.where(rows == cols, vals, 0.0), rows, num_segments=n,
                                   indices_are_sorted=True)

        def body(_, state):
            x, r, p, rz = state
            ap = matvec(p)
            alpha = rz / (p @ ap)
            x = x + alpha * p
            r = r - alpha * ap
            z = r / diag
            rz_new = r @ z
            return x, r, z + (rz_new / rz) * p, rz_new

        z = b / diag
        x, r, _, _ = jax.lax.fori_loop(0, iterations, body, (jnp.zeros_like(b), b, z, b @ z))
        return x, jnp.sqrt(r @ r)

    return jax.jit(run).lower(jnp.asarray(rows), jnp.asarray(cols), jnp.asarray(vals),
                              jnp.ones((n,)))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "wavenet_causal/1024x10-layers": wavenet_causal,
    "resnext_grouped/32px-g8": resnext_grouped,
    "aspp_segmentation/64px-bf16": aspp_segmentation,
    "lista_sparse_coding/256x512-k12": lista_sparse_coding,
    "gumbel_softmax_vae/32x16-bf16": gumbel_softmax_vae,
    "film_cnn/32px-c32": film_cnn,
    "two_tower_retrieval/1024x32768": two_tower_retrieval,
    "mixture_of_softmaxes/4096-k4": mixture_of_softmaxes,
    "dgcnn_edgeconv/512-points-k16": dgcnn_edgeconv,
    "hamiltonian_leapfrog/10-steps": hamiltonian_leapfrog,
    "nbody_gravity/1024-bodies": nbody_gravity,
    "ising_metropolis/4x128x128": ising_metropolis,
    "hopfield_retrieval/4096-patterns": hopfield_retrieval,
    "kuramoto_oscillators/512x64": kuramoto_oscillators,
    "conjugate_gradient_poisson/128x128": conjugate_gradient_poisson,
}
