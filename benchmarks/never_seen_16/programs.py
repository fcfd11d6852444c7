"""The sixteenth never-seen set: programs written on 2026-11-27, after the fifteenth set
(benchmarks/never_seen_15/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-16` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
fifteen never-seen sets has; as in the sets before it, a few training steps are large (a
few gigaflops each) and the rest mid-sized, and one of them differentiates convolutions
inside a loop body. Ten are training steps (forward, loss, backward and an optimizer
update). A solver-in-the-loop corrector learns to fix a coarse advection-diffusion solver
on a periodic 48x48 grid: each of ten steps in a `lax.scan` advances the scalar by central
differences (neighbours by `roll`) and adds the output of a three-layer CNN over the
scalar and the velocity, and the squared errors against a finer solver's reference are
differentiated back through every convolution of the rollout. DINO self-distillation with
multi-crop trains a convolutional student on two 32x32 global and four 16x16 local crops
against a teacher that sees the global crops only, the teacher's outputs centred and
sharpened, the teacher then following the student as an exponential average. Variational
Monte Carlo finds the ground state of a critical transverse-field Ising chain of 24 spins
with a restricted Boltzmann machine wavefunction: 1024 Markov chains take four sweeps of
Metropolis spin flips in a `fori_loop`, local energies need every single-flip amplitude
ratio, per-sample log-derivatives come from `vmap` of `grad`. A vision transformer in
bfloat16 merges twelve tokens after the attention of each of its four blocks by bipartite
soft matching (cosine similarities of head-averaged keys, the best matches by `argsort`,
a size-weighted scatter-add) with proportional attention, so 65 tokens shrink to 17. A
mixture-of-depths language model in bfloat16 lets every second of its eight blocks process
only the 32 of each sequence's 128 tokens that a router picks by `top_k`, gathered in
order and scattered back scaled by their router scores, with an auxiliary loss that
teaches the router to predict the choice. Principal neighbourhood aggregation regresses a
property of 64 small random graphs in one node table, aggregating messages by mean,
maximum, minimum and standard deviation (`segment_sum`, `segment_max`, `segment_min`)
under identity, amplification and attenuation degree scalers. A differentiable sorting
network ranks sixteen images of two-digit numbers at a time: a small CNN scores each, the
ten layers of a bitonic network relaxed by logistic sigmoids mix a relaxed permutation
matrix by gathers of partner rows, and a binary cross-entropy compares it with the true
ordering. A residual flow estimates a 16-dimensional density with four spectrally
normalized LipSwish blocks (one power-iteration step per weight), each block's
log-determinant a Hutchinson estimate of its power series by repeated `vjp` pullbacks,
two terms always and up to six by a Russian roulette, differentiated again. A MaxViT
classifier in bfloat16 runs MBConv blocks (depthwise convolutions, squeeze-and-excitation)
followed by block attention in 4x4 windows and grid attention over a dilated 4x4 grid,
with relative position biases gathered from learned tables. Contrastive predictive coding
encodes raw waveforms by strided 1-D convolutions, summarizes them by a GRU in a
`lax.scan` and, for four horizons, picks each true future frame out of fifteen negatives
gathered from random positions in the batch (InfoNCE). Five are inference or scientific
steps without a gradient: bundle adjustment of eight cameras and 2048 points by
Levenberg-Marquardt in a `while_loop` that stops when an accepted step no longer lowers
the reprojection cost by a relative 1e-7 (capped at 50 iterations), each iteration taking
per-observation Jacobians by `vmap` of `jacfwd`, summing camera blocks and camera-pair
Schur blocks by `segment_sum`, inverting the points' 3x3 blocks in closed form and solving
the 48x48 reduced camera system by a Cholesky factorization and triangular substitutions
written as `fori_loop`s; global tone mapping of four 1024x1536 high-dynamic-range images to
8-bit sRGB, a memory-bound chain of elementwise maps (luminance, Reinhard's extended
operator, colour restoration by a power, the sRGB curve, rounding) and whole-image
reductions (log-average luminance, white point, dynamic range) over 75 MB of radiance;
mean-shift segmentation of a 32x64 colour image in the joint spatial-range domain, 25
iterations in a `fori_loop` over all pairwise Gaussian weights of its 2048 pixels, the
modes then quantized, hashed, sorted and numbered by a `cumsum` into regions whose sizes
and colours come from `segment_sum`; suffix arrays of four 16384-letter DNA texts with
planted repeats by prefix doubling in a `while_loop` that stops once every suffix has its
own rank (each round a gather, a stable `argsort`, a `cumsum` and a scatter), the
Burrows-Wheeler transform and the longest common prefixes of neighbouring suffixes by
binary lifting over the stored rank levels in a `fori_loop`; and the first 40 steps of an
SPH dam break of 4096 particles in a `fori_loop`, every step rebuilding a cell list by
`argsort`, gathering up to 108 neighbour candidates per particle, summing cubic-spline
densities, Tait pressures and artificial viscosity, and stepping with reflecting walls.
The updates are all new to these sets: NGN (a step size from a Gauss-Newton model of the
square root of the loss) with heavy-ball momentum, AdamW behind AutoClip (gradients
clipped to the 10th percentile of a sorted history of gradient norms), stochastic
reconfiguration (the quantum geometric tensor, never formed, in a conjugate-gradient
solve of 48 iterations in a `fori_loop`), DeMo (the signs of the largest DCT components
of each chunk of the momentum, found by `top_k` and taken out of it), YellowFin (momentum
and rate tuned every step from estimates of the curvature range, the gradient variance
and the distance to the optimum by the closed-form root of a cubic), EG+- (exponentiated
gradient on the positive and negative parts of every weight), gradient agreement
filtering (microbatch gradients from `vmap` summed only while their cosine distance to
the running sum stays below 0.97) before momentum SGD, Amos (a scalar second moment per
tensor, steps scaled by each tensor's expected magnitude, an adaptive weight decay),
Adam under dynamic loss scaling (a step with non-finite gradients skipped and the scale
halved, the scale doubled after 200 finite steps) and M-SVAG (momentum SGD damped by
variance-adapted factors); three training steps (the token-merging transformer, the
mixture-of-depths model and MaxViT) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")
_NWC = ("NWC", "WIO", "NWC")


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
    import numpy as np
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

    def dot(a: Any, b: Any) -> Any:
        return sum(jnp.sum(x * y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))

    if name == "ngn":
        # NGN (Orvieto and Xiao): the step size of a Gauss-Newton model of the square root
        # of the loss, sigma / (1 + sigma |g|^2 / (2 f)), large where the loss is large
        # against its gradient and small near a minimum; with heavy-ball momentum and
        # decoupled weight decay
        sigma, momentum, decay = 0.5, 0.9, 1e-4

        def ngn(params, grads, state, loss):
            buf, t = state
            g = wide(grads)
            size = jnp.maximum(loss.astype(f32), 1e-12)
            rate = sigma / (1.0 + sigma * dot(g, g) / (2.0 * size))
            buf = tm(lambda b, g_: momentum * b + g_, buf, g)
            moved = tm(lambda p, b: p.astype(f32) * (1.0 - rate * decay) - rate * b, params, buf)
            return recast(params, moved), (buf, t + 1)
        return (lambda p: (zeros(p), count())), ngn

    if name == "msvag":
        # M-SVAG (Balles and Hennig): momentum SGD in which every coordinate's step is damped
        # by the variance-adapted factor m^2 / (m^2 + rho s), s the bias-corrected variance
        # of its gradient and rho the variance reduction of the exponential average
        rate, beta = 0.05, 0.9

        def msvag(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: beta * m_ + (1.0 - beta) * g_, m, g)
            v = tm(lambda v_, g_: beta * v_ + (1.0 - beta) * g_ * g_, v, g)
            unbias = 1.0 - beta ** n
            rho = (1.0 - beta) * (1.0 + beta ** n) / ((1.0 + beta) * unbias)

            def step(m_, v_):
                mean, second = m_ / unbias, v_ / unbias
                spread = jnp.maximum(second - mean * mean, 0.0) / jnp.maximum(1.0 - rho, 1e-8)
                factor = mean * mean / (mean * mean + rho * spread + 1e-16)
                return rate * factor * mean

            moved = tm(lambda p, s: p.astype(f32) - s, params, tm(step, m, v))
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), msvag

    if name == "autoclip_adamw":
        # AutoClip (Seetharaman et al.) in front of AdamW: the global gradient norm of every
        # step enters a ring of the last 512, and the gradient is clipped to the 10th
        # percentile of the norms seen so far (the ring sorted, unfilled slots last)
        rate, b1, b2, decay, history, percentile = 5e-4, 0.9, 0.999, 0.04, 512, 10.0

        def autoclip_init(params):
            return zeros(params), zeros(params), jnp.full((history,), jnp.inf, f32), count()

        def autoclip(params, grads, state, loss):
            m, v, norms, t = state
            g = wide(grads)
            norm = jnp.sqrt(dot(g, g))
            norms = norms.at[t % history].set(norm)
            seen = jnp.minimum(t + 1, history)
            place = jnp.floor(percentile / 100.0 * (seen - 1).astype(f32)).astype(jnp.int32)
            limit = jnp.sort(norms)[place]
            factor = jnp.minimum(1.0, limit / (norm + 1e-12))
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * factor * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * jnp.square(factor * g_), v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - rate * decay)
                       - rate * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, norms, t)
        return autoclip_init, autoclip

    if name == "demo":
        # DeMo (decoupled momentum optimization, Peng, Quesnelle and Kingma): every tensor's
        # momentum, flattened into chunks of 64, is turned by an orthonormal DCT-II; the
        # four largest coefficients of each chunk (by `top_k`) are its fast components,
        # which are taken out of the momentum, and the step is the sign of their inverse
        # transform, with decoupled weight decay
        chunk, keep, rate, beta, decay = 64, 4, 3e-4, 0.999, 1e-4
        k = np.arange(chunk)
        basis = np.sqrt(2.0 / chunk) * np.cos(np.pi * (2 * k[None, :] + 1) * k[:, None]
                                               / (2 * chunk))
        basis[0] /= math.sqrt(2.0)
        basis = jnp.asarray(basis, f32)

        def fast(m):
            flat = m.reshape(-1)
            rows = jnp.pad(flat, (0, (-flat.size) % chunk)).reshape(-1, chunk)
            coeffs = rows @ basis.T
            top, _ = lax.top_k(jnp.abs(coeffs), keep)
            kept = jnp.where(jnp.abs(coeffs) >= top[:, -1:], coeffs, 0.0)
            return (kept @ basis).reshape(-1)[:flat.size].reshape(m.shape)

        def demo(params, grads, state, loss):
            m = tm(lambda m_, g: beta * m_ + g.astype(f32), state, grads)
            q = tm(fast, m)
            m = tm(jnp.subtract, m, q)
            moved = tm(lambda p, q_: p.astype(f32) * (1.0 - rate * decay) - rate * jnp.sign(q_),
                       params, q)
            return recast(params, moved), m
        return (lambda p: zeros(p)), demo

    if name == "yellowfin":
        # YellowFin (Zhang and Mitliagkas): momentum SGD whose momentum and rate are tuned
        # every step from running estimates of the curvature range (the extremes of |g|^2
        # over the last 20 steps, smoothed in log space), the gradient variance and the
        # distance to the optimum, by the closed-form root of the SingleStep cubic; the
        # tuned values are smoothed with beta 0.999
        window, beta = 20, 0.999

        def yellowfin_init(params):
            stats = jnp.asarray([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1e-4], f32)
            return zeros(params), zeros(params), zeros(params), jnp.zeros(window, f32), stats, \
                count()

        def ema(old, new):
            return beta * old + (1.0 - beta) * new

        def yellowfin(params, grads, state, loss):
            buf, g_avg, g2_avg, curv, stats, t = state
            low_log, high_log, norm_avg, h_avg, dist, mu, lr = (stats[i] for i in range(7))
            g = wide(grads)
            square = dot(g, g)
            curv = curv.at[t % window].set(square)
            seen = jnp.arange(window) <= t
            unbias = 1.0 - beta ** (t + 1).astype(f32)
            low_log = ema(low_log, jnp.log(jnp.min(jnp.where(seen, curv, jnp.inf)) + 1e-12))
            high_log = ema(high_log, jnp.log(jnp.max(jnp.where(seen, curv, 0.0)) + 1e-12))
            h_min, h_max = jnp.exp(low_log / unbias), jnp.exp(high_log / unbias)
            g_avg = tm(ema, g_avg, g)
            g2_avg = tm(lambda a, g_: ema(a, g_ * g_), g2_avg, g)
            variance = jnp.maximum(sum(jnp.sum(s / unbias - jnp.square(a / unbias)) for a, s in
                                       zip(jax.tree.leaves(g_avg), jax.tree.leaves(g2_avg))),
                                   1e-12)
            norm_avg = ema(norm_avg, jnp.sqrt(square))
            h_avg = ema(h_avg, square)
            dist = ema(dist, norm_avg / (h_avg + 1e-12))
            d = dist / unbias
            p = d * d * h_min * h_min / (2.0 * variance)
            w3 = (-jnp.sqrt(p * p + 4.0 / 27.0 * p ** 3) - p) / 2.0
            w = jnp.sign(w3) * jnp.abs(w3) ** (1.0 / 3.0)
            root = w - p / (3.0 * jnp.where(w == 0.0, 1e-12, w)) + 1.0
            ratio = jnp.sqrt(h_max / h_min)
            mu = ema(mu, jnp.maximum(root * root, jnp.square((ratio - 1.0) / (ratio + 1.0))))
            lr = ema(lr, jnp.square(1.0 - jnp.sqrt(mu)) / h_min)
            buf = tm(lambda b, g_: mu * b - lr * g_, buf, g)
            moved = tm(lambda x, b: x.astype(f32) + b, params, buf)
            stats = jnp.stack([low_log, high_log, norm_avg, h_avg, dist, mu, lr])
            return recast(params, moved), (buf, g_avg, g2_avg, curv, stats, t + 1)
        return yellowfin_init, yellowfin

    if name == "eg_plus_minus":
        # EG+- (exponentiated gradient with positive and negative weights, Kivinen and
        # Warmuth): every weight is the difference u - v of two positive parts updated
        # multiplicatively, u exp(-eta g) and v exp(eta g), the exponent clipped to [-1, 1];
        # the parts start at relu(w) + c and relu(-w) + c
        eta, offset = 0.5, 0.02

        def eg_init(params):
            return (tm(lambda w: jax.nn.relu(w.astype(f32)) + offset, params),
                    tm(lambda w: jax.nn.relu(-w.astype(f32)) + offset, params))

        def eg(params, grads, state, loss):
            u, v = state
            step = tm(lambda g: jnp.clip(eta * g.astype(f32), -1.0, 1.0), grads)
            u = tm(lambda u_, s: u_ * jnp.exp(-s), u, step)
            v = tm(lambda v_, s: v_ * jnp.exp(s), v, step)
            return recast(params, tm(jnp.subtract, u, v)), (u, v)
        return eg_init, eg

    if name == "amos":
        # Amos (Tian and Parikh): per tensor one running second moment of the gradient
        # (a scalar) normalizes the step, which is scaled by the tensor's expected magnitude
        # xi (1 / sqrt(fan-in) for a weight matrix, 0.5 for a bias) and shrinks as
        # 1 / (1 + d sqrt(eta) b) with a per-tensor decay counter b; an adaptive weight decay
        # gamma / 2 w, gamma growing with the normalized squared gradient, feeds b
        rate, beta, c_coef, d_coef = 0.01, 0.999, 0.25, 0.25

        def expected(p):
            return 1.0 / math.sqrt(math.prod(p.shape[:-1])) if p.ndim >= 2 else 0.5

        def amos_init(params):
            scalars = tm(lambda p: jnp.zeros((), f32), params)
            return scalars, scalars, count()

        def amos(params, grads, state, loss):
            v, b, t = state
            t = t + 1
            unbias = 1.0 - beta ** t.astype(f32)

            def one(p, g, v_, b_):
                g, x = g.astype(f32), p.astype(f32)
                square = jnp.mean(g * g)
                v_ = beta * v_ + (1.0 - beta) * square
                r = lax.rsqrt(v_ / unbias + 1e-30)
                eta = rate * expected(p)
                gamma = c_coef * eta * eta * r * r * square / (1.0 + c_coef * math.sqrt(eta) * b_)
                step = eta * r * g / (1.0 + d_coef * math.sqrt(eta) * b_)
                return (x - step - 0.5 * gamma * x).astype(p.dtype), v_, b_ + gamma * (1.0 + b_)

            out = tm(one, params, grads, v, b)
            take = lambda i: tm(lambda _, o: o[i], params, out)
            return take(0), (take(1), take(2), t)
        return amos_init, amos

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


def _rms_norm(x: Any, gain: Any) -> Any:
    """RMS normalization over the last axis in float32, returned in x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    scale = lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-6)
    return (x32 * scale * gain.astype(jnp.float32)).astype(x.dtype)


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


