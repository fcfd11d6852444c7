"""The thirty-third never-seen set: programs written on 2026-11-28, after the thirty-second
set (benchmarks/never_seen_32/), and never used to choose anything: no feature, default,
fallback threshold or model was picked by looking at them. They are here to judge one
trained model, once. The SHA-256 of this file is committed next to it (`SHA256`), and
`fresh_programs.py --set never-seen-33` refuses to run when the two disagree, since an
edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the
thirty-two earlier never-seen sets contain. Seven are training steps. Two keep large
activations, tens of MiB of float32 temporaries in one step (NAFNet's full-resolution
feature maps, the Hourglass transformer's 512x512 attention matrices); three are clearly
small, a few MiB at most (the Pade-activation MLP, the arithmetic unit and SimSiam). One
convolves depthwise inside the body of a `lax.scan` (the convolutional GRU, whose filter
gradients are taken in the loop), one depthwise outside any loop (NAFNet); one runs in
bfloat16 over float32 master weights (the PaLM-style model), and two take several
gradients in a `fori_loop` (Lookbehind-SAM and the arithmetic unit's eight Adam steps).

NAFNet denoises 48x48 colour pictures by activation-free blocks (layer norm, pointwise
expansion, depthwise 3x3 convolution, SimpleGate, simplified channel attention) in a
small U shape with a strided convolution down and a pixel shuffle up, under a negated
PSNR loss, stepped by DiffGrad. An Hourglass transformer models 512 bytes of text-like
prose: one full-length layer, a causal shift and shortening by four, two layers over the
128 short positions, linear upsampling and one more full-length layer, stepped by AdaMax
under warmup. An MLP with learned Pade (rational) activations regresses Friedman's first
function, stepped by Lookbehind-SAM (three sharpness-aware rounds of momentum SGD on fast
weights in a `fori_loop`, the slow weights moved halfway). A two-layer neural arithmetic
logic unit learns six functions of two sums (eight Adam steps in a `fori_loop`, then
relative errors when extrapolating). SimSiam learns representations of 24x24 toy objects
from two augmented views made in the step (dynamic-slice crops under `vmap`, flips and
colour jitter), a small CNN, projector and predictor, and a stop-gradient. A
convolutional GRU with depthwise-separable recurrent convolutions predicts the next
frames of bouncing blobs, stepped by Graves' centered RMSProp with momentum. A PaLM-style
language model in bfloat16 has parallel attention-and-MLP blocks, multi-query attention
with rotary embeddings, SwiGLU, shared embeddings and a z-loss, under Adam with update
clipping and a weight decay of the squared rate.

Eight are scientific or algorithmic steps without a gradient: the Swift-Hohenberg
equation in four pattern regimes by a semi-implicit pseudo-spectral scheme (real 2-D
FFTs, 120 steps in a `fori_loop`), then structure factors by scatter-adds and spot
counts; the heat equation with varying conductivity by Peaceman-Rachford ADI, every
implicit half step a batched Thomas solve whose elimination and substitutions are
`fori_loop`s over rows (dynamic slices and updates), 24 steps in an outer `fori_loop`;
Darcy flow through log-normal and channelized permeabilities by red-black SOR with
Chebyshev acceleration (150 sweeps in a `fori_loop`), fluxes and effective
permeabilities; Hilbert and Morton orders of four 65536-point sets (uint32 shifts, masks,
XOR reflections in `fori_loop`s over 16 bit levels, the inverse curve as a check,
key-carrying `sort`s, gathers, `top_k` and `searchsorted` for approximate neighbours);
an equi-join of 262144 probe rows against 65536 build rows by xxHash32 (wrapping uint32
multiplies and rotations), a Bloom filter set by a scatter and tested by gathers, a
three-operand `sort`, `searchsorted` and candidate gathers, and grouped scatter-adds;
the adaptive median filter in bfloat16 (3x3, 5x5 and 7x7 windows, each sorted per pixel)
under salt-and-pepper noise; bilateral-grid tone mapping at two range samplings
(scatter-add splats, rolled 1-4-6-4-1 blurs, trilinear slicing by eight gathers per
pixel, a histogram by a scatter-add); and a Viola-Jones cascade of random Haar-feature
stumps over every 24x24 window of eight pictures (integral images by `cumsum`, a gather
of nine weighted corners per feature and window, a cumulative product of stage tests,
`top_k` and one vectorized suppression pass).

The updates new to these sets: DiffGrad, AdaMax, Lookbehind-SAM (over momentum SGD),
Graves' centered RMSProp (with momentum) and PaLM's update clipping with a weight decay of
the squared rate (over Adam).
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
    in x's own dtype (layer norm over the features, batch norm by the batch's own
    statistics over every axis but the features)."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axes, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axes, keepdims=True)
    y = (x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32) + shift.astype(jnp.float32)
    return y.astype(x.dtype)


def _rms_norm(x: Any, gain: Any) -> Any:
    """x divided by its root mean square over the features (float32), times the gain, in
    x's own dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    y = x32 * lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-6) * gain.astype(jnp.float32)
    return y.astype(x.dtype)


def _xent(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels, per position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", groups: int = 1) -> Any:
    """A channels-last 2-D convolution, depthwise when `groups` is the input's channel
    count (the kernel then has one input channel)."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), padding,
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                    feature_group_count=groups)


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


def _global_norm(tree: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32)))
                        for g in jax.tree.leaves(tree)))


def _noisy_scenes(rng: Any, count: int, side: int) -> tuple[Any, Any]:
    """numpy float32 RGB pictures (count, side, side, 3): noisy copies and the clean ones
    in [0, 1]. A clean picture is a tilted, graded ground under three to six flat-coloured
    rectangles and discs, with one patch of sinusoidal texture; its noise is Gaussian with
    a standard deviation drawn per picture between 0.05 and 0.2."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    clean = np.zeros((count, side, side, 3))
    for i in range(count):
        picture = (rng.uniform(0.1, 0.5, 3)
                   + 0.3 * (rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy)[..., None])
        for _ in range(int(rng.integers(3, 7))):
            colour = rng.uniform(0, 1, 3)
            cx, cy, r = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9), rng.uniform(0.05, 0.25)
            if rng.random() < 0.5:
                inside = (np.abs(xx - cx) < r) & (np.abs(yy - cy) < 0.7 * r)
            else:
                inside = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
            picture = np.where(inside[..., None], colour, picture)
        angle, pitch = rng.uniform(0, np.pi), rng.uniform(6, 14)
        wave = 0.15 * np.sin(2 * np.pi * pitch * (np.cos(angle) * xx + np.sin(angle) * yy))
        patch = (np.abs(xx - 0.5) < 0.25) & (np.abs(yy - rng.uniform(0.3, 0.7)) < 0.2)
        clean[i] = np.clip(picture + np.where(patch, wave, 0.0)[..., None], 0, 1)
    sigma = rng.uniform(0.05, 0.2, (count, 1, 1, 1))
    noisy = clean + sigma * rng.standard_normal(clean.shape)
    return noisy.astype(np.float32), clean.astype(np.float32)


