"""The thirtieth never-seen set: programs written on 2026-11-28, after the twenty-ninth set
(benchmarks/never_seen_29/), and never used to choose anything: no feature, default,
fallback threshold or model was picked by looking at them. They are here to judge one
trained model, once. The SHA-256 of this file is committed next to it (`SHA256`), and
`fresh_programs.py --set never-seen-30` refuses to run when the two disagree, since an
edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the
twenty-nine earlier never-seen sets contain. Two training steps are large, a few
gigaflops each (the Funnel Transformer and SegNet); the others are mid-sized, a few of
them small. Ten are training steps: one passes no gradient between its layers
(difference target propagation), one differentiates the gradient of its whole network
(the Synthesizer under explicit gradient regularization), one takes its gradient at
weights drifted by a momentum (SegNet), two combine simulated workers run under `vmap`
(ConvE and SAINT) and one federates hospitals whose local steps run in a `lax.scan`
(DeepSurv); the dtypes are float32 and bfloat16 (the Funnel Transformer, the Synthesizer
and ColBERT), with uint32 hashes inside SAINT's gradient sketches.

The Funnel Transformer learns masked tokens of Markov-chain sequences, and which chain
wrote them, while its blocks pool their queries in pairs so that the sequence shrinks
from 256 to 64 tokens before a decoder brings it back; its AdamW decays the weights by a
coefficient that follows the ratio of the gradient's norm to the weights'. SegNet
segments scenes of striped shapes, its decoder unpooling each value to the place its
encoder's max pool found it, under median-frequency-balanced cross-entropy, and moves by
relativistic gradient descent (drift, kick, drift, with a relativistic velocity per
tensor). ConvE convolves stacked, reshaped entity and relation embeddings and scores a
query against all 2048 entities at once; five workers' gradients, one of them reversed,
are aggregated by their geometric median in a `fori_loop` of Weiszfeld iterations.
SAINT classifies tabular rows by attention across the columns of a row and across the
rows of the batch, and FetchSGD keeps its momentum and error feedback in a count sketch
of the gradient (uint32 hashes, a scatter-add, medians of signed estimates, a `top_k`
of heavy coordinates). A temporal shift module network classifies clips of moving
shapes by shifting channels between neighbouring frames inside 2-D residual blocks and
prunes its kernels by ADMM, the projection onto the sparse set taken every sixteenth
step under `lax.cond`. DeepSurv fits the Cox partial likelihood (a sort and a running
sum of exponentials) for four hospitals federated by FedDyn, eight local steps each in
a `lax.scan`. Difference target propagation trains a tanh MLP on stroke glyphs by
layer-local targets passed down through learned inverses. The Synthesizer, a causal
language model whose attention logits are synthesized from each position alone or
learned outright instead of computed from queries and keys, adds the squared norm of
its own gradient to its loss. ColBERT learns late-interaction (MaxSim) retrieval against
in-batch and hard negatives while movement pruning masks its matrices by learned
scores. Matching networks with full context embeddings (a bidirectional LSTM over the
support set and an attention LSTM for the queries, all `lax.scan`s) learn one-shot glyph
episodes under PAGE, which picks under `lax.cond` between a large-batch gradient and a
recursive correction of the last one.

Five are scientific or algorithmic steps without a gradient: reverse time migration of
two shots through an acoustic model (fourth-order finite differences; a modelling
`lax.scan`, a source wavefield kept every fourth step by a `fori_loop` inside a
`lax.scan`, and a reversed scan that sends the muted data back into the model and
cross-correlates the two wavefields); separable CMA-ES on four kinds of shifted test
functions (a `fori_loop` of 250 generations with random draws, an `argsort`, weighted
recombination and path-based adaptation of a diagonal covariance and the step size);
ChaCha20 encryption of 4 MiB (uint32 additions, XORs and rotations in a `fori_loop` of
double rounds, serialization to bytes by shifts, an XOR `reduce`); Harris corners,
BRIEF descriptors and Hamming matching across four pairs of views (convolutions, a
`reduce_window` maximum, `top_k`, gathers, `population_count`, a closed-form similarity
fit refitted on its inliers); and Heston option prices by the Carr-Madan FFT in
complex64, with implied volatilities from Newton steps in a `fori_loop`.

The updates new to these sets: adaptive weight decay (over AdamW), relativistic
gradient descent, the geometric median of the workers' gradients (over Nesterov
momentum), FetchSGD, ADMM weight pruning (over Adam), FedDyn, difference target
propagation (over RMSProp), explicit gradient regularization (over Adam), movement
pruning (over Adam) and PAGE.
"""

from __future__ import annotations

import math
from typing import Any, Callable


def _weights(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
             scale: float = 1.0) -> dict[str, Any]:
    """Starting weights for the named shapes, drawn in the given order from one numpy
    generator: a name ending in `_b` (a bias or shift) or `_z` (a weight that starts at
    zero) gets zeros, one ending in `_g` (a gain) ones, any other a Gaussian with standard
    deviation scale / sqrt(fan-in), the fan-in being the product of all axes but the last."""
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for name, shape in shapes.items():
        if name.endswith(("_b", "_z")):
            value = np.zeros(shape, np.float32)
        elif name.endswith("_g"):
            value = np.ones(shape, np.float32)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else 1
            value = rng.standard_normal(shape).astype(np.float32) * (scale / math.sqrt(fan_in))
        out[name] = jnp.asarray(value, dtype or jnp.float32)
    return out


def _normalize(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """x standardized over `axes` with float32 statistics, then scaled and shifted, in
    x's own dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axes, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axes, keepdims=True)
    y = (x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32) + shift.astype(jnp.float32)
    return y.astype(x.dtype)


def _xent(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels, per position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", dilation: int = 1,
          groups: int = 1) -> Any:
    """A channels-last convolution in 1, 2 or 3 dimensions (the kernel's rank decides)."""
    from jax import lax

    dims = w.ndim - 2
    spec = {1: ("NWC", "WIO", "NWC"), 2: ("NHWC", "HWIO", "NHWC"),
            3: ("NDHWC", "DHWIO", "NDHWC")}[dims]
    return lax.conv_general_dilated(x, w, (stride,) * dims, padding,
                                    rhs_dilation=(dilation,) * dims, dimension_numbers=spec,
                                    feature_group_count=groups)


def _adam(params: Any, grads: Any, m: Any, v: Any, t: Any, rate: Any, b1: float = 0.9,
          b2: float = 0.999, decay: float = 0.0) -> tuple[Any, Any, Any]:
    """One bias-corrected Adam step (decoupled weight decay when `decay` is set); t is the
    new step count."""
    import jax
    import jax.numpy as jnp

    m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v_, g: b2 * v_ + (1 - b2) * g * g, v, grads)
    tf = t.astype(jnp.float32)
    c1, c2 = 1 - b1 ** tf, 1 - b2 ** tf
    params = jax.tree.map(lambda w, m_, v_: w - rate * (m_ / c1 / (jnp.sqrt(v_ / c2) + 1e-8)
                                                        + decay * w), params, m, v)
    return params, m, v


def _zeros_like(tree: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return jax.tree.map(lambda w: jnp.zeros(w.shape, jnp.float32), tree)


def _glyphs(rng: Any, count: int, side: int, classes: int = 10) -> tuple[Any, Any]:
    """numpy grey glyphs (count, side, side) in [0, 1] and int32 labels: class c is drawn
    from its own recipe of two to four thick strokes (segments and arcs whose end points
    are fixed per class), each glyph with its own small shift, scale, slant and stroke
    width, then blurred a little and speckled with noise."""
    import numpy as np

    recipe_rng = np.random.default_rng(1000 + classes)
    recipes = []
    for _ in range(classes):
        strokes = []
        for _ in range(recipe_rng.integers(2, 5)):
            if recipe_rng.uniform() < 0.6:
                strokes.append(("line", recipe_rng.uniform(0.15, 0.85, 4)))
            else:
                strokes.append(("arc", np.concatenate([recipe_rng.uniform(0.3, 0.7, 2),
                                                       recipe_rng.uniform(0.12, 0.3, 1),
                                                       recipe_rng.uniform(0, 2 * np.pi, 2)])))
        recipes.append(strokes)
    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, side, side), np.float32)
    for i, label in enumerate(labels):
        shift = rng.normal(0, 0.04, 2)
        scale = rng.uniform(0.85, 1.1)
        slant = rng.normal(0, 0.15)
        width = rng.uniform(0.035, 0.06)
        u = (xx - 0.5 - shift[0]) / scale + 0.5 - slant * (yy - 0.5)
        v = (yy - 0.5 - shift[1]) / scale + 0.5
        ink = np.zeros((side, side))
        for kind, p in recipes[label]:
            if kind == "line":
                a, b = p[:2], p[2:]
                t = np.clip(((u - a[0]) * (b[0] - a[0]) + (v - a[1]) * (b[1] - a[1]))
                            / (np.sum((b - a) ** 2) + 1e-9), 0, 1)
                gap = np.hypot(u - a[0] - t * (b[0] - a[0]), v - a[1] - t * (b[1] - a[1]))
            else:
                cx, cy, r, start, span = p
                angle = (np.arctan2(v - cy, u - cx) - start) % (2 * np.pi)
                on = angle < span + 1.0
                gap = np.where(on, np.abs(np.hypot(u - cx, v - cy) - r), 1.0)
            ink = np.maximum(ink, np.clip(1.5 - gap / width, 0, 1))
        out[i] = np.clip(ink + 0.05 * rng.standard_normal((side, side)), 0, 1)
    return out, labels.astype(np.int32)


def _markov_tokens(rng: Any, count: int, length: int, vocab: int, chains: int
                   ) -> tuple[Any, Any]:
    """numpy int32 token sequences (count, length) in [0, vocab) and int32 labels: each of
    `chains` sparse first-order Markov chains (every token with eight likely successors
    of its own, weighted by a Dirichlet draw) writes the sequences of its label, one
    token in twenty replaced by a random one."""
    import numpy as np

    tables = []
    for _ in range(chains):
        successors = rng.integers(0, vocab, (vocab, 8))
        weights = np.cumsum(rng.dirichlet(np.full(8, 0.5), vocab), 1)
        tables.append((successors, weights))
    labels = rng.integers(0, chains, count)
    out = np.zeros((count, length), np.int32)
    for i, label in enumerate(labels):
        successors, weights = tables[label]
        token = int(rng.integers(vocab))
        draws = rng.uniform(size=length)
        noisy = rng.uniform(size=length) < 0.05
        random = rng.integers(0, vocab, length)
        for t in range(length):
            out[i, t] = token
            nxt = successors[token, min(int(np.searchsorted(weights[token], draws[t])), 7)]
            token = int(random[t]) if noisy[t] else int(nxt)
    return out, labels.astype(np.int32)