def _markov_tokens(rng: Any, rows: int, length: int, vocab: int, successors: int = 8) -> Any:
    """numpy int: token sequences from a sparse random Markov chain (every token has
    `successors` likely followers with Zipf-like weights)."""
    import numpy as np

    follow = rng.integers(0, vocab, (vocab, successors))
    weights = 1.0 / np.arange(1, successors + 1)
    weights /= weights.sum()
    out = np.zeros((rows, length), np.int64)
    out[:, 0] = rng.integers(0, vocab, rows)
    for t in range(1, length):
        out[:, t] = follow[out[:, t - 1], rng.choice(successors, rows, p=weights)]
    return out


def solver_in_the_loop(batch: int = 4, side: int = 48, steps: int = 10, hidden: int = 24,
                       diffusion: float = 0.05, dt: float = 0.5) -> Any:
    """A learned correction of a coarse PDE solver trained through its own rollout
    (solver in the loop, Um et al.): a scalar carried by a fixed swirling flow (one per
    example, divergence-free from a random stream function) and diffusing on a periodic
    48x48 grid is stepped by central differences (neighbours by `roll`); after every
    solver step a three-layer CNN (3x3 convolutions of 24 channels, tanh, over the scalar
    and the two velocity components) adds a correction, and the ten corrected steps run
    in a `lax.scan` whose convolutions are differentiated. Loss: the mean squared error
    of every step against a reference from the same scheme at twice the resolution with
    four substeps, averaged down; NGN step sizes with heavy-ball momentum."""
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    p = _params({"c1": (3, 3, 3, hidden), "c1_b": (hidden,), "c2": (3, 3, hidden, hidden),
                 "c2_b": (hidden,), "c3": (3, 3, hidden, 1), "c3_b": (1,)}, seed=1)
    p["c3"] = p["c3"] * 0.1

    def advance(u, vx, vy, roll, dt_, nu):
        ddx = (roll(u, -1, 2) - roll(u, 1, 2)) / 2.0
        ddy = (roll(u, -1, 1) - roll(u, 1, 1)) / 2.0
        lap = roll(u, -1, 1) + roll(u, 1, 1) + roll(u, -1, 2) + roll(u, 1, 2) - 4.0 * u
        return u + dt_ * (nu * lap - vx * ddx - vy * ddy)

    def loss_fn(p, u0, velocity, reference):
        vx, vy = velocity[..., 0], velocity[..., 1]

        def step(u, target):
            u = advance(u, vx, vy, jnp.roll, dt, diffusion)
            x = jnp.concatenate([u[..., None], velocity], -1)
            h = jnp.tanh(_conv(x, p["c1"]) + p["c1_b"])
            h = jnp.tanh(_conv(h, p["c2"]) + p["c2_b"])
            u = u + (_conv(h, p["c3"]) + p["c3_b"])[..., 0]
            return u, jnp.mean(jnp.square(u - target))

        _, errors = lax.scan(step, u0, reference)
        return jnp.mean(errors)

    rng = np.random.default_rng(1)
    fine = 2 * side
    stream = 12.0 * _smooth_images(rng, batch, fine, 1, 2.5)[..., 0]
    fvx = (np.roll(stream, -1, 1) - np.roll(stream, 1, 1)) / 2.0
    fvy = -(np.roll(stream, -1, 2) - np.roll(stream, 1, 2)) / 2.0
    fvx, fvy = fvx * 0.8 / np.abs(fvx).max(), fvy * 0.8 / np.abs(fvy).max()
    u = _smooth_images(rng, batch, fine, 1, 4.0)[..., 0]

    def down(a):
        return a.reshape(batch, side, 2, side, 2).mean((2, 4))

    u0 = down(u)
    reference = []
    for _ in range(steps):
        for _ in range(4):
            u = advance(u, fvx, fvy, np.roll, dt / 4.0, 4.0 * diffusion)
        reference.append(down(u))
    velocity = np.stack([down(fvx), down(fvy)], -1) / 2.0
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("ngn", loss_fn, p, f32(u0), f32(velocity), f32(np.stack(reference)))