def nafnet_diffgrad(batch: int = 4, side: int = 48, width: int = 32, rate: float = 1e-3,
                    b1: float = 0.9, b2: float = 0.999, step_count: int = 10) -> Any:
    """NAFNet (Chen, Chu, Zhang and Sun) removes Gaussian noise of unknown strength from
    48x48 colour pictures: a 3x3 intro convolution to 32 channels, one block at full
    resolution, a strided 2x2 convolution down to 64 channels, two blocks there, a
    pointwise expansion and a pixel shuffle back up, the skip added, one more block and
    a 3x3 ending convolution added to the noisy input. Every block is activation-free:
    layer norm over the channels, a pointwise expansion by two, a depthwise 3x3
    convolution, a SimpleGate (the halves multiplied), simplified channel attention (a
    pointwise matrix of the pooled features scaling the channels) and a pointwise
    projection, added under a per-channel layer scale; then layer norm, a pointwise
    expansion, a SimpleGate and a projection, added under a second scale. The loss is
    the negated PSNR. The step is DiffGrad (Dubey et al.): Adam whose step is damped per
    weight by the sigmoid of the change of the gradient since the last step."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    stages = (("e0", width), ("m0", 2 * width), ("m1", 2 * width), ("d0", width))
    shapes: dict[str, tuple[int, ...]] = {"intro": (3, 3, 3, width), "intro_b": (width,)}
    for name, c in stages:
        shapes.update({f"{name}n1_g": (c,), f"{name}n1_b": (c,), f"{name}x": (c, 2 * c),
                       f"{name}x_b": (2 * c,), f"{name}dw": (3, 3, 1, 2 * c),
                       f"{name}dw_b": (2 * c,), f"{name}sca": (c, c), f"{name}sca_b": (c,),
                       f"{name}p": (c, c), f"{name}p_b": (c,), f"{name}beta_z": (c,),
                       f"{name}n2_g": (c,), f"{name}n2_b": (c,), f"{name}f": (c, 2 * c),
                       f"{name}f_b": (2 * c,), f"{name}o": (c, c), f"{name}o_b": (c,),
                       f"{name}gamma_z": (c,)})
    shapes.update({"down": (2, 2, width, 2 * width), "down_b": (2 * width,),
                   "up": (2 * width, 4 * width), "ending": (3, 3, width, 3), "ending_b": (3,)})
    params = _weights(shapes, seed=92)
    for name, c in stages:                      # the layer scales start small, not at zero
        for scale in ("beta_z", "gamma_z"):
            params[f"{name}{scale}"] = jnp.asarray(np.full((c,), 0.1, np.float32))

    def block(p, name, x):
        y = _normalize(x, p[f"{name}n1_g"], p[f"{name}n1_b"])
        y = y @ p[f"{name}x"] + p[f"{name}x_b"]
        y = _conv(y, p[f"{name}dw"], groups=y.shape[-1]) + p[f"{name}dw_b"]
        a, b = jnp.split(y, 2, -1)
        y = a * b
        y = y * (jnp.mean(y, (1, 2), keepdims=True) @ p[f"{name}sca"] + p[f"{name}sca_b"])
        x = x + p[f"{name}beta_z"] * (y @ p[f"{name}p"] + p[f"{name}p_b"])
        y = _normalize(x, p[f"{name}n2_g"], p[f"{name}n2_b"])
        a, b = jnp.split(y @ p[f"{name}f"] + p[f"{name}f_b"], 2, -1)
        return x + p[f"{name}gamma_z"] * ((a * b) @ p[f"{name}o"] + p[f"{name}o_b"])

    def forward(p, noisy):
        x = _conv(noisy, p["intro"]) + p["intro_b"]
        skip = block(p, "e0", x)
        x = _conv(skip, p["down"], 2, "VALID") + p["down_b"]
        x = block(p, "m1", block(p, "m0", x)) @ p["up"]
        b, h, w, _ = x.shape
        x = x.reshape(b, h, w, 2, 2, width).transpose(0, 1, 3, 2, 4, 5)
        x = block(p, "d0", x.reshape(b, 2 * h, 2 * w, width) + skip)
        return noisy + _conv(x, p["ending"]) + p["ending_b"]

    def loss_fn(p, noisy, clean):
        error = jnp.mean(jnp.square(forward(p, noisy) - clean), (1, 2, 3))
        return jnp.mean(10 * jnp.log10(error + 1e-10))

    def step(p, opt, noisy, clean):
        m, v, previous, t = opt
        loss, g = jax.value_and_grad(loss_fn)(p, noisy, clean)
        t = t + 1
        tf = t.astype(jnp.float32)
        c1, c2 = 1 - b1 ** tf, 1 - b2 ** tf
        m = jax.tree.map(lambda m_, d: b1 * m_ + (1 - b1) * d, m, g)
        v = jax.tree.map(lambda v_, d: b2 * v_ + (1 - b2) * d * d, v, g)
        p = jax.tree.map(lambda w, m_, v_, d, e: w - rate * jax.nn.sigmoid(jnp.abs(e - d))
                         * (m_ / c1) / (jnp.sqrt(v_ / c2) + 1e-8), p, m, v, g, previous)
        return p, (m, v, g, t), -loss

    rng = np.random.default_rng(92)
    noisy, clean = _noisy_scenes(rng, batch, side)
    previous = {k: jnp.asarray(rng.normal(0, 1e-3, w.shape).astype(np.float32))
                for k, w in params.items()}
    opt = (_zeros_like(params), _zeros_like(params), previous,
           jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(noisy), jnp.asarray(clean))


def _byte_text(rng: Any, count: int, length: int, words: int = 400) -> Any:
    """numpy int32 byte sequences (count, length) of text-like prose: words from a fixed
    lexicon of 400 (letters drawn by English-like frequency, 1 to 9 letters), chosen by a
    Zipf law, a few capitalized, separated by spaces, sometimes by a full stop."""
    import numpy as np

    table = np.random.default_rng(6000 + words)
    letters = np.frombuffer(b"etaoinshrdlcumwfgypbvkjxqz", np.uint8)
    lexicon = [letters[np.minimum(table.geometric(0.12, int(table.integers(1, 10))) - 1, 25)]
               for _ in range(words)]
    share = 1.0 / np.arange(1, words + 1)
    share /= share.sum()
    out = np.zeros((count, length), np.int32)
    for i in range(count):
        pieces, total = [], 0
        while total < length:
            word = lexicon[int(rng.choice(words, p=share))]
            if rng.random() < 0.08:
                word = np.concatenate([word[:1] - 32, word[1:]])
            tail = np.frombuffer(b". " if rng.random() < 0.07 else b" ", np.uint8)
            pieces += [word, tail]
            total += len(word) + len(tail)
        out[i] = np.concatenate(pieces)[:length]
    return out


def hourglass_adamax(batch: int = 4, length: int = 512, width: int = 64, heads: int = 4,
                     factor: int = 4, vocab: int = 256, rate: float = 2e-3,
                     warmup: int = 200, step_count: int = 50, b1: float = 0.9,
                     b2: float = 0.999) -> Any:
    """An Hourglass transformer (Nawrot et al.), a byte-level causal language model over
    512 bytes: learned positions, one pre-norm transformer layer at full length
    (four-head causal attention, a GELU feed-forward layer of four times the width), then
    the sequence shifted right by three and shortened by four (mean pooling and a
    matrix), two layers over the 128 shortened positions, linear upsampling (a matrix to
    four times the width, unfolded back to 512 positions) added to the full-length
    residual, one more full-length layer and a layer-normed readout. Cross-entropy in
    bits per byte; AdaMax (Kingma and Ba: the infinity-norm Adam) under a linear warmup
    of the rate computed from the step count."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    size = width // heads
    names = ("pre", "s0", "s1", "post")
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width),
                                          "pool": (width, width), "pool_b": (width,),
                                          "upsample": (width, factor * width),
                                          "upsample_b": (factor * width,)}
    for name in names:
        shapes.update({f"{name}n1_g": (width,), f"{name}n1_b": (width,),
                       f"{name}qkv": (width, 3 * width), f"{name}o": (width, width),
                       f"{name}o_b": (width,), f"{name}n2_g": (width,), f"{name}n2_b": (width,),
                       f"{name}f1": (width, 4 * width), f"{name}f1_b": (4 * width,),
                       f"{name}f2": (4 * width, width), f"{name}f2_b": (width,)})
    shapes.update({"nf_g": (width,), "nf_b": (width,), "out": (width, vocab),
                   "out_b": (vocab,)})
    params = _weights(shapes, seed=93)

    def layer(p, name, x):
        b, n, _ = x.shape
        h = _normalize(x, p[f"{name}n1_g"], p[f"{name}n1_b"])
        q, k, v = jnp.split((h @ p[f"{name}qkv"]).reshape(b, n, heads, 3 * size), 3, -1)
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(size)
        scores = jnp.where(jnp.tril(jnp.ones((n, n), bool)), scores, -1e9)
        mixed = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), v)
        x = x + mixed.reshape(b, n, width) @ p[f"{name}o"] + p[f"{name}o_b"]
        h = _normalize(x, p[f"{name}n2_g"], p[f"{name}n2_b"])
        return x + jax.nn.gelu(h @ p[f"{name}f1"] + p[f"{name}f1_b"]) @ p[f"{name}f2"] \
            + p[f"{name}f2_b"]

    def forward(p, tokens):
        b = tokens.shape[0]
        x = layer(p, "pre", p["embed"][tokens] + p["pos"])
        shifted = jnp.pad(x, ((0, 0), (factor - 1, 0), (0, 0)))[:, :length]
        short = jnp.mean(shifted.reshape(b, length // factor, factor, width), 2)
        short = layer(p, "s1", layer(p, "s0", short @ p["pool"] + p["pool_b"]))
        up = (short @ p["upsample"] + p["upsample_b"]).reshape(b, length, width)
        x = layer(p, "post", x + up)
        return _normalize(x, p["nf_g"], p["nf_b"]) @ p["out"] + p["out_b"]

    def loss_fn(p, tokens):
        return jnp.mean(_xent(forward(p, tokens[:, :-1]), tokens[:, 1:])) / math.log(2)

    def step(p, opt, tokens):
        m, u, t = opt
        loss, g = jax.value_and_grad(loss_fn)(p, tokens)
        t = t + 1
        tf = t.astype(jnp.float32)
        scaled = rate * jnp.minimum(1.0, tf / warmup) / (1 - b1 ** tf)
        m = jax.tree.map(lambda m_, d: b1 * m_ + (1 - b1) * d, m, g)
        u = jax.tree.map(lambda u_, d: jnp.maximum(b2 * u_, jnp.abs(d)), u, g)
        p = jax.tree.map(lambda w, m_, u_: w - scaled * m_ / (u_ + 1e-8), p, m, u)
        return p, (m, u, t), loss

    rng = np.random.default_rng(93)
    tokens = _byte_text(rng, batch, length + 1)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(tokens))


def _friedman(rng: Any, count: int, inputs: int = 10, noise: float = 0.5) -> tuple[Any, Any]:
    """numpy float32 inputs (count, inputs), uniform on the unit cube, and standardized
    targets (count,) of Friedman's first regression function, 10 sin(pi x0 x1) +
    20 (x2 - 1/2)^2 + 10 x3 + 5 x4, with Gaussian noise; the other inputs are irrelevant."""
    import numpy as np

    x = rng.uniform(0, 1, (count, inputs))
    y = (10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2 + 10 * x[:, 3]
         + 5 * x[:, 4] + noise * rng.standard_normal(count))
    return x.astype(np.float32), ((y - y.mean()) / y.std()).astype(np.float32)


def pau_lookbehind(rounds: int = 3, batch: int = 1024, inputs: int = 10, width: int = 64,
                   rate: float = 0.02, momentum: float = 0.9, rho: float = 0.05,
                   alpha: float = 0.5) -> Any:
    """An MLP (10 inputs, two hidden layers of 64) with Pade activation units (Molina,
    Schramowski and Kersting) regresses Friedman's first function: every hidden layer has
    its own learned rational activation P(x) / Q(x), P of degree 5 evaluated by Horner's
    rule and the safe denominator Q = 1 + sum |b_k| |x|^k of degree 4, both started from
    fixed coefficients of a smooth rectifier-like curve. The step is Lookbehind-SAM
    (Mordido, Malviya, Baratin and Chandar): a `fori_loop` of three rounds on three
    minibatches, each taking the gradient, climbing to the sharpness-aware perturbation
    (rho along the normalized gradient), taking the gradient there and moving fast
    weights by momentum SGD along it; the slow weights then move halfway to the fast."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes = {"w1": (inputs, width), "w1_b": (width,), "w2": (width, width), "w2_b": (width,),
              "w3": (width, 1), "w3_b": (1,)}
    params = _weights(shapes, seed=94)
    numerator = np.array([0.03, 0.5, 0.5, 0.15, 0.01, 0.0], np.float32)
    denominator = np.array([0.0, 0.5, 0.0, 0.01], np.float32)
    for l in (1, 2):
        params[f"a{l}"] = jnp.asarray(numerator)
        params[f"q{l}"] = jnp.asarray(denominator)

    def pade(x, a, b):
        top = a[5]
        for j in (4, 3, 2, 1, 0):
            top = top * x + a[j]
        magnitude = jnp.abs(x)
        bottom = jnp.abs(b[3])
        for j in (2, 1, 0):
            bottom = bottom * magnitude + jnp.abs(b[j])
        return top / (1 + bottom * magnitude)

    def loss_fn(p, x, y):
        h = pade(x @ p["w1"] + p["w1_b"], p["a1"], p["q1"])
        h = pade(h @ p["w2"] + p["w2_b"], p["a2"], p["q2"])
        return jnp.mean(jnp.square((h @ p["w3"] + p["w3_b"])[:, 0] - y))

    grad_of = jax.value_and_grad(loss_fn)

    def step(slow, velocity, xs, ys):
        def one_round(j, carry):
            fast, velocity, _, _ = carry
            x, y = xs[j], ys[j]
            loss, g = grad_of(fast, x, y)
            norm = _global_norm(g)
            climbed = jax.tree.map(lambda w, d: w + rho * d / (norm + 1e-12), fast, g)
            sharp, g = grad_of(climbed, x, y)
            velocity = jax.tree.map(lambda v, d: momentum * v + d, velocity, g)
            fast = jax.tree.map(lambda w, v: w - rate * v, fast, velocity)
            return fast, velocity, loss, sharp

        zero = jnp.zeros((), jnp.float32)
        fast, velocity, loss, sharp = lax.fori_loop(0, rounds, one_round,
                                                    (slow, velocity, zero, zero))
        slow = jax.tree.map(lambda s, f: s + alpha * (f - s), slow, fast)
        return slow, velocity, loss, sharp - loss

    rng = np.random.default_rng(94)
    x, y = _friedman(rng, rounds * batch, inputs)
    return jax.jit(step).lower(params, _zeros_like(params),
                               jnp.asarray(x.reshape(rounds, batch, inputs)),
                               jnp.asarray(y.reshape(rounds, batch)))


def nalu_arithmetic(steps: int = 8, batch: int = 2048, inputs: int = 64, hidden: int = 2,
                    rate: float = 0.01, sparsity: float = 1e-3, clip: float = 1.0) -> Any:
    """A two-layer neural arithmetic logic unit (Trask et al.) learns six functions of
    two sums over overlapping slices of 64 positive inputs (a + b, a - b, a b, a / b, a^2,
    sqrt a): each layer forms W = tanh(W^) sigmoid(M^) and mixes, by a learned sigmoid
    gate, an additive path x W with a multiplicative one exp(log(|x| + eps) W); 64 inputs
    to 2 hidden units to 6 outputs. The loss is the mean squared error of targets scaled
    per task, plus a penalty min(|W|, 1 - |W|) pulling the weights toward -1, 0 and 1. Eight
    Adam steps with global-norm clipping run in a `fori_loop` over eight minibatches;
    then the relative errors per task on inputs from a wider range (extrapolation)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    tasks = 6
    shapes = {"w1": (inputs, hidden), "m1": (inputs, hidden), "g1": (inputs, hidden),
              "w2": (hidden, tasks), "m2": (hidden, tasks), "g2": (hidden, tasks)}
    params = _weights(shapes, seed=95)
    left, right = slice(8, 24), slice(16, 40)

    def targets(x):
        a, b = x[:, left].sum(1), x[:, right].sum(1)
        return np.stack([a + b, a - b, a * b, a / b, a * a, np.sqrt(a)], 1).astype(np.float32)

    def nalu(x, w_hat, m_hat, g):
        w = jnp.tanh(w_hat) * jax.nn.sigmoid(m_hat)
        gate = jax.nn.sigmoid(x @ g)
        product = jnp.exp(jnp.log(jnp.abs(x) + 1e-7) @ w)
        return gate * (x @ w) + (1 - gate) * product, w

    def forward(p, x):
        h, w1 = nalu(x, p["w1"], p["m1"], p["g1"])
        y, w2 = nalu(h, p["w2"], p["m2"], p["g2"])
        penalty = sum(jnp.mean(jnp.minimum(jnp.abs(w), 1 - jnp.abs(w))) for w in (w1, w2))
        return y, penalty

    rng = np.random.default_rng(95)
    train = rng.uniform(0.1, 1.0, (steps, batch, inputs)).astype(np.float32)
    wide = rng.uniform(1.0, 3.0, (batch, inputs)).astype(np.float32)
    train_y = targets(train.reshape(-1, inputs)).reshape(steps, batch, tasks)
    scale = jnp.asarray(np.abs(train_y).reshape(-1, tasks).std(0) + 1e-3)

    def loss_fn(p, x, y):
        out, penalty = forward(p, x)
        return jnp.mean(jnp.square((out - y) / scale)) + sparsity * penalty

    def run(p, opt, xs, ys, x_wide, y_wide):
        def one(i, carry):
            p, (m, v, t), losses = carry
            loss, g = jax.value_and_grad(loss_fn)(p, xs[i], ys[i])
            norm = _global_norm(g)
            g = jax.tree.map(lambda d: d * jnp.minimum(1.0, clip / (norm + 1e-6)), g)
            p, m, v = _adam(p, g, m, v, t + 1, rate)
            return p, (m, v, t + 1), losses.at[i].set(loss)

        p, opt, losses = lax.fori_loop(0, steps, one, (p, opt, jnp.zeros(steps)))
        out, _ = forward(p, x_wide)
        relative = jnp.mean(jnp.abs(out - y_wide) / (jnp.abs(y_wide) + 1e-3), 0)
        return p, opt, losses, relative

    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(run).lower(params, opt, jnp.asarray(train), jnp.asarray(train_y),
                              jnp.asarray(wide), jnp.asarray(targets(wide)))


def _toy_objects(rng: Any, count: int, side: int) -> Any:
    """numpy float32 RGB pictures (count, side, side, 3) in [0, 1]: one to three objects
    (rotated ellipses, rotated squares or rings) of random colours over a noisy ground of
    another colour."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    out = np.zeros((count, side, side, 3))
    for i in range(count):
        picture = rng.uniform(0.0, 0.5, 3) + 0.08 * rng.standard_normal((side, side, 3))
        for _ in range(int(rng.integers(1, 4))):
            cx, cy = rng.uniform(0.2, 0.8, 2)
            r, angle = rng.uniform(0.1, 0.3), rng.uniform(0, np.pi)
            u = np.cos(angle) * (xx - cx) + np.sin(angle) * (yy - cy)
            v = -np.sin(angle) * (xx - cx) + np.cos(angle) * (yy - cy)
            kind = int(rng.integers(0, 3))
            if kind == 0:
                inside = (u / r) ** 2 + (v / (0.6 * r)) ** 2 < 1
            elif kind == 1:
                inside = np.maximum(np.abs(u), np.abs(v)) < 0.7 * r
            else:
                inside = np.abs(np.hypot(u, v) - 0.7 * r) < 0.25 * r
            picture = np.where(inside[..., None], rng.uniform(0.3, 1.0, 3), picture)
        out[i] = picture
    return np.clip(out, 0, 1).astype(np.float32)


def simsiam_pretrain(batch: int = 16, side: int = 24, pad: int = 3, proj: int = 128,
                     bottleneck: int = 32, rate: float = 0.05, momentum: float = 0.9,
                     decay: float = 1e-4, total: int = 800, step_count: int = 100) -> Any:
    """SimSiam (Chen and He) learns representations of 24x24 toy objects without labels
    or negatives: two views of every picture are made in the step (reflect-padded
    random crops by a `vmap` of dynamic slices, flips, brightness, contrast and
    saturation jitter, random greyscale); an encoder of three 3x3 convolutions (16, 32 and
    64 channels, the last two strided, batch norm and ReLU) and global pooling feeds a
    two-layer projector (batch norm) and a bottleneck predictor; the loss is the
    symmetrized negative cosine between each view's prediction and the other's projection
    under a stop-gradient. SGD with momentum and weight decay, the encoder's and
    projector's rate under a cosine decay from the step count, the predictor's fixed;
    the spread of the normalized projections is returned to watch for collapse."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes = {"c1": (3, 3, 3, 16), "c1_g": (16,), "c1_b": (16,),
              "c2": (3, 3, 16, 32), "c2_g": (32,), "c2_b": (32,),
              "c3": (3, 3, 32, 64), "c3_g": (64,), "c3_b": (64,),
              "j1": (64, proj), "j1_g": (proj,), "j1_b": (proj,),
              "j2": (proj, proj), "j2_g": (proj,), "j2_b": (proj,),
              "q1": (proj, bottleneck), "q1_g": (bottleneck,), "q1_b": (bottleneck,),
              "q2": (bottleneck, proj), "q2_b": (proj,)}
    params = _weights(shapes, seed=96)

    def augment(key, images):
        n = images.shape[0]
        k1, k2, k3, k4, k5, k6 = jax.random.split(key, 6)
        padded = jnp.pad(images, ((0, 0), (pad, pad), (pad, pad), (0, 0)), mode="reflect")
        corner = jax.random.randint(k1, (n, 2), 0, 2 * pad + 1)
        views = jax.vmap(lambda im, c: lax.dynamic_slice(im, (c[0], c[1], 0), (side, side, 3)))(
            padded, corner)
        views = jnp.where(jax.random.bernoulli(k2, 0.5, (n, 1, 1, 1)), views[:, :, ::-1], views)
        bright = jax.random.uniform(k3, (n, 1, 1, 1), minval=0.6, maxval=1.4)
        contrast = jax.random.uniform(k4, (n, 1, 1, 1), minval=0.6, maxval=1.4)
        mean = jnp.mean(views, (1, 2, 3), keepdims=True)
        views = (views - mean) * contrast + mean * bright
        grey = jnp.mean(views, -1, keepdims=True)
        saturation = jax.random.uniform(k5, (n, 1, 1, 1), minval=0.4, maxval=1.6)
        views = grey + (views - grey) * saturation
        views = jnp.where(jax.random.bernoulli(k6, 0.2, (n, 1, 1, 1)), grey, views)
        return jnp.clip(views, 0, 1)

    def project(p, x):
        for name, stride in (("c1", 1), ("c2", 2), ("c3", 2)):
            x = jax.nn.relu(_normalize(_conv(x, p[name], stride), p[f"{name}_g"],
                                       p[f"{name}_b"], (0, 1, 2)))
        h = jnp.mean(x, (1, 2))
        h = jax.nn.relu(_normalize(h @ p["j1"], p["j1_g"], p["j1_b"], (0,)))
        return _normalize(h @ p["j2"], p["j2_g"], p["j2_b"], (0,))

    def predict(p, z):
        h = jax.nn.relu(_normalize(z @ p["q1"], p["q1_g"], p["q1_b"], (0,)))
        return h @ p["q2"] + p["q2_b"]

    def unit(a):
        return a / (jnp.linalg.norm(a, axis=-1, keepdims=True) + 1e-8)

    def loss_fn(p, one, two):
        z1, z2 = project(p, one), project(p, two)
        p1, p2 = predict(p, z1), predict(p, z2)

        def distance(a, b):
            return -jnp.mean(jnp.sum(unit(a) * unit(lax.stop_gradient(b)), -1))

        return 0.5 * distance(p1, z2) + 0.5 * distance(p2, z1), z1

    def step(p, velocity, t, images, key):
        k1, k2 = jax.random.split(jax.random.fold_in(key, t))
        (loss, z), g = jax.value_and_grad(loss_fn, has_aux=True)(
            p, augment(k1, images), augment(k2, images))
        cosine = rate * 0.5 * (1 + jnp.cos(jnp.pi * jnp.minimum(t / total, 1.0)))
        velocity = jax.tree.map(lambda v, d, w: momentum * v + d + decay * w, velocity, g, p)
        p = {k: w - (rate if k.startswith("q") else cosine) * velocity[k] for k, w in p.items()}
        spread = jnp.mean(jnp.std(unit(z), 0)) * math.sqrt(proj)
        return p, velocity, t + 1, loss, spread

    rng = np.random.default_rng(96)
    images = _toy_objects(rng, batch, side)
    return jax.jit(step).lower(params, _zeros_like(params), jnp.asarray(step_count, jnp.int32),
                               jnp.asarray(images), jax.random.PRNGKey(96))


