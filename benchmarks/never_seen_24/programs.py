"""The twenty-fourth never-seen set: programs written on 2026-11-28, after the twenty-third
set (benchmarks/never_seen_23/), and never used to choose anything: not for a feature, a
default, a fallback threshold or a model. They exist to judge a trained model once. The
file's SHA-256 is committed beside it (`SHA256`); `fresh_programs.py --set never-seen-24`
refuses to run when the file no longer matches it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
twenty-three never-seen sets has. As before, two training steps are large (a few
gigaflops each) and the rest mid-sized. One of the ten training steps learns without a
backward pass (equilibrium propagation), one runs a learner inside its sequence layer (a
gradient inside a `lax.scan`, differentiated again), one accumulates micro-batch
gradients in a `lax.scan` over rematerialized blocks, and one takes per-example gradients
of a loss that already holds a forward-mode derivative. HorNet classifies 96x96 pictures of
interfering gratings by recursive gated convolutions: a gate multiplied in turn by
slices of a depthwise-7x7-mixed stack, projected up between the products, to order two,
three or four by stage. A causal language model in bfloat16 attends through multi-head
latent attention (queries through a low-rank bottleneck, keys and values up-projected
from one small latent per token, a decoupled rotary key shared by the heads) and learns
also the token after next through a multi-token prediction module; its blocks are
rematerialized (`jax.checkpoint`) and four micro-batches' gradients accumulate in a
`lax.scan`. A DDSP decoder resynthesizes clips of a synthetic instrument from pitch and
loudness: a GRU in a `lax.scan` drives an additive synthesizer of 48 harmonics (a phase
by `cumsum`) and FFT-filtered noise under a multi-scale spectral loss. A TTT-Linear
language model keeps, per head, a linear model trained on the fly by a `jax.grad` step
per chunk of 16 tokens inside a `lax.scan`, read by every token through the causal dual
form. Direct preference optimization fine-tunes a transformer in bfloat16 on preference
pairs of a sorting task against a frozen reference model passed to the step. A
variational quantum eigensolver prepares complex64 states of 12 qubits by eight layers
of rotations and CZ rings in a `lax.scan` for eight XXZ chains under `vmap`, the hopping
energy by gathers at bit-flipped basis states. RigL trains a VGG-style CNN in bfloat16
with 90% of its weights masked, dropping the weakest and regrowing where the dense
gradient is largest every 100th step (`lax.cond`, two `top_k`s per tensor and
scatters). Equilibrium propagation relaxes a layered Hopfield-like network to a free
equilibrium and to two nudged ones in `fori_loop`s and learns from the difference of
co-activations, with no backward pass. CRF-RNN follows a small encoder-decoder's unary
scores with five mean-field iterations in a `lax.scan` whose spatial and bilateral
messages are sums of shifted slices. A score network learns a density in 16 dimensions
by sliced score matching (a `jax.jvp` along random probes) under DP-SGD (per-example
gradients by `vmap` of `grad`, clipped and noised).

Five are scientific or algorithmic steps without a gradient: MUSIC direction finding
for 128 scenes of a 16-sensor array in complex64 (forward-backward averaged covariances,
the signal subspace by orthogonal iteration with Gram-Schmidt in a `fori_loop`, the
MUSIC, Bartlett and Capon spectra over 1801 angles, Capon's inverse by Newton-Schulz
iterations, peaks by `top_k` and parabolic refinement); Baum-Welch re-estimation of a
hidden Markov model from 96 sequences of 400 symbols (eight EM rounds in a `fori_loop`,
scaled forward and backward recursions in `lax.scan`s, emission counts by
`segment_sum`); iterative closest point registration of six pairs of partial point
clouds (nearest neighbours by `argmin` over all pairs, outlier rejection, the rotation by
Horn's quaternion method with the top eigenvector found by repeated squaring, under
`vmap`); eikonal travel times through four 192x192 walled media by fast sweeping made
parallel over anti-diagonals (the grid sheared by gathers, a `lax.scan` over 383
diagonals per sweep, four sweep directions by flips, rounds in a `while_loop`); and
module-lattice public-key encryption of 1024 messages in the manner of first-round
Kyber (polynomial products by a negacyclic number-theoretic transform of radix-2
butterflies in int32, centred binomial noise by `population_count`, compression by
integer shifts and divisions). The updates are new to these sets, three of them as
variants of earlier ones: adaptive gradient descent without descent (one step size from
a local Lipschitz estimate), Adam under the inverse-square-root warm-up schedule, KATE
(AdaGrad without the square root), EAdam (epsilon inside Adam's second moment), AdamW
decaying towards a reference model's weights (L2-SP), BFGS with a dense inverse-Hessian
estimate (a variant of L-BFGS), AMSBound (of AdaBound), incremental delta-bar-delta
(per-weight step sizes learned by a meta-gradient), WNGrad (one step size grown by the
squared gradient norm over itself) and DP-SGD with example-level clipping (of the
user-level DP-FedAdam); three training steps (the latent-attention model, DPO and RigL)
run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")


def _init(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
          gain: float = 1.0) -> dict[str, Any]:
    """Initial weights for the named shapes, drawn in the order given from one numpy
    RandomState: a name ending in `_b` starts at zero (a bias or a shift), one ending in
    `_g` at one (a gain), and every other tensor is Gaussian with standard deviation
    gain / sqrt(fan-in), the fan-in being the product of all axes but the last (one for a
    vector)."""
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.RandomState(seed)
    out: dict[str, Any] = {}
    for name, shape in shapes.items():
        if name.endswith("_b"):
            value = np.zeros(shape, np.float32)
        elif name.endswith("_g"):
            value = np.ones(shape, np.float32)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else 1
            value = rng.standard_normal(shape).astype(np.float32) * (gain / math.sqrt(fan_in))
        out[name] = jnp.asarray(value, dtype or jnp.float32)
    return out


def _tree_norm(tree: Any) -> Any:
    """The float32 Euclidean norm of every leaf of a tree taken together."""
    import jax
    import jax.numpy as jnp

    return jnp.sqrt(sum(jnp.sum(jnp.square(leaf.astype(jnp.float32)))
                        for leaf in jax.tree.leaves(tree)))


def _optimizer(name: str, **options: Any) -> tuple[Callable[[Any], Any], Callable[..., Any]]:
    """The named update as (init, update): init(params) -> state, and update(params, grads,
    state) -> (params, state). Every state is float32 but its step counter; every
    parameter keeps its own dtype, the arithmetic running in float32."""
    import jax
    import jax.numpy as jnp

    f32 = jnp.float32
    tm = jax.tree.map

    def zeros(tree: Any) -> Any:
        return tm(lambda p: jnp.zeros(p.shape, f32), tree)

    def wide(tree: Any) -> Any:
        return tm(lambda p: p.astype(f32), tree)

    def narrow(tree: Any, like: Any) -> Any:
        return tm(lambda p, q: p.astype(q.dtype), tree, like)

    if name == "adgd":
        # adaptive gradient descent without descent (Malitsky and Mishchenko): the step is
        # the smaller of sqrt(1 + theta) times the last step and half the inverse of a local
        # Lipschitz estimate, |w - w_prev| / |g - g_prev| over the whole network, with
        # theta the ratio of the last two steps; the first step takes `first`, every step
        # is capped at `cap`
        first, cap = options.get("first", 1e-3), options.get("cap", 0.1)

        def adgd_init(params):
            return wide(params), zeros(params), jnp.full((), first, f32), \
                jnp.full((), 1e9, f32), jnp.zeros((), jnp.int32)

        def adgd(params, grads, state):
            previous, last_grads, last_step, theta, t = state
            w, g = wide(params), wide(grads)
            moved = _tree_norm(tm(jnp.subtract, w, previous))
            turned = _tree_norm(tm(jnp.subtract, g, last_grads))
            local = moved / jnp.maximum(2.0 * turned, 1e-12)
            step = jnp.minimum(jnp.minimum(jnp.sqrt(1.0 + theta) * last_step, local), cap)
            step = jnp.where(t == 0, first, step)
            new = tm(lambda w_, g_: w_ - step * g_, w, g)
            return narrow(new, params), (w, g, step, step / last_step, t + 1)
        return adgd_init, adgd

    if name in ("noam_adam", "eadam", "l2sp_adamw"):
        # Adam under the inverse-square-root schedule of the original transformer (rate
        # scale * width^-1/2 * min(t^-1/2, t * warmup^-3/2)); EAdam (Yuan and Gao: epsilon
        # added to the second moment at every step, inside its average); or AdamW whose
        # decay pulls the weights towards `anchor` rather than zero (L2-SP, Li, Grandvalet
        # and Davoine), for fine-tuning away from a reference model
        rate, b1, b2 = options.get("rate", 1e-3), 0.9, options.get("b2", 0.98)
        eps = options.get("eps", 1e-8)
        decay, anchor = options.get("decay", 0.0), options.get("anchor")

        def adam_init(params):
            return zeros(params), zeros(params), jnp.zeros((), jnp.int32)

        def adam(params, grads, state):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1 - b1) * g_, m, g)
            if name == "eadam":
                v = tm(lambda v_, g_: b2 * v_ + (1 - b2) * g_ * g_ + eps, v, g)
            else:
                v = tm(lambda v_, g_: b2 * v_ + (1 - b2) * g_ * g_, v, g)
            if name == "noam_adam":
                lr = rate * options["width"] ** -0.5 \
                    * jnp.minimum(n ** -0.5, n * options["warmup"] ** -1.5)
            else:
                lr = rate

            def one(w, m_, v_, a):
                w32 = w.astype(f32)
                step = (m_ / (1 - b1 ** n)) / (jnp.sqrt(v_ / (1 - b2 ** n)) + eps)
                if name == "l2sp_adamw":
                    step = step + decay * (w32 - a.astype(f32))
                return (w32 - lr * step).astype(w.dtype)
            anchors = anchor if anchor is not None else params
            return tm(one, params, m, v, anchors), (m, v, t)
        return adam_init, adam

    if name == "amsbound":
        # AMSBound (Luo, Xiong, Liu and Sun): AMSGrad's per-weight rate rate / sqrt(max v)
        # clipped into bounds that close in on `final` as the steps go, then divided by
        # sqrt(t) and applied to the momentum
        rate, final, b1, b2, gamma = options.get("rate", 1e-3), 0.1, 0.9, 0.999, 1e-3

        def amsbound_init(params):
            return zeros(params), zeros(params), zeros(params), jnp.zeros((), jnp.int32)

        def amsbound(params, grads, state):
            m, v, peak, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1 - b2) * g_ * g_, v, g)
            peak = tm(jnp.maximum, peak, v)
            size = rate * jnp.sqrt(1 - b2 ** n) / (1 - b1 ** n)
            low = final * (1 - 1 / (gamma * n + 1))
            high = final * (1 + 1 / (gamma * n))

            def one(w, m_, p_):
                step = jnp.clip(size / (jnp.sqrt(p_) + 1e-8), low, high) / jnp.sqrt(n)
                return (w.astype(f32) - step * m_).astype(w.dtype)
            return tm(one, params, m, peak), (m, v, peak, t)
        return amsbound_init, amsbound

    if name == "idbd":
        # incremental delta-bar-delta (Sutton) lifted from a linear unit to every weight: a
        # log step size per weight moves by meta_rate * (-g) * h, where the trace h follows
        # how the weight has moved with its step size, h <- h max(0, 1 - rate g^2) - rate g,
        # the squared gradient standing in for the unit's squared input
        start, meta = options.get("rate", 0.01), options.get("meta_rate", 0.01)

        def idbd_init(params):
            return tm(lambda p: jnp.full(p.shape, math.log(start), f32), params), zeros(params)

        def idbd(params, grads, state):
            log_rate, trace = state
            g = wide(grads)
            log_rate = tm(lambda b, g_, h: jnp.clip(b - meta * g_ * h, -12.0, 0.0), log_rate, g,
                          trace)
            new = tm(lambda w, b, g_: (w.astype(f32) - jnp.exp(b) * g_).astype(w.dtype), params,
                     log_rate, g)
            trace = tm(lambda h, b, g_: h * jnp.maximum(0.0, 1.0 - jnp.exp(b) * g_ * g_)
                       - jnp.exp(b) * g_, trace, log_rate, g)
            return new, (log_rate, trace)
        return idbd_init, idbd

    if name == "wngrad":
        # WNGrad (Wu, Ward and Bottou): one scalar b for the whole network, the step rate *
        # g / b, and b growing by |g|^2 / b after it
        rate, start = options.get("rate", 1.0), options.get("start", 10.0)

        def wngrad_init(params):
            return jnp.full((), start, f32)

        def wngrad(params, grads, b):
            g = wide(grads)
            new = tm(lambda w, g_: (w.astype(f32) - rate * g_ / b).astype(w.dtype), params, g)
            return new, b + jnp.square(_tree_norm(g)) / b
        return wngrad_init, wngrad

    if name == "kate":
        # KATE (Choudhury, Gorbunov and Loizou): AdaGrad without the square root, the step
        # rate * m * g / b^2 per weight, b^2 summing the squared gradients and m^2 summing
        # eta g^2 + g^2 / b^2
        rate, eta, floor = options.get("rate", 1e-3), options.get("eta", 1e-3), 1e-10

        def kate_init(params):
            return zeros(params), zeros(params)

        def kate(params, grads, state):
            b2, m2 = state
            g = wide(grads)
            b2 = tm(lambda b_, g_: b_ + g_ * g_ + floor, b2, g)
            m2 = tm(lambda m_, g_, b_: m_ + eta * g_ * g_ + g_ * g_ / b_, m2, g, b2)
            new = tm(lambda w, m_, g_, b_: (w.astype(f32) - rate * jnp.sqrt(m_) * g_ / b_)
                     .astype(w.dtype), params, m2, g, b2)
            return new, (b2, m2)
        return kate_init, kate

    raise ValueError(name)


def _training_step(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any,
                   **options: Any) -> Any:
    """One lowered training step (loss, gradients, the named update) for `batch`; the
    update's state enters by its shapes alone (`eval_shape` of its init)."""
    import jax

    init, update = _optimizer(rule, **options)

    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state)
        return params, state, loss

    return jax.jit(step).lower(params, jax.eval_shape(init, params), *batch)


