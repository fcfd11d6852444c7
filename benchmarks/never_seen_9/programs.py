"""The ninth never-seen set: programs written on 2026-11-27, after the eighth set
(benchmarks/never_seen_8/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-9` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
eight never-seen sets has. Ten are training steps (forward, loss, backward and an
optimizer update). GraphSAGE classifies a minibatch of seed nodes after sampling two
hops of neighbours inside the step: padded adjacency rows are gathered, random keys on
their valid slots are ordered by `argsort` to sample without replacement, and each
layer adds self, mean-aggregated and max-pooled neighbour projections. An RNN
transducer joins an LSTM encoder of strided-convolution features and an LSTM prediction
network over the labels (two `lax.scan`s) into a (batch, frame, label, vocabulary)
log-softmax, and sums the transducer lattice by a `lax.scan` over frames whose row
recursion along the labels is a log-semiring `associative_scan`. A Kolmogorov-Arnold
network regresses a 6-D function through learnable per-edge activations: a SiLU base
plus cubic B-splines built by the Cox-de Boor recursion and contracted by einsums. A
p4 group CNN in bfloat16 is equivariant to 90-degree rotations: a lifting convolution
with `rot90` copies of each filter, then group convolutions whose kernels are rotated in
space and rolled along the rotation axis, pooled by a maximum over rotations. FFJORD, a
continuous normalizing flow, integrates a concat-squash MLP vector field and the
Hutchinson estimate of its divergence (a vector-Jacobian product with a Rademacher
probe per evaluation) by RK4 under `lax.scan` and differentiates through the solve. A
bfloat16 language model replaces its feed-forward layers by expert-choice mixtures of
experts: each expert picks its tokens by `top_k` along the token axis, gathers them and
scatter-adds its gated SwiGLU output back, with a router z-loss. A differential
transformer in bfloat16 subtracts a second causal softmax map, scaled by a learned
lambda, from the first, with rotary embeddings, grouped-query attention and per-head
RMS normalization. A DCN-Mix click-through-rate model gathers twenty categorical fields
and three multi-hot bags from one concatenated embedding table and stacks cross layers
of gated low-rank experts beside a deep MLP. Neural style transfer optimizes the pixels
of an image against Gram matrices and deep features of a frozen VGG-like network whose
weights are inputs of the step, with a total-variation term. A neural Hawkes process
runs a continuous-time LSTM under `lax.scan` over event sequences, its cells decaying
between events, and scores event log-intensities minus Monte-Carlo integrals of the
total intensity over each gap. Five are inference or scientific steps without a
gradient: geometric multigrid V-cycles for the 3-D Poisson equation in a `fori_loop`
(weighted Jacobi by shifted slices, restriction by a stride-2 3-D convolution,
prolongation by a stride-2 transposed 3-D convolution, a `fori_loop` of sweeps on the
coarsest grid), the auction algorithm for dense assignment problems with epsilon
scaling, each phase a `while_loop` that stops when every person holds an object (a
data-dependent trip count, capped), with `top_k` bids, scatter-max and scatter-min
object prices and winners, AES-128 in counter mode in uint8 (S-box gathers, ShiftRows
as a fixed gather, MixColumns by shifts and XORs, rounds in a `fori_loop`, a byte
histogram by scatter-add and an XOR fold), Gillespie's stochastic simulation of a
genetic toggle switch in thousands of cells (a `fori_loop` of reaction events drawing
uniforms inside the loop, reactions chosen against a `cumsum` of propensities,
stoichiometry rows gathered, the state recorded on a time grid), and sub-pixel image
registration by phase correlation (complex 2-D FFTs, an `argmax` of the inverse
normalized cross-power spectrum, refinement by an upsampled DFT as complex matrix
products, a Fourier-shift realignment). The updates vary: AdEMAMix (a slow second
momentum mixed into Adam), Adam after adaptive gradient clipping, Adam-atan2, AdamW
with stochastic rounding into bfloat16 weights, D-Adaptation Adam (no learning rate),
Cautious AdamW, Adam-mini (one second moment per block), FTRL-proximal, L-BFGS (the
two-loop recursion in `fori_loop`s) and AggMo (three momenta); three training steps
(the group CNN, the mixture of experts and the differential transformer) run in
bfloat16.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")
_NWC = ("NWC", "WIO", "NWC")
_NDHWC = ("NDHWC", "DHWIO", "NDHWC")


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


def _stochastic_round_bf16(x: Any, key: Any) -> Any:
    """float32 x rounded to bfloat16 stochastically: 16 random low bits are added to the
    float32 bit pattern before the low half is cut off, so the rounding is unbiased."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    bits = lax.bitcast_convert_type(x, jnp.uint32)
    noise = jax.random.bits(key, x.shape, jnp.uint32) & jnp.uint32(0xFFFF)
    cut = (bits + noise) & jnp.uint32(0xFFFF0000)
    return lax.bitcast_convert_type(cut, jnp.float32).astype(jnp.bfloat16)


