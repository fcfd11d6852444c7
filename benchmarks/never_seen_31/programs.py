"""The thirty-first never-seen set: programs written on 2026-11-28, after the thirtieth set
(benchmarks/never_seen_30/), and never used to choose anything: no feature, default,
fallback threshold or model was picked by looking at them. They are here to judge one
trained model, once. The SHA-256 of this file is committed next to it (`SHA256`), and
`fresh_programs.py --set never-seen-31` refuses to run when the two disagree, since an
edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the thirty
earlier never-seen sets contain. Two training steps are large, around a gigaflop or more
each (the Pyramid Vision Transformer and the Shake-Shake network under Lookaround); the
others are mid-sized, a few of them small. Nine are training steps: one takes per-example
gradients for a running Fisher information (ESIM), one federates clients whose local
steps run in a `lax.scan` (MemN2N), one rolls out its own policy in a `lax.scan` and
takes its PPO updates in a `fori_loop` (GAIL), one trains three augmented copies under
`vmap` for two steps of a `lax.scan` with convolutions inside (Shake-Shake), and one
quantizes every weight, gradient, momentum and activation to 8-bit block floating point
by stochastic rounding (the ladder VAE); the dtypes are float32 and bfloat16 (FiBiNET,
I-JEPA and Mega).

The Pyramid Vision Transformer classifies outlined, textured shapes through three stages
whose patch embeddings are strided convolutions and whose attention reads keys and values
from a spatially reduced (strided-convolution) copy of the token map; its matrices move by
Dion, low-rank orthonormalized updates from one power-iteration step per call
(Gram-Schmidt written out) with error feedback in the momentum, the rest by AdamW. ESIM
decides entailment, neutrality or contradiction between premises and hypotheses of a toy
language by BiLSTMs (`lax.scan`s), soft alignment, enhancement and composition BiLSTMs,
trained by Adam under an online elastic weight consolidation penalty whose Fisher
diagonal is refreshed from per-example gradients (`vmap` of `grad`) of labels sampled
from the model. An end-to-end memory network answers "where is" questions about people
moving and carrying objects with three hops of attention over position-encoded,
time-tagged memories, its eight clients federated by Mime: local steps in a `lax.scan`
with the server's momentum held fixed and an SVRG-style correction by full-batch
gradients at the server weights. A ladder VAE reconstructs stroke glyphs with a spatial
and a vector latent, the posterior of the lower one merging bottom-up and top-down
Gaussians by precision, its convolutions and transposed convolutions trained by SWALP
(low-precision SGD with momentum, stochastic rounding to a shared exponent per tensor,
and a full-precision weight average taken every fourth step under `lax.cond`). GAIL
teaches a Gaussian policy to reach goals like a scripted expert: a discriminator of
state-action pairs gives the rewards, generalized advantages come from a reversed
`lax.scan`, and sixteen PPO minibatch updates run in a `fori_loop` over random
permutations. FiBiNET predicts clicks in bfloat16 from ten categorical fields through a
squeeze-excitation of the field embeddings and field-each bilinear interactions, under
CowClip (every embedding row's gradient clipped by its own weight norm times its count
in the batch, the counts by a scatter-add) before Adam. A Shake-Shake network mixes two
residual branches with one random weight forward and another backward, stepped by the
Lookaround optimizer: three copies take two momentum steps each on differently augmented
views of the same batches, then are averaged. I-JEPA in bfloat16 predicts the target
encoder's representations of four masked blocks of patches from a context encoder that
sees only the remaining patches (gathers of patch indices), with the target an exponential
moving average. Mega, a causal language model in bfloat16, feeds a damped,
multi-dimensional exponential moving average (a `lax.scan` over time in float32) into a
single-head gated attention with a learned relative-position bias, its loss kept at a
flood level (the gradient ascends below it) under Adam with global-norm clipping.

Six are scientific or algorithmic steps without a gradient: stripmap SAR focusing of
point targets by the range-Doppler algorithm in complex64 (range compression and azimuth
transforms by FFTs, range cell migration correction by four-tap interpolation gathers,
azimuth matched filtering, multilooking, image entropy and `top_k` of bright points);
CRC-32 by slicing-by-4 tables in a `fori_loop`, Adler-32, Fletcher-16 and the Internet
checksum of 4096 packets of 1 KiB and of corrupted copies (uint32 shifts, masks, XORs,
remainders, table gathers and `population_count`); Gray-Scott reaction-diffusion of four
pattern regimes (a depthwise 3x3 Laplacian convolution on wrapped grids inside a
`fori_loop`, then radial power spectra by scatter-adds and spot counts by a
`reduce_window` maximum); greedy class-aware non-maximum suppression of detection boxes
(`top_k`, an IoU matrix, a `fori_loop` of suppressions) and COCO-style mean average
precision over ten IoU thresholds (greedy matching in a `fori_loop`, an `argsort`, running
sums and a reversed `cummax`); linear-predictive analysis of speech-like clips (framing by
gathers, autocorrelations by FFTs, Levinson-Durbin and LPC cepstra in `fori_loop`s, the
prediction residual by a per-frame depthwise 1-D convolution, pitch and formant peaks by
`top_k` and a `sort`); and generalized Lomb-Scargle periodograms of irregularly sampled
light curves (frequency chunks in a `lax.scan` of sines and cosines, peaks by `top_k`,
false-alarm probabilities and a sinusoid fitted at the best frequency).

The updates new to these sets: Dion (beside AdamW), online elastic weight consolidation
(over Adam), Mime (over SGD with momentum), SWALP, CowClip (over Adam), Lookaround (over
SGD with momentum) and flooding (over Adam).
"""

from __future__ import annotations

import math
from typing import Any, Callable


def _weights(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
             scale: float = 1.0) -> dict[str, Any]:
    """Starting weights for the named shapes, drawn in order from one numpy generator: a
    name ending in `_b` (a bias or shift) or `_z` (a weight that starts at zero) gets
    zeros, one ending in `_g` (a gain) ones, any other a Gaussian of standard deviation
    scale / sqrt(fan-in), the fan-in being the product of every axis but the last."""
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
    """x standardized over `axes` with float32 statistics, scaled and shifted, returned
    in x's own dtype."""
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


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", groups: int = 1) -> Any:
    """A channels-last convolution in one or two dimensions (the kernel's rank decides)."""
    from jax import lax

    dims = w.ndim - 2
    spec = {1: ("NWC", "WIO", "NWC"), 2: ("NHWC", "HWIO", "NHWC")}[dims]
    return lax.conv_general_dilated(x, w, (stride,) * dims, padding, dimension_numbers=spec,
                                    feature_group_count=groups)


def _upconv(x: Any, w: Any) -> Any:
    """A channels-last 2-D transposed convolution that doubles the height and the width
    (kernel HWIO, I being x's channels)."""
    from jax import lax

    return lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _adam(params: Any, grads: Any, m: Any, v: Any, t: Any, rate: Any, b1: float = 0.9,
          b2: float = 0.999, decay: float = 0.0) -> tuple[Any, Any, Any]:
    """One bias-corrected Adam step, with decoupled weight decay when `decay` is set; t is
    the new step count."""
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


def _outlined_pictures(rng: Any, count: int, side: int, classes: int = 10
                       ) -> tuple[Any, Any]:
    """numpy float32 RGB pictures (count, side, side, 3) in [0, 1] and int32 labels: the
    label picks one of five outlines (disc, square, triangle, ring, plus) and one of two
    fillings (stripes at a random angle and pitch, or a checkerboard), drawn at a random
    place and size in a random colour over a softly graded background, with noise."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, side, side, 3), np.float32)
    for i, label in enumerate(labels):
        outline, filling = int(label) % 5, (int(label) // 5) % 2
        cx, cy = rng.uniform(0.32, 0.68, 2)
        size = rng.uniform(0.18, 0.3)
        dx, dy = xx - cx, yy - cy
        if outline == 0:
            inside = dx ** 2 + dy ** 2 < size ** 2
        elif outline == 1:
            inside = np.maximum(np.abs(dx), np.abs(dy)) < 0.85 * size
        elif outline == 2:
            inside = (dy > -size) & (dy < 0.8 * size) & (np.abs(dx) < 0.6 * (dy + size))
        elif outline == 3:
            inside = np.abs(np.hypot(dx, dy) - 0.75 * size) < 0.25 * size
        else:
            inside = ((np.abs(dx) < 0.3 * size) & (np.abs(dy) < size)) | \
                ((np.abs(dy) < 0.3 * size) & (np.abs(dx) < size))
        if filling == 0:
            angle = rng.uniform(0, np.pi)
            pitch = rng.uniform(3, 6) / size
            pattern = 0.5 + 0.5 * np.sin(2 * np.pi * pitch * (np.cos(angle) * dx
                                                              + np.sin(angle) * dy))
        else:
            cell = rng.uniform(0.2, 0.35) * size
            pattern = (np.floor(dx / cell) + np.floor(dy / cell)) % 2
        colour = rng.uniform(0.35, 1.0, 3)
        ground = rng.uniform(0.0, 0.45, 3) + 0.15 * (xx * rng.uniform(-1, 1)
                                                     + yy * rng.uniform(-1, 1))[..., None]
        picture = np.where(inside[..., None], colour * (0.35 + 0.65 * pattern[..., None]), ground)
        out[i] = np.clip(picture + 0.04 * rng.standard_normal(picture.shape), 0, 1)
    return out, labels.astype(np.int32)


def _strokes(rng: Any, count: int, side: int, classes: int = 10) -> tuple[Any, Any]:
    """numpy float32 grey pictures (count, side, side) in [0, 1] and int32 labels: every
    class is a polyline through four control points fixed per class; each picture moves
    the points a little, draws the line with its own thickness and adds speckle."""
    import numpy as np

    corners = np.random.default_rng(3000 + classes).uniform(0.18, 0.82, (classes, 4, 2))
    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, side, side), np.float32)
    for i, label in enumerate(labels):
        points = corners[label] + rng.normal(0, 0.03, (4, 2))
        width = rng.uniform(0.04, 0.07)
        gap = np.full((side, side), np.inf)
        for a, b in zip(points[:-1], points[1:]):
            d = b - a
            t = np.clip(((xx - a[0]) * d[0] + (yy - a[1]) * d[1]) / (d @ d + 1e-9), 0, 1)
            gap = np.minimum(gap, np.hypot(xx - a[0] - t * d[0], yy - a[1] - t * d[1]))
        ink = np.clip(1.5 - gap / width, 0, 1)
        out[i] = np.clip(ink + 0.05 * rng.standard_normal((side, side)), 0, 1)
    return out, labels.astype(np.int32)


def pvt_dion(batch: int = 12, side: int = 64, classes: int = 10,
             widths: tuple[int, ...] = (32, 64, 128), heads: tuple[int, ...] = (1, 2, 4),
             patches: tuple[int, ...] = (4, 2, 2), reductions: tuple[int, ...] = (4, 2, 1),
             depth: int = 2, rank: int = 8, rate: float = 0.02, mu: float = 0.95,
             adam_rate: float = 1e-3, decay: float = 0.01) -> Any:
    """The Pyramid Vision Transformer (Wang et al.) classifies 64x64 outlined, textured
    shapes in ten classes: three stages, each embedding its input by a strided (4, 2, 2)
    patch convolution into 16x16, 8x8 and 4x4 token maps of width 32, 64 and 128 with
    learned positions, then two pre-norm layers whose spatial-reduction attention takes
    its keys and values from the token map shrunk by a strided convolution (by 4, 2 and
    1: sixteen key tokens in every stage) and normalized; mean-pooled tokens feed the
    head. Every matrix (convolution kernels flattened to rows x output channels) moves by
    Dion (Ahn et al.): the gradient joins a momentum buffer B, one power-iteration step
    against the stored right factor Q gives P = orthonormalize(B Q) (classical
    Gram-Schmidt over rank-8 columns, written out), R = B^T P, the buffer keeps the error
    B - (1 - mu) P R^T, Q becomes R with unit columns, and the weights step by
    -rate sqrt(rows / cols) P Q^T with decoupled decay. Gains, shifts, biases, positions
    and the head move by AdamW."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    cin, grid = 3, side
    for s, (c, patch, sr) in enumerate(zip(widths, patches, reductions)):
        grid //= patch
        shapes.update({f"{s}patch": (patch, patch, cin, c), f"{s}patch_b": (c,),
                       f"{s}pos": (grid * grid, c), f"{s}pn_g": (c,), f"{s}pn_b": (c,)})
        for d in range(depth):
            k = f"{s}{d}"
            shapes.update({f"{k}n1_g": (c,), f"{k}n1_b": (c,), f"{k}q": (c, c),
                           f"{k}kv": (c, 2 * c), f"{k}o": (c, c), f"{k}o_b": (c,),
                           f"{k}n2_g": (c,), f"{k}n2_b": (c,), f"{k}up": (c, 4 * c),
                           f"{k}up_b": (4 * c,), f"{k}down": (4 * c, c), f"{k}down_b": (c,)})
            if sr > 1:
                shapes.update({f"{k}sr": (sr, sr, c, c), f"{k}sr_b": (c,), f"{k}srn_g": (c,),
                               f"{k}srn_b": (c,)})
        cin = c
    shapes.update({"nf_g": (cin,), "nf_b": (cin,), "head": (cin, classes),
                   "head_b": (classes,)})
    params = _weights(shapes, seed=61)
    dion = [k for k, shape in shapes.items()
            if len(shape) in (2, 4) and not k.endswith("pos") and k != "head"]
    others = [k for k in shapes if k not in dion]
    views = {k: (math.prod(shapes[k][:-1]), shapes[k][-1]) for k in dion}

    def attention(p, k, h, grid, c, nh, sr):
        b, n, _ = h.shape
        dh = c // nh
        q = (h @ p[f"{k}q"]).reshape(b, n, nh, dh)
        if sr > 1:                        # keys and values from a spatially reduced map
            m = _conv(h.reshape(b, grid, grid, c), p[f"{k}sr"], stride=sr, padding="VALID")
            m = _normalize((m + p[f"{k}sr_b"]).reshape(b, -1, c), p[f"{k}srn_g"],
                           p[f"{k}srn_b"])
        else:
            m = h
        key, value = (a.reshape(b, -1, nh, dh) for a in jnp.split(m @ p[f"{k}kv"], 2, -1))
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, key) / math.sqrt(dh)
        out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), value)
        return out.reshape(b, n, c) @ p[f"{k}o"] + p[f"{k}o_b"]

    def forward(p, images):
        x = images
        for s, (c, patch, sr) in enumerate(zip(widths, patches, reductions)):
            x = _conv(x, p[f"{s}patch"], stride=patch, padding="VALID") + p[f"{s}patch_b"]
            b, grid = x.shape[0], x.shape[1]
            t = _normalize(x.reshape(b, grid * grid, c) + p[f"{s}pos"], p[f"{s}pn_g"],
                           p[f"{s}pn_b"])
            for d in range(depth):
                k = f"{s}{d}"
                h = _normalize(t, p[f"{k}n1_g"], p[f"{k}n1_b"])
                t = t + attention(p, k, h, grid, c, heads[s], sr)
                h = _normalize(t, p[f"{k}n2_g"], p[f"{k}n2_b"])
                t = t + jax.nn.gelu(h @ p[f"{k}up"] + p[f"{k}up_b"]) @ p[f"{k}down"] \
                    + p[f"{k}down_b"]
            x = t.reshape(b, grid, grid, c)
        pooled = _normalize(jnp.mean(x, (1, 2)), p["nf_g"], p["nf_b"])
        return pooled @ p["head"] + p["head_b"]

    def loss_fn(p, images, labels):
        logits = forward(p, images)
        return jnp.mean(_xent(logits, labels)), jnp.mean(jnp.argmax(logits, -1) == labels)

    def orthonormal(a):
        u = jnp.zeros_like(a)
        for j in range(a.shape[1]):
            v = a[:, j] - u @ (u.T @ a[:, j])
            u = u.at[:, j].set(v / (jnp.sqrt(jnp.sum(v * v)) + 1e-8))
        return u

    def step(p, state, images, labels):
        buffers, factors, m, v, t = state
        (loss, accuracy), g = jax.value_and_grad(loss_fn, has_aux=True)(p, images, labels)
        t = t + 1
        rest, m, v = _adam({k: p[k] for k in others}, {k: g[k] for k in others}, m, v, t,
                           adam_rate, decay=decay)
        new, buffers, factors = dict(rest), dict(buffers), dict(factors)
        for k in dion:
            rows, cols = views[k]
            full = (buffers[k] + g[k]).reshape(rows, cols)
            left = orthonormal(full @ factors[k])                          # (rows, rank)
            right = full.T @ left                                          # (cols, rank)
            buffers[k] = (full - (1 - mu) * left @ right.T).reshape(shapes[k])
            factors[k] = right / (jnp.sqrt(jnp.sum(right * right, 0, keepdims=True)) + 1e-8)
            change = (left @ factors[k].T).reshape(shapes[k])
            new[k] = p[k] * (1 - rate * decay) - rate * math.sqrt(rows / cols) * change
        return new, (buffers, factors, m, v, t), loss, accuracy

    rng = np.random.default_rng(61)
    pictures, labels = _outlined_pictures(rng, batch, side, classes)
    factors = {}
    for k in dion:
        q = rng.standard_normal((views[k][1], min(rank, *views[k]))).astype(np.float32)
        factors[k] = jnp.asarray(q / np.linalg.norm(q, axis=0, keepdims=True))
    buffers = {k: jnp.zeros(shapes[k], jnp.float32) for k in dion}
    rest = {k: params[k] for k in others}
    state = (buffers, factors, _zeros_like(rest), _zeros_like(rest), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, state, jnp.asarray(pictures), jnp.asarray(labels))


