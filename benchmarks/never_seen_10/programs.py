"""The tenth never-seen set: programs written on 2026-11-27, after the ninth set
(benchmarks/never_seen_9/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-10` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
nine never-seen sets has. Ten are training steps (forward, loss, backward and an
optimizer update). A ConvNeXt classifier patchifies by a 4x4 stride-4 convolution and
stacks blocks of a depthwise 7x7 convolution, layer norm over channels and a 4x inverted
bottleneck with GELU, each branch scaled per channel and dropped per sample by
stochastic depth, with layer-normed stride-2 convolutions between stages. A Longformer
in bfloat16 tags tokens and classifies documents with banded local attention (chunks of
64 queries against their own and both neighbouring chunks' keys under a band mask) plus
sixteen global tokens that everyone attends to and that attend everywhere through their
own projections. A RetNet language model uses parallel multi-scale retention: rotated
queries and keys scored against a causal decay matrix with one decay rate per head,
normalized rows, per-head group norm and a swish gate. An xLSTM language model runs
mLSTM blocks, whose matrix memory and normalizer per head follow exponential input and
sigmoid forget gates stabilized in log space, under `lax.scan` over the tokens, after a
causal depthwise 1-D convolution. A graph isomorphism network classifies small graphs
packed in one node table by `segment_sum` over an edge list, (1 + eps)-weighted self
terms, MLPs with batch norm, and sum-pooled readouts of every layer. Conditional flow
matching in bfloat16 trains a small U-Net (group norm, time and class embeddings as
scale and shift, strided convolutions down, repeats and skip concatenations up, one
8x8 self-attention block) to predict the straight-line velocity from noise to image at
logit-normal times, dropping the class one time in ten. VICReg pretrains a small CNN
with batch norm on two views made inside the step (per-sample `dynamic_slice` crops,
flips, brightness and contrast jitter, greying) by invariance, variance-hinge and
covariance terms over an expander's outputs. A prototypical network learns from one
20-way 5-shot episode: a four-block convolutional encoder with max pooling, class
prototypes by `segment_sum` and a softmax over negative squared distances. An octave
ResNet keeps every feature map as a full-resolution high-frequency part and a
half-resolution low-frequency part and mixes the four paths in each convolution by
average pooling and nearest-neighbour upsampling. A Linformer masked language model in
bfloat16 projects keys and values along the sequence from 1024 positions to 64, picks
its masked positions by an `argsort` of random keys, corrupts them BERT-style and
scores only their gathered hidden states against the tied embeddings. Five are
inference or scientific steps without a gradient: a Lennard-Jones fluid in a periodic
box (a `lax.scan` over neighbour-list rebuilds by minimum-image distances and `top_k`,
each an inner `lax.scan` of velocity-Verlet steps with gathered neighbour forces and a
Berendsen thermostat, then a radial distribution function by scatter-add), American and
European puts by Crank-Nicolson in log-moneyness (a `fori_loop` over time steps, each
tridiagonal solve a forward and a reverse `lax.scan` of the Thomas algorithm across the
grid vectorized over options, the early-exercise projection, prices, Greeks and the
critical price from gathered grid values), sequential ray tracing of a Cooke triplet
lens at three wavelengths (a `lax.scan` over spherical surfaces with ray-sphere
intersections, Snell's law in vector form and aperture masks, then spot sizes, a
defocus sweep, distortion and point-spread histograms by scatter-add), a Wilson-Dirac
quark propagator on a 4-D lattice in complex64 (SU(3) links, `roll`ed neighbours, spin
projectors, antiperiodic time) solved by conjugate gradients on the normal equations in
a `fori_loop`, and BM25 retrieval over an impact-ordered inverted index (gathered
postings scored and scatter-added into per-query document scores, a `top_k` shortlist
re-ranked with gathered dense embeddings, fused scores sorted by `argsort`, reciprocal
ranks). The updates vary: AdamP (radial components projected out for scale-invariant
weights), LaProp, ADOPT, Padam (a partial power of the AMSGrad second moment), the
stochastic Polyak step size, CAME (factored confidence-guided Adafactor), MARS
(variance-reduced gradients into AdamW), Adam with hypergradient descent on its
learning rate, Nero (per-neuron normalized updates with projection back to centred unit
norms) and AdaPNM (positive-negative momentum); three training steps (the Longformer,
the flow-matching U-Net and the Linformer) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")
_NWC = ("NWC", "WIO", "NWC")


def _params(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
            scale: float = 1.0) -> dict[str, Any]:
    """Weights for the named shapes from one fixed seed. A name ending in `_b` starts at
    zero (a bias or shift), one ending in `_g` at one (a gain); any other tensor is normal
    with standard deviation scale / sqrt(fan-in), the fan-in being every axis but the
    last."""
    import jax
    import jax.numpy as jnp

    dtype = dtype or jnp.float32
    root = jax.random.PRNGKey(seed)
    out: dict[str, Any] = {}
    for index, (name, shape) in enumerate(shapes.items()):
        if name.endswith("_b"):
            out[name] = jnp.zeros(shape, dtype)
        elif name.endswith("_g"):
            out[name] = jnp.ones(shape, dtype)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else shape[0]
            noise = jax.random.normal(jax.random.fold_in(root, index), shape, jnp.float32)
            out[name] = (noise * (scale / math.sqrt(fan_in))).astype(dtype)
    return out


def _unzip(tree_of_tuples: Any, like: Any, count: int) -> tuple[Any, ...]:
    """A tree whose leaves are `count`-tuples (shaped like `like`) as `count` trees."""
    import jax

    treedef = jax.tree.structure(like)
    flat = treedef.flatten_up_to(tree_of_tuples)
    return tuple(treedef.unflatten([leaf[i] for leaf in flat]) for i in range(count))


def _unit_axes(a: Any) -> tuple[int, ...] | None:
    """The axes of one output unit's weights (all but the last), or None for a vector."""
    return tuple(range(a.ndim - 1)) if a.ndim > 1 else None