def _bouncing_blobs(rng: Any, count: int, frames: int, side: int, blobs: int = 2) -> Any:
    """numpy float32 videos (count, frames, side, side, 1) in [0, 1]: two Gaussian blobs
    of random radius moving at constant speed and bouncing off the walls."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    pos = rng.uniform(4, side - 4, (count, blobs, 2))
    vel = rng.uniform(-2.0, 2.0, (count, blobs, 2))
    radius = rng.uniform(1.5, 3.0, (count, blobs))
    video = np.zeros((count, frames, side, side))
    low, high = 2.0, side - 2.0
    for t in range(frames):
        for b in range(blobs):
            dy = yy - pos[:, b, 0, None, None]
            dx = xx - pos[:, b, 1, None, None]
            video[:, t] += np.exp(-(dy * dy + dx * dx) / (2 * radius[:, b, None, None] ** 2))
        pos = pos + vel
        below, above = pos < low, pos > high
        pos = np.where(below, 2 * low - pos, np.where(above, 2 * high - pos, pos))
        vel = np.where(below | above, -vel, vel)
    return np.clip(video, 0, 1)[..., None].astype(np.float32)


def dwconvgru_bouncing(batch: int = 6, frames: int = 9, side: int = 24, hidden: int = 16,
                       rate: float = 1e-3, rho: float = 0.95, momentum: float = 0.9,
                       clip: float = 1.0) -> Any:
    """A convolutional GRU with depthwise-separable recurrent convolutions predicts the
    next frame of 24x24 videos of two bouncing blobs: a 3x3 convolution encodes every
    frame to 16 channels, projected pointwise to the input terms of the gates; the cell,
    the body of a `lax.scan` over eight frames, computes the update and reset gates from
    a depthwise 3x3 convolution of the hidden state followed by a pointwise matrix, and
    the candidate from a depthwise 3x3 convolution of the reset-gated state followed by a
    pointwise matrix, and reads out a logit of the next frame pointwise. Binary
    cross-entropy against the next frames; Graves' centered RMSProp with momentum, the
    gradient clipped elementwise."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes = {"enc": (3, 3, 1, hidden), "enc_b": (hidden,), "xg": (hidden, 3 * hidden),
              "xg_b": (3 * hidden,), "dz": (3, 3, 1, hidden), "pz": (hidden, 2 * hidden),
              "dc": (3, 3, 1, hidden), "pc": (hidden, hidden), "dec": (hidden, 1),
              "dec_b": (1,)}
    params = _weights(shapes, seed=97)

    def loss_fn(p, video):
        inputs, targets = video[:, :-1], video[:, 1:]
        b, t = inputs.shape[:2]
        feats = jax.nn.relu(_conv(inputs.reshape(b * t, side, side, 1), p["enc"]) + p["enc_b"])
        drive = (feats @ p["xg"] + p["xg_b"]).reshape(b, t, side, side, 3 * hidden)

        def cell(h, d):
            gates = jax.nn.sigmoid(_conv(h, p["dz"], groups=hidden) @ p["pz"] + d[..., :2 * hidden])
            z, r = jnp.split(gates, 2, -1)
            candidate = jnp.tanh(_conv(r * h, p["dc"], groups=hidden) @ p["pc"]
                                 + d[..., 2 * hidden:])
            h = (1 - z) * h + z * candidate
            return h, h @ p["dec"] + p["dec_b"]

        _, logits = lax.scan(cell, jnp.zeros((b, side, side, hidden)), jnp.moveaxis(drive, 1, 0))
        logits = jnp.moveaxis(logits, 0, 1)
        return jnp.mean(jnp.maximum(logits, 0) - logits * targets
                        + jnp.log1p(jnp.exp(-jnp.abs(logits))))

    def step(p, opt, video):
        square, mean, delta = opt
        loss, g = jax.value_and_grad(loss_fn)(p, video)
        g = jax.tree.map(lambda d: jnp.clip(d, -clip, clip), g)
        square = jax.tree.map(lambda n, d: rho * n + (1 - rho) * d * d, square, g)
        mean = jax.tree.map(lambda a, d: rho * a + (1 - rho) * d, mean, g)
        delta = jax.tree.map(lambda s, n, a, d: momentum * s - rate * d
                             / jnp.sqrt(jnp.maximum(n - a * a, 0.0) + 1e-4),
                             delta, square, mean, g)
        p = jax.tree.map(lambda w, s: w + s, p, delta)
        return p, (square, mean, delta), loss

    rng = np.random.default_rng(97)
    video = _bouncing_blobs(rng, batch, frames, side)
    opt = (_zeros_like(params), _zeros_like(params), _zeros_like(params))
    return jax.jit(step).lower(params, opt, jnp.asarray(video))