def _layer_norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """x normalized over `axes` by float32 statistics, scaled and shifted, in x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axes, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axes, keepdims=True)
    out = (x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
    return (out + shift.astype(jnp.float32)).astype(x.dtype)


def _batch_norm(x: Any, gain: Any, shift: Any) -> Any:
    """Batch norm by the batch's own statistics over every axis but the channels."""
    return _layer_norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _rms_norm(x: Any, gain: Any) -> Any:
    """RMS normalization over the last axis in float32, back in x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    out = x32 * lax.rsqrt(jnp.mean(jnp.square(x32), -1, keepdims=True) + 1e-6)
    return (out * gain.astype(jnp.float32)).astype(x.dtype)


def _xent(logits: Any, labels: Any) -> Any:
    """Per-position softmax cross-entropy of integer labels, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv(x: Any, w: Any, stride: int = 1, groups: int = 1, dilation: int = 1) -> Any:
    """A 2-D NHWC convolution with SAME padding."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                    rhs_dilation=(dilation, dilation), dimension_numbers=_NHWC,
                                    feature_group_count=groups)


def _textures(rng: Any, count: int, side: int, classes: int) -> tuple[Any, Any]:
    """numpy (pictures NHWC float32 in about [0, 1], labels): each class is a fixed recipe
    of two interfering gratings (angles, frequency ratio, a warp and a pair of colours);
    every picture jitters the angles, frequency and phases, and adds shading and noise."""
    import numpy as np

    recipe = np.random.RandomState(1000 + classes)
    angles = recipe.uniform(0, np.pi, (classes, 2))
    ratios = recipe.uniform(0.5, 2.0, classes)
    warps = recipe.uniform(0.0, 0.4, classes)
    colours = recipe.uniform(0.1, 0.95, (classes, 2, 3))
    labels = rng.randint(0, classes, count)
    yy, xx = np.mgrid[0:side, 0:side] / float(side)
    out = np.zeros((count, side, side, 3), np.float32)
    for i, c in enumerate(labels):
        a, b = angles[c] + rng.normal(0, 0.08, 2)
        f = rng.uniform(3.0, 6.0)
        u = xx * np.cos(a) + yy * np.sin(a)
        v = xx * np.cos(b) + yy * np.sin(b)
        wave = np.sin(2 * np.pi * f * (u + warps[c] * np.sin(2 * np.pi * 2 * v))
                      + rng.uniform(0, 2 * np.pi))
        wave = wave * np.sin(2 * np.pi * f * ratios[c] * v + rng.uniform(0, 2 * np.pi))
        mix = (0.5 + 0.5 * wave)[..., None]
        picture = mix * colours[c, 0] + (1 - mix) * colours[c, 1]
        shade = 0.75 + 0.25 * np.cos(2 * np.pi * (xx * rng.uniform(-1, 1) + rng.uniform()))
        out[i] = picture * shade[..., None] + 0.04 * rng.standard_normal(picture.shape)
    return out, labels


def _segment_digits(rng: Any, count: int, side: int) -> tuple[Any, Any]:
    """numpy (glyphs NHWC float32 in [0, 1] with one channel, labels): the ten digits as a
    seven-segment display would draw them, each segment a thick stroke whose ends are
    jittered, the whole digit slanted, scaled and shifted at random, with noise."""
    import numpy as np

    ends = {"a": ((0, 0), (1, 0)), "b": ((1, 0), (1, 1)), "c": ((1, 1), (1, 2)),
            "d": ((0, 2), (1, 2)), "e": ((0, 1), (0, 2)), "f": ((0, 0), (0, 1)),
            "g": ((0, 1), (1, 1))}
    lit = ("abcdef", "bc", "abged", "abgcd", "fgbc", "afgcd", "afgedc", "abc", "abcdefg",
           "abcdfg")
    labels = rng.randint(0, 10, count)
    yy, xx = np.mgrid[0:side, 0:side] / float(side - 1)
    grid = np.stack([xx, yy], -1)
    out = np.zeros((count, side, side, 1), np.float32)
    for i, digit in enumerate(labels):
        slant, scale = rng.uniform(-0.25, 0.25), rng.uniform(0.22, 0.3)
        origin = np.array([0.5 - scale / 2, 0.5 - scale]) + rng.normal(0, 0.04, 2)
        width = rng.uniform(0.04, 0.07)
        ink = np.zeros((side, side))
        for segment in lit[digit]:
            a, b = (np.array(e, float) + rng.normal(0, 0.06, 2) for e in ends[segment])
            a = origin + scale * np.array([a[0] - slant * a[1], a[1]])
            b = origin + scale * np.array([b[0] - slant * b[1], b[1]])
            ab = b - a
            t = np.clip(((grid - a) @ ab) / (ab @ ab + 1e-9), 0.0, 1.0)
            dist = np.linalg.norm(grid - (a + t[..., None] * ab), axis=-1)
            ink = np.maximum(ink, np.clip(1.5 - dist / width, 0.0, 1.0))
        out[i, ..., 0] = np.clip(ink + 0.08 * rng.standard_normal(ink.shape), 0.0, 1.0)
    return out, labels


def _shape_scenes(rng: Any, count: int, side: int) -> tuple[Any, Any]:
    """numpy (pictures NHWC float32, labels (count, side, side) int32): scenes of three to
    six overlapping shapes of five kinds (1 disc, 2 rotated square, 3 triangle, 4 ring, 5
    bar; 0 is the background) in random colours over a shaded background, with noise;
    every pixel is labelled with the kind of the topmost shape covering it."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] / float(side)
    pictures = np.zeros((count, side, side, 3), np.float32)
    labels = np.zeros((count, side, side), np.int32)
    for i in range(count):
        tilt = rng.uniform(-1, 1, 2)
        picture = rng.uniform(0.2, 0.6, 3) * (1 + 0.3 * (tilt[0] * xx + tilt[1] * yy))[..., None]
        for _ in range(rng.randint(3, 7)):
            kind = rng.randint(1, 6)
            cx, cy, r = rng.uniform(0.15, 0.85), rng.uniform(0.15, 0.85), rng.uniform(0.08, 0.2)
            a = rng.uniform(0, np.pi)
            u = (xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)
            v = -(xx - cx) * np.sin(a) + (yy - cy) * np.cos(a)
            if kind == 1:
                inside = u ** 2 + v ** 2 < r ** 2
            elif kind == 2:
                inside = (np.abs(u) < r * 0.8) & (np.abs(v) < r * 0.8)
            elif kind == 3:
                inside = (v > -r / 2) & (v < r - np.sqrt(3) * np.abs(u))
            elif kind == 4:
                inside = np.abs(np.hypot(u, v) - 0.75 * r) < 0.25 * r
            else:
                inside = (np.abs(u) < 1.4 * r) & (np.abs(v) < 0.22 * r)
            picture[inside] = rng.uniform(0, 1, 3)
            labels[i][inside] = kind
        pictures[i] = picture + 0.05 * rng.standard_normal(picture.shape)
    return pictures, labels