def funnel_awd(batch: int = 2, length: int = 256, vocab: int = 256, width: int = 128,
               heads: int = 4, blocks: tuple[int, ...] = (2, 2, 2), decoder: int = 2,
               hidden: int = 384, chains: int = 4, masked: float = 0.15, rate: float = 5e-4,
               awd: float = 0.02) -> Any:
    """The Funnel Transformer (Dai, Lai, Yang and Le) in bfloat16 learns masked tokens of
    256-token Markov-chain sequences and which of four chains wrote them: three blocks
    of two pre-norm layers, the first layer of the second and third blocks attending from
    queries mean-pooled in pairs (and a pooled residual) to the block's unpooled keys and
    values, so the sequence shrinks from 256 to 128 to 64; a decoder repeats the last
    block's states back to full length, adds the first block's and runs two more layers
    for the token head tied to the embedding; the chain is read from the pooled last
    block. Corruption is BERT's (80% mask token, 10% random, 10% kept). The update is
    AdamW whose decay coefficient adapts every step (adaptive weight decay, Ghiasi,
    Shafahi and Ardekani): a moving average of a constant times the ratio of the
    gradient's to the weights' global norm, on float32 master weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    names = [f"e{b}{l}" for b, n in enumerate(blocks) for l in range(n)] + \
        [f"d{l}" for l in range(decoder)]
    shapes: dict[str, tuple[int, ...]] = {
        "embed": (vocab, width), "pos": (length, width), "out_b": (vocab,), "nf_g": (width,),
        "nf_b": (width,), "cls": (width, chains), "cls_b": (chains,)}
    for k in names:
        shapes.update({f"{k}n1_g": (width,), f"{k}n1_b": (width,), f"{k}qkv": (width, 3 * width),
                       f"{k}o": (width, width), f"{k}n2_g": (width,), f"{k}n2_b": (width,),
                       f"{k}up": (width, hidden), f"{k}up_b": (hidden,),
                       f"{k}down": (hidden, width), f"{k}down_b": (width,)})
    params = _weights(shapes, seed=40)

    def pool(x):
        b, t, d = x.shape
        return jnp.mean(x.reshape(b, t // 2, 2, d), 2)

    def layer(p, k, x, pooled):
        h = _normalize(x, p[f"{k}n1_g"], p[f"{k}n1_b"])
        q, kk, v = jnp.split(h @ p[f"{k}qkv"], 3, -1)
        if pooled:                            # pooled queries read the unpooled sequence
            q, x = pool(q), pool(x)
        b, tq, tk = q.shape[0], q.shape[1], kk.shape[1]
        q = q.reshape(b, tq, heads, dh)
        kk = kk.reshape(b, tk, heads, dh)
        v = v.reshape(b, tk, heads, dh)
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, kk).astype(f32) / math.sqrt(dh)
        att = jax.nn.softmax(scores, -1).astype(x.dtype)
        x = x + jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, tq, width) @ p[f"{k}o"]
        h = _normalize(x, p[f"{k}n2_g"], p[f"{k}n2_b"])
        return x + jax.nn.gelu(h @ p[f"{k}up"] + p[f"{k}up_b"]) @ p[f"{k}down"] + p[f"{k}down_b"]

    def loss_fn(p, corrupted, tokens, mask, labels):
        x = p["embed"][corrupted] + p["pos"]
        full = x
        for b, n in enumerate(blocks):
            for l in range(n):
                x = layer(p, f"e{b}{l}", x, b > 0 and l == 0)
            if b == 0:
                full = x
        up = jnp.repeat(x, 2 ** (len(blocks) - 1), axis=1) + full
        for l in range(decoder):
            up = layer(p, f"d{l}", up, False)
        logits = _normalize(up, p["nf_g"], p["nf_b"]) @ p["embed"].T + p["out_b"]
        mlm = jnp.sum(_xent(logits, tokens) * mask) / jnp.sum(mask)
        chain = _xent(jnp.mean(x, 1) @ p["cls"] + p["cls_b"], labels)
        return mlm + 0.5 * jnp.mean(chain), mlm

    def step(master, state, corrupted, tokens, mask, labels):
        m, v, t, decay = state
        pb = jax.tree.map(lambda w: w.astype(bf16), master)
        (loss, mlm), grads = jax.value_and_grad(loss_fn, has_aux=True)(pb, corrupted, tokens,
                                                                       mask, labels)
        grads = jax.tree.map(lambda g: g.astype(f32), grads)
        # adaptive weight decay: the coefficient follows |g| / |w|
        g_norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
        w_norm = jnp.sqrt(sum(jnp.sum(w * w) for w in jax.tree.leaves(master)))
        decay = 0.9 * decay + 0.1 * awd * g_norm / (w_norm + 1e-12)
        master, m, v = _adam(master, grads, m, v, t + 1, rate, decay=decay)
        return master, (m, v, t + 1, decay), loss, mlm

    rng = np.random.default_rng(40)
    tokens, labels = _markov_tokens(rng, batch, length, vocab - 1, chains)
    tokens = tokens + 1                                       # 0 is the mask token
    mask = rng.uniform(size=tokens.shape) < masked
    choice = rng.uniform(size=tokens.shape)
    corrupted = np.where(mask & (choice < 0.8), 0,
                         np.where(mask & (choice < 0.9), rng.integers(1, vocab, tokens.shape),
                                  tokens)).astype(np.int32)
    state = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32),
             jnp.asarray(0.0, f32))
    return jax.jit(step).lower(params, state, jnp.asarray(corrupted), jnp.asarray(tokens),
                               jnp.asarray(mask, f32), jnp.asarray(labels))


def _shape_scenes(rng: Any, count: int, side: int, kinds: int = 4) -> tuple[Any, Any]:
    """numpy float32 pictures (count, side, side, 3) in [0, 1] and int32 label maps
    (count, side, side): a graded, faintly striped background (label 0) under two to
    five striped shapes of `kinds` kinds (discs, squares, triangles and rings, labels 1
    to 4), later ones covering earlier ones, with noise."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    pictures = np.zeros((count, side, side, 3), np.float32)
    labels = np.zeros((count, side, side), np.int32)
    for i in range(count):
        angle = rng.uniform(0, np.pi)
        wave = np.sin(2 * np.pi * rng.uniform(3, 8) * (np.cos(angle) * xx + np.sin(angle) * yy))
        picture = rng.uniform(0.2, 0.8, 3) + 0.1 * wave[..., None] + 0.1 * (xx - 0.5)[..., None]
        label = np.zeros((side, side), np.int32)
        for _ in range(rng.integers(2, 6)):
            kind = int(rng.integers(0, kinds))
            cx, cy = rng.uniform(0.15, 0.85, 2)
            size = rng.uniform(0.08, 0.2)
            dx, dy = xx - cx, yy - cy
            if kind == 0:
                inside = dx ** 2 + dy ** 2 < size ** 2
            elif kind == 1:
                inside = (np.abs(dx) < size) & (np.abs(dy) < size)
            elif kind == 2:
                inside = (dy < size) & (np.abs(dx) < (dy + size) * 0.6)
            else:
                inside = np.abs(np.hypot(dx, dy) - size) < 0.35 * size
            stripes = 0.5 + 0.5 * np.sin(2 * np.pi * rng.uniform(4, 12)
                                         * (dx + rng.uniform(-1, 1) * dy))
            shade = rng.uniform(0, 1, 3) * (0.7 + 0.3 * stripes[..., None])
            picture = np.where(inside[..., None], shade, picture)
            label = np.where(inside, kind + 1, label)
        pictures[i] = np.clip(picture + 0.04 * rng.standard_normal(picture.shape), 0, 1)
        labels[i] = label
    return pictures, labels


def segnet_relativistic(batch: int = 2, side: int = 64, classes: int = 5,
                        widths: tuple[int, ...] = (32, 64, 128), rate: float = 0.02,
                        mu: float = 0.9, delta: float = 1.0) -> Any:
    """SegNet (Badrinarayanan, Kendall and Cipolla) segments 64x64 scenes of striped
    discs, squares, triangles and rings: an encoder of three stages of two 3x3
    convolutions with batch norm, each ending in a 2x2 max pool that keeps the argmax of
    every window, and a mirrored decoder that unpools by putting each value back where
    its maximum was (a one-hot product) before its convolutions; the loss is
    cross-entropy weighted by median frequency balancing of the batch's classes, with a
    mean IoU beside it. The update is relativistic gradient descent (Franca, Sulam,
    Robinson and Vidal), a conformal symplectic integrator of damped relativistic
    Hamiltonian dynamics: a drift by the momentum through the relativistic map
    p / sqrt(delta |p|^2 + 1) (per tensor), the gradient at the drifted weights, a kick,
    a second drift and the damping."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for s, c in enumerate(widths):
        shapes.update({f"e{s}a": (3, 3, cin, c), f"e{s}a_g": (c,), f"e{s}a_b": (c,),
                       f"e{s}b": (3, 3, c, c), f"e{s}b_g": (c,), f"e{s}b_b": (c,)})
        cin = c
    for s in reversed(range(len(widths))):
        c, out = widths[s], widths[max(s - 1, 0)]
        shapes.update({f"d{s}a": (3, 3, c, c), f"d{s}a_g": (c,), f"d{s}a_b": (c,),
                       f"d{s}b": (3, 3, c, out), f"d{s}b_g": (out,), f"d{s}b_b": (out,)})
    shapes.update({"head": (3, 3, widths[0], classes), "head_b": (classes,)})
    params = _weights(shapes, seed=41, scale=math.sqrt(2.0))

    def block(p, k, x):
        return jax.nn.relu(_normalize(_conv(x, p[k]), p[f"{k}_g"], p[f"{k}_b"], (0, 1, 2)))

    def pool(x):
        b, h, w, c = x.shape
        win = x.reshape(b, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 5, 2, 4)
        win = win.reshape(b, h // 2, w // 2, c, 4)
        return jnp.max(win, -1), jnp.argmax(win, -1)

    def unpool(y, where):
        b, h, w, c = y.shape
        spread = jax.nn.one_hot(where, 4, dtype=y.dtype) * y[..., None]
        spread = spread.reshape(b, h, w, c, 2, 2).transpose(0, 1, 4, 2, 5, 3)
        return spread.reshape(b, 2 * h, 2 * w, c)

    def forward(p, x):
        where = []
        for s in range(len(widths)):
            x, idx = pool(block(p, f"e{s}b", block(p, f"e{s}a", x)))
            where.append(idx)
        for s in reversed(range(len(widths))):
            x = block(p, f"d{s}b", block(p, f"d{s}a", unpool(x, where[s])))
        return _conv(x, p["head"]) + p["head_b"]

    def loss_fn(p, images, labels):
        logits = forward(p, images)
        onehot = jax.nn.one_hot(labels, classes)
        freq = jnp.mean(onehot, (0, 1, 2)) + 1e-3
        weight = (jnp.median(freq) / freq)[labels]            # median frequency balancing
        loss = jnp.sum(_xent(logits, labels) * weight) / jnp.sum(weight)
        guess = jax.nn.one_hot(jnp.argmax(logits, -1), classes)
        inter = jnp.sum(guess * onehot, (0, 1, 2))
        union = jnp.sum(jnp.maximum(guess, onehot), (0, 1, 2))
        return loss, jnp.mean(inter / jnp.maximum(union, 1.0))

    def velocity(mom):
        return jax.tree.map(lambda q: q / jnp.sqrt(delta * jnp.sum(q * q) + 1.0), mom)

    def step(w, mom, images, labels):
        root = math.sqrt(mu)
        mom = jax.tree.map(lambda q: root * q, mom)
        w = jax.tree.map(lambda a, u: a + u, w, velocity(mom))                  # drift
        (loss, iou), g = jax.value_and_grad(loss_fn, has_aux=True)(w, images, labels)
        mom = jax.tree.map(lambda q, g_: q - rate * g_, mom, g)                 # kick
        w = jax.tree.map(lambda a, u: a + u, w, velocity(mom))                  # drift
        mom = jax.tree.map(lambda q: root * q, mom)                             # damping
        return w, mom, loss, iou

    rng = np.random.default_rng(41)
    pictures, labels = _shape_scenes(rng, batch, side, classes - 1)
    return jax.jit(step).lower(params, _zeros_like(params), jnp.asarray(pictures),
                               jnp.asarray(labels))


def conve_geomedian(workers: int = 5, per: int = 32, entities: int = 2048, relations: int = 32,
                    dim: int = 200, rows: int = 10, filters: int = 16, iterations: int = 8,
                    rate: float = 0.5, momentum: float = 0.9, smoothing: float = 0.1,
                    nu: float = 1e-6) -> Any:
    """ConvE (Dettmers, Minervini, Stenetorp and Riedel) completes a typed knowledge
    graph of 2048 entities and 32 relations with their inverses: a query's entity and
    relation embeddings (200 each) are reshaped to 10x20, stacked to 20x20 and convolved
    by sixteen 3x3 filters, with batch norm and dropout around the convolution and a
    fully connected projection back to 200, then scored against every entity at once
    (1-N scoring) under binary cross-entropy with label smoothing. Five workers under
    `vmap` take gradients of their own 32 queries; one is Byzantine and sends its
    gradient reversed and scaled by four. The server aggregates by the geometric median
    (robust federated aggregation, Pillutla, Kakade and Harchaoui): eight smoothed
    Weiszfeld iterations in a `fori_loop` over the 1.5-million-long flattened gradients,
    then a Nesterov momentum step."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    cols = dim // rows
    features = (2 * rows - 2) * (cols - 2) * filters
    shapes = {"ent": (entities, dim), "rel": (2 * relations, dim), "bn0_g": (1,), "bn0_b": (1,),
              "conv": (3, 3, 1, filters), "conv_b": (filters,), "bn1_g": (filters,),
              "bn1_b": (filters,), "fc": (features, dim), "fc_b": (dim,), "bn2_g": (dim,),
              "bn2_b": (dim,), "ent_b": (entities,)}
    params = _weights(shapes, seed=42)
    flat, unravel = ravel_pytree(params)

    def drop(key, x, keep):
        return jnp.where(jax.random.bernoulli(key, keep, x.shape), x / keep, 0.0)

    def scores(p, heads, rels, key):
        b = heads.shape[0]
        k1, k2 = jax.random.split(key)
        e = p["ent"][heads].reshape(b, rows, cols)
        r = p["rel"][rels].reshape(b, rows, cols)
        x = jnp.concatenate([e, r], 1)[..., None]
        x = drop(k1, _normalize(x, p["bn0_g"], p["bn0_b"], (0, 1, 2)), 0.8)
        x = _conv(x, p["conv"], padding="VALID") + p["conv_b"]
        x = jax.nn.relu(_normalize(x, p["bn1_g"], p["bn1_b"], (0, 1, 2)))
        x = drop(k2, x.reshape(b, -1) @ p["fc"] + p["fc_b"], 0.7)
        x = jax.nn.relu(_normalize(x, p["bn2_g"], p["bn2_b"], (0,)))
        return x @ p["ent"].T + p["ent_b"]

    def loss_of(flat, heads, rels, targets, key):
        logits = scores(unravel(flat), heads, rels, key)
        aim = (1 - smoothing) * targets + smoothing / entities
        return jnp.mean(jax.nn.softplus(logits) - aim * logits)

    def step(flat, velocity, heads, rels, targets, key):
        keys = jax.random.split(key, workers)
        losses, g = jax.vmap(jax.value_and_grad(loss_of), (None, 0, 0, 0, 0))(
            flat, heads, rels, targets, keys)
        g = g.at[0].multiply(-4.0)                  # the Byzantine worker
        share = jnp.full(workers, 1.0 / workers)

        def weiszfeld(_, z):
            dist = jnp.sqrt(jnp.sum((g - z) ** 2, 1))
            w = share / jnp.maximum(dist, nu)
            return jnp.sum(w[:, None] * g, 0) / jnp.sum(w)

        median = lax.fori_loop(0, iterations, weiszfeld, jnp.mean(g, 0))
        velocity = momentum * velocity + median
        flat = flat - rate * (median + momentum * velocity)
        return flat, velocity, jnp.mean(losses[1:]), jnp.linalg.norm(median)

    # a typed graph: a relation joins entities of one type to entities of another, and a
    # query's true answers are the three best-scoring entities of the target type under
    # a latent bilinear rule
    rng = np.random.default_rng(42)
    kinds = rng.integers(0, 8, entities)
    latent = rng.normal(size=(entities, 8))
    source, target = rng.integers(0, 8, relations), rng.integers(0, 8, relations)
    rules = rng.normal(size=(relations, 8, 8))
    count = workers * per
    rels = rng.integers(0, 2 * relations, count).astype(np.int32)
    heads = np.zeros(count, np.int32)
    targets = np.zeros((count, entities), np.float32)
    for i, r in enumerate(rels):
        base = r % relations
        inverse = r >= relations
        own, other = (target[base], source[base]) if inverse else (source[base], target[base])
        pool = np.nonzero(kinds == own)[0]
        heads[i] = pool[rng.integers(len(pool))] if len(pool) else rng.integers(entities)
        candidates = np.nonzero(kinds == other)[0]
        if len(candidates) == 0:
            candidates = np.arange(entities)
        if inverse:
            fit = latent[candidates] @ rules[base] @ latent[heads[i]]
        else:
            fit = latent[candidates] @ rules[base].T @ latent[heads[i]]
        targets[i, candidates[np.argsort(-fit)[:3]]] = 1.0
    return jax.jit(step).lower(flat, jnp.zeros_like(flat), jnp.asarray(heads.reshape(workers, per)),
                               jnp.asarray(rels.reshape(workers, per)),
                               jnp.asarray(targets.reshape(workers, per, entities)),
                               jax.random.PRNGKey(42))