def _nli_pairs(rng: Any, count: int, premise_len: int, hypothesis_len: int
               ) -> tuple[Any, Any, Any]:
    """numpy int32 premises (count, premise_len), hypotheses (count, hypothesis_len) and
    labels (0 entailment, 1 neutral, 2 contradiction) in a toy language whose 256 tokens
    are padding (0), "not" (1), "and" (2), 120 nouns in synonym pairs, 60 verbs in
    antonym pairs, 60 adjectives and 13 filler words. A premise is three clauses (noun,
    verb, adjective, noun) joined by "and"; the hypothesis restates one clause with
    synonyms and perhaps without its adjective (entailment), with a new object or
    adjective (neutral), or negated or with the opposite verb (contradiction). Up to two
    fillers land anywhere in either sentence."""
    import numpy as np

    nouns, verbs, adjectives, fillers = 3, 123, 183, 243

    def pick(first, many):
        return first + int(rng.integers(many))

    def synonym(n):
        return nouns + ((n - nouns) ^ 1)

    def antonym(v):
        return verbs + ((v - verbs) ^ 1)

    def fill(tokens, length):
        for _ in range(int(rng.integers(0, 3))):
            tokens.insert(int(rng.integers(len(tokens) + 1)), pick(fillers, 13))
        tokens = tokens[:length]
        return tokens + [0] * (length - len(tokens))

    labels = rng.integers(0, 3, count)
    premises = np.zeros((count, premise_len), np.int32)
    hypotheses = np.zeros((count, hypothesis_len), np.int32)
    for i, label in enumerate(labels):
        clauses = [[pick(nouns, 120), pick(verbs, 60), pick(adjectives, 60), pick(nouns, 120)]
                   for _ in range(3)]
        premises[i] = fill(clauses[0] + [2] + clauses[1] + [2] + clauses[2], premise_len)
        n1, v, a, n2 = clauses[int(rng.integers(3))]
        if label == 0:
            hypothesis = [synonym(n1) if rng.uniform() < 0.5 else n1, v]
            hypothesis += [a] if rng.uniform() < 0.5 else []
            hypothesis += [synonym(n2) if rng.uniform() < 0.5 else n2]
        elif label == 1:
            if rng.uniform() < 0.5:
                other = pick(nouns, 120)
                while other in (n2, synonym(n2)):
                    other = pick(nouns, 120)
                hypothesis = [n1, v, a, other]
            else:
                other = pick(adjectives, 60)
                while other == a:
                    other = pick(adjectives, 60)
                hypothesis = [n1, v, other, n2]
        else:
            hypothesis = [n1, 1, v, a, n2] if rng.uniform() < 0.5 else [n1, antonym(v), a, n2]
        hypotheses[i] = fill(hypothesis, hypothesis_len)
    return premises, hypotheses, labels.astype(np.int32)