def hornet_classifier(batch: int = 8, side: int = 96, classes: int = 10,
                      widths: tuple[int, ...] = (32, 64, 128), depths: tuple[int, ...] = (2, 2, 3),
                      orders: tuple[int, ...] = (2, 3, 4), kernel: int = 7) -> Any:
    """Image classification by HorNet (Rao, Zhao, Tang, Zhou, Lim and Lu) of eight 96x96
    pictures of interfering gratings (ten recipes of angles, frequency ratio, warp and
    colours). A 4x4 stride-4 stem and layer norm, then three stages of 32, 64 and 128
    channels (two, two and three blocks; a layer norm and a 2x2 stride-2 convolution
    between stages). Every block has a recursive gated convolution of order 2, 3 or 4 by
    stage: a 1x1 projection to twice the width splits into a gate of C / 2^(order - 1)
    channels and a stack that a depthwise 7x7 convolution mixes; the gate is multiplied by
    the stack's first slice, and the product, projected by a 1x1 layer to the next size,
    by the next slice, until it is C wide; then a 4x GELU MLP, both branches behind layer
    norms and scaled by learned per-channel gains (layer scale). Global average pooling,
    a layer norm and a linear head under cross-entropy. Adaptive gradient descent without
    descent (Malitsky and Mishchenko): one step size for the whole network, the smaller of
    sqrt(1 + theta) times the last one and |w - w_prev| / (2 |g - g_prev|), capped at
    0.05."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {"stem": (4, 4, 3, widths[0]), "stem_b": (widths[0],),
                                          "stem_n_g": (widths[0],), "stem_n_b": (widths[0],)}
    blocks: list[tuple[str, int, int]] = []
    for s, (c, depth, order) in enumerate(zip(widths, depths, orders)):
        if s:
            shapes.update({f"down{s}_n_g": (widths[s - 1],), f"down{s}_n_b": (widths[s - 1],),
                           f"down{s}": (2, 2, widths[s - 1], c), f"down{s}_b": (c,)})
        dims = [c // 2 ** (order - 1 - i) for i in range(order)]
        for d in range(depth):
            k = f"s{s}b{d}"
            blocks.append((k, c, order))
            shapes.update({f"{k}n1_g": (c,), f"{k}n1_b": (c,), f"{k}in": (c, 2 * c),
                           f"{k}in_b": (2 * c,), f"{k}dw": (kernel, kernel, 1, sum(dims)),
                           f"{k}dw_b": (sum(dims),), f"{k}out": (c, c), f"{k}out_b": (c,),
                           f"{k}n2_g": (c,), f"{k}n2_b": (c,), f"{k}f1": (c, 4 * c),
                           f"{k}f1_b": (4 * c,), f"{k}f2": (4 * c, c), f"{k}f2_b": (c,)})
            for i in range(order - 1):
                shapes.update({f"{k}pw{i}": (dims[i], dims[i + 1]), f"{k}pw{i}_b": (dims[i + 1],)})
    shapes.update({"norm_g": (widths[-1],), "norm_b": (widths[-1],),
                   "head": (widths[-1], classes), "head_b": (classes,)})
    p = _init(shapes, seed=1)
    for name, _, _ in blocks:
        p[f"{name}scale1_g"] = jnp.full((shapes[f"{name}out"][1],), 0.1)
        p[f"{name}scale2_g"] = jnp.full((shapes[f"{name}out"][1],), 0.1)

    def gn_conv(p, k, x, c, order):
        """The recursive gated convolution of order `order`."""
        dims = [c // 2 ** (order - 1 - i) for i in range(order)]
        both = x @ p[f"{k}in"] + p[f"{k}in_b"]
        gate, rest = both[..., :dims[0]], both[..., dims[0]:]
        rest = (_conv(rest, p[f"{k}dw"], groups=sum(dims)) + p[f"{k}dw_b"]) / 3.0
        offsets = [sum(dims[:i]) for i in range(order + 1)]
        y = gate * rest[..., offsets[0]:offsets[1]]
        for i in range(order - 1):
            y = (y @ p[f"{k}pw{i}"] + p[f"{k}pw{i}_b"]) * rest[..., offsets[i + 1]:offsets[i + 2]]
        return y @ p[f"{k}out"] + p[f"{k}out_b"]

    def loss_fn(p, pictures, labels):
        x = _conv(pictures, p["stem"], 4) + p["stem_b"]
        x = _layer_norm(x, p["stem_n_g"], p["stem_n_b"])
        at = 0
        for s, (c, depth, order) in enumerate(zip(widths, depths, orders)):
            if s:
                x = _layer_norm(x, p[f"down{s}_n_g"], p[f"down{s}_n_b"])
                x = _conv(x, p[f"down{s}"], 2) + p[f"down{s}_b"]
            for _ in range(depth):
                k = blocks[at][0]
                at += 1
                h = gn_conv(p, k, _layer_norm(x, p[f"{k}n1_g"], p[f"{k}n1_b"]), c, order)
                x = x + p[f"{k}scale1_g"] * h
                h = _layer_norm(x, p[f"{k}n2_g"], p[f"{k}n2_b"])
                h = jax.nn.gelu(h @ p[f"{k}f1"] + p[f"{k}f1_b"]) @ p[f"{k}f2"] + p[f"{k}f2_b"]
                x = x + p[f"{k}scale2_g"] * h
        x = _layer_norm(jnp.mean(x, (1, 2)), p["norm_g"], p["norm_b"])
        return jnp.mean(_xent(x @ p["head"] + p["head_b"], labels))

    rng = np.random.RandomState(1)
    pictures, labels = _textures(rng, batch, side, classes)
    return _training_step("adgd", loss_fn, p, jnp.asarray(pictures),
                          jnp.asarray(labels, jnp.int32), first=1e-3, cap=0.05)


def _token_streams(rng: Any, count: int, length: int, vocab: int, topics: int = 8,
                   fan: int = 6) -> Any:
    """numpy int32 (count, length): token sequences, each from one of `topics` first-order
    Markov chains whose every row keeps `fan` likely successors (a geometric preference
    among them, one step in ten uniform), with now and then a copy of an earlier span of
    the same sequence, so that both local statistics and look-back pay."""
    import numpy as np

    successors = rng.randint(0, vocab, (topics, vocab, fan))
    out = np.zeros((count, length), np.int32)
    for i in range(count):
        topic, token, j = rng.randint(topics), rng.randint(vocab), 0
        while j < length:
            if j > 24 and rng.uniform() < 0.04:
                span = rng.randint(4, 12)
                start = rng.randint(0, j - span)
                piece = out[i, start:start + span][:length - j]
                out[i, j:j + len(piece)] = piece
                j += len(piece)
                token = int(out[i, j - 1])
                continue
            if rng.uniform() < 0.1:
                token = rng.randint(vocab)
            else:
                token = successors[topic, token, min(rng.geometric(0.45) - 1, fan - 1)]
            out[i, j] = token
            j += 1
    return out


def mla_mtp_lm(micro: int = 4, per: int = 4, length: int = 128, vocab: int = 1024,
               width: int = 128, heads: int = 4, layers: int = 3, nope: int = 32, rope: int = 16,
               q_rank: int = 64, kv_rank: int = 48, hidden: int = 352,
               mtp_weight: float = 0.3) -> Any:
    """A causal language model in bfloat16 with multi-head latent attention and multi-token
    prediction (DeepSeek-V2 and -V3) on token streams from eight sparse Markov chains over
    1024 tokens with copied spans. Three pre-RMS-norm blocks of width 128 with SwiGLU
    layers of 352; in the attention, queries pass a rank-64 bottleneck with its own RMS
    norm, keys and values for four heads are up-projected from one 48-dimensional latent
    per token, and a 16-dimensional rotary part is appended to every query and to a key
    that all heads share (the decoupled rotary key), causal softmax in float32. The
    multi-token module joins the trunk's last hidden state at each position with the
    embedding of the next token (both RMS-normalized, concatenated, projected), runs one
    more block and predicts the token after next through the shared head; its
    cross-entropy counts 0.3. Every block is rematerialized in the backward pass
    (`jax.checkpoint`). Four micro-batches of four sequences of 128 tokens run one after
    another in a `lax.scan` that accumulates their gradients in float32, and one Adam step
    follows under the inverse-square-root schedule of the original transformer (rate
    0.5 / sqrt(128) * min(t^-1/2, t * 400^-3/2))."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    tm = jax.tree.map

    def block_weights(seed: int) -> dict[str, Any]:
        return _init({"n1_g": (width,), "qd": (width, q_rank), "qn_g": (q_rank,),
                      "qu": (q_rank, heads * (nope + rope)), "kvd": (width, kv_rank),
                      "kvn_g": (kv_rank,), "kvu": (kv_rank, heads * 2 * nope),
                      "kr": (width, rope), "o": (heads * nope, width), "n2_g": (width,),
                      "gate": (width, hidden), "up": (width, hidden), "down": (hidden, width)},
                     seed=seed, dtype=bf16)

    params: dict[str, Any] = {
        "embed": _init({"embed": (vocab, width)}, seed=20, dtype=bf16)["embed"],
        "layers": [block_weights(21 + l) for l in range(layers)],
        "mtp": {**_init({"hn_g": (width,), "en_g": (width,), "proj": (2 * width, width),
                         "norm_g": (width,)}, seed=30, dtype=bf16),
                "block": block_weights(31)},
        **_init({"norm_g": (width,), "head": (width, vocab)}, seed=32, dtype=bf16)}
    half = rope // 2
    angles = np.arange(length)[:, None] * 10000.0 ** (-np.arange(half) / half)[None, :]
    cos = jnp.asarray(np.cos(angles)[:, None, :], bf16)
    sin = jnp.asarray(np.sin(angles)[:, None, :], bf16)
    causal = jnp.tril(jnp.ones((length, length), bool))

    def rotary(x):
        a, b = x[..., :half], x[..., half:]
        return jnp.concatenate([a * cos - b * sin, a * sin + b * cos], -1)

    def block(w, x):
        b, t, _ = x.shape
        h = _rms_norm(x, w["n1_g"])
        q = (_rms_norm(h @ w["qd"], w["qn_g"]) @ w["qu"]).reshape(b, t, heads, nope + rope)
        q = jnp.concatenate([q[..., :nope], rotary(q[..., nope:])], -1)
        kv = (_rms_norm(h @ w["kvd"], w["kvn_g"]) @ w["kvu"]).reshape(b, t, heads, 2 * nope)
        shared = jnp.broadcast_to(rotary((h @ w["kr"])[:, :, None, :]), (b, t, heads, rope))
        k = jnp.concatenate([kv[..., :nope], shared], -1)
        logits = jnp.einsum("bihd,bjhd->bhij", q, k).astype(f32) / math.sqrt(nope + rope)
        att = jax.nn.softmax(jnp.where(causal, logits, -1e9), -1).astype(bf16)
        mixed = jnp.einsum("bhij,bjhd->bihd", att, kv[..., nope:]).reshape(b, t, heads * nope)
        x = x + mixed @ w["o"]
        h = _rms_norm(x, w["n2_g"])
        return x + (jax.nn.silu(h @ w["gate"]) * (h @ w["up"])) @ w["down"]

    remat = jax.checkpoint(block)

    def loss_fn(p, tokens):
        x = p["embed"][tokens[:, :length]]
        for w in p["layers"]:
            x = remat(w, x)
        head = p["head"]
        main = jnp.mean(_xent(_rms_norm(x, p["norm_g"]) @ head, tokens[:, 1:length + 1]))
        m = p["mtp"]
        ahead = p["embed"][tokens[:, 1:length + 1]]
        y = jnp.concatenate([_rms_norm(x, m["hn_g"]), _rms_norm(ahead, m["en_g"])], -1) @ m["proj"]
        y = remat(m["block"], y)
        extra = jnp.mean(_xent(_rms_norm(y, m["norm_g"]) @ head, tokens[:, 2:length + 2]))
        return main + mtp_weight * extra, jnp.stack([main, extra])

    init, update = _optimizer("noam_adam", rate=0.5, width=width, warmup=400, b2=0.98)

    def step(params, state, tokens):
        def accumulate(carry, chunk):
            grads, parts = carry
            (_, losses), g = jax.value_and_grad(loss_fn, has_aux=True)(params, chunk)
            return (tm(lambda a, b: a + b.astype(f32), grads, g), parts + losses), None

        start = (tm(lambda w: jnp.zeros(w.shape, f32), params), jnp.zeros(2, f32))
        (grads, parts), _ = lax.scan(accumulate, start, tokens)
        params, state = update(params, tm(lambda g: g / micro, grads), state)
        return params, state, parts / micro

    rng = np.random.RandomState(2)
    tokens = _token_streams(rng, micro * per, length + 2, vocab).reshape(micro, per, length + 2)
    return jax.jit(step).lower(params, jax.eval_shape(init, params), jnp.asarray(tokens))


