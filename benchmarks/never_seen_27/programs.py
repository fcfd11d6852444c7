"""The twenty-seventh never-seen set: programs written on 2026-11-28, after the twenty-sixth
set (benchmarks/never_seen_26/), and never used to choose anything: no feature, default,
fallback threshold or model was picked by looking at them. They are here to judge one
trained model, once. The SHA-256 of this file is committed next to it (`SHA256`), and
`fresh_programs.py --set never-seen-27` refuses to run when the two disagree, since an
edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the
twenty-six earlier never-seen sets contain. Two training steps are large, a few
gigaflops each (the masked diffusion language model and BYOL); the others are
mid-sized. Ten are training steps, one of them without backpropagation (predictive
coding) and one differentiating through five unrolled optimizer steps (the unrolled
GAN); the dtypes are float32, bfloat16 (MDLM, GRPO, the frozen model under DoRA) and,
for the first time in these sets, float16 (BYOL, with float32 master weights and a
fixed loss scale).

MDLM, a masked diffusion language model in bfloat16, masks each sequence at a
stratified noise level and trains a bidirectional transformer with rotary positions
on the masked tokens' cross-entropy weighted by the inverse level, under SWAG (momentum
SGD plus running moments and a ring of deviations of the flattened weights). BYOL
learns features of two augmented views with a residual CNN, projector and predictor
against a moving-average target network, in float16, with ACProp (an Adam-like step
over the centred second moment of the step before). GRPO fine-tunes a small bfloat16
transformer on two-digit additions: groups of completions are sampled in a `lax.scan`
of full forward passes and `categorical` draws, rewarded, standardized per group, and
fitted by the clipped surrogate with a KL estimate to a frozen reference, the step by
ClipUp (normalized-gradient momentum with a speed limit). DoRA adapts a frozen bfloat16
encoder through magnitude and direction (rank-8 products, column norms), and the
adapters are preconditioned by Kronecker-factored whitening factors fitted on their Lie
group without triangular solves, after PSGD. An HGNN classifies the nodes of a
hypergraph by two `segment_sum` passes over its incidence list per layer, trained by
four gossiping workers on a ring (`vmap`, `roll`). A Monarch Mixer, every mixing matrix
a product of two block-diagonal factors and a transposing permutation, tells synthetic
languages apart under one round of FedProx with clients doing different amounts of
local work in a masked `lax.scan`. An unrolled GAN on 2-D mixtures differentiates the
generator's loss through five unrolled Adam steps of the discriminator in a
`lax.scan`. A predictive coding network relaxes its hidden activities for 24 steps in a
`fori_loop` and updates its weights by local error-times-activity rules. A temporal
graph network updates node memories from the last batch's messages (the latest per node
by `segment_max`, a GRU, a scatter back), embeds nodes by attention over gathered recent
neighbours, and scores links, its step size set by power iterations of Hessian-vector
products in a `fori_loop`. AutoInt predicts clicks and conversions (ESMM's product of
probabilities) with self-attention over field embeddings gathered from one large table;
the two tasks' shared gradients are reconciled by Gradient Vaccine (one forward pass, two
backward passes by `vjp`) before AdaGrad.

Five are scientific or algorithmic steps without a gradient: ultrasound imaging by
plane-wave compounding (analytic signals by FFT, then in a `lax.scan` over nine angles
delay-and-sum beamforming of 32,768 pixels from 64 elements by gathered, linearly
interpolated complex samples under a depth-dependent Hann aperture, with coherence
factors, then log compression); latent Dirichlet allocation by parallel collapsed Gibbs
sampling (counts by one-hot sums and `segment_sum`, every token resampled at once by
an inverse-CDF draw over a `cumsum`, 30 sweeps in a `fori_loop`, `top_k` words per
topic); an open Jaynes-Cummings system under the Lindblad master equation in complex64,
the ladder and atomic operators applied as shifts and swaps rather than matrix products,
by Runge-Kutta steps in a `lax.scan`; gradient-boosted trees grown from histograms
(quantile bins by sorting, per-level histograms by one `segment_sum`, split gains from
running sums and `argmax`, 32 trees in a `fori_loop`); and a network of 400 Izhikevich
neurons with STDP (a `fori_loop` of 1 ms steps: quadratic integrate-and-fire half
steps, resets, a matrix-vector product of spikes, trace decay and outer-product
plasticity applied every 100 ms).

The updates new to these sets: SWAG, ACProp, ClipUp, a Kronecker whitening
preconditioner fitted without solves (after PSGD), decentralized gossip SGD (D-PSGD),
FedProx, Gradient Vaccine (over AdaGrad), a curvature-set step size (power iterations of
Hessian-vector products, with momentum), local predictive-coding updates, and
differentiation through an unrolled inner Adam (for the unrolled GAN's generator).
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")


def _params(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
            scale: float = 1.0) -> dict[str, Any]:
    """Starting weights for the named shapes from one numpy generator, in the order
    given. Names ending in `_b` start at zero (biases and shifts), names ending in `_g`
    at one (gains), and the rest Gaussian with standard deviation scale / sqrt(fan-in),
    the fan-in being every axis but the last multiplied together (one for a vector)."""
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for name, shape in shapes.items():
        if name.endswith("_b"):
            value = np.zeros(shape, np.float32)
        elif name.endswith("_g"):
            value = np.ones(shape, np.float32)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else 1
            value = rng.standard_normal(shape).astype(np.float32) * (scale / math.sqrt(fan_in))
        out[name] = jnp.asarray(value, dtype or jnp.float32)
    return out


def _norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """x normalized over `axes` by float32 statistics, then scaled and shifted; the result
    has x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axes, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axes, keepdims=True)
    out = (x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
    return (out + shift.astype(jnp.float32)).astype(x.dtype)


def _bn(x: Any, gain: Any, shift: Any) -> Any:
    """Batch norm by the batch's own statistics: every axis but the channels."""
    return _norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels, per position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv2d(x: Any, w: Any, stride: int = 1, groups: int = 1) -> Any:
    """A 2-D NHWC convolution with SAME padding."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=_NHWC,
                                    feature_group_count=groups)


def _tree_pick(out: Any, count: int) -> list[Any]:
    """Splits a tree whose leaves are tuples of `count` entries into `count` trees."""
    import jax

    return [jax.tree.map(lambda o, i=i: o[i], out, is_leaf=lambda o: isinstance(o, tuple))
            for i in range(count)]


def _shape_pictures(rng: Any, count: int, side: int, classes: int) -> tuple[Any, Any]:
    """numpy pictures (count, side, side, 3) in [0, 1] and their int32 labels: class c is
    a figure drawn from c's recipe (a polygon with 3 + c % 5 corners, outlined when c >= 5,
    or filled) in a random colour, size, turn and place, on a background of smooth colour
    waves and a few distracting strokes."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, side, side, 3), np.float32)
    for i, label in enumerate(labels):
        k = rng.uniform(1, 4, (2, 3))
        phase = rng.uniform(0, 2 * np.pi, 3)
        back = 0.5 + 0.25 * np.sin(k[0] * xx[..., None] * 3 + k[1] * yy[..., None] * 3 + phase)
        for _ in range(rng.integers(1, 4)):                  # distracting strokes
            a, b = rng.uniform(0, 1, 2), rng.uniform(0, 1, 2)
            t = np.clip(((xx - a[0]) * (b[0] - a[0]) + (yy - a[1]) * (b[1] - a[1]))
                        / (np.sum((b - a) ** 2) + 1e-9), 0, 1)
            gap = np.hypot(xx - a[0] - t * (b[0] - a[0]), yy - a[1] - t * (b[1] - a[1]))
            back = np.where((gap < 0.015)[..., None], rng.uniform(0, 1, 3), back)
        corners = 3 + label % 5
        centre, radius = rng.uniform(0.3, 0.7, 2), rng.uniform(0.18, 0.32)
        turn = rng.uniform(0, 2 * np.pi)
        angle = np.arctan2(yy - centre[1], xx - centre[0]) - turn
        sector = 2 * np.pi / corners
        edge = radius * np.cos(np.pi / corners) / np.cos((angle % sector) - sector / 2)
        dist = np.hypot(xx - centre[0], yy - centre[1])
        inside = dist < edge
        if label >= 5:
            inside &= dist > edge - 0.06
        picture = np.where(inside[..., None], rng.uniform(0, 1, 3), back)
        out[i] = np.clip(picture + 0.03 * rng.standard_normal(picture.shape), 0, 1)
    return out, labels.astype(np.int32)


def _grammar_text(rng: Any, count: int, length: int) -> tuple[Any, int]:
    """numpy int32 (count, length) streams of sentences from a small agreeing grammar
    ("the small dogs chase a red ball near the house ."), and the vocabulary size:
    determiners, adjectives, singular and plural nouns with verbs that agree with
    their subjects, prepositional phrases and conjunctions, each stream starting at a
    random word of its text."""
    import numpy as np

    det = ["the", "a", "this", "every", "some"]
    adj = ["small", "red", "old", "quiet", "bright", "heavy", "green", "fast"]
    nouns = ["dog", "cat", "bird", "ball", "house", "river", "child", "tree", "car", "song"]
    verbs = ["chase", "see", "find", "carry", "hear", "like", "follow", "paint"]
    prep = ["near", "under", "behind", "over", "with"]
    words = det + adj + nouns + [n + "s" for n in nouns] + verbs + [v + "s" for v in verbs] \
        + prep + ["and", "but", ".", ","]
    index = {w: i for i, w in enumerate(words)}

    def phrase(plural: bool) -> list[str]:
        out = ["the" if plural and rng.uniform() < 0.6 else det[rng.integers(len(det))]]
        if plural and out[0] in ("a", "every", "this"):
            out[0] = "some"
        for _ in range(rng.integers(0, 3)):
            out.append(adj[rng.integers(len(adj))])
        noun = nouns[rng.integers(len(nouns))]
        return out + [noun + "s" if plural else noun]

    out = np.zeros((count, length), np.int32)
    for i in range(count):
        text: list[str] = []
        while len(text) < 2 * length:
            plural = bool(rng.uniform() < 0.5)
            verb = verbs[rng.integers(len(verbs))]
            sentence = phrase(plural) + [verb if plural else verb + "s"] \
                + phrase(bool(rng.uniform() < 0.5))
            if rng.uniform() < 0.4:
                sentence += [prep[rng.integers(len(prep))]] + phrase(bool(rng.uniform() < 0.5))
            if rng.uniform() < 0.2:
                sentence += [",", "and" if rng.uniform() < 0.5 else "but"] + phrase(True) \
                    + [verbs[rng.integers(len(verbs))]] + phrase(False)
            text += sentence + ["."]
        start = rng.integers(0, length)
        out[i] = [index[w] for w in text[start:start + length]]
    return out, len(words)


