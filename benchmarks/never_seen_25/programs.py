"""The twenty-fifth never-seen set: programs written on 2026-11-28, after the twenty-fourth
set (benchmarks/never_seen_24/), and never used to choose anything: not for a feature, a
default, a fallback threshold or a model. They exist to judge a trained model once. The
file's SHA-256 is committed beside it (`SHA256`); `fresh_programs.py --set never-seen-25`
refuses to run when the file no longer matches it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
twenty-four never-seen sets has. As before, two training steps are large (a few
gigaflops each: the DeepSDF auto-decoder and the audio codec) and the rest mid-sized.
Several of the ten training steps are built around state that is not an ordinary
weight update: a table of every training example's last gradient passed in and out
(SAGA), four workers' inner optimizer loops under `vmap` (DiLoCo), per-task copies of a
CNN adapted in a `fori_loop` under `vmap` (Reptile), a trained table of latent codes
gathered by the batch (DeepSDF), and an update that diagonalizes a small Gram matrix by
Jacobi rotations (GGT). A small Restormer deblurs 48x48 scenes smeared along random
lines, its transformer blocks attending across channels rather than pixels (a
channels-by-channels softmax per head over L2-normalized queries and keys after
depthwise 3x3 convolutions) with gated depthwise feed-forward layers, in a U shape of
pixel unshuffles and shuffles. A DeepSDF auto-decoder in bfloat16 fits signed distances
of random unions of spheres, boxes, tori and capsules by an eight-layer MLP fed a
latent code per solid, the codes themselves trained, and the point again halfway.
Consistency training in bfloat16 teaches a small noise-conditioned U-Net on stroke
glyphs to map two adjacent Karras noise levels of the same draw to the same output,
against a target network passed to the step and averaged after it. Implicit Q-learning
fits twin critics, a value network by expectile regression and a Gaussian policy by
advantage-weighted regression on logged transitions of a linear system. A
SoundStream-style codec compresses audio clips by strided 1-D convolutions and residual
vector quantization with six codebooks in a `lax.scan` (nearest codes by `argmin`,
quantizer dropout, a straight-through estimator), decoded by transposed convolutions
under waveform and STFT losses. A differentiable neural computer learns copying and
associative recall in a `lax.scan` over its steps, its memory written by allocation
from slots sorted by usage (`argsort` and a cumulative product) and read through a
temporal link matrix. Neural relational inference infers the springs between five
bouncing balls by a graph encoder and Gumbel-softmax edge types, and rolls a message
passing decoder forward in a `lax.scan`. The normalized transformer (nGPT) in bfloat16,
every weight vector and hidden state on the unit sphere, learns arithmetic text by
DiLoCo's four workers. A Visual Attention Network classifies patterned pictures by
large kernel attention (5x5 and dilated 7x7 depthwise convolutions whose output gates
the input). Reptile meta-learns a small CNN for five-way glyph tasks.

Five are scientific or algorithmic steps without a gradient: two-dimensional
compressible Euler flow for two Kelvin-Helmholtz set-ups (MUSCL reconstruction with
minmod slopes by rolls, HLLC fluxes, CFL time steps and a two-stage Runge-Kutta method
in a `fori_loop`, the y sweep by swapping axes and momenta); the density of states of
the 2-D Anderson model by the kernel polynomial method (a matrix-free Chebyshev
recursion of random vectors in a `fori_loop` filling 512 moments by the doubling
identities, the Jackson kernel, a matrix product with a Chebyshev table); a serial
ensemble square-root filter assimilating observations into the Lorenz-96 model for four
experiments (RK4 forecasts in a `fori_loop` inside a `lax.scan` over 48 cycles, the 120
observations of a cycle one at a time in a `fori_loop` under `vmap`, Gaspari-Cohn
localization by dynamic rows of a taper); the roots of 1024 random polynomials of
degree 32 by the Aberth-Ehrlich method in complex64 (a `while_loop`, Horner's rule in a
`lax.scan` with the reversed polynomial for roots outside the unit circle, all-pair
corrections); and simulated annealing of 2-opt tours for four travelling-salesman
instances of 128 cities, 32 chains each (4000 moves in a `fori_loop`, distances and
reversals by gathers, the Metropolis rule on a geometric cooling schedule). The updates
are new to these sets, though several build on earlier ones: scheduled restart SGD
(Nesterov's method with the momentum of the convex schedule, restarted every 40 steps),
row-wise AdaGrad (one accumulator per matrix row), linearized Bregman iterations with
momentum (soft thresholding of a dual variable, for sparse weights), GGT (full-matrix
adaptive preconditioning from a window of eight gradients, with momentum), deep
gradient compression (momentum correction, the top 1% of the accumulated update per
tensor, momentum factor masking), CAGrad over momentum SGD (the two tasks' gradients
combined by their conflict-averse weighting), SAGA (variance reduction by a table of
every example's last gradient, a sibling of SVRG), DiLoCo (inner AdamW, outer SGD with
Nesterov momentum on the workers' mean change), QSGD over momentum SGD (bucketed
stochastic quantization to 16 levels) and Reptile's meta step; three training steps
(DeepSDF, the consistency model and nGPT) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")
_NWC = ("NWC", "WIO", "NWC")


def _params(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
            scale: float = 1.0) -> dict[str, Any]:
    """Starting weights for the named shapes, drawn in the order given from one numpy
    generator: a name ending in `_b` is zero (a bias or shift), one ending in `_g` is one
    (a gain or scale), and any other tensor is Gaussian with standard deviation scale /
    sqrt(fan-in), the fan-in being the product of every axis but the last (one for a
    vector)."""
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


def _global_norm(tree: Any) -> Any:
    """The float32 Euclidean norm of all leaves of a tree together."""
    import jax
    import jax.numpy as jnp

    return jnp.sqrt(sum(jnp.sum(jnp.square(leaf.astype(jnp.float32)))
                        for leaf in jax.tree.leaves(tree)))


def _jacobi_eigh(a: Any, sweeps: int = 6) -> tuple[Any, Any]:
    """Eigenvalues and eigenvectors (columns) of a small symmetric matrix by cyclic
    Jacobi rotations: every sweep zeroes each off-diagonal pair (p, q) in turn by a plane
    rotation, the sweeps in a `fori_loop`. Written out because XLA's CPU eigensolver is a
    LAPACK call."""
    import jax.numpy as jnp
    from jax import lax

    n = a.shape[-1]
    eye = jnp.eye(n, dtype=a.dtype)

    def sweep(_, carry):
        a, v = carry
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = a[p, q]
                small = jnp.abs(apq) < 1e-30
                theta = (a[q, q] - a[p, p]) / (2.0 * jnp.where(small, 1.0, apq))
                t = jnp.sign(theta) / (jnp.abs(theta) + jnp.sqrt(theta * theta + 1.0))
                t = jnp.where(small, 0.0, jnp.where(theta == 0, 1.0, t))
                c = 1.0 / jnp.sqrt(t * t + 1.0)
                s = t * c
                turn = eye.at[p, p].set(c).at[q, q].set(c).at[p, q].set(s).at[q, p].set(-s)
                a = turn.T @ a @ turn
                v = v @ turn
        return a, v

    a, v = lax.fori_loop(0, sweeps, sweep, (a, eye))
    return jnp.diagonal(a), v


def _update_rule(name: str, **options: Any) -> tuple[Callable[[Any], Any], Callable[..., Any]]:
    """The named update as (init, update): init(params) -> state and update(params, grads,
    state) -> (params, state). States are float32 apart from step counters; parameters
    keep their dtype, the arithmetic is float32."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    f32 = jnp.float32
    tm = jax.tree.map

    def as32(tree: Any) -> Any:
        return tm(lambda x: x.astype(f32), tree)

    def like(tree: Any, params: Any) -> Any:
        return tm(lambda x, p: x.astype(p.dtype), tree, params)

    if name == "srsgd":
        # scheduled restart SGD (Wang, Nguyen, Bertozzi, Baraniuk and Osher): Nesterov's
        # accelerated gradient with the momentum (k mod F) / (k mod F + 3) of the convex
        # schedule, restarted from zero every F = `restart` steps; weight decay coupled
        rate, restart = options.get("rate", 0.01), options.get("restart", 40)
        decay = options.get("decay", 0.0)

        def srsgd_init(params):
            return as32(params), jnp.zeros((), jnp.int32)

        def srsgd(params, grads, state):
            last, k = state
            w = as32(params)
            ahead = tm(lambda w_, g: w_ - rate * (g.astype(f32) + decay * w_), w, grads)
            j = (k % restart).astype(f32)
            push = j / (j + 3.0)
            new = tm(lambda a, b: a + push * (a - b), ahead, last)
            return like(new, params), (ahead, k + 1)
        return srsgd_init, srsgd

    if name == "rowwise_adagrad":
        # row-wise AdaGrad, as large embedding tables are trained: one accumulator per row
        # of every matrix (the mean of the row's squared gradient over its last axis), one
        # per entry of a vector, starting from `start`
        rate, start = options.get("rate", 0.01), options.get("start", 0.1)

        def rows(x):
            return x if x.ndim < 2 else x[..., 0]

        def rowwise_init(params):
            return tm(lambda p: jnp.full(rows(p).shape, start, f32), params)

        def rowwise(params, grads, sums):
            def one(w, g, s):
                g = g.astype(f32)
                s = s + (jnp.mean(g * g, -1) if g.ndim > 1 else g * g)
                scale = lax.rsqrt(s + 1e-10)
                step = g * (scale[..., None] if g.ndim > 1 else scale)
                return (w.astype(f32) - rate * step).astype(w.dtype), s
            out = tm(one, params, grads, sums)
            new = tm(lambda o: o[0], out, is_leaf=lambda o: isinstance(o, tuple))
            sums = tm(lambda o: o[1], out, is_leaf=lambda o: isinstance(o, tuple))
            return new, sums
        return rowwise_init, rowwise

    if name == "linbreg":
        # linearized Bregman iterations with momentum (Bungert, Roith, Tenbrinck and
        # Burger) for sparse training: a dual variable v takes the momentum steps and the
        # weights are delta * shrink(v, lam), soft thresholding making most of them zero;
        # vectors (biases and gains) are not thresholded (plain momentum SGD)
        rate, lam = options.get("rate", 0.05), options.get("lam", 0.5)
        delta, beta = options.get("delta", 1.0), options.get("momentum", 0.9)

        def dual_of(w):
            w = w.astype(f32)
            if w.ndim < 2:
                return w
            return w / delta + lam * jnp.sign(w)

        def primal_of(v, like_w):
            if v.ndim < 2:
                return v.astype(like_w.dtype)
            return (delta * jnp.sign(v) * jnp.maximum(jnp.abs(v) - lam, 0.0)).astype(like_w.dtype)

        def linbreg_init(params):
            return tm(dual_of, params), tm(lambda p: jnp.zeros(p.shape, f32), params)

        def linbreg(params, grads, state):
            dual, velocity = state
            velocity = tm(lambda m, g: beta * m + (1 - beta) * g.astype(f32), velocity, grads)
            dual = tm(lambda v, m: v - rate * m, dual, velocity)
            return tm(primal_of, dual, params), (dual, velocity)
        return linbreg_init, linbreg

    if name == "ggt":
        # GGT (Agarwal, Bullins, Chen, Hazan, Singer, Zhang and Zhang): full-matrix adaptive
        # preconditioning by the last r gradients, decayed by b2, as the columns of G; with
        # G = U S V^T the step is U (S + eps)^-1 U^T g + (g - U U^T g) / eps, U and S from the
        # r x r matrix G^T G (Jacobi eigenvectors), and momentum b1 on the step
        from jax.flatten_util import ravel_pytree

        rate, window = options.get("rate", 1e-3), options.get("window", 8)
        b1, b2, eps = options.get("b1", 0.9), options.get("b2", 0.999), options.get("eps", 1e-4)

        def ggt_init(params):
            flat, _ = ravel_pytree(as32(params))
            return jnp.zeros((window, flat.size), f32), jnp.zeros(flat.size, f32), \
                jnp.zeros((), jnp.int32)

        def ggt(params, grads, state):
            recent, momentum, t = state
            g, unravel = ravel_pytree(as32(grads))
            recent = (b2 * recent).at[t % window].set(g)
            values, vectors = _jacobi_eigh(recent @ recent.T)
            sigma = jnp.sqrt(jnp.maximum(values, 0.0))
            live = sigma > 1e-6 * jnp.max(sigma)
            basis = (recent.T @ vectors) * jnp.where(live, 1.0 / jnp.where(live, sigma, 1.0), 0.0)
            along = basis.T @ g
            step = basis @ (along / (sigma + eps) - along / eps) + g / eps
            momentum = b1 * momentum + step
            w, _ = ravel_pytree(as32(params))
            return like(unravel(w - rate * momentum), params), (recent, momentum, t + 1)
        return ggt_init, ggt

    if name == "dgc":
        # deep gradient compression (Lin, Han, Mao, Wang and Dally) as each worker runs it:
        # momentum correction (the velocity u accumulates into v), only the largest `keep`
        # share of v per tensor is applied (`top_k` for the threshold), and the applied
        # entries are cleared from both u and v (momentum factor masking); tensors under
        # `dense_below` entries go whole; local gradient clipping by the global norm first
        rate, beta = options.get("rate", 0.01), options.get("momentum", 0.9)
        keep, dense_below = options.get("keep", 0.01), options.get("dense_below", 1024)
        clip = options.get("clip", 1.0)

        def dgc_init(params):
            zero = tm(lambda p: jnp.zeros(p.shape, f32), params)
            return zero, zero

        def dgc(params, grads, state):
            velocity, pending = state
            scale = jnp.minimum(1.0, clip / (_global_norm(grads) + 1e-12))

            def one(w, g, u, v):
                u = beta * u + scale * g.astype(f32)
                v = v + u
                if v.size < dense_below:
                    sent = jnp.ones(v.shape, bool)
                else:
                    count = max(1, int(math.ceil(keep * v.size)))
                    floor = lax.top_k(jnp.abs(v).reshape(-1), count)[0][-1]
                    sent = jnp.abs(v) >= floor
                w = (w.astype(f32) - rate * jnp.where(sent, v, 0.0)).astype(w.dtype)
                return w, jnp.where(sent, 0.0, u), jnp.where(sent, 0.0, v)
            out = tm(one, params, grads, velocity, pending)
            pick = [tm(lambda o, i=i: o[i], out, is_leaf=lambda o: isinstance(o, tuple))
                    for i in range(3)]
            return pick[0], (pick[1], pick[2])
        return dgc_init, dgc

    raise ValueError(name)


