"""The fifth never-seen set: programs written on 2026-11-25, after the fourth set
(benchmarks/never_seen_4/) had been run, and never used to choose anything: not for a
feature, a default, a fallback threshold or a model. They exist to judge the next
trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-5` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
four never-seen sets has. Ten are training steps (forward, loss, backward and an
optimizer update). A Conformer encoder puts a strided 2-D convolution front end ahead of
blocks that sandwich masked self-attention and a convolution module (GLU, a depthwise
1-D convolution of width 31, batch norm) between two half-step feed-forward layers. A
SchNet model passes messages between the atoms of small molecules through continuous
filters generated from radial-basis distance expansions, and is fitted to energies and
to forces (the negative gradient with respect to the positions, so the step holds a
second derivative). A Swin transformer in bfloat16 attends within 4x4 windows, every
second block over cyclically shifted windows with a static mask, adds relative position
biases gathered from a table and merges patches between its two stages. A causal
linear-attention language model replaces the softmax by an elu+1 feature map and
running sums (`cumsum`) of key-value outer products. A neural cellular automaton grows
a 3-D voxel shape by a `lax.scan` over update steps: fixed 3-D Sobel filters as a
depthwise 3-D convolution, a per-voxel MLP, random fire masks drawn inside the loop and
an alive mask from a 3x3x3 max-pooling window. A class-conditional gated PixelCNN in
bfloat16 stacks masked 2-D convolutions, alternately dilated, under a 256-way softmax
per pixel. A deep equilibrium model finds its fixed point by a `while_loop` that stops
on a residual tolerance and trains through one more differentiable application (a
Jacobian-free gradient). TabNet selects features step by step with sparsemax masks
(a sort, a cumulative sum and a gather of the threshold) and batch norm over the whole
batch. Slot attention refines object slots by a softmax over slots and a GRU update
under `lax.scan`, then decodes each slot by a spatial-broadcast transposed convolution
and mixes them by a softmax over slots. RotatE scores knowledge-graph triples by rotating
complex entity embeddings (complex64 arithmetic) against gathered negative tails with
self-adversarial weights. Five are inference or scientific steps without a gradient: a
Lax-Friedrichs shallow-water solver with Coriolis force and bottom topography in a
`fori_loop` of rolled stencils, a bootstrap particle filter whose systematic
resampling finds ancestors by `cumsum` and `searchsorted` under `lax.scan`, Viterbi
decoding of a hidden Markov model (max-plus and log-sum-exp recursions forward, the
back-pointers followed by a reverse `lax.scan`), Lloyd iterations of k-means (argmin
assignment, `segment_sum` centroids) in a `fori_loop`, and particle-mesh gravity
(cloud-in-cell scatter-add deposit, a 3-D real FFT Poisson solve, spectral gradients,
gathered interpolation) under a `fori_loop` of leapfrog steps. The updates vary: plain
SGD, SGD with global-norm clipping, momentum, Nesterov momentum, RMSProp, Adagrad, Adam
with clipping, AdaBelief, Adafactor (factored second moments) and Lion; two training
steps (the Swin transformer and the PixelCNN) run in bfloat16.
"""

from __future__ import annotations

from typing import Any, Callable


def _zeros(tree: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return jax.tree.map(jnp.zeros_like, tree)


def _clip(grads: Any, max_norm: float) -> Any:
    """The gradients scaled down to a global L2 norm of at most `max_norm`."""
    import jax
    import jax.numpy as jnp

    total = sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(grads))
    factor = max_norm / jnp.maximum(jnp.sqrt(total), max_norm)
    return jax.tree.map(lambda g: (g * factor).astype(g.dtype), grads)