def mdlm_swag(batch: int = 4, length: int = 256, width: int = 128, heads: int = 4,
              layers: int = 3, hidden: int = 512, rank: int = 8, rate: float = 0.05,
              momentum: float = 0.9) -> Any:
    """A masked diffusion language model (MDLM; Sahoo, Arriola, Schiff et al.) in
    bfloat16 learns sentences of a small agreeing grammar. Every sequence gets a noise
    level t from a stratified draw (the batch's levels spread evenly over (0, 1) from one
    uniform offset) and each token is replaced by a mask token with probability t (the
    linear schedule); a bidirectional transformer of three pre-norm layers of width 128
    with rotary positions and GELU feed-forward layers of 512 predicts the clean tokens
    under the substitution parameterization (the mask token never predicted, unmasked
    positions copied), and the loss is the masked tokens' cross-entropy weighted by
    1 / t, the continuous-time bound of the linear schedule. SWAG (Maddox, Garipov,
    Izmailov, Vetrov and Wilson): momentum SGD, after which the flattened weights update
    a running mean, a running mean of squares and a ring of the last eight deviations
    from the mean (a low-rank plus diagonal Gaussian over the weights)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.flatten_util import ravel_pytree

    bf16, f32 = jnp.bfloat16, jnp.float32
    tokens, vocab = _grammar_text(np.random.default_rng(1), batch, length)
    mask_id = vocab
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab + 1, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}o": (width, width), f"{l}n2_g": (width,), f"{l}n2_b": (width,),
                       f"{l}up": (width, hidden), f"{l}up_b": (hidden,),
                       f"{l}down": (hidden, width), f"{l}down_b": (width,)})
    shapes.update({"nf_g": (width,), "nf_b": (width,), "out": (width, vocab + 1),
                   "out_b": (vocab + 1,)})
    p = _params(shapes, seed=1, dtype=bf16)
    angle = np.arange(length)[:, None] / 10000 ** (np.arange(0, dh, 2) / dh)[None, :]
    cos, sin = jnp.asarray(np.cos(angle), f32), jnp.asarray(np.sin(angle), f32)

    def rotary(t):                            # t (b, n, h, d)
        a, b = t[..., 0::2].astype(f32), t[..., 1::2].astype(f32)
        c, s = cos[:, None, :], sin[:, None, :]
        return jnp.stack([a * c - b * s, a * s + b * c], -1).reshape(t.shape).astype(bf16)

    def attend(p, l, x):
        b, n, _ = x.shape
        q, k, v = (t.reshape(b, n, heads, dh) for t in jnp.split(x @ p[f"{l}qkv"], 3, -1))
        q, k = rotary(q), rotary(k)
        weights = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(f32)
                                 / math.sqrt(dh), -1).astype(bf16)
        out = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, n, width)
        return out @ p[f"{l}o"]

    def loss_fn(p, clean, key):
        ku, km = jax.random.split(key)
        t = (jax.random.uniform(ku) + jnp.arange(batch) / batch) % 1.0
        t = 1e-3 + (1 - 1e-3) * t                                      # stratified levels
        masked = jax.random.uniform(km, clean.shape) < t[:, None]
        x = p["embed"][jnp.where(masked, mask_id, clean)]
        for l in range(layers):
            x = x + attend(p, l, _norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"]))
            h = _norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ p[f"{l}up"] + p[f"{l}up_b"]) @ p[f"{l}down"] + p[f"{l}down_b"]
        logits = (_norm(x, p["nf_g"], p["nf_b"]) @ p["out"] + p["out_b"]).astype(f32)
        logits = logits.at[..., mask_id].set(-1e9)                    # never predict the mask
        nll = _cross_entropy(logits, clean)
        weighted = jnp.where(masked, nll, 0.0) / t[:, None]            # unmasked: copied, free
        return jnp.mean(weighted)

    def step(params, state, clean, key):
        velocity, mean, square, deviations, count = state
        loss, grads = jax.value_and_grad(loss_fn)(params, clean, key)
        velocity = jax.tree.map(lambda v, g: momentum * v + g.astype(f32), velocity, grads)
        params = jax.tree.map(lambda w, v: (w.astype(f32) - rate * v).astype(w.dtype),
                              params, velocity)
        w = ravel_pytree(params)[0].astype(f32)
        n = count.astype(f32)
        mean = (n * mean + w) / (n + 1)
        square = (n * square + w * w) / (n + 1)
        deviations = deviations.at[count % rank].set(w - mean)
        variance = jnp.mean(jnp.maximum(square - mean * mean, 0.0))
        return params, (velocity, mean, square, deviations, count + 1), loss, variance

    size = ravel_pytree(p)[0].size
    state = (jax.tree.map(lambda w: jnp.zeros(w.shape, f32), p), jnp.zeros(size, f32),
             jnp.zeros(size, f32), jnp.zeros((rank, size), f32), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(p, state, jnp.asarray(tokens), jax.random.PRNGKey(1))


def byol_acprop(batch: int = 12, side: int = 32, widths: tuple[int, ...] = (24, 48, 96),
                projection: int = 64, hidden: int = 256, tau: float = 0.99, rate: float = 2e-3,
                b1: float = 0.9, b2: float = 0.999, decay: float = 1e-4,
                loss_scale: float = 1024.0) -> Any:
    """BYOL (Grill, Strub, Altche et al.) in float16 with float32 master weights learns
    features of unlabelled pictures of polygons without negatives: two augmented views
    of each of twelve pictures (random crops from 40x40, flips, brightness, contrast and
    saturation jitter, sometimes grey; made beforehand) pass a residual CNN (a 3x3 stem
    at 24 channels, then residual blocks at 24, 48 and 96 channels, the last two strided)
    and an MLP projector with batch norm, then an MLP predictor; a target network, the
    exponential moving average of the encoder and projector passed in and returned, sees
    the other view, and the loss is the symmetrized squared distance of the normalized
    prediction and target. The float16 loss is scaled by a fixed 1024 and the gradients
    unscaled in float32. ACProp (Zhuang, Ding, Tang, Dvornek, Tatikonda and Duncan): Adam-
    like steps whose denominator is the running second moment of the gradient's
    deviation from its momentum, taken from the step before (asynchronous centering),
    with decoupled weight decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    f16, f32 = jnp.float16, jnp.float32
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],),
                                          "stem_b": (widths[0],)}
    last = widths[0]
    for s, w in enumerate(widths):
        shapes.update({f"r{s}a": (3, 3, last, w), f"r{s}a_g": (w,), f"r{s}a_b": (w,),
                       f"r{s}b": (3, 3, w, w), f"r{s}b_g": (w,), f"r{s}b_b": (w,)})
        if w != last:
            shapes[f"r{s}skip"] = (1, 1, last, w)
        last = w
    shapes.update({"proj0": (last, hidden), "proj0_g": (hidden,), "proj0_b": (hidden,),
                   "proj1": (hidden, projection), "proj1_b": (projection,)})
    online = _params(shapes, seed=2, scale=math.sqrt(2.0))
    online.update(_params({"pred0": (projection, hidden), "pred0_g": (hidden,),
                           "pred0_b": (hidden,), "pred1": (hidden, projection),
                           "pred1_b": (projection,)}, seed=3))
    target = {k: v for k, v in online.items() if not k.startswith("pred")}

    def cbr(p, k, x, stride=1, relu=True):
        x = _bn(_conv2d(x, p[k], stride), p[f"{k}_g"], p[f"{k}_b"])
        return jax.nn.relu(x) if relu else x

    def encode(p, x):
        x = cbr(p, "stem", x)
        last = widths[0]
        for s, w in enumerate(widths):
            stride = 1 if s == 0 else 2
            h = cbr(p, f"r{s}b", cbr(p, f"r{s}a", x, stride), relu=False)
            skip = x if w == last else _conv2d(x, p[f"r{s}skip"], stride)
            x = jax.nn.relu(h + skip)
            last = w
        y = jnp.mean(x.astype(f32), (1, 2)).astype(x.dtype)
        y = jax.nn.relu(_bn(y @ p["proj0"], p["proj0_g"], p["proj0_b"]))
        return y @ p["proj1"] + p["proj1_b"]

    def predict(p, z):
        h = jax.nn.relu(_bn(z @ p["pred0"], p["pred0_g"], p["pred0_b"]))
        return h @ p["pred1"] + p["pred1_b"]

    def distance(a, b):
        a = a.astype(f32) / (jnp.linalg.norm(a.astype(f32), axis=-1, keepdims=True) + 1e-6)
        b = b.astype(f32) / (jnp.linalg.norm(b.astype(f32), axis=-1, keepdims=True) + 1e-6)
        return jnp.mean(2.0 - 2.0 * jnp.sum(a * b, -1))

    def loss_fn(p16, target16, one, two):
        aim_one = jax.lax.stop_gradient(encode(target16, two))
        aim_two = jax.lax.stop_gradient(encode(target16, one))
        loss = distance(predict(p16, encode(p16, one)), aim_one) \
            + distance(predict(p16, encode(p16, two)), aim_two)
        return (loss * loss_scale).astype(f16), loss

    def step(master, state, target, one, two):
        m, s, t = state
        p16 = jax.tree.map(lambda w: w.astype(f16), master)
        t16 = jax.tree.map(lambda w: w.astype(f16), target)
        grads, loss = jax.grad(loss_fn, has_aux=True)(p16, t16, one.astype(f16), two.astype(f16))
        grads = jax.tree.map(lambda g: g.astype(f32) / loss_scale, grads)
        t = t + 1
        m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
        tf = t.astype(f32)
        # the step divides by the centred second moment of the step before (ACProp)
        scale = jnp.sqrt(1 - b2 ** jnp.maximum(tf - 1, 1.0)) / (1 - b1 ** tf)
        master = jax.tree.map(
            lambda w, m_, s_: w - rate * (scale * m_ / (jnp.sqrt(s_) + 1e-8) + decay * w),
            master, m, s)
        s = jax.tree.map(lambda s_, g, m_: b2 * s_ + (1 - b2) * jnp.square(g - m_) + 1e-16,
                         s, grads, m)
        target = jax.tree.map(lambda a, w: tau * a + (1 - tau) * w, target,
                              {k: master[k] for k in target})
        return master, (m, s, t), target, loss

    # two views of every picture: crops of 32 from 40, flips, colour jitter, some grey
    rng = np.random.default_rng(2)
    pictures, _ = _shape_pictures(rng, batch, 40, 10)

    def view(picture):
        size = rng.integers(26, 41)
        y, x = rng.integers(0, 41 - size, 2)
        crop = picture[y:y + size, x:x + size]
        grid = (np.arange(side) + 0.5) * size / side - 0.5
        near = np.clip(np.round(grid).astype(int), 0, size - 1)
        crop = crop[near][:, near]
        if rng.uniform() < 0.5:
            crop = crop[:, ::-1]
        crop = crop * rng.uniform(0.7, 1.3) + rng.uniform(-0.15, 0.15)
        mean = crop.mean()
        crop = (crop - mean) * rng.uniform(0.7, 1.3) + mean
        grey = crop.mean(-1, keepdims=True)
        crop = grey + (crop - grey) * rng.uniform(0.5, 1.5)
        if rng.uniform() < 0.2:
            crop = np.repeat(crop.mean(-1, keepdims=True), 3, -1)
        return np.clip(crop, 0, 1)

    one = np.stack([view(pic) for pic in pictures]).astype(np.float32)
    two = np.stack([view(pic) for pic in pictures]).astype(np.float32)
    zeros = jax.tree.map(lambda w: jnp.zeros(w.shape, f32), online)
    state = (zeros, jax.tree.map(lambda z: z + 1e-8, zeros), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(online, state, target, jnp.asarray(one), jnp.asarray(two))


def grpo_clipup(prompts: int = 6, group: int = 8, width: int = 64, heads: int = 4,
                layers: int = 2, hidden: int = 256, clip: float = 0.2, beta: float = 0.04,
                step_size: float = 0.15, momentum: float = 0.9, max_speed: float = 0.3) -> Any:
    """Group relative policy optimization (GRPO; Shao et al., DeepSeekMath) of a small
    causal transformer in bfloat16 (two layers of width 64, learned positions) that
    completes two-digit additions such as "37+58=" with three digits and an end mark.
    For each of six prompts a group of eight completions is sampled inside the step by
    a `lax.scan` over the four positions (a full causal forward pass each time, the next
    token drawn by `categorical`), each is rewarded for its correct digits and end mark
    with a bonus when all are right, and the advantages are the rewards standardized
    within their group. The loss is PPO's clipped surrogate of the token probability
    ratios against the sampling policy plus 0.04 times the k3 estimate of the KL
    divergence to a frozen reference model passed in, averaged over each completion's
    tokens and then over completions. The update is ClipUp (Toklu, Liskowski and
    Srivastava): momentum on the gradient normalized to unit length, the velocity's
    norm clipped to a maximum speed."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    bf16, f32 = jnp.bfloat16, jnp.float32
    vocab, prompt_len, answer_len = 13, 6, 4
    total = prompt_len + answer_len
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (total, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}o": (width, width), f"{l}n2_g": (width,), f"{l}n2_b": (width,),
                       f"{l}up": (width, hidden), f"{l}up_b": (hidden,),
                       f"{l}down": (hidden, width), f"{l}down_b": (width,)})
    shapes.update({"nf_g": (width,), "nf_b": (width,), "out": (width, vocab)})
    policy = _params(shapes, seed=4, dtype=bf16)
    reference = _params(shapes, seed=4, dtype=bf16)
    causal = jnp.tril(jnp.ones((total, total), bool))

    def logits_of(p, seq):
        b = seq.shape[0]
        x = p["embed"][seq] + p["pos"]
        for l in range(layers):
            h = _norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
            q, k, v = (t.reshape(b, total, heads, dh) for t in jnp.split(h @ p[f"{l}qkv"], 3, -1))
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(f32) / math.sqrt(dh)
            weights = jax.nn.softmax(jnp.where(causal, scores, -1e9), -1).astype(bf16)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, total, width) @ p[f"{l}o"]
            h = _norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ p[f"{l}up"] + p[f"{l}up_b"]) @ p[f"{l}down"] + p[f"{l}down_b"]
        return (_norm(x, p["nf_g"], p["nf_b"]) @ p["out"]).astype(f32)

    def answer_logp(p, seq):
        """Log-probabilities of the answer tokens of `seq` under p: (b, answer_len)."""
        logp = jax.nn.log_softmax(logits_of(p, seq)[:, prompt_len - 1:total - 1], -1)
        return jnp.take_along_axis(logp, seq[:, prompt_len:, None], -1)[..., 0]

    def sample(p, prompt, key):
        seq = jnp.concatenate([jnp.repeat(prompt, group, 0),
                               jnp.zeros((prompt.shape[0] * group, answer_len), jnp.int32)], 1)

        def next_token(seq, xs):
            k, position = xs
            logits = lax.dynamic_index_in_dim(logits_of(p, seq), position - 1, 1, False)
            token = jax.random.categorical(k, logits)
            return lax.dynamic_update_index_in_dim(seq, token, position, 1), None

        positions = prompt_len + jnp.arange(answer_len)
        seq, _ = lax.scan(next_token, seq, (jax.random.split(key, answer_len), positions))
        return seq

    def loss_fn(p, reference, seq, old, advantage):
        logp = answer_logp(p, seq)
        ratio = jnp.exp(logp - old)
        surrogate = jnp.minimum(ratio * advantage[:, None],
                                jnp.clip(ratio, 1 - clip, 1 + clip) * advantage[:, None])
        gap = answer_logp(reference, seq) - logp
        kl = jnp.exp(gap) - gap - 1.0
        return -jnp.mean(jnp.mean(surrogate - beta * kl, 1))

    _, unravel = ravel_pytree(policy)

    def step(policy, velocity, reference, prompt, answer, key):
        seq = sample(policy, prompt, key)
        old = lax.stop_gradient(answer_logp(policy, seq))
        right = seq[:, prompt_len:] == jnp.repeat(answer, group, 0)
        reward = 0.25 * jnp.sum(right, 1) + jnp.all(right, 1).astype(f32)
        grouped = reward.reshape(prompts, group)
        advantage = ((grouped - jnp.mean(grouped, 1, keepdims=True))
                     / (jnp.std(grouped, 1, keepdims=True) + 1e-4)).reshape(-1)
        loss, grads = jax.value_and_grad(loss_fn)(policy, reference, seq, old, advantage)
        g = ravel_pytree(grads)[0].astype(f32)
        velocity = momentum * velocity + step_size * g / (jnp.linalg.norm(g) + 1e-12)
        speed = jnp.linalg.norm(velocity)
        velocity = velocity * jnp.minimum(1.0, max_speed / (speed + 1e-12))
        flat = ravel_pytree(policy)[0].astype(f32) - velocity
        policy = jax.tree.map(lambda w, n: n.astype(w.dtype), policy, unravel(flat))
        return policy, velocity, loss, jnp.mean(reward)

    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 100, (2, prompts))
    prompt = np.stack([a // 10, a % 10, np.full(prompts, 10), b // 10, b % 10,
                       np.full(prompts, 11)], 1)
    c = a + b
    answer = np.stack([c // 100, (c // 10) % 10, c % 10, np.full(prompts, 12)], 1)
    velocity = jnp.zeros(ravel_pytree(policy)[0].size, f32)
    return jax.jit(step).lower(policy, velocity, reference, jnp.asarray(prompt, jnp.int32),
                               jnp.asarray(answer, jnp.int32), jax.random.PRNGKey(4))


def dora_kron_whitening(batch: int = 8, length: int = 64, width: int = 96, heads: int = 4,
                        layers: int = 3, hidden: int = 256, rank: int = 8, vocab: int = 512,
                        classes: int = 3, rate: float = 0.02, momentum: float = 0.9,
                        fit_rate: float = 0.1) -> Any:
    """Fine-tuning by DoRA (weight-decomposed low-rank adaptation; Liu, Wang, Yin et al.)
    of a frozen bfloat16 transformer encoder (three layers of width 96, standing in for
    a pretrained one) that classifies token sequences into three moods by their marker
    words, a negation flipping the next marker. The query, value and feed-forward input
    matrices are adapted: each becomes a learned magnitude per output column times the
    direction of the frozen matrix plus a rank-8 product A B, normalized column by
    column, so that only A, B, the magnitudes and a classifier on the mean token are
    trained. The update preconditions every trained matrix by a Kronecker-factored
    whitening preconditioner in the manner of Li's preconditioned SGD (PSGD): factors
    Q_L and Q_R, fitted on their matrix Lie group so that Q_L G Q_R^T has whitened rows
    and columns, each moved by Q <- Q - mu (E - I) Q / |E - I| with E the normalized
    Gram matrix of the whitened gradient (no triangular solves); vectors get a diagonal
    factor fitted the same way. The preconditioned gradient Q_L^T Q_L G Q_R^T Q_R, its
    norm grafted from the raw gradient, drives momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    adapted = ("q", "v", "up")
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}q": (width, width),
                       f"{l}k": (width, width), f"{l}v": (width, width), f"{l}o": (width, width),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}up": (width, hidden),
                       f"{l}up_b": (hidden,), f"{l}down": (hidden, width),
                       f"{l}down_b": (width,)})
    frozen = _params(shapes, seed=5, dtype=bf16)
    rng = np.random.default_rng(5)
    train: dict[str, Any] = {"head": jnp.asarray(rng.normal(0, 0.05, (width, classes)), f32),
                             "head_b": jnp.zeros(classes, f32)}
    for l in range(layers):
        for name in adapted:
            w0 = frozen[f"{l}{name}"].astype(f32)
            fan_in, fan_out = w0.shape
            train[f"{l}{name}.a"] = jnp.asarray(rng.normal(0, 1 / math.sqrt(fan_in),
                                                           (fan_in, rank)), f32)
            train[f"{l}{name}.b"] = jnp.zeros((rank, fan_out), f32)
            train[f"{l}{name}.m"] = jnp.linalg.norm(w0, axis=0)

    def weight(frozen, train, key):
        """The DoRA weight: magnitudes times the column-normalized W0 + A B."""
        direction = frozen[key].astype(f32) + train[f"{key}.a"] @ train[f"{key}.b"]
        norms = jax.lax.stop_gradient(jnp.linalg.norm(direction, axis=0))  # as in the paper
        return (train[f"{key}.m"] * direction / norms).astype(bf16)

    def loss_fn(train, frozen, tokens, labels):
        b = tokens.shape[0]
        x = frozen["embed"][tokens] + frozen["pos"]
        for l in range(layers):
            h = _norm(x, frozen[f"{l}n1_g"], frozen[f"{l}n1_b"])
            q = (h @ weight(frozen, train, f"{l}q")).reshape(b, length, heads, dh)
            k = (h @ frozen[f"{l}k"]).reshape(b, length, heads, dh)
            v = (h @ weight(frozen, train, f"{l}v")).reshape(b, length, heads, dh)
            att = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(f32)
                                 / math.sqrt(dh), -1).astype(bf16)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, length, width) \
                @ frozen[f"{l}o"]
            h = _norm(x, frozen[f"{l}n2_g"], frozen[f"{l}n2_b"])
            h = jax.nn.gelu(h @ weight(frozen, train, f"{l}up") + frozen[f"{l}up_b"])
            x = x + h @ frozen[f"{l}down"] + frozen[f"{l}down_b"]
        pooled = jnp.mean(x.astype(f32), 1)
        return jnp.mean(_cross_entropy(pooled @ train["head"] + train["head_b"], labels))

    def init(train):
        factors = {}
        for k, w in train.items():
            if w.ndim == 2:
                factors[k] = (jnp.eye(w.shape[0], dtype=f32), jnp.eye(w.shape[1], dtype=f32))
            else:
                factors[k] = jnp.ones(w.shape, f32)
        return factors, jax.tree.map(jnp.zeros_like, train)

    def fit(q, e):
        """One multiplicative step of a factor toward whitening: E normalized to unit mean
        eigenvalue, the step scaled by the Frobenius norm of E - I."""
        e = e / (jnp.trace(e) / e.shape[0] + 1e-12)
        gap = e - jnp.eye(e.shape[0], dtype=f32)
        return q - fit_rate * (gap @ q) / (jnp.linalg.norm(gap) + 1e-12)

    def step(train, state, frozen, tokens, labels):
        factors, velocity = state
        loss, grads = jax.value_and_grad(loss_fn)(train, frozen, tokens, labels)
        new_factors, steps = {}, {}
        for k, g in grads.items():
            if g.ndim == 2:
                left, right = factors[k]
                a = left @ g @ right.T
                left, right = fit(left, a @ a.T), fit(right, a.T @ a)
                a = left @ g @ right.T
                pre = left.T @ a @ right
                new_factors[k] = (left, right)
            else:
                d = factors[k]
                a2 = jnp.square(d * g)
                gap = a2 / (jnp.mean(a2) + 1e-12) - 1.0
                d = d * (1.0 - fit_rate * gap / (jnp.max(jnp.abs(gap)) + 1e-12))
                pre = d * d * g
                new_factors[k] = d
            steps[k] = pre * jnp.linalg.norm(g) / (jnp.linalg.norm(pre) + 1e-12)   # grafting
        velocity = jax.tree.map(lambda v, s_: momentum * v + s_, velocity, steps)
        train = jax.tree.map(lambda w, v: w - rate * v, train, velocity)
        return train, (new_factors, velocity), loss

    # sequences of filler words with marker words of three moods; a negation word turns the
    # next marker to the opposite of the first two moods; the label is the commonest mood
    data = np.random.default_rng(6)
    tokens = data.integers(40, vocab, (batch, length))
    labels = np.zeros(batch, np.int32)
    for i in range(batch):
        counts = np.zeros(classes)
        for at in np.sort(data.choice(length - 1, data.integers(4, 12), replace=False)):
            mood = data.integers(classes)
            if data.uniform() < 0.25 and mood < 2:
                tokens[i, at] = 39                                     # the negation
                tokens[i, at + 1] = data.integers(0, 13) + 13 * mood
                counts[1 - mood] += 1
            else:
                tokens[i, at] = data.integers(0, 13) + 13 * mood
                counts[mood] += 1
        labels[i] = np.argmax(counts)
    return jax.jit(step).lower(train, jax.eval_shape(init, train), frozen,
                               jnp.asarray(tokens, jnp.int32), jnp.asarray(labels))