def esim_ewc(batch: int = 32, premise_len: int = 24, hypothesis_len: int = 12,
             vocab: int = 256, embed: int = 64, hidden: int = 64, classes: int = 3,
             rate: float = 1e-3, lam: float = 50.0, beta: float = 0.95) -> Any:
    """ESIM (Chen, Zhu, Ling, Wei, Jiang and Inkpen) classifies premise-hypothesis pairs
    of a toy language as entailment, neutral or contradiction: a BiLSTM (two `lax.scan`s
    of 64 units) encodes each sentence, soft alignment attends every premise token to the
    hypothesis and back (masked at padding), the enhanced features [a, a~, a - a~, a * a~]
    are projected and read by a composition BiLSTM, and masked mean and max pooling of
    both sentences feed a tanh MLP. The loss adds online elastic weight consolidation
    (Kirkpatrick et al.; Schwarz et al.): (lam / 2) sum F (w - w*)^2 around the weights
    and Fisher diagonal kept from an earlier task, and the step refreshes a running
    Fisher diagonal of the current task from per-example gradients (`vmap` of `grad`) of
    the log-likelihood of labels sampled from the model's own predictions. Adam moves the
    weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, embed)}
    for k, width in (("e", embed), ("c", hidden)):
        for direction in ("f", "r"):
            shapes.update({f"{k}{direction}": (width + hidden, 4 * hidden),
                           f"{k}{direction}_b": (4 * hidden,)})
    shapes.update({"proj": (8 * hidden, hidden), "proj_b": (hidden,),
                   "mlp": (8 * hidden, hidden), "mlp_b": (hidden,),
                   "out": (hidden, classes), "out_b": (classes,)})
    params = _weights(shapes, seed=62)

    def lstm(w, bias, xs):                                 # xs (time, batch, features)
        def cell(carry, x):
            h, c = carry
            i, f, g, o = jnp.split(jnp.concatenate([x, h], -1) @ w + bias, 4, -1)
            c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h

        zero = jnp.zeros((xs.shape[1], hidden), f32)
        return lax.scan(cell, (zero, zero), xs)[1]

    def bilstm(p, k, x, mask):                             # x (batch, time, features)
        xs = jnp.swapaxes(x * mask[..., None], 0, 1)
        forward = lstm(p[f"{k}f"], p[f"{k}f_b"], xs)
        backward = lstm(p[f"{k}r"], p[f"{k}r_b"], xs[::-1])[::-1]
        return jnp.swapaxes(jnp.concatenate([forward, backward], -1), 0, 1) * mask[..., None]

    def logits_of(p, premise, hypothesis):
        pm, hm = (premise > 0).astype(f32), (hypothesis > 0).astype(f32)
        a = bilstm(p, "e", p["embed"][premise], pm)                  # (b, lp, 2h)
        b = bilstm(p, "e", p["embed"][hypothesis], hm)               # (b, lh, 2h)
        e = jnp.einsum("bid,bjd->bij", a, b)
        a_t = jax.nn.softmax(jnp.where(hm[:, None, :] > 0, e, -1e9), 2) @ b
        b_t = jnp.swapaxes(jax.nn.softmax(jnp.where(pm[:, :, None] > 0, e, -1e9), 1), 1, 2) @ a

        def compose(x, x_t, mask):
            enhanced = jnp.concatenate([x, x_t, x - x_t, x * x_t], -1)
            v = bilstm(p, "c", jax.nn.relu(enhanced @ p["proj"] + p["proj_b"]), mask)
            mean = jnp.sum(v, 1) / jnp.maximum(jnp.sum(mask, 1, keepdims=True), 1.0)
            peak = jnp.max(jnp.where(mask[..., None] > 0, v, -1e9), 1)
            return jnp.concatenate([mean, peak], -1)

        v = jnp.concatenate([compose(a, a_t, pm), compose(b, b_t, hm)], -1)     # (b, 8h)
        return jnp.tanh(v @ p["mlp"] + p["mlp_b"]) @ p["out"] + p["out_b"]

    def loss_fn(p, anchor, fisher, premise, hypothesis, labels):
        logits = logits_of(p, premise, hypothesis)
        task = jnp.mean(_xent(logits, labels))
        penalty = sum(jnp.sum(f * (w - a) ** 2) for w, a, f in
                      zip(jax.tree.leaves(p), jax.tree.leaves(anchor), jax.tree.leaves(fisher)))
        return task + 0.5 * lam * penalty, (task, logits)

    def log_likelihood(p, premise, hypothesis, label):
        logits = logits_of(p, premise[None], hypothesis[None])[0]
        return jax.nn.log_softmax(logits)[label]

    def step(p, opt, running, anchor, fisher, premise, hypothesis, labels, key):
        m, v, t = opt
        (_, (task, logits)), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            p, anchor, fisher, premise, hypothesis, labels)
        sampled = jax.random.categorical(key, lax.stop_gradient(logits), -1)
        per_example = jax.vmap(jax.grad(log_likelihood), (None, 0, 0, 0))(
            p, premise, hypothesis, sampled)
        running = jax.tree.map(lambda r, d: beta * r + (1 - beta) * jnp.mean(d * d, 0),
                               running, per_example)
        p, m, v = _adam(p, grads, m, v, t + 1, rate)
        accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
        return p, (m, v, t + 1), running, task, accuracy

    rng = np.random.default_rng(62)
    premises, hypotheses, labels = _nli_pairs(rng, batch, premise_len, hypothesis_len)
    anchor = {k: w + jnp.asarray(rng.normal(0, 0.02, w.shape).astype(np.float32))
              for k, w in params.items()}
    fisher = {k: jnp.asarray(rng.gamma(0.5, 2e-3, w.shape).astype(np.float32))
              for k, w in params.items()}
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, opt, _zeros_like(params), anchor, fisher,
                               jnp.asarray(premises), jnp.asarray(hypotheses),
                               jnp.asarray(labels), jax.random.PRNGKey(62))


def _stories(rng: Any, count: int, sentences: int, words: int, object_share: float
             ) -> tuple[Any, Any, Any]:
    """numpy int32 stories (count, sentences, words), questions (count, 4) and answers
    (count,) about ten people who move between ten places and pick up and drop ten
    objects. Tokens: 0 pads, 1-5 are "where", "is", "to", "the" and "?", 6-9 verbs of
    moving, 10-12 of taking, 13-14 of dropping, 15-24 people, 25-34 places, 35-44 objects.
    The question asks where something is whose place the story settles: with probability
    `object_share` an object (held by someone whose place is known, or dropped at a known
    place: two supporting facts), otherwise a person who has moved."""
    import numpy as np

    stories = np.zeros((count, sentences, words), np.int32)
    questions = np.zeros((count, 4), np.int32)
    answers = np.zeros(count, np.int32)
    for i in range(count):
        where: dict[int, int] = {}
        holder: dict[int, int] = {}
        lying: dict[int, int] = {}
        for s in range(sentences):
            person = int(rng.integers(10))
            held = [o for o, h in holder.items() if h == person]
            free = [o for o in range(10) if o not in holder]
            r = rng.uniform()
            if 0.6 <= r < 0.85 and free:
                thing = free[int(rng.integers(len(free)))]
                holder[thing] = person
                lying.pop(thing, None)
                fact = [15 + person, 10 + int(rng.integers(3)), 4, 35 + thing]
            elif r >= 0.85 and held:
                thing = held[int(rng.integers(len(held)))]
                del holder[thing]
                if person in where:
                    lying[thing] = where[person]
                fact = [15 + person, 13 + int(rng.integers(2)), 4, 35 + thing]
            else:
                place = int(rng.integers(10))
                where[person] = place
                fact = [15 + person, 6 + int(rng.integers(4)), 3, 4, 25 + place]
            stories[i, s, :len(fact)] = fact
        known = [o for o in range(10)
                 if (o in holder and holder[o] in where) or o in lying]
        if known and rng.uniform() < object_share:
            thing = known[int(rng.integers(len(known)))]
            place = where[holder[thing]] if thing in holder else lying[thing]
            questions[i] = [1, 2, 35 + thing, 5]
        else:
            if not where:                 # no one moved: make the last fact a move
                stories[i, -1] = 0
                stories[i, -1, :5] = [15, 6, 3, 4, 25]
                where[0] = 0
            movers = sorted(where)
            person = movers[int(rng.integers(len(movers)))]
            place = where[person]
            questions[i] = [1, 2, 15 + person, 5]
        answers[i] = 25 + place
    return stories, questions, answers


def memn2n_mime(clients: int = 8, local: int = 6, mini: int = 16, sentences: int = 24,
                words: int = 6, vocab: int = 48, dim: int = 32, hops: int = 3,
                rate: float = 0.05, beta: float = 0.9) -> Any:
    """An end-to-end memory network (Sukhbaatar, Szlam, Weston and Fergus) answers "where
    is" questions about stories of 24 facts: bag-of-words sentence embeddings with
    position encoding plus learned temporal encodings, three hops of attention from the
    question over the memories (empty slots masked), adjacent weight tying (the output
    table of one hop is the input table of the next, the first is the question's, the
    last is the answer layer). Eight clients, each with its own share of object
    questions, are federated by Mime (Karimireddy et al.): the server's full-batch
    gradient c over every client (`vmap`) is fixed for the round; under `vmap` each
    client takes six local steps in a `lax.scan`, moving by (1 - beta) (g(y) - g(x) + c) +
    beta m with the server's momentum m frozen, two gradients per local step (at the
    client's and the server's weights); the server averages the clients and updates m
    with c."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    rng = np.random.default_rng(63)
    params = {"emb": jnp.asarray(rng.normal(0, 0.1, (hops + 1, vocab, dim)).astype(np.float32)),
              "time": jnp.asarray(rng.normal(0, 0.1, (hops + 1, sentences, dim))
                                  .astype(np.float32))}

    def encoding(length):
        j = np.arange(1, length + 1)[:, None]
        k = np.arange(1, dim + 1)[None, :]
        return jnp.asarray((1 - j / length) - (k / dim) * (1 - 2 * j / length), f32)

    story_code, question_code = encoding(words), encoding(4)

    def logits_of(p, story, question):
        present = (story > 0).astype(f32)[..., None]                       # (b, m, w, 1)
        memory = jnp.einsum("kbmwd,wd->kbmd", p["emb"][:, story] * present, story_code)
        memory = memory + p["time"][:, None]                               # (hops+1, b, m, d)
        live = jnp.any(story > 0, -1)
        asked = p["emb"][0][question] * (question > 0).astype(f32)[..., None]
        u = jnp.einsum("bwd,wd->bd", asked, question_code)
        for k in range(hops):
            scores = jnp.einsum("bmd,bd->bm", memory[k], u)
            weights = jax.nn.softmax(jnp.where(live, scores, -1e9), -1)
            u = u + jnp.einsum("bm,bmd->bd", weights, memory[k + 1])
        return u @ p["emb"][hops].T

    def loss_of(w, story, question, answer):
        return jnp.mean(_xent(logits_of(w, story, question), answer))

    grad_of = jax.value_and_grad(loss_of)

    def client(x, momentum, control, stories, questions, answers):
        def local_step(y, batch):
            loss, here = grad_of(y, *batch)
            _, there = grad_of(x, *batch)
            direction = jax.tree.map(lambda a, b, c, m_: (1 - beta) * (a - b + c) + beta * m_,
                                     here, there, control, momentum)
            return jax.tree.map(lambda w, d: w - rate * d, y, direction), loss

        return lax.scan(local_step, x, (stories, questions, answers))

    def step(x, momentum, stories, questions, answers):
        def full_gradient(s, q, a):
            return grad_of(x, s.reshape((-1,) + s.shape[2:]), q.reshape((-1,) + q.shape[2:]),
                           a.reshape(-1))[1]

        control = jax.tree.map(lambda g: jnp.mean(g, 0),
                               jax.vmap(full_gradient)(stories, questions, answers))
        ys, losses = jax.vmap(client, (None, None, None, 0, 0, 0))(
            x, momentum, control, stories, questions, answers)
        x = jax.tree.map(lambda y: jnp.mean(y, 0), ys)
        momentum = jax.tree.map(lambda m_, c: (1 - beta) * c + beta * m_, momentum, control)
        return x, momentum, jnp.mean(losses[:, 0]), jnp.mean(losses[:, -1])

    parts = [_stories(rng, local * mini, sentences, words, share)
             for share in np.linspace(0.2, 0.9, clients)]
    stories = np.stack([p[0] for p in parts]).reshape(clients, local, mini, sentences, words)
    questions = np.stack([p[1] for p in parts]).reshape(clients, local, mini, 4)
    answers = np.stack([p[2] for p in parts]).reshape(clients, local, mini)
    return jax.jit(step).lower(params, _zeros_like(params), jnp.asarray(stories),
                               jnp.asarray(questions), jnp.asarray(answers))