def _update_rule(name: str) -> tuple[Callable[[Any], Any], Callable[..., tuple[Any, Any]]]:
    """The named optimizer as (init, update): init(params) -> state, and
    update(params, grads, state) -> (params, state). State is float32 whatever the
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

    if name == "ademamix":
        # AdEMAMix: Adam's fast moving average plus a slow one (beta 0.9999) mixed in by a
        # weight that warms up linearly, with decoupled weight decay
        def ademamix(params, grads, state):
            m, slow, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m, v = adam_moments(m, v, g)
            slow = tm(lambda s, g_: 0.9999 * s + 1e-4 * g_, slow, g)
            alpha = 5.0 * jnp.minimum(1.0, n / 1000.0)

            def move(p, m_, s, v_):
                p32 = p.astype(f32)
                step = (m_ / (1.0 - 0.9 ** n) + alpha * s) / (jnp.sqrt(v_ / (1.0 - 0.999 ** n))
                                                             + 1e-8)
                return p32 - 1e-3 * (step + 1e-2 * p32)
            return recast(params, tm(move, params, m, slow, v)), (m, slow, v, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), ademamix

    if name == "agc_adam":
        # Adam after adaptive gradient clipping (NFNet): each output unit's gradient norm
        # is capped at a fraction of that unit's weight norm
        def unit_norm(a):
            axes = tuple(range(a.ndim - 1)) if a.ndim > 1 else None
            return jnp.sqrt(jnp.sum(a * a, axis=axes, keepdims=a.ndim > 1))

        def agc_adam(params, grads, state):
            m, v, t = state

            def clip(p, g):
                g = g.astype(f32)
                limit = 0.05 * jnp.maximum(unit_norm(p.astype(f32)), 1e-3)
                norm = unit_norm(g)
                return jnp.where(norm > limit, g * (limit / jnp.maximum(norm, 1e-6)), g)

            g = tm(clip, params, grads)
            t = t + 1
            n = t.astype(f32)
            m, v = adam_moments(m, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) - 1e-3 * (m_ / (1.0 - 0.9 ** n))
                       / (jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-8), params, m, v)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), agc_adam

    if name == "adam_atan2":
        # Adam-atan2: the division by the root second moment replaced by atan2, bounded
        # and free of an epsilon
        def adam_atan2(params, grads, state):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m, v = adam_moments(m, v, g, 0.9, 0.99)
            moved = tm(lambda p, m_, v_: p.astype(f32) - 2e-3 * 1.2732395 * jnp.arctan2(
                m_ / (1.0 - 0.9 ** n), jnp.sqrt(v_ / (1.0 - 0.99 ** n))), params, m, v)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), adam_atan2

    if name == "sr_adamw":
        # AdamW with float32 moments but no float32 master weights: bfloat16 parameters
        # take the update by stochastic rounding, a fresh key per step and tensor
        def sr_adamw(params, grads, state):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m, v = adam_moments(m, v, g)
            leaves, treedef = jax.tree.flatten(params)
            key = jax.random.fold_in(jax.random.PRNGKey(9), t)
            keys = treedef.unflatten([jax.random.fold_in(key, i) for i in range(len(leaves))])

            def move(p, m_, v_, k):
                p32 = p.astype(f32)
                new = p32 - 1e-3 * ((m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.999 ** n))
                                                               + 1e-8) + 1e-2 * p32)
                if p.dtype == jnp.bfloat16:
                    return _stochastic_round_bf16(new, k)
                return new.astype(p.dtype)
            return tm(move, params, m, v, keys), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), sr_adamw

    if name == "dadapt_adam":
        # D-Adaptation Adam: no learning rate; the step size d grows from 1e-6 toward an
        # estimate of the distance to the solution, a ratio of two global sums
        def dadapt(params, grads, state):
            m, v, s, numerator, d, t = state
            g = wide(grads)
            root = math.sqrt(0.999)
            t = t + 1
            n = t.astype(f32)
            dlr = d * jnp.sqrt(1.0 - 0.999 ** n) / (1.0 - 0.9 ** n)
            inner = sum(jnp.sum(g_ * s_ / (jnp.sqrt(v_) + 1e-8)) for g_, s_, v_ in zip(
                jax.tree.leaves(g), jax.tree.leaves(s), jax.tree.leaves(v)))
            numerator = root * numerator + (1.0 - root) * dlr * inner
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * dlr * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            s = tm(lambda s_, g_: root * s_ + (1.0 - root) * dlr * g_, s, g)
            l1 = sum(jnp.sum(jnp.abs(a)) for a in jax.tree.leaves(s))
            d = jnp.maximum(d, numerator / ((1.0 - root) * l1 + 1e-12))
            moved = tm(lambda p, m_, v_: p.astype(f32) - m_ / (jnp.sqrt(v_) + 1e-8), params, m, v)
            return recast(params, moved), (m, v, s, numerator, d, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), jnp.zeros((), f32),
                           jnp.full((), 1e-6, f32), count())), dadapt

    if name == "cautious_adamw":
        # Cautious AdamW: update elements whose sign disagrees with the current gradient
        # are masked out and the rest rescaled by the fraction kept
        def cautious(params, grads, state):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m, v = adam_moments(m, v, g, 0.9, 0.95)

            def move(p, g_, m_, v_):
                p32 = p.astype(f32)
                u = (m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.95 ** n)) + 1e-8)
                keep = (u * g_ > 0).astype(f32)
                keep = keep * (keep.size / (jnp.sum(keep) + 1.0))
                return p32 - 1e-3 * (u * keep + 0.1 * p32)
            return recast(params, tm(move, params, g, m, v)), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), cautious

    if name == "adam_mini":
        # Adam-mini: one second-moment value per block (an embedding row, a weight
        # matrix's output unit, a whole vector) instead of per element
        def block_mean(path, a):
            key = jax.tree_util.keystr(path)
            if a.ndim < 2:
                return jnp.mean(a, keepdims=True)
            if "embed" in key:
                return jnp.mean(a, -1, keepdims=True)
            return jnp.mean(a, tuple(range(a.ndim - 1)), keepdims=True)

        def mini_init(params):
            return (zeros(params),
                    jax.tree_util.tree_map_with_path(
                        lambda path, p: jnp.zeros(block_mean(path, p).shape, f32), params),
                    count())

        def adam_mini(params, grads, state):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = jax.tree_util.tree_map_with_path(
                lambda path, v_, g_: 0.95 * v_ + 0.05 * block_mean(path, g_ * g_), v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - 1e-4) - 1e-3
                       * (m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.95 ** n)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, t)
        return mini_init, adam_mini

    if name == "ftrl":
        # FTRL-proximal per coordinate (L1 and L2): the weights are a closed form of the
        # accumulated linear term z and squared-gradient sum n; z starts where that
        # closed form gives back the initial weights
        alpha, beta, l1, l2 = 0.05, 1.0, 1e-4, 1e-4

        def ftrl_init(params):
            z = tm(lambda p: -p.astype(f32) * (beta / alpha + l2) - jnp.sign(p.astype(f32)) * l1,
                   params)
            return z, zeros(params)

        def ftrl(params, grads, state):
            z, acc = state

            def per_element(p, g, z_, n_):
                g = g.astype(f32)
                grown = n_ + g * g
                sigma = (jnp.sqrt(grown) - jnp.sqrt(n_)) / alpha
                z_ = z_ + g - sigma * p.astype(f32)
                w = -(z_ - jnp.sign(z_) * l1) / ((beta + jnp.sqrt(grown)) / alpha + l2)
                return jnp.where(jnp.abs(z_) <= l1, 0.0, w).astype(p.dtype), z_, grown

            out = tm(per_element, params, grads, z, acc)
            params, z, acc = _unzip(out, params, 3)
            return params, (z, acc)
        return ftrl_init, ftrl

    if name == "lbfgs":
        # L-BFGS over the flattened parameters: the last eight (s, y) pairs, the
        # two-loop recursion as two `fori_loop`s, the initial scaling s.y / y.y, a capped
        # unit step (no line search)
        from jax.flatten_util import ravel_pytree

        memory = 8

        def lbfgs_init(params):
            flat, _ = ravel_pytree(params)
            size = flat.shape[0]
            return (jnp.zeros((memory, size), f32), jnp.zeros((memory, size), f32),
                    jnp.zeros((memory,), f32), jnp.zeros((size,), f32),
                    jnp.zeros((size,), f32), count())

        def lbfgs(params, grads, state):
            s_hist, y_hist, rho, last_x, last_g, k = state
            x, unravel = ravel_pytree(params)
            g, _ = ravel_pytree(grads)
            s, y = x - last_x, g - last_g
            sy = jnp.dot(s, y)
            fresh = (k > 0) & (sy > 1e-10)
            s_hist = jnp.where(fresh, jnp.roll(s_hist, -1, 0).at[-1].set(s), s_hist)
            y_hist = jnp.where(fresh, jnp.roll(y_hist, -1, 0).at[-1].set(y), y_hist)
            rho = jnp.where(fresh, jnp.roll(rho, -1).at[-1].set(1.0 / jnp.maximum(sy, 1e-10)),
                            rho)

            def backward(j, carry):
                q, alphas = carry
                i = memory - 1 - j
                a = rho[i] * jnp.dot(s_hist[i], q)
                return q - a * y_hist[i], alphas.at[i].set(a)

            q, alphas = lax.fori_loop(0, memory, backward, (g, jnp.zeros((memory,), f32)))
            yy = jnp.dot(y_hist[-1], y_hist[-1])
            gamma = jnp.where(rho[-1] > 0, 1.0 / jnp.maximum(rho[-1] * yy, 1e-10),
                              1e-2 / (jnp.sqrt(jnp.dot(g, g)) + 1e-12))

            def forward(i, r):
                b = rho[i] * jnp.dot(y_hist[i], r)
                return r + s_hist[i] * (alphas[i] - b)

            r = lax.fori_loop(0, memory, forward, gamma * q)
            r = r * jnp.minimum(1.0, 5.0 / (jnp.sqrt(jnp.dot(r, r)) + 1e-12))
            return unravel(x - r), (s_hist, y_hist, rho, x, g, k + 1)
        return lbfgs_init, lbfgs

    if name == "aggmo":
        # aggregated momentum: three velocities with betas 0, 0.9 and 0.99, averaged
        betas = (0.0, 0.9, 0.99)

        def aggmo(params, grads, velocities):
            g = wide(grads)
            velocities = tuple(tm(lambda u, g_, b=b: b * u - g_, vel, g)
                               for b, vel in zip(betas, velocities))
            total = tm(lambda *vs: sum(vs) / len(betas), *velocities)
            moved = tm(lambda p, u: p.astype(f32) + 0.02 * u, params, total)
            return recast(params, moved), velocities
        return (lambda p: tuple(zeros(p) for _ in betas)), aggmo

    raise ValueError(name)


def _train(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    """One training step (loss, gradients, the named update) lowered for `batch`."""
    import jax

    init, update = _update_rule(rule)

    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state)
        return params, state, loss

    return jax.jit(step).lower(params, init(params), *batch)


def _layer_norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """Normalization over `axes` with float32 statistics, returned in x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = x32.mean(axes, keepdims=True)
    var = jnp.square(x32 - mean).mean(axes, keepdims=True)
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * gain + shift).astype(x.dtype)


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


def _lstm(x: Any, h: Any, c: Any, w: Any, b: Any) -> tuple[Any, Any]:
    """One LSTM cell step on concat(x, h) with fused gate weights (input, forget, cell,
    output), the forget bias offset by one."""
    import jax
    import jax.numpy as jnp

    i, f, g, o = jnp.split(jnp.concatenate([x, h], -1) @ w + b, 4, -1)
    c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    return jax.nn.sigmoid(o) * jnp.tanh(c), c


def _causal_attention(q: Any, k: Any, v: Any) -> Any:
    """Causal softmax attention of (B, S, H, d) queries, keys and values; softmax in
    float32, result in v's dtype."""
    import jax
    import jax.numpy as jnp

    s = q.shape[1]
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(q.shape[-1])
    causal = jnp.tril(jnp.ones((s, s), bool))
    weights = jax.nn.softmax(jnp.where(causal, scores.astype(jnp.float32), -1e9), -1)
    return jnp.einsum("bhqk,bkhd->bqhd", weights.astype(v.dtype), v)