def dino_multicrop(batch: int = 8, big: int = 32, small: int = 16, locals_: int = 4,
                   prototypes: int = 1024, bottleneck: int = 64,
                   widths: tuple[int, ...] = (24, 48, 96, 96)) -> Any:
    """DINO self-distillation (Caron et al.) with multi-crop: a student and a teacher of
    the same convolutional backbone (3x3 convolutions of 24, 48, 96 and 96 channels, two
    strided, batch norm, global average pooling) and head (a 256-unit GELU MLP to a
    64-wide L2-normalized bottleneck and a weight-normalized layer of 1024 prototypes).
    The teacher sees the two 32x32 global crops, the student those and four 16x16 local
    crops; the loss is the cross-entropy between the teacher's centred, sharpened
    (temperature 0.04) distribution for each global crop and the student's (temperature
    0.1) for every other crop. The student learns by AdamW behind AutoClip; after the
    update the teacher follows it as an exponential average (0.996) and the centre
    follows the batch mean of the teacher's outputs (0.9)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for i, c in enumerate(widths):
        shapes.update({f"c{i}": (3, 3, cin, c), f"c{i}_bn_g": (c,), f"c{i}_bn_b": (c,)})
        cin = c
    shapes.update({"h1": (cin, 256), "h1_b": (256,), "h2": (256, 256), "h2_b": (256,),
                   "h3": (256, bottleneck), "h3_b": (bottleneck,),
                   "proto": (bottleneck, prototypes)})
    student = _params(shapes, seed=2, scale=math.sqrt(2.0))
    strides = (1, 2, 2, 1)

    def network(p, x):
        for i, s in enumerate(strides):
            x = jax.nn.relu(_batch_norm(_conv(x, p[f"c{i}"], s), p[f"c{i}_bn_g"], p[f"c{i}_bn_b"]))
        h = x.mean((1, 2))
        h = jax.nn.gelu(h @ p["h1"] + p["h1_b"])
        h = jax.nn.gelu(h @ p["h2"] + p["h2_b"])
        h = h @ p["h3"] + p["h3_b"]
        h = h / (jnp.linalg.norm(h, axis=-1, keepdims=True) + 1e-6)
        w = p["proto"] / jnp.linalg.norm(p["proto"], axis=0, keepdims=True)
        return h @ w

    def loss_fn(p, teacher, center, views, crops):
        b = views.shape[1]
        t_out = jax.lax.stop_gradient(network(teacher, views.reshape((-1,) + views.shape[2:])))
        s_out = jnp.concatenate([network(p, views.reshape((-1,) + views.shape[2:])),
                                 network(p, crops.reshape((-1,) + crops.shape[2:]))])
        t_prob = jax.nn.softmax((t_out - center) / 0.04, -1).reshape(2, b, -1)
        s_logp = jax.nn.log_softmax(s_out / 0.1, -1).reshape(2 + locals_, b, -1)
        terms = [jnp.mean(jnp.sum(-t_prob[i] * s_logp[j], -1))
                 for i in range(2) for j in range(2 + locals_) if i != j]
        return sum(terms) / len(terms), t_out

    init, update = _update_rule("autoclip_adamw")

    def step(student, teacher, center, state, views, crops):
        (loss, t_out), grads = jax.value_and_grad(loss_fn, has_aux=True)(student, teacher, center,
                                                                         views, crops)
        student, state = update(student, grads, state, loss)
        teacher = jax.tree.map(lambda t, s: 0.996 * t + 0.004 * s, teacher, student)
        center = 0.9 * center + 0.1 * jnp.mean(t_out, 0)
        return student, teacher, center, state, loss

    rng = np.random.default_rng(2)
    scenes = _smooth_images(rng, batch, 48, 3, 4.0) + 0.3 * _smooth_images(rng, batch, 48, 3, 12.0)

    def crop(size):
        out = np.zeros((batch, size, size, 3), np.float32)
        for i in range(batch):
            y, x = rng.integers(0, 48 - size + 1, 2)
            piece = scenes[i, y:y + size, x:x + size]
            piece = piece[:, ::-1] if rng.uniform() < 0.5 else piece
            out[i] = piece * rng.uniform(0.7, 1.3) + rng.uniform(-0.2, 0.2, 3)
        return out

    views = np.stack([crop(big) for _ in range(2)])
    crops = np.stack([crop(small) for _ in range(locals_)])
    teacher = jax.tree.map(lambda w: w * 1.0, student)
    return jax.jit(step).lower(student, teacher, jnp.zeros((prototypes,), jnp.float32),
                               jax.eval_shape(init, student), jnp.asarray(views),
                               jnp.asarray(crops))


def rbm_vmc_ising(spins: int = 24, hidden: int = 48, chains: int = 1024, sweeps: int = 4,
                  field: float = 1.0, cg_iterations: int = 48, shift: float = 1e-2,
                  rate: float = 0.02) -> Any:
    """Scientific training: variational Monte Carlo for the ground state of a periodic
    transverse-field Ising chain of 24 spins at the critical field, with a restricted
    Boltzmann machine wavefunction (48 hidden units, log psi = a.s + sum log cosh(b + W^T
    s)). 1024 persistent Markov chains take four sweeps of single-spin Metropolis flips
    in a `fori_loop` (the hidden activations updated by a rank-one change per accepted
    flip); local energies need the wavefunction ratio of every single-spin flip; the
    per-sample log-derivatives come from `vmap` of `grad`. The update is stochastic
    reconfiguration (natural gradient in imaginary time): the quantum geometric tensor
    S, never formed, enters a conjugate-gradient solve of (S + 0.01 diag S) x = f by 48
    iterations in a `fori_loop`, f the energy gradient. The new parameters and chains,
    and the energy's mean and variance per spin come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    p = _params({"a": (spins,), "b": (hidden,), "w": (spins, hidden)}, seed=3, scale=0.1)
    leaves, treedef = jax.tree.flatten(p)
    cuts = np.cumsum([leaf.size for leaf in leaves])[:-1].tolist()

    def log_cosh(x):
        return jnp.logaddexp(x, -x)

    def log_psi(p, s):
        return s @ p["a"] + jnp.sum(log_cosh(p["b"] + s @ p["w"]), -1)

    def step(p, s, key):
        theta = p["b"] + s @ p["w"]

        def flip(i, carry):
            s, theta = carry
            site = i % spins
            current = lax.dynamic_index_in_dim(s, site, 1, keepdims=False)
            row = lax.dynamic_index_in_dim(p["w"], site, 0, keepdims=False)
            proposal = theta - 2.0 * current[:, None] * row
            log_ratio = -2.0 * current * p["a"][site] + jnp.sum(log_cosh(proposal)
                                                                - log_cosh(theta), -1)
            draw = jax.random.uniform(jax.random.fold_in(key, i), (chains,))
            accept = jnp.log(draw) < 2.0 * log_ratio
            s = lax.dynamic_update_index_in_dim(s, jnp.where(accept, -current, current), site, 1)
            return s, jnp.where(accept[:, None], proposal, theta)

        s, theta = lax.fori_loop(0, sweeps * spins, flip, (s, theta))
        flipped = theta[:, None, :] - 2.0 * s[:, :, None] * p["w"][None]
        ratios = jnp.exp(-2.0 * s * p["a"] + jnp.sum(log_cosh(flipped), -1)
                         - jnp.sum(log_cosh(theta), -1, keepdims=True))
        energy = -jnp.sum(s * jnp.roll(s, -1, 1), -1) - field * jnp.sum(ratios, -1)
        per_sample = jax.vmap(jax.grad(log_psi), (None, 0))(p, s)
        o = jnp.concatenate([g.reshape(chains, -1) for g in jax.tree.leaves(per_sample)], 1)
        o = o - o.mean(0)
        centred = energy - energy.mean()
        force = o.T @ centred / chains
        diagonal = jnp.mean(o * o, 0)

        def apply(v):
            return o.T @ (o @ v) / chains + shift * diagonal * v + 1e-6 * v

        def cg(_, carry):
            x, r, d, rr = carry
            q = apply(d)
            alpha = rr / (d @ q + 1e-30)
            x, r = x + alpha * d, r - alpha * q
            fresh = r @ r
            return x, r, r + fresh / (rr + 1e-30) * d, fresh

        x, _, _, _ = lax.fori_loop(0, cg_iterations, cg,
                                   (jnp.zeros_like(force), force, force, force @ force))
        moves = treedef.unflatten([piece.reshape(leaf.shape) for piece, leaf in
                                   zip(jnp.split(x, cuts), leaves)])
        p = jax.tree.map(lambda w, m: w - rate * m, p, moves)
        return p, s, energy.mean() / spins, energy.var() / spins

    rng = np.random.default_rng(3)
    s = rng.choice([-1.0, 1.0], (chains, spins))
    return jax.jit(step).lower(p, jnp.asarray(s, jnp.float32), jax.random.PRNGKey(3))