def _tabular(rng: Any, rows: int, numeric: int, cardinalities: tuple[int, ...],
             classes: int) -> tuple[Any, Any, Any]:
    """numpy float32 standardized numeric columns (rows, numeric), int32 categorical
    columns (rows, len(cardinalities)) and int32 labels: correlated Gaussian columns
    (one made skewed), a label from a random tanh network of them, per-category effects,
    a product of two columns and Gumbel noise."""
    import numpy as np

    mix = np.eye(numeric) + rng.normal(0, 1, (numeric, numeric)) / math.sqrt(numeric)
    x = rng.standard_normal((rows, numeric)) @ mix
    x[:, 0] = np.exp(x[:, 0] / 2)
    cats = np.stack([rng.integers(0, c, rows) for c in cardinalities], 1)
    score = np.tanh(x @ rng.normal(0, 1, (numeric, 16))) @ rng.normal(0, 1, (16, classes))
    for j, c in enumerate(cardinalities):
        score += rng.normal(0, 0.8, (c, classes))[cats[:, j]]
    score[:, 0] += 1.5 * x[:, 1] * x[:, 2]
    labels = np.argmax(score + rng.gumbel(size=score.shape), 1)
    x = (x - x.mean(0)) / x.std(0)
    return x.astype(np.float32), cats.astype(np.int32), labels.astype(np.int32)


def saint_fetchsgd(workers: int = 4, rows: int = 64, numeric: int = 10,
                   cardinalities: tuple[int, ...] = (4, 7, 12, 16, 24, 32), classes: int = 3,
                   width: int = 16, heads: int = 4, layers: int = 2, sketch_rows: int = 5,
                   columns: int = 65536, heavy: int = 6000, rate: float = 0.05,
                   rho: float = 0.9) -> Any:
    """SAINT (Somepalli, Goldblum, Schwarzschild, Bruss and Goldstein) classifies
    tabular rows of ten numeric and six categorical columns: every numeric value is
    embedded by its own small MLP and every category by a row of one shared table, a
    class token is prepended, and each of two layers attends across the columns of a
    row and then across the rows of the batch (intersample attention: each row's
    flattened 17x16 tokens are one token of width 272). Four workers under `vmap` take
    gradients of their own 64 rows for FetchSGD (Rothchild et al.): the summed gradient
    enters a count sketch of five rows of 65536 buckets (buckets and signs from a
    multiply-xorshift hash of each coordinate's index in uint32, a scatter-add), the
    momentum and the error accumulation live in sketch space, the update is unsketched
    as the median of the five signed estimates per coordinate, its 6000 heaviest
    coordinates (`top_k`) are applied, and their buckets are zeroed in both sketches."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    features = numeric + len(cardinalities) + 1
    wide = features * width
    offsets = np.concatenate([[0], np.cumsum(cardinalities)[:-1]]).astype(np.int32)
    shapes: dict[str, tuple[int, ...]] = {
        "num1": (numeric, 16), "num1_b": (numeric, 16), "num2": (numeric, 16, width),
        "num2_b": (numeric, width), "cat": (int(sum(cardinalities)), width), "cls": (1, width),
        "col": (features, width), "head1": (width, 64), "head1_b": (64,),
        "head2": (64, classes), "head2_b": (classes,)}
    for l in range(layers):
        for k, d in (("c", width), ("r", wide)):
            shapes.update({f"{l}{k}n_g": (d,), f"{l}{k}n_b": (d,), f"{l}{k}qkv": (d, 3 * d),
                           f"{l}{k}o": (d, d)})
        for k in ("c", "r"):
            shapes.update({f"{l}{k}f_g": (width,), f"{l}{k}f_b": (width,),
                           f"{l}{k}up": (width, 4 * width), f"{l}{k}up_b": (4 * width,),
                           f"{l}{k}down": (4 * width, width), f"{l}{k}down_b": (width,)})
    params = _weights(shapes, seed=43)
    flat, unravel = ravel_pytree(params)
    n = flat.size

    def attend(x, qkv, o):
        b, t, d = x.shape
        q, k, v = (a.reshape(b, t, heads, d // heads) for a in jnp.split(x @ qkv, 3, -1))
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(d // heads)
        return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v).reshape(b, t, d) @ o

    def feed(p, k, tok):
        h = _normalize(tok, p[f"{k}f_g"], p[f"{k}f_b"])
        return tok + jax.nn.gelu(h @ p[f"{k}up"] + p[f"{k}up_b"]) @ p[f"{k}down"] + p[f"{k}down_b"]

    def forward(p, x, cats):
        b = x.shape[0]
        num = jax.nn.relu(x[..., None] * p["num1"] + p["num1_b"])
        num = jnp.einsum("bfk,fkd->bfd", num, p["num2"]) + p["num2_b"]
        cat = p["cat"][cats + offsets]
        tok = jnp.concatenate([jnp.broadcast_to(p["cls"], (b, 1, width)), num, cat], 1) + p["col"]
        for l in range(layers):
            h = _normalize(tok, p[f"{l}cn_g"], p[f"{l}cn_b"])
            tok = feed(p, f"{l}c", tok + attend(h, p[f"{l}cqkv"], p[f"{l}co"]))
            # intersample attention: the rows of the batch attend to each other
            h = _normalize(tok.reshape(1, b, wide), p[f"{l}rn_g"], p[f"{l}rn_b"])
            tok = tok + attend(h, p[f"{l}rqkv"], p[f"{l}ro"]).reshape(b, features, width)
            tok = feed(p, f"{l}r", tok)
        z = jax.nn.relu(tok[:, 0] @ p["head1"] + p["head1_b"])
        return z @ p["head2"] + p["head2_b"]

    def loss_of(flat, x, cats, labels):
        return jnp.mean(_xent(forward(unravel(flat), x, cats), labels))

    def hashes():
        j = jnp.arange(n, dtype=jnp.uint32)
        buckets, signs = [], []
        for r in range(sketch_rows):
            h = j * jnp.uint32(0x9E3779B1) + jnp.uint32((0x7F4A7C15 * (r + 1)) & 0xFFFFFFFF)
            h = h ^ (h >> 16)
            h = h * jnp.uint32(0x85EBCA6B)
            h = h ^ (h >> 13)
            h = h * jnp.uint32(0xC2B2AE35)
            h = h ^ (h >> 16)
            buckets.append((h & jnp.uint32(columns - 1)).astype(jnp.int32))
            signs.append(jnp.where((h >> 31) == 1, -1.0, 1.0))
        return jnp.stack(buckets), jnp.stack(signs)

    def step(flat, s_u, s_e, x, cats, labels):
        losses, grads = jax.vmap(jax.value_and_grad(loss_of), (None, 0, 0, 0))(flat, x, cats,
                                                                               labels)
        buckets, signs = hashes()
        lanes = jnp.arange(sketch_rows)[:, None]
        # a count sketch is linear: the workers' sketches sum to the sketch of the sum
        sketch = jnp.zeros((sketch_rows, columns)).at[lanes, buckets].add(
            signs * jnp.mean(grads, 0))
        s_u = rho * s_u + sketch
        s_e = s_e + rate * s_u
        estimate = jnp.sort(signs * s_e[lanes, buckets], 0)[sketch_rows // 2]
        _, top = lax.top_k(jnp.abs(estimate), heavy)
        delta = jnp.zeros(n).at[top].set(estimate[top])
        hit = buckets[:, top]
        s_u = s_u.at[lanes, hit].set(0.0)
        s_e = s_e.at[lanes, hit].set(0.0)
        return flat - delta, s_u, s_e, jnp.mean(losses)

    rng = np.random.default_rng(43)
    x, cats, labels = _tabular(rng, workers * rows, numeric, cardinalities, classes)
    table = jnp.zeros((sketch_rows, columns), jnp.float32)
    return jax.jit(step).lower(flat, table, table,
                               jnp.asarray(x.reshape(workers, rows, numeric)),
                               jnp.asarray(cats.reshape(workers, rows, len(cardinalities))),
                               jnp.asarray(labels.reshape(workers, rows)))


def _motion_clips(rng: Any, count: int, frames: int, side: int, classes: int = 6
                  ) -> tuple[Any, Any]:
    """numpy float32 clips (count, frames, side, side, 3) and int32 labels: a striped
    ellipse moving right, left, down or up, growing, or spinning (by class) over a
    background of drifting stripes, with noise."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    clips = np.zeros((count, frames, side, side, 3), np.float32)
    for i, label in enumerate(labels):
        cx, cy = rng.uniform(0.35, 0.65, 2)
        radius, aspect = rng.uniform(0.1, 0.16), rng.uniform(0.7, 1.0)
        speed, angle = rng.uniform(0.025, 0.04), rng.uniform(0, np.pi)
        colour, back = rng.uniform(0.4, 1, 3), rng.uniform(0, 0.4, 3)
        drift = rng.normal(0, 0.02, 2)
        for t in range(frames):
            lag = t - frames / 2
            x0 = cx + speed * lag * (label == 0) - speed * lag * (label == 1)
            y0 = cy + speed * lag * (label == 2) - speed * lag * (label == 3)
            r = radius * (1 + 0.08 * (t + 1) * (label == 4))
            a = angle + 0.3 * t * (label == 5)
            dx, dy = xx - x0, yy - y0
            u, v = np.cos(a) * dx + np.sin(a) * dy, -np.sin(a) * dx + np.cos(a) * dy
            inside = (u / r) ** 2 + (v / (aspect * r)) ** 2 < 1
            stripes = 0.6 + 0.4 * np.sin(2 * np.pi * 10 * u)
            ground = back + 0.08 * np.sin(2 * np.pi * 3 * (xx + drift[0] * t + yy
                                                            + drift[1] * t))[..., None]
            frame = np.where(inside[..., None], colour * stripes[..., None], ground)
            clips[i, t] = np.clip(frame + 0.03 * rng.standard_normal(frame.shape), 0, 1)
    return clips, labels.astype(np.int32)