def graphsage_sampled(nodes: int = 16384, features: int = 128, hidden: int = 128,
                      classes: int = 16, seeds: int = 512, fanouts: tuple[int, int] = (15, 10),
                      max_degree: int = 40) -> Any:
    """GraphSAGE on a minibatch of seed nodes with two-hop neighbour sampling inside the
    step: each node's padded adjacency row is gathered, its valid slots get uniform
    keys (padding gets keys past one), an `argsort` of the keys samples neighbours
    without replacement, and features of the seeds, their neighbours and the neighbours'
    neighbours are gathered from the whole feature table; each layer adds a self
    projection, a mean-aggregated and a max-pooled neighbour projection, then L2
    normalization; node classification by cross-entropy; AdEMAMix."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    first, second = fanouts
    p = _params({"self1": (features, hidden), "mean1": (features, hidden),
                 "pool1": (features, hidden), "pool1_b": (hidden,),
                 "pooled1": (hidden, hidden), "layer1_b": (hidden,),
                 "self2": (hidden, hidden), "mean2": (hidden, hidden),
                 "pool2": (hidden, hidden), "pool2_b": (hidden,),
                 "pooled2": (hidden, hidden), "layer2_b": (hidden,),
                 "classify": (hidden, classes), "classify_b": (classes,)}, seed=1)

    def sample(ids, key, table, degree, fanout):
        slots = table[ids]                                                # (..., D)
        keys = jax.random.uniform(key, slots.shape)
        keys = jnp.where(jnp.arange(max_degree) < degree[ids][..., None], keys, 2.0)
        order = jnp.argsort(keys, -1)[..., :fanout]
        return jnp.take_along_axis(slots, order, -1)

    def layer(p, l, own, neighbours):
        pooled = jax.nn.relu(neighbours @ p[f"pool{l}"] + p[f"pool{l}_b"]).max(-2)
        h = (own @ p[f"self{l}"] + neighbours.mean(-2) @ p[f"mean{l}"]
             + pooled @ p[f"pooled{l}"] + p[f"layer{l}_b"])
        h = jax.nn.relu(h) if l == 1 else h
        return h / (jnp.sqrt(jnp.sum(h * h, -1, keepdims=True)) + 1e-6)

    def loss_fn(p, table_x, table, degree, batch, labels, key):
        hop1 = sample(batch, jax.random.fold_in(key, 1), table, degree, first)     # (B, f1)
        hop2 = sample(hop1, jax.random.fold_in(key, 2), table, degree, second)     # (B, f1, f2)
        x0, x1, x2 = table_x[batch], table_x[hop1], table_x[hop2]
        h0 = layer(p, 1, x0, x1)                                          # (B, H)
        h1 = layer(p, 1, x1, x2)                                          # (B, f1, H)
        h = layer(p, 2, h0, h1)
        return _cross_entropy(h @ p["classify"] + p["classify_b"], labels)

    rng = np.random.default_rng(1)
    community = rng.integers(0, classes, nodes)
    degree = rng.integers(first, max_degree + 1, nodes)
    # neighbours mostly from the node's own community, the rest anywhere
    members = [np.flatnonzero(community == c) for c in range(classes)]
    table = rng.integers(0, nodes, (nodes, max_degree))
    same = rng.uniform(size=(nodes, max_degree)) < 0.7
    for c in range(classes):
        rows = community == c
        picks = members[c][rng.integers(0, len(members[c]), (rows.sum(), max_degree))]
        table[rows] = np.where(same[rows], picks, table[rows])
    centres = rng.standard_normal((classes, features))
    table_x = 0.5 * centres[community] + rng.standard_normal((nodes, features))
    batch = rng.choice(nodes, seeds, replace=False)
    return _train("ademamix", loss_fn, p, jnp.asarray(table_x, jnp.float32),
                  jnp.asarray(table, jnp.int32), jnp.asarray(degree, jnp.int32),
                  jnp.asarray(batch, jnp.int32), jnp.asarray(community[batch], jnp.int32),
                  jax.random.PRNGKey(1))


def rnnt_transducer(batch: int = 8, frames: int = 160, mels: int = 40, labels: int = 24,
                    vocab: int = 32, hidden: int = 128, joint: int = 128) -> Any:
    """An RNN transducer (RNN-T) acoustic model: a stride-2 1-D convolution and an LSTM
    encoder under `lax.scan` over the frames, an LSTM prediction network under a second
    `lax.scan` over the blank-prefixed labels, a joint network over every (frame, label
    position) pair giving a (B, T, U+1, V) log-softmax; the transducer loss sums the
    lattice by a `lax.scan` over frames whose row recursion along the labels (emit or
    arrive from above by blank) is a log-semiring `associative_scan`; Adam after
    adaptive gradient clipping."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    steps = frames // 2
    p = _params({"conv": (5, mels, hidden), "conv_b": (hidden,),
                 "encoder": (2 * hidden, 4 * hidden), "encoder_b": (4 * hidden,),
                 "embed": (vocab, hidden), "predictor": (2 * hidden, 4 * hidden),
                 "predictor_b": (4 * hidden,), "join_enc": (hidden, joint),
                 "join_pred": (hidden, joint), "join_b": (joint,), "out": (joint, vocab),
                 "out_b": (vocab,)}, seed=2)
    never = -1e9

    def run_lstm(w, b, xs):
        zeros = jnp.zeros((xs.shape[0], hidden))

        def cell(carry, x):
            h, c = _lstm(x, carry[0], carry[1], w, b)
            return (h, c), h

        _, hs = lax.scan(cell, (zeros, zeros), xs.transpose(1, 0, 2))
        return hs.transpose(1, 0, 2)

    def combine(left, right):
        e1, a1 = left
        e2, a2 = right
        return e1 + e2, jnp.logaddexp(a2, e2 + a1)

    def loss_fn(p, audio, target, frame_length, label_length):
        x = jax.nn.relu(lax.conv_general_dilated(audio, p["conv"], (2,), "SAME",
                                                 dimension_numbers=_NWC) + p["conv_b"])
        encoded = run_lstm(p["encoder"], p["encoder_b"], x)              # (B, T, H)
        prefixed = jnp.concatenate([jnp.zeros((batch, 1), jnp.int32), target], 1)
        predicted = run_lstm(p["predictor"], p["predictor_b"], p["embed"][prefixed])
        z = jnp.tanh((encoded @ p["join_enc"])[:, :, None]
                     + (predicted @ p["join_pred"])[:, None] + p["join_b"])
        logp = jax.nn.log_softmax(z @ p["out"] + p["out_b"], -1)        # (B, T, U+1, V)
        blank = logp[..., 0]                                              # (B, T, U+1)
        emit = jnp.take_along_axis(logp[:, :, :labels], target[:, None, :, None], -1)[..., 0]
        emit = jnp.concatenate([jnp.full((batch, steps, 1), never), emit], 2)  # (B, T, U+1)
        above = jnp.concatenate([jnp.zeros((batch, 1, labels + 1)), blank[:, :-1]], 1)

        def row(previous, inputs):
            blank_above, emit_here = inputs
            _, alpha = lax.associative_scan(combine, (emit_here, previous + blank_above), axis=1)
            return alpha, alpha

        start = jnp.full((batch, labels + 1), never).at[:, 0].set(0.0)
        _, alphas = lax.scan(row, start, (above.transpose(1, 0, 2), emit.transpose(1, 0, 2)))
        rows = jnp.arange(batch)
        last = alphas[frame_length - 1, rows, label_length]
        return -jnp.mean((last + blank[rows, frame_length - 1, label_length]) / label_length)

    rng = np.random.default_rng(2)
    frame_length = rng.integers(steps * 3 // 4, steps + 1, batch)
    label_length = rng.integers(labels // 2, labels + 1, batch)
    audio = np.cumsum(rng.standard_normal((batch, frames, mels)), 1) * 0.1
    return _train("agc_adam", loss_fn, p, jnp.asarray(audio, jnp.float32),
                  jnp.asarray(rng.integers(1, vocab, (batch, labels)), jnp.int32),
                  jnp.asarray(frame_length, jnp.int32), jnp.asarray(label_length, jnp.int32))


def kan_regression(batch: int = 4096, widths: tuple[int, ...] = (6, 64, 64, 1),
                   grid: int = 16, order: int = 3) -> Any:
    """A Kolmogorov-Arnold network regressing a 6-D function: every edge carries its own
    learnable activation, a SiLU base term plus a cubic B-spline on a uniform grid over
    [-1, 1] whose basis is built by the Cox-de Boor recursion (interval indicators, then
    three levels of knot-ratio blends), contracted with per-edge coefficients by an
    einsum; hidden outputs squashed into the grid by tanh; squared error plus an L1
    penalty on the coefficients; Adam-atan2."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    spacing = 2.0 / grid
    knots = jnp.asarray(np.linspace(-1.0 - order * spacing, 1.0 + order * spacing,
                                    grid + 2 * order + 1), jnp.float32)
    bases = grid + order
    shapes: dict[str, tuple[int, ...]] = {}
    for l, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
        shapes |= {f"base_{l}": (a, b), f"spline_{l}": (a, bases, b), f"out_{l}_b": (b,)}
    p = _params(shapes, seed=3)

    def b_splines(x):
        """x (B, I) -> the (B, I, grid + order) B-spline basis values."""
        x = x[..., None]
        t = knots
        value = ((x >= t[:-1]) & (x < t[1:])).astype(jnp.float32)
        for k in range(1, order + 1):
            left = (x - t[:-(k + 1)]) / (t[k:-1] - t[:-(k + 1)]) * value[..., :-1]
            right = (t[k + 1:] - x) / (t[k + 1:] - t[1:-k]) * value[..., 1:]
            value = left + right
        return value

    def loss_fn(p, x, y):
        h = x
        penalty: Any = 0.0
        for l in range(len(widths) - 1):
            spline = jnp.einsum("bic,ico->bo", b_splines(h), p[f"spline_{l}"])
            h = jax.nn.silu(h) @ p[f"base_{l}"] + spline + p[f"out_{l}_b"]
            penalty = penalty + jnp.mean(jnp.abs(p[f"spline_{l}"]))
            if l < len(widths) - 2:
                h = jnp.tanh(h)
        return jnp.mean(jnp.square(h[:, 0] - y)) + 1e-3 * penalty

    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (batch, widths[0]))
    y = (np.exp(np.sin(np.pi * x[:, 0]) + x[:, 1] ** 2) + x[:, 2] * x[:, 3]
         - np.sin(2 * x[:, 4] * x[:, 5]))
    return _train("adam_atan2", loss_fn, p, jnp.asarray(x, jnp.float32),
                  jnp.asarray(y, jnp.float32))


def p4_group_cnn(batch: int = 8, side: int = 32, widths: tuple[int, ...] = (16, 32, 64),
                 classes: int = 10) -> Any:
    """A rotation-equivariant group CNN on the p4 group in bfloat16: a lifting
    convolution with the filter and its three 90-degree rotations (`rot90`), then group
    convolutions whose kernel for each output rotation is the base kernel rotated in
    space and cyclically rolled along the input-rotation axis, all four stacked into one
    ordinary 2-D convolution over (rotation x channel) planes; batch norm shared across
    rotations, 2x2 average pooling between stages, a max over rotations (invariant) and
    global pooling before the classifier; AdamW with stochastic rounding of the bfloat16
    weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16 = jnp.bfloat16
    rotations = 4
    shapes: dict[str, tuple[int, ...]] = {"lift": (3, 3, 3, widths[0]),
                                          "lift_bn_g": (widths[0],), "lift_bn_b": (widths[0],)}
    previous = widths[0]
    for s, width in enumerate(widths):
        for j in range(2):
            shapes |= {f"group_{s}_{j}": (3, 3, rotations, previous, width),
                       f"bn_{s}_{j}_g": (width,), f"bn_{s}_{j}_b": (width,)}
            previous = width
    shapes |= {"classify": (widths[-1], classes), "classify_b": (classes,)}
    p = _params(shapes, seed=4, dtype=bf16)

    def conv(x, kernel):
        return lax.conv_general_dilated(x, kernel, (1, 1), "SAME", dimension_numbers=_NHWC)

    def lift_kernel(w):
        """(3, 3, in, out) -> (3, 3, in, 4 * out), output planes ordered (rotation, c)."""
        return jnp.concatenate([jnp.rot90(w, r, axes=(0, 1)) for r in range(rotations)], -1)

    def group_kernel(w):
        """(3, 3, 4, in, out) -> (3, 3, 4 * in, 4 * out): for output rotation r the
        kernel is rotated by r in space and rolled by r along the input rotations."""
        kh, kw, _, cin, cout = w.shape
        per_rotation = [jnp.rot90(jnp.roll(w, r, 2), r, axes=(0, 1)).reshape(
            kh, kw, rotations * cin, cout) for r in range(rotations)]
        return jnp.stack(per_rotation, 3).reshape(kh, kw, rotations * cin, rotations * cout)

    def norm_relu(x, gain, shift):
        b, h, w, _ = x.shape
        planes = x.reshape(b, h, w, rotations, -1)
        planes = _layer_norm(planes, gain, shift, (0, 1, 2, 3))
        return jax.nn.relu(planes).reshape(b, h, w, -1)

    def loss_fn(p, images, labels):
        x = norm_relu(conv(images, lift_kernel(p["lift"])), p["lift_bn_g"], p["lift_bn_b"])
        for s in range(len(widths)):
            if s > 0:
                b, h, w, c = x.shape
                x = x.reshape(b, h // 2, 2, w // 2, 2, c).mean((2, 4))
            for j in range(2):
                x = norm_relu(conv(x, group_kernel(p[f"group_{s}_{j}"])), p[f"bn_{s}_{j}_g"],
                              p[f"bn_{s}_{j}_b"])
        b, h, w, _ = x.shape
        invariant = x.reshape(b, h, w, rotations, -1).max(3).mean((1, 2))
        return _cross_entropy(invariant @ p["classify"] + p["classify_b"], labels)

    rng = np.random.default_rng(4)
    images = rng.uniform(0, 1, (batch, side, side, 3))
    images = np.stack([np.rot90(image, k) for image, k in zip(images, range(batch))])
    return _train("sr_adamw", loss_fn, p, jnp.asarray(images, bf16),
                  jnp.asarray(rng.integers(0, classes, batch), jnp.int32))


def ffjord_density(batch: int = 512, dim: int = 8, hidden: int = 128, steps: int = 6) -> Any:
    """A continuous normalizing flow (FFJORD) fitted by maximum likelihood: a
    time-conditioned MLP of concat-squash layers is the vector field, the log-density
    change is the Hutchinson estimate of its divergence (a vector-Jacobian product with a
    Rademacher probe at every evaluation), and state, log-density change and a kinetic
    regularizer are integrated by classical RK4 under `lax.scan`; the step
    differentiates through the whole solve, so it holds second derivatives of the MLP;
    D-Adaptation Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    sizes = [dim, hidden, hidden, dim]
    shapes: dict[str, tuple[int, ...]] = {}
    for l, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        shapes |= {f"w_{l}": (a, b), f"w_{l}_b": (b,), f"gate_{l}": (1, b),
                   f"gate_{l}_b": (b,), f"shift_{l}": (1, b)}
    p = _params(shapes, seed=5)
    layers = len(sizes) - 1
    dt = 1.0 / steps

    def field(p, z, t):
        h = z
        for l in range(layers):
            tt = jnp.full((h.shape[0], 1), t)
            h = ((h @ p[f"w_{l}"] + p[f"w_{l}_b"]) * jax.nn.sigmoid(tt @ p[f"gate_{l}"]
                                                                  + p[f"gate_{l}_b"])
                 + tt @ p[f"shift_{l}"])
            if l < layers - 1:
                h = jax.nn.softplus(h)
        return h

    def augmented(p, z, t, probe):
        f, pullback = jax.vjp(lambda z: field(p, z, t), z)
        divergence = jnp.sum(pullback(probe)[0] * probe, -1)
        return f, -divergence, jnp.sum(f * f, -1)

    def loss_fn(p, x, probe):
        def rk4(carry, t):
            z, change, kinetic = carry
            k1 = augmented(p, z, t, probe)
            k2 = augmented(p, z + 0.5 * dt * k1[0], t + 0.5 * dt, probe)
            k3 = augmented(p, z + 0.5 * dt * k2[0], t + 0.5 * dt, probe)
            k4 = augmented(p, z + dt * k3[0], t + dt, probe)
            blend = [(a + 2 * b + 2 * c + d) * (dt / 6.0) for a, b, c, d in zip(k1, k2, k3, k4)]
            return (z + blend[0], change + blend[1], kinetic + blend[2]), None

        zero = jnp.zeros((x.shape[0],))
        times = jnp.arange(steps, dtype=jnp.float32) * dt
        (z, change, kinetic), _ = lax.scan(rk4, (x, zero, zero), times)
        log_prior = -0.5 * jnp.sum(z * z, -1) - 0.5 * dim * math.log(2 * math.pi)
        return -jnp.mean(log_prior - change) + 0.01 * jnp.mean(kinetic)

    rng = np.random.default_rng(5)
    direction = rng.standard_normal((batch, dim))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    radius = np.where(rng.uniform(size=(batch, 1)) < 0.5, 1.0, 2.5)
    x = direction * radius + 0.1 * rng.standard_normal((batch, dim))
    probe = rng.choice([-1.0, 1.0], (batch, dim))
    return _train("dadapt_adam", loss_fn, p, jnp.asarray(x, jnp.float32),
                  jnp.asarray(probe, jnp.float32))


def expert_choice_moe(batch: int = 4, seq: int = 256, width: int = 256, heads: int = 4,
                      experts: int = 8, ffn: int = 512, layers: int = 2, vocab: int = 512,
                      capacity: float = 2.0) -> Any:
    """A language model in bfloat16 whose feed-forward layers are mixtures of experts
    with expert-choice routing: the router's softmax over experts is scored in float32,
    then every expert takes its own top `capacity x tokens / experts` tokens by `top_k`
    along the token axis, gathers them, runs a SwiGLU expert (batched einsum over
    stacked expert weights), and the gate-weighted outputs are scatter-added back to
    their tokens (a token may get several experts or none); causal multi-head attention
    with learned positions; cross-entropy plus a router z-loss; Cautious AdamW."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    tokens = batch * seq
    chosen = int(tokens * capacity / experts)
    hd = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "position": (seq, width)}
    for l in range(layers):
        shapes |= {f"norm1_{l}_g": (width,), f"qkv_{l}": (width, 3 * width),
                   f"out_{l}": (width, width), f"norm2_{l}_g": (width,),
                   f"router_{l}": (width, experts), f"up_{l}": (experts, width, 2 * ffn),
                   f"down_{l}": (experts, ffn, width)}
    shapes |= {"final_g": (width,), "head": (width, vocab)}
    p = _params(shapes, seed=6, dtype=bf16)
    p["position"] = p["position"] * 0.1

    def mixture(p, l, x):
        flat = x.reshape(tokens, width)
        logits = flat.astype(jnp.float32) @ p[f"router_{l}"].astype(jnp.float32)   # (T, E)
        scores = jax.nn.softmax(logits, -1)
        gates, index = jax.lax.top_k(scores.T, chosen)                    # (E, C)
        picked = flat[index]                                              # (E, C, D)
        value, gate = jnp.split(jnp.einsum("ecd,edf->ecf", picked, p[f"up_{l}"]), 2, -1)
        out = jnp.einsum("ecf,efd->ecd", jax.nn.silu(gate) * value, p[f"down_{l}"])
        out = out * gates[..., None].astype(bf16)
        mixed = jnp.zeros((tokens, width), bf16).at[index.reshape(-1)].add(
            out.reshape(-1, width))
        z_loss = jnp.mean(jnp.square(jax.nn.logsumexp(logits, -1)))
        return mixed.reshape(x.shape), z_loss

    def loss_fn(p, text):
        x = p["embed"][text[:, :-1]] + p["position"]
        z_total = 0.0
        for l in range(layers):
            h = _rms_norm(x, p[f"norm1_{l}_g"])
            q, k, v = jnp.split((h @ p[f"qkv_{l}"]).reshape(batch, seq, 3 * heads, hd), 3, 2)
            x = x + _causal_attention(q, k, v).reshape(batch, seq, width) @ p[f"out_{l}"]
            mixed, z_loss = mixture(p, l, _rms_norm(x, p[f"norm2_{l}_g"]))
            x = x + mixed
            z_total = z_total + z_loss
        logits = _rms_norm(x, p["final_g"]) @ p["head"]
        return _cross_entropy(logits, text[:, 1:]) + 1e-3 * z_total

    rng = np.random.default_rng(6)
    text = rng.zipf(1.3, (batch, seq + 1)) % vocab
    return _train("cautious_adamw", loss_fn, p, jnp.asarray(text, jnp.int32))


def differential_transformer(batch: int = 4, seq: int = 256, width: int = 256,
                             heads: int = 4, kv_heads: int = 2, layers: int = 2,
                             vocab: int = 512, ffn: int = 672) -> Any:
    """A differential-attention language model in bfloat16: each head splits its query
    and key into two halves, takes two causal softmax maps and subtracts the second
    scaled by a learned lambda (a difference of exponentials of dot products of four
    learned vectors plus a depth-dependent initial value), with rotary position
    embeddings on queries and keys, grouped-query attention (two key-value heads
    repeated across four query heads), per-head RMS normalization of the result, RMSNorm
    and SwiGLU feed-forward layers; next-token cross-entropy; Adam-mini."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    hd = width // heads // 2                     # each of the two query/key halves
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width)}
    for l in range(layers):
        shapes |= {f"norm1_{l}_g": (width,), f"q_{l}": (width, width),
                   f"k_{l}": (width, kv_heads * 2 * hd), f"v_{l}": (width, kv_heads * 2 * hd),
                   f"lambda_{l}": (4, hd), f"head_norm_{l}_g": (2 * hd,),
                   f"out_{l}": (width, width), f"norm2_{l}_g": (width,),
                   f"gate_up_{l}": (width, 2 * ffn), f"down_{l}": (ffn, width)}
    shapes |= {"final_g": (width,), "head": (width, vocab)}
    p = _params(shapes, seed=7, dtype=bf16)
    for l in range(layers):
        p[f"lambda_{l}"] = p[f"lambda_{l}"] * 0.1

    inverse = 1.0 / (10000.0 ** (np.arange(0, hd, 2) / hd))
    angles = np.arange(seq)[:, None] * inverse[None, :]                  # (S, hd / 2)
    cos = jnp.asarray(np.cos(angles)[None, :, None, None], jnp.float32)
    sin = jnp.asarray(np.sin(angles)[None, :, None, None], jnp.float32)
    causal = jnp.tril(jnp.ones((seq, seq), bool))

    def rotary(x):
        """x (B, S, H, 2, hd): rotate pairs of features by position-dependent angles."""
        x32 = x.astype(jnp.float32)
        even, odd = x32[..., 0::2], x32[..., 1::2]
        turned = jnp.stack([even * cos - odd * sin, even * sin + odd * cos], -1)
        return turned.reshape(x.shape).astype(x.dtype)

    def attention(p, l, h):
        q = rotary((h @ p[f"q_{l}"]).reshape(batch, seq, heads, 2, hd))
        k = rotary((h @ p[f"k_{l}"]).reshape(batch, seq, kv_heads, 2, hd))
        v = (h @ p[f"v_{l}"]).reshape(batch, seq, kv_heads, 2 * hd)
        k = jnp.repeat(k, heads // kv_heads, 2)
        v = jnp.repeat(v, heads // kv_heads, 2)
        scores = jnp.einsum("bqhpd,bkhpd->bhpqk", q, k).astype(jnp.float32) / math.sqrt(hd)
        maps = jax.nn.softmax(jnp.where(causal, scores, -1e9), -1)       # (B, H, 2, S, S)
        lam = p[f"lambda_{l}"].astype(jnp.float32)
        start = 0.8 - 0.6 * math.exp(-0.3 * l)
        scale = jnp.exp(jnp.dot(lam[0], lam[1])) - jnp.exp(jnp.dot(lam[2], lam[3])) + start
        difference = (maps[:, :, 0] - scale * maps[:, :, 1]).astype(bf16)
        mixed = jnp.einsum("bhqk,bkhd->bqhd", difference, v)
        mixed = _rms_norm(mixed, p[f"head_norm_{l}_g"]) * (1.0 - start)
        return mixed.reshape(batch, seq, width) @ p[f"out_{l}"]

    def loss_fn(p, text):
        x = p["embed"][text[:, :-1]]
        for l in range(layers):
            x = x + attention(p, l, _rms_norm(x, p[f"norm1_{l}_g"]))
            gate, up = jnp.split(_rms_norm(x, p[f"norm2_{l}_g"]) @ p[f"gate_up_{l}"], 2, -1)
            x = x + (jax.nn.silu(gate) * up) @ p[f"down_{l}"]
        return _cross_entropy(_rms_norm(x, p["final_g"]) @ p["head"], text[:, 1:])

    rng = np.random.default_rng(7)
    text = (np.cumsum(rng.integers(0, 3, (batch, seq + 1)), 1) * 7) % vocab
    return _train("adam_mini", loss_fn, p, jnp.asarray(text, jnp.int32))


def dcn_mix_ctr(batch: int = 2048, dense: int = 13, embed: int = 16, cross: int = 3,
                experts: int = 4, rank: int = 32, deep: tuple[int, ...] = (512, 256)) -> Any:
    """A click-through-rate model of the DCN-v2 kind with a mixture of low-rank cross
    layers (DCN-Mix): twenty single-valued categorical fields gathered from one
    concatenated embedding table by offset ids, three multi-hot fields as masked mean
    bags, log-scaled dense features; each cross layer gates four low-rank experts
    x0 * (U tanh(C tanh(V^T x)) + b) by a softmax and adds the input back; a parallel
    deep MLP; the logistic loss of clicks; FTRL-proximal (L1 and L2) on every weight."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(8)
    single = [int(v) for v in rng.choice([8, 40, 300, 2000, 10000, 40000], 20)]
    multi = [5000, 2000, 800]
    bag = 6
    sizes = single + multi
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rows = int(sum(sizes))
    width = dense + len(sizes) * embed
    shapes: dict[str, tuple[int, ...]] = {"table": (rows, embed)}
    for l in range(cross):
        shapes |= {f"gate_{l}": (width, experts), f"v_{l}": (experts, width, rank),
                   f"c_{l}": (experts, rank, rank), f"u_{l}": (experts, rank, width),
                   f"cross_{l}_b": (width,)}
    previous = width
    for j, units in enumerate(deep):
        shapes |= {f"deep_{j}": (previous, units), f"deep_{j}_b": (units,)}
        previous = units
    shapes |= {"logit": (width + previous, 1), "logit_b": (1,)}
    p = _params(shapes, seed=8)
    p["table"] = p["table"] * 0.05

    def loss_fn(p, numbers, ids, bags, bag_mask, clicks):
        fields = p["table"][ids]                                          # (B, F, E)
        pooled = (p["table"][bags] * bag_mask[..., None]).sum(2) / jnp.maximum(
            bag_mask.sum(2, keepdims=True), 1.0)                          # (B, M, E)
        x0 = jnp.concatenate([jnp.log1p(numbers), fields.reshape(batch, -1),
                              pooled.reshape(batch, -1)], -1)
        x = x0
        for l in range(cross):
            weights = jax.nn.softmax(x @ p[f"gate_{l}"], -1)             # (B, K)
            low = jnp.tanh(jnp.einsum("bw,kwr->bkr", x, p[f"v_{l}"]))
            low = jnp.tanh(jnp.einsum("bkr,krs->bks", low, p[f"c_{l}"]))
            expert = x0[:, None] * (jnp.einsum("bks,ksw->bkw", low, p[f"u_{l}"])
                                    + p[f"cross_{l}_b"])
            x = jnp.einsum("bk,bkw->bw", weights, expert) + x
        h = x0
        for j in range(len(deep)):
            h = jax.nn.relu(h @ p[f"deep_{j}"] + p[f"deep_{j}_b"])
        logit = (jnp.concatenate([x, h], -1) @ p["logit"] + p["logit_b"])[:, 0]
        return jnp.mean(jax.nn.softplus(logit) - clicks * logit)

    ids = np.stack([rng.zipf(1.5, batch) % size for size in single], 1) + offsets[:len(single)]
    bags = np.stack([rng.integers(0, size, (batch, bag)) for size in multi], 1)
    bags = bags + offsets[len(single):, None]
    bag_mask = np.arange(bag)[None, None] < rng.integers(1, bag + 1, (batch, len(multi), 1))
    numbers = rng.exponential(3.0, (batch, dense))
    clicks = (rng.uniform(size=batch) < 0.2).astype(np.float32)
    return _train("ftrl", loss_fn, p, jnp.asarray(numbers, jnp.float32),
                  jnp.asarray(ids, jnp.int32), jnp.asarray(bags, jnp.int32),
                  jnp.asarray(bag_mask, jnp.float32), jnp.asarray(clicks))


def style_transfer_lbfgs(side: int = 128, widths: tuple[int, ...] = (32, 64, 128)) -> Any:
    """Neural style transfer whose only parameter is the image: a frozen VGG-like
    convolutional feature extractor (its weights are inputs of the step, not trained)
    sees the image, a style image and a content image; the loss compares Gram matrices
    of the image's features with the style's at three depths, its deeper features with
    the content's, and adds a total-variation smoothness term; L-BFGS (a history of
    eight pairs, the two-loop recursion in `fori_loop`s) moves the pixels."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    frozen = _params({"conv1_1": (3, 3, 3, widths[0]), "conv1_2": (3, 3, widths[0], widths[0]),
                      "conv2_1": (3, 3, widths[0], widths[1]),
                      "conv2_2": (3, 3, widths[1], widths[1]),
                      "conv3_1": (3, 3, widths[1], widths[2])}, seed=9, scale=1.4)

    def conv(x, w):
        return jax.nn.relu(lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                    dimension_numbers=_NHWC))

    def pool(x):
        b, h, w, c = x.shape
        return x.reshape(b, h // 2, 2, w // 2, 2, c).mean((2, 4))

    def features(image, w):
        a = conv(image, w["conv1_1"])
        b = conv(pool(conv(a, w["conv1_2"])), w["conv2_1"])
        c = conv(b, w["conv2_2"])
        d = conv(pool(c), w["conv3_1"])
        return [a, b, d], c

    def gram(f):
        b, h, w, c = f.shape
        flat = f.reshape(b, h * w, c)
        return jnp.einsum("bpc,bpd->bcd", flat, flat) / (h * w)

    def loss_fn(p, w, style, content):
        image = p["image"]
        style_feats, _ = features(style, w)
        _, content_feat = features(content, w)
        feats, feat = features(image, w)
        style_loss = sum(jnp.mean(jnp.square(gram(f) - lax.stop_gradient(gram(s))))
                         for f, s in zip(feats, style_feats))
        content_loss = jnp.mean(jnp.square(feat - lax.stop_gradient(content_feat)))
        tv = (jnp.mean(jnp.square(image[:, 1:] - image[:, :-1]))
              + jnp.mean(jnp.square(image[:, :, 1:] - image[:, :, :-1])))
        return 10.0 * style_loss + content_loss + 0.1 * tv

    rng = np.random.default_rng(9)
    ys, xs = np.meshgrid(np.linspace(0, 1, side), np.linspace(0, 1, side), indexing="ij")
    content = np.stack([xs, ys, 0.5 + 0.5 * np.sin(6 * xs * ys)], -1)[None]
    stripes = 0.5 + 0.5 * np.sin(40 * (xs + 0.3 * ys))[..., None] * np.array([1.0, 0.4, -0.6])
    style = (stripes + 0.1 * rng.standard_normal((side, side, 3)))[None]
    start = {"image": jnp.asarray(content + 0.05 * rng.standard_normal(content.shape),
                                  jnp.float32)}
    return _train("lbfgs", loss_fn, start, frozen, jnp.asarray(style, jnp.float32),
                  jnp.asarray(content, jnp.float32))


def neural_hawkes(batch: int = 64, events: int = 128, types: int = 8, hidden: int = 96,
                  samples: int = 16) -> Any:
    """A neural Hawkes process: a continuous-time LSTM under `lax.scan` over padded event
    sequences, whose cell decays exponentially between events from its post-event value
    toward a second target cell at learned per-unit rates; each event's type intensity
    comes from the decayed state by a scaled softplus, the integral of the total
    intensity over each gap is a Monte-Carlo average over uniform sample times in it,
    and the log-likelihood is the sum of event log-intensities minus those integrals;
    AggMo (three momenta)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    p = _params({"embed": (types + 1, hidden), "cell": (2 * hidden, 7 * hidden),
                 "cell_b": (7 * hidden,), "intensity": (hidden, types),
                 "intensity_b": (types,), "softness_b": (types,)}, seed=10)

    def scaled_softplus(x, softness):
        s = jnp.exp(softness)
        return s * jax.nn.softplus(x / s)

    def decayed(state, gap):
        """h(t) at `gap` (B, ...) after the last event, from its (c, c_bar, rate, o)."""
        c, target, rate, o = state
        c_t = target + (c - target) * jnp.exp(-rate * gap[..., None])
        return o * jnp.tanh(c_t)

    def loss_fn(p, kinds, gaps, uniforms, mask):
        def advance(state, step):
            kind, gap, u, keep = step
            h = decayed(state, gap)                                       # (B, H)
            rates = scaled_softplus(h @ p["intensity"] + p["intensity_b"], p["softness_b"])
            log_here = jnp.log(jnp.take_along_axis(rates, kind[:, None], 1)[:, 0] + 1e-9)
            between = decayed(tuple(a[:, None] for a in state), u * gap[:, None])   # (B, S, H)
            total = scaled_softplus(between @ p["intensity"] + p["intensity_b"],
                                    p["softness_b"]).sum(-1)
            integral = total.mean(-1) * gap
            c, target, rate, _ = state
            c_t = target + (c - target) * jnp.exp(-rate * gap[:, None])
            gates = jnp.concatenate([p["embed"][kind + 1], h], -1) @ p["cell"] + p["cell_b"]
            i, f, z, o, i_bar, f_bar, d = jnp.split(gates, 7, -1)
            i, f, o = jax.nn.sigmoid(i), jax.nn.sigmoid(f + 1.0), jax.nn.sigmoid(o)
            i_bar, f_bar, z = jax.nn.sigmoid(i_bar), jax.nn.sigmoid(f_bar + 1.0), jnp.tanh(z)
            new = (f * c_t + i * z, f_bar * target + i_bar * z, jax.nn.softplus(d), o)
            state = tuple(jnp.where(keep[:, None], a, b) for a, b in zip(new, state))
            return state, jnp.where(keep, log_here - integral, 0.0)

        # a start-of-sequence event (type -1) at time zero sets the first state
        gates = p["embed"][0] @ p["cell"][:hidden] + p["cell_b"]
        i, _, z, o, i_bar, _, d = jnp.split(gates, 7, -1)
        z = jnp.tanh(z)
        start = tuple(jnp.broadcast_to(a, (batch, hidden)) for a in (
            jax.nn.sigmoid(i) * z, jax.nn.sigmoid(i_bar) * z, jax.nn.softplus(d),
            jax.nn.sigmoid(o)))
        xs = (kinds.T, gaps.T, uniforms.transpose(1, 0, 2), mask.T)
        _, terms = lax.scan(advance, start, xs)
        return -terms.sum() / jnp.sum(mask)

    rng = np.random.default_rng(10)
    lengths = rng.integers(events // 2, events + 1, batch)
    mask = np.arange(events)[None] < lengths[:, None]
    return _train("aggmo", loss_fn, p,
                  jnp.asarray(rng.integers(0, types, (batch, events)), jnp.int32),
                  jnp.asarray(rng.exponential(0.5, (batch, events)), jnp.float32),
                  jnp.asarray(rng.uniform(size=(batch, events, samples)), jnp.float32),
                  jnp.asarray(mask))


def multigrid_poisson(batch: int = 1, side: int = 63, cycles: int = 6, sweeps: int = 2,
                      coarse_sweeps: int = 30) -> Any:
    """Inference: the 3-D Poisson equation -lap u = f with zero boundary values on the
    unit cube, solved by geometric multigrid V-cycles in a `fori_loop`: weighted Jacobi
    smoothing with the 7-point stencil (shifted slices of the padded grid), the residual
    restricted by a stride-2 3-D convolution with the full-weighting kernel, the
    coarse-grid correction recursively down to a 3x3x3 grid (relaxed there by a
    `fori_loop` of Jacobi sweeps) and prolonged back by a stride-2 transposed 3-D
    convolution with the trilinear kernel; the relative residual after each cycle is
    kept."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    sizes = [side]
    while sizes[-1] > 3:
        sizes.append((sizes[-1] - 1) // 2)
    one = np.array([0.25, 0.5, 0.25], np.float32)
    full_weighting = jnp.asarray(np.einsum("i,j,k->ijk", one, one, one)[..., None, None])
    trilinear = 8.0 * full_weighting

    def operator(u, h):
        n = u.shape[1]
        padded = jnp.pad(u, ((0, 0), (1, 1), (1, 1), (1, 1)))
        around: Any = 0.0
        for axis in range(3):
            for shift in (0, 2):
                start = [0, 1, 1, 1]
                start[axis + 1] = shift
                limit = [u.shape[0]] + [s + n for s in start[1:]]
                around = around + lax.slice(padded, start, limit)
        return (6.0 * u - around) / (h * h)

    def jacobi(u, f, h):
        return u + (2.0 / 3.0) * (h * h / 6.0) * (f - operator(u, h))

    def restrict(r):
        return lax.conv_general_dilated(r[..., None], full_weighting, (2, 2, 2), "VALID",
                                        dimension_numbers=_NDHWC)[..., 0]

    def prolong(e):
        return lax.conv_transpose(e[..., None], trilinear, (2, 2, 2), "VALID",
                                  dimension_numbers=_NDHWC)[..., 0]

    def v_cycle(u, f, level):
        h = 1.0 / (sizes[level] + 1)
        if level == len(sizes) - 1:
            return lax.fori_loop(0, coarse_sweeps, lambda _, v: jacobi(v, f, h), u)
        for _ in range(sweeps):
            u = jacobi(u, f, h)
        coarse_f = restrict(f - operator(u, h))
        u = u + prolong(v_cycle(jnp.zeros_like(coarse_f), coarse_f, level + 1))
        for _ in range(sweeps):
            u = jacobi(u, f, h)
        return u

    def norm(a):
        return jnp.sqrt(jnp.sum(a * a, (1, 2, 3)))

    def run(f):
        h = 1.0 / (side + 1)
        first = norm(f)

        def cycle(i, carry):
            u, history = carry
            u = v_cycle(u, f, 0)
            return u, history.at[:, i].set(norm(f - operator(u, h)) / first)

        u, history = lax.fori_loop(0, cycles, cycle, (jnp.zeros_like(f),
                                                      jnp.zeros((batch, cycles))))
        return u, history, jnp.abs(u).max((1, 2, 3))

    rng = np.random.default_rng(11)
    grid = np.linspace(0, 1, side + 2)[1:-1]
    z, y, x = np.meshgrid(grid, grid, grid, indexing="ij")
    sources = np.zeros((batch, side, side, side))
    for b in range(batch):
        for centre, weight in zip(rng.uniform(0.2, 0.8, (4, 3)), rng.choice([-1, 1], 4)):
            sources[b] += weight * 100 * np.exp(-((z - centre[0]) ** 2 + (y - centre[1]) ** 2
                                                  + (x - centre[2]) ** 2) / 0.01)
    return jax.jit(run).lower(jnp.asarray(sources, jnp.float32))


def auction_assignment(problems: int = 16, size: int = 128, max_rounds: int = 3000) -> Any:
    """Inference: dense linear assignment problems (integer benefits) solved by the
    Jacobi-style auction algorithm with epsilon scaling (five phases, epsilon 16 down to
    1 / (n + 1), prices kept between phases): per phase a `while_loop` of bidding rounds
    that runs until every person holds an object (data-dependent, capped at a round
    limit): every unassigned person finds its best and second-best object by `top_k`
    over benefit minus price (behind an optimization barrier, which keeps XLA from
    fusing the sort into each consumer) and bids the difference plus epsilon, each
    object takes its highest bid by a scatter-max and its lowest-numbered top bidder by
    a scatter-min, and displaced owners are unassigned by a scatter with dropped
    out-of-range indices; then the total benefit and the largest violation of
    epsilon-complementary slackness."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rows = jnp.arange(problems)[:, None]
    people = jnp.arange(size, dtype=jnp.int32)
    epsilons = (16.0, 4.0, 1.0, 0.25, 1.0 / (size + 1))     # the last makes it optimal

    def run(benefit):
        def bid_round(state, eps):
            price, owner, holds, rounds = state
            # the barrier keeps XLA from fusing the top-k sort into each of its consumers
            top, best = lax.optimization_barrier(lax.top_k(benefit - price[:, None, :], 2))
            best = best[..., 0]
            bidding = holds < 0
            offer = jnp.where(bidding, jnp.take_along_axis(price, best, 1)
                              + top[..., 0] - top[..., 1] + eps, -jnp.inf)
            high = jnp.full((problems, size), -jnp.inf).at[rows, best].max(offer)
            leading = bidding & (offer == jnp.take_along_axis(high, best, 1))
            winner = jnp.full((problems, size), size, jnp.int32).at[rows, best].min(
                jnp.where(leading, people, size))
            taken = winner < size
            displaced = jnp.where(taken & (owner >= 0), owner, size)
            holds = holds.at[rows, displaced].set(-1, mode="drop")
            holds = holds.at[rows, jnp.where(taken, winner, size)].set(
                jnp.broadcast_to(people, (problems, size)), mode="drop")
            owner = jnp.where(taken, winner, owner)
            price = jnp.where(taken, high, price)
            return price, owner, holds, rounds + 1

        def unfinished(state):
            return jnp.any(state[2] < 0) & (state[3] < max_rounds)

        price = jnp.zeros((problems, size))
        counts = []
        for eps in epsilons:
            empty = jnp.full((problems, size), -1, jnp.int32)
            state = (price, empty, empty, jnp.zeros((), jnp.int32))
            state = lax.while_loop(unfinished, partial(bid_round, eps=eps), state)
            price, owner, holds, rounds = state
            counts.append(rounds)
        value = jnp.take_along_axis(benefit, jnp.maximum(holds, 0)[..., None], 2)[..., 0]
        surplus = benefit - price[:, None, :]
        slack = surplus.max(2) - (value - jnp.take_along_axis(price, jnp.maximum(holds, 0), 1))
        return holds, value.sum(1), price, jnp.stack(counts), slack.max(1)

    rng = np.random.default_rng(12)
    benefit = rng.integers(0, 100, (problems, size, size)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(benefit))


def _aes_tables() -> tuple[Any, Any]:
    """The AES S-box (from the inverse in GF(2^8) and the affine map) and the round keys
    of AES-128 for the key 00 01 .. 0f (FIPS-197's example key), as numpy uint8."""
    import numpy as np

    def multiply(a: int, b: int) -> int:
        out = 0
        while b:
            if b & 1:
                out ^= a
            a = ((a << 1) ^ (0x1B if a & 0x80 else 0)) & 0xFF
            b >>= 1
        return out

    sbox = np.zeros(256, np.uint8)
    for x in range(256):
        inverse = next((y for y in range(1, 256) if multiply(x, y) == 1), 0) if x else 0
        s = inverse
        for shift in range(1, 5):
            s ^= ((inverse << shift) | (inverse >> (8 - shift))) & 0xFF
        sbox[x] = s ^ 0x63
    words = [list(range(4 * i, 4 * i + 4)) for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        word = list(words[i - 1])
        if i % 4 == 0:
            word = [int(sbox[b]) for b in word[1:] + word[:1]]
            word[0] ^= rcon
            rcon = multiply(rcon, 2)
        words.append([a ^ b for a, b in zip(words[i - 4], word)])
    keys = np.array(words, np.uint8).reshape(11, 16)
    return sbox, keys


def aes_ctr_encrypt(blocks: int = 131072) -> Any:
    """Inference: AES-128 in counter mode over a 2 MiB buffer, in uint8: counter blocks
    built from a nonce and the block index by shifts and masks, the initial round key
    added by XOR, nine full rounds in a `fori_loop` (SubBytes as a gather from the S-box,
    ShiftRows as a fixed gather of byte positions, MixColumns by `xtime` shifts and XORs
    of rolled rows, the round key cut by `dynamic_slice`) and a final round without
    MixColumns; the key stream XORed into the plaintext, then a byte histogram of the
    ciphertext by scatter-add and an XOR fold of all blocks."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shift_rows = np.array([r + 4 * ((c + r) % 4) for c in range(4) for r in range(4)])

    def sub_shift(state, sbox):
        return jnp.take(sbox, state.astype(jnp.int32), axis=0)[:, shift_rows]

    def xtime(x):
        return (x << 1) ^ ((x >> 7) * jnp.uint8(0x1B))

    def mix_columns(state):
        a = state.reshape(-1, 4, 4)                                       # (N, column, row)
        total = a[..., 0] ^ a[..., 1] ^ a[..., 2] ^ a[..., 3]
        return (a ^ total[..., None] ^ xtime(a ^ jnp.roll(a, -1, -1))).reshape(-1, 16)

    def run(plaintext, nonce, sbox, round_keys):
        index = jnp.arange(blocks, dtype=jnp.uint32)
        counter = jnp.stack([(index >> s) & jnp.uint32(0xFF) for s in (24, 16, 8, 0)], -1)
        state = jnp.concatenate([jnp.broadcast_to(nonce, (blocks, 8)),
                                 jnp.zeros((blocks, 4), jnp.uint8),
                                 counter.astype(jnp.uint8)], -1)
        state = state ^ round_keys[0]

        def round_(i, state):
            key = lax.dynamic_slice_in_dim(round_keys, i, 1, 0)
            return mix_columns(sub_shift(state, sbox)) ^ key

        state = lax.fori_loop(1, 10, round_, state)
        stream = sub_shift(state, sbox) ^ round_keys[10]
        cipher = plaintext ^ stream
        histogram = jnp.zeros(256, jnp.int32).at[cipher.reshape(-1).astype(jnp.int32)].add(1)
        folded = lax.reduce(cipher, np.uint8(0), lax.bitwise_xor, (0,))
        return cipher, histogram, folded

    sbox, round_keys = _aes_tables()
    rng = np.random.default_rng(13)
    text = rng.integers(0, 256, (blocks, 16), dtype=np.uint8)
    text[::3] = 0
    return jax.jit(run).lower(jnp.asarray(text), jnp.asarray(np.arange(8, dtype=np.uint8)),
                              jnp.asarray(sbox), jnp.asarray(round_keys))


def gillespie_toggle(cells: int = 4096, steps: int = 600, samples: int = 32,
                     horizon: float = 12.0) -> Any:
    """Inference: Gillespie's stochastic simulation of a genetic toggle switch (two
    mRNA-protein pairs, each protein repressing the other gene by a Hill function,
    eight reactions) in thousands of independent cells, a `fori_loop` of reaction
    events: propensities, an exponential waiting time from one uniform, the reaction
    chosen by comparing a second uniform with the `cumsum` of propensities, the state
    changed by a gathered stoichiometry row, and the state recorded at every grid time
    the event jumps over; then per grid time the mean and variance over the cells
    that reached it, a histogram of the final protein counts by scatter-add and the
    fraction of cells in each toggle state."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    stoichiometry = jnp.asarray([[1, 0, 0, 0], [-1, 0, 0, 0], [0, 1, 0, 0], [0, -1, 0, 0],
                                 [0, 0, 1, 0], [0, 0, -1, 0], [0, 0, 0, 1], [0, 0, 0, -1]],
                                jnp.int32)
    grid = jnp.linspace(0.0, horizon, samples)

    def propensities(x):
        m1, p1, m2, p2 = x[:, 0], x[:, 1], x[:, 2], x[:, 3]
        return jnp.stack([4.0 / (1.0 + jnp.square(p2 / 40.0)), 1.0 * m1, 2.0 * m1, 0.1 * p1,
                          4.0 / (1.0 + jnp.square(p1 / 40.0)), 1.0 * m2, 2.0 * m2, 0.1 * p2],
                         -1)

    def run(initial, key):
        def event(i, carry):
            state, time, record = carry
            u = jax.random.uniform(jax.random.fold_in(key, i), (cells, 2), minval=1e-7)
            rates = propensities(state.astype(jnp.float32))
            total = rates.sum(-1)
            wait = -jnp.log(u[:, 0]) / total
            pick = jnp.minimum(jnp.sum(jnp.cumsum(rates, -1) < (u[:, 1] * total)[:, None], -1),
                               7)
            later = time + wait
            crossed = (grid >= time[:, None]) & (grid < later[:, None])    # (C, G)
            record = jnp.where(crossed[..., None], state[:, None], record)
            return state + stoichiometry[pick], later, record

        start = (initial, jnp.zeros((cells,)), jnp.full((cells, samples, 4), -1, jnp.int32))
        state, time, record = lax.fori_loop(0, steps, event, start)
        seen = record[..., 0] >= 0
        values = record.astype(jnp.float32)
        reached = jnp.maximum(seen.sum(0), 1)[:, None]
        mean = jnp.sum(jnp.where(seen[..., None], values, 0.0), 0) / reached
        var = jnp.sum(jnp.where(seen[..., None], jnp.square(values - mean), 0.0), 0) / reached
        histogram = jnp.zeros(128, jnp.int32).at[jnp.minimum(state[:, 1] // 2, 127)].add(1)
        first_high = jnp.mean((state[:, 1] > state[:, 3]).astype(jnp.float32))
        return state, time, mean, var, histogram, first_high

    rng = np.random.default_rng(14)
    initial = rng.integers(0, 20, (cells, 4)).astype(np.int32)
    return jax.jit(run).lower(jnp.asarray(initial), jax.random.PRNGKey(14))


def phase_correlation(pairs: int = 16, side: int = 256, upsample: int = 16) -> Any:
    """Inference: sub-pixel image registration by phase correlation: Hann-windowed
    complex 2-D FFTs of both images, the normalized cross-power spectrum, its inverse
    FFT and an `argmax` for the integer shift (unravelled by division and remainder,
    wrapped to signed offsets), then refinement to a sixteenth of a pixel by an
    upsampled DFT of the unnormalized cross-power spectrum in a 1.5-pixel box around the
    peak (complex matrix products with per-pair DFT kernels) and a second `argmax`; the
    second image is shifted back by the Fourier shift theorem and compared with the
    first (error and normalized correlation)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    box = int(math.ceil(1.5 * upsample))
    freq = jnp.asarray(np.fft.fftfreq(side), jnp.float32)
    hann = np.hanning(side)
    window = jnp.asarray(np.outer(hann, hann), jnp.float32)

    def run(first, second):
        a = jnp.fft.fft2(first * window)
        b = jnp.fft.fft2(second * window)
        cross = a * jnp.conj(b)
        surface = jnp.real(jnp.fft.ifft2(cross / (jnp.abs(cross) + 1e-9))).reshape(pairs, -1)
        peak = jnp.argmax(surface, -1)
        coarse = jnp.stack([peak // side, peak % side], -1)
        coarse = jnp.where(coarse > side // 2, coarse - side, coarse).astype(jnp.float32)
        offsets = (jnp.arange(box, dtype=jnp.float32) - box // 2) / upsample
        rows = coarse[:, 0:1] + offsets                                   # (P, box)
        cols = coarse[:, 1:2] + offsets
        kernel_rows = jnp.exp(2j * jnp.pi * rows[..., None] * freq)      # (P, box, N)
        kernel_cols = jnp.exp(2j * jnp.pi * cols[..., None] * freq)
        fine = jnp.einsum("pyk,pkl,pxl->pyx", kernel_rows, cross, kernel_cols)
        best = jnp.argmax(jnp.abs(fine).reshape(pairs, -1), -1)
        shift = jnp.stack([jnp.take_along_axis(rows, (best // box)[:, None], 1)[:, 0],
                           jnp.take_along_axis(cols, (best % box)[:, None], 1)[:, 0]], -1)
        phase = (freq[None, :, None] * shift[:, 0, None, None]
                 + freq[None, None, :] * shift[:, 1, None, None])
        aligned = jnp.real(jnp.fft.ifft2(jnp.fft.fft2(second) * jnp.exp(-2j * jnp.pi * phase)))
        error = jnp.mean(jnp.square(aligned - first), (1, 2))
        x = aligned - aligned.mean((1, 2), keepdims=True)
        y = first - first.mean((1, 2), keepdims=True)
        ncc = jnp.sum(x * y, (1, 2)) / jnp.sqrt(jnp.sum(x * x, (1, 2)) * jnp.sum(y * y, (1, 2)))
        return shift, error, ncc

    rng = np.random.default_rng(15)
    k = np.fft.fftfreq(side)
    ky, kx = k[:, None], k[None, :]
    lowpass = np.exp(-(ky ** 2 + kx ** 2) / (2 * 0.05 ** 2))
    spectra = np.fft.fft2(rng.standard_normal((pairs, side, side))) * lowpass
    true_shift = rng.uniform(-20, 20, (pairs, 2))
    moved = spectra * np.exp(2j * np.pi * (ky * true_shift[:, 0, None, None]
                                           + kx * true_shift[:, 1, None, None]))
    first = np.real(np.fft.ifft2(spectra))
    second = np.real(np.fft.ifft2(moved)) + 0.01 * first.std() * rng.standard_normal(first.shape)
    return jax.jit(run).lower(jnp.asarray(first, jnp.float32), jnp.asarray(second, jnp.float32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "graphsage_sampled/512-seeds-15x10": graphsage_sampled,
    "rnnt_transducer/8x160-frames-24-labels": rnnt_transducer,
    "kan_regression/4096x6-64-64-g16": kan_regression,
    "p4_group_cnn/8x32px-bf16": p4_group_cnn,
    "ffjord_density/512x8-rk4x6": ffjord_density,
    "expert_choice_moe/4x256-e8-bf16": expert_choice_moe,
    "differential_transformer/4x256-d256-bf16": differential_transformer,
    "dcn_mix_ctr/2048x23-fields": dcn_mix_ctr,
    "style_transfer_lbfgs/128px-m8": style_transfer_lbfgs,
    "neural_hawkes/64x128-events": neural_hawkes,
    "multigrid_poisson/63x63x63-6-cycles": multigrid_poisson,
    "auction_assignment/16x128": auction_assignment,
    "aes_ctr_encrypt/131072-blocks": aes_ctr_encrypt,
    "gillespie_toggle/4096-cells-600": gillespie_toggle,
    "phase_correlation/16x256px-u16": phase_correlation,
}