def hypergraph_gossip(nodes: int = 2048, hyperedges: int = 1200, features: int = 64,
                      hidden: int = 128, classes: int = 6, workers: int = 4, labelled: int = 96,
                      dropout: float = 0.5, rate: float = 0.2, momentum: float = 0.9) -> Any:
    """Node classification on a hypergraph by HGNN (Feng, You, Zhang, Ji and Gao): 2048
    nodes with noisy 64-dimensional features of six classes, 1200 hyperedges of three to
    eight nodes mostly of one class, plus a singleton hyperedge per node. Each of two
    layers transforms the node features and applies D_v^-1/2 H D_e^-1 H^T D_v^-1/2 by two
    rounds over the incidence list (the members' features gathered and summed per
    hyperedge by `segment_sum`, the hyperedge means gathered and summed per node), with
    ReLU and dropout between them; cross-entropy on labelled nodes. Decentralized
    training by gossip (D-PSGD; Lian, Zhang, Zhang, Hsieh, Zhang and Liu): four workers
    on a ring under `vmap`, each holding its own copy of the weights and its own 96
    labelled nodes, take a momentum step on their own gradient and then average their
    weights with their two ring neighbours (a third each, by `roll` over the worker
    axis); the spread of the copies around their mean comes back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import ops

    rng = np.random.default_rng(7)
    label = rng.integers(0, classes, nodes)
    centres = rng.normal(0, 1, (classes, features))
    x = centres[label] * 0.6 + rng.normal(0, 1, (nodes, features))
    members, owners = [], []
    by_class = [np.flatnonzero(label == c) for c in range(classes)]
    for e in range(hyperedges):
        size = rng.integers(3, 9)
        home = by_class[rng.integers(classes)]
        chosen = np.where(rng.uniform(size=size) < 0.8, rng.choice(home, size),
                          rng.integers(0, nodes, size))
        chosen = np.unique(chosen)
        members += list(chosen)
        owners += [e] * len(chosen)
    members += list(range(nodes))                               # singleton hyperedges
    owners += list(range(hyperedges, hyperedges + nodes))
    members, owners = np.asarray(members), np.asarray(owners)
    edges = hyperedges + nodes
    d_v = np.bincount(members, minlength=nodes).astype(np.float32)
    d_e = np.bincount(owners, minlength=edges).astype(np.float32)
    masks = np.zeros((workers, nodes), np.float32)
    order = rng.permutation(nodes)
    for w in range(workers):
        masks[w, order[w * labelled:(w + 1) * labelled]] = 1.0

    params = _params({"t0": (features, hidden), "t0_b": (hidden,), "t1": (hidden, classes),
                      "t1_b": (classes,)}, seed=7, scale=math.sqrt(2.0))
    copies = jax.tree.map(lambda w: jnp.broadcast_to(w, (workers,) + w.shape), params)
    inv_v = jnp.asarray(1.0 / np.sqrt(d_v))[:, None]
    inv_e = jnp.asarray(1.0 / d_e)[:, None]
    member_idx, owner_idx = jnp.asarray(members, jnp.int32), jnp.asarray(owners, jnp.int32)

    def propagate(y):
        """D_v^-1/2 H D_e^-1 H^T D_v^-1/2 y over the incidence list."""
        y = y * inv_v
        per_edge = ops.segment_sum(y[member_idx], owner_idx, num_segments=edges) * inv_e
        return ops.segment_sum(per_edge[owner_idx], member_idx, num_segments=nodes) * inv_v

    def loss_fn(p, x, labels, mask, key):
        h = jax.nn.relu(propagate(x @ p["t0"]) + p["t0_b"])
        keep = jax.random.bernoulli(key, 1 - dropout, h.shape)
        h = jnp.where(keep, h / (1 - dropout), 0.0)
        logits = propagate(h @ p["t1"]) + p["t1_b"]
        return jnp.sum(_cross_entropy(logits, labels) * mask) / jnp.sum(mask)

    def step(copies, velocity, x, labels, masks, key):
        keys = jax.random.split(key, workers)
        losses, grads = jax.vmap(jax.value_and_grad(loss_fn), (0, None, None, 0, 0))(
            copies, x, labels, masks, keys)
        velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, grads)
        local = jax.tree.map(lambda w, v: w - rate * v, copies, velocity)
        mixed = jax.tree.map(lambda w: (w + jnp.roll(w, 1, 0) + jnp.roll(w, -1, 0)) / 3.0, local)
        spread = sum(jnp.sum(jnp.square(w - jnp.mean(w, 0))) for w in jax.tree.leaves(mixed))
        return mixed, velocity, losses, jnp.sqrt(spread / workers)

    velocity = jax.tree.map(jnp.zeros_like, copies)
    return jax.jit(step).lower(copies, velocity, jnp.asarray(x, jnp.float32),
                               jnp.asarray(label, jnp.int32), jnp.asarray(masks),
                               jax.random.PRNGKey(7))


def monarch_fedprox(clients: int = 4, local: int = 3, batch: int = 2, length: int = 144,
                    width: int = 64, layers: int = 2, symbols: int = 32, languages: int = 4,
                    rate: float = 0.05, mu: float = 0.1) -> Any:
    """One round of FedProx (Li, Sahu, Zaheer, Sanjabi, Talwalkar and Smith) for a small
    Monarch Mixer (Fu, Arora, Grogan et al.) that tells four synthetic languages apart
    (strings of 144 symbols from four different second-order Markov chains). Monarch
    matrices, the product of two block-diagonal factors with a transposing permutation
    between them (sqrt(n) blocks of sqrt(n) x sqrt(n)), do all the mixing: along the
    sequence, a 144-point Monarch matrix shared by the channels mixes the product of a
    gate and a value projection and the result gates the gate's twin, and along the
    channels two 64-point Monarch matrices with a GELU between replace the feed-forward
    layer; layer norms, residual connections, a mean over positions and a linear
    classifier. Four clients under `vmap` with different mixtures of the languages and
    different amounts of local work (three, two, three and one steps, the scan masked)
    each minimize their loss plus mu / 2 times the squared distance to the server's
    weights by SGD in a `lax.scan`, and the server averages what they return."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    seq_b, ch_b = int(round(math.sqrt(length))), int(round(math.sqrt(width)))
    shapes: dict[str, tuple[int, ...]] = {"embed": (symbols, width), "pos": (length, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}in": (width, 3 * width),
                       f"{l}seq_r": (seq_b, seq_b, seq_b), f"{l}seq_l": (seq_b, seq_b, seq_b),
                       f"{l}out": (width, width), f"{l}n2_g": (width,), f"{l}n2_b": (width,),
                       f"{l}ch1_r": (ch_b, ch_b, ch_b), f"{l}ch1_l": (ch_b, ch_b, ch_b),
                       f"{l}ch1_b": (width,), f"{l}ch2_r": (ch_b, ch_b, ch_b),
                       f"{l}ch2_l": (ch_b, ch_b, ch_b), f"{l}ch2_b": (width,)})
    shapes.update({"nf_g": (width,), "nf_b": (width,), "head": (width, languages),
                   "head_b": (languages,)})
    params = _params(shapes, seed=8)

    def monarch(x, right, left):
        """x (..., n) times the Monarch matrix P L P^T R, n = b * b, the factors (b, b, b)."""
        b = right.shape[0]
        y = x.reshape(x.shape[:-1] + (b, b))
        y = jnp.einsum("...ij,ikj->...ik", y, right)                # block-diagonal R
        y = jnp.swapaxes(y, -1, -2)                                  # the permutation
        y = jnp.einsum("...ij,ikj->...ik", y, left)                 # block-diagonal L
        return jnp.swapaxes(y, -1, -2).reshape(x.shape)

    def loss_fn(p, tokens, labels):
        x = p["embed"][tokens] + p["pos"]
        for l in range(layers):
            h = _norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
            gate, value, twin = jnp.split(h @ p[f"{l}in"], 3, -1)
            mixed = monarch(jnp.swapaxes(gate * value, 1, 2), p[f"{l}seq_r"], p[f"{l}seq_l"])
            x = x + (jnp.swapaxes(mixed, 1, 2) * jax.nn.sigmoid(twin)) @ p[f"{l}out"]
            h = _norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            h = jax.nn.gelu(monarch(h, p[f"{l}ch1_r"], p[f"{l}ch1_l"]) + p[f"{l}ch1_b"])
            x = x + monarch(h, p[f"{l}ch2_r"], p[f"{l}ch2_l"]) + p[f"{l}ch2_b"]
        pooled = jnp.mean(_norm(x, p["nf_g"], p["nf_b"]), 1)
        return jnp.mean(_cross_entropy(pooled @ p["head"] + p["head_b"], labels))

    tm = jax.tree.map

    def client(server, tokens, labels, steps):
        def proximal(w, tokens, labels):
            gap = sum(jnp.sum(jnp.square(a - b)) for a, b in
                      zip(jax.tree.leaves(w), jax.tree.leaves(server)))
            return loss_fn(w, tokens, labels) + 0.5 * mu * gap

        def local_step(w, xs):
            tokens, labels, k = xs
            loss, g = jax.value_and_grad(proximal)(w, tokens, labels)
            live = (k < steps).astype(jnp.float32)
            return tm(lambda a, b: a - live * rate * b, w, g), loss * live

        w, losses = lax.scan(local_step, server, (tokens, labels, jnp.arange(local)))
        return w, jnp.sum(losses) / steps

    def round_(server, tokens, labels, steps):
        weights, losses = jax.vmap(client, (None, 0, 0, 0))(server, tokens, labels, steps)
        return tm(lambda w: jnp.mean(w, 0), weights), losses

    # four languages: second-order Markov chains over 32 symbols, each with its own
    # sparse, peaked transition table; clients draw them in different mixtures
    rng = np.random.default_rng(8)
    tables = rng.dirichlet(np.full(symbols, 0.1), (languages, symbols, symbols))
    mixtures = rng.dirichlet(np.ones(languages) * 0.7, clients)
    tokens = np.zeros((clients, local, batch, length), np.int32)
    labels = np.zeros((clients, local, batch), np.int32)
    for c in range(clients):
        for k in range(local):
            for i in range(batch):
                lang = rng.choice(languages, p=mixtures[c])
                seq = list(rng.integers(0, symbols, 2))
                for _ in range(length - 2):
                    seq.append(rng.choice(symbols, p=tables[lang, seq[-2], seq[-1]]))
                tokens[c, k, i], labels[c, k, i] = seq, lang
    steps = np.array([3, 2, 3, 1][:clients], np.int32)
    return jax.jit(round_).lower(params, jnp.asarray(tokens), jnp.asarray(labels),
                                 jnp.asarray(steps))


