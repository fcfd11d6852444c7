"""The eighteenth never-seen set: programs written on 2026-11-28, after the seventeenth set
(benchmarks/never_seen_17/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-18` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
seventeen never-seen sets has; as in the sets before it, a few training steps are large (a
few gigaflops each) and the rest mid-sized, one of them upsamples by transposed
convolutions and one differentiates convolutions inside a loop body. Ten are training
steps (forward, loss, backward and an optimizer update). A SegFormer in bfloat16 segments
96x96 scenes of textured shapes: overlapping strided patch embeddings give four token
grids, each stage's efficient self-attention takes its keys and values from the grid
shrunk by a strided convolution, a Mix-FFN puts a depthwise 3x3 convolution inside the
feed-forward layer in place of position encodings, and an all-MLP decoder fuses the four
stages, repeated up to one resolution, for a per-pixel cross-entropy. Monodepth learns
depth from single left images with stereo pairs as its only supervision: strided
convolutions down and 4x4 transposed convolutions of stride 2 back up predict left and
right disparities at two scales, and each view is rebuilt from the other by warping along
its rows (linear interpolation by gathers) under an SSIM and L1 appearance loss,
edge-aware smoothness and left-right consistency. A Temporal Fusion Transformer forecasts
twelve days of store sales at three quantiles through gated residual networks, static
covariate encoders, variable selection networks (a softmax over the variables, a GRN per
variable under einsums), an LSTM encoder and decoder in two `lax.scan`s started from the
static contexts, static enrichment and interpretable multi-head attention whose heads
share one value projection, under a pinball loss. TRPO updates a Gaussian policy on vector
observations: ten conjugate-gradient iterations in a `fori_loop` on Fisher-vector products
(forward-over-reverse derivatives of the mean KL divergence) give the natural-gradient
direction, scaled to the trust region and accepted by a backtracking line search in a
`while_loop` (at most ten halvings), and the value network takes five momentum steps in a
`fori_loop`. A latent SDE fits noisy readings of a stochastic Van der Pol oscillator: a
GRU in a reversed `lax.scan` encodes a context for every time, and a `lax.scan` over the
observation intervals takes Euler-Maruyama steps of a posterior SDE whose drift sees that
context, accumulating the KL divergence from the prior SDE's path measure. DimeNet++
regresses the energies of small molecules by directional message passing: messages on
directed atom pairs are updated from the messages of every triplet, gathered and weighted
by a basis of the distance and of the angle at the middle atom (Bessel functions times
Chebyshev polynomials of the angle's cosine), and summed per message by `segment_sum`. A
recurrent "deep thinking" network traces the paths through 9x9-cell mazes by one
convolutional block applied six times in a `lax.scan`, recalling the input at every step,
with a progressive loss that thinks on from a detached intermediate state in a second
`lax.scan`. An NF-ResNet classifies glyphs without any normalization layer: scaled weight
standardization inside every convolution, variance-preserving ReLU gains, and residual
branches fed the stream divided by its analytically tracked standard deviation and added
back scaled by alpha and a skip gain started at zero. The forward-forward algorithm in
bfloat16 trains three ReLU layers on glyphs whose label is written into the image, each
layer by its own logistic loss on the goodness of positive and negative data with no
gradient crossing layers, and classifies a probe batch by trying all ten labels. A
Universal Transformer with adaptive computation time in bfloat16 learns running digit sums
modulo ten, one shared causal transformer layer applied in a `lax.scan` of six steps while
per-position halting probabilities decide how each position's output mixes the states it
went through, with a ponder cost. Five are inference or scientific steps without a
gradient: a linear bounding volume hierarchy over 131 072 clustered points (30-bit Morton
codes by bit interleaving in uint32, a stable `argsort`, Karras's parallel radix tree with
every node's direction, key range and split found from `clz` of XORed sorted codes by
searches in `fori_loop`s over all nodes at once, parents by scatters, depths by pointer
doubling, node boxes from their common prefixes and a surface-area cost); Taubin fairing
of a noisy torus mesh of 12 800 vertices along the cotangent Laplacian, 16 iterations in a
`fori_loop` of per-triangle gathers and per-vertex `segment_sum` scatter-adds, then vertex
normals and mean and Gaussian curvatures (angle defects by `atan2`); Boruvka's minimum
spanning forest of a jittered 192x192 grid graph in a `while_loop` that stops once no edge
joins two components (capped at 32 rounds), each round a `segment_min` of edge ranks per
component, a scatter into the forest and pointer jumping in a `fori_loop`, then a
single-linkage clustering cut at the 15 heaviest forest edges by `top_k`; a camera's raw
pipeline for two 896x1280 frames of 12-bit Bayer data in uint16, a memory-bound chain with
no convolution and no matrix product (black levels, lens shading, hot-pixel clamping,
grey-world white balance, Malvar-He-Cutler demosaicing as weighted sums of shifted slices,
colour correction, exposure, a filmic curve, the sRGB curve, 8-bit rounding and a focus
measure); and expectation-maximization of a sixteen-component Gaussian mixture with
diagonal covariances on 8192 points in a `while_loop` that stops once the log-likelihood
gains less than a relative 1e-5 (capped at 150 iterations), both steps by matrix products
and a log-sum-exp. The updates are new to these sets, two of them as variants of earlier
ones: FAdam (the gradient preconditioned by Adam's bias-corrected second moment and
clipped to unit RMS per tensor before it enters the momentum, the weight decay
preconditioned and clipped alike), orthogonal gradients before AdamW (each tensor's
gradient stripped of its component along the tensor and rescaled to its own norm),
stochastic weight averaging over momentum SGD (cyclical rates after a burn-in, the weights
folded into a running average at the end of every cycle under `lax.cond`), TRPO's
trust-region natural-gradient step, Adam tracked by two power-function averages of the
weights (EDM2), a diagonal natural gradient whose empirical Fisher comes from per-example
gradients (`vmap` of `grad`), 1-bit Adam (the second moment frozen after a warm-up, the
momentum compressed to signs and a mean magnitude per tensor with error feedback),
quasi-hyperbolic momentum (the SGD form of QHAdam), extragradient SGD (the gradient at a
look-ahead point moving the current weights) and Sophia-G (Hessian diagonals by the
Gauss-Newton-Bartlett estimator, a second backward pass on labels sampled from the model,
rather than by Hutchinson's; clipped steps); three training steps (SegFormer, the
forward-forward network and the Universal Transformer) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")


def _params(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
            scale: float = 1.0) -> dict[str, Any]:
    """Weights for the named shapes, drawn on the host by numpy from one fixed seed in
    the order given. A name ending in `_b` starts at zero (a bias or shift) and one ending
    in `_g` at one (a gain); every other tensor is normal with standard deviation
    scale / sqrt(fan-in), the fan-in being the product of all axes but the last."""
    import jax.numpy as jnp
    import numpy as np

    dtype = dtype or jnp.float32
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for name, shape in shapes.items():
        if name.endswith("_b"):
            out[name] = jnp.zeros(shape, dtype)
        elif name.endswith("_g"):
            out[name] = jnp.ones(shape, dtype)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else shape[0]
            draw = rng.standard_normal(shape, dtype=np.float32) * (scale / math.sqrt(fan_in))
            out[name] = jnp.asarray(draw, dtype)
    return out


def _update_rule(name: str) -> tuple[Callable[[Any], Any], Callable[..., tuple[Any, Any]]]:
    """The named optimizer as (init, update): init(params) -> state and
    update(params, grads, state, loss) -> (params, state). The state is float32 whatever
    the parameters' dtype, and every parameter keeps its own dtype."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    f32 = jnp.float32
    tm = jax.tree.map

    def zeros(tree: Any) -> Any:
        return tm(lambda p: jnp.zeros(p.shape, f32), tree)

    def wide(tree: Any) -> Any:
        return tm(lambda a: a.astype(f32), tree)

    def recast(params: Any, values: Any) -> Any:
        return tm(lambda p, v: v.astype(p.dtype), params, values)

    def count() -> Any:
        return jnp.zeros((), jnp.int32)

    if name == "fadam":
        # FAdam (Hwang): Adam read as natural gradient under a diagonal empirical Fisher.
        # The bias-corrected second moment preconditions the raw gradient first, the
        # result is clipped to an RMS of one per tensor and only then averaged into the
        # momentum; the weight decay is preconditioned and clipped the same way
        rate, b1, b2, eps, clip, decay = 1e-3, 0.9, 0.999, 1e-8, 1.0, 0.1

        def clipped(a):
            return a / jnp.maximum(1.0, jnp.sqrt(jnp.mean(a * a)) / clip)

        def fadam(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            g = wide(grads)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            fisher = tm(lambda v_: jnp.sqrt(v_ / (1.0 - b2 ** t.astype(f32))) + eps, v)
            m = tm(lambda m_, g_, f: b1 * m_ + (1.0 - b1) * clipped(g_ / f), m, g, fisher)
            moved = tm(lambda p, m_, f: p.astype(f32)
                       - rate * (m_ + decay * clipped(p.astype(f32) / f)), params, m, fisher)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), fadam

    if name == "orthograd_adamw":
        # orthogonal gradients (Prieto, Barsbey, Mediano and Birdal) in front of AdamW: the
        # component of each tensor's gradient along the tensor itself is removed, and what
        # remains is rescaled to the norm of the raw gradient, so no step only rescales
        # the weights; bias-corrected AdamW on the result
        rate, b1, b2, decay = 5e-4, 0.9, 0.999, 1e-2

        def orthogonal(w, g):
            w, g = w.astype(f32), g.astype(f32)
            perp = g - jnp.sum(w * g) / (jnp.sum(w * w) + 1e-30) * w
            return perp * jnp.sqrt(jnp.sum(g * g) / (jnp.sum(perp * perp) + 1e-30))

        def orthograd(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            g = tm(orthogonal, params, grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - rate * decay)
                       - rate * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), orthograd

    if name == "swa":
        # stochastic weight averaging (Izmailov, Podoprikhin, Garipov, Vetrov and Wilson)
        # over momentum SGD with L2 decay: a constant rate for a 400-step burn-in, then
        # cycles of 40 steps in which the rate falls linearly from 0.05 to 0.005, the
        # weights at the end of every cycle folded into a running average under `lax.cond`
        high, low, cycle, burn_in, momentum, decay = 0.05, 0.005, 40, 400, 0.9, 5e-4

        def swa_init(params):
            return zeros(params), zeros(params), jnp.zeros((), f32), count()

        def swa(params, grads, state, loss):
            buf, average, folded, t = state
            phase = (t % cycle).astype(f32) / (cycle - 1)
            rate = jnp.where(t < burn_in, high, (1.0 - phase) * high + phase * low)
            buf = tm(lambda b, g, p: momentum * b + g.astype(f32) + decay * p.astype(f32),
                     buf, grads, params)
            moved = tm(lambda p, b: p.astype(f32) - rate * b, params, buf)

            def fold(carry):
                average, folded = carry
                return (tm(lambda a, w: a + (w - a) / (folded + 1.0), average, moved),
                        folded + 1.0)

            boundary = (t >= burn_in) & (t % cycle == cycle - 1)
            average, folded = lax.cond(boundary, fold, lambda carry: carry, (average, folded))
            return recast(params, moved), (buf, average, folded, t + 1)
        return swa_init, swa

    if name == "power_ema_adam":
        # Adam whose iterates are also tracked by the two power-function averages of EDM2
        # (Karras et al.), beta_t = (1 - 1/t)^(gamma + 1) for gamma 16.97 and 6.94
        # (relative widths 0.05 and 0.10), from which any other width can be rebuilt after
        # training; the averages are part of the optimizer state
        rate, b1, b2, gammas = 1e-3, 0.9, 0.999, (16.97, 6.94)

        def power_init(params):
            return zeros(params), zeros(params), tuple(zeros(params) for _ in gammas), count()

        def power_ema(params, grads, state, loss):
            m, v, averages, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32)
                       - rate * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8),
                       params, m, v)
            kept = []
            for gamma, average in zip(gammas, averages):
                beta = (1.0 - 1.0 / n) ** (gamma + 1.0)
                kept.append(tm(lambda a, w, beta=beta: beta * a + (1.0 - beta) * w, average,
                               moved))
            return recast(params, moved), (m, v, tuple(kept), t)
        return power_init, power_ema

    if name == "one_bit_adam":
        # 1-bit Adam (Tang et al.): plain Adam for a 200-step warm-up, after which the
        # second moment is frozen and the momentum travels compressed: every tensor's
        # momentum plus its error-feedback buffer becomes its sign times its mean
        # magnitude, the part the compression lost is kept for the next step, and the
        # compressed momentum is what the weights move by and what is carried on
        rate, b1, b2, warm = 1e-3, 0.9, 0.999, 200

        def one_bit_init(params):
            return zeros(params), zeros(params), zeros(params), count()

        def one_bit(params, grads, state, loss):
            m, v, e, t = state
            t = t + 1
            warming = t <= warm
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: jnp.where(warming, b2 * v_ + (1.0 - b2) * g_ * g_, v_), v, g)
            total = tm(jnp.add, m, e)
            packed = tm(lambda x: jnp.sign(x) * jnp.mean(jnp.abs(x)), total)
            e = tm(lambda e_, x, c: jnp.where(warming, e_, x - c), e, total, packed)
            m = tm(lambda m_, c: jnp.where(warming, m_, c), m, packed)
            seen = jnp.minimum(t, warm).astype(f32)
            moved = tm(lambda p, m_, v_: p.astype(f32) - rate * (m_ / (1.0 - b1 ** t.astype(f32)))
                       / (jnp.sqrt(v_ / (1.0 - b2 ** seen)) + 1e-8), params, m, v)
            return recast(params, moved), (m, v, e, t)
        return one_bit_init, one_bit

    if name == "qhm":
        # quasi-hyperbolic momentum (Ma and Yarats): the step is a mix of the raw gradient
        # (weight 0.3) and a slowly averaged momentum buffer (beta 0.999, weight 0.7),
        # with decoupled weight decay
        rate, beta, nu, decay = 0.1, 0.999, 0.7, 5e-5

        def qhm(params, grads, state, loss):
            buf, t = state
            g = wide(grads)
            buf = tm(lambda b, g_: beta * b + (1.0 - beta) * g_, buf, g)
            moved = tm(lambda p, g_, b: p.astype(f32) * (1.0 - rate * decay)
                       - rate * ((1.0 - nu) * g_ + nu * b), params, g, buf)
            return recast(params, moved), (buf, t + 1)
        return (lambda p: (zeros(p), count())), qhm

    raise ValueError(name)