def ddsp_synth(clips: int = 8, samples: int = 8000, rate: int = 16000, hop: int = 64,
               harmonics: int = 48, hidden: int = 192,
               ffts: tuple[int, ...] = (1024, 512, 256, 128, 64)) -> Any:
    """A differentiable digital signal processing decoder (DDSP; Engel, Hantrakul, Gu and
    Roberts) learns to resynthesize eight half-second clips at 16 kHz of a synthetic
    instrument (glides, vibrato, an envelope, a formant over a harmonic roll-off and some
    breath noise) from their pitch and loudness tracks at 125 frames. MLPs of three dense
    layers with layer norm and leaky ReLU read the scaled pitch and loudness, a GRU of 192
    runs over the frames in a `lax.scan`, and an output MLP gives per frame an overall
    amplitude, a softmax distribution over 48 harmonics (those above Nyquist masked) and
    33 magnitudes of a noise filter. The controls are interpolated to the sample rate by
    gathers; the additive synthesizer sums the sines of every harmonic of a phase
    accumulated by `cumsum`, and the noise is uniform noise drawn in the step, shaped frame
    by frame by real FFTs. The loss is multi-scale spectral: STFT magnitudes at FFT sizes
    1024 to 64 (Hann windows, 75% overlap, frames cut by a gather) compared linearly and
    logarithmically. KATE (Choudhury, Gorbunov and Loizou): AdaGrad without the square
    root, each weight stepping by rate * m * g / b^2, b^2 the sum of its squared gradients
    and m^2 the sum of eta g^2 + g^2 / b^2."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    frames, bands = samples // hop, hop // 2 + 1
    shapes: dict[str, tuple[int, ...]] = {}
    for part in ("f0", "ld", "out"):
        for i in range(3):
            fan = (1 if part != "out" else 3 * hidden) if i == 0 else hidden
            shapes.update({f"{part}{i}": (fan, hidden), f"{part}{i}_b": (hidden,),
                           f"{part}{i}n_g": (hidden,), f"{part}{i}n_b": (hidden,)})
    shapes.update({"gru_x": (2 * hidden, 3 * hidden), "gru_x_b": (3 * hidden,),
                   "gru_h": (hidden, 3 * hidden), "gru_h_b": (3 * hidden,),
                   "proj": (hidden, 1 + harmonics + bands), "proj_b": (1 + harmonics + bands,)})
    p = _init(shapes, seed=3)
    order = jnp.arange(1, harmonics + 1, dtype=jnp.float32)

    def mlp(p, part, x):
        for i in range(3):
            x = x @ p[f"{part}{i}"] + p[f"{part}{i}_b"]
            x = jax.nn.leaky_relu(_layer_norm(x, p[f"{part}{i}n_g"], p[f"{part}{i}n_b"]), 0.2)
        return x

    def squash(x):
        return 2.0 * jax.nn.sigmoid(x) ** math.log(10.0) + 1e-7

    # frame controls to the sample rate by linear interpolation between frame centres
    centre = np.clip((np.arange(samples) + 0.5) / hop - 0.5, 0, frames - 1)
    below = np.minimum(np.floor(centre).astype(np.int32), frames - 2)
    frac = jnp.asarray((centre - below)[None, :, None], jnp.float32)

    def upsample(x):
        return x[:, below] * (1.0 - frac) + x[:, below + 1] * frac

    def spectra(audio):
        out = []
        for n in ffts:
            count = 1 + (samples - n) // (n // 4)
            index = np.arange(count)[:, None] * (n // 4) + np.arange(n)[None, :]
            window = jnp.asarray(np.hanning(n), jnp.float32)
            out.append(jnp.abs(jnp.fft.rfft(audio[:, index] * window, axis=-1)))
        return out

    def loss_fn(p, f0, loudness, audio, key):
        pitch = (12.0 * jnp.log2(f0 / 440.0) + 69.0) / 127.0
        a = mlp(p, "f0", pitch[..., None])
        b = mlp(p, "ld", ((loudness + 80.0) / 80.0)[..., None])
        drive = jnp.concatenate([a, b], -1) @ p["gru_x"] + p["gru_x_b"]

        def cell(h, x):
            hh = h @ p["gru_h"] + p["gru_h_b"]
            r = jax.nn.sigmoid(x[:, :hidden] + hh[:, :hidden])
            z = jax.nn.sigmoid(x[:, hidden:2 * hidden] + hh[:, hidden:2 * hidden])
            n = jnp.tanh(x[:, 2 * hidden:] + r * hh[:, 2 * hidden:])
            h = (1.0 - z) * n + z * h
            return h, h

        _, states = lax.scan(cell, jnp.zeros((clips, hidden)), jnp.swapaxes(drive, 0, 1))
        y = mlp(p, "out", jnp.concatenate([jnp.swapaxes(states, 0, 1), a, b], -1))
        controls = y @ p["proj"] + p["proj_b"]
        amplitude = squash(controls[..., :1])
        audible = order * f0[..., None] < rate / 2
        share = jnp.where(audible, jax.nn.softmax(jnp.where(audible, controls[..., 1:1 + harmonics],
                                                              -1e9), -1), 0.0)
        filters = squash(controls[..., 1 + harmonics:] - 5.0)
        pitch_track = upsample(f0[..., None])[..., 0]
        phase = 2 * math.pi * jnp.cumsum(pitch_track / rate, 1)
        phase = phase - 2 * math.pi * jnp.floor(phase / (2 * math.pi))
        weights = upsample(amplitude * share)
        voiced = jnp.sum(weights * jnp.sin(phase[..., None] * order), -1)
        noise = jax.random.uniform(key, (clips, frames, hop), minval=-1.0, maxval=1.0)
        shaped = jnp.fft.irfft(jnp.fft.rfft(noise, axis=-1) * filters, n=hop, axis=-1)
        synth = voiced + shaped.reshape(clips, samples)
        total = 0.0
        for mine, theirs in zip(spectra(synth), spectra(audio)):
            total = total + jnp.mean(jnp.abs(mine - theirs)) \
                + jnp.mean(jnp.abs(jnp.log(mine + 1e-6) - jnp.log(theirs + 1e-6)))
        return total

    rng = np.random.RandomState(3)
    t = np.arange(samples) / rate
    f0 = np.zeros((clips, frames), np.float32)
    loudness = np.zeros((clips, frames), np.float32)
    audio = np.zeros((clips, samples), np.float32)
    for i in range(clips):
        base = 110.0 * 2 ** rng.uniform(0, 2)
        glide = 2 ** (rng.uniform(-0.3, 0.3) * t / t[-1])
        vibrato = 1 + rng.uniform(0.005, 0.03) * np.sin(2 * np.pi * rng.uniform(4, 7) * t)
        track = base * glide * vibrato
        envelope = np.minimum(t / rng.uniform(0.01, 0.08), 1.0) * np.exp(-t * rng.uniform(0.5, 4))
        k = np.arange(1, harmonics + 1)
        formant = np.exp(-((k * base - rng.uniform(500, 2500)) / 600.0) ** 2)
        weights = k ** -rng.uniform(0.8, 2.0) * (0.3 + formant) * (k * track.max() < rate / 2)
        phase = 2 * np.pi * np.cumsum(track) / rate
        tone = np.sin(phase[:, None] * k[None, :]) @ weights
        breath = np.convolve(rng.standard_normal(samples), np.hanning(9) / 4.5, "same")
        audio[i] = 0.3 * envelope * (tone / np.abs(tone).max() + rng.uniform(0.02, 0.2) * breath)
        framed = audio[i].reshape(frames, hop)
        loudness[i] = 20 * np.log10(np.sqrt(np.mean(framed ** 2, 1)) + 1e-4)
        f0[i] = track.reshape(frames, hop).mean(1)
    return _training_step("kate", loss_fn, p, jnp.asarray(f0), jnp.asarray(loudness),
                          jnp.asarray(audio), jax.random.PRNGKey(3), rate=1e-5, eta=1e-3)


def ttt_linear_lm(batch: int = 4, length: int = 256, vocab: int = 512, width: int = 128,
                  heads: int = 4, layers: int = 2, chunk: int = 16, hidden: int = 256,
                  base_rate: float = 1.0) -> Any:
    """A language model whose sequence layers learn at test time (TTT-Linear; Sun et al.) on
    four sequences of 256 tokens from sparse Markov chains with copied spans. In each of
    two layers every head (four of 32) carries a linear model W that is trained as the
    sequence is read: for each chunk of 16 tokens the gradient of a self-supervised loss,
    the squared error of the layer-normed projection k W plus k against v (keys, values
    and queries being learned projections of the tokens), is taken at the chunk's
    starting W by `jax.grad` inside a `lax.scan` over the chunks, scaled by learned
    per-token rates (a sigmoid of the input), and the causal dual form gives every token
    the output q W_i of the model as updated up to and including itself; W leaves the
    chunk after all 16 updates. The layer output is layer-normed per head plus q; SwiGLU
    layers follow; next-token cross-entropy, so the backward pass differentiates through
    the inner gradients. EAdam (Yuan and Gao): Adam with epsilon added to the second
    moment inside its average at every step."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dh = width // heads
    chunks = length // chunk
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}q": (width, width),
                       f"{l}k": (width, width), f"{l}v": (width, width),
                       f"{l}lr": (width, heads), f"{l}lr_b": (heads,), f"{l}w0": (heads, dh, dh),
                       f"{l}in_g": (heads, dh), f"{l}in_b": (heads, dh), f"{l}o": (width, width),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}gate": (width, hidden),
                       f"{l}up": (width, hidden), f"{l}down": (hidden, width)})
    shapes.update({"norm_g": (width,), "norm_b": (width,), "head": (width, vocab)})
    p = _init(shapes, seed=4)
    p["pos"] = p["pos"] * 0.02
    for l in range(layers):
        p[f"{l}w0"] = p[f"{l}w0"] * 0.1
    causal = jnp.tril(jnp.ones((chunk, chunk), jnp.float32))

    def head_norm(z, gain, shift):
        mean = jnp.mean(z, -1, keepdims=True)
        var = jnp.mean(jnp.square(z - mean), -1, keepdims=True)
        return (z - mean) * lax.rsqrt(var + 1e-5) * gain[:, None, :] + shift[:, None, :]

    def ttt_layer(p, l, h):
        b = h.shape[0]

        def split(z):   # (b, t, width) -> (chunks, b, heads, chunk, dh)
            return z.reshape(b, chunks, chunk, heads, dh).transpose(1, 0, 3, 2, 4)

        q, k, v = (split(h @ p[f"{l}{n}"]) for n in "qkv")
        rates = base_rate / dh * jax.nn.sigmoid(h @ p[f"{l}lr"] + p[f"{l}lr_b"])
        rates = rates.reshape(b, chunks, chunk, heads).transpose(1, 0, 3, 2)
        gain, shift = p[f"{l}in_g"], p[f"{l}in_b"]

        def step(w, xs):
            kc, vc, qc, rc = xs
            z = jnp.einsum("bhcd,bhde->bhce", kc, w)
            g = jax.grad(lambda z_: jnp.sum(jnp.square(head_norm(z_, gain, shift) + kc - vc)))(z)
            reach = jnp.einsum("bhid,bhjd->bhij", qc, kc) * causal
            out = jnp.einsum("bhcd,bhde->bhce", qc, w) \
                - jnp.einsum("bhij,bhj,bhje->bhie", reach, rc, g)
            w = w - jnp.einsum("bhcd,bhc,bhce->bhde", kc, rc, g)
            return w, head_norm(out, gain, shift) + qc

        start = jnp.broadcast_to(p[f"{l}w0"], (b, heads, dh, dh))
        _, ys = lax.scan(step, start, (k, v, q, rates))
        return ys.transpose(1, 0, 3, 2, 4).reshape(b, length, width)

    def loss_fn(p, tokens):
        x = p["embed"][tokens[:, :-1]] + p["pos"]
        for l in range(layers):
            h = _layer_norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
            x = x + ttt_layer(p, l, h) @ p[f"{l}o"]
            h = _layer_norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + (jax.nn.silu(h @ p[f"{l}gate"]) * (h @ p[f"{l}up"])) @ p[f"{l}down"]
        x = _layer_norm(x, p["norm_g"], p["norm_b"])
        return jnp.mean(_xent(x @ p["head"], tokens[:, 1:]))

    rng = np.random.RandomState(4)
    tokens = _token_streams(rng, batch, length + 1, vocab)
    return _training_step("eadam", loss_fn, p, jnp.asarray(tokens), rate=1e-3, b2=0.999,
                          eps=1e-16)


def dpo_pairs(pairs: int = 8, length: int = 64, values: int = 50, width: int = 128,
              heads: int = 4, layers: int = 3, beta: float = 0.1) -> Any:
    """Direct preference optimization (DPO; Rafailov, Sharma, Mitchell, Ermon, Manning and
    Finn) of a causal transformer in bfloat16 (three layers of width 128, four heads,
    learned positions, GELU MLPs) on eight preference pairs of a sorting task: a prompt of
    8 to 30 numbers, the chosen answer those numbers sorted, the rejected one sorted with
    two neighbours swapped, with an item dropped and another repeated, or not sorted at
    all. Chosen and rejected sequences run as one batch through the policy and through a
    frozen reference model (its weights an argument of the step, no gradient); the
    log-probabilities of the answer tokens, found from per-example prompt and total
    lengths, are summed, and the loss is -log sigmoid(0.1 times the difference of the
    policy's and the reference's log-ratios of chosen over rejected), with the implied
    rewards and the share of pairs ranked right. AdamW whose weight decay pulls the weights
    towards the reference's rather than towards zero (L2-SP; Li, Grandvalet and
    Davoine)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    pad, bos, sep, eos = 0, 1, 2, 3
    vocab = 4 + values
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}qkv_b": (3 * width,), f"{l}o": (width, width), f"{l}o_b": (width,),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}f1": (width, 4 * width),
                       f"{l}f1_b": (4 * width,), f"{l}f2": (4 * width, width),
                       f"{l}f2_b": (width,)})
    shapes.update({"norm_g": (width,), "norm_b": (width,), "head": (width, vocab)})
    policy = _init(shapes, seed=5, dtype=bf16)
    policy["pos"] = policy["pos"] * jnp.asarray(0.02, bf16)
    reference = dict(policy)
    causal = jnp.tril(jnp.ones((length - 1, length - 1), bool))

    def model(w, tokens):
        b, t = tokens.shape
        x = w["embed"][tokens] + w["pos"][:t]
        for l in range(layers):
            h = _layer_norm(x, w[f"{l}n1_g"], w[f"{l}n1_b"])
            q, k, v = jnp.split((h @ w[f"{l}qkv"] + w[f"{l}qkv_b"]).reshape(b, t, 3 * heads, dh),
                                3, 2)
            logits = jnp.einsum("bihd,bjhd->bhij", q, k).astype(f32) / math.sqrt(dh)
            att = jax.nn.softmax(jnp.where(causal, logits, -1e9), -1).astype(bf16)
            x = x + jnp.einsum("bhij,bjhd->bihd", att, v).reshape(b, t, width) @ w[f"{l}o"] \
                + w[f"{l}o_b"]
            h = _layer_norm(x, w[f"{l}n2_g"], w[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ w[f"{l}f1"] + w[f"{l}f1_b"]) @ w[f"{l}f2"] + w[f"{l}f2_b"]
        return _layer_norm(x, w["norm_g"], w["norm_b"]) @ w["head"]

    def step(params, state, reference, chosen, rejected, prompt, chosen_end, rejected_end):
        tokens = jnp.concatenate([chosen, rejected])
        ends = jnp.concatenate([chosen_end, rejected_end])
        starts = jnp.concatenate([prompt, prompt])
        j = jnp.arange(1, length)[None, :]
        answer = ((j >= starts[:, None]) & (j < ends[:, None])).astype(f32)

        def log_probs(w):
            return -jnp.sum(_xent(model(w, tokens[:, :-1]), tokens[:, 1:]) * answer, 1)

        anchor = jax.lax.stop_gradient(log_probs(reference))

        def loss_fn(w):
            gain = log_probs(w) - anchor
            margin = beta * (gain[:pairs] - gain[pairs:])
            return jnp.mean(-jax.nn.log_sigmoid(margin)), (margin, beta * gain)

        (loss, (margin, rewards)), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
        _, update = _optimizer("l2sp_adamw", rate=5e-5, b2=0.999, decay=0.1, anchor=reference)
        params, state = update(params, grads, state)
        return params, state, loss, jnp.mean((margin > 0).astype(f32)), \
            jnp.mean(rewards[:pairs]), jnp.mean(rewards[pairs:])

    rng = np.random.RandomState(5)
    chosen = np.full((pairs, length), pad, np.int32)
    rejected = np.full((pairs, length), pad, np.int32)
    prompt = np.zeros(pairs, np.int32)
    chosen_end = np.zeros(pairs, np.int32)
    rejected_end = np.zeros(pairs, np.int32)
    for i in range(pairs):
        n = rng.randint(8, (length - 3) // 2 + 1)
        items = rng.randint(0, values, n)
        good = np.sort(items)
        bad = good.copy()
        flaw = rng.randint(3)
        if flaw == 0:                       # two neighbours swapped
            at = rng.randint(n - 1)
            bad[at], bad[at + 1] = good[at + 1], good[at]
        elif flaw == 1:                     # one item dropped, another repeated
            bad = np.sort(np.concatenate([np.delete(good, rng.randint(n)),
                                          good[rng.randint(n):][:1]]))
        else:                               # left as given
            bad = items.copy()
        head = [bos] + list(4 + items) + [sep]
        for row, answer, ends in ((chosen, good, chosen_end), (rejected, bad, rejected_end)):
            sequence = head + list(4 + answer) + [eos]
            row[i, :len(sequence)] = sequence
            ends[i] = len(sequence)
        prompt[i] = len(head)
    init, _ = _optimizer("l2sp_adamw")
    return jax.jit(step).lower(policy, jax.eval_shape(init, policy), reference,
                               jnp.asarray(chosen), jnp.asarray(rejected), jnp.asarray(prompt),
                               jnp.asarray(chosen_end), jnp.asarray(rejected_end))


def vqe_xxz(problems: int = 8, qubits: int = 12, layers: int = 8, reach: float = 0.3) -> Any:
    """The variational quantum eigensolver for eight periodic XXZ chains of 12 spins
    (anisotropies from 0.25 to 2, staggered fields from 0.5 to 0), all problems at once
    under `vmap`. A complex64 state vector starts in the Neel state and passes eight
    layers of an RY and an RZ rotation on every qubit (a 2x2 einsum on a reshaped view
    per qubit) followed by a ring of CZ gates (a diagonal sign), the layers in a
    `lax.scan`, and a last layer of rotations. The energy takes the ZZ and field terms
    from the probabilities and a precomputed diagonal, and the XX + YY hopping of every
    bond from a gather of the amplitudes at the basis states with both of its bits
    flipped; its gradient with respect to the 216 angles is taken in reverse mode through
    the complex arithmetic. BFGS with a dense inverse-Hessian estimate per problem,
    renewed by the rank-two update when the curvature s.y is positive, the step capped at
    length 0.3. The energies per site and the gradient norms come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    n = 2 ** qubits
    bits = (np.arange(n)[:, None] >> (qubits - 1 - np.arange(qubits))[None, :]) & 1
    spin = 1 - 2 * bits                                  # z eigenvalue of every qubit
    ring = [(i, (i + 1) % qubits) for i in range(qubits)]
    flip = jnp.asarray(np.stack([np.arange(n) ^ (1 << (qubits - 1 - i)) ^ (1 << (qubits - 1 - j))
                                 for i, j in ring]).astype(np.int32))
    hop = jnp.asarray(np.stack([1 - spin[:, i] * spin[:, j] for i, j in ring]), jnp.float32)
    cz = jnp.asarray(np.prod([1 - 2 * (bits[:, i] & bits[:, j]) for i, j in ring], 0),
                     jnp.float32)
    zz = np.sum([spin[:, i] * spin[:, j] for i, j in ring], 0)
    staggered = np.sum([(-1) ** i * spin[:, i] for i in range(qubits)], 0)
    anisotropy = np.linspace(0.25, 2.0, problems)
    field = np.linspace(0.0, 0.5, problems)[::-1]
    diagonal = jnp.asarray(anisotropy[:, None] * zz[None] - field[:, None] * staggered[None],
                           jnp.float32)
    neel = int("".join("01"[i % 2] for i in range(qubits)), 2)
    start = jnp.zeros(n, jnp.complex64).at[neel].set(1.0)
    size = (layers + 1) * qubits * 2

    def rotate(psi, angles):
        for q in range(qubits):
            theta, phi = angles[q, 0] / 2, angles[q, 1] / 2
            c, s = jnp.cos(theta), jnp.sin(theta)
            down, up = jax.lax.complex(jnp.cos(phi), -jnp.sin(phi)), \
                jax.lax.complex(jnp.cos(phi), jnp.sin(phi))
            gate = jnp.stack([jnp.stack([down * c, -down * s]), jnp.stack([up * s, up * c])])
            psi = jnp.einsum("ab,xbz->xaz", gate, psi.reshape(2 ** q, 2, -1)).reshape(n)
        return psi

    def energy(angles, diag):
        psi, _ = jax.lax.scan(lambda psi, a: (rotate(psi, a) * cz, None), start, angles[:-1])
        psi = rotate(psi, angles[-1])
        e = jnp.sum(jnp.square(jnp.abs(psi)) * diag)
        for k in range(qubits):
            e = e + jnp.sum(jnp.real(jnp.conj(psi[flip[k]]) * psi) * hop[k])
        return e

    def bfgs(angles, last_x, last_g, inverse, t, diag):
        e, g = jax.value_and_grad(energy)(angles, diag)
        x, g = angles.reshape(-1), g.reshape(-1)
        s, y = x - last_x, g - last_g
        sy = jnp.dot(s, y)
        ok = (t > 0) & (sy > 1e-10)
        rho = 1.0 / jnp.where(ok, sy, 1.0)
        left = jnp.eye(size) - rho * jnp.outer(s, y)
        renewed = left @ inverse @ left.T + rho * jnp.outer(s, s)
        inverse = jnp.where(ok, renewed, inverse)
        direction = -inverse @ g
        direction = direction * jnp.minimum(1.0, reach / (jnp.linalg.norm(direction) + 1e-12))
        return (x + direction).reshape(angles.shape), x, g, inverse, t + 1, e, jnp.linalg.norm(g)

    def run(angles, last_x, last_g, inverse, t):
        out = jax.vmap(bfgs)(angles, last_x, last_g, inverse, t, diagonal)
        return out[:5], out[5] / qubits, out[6]

    rng = np.random.RandomState(6)
    angles = jnp.asarray(rng.normal(0, 0.1, (problems, layers + 1, qubits, 2)), jnp.float32)
    return jax.jit(run).lower(angles, jnp.zeros((problems, size)), jnp.zeros((problems, size)),
                              jnp.broadcast_to(jnp.eye(size), (problems, size, size)),
                              jnp.zeros(problems, jnp.int32))