def unrolled_gan(batch: int = 128, latent: int = 16, width: int = 128, depth: int = 3,
                 unroll: int = 5, d_rate: float = 1e-4, g_rate: float = 1e-3,
                 b1: float = 0.5, b2: float = 0.999) -> Any:
    """An unrolled GAN (Metz, Poole, Pfau and Sohl-Dickstein) on the classic 2-D mixtures
    (eight Gaussians on a ring and a five-by-five grid, half the batch each), where
    plain GANs drop modes. Generator and discriminator are ReLU MLPs of three layers of
    128. Five steps of the discriminator's own Adam, state and all, are unrolled in a
    `lax.scan` on fresh real and generated batches, and the generator's loss is taken
    against the fifth unrolled discriminator, its gradient flowing back through every
    unrolled Adam step (second derivatives of the discriminator's loss). The
    discriminator keeps its first unrolled step; the generator takes an Adam step."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def mlp_shapes(fan_in: int, fan_out: int) -> dict[str, tuple[int, ...]]:
        shapes: dict[str, tuple[int, ...]] = {}
        last = fan_in
        for i in range(depth):
            shapes.update({f"l{i}": (last, width), f"l{i}_b": (width,)})
            last = width
        return {**shapes, "out": (width, fan_out), "out_b": (fan_out,)}

    g0 = _params(mlp_shapes(latent, 2), seed=9, scale=math.sqrt(2.0))
    d0 = _params(mlp_shapes(2, 1), seed=10, scale=math.sqrt(2.0))
    tm = jax.tree.map

    def mlp(p, x):
        for i in range(depth):
            x = jax.nn.relu(x @ p[f"l{i}"] + p[f"l{i}_b"])
        return x @ p["out"] + p["out_b"]

    def d_loss(d, g, real, z):
        return jnp.mean(jax.nn.softplus(-mlp(d, real))) \
            + jnp.mean(jax.nn.softplus(mlp(d, mlp(g, z))))

    def adam(w, grads, state, rate):
        m, v, t = state
        t = t + 1
        m = tm(lambda a, g: b1 * a + (1 - b1) * g, m, grads)
        v = tm(lambda a, g: b2 * a + (1 - b2) * g * g, v, grads)
        fix = jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = tm(lambda a, m_, v_: a - rate * fix * m_ / (jnp.sqrt(v_ + 1e-16) + 1e-8), w, m, v)
        return w, (m, v, t)

    def unrolled(d, d_state, g, reals, zs):
        def one(carry, xs):
            d, state = carry
            grads = jax.grad(d_loss)(d, g, *xs)
            return adam(d, grads, state, d_rate), None

        (d_last, _), _ = lax.scan(one, (d, d_state), (reals, zs))
        return d_last

    def g_loss(g, d, d_state, reals, zs, z):
        d_last = unrolled(d, d_state, g, reals, zs)
        return jnp.mean(jax.nn.softplus(-mlp(d_last, mlp(g, z))))

    def step(g, d, g_state, d_state, reals, key):
        kz, kg = jax.random.split(key)
        zs = jax.random.normal(kz, (unroll, batch, latent))
        z = jax.random.normal(kg, (batch, latent))
        loss, grads = jax.value_and_grad(g_loss)(g, d, d_state, reals, zs, z)
        # the discriminator keeps its first unrolled step (and its optimizer state there),
        # taken against the generator before its own step
        first = jax.grad(d_loss)(d, g, reals[0], zs[0])
        d, d_state = adam(d, first, d_state, d_rate)
        g, g_state = adam(g, grads, g_state, g_rate)
        return g, d, g_state, d_state, loss

    rng = np.random.default_rng(9)
    half = batch // 2
    ring = 2.0 * np.stack([np.cos(np.arange(8) * np.pi / 4), np.sin(np.arange(8) * np.pi / 4)], 1)
    grid = np.stack(np.meshgrid(np.arange(-2, 3), np.arange(-2, 3)), -1).reshape(-1, 2) * 1.0
    reals = np.zeros((unroll, batch, 2), np.float32)
    for k in range(unroll):
        reals[k, :half] = ring[rng.integers(0, 8, half)] + rng.normal(0, 0.02, (half, 2))
        reals[k, half:] = grid[rng.integers(0, 25, batch - half)] + rng.normal(
            0, 0.05, (batch - half, 2))

    def zeros(p):
        return (tm(jnp.zeros_like, p), tm(jnp.zeros_like, p), jnp.asarray(0.0))

    return jax.jit(step).lower(g0, d0, zeros(g0), zeros(d0), jnp.asarray(reals),
                               jax.random.PRNGKey(9))


def predictive_coding(batch: int = 128, side: int = 28, sizes: tuple[int, ...] = (256, 128),
                      classes: int = 10, iterations: int = 24, settle: float = 0.1,
                      rate: float = 0.02, momentum: float = 0.9) -> Any:
    """A supervised predictive coding network (Whittington and Bogacz) learns to classify
    28x28 grey pictures of polygons without backpropagation. Each layer predicts the
    next, mu_l = W_l tanh(x_(l-1)) + b_l, from the clamped picture through hidden layers
    of 256 and 128 units to the label, which is clamped too. Starting from the
    feed-forward pass, the hidden activities relax for 24 steps in a `fori_loop` down
    the energy of the squared prediction errors (each unit pulled toward its prediction
    and pushed to explain the errors of the layer above through the transposed
    weights); then every weight takes the local, Hebbian-shaped update of its layer's
    error times the presynaptic activity, with momentum. The energy before and after
    relaxation and the accuracy of the feed-forward pass come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dims = (side * side,) + tuple(sizes) + (classes,)
    shapes: dict[str, tuple[int, ...]] = {}
    for l in range(1, len(dims)):
        shapes.update({f"w{l}": (dims[l - 1], dims[l]), f"w{l}_b": (dims[l],)})
    params = _params(shapes, seed=11)
    top = len(dims) - 1

    def f(x):
        return jnp.tanh(x)

    def df(x):
        return 1.0 - jnp.square(jnp.tanh(x))

    def errors(p, xs):
        return [xs[l] - (f(xs[l - 1]) @ p[f"w{l}"] + p[f"w{l}_b"]) for l in range(1, top + 1)]

    def energy(p, xs):
        return sum(0.5 * jnp.sum(jnp.square(e)) for e in errors(p, xs)) / batch

    def step(p, velocity, pictures, labels):
        x0 = pictures.reshape(batch, -1)
        xs = [x0]
        for l in range(1, top + 1):                                  # the feed-forward pass
            xs.append(f(xs[-1]) @ p[f"w{l}"] + p[f"w{l}_b"])
        right = jnp.mean((jnp.argmax(xs[-1], -1) == labels).astype(jnp.float32))
        xs[-1] = jax.nn.one_hot(labels, classes)                     # clamp the label
        first = energy(p, xs)
        mu1 = f(x0) @ p["w1"] + p["w1_b"]                            # fixed: x0 is clamped

        def relax(_, hidden):
            xs_ = [x0, *hidden, xs[-1]]
            eps = [xs_[1] - mu1] + [xs_[l] - (f(xs_[l - 1]) @ p[f"w{l}"] + p[f"w{l}_b"])
                                    for l in range(2, top + 1)]
            moved = []
            for l in range(1, top):
                push = df(xs_[l]) * (eps[l] @ p[f"w{l + 1}"].T)
                moved.append(xs_[l] + settle * (-eps[l - 1] + push))
            return tuple(moved)

        hidden = lax.fori_loop(0, iterations, relax, tuple(xs[1:top]))
        xs = [x0, *hidden, xs[-1]]
        eps = errors(p, xs)
        settled = sum(0.5 * jnp.sum(jnp.square(e)) for e in eps) / batch
        changes = {}
        for l in range(1, top + 1):
            changes[f"w{l}"] = f(xs[l - 1]).T @ eps[l - 1] / batch
            changes[f"w{l}_b"] = jnp.mean(eps[l - 1], 0)
        velocity = jax.tree.map(lambda v, c: momentum * v + c, velocity, changes)
        p = jax.tree.map(lambda w, v: w + rate * v, p, velocity)
        return p, velocity, first, settled, right

    rng = np.random.default_rng(11)
    pictures, labels = _shape_pictures(rng, batch, side, classes)
    grey = pictures.mean(-1)
    return jax.jit(step).lower(params, jax.tree.map(jnp.zeros_like, params),
                               jnp.asarray(grey), jnp.asarray(labels))