def _train(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    """One training step (loss, gradients, the named update) lowered for `batch`, the
    optimizer state entering by its shapes alone (`eval_shape` of its init)."""
    import jax

    init, update = _update_rule(rule)

    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state, loss)
        return params, state, loss

    return jax.jit(step).lower(params, jax.eval_shape(init, params), *batch)


def _layer_norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """Normalization over `axes` with float32 statistics, returned in x's dtype: layer
    norm by default, batch norm over all but the channels."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = x32.mean(axes, keepdims=True)
    var = jnp.square(x32 - mean).mean(axes, keepdims=True)
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
            + shift.astype(jnp.float32)).astype(x.dtype)


def _batch_norm(x: Any, gain: Any, shift: Any) -> Any:
    """Batch normalization by the batch's own statistics over every axis but the last."""
    return _layer_norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean softmax cross-entropy of integer labels, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], -1))


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", groups: int = 1) -> Any:
    """A 2-D NHWC convolution."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), padding, dimension_numbers=_NHWC,
                                    feature_group_count=groups)


def _smooth_images(rng: Any, count: int, side: int, channels: int, width: float) -> Any:
    """`count` images of low-pass filtered noise (a Gaussian of `width` cycles per image in
    frequency), each at unit standard deviation; numpy float32, NHWC."""
    import numpy as np

    k = np.fft.fftfreq(side) * side
    lowpass = np.exp(-(k[:, None] ** 2 + k[None, :] ** 2) / (2 * width ** 2))
    noise = rng.standard_normal((count, channels, side, side))
    out = np.real(np.fft.ifft2(np.fft.fft2(noise) * lowpass)).transpose(0, 2, 3, 1)
    out /= out.std((1, 2, 3), keepdims=True) + 1e-6
    return out.astype(np.float32)


def _glyphs(rng: Any, classes: int, side: int, strokes: int = 3) -> Any:
    """numpy: one greyscale glyph per class, `strokes` thick random line segments."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    out = np.zeros((classes, side, side), np.float32)
    for k in range(classes):
        for _ in range(strokes):
            (y0, x0), (y1, x1) = rng.uniform(0.2 * side, 0.8 * side, (2, 2))
            dy, dx = y1 - y0, x1 - x0
            t = np.clip(((yy - y0) * dy + (xx - x0) * dx) / (dy * dy + dx * dx + 1e-9), 0, 1)
            distance = np.hypot(yy - (y0 + t * dy), xx - (x0 + t * dx))
            out[k] = np.maximum(out[k], np.clip(2.0 - distance, 0.0, 1.0))
    return out