def _markov_tokens(rng: Any, count: int, length: int, vocab: int, branching: int = 6) -> Any:
    """numpy int32 token sequences (count, length) from a fixed sparse bigram source:
    every token has six possible successors, chosen with probabilities falling as 1/k."""
    import numpy as np

    table = np.random.default_rng(7000 + vocab).integers(0, vocab, (vocab, branching))
    share = 1.0 / np.arange(1, branching + 1)
    share /= share.sum()
    tokens = np.zeros((count, length), np.int32)
    tokens[:, 0] = rng.integers(0, vocab, count)
    for t in range(1, length):
        tokens[:, t] = table[tokens[:, t - 1], rng.choice(branching, count, p=share)]
    return tokens


def palm_parallel_mqa(batch: int = 4, length: int = 128, vocab: int = 512, width: int = 128,
                      heads: int = 4, layers: int = 2, hidden: int = 256, rate: float = 2e-3,
                      warmup: int = 100, zloss: float = 1e-4, b1: float = 0.9,
                      b2: float = 0.99, step_count: int = 300) -> Any:
    """A PaLM-style causal language model (Chowdhery et al.) in bfloat16 over float32
    master weights, on a sparse bigram source: parallel blocks (x + attention(norm x) +
    MLP(norm x), one shared RMS norm, no biases), multi-query attention (four query heads
    share one key and one value head) with rotary position embeddings, SwiGLU MLPs, shared
    input and output embeddings, and the auxiliary z-loss on the log partition function.
    Adam whose update is divided by its root mean square when that exceeds one, with
    PaLM's weight decay of the squared rate, the rate an inverse square root of the step
    count after warmup."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    size = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width)}
    for l in range(layers):
        shapes.update({f"{l}n_g": (width,), f"{l}q": (width, width), f"{l}kv": (width, 2 * size),
                       f"{l}o": (width, width), f"{l}up": (width, 2 * hidden),
                       f"{l}down": (hidden, width)})
    shapes["final_g"] = (width,)
    params = _weights(shapes, seed=98)
    angle = np.arange(length)[:, None] / 10000.0 ** (np.arange(size // 2) / (size // 2))
    cos, sin = jnp.asarray(np.cos(angle), bf16), jnp.asarray(np.sin(angle), bf16)
    causal = np.tril(np.ones((length, length), bool))

    def rotate(x, c, s):
        x1, x2 = jnp.split(x, 2, -1)
        return jnp.concatenate([x1 * c - x2 * s, x1 * s + x2 * c], -1)

    def forward(p32, tokens):
        p = jax.tree.map(lambda w: w.astype(bf16), p32)
        x = p["embed"][tokens]
        b, n, _ = x.shape
        for l in range(layers):
            h = _rms_norm(x, p[f"{l}n_g"])
            q = rotate((h @ p[f"{l}q"]).reshape(b, n, heads, size), cos[:, None], sin[:, None])
            k, v = jnp.split(h @ p[f"{l}kv"], 2, -1)
            k = rotate(k, cos, sin)
            scores = jnp.einsum("bqhd,bkd->bhqk", q, k).astype(f32) / math.sqrt(size)
            att = jax.nn.softmax(jnp.where(causal, scores, -1e9), -1).astype(bf16)
            mixed = jnp.einsum("bhqk,bkd->bqhd", att, v).reshape(b, n, width) @ p[f"{l}o"]
            gate, up = jnp.split(h @ p[f"{l}up"], 2, -1)
            x = x + mixed + (jax.nn.silu(gate) * up) @ p[f"{l}down"]
        return (_rms_norm(x, p["final_g"]) @ p["embed"].T).astype(f32)

    def loss_fn(p, tokens):
        logits = forward(p, tokens[:, :-1])
        log_z = jax.nn.logsumexp(logits, -1)
        picked = jnp.take_along_axis(logits, tokens[:, 1:, None], -1)[..., 0]
        xent = jnp.mean(log_z - picked)
        return xent + zloss * jnp.mean(log_z * log_z), xent

    def step(p, opt, tokens):
        m, v, t = opt
        (_, xent), g = jax.value_and_grad(loss_fn, has_aux=True)(p, tokens)
        t = t + 1
        tf = t.astype(f32)
        lr = rate * jnp.minimum(1.0, tf / warmup) * jax.lax.rsqrt(jnp.maximum(tf / warmup, 1.0))
        m = jax.tree.map(lambda m_, d: b1 * m_ + (1 - b1) * d, m, g)
        v = jax.tree.map(lambda v_, d: b2 * v_ + (1 - b2) * d * d, v, g)

        def move(w, m_, v_):
            u = (m_ / (1 - b1 ** tf)) / (jnp.sqrt(v_ / (1 - b2 ** tf)) + 1e-8)
            u = u / jnp.maximum(1.0, jnp.sqrt(jnp.mean(u * u)))
            return w - lr * u - lr * lr * w

        return jax.tree.map(move, p, m, v), (m, v, t), xent

    rng = np.random.default_rng(98)
    tokens = _markov_tokens(rng, batch, length + 1, vocab)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(tokens))


def swift_hohenberg_spectral(side: int = 128, steps: int = 120, dt: float = 0.5,
                             bins: int = 64) -> Any:
    """The Swift-Hohenberg equation u_t = r u - (1 + laplacian)^2 u + g u^2 - u^3 on four
    periodic 128x128 grids, no gradient, in four regimes (r, g) between stripes and
    hexagonal spots, the domain eight critical wavelengths wide (sixteen grid points to a
    wavelength): a pseudo-spectral semi-implicit scheme in a `fori_loop` of 120 steps,
    each an inverse real 2-D FFT, the nonlinear terms in real space, a forward real FFT
    with two-thirds dealiasing, and the linear operator taken implicitly. Returned: the
    fields, their radially averaged structure factors (scatter-adds over wavenumber
    shells) and peak wavenumbers, the Lyapunov functional (a spectral (1 + laplacian) u),
    the count of local maxima (spots) from rolled neighbours and the share of power near
    the critical wavenumber."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    span = 8 * 2 * np.pi
    ky = 2 * np.pi * np.fft.fftfreq(side, span / side)
    kx = 2 * np.pi * np.fft.rfftfreq(side, span / side)
    k2 = (ky[:, None] ** 2 + kx[None, :] ** 2).astype(np.float32)
    top = 2.0 / 3.0 * np.abs(ky).max()
    keep = jnp.asarray(((np.abs(ky)[:, None] < top) & (np.abs(kx)[None, :] < top)), jnp.float32)
    shell = np.minimum(np.round(np.sqrt(k2) / (2 * np.pi / span)), bins - 1).astype(np.int32)
    shell = jnp.asarray(shell)
    operator = jnp.asarray((1 - k2) ** 2)
    squared = jnp.asarray(1 - k2)
    near = jnp.asarray(np.abs(np.sqrt(k2) - 1) < 0.15, jnp.float32)
    shape = (side, side)

    def run(u0, r, g):
        r3, g3 = r[:, None, None], g[:, None, None]
        implicit = 1.0 / (1.0 - dt * (r3 - operator))

        def body(_, u_hat):
            u = jnp.fft.irfft2(u_hat, shape)
            nonlinear = jnp.fft.rfft2(g3 * u * u - u * u * u) * keep
            return (u_hat + dt * nonlinear) * implicit

        u_hat = lax.fori_loop(0, steps, body, jnp.fft.rfft2(u0))
        u = jnp.fft.irfft2(u_hat, shape)
        power = jnp.abs(u_hat) ** 2 / side ** 4
        structure = jnp.zeros((u.shape[0], bins)).at[:, shell].add(power)
        peak = jnp.argmax(structure[:, 1:], -1) + 1
        smooth = jnp.fft.irfft2(u_hat * squared, shape)
        energy = jnp.mean(-0.5 * r3 * u * u + 0.5 * smooth * smooth - g3 * u ** 3 / 3
                          + u ** 4 / 4, (1, 2))
        higher = jnp.ones(u.shape, bool)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy or dx:
                    higher = higher & (u > jnp.roll(u, (dy, dx), (1, 2)))
        spots = jnp.sum(higher & (u > 0.1), (1, 2))
        share = jnp.sum(power * near, (1, 2)) / (jnp.sum(power, (1, 2)) - power[:, 0, 0] + 1e-12)
        return u, structure, peak, energy, spots, share

    rng = np.random.default_rng(99)
    u0 = 0.1 * rng.standard_normal((4, side, side))
    r = np.array([0.3, 0.1, 0.25, 0.05])
    g = np.array([0.0, 1.0, 0.6, 1.6])
    return jax.jit(run).lower(*(jnp.asarray(a, jnp.float32) for a in (u0, r, g)))