def rigl_sparse_cnn(batch: int = 16, side: int = 32, classes: int = 10, density: float = 0.1,
                    every: int = 100, drop: float = 0.3, horizon: int = 20000) -> Any:
    """Sparse training by RigL (Evci, Gale, Menick, Castro and Elsen) of a VGG-style CNN in
    bfloat16 (3x3 convolutions of 32, 64, 128, 128 and 256 channels with batch norm and
    four 2x2 max poolings, a dense layer of 256 and a head) on sixteen 32x32 pictures of
    gratings. All but the first convolution and the head are sparse, 10% of their weights
    alive overall, spread by Erdos-Renyi-kernel densities; the masks are arguments of the
    step. The
    loss is differentiated at the masked weights, so the gradient is dense, but only live
    weights move. Every 100th step (`lax.cond`) each sparse tensor drops its live weights
    of smallest magnitude and regrows as many dead ones where the dense gradient is
    largest (two `top_k`s over the flattened tensor and scatters), regrown weights and
    their optimizer moments starting from zero; the share exchanged decays from 0.3 on a
    cosine over 20,000 steps. AMSBound (Luo, Xiong, Liu and Sun): AMSGrad whose
    per-weight rates are clipped into bounds that close in on 0.1."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    plan = (("c1", 3, 32, False), ("c2", 32, 64, True), ("c3", 64, 128, True),
            ("c4", 128, 128, True), ("c5", 128, 256, True))
    shapes: dict[str, tuple[int, ...]] = {}
    for name, cin, cout, _ in plan:
        shapes.update({name: (3, 3, cin, cout), f"{name}n_g": (cout,), f"{name}n_b": (cout,)})
    flat = (side // 16) ** 2 * 256
    shapes.update({"fc": (flat, 256), "fc_b": (256,), "out": (256, classes),
                   "out_b": (classes,)})
    p = _init(shapes, seed=7, dtype=bf16, gain=1.4)
    sparse = ("c2", "c3", "c4", "c5", "fc")

    # Erdos-Renyi-kernel densities: proportional to the sum of a tensor's dimensions over
    # their product, scaled to keep `density` of the sparse tensors' weights overall
    sizes = {k: math.prod(shapes[k]) for k in sparse}
    raw = {k: sum(shapes[k]) / sizes[k] for k in sparse}
    dense: set[str] = set()
    while True:
        budget = density * sum(sizes.values()) - sum(sizes[k] for k in dense)
        scale = budget / sum(raw[k] * sizes[k] for k in sparse if k not in dense)
        full = {k for k in sparse if k not in dense and scale * raw[k] >= 1.0}
        if not full:
            break
        dense |= full
    active = {k: sizes[k] if k in dense else int(round(scale * raw[k] * sizes[k]))
              for k in sparse}
    most = {k: max(1, int(drop * active[k])) for k in sparse}
    rng = np.random.RandomState(7)
    masks = {}
    for k in sparse:
        on = np.zeros(sizes[k], bool)
        on[rng.permutation(sizes[k])[:active[k]]] = True
        masks[k] = jnp.asarray(on.reshape(shapes[k]))

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss_fn(p, pictures, labels):
        x = pictures.astype(bf16)
        for name, _, _, pooled in plan:
            x = jax.nn.relu(_batch_norm(_conv(x, p[name]), p[f"{name}n_g"], p[f"{name}n_b"]))
            x = pool(x) if pooled else x
        x = jax.nn.relu(x.reshape(x.shape[0], -1) @ p["fc"] + p["fc_b"])
        return jnp.mean(_xent(x @ p["out"] + p["out_b"], labels))

    init, update = _optimizer("amsbound", rate=1e-3)

    def step(params, state, masks, pictures, labels):
        shown = {k: jnp.where(masks[k], w, 0) if k in masks else w for k, w in params.items()}
        loss, grads = jax.value_and_grad(loss_fn)(shown, pictures, labels)
        kept = {k: jnp.where(masks[k], g, 0) if k in masks else g for k, g in grads.items()}
        params, state = update(params, kept, state)
        params = {k: jnp.where(masks[k], w, 0) if k in masks else w for k, w in params.items()}
        share = drop / 2 * (1 + jnp.cos(math.pi * jnp.minimum(state[3] / horizon, 1.0)))

        def regrow(operands):
            params, masks, (m, v, peak, t) = operands
            params, masks, m, v, peak = dict(params), dict(masks), dict(m), dict(v), dict(peak)
            for k in sparse:
                on = masks[k].reshape(-1)
                w = params[k].reshape(-1).astype(f32)
                count = jnp.floor(share * active[k]).astype(jnp.int32)
                take = jnp.arange(most[k]) < count
                weakest = lax.top_k(jnp.where(on, -jnp.abs(w), -jnp.inf), most[k])[1]
                strongest = lax.top_k(jnp.where(on, -jnp.inf,
                                                jnp.abs(grads[k].reshape(-1).astype(f32))),
                                      most[k])[1]
                dropped = jnp.zeros_like(on).at[weakest].set(take)
                grown = jnp.zeros_like(on).at[strongest].set(take)
                masks[k] = ((on & ~dropped) | grown).reshape(shapes[k])
                fresh = grown.reshape(shapes[k])
                params[k] = jnp.where(fresh | ~masks[k], 0, params[k])
                m[k], v[k], peak[k] = (jnp.where(fresh, 0.0, a[k]) for a in (m, v, peak))
            return params, masks, (m, v, peak, t)

        params, masks, state = lax.cond(state[3] % every == 0, regrow, lambda o: o,
                                        (params, masks, state))
        return params, state, masks, loss

    pictures, labels = _textures(rng, batch, side, classes)
    return jax.jit(step).lower(p, jax.eval_shape(init, p), masks, jnp.asarray(pictures),
                               jnp.asarray(labels, jnp.int32))


def equilibrium_propagation(batch: int = 128, side: int = 28, classes: int = 10,
                            hidden: tuple[int, ...] = (512, 256), free: int = 40,
                            nudged: int = 12, beta: float = 0.5) -> Any:
    """Equilibrium propagation (Scellier and Bengio) trains a layered, symmetrically
    connected network of 784, 512, 256 and 10 hard-sigmoid units on 128 seven-segment
    digits without any backward pass. A free phase relaxes the states from zero by 40
    synchronous sweeps in a `fori_loop` (every layer driven by the layer below through W
    and by the layer above through W transposed); two nudged phases of 12 sweeps each
    start from the free equilibrium with the output layer pulled towards the one-hot
    target with strength +0.5 and -0.5. Each weight's gradient estimate is minus the
    difference of the products of its two units' activities between the two nudged
    equilibria over twice the strength (the symmetric estimate of Laborieux et al.).
    Incremental delta-bar-delta (Sutton) lifted to every weight: a log step size per
    weight learned by a meta-gradient, log_rate += -0.01 g h, and a trace h <- h max(0, 1 -
    rate g^2) - rate g of how the weight has moved with its step size, the squared
    gradient standing in for the squared input of Sutton's linear unit. The free phase's
    cost and accuracy come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    sizes = (side * side,) + hidden + (classes,)
    depth = len(sizes) - 1
    shapes: dict[str, tuple[int, ...]] = {}
    for l in range(depth):
        shapes.update({f"w{l}": (sizes[l], sizes[l + 1]), f"w{l}_b": (sizes[l + 1],)})
    p = _init(shapes, seed=8)
    init, update = _optimizer("idbd", rate=0.01, meta_rate=0.01)

    def rho(s):
        return jnp.clip(s, 0.0, 1.0)

    def relax(p, x, states, target, strength, steps):
        def sweep(_, states):
            fired = [x] + [rho(s) for s in states]
            new = []
            for l in range(depth):
                drive = fired[l] @ p[f"w{l}"] + p[f"w{l}_b"]
                if l + 1 < depth:
                    drive = drive + fired[l + 2] @ p[f"w{l + 1}"].T
                else:
                    drive = drive + strength * (target - states[l])
                new.append(rho(drive))
            return new
        return lax.fori_loop(0, steps, sweep, states)

    def step(params, state, pictures, labels):
        x = pictures.reshape(pictures.shape[0], -1)
        target = jax.nn.one_hot(labels, classes)
        start = [jnp.zeros((x.shape[0], n)) for n in sizes[1:]]
        rest = relax(params, x, start, target, 0.0, free)
        plus = relax(params, x, rest, target, beta, nudged)
        minus = relax(params, x, rest, target, -beta, nudged)
        grads = {}
        for l in range(depth):
            low_p = x if l == 0 else rho(plus[l - 1])
            low_m = x if l == 0 else rho(minus[l - 1])
            grads[f"w{l}"] = -(low_p.T @ rho(plus[l]) - low_m.T @ rho(minus[l])) \
                / (2 * beta * x.shape[0])
            grads[f"w{l}_b"] = -jnp.mean(rho(plus[l]) - rho(minus[l]), 0) / (2 * beta)
        params, state = update(params, grads, state)
        guess = rest[-1]
        cost = 0.5 * jnp.mean(jnp.sum(jnp.square(guess - target), -1))
        right = jnp.mean((jnp.argmax(guess, -1) == labels).astype(jnp.float32))
        return params, state, cost, right

    rng = np.random.RandomState(8)
    pictures, labels = _segment_digits(rng, batch, side)
    return jax.jit(step).lower(p, jax.eval_shape(init, p), jnp.asarray(pictures),
                               jnp.asarray(labels, jnp.int32))