def tgn_curvature_step(users: int = 1024, items: int = 512, events: int = 64, memory: int = 48,
                       edge_dim: int = 16, time_dim: int = 16, recent: int = 8, heads: int = 2,
                       power: int = 3, momentum: float = 0.9, ceiling: float = 0.1) -> Any:
    """A temporal graph network (TGN; Rossi, Chamberlain, Frasca, Eynard, Monti and
    Bronstein) predicts the next user-item interactions of a timed stream (users drawn
    to item clusters of their own, 16 edge features per event). The step first brings
    the node memories up to date with the last batch's raw messages (both ends' memories,
    a cosine time encoding of the time since each node's last update and the event's
    features): only each node's latest message counts (a `segment_max` of event order),
    a GRU cell updates the memory, and the new rows are scattered back. Then every
    source, destination and sampled negative destination of the current 64 events is
    embedded by temporal graph attention (two heads) over its eight most recent neighbours
    gathered from a neighbour table (their memories, edge features and time encodings),
    and an MLP on the pair scores positive and negative links under binary
    cross-entropy, the gradient reaching the GRU through the memory update. The update
    sets its rate from the curvature: three power iterations of Hessian-vector products
    (forward-over-reverse) in a `fori_loop` estimate the largest Hessian eigenvalue, and
    momentum SGD steps at the smaller of 1 / lambda and 0.1."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    nodes = users + items
    msg_dim = 2 * memory + time_dim + edge_dim
    key_dim = memory + edge_dim + time_dim
    shapes = {"time_w": (1, time_dim), "time_w_b": (time_dim,),
              "gru_x": (msg_dim, 3 * memory), "gru_x_b": (3 * memory,),
              "gru_h": (memory, 3 * memory), "gru_h_b": (3 * memory,),
              "att_q": (memory + time_dim, memory), "att_k": (key_dim, memory),
              "att_v": (key_dim, memory), "att_o": (memory, memory),
              "emb0": (2 * memory, memory), "emb0_b": (memory,), "emb1": (memory, memory),
              "emb1_b": (memory,), "dec0": (2 * memory, memory), "dec0_b": (memory,),
              "dec1": (memory, 1), "dec1_b": (1,)}
    params = _params(shapes, seed=12)
    params["time_w"] = jnp.asarray(1.0 / 10 ** np.linspace(0, 4, time_dim), jnp.float32)[None, :]
    _, unravel = ravel_pytree(params)

    def encode_time(p, dt):
        return jnp.cos(dt[..., None] @ p["time_w"] + p["time_w_b"])

    def update_memory(p, mem, last, pending):
        src, dst, t, feat = pending
        who = jnp.concatenate([src, dst])
        other = jnp.concatenate([dst, src])
        when = jnp.concatenate([t, t])
        msg = jnp.concatenate([mem[who], mem[other], encode_time(p, when - last[who]),
                               jnp.concatenate([feat, feat])], -1)
        order = jnp.arange(who.shape[0])
        latest = jax.ops.segment_max(order, who, num_segments=nodes)
        is_last = latest[who] == order
        h = mem[who]
        gx = msg @ p["gru_x"] + p["gru_x_b"]
        gh = h @ p["gru_h"] + p["gru_h_b"]
        r = jax.nn.sigmoid(gx[:, :memory] + gh[:, :memory])
        z = jax.nn.sigmoid(gx[:, memory:2 * memory] + gh[:, memory:2 * memory])
        n = jnp.tanh(gx[:, 2 * memory:] + r * gh[:, 2 * memory:])
        fresh = (1 - z) * n + z * h
        target = jnp.where(is_last, who, nodes)                      # row `nodes`: discarded
        padded = jnp.concatenate([mem, jnp.zeros((1, memory))])
        mem = padded.at[target].set(fresh)[:nodes]
        last = jnp.concatenate([last, jnp.zeros(1)]).at[target].set(when)[:nodes]
        return mem, last

    def embed(p, mem, ids, now, table):
        nbr, nbr_t, nbr_f = table
        n_ids = nbr[ids]
        q = jnp.concatenate([mem[ids], encode_time(p, jnp.zeros_like(now))], -1) @ p["att_q"]
        kv_in = jnp.concatenate([mem[n_ids], nbr_f[ids], encode_time(p, now[:, None] - nbr_t[ids])],
                                -1)
        k, v = kv_in @ p["att_k"], kv_in @ p["att_v"]
        dh = memory // heads
        q = q.reshape(-1, heads, dh)
        k, v = k.reshape(-1, recent, heads, dh), v.reshape(-1, recent, heads, dh)
        weights = jax.nn.softmax(jnp.einsum("bhd,bnhd->bhn", q, k) / math.sqrt(dh), -1)
        out = jnp.einsum("bhn,bnhd->bhd", weights, v).reshape(-1, memory) @ p["att_o"]
        h = jax.nn.relu(jnp.concatenate([out, mem[ids]], -1) @ p["emb0"] + p["emb0_b"])
        return h @ p["emb1"] + p["emb1_b"]

    def loss_fn(flat, mem, last, pending, batch, table):
        p = unravel(flat)
        mem, last = update_memory(p, mem, last, pending)
        src, dst, neg, t = batch
        z_src, z_dst, z_neg = (embed(p, mem, ids, t, table) for ids in (src, dst, neg))

        def score(a, b):
            h = jax.nn.relu(jnp.concatenate([a, b], -1) @ p["dec0"] + p["dec0_b"])
            return (h @ p["dec1"] + p["dec1_b"])[:, 0]

        pos, negative = score(z_src, z_dst), score(z_src, z_neg)
        loss = jnp.mean(jax.nn.softplus(-pos)) + jnp.mean(jax.nn.softplus(negative))
        return loss, (mem, last, jnp.mean((pos > negative).astype(jnp.float32)))

    def step(flat, velocity, mem, last, pending, batch, table, key):
        def grad_only(w):
            return jax.grad(lambda w_: loss_fn(w_, mem, last, pending, batch, table)[0])(w)

        def power_step(_, v):
            hv = jax.jvp(grad_only, (flat,), (v,))[1]
            return hv / (jnp.linalg.norm(hv) + 1e-12)

        v = jax.random.normal(key, flat.shape)
        v = lax.fori_loop(0, power, power_step, v / jnp.linalg.norm(v))
        curvature = v @ jax.jvp(grad_only, (flat,), (v,))[1]
        (loss, (mem, last, ranked)), g = jax.value_and_grad(loss_fn, has_aux=True)(
            flat, mem, last, pending, batch, table)
        rate = jnp.minimum(ceiling, 1.0 / jnp.maximum(jnp.abs(curvature), 1e-6))
        velocity = momentum * velocity + g
        return flat - rate * velocity, velocity, lax.stop_gradient(mem), last, loss, \
            curvature, ranked

    # a stream of user-item interactions: each user prefers one of eight item clusters
    rng = np.random.default_rng(12)
    taste = rng.integers(0, 8, users)
    cluster = rng.integers(0, 8, items)
    by_cluster = [users + np.flatnonzero(cluster == c) for c in range(8)]

    def draw(count, start):
        src = rng.integers(0, users, count)
        dst = np.array([rng.choice(by_cluster[taste[u]]) if rng.uniform() < 0.8
                        else users + rng.integers(0, items) for u in src])
        t = start + np.sort(rng.uniform(0, 100, count))
        feat = rng.normal(0, 1, (count, edge_dim)) + (dst[:, None] % 3 == 0)
        return src, dst, t, feat

    pending = draw(events, 1000.0)
    src, dst, t, _ = draw(events, 1100.0)
    neg = users + rng.integers(0, items, events)
    nbr = rng.integers(0, nodes, (nodes, recent))
    nbr_t = 1000.0 - np.sort(rng.uniform(0, 500, (nodes, recent)), 1)
    nbr_f = rng.normal(0, 1, (nodes, recent, edge_dim))
    mem = rng.normal(0, 0.1, (nodes, memory))
    last = rng.uniform(500, 1000, nodes)
    f32, i32 = np.float32, np.int32
    pending = (jnp.asarray(pending[0], i32), jnp.asarray(pending[1], i32),
               jnp.asarray(pending[2], f32), jnp.asarray(pending[3], f32))
    batch = (jnp.asarray(src, i32), jnp.asarray(dst, i32), jnp.asarray(neg, i32),
             jnp.asarray(t, f32))
    table = (jnp.asarray(nbr, i32), jnp.asarray(nbr_t, f32), jnp.asarray(nbr_f, f32))
    flat = ravel_pytree(params)[0]
    return jax.jit(step).lower(flat, jnp.zeros_like(flat), jnp.asarray(mem, f32),
                               jnp.asarray(last, f32), pending, batch, table,
                               jax.random.PRNGKey(12))


def autoint_gradvac(batch: int = 128, fields: int = 20, numeric: int = 4, embed: int = 16,
                    heads: int = 2, head_dim: int = 16, layers: int = 3, tower: int = 128,
                    rate: float = 0.05, ema: float = 0.01) -> Any:
    """AutoInt (Song, Shi, Xiao et al.) for two tasks in the manner of ESMM (Ma et al.):
    the click-through and click-then-convert probabilities of 128 impressions with 20
    categorical fields (vocabularies of 50 to 5000, 40,000 rows in all, gathered from one
    table) and four numeric fields (each a value times a learned vector). Three
    interacting layers of two-head self-attention over the 24 field embeddings, with
    residual projections and ReLU, feed two towers, and the loss is the binary cross-
    entropy of clicks against p(click) plus that of conversions against p(click) times
    p(convert | click). The two tasks' gradients of the shared weights (the table and the
    interacting layers) are reconciled by Gradient Vaccine (GradVac; Wang, Tsvetkov,
    Firat and Cao): where their cosine similarity falls below its running target (an
    exponential average of past similarities), each is moved toward the other just
    enough to reach the target; the towers keep their own gradients, and AdaGrad takes
    the step."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.flatten_util import ravel_pytree

    rng = np.random.default_rng(13)
    sizes = np.maximum(50, (rng.dirichlet(np.ones(fields) * 0.8) * 40000).astype(int))
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rows = int(sizes.sum())
    slots = fields + numeric
    width = heads * head_dim
    shared_shapes: dict[str, tuple[int, ...]] = {"numeric": (numeric, embed)}
    last = embed
    for l in range(layers):
        shared_shapes.update({f"{l}q": (last, width), f"{l}k": (last, width),
                              f"{l}v": (last, width), f"{l}res": (last, width)})
        last = width
    shared = _params(shared_shapes, seed=13)
    shared["table"] = jnp.asarray(rng.normal(0, 0.05, (rows, embed)), jnp.float32)
    towers = {t: _params({"a": (slots * width, tower), "a_b": (tower,), "b": (tower, 1),
                          "b_b": (1,)}, seed=14 + i) for i, t in enumerate(("ctr", "cvr"))}
    params = {"shared": shared, "towers": towers}

    def interact(shared, ids, values):
        x = jnp.concatenate([shared["table"][ids + jnp.asarray(offsets)],
                             values[..., None] * shared["numeric"]], 1)       # (b, slots, e)
        for l in range(layers):
            b = x.shape[0]
            q, k, v = (x @ shared[f"{l}{n}"] for n in "qkv")
            q, k, v = (t.reshape(b, slots, heads, head_dim) for t in (q, k, v))
            att = jax.nn.softmax(jnp.einsum("bihd,bjhd->bhij", q, k), -1)
            out = jnp.einsum("bhij,bjhd->bihd", att, v).reshape(b, slots, width)
            x = jax.nn.relu(out + x @ shared[f"{l}res"])
        return x.reshape(x.shape[0], -1)

    def head(p, h):
        return (jax.nn.relu(h @ p["a"] + p["a_b"]) @ p["b"] + p["b_b"])[:, 0]

    def task_losses(params, ids, values, click, convert):
        h = interact(params["shared"], ids, values)
        ctr = jax.nn.sigmoid(head(params["towers"]["ctr"], h))
        cvr = jax.nn.sigmoid(head(params["towers"]["cvr"], h))

        def bce(p, y):
            p = jnp.clip(p, 1e-6, 1 - 1e-6)
            return -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))

        return jnp.stack([bce(ctr, click), bce(ctr * cvr, click * convert)])

    def step(params, state, ids, values, click, convert):
        sums, target = state
        losses, pull = jax.vjp(lambda p: task_losses(p, ids, values, click, convert), params)
        first, = pull(jnp.asarray([1.0, 0.0]))                   # one forward, two backwards
        second, = pull(jnp.asarray([0.0, 1.0]))
        g1, unravel = ravel_pytree(first["shared"])
        g2, _ = ravel_pytree(second["shared"])
        n1, n2 = jnp.linalg.norm(g1) + 1e-12, jnp.linalg.norm(g2) + 1e-12
        cos = g1 @ g2 / (n1 * n2)

        def vaccinate(gi, ni, gj, nj):
            lift = ni * (target * jnp.sqrt(1 - cos ** 2) - cos * jnp.sqrt(1 - target ** 2)) \
                / (nj * jnp.sqrt(1 - target ** 2) + 1e-12)
            return jnp.where(cos < target, gi + lift * gj, gi)

        combined = vaccinate(g1, n1, g2, n2) + vaccinate(g2, n2, g1, n1)
        target = (1 - ema) * target + ema * cos
        grads = {"shared": unravel(combined),
                 "towers": jax.tree.map(lambda a, b: a + b, first["towers"], second["towers"])}
        sums = jax.tree.map(lambda a, g: a + g * g, sums, grads)
        params = jax.tree.map(lambda w, g, a: w - rate * g / (jnp.sqrt(a) + 1e-8),
                              params, grads, sums)
        return params, (sums, target), losses, cos

    # impressions: clicks and conversions from a hidden logistic model of a few fields'
    # values and their pairwise interactions
    ids = np.stack([rng.integers(0, n, batch) for n in sizes], 1)
    values = rng.normal(0, 1, (batch, numeric))
    affinity = rng.normal(0, 1, (fields, 8))
    hidden = sum(np.sin(ids[:, f] * 0.37 + f) * affinity[f, 0] for f in range(fields))
    hidden += np.sin(ids[:, 0] * 0.11) * np.cos(ids[:, 1] * 0.07) * 2 + values[:, 0]
    click = (rng.uniform(size=batch) < 1 / (1 + np.exp(-(hidden / 3 - 1)))).astype(np.float32)
    convert = (rng.uniform(size=batch) < 1 / (1 + np.exp(-(values[:, 1] + np.sin(ids[:, 2]))))
               ).astype(np.float32)
    state = (jax.tree.map(lambda w: jnp.full(w.shape, 0.1, jnp.float32), params),
             jnp.asarray(0.0))
    return jax.jit(step).lower(params, state, jnp.asarray(ids, jnp.int32),
                               jnp.asarray(values, jnp.float32), jnp.asarray(click),
                               jnp.asarray(convert))