def _conductivity(rng: Any, fields: int, side: int) -> tuple[Any, Any]:
    """numpy float32 conductivities (fields, side, side) between 0.1 and 10, one kind per
    field in turn (tilted layers, circular inclusions in a matrix, a smooth random field
    from filtered noise), and heat sources: three Gaussian heaters per field."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    kappa = np.zeros((fields, side, side))
    source = np.zeros((fields, side, side))
    for f in range(fields):
        kind = f % 3
        if kind == 0:
            level = np.sin(2 * np.pi * rng.uniform(2, 5) * (yy + rng.uniform(-0.3, 0.3) * xx))
            kappa[f] = np.where(level > 0, 10.0, 0.3)
        elif kind == 1:
            kappa[f] = 1.0
            for _ in range(12):
                cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.03, 0.1)
                kappa[f] = np.where((xx - cx) ** 2 + (yy - cy) ** 2 < r * r,
                                    rng.choice([0.1, 10.0]), kappa[f])
        else:
            noise = np.fft.fft2(rng.standard_normal((side, side)))
            k = np.fft.fftfreq(side)
            smooth = np.real(np.fft.ifft2(noise * np.exp(-(k[:, None] ** 2 + k[None] ** 2)
                                                         * (2 * np.pi * 4) ** 2 / 2)))
            kappa[f] = np.exp(np.clip(smooth / smooth.std(), -2.3, 2.3))
        for _ in range(3):
            cx, cy = rng.uniform(0.2, 0.8, 2)
            source[f] += 50 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * 0.04 ** 2))
    return kappa.astype(np.float32), source.astype(np.float32)


def adi_heat_thomas(fields: int = 3, side: int = 64, steps: int = 24, dt: float = 5e-4) -> Any:
    """The heat equation u_t = div(kappa grad u) + f with piecewise and smoothly varying
    conductivities on three 64x64 grids with zero Dirichlet boundaries, no gradient, by
    the Peaceman-Rachford alternating-direction implicit scheme: conductivities at the
    faces by harmonic means; each of 24 steps (a `fori_loop`) takes a half step implicit
    in x and explicit in y, then one implicit in y and explicit in x, every implicit half
    a tridiagonal solve along all rows at once by the Thomas algorithm, its elimination
    factored once per direction (a `fori_loop` over the 64 rows) and its forward and back
    substitutions two `fori_loop`s of 64 row updates each (dynamic slices and updates).
    Returned: the temperatures, the heat content, the peak and the boundary outflow."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    h2 = (1.0 / (side + 1)) ** 2
    c = 0.5 * dt / h2

    def row(a, i):
        return lax.dynamic_index_in_dim(a, i, 0, keepdims=False)

    def put(a, value, i):
        return lax.dynamic_update_index_in_dim(a, value, i, 0)

    def faces(kappa):                        # along the last axis: (..., side + 1)
        inner = 2 * kappa[..., :-1] * kappa[..., 1:] / (kappa[..., :-1] + kappa[..., 1:])
        return jnp.concatenate([kappa[..., :1], inner, kappa[..., -1:]], -1)

    def apply(u, face):                      # the operator along the last axis
        ahead = jnp.concatenate([u[..., 1:], jnp.zeros_like(u[..., :1])], -1)
        behind = jnp.concatenate([jnp.zeros_like(u[..., :1]), u[..., :-1]], -1)
        return (face[..., 1:] * (ahead - u) - face[..., :-1] * (u - behind)) / h2

    def factor(face):                        # Thomas elimination, the solve axis first
        lower = jnp.moveaxis(-c * face[..., :-1], -1, 0)
        diag = jnp.moveaxis(1 + c * (face[..., :-1] + face[..., 1:]), -1, 0)
        upper = jnp.moveaxis(-c * face[..., 1:], -1, 0)

        def body(i, carry):
            ratio, pivot = carry
            before = jnp.where(i > 0, row(ratio, jnp.maximum(i - 1, 0)), 0.0)
            d = row(diag, i) - row(lower, i) * before
            return put(ratio, row(upper, i) / d, i), put(pivot, d, i)

        ratio, pivot = lax.fori_loop(0, side, body, (jnp.zeros_like(diag), jnp.zeros_like(diag)))
        return lower, ratio, pivot

    def solve(factors, rhs):
        lower, ratio, pivot = factors

        def forward(i, y):
            before = jnp.where(i > 0, row(y, jnp.maximum(i - 1, 0)), 0.0)
            return put(y, (row(y, i) - row(lower, i) * before) / row(pivot, i), i)

        def backward(j, y):
            i = side - 1 - j
            after = jnp.where(i < side - 1, row(y, jnp.minimum(i + 1, side - 1)), 0.0)
            return put(y, row(y, i) - row(ratio, i) * after, i)

        y = lax.fori_loop(0, side, forward, rhs)
        return lax.fori_loop(0, side, backward, y)

    def run(kappa, source):
        face_x = faces(kappa)                                    # (fields, y, x + 1)
        face_y = faces(jnp.swapaxes(kappa, 1, 2))                # (fields, x, y + 1)
        solve_x, solve_y = factor(face_x), factor(face_y)

        def tick(_, u):
            explicit = jnp.swapaxes(apply(jnp.swapaxes(u, 1, 2), face_y), 1, 2)
            half = u + 0.5 * dt * (explicit + source)
            u = jnp.moveaxis(solve(solve_x, jnp.moveaxis(half, 2, 0)), 0, 2)
            rhs = u + 0.5 * dt * (apply(u, face_x) + source)
            return jnp.moveaxis(solve(solve_y, jnp.moveaxis(rhs, 1, 0)), 0, 1)

        u = lax.fori_loop(0, steps, tick, jnp.zeros_like(kappa))
        heat = jnp.sum(u, (1, 2)) * h2
        outflow = (jnp.sum(face_x[..., 0] * u[..., 0] + face_x[..., -1] * u[..., -1], -1)
                   + jnp.sum(face_y[..., 0] * u[:, 0] + face_y[..., -1] * u[:, -1], -1))
        return u, heat, jnp.max(u, (1, 2)), outflow

    rng = np.random.default_rng(100)
    kappa, source = _conductivity(rng, fields, side)
    return jax.jit(run).lower(jnp.asarray(kappa), jnp.asarray(source))


