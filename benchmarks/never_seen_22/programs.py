"""The twenty-second never-seen set: programs written on 2026-11-28, after the twenty-first
set (benchmarks/never_seen_21/), which had not judged a model yet, and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge a trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-22` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
twenty-one never-seen sets has; as in the sets before it, a few training steps are large
(a few gigaflops each) and the rest mid-sized; three of them are built around depthwise
convolutions, one differentiates its network twice (forces as the gradient of an energy)
and one trains without a backward pass. Ten are training steps (forward, loss, gradient
and an optimizer update). GhostNet classifies 96x96 plaid textures by ghost bottlenecks
whose modules make half their channels by a 1x1 convolution and the other half from those
by a cheap depthwise convolution, with strided depthwise convolutions between the modules,
squeeze-and-excitation under hard-sigmoid gates and depthwise-then-pointwise shortcuts.
MobileViT classifies 128x128 textures by MobileNetV2 inverted residual blocks (a
depthwise 3x3 convolution between a 1x1 expansion and a linear projection) and MobileViT
blocks that unfold their feature maps into 2x2 patches, let transformer layers attend
across the patches among the pixels of one position, fold them back and fuse them with
the block's input by a 3x3 convolution. A causal language model in bfloat16 puts dynamic
convolutions in place of self-attention: kernels of 3 to 31 taps predicted at every
position from its input, softmax-normalized over the taps and shared by the channels of a
head, applied after a gated linear unit to shifted slices of the left-padded sequence by
an einsum. XCiT classifies 64x64 textures by cross-covariance attention (an attention
between the channels of each head, over queries and keys L2-normalized along the tokens,
with a learned temperature), local patch interaction by depthwise convolutions over the
token grid, LayerScale gains, projected Fourier features of the positions and two
class-attention layers. MoCo v2 pretrains a small ResNet by momentum contrast: two views
cut by `dynamic_slice` under `vmap`, mirrored, colour-jittered and greyed inside the step,
a key encoder that is the moving average of the query encoder and embeds a shuffled
batch (batch norm over four groups, the shuffle undone by the inverse permutation), and
InfoNCE of each query against its own key and a queue of 4096 keys renewed by
`dynamic_update_slice`. A TD3 agent regresses twin critics towards the smaller of two
target critics under target policy smoothing and, every second step under `lax.cond`,
moves the actor up the first critic and the target networks by Polyak averaging. PaiNN
predicts energies and forces of small molecules by equivariant message passing of scalar
and vector features over all atom pairs within a cutoff (sine radial functions, gated
vector messages along the bonds, an update from the norms and scalar products of mixed
vectors); the forces are minus the gradient of the energy with respect to the positions,
so its backward pass differentiates the network twice. An S4D model classifies textures
read as sequences of 1024 pixels by diagonal state space convolutions (kernels from
complex Vandermonde products under zero-order hold, applied by real FFTs of twice the
length) and trains by forward gradients, without a backward pass: the loss is linearized
once by `jax.linearize` and its linear map applied to two random tangents under `vmap`.
SN-GAN trains a class-conditional residual generator (conditional batch norm, upsampling
by `jnp.repeat`) against a projection discriminator whose every weight is divided by its
spectral norm from one power iteration per use, the iteration's vectors carried from
step to step, under the hinge loss. MaskGIT in bfloat16 learns to recover the masked codes
of 8x8 token grids (tokenized on the host by the nearest entries of a patch codebook) at
ratios of a cosine schedule, the masked tokens the lowest ranks of random scores (a
double `argsort`), by a bidirectional transformer under label-smoothed cross-entropy.
Five are inference or scientific steps without a gradient: restarted GMRES(24) with
Jacobi right preconditioning for four convection-diffusion problems on a 96x96 grid, the
operator matrix-free (six restarts in a `while_loop` of fixed count; Arnoldi with
classical Gram-Schmidt applied twice, Givens rotations and back substitution in three
`fori_loop`s; the problems batched by `vmap`); dynamic time warping of 32 pairs of
sequences of 384 and 512 frames within a Sakoe-Chiba band (a `lax.scan` over the 895
anti-diagonals that emits every cell's choice, a reversed `lax.scan` that backtracks the
path by gathers, the matches by a scatter-max); 640 boids and six predators for 64 steps
in nested `lax.scan`s (all-pairs displacements under the minimum-image convention,
neighbours within a field of view, alignment, cohesion, separation and flight, pursuit of
the nearest boid by an `argmin` and gathers, noise from `jax.random`); haze removal by
the dark channel prior for four 384x512 pictures (separable `reduce_window` minima, the
atmospheric light by `top_k` and gathers, a guided filter whose box means come from
integral images by `cumsum`s and corner gathers, a depth histogram by `segment_sum`); and
MinHash near-duplicate detection of 1024 byte strings (uint32 rolling hashes of shingles,
128 hash functions with the MurmurHash3 finalizer minimized in a `lax.map`, 32
locality-sensitive bands compared over all pairs, duplicate groups by label propagation
and pointer jumping in a `fori_loop`). The updates are new to these sets, though several
build on earlier ones: SGDP (Nesterov momentum SGD whose step loses its radial part,
and its weight decay nine tenths, for weights that look scale-invariant; the SGD form of
AdamP), AdaGC over AdamW (every tensor's gradient clipped to 1.05 times an average of its
own past clipped norms), L4 over Adam (Adam's direction, the step size from a
linearization of the loss against a tracked minimum), ND-Adam (every unit's input weight
vector kept on the unit sphere, its gradient projected onto the tangent, one second
moment per vector), Adam with learning-rate dropout (each coordinate's step kept with
probability one half), SMORMS3 (RMSProp whose window follows a per-coordinate memory, the
step capped by g1^2/g2), the triple momentum method (the gradient at a point
extrapolated from the last two iterates), forward gradients under momentum SGD, AdaAlter
(AdaGrad whose denominator lags one gradient behind) and PAL (a parabolic line search
along a momentum direction by a second forward pass); two training steps (the
dynamic-convolution language model and MaskGIT) run in bfloat16.
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
    the parameters' dtype (a random key and step counters apart), and every parameter
    keeps its own dtype."""
    import jax
    import jax.numpy as jnp

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

    def units(a: Any) -> Any:
        """A tensor of two or more axes as fan-in x units (one column per output unit)."""
        return a.reshape(-1, a.shape[-1])

    if name == "sgdp":
        # SGDP (Heo et al.): SGD with Nesterov momentum, and for a weight that looks
        # scale-invariant (the cosine between every output unit's weights and its
        # gradient below delta / sqrt(fan-in)) the radial part of the step removed per
        # unit and the weight decay scaled by a tenth; other tensors step as in SGD
        rate, momentum, decay, delta, ratio = 0.05, 0.9, 1e-5, 0.1, 0.1

        def sgdp(params, grads, state, loss):
            g = wide(grads)
            buffer = tm(lambda b, g_: momentum * b + g_, state, g)

            def one(p, g_, b):
                w = p.astype(f32)
                d = g_ + momentum * b
                if p.ndim < 2:
                    return w - rate * (d + decay * w)
                wm, gm, dm = units(w), units(g_), units(d)
                size = jnp.sqrt(jnp.sum(wm * wm, 0)) + 1e-8
                cosine = jnp.abs(jnp.sum(wm * gm, 0)) / (size * (jnp.sqrt(jnp.sum(gm * gm, 0))
                                                                 + 1e-8))
                invariant = jnp.max(cosine) < delta / math.sqrt(wm.shape[0])
                direction = wm / size
                radial = direction * jnp.sum(direction * dm, 0)
                d = jnp.where(invariant, dm - radial, dm).reshape(p.shape)
                shrink = jnp.where(invariant, decay * ratio, decay)
                return w - rate * (d + shrink * w)
            return recast(params, tm(one, params, g, buffer)), buffer
        return zeros, sgdp

    if name == "adagc":
        # AdaGC (Wang et al.) over AdamW: every tensor's gradient clipped to 1.05 times an
        # exponential average of its own past clipped norms (the first step unclipped, its
        # norm starting the average), then Adam's moments and decoupled weight decay
        rate, b1, b2, eps, decay, factor, beta = 2e-3, 0.9, 0.999, 1e-8, 0.05, 1.05, 0.98

        def adagc_init(params):
            return zeros(params), zeros(params), tm(lambda p: jnp.zeros((), f32), params), count()

        def adagc(params, grads, state, loss):
            m, v, average, t = state
            g = wide(grads)
            size = tm(lambda g_: jnp.sqrt(jnp.sum(g_ * g_)), g)
            limit = tm(lambda a, s: jnp.where(t == 0, s, factor * a), average, size)
            g = tm(lambda g_, s, c: g_ * jnp.minimum(1.0, c / (s + 1e-12)), g, size, limit)
            average = tm(lambda a, s, c: jnp.where(t == 0, s, beta * a + (1.0 - beta)
                                                   * jnp.minimum(s, c)), average, size, limit)
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)

            def one(p, m_, v_):
                w = p.astype(f32)
                step = (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + eps)
                return w - rate * (step + decay * w)
            return recast(params, tm(one, params, m, v)), (m, v, average, t)
        return adagc_init, adagc

    if name == "l4_adam":
        # L4 (Rolinek and Martius) over Adam: Adam's direction v, and a step size from a
        # linearization of the loss, alpha (L - gamma L_min) / (g . v), L_min the smallest
        # loss seen (three quarters of the first one to start with), let rise by a factor
        # 1 + 1/1000 every step so that it keeps tracking
        alpha, gamma, tau, b1, b2, eps = 0.15, 0.9, 1000.0, 0.9, 0.999, 1e-7

        def l4_init(params):
            return zeros(params), zeros(params), count(), jnp.zeros((), f32)

        def l4(params, grads, state, loss):
            m, v, t, lowest = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            direction = tm(lambda m_, v_: (m_ / (1.0 - b1 ** n))
                           / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + eps), m, v)
            value = loss.astype(f32)
            lowest = jnp.where(t == 1, 0.75 * value, jnp.minimum(lowest, value))
            slope = sum(jnp.sum(a * b) for a, b in zip(jax.tree.leaves(g),
                                                       jax.tree.leaves(direction)))
            step = alpha * (value - gamma * lowest) / jnp.maximum(slope, 1e-12)
            moved = tm(lambda p, d: p.astype(f32) - step * d, params, direction)
            return recast(params, moved), (m, v, t, lowest * (1.0 + 1.0 / tau))
        return l4_init, l4

    if name == "nd_adam":
        # ND-Adam (Zhang, Lin, Xu and Jia): the input weight vector of every unit of a
        # matrix or convolution kept on the unit sphere; its gradient projected onto the
        # sphere's tangent, one second moment per vector (its squared norm), the vector
        # renormalized after the step; biases, gains and the like step by plain Adam
        rate_vec, rate, b1, b2, eps = 0.01, 1e-3, 0.9, 0.999, 1e-8

        def nd_init(params):
            second = tm(lambda p: jnp.zeros(p.shape[-1:] if p.ndim > 1 else p.shape, f32),
                        params)
            return zeros(params), second, count()

        def nd_adam(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            leaves, tree = jax.tree.flatten(params)
            new_p, new_m, new_v = [], [], []
            for p, g, m_, v_ in zip(leaves, tree.flatten_up_to(grads), tree.flatten_up_to(m),
                                    tree.flatten_up_to(v)):
                w, g = p.astype(f32), g.astype(f32)
                if p.ndim < 2:
                    m_ = b1 * m_ + (1.0 - b1) * g
                    v_ = b2 * v_ + (1.0 - b2) * g * g
                    w = w - rate * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + eps)
                else:
                    wm, gm = units(w), units(g)
                    wm = wm / jnp.sqrt(jnp.sum(wm * wm, 0))
                    gm = gm - wm * jnp.sum(wm * gm, 0)
                    mm = b1 * units(m_) + (1.0 - b1) * gm
                    v_ = b2 * v_ + (1.0 - b2) * jnp.sum(gm * gm, 0)
                    wm = wm - rate_vec * (mm / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n))
                                                                   + eps)
                    w = (wm / jnp.sqrt(jnp.sum(wm * wm, 0))).reshape(p.shape)
                    m_ = mm.reshape(p.shape)
                new_p.append(w.astype(p.dtype))
                new_m.append(m_)
                new_v.append(v_)
            return tree.unflatten(new_p), (tree.unflatten(new_m), tree.unflatten(new_v), t)
        return nd_init, nd_adam

    if name == "lr_dropout_adam":
        # Adam with learning-rate dropout (Lin, Shi, Lin and Ren): the moments take every
        # gradient, but each coordinate's step is kept with probability one half (a fresh
        # Bernoulli mask per step from a key carried in the state) and dropped otherwise
        rate, b1, b2, eps, keep = 1e-3, 0.9, 0.999, 1e-8, 0.5

        def dropout_init(params):
            return zeros(params), zeros(params), count(), jax.random.PRNGKey(0)

        def lr_dropout_adam(params, grads, state, loss):
            m, v, t, key = state
            t = t + 1
            n = t.astype(f32)
            key, draw = jax.random.split(key)
            leaves, tree = jax.tree.flatten(params)
            masks = tree.unflatten([jax.random.bernoulli(k, keep, leaf.shape)
                                    for k, leaf in zip(jax.random.split(draw, len(leaves)),
                                                       leaves)])
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)

            def one(p, m_, v_, kept):
                step = (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + eps)
                return p.astype(f32) - rate * jnp.where(kept, step, 0.0)
            return recast(params, tm(one, params, m, v, masks)), (m, v, t, key)
        return dropout_init, lr_dropout_adam

    if name == "smorms3":
        # SMORMS3 (Funk): RMSProp whose averaging window is set per coordinate by a memory
        # that grows while the gradient's mean dominates its mean square and resets when it
        # does not; the step is the smaller of the learning rate and g1^2 / g2
        rate, eps = 1e-3, 1e-16

        def smorms_init(params):
            return zeros(params), zeros(params), tm(lambda p: jnp.ones(p.shape, f32), params)

        def smorms3(params, grads, state, loss):
            first, second, memory = state
            g = wide(grads)
            r = tm(lambda mem: 1.0 / (mem + 1.0), memory)
            first = tm(lambda a, r_, g_: (1.0 - r_) * a + r_ * g_, first, r, g)
            second = tm(lambda a, r_, g_: (1.0 - r_) * a + r_ * g_ * g_, second, r, g)
            share = tm(lambda a, b: a * a / (b + eps), first, second)
            moved = tm(lambda p, g_, b, x: p.astype(f32) - g_ * jnp.minimum(rate, x)
                       / (jnp.sqrt(b) + eps), params, g, second, share)
            memory = tm(lambda mem, x: 1.0 + mem * (1.0 - x), memory, share)
            return recast(params, moved), (first, second, memory)
        return smorms_init, smorms3

    if name == "adaalter":
        # AdaAlter (Xie, Koyejo and Gupta): AdaGrad whose denominator is the sum of squared
        # gradients before this step's, plus eps^2: the current gradient enters the
        # accumulator only after the step
        rate, eps = 0.01, 0.1

        def adaalter(params, grads, state, loss):
            g = wide(grads)
            moved = tm(lambda p, g_, s: p.astype(f32) - rate * g_ / jnp.sqrt(s + eps * eps),
                       params, g, state)
            return recast(params, moved), tm(lambda s, g_: s + g_ * g_, state, g)
        return zeros, adaalter

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


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", groups: int = 1) -> Any:
    """A 2-D NHWC convolution (depthwise when `groups` is the input's channel count)."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), padding, dimension_numbers=_NHWC,
                                    feature_group_count=groups)


def _depthwise(x: Any, w: Any, stride: int = 1) -> Any:
    """A depthwise 2-D convolution, `w` of shape (k, k, 1, channels)."""
    return _conv(x, w, stride, groups=x.shape[-1])


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


def _sinusoids(positions: Any, width: int) -> Any:
    """numpy float32: sinusoidal encodings of `positions` (any shape) in `width` channels,
    sines then cosines over geometrically spaced frequencies."""
    import numpy as np

    freqs = 1.0 / (10000.0 ** (np.arange(0, width, 2) / width))
    angles = np.asarray(positions, np.float64)[..., None] * freqs
    return np.concatenate([np.sin(angles), np.cos(angles)], -1).astype(np.float32)


def _global_norm(tree: Any) -> Any:
    """The float32 norm of all leaves of a tree together."""
    import jax
    import jax.numpy as jnp

    return jnp.sqrt(sum(jnp.sum(jnp.square(leaf.astype(jnp.float32)))
                        for leaf in jax.tree.leaves(tree)))


def ghostnet_classifier(batch: int = 8, side: int = 96, classes: int = 10, stem: int = 16,
                        last: int = 960, hidden: int = 1280) -> Any:
    """Image classification by GhostNet (Han, Wang, Tian, Guo, Xu and Xu) on 96x96
    pictures of ten plaid textures. A stride-2 3x3 stem of 16 channels feeds ten ghost
    bottlenecks (expansions of 16 to 960 channels, outputs of 16 to 160, four of them
    strided): each ghost module makes half its channels by a 1x1 convolution and the
    other half from those by a cheap depthwise 3x3 convolution, concatenated (batch norm
    throughout, ReLU in the expanding module only); a strided bottleneck puts a depthwise
    3x3 or 5x5 convolution between its two modules, five of them squeeze-and-excitation
    with a hard-sigmoid gate, and a bottleneck that changes shape takes a depthwise then a
    1x1 convolution on its shortcut. A 1x1 convolution to 960, global pooling, a dense
    layer of 1280 and a linear classifier under cross-entropy. SGDP."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    # (kernel, expansion, output, stride, squeeze-excitation)
    plan = ((3, 16, 16, 1, False), (3, 48, 24, 2, False), (3, 72, 24, 1, False),
            (5, 72, 40, 2, True), (5, 120, 40, 1, True), (3, 240, 80, 2, False),
            (3, 200, 80, 1, False), (3, 480, 112, 1, True), (5, 672, 160, 2, True),
            (5, 960, 160, 1, True))
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, stem), "stem_g": (stem,),
                                          "stem_b": (stem,)}

    def module_shapes(name: str, cin: int, cout: int) -> dict[str, tuple[int, ...]]:
        half = cout // 2
        return {f"{name}p": (1, 1, cin, half), f"{name}p_g": (half,), f"{name}p_b": (half,),
                f"{name}c": (3, 3, 1, half), f"{name}c_g": (half,), f"{name}c_b": (half,)}

    cin = stem
    for i, (k, mid, out, stride, se) in enumerate(plan):
        shapes.update(module_shapes(f"b{i}e", cin, mid))
        if stride > 1:
            shapes.update({f"b{i}dw": (k, k, 1, mid), f"b{i}dw_g": (mid,), f"b{i}dw_b": (mid,)})
        if se:
            squeeze = max(8, (mid // 4 + 2) // 4 * 4)
            shapes.update({f"b{i}se1": (mid, squeeze), f"b{i}se1_b": (squeeze,),
                           f"b{i}se2": (squeeze, mid), f"b{i}se2_b": (mid,)})
        shapes.update(module_shapes(f"b{i}o", mid, out))
        if stride > 1 or cin != out:
            shapes.update({f"b{i}sdw": (k, k, 1, cin), f"b{i}sdw_g": (cin,),
                           f"b{i}sdw_b": (cin,), f"b{i}s": (1, 1, cin, out), f"b{i}s_g": (out,),
                           f"b{i}s_b": (out,)})
        cin = out
    shapes.update({"last": (1, 1, cin, last), "last_g": (last,), "last_b": (last,),
                   "fc": (last, hidden), "fc_b": (hidden,), "head": (hidden, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=1, scale=1.4)
    relu = jax.nn.relu

    def bn(p, k, x):
        return _batch_norm(x, p[f"{k}_g"], p[f"{k}_b"])

    def ghost(p, k, x, active):
        primary = bn(p, f"{k}p", _conv(x, p[f"{k}p"]))
        primary = relu(primary) if active else primary
        cheap = bn(p, f"{k}c", _depthwise(primary, p[f"{k}c"]))
        cheap = relu(cheap) if active else cheap
        return jnp.concatenate([primary, cheap], -1)

    def loss_fn(p, pictures, labels):
        x = relu(bn(p, "stem", _conv(pictures, p["stem"], 2)))
        for i, (_, _, _, stride, se) in enumerate(plan):
            y = ghost(p, f"b{i}e", x, True)
            if stride > 1:
                y = bn(p, f"b{i}dw", _depthwise(y, p[f"b{i}dw"], stride))
            if se:
                pooled = jnp.mean(y, (1, 2))
                gate = relu(pooled @ p[f"b{i}se1"] + p[f"b{i}se1_b"]) @ p[f"b{i}se2"]
                y = y * jax.nn.hard_sigmoid(gate + p[f"b{i}se2_b"])[:, None, None, :]
            y = ghost(p, f"b{i}o", y, False)
            if f"b{i}s" in p:
                skip = bn(p, f"b{i}sdw", _depthwise(x, p[f"b{i}sdw"], stride))
                x = y + bn(p, f"b{i}s", _conv(skip, p[f"b{i}s"]))
            else:
                x = y + x
        x = relu(bn(p, "last", _conv(x, p["last"])))
        x = relu(jnp.mean(x, (1, 2)) @ p["fc"] + p["fc_b"])
        return _cross_entropy(x @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(1)
    pictures, labels = _texture_pictures(rng, batch, side, classes)
    return _train("sgdp", loss_fn, p, jnp.asarray(pictures), jnp.asarray(labels, jnp.int32))


def mobilevit_classifier(batch: int = 8, side: int = 128, classes: int = 10,
                         patch: int = 2, heads: int = 4) -> Any:
    """Image classification by MobileViT (Mehta and Rastegari; the XXS widths) on 128x128
    pictures of ten plaid textures. A stride-2 3x3 stem of 16 channels and MobileNetV2
    inverted residual blocks (a 1x1 expansion by two, a depthwise 3x3 convolution, strided
    at the start of the last four stages, a linear 1x1 projection, batch norm and SiLU,
    residual where the shape allows) lead to three MobileViT blocks at 16x16, 8x8 and 4x4 (48, 64
    and 80 channels): a 3x3 and a 1x1 convolution to width 64, 80 or 96, an unfolding
    into 2x2 patches (reshapes and a transpose) so that two, four and three pre-norm
    transformer layers (four heads, SiLU MLPs of twice the width) attend across patches
    among the pixels of one position, a folding back, a 1x1 convolution to the block's
    channels, and a 3x3 convolution fusing them with the block's input. A 1x1 convolution
    to 320, global pooling and a linear classifier under cross-entropy. AdaGC over
    AdamW."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    # stages: a list of (output, stride) inverted residuals, then a MobileViT block's
    # (width, layers) or None
    stages = (([(16, 1)], None), ([(24, 2), (24, 1), (24, 1)], None),
              ([(48, 2)], (64, 2)), ([(64, 2)], (80, 4)), ([(80, 2)], (96, 3)))
    stem, expand, last = 16, 2, 320
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, stem), "stem_g": (stem,),
                                          "stem_b": (stem,)}
    plan = []
    cin = stem
    for s, (blocks, vit) in enumerate(stages):
        for k, (out, stride) in enumerate(blocks):
            name, mid = f"s{s}r{k}", cin * expand
            shapes.update({f"{name}e": (1, 1, cin, mid), f"{name}e_g": (mid,),
                           f"{name}e_b": (mid,), f"{name}d": (3, 3, 1, mid),
                           f"{name}d_g": (mid,), f"{name}d_b": (mid,),
                           f"{name}p": (1, 1, mid, out), f"{name}p_g": (out,),
                           f"{name}p_b": (out,)})
            plan.append(("mv2", name, stride, stride == 1 and cin == out))
            cin = out
        if vit is not None:
            width, layers = vit
            name = f"s{s}v"
            shapes.update({f"{name}local": (3, 3, cin, cin), f"{name}local_g": (cin,),
                           f"{name}local_b": (cin,), f"{name}in": (1, 1, cin, width)})
            for l in range(layers):
                shapes.update({f"{name}{l}n1_g": (width,), f"{name}{l}n1_b": (width,),
                               f"{name}{l}qkv": (width, 3 * width),
                               f"{name}{l}qkv_b": (3 * width,), f"{name}{l}o": (width, width),
                               f"{name}{l}o_b": (width,), f"{name}{l}n2_g": (width,),
                               f"{name}{l}n2_b": (width,), f"{name}{l}f1": (width, 2 * width),
                               f"{name}{l}f1_b": (2 * width,),
                               f"{name}{l}f2": (2 * width, width), f"{name}{l}f2_b": (width,)})
            shapes.update({f"{name}norm_g": (width,), f"{name}norm_b": (width,),
                           f"{name}out": (1, 1, width, cin), f"{name}out_g": (cin,),
                           f"{name}out_b": (cin,), f"{name}fuse": (3, 3, 2 * cin, cin),
                           f"{name}fuse_g": (cin,), f"{name}fuse_b": (cin,)})
            plan.append(("vit", name, layers, width))
    shapes.update({"last": (1, 1, cin, last), "last_g": (last,), "last_b": (last,),
                   "head": (last, classes), "head_b": (classes,)})
    p = _params(shapes, seed=2, scale=1.4)
    silu = jax.nn.silu

    def bn(p, k, x):
        return _batch_norm(x, p[f"{k}_g"], p[f"{k}_b"])

    def transformer(p, name, l, width, h):
        n, t = h.shape[:2]
        dh = width // heads
        y = _layer_norm(h, p[f"{name}{l}n1_g"], p[f"{name}{l}n1_b"])
        q, k, v = jnp.split((y @ p[f"{name}{l}qkv"] + p[f"{name}{l}qkv_b"]).reshape(
            n, t, 3 * heads, dh), 3, 2)
        weights = jax.nn.softmax(jnp.einsum("nihd,njhd->nhij", q, k) / math.sqrt(dh), -1)
        att = jnp.einsum("nhij,njhd->nihd", weights, v).reshape(n, t, width)
        h = h + att @ p[f"{name}{l}o"] + p[f"{name}{l}o_b"]
        y = _layer_norm(h, p[f"{name}{l}n2_g"], p[f"{name}{l}n2_b"])
        return h + silu(y @ p[f"{name}{l}f1"] + p[f"{name}{l}f1_b"]) @ p[f"{name}{l}f2"] \
            + p[f"{name}{l}f2_b"]

    def mobilevit(p, name, layers, width, x):
        b, hh, ww, c = x.shape
        y = silu(bn(p, f"{name}local", _conv(x, p[f"{name}local"])))
        y = _conv(y, p[f"{name}in"])
        gh, gw = hh // patch, ww // patch
        y = y.reshape(b, gh, patch, gw, patch, width).transpose(0, 2, 4, 1, 3, 5)
        y = y.reshape(b * patch * patch, gh * gw, width)
        for l in range(layers):
            y = transformer(p, name, l, width, y)
        y = _layer_norm(y, p[f"{name}norm_g"], p[f"{name}norm_b"])
        y = y.reshape(b, patch, patch, gh, gw, width).transpose(0, 3, 1, 4, 2, 5)
        y = silu(bn(p, f"{name}out", _conv(y.reshape(b, hh, ww, width), p[f"{name}out"])))
        return silu(bn(p, f"{name}fuse", _conv(jnp.concatenate([x, y], -1), p[f"{name}fuse"])))

    def loss_fn(p, pictures, labels):
        x = silu(bn(p, "stem", _conv(pictures, p["stem"], 2)))
        for kind, name, a, b in plan:
            if kind == "mv2":
                y = silu(bn(p, f"{name}e", _conv(x, p[f"{name}e"])))
                y = silu(bn(p, f"{name}d", _depthwise(y, p[f"{name}d"], a)))
                y = bn(p, f"{name}p", _conv(y, p[f"{name}p"]))
                x = x + y if b else y
            else:
                x = mobilevit(p, name, a, b, x)
        x = silu(bn(p, "last", _conv(x, p["last"])))
        return _cross_entropy(jnp.mean(x, (1, 2)) @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(2)
    pictures, labels = _texture_pictures(rng, batch, side, classes)
    return _train("adagc", loss_fn, p, jnp.asarray(pictures), jnp.asarray(labels, jnp.int32))


def dynamic_conv_lm(batch: int = 4, length: int = 128, vocab: int = 1024, width: int = 128,
                    heads: int = 8, kernels: tuple[int, ...] = (3, 7, 15, 31),
                    hidden: int = 512) -> Any:
    """Causal language modelling by dynamic convolutions (Wu, Fan, Baevski, Dauphin and
    Auli) in place of self-attention, in bfloat16, on 128-token sequences of a synthetic
    language (an order-two Markov chain over 1024 tokens with sparse transitions, spans of
    earlier text copied now and then). Four pre-norm blocks of width 128: a linear layer
    to twice the width with a gated linear unit, then a dynamic convolution whose kernel
    (3, 7, 15 and 31 taps by block) is predicted at every position by a linear layer of
    the block's input, softmax-normalized over the taps and shared by the sixteen channels
    of each of eight heads; the causal window is gathered as shifted slices of the
    left-padded sequence and contracted with the kernels by an einsum, then a linear
    output layer; a ReLU MLP of 512 follows each. The embedding is tied to the output
    layer under next-token cross-entropy in float32. L4 over Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "position": (length, width)}
    for l, k in enumerate(kernels):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}glu": (width, 2 * width),
                       f"{l}glu_b": (2 * width,), f"{l}kernel": (width, heads * k),
                       f"{l}kernel_b": (heads * k,), f"{l}o": (width, width),
                       f"{l}o_b": (width,), f"{l}n2_g": (width,), f"{l}n2_b": (width,),
                       f"{l}f1": (width, hidden), f"{l}f1_b": (hidden,),
                       f"{l}f2": (hidden, width), f"{l}f2_b": (width,)})
    shapes.update({"norm_g": (width,), "norm_b": (width,), "out_b": (vocab,)})
    p = _params(shapes, seed=3, dtype=bf16)
    p["position"] = p["position"] * jnp.asarray(0.1, bf16)

    def dynamic(p, l, taps, x, v):
        b, t, _ = v.shape
        weights = (x @ p[f"{l}kernel"] + p[f"{l}kernel_b"]).reshape(b, t, heads, taps)
        weights = jax.nn.softmax(weights.astype(jnp.float32), -1).astype(bf16)
        padded = jnp.pad(v, ((0, 0), (taps - 1, 0), (0, 0)))
        window = jnp.stack([padded[:, k:k + t] for k in range(taps)], 2)
        window = window.reshape(b, t, taps, heads, width // heads)
        return jnp.einsum("btkhc,bthk->bthc", window, weights).reshape(b, t, width)

    def loss_fn(p, tokens):
        inputs, targets = tokens[:, :-1], tokens[:, 1:]
        x = p["embed"][inputs] * jnp.asarray(math.sqrt(width), bf16) + p["position"][:length - 1]
        for l, taps in enumerate(kernels):
            h = _layer_norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
            value, gate = jnp.split(h @ p[f"{l}glu"] + p[f"{l}glu_b"], 2, -1)
            y = dynamic(p, l, taps, h, value * jax.nn.sigmoid(gate))
            x = x + y @ p[f"{l}o"] + p[f"{l}o_b"]
            h = _layer_norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + jax.nn.relu(h @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"] + p[f"{l}f2_b"]
        x = _layer_norm(x, p["norm_g"], p["norm_b"])
        return _cross_entropy(x @ p["embed"].T + p["out_b"], targets)

    rng = np.random.default_rng(3)
    successors = rng.integers(0, vocab, (vocab, 24))
    tokens = np.zeros((batch, length), np.int64)
    for i in range(batch):
        row = [int(rng.integers(vocab)), int(rng.integers(vocab))]
        while len(row) < length:
            if len(row) > 16 and rng.uniform() < 0.03:
                start = int(rng.integers(0, len(row) - 8))
                row.extend(row[start:start + int(rng.integers(4, 9))])
            else:
                options = successors[(row[-1] * 31 + row[-2]) % vocab]
                row.append(int(options[min(int(rng.geometric(0.3)) - 1, 23)]))
        tokens[i] = row[:length]
    return _train("l4_adam", loss_fn, p, jnp.asarray(tokens, jnp.int32))


def xcit_classifier(batch: int = 8, side: int = 64, width: int = 96, heads: int = 4,
                    layers: int = 4, talk: int = 2, classes: int = 10, fourier: int = 32) -> Any:
    """Image classification by a cross-covariance image transformer (XCiT; El-Nouby et
    al.) on 64x64 pictures of ten plaid textures. Three stride-2 3x3 convolutions (batch
    norm and GELU between them) embed 8x8 patches at width 96, plus a learned projection
    of 2-D Fourier features of the patch positions. Four layers each run cross-covariance
    attention (queries and keys L2-normalized along the 64 tokens, a 24x24 attention
    between the channels of each of four heads with a learned temperature, applied to the
    values), local patch interaction (two depthwise 3x3 convolutions over the token grid
    with GELU and batch norm between them) and a GELU MLP of four times the width, each
    after a layer norm and scaled by learned per-channel LayerScale gains. Two
    class-attention layers then let a class token attend to the tokens and itself (its
    MLP on the class token only), and a layer norm and a linear classifier on it sit under
    cross-entropy. ND-Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    grid = side // 8
    dh = width // heads
    widths = (width // 4, width // 2, width)
    shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for i, c in enumerate(widths):
        shapes[f"embed{i}"] = (3, 3, cin, c)
        if i < 2:
            shapes.update({f"embed{i}_g": (c,), f"embed{i}_b": (c,)})
        cin = c
    shapes.update({"embed2_b": (width,), "fourier": (2 * fourier, width), "fourier_b": (width,)})
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}qkv_b": (3 * width,), f"{l}temp_g": (heads,),
                       f"{l}o": (width, width), f"{l}o_b": (width,), f"{l}scale1_g": (width,),
                       f"{l}n3_g": (width,), f"{l}n3_b": (width,), f"{l}lpi1": (3, 3, 1, width),
                       f"{l}lpi1_b": (width,), f"{l}lpi_g": (width,), f"{l}lpi_b": (width,),
                       f"{l}lpi2": (3, 3, 1, width), f"{l}lpi2_b": (width,),
                       f"{l}scale3_g": (width,), f"{l}n2_g": (width,), f"{l}n2_b": (width,),
                       f"{l}f1": (width, 4 * width), f"{l}f1_b": (4 * width,),
                       f"{l}f2": (4 * width, width), f"{l}f2_b": (width,),
                       f"{l}scale2_g": (width,)})
    shapes["cls"] = (1, width)
    for l in range(talk):
        shapes.update({f"c{l}n1_g": (width,), f"c{l}n1_b": (width,), f"c{l}q": (width, width),
                       f"c{l}kv": (width, 2 * width), f"c{l}o": (width, width),
                       f"c{l}o_b": (width,), f"c{l}scale1_g": (width,), f"c{l}n2_g": (width,),
                       f"c{l}n2_b": (width,), f"c{l}f1": (width, 4 * width),
                       f"c{l}f1_b": (4 * width,), f"c{l}f2": (4 * width, width),
                       f"c{l}f2_b": (width,), f"c{l}scale2_g": (width,)})
    shapes.update({"norm_g": (width,), "norm_b": (width,), "head": (width, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=4)
    for name in p:
        if "scale" in name:
            p[name] = p[name] * 0.1
    rows, cols = np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij")
    positions = np.concatenate([_sinusoids(rows.reshape(-1) * 64.0 / grid, fourier),
                                _sinusoids(cols.reshape(-1) * 64.0 / grid, fourier)], -1)
    gelu = jax.nn.gelu

    def xca(p, l, x):
        b, n, _ = x.shape
        q, k, v = jnp.split((x @ p[f"{l}qkv"] + p[f"{l}qkv_b"]).reshape(b, n, 3 * heads, dh), 3, 2)
        q = q / (jnp.sqrt(jnp.sum(q * q, 1, keepdims=True)) + 1e-6)
        k = k / (jnp.sqrt(jnp.sum(k * k, 1, keepdims=True)) + 1e-6)
        logits = jnp.einsum("bnhc,bnhd->bhcd", q, k) * p[f"{l}temp_g"][None, :, None, None]
        att = jnp.einsum("bhcd,bnhd->bnhc", jax.nn.softmax(logits, -1), v)
        return att.reshape(b, n, width) @ p[f"{l}o"] + p[f"{l}o_b"]

    def lpi(p, l, x):
        b = x.shape[0]
        y = _depthwise(x.reshape(b, grid, grid, width), p[f"{l}lpi1"]) + p[f"{l}lpi1_b"]
        y = _batch_norm(gelu(y), p[f"{l}lpi_g"], p[f"{l}lpi_b"])
        y = _depthwise(y, p[f"{l}lpi2"]) + p[f"{l}lpi2_b"]
        return y.reshape(b, grid * grid, width)

    def class_attention(p, l, cls, x):
        b = x.shape[0]
        tokens = _layer_norm(jnp.concatenate([cls, x], 1), p[f"c{l}n1_g"], p[f"c{l}n1_b"])
        q = (tokens[:, :1] @ p[f"c{l}q"]).reshape(b, 1, heads, dh)
        k, v = jnp.split((tokens @ p[f"c{l}kv"]).reshape(b, -1, 2 * heads, dh), 2, 2)
        weights = jax.nn.softmax(jnp.einsum("bihd,bjhd->bhij", q, k) / math.sqrt(dh), -1)
        att = jnp.einsum("bhij,bjhd->bihd", weights, v).reshape(b, 1, width)
        cls = cls + p[f"c{l}scale1_g"] * (att @ p[f"c{l}o"] + p[f"c{l}o_b"])
        y = _layer_norm(cls, p[f"c{l}n2_g"], p[f"c{l}n2_b"])
        y = gelu(y @ p[f"c{l}f1"] + p[f"c{l}f1_b"]) @ p[f"c{l}f2"] + p[f"c{l}f2_b"]
        return cls + p[f"c{l}scale2_g"] * y

    def loss_fn(p, pictures, labels):
        b = pictures.shape[0]
        x = pictures
        for i in range(3):
            x = _conv(x, p[f"embed{i}"], 2)
            if i < 2:
                x = gelu(_batch_norm(x, p[f"embed{i}_g"], p[f"embed{i}_b"]))
        x = x.reshape(b, grid * grid, width) + p["embed2_b"]
        x = x + jnp.asarray(positions) @ p["fourier"] + p["fourier_b"]
        for l in range(layers):
            x = x + p[f"{l}scale1_g"] * xca(p, l, _layer_norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"]))
            x = x + p[f"{l}scale3_g"] * lpi(p, l, _layer_norm(x, p[f"{l}n3_g"], p[f"{l}n3_b"]))
            y = _layer_norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + p[f"{l}scale2_g"] * (gelu(y @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"]
                                         + p[f"{l}f2_b"])
        cls = jnp.broadcast_to(p["cls"], (b, 1, width))
        for l in range(talk):
            cls = class_attention(p, l, cls, x)
        cls = _layer_norm(cls[:, 0], p["norm_g"], p["norm_b"])
        return _cross_entropy(cls @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(4)
    pictures, labels = _texture_pictures(rng, batch, side, classes)
    return _train("nd_adam", loss_fn, p, jnp.asarray(pictures), jnp.asarray(labels, jnp.int32))


def moco_pretrain(batch: int = 32, source: int = 40, side: int = 32,
                  widths: tuple[int, ...] = (16, 32, 64, 128), hidden: int = 256,
                  embed: int = 128, queue: int = 4096, groups: int = 4,
                  temperature: float = 0.2, momentum: float = 0.99) -> Any:
    """Self-supervised pretraining by momentum contrast (MoCo v2; He, Fan, Wu, Xie and
    Girshick, then Chen, Fan, Girshick and He) on 32 unlabelled 40x40 pictures of plaid
    textures. Inside the step every picture gets two views: a random 32x32 crop (a
    `dynamic_slice` under `vmap`), a mirror with probability one half, jitter of
    brightness, contrast and saturation and a grey conversion one time in five, all drawn
    by `jax.random`. A query encoder (a small ResNet: a 3x3 stem and four stages of one
    basic block, 16 to 128 channels, batch norm over four groups of eight as if on four
    devices, global pooling and an MLP head of 256 to 128) embeds one view; a key encoder,
    the exponential moving average of the query encoder's weights (momentum 0.99), embeds
    the other view after a random permutation of the batch (shuffled batch norm, undone by
    the inverse permutation). The InfoNCE loss at temperature 0.2 scores each query
    against its own key and the 4096 keys of a queue; the new keys replace the oldest
    ones in the queue (`dynamic_update_slice` at a pointer carried by the step). Adam with
    learning-rate dropout."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

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
    shapes.update({"mlp1": (cin, hidden), "mlp1_b": (hidden,), "mlp2": (hidden, embed),
                   "mlp2_b": (embed,)})
    p = _params(shapes, seed=5, scale=1.4)
    init, update = _update_rule("lr_dropout_adam")
    relu = jax.nn.relu

    def bn(p, k, x):
        b = x.shape[0]
        grouped = x.reshape((groups, b // groups) + x.shape[1:])
        normed = _layer_norm(grouped, p[f"{k}_g"], p[f"{k}_b"], (1, 2, 3))
        return normed.reshape(x.shape)

    def encode(p, x):
        x = relu(bn(p, "stem", _conv(x, p["stem"])))
        for s in range(len(widths)):
            stride = 2 if s else 1
            y = relu(bn(p, f"s{s}a", _conv(x, p[f"s{s}a"], stride)))
            y = bn(p, f"s{s}b", _conv(y, p[f"s{s}b"]))
            skip = bn(p, f"s{s}skip", _conv(x, p[f"s{s}skip"], stride)) if s else x
            x = relu(y + skip)
        x = relu(jnp.mean(x, (1, 2)) @ p["mlp1"] + p["mlp1_b"]) @ p["mlp2"] + p["mlp2_b"]
        return x / (jnp.sqrt(jnp.sum(x * x, -1, keepdims=True)) + 1e-6)

    def view(key, pictures):
        b = pictures.shape[0]
        k_at, k_flip, k_colour, k_grey = jax.random.split(key, 4)
        at = jax.random.randint(k_at, (b, 2), 0, source - side + 1)
        crops = jax.vmap(lambda im, a: lax.dynamic_slice(im, (a[0], a[1], 0), (side, side, 3)))(
            pictures, at)
        flip = jax.random.bernoulli(k_flip, 0.5, (b, 1, 1, 1))
        crops = jnp.where(flip, crops[:, :, ::-1], crops)
        jitter = jax.random.uniform(k_colour, (b, 1, 1, 3), minval=0.6, maxval=1.4)
        grey = jnp.mean(crops, -1, keepdims=True)
        mean = jnp.mean(crops, (1, 2, 3), keepdims=True)
        crops = grey + (crops - grey) * jitter[..., 2:3]
        crops = mean + (crops - mean) * jitter[..., 1:2]
        crops = crops * jitter[..., 0:1]
        drop = jax.random.bernoulli(k_grey, 0.2, (b, 1, 1, 1))
        return jnp.where(drop, jnp.mean(crops, -1, keepdims=True), crops)

    def step(params, key_params, state, keys_queue, pointer, pictures, key):
        b = pictures.shape[0]
        k_query, k_key, k_shuffle = jax.random.split(key, 3)
        queries_in, keys_in = view(k_query, pictures), view(k_key, pictures)
        order = jax.random.permutation(k_shuffle, b)
        keys = lax.stop_gradient(encode(key_params, keys_in[order])[jnp.argsort(order)])

        def loss_fn(p):
            q = encode(p, queries_in)
            positive = jnp.sum(q * keys, -1, keepdims=True)
            negative = q @ keys_queue.T
            logits = jnp.concatenate([positive, negative], 1) / temperature
            return _cross_entropy(logits, jnp.zeros(b, jnp.int32))

        loss, grads = jax.value_and_grad(loss_fn)(params)
        params, state = update(params, grads, state, loss)
        key_params = jax.tree.map(lambda k, q: momentum * k + (1.0 - momentum) * q,
                                  key_params, params)
        keys_queue = lax.dynamic_update_slice(keys_queue, keys, (pointer, 0))
        return params, key_params, state, keys_queue, (pointer + b) % queue, loss

    rng = np.random.default_rng(5)
    pictures, _ = _texture_pictures(rng, batch, source, 12)
    stored = rng.standard_normal((queue, embed)).astype(np.float32)
    stored /= np.linalg.norm(stored, axis=1, keepdims=True)
    return jax.jit(step).lower(p, p, jax.eval_shape(init, p), jnp.asarray(stored),
                               jnp.int32(0), jnp.asarray(pictures), jax.random.PRNGKey(5))


def td3_agent(batch: int = 512, observations: int = 24, actions: int = 6, hidden: int = 256,
              discount: float = 0.99, tau: float = 0.005, noise: float = 0.2,
              noise_clip: float = 0.5, delay: int = 2) -> Any:
    """One update of a twin delayed deep deterministic policy gradient agent (TD3;
    Fujimoto, van Hoof and Meger) on 512 transitions replayed from a synthetic continuous
    control task (24 observations, six actions in [-1, 1], rewards for tracking a target
    with an action cost, one transition in a hundred terminal). The actor is an MLP of two
    ReLU layers of 256 with a tanh output; two critics of the same shape score state and
    action. The target action is the target actor's plus Gaussian noise clipped to 0.5
    (target policy smoothing, the noise from `jax.random`), and both critics regress
    towards the reward plus the discounted smaller of the two target critics' values.
    Every second step, under `lax.cond` on the step counter, the actor climbs the first
    critic's value of its own actions and all three target networks move 0.005 of the way
    to the trained ones (Polyak averaging). SMORMS3, one state for the critics and one for
    the actor."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def mlp_shapes(cin: int, cout: int) -> dict[str, tuple[int, ...]]:
        return {"w0": (cin, hidden), "w0_b": (hidden,), "w1": (hidden, hidden),
                "w1_b": (hidden,), "w2": (hidden, cout), "w2_b": (cout,)}

    actor = _params(mlp_shapes(observations, actions), seed=6)
    critics = {"q1": _params(mlp_shapes(observations + actions, 1), seed=7),
               "q2": _params(mlp_shapes(observations + actions, 1), seed=8)}
    init, update = _update_rule("smorms3")
    tm = jax.tree.map

    def mlp(p, x):
        x = jax.nn.relu(x @ p["w0"] + p["w0_b"])
        x = jax.nn.relu(x @ p["w1"] + p["w1_b"])
        return x @ p["w2"] + p["w2_b"]

    def policy(p, s):
        return jnp.tanh(mlp(p, s))

    def value(p, s, a):
        return mlp(p, jnp.concatenate([s, a], -1))[:, 0]

    def step(actor, critics, target_actor, target_critics, actor_state, critic_state, t,
             s, a, r, s2, done, key):
        smooth = jnp.clip(noise * jax.random.normal(key, a.shape), -noise_clip, noise_clip)
        a2 = jnp.clip(policy(target_actor, s2) + smooth, -1.0, 1.0)
        future = jnp.minimum(value(target_critics["q1"], s2, a2),
                             value(target_critics["q2"], s2, a2))
        target = lax.stop_gradient(r + discount * (1.0 - done) * future)

        def critic_loss(c):
            return (jnp.mean(jnp.square(value(c["q1"], s, a) - target))
                    + jnp.mean(jnp.square(value(c["q2"], s, a) - target)))

        c_loss, c_grads = jax.value_and_grad(critic_loss)(critics)
        critics, critic_state = update(critics, c_grads, critic_state, c_loss)

        def improve(carry):
            actor, actor_state, target_actor, target_critics = carry
            a_loss, a_grads = jax.value_and_grad(
                lambda p: -jnp.mean(value(critics["q1"], s, policy(p, s))))(actor)
            actor, actor_state = update(actor, a_grads, actor_state, a_loss)
            follow = lambda old, new: tm(lambda o, n: (1.0 - tau) * o + tau * n, old, new)
            return (actor, actor_state, follow(target_actor, actor),
                    follow(target_critics, critics)), a_loss

        def wait(carry):
            return carry, jnp.zeros((), jnp.float32)

        (actor, actor_state, target_actor, target_critics), a_loss = lax.cond(
            t % delay == 0, improve, wait, (actor, actor_state, target_actor, target_critics))
        return (actor, critics, target_actor, target_critics, actor_state, critic_state, t + 1,
                c_loss, a_loss)

    rng = np.random.default_rng(6)
    dynamics = rng.standard_normal((observations, observations)) * 0.15
    control = rng.standard_normal((actions, observations)) * 0.3
    goal = rng.standard_normal(observations)
    s = rng.standard_normal((batch, observations))
    a = np.clip(rng.standard_normal((batch, actions)) * 0.6, -1, 1)
    s2 = np.tanh(s @ (np.eye(observations) + dynamics) + a @ control) \
        + 0.05 * rng.standard_normal((batch, observations))
    r = -np.sum((s2 - goal) ** 2, -1) / observations - 0.1 * np.sum(a ** 2, -1)
    done = (rng.uniform(size=batch) < 0.01).astype(np.float32)
    f32 = lambda x: jnp.asarray(x, jnp.float32)
    return jax.jit(step).lower(actor, critics, actor, critics, jax.eval_shape(init, actor),
                               jax.eval_shape(init, critics), jnp.int32(0), f32(s), f32(a),
                               f32(r), f32(s2), f32(done), jax.random.PRNGKey(6))


def painn_molecules(molecules: int = 8, atoms: int = 24, elements: int = 5, width: int = 64,
                    layers: int = 3, basis: int = 20, cutoff: float = 5.0,
                    force_weight: float = 10.0) -> Any:
    """Energies and forces of small molecules by the polarizable atom interaction neural
    network (PaiNN; Schutt, Unke and Gastegger): eight molecules of 24 atoms of five
    elements (branched chains built on the host, their energies and forces from a Morse
    potential over all pairs with element-dependent well depths and lengths). Every atom
    carries 64 scalar and 64 three-vector features. Three layers each send messages over
    all pairs within 5 A: a filter from 20 sine radial functions under a cosine cutoff
    gates an MLP of the sender's scalars into scalar messages, messages that carry the
    sender's vectors and messages along the unit bond vector; an update mixes the vectors
    by two linear maps and gates them, and the scalars, by an MLP of the scalars and the
    norms of the mixed vectors, adding their scalar product. Atomic energies from an MLP
    sum to the molecule's; the forces are minus the gradient of the energy with respect to
    the positions (a `jax.grad` inside the loss, so the backward pass differentiates the
    network twice), and the loss weighs their squared error ten times that of the energy
    per atom. The triple momentum method (Van Scoy, Freeman and Lynch): the gradient is
    taken at a point extrapolated from the last two iterates."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    f = width
    shapes: dict[str, tuple[int, ...]] = {"embed": (elements, f)}
    for l in range(layers):
        shapes.update({f"{l}phi1": (f, f), f"{l}phi1_b": (f,), f"{l}phi2": (f, 3 * f),
                       f"{l}phi2_b": (3 * f,), f"{l}filter": (basis, 3 * f),
                       f"{l}filter_b": (3 * f,), f"{l}u": (f, f), f"{l}v": (f, f),
                       f"{l}a1": (2 * f, f), f"{l}a1_b": (f,), f"{l}a2": (f, 3 * f),
                       f"{l}a2_b": (3 * f,)})
    shapes.update({"out1": (f, f // 2), "out1_b": (f // 2,), "out2": (f // 2, 1),
                   "out2_b": (1,)})
    p = _params(shapes, seed=9)
    silu = jax.nn.silu
    n = atoms

    def energy(p, positions, species):
        b = positions.shape[0]
        diff = positions[:, None, :, :] - positions[:, :, None, :]
        self_pair = jnp.eye(n, dtype=bool)
        dist = jnp.sqrt(jnp.sum(diff * diff, -1) + jnp.where(self_pair, 1.0, 0.0))
        unit = diff / dist[..., None]
        near = (dist < cutoff) & ~self_pair
        k = jnp.arange(1, basis + 1, dtype=jnp.float32)
        rbf = jnp.sin(k * math.pi * dist[..., None] / cutoff) / dist[..., None]
        fcut = jnp.where(near, 0.5 * (jnp.cos(math.pi * dist / cutoff) + 1.0), 0.0)
        s = p["embed"][species]
        v = jnp.zeros((b, n, 3, f))
        for l in range(layers):
            phi = silu(s @ p[f"{l}phi1"] + p[f"{l}phi1_b"]) @ p[f"{l}phi2"] + p[f"{l}phi2_b"]
            w = (rbf @ p[f"{l}filter"] + p[f"{l}filter_b"]) * fcut[..., None]
            x = phi[:, None, :, :] * w
            s = s + jnp.sum(x[..., :f], 2)
            v = v + jnp.sum(x[..., None, f:2 * f] * v[:, None]
                            + x[..., None, 2 * f:] * unit[..., None], 2)
            uv, vv = v @ p[f"{l}u"], v @ p[f"{l}v"]
            size = jnp.sqrt(jnp.sum(vv * vv, -2) + 1e-8)
            a = silu(jnp.concatenate([s, size], -1) @ p[f"{l}a1"] + p[f"{l}a1_b"])
            a = a @ p[f"{l}a2"] + p[f"{l}a2_b"]
            v = v + a[..., None, :f] * uv
            s = s + a[..., f:2 * f] * jnp.sum(uv * vv, -2) + a[..., 2 * f:]
        atomic = silu(s @ p["out1"] + p["out1_b"]) @ p["out2"] + p["out2_b"]
        return jnp.sum(atomic[..., 0], -1)

    def loss_fn(p, positions, species, target_energy, target_forces):
        def total(x):
            energies = energy(p, x, species)
            return jnp.sum(energies), energies

        slope, predicted = jax.grad(total, has_aux=True)(positions)
        per_atom = jnp.mean(jnp.square((predicted - target_energy) / n))
        return per_atom + force_weight * jnp.mean(jnp.square(-slope - target_forces))

    kappa, smooth = 2500.0, 50.0
    rho = 1.0 - 1.0 / math.sqrt(kappa)
    alpha = (1.0 + rho) / smooth
    beta = rho * rho / (2.0 - rho)
    gamma = rho * rho / ((1.0 + rho) * (2.0 - rho))
    delta = rho * rho / (1.0 - rho * rho)
    tm = jax.tree.map

    def step(params, previous, positions, species, target_energy, target_forces):
        probe = tm(lambda x, xp: (1.0 + gamma) * x - gamma * xp, params, previous)
        loss, g = jax.value_and_grad(loss_fn)(probe, positions, species, target_energy,
                                              target_forces)
        moved = tm(lambda x, xp, g_: (1.0 + beta) * x - beta * xp - alpha * g_,
                   params, previous, g)
        estimate = tm(lambda x, xp: (1.0 + delta) * x - delta * xp, moved, params)
        return moved, params, estimate, loss

    rng = np.random.default_rng(9)
    depth = rng.uniform(0.5, 2.0, (elements, elements))
    depth = (depth + depth.T) / 2
    length = rng.uniform(1.1, 1.7, (elements, elements))
    length = (length + length.T) / 2
    positions = np.zeros((molecules, atoms, 3))
    species = rng.integers(0, elements, (molecules, atoms))
    for m in range(molecules):
        for i in range(1, atoms):
            parent = i - 1 if rng.uniform() < 0.7 else int(rng.integers(0, i))
            step_dir = rng.standard_normal(3)
            positions[m, i] = positions[m, parent] + 1.4 * step_dir / np.linalg.norm(step_dir)
    positions += 0.05 * rng.standard_normal(positions.shape)
    diff = positions[:, None, :, :] - positions[:, :, None, :]
    dist = np.linalg.norm(diff, axis=-1) + np.eye(atoms)
    d = depth[species[:, :, None], species[:, None, :]]
    r0 = length[species[:, :, None], species[:, None, :]]
    decay = np.exp(-1.5 * (dist - r0))
    pair = np.where(np.eye(atoms, dtype=bool), 0.0, d * (1 - decay) ** 2)
    energies = pair.sum((1, 2)) / 2
    de_dr = np.where(np.eye(atoms, dtype=bool), 0.0, 2 * d * (1 - decay) * 1.5 * decay)
    forces = np.sum(de_dr[..., None] * diff / dist[..., None], 2)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(step).lower(p, p, f32(positions), jnp.asarray(species, jnp.int32),
                               f32(energies), f32(forces))


def s4d_classifier(batch: int = 4, side: int = 32, width: int = 64, state: int = 64,
                   layers: int = 4, classes: int = 10, probes: int = 2, rate: float = 1e-3,
                   momentum: float = 0.9) -> Any:
    """Sequence classification by a diagonal structured state space model (S4D; Gu, Gupta,
    Goel and Re) of the 1024 pixels of 32x32 grey plaid textures read in raster order,
    ten classes. A linear encoder to 64 channels feeds four pre-norm residual layers, each
    an S4D convolution (per channel, 32 complex conjugate pairs of diagonal state with
    S4D-Lin initialization and a learned step size: the kernel over all 1024 lags is a
    sum of complex exponentials by a Vandermonde product, discretized by zero-order hold,
    and applied as a causal convolution by real FFTs of twice the length, plus a skip
    term), then GELU and a linear layer to twice the width under a gated linear unit;
    mean pooling and a linear classifier under cross-entropy. It trains without a
    backward pass, by forward gradients (Baydin, Pearlmutter, Syme, Wood and Torr): two
    Gaussian tangents drawn by `jax.random` over all weights, the directional derivative
    along each from the loss linearized once (`jax.linearize`, its linear map applied to
    the two under `vmap`), their average of slope times tangent taken as the gradient,
    under momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    length = side * side
    half = state // 2
    shapes: dict[str, tuple[int, ...]] = {"encode": (1, width), "encode_b": (width,)}
    for l in range(layers):
        shapes.update({f"{l}n_g": (width,), f"{l}n_b": (width,), f"{l}c": (width, half, 2),
                       f"{l}skip_g": (width,), f"{l}mix": (width, 2 * width),
                       f"{l}mix_b": (2 * width,)})
    shapes.update({"head": (width, classes), "head_b": (classes,)})
    p = _params(shapes, seed=10)
    rng = np.random.default_rng(10)
    for l in range(layers):
        p[f"{l}log_dt"] = jnp.asarray(rng.uniform(np.log(1e-3), np.log(1e-1), width),
                                      jnp.float32)
        p[f"{l}log_a_real"] = jnp.full((width, half), np.log(0.5), jnp.float32)
        p[f"{l}a_imag"] = jnp.asarray(np.broadcast_to(np.pi * np.arange(half), (width, half)),
                                      jnp.float32)
        p[f"{l}c"] = p[f"{l}c"] * math.sqrt(0.5) * math.sqrt(half)
    tm = jax.tree.map

    def kernel(p, l):
        dt = jnp.exp(p[f"{l}log_dt"])[:, None]
        a = -jnp.exp(p[f"{l}log_a_real"]) + 1j * p[f"{l}a_imag"]
        c = (p[f"{l}c"][..., 0] + 1j * p[f"{l}c"][..., 1]) * (jnp.exp(dt * a) - 1.0) / a
        powers = jnp.exp((dt * a)[..., None] * jnp.arange(length))
        return 2.0 * jnp.real(jnp.einsum("hn,hnl->hl", c, powers))

    def loss_fn(p, sequences, labels):
        x = sequences[..., None] @ p["encode"] + p["encode_b"]
        for l in range(layers):
            h = _layer_norm(x, p[f"{l}n_g"], p[f"{l}n_b"])
            spectrum = jnp.fft.rfft(h, n=2 * length, axis=1) \
                * jnp.fft.rfft(kernel(p, l), n=2 * length, axis=-1).T
            y = jnp.fft.irfft(spectrum, n=2 * length, axis=1)[:, :length] + h * p[f"{l}skip_g"]
            value, gate = jnp.split(jax.nn.gelu(y) @ p[f"{l}mix"] + p[f"{l}mix_b"], 2, -1)
            x = x + value * jax.nn.sigmoid(gate)
        return _cross_entropy(jnp.mean(x, 1) @ p["head"] + p["head_b"], labels)

    def step(params, velocity, sequences, labels, key):
        leaves, tree = jax.tree.flatten(params)
        draws = jax.random.split(key, len(leaves))
        tangents = tree.unflatten([jax.random.normal(k, (probes,) + leaf.shape)
                                   for k, leaf in zip(draws, leaves)])
        loss, along = jax.linearize(lambda w: loss_fn(w, sequences, labels), params)
        slopes = jax.vmap(along)(tangents)
        estimate = tm(lambda v: jnp.tensordot(slopes, v, 1) / probes, tangents)
        velocity = tm(lambda z, g: momentum * z + g, velocity, estimate)
        params = tm(lambda w, z: w - rate * z, params, velocity)
        return params, velocity, loss

    pictures, labels = _texture_pictures(rng, batch, side, classes)
    sequences = pictures.mean(-1).reshape(batch, length)
    return jax.jit(step).lower(p, tm(jnp.zeros_like, p), jnp.asarray(sequences),
                               jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(10))


def sngan_projection(batch: int = 8, side: int = 32, latent: int = 128, width: int = 32,
                     classes: int = 10) -> Any:
    """A class-conditional GAN with spectral normalization (SN-GAN; Miyato, Kataoka,
    Koyama and Yoshida) and a projection discriminator (Miyato and Koyama) on 32x32
    pictures of ten classes of plaid textures, under the hinge loss. The generator maps
    128 Gaussian latents by a dense layer to 4x4x32 and three residual up-blocks
    (conditional batch norm whose gains and shifts are looked up by class, ReLU,
    nearest-neighbour upsampling by `jnp.repeat`, two 3x3 convolutions, a 1x1 convolution
    on the upsampled shortcut) to 32x32, then batch norm, ReLU, a 3x3 convolution and
    tanh. The discriminator has three residual down-blocks (two 3x3 convolutions, 2x2
    average pooling, a 1x1 shortcut) and a plain residual block of 32 channels, ReLU, a
    global sum, and a linear score plus the inner product of the features with the
    class's embedding. Every discriminator weight is divided by its largest singular
    value estimated by one power iteration per use, whose vectors persist from step to
    step as state. One step trains the discriminator on real pictures and fresh fakes of
    random classes (latents and classes from `jax.random`), then the generator against the
    updated discriminator; each network keeps its own optimizer state. AdaAlter."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    base = side // 8
    gen_shapes: dict[str, tuple[int, ...]] = {"dense": (latent, base * base * width),
                                              "dense_b": (base * base * width,)}
    for i in range(3):
        gen_shapes.update({f"up{i}n1g_z": (classes, width), f"up{i}n1b_z": (classes, width),
                           f"up{i}c1": (3, 3, width, width), f"up{i}c1_b": (width,),
                           f"up{i}n2g_z": (classes, width), f"up{i}n2b_z": (classes, width),
                           f"up{i}c2": (3, 3, width, width), f"up{i}c2_b": (width,),
                           f"up{i}skip": (1, 1, width, width), f"up{i}skip_b": (width,)})
    gen_shapes.update({"out_g": (width,), "out_b": (width,), "rgb": (3, 3, width, 3),
                       "rgb_b": (3,)})
    disc_shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for i in range(4):
        disc_shapes.update({f"d{i}c1": (3, 3, cin, width), f"d{i}c1_b": (width,),
                            f"d{i}c2": (3, 3, width, width), f"d{i}c2_b": (width,)})
        if i < 3:
            disc_shapes.update({f"d{i}skip": (1, 1, cin, width), f"d{i}skip_b": (width,)})
        cin = width
    disc_shapes.update({"score": (width, 1), "score_b": (1,), "embed": (classes, width)})
    gen = _params(gen_shapes, seed=11)
    disc = _params(disc_shapes, seed=12)
    rng = np.random.default_rng(11)
    vectors = {name: jnp.asarray(rng.standard_normal(w.shape[-1]) / math.sqrt(w.shape[-1]),
                                 jnp.float32)
               for name, w in disc.items() if not name.endswith("_b")}
    init, update = _update_rule("adaalter")
    relu = jax.nn.relu

    def normalized(d, u):
        """The discriminator's weights over their spectral norms, and the new vectors."""
        out, new_u = dict(d), {}
        for name, vec in u.items():
            w = d[name]
            matrix = w.reshape(-1, w.shape[-1])
            v = matrix @ vec
            v = v / (jnp.sqrt(jnp.sum(v * v)) + 1e-12)
            vec = matrix.T @ v
            vec = lax.stop_gradient(vec / (jnp.sqrt(jnp.sum(vec * vec)) + 1e-12))
            v = lax.stop_gradient(v)
            out[name] = w / (v @ matrix @ vec)
            new_u[name] = vec
        return out, new_u

    def pool(x):
        b, h, w, c = x.shape
        return x.reshape(b, h // 2, 2, w // 2, 2, c).mean((2, 4))

    def criticize(d, u, x, labels):
        d, u = normalized(d, u)
        for i in range(4):
            h = x if i == 0 else relu(x)
            h = _conv(h, d[f"d{i}c1"]) + d[f"d{i}c1_b"]
            h = _conv(relu(h), d[f"d{i}c2"]) + d[f"d{i}c2_b"]
            if i < 3:
                x = pool(h) + pool(_conv(x, d[f"d{i}skip"]) + d[f"d{i}skip_b"])
            else:
                x = x + h
        h = jnp.sum(relu(x), (1, 2))
        score = (h @ d["score"] + d["score_b"])[:, 0] + jnp.sum(d["embed"][labels] * h, -1)
        return score, u

    def conditional(g, k, x, labels):
        return _layer_norm(x, 1.0 + g[f"{k}g_z"][labels][:, None, None, :],
                           g[f"{k}b_z"][labels][:, None, None, :], (0, 1, 2))

    def generate(g, z, labels):
        x = (z @ g["dense"] + g["dense_b"]).reshape(z.shape[0], base, base, width)
        for i in range(3):
            h = relu(conditional(g, f"up{i}n1", x, labels))
            h = jnp.repeat(jnp.repeat(h, 2, 1), 2, 2)
            h = _conv(h, g[f"up{i}c1"]) + g[f"up{i}c1_b"]
            h = relu(conditional(g, f"up{i}n2", h, labels))
            h = _conv(h, g[f"up{i}c2"]) + g[f"up{i}c2_b"]
            skip = jnp.repeat(jnp.repeat(x, 2, 1), 2, 2)
            x = h + _conv(skip, g[f"up{i}skip"]) + g[f"up{i}skip_b"]
        x = relu(_batch_norm(x, g["out_g"], g["out_b"]))
        return jnp.tanh(_conv(x, g["rgb"]) + g["rgb_b"])

    def step(gen, disc, vectors, gen_state, disc_state, real, labels, key):
        b = real.shape[0]
        k_fake, k_class, k_gen = jax.random.split(key, 3)
        fake_labels = jax.random.randint(k_class, (b,), 0, classes)
        fake = lax.stop_gradient(generate(gen, jax.random.normal(k_fake, (b, latent)),
                                          fake_labels))

        def disc_loss(d):
            real_score, u = criticize(d, vectors, real, labels)
            fake_score, u = criticize(d, u, fake, fake_labels)
            loss = jnp.mean(relu(1.0 - real_score)) + jnp.mean(relu(1.0 + fake_score))
            return loss, u

        (d_loss, vectors), d_grads = jax.value_and_grad(disc_loss, has_aux=True)(disc)
        disc, disc_state = update(disc, d_grads, disc_state, d_loss)

        def gen_loss(g):
            made = generate(g, jax.random.normal(k_gen, (b, latent)), fake_labels)
            return -jnp.mean(criticize(disc, vectors, made, fake_labels)[0])

        g_loss, g_grads = jax.value_and_grad(gen_loss)(gen)
        gen, gen_state = update(gen, g_grads, gen_state, g_loss)
        return gen, disc, vectors, gen_state, disc_state, d_loss, g_loss

    pictures, labels = _texture_pictures(rng, batch, side, classes)
    pictures = np.tanh(0.6 * pictures)
    return jax.jit(step).lower(gen, disc, vectors, jax.eval_shape(init, gen),
                               jax.eval_shape(init, disc), jnp.asarray(pictures),
                               jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(11))


def maskgit_tokens(batch: int = 8, side: int = 32, patch: int = 4, codes: int = 512,
                   width: int = 96, heads: int = 4, layers: int = 4, classes: int = 10,
                   smoothing: float = 0.1) -> Any:
    """Masked visual token modelling as in MaskGIT (Chang, Zhang, Jiang, Liu and Freeman) in
    bfloat16, class-conditional: 32x32 pictures of ten classes of plaid textures are
    tokenized on the host into 8x8 grids of codes from a 512-entry codebook of 4x4
    patches (nearest codes, standing in for a VQ tokenizer). Each step masks a share of
    every grid given by the cosine schedule at a uniform random ratio (at least one
    token), the masked tokens chosen as the lowest ranks of uniform scores (a double
    `argsort`), all drawn by `jax.random`; a bidirectional pre-norm transformer of four
    layers (width 96, four heads, GELU MLPs of 384) reads a class token and the 64 tokens
    with [MASK] in place of the masked ones, and predicts the masked codes through the
    tied embedding under cross-entropy with label smoothing of 0.1 in float32. The update
    is PAL (Mutschler and Zell): along the normalized direction of the gradient plus 0.4
    of the previous direction, a second forward pass measures the loss 0.1 ahead; the
    parabola through the two losses and the slope gives the step to its minimum (times
    1.6, at most 3.16), or the measuring distance where the parabola opens downwards, or
    nothing where the direction does not descend."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    grid = side // patch
    tokens_per = grid * grid
    dh = width // heads
    mask_id = codes
    shapes: dict[str, tuple[int, ...]] = {"embed": (codes + 1 + classes, width),
                                          "position": (tokens_per + 1, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}qkv_b": (3 * width,), f"{l}o": (width, width), f"{l}o_b": (width,),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}f1": (width, 4 * width),
                       f"{l}f1_b": (4 * width,), f"{l}f2": (4 * width, width),
                       f"{l}f2_b": (width,)})
    shapes.update({"norm_g": (width,), "norm_b": (width,), "out_b": (codes,)})
    p = _params(shapes, seed=13, dtype=bf16)
    p["position"] = p["position"] * jnp.asarray(0.1, bf16)
    beta, measure, adapt, largest = 0.4, 0.1, 1.6, 3.16
    tm = jax.tree.map

    def loss_fn(p, inputs, targets, masked):
        b = inputs.shape[0]
        x = p["embed"][inputs] + p["position"]
        for l in range(layers):
            h = _layer_norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
            q, k, v = jnp.split((h @ p[f"{l}qkv"] + p[f"{l}qkv_b"]).reshape(
                b, tokens_per + 1, 3 * heads, dh), 3, 2)
            logits = jnp.einsum("bihd,bjhd->bhij", q, k).astype(f32) / math.sqrt(dh)
            weights = jax.nn.softmax(logits, -1).astype(bf16)
            att = jnp.einsum("bhij,bjhd->bihd", weights, v).reshape(b, tokens_per + 1, width)
            x = x + att @ p[f"{l}o"] + p[f"{l}o_b"]
            h = _layer_norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"] + p[f"{l}f2_b"]
        x = _layer_norm(x[:, 1:], p["norm_g"], p["norm_b"])
        logits = (x @ p["embed"][:codes].T + p["out_b"]).astype(f32)
        logp = jax.nn.log_softmax(logits, -1)
        picked = jnp.take_along_axis(logp, targets[..., None], -1)[..., 0]
        per_token = -(1.0 - smoothing) * picked - smoothing * jnp.mean(logp, -1)
        weight = masked.astype(f32)
        return jnp.sum(per_token * weight) / jnp.sum(weight)

    def step(params, direction, grids, labels, key):
        b = grids.shape[0]
        k_ratio, k_order = jax.random.split(key)
        ratio = jnp.cos(0.5 * math.pi * jax.random.uniform(k_ratio, (b, 1)))
        hidden = jnp.maximum(jnp.ceil(ratio * tokens_per), 1.0)
        rank = jnp.argsort(jnp.argsort(jax.random.uniform(k_order, (b, tokens_per)), -1), -1)
        masked = rank < hidden
        inputs = jnp.concatenate([(codes + 1 + labels)[:, None],
                                  jnp.where(masked, mask_id, grids)], 1)
        loss, g = jax.value_and_grad(loss_fn)(params, inputs, grids, masked)
        direction = tm(lambda d, g_: beta * d + g_.astype(f32), direction, g)
        size = _global_norm(direction) + 1e-12
        unit = tm(lambda d: -d / size, direction)
        ahead = loss_fn(tm(lambda w, u: (w.astype(f32) + measure * u).astype(w.dtype),
                           params, unit), inputs, grids, masked)
        slope = sum(jnp.sum(a.astype(f32) * u) for a, u in zip(jax.tree.leaves(g),
                                                               jax.tree.leaves(unit)))
        curve = (ahead - loss - slope * measure) / (measure * measure)
        descends = slope < 0
        to_minimum = jnp.minimum(adapt * -slope / (2.0 * jnp.maximum(curve, 1e-12)), largest)
        distance = jnp.where(descends & (curve > 0), to_minimum, jnp.where(descends, measure, 0.0))
        params = tm(lambda w, u: (w.astype(f32) + distance * u).astype(w.dtype), params, unit)
        return params, direction, loss, distance

    rng = np.random.default_rng(13)
    pictures, labels = _texture_pictures(rng, batch, side, classes)
    pieces = pictures.reshape(batch, grid, patch, grid, patch, 3).transpose(0, 1, 3, 2, 4, 5)
    pieces = pieces.reshape(batch * tokens_per, -1)
    pool, _ = _texture_pictures(rng, 32, side, classes)
    pool = pool.reshape(32, grid, patch, grid, patch, 3).transpose(0, 1, 3, 2, 4, 5)
    pool = pool.reshape(-1, patch * patch * 3)
    book = pool[rng.choice(len(pool), codes, replace=False)]
    nearest = np.argmin((pieces ** 2).sum(1)[:, None] - 2 * pieces @ book.T
                        + (book ** 2).sum(1)[None, :], 1)
    grids = nearest.reshape(batch, tokens_per)
    zeros = tm(lambda w: jnp.zeros(w.shape, f32), p)
    return jax.jit(step).lower(p, zeros, jnp.asarray(grids, jnp.int32),
                               jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(13))


def gmres_convection(problems: int = 4, side: int = 96, krylov: int = 24, restarts: int = 6,
                     diffusion: float = 0.01) -> Any:
    """Four steady convection-diffusion problems on a 96x96 grid (Dirichlet boundaries,
    five-point diffusion of strength 0.01, first-order upwind convection by a recirculating
    wind field of its own per problem, a forcing of smooth blobs), solved without a
    gradient by restarted GMRES(24) with Jacobi right preconditioning, the operator applied
    matrix-free by padded shifted slices. The restarts run in a `lax.while_loop` with a
    fixed count of six; within each, an Arnoldi process in a `fori_loop` of 24 steps
    orthogonalizes each new vector against the basis by classical Gram-Schmidt applied
    twice (masked matrix-vector products with the whole basis), Givens rotations in a
    second `fori_loop` reduce the Hessenberg matrix to triangular form, and back
    substitution in a third gives the correction. The four problems are batched by
    `vmap`; the solutions, the residual estimate after every restart and the true final
    residuals come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = side * side
    h = 1.0 / (side + 1)

    def operator(u, wind):
        padded = jnp.pad(u, 1)
        north, south = padded[:-2, 1:-1], padded[2:, 1:-1]
        west, east = padded[1:-1, :-2], padded[1:-1, 2:]
        diffuse = diffusion * (4.0 * u - north - south - west - east) / (h * h)
        bx, by = wind[..., 0], wind[..., 1]
        dx = jnp.where(bx > 0, u - west, east - u) / h
        dy = jnp.where(by > 0, u - north, south - u) / h
        return diffuse + bx * dx + by * dy

    def solve(wind, forcing):
        diagonal = 4.0 * diffusion / (h * h) + (jnp.abs(wind[..., 0]) + jnp.abs(wind[..., 1])) / h
        inverse = (1.0 / diagonal).reshape(-1)
        apply = lambda v: operator((v * inverse).reshape(side, side), wind).reshape(-1)
        b = forcing.reshape(-1)
        rows = jnp.arange(krylov + 1)

        def restart(carry):
            i, y, history = carry
            r = b - apply(y)
            beta = jnp.sqrt(jnp.sum(r * r))
            basis = jnp.zeros((krylov + 1, n)).at[0].set(r / beta)
            hessenberg = jnp.zeros((krylov + 1, krylov))

            def arnoldi(k, state):
                basis, hessenberg = state
                w = apply(basis[k])
                live = (rows <= k).astype(w.dtype)
                column = jnp.zeros(krylov + 1)
                for _ in range(2):
                    c = (basis @ w) * live
                    w = w - c @ basis
                    column = column + c
                size = jnp.sqrt(jnp.sum(w * w))
                basis = basis.at[k + 1].set(w / (size + 1e-30))
                column = column + jnp.where(rows == k + 1, size, 0.0)
                return basis, hessenberg.at[:, k].set(column)

            basis, hessenberg = lax.fori_loop(0, krylov, arnoldi, (basis, hessenberg))
            rhs = jnp.zeros(krylov + 1).at[0].set(beta)

            def rotate(k, state):
                hessenberg, rhs = state
                a, c = hessenberg[k, k], hessenberg[k + 1, k]
                radius = jnp.sqrt(a * a + c * c) + 1e-30
                cs, sn = a / radius, c / radius
                top, bottom = hessenberg[k], hessenberg[k + 1]
                hessenberg = hessenberg.at[k].set(cs * top + sn * bottom)
                hessenberg = hessenberg.at[k + 1].set(cs * bottom - sn * top)
                first, second = rhs[k], rhs[k + 1]
                rhs = rhs.at[k].set(cs * first + sn * second).at[k + 1].set(cs * second
                                                                            - sn * first)
                return hessenberg, rhs

            triangle, rhs = lax.fori_loop(0, krylov, rotate, (hessenberg, rhs))

            def back(t, z):
                k = krylov - 1 - t
                return z.at[k].set((rhs[k] - triangle[k, :krylov] @ z) / triangle[k, k])

            z = lax.fori_loop(0, krylov, back, jnp.zeros(krylov))
            y = y + z @ basis[:krylov]
            return i + 1, y, history.at[i].set(jnp.abs(rhs[krylov]))

        _, y, history = lax.while_loop(lambda carry: carry[0] < restarts, restart,
                                       (jnp.int32(0), jnp.zeros(n), jnp.zeros(restarts)))
        u = (y * inverse).reshape(side, side)
        residual = jnp.sqrt(jnp.sum(jnp.square(forcing - operator(u, wind))))
        return u, history, residual / jnp.sqrt(jnp.sum(forcing * forcing))

    rng = np.random.default_rng(14)
    yy, xx = (np.mgrid[0:side, 0:side] + 1.0) * h
    winds = np.zeros((problems, side, side, 2), np.float32)
    forcing = np.zeros((problems, side, side), np.float32)
    for i in range(problems):
        strength = rng.uniform(0.5, 2.0)
        cx, cy = rng.uniform(0.3, 0.7, 2)
        winds[i, ..., 0] = strength * -np.sin(np.pi * (yy - cy + 0.5)) * np.cos(np.pi * (xx - cx))
        winds[i, ..., 1] = strength * np.sin(np.pi * (xx - cx + 0.5)) * np.cos(np.pi * (yy - cy))
        for _ in range(4):
            bx, by, r = rng.uniform(0.15, 0.85), rng.uniform(0.15, 0.85), rng.uniform(0.04, 0.1)
            forcing[i] += rng.uniform(-1, 1) * np.exp(-((xx - bx) ** 2 + (yy - by) ** 2) / r ** 2)
    return jax.jit(lambda w, f: jax.vmap(solve)(w, f)).lower(jnp.asarray(winds),
                                                             jnp.asarray(forcing))


def dtw_alignment(pairs: int = 32, query: int = 384, reference: int = 512, features: int = 12,
                  band: int = 96) -> Any:
    """Dynamic time warping of 32 pairs of multivariate sequences (a 384-frame query of 12
    features against a 512-frame reference: most queries are noisy, randomly time-warped
    copies of their reference, a few unrelated), no gradient. The frame distances come
    from one batched matrix product; cells outside a Sakoe-Chiba band of 96 frames about
    the diagonal are excluded. The cumulative cost runs over the 895 anti-diagonals in a
    `lax.scan` whose carry holds the last two diagonals (each new cell the smallest of its
    three predecessors, shifted into place, plus its own distance gathered from the
    distance matrix) and which emits the argmin of every cell; a second, reversed
    `lax.scan` backtracks the path from the far corner by gathering those choices. The
    path marks, the reference frame matched to every query frame (a scatter-max), the
    path lengths and the length-normalized distances come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n, m = query, reference
    diagonals = n + m - 1
    rows = jnp.arange(n)

    def run(a, b):
        cost = (jnp.sum(a * a, -1)[:, :, None] + jnp.sum(b * b, -1)[:, None, :]
                - 2.0 * jnp.einsum("pif,pjf->pij", a, b))
        cost = jnp.sqrt(jnp.maximum(cost, 0.0))
        i, j = jnp.arange(n)[:, None], jnp.arange(m)[None, :]
        cost = jnp.where(jnp.abs(j - i * (m - 1) / (n - 1)) <= band, cost, jnp.inf)
        p = jnp.arange(pairs)[:, None]

        def forward(carry, k):
            last, before = carry
            cols = k - rows
            inside = (cols >= 0) & (cols < m)
            here = jnp.where(inside, cost[p, rows, jnp.clip(cols, 0, m - 1)], jnp.inf)
            start = jnp.where(k == 0, 0.0, jnp.inf)
            up = jnp.concatenate([jnp.full((pairs, 1), jnp.inf), last[:, :-1]], 1)
            diagonal = jnp.concatenate([jnp.full((pairs, 1), start), before[:, :-1]], 1)
            options = jnp.stack([diagonal, up, last], -1)
            choice = jnp.argmin(options, -1).astype(jnp.int8)
            total = jnp.where(inside, here + jnp.min(options, -1), jnp.inf)
            return (total, last), (choice, total[:, -1])

        empty = jnp.full((pairs, n), jnp.inf)
        _, (choices, corner) = lax.scan(forward, (empty, empty), jnp.arange(diagonals))
        distance = corner[-1]

        def backward(carry, inputs):
            qi, rj = carry
            k, choice = inputs
            on = (qi + rj == k) & (qi >= 0) & (rj >= 0)
            picked = jnp.take_along_axis(choice, jnp.clip(qi, 0, n - 1)[:, None], 1)[:, 0]
            step_i = jnp.where(picked == 2, 0, 1)
            step_j = jnp.where(picked == 1, 0, 1)
            return (jnp.where(on, qi - step_i, qi), jnp.where(on, rj - step_j, rj)), (on, qi, rj)

        start = (jnp.full(pairs, n - 1), jnp.full(pairs, m - 1))
        _, (on, qi, rj) = lax.scan(backward, start, (jnp.arange(diagonals), choices),
                                   reverse=True)
        length = jnp.sum(on, 0)
        slot = jnp.where(on, qi, n).T
        matched = jnp.full((pairs, n + 1), -1).at[p, slot].max(jnp.where(on, rj, -1).T)[:, :n]
        return on.T, matched, length, distance / jnp.maximum(length, 1)

    rng = np.random.default_rng(15)
    t = np.linspace(0, 1, m)
    references = np.zeros((pairs, m, features))
    queries = np.zeros((pairs, n, features))
    for k in range(pairs):
        for f in range(features):
            freqs = rng.uniform(1, 8, 3)
            references[k, :, f] = sum(np.sin(2 * np.pi * fr * t + rng.uniform(0, 6.3))
                                      for fr in freqs)
        if k % 8 == 7:
            queries[k] = rng.standard_normal((n, features)).cumsum(0) * 0.2
            continue
        warp = np.cumsum(rng.uniform(0.2, 1.8, n))
        warp = (warp - warp[0]) / (warp[-1] - warp[0]) * (m - 1)
        for f in range(features):
            queries[k, :, f] = np.interp(warp, np.arange(m), references[k, :, f])
        queries[k] += 0.1 * rng.standard_normal((n, features))
    return jax.jit(run).lower(jnp.asarray(queries, jnp.float32),
                              jnp.asarray(references, jnp.float32))


def boids_flocking(boids: int = 640, predators: int = 6, snapshots: int = 8, every: int = 8,
                   radius: float = 0.08, personal: float = 0.025, fear: float = 0.15,
                   dt: float = 0.02) -> Any:
    """Reynolds' boids in a periodic unit square: 640 boids and six predators for 64 steps
    (eight snapshots of eight steps in nested `lax.scan`s), no gradient. Every step forms
    all pairwise displacements under the minimum-image convention; a boid sees the others
    within 0.08 and inside a 270-degree field of view and steers by alignment with their
    mean velocity, cohesion towards their centre and separation from those closer than
    0.025 (inverse-square), flees every predator within 0.15, and takes Gaussian noise
    from `jax.random`; speeds are clamped between two limits. Each predator chases the
    nearest boid (an `argmin` and a gather) at a higher top speed. Positions and
    velocities at the snapshots, the polarization and the mean number of neighbours per
    step, the mean nearest-neighbour distance and the closest approach of any predator
    come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    slowest, fastest, hunter_speed = 0.1, 0.4, 0.5
    weights = {"align": 1.5, "cohere": 1.0, "separate": 0.002, "flee": 0.05, "noise": 0.3}
    view = math.cos(math.radians(135.0))

    def wrap(d):
        return d - jnp.round(d)

    def clamp(v, low, high):
        speed = jnp.sqrt(jnp.sum(v * v, -1, keepdims=True)) + 1e-9
        return v * jnp.clip(speed, low, high) / speed

    def step(carry, key):
        pos, vel, hunters, chase = carry
        d = wrap(pos[None, :, :] - pos[:, None, :])
        dist2 = jnp.sum(d * d, -1) + jnp.eye(boids) * 1e3
        dist = jnp.sqrt(dist2)
        heading = vel / (jnp.sqrt(jnp.sum(vel * vel, -1, keepdims=True)) + 1e-9)
        ahead = jnp.sum(d * heading[:, None, :], -1) >= view * dist
        near = ((dist < radius) & ahead).astype(jnp.float32)
        close = (dist < personal).astype(jnp.float32)
        count = jnp.sum(near, 1, keepdims=True)
        align = (near @ vel) / jnp.maximum(count, 1.0) - vel
        cohere = jnp.sum(near[..., None] * d, 1) / jnp.maximum(count, 1.0)
        separate = -jnp.sum((close / dist2)[..., None] * d, 1)
        threat = wrap(hunters[None, :, :] - pos[:, None, :])
        threat2 = jnp.sum(threat * threat, -1)
        scared = (threat2 < fear * fear).astype(jnp.float32)
        flee = -jnp.sum((scared / (threat2 + 1e-4))[..., None] * threat, 1)
        push = (weights["align"] * align + weights["cohere"] * cohere
                + weights["separate"] * separate + weights["flee"] * flee
                + weights["noise"] * jax.random.normal(key, pos.shape))
        vel = clamp(vel + dt * push * jnp.where(count > 0, 1.0, 0.5), slowest, fastest)
        pos = jnp.mod(pos + dt * vel, 1.0)
        prey = jnp.argmin(threat2, 0)
        target = wrap(pos[prey] - hunters)
        chase = clamp(chase + dt * 4.0 * target / (jnp.sqrt(jnp.sum(target * target, -1,
                                                                   keepdims=True)) + 1e-9),
                      0.0, hunter_speed)
        hunters = jnp.mod(hunters + dt * chase, 1.0)
        polarization = jnp.sqrt(jnp.sum(jnp.square(jnp.mean(heading, 0))))
        stats = (polarization, jnp.mean(count), jnp.mean(jnp.min(dist, 1)),
                 jnp.sqrt(jnp.min(threat2)))
        return (pos, vel, hunters, chase), stats

    def run(pos, vel, hunters, chase, key):
        def stretch(carry, keys):
            carry, stats = lax.scan(step, carry, keys)
            return carry, (carry[0], carry[1], stats)

        keys = jax.random.split(key, snapshots * every).reshape(snapshots, every, -1)
        _, (positions, velocities, stats) = lax.scan(stretch, (pos, vel, hunters, chase), keys)
        return positions, velocities, stats

    rng = np.random.default_rng(16)
    centres = rng.uniform(0, 1, (6, 2))
    pos = (centres[rng.integers(0, 6, boids)] + 0.08 * rng.standard_normal((boids, 2))) % 1.0
    angle = rng.uniform(0, 2 * np.pi, boids)
    vel = 0.2 * np.stack([np.cos(angle), np.sin(angle)], -1)
    hunters = rng.uniform(0, 1, (predators, 2))
    chase = 0.1 * rng.standard_normal((predators, 2))
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(run).lower(f32(pos), f32(vel), f32(hunters), f32(chase),
                              jax.random.PRNGKey(16))


def dark_channel_dehaze(images: int = 4, height: int = 384, width: int = 512, patch: int = 15,
                        radius: int = 30, omega: float = 0.95, eps: float = 1e-3,
                        share: float = 0.001, floor: float = 0.1) -> Any:
    """Single-image haze removal by the dark channel prior (He, Sun and Tang) of four
    384x512 colour pictures (scenes of textured regions under haze from a depth map and
    an atmospheric colour of their own), no gradient. The dark channel is the channel
    minimum under a 15x15 minimum filter (two separable `reduce_window` minima); the
    atmospheric light is the brightest input pixel among the 0.1% with the haziest dark
    channel (a `top_k` and gathers); the transmission, one less 0.95 times the dark
    channel of the picture over the light, is refined by a guided filter (He, Sun and
    Tang) of radius 30 guided by the luma, every box mean taken from an integral image (two
    `cumsum`s) by four gathers of its corners; the scene is recovered with the
    transmission held above 0.1. The recovered pictures (uint8), the raw and refined
    transmissions, the atmospheric lights and a per-picture depth histogram from the
    transmission come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    count = max(1, int(height * width * share))
    bins = 32

    def min_filter(x):
        x = lax.reduce_window(x, jnp.inf, lax.min, (1, patch, 1), (1, 1, 1), "SAME")
        return lax.reduce_window(x, jnp.inf, lax.min, (1, 1, patch), (1, 1, 1), "SAME")

    y0 = np.clip(np.arange(height) - radius, 0, height)
    y1 = np.clip(np.arange(height) + radius + 1, 0, height)
    x0 = np.clip(np.arange(width) - radius, 0, width)
    x1 = np.clip(np.arange(width) + radius + 1, 0, width)
    area = ((y1 - y0)[:, None] * (x1 - x0)[None, :]).astype(np.float32)

    def box(x):
        total = jnp.cumsum(jnp.cumsum(x, 1), 2)
        total = jnp.pad(total, ((0, 0), (1, 0), (1, 0)))
        corner = lambda rows, cols: total[:, rows][:, :, cols]
        return (corner(y1, x1) - corner(y0, x1) - corner(y1, x0) + corner(y0, x0)) / area

    def run(hazy):
        dark = min_filter(jnp.min(hazy, -1))
        _, index = lax.top_k(dark.reshape(images, -1), count)
        candidates = jnp.take_along_axis(hazy.reshape(images, -1, 3), index[..., None], 1)
        brightest = jnp.argmax(jnp.sum(candidates, -1), -1)
        light = jnp.take_along_axis(candidates, brightest[:, None, None], 1)[:, 0]
        raw = 1.0 - omega * min_filter(jnp.min(hazy / light[:, None, None, :], -1))
        guide = hazy @ jnp.asarray([0.299, 0.587, 0.114])
        mean_i, mean_p = box(guide), box(raw)
        slope = (box(guide * raw) - mean_i * mean_p) / (box(guide * guide) - mean_i ** 2 + eps)
        offset = mean_p - slope * mean_i
        refined = box(slope) * guide + box(offset)
        kept = jnp.maximum(refined, floor)
        scene = (hazy - light[:, None, None, :]) / kept[..., None] + light[:, None, None, :]
        picture = jnp.round(jnp.clip(scene, 0.0, 1.0) * 255.0).astype(jnp.uint8)
        depth = -jnp.log(jnp.clip(refined, 1e-3, 1.0))
        level = jnp.clip((depth / 3.0 * bins).astype(jnp.int32), 0, bins - 1)
        owner = jnp.arange(images)[:, None, None] * bins + level
        histogram = jax.ops.segment_sum(jnp.ones_like(depth).reshape(-1), owner.reshape(-1),
                                        images * bins).reshape(images, bins)
        return picture, raw, refined, light, histogram

    rng = np.random.default_rng(17)
    yy, xx = np.mgrid[0:height, 0:width] / np.float64(max(height, width))
    hazy = np.zeros((images, height, width, 3), np.float32)
    for i in range(images):
        clear = 0.5 + 0.25 * np.tanh(_smooth_images(rng, 1, max(height, width), 3, 6.0)[0])
        clear = clear[:height, :width]
        depth = 0.5 + 2.5 * (1.0 - yy / yy.max()) ** 1.5
        for _ in range(6):
            cx, cy, r = rng.uniform(0, 1), rng.uniform(0.3, 0.75), rng.uniform(0.05, 0.15)
            blob = ((xx - cx) ** 2 + (yy - cy) ** 2) < r * r
            depth = np.where(blob, rng.uniform(0.3, 1.0), depth)
            clear = np.where(blob[..., None], rng.uniform(0.05, 0.6, 3), clear)
        transmission = np.exp(-rng.uniform(0.6, 1.2) * depth)[..., None]
        light = rng.uniform(0.75, 0.95, 3)
        picture = clear * transmission + light * (1 - transmission)
        hazy[i] = np.clip(picture + 0.01 * rng.standard_normal(picture.shape), 0, 1)
    return jax.jit(run).lower(jnp.asarray(hazy))


def minhash_dedup(documents: int = 1024, length: int = 512, shingle: int = 5,
                  hashes: int = 128, bands: int = 32, chunk: int = 16, threshold: float = 0.5,
                  rounds: int = 12) -> Any:
    """Near-duplicate detection of 1024 byte strings of 512 characters (text from a word
    model, about a third of it copies of other documents with substitutions, insertions
    and deletions at rates of 1% to 10%) by MinHash and locality-sensitive hashing, no
    gradient, in integer arithmetic but for the similarity shares. Every 5-byte shingle is
    packed into a uint32 by a multiply-xor rolling hash; 128 hash functions (a multiply and
    an add modulo 2^32, then the MurmurHash3 finalizer of shifts, xors and multiplies) are
    minimized over the shingles, sixteen at a time in a `lax.map`. The signatures are cut
    into 32 bands of four rows, each band hashed again; two documents are candidates when
    any band matches (a comparison over all pairs), and near duplicates when the share of
    equal signature rows is at least one half. Duplicate groups come from twelve rounds of
    smallest-label propagation with pointer jumping over that graph in a `fori_loop`; the
    signatures, the band hashes, the candidate and duplicate counts, the group labels and
    sizes (`segment_sum`) and which documents to keep come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    rows = hashes // bands
    span = length - shingle + 1

    def fmix(h):
        h = h ^ (h >> 16)
        h = h * u32(0x85EBCA6B)
        h = h ^ (h >> 13)
        h = h * u32(0xC2B2AE35)
        return h ^ (h >> 16)

    def run(text, multipliers, offsets):
        t = text.astype(u32)
        packed = jnp.zeros((documents, span), u32)
        for k in range(shingle):
            packed = (packed * u32(16777619)) ^ t[:, k:k + span]

        def signature(params):
            a, b = params
            values = fmix(packed[:, :, None] * a[None, None, :] + b[None, None, :])
            return jnp.min(values, 1)

        groups = (multipliers.reshape(-1, chunk), offsets.reshape(-1, chunk))
        sig = jnp.moveaxis(lax.map(signature, groups), 0, 1).reshape(documents, hashes)
        banded = sig.reshape(documents, bands, rows)
        band_hash = jnp.zeros((documents, bands), u32)
        for r in range(rows):
            band_hash = fmix(band_hash * u32(0x9E3779B1) + banded[..., r])
        candidate = jnp.any(band_hash[:, None, :] == band_hash[None, :, :], -1)
        candidate = candidate & ~jnp.eye(documents, dtype=bool)
        similar = jnp.mean((sig[:, None, :] == sig[None, :, :]).astype(jnp.float32), -1)
        linked = candidate & (similar >= threshold)
        ids = jnp.arange(documents)

        def spread(_, labels):
            smallest = jnp.min(jnp.where(linked, labels[None, :], documents), 1)
            labels = jnp.minimum(labels, smallest)
            return labels[labels]

        labels = lax.fori_loop(0, rounds, spread, ids)
        sizes = jax.ops.segment_sum(jnp.ones(documents, jnp.int32), labels, documents)
        return (sig, band_hash, jnp.sum(candidate) // 2, jnp.sum(linked) // 2, labels,
                sizes, labels == ids)

    rng = np.random.default_rng(18)
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", np.uint8)
    words = [bytes(rng.choice(letters, int(rng.integers(2, 9)))) for _ in range(600)]
    weight = 1.0 / np.arange(1, len(words) + 1)
    weight /= weight.sum()

    def fresh() -> bytes:
        out = b""
        while len(out) < length:
            out += words[int(rng.choice(len(words), p=weight))] + b" "
        return out[:length]

    texts: list[bytes] = []
    for k in range(documents):
        if k > 8 and rng.uniform() < 0.35:
            source = bytearray(texts[int(rng.integers(0, k))])
            rate = rng.uniform(0.01, 0.1)
            for _ in range(int(rate * length)):
                at = int(rng.integers(0, len(source)))
                kind = rng.uniform()
                if kind < 0.5:
                    source[at] = int(rng.choice(letters))
                elif kind < 0.75:
                    source.insert(at, int(rng.choice(letters)))
                else:
                    del source[at]
            texts.append((bytes(source) + b" " * length)[:length])
        else:
            texts.append(fresh())
    text = np.frombuffer(b"".join(texts), np.uint8).reshape(documents, length)
    multipliers = rng.integers(1, 2 ** 32, hashes, dtype=np.uint64) | 1
    offsets = rng.integers(0, 2 ** 32, hashes, dtype=np.uint64)
    return jax.jit(run).lower(jnp.asarray(text), jnp.asarray(multipliers.astype(np.uint32)),
                              jnp.asarray(offsets.astype(np.uint32)))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "ghostnet_classifier/8x96px-16-160-ghost": ghostnet_classifier,
    "mobilevit_classifier/8x128px-xxs": mobilevit_classifier,
    "dynamic_conv_lm/4x128-d128-k3-31-bf16": dynamic_conv_lm,
    "xcit_classifier/8x64px-p8-d96-l4+2": xcit_classifier,
    "moco_pretrain/32x32px-16-128-q4096": moco_pretrain,
    "td3_agent/512x24-obs-6-actions-h256": td3_agent,
    "painn_molecules/8x24-atoms-f64-l3": painn_molecules,
    "s4d_classifier/4x1024-h64-n64-l4-2-probes": s4d_classifier,
    "sngan_projection/8x32px-w32": sngan_projection,
    "maskgit_tokens/8x8x8-codes512-d96-l4-bf16": maskgit_tokens,
    "gmres_convection/4x96x96-m24-r6": gmres_convection,
    "dtw_alignment/32x384x512-band96": dtw_alignment,
    "boids_flocking/640-boids-6-predators-64-steps": boids_flocking,
    "dark_channel_dehaze/4x384x512px-r30": dark_channel_dehaze,
    "minhash_dedup/1024x512-bytes-128-hashes": minhash_dedup,
}