def _optimizer(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The named update rule as (init, update): init(params) -> state, and
    update(params, grads, state) -> (params, state). Updates keep each parameter's dtype."""
    import jax
    import jax.numpy as jnp

    tm = jax.tree.map
    f32 = jnp.float32

    def apply(params, updates, lr):
        return tm(lambda p, u: (p.astype(f32) - lr * u.astype(f32)).astype(p.dtype),
                  params, updates)

    if name in ("sgd", "clipped_sgd"):
        def sgd(params, grads, state):
            if name == "clipped_sgd":
                grads = _clip(grads, 1.0)
            return apply(params, grads, 1e-2), state
        return (lambda params: ()), sgd

    if name in ("momentum", "nesterov"):
        def heavy_ball(params, grads, velocity):
            velocity = tm(lambda b, g: 0.9 * b + g, velocity, grads)
            direction = (tm(lambda b, g: g + 0.9 * b, velocity, grads)
                         if name == "nesterov" else velocity)
            return apply(params, direction, 1e-2), velocity
        return _zeros, heavy_ball

    if name == "rmsprop":
        def rmsprop(params, grads, mean_sq):
            mean_sq = tm(lambda s, g: 0.9 * s + 0.1 * g * g, mean_sq, grads)
            return apply(params, tm(lambda g, s: g / (jnp.sqrt(s) + 1e-7), grads, mean_sq),
                         1e-3), mean_sq
        return _zeros, rmsprop

    if name == "adagrad":
        def adagrad(params, grads, total):
            total = tm(lambda a, g: a + g * g, total, grads)
            return apply(params, tm(lambda g, a: g * jax.lax.rsqrt(a + 1e-10), grads, total),
                         1e-1), total
        return _zeros, adagrad

    if name == "lion":
        def lion(params, grads, m):
            direction = tm(lambda m_, g, p: jnp.sign(0.9 * m_ + 0.1 * g) + 0.1 * p,
                           m, grads, params)
            return apply(params, direction, 3e-4), tm(lambda m_, g: 0.99 * m_ + 0.01 * g, m, grads)
        return _zeros, lion

    if name in ("clipped_adam", "adabelief"):
        def init(params):
            return _zeros(params), _zeros(params), jnp.zeros((), jnp.int32)

        def adam(params, grads, state):
            m, s, t = state
            if name == "clipped_adam":
                grads = _clip(grads, 1.0)
            t = t + 1
            m = tm(lambda m_, g: 0.9 * m_ + 0.1 * g, m, grads)
            if name == "adabelief":   # the spread of the gradient around its mean
                s = tm(lambda s_, g, m_: 0.999 * s_ + 0.001 * (g - m_) ** 2 + 1e-16, s, grads, m)
            else:
                s = tm(lambda s_, g: 0.999 * s_ + 0.001 * g * g, s, grads)
            step = t.astype(f32)
            c1, c2 = 1.0 - 0.9 ** step, 1.0 - 0.999 ** step
            u = tm(lambda m_, s_: (m_ / c1) / (jnp.sqrt(s_ / c2) + 1e-8), m, s)
            return apply(params, u, 1e-3), (m, s, t)
        return init, adam

    if name == "adafactor":
        def factored_init(params):
            def moments(p):
                if p.ndim >= 2:   # row and column statistics instead of a full matrix
                    return jnp.zeros(p.shape[:-1], f32), jnp.zeros(p.shape[:-2] + p.shape[-1:], f32)
                return jnp.zeros(p.shape, f32)
            return tm(moments, params), jnp.zeros((), jnp.int32)

        def adafactor(params, grads, state):
            second, t = state
            t = t + 1
            decay = 1.0 - t.astype(f32) ** -0.8

            def moments(g, v):
                g2 = jnp.square(g.astype(f32)) + 1e-30
                if isinstance(v, tuple):
                    return (decay * v[0] + (1 - decay) * g2.mean(-1),
                            decay * v[1] + (1 - decay) * g2.mean(-2))
                return decay * v + (1 - decay) * g2

            second = tm(moments, grads, second)

            def update(p, g, v):
                if isinstance(v, tuple):
                    row, col = v
                    v = row[..., :, None] * col[..., None, :] / row.mean(-1)[..., None, None]
                u = g.astype(f32) * jax.lax.rsqrt(v)
                u = u / jnp.maximum(1.0, jnp.sqrt(jnp.mean(u * u)))
                scale = jnp.maximum(1e-3, jnp.sqrt(jnp.mean(jnp.square(p.astype(f32)))))
                lr = jnp.minimum(1e-2, jax.lax.rsqrt(t.astype(f32))) * scale
                return (p.astype(f32) - lr * u).astype(p.dtype)

            return tm(update, params, grads, second), (second, t)
        return factored_init, adafactor

    raise ValueError(name)


def _train_step(optimizer: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    """One training step (loss, gradients, the optimizer's update) lowered for `batch`."""
    import jax

    init, update = _optimizer(optimizer)

    def step(carry, *batch):
        params, state = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state)
        return (params, state), loss

    return jax.jit(step).lower((params, init(params)), *batch)


def _weights(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
             gain: float = 1.0) -> dict[str, Any]:
    """Deterministic normal weights scaled by 1/sqrt(fan-in); names ending in `_b` are
    zero biases."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    dtype = dtype or jnp.float32
    out = {}
    for i, (name, shape) in enumerate(shapes.items()):
        if name.endswith("_b"):
            out[name] = jnp.zeros(shape, dtype)
            continue
        fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
        w = jax.random.normal(jax.random.fold_in(jax.random.PRNGKey(seed), i), shape)
        out[name] = (gain * w / np.sqrt(fan_in)).astype(dtype)
    return out


def _layer_norm(x, eps: float = 1e-5):
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mu = x32.mean(-1, keepdims=True)
    var = jnp.square(x32 - mu).mean(-1, keepdims=True)
    return ((x32 - mu) * lax.rsqrt(var + eps)).astype(x.dtype)


def _nll(logits, labels):
    """Mean softmax cross-entropy of integer labels, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1).mean()