def _log_permeability(rng: Any, fields: int, side: int) -> Any:
    """numpy float32 log-permeabilities (fields, side, side): Gaussian random fields of
    correlation lengths 3, 8 and 20 cells (filtered noise, standard deviation 1.5), and
    one of sinuous high-permeability channels in a tight matrix."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    out = np.zeros((fields, side, side))
    k = np.fft.fftfreq(side)
    for f in range(fields):
        if f % 4 == 3:
            channels = np.zeros((side, side), bool)
            for _ in range(4):
                centre = rng.uniform(0.1, 0.9) + 0.08 * np.sin(2 * np.pi * rng.uniform(1, 3) * xx
                                                              + rng.uniform(0, 2 * np.pi))
                channels |= np.abs(yy - centre) < rng.uniform(0.01, 0.03)
            out[f] = np.where(channels, 2.5, -2.0) + 0.3 * rng.standard_normal((side, side))
        else:
            length = (3.0, 8.0, 20.0)[f % 4]
            noise = np.fft.fft2(rng.standard_normal((side, side)))
            filt = np.exp(-(k[:, None] ** 2 + k[None] ** 2) * (2 * np.pi * length) ** 2 / 2)
            smooth = np.real(np.fft.ifft2(noise * filt))
            out[f] = 1.5 * smooth / smooth.std()
    return out.astype(np.float32)


def darcy_sor_redblack(fields: int = 4, side: int = 128, sweeps: int = 150) -> Any:
    """Single-phase Darcy flow, -div(K grad p) = 0, through four 128x128 log-normal and
    channelized permeability fields, no gradient: pressure 1 at the left edge, 0 at the
    right, no flow across the top and bottom; transmissibilities by harmonic means; a
    `fori_loop` of 150 red-black successive over-relaxation sweeps with Chebyshev
    acceleration (the relaxation factor updated every half sweep from the Jacobi
    spectral radius cos(pi / n)), the residual norm recorded every sweep. Returned: the
    pressures, the inflow and outflow (mass balance), the effective permeabilities, the
    largest face flux and the residual history."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rho2 = math.cos(math.pi / side) ** 2

    def run(log_k):
        k = jnp.exp(log_k)
        across = 2 * k[..., :-1] * k[..., 1:] / (k[..., :-1] + k[..., 1:])
        west = jnp.concatenate([2 * k[..., :1], across], -1)
        east = jnp.concatenate([across, 2 * k[..., -1:]], -1)
        down = 2 * k[:, :-1] * k[:, 1:] / (k[:, :-1] + k[:, 1:])
        none = jnp.zeros_like(k[:, :1])
        north = jnp.concatenate([none, down], 1)
        south = jnp.concatenate([down, none], 1)
        total = west + east + north + south
        iy = lax.broadcasted_iota(jnp.int32, (side, side), 0)
        ix = lax.broadcasted_iota(jnp.int32, (side, side), 1)
        red = (iy + ix) % 2 == 0

        def pull(p):
            left = jnp.concatenate([jnp.ones_like(p[..., :1]), p[..., :-1]], -1)
            right = jnp.concatenate([p[..., 1:], jnp.zeros_like(p[..., :1])], -1)
            up = jnp.concatenate([p[:, :1], p[:, :-1]], 1)
            below = jnp.concatenate([p[:, 1:], p[:, -1:]], 1)
            return west * left + east * right + north * up + south * below

        def relax(p, colour, omega):
            return jnp.where(colour, p + omega * (pull(p) / total - p), p)

        def sweep(i, carry):
            p, omega, history = carry
            p = relax(p, red, omega)
            omega = jnp.where(i == 0, 1 / (1 - 0.5 * rho2), 1 / (1 - 0.25 * rho2 * omega))
            p = relax(p, ~red, omega)
            omega = 1 / (1 - 0.25 * rho2 * omega)
            residual = jnp.sqrt(jnp.mean(jnp.square(pull(p) - total * p), (1, 2)))
            return p, omega, history.at[i].set(residual)

        start = jnp.broadcast_to(1 - (jnp.arange(side) + 0.5) / side, k.shape)
        p, _, history = lax.fori_loop(0, sweeps, sweep, (start, jnp.ones((), jnp.float32),
                                                         jnp.zeros((sweeps, k.shape[0]))))
        inflow = jnp.sum(west[..., 0] * (1 - p[..., 0]), -1)
        outflow = jnp.sum(east[..., -1] * p[..., -1], -1)
        flux_x = across * (p[..., :-1] - p[..., 1:])
        flux_y = down * (p[:, :-1] - p[:, 1:])
        largest = jnp.maximum(jnp.max(jnp.abs(flux_x), (1, 2)), jnp.max(jnp.abs(flux_y), (1, 2)))
        balance = (inflow - outflow) / (jnp.abs(inflow) + 1e-12)
        effective = 0.5 * (inflow + outflow)
        return p, inflow, outflow, balance, effective, largest, history

    rng = np.random.default_rng(101)
    return jax.jit(run).lower(jnp.asarray(_log_permeability(rng, fields, side)))


def _point_sets(rng: Any, sets: int, count: int) -> Any:
    """numpy float32 points (sets, count, 2) in [0, 1)^2, one kind per set in turn:
    uniform, a mixture of twelve tight Gaussian clusters, a noisy ring, and short line
    segments at random angles."""
    import numpy as np

    out = np.zeros((sets, count, 2))
    for s in range(sets):
        kind = s % 4
        if kind == 0:
            out[s] = rng.uniform(0, 1, (count, 2))
        elif kind == 1:
            centres = rng.uniform(0.1, 0.9, (12, 2))
            out[s] = centres[rng.integers(0, 12, count)] + rng.normal(0, 0.02, (count, 2))
        elif kind == 2:
            angle = rng.uniform(0, 2 * np.pi, count)
            radius = 0.35 + rng.normal(0, 0.01, count)
            out[s] = 0.5 + radius[:, None] * np.stack([np.cos(angle), np.sin(angle)], 1)
        else:
            starts = rng.uniform(0.1, 0.9, (64, 2))
            angles = rng.uniform(0, np.pi, 64)
            which, t = rng.integers(0, 64, count), rng.uniform(-0.1, 0.1, count)
            out[s] = starts[which] + t[:, None] * np.stack([np.cos(angles[which]),
                                                            np.sin(angles[which])], 1)
    return np.clip(out, 0, 1 - 1e-6).astype(np.float32)


def hilbert_curve_order(sets: int = 4, count: int = 65536, levels: int = 16, chunk: int = 1024,
                        queries: int = 4096, reach: int = 8, longest: int = 8) -> Any:
    """Space-filling-curve orders of four sets of 65536 points (uniform, clustered, a
    ring, segments), no gradient: coordinates quantized to 16-bit integers; Hilbert
    indices by the rotate-and-reflect recurrence in uint32 (a `fori_loop` over the 16 bit
    levels, shifts by the loop counter, XOR reflections and swaps) and their inverse (a
    second `fori_loop`) as a round-trip check; Morton indices by bit spreading with magic
    masks. Each order is a `sort` of keys carrying the point indices; then gathers of the
    points in curve order, step lengths and the eight longest jumps (`top_k`), bounding
    boxes of chunks of 1024 consecutive points, and approximate nearest neighbours of 4096
    query points among the sixteen curve neighbours of their insertion point
    (`searchsorted` and gathers)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    top = levels - 1
    mask = (1 << levels) - 1

    def hilbert(x, y):
        def level(i, carry):
            x, y, d = carry
            s = jnp.left_shift(u32(1), (top - i).astype(u32))
            rx = ((x & s) > 0).astype(u32)
            ry = ((y & s) > 0).astype(u32)
            d = d + s * s * ((3 * rx) ^ ry)
            flip = (ry == 0) & (rx == 1)
            x, y = jnp.where(flip, x ^ u32(mask), x), jnp.where(flip, y ^ u32(mask), y)
            swap = ry == 0
            return jnp.where(swap, y, x), jnp.where(swap, x, y), d

        return lax.fori_loop(0, levels, level, (x, y, jnp.zeros_like(x)))[2]

    def inverse(d):
        def level(i, carry):
            x, y, t = carry
            s = jnp.left_shift(u32(1), i.astype(u32))
            rx = u32(1) & (t >> 1)
            ry = u32(1) & (t ^ rx)
            flip = (ry == 0) & (rx == 1)
            x, y = jnp.where(flip, s - 1 - x, x), jnp.where(flip, s - 1 - y, y)
            swap = ry == 0
            x, y = jnp.where(swap, y, x), jnp.where(swap, x, y)
            return x + s * rx, y + s * ry, t >> 2

        x, y, _ = lax.fori_loop(0, levels, level, (jnp.zeros_like(d), jnp.zeros_like(d), d))
        return x, y

    def spread(v):
        v = (v | (v << 8)) & u32(0x00FF00FF)
        v = (v | (v << 4)) & u32(0x0F0F0F0F)
        v = (v | (v << 2)) & u32(0x33333333)
        return (v | (v << 1)) & u32(0x55555555)

    def quantize(points):
        return jnp.clip(jnp.floor(points * (1 << levels)), 0, mask).astype(u32)

    def run(points, probes):
        q = quantize(points)
        x, y = q[..., 0], q[..., 1]
        keys = {"hilbert": hilbert(x, y), "morton": spread(x) | (spread(y) << 1)}
        back_x, back_y = inverse(keys["hilbert"])
        round_trip = jnp.all((back_x == x) & (back_y == y), -1)
        index = jnp.broadcast_to(jnp.arange(count, dtype=jnp.int32), x.shape)
        report = {}
        for name, key in keys.items():
            ordered, order = lax.sort((key, index), dimension=-1, num_keys=1)
            walk = jnp.take_along_axis(points, order[..., None], 1)
            jumps = jnp.linalg.norm(walk[:, 1:] - walk[:, :-1], axis=-1)
            boxes = walk.reshape(sets, count // chunk, chunk, 2)
            extent = jnp.max(boxes, 2) - jnp.min(boxes, 2)
            report[name] = (jnp.mean(jumps, -1), lax.top_k(jumps, longest)[0],
                            jnp.mean(extent[..., 0] * extent[..., 1], -1))
            if name == "hilbert":
                pq = quantize(probes)
                probe_keys = hilbert(pq[..., 0], pq[..., 1])
                where = jax.vmap(jnp.searchsorted)(ordered, probe_keys)
                around = jnp.clip(where[..., None] + jnp.arange(-reach, reach), 0, count - 1)
                near = jnp.take_along_axis(walk, around.reshape(sets, -1, 1), 1)
                near = near.reshape(sets, queries, 2 * reach, 2)
                nearest = jnp.min(jnp.linalg.norm(near - probes[:, :, None], axis=-1), -1)
                report["neighbour"] = jnp.mean(nearest, -1)
        return round_trip, report

    rng = np.random.default_rng(102)
    points = _point_sets(rng, sets, count)
    probes = _point_sets(rng, sets, queries)
    return jax.jit(run).lower(jnp.asarray(points), jnp.asarray(probes))


def xxhash_hash_join(build: int = 65536, probe: int = 262144, probes: int = 4,
                     groups: int = 256, buckets: int = 4096, filter_bits: int = 19,
                     hashes: int = 3) -> Any:
    """An equi-join of 262144 probe rows against 65536 build rows keyed by int32, no
    gradient: xxHash32 of the 4-byte keys with two seeds (uint32 multiplies that wrap,
    rotations, shifts and XORs); a Bloom filter of 2^19 bits set by a scatter from three
    double-hashed positions per build key and tested by gathers; the build side sorted by
    hash carrying keys and payloads (a three-operand `sort`), every probe row placed by
    `searchsorted` and compared with the next four candidates (gathers); matched payloads
    summed per probe group by scatter-adds. Returned: matches per group, weighted sums,
    the Bloom filter's false-positive rate, hash collisions among adjacent sorted keys,
    and the load of 4096 hash buckets (largest, chi-squared against uniform)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    prime1, prime2, prime3 = u32(0x9E3779B1), u32(0x85EBCA77), u32(0xC2B2AE3D)
    prime4, prime5 = u32(0x27D4EB2F), u32(0x165667B1)
    shift = 32 - int(math.log2(buckets))
    size = 1 << filter_bits

    def rotl(h, r):
        return (h << r) | (h >> (32 - r))

    def xxh32(keys, seed):
        h = u32(seed) + prime5 + u32(4)
        h = h + keys.astype(u32) * prime3
        h = rotl(h, 17) * prime4
        h = h ^ (h >> 15)
        h = h * prime2
        h = h ^ (h >> 13)
        h = h * prime3
        return h ^ (h >> 16)

    def bloom_positions(keys):
        first, second = xxh32(keys, 0), xxh32(keys, int(prime1)) | u32(1)
        steps = jnp.arange(hashes, dtype=u32)
        return ((first[:, None] + steps * second[:, None]) & u32(size - 1)).astype(jnp.int32)

    def run(build_keys, build_values, probe_keys, probe_groups, probe_weights):
        build_hash, probe_hash = xxh32(build_keys, 0), xxh32(probe_keys, 0)
        bits = jnp.zeros(size, bool).at[bloom_positions(build_keys).reshape(-1)].set(True)
        maybe = jnp.all(bits[bloom_positions(probe_keys)], -1)
        hashed, keys, values = lax.sort((build_hash, build_keys, build_values), num_keys=1)
        start = jnp.searchsorted(hashed, probe_hash)
        slots = start[:, None] + jnp.arange(probes)
        safe = jnp.minimum(slots, build - 1)
        hit = ((hashed[safe] == probe_hash[:, None]) & (keys[safe] == probe_keys[:, None])
               & (slots < build))
        matched = jnp.any(hit, -1)
        payload = jnp.sum(jnp.where(hit, values[safe], 0.0), -1)
        counts = jnp.zeros(groups, jnp.int32).at[probe_groups].add(matched.astype(jnp.int32))
        sums = jnp.zeros(groups).at[probe_groups].add(payload * probe_weights)
        absent = ~matched
        false_positive = jnp.sum(maybe & absent) / jnp.maximum(jnp.sum(absent), 1)
        collisions = jnp.sum((hashed[1:] == hashed[:-1]) & (keys[1:] != keys[:-1]))
        load = jnp.zeros(buckets, jnp.int32).at[(build_hash >> shift).astype(jnp.int32)].add(1)
        expected = build / buckets
        chi2 = jnp.sum(jnp.square(load - expected) / expected)
        return counts, sums, false_positive, collisions, jnp.max(load), chi2, jnp.mean(maybe)

    rng = np.random.default_rng(103)
    build_keys = rng.choice(1 << 22, build, replace=False).astype(np.int32)
    build_values = rng.lognormal(0, 1, build).astype(np.float32)
    present = rng.random(probe) < 0.6
    popular = np.minimum(rng.zipf(1.3, probe) - 1, build - 1)
    probe_keys = np.where(present, build_keys[popular],
                          rng.integers(0, 1 << 22, probe)).astype(np.int32)
    probe_groups = rng.integers(0, groups, probe).astype(np.int32)
    probe_weights = rng.integers(1, 10, probe).astype(np.float32)
    return jax.jit(run).lower(*(jnp.asarray(a) for a in (build_keys, build_values, probe_keys,
                                                         probe_groups, probe_weights)))