def _update_rule(name: str) -> tuple[Callable[[Any], Any], Callable[..., tuple[Any, Any]]]:
    """The named optimizer as (init, update): init(params) -> state, and
    update(params, grads, state, loss) -> (params, state). State is float32 whatever the
    parameters' dtype; every parameter keeps its own dtype."""
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

    def adam_moments(m: Any, v: Any, g: Any, b1: float = 0.9, b2: float = 0.999
                     ) -> tuple[Any, Any]:
        m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
        v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
        return m, v

    if name == "adamp":
        # AdamP: Adam whose step, for a weight that looks scale-invariant (its gradient
        # nearly perpendicular to every output unit's weights), is projected off the
        # radial direction of each unit, with the decoupled weight decay cut tenfold there
        def adamp(params, grads, state, loss):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m, v = adam_moments(m, v, g)

            def move(p, g_, m_, v_):
                p32 = p.astype(f32)
                u = (m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-8)
                if p.ndim < 2:
                    return p32 - 1e-3 * u
                axes = _unit_axes(p)
                p_norm = jnp.sqrt(jnp.sum(p32 * p32, axes, keepdims=True)) + 1e-8
                g_norm = jnp.sqrt(jnp.sum(g_ * g_, axes, keepdims=True)) + 1e-8
                cosine = jnp.abs(jnp.sum(p32 * g_, axes, keepdims=True)) / (p_norm * g_norm)
                flat = jnp.max(cosine) < 0.1 / math.sqrt(math.prod(p.shape[:-1]))
                radial = p32 / p_norm
                projected = u - jnp.sum(radial * u, axes, keepdims=True) * radial
                u = jnp.where(flat, projected, u)
                decay = jnp.where(flat, 0.1, 1.0) * 5e-2
                return p32 - 1e-3 * (u + decay * p32)
            return recast(params, tm(move, params, g, m, v)), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), adamp

    if name == "laprop":
        # LaProp: the gradient is divided by the root of its bias-corrected second moment
        # first, and the momentum runs over those normalized gradients
        def laprop(params, grads, state, loss):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            m = tm(lambda m_, g_, v_: 0.9 * m_ + 0.1 * g_ / (jnp.sqrt(v_ / (1.0 - 0.999 ** n))
                                                            + 1e-15), m, g, v)
            moved = tm(lambda p, m_: p.astype(f32) - 4e-4 * m_ / (1.0 - 0.9 ** n), params, m)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), laprop

    if name == "adopt":
        # ADOPT: the gradient is normalized by the second moment of the steps before it
        # (clipped at t^(1/4)) and only then enters the momentum; the second moment is
        # updated afterwards; the first step only initializes it
        def adopt(params, grads, state, loss):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            first = t == 1

            def per_element(p, g_, m_, v_):
                p32 = p.astype(f32)
                scaled = jnp.clip(g_ / jnp.maximum(jnp.sqrt(v_), 1e-6), -(n ** 0.25), n ** 0.25)
                m_new = jnp.where(first, m_, 0.9 * m_ + 0.1 * scaled)
                p_new = jnp.where(first, p32, p32 - 1e-3 * (m_new + 1e-2 * p32))
                v_new = jnp.where(first, g_ * g_, 0.9999 * v_ + 1e-4 * g_ * g_)
                return p_new.astype(p.dtype), m_new, v_new

            params, m, v = _unzip(tm(per_element, params, g, m, v), params, 3)
            return params, (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), adopt

    if name == "padam":
        # Padam: AMSGrad's running maximum of the second moment raised to a partial power
        # (1/8 instead of 1/2), between SGD with momentum and Adam
        def padam(params, grads, state, loss):
            m, v, v_max, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m, v = adam_moments(m, v, g)
            v_max = tm(jnp.maximum, v_max, v)
            moved = tm(lambda p, m_, w: p.astype(f32) * (1.0 - 1e-4) - 2e-2
                       * (m_ / (1.0 - 0.9 ** n)) / (w + 1e-8) ** 0.125, params, m, v_max)
            return recast(params, moved), (m, v, v_max, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), padam

    if name == "sps":
        # stochastic Polyak step size (SPS-max): the step is the loss over c times the
        # squared gradient norm (the optimal value taken as zero), capped
        def sps(params, grads, state, loss):
            g = wide(grads)
            squared = sum(jnp.sum(a * a) for a in jax.tree.leaves(g))
            step = jnp.minimum(loss.astype(f32) / (0.5 * squared + 1e-12), 0.5)
            moved = tm(lambda p, g_: p.astype(f32) - step * g_, params, g)
            return recast(params, moved), state + 1
        return (lambda p: count()), sps

    if name == "came":
        # CAME: Adafactor's factored second moment (row and column means over the last
        # two axes of a matrix view) normalizes the gradient, clipped by its RMS; the
        # momentum of that is divided by the root of a factored estimate of its own
        # instability (the squared gap between the update and the momentum)
        def view(a):
            return a.reshape(-1, a.shape[-1]) if a.ndim > 1 else a

        def came_init(params):
            def one(p):
                if p.ndim > 1:
                    rows, cols = view(p).shape
                    return (jnp.zeros((rows,), f32), jnp.zeros((cols,), f32),
                            jnp.zeros((rows,), f32), jnp.zeros((cols,), f32))
                return (jnp.zeros(p.shape, f32), jnp.zeros((), f32),
                        jnp.zeros(p.shape, f32), jnp.zeros((), f32))
            return zeros(params), tm(one, params), count()

        def inverse_root(row, col):
            # 1 / sqrt(row col^T / mean(row)), in factors so that nothing underflows
            return lax.rsqrt(row / jnp.mean(row))[:, None] * lax.rsqrt(col)[None, :]

        def came(params, grads, state):
            m, stats, t = state
            g = wide(grads)
            t = t + 1

            def per_tensor(p, g_, m_, s):
                p32 = p.astype(f32)
                r, c, ur, uc = s
                sq = g_ * g_ + 1e-30
                if p.ndim > 1:
                    sq2 = view(sq)
                    r = 0.999 * r + 0.001 * sq2.mean(1)
                    c = 0.999 * c + 0.001 * sq2.mean(0)
                    u = view(g_) * inverse_root(r, c)
                else:
                    r = 0.999 * r + 0.001 * sq
                    u = g_ * lax.rsqrt(r)
                u = u / jnp.maximum(1.0, jnp.sqrt(jnp.mean(u * u)))
                m2 = 0.9 * view(m_) + 0.1 * u
                gap = (u - m2) ** 2 + 1e-16
                if p.ndim > 1:
                    ur = 0.9999 * ur + 1e-4 * gap.mean(1)
                    uc = 0.9999 * uc + 1e-4 * gap.mean(0)
                    step = m2 * inverse_root(ur, uc)
                else:
                    ur = 0.9999 * ur + 1e-4 * gap
                    step = m2 * lax.rsqrt(ur)
                new = p32 - 2e-4 * (step.reshape(p.shape) + 1e-2 * p32)
                return new.astype(p.dtype), m2.reshape(p.shape), (r, c, ur, uc)

            treedef = jax.tree.structure(params)
            out = [per_tensor(p, g_, m_, s) for p, g_, m_, s in zip(
                jax.tree.leaves(params), jax.tree.leaves(g), jax.tree.leaves(m),
                treedef.flatten_up_to(stats))]
            return (treedef.unflatten([o[0] for o in out]),
                    (treedef.unflatten([o[1] for o in out]),
                     treedef.unflatten([o[2] for o in out]), t))
        return came_init, lambda params, grads, state, loss: came(params, grads, state)

    if name == "mars":
        # MARS (its approximate form): a variance-reduced gradient, the gradient plus a
        # scaled difference from the previous step's gradient, clipped to unit global
        # norm, then AdamW moments over it
        def mars(params, grads, state, loss):
            m, v, last, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            c = tm(lambda g_, l_: g_ + 0.025 * (0.95 / 0.05) * (g_ - l_), g, last)
            norm = jnp.sqrt(sum(jnp.sum(a * a) for a in jax.tree.leaves(c)))
            c = tm(lambda a: a / jnp.maximum(norm, 1.0), c)
            m, v = adam_moments(m, v, c, 0.95, 0.99)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - 3e-5) - 3e-3
                       * (m_ / (1.0 - 0.95 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.99 ** n)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, g, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), mars

    if name == "adam_hd":
        # Adam with hypergradient descent on its learning rate: the rate moves by the dot
        # product of this gradient with the previous step's direction
        def adam_hd(params, grads, state, loss):
            m, v, last, rate, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            hyper = sum(jnp.sum(a * b) for a, b in zip(jax.tree.leaves(g), jax.tree.leaves(last)))
            rate = jnp.clip(rate + 1e-7 * hyper, 1e-5, 1e-2)
            m, v = adam_moments(m, v, g)
            u = tm(lambda m_, v_: (m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.999 ** n))
                                                            + 1e-8), m, v)
            moved = tm(lambda p, u_: p.astype(f32) - rate * u_, params, u)
            return recast(params, moved), (m, v, u, rate, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), jnp.full((), 1e-3, f32), count())
                ), adam_hd

    if name == "nero":
        # Nero: per-neuron updates, each output unit stepping by a fixed fraction of its
        # own weight norm scaled by the root of a running mean of its squared gradient
        # norm, then re-centred and projected back to unit norm (vectors step per element)
        def nero_init(params):
            return (tm(lambda p: jnp.zeros(p.shape[-1:] if p.ndim > 1 else p.shape, f32),
                       params), count())

        def nero(params, grads, state, loss):
            v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)

            def per_tensor(p, g_, v_):
                p32 = p.astype(f32)
                axes = _unit_axes(p)
                if axes is None:
                    v_ = 0.999 * v_ + 0.001 * g_ * g_
                    scale = jnp.maximum(jnp.abs(p32), 0.01)
                    return (p32 - 0.01 * scale * g_ / (jnp.sqrt(v_ / (1.0 - 0.999 ** n))
                                                       + 1e-12)).astype(p.dtype), v_
                v_ = 0.999 * v_ + 0.001 * jnp.sum(g_ * g_, axes)
                scale = jnp.maximum(jnp.sqrt(jnp.sum(p32 * p32, axes)), 0.01)
                p32 = p32 - 0.01 * scale * g_ / (jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-12)
                p32 = p32 - jnp.mean(p32, axes, keepdims=True)
                p32 = p32 / (jnp.sqrt(jnp.sum(p32 * p32, axes, keepdims=True)) + 1e-12)
                return p32.astype(p.dtype), v_

            params, v = _unzip(tm(per_tensor, params, g, v), params, 2)
            return params, (v, t)
        return nero_init, nero

    if name == "adapnm":
        # AdaPNM: positive-negative momentum (two momenta updated on alternate steps, the
        # current one pushed forward and the other subtracted, renormalized) over an
        # AMSGrad second moment, with decoupled weight decay
        beta0, beta1 = 1.0, 0.9
        noise = math.sqrt((1.0 + beta0) ** 2 + beta0 ** 2)

        def adapnm(params, grads, state, loss):
            even, odd, v, v_max, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            is_odd = (t % 2) == 1
            update = lambda m_, g_: beta1 ** 2 * m_ + (1.0 - beta1 ** 2) * g_
            odd = tm(lambda m_, g_: jnp.where(is_odd, update(m_, g_), m_), odd, g)
            even = tm(lambda m_, g_: jnp.where(is_odd, m_, update(m_, g_)), even, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            v_max = tm(jnp.maximum, v_max, v)

            def move(p, e, o, w):
                p32 = p.astype(f32)
                now, other = jnp.where(is_odd, o, e), jnp.where(is_odd, e, o)
                mix = ((1.0 + beta0) * now - beta0 * other) / noise / (1.0 - beta1 ** n)
                return p32 * (1.0 - 1e-5) - 1e-3 * mix / (jnp.sqrt(w / (1.0 - 0.999 ** n))
                                                          + 1e-8)
            return recast(params, tm(move, params, even, odd, v_max)), (even, odd, v, v_max, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), zeros(p), count())), adapnm

    raise ValueError(name)


def _train(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    """One training step (loss, gradients, the named update) lowered for `batch`."""
    import jax

    init, update = _update_rule(rule)

    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state, loss)
        return params, state, loss

    return jax.jit(step).lower(params, init(params), *batch)


def _layer_norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """Normalization over `axes` with float32 statistics, returned in x's dtype (batch
    norm with batch statistics when `axes` are all axes but the channels)."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = x32.mean(axes, keepdims=True)
    var = jnp.square(x32 - mean).mean(axes, keepdims=True)
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * gain + shift).astype(x.dtype)


def _batch_norm(x: Any, gain: Any, shift: Any) -> Any:
    """Batch normalization with the batch's own statistics over every axis but the last."""
    return _layer_norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _group_norm(x: Any, gain: Any, shift: Any, groups: int) -> Any:
    """Group normalization of NHWC x over (H, W, channels of a group), float32 statistics."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    g = x32.reshape(x.shape[:-1] + (groups, x.shape[-1] // groups))
    mean = g.mean((1, 2, 4), keepdims=True)
    var = jnp.square(g - mean).mean((1, 2, 4), keepdims=True)
    out = ((g - mean) * lax.rsqrt(var + 1e-5)).reshape(x.shape) * gain + shift
    return out.astype(x.dtype)


def _rms_norm(x: Any, gain: Any) -> Any:
    """RMS normalization over the last axis in float32, returned in x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    scale = lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-6)
    return (x32 * scale * gain.astype(jnp.float32)).astype(x.dtype)


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean softmax cross-entropy of integer labels, computed in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1).mean()


