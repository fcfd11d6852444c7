"""The twenty-eighth never-seen set: programs written on 2026-11-28, after the
twenty-seventh set (benchmarks/never_seen_27/), and never used to choose anything: no
feature, default, fallback threshold or model was picked by looking at them. They are here
to judge one trained model, once. The SHA-256 of this file is committed next to it
(`SHA256`), and `fresh_programs.py --set never-seen-28` refuses to run when the two
disagree, since an edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the
twenty-seven earlier never-seen sets contain. Two training steps are large, a few
gigaflops each (the volumetric U-Net and BigBird); the others are mid-sized. Ten are
training steps, two of them without an ordinary backward pass through the whole network
(synthetic gradients, and the selective BART step that scores its batch first), one with
Hessian-vector products inside a loop (cubic regularization) and one with a Jacobian-vector
and a vector-Jacobian product of a gradient (symplectic gradient adjustment); the dtypes
are float32, bfloat16 (FNet, BigBird and BART) and complex64 (the Kuramoto-Sivashinsky
solver).

A 3-D U-Net, the set's first in three dimensions, segments noisy volumes of blobs and
tubes with strided and transposed 3-D convolutions under cross-entropy and soft Dice,
stepped by SGD-SaI, whose per-tensor step sizes are fixed once from the gradients'
signal-to-noise ratios at the first step. FNet replaces attention by the real part of a
2-D Fourier transform and learns the period of noisy motifs in bfloat16, while six
simulated workers send gradients and one of them lies; Multi-Krum keeps the two whose
nearest neighbours are closest. BigBird mixes global, sliding-window and random key blocks
gathered per query block in a bfloat16 masked language model trained by ReLoRA, low-rank
adapters merged into frozen weights every 200 steps under `lax.cond`. FCOS detects shapes
without anchors, assigning every feature-map location to the smallest box around it inside
the step, its focal, IoU and centre-ness losses weighed by learned uncertainties. CQL
learns conservative twin critics from logged transitions with a log-sum-exp over sampled
actions, its penalty weight a Lagrange multiplier that climbs while the critics' gap stays
too wide. The deep BSDE method solves a 50-dimensional Allen-Cahn equation along Brownian
paths with a network per time step in a `lax.scan`, trained by adaptive cubic
regularization (a cubic model minimized by Hessian-vector products in a `fori_loop`, a
trial loss, a regularization weight that halves or doubles). A LambdaResNet summarizes
context into linear lambdas, its position lambdas a 3-D convolution over values and
pixels, and learns by Anderson acceleration of gradient steps. Decoupled neural
interfaces train each layer of an MLP on glyphs from a synthetic gradient predicted by a
small module, the modules fitted to bootstrapped targets. InfoGAN learns glyphs with
categorical and continuous codes recovered by a Q head, the two players moved together by
symplectic gradient adjustment over RMSProp. BART denoises permuted, span-masked documents
in bfloat16 and backpropagates only the half of the batch it restores worst.

Five are scientific or algorithmic steps without a gradient: the Kuramoto-Sivashinsky
equation by ETDRK4 in complex64 (contour-integral coefficients, complex FFTs, a
`fori_loop` of steps inside a `lax.scan` of records); Richardson-Lucy deconvolution with a
total-variation term (depthwise 2-D convolutions with a kernel and its mirror image in a
`fori_loop`, divergences by `roll`s, Poisson deviances); betweenness centrality by
Brandes' algorithm from 64 sources at once (breadth-first levels and the dependency
accumulation as dense matrix products in two `fori_loop`s, `top_k`); replica-exchange
Monte Carlo of Edwards-Anderson spin glasses (checkerboard Metropolis half-sweeps with
random numbers drawn in a `fori_loop`, configurations swapped between temperatures by
gathers, Binder ratios); and the inside algorithm with Viterbi CKY for a random PCFG
(a `fori_loop` over span widths, gathered sub-spans, einsums over split points and rule
tables, scatters that drop spans past the sentence's end).

The updates new to these sets: SGD-SaI, Multi-Krum (Byzantine-robust aggregation), ReLoRA,
learned uncertainty weighting of task losses (over Adam), a Lagrangian CQL weight by dual
ascent, adaptive cubic regularization, Anderson acceleration, decoupled neural interfaces
(synthetic gradients), symplectic gradient adjustment (over RMSProp) and loss-based
selective backpropagation (over AdamW).
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")


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


def _group_norm(x: Any, gain: Any, shift: Any, groups: int) -> Any:
    """Group norm of a channels-last map: float32 statistics over the spatial axes and
    the channels of each of `groups` groups, then a gain and shift per channel."""
    import jax.numpy as jnp
    from jax import lax

    shape = x.shape
    g = x.astype(jnp.float32).reshape(shape[:-1] + (groups, shape[-1] // groups))
    axes = tuple(range(1, len(shape) - 1)) + (len(shape),)
    mean = jnp.mean(g, axes, keepdims=True)
    var = jnp.mean(jnp.square(g - mean), axes, keepdims=True)
    g = ((g - mean) * lax.rsqrt(var + 1e-5)).reshape(shape)
    return (g * gain + shift).astype(x.dtype)


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


def _textures(rng: Any, count: int, side: int, classes: int) -> tuple[Any, Any]:
    """numpy colour pictures (count, side, side, 3) in [0, 1] and int32 labels: class c
    is a texture family (gratings, checkers, dots, rings or waves, by c % 5) at an
    orientation band and frequency band set by c // 5, each picture with its own phase,
    colours and noise."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, side, side, 3), np.float32)
    for i, label in enumerate(labels):
        family, band = label % 5, label // 5
        angle = rng.uniform(0, np.pi / 2) + band * np.pi / 2
        freq = rng.uniform(3, 5) * (1 + band)
        u = np.cos(angle) * xx + np.sin(angle) * yy
        w = -np.sin(angle) * xx + np.cos(angle) * yy
        phase = rng.uniform(0, 2 * np.pi)
        if family == 0:
            field = np.sin(2 * np.pi * freq * u + phase)
        elif family == 1:
            field = np.sign(np.sin(2 * np.pi * freq * u + phase) * np.sin(2 * np.pi * freq * w))
        elif family == 2:
            field = np.cos(2 * np.pi * freq * u + phase) * np.cos(2 * np.pi * freq * w + phase)
            field = np.where(field > 0.5, 1.0, -1.0)
        elif family == 3:
            c = rng.uniform(0.3, 0.7, 2)
            field = np.sin(2 * np.pi * freq * np.hypot(xx - c[0], yy - c[1]) + phase)
        else:
            field = np.sin(2 * np.pi * freq * u + 2.0 * np.sin(2 * np.pi * 2 * w) + phase)
        a, b = rng.uniform(0, 1, 3), rng.uniform(0, 1, 3)
        picture = a + (b - a) * (0.5 + 0.5 * field)[..., None]
        out[i] = np.clip(picture + 0.05 * rng.standard_normal(picture.shape), 0, 1)
    return out, labels.astype(np.int32)


def _volumes(rng: Any, count: int, side: int) -> tuple[Any, Any]:
    """numpy volumes (count, side, side, side, 1) and int32 label volumes: a few
    ellipsoidal blobs (label 1) and tubes along random segments (label 2) in a noisy
    background under a smooth multiplicative bias field, the tubes brighter than the
    blobs."""
    import numpy as np

    zz, yy, xx = (np.mgrid[0:side, 0:side, 0:side] + 0.5) / side
    images = np.zeros((count, side, side, side, 1), np.float32)
    labels = np.zeros((count, side, side, side), np.int32)
    for i in range(count):
        label = np.zeros((side, side, side), np.int32)
        for _ in range(rng.integers(2, 5)):
            c = rng.uniform(0.2, 0.8, 3)
            r = rng.uniform(0.08, 0.2, 3)
            inside = ((zz - c[0]) / r[0]) ** 2 + ((yy - c[1]) / r[1]) ** 2 \
                + ((xx - c[2]) / r[2]) ** 2 < 1
            label[inside] = 1
        for _ in range(rng.integers(1, 3)):
            a, b = rng.uniform(0.05, 0.95, 3), rng.uniform(0.05, 0.95, 3)
            d = b - a
            t = np.clip(((zz - a[0]) * d[0] + (yy - a[1]) * d[1] + (xx - a[2]) * d[2])
                        / np.sum(d * d), 0, 1)
            gap = np.sqrt((zz - a[0] - t * d[0]) ** 2 + (yy - a[1] - t * d[1]) ** 2
                          + (xx - a[2] - t * d[2]) ** 2)
            label[gap < rng.uniform(0.04, 0.07)] = 2
        k = rng.uniform(1, 3, 3)
        bias = 1 + 0.3 * np.sin(k[0] * zz + k[1] * yy + k[2] * xx)
        level = np.choose(label, [0.2, 0.55, 0.9])
        images[i, ..., 0] = level * bias + 0.12 * rng.standard_normal(label.shape)
        labels[i] = label
    return images, labels