def conformer_encoder(batch: int = 4, frames: int = 512, mels: int = 80, sub: int = 32,
                      d: int = 144, heads: int = 4, kernel: int = 31, blocks: int = 2,
                      classes: int = 128) -> Any:
    """A Conformer acoustic encoder: two stride-2 3x3 convolutions subsample the
    log-mel frames by four; each block is a half-step SiLU feed-forward layer, masked
    multi-head self-attention, a convolution module (pointwise to 2d, GLU, depthwise
    1-D convolution of width 31, batch norm, swish, pointwise) and a second half-step
    feed-forward layer; a frame-wise classifier trained by a masked cross-entropy."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    steps = frames // 4
    hd = d // heads

    def feed_forward(w, x):
        return jax.nn.silu(_layer_norm(x) @ w["up"] + w["up_b"]) @ w["down"]

    def attention(w, x, keep):
        q, k, v = jnp.split(_layer_norm(x) @ w["qkv"], 3, -1)
        q, k, v = (a.reshape(batch, steps, heads, hd) for a in (q, k, v))
        s = jnp.einsum("bqhe,bkhe->bhqk", q, k) / jnp.sqrt(float(hd))
        s = jnp.where(keep[:, None, None, :], s, -1e9)
        o = jnp.einsum("bhqk,bkhe->bqhe", jax.nn.softmax(s, -1), v)
        return o.reshape(batch, steps, d) @ w["out"]

    def convolution(w, x, keep):
        h = _layer_norm(x) @ w["pw1"]
        h = (h[..., :d] * jax.nn.sigmoid(h[..., d:])) * keep[..., None]
        h = lax.conv_general_dilated(h, w["dw"], (1,), "SAME", feature_group_count=d,
                                     dimension_numbers=("NWC", "WIO", "NWC"))
        mu = h.mean((0, 1))
        var = jnp.square(h - mu).mean((0, 1))
        h = (h - mu) * lax.rsqrt(var + 1e-5) * w["bn"][0] + w["bn"][1]
        return jax.nn.silu(h) @ w["pw2"]

    def loss_fn(p, feats, lengths, labels):
        dn = ("NHWC", "HWIO", "NHWC")
        h = jax.nn.relu(lax.conv_general_dilated(feats[..., None], p["sub1"], (2, 2), "SAME",
                                                 dimension_numbers=dn))
        h = jax.nn.relu(lax.conv_general_dilated(h, p["sub2"], (2, 2), "SAME",
                                                 dimension_numbers=dn))
        x = h.reshape(batch, steps, -1) @ p["proj"]
        keep = jnp.arange(steps)[None, :] < lengths[:, None]
        for b in p["blocks"]:
            x = x + 0.5 * feed_forward(b["ff1"], x)
            x = x + attention(b["mhsa"], x, keep)
            x = x + convolution(b["conv"], x, keep)
            x = _layer_norm(x + 0.5 * feed_forward(b["ff2"], x))
        logp = jax.nn.log_softmax(x @ p["cls"], -1)
        nll = -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]
        return (nll * keep).sum() / jnp.maximum(keep.sum(), 1)

    p = _weights({"sub1": (3, 3, 1, sub), "sub2": (3, 3, sub, sub),
                  "proj": (sub * (mels // 4), d), "cls": (d, classes)})
    ff = {"up": (d, 4 * d), "up_b": (4 * d,), "down": (4 * d, d)}
    p["blocks"] = [
        {"ff1": _weights(ff, 10 * i + 1), "ff2": _weights(ff, 10 * i + 2),
         "mhsa": _weights({"qkv": (d, 3 * d), "out": (d, d)}, 10 * i + 3),
         "conv": dict(_weights({"pw1": (d, 2 * d), "dw": (kernel, 1, d), "pw2": (d, d)},
                               10 * i + 4), bn=jnp.stack([jnp.ones(d), jnp.zeros(d)]))}
        for i in range(blocks)]
    return _train_step("adafactor", loss_fn, p,
                       jax.random.normal(jax.random.PRNGKey(1), (batch, frames, mels)),
                       jnp.full((batch,), steps - 8, jnp.int32),
                       jnp.zeros((batch, steps), jnp.int32))


def schnet_forces(molecules: int = 16, atoms: int = 24, elements: int = 10, d: int = 64,
                  radial: int = 32, interactions: int = 3, cutoff: float = 5.0) -> Any:
    """SchNet: atoms embedded by element, three interaction blocks whose continuous
    filters come from an MLP over Gaussian radial-basis expansions of every pairwise
    distance (with a cosine cutoff envelope), an atom-wise energy readout summed per
    molecule, trained on energies and on forces = -dE/dpositions."""
    import jax
    import jax.numpy as jnp

    centres = jnp.linspace(0.0, cutoff, radial)
    others = 1.0 - jnp.eye(atoms)

    def shifted_softplus(x):
        return jax.nn.softplus(x) - jnp.log(2.0)

    def energies(p, pos, species):
        diff = pos[:, :, None, :] - pos[:, None, :, :]
        r = jnp.sqrt(jnp.square(diff).sum(-1) + 1e-9)                    # (m, a, a)
        basis = jnp.exp(-10.0 * jnp.square(r[..., None] - centres))        # (m, a, a, k)
        envelope = 0.5 * (jnp.cos(jnp.pi * r / cutoff) + 1.0) * (r < cutoff) * others
        x = p["embed"][species]                                            # (m, a, d)
        for w in p["interactions"]:
            filt = shifted_softplus(basis @ w["f1"] + w["f1_b"]) @ w["f2"]
            filt = filt * envelope[..., None]
            message = jnp.einsum("mijd,mjd->mid", filt, x @ w["in"])
            x = x + shifted_softplus(message @ w["o1"] + w["o1_b"]) @ w["o2"]
        return (shifted_softplus(x @ p["r1"]) @ p["r2"])[..., 0].sum(-1)

    def loss_fn(p, pos, species, e_ref, f_ref):
        def total(q):
            e = energies(p, q, species)
            return e.sum(), e

        (_, e), grad_pos = jax.value_and_grad(total, has_aux=True)(pos)
        return jnp.square(e - e_ref).mean() + 10.0 * jnp.square(-grad_pos - f_ref).mean()

    p = _weights({"embed": (elements, d), "r1": (d, d // 2), "r2": (d // 2, 1)})
    p["interactions"] = [
        _weights({"f1": (radial, d), "f1_b": (d,), "f2": (d, d), "in": (d, d),
                  "o1": (d, d), "o1_b": (d,), "o2": (d, d)}, seed=i + 1)
        for i in range(interactions)]
    pos = 1.5 * jax.random.normal(jax.random.PRNGKey(2), (molecules, atoms, 3))
    return _train_step("clipped_adam", loss_fn, p, pos,
                       jnp.zeros((molecules, atoms), jnp.int32),
                       jnp.zeros((molecules,)), jnp.zeros((molecules, atoms, 3)))


def _window_tables(side: int, window: int, shift: int) -> tuple[Any, Any]:
    """The relative-position index of a window's token pairs into a (2w-1)^2 table, and
    the additive mask of the shifted windows (tokens that wrapped around stay apart)."""
    import numpy as np

    coords = np.stack(np.meshgrid(np.arange(window), np.arange(window), indexing="ij"))
    coords = coords.reshape(2, -1)
    rel = coords[:, :, None] - coords[:, None, :] + window - 1
    index = rel[0] * (2 * window - 1) + rel[1]
    region = np.zeros((side, side), np.int32)
    bands = (slice(0, side - window), slice(side - window, side - shift),
             slice(side - shift, side))
    for i, rows in enumerate(bands):
        for j, cols in enumerate(bands):
            region[rows, cols] = 3 * i + j
    n = side // window
    region = region.reshape(n, window, n, window).transpose(0, 2, 1, 3).reshape(n * n, -1)
    mask = np.where(region[:, :, None] != region[:, None, :], -100.0, 0.0)
    return index.astype(np.int32), mask.astype(np.float32)


def swin_shifted_windows(batch: int = 8, image: int = 64, patch: int = 4, d: int = 96,
                         window: int = 4, classes: int = 100) -> Any:
    """A two-stage Swin transformer in bfloat16: patches embedded by a stride-4
    convolution, window attention over 4x4 token windows with relative position
    biases gathered from a learned table, every second block on windows cyclically
    shifted by two tokens (`roll`) under a static mask, a 2x2 patch merge between the
    stages and a pooled classifier (float32 softmax and loss)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    shift = window // 2
    n_tok = window * window

    def windows(x):
        b, h, w, c = x.shape
        x = x.reshape(b, h // window, window, w // window, window, c)
        return x.transpose(0, 1, 3, 2, 4, 5).reshape(-1, n_tok, c)

    def unwindows(x, b, h, w):
        c = x.shape[-1]
        x = x.reshape(b, h // window, w // window, window, window, c)
        return x.transpose(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)

    def block(w, x, heads, shifted, index, mask):
        b, h, wd, c = x.shape
        hd = c // heads
        y = _layer_norm(x)
        if shifted:
            y = jnp.roll(y, (-shift, -shift), (1, 2))
        y = windows(y)                                                       # (B nW, N, c)
        q, k, v = (t.reshape(-1, n_tok, heads, hd) for t in jnp.split(y @ w["qkv"], 3, -1))
        s = jnp.einsum("wqhe,wkhe->whqk", q, k, preferred_element_type=jnp.float32)
        s = s / np.sqrt(hd) + w["bias_table"][index].transpose(2, 0, 1).astype(jnp.float32)
        if shifted:
            nw = mask.shape[0]
            s = (s.reshape(b, nw, heads, n_tok, n_tok) + mask[None, :, None]
                 ).reshape(-1, heads, n_tok, n_tok)
        o = jnp.einsum("whqk,wkhe->wqhe", jax.nn.softmax(s, -1).astype(bf16), v)
        o = unwindows(o.reshape(-1, n_tok, c) @ w["proj"], b, h, wd)
        if shifted:
            o = jnp.roll(o, (shift, shift), (1, 2))
        x = x + o
        return x + jax.nn.gelu(_layer_norm(x) @ w["fc1"]) @ w["fc2"]

    side1 = image // patch
    idx, mask1 = _window_tables(side1, window, shift)
    _, mask2 = _window_tables(side1 // 2, window, shift)

    def loss_fn(p, img, labels):
        x = jax.lax.conv_general_dilated(img, p["embed"], (patch, patch), "VALID",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        x = _layer_norm(x)
        for i, w in enumerate(p["stage1"]):
            x = block(w, x, 3, i % 2 == 1, idx, mask1)
        b, h, wd, c = x.shape
        x = x.reshape(b, h // 2, 2, wd // 2, 2, c).transpose(0, 1, 3, 4, 2, 5)
        x = _layer_norm(x.reshape(b, h // 2, wd // 2, 4 * c)) @ p["merge"]
        for i, w in enumerate(p["stage2"]):
            x = block(w, x, 6, i % 2 == 1, idx, mask2)
        return _nll(_layer_norm(x).mean((1, 2)) @ p["head"], labels)

    def stage(c, seed):
        return [dict(_weights({"qkv": (c, 3 * c), "proj": (c, c), "fc1": (c, 4 * c),
                               "fc2": (4 * c, c)}, seed + i, bf16),
                     bias_table=jnp.zeros(((2 * window - 1) ** 2, c // 32), bf16))
                for i in range(2)]

    p = _weights({"embed": (patch, patch, 3, d), "merge": (4 * d, 2 * d),
                  "head": (2 * d, classes)}, dtype=bf16)
    p["stage1"], p["stage2"] = stage(d, 10), stage(2 * d, 20)
    return _train_step("momentum", loss_fn, p,
                       jax.random.normal(jax.random.PRNGKey(3),
                                         (batch, image, image, 3)).astype(bf16),
                       jnp.zeros((batch,), jnp.int32))


def causal_linear_attention(batch: int = 2, length: int = 512, vocab: int = 1024,
                            d: int = 128, heads: int = 8, layers: int = 2) -> Any:
    """A linear-attention language model: softmax attention replaced by the feature
    map elu(x)+1, causal by running sums (`cumsum` along the sequence) of the key-value
    outer products and of the keys; pre-norm blocks, tied input and output embeddings."""
    import jax
    import jax.numpy as jnp

    hd = d // heads

    def attend(w, x):
        q, k, v = jnp.split(_layer_norm(x) @ w["qkv"], 3, -1)
        q, k = (jax.nn.elu(a.reshape(batch, length, heads, hd)) + 1.0 for a in (q, k))
        v = v.reshape(batch, length, heads, hd)
        state = jnp.cumsum(jnp.einsum("blhe,blhf->blhef", k, v), axis=1)
        norm = jnp.cumsum(k, axis=1)
        num = jnp.einsum("blhe,blhef->blhf", q, state)
        den = jnp.einsum("blhe,blhe->blh", q, norm)[..., None] + 1e-6
        return (num / den).reshape(batch, length, d) @ w["out"]

    def loss_fn(p, tokens):
        x = p["embed"][tokens[:, :-1]] * jnp.sqrt(float(d))
        for w in p["layers"]:
            x = x + attend(w, x)
            x = x + jax.nn.gelu(_layer_norm(x) @ w["up"]) @ w["down"]
        return _nll(_layer_norm(x) @ p["embed"].T, tokens[:, 1:])

    p = _weights({"embed": (vocab, d)}, gain=0.02 * d ** 0.5)
    p["layers"] = [_weights({"qkv": (d, 3 * d), "out": (d, d), "up": (d, 4 * d),
                             "down": (4 * d, d)}, seed=i + 1) for i in range(layers)]
    return _train_step("lion", loss_fn, p, jnp.zeros((batch, length + 1), jnp.int32))


def voxel_cellular_automaton(batch: int = 2, side: int = 12, channels: int = 12,
                             hidden: int = 64, steps: int = 8, fire_rate: float = 0.5) -> Any:
    """A growing neural cellular automaton in 3-D: each of the 8 update steps (a
    `lax.scan`) perceives the voxel grid by identity and Sobel x/y/z filters (a depthwise
    3-D convolution, four outputs per channel), updates each voxel by a two-layer MLP
    where a random fire mask drawn inside the loop allows it, and zeroes voxels with no
    living neighbour (a 3x3x3 max-pool window over the alpha channel)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    smooth = np.array([1.0, 2.0, 1.0])
    slope = np.array([-1.0, 0.0, 1.0])
    identity = np.zeros((3, 3, 3))
    identity[1, 1, 1] = 1.0
    sobel = [np.einsum("i,j,k->ijk", *(slope if a == axis else smooth for a in range(3))) / 16.0
             for axis in range(3)]
    filters = np.stack([identity, *sobel], -1)                                # (3,3,3,4)
    kernel = np.tile(filters, (1, 1, 1, channels))[:, :, :, None, :].astype(np.float32)
    dn = ("NDHWC", "DHWIO", "NDHWC")

    def alive(x):
        pooled = lax.reduce_window(x[..., 3:4], -jnp.inf, lax.max, (1, 3, 3, 3, 1),
                                   (1, 1, 1, 1, 1), "SAME")
        return pooled > 0.1

    def loss_fn(p, seed, target, key):
        def update(x, t):
            before = alive(x)
            seen = lax.conv_general_dilated(x, jnp.asarray(kernel), (1, 1, 1), "SAME",
                                            dimension_numbers=dn,
                                            feature_group_count=channels)
            dx = jax.nn.relu(seen @ p["w1"] + p["w1_b"]) @ p["w2"]
            fire = jax.random.uniform(jax.random.fold_in(key, t), x.shape[:-1] + (1,))
            x = x + dx * (fire < fire_rate)
            return x * (before & alive(x)), None

        x, _ = lax.scan(update, seed, jnp.arange(steps))
        return jnp.square(x[..., :4] - target).mean()

    p = _weights({"w1": (4 * channels, hidden), "w1_b": (hidden,), "w2": (hidden, channels)},
                 gain=0.5)
    shape = (batch, side, side, side)
    seed = jnp.zeros(shape + (channels,)).at[:, side // 2, side // 2, side // 2, 3:].set(1.0)
    return _train_step("clipped_sgd", loss_fn, p, seed, jnp.ones(shape + (4,)) * 0.5,
                       jax.random.PRNGKey(4))


def _causal_mask(size: int, include_centre: bool) -> Any:
    """A PixelCNN kernel mask: rows above the centre, and the centre row left of the
    centre (and the centre itself for mask B)."""
    import numpy as np

    m = np.zeros((size, size, 1, 1), np.float32)
    c = size // 2
    m[:c] = 1.0
    m[c, :c + int(include_centre)] = 1.0
    return m


def gated_pixelcnn(batch: int = 8, side: int = 28, c: int = 32, layers: int = 6,
                   levels: int = 256, classes: int = 10) -> Any:
    """A class-conditional gated PixelCNN in bfloat16: a 7x7 mask-A convolution, then
    residual layers of 3x3 mask-B convolutions (dilation alternating 1 and 2) with
    tanh x sigmoid gates and a class embedding added to the gate inputs, and a 256-way
    softmax per pixel (float32 loss)."""
    import jax
    import jax.numpy as jnp

    bf16 = jnp.bfloat16
    dn = ("NHWC", "HWIO", "NHWC")
    mask_a = jnp.asarray(_causal_mask(7, False), bf16)
    mask_b = jnp.asarray(_causal_mask(3, True), bf16)

    def masked(x, w, mask, dilation=1):
        return jax.lax.conv_general_dilated(x, w * mask, (1, 1), "SAME",
                                            rhs_dilation=(dilation, dilation),
                                            dimension_numbers=dn)

    def loss_fn(p, pixels, label):
        x = (pixels.astype(jnp.float32) * (2.0 / (levels - 1)) - 1.0).astype(bf16)[..., None]
        h = masked(x, p["first"], mask_a)
        cond = p["classes"][label][:, None, None, :]
        for i, w in enumerate(p["layers"]):
            g = masked(jax.nn.relu(h), w["conv"], mask_b, 1 + i % 2) + cond
            h = h + (jnp.tanh(g[..., :c]) * jax.nn.sigmoid(g[..., c:])) @ w["res"]
        logits = jax.nn.relu(jax.nn.relu(h) @ p["out1"]) @ p["out2"]
        return _nll(logits, pixels)

    p = _weights({"first": (7, 7, 1, c), "classes": (classes, 2 * c), "out1": (c, c),
                  "out2": (c, levels)}, dtype=bf16)
    p["layers"] = [_weights({"conv": (3, 3, c, 2 * c), "res": (c, c)}, i + 1, bf16)
                   for i in range(layers)]
    return _train_step("nesterov", loss_fn, p, jnp.zeros((batch, side, side), jnp.int32),
                       jnp.zeros((batch,), jnp.int32))


def deep_equilibrium(batch: int = 128, d_in: int = 256, d: int = 256, hidden: int = 512,
                     classes: int = 10, max_iter: int = 24, tol: float = 1e-4) -> Any:
    """A deep equilibrium classifier: z* = LN(relu(z W1) W2 + x U) solved by fixed-point
    iteration in a `while_loop` that stops when the relative residual falls under a
    tolerance (or after 24 iterations), without gradient; the loss takes one more
    differentiable application of the layer at z* (a Jacobian-free gradient)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def layer(w, z, injected):
        return _layer_norm(jax.nn.relu(z @ w["w1"] + w["w1_b"]) @ w["w2"] + injected)

    def loss_fn(w, x, labels):
        injected = x @ w["inject"]
        frozen, fixed_input = lax.stop_gradient((w, injected))

        def unconverged(state):
            i, _, residual = state
            return (i < max_iter) & (residual > tol)

        def iterate(state):
            i, z, _ = state
            nz = layer(frozen, z, fixed_input)
            residual = jnp.linalg.norm(nz - z) / (jnp.linalg.norm(nz) + 1e-6)
            return i + 1, nz, residual

        start = (jnp.zeros((), jnp.int32), jnp.zeros((batch, d)), jnp.array(jnp.inf))
        _, z, _ = lax.while_loop(unconverged, iterate, start)
        z = layer(w, z, injected)
        return _nll(z @ w["head"], labels)

    w = _weights({"inject": (d_in, d), "w1": (d, hidden), "w1_b": (hidden,),
                  "w2": (hidden, d), "head": (d, classes)}, gain=0.5)
    return _train_step("sgd", loss_fn, w,
                       jax.random.normal(jax.random.PRNGKey(5), (batch, d_in)),
                       jnp.zeros((batch,), jnp.int32))


def tabnet_sparsemax(batch: int = 2048, features: int = 64, n_d: int = 32, n_a: int = 32,
                     steps: int = 4, classes: int = 2, relax: float = 1.5) -> Any:
    """TabNet on tabular rows: per decision step an attentive transformer writes a
    sparsemax feature mask (sort, cumulative sum, the threshold gathered at the support
    size) scaled by the prior of earlier masks, the masked row goes through shared and
    step-specific GLU blocks with batch norm, ReLU decision outputs are summed into the
    classifier, plus the masks' entropy as a sparsity penalty."""
    import jax
    import jax.numpy as jnp

    width = n_d + n_a

    def batch_norm(x, gb):
        mu = x.mean(0)
        return (x - mu) * jax.lax.rsqrt(jnp.square(x - mu).mean(0) + 1e-5) * gb[0] + gb[1]

    def sparsemax(z):
        ranked = -jnp.sort(-z, -1)
        k = jnp.arange(1, features + 1, dtype=z.dtype)
        running = jnp.cumsum(ranked, -1)
        support = (1.0 + k * ranked > running).sum(-1, keepdims=True)
        tau = (jnp.take_along_axis(running, support - 1, -1) - 1.0) / support
        return jax.nn.relu(z - tau)

    def glu(w, x):
        h = batch_norm(x @ w["fc"], w["bn"])
        return h[:, :width] * jax.nn.sigmoid(h[:, width:])

    def transform(shared, own, x):
        h = glu(shared[0], x)
        for w in (shared[1], *own):
            h = (h + glu(w, h)) * jnp.sqrt(0.5)
        return h

    def loss_fn(p, x, labels):
        x = batch_norm(x, p["bn_in"])
        attended = transform(p["shared"], p["first"], x)[:, n_d:]
        prior = jnp.ones_like(x)
        decision = 0.0
        entropy = 0.0
        for s in range(steps):
            mask = sparsemax(batch_norm(attended @ p["att"][s]["fc"], p["att"][s]["bn"]) * prior)
            prior = prior * (relax - mask)
            entropy = entropy + (-mask * jnp.log(mask + 1e-10)).sum(-1).mean()
            h = transform(p["shared"], p["steps"][s], mask * x)
            decision = decision + jax.nn.relu(h[:, :n_d])
            attended = h[:, n_d:]
        return _nll(decision @ p["head"], labels) + 1e-3 * entropy / steps

    def norm(n):
        return jnp.stack([jnp.ones(n), jnp.zeros(n)])

    def glu_block(n_in, seed):
        return {"fc": _weights({"fc": (n_in, 2 * width)}, seed)["fc"], "bn": norm(2 * width)}

    p = {"bn_in": norm(features), "head": _weights({"h": (n_d, classes)})["h"],
         "shared": [glu_block(features, 1), glu_block(width, 2)],
         "first": [glu_block(width, 3), glu_block(width, 4)],
         "steps": [[glu_block(width, 10 + 2 * s), glu_block(width, 11 + 2 * s)]
                   for s in range(steps)],
         "att": [{"fc": _weights({"fc": (n_a, features)}, 30 + s)["fc"], "bn": norm(features)}
                 for s in range(steps)]}
    return _train_step("rmsprop", loss_fn, p,
                       jax.random.normal(jax.random.PRNGKey(6), (batch, features)),
                       jnp.zeros((batch,), jnp.int32))


def slot_attention(batch: int = 16, side: int = 32, c: int = 32, slots: int = 5,
                   d: int = 64, iterations: int = 3) -> Any:
    """Slot attention autoencoder: a CNN encoder (the second convolution strided) with a
    position embedding, slots refined by a `lax.scan` of iterations (attention
    normalized over the slots, a weighted mean over the inputs, a GRU update and a
    residual MLP), a spatial-broadcast decoder per slot (a stride-2 transposed
    convolution) and slot masks mixed by a softmax over the slots."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dn = ("NHWC", "HWIO", "NHWC")
    half, dec = side // 2, side // 4

    def grid(n):
        lin = np.linspace(0.0, 1.0, n)
        gy, gx = np.meshgrid(lin, lin, indexing="ij")
        return jnp.asarray(np.stack([gy, gx, 1 - gy, 1 - gx], -1), jnp.float32)

    def gru(w, inp, h):
        zr = jax.nn.sigmoid(inp @ w["x_zr"] + h @ w["h_zr"])
        z, r = zr[..., :d], zr[..., d:]
        cand = jnp.tanh(inp @ w["x_n"] + (r * h) @ w["h_n"])
        return (1 - z) * h + z * cand

    def loss_fn(p, img, noise):
        h = jax.nn.relu(lax.conv_general_dilated(img, p["enc1"], (1, 1), "SAME",
                                                 dimension_numbers=dn))
        h = jax.nn.relu(lax.conv_general_dilated(h, p["enc2"], (2, 2), "SAME",
                                                 dimension_numbers=dn))
        h = h + grid(half) @ p["pos_enc"]
        feats = jax.nn.relu(_layer_norm(h.reshape(batch, half * half, c)) @ p["mlp1"]) @ p["mlp2"]
        feats = _layer_norm(feats)
        k, v = feats @ p["k"], feats @ p["v"]
        init = p["mu"] + jnp.exp(p["log_sigma"]) * noise

        def refine(s, _):
            q = _layer_norm(s) @ p["q"]
            attn = jax.nn.softmax(jnp.einsum("bnd,bkd->bnk", k, q) / np.sqrt(d), -1) + 1e-8
            attn = attn / attn.sum(1, keepdims=True)
            s = gru(p["gru"], jnp.einsum("bnk,bnd->bkd", attn, v), s)
            return s + jax.nn.relu(_layer_norm(s) @ p["res1"]) @ p["res2"], None

        s, _ = lax.scan(refine, init, None, length=iterations)
        g = s.reshape(batch * slots, 1, 1, d) + (grid(dec) @ p["pos_dec"])[None]
        g = jax.nn.relu(lax.conv_transpose(g, p["dec1"], (2, 2), "SAME", dimension_numbers=dn))
        out = (g @ p["dec2"]).reshape(batch, slots, half, half, 4)
        weights = jax.nn.softmax(out[..., 3:], 1)
        recon = (weights * out[..., :3]).sum(1)
        target = img.reshape(batch, half, 2, half, 2, 3).mean((2, 4))
        return jnp.square(recon - target).mean()

    p = _weights({"enc1": (5, 5, 3, c), "enc2": (5, 5, c, c), "pos_enc": (4, c),
                  "mlp1": (c, d), "mlp2": (d, d), "k": (d, d), "v": (d, d), "q": (d, d),
                  "mu": (1, 1, d), "log_sigma_b": (1, 1, d), "res1": (d, 2 * d),
                  "res2": (2 * d, d), "pos_dec": (4, d), "dec1": (3, 3, d, c),
                  "dec2": (c, 4)})
    p["log_sigma"] = p.pop("log_sigma_b")
    p["gru"] = _weights({"x_zr": (d, 2 * d), "h_zr": (d, 2 * d), "x_n": (d, d),
                         "h_n": (d, d)}, seed=1)
    key = jax.random.PRNGKey(7)
    return _train_step("adabelief", loss_fn, p,
                       jax.random.uniform(key, (batch, side, side, 3)),
                       jax.random.normal(jax.random.fold_in(key, 1), (batch, slots, d)))


def rotate_knowledge_graph(batch: int = 512, negatives: int = 64, entities: int = 16384,
                           relations: int = 256, d: int = 128, margin: float = 9.0,
                           temperature: float = 1.0) -> Any:
    """RotatE link prediction: complex entity embeddings (real and imaginary tables),
    relations as unit-modulus rotations exp(i theta), triples scored by the L1 sum of
    complex moduli |h o r - t| (complex64 arithmetic), negative tails gathered per
    triple and weighted by a self-adversarial softmax; Adagrad over whole tables."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def complex_rows(p, ids):
        return lax.complex(p["re"][ids], p["im"][ids])

    def loss_fn(p, head, rel, tail, corrupt):
        theta = p["phase"][rel]
        rotated = complex_rows(p, head) * lax.complex(jnp.cos(theta), jnp.sin(theta))
        pos = margin - jnp.abs(rotated - complex_rows(p, tail)).sum(-1)
        neg = margin - jnp.abs(rotated[:, None] - complex_rows(p, corrupt)).sum(-1)
        w = lax.stop_gradient(jax.nn.softmax(temperature * neg, -1))
        return -0.5 * (jax.nn.log_sigmoid(pos).mean()
                       + (w * jax.nn.log_sigmoid(-neg)).sum(-1).mean())

    scale = margin / d
    key = jax.random.PRNGKey(8)
    p = {"re": scale * jax.random.uniform(key, (entities, d), minval=-1.0),
         "im": scale * jax.random.uniform(jax.random.fold_in(key, 1), (entities, d),
                                          minval=-1.0),
         "phase": jnp.pi * jax.random.uniform(jax.random.fold_in(key, 2), (relations, d),
                                              minval=-1.0)}
    ids = jnp.zeros((batch,), jnp.int32)
    return _train_step("adagrad", loss_fn, p, ids, ids, ids,
                       jnp.zeros((batch, negatives), jnp.int32))


def shallow_water(side: int = 256, steps: int = 200, dx: float = 1.0, dt: float = 0.05,
                  gravity: float = 9.81, coriolis: float = 0.01) -> Any:
    """Inference: the 2-D shallow-water equations on a periodic grid, advanced by
    Lax-Friedrichs steps in a `fori_loop` (fluxes of depth and momenta, neighbour
    averages and centred differences by `roll`), with Coriolis turning and the slope of
    a bottom topography as sources; returns the state, total mass and energy."""
    import jax
    import jax.numpy as jnp

    def run(depth, hu, hv, bottom):
        def ddx(a, axis):
            return (jnp.roll(a, -1, axis) - jnp.roll(a, 1, axis)) / (2 * dx)

        slope_x, slope_y = ddx(bottom, 1), ddx(bottom, 0)

        def step(_, state):
            h, qx, qy = state
            u, v = qx / h, qy / h
            pressure = 0.5 * gravity * h * h
            fluxes_x = (qx, qx * u + pressure, qx * v)
            fluxes_y = (qy, qy * u, qy * v + pressure)
            sources = (jnp.zeros_like(h), coriolis * qy - gravity * h * slope_x,
                       -coriolis * qx - gravity * h * slope_y)
            out = []
            for q, fx, fy, src in zip(state, fluxes_x, fluxes_y, sources):
                mean = 0.25 * (jnp.roll(q, 1, 0) + jnp.roll(q, -1, 0) + jnp.roll(q, 1, 1)
                               + jnp.roll(q, -1, 1))
                out.append(mean - dt * (ddx(fx, 1) + ddx(fy, 0)) + dt * src)
            return tuple(out)

        h, qx, qy = jax.lax.fori_loop(0, steps, step, (depth, hu, hv))
        energy = (0.5 * (qx * qx + qy * qy) / h + 0.5 * gravity * h * h).sum()
        return h, qx, qy, h.sum(), energy

    y, x = jnp.meshgrid(jnp.arange(side), jnp.arange(side), indexing="ij")
    bump = jnp.exp(-(jnp.square(x - side / 3) + jnp.square(y - side / 2)) / (side / 8) ** 2)
    hill = 0.3 * jnp.exp(-(jnp.square(x - 2 * side / 3) + jnp.square(y - side / 3))
                         / (side / 6) ** 2)
    zeros = jnp.zeros((side, side))
    return jax.jit(run).lower(10.0 + bump, zeros, zeros, hill)


def particle_filter(series: int = 8, particles: int = 4096, length: int = 48,
                    process_sd: float = 3.0, obs_sd: float = 1.0) -> Any:
    """Inference: bootstrap particle filters on the univariate nonlinear growth model
    x_t = x/2 + 25x/(1+x^2) + 8cos(1.2t) + noise, y_t = x^2/20 + noise, under
    `lax.scan`: particles propagated with noise drawn in the loop, log-weights normalized
    by log-sum-exp (the marginal likelihood accumulated), and systematic resampling by a
    `cumsum` of the weights, `searchsorted` of stratified points and a gather."""
    import jax
    import jax.numpy as jnp

    def run(observations, key):
        def step(carry, inputs):
            x, log_lik = carry
            t, y = inputs
            k_move, k_pick = jax.random.split(jax.random.fold_in(key, t))
            x = (0.5 * x + 25.0 * x / (1.0 + x * x) + 8.0 * jnp.cos(1.2 * t.astype(jnp.float32))
                 + process_sd * jax.random.normal(k_move, x.shape))
            log_w = -0.5 * jnp.square((y[:, None] - x * x / 20.0) / obs_sd)
            total = jax.nn.logsumexp(log_w, -1)
            log_lik = log_lik + total - jnp.log(float(particles))
            w = jnp.exp(log_w - total[:, None])
            estimate = (w * x).sum(-1)
            points = (jnp.arange(particles) + jax.random.uniform(k_pick, (series, 1))) / particles
            ancestors = jax.vmap(jnp.searchsorted)(jnp.cumsum(w, -1), points)
            x = jnp.take_along_axis(x, jnp.minimum(ancestors, particles - 1), -1)
            return (x, log_lik), estimate

        start = 2.0 * jax.random.normal(jax.random.fold_in(key, length), (series, particles))
        (x, log_lik), estimates = jax.lax.scan(
            step, (start, jnp.zeros((series,))), (jnp.arange(length), observations))
        return estimates, log_lik, x

    observations = 5.0 * jax.random.uniform(jax.random.PRNGKey(9), (length, series))
    return jax.jit(run).lower(observations, jax.random.PRNGKey(10))


def viterbi_decode(batch: int = 4, length: int = 128, states: int = 256,
                   symbols: int = 512) -> Any:
    """Inference: a discrete hidden Markov model decoded by Viterbi under `lax.scan`
    (max-plus over all state pairs with argmax back-pointers, the forward algorithm's
    log-sum-exp likelihood in the same loop), emissions gathered by observed symbol, and
    the best path recovered by a reverse `lax.scan` gathering each back-pointer."""
    import jax
    import jax.numpy as jnp

    def run(log_start, log_trans, log_emit, observed):
        emit = log_emit[:, observed].transpose(2, 1, 0)                         # (T, b, S)

        def forward(carry, e):
            best, alpha = carry
            scores = best[:, :, None] + log_trans[None]
            pointers = jnp.argmax(scores, 1)
            best = scores.max(1) + e
            alpha = jax.nn.logsumexp(alpha[:, :, None] + log_trans[None], 1) + e
            return (best, alpha), pointers

        first = log_start[None] + emit[0]
        (best, alpha), pointers = jax.lax.scan(forward, (first, first), emit[1:])

        def backtrack(state, back):
            previous = jnp.take_along_axis(back, state[:, None], 1)[:, 0]
            return previous, state

        last = jnp.argmax(best, -1)
        start, rest = jax.lax.scan(backtrack, last, pointers, reverse=True)
        path = jnp.concatenate([start[None], rest]).T
        return path, best.max(-1), jax.nn.logsumexp(alpha, -1)

    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(11), 3)
    return jax.jit(run).lower(
        jax.nn.log_softmax(jax.random.normal(k1, (states,))),
        jax.nn.log_softmax(jax.random.normal(k2, (states, states)), -1),
        jax.nn.log_softmax(jax.random.normal(k3, (states, symbols)), -1),
        jnp.zeros((batch, length), jnp.int32))


def kmeans_lloyd(points: int = 16384, dim: int = 32, clusters: int = 256,
                 iterations: int = 10) -> Any:
    """Inference: Lloyd's k-means in a `fori_loop`: squared distances to all centroids
    by a matrix product, argmin assignment, new centroids as `segment_sum` means (empty
    clusters keep their centroid), then the final assignment and inertia."""
    import jax
    import jax.numpy as jnp

    def run(x, centroids):
        sq = jnp.square(x).sum(-1)

        def assign(c):
            dist = sq[:, None] - 2.0 * x @ c.T + jnp.square(c).sum(-1)[None]
            return jnp.argmin(dist, -1), dist.min(-1)

        def lloyd(_, c):
            labels, _ = assign(c)
            sums = jax.ops.segment_sum(x, labels, num_segments=clusters)
            counts = jax.ops.segment_sum(jnp.ones((points,)), labels, num_segments=clusters)
            return jnp.where(counts[:, None] > 0, sums / jnp.maximum(counts, 1.0)[:, None], c)

        c = jax.lax.fori_loop(0, iterations, lloyd, centroids)
        labels, dist = assign(c)
        return c, labels, jnp.maximum(dist, 0.0).sum()

    k1, k2 = jax.random.split(jax.random.PRNGKey(12))
    centres = 4.0 * jax.random.normal(k1, (clusters, dim))
    x = centres[jnp.arange(points) % clusters] + jax.random.normal(k2, (points, dim))
    return jax.jit(run).lower(x, x[:clusters] + 0.5)


def particle_mesh_gravity(particles: int = 32768, grid: int = 32, steps: int = 8,
                          dt: float = 0.1) -> Any:
    """Inference: particle-mesh gravity in a periodic box under a `fori_loop` of
    kick-drift-kick steps: cloud-in-cell deposit of the masses (one scatter-add of
    eight corners per particle), the potential by a 3-D real FFT times the Green's
    function -1/k^2, the three force components by spectral gradients and batched
    inverse FFTs, and forces interpolated back by gathers of the same corners."""
    import itertools

    import jax
    import jax.numpy as jnp
    import numpy as np

    freq = 2 * np.pi * np.fft.fftfreq(grid)
    half = 2 * np.pi * np.fft.rfftfreq(grid)
    kx, ky, kz = np.meshgrid(freq, freq, half, indexing="ij")
    k2 = kx ** 2 + ky ** 2 + kz ** 2
    green = np.where(k2 > 0, -1.0 / np.where(k2 > 0, k2, 1.0), 0.0).astype(np.float32)
    wave = np.stack([kx, ky, kz]).astype(np.float32)
    corners = np.array(list(itertools.product((0, 1), repeat=3)), np.int32)   # (8, 3)
    strides = np.array([grid * grid, grid, 1], np.int32)

    def cloud_in_cell(pos):
        base = jnp.floor(pos)
        frac = pos - base
        cell = (base.astype(jnp.int32)[None] + corners[:, None]) % grid         # (8, n, 3)
        weight = jnp.where(corners[:, None] == 1, frac[None], 1.0 - frac[None]).prod(-1)
        return (cell * strides).sum(-1), weight                                 # (8, n)

    def forces(pos, mass):
        index, weight = cloud_in_cell(pos)
        rho = jnp.zeros((grid ** 3,)).at[index.reshape(-1)].add(
            (weight * mass[None]).reshape(-1))
        rho_k = jnp.fft.rfftn(rho.reshape(grid, grid, grid))
        phi_k = green * rho_k
        field = jnp.fft.irfftn(-1j * wave * phi_k[None], s=(grid,) * 3, axes=(1, 2, 3))
        phi = jnp.fft.irfftn(phi_k, s=(grid,) * 3).reshape(-1)
        acc = (field.reshape(3, -1)[:, index] * weight[None]).sum(1).T            # (n, 3)
        return -acc, 0.5 * (mass * (phi[index] * weight).sum(0)).sum()

    def run(pos, vel, mass):
        def leapfrog(_, state):
            pos, vel, _ = state
            acc, _ = forces(pos, mass)
            vel = vel + 0.5 * dt * acc
            pos = jnp.mod(pos + dt * vel, float(grid))
            acc, potential = forces(pos, mass)
            return pos, vel + 0.5 * dt * acc, potential

        return jax.lax.fori_loop(0, steps, leapfrog, (pos, vel, jnp.zeros(())))

    k1, k2 = jax.random.split(jax.random.PRNGKey(13))
    pos = jax.random.uniform(k1, (particles, 3), maxval=float(grid))
    return jax.jit(run).lower(pos, 0.1 * jax.random.normal(k2, (particles, 3)),
                              jnp.full((particles,), 1.0 / particles))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "conformer_encoder/512-frames-l2": conformer_encoder,
    "schnet_forces/16x24-atoms": schnet_forces,
    "swin_shifted_windows/64px-bf16": swin_shifted_windows,
    "causal_linear_attention/512x1024": causal_linear_attention,
    "voxel_cellular_automaton/12cube-8-steps": voxel_cellular_automaton,
    "gated_pixelcnn/28px-bf16": gated_pixelcnn,
    "deep_equilibrium/256-max24": deep_equilibrium,
    "tabnet_sparsemax/2048x64": tabnet_sparsemax,
    "slot_attention/32px-5-slots": slot_attention,
    "rotate_knowledge_graph/16384x128": rotate_knowledge_graph,
    "shallow_water/256x256-200": shallow_water,
    "particle_filter/8x4096x48": particle_filter,
    "viterbi_decode/256-states": viterbi_decode,
    "kmeans_lloyd/16384x256": kmeans_lloyd,
    "particle_mesh_gravity/32768-in-32cube": particle_mesh_gravity,
}
