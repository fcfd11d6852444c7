"""The twelfth never-seen set: programs written on 2026-11-27, after the eleventh set
(benchmarks/never_seen_11/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-12` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
eleven never-seen sets has; as in the eleventh set, several training steps are large
(a few gigaflops each). Ten are training steps (forward, loss, backward and an
optimizer update). An HRNet pose estimator keeps branches at three resolutions side by
side, exchanging them after every stage through strided 3x3 convolutions downward and
1x1 convolutions with nearest-neighbour repetition upward, and regresses Gaussian
joint heatmaps from its finest branch. An AlphaZero policy-value network for 19x19 Go
in bfloat16 applies one of the eight board symmetries per position inside the step
(chosen from a stack of `rot90` and `flip` copies by a gather, the visit-count target
transformed with it) before a residual tower of 3x3 convolutions with policy and value
heads, trained on soft visit distributions, game outcomes and an L2 penalty. A
HiFi-GAN-style vocoder generator turns a log-mel spectrogram into a waveform through
weight-normalized transposed 1-D convolutions and multi-receptive-field fusion of
dilated residual convolutions, trained without discriminators by a multi-resolution
STFT loss (gathered frames, Hann windows, real FFTs; spectral convergence and log
magnitudes). A Decision Transformer in bfloat16 interleaves return-to-go, state and
action tokens with gathered timestep embeddings and predicts actions by causal
self-attention masked against left padding. A Graphormer regresses a property of
padded molecular graphs with a virtual graph token, degree embeddings and per-head
attention biases gathered by shortest-path distance and averaged over the bond types
along each shortest path (all paths found on the host by Floyd-Warshall). A soft
actor-critic update trains twin critics against target critics passed in as inputs, a
tanh-squashed Gaussian actor by reparameterized sampling and an entropy temperature,
and returns the Polyak-averaged targets. A Bayes-by-backprop classifier samples its
Gaussian weight posteriors by the local reparameterization trick (a second matrix
product per layer for the pre-activation variances) under a closed-form KL term. A
controller for a 2-D mass-spring soft robot is trained by backpropagation through 256
semi-implicit Euler steps of its simulation in a `lax.scan` (spring forces gathered
from endpoints and scatter-added onto masses, penalty contact with friction). One
round of user-level differentially private federated averaging runs eight clients
under `vmap` (the convolutions of a small CNN becoming grouped ones), each taking
three local SGD steps in a `fori_loop`, clips and averages their model changes, adds
Gaussian noise and applies the result as a server pseudo-gradient. A vision
transformer in bfloat16 alternates dense MLPs with Soft MoE layers, where each
expert's slots are softmax-over-tokens mixtures of the tokens and each token takes a
softmax-over-slots mixture of the expert outputs. Five are inference or scientific
steps without a gradient: a 2-D Yee finite-difference time-domain simulation of
Maxwell's equations (transverse-magnetic mode) in a `fori_loop`, with a dielectric
lens, a graded absorbing border, a Ricker source, receiver traces written by
`dynamic_update_slice`, energy and Poynting-flux sums and complex64 running DFTs;
WalkSAT on a planted random 3-SAT instance, sixteen chains in a `while_loop` that
stops when any chain satisfies every clause (capped at 2000 flips), with break counts
by `segment_sum` and clause choice by a uint32 hash; Monte Carlo photon migration
through three tissue layers in the manner of MCML, a `while_loop` until every packet
has died or left (capped at 600 events), with Fresnel partial reflection,
Henyey-Greenstein scattering, Russian roulette and scatter-added absorption,
reflectance and transmittance tallies; streaming sketches of a million Zipf-distributed
uint32 keys (count-min and count sketches by `segment_sum`, HyperLogLog by `clz` and
`segment_max`, a Bloom filter set by a scatter) checked against exact answers from a
`sort` and `searchsorted`, with heavy hitters by `top_k`; and Hough-transform line
detection (Gaussian and Sobel convolutions, `top_k` edge points voting into a
(theta, rho) accumulator by one scatter-add, `reduce_window` non-maximum suppression,
`top_k` peaks and the supporting points and extent of each line). The updates are all
new to these sets: SPAM (Adam with periodic momentum resets, cosine re-warm-up and
spike clipping against the second moment), Demon (momentum decaying over a step
budget), AdaShift (a first moment over a queue of recent gradients, a second moment
from the gradient leaving the queue, reduced by a maximum), AdamW under ZClip (z-score
clipping of the global gradient norm), PowerSGD (rank-2 compression by a warm-started
power iteration with Gram-Schmidt and error feedback, under momentum SGD), signSGD with
error feedback (a sign and a mean magnitude per tensor), the Armijo stochastic line
search (backtracking in a `while_loop` that re-evaluates the loss), deep gradient
compression (top-1% sparsification of a momentum-corrected accumulator by `top_k`,
with momentum factor masking), server-side Adam on noised, clipped client averages
(DP-FedAdam) and AdamW with gradient centralization; three training steps (the Go
network, the Decision Transformer and the Soft MoE transformer) run in bfloat16.
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


def _update_rule(name: str) -> tuple[Callable[[Any], Any], Callable[..., tuple[Any, Any]]]:
    """The named optimizer as (init, update): init(params) -> state, and
    update(params, grads, state, loss, evaluate) -> (params, state), where evaluate(params)
    is the step's loss at other parameters on the same batch (only the line search uses
    it). State is float32 whatever the parameters' dtype; every parameter keeps its own
    dtype."""
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

    def sum_squares(tree: Any) -> Any:
        return sum(jnp.sum(a * a) for a in jax.tree.leaves(tree))

    if name == "spam":
        # SPAM (spike-aware Adam with momentum reset): every 500 steps both moments are
        # zeroed and the learning rate re-warms along a cosine over 150 steps; a gradient
        # element whose square exceeds 5000 times its second moment is clipped back to
        # that bound with its sign kept
        period, warm, theta = 500, 150, 5000.0

        def spam(params, grads, state, loss, evaluate):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            fresh = (t > 1) & ((t - 1) % period == 0)
            m = tm(lambda m_: jnp.where(fresh, 0.0, m_), m)
            v = tm(lambda v_: jnp.where(fresh, 0.0, v_), v)
            since = ((t - 1) % period + 1).astype(f32)
            ramp = 0.5 * (1.0 - jnp.cos(jnp.pi * jnp.minimum(since / warm, 1.0)))
            g = tm(lambda g_, v_: jnp.where((v_ > 0) & (g_ * g_ > theta * v_),
                                            jnp.sign(g_) * jnp.sqrt(theta * v_), g_), g, v)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) - 1e-3 * ramp * (m_ / (1.0 - 0.9 ** since))
                       / (jnp.sqrt(v_ / (1.0 - 0.999 ** since)) + 1e-8), params, m, v)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), spam

    if name == "demon":
        # Demon (decaying momentum) SGD: the momentum coefficient falls from 0.9 toward
        # zero over a 10,000-step budget as beta0 (1 - t/T) / ((1 - beta0) + beta0 (1 - t/T)),
        # so the total contribution of a gradient to future steps decays linearly
        beta0, total, rate = 0.9, 10000.0, 0.02

        def demon(params, grads, state, loss, evaluate):
            buf, t = state
            left = jnp.maximum(1.0 - t.astype(f32) / total, 0.0)
            beta = beta0 * left / ((1.0 - beta0) + beta0 * left)
            buf = tm(lambda b_, g_: beta * b_ + g_, buf, wide(grads))
            moved = tm(lambda p, b_: p.astype(f32) - rate * b_, params, buf)
            return recast(params, moved), (buf, t + 1)
        return (lambda p: (zeros(p), count())), demon

    if name == "adashift":
        # AdaShift: the first moment is a beta1-weighted average of the latest four
        # gradients (a queue in the state), while the second moment only sees the gradient
        # that just left the queue, reduced by a maximum over the tensor's last axis, so
        # the two are decorrelated; no step is taken until the queue has filled
        keep, beta1, beta2, rate = 4, 0.9, 0.999, 1e-3
        weights = [beta1 ** (keep - 1 - i) for i in range(keep)]

        def adashift_init(params):
            return tm(lambda p: jnp.zeros((keep,) + p.shape, f32), params), zeros(params), count()

        def adashift(params, grads, state, loss, evaluate):
            queue, v, t = state
            g = wide(grads)
            t = t + 1
            oldest = tm(lambda q: q[0], queue)
            queue = tm(lambda q, g_: jnp.concatenate([q[1:], g_[None]], 0), queue, g)
            m = tm(lambda q: jnp.tensordot(jnp.asarray(weights, f32), q, 1) / sum(weights), queue)

            def second(v_, o):
                spike = jnp.max(o * o, -1, keepdims=True) if o.ndim else o * o
                return beta2 * v_ + (1.0 - beta2) * spike
            v = tm(second, v, oldest)
            ready = t > keep
            correction = 1.0 - beta2 ** jnp.maximum(t - keep, 1).astype(f32)
            moved = tm(lambda p, m_, v_: jnp.where(
                ready, p.astype(f32) - rate * m_ / (jnp.sqrt(v_ / correction) + 1e-8),
                p.astype(f32)), params, m, v)
            return recast(params, moved), (queue, v, t)
        return adashift_init, adashift

    if name == "zclip_adamw":
        # ZClip under AdamW: the global gradient norm is compared with running estimates
        # of its mean and standard deviation (plain averages over a 25-step warm-up, then
        # exponential ones); a norm more than 2.5 deviations above the mean is clipped to
        # that bound, and the statistics are updated with the clipped norm
        warmup, z_max, alpha = 25, 2.5, 0.03

        def zclip_init(params):
            return (zeros(params), zeros(params), jnp.zeros((), f32), jnp.zeros((), f32),
                    count())

        def zclip_adamw(params, grads, state, loss, evaluate):
            m, v, mean, var, t = state
            g = wide(grads)
            norm = jnp.sqrt(sum_squares(g))
            std = jnp.sqrt(var)
            z = (norm - mean) / (std + 1e-6)
            warming = t < warmup
            bounded = jnp.where(~warming & (z > z_max), mean + z_max * std, norm)
            g = tm(lambda g_: g_ * (bounded / (norm + 1e-12)), g)
            n = t.astype(f32)
            running = (mean * n + bounded) / (n + 1.0)
            new_mean = jnp.where(warming, running, (1.0 - alpha) * mean + alpha * bounded)
            var = jnp.where(warming, (var * n + jnp.square(bounded - running)) / (n + 1.0),
                            (1.0 - alpha) * var + alpha * jnp.square(bounded - new_mean))
            t = t + 1
            k = t.astype(f32)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.95 * v_ + 0.05 * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - 3e-4 * 0.1) - 3e-4
                       * (m_ / (1.0 - 0.9 ** k)) / (jnp.sqrt(v_ / (1.0 - 0.95 ** k)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, new_mean, var, t)
        return zclip_init, zclip_adamw

    if name == "powersgd":
        # PowerSGD: every matrix-shaped gradient (plus the error left over from the last
        # step) is compressed to rank 2 by one power iteration warm-started from the last
        # step's right factor, the left factor orthonormalized by Gram-Schmidt; what the
        # compression missed is fed back next step, and momentum SGD with weight decay
        # takes the decompressed gradient; vectors pass uncompressed
        rank, rate = 2, 0.05

        def matrix(p):
            return p.ndim >= 2 and min(math.prod(p.shape[:-1]), p.shape[-1]) > rank

        def powersgd_init(params):
            leaves, treedef = jax.tree.flatten(params)
            key = jax.random.PRNGKey(1201)
            qs = [jax.random.normal(jax.random.fold_in(key, i), (leaf.shape[-1], rank), f32)
                  if matrix(leaf) else jnp.zeros((1,), f32) for i, leaf in enumerate(leaves)]
            return zeros(params), zeros(params), treedef.unflatten(qs)

        def orthonormal(a):
            cols: list[Any] = []
            for j in range(rank):
                c = a[:, j]
                for q in cols:
                    c = c - jnp.dot(q, c) * q
                cols.append(c / (jnp.linalg.norm(c) + 1e-8))
            return jnp.stack(cols, 1)

        def compress(p, g_, e_, q_):
            if not matrix(p):
                return g_, e_, q_
            full = (g_ + e_).reshape(-1, p.shape[-1])
            left = orthonormal(full @ q_)
            right = full.T @ left
            approx = left @ right.T
            return approx.reshape(p.shape), (full - approx).reshape(p.shape), right

        def powersgd(params, grads, state, loss, evaluate):
            buf, error, right = state
            sent, error, right = _unzip(tm(compress, params, wide(grads), error, right),
                                        params, 3)
            buf = tm(lambda b_, s_: 0.9 * b_ + s_, buf, sent)
            moved = tm(lambda p, b_: p.astype(f32) * (1.0 - rate * 1e-4) - rate * b_,
                       params, buf)
            return recast(params, moved), (buf, error, right)
        return powersgd_init, powersgd

    if name == "ef_signsgd":
        # signSGD with error feedback: the scaled gradient plus the carried error is
        # sent as its sign times its mean absolute value (one bit per element and one
        # scale per tensor), and what that compression dropped becomes the next error
        rate = 3e-4

        def ef_signsgd(params, grads, state, loss, evaluate):
            def move(p, g_, e_):
                full = rate * g_ + e_
                sent = jnp.mean(jnp.abs(full)) * jnp.sign(full)
                return (p.astype(f32) - sent).astype(p.dtype), full - sent
            params, error = _unzip(tm(move, params, wide(grads), state), params, 2)
            return params, error
        return (lambda p: zeros(p)), ef_signsgd

    if name == "sls":
        # stochastic line search (Armijo backtracking): each step tries the last step size
        # grown by 2^(batch / examples) (capped), and halves it in a `while_loop` until
        # the loss on the same batch falls by at least 0.1 * eta * |g|^2, or 12 tries
        grow, cap, armijo, tries = 2.0 ** (128 / 60000), 1.0, 0.1, 12

        def sls(params, grads, state, loss, evaluate):
            eta, t = state
            g = wide(grads)
            sq = sum_squares(g)

            def trial(step):
                return evaluate(tm(lambda p, g_: (p.astype(f32) - step * g_).astype(p.dtype),
                                   params, g))

            def cond(c):
                j, step, value = c
                return (j < tries) & (value > loss - armijo * step * sq)

            def body(c):
                j, step, _ = c
                return j + 1, step * 0.5, trial(step * 0.5)

            start = jnp.minimum(eta * grow, cap)
            _, eta, _ = lax.while_loop(cond, body, (jnp.int32(0), start, trial(start)))
            moved = tm(lambda p, g_: p.astype(f32) - eta * g_, params, g)
            return recast(params, moved), (eta, t + 1)
        return (lambda p: (jnp.full((), 0.1, f32), count())), sls

    if name == "dgc":
        # deep gradient compression: the gradient, clipped by its global norm, enters a
        # local momentum u and an accumulator v (momentum correction); only the largest 1%
        # of each tensor's |v| (by `top_k`) is applied, and those elements are cleared from
        # both v and u (momentum factor masking); the rest waits for later steps
        keep, rate, clip = 0.01, 0.02, 5.0

        def dgc(params, grads, state, loss, evaluate):
            u, acc = state
            g = wide(grads)
            norm = jnp.sqrt(sum_squares(g))
            g = tm(lambda g_: g_ * jnp.minimum(1.0, clip / (norm + 1e-12)), g)

            def move(p, g_, u_, a_):
                u_ = 0.9 * u_ + g_
                a_ = a_ + u_
                k = max(1, math.ceil(keep * a_.size))
                bound = lax.top_k(jnp.abs(a_).reshape(-1), k)[0][-1]
                sent = jnp.abs(a_) >= bound
                p32 = p.astype(f32) - rate * jnp.where(sent, a_, 0.0)
                return p32.astype(p.dtype), jnp.where(sent, 0.0, u_), jnp.where(sent, 0.0, a_)
            params, u, acc = _unzip(tm(move, params, g, u, acc), params, 3)
            return params, (u, acc)
        return (lambda p: (zeros(p), zeros(p))), dgc

    if name == "gc_adamw":
        # gradient centralization under AdamW: every weight tensor's gradient has its
        # mean over all axes but the output axis removed before the moments see it
        def gc_adamw(params, grads, state, loss, evaluate):
            m, v, t = state
            g = tm(lambda g_: g_ - g_.mean(tuple(range(g_.ndim - 1)), keepdims=True)
                   if g_.ndim >= 2 else g_, wide(grads))
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - 1e-3 * 0.05) - 1e-3
                       * (m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), gc_adamw

    raise ValueError(name)


def _train(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any,
           has_aux: bool = False) -> Any:
    """One training step (loss, gradients, the named update) lowered for `batch`; with
    `has_aux` the loss function also returns values that the step hands back."""
    import jax

    init, update = _update_rule(rule)

    def step(params, state, *batch):
        if has_aux:
            (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, *batch)
            evaluate = lambda q: loss_fn(q, *batch)[0]
        else:
            loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
            aux = ()
            evaluate = lambda q: loss_fn(q, *batch)
        params, state = update(params, grads, state, loss, evaluate)
        return params, state, loss, aux

    return jax.jit(step).lower(params, init(params), *batch)


def _layer_norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """Normalization over `axes` with float32 statistics, returned in x's dtype (batch
    norm with batch statistics when `axes` are all axes but the channels)."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = x32.mean(axes, keepdims=True)
    var = jnp.square(x32 - mean).mean(axes, keepdims=True)
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
            + shift.astype(jnp.float32)).astype(x.dtype)