def tsm_admm(clips: int = 2, frames: int = 8, side: int = 48, classes: int = 6,
             widths: tuple[int, ...] = (16, 32, 64), depth: int = 2, keep: float = 0.2,
             rho: float = 1e-3, every: int = 16, rate: float = 1e-3) -> Any:
    """A temporal shift module network (Lin, Gan and Han) classifies eight-frame clips
    of moving, growing or spinning ellipses: a 2-D residual network runs on every frame,
    and before the first convolution of each residual branch an eighth of the channels
    is shifted one frame back in time and another eighth one frame forward (zero
    filled), so 2-D convolutions mix neighbouring frames; the frames' logits are
    averaged. The step is ADMM weight pruning (Zhang et al.) towards 80% sparsity of
    every 3x3 kernel: the loss carries (rho/2) |W - Z + U|^2 and Adam moves W; every
    sixteenth step (`lax.cond`) Z becomes the projection of W + U onto the kernels
    keeping their 20% largest magnitudes (a threshold from `top_k`) and the dual U
    takes W - Z."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],),
                                          "stem_b": (widths[0],)}
    cin = widths[0]
    for s, c in enumerate(widths):
        for d in range(depth):
            k = f"{s}{d}"
            shapes.update({f"{k}a": (3, 3, cin, c), f"{k}a_g": (c,), f"{k}a_b": (c,),
                           f"{k}b": (3, 3, c, c), f"{k}b_g": (c,), f"{k}b_b": (c,)})
            if cin != c:
                shapes[f"{k}proj"] = (1, 1, cin, c)
            cin = c
    shapes.update({"fc": (widths[-1], classes), "fc_b": (classes,)})
    params = _weights(shapes, seed=44, scale=math.sqrt(2.0))
    pruned = [k for k, s in shapes.items() if len(s) == 4 and s[0] == 3 and k != "stem"]
    counts = {k: max(1, int(keep * math.prod(shapes[k]))) for k in pruned}

    def bn(p, k, x):
        return _normalize(x, p[f"{k}_g"], p[f"{k}_b"], (0, 1, 2))

    def shift(x):
        n, h, w, c = x.shape
        x = x.reshape(n // frames, frames, h, w, c)
        fold = c // 8
        zero = jnp.zeros_like(x[:, :1, ..., :fold])
        past = jnp.concatenate([zero, x[:, :-1, ..., :fold]], 1)
        future = jnp.concatenate([x[:, 1:, ..., fold:2 * fold], zero], 1)
        return jnp.concatenate([past, future, x[..., 2 * fold:]], -1).reshape(n, h, w, c)

    def forward(p, video):
        b = video.shape[0]
        x = video.reshape(b * frames, side, side, 3)
        x = jax.nn.relu(bn(p, "stem", _conv(x, p["stem"], stride=2)))
        for s in range(len(widths)):
            for d in range(depth):
                k = f"{s}{d}"
                stride = 2 if (s > 0 and d == 0) else 1
                y = jax.nn.relu(bn(p, f"{k}a", _conv(shift(x), p[f"{k}a"], stride=stride)))
                y = bn(p, f"{k}b", _conv(y, p[f"{k}b"]))
                short = _conv(x, p[f"{k}proj"], stride=stride) if f"{k}proj" in p else x
                x = jax.nn.relu(short + y)
        logits = jnp.mean(x, (1, 2)) @ p["fc"] + p["fc_b"]
        return jnp.mean(logits.reshape(b, frames, classes), 1)

    def project(k, w):
        flat = jnp.abs(w).reshape(-1)
        cut = lax.top_k(flat, counts[k])[0][-1]
        return jnp.where(jnp.abs(w) >= cut, w, 0.0)

    def loss_fn(p, z, u, video, labels):
        task = jnp.mean(_xent(forward(p, video), labels))
        penalty = sum(jnp.sum((p[k] - z[k] + u[k]) ** 2) for k in pruned)
        return task + 0.5 * rho * penalty, task

    def step(p, opt, z, u, video, labels):
        m, v, t = opt
        (_, task), grads = jax.value_and_grad(loss_fn, has_aux=True)(p, z, u, video, labels)
        t = t + 1
        p, m, v = _adam(p, grads, m, v, t, rate)

        def admm(args):
            w, z, u = args
            z = {k: project(k, w[k] + u[k]) for k in pruned}
            return z, {k: u[k] + w[k] - z[k] for k in pruned}

        z, u = lax.cond(t % every == 0, admm, lambda args: (args[1], args[2]),
                        ({k: p[k] for k in pruned}, z, u))
        gap = jnp.sqrt(sum(jnp.sum((p[k] - z[k]) ** 2) for k in pruned))
        return p, (m, v, t), z, u, task, gap

    rng = np.random.default_rng(44)
    video, labels = _motion_clips(rng, clips, frames, side, classes)
    z0 = {}
    for k in pruned:
        w = np.asarray(params[k])
        cut = np.sort(np.abs(w).reshape(-1))[-counts[k]]
        z0[k] = jnp.asarray(np.where(np.abs(w) >= cut, w, 0.0).astype(np.float32))
    u0 = {k: jnp.zeros(shapes[k], jnp.float32) for k in pruned}
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, opt, z0, u0, jnp.asarray(video), jnp.asarray(labels))


def _survival(rng: Any, clients: int, patients: int, covariates: int) -> tuple[Any, Any, Any]:
    """numpy float32 covariates (clients, patients, covariates), observed times and event
    indicators (clients, patients): a log-hazard that is linear in the covariates plus a
    softplus interaction and a Gaussian bump, Weibull proportional-hazards times drawn by
    inverse transform with a baseline scale per hospital, uniform censoring; every
    hospital's covariates are shifted."""
    import numpy as np

    beta = rng.normal(0, 0.5, covariates)
    xs, times, events = [], [], []
    for _ in range(clients):
        x = rng.standard_normal((patients, covariates)) + rng.normal(0, 0.5, covariates)
        hazard = 0.5 * x @ beta + np.log1p(np.exp(x[:, 0] * x[:, 1])) \
            - 0.8 * np.exp(-np.sum(x[:, 2:4] ** 2, 1))
        scale = 10.0 * math.exp(rng.normal(0, 0.2))
        time = scale * (-np.log(rng.uniform(size=patients)) / np.exp(hazard)) ** (1 / 1.5)
        censor = rng.uniform(0, 1.5 * np.quantile(time, 0.9), patients)
        xs.append(x)
        times.append(np.minimum(time, censor))
        events.append(time <= censor)
    return (np.asarray(xs, np.float32), np.asarray(times, np.float32),
            np.asarray(events, np.float32))