def ladder_vae_swalp(batch: int = 32, side: int = 28, z_map: int = 8, z_top: int = 32,
                     rate: float = 0.05, momentum: float = 0.9, bits: int = 8, cycle: int = 4,
                     warmup: int = 200) -> Any:
    """A ladder VAE (Sonderby, Raiko, Maaloe, Sonderby and Winther) of 28x28 stroke glyphs
    with two stochastic layers: a bottom-up path of two stride-2 convolutions and a dense
    layer proposes Gaussians for a 7x7x8 latent map (a 1x1 convolution) and a 32-wide
    top latent; the top-down path maps the top sample through a dense layer and a 3x3
    convolution to the prior of the map, and the map's posterior merges the bottom-up and
    top-down Gaussians by their precisions. Two transposed convolutions and a 3x3
    convolution decode Bernoulli logits; the loss is the negative ELBO with the KL terms
    warmed up. The step is SWALP (Yang, Zhang, Kuleshov, De Sa and Wilson): activations
    (straight through), gradients, momenta and weights are rounded stochastically to
    8-bit block floating point, one exponent per tensor, with uniform draws from
    `jax.random`; SGD with momentum runs in that precision, and every fourth step
    (`lax.cond`) the full-precision running average of the weights takes the new ones."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    shapes: dict[str, tuple[int, ...]] = {
        "bu1": (3, 3, 1, 16), "bu1_b": (16,), "bu2": (3, 3, 16, 32), "bu2_b": (32,),
        "bu3": (7 * 7 * 32, 128), "bu3_b": (128,),
        "q1": (1, 1, 32, 2 * z_map), "q1_b": (2 * z_map,), "q2": (128, 2 * z_top),
        "q2_b": (2 * z_top,), "td": (z_top, 7 * 7 * 16), "td_b": (7 * 7 * 16,),
        "p1": (3, 3, 16, 2 * z_map), "p1_b": (2 * z_map,),
        "dec1": (3, 3, z_map, 16), "dec1_b": (16,), "dec2": (3, 3, 16, 8), "dec2_b": (8,),
        "dec3": (3, 3, 8, 1), "dec3_b": (1,)}
    params = _weights(shapes, seed=64)
    names = sorted(shapes)

    def quantize(x, key):
        top = jnp.max(jnp.abs(x))
        unit = jnp.exp2(jnp.floor(jnp.log2(jnp.maximum(top, 1e-30))) - (bits - 2))
        q = jnp.floor(x / unit + jax.random.uniform(key, x.shape))
        return jnp.clip(q, -2 ** (bits - 1), 2 ** (bits - 1) - 1) * unit

    def loss_fn(p, x, weight, key):
        keys = jax.random.split(key, 8)

        def act(h, i):                     # rounded on the way forward, straight through
            return h + lax.stop_gradient(quantize(h, keys[i]) - h)

        b = x.shape[0]
        h1 = act(jax.nn.relu(_conv(x, p["bu1"], stride=2) + p["bu1_b"]), 0)      # 14x14x16
        h2 = act(jax.nn.relu(_conv(h1, p["bu2"], stride=2) + p["bu2_b"]), 1)     # 7x7x32
        h3 = act(jax.nn.relu(h2.reshape(b, -1) @ p["bu3"] + p["bu3_b"]), 2)      # 128
        mu_up, lv_up = jnp.split(_conv(h2, p["q1"]) + p["q1_b"], 2, -1)
        mu2, lv2 = jnp.split(h3 @ p["q2"] + p["q2_b"], 2, -1)
        lv_up, lv2 = jnp.clip(lv_up, -6, 6), jnp.clip(lv2, -6, 6)
        z2 = mu2 + jnp.exp(0.5 * lv2) * jax.random.normal(keys[6], mu2.shape)
        down = act(jax.nn.relu(z2 @ p["td"] + p["td_b"]), 3).reshape(b, 7, 7, 16)
        mu_prior, lv_prior = jnp.split(_conv(down, p["p1"]) + p["p1_b"], 2, -1)
        lv_prior = jnp.clip(lv_prior, -6, 6)
        prec_up, prec_prior = jnp.exp(-lv_up), jnp.exp(-lv_prior)
        var1 = 1 / (prec_up + prec_prior)                       # precision-weighted merge
        mu1 = (mu_up * prec_up + mu_prior * prec_prior) * var1
        z1 = mu1 + jnp.sqrt(var1) * jax.random.normal(keys[7], mu1.shape)
        d = act(jax.nn.relu(_upconv(z1, p["dec1"]) + p["dec1_b"]), 4)            # 14x14x16
        d = act(jax.nn.relu(_upconv(d, p["dec2"]) + p["dec2_b"]), 5)             # 28x28x8
        logits = _conv(d, p["dec3"]) + p["dec3_b"]
        rec = jnp.sum(jax.nn.softplus(logits) - x * logits, (1, 2, 3))
        kl1 = 0.5 * jnp.sum(lv_prior - jnp.log(var1) + (var1 + (mu1 - mu_prior) ** 2) * prec_prior
                            - 1, (1, 2, 3))
        kl2 = 0.5 * jnp.sum(jnp.exp(lv2) + mu2 ** 2 - 1 - lv2, 1)
        return jnp.mean(rec + weight * (kl1 + kl2)), (jnp.mean(rec), jnp.mean(kl1 + kl2))

    def step(p, mom, average, count, t, images, key):
        k_loss, k_grad, k_mom, k_weight = jax.random.split(key, 4)
        t = t + 1
        weight = jnp.minimum(1.0, t.astype(f32) / warmup)
        (loss, (rec, kl)), g = jax.value_and_grad(loss_fn, has_aux=True)(p, images, weight,
                                                                         k_loss)
        kg = jax.random.split(k_grad, len(names))
        km = jax.random.split(k_mom, len(names))
        kw = jax.random.split(k_weight, len(names))
        g = {k: quantize(g[k], kg[i]) for i, k in enumerate(names)}
        mom = {k: quantize(momentum * mom[k] + g[k], km[i]) for i, k in enumerate(names)}
        p = {k: quantize(p[k] - rate * mom[k], kw[i]) for i, k in enumerate(names)}

        def take(args):
            avg, n = args
            return jax.tree.map(lambda a, w: (a * n + w) / (n + 1), avg, p), n + 1

        average, count = lax.cond(t % cycle == 0, take, lambda args: args, (average, count))
        return p, mom, average, count, t, loss, rec, kl

    rng = np.random.default_rng(64)
    glyphs, _ = _strokes(rng, batch, side)
    return jax.jit(step).lower(params, _zeros_like(params), params, jnp.asarray(0.0, f32),
                               jnp.asarray(0, jnp.int32), jnp.asarray(glyphs[..., None]),
                               jax.random.PRNGKey(64))


def gail_ppo(envs: int = 128, horizon: int = 32, experts: int = 64, hidden: int = 64,
             epochs: int = 4, minibatches: int = 4, gamma: float = 0.99, lam: float = 0.95,
             clip: float = 0.2, rate: float = 3e-4, disc_rate: float = 1e-3,
             entropy: float = 0.01) -> Any:
    """Generative adversarial imitation learning (Ho and Ermon) on a point mass that must
    reach a goal: 128 environments roll the Gaussian tanh-MLP policy out for 32 steps in a
    `lax.scan` (velocity damping, clipped forces, random draws inside the loop); a
    discriminator of state-action pairs takes one Adam step against 2048 pairs of a
    scripted proportional-derivative expert, and its softplus logits are the rewards;
    generalized advantage estimation runs in a reversed `lax.scan` from the bootstrapped
    last value; then sixteen PPO updates (four epochs of four minibatches, each epoch a
    random permutation) run in a `fori_loop`, each a clipped-surrogate, value and
    entropy-bonus gradient gathered on its minibatch and an Adam step."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    obs, act = 6, 2
    agent = _weights({"pi1": (obs, hidden), "pi1_b": (hidden,), "pi2": (hidden, hidden),
                      "pi2_b": (hidden,), "pi3": (hidden, act), "pi3_b": (act,),
                      "log_std_z": (act,), "v1": (obs, hidden), "v1_b": (hidden,),
                      "v2": (hidden, hidden), "v2_b": (hidden,), "v3": (hidden, 1),
                      "v3_b": (1,)}, seed=65)
    disc = _weights({"d1": (obs + act, hidden), "d1_b": (hidden,), "d2": (hidden, hidden),
                     "d2_b": (hidden,), "d3": (hidden, 1), "d3_b": (1,)}, seed=66)

    def mlp(p, k, x):
        h = jnp.tanh(x @ p[f"{k}1"] + p[f"{k}1_b"])
        h = jnp.tanh(h @ p[f"{k}2"] + p[f"{k}2_b"])
        return h @ p[f"{k}3"] + p[f"{k}3_b"]

    def log_prob(a, mean, log_std):
        z = (a - mean) / jnp.exp(log_std)
        return jnp.sum(-0.5 * z * z - log_std - 0.5 * math.log(2 * math.pi), -1)

    def move(state, action):
        pos, vel, goal = state[..., :2], state[..., 2:4], state[..., 4:]
        vel = 0.9 * vel + 0.1 * jnp.clip(action, -1.0, 1.0)
        return jnp.concatenate([pos + 0.1 * vel, vel, goal], -1)

    def rollout(agent, start, key):
        def tick(state, k):
            mean = mlp(agent, "pi", state)
            action = mean + jnp.exp(agent["log_std_z"]) * jax.random.normal(k, mean.shape)
            logp = log_prob(action, mean, agent["log_std_z"])
            return move(state, action), (state, action, logp, mlp(agent, "v", state)[:, 0])

        return lax.scan(tick, start, jax.random.split(key, horizon))

    def disc_loss(d, expert, policy):
        return jnp.mean(jax.nn.softplus(-mlp(d, "d", expert))) + \
            jnp.mean(jax.nn.softplus(mlp(d, "d", policy)))

    def ppo_loss(agent, batch):
        states, actions, old, adv, ret = batch
        mean = mlp(agent, "pi", states)
        ratio = jnp.exp(log_prob(actions, mean, agent["log_std_z"]) - old)
        adv = (adv - jnp.mean(adv)) / (jnp.std(adv) + 1e-8)
        surrogate = jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - clip, 1 + clip) * adv)
        value = mlp(agent, "v", states)[:, 0]
        return -jnp.mean(surrogate) + 0.5 * jnp.mean((value - ret) ** 2) \
            - entropy * jnp.sum(agent["log_std_z"])

    def step(agent, disc, agent_opt, disc_opt, start, expert, key):
        k_roll, k_perm = jax.random.split(key)
        last, (states, actions, logps, values) = rollout(agent, start, k_roll)
        policy = jnp.concatenate([states, actions], -1).reshape(-1, obs + act)
        d_loss, d_grad = jax.value_and_grad(disc_loss)(disc, expert, policy)
        dm, dv, dt = disc_opt
        disc, dm, dv = _adam(disc, d_grad, dm, dv, dt + 1, disc_rate)
        rewards = jax.nn.softplus(mlp(disc, "d", policy)[:, 0]).reshape(horizon, envs)

        def back(carry, x):
            running, next_value = carry
            reward, value = x
            running = reward + gamma * next_value - value + gamma * lam * running
            return (running, value), running

        _, adv = lax.scan(back, (jnp.zeros(envs), mlp(agent, "v", last)[:, 0]),
                          (rewards, values), reverse=True)
        data = (states.reshape(-1, obs), actions.reshape(-1, act), logps.reshape(-1),
                adv.reshape(-1), (adv + values).reshape(-1))
        n = horizon * envs
        order = jax.vmap(lambda k: jax.random.permutation(k, n))(jax.random.split(k_perm, epochs))
        order = order.reshape(epochs * minibatches, n // minibatches)

        def update(i, carry):
            agent, m, v, t = carry
            batch = jax.tree.map(lambda a: a[order[i]], data)
            grads = jax.grad(ppo_loss)(agent, batch)
            agent, m, v = _adam(agent, grads, m, v, t + 1, rate)
            return agent, m, v, t + 1

        agent, m, v, t = lax.fori_loop(0, epochs * minibatches, update, (agent, *agent_opt))
        distance = jnp.mean(jnp.sqrt(jnp.sum((last[:, :2] - last[:, 4:]) ** 2, -1)))
        return agent, disc, (m, v, t), (dm, dv, dt + 1), d_loss, jnp.mean(rewards), distance

    rng = np.random.default_rng(65)

    def starts(count):
        s = np.zeros((count, obs), np.float32)
        s[:, :2] = rng.uniform(-1, 1, (count, 2))
        s[:, 4:] = rng.uniform(-1, 1, (count, 2))
        return s

    state, pairs = starts(experts), []
    for _ in range(horizon):                           # the scripted expert, on the host
        a = np.clip(2.0 * (state[:, 4:] - state[:, :2]) - 1.5 * state[:, 2:4]
                    + rng.normal(0, 0.1, (experts, act)), -1, 1)
        pairs.append(np.concatenate([state, a], 1))
        vel = 0.9 * state[:, 2:4] + 0.1 * a
        state = np.concatenate([state[:, :2] + 0.1 * vel, vel, state[:, 4:]], 1)
    expert = np.concatenate(pairs).astype(np.float32)
    zero = jnp.asarray(0, jnp.int32)
    return jax.jit(step).lower(agent, disc, (_zeros_like(agent), _zeros_like(agent), zero),
                               (_zeros_like(disc), _zeros_like(disc), zero),
                               jnp.asarray(starts(envs)), jnp.asarray(expert),
                               jax.random.PRNGKey(65))


def fibinet_cowclip(batch: int = 512,
                    cardinalities: tuple[int, ...] = (1000, 400, 3000, 120, 6000, 40, 2500, 12,
                                                      5000, 1500),
                    dim: int = 12, reduction: int = 3, hidden: tuple[int, ...] = (128, 64),
                    rate: float = 1e-3, ratio: float = 1.0, floor: float = 1e-5,
                    l2: float = 1e-5) -> Any:
    """FiBiNET (Huang, Zhang and Zhang) in bfloat16 predicts clicks from ten categorical
    fields (19572 ids in one table of 12-wide embeddings and a first-order table): a
    squeeze-excitation network reweights the field embeddings (mean over the embedding,
    two ReLU layers, reduction three), field-each bilinear interactions (v_i W_i) * v_j
    over the 45 field pairs are taken of both the plain and the reweighted embeddings, and
    an MLP of 128 and 64 units adds the first-order terms, under logistic loss with L2 on
    the looked-up rows. The update is CowClip (Zheng et al.): every row of both tables has
    its gradient clipped to max(ratio |w_row|, floor) times the row's count in the batch
    (counts by a scatter-add of the ids), then Adam moves all float32 master weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    fields, total = len(cardinalities), int(sum(cardinalities))
    offsets = np.concatenate([[0], np.cumsum(cardinalities)[:-1]]).astype(np.int32)
    left, right = np.triu_indices(fields, 1)
    pairs = len(left)
    params = _weights({"se1": (fields, fields // reduction),
                       "se2": (fields // reduction, fields),
                       "h1": (2 * pairs * dim, hidden[0]), "h1_b": (hidden[0],),
                       "h2": (hidden[0], hidden[1]), "h2_b": (hidden[1],),
                       "out": (hidden[1], 1), "out_b": (1,)}, seed=67)
    rng = np.random.default_rng(67)
    params["emb"] = jnp.asarray(rng.normal(0, 0.01, (total, dim)).astype(np.float32))
    params["lin"] = jnp.zeros((total,), f32)
    params["bil"] = jnp.asarray((rng.standard_normal((fields, dim, dim)) / math.sqrt(dim))
                                .astype(np.float32))
    tables = ("emb", "lin")

    def logits_of(p, ids):
        w = jax.tree.map(lambda a: a.astype(bf16), p)
        e = w["emb"][ids]                                                  # (b, fields, k)
        squeeze = jnp.mean(e.astype(f32), -1)
        excite = jax.nn.relu(jax.nn.relu(squeeze @ p["se1"]) @ p["se2"])    # (b, fields)
        v = e * excite.astype(bf16)[..., None]

        def bilinear(x):
            xw = jnp.einsum("bfk,fkl->bfl", x, w["bil"])
            return (xw[:, left] * x[:, right]).reshape(x.shape[0], -1)     # (b, pairs k)

        h = jnp.concatenate([bilinear(e), bilinear(v)], -1)
        h = jax.nn.relu(h @ w["h1"] + w["h1_b"])
        h = jax.nn.relu(h @ w["h2"] + w["h2_b"])
        deep = (h @ w["out"] + w["out_b"])[:, 0].astype(f32)
        return deep + jnp.sum(p["lin"][ids], -1)

    def loss_fn(p, ids, clicks):
        logits = logits_of(p, ids)
        logloss = jnp.mean(jax.nn.softplus(logits) - clicks * logits)
        return logloss + l2 * jnp.sum(p["emb"][ids] ** 2) / ids.shape[0], logits

    def step(p, opt, ids, clicks):
        m, v, t = opt
        (loss, logits), g = jax.value_and_grad(loss_fn, has_aux=True)(p, ids, clicks)
        counts = jnp.zeros(total, f32).at[ids.reshape(-1)].add(1.0)
        g = dict(g)
        for k in tables:
            rows = g[k].reshape(total, -1)
            w_norm = jnp.sqrt(jnp.sum(p[k].reshape(total, -1) ** 2, -1))
            g_norm = jnp.sqrt(jnp.sum(rows * rows, -1))
            bound = jnp.maximum(ratio * w_norm, floor) * counts
            g[k] = (rows * jnp.minimum(1.0, bound / (g_norm + 1e-12))[:, None]).reshape(p[k].shape)
        p, m, v = _adam(p, g, m, v, t + 1, rate)
        accuracy = jnp.mean((logits > 0) == (clicks > 0.5))
        return p, (m, v, t + 1), loss, accuracy

    # clicks from a latent pairwise model over skewed (popular-first) ids
    raw = np.stack([np.minimum((c * rng.uniform(size=batch) ** 3).astype(np.int64), c - 1)
                    for c in cardinalities], 1)
    latent = [rng.normal(0, 1, (c, 4)) for c in cardinalities]
    strength = np.triu(rng.normal(0, 0.5, (fields, fields)), 1)
    score = np.zeros(batch)
    for i, j in zip(left, right):
        score += strength[i, j] * np.sum(latent[i][raw[:, i]] * latent[j][raw[:, j]], 1)
    clicks = (rng.uniform(size=batch) < 1 / (1 + np.exp(-(score / 3 - 1.0)))).astype(np.float32)
    ids = (raw + offsets).astype(np.int32)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(ids), jnp.asarray(clicks))


def shakeshake_lookaround(batch: int = 8, side: int = 24, classes: int = 10,
                          widths: tuple[int, ...] = (8, 16, 32), around: int = 2,
                          rate: float = 0.05, momentum: float = 0.9, decay: float = 5e-4
                          ) -> Any:
    """A Shake-Shake network (Gastaldi) classifies 24x24 outlined, textured shapes: a 3x3
    stem, then one residual block per stage (widths 8, 16, 32; stride 2 into the second
    and third, with a 1x1 strided projection shortcut), each block two ReLU-conv-BN-
    ReLU-conv-BN branches mixed by a random alpha per picture in the forward pass and an
    independent random beta in the backward pass (stop-gradient arithmetic), batch norm
    from batch statistics. The step is Lookaround (Zhang et al.): three copies of the
    weights, one per augmentation of the same pictures (mirrored; shifted by reflect
    padding and cropping; contrast, brightness and a cutout), each take two SGD steps
    with their own momentum and weight decay on two successive batches, the copies under
    `vmap` inside a `lax.scan` of the two steps, and the weights become the copies'
    average."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    copies = 3
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],),
                                          "stem_b": (widths[0],)}
    cin = widths[0]
    for s, c in enumerate(widths):
        for branch in range(2):
            k = f"{s}{branch}"
            shapes.update({f"{k}a": (3, 3, cin, c), f"{k}a_g": (c,), f"{k}a_b": (c,),
                           f"{k}b": (3, 3, c, c), f"{k}b_g": (c,), f"{k}b_b": (c,)})
        if cin != c:
            shapes.update({f"{s}proj": (1, 1, cin, c), f"{s}proj_g": (c,), f"{s}proj_b": (c,)})
        cin = c
    shapes.update({"fc": (widths[-1], classes), "fc_b": (classes,)})
    params = _weights(shapes, seed=68, scale=math.sqrt(2.0))
    decayed = [k for k, shape in shapes.items() if len(shape) == 4 or k == "fc"]

    def bn(p, k, x):
        return _normalize(x, p[f"{k}_g"], p[f"{k}_b"], (0, 1, 2))

    def branch_of(p, k, x, stride):
        y = bn(p, f"{k}a", _conv(jax.nn.relu(x), p[f"{k}a"], stride=stride))
        return bn(p, f"{k}b", _conv(jax.nn.relu(y), p[f"{k}b"]))

    def forward(p, x, key):
        x = bn(p, "stem", _conv(x, p["stem"]))
        keys = jax.random.split(key, 2 * len(widths))
        for s in range(len(widths)):
            stride = 1 if s == 0 else 2
            one, two = branch_of(p, f"{s}0", x, stride), branch_of(p, f"{s}1", x, stride)
            alpha = jax.random.uniform(keys[2 * s], (x.shape[0], 1, 1, 1))
            beta = jax.random.uniform(keys[2 * s + 1], (x.shape[0], 1, 1, 1))
            # forward alpha one + (1 - alpha) two, backward beta and 1 - beta
            mixed = beta * one + (1 - beta) * two + lax.stop_gradient((alpha - beta) * (one - two))
            if f"{s}proj" in p:
                short = bn(p, f"{s}proj", _conv(x, p[f"{s}proj"], stride=stride))
            else:
                short = x
            x = short + mixed
        return jnp.mean(jax.nn.relu(x), (1, 2)) @ p["fc"] + p["fc_b"]

    def loss_of(p, images, labels, key):
        task = jnp.mean(_xent(forward(p, images, key), labels))
        return task + 0.5 * decay * sum(jnp.sum(p[k] ** 2) for k in decayed)

    def around_step(carry, xs):
        weights, moms = carry                              # both stacked over the copies
        images, labels, keys = xs
        losses, grads = jax.vmap(jax.value_and_grad(loss_of))(weights, images, labels, keys)
        moms = jax.tree.map(lambda m, g: momentum * m + g, moms, grads)
        weights = jax.tree.map(lambda w, m: w - rate * m, weights, moms)
        return (weights, moms), jnp.mean(losses)

    def step(p, moms, views, labels, key):
        weights = jax.tree.map(lambda w: jnp.broadcast_to(w, (copies,) + w.shape), p)
        keys = jax.random.split(key, around * copies)
        keys = keys.reshape((around, copies) + keys.shape[1:])
        (weights, moms), losses = lax.scan(around_step, (weights, moms), (views, labels, keys))
        return jax.tree.map(lambda w: jnp.mean(w, 0), weights), moms, losses

    rng = np.random.default_rng(68)
    pictures, labels = _outlined_pictures(rng, around * batch, side, classes)
    pictures = pictures.reshape(around, batch, side, side, 3)
    views = np.zeros((around, copies, batch, side, side, 3), np.float32)
    views[:, 0] = pictures[:, :, :, ::-1]                                   # mirrored
    padded = np.pad(pictures, ((0, 0), (0, 0), (3, 3), (3, 3), (0, 0)), mode="reflect")
    for a in range(around):
        for i in range(batch):
            dy, dx = rng.integers(0, 7, 2)
            views[a, 1, i] = padded[a, i, dy:dy + side, dx:dx + side]       # shifted
    contrast = rng.uniform(0.7, 1.3, (around, batch, 1, 1, 1))
    brightness = rng.uniform(-0.15, 0.15, (around, batch, 1, 1, 3))
    jittered = np.clip((pictures - 0.5) * contrast + 0.5 + brightness, 0, 1)
    for a in range(around):
        for i in range(batch):
            y0, x0 = rng.integers(0, side - 8, 2)
            jittered[a, i, y0:y0 + 8, x0:x0 + 8] = 0.0                     # cutout
    views[:, 2] = jittered
    tags = np.broadcast_to(labels.reshape(around, 1, batch), (around, copies, batch))
    moms = jax.tree.map(lambda w: jnp.zeros((copies,) + w.shape, f32), params)
    return jax.jit(step).lower(params, moms, jnp.asarray(views),
                               jnp.asarray(np.ascontiguousarray(tags)), jax.random.PRNGKey(68))