def _batch_norm(x: Any, gain: Any, shift: Any) -> Any:
    """Batch normalization with the batch's own statistics over every axis but the last."""
    return _layer_norm(x, gain, shift, tuple(range(x.ndim - 1)))


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


def hrnet_pose(batch: int = 8, side: int = 96, widths: tuple[int, ...] = (32, 64, 128),
               joints: int = 16, blocks: int = 2, sigma: float = 1.5) -> Any:
    """An HRNet keypoint estimator regressing one heatmap per joint at a quarter of the
    input resolution: a stem of two stride-2 3x3 convolutions, then parallel branches at
    1/4, 1/8 and 1/16 resolution (each new branch spawned from the one above it by a
    strided convolution) that run basic residual blocks side by side and exchange
    information after every stage: each branch receives the sum of every other branch,
    brought down by chains of strided 3x3 convolutions or up by a 1x1 convolution and
    nearest-neighbour repetition; batch norm throughout, a 1x1 head on the
    highest-resolution branch, mean squared error against Gaussian heatmaps weighted by
    joint visibility; SPAM."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {
        "stem1": (3, 3, 3, widths[0]), "stem1_bn_g": (widths[0],), "stem1_bn_b": (widths[0],),
        "stem2": (3, 3, widths[0], widths[0]), "stem2_bn_g": (widths[0],),
        "stem2_bn_b": (widths[0],)}

    def conv_bn(k, kernel, cin, cout):
        shapes.update({k: (kernel, kernel, cin, cout), f"{k}_bn_g": (cout,),
                       f"{k}_bn_b": (cout,)})

    stages = range(2, len(widths) + 1)
    for stage in stages:
        # the new branch comes from the lowest-resolution branch of the previous stage
        conv_bn(f"t{stage}", 3, widths[stage - 2], widths[stage - 1])
        for b in range(stage):
            for k in range(blocks):
                conv_bn(f"s{stage}_br{b}_k{k}_c1", 3, widths[b], widths[b])
                conv_bn(f"s{stage}_br{b}_k{k}_c2", 3, widths[b], widths[b])
        for i in range(stage):
            for j in range(stage):
                if j > i:
                    conv_bn(f"s{stage}_up{j}to{i}", 1, widths[j], widths[i])
                for d in range(i - j):
                    out = widths[i] if d == i - j - 1 else widths[j]
                    conv_bn(f"s{stage}_down{j}to{i}_{d}", 3, widths[j], out)
    shapes.update({"head": (1, 1, widths[0], joints), "head_b": (joints,)})
    p = _params(shapes, seed=1, scale=math.sqrt(2.0))

    def cbr(p, k, x, stride=1, relu=True):
        x = _batch_norm(_conv(x, p[k], stride), p[f"{k}_bn_g"], p[f"{k}_bn_b"])
        return jax.nn.relu(x) if relu else x

    def forward(p, images):
        x = cbr(p, "stem2", cbr(p, "stem1", images, 2), 2)
        branches = [x]
        for stage in stages:
            branches.append(cbr(p, f"t{stage}", branches[-1], 2))
            for b in range(stage):
                h = branches[b]
                for k in range(blocks):
                    r = cbr(p, f"s{stage}_br{b}_k{k}_c1", h)
                    h = jax.nn.relu(h + cbr(p, f"s{stage}_br{b}_k{k}_c2", r, relu=False))
                branches[b] = h
            fused = []
            for i in range(stage):
                total = branches[i]
                for j in range(stage):
                    if j > i:
                        up = cbr(p, f"s{stage}_up{j}to{i}", branches[j], relu=False)
                        factor = 2 ** (j - i)
                        total = total + jnp.repeat(jnp.repeat(up, factor, 1), factor, 2)
                    elif j < i:
                        h = branches[j]
                        for d in range(i - j):
                            h = cbr(p, f"s{stage}_down{j}to{i}_{d}", h, 2,
                                    relu=d < i - j - 1)
                        total = total + h
                fused.append(jax.nn.relu(total))
            branches = fused
        return _conv(branches[0], p["head"]) + p["head_b"]

    def loss_fn(p, images, heatmaps, visible):
        err = jnp.square(forward(p, images) - heatmaps).mean((1, 2))
        return jnp.mean(err * visible)

    rng = np.random.default_rng(1)
    quarter = side // 4
    points = rng.uniform(6, side - 6, (batch, joints, 2))
    visible = (rng.uniform(size=(batch, joints)) < 0.9).astype(np.float32)
    images = 0.5 * _smooth_images(rng, batch, side, 3, 6.0)
    colours = rng.uniform(-1.5, 1.5, (joints, 3))
    yy, xx = np.mgrid[0:side, 0:side]
    for j in range(joints):
        r2 = ((yy[None] - points[:, j, 0, None, None]) ** 2
              + (xx[None] - points[:, j, 1, None, None]) ** 2)
        blob = np.exp(-r2 / 8.0) * visible[:, j, None, None]
        images += blob[..., None] * colours[j]
    qy, qx = np.mgrid[0:quarter, 0:quarter] + 0.5
    centres = points / 4.0
    heatmaps = np.exp(-((qy[None, None] - centres[..., 0, None, None]) ** 2
                        + (qx[None, None] - centres[..., 1, None, None]) ** 2)
                      / (2 * sigma ** 2)).transpose(0, 2, 3, 1)
    return _train("spam", loss_fn, p, jnp.asarray(images, jnp.float32),
                  jnp.asarray(heatmaps, jnp.float32), jnp.asarray(visible))


def alphazero_go(batch: int = 16, board: int = 19, history: int = 8, width: int = 48,
                 blocks: int = 3, l2: float = 1e-4) -> Any:
    """An AlphaZero policy-value update for 19x19 Go in bfloat16: each position is 17
    feature planes (eight moves of history for both colours and the side to move), and
    inside the step every position and its visit-count policy target is put through one
    of the eight symmetries of the board (rotations and reflections by `rot90` and
    `flip`, the one chosen per sample gathered from the stack of all eight); a residual
    tower of 3x3 convolutions with batch norm feeds a policy head (a 1x1 convolution to
    two planes and a dense layer over the 361 points and pass) and a value head (a 1x1
    convolution to one plane, two dense layers and tanh); the loss is cross-entropy
    against the search's soft visit distribution plus the squared error of the game
    outcome plus an L2 penalty on the weights; Demon momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    planes = 2 * history + 1
    points = board * board
    shapes: dict[str, tuple[int, ...]] = {
        "stem": (3, 3, planes, width), "stem_bn_g": (width,), "stem_bn_b": (width,)}
    for b in range(blocks):
        for c in ("c1", "c2"):
            shapes.update({f"r{b}_{c}": (3, 3, width, width), f"r{b}_{c}_bn_g": (width,),
                           f"r{b}_{c}_bn_b": (width,)})
    shapes.update({"pol": (1, 1, width, 2), "pol_bn_g": (2,), "pol_bn_b": (2,),
                   "pol_fc": (2 * points, points + 1), "pol_fc_b": (points + 1,),
                   "val": (1, 1, width, 1), "val_bn_g": (1,), "val_bn_b": (1,),
                   "val_fc1": (points, 64), "val_fc1_b": (64,), "val_fc2": (64, 1),
                   "val_fc2_b": (1,)})
    p = _params(shapes, seed=2, dtype=bf16, scale=math.sqrt(2.0))

    def cbn(p, k, x):
        return _batch_norm(_conv(x, p[k]), p[f"{k}_bn_g"], p[f"{k}_bn_b"])

    def net(p, x):
        b = x.shape[0]
        x = jax.nn.relu(cbn(p, "stem", x))
        for r in range(blocks):
            h = jax.nn.relu(cbn(p, f"r{r}_c1", x))
            x = jax.nn.relu(x + cbn(p, f"r{r}_c2", h))
        pol = jax.nn.relu(cbn(p, "pol", x)).reshape(b, -1)
        logits = pol @ p["pol_fc"] + p["pol_fc_b"]
        val = jax.nn.relu(cbn(p, "val", x)).reshape(b, -1)
        val = jax.nn.relu(val @ p["val_fc1"] + p["val_fc1_b"]) @ p["val_fc2"] + p["val_fc2_b"]
        return logits, jnp.tanh(val[:, 0].astype(jnp.float32))

    def symmetry(x, which):
        turned = [jnp.rot90(x, r, axes=(1, 2)) for r in range(4)]
        every = jnp.stack(turned + [jnp.flip(t, 2) for t in turned])
        return every[which, jnp.arange(x.shape[0])]

    def loss_fn(p, positions, visits, outcome, key):
        b = positions.shape[0]
        which = jax.random.randint(key, (b,), 0, 8)
        x = symmetry(positions, which)
        board_visits = symmetry(visits[:, :points].reshape(b, board, board, 1), which)
        target = jnp.concatenate([board_visits.reshape(b, points), visits[:, points:]], -1)
        logits, value = net(p, x)
        logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
        policy = -jnp.mean(jnp.sum(target.astype(jnp.float32) * logp, -1))
        decay = sum(jnp.sum(jnp.square(w.astype(jnp.float32))) for k, w in p.items()
                    if not k.endswith(("_b", "_g")))
        return policy + jnp.mean(jnp.square(outcome - value)) + l2 * decay

    rng = np.random.default_rng(2)
    stones = rng.uniform(size=(batch, 1, board, board))
    occupancy = rng.uniform(0.15, 0.6, (batch, 1, 1, 1))
    black = stones < occupancy / 2
    white = (stones >= occupancy / 2) & (stones < occupancy)
    age = rng.uniform(size=(batch, 1, board, board)) * occupancy * 1.2  # when each stone came
    steps = (np.arange(history)[None, :, None, None] / history) * occupancy
    own = np.where(black, age < occupancy - steps, False)             # (B, history, 19, 19)
    other = np.where(white, age < occupancy - steps, False)
    to_play = np.broadcast_to((rng.uniform(size=(batch, 1, 1, 1)) < 0.5),
                              (batch, 1, board, board))
    features = np.concatenate([own, other, to_play], 1).transpose(0, 2, 3, 1)
    empty = ~(black | white)[:, 0].reshape(batch, points)
    alpha = np.concatenate([np.where(empty, 0.3, 1e-3), np.full((batch, 1), 0.3)], -1)
    visits = np.stack([rng.dirichlet(a) for a in alpha])
    outcome = rng.choice([-1.0, 1.0], batch)
    return _train("demon", loss_fn, p, jnp.asarray(features, bf16), jnp.asarray(visits, bf16),
                  jnp.asarray(outcome, jnp.float32), jax.random.PRNGKey(2))