def token_merging_vit(batch: int = 16, side: int = 32, patch: int = 4, width: int = 128,
                      heads: int = 4, depth: int = 4, merge: int = 12, classes: int = 10) -> Any:
    """A vision transformer in bfloat16 with token merging (ToMe, Bolya et al.): after the
    attention of each of the four blocks twelve tokens are merged away by bipartite soft
    matching (the tokens split alternately in two sets, the cosine similarity of their
    head-averaged keys, each token of the first set matched to its most similar token of
    the second, the twelve best matches found by `argsort` and merged by a scatter-add
    weighted by how many patches each token already holds), and attention is
    proportional (the log of every key's size added to its logits), so 65 tokens shrink
    to 17; the class token is never merged. Cross-entropy; DeMo (signs of the fast DCT
    components of the momentum)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    tokens = (side // patch) ** 2
    shapes: dict[str, tuple[int, ...]] = {"embed": (patch * patch * 3, width), "embed_b": (width,),
                                          "pos": (tokens + 1, width), "cls": (1, width)}
    for l in range(depth):
        shapes.update({f"l{l}_n1_g": (width,), f"l{l}_n1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_qkv_b": (3 * width,),
                       f"l{l}_o": (width, width), f"l{l}_o_b": (width,),
                       f"l{l}_n2_g": (width,), f"l{l}_n2_b": (width,),
                       f"l{l}_fc1": (width, 4 * width), f"l{l}_fc1_b": (4 * width,),
                       f"l{l}_fc2": (4 * width, width), f"l{l}_fc2_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,), "head": (width, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=4, dtype=bf16)
    p["pos"] = (p["pos"].astype(f32) * 0.02 * math.sqrt(tokens + 1)).astype(bf16)

    def bipartite_merge(x, size, metric, r):
        b = x.shape[0]
        rows = jnp.arange(b)[:, None]
        metric = metric / jnp.linalg.norm(metric, axis=-1, keepdims=True)
        scores = jnp.einsum("bid,bjd->bij", metric[:, ::2], metric[:, 1::2])
        scores = scores.at[:, 0, :].set(-jnp.inf)
        best, partner = scores.max(-1), scores.argmax(-1)
        order = jnp.argsort(-best, -1)
        src, kept = order[:, :r], jnp.sort(order[:, r:], -1)
        dst = jnp.take_along_axis(partner, src, 1)
        weighted = x.astype(f32) * size[..., None]
        xa, xb = weighted[:, ::2], weighted[:, 1::2]
        sa, sb = size[:, ::2], size[:, 1::2]
        xb = xb.at[rows, dst].add(jnp.take_along_axis(xa, src[..., None], 1))
        sb = sb.at[rows, dst].add(jnp.take_along_axis(sa, src, 1))
        x = jnp.concatenate([jnp.take_along_axis(xa, kept[..., None], 1), xb], 1)
        size = jnp.concatenate([jnp.take_along_axis(sa, kept, 1), sb], 1)
        return (x / size[..., None]).astype(bf16), size

    def loss_fn(p, images, labels):
        b = images.shape[0]
        g = side // patch
        x = images.reshape(b, g, patch, g, patch, 3).transpose(0, 1, 3, 2, 4, 5)
        x = x.reshape(b, tokens, patch * patch * 3) @ p["embed"] + p["embed_b"]
        x = jnp.concatenate([jnp.broadcast_to(p["cls"], (b, 1, width)), x], 1) + p["pos"]
        size = jnp.ones((b, tokens + 1), f32)
        for l in range(depth):
            n = x.shape[1]
            h = _layer_norm(x, p[f"l{l}_n1_g"], p[f"l{l}_n1_b"])
            qkv = (h @ p[f"l{l}_qkv"] + p[f"l{l}_qkv_b"]).reshape(b, n, 3 * heads, dh)
            q, k, v = jnp.split(qkv, 3, 2)
            logits = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(f32) / math.sqrt(dh)
            weights = jax.nn.softmax(logits + jnp.log(size)[:, None, None, :], -1).astype(bf16)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, n, width) @ p[f"l{l}_o"] \
                + p[f"l{l}_o_b"]
            x, size = bipartite_merge(x, size, k.astype(f32).mean(2), merge)
            h = _layer_norm(x, p[f"l{l}_n2_g"], p[f"l{l}_n2_b"])
            x = x + jax.nn.gelu(h @ p[f"l{l}_fc1"] + p[f"l{l}_fc1_b"]) @ p[f"l{l}_fc2"] \
                + p[f"l{l}_fc2_b"]
        cls = _layer_norm(x[:, 0], p["final_g"], p["final_b"])
        return _cross_entropy(cls @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(4)
    labels = rng.integers(0, classes, batch)
    prototypes = _smooth_images(rng, classes, side, 3, 3.0)
    images = 0.8 * prototypes[labels] + 0.6 * _smooth_images(rng, batch, side, 3, 8.0)
    return _train("demo", loss_fn, p, jnp.asarray(images, bf16), jnp.asarray(labels, jnp.int32))


def mixture_of_depths_lm(batch: int = 4, length: int = 128, vocab: int = 2048, width: int = 128,
                         heads: int = 4, layers: int = 8, capacity: int = 32) -> Any:
    """A mixture-of-depths language model in bfloat16 (Raposo et al.): of eight pre-norm
    blocks (RMS norm, causal attention, GELU MLP, learned positions) every second one
    processes only the 32 of each sequence's 128 tokens that its linear router scores
    highest (`top_k`, the chosen positions sorted back into order): they are gathered,
    attend to each other under the causal mask of their original positions, and their
    block outputs, scaled by the sigmoid of the router scores, are scattered back into
    the residual stream while the other tokens pass by. The router logits are also
    trained to predict whether a token was chosen (binary cross-entropy, weight 0.01)
    beside the next-token loss; YellowFin."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"emb": (vocab, width), "pos": (length, width)}
    for l in range(layers):
        shapes.update({f"l{l}_n1_g": (width,), f"l{l}_qkv": (width, 3 * width),
                       f"l{l}_o": (width, width), f"l{l}_n2_g": (width,),
                       f"l{l}_fc1": (width, 4 * width), f"l{l}_fc2": (4 * width, width)})
        if l % 2:
            shapes[f"l{l}_router"] = (width, 1)
    shapes.update({"final_g": (width,), "head": (width, vocab)})
    p = _params(shapes, seed=5, dtype=bf16)
    for k in ("emb", "pos"):
        p[k] = (p[k].astype(f32) * math.sqrt(shapes[k][0] / width) * 0.3).astype(bf16)

    def block(p, l, x, position):
        b, n, _ = x.shape
        h = _rms_norm(x, p[f"l{l}_n1_g"])
        q, k, v = jnp.split((h @ p[f"l{l}_qkv"]).reshape(b, n, 3 * heads, dh), 3, 2)
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(f32) / math.sqrt(dh)
        causal = position[:, None, :, None] >= position[:, None, None, :]
        weights = jax.nn.softmax(jnp.where(causal, logits, -1e9), -1).astype(bf16)
        a = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, n, width) @ p[f"l{l}_o"]
        h = _rms_norm(x + a, p[f"l{l}_n2_g"])
        return a + jax.nn.gelu(h @ p[f"l{l}_fc1"]) @ p[f"l{l}_fc2"]

    def loss_fn(p, tokens):
        b = tokens.shape[0]
        rows = jnp.arange(b)[:, None]
        position = jnp.broadcast_to(jnp.arange(length), (b, length))
        x = p["emb"][tokens] + p["pos"]
        aux = jnp.zeros((), f32)
        for l in range(layers):
            if l % 2 == 0:
                x = x + block(p, l, x, position)
                continue
            score = (x @ p[f"l{l}_router"])[..., 0].astype(f32)
            _, chosen = jax.lax.top_k(score, capacity)
            chosen = jnp.sort(chosen, -1)
            picked = jnp.take_along_axis(x, chosen[..., None], 1)
            delta = block(p, l, picked, chosen)
            gate = jax.nn.sigmoid(jnp.take_along_axis(score, chosen, 1))[..., None]
            x = x.at[rows, chosen].add((gate * delta.astype(f32)).astype(bf16))
            member = jnp.zeros((b, length), f32).at[rows, chosen].set(1.0)
            aux = aux + jnp.mean(jax.nn.softplus(score) - member * score)
        logits = (_rms_norm(x, p["final_g"]) @ p["head"]).astype(f32)[:, :-1]
        return _cross_entropy(logits, tokens[:, 1:]) + 0.01 * aux

    rng = np.random.default_rng(5)
    tokens = _markov_tokens(rng, batch, length, vocab)
    return _train("yellowfin", loss_fn, p, jnp.asarray(tokens, jnp.int32))