def unet3d_sgd_sai(batch: int = 2, side: int = 24, widths: tuple[int, ...] = (12, 24, 48),
                   classes: int = 3, rate: float = 0.05, momentum: float = 0.9,
                   decay: float = 1e-4) -> Any:
    """A 3-D U-Net segments 24^3 volumes into background, ellipsoidal blobs and thin
    tubes (noisy intensities under a smooth bias field): two 3x3x3 convolutions with
    instance norm and leaky ReLU per level at 12, 24 and 48 channels, 2x2x2 strided
    convolutions down, 2x2x2 transposed convolutions of stride two up, skip connections
    concatenated, and a 1x1x1 head, under cross-entropy plus the soft Dice loss of the two
    foreground classes. The update is SGD-SaI (learning-rate scaling at initialization,
    after Xu et al.): the signal-to-noise ratio of every tensor's gradient (its norm over
    its standard deviation) is taken at the first step only and, relative to the largest,
    fixes that tensor's step size for good; after that, momentum SGD with decoupled weight
    decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {}
    last = 1
    for s, w in enumerate(widths):
        shapes.update({f"e{s}a": (3, 3, 3, last, w), f"e{s}a_g": (w,), f"e{s}a_b": (w,),
                       f"e{s}b": (3, 3, 3, w, w), f"e{s}b_g": (w,), f"e{s}b_b": (w,)})
        if s + 1 < len(widths):
            shapes[f"down{s}"] = (2, 2, 2, w, widths[s + 1])
            last = widths[s + 1]
    for s in reversed(range(len(widths) - 1)):
        w = widths[s]
        shapes.update({f"up{s}": (2, 2, 2, widths[s + 1], w),
                       f"d{s}a": (3, 3, 3, 2 * w, w), f"d{s}a_g": (w,), f"d{s}a_b": (w,),
                       f"d{s}b": (3, 3, 3, w, w), f"d{s}b_g": (w,), f"d{s}b_b": (w,)})
    shapes["head"] = (1, 1, 1, widths[0], classes)
    shapes["head_b"] = (classes,)
    params = _weights(shapes, seed=1, scale=math.sqrt(2.0))

    def unit(p, k, x):
        x = _normalize(_conv(x, p[k]), p[f"{k}_g"], p[f"{k}_b"], (1, 2, 3))
        return jax.nn.leaky_relu(x, 0.01)

    def forward(p, x):
        skips = []
        for s in range(len(widths)):
            x = unit(p, f"e{s}b", unit(p, f"e{s}a", x))
            if s + 1 < len(widths):
                skips.append(x)
                x = _conv(x, p[f"down{s}"], stride=2, padding="VALID")
        for s in reversed(range(len(widths) - 1)):
            x = lax.conv_transpose(x, p[f"up{s}"], (2, 2, 2), "SAME",
                                   dimension_numbers=("NDHWC", "DHWIO", "NDHWC"))
            x = jnp.concatenate([x, skips[s]], -1)
            x = unit(p, f"d{s}b", unit(p, f"d{s}a", x))
        return _conv(x, p["head"]) + p["head_b"]

    def loss_fn(p, x, y):
        logits = forward(p, x)
        probs = jax.nn.softmax(logits, -1)
        onehot = jax.nn.one_hot(y, classes)
        axes = (1, 2, 3)
        overlap = jnp.sum(probs * onehot, axes)
        dice = (2 * overlap + 1.0) / (jnp.sum(probs, axes) + jnp.sum(onehot, axes) + 1.0)
        return jnp.mean(_xent(logits, y)) + jnp.mean(1 - dice[:, 1:])

    def step(p, state, x, y):
        velocity, scales, t = state
        loss, grads = jax.value_and_grad(loss_fn)(p, x, y)
        names = sorted(grads)
        # the gradient signal-to-noise ratio of every tensor, taken once at the first step
        snr = jnp.stack([jnp.linalg.norm(grads[k]) / (jnp.std(grads[k]) + 1e-8) for k in names])
        fresh = snr / jnp.max(snr)
        scales = jnp.where(t == 0, fresh, scales)
        scale = {k: scales[i] for i, k in enumerate(names)}
        velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, grads)
        p = {k: p[k] * (1 - rate * decay) - rate * scale[k] * velocity[k] for k in p}
        return p, (velocity, scales, t + 1), loss

    rng = np.random.default_rng(1)
    x, y = _volumes(rng, batch, side)
    state = (_zeros_like(params), jnp.ones(len(params), jnp.float32), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, state, jnp.asarray(x), jnp.asarray(y))


def _rhythms(rng: Any, count: int, length: int, vocab: int, periods: tuple[int, ...]
             ) -> tuple[Any, Any]:
    """numpy int32 token streams (count, length) and labels: class c repeats a random
    motif of periods[c] tokens from a random phase, a fifth of the tokens replaced by
    random ones and now and then a motif token skipped (a shift of the rest)."""
    import numpy as np

    labels = rng.integers(0, len(periods), count)
    out = np.zeros((count, length), np.int32)
    for i, label in enumerate(labels):
        motif = rng.integers(0, vocab, periods[label])
        stream, k = [], int(rng.integers(0, periods[label]))
        while len(stream) < length:
            if rng.uniform() < 0.03:
                k += 1
            stream.append(motif[k % len(motif)])
            k += 1
        stream = np.asarray(stream)
        noise = rng.uniform(size=length) < 0.2
        stream[noise] = rng.integers(0, vocab, noise.sum())
        out[i] = stream
    return out, labels.astype(np.int32)


def fnet_krum(workers: int = 6, per: int = 2, length: int = 128, width: int = 64,
              hidden: int = 192, layers: int = 3, vocab: int = 32, chosen: int = 2,
              rate: float = 0.05, momentum: float = 0.9) -> Any:
    """FNet (Lee-Thorp, Ainslie, Eckstein and Ontanon) in bfloat16 tells apart token
    streams by the period of their noisy repeated motifs (3, 4, 5 or 7): each of three
    post-norm layers mixes tokens by the real part of a 2-D FFT over positions and
    features (taken in float32, as there is no bfloat16 FFT) in place of attention,
    followed by a GELU feed-forward layer, then mean pooling and a tanh pooler. Six
    workers under `vmap` take the gradients of their own two streams; the last worker is
    Byzantine and sends its gradient flipped and scaled by four. The server aggregates by
    Multi-Krum (Blanchard, El Mhamdi, Guerraoui and Stainer): pairwise squared distances
    of the flattened gradients from one Gram matrix, every worker scored by the sum of
    its three nearest distances (a `sort` per row), and the two best-scored gradients
    (`argsort`) averaged into float32 momentum SGD on master weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.flatten_util import ravel_pytree

    bf16, f32 = jnp.bfloat16, jnp.float32
    periods = (3, 4, 5, 7)
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for l in range(layers):
        shapes.update({f"{l}mix_g": (width,), f"{l}mix_b": (width,),
                       f"{l}up": (width, hidden), f"{l}up_b": (hidden,),
                       f"{l}down": (hidden, width), f"{l}down_b": (width,),
                       f"{l}ffn_g": (width,), f"{l}ffn_b": (width,)})
    shapes.update({"pool": (width, width), "pool_b": (width,), "out": (width, len(periods))})
    params = _weights(shapes, seed=2, dtype=bf16)
    flat, unravel = ravel_pytree(params)

    def loss_fn(p, tokens, labels):
        x = p["embed"][tokens] + p["pos"]
        for l in range(layers):
            # Fourier token mixing: the real part of a 2-D FFT over tokens and features
            mixed = jnp.real(jnp.fft.fft2(x.astype(f32))).astype(bf16)
            x = _normalize(x + mixed, p[f"{l}mix_g"], p[f"{l}mix_b"])
            h = jax.nn.gelu(x @ p[f"{l}up"] + p[f"{l}up_b"]) @ p[f"{l}down"] + p[f"{l}down_b"]
            x = _normalize(x + h, p[f"{l}ffn_g"], p[f"{l}ffn_b"])
        pooled = jnp.tanh(jnp.mean(x, 1) @ p["pool"] + p["pool_b"])
        return jnp.mean(_xent(pooled @ p["out"], labels))

    def step(master, velocity, tokens, labels):
        p = unravel(master.astype(bf16))
        losses, grads = jax.vmap(jax.value_and_grad(loss_fn), (None, 0, 0))(p, tokens, labels)
        g = jax.vmap(lambda tree: ravel_pytree(tree)[0])(grads).astype(f32)
        # the last worker is Byzantine: it sends its gradient flipped and scaled
        g = g.at[-1].multiply(-4.0)
        square = jnp.sum(g * g, 1)
        dist = square[:, None] + square[None, :] - 2 * g @ g.T
        dist = jnp.where(jnp.eye(workers, dtype=bool), jnp.inf, dist)
        nearest = jnp.sort(dist, 1)[:, :workers - 3]          # n - f - 2 neighbours, f = 1
        score = jnp.sum(nearest, 1)
        best = jnp.argsort(score)[:chosen]
        update = jnp.mean(g[best], 0)
        velocity = momentum * velocity + update
        return master - rate * velocity, velocity, jnp.mean(losses), best

    rng = np.random.default_rng(2)
    tokens, labels = _rhythms(rng, workers * per, length, vocab, periods)
    return jax.jit(step).lower(flat.astype(f32), jnp.zeros(flat.size, f32),
                               jnp.asarray(tokens.reshape(workers, per, length)),
                               jnp.asarray(labels.reshape(workers, per)))


def _copy_text(rng: Any, count: int, length: int, vocab: int) -> Any:
    """numpy int32 (count, length) token streams with long-range structure: a random
    first third, then stretches that copy earlier spans (from anywhere before them, of
    8 to 40 tokens, sometimes with one token changed) alternating with short random
    filler."""
    import numpy as np

    out = np.zeros((count, length), np.int32)
    for i in range(count):
        start = length // 3
        seq = list(rng.integers(4, vocab, start))
        while len(seq) < length:
            span = int(rng.integers(8, 41))
            src = int(rng.integers(0, len(seq) - span)) if len(seq) > span else 0
            piece = list(seq[src:src + span])
            if rng.uniform() < 0.3:
                piece[int(rng.integers(len(piece)))] = int(rng.integers(4, vocab))
            seq += piece + list(rng.integers(4, vocab, int(rng.integers(1, 6))))
        out[i] = seq[:length]
    return out