def _impulse_scenes(rng: Any, count: int, side: int) -> tuple[Any, Any, Any]:
    """numpy float32 grey pictures (count, side, side) in [0.05, 0.95] (a graded ground,
    discs and bars, fine texture), copies corrupted by salt-and-pepper noise at densities
    10%, 25%, 40% and 55% in turn, and the boolean masks of corrupted pixels."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    clean = np.zeros((count, side, side))
    for i in range(count):
        picture = 0.3 + 0.3 * (rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy)
        for _ in range(6):
            cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.05, 0.2)
            shape = ((xx - cx) ** 2 + (yy - cy) ** 2 < r * r if rng.random() < 0.5
                     else (np.abs(xx - cx) < r) & (np.abs(yy - cy) < 0.25 * r))
            picture = np.where(shape, rng.uniform(0.1, 0.9), picture)
        picture += 0.04 * np.sin(2 * np.pi * rng.uniform(8, 20) * (xx + rng.uniform() * yy))
        clean[i] = np.clip(picture, 0.05, 0.95)
    density = np.array([0.10, 0.25, 0.40, 0.55])[np.arange(count) % 4][:, None, None]
    draw = rng.random(clean.shape)
    corrupted = draw < density
    noisy = np.where(draw < density / 2, 0.0, np.where(corrupted, 1.0, clean))
    return clean.astype(np.float32), noisy.astype(np.float32), corrupted


def adaptive_median_filter(images: int = 4, side: int = 80, radii: tuple[int, ...] = (1, 2, 3)
                           ) -> Any:
    """The adaptive median filter (Hwang and Haddad) on four 80x80 grey pictures in
    bfloat16 under salt-and-pepper noise of four densities, no gradient: 3x3, 5x5 and 7x7
    windows stacked from shifted slices of an edge-padded picture and each sorted
    (`sort` over 9, 25 and 49 bfloat16 values per pixel) for the minimum, median and
    maximum; a pixel takes the median of the smallest window whose median lies strictly
    between its extremes (or keeps its own value when that does too), the largest
    window's median when none does. Returned in float32: the filtered pictures, the
    PSNRs of the noisy, plain 5x5 median and adaptive results, the precision and recall
    of impulse detection, and how many pixels each window size decided."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    f32 = jnp.float32
    reach = max(radii)

    def run(noisy, clean, corrupted):
        padded = jnp.pad(noisy, ((0, 0), (reach, reach), (reach, reach)), mode="edge")
        stats = []
        for r in radii:
            window = jnp.stack([padded[:, reach + dy:reach + dy + side,
                                       reach + dx:reach + dx + side]
                                for dy in range(-r, r + 1) for dx in range(-r, r + 1)], -1)
            ordered = jnp.sort(window, -1)
            middle = (2 * r + 1) ** 2 // 2
            stats.append((ordered[..., 0], ordered[..., middle], ordered[..., -1]))
        out = stats[-1][1]
        done = jnp.zeros(noisy.shape, bool)
        decided = []
        for low, median, high in stats:
            level_a = (low < median) & (median < high) & ~done
            keep = (low < noisy) & (noisy < high)
            out = jnp.where(level_a, jnp.where(keep, noisy, median), out)
            decided.append(jnp.sum(level_a))
            done = done | level_a
        decided.append(jnp.sum(~done))

        def psnr(x):
            error = jnp.mean(jnp.square(x.astype(f32) - clean), (1, 2))
            return -10 * jnp.log10(error + 1e-10)

        low, _, high = stats[0]
        flagged = ~((low < noisy) & (noisy < high))
        precision = jnp.sum(flagged & corrupted) / jnp.maximum(jnp.sum(flagged), 1)
        recall = jnp.sum(flagged & corrupted) / jnp.maximum(jnp.sum(corrupted), 1)
        return (out.astype(f32), psnr(noisy), psnr(stats[1][1]), psnr(out), precision, recall,
                jnp.stack(decided))

    rng = np.random.default_rng(104)
    clean, noisy, corrupted = _impulse_scenes(rng, images, side)
    return jax.jit(run).lower(jnp.asarray(noisy, jnp.bfloat16), jnp.asarray(clean),
                              jnp.asarray(corrupted))


def _radiance_scenes(rng: Any, count: int, side: int) -> Any:
    """numpy float32 log-luminance pictures (count, side, side) scaled to [0, 1]: a dim
    room (a soft gradient and textured walls) with two to four bright windows and a
    lamp, whose radiance is orders of magnitude above the rest, slightly blurred edges
    and noise."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    out = np.zeros((count, side, side))
    for i in range(count):
        radiance = 0.02 + 0.05 * yy + 0.01 * (1 + np.sin(2 * np.pi * 24 * xx * rng.uniform(0.5, 1)))
        for _ in range(int(rng.integers(2, 5))):
            x0, y0 = rng.uniform(0, 0.8, 2)
            w, h = rng.uniform(0.1, 0.25, 2)
            soft = (1 / (1 + np.exp(-(xx - x0) * 200)) * 1 / (1 + np.exp((xx - x0 - w) * 200))
                    * 1 / (1 + np.exp(-(yy - y0) * 200)) * 1 / (1 + np.exp((yy - y0 - h) * 200)))
            radiance = radiance + rng.uniform(5, 50) * soft * (1 + 0.2 * np.sin(40 * yy))
        cx, cy = rng.uniform(0.2, 0.8, 2)
        radiance = radiance + 200 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * 0.01 ** 2))
        radiance = radiance * np.exp(0.05 * rng.standard_normal((side, side)))
        out[i] = np.log(radiance)
    out = (out - out.min()) / (out.max() - out.min())
    return out.astype(np.float32)


def bilateral_grid(images: int = 4, side: int = 256, spatial: int = 16,
                   ranges: tuple[float, float] = (0.1, 0.25), pad: int = 2,
                   bins: int = 64) -> Any:
    """Edge-aware tone mapping by bilateral grids (Chen, Paris and Durand) of four 256x256
    log-luminance pictures, no gradient, at two range samplings: every pixel's value and
    a count are splatted into the nearest cell of a grid (16-pixel cells; range cells of
    0.1 and of 0.25) by a scatter-add, the grid blurred by a 1-4-6-4-1 kernel along each
    of its three axes (rolls), and sliced back by trilinear interpolation (eight gathers
    per pixel) and homogeneous division. The two base layers and the detail recombine as
    compressed base, boosted medium-scale contrast and boosted detail; returned with a
    64-bin histogram of the result (a scatter-add), the clipped share and the detail
    energy."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    coord = np.arange(side) / spatial + pad
    cells = int(math.ceil((side - 1) / spatial)) + 1 + 2 * pad
    nearest = jnp.asarray(np.round(coord).astype(np.int32))
    below = jnp.asarray(np.floor(coord).astype(np.int32))
    frac = jnp.asarray((coord - np.floor(coord)).astype(np.float32))
    picture = jnp.arange(images, dtype=jnp.int32)[:, None, None]

    def blur(grid, axis):
        near = jnp.roll(grid, 1, axis) + jnp.roll(grid, -1, axis)
        far = jnp.roll(grid, 2, axis) + jnp.roll(grid, -2, axis)
        return (6 * grid + 4 * near + far) / 16

    def base(lum, sampling):
        levels = int(math.ceil(1 / sampling)) + 1 + 2 * pad
        depth = lum / sampling + pad
        cell = (((picture * cells + nearest[:, None]) * cells + nearest[None, :]) * levels
                + jnp.round(depth).astype(jnp.int32))
        data = jnp.stack([lum, jnp.ones_like(lum)], -1).reshape(-1, 2)
        grid = jnp.zeros((images * cells * cells * levels, 2)).at[cell.reshape(-1)].add(data)
        grid = grid.reshape(images, cells, cells, levels, 2)
        for axis in (1, 2, 3):
            grid = blur(grid, axis)
        flat = grid.reshape(-1, 2)
        r0 = jnp.floor(depth).astype(jnp.int32)
        fr = depth - r0
        total = jnp.zeros(lum.shape + (2,))
        for dy in (0, 1):
            wy = frac[:, None] if dy else 1 - frac[:, None]
            for dx in (0, 1):
                wx = frac[None, :] if dx else 1 - frac[None, :]
                for dr in (0, 1):
                    wr = fr if dr else 1 - fr
                    index = (((picture * cells + below[:, None] + dy) * cells
                              + below[None, :] + dx) * levels + r0 + dr)
                    total = total + flat[index] * (wy * wx * wr)[..., None]
        return total[..., 0] / jnp.maximum(total[..., 1], 1e-6)

    def run(lum):
        fine, coarse = base(lum, ranges[0]), base(lum, ranges[1])
        detail = lum - fine
        out = 0.25 + 0.5 * (coarse - jnp.mean(coarse, (1, 2), keepdims=True)) \
            + 1.4 * (fine - coarse) + 1.3 * detail + 0.3 * jnp.mean(coarse, (1, 2), keepdims=True)
        shown = jnp.clip(out, 0, 1)
        level = jnp.minimum((shown * bins).astype(jnp.int32), bins - 1)
        histogram = jnp.zeros((images, bins)).at[picture, level].add(1.0)
        clipped = jnp.mean((out < 0) | (out > 1), (1, 2))
        return shown, histogram, clipped, jnp.sqrt(jnp.mean(detail * detail, (1, 2)))

    rng = np.random.default_rng(105)
    return jax.jit(run).lower(jnp.asarray(_radiance_scenes(rng, images, side)))