def hifigan_stft(batch: int = 2, frames: int = 24, mels: int = 80, width: int = 128,
                 strides: tuple[int, ...] = (8, 8, 4), kernels: tuple[int, ...] = (3, 7),
                 dilations: tuple[int, ...] = (1, 3, 5)) -> Any:
    """A HiFi-GAN-style vocoder generator trained without its discriminators, by a
    multi-resolution STFT loss: a width-7 1-D convolution over a log-mel spectrogram,
    then per stage a leaky ReLU, a strided transposed 1-D convolution (kernel twice the
    stride, upsampling 8, 8 and 4 times while halving the channels) and a multi-receptive
    field fusion (the mean of residual stacks of width 3 and 7, each three dilated
    convolutions at dilations 1, 3 and 5 followed by undilated ones), every convolution
    weight-normalized (a direction over its norm per output channel, times a gain); a
    final width-7 convolution and tanh give the waveform. The loss, at three STFT
    resolutions (framing by a gather, a Hann window, a real FFT), is spectral
    convergence plus the L1 distance of log magnitudes; AdaShift."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    hop = math.prod(strides)
    samples = frames * hop
    shapes: dict[str, tuple[int, ...]] = {}

    def weight(k, size, cin, cout):
        shapes.update({f"{k}_v": (size, cin, cout), f"{k}_g": (cout,), f"{k}_b": (cout,)})

    weight("pre", 7, mels, width)
    channels = width
    for s, stride in enumerate(strides):
        weight(f"up{s}", 2 * stride, channels, channels // 2)
        channels //= 2
        for size in kernels:
            for d in dilations:
                weight(f"m{s}_k{size}_d{d}a", size, channels, channels)
                weight(f"m{s}_k{size}_d{d}b", size, channels, channels)
    weight("post", 7, channels, 1)
    p = _params(shapes, seed=3)

    def w(p, k):
        v = p[f"{k}_v"]
        return v * (p[f"{k}_g"] / jnp.sqrt(jnp.sum(v * v, (0, 1)) + 1e-12))

    def conv(p, k, x, dilation=1):
        return lax.conv_general_dilated(x, w(p, k), (1,), "SAME", rhs_dilation=(dilation,),
                                        dimension_numbers=_NWC) + p[f"{k}_b"]

    def leaky(x):
        return jax.nn.leaky_relu(x, 0.1)

    def generate(p, mel):
        x = conv(p, "pre", mel)
        for s, stride in enumerate(strides):
            x = lax.conv_transpose(leaky(x), w(p, f"up{s}"), (stride,), "SAME",
                                   dimension_numbers=_NWC) + p[f"up{s}_b"]
            total = 0.0
            for size in kernels:
                h = x
                for d in dilations:
                    r = conv(p, f"m{s}_k{size}_d{d}a", leaky(h), d)
                    h = h + conv(p, f"m{s}_k{size}_d{d}b", leaky(r))
                total = total + h
            x = total / len(kernels)
        return jnp.tanh(conv(p, "post", leaky(x)))[..., 0]

    def magnitude(audio, size, step):
        padded = jnp.pad(audio, ((0, 0), (size // 2, size // 2)), mode="reflect")
        count = 1 + (padded.shape[1] - size) // step
        index = jnp.arange(count)[:, None] * step + jnp.arange(size)[None, :]
        window = 0.5 - 0.5 * jnp.cos(2 * jnp.pi * jnp.arange(size) / size)
        spectrum = jnp.fft.rfft(padded[:, index] * window, axis=-1)
        return jnp.sqrt(jnp.real(spectrum) ** 2 + jnp.imag(spectrum) ** 2 + 1e-7)

    def loss_fn(p, mel, audio):
        fake = generate(p, mel)
        total = 0.0
        for size, step in ((512, 128), (1024, 256), (256, 64)):
            real_mag, fake_mag = magnitude(audio, size, step), magnitude(fake, size, step)
            convergence = (jnp.sqrt(jnp.sum(jnp.square(real_mag - fake_mag)))
                           / jnp.sqrt(jnp.sum(jnp.square(real_mag))))
            total = total + convergence + jnp.mean(jnp.abs(jnp.log(real_mag)
                                                           - jnp.log(fake_mag)))
        return total / 3.0

    rng = np.random.default_rng(3)
    rate = 22050.0
    t = np.arange(samples) / rate
    audio = np.zeros((batch, samples))
    for b in range(batch):
        pitch = rng.uniform(110, 330) * (1 + 0.02 * np.sin(2 * np.pi * 5.5 * t))
        phase = 2 * np.pi * np.cumsum(pitch) / rate
        envelope = 0.5 + 0.5 * np.sin(2 * np.pi * rng.uniform(1, 3) * t) ** 2
        for harmonic in range(1, 9):
            audio[b] += envelope * np.sin(harmonic * phase) / harmonic ** 1.5
        audio[b] += 0.01 * rng.standard_normal(samples)
    audio *= 0.6 / np.abs(audio).max(1, keepdims=True)
    # log-mel features of the target: a 1024-point STFT with the same hop, 80 HTK mel bands
    size = 1024
    padded = np.pad(audio, ((0, 0), (size // 2, size // 2)), mode="reflect")
    starts = np.arange(frames) * hop
    spectrum = np.abs(np.fft.rfft(padded[:, starts[:, None] + np.arange(size)]
                                  * np.hanning(size), axis=-1))
    to_mel = lambda f: 2595 * np.log10(1 + f / 700)
    edges = 700 * (10 ** (np.linspace(0, to_mel(rate / 2), mels + 2) / 2595) - 1)
    freqs = np.fft.rfftfreq(size, 1 / rate)
    bank = np.maximum(0, np.minimum((freqs[None] - edges[:-2, None])
                                    / (edges[1:-1, None] - edges[:-2, None]),
                                    (edges[2:, None] - freqs[None])
                                    / (edges[2:, None] - edges[1:-1, None])))
    mel = np.log(np.maximum(spectrum @ bank.T, 1e-5))
    return _train("adashift", loss_fn, p, jnp.asarray(mel, jnp.float32),
                  jnp.asarray(audio, jnp.float32))


def decision_transformer(batch: int = 16, context: int = 20, state_dim: int = 17,
                         action_dim: int = 6, width: int = 128, heads: int = 4,
                         layers: int = 3, horizon: int = 1000) -> Any:
    """A Decision Transformer in bfloat16 learning a continuous-control policy from
    offline trajectories: every timestep contributes three tokens (the return still to
    go, the state and the action, each by its own linear embedding plus a learned
    embedding of the episode timestep gathered from a 1000-row table), interleaved into
    a sequence of 60; a GPT of pre-norm blocks with causal self-attention, masked also
    against the left padding of short trajectories, predicts each action (through tanh)
    from the hidden state of its state token; mean squared error over the real steps;
    AdamW under ZClip (z-score gradient-norm clipping)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    d = width // heads
    shapes: dict[str, tuple[int, ...]] = {
        "ret": (1, width), "ret_b": (width,), "state": (state_dim, width), "state_b": (width,),
        "action": (action_dim, width), "action_b": (width,), "time": (horizon, width),
        "embed_norm_g": (width,), "embed_norm_b": (width,)}
    for l in range(layers):
        shapes.update({f"l{l}_ln1_g": (width,), f"l{l}_ln1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_qkv_b": (3 * width,),
                       f"l{l}_o": (width, width), f"l{l}_o_b": (width,),
                       f"l{l}_ln2_g": (width,), f"l{l}_ln2_b": (width,),
                       f"l{l}_ff1": (width, 4 * width), f"l{l}_ff1_b": (4 * width,),
                       f"l{l}_ff2": (4 * width, width), f"l{l}_ff2_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,), "head": (width, action_dim),
                   "head_b": (action_dim,)})
    p = _params(shapes, seed=4, dtype=bf16)
    p["time"] = p["time"] * 0.02 * math.sqrt(horizon)

    def loss_fn(p, returns, states, actions, timesteps, valid):
        b, k = states.shape[:2]
        when = p["time"][timesteps]
        tokens = jnp.stack([returns[..., None] @ p["ret"] + p["ret_b"] + when,
                            states @ p["state"] + p["state_b"] + when,
                            actions @ p["action"] + p["action_b"] + when], 2)
        x = _layer_norm(tokens.reshape(b, 3 * k, width), p["embed_norm_g"], p["embed_norm_b"])
        keep = jnp.repeat(valid > 0, 3, 1)
        causal = jnp.tril(jnp.ones((3 * k, 3 * k), bool))
        mask = causal[None, None] & keep[:, None, None, :]
        for l in range(layers):
            h = _layer_norm(x, p[f"l{l}_ln1_g"], p[f"l{l}_ln1_b"])
            q, kk, v = jnp.split((h @ p[f"l{l}_qkv"] + p[f"l{l}_qkv_b"])
                                 .reshape(b, 3 * k, 3 * heads, d), 3, 2)
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, kk).astype(jnp.float32) / math.sqrt(d)
            weights = jax.nn.softmax(jnp.where(mask, scores, -1e9), -1).astype(bf16)
            mixed = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, 3 * k, width)
            x = x + mixed @ p[f"l{l}_o"] + p[f"l{l}_o_b"]
            h = _layer_norm(x, p[f"l{l}_ln2_g"], p[f"l{l}_ln2_b"])
            x = x + jax.nn.gelu(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"]) @ p[f"l{l}_ff2"] \
                + p[f"l{l}_ff2_b"]
        x = _layer_norm(x, p["final_g"], p["final_b"])
        predicted = jnp.tanh((x[:, 1::3] @ p["head"] + p["head_b"]).astype(jnp.float32))
        err = jnp.sum(jnp.square(predicted - actions.astype(jnp.float32)), -1)
        return jnp.sum(err * valid) / jnp.sum(valid)

    rng = np.random.default_rng(4)
    policy = rng.standard_normal((state_dim, action_dim)) / math.sqrt(state_dim)
    lengths = rng.integers(8, context + 1, batch)
    starts = rng.integers(0, horizon - context, batch)
    states = np.zeros((batch, context, state_dim))
    actions = np.zeros((batch, context, action_dim))
    rewards = np.zeros((batch, context))
    s = rng.standard_normal((batch, state_dim))
    for t in range(context):
        a = np.tanh(s @ policy + 0.3 * rng.standard_normal((batch, action_dim)))
        states[:, t], actions[:, t] = s, a
        rewards[:, t] = 1.0 + 0.1 * s[:, 0] - 0.05 * np.sum(a * a, -1)
        s = 0.9 * s + 0.3 * np.tanh(a @ policy.T) + 0.1 * rng.standard_normal(s.shape)
    to_go = np.cumsum(rewards[:, ::-1], 1)[:, ::-1] + rng.uniform(50, 300, (batch, 1))
    valid = np.arange(context)[None] >= (context - lengths)[:, None]        # left padding
    timesteps = starts[:, None] + np.arange(context)[None]
    zero = lambda a: np.where(valid.reshape(valid.shape + (1,) * (a.ndim - 2)), a, 0.0)
    return _train("zclip_adamw", loss_fn, p, jnp.asarray(zero(to_go) / 100.0, bf16),
                  jnp.asarray(zero(states), bf16), jnp.asarray(zero(actions), bf16),
                  jnp.asarray(timesteps, jnp.int32), jnp.asarray(valid, jnp.float32))


def graphormer_regression(graphs: int = 32, nodes: int = 20, width: int = 64, heads: int = 8,
                          layers: int = 4, atom_types: int = 16, bond_types: int = 4,
                          max_distance: int = 8, path_length: int = 4) -> Any:
    """A Graphormer regressing a property of small molecular graphs, padded to 20 atoms
    with a virtual graph token in front: node features are an atom-type embedding plus
    a degree (centrality) embedding, both gathered; every attention logit gets a bias per
    head from the shortest-path distance between the two atoms (a learned table gathered
    by distance, with separate rows for unreachable pairs and the graph token) and an
    edge-encoding bias, the mean over the first four bonds of the shortest path of a
    learned per-head weight of the bond's type times one of its position; padded atoms
    are masked out of the keys; pre-norm transformer layers, the graph token's final
    state read out by an MLP, an L1 loss; PowerSGD (rank-2 compressed momentum SGD with
    error feedback)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    d = width // heads
    n = nodes + 1
    shapes: dict[str, tuple[int, ...]] = {
        "atom": (atom_types, width), "degree": (8, width), "graph_token": (1, width),
        "distance": (max_distance + 3, heads), "bond": (bond_types + 1, heads),
        "position": (path_length, heads)}
    for l in range(layers):
        shapes.update({f"l{l}_ln1_g": (width,), f"l{l}_ln1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_qkv_b": (3 * width,),
                       f"l{l}_o": (width, width), f"l{l}_o_b": (width,),
                       f"l{l}_ln2_g": (width,), f"l{l}_ln2_b": (width,),
                       f"l{l}_ff1": (width, 2 * width), f"l{l}_ff1_b": (2 * width,),
                       f"l{l}_ff2": (2 * width, width), f"l{l}_ff2_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,), "read1": (width, width),
                   "read1_b": (width,), "read2": (width, 1), "read2_b": (1,)})
    p = _params(shapes, seed=5)

    def loss_fn(p, atoms, degree, present, distance, path_bonds, target):
        b = atoms.shape[0]
        x = p["atom"][atoms] + p["degree"][degree]
        x = jnp.concatenate([jnp.broadcast_to(p["graph_token"], (b, 1, width)), x], 1)
        spatial = p["distance"][distance]                                  # (b, n, n, h)
        bond = p["bond"][path_bonds] * p["position"]                       # (b, n, n, L, h)
        on_path = (path_bonds < bond_types)[..., None]
        edge = jnp.sum(jnp.where(on_path, bond, 0.0), 3) / jnp.maximum(jnp.sum(on_path, 3), 1)
        bias = jnp.transpose(spatial + edge, (0, 3, 1, 2))
        keys = jnp.concatenate([jnp.ones((b, 1), bool), present], 1)[:, None, None, :]
        for l in range(layers):
            h = _layer_norm(x, p[f"l{l}_ln1_g"], p[f"l{l}_ln1_b"])
            q, k, v = jnp.split((h @ p[f"l{l}_qkv"] + p[f"l{l}_qkv_b"])
                                .reshape(b, n, 3 * heads, d), 3, 2)
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(d) + bias
            weights = jax.nn.softmax(jnp.where(keys, scores, -1e9), -1)
            mixed = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, n, width)
            x = x + mixed @ p[f"l{l}_o"] + p[f"l{l}_o_b"]
            h = _layer_norm(x, p[f"l{l}_ln2_g"], p[f"l{l}_ln2_b"])
            x = x + jax.nn.gelu(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"]) @ p[f"l{l}_ff2"] \
                + p[f"l{l}_ff2_b"]
        token = _layer_norm(x[:, 0], p["final_g"], p["final_b"])
        out = jax.nn.gelu(token @ p["read1"] + p["read1_b"]) @ p["read2"] + p["read2_b"]
        return jnp.mean(jnp.abs(out[:, 0] - target))

    rng = np.random.default_rng(5)
    unreachable, to_token = max_distance + 1, max_distance + 2
    atoms = np.zeros((graphs, nodes), np.int64)
    degree = np.zeros((graphs, nodes), np.int64)
    present = np.zeros((graphs, nodes), bool)
    distance = np.full((graphs, n, n), unreachable, np.int64)
    path_bonds = np.full((graphs, n, n, path_length), bond_types, np.int64)
    target = np.zeros(graphs)
    weights = rng.normal(size=atom_types)
    for g in range(graphs):
        size = int(rng.integers(10, nodes + 1))
        bonds = np.full((size, size), -1)
        for i in range(1, size):                       # a random tree, then a few rings
            j = int(rng.integers(max(0, i - 4), i))
            bonds[i, j] = bonds[j, i] = rng.integers(0, bond_types)
        for _ in range(int(rng.integers(0, 3))):
            i, j = rng.choice(size, 2, replace=False)
            if bonds[i, j] < 0:
                bonds[i, j] = bonds[j, i] = rng.integers(0, bond_types)
        hops = np.where(bonds >= 0, 1.0, np.inf)
        np.fill_diagonal(hops, 0)
        after = np.where(bonds >= 0, np.arange(size)[None, :], -1)
        np.fill_diagonal(after, np.arange(size))
        for k in range(size):                          # Floyd-Warshall with next hops
            shorter = hops[:, k, None] + hops[None, k, :] < hops
            hops = np.where(shorter, hops[:, k, None] + hops[None, k, :], hops)
            after = np.where(shorter, after[:, k, None], after)
        atoms[g, :size] = rng.integers(0, atom_types, size)
        degree[g, :size] = np.minimum((bonds >= 0).sum(1), 7)
        present[g, :size] = True
        finite = np.isfinite(hops)
        distance[g, 1:size + 1, 1:size + 1] = np.where(
            finite, np.minimum(hops, max_distance), unreachable).astype(np.int64)
        distance[g, 0, :] = distance[g, :, 0] = to_token
        for i in range(size):
            for j in range(size):
                at, step = i, 0
                while at != j and finite[i, j] and step < path_length:
                    following = after[at, j]
                    path_bonds[g, i + 1, j + 1, step] = bonds[at, following]
                    at, step = following, step + 1
        rings = int((bonds >= 0).sum() // 2 - (size - 1))
        target[g] = weights[atoms[g, :size]].sum() / size + 0.5 * rings
    return _train("powersgd", loss_fn, p, jnp.asarray(atoms, jnp.int32),
                  jnp.asarray(degree, jnp.int32), jnp.asarray(present),
                  jnp.asarray(distance, jnp.int32), jnp.asarray(path_bonds, jnp.int32),
                  jnp.asarray(target, jnp.float32))


def soft_actor_critic(batch: int = 256, obs_dim: int = 24, action_dim: int = 6,
                      hidden: int = 256, gamma: float = 0.99, tau: float = 0.005) -> Any:
    """A soft actor-critic update from a replay minibatch: twin Q critics regress toward
    the reward plus the discounted minimum of two target critics (weights passed in,
    not trained) at the next state's freshly sampled action, less the entropy term; the
    actor, a tanh-squashed Gaussian sampled by the reparameterization trick (its
    log-density corrected for the squashing through softplus), maximizes the smaller
    critic (critics frozen) plus entropy; the temperature is learned toward a target
    entropy of minus the action dimension; the step also returns the Polyak-averaged
    target critics; signSGD with error feedback."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def mlp_shapes(k, cin, cout):
        return {f"{k}1": (cin, hidden), f"{k}1_b": (hidden,), f"{k}2": (hidden, hidden),
                f"{k}2_b": (hidden,), f"{k}3": (hidden, cout), f"{k}3_b": (cout,)}

    shapes: dict[str, tuple[int, ...]] = {**mlp_shapes("pi", obs_dim, 2 * action_dim),
                                          **mlp_shapes("qa", obs_dim + action_dim, 1),
                                          **mlp_shapes("qb", obs_dim + action_dim, 1),
                                          "temperature_b": (1,)}
    p = _params(shapes, seed=6)
    critic_keys = [k for k in shapes if k.startswith("q")]
    target = {k: v * 0.9 for k, v in _params({k: shapes[k] for k in critic_keys},
                                                seed=106).items()}

    def mlp(p, k, x):
        x = jax.nn.relu(x @ p[f"{k}1"] + p[f"{k}1_b"])
        x = jax.nn.relu(x @ p[f"{k}2"] + p[f"{k}2_b"])
        return x @ p[f"{k}3"] + p[f"{k}3_b"]

    def policy(p, obs, noise):
        mean, log_std = jnp.split(mlp(p, "pi", obs), 2, -1)
        log_std = jnp.clip(log_std, -5.0, 2.0)
        u = mean + jnp.exp(log_std) * noise
        gauss = jnp.sum(-0.5 * noise * noise - log_std - 0.5 * math.log(2 * math.pi), -1)
        squash = jnp.sum(2.0 * (math.log(2.0) - u - jax.nn.softplus(-2.0 * u)), -1)
        return jnp.tanh(u), gauss - squash

    def q_min(p, obs, act):
        x = jnp.concatenate([obs, act], -1)
        return jnp.minimum(mlp(p, "qa", x)[:, 0], mlp(p, "qb", x)[:, 0])

    def loss_fn(p, target, obs, act, reward, next_obs, done, key):
        k1, k2 = jax.random.split(key)
        log_alpha = p["temperature_b"][0] + math.log(0.1)
        alpha = lax.stop_gradient(jnp.exp(log_alpha))
        next_act, next_logp = policy(p, next_obs, jax.random.normal(k1, (obs.shape[0],
                                                                         action_dim)))
        soft = q_min(target, next_obs, next_act) - alpha * next_logp
        y = lax.stop_gradient(reward + gamma * (1.0 - done) * soft)
        x = jnp.concatenate([obs, act], -1)
        critic = (jnp.mean(jnp.square(mlp(p, "qa", x)[:, 0] - y))
                  + jnp.mean(jnp.square(mlp(p, "qb", x)[:, 0] - y)))
        new_act, logp = policy(p, obs, jax.random.normal(k2, (obs.shape[0], action_dim)))
        actor = jnp.mean(alpha * logp - q_min(lax.stop_gradient(p), obs, new_act))
        temperature = -jnp.mean(log_alpha * lax.stop_gradient(logp - action_dim))
        moved = {k: (1.0 - tau) * target[k] + tau * lax.stop_gradient(p[k]) for k in target}
        return critic + actor + temperature, moved

    rng = np.random.default_rng(6)
    obs = rng.standard_normal((batch, obs_dim))
    act = np.tanh(rng.standard_normal((batch, action_dim)))
    drift = rng.standard_normal((obs_dim + action_dim, obs_dim)) * 0.2
    next_obs = 0.95 * obs + np.concatenate([obs, act], -1) @ drift \
        + 0.05 * rng.standard_normal(obs.shape)
    reward = obs[:, 0] - 0.1 * np.sum(act * act, -1) + 0.05 * rng.standard_normal(batch)
    done = (rng.uniform(size=batch) < 0.01).astype(np.float32)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("ef_signsgd", loss_fn, p, target, f32(obs), f32(act), f32(reward),
                  f32(next_obs), f32(done), jax.random.PRNGKey(6), has_aux=True)


def bayes_by_backprop(batch: int = 128, inputs: int = 784, hidden: tuple[int, ...] = (400, 400),
                      classes: int = 10, examples: int = 60000, prior: float = 0.1) -> Any:
    """A Bayes-by-backprop classifier: every weight and bias has a Gaussian posterior (a
    mean and a softplus-parametrized standard deviation), sampled by the local
    reparameterization trick, so each layer computes the mean and the variance of its
    pre-activations by two matrix products (the inputs against the means, the squared
    inputs against the variances) and draws one Gaussian per unit and example; the loss is
    the negative evidence lower bound per example: cross-entropy plus the closed-form KL
    divergence of the posterior from a zero-mean Gaussian prior over the training-set
    size; stochastic line search (Armijo backtracking in a `while_loop` that re-evaluates
    the loss with the same noise)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    sizes = (inputs, *hidden, classes)
    shapes: dict[str, tuple[int, ...]] = {}
    for i, (cin, cout) in enumerate(zip(sizes[:-1], sizes[1:])):
        shapes.update({f"l{i}_mu": (cin, cout), f"l{i}_rho": (cin, cout),
                       f"l{i}_bias_mu": (cout,), f"l{i}_bias_rho": (cout,)})
    p = _params(shapes, seed=7)
    for k in shapes:
        if k.endswith("rho"):
            p[k] = jnp.full(shapes[k], -5.0)
        elif k.endswith("bias_mu"):
            p[k] = jnp.zeros(shapes[k])

    def kl(mu, rho):
        sigma = jax.nn.softplus(rho)
        return jnp.sum(jnp.log(prior / sigma) + (sigma * sigma + mu * mu) / (2 * prior ** 2)
                       - 0.5)

    def loss_fn(p, images, labels, key):
        x = images
        divergence = 0.0
        for i in range(len(sizes) - 1):
            mu, rho = p[f"l{i}_mu"], p[f"l{i}_rho"]
            b_mu, b_rho = p[f"l{i}_bias_mu"], p[f"l{i}_bias_rho"]
            mean = x @ mu + b_mu
            var = (x * x) @ jnp.square(jax.nn.softplus(rho)) + jnp.square(jax.nn.softplus(b_rho))
            x = mean + jnp.sqrt(var + 1e-12) * jax.random.normal(jax.random.fold_in(key, i),
                                                                   mean.shape)
            if i < len(sizes) - 2:
                x = jax.nn.relu(x)
            divergence = divergence + kl(mu, rho) + kl(b_mu, b_rho)
        return _cross_entropy(x, labels) + divergence / examples

    rng = np.random.default_rng(7)
    labels = rng.integers(0, classes, batch)
    side = int(math.isqrt(inputs))
    prototypes = _smooth_images(rng, classes, side, 1, 3.0).reshape(classes, inputs)
    images = np.clip(0.5 + 0.3 * prototypes[labels]
                     + 0.2 * _smooth_images(rng, batch, side, 1, 6.0).reshape(batch, inputs), 0, 1)
    return _train("sls", loss_fn, p, jnp.asarray(images, jnp.float32),
                  jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(7))


def soft_robot_controller(robots: int = 32, rows: int = 4, cols: int = 6, steps: int = 256,
                          hidden: int = 64, dt: float = 4e-3) -> Any:
    """A controller for a 2-D mass-spring soft robot trained by backpropagation through
    its simulation: a 4x6 lattice of point masses joined by horizontal, vertical and
    diagonal springs, every spring an actuator whose rest length a tanh MLP modulates
    from clock signals, the masses' positions relative to the centre of mass and their
    velocities; 32 robots on grounds of different friction, stepped 256 times by
    semi-implicit Euler in a `lax.scan` (spring and damping forces from gathered
    endpoints, gathered back onto the masses by scatter-adds, penalty contact with the
    ground and viscous friction); the loss rewards the distance the centre of mass
    travels and penalizes actuation; deep gradient compression (top-1% sparsified
    momentum SGD)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    masses = rows * cols
    index = np.arange(masses).reshape(rows, cols)
    pairs = np.concatenate([
        np.stack([index[:, :-1].ravel(), index[:, 1:].ravel()], 1),
        np.stack([index[:-1].ravel(), index[1:].ravel()], 1),
        np.stack([index[:-1, :-1].ravel(), index[1:, 1:].ravel()], 1),
        np.stack([index[:-1, 1:].ravel(), index[1:, :-1].ravel()], 1)])
    springs = len(pairs)
    start = np.stack(np.meshgrid(np.arange(cols) * 0.1, 0.02 + np.arange(rows) * 0.1),
                     -1).reshape(masses, 2)                                  # (x, height)
    rest = np.linalg.norm(start[pairs[:, 0]] - start[pairs[:, 1]], axis=1)
    clocks = 4
    inputs = 2 * clocks + 4 * masses
    shapes = {"c1": (inputs, hidden), "c1_b": (hidden,), "c2": (hidden, springs),
              "c2_b": (springs,)}
    p = _params(shapes, seed=8)
    a, b = jnp.asarray(pairs[:, 0]), jnp.asarray(pairs[:, 1])
    rest_j = jnp.asarray(rest, jnp.float32)
    stiffness, damping, gravity, ground_k = 3000.0, 20.0, 9.8, 20000.0

    def loss_fn(p, friction):
        def tick(carry, t):
            x, v = carry                                                     # (R, M, 2)
            centre = x.mean(1, keepdims=True)
            phase = t.astype(jnp.float32) * dt * 2 * jnp.pi * jnp.arange(1, clocks + 1)
            clock = jnp.broadcast_to(jnp.concatenate([jnp.sin(phase), jnp.cos(phase)]),
                                     (robots, 2 * clocks))
            features = jnp.concatenate([clock, (x - centre).reshape(robots, -1) * 5.0,
                                        v.reshape(robots, -1) * 0.5], -1)
            act = jnp.tanh(jnp.tanh(features @ p["c1"] + p["c1_b"]) @ p["c2"] + p["c2_b"])
            delta = x[:, b] - x[:, a]                                        # (R, S, 2)
            length = jnp.sqrt(jnp.sum(delta * delta, -1) + 1e-9)
            direction = delta / length[..., None]
            closing = jnp.sum((v[:, b] - v[:, a]) * direction, -1)
            tension = stiffness * (length - rest_j * (1.0 + 0.15 * act)) + damping * closing
            pull = tension[..., None] * direction
            force = jnp.zeros_like(x).at[:, a].add(pull).at[:, b].add(-pull)
            depth = jax.nn.relu(-x[..., 1])
            touching = (depth > 0).astype(jnp.float32)
            force = force + jnp.stack([-friction[:, None] * touching * v[..., 0],
                                       ground_k * depth - 10.0 * touching * v[..., 1]], -1)
            force = force - jnp.asarray([0.0, gravity])
            v = (v + dt * force) * 0.999
            return (x + dt * v, v), jnp.mean(act * act)

        x0 = jnp.broadcast_to(jnp.asarray(start, jnp.float32), (robots, masses, 2))
        (x, _), effort = lax.scan(tick, (x0, jnp.zeros_like(x0)), jnp.arange(steps))
        travelled = x[..., 0].mean(1) - x0[..., 0].mean(1)
        return -jnp.mean(travelled) + 1e-3 * jnp.mean(effort)

    rng = np.random.default_rng(8)
    friction = rng.uniform(2.0, 30.0, robots)
    return _train("dgc", loss_fn, p, jnp.asarray(friction, jnp.float32))


def dp_federated_round(clients: int = 8, local_steps: int = 3, local_batch: int = 16,
                       side: int = 28, classes: int = 10, clip: float = 1.0,
                       noise: float = 0.5, local_rate: float = 0.05) -> Any:
    """One round of federated learning with user-level differential privacy: each of
    eight clients (`vmap`, so the convolutions become grouped over clients) starts from
    the server's small CNN (a 5x5 and a 3x3 convolution with max pooling, two dense
    layers) and takes three SGD steps on its own non-IID minibatches in a `fori_loop`
    (a forward and backward pass per step); each client's model change is clipped to a
    fixed L2 norm, the changes are averaged and Gaussian noise scaled to the clip is
    added, and the server applies the noised average as a pseudo-gradient with Adam
    (DP-FedAdam); the clients' losses before training and their update norms come
    back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {
        "c1": (5, 5, 1, 12), "c1_b": (12,), "c2": (3, 3, 12, 24), "c2_b": (24,),
        "fc1": ((side // 4) ** 2 * 24, 64), "fc1_b": (64,), "fc2": (64, classes),
        "fc2_b": (classes,)}
    p = _params(shapes, seed=9, scale=math.sqrt(2.0))
    tm = jax.tree.map

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss_fn(p, images, labels):
        x = pool(jax.nn.relu(_conv(images, p["c1"]) + p["c1_b"]))
        x = pool(jax.nn.relu(_conv(x, p["c2"]) + p["c2_b"]))
        x = jax.nn.relu(x.reshape(x.shape[0], -1) @ p["fc1"] + p["fc1_b"])
        return _cross_entropy(x @ p["fc2"] + p["fc2_b"], labels)

    def client(p, images, labels):                    # (steps, batch, side, side, 1)
        def local(i, q):
            g = jax.grad(loss_fn)(q, images[i], labels[i])
            return tm(lambda a, b: a - local_rate * b, q, g)

        trained = lax.fori_loop(0, local_steps, local, p)
        change = tm(lambda a, b: a - b, trained, p)
        norm = jnp.sqrt(sum(jnp.sum(c * c) for c in jax.tree.leaves(change)))
        clipped = tm(lambda c: c * jnp.minimum(1.0, clip / (norm + 1e-12)), change)
        return clipped, norm, loss_fn(p, images[0], labels[0])

    def round_step(p, state, images, labels, key):
        m, v, t = state
        changes, norms, losses = jax.vmap(client, in_axes=(None, 0, 0))(p, images, labels)
        leaves, treedef = jax.tree.flatten(changes)
        noised = treedef.unflatten([
            leaf.mean(0) + noise * clip / clients
            * jax.random.normal(jax.random.fold_in(key, i), leaf.shape[1:])
            for i, leaf in enumerate(leaves)])
        t = t + 1
        n = t.astype(jnp.float32)
        m = tm(lambda m_, d: 0.9 * m_ + 0.1 * d, m, noised)
        v = tm(lambda v_, d: 0.99 * v_ + 0.01 * d * d, v, noised)
        p = tm(lambda a, m_, v_: a + 0.01 * (m_ / (1.0 - 0.9 ** n))
               / (jnp.sqrt(v_ / (1.0 - 0.99 ** n)) + 1e-3), p, m, v)
        return p, (m, v, t), norms, losses

    rng = np.random.default_rng(9)
    prototypes = _smooth_images(rng, classes, side, 1, 3.0)
    favourite = np.stack([rng.choice(classes, 2, replace=False) for _ in range(clients)])
    own = rng.uniform(size=(clients, local_steps, local_batch)) < 0.8   # non-IID labels
    pick = rng.integers(0, 2, own.shape)
    labels = np.where(own, favourite[np.arange(clients)[:, None, None], pick],
                      rng.integers(0, classes, own.shape))
    images = (prototypes[labels] + 0.5 * _smooth_images(
        rng, labels.size, side, 1, 8.0).reshape(labels.shape + (side, side, 1)))
    zeros = tm(jnp.zeros_like, p)
    state = (zeros, zeros, jnp.zeros((), jnp.int32))
    return jax.jit(round_step).lower(p, state, jnp.asarray(images, jnp.float32),
                                     jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(9))


def soft_moe_vit(batch: int = 16, side: int = 32, patch: int = 4, width: int = 128,
                 heads: int = 4, depth: int = 4, experts: int = 8, slots: int = 2,
                 classes: int = 10) -> Any:
    """A vision transformer in bfloat16 whose odd blocks replace the MLP by a Soft
    mixture of experts: a 4x4 stride-4 convolution makes 64 patch tokens (plus learned
    positions); in a Soft MoE layer every one of 16 slots (two per expert) is a
    softmax-over-tokens weighted average of the L2-normalized tokens against a learned,
    normalized slot matrix, each expert MLP processes its own two slots (batched
    einsums over the expert axis), and every token takes back a softmax-over-slots
    weighted combination of the slot outputs, so no token is dropped and nothing is
    sorted; pre-norm self-attention, global average pooling, cross-entropy with label
    smoothing; AdamW with gradient centralization."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    tokens = (side // patch) ** 2
    d = width // heads
    count = experts * slots
    shapes: dict[str, tuple[int, ...]] = {
        "patch": (patch, patch, 3, width), "patch_b": (width,), "pos": (tokens, width)}
    for l in range(depth):
        shapes.update({f"l{l}_ln1_g": (width,), f"l{l}_ln1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_qkv_b": (3 * width,),
                       f"l{l}_o": (width, width), f"l{l}_o_b": (width,),
                       f"l{l}_ln2_g": (width,), f"l{l}_ln2_b": (width,)})
        if l % 2:
            shapes.update({f"l{l}_slots": (width, count), f"l{l}_slot_scale_g": (1,),
                           f"l{l}_e1": (experts, width, 4 * width),
                           f"l{l}_e1_b": (experts, 1, 4 * width),
                           f"l{l}_e2": (experts, 4 * width, width),
                           f"l{l}_e2_b": (experts, 1, width)})
        else:
            shapes.update({f"l{l}_ff1": (width, 4 * width), f"l{l}_ff1_b": (4 * width,),
                           f"l{l}_ff2": (4 * width, width), f"l{l}_ff2_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,), "head": (width, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=10, dtype=bf16)

    def normalize(x, axis):
        x32 = x.astype(jnp.float32)
        return x32 * jax.lax.rsqrt(jnp.sum(x32 * x32, axis, keepdims=True) + 1e-6)

    def soft_moe(p, l, x):
        b = x.shape[0]
        logits = jnp.einsum("bnd,ds->bns", normalize(x, -1), normalize(p[f"l{l}_slots"], 0))
        logits = logits * p[f"l{l}_slot_scale_g"].astype(jnp.float32)
        dispatch = jax.nn.softmax(logits, 1).astype(bf16)                # over tokens
        combine = jax.nn.softmax(logits, 2).astype(bf16)                 # over slots
        inputs = jnp.einsum("bns,bnd->bsd", dispatch, x).reshape(b, experts, slots, width)
        inputs = jnp.transpose(inputs, (1, 0, 2, 3)).reshape(experts, b * slots, width)
        h = jax.nn.gelu(jnp.einsum("etd,edh->eth", inputs, p[f"l{l}_e1"]) + p[f"l{l}_e1_b"])
        out = jnp.einsum("eth,ehd->etd", h, p[f"l{l}_e2"]) + p[f"l{l}_e2_b"]
        out = jnp.transpose(out.reshape(experts, b, slots, width), (1, 0, 2, 3))
        return jnp.einsum("bns,bsd->bnd", combine, out.reshape(b, count, width))

    def loss_fn(p, images, labels):
        b = images.shape[0]
        x = _conv(images, p["patch"], patch, padding="VALID") + p["patch_b"]
        x = x.reshape(b, tokens, width) + p["pos"]
        for l in range(depth):
            h = _layer_norm(x, p[f"l{l}_ln1_g"], p[f"l{l}_ln1_b"])
            q, k, v = jnp.split((h @ p[f"l{l}_qkv"] + p[f"l{l}_qkv_b"])
                                .reshape(b, tokens, 3 * heads, d), 3, 2)
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / math.sqrt(d)
            weights = jax.nn.softmax(scores, -1).astype(bf16)
            mixed = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, tokens, width)
            x = x + mixed @ p[f"l{l}_o"] + p[f"l{l}_o_b"]
            h = _layer_norm(x, p[f"l{l}_ln2_g"], p[f"l{l}_ln2_b"])
            if l % 2:
                x = x + soft_moe(p, l, h)
            else:
                x = x + jax.nn.gelu(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"]) @ p[f"l{l}_ff2"] \
                    + p[f"l{l}_ff2_b"]
        pooled = _layer_norm(x.mean(1), p["final_g"], p["final_b"])
        logp = jax.nn.log_softmax((pooled @ p["head"] + p["head_b"]).astype(jnp.float32), -1)
        smooth = 0.9 * jax.nn.one_hot(labels, classes) + 0.1 / classes
        return -jnp.mean(jnp.sum(smooth * logp, -1))

    rng = np.random.default_rng(10)
    labels = rng.integers(0, classes, batch)
    images = _smooth_images(rng, batch, side, 3, 5.0)
    images += 0.6 * rng.standard_normal((classes, 1, 1, 3))[labels]
    return _train("gc_adamw", loss_fn, p, jnp.asarray(images, bf16),
                  jnp.asarray(labels, jnp.int32))


def fdtd_maxwell(side: int = 256, steps: int = 600, layer: int = 20, receivers: int = 16) -> Any:
    """Inference: a 2-D finite-difference time-domain (Yee) simulation of Maxwell's
    equations for the transverse-magnetic mode in a `fori_loop`: Ez, Hx and Hy on a
    staggered grid (differences by shifted slices padded with zeros), a permittivity map
    of a dielectric lens and slab, an absorbing border of graded, matched electric and
    magnetic conductivities (cubic profile) entering the update coefficients, and a
    soft Ricker-wavelet source added at one cell; per step it records Ez at 16 receivers
    (a gather, written into the trace by `dynamic_update_slice`), accumulates the
    electromagnetic energy, the Poynting flux through a line of cells and running DFTs
    of Ez at two frequencies (complex64 phasors), which come back as amplitude maps."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dt = 0.5                                     # Courant number in units of dx / c
    frequencies = (0.05, 0.08)                   # cycles per cell of travel

    def run(eps, sigma, spots, source):
        sigma_m = sigma                            # matched: sigma_m / mu = sigma / eps
        loss_e = sigma * dt / (2.0 * eps)
        ca, cb = (1.0 - loss_e) / (1.0 + loss_e), (dt / eps) / (1.0 + loss_e)
        loss_h = sigma_m * dt / 2.0
        da, db = (1.0 - loss_h) / (1.0 + loss_h), dt / (1.0 + loss_h)
        column = side * 3 // 4
        omega = 2 * jnp.pi * jnp.asarray(frequencies, jnp.float32)

        def forward_diff(f, axis):
            d = jnp.diff(f, axis=axis)
            pad = [(0, 0), (0, 0)]
            pad[axis] = (0, 1)
            return jnp.pad(d, pad)

        def backward_diff(f, axis):
            d = jnp.diff(f, axis=axis)
            pad = [(0, 0), (0, 0)]
            pad[axis] = (1, 0)
            return jnp.pad(d, pad)

        def step(t, carry):
            ez, hx, hy, trace, energy, flux, dft = carry
            hx = da * hx - db * forward_diff(ez, 1)
            hy = da * hy + db * forward_diff(ez, 0)
            curl = backward_diff(hy, 0) - backward_diff(hx, 1)
            ez = ca * ez + cb * curl
            tau = t.astype(jnp.float32) * dt
            arg = jnp.square(jnp.pi * 0.06 * (tau - 30.0))
            ez = ez.at[source[0], source[1]].add((1.0 - 2.0 * arg) * jnp.exp(-arg))
            trace = lax.dynamic_update_slice(trace, ez[spots[:, 0], spots[:, 1]][None], (t, 0))
            energy = energy + 0.5 * jnp.sum(eps * ez * ez + hx * hx + hy * hy)
            flux = flux + jnp.sum(-ez[column] * hy[column])
            phase = jnp.exp(-1j * (omega * tau).astype(jnp.complex64))
            dft = dft + phase[:, None, None] * ez.astype(jnp.complex64)[None]
            return ez, hx, hy, trace, energy, flux, dft

        zero = jnp.zeros((side, side), jnp.float32)
        carry = (zero, zero, zero, jnp.zeros((steps, spots.shape[0]), jnp.float32),
                 jnp.float32(0.0), jnp.float32(0.0),
                 jnp.zeros((len(frequencies), side, side), jnp.complex64))
        ez, _, _, trace, energy, flux, dft = lax.fori_loop(0, steps, step, carry)
        return trace, energy / steps, flux * dt, jnp.abs(dft) * dt, ez

    yy, xx = np.mgrid[0:side, 0:side].astype(np.float64)
    eps = np.ones((side, side))
    lens = (yy - side * 0.55) ** 2 + (xx - side / 2) ** 2 < (side * 0.12) ** 2
    eps[lens] = 4.0
    eps[int(side * 0.8):int(side * 0.85), layer:-layer] = 2.25
    depth = np.maximum.reduce([layer - yy, layer - xx, yy - (side - 1 - layer),
                               xx - (side - 1 - layer), np.zeros_like(yy)])
    sigma = 0.5 * (depth / layer) ** 3
    rng = np.random.default_rng(11)
    spots = rng.integers(layer + 4, side - layer - 4, (receivers, 2))
    return jax.jit(run).lower(jnp.asarray(eps, jnp.float32), jnp.asarray(sigma, jnp.float32),
                              jnp.asarray(spots, jnp.int32),
                              jnp.asarray([side // 4, side // 2], jnp.int32))


def walksat_3sat(variables: int = 256, ratio: float = 4.0, chains: int = 16,
                 max_flips: int = 2000, noise: float = 0.5) -> Any:
    """Inference: WalkSAT local search on a random 3-SAT instance with a planted
    solution (1024 clauses over 256 variables), 16 independent chains from random
    assignments in one `while_loop` that stops as soon as any chain satisfies every
    clause (capped at 2000 flips): each flip evaluates every literal by a gather, counts
    the true literals per clause, picks one unsatisfied clause per chain (the largest of
    a cheap uint32 multiply-xorshift hash of clause, chain and flip), computes the break
    count of each of its three variables (clauses for which it is the only true literal,
    by a `segment_sum` over all literal occurrences of all chains), and flips a
    zero-break variable if there is one, otherwise a random one of the three with
    probability 0.5 and the least-breaking one otherwise; the assignments, unsatisfied
    counts and the flips taken come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    clauses = int(round(ratio * variables))

    def run(var, sign, start, key):
        occurrence = jnp.arange(chains)[:, None, None] * variables + var[None]   # (C, m, 3)

        def evaluate(assign):
            lit = assign[:, var] == sign[None]                                   # (C, m, 3)
            return lit, jnp.sum(lit, -1)

        def cond(state):
            i, _, _, true, _ = state
            return (i < max_flips) & jnp.all(jnp.any(true == 0, -1))

        def body(state):
            i, assign, lit, true, best = state
            k2, k3, k4 = jax.random.split(jax.random.fold_in(key, i), 3)
            broken = true == 0
            mix = (jnp.arange(clauses, dtype=jnp.uint32)[None] * jnp.uint32(0x9E3779B1)
                   + jnp.arange(chains, dtype=jnp.uint32)[:, None] * jnp.uint32(0xC2B2AE35)
                   + i.astype(jnp.uint32) * jnp.uint32(0x85EBCA6B))
            mix = (mix ^ (mix >> 15)) * jnp.uint32(0x2C1B3C6D)
            mix = mix ^ (mix >> 12)
            clause = jnp.argmax(jnp.where(broken, mix, jnp.uint32(0)), -1)
            candidates = var[clause]                                             # (C, 3)
            critical = (lit & (true == 1)[..., None]).astype(jnp.int32)
            breaks = jax.ops.segment_sum(critical.reshape(-1), occurrence.reshape(-1),
                                         chains * variables).reshape(chains, variables)
            cost = jnp.take_along_axis(breaks, candidates, 1).astype(jnp.float32)
            tie = 0.1 * jax.random.uniform(k2, cost.shape)
            greedy = jnp.take_along_axis(candidates, jnp.argmin(cost + tie, -1)[:, None], 1)
            wander = jnp.take_along_axis(candidates,
                                         jax.random.randint(k3, (chains, 1), 0, 3), 1)
            free = jnp.min(cost, -1) == 0
            pick = free | (jax.random.uniform(k4, (chains,)) > noise)
            choice = jnp.where(pick, greedy[:, 0], wander[:, 0])
            assign = assign ^ (jnp.arange(variables)[None] == choice[:, None])
            lit, true = evaluate(assign)
            return i + 1, assign, lit, true, jnp.minimum(best, jnp.sum(true == 0, -1))

        lit, true = evaluate(start)
        flips, assign, _, true, best = lax.while_loop(
            cond, body, (jnp.int32(0), start, lit, true, jnp.sum(true == 0, -1)))
        unsat = jnp.sum(true == 0, -1)
        return assign, unsat, best, flips, jnp.argmin(unsat)

    rng = np.random.default_rng(12)
    hidden = rng.uniform(size=variables) < 0.5
    var = np.stack([rng.choice(variables, 3, replace=False) for _ in range(clauses)])
    sign = rng.uniform(size=(clauses, 3)) < 0.5
    unsatisfied = ~np.any(hidden[var] == sign, 1)                  # plant: fix one literal
    fix = rng.integers(0, 3, clauses)
    sign[unsatisfied, fix[unsatisfied]] = hidden[var[unsatisfied, fix[unsatisfied]]]
    start = rng.uniform(size=(chains, variables)) < 0.5
    return jax.jit(run).lower(jnp.asarray(var, jnp.int32), jnp.asarray(sign),
                              jnp.asarray(start), jax.random.PRNGKey(12))


def photon_transport(photons: int = 4096, max_steps: int = 600, depth_bins: int = 60,
                     radius_bins: int = 40, roulette: float = 1e-3) -> Any:
    """Inference: Monte Carlo photon migration through three-layered tissue in the manner
    of MCML, photon packets moving in a `while_loop` until every packet has died or left
    (capped at 600 events): each event draws its uniforms inside the loop, takes an
    exponential free path with the optical properties of the layer where the step
    begins (a `searchsorted`), partially reflects packets that cross the surface by the
    Fresnel equations (the escaping share scored as diffuse reflectance by radius, the
    rest mirrored back in) and scores packets leaving the bottom as transmittance,
    deposits the absorbed share of the weight into a depth-by-radius grid by
    scatter-add, turns the direction by a Henyey-Greenstein deflection and a uniform
    azimuth, and plays Russian roulette with light packets; absorption, fluence,
    reflectance, transmittance and the events taken come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    # layers: bottom depth (cm), absorption and scattering (1/cm), anisotropy
    bottoms = jnp.asarray([0.01, 0.2, 0.6], jnp.float32)
    mu_a = jnp.asarray([4.0, 1.5, 1.0], jnp.float32)
    mu_s = jnp.asarray([100.0, 40.0, 30.0], jnp.float32)
    aniso = jnp.asarray([0.8, 0.85, 0.75], jnp.float32)
    n_tissue, dz, dr = 1.4, 0.6 / depth_bins, 0.5 / radius_bins

    def fresnel(cos_i):
        sin_t = n_tissue * jnp.sqrt(jnp.maximum(1.0 - cos_i * cos_i, 0.0))
        cos_t = jnp.sqrt(jnp.maximum(1.0 - sin_t * sin_t, 0.0))
        rs = (n_tissue * cos_i - cos_t) / (n_tissue * cos_i + cos_t + 1e-12)
        rp = (cos_i - n_tissue * cos_t) / (cos_i + n_tissue * cos_t + 1e-12)
        return jnp.where(sin_t >= 1.0, 1.0, 0.5 * (rs * rs + rp * rp))

    def run(key, launch):
        def cond(state):
            return (state[0] < max_steps) & jnp.any(state[3] > 0)

        def body(state):
            i, pos, direction, w, absorbed, reflect, transmit = state
            u = jax.random.uniform(jax.random.fold_in(key, i), (4, photons),
                                   minval=1e-7, maxval=1.0)
            layer = jnp.minimum(jnp.searchsorted(bottoms, pos[:, 2]), 2)
            a, s, g = mu_a[layer], mu_s[layer], aniso[layer]
            pos = pos - jnp.log(u[0])[:, None] / (a + s)[:, None] * direction
            alive = w > 0
            above = alive & (pos[:, 2] < 0)
            share = fresnel(jnp.abs(direction[:, 2]))
            radius = jnp.sqrt(pos[:, 0] ** 2 + pos[:, 1] ** 2)
            ring = jnp.minimum((radius / dr).astype(jnp.int32), radius_bins - 1)
            reflect = reflect.at[ring].add(jnp.where(above, w * (1.0 - share), 0.0))
            w = jnp.where(above, w * share, w)
            pos = pos.at[:, 2].set(jnp.abs(pos[:, 2]))
            direction = direction.at[:, 2].set(jnp.where(above, -direction[:, 2],
                                                         direction[:, 2]))
            below = alive & (pos[:, 2] > bottoms[-1])
            transmit = transmit + jnp.sum(jnp.where(below, w, 0.0))
            w = jnp.where(below, 0.0, w)
            lost = w * a / (a + s)
            cell = (jnp.minimum((pos[:, 2] / dz).astype(jnp.int32), depth_bins - 1) * radius_bins
                    + ring)
            absorbed = absorbed.at[cell].add(lost)
            w = w - lost
            # Henyey-Greenstein deflection and a uniform azimuth
            fraction = (1.0 - g * g) / (1.0 - g + 2.0 * g * u[1])
            cos_t = jnp.clip((1.0 + g * g - fraction * fraction) / (2.0 * g), -1.0, 1.0)
            sin_t = jnp.sqrt(1.0 - cos_t * cos_t)
            phi = 2.0 * jnp.pi * u[2]
            ux, uy, uz = direction[:, 0], direction[:, 1], direction[:, 2]
            steep = jnp.abs(uz) > 0.99999
            root = jnp.sqrt(jnp.maximum(1.0 - uz * uz, 1e-12))
            nx = jnp.where(steep, sin_t * jnp.cos(phi),
                           sin_t * (ux * uz * jnp.cos(phi) - uy * jnp.sin(phi)) / root
                           + ux * cos_t)
            ny = jnp.where(steep, sin_t * jnp.sin(phi),
                           sin_t * (uy * uz * jnp.cos(phi) + ux * jnp.sin(phi)) / root
                           + uy * cos_t)
            nz = jnp.where(steep, jnp.sign(uz) * cos_t, -sin_t * jnp.cos(phi) * root + uz * cos_t)
            direction = jnp.stack([nx, ny, nz], -1)
            light = (w > 0) & (w < roulette)
            w = jnp.where(light, jnp.where(u[3] < 0.1, w * 10.0, 0.0), w)
            return i + 1, pos, direction, w, absorbed, reflect, transmit

        start = (jnp.int32(0), launch, jnp.broadcast_to(jnp.asarray([0.0, 0.0, 1.0]),
                                                        (photons, 3)),
                 jnp.full((photons,), 1.0 - ((n_tissue - 1) / (n_tissue + 1)) ** 2),
                 jnp.zeros(depth_bins * radius_bins), jnp.zeros(radius_bins), jnp.float32(0.0))
        steps, _, _, _, absorbed, reflect, transmit = lax.while_loop(cond, body, start)
        r = (jnp.arange(radius_bins) + 0.5) * dr
        area = 2 * jnp.pi * r * dr
        grid = absorbed.reshape(depth_bins, radius_bins) / (photons * area * dz)
        depth = jnp.minimum(jnp.searchsorted(bottoms, (jnp.arange(depth_bins) + 0.5) * dz), 2)
        return (grid, grid / mu_a[depth][:, None], reflect / (photons * area),
                transmit / photons, steps)

    rng = np.random.default_rng(13)
    spread = rng.normal(0.0, 0.01, (photons, 2))                 # a narrow Gaussian beam
    launch = np.concatenate([spread, np.zeros((photons, 1))], 1)
    return jax.jit(run).lower(jax.random.PRNGKey(13), jnp.asarray(launch, jnp.float32))


def streaming_sketches(items: int = 1 << 20, distinct: int = 1 << 16, depth: int = 4,
                       width: int = 1 << 13, hll_bits: int = 12, bloom_bits: int = 1 << 18,
                       bloom_hashes: int = 5, queries: int = 8192, heavy: int = 32) -> Any:
    """Inference: probabilistic summaries of a stream of a million Zipf-distributed
    uint32 keys, all hashed in uint32 by a murmur3-style finalizer (xor-shifts and
    wrapping multiplies) with a seed per use: a count-min sketch (four rows of 8192
    counters filled by `segment_sum`, estimates as the minimum over rows of gathered
    counters), a count sketch (signed updates, estimates as the median of five rows by a
    `sort`), a HyperLogLog cardinality estimate (4096 registers holding the maximum
    leading-zero count from `clz` by `segment_max`, a harmonic mean with the
    small-range correction) and a Bloom filter of 2^18 bits set by a scatter with five
    hashes per key and probed for present and absent keys; the exact answers come from
    a `sort` of the stream (distinct count from the key changes, frequencies by
    `searchsorted`), and the heavy hitters of each sketch by `top_k` are compared with
    the true ones."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    registers = 1 << hll_bits
    cs_rows = 5

    def mix(x, seed):
        h = x ^ u32((seed * 0x9E3779B9 + 0x7F4A7C15) & 0xFFFFFFFF)
        h = (h ^ (h >> 16)) * u32(0x85EBCA6B)
        h = (h ^ (h >> 13)) * u32(0xC2B2AE35)
        return h ^ (h >> 16)

    def bucket(x, seed, size):
        return (mix(x, seed) >> (32 - int(math.log2(size)))).astype(jnp.int32)

    def run(stream, probe, absent):
        ones = jnp.ones(items, jnp.int32)
        cm = jnp.stack([jax.ops.segment_sum(ones, bucket(stream, r, width), width)
                        for r in range(depth)])
        cm_estimate = jnp.min(jnp.stack([cm[r, bucket(probe, r, width)]
                                         for r in range(depth)]), 0)
        sign = lambda x, r: 1 - 2 * (mix(x, 100 + r) >> 31).astype(jnp.int32)
        cs = jnp.stack([jax.ops.segment_sum(sign(stream, r), bucket(stream, 50 + r, width),
                                            width) for r in range(cs_rows)])
        cs_estimate = jnp.sort(jnp.stack([cs[r, bucket(probe, 50 + r, width)] * sign(probe, r)
                                          for r in range(cs_rows)]), 0)[cs_rows // 2]

        h = mix(stream, 999)
        register = (h >> (32 - hll_bits)).astype(jnp.int32)
        rest = h << hll_bits
        rho = jnp.minimum(lax.clz(rest) + 1, 32 - hll_bits + 1).astype(jnp.int32)
        filled = jnp.maximum(jax.ops.segment_max(rho, register, registers), 0)
        alpha = 0.7213 / (1.0 + 1.079 / registers)
        raw = alpha * registers ** 2 / jnp.sum(jnp.exp2(-filled.astype(jnp.float32)))
        empty = jnp.sum(filled == 0)
        cardinality = jnp.where((raw < 2.5 * registers) & (empty > 0),
                                registers * jnp.log(registers / jnp.maximum(empty, 1)), raw)

        spots = jnp.concatenate([bucket(stream, 2000 + k, bloom_bits) for k in range(bloom_hashes)])
        bits = jnp.zeros(bloom_bits, bool).at[spots].set(True)
        member = lambda x: jnp.all(jnp.stack([bits[bucket(x, 2000 + k, bloom_bits)]
                                              for k in range(bloom_hashes)]), 0)
        false_positive = jnp.mean(member(absent).astype(jnp.float32))
        recall = jnp.mean(member(probe).astype(jnp.float32))

        ordered = jnp.sort(stream)
        exact_distinct = 1 + jnp.sum(ordered[1:] != ordered[:-1])
        exact = (jnp.searchsorted(ordered, probe, side="right")
                 - jnp.searchsorted(ordered, probe, side="left"))
        _, true_top = lax.top_k(exact, heavy)
        _, cm_top = lax.top_k(cm_estimate, heavy)
        _, cs_top = lax.top_k(cs_estimate, heavy)
        overlap = lambda found: jnp.sum(jnp.any(found[:, None] == true_top[None], 1))
        errors = jnp.stack([jnp.mean(jnp.abs(cm_estimate - exact).astype(jnp.float32)),
                            jnp.mean(jnp.abs(cs_estimate - exact).astype(jnp.float32))])
        return (cardinality, exact_distinct, errors, overlap(cm_top), overlap(cs_top),
                false_positive, recall, probe[true_top], exact[true_top])

    rng = np.random.default_rng(14)
    ids = rng.choice(np.iinfo(np.uint32).max, distinct + queries, replace=False).astype(np.uint32)
    ranks = np.arange(1, distinct + 1)
    weights = ranks ** -1.1
    stream = ids[rng.choice(distinct, items, p=weights / weights.sum())]
    probe = ids[np.concatenate([np.arange(queries // 2),
                                rng.choice(distinct, queries // 2, replace=False)])]
    absent = ids[distinct:]
    return jax.jit(run).lower(jnp.asarray(stream), jnp.asarray(probe), jnp.asarray(absent))


def hough_lines(images: int = 4, side: int = 192, thetas: int = 180, points: int = 4096,
                peaks: int = 16, lines: int = 6) -> Any:
    """Inference: straight-line detection by the Hough transform on noisy synthetic
    images: a 5x5 Gaussian blur and Sobel gradients as convolutions, the strongest
    4096 gradient magnitudes per image kept by `top_k` as edge points, every point
    voting with its magnitude for all 180 angles into a (theta, rho) accumulator by one
    scatter-add, non-maximum suppression by a 9x9 `reduce_window` maximum, the 16
    strongest peaks by `top_k`, then for each detected line the edge points within 1.5
    pixels of it (a peaks-by-points distance table), their count, and the segment's
    extent from the minimum and maximum of their projections along the line."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    diagonal = int(math.ceil(math.sqrt(2) * side))
    bins = 2 * diagonal + 1
    angle = jnp.arange(thetas, dtype=jnp.float32) * (jnp.pi / thetas)
    cos_a, sin_a = jnp.cos(angle), jnp.sin(angle)

    def run(pictures):
        g1 = np.exp(-0.5 * (np.arange(5) - 2.0) ** 2)
        blur = jnp.asarray(np.outer(g1, g1) / np.outer(g1, g1).sum(), jnp.float32)
        sobel = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
        x = _conv(pictures[..., None], blur[:, :, None, None])
        grads = _conv(x, jnp.asarray(np.stack([sobel, sobel.T], -1)[:, :, None, :]))
        magnitude = jnp.sqrt(jnp.sum(grads * grads, -1)).reshape(images, -1)
        strength, where = lax.top_k(magnitude, points)                    # (I, P)
        py = (where // side).astype(jnp.float32)
        px = (where % side).astype(jnp.float32)
        rho = px[..., None] * cos_a + py[..., None] * sin_a                # (I, P, T)
        cell = jnp.round(rho).astype(jnp.int32) + diagonal
        flat = (jnp.arange(images)[:, None, None] * thetas + jnp.arange(thetas)) * bins + cell
        votes = jnp.broadcast_to(strength[..., None], rho.shape)
        accumulator = jnp.zeros(images * thetas * bins).at[flat.reshape(-1)].add(
            votes.reshape(-1)).reshape(images, thetas, bins)
        local = lax.reduce_window(accumulator, -jnp.inf, lax.max, (1, 9, 9), (1, 1, 1),
                                  ((0, 0), (4, 4), (4, 4)))
        peak = jnp.where(accumulator >= local, accumulator, 0.0).reshape(images, -1)
        score, best = lax.top_k(peak, peaks)
        theta = angle[best // bins]
        distance = (best % bins - diagonal).astype(jnp.float32)
        c, s = jnp.cos(theta)[..., None], jnp.sin(theta)[..., None]           # (I, K, 1)
        off = jnp.abs(px[:, None] * c + py[:, None] * s - distance[..., None])  # (I, K, P)
        near = off < 1.5
        along = -px[:, None] * s + py[:, None] * c
        first = jnp.min(jnp.where(near, along, jnp.inf), -1)
        last = jnp.max(jnp.where(near, along, -jnp.inf), -1)
        return theta, distance, score, jnp.sum(near, -1), first, last

    rng = np.random.default_rng(15)
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float64)
    pictures = 0.3 * _smooth_images(rng, images, side, 1, 12.0)[..., 0]
    for i in range(images):
        for _ in range(lines):
            t, r = rng.uniform(0, np.pi), rng.uniform(-0.3 * side, 0.9 * side)
            gap = np.abs(xx * np.cos(t) + yy * np.sin(t) - r)
            span = -xx * np.sin(t) + yy * np.cos(t)
            lo = rng.uniform(-side, 0.5 * side)
            on = (gap < 1.2) & (span > lo) & (span < lo + rng.uniform(0.4, 1.0) * side)
            pictures[i] += rng.uniform(0.6, 1.2) * on
    pictures += 0.15 * rng.standard_normal(pictures.shape)
    return jax.jit(run).lower(jnp.asarray(pictures, jnp.float32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "hrnet_pose/8x96px-32-64-128-16-joints": hrnet_pose,
    "alphazero_go/16x19x19-48x3-bf16": alphazero_go,
    "hifigan_stft/2x6144-samples-3-resolutions": hifigan_stft,
    "decision_transformer/16x20x3-d128-bf16": decision_transformer,
    "graphormer_regression/32x21-nodes-d64": graphormer_regression,
    "soft_actor_critic/256x24+6": soft_actor_critic,
    "bayes_by_backprop/128x784-400-400": bayes_by_backprop,
    "soft_robot_controller/32x24-masses-256-steps": soft_robot_controller,
    "dp_federated_round/8-clients-3x16-28px": dp_federated_round,
    "soft_moe_vit/16x32px-e8x2-bf16": soft_moe_vit,
    "fdtd_maxwell/256x256-600-steps": fdtd_maxwell,
    "walksat_3sat/256-vars-16-chains-max2000": walksat_3sat,
    "photon_transport/4096-photons-max600": photon_transport,
    "streaming_sketches/1048576-items": streaming_sketches,
    "hough_lines/4x192px-180-angles": hough_lines,
}