def crf_rnn_segmentation(batch: int = 8, side: int = 64, classes: int = 6, iterations: int = 5,
                         window: int = 5, spatial_sigma: float = 3.0, position_scale: float = 4.0,
                         colour_scale: float = 0.12, unary_weight: float = 0.4) -> Any:
    """Semantic segmentation by a CRF as a recurrent network (CRF-RNN; Zheng et al.) of
    eight 64x64 scenes of overlapping shapes (discs, squares, triangles, rings and bars
    over a shaded background; six classes). A small encoder-decoder (3x3 convolutions with
    batch norm of 16, 32 and 64 channels, two stride-2 steps, a dilated convolution, and
    nearest upsampling by `jnp.repeat` with skip concatenations) gives unary scores; five
    mean-field iterations in a `lax.scan` then turn the scores into class probabilities,
    pass them through a separable Gaussian over the pixel grid (seven shifted slices each
    way) and through bilateral weights over each pixel's 5x5 window (from the offset and
    the colour difference, normalized over the window; 24 shifted slices), weigh the two
    messages per class, map them through a learned compatibility matrix (Potts at the
    start) and subtract them from the unary scores. Cross-entropy on the final scores
    plus 0.4 times that of the unary scores. WNGrad (Wu, Ward and Bottou): one step size
    for the network, rate / b, with b growing by |g|^2 / b after every step."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    convs = (("e1a", 3, 16), ("e1b", 16, 16), ("e2a", 16, 32), ("e2b", 32, 32), ("e3a", 32, 64),
             ("e3b", 64, 64), ("d2", 64 + 32, 32), ("d1", 32 + 16, 16))
    shapes: dict[str, tuple[int, ...]] = {}
    for name, cin, cout in convs:
        shapes.update({name: (3, 3, cin, cout), f"{name}n_g": (cout,), f"{name}n_b": (cout,)})
    shapes.update({"unary": (1, 1, 16, classes), "unary_b": (classes,)})
    p = _init(shapes, seed=9, gain=1.4)
    p["spatial_g"] = jnp.full((classes,), 1.0)
    p["appearance_g"] = jnp.full((classes,), 2.0)
    p["compat"] = jnp.ones((classes, classes)) - jnp.eye(classes)
    taps = np.exp(-0.5 * (np.arange(7) - 3) ** 2 / spatial_sigma ** 2)
    taps = [float(t) for t in taps / taps.sum()]
    half = window // 2
    offsets = [(dy, dx) for dy in range(-half, half + 1) for dx in range(-half, half + 1)
               if dy or dx]
    relu = jax.nn.relu

    def conv_block(p, name, x, stride=1, dilation=1):
        x = _conv(x, p[name], stride, dilation=dilation)
        return relu(_batch_norm(x, p[f"{name}n_g"], p[f"{name}n_b"]))

    def shifted(x):
        """x (b, h, w, c) moved by every window offset, zero beyond the border."""
        padded = jnp.pad(x, ((0, 0), (half, half), (half, half), (0, 0)))
        return [padded[:, half + dy:half + dy + side, half + dx:half + dx + side]
                for dy, dx in offsets]

    def blur(q):
        """The spatial Gaussian kernel, separable, by shifted slices."""
        padded = jnp.pad(q, ((0, 0), (0, 0), (3, 3), (0, 0)))
        q = sum(t * padded[:, :, i:i + side] for i, t in enumerate(taps))
        padded = jnp.pad(q, ((0, 0), (3, 3), (0, 0), (0, 0)))
        return sum(t * padded[:, i:i + side] for i, t in enumerate(taps))

    def bilateral_weights(pictures):
        inside = shifted(jnp.ones(pictures.shape[:3] + (1,)))
        weights = [m * jnp.exp(-0.5 * (dy * dy + dx * dx) / position_scale ** 2
                               - 0.5 * jnp.sum(jnp.square(moved - pictures), -1, keepdims=True)
                               / colour_scale ** 2)
                   for m, moved, (dy, dx) in zip(inside, shifted(pictures), offsets)]
        total = sum(weights) + 1e-6
        return [w / total for w in weights]

    def loss_fn(p, pictures, labels):
        e1 = conv_block(p, "e1b", conv_block(p, "e1a", pictures))
        e2 = conv_block(p, "e2b", conv_block(p, "e2a", e1, 2))
        e3 = conv_block(p, "e3b", conv_block(p, "e3a", e2, 2), dilation=2)
        up = jnp.repeat(jnp.repeat(e3, 2, 1), 2, 2)
        d2 = conv_block(p, "d2", jnp.concatenate([up, e2], -1))
        up = jnp.repeat(jnp.repeat(d2, 2, 1), 2, 2)
        d1 = conv_block(p, "d1", jnp.concatenate([up, e1], -1))
        unary = _conv(d1, p["unary"]) + p["unary_b"]
        affinity = bilateral_weights(pictures)

        def mean_field(logits, _):
            q = jax.nn.softmax(logits, -1)
            near = blur(q)
            alike = sum(w * moved for w, moved in zip(affinity, shifted(q)))
            message = p["spatial_g"] * near + p["appearance_g"] * alike
            return unary - message @ p["compat"], None

        final, _ = lax.scan(mean_field, unary, None, length=iterations)
        return jnp.mean(_xent(final, labels)) + unary_weight * jnp.mean(_xent(unary, labels))

    rng = np.random.RandomState(9)
    pictures, labels = _shape_scenes(rng, batch, side)
    return _training_step("wngrad", loss_fn, p, jnp.asarray(pictures), jnp.asarray(labels),
                          rate=1.0, start=10.0)


def sliced_score_dp(batch: int = 256, dim: int = 16, width: int = 256, depth: int = 3,
                    projections: int = 2, noise: float = 0.1, clip: float = 1.0,
                    sigma: float = 1.1, rate: float = 0.05, momentum: float = 0.9) -> Any:
    """A score network learns the density of 256 points in 16 dimensions near three
    shapes (a swiss roll, a helix and a flat Gaussian, each embedded by its own random
    orthonormal frame and offset), slightly noised in the step, by sliced score matching
    with variance reduction (Song, Garg, Shi and Ermon): an MLP of three SiLU layers of
    256 gives the score s(x), and for two Gaussian probes v per point the loss is v^T
    (ds/dx) v, by a forward-mode `jax.jvp` along v, plus half the squared norm of the
    score. The step is differentially private SGD (Abadi et al.): per-example gradients by
    `vmap` of `value_and_grad` (reverse mode over forward mode), each clipped to norm 1
    over all weights, summed, Gaussian noise of 1.1 times the clip added, divided by the
    batch, under heavy-ball momentum 0.9; the mean loss, the mean per-example gradient
    norm and the share of clipped examples come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    sizes = [dim] + [width] * depth + [dim]
    shapes: dict[str, tuple[int, ...]] = {}
    for l in range(depth + 1):
        shapes.update({f"w{l}": (sizes[l], sizes[l + 1]), f"w{l}_b": (sizes[l + 1],)})
    p = _init(shapes, seed=10)
    tm = jax.tree.map

    def score(p, x):
        for l in range(depth):
            x = jax.nn.silu(x @ p[f"w{l}"] + p[f"w{l}_b"])
        return x @ p[f"w{depth}"] + p[f"w{depth}_b"]

    def example_loss(p, x, directions):
        def along(v):
            s, jv = jax.jvp(lambda y: score(p, y), (x,), (v,))
            return jnp.dot(v, jv) + 0.5 * jnp.dot(s, s)
        return jnp.mean(jax.vmap(along)(directions))

    def step(params, velocity, data, key):
        k_noise, k_probe, k_privacy = jax.random.split(key, 3)
        x = data + noise * jax.random.normal(k_noise, data.shape)
        probes = jax.random.normal(k_probe, (data.shape[0], projections, dim))
        losses, grads = jax.vmap(jax.value_and_grad(example_loss), (None, 0, 0))(params, x, probes)
        norms = jnp.sqrt(sum(jnp.sum(jnp.square(g.reshape(g.shape[0], -1)), 1)
                             for g in jax.tree.leaves(grads)))
        factor = jnp.minimum(1.0, clip / (norms + 1e-12))
        leaves, tree = jax.tree.flatten(grads)
        keys = jax.random.split(k_privacy, len(leaves))
        private = tree.unflatten([
            (jnp.tensordot(factor, g, 1) + sigma * clip * jax.random.normal(k, g.shape[1:]))
            / data.shape[0] for g, k in zip(leaves, keys)])
        velocity = tm(lambda v, g: momentum * v + g, velocity, private)
        params = tm(lambda w, v: w - rate * v, params, velocity)
        return params, velocity, jnp.mean(losses), jnp.mean(norms), \
            jnp.mean((factor < 1).astype(jnp.float32))

    rng = np.random.RandomState(10)
    kind = rng.randint(0, 3, batch)
    t = rng.uniform(0, 1, batch)
    local = np.zeros((batch, 3))
    roll = 1.5 * np.pi * (1 + 2 * t)
    local[kind == 0] = np.stack([roll * np.cos(roll) / 10, rng.uniform(-1, 1, batch),
                                 roll * np.sin(roll) / 10], 1)[kind == 0]
    turn = 6 * np.pi * t
    local[kind == 1] = np.stack([np.cos(turn), np.sin(turn), 2 * t - 1], 1)[kind == 1]
    local[kind == 2] = (rng.standard_normal((batch, 3)) * [0.5, 0.2, 0.05])[kind == 2]
    frames = np.stack([np.linalg.qr(rng.standard_normal((dim, 3)))[0] for _ in range(3)])
    centres = rng.standard_normal((3, dim))
    data = np.einsum("bdk,bk->bd", frames[kind], local) + centres[kind]
    return jax.jit(step).lower(p, tm(jnp.zeros_like, p), jnp.asarray(data, jnp.float32),
                               jax.random.PRNGKey(10))