def _face_scenes(rng: Any, count: int, side: int, window: int = 24) -> Any:
    """numpy float32 grey pictures (count, side, side) in [0, 1]: cluttered ground
    (gradients, random bars and noise) with two or three face-like patterns of window
    size (a bright oval, two dark eyes, a darker brow band and a mouth bar)."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    out = np.zeros((count, side, side))
    for i in range(count):
        picture = 0.4 + 0.2 * (rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy) / side
        for _ in range(8):
            x0, y0 = rng.uniform(0, side, 2)
            bar = (np.abs(xx - x0) < rng.uniform(1, 8)) & (np.abs(yy - y0) < rng.uniform(1, 8))
            picture = np.where(bar, rng.uniform(0, 1), picture)
        for _ in range(int(rng.integers(2, 4))):
            ox, oy = rng.uniform(0, side - window, 2)
            u, v = (xx - ox) / window, (yy - oy) / window
            face = ((u - 0.5) / 0.42) ** 2 + ((v - 0.52) / 0.5) ** 2 < 1
            picture = np.where(face, 0.75, picture)
            brow = face & (np.abs(v - 0.3) < 0.06)
            eyes = (((u - 0.32) ** 2 + (v - 0.4) ** 2 < 0.006)
                    | ((u - 0.68) ** 2 + (v - 0.4) ** 2 < 0.006))
            mouth = (np.abs(u - 0.5) < 0.18) & (np.abs(v - 0.75) < 0.04)
            picture = np.where(brow, 0.45, picture)
            picture = np.where(eyes | mouth, 0.15, picture)
        out[i] = np.clip(picture + 0.03 * rng.standard_normal((side, side)), 0, 1)
    return out.astype(np.float32)


def _haar_features(rng: Any, count: int, window: int) -> tuple[Any, Any]:
    """numpy int32 corners (count, 9, 2) within a window and float32 weights (count, 9):
    Haar-like features (two rectangles side by side or stacked, three in a row or a
    column with the middle one weighted -2, or a 2x2 checkerboard) of random size and
    place, as signed sums of integral-image corners, shared corners merged, padded with
    zero weights."""
    import numpy as np

    layouts = {0: [[1, -1]], 1: [[1], [-1]], 2: [[1, -2, 1]], 3: [[1], [-2], [1]],
               4: [[1, -1], [-1, 1]]}
    corners = np.zeros((count, 9, 2), np.int32)
    weights = np.zeros((count, 9), np.float32)
    for f in range(count):
        signs = layouts[f % 5]
        rows, cols = len(signs), len(signs[0])
        h = int(rng.integers(2, window // rows + 1))
        w = int(rng.integers(2, window // cols + 1))
        y = int(rng.integers(0, window - rows * h + 1))
        x = int(rng.integers(0, window - cols * w + 1))
        total: dict[tuple[int, int], float] = {}
        for r in range(rows):
            for c in range(cols):
                y0, x0, y1, x1 = y + r * h, x + c * w, y + (r + 1) * h, x + (c + 1) * w
                for py, px, sign in ((y1, x1, 1), (y0, x1, -1), (y1, x0, -1), (y0, x0, 1)):
                    total[(py, px)] = total.get((py, px), 0) + signs[r][c] * sign
        for i, (point, value) in enumerate(item for item in total.items() if item[1] != 0):
            corners[f, i] = point
            weights[f, i] = value
    return corners, weights


def haar_cascade(images: int = 8, side: int = 96, window: int = 24, stride: int = 2,
                 stages: int = 4, stumps: int = 16, keep: int = 16, overlap: float = 0.3) -> Any:
    """A Viola-Jones cascade of boosted Haar-feature stumps scans eight 96x96 grey
    pictures, no gradient: integral images of the pixels and of their squares
    (`cumsum`s), every 24x24 window at a stride of 2 (1369 per picture) normalized by its
    standard deviation (four corners of each integral image); 64 Haar-like features read
    as up to nine weighted corners each (a gather of 8 x 1369 x 64 x 9 values); four
    stages of sixteen stumps (drawn at random, not trained) vote, and a window lives while
    every stage sum clears its threshold, all stages evaluated. The sixteen best living
    windows per picture (`top_k`) are grouped by one vectorized suppression pass (IoU of
    equal-sized boxes from their offsets). Returned: the boxes, their scores, the kept
    flags and how many windows survive each stage."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    features = stages * stumps
    table = np.random.default_rng(106)
    corners, weights = _haar_features(table, features, window)
    threshold = table.normal(0, 0.01, features).astype(np.float32)
    below = table.uniform(-1, 1, features).astype(np.float32)
    above = (-below * table.uniform(0.5, 1.5, features)).astype(np.float32)
    stage_threshold = jnp.asarray(-0.25 * np.arange(1, stages + 1), jnp.float32)
    origins = np.arange(0, side - window + 1, stride)
    oy = jnp.asarray(np.repeat(origins, len(origins)), jnp.int32)
    ox = jnp.asarray(np.tile(origins, len(origins)), jnp.int32)
    wide = side + 1
    area = float(window * window)

    def integral(x):
        x = jnp.cumsum(jnp.cumsum(x, 1), 2)
        return jnp.pad(x, ((0, 0), (1, 0), (1, 0))).reshape(images, -1)

    def run(pictures):
        sums, squares = integral(pictures), integral(pictures * pictures)
        box = jnp.stack([(oy + window) * wide + ox + window, oy * wide + ox + window,
                         (oy + window) * wide + ox, oy * wide + ox], -1)
        sign = jnp.asarray([1.0, -1.0, -1.0, 1.0])
        mean = jnp.sum(sums[:, box] * sign, -1) / area
        var = jnp.sum(squares[:, box] * sign, -1) / area - mean * mean
        scale = jnp.sqrt(jnp.maximum(var, 1e-6)) * area
        index = ((oy[:, None, None] + jnp.asarray(corners[..., 0])) * wide
                 + ox[:, None, None] + jnp.asarray(corners[..., 1]))     # (windows, F, 9)
        value = jnp.sum(sums[:, index] * jnp.asarray(weights), -1) / scale[..., None]
        votes = jnp.where(value < jnp.asarray(threshold), jnp.asarray(below), jnp.asarray(above))
        stage_sums = votes.reshape(images, -1, stages, stumps).sum(-1)
        passed = jnp.cumprod((stage_sums > stage_threshold).astype(jnp.int32), -1)
        alive = passed[..., -1] > 0
        score = jnp.where(alive, jnp.sum(stage_sums, -1), -jnp.inf)
        best, which = jax.lax.top_k(score, keep)
        by, bx = oy[which], ox[which]
        dy = jnp.abs(by[:, :, None] - by[:, None, :])
        dx = jnp.abs(bx[:, :, None] - bx[:, None, :])
        shared = (jnp.maximum(window - dy, 0) * jnp.maximum(window - dx, 0)).astype(jnp.float32)
        iou = shared / (2 * area - shared)
        earlier = jnp.tril(jnp.ones((keep, keep), bool), -1)
        valid = jnp.isfinite(best)
        suppressed = jnp.any((iou > overlap) & earlier & valid[:, None, :], -1)
        kept = valid & ~suppressed
        return jnp.stack([by, bx], -1), best, kept, jnp.sum(passed, 1)

    rng = np.random.default_rng(106)
    return jax.jit(run).lower(jnp.asarray(_face_scenes(rng, images, side, window)))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "nafnet_diffgrad/4x48px-c32-64-dw3": nafnet_diffgrad,
    "hourglass_adamax/4x512-d64-h4-shorten4": hourglass_adamax,
    "pau_lookbehind/3x1024x10-64-64-pade5-4": pau_lookbehind,
    "nalu_arithmetic/8x2048x64-h2-6-tasks": nalu_arithmetic,
    "simsiam_pretrain/2x16x24px-16-32-64-p128": simsiam_pretrain,
    "dwconvgru_bouncing/6x8x24px-h16-dw3": dwconvgru_bouncing,
    "palm_parallel_mqa/4x128-d128-l2-v512-bf16": palm_parallel_mqa,
    "swift_hohenberg_spectral/4x128x128-120-steps": swift_hohenberg_spectral,
    "adi_heat_thomas/3x64x64-24-steps-thomas-64": adi_heat_thomas,
    "darcy_sor_redblack/4x128x128-150-sweeps": darcy_sor_redblack,
    "hilbert_curve_order/4x65536-points-16-levels": hilbert_curve_order,
    "xxhash_hash_join/65536x262144-keys-4-probes": xxhash_hash_join,
    "adaptive_median_filter/4x80x80-3-5-7-bf16": adaptive_median_filter,
    "bilateral_grid/4x256x256-s16-2-ranges": bilateral_grid,
    "haar_cascade/8x96x96-1369-windows-64-stumps": haar_cascade,
}