def _fit_step(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any,
              **options: Any) -> Any:
    """One lowered training step (the loss, its gradients, the named update) on `batch`;
    the update's state enters by its shapes only (`eval_shape` of its init)."""
    import jax

    init, update = _update_rule(rule, **options)

    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state)
        return params, state, loss

    return jax.jit(step).lower(params, jax.eval_shape(init, params), *batch)


def _norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """x normalized over `axes` with float32 statistics, scaled and shifted, in x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axes, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axes, keepdims=True)
    out = (x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
    return (out + shift.astype(jnp.float32)).astype(x.dtype)


def _bn(x: Any, gain: Any, shift: Any) -> Any:
    """Batch norm by the batch's own statistics over every axis but the last."""
    return _norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels per position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv2d(x: Any, w: Any, stride: int = 1, groups: int = 1, dilation: int = 1) -> Any:
    """A 2-D NHWC convolution, SAME padding."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                    rhs_dilation=(dilation, dilation), dimension_numbers=_NHWC,
                                    feature_group_count=groups)


def _conv1d(x: Any, w: Any, stride: int = 1, dilation: int = 1) -> Any:
    """A 1-D NWC convolution, SAME padding."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride,), "SAME", rhs_dilation=(dilation,),
                                    dimension_numbers=_NWC)


def _sharp_scenes(rng: Any, count: int, side: int) -> Any:
    """numpy (count, side, side, 3) float32 in about [0, 1]: a tilted colour gradient under
    six to ten rectangles, discs and striped bands in random colours, some with a
    gradient of their own, and fine noise."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] / float(side)
    out = np.zeros((count, side, side, 3), np.float32)
    for i in range(count):
        tilt = rng.uniform(-1, 1, 2)
        picture = rng.uniform(0.2, 0.8, 3) + 0.3 * (tilt[0] * xx + tilt[1] * yy)[..., None]
        for _ in range(rng.integers(6, 11)):
            cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.05, 0.25)
            kind = rng.integers(3)
            if kind == 0:
                inside = (np.abs(xx - cx) < r) & (np.abs(yy - cy) < rng.uniform(0.3, 1) * r)
            elif kind == 1:
                inside = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
            else:
                a = rng.uniform(0, np.pi)
                u = (xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)
                inside = (np.abs(u) < r) & (np.sin(2 * np.pi * u / (0.1 * r + 0.02)) > 0)
            colour = rng.uniform(0, 1, 3) + rng.uniform(-0.3, 0.3) * (xx - cx)[..., None]
            picture = np.where(inside[..., None], colour, picture)
        out[i] = np.clip(picture + 0.01 * rng.standard_normal(picture.shape), 0.0, 1.0)
    return out


def _glyph_recipes(seed: int, classes: int) -> list[Any]:
    """For every class a glyph recipe: two to four strokes, each a quadratic Bezier curve
    by three control points in the unit square."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [rng.uniform(0.15, 0.85, (rng.integers(2, 5), 3, 2)) for _ in range(classes)]