def deepsurv_feddyn(clients: int = 4, patients: int = 512, covariates: int = 24,
                    hidden: int = 64, local: int = 8, rate: float = 0.05, alpha: float = 0.1,
                    l2: float = 1e-4) -> Any:
    """DeepSurv (Katzman et al.) fits a SELU network's log-risk to right-censored
    survival times of four hospitals by the negative Cox partial log-likelihood (the
    patients sorted by time, the risk sets' log-sums by a running `cumsum` of
    exponentials), with dropout and an L2 penalty; Harrell's concordance index over all
    pairs is the monitor. The hospitals are federated by FedDyn (Acar, Zhao, Matas,
    Mattina, Whatmough and Saligrama): under `vmap`, each takes eight local gradient
    steps in a `lax.scan` on its loss minus the inner product with its stored gradient
    plus (alpha/2) |w - server|^2, then updates the stored gradient; the server keeps a
    running correction h and sets the model to the clients' mean less h / alpha."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    params = _weights({"w1": (covariates, hidden), "w1_b": (hidden,), "w2": (hidden, hidden),
                       "w2_b": (hidden,), "w3": (hidden, 1), "w3_b": (1,)}, seed=45)

    def risk(p, x, key=None):
        h = jax.nn.selu(x @ p["w1"] + p["w1_b"])
        if key is not None:
            h = jnp.where(jax.random.bernoulli(key, 0.9, h.shape), h / 0.9, 0.0)
        h = jax.nn.selu(h @ p["w2"] + p["w2_b"])
        return (h @ p["w3"] + p["w3_b"])[:, 0]

    def cox(r, time, event):
        order = jnp.argsort(-time)                # the risk set of each patient comes first
        r, e = r[order], event[order]
        top = lax.stop_gradient(jnp.max(r))
        log_set = jnp.log(jnp.cumsum(jnp.exp(r - top))) + top
        return -jnp.sum((r - log_set) * e) / jnp.maximum(jnp.sum(e), 1.0)

    def concordance(r, time, event):
        earlier = (time[:, None] < time[None, :]) & (event[:, None] > 0)
        right = (r[:, None] > r[None, :]) + 0.5 * (r[:, None] == r[None, :])
        return jnp.sum(earlier * right) / jnp.maximum(jnp.sum(earlier), 1)

    def client(theta, stored, x, time, event, key):
        def objective(w, k):
            task = cox(risk(w, x, k), time, event) \
                + l2 * (jnp.sum(w["w1"] ** 2) + jnp.sum(w["w2"] ** 2))
            linear = sum(jnp.sum(s * a) for s, a in zip(jax.tree.leaves(stored),
                                                       jax.tree.leaves(w)))
            prox = sum(jnp.sum((a - b) ** 2) for a, b in zip(jax.tree.leaves(w),
                                                           jax.tree.leaves(theta)))
            return task - linear + 0.5 * alpha * prox, task

        def local_step(w, k):
            (_, task), g = jax.value_and_grad(objective, has_aux=True)(w, k)
            return jax.tree.map(lambda a, b: a - rate * b, w, g), task

        w, tasks = lax.scan(local_step, theta, jax.random.split(key, local))
        stored = jax.tree.map(lambda s, a, b: s - alpha * (a - b), stored, w, theta)
        return w, stored, tasks[-1]

    def step(theta, stored, h, x, time, event, key):
        models, stored, tasks = jax.vmap(client, (None, 0, 0, 0, 0, 0))(
            theta, stored, x, time, event, jax.random.split(key, clients))
        h = jax.tree.map(lambda h_, w, t: h_ - alpha * jnp.mean(w - t, 0), h, models, theta)
        theta = jax.tree.map(lambda w, h_: jnp.mean(w, 0) - h_ / alpha, models, h)
        scores = jax.vmap(lambda xx: risk(theta, xx))(x)
        return theta, stored, h, tasks, jax.vmap(concordance)(scores, time, event)

    rng = np.random.default_rng(45)
    x, time, event = _survival(rng, clients, patients, covariates)
    stored = jax.tree.map(lambda w: jnp.zeros((clients,) + w.shape, jnp.float32), params)
    return jax.jit(step).lower(params, stored, _zeros_like(params), jnp.asarray(x),
                               jnp.asarray(time), jnp.asarray(event), jax.random.PRNGKey(45))


def dtp_glyphs(batch: int = 128, side: int = 28, sizes: tuple[int, ...] = (512, 256, 128),
               classes: int = 10, beta: float = 0.5, noise: float = 0.3, rate: float = 1e-3,
               rho: float = 0.9) -> Any:
    """Difference target propagation (Lee, Zhang, Fischer and Bengio) trains a tanh MLP
    of 512, 256 and 128 units on stroke glyphs with no gradient passing between layers:
    the last hidden layer's target is one gradient step on the output loss with respect
    to that layer alone, every lower target is the layer's own value plus the difference
    of a learned inverse (feedback) mapping applied to the target above and to the value
    above, and each forward layer is fitted to its target by a local squared error
    (inputs and targets stopped). The inverses are trained at the same time to undo
    their forward layer on noise-corrupted inputs. All local gradients come from one
    `jax.grad` of their sum, and RMSProp moves every weight."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    dims = (side * side,) + tuple(sizes)
    depth = len(sizes)
    shapes: dict[str, tuple[int, ...]] = {}
    for l in range(1, depth + 1):
        shapes.update({f"f{l}": (dims[l - 1], dims[l]), f"f{l}_b": (dims[l],)})
        if l >= 2:
            shapes.update({f"g{l}": (dims[l], dims[l - 1]), f"g{l}_b": (dims[l - 1],)})
    shapes.update({"out": (dims[-1], classes), "out_b": (classes,)})
    params = _weights(shapes, seed=46)
    sg = jax.lax.stop_gradient

    def f(p, l, h):
        return jnp.tanh(h @ p[f"f{l}"] + p[f"f{l}_b"])

    def g(p, l, h):
        return jnp.tanh(h @ p[f"g{l}"] + p[f"g{l}_b"])

    def local(p, values, targets, eps, labels):
        total = jnp.mean(_xent(values[depth] @ p["out"] + p["out_b"], labels))
        for l in range(1, depth + 1):
            total = total + jnp.sum((f(p, l, values[l - 1]) - targets[l]) ** 2) / batch
        for l in range(2, depth + 1):
            noisy = values[l - 1] + noise * eps[l]
            back = g(p, l, sg(f(p, l, noisy)))            # trains the inverse only
            total = total + jnp.sum((back - noisy) ** 2) / batch
        return total

    def step(p, square, x, labels, key):
        values = [x]
        for l in range(1, depth + 1):
            values.append(f(p, l, values[-1]))
        loss, top = jax.value_and_grad(
            lambda h: jnp.sum(_xent(h @ p["out"] + p["out_b"], labels)))(values[depth])
        targets = {depth: values[depth] - beta * top}
        for l in range(depth, 1, -1):
            targets[l - 1] = values[l - 1] + g(p, l, targets[l]) - g(p, l, values[l])
        keys = jax.random.split(key, depth + 1)
        eps = {l: jax.random.normal(keys[l], values[l - 1].shape) for l in range(2, depth + 1)}
        grads = jax.grad(local)(p, values, targets, eps, labels)
        square = jax.tree.map(lambda s, d: rho * s + (1 - rho) * d * d, square, grads)
        p = jax.tree.map(lambda w, d, s: w - rate * d / (jnp.sqrt(s) + 1e-8), p, grads, square)
        logits = values[depth] @ p["out"] + p["out_b"]
        return p, square, loss / batch, jnp.mean(jnp.argmax(logits, -1) == labels)

    rng = np.random.default_rng(46)
    glyphs, labels = _glyphs(rng, batch, side, classes)
    return jax.jit(step).lower(params, _zeros_like(params),
                               jnp.asarray(glyphs.reshape(batch, side * side)),
                               jnp.asarray(labels), jax.random.PRNGKey(46))


def synthesizer_egr(batch: int = 4, length: int = 128, vocab: int = 128, width: int = 64,
                    heads: int = 4, layers: int = 3, hidden: int = 256, chains: int = 4,
                    rate: float = 1e-3, lam: float = 0.01) -> Any:
    """A Synthesizer language model (Tay, Bahri, Metzler, Juan, Zhao and Zheng) in
    bfloat16 on Markov-chain tokens: no query-key products; each head's causal attention
    logits are a gated mixture of dense synthetic ones (every position's own 128 logits
    from a ReLU MLP of its state) and random synthetic ones (a learned 128x128 matrix
    per head), applied to projected values, with GELU feed-forward layers between. The
    loss adds explicit gradient regularization (after Barrett and Dherin's implicit
    gradient regularization): the squared norm of the loss's own gradient, so the step
    differentiates a gradient of the whole network in bfloat16. Adam moves float32
    master weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width),
                                          "nf_g": (width,), "nf_b": (width,), "out_b": (vocab,)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}s1": (width, width),
                       f"{l}s1_b": (width,), f"{l}s2": (width, heads * length),
                       f"{l}s2_b": (heads * length,), f"{l}rand": (heads, length, length),
                       f"{l}mix_z": (heads,), f"{l}v": (width, width), f"{l}o": (width, width),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}up": (width, hidden),
                       f"{l}up_b": (hidden,), f"{l}down": (hidden, width),
                       f"{l}down_b": (width,)})
    params = _weights(shapes, seed=47)
    causal = jnp.tril(jnp.ones((length, length), bool))

    def loss_fn(p, tokens):
        inputs, aims = tokens[:, :-1], tokens[:, 1:]
        b = inputs.shape[0]
        x = p["embed"][inputs] + p["pos"]
        for l in range(layers):
            h = _normalize(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
            dense = jax.nn.relu(h @ p[f"{l}s1"] + p[f"{l}s1_b"]) @ p[f"{l}s2"] + p[f"{l}s2_b"]
            dense = dense.reshape(b, length, heads, length).transpose(0, 2, 1, 3).astype(f32)
            gate = jax.nn.sigmoid(p[f"{l}mix_z"].astype(f32))[None, :, None, None]
            logits = gate * dense + (1 - gate) * p[f"{l}rand"].astype(f32)[None]
            att = jax.nn.softmax(jnp.where(causal, logits, -1e9), -1).astype(bf16)
            v = (h @ p[f"{l}v"]).reshape(b, length, heads, dh)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, length, width) @ p[f"{l}o"]
            h = _normalize(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ p[f"{l}up"] + p[f"{l}up_b"]) @ p[f"{l}down"] \
                + p[f"{l}down_b"]
        logits = _normalize(x, p["nf_g"], p["nf_b"]) @ p["embed"].T + p["out_b"]
        return jnp.mean(_xent(logits, aims))

    def regularized(pb, tokens):
        loss, g = jax.value_and_grad(loss_fn)(pb, tokens)
        square = sum(jnp.sum(jnp.square(d.astype(f32))) for d in jax.tree.leaves(g))
        return loss + lam * square, (loss, square)

    def step(master, state, tokens):
        m, v, t = state
        pb = jax.tree.map(lambda w: w.astype(bf16), master)
        (_, (loss, square)), grads = jax.value_and_grad(regularized, has_aux=True)(pb, tokens)
        grads = jax.tree.map(lambda d: d.astype(f32), grads)
        master, m, v = _adam(master, grads, m, v, t + 1, rate)
        return master, (m, v, t + 1), loss, square

    rng = np.random.default_rng(47)
    tokens, _ = _markov_tokens(rng, batch, length + 1, vocab, chains)
    state = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, state, jnp.asarray(tokens))


def _retrieval_text(rng: Any, count: int, query_len: int, doc_len: int, vocab: int,
                    topics: int, common: int = 64) -> tuple[Any, Any, Any]:
    """numpy int32 queries (count, query_len), positive documents and hard-negative
    documents (count, doc_len): every topic owns a band of the vocabulary; a query is six
    key words of its topic and four common words, padded with the mask token (1); its
    document holds four of the key words among twelve other words of the topic and
    common words, the hard negative four different words of the same topic instead."""
    import numpy as np

    band = (vocab - common - 2) // topics
    queries = np.ones((count, query_len), np.int32)
    positives = np.zeros((count, doc_len), np.int32)
    negatives = np.zeros((count, doc_len), np.int32)
    for i in range(count):
        words = 2 + common + int(rng.integers(topics)) * band + rng.permutation(band)
        key, other, alt = words[:6], words[6:20], words[20:26]
        query = np.concatenate([key, rng.integers(2, 2 + common, 4)])
        queries[i, :len(query)] = rng.permutation(query)
        for out, keep in ((positives, key), (negatives, alt)):
            doc = np.concatenate([rng.choice(keep, 4, replace=False), rng.choice(other, 12),
                                  rng.integers(2, 2 + common, doc_len - 16)])
            out[i] = rng.permutation(doc)
    return queries, positives, negatives


def colbert_movement(batch: int = 16, query_len: int = 16, doc_len: int = 48,
                     vocab: int = 1024, topics: int = 16, width: int = 64, heads: int = 4,
                     layers: int = 2, dim: int = 32, density: float = 0.3,
                     rate: float = 1e-3) -> Any:
    """ColBERT (Khattab and Zaharia) in bfloat16 learns late-interaction retrieval on
    synthetic topical text: one small transformer encodes queries (padded with mask
    tokens, query augmentation) and documents (told apart by a segment embedding), every
    token is projected to 32 dimensions and L2-normalized, and a query scores a document
    by the sum over its tokens of the best match among the document's tokens (MaxSim);
    each query ranks its own document against every other positive and hard negative of
    the batch under cross-entropy. Its weight matrices are pruned during training by
    movement pruning (Sanh, Wolf and Rush): every matrix keeps the 30% of entries with the
    highest learned scores (a threshold by `top_k`), the mask passed straight through so
    the scores learn from -dL/dW_eff * W; Adam moves weights and scores."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (doc_len, width),
                                          "kind": (2, width), "nf_g": (width,),
                                          "nf_b": (width,), "proj": (width, dim)}
    pruned = []
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}o": (width, width), f"{l}n2_g": (width,), f"{l}n2_b": (width,),
                       f"{l}up": (width, 4 * width), f"{l}up_b": (4 * width,),
                       f"{l}down": (4 * width, width), f"{l}down_b": (width,)})
        pruned += [f"{l}qkv", f"{l}o", f"{l}up", f"{l}down"]
    params = {"w": _weights(shapes, seed=48),
              "s": _weights({k: shapes[k] for k in pruned}, seed=49, scale=0.01)}

    def masked(w, s):
        cut = lax.stop_gradient(lax.top_k(s.reshape(-1), int(density * s.size))[0][-1])
        hard = (s >= cut).astype(f32)
        return (w * (hard + s - lax.stop_gradient(s))).astype(bf16)    # straight through

    def encode(params, tokens, kind):
        w = jax.tree.map(lambda a: a.astype(bf16), params["w"])
        mats = {k: masked(params["w"][k], params["s"][k]) for k in pruned}
        b, t = tokens.shape
        x = w["embed"][tokens] + w["pos"][:t] + w["kind"][kind]
        for l in range(layers):
            h = _normalize(x, w[f"{l}n1_g"], w[f"{l}n1_b"])
            q, k, v = (a.reshape(b, t, heads, dh) for a in jnp.split(h @ mats[f"{l}qkv"], 3, -1))
            s = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(f32) / math.sqrt(dh)
            att = jax.nn.softmax(s, -1).astype(bf16)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, t, width) @ mats[f"{l}o"]
            h = _normalize(x, w[f"{l}n2_g"], w[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ mats[f"{l}up"] + w[f"{l}up_b"]) @ mats[f"{l}down"] \
                + w[f"{l}down_b"]
        e = (_normalize(x, w["nf_g"], w["nf_b"]) @ w["proj"]).astype(f32)
        return (e / jnp.sqrt(jnp.sum(e * e, -1, keepdims=True) + 1e-6)).astype(bf16)

    def loss_fn(params, queries, docs):
        q = encode(params, queries, 0)
        d = encode(params, docs, 1)
        sim = jnp.einsum("qid,njd->qnij", q, d).astype(f32)
        score = jnp.sum(jnp.max(sim, -1), -1)                            # MaxSim
        labels = jnp.arange(queries.shape[0])
        return jnp.mean(_xent(score, labels)), jnp.mean(jnp.argmax(score, -1) == labels)

    def step(params, state, queries, docs):
        m, v, t = state
        (loss, hits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, queries, docs)
        params, m, v = _adam(params, grads, m, v, t + 1, rate)
        return params, (m, v, t + 1), loss, hits

    rng = np.random.default_rng(48)
    queries, positives, negatives = _retrieval_text(rng, batch, query_len, doc_len, vocab,
                                                    topics)
    docs = np.concatenate([positives, negatives], 0)
    state = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, state, jnp.asarray(queries), jnp.asarray(docs))