def _shape_scenes(rng: Any, count: int, side: int, classes: int, objects: int) -> Any:
    """numpy: `count` RGB scenes of textured shapes on a smooth background and their
    per-pixel labels (0 the background, 1 to classes - 1 one shape each: square, disc,
    ring, triangle and cross, repeated if there are more classes), shapes later in a
    scene covering earlier ones."""
    import numpy as np

    images = 0.3 * _smooth_images(rng, count, side, 3, 4.0)
    labels = np.zeros((count, side, side), np.int64)
    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    for i in range(count):
        for _ in range(rng.integers(objects // 2, objects + 1)):
            kind = int(rng.integers(1, classes))
            size = rng.uniform(0.08, 0.2) * side
            cy, cx = rng.uniform(size, side - size, 2)
            dy, dx = (yy - cy) / size, (xx - cx) / size
            shape = (kind - 1) % 5
            if shape == 0:
                inside = (np.abs(dy) <= 1) & (np.abs(dx) <= 1)
            elif shape == 1:
                inside = dy ** 2 + dx ** 2 <= 1
            elif shape == 2:
                inside = (dy ** 2 + dx ** 2 <= 1) & (dy ** 2 + dx ** 2 >= 0.45)
            elif shape == 3:
                inside = (dy <= 1) & (dy >= 2 * np.abs(dx) - 1)
            else:
                inside = ((np.abs(dy) <= 1) & (np.abs(dx) <= 0.3)) | ((np.abs(dx) <= 1)
                                                                    & (np.abs(dy) <= 0.3))
            stripes = np.sin((kind + 1) * 1.3 * (yy + xx) / size * np.pi)[..., None]
            colour = rng.uniform(-1.0, 1.0, 3)
            images[i][inside] = (colour + 0.3 * stripes)[inside]
            labels[i][inside] = kind
    images += 0.05 * rng.standard_normal(images.shape).astype(np.float32)
    return images, labels


def segformer_segmentation(batch: int = 8, side: int = 96, classes: int = 6,
                           widths: tuple[int, ...] = (32, 64, 128, 160),
                           heads: tuple[int, ...] = (1, 2, 4, 5),
                           ratios: tuple[int, ...] = (8, 4, 2, 1), depth: int = 2,
                           decoder: int = 64) -> Any:
    """Semantic segmentation by a SegFormer (Xie et al.) in bfloat16: four stages of
    overlapping patch embeddings (a 7x7 convolution of stride 4, then 3x3 convolutions
    of stride 2, each followed by layer norm) turn a 96x96 scene into token grids of
    24x24 to 3x3 with 32 to 160 channels; every stage has two blocks of efficient
    self-attention, whose keys and values come from the grid shrunk to 3x3 by a strided
    convolution of the stage's reduction ratio (8, 4 and 2; none in the last stage) and
    layer norm, and of a Mix-FFN (a 4x linear expansion, a depthwise 3x3 convolution,
    GELU, a projection) standing in for position encodings. The all-MLP decoder maps
    every stage to 64 channels, repeats them up to 24x24, concatenates and fuses them by
    a linear layer with batch norm and ReLU, and the class logits are repeated up to the
    full resolution for a per-pixel cross-entropy over six classes (background and five
    textured shapes). FAdam."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    stages = len(widths)
    shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for s, c in enumerate(widths):
        k = 7 if s == 0 else 3
        shapes.update({f"s{s}_embed": (k, k, cin, c), f"s{s}_embed_b": (c,),
                       f"s{s}_en_g": (c,), f"s{s}_en_b": (c,)})
        for d in range(depth):
            b = f"s{s}b{d}"
            shapes.update({f"{b}_n1_g": (c,), f"{b}_n1_b": (c,), f"{b}_q": (c, c),
                           f"{b}_kv": (c, 2 * c), f"{b}_o": (c, c), f"{b}_o_b": (c,),
                           f"{b}_n2_g": (c,), f"{b}_n2_b": (c,), f"{b}_fc1": (c, 4 * c),
                           f"{b}_fc1_b": (4 * c,), f"{b}_dw": (3, 3, 1, 4 * c),
                           f"{b}_dw_b": (4 * c,), f"{b}_fc2": (4 * c, c), f"{b}_fc2_b": (c,)})
            if ratios[s] > 1:
                r = ratios[s]
                shapes.update({f"{b}_sr": (r, r, c, c), f"{b}_sr_b": (c,),
                               f"{b}_srn_g": (c,), f"{b}_srn_b": (c,)})
        shapes.update({f"s{s}_n_g": (c,), f"s{s}_n_b": (c,), f"dec{s}": (c, decoder),
                       f"dec{s}_b": (decoder,)})
        cin = c
    shapes.update({"fuse": (stages * decoder, decoder), "fuse_bn_g": (decoder,),
                   "fuse_bn_b": (decoder,), "cls": (decoder, classes), "cls_b": (classes,)})
    p = _params(shapes, seed=1, dtype=bf16)

    def attention(p, b, x, h, w, n_heads, r):
        n, c = x.shape[1], x.shape[2]
        dh = c // n_heads
        q = (x @ p[f"{b}_q"]).reshape(-1, n, n_heads, dh)
        y = x
        if r > 1:
            y = _conv(x.reshape(-1, h, w, c), p[f"{b}_sr"], r, "VALID") + p[f"{b}_sr_b"]
            y = _layer_norm(y.reshape(x.shape[0], -1, c), p[f"{b}_srn_g"], p[f"{b}_srn_b"])
        k, v = jnp.split(y @ p[f"{b}_kv"], 2, -1)
        k = k.reshape(x.shape[0], -1, n_heads, dh)
        v = v.reshape(x.shape[0], -1, n_heads, dh)
        logits = jnp.einsum("bnhd,bmhd->bhnm", q, k).astype(f32) / math.sqrt(dh)
        weights = jax.nn.softmax(logits, -1).astype(bf16)
        out = jnp.einsum("bhnm,bmhd->bnhd", weights, v).reshape(x.shape)
        return out @ p[f"{b}_o"] + p[f"{b}_o_b"]

    def mix_ffn(p, b, x, h, w):
        c4 = p[f"{b}_fc1"].shape[1]
        y = (x @ p[f"{b}_fc1"] + p[f"{b}_fc1_b"]).reshape(-1, h, w, c4)
        y = _conv(y, p[f"{b}_dw"], groups=c4) + p[f"{b}_dw_b"]
        return jax.nn.gelu(y).reshape(x.shape[0], -1, c4) @ p[f"{b}_fc2"] + p[f"{b}_fc2_b"]

    def loss_fn(p, images, labels):
        x = images
        features = []
        for s in range(stages):
            stride = 4 if s == 0 else 2
            x = _conv(x, p[f"s{s}_embed"], stride) + p[f"s{s}_embed_b"]
            bsz, h, w, c = x.shape
            x = _layer_norm(x.reshape(bsz, h * w, c), p[f"s{s}_en_g"], p[f"s{s}_en_b"])
            for d in range(depth):
                b = f"s{s}b{d}"
                x = x + attention(p, b, _layer_norm(x, p[f"{b}_n1_g"], p[f"{b}_n1_b"]), h, w,
                                  heads[s], ratios[s])
                x = x + mix_ffn(p, b, _layer_norm(x, p[f"{b}_n2_g"], p[f"{b}_n2_b"]), h, w)
            x = _layer_norm(x, p[f"s{s}_n_g"], p[f"s{s}_n_b"]).reshape(bsz, h, w, c)
            features.append(x)
        top = features[0].shape[1]
        merged = []
        for s, f in enumerate(features):
            y = f @ p[f"dec{s}"] + p[f"dec{s}_b"]
            factor = top // f.shape[1]
            merged.append(jnp.repeat(jnp.repeat(y, factor, 1), factor, 2))
        y = jnp.concatenate(merged[::-1], -1) @ p["fuse"]
        y = jax.nn.relu(_batch_norm(y, p["fuse_bn_g"], p["fuse_bn_b"]))
        logits = y @ p["cls"] + p["cls_b"]
        factor = images.shape[1] // top
        logits = jnp.repeat(jnp.repeat(logits, factor, 1), factor, 2)
        return _cross_entropy(logits, labels)

    rng = np.random.default_rng(1)
    images, labels = _shape_scenes(rng, batch, side, classes, 8)
    return _train("fadam", loss_fn, p, jnp.asarray(images, bf16),
                  jnp.asarray(labels, jnp.int32))


def monodepth_stereo(batch: int = 4, height: int = 64, width: int = 128,
                     widths: tuple[int, ...] = (32, 64, 96, 128), max_disparity: float = 0.15,
                     alpha: float = 0.85, smooth: float = 0.1, consistency: float = 1.0) -> Any:
    """Self-supervised depth from one image trained on rectified stereo pairs (Monodepth,
    Godard, Mac Aodha and Brostow): an encoder of strided 3x3 convolutions (32 to 128
    channels, ELU) and a decoder of 4x4 transposed convolutions of stride 2 with skip
    connections predict, from the left image of a 64x128 pair alone, a left and a right
    disparity map (a sigmoid times 15% of the width) at full and at half resolution. The
    right image warped by the left disparity must rebuild the left image and the left
    warped by the right disparity the right one (linear interpolation along each row by
    two gathers); each scale is scored by a weighted 3x3 SSIM (average pooling by
    `reduce_window`) and L1 appearance loss, an edge-aware smoothness term on the
    mean-normalized disparities and a left-right consistency term. The scenes are a
    textured receding ground plane with boxes in front of it, the right view rendered
    from the left one's disparity map. Orthogonal gradients before AdamW."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    levels = len(widths)
    shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for i, c in enumerate(widths):
        shapes.update({f"enc{i}a": (3, 3, cin, c), f"enc{i}a_b": (c,), f"enc{i}b": (3, 3, c, c),
                       f"enc{i}b_b": (c,)})
        cin = c
    for i in reversed(range(levels)):
        c = widths[i - 1] if i else 16
        skip = widths[i - 1] if i else 3
        extra = 2 if i < 2 else 0
        shapes.update({f"up{i}": (4, 4, cin, c), f"up{i}_b": (c,),
                       f"dec{i}": (3, 3, c + skip + extra, c), f"dec{i}_b": (c,)})
        if i < 2:
            shapes.update({f"disp{i}": (3, 3, c, 2), f"disp{i}_b": (2,)})
        cin = c
    p = _params(shapes, seed=2)

    def sample(image, disparity, sign):
        # image (b, h, w, c) read at x + sign * disparity (pixels) along every row
        w = image.shape[2]
        x = jnp.clip(jnp.arange(w, dtype=f32) + sign * disparity, 0.0, w - 1.0)
        low = jnp.floor(x)
        frac = (x - low)[..., None]
        i0 = low.astype(jnp.int32)
        i1 = jnp.minimum(i0 + 1, w - 1)
        full = image.shape[:3] + (image.shape[3],)
        a = jnp.take_along_axis(image, jnp.broadcast_to(i0[..., None], full), 2)
        b = jnp.take_along_axis(image, jnp.broadcast_to(i1[..., None], full), 2)
        return a * (1.0 - frac) + b * frac

    def pool3(x):
        return lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0

    def ssim(x, y):
        mx, my = pool3(x), pool3(y)
        sx = pool3(x * x) - mx * mx
        sy = pool3(y * y) - my * my
        sxy = pool3(x * y) - mx * my
        c1, c2 = 0.01 ** 2, 0.03 ** 2
        value = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sx + sy + c2))
        return jnp.clip((1.0 - value) / 2.0, 0.0, 1.0)

    def appearance(x, y):
        return jnp.mean(alpha * ssim(x, y) + (1.0 - alpha) * jnp.abs(x - y))

    def smoothness(d, image):
        d = d / (jnp.mean(d, (1, 2), keepdims=True) + 1e-7)
        dx, dy = jnp.abs(d[:, :, 1:] - d[:, :, :-1]), jnp.abs(d[:, 1:] - d[:, :-1])
        ix = jnp.mean(jnp.abs(image[:, :, 1:] - image[:, :, :-1]), -1)
        iy = jnp.mean(jnp.abs(image[:, 1:] - image[:, :-1]), -1)
        return jnp.mean(dx * jnp.exp(-ix)) + jnp.mean(dy * jnp.exp(-iy))

    def half(image):
        b, h, w, c = image.shape
        return image.reshape(b, h // 2, 2, w // 2, 2, c).mean((2, 4))

    def loss_fn(p, left, right):
        x = left
        skips = [left]
        for i in range(levels):
            x = jax.nn.elu(_conv(x, p[f"enc{i}a"], 2) + p[f"enc{i}a_b"])
            x = jax.nn.elu(_conv(x, p[f"enc{i}b"]) + p[f"enc{i}b_b"])
            skips.append(x)
        outputs = {}
        coarse = None
        for i in reversed(range(levels)):
            x = jax.nn.elu(lax.conv_transpose(x, p[f"up{i}"], (2, 2), "SAME",
                                              dimension_numbers=_NHWC) + p[f"up{i}_b"])
            parts = [x, skips[i]]
            if i < 2:
                parts.append(jnp.repeat(jnp.repeat(coarse, 2, 1), 2, 2) if coarse is not None
                             else jnp.zeros(x.shape[:3] + (2,), x.dtype))
            x = jax.nn.elu(_conv(jnp.concatenate(parts, -1), p[f"dec{i}"]) + p[f"dec{i}_b"])
            if i < 2:
                coarse = max_disparity * jax.nn.sigmoid(_conv(x, p[f"disp{i}"]) + p[f"disp{i}_b"])
                outputs[i] = coarse
        total = 0.0
        for i, disp in outputs.items():
            l_img, r_img = (left, right) if i == 0 else (half(left), half(right))
            w = l_img.shape[2]
            dl, dr = disp[..., 0] * w, disp[..., 1] * w
            left_est = sample(r_img, dl, -1.0)
            right_est = sample(l_img, dr, 1.0)
            dr_at_left = sample(dr[..., None], dl, -1.0)[..., 0]
            dl_at_right = sample(dl[..., None], dr, 1.0)[..., 0]
            total = total + (appearance(left_est, l_img) + appearance(right_est, r_img)
                             + smooth * (smoothness(dl, l_img) + smoothness(dr, r_img)) / 2 ** i
                             + consistency * (jnp.mean(jnp.abs(dl - dr_at_left))
                                              + jnp.mean(jnp.abs(dr - dl_at_right))) / w)
        return total

    rng = np.random.default_rng(2)
    pad = int(max_disparity * width) + 2
    texture = _smooth_images(rng, batch, width + 2 * pad, 3, 24.0)[:, :height + 2 * pad]
    texture = 0.5 + 0.15 * texture + 0.05 * _smooth_images(rng, batch, width + 2 * pad, 3,
                                                           4.0)[:, :height + 2 * pad]
    yy, xx = np.mgrid[0:height, 0:width]
    lefts = np.zeros((batch, height, width, 3), np.float32)
    rights = np.zeros((batch, height, width, 3), np.float32)
    for i in range(batch):
        tilt = rng.uniform(0.02, 0.06) * (1.0 + yy / height)       # a receding ground plane
        disparity = tilt * width * 0.5
        for _ in range(3):
            y0, x0 = rng.integers(0, height // 2), rng.integers(0, width - 24)
            h, w = rng.integers(12, height // 2), rng.integers(12, 40)
            box = (yy >= y0) & (yy < y0 + h) & (xx >= x0) & (xx < x0 + w)
            disparity = np.where(box, rng.uniform(0.08, max_disparity * 0.9) * width, disparity)
        # a surface point seen at column x on the left is seen at x - d on the right
        source = texture[i, pad:pad + height]
        cols = np.arange(width + 2 * pad)
        for y in range(height):
            for c in range(3):
                lefts[i, y, :, c] = np.interp(xx[y] + pad, cols, source[y, :, c])
                rights[i, y, :, c] = np.interp(xx[y] + pad + disparity[y], cols, source[y, :, c])
    return _train("orthograd_adamw", loss_fn, p, jnp.asarray(lefts), jnp.asarray(rights))


def temporal_fusion_transformer(batch: int = 64, past: int = 48, future: int = 12,
                                width: int = 40, heads: int = 4, stores: int = 50,
                                quantiles: tuple[float, ...] = (0.1, 0.5, 0.9)) -> Any:
    """Multi-horizon quantile forecasting of store sales by a Temporal Fusion Transformer
    (Lim, Arik, Loeff and Pfister): gated residual networks (ELU, a GLU gate, layer
    norm, an optional context) throughout; static covariate encoders turn a store's
    embedded identity and type and its size into four contexts; variable selection
    networks weight the embedded past inputs (sales, price, promotion, weekday, time)
    and known future inputs (price, promotion, weekday, time) by a softmax over
    variables from a GRN of all of them and pass each through its own GRN (stacked
    weights under einsums); an LSTM encoder over the 48 past steps and an LSTM decoder
    over the 12 future ones, two `lax.scan`s started from the static contexts, feed a
    gated skip connection, static enrichment, interpretable multi-head attention
    (per-head queries and keys, one value projection shared by the heads, the heads
    averaged) under a causal mask, a position-wise GRN and a last gated skip. Pinball
    loss at the 10th, 50th and 90th percentiles of the next twelve days; stochastic
    weight averaging over momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    d = width
    dh = d // heads
    total = past + future
    past_vars, future_vars = 5, 4
    shapes: dict[str, tuple[int, ...]] = {"store_emb": (stores, d), "type_emb": (4, d),
                                          "size_w": (1, d), "size_w_b": (d,),
                                          "real_w": (4, d), "real_w_b": (4, d),
                                          "weekday_emb": (7, d)}

    def grn(name, n_in, n_out, context=False):
        out = {f"{name}_w2": (n_in, d), f"{name}_w2_b": (d,), f"{name}_w1": (d, d),
               f"{name}_w1_b": (d,), f"{name}_gate": (d, 2 * n_out), f"{name}_gate_b": (2 * n_out,),
               f"{name}_n_g": (n_out,), f"{name}_n_b": (n_out,)}
        if context:
            out[f"{name}_w3"] = (d, d)
        if n_in != n_out:
            out[f"{name}_skip"] = (n_in, n_out)
        return out

    def stacked_grn(name, n):
        return {f"{name}_w2": (n, d, d), f"{name}_w2_b": (n, d), f"{name}_w1": (n, d, d),
                f"{name}_w1_b": (n, d), f"{name}_gate": (n, d, 2 * d), f"{name}_gate_b": (n, 2 * d),
                f"{name}_n_g": (n, d), f"{name}_n_b": (n, d)}

    shapes.update(grn("static_vsn", 3 * d, 3))
    shapes.update(stacked_grn("static_var", 3))
    for k in ("ctx_select", "ctx_enrich", "ctx_h", "ctx_c"):
        shapes.update(grn(k, d, d))
    shapes.update(grn("past_vsn", past_vars * d, past_vars, context=True))
    shapes.update(stacked_grn("past_var", past_vars))
    shapes.update(grn("future_vsn", future_vars * d, future_vars, context=True))
    shapes.update(stacked_grn("future_var", future_vars))
    shapes.update({"enc": (2 * d, 4 * d), "enc_b": (4 * d,), "dec": (2 * d, 4 * d),
                   "dec_b": (4 * d,), "lstm_gate": (d, 2 * d), "lstm_gate_b": (2 * d,),
                   "lstm_n_g": (d,), "lstm_n_b": (d,)})
    shapes.update(grn("enrich", d, d, context=True))
    shapes.update({"att_q": (d, heads * dh), "att_k": (d, heads * dh), "att_v": (d, dh),
                   "att_o": (dh, d), "att_gate": (d, 2 * d), "att_gate_b": (2 * d,),
                   "att_n_g": (d,), "att_n_b": (d,)})
    shapes.update(grn("position", d, d))
    shapes.update({"out_gate": (d, 2 * d), "out_gate_b": (2 * d,), "out_n_g": (d,),
                   "out_n_b": (d,), "head": (d, len(quantiles)), "head_b": (len(quantiles),)})
    p = _params(shapes, seed=3)

    def glu(p, name, x):
        a, b = jnp.split(x @ p[f"{name}_gate"] + p[f"{name}_gate_b"], 2, -1)
        return jax.nn.sigmoid(a) * b

    def apply_grn(p, name, a, context=None):
        h = a @ p[f"{name}_w2"] + p[f"{name}_w2_b"]
        if context is not None:
            h = h + (context @ p[f"{name}_w3"]).reshape(
                context.shape[:1] + (1,) * (a.ndim - 2) + (d,))
        h = jax.nn.elu(h) @ p[f"{name}_w1"] + p[f"{name}_w1_b"]
        skip = a @ p[f"{name}_skip"] if f"{name}_skip" in p else a
        return _layer_norm(skip + glu(p, name, h), p[f"{name}_n_g"], p[f"{name}_n_b"])

    def apply_stacked(p, name, xi):
        h = jnp.einsum("...jd,jde->...je", xi, p[f"{name}_w2"]) + p[f"{name}_w2_b"]
        h = jnp.einsum("...jd,jde->...je", jax.nn.elu(h), p[f"{name}_w1"]) + p[f"{name}_w1_b"]
        a, b = jnp.split(jnp.einsum("...jd,jde->...je", h, p[f"{name}_gate"])
                         + p[f"{name}_gate_b"], 2, -1)
        return _layer_norm(xi + jax.nn.sigmoid(a) * b, p[f"{name}_n_g"], p[f"{name}_n_b"])

    def select(p, name, xi, context=None):
        flat = xi.reshape(xi.shape[:-2] + (-1,))
        weights = jax.nn.softmax(apply_grn(p, f"{name}_vsn", flat, context), -1)
        return jnp.sum(weights[..., None] * apply_stacked(p, f"{name}_var", xi), -2), weights

    def lstm(w, b, h, c, x):
        i, f, g, o = jnp.split(jnp.concatenate([x, h], -1) @ w + b, 4, -1)
        c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        return jax.nn.sigmoid(o) * jnp.tanh(c), c

    def forecast(p, store, kind, size, reals, weekday):
        static = jnp.stack([p["store_emb"][store], p["type_emb"][kind],
                            size @ p["size_w"] + p["size_w_b"]], 1)
        static, _ = select(p, "static", static)
        c_select, c_enrich = apply_grn(p, "ctx_select", static), apply_grn(p, "ctx_enrich", static)
        h0, c0 = apply_grn(p, "ctx_h", static), apply_grn(p, "ctx_c", static)
        # reals: sales, price, promotion, time (the sales of the future steps are unknown)
        embedded = reals[..., None] * p["real_w"] + p["real_w_b"]
        day = p["weekday_emb"][weekday]
        past_in = jnp.concatenate([embedded[:, :past], day[:, :past, None]], 2)
        future_in = jnp.concatenate([embedded[:, past:, 1:], day[:, past:, None]], 2)
        past_x, _ = select(p, "past", past_in, c_select)
        future_x, _ = select(p, "future", future_in, c_select)

        def run(name):
            def cell(carry, x):
                h, c = lstm(p[name], p[f"{name}_b"], *carry, x)
                return (h, c), h
            return cell

        state, enc = lax.scan(run("enc"), (h0, c0), jnp.swapaxes(past_x, 0, 1))
        _, dec = lax.scan(run("dec"), state, jnp.swapaxes(future_x, 0, 1))
        inputs = jnp.concatenate([past_x, future_x], 1)
        temporal = jnp.swapaxes(jnp.concatenate([enc, dec], 0), 0, 1)
        temporal = _layer_norm(inputs + glu(p, "lstm", temporal), p["lstm_n_g"], p["lstm_n_b"])
        enriched = apply_grn(p, "enrich", temporal, c_enrich)
        b = enriched.shape[0]
        q = (enriched @ p["att_q"]).reshape(b, total, heads, dh)
        k = (enriched @ p["att_k"]).reshape(b, total, heads, dh)
        v = enriched @ p["att_v"]
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(dh)
        causal = jnp.tril(jnp.ones((total, total), bool))
        weights = jax.nn.softmax(jnp.where(causal, logits, -1e9), -1)
        attended = jnp.einsum("bhqk,bkd->bqd", weights, v) / heads @ p["att_o"]
        x = _layer_norm(enriched + glu(p, "att", attended), p["att_n_g"], p["att_n_b"])
        x = apply_grn(p, "position", x)
        x = _layer_norm(temporal + glu(p, "out", x), p["out_n_g"], p["out_n_b"])
        return x[:, past:] @ p["head"] + p["head_b"]

    def loss_fn(p, store, kind, size, reals, weekday, target):
        guess = forecast(p, store, kind, size, reals, weekday)
        errors = target[..., None] - guess
        levels = jnp.asarray(quantiles)
        return jnp.mean(jnp.maximum(levels * errors, (levels - 1.0) * errors))

    rng = np.random.default_rng(3)
    store = rng.integers(0, stores, batch)
    kind = store % 4
    size = rng.lognormal(0.0, 0.4, (batch, 1))
    start = rng.integers(0, 365, batch)
    t = start[:, None] + np.arange(total)[None, :]
    weekday = t % 7
    promotion = (rng.uniform(size=(batch, total)) < 0.15).astype(np.float64)
    price = 1.0 + 0.1 * rng.standard_normal((batch, 1)) - 0.2 * promotion
    level = np.exp(0.5 * rng.standard_normal((batch, 1))) * size
    weekly = 1.0 + 0.3 * np.sin(2 * np.pi * weekday / 7 + kind[:, None])
    sales = level * weekly * np.exp(-1.5 * (price - 1.0)) * (1.0 + 0.8 * promotion)
    sales *= np.exp(0.1 * rng.standard_normal(sales.shape))
    scale = sales[:, :past].mean(1, keepdims=True)
    sales = sales / scale
    reals = np.stack([np.where(np.arange(total) < past, sales, 0.0), price, promotion,
                      (t % 365) / 365.0 - 0.5], -1)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("swa", loss_fn, p, i32(store), i32(kind), f32(size), f32(reals), i32(weekday),
                  f32(sales[:, past:]))


def trpo_locomotion(batch: int = 2048, observations: int = 17, actions: int = 6,
                    hidden: int = 64, max_kl: float = 0.01, damping: float = 0.1,
                    cg_iterations: int = 10, backtracks: int = 10) -> Any:
    """Trust region policy optimization (Schulman et al.) for a Gaussian policy on
    locomotion-like vector observations (17 inputs, 6 actions, tanh MLPs of 64 units, a
    state-independent log standard deviation), one update from a batch of 2048
    transitions with advantages and returns. The policy gradient of the importance-
    weighted surrogate is turned into a natural-gradient direction by ten conjugate-
    gradient iterations in a `fori_loop` on the flattened parameters, each Fisher-vector
    product a forward-over-reverse derivative (`jvp` of the `grad`) of the mean KL
    divergence from the old policy plus damping; the step is scaled to the KL radius
    0.01 and accepted by a backtracking line search in a `while_loop` that halves it until
    the KL stays inside 1.5 times the radius and the surrogate improves by at least a
    tenth of its linear prediction (at most ten tries, else the old policy is kept).
    The value network is then fitted to the returns by five steps of momentum gradient
    descent in a `fori_loop`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    policy = _params({"p1": (observations, hidden), "p1_b": (hidden,), "p2": (hidden, hidden),
                      "p2_b": (hidden,), "p3": (hidden, actions), "p3_b": (actions,),
                      "log_std_b": (actions,)}, seed=4)
    policy["p3"] = policy["p3"] * 0.01
    value = _params({"v1": (observations, hidden), "v1_b": (hidden,), "v2": (hidden, hidden),
                     "v2_b": (hidden,), "v3": (hidden, 1), "v3_b": (1,)}, seed=40)
    log_two_pi = math.log(2.0 * math.pi)

    def mean_of(p, obs):
        h = jnp.tanh(obs @ p["p1"] + p["p1_b"])
        h = jnp.tanh(h @ p["p2"] + p["p2_b"])
        return h @ p["p3"] + p["p3_b"]

    def log_prob(mean, log_std, act):
        z = (act - mean) * jnp.exp(-log_std)
        return -0.5 * jnp.sum(z * z + 2.0 * log_std + log_two_pi, -1)

    def value_of(v, obs):
        h = jnp.tanh(obs @ v["v1"] + v["v1_b"])
        h = jnp.tanh(h @ v["v2"] + v["v2_b"])
        return (h @ v["v3"] + v["v3_b"])[:, 0]

    def step(policy, value, velocity, obs, act, advantage, returns):
        flat, unravel = ravel_pytree(policy)
        old_mean = lax.stop_gradient(mean_of(policy, obs))
        old_log_std = lax.stop_gradient(policy["log_std_b"])
        old_logp = log_prob(old_mean, old_log_std, act)
        adv = (advantage - advantage.mean()) / (advantage.std() + 1e-8)

        def surrogate(x):
            p = unravel(x)
            return jnp.mean(jnp.exp(log_prob(mean_of(p, obs), p["log_std_b"], act) - old_logp)
                            * adv)

        def kl(x):
            p = unravel(x)
            mean, log_std = mean_of(p, obs), p["log_std_b"]
            var_old, var = jnp.exp(2.0 * old_log_std), jnp.exp(2.0 * log_std)
            return jnp.mean(jnp.sum(log_std - old_log_std
                                    + (var_old + jnp.square(old_mean - mean)) / (2.0 * var)
                                    - 0.5, -1))

        def fisher(v):
            return jax.jvp(jax.grad(kl), (flat,), (v,))[1] + damping * v

        base, g = jax.value_and_grad(surrogate)(flat)

        def cg(_, carry):
            x, r, d, rr = carry
            fd = fisher(d)
            alpha = rr / (jnp.dot(d, fd) + 1e-12)
            x, r = x + alpha * d, r - alpha * fd
            new = jnp.dot(r, r)
            return x, r, r + new / (rr + 1e-12) * d, new

        direction, *_ = lax.fori_loop(0, cg_iterations, cg,
                                      (jnp.zeros_like(g), g, g, jnp.dot(g, g)))
        curvature = 0.5 * jnp.dot(direction, fisher(direction))
        full = direction * jnp.sqrt(max_kl / (curvature + 1e-12))
        expected = jnp.dot(g, full)

        def trying(carry):
            tries, _, accepted = carry
            return (~accepted) & (tries < backtracks)

        def backtrack(carry):
            tries, _, _ = carry
            fraction = 0.5 ** tries.astype(jnp.float32)
            candidate = flat + fraction * full
            gain = surrogate(candidate) - base
            ok = (kl(candidate) <= 1.5 * max_kl) & (gain > 0.1 * fraction * expected)
            return tries + 1, jnp.where(ok, candidate, flat), ok

        tries, new_flat, accepted = lax.while_loop(
            trying, backtrack, (jnp.int32(0), flat, jnp.bool_(False)))

        def fit(_, carry):
            v, vel = carry
            loss, grads = jax.value_and_grad(
                lambda v_: jnp.mean(jnp.square(value_of(v_, obs) - returns)))(v)
            vel = jax.tree.map(lambda m, g_: 0.9 * m + g_, vel, grads)
            return jax.tree.map(lambda w, m: w - 1e-2 * m, v, vel), vel

        value, velocity = lax.fori_loop(0, 5, fit, (value, velocity))
        return (unravel(new_flat), value, velocity, base, kl(new_flat), tries, accepted,
                jnp.mean(jnp.square(value_of(value, obs) - returns)))

    rng = np.random.default_rng(4)
    obs = rng.standard_normal((batch, observations)) * rng.uniform(0.5, 2.0, observations)
    act = np.tanh(obs @ rng.standard_normal((observations, actions)) * 0.3)
    act = act + 0.6 * rng.standard_normal((batch, actions))
    rewards = -np.square(act - 0.3 * np.tanh(obs[:, :actions])).sum(1)
    returns = np.zeros(batch)
    running = 0.0
    for i in reversed(range(batch)):
        running = rewards[i] + (0.0 if i % 256 == 255 else 0.99 * running)
        returns[i] = running
    advantage = returns - returns.mean() + 0.1 * rng.standard_normal(batch)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    velocity = jax.tree.map(jnp.zeros_like, value)
    return jax.jit(step).lower(policy, value, velocity, f32(obs), f32(act), f32(advantage),
                               f32(returns))


def latent_sde(batch: int = 128, steps: int = 40, substeps: int = 2, features: int = 3,
               latent: int = 4, context: int = 16, hidden: int = 64, dt: float = 0.05,
               noise: float = 0.1) -> Any:
    """A latent stochastic differential equation (Li, Wong, Chen and Duvenaud) fitted to
    noisy three-channel readings of a stochastic Van der Pol oscillator, 40 observations
    per series: a GRU runs backwards over the readings (a reversed `lax.scan`) to give a
    context for every time and an initial Gaussian posterior over four latents; the
    posterior SDE's drift is an MLP of the state and the current context, the prior's
    an MLP of the state alone, and the diagonal diffusion a separate small network per
    latent (stacked weights under einsums), shared by both. A `lax.scan` over the
    observation intervals takes two Euler-Maruyama steps each, accumulating the KL
    divergence between the path measures as the integral of half the squared drift
    difference over the diffusion. Loss: the Gaussian likelihood of the readings
    decoded from the latent path, the KL of the initial state and the path KL; Adam
    with two power-function averages of the weights (EDM2)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    p = _params({"gru_x": (features, 3 * hidden), "gru_h": (hidden, 3 * hidden),
                 "gru_b": (3 * hidden,), "ctx": (hidden, context), "ctx_b": (context,),
                 "z0": (context, 2 * latent), "z0_b": (2 * latent,),
                 "post1": (latent + context, hidden), "post1_b": (hidden,),
                 "post2": (hidden, hidden), "post2_b": (hidden,),
                 "post3": (hidden, latent), "post3_b": (latent,),
                 "prior1": (latent, hidden), "prior1_b": (hidden,),
                 "prior2": (hidden, hidden), "prior2_b": (hidden,),
                 "prior3": (hidden, latent), "prior3_b": (latent,),
                 "diff1": (latent, 1, 16), "diff1_b": (latent, 16),
                 "diff2": (latent, 16, 1), "diff2_b": (latent, 1),
                 "dec1": (latent, hidden), "dec1_b": (hidden,),
                 "dec2": (hidden, features), "dec2_b": (features,)}, seed=5)
    h = dt / substeps

    def mlp(p, k, x):
        y = jax.nn.softplus(x @ p[f"{k}1"] + p[f"{k}1_b"])
        y = jax.nn.softplus(y @ p[f"{k}2"] + p[f"{k}2_b"])
        return y @ p[f"{k}3"] + p[f"{k}3_b"]

    def diffusion(p, z):
        y = jax.nn.softplus(z[..., None] * p["diff1"][:, 0] + p["diff1_b"])
        y = jnp.einsum("blh,lho->blo", y, p["diff2"])[..., 0] + p["diff2_b"][:, 0]
        return 0.05 + jax.nn.sigmoid(y)

    def decode(p, z):
        return jax.nn.softplus(z @ p["dec1"] + p["dec1_b"]) @ p["dec2"] + p["dec2_b"]

    def loss_fn(p, readings, eps0, eps):
        xs = jnp.swapaxes(readings, 0, 1)

        def gru(hs, x):
            xr, xu, xn = jnp.split(x @ p["gru_x"] + p["gru_b"], 3, -1)
            hr, hu, hn = jnp.split(hs @ p["gru_h"], 3, -1)
            r, u = jax.nn.sigmoid(xr + hr), jax.nn.sigmoid(xu + hu)
            hs = (1.0 - u) * jnp.tanh(xn + r * hn) + u * hs
            return hs, hs @ p["ctx"] + p["ctx_b"]

        _, contexts = lax.scan(gru, jnp.zeros((readings.shape[0], hidden)), xs, reverse=True)
        mean0, raw0 = jnp.split(contexts[0] @ p["z0"] + p["z0_b"], 2, -1)
        std0 = jax.nn.softplus(raw0) + 1e-3
        z = mean0 + std0 * eps0
        kl0 = jnp.sum(0.5 * (std0 ** 2 + mean0 ** 2 - 1.0) - jnp.log(std0), -1)

        def interval(carry, inputs):
            z, path = carry
            ctx, noises = inputs
            for k in range(substeps):
                posterior = mlp(p, "post", jnp.concatenate([z, ctx], -1))
                prior = mlp(p, "prior", z)
                g = diffusion(p, z)
                u = (posterior - prior) / g
                path = path + 0.5 * jnp.sum(u * u, -1) * h
                z = z + posterior * h + g * math.sqrt(h) * noises[:, k]
            return (z, path), z

        start = (z, jnp.zeros(readings.shape[0]))
        (_, path), zs = lax.scan(interval, start, (contexts[1:], jnp.swapaxes(eps, 0, 1)))
        zs = jnp.concatenate([z[None], zs], 0)
        guess = decode(p, zs)
        nll = 0.5 * jnp.sum(jnp.square((guess - xs) / noise), (0, 2))
        return jnp.mean(nll + kl0 + path)

    rng = np.random.default_rng(5)
    fine = 20
    state = rng.standard_normal((batch, 2)) * 1.5
    mu = rng.uniform(0.5, 2.0, batch)
    path = []
    for _ in range(steps):
        path.append(state.copy())
        for _ in range(fine):
            x, v = state[:, 0], state[:, 1]
            drift = np.stack([v, mu * (1.0 - x * x) * v - x], 1)
            state = state + drift * dt / fine + 0.1 * math.sqrt(dt / fine) * np.stack(
                [np.zeros(batch), rng.standard_normal(batch)], 1)
    path = np.stack(path, 1)
    mixing = rng.standard_normal((2, features))
    readings = np.tanh(path @ mixing * 0.5) + noise * rng.standard_normal((batch, steps, features))
    eps0 = rng.standard_normal((batch, latent))
    eps = rng.standard_normal((batch, steps - 1, substeps, latent))
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("power_ema_adam", loss_fn, p, f32(readings), f32(eps0), f32(eps))


def dimenet_molecules(molecules: int = 16, atoms: int = 14, kinds: int = 4, width: int = 64,
                      inner: int = 32, radial: int = 6, angular: int = 5, blocks: int = 3,
                      cutoff: float = 5.0) -> Any:
    """Directional message passing (DimeNet++, Gasteiger, Giri, Margraf and Guennemann)
    regressing the energies of small padded molecules (up to 14 atoms of four kinds, a
    node mask): messages live on the 182 directed atom pairs of each molecule, embedded
    from both atoms' kinds and a Bessel radial basis of the distance under a smooth
    polynomial envelope, and every one of three interaction blocks updates the message
    j->i from the messages k->j of the 2184 triplets by gathers, weighting them by a
    radial-times-angular basis (Bessel functions of the k-j distance times Chebyshev
    polynomials of the cosine of the angle at j, standing in for spherical harmonics),
    down- and up-projecting around the triplet product and summing per message by
    `segment_sum`; output blocks sum radially gated messages onto their target atoms.
    The update is a diagonal natural gradient: per-molecule gradients come from `vmap`
    of `grad`, their mean squares keep an exponential average of the empirical Fisher
    diagonal, and the heavy-ball momentum of the averaged gradient is divided by it plus
    damping, the step clipped to a global norm of one."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    f, t = width, inner
    shapes: dict[str, tuple[int, ...]] = {"kind_emb": (kinds, f), "emb_rbf": (radial, f),
                                          "emb": (3 * f, f), "emb_b": (f,)}
    for b in range(blocks):
        k = f"int{b}"
        shapes.update({f"{k}_ji": (f, f), f"{k}_ji_b": (f,), f"{k}_kj": (f, f),
                       f"{k}_kj_b": (f,), f"{k}_rbf1": (radial, 8), f"{k}_rbf2": (8, f),
                       f"{k}_sbf1": (radial * angular, 8), f"{k}_sbf2": (8, t),
                       f"{k}_down": (f, t), f"{k}_up": (t, f), f"{k}_res1": (f, f),
                       f"{k}_res1_b": (f,), f"{k}_res2": (f, f), f"{k}_res2_b": (f,)})
    for b in range(blocks + 1):
        k = f"out{b}"
        shapes.update({f"{k}_rbf": (radial, f), f"{k}_1": (f, f), f"{k}_1_b": (f,),
                       f"{k}_2": (f, 1)})
    p = _params(shapes, seed=6)

    pairs = [(j, i) for i in range(atoms) for j in range(atoms) if i != j]
    index = {pair: e for e, pair in enumerate(pairs)}
    src = np.asarray([j for j, _ in pairs])
    dst = np.asarray([i for _, i in pairs])
    trip_kj, trip_ji = [], []
    for e, (j, i) in enumerate(pairs):
        for k in range(atoms):
            if k != i and k != j:
                trip_kj.append(index[(k, j)])
                trip_ji.append(e)
    edges = len(pairs)
    frequencies = jnp.arange(1, radial + 1, dtype=jnp.float32) * math.pi

    def swish(x):
        return x * jax.nn.sigmoid(x)

    def bessel(d):
        x = d / cutoff
        envelope = jnp.where(x < 1.0, 1.0 - 28.0 * x ** 6 + 48.0 * x ** 7 - 21.0 * x ** 8, 0.0)
        return envelope[:, None] * jnp.sin(frequencies * x[:, None]) / (d[:, None] + 1e-6)

    def energy(p, pos, kind, mask, src, dst, kj, ji):
        vec = pos[src] - pos[dst]
        d = jnp.sqrt(jnp.sum(vec * vec, -1) + 1e-9)
        live = mask[src] * mask[dst] * (d < cutoff)
        rbf = bessel(d) * live[:, None]
        a, b = -vec[ji], vec[kj]          # j->i and j->k as seen from j
        cos = jnp.sum(a * b, -1) / (jnp.sqrt(jnp.sum(a * a, -1) * jnp.sum(b * b, -1)) + 1e-9)
        terms = [jnp.ones_like(cos), cos]
        for _ in range(2, angular):
            terms.append(2.0 * cos * terms[-1] - terms[-2])
        sbf = (rbf[kj][:, :, None] * jnp.stack(terms, -1)[:, None, :]).reshape(-1, radial * angular)
        h = p["kind_emb"][kind]
        m = swish(jnp.concatenate([h[src], h[dst], rbf @ p["emb_rbf"]], -1) @ p["emb"] + p["emb_b"])

        def readout(b, m):
            k = f"out{b}"
            per_atom = jax.ops.segment_sum((rbf @ p[f"{k}_rbf"]) * m, dst, atoms)
            return jnp.sum((swish(per_atom @ p[f"{k}_1"] + p[f"{k}_1_b"]) @ p[f"{k}_2"])[:, 0]
                           * mask)

        total = readout(0, m)
        for b in range(blocks):
            k = f"int{b}"
            x_ji = swish(m @ p[f"{k}_ji"] + p[f"{k}_ji_b"])
            x_kj = (swish(m @ p[f"{k}_kj"] + p[f"{k}_kj_b"])
                    * (rbf @ p[f"{k}_rbf1"] @ p[f"{k}_rbf2"]))
            x_kj = swish(x_kj @ p[f"{k}_down"])
            triplet = x_kj[kj] * (sbf @ p[f"{k}_sbf1"] @ p[f"{k}_sbf2"])
            gathered = swish(jax.ops.segment_sum(triplet, ji, edges) @ p[f"{k}_up"])
            y = x_ji + gathered
            y = y + swish(swish(y @ p[f"{k}_res1"] + p[f"{k}_res1_b"]) @ p[f"{k}_res2"]
                          + p[f"{k}_res2_b"])
            m = m + y
            total = total + readout(b + 1, m)
        return total

    rate, beta, damping = 1e-3, 0.95, 1e-3
    tm = jax.tree.map

    def step(params, fisher, momentum, pos, kind, mask, target, src, dst, kj, ji):
        def one(p, pos, kind, mask, target):
            return jnp.square(energy(p, pos, kind, mask, src, dst, kj, ji) - target)

        losses, grads = jax.vmap(jax.value_and_grad(one), (None, 0, 0, 0, 0))(
            params, pos, kind, mask, target)
        mean = tm(lambda g: jnp.mean(g, 0), grads)
        fisher = tm(lambda F, g: beta * F + (1.0 - beta) * jnp.mean(g * g, 0), fisher, grads)
        momentum = tm(lambda m, g: 0.9 * m + g, momentum, mean)
        natural = tm(lambda m, F: m / (F + damping), momentum, fisher)
        norm = jnp.sqrt(sum(jnp.sum(n * n) for n in jax.tree.leaves(natural)))
        shrink = rate * jnp.minimum(1.0, 1.0 / (rate * norm + 1e-12))
        params = tm(lambda w, n: w - shrink * n, params, natural)
        return params, fisher, momentum, jnp.mean(losses)

    rng = np.random.default_rng(6)
    pos = np.zeros((molecules, atoms, 3))
    kind = np.zeros((molecules, atoms), np.int64)
    mask = np.zeros((molecules, atoms))
    target = np.zeros(molecules)
    for g in range(molecules):
        n = rng.integers(atoms // 2, atoms + 1)
        kind[g, :n] = rng.integers(0, kinds, n)
        for a in range(1, n):
            step_dir = rng.standard_normal(3)
            pos[g, a] = pos[g, rng.integers(max(0, a - 3), a)] + 1.5 * step_dir / np.linalg.norm(
                step_dir)
        pos[g, :n] += 0.05 * rng.standard_normal((n, 3))
        mask[g, :n] = 1.0
        r = np.linalg.norm(pos[g, :n, None] - pos[g, None, :n], axis=-1) + np.eye(n)
        depth = 0.2 + 0.1 * (kind[g, :n, None] + kind[g, None, :n])
        morse = depth * (np.square(1.0 - np.exp(-1.2 * (r - 1.5))) - 1.0)
        target[g] = np.sum(np.triu(morse * (r < cutoff), 1))
    target = (target - target.mean()) / target.std()
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    i32 = lambda a: jnp.asarray(np.asarray(a), jnp.int32)
    zeros = tm(jnp.zeros_like, p)
    return jax.jit(step).lower(p, zeros, zeros, f32(pos), i32(kind), f32(mask), f32(target),
                               i32(src), i32(dst), i32(trip_kj), i32(trip_ji))


def deep_thinking_maze(batch: int = 6, cells: int = 9, width: int = 16, iterations: int = 6,
                       head_start: int = 2, extra: int = 4, alpha: float = 0.5) -> Any:
    """A recurrent "deep thinking" network (Schwarzschild et al.; Bansal et al.) that
    learns to trace the path through 19x19 pixel mazes of 9x9 cells (perfect mazes from a
    randomized depth-first search, a green start and a red goal, the target the
    pixels of the unique path): a 3x3 projection to 16 channels, then one block of
    shared weights applied six times in a `lax.scan` (a recall convolution over the
    state concatenated with the input, a residual pair of 3x3 convolutions), and a
    three-layer convolutional head on the last state, under a per-pixel cross-entropy.
    The progressive loss of Bansal et al. adds a second run: the state after two
    iterations, detached, is thought on for four more iterations in another `lax.scan`,
    so the block learns to improve any partial solution; the two losses are mixed half
    and half. 1-bit Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    side = 2 * cells + 1
    w = width
    p = _params({"proj": (3, 3, 3, w), "recall": (3, 3, w + 3, w), "res1": (3, 3, w, w),
                 "res2": (3, 3, w, w), "head1": (3, 3, w, 32), "head2": (3, 3, 32, 8),
                 "head3": (3, 3, 8, 2)}, seed=7, scale=math.sqrt(2.0))

    def think(p, x, h):
        h = jax.nn.relu(_conv(jnp.concatenate([h, x], -1), p["recall"]))
        return jax.nn.relu(h + _conv(jax.nn.relu(_conv(h, p["res1"])), p["res2"]))

    def head(p, h):
        y = jax.nn.relu(_conv(h, p["head1"]))
        return _conv(jax.nn.relu(_conv(y, p["head2"])), p["head3"])

    def loss_fn(p, mazes, paths):
        def body(h, _):
            h = think(p, mazes, h)
            return h, h

        start = jax.nn.relu(_conv(mazes, p["proj"]))
        last, states = lax.scan(body, start, None, length=iterations)
        full = _cross_entropy(head(p, last), paths)
        partial = lax.stop_gradient(states[head_start - 1])
        again, _ = lax.scan(body, partial, None, length=extra)
        return (1.0 - alpha) * full + alpha * _cross_entropy(head(p, again), paths)

    rng = np.random.default_rng(7)
    mazes = np.zeros((batch, side, side, 3), np.float32)
    paths = np.zeros((batch, side, side), np.int64)
    moves = ((0, 1), (1, 0), (0, -1), (-1, 0))
    for i in range(batch):
        open_ = np.zeros((side, side), bool)
        seen = np.zeros((cells, cells), bool)
        stack = [(int(rng.integers(cells)), int(rng.integers(cells)))]
        seen[stack[0]] = True
        open_[2 * stack[0][0] + 1, 2 * stack[0][1] + 1] = True
        while stack:
            y, x = stack[-1]
            options = [(y + dy, x + dx) for dy, dx in moves
                       if 0 <= y + dy < cells and 0 <= x + dx < cells and not seen[y + dy, x + dx]]
            if not options:
                stack.pop()
                continue
            ny, nx = options[rng.integers(len(options))]
            seen[ny, nx] = True
            open_[2 * ny + 1, 2 * nx + 1] = True
            open_[y + ny + 1, x + nx + 1] = True
            stack.append((ny, nx))
        a, b = rng.choice(cells * cells, 2, replace=False)
        start = (2 * (a // cells) + 1, 2 * (a % cells) + 1)
        goal = (2 * (b // cells) + 1, 2 * (b % cells) + 1)
        parent = {start: start}
        queue = [start]
        for node in queue:
            for dy, dx in moves:
                nxt = (node[0] + dy, node[1] + dx)
                if 0 <= nxt[0] < side and 0 <= nxt[1] < side and open_[nxt] and nxt not in parent:
                    parent[nxt] = node
                    queue.append(nxt)
        node = goal
        while node != start:
            paths[i][node] = 1
            node = parent[node]
        paths[i][start] = 1
        mazes[i] = open_[..., None].astype(np.float32)
        mazes[i][start] = (0.0, 1.0, 0.0)
        mazes[i][goal] = (1.0, 0.0, 0.0)
    return _train("one_bit_adam", loss_fn, p, jnp.asarray(mazes), jnp.asarray(paths, jnp.int32))


def nfnet_classifier(batch: int = 24, side: int = 32, widths: tuple[int, ...] = (16, 32, 64),
                     depth: int = 2, classes: int = 10, alpha: float = 0.2,
                     smoothing: float = 0.1) -> Any:
    """A normalizer-free residual network (NF-ResNet, Brock, De and Smith) classifying
    32x32 glyphs drawn over coloured textures, ten classes: no batch norm anywhere;
    every convolution standardizes its own weights (Scaled Weight Standardization: each
    output channel's kernel centred and divided by its standard deviation times the
    square root of its fan-in, times a learned gain), ReLU outputs are scaled by the
    constant that restores unit variance, and each residual branch sees its input
    divided by the analytically tracked standard deviation of the stream (beta) and is
    added back scaled by alpha 0.2 and a learned skip gain that starts at zero. Three
    stages of 16, 32 and 64 channels with two blocks each, the first block of a later
    stage striding and taking its shortcut through average pooling and a standardized
    1x1 convolution; mean pooling and a linear head, label-smoothed cross-entropy.
    Quasi-hyperbolic momentum."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    gamma = math.sqrt(2.0 / (1.0 - 1.0 / math.pi))
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],)}
    cin = widths[0]
    for s, c in enumerate(widths):
        for d in range(depth):
            k = f"s{s}b{d}"
            shapes.update({f"{k}_c1": (3, 3, cin, c), f"{k}_c1_g": (c,), f"{k}_c2": (3, 3, c, c),
                           f"{k}_c2_g": (c,), f"{k}_skip_gain_b": (1,)})
            if cin != c:
                shapes.update({f"{k}_short": (1, 1, cin, c), f"{k}_short_g": (c,)})
            cin = c
    shapes.update({"head": (cin, classes), "head_b": (classes,)})
    p = _params(shapes, seed=8)

    def standardized(w, gain):
        fan_in = math.prod(w.shape[:-1])
        mean = jnp.mean(w, (0, 1, 2), keepdims=True)
        var = jnp.var(w, (0, 1, 2), keepdims=True)
        return gain * (w - mean) * lax.rsqrt(var * fan_in + 1e-4)

    def conv(p, k, x, stride=1):
        return _conv(x, standardized(p[k], p[f"{k}_g"]), stride)

    def loss_fn(p, images, labels):
        x = conv(p, "stem", images)
        var = 1.0
        for s in range(len(widths)):
            for d in range(depth):
                k = f"s{s}b{d}"
                beta = math.sqrt(var)
                out = gamma * jax.nn.relu(x / beta)
                stride = 2 if s and d == 0 else 1
                if f"{k}_short" in p:
                    pooled = out
                    if stride == 2:
                        pooled = lax.reduce_window(out, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1),
                                                   "VALID") / 4.0
                    shortcut = conv(p, f"{k}_short", pooled)
                    var = 1.0
                else:
                    shortcut = x
                h = conv(p, f"{k}_c1", out, stride)
                h = conv(p, f"{k}_c2", gamma * jax.nn.relu(h))
                x = shortcut + alpha * p[f"{k}_skip_gain_b"] * h
                var = var + alpha ** 2
        logits = jnp.mean(gamma * jax.nn.relu(x), (1, 2)) @ p["head"] + p["head_b"]
        logp = jax.nn.log_softmax(logits, -1)
        soft = jax.nn.one_hot(labels, classes) * (1.0 - smoothing) + smoothing / classes
        return -jnp.mean(jnp.sum(soft * logp, -1))

    rng = np.random.default_rng(8)
    glyphs = _glyphs(rng, classes, side, strokes=3)
    labels = rng.integers(0, classes, batch)
    textures = 0.5 * _smooth_images(rng, batch, side, 3, 5.0)
    ink = rng.uniform(-1.0, 1.0, (batch, 1, 1, 3))
    shifted = np.stack([np.roll(glyphs[c], tuple(rng.integers(-3, 4, 2)), (0, 1)) for c in labels])
    images = textures * (1.0 - shifted[..., None]) + ink * shifted[..., None]
    return _train("qhm", loss_fn, p, jnp.asarray(images, jnp.float32),
                  jnp.asarray(labels, jnp.int32))