def plane_wave_beamforming(elements: int = 64, angles: int = 9, samples: int = 1024,
                           columns: int = 128, rows: int = 256, pitch: float = 3e-4,
                           sound: float = 1540.0, rate: float = 20e6, centre: float = 5e6,
                           f_number: float = 1.75, floor_db: float = -60.0) -> Any:
    """Ultrasound imaging by coherent plane-wave compounding (Montaldo, Tanter, Bercoff,
    Benech and Fink), no gradient: echoes of nine plane waves steered from -8 to 8
    degrees, recorded by a 64-element linear array at 20 MHz from a phantom of speckle,
    six bright points and an echo-free cyst (simulated beforehand), become analytic
    signals by an FFT that drops the negative frequencies; then, in a `lax.scan` over
    the angles, delay-and-sum beamforming of a 128x256 pixel grid: every pixel's
    transmit delay along the steered wave plus its receive distance to each element
    gives a fractional sample, read by linear interpolation between two gathered
    samples, weighted by a Hann apodization whose aperture grows with depth at F-number
    1.75, summed over the elements; the coherence factor of each angle's sum is kept
    too. The compounded image is envelope-detected and log-compressed to a 60 dB range;
    the image, the mean coherence factor and the cyst's contrast come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    xe = (np.arange(elements) - (elements - 1) / 2) * pitch
    half = xe[-1]
    thetas = np.deg2rad(np.linspace(-8, 8, angles))
    px = np.linspace(-half, half, columns)
    pz = np.linspace(5e-3, 38e-3, rows)

    def transmit(x, z, theta):
        return (z * np.cos(theta) + x * np.sin(theta) + half * np.abs(np.sin(theta))) / sound

    # the phantom and its echoes: a two-cycle Gaussian pulse per scatterer and channel
    rng = np.random.default_rng(15)
    count = 1500
    sx, sz = rng.uniform(-half, half, count), rng.uniform(4e-3, 40e-3, count)
    amp = rng.normal(0, 1, count)
    cyst = (sx - 2e-3) ** 2 + (sz - 22e-3) ** 2 < (4e-3) ** 2
    amp[cyst] = 0.0
    points = np.array([[-6e-3, 10e-3], [0, 14e-3], [6e-3, 18e-3], [-4e-3, 28e-3],
                       [4e-3, 32e-3], [-7e-3, 35e-3]])
    sx, sz = np.concatenate([sx, points[:, 0]]), np.concatenate([sz, points[:, 1]])
    amp = np.concatenate([amp, np.full(len(points), 8.0)])
    rf = np.zeros((angles, elements, samples), np.float32)
    window = np.arange(-12, 13)
    for a, theta in enumerate(thetas):
        delay = transmit(sx, sz, theta)[None, :] \
            + np.sqrt(sz[None, :] ** 2 + (sx[None, :] - xe[:, None]) ** 2) / sound
        at = delay * rate                                              # (elements, scatterers)
        idx = np.floor(at).astype(int)[..., None] + window
        t = (idx - at[..., None]) / rate
        pulse = np.exp(-(t * centre / 1.2) ** 2) * np.cos(2 * np.pi * centre * t) \
            * amp[None, :, None] / np.maximum(sz[None, :, None] * 1e2, 0.5)
        ok = (idx >= 0) & (idx < samples)
        chan = np.broadcast_to(np.arange(elements)[:, None, None], idx.shape)
        np.add.at(rf[a], (chan[ok], idx[ok]), pulse[ok])
    rf += 0.01 * rng.standard_normal(rf.shape).astype(np.float32)
    inside = ((px[None, :] - 2e-3) ** 2 + (pz[:, None] - 22e-3) ** 2) < (3e-3) ** 2
    around = (((px[None, :] - 2e-3) ** 2 + (pz[:, None] - 22e-3) ** 2) > (5e-3) ** 2) \
        & (np.abs(pz[:, None] - 22e-3) < 4e-3)

    gx, gz = jnp.asarray(px, jnp.float32)[None, :], jnp.asarray(pz, jnp.float32)[:, None]
    elem = jnp.asarray(xe, jnp.float32)

    def run(rf, theta):
        spectrum = jnp.fft.fft(rf, axis=-1)
        keep = np.zeros(samples)
        keep[0], keep[1:samples // 2], keep[samples // 2] = 1.0, 2.0, 1.0
        analytic = jnp.fft.ifft(spectrum * jnp.asarray(keep, jnp.float32), axis=-1)

        def one_angle(total, xs):
            channels, angle = xs                                       # (elements, samples)
            tx = (gz * jnp.cos(angle) + gx * jnp.sin(angle)
                  + half * jnp.abs(jnp.sin(angle))) / sound            # (rows, columns)
            lateral = gx[..., None] - elem                             # (1, columns, elements)
            rx = jnp.sqrt(gz[..., None] ** 2 + lateral ** 2) / sound
            where = (tx[..., None] + rx) * rate
            low = jnp.clip(jnp.floor(where).astype(jnp.int32), 0, samples - 2)
            frac = (where - low).astype(jnp.complex64)
            flat = low.reshape(-1, elements).T                         # (elements, pixels)
            a = jnp.take_along_axis(channels, flat, 1)
            b = jnp.take_along_axis(channels, flat + 1, 1)
            value = (a + (b - a) * frac.reshape(-1, elements).T).T.reshape(where.shape)
            reach = gz[..., None] / (2 * f_number)
            apod = jnp.where(jnp.abs(lateral) < reach,
                             0.5 + 0.5 * jnp.cos(jnp.pi * lateral / reach), 0.0)
            summed = jnp.sum(value * apod, -1)
            coherence = jnp.abs(summed) ** 2 / (elements * jnp.sum(jnp.abs(value * apod) ** 2, -1)
                                                + 1e-20)
            return total + summed, coherence

        start = jnp.zeros((rows, columns), jnp.complex64)
        image, coherence = lax.scan(one_angle, start, (analytic, theta))
        envelope = jnp.abs(image)
        db = jnp.maximum(20 * jnp.log10(envelope / jnp.max(envelope) + 1e-12), floor_db)
        def mean_over(mask):
            return jnp.sum(jnp.where(jnp.asarray(mask), envelope, 0.0)) / mask.sum()

        contrast = 20 * jnp.log10(mean_over(inside) / mean_over(around))
        return db, jnp.mean(coherence, 0), contrast

    return jax.jit(run).lower(jnp.asarray(rf), jnp.asarray(thetas, jnp.float32))


def lda_gibbs(docs: int = 320, length: int = 128, vocab: int = 1000, topics: int = 20,
              sweeps: int = 30, alpha: float = 0.1, beta: float = 0.01, top: int = 10) -> Any:
    """Latent Dirichlet allocation (Blei, Ng and Jordan) fitted by collapsed Gibbs
    sampling in the approximate-distributed form (AD-LDA; Newman, Asuncion, Smyth and
    Welling), no gradient: 320 documents of 128 words over a vocabulary of 1000, drawn
    beforehand from 20 topics. Each of 30 sweeps in a `fori_loop` recounts the
    document-topic counts (a sum of one-hot assignments), the word-topic counts (a
    `segment_sum` by word) and the topic totals from the current assignments, then
    resamples every token at once, its own assignment left out of the counts, from
    (n_dk + alpha)(n_wk + beta) / (n_k + V beta) by one uniform draw against the running
    sum of the weights (`cumsum`) per token. The estimated topic-word
    and document-topic distributions, the log-likelihood per word and each topic's ten
    most probable words (`top_k`) come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def counts(z, words):
        hot = jax.nn.one_hot(z, topics)                                # (docs, length, k)
        n_dk = jnp.sum(hot, 1)
        n_wk = jax.ops.segment_sum(hot.reshape(-1, topics), words.reshape(-1),
                                   num_segments=vocab)
        return hot, n_dk, n_wk, jnp.sum(n_dk, 0)

    def run(words, z, key):
        def sweep(i, z):
            hot, n_dk, n_wk, n_k = counts(z, words)
            doc = n_dk[:, None, :] - hot
            word = n_wk[words] - hot
            total = n_k - hot
            weight = (doc + alpha) * (word + beta) / (total + vocab * beta)
            running = jnp.cumsum(weight, -1)                           # inverse-CDF draw
            u = jax.random.uniform(jax.random.fold_in(key, i), z.shape) * running[..., -1]
            return jnp.minimum(jnp.sum(running < u[..., None], -1), topics - 1).astype(jnp.int32)

        z = lax.fori_loop(0, sweeps, sweep, z)
        _, n_dk, n_wk, n_k = counts(z, words)
        phi = (n_wk + beta) / (n_k + vocab * beta)                     # (vocab, k)
        theta = (n_dk + alpha) / (length + topics * alpha)             # (docs, k)
        likelihood = jnp.sum(theta[:, None, :] * phi[words], -1)
        per_word = jnp.mean(jnp.log(likelihood))
        _, best = lax.top_k(phi.T, top)
        return phi, theta, per_word, best, z

    rng = np.random.default_rng(16)
    truth = rng.dirichlet(np.full(vocab, 0.05), topics)
    mixes = rng.dirichlet(np.full(topics, alpha * 2), docs)
    words = np.zeros((docs, length), np.int32)
    for d in range(docs):
        which = rng.choice(topics, length, p=mixes[d])
        words[d] = [rng.choice(vocab, p=truth[t]) for t in which]
    start = rng.integers(0, topics, (docs, length))
    return jax.jit(run).lower(jnp.asarray(words), jnp.asarray(start, jnp.int32),
                              jax.random.PRNGKey(16))