def ijepa_ema(batch: int = 8, side: int = 32, patch: int = 4, width: int = 64, heads: int = 4,
              depth: int = 3, pred_width: int = 32, pred_depth: int = 2, blocks: int = 4,
              block: int = 3, context: int = 24, rate: float = 1e-3, decay: float = 0.04,
              ema: float = 0.996) -> Any:
    """I-JEPA (Assran et al.) in bfloat16 on 32x32 outlined, textured shapes: a strided
    4x4 convolution cuts 64 patch tokens of width 64; the target encoder (three pre-norm
    layers, an exponential moving average of the context encoder, no gradient) encodes
    all of them, and four 3x3 blocks of its outputs per picture are the targets; the
    context encoder sees only 24 patches outside every target block (gathered by index);
    a narrow predictor (width 32, two layers) reads the context and, for each target
    block separately, nine mask tokens carrying the block's positions, and its outputs
    are regressed onto the targets by squared error. AdamW moves the context encoder and
    the predictor on float32 master weights, then the target encoder follows by EMA."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    grid = side // patch
    tokens = grid * grid

    def layer_shapes(k, d):
        return {f"{k}n1_g": (d,), f"{k}n1_b": (d,), f"{k}qkv": (d, 3 * d), f"{k}o": (d, d),
                f"{k}o_b": (d,), f"{k}n2_g": (d,), f"{k}n2_b": (d,), f"{k}up": (d, 4 * d),
                f"{k}up_b": (4 * d,), f"{k}down": (4 * d, d), f"{k}down_b": (d,)}

    encoder: dict[str, tuple[int, ...]] = {"patch": (patch, patch, 3, width),
                                           "patch_b": (width,), "pos": (tokens, width),
                                           "nf_g": (width,), "nf_b": (width,)}
    for l in range(depth):
        encoder.update(layer_shapes(f"e{l}", width))
    predictor: dict[str, tuple[int, ...]] = {
        "pin": (width, pred_width), "pin_b": (pred_width,), "ppos": (tokens, pred_width),
        "mask_z": (pred_width,), "pn_g": (pred_width,), "pn_b": (pred_width,),
        "pout": (pred_width, width), "pout_b": (width,)}
    for l in range(pred_depth):
        predictor.update(layer_shapes(f"p{l}", pred_width))
    online = _weights({**encoder, **predictor}, seed=69)
    target = {k: online[k] for k in encoder}

    def layer(w, k, x):
        b, t, d = x.shape
        h = _normalize(x, w[f"{k}n1_g"], w[f"{k}n1_b"])
        q, kk, v = (a.reshape(b, t, heads, d // heads) for a in jnp.split(h @ w[f"{k}qkv"], 3, -1))
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, kk).astype(f32) / math.sqrt(d // heads)
        att = jax.nn.softmax(scores, -1).astype(x.dtype)
        x = x + jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, t, d) @ w[f"{k}o"] \
            + w[f"{k}o_b"]
        h = _normalize(x, w[f"{k}n2_g"], w[f"{k}n2_b"])
        return x + jax.nn.gelu(h @ w[f"{k}up"] + w[f"{k}up_b"]) @ w[f"{k}down"] + w[f"{k}down_b"]

    def patches_of(w, images):
        x = _conv(images.astype(bf16), w["patch"], stride=patch, padding="VALID") + w["patch_b"]
        return x.reshape(images.shape[0], tokens, width) + w["pos"]

    def encode(w, x):
        for l in range(depth):
            x = layer(w, f"e{l}", x)
        return _normalize(x, w["nf_g"], w["nf_b"])

    def predict(w, ctx, ctx_idx, tgt_idx):
        b = ctx.shape[0]
        z = ctx @ w["pin"] + w["pin_b"] + w["ppos"][ctx_idx]             # (b, context, pw)
        z = jnp.repeat(z, blocks, 0)                                      # (b blocks, ...)
        queries = w["mask_z"] + w["ppos"][tgt_idx.reshape(b * blocks, block * block)]
        x = jnp.concatenate([z, queries], 1)
        for l in range(pred_depth):
            x = layer(w, f"p{l}", x)
        x = _normalize(x[:, context:], w["pn_g"], w["pn_b"])
        return (x @ w["pout"] + w["pout_b"]).reshape(b, blocks, block * block, width)

    rows = np.arange(batch)

    def loss_fn(online, target, images, ctx_idx, tgt_idx):
        wo = jax.tree.map(lambda a: a.astype(bf16), online)
        wt = jax.tree.map(lambda a: a.astype(bf16), target)
        seen = patches_of(wo, images)[rows[:, None], ctx_idx]            # (b, context, width)
        guess = predict(wo, encode(wo, seen), ctx_idx, tgt_idx)
        full = lax.stop_gradient(encode(wt, patches_of(wt, images)))
        aim = full[rows[:, None, None], tgt_idx]                          # (b, blocks, 9, width)
        return jnp.mean(jnp.square(guess.astype(f32) - aim.astype(f32)))

    def step(online, opt, target, images, ctx_idx, tgt_idx):
        m, v, t = opt
        loss, g = jax.value_and_grad(loss_fn)(online, target, images, ctx_idx, tgt_idx)
        online, m, v = _adam(online, g, m, v, t + 1, rate, decay=decay)
        target = {k: ema * target[k] + (1 - ema) * online[k] for k in target}
        return online, (m, v, t + 1), target, loss

    rng = np.random.default_rng(69)
    pictures, _ = _outlined_pictures(rng, batch, side)
    ctx_idx = np.zeros((batch, context), np.int32)
    tgt_idx = np.zeros((batch, blocks, block * block), np.int32)
    for i in range(batch):
        covered = np.zeros((grid, grid), bool)
        for j in range(blocks):
            r0, c0 = rng.integers(0, grid - block + 1, 2)
            rr, cc = np.meshgrid(np.arange(r0, r0 + block), np.arange(c0, c0 + block),
                                 indexing="ij")
            tgt_idx[i, j] = (rr * grid + cc).reshape(-1)
            covered[rr, cc] = True
        free = np.nonzero(~covered.reshape(-1))[0]
        ctx_idx[i] = np.sort(rng.choice(free, context, replace=False))
    opt = (_zeros_like(online), _zeros_like(online), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(online, opt, target, jnp.asarray(pictures), jnp.asarray(ctx_idx),
                               jnp.asarray(tgt_idx))


def _pair_text(rng: Any, count: int, length: int, vocab: int, topics: int) -> Any:
    """numpy int32 token sequences (count, length) in [0, vocab): every sequence picks a
    topic, whose table gives each pair of preceding tokens (hashed into 512 rows) four
    likely successors with Dirichlet weights; one token in sixteen is a random one."""
    import numpy as np

    rows = 512
    successors = rng.integers(0, vocab, (topics, rows, 4))
    weights = np.cumsum(rng.dirichlet(np.ones(4), (topics, rows)), -1)
    out = np.zeros((count, length), np.int32)
    for i in range(count):
        topic = int(rng.integers(topics))
        a, b = (int(x) for x in rng.integers(0, vocab, 2))
        draws = rng.uniform(size=length)
        noisy = rng.uniform(size=length) < 1 / 16
        random = rng.integers(0, vocab, length)
        for t in range(length):
            row = (a * 31 + b * 7) % rows
            choice = min(int(np.searchsorted(weights[topic, row], draws[t])), 3)
            token = int(random[t]) if noisy[t] else int(successors[topic, row, choice])
            out[i, t] = token
            a, b = b, token
    return out


def mega_flooding(batch: int = 4, length: int = 128, vocab: int = 256, width: int = 64,
                  ema_dim: int = 8, z_dim: int = 32, v_dim: int = 128, layers: int = 2,
                  topics: int = 4, rate: float = 1e-3, flood: float = 1.2,
                  clip: float = 1.0) -> Any:
    """Mega (Ma et al.), a causal language model in bfloat16 on topical pair-hashed text:
    every layer normalizes its input, runs a damped multi-dimensional exponential moving
    average over time (each of 64 channels expanded to 8 EMA dimensions with learned
    expansion, decay, damping and projection; a `lax.scan` over the 128 positions in
    float32), and from its SiLU output derives a shared query-key representation (scaled
    and shifted per role), a reset gate, an update gate and a candidate, with values from
    the normalized input; single-head causal softmax attention carries a learned
    relative-position bias (gathered by offset); the update gate mixes the candidate with
    the layer's input, and a SiLU feed-forward layer follows. The loss is flooded
    (Ishida et al.): |loss - b| + b, so the gradient turns to ascent below the flood
    level b; Adam with global-norm clipping moves float32 master weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "nf_g": (width,),
                                          "nf_b": (width,), "out_b": (vocab,)}
    for l in range(layers):
        shapes.update({
            f"{l}n_g": (width,), f"{l}n_b": (width,), f"{l}beta": (width, ema_dim),
            f"{l}alpha": (width, ema_dim), f"{l}delta": (width, ema_dim),
            f"{l}eta": (width, ema_dim), f"{l}omega_g": (width,),
            f"{l}wz": (width, z_dim), f"{l}wz_b": (z_dim,), f"{l}q_g": (z_dim,),
            f"{l}q_b": (z_dim,), f"{l}k_g": (z_dim,), f"{l}k_b": (z_dim,),
            f"{l}wv": (width, v_dim), f"{l}wv_b": (v_dim,), f"{l}wr": (width, v_dim),
            f"{l}wr_b": (v_dim,), f"{l}wu": (width, width), f"{l}wu_b": (width,),
            f"{l}wh": (width, width), f"{l}wh_b": (width,), f"{l}uh": (v_dim, width),
            f"{l}rel_z": (2 * length - 1,), f"{l}f_g": (width,), f"{l}f_b": (width,),
            f"{l}up": (width, 2 * width), f"{l}up_b": (2 * width,),
            f"{l}down": (2 * width, width), f"{l}down_b": (width,)})
    params = _weights(shapes, seed=70)
    rng = np.random.default_rng(70)
    for l in range(layers):              # spread the decays and dampings over the channels
        params[f"{l}alpha"] = jnp.asarray(rng.normal(0, 1.5, (width, ema_dim)).astype(np.float32))
        params[f"{l}delta"] = jnp.asarray(rng.normal(0, 1.5, (width, ema_dim)).astype(np.float32))
    offset = np.arange(length)[:, None] - np.arange(length)[None, :] + length - 1
    causal = np.tril(np.ones((length, length), bool))

    def moving_average(w, l, x):                         # x (b, t, d) -> (b, t, d) float32
        alpha = jax.nn.sigmoid(w[f"{l}alpha"].astype(f32))
        keep = 1 - alpha * jax.nn.sigmoid(w[f"{l}delta"].astype(f32))
        u = x.astype(f32)[..., None] * w[f"{l}beta"].astype(f32)        # (b, t, d, h)

        def tick(state, u_t):
            state = alpha * u_t + keep * state
            return state, state

        start = jnp.zeros((x.shape[0], width, ema_dim), f32)
        _, states = lax.scan(tick, start, jnp.swapaxes(u, 0, 1))        # (t, b, d, h)
        return jnp.einsum("tbdh,dh->btd", states, w[f"{l}eta"].astype(f32))

    def layer(w, l, x):
        n = _normalize(x, w[f"{l}n_g"], w[f"{l}n_b"])
        shared = jax.nn.silu(moving_average(w, l, n)
                             + n.astype(f32) * w[f"{l}omega_g"].astype(f32)).astype(bf16)
        z = jax.nn.silu(shared @ w[f"{l}wz"] + w[f"{l}wz_b"])
        q = z * w[f"{l}q_g"] + w[f"{l}q_b"]
        k = z * w[f"{l}k_g"] + w[f"{l}k_b"]
        v = jax.nn.silu(n @ w[f"{l}wv"] + w[f"{l}wv_b"])
        scores = jnp.einsum("bqz,bkz->bqk", q, k).astype(f32) / math.sqrt(z_dim) \
            + w[f"{l}rel_z"].astype(f32)[offset]
        att = jax.nn.softmax(jnp.where(causal, scores, -1e9), -1).astype(bf16)
        o = jnp.einsum("bqk,bkv->bqv", att, v)
        reset = jax.nn.silu(shared @ w[f"{l}wr"] + w[f"{l}wr_b"])
        update = jax.nn.sigmoid(shared @ w[f"{l}wu"] + w[f"{l}wu_b"])
        candidate = jax.nn.silu(shared @ w[f"{l}wh"] + (reset * o) @ w[f"{l}uh"] + w[f"{l}wh_b"])
        x = update * candidate + (1 - update) * x
        h = _normalize(x, w[f"{l}f_g"], w[f"{l}f_b"])
        return x + jax.nn.silu(h @ w[f"{l}up"] + w[f"{l}up_b"]) @ w[f"{l}down"] + w[f"{l}down_b"]

    def loss_fn(p, tokens):
        w = jax.tree.map(lambda a: a.astype(bf16), p)
        x = w["embed"][tokens[:, :-1]]
        for l in range(layers):
            x = layer(w, l, x)
        logits = _normalize(x, w["nf_g"], w["nf_b"]) @ w["embed"].T + w["out_b"]
        loss = jnp.mean(_xent(logits, tokens[:, 1:]))
        return jnp.abs(loss - flood) + flood, loss

    def step(p, opt, tokens):
        m, v, t = opt
        (_, loss), g = jax.value_and_grad(loss_fn, has_aux=True)(p, tokens)
        norm = jnp.sqrt(sum(jnp.sum(d * d) for d in jax.tree.leaves(g)))
        g = jax.tree.map(lambda d: d * jnp.minimum(1.0, clip / (norm + 1e-6)), g)
        p, m, v = _adam(p, g, m, v, t + 1, rate)
        return p, (m, v, t + 1), loss, norm

    tokens = _pair_text(rng, batch, length + 1, vocab, topics)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(tokens))