def forward_forward(batch: int = 128, side: int = 28, classes: int = 10,
                    widths: tuple[int, ...] = (400, 400, 400), threshold: float = 2.0,
                    evaluated: int = 32, rate: float = 0.03) -> Any:
    """Hinton's forward-forward algorithm in bfloat16 on 28x28 glyphs of ten classes:
    the label is written into the first ten pixels of the flattened image as a one-hot
    code, positive data carry the true label and negative data a wrong one, and each of
    three ReLU layers of 400 units is trained by its own logistic loss to give a
    goodness (the mean square of its activities) above a threshold of 2 for positive
    and below it for negative data; every layer sees the length-normalized, detached
    activities of the one below, so no gradient crosses layers. The step is
    extragradient SGD (Korpelevich): the gradient at the current weights takes a look-
    ahead step, and the gradient at the look-ahead point moves the current weights.
    The step also classifies 32 images by trying all ten labels and summing the
    goodness of the upper two layers."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    pixels = side * side
    sizes = (pixels,) + tuple(widths)
    shapes: dict[str, tuple[int, ...]] = {}
    for l in range(len(widths)):
        shapes.update({f"w{l}": (sizes[l], sizes[l + 1]), f"w{l}_b": (sizes[l + 1],)})
    p = _params(shapes, seed=9, dtype=bf16)

    def labelled(images, labels):
        code = jax.nn.one_hot(labels, classes, dtype=images.dtype) * jnp.max(images)
        return images.at[:, :classes].set(code)

    def layers(p, x):
        out = []
        for l in range(len(widths)):
            x = x.astype(f32)
            x = lax.stop_gradient(x / (jnp.sqrt(jnp.sum(x * x, -1, keepdims=True)) + 1e-4))
            x = jax.nn.relu(x.astype(bf16) @ p[f"w{l}"] + p[f"w{l}_b"])
            out.append(jnp.mean(jnp.square(x.astype(f32)), -1))
        return out

    def loss_fn(p, positive, negative):
        total = 0.0
        for good, bad in zip(layers(p, positive), layers(p, negative)):
            total = total + jnp.mean(jax.nn.softplus(threshold - good)
                                     + jax.nn.softplus(bad - threshold))
        return total

    def step(p, images, labels, wrong, probe, probe_labels):
        positive, negative = labelled(images, labels), labelled(images, wrong)
        loss, g = jax.value_and_grad(loss_fn)(p, positive, negative)
        ahead = jax.tree.map(lambda w, g_: (w.astype(f32) - rate * g_.astype(f32)).astype(w.dtype),
                             p, g)
        g_ahead = jax.grad(loss_fn)(ahead, positive, negative)
        p = jax.tree.map(lambda w, g_: (w.astype(f32) - rate * g_.astype(f32)).astype(w.dtype),
                         p, g_ahead)
        tried = jnp.repeat(probe, classes, 0)
        guesses = jnp.tile(jnp.arange(classes), probe.shape[0])
        goodness = layers(p, labelled(tried, guesses))
        score = (goodness[1] + goodness[2]).reshape(probe.shape[0], classes)
        accuracy = jnp.mean((jnp.argmax(score, -1) == probe_labels).astype(f32))
        return p, loss, accuracy

    rng = np.random.default_rng(9)
    glyphs = _glyphs(rng, classes, side, strokes=3)

    def draw(n):
        labels = rng.integers(0, classes, n)
        images = np.stack([np.roll(glyphs[c], tuple(rng.integers(-2, 3, 2)), (0, 1))
                           for c in labels])
        images = np.clip(images + 0.1 * rng.standard_normal(images.shape), 0.0, 1.0)
        return images.reshape(n, pixels).astype(np.float32), labels

    images, labels = draw(batch)
    wrong = (labels + rng.integers(1, classes, batch)) % classes
    probe, probe_labels = draw(evaluated)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return jax.jit(step).lower(p, jnp.asarray(images, bf16), i32(labels), i32(wrong),
                               jnp.asarray(probe, bf16), i32(probe_labels))


def universal_transformer_act(batch: int = 16, length: int = 48, vocab: int = 10,
                              width: int = 64, heads: int = 4, hidden: int = 192,
                              max_steps: int = 6, threshold: float = 0.99,
                              ponder: float = 0.01) -> Any:
    """A Universal Transformer with adaptive computation time (Dehghani et al.; Graves)
    in bfloat16 learning running sums of digits modulo ten, 48 digits per sequence: one
    pre-norm transformer layer of width 64 (causal self-attention with four heads, a
    GELU MLP of 192) is applied again and again by a `lax.scan` of six steps, with
    sinusoidal position and step signals added before every step. A halting unit gives
    every position a probability per step; a position's state stops changing once its
    accumulated probability would pass 0.99, its last step weighted by the remainder,
    so the output is a halting-weighted mixture of the states it went through. Loss:
    cross-entropy plus 0.01 times the ponder cost (steps plus remainder). Sophia-G:
    momentum divided by a Gauss-Newton-Bartlett estimate of the Hessian diagonal (the
    squared gradient of the loss on labels sampled from the model's own predictions, a
    second backward pass), each coordinate's step clipped to one, with decoupled weight
    decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    p = _params({"embed": (vocab, width), "n1_g": (width,), "n1_b": (width,),
                 "qkv": (width, 3 * width), "o": (width, width), "o_b": (width,),
                 "n2_g": (width,), "n2_b": (width,), "fc1": (width, hidden), "fc1_b": (hidden,),
                 "fc2": (hidden, width), "fc2_b": (width,), "halt": (width, 1), "halt_b": (1,),
                 "final_g": (width,), "final_b": (width,), "out": (width, vocab),
                 "out_b": (vocab,)}, seed=10, dtype=bf16)
    p["halt_b"] = jnp.ones((1,), bf16)

    def signal(n, offset=0):
        position = (np.arange(n) + offset)[:, None] / np.power(10000.0, np.arange(0, width, 2)
                                                               / width)
        table = np.zeros((n, width), np.float32)
        table[:, 0::2], table[:, 1::2] = np.sin(position), np.cos(position)
        return table

    positions = jnp.asarray(signal(length), bf16)
    timing = jnp.asarray(signal(max_steps, 1000), bf16)
    causal = jnp.tril(jnp.ones((length, length), bool))

    def layer(p, x):
        b = x.shape[0]
        y = _layer_norm(x, p["n1_g"], p["n1_b"])
        q, k, v = jnp.split((y @ p["qkv"]).reshape(b, length, 3 * heads, dh), 3, 2)
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(f32) / math.sqrt(dh)
        weights = jax.nn.softmax(jnp.where(causal, logits, -1e9), -1).astype(bf16)
        context = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, length, width)
        x = x + context @ p["o"] + p["o_b"]
        y = _layer_norm(x, p["n2_g"], p["n2_b"])
        return x + jax.nn.gelu(y @ p["fc1"] + p["fc1_b"]) @ p["fc2"] + p["fc2_b"]

    def forward(p, digits):
        x = p["embed"][digits]
        b = digits.shape[0]

        def act(carry, clock):
            x, state, halted, remainder, updates = carry
            x = x + positions + clock
            prob = jax.nn.sigmoid((x @ p["halt"] + p["halt_b"]).astype(f32))[..., 0]
            running = (halted < 1.0).astype(f32)
            crossing = (halted + prob * running > threshold).astype(f32) * running
            running = (halted + prob * running <= threshold).astype(f32) * running
            halted = halted + prob * running
            remainder = remainder + crossing * (1.0 - halted)
            halted = halted + crossing * remainder
            updates = updates + running + crossing
            weight = (prob * running + crossing * remainder)[..., None]
            x = layer(p, x)
            state = (x.astype(f32) * weight + state * (1.0 - weight))
            return (x, state, halted, remainder, updates), None

        zeros = jnp.zeros((b, length), f32)
        start = (x, jnp.zeros((b, length, width), f32), zeros, zeros, zeros)
        (_, state, _, remainder, updates), _ = lax.scan(act, start, timing)
        y = _layer_norm(state.astype(bf16), p["final_g"], p["final_b"])
        return (y @ p["out"] + p["out_b"]).astype(f32), jnp.mean(updates + remainder)

    def loss_fn(p, digits, targets):
        logits, cost = forward(p, digits)
        return _cross_entropy(logits, targets) + ponder * cost, logits

    rate, b1, b2, rho, decay = 3e-4, 0.96, 0.99, 0.04, 0.1
    tm = jax.tree.map

    def step(params, m, h, digits, targets, key):
        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, digits, targets)
        sampled = jax.random.categorical(key, lax.stop_gradient(logits), -1)
        (_, _), resampled = jax.value_and_grad(loss_fn, has_aux=True)(params, digits, sampled)
        scale = float(digits.size)
        h = tm(lambda h_, g: b2 * h_ + (1.0 - b2) * scale * jnp.square(g.astype(f32)), h,
               resampled)
        m = tm(lambda m_, g: b1 * m_ + (1.0 - b1) * g.astype(f32), m, grads)
        params = tm(lambda w, m_, h_: (w.astype(f32) * (1.0 - rate * decay) - rate * jnp.clip(
            m_ / jnp.maximum(rho * h_, 1e-12), -1.0, 1.0)).astype(w.dtype), params, m, h)
        return params, m, h, loss

    rng = np.random.default_rng(10)
    digits = rng.integers(0, vocab, (batch, length))
    targets = np.cumsum(digits, 1) % vocab
    zeros = tm(lambda w: jnp.zeros(w.shape, f32), p)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return jax.jit(step).lower(p, zeros, zeros, i32(digits), i32(targets),
                               jax.random.PRNGKey(10))