def pna_molecules(graphs: int = 64, nodes: int = 24, links: int = 3, features: int = 16,
                  width: int = 48, layers: int = 3) -> Any:
    """Principal neighbourhood aggregation (PNA, Corso et al.) for a graph-level
    regression over 64 random molecule-like graphs of 24 nodes in one node table (every
    node linked to three others of its graph, both directions, the edges sorted by
    destination): each of three layers forms messages by a linear layer over the two
    ends' states and the edge features, aggregates them at every node by mean, maximum,
    minimum and standard deviation (`segment_sum`, `segment_max`, `segment_min`), scales
    the four by identity, amplification and attenuation (log-degree over its mean),
    mixes the twelve with the node's state, and adds the result after batch norm and
    ReLU; graphs are read out by a sum and a maximum over their nodes and an MLP. Mean
    squared error; EG+- (exponentiated gradient on positive and negative parts)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    n = graphs * nodes
    shapes: dict[str, tuple[int, ...]] = {"embed": (features, width), "embed_b": (width,)}
    for l in range(layers):
        shapes.update({f"l{l}_pre": (2 * width + 4, width), f"l{l}_pre_b": (width,),
                       f"l{l}_post": (13 * width, width), f"l{l}_post_b": (width,),
                       f"l{l}_bn_g": (width,), f"l{l}_bn_b": (width,)})
    shapes.update({"r1": (2 * width, width), "r1_b": (width,), "r2": (width, 1), "r2_b": (1,)})
    p = _params(shapes, seed=6)

    rng = np.random.default_rng(6)
    base = np.repeat(np.arange(graphs) * nodes, nodes * links)
    src = np.repeat(np.arange(n), links)
    dst = base + (src - base + rng.integers(1, nodes, src.size)) % nodes
    src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    order = np.argsort(dst, kind="stable")
    src, dst = src[order], dst[order]
    degree = np.bincount(dst, minlength=n).astype(np.float32)
    delta = float(np.mean(np.log(degree + 1.0)))
    log_degree = np.log(degree + 1.0)[:, None]
    scalers = np.concatenate([np.ones_like(log_degree), log_degree / delta,
                              delta / np.maximum(log_degree, 1e-3)], 1).astype(np.float32)
    graph_of = np.repeat(np.arange(graphs), nodes)

    def loss_fn(p, x, edges, src, dst, degree, scalers, graph_of, target):
        h = x @ p["embed"] + p["embed_b"]
        count = jnp.maximum(degree, 1.0)[:, None]
        for l in range(layers):
            m = jax.nn.relu(jnp.concatenate([h[dst], h[src], edges], -1) @ p[f"l{l}_pre"]
                            + p[f"l{l}_pre_b"])
            total = jax.ops.segment_sum(m, dst, n, indices_are_sorted=True)
            square = jax.ops.segment_sum(m * m, dst, n, indices_are_sorted=True)
            mean = total / count
            std = jnp.sqrt(jax.nn.relu(square / count - mean * mean) + 1e-5)
            present = (degree > 0)[:, None]
            high = jnp.where(present, jax.ops.segment_max(m, dst, n, indices_are_sorted=True), 0.0)
            low = jnp.where(present, jax.ops.segment_min(m, dst, n, indices_are_sorted=True), 0.0)
            agg = jnp.concatenate([mean, high, low, std], -1)
            scaled = (agg[:, None, :] * scalers[:, :, None]).reshape(n, 12 * width)
            out = jnp.concatenate([h, scaled], -1) @ p[f"l{l}_post"] + p[f"l{l}_post_b"]
            h = h + jax.nn.relu(_batch_norm(out, p[f"l{l}_bn_g"], p[f"l{l}_bn_b"]))
        pooled = jnp.concatenate([jax.ops.segment_sum(h, graph_of, graphs, indices_are_sorted=True),
                                  jax.ops.segment_max(h, graph_of, graphs,
                                                      indices_are_sorted=True)], -1)
        out = (jax.nn.relu(pooled @ p["r1"] + p["r1_b"]) @ p["r2"] + p["r2_b"])[:, 0]
        return jnp.mean(jnp.square(out - target))

    kinds = rng.integers(0, 8, n)
    x = np.concatenate([np.eye(8)[kinds], rng.standard_normal((n, features - 8))], 1)
    bond = rng.integers(0, 3, src.size)
    length = rng.uniform(1.0, 1.6, src.size)
    edges = np.concatenate([np.eye(3)[bond], length[:, None]], 1)
    mixing = rng.standard_normal((features, features)) / math.sqrt(features)
    pair = np.tanh(np.sum((x[src] @ mixing) * x[dst], -1)) * (1.0 + bond)
    target = np.bincount(graph_of[dst], pair, graphs) / nodes
    target = (target - target.mean()) / (target.std() + 1e-6)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("eg_plus_minus", loss_fn, p, f32(x), f32(edges), i32(src), i32(dst), f32(degree),
                  f32(scalers), i32(graph_of), f32(target))


def diffsort_ranking(sets: int = 16, size: int = 16, height: int = 24, steepness: float = 8.0,
                     microbatches: int = 4, tau: float = 0.97) -> Any:
    """Learning to rank images of two-digit numbers through a differentiable sorting
    network (diffsort, Petersen et al.): a small CNN (3x3 convolutions of 16 and 32
    channels with 2x2 max pooling, a 64-unit hidden layer) scores each 24x48 image, and
    the sixteen scores of a set pass the ten layers of a bitonic sorting network whose
    compare-and-swap steps are relaxed by logistic sigmoids (steepness 8), each layer
    mixing a relaxed permutation matrix by gathers of partner rows; the loss is the
    binary cross-entropy of that matrix against the true ordering. Gradient agreement
    filtering (GAF, Chaubard and Kochenderfer): four microbatches of four sets each get
    their own gradient under `vmap`, a microbatch's gradient joins the running sum only
    if its cosine distance to it is at most 0.97, and the mean of those that joined
    drives momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    flat = (height // 4) * (2 * height // 4) * 32
    p = _params({"c1": (3, 3, 1, 16), "c1_b": (16,), "c2": (3, 3, 16, 32), "c2_b": (32,),
                 "fc": (flat, 64), "fc_b": (64,), "out": (64, 1), "out_b": (1,)},
                seed=7, scale=math.sqrt(2.0))

    network = []
    k = 2
    while k <= size:
        j = k // 2
        while j >= 1:
            i = np.arange(size)
            partner = i ^ j
            network.append((partner, (i < partner) == ((i & k) == 0)))
            j //= 2
        k *= 2

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss_fn(p, images, truth):
        b = images.shape[0]
        x = images.reshape((b * size,) + images.shape[2:])
        x = pool(jax.nn.relu(_conv(x, p["c1"]) + p["c1_b"]))
        x = pool(jax.nn.relu(_conv(x, p["c2"]) + p["c2_b"]))
        h = jax.nn.relu(x.reshape(b * size, flat) @ p["fc"] + p["fc_b"])
        scores = (h @ p["out"] + p["out_b"]).reshape(b, size)
        perm = jnp.broadcast_to(jnp.eye(size, dtype=f32), (b, size, size))
        for partner, small in network:
            other = scores[:, partner]
            w = jax.nn.sigmoid(steepness * jnp.where(small, other - scores, scores - other))
            scores = w * scores + (1.0 - w) * other
            perm = w[..., None] * perm + (1.0 - w[..., None]) * perm[:, partner]
        perm = jnp.clip(perm, 1e-6, 1.0 - 1e-6)
        return -jnp.mean(truth * jnp.log(perm) + (1.0 - truth) * jnp.log(1.0 - perm))

    rate, momentum = 0.05, 0.9
    leaves, treedef = jax.tree.flatten(p)
    cuts = np.cumsum([leaf.size for leaf in leaves])[:-1].tolist()

    def step(params, buf, images, truth):
        losses, grads = jax.vmap(jax.value_and_grad(loss_fn), (None, 0, 0))(params, images, truth)
        g = jnp.concatenate([leaf.reshape(microbatches, -1) for leaf in jax.tree.leaves(grads)], 1)
        total, joined = g[0], jnp.ones((), f32)
        for i in range(1, microbatches):
            cosine = total @ g[i] / (jnp.linalg.norm(total) * jnp.linalg.norm(g[i]) + 1e-12)
            agree = 1.0 - cosine <= tau
            total = jnp.where(agree, total + g[i], total)
            joined = joined + agree.astype(f32)
        mean = treedef.unflatten([piece.reshape(leaf.shape) for piece, leaf in
                                  zip(jnp.split(total / joined, cuts), leaves)])
        buf = jax.tree.map(lambda b, g_: momentum * b + g_, buf, mean)
        params = jax.tree.map(lambda w, b: w - rate * b, params, buf)
        return params, buf, jnp.mean(losses), joined

    rng = np.random.default_rng(7)
    digits = _glyphs(rng, 10, height)
    numbers = rng.integers(0, 100, (sets, size))
    images = np.zeros((sets, size, height, 2 * height, 1), np.float32)
    for s in range(sets):
        for i in range(size):
            pair = np.concatenate([digits[numbers[s, i] // 10], digits[numbers[s, i] % 10]], 1)
            pair = np.roll(pair, tuple(rng.integers(-2, 3, 2)), (0, 1))
            images[s, i, ..., 0] = pair + 0.05 * rng.standard_normal(pair.shape)
    ranks = np.argsort(numbers + 1e-3 * rng.uniform(size=numbers.shape), 1, kind="stable")
    truth = np.zeros((sets, size, size), np.float32)
    truth[np.arange(sets)[:, None], np.arange(size)[None, :], ranks] = 1.0
    per = sets // microbatches
    images = images.reshape((microbatches, per) + images.shape[1:])
    truth = truth.reshape(microbatches, per, size, size)
    buf = jax.tree.map(jnp.zeros_like, p)
    return jax.jit(step).lower(p, buf, jnp.asarray(images), jnp.asarray(truth))


def residual_flow(batch: int = 256, dims: int = 16, hidden: int = 128, blocks: int = 4,
                  terms: int = 6, lipschitz: float = 0.9) -> Any:
    """A residual flow (invertible ResNet, Behrmann et al.; Chen et al.) for density
    estimation of 16-dimensional data: four blocks x + g(x), each g an MLP of 128 LipSwish
    units whose weights are spectrally normalized to a Lipschitz constant of 0.9 by one
    power-iteration step per weight (the iteration vectors carried between steps). The
    log-determinant of every block comes from a Hutchinson estimate of its power series,
    the vector-Jacobian products repeated by one `vjp` pullback and differentiated
    again: two terms always, further ones up to six by a Russian roulette (a geometric
    draw per step, the kept terms reweighted by their survival probabilities). Loss: the
    negative log-likelihood under a standard normal base; Amos."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    for k in range(blocks):
        shapes.update({f"b{k}_w1": (dims, hidden), f"b{k}_w1_b": (hidden,),
                       f"b{k}_w2": (hidden, hidden), f"b{k}_w2_b": (hidden,),
                       f"b{k}_w3": (hidden, dims), f"b{k}_w3_b": (dims,)})
    p = _params(shapes, seed=8)
    weights = [k for k in shapes if not k.endswith("_b")]
    rng = np.random.default_rng(8)
    vectors = {k: jnp.asarray(rng.standard_normal(shapes[k][1]) / math.sqrt(shapes[k][1]),
                              jnp.float32) for k in weights}

    def lipswish(x):
        return x * jax.nn.sigmoid(x) / 1.1

    def normalized(w, u):
        v = w @ u
        v = v / (jnp.linalg.norm(v) + 1e-12)
        u = w.T @ v
        u = jax.lax.stop_gradient(u / (jnp.linalg.norm(u) + 1e-12))
        sigma = v @ (w @ u)
        return w * jnp.minimum(1.0, lipschitz / sigma), u

    def loss_fn(p, vectors, x, key):
        fresh = {}
        k_terms, k_probe = jax.random.split(key)
        kept = 2 + jnp.floor(jnp.log(jax.random.uniform(k_terms, (), minval=1e-6))
                             / math.log(0.5))
        logdet = jnp.zeros(x.shape[0])
        for k in range(blocks):
            w = {}
            for name in ("w1", "w2", "w3"):
                w[name], fresh[f"b{k}_{name}"] = normalized(p[f"b{k}_{name}"],
                                                            vectors[f"b{k}_{name}"])

            def g(z, w=w, k=k):
                h = lipswish(z @ w["w1"] + p[f"b{k}_w1_b"])
                h = lipswish(h @ w["w2"] + p[f"b{k}_w2_b"])
                return h @ w["w3"] + p[f"b{k}_w3_b"]

            y, pull = jax.vjp(g, x)
            probe = jax.random.normal(jax.random.fold_in(k_probe, k), x.shape)
            row = probe
            for n in range(1, terms + 1):
                (row,) = pull(row)
                survive = 1.0 if n <= 2 else 0.5 ** (n - 2)
                weight = jnp.where(n <= kept, (-1.0) ** (n + 1) / (n * survive), 0.0)
                logdet = logdet + weight * jnp.sum(row * probe, -1)
            x = x + y
        base = -0.5 * jnp.sum(x * x, -1) - 0.5 * dims * math.log(2.0 * math.pi)
        return -jnp.mean(base + logdet) / dims, fresh

    init, update = _update_rule("amos")

    def step(params, state, vectors, x, key):
        (loss, fresh), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, vectors, x, key)
        params, state = update(params, grads, state, loss)
        return params, state, fresh, loss

    centres = 2.0 * rng.standard_normal((6, dims))
    z = centres[rng.integers(0, 6, batch)] + 0.5 * rng.standard_normal((batch, dims))
    mix = rng.standard_normal((dims, dims)) / math.sqrt(dims)
    x = z + 0.8 * np.tanh(z @ mix) + 0.05 * rng.standard_normal((batch, dims))
    return jax.jit(step).lower(p, jax.eval_shape(init, p), vectors, jnp.asarray(x, jnp.float32),
                               jax.random.PRNGKey(8))


def maxvit_classifier(batch: int = 8, side: int = 32, widths: tuple[int, int] = (48, 96),
                      window: int = 4, head_dim: int = 16, classes: int = 10,
                      period: int = 200) -> Any:
    """A MaxViT classifier (Tu et al.) in bfloat16 with dynamic loss scaling: a strided
    3x3 stem, then two stages (48 channels at 16x16, 96 at 8x8), each an MBConv (batch
    norm, 1x1 expansion by four, a depthwise 3x3 convolution, strided in the second
    stage, squeeze-and-excitation, 1x1 projection) followed by block attention inside
    4x4 windows and grid attention over a dilated 4x4 grid, both with relative position
    biases gathered from a learned table and GELU feed-forward layers; global pooling,
    layer norm and a linear head; cross-entropy. The loss is multiplied by a loss scale
    before the bfloat16 backward pass and the gradients divided by it in float32; a step
    with a non-finite gradient is skipped and halves the scale, and 200 finite steps in a
    row double it; Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    tokens = window * window
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_b": (widths[0],)}
    cin = widths[0]
    for s, c in enumerate(widths):
        k = f"s{s}"
        shapes.update({f"{k}_bn_g": (cin,), f"{k}_bn_b": (cin,),
                       f"{k}_expand": (1, 1, cin, 4 * c), f"{k}_dw": (3, 3, 1, 4 * c),
                       f"{k}_dw_bn_g": (4 * c,), f"{k}_dw_bn_b": (4 * c,),
                       f"{k}_se1": (4 * c, c // 4), f"{k}_se1_b": (c // 4,),
                       f"{k}_se2": (c // 4, 4 * c), f"{k}_se2_b": (4 * c,),
                       f"{k}_project": (1, 1, 4 * c, c)})
        if cin != c:
            shapes[f"{k}_short"] = (1, 1, cin, c)
        for a in ("block", "grid"):
            heads = c // head_dim
            shapes.update({f"{k}{a}_n1_g": (c,), f"{k}{a}_n1_b": (c,),
                           f"{k}{a}_qkv": (c, 3 * c), f"{k}{a}_qkv_b": (3 * c,),
                           f"{k}{a}_o": (c, c), f"{k}{a}_o_b": (c,),
                           f"{k}{a}_rel": ((2 * window - 1) ** 2, heads),
                           f"{k}{a}_n2_g": (c,), f"{k}{a}_n2_b": (c,),
                           f"{k}{a}_fc1": (c, 4 * c), f"{k}{a}_fc1_b": (4 * c,),
                           f"{k}{a}_fc2": (4 * c, c), f"{k}{a}_fc2_b": (c,)})
        cin = c
    shapes.update({"final_g": (cin,), "final_b": (cin,), "head": (cin, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=9, dtype=bf16)
    for k in shapes:
        if k.endswith("_rel"):
            p[k] = (p[k].astype(f32) * 0.02 * math.sqrt(shapes[k][0])).astype(bf16)

    yy, xx = np.meshgrid(np.arange(window), np.arange(window), indexing="ij")
    yy, xx = yy.reshape(-1), xx.reshape(-1)
    relative = jnp.asarray((yy[:, None] - yy[None, :] + window - 1) * (2 * window - 1)
                           + xx[:, None] - xx[None, :] + window - 1, jnp.int32)

    def mbconv(p, k, x, stride):
        c = p[f"{k}_project"].shape[-1]
        h = _batch_norm(x, p[f"{k}_bn_g"], p[f"{k}_bn_b"])
        h = jax.nn.gelu(_conv(h, p[f"{k}_expand"]))
        h = _conv(h, p[f"{k}_dw"], stride, groups=4 * c)
        h = jax.nn.gelu(_batch_norm(h, p[f"{k}_dw_bn_g"], p[f"{k}_dw_bn_b"]))
        squeeze = jax.nn.silu(h.mean((1, 2)) @ p[f"{k}_se1"] + p[f"{k}_se1_b"])
        h = h * jax.nn.sigmoid(squeeze @ p[f"{k}_se2"] + p[f"{k}_se2_b"])[:, None, None]
        h = _conv(h, p[f"{k}_project"])
        if f"{k}_short" in p:
            b, hh, ww, cc = x.shape
            x = x.reshape(b, hh // stride, stride, ww // stride, stride, cc).mean((2, 4))
            x = _conv(x, p[f"{k}_short"])
        return x + h

    def attend(p, k, x):
        g, n, c = x.shape
        heads = c // head_dim
        h = _layer_norm(x, p[f"{k}_n1_g"], p[f"{k}_n1_b"])
        q, kk, v = jnp.split((h @ p[f"{k}_qkv"] + p[f"{k}_qkv_b"]).reshape(g, n, 3 * heads,
                                                                            head_dim), 3, 2)
        bias = p[f"{k}_rel"][relative].astype(f32).transpose(2, 0, 1)
        logits = jnp.einsum("gqhd,gkhd->ghqk", q, kk).astype(f32) / math.sqrt(head_dim) + bias
        weights = jax.nn.softmax(logits, -1).astype(bf16)
        x = x + jnp.einsum("ghqk,gkhd->gqhd", weights, v).reshape(g, n, c) @ p[f"{k}_o"] \
            + p[f"{k}_o_b"]
        h = _layer_norm(x, p[f"{k}_n2_g"], p[f"{k}_n2_b"])
        return x + jax.nn.gelu(h @ p[f"{k}_fc1"] + p[f"{k}_fc1_b"]) @ p[f"{k}_fc2"] \
            + p[f"{k}_fc2_b"]

    def blocks(x):
        b, h, w, c = x.shape
        x = x.reshape(b, h // window, window, w // window, window, c).transpose(0, 1, 3, 2, 4, 5)
        return x.reshape(-1, tokens, c), lambda t: t.reshape(
            b, h // window, w // window, window, window, c).transpose(0, 1, 3, 2, 4, 5).reshape(
            b, h, w, c)

    def grid(x):
        b, h, w, c = x.shape
        x = x.reshape(b, window, h // window, window, w // window, c).transpose(0, 2, 4, 1, 3, 5)
        return x.reshape(-1, tokens, c), lambda t: t.reshape(
            b, h // window, w // window, window, window, c).transpose(0, 3, 1, 4, 2, 5).reshape(
            b, h, w, c)

    def loss_fn(p, images, labels):
        x = _conv(images, p["stem"], 2) + p["stem_b"]
        for s in range(len(widths)):
            k = f"s{s}"
            x = mbconv(p, k, x, 1 if s == 0 else 2)
            for a, split in (("block", blocks), ("grid", grid)):
                t, back = split(x)
                x = back(attend(p, f"{k}{a}", t))
        x = _layer_norm(x.astype(f32).mean((1, 2)), p["final_g"], p["final_b"])
        return _cross_entropy(x @ p["head"].astype(f32) + p["head_b"].astype(f32), labels)

    rate, b1, b2 = 1e-3, 0.9, 0.999
    tm = jax.tree.map

    def step(params, state, images, labels):
        m, v, scale, good, t = state
        loss, grads = jax.value_and_grad(lambda q: loss_fn(q, images, labels) * scale)(params)
        loss = loss / scale
        grads = tm(lambda g: g.astype(f32) / scale, grads)
        finite = jnp.all(jnp.stack([jnp.all(jnp.isfinite(g)) for g in jax.tree.leaves(grads)]))
        n = (t + 1).astype(f32)
        m_new = tm(lambda m_, g: b1 * m_ + (1.0 - b1) * g, m, grads)
        v_new = tm(lambda v_, g: b2 * v_ + (1.0 - b2) * g * g, v, grads)
        moved = tm(lambda w, m_, v_: (w.astype(f32) - rate * (m_ / (1.0 - b1 ** n))
                                      / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8)).astype(w.dtype),
                   params, m_new, v_new)
        keep = lambda new, old: tm(lambda a, b: jnp.where(finite, a, b), new, old)
        streak = jnp.where(finite, good + 1, 0)
        scale = jnp.where(finite, jnp.where(streak >= period, jnp.minimum(scale * 2.0, 2.0 ** 24),
                                            scale), scale / 2.0)
        state = (keep(m_new, m), keep(v_new, v), scale, streak % period,
                 jnp.where(finite, t + 1, t))
        return keep(moved, params), state, loss

    rng = np.random.default_rng(9)
    labels = rng.integers(0, classes, batch)
    prototypes = _smooth_images(rng, classes, side, 3, 3.0)
    images = 0.8 * prototypes[labels] + 0.6 * _smooth_images(rng, batch, side, 3, 8.0)
    state = (tm(lambda w: jnp.zeros(w.shape, f32), p), tm(lambda w: jnp.zeros(w.shape, f32), p),
             jnp.asarray(2.0 ** 15, f32), jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))
    return jax.jit(step).lower(p, state, jnp.asarray(images, bf16), jnp.asarray(labels, jnp.int32))


def cpc_audio(batch: int = 8, samples: int = 2048, hidden: int = 128, horizon: int = 4,
              negatives: int = 15) -> Any:
    """Contrastive predictive coding (van den Oord et al.) on raw waveforms: a strided 1-D
    convolutional encoder (kernel 8 stride 4 to 64 channels, then kernel 4 stride 2 to 128
    twice) turns 2048 samples into 128 frames, a GRU in a `lax.scan` summarizes the
    frames seen so far, and for each of four horizons a linear map of the summary must
    pick the true future frame out of it and fifteen negatives gathered from random
    positions anywhere in the batch (InfoNCE: a softmax over the sixteen scores).
    M-SVAG (momentum SGD damped by variance-adapted factors)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"e1": (8, 1, 64), "e1_b": (64,), "e2": (4, 64, 128),
                                          "e2_b": (128,), "e3": (4, 128, 128), "e3_b": (128,),
                                          "gru_x": (128, 3 * hidden), "gru_h": (hidden, 3 * hidden),
                                          "gru_b": (3 * hidden,), "predict": (horizon, hidden, 128)}
    p = _params(shapes, seed=10, scale=math.sqrt(2.0))

    def conv1d(x, w, stride):
        return lax.conv_general_dilated(x, w, (stride,), "SAME", dimension_numbers=_NWC)

    def loss_fn(p, waves, key):
        z = jax.nn.relu(conv1d(waves[..., None], p["e1"], 4) + p["e1_b"])
        z = jax.nn.relu(conv1d(z, p["e2"], 2) + p["e2_b"])
        z = conv1d(z, p["e3"], 2) + p["e3_b"]
        b, frames, width = z.shape
        inputs = jnp.swapaxes(z @ p["gru_x"] + p["gru_b"], 0, 1)

        def cell(h, x):
            xr, xu, xn = jnp.split(x, 3, -1)
            hr, hu, hn = jnp.split(h @ p["gru_h"], 3, -1)
            r, u = jax.nn.sigmoid(xr + hr), jax.nn.sigmoid(xu + hu)
            h = (1.0 - u) * jnp.tanh(xn + r * hn) + u * h
            return h, h

        _, c = lax.scan(cell, jnp.zeros((b, hidden)), inputs)
        c = jnp.swapaxes(c, 0, 1)
        drawn = jax.random.randint(key, (b, frames, negatives), 0, b * frames)
        negative = z.reshape(b * frames, width)[drawn]
        total = jnp.zeros(())
        for k in range(1, horizon + 1):
            guess = c[:, :-k] @ p["predict"][k - 1]
            positive = jnp.sum(guess * z[:, k:], -1, keepdims=True)
            other = jnp.einsum("btd,btnd->btn", guess, negative[:, :-k])
            logits = jnp.concatenate([positive, other], -1)
            total = total + jnp.mean(jax.nn.logsumexp(logits, -1) - logits[..., 0])
        return total / horizon

    rng = np.random.default_rng(10)
    t = np.arange(samples) / 8000.0
    waves = np.zeros((batch, samples))
    for i in range(batch):
        f0 = rng.uniform(100, 300) * (1.0 + 0.2 * np.sin(2 * np.pi * rng.uniform(1, 4) * t))
        phase = 2 * np.pi * np.cumsum(f0) / 8000.0
        envelope = 0.5 + 0.5 * np.sin(2 * np.pi * rng.uniform(2, 6) * t + rng.uniform(0, 6))
        waves[i] = envelope * sum(np.sin(h * phase) / h for h in (1, 2, 3))
    waves += 0.05 * rng.standard_normal(waves.shape)
    return _train("msvag", loss_fn, p, jnp.asarray(waves, jnp.float32), jax.random.PRNGKey(10))


def _rotate(omega: Any, x: Any) -> Any:
    """Rodrigues: x rotated by the axis-angle vector omega (both (..., 3), jax)."""
    import jax.numpy as jnp

    theta = jnp.sqrt(jnp.sum(omega * omega, -1, keepdims=True) + 1e-12)
    axis = omega / theta
    cos, sin = jnp.cos(theta), jnp.sin(theta)
    return (x * cos + jnp.cross(axis, x) * sin
            + axis * jnp.sum(axis * x, -1, keepdims=True) * (1.0 - cos))


def bundle_adjustment(cameras: int = 8, points: int = 2048, views: int = 4,
                      max_iterations: int = 50, tolerance: float = 1e-7, focal: float = 500.0,
                      noise: float = 0.5) -> Any:
    """Computer vision: bundle adjustment of eight cameras (axis-angle rotation and
    translation each) and 2048 points, every point seen by four of the cameras, by
    Levenberg-Marquardt in a `while_loop` that stops when an accepted step lowers the
    reprojection cost by less than a relative 1e-7 (capped at 50 iterations). Each
    iteration gathers cameras and points for the 8192 observations, takes the 2x6 and
    2x3 Jacobians of every pinhole reprojection residual by `vmap` of `jacfwd`, sums the
    camera blocks of the normal equations by `segment_sum`, eliminates the points by
    their damped 3x3 blocks inverted in closed form (the Schur complement: camera-pair
    blocks summed by `segment_sum` into a 48x48 system, the first camera held fixed),
    solves that by a Cholesky factorization and two triangular substitutions written as
    `fori_loop`s, back-substitutes the points, and accepts the step (damping divided by
    3) or rejects it (damping times 4) by the new cost. The refined cameras and points,
    the iteration count and the RMS reprojection error before and after come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    size = 6 * cameras

    def project(camera, point):
        seen = _rotate(camera[..., :3], point) + camera[..., 3:]
        return focal * seen[..., :2] / seen[..., 2:3]

    def residual(camera, point, observed):
        return project(camera, point) - observed

    jacobians = jax.vmap(jax.vmap(jax.jacfwd(residual, (0, 1)), (0, None, 0)), (0, 0, 0))

    def cholesky(a):
        n = a.shape[0]
        index = jnp.arange(n)

        def column(j, low):
            row = jnp.where(index < j, low[j], 0.0)
            pivot = jnp.sqrt(jnp.maximum(a[j, j] - row @ row, 1e-20))
            below = (a[:, j] - low @ row) / pivot
            return low.at[:, j].set(jnp.where(index > j, below, jnp.where(index == j, pivot, 0.0)))

        return lax.fori_loop(0, n, column, jnp.zeros_like(a))

    def solve(low, b):
        n = b.shape[0]
        forward = lax.fori_loop(0, n, lambda i, y: y.at[i].set((b[i] - low[i] @ y) / low[i, i]),
                                jnp.zeros_like(b))
        return lax.fori_loop(0, n, lambda k, x: x.at[n - 1 - k].set(
            (forward[n - 1 - k] - low[:, n - 1 - k] @ x) / low[n - 1 - k, n - 1 - k]),
            jnp.zeros_like(b))

    def inverse3(m):
        a, b, c = m[..., 0, 0], m[..., 0, 1], m[..., 0, 2]
        d, e, f = m[..., 1, 0], m[..., 1, 1], m[..., 1, 2]
        g, h, i = m[..., 2, 0], m[..., 2, 1], m[..., 2, 2]
        cof = jnp.stack([jnp.stack([e * i - f * h, c * h - b * i, b * f - c * e], -1),
                         jnp.stack([f * g - d * i, a * i - c * g, c * d - a * f], -1),
                         jnp.stack([d * h - e * g, b * g - a * h, a * e - b * d], -1)], -2)
        det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        return cof / det[..., None, None]

    def run(cams, pts, which, observed):
        pair = (which[:, :, None] * cameras + which[:, None, :]).reshape(-1)
        flat = which.reshape(-1)

        def cost(cams, pts):
            return jnp.sum(jnp.square(residual(cams[which], pts[:, None, :], observed)))

        def unfinished(carry):
            i, _, _, _, _, change = carry
            return (i < max_iterations) & (change > tolerance)

        def iterate(carry):
            i, cams, pts, damping, current, change = carry
            r = residual(cams[which], pts[:, None, :], observed)
            jc, jp = jacobians(cams[which], pts, observed)
            u = jax.ops.segment_sum(jnp.einsum("pvai,pvaj->pvij", jc, jc).reshape(-1, 6, 6), flat,
                                    cameras)
            gc = jax.ops.segment_sum(jnp.einsum("pvai,pva->pvi", jc, r).reshape(-1, 6), flat,
                                     cameras)
            v = jnp.einsum("pvai,pvaj->pij", jp, jp)
            gp = jnp.einsum("pvai,pva->pi", jp, r)
            w = jnp.einsum("pvai,pvaj->pvij", jc, jp)
            eye6, eye3 = jnp.eye(6), jnp.eye(3)
            hold = jnp.zeros((cameras, 1, 1)).at[0].set(1e10)
            u = u + (damping * jnp.diagonal(u, 0, 1, 2)[:, :, None] + hold + 1e-9) * eye6
            v_inv = inverse3(v + (damping * jnp.diagonal(v, 0, 1, 2)[:, :, None] + 1e-9) * eye3)
            y = jnp.einsum("pvij,pjk->pvik", w, v_inv)
            coupled = jnp.einsum("pvij,pwkj->pvwik", y, w).reshape(-1, 6, 6)
            schur = -jax.ops.segment_sum(coupled, pair, cameras * cameras)
            schur = schur.reshape(cameras, cameras, 6, 6).at[jnp.arange(cameras),
                                                             jnp.arange(cameras)].add(u)
            schur = schur.transpose(0, 2, 1, 3).reshape(size, size)
            rhs = -gc + jax.ops.segment_sum(jnp.einsum("pvij,pj->pvi", y, gp).reshape(-1, 6), flat,
                                            cameras)
            dc = solve(cholesky(schur), rhs.reshape(-1)).reshape(cameras, 6)
            dp = jnp.einsum("pij,pj->pi", v_inv,
                            -gp - jnp.einsum("pvij,pvi->pj", w, dc[which]))
            trial_cams, trial_pts = cams + dc, pts + dp
            trial = cost(trial_cams, trial_pts)
            better = trial < current
            return (i + 1, jnp.where(better, trial_cams, cams), jnp.where(better, trial_pts, pts),
                    jnp.where(better, damping / 3.0, damping * 4.0),
                    jnp.where(better, trial, current),
                    jnp.where(better, (current - trial) / current, change))

        start = cost(cams, pts)
        i, cams, pts, _, final, _ = lax.while_loop(
            unfinished, iterate, (jnp.int32(0), cams, pts, jnp.float32(1e-3), start,
                                  jnp.float32(jnp.inf)))
        rms = lambda c: jnp.sqrt(c / observed[..., 0].size)
        return cams, pts, i, rms(start), rms(final)

    rng = np.random.default_rng(11)
    truth_pts = rng.uniform(-1.0, 1.0, (points, 3))
    angle = np.linspace(0, 2 * np.pi, cameras, endpoint=False)
    truth_cams = np.zeros((cameras, 6))
    truth_cams[:, 1] = -angle + 0.05 * rng.standard_normal(cameras)
    truth_cams[:, 0] = 0.05 * rng.standard_normal(cameras)
    truth_cams[:, 5] = 5.0
    truth_cams[:, 3:5] = 0.1 * rng.standard_normal((cameras, 2))
    which = np.argsort(rng.uniform(size=(points, cameras)), 1)[:, :views]
    omega, shift = truth_cams[which][..., :3], truth_cams[which][..., 3:]
    theta = np.linalg.norm(omega, axis=-1, keepdims=True) + 1e-12
    axis, point = omega / theta, truth_pts[:, None, :]
    turned = (point * np.cos(theta) + np.cross(axis, point) * np.sin(theta)
              + axis * np.sum(axis * point, -1, keepdims=True) * (1.0 - np.cos(theta))) + shift
    seen = focal * turned[..., :2] / turned[..., 2:3]
    observed = seen + noise * rng.standard_normal(seen.shape)
    cams = truth_cams + np.concatenate([0.01 * rng.standard_normal((cameras, 3)),
                                        0.05 * rng.standard_normal((cameras, 3))], 1)
    cams[0] = truth_cams[0]
    pts = truth_pts + 0.05 * rng.standard_normal(truth_pts.shape)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(run).lower(f32(cams), f32(pts), jnp.asarray(which, jnp.int32), f32(observed))


def hdr_tone_mapping(images: int = 4, height: int = 1024, width: int = 1536, key: float = 0.18,
                     saturation: float = 0.6) -> Any:
    """Image processing: global tone mapping of four 1024x1536 high-dynamic-range images
    (float32 radiance: a sky gradient, shadows and small bright light sources spanning
    several orders of magnitude) to 8-bit sRGB, a chain of elementwise maps and whole-image
    reductions over 75 MB: Rec. 709 luminance, the log-average luminance and the
    luminance range of each image (reductions), exposure scaling to a key of 0.18,
    Reinhard's extended operator with the brightest scaled luminance as white point,
    colour restored by the ratio of each channel to the luminance raised to 0.6, the
    piecewise sRGB transfer curve, clipping and rounding to uint8. The pixels, each
    image's log-average, white point, dynamic range in stops, per-channel mean and the
    share of clipped pixels come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    def run(radiance):
        r, g, b = radiance[..., 0], radiance[..., 1], radiance[..., 2]
        luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
        log_average = jnp.exp(jnp.mean(jnp.log(luminance + 1e-6), (1, 2)))
        stops = jnp.log2(jnp.max(luminance, (1, 2)) / (jnp.min(luminance, (1, 2)) + 1e-6))
        scaled = (key / log_average)[:, None, None] * luminance
        white = jnp.max(scaled, (1, 2))
        mapped = scaled * (1.0 + scaled / jnp.square(white)[:, None, None]) / (1.0 + scaled)
        colour = (radiance / (luminance[..., None] + 1e-6)) ** saturation * mapped[..., None]
        srgb = jnp.where(colour <= 0.0031308, 12.92 * colour,
                         1.055 * jnp.power(jnp.maximum(colour, 0.0031308), 1.0 / 2.4) - 0.055)
        clipped = jnp.mean((srgb > 1.0).any(-1).astype(jnp.float32), (1, 2))
        srgb = jnp.clip(srgb, 0.0, 1.0)
        pixels = jnp.round(srgb * 255.0).astype(jnp.uint8)
        return pixels, log_average, white, stops, jnp.mean(srgb, (1, 2)), clipped

    rng = np.random.default_rng(12)
    coarse = _smooth_images(rng, images, 64, 3, 3.0)
    light = np.exp(2.0 * coarse[..., :1] + 0.2 * coarse)
    light = np.repeat(np.repeat(light, height // 64, 1), width // 64, 2)[:, :height, :width]
    sky = np.linspace(3.0, 0.0, height, dtype=np.float32)[None, :, None, None]
    radiance = light * np.exp(sky)
    radiance *= np.exp(0.3 * rng.standard_normal((images, height, width, 1), np.float32))
    yy, xx = np.mgrid[0:height, 0:width]
    for i in range(images):
        for _ in range(3):
            cy, cx = rng.uniform(0, height), rng.uniform(0, width)
            spot = (yy - cy) ** 2 + (xx - cx) ** 2 < rng.uniform(50, 400)
            radiance[i][spot] = rng.uniform(500, 5000) * rng.uniform(0.8, 1.0, 3)
    return jax.jit(run).lower(jnp.asarray(radiance, jnp.float32))


def mean_shift_segmentation(height: int = 32, width: int = 64, iterations: int = 25,
                            bandwidth: float = 0.12, spatial: float = 0.5) -> Any:
    """Image segmentation by mean shift in the joint spatial-range domain (Comaniciu and
    Meer): the 2048 pixels of a 32x64 colour image of noisy regions become points of
    colour and scaled position, and every point climbs to a mode of their Gaussian
    kernel density by 25 mean-shift iterations in a `fori_loop` (all pairwise squared
    distances through one matrix product, the kernel-weighted mean by another). The modes
    are then grouped: quantized to half a bandwidth and hashed to one integer, sorted,
    numbered by a `cumsum` of the changes between neighbours in sorted order and
    scattered back; region sizes and mean colours come from `segment_sum`. The labels,
    the segmented image, the modes and the number of regions come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = height * width

    def run(image):
        yy, xx = jnp.meshgrid(jnp.arange(height) / width, jnp.arange(width) / width, indexing="ij")
        colour = image.reshape(n, 3)
        x = jnp.concatenate([colour, spatial * jnp.stack([yy, xx], -1).reshape(n, 2)], -1)
        square = jnp.sum(x * x, -1)

        def shift(_, y):
            distance = jnp.sum(y * y, -1)[:, None] + square[None, :] - 2.0 * y @ x.T
            kernel = jnp.exp(-jnp.maximum(distance, 0.0) / (2.0 * bandwidth ** 2))
            return (kernel @ x) / jnp.sum(kernel, -1, keepdims=True)

        modes = lax.fori_loop(0, iterations, shift, x)
        cells = jnp.clip(jnp.floor((modes - jnp.min(x, 0)) / (0.5 * bandwidth)), 0, 63)
        cells = cells.astype(jnp.int32)
        code = sum(cells[:, i] << (6 * i) for i in range(5))
        order = jnp.argsort(code)
        ordered = code[order]
        changes = jnp.concatenate([jnp.zeros(1, jnp.int32),
                                   (ordered[1:] != ordered[:-1]).astype(jnp.int32)])
        labels = jnp.zeros(n, jnp.int32).at[order].set(jnp.cumsum(changes))
        sizes = jax.ops.segment_sum(jnp.ones(n), labels, n)
        means = jax.ops.segment_sum(colour, labels, n) / jnp.maximum(sizes, 1.0)[:, None]
        segmented = means[labels].reshape(height, width, 3)
        return labels.reshape(height, width), segmented, modes, labels.max() + 1

    rng = np.random.default_rng(13)
    regions = _smooth_images(rng, 1, 64, 6, 2.0)[0, :height, :width].argmax(-1)
    palette = rng.uniform(0.0, 1.0, (6, 3))
    image = palette[regions] + 0.04 * rng.standard_normal((height, width, 3))
    return jax.jit(run).lower(jnp.asarray(image, jnp.float32))


def suffix_array_bwt(texts: int = 4, length: int = 16384, repeat: int = 2048,
                     copies: int = 3, mutation: float = 0.002) -> Any:
    """String processing: suffix arrays of four DNA texts of 16384 letters (each with a
    2048-letter segment planted three times with rare point mutations, and a unique
    sentinel at the end) by prefix doubling in a `while_loop` that stops once every
    suffix has its own rank (capped at fourteen doublings, enough for any text of this
    length): each round pairs every rank with the rank 2^k letters ahead by a gather,
    sorts the pair keys by a stable `argsort`, renumbers them by a `cumsum` of the changes
    in sorted order, scatters the new ranks back and keeps them in a table by level. The
    Burrows-Wheeler transform is read off by a gather, and the longest common prefix of
    every pair of neighbouring suffixes comes from the rank table by binary lifting in a
    `fori_loop` over the levels, from which the longest repeat and the number of distinct
    substrings follow."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    levels = math.ceil(math.log2(length)) + 1

    def run(text):
        rows = jnp.arange(texts)[:, None]
        position = jnp.arange(length)[None, :]
        table = jnp.zeros((levels, texts, length), jnp.int32).at[0].set(text)

        def unfinished(carry):
            level, _, _, _, done = carry
            return (~done) & (level < levels - 1)

        def double(carry):
            level, rank, table, _, _ = carry
            ahead = jnp.broadcast_to(position + (1 << level), (texts, length))
            second = jnp.where(ahead < length,
                               jnp.take_along_axis(rank, jnp.minimum(ahead, length - 1), 1) + 1, 0)
            key = rank * (length + 1) + second
            order = jnp.argsort(key, 1, stable=True)
            ordered = jnp.take_along_axis(key, order, 1)
            changes = jnp.concatenate([jnp.zeros((texts, 1), jnp.int32),
                                       (ordered[:, 1:] != ordered[:, :-1]).astype(jnp.int32)], 1)
            numbered = jnp.cumsum(changes, 1)
            rank = jnp.zeros_like(rank).at[rows, order].set(numbered)
            table = lax.dynamic_update_index_in_dim(table, rank, level + 1, 0)
            return level + 1, rank, table, order, jnp.all(numbered[:, -1] == length - 1)

        start = (jnp.int32(0), text, table, jnp.argsort(text, 1, stable=True), jnp.bool_(False))
        reached, rank, table, suffixes, _ = lax.while_loop(unfinished, double, start)
        bwt = jnp.take_along_axis(text, (suffixes - 1) % length, 1)
        first, second = suffixes[:, :-1], suffixes[:, 1:]

        def lift(step, carry):
            level = levels - 1 - step
            common, a, b = carry
            ranks = lax.dynamic_index_in_dim(table, level, 0, keepdims=False)
            inside = (level <= reached) & (a < length) & (b < length)
            same = inside & (jnp.take_along_axis(ranks, jnp.minimum(a, length - 1), 1)
                             == jnp.take_along_axis(ranks, jnp.minimum(b, length - 1), 1))
            jump = jnp.where(same, 1 << level, 0)
            return common + jump, a + jump, b + jump

        common, _, _ = lax.fori_loop(0, levels, lift, (jnp.zeros_like(first), first, second))
        distinct = length * (length + 1) // 2 - jnp.sum(common, 1)
        return suffixes, bwt, common, jnp.max(common, 1), distinct, reached

    rng = np.random.default_rng(14)
    text = rng.integers(1, 5, (texts, length))
    for i in range(texts):
        segment = rng.integers(1, 5, repeat)
        for start in rng.choice(length // repeat - 1, copies, replace=False) * repeat:
            copy = segment.copy()
            hits = rng.uniform(size=repeat) < mutation
            copy[hits] = rng.integers(1, 5, hits.sum())
            text[i, start:start + repeat] = copy
    text[:, -1] = 0
    return jax.jit(run).lower(jnp.asarray(text, jnp.int32))


def sph_dam_break(side: int = 64, steps: int = 40, per_cell: int = 12, box: float = 4.0,
                  depth: float = 2.0) -> Any:
    """Fluid simulation: the first 40 steps of a dam break by weakly compressible
    smoothed particle hydrodynamics: a 64x64 block of 4096 particles in a 4x2 box, a
    `fori_loop` of steps that each rebuild a cell list (cells of the kernel's support,
    particles sorted by cell index with `argsort`, cell starts from a `segment_sum` of
    counts and an exclusive `cumsum`), gather up to twelve candidates from each of the
    nine surrounding cells (108 per particle), sum densities with the cubic-spline
    kernel, take pressures from the Tait equation (negative ones clipped), sum pressure
    and Monaghan artificial viscosity forces over the same neighbours, add gravity, and
    step by symplectic Euler with reflecting walls. The particles, their densities and
    per-step traces of the surge front and the kinetic energy come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dx = 1.0 / side
    h = 1.3 * dx
    support = 2.0 * h
    cols, rows = math.ceil(box / support), math.ceil(depth / support)
    cells = cols * rows
    mass = dx * dx * 1000.0
    rho0, gravity = 1000.0, 9.81
    sound = 10.0 * math.sqrt(2.0 * gravity * 1.0)
    stiffness = rho0 * sound ** 2 / 7.0
    dt = 0.25 * h / sound
    norm = 10.0 / (7.0 * math.pi * h * h)
    offsets = jnp.asarray([(dy, dx_) for dy in (-1, 0, 1) for dx_ in (-1, 0, 1)], jnp.int32)

    def kernel(q):
        return norm * jnp.where(q < 1.0, 1.0 - 1.5 * q ** 2 + 0.75 * q ** 3,
                                jnp.where(q < 2.0, 0.25 * (2.0 - q) ** 3, 0.0))

    def slope(q):
        return norm / h * jnp.where(q < 1.0, -3.0 * q + 2.25 * q ** 2,
                                    jnp.where(q < 2.0, -0.75 * (2.0 - q) ** 2, 0.0))

    def run(position, velocity):
        n = position.shape[0]

        def advance(i, carry):
            pos, vel, _, front, energy = carry
            cell_xy = jnp.clip(jnp.floor(pos / support).astype(jnp.int32), 0,
                               jnp.asarray([cols - 1, rows - 1]))
            code = cell_xy[:, 1] * cols + cell_xy[:, 0]
            order = jnp.argsort(code)
            pos, vel, code, cell_xy = pos[order], vel[order], code[order], cell_xy[order]
            counts = jax.ops.segment_sum(jnp.ones(n, jnp.int32), code, cells,
                                         indices_are_sorted=True)
            starts = jnp.cumsum(counts) - counts
            around = cell_xy[:, None, :] + offsets[None, :, ::-1]
            valid_cell = jnp.all((around >= 0) & (around < jnp.asarray([cols, rows])), -1)
            near = jnp.clip(around[..., 1], 0, rows - 1) * cols + jnp.clip(around[..., 0], 0,
                                                                          cols - 1)
            slot = jnp.arange(per_cell)
            candidate = starts[near][..., None] + slot
            valid = valid_cell[..., None] & (slot < counts[near][..., None])
            candidate = jnp.where(valid, candidate, 0).reshape(n, -1)
            valid = valid.reshape(n, -1)
            gap = pos[:, None, :] - pos[candidate]
            distance = jnp.sqrt(jnp.sum(gap * gap, -1) + 1e-12)
            q = distance / h
            rho = jnp.sum(jnp.where(valid, mass * kernel(q), 0.0), -1)
            pressure = jnp.maximum(stiffness * ((rho / rho0) ** 7 - 1.0), 0.0)
            towards = jnp.sum((vel[:, None, :] - vel[candidate]) * gap, -1)
            mu = h * towards / (distance ** 2 + 0.01 * h * h)
            viscous = jnp.where(towards < 0.0, -0.1 * sound * mu
                                / (0.5 * (rho[:, None] + rho[candidate])), 0.0)
            share = (pressure[:, None] / rho[:, None] ** 2
                     + pressure[candidate] / rho[candidate] ** 2)
            weight = jnp.where(valid & (distance > 1e-9), -mass * (share + viscous)
                               * slope(q) / distance, 0.0)
            accel = jnp.sum(weight[..., None] * gap, 1) + jnp.asarray([0.0, -gravity])
            vel = vel + dt * accel
            pos = pos + dt * vel
            low, high = jnp.zeros(2) + 0.5 * dx, jnp.asarray([box, depth]) - 0.5 * dx
            outside = (pos < low) | (pos > high)
            vel = jnp.where(outside, -0.5 * vel, vel)
            pos = jnp.clip(pos, low, high)
            kinetic = 0.5 * mass * jnp.sum(vel * vel)
            return (pos, vel, rho, front.at[i].set(jnp.max(pos[:, 0])), energy.at[i].set(kinetic))

        start = (position, velocity, jnp.zeros(n), jnp.zeros(steps), jnp.zeros(steps))
        return lax.fori_loop(0, steps, advance, start)

    grid = (np.stack(np.meshgrid(np.arange(side), np.arange(side), indexing="xy"), -1)
            .reshape(-1, 2) + 0.5) * dx
    rng = np.random.default_rng(15)
    position = grid + 0.01 * dx * rng.standard_normal(grid.shape)
    velocity = np.zeros_like(position)
    return jax.jit(run).lower(jnp.asarray(position, jnp.float32),
                              jnp.asarray(velocity, jnp.float32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "solver_in_the_loop/4x48x48-10-steps": solver_in_the_loop,
    "dino_multicrop/8x2x32px+4x16px-k1024": dino_multicrop,
    "rbm_vmc_ising/24-spins-a2-1024-chains": rbm_vmc_ising,
    "token_merging_vit/16x32px-d128-l4-r12-bf16": token_merging_vit,
    "mixture_of_depths_lm/4x128-d128-l8-c32-bf16": mixture_of_depths_lm,
    "pna_molecules/64x24-nodes-d48-l3": pna_molecules,
    "diffsort_ranking/16x16-numbers-24x48px": diffsort_ranking,
    "residual_flow/256x16-4-blocks-6-terms": residual_flow,
    "maxvit_classifier/8x32px-48-96-bf16": maxvit_classifier,
    "cpc_audio/8x2048-samples-k4": cpc_audio,
    "bundle_adjustment/8-cameras-2048-points-max50": bundle_adjustment,
    "hdr_tone_mapping/4x1024x1536": hdr_tone_mapping,
    "mean_shift_segmentation/2048-pixels-25-iterations": mean_shift_segmentation,
    "suffix_array_bwt/4x16384-max14": suffix_array_bwt,
    "sph_dam_break/4096-particles-40-steps": sph_dam_break,
}