def music_doa(scenes: int = 128, sensors: int = 16, snapshots: int = 256, sources: int = 3,
              grid: int = 1801, sweeps: int = 40, newton: int = 30) -> Any:
    """Direction-of-arrival estimation with a uniform linear array of 16 sensors at half a
    wavelength for 128 scenes of three narrowband sources (powers from -5 to 15 dB over
    unit noise, at least 4 degrees apart; in every fourth scene two of them coherent) seen
    in 256 complex snapshots, no gradient, in complex64. The sample covariance of every
    scene is forward-backward averaged (which decorrelates coherent pairs); its signal
    subspace comes from 40 sweeps of orthogonal iteration with modified Gram-Schmidt in a
    `fori_loop`, with Rayleigh quotients for the signal powers and the noise floor from
    the trace. Three spectra are scanned over 1801 angles from -90 to 90 degrees: MUSIC
    (the inverse of the steering vectors' energy outside the signal subspace), Bartlett
    (a^H R a) and Capon (1 / a^H R^-1 a, the diagonally loaded covariance inverted by 30
    Newton-Schulz iterations in a `fori_loop`). The three highest local maxima of the
    MUSIC spectrum (`top_k`), refined by parabolic interpolation, are the estimates; their
    RMS error against the true angles, the signal-to-noise ratios and the spectra come
    back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c64 = jnp.complex64
    degrees = np.linspace(-90.0, 90.0, grid)
    element = np.arange(sensors)

    def steering(angle_degrees):
        return np.exp(1j * np.pi * element[:, None] * np.sin(np.radians(angle_degrees))[None, :])

    scan = jnp.asarray(steering(degrees), c64)              # (sensors, grid)
    flip = jnp.asarray(np.eye(sensors)[::-1], c64)
    probe = np.random.RandomState(110)
    start = jnp.asarray(probe.standard_normal((sensors, sources))
                        + 1j * probe.standard_normal((sensors, sources)), c64)

    def orthonormal(v):
        """Columns of v (..., sensors, sources) made orthonormal by modified Gram-Schmidt."""
        columns = []
        for j in range(sources):
            u = v[..., j]
            for w in columns:
                u = u - jnp.sum(jnp.conj(w) * u, -1, keepdims=True) * w
            columns.append(u / jnp.sqrt(jnp.sum(jnp.abs(u) ** 2, -1, keepdims=True)))
        return jnp.stack(columns, -1)

    def quadratic(matrix):
        """Re(a^H M a) for every scanned steering vector a: (scenes, grid)."""
        return jnp.real(jnp.sum(jnp.conj(scan) * (matrix @ scan), -2))

    def run(snapshots_, truth):
        cov = snapshots_ @ jnp.conj(jnp.swapaxes(snapshots_, 1, 2)) / snapshots_.shape[-1]
        cov = 0.5 * (cov + flip @ jnp.conj(cov) @ flip)     # forward-backward averaging
        basis = lax.fori_loop(0, sweeps, lambda _, v: orthonormal(cov @ v),
                              jnp.broadcast_to(start, (scenes, sensors, sources)))
        strength = jnp.real(jnp.sum(jnp.conj(basis) * (cov @ basis), -2))
        trace = jnp.real(jnp.trace(cov, axis1=1, axis2=2))
        floor = (trace - jnp.sum(strength, -1)) / (sensors - sources)
        seen = jnp.sum(jnp.abs(jnp.conj(jnp.swapaxes(basis, 1, 2)) @ scan) ** 2, 1)
        music = 10 * jnp.log10(1.0 / jnp.maximum(sensors - seen, 1e-6))
        bartlett = 10 * jnp.log10(quadratic(cov) / sensors)
        eye = jnp.eye(sensors, dtype=c64)
        loaded = cov + (0.01 * trace / sensors)[:, None, None] * eye
        size = jnp.max(jnp.sum(jnp.abs(loaded), -1), -1)    # row sums bound the spectrum
        inverse = lax.fori_loop(0, newton, lambda _, x: x @ (2 * eye - loaded @ x),
                                eye / size[:, None, None].astype(c64))
        capon = -10 * jnp.log10(jnp.maximum(quadratic(inverse), 1e-12))
        peaks = (music[:, 1:-1] > music[:, :-2]) & (music[:, 1:-1] >= music[:, 2:])
        height = jnp.where(peaks, music[:, 1:-1], -jnp.inf)
        _, at = lax.top_k(height, sources)
        at = at + 1
        left, mid, right = (jnp.take_along_axis(music, at + d, 1) for d in (-1, 0, 1))
        shift = 0.5 * (left - right) / jnp.where(left - 2 * mid + right == 0, -1e-9,
                                                 left - 2 * mid + right)
        estimate = jnp.sort(degrees[0] + (at + jnp.clip(shift, -0.5, 0.5))
                            * (degrees[1] - degrees[0]), -1)
        error = jnp.sqrt(jnp.mean(jnp.square(estimate - jnp.sort(truth, -1)), -1))
        return estimate, error, strength / floor[:, None], music, bartlett, capon

    rng = np.random.RandomState(11)
    truth = np.zeros((scenes, sources))
    data = np.zeros((scenes, sensors, snapshots), np.complex64)
    for i in range(scenes):
        while True:
            angles = rng.uniform(-70, 70, sources)
            if np.min(np.diff(np.sort(angles))) > 4.0:
                break
        truth[i] = angles
        power = 10 ** (rng.uniform(-5, 15, sources) / 10)
        waves = np.sqrt(power / 2)[:, None] * (rng.standard_normal((sources, snapshots))
                                               + 1j * rng.standard_normal((sources, snapshots)))
        if i % 4 == 3:                                       # two coherent sources
            waves[1] = waves[0] * np.exp(1j * rng.uniform(0, 2 * np.pi))
        noise = (rng.standard_normal((sensors, snapshots))
                 + 1j * rng.standard_normal((sensors, snapshots))) / np.sqrt(2)
        data[i] = steering(angles) @ waves + noise
    return jax.jit(run).lower(jnp.asarray(data), jnp.asarray(truth, jnp.float32))


def baum_welch_hmm(sequences: int = 96, length: int = 400, states: int = 10, symbols: int = 24,
                   rounds: int = 8, prior: float = 1e-3) -> Any:
    """Baum-Welch re-estimation of a discrete hidden Markov model (ten states, 24 symbols)
    from 96 sequences of 400 observations drawn from a sticky, cyclic model, starting
    from a perturbed guess, no gradient: eight rounds of expectation-maximization in a
    `fori_loop`. Each round runs the scaled forward recursion (probabilities normalized
    at every step, the scales kept) in a `lax.scan` over time and the backward recursion
    in a reversed `lax.scan`, for all sequences at once; the state posteriors, the
    expected transition counts (an einsum of forward and backward messages over time and
    sequences) and the expected emission counts (`segment_sum` of the posteriors by
    symbol) give the new initial, transition and emission probabilities with a small
    pseudo-count. The model, the log-likelihood per symbol after every round (which EM
    never lowers), the posterior decoding, the state occupancy and the mean confidence of
    the posteriors come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def em_round(model, observed):
        start, move, emit = model
        seen = emit.T[observed]                              # (time, sequences, states)

        def forward(alpha, likely):
            alpha = (alpha @ move) * likely
            scale = jnp.sum(alpha, -1, keepdims=True)
            return alpha / scale, (alpha / scale, scale[:, 0])

        first = start * seen[0]
        first_scale = jnp.sum(first, -1)
        _, (alphas, scales) = lax.scan(forward, first / first_scale[:, None], seen[1:])
        alphas = jnp.concatenate([(first / first_scale[:, None])[None], alphas])
        scales = jnp.concatenate([first_scale[None], scales])

        def backward(beta, xs):
            likely, scale = xs
            beta = ((likely * beta) @ move.T) / scale[:, None]
            return beta, beta

        _, betas = lax.scan(backward, jnp.ones((sequences, states)), (seen[1:], scales[1:]),
                            reverse=True)
        betas = jnp.concatenate([betas, jnp.ones((1, sequences, states))])
        posterior = alphas * betas
        posterior = posterior / jnp.sum(posterior, -1, keepdims=True)
        carried = (seen[1:] * betas[1:]) / scales[1:, :, None]
        pairs = move * jnp.einsum("tsi,tsj->ij", alphas[:-1], carried)
        counts = jax.ops.segment_sum(posterior.reshape(-1, states), observed.reshape(-1),
                                     symbols)
        start = jnp.mean(posterior[0], 0) + prior
        move = pairs + prior
        emit = counts.T + prior
        model = (start / jnp.sum(start), move / jnp.sum(move, -1, keepdims=True),
                 emit / jnp.sum(emit, -1, keepdims=True))
        return model, jnp.sum(jnp.log(scales)) / (sequences * length), posterior

    def run(start, move, emit, observed):
        def body(i, carry):
            model, history, _ = carry
            model, fit, posterior = em_round(model, observed)
            return model, history.at[i].set(fit), posterior

        blank = jnp.zeros((length, sequences, states))
        model, history, posterior = lax.fori_loop(0, rounds, body,
                                                  ((start, move, emit), jnp.zeros(rounds), blank))
        decoded = jnp.argmax(posterior, -1)
        occupancy = jnp.mean(posterior, (0, 1))
        sureness = jnp.mean(jnp.max(posterior, -1))
        return model, history, decoded, occupancy, sureness

    rng = np.random.RandomState(12)
    move = np.full((states, states), 0.02 / (states - 1))
    np.fill_diagonal(move, 0.0)
    move += np.diag(np.full(states, 0.9))
    move[np.arange(states), (np.arange(states) + 1) % states] += 0.08
    emit = rng.dirichlet(np.full(symbols, 0.3), states)
    observed = np.zeros((length, sequences), np.int32)
    state = rng.randint(0, states, sequences)
    for t in range(length):
        if t:
            state = (move[state].cumsum(1) > rng.uniform(size=(sequences, 1))).argmax(1)
        observed[t] = (emit[state].cumsum(1) > rng.uniform(size=(sequences, 1))).argmax(1)
    guess_move = rng.dirichlet(np.full(states, 1.0), states) * 0.3 + 0.7 * np.eye(states)
    guess_emit = rng.dirichlet(np.full(symbols, 1.0), states)
    return jax.jit(run).lower(jnp.full(states, 1.0 / states),
                              jnp.asarray(guess_move, jnp.float32),
                              jnp.asarray(guess_emit, jnp.float32), jnp.asarray(observed))