def bigbird_relora(batch: int = 2, length: int = 768, block: int = 32, width: int = 128,
                   heads: int = 4, layers: int = 2, hidden: int = 512, vocab: int = 96,
                   rank: int = 16, every: int = 200, warm: int = 20, rate: float = 2e-3) -> Any:
    """A BigBird masked language model (Zaheer et al.) in bfloat16 over 768-token
    streams whose later parts copy earlier spans: every 32-token query block attends to
    the two global blocks (the first and the last), its sliding window of three blocks
    and two random blocks fixed per layer, all gathered into one dense block of keys with
    repeats masked out, while the two global blocks attend to everything. It is
    pretrained by ReLoRA (Lialin, Shivagunde, Muckatira and Rumshisky): the attention and
    feed-forward matrices are frozen bfloat16 weights plus trained rank-16 products A B
    (B starting at zero), the embeddings and norms trained fully, by AdamW on a jagged
    schedule (cosine decay, a short warm-up after every merge); every 200th step a
    `lax.cond` merges the products into the frozen weights, redraws A from a key, zeroes
    B and resets the adapters' moments."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    blocks, dh = length // block, width // heads
    adapted = {"qkv": (width, 3 * width), "o": (width, width), "up": (width, hidden),
               "down": (hidden, width)}
    frozen_shapes: dict[str, tuple[int, ...]] = {}
    train_shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for l in range(layers):
        for k, shape in adapted.items():
            frozen_shapes[f"{l}{k}"] = shape
            train_shapes[f"{l}{k}A"] = (shape[0], rank)
            train_shapes[f"{l}{k}B_z"] = (rank, shape[1])
        train_shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}n2_g": (width,),
                             f"{l}n2_b": (width,), f"{l}up_b": (hidden,), f"{l}down_b": (width,)})
    train_shapes.update({"nf_g": (width,), "nf_b": (width,)})
    frozen = _weights(frozen_shapes, seed=3, dtype=bf16)
    trained = _weights(train_shapes, seed=4)

    # per layer, the key blocks of every query block: two global blocks (first and last),
    # the sliding window and two random blocks; repeats are masked out
    rng = np.random.default_rng(3)
    index = np.zeros((layers, blocks, 7), np.int32)
    keep = np.ones((layers, blocks, 7), bool)
    for l in range(layers):
        for i in range(blocks):
            window = [max(i - 1, 0), i, min(i + 1, blocks - 1)]
            others = [j for j in range(1, blocks - 1) if j not in window]
            picks = list(rng.choice(others, 2, replace=False))
            row = [0, blocks - 1] + window + picks
            index[l, i] = row
            seen: set[int] = set()
            for j, b in enumerate(row):
                keep[l, i, j] = b not in seen
                seen.add(b)
    index_j, keep_j = jnp.asarray(index), jnp.asarray(np.repeat(keep, block, -1))

    def matrix(frozen, p, l, k):
        return frozen[f"{l}{k}"] + (p[f"{l}{k}A"] @ p[f"{l}{k}B_z"]).astype(bf16)

    def attend(q, k, v, l):
        b = q.shape[0]
        qb, kb, vb = (t.reshape(b, heads, blocks, block, dh) for t in (q, k, v))
        kg = kb[:, :, index_j[l]].reshape(b, heads, blocks, 7 * block, dh)
        vg = vb[:, :, index_j[l]].reshape(b, heads, blocks, 7 * block, dh)
        scores = jnp.einsum("bhnqd,bhnkd->bhnqk", qb, kg).astype(f32) / math.sqrt(dh)
        scores = jnp.where(keep_j[l][None, None, :, None, :], scores, -1e9)
        out = jnp.einsum("bhnqk,bhnkd->bhnqd", jax.nn.softmax(scores, -1).astype(bf16), vg)
        # the two global blocks attend to every token
        qg = qb[:, :, jnp.asarray([0, blocks - 1])]
        full = jnp.einsum("bhgqd,bhkd->bhgqk", qg, k).astype(f32) / math.sqrt(dh)
        glob = jnp.einsum("bhgqk,bhkd->bhgqd", jax.nn.softmax(full, -1).astype(bf16), v)
        out = out.at[:, :, 0].set(glob[:, :, 0]).at[:, :, -1].set(glob[:, :, 1])
        return out.reshape(b, heads, length, dh).transpose(0, 2, 1, 3).reshape(b, length, width)

    def loss_fn(p, frozen, tokens, targets, weights):
        pb = jax.tree.map(lambda w: w.astype(bf16), p)
        x = pb["embed"][tokens] + pb["pos"]
        for l in range(layers):
            h = _normalize(x, pb[f"{l}n1_g"], pb[f"{l}n1_b"])
            q, k, v = jnp.split(h @ matrix(frozen, p, l, "qkv"), 3, -1)
            split = lambda t: t.reshape(t.shape[0], length, heads, dh).transpose(0, 2, 1, 3)
            x = x + attend(split(q), split(k), split(v), l) @ matrix(frozen, p, l, "o")
            h = _normalize(x, pb[f"{l}n2_g"], pb[f"{l}n2_b"])
            h = jax.nn.gelu(h @ matrix(frozen, p, l, "up") + pb[f"{l}up_b"])
            x = x + h @ matrix(frozen, p, l, "down") + pb[f"{l}down_b"]
        x = _normalize(x, pb["nf_g"], pb["nf_b"])
        nll = _xent(x @ pb["embed"].T, targets)
        return jnp.sum(nll * weights) / jnp.sum(weights)

    def merge(args):
        frozen, p, m, v, key = args
        frozen, p, m, v = dict(frozen), dict(p), dict(m), dict(v)
        for l in range(layers):
            for i, k in enumerate(adapted):
                frozen[f"{l}{k}"] = matrix(frozen, p, l, k)
                a = p[f"{l}{k}A"]
                p[f"{l}{k}A"] = jax.random.normal(jax.random.fold_in(key, l * 8 + i), a.shape) \
                    / math.sqrt(a.shape[0])
                p[f"{l}{k}B_z"] = jnp.zeros_like(p[f"{l}{k}B_z"])
                for name in (f"{l}{k}A", f"{l}{k}B_z"):
                    m[name], v[name] = jnp.zeros_like(m[name]), jnp.zeros_like(v[name])
        return frozen, p, m, v, key

    def step(p, frozen, state, tokens, targets, weights, key):
        m, v, t = state
        loss, grads = jax.value_and_grad(loss_fn)(p, frozen, tokens, targets, weights)
        t = t + 1
        since = (t % every).astype(f32)
        # a jagged schedule: cosine decay, re-warmed after every merge
        lr = rate * 0.5 * (1 + jnp.cos(jnp.pi * jnp.minimum(t / 20000.0, 1.0))) \
            * jnp.minimum(1.0, (since + 1) / warm)
        p, m, v = _adam(p, grads, m, v, t, lr, b2=0.98, decay=0.01)
        frozen, p, m, v, _ = lax.cond(t % every == 0, merge, lambda a: a,
                                      (frozen, p, m, v, jax.random.fold_in(key, t)))
        return p, frozen, (m, v, t), loss

    text = _copy_text(rng, batch, length, vocab)
    picked = rng.uniform(size=text.shape) < 0.15
    roll = rng.uniform(size=text.shape)
    corrupted = np.where(picked & (roll < 0.8), 1, text)
    corrupted = np.where(picked & (roll >= 0.8) & (roll < 0.9),
                         rng.integers(4, vocab, text.shape), corrupted)
    state = (_zeros_like(trained), _zeros_like(trained), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(trained, frozen, state, jnp.asarray(corrupted, jnp.int32),
                               jnp.asarray(text), jnp.asarray(picked, f32),
                               jax.random.PRNGKey(3))


def _box_scenes(rng: Any, count: int, side: int, most: int) -> tuple[Any, ...]:
    """numpy pictures (count, side, side, 3) of up to `most` shapes (class 0 a
    rectangle, 1 a disc, 2 a triangle, of random size, colour and place) on a noisy
    gradient background, with their boxes (count, most, 4) as x0, y0, x1, y1 in
    pixels, int32 classes and a validity mask for the padding."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    pictures = np.zeros((count, side, side, 3), np.float32)
    boxes = np.zeros((count, most, 4), np.float32)
    kinds = np.zeros((count, most), np.int32)
    valid = np.zeros((count, most), np.float32)
    for i in range(count):
        a, b = rng.uniform(0, 1, 3), rng.uniform(0, 1, 3)
        t = (xx + yy)[..., None] / (2 * side)
        picture = a + (b - a) * t
        for j in range(rng.integers(1, most + 1)):
            kind = rng.integers(0, 3)
            w, h = rng.uniform(0.1, 0.55, 2) * side
            x0, y0 = rng.uniform(0, side - w), rng.uniform(0, side - h)
            u, v = (xx - x0) / w, (yy - y0) / h
            if kind == 0:
                inside = (u > 0) & (u < 1) & (v > 0) & (v < 1)
            elif kind == 1:
                inside = (u - 0.5) ** 2 + (v - 0.5) ** 2 < 0.25
            else:
                inside = (v > 0) & (v < 1) & (np.abs(u - 0.5) < 0.5 * v)
            picture = np.where(inside[..., None], rng.uniform(0, 1, 3), picture)
            boxes[i, j] = [x0, y0, x0 + w, y0 + h]
            kinds[i, j], valid[i, j] = kind, 1.0
        pictures[i] = np.clip(picture + 0.04 * rng.standard_normal(picture.shape), 0, 1)
    return pictures, boxes, kinds, valid