def _conv(x: Any, w: Any, stride: int = 1, groups: int = 1, padding: Any = "SAME") -> Any:
    """A 2-D NHWC convolution."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), padding, dimension_numbers=_NHWC,
                                    feature_group_count=groups)


def _smooth_images(rng: Any, count: int, side: int, channels: int, width: float) -> Any:
    """`count` random images of low-pass filtered noise (a Gaussian of `width` cycles per
    image in frequency), each scaled to unit standard deviation; numpy, float32."""
    import numpy as np

    k = np.fft.fftfreq(side) * side
    lowpass = np.exp(-(k[:, None] ** 2 + k[None, :] ** 2) / (2 * width ** 2))
    noise = rng.standard_normal((count, channels, side, side))
    out = np.real(np.fft.ifft2(np.fft.fft2(noise) * lowpass)).transpose(0, 2, 3, 1)
    out /= out.std((1, 2, 3), keepdims=True) + 1e-6
    return out.astype(np.float32)


def convnext_classifier(batch: int = 32, side: int = 64, widths: tuple[int, ...] = (48, 96, 192),
                        depths: tuple[int, ...] = (2, 2, 2), classes: int = 100) -> Any:
    """A ConvNeXt image classifier: a 4x4 stride-4 patchify stem, stages of ConvNeXt
    blocks (a depthwise 7x7 convolution, layer norm over channels, a 4x inverted
    bottleneck of pointwise projections with GELU, a learned per-channel layer scale and
    stochastic depth dropping whole residual branches per sample), layer norm and a 2x2
    stride-2 convolution between stages, global average pooling and a head; label-smoothed
    cross-entropy; AdamP."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {
        "stem": (4, 4, 3, widths[0]), "stem_b": (widths[0],),
        "stem_norm_g": (widths[0],), "stem_norm_b": (widths[0],)}
    blocks = []
    for s, (w, d) in enumerate(zip(widths, depths)):
        if s:
            shapes.update({f"down{s}_norm_g": (widths[s - 1],),
                           f"down{s}_norm_b": (widths[s - 1],),
                           f"down{s}": (2, 2, widths[s - 1], w), f"down{s}_b": (w,)})
        for i in range(d):
            k = f"s{s}b{i}"
            blocks.append((s, k))
            shapes.update({f"{k}_dw": (7, 7, 1, w), f"{k}_dw_b": (w,), f"{k}_norm_g": (w,),
                           f"{k}_norm_b": (w,), f"{k}_up": (w, 4 * w), f"{k}_up_b": (4 * w,),
                           f"{k}_down": (4 * w, w), f"{k}_down_b": (w,)})
    shapes.update({"head_norm_g": (widths[-1],), "head_norm_b": (widths[-1],),
                   "head": (widths[-1], classes), "head_b": (classes,)})
    p = _params(shapes, seed=1)
    for s, k in blocks:
        p[f"{k}_scale"] = jnp.full((widths[s],), 0.1, jnp.float32)
    drop = np.linspace(0.0, 0.1, len(blocks))

    def loss_fn(p, images, labels, key):
        x = _conv(images, p["stem"], 4) + p["stem_b"]
        x = _layer_norm(x, p["stem_norm_g"], p["stem_norm_b"])
        stage = 0
        for index, (s, k) in enumerate(blocks):
            if s != stage:
                stage = s
                x = _layer_norm(x, p[f"down{s}_norm_g"], p[f"down{s}_norm_b"])
                x = _conv(x, p[f"down{s}"], 2) + p[f"down{s}_b"]
            h = _conv(x, p[f"{k}_dw"], 1, x.shape[-1]) + p[f"{k}_dw_b"]
            h = _layer_norm(h, p[f"{k}_norm_g"], p[f"{k}_norm_b"])
            h = jax.nn.gelu(h @ p[f"{k}_up"] + p[f"{k}_up_b"]) @ p[f"{k}_down"] + p[f"{k}_down_b"]
            h = h * p[f"{k}_scale"]
            rate = float(drop[index])
            if rate > 0:
                keep = jax.random.bernoulli(jax.random.fold_in(key, index), 1.0 - rate,
                                            (x.shape[0], 1, 1, 1))
                h = h * keep / (1.0 - rate)
            x = x + h
        pooled = _layer_norm(x.mean((1, 2)), p["head_norm_g"], p["head_norm_b"])
        logp = jax.nn.log_softmax(pooled @ p["head"] + p["head_b"], -1)
        nll = -jnp.take_along_axis(logp, labels[:, None], -1).mean()
        return 0.9 * nll - 0.1 * logp.mean()

    rng = np.random.default_rng(1)
    labels = rng.integers(0, classes, batch)
    colours = rng.standard_normal((classes, 3))
    images = _smooth_images(rng, batch, side, 3, 6.0) + 0.5 * colours[labels][:, None, None]
    return _train("adamp", loss_fn, p, jnp.asarray(images), jnp.asarray(labels, jnp.int32),
                  jax.random.PRNGKey(1))