def jaynes_cummings_lindblad(settings: int = 16, fock: int = 10, steps: int = 200,
                             dt: float = 0.05, coupling: float = 1.0, kappa: float = 0.1,
                             gamma: float = 0.05, drive: float = 0.2) -> Any:
    """An open Jaynes-Cummings system, a two-level atom in a weakly driven, leaky cavity
    (ten photon levels), under the Lindblad master equation for sixteen settings of the
    atom's and the cavity's detunings, no gradient, in complex64. The density matrices
    start with the atom excited and the cavity empty and advance by 200 classical
    Runge-Kutta steps in a `lax.scan`; the Lindbladian is applied matrix-free: the
    ladder operators acting from the left or right are shifts of the photon index
    scaled by square roots (`pad` and slices), the atomic operators swaps of the atom
    index, so that the commutator with the Hamiltonian (detunings, the atom-cavity
    exchange and the drive) and the dissipators of cavity loss (kappa) and spontaneous
    emission (gamma) need no matrix product. The photon number, the excited population,
    the trace and the purity at every step come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c64 = jnp.complex64
    up = jnp.asarray(np.sqrt(np.arange(1, fock)), jnp.float32)      # sqrt(n + 1), n < F - 1
    count = jnp.asarray(np.arange(fock), jnp.float32)

    # rho: (settings, atom, photon, atom', photon'); left operators act on axes 1-2,
    # right operators on axes 3-4
    def shift_down(x, axis, scale):
        """y[n] = scale[n] x[n + 1] (zero at the top): `a` from the left."""
        body = lax.slice_in_dim(x, 1, fock, axis=axis) * scale.reshape(
            (-1,) + (1,) * (x.ndim - axis - 1))
        pad = [(0, 0)] * x.ndim
        pad[axis] = (0, 1)
        return jnp.pad(body, pad)

    def shift_up(x, axis, scale):
        """y[n] = scale[n - 1] x[n - 1] (zero at the bottom): `a^dagger` from the left."""
        body = lax.slice_in_dim(x, 0, fock - 1, axis=axis) * scale.reshape(
            (-1,) + (1,) * (x.ndim - axis - 1))
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        return jnp.pad(body, pad)

    def a_left(r):
        return shift_down(r, 2, up)

    def adag_left(r):
        return shift_up(r, 2, up)

    def a_right(r):                          # (rho a)[m] = sqrt(m) rho[m - 1]
        return shift_up(r, 4, up)

    def adag_right(r):                       # (rho a^dagger)[m] = sqrt(m + 1) rho[m + 1]
        return shift_down(r, 4, up)

    def lower_left(r):                       # sigma- from the left: |g><e|
        return jnp.stack([r[:, 1], jnp.zeros_like(r[:, 0])], 1)

    def raise_left(r):                       # sigma+ from the left: |e><g|
        return jnp.stack([jnp.zeros_like(r[:, 0]), r[:, 0]], 1)

    def lower_right(r):                      # rho sigma-: column e takes column g
        return jnp.stack([jnp.zeros_like(r[:, :, :, 0]), r[:, :, :, 0]], 3)

    def raise_right(r):                      # rho sigma+: column g takes column e
        return jnp.stack([r[:, :, :, 1], jnp.zeros_like(r[:, :, :, 1])], 3)

    n_left = count[None, None, :, None, None]
    n_right = count[None, None, None, None, :]
    e_left = jnp.asarray([0.0, 1.0])[None, :, None, None, None]
    e_right = jnp.asarray([0.0, 1.0])[None, None, None, :, None]

    def lindbladian(r, cavity, atom):
        cav, at = cavity[:, None, None, None, None], atom[:, None, None, None, None]
        h_r = cav * n_left * r + at * e_left * r \
            + coupling * (adag_left(lower_left(r)) + a_left(raise_left(r))) \
            + drive * (a_left(r) + adag_left(r))
        r_h = cav * n_right * r + at * e_right * r \
            + coupling * (lower_right(adag_right(r)) + raise_right(a_right(r))) \
            + drive * (a_right(r) + adag_right(r))
        loss = adag_right(a_left(r)) - 0.5 * (n_left + n_right) * r
        emission = raise_right(lower_left(r)) - 0.5 * (e_left + e_right) * r
        return -1j * (h_r - r_h) + kappa * loss + gamma * emission

    def run(cavity, atom):
        r = jnp.zeros((settings, 2, fock, 2, fock), c64).at[:, 1, 0, 1, 0].set(1.0)

        def rk4(r, _):
            k1 = lindbladian(r, cavity, atom)
            k2 = lindbladian(r + 0.5 * dt * k1, cavity, atom)
            k3 = lindbladian(r + 0.5 * dt * k2, cavity, atom)
            k4 = lindbladian(r + dt * k3, cavity, atom)
            r = r + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            diag = jnp.real(jnp.einsum("bsnsn->bsn", r))
            flat = r.reshape(settings, 2 * fock, 2 * fock)
            purity = jnp.real(jnp.einsum("bij,bji->b", flat, flat))
            return r, (jnp.sum(diag * count, (1, 2)), jnp.sum(diag[:, 1], -1),
                       jnp.sum(diag, (1, 2)), purity)

        r, (photons, excited, trace, purity) = lax.scan(rk4, r, None, length=steps)
        return r, photons.T, excited.T, trace.T, purity.T

    grid = np.linspace(-1.5, 1.5, int(math.sqrt(settings)))
    cavity, atom = np.meshgrid(grid, grid)
    return jax.jit(run).lower(jnp.asarray(cavity.reshape(-1), jnp.float32),
                              jnp.asarray(atom.reshape(-1), jnp.float32))


def histogram_boosting(samples: int = 16384, features: int = 16, bins: int = 32, trees: int = 32,
                       depth: int = 4, shrinkage: float = 0.2, lam: float = 1.0,
                       min_hessian: float = 1.0) -> Any:
    """Gradient-boosted decision trees grown from histograms, as LightGBM and XGBoost's
    hist method grow them, for a binary label of 16,384 samples with 16 features, no
    gradient: every feature is cut into 32 bins at its quantiles (a sort of each
    column, the cut points gathered, each value's bin counted against them); then 32
    trees of depth four in a `fori_loop`, each from the logistic loss's gradients and
    Hessians at the current scores. Level by level, the gradient and Hessian sums of
    every node, feature and bin come from one `segment_sum` over all sample-feature
    pairs, running sums over the bins give every split's left and right totals, the
    gain of the best split per node is taken by `argmax` (splits leaving less than a
    unit of Hessian on a side are barred), and the samples move to their children by a
    gathered comparison; the leaves get Newton steps -G / (H + lambda), shrunk by 0.2.
    The trees' splits and leaves, the training loss after every tree and the accuracy
    come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    leaves = 2 ** depth

    def run(x, y):
        ordered = jnp.sort(x, 0)
        picks = ((np.arange(1, bins) * samples) // bins).astype(np.int32)
        cuts = ordered[picks]                                         # (bins - 1, features)
        binned = jnp.sum(x[:, None, :] > cuts[None, :, :], 1).astype(jnp.int32)
        feature_ids = jnp.arange(features)[None, :]

        def grow(t, carry):
            score, splits, values, losses = carry
            prob = jax.nn.sigmoid(score)
            g, h = prob - y, prob * (1 - prob)
            node = jnp.zeros(samples, jnp.int32)
            chosen = []
            for level in range(depth):
                width = 2 ** level
                key = (node[:, None] * features + feature_ids) * bins + binned
                stats = jnp.stack([jnp.broadcast_to(g[:, None], key.shape),
                                   jnp.broadcast_to(h[:, None], key.shape)], -1)
                hist = jax.ops.segment_sum(stats.reshape(-1, 2), key.reshape(-1),
                                           num_segments=width * features * bins)
                hist = hist.reshape(width, features, bins, 2)
                left = jnp.cumsum(hist, 2)[:, :, :-1]                  # split after bin b
                total = jnp.sum(hist, 2)[:, :, None]
                right = total - left
                gain = left[..., 0] ** 2 / (left[..., 1] + lam) \
                    + right[..., 0] ** 2 / (right[..., 1] + lam) \
                    - total[..., 0] ** 2 / (total[..., 1] + lam)
                allowed = (left[..., 1] >= min_hessian) & (right[..., 1] >= min_hessian)
                gain = jnp.where(allowed, gain, -jnp.inf).reshape(width, -1)
                best = jnp.argmax(gain, -1)
                feature, cut = best // (bins - 1), best % (bins - 1)
                chosen.append(jnp.stack([feature, cut], -1))
                mine = jnp.take_along_axis(binned, feature[node][:, None], 1)[:, 0]
                node = 2 * node + (mine > cut[node]).astype(jnp.int32)
            grad_sum = jax.ops.segment_sum(g, node, num_segments=leaves)
            hess_sum = jax.ops.segment_sum(h, node, num_segments=leaves)
            leaf = -shrinkage * grad_sum / (hess_sum + lam)
            score = score + leaf[node]
            loss = jnp.mean(jax.nn.softplus(score) - y * score)
            splits = splits.at[t].set(jnp.concatenate(chosen, 0))
            return score, splits, values.at[t].set(leaf), losses.at[t].set(loss)

        carry = (jnp.zeros(samples), jnp.zeros((trees, leaves - 1, 2), jnp.int32),
                 jnp.zeros((trees, leaves)), jnp.zeros(trees))
        score, splits, values, losses = lax.fori_loop(0, trees, grow, carry)
        accuracy = jnp.mean(((score > 0) == (y > 0.5)).astype(jnp.float32))
        return cuts, splits, values, losses, accuracy

    rng = np.random.default_rng(17)
    x = rng.normal(0, 1, (samples, features))
    x[:, 3] = rng.exponential(1.0, samples)                           # a skewed feature
    logit = 1.5 * np.sin(2 * x[:, 0]) + x[:, 1] * x[:, 2] - 0.8 * np.log1p(x[:, 3]) \
        + np.where(x[:, 4] > 0.5, 1.0, -0.5) + 0.3 * x[:, 5]
    y = (rng.uniform(size=samples) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(x, jnp.float32), jnp.asarray(y))


def izhikevich_stdp(excitatory: int = 320, inhibitory: int = 80, fanout: int = 40,
                    duration: int = 400, every: int = 100, tau: float = 20.0,
                    potentiate: float = 0.1, depress: float = 0.12) -> Any:
    """A cortical network of 400 Izhikevich neurons (320 regular-spiking excitatory, 80
    fast-spiking inhibitory, each reaching 40 random targets) with spike-timing-dependent
    plasticity of the excitatory synapses, simulated for 400 ms, no gradient: each 1 ms
    step in a `fori_loop` draws thalamic noise, integrates the membrane equation
    v' = 0.04 v^2 + 5 v + 140 - u + I in two half steps and the recovery variable u,
    resets the neurons that crossed 30 mV, sums the synaptic input of the next step from
    this step's spikes (a matrix-vector product), decays exponential pre- and
    postsynaptic traces (20 ms), and accumulates the STDP derivative: potentiation of the
    synapses onto every neuron that fired by their presynaptic traces, depression of the
    synapses from every neuron that fired by their postsynaptic traces. Every 100 ms the
    derivative is applied to the excitatory weights, clipped to [0, 10], and decays. The
    spike counts, the population rate in 5 ms bins, a histogram of the excitatory weights
    and their mean come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = excitatory + inhibitory
    is_exc = np.arange(n) < excitatory
    a = jnp.asarray(np.where(is_exc, 0.02, 0.1), jnp.float32)
    d = jnp.asarray(np.where(is_exc, 8.0, 2.0), jnp.float32)
    noise_scale = jnp.asarray(np.where(is_exc, 5.0, 2.0), jnp.float32)
    plastic = jnp.asarray(is_exc[:, None], jnp.float32)               # rows: presynaptic
    decay = math.exp(-1.0 / tau)

    def run(weights, connected, key):
        def tick(t, state):
            v, u, drive, pre, post, slope, w, counts, rate = state
            current = noise_scale * jax.random.normal(jax.random.fold_in(key, t), (n,)) + drive
            for _ in range(2):                                         # two half steps
                v = v + 0.5 * (0.04 * v * v + 5.0 * v + 140.0 - u + current)
            u = u + a * (0.2 * v - u)
            fired = v >= 30.0
            spikes = fired.astype(jnp.float32)
            v = jnp.where(fired, -65.0, v)
            u = jnp.where(fired, u + d, u)
            drive = spikes @ w
            pre, post = pre * decay + spikes, post * decay + spikes
            # potentiation onto the neurons that fired, depression from those that fired
            slope = slope + connected * plastic * (
                potentiate * pre[:, None] * spikes[None, :]
                - depress * spikes[:, None] * post[None, :])
            apply = (t % every) == every - 1
            w = jnp.where(apply & (plastic > 0),
                          jnp.clip(w + connected * (0.01 + slope), 0.0, 10.0), w)
            slope = jnp.where(apply, 0.9 * slope, slope)
            rate = rate.at[t // 5].add(jnp.sum(spikes))
            return v, u, drive, pre, post, slope, w, counts + spikes, rate

        zeros = jnp.zeros(n)
        state = (jnp.full(n, -65.0), 0.2 * jnp.full(n, -65.0), zeros, zeros, zeros,
                 jnp.zeros((n, n)), weights, zeros, jnp.zeros(duration // 5))
        _, _, _, _, _, _, w, counts, rate = lax.fori_loop(0, duration, tick, state)
        exc = w[:excitatory] * connected[:excitatory]
        edges = jnp.clip(jnp.floor(exc), 0, 9).astype(jnp.int32)
        histogram = jax.ops.segment_sum(connected[:excitatory].reshape(-1),
                                        edges.reshape(-1), num_segments=10)
        mean = jnp.sum(exc) / jnp.sum(connected[:excitatory])
        return counts, rate, histogram, mean

    rng = np.random.default_rng(18)
    connected = np.zeros((n, n), np.float32)
    for i in range(n):
        targets = rng.choice(np.delete(np.arange(n), i) if is_exc[i]
                             else np.arange(excitatory), fanout, replace=False)
        connected[i, targets] = 1.0
    weights = connected * np.where(is_exc, 6.0, -5.0)[:, None]
    return jax.jit(run).lower(jnp.asarray(weights, jnp.float32), jnp.asarray(connected),
                              jax.random.PRNGKey(18))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "mdlm_swag/4x256-d128-l3-bf16": mdlm_swag,
    "byol_acprop/12x2x32px-24-48-96-f16": byol_acprop,
    "grpo_clipup/6x8-completions-d64-l2-bf16": grpo_clipup,
    "dora_kron_whitening/8x64-d96-l3-r8-bf16": dora_kron_whitening,
    "hypergraph_gossip/2048-nodes-1200-edges-4-workers": hypergraph_gossip,
    "monarch_fedprox/4-clients-3x2x144-d64": monarch_fedprox,
    "unrolled_gan/128x2d-w128-5-unrolled": unrolled_gan,
    "predictive_coding/128x784-256-128-10-24-iterations": predictive_coding,
    "tgn_curvature/64-events-1536-nodes-m48": tgn_curvature_step,
    "autoint_gradvac/128x24-fields-3-layers": autoint_gradvac,
    "plane_wave_beamforming/9x64x1024-128x256px": plane_wave_beamforming,
    "lda_gibbs/320x128-words-20-topics-30-sweeps": lda_gibbs,
    "jaynes_cummings_lindblad/16x2x10-200-steps": jaynes_cummings_lindblad,
    "histogram_boosting/16384x16-32-trees-d4": histogram_boosting,
    "izhikevich_stdp/400-neurons-400ms": izhikevich_stdp,
}