def icp_registration(pairs: int = 6, moving: int = 384, fixed: int = 768, iterations: int = 20,
                     squarings: int = 8, reject: float = 2.5) -> Any:
    """Rigid registration of six pairs of point clouds by iterative closest point (Besl and
    McKay), no gradient: 384 points of a partial view (15% of the surface cut away, the
    gap filled by repeats) moved by a random rotation of 5 to 30 degrees and a shift, to
    be brought onto 768 noisy points of the whole surface (a bumpy torus, a wavy sheet or
    a lumpy ellipsoid). In a `fori_loop` of 20 iterations under `vmap` over the pairs,
    every moved point finds its nearest fixed point (all-pair squared distances by a
    matrix product, `argmin`), matches farther than 2.5 times the mean distance are
    dropped, and the best rotation for the rest comes from Horn's quaternion method: the
    eigenvector of the largest eigenvalue of his symmetric 4x4 matrix of the
    cross-covariance, found by eight repeated squarings of its shifted, normalized copy in
    a `fori_loop`, turned into a rotation matrix; the shift follows from the centroids.
    The transforms, the RMS residual after every iteration and the rotation and shift
    errors against the truth come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def rotation_of(q):
        w, x, y, z = q[0], q[1], q[2], q[3]
        return jnp.stack([
            jnp.stack([w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)]),
            jnp.stack([2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)]),
            jnp.stack([2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z])])

    def horn(h):
        """The rotation that best maps the centred moving points onto their matches, from
        the cross-covariance h: the top eigenvector of Horn's symmetric 4x4 matrix by
        repeated squaring of its shifted, normalized copy."""
        sxx, sxy, sxz = h[0, 0], h[0, 1], h[0, 2]
        syx, syy, syz = h[1, 0], h[1, 1], h[1, 2]
        szx, szy, szz = h[2, 0], h[2, 1], h[2, 2]
        n = jnp.stack([
            jnp.stack([sxx + syy + szz, syz - szy, szx - sxz, sxy - syx]),
            jnp.stack([syz - szy, sxx - syy - szz, sxy + syx, szx + sxz]),
            jnp.stack([szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy]),
            jnp.stack([sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz])])
        m = n + jnp.sqrt(jnp.sum(n * n)) * jnp.eye(4)

        def square(_, m):
            m = m @ m
            return m / jnp.sqrt(jnp.sum(m * m))

        m = lax.fori_loop(0, squarings, square, m)
        column = jnp.argmax(jnp.sum(m * m, 0))
        q = m[:, column]
        return rotation_of(q / jnp.sqrt(jnp.sum(q * q)))

    def register(source, target):
        def step(i, carry):
            turn, shift, history = carry
            placed = source @ turn.T + shift
            d2 = jnp.sum(placed ** 2, 1)[:, None] + jnp.sum(target ** 2, 1)[None, :] \
                - 2.0 * placed @ target.T
            nearest = jnp.argmin(d2, 1)
            gap = jnp.sqrt(jnp.maximum(jnp.min(d2, 1), 0.0))
            keep = (gap <= reject * jnp.mean(gap)).astype(jnp.float32)
            match = target[nearest]
            total = jnp.sum(keep)
            p_mean = keep @ placed / total
            q_mean = keep @ match / total
            h = ((placed - p_mean) * keep[:, None]).T @ (match - q_mean)
            r = horn(h)
            t = q_mean - r @ p_mean
            rms = jnp.sqrt(jnp.sum(keep * gap ** 2) / total)
            return r @ turn, r @ shift + t, history.at[i].set(rms)

        return lax.fori_loop(0, iterations, step,
                             (jnp.eye(3), jnp.zeros(3), jnp.zeros(iterations)))

    def run(sources, targets, true_turn, true_shift):
        turn, shift, history = jax.vmap(register)(sources, targets)
        relative = jnp.einsum("bij,bkj->bik", turn, true_turn)
        cosine = jnp.clip((jnp.trace(relative, axis1=1, axis2=2) - 1) / 2, -1.0, 1.0)
        angle = jnp.degrees(jnp.arccos(cosine))
        offset = jnp.sqrt(jnp.sum(jnp.square(shift - true_shift), -1))
        return turn, shift, history, angle, offset

    rng = np.random.RandomState(13)

    def surface(kind, count):
        u, v = rng.uniform(0, 2 * np.pi, count), rng.uniform(0, 1, count)
        if kind == 0:                                        # a bumpy torus
            r = 0.35 + 0.05 * np.sin(5 * u)
            return np.stack([(1 + r * np.cos(2 * np.pi * v)) * np.cos(u),
                             (1 + r * np.cos(2 * np.pi * v)) * np.sin(u),
                             r * np.sin(2 * np.pi * v)], 1)
        if kind == 1:                                        # a wavy sheet
            x, y = rng.uniform(-1.2, 1.2, (2, count))
            return np.stack([x, y, 0.3 * np.sin(3 * x) * np.cos(2 * y)], 1)
        a = rng.standard_normal((count, 3))                  # a lumpy ellipsoid
        a /= np.linalg.norm(a, axis=1, keepdims=True)
        return a * [1.2, 0.8, 0.5] * (1 + 0.1 * np.sin(4 * a[:, :1]))

    sources = np.zeros((pairs, moving, 3), np.float32)
    targets = np.zeros((pairs, fixed, 3), np.float32)
    true_turn = np.zeros((pairs, 3, 3), np.float32)
    true_shift = np.zeros((pairs, 3), np.float32)
    for i in range(pairs):
        axis = rng.standard_normal(3)
        axis /= np.linalg.norm(axis)
        angle = np.radians(rng.uniform(5, 30))
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        turn = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
        shift = rng.uniform(-0.2, 0.2, 3)
        cloud = surface(i % 3, fixed + moving)
        seen = cloud[:moving]
        seen = seen[seen[:, 0] > np.quantile(seen[:, 0], 0.15)]     # partial overlap
        seen = np.concatenate([seen, seen[:moving - len(seen)]])
        targets[i] = cloud[moving:] + 0.01 * rng.standard_normal((fixed, 3))
        sources[i] = (seen - shift) @ turn
        true_turn[i], true_shift[i] = turn, shift
    return jax.jit(run).lower(jnp.asarray(sources), jnp.asarray(targets), jnp.asarray(true_turn),
                              jnp.asarray(true_shift))


def eikonal_fast_sweeping(grids: int = 4, side: int = 192, sources: int = 3, cap: int = 8,
                          tolerance: float = 1e-5) -> Any:
    """First-arrival travel times through four 192x192 media from three point sources each,
    by the fast sweeping method for the eikonal equation |grad T| = slowness (Zhao) with
    Godunov upwind updates, no gradient. The slowness is the exponential of a smooth
    random field (about one) crossed by three thick walls of slowness 25, each with a gap.
    The sweeps are made parallel as Detrixhe, Gibou and Min do: for a sweep direction the
    cells of one anti-diagonal depend only on the one before, so the grid is sheared by a
    gather into rows of anti-diagonals and a `lax.scan` over the 383 of them updates each
    row from the row just updated and the old next row, then a gather shears it back;
    four directions by flips make a round, and rounds repeat in a `while_loop` until no
    time changes by more than 1e-5 (at most eight). The times, the rounds, the last
    change, the mean relative residual of the discrete equation and the largest time
    come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n, h, far = side, 1.0 / (side - 1), 1e10
    diagonals = 2 * n - 1
    d, i = np.meshgrid(np.arange(diagonals), np.arange(n), indexing="ij")
    j = d - i
    valid_np = (j >= 0) & (j < n)
    gather_in = jnp.asarray(i * n + np.clip(j, 0, n - 1))      # sheared (d, i) <- T[i, d - i]
    valid = jnp.asarray(valid_np)
    rows, cols = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    gather_out = jnp.asarray((rows + cols) * n + rows)          # T[i, j] <- sheared (i + j, i)

    def shear(x, fill):
        flat = x.reshape(x.shape[0], -1)[:, gather_in]
        return jnp.where(valid, flat, fill)

    def unshear(x):
        return x.reshape(x.shape[0], -1)[:, gather_out]

    def sweep(times, cost, fixed):
        """One Gauss-Seidel sweep from the top-left corner, the cells of every
        anti-diagonal updated together in a `lax.scan` over the diagonals."""
        old = jnp.swapaxes(shear(times, far), 0, 1)             # (diagonals, grids, n)
        ahead = jnp.concatenate([old[1:], jnp.full_like(old[:1], far)])
        cost_d = jnp.swapaxes(shear(cost, 1.0), 0, 1)
        fixed_d = jnp.swapaxes(shear(fixed, False), 0, 1)
        edge = jnp.full((grids, 1), far)

        def diagonal(previous, xs):
            current, upcoming, step, pinned, inside = xs
            up = jnp.concatenate([edge, previous[:, :-1]], 1)
            down = jnp.concatenate([upcoming[:, 1:], edge], 1)
            a, b = jnp.minimum(up, down), jnp.minimum(previous, upcoming)
            fh = step * h
            one_sided = jnp.minimum(a, b) + fh
            both = 0.5 * (a + b + jnp.sqrt(jnp.maximum(2 * fh * fh - (a - b) ** 2, 0.0)))
            guess = jnp.where(jnp.abs(a - b) >= fh, one_sided, both)
            new = jnp.where(pinned, 0.0, jnp.where(inside, jnp.minimum(current, guess), far))
            return new, new

        _, updated = lax.scan(diagonal, jnp.full((grids, n), far),
                              (old, ahead, cost_d, fixed_d, valid[:, None, :]))
        return unshear(jnp.swapaxes(updated, 0, 1)).reshape(grids, n, n)

    def one_round(times, cost, fixed):
        for flip_rows, flip_cols in ((False, False), (True, False), (True, True), (False, True)):
            axes = tuple(a for a, f in ((1, flip_rows), (2, flip_cols)) if f)

            def turn(x, axes=axes):
                return jnp.flip(x, axes) if axes else x

            times = turn(sweep(turn(times), turn(cost), turn(fixed)))
        return times

    def run(log_slowness, seeds):
        cost = jnp.exp(log_slowness)
        grid_index = jnp.repeat(jnp.arange(grids), sources)
        fixed = jnp.zeros((grids, n, n), bool).at[
            grid_index, seeds[..., 0].reshape(-1), seeds[..., 1].reshape(-1)].set(True)
        start = jnp.where(fixed, 0.0, far)

        def unsettled(state):
            _, change, rounds = state
            return (change > tolerance) & (rounds < cap)

        def body(state):
            times, _, rounds = state
            new = one_round(times, cost, fixed)
            reached = new < far / 2
            change = jnp.max(jnp.where(reached, jnp.abs(new - jnp.where(times < far / 2, times,
                                                                          0.0)), 0.0))
            return new, change, rounds + 1

        times, change, rounds = lax.while_loop(unsettled, body,
                                               (start, jnp.float32(jnp.inf), jnp.int32(0)))
        padded = jnp.pad(times, ((0, 0), (1, 1), (1, 1)), constant_values=far)
        centre = padded[:, 1:-1, 1:-1]
        gy = jnp.maximum(jnp.maximum(centre - padded[:, :-2, 1:-1],
                                     centre - padded[:, 2:, 1:-1]), 0.0) / h
        gx = jnp.maximum(jnp.maximum(centre - padded[:, 1:-1, :-2],
                                     centre - padded[:, 1:-1, 2:]), 0.0) / h
        residual = jnp.where(fixed, 0.0, jnp.abs(jnp.sqrt(gx * gx + gy * gy) - cost) / cost)
        return times, rounds, change, jnp.mean(residual, (1, 2)), jnp.max(times, (1, 2))

    rng = np.random.RandomState(14)
    k = np.fft.fftfreq(n) * n
    smooth = np.exp(-(k[:, None] ** 2 + k[None, :] ** 2) / (2 * 4.0 ** 2))
    field = np.real(np.fft.ifft2(np.fft.fft2(rng.standard_normal((grids, n, n))) * smooth))
    field = 0.4 * field / field.std((1, 2), keepdims=True)
    for g in range(grids):
        for _ in range(3):                                   # walls with a gap
            at, gap = rng.randint(n // 6, 5 * n // 6), rng.randint(n // 8, 7 * n // 8)
            wall = np.zeros((n, n), bool)
            wall[at:at + 4] = True
            wall[at:at + 4, gap - n // 16:gap + n // 16] = False
            field[g][wall.T if rng.uniform() < 0.5 else wall] = np.log(25.0)
    seeds = rng.randint(0, n, (grids, sources, 2)).astype(np.int32)
    return jax.jit(run).lower(jnp.asarray(field, jnp.float32), jnp.asarray(seeds))


def mlwe_ntt_encryption(messages: int = 1024, n: int = 256, rank: int = 3, q: int = 7681,
                        eta: int = 4, key_bits: int = 11, u_bits: int = 11,
                        v_bits: int = 3) -> Any:
    """Public-key encryption over module lattices in the manner of the first-round Kyber
    parameters (q = 7681, polynomials of degree 256, module rank 3, centred binomial noise
    of eta 4, the public key and u compressed to 11 bits and v to 3), no gradient, in
    int32 arithmetic: a key pair is made in the step from a given public matrix (already
    in the transform domain), then 1024 random 256-bit messages are encrypted and
    decrypted. Products in Z_q[x]/(x^256 + 1) go through a negacyclic number-theoretic
    transform: a twist by the powers of a primitive 512th root of unity, a bit-reversal
    gather and eight radix-2 butterfly stages on reshaped views with their twiddles, the
    inverse likewise. Noise comes from `jax.random.bits` by the difference of two
    `population_count`s, compression and decompression are integer shifts and divisions.
    The ciphertexts, the decrypted messages and the count of wrong bits per message come
    back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    # a primitive 2n-th root of unity psi modulo q; omega = psi^2 is an n-th root
    def power(base: int, e: int) -> int:
        return pow(int(base), int(e), q)

    for g in range(2, q):
        if all(power(g, (q - 1) // f) != 1 for f in (2, 3, 5)):   # q - 1 = 2^9 * 3 * 5
            break
    psi = power(g, (q - 1) // (2 * n))
    omega, inv_n = psi * psi % q, power(n, q - 2)
    levels = n.bit_length() - 1
    reverse = np.array([int(format(k, f"0{levels}b")[::-1], 2) for k in range(n)])
    twist = jnp.asarray([power(psi, k) for k in range(n)], jnp.int32)
    untwist = jnp.asarray([power(psi, 2 * n - k) * inv_n % q for k in range(n)], jnp.int32)

    def twiddles(root: int) -> list[Any]:
        out = []
        for s in range(levels):
            half = 1 << s
            out.append(jnp.asarray([power(root, (n // (2 * half)) * k) for k in range(half)],
                                   jnp.int32))
        return out

    forward_t, inverse_t = twiddles(omega), twiddles(power(omega, q - 2))

    def cyclic(x, table):
        """Radix-2 decimation-in-time NTT of length n along the last axis."""
        x = x[..., reverse]
        for s, tw in enumerate(table):
            half = 1 << s
            blocks = x.reshape(x.shape[:-1] + (n // (2 * half), 2, half))
            even, odd = blocks[..., 0, :], blocks[..., 1, :] * tw % q
            x = jnp.stack([(even + odd) % q, (even - odd) % q], -2).reshape(x.shape)
        return x

    def ntt(x):                                  # negacyclic: twist by powers of psi first
        return cyclic(x * twist % q, forward_t)

    def intt(x):
        return cyclic(x, inverse_t) * untwist % q

    def products(a, b):                          # sum over the module rank of pointwise products
        return jnp.sum(a * b % q, -2) % q

    def binomial(key, shape):
        bits = jax.random.bits(key, shape, jnp.uint32)
        low = jax.lax.population_count(bits & ((1 << eta) - 1))
        high = jax.lax.population_count((bits >> eta) & ((1 << eta) - 1))
        return (low.astype(jnp.int32) - high.astype(jnp.int32)) % q

    def compress(x, bits):
        return ((x << bits) + q // 2) // q & ((1 << bits) - 1)

    def decompress(y, bits):
        return (y * q + (1 << (bits - 1))) >> bits

    def run(matrix, plain, key):
        k_secret, k_error, k_r, k_e1, k_e2 = jax.random.split(key, 5)
        secret = ntt(binomial(k_secret, (rank, n)))
        public = intt(products(matrix, secret[None]) + ntt(binomial(k_error, (rank, n))))
        public = ntt(decompress(compress(public % q, key_bits), key_bits))
        r = ntt(binomial(k_r, (messages, rank, n)))
        u = intt(products(jnp.swapaxes(matrix, 0, 1)[None], r[:, None]))   # A^T r
        u = (u + binomial(k_e1, (messages, rank, n))) % q
        v = intt(products(public[None], r))
        v = (v + binomial(k_e2, (messages, n)) + decompress(plain.astype(jnp.int32), 1)) % q
        u_wire, v_wire = compress(u, u_bits), compress(v, v_bits)
        noisy = (decompress(v_wire, v_bits) - intt(products(secret[None],
                                                               ntt(decompress(u_wire, u_bits)))))
        recovered = compress(noisy % q, 1)
        wrong = jnp.sum(recovered != plain.astype(jnp.int32), -1)
        return u_wire.astype(jnp.uint16), v_wire.astype(jnp.uint8), recovered.astype(jnp.uint8), \
            wrong, jnp.sum(wrong)

    rng = np.random.RandomState(15)
    matrix = rng.randint(0, q, (rank, rank, n)).astype(np.int32)
    plain = rng.randint(0, 2, (messages, n)).astype(np.uint8)
    return jax.jit(run).lower(jnp.asarray(matrix), jnp.asarray(plain), jax.random.PRNGKey(15))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "hornet_classifier/8x96px-32-64-128-orders2-4": hornet_classifier,
    "mla_mtp_lm/4x4x128-d128-l3+1-bf16": mla_mtp_lm,
    "ddsp_synth/8x8000-samples-48-harmonics": ddsp_synth,
    "ttt_linear_lm/4x256-d128-l2-chunk16": ttt_linear_lm,
    "dpo_pairs/8x2x64-d128-l3-bf16": dpo_pairs,
    "vqe_xxz/8x12-qubits-8-layers": vqe_xxz,
    "rigl_sparse_cnn/16x32px-erk10pct-bf16": rigl_sparse_cnn,
    "equilibrium_propagation/128x784-512-256-10": equilibrium_propagation,
    "crf_rnn_segmentation/8x64px-6-classes-5-iterations": crf_rnn_segmentation,
    "sliced_score_dp/256x16-d256-l3-2-probes": sliced_score_dp,
    "music_doa/128x16-sensors-256-snapshots-1801-angles": music_doa,
    "baum_welch_hmm/96x400-10-states-24-symbols-8-rounds": baum_welch_hmm,
    "icp_registration/6x384-to-768-points-20-iterations": icp_registration,
    "eikonal_fast_sweeping/4x192x192-3-sources": eikonal_fast_sweeping,
    "mlwe_ntt_encryption/1024-messages-k3-n256-q7681": mlwe_ntt_encryption,
}