def longformer_tagger(batch: int = 4, seq: int = 1024, width: int = 128, heads: int = 4,
                      window: int = 64, n_global: int = 16, layers: int = 2, vocab: int = 4096,
                      tags: int = 16, classes: int = 8) -> Any:
    """A Longformer encoder in bfloat16 that tags every token and classifies the document
    from its first token: each layer's local attention splits the sequence into chunks of
    `window` queries that see the keys of their own and both neighbouring chunks (a
    banded mask of half-width `window`), plus the first `n_global` tokens, which every
    token attends to and which attend to the whole sequence through their own global
    query, key and value projections; softmax in float32; LaProp."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    d = width // heads
    chunks = seq // window
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "position": (seq, width)}
    for l in range(layers):
        shapes.update({f"l{l}_norm1_g": (width,), f"l{l}_norm1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_global_qkv": (width, 3 * width),
                       f"l{l}_out": (width, width), f"l{l}_norm2_g": (width,),
                       f"l{l}_norm2_b": (width,), f"l{l}_ff1": (width, 4 * width),
                       f"l{l}_ff1_b": (4 * width,), f"l{l}_ff2": (4 * width, width),
                       f"l{l}_ff2_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,), "tag": (width, tags),
                   "tag_b": (tags,), "cls": (width, classes), "cls_b": (classes,)})
    p = _params(shapes, seed=2, dtype=jnp.bfloat16)

    q_pos = np.arange(chunks)[:, None, None] * window + np.arange(window)[None, :, None]
    k_pos = (np.arange(chunks)[:, None, None] * window - window
             + np.arange(3 * window)[None, None, :])
    local_ok = jnp.asarray((np.abs(k_pos - q_pos) <= window) & (k_pos >= n_global)
                           & (k_pos < seq))                                # (c, w, 3w)

    def attend(p, l, x):
        b = x.shape[0]
        q, k, v = (a.reshape(b, seq, heads, d) for a in jnp.split(x @ p[f"l{l}_qkv"], 3, -1))
        qc = q.reshape(b, chunks, window, heads, d)

        def bands(a):
            a = jnp.pad(a, ((0, 0), (window, window), (0, 0), (0, 0)))
            return jnp.concatenate([a[:, i * window:i * window + seq].reshape(
                b, chunks, window, heads, d) for i in range(3)], 2)        # (b, c, 3w, h, d)

        kc, vc = bands(k), bands(v)
        local = jnp.einsum("bcqhd,bckhd->bhcqk", qc, kc).astype(jnp.float32) / math.sqrt(d)
        local = jnp.where(local_ok, local, -1e9)
        to_global = jnp.einsum("bcqhd,bghd->bhcqg", qc, k[:, :n_global]).astype(jnp.float32)
        weights = jax.nn.softmax(jnp.concatenate([to_global / math.sqrt(d), local], -1), -1)
        weights = weights.astype(x.dtype)
        out = (jnp.einsum("bhcqg,bghd->bcqhd", weights[..., :n_global], v[:, :n_global])
               + jnp.einsum("bhcqk,bckhd->bcqhd", weights[..., n_global:], vc))
        out = out.reshape(b, seq, heads, d)
        gq, gk, gv = jnp.split(x @ p[f"l{l}_global_qkv"], 3, -1)
        gq = gq[:, :n_global].reshape(b, n_global, heads, d)
        gk, gv = gk.reshape(b, seq, heads, d), gv.reshape(b, seq, heads, d)
        scores = jnp.einsum("bqhd,bkhd->bhqk", gq, gk).astype(jnp.float32) / math.sqrt(d)
        g_out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1).astype(x.dtype), gv)
        out = jnp.concatenate([g_out, out[:, n_global:]], 1)
        return out.reshape(b, seq, width) @ p[f"l{l}_out"]

    def loss_fn(p, tokens, token_tags, label):
        x = p["embed"][tokens] + p["position"]
        for l in range(layers):
            x = x + attend(p, l, _layer_norm(x, p[f"l{l}_norm1_g"], p[f"l{l}_norm1_b"]))
            h = _layer_norm(x, p[f"l{l}_norm2_g"], p[f"l{l}_norm2_b"])
            x = x + (jax.nn.gelu(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"]) @ p[f"l{l}_ff2"]
                     + p[f"l{l}_ff2_b"])
        x = _layer_norm(x, p["final_g"], p["final_b"])
        return (_cross_entropy(x @ p["tag"] + p["tag_b"], token_tags)
                + _cross_entropy(x[:, 0] @ p["cls"] + p["cls_b"], label))

    rng = np.random.default_rng(2)
    tokens = rng.integers(0, vocab, (batch, seq))
    token_tags = (tokens + np.roll(tokens, 1, 1) // 7) % tags
    label = tokens[:, 1:n_global].sum(1) % classes
    return _train("laprop", loss_fn, p, jnp.asarray(tokens, jnp.int32),
                  jnp.asarray(token_tags, jnp.int32), jnp.asarray(label, jnp.int32))


def retnet_lm(batch: int = 4, seq: int = 512, width: int = 128, heads: int = 4,
              layers: int = 2, vocab: int = 2048) -> Any:
    """A RetNet language model in its parallel form: multi-scale retention replaces
    softmax attention, rotary-rotated queries and keys are scored against a causal decay
    matrix gamma^(n-m) with one gamma per head (rows normalized by their root sums, then
    by the larger of one and their absolute sums), followed by per-head group norm, a
    swish output gate and a GELU feed-forward layer, RMS norms before each; next-token
    cross-entropy; ADOPT."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    d = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width)}
    for l in range(layers):
        shapes.update({f"l{l}_norm1_g": (width,), f"l{l}_q": (width, width),
                       f"l{l}_k": (width, width), f"l{l}_v": (width, width),
                       f"l{l}_gate": (width, width), f"l{l}_out": (width, width),
                       f"l{l}_gn_g": (heads, d), f"l{l}_gn_b": (heads, d),
                       f"l{l}_norm2_g": (width,), f"l{l}_ff1": (width, 2 * width),
                       f"l{l}_ff1_b": (2 * width,), f"l{l}_ff2": (2 * width, width),
                       f"l{l}_ff2_b": (width,)})
    shapes.update({"final_g": (width,), "head": (width, vocab)})
    p = _params(shapes, seed=3)

    gammas = 1.0 - 2.0 ** (-5.0 - np.arange(heads))
    n = np.arange(seq)
    gap = n[:, None] - n[None, :]
    decay = np.where(gap >= 0, gammas[:, None, None] ** np.maximum(gap, 0), 0.0)
    decay = jnp.asarray(decay / np.sqrt(decay.sum(-1, keepdims=True)), jnp.float32)
    angles = n[:, None] * 10000.0 ** (-np.arange(d // 2) / (d // 2))
    cos = jnp.asarray(np.cos(angles)[:, None], jnp.float32)
    sin = jnp.asarray(np.sin(angles)[:, None], jnp.float32)

    def rotate(a):
        a1, a2 = jnp.split(a, 2, -1)
        return jnp.concatenate([a1 * cos - a2 * sin, a1 * sin + a2 * cos], -1)

    def retention(p, l, x):
        b = x.shape[0]
        q, k, v = (x @ p[f"l{l}_{n}"] for n in "qkv")
        q, k, v = (a.reshape(b, seq, heads, d) for a in (q, k, v))
        scores = jnp.einsum("bqhd,bkhd->bhqk", rotate(q), rotate(k)) / math.sqrt(d) * decay
        scores = scores / jnp.maximum(jnp.abs(scores.sum(-1, keepdims=True)), 1.0)
        y = jnp.einsum("bhqk,bkhd->bqhd", scores, v)
        y = _layer_norm(y, p[f"l{l}_gn_g"], p[f"l{l}_gn_b"]).reshape(b, seq, width)
        return (jax.nn.silu(x @ p[f"l{l}_gate"]) * y) @ p[f"l{l}_out"]

    def loss_fn(p, tokens):
        x = p["embed"][tokens[:, :-1]] * math.sqrt(width)
        for l in range(layers):
            x = x + retention(p, l, _rms_norm(x, p[f"l{l}_norm1_g"]))
            h = _rms_norm(x, p[f"l{l}_norm2_g"])
            x = x + (jax.nn.gelu(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"]) @ p[f"l{l}_ff2"]
                     + p[f"l{l}_ff2_b"])
        return _cross_entropy(_rms_norm(x, p["final_g"]) @ p["head"], tokens[:, 1:])

    rng = np.random.default_rng(3)
    # a sparse random Markov chain over the vocabulary: each token has 8 likely successors
    successors = rng.integers(0, vocab, (vocab, 8))
    tokens = np.zeros((batch, seq + 1), np.int64)
    tokens[:, 0] = rng.integers(0, vocab, batch)
    choice = rng.integers(0, 8, (batch, seq))
    for t in range(seq):
        tokens[:, t + 1] = successors[tokens[:, t], choice[:, t]]
    return _train("adopt", loss_fn, p, jnp.asarray(tokens, jnp.int32))


def mlstm_lm(batch: int = 8, seq: int = 128, width: int = 256, heads: int = 4, blocks: int = 2,
             vocab: int = 2048, kernel: int = 4) -> Any:
    """An xLSTM language model of mLSTM blocks: layer norm, an up-projection split into a
    cell branch and a gate branch, a causal depthwise 1-D convolution with SiLU feeding
    the queries, keys and the exponential input and sigmoid forget gates, then the
    matrix-memory LSTM under `lax.scan` over the tokens (a d x d memory and a normalizer
    per head, gates stabilized by a running maximum in log space, the read-out divided by
    the larger of |n.q| and exp(-m)), per-head layer norm, a learnable skip, the SiLU
    gate and a down-projection; tied embeddings; next-token cross-entropy; Padam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    inner = width
    d = inner // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width)}
    for i in range(blocks):
        k = f"b{i}"
        shapes.update({f"{k}_norm_g": (width,), f"{k}_norm_b": (width,),
                       f"{k}_up": (width, 2 * inner), f"{k}_conv": (kernel, 1, inner),
                       f"{k}_conv_b": (inner,), f"{k}_q": (inner, inner), f"{k}_k": (inner, inner),
                       f"{k}_v": (inner, inner), f"{k}_gates": (inner, 2 * heads),
                       f"{k}_gates_b": (2 * heads,), f"{k}_skip_g": (inner,),
                       f"{k}_hnorm_g": (heads, d), f"{k}_hnorm_b": (heads, d),
                       f"{k}_down": (inner, width)})
    shapes.update({"final_g": (width,), "final_b": (width,)})
    p = _params(shapes, seed=4)

    def cell(carry, inputs):
        c, norm, m = carry                                   # (B,H,d,d), (B,H,d), (B,H)
        q, k, v, i_pre, f_pre = inputs
        log_f = jax.nn.log_sigmoid(f_pre)
        m_new = jnp.maximum(log_f + m, i_pre)
        i_gate = jnp.exp(i_pre - m_new)
        f_gate = jnp.exp(log_f + m - m_new)
        c = (f_gate[..., None, None] * c
             + i_gate[..., None, None] * v[..., :, None] * k[..., None, :])
        norm = f_gate[..., None] * norm + i_gate[..., None] * k
        read = jnp.einsum("bhij,bhj->bhi", c, q)
        scale = jnp.maximum(jnp.abs(jnp.sum(norm * q, -1)), jnp.exp(-m_new))
        return (c, norm, m_new), read / scale[..., None]

    def block(p, k, x):
        b = x.shape[0]
        a, z = jnp.split(_layer_norm(x, p[f"{k}_norm_g"], p[f"{k}_norm_b"]) @ p[f"{k}_up"], 2, -1)
        conv = lax.conv_general_dilated(a, p[f"{k}_conv"], (1,), [(kernel - 1, 0)],
                                        dimension_numbers=_NWC, feature_group_count=inner)
        ca = jax.nn.silu(conv + p[f"{k}_conv_b"])
        q = (ca @ p[f"{k}_q"]).reshape(b, seq, heads, d)
        kk = (ca @ p[f"{k}_k"]).reshape(b, seq, heads, d) / math.sqrt(d)
        v = (a @ p[f"{k}_v"]).reshape(b, seq, heads, d)
        i_pre, f_pre = jnp.split(ca @ p[f"{k}_gates"] + p[f"{k}_gates_b"], 2, -1)
        inputs = tuple(jnp.swapaxes(t, 0, 1) for t in (q, kk, v, i_pre, f_pre + 3.0))
        carry = (jnp.zeros((b, heads, d, d)), jnp.zeros((b, heads, d)), jnp.zeros((b, heads)))
        _, h = lax.scan(cell, carry, inputs)
        h = _layer_norm(jnp.swapaxes(h, 0, 1), p[f"{k}_hnorm_g"], p[f"{k}_hnorm_b"])
        h = h.reshape(b, seq, inner) + p[f"{k}_skip_g"] * ca
        return x + (h * jax.nn.silu(z)) @ p[f"{k}_down"]

    def loss_fn(p, tokens):
        x = p["embed"][tokens[:, :-1]]
        for i in range(blocks):
            x = block(p, f"b{i}", x)
        x = _layer_norm(x, p["final_g"], p["final_b"])
        return _cross_entropy(x @ p["embed"].T, tokens[:, 1:])

    rng = np.random.default_rng(4)
    # copy-structured sequences: a random prefix repeated with occasional substitutions
    prefix = rng.integers(0, vocab, (batch, 32))
    tokens = np.tile(prefix, (1, (seq + 1) // 32 + 1))[:, :seq + 1]
    swap = rng.uniform(size=tokens.shape) < 0.1
    tokens = np.where(swap, rng.integers(0, vocab, tokens.shape), tokens)
    return _train("padam", loss_fn, p, jnp.asarray(tokens, jnp.int32))


def gin_graph_classifier(graphs: int = 256, nodes: int = 32, degree: int = 4, features: int = 32,
                         hidden: int = 128, layers: int = 5, classes: int = 8) -> Any:
    """A graph isomorphism network classifying a batch of small graphs packed into one
    node table: each layer sums neighbour features over a directed edge list by a gather
    and `segment_sum`, adds (1 + eps) times the node's own features with a learned eps,
    and applies a two-layer MLP with batch norm over all nodes; every layer's node
    features (and the input's) are sum-pooled per graph by `segment_sum` and read out
    into class logits that are added up; cross-entropy; the stochastic Polyak step."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    total = graphs * nodes
    shapes: dict[str, tuple[int, ...]] = {"input": (features, hidden), "read_in": (hidden, classes)}
    for l in range(layers):
        shapes.update({f"eps{l}_b": (1,), f"mlp{l}a": (hidden, hidden), f"bn{l}a_g": (hidden,),
                       f"bn{l}a_b": (hidden,), f"mlp{l}b": (hidden, hidden),
                       f"bn{l}b_g": (hidden,), f"bn{l}b_b": (hidden,),
                       f"read{l}": (hidden, classes), f"read{l}_b": (classes,)})
    p = _params(shapes, seed=5)

    def loss_fn(p, x, src, dst, graph, labels):
        h = x @ p["input"]
        logits = jax.ops.segment_sum(h, graph, graphs, indices_are_sorted=True) @ p["read_in"]
        for l in range(layers):
            agg = jax.ops.segment_sum(h[src], dst, total)
            z = (1.0 + p[f"eps{l}_b"]) * h + agg
            z = jax.nn.relu(_batch_norm(z @ p[f"mlp{l}a"], p[f"bn{l}a_g"], p[f"bn{l}a_b"]))
            h = jax.nn.relu(_batch_norm(z @ p[f"mlp{l}b"], p[f"bn{l}b_g"], p[f"bn{l}b_b"]))
            pooled = jax.ops.segment_sum(h, graph, graphs, indices_are_sorted=True)
            logits = logits + pooled @ p[f"read{l}"] + p[f"read{l}_b"]
        return _cross_entropy(logits, labels)

    rng = np.random.default_rng(5)
    labels = rng.integers(0, classes, graphs)
    base = np.arange(graphs)[:, None] * nodes
    local = np.arange(nodes)
    # a ring whose stride depends on the class, plus random chords
    ring_dst = (local[None, :] + 1 + labels[:, None]) % nodes
    chords = rng.integers(0, nodes, (graphs, nodes, degree - 1))
    src = np.concatenate([np.broadcast_to(local, (graphs, nodes))[..., None],
                          np.broadcast_to(local[None, :, None], (graphs, nodes, degree - 1))], -1)
    dst = np.concatenate([ring_dst[..., None], chords], -1)
    src, dst = (src + base[..., None]).ravel(), (dst + base[..., None]).ravel()
    src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    x = rng.standard_normal((total, features)) * 0.5 + 1.0
    graph = np.repeat(np.arange(graphs), nodes)
    return _train("sps", loss_fn, p, jnp.asarray(x, jnp.float32), jnp.asarray(src, jnp.int32),
                  jnp.asarray(dst, jnp.int32), jnp.asarray(graph, jnp.int32),
                  jnp.asarray(labels, jnp.int32))


def flow_matching_unet(batch: int = 8, side: int = 32, widths: tuple[int, int] = (32, 64),
                       classes: int = 10, embed: int = 128, groups: int = 8) -> Any:
    """Conditional flow matching (a rectified flow) in bfloat16: clean images and
    Gaussian noise are mixed at times drawn from a logit-normal distribution, and a small
    U-Net regresses the straight-line velocity from noise to image; the network embeds
    the time sinusoidally through an MLP and adds a class embedding (the class dropped to
    a null row one time in ten, for classifier-free guidance), and its residual blocks
    (group norm, SiLU, 3x3 convolutions) take the embedding as a scale and shift; strided
    convolutions go down, nearest-neighbour repeats and skip concatenations come back up,
    and one self-attention block sits at 8x8; mean squared error in float32; CAME."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    c0, c1 = widths
    bf16 = jnp.bfloat16

    def res_shapes(k, cin, cout):
        out = {f"{k}_n1_g": (cin,), f"{k}_n1_b": (cin,), f"{k}_c1": (3, 3, cin, cout),
               f"{k}_c1_b": (cout,), f"{k}_emb": (embed, 2 * cout), f"{k}_emb_b": (2 * cout,),
               f"{k}_n2_g": (cout,), f"{k}_n2_b": (cout,), f"{k}_c2": (3, 3, cout, cout),
               f"{k}_c2_b": (cout,)}
        if cin != cout:
            out[f"{k}_skip"] = (1, 1, cin, cout)
        return out

    shapes: dict[str, tuple[int, ...]] = {
        "t1": (embed, embed), "t1_b": (embed,), "t2": (embed, embed), "t2_b": (embed,),
        "label_embed": (classes + 1, embed), "in": (3, 3, 3, c0), "in_b": (c0,),
        **res_shapes("d0", c0, c0), "down0": (3, 3, c0, c1), "down0_b": (c1,),
        **res_shapes("d1", c1, c1), "down1": (3, 3, c1, c1), "down1_b": (c1,),
        **res_shapes("m0", c1, c1), "attn_n_g": (c1,), "attn_n_b": (c1,),
        "qkv": (c1, 3 * c1), "attn_out": (c1, c1), **res_shapes("m1", c1, c1),
        **res_shapes("u1", 2 * c1, c1), **res_shapes("u0", c1 + c0, c0),
        "out_n_g": (c0,), "out_n_b": (c0,), "out": (3, 3, c0, 3), "out_b": (3,)}
    p = _params(shapes, seed=6, dtype=bf16)

    def resblock(p, k, x, emb):
        h = _conv(jax.nn.silu(_group_norm(x, p[f"{k}_n1_g"], p[f"{k}_n1_b"], groups)),
                  p[f"{k}_c1"]) + p[f"{k}_c1_b"]
        scale, shift = jnp.split(jax.nn.silu(emb) @ p[f"{k}_emb"] + p[f"{k}_emb_b"], 2, -1)
        h = (_group_norm(h, p[f"{k}_n2_g"], p[f"{k}_n2_b"], groups) * (1 + scale[:, None, None])
             + shift[:, None, None])
        h = _conv(jax.nn.silu(h), p[f"{k}_c2"]) + p[f"{k}_c2_b"]
        skip = _conv(x, p[f"{k}_skip"]) if f"{k}_skip" in p else x
        return skip + h

    def attention(p, x):
        b, hh, ww, c = x.shape
        h = _group_norm(x, p["attn_n_g"], p["attn_n_b"], groups).reshape(b, hh * ww, c)
        q, k, v = (a.reshape(b, hh * ww, 4, c // 4) for a in jnp.split(h @ p["qkv"], 3, -1))
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / math.sqrt(c // 4)
        out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1).astype(x.dtype), v)
        return x + (out.reshape(b, hh * ww, c) @ p["attn_out"]).reshape(x.shape)

    def up(x):
        return jnp.repeat(jnp.repeat(x, 2, 1), 2, 2)

    def net(p, x, t, labels):
        half = embed // 2
        freqs = jnp.exp(-math.log(10000.0) * jnp.arange(half) / half)
        args = 1000.0 * t[:, None] * freqs
        emb = jnp.concatenate([jnp.sin(args), jnp.cos(args)], -1).astype(bf16)
        emb = jax.nn.silu(emb @ p["t1"] + p["t1_b"]) @ p["t2"] + p["t2_b"]
        emb = emb + p["label_embed"][labels]
        h0 = resblock(p, "d0", _conv(x, p["in"]) + p["in_b"], emb)
        h1 = resblock(p, "d1", _conv(h0, p["down0"], 2) + p["down0_b"], emb)
        m = resblock(p, "m0", _conv(h1, p["down1"], 2) + p["down1_b"], emb)
        m = resblock(p, "m1", attention(p, m), emb)
        u = resblock(p, "u1", jnp.concatenate([up(m), h1], -1), emb)
        u = resblock(p, "u0", jnp.concatenate([up(u), h0], -1), emb)
        u = jax.nn.silu(_group_norm(u, p["out_n_g"], p["out_n_b"], groups))
        return _conv(u, p["out"]) + p["out_b"]

    def loss_fn(p, images, labels, key):
        k1, k2, k3 = jax.random.split(key, 3)
        noise = jax.random.normal(k1, images.shape, jnp.float32)
        t = jax.nn.sigmoid(jax.random.normal(k2, (images.shape[0],)))
        labels = jnp.where(jax.random.bernoulli(k3, 0.1, labels.shape), classes, labels)
        x1 = images.astype(jnp.float32)
        xt = (1.0 - t[:, None, None, None]) * noise + t[:, None, None, None] * x1
        pred = net(p, xt.astype(bf16), t, labels).astype(jnp.float32)
        return jnp.mean(jnp.square(pred - (x1 - noise)))

    rng = np.random.default_rng(6)
    labels = rng.integers(0, classes, batch)
    images = _smooth_images(rng, batch, side, 3, 3.0)
    images = np.tanh(images + 0.3 * rng.standard_normal((classes, 3))[labels][:, None, None])
    return _train("came", loss_fn, p, jnp.asarray(images, bf16), jnp.asarray(labels, jnp.int32),
                  jax.random.PRNGKey(6))


def vicreg_pretrain(batch: int = 64, side: int = 32, crop: int = 24,
                    widths: tuple[int, ...] = (32, 64, 128), expander: int = 512) -> Any:
    """VICReg self-supervised pretraining: two views of each image are made inside the
    step (random crops by per-sample `dynamic_slice`, random horizontal flips, brightness
    and contrast jitter, random greying), encoded by a small CNN with batch norm and
    strided convolutions, average-pooled and mapped by a three-layer expander; the loss
    weighs the views' mean squared difference, a hinge on each embedding dimension's
    standard deviation and the squared off-diagonal covariances; MARS."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    w0, w1, w2 = widths
    shapes: dict[str, tuple[int, ...]] = {
        "c1": (3, 3, 3, w0), "bn1_g": (w0,), "bn1_b": (w0,),
        "c2": (3, 3, w0, w1), "bn2_g": (w1,), "bn2_b": (w1,),
        "c3": (3, 3, w1, w2), "bn3_g": (w2,), "bn3_b": (w2,),
        "c4": (3, 3, w2, w2), "bn4_g": (w2,), "bn4_b": (w2,),
        "e1": (w2, expander), "en1_g": (expander,), "en1_b": (expander,),
        "e2": (expander, expander), "en2_g": (expander,), "en2_b": (expander,),
        "e3": (expander, expander), "e3_b": (expander,)}
    p = _params(shapes, seed=7)

    def view(images, key):
        k1, k2, k3, k4, k5 = jax.random.split(key, 5)
        offsets = jax.random.randint(k1, (batch, 2), 0, side - crop + 1)
        crops = jax.vmap(lambda im, o: lax.dynamic_slice(im, (o[0], o[1], 0), (crop, crop, 3)))(
            images, offsets)
        crops = jnp.where(jax.random.bernoulli(k2, 0.5, (batch, 1, 1, 1)), crops[:, :, ::-1],
                          crops)
        bright = jax.random.uniform(k3, (batch, 1, 1, 1), minval=0.6, maxval=1.4)
        contrast = jax.random.uniform(k4, (batch, 1, 1, 1), minval=0.6, maxval=1.4)
        mean = crops.mean((1, 2, 3), keepdims=True)
        crops = (crops - mean) * contrast + mean * bright
        grey = jnp.broadcast_to(crops.mean(-1, keepdims=True), crops.shape)
        return jnp.where(jax.random.bernoulli(k5, 0.2, (batch, 1, 1, 1)), grey, crops)

    def embed(p, x):
        x = jax.nn.relu(_batch_norm(_conv(x, p["c1"]), p["bn1_g"], p["bn1_b"]))
        x = jax.nn.relu(_batch_norm(_conv(x, p["c2"], 2), p["bn2_g"], p["bn2_b"]))
        x = jax.nn.relu(_batch_norm(_conv(x, p["c3"], 2), p["bn3_g"], p["bn3_b"]))
        x = jax.nn.relu(_batch_norm(_conv(x, p["c4"]), p["bn4_g"], p["bn4_b"])).mean((1, 2))
        x = jax.nn.relu(_batch_norm(x @ p["e1"], p["en1_g"], p["en1_b"]))
        x = jax.nn.relu(_batch_norm(x @ p["e2"], p["en2_g"], p["en2_b"]))
        return x @ p["e3"] + p["e3_b"]

    def variance_covariance(z):
        z = z - z.mean(0)
        std = jnp.sqrt(z.var(0) + 1e-4)
        cov = z.T @ z / (z.shape[0] - 1)
        off = jnp.sum(cov * cov) - jnp.sum(jnp.diagonal(cov) ** 2)
        return jnp.mean(jax.nn.relu(1.0 - std)), off / z.shape[1]

    def loss_fn(p, images, key):
        z1 = embed(p, view(images, jax.random.fold_in(key, 1)))
        z2 = embed(p, view(images, jax.random.fold_in(key, 2)))
        v1, c1 = variance_covariance(z1)
        v2, c2 = variance_covariance(z2)
        return 25.0 * jnp.mean(jnp.square(z1 - z2)) + 25.0 * (v1 + v2) + c1 + c2

    images = _smooth_images(np.random.default_rng(7), batch, side, 3, 5.0)
    return _train("mars", loss_fn, p, jnp.asarray(images), jax.random.PRNGKey(7))


def protonet_episode(ways: int = 20, shots: int = 5, queries: int = 5, side: int = 28,
                     width: int = 32) -> Any:
    """A prototypical network trained on one few-shot episode: a four-block CNN (3x3
    convolution, batch norm over support and queries together, ReLU, 2x2 max pooling)
    embeds the support and query images, each class prototype is the mean of its shots'
    embeddings by `segment_sum`, and queries are classified by a softmax over negative
    squared Euclidean distances to the prototypes; Adam with hypergradient descent on
    its learning rate."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {}
    cin = 1
    for i in range(4):
        shapes.update({f"c{i}": (3, 3, cin, width), f"c{i}_b": (width,), f"bn{i}_g": (width,),
                       f"bn{i}_b": (width,)})
        cin = width
    p = _params(shapes, seed=8)

    def encode(p, x):
        for i in range(4):
            x = _conv(x, p[f"c{i}"]) + p[f"c{i}_b"]
            x = jax.nn.relu(_batch_norm(x, p[f"bn{i}_g"], p[f"bn{i}_b"]))
            x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return x.reshape(x.shape[0], -1)

    def loss_fn(p, support, support_labels, query, query_labels):
        emb = encode(p, jnp.concatenate([support, query]))
        s, q = emb[:ways * shots], emb[ways * shots:]
        prototypes = jax.ops.segment_sum(s, support_labels, ways) / shots
        dist = (jnp.sum(q * q, -1, keepdims=True) - 2.0 * q @ prototypes.T
                + jnp.sum(prototypes * prototypes, -1))
        return _cross_entropy(-dist, query_labels)

    rng = np.random.default_rng(8)
    templates = (_smooth_images(rng, ways, side, 1, 2.5) > 0.8).astype(np.float32)

    def draw(count):
        labels = np.repeat(np.arange(ways), count)
        shifts = rng.integers(-2, 3, (labels.size, 2))
        images = np.stack([np.roll(templates[c], tuple(s), (0, 1))
                           for c, s in zip(labels, shifts)])
        return images + 0.3 * rng.standard_normal(images.shape).astype(np.float32), labels

    support, support_labels = draw(shots)
    query, query_labels = draw(queries)
    return _train("adam_hd", loss_fn, p, jnp.asarray(support, jnp.float32),
                  jnp.asarray(support_labels, jnp.int32), jnp.asarray(query, jnp.float32),
                  jnp.asarray(query_labels, jnp.int32))


def octave_resnet(batch: int = 16, side: int = 32, widths: tuple[int, ...] = (32, 64, 128),
                  classes: int = 10, alpha: float = 0.5) -> Any:
    """A residual CNN of octave convolutions: every feature map is split into a
    high-frequency part at full resolution and a low-frequency part (a fraction `alpha`
    of the channels) at half resolution, and each octave convolution mixes the four
    paths (high to high, high average-pooled to low, low to high then upsampled by a
    nearest-neighbour repeat, low to low), each branch batch-normed; the stem sees only
    the image as its high part, stages pool both parts by two, and a last convolution
    merges back to one full-resolution map before global pooling; cross-entropy; Nero."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def split(w):
        low = int(w * alpha)
        return w - low, low

    convs: list[tuple[str, int, int, bool]] = [("stem", 3, widths[0], False)]
    for s, w in enumerate(widths):
        if s:
            convs.append((f"t{s}", widths[s - 1], w, True))
        convs += [(f"s{s}a", w, w, True), (f"s{s}b", w, w, True)]
    shapes: dict[str, tuple[int, ...]] = {}
    for k, cin, cout, has_low in convs:
        hi_in, lo_in = split(cin) if has_low else (cin, 0)
        hi_out, lo_out = split(cout)
        shapes.update({f"{k}_hh": (3, 3, hi_in, hi_out), f"{k}_hl": (3, 3, hi_in, lo_out),
                       f"{k}_bnh_g": (hi_out,), f"{k}_bnh_b": (hi_out,),
                       f"{k}_bnl_g": (lo_out,), f"{k}_bnl_b": (lo_out,)})
        if has_low:
            shapes.update({f"{k}_lh": (3, 3, lo_in, hi_out), f"{k}_ll": (3, 3, lo_in, lo_out)})
    hi, lo = split(widths[-1])
    shapes.update({"merge_hh": (3, 3, hi, widths[-1]), "merge_lh": (3, 3, lo, widths[-1]),
                   "merge_bn_g": (widths[-1],), "merge_bn_b": (widths[-1],),
                   "head": (widths[-1], classes), "head_b": (classes,)})
    p = _params(shapes, seed=9)

    def pool(x):
        return lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") * 0.25

    def upsample(x):
        return jnp.repeat(jnp.repeat(x, 2, 1), 2, 2)

    def octave(p, k, xh, xl, relu=True):
        yh = _conv(xh, p[f"{k}_hh"])
        yl = _conv(pool(xh), p[f"{k}_hl"])
        if xl is not None:
            yh = yh + upsample(_conv(xl, p[f"{k}_lh"]))
            yl = yl + _conv(xl, p[f"{k}_ll"])
        yh = _batch_norm(yh, p[f"{k}_bnh_g"], p[f"{k}_bnh_b"])
        yl = _batch_norm(yl, p[f"{k}_bnl_g"], p[f"{k}_bnl_b"])
        return (jax.nn.relu(yh), jax.nn.relu(yl)) if relu else (yh, yl)

    def loss_fn(p, images, labels):
        xh, xl = octave(p, "stem", images, None)
        for s in range(len(widths)):
            if s:
                xh, xl = octave(p, f"t{s}", pool(xh), pool(xl))
            h, l_ = octave(p, f"s{s}a", xh, xl)
            h, l_ = octave(p, f"s{s}b", h, l_, relu=False)
            xh, xl = jax.nn.relu(xh + h), jax.nn.relu(xl + l_)
        y = _conv(xh, p["merge_hh"]) + upsample(_conv(xl, p["merge_lh"]))
        y = jax.nn.relu(_batch_norm(y, p["merge_bn_g"], p["merge_bn_b"])).mean((1, 2))
        return _cross_entropy(y @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(9)
    labels = rng.integers(0, classes, batch)
    images = _smooth_images(rng, batch, side, 3, 2.0)
    images += 0.5 * rng.standard_normal((classes, 3))[labels][:, None, None]
    return _train("nero", loss_fn, p, jnp.asarray(images, jnp.float32),
                  jnp.asarray(labels, jnp.int32))


def linformer_mlm(batch: int = 4, seq: int = 1024, width: int = 128, heads: int = 4,
                  projected: int = 64, layers: int = 2, vocab: int = 2048,
                  masked: int = 128) -> Any:
    """A Linformer masked language model in bfloat16: keys and values are projected along
    the sequence from 1024 positions to 64 by learned matrices shared across heads, so
    the attention map is 1024 x 64; `masked` positions per sequence are chosen by an
    `argsort` of random keys and corrupted BERT-style (80% a mask token, 10% a random
    token, 10% unchanged), and only their hidden states are gathered and scored against
    the tied embedding table; softmax and loss in float32; AdaPNM."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    d = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab + 1, width), "position": (seq, width)}
    for l in range(layers):
        shapes.update({f"l{l}_norm1_g": (width,), f"l{l}_norm1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_e": (seq, projected),
                       f"l{l}_f": (seq, projected), f"l{l}_out": (width, width),
                       f"l{l}_norm2_g": (width,), f"l{l}_norm2_b": (width,),
                       f"l{l}_ff1": (width, 4 * width), f"l{l}_ff1_b": (4 * width,),
                       f"l{l}_ff2": (4 * width, width), f"l{l}_ff2_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,), "out_b": (vocab,)})
    p = _params(shapes, seed=10, dtype=jnp.bfloat16)

    def attend(p, l, x):
        b = x.shape[0]
        q, k, v = jnp.split(x @ p[f"l{l}_qkv"], 3, -1)
        k = jnp.einsum("bsw,sp->bpw", k, p[f"l{l}_e"]).reshape(b, projected, heads, d)
        v = jnp.einsum("bsw,sp->bpw", v, p[f"l{l}_f"]).reshape(b, projected, heads, d)
        q = q.reshape(b, seq, heads, d)
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / math.sqrt(d)
        out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1).astype(x.dtype), v)
        return out.reshape(b, seq, width) @ p[f"l{l}_out"]

    def loss_fn(p, tokens, key):
        k1, k2, k3 = jax.random.split(key, 3)
        where = jnp.argsort(jax.random.uniform(k1, tokens.shape), -1)[:, :masked]
        targets = jnp.take_along_axis(tokens, where, -1)
        roll = jax.random.uniform(k2, where.shape)
        replaced = jnp.where(roll < 0.8, vocab, jnp.where(
            roll < 0.9, jax.random.randint(k3, where.shape, 0, vocab), targets))
        rows = jnp.arange(tokens.shape[0])[:, None]
        corrupted = tokens.at[rows, where].set(replaced)
        x = p["embed"][corrupted] + p["position"]
        for l in range(layers):
            x = x + attend(p, l, _layer_norm(x, p[f"l{l}_norm1_g"], p[f"l{l}_norm1_b"]))
            h = _layer_norm(x, p[f"l{l}_norm2_g"], p[f"l{l}_norm2_b"])
            x = x + (jax.nn.gelu(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"]) @ p[f"l{l}_ff2"]
                     + p[f"l{l}_ff2_b"])
        h = jnp.take_along_axis(x, where[..., None], 1)
        h = _layer_norm(h, p["final_g"], p["final_b"])
        return _cross_entropy(h @ p["embed"][:vocab].T + p["out_b"], targets)

    rng = np.random.default_rng(10)
    # Zipf-distributed tokens with local repetition
    tokens = np.minimum(rng.zipf(1.3, (batch, seq)) - 1, vocab - 1)
    repeat = rng.uniform(size=(batch, seq)) < 0.3
    tokens = np.where(repeat, np.roll(tokens, 3, 1), tokens)
    return _train("adapnm", loss_fn, p, jnp.asarray(tokens, jnp.int32), jax.random.PRNGKey(10))


def lennard_jones_md(cells: int = 10, density: float = 0.8, rebuilds: int = 5,
                     steps_per: int = 10, neighbours: int = 96, dt: float = 0.004,
                     temperature: float = 1.2, cutoff: float = 2.5, skin: float = 0.4,
                     bins: int = 128) -> Any:
    """Inference: molecular dynamics of a Lennard-Jones fluid in a periodic box, a
    `lax.scan` over neighbour-list rebuilds, each building a Verlet list (minimum-image
    pair distances, the `top_k` nearest `neighbours` of every atom, a mask of those
    inside the cutoff plus a skin) and running an inner `lax.scan` of velocity-Verlet
    steps with truncated and shifted pair forces from gathered neighbour positions and a
    Berendsen thermostat; energies per step and a radial distribution function
    histogrammed by scatter-add come back with the final state."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = cells ** 3
    box = (n / density) ** (1.0 / 3.0)
    reach2 = (cutoff + skin) ** 2
    shift = 4.0 * (cutoff ** -12 - cutoff ** -6)

    def minimum_image(d):
        return d - box * jnp.round(d / box)

    def build(pos):
        d = minimum_image(pos[:, None, :] - pos[None, :, :])
        r2 = jnp.sum(d * d, -1) + jnp.eye(n) * 1e9
        neg, idx = lax.top_k(-r2, neighbours)
        return idx, -neg < reach2

    def pair_terms(pos, idx, valid):
        d = minimum_image(pos[:, None, :] - pos[idx])                    # (n, K, 3)
        r2 = jnp.sum(d * d, -1)
        inside = valid & (r2 < cutoff ** 2)
        inv2 = jnp.where(inside, 1.0 / jnp.where(inside, r2, 1.0), 0.0)
        inv6 = inv2 ** 3
        force = jnp.sum((24.0 * inv2 * (2.0 * inv6 * inv6 - inv6))[..., None] * d, 1)
        energy = 0.5 * jnp.sum(jnp.where(inside, 4.0 * (inv6 * inv6 - inv6) - shift, 0.0))
        return force, energy, r2

    def verlet(carry, _):
        pos, vel, force, idx, valid = carry
        vel = vel + 0.5 * dt * force
        pos = jnp.mod(pos + dt * vel, box)
        force, energy, _ = pair_terms(pos, idx, valid)
        vel = vel + 0.5 * dt * force
        kinetic = 0.5 * jnp.sum(vel * vel)
        current = 2.0 * kinetic / (3.0 * n)
        vel = vel * jnp.sqrt(1.0 + dt / 0.1 * (temperature / current - 1.0))
        return (pos, vel, force, idx, valid), jnp.stack([energy, kinetic])

    def rebuild(carry, _):
        pos, vel = carry
        idx, valid = build(pos)
        force, _, _ = pair_terms(pos, idx, valid)
        (pos, vel, _, _, _), energies = lax.scan(verlet, (pos, vel, force, idx, valid), None,
                                                 length=steps_per)
        return (pos, vel), energies

    def run(pos, vel):
        (pos, vel), energies = lax.scan(rebuild, (pos, vel), None, length=rebuilds)
        idx, valid = build(pos)
        _, _, r2 = pair_terms(pos, idx, valid)
        r = jnp.sqrt(r2)
        which = jnp.clip((r / (cutoff + skin) * bins).astype(jnp.int32), 0, bins - 1)
        counts = jnp.zeros((bins,)).at[which.ravel()].add(valid.ravel().astype(jnp.float32))
        edges = jnp.arange(bins + 1) * (cutoff + skin) / bins
        shells = 4.0 / 3.0 * jnp.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
        return pos, vel, energies, counts / (n * density * shells)

    rng = np.random.default_rng(11)
    grid = (np.stack(np.meshgrid(*[np.arange(cells)] * 3, indexing="ij"), -1).reshape(-1, 3)
            + 0.5) * (box / cells)
    pos = grid + 0.05 * rng.standard_normal(grid.shape)
    vel = rng.standard_normal((n, 3)) * math.sqrt(temperature)
    vel -= vel.mean(0)
    return jax.jit(run).lower(jnp.asarray(pos % box, jnp.float32), jnp.asarray(vel, jnp.float32))


def american_option_cn(options: int = 128, nodes: int = 256, steps: int = 200,
                       width: float = 3.0) -> Any:
    """Inference: American and European puts priced together by Crank-Nicolson finite
    differences in log-moneyness, a `fori_loop` over time steps whose implicit half is a
    tridiagonal solve by the Thomas algorithm, a forward `lax.scan` elimination and a
    reverse `lax.scan` back-substitution across the grid vectorized over all options
    (the elimination pivots computed once by another scan), Dirichlet boundaries and the
    early-exercise projection onto the payoff; the prices at each spot come from linear
    interpolation by gathered grid values, with delta, gamma, the early-exercise premium
    and the critical exercise price."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    z = np.linspace(-width, width, nodes)
    h = z[1] - z[0]
    m = nodes - 2
    payoff = jnp.asarray(np.maximum(1.0 - np.exp(z), 0.0), jnp.float32)
    zs = jnp.asarray(z, jnp.float32)

    def run(sigma, rate, carry_yield, maturity, spot, early):
        count = sigma.shape[0]
        dt = maturity / steps
        drift = rate - carry_yield - 0.5 * sigma ** 2
        a = 0.5 * sigma ** 2 / h ** 2 - drift / (2 * h)
        b = -sigma ** 2 / h ** 2 - rate
        c = 0.5 * sigma ** 2 / h ** 2 + drift / (2 * h)
        lower, diag, upper = -0.5 * dt * a, 1.0 - 0.5 * dt * b, -0.5 * dt * c

        def eliminate(prev, _):
            denom = diag - lower * prev
            return upper / denom, (upper / denom, denom)

        _, (cp, denom) = lax.scan(eliminate, jnp.zeros(count), None, length=m)

        def step(n, values):
            tau = (n + 1) * dt
            left = jnp.where(early, 1.0 - jnp.exp(zs[0]),
                             jnp.exp(-rate * tau) - jnp.exp(-carry_yield * tau + zs[0]))
            inner = values[:, 1:-1]
            rhs = inner + 0.5 * dt[:, None] * (a[:, None] * values[:, :-2] + b[:, None] * inner
                                               + c[:, None] * values[:, 2:])
            rhs = rhs.at[:, 0].add(-lower * left)

            def forward(prev, xs):
                r_j, denom_j = xs
                d = (r_j - lower * prev) / denom_j
                return d, d

            _, dp = lax.scan(forward, jnp.zeros(count), (rhs.T, denom))

            def backward(following, xs):
                d_j, cp_j = xs
                x = d_j - cp_j * following
                return x, x

            _, solved = lax.scan(backward, jnp.zeros(count), (dp, cp), reverse=True)
            values = jnp.concatenate([left[:, None], solved.T, jnp.zeros((count, 1))], 1)
            return jnp.where(early[:, None], jnp.maximum(values, payoff), values)

        values = lax.fori_loop(0, steps, step, jnp.broadcast_to(payoff, (count, nodes)))
        position = (jnp.log(spot) + width) / h
        i = jnp.clip(jnp.floor(position).astype(jnp.int32), 1, nodes - 3)
        frac = position - i

        def at(offset):
            return jnp.take_along_axis(values, (i + offset)[:, None], 1)[:, 0]

        price = (1.0 - frac) * at(0) + frac * at(1)
        dv = (at(1) - at(-1)) / (2 * h)
        d2v = (at(1) - 2.0 * at(0) + at(-1)) / h ** 2
        delta = dv / spot
        gamma = (d2v - dv) / spot ** 2
        exercised = early[:, None] & (values - payoff <= 1e-6) & (payoff > 0)
        last = nodes - 1 - jnp.argmax(exercised[:, ::-1], 1)
        critical = jnp.where(jnp.any(exercised, 1), jnp.exp(zs[last]), 0.0)
        half = count // 2
        return (price[:half], price[:half] - price[half:], delta[:half], gamma[:half],
                critical[:half])

    rng = np.random.default_rng(12)
    columns = [rng.uniform(0.1, 0.5, options), rng.uniform(0.0, 0.08, options),
               rng.uniform(0.0, 0.04, options), rng.uniform(0.25, 2.0, options),
               rng.uniform(0.7, 1.3, options)]
    args = [jnp.asarray(np.concatenate([col, col]), jnp.float32) for col in columns]
    early = jnp.asarray(np.arange(2 * options) < options)
    return jax.jit(run).lower(*args, early)


def lens_ray_trace(pupil: int = 128, fields: int = 9, focus_steps: int = 16, psf_side: int = 64,
                   max_angle: float = 20.0, pupil_radius: float = 5.0) -> Any:
    """Inference: sequential ray tracing of a Cooke triplet photographic lens at three
    wavelengths (Cauchy dispersion fitted to each glass's index and Abbe number) for a
    square grid of pupil rays at several field angles, a `lax.scan` over the six
    spherical surfaces (ray-sphere intersection in its numerically stable form, the
    vector form of Snell's law, vignetting by clear apertures, total internal reflection
    and misses dropped by masks, the optical path accumulated); at the image plane the
    spot centroids and RMS radii per field and wavelength, a sweep of defocus positions
    for the best focus, distortion from the centroids, and a point-spread histogram per
    field accumulated by scatter-add."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    radii = np.array([22.01359, -435.76044, -22.21328, 20.29192, 79.68360, -18.39533])
    thickness = np.array([3.25896, 6.00755, 0.99997, 4.75041, 2.95208, 42.20778])
    glasses = [(1.6204, 60.3), None, (1.6200, 36.4), None, (1.6204, 60.3), None]
    semi = np.array([9.0, 9.0, 6.5, 6.5, 8.0, 8.0])
    waves = np.array([0.4861, 0.5876, 0.6563])

    def index(glass):
        if glass is None:
            return np.ones_like(waves)
        n_d, abbe = glass
        slope = (n_d - 1.0) / abbe / (1.0 / 0.4861 ** 2 - 1.0 / 0.6563 ** 2)
        return n_d - slope / 0.5876 ** 2 + slope / waves ** 2

    n_after = np.stack([index(g) for g in glasses])
    n_before = np.concatenate([np.ones((1, 3)), n_after[:-1]])
    vertex = np.concatenate([[0.0], np.cumsum(thickness)[:-1]])
    image_z = float(thickness.sum())
    surfaces = tuple(jnp.asarray(a, jnp.float32) for a in (
        1.0 / radii, vertex, n_before[:, :, None], n_after[:, :, None], semi))
    angles = np.deg2rad(np.linspace(0.0, max_angle, fields))
    offsets = jnp.asarray(np.linspace(-1.0, 1.0, focus_steps), jnp.float32)
    pixel = 0.01

    def surface(carry, s):
        x, y, z, dx, dy, dz, alive, path = carry
        c, z_v, n1, n2, aperture = s
        zl = z - z_v
        b_half = c * (x * dx + y * dy + zl * dz) - dz
        cc = c * (x * x + y * y + zl * zl) - 2.0 * zl
        disc = b_half * b_half - c * cc
        t = cc / (-b_half + jnp.sqrt(jnp.maximum(disc, 0.0)))
        x, y, z = x + t * dx, y + t * dy, z + t * dz
        nx, ny, nz = c * x, c * y, c * (z - z_v) - 1.0
        norm = jnp.sqrt(nx * nx + ny * ny + nz * nz)
        nx, ny, nz = nx / norm, ny / norm, nz / norm
        cosi = -(nx * dx + ny * dy + nz * dz)
        sign = jnp.where(cosi < 0, -1.0, 1.0)
        nx, ny, nz, cosi = nx * sign, ny * sign, nz * sign, cosi * sign
        mu = n1 / n2
        k = 1.0 - mu * mu * (1.0 - cosi * cosi)
        bend = mu * cosi - jnp.sqrt(jnp.maximum(k, 0.0))
        dx, dy, dz = mu * dx + bend * nx, mu * dy + bend * ny, mu * dz + bend * nz
        alive = alive & (disc >= 0) & (k >= 0) & (x * x + y * y <= aperture * aperture)
        return (x, y, z, dx, dy, dz, alive, path + n1 * t), None

    def run(px, py, inside, theta):
        shape = (fields, 3, px.shape[0])
        dy0 = jnp.sin(theta)[:, None, None]
        dz0 = jnp.cos(theta)[:, None, None]
        start = (jnp.broadcast_to(px, shape), jnp.broadcast_to(py - 2.0 * dy0 / dz0, shape),
                 jnp.full(shape, -2.0), jnp.zeros(shape), jnp.broadcast_to(dy0, shape),
                 jnp.broadcast_to(dz0, shape), jnp.broadcast_to(inside, shape),
                 jnp.zeros(shape))
        (x, y, z, dx, dy, dz, alive, path), _ = lax.scan(surface, start, surfaces)
        t = (image_z - z) / dz
        xi, yi = x + t * dx, y + t * dy
        w = alive.astype(jnp.float32)
        total = jnp.sum(w, -1) + 1e-9

        def spots(xs, ys):
            cx, cy = jnp.sum(w * xs, -1) / total, jnp.sum(w * ys, -1) / total
            spread = (xs - cx[..., None]) ** 2 + (ys - cy[..., None]) ** 2
            return cx, cy, jnp.sqrt(jnp.sum(w * spread, -1) / total)

        cx, cy, rms = spots(xi, yi)
        shifted = offsets[:, None, None, None] / dz
        _, _, sweep = spots(xi + shifted * dx, yi + shifted * dy)   # (focus, fields, waves)
        best = jnp.argmin(sweep.mean((1, 2)))
        focal = cy[1, 1] / jnp.tan(theta[1])
        distortion = (cy[:, 1] - focal * jnp.tan(theta)) / (focal * jnp.tan(theta) + 1e-9)
        col = jnp.floor((xi - cx[:, 1:2, None]) / pixel + psf_side / 2).astype(jnp.int32)
        row = jnp.floor((yi - cy[:, 1:2, None]) / pixel + psf_side / 2).astype(jnp.int32)
        keep = alive & (col >= 0) & (col < psf_side) & (row >= 0) & (row < psf_side)
        cell = (jnp.arange(fields)[:, None, None] * psf_side + jnp.clip(row, 0, psf_side - 1)
                ) * psf_side + jnp.clip(col, 0, psf_side - 1)
        psf = jnp.zeros((fields * psf_side * psf_side,)).at[cell.ravel()].add(
            keep.ravel().astype(jnp.float32)).reshape(fields, psf_side, psf_side)
        opd = jnp.sqrt(jnp.sum(w * (path - jnp.sum(w * path, -1, keepdims=True)
                                    / total[..., None]) ** 2, -1) / total)
        psf = psf / (jnp.sum(psf, (1, 2), keepdims=True) + 1e-9)
        return rms, offsets[best], distortion, psf, opd

    u = np.linspace(-1.0, 1.0, pupil)
    gx, gy = np.meshgrid(u, u, indexing="ij")
    inside = (gx ** 2 + gy ** 2 <= 1.0).ravel()
    return jax.jit(run).lower(jnp.asarray(gx.ravel() * pupil_radius, jnp.float32),
                              jnp.asarray(gy.ravel() * pupil_radius, jnp.float32),
                              jnp.asarray(inside), jnp.asarray(angles, jnp.float32))


def wilson_dirac_cg(shape: tuple[int, int, int, int] = (8, 6, 6, 6), iterations: int = 40,
                    kappa: float = 0.12) -> Any:
    """Inference: a quark propagator column on a 4-D lattice, the Wilson-Dirac operator
    in complex64 (4 spins x 3 colours per site, random SU(3) gauge links, the hopping
    term as `roll`ed neighbours multiplied by links and by spin projectors 1 -/+ gamma_mu,
    antiperiodic in time) solved from a point source by conjugate gradients on the
    normal equations (M-dagger as gamma5 M gamma5) in a `fori_loop`, with the residual
    history, the true residual and the pion correlator summed over each time slice."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    i = 1j
    g1 = np.array([[0, 0, 0, i], [0, 0, i, 0], [0, -i, 0, 0], [-i, 0, 0, 0]])
    g2 = np.array([[0, 0, 0, -1], [0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0]])
    g3 = np.array([[0, 0, i, 0], [0, 0, 0, -i], [-i, 0, 0, 0], [0, i, 0, 0]])
    g4 = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]])
    gammas = [g4, g3, g2, g1]                 # lattice axes (t, z, y, x)
    g5 = jnp.asarray(np.diag((g1 @ g2 @ g3 @ g4).diagonal()), jnp.complex64)
    minus = [jnp.asarray(np.eye(4) - g, jnp.complex64) for g in gammas]
    plus = [jnp.asarray(np.eye(4) + g, jnp.complex64) for g in gammas]
    time_sign = np.ones(shape[0])
    time_sign[-1] = -1.0
    sign_forward = jnp.asarray(time_sign.reshape(-1, 1, 1, 1, 1, 1), jnp.complex64)
    sign_backward = jnp.asarray(np.roll(time_sign, 1).reshape(-1, 1, 1, 1, 1, 1), jnp.complex64)

    def spin(matrix, field):
        return jnp.einsum("st,...tc->...sc", matrix, field)

    def operator(links, back_links, field):
        hop = jnp.zeros_like(field)
        for mu in range(4):
            ahead = jnp.roll(field, -1, mu)
            behind = jnp.roll(field, 1, mu)
            if mu == 0:
                ahead, behind = ahead * sign_forward, behind * sign_backward
            hop = hop + spin(minus[mu], jnp.einsum("...ab,...sb->...sa", links[mu], ahead))
            hop = hop + spin(plus[mu], jnp.einsum("...ab,...sb->...sa", back_links[mu], behind))
        return field - kappa * hop

    def run(links, source):
        back_links = jnp.stack([jnp.roll(jnp.conj(jnp.swapaxes(links[mu], -1, -2)), 1, mu)
                                for mu in range(4)])
        apply = lambda f: operator(links, back_links, f)
        adjoint = lambda f: spin(g5, apply(spin(g5, f)))
        normal = lambda f: adjoint(apply(f))
        dot = lambda a, b: jnp.sum(jnp.conj(a) * b).real
        r = adjoint(source)
        start = jnp.sqrt(dot(r, r))

        def body(k, carry):
            x, r, p, rr, history = carry
            ap = normal(p)
            alpha = rr / dot(p, ap)
            x = x + alpha * p
            r = r - alpha * ap
            rr_new = dot(r, r)
            p = r + (rr_new / rr) * p
            return x, r, p, rr_new, history.at[k].set(jnp.sqrt(rr_new) / start)

        x, _, _, _, history = lax.fori_loop(0, iterations, body, (
            jnp.zeros_like(source), r, r, dot(r, r), jnp.zeros((iterations,))))
        true_residual = apply(x) - source
        correlator = jnp.sum(jnp.abs(x) ** 2, (1, 2, 3, 4, 5))
        return x, history, jnp.sqrt(dot(true_residual, true_residual) / dot(source, source)), \
            correlator

    rng = np.random.default_rng(13)
    raw = np.eye(3) + 0.4 * (rng.standard_normal((4, *shape, 3, 3))
                             + 1j * rng.standard_normal((4, *shape, 3, 3)))
    q, rfac = np.linalg.qr(raw)
    q = q * (np.diagonal(rfac, axis1=-2, axis2=-1) / np.abs(np.diagonal(rfac, axis1=-2,
                                                                          axis2=-1)))[..., None, :]
    links = q / np.linalg.det(q)[..., None, None] ** (1.0 / 3.0)
    source = np.zeros((*shape, 4, 3), np.complex64)
    source[0, 0, 0, 0, 0, 0] = 1.0
    return jax.jit(run).lower(jnp.asarray(links, jnp.complex64), jnp.asarray(source))


def bm25_retrieval(docs: int = 32768, vocab: int = 8192, postings: int = 256,
                   queries: int = 256, terms: int = 8, shortlist: int = 100, dim: int = 64,
                   k1: float = 1.2, b: float = 0.75) -> Any:
    """Inference: lexical retrieval with BM25 over an impact-ordered inverted index (each
    term's postings truncated to its `postings` highest term frequencies and padded),
    then a hybrid re-rank: every query term's postings, document lengths and term
    frequencies are gathered and scored, accumulated into per-query document scores by
    scatter-add, a `top_k` shortlist is re-scored by dense dot products with gathered
    document embeddings, the two z-normalized scores are fused and sorted by `argsort`,
    and the reciprocal rank and recall of each query's source document are reported."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rng = np.random.default_rng(14)
    lengths = rng.poisson(100, docs) + 10
    probs = 1.0 / (np.arange(vocab) + 10.0)
    tokens = rng.choice(vocab, lengths.sum(), p=probs / probs.sum())
    owner = np.repeat(np.arange(docs), lengths)
    pairs, tf = np.unique(owner.astype(np.int64) * vocab + tokens, return_counts=True)
    doc_of, term_of = pairs // vocab, pairs % vocab
    df = np.bincount(term_of, minlength=vocab)
    order = np.lexsort((-tf, term_of))
    starts = np.concatenate([[0], np.cumsum(df)[:-1]])
    rank = np.arange(order.size) - starts[term_of[order]]
    keep = order[rank < postings]
    post_docs = np.zeros((vocab, postings), np.int32)
    post_tf = np.zeros((vocab, postings), np.float32)
    post_docs[term_of[keep], rank[rank < postings]] = doc_of[keep]
    post_tf[term_of[keep], rank[rank < postings]] = tf[keep]
    idf = np.log(1.0 + (docs - df + 0.5) / (df + 0.5))
    targets = rng.choice(docs, queries, replace=False)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    picks = offsets[targets, None] + rng.integers(0, lengths[targets, None], (queries, terms))
    query_terms = tokens[picks]
    doc_emb = rng.standard_normal((docs, dim)) / math.sqrt(dim)
    query_emb = doc_emb[targets] + 1.5 * rng.standard_normal((queries, dim)) / math.sqrt(dim)
    average = float(lengths.mean())

    def standardize(a):
        return (a - a.mean(-1, keepdims=True)) / (a.std(-1, keepdims=True) + 1e-6)

    def run(post_docs, post_tf, idf, doc_len, doc_emb, query_terms, query_emb, target):
        ids = post_docs[query_terms]                                      # (Q, T, P)
        freq = post_tf[query_terms]
        norm = k1 * (1.0 - b + b * doc_len[ids] / average)
        score = idf[query_terms][..., None] * freq * (k1 + 1.0) / (freq + norm)
        score = jnp.where(freq > 0, score, 0.0)
        rows = jnp.broadcast_to(jnp.arange(queries)[:, None, None], ids.shape)
        totals = jnp.zeros((queries, docs)).at[rows, ids].add(score)
        lexical, candidates = lax.top_k(totals, shortlist)
        dense = jnp.einsum("qd,qkd->qk", query_emb, doc_emb[candidates])
        fused = 0.6 * standardize(lexical) + 0.4 * standardize(dense)
        order = jnp.argsort(-fused, -1)
        ranked = jnp.take_along_axis(candidates, order, -1)
        hit = ranked == target[:, None]
        found = jnp.any(hit, -1)
        mrr = jnp.mean(jnp.where(found, 1.0 / (jnp.argmax(hit, -1) + 1.0), 0.0))
        return (ranked[:, :10], jnp.take_along_axis(fused, order, -1)[:, :10], mrr,
                jnp.mean(jnp.any(hit[:, :10], -1)), jnp.mean(found))

    return jax.jit(run).lower(
        jnp.asarray(post_docs), jnp.asarray(post_tf), jnp.asarray(idf, jnp.float32),
        jnp.asarray(lengths, jnp.float32), jnp.asarray(doc_emb, jnp.float32),
        jnp.asarray(query_terms, jnp.int32), jnp.asarray(query_emb, jnp.float32),
        jnp.asarray(targets, jnp.int32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "convnext_classifier/32x64px-48-96-192": convnext_classifier,
    "longformer_tagger/4x1024-w64-g16-bf16": longformer_tagger,
    "retnet_lm/4x512-d128": retnet_lm,
    "mlstm_lm/8x128-d256-h4": mlstm_lm,
    "gin_graph_classifier/256x32-nodes": gin_graph_classifier,
    "flow_matching_unet/8x32px-bf16": flow_matching_unet,
    "vicreg_pretrain/64x24px": vicreg_pretrain,
    "protonet_episode/20-way-5-shot": protonet_episode,
    "octave_resnet/16x32px": octave_resnet,
    "linformer_mlm/4x1024-k64-bf16": linformer_mlm,
    "lennard_jones_md/1000-atoms-50-steps": lennard_jones_md,
    "american_option_cn/128x256-200-steps": american_option_cn,
    "lens_ray_trace/9x3x128x128-rays": lens_ray_trace,
    "wilson_dirac_cg/8x6x6x6-40-iters": wilson_dirac_cg,
    "bm25_retrieval/32768-docs-256-queries": bm25_retrieval,
}