def lbvh_morton_build(points: int = 131072, clusters: int = 48, bits: int = 10) -> Any:
    """Building a linear bounding volume hierarchy over a point cloud in parallel
    (Karras): 131072 points of 48 Gaussian clusters and a uniform background are
    quantized to a 1024^3 grid and given 30-bit Morton codes by bit interleaving in
    uint32 (multiplies and masks), sorted by a stable `argsort`; every one of the n - 1
    internal nodes of the binary radix tree then finds its direction from the common
    prefixes with its neighbours (`clz` of XORed codes, the index breaking ties between
    equal codes), the far end of its key range by exponential then binary search, and
    its split by another binary search, each search a `fori_loop` of 18 steps over all
    nodes at once with gathers of the sorted codes. Children and parents follow by
    scatters, every node's depth by pointer doubling in a `fori_loop`, and every
    internal node's box from the grid cell of its common prefix (the prefix's bits
    de-interleaved per axis); the surface-area heuristic cost of the tree (internal
    nodes by their box areas, every leaf by its parent's), its depth histogram
    (`segment_sum`) and its deepest leaf come back with the tree."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = points
    steps = math.ceil(math.log2(n)) + 1
    total_bits = 3 * bits
    u32, i32 = jnp.uint32, jnp.int32

    def spread(v):
        v = (v * u32(0x00010001)) & u32(0xFF0000FF)
        v = (v * u32(0x00000101)) & u32(0x0F00F00F)
        v = (v * u32(0x00000011)) & u32(0xC30C30C3)
        return (v * u32(0x00000005)) & u32(0x49249249)

    def compact(v):
        v = v & u32(0x09249249)
        v = (v ^ (v >> 2)) & u32(0x030C30C3)
        v = (v ^ (v >> 4)) & u32(0x0300F00F)
        v = (v ^ (v >> 8)) & u32(0xFF0000FF)
        return (v ^ (v >> 16)) & u32(0x000003FF)

    def run(xyz):
        low, high = jnp.min(xyz, 0), jnp.max(xyz, 0)
        extent = high - low
        cells = jnp.clip(jnp.floor((xyz - low) / extent * (1 << bits)), 0, (1 << bits) - 1)
        cells = cells.astype(u32)
        code = (spread(cells[:, 0]) << 2) | (spread(cells[:, 1]) << 1) | spread(cells[:, 2])
        order = jnp.argsort(code, stable=True)
        codes = code[order]

        def delta(i, j):
            inside = (j >= 0) & (j < n)
            k = jnp.clip(j, 0, n - 1)
            a, b = codes[i], codes[k]
            same = a == b
            x = jnp.where(same, (i ^ k).astype(u32), a ^ b)
            return jnp.where(inside, lax.clz(x).astype(i32) + jnp.where(same, 32, 0), -1)

        i = jnp.arange(n - 1, dtype=i32)
        d = jnp.where(delta(i, i + 1) > delta(i, i - 1), 1, -1)
        floor_ = delta(i, i - d)

        def grow(_, reach):
            return jnp.where(delta(i, i + reach * d) > floor_, reach * 2, reach)

        reach = lax.fori_loop(0, steps, grow, jnp.full(n - 1, 2, i32))

        def search(k, length):
            t = reach >> (k + 1)
            return jnp.where((t > 0) & (delta(i, i + (length + t) * d) > floor_), length + t,
                             length)

        length = lax.fori_loop(0, steps, search, jnp.zeros(n - 1, i32))
        j = i + length * d
        node_delta = delta(i, j)

        def divide(k, split):
            div = 2 << k
            t = (length + div - 1) // div
            live = (k == 0) | ((length + (div >> 1) - 1) // (div >> 1) > 1)
            return jnp.where(live & (delta(i, i + (split + t) * d) > node_delta), split + t, split)

        split = lax.fori_loop(0, steps, divide, jnp.zeros(n - 1, i32))
        gamma = i + split * d + jnp.minimum(d, 0)
        first, last = jnp.minimum(i, j), jnp.maximum(i, j)
        left = jnp.where(first == gamma, gamma + n - 1, gamma)
        right = jnp.where(last == gamma + 1, gamma + n, gamma + 1)
        parent = jnp.zeros(2 * n - 1, i32).at[left].set(i).at[right].set(i)
        nodes = jnp.arange(2 * n - 1, dtype=i32)

        def double(_, carry):
            depth, up = carry
            return depth + depth[up], up[up]

        depth, _ = lax.fori_loop(0, steps, double, ((nodes != 0).astype(i32), parent))
        common = jnp.clip(node_delta - (32 - total_bits), 0, total_bits)
        shift = (total_bits - common).astype(u32)
        prefix = (codes[i] >> shift) << shift
        spans, corner = [], []
        for axis, offset in enumerate((2, 1, 0)):
            fixed = jnp.clip(bits - (total_bits - common - offset + 2) // 3, 0, bits)
            cell = extent[axis] / (1 << bits)
            spans.append(jnp.exp2((bits - fixed).astype(jnp.float32)) * cell)
            corner.append(low[axis] + compact(prefix >> offset).astype(jnp.float32) * cell)
        sx, sy, sz = spans
        root_area = 2.0 * (extent[0] * extent[1] + extent[1] * extent[2] + extent[2] * extent[0])
        ratio = 2.0 * (sx * sy + sy * sz + sz * sx) / root_area
        leaf_depth = depth[n - 1:]
        sah = 1.2 * jnp.sum(ratio) + jnp.sum(ratio[parent[n - 1:]])
        histogram = jax.ops.segment_sum(jnp.ones(n, i32), jnp.minimum(leaf_depth, 63), 64)
        boxes = jnp.stack(corner + spans, -1)
        return (order, left, right, parent, first, last, boxes, sah, histogram,
                jnp.max(leaf_depth), jnp.mean(leaf_depth.astype(jnp.float32)))

    rng = np.random.default_rng(11)
    centres = rng.uniform(-50.0, 50.0, (clusters, 3))
    spread_ = np.exp(rng.uniform(-1.0, 1.5, clusters))
    member = rng.integers(0, clusters, n)
    xyz = centres[member] + spread_[member, None] * rng.standard_normal((n, 3))
    background = rng.uniform(size=n) < 0.1
    xyz[background] = rng.uniform(-60.0, 60.0, (background.sum(), 3))
    return jax.jit(run).lower(jnp.asarray(xyz, jnp.float32))


def cotangent_mesh_fairing(around: int = 160, across: int = 80, iterations: int = 16,
                           shrink: float = 0.5, inflate: float = -0.53) -> Any:
    """Geometry processing on a triangle mesh: a torus of 12800 vertices and 25600
    triangles with noise along its normals is faired by 16 Taubin iterations in a
    `fori_loop`, each a shrinking and an inflating step (0.5 and -0.53 times a quarter
    of the mean squared edge length) along the cotangent Laplacian: every triangle
    gathers its three corners and takes the cotangents of its angles and its area, and
    the cotangent-weighted edge differences (both ends of every triangle's three edges,
    153 600 rows) and the vertex areas (a third of every adjacent triangle) are
    scatter-added per vertex by `segment_sum`. Afterwards area-weighted vertex normals,
    the mean curvature from the Laplacian, the Gaussian curvature from the angle defects
    (angles by `atan2` of cross and dot products), the total area, the enclosed volume
    and the error against the clean torus come back with the faired mesh."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = around * across
    big, small = 1.0, 0.35

    def run(vertices, faces, clean):
        a, b, c = faces[:, 0], faces[:, 1], faces[:, 2]
        heads = jnp.concatenate([a, b, c, b, c, a])
        tails = jnp.concatenate([b, c, a, a, b, c])

        def geometry(v):
            pa, pb, pc = v[a], v[b], v[c]
            corners = ((pa, pb, pc), (pb, pc, pa), (pc, pa, pb))
            cot, angle = [], []
            for p0, p1, p2 in corners:
                u, w = p1 - p0, p2 - p0
                cross = jnp.linalg.norm(jnp.cross(u, w), axis=-1)
                dot = jnp.sum(u * w, -1)
                cot.append(dot / (cross + 1e-12))
                angle.append(jnp.arctan2(cross, dot))
            area = 0.5 * jnp.linalg.norm(jnp.cross(pb - pa, pc - pa), axis=-1)
            return cot, angle, area

        def laplacian(v):
            cot, _, area = geometry(v)
            # the edge opposite corner a is (b, c), opposite b is (c, a), opposite c is (a, b)
            weight = 0.5 * jnp.concatenate([cot[2], cot[0], cot[1]] * 2)
            pull = weight[:, None] * (v[tails] - v[heads])
            summed = jax.ops.segment_sum(pull, heads, n)
            mass = jax.ops.segment_sum(jnp.tile(area, 3), jnp.concatenate([a, b, c]), n) / 3.0
            return summed / (mass[:, None] + 1e-12), mass

        def taubin(_, v):
            step, _ = laplacian(v)
            v = v + shrink * tau * step
            step, _ = laplacian(v)
            return v + inflate * tau * step

        v = lax.fori_loop(0, iterations, taubin, vertices)
        step, mass = laplacian(v)
        cot, angle, area = geometry(v)
        face_normal = jnp.cross(v[b] - v[a], v[c] - v[a])
        normal = jax.ops.segment_sum(jnp.tile(face_normal, (3, 1)), jnp.concatenate([a, b, c]), n)
        normal = normal / (jnp.linalg.norm(normal, axis=-1, keepdims=True) + 1e-12)
        mean_curvature = 0.5 * jnp.sum(step * normal, -1)
        defect = 2.0 * math.pi - jax.ops.segment_sum(jnp.concatenate(angle),
                                                     jnp.concatenate([a, b, c]), n)
        gaussian = defect / (mass + 1e-12)
        volume = jnp.sum(jnp.sum(v[a] * jnp.cross(v[b], v[c]), -1)) / 6.0
        error = jnp.sqrt(jnp.mean(jnp.sum(jnp.square(v - clean), -1)))
        return v, normal, mean_curvature, gaussian, jnp.sum(area), volume, error, jnp.sum(defect)

    u, w = np.meshgrid(np.arange(around) * 2 * np.pi / around,
                       np.arange(across) * 2 * np.pi / across, indexing="ij")
    ring = big + small * np.cos(w)
    clean = np.stack([ring * np.cos(u), ring * np.sin(u), small * np.sin(w)], -1).reshape(n, 3)
    outward = np.stack([np.cos(w) * np.cos(u), np.cos(w) * np.sin(u), np.sin(w)], -1)
    rng = np.random.default_rng(12)
    noisy = clean + 0.01 * rng.standard_normal((n, 1)) * outward.reshape(n, 3)
    idx = np.arange(n).reshape(around, across)
    right, up = np.roll(idx, -1, 0), np.roll(idx, -1, 1)
    diagonal = np.roll(right, -1, 1)
    faces = np.concatenate([np.stack([idx, right, diagonal], -1).reshape(-1, 3),
                            np.stack([idx, diagonal, up], -1).reshape(-1, 3)])
    edges = clean[faces] - clean[np.roll(faces, 1, 1)]
    tau = 0.25 * float(np.mean(np.sum(edges * edges, -1)))
    f32 = lambda x: jnp.asarray(x, jnp.float32)
    return jax.jit(run).lower(f32(noisy), jnp.asarray(faces, jnp.int32), f32(clean))