def sar_range_doppler(scenes: int = 2, lines: int = 512, samples: int = 512,
                      targets: int = 12) -> Any:
    """Stripmap SAR focusing by the range-Doppler algorithm in complex64, no gradient: two
    scenes of twelve point targets seen by an X-band airborne radar (9.6 GHz, 60 MHz
    chirps of 2 us sampled at 80 MHz, 512 pulses at 500 Hz from 120 m/s, 3 km near
    range; echoes synthesized on the host with a two-way antenna pattern and noise). The
    program compresses range by FFT, a Hamming-weighted matched filter and the inverse
    FFT; goes to the range-Doppler domain by an azimuth FFT; corrects range cell migration
    by four-tap cubic interpolation along range (gathers at the shifted positions, with
    weights, for every Doppler bin and range); applies the range-dependent azimuth matched
    filter and the inverse azimuth FFT; and returns the image in decibels, a 4x4
    multilook, the image entropy (a focus measure) and the 16 brightest pixels by
    `top_k`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c, f0, tp, bandwidth, fs = 3e8, 9.6e9, 2e-6, 60e6, 80e6
    prf, speed, antenna, near = 500.0, 120.0, 1.0, 3000.0
    wavelength, kr = c / f0, bandwidth / tp
    beam = wavelength / antenna
    eta = (np.arange(lines) - lines / 2) / prf                            # slow time
    tau = 2 * near / c + np.arange(samples) / fs                           # fast time
    rng = np.random.default_rng(71)
    raw = np.zeros((scenes, lines, samples), np.complex128)
    for s in range(scenes):
        for _ in range(targets):
            r0 = rng.uniform(near + 150, near + 550)
            x0 = rng.uniform(-30, 30)
            amp = rng.uniform(0.5, 1.0)
            along = speed * eta - x0
            dist = np.sqrt(r0 ** 2 + along ** 2)
            rel = tau[None, :] - 2 * dist[:, None] / c
            pattern = np.sinc(0.886 * np.arctan(along / r0) / beam) ** 2
            phase = -4 * np.pi * f0 * dist[:, None] / c + np.pi * kr * rel ** 2
            raw[s] += amp * (np.abs(rel) < tp / 2) * pattern[:, None] * np.exp(1j * phase)
        raw[s] += 0.05 * (rng.standard_normal((lines, samples))
                          + 1j * rng.standard_normal((lines, samples)))
    # the range matched filter: the Hamming-weighted replica centred at sample zero
    n_p = int(round(tp * fs))
    t = (np.arange(n_p) - n_p / 2) / fs
    replica = np.zeros(samples, np.complex128)
    replica[:n_p] = np.exp(1j * np.pi * kr * t ** 2) * np.hamming(n_p)
    range_filter = np.conj(np.fft.fft(np.roll(replica, -(n_p // 2))))
    # range cell migration in the range-Doppler domain, and its interpolation taps
    doppler = np.fft.fftfreq(lines, 1 / prf)
    dee = np.sqrt(1 - (wavelength * doppler / (2 * speed)) ** 2)            # (lines,)
    slant = c / 2 * tau                                                    # (samples,)
    shift = 2 * slant[None, :] * (1 / dee[:, None] - 1) / c * fs           # in samples
    position = np.arange(samples)[None, :] + shift
    base = np.floor(position)
    distance = np.abs((position - base)[..., None] - np.arange(-1, 3))
    weights = np.where(distance <= 1, 1.5 * distance ** 3 - 2.5 * distance ** 2 + 1,
                       np.where(distance < 2, -0.5 * distance ** 3 + 2.5 * distance ** 2
                                - 4 * distance + 2, 0.0))                  # Keys, a = -0.5
    taps = np.clip(base[..., None] + np.arange(-1, 3), 0, samples - 1).astype(np.int32)
    azimuth_filter = np.exp(1j * 4 * np.pi * slant[None, :] * dee[:, None] * f0 / c)

    def focus(raw, range_filter, taps, weights, azimuth_filter):
        compressed = jnp.fft.ifft(jnp.fft.fft(raw, axis=2) * range_filter, axis=2)
        spectrum = jnp.fft.fft(compressed, axis=1)                         # range-Doppler
        index = jnp.broadcast_to(taps.reshape(lines, samples * 4), (scenes, lines, samples * 4))
        picked = jnp.take_along_axis(spectrum, index, axis=2).reshape(scenes, lines, samples, 4)
        aligned = jnp.sum(picked * weights, -1)
        image = jnp.fft.ifft(aligned * azimuth_filter, axis=1)
        power = jnp.real(image * jnp.conj(image))
        decibels = 10 * jnp.log10(power / jnp.max(power, (1, 2), keepdims=True) + 1e-12)
        looks = jnp.mean(power.reshape(scenes, lines // 4, 4, samples // 4, 4), (2, 4))
        share = power / jnp.sum(power, (1, 2), keepdims=True)
        entropy = -jnp.sum(share * jnp.log(share + 1e-30), (1, 2))
        brightest, where = lax.top_k(power.reshape(scenes, -1), 16)
        return decibels, looks, entropy, brightest, where

    return jax.jit(focus).lower(jnp.asarray(raw, jnp.complex64),
                                jnp.asarray(range_filter, jnp.complex64), jnp.asarray(taps),
                                jnp.asarray(weights, jnp.float32),
                                jnp.asarray(azimuth_filter, jnp.complex64))


def packet_checksums(packets: int = 4096, size: int = 1024) -> Any:
    """Four checksums of 4096 packets of 1 KiB and of corrupted copies of them, no
    gradient, all in unsigned integers: CRC-32 (the reflected IEEE polynomial) by
    slicing-by-4, a `fori_loop` over the 256 little-endian words of each packet that XORs
    the word in and looks its four bytes up in four 256-entry tables (gathers, shifts,
    masks); Adler-32 from a byte sum and a position-weighted sum, each modulo 65521;
    Fletcher-16 from a running sum (`cumsum`) modulo 255; and the Internet checksum
    (RFC 1071: big-endian 16-bit words summed, carries folded twice, complemented). The
    corruptions, XOR masks from the host, are single bits, bit pairs, bursts spanning
    exactly 32 bits and 48 scattered bits, a quarter of the packets each; the program
    returns the checksums, which ones caught each kind of error, and the flipped bits
    counted by `population_count`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    table = np.zeros(256, np.uint32)
    for n in range(256):
        value = n
        for _ in range(8):
            value = (value >> 1) ^ 0xEDB88320 if value & 1 else value >> 1
        table[n] = value
    tables = [table]
    for _ in range(3):                     # table k: the CRC of a byte followed by k zeros
        tables.append((tables[-1] >> 8) ^ table[tables[-1] & 0xFF])
    tables = np.stack(tables)

    def crc32(block, tables):
        b = block.astype(u32).reshape(block.shape[0], size // 4, 4)
        words = (b[..., 0] | (b[..., 1] << 8) | (b[..., 2] << 16) | (b[..., 3] << 24)).T

        def body(i, crc):
            crc = crc ^ words[i]
            return (tables[3][(crc & 0xFF).astype(jnp.int32)]
                    ^ tables[2][((crc >> 8) & 0xFF).astype(jnp.int32)]
                    ^ tables[1][((crc >> 16) & 0xFF).astype(jnp.int32)]
                    ^ tables[0][(crc >> 24).astype(jnp.int32)])

        start = jnp.full(block.shape[0], 0xFFFFFFFF, u32)
        return lax.fori_loop(0, size // 4, body, start) ^ jnp.uint32(0xFFFFFFFF)

    def adler32(block):
        d = block.astype(u32)
        a = (1 + jnp.sum(d, 1, dtype=u32)) % 65521
        b = (size + jnp.sum(d * jnp.arange(size, 0, -1, dtype=u32), 1, dtype=u32)) % 65521
        return (b << 16) | a

    def fletcher16(block):
        d = block.astype(u32)
        first = jnp.sum(d, 1, dtype=u32) % 255
        second = jnp.sum(jnp.cumsum(d, 1, dtype=u32), 1, dtype=u32) % 255
        return (second << 8) | first

    def internet(block):
        d = block.astype(u32).reshape(block.shape[0], size // 2, 2)
        total = jnp.sum((d[..., 0] << 8) | d[..., 1], 1, dtype=u32)
        total = (total & 0xFFFF) + (total >> 16)
        total = (total & 0xFFFF) + (total >> 16)
        return ~total & 0xFFFF

    def run(data, masks, tables):
        both = jnp.concatenate([data, data ^ masks], 0)
        sums = jnp.stack([crc32(both, tables), adler32(both), fletcher16(both), internet(both)])
        caught = sums[:, :packets] != sums[:, packets:]                  # (4, packets)
        rates = jnp.mean(caught.reshape(4, packets // 4, 4).astype(jnp.float32), 1)
        flipped = jnp.sum(lax.population_count(masks).astype(jnp.int32), 1)
        return sums[:, :packets], rates, flipped

    rng = np.random.default_rng(72)
    data = rng.integers(0, 256, (packets, size), dtype=np.uint8)
    data[:, :20] = data[:1, :20]                  # a header shared by every packet
    bits = np.zeros((packets, size * 8), bool)
    for i in range(packets):
        kind = i % 4
        if kind == 0:
            flips = rng.integers(0, size * 8, 1)
        elif kind == 1:
            flips = rng.choice(size * 8, 2, replace=False)
        elif kind == 2:
            start = int(rng.integers(0, size * 8 - 32))
            flips = start + np.concatenate([[0, 31], rng.choice(np.arange(1, 31), 6,
                                                                replace=False)])
        else:
            flips = rng.choice(size * 8, 48, replace=False)
        bits[i, flips] = True
    masks = np.packbits(bits, axis=1, bitorder="little")
    return jax.jit(run).lower(jnp.asarray(data), jnp.asarray(masks), jnp.asarray(tables))


def gray_scott(side: int = 128, steps: int = 320, du: float = 1.0, dv: float = 0.5,
               dt: float = 1.0, threshold: float = 0.2) -> Any:
    """Gray-Scott reaction-diffusion in four regimes at once (spots, mitosis, coral and
    waves: four feed and kill rates), no gradient: 320 explicit Euler steps in a
    `fori_loop`, each wrapping the 128x128 periodic grids by padding and taking both
    species' Laplacians by one depthwise 3x3 convolution (the 0.05-0.2-0.05 stencil)
    before the reaction u v^2, feed and kill. From the final fields: the radially
    averaged power spectrum of v (a real 2-D FFT, radii binned by scatter-adds) and its
    dominant wavelength, the covered share of the grid, and the spots counted as local
    maxima of v above a threshold by a 5x5 `reduce_window` maximum."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    feed = np.array([0.035, 0.0367, 0.0545, 0.014], np.float32)
    kill = np.array([0.065, 0.0649, 0.062, 0.045], np.float32)
    systems = len(feed)
    stencil = np.array([[0.05, 0.2, 0.05], [0.2, -1.0, 0.2], [0.05, 0.2, 0.05]], np.float32)
    kernel = np.tile(stencil[:, :, None, None], (1, 1, 1, 2))             # HWIO, depthwise
    bins = side // 2 + 1

    def run(state, feed, kill, kernel):
        f, k = feed[:, None, None], kill[:, None, None]

        def tick(_, state):
            wrapped = jnp.pad(state, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="wrap")
            lap = _conv(wrapped, kernel, padding="VALID", groups=2)
            u, v = state[..., 0], state[..., 1]
            reaction = u * v * v
            u = u + dt * (du * lap[..., 0] - reaction + f * (1 - u))
            v = v + dt * (dv * lap[..., 1] + reaction - (f + k) * v)
            return jnp.stack([u, v], -1)

        state = lax.fori_loop(0, steps, tick, state)
        v = state[..., 1]
        power = jnp.abs(jnp.fft.rfft2(v - jnp.mean(v, (1, 2), keepdims=True))) ** 2
        ky = jnp.fft.fftfreq(side) * side
        kx = jnp.fft.rfftfreq(side) * side
        radius = jnp.minimum(jnp.round(jnp.sqrt(ky[:, None] ** 2 + kx[None, :] ** 2)),
                             bins - 1).astype(jnp.int32)
        spectrum = jax.vmap(lambda p: jnp.zeros(bins).at[radius].add(p))(power)
        peak = jnp.argmax(spectrum[:, 1:], -1) + 1
        peaks = lax.reduce_window(v, np.float32(-np.inf), lax.max, (1, 5, 5), (1, 1, 1), "SAME")
        spots = jnp.sum((v >= peaks) & (v > threshold), (1, 2))
        covered = jnp.mean(v > threshold, (1, 2))
        return state, spectrum, side / peak, covered, spots

    rng = np.random.default_rng(73)
    state = np.zeros((systems, side, side, 2), np.float32)
    state[..., 0] = 1.0
    for s in range(systems):
        for _ in range(6):
            y, x = rng.integers(0, side - 12, 2)
            state[s, y:y + 12, x:x + 12] = (0.5, 0.25)
    state = np.clip(state + 0.02 * rng.standard_normal(state.shape), 0, 1).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(state), jnp.asarray(feed), jnp.asarray(kill),
                              jnp.asarray(kernel))


def _detections(rng: Any, images: int, candidates: int, objects: int, classes: int,
                side: float = 512.0) -> tuple[Any, Any, Any, Any, Any]:
    """numpy candidate boxes (images, candidates, 4) as (y0, x0, y1, x1) pixels, their
    scores and int32 classes, and the ground truth (images, objects, 4) with its int32
    classes: half the candidates are jittered copies of the objects' boxes, scored the
    higher the smaller the jitter and labelled with the object's class nine times in
    ten; the rest are clutter of random boxes with low scores."""
    import numpy as np

    per = candidates // 2 // objects
    boxes = np.zeros((images, candidates, 4), np.float32)
    scores = np.zeros((images, candidates), np.float32)
    labels = np.zeros((images, candidates), np.int32)
    truth = np.zeros((images, objects, 4), np.float32)
    truth_labels = np.zeros((images, objects), np.int32)
    for i in range(images):
        size = rng.uniform(24, 120, (objects, 2))
        centre = rng.uniform(64, side - 64, (objects, 2))
        gt = np.concatenate([centre - size / 2, centre + size / 2], 1)
        kinds = rng.integers(0, classes, objects)
        spread = rng.uniform(0.1, 1.5, (objects, per, 1))
        jitter = rng.normal(0, 1, (objects, per, 4)) * 0.12 * np.tile(size, 2)[:, None, :] * spread
        near = (gt[:, None, :] + jitter).reshape(-1, 4)
        closeness = (np.abs(jitter).mean(-1) / size.mean(-1)[:, None]).reshape(-1)
        near_scores = 1 / (1 + np.exp(-(3 - 25 * closeness + rng.normal(0, 0.5, closeness.shape))))
        near_labels = np.where(rng.uniform(size=(objects, per)) < 0.9, kinds[:, None],
                               rng.integers(0, classes, (objects, per))).reshape(-1)
        rest = candidates - objects * per
        corner = rng.uniform(0, side - 32, (rest, 2))
        extent = rng.uniform(16, 160, (rest, 2))
        clutter = np.concatenate([corner, np.minimum(corner + extent, side)], 1)
        all_boxes = np.concatenate([near, clutter])
        all_boxes = np.concatenate([np.minimum(all_boxes[:, :2], all_boxes[:, 2:]),
                                    np.maximum(all_boxes[:, :2], all_boxes[:, 2:])], 1)
        order = rng.permutation(candidates)
        boxes[i] = all_boxes[order]
        scores[i] = np.concatenate([near_scores, 0.5 * rng.uniform(size=rest) ** 2])[order]
        labels[i] = np.concatenate([near_labels, rng.integers(0, classes, rest)])[order]
        truth[i], truth_labels[i] = gt, kinds
    return boxes, scores, labels, truth, truth_labels


def nms_map_eval(images: int = 8, candidates: int = 2048, keep: int = 512,
                 detections: int = 100, objects: int = 24, classes: int = 4,
                 nms_iou: float = 0.5) -> Any:
    """Detection post-processing and COCO-style evaluation, no gradient: per picture the
    512 best-scored of 2048 candidate boxes (`top_k`) are suppressed greedily and
    class-aware (boxes of different classes moved apart by a class offset, an IoU matrix,
    a `fori_loop` that lets each surviving box remove the later boxes it overlaps by more
    than one half) and the best 100 survivors kept; then for each of ten IoU thresholds
    from 0.5 to 0.95 the detections are matched greedily in score order to unmatched
    ground truth of their class (a `fori_loop`, under `vmap` over thresholds and
    pictures), and per class the detections of all pictures are ranked by an `argsort`,
    precision and recall follow from running sums, the precision envelope from a reversed
    `cummax`, and the average precision is read at 101 recall points. The mean over
    classes and thresholds is the mAP."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    thresholds = jnp.asarray(np.linspace(0.5, 0.95, 10), f32)
    recall_points = jnp.asarray(np.linspace(0.0, 1.0, 101), f32)

    def iou_matrix(a, b):
        y0 = jnp.maximum(a[:, None, 0], b[None, :, 0])
        x0 = jnp.maximum(a[:, None, 1], b[None, :, 1])
        y1 = jnp.minimum(a[:, None, 2], b[None, :, 2])
        x1 = jnp.minimum(a[:, None, 3], b[None, :, 3])
        inter = jnp.maximum(y1 - y0, 0) * jnp.maximum(x1 - x0, 0)
        area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
        area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)

    def suppress(boxes, scores, labels):
        top, order = lax.top_k(scores, keep)
        kept, kinds = boxes[order], labels[order]
        apart = kept + (kinds.astype(f32) * 1024.0)[:, None]       # classes never overlap
        overlap = iou_matrix(apart, apart)
        index = jnp.arange(keep)

        def body(i, alive):
            return alive & ~((overlap[i] > nms_iou) & (index > i) & alive[i])

        alive = lax.fori_loop(0, keep, body, jnp.ones(keep, bool))
        best, pick = lax.top_k(jnp.where(alive, top, -jnp.inf), detections)
        return kept[pick], best, kinds[pick]

    def match(boxes, scores, kinds, truth, truth_kinds, threshold):
        overlap = iou_matrix(boxes, truth)                            # (detections, objects)
        same = kinds[:, None] == truth_kinds[None, :]

        def body(i, carry):
            taken, hit = carry
            options = jnp.where(same[i] & ~taken & (overlap[i] >= threshold), overlap[i], -1.0)
            j = jnp.argmax(options)
            ok = (options[j] >= 0) & (scores[i] > -jnp.inf)
            return taken.at[j].set(taken[j] | ok), hit.at[i].set(ok)

        start = (jnp.zeros(objects, bool), jnp.zeros(detections, bool))
        return lax.fori_loop(0, detections, body, start)[1]

    def average_precision(scores, hits, kinds, truth_kinds, cls):
        s = jnp.where((kinds == cls) & (scores > -jnp.inf), scores, -jnp.inf)
        order = jnp.argsort(-s)
        real = s[order] > -jnp.inf
        tp = jnp.cumsum(hits[order] & real).astype(f32)
        fp = jnp.cumsum(real & ~hits[order]).astype(f32)
        recall = tp / jnp.maximum(jnp.sum(truth_kinds == cls), 1).astype(f32)
        precision = tp / jnp.maximum(tp + fp, 1.0)
        envelope = lax.cummax(precision, axis=0, reverse=True)
        first = jnp.sum(recall[None, :] < recall_points[:, None], 1)  # first index reaching r
        n = s.shape[0]
        return jnp.mean(jnp.where(first < n, envelope[jnp.minimum(first, n - 1)], 0.0))

    def run(boxes, scores, labels, truth, truth_labels):
        kept, best, kinds = jax.vmap(suppress)(boxes, scores, labels)
        hits = jax.vmap(lambda th: jax.vmap(match, (0, 0, 0, 0, 0, None))(
            kept, best, kinds, truth, truth_labels, th))(thresholds)   # (10, images, dets)
        flat = best.reshape(-1)
        per_class = jax.vmap(lambda h: jax.vmap(
            lambda cls: average_precision(flat, h.reshape(-1), kinds.reshape(-1),
                                          truth_labels.reshape(-1), cls))(jnp.arange(classes))
        )(hits)                                                          # (10, classes)
        return kept, best, kinds, per_class, jnp.mean(per_class), jnp.mean(per_class[0])

    rng = np.random.default_rng(74)
    arrays = _detections(rng, images, candidates, objects, classes)
    return jax.jit(run).lower(*(jnp.asarray(a) for a in arrays))


def _voiced_clips(rng: Any, clips: int, samples: int, sample_rate: int = 16000,
                  segment: int = 2048) -> Any:
    """numpy float32 speech-like clips (clips, samples): a pulse train whose pitch (90 to
    220 Hz) wanders slowly, plus breath noise, shaped segment by segment (2048 samples)
    into one of five vowels by four formant resonances (their all-pole responses
    multiplied into the segment's spectrum), with a pause faded in somewhere and a
    little background noise."""
    import numpy as np

    vowels = np.array([[730, 1090, 2440, 3400], [270, 2290, 3010, 3700],
                       [300, 870, 2240, 3300], [530, 1840, 2480, 3500],
                       [570, 840, 2410, 3300]], np.float64)
    bandwidths = np.array([80.0, 100.0, 140.0, 200.0])
    z = np.exp(-2j * np.pi * np.fft.rfftfreq(segment, 1 / sample_rate) / sample_rate)
    out = np.zeros((clips, samples), np.float32)
    for i in range(clips):
        pitch = rng.uniform(90, 220) * np.exp(np.cumsum(rng.normal(0, 4e-4, samples)))
        cycles = np.cumsum(pitch / sample_rate)
        pulses = np.diff(np.floor(cycles), prepend=0.0)
        excitation = pulses - pulses.mean() + 0.03 * rng.standard_normal(samples)
        voice = np.zeros(samples)
        for s in range(samples // segment):
            formants = vowels[rng.integers(len(vowels))] * rng.uniform(0.92, 1.08, 4)
            response = np.ones_like(z)
            for f, b in zip(formants, bandwidths):
                r, theta = np.exp(-np.pi * b / sample_rate), 2 * np.pi * f / sample_rate
                response = response / (1 - 2 * r * np.cos(theta) * z + r * r * z * z)
            part = slice(s * segment, (s + 1) * segment)
            voice[part] = np.fft.irfft(np.fft.rfft(excitation[part]) * response, segment)
        start = int(rng.integers(0, samples - 3000))
        envelope = np.ones(samples)
        envelope[start:start + 3000] = np.abs(np.linspace(-1, 1, 3000)) ** 4
        voice = voice * envelope
        voice = 0.5 * voice / (np.max(np.abs(voice)) + 1e-9)
        out[i] = voice + 1e-3 * rng.standard_normal(samples)
    return out


def lpc_levinson(clips: int = 16, samples: int = 16384, frame: int = 400, hop: int = 160,
                 order: int = 16, cepstra: int = 20, fft: int = 512, peaks: int = 4,
                 sample_rate: int = 16000) -> Any:
    """Linear-predictive analysis of sixteen speech-like clips, no gradient: pre-emphasis,
    100 Hamming-windowed frames of 25 ms every 10 ms cut by a gather, autocorrelations up
    to lag 16 from the FFT power spectra (with a small white-noise correction), the
    Levinson-Durbin recursion in a `fori_loop` over the order (reflection coefficients,
    predictor and error by masked gathers of the running coefficients), log-area ratios,
    LPC cepstra by their recursion in a second `fori_loop`, and the prediction residual of
    every frame by its own inverse filter: one depthwise 1-D convolution with a group per
    frame. Pitch and voicing come from the residual's autocorrelation (FFTs, an `argmax`
    over 40 to 200 lags); formants from the peaks of the all-pole envelope (local maxima,
    `top_k`, then a `sort` by frequency); the prediction gain from the final error."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    frames = 1 + (samples - frame) // hop
    window = jnp.asarray(np.hamming(frame), f32)

    def analyse(x):
        emph = jnp.concatenate([x[:, :1], x[:, 1:] - 0.97 * x[:, :-1]], 1)
        starts = jnp.arange(frames) * hop
        cut = emph[:, starts[:, None] + jnp.arange(frame)[None, :]]      # (clips, frames, frame)
        spectrum = jnp.fft.rfft(cut * window, fft, axis=-1)
        r = jnp.fft.irfft(jnp.abs(spectrum) ** 2, fft, axis=-1)[..., :order + 1]
        r = r.at[..., 0].multiply(1.0 + 1e-4) + 1e-9
        lags = jnp.arange(order + 1)

        def levinson(i, carry):
            a, err, refl = carry
            mirror = jnp.clip(i - lags, 0, order)
            acc = jnp.sum(jnp.where(lags < i, a * jnp.take(r, mirror, axis=-1), 0.0), -1)
            k = -acc / err
            flipped = jnp.where(lags > 0, jnp.take(a, mirror, axis=-1), 0.0)
            a = jnp.where(lags < i, a + k[..., None] * flipped, a)
            a = jnp.where(lags == i, k[..., None], a)
            refl = jnp.where(lags == i, k[..., None], refl)
            return a, err * (1 - k * k), refl

        first = jnp.zeros(r.shape, f32).at[..., 0].set(1.0)
        a, err, refl = lax.fori_loop(1, order + 1, levinson, (first, r[..., 0], jnp.zeros_like(r)))
        area = jnp.log((1 - refl[..., 1:]) / (1 + refl[..., 1:]))

        padded = jnp.concatenate([a, jnp.zeros(a.shape[:-1] + (cepstra - order,), f32)], -1)
        index = jnp.arange(cepstra + 1)

        def cepstrum(n, c):
            before = jnp.take(padded, jnp.clip(n - index, 0, cepstra), axis=-1)  # a[n - k]
            total = jnp.sum(jnp.where((index >= 1) & (index < n), index * c * before, 0.0), -1)
            value = -jnp.take(padded, n, axis=-1) - total / n
            return jnp.where(index == n, value[..., None], c)

        c0 = jnp.zeros(padded.shape, f32).at[..., 0].set(0.5 * jnp.log(err))
        cep = lax.fori_loop(1, cepstra + 1, cepstrum, c0)

        # the residual: each frame filtered by its own A(z), one group per frame
        history = jnp.clip(starts[:, None] + jnp.arange(-order, frame)[None, :], 0, samples - 1)
        groups = clips * frames
        lhs = emph[:, history].reshape(groups, frame + order).T[None]      # (1, width, groups)
        rhs = a[..., ::-1].reshape(groups, order + 1).T[:, None, :]        # (taps, 1, groups)
        residual = _conv(lhs, rhs, padding="VALID", groups=groups)[0].T.reshape(clips, frames,
                                                                               frame)
        power = jnp.abs(jnp.fft.rfft(residual, 1024, axis=-1)) ** 2
        auto = jnp.fft.irfft(power, 1024, axis=-1)[..., :frame // 2 + 1]
        lag = jnp.arange(frame // 2 + 1)
        best = jnp.argmax(jnp.where(lag >= sample_rate // 400, auto, -jnp.inf), -1)
        pitch = sample_rate / best
        voicing = jnp.take_along_axis(auto, best[..., None], -1)[..., 0] / (auto[..., 0] + 1e-9)

        envelope = jnp.log(err[..., None] / (jnp.abs(jnp.fft.rfft(a, fft, axis=-1)) ** 2 + 1e-9))
        inner = envelope[..., 1:-1]
        bump = (inner > envelope[..., :-2]) & (inner >= envelope[..., 2:])
        _, where = lax.top_k(jnp.where(bump, inner, -jnp.inf), peaks)
        formants = jnp.sort((where + 1) * (sample_rate / fft), -1)
        gain = 10 * jnp.log10(r[..., 0] / err)
        return a, refl, area, cep, pitch, voicing, formants, gain

    rng = np.random.default_rng(75)
    return jax.jit(analyse).lower(jnp.asarray(_voiced_clips(rng, clips, samples, sample_rate)))


def _light_curves(rng: Any, stars: int, points: int, span: float = 100.0
                  ) -> tuple[Any, Any, Any]:
    """numpy float32 observation times (stars, points) over `span` nights, magnitudes and
    errors: one observation per chosen night near local midnight (so daily aliases
    appear), of three kinds in turn: pulsators (a sinusoid and its first harmonic,
    periods log-uniform from 0.3 to 20 days), eclipsing binaries (a primary and a
    secondary dip per period) and constant stars with slow red noise."""
    import numpy as np

    times = np.zeros((stars, points), np.float32)
    mags = np.zeros((stars, points), np.float32)
    errs = np.zeros((stars, points), np.float32)
    for i in range(stars):
        t = np.sort(rng.integers(0, int(span), points) + rng.normal(0.5, 0.06, points))
        period = 10 ** rng.uniform(math.log10(0.3), math.log10(20.0))
        phase = (t / period + rng.uniform()) % 1.0
        if i % 3 == 0:
            amp = rng.uniform(0.05, 0.4)
            y = amp * np.sin(2 * np.pi * phase) + 0.3 * amp * np.sin(4 * np.pi * phase + 1.0)
        elif i % 3 == 1:
            y = 0.5 * (np.abs(phase - 0.25) < 0.04) + 0.2 * (np.abs(phase - 0.75) < 0.04)
        else:
            y = np.cumsum(rng.normal(0, 0.01, points))
        err = rng.uniform(0.01, 0.05, points)
        times[i], mags[i], errs[i] = t, 12 + y + err * rng.standard_normal(points), err
    return times, mags, errs


def lomb_scargle(stars: int = 24, points: int = 192, frequencies: int = 2048,
                 chunk: int = 128, fmin: float = 0.05, fmax: float = 4.0) -> Any:
    """Generalized Lomb-Scargle periodograms (Zechmeister and Kurster: a floating mean and
    measurement weights) of 24 irregularly sampled light curves at 2048 frequencies, no
    gradient: under `vmap` over the stars, a `lax.scan` over sixteen chunks of 128
    frequencies takes the sines and cosines of every chunk at every observation time and
    their weighted sums, cross sums and data products (matrix products with the weights),
    and the normalized power. Then the three strongest local peaks (`top_k`), a
    false-alarm probability for the best one from the effective number of independent
    frequencies, and the sinusoid fitted at the best frequency by weighted least squares
    in closed form (amplitude, offset, residual scatter)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    grid = jnp.asarray(np.linspace(fmin, fmax, frequencies), jnp.float32)

    def sums(t, w, yc, f):                      # f (n,) -> the weighted sums at each f
        arg = 2 * jnp.pi * f[:, None] * t[None, :]
        c, s = jnp.cos(arg), jnp.sin(arg)
        cw, sw = c @ w, s @ w
        yc_c, yc_s = c @ (w * yc), s @ (w * yc)
        cc = (c * c) @ w - cw * cw
        ss = (s * s) @ w - sw * sw
        cs = (c * s) @ w - cw * sw
        return cw, sw, yc_c, yc_s, cc, ss, cs

    def periodogram(t, y, err):
        w = 1 / err ** 2
        w = w / jnp.sum(w)
        mean = jnp.sum(w * y)
        yc = y - mean
        yy = jnp.sum(w * yc * yc)

        def block(_, f):
            _, _, yc_c, yc_s, cc, ss, cs = sums(t, w, yc, f)
            d = cc * ss - cs * cs
            return None, (ss * yc_c ** 2 + cc * yc_s ** 2 - 2 * cs * yc_c * yc_s) / (yy * d)

        _, power = lax.scan(block, None, grid.reshape(-1, chunk))
        power = power.reshape(-1)
        inner = power[1:-1]
        local = (inner > power[:-2]) & (inner >= power[2:])
        top, where = lax.top_k(jnp.where(local, inner, 0.0), 3)
        best = grid[1:-1][where[0]]
        cw, sw, yc_c, yc_s, cc, ss, cs = sums(t, w, yc, best[None])
        d = cc * ss - cs * cs
        a = (yc_c * ss - yc_s * cs) / d
        b = (yc_s * cc - yc_c * cs) / d
        offset = mean - a * cw - b * sw
        arg = 2 * jnp.pi * best * t
        model = offset + a * jnp.cos(arg) + b * jnp.sin(arg)
        scatter = jnp.sqrt(jnp.sum(w * (y - model) ** 2))
        span = t[-1] - t[0]
        independent = (fmax - fmin) * span
        single = (1 - top[0]) ** ((points - 3) / 2)
        alarm = -jnp.expm1(independent * jnp.log1p(-single))
        return power, top, grid[1:-1][where], alarm, jnp.sqrt(a * a + b * b)[0], offset[0], scatter

    def run(times, mags, errs):
        return jax.vmap(periodogram)(times, mags, errs)

    rng = np.random.default_rng(76)
    times, mags, errs = _light_curves(rng, stars, points)
    return jax.jit(run).lower(jnp.asarray(times), jnp.asarray(mags), jnp.asarray(errs))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "pvt_dion/12x64px-32-64-128-sr4-2-1-r8": pvt_dion,
    "esim_ewc/32x24+12-h64-fisher": esim_ewc,
    "memn2n_mime/8-clients-6x16x24-facts-3-hops": memn2n_mime,
    "ladder_vae_swalp/32x28px-7x7x8+32-8bit": ladder_vae_swalp,
    "gail_ppo/128x32-steps-2048-expert-16-updates": gail_ppo,
    "fibinet_cowclip/512x10-fields-k12-bf16": fibinet_cowclip,
    "shakeshake_lookaround/3x2x8x24px-8-16-32": shakeshake_lookaround,
    "ijepa_ema/8x32px-p4-d64-l3-4x3x3-targets-bf16": ijepa_ema,
    "mega_flooding/4x128-d64-l2-ema8-bf16": mega_flooding,
    "sar_range_doppler/2x512x512-12-targets-c64": sar_range_doppler,
    "packet_checksums/2x4096x1KiB-4-checksums": packet_checksums,
    "gray_scott/4x128x128-320-steps": gray_scott,
    "nms_map_eval/8x2048-boxes-512-kept-10-thresholds": nms_map_eval,
    "lpc_levinson/16x16384-samples-order16": lpc_levinson,
    "lomb_scargle/24x192-points-2048-frequencies": lomb_scargle,
}