def fcos_uncertainty(batch: int = 4, side: int = 96, most: int = 4, classes: int = 3,
                     width: int = 48, rate: float = 1e-3, split: float = 40.0) -> Any:
    """FCOS (Tian, Shen, Chen and He), an anchor-free detector, finds rectangles, discs
    and triangles in 96x96 pictures: a strided backbone with group norm, a two-level
    feature pyramid (strides 8 and 16, the coarse level repeated up and added), and a
    head shared by the levels whose classification tower predicts per-class logits and a
    centre-ness and whose regression tower predicts the four distances to the box sides
    through an exponential with a learned scale per level. Targets are found inside the
    step: every location takes the smallest box that contains it and whose largest
    distance falls in its level's range (an `argmin` over boxes, gathers of the
    distances and classes). The focal loss, the IoU loss of positives (weighted by the
    target centre-ness) and the centre-ness cross-entropy are weighed by learned
    homoscedastic uncertainties (Kendall, Gal and Cipolla: exp(-s) L + s per loss), all
    under Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    chans = (16, 32, 64, 96)
    shapes: dict[str, tuple[int, ...]] = {}
    last = 3
    for s, c in enumerate(chans):
        shapes.update({f"c{s}a": (3, 3, last, c), f"c{s}a_g": (c,), f"c{s}a_b": (c,)})
        if s > 0:
            shapes.update({f"c{s}b": (3, 3, c, c), f"c{s}b_g": (c,), f"c{s}b_b": (c,)})
        last = c
    shapes.update({"lat3": (1, 1, chans[2], width), "lat3_b": (width,),
                   "lat4": (1, 1, chans[3], width), "lat4_b": (width,),
                   "smooth3": (3, 3, width, width), "smooth4": (3, 3, width, width)})
    for tower in ("cls", "reg"):
        for i in range(2):
            shapes.update({f"{tower}{i}": (3, 3, width, width), f"{tower}{i}_g": (width,),
                           f"{tower}{i}_b": (width,)})
    shapes.update({"logits": (3, 3, width, classes), "logits_b": (classes,),
                   "centre": (3, 3, width, 1), "centre_b": (1,),
                   "ltrb": (3, 3, width, 4), "ltrb_b": (4,), "level_g": (2,),
                   "log_var_b": (3,)})
    params = _weights(shapes, seed=5, scale=math.sqrt(2.0))
    params["logits_b"] = jnp.full((classes,), -4.6)           # a prior of one per cent

    def cgr(p, k, x, stride=1):
        return jax.nn.relu(_group_norm(_conv(x, p[k], stride), p[f"{k}_g"], p[f"{k}_b"], 8))

    def head(p, feature, level):
        c = r = feature
        for i in range(2):
            c, r = cgr(p, f"cls{i}", c), cgr(p, f"reg{i}", r)
        logits = _conv(c, p["logits"]) + p["logits_b"]
        centre = (_conv(c, p["centre"]) + p["centre_b"])[..., 0]
        ltrb = jnp.exp(p["level_g"][level] * (_conv(r, p["ltrb"]) + p["ltrb_b"]))
        ltrb = ltrb * 8.0 * (1 + level)
        b = feature.shape[0]
        return logits.reshape(b, -1, classes), centre.reshape(b, -1), ltrb.reshape(b, -1, 4)

    def forward(p, x):
        feats = []
        for s in range(len(chans)):
            x = cgr(p, f"c{s}a", x, stride=2)
            if s > 0:
                x = cgr(p, f"c{s}b", x)
            feats.append(x)
        p4 = _conv(feats[3], p["lat4"]) + p["lat4_b"]
        p3 = _conv(feats[2], p["lat3"]) + p["lat3_b"] + jnp.repeat(jnp.repeat(p4, 2, 1), 2, 2)
        return [head(p, _conv(p3, p["smooth3"]), 0), head(p, _conv(p4, p["smooth4"]), 1)]

    def centres(stride):
        n = side // stride
        c = (np.arange(n) + 0.5) * stride
        gx, gy = np.meshgrid(c, c)
        return jnp.asarray(np.stack([gx.reshape(-1), gy.reshape(-1)], -1), jnp.float32)

    points = [centres(8), centres(16)]
    ranges = [(0.0, split), (split, 1e9)]

    def targets(level, boxes, kinds, valid):
        pts = points[level]
        x, y = pts[None, :, None, 0], pts[None, :, None, 1]
        l, t = x - boxes[:, None, :, 0], y - boxes[:, None, :, 1]
        r, b = boxes[:, None, :, 2] - x, boxes[:, None, :, 3] - y
        dist = jnp.stack([l, t, r, b], -1)                       # (batch, points, boxes, 4)
        reach = jnp.max(dist, -1)
        lo, hi = ranges[level]
        ok = (jnp.min(dist, -1) > 0) & (valid[:, None, :] > 0) & (reach >= lo) & (reach < hi)
        area = (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
        pick = jnp.argmin(jnp.where(ok, area[:, None, :], jnp.inf), -1)
        positive = jnp.any(ok, -1)
        aim = jnp.take_along_axis(dist, pick[..., None, None], 2)[:, :, 0]
        kind = jnp.take_along_axis(kinds, pick, 1)
        lr, tb = aim[..., 0::2], aim[..., 1::2]
        centre = jnp.sqrt(jnp.maximum(jnp.min(lr, -1) / jnp.maximum(jnp.max(lr, -1), 1e-6), 0)
                          * jnp.maximum(jnp.min(tb, -1) / jnp.maximum(jnp.max(tb, -1), 1e-6), 0))
        return positive.astype(jnp.float32), kind, aim, centre

    def loss_fn(p, x, boxes, kinds, valid):
        focal = box = centre_loss = 0.0
        count = 0.0
        for level, (logits, centre, ltrb) in enumerate(forward(p, x)):
            pos, kind, aim, aim_centre = targets(level, boxes, kinds, valid)
            onehot = jax.nn.one_hot(kind, classes) * pos[..., None]
            prob = jax.nn.sigmoid(logits)
            ce = jnp.maximum(logits, 0) - logits * onehot + jnp.log1p(jnp.exp(-jnp.abs(logits)))
            hit = prob * onehot + (1 - prob) * (1 - onehot)
            alpha = 0.25 * onehot + 0.75 * (1 - onehot)
            focal = focal + jnp.sum(alpha * (1 - hit) ** 2 * ce)
            least = jnp.minimum(ltrb, aim)
            inter = (least[..., 0] + least[..., 2]) * (least[..., 1] + least[..., 3])
            union = (ltrb[..., 0] + ltrb[..., 2]) * (ltrb[..., 1] + ltrb[..., 3]) \
                + (aim[..., 0] + aim[..., 2]) * (aim[..., 1] + aim[..., 3]) - inter
            iou = inter / jnp.maximum(union, 1e-6)
            box = box + jnp.sum(pos * aim_centre * -jnp.log(jnp.maximum(iou, 1e-6)))
            bce = jnp.maximum(centre, 0) - centre * aim_centre \
                + jnp.log1p(jnp.exp(-jnp.abs(centre)))
            centre_loss = centre_loss + jnp.sum(pos * bce)
            count = count + jnp.sum(pos)
        count = jnp.maximum(count, 1.0)
        losses = jnp.stack([focal / count, box / count, centre_loss / count])
        # homoscedastic uncertainty weighting (Kendall, Gal and Cipolla)
        s = p["log_var_b"]
        return jnp.sum(jnp.exp(-s) * losses + s), losses

    def step(p, state, x, boxes, kinds, valid):
        m, v, t = state
        (loss, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(p, x, boxes, kinds, valid)
        p, m, v = _adam(p, grads, m, v, t + 1, rate)
        return p, (m, v, t + 1), loss, parts

    rng = np.random.default_rng(5)
    pictures, boxes, kinds, valid = _box_scenes(rng, batch, side, most)
    state = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, state, jnp.asarray(pictures), jnp.asarray(boxes),
                               jnp.asarray(kinds), jnp.asarray(valid))


def cql_lagrange(batch: int = 64, obs: int = 8, act: int = 2, hidden: int = 128,
                 samples: int = 8, gamma: float = 0.99, tau: float = 0.005,
                 gap_target: float = 5.0, rate: float = 3e-4) -> Any:
    """Conservative Q-learning (Kumar, Zhou, Tucker and Levine) from logged
    transitions of a point mass steered towards a goal past an obstacle: a tanh-squashed
    Gaussian actor, twin critics with target critics passed in, soft Bellman targets with
    an entropy temperature, and the CQL(H) penalty, a log-sum-exp of each critic over
    eight uniform, eight current-policy and eight next-policy actions per state (less
    their log densities) minus its value of the logged action. The penalty's weight is a
    Lagrange multiplier moved by dual gradient ascent so that the gap stays near five;
    the actor, critics, temperature and multiplier step by Adam and the targets by
    Polyak averaging."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    def mlp_shapes(prefix, sizes):
        out = {}
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            out[f"{prefix}{i}"], out[f"{prefix}{i}_b"] = (a, b), (b,)
        return out

    actor = _weights(mlp_shapes("a", (obs, hidden, hidden, 2 * act)), seed=6)
    critics = _weights({**mlp_shapes("q", (obs + act, hidden, hidden, 1)),
                        **mlp_shapes("r", (obs + act, hidden, hidden, 1))}, seed=7)
    targets = jax.tree.map(lambda w: w + 0.0, critics)
    temps = {"log_alpha_b": jnp.zeros(()), "log_prime_b": jnp.zeros(())}

    def mlp(p, prefix, x, n=3):
        for i in range(n):
            x = x @ p[f"{prefix}{i}"] + p[f"{prefix}{i}_b"]
            if i < n - 1:
                x = jax.nn.relu(x)
        return x

    def q_both(p, s, a):
        sa = jnp.concatenate([s, a], -1)
        return mlp(p, "q", sa)[..., 0], mlp(p, "r", sa)[..., 0]

    def policy(p, s, key):
        out = mlp(p, "a", s)
        mean, log_std = out[..., :act], jnp.clip(out[..., act:], -5.0, 2.0)
        noise = jax.random.normal(key, mean.shape)
        raw = mean + jnp.exp(log_std) * noise
        a = jnp.tanh(raw)
        logp = jnp.sum(-0.5 * noise ** 2 - log_std - 0.5 * math.log(2 * math.pi)
                       - jnp.log(1 - a ** 2 + 1e-6), -1)
        return a, logp

    def critic_loss(c, actor, targets, temps, s, a, r, s2, done, key):
        k1, k2, k3, k4 = jax.random.split(key, 4)
        a2, logp2 = policy(actor, s2, k1)
        t1, t2 = q_both(targets, s2, a2)
        alpha = jnp.exp(temps["log_alpha_b"])
        aim = jax.lax.stop_gradient(r + gamma * (1 - done) * (jnp.minimum(t1, t2) - alpha * logp2))
        q1, q2 = q_both(c, s, a)
        bellman = jnp.mean((q1 - aim) ** 2) + jnp.mean((q2 - aim) ** 2)
        # CQL(H): a log-sum-exp over uniform, current-policy and next-policy actions
        rep = lambda x: jnp.repeat(x[:, None], samples, 1)
        uniform = jax.random.uniform(k2, (batch, samples, act), minval=-1.0, maxval=1.0)
        now, logp_now = policy(actor, rep(s), k3)
        nxt, logp_nxt = policy(actor, rep(s2), k4)
        now, nxt = jax.lax.stop_gradient(now), jax.lax.stop_gradient(nxt)
        cat = jnp.concatenate
        s3 = jnp.repeat(s[:, None], 3 * samples, 1)
        acts = cat([uniform, now, nxt], 1)
        qa, qb = q_both(c, s3, acts)
        density = cat([jnp.full((batch, samples), act * math.log(0.5)),
                       jax.lax.stop_gradient(logp_now), jax.lax.stop_gradient(logp_nxt)], 1)
        gap1 = jnp.mean(jax.nn.logsumexp(qa - density, 1) - q1)
        gap2 = jnp.mean(jax.nn.logsumexp(qb - density, 1) - q2)
        prime = jnp.clip(jnp.exp(temps["log_prime_b"]), 0.0, 1e6)
        penalty = prime * (gap1 - gap_target) + prime * (gap2 - gap_target)
        return bellman + penalty, (gap1 + gap2) / 2

    def actor_loss(actor, c, temps, s, key):
        a, logp = policy(actor, s, key)
        q1, q2 = q_both(c, s, a)
        alpha = jax.lax.stop_gradient(jnp.exp(temps["log_alpha_b"]))
        return jnp.mean(alpha * logp - jnp.minimum(q1, q2)), logp

    def step(actor, critics, targets, temps, state, s, a, r, s2, done, key):
        (ma, va), (mc, vc), (mt, vt), t = state
        t = t + 1
        k1, k2 = jax.random.split(key)
        (closs, gap), cg = jax.value_and_grad(critic_loss, has_aux=True)(
            critics, actor, targets, temps, s, a, r, s2, done, k1)
        (aloss, logp), ag = jax.value_and_grad(actor_loss, has_aux=True)(
            actor, critics, temps, s, k2)
        # the entropy temperature descends, the CQL weight ascends (dual gradient ascent)
        tg = {"log_alpha_b": -jnp.mean(jax.lax.stop_gradient(logp) - act),
              "log_prime_b": -(gap - gap_target)}
        critics, mc, vc = _adam(critics, cg, mc, vc, t, rate)
        actor, ma, va = _adam(actor, ag, ma, va, t, rate)
        temps, mt, vt = _adam(temps, tg, mt, vt, t, rate)
        targets = jax.tree.map(lambda w, c: (1 - tau) * w + tau * c, targets, critics)
        return actor, critics, targets, temps, ((ma, va), (mc, vc), (mt, vt), t), closs, aloss

    # logged transitions of a point mass steered towards a goal around an obstacle
    rng = np.random.default_rng(6)
    pos, vel = rng.uniform(-1, 1, (batch, 2)), rng.normal(0, 0.3, (batch, 2))
    goal, obstacle = rng.uniform(-1, 1, (batch, 2)), rng.uniform(-0.5, 0.5, (batch, 2))
    s = np.concatenate([pos, vel, goal, obstacle], 1)
    behaviour = np.clip(0.8 * (goal - pos) - 0.3 * vel + rng.normal(0, 0.4, (batch, 2)), -1, 1)
    vel2 = 0.9 * vel + 0.1 * behaviour
    pos2 = pos + 0.1 * vel2
    s2 = np.concatenate([pos2, vel2, goal, obstacle], 1)
    near = np.linalg.norm(pos2 - goal, axis=1)
    crash = np.linalg.norm(pos2 - obstacle, axis=1) < 0.15
    r = -near - 5.0 * crash
    done = (near < 0.1) | crash
    pair = lambda tree: (_zeros_like(tree), _zeros_like(tree))
    state = (pair(actor), pair(critics), pair(temps), jnp.asarray(0, jnp.int32))
    f = lambda x: jnp.asarray(x, jnp.float32)
    return jax.jit(step).lower(actor, critics, targets, temps, state, f(s), f(behaviour),
                               f(r), f(s2), f(done), jax.random.PRNGKey(6))