def matching_page(episodes: int = 3, ways: int = 10, shots: int = 1, queries: int = 2,
                  side: int = 28, pool_classes: int = 40, channels: int = 32, steps: int = 4,
                  rate: float = 0.05, chance: float = 0.25) -> Any:
    """Matching networks (Vinyals, Blundell, Lillicrap, Kavukcuoglu and Wierstra) with
    full context embeddings learn 10-way one-shot episodes of stroke glyphs drawn from
    40 classes: a four-block CNN with batch norm and max pooling embeds support and
    query pictures, a bidirectional LSTM over the support set (two `lax.scan`s) adds
    context to the support embeddings, an attention LSTM reads them for four steps per
    query (a `lax.scan`), and a softmax over cosine similarities weights the support
    labels. The update is PAGE (Li, Bao, Zhang and Richtarik), a probabilistic
    variance-reduced gradient: with probability one quarter (`lax.cond` on a random
    draw) the gradient of a large batch of three episodes under `vmap`, otherwise the
    last estimate corrected by the gradients at the current and the previous weights on
    the first episode alone."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {}
    cin = 1
    for i in range(4):
        shapes.update({f"c{i}": (3, 3, cin, channels), f"c{i}_g": (channels,),
                       f"c{i}_b": (channels,)})
        cin = channels
    shapes.update({"gf": (2 * channels, 4 * channels), "gf_b": (4 * channels,),
                   "gb": (2 * channels, 4 * channels), "gb_b": (4 * channels,),
                   "att": (3 * channels, 4 * channels), "att_b": (4 * channels,)})
    params = _weights(shapes, seed=50)

    def pool(x):
        b, h, w, c = x.shape
        x = x[:, :2 * (h // 2), :2 * (w // 2)]
        return jnp.max(x.reshape(b, h // 2, 2, w // 2, 2, c), (2, 4))

    def embed(p, images):
        x = images
        for i in range(4):
            x = _conv(x, p[f"c{i}"])
            x = pool(jax.nn.relu(_normalize(x, p[f"c{i}_g"], p[f"c{i}_b"], (0, 1, 2))))
        return x.reshape(x.shape[0], -1)

    def lstm(w, b, inputs, c):
        i, f, g, o = jnp.split(inputs @ w + b, 4, -1)
        c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        return jax.nn.sigmoid(o) * jnp.tanh(c), c

    def episode_loss(p, support, s_labels, query, q_labels):
        both = embed(p, jnp.concatenate([support, query], 0))
        s, q = both[:support.shape[0]], both[support.shape[0]:]

        def run(name, seq):
            def cell(carry, x):
                h, c = lstm(p[name], p[f"{name}_b"], jnp.concatenate([x, carry[0]]), carry[1])
                return (h, c), h
            zero = jnp.zeros(channels)
            return lax.scan(cell, (zero, zero), seq)[1]

        g = s + run("gf", s) + run("gb", s[::-1])[::-1]

        def read(carry, _):
            h, c, r = carry
            h, c = lstm(p["att"], p["att_b"], jnp.concatenate([q, h, r], -1), c)
            h = h + q
            a = jax.nn.softmax(h @ g.T, -1)
            return (h, c, a @ g), None

        zeros = jnp.zeros_like(q)
        (f, _, _), _ = lax.scan(read, (zeros, zeros, zeros), None, length=steps)
        unit = lambda z: z / jnp.sqrt(jnp.sum(z * z, -1, keepdims=True) + 1e-8)
        attention = jax.nn.softmax(10.0 * unit(f) @ unit(g).T, -1)
        probs = attention @ jax.nn.one_hot(s_labels, ways)
        picked = jnp.take_along_axis(probs, q_labels[:, None], 1)[:, 0]
        return -jnp.mean(jnp.log(picked + 1e-8))

    def grad_of(p, episode):
        return jax.value_and_grad(episode_loss)(p, *episode)

    def step(p, p_prev, g_prev, support, s_labels, query, q_labels, key):
        coin = jax.random.uniform(key) < chance

        def fresh(_):
            losses, grads = jax.vmap(grad_of, (None, 0))(p, (support, s_labels, query, q_labels))
            return jnp.mean(losses), jax.tree.map(lambda d: jnp.mean(d, 0), grads)

        def recursive(_):
            first = (support[0], s_labels[0], query[0], q_labels[0])
            loss, now = grad_of(p, first)
            _, before = grad_of(p_prev, first)
            return loss, jax.tree.map(lambda a, b, c: a + b - c, g_prev, now, before)

        loss, g = lax.cond(coin, fresh, recursive, None)
        return jax.tree.map(lambda w, d: w - rate * d, p, g), p, g, loss

    # episodes of glyph classes: ten classes each, one support and two queries per class
    rng = np.random.default_rng(50)
    pictures, labels = _glyphs(rng, 800, side, pool_classes)
    per = shots + queries
    usable = [c for c in range(pool_classes) if np.sum(labels == c) >= per]
    support = np.zeros((episodes, ways * shots, side, side, 1), np.float32)
    query = np.zeros((episodes, ways * queries, side, side, 1), np.float32)
    s_labels = np.zeros((episodes, ways * shots), np.int32)
    q_labels = np.zeros((episodes, ways * queries), np.int32)
    for e in range(episodes):
        for way, c in enumerate(rng.choice(usable, ways, replace=False)):
            picked = rng.choice(np.nonzero(labels == c)[0], per, replace=False)
            support[e, way * shots:(way + 1) * shots, ..., 0] = pictures[picked[:shots]]
            query[e, way * queries:(way + 1) * queries, ..., 0] = pictures[picked[shots:]]
            s_labels[e, way * shots:(way + 1) * shots] = way
            q_labels[e, way * queries:(way + 1) * queries] = way
    return jax.jit(step).lower(params, params, _zeros_like(params), jnp.asarray(support),
                               jnp.asarray(s_labels), jnp.asarray(query), jnp.asarray(q_labels),
                               jax.random.PRNGKey(50))


def rtm_acoustic(shots: int = 2, depth: int = 96, width: int = 128, steps: int = 400,
                 every: int = 4, dx: float = 12.5, dt: float = 1.5e-3, peak: float = 15.0,
                 sponge: int = 16) -> Any:
    """Reverse time migration of two shots over a 96x128 acoustic model (layers, a
    dipping interface and a fast body), no gradient: the constant-density wave equation
    by second-order time steps and a fourth-order Laplacian of shifted slices, with a
    Ricker source and a Cerjan sponge. A first `lax.scan` of 400 steps records the
    surface data in the true model; in a smoothed copy the source wavefield is run
    again, kept every fourth step (a `fori_loop` inside a `lax.scan`), and the direct
    arrival muted from the data; the data are then injected backwards in time at the
    receivers in a reversed scan, and the image is the cross-correlation of the two
    wavefields, normalized by the source illumination, stacked over shots and
    Laplacian-filtered."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    z = np.arange(depth)[:, None] * dx
    x = np.arange(width)[None, :] * dx
    true = np.full((depth, width), 1600.0)
    true = np.where(z > 250 + 0.15 * x, 2200.0, true)
    true = np.where(z > 620, 2600.0, true)
    true = np.where(((x - 900) / 220) ** 2 + ((z - 420) / 90) ** 2 < 1, 3400.0, true)
    smooth = true.copy()
    for _ in range(12):                                          # box blur on the host
        padded = np.pad(smooth, 2, mode="edge")
        smooth = sum(padded[i:i + depth, j:j + width] for i in range(5) for j in range(5)) / 25
    i, j = np.arange(depth)[:, None], np.arange(width)[None, :]
    edge = np.minimum(np.minimum(i, depth - 1 - i), np.minimum(j, width - 1 - j))
    damp = jnp.asarray(np.exp(-(0.03 * np.maximum(sponge - edge, 0)) ** 2), jnp.float32)
    receiver = 3
    sources = ((np.arange(shots) + 1) * width // (shots + 1)).astype(np.int64)
    src = np.zeros((shots, depth, width), np.float32)
    src[np.arange(shots), receiver, sources] = 1.0
    t = np.arange(steps) * dt - 1.2 / peak
    arg = (np.pi * peak * t) ** 2
    wavelet = jnp.asarray((1 - 2 * arg) * np.exp(-arg), jnp.float32)
    row = jnp.asarray(np.arange(depth) == receiver, jnp.float32)[None, :, None]
    # the direct arrival, muted from the data: travel time along the surface plus the
    # wavelet's length
    arrival = np.abs(np.arange(width)[None, :] - sources[:, None]) * dx / true[receiver][None, :]
    mute = jnp.asarray((np.arange(steps)[:, None, None] * dt
                        > arrival[None] + 2.5 / peak).astype(np.float32))

    def lap(u):
        p = jnp.pad(u, ((0, 0), (2, 2), (2, 2)))
        near = p[:, 1:-3, 2:-2] + p[:, 3:-1, 2:-2] + p[:, 2:-2, 1:-3] + p[:, 2:-2, 3:-1]
        far = p[:, :-4, 2:-2] + p[:, 4:, 2:-2] + p[:, 2:-2, :-4] + p[:, 2:-2, 4:]
        return (16 * near - far - 60 * u) / 12

    def advance(state, courant, push):
        prev, now = state
        return now, damp * (2 * now - damp * prev + courant * lap(now)) + push

    def run(velocity, smoothed):
        true_c = (velocity * dt / dx) ** 2
        smooth_c = (smoothed * dt / dx) ** 2
        zero = jnp.zeros((shots, depth, width))

        def record(state, w):
            state = advance(state, true_c, src * w)
            return state, state[1][:, receiver, :]

        _, data = lax.scan(record, (zero, zero), wavelet)          # (steps, shots, width)
        data = data * mute

        def source_chunk(state, chunk):
            state = lax.fori_loop(0, every, lambda k, s: advance(s, smooth_c, src * chunk[k]),
                                  state)
            return state, state[1]

        _, snaps = lax.scan(source_chunk, (zero, zero), wavelet.reshape(steps // every, every))

        def receiver_chunk(carry, xs):
            state, image, light = carry
            chunk, snap = xs
            image = image + snap * state[1]                          # imaging condition
            light = light + snap * snap
            state = lax.fori_loop(
                0, every, lambda k, s: advance(s, smooth_c, row * chunk[k][:, None, :]), state)
            return (state, image, light), None

        backwards = data[::-1].reshape(steps // every, every, shots, width)
        (_, image, light), _ = lax.scan(receiver_chunk, ((zero, zero), zero, zero),
                                        (backwards, snaps[::-1]))
        image = jnp.sum(image / (light + 1e-3 * jnp.max(light, (1, 2), keepdims=True)), 0)
        filtered = lap(image[None])[0]
        return filtered, jnp.transpose(data, (1, 0, 2)), jnp.sum(light, 0)

    return jax.jit(run).lower(jnp.asarray(true, jnp.float32), jnp.asarray(smooth, jnp.float32))


def sep_cmaes(runs: int = 8, dim: int = 64, population: int = 32, generations: int = 250) -> Any:
    """Separable CMA-ES (Ros and Hansen) on eight runs of shifted 64-dimensional test
    functions (the ill-conditioned ellipsoid, Rosenbrock, Rastrigin and Ackley, two runs
    each), no gradient: 250 generations in a `fori_loop`, each drawing 32 candidates
    from N(m, sigma^2 diag(C)) with `jax.random` inside the loop, ranking them by an
    `argsort`, recombining the best half with log-rank weights, and updating the
    evolution paths, the diagonal covariance (rank-one and rank-mu terms, scaled up for
    the separable case, with the h_sigma stall) and the step size by cumulative step
    length adaptation; the best value per generation is recorded."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = dim
    mu = population // 2
    weights = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    weights = weights / weights.sum()
    mueff = 1 / np.sum(weights ** 2)
    cs = (mueff + 2) / (n + mueff + 5)
    ds = 1 + 2 * max(0.0, math.sqrt((mueff - 1) / (n + 1)) - 1) + cs
    cc = (4 + mueff / n) / (n + 4 + 2 * mueff / n)
    c1 = 2 / ((n + 1.3) ** 2 + mueff) * (n + 2) / 3
    cmu = min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) ** 2 + mueff) * (n + 2) / 3)
    chi = math.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n))
    w = jnp.asarray(weights, jnp.float32)
    conditioning = jnp.asarray(10.0 ** (6 * np.arange(n) / (n - 1)), jnp.float32)

    def evaluate(x, which, shift):
        y = x - shift[:, None, :]
        ellipsoid = jnp.sum(conditioning * y ** 2, -1)
        rosenbrock = jnp.sum(100 * (y[..., 1:] - y[..., :-1] ** 2) ** 2
                             + (1 - y[..., :-1]) ** 2, -1)
        rastrigin = 10 * n + jnp.sum(y ** 2 - 10 * jnp.cos(2 * jnp.pi * y), -1)
        ackley = (-20 * jnp.exp(-0.2 * jnp.sqrt(jnp.mean(y ** 2, -1)))
                  - jnp.exp(jnp.mean(jnp.cos(2 * jnp.pi * y), -1)) + 20 + math.e)
        pick = which[:, None]
        return jnp.where(pick == 0, ellipsoid, jnp.where(pick == 1, rosenbrock,
                                                         jnp.where(pick == 2, rastrigin, ackley)))

    def run(mean, sigma, which, shift, key):
        def generation(g, carry):
            mean, sigma, diag, ps, pc, best, trace = carry
            z = jax.random.normal(jax.random.fold_in(key, g), (runs, population, n))
            y = jnp.sqrt(diag)[:, None, :] * z
            f = evaluate(mean[:, None, :] + sigma[:, None, None] * y, which, shift)
            order = jnp.argsort(f, 1)[:, :mu, None]
            ys = jnp.take_along_axis(y, order, 1)
            zw = jnp.einsum("m,rmn->rn", w, jnp.take_along_axis(z, order, 1))
            yw = jnp.einsum("m,rmn->rn", w, ys)
            mean = mean + sigma[:, None] * yw
            ps = (1 - cs) * ps + math.sqrt(cs * (2 - cs) * mueff) * zw
            norm = jnp.sqrt(jnp.sum(ps * ps, -1))
            stall = norm / jnp.sqrt(1 - (1 - cs) ** (2.0 * (g + 1))) < (1.4 + 2 / (n + 1)) * chi
            hs = stall.astype(jnp.float32)[:, None]
            pc = (1 - cc) * pc + hs * math.sqrt(cc * (2 - cc) * mueff) * yw
            diag = ((1 - c1 - cmu) * diag + c1 * (pc ** 2 + (1 - hs) * cc * (2 - cc) * diag)
                    + cmu * jnp.einsum("m,rmn->rn", w, ys ** 2))
            sigma = sigma * jnp.exp(cs / ds * (norm / chi - 1))
            best = jnp.minimum(best, jnp.min(f, 1))
            return mean, sigma, diag, ps, pc, best, trace.at[g].set(best)

        zeros = jnp.zeros((runs, n))
        init = (mean, sigma, jnp.ones((runs, n)), zeros, zeros, jnp.full(runs, jnp.inf),
                jnp.zeros((generations, runs)))
        mean, sigma, diag, *_, best, trace = lax.fori_loop(0, generations, generation, init)
        return mean, sigma, diag, best, trace

    rng = np.random.default_rng(51)
    mean = rng.uniform(-3, 3, (runs, n)).astype(np.float32)
    shift = rng.uniform(-2, 2, (runs, n)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(mean), jnp.full(runs, 2.0, jnp.float32),
                              jnp.asarray(np.arange(runs) % 4, jnp.int32), jnp.asarray(shift),
                              jax.random.PRNGKey(51))


def chacha20_stream(messages: int = 2048, blocks: int = 32, double_rounds: int = 10) -> Any:
    """ChaCha20 (Bernstein; RFC 8439) encrypts 2048 printable messages of 2 KiB each
    (65536 blocks), no gradient: the 4x4 uint32 states (constants, a 256-bit key, a block
    counter from one and a 96-bit nonce per message) pass ten double rounds in a
    `fori_loop`, column quarter-rounds then diagonal ones by rolling the state's rows,
    each quarter-round additions, XORs and rotations by shifts; the states are added
    back, serialized little-endian into bytes by shifts and masks, and XORed with the
    plaintext; a high-nibble histogram of the first 256 bytes of every message, an XOR
    fold per message (an XLA reduce) and a round-trip check come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    count = messages * blocks
    constants = np.array([0x61707865, 0x3320646E, 0x79622D32, 0x6B206574], np.uint32)

    def rotl(x, k):
        return (x << k) | (x >> (32 - k))

    def quarter(a, b, c, d):
        a = a + b
        d = rotl(d ^ a, 16)
        c = c + d
        b = rotl(b ^ c, 12)
        a = a + b
        d = rotl(d ^ a, 8)
        c = c + d
        b = rotl(b ^ c, 7)
        return a, b, c, d

    def double_round(_, s):
        a, b, c, d = quarter(s[0], s[1], s[2], s[3])                       # columns
        a, b, c, d = quarter(a, jnp.roll(b, -1, 0), jnp.roll(c, -2, 0), jnp.roll(d, -3, 0))
        return jnp.stack([a, jnp.roll(b, 1, 0), jnp.roll(c, 2, 0), jnp.roll(d, 3, 0)])

    def encrypt(key, nonces, text):
        counter = jnp.broadcast_to(jnp.arange(1, blocks + 1, dtype=u32), (messages, blocks))
        nonce = jnp.repeat(nonces, blocks, axis=0)
        words = [jnp.full(count, c, u32) for c in constants]
        words += [jnp.broadcast_to(key[i], (count,)) for i in range(8)]
        words += [counter.reshape(-1), nonce[:, 0], nonce[:, 1], nonce[:, 2]]
        start = jnp.stack(words).reshape(4, 4, count)
        state = lax.fori_loop(0, double_rounds, double_round, start) + start
        shifts = jnp.arange(4, dtype=u32) * 8
        stream = ((state.reshape(16, count)[..., None] >> shifts) & 0xFF).astype(jnp.uint8)
        stream = jnp.transpose(stream.reshape(16, messages, blocks, 4), (1, 2, 0, 3))
        stream = stream.reshape(messages, blocks * 64)
        cipher = stream ^ text
        nibbles = cipher[:, :256] >> 4
        histogram = jnp.sum(nibbles[..., None] == jnp.arange(16, dtype=jnp.uint8), (0, 1))
        fold = lax.reduce(cipher, np.uint8(0), lax.bitwise_xor, (1,))
        return cipher, histogram, fold, jnp.all((cipher ^ stream) == text)

    rng = np.random.default_rng(52)
    key = rng.integers(0, 2 ** 32, 8, dtype=np.uint64).astype(np.uint32)
    nonces = rng.integers(0, 2 ** 32, (messages, 3), dtype=np.uint64).astype(np.uint32)
    text = rng.integers(32, 127, (messages, blocks * 64)).astype(np.uint8)
    return jax.jit(encrypt).lower(jnp.asarray(key), jnp.asarray(nonces), jnp.asarray(text))


def _corner_scenes(rng: Any, count: int, side: int) -> tuple[Any, Any, Any]:
    """numpy float32 grey pictures (count, side, side) full of corners (forty rotated
    rectangles and cut rectangles of random grey levels over a gradient, lightly
    blurred), second views of them rotated, scaled and shifted about the centre (by
    bilinear resampling), brightened and noised, and the true (angle, scale, shift x,
    shift y) of each."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side].astype(np.float64)
    firsts, seconds, truths = [], [], []
    for _ in range(count):
        img = 0.3 + 0.2 * xx / side + 0.1 * yy / side
        for _ in range(40):
            x0, y0 = rng.uniform(0, side, 2)
            w, h = rng.uniform(8, 48, 2)
            a = rng.uniform(0, np.pi)
            u = np.cos(a) * (xx - x0) + np.sin(a) * (yy - y0)
            v = -np.sin(a) * (xx - x0) + np.cos(a) * (yy - y0)
            inside = (np.abs(u) < w / 2) & (np.abs(v) < h / 2)
            if rng.uniform() < 0.3:
                inside &= v < u * h / w
            img = np.where(inside, rng.uniform(0, 1), img)
        img = (img + np.roll(img, 1, 0) + np.roll(img, -1, 0) + np.roll(img, 1, 1)
               + np.roll(img, -1, 1)) / 5
        angle, scale = rng.uniform(-0.15, 0.15), rng.uniform(0.95, 1.05)
        shift = rng.uniform(-10, 10, 2)
        c = side / 2
        cos, sin = np.cos(angle) / scale, np.sin(angle) / scale
        sx = cos * (xx - c - shift[0]) + sin * (yy - c - shift[1]) + c
        sy = -sin * (xx - c - shift[0]) + cos * (yy - c - shift[1]) + c
        ix = np.clip(np.floor(sx), 0, side - 2).astype(np.int64)
        iy = np.clip(np.floor(sy), 0, side - 2).astype(np.int64)
        fx, fy = np.clip(sx - ix, 0, 1), np.clip(sy - iy, 0, 1)
        warped = (img[iy, ix] * (1 - fx) * (1 - fy) + img[iy, ix + 1] * fx * (1 - fy)
                  + img[iy + 1, ix] * (1 - fx) * fy + img[iy + 1, ix + 1] * fx * fy)
        warped = np.clip(1.1 * warped + 0.05 + 0.02 * rng.standard_normal(warped.shape), 0, 1)
        firsts.append(img)
        seconds.append(warped)
        truths.append([angle, scale, shift[0], shift[1]])
    return (np.asarray(firsts, np.float32), np.asarray(seconds, np.float32),
            np.asarray(truths, np.float32))


def harris_brief(pairs: int = 4, side: int = 256, corners: int = 256, bits: int = 256,
                 patch: int = 12, border: int = 20, k: float = 0.05) -> Any:
    """Feature matching between four pairs of 256x256 grey views, no gradient: Harris
    corners (Sobel gradients by convolution, their products smoothed by a separable
    Gaussian as depthwise convolutions, the response det - k trace^2, non-maximum
    suppression by a 7x7 `reduce_window` maximum, the 256 strongest by `top_k`), BRIEF
    descriptors (256 fixed point-pair intensity tests around each corner of a smoothed
    image, gathered, packed into eight uint32 words by shifts), Hamming distances between
    all descriptor pairs by XOR and `population_count`, mutual nearest neighbours with a
    ratio test (`top_k`), and a similarity transform fitted in closed form to the matches
    and refitted twice on its inliers, under `vmap` over the pairs."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    rng = np.random.default_rng(53)
    first, second, truth = _corner_scenes(rng, pairs, side)
    offsets = np.clip(np.round(rng.normal(0, patch / 2.5, (bits, 4))), -patch, patch
                      ).astype(np.int32)

    def taps(sigma, size):
        t = np.exp(-0.5 * ((np.arange(size) - size // 2) / sigma) ** 2)
        return jnp.asarray(t / t.sum(), f32)

    harris_taps, brief_taps = taps(1.5, 7), taps(2.0, 9)
    sobel = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32) / 8
    sobel_x = jnp.asarray(sobel[:, :, None, None])
    sobel_y = jnp.asarray(sobel.T[:, :, None, None])
    inner = np.zeros((side, side), bool)
    inner[border:-border, border:-border] = True
    inner = jnp.asarray(inner)

    def blur(img, t):
        c = img.shape[-1]
        across = jnp.tile(t[None, :, None, None], (1, 1, 1, c))
        down = jnp.tile(t[:, None, None, None], (1, 1, 1, c))
        return _conv(_conv(img, across, groups=c), down, groups=c)

    def detect(img):
        x = img[None, :, :, None]
        gx, gy = _conv(x, sobel_x), _conv(x, sobel_y)
        m = blur(jnp.concatenate([gx * gx, gy * gy, gx * gy], -1), harris_taps)[0]
        response = m[..., 0] * m[..., 1] - m[..., 2] ** 2 - k * (m[..., 0] + m[..., 1]) ** 2
        peak = lax.reduce_window(response, np.float32(-np.inf), lax.max, (7, 7), (1, 1), "SAME")
        keep = (response >= peak) & (response > 1e-3 * jnp.max(response)) & inner
        value, index = lax.top_k(jnp.where(keep, response, -jnp.inf).reshape(-1), corners)
        return jnp.stack([index // side, index % side], -1), value > -jnp.inf

    def describe(img, points):
        smooth = blur(img[None, :, :, None], brief_taps)[0, :, :, 0].reshape(-1)
        y, x = points[:, :1], points[:, 1:]
        a = smooth[(y + offsets[:, 0]) * side + x + offsets[:, 1]]
        b = smooth[(y + offsets[:, 2]) * side + x + offsets[:, 3]]
        bit = (a < b).astype(jnp.uint32).reshape(corners, bits // 32, 32)
        return jnp.sum(bit << jnp.arange(32, dtype=jnp.uint32), -1, dtype=jnp.uint32)

    def fit(p1, p2, w):
        total = jnp.sum(w) + 1e-9
        c1 = jnp.sum(w[:, None] * p1, 0) / total
        c2 = jnp.sum(w[:, None] * p2, 0) / total
        a1, a2 = p1 - c1, p2 - c2
        norm = jnp.sum(w * jnp.sum(a1 * a1, 1)) + 1e-9
        a = jnp.sum(w * jnp.sum(a1 * a2, 1)) / norm                              # s cos
        b = jnp.sum(w * (a1[:, 0] * a2[:, 1] - a1[:, 1] * a2[:, 0])) / norm     # s sin
        move = c2 - jnp.stack([a * c1[0] - b * c1[1], b * c1[0] + a * c1[1]])
        return a, b, move

    def pair(img1, img2):
        pts1, ok1 = detect(img1)
        pts2, ok2 = detect(img2)
        d1, d2 = describe(img1, pts1), describe(img2, pts2)
        dist = jnp.sum(lax.population_count(d1[:, None, :] ^ d2[None, :, :]), -1).astype(f32)
        nearest = jnp.argmin(dist, 1)
        mutual = jnp.argmin(dist, 0)[nearest] == jnp.arange(corners)
        two = -lax.top_k(-dist, 2)[0]
        good = mutual & (two[:, 0] < 0.8 * two[:, 1]) & (two[:, 0] < 64) & ok1 & ok2[nearest]
        p1 = pts1[:, ::-1].astype(f32)
        p2 = pts2[nearest][:, ::-1].astype(f32)
        w = good.astype(f32)
        for _ in range(3):
            a, b, move = fit(p1, p2, w)
            guess = jnp.stack([a * p1[:, 0] - b * p1[:, 1], b * p1[:, 0] + a * p1[:, 1]], -1) + move
            w = (good & (jnp.sqrt(jnp.sum((guess - p2) ** 2, 1)) < 3.0)).astype(f32)
        return jnp.arctan2(b, a), jnp.sqrt(a * a + b * b), move, jnp.sum(w), jnp.sum(good)

    def run(first, second, truth):
        angle, scale, move, inliers, matches = jax.vmap(pair)(first, second)
        error = jnp.abs(angle - truth[:, 0]) + jnp.abs(scale - truth[:, 1])
        return angle, scale, move, inliers, matches, error

    return jax.jit(run).lower(jnp.asarray(first), jnp.asarray(second), jnp.asarray(truth))


def heston_carr_madan(sets: int = 64, maturities: int = 8, points: int = 4096, eta: float = 0.25,
                      alpha: float = 1.5, strikes: int = 21, newton: int = 12,
                      rate: float = 0.03, dividend: float = 0.01) -> Any:
    """European calls under 64 Heston parameter sets at eight maturities by the
    Carr-Madan FFT in complex64, no gradient: the characteristic function in the
    "little Heston trap" form (complex square roots, logarithms and exponentials) at
    damped frequencies, divided by the Carr-Madan denominator, weighted by Simpson's
    rule and transformed by 4096-point complex FFTs onto a log-strike grid; 21 strikes
    per maturity are interpolated from the grid by gathers, their implied volatilities
    found by twelve Newton steps on Black-Scholes (`erf`) in a `fori_loop`, and every
    parameter set is scored against a quoted smile, with the best set picked by an
    `argmin`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    lam = 2 * np.pi / (points * eta)
    b = points * lam / 2
    v = np.arange(points) * eta
    simpson = eta / 3 * (3 + (-1.0) ** (np.arange(points) + 1))
    simpson[0] = eta / 3
    grid = -b + lam * np.arange(points)
    expiries = np.array([1 / 12, 2 / 12, 3 / 12, 6 / 12, 9 / 12, 1.0, 1.5, 2.0])[:maturities]
    forward = np.exp((rate - dividend) * expiries)
    moneyness = np.linspace(0.7, 1.3, strikes)
    strike = forward[:, None] * moneyness[None, :]                     # (maturities, strikes)
    place = (np.log(strike) + b) / lam
    low = np.floor(place).astype(np.int32)
    frac = jnp.asarray(place - low, f32)
    big_t = jnp.asarray(expiries, f32)[:, None]
    k_j = jnp.asarray(strike, f32)
    f_j = jnp.asarray(forward, f32)[:, None]

    def characteristic(u, t, kappa, theta, sigma, rho, v0):
        iu = 1j * u
        beta = kappa - rho * sigma * iu
        d = jnp.sqrt(beta ** 2 + sigma ** 2 * (iu + u ** 2))
        g = (beta - d) / (beta + d)
        e = jnp.exp(-d * t)
        c = (rate - dividend) * iu * t + kappa * theta / sigma ** 2 * (
            (beta - d) * t - 2 * jnp.log((1 - g * e) / (1 - g)))
        dd = (beta - d) / sigma ** 2 * (1 - e) / (1 - g * e)
        return jnp.exp(c + dd * v0)

    def norm_cdf(z):
        return 0.5 * (1 + lax.erf(z / math.sqrt(2.0)))

    def black(sig):
        sd = sig * jnp.sqrt(big_t)
        d1 = (jnp.log(f_j / k_j) + 0.5 * sd * sd) / sd
        disc = jnp.exp(-rate * big_t)
        price = disc * (f_j * norm_cdf(d1) - k_j * norm_cdf(d1 - sd))
        vega = disc * f_j * jnp.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * jnp.sqrt(big_t)
        return price, vega

    def run(params, quoted):
        kappa, theta, sigma, rho, v0 = (params[:, i, None, None] for i in range(5))
        t = jnp.asarray(expiries, f32)[None, :, None]
        u = jnp.asarray(v, f32)[None, None, :] - (alpha + 1) * 1j
        denominator = alpha ** 2 + alpha - jnp.asarray(v ** 2, f32) \
            + 1j * (2 * alpha + 1) * jnp.asarray(v, f32)
        psi = jnp.exp(-rate * t) * characteristic(u, t, kappa, theta, sigma, rho, v0) / denominator
        weights = jnp.asarray(np.exp(1j * b * v) * simpson, jnp.complex64)
        calls = jnp.exp(-alpha * jnp.asarray(grid, f32)) / jnp.pi \
            * jnp.real(jnp.fft.fft(psi * weights, axis=-1))            # (sets, maturities, points)
        rows = np.arange(maturities)[:, None]
        price = calls[:, rows, low] * (1 - frac) + calls[:, rows, low + 1] * frac
        guess = jnp.clip(jnp.sqrt(2 * jnp.pi / big_t) * price / f_j, 0.05, 1.5)

        def newton_step(_, sig):
            value, vega = black(sig)
            return jnp.clip(sig - (value - price) / jnp.maximum(vega, 1e-6), 0.01, 3.0)

        vol = lax.fori_loop(0, newton, newton_step, guess)
        misfit = jnp.sqrt(jnp.mean((vol - quoted) ** 2, (1, 2)))
        centre = strikes // 2
        skew = (vol[..., centre + 1] - vol[..., centre - 1]) / (moneyness[centre + 1]
                                                               - moneyness[centre - 1])
        return vol, misfit, jnp.argmin(misfit), vol[..., centre], skew

    rng = np.random.default_rng(54)
    params = np.stack([rng.uniform(0.5, 4.0, sets), rng.uniform(0.02, 0.12, sets),
                       rng.uniform(0.2, 0.9, sets), rng.uniform(-0.9, -0.1, sets),
                       rng.uniform(0.02, 0.12, sets)], 1).astype(np.float32)
    smile = 0.22 - 0.12 * np.log(moneyness)[None, :] / np.sqrt(expiries)[:, None] \
        + 0.05 * np.log(moneyness)[None, :] ** 2
    quoted = (smile + rng.normal(0, 0.003, smile.shape)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(params), jnp.asarray(quoted))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "funnel_awd/2x256-d128-pool-2-2-2-bf16": funnel_awd,
    "segnet_relativistic/2x64x64px-c32-64-128": segnet_relativistic,
    "conve_geomedian/5x32-2048-entities-8-weiszfeld": conve_geomedian,
    "saint_fetchsgd/4x64-rows-16-columns-5x65536-sketch": saint_fetchsgd,
    "tsm_admm/2x8x48px-c16-32-64": tsm_admm,
    "deepsurv_feddyn/4x512-patients-8-local": deepsurv_feddyn,
    "dtp_glyphs/128x784-512-256-128": dtp_glyphs,
    "synthesizer_egr/4x128-d64-l3-bf16": synthesizer_egr,
    "colbert_movement/16x16-32x48-d64-bf16": colbert_movement,
    "matching_page/3x10-way-1-shot-28px": matching_page,
    "rtm_acoustic/2x96x128-400-steps": rtm_acoustic,
    "sep_cmaes/8x64-dims-32-250-generations": sep_cmaes,
    "chacha20_stream/2048x2KiB": chacha20_stream,
    "harris_brief/4x256x256-256-corners": harris_brief,
    "heston_carr_madan/64x8-4096-fft-c64": heston_carr_madan,
}