def _draw_glyphs(rng: Any, recipes: list[Any], labels: Any, side: int) -> Any:
    """numpy (len(labels), side, side, 1) float32 in [0, 1]: each label's glyph drawn with
    its control points jittered, the whole glyph rotated a little, scaled and shifted,
    strokes of random width, and noise."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] / float(side - 1)
    grid = np.stack([xx, yy], -1).reshape(-1, 2)
    t = np.linspace(0.0, 1.0, 24)[:, None]
    out = np.zeros((len(labels), side, side, 1), np.float32)
    for i, label in enumerate(labels):
        angle, zoom = rng.normal(0, 0.15), rng.uniform(0.8, 1.1)
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        shift = rng.normal(0, 0.04, 2)
        width = rng.uniform(0.035, 0.06)
        near = np.full(len(grid), np.inf)
        for stroke in recipes[label]:
            a, b, c = stroke + rng.normal(0, 0.03, stroke.shape)
            curve = (1 - t) ** 2 * a + 2 * (1 - t) * t * b + t ** 2 * c
            curve = (curve - 0.5) @ turn.T * zoom + 0.5 + shift
            gap = np.min(np.linalg.norm(grid[:, None] - curve[None], axis=-1), 1)
            near = np.minimum(near, gap)
        ink = np.clip(1.5 - near / width, 0.0, 1.0).reshape(side, side)
        out[i, ..., 0] = np.clip(ink + 0.05 * rng.standard_normal(ink.shape), 0.0, 1.0)
    return out


def restormer_deblur(batch: int = 2, side: int = 48, widths: tuple[int, ...] = (16, 32, 64),
                     depths: tuple[int, ...] = (1, 2, 2), heads: tuple[int, ...] = (1, 2, 4),
                     refine: int = 1, expansion: float = 2.66) -> Any:
    """Motion deblurring by a small Restormer (Zamir, Arora, Khan, Hayat, Khan and Yang)
    of two 48x48 scenes of shapes and striped bands, each smeared along a line of 5 to 11
    pixels at a random angle (a circular convolution by FFT) with a little noise. A 3x3
    embedding, then a U-shaped stack of transformer blocks: one at 16 channels, two at 32
    and two at 64 (one, two and four heads) going down, each level reached by a 3x3
    convolution to half the channels and a pixel unshuffle; coming up, a 3x3 convolution
    to twice the channels and a pixel shuffle, the skip concatenated (and reduced by a 1x1
    layer but at the top), two blocks at 32 channels and one at the top, at 32 unreduced,
    then a refinement block and a 3x3 convolution to a residual added to the input. Every
    block has multi-Dconv head transposed attention (a 1x1 projection to queries, keys
    and values, a depthwise 3x3 convolution, the queries and keys L2-normalized over the
    pixels, a channels-by-channels softmax attention per head with a learned temperature)
    and a gated-Dconv feed-forward network (1x1 to 2 x 2.66 times the width, depthwise
    3x3, GELU of one half times the other, 1x1 back), both behind layer norms.
    Charbonnier loss against the sharp scenes. Scheduled restart SGD (Wang et al.):
    Nesterov's method with the momentum (k mod 40) / (k mod 40 + 3), restarted every 40
    steps, with coupled weight decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {"embed": (3, 3, 3, widths[0])}

    def block(name: str, c: int) -> None:
        hidden = int(c * expansion)
        shapes.update({f"{name}n1_g": (c,), f"{name}n1_b": (c,), f"{name}qkv": (c, 3 * c),
                       f"{name}qkv_dw": (3, 3, 1, 3 * c), f"{name}proj": (c, c),
                       f"{name}n2_g": (c,), f"{name}n2_b": (c,),
                       f"{name}ffn_in": (c, 2 * hidden), f"{name}ffn_dw": (3, 3, 1, 2 * hidden),
                       f"{name}ffn_out": (hidden, c)})

    levels = len(widths)
    plan: dict[str, list[tuple[str, int, int]]] = {}
    for s in range(levels):
        plan[f"enc{s}"] = [(f"enc{s}.{d}", widths[s], heads[s]) for d in range(depths[s])]
        if s + 1 < levels:
            shapes[f"down{s}"] = (3, 3, widths[s], widths[s] // 2)
    for s in reversed(range(levels - 1)):
        shapes[f"up{s}"] = (3, 3, widths[s + 1], 2 * widths[s + 1])
        c = widths[s] if s else 2 * widths[0]
        if s:
            shapes[f"reduce{s}"] = (2 * widths[s], widths[s])
        plan[f"dec{s}"] = [(f"dec{s}.{d}", c, heads[s]) for d in range(depths[s])]
    plan["refine"] = [(f"refine.{d}", 2 * widths[0], heads[0]) for d in range(refine)]
    for blocks in plan.values():
        for name, c, _ in blocks:
            block(name, c)
    shapes["out"] = (3, 3, 2 * widths[0], 3)
    p = _params(shapes, seed=1)
    p["out"] = p["out"] * 0.1
    for blocks in plan.values():
        for name, _, h in blocks:
            p[f"{name}temp_g"] = jnp.ones((h,))

    def unshuffle(x):          # (b, h, w, c) -> (b, h/2, w/2, 4c)
        b, h, w, c = x.shape
        return x.reshape(b, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 2, 4, 5) \
            .reshape(b, h // 2, w // 2, 4 * c)

    def shuffle(x):            # (b, h, w, 4c) -> (b, 2h, 2w, c)
        b, h, w, c = x.shape
        return x.reshape(b, h, w, 2, 2, c // 4).transpose(0, 1, 3, 2, 4, 5) \
            .reshape(b, 2 * h, 2 * w, c // 4)

    def transposed_attention(p, k, x, h):
        """Multi-Dconv head transposed attention: the attention map is channels by
        channels per head, over all pixels."""
        b, rows, cols, c = x.shape
        qkv = _conv2d(x @ p[f"{k}qkv"], p[f"{k}qkv_dw"], groups=3 * c)

        def per_head(t):       # (b, heads, c / heads, pixels)
            return t.reshape(b, rows * cols, h, c // h).transpose(0, 2, 3, 1)

        q, key, value = (per_head(t) for t in jnp.split(qkv, 3, -1))
        q = q / (jnp.linalg.norm(q, axis=-1, keepdims=True) + 1e-6)
        key = key / (jnp.linalg.norm(key, axis=-1, keepdims=True) + 1e-6)
        att = jax.nn.softmax(jnp.einsum("bhdn,bhen->bhde", q, key)
                             * p[f"{k}temp_g"][:, None, None], -1)
        out = jnp.einsum("bhde,bhen->bhdn", att, value)
        return out.transpose(0, 3, 1, 2).reshape(b, rows, cols, c) @ p[f"{k}proj"]

    def gated_feedforward(p, k, x):
        hidden = p[f"{k}ffn_out"].shape[0]
        y = _conv2d(x @ p[f"{k}ffn_in"], p[f"{k}ffn_dw"], groups=2 * hidden)
        return (jax.nn.gelu(y[..., :hidden]) * y[..., hidden:]) @ p[f"{k}ffn_out"]

    def run(p, x, blocks):
        for k, _, h in blocks:
            x = x + transposed_attention(p, k, _norm(x, p[f"{k}n1_g"], p[f"{k}n1_b"]), h)
            x = x + gated_feedforward(p, k, _norm(x, p[f"{k}n2_g"], p[f"{k}n2_b"]))
        return x

    def loss_fn(p, blurred, sharp):
        x = _conv2d(blurred, p["embed"])
        skips = []
        for s in range(levels):
            x = run(p, x, plan[f"enc{s}"])
            if s + 1 < levels:
                skips.append(x)
                x = unshuffle(_conv2d(x, p[f"down{s}"]))
        for s in reversed(range(levels - 1)):
            x = jnp.concatenate([shuffle(_conv2d(x, p[f"up{s}"])), skips[s]], -1)
            if s:
                x = x @ p[f"reduce{s}"]
            x = run(p, x, plan[f"dec{s}"])
        x = run(p, x, plan["refine"])
        restored = blurred + _conv2d(x, p["out"])
        return jnp.mean(jnp.sqrt(jnp.square(restored - sharp) + 1e-6))

    rng = np.random.default_rng(1)
    sharp = _sharp_scenes(rng, batch, side)
    blurred = np.zeros_like(sharp)
    for i in range(batch):
        length, angle = rng.integers(5, 12), rng.uniform(0, np.pi)
        kernel = np.zeros((side, side))
        for r in np.linspace(-(length - 1) / 2, (length - 1) / 2, 4 * length):
            kernel[int(round(r * np.sin(angle))) % side, int(round(r * np.cos(angle))) % side] += 1
        kernel /= kernel.sum()
        spectrum = np.fft.fft2(kernel)[..., None]
        smeared = np.real(np.fft.ifft2(np.fft.fft2(sharp[i], axes=(0, 1)) * spectrum, axes=(0, 1)))
        blurred[i] = smeared + 0.01 * rng.standard_normal(smeared.shape)
    return _fit_step("srsgd", loss_fn, p, jnp.asarray(blurred), jnp.asarray(sharp), rate=0.01,
                     restart=40, decay=1e-4)


def _primitive_scene(rng: Any) -> Callable[[Any], Any]:
    """A random solid as a signed distance function of (n, 3) numpy points: the union
    (minimum) of two or three primitives (sphere, box, torus or capsule), each turned by
    a random rotation and moved."""
    import numpy as np

    parts = []
    for _ in range(rng.integers(2, 4)):
        q = rng.standard_normal(4)
        w, x, y, z = q / np.linalg.norm(q)
        turn = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        parts.append((rng.integers(4), turn, rng.uniform(-0.35, 0.35, 3),
                      rng.uniform(0.15, 0.4, 3)))

    def sdf(points):
        best = np.full(len(points), np.inf)
        for kind, turn, centre, size in parts:
            p = (points - centre) @ turn
            if kind == 0:
                d = np.linalg.norm(p, axis=1) - size[0]
            elif kind == 1:
                q = np.abs(p) - size
                d = np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(1), 0)
            elif kind == 2:
                ring = np.hypot(p[:, 0], p[:, 1]) - size[0]
                d = np.hypot(ring, p[:, 2]) - 0.35 * size[1]
            else:
                t = np.clip(p[:, 2], -size[0], size[0])
                d = np.linalg.norm(p - np.stack([0 * t, 0 * t, t], 1), axis=1) - 0.5 * size[1]
            best = np.minimum(best, d)
        return best
    return sdf


def deepsdf_autodecoder(shapes_total: int = 64, batch: int = 8, points: int = 512,
                        latent: int = 64, width: int = 192, layers: int = 8, inject: int = 4,
                        clamp: float = 0.1, code_weight: float = 1e-4) -> Any:
    """A DeepSDF auto-decoder (Park, Florence, Straub, Newcombe and Lovegrove) in bfloat16
    learns signed distance functions of 64 random solids (unions of two or three turned
    spheres, boxes, tori and capsules) with one 64-dimensional latent code per solid that
    is itself a trained weight, a table from which the step gathers the codes of the eight
    solids in its batch. 512 samples per solid, seven in ten drawn near the surface and
    the rest in the cube, go through an MLP of eight ReLU layers of 192 with the code and
    the point fed in again at the fifth layer (the fourth layer narrowed to make room),
    and a tanh output. The loss is the L1 distance of the prediction and the truth both
    clamped to 0.1, plus 1e-4 times the codes' squared norm. Row-wise AdaGrad, as large
    embedding tables are trained: one accumulator per row of every matrix (the mean of
    the row's squared gradient), one per entry of a vector."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    for l in range(layers):
        fan_in = latent + 3 if l == 0 else width
        fan_out = width - latent - 3 if l == inject - 1 else width
        shapes.update({f"l{l}": (fan_in, fan_out), f"l{l}_b": (fan_out,)})
    shapes.update({"sdf": (width, 1), "sdf_b": (1,)})
    bf16 = jnp.bfloat16
    p = _params(shapes, seed=2, scale=math.sqrt(2.0), dtype=bf16)
    p["sdf"] = p["sdf"] * jnp.asarray(0.1, bf16)
    p["codes"] = jnp.asarray(np.random.default_rng(2).normal(0, 0.01, (shapes_total, latent)),
                             bf16)

    def decoder(p, code, xyz):
        codes = jnp.broadcast_to(code[:, None, :], xyz.shape[:2] + code.shape[-1:])
        start = jnp.concatenate([codes, xyz], -1)
        h = start
        for l in range(layers):
            if l == inject:
                h = jnp.concatenate([h, start], -1)
            h = jax.nn.relu(h @ p[f"l{l}"] + p[f"l{l}_b"])
        return jnp.tanh(h @ p["sdf"] + p["sdf_b"])[..., 0]

    def loss_fn(p, which, xyz, sdf):
        codes = p["codes"][which]
        guess = decoder(p, codes, xyz.astype(bf16)).astype(jnp.float32)
        fit = jnp.mean(jnp.abs(jnp.clip(guess, -clamp, clamp) - jnp.clip(sdf, -clamp, clamp)))
        return fit + code_weight * jnp.mean(jnp.sum(jnp.square(codes.astype(jnp.float32)), -1))

    rng = np.random.default_rng(2)
    which = rng.choice(shapes_total, batch, replace=False)
    xyz = np.zeros((batch, points, 3), np.float32)
    sdf = np.zeros((batch, points), np.float32)
    for i in range(batch):
        solid = _primitive_scene(np.random.default_rng(1000 + int(which[i])))
        cloud = rng.uniform(-1, 1, (40 * points, 3))
        near = cloud[np.abs(solid(cloud)) < 0.05][: (7 * points) // 10]
        near = near + rng.normal(0, 0.01, near.shape)
        sample = np.concatenate([near, rng.uniform(-1, 1, (points - len(near), 3))])
        xyz[i], sdf[i] = sample, solid(sample)
    return _fit_step("rowwise_adagrad", loss_fn, p, jnp.asarray(which, jnp.int32),
                     jnp.asarray(xyz), jnp.asarray(sdf), rate=1e-2, start=0.1)


def consistency_training(batch: int = 32, side: int = 16, classes: int = 12, width: int = 32,
                         freqs: int = 16, total: int = 100000, s0: int = 2, s1: int = 150,
                         mu0: float = 0.9, sigma_min: float = 0.002, sigma_max: float = 80.0,
                         rho: float = 7.0, sigma_data: float = 0.5) -> Any:
    """Consistency training (Song, Dhariwal, Chen and Sutskever) of a small U-Net in
    bfloat16 on 32 stroke glyphs of 16x16 from twelve recipes. The network has residual
    blocks of 32 and 64 channels (layer norm, SiLU, 3x3 convolutions, the noise level's
    Fourier embedding through an MLP setting a scale and shift per block), one stride-2
    step down and a nearest-neighbour step up with a skip; it is wrapped in the
    boundary-respecting parameterization c_skip(sigma) x + c_out(sigma) F(c_in(sigma) x,
    sigma). The step count given to the step sets the discretization N(k) of the Karras
    noise levels (rho 7, 0.002 to 80) and the target's EMA rate mu(k); each glyph gets a
    random adjacent pair of levels and one Gaussian draw, and the pseudo-Huber distance
    between the network's output at the higher level and the target network's (an
    argument, no gradient) at the lower, weighted by 1 / (sigma_{n+1} - sigma_n), is the
    loss. Linearized Bregman iterations with momentum (Bungert, Roith, Tenbrinck and
    Burger): a dual variable takes the momentum steps and the weights are its soft
    thresholding, which keeps most of them at zero; the target follows by EMA and the
    share of zero weights comes back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    c1, c2 = width, 2 * width
    shapes = {"fourier": (1, freqs), "t1": (2 * freqs, 4 * width), "t1_b": (4 * width,),
              "t2": (4 * width, 4 * width), "t2_b": (4 * width,), "in": (3, 3, 1, c1),
              "in_b": (c1,)}

    def res_block(name: str, cin: int, cout: int) -> None:
        shapes.update({f"{name}n1_g": (cin,), f"{name}n1_b": (cin,),
                       f"{name}c1": (3, 3, cin, cout), f"{name}c1_b": (cout,),
                       f"{name}film": (4 * width, 2 * cout), f"{name}film_b": (2 * cout,),
                       f"{name}n2_g": (cout,), f"{name}n2_b": (cout,),
                       f"{name}c2": (3, 3, cout, cout), f"{name}c2_b": (cout,)})
        if cin != cout:
            shapes[f"{name}skip"] = (cin, cout)

    res_block("a", c1, c1)
    shapes.update({"down": (3, 3, c1, c2), "down_b": (c2,)})
    res_block("b", c2, c2)
    res_block("c", c2, c2)
    res_block("d", c2 + c1, c1)
    shapes.update({"out_n_g": (c1,), "out_n_b": (c1,), "out": (3, 3, c1, 1), "out_b": (1,)})
    p = _params(shapes, seed=3, dtype=bf16)
    p["fourier"] = p["fourier"] * jnp.asarray(4.0, bf16)
    p["out"] = p["out"] * jnp.asarray(0.1, bf16)

    def res(p, k, x, emb):
        h = jax.nn.silu(_norm(x, p[f"{k}n1_g"], p[f"{k}n1_b"]))
        h = _conv2d(h, p[f"{k}c1"]) + p[f"{k}c1_b"]
        scale, shift = jnp.split((emb @ p[f"{k}film"] + p[f"{k}film_b"])[:, None, None, :], 2, -1)
        h = _norm(h, p[f"{k}n2_g"], p[f"{k}n2_b"]) * (1 + scale) + shift
        h = _conv2d(jax.nn.silu(h), p[f"{k}c2"]) + p[f"{k}c2_b"]
        return (x @ p[f"{k}skip"] if f"{k}skip" in p else x) + h

    def network(p, x, sigma):
        angle = (0.25 * jnp.log(sigma))[:, None].astype(bf16) @ p["fourier"]
        emb = jnp.concatenate([jnp.sin(angle), jnp.cos(angle)], -1)
        emb = jax.nn.silu(emb @ p["t1"] + p["t1_b"])
        emb = jax.nn.silu(emb @ p["t2"] + p["t2_b"])
        h = _conv2d(x, p["in"]) + p["in_b"]
        skip = res(p, "a", h, emb)
        h = _conv2d(skip, p["down"], 2) + p["down_b"]
        h = res(p, "c", res(p, "b", h, emb), emb)
        h = jnp.concatenate([jnp.repeat(jnp.repeat(h, 2, 1), 2, 2), skip], -1)
        h = res(p, "d", h, emb)
        h = jax.nn.silu(_norm(h, p["out_n_g"], p["out_n_b"]))
        return _conv2d(h, p["out"]) + p["out_b"]

    def consistent(p, x, sigma):
        """f(x, sigma) = c_skip x + c_out F(c_in x, sigma), the identity at sigma_min."""
        s = sigma[:, None, None, None]
        skip = sigma_data ** 2 / ((s - sigma_min) ** 2 + sigma_data ** 2)
        out = sigma_data * (s - sigma_min) / jnp.sqrt(sigma_data ** 2 + s * s)
        scaled = (x / jnp.sqrt(s * s + sigma_data ** 2)).astype(bf16)
        return skip * x + out * network(p, scaled, sigma).astype(f32)

    init, update = _update_rule("linbreg", rate=0.02, lam=0.02, delta=1.0, momentum=0.9)

    def step(params, state, target, images, k, key):
        x = 2.0 * images - 1.0
        kf = k.astype(f32)
        n = jnp.ceil(jnp.sqrt(kf / total * ((s1 + 1) ** 2 - s0 ** 2) + s0 ** 2) - 1) + 1
        mu = jnp.exp(s0 * math.log(mu0) / n)
        pick, noise = jax.random.split(key)
        i = jax.random.randint(pick, (x.shape[0],), 0, 1 << 30) % (n.astype(jnp.int32) - 1)

        def sigma_at(j):
            low, high = sigma_min ** (1 / rho), sigma_max ** (1 / rho)
            return (low + j.astype(f32) / (n - 1) * (high - low)) ** rho

        near, far = sigma_at(i), sigma_at(i + 1)
        z = jax.random.normal(noise, x.shape)
        anchor = jax.lax.stop_gradient(consistent(target, x + near[:, None, None, None] * z, near))
        weight = 1.0 / (far - near)
        c = 0.00054 * math.sqrt(side * side)

        def loss_fn(p):
            guess = consistent(p, x + far[:, None, None, None] * z, far)
            distance = jnp.sqrt(jnp.sum(jnp.square(guess - anchor), (1, 2, 3)) + c * c) - c
            return jnp.mean(weight * distance)

        loss, grads = jax.value_and_grad(loss_fn)(params)
        params, state = update(params, grads, state)
        target = jax.tree.map(lambda t, w: (mu * t.astype(f32) + (1 - mu) * w.astype(f32))
                              .astype(t.dtype), target, params)
        sparsity = sum(jnp.sum(w == 0) for w in jax.tree.leaves(params) if w.ndim > 1) \
            / sum(w.size for w in jax.tree.leaves(params) if w.ndim > 1)
        return params, state, target, loss, n, sparsity

    rng = np.random.default_rng(3)
    images = _draw_glyphs(rng, _glyph_recipes(30, classes), rng.integers(0, classes, batch), side)
    return jax.jit(step).lower(p, jax.eval_shape(init, p), p, jnp.asarray(images),
                               jnp.asarray(20000, jnp.int32), jax.random.PRNGKey(3))


def iql_offline(batch: int = 256, obs: int = 17, act: int = 6, hidden: int = 256,
                expectile: float = 0.7, temperature: float = 3.0, discount: float = 0.99,
                polyak: float = 0.005) -> Any:
    """Implicit Q-learning (Kostrikov, Nair and Levine) from a batch of 256 logged
    transitions of a damped, randomly coupled linear system (17 observations, 6 actions)
    steered by a noisy linear controller. Twin Q networks, a value network and a Gaussian
    policy with a learned state-independent spread are ReLU MLPs of two layers of 256.
    The value network fits the smaller target Q by expectile regression (tau 0.7), the
    Q networks fit reward plus discounted value of the next state, and the policy is
    extracted by advantage-weighted regression (weights exp(3 A) capped at 100 on the
    log-likelihood of the logged actions); the target Q networks are an argument and
    follow by Polyak averaging. GGT (Agarwal et al.): full-matrix adaptive
    preconditioning from the last eight gradients of all 287,000 weights together, the
    small Gram matrix of the window diagonalized by cyclic Jacobi sweeps in a
    `fori_loop`, with momentum on the preconditioned step."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    def mlp(prefix: str, fan_in: int, fan_out: int) -> dict[str, tuple[int, ...]]:
        return {f"{prefix}0": (fan_in, hidden), f"{prefix}0_b": (hidden,),
                f"{prefix}1": (hidden, hidden), f"{prefix}1_b": (hidden,),
                f"{prefix}2": (hidden, fan_out), f"{prefix}2_b": (fan_out,)}

    p = {"q1": _params(mlp("", obs + act, 1), seed=41),
         "q2": _params(mlp("", obs + act, 1), seed=42), "v": _params(mlp("", obs, 1), seed=43),
         "pi": {**_params(mlp("", obs, act), seed=44), "log_std_b": jnp.zeros(act)}}
    targets = {"q1": p["q1"], "q2": p["q2"]}

    def forward(w, x):
        x = jax.nn.relu(x @ w["0"] + w["0_b"])
        x = jax.nn.relu(x @ w["1"] + w["1_b"])
        return x @ w["2"] + w["2_b"]

    def critic(w, s, a):
        return forward(w, jnp.concatenate([s, a], -1))[:, 0]

    def loss_fn(p, targets, s, a, r, s_next, done):
        sg = jax.lax.stop_gradient
        q_old = jnp.minimum(critic(targets["q1"], s, a), critic(targets["q2"], s, a))
        value = forward(p["v"], s)[:, 0]
        gap = q_old - value
        v_loss = jnp.mean(jnp.abs(expectile - (gap < 0).astype(jnp.float32)) * gap * gap)
        aim = r + discount * (1.0 - done) * sg(forward(p["v"], s_next)[:, 0])
        q_loss = jnp.mean(jnp.square(critic(p["q1"], s, a) - aim)
                          + jnp.square(critic(p["q2"], s, a) - aim))
        weight = jnp.minimum(jnp.exp(temperature * sg(gap)), 100.0)
        mean = jnp.tanh(forward(p["pi"], s))
        log_std = jnp.clip(p["pi"]["log_std_b"], -5.0, 2.0)
        log_prob = jnp.sum(-0.5 * jnp.square((a - mean) / jnp.exp(log_std)) - log_std
                           - 0.5 * math.log(2 * math.pi), -1)
        pi_loss = -jnp.mean(weight * log_prob)
        return v_loss + q_loss + pi_loss, jnp.stack([v_loss, q_loss, pi_loss, jnp.mean(gap)])

    init, update = _update_rule("ggt", rate=3e-4, window=8, b1=0.9, b2=0.999, eps=1e-4)

    def step(params, state, targets, s, a, r, s_next, done):
        (_, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            params, targets, s, a, r, s_next, done)
        params, state = update(params, grads, state)
        targets = jax.tree.map(lambda t, w: (1 - polyak) * t + polyak * w, targets,
                               {"q1": params["q1"], "q2": params["q2"]})
        return params, state, targets, parts

    # transitions of a damped, randomly coupled linear system steered towards a goal by a
    # noisy linear controller (the behaviour policy)
    rng = np.random.default_rng(4)
    a_mat = np.linalg.qr(rng.standard_normal((obs, obs)))[0] * 0.95
    b_mat = rng.standard_normal((obs, act)) * 0.3
    gain = rng.standard_normal((act, obs)) * 0.1
    goal = rng.standard_normal(obs)
    s = rng.standard_normal((batch, obs))
    a = np.clip(np.tanh((goal - s) @ gain.T) + 0.3 * rng.standard_normal((batch, act)), -1, 1)
    s_next = s @ a_mat.T + a @ b_mat.T + 0.05 * rng.standard_normal((batch, obs))
    r = -np.mean(np.square(s_next - goal), 1) - 0.1 * np.mean(np.square(a), 1)
    done = (np.linalg.norm(s_next - goal, axis=1) < 2.5).astype(np.float32)
    f = np.float32
    return jax.jit(step).lower(p, jax.eval_shape(init, p), targets, jnp.asarray(s, f),
                               jnp.asarray(a, f), jnp.asarray(r, f), jnp.asarray(s_next, f),
                               jnp.asarray(done, f))


def rvq_codec(clips: int = 4, samples: int = 4096, rate: int = 16000,
              channels: tuple[int, ...] = (16, 32, 64, 64), strides: tuple[int, ...] = (2, 4, 4),
              dim: int = 48, stages: int = 6, codes: int = 256, fft: int = 256,
              commitment: float = 0.25) -> Any:
    """A SoundStream-style neural audio codec (Zeghidour et al.) on four clips of 4096
    samples at 16 kHz (harmonic tones with vibrato, chirps and bands of noise under
    decaying envelopes). A 1-D convolutional encoder (residual units of 7-tap convolutions
    dilated by 1 and 3, ELU, strided convolutions down by 2, 4 and 4 through 16 to 64
    channels) gives 48-dimensional frames; residual vector quantization by six codebooks
    of 256 in a `lax.scan` over the codebooks (nearest code by a matrix product and
    `argmin`, the quantized residual passed on), with quantizer dropout (each clip uses
    a random number of the codebooks) and a straight-through estimator; the decoder
    mirrors the encoder with transposed convolutions. The loss is the L1 distance of the
    waveforms, linear and log STFT magnitudes (256-point Hann frames cut by a gather),
    the codebook loss and a commitment loss of 0.25. Deep gradient compression (Lin et
    al.) as each worker runs it: momentum correction, only the largest 1% of the
    accumulated update of every large tensor applied (`top_k` for the threshold), the
    applied entries cleared from the velocity and the accumulator, gradients clipped by
    their global norm first."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"e_in": (7, 1, channels[0]), "e_in_b": (channels[0],)}

    def units(prefix: str, c: int) -> None:
        for d in (1, 3):
            shapes.update({f"{prefix}r{d}a": (7, c, c), f"{prefix}r{d}a_b": (c,),
                           f"{prefix}r{d}b": (1, c, c), f"{prefix}r{d}b_b": (c,)})

    for i, stride in enumerate(strides):
        units(f"e{i}", channels[i])
        shapes.update({f"e{i}down": (2 * stride, channels[i], channels[i + 1]),
                       f"e{i}down_b": (channels[i + 1],)})
    shapes.update({"e_out": (3, channels[-1], dim), "e_out_b": (dim,),
                   "d_in": (7, dim, channels[-1]), "d_in_b": (channels[-1],)})
    for i in reversed(range(len(strides))):
        shapes.update({f"d{i}up": (2 * strides[i], channels[i + 1], channels[i]),
                       f"d{i}up_b": (channels[i],)})
        units(f"d{i}", channels[i])
    shapes.update({"d_out": (7, channels[0], 1), "d_out_b": (1,)})
    p = _params(shapes, seed=5)
    p["books"] = jnp.asarray(np.random.default_rng(5).normal(0, 0.3, (stages, codes, dim)),
                             jnp.float32)
    elu = jax.nn.elu

    def residual_units(p, prefix, x):
        for d in (1, 3):
            h = _conv1d(elu(x), p[f"{prefix}r{d}a"], dilation=d) + p[f"{prefix}r{d}a_b"]
            x = x + _conv1d(elu(h), p[f"{prefix}r{d}b"]) + p[f"{prefix}r{d}b_b"]
        return x

    def upsample(x, w, stride):
        return lax.conv_transpose(x, w, (stride,), "SAME", dimension_numbers=_NWC)

    def quantize(books, z, used):
        """Residual vector quantization in a `lax.scan` over the codebooks; stage s is
        applied to a clip only when s < used[clip] (quantizer dropout)."""
        def stage(residual, xs):
            book, s = xs
            distance = jnp.sum(residual ** 2, -1, keepdims=True) - 2 * residual @ book.T \
                + jnp.sum(book ** 2, -1)
            index = jnp.argmin(distance, -1)
            chosen = book[index] * (s < used)[:, None, None]
            fit = jnp.mean(jnp.square(lax.stop_gradient(residual) - chosen), (1, 2))
            return residual - lax.stop_gradient(chosen), (chosen, index, fit)

        _, (chosen, index, fit) = lax.scan(stage, z, (books, jnp.arange(stages)))
        return jnp.sum(chosen, 0), index, jnp.sum(fit, 0)

    def spectrum(audio):
        hop = fft // 4
        count = 1 + (samples - fft) // hop
        frames = audio[:, np.arange(count)[:, None] * hop + np.arange(fft)[None, :]]
        return jnp.abs(jnp.fft.rfft(frames * jnp.asarray(np.hanning(fft), jnp.float32), axis=-1))

    def loss_fn(p, audio, key):
        x = _conv1d(audio[..., None], p["e_in"]) + p["e_in_b"]
        for i, stride in enumerate(strides):
            x = residual_units(p, f"e{i}", x)
            x = _conv1d(elu(x), p[f"e{i}down"], stride) + p[f"e{i}down_b"]
        z = _conv1d(elu(x), p["e_out"]) + p["e_out_b"]
        used = jax.random.randint(key, (clips,), 1, stages + 1)
        quantized, _, fit = quantize(p["books"], z, used)
        commit = jnp.mean(jnp.square(z - lax.stop_gradient(quantized)), (1, 2))
        x = z + lax.stop_gradient(quantized - z)                       # straight through
        x = _conv1d(x, p["d_in"]) + p["d_in_b"]
        for i in reversed(range(len(strides))):
            x = upsample(elu(x), p[f"d{i}up"], strides[i]) + p[f"d{i}up_b"]
            x = residual_units(p, f"d{i}", x)
        out = jnp.tanh(_conv1d(elu(x), p["d_out"]) + p["d_out_b"])[..., 0]
        mine, theirs = spectrum(out), spectrum(audio)
        spectral = jnp.mean(jnp.abs(mine - theirs)) \
            + jnp.mean(jnp.abs(jnp.log(mine + 1e-5) - jnp.log(theirs + 1e-5)))
        return jnp.mean(jnp.abs(out - audio)) + spectral + jnp.mean(fit + commitment * commit)

    rng = np.random.default_rng(5)
    t = np.arange(samples) / rate
    audio = np.zeros((clips, samples), np.float32)
    for i in range(clips):
        clip = np.zeros(samples)
        for _ in range(rng.integers(2, 5)):
            kind, start = rng.integers(3), rng.uniform(0, 0.6) * t[-1]
            shape = np.exp(-np.maximum(t - start, 0) * rng.uniform(5, 30)) * (t >= start)
            if kind == 0:                                  # a harmonic tone with vibrato
                f0 = 110 * 2 ** rng.uniform(0, 3)
                phase = 2 * np.pi * np.cumsum(f0 * (1 + 0.01 * np.sin(2 * np.pi * 6 * t))) / rate
                tone = sum(np.sin(k * phase) / k ** 1.5 for k in range(1, 8))
            elif kind == 1:                                # a chirp
                f_a, f_b = rng.uniform(200, 4000, 2)
                tone = np.sin(2 * np.pi * (f_a * t + (f_b - f_a) * t * t / (2 * t[-1])))
            else:                                          # a band of noise
                tone = np.convolve(rng.standard_normal(samples), np.hanning(rng.integers(3, 15)),
                                   "same") / 4
            clip += rng.uniform(0.1, 0.4) * shape * tone
        audio[i] = np.clip(clip, -0.95, 0.95)
    return _fit_step("dgc", loss_fn, p, jnp.asarray(audio), jax.random.PRNGKey(5), rate=0.02,
                     momentum=0.9, keep=0.01, clip=5.0)


def dnc_two_tasks(batch: int = 16, steps: int = 16, bits: int = 6, hidden: int = 128,
                  slots: int = 32, word: int = 16, reads: int = 2, length: int = 6, pairs: int = 5,
                  conflict: float = 0.5, rate: float = 0.01, momentum: float = 0.9) -> Any:
    """A differentiable neural computer (Graves et al.) learns two tasks at once: copying a
    sequence of six random 6-bit vectors after a delimiter, and associative recall of the
    value stored with a queried key among five pairs; sixteen sequences of each, 16
    steps, in a `lax.scan`. An LSTM controller of 128 reads its input and the last read
    vectors and emits the interface: content keys and strengths for two read heads and a
    write head, erase and write vectors, free gates, allocation and write gates and read
    modes over a memory of 32 slots of 16. Usage follows the writes and the freed reads;
    allocation weights come from the slots sorted by usage (`argsort`, a cumulative
    product, the inverse permutation); a temporal link matrix and precedence weights give
    forward and backward read weights, mixed with content weights by the read modes.
    Sigmoid cross-entropy on the answer steps of each task. The two task gradients are
    combined by conflict-averse gradient descent (CAGrad; Liu et al.): the weighting of
    the tasks that minimizes g_w . g0 + 0.5 |g0| |g_w| over a grid of 101 points of the
    simplex moves the average gradient g0, then momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    width = bits + 2
    interface = reads * word + reads + 3 * word + 1 + reads + 2 + 3 * reads
    p = _params({"lstm": (width + reads * word + hidden, 4 * hidden), "lstm_b": (4 * hidden,),
                 "face": (hidden, interface), "face_b": (interface,),
                 "out": (hidden + reads * word, bits), "out_b": (bits,)}, seed=6)

    def content(memory, keys, strength):
        """Softmax over slots of the sharpened cosine similarity of every key to every slot."""
        dots = jnp.einsum("bkw,bnw->bkn", keys, memory)
        size = jnp.linalg.norm(keys, axis=-1)[..., None] * jnp.linalg.norm(memory, axis=-1)[:, None]
        return jax.nn.softmax(strength[..., None] * dots / (size + 1e-6), -1)

    def oneplus(t):
        return 1.0 + jax.nn.softplus(t)

    def cell(p, carry, x):
        h, c, memory, usage, link, precedence, read_w, read_v = carry
        b = x.shape[0]
        z = jnp.concatenate([x, read_v.reshape(b, -1), h], -1) @ p["lstm"] + p["lstm_b"]
        i, f, g, o = jnp.split(z, 4, -1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        v = h @ p["face"] + p["face_b"]
        cuts = np.cumsum([reads * word, reads, word, 1, word, word, reads, 1, 1])
        r_keys, r_str, w_key, w_str, erase, write, free, alloc_gate, write_gate, modes = \
            jnp.split(v, cuts, -1)
        r_keys = r_keys.reshape(b, reads, word)
        # usage, then allocation weights from the slots sorted by usage
        keep = jnp.prod(1.0 - jax.nn.sigmoid(free)[..., None] * read_w, 1)
        order = jnp.argsort(usage, -1)
        ranked = jnp.take_along_axis(usage, order, -1)
        before = jnp.cumprod(jnp.concatenate([jnp.ones((b, 1)), ranked[:, :-1]], -1), -1)
        allocation = jnp.take_along_axis((1.0 - ranked) * before, jnp.argsort(order, -1), -1)
        by_content = content(memory, w_key[:, None, :], oneplus(w_str))[:, 0]
        ga, gw = jax.nn.sigmoid(alloc_gate), jax.nn.sigmoid(write_gate)
        write_w = gw * (ga * allocation + (1.0 - ga) * by_content)
        usage = (usage + write_w - usage * write_w) * keep
        memory = memory * (1.0 - write_w[:, :, None] * jax.nn.sigmoid(erase)[:, None, :]) \
            + write_w[:, :, None] * write[:, None, :]
        link = (1.0 - write_w[:, :, None] - write_w[:, None, :]) * link \
            + write_w[:, :, None] * precedence[:, None, :]
        link = link * (1.0 - jnp.eye(slots))
        precedence = (1.0 - jnp.sum(write_w, -1, keepdims=True)) * precedence + write_w
        ahead = jnp.einsum("bij,brj->bri", link, read_w)
        behind = jnp.einsum("bji,brj->bri", link, read_w)
        mode = jax.nn.softmax(modes.reshape(b, reads, 3), -1)
        read_w = mode[..., :1] * behind + mode[..., 1:2] * content(memory, r_keys, oneplus(r_str)) \
            + mode[..., 2:] * ahead
        read_v = jnp.einsum("brn,bnw->brw", read_w, memory)
        y = jnp.concatenate([h, read_v.reshape(b, -1)], -1) @ p["out"] + p["out_b"]
        return (h, c, memory, usage, link, precedence, read_w, read_v), y

    def task_loss(p, inputs, targets, mask):
        b = inputs.shape[1]
        start = (jnp.zeros((b, hidden)), jnp.zeros((b, hidden)), jnp.full((b, slots, word), 1e-6),
                 jnp.zeros((b, slots)), jnp.zeros((b, slots, slots)), jnp.zeros((b, slots)),
                 jnp.zeros((b, reads, slots)), jnp.zeros((b, reads, word)))
        _, logits = lax.scan(lambda carry, x: cell(p, carry, x), start, inputs)
        bce = jnp.maximum(logits, 0) - logits * targets + jnp.log1p(jnp.exp(-jnp.abs(logits)))
        return jnp.sum(bce * mask[..., None]) / (jnp.sum(mask) * bits)

    def step(params, velocity, copy_in, copy_out, copy_mask, recall_in, recall_out, recall_mask):
        l1, g1 = jax.value_and_grad(task_loss)(params, copy_in, copy_out, copy_mask)
        l2, g2 = jax.value_and_grad(task_loss)(params, recall_in, recall_out, recall_mask)
        g1, unravel = ravel_pytree(g1)
        g2, _ = ravel_pytree(g2)
        # conflict-averse direction: the task weighting on a grid of the simplex that
        # minimizes g_w . g0 + c |g0| |g_w|
        g0 = 0.5 * (g1 + g2)
        gram = jnp.array([[g1 @ g1, g1 @ g2], [g1 @ g2, g2 @ g2]])
        toward = jnp.array([g1 @ g0, g2 @ g0])
        a = jnp.linspace(0.0, 1.0, 101)
        weights = jnp.stack([a, 1.0 - a], -1)
        size = jnp.sqrt(jnp.maximum(jnp.einsum("ki,ij,kj->k", weights, gram, weights), 1e-20))
        reach = conflict * jnp.sqrt(g0 @ g0)
        best = weights[jnp.argmin(weights @ toward + reach * size)]
        gw = best[0] * g1 + best[1] * g2
        direction = (g0 + reach / jnp.sqrt(jnp.maximum(gw @ gw, 1e-20)) * gw) / (1 + conflict ** 2)
        velocity = momentum * velocity + direction
        flat, _ = ravel_pytree(params)
        return unravel(flat - rate * velocity), velocity, jnp.stack([l1, l2]), best[0]

    rng = np.random.default_rng(6)
    copy_in = np.zeros((steps, batch, width), np.float32)
    copy_out = np.zeros((steps, batch, bits), np.float32)
    copy_mask = np.zeros((steps, batch), np.float32)
    seq = rng.integers(0, 2, (length, batch, bits))
    copy_in[:length, :, :bits], copy_in[:length, :, bits] = seq, 1.0
    copy_in[length, :, bits + 1] = 1.0
    copy_out[length + 1:2 * length + 1] = seq
    copy_mask[length + 1:2 * length + 1] = 1.0
    recall_in = np.zeros((steps, batch, width), np.float32)
    recall_out = np.zeros((steps, batch, bits), np.float32)
    recall_mask = np.zeros((steps, batch), np.float32)
    keys, values = rng.integers(0, 2, (2, pairs, batch, bits))
    recall_in[0:2 * pairs:2, :, :bits], recall_in[1:2 * pairs:2, :, :bits] = keys, values
    recall_in[0:2 * pairs:2, :, bits] = 1.0
    asked = rng.integers(0, pairs, batch)
    recall_in[2 * pairs, :, :bits] = keys[asked, np.arange(batch)]
    recall_in[2 * pairs, :, bits + 1] = 1.0
    recall_out[2 * pairs + 1] = values[asked, np.arange(batch)]
    recall_mask[2 * pairs + 1] = 1.0
    flat, _ = ravel_pytree(p)
    return jax.jit(step).lower(p, jnp.zeros_like(flat), *(jnp.asarray(a) for a in (
        copy_in, copy_out, copy_mask, recall_in, recall_out, recall_mask)))


def nri_springs(dataset: int = 128, batch: int = 8, balls: int = 5, frames: int = 32,
                hidden: int = 64, types: int = 2, tau: float = 0.5, every: int = 10,
                variance: float = 5e-5, rate: float = 1e-6) -> Any:
    """Neural relational inference (Kipf, Fetaya, Wang, Welling and Zemel) on simulations of
    five balls joined by random springs in a box with elastic walls (32 frames of
    positions and velocities). The encoder's node, edge, node and edge MLPs (ELU, a norm
    over the nodes or the 20 directed edges) score two edge types per pair, sampled by
    Gumbel-softmax at temperature 0.5; the decoder sends messages along the edges of the
    second type (an MLP on both ends) and steps every ball by an MLP of its state and the
    summed messages, in a `lax.scan` over the frames that restarts from the truth every
    tenth frame. The loss is the Gaussian negative log-likelihood (variance 5e-5) plus
    the KL divergence to a uniform edge prior. SAGA (Defazio, Bach and Lacoste-Julien)
    over a data set of 128 simulations: per-example gradients of the batch of eight by
    `vmap` of `grad`, and the step is their difference from the gradients stored for
    those examples in a table (an argument of 128 rows of all 64,000 weights) plus the
    table's mean; the rows are then replaced."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    senders, receivers = (np.array(a) for a in zip(*[(i, j) for i in range(balls)
                                                      for j in range(balls) if i != j]))
    incoming = jnp.asarray(np.eye(balls)[receivers].T)                    # (balls, edges)

    def mlp(prefix: str, fan_in: int, fan_out: int) -> dict[str, tuple[int, ...]]:
        return {f"{prefix}a": (fan_in, hidden), f"{prefix}a_b": (hidden,),
                f"{prefix}b": (hidden, fan_out), f"{prefix}b_b": (fan_out,),
                f"{prefix}n_g": (fan_out,), f"{prefix}n_b": (fan_out,)}

    shapes = {**mlp("m1", 4 * frames, hidden), **mlp("m2", 2 * hidden, hidden),
              **mlp("m3", hidden, hidden), **mlp("m4", 3 * hidden, hidden),
              "logits": (hidden, types), "logits_b": (types,),
              "out0": (4 + hidden, hidden), "out0_b": (hidden,), "out1": (hidden, hidden),
              "out1_b": (hidden,), "out2": (hidden, 4), "out2_b": (4,)}
    for k in range(1, types):
        shapes.update({f"msg{k}a": (8, hidden), f"msg{k}a_b": (hidden,),
                       f"msg{k}b": (hidden, hidden), f"msg{k}b_b": (hidden,)})
    p = _params(shapes, seed=7)
    p["out2"] = p["out2"] * 0.01

    def block(p, k, x):
        x = jax.nn.elu(x @ p[f"{k}a"] + p[f"{k}a_b"])
        x = jax.nn.elu(x @ p[f"{k}b"] + p[f"{k}b_b"])
        return _norm(x, p[f"{k}n_g"], p[f"{k}n_b"], (0,))

    def example_loss(p, trajectory, key):
        """trajectory (balls, frames, 4): positions and velocities of one simulation."""
        h = block(p, "m1", trajectory.reshape(balls, -1))
        e = block(p, "m2", jnp.concatenate([h[senders], h[receivers]], -1))
        h = block(p, "m3", incoming @ e / balls)
        e = block(p, "m4", jnp.concatenate([h[senders], h[receivers], e], -1))
        logits = e @ p["logits"] + p["logits_b"]
        u = jax.random.uniform(key, logits.shape, minval=1e-10, maxval=1.0)
        kinds = jax.nn.softmax((logits - jnp.log(-jnp.log(u))) / tau, -1)   # Gumbel-softmax

        def advance(state, xs):
            truth, t = xs
            x = jnp.where(t % every == 0, truth, state)
            pair = jnp.concatenate([x[senders], x[receivers]], -1)
            message = 0.0
            for k in range(1, types):
                m = jax.nn.relu(pair @ p[f"msg{k}a"] + p[f"msg{k}a_b"])
                m = jax.nn.relu(m @ p[f"msg{k}b"] + p[f"msg{k}b_b"])
                message = message + kinds[:, k:k + 1] * m
            y = jnp.concatenate([x, incoming @ message], -1)
            y = jax.nn.relu(y @ p["out0"] + p["out0_b"])
            y = jax.nn.relu(y @ p["out1"] + p["out1_b"])
            x = x + y @ p["out2"] + p["out2_b"]
            return x, x

        path = jnp.swapaxes(trajectory, 0, 1)                               # (frames, balls, 4)
        _, guess = lax.scan(advance, path[0], (path[:-1], jnp.arange(frames - 1)))
        nll = jnp.sum(jnp.square(guess - path[1:])) / (2 * variance) / (balls * (frames - 1))
        q = jax.nn.softmax(logits, -1)
        kl = jnp.sum(q * (jnp.log(q + 1e-16) + math.log(types))) / balls
        return nll + kl

    flat, unravel = ravel_pytree(p)

    def step(params, table, table_mean, trajectories, which, key):
        keys = jax.random.split(key, trajectories.shape[0])
        losses, grads = jax.vmap(jax.value_and_grad(example_loss), (None, 0, 0))(
            params, trajectories, keys)
        fresh = jax.vmap(lambda g: ravel_pytree(g)[0])(grads)
        stale = table[which]
        # SAGA: the fresh gradients less the stored ones, plus the mean of the table
        direction = jnp.mean(fresh - stale, 0) + table_mean
        table_mean = table_mean + jnp.sum(fresh - stale, 0) / dataset
        table = table.at[which].set(fresh)
        params = unravel(ravel_pytree(params)[0] - rate * direction)
        return params, table, table_mean, jnp.mean(losses)

    # springs between random pairs of balls in a box with elastic walls (Kipf et al.'s
    # simulation), integrated by leapfrog and kept every 50th step
    rng = np.random.default_rng(7)
    which = rng.choice(dataset, batch, replace=False)
    trajectories = np.zeros((batch, balls, frames, 4), np.float32)
    for i in range(batch):
        sim = np.random.default_rng(700 + int(which[i]))
        springs = np.triu((sim.uniform(size=(balls, balls)) < 0.5).astype(float), 1)
        springs = springs + springs.T
        x = sim.standard_normal((balls, 2)) * 0.5
        v = sim.standard_normal((balls, 2)) * 0.5
        for f in range(frames * 50):
            if f % 50 == 0:
                trajectories[i, :, f // 50] = np.concatenate([x, v], 1)
            force = -0.1 * (springs[:, :, None] * (x[:, None] - x[None])).sum(1)
            v = v + 0.01 * force
            x = x + 0.01 * v
            out = np.abs(x) > 5.0
            v = np.where(out, -v, v)
            x = np.where(out, np.sign(x) * (10.0 - np.abs(x)), x)
    table = jnp.zeros((dataset, flat.size))
    return jax.jit(step).lower(p, table, jnp.zeros(flat.size), jnp.asarray(trajectories),
                               jnp.asarray(which, jnp.int32), jax.random.PRNGKey(7))


def _arithmetic_text(rng: Any, count: int, length: int) -> Any:
    """numpy int32 (count, length): streams of character-level sums and products such as
    "47+815=862;" and "12*9=108;" (tokens 0-9 the digits, 10 "+", 11 "*", 12 "=", 13 ";"),
    each stream starting at a random place in its text."""
    import numpy as np

    table = {str(d): d for d in range(10)}
    table.update({"+": 10, "*": 11, "=": 12, ";": 13})
    out = np.zeros((count, length), np.int32)
    for i in range(count):
        text = ""
        while len(text) < 2 * length:
            a, b = (rng.integers(0, 10 ** rng.integers(1, 4)) for _ in range(2))
            text += f"{a}*{b}={a * b};" if rng.uniform() < 0.3 else f"{a}+{b}={a + b};"
        start = rng.integers(0, length)
        out[i] = [table[c] for c in text[start:start + length]]
    return out


def ngpt_diloco(workers: int = 4, inner: int = 3, per: int = 2, length: int = 64, vocab: int = 16,
                width: int = 96, heads: int = 4, layers: int = 3, hidden: int = 256,
                inner_rate: float = 2e-3, outer_rate: float = 0.7,
                outer_momentum: float = 0.9) -> Any:
    """The normalized transformer (nGPT; Loshchilov, Hsieh, Sun and Ginsburg) in bfloat16,
    trained by DiLoCo (Douillard et al.) on character-level streams of sums and products
    ("47+815=862;"). Every embedding and every weight vector along the embedding lies on
    the unit sphere, and so does the hidden state: each attention (rotary positions, the
    queries and keys normalized per head and scaled by learned factors, softmax scale
    sqrt(d)) and SwiGLU block (learned scales on both inputs) moves it towards its
    normalized output by learned per-dimension rates and normalizes it again; the logits
    are scaled by learned factors. Four workers under `vmap` each take three AdamW steps
    on their own micro-batches in a `lax.scan`, renormalizing the weights after every
    step, their optimizer states carried between outer steps; the mean change of the
    workers is the outer pseudo-gradient, applied by SGD with Nesterov momentum (rate
    0.7, momentum 0.9), and the weights are renormalized once more."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    tm = jax.tree.map
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "unembed": (vocab, width)}
    for l in range(layers):
        shapes.update({f"{l}q": (width, width), f"{l}k": (width, width), f"{l}v": (width, width),
                       f"{l}o": (width, width), f"{l}u": (width, hidden), f"{l}nu": (width, hidden),
                       f"{l}down": (hidden, width)})
    # the axis of every matrix that lies along the embedding, where it is kept of unit norm:
    # the input axis of the maps out of the residual stream, the output axis of the rest
    along = {name: 0 if name[-1] in "qkvu" else -1 for name in shapes}
    p = _params(shapes, seed=8, dtype=bf16)
    for l in range(layers):
        p.update({f"{l}alpha_a_g": jnp.full((width,), 0.05, bf16),
                  f"{l}alpha_m_g": jnp.full((width,), 0.05, bf16),
                  f"{l}sqk_g": jnp.ones((heads, dh), bf16), f"{l}su_g": jnp.ones((hidden,), bf16),
                  f"{l}snu_g": jnp.ones((hidden,), bf16)})
    p["sz_g"] = jnp.full((vocab,), 4.0, bf16)

    def unit(x, axis=-1):
        x32 = x.astype(f32)
        return (x32 * lax.rsqrt(jnp.sum(x32 * x32, axis, keepdims=True) + 1e-12)).astype(x.dtype)

    def renormalize(params):
        return {k: unit(w, along[k]) if k in along else w for k, w in params.items()}

    p = renormalize(p)
    half = dh // 2
    angles = np.arange(length)[:, None] * 10000.0 ** (-np.arange(half) / half)[None, :]
    cos, sin = (jnp.asarray(f(angles)[:, None, :], bf16) for f in (np.cos, np.sin))
    causal = jnp.tril(jnp.ones((length, length), bool))

    def rotary(x):
        a, b = x[..., :half], x[..., half:]
        return jnp.concatenate([a * cos - b * sin, a * sin + b * cos], -1)

    def loss_fn(w, tokens):
        b = tokens.shape[0]
        h = w["embed"][tokens[:, :-1]]
        for l in range(layers):
            q, k, v = ((h @ w[f"{l}{n}"]).reshape(b, length, heads, dh) for n in "qkv")
            q = unit(rotary(q)) * w[f"{l}sqk_g"]
            k = unit(rotary(k)) * w[f"{l}sqk_g"]
            logits = jnp.einsum("bihd,bjhd->bhij", q, k).astype(f32) * math.sqrt(dh)
            att = jax.nn.softmax(jnp.where(causal, logits, -1e9), -1).astype(bf16)
            mixed = jnp.einsum("bhij,bjhd->bihd", att, v).reshape(b, length, width) @ w[f"{l}o"]
            h = unit(h + w[f"{l}alpha_a_g"] * (unit(mixed) - h))
            u = (h @ w[f"{l}u"]) * w[f"{l}su_g"]
            nu = (h @ w[f"{l}nu"]) * w[f"{l}snu_g"] * jnp.asarray(math.sqrt(width), bf16)
            h = unit(h + w[f"{l}alpha_m_g"] * (unit((u * jax.nn.silu(nu)) @ w[f"{l}down"]) - h))
        logits = (h @ w["unembed"].T) * w["sz_g"]
        return jnp.mean(_cross_entropy(logits, tokens[:, 1:]))

    def adamw_init(params):
        zero = tm(lambda x: jnp.zeros(x.shape, f32), params)
        return zero, zero, jnp.zeros((), jnp.int32)

    def inner_step(carry, tokens):
        """One AdamW step of one worker on one of its micro-batches, then the nGPT
        renormalization of the weights."""
        params, (m, v, t) = carry
        loss, g = jax.value_and_grad(loss_fn)(params, tokens)
        t = t + 1
        n = t.astype(f32)
        m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_.astype(f32), m, g)
        v = tm(lambda v_, g_: 0.95 * v_ + 0.05 * jnp.square(g_.astype(f32)), v, g)
        params = tm(lambda w_, m_, v_: (w_.astype(f32) - inner_rate * (m_ / (1 - 0.9 ** n))
                                        / (jnp.sqrt(v_ / (1 - 0.95 ** n)) + 1e-8)).astype(w_.dtype),
                    params, m, v)
        return (renormalize(params), (m, v, t)), loss

    def worker(params, state, shard):
        (params, state), losses = lax.scan(inner_step, (params, state), shard)
        return params, state, losses

    def step(params, momentum, states, tokens):
        local, states, losses = jax.vmap(worker, (None, 0, 0))(params, states, tokens)
        # the outer step: the mean change of the workers as a pseudo-gradient, under
        # Nesterov momentum
        delta = tm(lambda w, l: w.astype(f32) - jnp.mean(l.astype(f32), 0), params, local)
        momentum = tm(lambda m, d: outer_momentum * m + d, momentum, delta)
        params = tm(lambda w, d, m: (w.astype(f32) - outer_rate * (d + outer_momentum * m))
                    .astype(w.dtype), params, delta, momentum)
        return renormalize(params), momentum, states, jnp.mean(losses, 0)

    rng = np.random.default_rng(8)
    tokens = _arithmetic_text(rng, workers * inner * per, length + 1)
    states = jax.eval_shape(lambda: jax.vmap(lambda _: adamw_init(p))(jnp.arange(workers)))
    momentum = tm(lambda x: jnp.zeros(x.shape, f32), p)
    return jax.jit(step).lower(p, momentum, states,
                               jnp.asarray(tokens.reshape(workers, inner, per, length + 1)))


def _pattern_pictures(rng: Any, count: int, side: int, classes: int = 10) -> tuple[Any, Any]:
    """numpy (pictures NHWC float32 in about [0, 1], labels): each class is one of five
    patterns (checks, dots, waves, rings, plaid) in one of two palettes; every picture
    draws the pattern at a random scale, angle and phase over a shaded background, with
    blotches of the other palette and noise."""
    import numpy as np

    palettes = np.random.default_rng(77).uniform(0.05, 0.95, (2, 2, 3))
    labels = rng.integers(0, classes, count)
    yy, xx = np.mgrid[0:side, 0:side] / float(side)
    out = np.zeros((count, side, side, 3), np.float32)
    for i, label in enumerate(labels):
        kind, palette = label % 5, palettes[(label // 5) % 2]
        a, f = rng.uniform(0, np.pi), rng.uniform(4, 9)
        u = xx * np.cos(a) + yy * np.sin(a) + rng.uniform()
        v = -xx * np.sin(a) + yy * np.cos(a) + rng.uniform()
        if kind == 0:
            mix = (np.sin(2 * np.pi * f * u) * np.sin(2 * np.pi * f * v) > 0).astype(float)
        elif kind == 1:
            mix = (np.hypot((f * u) % 1 - 0.5, (f * v) % 1 - 0.5) < 0.3).astype(float)
        elif kind == 2:
            mix = 0.5 + 0.5 * np.sin(2 * np.pi * f * u + 2 * np.sin(2 * np.pi * 2 * v))
        elif kind == 3:
            cx, cy = rng.uniform(0.2, 0.8, 2)
            mix = 0.5 + 0.5 * np.sin(2 * np.pi * f * np.hypot(xx - cx, yy - cy))
        else:
            mix = 0.5 * (np.sin(2 * np.pi * f * u) > 0) \
                + 0.5 * (np.sin(2 * np.pi * f * 1.7 * v) > 0)
        picture = mix[..., None] * palette[0] + (1 - mix[..., None]) * palette[1]
        other = palettes[1 - (label // 5) % 2, rng.integers(2)]
        for _ in range(rng.integers(0, 3)):
            cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.05, 0.15)
            picture[np.hypot(xx - cx, yy - cy) < r] = other
        shade = 0.8 + 0.2 * np.cos(2 * np.pi * (rng.uniform(-1, 1) * xx + rng.uniform()))
        out[i] = picture * shade[..., None] + 0.05 * rng.standard_normal(picture.shape)
    return out, labels


def van_qsgd(batch: int = 12, side: int = 64, classes: int = 10,
             widths: tuple[int, ...] = (32, 64, 128), depths: tuple[int, ...] = (2, 2, 2),
             levels: int = 16, bucket: int = 512, rate: float = 0.05,
             momentum: float = 0.9) -> Any:
    """Image classification by a Visual Attention Network (VAN; Guo, Lu, Liu, Cheng and Hu)
    of twelve 64x64 pictures of five patterns in two palettes (ten classes). Overlapping
    patch embeddings (7x7 stride 4, then 3x3 stride 2) with batch norm begin three stages
    of 32, 64 and 128 channels with two blocks each. A block has large kernel attention
    behind batch norm (a 1x1 layer and GELU, then a 5x5 depthwise convolution, a 7x7
    depthwise convolution dilated by 3 and a 1x1 layer whose output multiplies its input,
    a 1x1 layer and a shortcut) and an MLP with a 3x3 depthwise convolution inside, both
    residual with layer scale. Layer norm of the pooled features and a linear head. The
    gradient is quantized as one QSGD worker (Alistarh, Grubic, Li, Tomioka and Vojnovic)
    would send it: the flattened gradient in buckets of 512, each entry its bucket's norm
    times a stochastic rounding of its share to one of 16 levels; momentum SGD on it."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.flatten_util import ravel_pytree

    f32 = jnp.float32
    tm = jax.tree.map
    shapes: dict[str, tuple[int, ...]] = {}
    names: list[tuple[int, str, int]] = []
    for s, (c, depth) in enumerate(zip(widths, depths)):
        cin = widths[s - 1] if s else 3
        k = 7 if s == 0 else 3
        shapes.update({f"embed{s}": (k, k, cin, c), f"embed{s}_b": (c,), f"embed{s}n_g": (c,),
                       f"embed{s}n_b": (c,)})
        for d in range(depth):
            n = f"s{s}b{d}"
            names.append((s, n, c))
            shapes.update({f"{n}n1_g": (c,), f"{n}n1_b": (c,), f"{n}p1": (c, c), f"{n}p1_b": (c,),
                           f"{n}dw5": (5, 5, 1, c), f"{n}dw5_b": (c,), f"{n}dw7": (7, 7, 1, c),
                           f"{n}dw7_b": (c,), f"{n}pw": (c, c), f"{n}pw_b": (c,),
                           f"{n}p2": (c, c), f"{n}p2_b": (c,), f"{n}n2_g": (c,), f"{n}n2_b": (c,),
                           f"{n}f1": (c, 4 * c), f"{n}f1_b": (4 * c,),
                           f"{n}fdw": (3, 3, 1, 4 * c), f"{n}fdw_b": (4 * c,),
                           f"{n}f2": (4 * c, c), f"{n}f2_b": (c,)})
    shapes.update({"norm_g": (widths[-1],), "norm_b": (widths[-1],),
                   "head": (widths[-1], classes), "head_b": (classes,)})
    p = _params(shapes, seed=9, dtype=f32)
    for _, n, c in names:
        p[f"{n}ls1_g"] = jnp.full((c,), 0.01, f32)
        p[f"{n}ls2_g"] = jnp.full((c,), 0.01, f32)

    def large_kernel_attention(p, n, u, c):
        """A 5x5 depthwise, a 7x7 depthwise dilated by 3 and a 1x1 convolution give an
        attention map that multiplies the input."""
        a = _conv2d(u, p[f"{n}dw5"], groups=c) + p[f"{n}dw5_b"]
        a = _conv2d(a, p[f"{n}dw7"], groups=c, dilation=3) + p[f"{n}dw7_b"]
        return u * (a @ p[f"{n}pw"] + p[f"{n}pw_b"])

    def loss_fn(p, pictures, labels):
        x = pictures.astype(f32)
        at = 0
        for s, (c, depth) in enumerate(zip(widths, depths)):
            x = _conv2d(x, p[f"embed{s}"], 4 if s == 0 else 2) + p[f"embed{s}_b"]
            x = _bn(x, p[f"embed{s}n_g"], p[f"embed{s}n_b"])
            for _ in range(depth):
                _, n, _ = names[at]
                at += 1
                h = _bn(x, p[f"{n}n1_g"], p[f"{n}n1_b"])
                a = jax.nn.gelu(h @ p[f"{n}p1"] + p[f"{n}p1_b"])
                a = large_kernel_attention(p, n, a, c) @ p[f"{n}p2"] + p[f"{n}p2_b"] + h
                x = x + p[f"{n}ls1_g"] * a
                h = _bn(x, p[f"{n}n2_g"], p[f"{n}n2_b"])
                h = _conv2d(h @ p[f"{n}f1"] + p[f"{n}f1_b"], p[f"{n}fdw"], groups=4 * c) \
                    + p[f"{n}fdw_b"]
                x = x + p[f"{n}ls2_g"] * (jax.nn.gelu(h) @ p[f"{n}f2"] + p[f"{n}f2_b"])
        x = _norm(jnp.mean(x, (1, 2)), p["norm_g"], p["norm_b"])
        return jnp.mean(_cross_entropy(x @ p["head"] + p["head_b"], labels))

    def quantize(flat, key):
        """QSGD over buckets of `bucket` entries: each entry's share of its bucket's norm,
        rounded at random to one of `levels` levels, so that the mean is unchanged."""
        pad = (-flat.size) % bucket
        g = jnp.pad(flat, (0, pad)).reshape(-1, bucket)
        size = jnp.sqrt(jnp.sum(g * g, -1, keepdims=True))
        level = jnp.abs(g) / jnp.maximum(size, 1e-12) * levels
        low = jnp.floor(level)
        up = jax.random.uniform(key, g.shape) < level - low
        return (size * jnp.sign(g) * (low + up) / levels).reshape(-1)[:flat.size]

    def step(params, velocity, pictures, labels, key):
        loss, grads = jax.value_and_grad(loss_fn)(params, pictures, labels)
        flat, unravel = ravel_pytree(tm(lambda w: w.astype(f32), params))
        sent = quantize(ravel_pytree(tm(lambda g: g.astype(f32), grads))[0], key)
        velocity = momentum * velocity + sent
        params = tm(lambda w, new: new.astype(w.dtype), params, unravel(flat - rate * velocity))
        return params, velocity, loss

    rng = np.random.default_rng(9)
    pictures, labels = _pattern_pictures(rng, batch, side, classes)
    size = sum(w.size for w in jax.tree.leaves(p))
    return jax.jit(step).lower(p, jnp.zeros(size, f32), jnp.asarray(pictures),
                               jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(9))


def reptile_glyphs(tasks: int = 4, ways: int = 5, shots: int = 3, queries: int = 2,
                   side: int = 20, bank: int = 40, width: int = 24, inner: int = 3,
                   inner_rate: float = 0.05, outer_rate: float = 1.0, horizon: int = 20000) -> Any:
    """Reptile (Nichol, Achiam and Schulman) meta-learns a CNN for few-shot classification
    of stroke glyphs: four tasks under `vmap`, each five classes drawn from a bank of 40
    glyph recipes (the task's glyphs turned by a common quarter turn), three support and
    two query glyphs of 20x20 per class. The network has three blocks of a 3x3
    convolution of 24 channels, batch norm, ReLU and 2x2 max pooling, and a linear head
    of five. Each task adapts a copy of the weights by three steps of plain SGD on its
    support set in a `fori_loop` (so the convolutions run with per-task weights), is
    judged on its queries, and the meta step moves the weights towards the mean of the
    adapted copies, by a share that decays linearly with the step count."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    tm = jax.tree.map
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(3):
        shapes.update({f"c{i}": (3, 3, width if i else 1, width), f"c{i}_b": (width,),
                       f"c{i}n_g": (width,), f"c{i}n_b": (width,)})
    flat = (side // 8) ** 2 * width
    shapes.update({"head": (flat, ways), "head_b": (ways,)})
    p = _params(shapes, seed=10, scale=math.sqrt(2.0))

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def logits_of(w, x):
        for i in range(3):
            x = pool(jax.nn.relu(_bn(_conv2d(x, w[f"c{i}"]) + w[f"c{i}_b"], w[f"c{i}n_g"],
                                     w[f"c{i}n_b"])))
        return x.reshape(x.shape[0], -1) @ w["head"] + w["head_b"]

    def loss_fn(w, x, y):
        return jnp.mean(_cross_entropy(logits_of(w, x), y))

    def adapt(w, support, support_y, query, query_y):
        """Plain SGD on one task's support set for `inner` steps, judged on its queries."""
        w = lax.fori_loop(0, inner, lambda _, w: tm(lambda a, g: a - inner_rate * g, w,
                                                     jax.grad(loss_fn)(w, support, support_y)), w)
        guess = logits_of(w, query)
        right = jnp.mean((jnp.argmax(guess, -1) == query_y).astype(jnp.float32))
        return w, jnp.mean(_cross_entropy(guess, query_y)), right

    def step(params, k, support, support_y, query, query_y):
        adapted, losses, right = jax.vmap(adapt, (None, 0, 0, 0, 0))(
            params, support, support_y, query, query_y)
        # Reptile: move towards the mean of the adapted weights, the step annealed linearly
        share = outer_rate * jnp.maximum(1.0 - k.astype(jnp.float32) / horizon, 0.0)
        params = tm(lambda w, a: w + share * (jnp.mean(a, 0) - w), params, adapted)
        return params, k + 1, jnp.mean(losses), jnp.mean(right)

    rng = np.random.default_rng(10)
    recipes = _glyph_recipes(31, bank)
    support = np.zeros((tasks, ways * shots, side, side, 1), np.float32)
    query = np.zeros((tasks, ways * queries, side, side, 1), np.float32)
    for t in range(tasks):
        chosen = [recipes[c] for c in rng.choice(bank, ways, replace=False)]
        turns = rng.integers(0, 4)                    # a task sees its glyphs turned alike
        support[t] = np.rot90(_draw_glyphs(rng, chosen, np.repeat(np.arange(ways), shots), side),
                              turns, (1, 2))
        query[t] = np.rot90(_draw_glyphs(rng, chosen, np.repeat(np.arange(ways), queries), side),
                            turns, (1, 2))
    support_y = np.tile(np.repeat(np.arange(ways), shots), (tasks, 1)).astype(np.int32)
    query_y = np.tile(np.repeat(np.arange(ways), queries), (tasks, 1)).astype(np.int32)
    return jax.jit(step).lower(p, jnp.asarray(0, jnp.int32), jnp.asarray(support),
                               jnp.asarray(support_y), jnp.asarray(query), jnp.asarray(query_y))


def euler_hllc(flows: int = 2, side: int = 128, steps: int = 64, gamma: float = 1.4,
               cfl: float = 0.4) -> Any:
    """The compressible Euler equations in two dimensions for two Kelvin-Helmholtz
    set-ups on periodic 128x128 grids (a dense band, two or four times the density around
    it, sliding against the rest, seeded by waves at both interfaces, a passive dye in the
    band), no gradient: 64 time steps in a `fori_loop`, each of a size set by the CFL
    condition from the largest wave speed of its flow, by two-stage strong-stability-
    preserving Runge-Kutta. Each stage is a finite-volume update with MUSCL reconstruction
    (minmod-limited slopes of the primitive variables, by rolls) and HLLC fluxes (Toro,
    Davis' wave speed estimates, the contact resolved) along x, and the same along y by
    swapping the axes and the momenta. The states, the times reached, the drift of mass,
    energy and dye, a mixing measure of the dye and the smallest density and pressure
    come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    h = 1.0 / side

    def minmod(a, b):
        return jnp.where(a * b > 0, jnp.sign(a) * jnp.minimum(jnp.abs(a), jnp.abs(b)), 0.0)

    def primitive(u):
        rho = u[:, 0]
        vx, vy, dye = u[:, 1] / rho, u[:, 2] / rho, u[:, 4] / rho
        p = (gamma - 1.0) * (u[:, 3] - 0.5 * rho * (vx * vx + vy * vy))
        return rho, vx, vy, p, dye

    def hllc(left, right):
        """Toro's HLLC flux across faces normal to x, with Davis' wave speed estimates."""
        def pieces(w):
            rho, vx, vy, p, dye = w
            energy = p / (gamma - 1.0) + 0.5 * rho * (vx * vx + vy * vy)
            state = jnp.stack([rho, rho * vx, rho * vy, energy, rho * dye], 1)
            flux = jnp.stack([rho * vx, rho * vx * vx + p, rho * vx * vy, vx * (energy + p),
                              rho * vx * dye], 1)
            return state, flux, jnp.sqrt(gamma * jnp.maximum(p, 1e-10) / rho)

        (rl, ul, vl, pl, dl), (rr, ur, vr, pr, dr) = left, right
        state_l, flux_l, cl = pieces(left)
        state_r, flux_r, cr = pieces(right)
        s_l = jnp.minimum(ul - cl, ur - cr)
        s_r = jnp.maximum(ul + cl, ur + cr)
        s_m = (pr - pl + rl * ul * (s_l - ul) - rr * ur * (s_r - ur)) \
            / (rl * (s_l - ul) - rr * (s_r - ur))

        def star(state, flux, rho, vx, vy, p, dye, s):
            scale = rho * (s - vx) / (s - s_m)
            energy = state[:, 3] / rho + (s_m - vx) * (s_m + p / (rho * (s - vx)))
            inner = jnp.stack([jnp.ones_like(rho), s_m, vy, energy, dye], 1)
            return flux + s[:, None] * (scale[:, None] * inner - state)

        star_l = star(state_l, flux_l, rl, ul, vl, pl, dl, s_l)
        star_r = star(state_r, flux_r, rr, ur, vr, pr, dr, s_r)
        s_l, s_m, s_r = s_l[:, None], s_m[:, None], s_r[:, None]
        return jnp.where(s_l >= 0, flux_l, jnp.where(s_m >= 0, star_l,
                                                     jnp.where(s_r >= 0, star_r, flux_r)))

    def sweep_x(u):
        """-dF/dx by MUSCL reconstruction (minmod slopes of the primitive variables) and
        HLLC fluxes, periodic in x (the last axis)."""
        w = primitive(u)
        slopes = [minmod(q - jnp.roll(q, 1, -1), jnp.roll(q, -1, -1) - q) for q in w]
        left = tuple(q + 0.5 * d for q, d in zip(w, slopes))
        right = tuple(jnp.roll(q - 0.5 * d, -1, -1) for q, d in zip(w, slopes))
        flux = hllc(left, right)                       # at the face to the right of each cell
        return -(flux - jnp.roll(flux, 1, -1)) / h

    def turn(u):                                       # swap the axes and the momenta
        u = jnp.swapaxes(u, -1, -2)
        return jnp.stack([u[:, 0], u[:, 2], u[:, 1], u[:, 3], u[:, 4]], 1)

    def change(u):
        return sweep_x(u) + turn(sweep_x(turn(u)))

    def run(log_density, velocity, log_pressure, dye):
        rho = jnp.exp(log_density)
        vx, vy, p = velocity[:, 0], velocity[:, 1], jnp.exp(log_pressure)
        u = jnp.stack([rho, rho * vx, rho * vy, p / (gamma - 1) + 0.5 * rho * (vx * vx + vy * vy),
                       rho * dye], 1)
        kept = jnp.sum(u[:, jnp.array([0, 3, 4])], (2, 3))     # mass, energy and dye

        def advance(_, carry):
            u, t = carry
            rho, vx, vy, p, _ = primitive(u)
            speed = jnp.sqrt(vx * vx + vy * vy) + jnp.sqrt(gamma * jnp.maximum(p, 1e-10) / rho)
            dt = cfl * h / jnp.max(speed, (1, 2))
            first = u + dt[:, None, None, None] * change(u)     # SSP Runge-Kutta, two stages
            u = 0.5 * u + 0.5 * (first + dt[:, None, None, None] * change(first))
            return u, t + dt

        u, t = lax.fori_loop(0, steps, advance, (u, jnp.zeros(flows)))
        drift = jnp.abs(jnp.sum(u[:, jnp.array([0, 3, 4])], (2, 3)) / kept - 1.0)
        rho, vx, vy, p, dye = primitive(u)
        mixed = jnp.mean(4 * dye * (1 - dye), (1, 2))
        return u, t, drift, mixed, jnp.min(rho, (1, 2)), jnp.min(p, (1, 2))

    # two Kelvin-Helmholtz set-ups: a dense band sliding against lighter fluid, seeded by
    # waves on both interfaces (density ratios 2 and 4, a dye marking the band)
    rng = np.random.default_rng(11)
    y, x = (np.mgrid[0:side, 0:side] + 0.5) / side
    log_density = np.zeros((flows, side, side), np.float32)
    velocity = np.zeros((flows, 2, side, side), np.float32)
    log_pressure = np.zeros((flows, side, side), np.float32)
    dye = np.zeros((flows, side, side), np.float32)
    for f in range(flows):
        band = 0.5 * (np.tanh((y - 0.25) / 0.01) - np.tanh((y - 0.75) / 0.01))
        log_density[f] = np.log(1.0 + (1.0 + 2.0 * f) * band)
        velocity[f, 0] = -0.5 + band
        seed = sum(0.01 * np.sin(2 * np.pi * k * x + rng.uniform(0, 2 * np.pi)) for k in (2, 4))
        near = np.exp(-((y - 0.25) / 0.05) ** 2) + np.exp(-((y - 0.75) / 0.05) ** 2)
        velocity[f, 1] = seed * near
        log_pressure[f] = np.log(2.5)
        dye[f] = band
    return jax.jit(run).lower(jnp.asarray(log_density), jnp.asarray(velocity),
                              jnp.asarray(log_pressure), jnp.asarray(dye))


def kpm_anderson(systems: int = 3, side: int = 128, vectors: int = 8, moments: int = 512,
                 energies: int = 1024, hopping: float = 1.0,
                 disorder: tuple[float, ...] = (1.0, 4.0, 12.0)) -> Any:
    """The density of states of the 2-D Anderson model (nearest-neighbour hopping on a
    periodic 128x128 lattice with site energies uniform in [-W/2, W/2] for W = 1, 4 and
    12) by the kernel polynomial method (Weisse, Wellein, Alvermann and Fehske), no
    gradient. The Hamiltonian, applied matrix-free by four rolls and a product and
    rescaled into (-1, 1) by a bound from the largest site energy, drives the Chebyshev
    recursion of eight random-sign vectors per system in a `fori_loop` of 255 steps that
    fills two moments each by the doubling identities (512 moments, the trace estimated
    stochastically); the Jackson kernel damps them, and a matrix product with a table of
    Chebyshev polynomials at 1024 nodes gives the density. The energies, densities,
    moments, the integrated density (one) and the share of states above zero come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = moments
    order = np.arange(n)
    jackson = ((n - order + 1) * np.cos(np.pi * order / (n + 1))
               + np.sin(np.pi * order / (n + 1)) / np.tan(np.pi / (n + 1))) / (n + 1)
    nodes = np.pi * (np.arange(energies) + 0.5) / energies
    x = np.cos(nodes)                                           # Chebyshev nodes in (-1, 1)
    chebyshev = jnp.asarray(np.cos(order[:, None] * nodes[None, :]), jnp.float32)  # T_m(x_k)
    weights = jnp.asarray(jackson * np.where(order == 0, 1.0, 2.0), jnp.float32)

    def run(potential, probes):
        scale = (4.0 * hopping + jnp.max(jnp.abs(potential), (1, 2))) * 1.01
        v_site = (potential / scale[:, None, None])[:, None]
        hop = (hopping / scale)[:, None, None, None]

        def apply(v):                                           # the rescaled Hamiltonian
            near = jnp.roll(v, 1, -1) + jnp.roll(v, -1, -1) + jnp.roll(v, 1, -2) \
                + jnp.roll(v, -1, -2)
            return v_site * v - hop * near

        def dot(a, b):
            return jnp.sum(a * b, (1, 2, 3))

        first = apply(probes)
        mu0, mu1 = dot(probes, probes), dot(probes, first)
        start = jnp.zeros((n, systems)).at[0].set(mu0).at[1].set(mu1)

        def recurse(m, carry):
            """From T_m(H) r and T_(m-1)(H) r to the next vector, filling moments 2m and
            2m + 1 (the doubling identities)."""
            older, newer, mu = carry
            newest = 2.0 * apply(newer) - older
            mu = mu.at[2 * m].set(2.0 * dot(newer, newer) - mu0)
            mu = mu.at[2 * m + 1].set(2.0 * dot(newest, newer) - mu1)
            return newer, newest, mu

        _, _, mu = lax.fori_loop(1, n // 2, recurse, (probes, first, start))
        mu = mu / (side * side * vectors)
        density = (weights[:, None] * mu).T @ chebyshev / (math.pi * np.sqrt(1 - x * x))
        energy = jnp.asarray(x)[None, :] * scale[:, None]
        density = density / scale[:, None]                      # states per unit energy
        spacing = jnp.abs(jnp.diff(energy, axis=1))
        counted = jnp.cumsum(0.5 * (density[:, 1:] + density[:, :-1]) * spacing, 1)
        above = jnp.sum(jnp.where(energy > 0, density, 0.0)[:, 1:] * spacing, 1)
        return energy, density, mu.T, counted[:, -1], above

    rng = np.random.default_rng(12)
    potential = np.stack([rng.uniform(-w / 2, w / 2, (side, side)) for w in disorder[:systems]])
    probes = rng.choice([-1.0, 1.0], (systems, vectors, side, side))
    return jax.jit(run).lower(jnp.asarray(potential, jnp.float32), jnp.asarray(probes, jnp.float32))


def enkf_lorenz96(experiments: int = 4, variables: int = 240, members: int = 40,
                  cycles: int = 48, substeps: int = 5, dt: float = 0.01, forcing: float = 8.0,
                  every: int = 2, noise: float = 1.0, radius: float = 6.0,
                  inflation: float = 1.08) -> Any:
    """Data assimilation into the Lorenz-96 model (240 variables, forcing 8) by a serial
    ensemble square-root filter (Whitaker and Hamill) for four independent experiments,
    no gradient: 48 cycles in a `lax.scan`, each a forecast of the 40 members by five RK4
    steps of 0.01 in a `fori_loop`, then under `vmap` over the experiments an analysis
    that inflates the anomalies by 8% and takes the 120 observations (every other
    variable, unit noise) one at a time in a `fori_loop`: the observed anomalies by a
    dynamic index, a Kalman gain localized by a Gaspari-Cohn taper of radius 6 variables,
    the mean moved and the anomalies shrunk by the square-root factor. The final
    ensembles and the forecast error, analysis error and spread of every cycle come
    back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    sites = np.arange(0, variables, every)
    gap = np.abs(sites[:, None] - np.arange(variables)[None, :])
    gap = np.minimum(gap, variables - gap) / radius                   # periodic distance / c
    # the Gaspari-Cohn fifth-order taper, zero beyond twice the radius
    inner = 1 - 5 / 3 * gap ** 2 + 5 / 8 * gap ** 3 + 1 / 2 * gap ** 4 - 1 / 4 * gap ** 5
    outer = (4 - 5 * gap + 5 / 3 * gap ** 2 + 5 / 8 * gap ** 3 - 1 / 2 * gap ** 4
             + 1 / 12 * gap ** 5 - 2 / (3 * np.maximum(gap, 1e-9)))
    taper = jnp.asarray(np.where(gap <= 1, inner, np.where(gap <= 2, outer, 0.0)), jnp.float32)
    where = jnp.asarray(sites, jnp.int32)

    def tendency(x):
        return (jnp.roll(x, -1, -1) - jnp.roll(x, 2, -1)) * jnp.roll(x, 1, -1) - x + forcing

    def rk4(_, x):
        k1 = tendency(x)
        k2 = tendency(x + 0.5 * dt * k1)
        k3 = tendency(x + 0.5 * dt * k2)
        k4 = tendency(x + dt * k3)
        return x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def analysis(ensemble, observed):
        """The serial ensemble square-root filter (Whitaker and Hamill): observations one
        at a time in a `fori_loop`, each moving the mean by its localized Kalman gain and
        shrinking the anomalies by the square-root factor."""
        mean = jnp.mean(ensemble, 0)
        spread = inflation * (ensemble - mean)

        def one(j, carry):
            mean, spread = carry
            seen = lax.dynamic_index_in_dim(spread, where[j], 1, keepdims=False)
            variance = seen @ seen / (members - 1)
            gain = taper[j] * (seen @ spread) / (members - 1) / (variance + noise)
            mean = mean + gain * (observed[j] - mean[where[j]])
            shrink = 1.0 / (1.0 + jnp.sqrt(noise / (variance + noise)))
            return mean, spread - shrink * seen[:, None] * gain[None, :]

        mean, spread = lax.fori_loop(0, len(sites), one, (mean, spread))
        return mean + spread

    def run(ensemble, observations, truth):
        def cycle(ensemble, xs):
            observed, true = xs
            ensemble = lax.fori_loop(0, substeps, rk4, ensemble)
            prior = jnp.sqrt(jnp.mean(jnp.square(jnp.mean(ensemble, 1) - true), -1))
            ensemble = jax.vmap(analysis)(ensemble, observed)
            mean = jnp.mean(ensemble, 1)
            error = jnp.sqrt(jnp.mean(jnp.square(mean - true), -1))
            spread = jnp.sqrt(jnp.mean(jnp.var(ensemble, 1, ddof=1), -1))
            return ensemble, (prior, error, spread)

        ensemble, (prior, error, spread) = lax.scan(
            cycle, ensemble, (jnp.swapaxes(observations, 0, 1), jnp.swapaxes(truth, 0, 1)))
        return ensemble, prior.T, error.T, spread.T

    rng = np.random.default_rng(13)
    state = forcing + rng.standard_normal((experiments, variables))

    def step_np(x):
        def f(x):
            return (np.roll(x, -1, -1) - np.roll(x, 2, -1)) * np.roll(x, 1, -1) - x + forcing
        k1 = f(x)
        k2 = f(x + 0.5 * dt * k1)
        k3 = f(x + 0.5 * dt * k2)
        k4 = f(x + dt * k3)
        return x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    for _ in range(1000):                                             # onto the attractor
        state = step_np(state)
    guess = state + rng.standard_normal((experiments, variables))     # a wrong first guess
    ensemble = guess[:, None, :] + rng.standard_normal((experiments, members, variables))
    truth = np.zeros((experiments, cycles, variables))
    for c in range(cycles):
        for _ in range(substeps):
            state = step_np(state)
        truth[:, c] = state
    observations = truth[:, :, sites] + np.sqrt(noise) * rng.standard_normal(
        (experiments, cycles, len(sites)))
    f32 = np.float32
    return jax.jit(run).lower(jnp.asarray(ensemble, f32), jnp.asarray(observations, f32),
                              jnp.asarray(truth, f32))


def aberth_roots(polynomials: int = 1024, degree: int = 32, cap: int = 60,
                 tolerance: float = 1e-5) -> Any:
    """All roots of 1024 random polynomials of degree 32 (Kac, Weyl and Littlewood
    polynomials, a third each) by the Aberth-Ehrlich method in complex64, no gradient.
    The roots start on a circle whose radius is the geometric mean of the root moduli and
    move together in a `while_loop` until no polynomial's roots move by more than 1e-5
    relative (at most 60 rounds), converged polynomials frozen: Newton's ratio p / p' by
    Horner's rule in a `lax.scan` over the coefficients, taken for roots outside the unit
    circle from the reversed polynomial at 1 / z so that no power overflows, and the
    Aberth correction from the sum of 1 / (z_k - z_j) over all pairs. The roots, the
    rounds per polynomial, the worst backward error, a check of the roots' sum against
    the coefficients and the share of roots outside the unit circle come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c64 = jnp.complex64
    spin = np.exp(1j * (2 * np.pi * np.arange(degree) / degree + 0.4))

    def horner(a, z, outside):
        """p(z) and p'(z) by Horner's rule in a `lax.scan` over the coefficients a (one row
        per polynomial); a root marked `outside` takes them in reverse order."""
        def one(carry, pair):
            p, dp = carry
            ahead, behind = pair
            coefficient = jnp.where(outside, behind[:, None], ahead[:, None])
            return (p * z + coefficient, dp * z + p), None

        zero = jnp.zeros_like(z)
        (p, dp), _ = lax.scan(one, (zero, zero), (a.T, a[:, ::-1].T))
        return p, dp

    def newton_ratio(a, z):
        """p(z) / p'(z) for every root. Roots outside the unit circle use the reversed
        polynomial q at 1 / z, p(z) = z^n q(1 / z), so that no power of z overflows; there
        p / p' = z q / (n q - q' / z)."""
        outside = jnp.abs(z) > 1.0
        point = jnp.where(outside, 1.0 / z, z)
        q, dq = horner(a, point, outside)
        return jnp.where(outside, z * q / (degree * q - point * dq), q / dq)

    def backward_error(a, z):
        """|p(z)| over its rounding scale, the sum of |a_k| |z|^k (folded alike)."""
        outside = jnp.abs(z) > 1.0
        point = jnp.where(outside, 1.0 / z, z)
        q, _ = horner(a, point, outside)
        scale, _ = horner(jnp.abs(a).astype(c64), jnp.abs(point).astype(c64), outside)
        return jnp.abs(q) / jnp.abs(scale)

    def run(coefficients):
        a = coefficients.astype(c64)
        size = jnp.abs(coefficients)
        # start on a circle whose radius is the geometric mean of the root moduli
        radius = (size[:, -1] / size[:, 0]) ** (1.0 / degree)
        z = radius[:, None] * jnp.asarray(spin, c64)
        eye = jnp.eye(degree, dtype=bool)

        def unsettled(state):
            _, live, _, rounds = state
            return jnp.any(live) & (rounds < cap)

        def body(state):
            z, live, count, rounds = state
            ratio = newton_ratio(a, z)
            apart = z[:, :, None] - z[:, None, :]
            pull = jnp.sum(jnp.where(eye, 0.0, 1.0 / jnp.where(eye, 1.0, apart)), -1)
            step = ratio / (1.0 - ratio * pull)                      # Aberth-Ehrlich
            moved = jnp.max(jnp.abs(step) / jnp.maximum(jnp.abs(z), 1.0), 1)
            z = jnp.where(live[:, None], z - step, z)
            still = live & (moved > tolerance)
            return z, still, count + live.astype(jnp.int32), rounds + 1

        state = (z, jnp.ones(polynomials, bool), jnp.zeros(polynomials, jnp.int32), 0)
        z, live, count, rounds = lax.while_loop(unsettled, body, state)
        backward = backward_error(a, z)
        vieta = jnp.abs(jnp.sum(z, 1) + a[:, 1] / a[:, 0]) / (1 + jnp.abs(a[:, 1] / a[:, 0]))
        return z, count, rounds, jnp.max(backward, 1), vieta, jnp.mean(jnp.abs(z) > 1.0)

    # Kac (independent Gaussian), Weyl (binomially weighted) and Littlewood (signs)
    # polynomials, a third each
    rng = np.random.default_rng(14)
    coefficients = rng.standard_normal((polynomials, degree + 1))
    weyl = np.sqrt([math.comb(degree, k) for k in range(degree + 1)])
    third = polynomials // 3
    coefficients[third:2 * third] *= weyl
    coefficients[2 * third:] = np.sign(coefficients[2 * third:])
    return jax.jit(run).lower(jnp.asarray(coefficients, jnp.float32))


def tsp_annealing(instances: int = 4, cities: int = 128, chains: int = 32, moves: int = 4000,
                  hot: float = 0.3, cold: float = 0.002) -> Any:
    """Simulated annealing for the travelling salesman problem on four instances of 128
    clustered cities, 32 independent chains each, no gradient: random starting tours by
    `argsort` of uniform draws, then 4000 moves in a `fori_loop`. Every move draws a
    stretch of every chain's tour, prices the 2-opt exchange that reverses it from four
    gathered distances, accepts by the Metropolis rule at a temperature cooling
    geometrically from 0.3 to 0.002 typical edges, and applies accepted reversals by a
    gather of the tour at reflected positions; the best tour of every chain is kept. The
    best route per instance, the best lengths, the acceptance rates and the rounding
    drift of the running lengths come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(points, key):
        gap = points[:, :, None, :] - points[:, None, :, :]
        flat = jnp.sqrt(jnp.sum(gap * gap, -1)).reshape(instances, 1, cities * cities)
        scale = jnp.mean(flat, -1, keepdims=True) / math.sqrt(cities)    # a typical edge

        def distance(a, b):                     # a, b: (instances, chains) city indices
            return jnp.take_along_axis(flat, (a * cities + b)[..., None], -1)[..., 0]

        def tour_length(tours):
            edges = tours * cities + jnp.roll(tours, -1, -1)
            return jnp.sum(jnp.take_along_axis(flat, edges, -1), -1)

        start, key = jax.random.split(key)
        tours = jnp.argsort(jax.random.uniform(start, (instances, chains, cities)), -1)
        length = tour_length(tours)
        position = jnp.arange(cities)

        def move(k, carry):
            tours, length, best, best_tours, taken = carry
            pick, coin = jax.random.split(jax.random.fold_in(key, k))
            ends = jax.random.randint(pick, (2, instances, chains), 0, cities)
            lo, hi = jnp.minimum(ends[0], ends[1]), jnp.maximum(ends[0], ends[1])
            usable = (hi - lo >= 2) & ~((lo == 0) & (hi == cities - 1))
            a, b, c, e = (jnp.take_along_axis(tours, i[..., None], -1)[..., 0]
                          for i in (lo, lo + 1, hi, (hi + 1) % cities))
            # 2-opt: reverse the stretch from lo + 1 to hi, trading edges a-b and c-e for
            # a-c and b-e
            change = distance(a, c) + distance(b, e) - distance(a, b) - distance(c, e)
            heat = scale[..., 0] * hot * (cold / hot) ** (k / moves)
            luck = jax.random.uniform(coin, change.shape)
            accept = usable & ((change < 0) | (luck < jnp.exp(-change / heat)))
            inside = (position > lo[..., None]) & (position <= hi[..., None])
            order = jnp.where(inside, lo[..., None] + 1 + hi[..., None] - position, position)
            tours = jnp.where(accept[..., None], jnp.take_along_axis(tours, order, -1), tours)
            length = length + jnp.where(accept, change, 0.0)
            better = length < best
            best_tours = jnp.where(better[..., None], tours, best_tours)
            return tours, length, jnp.minimum(best, length), best_tours, taken + accept

        taken = jnp.zeros((instances, chains), jnp.int32)
        tours, length, best, best_tours, taken = lax.fori_loop(
            0, moves, move, (tours, length, length, tours, taken))
        winner = jnp.argmin(best, -1)
        route = jnp.take_along_axis(best_tours, winner[:, None, None], 1)[:, 0]
        drift = jnp.max(jnp.abs(tour_length(tours) - length))       # rounding in the running sums
        return route, best, jnp.min(best, -1), taken / moves, drift

    # cities in a few Gaussian clusters over a square, a different layout per instance
    rng = np.random.default_rng(15)
    points = np.zeros((instances, cities, 2), np.float32)
    for i in range(instances):
        centres = rng.uniform(0, 1, (rng.integers(3, 9), 2))
        which = rng.integers(0, len(centres), cities)
        points[i] = centres[which] + rng.normal(0, rng.uniform(0.03, 0.12), (cities, 2))
    return jax.jit(run).lower(jnp.asarray(points), jax.random.PRNGKey(15))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "restormer_deblur/2x48px-16-32-64": restormer_deblur,
    "deepsdf_autodecoder/8x512-points-64-codes-w192-l8-bf16": deepsdf_autodecoder,
    "consistency_training/32x16px-w32-bf16": consistency_training,
    "iql_offline/256x17+6-h256-ggt8": iql_offline,
    "rvq_codec/4x4096-samples-6x256-codes": rvq_codec,
    "dnc_two_tasks/2x16x16-steps-32x16-memory": dnc_two_tasks,
    "nri_springs/8-of-128x5-balls-32-frames": nri_springs,
    "ngpt_diloco/4x3x2x64-d96-l3-bf16": ngpt_diloco,
    "van_qsgd/12x64px-32-64-128": van_qsgd,
    "reptile_glyphs/4x5-way-3-shot-20px-3-steps": reptile_glyphs,
    "euler_hllc/2x128x128-64-steps": euler_hllc,
    "kpm_anderson/3x128x128-8-vectors-512-moments": kpm_anderson,
    "enkf_lorenz96/4x240-variables-40-members-48-cycles": enkf_lorenz96,
    "aberth_roots/1024x32-degree-max60": aberth_roots,
    "tsp_annealing/4x128-cities-32-chains-4000-moves": tsp_annealing,
}
