"""The twenty-first never-seen set: programs written on 2026-11-28, after the twentieth set
(benchmarks/never_seen_20/), which judged one model, and never used to choose anything: not
for a feature, a default, a fallback threshold or a model. They exist to judge a trained
model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-21` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
twenty never-seen sets has; as in the sets before it, a few training steps are large (a
few gigaflops each) and the rest mid-sized; one of them upsamples by transposed
convolutions, one differentiates the input gradient of its convolutions (a gradient
penalty) and one differentiates third derivatives of its network. Ten are training steps
(forward, loss, backward and an optimizer update). An SKNet classifies 64x64 plaid
textures by bottleneck blocks whose selective-kernel units run a grouped 3x3 convolution
and a grouped dilated one side by side and mix them per channel by a softmax over two
attention vectors from their pooled sum. XLNet in bfloat16 learns permutation language
modelling by two-stream self-attention (a content stream that sees its own token and a
query stream that does not, each position seeing what precedes it in a random
factorization order) with Transformer-XL relative positions shifted into place by a
gather, predicting the last 22 tokens of every order. DIEN predicts clicks from behaviour
histories: an interest extractor GRU in a `lax.scan` with an auxiliary loss against
sampled negative behaviours, attention of its states to the target item, and a GRU with an
attention-scaled update gate (AUGRU) in a second `lax.scan`, under an MLP with Dice
activations. Graph U-Nets classify the nodes of stochastic-block-model graphs by dense GCN
layers, gPool levels that keep the `top_k` nodes of a learned projection (their features
and two-hop adjacency gathered) and gUnpool levels that scatter them back. A WGAN-GP
trains a transposed-convolution generator and a layer-normed critic whose loss holds the
norm of its input gradient at random interpolates, so that its backward pass
differentiates the critic's convolutions twice. Barlow Twins pretrains a small ResNet on
two views cut inside the step by bilinear resampling of random boxes (gathers), mirrored
and colour-jittered, driving the 1024x1024 cross-correlation of the projected views
towards the identity. PatchTST forecasts seven series 96 steps ahead from 336, every
channel on its own after reversible instance normalization, by overlapping patches, a
transformer with batch norm and residual attention scores, and a flattening head. A
Lagrangian neural network learns a double pendulum: accelerations from the Euler-Lagrange
equations with the Hessian of a scalar MLP from `jax.hessian` under `vmap`, the 2x2
systems solved in closed form. A GFNet classifies textures by global filters in place of
attention (a real 2-D FFT, a learned complex product per frequency and channel, an
inverse FFT) and GELU MLPs. A class-conditional diffusion transformer (DiT) in bfloat16
predicts the noise of a cosine schedule from 4x4 patches, conditioned on the step and the
class (dropped one time in ten) through adaLN-Zero shifts, scales and gates. Five are
inference or scientific steps without a gradient: weighted Voronoi stippling of two
256x256 pictures by 192 stipples (three Lloyd relaxations in a `fori_loop`, each building
the Voronoi diagram by jump flooding in nine passes of an inner `fori_loop` of
neighbour gathers, the centroids by `segment_sum`s); a z-buffer rasterizer of a bumpy
sphere of 6144 triangles in four 256x256 views (edge functions over a 12x12 window per
triangle, a scatter-min for the depth, a scatter-max for the triangle ids, a scatter-add
for the coverage, perspective-correct shading by gathers); DBSCAN of 4096 points (a
4096x4096 neighbourhood, core labels spread by the smallest neighbouring label and pointer
jumping in a `while_loop` capped at 64 rounds, border points, dense renumbering by a
`cumsum`, cluster statistics by `segment_sum`s); an Aho-Corasick search for 128 DNA motifs
in sixteen sequences of 16384 bases (a `lax.scan` of gathers from a 745-state transition
table, a scatter-add of the visits and a matrix product with the output matrix, a
scatter-min of first positions); and YIN pitch tracking of sixteen 3 s signals (frames
gathered by an index matrix, difference functions from real FFTs and `cumsum`s, the first
normalized dip by an `argmax`, parabolic refinement by gathers, a five-frame median by
`sort`, a semitone histogram by `segment_sum`). The updates are new to these sets, four
of them as variants or combinations of earlier ones: AdaPlus (AdamW with NAdam's Nesterov
look-ahead and AdaBelief's second moment), LANS (normalized gradients into Adam moments,
then two trust-ratio steps, one along the momentum and one along the gradient), AdaGrad
with L1-regularized dual averaging (the weights, anchored at their start, set from the
soft-thresholded sum of the gradients), AvaGrad (the previous step's adaptive rates,
normalized per tensor by their RMS), Tiger (a variant of Lion: the sign of a single
momentum, with weight decay), SAdam (a softplus of sqrt(v) in place of sqrt(v) + eps),
ALI-G (the loss over the squared gradient norm, capped, with Nesterov momentum), AdaSmooth
(a second-moment decay set per coordinate by the efficiency ratio of its recent moves),
LookSAM (a variant of SAM: the sharpness-aware gradient taken every fifth step under
`lax.cond`, its part orthogonal to the plain gradient reused in between, over momentum
SGD) and AdaLomo (Adafactor's factored second moment without momentum, every tensor's
step normalized by its RMS and scaled by the tensor's own); two training steps (XLNet and
the DiT) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")


def _params(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
            scale: float = 1.0) -> dict[str, Any]:
    """Weights for the named shapes, drawn on the host by numpy from one fixed seed in
    the order given. A name ending in `_b` or `_z` starts at zero (a bias, a shift or a
    zero-initialized projection) and one ending in `_g` at one (a gain); every other
    tensor is normal with standard deviation scale / sqrt(fan-in), the fan-in being the
    product of all axes but the last."""
    import jax.numpy as jnp
    import numpy as np

    dtype = dtype or jnp.float32
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for name, shape in shapes.items():
        if name.endswith(("_b", "_z")):
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

    def norm(tree: Any) -> Any:
        leaves = jax.tree.leaves(tree)
        return jnp.sqrt(sum(jnp.sum(jnp.square(leaf.astype(f32))) for leaf in leaves))

    if name == "adaplus":
        # AdaPlus (Guan): AdamW whose first moment enters with NAdam's Nesterov look-ahead
        # and whose second moment is AdaBelief's, the squared deviation of the gradient
        # from its momentum
        rate, b1, b2, decay, eps = 1e-3, 0.9, 0.999, 5e-4, 1e-8

        def adaplus(params, grads, state, loss):
            m, s, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            s = tm(lambda s_, m_, g_: b2 * s_ + (1.0 - b2) * jnp.square(g_ - m_) + eps, s, m, g)

            def one(p, g_, m_, s_):
                ahead = b1 * m_ / (1.0 - b1 ** (n + 1.0)) + (1.0 - b1) * g_ / (1.0 - b1 ** n)
                w = p.astype(f32)
                return w - rate * (ahead / (jnp.sqrt(s_ / (1.0 - b2 ** n)) + eps) + decay * w)
            return recast(params, tm(one, params, g, m, s)), (m, s, t)
        return (lambda p: (zeros(p), zeros(p), count())), adaplus

    if name == "lans":
        # LANS (Zheng et al.): every tensor's gradient normalized to unit norm, Adam moments
        # of the normalized gradients, and two layer-wise trust-ratio steps, one along the
        # bias-corrected momentum direction and one along the current gradient (Nesterov's
        # share), each with decoupled weight decay and scaled by the tensor's norm
        rate, b1, b2, decay, eps = 2e-3, 0.9, 0.999, 1e-2, 1e-6

        def lans(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            g = tm(lambda g_: g_.astype(f32) / (jnp.sqrt(jnp.sum(jnp.square(g_.astype(f32))))
                                                + 1e-12), grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)

            def one(p, g_, m_, v_):
                w = p.astype(f32)
                root = jnp.sqrt(v_ / (1.0 - b2 ** n)) + eps
                size = jnp.sqrt(jnp.sum(w * w))

                def trusted(d):
                    d = d + decay * w
                    ratio = jnp.where(size > 0, size / (jnp.sqrt(jnp.sum(d * d)) + 1e-12), 1.0)
                    return ratio * d
                r = (m_ / (1.0 - b1 ** n)) / root
                return w - rate * (b1 * trusted(r) + (1.0 - b1) * trusted(g_ / root))
            return recast(params, tm(one, params, g, m, v)), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), lans

    if name == "adagrad_rda":
        # AdaGrad with regularized dual averaging (Duchi, Hazan and Singer) under an L1
        # penalty, anchored at the starting weights: the weights are the start minus the
        # summed gradients, soft-thresholded by t times the penalty, over AdaGrad's
        # root of the summed squares; a coordinate whose average gradient stays below the
        # penalty stays exactly where it started
        rate, penalty, delta = 0.05, 1e-6, 1e-3

        def rda_init(params):
            return wide(params), zeros(params), zeros(params), count()

        def rda(params, grads, state, loss):
            start, total, squares, t = state
            t = t + 1
            g = wide(grads)
            total = tm(lambda a, g_: a + g_, total, g)
            squares = tm(lambda a, g_: a + g_ * g_, squares, g)
            limit = penalty * t.astype(f32)

            def one(s, a, q):
                shrunk = jnp.sign(a) * jnp.maximum(jnp.abs(a) - limit, 0.0)
                return s - rate * shrunk / (delta + jnp.sqrt(q))
            return recast(params, tm(one, start, total, squares)), (start, total, squares, t)
        return rda_init, rda

    if name == "avagrad":
        # AvaGrad (Savarese, McAllester, Babu and Maire): the adaptive rates come from the
        # second moment of the previous step (decoupling them from the current gradient),
        # and every tensor's rates are divided by their root-mean-square so that only
        # their relative sizes matter, then applied to the momentum
        rate, b1, b2, eps, decay = 0.1, 0.9, 0.999, 0.1, 1e-4

        def avagrad(params, grads, state, loss):
            m, v = state
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)

            def one(p, m_, v_):
                eta = 1.0 / (jnp.sqrt(v_) + eps)
                eta = eta * lax.rsqrt(jnp.mean(jnp.square(eta)))
                w = p.astype(f32)
                return w - rate * (eta * m_ + decay * w)
            moved = tm(one, params, m, v)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            return recast(params, moved), (m, v)
        return (lambda p: (zeros(p), zeros(p))), avagrad

    if name == "tiger":
        # Tiger (Su): a variant of Lion with a single momentum: the weights step by the sign
        # of an exponential average of the gradients, with decoupled weight decay
        rate, beta, decay = 2e-4, 0.945, 1e-2

        def tiger(params, grads, state, loss):
            m = tm(lambda m_, g: beta * m_ + (1.0 - beta) * g.astype(f32), state, grads)
            moved = tm(lambda p, m_: p.astype(f32) - rate * (jnp.sign(m_) + decay * p.astype(f32)),
                       params, m)
            return recast(params, moved), m
        return zeros, tiger

    if name == "sadam":
        # SAdam (Tong, Liang and Bi): Adam whose denominator sqrt(v) + eps is replaced by a
        # softplus of sqrt(v) with sharpness 50, calibrating the step where v is tiny, with
        # decoupled weight decay
        rate, b1, b2, sharpness, decay = 1e-3, 0.9, 0.999, 50.0, 1e-4

        def sadam(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)

            def one(p, m_, v_):
                root = jnp.sqrt(v_ / (1.0 - b2 ** n))
                soft = jax.nn.softplus(sharpness * root) / sharpness
                w = p.astype(f32)
                return w - rate * (m_ / (1.0 - b1 ** n) / soft + decay * w)
            return recast(params, tm(one, params, m, v)), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), sadam

    if name == "alig":
        # ALI-G (Berrada, Zisserman and Kumar): a Polyak-type step size, the loss over the
        # squared gradient norm (the optimal loss taken as zero), capped at a maximal rate,
        # with Nesterov momentum
        largest, momentum, delta = 0.1, 0.9, 1e-5

        def alig(params, grads, state, loss):
            g = wide(grads)
            step = jnp.minimum(loss.astype(f32) / (jnp.square(norm(g)) + delta), largest)
            velocity = tm(lambda z, g_: momentum * z - step * g_, state, g)
            moved = tm(lambda p, z, g_: p.astype(f32) + momentum * z - step * g_,
                       params, velocity, g)
            return recast(params, moved), velocity
        return zeros, alig

    if name == "adasmooth":
        # AdaSmooth (Lu): RMSProp-like steps whose second-moment decay follows the
        # efficiency ratio of every coordinate's recent moves, the size of their sum over
        # the sum of their sizes (here exponentially decayed sums over about ten steps):
        # c = (0.99 - 0.5) ratio + (1 - 0.99), E[g^2] <- c^2 g^2 + (1 - c^2) E[g^2]
        rate, fast, slow, window, eps = 2e-3, 0.5, 0.99, 0.9, 1e-6

        def adasmooth(params, grads, state, loss):
            travel, path, mean_sq = state
            g = wide(grads)
            ratio = tm(lambda s, a: jnp.abs(s) / (a + 1e-12), travel, path)
            c = tm(lambda r: (slow - fast) * r + (1.0 - slow), ratio)
            mean_sq = tm(lambda e, c_, g_: c_ * c_ * g_ * g_ + (1.0 - c_ * c_) * e, mean_sq, c, g)
            move = tm(lambda g_, e: -rate * g_ * lax.rsqrt(e + eps), g, mean_sq)
            travel = tm(lambda s, d: window * s + d, travel, move)
            path = tm(lambda a, d: window * a + jnp.abs(d), path, move)
            moved = tm(lambda p, d: p.astype(f32) + d, params, move)
            return recast(params, moved), (travel, path, mean_sq)
        return (lambda p: (zeros(p), zeros(p), zeros(p))), adasmooth

    if name == "adalomo":
        # AdaLomo (Lv et al.): no momentum; Adafactor's factored second moment (row and
        # column averages of g^2 for every tensor flattened to fan-in x fan-out, a full one
        # for vectors), and grouped update normalization: each tensor's step is divided by
        # its RMS where that exceeds one and scaled by the RMS of the tensor itself
        rate, beta, eps, floor, decay = 1e-2, 0.99, 1e-30, 1e-3, 1e-4

        def factored(p):
            if p.ndim < 2:
                return jnp.zeros(p.shape, f32)
            fan_out = p.shape[-1]
            fan_in = p.size // fan_out
            return jnp.zeros((fan_in,), f32), jnp.zeros((fan_out,), f32)

        def adalomo(params, grads, state, loss):
            leaves, tree = jax.tree.flatten(params)
            g_leaves = tree.flatten_up_to(grads)
            s_leaves = tree.flatten_up_to(state)
            new_p, new_s = [], []
            for p, g, s in zip(leaves, g_leaves, s_leaves):
                g = g.astype(f32)
                w = p.astype(f32)
                if p.ndim < 2:
                    s = beta * s + (1.0 - beta) * (g * g + eps)
                    u = g * lax.rsqrt(s)
                else:
                    matrix = g.reshape(-1, p.shape[-1])
                    rows = beta * s[0] + (1.0 - beta) * jnp.mean(matrix * matrix + eps, 1)
                    cols = beta * s[1] + (1.0 - beta) * jnp.mean(matrix * matrix + eps, 0)
                    v = rows[:, None] * cols[None, :] / jnp.mean(rows)
                    u = (matrix * lax.rsqrt(v)).reshape(p.shape)
                    s = (rows, cols)
                u = u / jnp.maximum(1.0, jnp.sqrt(jnp.mean(u * u)))
                scale = jnp.maximum(floor, jnp.sqrt(jnp.mean(w * w)))
                new_p.append((w - rate * (scale * u + decay * w)).astype(p.dtype))
                new_s.append(s)
            return jax.tree.unflatten(tree, new_p), jax.tree.unflatten(tree, new_s)
        return (lambda p: tm(factored, p)), adalomo

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
    norm by default; batch norm or instance norm by other axes."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = x32.mean(axes, keepdims=True)
    var = jnp.square(x32 - mean).mean(axes, keepdims=True)
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
            + shift.astype(jnp.float32)).astype(x.dtype)


def _batch_norm(x: Any, gain: Any, shift: Any) -> Any:
    """Normalization by the batch's own statistics over every axis but the last."""
    return _layer_norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean softmax cross-entropy of integer labels, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], -1))


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", groups: int = 1,
          dilation: int = 1) -> Any:
    """A 2-D NHWC convolution."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), padding,
                                    rhs_dilation=(dilation, dilation), dimension_numbers=_NHWC,
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


def _texture_pictures(rng: Any, count: int, side: int, classes: int) -> tuple[Any, Any]:
    """numpy: `count` pictures (NHWC float32, about unit scale) of `classes` texture kinds
    and their labels: each kind is a plaid of two gratings at its own pair of angles and
    frequencies in its own colours, randomly phased, over smooth clutter and noise."""
    import numpy as np

    labels = rng.integers(0, classes, count)
    angles = rng.uniform(0, np.pi, (classes, 2))
    freqs = rng.uniform(0.08, 0.35, (classes, 2))
    colours = rng.uniform(-1, 1, (classes, 2, 3))
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float64)
    clutter = _smooth_images(rng, count, side, 3, 3.0)
    out = np.zeros((count, side, side, 3), np.float32)
    for i, k in enumerate(labels):
        picture = 0.4 * clutter[i]
        for j in range(2):
            along = np.cos(angles[k, j]) * xx + np.sin(angles[k, j]) * yy
            wave = np.sin(2 * np.pi * freqs[k, j] * along + rng.uniform(0, 2 * np.pi))
            picture = picture + wave[..., None] * colours[k, j]
        out[i] = picture + 0.2 * rng.standard_normal(picture.shape)
    return out, labels


def sknet_classifier(batch: int = 8, side: int = 64,
                     stages: tuple[tuple[int, int], ...] = ((48, 96), (96, 192), (192, 384)),
                     blocks: int = 2, groups: int = 8, classes: int = 10, reduce: int = 4,
                     least: int = 32) -> Any:
    """Image classification by a selective-kernel network (SKNet; Li, Wang, Hu and Yang) on
    64x64 pictures of ten plaid textures. A stride-2 3x3 stem (32 channels, batch norm)
    feeds three stages of two bottleneck blocks (a 1x1 reduction, a selective-kernel unit
    and a 1x1 expansion to 96, 192 and 384 channels, batch norm throughout, the first block
    of the later stages strided in its SK unit with a strided 1x1 projection on the
    shortcut). Each SK unit splits into a grouped 3x3 convolution and a grouped 3x3
    convolution of dilation 2 (eight groups each), fuses their sum by global average
    pooling and a fully connected layer with batch norm down to max(C/4, 32) units, and
    selects between the branches per channel by a softmax over two fully connected
    outputs. Global pooling and a linear classifier under cross-entropy. AdaPlus."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    stem = 32
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, stem), "stem_g": (stem,),
                                          "stem_b": (stem,)}
    cin = stem
    plan = []
    for s, (mid, out) in enumerate(stages):
        for k in range(blocks):
            name = f"s{s}k{k}"
            stride = 2 if s and not k else 1
            squeeze = max(mid // reduce, least)
            shapes.update({f"{name}in": (1, 1, cin, mid), f"{name}in_g": (mid,),
                           f"{name}in_b": (mid,)})
            for branch in ("a", "b"):
                shapes.update({f"{name}{branch}": (3, 3, mid // groups, mid),
                               f"{name}{branch}_g": (mid,), f"{name}{branch}_b": (mid,)})
            shapes.update({f"{name}fuse": (mid, squeeze), f"{name}fuse_g": (squeeze,),
                           f"{name}fuse_b": (squeeze,), f"{name}select": (squeeze, 2 * mid),
                           f"{name}select_b": (2 * mid,), f"{name}out": (1, 1, mid, out),
                           f"{name}out_g": (out,), f"{name}out_b": (out,)})
            project = stride > 1 or cin != out
            if project:
                shapes.update({f"{name}skip": (1, 1, cin, out), f"{name}skip_g": (out,),
                               f"{name}skip_b": (out,)})
            plan.append((name, stride, project))
            cin = out
    shapes.update({"head": (cin, classes), "head_b": (classes,)})
    p = _params(shapes, seed=1, scale=1.4)
    relu = jax.nn.relu

    def bn(p, k, x):
        return _batch_norm(x, p[f"{k}_g"], p[f"{k}_b"])

    def selective(p, k, x, stride):
        pad = ((2, 2), (2, 2))
        ua = relu(bn(p, f"{k}a", _conv(x, p[f"{k}a"], stride, groups=groups)))
        ub = relu(bn(p, f"{k}b", _conv(x, p[f"{k}b"], stride, pad, groups=groups, dilation=2)))
        pooled = jnp.mean(ua + ub, (1, 2))
        z = relu(_batch_norm(pooled @ p[f"{k}fuse"], p[f"{k}fuse_g"], p[f"{k}fuse_b"]))
        logits = (z @ p[f"{k}select"] + p[f"{k}select_b"]).reshape(x.shape[0], 2, -1)
        attend = jax.nn.softmax(logits, 1)
        return attend[:, None, None, 0] * ua + attend[:, None, None, 1] * ub

    def loss_fn(p, pictures, labels):
        x = relu(bn(p, "stem", _conv(pictures, p["stem"], 2)))
        for name, stride, project in plan:
            y = relu(bn(p, f"{name}in", _conv(x, p[f"{name}in"])))
            y = selective(p, name, y, stride)
            y = bn(p, f"{name}out", _conv(y, p[f"{name}out"]))
            skip = bn(p, f"{name}skip", _conv(x, p[f"{name}skip"], stride)) if project else x
            x = relu(y + skip)
        return _cross_entropy(jnp.mean(x, (1, 2)) @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(1)
    pictures, labels = _texture_pictures(rng, batch, side, classes)
    return _train("adaplus", loss_fn, p, jnp.asarray(pictures), jnp.asarray(labels, jnp.int32))


def _sinusoids(positions: Any, width: int) -> Any:
    """numpy float32: sinusoidal encodings of `positions` (any shape) in `width` channels,
    sines then cosines over geometrically spaced frequencies."""
    import numpy as np

    freqs = 1.0 / (10000.0 ** (np.arange(0, width, 2) / width))
    angles = np.asarray(positions, np.float64)[..., None] * freqs
    return np.concatenate([np.sin(angles), np.cos(angles)], -1).astype(np.float32)


def xlnet_permutation_lm(batch: int = 6, length: int = 128, vocab: int = 512, width: int = 96,
                         heads: int = 4, layers: int = 3, hidden: int = 384,
                         predict: int = 22) -> Any:
    """Permutation language modelling by XLNet (Yang et al.) in bfloat16 on 128-token
    sequences of a synthetic language (phrases drawn from a fixed phrase book, some of
    them repeated later in the sequence). Each sequence gets its own factorization order
    (a random permutation drawn on the host) and only the last 22 tokens of that order
    are predicted. Three post-norm layers of width 96 and four heads run two-stream
    self-attention with Transformer-XL relative positions: the content stream attends to
    the tokens at or before each position in the order, the query stream (22 rows per
    sequence, started from one learned vector and placed by gathers of their positions)
    to the tokens strictly before, both reading keys and values of the content stream;
    scores add a content term with a learned bias and a position term against projected
    sinusoids of all 255 relative distances, shifted into place by a `take_along_axis`.
    The query stream's outputs are scored against the tied embedding under cross-entropy.
    LANS."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "query": (width,),
                                          "out_b": (vocab,)}
    for l in range(layers):
        shapes.update({f"{l}q": (width, width), f"{l}k": (width, width), f"{l}v": (width, width),
                       f"{l}r": (width, width), f"{l}o": (width, width),
                       f"{l}content_b": (heads, dh), f"{l}position_b": (heads, dh),
                       f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}f1": (width, hidden),
                       f"{l}f1_b": (hidden,), f"{l}f2": (hidden, width), f"{l}f2_b": (width,),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,)})
    p = _params(shapes, seed=2, dtype=bf16)
    distances = _sinusoids(np.arange(length - 1, -length, -1), width)

    def attend(p, l, stream, where, keys, values, allowed):
        b, m = stream.shape[:2]
        q = (stream @ p[f"{l}q"]).reshape(b, m, heads, dh)
        r = (jnp.asarray(distances, bf16) @ p[f"{l}r"]).reshape(-1, heads, dh)
        content = jnp.einsum("bihd,bjhd->bhij", q + p[f"{l}content_b"], keys)
        position = jnp.einsum("bihd,rhd->bhir", q + p[f"{l}position_b"], r)
        shift = (length - 1) - where[:, :, None] + jnp.arange(length)[None, None, :]
        position = jnp.take_along_axis(position, shift[:, None], 3)
        logits = (content + position).astype(f32) / math.sqrt(dh)
        logits = jnp.where(allowed[:, None], logits, -1e9)
        weights = jax.nn.softmax(logits, -1).astype(bf16)
        att = jnp.einsum("bhij,bjhd->bihd", weights, values).reshape(b, m, width)
        return att @ p[f"{l}o"]

    def finish(p, l, stream, att):
        x = _layer_norm(stream + att, p[f"{l}n1_g"], p[f"{l}n1_b"])
        y = jax.nn.gelu(x @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"] + p[f"{l}f2_b"]
        return _layer_norm(x + y, p[f"{l}n2_g"], p[f"{l}n2_b"])

    def loss_fn(p, tokens, rank, targets):
        b = tokens.shape[0]
        h = p["embed"][tokens]
        g = jnp.broadcast_to(p["query"], (b, predict, width))
        positions = jnp.broadcast_to(jnp.arange(length), (b, length))
        target_rank = jnp.take_along_axis(rank, targets, 1)
        sees = rank[:, None, :] <= rank[:, :, None]
        before = rank[:, None, :] < target_rank[:, :, None]
        for l in range(layers):
            keys = (h @ p[f"{l}k"]).reshape(b, length, heads, dh)
            values = (h @ p[f"{l}v"]).reshape(b, length, heads, dh)
            h_att = attend(p, l, h, positions, keys, values, sees)
            g_att = attend(p, l, g, targets, keys, values, before)
            h, g = finish(p, l, h, h_att), finish(p, l, g, g_att)
        logits = g @ p["embed"].T + p["out_b"]
        return _cross_entropy(logits, jnp.take_along_axis(tokens, targets, 1))

    rng = np.random.default_rng(2)
    book = [rng.integers(4, vocab, int(rng.integers(3, 9))) for _ in range(200)]
    tokens = np.zeros((batch, length), np.int64)
    rank = np.zeros((batch, length), np.int64)
    targets = np.zeros((batch, predict), np.int64)
    for i in range(batch):
        used: list[Any] = []
        row: list[int] = [1]
        while len(row) < length:
            if used and rng.uniform() < 0.25:
                phrase = used[int(rng.integers(len(used)))]
            else:
                phrase = book[int(rng.integers(len(book)))]
                used.append(phrase)
            row.extend([int(t) for t in phrase] + [2])
        tokens[i] = row[:length]
        order = rng.permutation(length)
        rank[i, order] = np.arange(length)
        targets[i] = np.sort(order[-predict:])
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("lans", loss_fn, p, i32(tokens), i32(rank), i32(targets))


def dien_ctr(batch: int = 256, steps: int = 50, items: int = 20000, categories: int = 400,
             users: int = 5000, embed: int = 18, mlp: tuple[int, ...] = (200, 80),
             aux: tuple[int, ...] = (100, 50), aux_weight: float = 1.0) -> Any:
    """Click-through prediction by the Deep Interest Evolution Network (DIEN; Zhou et al.)
    over histories of up to 50 behaviours. Items and their categories are looked up in
    embedding tables of 20 000 and 400 rows (18 wide each) and users in one of 5000 rows.
    An interest extractor GRU runs over the behaviour sequence in a `lax.scan`, holding
    its state past each history's end; an auxiliary network (a small MLP over the hidden
    state and the next behaviour) learns to tell every next behaviour from a sampled
    negative item. Attention scores of each hidden state against the target item
    (a bilinear form, softmax over the valid steps) steer an interest evolving GRU with an
    attentional update gate (AUGRU: the update gate scaled by the attention) in a second
    `lax.scan`. Its final state, the user, the target, the summed behaviours and their
    product with the target feed an MLP of 200 and 80 units with Dice activations (a
    sigmoid gate of the batch-normalized input) and a two-way softmax under cross-entropy
    plus the auxiliary logistic loss. AdaGrad with L1-regularized dual averaging."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    e2 = 2 * embed
    hidden = e2
    shapes: dict[str, tuple[int, ...]] = {
        "items": (items, embed), "cats": (categories, embed), "users": (users, embed),
        "gru_x": (e2, 3 * hidden), "gru_x_b": (3 * hidden,), "gru_h": (hidden, 3 * hidden),
        "gru_h_b": (3 * hidden,), "att": (hidden, e2),
        "aug_x": (hidden, 3 * hidden), "aug_x_b": (3 * hidden,), "aug_h": (hidden, 3 * hidden),
        "aug_h_b": (3 * hidden,)}
    width = hidden + e2
    for i, units in enumerate(aux):
        shapes.update({f"aux{i}": (width, units), f"aux{i}_b": (units,)})
        width = units
    shapes.update({"aux_out": (width, 1), "aux_out_b": (1,)})
    width = embed + e2 + hidden + e2 + e2
    for i, units in enumerate(mlp):
        shapes.update({f"fc{i}": (width, units), f"fc{i}_b": (units,), f"dice{i}": (units,)})
        width = units
    shapes.update({"fc_out": (width, 2), "fc_out_b": (2,)})
    p = _params(shapes, seed=3)

    def gates(x, h, wx, bx, wh, bh):
        gx = x @ wx + bx
        gh = h @ wh + bh
        r = jax.nn.sigmoid(gx[:, :hidden] + gh[:, :hidden])
        u = jax.nn.sigmoid(gx[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
        candidate = jnp.tanh(gx[:, 2 * hidden:] + r * gh[:, 2 * hidden:])
        return u, candidate

    def dice(x, alpha):
        gate = jax.nn.sigmoid(_layer_norm(x, jnp.ones(()), jnp.zeros(()), (0,)))
        return gate * x + (1.0 - gate) * alpha * x

    def behaviour(p, item, cat):
        return jnp.concatenate([p["items"][item], p["cats"][cat]], -1)

    def loss_fn(p, user, item_seq, cat_seq, neg_item, neg_cat, length, target_item,
                target_cat, clicked):
        b, t = item_seq.shape
        seq = behaviour(p, item_seq, cat_seq)
        negatives = behaviour(p, neg_item, neg_cat)
        target = behaviour(p, target_item, target_cat)
        valid = (jnp.arange(t)[None, :] < length[:, None]).astype(jnp.float32)

        def extract(h, inputs):
            x, keep = inputs
            u, candidate = gates(x, h, p["gru_x"], p["gru_x_b"], p["gru_h"], p["gru_h_b"])
            h = jnp.where(keep[:, None] > 0, (1.0 - u) * h + u * candidate, h)
            return h, h

        _, states = lax.scan(extract, jnp.zeros((b, hidden)),
                             (jnp.swapaxes(seq, 0, 1), valid.T))
        states = jnp.swapaxes(states, 0, 1)

        def auxiliary(h, e):
            x = jnp.concatenate([h, e], -1)
            for i in range(len(aux)):
                x = jax.nn.sigmoid(x @ p[f"aux{i}"] + p[f"aux{i}_b"])
            return (x @ p["aux_out"] + p["aux_out_b"])[..., 0]

        pairs = valid[:, 1:]
        positive = auxiliary(states[:, :-1], seq[:, 1:])
        negative = auxiliary(states[:, :-1], negatives[:, 1:])
        aux_loss = jnp.sum((jax.nn.softplus(-positive) + jax.nn.softplus(negative)) * pairs)
        aux_loss = aux_loss / jnp.sum(pairs)

        scores = jnp.einsum("bth,he,be->bt", states, p["att"], target)
        attention = jax.nn.softmax(jnp.where(valid > 0, scores, -1e9), -1) * valid

        def evolve(h, inputs):
            x, a, keep = inputs
            u, candidate = gates(x, h, p["aug_x"], p["aug_x_b"], p["aug_h"], p["aug_h_b"])
            u = a[:, None] * u
            h = jnp.where(keep[:, None] > 0, (1.0 - u) * h + u * candidate, h)
            return h, None

        interest, _ = lax.scan(evolve, jnp.zeros((b, hidden)),
                               (jnp.swapaxes(states, 0, 1), attention.T, valid.T))
        pooled = jnp.sum(seq * valid[..., None], 1)
        x = jnp.concatenate([p["users"][user], target, interest, pooled, pooled * target], -1)
        for i in range(len(mlp)):
            x = dice(x @ p[f"fc{i}"] + p[f"fc{i}_b"], p[f"dice{i}"])
        logits = x @ p["fc_out"] + p["fc_out_b"]
        return _cross_entropy(logits, clicked) + aux_weight * aux_loss

    rng = np.random.default_rng(3)
    item_cat = rng.integers(0, categories, items)
    by_cat = [np.flatnonzero(item_cat == c) for c in range(categories)]
    by_cat = [c if len(c) else np.arange(1) for c in by_cat]
    user = rng.integers(0, users, batch)
    length = rng.integers(8, steps + 1, batch)
    item_seq = np.zeros((batch, steps), np.int64)
    target_item = np.zeros(batch, np.int64)
    clicked = rng.integers(0, 2, batch)
    for i in range(batch):
        liked = rng.choice(categories, 4, replace=False)
        drift = np.sort(rng.choice(liked, length[i]))
        for s in range(length[i]):
            pool = by_cat[drift[s]]
            item_seq[i, s] = pool[int(rng.integers(len(pool)))]
        if clicked[i]:
            pool = by_cat[drift[-1]]
            target_item[i] = pool[int(rng.integers(len(pool)))]
        else:
            target_item[i] = int(rng.integers(items))
    neg_item = rng.integers(0, items, (batch, steps))
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("adagrad_rda", loss_fn, p, i32(user), i32(item_seq), i32(item_cat[item_seq]),
                  i32(neg_item), i32(item_cat[neg_item]), i32(length), i32(target_item),
                  i32(item_cat[target_item]), i32(clicked))


def graph_unet_nodes(graphs: int = 4, nodes: int = 512, features: int = 32, width: int = 64,
                     communities: int = 8, keep: tuple[int, ...] = (384, 256, 128),
                     degree: float = 12.0) -> Any:
    """Node classification by Graph U-Nets (Gao and Ji) on four stochastic-block-model
    graphs of 512 nodes in eight communities (dense adjacency, about twelve neighbours per
    node, a fifth of them across communities), the features a faint community signature
    under heavy noise. GCN layers multiply by the symmetrically normalized adjacency with
    self-loops (a dense batched product) and apply ELU. After an input layer of 64, three
    levels each run a GCN layer and a gPool that keeps 384, 256 and 128 nodes, chosen by
    `top_k` over a learned projection, their features gathered and gated by the tanh of
    their scores and their adjacency taken from the two-hop graph (the boolean square of
    the adjacency with self-loops, gathered by rows and by columns). After a bottom GCN
    layer, three gUnpool levels scatter the features back into the nodes they came from
    and add the skip connection before another GCN layer, and a last GCN layer scores the
    communities under cross-entropy over all nodes. AvaGrad."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    depth = len(keep)
    shapes: dict[str, tuple[int, ...]] = {"in": (features, width), "in_b": (width,)}
    for l in range(depth):
        shapes.update({f"down{l}": (width, width), f"down{l}_b": (width,),
                       f"score{l}": (width,), f"up{l}": (width, width), f"up{l}_b": (width,)})
    shapes.update({"bottom": (width, width), "bottom_b": (width,), "out": (width, communities),
                   "out_b": (communities,)})
    p = _params(shapes, seed=4)

    def normalize(a):
        a = a + jnp.eye(a.shape[-1])
        inv = 1.0 / jnp.sqrt(jnp.sum(a, -1))
        return a * inv[..., :, None] * inv[..., None, :]

    def gcn(adjacency, x, w, b, act=True):
        y = jnp.einsum("gij,gjd->gid", adjacency, x) @ w + b
        return jax.nn.elu(y) if act else y

    def loss_fn(p, adjacency, x, labels):
        a = adjacency
        norm_a = normalize(a)
        h = gcn(norm_a, x, p["in"], p["in_b"])
        skips = []
        for l, k in enumerate(keep):
            h = gcn(norm_a, h, p[f"down{l}"], p[f"down{l}_b"])
            direction = p[f"score{l}"]
            score = h @ direction / jnp.sqrt(jnp.sum(direction * direction))
            top, index = jax.lax.top_k(score, k)
            skips.append((h, norm_a, index))
            h = jnp.take_along_axis(h, index[..., None], 1) * jnp.tanh(top)[..., None]
            looped = a + jnp.eye(a.shape[-1])
            two_hop = (jnp.einsum("gij,gjk->gik", looped, looped) > 0).astype(jnp.float32)
            two_hop = jnp.take_along_axis(two_hop, index[:, :, None], 1)
            a = jnp.take_along_axis(two_hop, index[:, None, :], 2) * (1.0 - jnp.eye(k))
            norm_a = normalize(a)
        h = gcn(norm_a, h, p["bottom"], p["bottom_b"])
        for l in reversed(range(depth)):
            skip, norm_a, index = skips[l]
            g = jnp.arange(h.shape[0])[:, None]
            h = jnp.zeros_like(skip).at[g, index].set(h) + skip
            h = gcn(norm_a, h, p[f"up{l}"], p[f"up{l}_b"])
        logits = gcn(norm_a, h, p["out"], p["out_b"], act=False)
        return _cross_entropy(logits, labels)

    rng = np.random.default_rng(4)
    labels = rng.integers(0, communities, (graphs, nodes))
    same = labels[:, :, None] == labels[:, None, :]
    p_in = 0.8 * degree / (nodes / communities)
    p_out = 0.2 * degree / (nodes - nodes / communities)
    upper = rng.uniform(size=(graphs, nodes, nodes)) < np.where(same, p_in, p_out)
    upper = np.triu(upper, 1)
    adjacency = (upper | upper.transpose(0, 2, 1)).astype(np.float32)
    signature = rng.standard_normal((communities, features))
    x = 0.6 * signature[labels] + rng.standard_normal((graphs, nodes, features))
    return _train("avagrad", loss_fn, p, jnp.asarray(adjacency), jnp.asarray(x, jnp.float32),
                  jnp.asarray(labels, jnp.int32))


def wgan_gp_glyphs(batch: int = 16, side: int = 32, latent: int = 64,
                   widths: tuple[int, ...] = (128, 64, 32), critic: tuple[int, ...] = (32, 64, 128),
                   penalty: float = 10.0, drift: float = 1e-3) -> Any:
    """A Wasserstein GAN with gradient penalty (WGAN-GP; Gulrajani et al.) on 32x32 colour
    pictures of soft discs, rings and bars over shaded backgrounds. The generator maps 64
    Gaussian latents by a dense layer to 4x4x128 and three stride-2 4x4 transposed
    convolutions (batch norm and ReLU, tanh last) to 32x32; the critic has three stride-2
    4x4 convolutions of 32, 64 and 128 channels with layer norm over each map and leaky
    ReLU, and a linear score. One step trains the critic, then the generator: the
    critic's loss is the score of fresh fakes less that of real pictures, plus ten times
    the squared deviation from one of the norm of the critic's input gradient at random
    interpolates between real and fake pictures (a gradient inside the loss, so the
    backward pass differentiates the critic's convolutions twice), plus a small drift
    term; the generator's is minus the updated critic's score of new fakes. Latents and
    interpolation weights come from `jax.random` in the step; each network keeps its own
    optimizer state. Tiger."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    base = side // 8
    gen_shapes: dict[str, tuple[int, ...]] = {"dense": (latent, base * base * widths[0]),
                                              "dense_g": (widths[0],), "dense_b": (widths[0],)}
    cin = widths[0]
    for i, c in enumerate(widths[1:] + (3,)):
        gen_shapes[f"up{i}"] = (4, 4, cin, c)
        if c != 3:
            gen_shapes.update({f"up{i}_g": (c,), f"up{i}_b": (c,)})
        cin = c
    gen_shapes["up2_b"] = (3,)
    critic_shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for i, c in enumerate(critic):
        critic_shapes.update({f"c{i}": (4, 4, cin, c), f"c{i}_b": (c,)})
        if i:
            critic_shapes.update({f"c{i}n_g": (c,), f"c{i}n_b": (c,)})
        cin = c
    critic_shapes.update({"score": (base * base * cin, 1), "score_b": (1,)})
    gen = _params(gen_shapes, seed=5)
    crit = _params(critic_shapes, seed=6)
    init, update = _update_rule("tiger")

    def generate(p, z):
        x = (z @ p["dense"]).reshape(z.shape[0], base, base, widths[0])
        x = jax.nn.relu(_batch_norm(x, p["dense_g"], p["dense_b"]))
        for i in range(len(widths)):
            x = lax.conv_transpose(x, p[f"up{i}"], (2, 2), "SAME", dimension_numbers=_NHWC)
            if i < len(widths) - 1:
                x = jax.nn.relu(_batch_norm(x, p[f"up{i}_g"], p[f"up{i}_b"]))
        return jnp.tanh(x + p["up2_b"])

    def criticize(p, x):
        for i in range(len(critic)):
            x = _conv(x, p[f"c{i}"], 2) + p[f"c{i}_b"]
            if i:
                x = _layer_norm(x, p[f"c{i}n_g"], p[f"c{i}n_b"], (1, 2, 3))
            x = jax.nn.leaky_relu(x, 0.2)
        return (x.reshape(x.shape[0], -1) @ p["score"] + p["score_b"])[:, 0]

    def step(gen, crit, gen_state, crit_state, real, key):
        k_fake, k_mix, k_gen = jax.random.split(key, 3)
        b = real.shape[0]
        fake = lax.stop_gradient(generate(gen, jax.random.normal(k_fake, (b, latent))))
        mix = jax.random.uniform(k_mix, (b, 1, 1, 1))
        between = mix * real + (1.0 - mix) * fake

        def critic_loss(c):
            slope = jax.grad(lambda x: jnp.sum(criticize(c, x)))(between)
            size = jnp.sqrt(jnp.sum(jnp.square(slope), (1, 2, 3)) + 1e-12)
            real_score = criticize(c, real)
            gap = jnp.mean(criticize(c, fake)) - jnp.mean(real_score)
            return gap + penalty * jnp.mean(jnp.square(size - 1.0)) \
                + drift * jnp.mean(jnp.square(real_score))

        c_loss, c_grads = jax.value_and_grad(critic_loss)(crit)
        crit, crit_state = update(crit, c_grads, crit_state, c_loss)

        def gen_loss(g):
            return -jnp.mean(criticize(crit, generate(g, jax.random.normal(k_gen, (b, latent)))))

        g_loss, g_grads = jax.value_and_grad(gen_loss)(gen)
        gen, gen_state = update(gen, g_grads, gen_state, g_loss)
        return gen, crit, gen_state, crit_state, c_loss, g_loss

    rng = np.random.default_rng(5)
    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    pictures = np.zeros((batch, side, side, 3), np.float32)
    for i in range(batch):
        angle = rng.uniform(0, 2 * np.pi)
        shade = 0.5 + 0.3 * (np.cos(angle) * xx + np.sin(angle) * yy)
        picture = shade[..., None] * rng.uniform(0.2, 0.8, 3)
        for _ in range(int(rng.integers(1, 4))):
            cx, cy, r = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8), rng.uniform(0.08, 0.25)
            dist = np.hypot(xx - cx, yy - cy)
            kind = int(rng.integers(3))
            if kind == 0:
                alpha = 1.0 / (1.0 + np.exp((dist - r) * 40))
            elif kind == 1:
                alpha = np.exp(-((dist - r) / 0.03) ** 2)
            else:
                alpha = 1.0 / (1.0 + np.exp((np.abs(xx - cx) - 0.05) * 60)) * (np.abs(yy - cy) < r)
            colour = rng.uniform(0, 1, 3)
            picture = picture * (1 - alpha[..., None]) + alpha[..., None] * colour
        pictures[i] = picture * 2 - 1
    return jax.jit(step).lower(gen, crit, jax.eval_shape(init, gen), jax.eval_shape(init, crit),
                               jnp.asarray(pictures), jax.random.PRNGKey(5))


def barlow_twins_pretrain(batch: int = 24, source: int = 40, side: int = 32,
                          widths: tuple[int, ...] = (16, 32, 64, 128), projector: int = 1024,
                          redundancy: float = 5e-3) -> Any:
    """Self-supervised pretraining by Barlow Twins (Zbontar, Jing, Misra, LeCun and
    Deny) on 24 unlabelled 40x40 pictures of plaid textures. Two views of every picture are
    made inside the step: a random box per view (scale and aspect drawn by `jax.random`) is
    resampled to 32x32 by bilinear interpolation (gathers of the four neighbouring
    pixels), mirrored with probability one half, and jittered in brightness, contrast
    and saturation. A small ResNet (a 3x3 stem and four stages of one basic block of two
    3x3 convolutions with batch norm, 16 to 128 channels, strided 1x1 projections) and
    global pooling feed a projector of three fully connected layers of 1024 (batch norm
    and ReLU between them); the embeddings of each view are standardized over the batch,
    and the loss drives their 1024x1024 cross-correlation matrix to the identity: the
    squared distance of the diagonal from one plus 0.005 times the squared off-diagonal
    entries. SAdam."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],),
                                          "stem_b": (widths[0],)}
    cin = widths[0]
    for s, c in enumerate(widths):
        shapes.update({f"s{s}a": (3, 3, cin, c), f"s{s}a_g": (c,), f"s{s}a_b": (c,),
                       f"s{s}b": (3, 3, c, c), f"s{s}b_g": (c,), f"s{s}b_b": (c,)})
        if s:
            shapes.update({f"s{s}skip": (1, 1, cin, c), f"s{s}skip_g": (c,),
                           f"s{s}skip_b": (c,)})
        cin = c
    width = cin
    for i in range(3):
        shapes[f"proj{i}"] = (width, projector)
        if i < 2:
            shapes.update({f"proj{i}_g": (projector,), f"proj{i}_b": (projector,)})
        width = projector
    p = _params(shapes, seed=7, scale=1.4)
    relu = jax.nn.relu

    def bn(p, k, x):
        return _batch_norm(x, p[f"{k}_g"], p[f"{k}_b"])

    def embed(p, x):
        x = relu(bn(p, "stem", _conv(x, p["stem"])))
        for s in range(len(widths)):
            stride = 2 if s else 1
            y = relu(bn(p, f"s{s}a", _conv(x, p[f"s{s}a"], stride)))
            y = bn(p, f"s{s}b", _conv(y, p[f"s{s}b"]))
            skip = bn(p, f"s{s}skip", _conv(x, p[f"s{s}skip"], stride)) if s else x
            x = relu(y + skip)
        x = jnp.mean(x, (1, 2))
        for i in range(3):
            x = x @ p[f"proj{i}"]
            if i < 2:
                x = relu(_batch_norm(x, p[f"proj{i}_g"], p[f"proj{i}_b"]))
        return x

    def view(key, pictures):
        b = pictures.shape[0]
        k_scale, k_aspect, k_place, k_flip, k_colour = jax.random.split(key, 5)
        area = jax.random.uniform(k_scale, (b,), minval=0.3, maxval=1.0)
        aspect = jnp.exp(jax.random.uniform(k_aspect, (b,), minval=-0.3, maxval=0.3))
        h = jnp.minimum(jnp.sqrt(area * aspect), 1.0) * source
        w = jnp.minimum(jnp.sqrt(area / aspect), 1.0) * source
        corner = jax.random.uniform(k_place, (b, 2)) * jnp.stack([source - h, source - w], -1)
        steps = (jnp.arange(side) + 0.5) / side
        ys = corner[:, :1] + steps * h[:, None] - 0.5
        xs = corner[:, 1:] + steps * w[:, None] - 0.5
        flip = jax.random.bernoulli(k_flip, 0.5, (b, 1))
        xs = jnp.where(flip, xs[:, ::-1], xs)

        def split(v):
            v = jnp.clip(v, 0.0, source - 1.0)
            low = jnp.floor(v)
            top = low.astype(jnp.int32)
            return top, jnp.minimum(top + 1, source - 1), (v - low)

        y0, y1, fy = split(ys)
        x0, x1, fx = split(xs)
        flat = pictures.reshape(b, source * source, 3)

        def take(rows, cols):
            index = (rows[:, :, None] * source + cols[:, None, :]).reshape(b, -1)
            return jnp.take_along_axis(flat, index[..., None], 1).reshape(b, side, side, 3)

        fx_, fy_ = fx[:, None, :, None], fy[:, :, None, None]
        out = ((take(y0, x0) * (1 - fx_) + take(y0, x1) * fx_) * (1 - fy_)
               + (take(y1, x0) * (1 - fx_) + take(y1, x1) * fx_) * fy_)
        jitter = jax.random.uniform(k_colour, (b, 3), minval=0.6, maxval=1.4)
        grey = jnp.mean(out, -1, keepdims=True)
        mean = jnp.mean(out, (1, 2, 3), keepdims=True)
        out = grey + (out - grey) * jitter[:, None, None, 2:3]
        out = mean + (out - mean) * jitter[:, None, None, 1:2]
        return out * jitter[:, None, None, 0:1]

    def loss_fn(p, pictures, key):
        k1, k2 = jax.random.split(key)
        z1, z2 = embed(p, view(k1, pictures)), embed(p, view(k2, pictures))

        def standard(z):
            return (z - z.mean(0)) / (z.std(0) + 1e-5)

        c = standard(z1).T @ standard(z2) / z1.shape[0]
        diagonal = jnp.diagonal(c)
        invariance = jnp.sum(jnp.square(1.0 - diagonal))
        redundant = jnp.sum(jnp.square(c)) - jnp.sum(jnp.square(diagonal))
        return invariance + redundancy * redundant

    rng = np.random.default_rng(7)
    pictures, _ = _texture_pictures(rng, batch, source, 12)
    return _train("sadam", loss_fn, p, jnp.asarray(pictures), jax.random.PRNGKey(7))


def patchtst_forecaster(batch: int = 12, channels: int = 7, lookback: int = 336,
                        horizon: int = 96, patch: int = 16, stride: int = 8, width: int = 64,
                        heads: int = 4, layers: int = 3, hidden: int = 128) -> Any:
    """Long-horizon forecasting by PatchTST (Nie, Nguyen, Sinthong and Kalagnanam): 96
    steps ahead from 336 of seven coupled hourly series (daily and weekly cycles, trends,
    level shifts and noise). Every channel is forecast on its own (channel independence:
    the channels fold into the batch) after reversible instance normalization (its mean
    and deviation removed, a learned affine per channel, undone at the output). The
    window, padded by repeating its last value, is cut into 42 overlapping patches of 16
    with stride 8 (two shifted reshapes concatenated), embedded linearly with learned
    positions, and passed through three transformer encoder layers with batch norm in
    place of layer norm and residual attention (every layer's pre-softmax scores added
    to the next one's); a flattening head maps all patch embeddings to the horizon, under
    mean squared error. ALI-G."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    count = (lookback + stride - patch) // stride + 1
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"rev_g": (channels,), "rev_b": (channels,),
                                          "embed": (patch, width), "embed_b": (width,),
                                          "position": (count, width)}
    for l in range(layers):
        shapes.update({f"{l}qkv": (width, 3 * width), f"{l}qkv_b": (3 * width,),
                       f"{l}o": (width, width), f"{l}o_b": (width,), f"{l}n1_g": (width,),
                       f"{l}n1_b": (width,), f"{l}f1": (width, hidden), f"{l}f1_b": (hidden,),
                       f"{l}f2": (hidden, width), f"{l}f2_b": (width,), f"{l}n2_g": (width,),
                       f"{l}n2_b": (width,)})
    shapes.update({"head": (count * width, horizon), "head_b": (horizon,)})
    p = _params(shapes, seed=8)

    def loss_fn(p, history, future):
        b = history.shape[0]
        mean = history.mean(1, keepdims=True)
        std = jnp.sqrt(history.var(1, keepdims=True) + 1e-5)
        x = (history - mean) / std * p["rev_g"] + p["rev_b"]
        series = jnp.swapaxes(x, 1, 2).reshape(b * channels, lookback)
        series = jnp.concatenate([series, jnp.repeat(series[:, -1:], stride, 1)], 1)
        chunks = series.reshape(b * channels, -1, stride)
        patches = jnp.concatenate([chunks[:, :-1], chunks[:, 1:]], -1)[:, :count]
        h = patches @ p["embed"] + p["embed_b"] + p["position"]
        n = h.shape[0]
        scores = None
        for l in range(layers):
            qkv = (h @ p[f"{l}qkv"] + p[f"{l}qkv_b"]).reshape(n, count, 3 * heads, dh)
            q, k, v = jnp.split(qkv, 3, 2)
            logits = jnp.einsum("nihd,njhd->nhij", q, k) / math.sqrt(dh)
            scores = logits if scores is None else logits + scores
            att = jnp.einsum("nhij,njhd->nihd", jax.nn.softmax(scores, -1), v)
            h = h + att.reshape(n, count, width) @ p[f"{l}o"] + p[f"{l}o_b"]
            h = _layer_norm(h, p[f"{l}n1_g"], p[f"{l}n1_b"], (0, 1))
            h = h + jax.nn.gelu(h @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"] + p[f"{l}f2_b"]
            h = _layer_norm(h, p[f"{l}n2_g"], p[f"{l}n2_b"], (0, 1))
        forecast = h.reshape(n, count * width) @ p["head"] + p["head_b"]
        forecast = jnp.swapaxes(forecast.reshape(b, channels, horizon), 1, 2)
        forecast = (forecast - p["rev_b"]) / (p["rev_g"] + 1e-5) * std + mean
        return jnp.mean(jnp.square(forecast - future))

    rng = np.random.default_rng(8)
    total = 24 * 7 * 40
    t = np.arange(total)
    mixing = rng.uniform(-0.5, 0.5, (channels, channels)) + np.eye(channels)
    base = []
    for _ in range(channels):
        daily = rng.uniform(0.5, 2.0) * np.sin(2 * np.pi * t / 24 + rng.uniform(0, 6.3))
        weekly = rng.uniform(0.2, 1.0) * np.sin(2 * np.pi * t / 168 + rng.uniform(0, 6.3))
        trend = np.cumsum(rng.standard_normal(total)) * 0.02
        shifts = np.cumsum(np.where(rng.uniform(size=total) < 0.002, rng.normal(0, 1, total), 0))
        base.append(daily + weekly + trend + shifts + 0.3 * rng.standard_normal(total))
    series = (mixing @ np.stack(base)).T
    starts = rng.integers(0, total - lookback - horizon, batch)
    history = np.stack([series[s:s + lookback] for s in starts]).astype(np.float32)
    future = np.stack([series[s + lookback:s + lookback + horizon] for s in starts])
    return _train("alig", loss_fn, p, jnp.asarray(history), jnp.asarray(future, jnp.float32))


def lagrangian_pendulum(batch: int = 1024, width: int = 128, depth: int = 3) -> Any:
    """A Lagrangian neural network (Cranmer et al.) learns the dynamics of a double
    pendulum from 1024 sampled states and their true accelerations. An MLP of three
    softplus layers of 128 gives a scalar Lagrangian L(q, q'); the accelerations follow
    from the Euler-Lagrange equations, q'' = (d2L/dq'2)^-1 (dL/dq - d2L/dq dq' q'), with the
    Hessian blocks of every state from `jax.hessian` (forward over reverse), under `vmap`,
    and the 2x2 systems solved in closed form by their determinants (lightly damped). The
    loss is the mean squared error of the accelerations, so the backward pass
    differentiates third derivatives of the network. AdaSmooth."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    cin = 4
    for i in range(depth):
        shapes.update({f"w{i}": (cin, width), f"w{i}_b": (width,)})
        cin = width
    shapes.update({"out": (cin, 1), "out_b": (1,)})
    p = _params(shapes, seed=9)

    def lagrangian(p, q, qd):
        x = jnp.concatenate([q, qd])
        for i in range(depth):
            x = jax.nn.softplus(x @ p[f"w{i}"] + p[f"w{i}_b"])
        return (x @ p["out"] + p["out_b"])[0]

    def acceleration(p, q, qd):
        state = jnp.concatenate([q, qd])
        full = jax.hessian(lambda s: lagrangian(p, s[:2], s[2:]))(state)
        force = jax.grad(lagrangian, 1)(p, q, qd)
        mass = full[2:, 2:] + 1e-3 * jnp.eye(2)
        mixed = full[2:, :2]
        rhs = force - mixed @ qd
        det = mass[0, 0] * mass[1, 1] - mass[0, 1] * mass[1, 0]
        inverse = jnp.stack([jnp.stack([mass[1, 1], -mass[0, 1]]),
                             jnp.stack([-mass[1, 0], mass[0, 0]])]) / det
        return inverse @ rhs

    def loss_fn(p, q, qd, target):
        predicted = jax.vmap(acceleration, (None, 0, 0))(p, q, qd)
        return jnp.mean(jnp.square(predicted - target))

    rng = np.random.default_rng(9)
    q = rng.uniform(-np.pi, np.pi, (batch, 2))
    qd = rng.uniform(-2, 2, (batch, 2))
    t1, t2 = q[:, 0], q[:, 1]
    w1, w2 = qd[:, 0], qd[:, 1]
    g, delta = 9.8, t1 - t2
    den = 3 - np.cos(2 * delta)
    a1 = (-g * 3 * np.sin(t1) - g * np.sin(t1 - 2 * t2)
          - 2 * np.sin(delta) * (w2 ** 2 + w1 ** 2 * np.cos(delta))) / den
    a2 = (2 * np.sin(delta) * (2 * w1 ** 2 + 2 * g * np.cos(t1) + w2 ** 2 * np.cos(delta))) / den
    target = np.stack([a1, a2], -1)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("adasmooth", loss_fn, p, f32(q), f32(qd), f32(target))


def gfnet_classifier(batch: int = 16, side: int = 32, patch: int = 2, width: int = 48,
                     layers: int = 4, ratio: int = 4, classes: int = 10, every: int = 5,
                     rho: float = 0.05, alpha: float = 0.7) -> Any:
    """Image classification by a Global Filter Network (GFNet; Rao, Zhao, Zhu, Lu and Zhou)
    on 32x32 plaid textures of ten kinds: a 2x2 patch embedding gives a 16x16 grid of 48
    channels with learned positions, and four blocks each replace self-attention by a
    global filter (a real 2-D FFT over the grid, a product with a learned complex filter
    per frequency and channel, an inverse real FFT) between layer norms, followed by a GELU
    MLP of four times the width; layer norm, global pooling and a linear classifier under
    cross-entropy. The update is LookSAM (Liu, Mai, Chen, Hsieh and You) over momentum SGD:
    every fifth step, under `lax.cond`, a sharpness-aware gradient is taken at the
    weights moved up the gradient (a second backward pass) and the part of it orthogonal
    to the plain gradient is kept; on the other steps that kept direction, rescaled to the
    current gradient's norm, is added to the plain gradient."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    grid = side // patch
    shapes: dict[str, tuple[int, ...]] = {"embed": (patch, patch, 3, width),
                                          "embed_b": (width,), "position": (grid, grid, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,),
                       f"{l}filter": (grid, grid // 2 + 1, width, 2), f"{l}n2_g": (width,),
                       f"{l}n2_b": (width,), f"{l}f1": (width, ratio * width),
                       f"{l}f1_b": (ratio * width,), f"{l}f2": (ratio * width, width),
                       f"{l}f2_b": (width,)})
    shapes.update({"norm_g": (width,), "norm_b": (width,), "head": (width, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=10)
    for l in range(layers):
        p[f"{l}filter"] = p[f"{l}filter"] * 0.02 + jnp.asarray([1.0, 0.0])

    def loss_fn(p, pictures, labels):
        x = _conv(pictures, p["embed"], patch, "VALID") + p["embed_b"] + p["position"]
        for l in range(layers):
            h = _layer_norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
            weight = p[f"{l}filter"]
            spectrum = jnp.fft.rfft2(h, axes=(1, 2)) * lax.complex(weight[..., 0], weight[..., 1])
            h = jnp.fft.irfft2(spectrum, s=(grid, grid), axes=(1, 2))
            h = _layer_norm(h, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"] + p[f"{l}f2_b"]
        pooled = jnp.mean(_layer_norm(x, p["norm_g"], p["norm_b"]), (1, 2))
        return _cross_entropy(pooled @ p["head"] + p["head_b"], labels)

    rate, momentum, decay = 0.05, 0.9, 5e-4
    tm = jax.tree.map

    def dot(a, b):
        return sum(jnp.sum(x * y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))

    def step(params, velocity, kept, t, pictures, labels):
        loss, g = jax.value_and_grad(loss_fn)(params, pictures, labels)
        size = jnp.sqrt(dot(g, g)) + 1e-12

        def sharp(kept):
            moved = tm(lambda w, g_: w + rho * g_ / size, params, g)
            gs = jax.grad(loss_fn)(moved, pictures, labels)
            along = dot(gs, g) / (size * size)
            return gs, tm(lambda a, b: a - along * b, gs, g)

        def reuse(kept):
            scale = alpha * size / (jnp.sqrt(dot(kept, kept)) + 1e-12)
            return tm(lambda g_, v: g_ + scale * v, g, kept), kept

        direction, kept = lax.cond(t % every == 0, sharp, reuse, kept)
        velocity = tm(lambda v, d, w: momentum * v + d + decay * w, velocity, direction, params)
        params = tm(lambda w, v: w - rate * v, params, velocity)
        return params, velocity, kept, t + 1, loss

    rng = np.random.default_rng(10)
    pictures, labels = _texture_pictures(rng, batch, side, classes)
    zeros = jax.tree.map(jnp.zeros_like, p)
    return jax.jit(step).lower(p, zeros, zeros, jnp.int32(0), jnp.asarray(pictures),
                               jnp.asarray(labels, jnp.int32))


def dit_denoiser(batch: int = 16, side: int = 32, patch: int = 4, width: int = 128,
                 heads: int = 4, layers: int = 4, classes: int = 10, steps: int = 1000,
                 drop: float = 0.1, frequencies: int = 128) -> Any:
    """A class-conditional diffusion transformer (DiT; Peebles and Xie) in bfloat16 with
    adaLN-Zero conditioning, trained on 32x32 pictures of ten classes of coloured plaids
    to predict the noise added at a random step of a cosine schedule of 1000 steps. The
    picture is cut into 64 patches of 4x4, embedded with fixed 2-D sinusoidal positions;
    the step is embedded by sinusoids and a SiLU MLP, the class by a table with an extra
    null class that replaces one label in ten (classifier-free guidance dropout), and
    their sum conditions four pre-norm transformer blocks of width 128 (four heads, MLP
    of 512): from it every block regresses a shift, scale and gate for its attention and
    for its MLP, the regression zero-initialized so that each block starts as the
    identity; a final adaptive layer norm and a zero-initialized linear layer unpatchify
    the prediction, under mean squared error in float32. Steps, noise and label dropout
    come from `jax.random` in the step. AdaLomo."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    grid = side // patch
    tokens = grid * grid
    dh = width // heads
    hidden = 4 * width
    shapes: dict[str, tuple[int, ...]] = {
        "patch": (patch * patch * 3, width), "patch_b": (width,), "t1": (frequencies, width),
        "t1_b": (width,), "t2": (width, width), "t2_b": (width,), "labels": (classes + 1, width)}
    for l in range(layers):
        shapes.update({f"{l}ada_z": (width, 6 * width), f"{l}ada_b": (6 * width,),
                       f"{l}qkv": (width, 3 * width), f"{l}qkv_b": (3 * width,),
                       f"{l}o": (width, width), f"{l}o_b": (width,), f"{l}f1": (width, hidden),
                       f"{l}f1_b": (hidden,), f"{l}f2": (hidden, width), f"{l}f2_b": (width,)})
    shapes.update({"final_ada_z": (width, 2 * width), "final_ada_b": (2 * width,),
                   "final_z": (width, patch * patch * 3), "final_b": (patch * patch * 3,)})
    p = _params(shapes, seed=11, dtype=bf16)
    rows, cols = np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij")
    positions = np.concatenate([_sinusoids(rows.reshape(-1), width // 2),
                                _sinusoids(cols.reshape(-1), width // 2)], -1)
    one = jnp.ones((), f32)
    nothing = jnp.zeros((), f32)

    def modulate(x, shift, scale):
        return _layer_norm(x, one, nothing) * (1 + scale[:, None]) + shift[:, None]

    def loss_fn(p, pictures, labels, key):
        b = pictures.shape[0]
        k_time, k_noise, k_drop = jax.random.split(key, 3)
        t = jax.random.randint(k_time, (b,), 0, steps)
        level = jnp.cos((t / steps + 0.008) / 1.008 * math.pi / 2) ** 2
        noise = jax.random.normal(k_noise, pictures.shape)
        noisy = (jnp.sqrt(level)[:, None, None, None] * pictures
                 + jnp.sqrt(1 - level)[:, None, None, None] * noise)
        labels = jnp.where(jax.random.bernoulli(k_drop, drop, (b,)), classes, labels)
        x = noisy.reshape(b, grid, patch, grid, patch, 3).transpose(0, 1, 3, 2, 4, 5)
        x = x.reshape(b, tokens, patch * patch * 3).astype(bf16)
        x = x @ p["patch"] + p["patch_b"] + jnp.asarray(positions, bf16)
        freqs = jnp.exp(-math.log(10000.0) * jnp.arange(frequencies // 2) / (frequencies // 2))
        angles = t[:, None].astype(f32) * freqs
        embedded = jnp.concatenate([jnp.cos(angles), jnp.sin(angles)], -1).astype(bf16)
        c = jax.nn.silu(embedded @ p["t1"] + p["t1_b"]) @ p["t2"] + p["t2_b"]
        c = jax.nn.silu(c + p["labels"][labels])
        for l in range(layers):
            mods = jnp.split(c @ p[f"{l}ada_z"] + p[f"{l}ada_b"], 6, -1)
            shift1, scale1, gate1, shift2, scale2, gate2 = mods
            h = modulate(x, shift1, scale1)
            q, k, v = jnp.split((h @ p[f"{l}qkv"] + p[f"{l}qkv_b"]).reshape(b, tokens, 3 * heads,
                                                                             dh), 3, 2)
            logits = jnp.einsum("bihd,bjhd->bhij", q, k).astype(f32) / math.sqrt(dh)
            weights = jax.nn.softmax(logits, -1).astype(bf16)
            att = jnp.einsum("bhij,bjhd->bihd", weights, v).reshape(b, tokens, width)
            x = x + gate1[:, None] * (att @ p[f"{l}o"] + p[f"{l}o_b"])
            h = modulate(x, shift2, scale2)
            h = jax.nn.gelu(h @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"] + p[f"{l}f2_b"]
            x = x + gate2[:, None] * h
        shift, scale = jnp.split(c @ p["final_ada_z"] + p["final_ada_b"], 2, -1)
        out = modulate(x, shift, scale) @ p["final_z"] + p["final_b"]
        out = out.reshape(b, grid, grid, patch, patch, 3).transpose(0, 1, 3, 2, 4, 5)
        return jnp.mean(jnp.square(out.reshape(pictures.shape).astype(f32) - noise))

    rng = np.random.default_rng(11)
    pictures, labels = _texture_pictures(rng, batch, side, classes)
    pictures = np.tanh(0.6 * pictures)
    return _train("adalomo", loss_fn, p, jnp.asarray(pictures), jnp.asarray(labels, jnp.int32),
                  jax.random.PRNGKey(11))


def voronoi_stippling(images: int = 2, side: int = 256, seeds: int = 192, relax: int = 3) -> Any:
    """Weighted Voronoi stippling (Secord) of two 256x256 grey pictures by 192 stipples
    each, no gradient: three Lloyd relaxations in a `fori_loop`, each building the
    Voronoi diagram of the stipples by the jump flooding algorithm (Rong and Tan) and
    moving every stipple to the darkness-weighted centroid of its cell. A flood scatters
    each stipple's id into its pixel and runs nine passes in an inner `fori_loop` with
    offsets 128, 64, ..., 1 and a final 1: every pixel gathers the owners of its eight
    neighbours at the offset, gathers their stipple coordinates and keeps the nearest of
    them and its own. Cell masses and weighted centroids come from `segment_sum`s over all pixels.
    A last flood gives the final diagram; the distance to the nearest stipple, the cell
    boundaries, the cell areas and masses and the quantization energy come back with the
    stipples."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    offsets = [side >> k for k in range(1, int(math.log2(side)) + 1)] + [1]
    pixels = side * side

    def run(points, darkness):
        ys = jnp.arange(side, dtype=jnp.int32)[:, None]
        xs = jnp.arange(side, dtype=jnp.int32)[None, :]
        cy = ys.astype(jnp.float32) + 0.5
        cx = xs.astype(jnp.float32) + 0.5
        owner_of_image = (jnp.arange(images, dtype=jnp.int32) * seeds)[:, None, None]
        table = jnp.asarray(offsets, jnp.int32)

        def distance(owner, coords):
            where = coords[jnp.maximum(owner, 0)]
            d = jnp.square(where[..., 0] - cy) + jnp.square(where[..., 1] - cx)
            return jnp.where(owner >= 0, d, jnp.inf)

        def flood(points):
            coords = points.reshape(images * seeds, 2)
            cell = jnp.clip(jnp.floor(points).astype(jnp.int32), 0, side - 1)
            slot = (jnp.arange(images)[:, None] * pixels + cell[..., 0] * side + cell[..., 1])
            owner = jnp.full(images * pixels, -1, jnp.int32)
            owner = owner.at[slot.reshape(-1)].set(jnp.arange(images * seeds, dtype=jnp.int32))
            owner = owner.reshape(images, side, side)

            def jump(i, owner):
                k = table[i]
                flat = owner.reshape(-1)
                best, best_d = owner, distance(owner, coords)
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        if dy == 0 and dx == 0:
                            continue
                        ny = jnp.clip(ys + dy * k, 0, side - 1)
                        nx = jnp.clip(xs + dx * k, 0, side - 1)
                        index = (jnp.arange(images)[:, None, None] * pixels + ny * side + nx)
                        candidate = flat[index]
                        d = distance(candidate, coords)
                        better = d < best_d
                        best = jnp.where(better, candidate, best)
                        best_d = jnp.where(better, d, best_d)
                return best

            return lax.fori_loop(0, len(offsets), jump, owner)

        def cells(owner):
            weight = jnp.broadcast_to(darkness, owner.shape).reshape(-1)
            ids = owner.reshape(-1)
            gy = jnp.broadcast_to(cy, owner.shape).reshape(-1)
            gx = jnp.broadcast_to(cx, owner.shape).reshape(-1)
            total = images * seeds
            mass = jax.ops.segment_sum(weight, ids, total)
            my = jax.ops.segment_sum(weight * gy, ids, total)
            mx = jax.ops.segment_sum(weight * gx, ids, total)
            area = jax.ops.segment_sum(jnp.ones_like(weight), ids, total)
            return mass, jnp.stack([my, mx], -1), area

        def relax_once(_, points):
            mass, moment, _ = cells(flood(points))
            centroid = moment / jnp.maximum(mass, 1e-6)[:, None]
            moved = jnp.where(mass[:, None] > 1e-6, centroid, points.reshape(-1, 2))
            return moved.reshape(images, seeds, 2)

        points = lax.fori_loop(0, relax, relax_once, points)
        owner = flood(points)
        coords = points.reshape(images * seeds, 2)
        nearest = jnp.sqrt(distance(owner, coords))
        edge = ((owner != jnp.roll(owner, 1, 1)) | (owner != jnp.roll(owner, 1, 2)))
        mass, _, area = cells(owner)
        energy = jnp.sum(darkness * nearest ** 2, (1, 2))
        return points, owner - owner_of_image, nearest, edge, area.reshape(images, seeds), \
            mass.reshape(images, seeds), energy

    rng = np.random.default_rng(12)
    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    darkness = np.zeros((images, side, side), np.float32)
    for i in range(images):
        picture = 0.15 * np.tanh(_smooth_images(rng, 1, side, 1, 4.0)[0, ..., 0]) + 0.2
        for _ in range(5):
            cx, cy, r = rng.uniform(0.2, 0.8, 2).tolist() + [rng.uniform(0.08, 0.25)]
            picture += 0.6 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        darkness[i] = np.clip(picture, 0.02, 1.0)
    start = np.zeros((images, seeds, 2), np.float32)
    for i in range(images):
        weight = darkness[i].reshape(-1) / darkness[i].sum()
        chosen = rng.choice(side * side, seeds, replace=False, p=weight)
        start[i] = np.stack([chosen // side, chosen % side], -1) + rng.uniform(0, 1, (seeds, 2))
    return jax.jit(run).lower(jnp.asarray(start), jnp.asarray(darkness))


def zbuffer_rasterizer(views: int = 4, size: int = 256, rings: int = 48, segments: int = 64,
                       window: int = 12) -> Any:
    """Software rasterization of a bumpy sphere mesh (a 48x64 latitude-longitude grid, 6144
    triangles with vertex normals from the host) into four 256x256 views with a depth
    buffer, no gradient. The vertices are rotated for every camera (matrix products),
    projected in perspective and culled by facing; each triangle tests the pixel centres
    of a 12x12 window at the corner of its bounding box by edge functions. The depth
    buffer is one scatter-min of the covering fragments' depths; the fragments that match
    it (a gather) write their triangle ids by a scatter-max, and a scatter-add counts the
    coverage. Shading gathers every pixel's triangle, its three projected vertices and
    normals, interpolates the normal by perspective-correct barycentrics, and lights it by
    a Lambert and a Blinn-Phong term of two lights; the colour (uint8), the depth, the ids,
    the coverage counts and the number of visible triangles per view come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    focal = 1.6 * size / 2

    def run(vertices, normals, faces, rotations, colours):
        n_faces = faces.shape[0]
        camera = jnp.einsum("vij,nj->vni", rotations, vertices) + jnp.asarray([0.0, 0.0, 3.2])
        turned = jnp.einsum("vij,nj->vni", rotations, normals)
        z = camera[..., 2]
        sx = focal * camera[..., 0] / z + size / 2
        sy = focal * camera[..., 1] / z + size / 2
        corner = [jnp.stack([sx[:, faces[:, k]], sy[:, faces[:, k]]], -1) for k in range(3)]
        zs = jnp.stack([z[:, faces[:, k]] for k in range(3)], -1)
        a, b, c = corner

        def edge(p, q, r):
            return (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1]) \
                - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])

        area = edge(a, b, c)
        facing = area < -1e-6
        low = jnp.floor(jnp.minimum(jnp.minimum(a, b), c)).astype(jnp.int32)
        offsets = jnp.arange(window)
        px = (low[..., 0][..., None, None] + offsets[None, :]).astype(jnp.float32) + 0.5
        py = (low[..., 1][..., None, None] + offsets[:, None]).astype(jnp.float32) + 0.5
        point = jnp.stack(jnp.broadcast_arrays(px, py), -1)
        expand = lambda v: v[:, :, None, None, :]
        w0 = edge(expand(b), expand(c), point) / area[..., None, None]
        w1 = edge(expand(c), expand(a), point) / area[..., None, None]
        w2 = 1.0 - w0 - w1
        inside = (w0 >= 0) & (w1 >= 0) & (w2 >= 0) & facing[..., None, None]
        inside = inside & (px >= 0) & (px < size) & (py >= 0) & (py < size)
        inv = w0 / zs[..., 0, None, None] + w1 / zs[..., 1, None, None] \
            + w2 / zs[..., 2, None, None]
        depth = 1.0 / inv
        view = jnp.arange(views)[:, None, None, None]
        slot = view * size * size + py.astype(jnp.int32) * size + px.astype(jnp.int32)
        slot = jnp.where(inside, slot, views * size * size).reshape(-1)
        depth = depth.reshape(-1)
        buffer = jnp.full(views * size * size, jnp.inf).at[slot].min(depth, mode="drop")
        front = inside.reshape(-1) & (depth <= buffer[jnp.minimum(slot, views * size * size - 1)])
        ids = jnp.broadcast_to(jnp.arange(n_faces)[None, :, None, None], inside.shape).reshape(-1)
        owner = jnp.full(views * size * size, -1, jnp.int32)
        owner = owner.at[jnp.where(front, slot, views * size * size)].max(ids, mode="drop")
        coverage = jnp.zeros(views * size * size, jnp.int32).at[slot].add(1, mode="drop")
        owner = owner.reshape(views, size, size)
        hit = owner >= 0
        face = jnp.maximum(owner, 0)
        gy, gx = jnp.meshgrid(jnp.arange(size) + 0.5, jnp.arange(size) + 0.5, indexing="ij")
        pixel = jnp.stack(jnp.broadcast_arrays(gx, gy), -1)[None]
        v_index = jnp.arange(views)[:, None, None]
        pa, pb, pc = (corner[k][v_index, face] for k in range(3))
        whole = edge(pa, pb, pc)
        l0 = edge(pb, pc, pixel) / whole / zs[v_index, face, 0]
        l1 = edge(pc, pa, pixel) / whole / zs[v_index, face, 1]
        l2 = edge(pa, pb, pixel) / whole / zs[v_index, face, 2]
        total = l0 + l1 + l2
        normal = sum(l[..., None] * turned[v_index, faces[face, k]]
                     for k, l in enumerate((l0, l1, l2))) / total[..., None]
        normal = normal / jnp.sqrt(jnp.sum(normal * normal, -1, keepdims=True) + 1e-12)
        lights = jnp.asarray([[0.5, -0.6, -0.62], [-0.7, 0.2, -0.68]])
        diffuse = jnp.maximum(jnp.einsum("vyxc,lc->vyxl", normal, lights), 0.0)
        halfway = lights + jnp.asarray([0.0, 0.0, -1.0])
        halfway = halfway / jnp.sqrt(jnp.sum(halfway ** 2, -1, keepdims=True))
        specular = jnp.maximum(jnp.einsum("vyxc,lc->vyxl", normal, halfway), 0.0) ** 32
        albedo = colours[face]
        shade = albedo * (0.15 + diffuse.sum(-1, keepdims=True) * 0.7) \
            + 0.4 * specular.sum(-1, keepdims=True)
        image = jnp.where(hit[..., None], shade, jnp.asarray([0.1, 0.12, 0.16]))
        image = jnp.clip(jnp.round(image * 255), 0, 255).astype(jnp.uint8)
        depth_map = jnp.where(hit, 1.0 / total, 0.0)
        visible = jnp.zeros((views, n_faces), jnp.int32).at[v_index, face].max(
            hit.astype(jnp.int32))
        return image, depth_map, owner, coverage.reshape(views, size, size), visible.sum(1)

    rng = np.random.default_rng(13)
    theta = np.linspace(0, np.pi, rings + 1)
    phi = np.linspace(0, 2 * np.pi, segments + 1)
    th, ph = np.meshgrid(theta, phi, indexing="ij")
    bumps = 1.0 + 0.08 * np.sin(5 * th) * np.cos(4 * ph) + 0.05 * np.cos(7 * ph + 3 * th)
    unit = np.stack([np.sin(th) * np.cos(ph), np.cos(th), np.sin(th) * np.sin(ph)], -1)
    vertices = (unit * bumps[..., None]).reshape(-1, 3)
    index = np.arange((rings + 1) * (segments + 1)).reshape(rings + 1, segments + 1)
    a, b = index[:-1, :-1].reshape(-1), index[:-1, 1:].reshape(-1)
    c, d = index[1:, :-1].reshape(-1), index[1:, 1:].reshape(-1)
    faces = np.concatenate([np.stack([a, b, c], -1), np.stack([b, d, c], -1)])
    cross = np.cross(vertices[faces[:, 1]] - vertices[faces[:, 0]],
                     vertices[faces[:, 2]] - vertices[faces[:, 0]])
    normals = np.zeros_like(vertices)
    for k in range(3):
        np.add.at(normals, faces[:, k], cross)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True) + 1e-12
    rotations = []
    for v in range(views):
        yaw, pitch = 2 * np.pi * v / views + 0.3, rng.uniform(-0.5, 0.5)
        ry = np.asarray([[np.cos(yaw), 0, np.sin(yaw)], [0, 1, 0], [-np.sin(yaw), 0, np.cos(yaw)]])
        rx = np.asarray([[1, 0, 0], [0, np.cos(pitch), -np.sin(pitch)],
                         [0, np.sin(pitch), np.cos(pitch)]])
        rotations.append(rx @ ry)
    colours = rng.uniform(0.3, 1.0, (len(faces), 3))
    f32 = lambda x: jnp.asarray(x, jnp.float32)
    return jax.jit(run).lower(f32(vertices), f32(normals), jnp.asarray(faces, jnp.int32),
                              f32(np.stack(rotations)), f32(colours))


def dbscan_clusters(points: int = 4096, radius: float = 0.06, least: int = 10,
                    max_rounds: int = 64) -> Any:
    """Density-based clustering by DBSCAN (Ester, Kriegel, Sander and Xu) of 4096 points in
    the plane (Gaussian blobs of several densities, two interleaved moons, a ring and
    uniform noise), no gradient, in its parallel form: the 4096x4096 neighbourhood of all
    pairs within radius 0.06 gives every point's count, and points with at least ten
    neighbours are cores. Core labels start as their own indices and a `while_loop`
    (capped at 64 rounds, ending when no label changes) takes the smallest label over
    every core's core neighbours, then jumps every label to its label's label (a
    gather). Border points take the smallest label among their core neighbours, the rest
    are noise; clusters are renumbered densely by a scatter of presence and a `cumsum`,
    and their sizes, centroids and radii of gyration come from `segment_sum`s; the rounds
    taken and the number of clusters come back with the labels."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = points

    def run(xy):
        gap = jnp.sum(jnp.square(xy[:, None, :] - xy[None, :, :]), -1)
        near = gap <= radius * radius
        count = jnp.sum(near, 1)
        core = count >= least
        linked = near & core[None, :]
        ids = jnp.arange(n, dtype=jnp.int32)
        labels = jnp.where(core, ids, n)

        def unsettled(carry):
            rounds, _, changed = carry
            return changed & (rounds < max_rounds)

        def spread(carry):
            rounds, labels, _ = carry
            smallest = jnp.min(jnp.where(linked, labels[None, :], n), 1)
            new = jnp.where(core, jnp.minimum(labels, smallest), n)
            new = jnp.where(core, new[jnp.minimum(new, n - 1)], n)
            return rounds + 1, new, jnp.any(new != labels)

        rounds, labels, _ = lax.while_loop(unsettled, spread, (jnp.int32(0), labels,
                                                               jnp.bool_(True)))
        border = jnp.min(jnp.where(linked, labels[None, :], n), 1)
        labels = jnp.where(core, labels, border)
        present = jnp.zeros(n + 1, jnp.int32).at[labels].set(1)[:n]
        dense = jnp.cumsum(present) - 1
        cluster = jnp.where(labels < n, dense[jnp.minimum(labels, n - 1)], -1)
        clusters = jnp.sum(present)
        slot = jnp.where(cluster >= 0, cluster, n)
        size = jax.ops.segment_sum(jnp.ones(n), slot, n + 1)[:n]
        centre = jax.ops.segment_sum(xy, slot, n + 1)[:n] / jnp.maximum(size, 1.0)[:, None]
        spread_sq = jax.ops.segment_sum(jnp.sum(jnp.square(xy - centre[jnp.maximum(cluster, 0)]),
                                                -1), slot, n + 1)[:n]
        gyration = jnp.sqrt(spread_sq / jnp.maximum(size, 1.0))
        return cluster, core, count, rounds, clusters, size, centre, gyration

    rng = np.random.default_rng(14)
    parts = []
    for _ in range(6):
        centre = rng.uniform(-2, 2, 2)
        parts.append(centre + rng.uniform(0.05, 0.2) * rng.standard_normal((350, 2)))
    t = rng.uniform(0, np.pi, 500)
    parts.append(np.stack([np.cos(t), np.sin(t)], -1) * 0.8 + [-1.2, -2.6]
                 + 0.04 * rng.standard_normal((500, 2)))
    parts.append(np.stack([1 - np.cos(t), 0.5 - np.sin(t)], -1) * 0.8 + [-1.2, -2.6]
                 + 0.04 * rng.standard_normal((500, 2)))
    t = rng.uniform(0, 2 * np.pi, 600)
    parts.append(np.stack([np.cos(t), np.sin(t)], -1) * 1.3 + [2.4, -2.0]
                 + 0.03 * rng.standard_normal((600, 2)))
    cloud = np.concatenate(parts)
    noise = rng.uniform(-3.5, 3.5, (n - len(cloud), 2))
    xy = rng.permutation(np.concatenate([cloud, noise]))
    return jax.jit(run).lower(jnp.asarray(xy, jnp.float32))


def aho_corasick_motifs(texts: int = 16, length: int = 16384, motifs: int = 128,
                        shortest: int = 6, longest: int = 12) -> Any:
    """Multi-pattern search of 128 DNA motifs (6 to 12 bases, some of them suffixes or
    prefixes of others) in sixteen sequences of 16384 bases (uint8 ASCII, with motifs
    planted at random), no gradient, by an Aho-Corasick automaton: the trie, its failure
    links and the complete transition table over all 256 byte values (745 states) are
    built on the host, and a `lax.scan` over the bases moves the sixteen automata a step
    each by a gather from the table. A scatter-add counts the visits of every state per
    sequence, and a matrix product with the state-to-motif output matrix
    (every motif ending at a state or along its dictionary suffix chain) counts the
    occurrences of each motif; a scatter-min of positions per state gives every motif's
    first end position (a masked minimum over the states); the longest match ending at
    each position (a gather) gives a per-window match density and the share of bases
    covered. The per-motif counts, first positions, densities and coverage come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rng = np.random.default_rng(15)
    bases = np.frombuffer(b"ACGT", np.uint8)
    patterns: list[bytes] = []
    while len(patterns) < motifs:
        if patterns and rng.uniform() < 0.2:
            parent = patterns[int(rng.integers(len(patterns)))]
            cut = int(rng.integers(1, max(2, len(parent) - shortest + 1)))
            word = parent[cut:] if rng.uniform() < 0.5 else parent[:len(parent) - cut]
            if len(word) < shortest:
                continue
        else:
            word = bytes(rng.choice(bases, int(rng.integers(shortest, longest + 1))))
        if word not in patterns:
            patterns.append(word)
    children: list[dict[int, int]] = [{}]
    ends: list[set[int]] = [set()]
    depth = [0]
    for k, word in enumerate(patterns):
        state = 0
        for byte in word:
            if byte not in children[state]:
                children.append({})
                ends.append(set())
                depth.append(depth[state] + 1)
                children[state][byte] = len(children) - 1
            state = children[state][byte]
        ends[state].add(k)
    states = len(children)
    table = np.zeros((states, 256), np.int32)
    fail = np.zeros(states, np.int64)
    order = []
    queue = list(children[0].items())
    for byte, child in queue:
        table[0, byte] = child
    head = 0
    while head < len(queue):
        _, state = queue[head]
        head += 1
        order.append(state)
        table[state] = table[fail[state]]
        for byte, child in children[state].items():
            fail[child] = table[fail[state], byte] if state else 0
            table[state, byte] = child
            queue.append((byte, child))
    for state in order:
        ends[state] |= ends[fail[state]]
    outputs = np.zeros((states, motifs), np.float32)
    longest_end = np.zeros(states, np.int32)
    for state in range(states):
        for k in ends[state]:
            outputs[state, k] = 1.0
            longest_end[state] = max(longest_end[state], len(patterns[k]))
    text = rng.choice(bases, (texts, length))
    for i in range(texts):
        for _ in range(int(rng.integers(40, 120))):
            word = np.frombuffer(patterns[int(rng.integers(motifs))], np.uint8)
            at = int(rng.integers(0, length - len(word)))
            text[i, at:at + len(word)] = word

    window = 256

    def run(text, table, outputs, longest_end):
        def advance(state, column):
            state = table[state, column.astype(jnp.int32)]
            return state, state

        _, visited = lax.scan(advance, jnp.zeros(texts, jnp.int32), text.T)
        visited = visited.T
        slot = (jnp.arange(texts)[:, None] * states + visited).reshape(-1)
        visits = jnp.zeros(texts * states, jnp.float32).at[slot].add(1.0).reshape(texts, states)
        counts = visits @ outputs
        position = jnp.broadcast_to(jnp.arange(length, dtype=jnp.int32), (texts, length))
        first = jnp.full(texts * states, length, jnp.int32).at[slot].min(position.reshape(-1))
        first = first.reshape(texts, states)
        first_end = jnp.min(jnp.where(outputs[None] > 0, first[:, :, None], length), 1)
        matched = longest_end[visited]
        density = jnp.sum((matched > 0).reshape(texts, length // window, window), -1)
        start = jnp.where(matched > 0, position - matched + 1, length)
        covered = jnp.flip(lax.cummin(jnp.flip(start, 1), axis=1), 1) <= position
        return counts, first_end, density, jnp.mean(covered, 1), visited[:, -1]

    return jax.jit(run).lower(jnp.asarray(text, jnp.uint8), jnp.asarray(table),
                              jnp.asarray(outputs), jnp.asarray(longest_end))


def yin_pitch_tracker(signals: int = 16, samples: int = 48000, rate: float = 16000.0,
                      frame: int = 1024, hop: int = 128, threshold: float = 0.15,
                      lowest: float = 60.0, smooth: int = 5) -> Any:
    """Fundamental-frequency tracking by the YIN algorithm (de Cheveigne and Kawahara) of
    sixteen 3 s signals at 16 kHz (sung notes with vibrato and glides, several harmonics,
    breathy noise, unvoiced bursts and silences), no gradient. 368 frames of 1024 samples
    per signal, hop 128, are gathered by an index matrix; the difference function over lags
    up to 512 comes from the energies of the sliding windows (a `cumsum` of squares) less
    twice the cross-correlation, found by real FFTs of every frame and of its zero-padded
    first half; the cumulative-mean-normalized difference (another `cumsum`) is searched
    for the first lag above the shortest period that dips below 0.15 at a local minimum
    (an `argmax` over a mask, the global minimum where none does), refined by parabolic
    interpolation of three gathered neighbours. Voicing follows the dip's depth and the
    frame energy; the track is smoothed by a five-frame median (a `sort` of shifted
    copies); a histogram of voiced pitches in semitone bins (`segment_sum`) and each
    signal's median pitch come back with the tracks, the aperiodicity and the energies."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    half = frame // 2
    frames = (samples - frame) // hop + 1
    shortest = int(rate / 1000.0)
    longest = min(half - 2, int(rate / lowest))
    index = np.arange(frames)[:, None] * hop + np.arange(frame)[None, :]
    bins = 72

    def run(audio):
        x = audio[:, index]
        squares = jnp.cumsum(jnp.square(x), -1)
        squares = jnp.concatenate([jnp.zeros(x.shape[:-1] + (1,)), squares], -1)
        energy0 = squares[..., half]
        energy = squares[..., half:half + half] - squares[..., :half]
        spectrum = jnp.fft.rfft(x, axis=-1)
        head = jnp.fft.rfft(x[..., :half], n=frame, axis=-1)
        correlation = jnp.fft.irfft(jnp.conj(head) * spectrum, n=frame, axis=-1)[..., :half]
        difference = jnp.maximum(energy0[..., None] + energy - 2.0 * correlation, 0.0)
        lag = jnp.arange(half, dtype=jnp.float32)
        running = jnp.cumsum(difference[..., 1:], -1)
        normalized = jnp.concatenate([jnp.ones(difference.shape[:-1] + (1,)),
                                      difference[..., 1:] * lag[1:] / jnp.maximum(running, 1e-9)],
                                     -1)
        window = (lag >= shortest) & (lag < longest)
        following = jnp.concatenate([normalized[..., 1:], normalized[..., -1:]], -1)
        dips = window & (normalized < threshold) & (normalized <= following)
        first = jnp.argmax(dips, -1)
        fallback = jnp.argmin(jnp.where(window, normalized, jnp.inf), -1)
        period = jnp.where(jnp.any(dips, -1), first, fallback)
        around = jnp.stack([period - 1, period, period + 1], -1)
        left, middle, right = jnp.moveaxis(jnp.take_along_axis(normalized, around, -1), -1, 0)
        bend = left - 2.0 * middle + right
        shift = jnp.where(jnp.abs(bend) > 1e-9, 0.5 * (left - right) / bend, 0.0)
        refined = period + jnp.clip(shift, -1.0, 1.0)
        pitch = rate / refined
        aperiodicity = middle
        loudness = jnp.sqrt(energy0 / half)
        voiced = (aperiodicity < 2.0 * threshold) & (loudness > 0.02)
        padded = jnp.pad(pitch, ((0, 0), (smooth // 2, smooth // 2)), mode="edge")
        copies = jnp.stack([padded[:, k:k + frames] for k in range(smooth)], -1)
        median = jnp.sort(copies, -1)[..., smooth // 2]
        track = jnp.where(voiced, median, 0.0)
        semitone = jnp.clip(jnp.round(12 * jnp.log2(jnp.maximum(track, 1.0) / lowest)), 0, bins - 1)
        owner = jnp.arange(signals)[:, None] * bins + semitone.astype(jnp.int32)
        histogram = jax.ops.segment_sum(voiced.astype(jnp.int32).reshape(-1), owner.reshape(-1),
                                        signals * bins).reshape(signals, bins)
        ranked = jnp.sort(jnp.where(voiced, track, jnp.inf), -1)
        middle_rank = jnp.maximum(jnp.sum(voiced, -1) // 2, 0)
        typical = jnp.take_along_axis(ranked, middle_rank[:, None], -1)[:, 0]
        return track, voiced, aperiodicity, loudness, histogram, typical

    rng = np.random.default_rng(16)
    t = np.arange(samples) / rate
    audio = np.zeros((signals, samples))
    for i in range(signals):
        at = int(rng.integers(0, 2000))
        while at < samples:
            n = min(int(rng.integers(2500, 9000)), samples - at)
            kind = rng.uniform()
            if kind < 0.7:
                base = 110.0 * 2 ** (rng.integers(0, 24) / 12)
                glide = base * (1.0 + rng.uniform(-0.1, 0.1) * np.linspace(0, 1, n))
                vibrato = 1.0 + 0.015 * np.sin(2 * np.pi * rng.uniform(4.5, 6.5) * t[:n])
                phase = 2 * np.pi * np.cumsum(glide * vibrato) / rate
                weights = rng.uniform(0.2, 1.0, 6) / np.arange(1, 7)
                note = sum(w * np.sin((k + 1) * phase) for k, w in enumerate(weights))
                note = note + 0.05 * rng.standard_normal(n)
            elif kind < 0.85:
                note = 0.3 * rng.standard_normal(n)
            else:
                note = np.zeros(n)
            envelope = np.minimum(1.0, np.minimum(np.arange(n), n - np.arange(n)) / 400.0)
            audio[i, at:at + n] = note * envelope * rng.uniform(0.2, 0.8)
            at += n + int(rng.integers(0, 1500))
    audio += 0.003 * rng.standard_normal(audio.shape)
    return jax.jit(run).lower(jnp.asarray(audio, jnp.float32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "sknet_classifier/8x64px-96-192-384-g8": sknet_classifier,
    "xlnet_permutation_lm/6x128-d96-l3-p22-bf16": xlnet_permutation_lm,
    "dien_ctr/256x50-behaviours-h36": dien_ctr,
    "graph_unet_nodes/4x512-nodes-384-256-128": graph_unet_nodes,
    "wgan_gp_glyphs/16x32px-64-latents": wgan_gp_glyphs,
    "barlow_twins_pretrain/2x24x32px-16-128-p1024": barlow_twins_pretrain,
    "patchtst_forecaster/12x7x336+96-p16-d64-l3": patchtst_forecaster,
    "lagrangian_pendulum/1024-states-128x3": lagrangian_pendulum,
    "gfnet_classifier/16x32px-p2-d48-l4": gfnet_classifier,
    "dit_denoiser/16x32px-p4-d128-l4-bf16": dit_denoiser,
    "voronoi_stippling/2x256px-192-stipples-3-relaxations": voronoi_stippling,
    "zbuffer_rasterizer/4x256px-6144-triangles": zbuffer_rasterizer,
    "dbscan_clusters/4096-points-max64": dbscan_clusters,
    "aho_corasick_motifs/16x16384-bases-128-motifs": aho_corasick_motifs,
    "yin_pitch_tracker/16x48000-samples-368-frames": yin_pitch_tracker,
}