def deep_bsde_arc(batch: int = 32, dim: int = 50, steps: int = 16, hidden: int = 60,
                  horizon: float = 0.3, inner: int = 6, sigma0: float = 1.0) -> Any:
    """The deep BSDE method (Han, Jentzen and E) for the Allen-Cahn equation
    u_t + Laplacian(u) + u - u^3 = 0 in 50 dimensions: 32 Brownian paths in 16 steps,
    the value at the start and its gradient learned as parameters and the gradient at
    every later step given by its own small network (two layer-normed ReLU layers,
    their weights stacked and fed to a `lax.scan` over the steps), the backward equation
    stepped along the paths and its end matched to the terminal condition. The update
    is adaptive cubic regularization (Nesterov and Polyak; Cartis, Gould and Toint) on
    the flattened weights: the cubic model is minimized approximately from its Cauchy
    point by six gradient steps in a `fori_loop`, each needing a Hessian-vector product
    (forward-over-reverse through the scan); a trial loss decides whether the step is
    taken and whether the regularization weight halves or doubles."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    dt = horizon / steps
    rng = np.random.default_rng(8)
    nets = {"w1": rng.standard_normal((steps - 1, dim, hidden)) / math.sqrt(dim),
            "b1": np.zeros((steps - 1, hidden)), "g1": np.ones((steps - 1, hidden)),
            "w2": rng.standard_normal((steps - 1, hidden, hidden)) / math.sqrt(hidden),
            "b2": np.zeros((steps - 1, hidden)), "g2": np.ones((steps - 1, hidden)),
            "w3": rng.standard_normal((steps - 1, hidden, dim)) * 0.1 / math.sqrt(hidden),
            "b3": np.zeros((steps - 1, dim))}
    params = {"u0": jnp.asarray(0.3), "z0": jnp.asarray(rng.uniform(-0.1, 0.1, dim), jnp.float32),
              **{k: jnp.asarray(v, jnp.float32) for k, v in nets.items()}}
    flat, unravel = ravel_pytree(params)

    def terminal(x):
        return 1.0 / (2.0 + 0.4 * jnp.sum(x * x, -1))

    def loss_of(flat, dw):
        p = unravel(flat)
        x = jnp.zeros((batch, dim))
        y = jnp.full((batch,), p["u0"])
        # the first step uses the learned gradient at the start point
        y = y - (y - y ** 3) * dt + dw[0] @ p["z0"]
        x = x + math.sqrt(2.0) * dw[0]

        def advance(carry, xs):
            x, y = carry
            net, d = xs
            h = x @ net["w1"] + net["b1"]
            h = jax.nn.relu(_normalize(h, net["g1"], jnp.zeros_like(net["g1"])))
            h = jax.nn.relu(_normalize(h @ net["w2"] + net["b2"], net["g2"],
                                       jnp.zeros_like(net["g2"])))
            z = (h @ net["w3"] + net["b3"]) / dim
            y = y - (y - y ** 3) * dt + jnp.sum(z * d, -1)
            return (x + math.sqrt(2.0) * d, y), None

        stacked = {k: p[k] for k in nets}
        (x, y), _ = lax.scan(advance, (x, y), (stacked, dw[1:]))
        return jnp.mean((y - terminal(x)) ** 2)

    def step(flat, sigma, dw):
        loss, g = jax.value_and_grad(loss_of)(flat, dw)
        hvp = lambda v: jax.jvp(lambda w: jax.grad(loss_of)(w, dw), (flat,), (v,))[1]
        # the Cauchy point of the cubic model, then gradient steps on the model
        hg = hvp(g)
        gn = jnp.linalg.norm(g)
        curve = jnp.vdot(g, hg) / (gn ** 2 + 1e-12)
        alpha = 1.0 / (jnp.abs(curve) + jnp.sqrt(jnp.abs(curve) ** 2 + 4 * sigma * gn) + 1e-12) * 2
        s = -alpha * g
        lipschitz = jnp.abs(curve) + sigma * alpha * gn + 1e-6

        def refine(_, s):
            model_grad = g + hvp(s) + sigma * jnp.linalg.norm(s) * s
            return s - model_grad / (lipschitz + sigma * jnp.linalg.norm(s))

        s = lax.fori_loop(0, inner, refine, s)
        sn = jnp.linalg.norm(s)
        predicted = -(jnp.vdot(g, s) + 0.5 * jnp.vdot(s, hvp(s)) + sigma / 3 * sn ** 3)
        trial = loss_of(flat + s, dw)
        ratio = (loss - trial) / jnp.maximum(predicted, 1e-12)
        flat = jnp.where(ratio >= 0.1, flat + s, flat)
        sigma = jnp.where(ratio > 0.9, sigma / 2, jnp.where(ratio < 0.1, sigma * 2, sigma))
        sigma = jnp.clip(sigma, 1e-4, 1e4)
        return flat, sigma, loss, ratio

    dw = rng.standard_normal((steps, batch, dim)) * math.sqrt(dt)
    return jax.jit(step).lower(flat, jnp.asarray(sigma0, jnp.float32), jnp.asarray(dw, jnp.float32))


def _solve_small(a: Any, b: Any) -> Any:
    """Solves the small symmetric positive definite system a x = b by Gauss-Jordan
    elimination written out entry by entry (no pivoting; a is regularized)."""
    import jax.numpy as jnp

    n = a.shape[0]
    m = jnp.concatenate([a, b[:, None]], 1)
    for i in range(n):
        m = m.at[i].set(m[i] / m[i, i])
        for j in range(n):
            if j != i:
                m = m.at[j].set(m[j] - m[j, i] * m[i])
    return m[:, n]


def lambda_anderson(batch: int = 8, side: int = 32, classes: int = 10, keys: int = 16,
                    heads: int = 4, window: int = 4, rate: float = 0.05, reg: float = 1e-3) -> Any:
    """A LambdaResNet (Bello's lambda networks) classifies 32x32 texture pictures:
    a convolutional stem, then two stages, each a strided 3x3 convolution with batch
    norm and a lambda block. A lambda layer summarizes the whole map into a small linear
    function per picture (keys softmax-normalized over positions, times the values) and
    adds position lambdas from a 3-D convolution over (value, row, column) whose kernel
    spans one value channel and a 7x7 or 5x5 neighbourhood, one output per key; every
    query applies both. The weights move by Anderson acceleration (type II, a window of
    four) of plain gradient steps: the last four changes of the weights and of the
    residuals are kept, the mixing coefficients come from a small regularized
    least-squares system solved by Gauss-Jordan elimination written out entry by entry,
    and the step is capped at three plain steps."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.flatten_util import ravel_pytree

    shapes: dict[str, tuple[int, ...]] = {
        "stem": (3, 3, 3, 32), "stem_g": (32,), "stem_b": (32,),
        "down2": (3, 3, 32, 64), "down2_g": (64,), "down2_b": (64,),
        "down3": (3, 3, 64, 128), "down3_g": (128,), "down3_b": (128,),
        "out": (128, classes), "out_b": (classes,)}
    spans = {2: (64, 7), 3: (128, 5)}
    for s, (c, r) in spans.items():
        v = c // heads
        shapes.update({f"l{s}q": (c, keys * heads), f"l{s}q_g": (keys * heads,),
                       f"l{s}q_b": (keys * heads,), f"l{s}k": (c, keys),
                       f"l{s}v": (c, v), f"l{s}v_g": (v,), f"l{s}v_b": (v,),
                       f"l{s}pos": (1, r, r, 1, keys), f"l{s}n_g": (c,), f"l{s}n_b": (c,),
                       f"l{s}proj": (1, 1, c, c)})
    params = _weights(shapes, seed=9, scale=math.sqrt(2.0))
    flat, unravel = ravel_pytree(params)

    def bn(p, k, x):
        return _normalize(x, p[f"{k}_g"], p[f"{k}_b"], (0, 1, 2))

    def lambda_layer(p, s, x):
        b, h, w, c = x.shape
        v = c // heads
        n = h * w
        flat_x = x.reshape(b, n, c)
        q = _normalize(flat_x @ p[f"l{s}q"], p[f"l{s}q_g"], p[f"l{s}q_b"], (0, 1))
        q = q.reshape(b, n, heads, keys)
        k = jax.nn.softmax(flat_x @ p[f"l{s}k"], 1)                   # over positions
        val = _normalize(flat_x @ p[f"l{s}v"], p[f"l{s}v_g"], p[f"l{s}v_b"], (0, 1))
        content = jnp.einsum("bnk,bnv->bkv", k, val)
        # position lambdas: a 3-D convolution over (value, row, column) with a kernel
        # that spans one value and an r x r neighbourhood, one output per key
        grid = val.reshape(b, h, w, v).transpose(0, 3, 1, 2)[..., None]
        position = _conv(grid, p[f"l{s}pos"])                       # (b, v, h, w, keys)
        position = position.transpose(0, 2, 3, 4, 1).reshape(b, n, keys, v)
        y = jnp.einsum("bnhk,bkv->bnhv", q, content) + jnp.einsum("bnhk,bnkv->bnhv", q, position)
        return y.reshape(b, h, w, c)

    def forward(p, x):
        x = jax.nn.relu(bn(p, "stem", _conv(x, p["stem"])))
        for s in spans:
            x = jax.nn.relu(bn(p, f"down{s}", _conv(x, p[f"down{s}"], stride=2)))
            h = jax.nn.relu(bn(p, f"l{s}n", lambda_layer(p, s, x)))
            x = jax.nn.relu(x + _conv(h, p[f"l{s}proj"]))
        return jnp.mean(x, (1, 2)) @ p["out"] + p["out_b"]

    def loss_of(flat, x, y):
        return jnp.mean(_xent(forward(unravel(flat), x), y))

    def step(flat, state, x, y):
        last_w, last_r, dws, drs, count = state
        loss, g = jax.value_and_grad(loss_of)(flat, x, y)
        r = -rate * g                                        # the fixed-point residual
        fresh = count > 0
        dws = jnp.where(fresh, jnp.roll(dws, 1, 0).at[0].set(flat - last_w), dws)
        drs = jnp.where(fresh, jnp.roll(drs, 1, 0).at[0].set(r - last_r), drs)
        gram = drs @ drs.T
        gamma = _solve_small(gram + (reg * jnp.trace(gram) / window + 1e-12) * jnp.eye(window),
                             drs @ r)
        move = r - (dws + drs).T @ gamma
        # a safeguard: never more than three plain steps long
        move = move * jnp.minimum(1.0, 3 * jnp.linalg.norm(r) / (jnp.linalg.norm(move) + 1e-12))
        return flat + move, (flat, r, dws, drs, count + 1), loss, gamma

    rng = np.random.default_rng(9)
    pictures, labels = _textures(rng, batch, side, classes)
    size = flat.size
    state = (jnp.zeros(size), jnp.zeros(size), jnp.zeros((window, size)),
             jnp.zeros((window, size)), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(flat, state, jnp.asarray(pictures), jnp.asarray(labels))


def synthetic_gradients(batch: int = 64, side: int = 28, width: int = 512, classes: int = 10,
                        rate: float = 0.02, module_rate: float = 1e-3,
                        momentum: float = 0.9) -> Any:
    """Decoupled neural interfaces (Jaderberg et al.): a ReLU network of three
    512-wide layers classifies 28x28 glyphs, and each hidden layer updates itself from a
    synthetic gradient, a linear module of its output and the label, without waiting for
    the layers above (`jax.vjp` of the layer alone pulled back along the module's
    prediction). Each module is fitted to a bootstrapped target, the module above's
    prediction pulled back through the next layer, or the true gradient of the loss for
    the top layer; layers, modules and the softmax head all step by momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    sizes = (side * side, width, width, width)
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(3):
        shapes.update({f"w{i}": (sizes[i], sizes[i + 1]), f"w{i}_b": (sizes[i + 1],),
                       f"m{i}_z": (width, width), f"m{i}y_z": (classes, width),
                       f"m{i}_b": (width,)})
    shapes.update({"w3": (width, classes), "w3_b": (classes,)})
    params = _weights(shapes, seed=10, scale=math.sqrt(2.0))

    def layer(p, i, h):
        return jax.nn.relu(h @ p[f"w{i}"] + p[f"w{i}_b"])

    def module(p, i, h, onehot):
        return h @ p[f"m{i}_z"] + onehot @ p[f"m{i}y_z"] + p[f"m{i}_b"]

    def step(p, velocity, x, y):
        onehot = jax.nn.one_hot(y, classes)
        grads = {k: jnp.zeros_like(w) for k, w in p.items()}
        h = x
        acts, predicted = [], []
        # every layer steps along its module's prediction, no gradient crosses layers
        for i in range(3):
            local = {k: p[k] for k in (f"w{i}", f"w{i}_b")}
            out, pull = jax.vjp(lambda q, h, i=i: layer(q, i, h), local, h)
            guess = jax.lax.stop_gradient(module(p, i, out, onehot))
            g_local, g_input = pull(guess / batch)
            grads.update(g_local)
            if i > 0:
                predicted.append(g_input * batch)             # a bootstrapped target
            acts.append(out)
            h = jax.lax.stop_gradient(out)

        def head_loss(q, h):
            return jnp.mean(_xent(h @ q["w3"] + q["w3_b"], y))

        loss, (g_head, g_top) = jax.value_and_grad(head_loss, (0, 1))(
            {"w3": p["w3"], "w3_b": p["w3_b"]}, h)
        grads.update(g_head)
        aims = predicted + [g_top * batch]

        def module_loss(q, i, h, aim):
            return jnp.mean(jnp.sum((module(q, i, h, onehot) - aim) ** 2, -1))

        fits = []
        for i in range(3):
            part = {k: p[k] for k in (f"m{i}_z", f"m{i}y_z", f"m{i}_b")}
            fit, g_mod = jax.value_and_grad(module_loss)(part, i, acts[i],
                                                         jax.lax.stop_gradient(aims[i]))
            grads.update({k: g * (module_rate / rate) for k, g in g_mod.items()})
            fits.append(fit)
        velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, grads)
        p = jax.tree.map(lambda w, v: w - rate * v, p, velocity)
        return p, velocity, loss, jnp.stack(fits)

    rng = np.random.default_rng(10)
    glyphs, labels = _glyphs(rng, batch, side, classes)
    return jax.jit(step).lower(params, _zeros_like(params),
                               jnp.asarray(glyphs.reshape(batch, -1)), jnp.asarray(labels))


def infogan_sga(batch: int = 12, side: int = 16, noise: int = 32, categories: int = 10,
                continuous: int = 2, rate: float = 2e-4, decay: float = 0.9,
                adjust: float = 1.0) -> Any:
    """InfoGAN (Chen, Duan, Houthooft, Schulman, Sutskever and Abbeel) on 16x16
    glyphs: a generator of transposed convolutions from noise, a ten-way categorical
    code and two continuous codes; a convolutional discriminator whose features also feed
    a Q head that recovers the codes (the generator's player owns the Q head). The two
    players are moved together by symplectic gradient adjustment (Balduzzi, Racaniere,
    Martens et al.): the simultaneous gradient xi of both losses, its products with the
    game's Jacobian from one `vjp` and one `jvp` of the function that computes xi, the
    antisymmetric part's A^T xi added with a sign aligned to the Hamiltonian's gradient,
    then RMSProp."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    code = noise + categories + continuous
    g_shapes = {"in": (code, 4 * 4 * 48), "in_b": (4 * 4 * 48,), "in_g": (4 * 4 * 48,),
                "up1": (4, 4, 48, 24), "up1_b": (24,), "up1_g": (24,),
                "up2": (4, 4, 24, 1), "up2_b": (1,),
                "qcat": (128, categories), "qcat_b": (categories,),
                "qcont": (128, continuous), "qcont_b": (continuous,)}
    d_shapes = {"c1": (4, 4, 1, 32), "c1_b": (32,), "c2": (4, 4, 32, 64), "c2_b": (64,),
                "fc": (4 * 4 * 64, 128), "fc_b": (128,), "real": (128, 1), "real_b": (1,)}
    players = (_weights(d_shapes, seed=11), _weights(g_shapes, seed=12))
    flat, unravel = ravel_pytree(players)
    split = ravel_pytree(players[0])[0].size

    def generate(g, z):
        h = jax.nn.relu(_normalize(z @ g["in"] + g["in_b"], g["in_g"], g["in_b"] * 0, (0,)))
        h = h.reshape(-1, 4, 4, 48)
        h = lax.conv_transpose(h, g["up1"], (2, 2), "SAME", dimension_numbers=_NHWC)
        h = jax.nn.relu(_normalize(h + g["up1_b"], g["up1_g"], g["up1_b"] * 0, (0, 1, 2)))
        h = lax.conv_transpose(h, g["up2"], (2, 2), "SAME", dimension_numbers=_NHWC)
        return jax.nn.sigmoid(h + g["up2_b"])

    def features(d, x):
        h = jax.nn.leaky_relu(_conv(x, d["c1"], stride=2) + d["c1_b"], 0.2)
        h = jax.nn.leaky_relu(_conv(h, d["c2"], stride=2) + d["c2_b"], 0.2)
        return jax.nn.leaky_relu(h.reshape(h.shape[0], -1) @ d["fc"] + d["fc_b"], 0.2)

    def losses(theta, real, z, cat, cont):
        d, g = unravel(theta)
        fake = generate(g, jnp.concatenate([z, jax.nn.one_hot(cat, categories), cont], -1))
        f_real, f_fake = features(d, real), features(d, fake)
        real_logit = (f_real @ d["real"] + d["real_b"])[:, 0]
        fake_logit = (f_fake @ d["real"] + d["real_b"])[:, 0]
        d_loss = jnp.mean(jax.nn.softplus(-real_logit) + jax.nn.softplus(fake_logit))
        # the generator's player owns the Q head, which reads the critic's features
        info = jnp.mean(_xent(f_fake @ g["qcat"] + g["qcat_b"], cat)) \
            + 0.5 * jnp.mean(jnp.sum((f_fake @ g["qcont"] + g["qcont_b"] - cont) ** 2, -1))
        g_loss = jnp.mean(jax.nn.softplus(-fake_logit)) + info
        return d_loss, g_loss

    def game(theta, *batch_):
        d_grad = jax.grad(lambda t: losses(t, *batch_)[0])(theta)
        g_grad = jax.grad(lambda t: losses(t, *batch_)[1])(theta)
        return jnp.concatenate([d_grad[:split], g_grad[split:]])

    def step(theta, square, real, z, cat, cont):
        xi, pull = jax.vjp(lambda t: game(t, real, z, cat, cont), theta)
        jt_xi = pull(xi)[0]
        j_xi = jax.jvp(lambda t: game(t, real, z, cat, cont), (theta,), (xi,))[1]
        antisym = 0.5 * (jt_xi - j_xi)                   # A^T xi, A the antisymmetric part
        # the sign of the adjustment aligns it with the gradient of the Hamiltonian
        align = jnp.sign(jnp.vdot(xi, jt_xi) * jnp.vdot(antisym, jt_xi) / theta.size + 0.1)
        move = xi + adjust * align * antisym
        square = decay * square + (1 - decay) * move * move
        d_loss, g_loss = losses(theta, real, z, cat, cont)
        return theta - rate * move / (jnp.sqrt(square) + 1e-8), square, d_loss, g_loss

    rng = np.random.default_rng(11)
    glyphs, _ = _glyphs(rng, batch, side)
    z = rng.standard_normal((batch, noise)).astype(np.float32)
    cat = rng.integers(0, categories, batch).astype(np.int32)
    cont = rng.uniform(-1, 1, (batch, continuous)).astype(np.float32)
    return jax.jit(step).lower(flat, jnp.zeros_like(flat), jnp.asarray(glyphs[..., None]),
                               jnp.asarray(z), jnp.asarray(cat), jnp.asarray(cont))


def _markov_documents(rng: Any, count: int, sentences: int, words: int) -> list[list[list[int]]]:
    """count documents of `sentences` sentences each, every sentence a walk of 4 to 11
    words (ids 4 to words + 3) through a sparse random bigram chain whose start words
    and successors are fixed by the generator."""
    import numpy as np

    chain = np.random.default_rng(77)
    successors = [chain.choice(words, 4, replace=False) for _ in range(words)]
    starts = chain.choice(words, 12, replace=False)
    docs = []
    for _ in range(count):
        doc = []
        for _ in range(sentences):
            w = int(starts[rng.integers(len(starts))])
            sentence = [w + 4]
            for _ in range(int(rng.integers(3, 11))):
                w = int(successors[w][rng.integers(4)])
                sentence.append(w + 4)
            doc.append(sentence)
        docs.append(doc)
    return docs


def bart_selective(batch: int = 12, keep: int = 6, length: int = 64, width: int = 64,
                   heads: int = 4, hidden: int = 192, layers: int = 2, words: int = 120,
                   rate: float = 1e-3) -> Any:
    """BART (Lewis et al.) denoising in bfloat16: documents of sentences from a sparse
    random bigram chain have their sentences permuted and Poisson-length spans replaced
    by one mask token each (on the host), and a pre-norm encoder-decoder with shared,
    tied embeddings and learned positions restores them by teacher forcing under
    padding-masked self- and cross-attention. The step first scores all twelve documents
    without a gradient and then learns only from the six it restores worst (`top_k` on
    the per-document losses and gathers), after selective backprop (Jiang et al.) and
    loss-based online batch selection (Loshchilov and Hutter), by AdamW on float32
    weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    pad, bos, eos, mask = 0, 1, 2, 3
    vocab = words + 4
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for side in ("e", "d"):
        for l in range(layers):
            k = f"{side}{l}"
            shapes.update({f"{k}n1_g": (width,), f"{k}n1_b": (width,),
                           f"{k}qkv": (width, 3 * width), f"{k}o": (width, width),
                           f"{k}n3_g": (width,), f"{k}n3_b": (width,),
                           f"{k}up": (width, hidden), f"{k}up_b": (hidden,),
                           f"{k}down": (hidden, width), f"{k}down_b": (width,)})
            if side == "d":
                shapes.update({f"{k}n2_g": (width,), f"{k}n2_b": (width,),
                               f"{k}cq": (width, width), f"{k}ckv": (width, 2 * width),
                               f"{k}co": (width, width)})
    shapes.update({"ne_g": (width,), "ne_b": (width,), "nd_g": (width,), "nd_b": (width,)})
    params = _weights(shapes, seed=13)
    causal = jnp.tril(jnp.ones((length, length), bool))

    def heads_of(t):
        return t.reshape(t.shape[0], -1, heads, dh)

    def attention(q, k, v, allowed):
        scores = jnp.einsum("bqhd,bkhd->bhqk", heads_of(q), heads_of(k)).astype(f32)
        scores = jnp.where(allowed, scores / math.sqrt(dh), -1e9)
        out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1).astype(bf16), heads_of(v))
        return out.reshape(q.shape[0], -1, width)

    def block(p, k, x, allowed, memory=None, memory_allowed=None):
        h = _normalize(x, p[f"{k}n1_g"], p[f"{k}n1_b"])
        q, kk, v = jnp.split(h @ p[f"{k}qkv"], 3, -1)
        x = x + attention(q, kk, v, allowed) @ p[f"{k}o"]
        if memory is not None:
            h = _normalize(x, p[f"{k}n2_g"], p[f"{k}n2_b"])
            kk, v = jnp.split(memory @ p[f"{k}ckv"], 2, -1)
            x = x + attention(h @ p[f"{k}cq"], kk, v, memory_allowed) @ p[f"{k}co"]
        h = _normalize(x, p[f"{k}n3_g"], p[f"{k}n3_b"])
        return x + jax.nn.gelu(h @ p[f"{k}up"] + p[f"{k}up_b"]) @ p[f"{k}down"] + p[f"{k}down_b"]

    def per_example(p32, source, target):
        p = jax.tree.map(lambda w: w.astype(bf16), p32)
        src_ok = (source != pad)[:, None, None, :]
        x = p["embed"][source] + p["pos"]
        for l in range(layers):
            x = block(p, f"e{l}", x, src_ok)
        memory = _normalize(x, p["ne_g"], p["ne_b"])
        inputs = jnp.concatenate([jnp.full((target.shape[0], 1), bos), target[:, :-1]], 1)
        y = p["embed"][inputs] + p["pos"]
        for l in range(layers):
            y = block(p, f"d{l}", y, causal[None, None], memory, src_ok)
        logits = _normalize(y, p["nd_g"], p["nd_b"]) @ p["embed"].T
        real = (target != pad).astype(f32)
        return jnp.sum(_xent(logits, target) * real, 1) / jnp.sum(real, 1)

    def step(p, state, source, target):
        m, v, t = state
        # score the whole batch without a gradient, then learn from the hardest half
        scores = lax.stop_gradient(per_example(p, source, target))
        _, hard = lax.top_k(scores, keep)
        loss_fn = lambda q: jnp.mean(per_example(q, source[hard], target[hard]))
        loss, grads = jax.value_and_grad(loss_fn)(p)
        p, m, v = _adam(p, grads, m, v, t + 1, rate, b2=0.98, decay=0.01)
        return p, (m, v, t + 1), loss, jnp.mean(scores)

    # noising on the host: sentence permutation, then text infilling (Poisson spans of
    # mean length 3 over about 30% of the tokens, each span one mask token)
    rng = np.random.default_rng(13)
    source = np.full((batch, length), pad, np.int32)
    target = np.full((batch, length), pad, np.int32)
    for i, doc in enumerate(_markov_documents(rng, batch, 12, words)):
        clean = [w for s in doc for w in s][:length - 1] + [eos]
        target[i, :len(clean)] = clean
        order = rng.permutation(len(doc))
        shuffled = [w for j in order for w in doc[j]][:length - 1]
        noisy, j = [], 0
        while j < len(shuffled):
            if rng.uniform() < 0.1:
                span = int(rng.poisson(3.0))
                noisy.append(mask)
                j += span
                if span == 0:
                    noisy.append(shuffled[j])
                    j += 1
            else:
                noisy.append(shuffled[j])
                j += 1
        noisy = noisy[:length - 1] + [eos]
        source[i, :len(noisy)] = noisy
    state = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, state, jnp.asarray(source), jnp.asarray(target))


def kuramoto_sivashinsky_etdrk4(batch: int = 8, modes: int = 256, step: float = 0.25,
                                records: int = 24, every: int = 10,
                                contour: int = 32) -> Any:
    """The Kuramoto-Sivashinsky equation u_t = -u u_x - u_xx - u_xxxx on a
    periodic interval of 32 pi, 256 Fourier modes, for 8 perturbed starts, no gradient,
    in complex64 throughout: exponential time differencing with fourth-order Runge-Kutta
    (ETDRK4, Cox and Matthews), its coefficients computed on the host by contour
    integrals (Kassam and Trefethen), the nonlinear term by complex inverse and forward
    FFTs. 240 steps run as a `lax.scan` of 24 records over a `fori_loop` of ten steps,
    returning the fields, their energies and the late-time power spectrum."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c64 = jnp.complex64
    length = 32 * np.pi
    k = np.fft.fftfreq(modes, 1.0 / modes) * (2 * np.pi / length)
    k[modes // 2] = 0.0                              # the Nyquist mode carries no derivative
    lin = k ** 2 - k ** 4
    e, e2 = np.exp(step * lin), np.exp(step * lin / 2)
    # the phi-function coefficients by a contour integral (Kassam and Trefethen)
    r = np.exp(1j * np.pi * (np.arange(1, contour + 1) - 0.5) / contour)
    lr = step * lin[:, None] + r[None, :]
    q = step * np.real(np.mean((np.exp(lr / 2) - 1) / lr, 1))
    f1 = step * np.real(np.mean((-4 - lr + np.exp(lr) * (4 - 3 * lr + lr ** 2)) / lr ** 3, 1))
    f2 = step * np.real(np.mean((2 + lr + np.exp(lr) * (-2 + lr)) / lr ** 3, 1))
    f3 = step * np.real(np.mean((-4 - 3 * lr - lr ** 2 + np.exp(lr) * (4 - lr)) / lr ** 3, 1))
    const = {name: jnp.asarray(value, c64) for name, value in
             {"e": e, "e2": e2, "q": q, "f1": f1, "f2": f2, "f3": f3,
              "g": -0.5j * k}.items()}

    def nonlinear(v):
        u = jnp.real(jnp.fft.ifft(v, axis=-1))
        return const["g"] * jnp.fft.fft((u * u).astype(c64), axis=-1)

    def etdrk4(_, v):
        nv = nonlinear(v)
        a = const["e2"] * v + const["q"] * nv
        na = nonlinear(a)
        b = const["e2"] * v + const["q"] * na
        nb = nonlinear(b)
        c = const["e2"] * a + const["q"] * (2 * nb - nv)
        nc = nonlinear(c)
        return const["e"] * v + nv * const["f1"] + 2 * (na + nb) * const["f2"] + nc * const["f3"]

    def run(u0):
        v = jnp.fft.fft(u0.astype(c64), axis=-1)

        def record(v, _):
            v = lax.fori_loop(0, every, etdrk4, v)
            u = jnp.real(jnp.fft.ifft(v, axis=-1))
            power = jnp.abs(v) ** 2
            return v, (u, jnp.mean(u * u, -1), power)

        v, (snapshots, energy, power) = lax.scan(record, v, None, length=records)
        return snapshots, energy, jnp.mean(power[records // 2:], 0)

    rng = np.random.default_rng(14)
    x = length * np.arange(modes) / modes
    u0 = np.cos(x / 16) * (1 + np.sin(x / 16))
    u0 = u0[None, :] + 0.1 * rng.standard_normal((batch, 1)) * np.sin(
        rng.integers(1, 6, (batch, 1)) * x[None, :] / 16 + rng.uniform(0, 2 * np.pi, (batch, 1)))
    return jax.jit(run).lower(jnp.asarray(u0, jnp.float32))


def richardson_lucy_tv(batch: int = 4, side: int = 128, taps: int = 7, iterations: int = 20,
                       weight: float = 0.002) -> Any:
    """Richardson-Lucy deconvolution with total-variation regularization (Dey et
    al.) of four 128x128 colour pictures blurred by a slanted 7x7 motion kernel and
    photon-counted (Poisson noise on the host), no gradient: 20 multiplicative updates
    in a `fori_loop`, each two depthwise 2-D convolutions (with the kernel and its
    mirror image) and the divergence of the normalized image gradient by `roll`s,
    recording every iteration's Poisson deviance; then a PSNR against the truth."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    # a motion blur along a slanted line, softened by a small Gaussian
    half = taps // 2
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float64)
    along = np.cos(0.6) * xx + np.sin(0.6) * yy
    across = -np.sin(0.6) * xx + np.cos(0.6) * yy
    psf = np.exp(-across ** 2 / 0.8) * (np.abs(along) <= half)
    psf = psf / psf.sum()
    kernel = jnp.asarray(np.repeat(psf[:, :, None, None], 3, 3), jnp.float32)
    flipped = kernel[::-1, ::-1]

    def blur(x, k):
        return _conv(x, k, padding="SAME", groups=3)

    def run(observed, truth):
        def iterate(i, carry):
            estimate, deviance = carry
            predicted = jnp.maximum(blur(estimate, kernel), 1e-6)
            correction = blur(observed / predicted, flipped)
            # the total-variation term: the divergence of the normalized gradient
            dx = jnp.roll(estimate, -1, 2) - estimate
            dy = jnp.roll(estimate, -1, 1) - estimate
            size = jnp.sqrt(dx * dx + dy * dy + 1e-4)
            nx, ny = dx / size, dy / size
            div = nx - jnp.roll(nx, 1, 2) + ny - jnp.roll(ny, 1, 1)
            estimate = estimate * correction / jnp.maximum(1 - weight * div, 0.3)
            dev = 2 * jnp.sum(observed * jnp.log(jnp.maximum(observed, 1e-6) / predicted)
                              - (observed - predicted), (1, 2, 3))
            return estimate, deviance.at[i].set(dev)

        start = jnp.full_like(observed, jnp.mean(observed))
        estimate, deviance = lax.fori_loop(0, iterations, iterate,
                                           (start, jnp.zeros((iterations, observed.shape[0]))))
        scale = jnp.mean(truth) / jnp.mean(estimate)
        mse = jnp.mean((estimate * scale - truth) ** 2, (1, 2, 3))
        return estimate, deviance, 10 * jnp.log10(jnp.max(truth) ** 2 / mse)

    rng = np.random.default_rng(15)
    pictures, *_ = _box_scenes(rng, batch, side, 6)
    truth = 20.0 + 200.0 * pictures                         # expected photon counts
    blurred = np.stack([np.stack([
        np.real(np.fft.ifft2(np.fft.fft2(truth[b, ..., c])
                             * np.fft.fft2(np.pad(psf, ((0, side - taps), (0, side - taps))))))
        for c in range(3)], -1) for b in range(batch)])
    blurred = np.roll(blurred, (-half, -half), (1, 2))
    observed = rng.poisson(np.maximum(blurred, 0)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(observed), jnp.asarray(truth, jnp.float32))


def brandes_betweenness(nodes: int = 384, communities: int = 4, sources: int = 64,
                        depth: int = 10, shown: int = 16) -> Any:
    """Betweenness centrality of a 384-node graph (four communities on a ring) by
    Brandes' algorithm from 64 sources at once, no gradient: breadth-first search level
    by level in a `fori_loop`, every level a dense product of the path counts on the
    frontier with the adjacency matrix, then the dependencies accumulated from the
    deepest level up in a second `fori_loop` of products with the transposed matrix;
    also closeness, eccentricities and the `top_k` most central nodes."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(adjacency, starts):
        n = adjacency.shape[0]
        frontier = jax.nn.one_hot(starts, n)
        sigma = frontier
        dist = jnp.where(frontier > 0, 0, -1).astype(jnp.int32)

        def expand(d, carry):
            frontier, sigma, dist = carry
            paths = (sigma * frontier) @ adjacency
            new = (paths > 0) & (dist < 0)
            sigma = sigma + jnp.where(new, paths, 0.0)
            dist = jnp.where(new, d + 1, dist)
            return new.astype(jnp.float32), sigma, dist

        _, sigma, dist = lax.fori_loop(0, depth, expand, (frontier, sigma, dist))

        def accumulate(i, delta):
            d = depth - i                                 # from the deepest level up
            coef = jnp.where(dist == d, (1 + delta) / jnp.maximum(sigma, 1.0), 0.0)
            pulled = coef @ adjacency.T
            return delta + jnp.where(dist == d - 1, sigma * pulled, 0.0)

        delta = lax.fori_loop(0, depth, accumulate, jnp.zeros_like(sigma))
        delta = jnp.where(dist > 0, delta, 0.0)
        betweenness = jnp.sum(delta, 0) * (n / starts.shape[0]) / 2
        reached = dist >= 0
        closeness = (jnp.sum(reached, 1) - 1) / jnp.maximum(
            jnp.sum(jnp.where(reached, dist, 0), 1), 1)
        eccentricity = jnp.max(dist, 1)
        top, who = lax.top_k(betweenness, shown)
        return betweenness, closeness, eccentricity, top, who

    rng = np.random.default_rng(16)
    group = np.arange(nodes) * communities // nodes
    same = group[:, None] == group[None, :]
    chance = np.where(same, 0.04, 0.002)
    upper = np.triu(rng.uniform(size=(nodes, nodes)) < chance, 1)
    ring = np.zeros((nodes, nodes), bool)
    ring[np.arange(nodes), (np.arange(nodes) + 1) % nodes] = True
    adjacency = upper | upper.T | ring | ring.T
    starts = np.arange(0, nodes, nodes // sources)[:sources]
    return jax.jit(run).lower(jnp.asarray(adjacency, jnp.float32),
                              jnp.asarray(starts, jnp.int32))


def spin_glass_tempering(disorders: int = 2, side: int = 20, temperatures: int = 12,
                         sweeps: int = 160, low: float = 0.5, high: float = 2.0) -> Any:
    """Replica-exchange Monte Carlo (parallel tempering) of two-dimensional
    Edwards-Anderson spin glasses with +-1 couplings, no gradient: two disorder samples,
    two independent replica sets each at twelve temperatures, on 20x20 periodic lattices.
    160 sweeps in a `fori_loop`, each two checkerboard Metropolis half-sweeps with local
    fields from `roll`s and random numbers drawn inside the loop, then exchange attempts
    between neighbouring temperatures (even pairs on even sweeps, odd on odd) that move
    whole configurations by gathers; the overlap of the two replica sets gives the Binder
    ratio per temperature, with energies and swap acceptance rates."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    betas = jnp.asarray(1.0 / np.geomspace(low, high, temperatures), jnp.float32)
    yy, xx = np.mgrid[0:side, 0:side]
    colours = [jnp.asarray((yy + xx) % 2 == c) for c in range(2)]
    shape = (disorders, 2, temperatures, side, side)

    def run(spins, right, down, key):
        jr = right[:, None, None]
        jd = down[:, None, None]

        def field(s):
            return jr * jnp.roll(s, -1, 4) + jnp.roll(jr * s, 1, 4) \
                + jd * jnp.roll(s, -1, 3) + jnp.roll(jd * s, 1, 3)

        def energy(s):
            return -jnp.sum(s * (jr * jnp.roll(s, -1, 4) + jd * jnp.roll(s, -1, 3)), (3, 4))

        def sweep(t, carry):
            s, q2, q4, e_sum, accepted = carry
            k = jax.random.fold_in(key, t)
            u = jax.random.uniform(k, (2,) + shape)
            for c in range(2):
                flip = 2 * s * field(s)
                go = colours[c] & (u[c] < jnp.exp(-betas[None, None, :, None, None] * flip))
                s = jnp.where(go, -s, s)
            e = energy(s)
            # swap neighbouring temperatures, even pairs on even sweeps, odd on odd
            first = jnp.arange(temperatures)
            parity = t % 2
            lower = ((first % 2) == parity) & (first + 1 < temperatures)
            partner = jnp.where(lower, first + 1, first)
            partner = jnp.where(jnp.roll(lower, 1) & (first > 0), first - 1, partner)
            gain = (betas - betas[partner]) * (e - e[..., partner])
            coin = jax.random.uniform(jax.random.fold_in(k, 1), e.shape)
            draw = jnp.where(lower, coin, jnp.take(coin, jnp.maximum(first - 1, 0), axis=-1))
            swap = (draw < jnp.exp(jnp.minimum(gain, 0.0))) & (partner != first)
            pick = jnp.where(swap, partner, first)
            s = jnp.take_along_axis(s, pick[..., None, None], 2)
            e = jnp.take_along_axis(e, pick, 2)
            q = jnp.mean(s[:, 0] * s[:, 1], (2, 3))
            measuring = (t >= sweeps // 2).astype(jnp.float32)
            return (s, q2 + measuring * q * q, q4 + measuring * q ** 4,
                    e_sum + measuring * jnp.mean(e, 1),
                    accepted + jnp.sum(swap & lower, (0, 1)))

        zeros = jnp.zeros((disorders, temperatures))
        s, q2, q4, e_sum, accepted = lax.fori_loop(
            0, sweeps, sweep, (spins, zeros, zeros, zeros, jnp.zeros(temperatures, jnp.int32)))
        count = sweeps - sweeps // 2
        q2, q4 = q2 / count, q4 / count
        binder = 0.5 * (3 - jnp.mean(q4, 0) / jnp.mean(q2, 0) ** 2)
        return s, binder, e_sum / count / side ** 2, accepted / (disorders * 2 * (sweeps // 2))

    rng = np.random.default_rng(17)
    spins = rng.choice([-1.0, 1.0], shape).astype(np.float32)
    right = rng.choice([-1.0, 1.0], (disorders, side, side)).astype(np.float32)
    down = rng.choice([-1.0, 1.0], (disorders, side, side)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(spins), jnp.asarray(right), jnp.asarray(down),
                              jax.random.PRNGKey(17))


def pcfg_inside(batch: int = 16, longest: int = 24, symbols: int = 12, words: int = 40) -> Any:
    """The inside algorithm and Viterbi CKY parsing for a random probabilistic
    context-free grammar in Chomsky normal form (12 symbols, 40 words) over 16 sentences
    of 6 to 24 words, no gradient: a `fori_loop` over span widths fills the chart for
    every start at once, gathering the left and right sub-spans of every split point,
    summing over splits in scaled probability space by an einsum of the children's
    outer products followed by a product with the rule table (log-sum-exp by running
    maxima), and maximizing over splits and child pairs for the best parse, each
    written back by a scatter that drops spans past the end. Sentence log-likelihoods,
    best-parse scores and span labels come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    neg = -1e30

    def run(log_rules, log_emit, sentences, lengths):
        chart = jnp.full((batch, longest + 1, longest + 1, symbols), neg)
        best = jnp.full((batch, longest + 1, longest + 1, symbols), neg)
        starts = jnp.arange(longest)
        words_ = log_emit.T[sentences]                          # (batch, position, symbol)
        chart = chart.at[:, starts, starts + 1].set(words_)
        best = best.at[:, starts, starts + 1].set(words_)
        rules = jnp.exp(log_rules).reshape(symbols, symbols * symbols)
        splits = jnp.arange(1, longest)

        def widen(w, charts):
            chart, best = charts
            mid = jnp.minimum(starts[:, None] + splits[None, :], longest)
            end = jnp.minimum(starts + w, longest)
            ok = (splits[None, :] < w) & (starts[:, None] + w <= longest)
            left = jnp.where(ok[None, :, :, None], chart[:, starts[:, None], mid], neg)
            right = jnp.where(ok[None, :, :, None], chart[:, mid, end[:, None]], neg)
            lmax = jnp.max(left, (2, 3), keepdims=True)
            rmax = jnp.max(right, (2, 3), keepdims=True)
            pairs = jnp.einsum("bikx,biky->bixy", jnp.exp(left - lmax), jnp.exp(right - rmax))
            total = pairs.reshape(batch, longest, -1) @ rules.T
            inside = jnp.log(jnp.maximum(total, 1e-38)) + lmax[..., 0] + rmax[..., 0]
            # max-product over splits and both children for the best parse
            lb = jnp.where(ok[None, :, :, None], best[:, starts[:, None], mid], neg)
            rb = jnp.where(ok[None, :, :, None], best[:, mid, end[:, None]], neg)
            pair_best = jnp.max(lb[..., :, None] + rb[..., None, :], 2)
            viterbi = jnp.max(pair_best.reshape(batch, longest, 1, -1)
                              + log_rules.reshape(1, 1, symbols, -1), -1)
            valid = (starts + w <= longest)[None, :, None]
            inside = jnp.where(valid, inside, neg)
            viterbi = jnp.where(valid, viterbi, neg)
            cols = jnp.where(starts + w <= longest, starts + w, longest + 1)
            chart = chart.at[:, starts, cols].set(inside, mode="drop")
            best = best.at[:, starts, cols].set(viterbi, mode="drop")
            return chart, best

        chart, best = lax.fori_loop(2, longest + 1, widen, (chart, best))
        ends = lengths[:, None, None]
        log_z = jnp.take_along_axis(chart[:, 0], ends, 1)[:, 0, 0]
        top = jnp.take_along_axis(best[:, 0], ends, 1)[:, 0, 0]
        labels = jnp.argmax(best, -1)
        return log_z, top, log_z - top, labels

    rng = np.random.default_rng(18)
    rules = rng.gamma(0.3, 1.0, (symbols, symbols, symbols)) \
        * (rng.uniform(size=(symbols, symbols, symbols)) < 0.3)
    emit = rng.gamma(0.3, 1.0, (symbols, words)) * (rng.uniform(size=(symbols, words)) < 0.4)
    emit[:, 0] += 1e-3
    # each symbol splits or emits: a third of its mass goes to words
    rules = rules / rules.sum((1, 2), keepdims=True) * (2 / 3)
    emit = emit / emit.sum(1, keepdims=True) * (1 / 3)
    lengths = rng.integers(6, longest + 1, batch)
    sentences = np.zeros((batch, longest), np.int32)
    chain = rng.integers(0, words, (words, 3))
    for b in range(batch):
        w = int(rng.integers(words))
        for i in range(longest):
            sentences[b, i] = w
            w = int(chain[w, rng.integers(3)])
    return jax.jit(run).lower(jnp.asarray(np.log(rules + 1e-30), jnp.float32),
                              jnp.asarray(np.log(emit + 1e-30), jnp.float32),
                              jnp.asarray(sentences), jnp.asarray(lengths, jnp.int32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "unet3d_sgd_sai/2x24x24x24-12-24-48": unet3d_sgd_sai,
    "fnet_krum/6x2x128-d64-l3-bf16": fnet_krum,
    "bigbird_relora/2x768-b32-d128-l2-r16-bf16": bigbird_relora,
    "fcos_uncertainty/4x96px-2-levels": fcos_uncertainty,
    "cql_lagrange/64x8-h128-24-actions": cql_lagrange,
    "deep_bsde_arc/32x50d-16-steps-6-inner": deep_bsde_arc,
    "lambda_anderson/8x32px-k16-window-4": lambda_anderson,
    "synthetic_gradients/64x784-512x3": synthetic_gradients,
    "infogan_sga/12x16px-10-2-codes": infogan_sga,
    "bart_selective/12-to-6x64-d64-l2-bf16": bart_selective,
    "kuramoto_sivashinsky_etdrk4/8x256-240-steps-c64": kuramoto_sivashinsky_etdrk4,
    "richardson_lucy_tv/4x128px-7x7-20-iterations": richardson_lucy_tv,
    "brandes_betweenness/384-nodes-64-sources": brandes_betweenness,
    "spin_glass_tempering/2x2x12x20x20-160-sweeps": spin_glass_tempering,
    "pcfg_inside/16x24-words-12-symbols": pcfg_inside,
}