def boruvka_spanning_forest(side: int = 192, max_rounds: int = 32, clusters: int = 16) -> Any:
    """Minimum spanning forest by Boruvka's algorithm on a jittered 192x192 grid graph
    (36864 points; 141 965 edges, the links to the orthogonal and diagonal neighbours
    less 3% taken out at random, weighted by their lengths times a random factor and
    ranked by weight on the host, the rank breaking ties). Every round, in a
    `while_loop` that stops once no edge joins two components (capped at 32 rounds),
    each component finds its lightest outgoing edge by a `segment_min` of edge ranks
    over both endpoints' components, the chosen edges join the forest by a scatter,
    each component hooks onto the component across its edge (mutual pairs broken
    toward the smaller label) and the hooks are flattened by pointer jumping in a
    `fori_loop` of 17 gathers. The forest's weight,
    its number of trees, the component sizes (`segment_sum`) and a single-linkage
    clustering (the forest cut at its 15 heaviest edges by `top_k`, the smallest label
    spread along the remaining edges by 16 rounds of `segment_min` and pointer jumping)
    come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = side * side
    jumps = math.ceil(math.log2(n)) + 1

    def run(u, v, weight, rank, by_rank):
        e = u.shape[0]
        none = jnp.int32(e)
        nodes = jnp.arange(n, dtype=jnp.int32)

        def flatten(parent):
            return lax.fori_loop(0, jumps, lambda _, q: q[q], parent)

        def unfinished(carry):
            rounds, _, _, joined = carry
            return joined & (rounds < max_rounds)

        def round_(carry):
            rounds, comp, chosen, _ = carry
            cu, cv = comp[u], comp[v]
            crossing = cu != cv
            key = jnp.where(crossing, rank, none)
            best = jnp.minimum(jax.ops.segment_min(key, cu, n), jax.ops.segment_min(key, cv, n))
            has = (best < none) & (comp == nodes)
            edge = by_rank[jnp.minimum(best, e - 1)]
            chosen = chosen.at[jnp.where(has, edge, e)].set(True, mode="drop")
            other = jnp.where(comp[u[edge]] == nodes, comp[v[edge]], comp[u[edge]])
            hook = jnp.where(has, other, nodes)
            mutual = (hook[hook] == nodes) & (nodes < hook)
            hook = jnp.where(mutual, nodes, hook)
            root = flatten(hook)
            return rounds + 1, root[comp], chosen, jnp.any(has)

        start = (jnp.int32(0), nodes, jnp.zeros(e, bool), jnp.bool_(True))
        rounds, comp, chosen, _ = lax.while_loop(unfinished, round_, start)
        trees = jnp.sum(comp == nodes)
        sizes = jax.ops.segment_sum(jnp.ones(n, jnp.int32), comp, n)
        total = jnp.sum(jnp.where(chosen, weight, 0.0))
        heaviest, cut = lax.top_k(jnp.where(chosen, weight, -1.0), clusters - 1)
        kept = chosen.at[cut].set(False)

        def spread(_, label):
            lu, lv = label[u], label[v]
            smaller = jnp.where(kept, jnp.minimum(lu, lv), n)
            label = jnp.minimum(label, jax.ops.segment_min(smaller, u, n))
            label = jnp.minimum(label, jax.ops.segment_min(smaller, v, n))
            return label[label]

        labels = lax.fori_loop(0, 16, spread, nodes)
        return (comp, chosen, total, trees, sizes, rounds, heaviest, labels,
                jnp.sum(labels == nodes))

    rng = np.random.default_rng(13)
    yy, xx = np.divmod(np.arange(n), side)
    xy = np.stack([xx, yy], 1) + rng.uniform(-0.35, 0.35, (n, 2))
    pairs = []
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        ok = (yy + dy < side) & (xx + dx >= 0) & (xx + dx < side)
        a = np.flatnonzero(ok)
        pairs.append(np.stack([a, a + dy * side + dx], 1))
    pairs = np.concatenate(pairs)
    pairs = pairs[rng.uniform(size=len(pairs)) >= 0.03]
    length = np.linalg.norm(xy[pairs[:, 0]] - xy[pairs[:, 1]], axis=1)
    weight = length * rng.lognormal(0.0, 0.3, len(pairs))
    by_rank = np.argsort(weight, kind="stable")
    rank = np.empty_like(by_rank)
    rank[by_rank] = np.arange(len(by_rank))
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return jax.jit(run).lower(i32(pairs[:, 0]), i32(pairs[:, 1]), jnp.asarray(weight, jnp.float32),
                              i32(rank), i32(by_rank))


def raw_camera_pipeline(frames: int = 2, height: int = 896, width: int = 1280,
                        black: tuple[float, ...] = (254.0, 256.0, 257.0, 255.0),
                        white: float = 4095.0) -> Any:
    """A camera's image signal processor on two 896x1280 raw frames of 12-bit RGGB
    Bayer data stored as uint16, a memory-bound chain of elementwise maps and stencils
    by shifted slices (no convolution, no matrix product): per-site black levels and
    normalization, radial lens-shading gains from the pixel coordinates, hot pixels
    clamped to the range of their four same-colour neighbours two pixels away,
    grey-world white balance from each frame's site means, Malvar-He-Cutler 5x5
    gradient-corrected demosaicing (its five kernels written out as weighted sums of
    shifted slices of the reflect-padded mosaic, the results chosen per Bayer site), a
    3x3 colour correction written out per channel, exposure from the log-average
    luminance, a filmic tone curve, the sRGB transfer curve and rounding to uint8. Per
    frame the white-balance gains, the clipped share, the mean colour and a focus measure
    (the mean absolute Laplacian of the luminance) come back with the 8-bit images."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    ccm = np.asarray([[1.72, -0.55, -0.17], [-0.22, 1.48, -0.26], [0.04, -0.52, 1.48]])

    def run(raw):
        f32 = jnp.float32
        h, w = raw.shape[1:]
        row = (jnp.arange(h) % 2)[None, :, None]
        col = (jnp.arange(w) % 2)[None, None, :]
        site = 2 * row + col                     # 0 R, 1 G on R rows, 2 G on B rows, 3 B
        level = jnp.where(site == 0, black[0], jnp.where(site == 1, black[1], jnp.where(
            site == 2, black[2], black[3])))
        x = jnp.clip((raw.astype(f32) - level) / (white - level), 0.0, 1.0)
        yy = (jnp.arange(h, dtype=f32)[:, None] - h / 2) / (h / 2)
        xx = (jnp.arange(w, dtype=f32)[None, :] - w / 2) / (w / 2)
        r2 = (yy * yy + xx * xx) / 2.0
        x = x * (1.0 + 0.35 * r2 + 0.2 * r2 * r2)[None]

        def shifted(padded, dy, dx):
            return padded[:, 2 + dy:2 + dy + h, 2 + dx:2 + dx + w]

        padded = jnp.pad(x, ((0, 0), (2, 2), (2, 2)), mode="reflect")
        same = [shifted(padded, dy, dx) for dy, dx in ((-2, 0), (2, 0), (0, -2), (0, 2))]
        low = jnp.minimum(jnp.minimum(same[0], same[1]), jnp.minimum(same[2], same[3]))
        high = jnp.maximum(jnp.maximum(same[0], same[1]), jnp.maximum(same[2], same[3]))
        x = jnp.clip(x, low * 0.8, high * 1.25 + 0.01)

        def site_mean(k):
            chosen = (site == k).astype(f32)
            return jnp.sum(x * chosen, (1, 2)) / jnp.sum(chosen)

        means = jnp.stack([site_mean(0), 0.5 * (site_mean(1) + site_mean(2)), site_mean(3)], -1)
        gains = means[:, 1:2] / (means + 1e-6)
        gain = jnp.where(site == 0, gains[:, 0, None, None], jnp.where(
            site == 3, gains[:, 2, None, None], 1.0))
        m = x * gain
        p = jnp.pad(m, ((0, 0), (2, 2), (2, 2)), mode="reflect")
        s = lambda dy, dx: shifted(p, dy, dx)
        axial1 = s(-1, 0) + s(1, 0) + s(0, -1) + s(0, 1)
        axial2 = s(-2, 0) + s(2, 0) + s(0, -2) + s(0, 2)
        diagonal = s(-1, -1) + s(-1, 1) + s(1, -1) + s(1, 1)
        across2 = s(0, -2) + s(0, 2)
        down2 = s(-2, 0) + s(2, 0)
        green_at_rb = (4.0 * m + 2.0 * axial1 - axial2) / 8.0
        along_row = (5.0 * m + 4.0 * (s(0, -1) + s(0, 1)) - across2 - diagonal
                     + 0.5 * down2) / 8.0
        along_col = (5.0 * m + 4.0 * (s(-1, 0) + s(1, 0)) - down2 - diagonal
                     + 0.5 * across2) / 8.0
        opposite = (6.0 * m + 2.0 * diagonal - 1.5 * axial2) / 8.0
        red = jnp.where(site == 0, m, jnp.where(site == 1, along_row, jnp.where(
            site == 2, along_col, opposite)))
        green = jnp.where((site == 0) | (site == 3), green_at_rb, m)
        blue = jnp.where(site == 3, m, jnp.where(site == 2, along_row, jnp.where(
            site == 1, along_col, opposite)))
        rgb = [jnp.clip(ccm[c, 0] * red + ccm[c, 1] * green + ccm[c, 2] * blue, 0.0, None)
               for c in range(3)]
        luminance = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
        key = jnp.exp(jnp.mean(jnp.log(luminance + 1e-4), (1, 2)))
        exposure = (0.18 / key)[:, None, None]
        out = []
        for channel in rgb:
            c = channel * exposure
            c = jnp.clip(c * (2.51 * c + 0.03) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0)
            c = jnp.where(c <= 0.0031308, 12.92 * c, 1.055 * jnp.power(jnp.maximum(
                c, 0.0031308), 1.0 / 2.4) - 0.055)
            out.append(c)
        image = jnp.stack(out, -1)
        pixels = jnp.round(jnp.clip(image, 0.0, 1.0) * 255.0).astype(jnp.uint8)
        clipped = jnp.mean((image >= 0.999).any(-1).astype(f32), (1, 2))
        lum = 0.2126 * out[0] + 0.7152 * out[1] + 0.0722 * out[2]
        lap = (4.0 * lum[:, 1:-1, 1:-1] - lum[:, :-2, 1:-1] - lum[:, 2:, 1:-1]
               - lum[:, 1:-1, :-2] - lum[:, 1:-1, 2:])
        focus = jnp.mean(jnp.abs(lap), (1, 2))
        return pixels, gains, clipped, jnp.mean(image, (1, 2)), focus, key

    rng = np.random.default_rng(14)
    coarse = _smooth_images(rng, frames, 128, 3, 6.0)
    scene = np.exp(0.8 * coarse[..., :1] + 0.3 * coarse)
    scene = np.repeat(np.repeat(scene, height // 128, 1), width // 128, 2)
    scene = scene[:, :height, :width] * (1.0 + 0.1 * rng.standard_normal(
        (frames, height, width, 1)).astype(np.float32))
    illuminant = np.asarray([0.55, 1.0, 0.7], np.float32)
    camera = np.clip(scene @ np.linalg.inv(ccm).T.astype(np.float32), 0.0, None) * illuminant
    camera = camera / np.percentile(camera, 99.5) * 0.9
    mosaic = np.empty((frames, height, width), np.float32)
    mosaic[:, 0::2, 0::2] = camera[:, 0::2, 0::2, 0]
    mosaic[:, 0::2, 1::2] = camera[:, 0::2, 1::2, 1]
    mosaic[:, 1::2, 0::2] = camera[:, 1::2, 0::2, 1]
    mosaic[:, 1::2, 1::2] = camera[:, 1::2, 1::2, 2]
    mosaic = np.clip(mosaic, 0.0, 1.0)
    counts = rng.poisson(mosaic * 3000.0) / 3000.0
    dn = 256.0 + counts * (white - 256.0) + 2.0 * rng.standard_normal(mosaic.shape)
    hot = rng.integers(0, frames * height * width, 2000)
    dn.reshape(-1)[hot] = white
    raw = np.clip(np.round(dn), 0, 4095).astype(np.uint16)
    return jax.jit(run).lower(jnp.asarray(raw))


def gaussian_mixture_em(points: int = 8192, dims: int = 8, components: int = 16,
                        tolerance: float = 1e-5, max_iterations: int = 150) -> Any:
    """Fitting a Gaussian mixture of sixteen components with diagonal covariances to
    8192 points in eight dimensions (drawn from twenty anisotropic clusters) by
    expectation-maximization in a `while_loop` that stops once the mean log-likelihood
    gains less than a relative 1e-5 (capped at 150 iterations). The E-step takes every
    point's log-density under every component from two matrix products (the squared
    points against the inverse variances, the points against the means over the
    variances), responsibilities by a log-sum-exp; the M-step gets weights, means and
    variances from the responsibilities by matrix products, the variances floored.
    Starting means are points picked on the host. The fitted mixture, the hard
    assignments, their entropy, the iteration count and the Bayesian information
    criterion come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    constant = dims * math.log(2.0 * math.pi)

    def run(x, means):
        n = x.shape[0]
        squares = x * x

        def joint(weights, means, variances):
            precision = 1.0 / variances
            quad = (squares @ precision.T - 2.0 * x @ (means * precision).T
                    + jnp.sum(means * means * precision, -1))
            return jnp.log(weights) - 0.5 * (quad + jnp.sum(jnp.log(variances), -1) + constant)

        def unfinished(carry):
            i, _, _, _, old, new = carry
            return (i < max_iterations) & ((i < 2) | (new - old > tolerance * jnp.abs(old)))

        def iterate(carry):
            i, weights, means, variances, _, likelihood = carry
            logp = joint(weights, means, variances)
            total = jax.nn.logsumexp(logp, -1, keepdims=True)
            resp = jnp.exp(logp - total)
            mass = jnp.sum(resp, 0) + 1e-10
            means = (resp.T @ x) / mass[:, None]
            variances = jnp.maximum((resp.T @ squares) / mass[:, None] - means * means, 1e-4)
            return i + 1, mass / n, means, variances, likelihood, jnp.mean(total)

        start = (jnp.int32(0), jnp.full(components, 1.0 / components), means,
                 jnp.ones_like(means) * jnp.var(x, 0), -jnp.inf, -jnp.inf)
        count, weights, means, variances, _, likelihood = lax.while_loop(
            unfinished, iterate, start)
        logp = joint(weights, means, variances)
        resp = jax.nn.softmax(logp, -1)
        labels = jnp.argmax(logp, -1)
        entropy = -jnp.mean(jnp.sum(resp * jnp.log(resp + 1e-12), -1))
        parameters = components * (2 * dims + 1) - 1
        bic = -2.0 * likelihood * n + parameters * math.log(n)
        return weights, means, variances, labels, entropy, count, likelihood, bic

    rng = np.random.default_rng(15)
    centres = rng.uniform(-6.0, 6.0, (20, dims))
    scales = np.exp(rng.uniform(-1.0, 0.5, (20, dims)))
    member = rng.integers(0, 20, points)
    x = centres[member] + scales[member] * rng.standard_normal((points, dims))
    means = x[rng.choice(points, components, replace=False)]
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(run).lower(f32(x), f32(means))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "segformer_segmentation/8x96px-32-160-bf16": segformer_segmentation,
    "monodepth_stereo/4x64x128-32-128": monodepth_stereo,
    "temporal_fusion_transformer/64x48+12-d40-q3": temporal_fusion_transformer,
    "trpo_locomotion/2048x17+6-h64-cg10": trpo_locomotion,
    "latent_sde/128x40-steps-z4-em2": latent_sde,
    "dimenet_molecules/16x14-atoms-d64-3-blocks": dimenet_molecules,
    "deep_thinking_maze/6x19px-w16-6+4-iterations": deep_thinking_maze,
    "nfnet_classifier/24x32px-16-32-64": nfnet_classifier,
    "forward_forward/128+128x784-3x400-bf16": forward_forward,
    "universal_transformer_act/16x48-d64-max6-bf16": universal_transformer_act,
    "lbvh_morton_build/131072-points-30-bit": lbvh_morton_build,
    "cotangent_mesh_fairing/12800-vertices-16-iterations": cotangent_mesh_fairing,
    "boruvka_spanning_forest/192x192-grid-max32": boruvka_spanning_forest,
    "raw_camera_pipeline/2x896x1280-rggb": raw_camera_pipeline,
    "gaussian_mixture_em/8192x8-k16-max150": gaussian_mixture_em,
}
