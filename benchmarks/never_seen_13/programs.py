"""The thirteenth never-seen set: programs written on 2026-11-27, after the twelfth set
(benchmarks/never_seen_12/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-13` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
twelve never-seen sets has; as in the two sets before it, several training steps are
large (a few gigaflops each) and the rest mid-sized. Ten are training steps (forward,
loss, backward and an optimizer update). A RepVGG classifier is trained in its
multi-branch form, every block summing batch-normalized 3x3, 1x1 and (where shapes
allow) identity branches before its ReLU, over four stages of 32 to 256 channels. A
GoogLeNet-style network in bfloat16 concatenates four Inception branches per module (a
1x1 convolution; a 1x1 reduction and a 3x3; a 1x1 reduction and two 3x3s; a 3x3 max pool
and a 1x1 projection) and learns with CutMix, a box of every image replaced inside the
step by the same box of a partner chosen by a random permutation and the two labels'
losses mixed by the pasted area. A T5-style encoder-decoder learns a synthetic
word-for-word, order-reversing translation by teacher forcing, with RMS normalization,
gated-GELU feed-forward layers, cross-attention masked against source padding, a tied
and rescaled output embedding, and per-head attention biases gathered by logarithmic
relative-position buckets. SASRec in bfloat16 predicts the next item of left-padded
interaction histories by causal self-attention whose queries come from the normalized
input, scoring the true next item and sampled negatives against its shared item table
under binary cross-entropy. A causal language model in bfloat16 puts a product-key
memory in place of its second feed-forward layer: per memory head, a `top_k` over each
of two sub-key tables, a third `top_k` over the pairwise sums of the survivors, and a
softmax-weighted gather of 16 rows from a 16384-row value table. A MuZero step for an
8x8 board game encodes observations by a residual convolutional network and unrolls its
learned dynamics five moves in a `lax.scan` (gradient halved into each hidden state, the
action as extra planes), training policy, value and reward heads, the last two as 21-bin
categorical distributions against two-hot targets. A masked autoregressive flow of five
MADE layers, their connectivity masks built from unit degrees and the input order
reversed between layers, fits an 8-dimensional density by maximum likelihood. A DeepONet
learns the solution operator of the periodic heat equation, the inner product of a
branch network over 100 sensor values of the initial condition and a trunk network over
query coordinates. An interpretable N-BEATS forecaster fits hourly series with
weight-shared trend (cubic polynomial basis) and seasonality (Fourier basis) stacks that
subtract backcasts and sum forecasts, under a MASE loss. An XNOR-Net binarizes
activations and weights by sign with straight-through gradients, scaling its binary
convolutions by per-channel weight magnitudes and by box-filtered activation magnitudes.
Five are inference or scientific steps without a gradient: computed tomography of
perturbed Shepp-Logan phantoms (the Radon transform by bilinear gathers along rays,
counting noise, a Hann-windowed ramp filter by zero-padded real FFTs, filtered
back-projection by interpolating gathers, RMSE and PSNR); adaptive Dormand-Prince 5(4)
integration of 1024 restricted three-body problems started near Arenstorf's periodic
orbit, each with its own time and step size, in a `while_loop` that ends when every
system has covered one period (capped at 2000 iterations), with accepted and rejected
step counts, the closest approach to the Moon and the drift of the Jacobi constant; fast
Griffin-Lim phase retrieval, 60 momentum-accelerated rounds of an inverse STFT (inverse
real FFTs, overlap-add by a scatter-add) and a forward STFT (framing by a gather, real
FFTs) in a `fori_loop` with a per-round convergence trace; seam carving of 32 vertical
seams in a `fori_loop`, each a row-by-row dynamic program as a `lax.scan` with int8
back-pointers, a backtrace by a reverse `lax.scan` and removal by a shifting gather; and
sequential RANSAC detection of three planes in a point cloud in a `fori_loop`, 1024
three-point hypotheses per plane scored by MSAC through a points-by-hypotheses matrix
product and the winner refined by power iteration on its inliers' covariance. The
updates are all new to these sets: proximal momentum SGD under a group-lasso penalty
(block soft-thresholding of output channels), AdamW with Kahan-compensated bfloat16
updates, Eve (Adam with its step divided by the smoothed relative change of a tracked
loss), COCOB-Backprop (coin betting, no learning rate), Madam (multiplicative updates
clamped to a multiple of the starting RMS), AccSGD (the accelerated SGD of Jain, Kakade,
Kidambi, Netrapalli and Sidford), Hessian-free optimization (six conjugate-gradient
iterations on Hessian-vector products in a `fori_loop`, Levenberg-Marquardt damping, a
trial evaluation of the loss), Entropy-SGD (an inner loop of stochastic gradient
Langevin steps in a `fori_loop`, each another forward and backward pass), SVRG (a second
backward pass at a weight snapshot) and stochastic Frank-Wolfe with momentum over an
L-infinity ball; three training steps (the Inception network, SASRec and the product-key
language model) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")


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
    is the step's loss at other parameters on the same batch (SVRG, Entropy-SGD and
    Hessian-free differentiate it). State is float32 whatever the parameters' dtype,
    except Kahan's compensation buffer, which has the parameters' own dtype; every
    parameter keeps its own dtype."""
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

    if name == "cocob":
        # COCOB-Backprop (continuous coin betting): no learning rate; every weight is its
        # starting value plus a bet, the running sum of negative gradients over the
        # largest gradient magnitude seen times max(sum of magnitudes + largest,
        # alpha * largest), staked with the reward won so far plus the largest magnitude
        alpha = 100.0

        def cocob_init(params):
            return (wide(params), tm(lambda p: jnp.full(p.shape, 1e-8, f32), params),
                    zeros(params), zeros(params), zeros(params))

        def cocob(params, grads, state, loss, evaluate):
            start, largest, total, reward, theta = state

            def bet(p, g_, w1, l_, s_, r_, th):
                neg = -g_
                l_ = jnp.maximum(l_, jnp.abs(neg))
                s_ = s_ + jnp.abs(neg)
                r_ = jnp.maximum(r_ + (p.astype(f32) - w1) * neg, 0.0)
                th = th + neg
                w = w1 + th / (l_ * jnp.maximum(s_ + l_, alpha * l_)) * (l_ + r_)
                return w.astype(p.dtype), l_, s_, r_, th
            params, largest, total, reward, theta = _unzip(
                tm(bet, params, wide(grads), start, largest, total, reward, theta), params, 5)
            return params, (start, largest, total, reward, theta)
        return cocob_init, cocob

    if name == "eve":
        # Eve: Adam whose step is divided by d, a slow average of the relative change of a
        # tracked loss; the tracked loss follows the step's loss with its ratio clipped
        # into [1.1, 11] when the loss rose and [1/11, 1/1.1] when it fell
        small, large, beta3, rate = 0.1, 10.0, 0.999, 1e-3

        def eve_init(params):
            return zeros(params), zeros(params), count(), jnp.zeros((), f32), jnp.ones((), f32)

        def eve(params, grads, state, loss, evaluate):
            m, v, t, tracked, d = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            loss = loss.astype(f32)
            first = t == 1
            rose = loss >= tracked
            low = jnp.where(rose, 1.0 + small, 1.0 / (1.0 + large))
            high = jnp.where(rose, 1.0 + large, 1.0 / (1.0 + small))
            ratio = jnp.clip(loss / jnp.where(first, 1.0, tracked), low, high)
            follow = jnp.where(first, loss, ratio * tracked)
            change = jnp.abs(follow - tracked) / jnp.maximum(jnp.minimum(follow, tracked), 1e-12)
            d = jnp.where(first, 1.0, beta3 * d + (1.0 - beta3) * change)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) - rate * (m_ / (1.0 - 0.9 ** n))
                       / (d * jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-8), params, m, v)
            return recast(params, moved), (m, v, t, follow, d)
        return eve_init, eve

    if name == "svrg":
        # SVRG: the step's gradient less the same batch's gradient at a snapshot of the
        # weights (a second backward pass) plus an anchor, the mean of the snapshot's
        # gradients over the batches since it was taken (standing in for the full
        # gradient); the snapshot moves to the current weights every 50 steps; plain SGD
        period, rate = 50, 0.02

        def svrg_init(params):
            return wide(params), zeros(params), count(), count()

        def svrg(params, grads, state, loss, evaluate):
            snapshot, anchor, seen, t = state
            at_snapshot = wide(jax.grad(evaluate)(recast(params, snapshot)))
            seen = seen + 1
            anchor = tm(lambda a, s: a + (s - a) / seen.astype(f32), anchor, at_snapshot)
            moved = tm(lambda p, g_, s, a: p.astype(f32) - rate * (g_ - s + a),
                       params, wide(grads), at_snapshot, anchor)
            t = t + 1
            refresh = t % period == 0
            snapshot = tm(lambda s, w: jnp.where(refresh, w, s), snapshot, moved)
            return recast(params, moved), (snapshot, anchor, jnp.where(refresh, 0, seen), t)
        return svrg_init, svrg

    if name == "entropy_sgd":
        # Entropy-SGD: five stochastic gradient Langevin steps around the weights (the
        # first from the step's own gradient, four more in a `fori_loop`, each a forward
        # and backward pass on the same batch) under a coupling gamma that grows with the
        # step count; an exponential average of the Langevin iterates estimates the mean
        # of the local Gibbs measure, and the weights move toward it by momentum SGD
        inner, inner_rate, noise, gamma0, rate, keep = 5, 0.05, 1e-4, 0.03, 0.5, 0.25

        def entropy_init(params):
            return zeros(params), count()

        def entropy_sgd(params, grads, state, loss, evaluate):
            buf, t = state
            x = wide(params)
            gamma = gamma0 * (1.0 + 1e-3) ** t.astype(f32)
            key = jax.random.fold_in(jax.random.PRNGKey(1301), t)
            leaves, treedef = jax.tree.flatten(x)

            def langevin(j, y, g):
                k = jax.random.fold_in(key, j)
                kicks = treedef.unflatten([jax.random.normal(jax.random.fold_in(k, i),
                                                             leaf.shape)
                                           for i, leaf in enumerate(leaves)])
                return tm(lambda y_, g_, x_, e: y_ - inner_rate * (g_ - gamma * (x_ - y_))
                          + math.sqrt(inner_rate) * noise * e, y, g, x, kicks)

            def average(mu, y):
                return tm(lambda m_, y_: keep * m_ + (1.0 - keep) * y_, mu, y)

            first = langevin(0, x, wide(grads))

            def body(j, carry):
                y, mu = carry
                y = langevin(j, y, wide(jax.grad(evaluate)(recast(params, y))))
                return y, average(mu, y)

            _, mu = lax.fori_loop(1, inner, body, (first, average(x, first)))
            buf = tm(lambda b, x_, m_: 0.9 * b + (x_ - m_), buf, x, mu)
            moved = tm(lambda x_, b: x_ - rate * b, x, buf)
            return recast(params, moved), (buf, t + 1)
        return entropy_init, entropy_sgd

    if name == "sfw":
        # stochastic Frank-Wolfe with momentum: every tensor is confined to an L-infinity
        # ball, of radius 1 for matrices and kernels (so latent binary weights stay in
        # [-1, 1]) and 4 for vectors; the linear minimization oracle over the ball is
        # -radius * sign(m) for the momentum m, and the weights move a fixed fraction of
        # the way to that vertex
        rho, step = 0.1, 0.02

        def sfw(params, grads, state, loss, evaluate):
            m = tm(lambda m_, g_: (1.0 - rho) * m_ + rho * g_, state, wide(grads))
            moved = tm(lambda p, m_: p.astype(f32) + step * (
                -(1.0 if p.ndim >= 2 else 4.0) * jnp.sign(m_) - p.astype(f32)), params, m)
            return recast(params, moved), m
        return (lambda p: zeros(p)), sfw

    if name == "madam":
        # Madam (multiplicative Adam): every entry of a matrix or kernel is multiplied by
        # exp(-eta * sign(w) * g / sqrt(v)), v a bias-corrected running mean of g^2, then
        # clamped to three times the tensor's starting RMS; vectors (zero-started shifts,
        # unit gains) take the same normalized step additively
        rate, bound_scale = 0.01, 3.0

        def madam_init(params):
            return (zeros(params), tm(lambda p: bound_scale * jnp.sqrt(jnp.mean(jnp.square(
                p.astype(f32)))), params), count())

        def madam(params, grads, state, loss, evaluate):
            v, bound, t = state
            g = wide(grads)
            t = t + 1
            correction = 1.0 - 0.999 ** t.astype(f32)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)

            def move(p, g_, v_, b):
                normed = g_ / (jnp.sqrt(v_ / correction) + 1e-12)
                p32 = p.astype(f32)
                if p.ndim >= 2:
                    return jnp.clip(p32 * jnp.exp(-rate * normed * jnp.sign(p32)), -b, b)
                return p32 - rate * normed
            return recast(params, tm(move, params, g, v, bound)), (v, bound, t)
        return madam_init, madam

    if name == "kahan_adamw":
        # AdamW for bfloat16 weights with Kahan-compensated updates (as AnyPrecisionAdamW
        # does it): float32 moments, and a bfloat16 buffer holding what rounding the last
        # updated weight to bfloat16 lost, added back into the next update
        def kahan_init(params):
            return zeros(params), zeros(params), tm(jnp.zeros_like, params), count()

        def kahan_adamw(params, grads, state, loss, evaluate):
            m, v, lost, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)

            def move(p, m_, v_, c):
                p32 = p.astype(f32)
                update = -1e-3 * ((m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.999 ** n))
                                                            + 1e-8) + 0.05 * p32)
                total = update + c.astype(f32)
                new = (p32 + total).astype(p.dtype)
                return new, (total - (new.astype(f32) - p32)).astype(c.dtype)
            params, lost = _unzip(tm(move, params, m, v, lost), params, 2)
            return params, (m, v, lost, t)
        return kahan_init, kahan_adamw

    if name == "hessian_free":
        # Hessian-free (truncated Newton): the damped system (H + lambda I) d = -g over
        # all weights flattened into one vector is solved approximately by six
        # conjugate-gradient iterations in a `fori_loop`, warm-started from the last
        # direction times 0.95, each iteration one Hessian-vector product (forward-over-
        # reverse differentiation of the same batch's loss); a direction of non-positive
        # curvature ends the solve; the ratio of the loss's actual change (one more
        # evaluation) to the quadratic model's (one more Hessian-vector product) adapts
        # lambda Levenberg-Marquardt style, and the step is taken only if the loss falls
        from jax.flatten_util import ravel_pytree

        iterations = 6

        def hf_init(params):
            flat, _ = ravel_pytree(wide(params))
            return jnp.zeros_like(flat), jnp.ones((), f32), count()

        def hessian_free(params, grads, state, loss, evaluate):
            previous, damping, t = state
            flat, unravel = ravel_pytree(wide(params))
            g, _ = ravel_pytree(wide(grads))

            def objective(vec):
                return evaluate(recast(params, unravel(vec))).astype(f32)

            def curvature(vec):
                return jax.jvp(jax.grad(objective), (flat,), (vec,))[1]

            def damped(vec):
                return curvature(vec) + damping * vec

            def body(i, carry):
                d, r, direction, rr, live = carry
                ad = damped(direction)
                pap = jnp.dot(direction, ad)
                live = live & (pap > 0)
                alpha = jnp.where(live, rr / jnp.maximum(pap, 1e-30), 0.0)
                d = d + alpha * direction
                r = r - alpha * ad
                fresh = jnp.dot(r, r)
                return d, r, r + (fresh / jnp.maximum(rr, 1e-30)) * direction, fresh, live

            d = 0.95 * previous
            r = -g - damped(d)
            d, *_ = lax.fori_loop(0, iterations, body,
                                  (d, r, r, jnp.dot(r, r), jnp.ones((), bool)))
            model = jnp.dot(g, d) + 0.5 * jnp.dot(d, curvature(d))
            trial = objective(flat + d)
            ratio = (trial - loss) / jnp.minimum(model, -1e-12)
            damping = jnp.where(ratio > 0.75, damping * (2.0 / 3.0),
                                jnp.where(ratio < 0.25, damping * 1.5, damping))
            moved = jnp.where(trial < loss, flat + d, flat)
            return recast(params, unravel(moved)), (d, damping, t + 1)
        return hf_init, hessian_free

    if name == "prox_group_lasso":
        # proximal momentum SGD under a group-lasso penalty: after the momentum step each
        # output channel of every matrix or kernel (its slice along the last axis) is
        # shrunk by block soft-thresholding, its norm reduced by rate * lambda *
        # sqrt(group size) or the whole channel zeroed; vectors take the plain step
        rate, lam = 0.05, 5e-4

        def prox(params, grads, state, loss, evaluate):
            buf = tm(lambda b, g_: 0.9 * b + g_, state, wide(grads))

            def move(p, b):
                z = p.astype(f32) - rate * b
                if p.ndim < 2:
                    return z
                norm = jnp.sqrt(jnp.sum(z * z, tuple(range(p.ndim - 1)), keepdims=True))
                cut = rate * lam * math.sqrt(math.prod(p.shape[:-1]))
                return z * jnp.maximum(0.0, 1.0 - cut / (norm + 1e-12))
            return recast(params, tm(move, params, buf)), buf
        return (lambda p: zeros(p)), prox

    if name == "accsgd":
        # AccSGD (the accelerated SGD of Jain, Kakade, Kidambi, Netrapalli and Sidford,
        # in the form Kidambi et al. ran it): a buffer takes a long step of
        # rate * kappa / c against the gradient and is mixed with the weights, which take
        # a short step and are then pulled toward the buffer (kappa 1000, xi 10, c 0.7)
        rate, kappa, xi, const = 0.02, 1000.0, 10.0, 0.7
        long_step = rate * kappa / const
        beta = const * const * xi / kappa
        zeta = const / (const + beta)

        def accsgd(params, grads, state, loss, evaluate):
            def move(p, g_, b):
                p32 = p.astype(f32)
                b = beta * ((1.0 / beta - 1.0) * b - long_step * g_ + p32)
                p32 = zeta * (p32 - rate * g_) + (1.0 - zeta) * b
                return p32.astype(p.dtype), b
            params, buf = _unzip(tm(move, params, wide(grads), state), params, 2)
            return params, buf
        return (lambda p: wide(p)), accsgd

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


def _rms_norm(x: Any, gain: Any) -> Any:
    """Root-mean-square normalization over the last axis (no centring, no shift), with
    float32 statistics."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    scale = lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-6)
    return (x32 * scale * gain.astype(jnp.float32)).astype(x.dtype)


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean softmax cross-entropy of integer labels, computed in float32."""
    return _token_cross_entropy(logits, labels).mean()


def _token_cross_entropy(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels at every position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv(x: Any, w: Any, stride: int = 1, groups: int = 1, padding: Any = "SAME") -> Any:
    """A 2-D NHWC convolution."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), padding, dimension_numbers=_NHWC,
                                    feature_group_count=groups)


def _max_pool(x: Any, size: int, stride: int) -> Any:
    """NHWC max pooling with SAME padding."""
    import jax.numpy as jnp
    from jax import lax

    return lax.reduce_window(x, -jnp.inf, lax.max, (1, size, size, 1), (1, stride, stride, 1),
                             "SAME")


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


def repvgg_classifier(batch: int = 16, side: int = 32, classes: int = 10,
                      stages: tuple[tuple[int, int, int], ...] = ((32, 2, 1), (64, 2, 2),
                                                                  (128, 2, 2), (256, 1, 2))
                      ) -> Any:
    """A RepVGG image classifier in its training-time form: every block sums three
    batch-normalized branches, a 3x3 convolution, a 1x1 convolution (both strided where
    the block downsamples) and, where input and output shapes agree, the identity, before
    a ReLU; a stem block and four stages of 32 to 256 channels from 32x32 down to 4x4,
    global average pooling and a dense head; cross-entropy; proximal momentum SGD under a
    group-lasso penalty on output channels."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    plan: list[tuple[str, int]] = []

    def block(k, cin, cout, stride):
        shapes.update({f"{k}_k3": (3, 3, cin, cout), f"{k}_k3_bn_g": (cout,),
                       f"{k}_k3_bn_b": (cout,), f"{k}_k1": (1, 1, cin, cout),
                       f"{k}_k1_bn_g": (cout,), f"{k}_k1_bn_b": (cout,)})
        if cin == cout and stride == 1:
            shapes.update({f"{k}_id_bn_g": (cout,), f"{k}_id_bn_b": (cout,)})
        plan.append((k, stride))

    block("stem", 3, stages[0][0], 1)
    cin = stages[0][0]
    for s, (width, blocks, stride) in enumerate(stages):
        for i in range(blocks):
            block(f"s{s}_b{i}", cin, width, stride if i == 0 else 1)
            cin = width
    shapes.update({"head": (cin, classes), "head_b": (classes,)})
    p = _params(shapes, seed=1, scale=math.sqrt(2.0))

    def rep_block(p, k, x, stride):
        y = _batch_norm(_conv(x, p[f"{k}_k3"], stride), p[f"{k}_k3_bn_g"], p[f"{k}_k3_bn_b"])
        y = y + _batch_norm(_conv(x, p[f"{k}_k1"], stride), p[f"{k}_k1_bn_g"],
                            p[f"{k}_k1_bn_b"])
        if f"{k}_id_bn_g" in p:
            y = y + _batch_norm(x, p[f"{k}_id_bn_g"], p[f"{k}_id_bn_b"])
        return jax.nn.relu(y)

    def loss_fn(p, images, labels):
        x = images
        for k, stride in plan:
            x = rep_block(p, k, x, stride)
        return _cross_entropy(x.mean((1, 2)) @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(1)
    labels = rng.integers(0, classes, batch)
    images = _smooth_images(rng, batch, side, 3, 5.0)
    yy, xx = np.mgrid[0:side, 0:side] / side
    angle = np.pi * np.arange(classes) / classes
    stripes = np.sin(2 * np.pi * 4 * (np.cos(angle)[:, None, None] * xx
                                      + np.sin(angle)[:, None, None] * yy))
    colours = 0.4 * rng.standard_normal((classes, 1, 1, 3))
    images += 0.8 * stripes[labels][..., None] + colours[labels]
    return _train("prox_group_lasso", loss_fn, p, jnp.asarray(images, jnp.float32),
                  jnp.asarray(labels, jnp.int32))


def inception_cutmix(batch: int = 8, side: int = 32, classes: int = 10,
                     plan: tuple[Any, ...] = ((32, 48, 64, 16, 32, 32), (64, 64, 96, 16, 48, 32),
                                              "pool", (96, 64, 128, 32, 64, 64),
                                              (128, 96, 160, 32, 64, 64))) -> Any:
    """A GoogLeNet-style classifier in bfloat16 trained with CutMix: inside the step
    every image gets a box (area drawn uniformly, centre uniform, clipped at the border)
    pasted from a partner chosen by a random permutation, and the loss mixes the two
    labels' cross-entropies by the pasted area; a 3x3 stem and max pooling, then four
    Inception modules of four parallel branches concatenated on channels (a 1x1
    convolution; a 1x1 reduction and a 3x3; a 1x1 reduction and two 3x3s in place of a
    5x5; a 3x3 max pool and a 1x1 projection), max pooling between the second and third,
    batch norm and ReLU after every convolution, global average pooling and a dense
    head; AdamW with Kahan-compensated bfloat16 updates."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    shapes: dict[str, tuple[int, ...]] = {}

    def conv_bn(k, size, cin, cout):
        shapes.update({k: (size, size, cin, cout), f"{k}_bn_g": (cout,), f"{k}_bn_b": (cout,)})

    conv_bn("stem", 3, 3, 64)
    cin = 64
    for m, spec in enumerate(plan):
        if spec == "pool":
            continue
        b1, r3, c3, r5, c5, pp = spec
        conv_bn(f"m{m}_1x1", 1, cin, b1)
        conv_bn(f"m{m}_3x3r", 1, cin, r3)
        conv_bn(f"m{m}_3x3", 3, r3, c3)
        conv_bn(f"m{m}_5x5r", 1, cin, r5)
        conv_bn(f"m{m}_5x5a", 3, r5, c5)
        conv_bn(f"m{m}_5x5b", 3, c5, c5)
        conv_bn(f"m{m}_pool", 1, cin, pp)
        cin = b1 + c3 + c5 + pp
    shapes.update({"head": (cin, classes), "head_b": (classes,)})
    p = _params(shapes, seed=2, dtype=bf16, scale=math.sqrt(2.0))

    def cbr(p, k, x):
        return jax.nn.relu(_batch_norm(_conv(x, p[k]), p[f"{k}_bn_g"], p[f"{k}_bn_b"]))

    def forward(p, x):
        x = _max_pool(cbr(p, "stem", x), 3, 2)
        for m, spec in enumerate(plan):
            if spec == "pool":
                x = _max_pool(x, 3, 2)
                continue
            x = jnp.concatenate([
                cbr(p, f"m{m}_1x1", x),
                cbr(p, f"m{m}_3x3", cbr(p, f"m{m}_3x3r", x)),
                cbr(p, f"m{m}_5x5b", cbr(p, f"m{m}_5x5a", cbr(p, f"m{m}_5x5r", x))),
                cbr(p, f"m{m}_pool", _max_pool(x, 3, 1))], -1)
        pooled = x.astype(jnp.float32).mean((1, 2)).astype(bf16)
        return pooled @ p["head"] + p["head_b"]

    def loss_fn(p, images, labels, key):
        b = images.shape[0]
        k1, k2, k3 = jax.random.split(key, 3)
        area = jax.random.uniform(k1, (b,))
        partner = jax.random.permutation(k2, b)
        centre = jax.random.uniform(k3, (b, 2)) * side
        half = 0.5 * jnp.sqrt(area) * side
        lo = jnp.clip(centre - half[:, None], 0, side)
        hi = jnp.clip(centre + half[:, None], 0, side)
        grid = jnp.arange(side, dtype=jnp.float32) + 0.5
        rows = (grid >= lo[:, :1]) & (grid < hi[:, :1])
        cols = (grid >= lo[:, 1:]) & (grid < hi[:, 1:])
        box = rows[:, :, None] & cols[:, None, :]
        mixed = jnp.where(box[..., None], images[partner], images)
        pasted = jnp.mean(box.astype(jnp.float32), (1, 2))
        logits = forward(p, mixed)
        own = _token_cross_entropy(logits, labels)
        theirs = _token_cross_entropy(logits, labels[partner])
        return jnp.mean((1.0 - pasted) * own + pasted * theirs)

    rng = np.random.default_rng(2)
    labels = rng.integers(0, classes, batch)
    images = _smooth_images(rng, batch, side, 3, 4.0)
    images += 0.7 * rng.standard_normal((classes, 1, 1, 3))[labels]
    return _train("kahan_adamw", loss_fn, p, jnp.asarray(images, bf16),
                  jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(2))


def _relative_buckets(queries: int, keys: int, bidirectional: bool, buckets: int = 32,
                      max_distance: int = 128) -> Any:
    """T5's relative-position buckets (numpy, queries x keys): exact buckets for small
    offsets, logarithmically wider ones up to `max_distance`, and for a bidirectional
    stack separate halves for keys before and after the query."""
    import numpy as np

    offset = np.arange(keys)[None, :] - np.arange(queries)[:, None]
    n = -offset
    out = np.zeros_like(n)
    if bidirectional:
        buckets //= 2
        out += (n < 0) * buckets
        n = np.abs(n)
    else:
        n = np.maximum(n, 0)
    exact = buckets // 2
    wide = exact + (np.log(np.maximum(n, 1) / exact) / np.log(max_distance / exact)
                    * (buckets - exact)).astype(np.int64)
    return out + np.where(n < exact, n, np.minimum(wide, buckets - 1))


def t5_translation(batch: int = 8, source: int = 64, target: int = 48, width: int = 192,
                   heads: int = 4, ff: int = 512, layers: int = 2, vocab: int = 2048,
                   buckets: int = 32) -> Any:
    """A T5-style encoder-decoder trained by teacher forcing on a synthetic translation
    task: a shared token embedding (tied to the output, scaled by width^-1/2), RMS
    normalization before every sublayer, attention without biases or 1/sqrt(d) scaling
    whose logits get a per-head bias gathered by T5's logarithmic relative-position
    buckets (one table for the bidirectional encoder, one for the causal decoder),
    cross-attention from the decoder to the encoder masked against source padding, and
    gated-GELU feed-forward layers; cross-entropy over the real target tokens; Eve (Adam
    with loss-feedback step scaling)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width),
                                          "enc_rel": (buckets, heads),
                                          "dec_rel": (buckets, heads)}

    def attention_shapes(k):
        shapes.update({f"{k}_q": (width, width), f"{k}_k": (width, width),
                       f"{k}_v": (width, width), f"{k}_o": (width, width)})

    def ffn_shapes(k):
        shapes.update({f"{k}_wi0": (width, ff), f"{k}_wi1": (width, ff), f"{k}_wo": (ff, width)})

    for l in range(layers):
        shapes.update({f"e{l}_n1_g": (width,), f"e{l}_n2_g": (width,)})
        attention_shapes(f"e{l}_self")
        ffn_shapes(f"e{l}_ff")
    for l in range(layers):
        shapes.update({f"d{l}_n1_g": (width,), f"d{l}_n2_g": (width,), f"d{l}_n3_g": (width,)})
        attention_shapes(f"d{l}_self")
        attention_shapes(f"d{l}_cross")
        ffn_shapes(f"d{l}_ff")
    shapes.update({"enc_final_g": (width,), "dec_final_g": (width,)})
    p = _params(shapes, seed=3)
    p["embed"] = p["embed"] * math.sqrt(vocab)
    for k in shapes:
        if k.endswith("_q"):
            p[k] = p[k] / math.sqrt(dh)
    enc_buckets = jnp.asarray(_relative_buckets(source, source, True, buckets), jnp.int32)
    dec_buckets = jnp.asarray(_relative_buckets(target, target, False, buckets), jnp.int32)
    causal = jnp.tril(jnp.ones((target, target), bool))

    def attend(p, k, x, memory, bias, mask):
        b, n, _ = x.shape
        m = memory.shape[1]
        q = (x @ p[f"{k}_q"]).reshape(b, n, heads, dh)
        kk = (memory @ p[f"{k}_k"]).reshape(b, m, heads, dh)
        v = (memory @ p[f"{k}_v"]).reshape(b, m, heads, dh)
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, kk) + bias
        weights = jax.nn.softmax(jnp.where(mask, scores, -1e9), -1)
        return jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, n, width) @ p[f"{k}_o"]

    def feed_forward(p, k, x):
        return (jax.nn.gelu(x @ p[f"{k}_wi0"]) * (x @ p[f"{k}_wi1"])) @ p[f"{k}_wo"]

    def loss_fn(p, src, dec_in, tgt):
        src_keys = (src > 0)[:, None, None, :]
        x = p["embed"][src]
        bias = jnp.transpose(p["enc_rel"][enc_buckets], (2, 0, 1))[None]
        for l in range(layers):
            h = _rms_norm(x, p[f"e{l}_n1_g"])
            x = x + attend(p, f"e{l}_self", h, h, bias, src_keys)
            x = x + feed_forward(p, f"e{l}_ff", _rms_norm(x, p[f"e{l}_n2_g"]))
        memory = _rms_norm(x, p["enc_final_g"])
        y = p["embed"][dec_in]
        bias = jnp.transpose(p["dec_rel"][dec_buckets], (2, 0, 1))[None]
        for l in range(layers):
            h = _rms_norm(y, p[f"d{l}_n1_g"])
            y = y + attend(p, f"d{l}_self", h, h, bias, causal[None, None])
            y = y + attend(p, f"d{l}_cross", _rms_norm(y, p[f"d{l}_n2_g"]), memory, 0.0,
                           src_keys)
            y = y + feed_forward(p, f"d{l}_ff", _rms_norm(y, p[f"d{l}_n3_g"]))
        y = _rms_norm(y, p["dec_final_g"]) * width ** -0.5
        losses = _token_cross_entropy(y @ p["embed"].T, tgt)
        real = (tgt > 0).astype(jnp.float32)
        return jnp.sum(losses * real) / jnp.maximum(jnp.sum(real), 1.0)

    rng = np.random.default_rng(3)
    ranks = np.arange(1, vocab - 1)
    zipf = ranks ** -1.05 / np.sum(ranks ** -1.05)
    mapping = rng.permutation(vocab - 2) + 2                  # a fixed word-for-word lexicon
    src = np.zeros((batch, source), np.int64)
    tgt = np.zeros((batch, target), np.int64)
    for b in range(batch):
        n = int(rng.integers(source // 2, source + 1))
        words = rng.choice(vocab - 2, n, p=zipf) + 2
        src[b, :n] = words
        out = mapping[words - 2][::-1][: target - 1]          # translated, order reversed
        tgt[b, :len(out)] = out
        tgt[b, len(out)] = 1                                  # end of text
    dec_in = np.concatenate([np.zeros((batch, 1), np.int64), tgt[:, :-1]], 1)  # 0 starts
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("eve", loss_fn, p, i32(src), i32(dec_in), i32(tgt))


def sasrec_recommender(users: int = 64, history: int = 50, items: int = 8192, width: int = 64,
                       heads: int = 2, blocks: int = 2, negatives: int = 4,
                       genres: int = 64) -> Any:
    """SASRec next-item recommendation in bfloat16: a user's left-padded history of item
    ids is embedded (item table scaled by sqrt(width), plus learned positions, padding
    zeroed), passed through self-attention blocks whose queries come from the normalized
    input and whose residual adds to it, with causal and padding masks and a point-wise
    feed-forward layer; the hidden state at every position scores the next item and four
    sampled negatives by inner products with the shared item table, under binary
    cross-entropy over the real positions; COCOB-Backprop (coin betting, no learning
    rate)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"item": (items + 1, width), "pos": (history, width)}
    for l in range(blocks):
        shapes.update({f"l{l}_ln1_g": (width,), f"l{l}_ln1_b": (width,),
                       f"l{l}_q": (width, width), f"l{l}_k": (width, width),
                       f"l{l}_v": (width, width), f"l{l}_ln2_g": (width,),
                       f"l{l}_ln2_b": (width,), f"l{l}_ff1": (width, width),
                       f"l{l}_ff1_b": (width,), f"l{l}_ff2": (width, width),
                       f"l{l}_ff2_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,)})
    p = _params(shapes, seed=4, dtype=bf16)
    p["item"] = (p["item"].astype(jnp.float32) * math.sqrt((items + 1) / width)).astype(bf16)
    p["pos"] = (p["pos"].astype(jnp.float32) * math.sqrt(history / width)).astype(bf16)
    causal = jnp.tril(jnp.ones((history, history), bool))

    def loss_fn(p, seq, positive, negative):
        b, n = seq.shape
        valid = (seq > 0)[..., None].astype(bf16)
        x = (p["item"][seq] * math.sqrt(width) + p["pos"]) * valid
        mask = causal[None, None] & (seq > 0)[:, None, None, :]
        for l in range(blocks):
            q_in = _layer_norm(x, p[f"l{l}_ln1_g"], p[f"l{l}_ln1_b"])
            q = (q_in @ p[f"l{l}_q"]).reshape(b, n, heads, dh)
            k = (x @ p[f"l{l}_k"]).reshape(b, n, heads, dh)
            v = (x @ p[f"l{l}_v"]).reshape(b, n, heads, dh)
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / math.sqrt(dh)
            weights = jax.nn.softmax(jnp.where(mask, scores, -1e9), -1).astype(bf16)
            x = q_in + jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, n, width)
            h = _layer_norm(x, p[f"l{l}_ln2_g"], p[f"l{l}_ln2_b"])
            x = (h + jax.nn.relu(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"]) @ p[f"l{l}_ff2"]
                 + p[f"l{l}_ff2_b"]) * valid
        x = _layer_norm(x, p["final_g"], p["final_b"])
        hit = jnp.sum((x * p["item"][positive]).astype(jnp.float32), -1)
        miss = jnp.einsum("bnd,bnkd->bnk", x, p["item"][negative]).astype(jnp.float32)
        losses = -jax.nn.log_sigmoid(hit) - jnp.sum(jax.nn.log_sigmoid(-miss), -1)
        real = (positive > 0).astype(jnp.float32)
        return jnp.sum(losses * real) / jnp.maximum(jnp.sum(real), 1.0)

    rng = np.random.default_rng(4)
    genre = rng.integers(0, genres, items)
    members = [np.flatnonzero(genre == g) + 1 for g in range(genres)]
    popularity = [np.arange(1, len(m) + 1) ** -0.8 for m in members]
    sequences = np.zeros((users, history + 1), np.int64)
    for u in range(users):
        length = int(rng.integers(8, history + 2))
        taste = rng.choice(genres, 3, replace=False)
        g = rng.choice(taste)
        for t in range(history + 1 - length, history + 1):
            if rng.uniform() > 0.8:
                g = rng.choice(taste) if rng.uniform() < 0.8 else int(rng.integers(genres))
            weights = popularity[g] / popularity[g].sum()
            sequences[u, t] = rng.choice(members[g], p=weights)
    seq, positive = sequences[:, :-1], sequences[:, 1:]
    negative = rng.integers(1, items + 1, (users, history, negatives))
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("cocob", loss_fn, p, i32(seq), i32(positive), i32(negative))


def pkm_language_model(batch: int = 4, length: int = 128, width: int = 192, heads: int = 4,
                       vocab: int = 2048, sub_keys: int = 128, key_dim: int = 64,
                       memory_heads: int = 2, knn: int = 16) -> Any:
    """A two-layer causal language model in bfloat16 whose second layer replaces its
    feed-forward network by a product-key memory (Lample et al.): each token's query
    (a linear map, layer-normalized per half) is split in two halves scored against two
    tables of 128 sub-keys, the best 16 of each half by `top_k`, the best 16 of their
    256 pairwise sums by a second `top_k`, and the softmax of those scores weighs 16
    value rows gathered from a 16384-row table (a scatter-add in the backward pass), for
    two memory heads; learned positions, pre-norm causal self-attention, next-token
    cross-entropy; Madam (multiplicative weight updates)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16 = jnp.bfloat16
    dh = width // heads
    slots = sub_keys * sub_keys
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for l in range(2):
        shapes.update({f"l{l}_ln1_g": (width,), f"l{l}_ln1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_qkv_b": (3 * width,),
                       f"l{l}_o": (width, width), f"l{l}_o_b": (width,),
                       f"l{l}_ln2_g": (width,), f"l{l}_ln2_b": (width,)})
    shapes.update({"l0_ff1": (width, 4 * width), "l0_ff1_b": (4 * width,),
                   "l0_ff2": (4 * width, width), "l0_ff2_b": (width,),
                   "mem_q": (width, memory_heads * 2 * key_dim),
                   "mem_q_b": (memory_heads * 2 * key_dim,),
                   "mem_qn_g": (key_dim,), "mem_qn_b": (key_dim,),
                   "keys1": (memory_heads, sub_keys, key_dim),
                   "keys2": (memory_heads, sub_keys, key_dim),
                   "values": (slots, width),
                   "final_g": (width,), "final_b": (width,), "head": (width, vocab),
                   "head_b": (vocab,)})
    p = _params(shapes, seed=5, dtype=bf16)
    p["embed"] = (p["embed"].astype(jnp.float32) * math.sqrt(vocab / width)).astype(bf16)
    p["values"] = (p["values"].astype(jnp.float32) * math.sqrt(slots / width)).astype(bf16)
    causal = jnp.tril(jnp.ones((length, length), bool))

    def memory(p, x):
        b, n, _ = x.shape
        q = (x @ p["mem_q"] + p["mem_q_b"]).reshape(b, n, memory_heads, 2, key_dim)
        q = _layer_norm(q, p["mem_qn_g"], p["mem_qn_b"])
        s1 = jnp.einsum("bnhd,hkd->bnhk", q[..., 0, :], p["keys1"]).astype(jnp.float32)
        s2 = jnp.einsum("bnhd,hkd->bnhk", q[..., 1, :], p["keys2"]).astype(jnp.float32)
        v1, i1 = lax.top_k(s1, knn)
        v2, i2 = lax.top_k(s2, knn)
        pairs = (v1[..., :, None] + v2[..., None, :]).reshape(b, n, memory_heads, knn * knn)
        best, where = lax.top_k(pairs, knn)
        index = (jnp.take_along_axis(i1, where // knn, -1) * sub_keys
                 + jnp.take_along_axis(i2, where % knn, -1))
        weights = jax.nn.softmax(best, -1).astype(bf16)
        return jnp.einsum("bnhk,bnhkw->bnw", weights, p["values"][index])

    def loss_fn(p, tokens):
        inputs, labels = tokens[:, :-1], tokens[:, 1:]
        b, n = inputs.shape
        x = p["embed"][inputs] + p["pos"]
        for l in range(2):
            h = _layer_norm(x, p[f"l{l}_ln1_g"], p[f"l{l}_ln1_b"])
            q, k, v = jnp.split((h @ p[f"l{l}_qkv"] + p[f"l{l}_qkv_b"])
                                .reshape(b, n, 3 * heads, dh), 3, 2)
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / math.sqrt(dh)
            weights = jax.nn.softmax(jnp.where(causal, scores, -1e9), -1).astype(bf16)
            mixed = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, n, width)
            x = x + mixed @ p[f"l{l}_o"] + p[f"l{l}_o_b"]
            h = _layer_norm(x, p[f"l{l}_ln2_g"], p[f"l{l}_ln2_b"])
            if l == 0:
                x = x + jax.nn.gelu(h @ p["l0_ff1"] + p["l0_ff1_b"]) @ p["l0_ff2"] + p["l0_ff2_b"]
            else:
                x = x + memory(p, h)
        x = _layer_norm(x, p["final_g"], p["final_b"])
        return _cross_entropy(x @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(5)
    # a sparse random bigram language: each token has 12 likely successors
    successors = rng.integers(0, vocab, (vocab, 12))
    odds = rng.dirichlet(np.full(12, 0.5), vocab)
    tokens = np.zeros((batch, length + 1), np.int64)
    tokens[:, 0] = rng.integers(0, vocab, batch)
    for t in range(length):
        jump = rng.uniform(size=batch) < 0.1
        pick = np.array([rng.choice(12, p=odds[w]) for w in tokens[:, t]])
        tokens[:, t + 1] = np.where(jump, rng.integers(0, vocab, batch),
                                    successors[tokens[:, t], pick])
    return _train("madam", loss_fn, p, jnp.asarray(tokens, jnp.int32))


def muzero_unroll(batch: int = 32, board: int = 8, planes: int = 12, width: int = 32,
                  unroll: int = 5, support: int = 10, l2: float = 1e-4) -> Any:
    """A MuZero training step for an 8x8 board game: a representation network (a 3x3
    convolution and two residual blocks, batch norm throughout) encodes the observed
    planes into a hidden state rescaled to [0, 1] per sample; a `lax.scan` unrolls five
    steps of the learned model, each halving the gradient into the hidden state, then
    applying a dynamics network to the state with the taken action as two extra planes
    (a one-hot board point and a pass plane) that predicts the next state and a reward,
    and a prediction network (policy over 65 moves, value) at every state; values and
    rewards are trained as 21-bin categorical distributions against two-hot encodings of
    their h-transformed targets, the policy against search visit distributions, and the
    unrolled steps' losses are averaged, plus an L2 penalty; AccSGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    moves = board * board + 1
    bins = 2 * support + 1
    points = board * board
    shapes: dict[str, tuple[int, ...]] = {}

    def conv_bn(k, size, cin, cout):
        shapes.update({k: (size, size, cin, cout), f"{k}_bn_g": (cout,), f"{k}_bn_b": (cout,)})

    conv_bn("repr", 3, planes, width)
    for r in range(2):
        conv_bn(f"repr_r{r}_c1", 3, width, width)
        conv_bn(f"repr_r{r}_c2", 3, width, width)
    conv_bn("dyn", 3, width + 2, width)
    conv_bn("dyn_r_c1", 3, width, width)
    conv_bn("dyn_r_c2", 3, width, width)
    conv_bn("rew", 1, width, 1)
    conv_bn("pol", 1, width, 2)
    conv_bn("val", 1, width, 1)
    shapes.update({"rew_fc1": (points, 32), "rew_fc1_b": (32,), "rew_fc2": (32, bins),
                   "rew_fc2_b": (bins,), "pol_fc": (2 * points, moves), "pol_fc_b": (moves,),
                   "val_fc1": (points, 32), "val_fc1_b": (32,), "val_fc2": (32, bins),
                   "val_fc2_b": (bins,)})
    p = _params(shapes, seed=6, scale=math.sqrt(2.0))

    def cbn(p, k, x):
        return _batch_norm(_conv(x, p[k]), p[f"{k}_bn_g"], p[f"{k}_bn_b"])

    def residual(p, k, x):
        h = jax.nn.relu(cbn(p, f"{k}_c1", x))
        return jax.nn.relu(x + cbn(p, f"{k}_c2", h))

    def rescale(s):
        lo = s.min((1, 2, 3), keepdims=True)
        hi = s.max((1, 2, 3), keepdims=True)
        return (s - lo) / (hi - lo + 1e-5)

    def represent(p, obs):
        x = jax.nn.relu(cbn(p, "repr", obs))
        for r in range(2):
            x = residual(p, f"repr_r{r}", x)
        return rescale(x)

    def dynamics(p, s, action):
        b = s.shape[0]
        chosen = jax.nn.one_hot(action, moves)
        point = chosen[:, :points].reshape(b, board, board, 1)
        passed = jnp.broadcast_to(chosen[:, points:].reshape(b, 1, 1, 1), (b, board, board, 1))
        x = jax.nn.relu(cbn(p, "dyn", jnp.concatenate([s, point, passed], -1)))
        x = residual(p, "dyn_r", x)
        r = jax.nn.relu(cbn(p, "rew", x)).reshape(b, points)
        r = jax.nn.relu(r @ p["rew_fc1"] + p["rew_fc1_b"]) @ p["rew_fc2"] + p["rew_fc2_b"]
        return rescale(x), r

    def predict(p, s):
        b = s.shape[0]
        policy = jax.nn.relu(cbn(p, "pol", s)).reshape(b, 2 * points) @ p["pol_fc"] \
            + p["pol_fc_b"]
        value = jax.nn.relu(cbn(p, "val", s)).reshape(b, points)
        value = jax.nn.relu(value @ p["val_fc1"] + p["val_fc1_b"]) @ p["val_fc2"] + p["val_fc2_b"]
        return policy, value

    def two_hot(x):
        h = jnp.sign(x) * (jnp.sqrt(jnp.abs(x) + 1.0) - 1.0) + 1e-3 * x
        h = jnp.clip(h, -support, support)
        low = jnp.floor(h)
        frac = (h - low)[..., None]
        index = (low + support).astype(jnp.int32)
        return (jax.nn.one_hot(index, bins) * (1.0 - frac)
                + jax.nn.one_hot(jnp.minimum(index + 1, bins - 1), bins) * frac)

    def soft_ce(logits, target):
        return -jnp.mean(jnp.sum(target * jax.nn.log_softmax(logits, -1), -1))

    def loss_fn(p, obs, actions, policy_t, value_t, reward_t):
        s = represent(p, obs)
        policy, value = predict(p, s)
        first = soft_ce(policy, policy_t[:, 0]) + soft_ce(value, two_hot(value_t[:, 0]))

        def step(s, xs):
            a, tp, tv, tr = xs
            s = 0.5 * s + 0.5 * lax.stop_gradient(s)
            s, reward = dynamics(p, s, a)
            policy, value = predict(p, s)
            return s, (soft_ce(policy, tp) + soft_ce(value, two_hot(tv))
                       + soft_ce(reward, two_hot(tr)))

        _, later = lax.scan(step, s, (actions.T, jnp.swapaxes(policy_t[:, 1:], 0, 1),
                                      value_t[:, 1:].T, reward_t.T))
        decay = sum(jnp.sum(jnp.square(w)) for k, w in p.items() if not k.endswith(("_b", "_g")))
        return first + jnp.sum(later) / unroll + l2 * decay

    rng = np.random.default_rng(6)
    history = planes // 2
    filled = rng.uniform(0.1, 0.9, (batch, 1, 1, 1))
    stones = rng.uniform(size=(batch, history, board, board))
    colour = rng.uniform(size=(batch, 1, board, board)) < 0.5
    shrink = (1.0 - 0.05 * np.arange(history))[None, :, None, None]    # fewer stones earlier
    placed = stones < filled * shrink
    obs = np.concatenate([placed & colour, placed & ~colour], 1).transpose(0, 2, 3, 1)
    empty = ~placed[:, 0].reshape(batch, points)
    actions = np.stack([rng.choice(np.append(np.flatnonzero(e), points), unroll)
                        for e in empty])
    alpha = np.concatenate([np.where(empty, 0.5, 1e-3), np.full((batch, 1), 0.1)], -1)
    policy_t = np.stack([[rng.dirichlet(a) for _ in range(unroll + 1)] for a in alpha])
    outcome = rng.choice([-1.0, 1.0], (batch, 1))
    value_t = outcome * 0.997 ** np.arange(unroll + 1)[::-1][None] * rng.uniform(0.5, 1.0,
                                                                                (batch, 1))
    reward_t = np.where(rng.uniform(size=(batch, unroll)) < 0.05, outcome, 0.0) * 3.0
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("accsgd", loss_fn, p, f32(obs), jnp.asarray(actions, jnp.int32), f32(policy_t),
                  f32(value_t), f32(reward_t))


def maf_density(batch: int = 256, dim: int = 8, hidden: int = 128, flows: int = 5) -> Any:
    """A masked autoregressive flow fitting an 8-dimensional density by maximum
    likelihood: five MADE layers (masked dense networks of two tanh hidden layers whose
    connectivity masks follow degrees assigned to inputs and hidden units, the input order
    reversed from one layer to the next) each predict a shift and a soft-clamped log-scale
    per dimension from the dimensions before it; the data are standardized by them in
    turn, and the loss is the negative log-likelihood under a standard normal base plus
    the log-determinants; Hessian-free optimization (truncated Newton by conjugate
    gradients on Hessian-vector products)."""
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    for f in range(flows):
        shapes.update({f"f{f}_w1": (dim, hidden), f"f{f}_w1_b": (hidden,),
                       f"f{f}_w2": (hidden, hidden), f"f{f}_w2_b": (hidden,),
                       f"f{f}_w3": (hidden, 2 * dim), f"f{f}_w3_b": (2 * dim,)})
    p = _params(shapes, seed=7)
    for f in range(flows):
        p[f"f{f}_w3"] = p[f"f{f}_w3"] * 0.1

    def masks(f):
        hidden_degree = jnp.arange(hidden) % (dim - 1) + 1
        degree = jnp.arange(1, dim + 1) if f % 2 == 0 else jnp.arange(dim, 0, -1)
        out = degree[None, :] > hidden_degree[:, None]
        return ((hidden_degree[None, :] >= degree[:, None]).astype(jnp.float32),
                (hidden_degree[None, :] >= hidden_degree[:, None]).astype(jnp.float32),
                jnp.concatenate([out, out], 1).astype(jnp.float32))

    def loss_fn(p, x):
        u = x
        log_det = 0.0
        for f in range(flows):
            m1, m2, m3 = masks(f)
            h = jnp.tanh(u @ (p[f"f{f}_w1"] * m1) + p[f"f{f}_w1_b"])
            h = jnp.tanh(h @ (p[f"f{f}_w2"] * m2) + p[f"f{f}_w2_b"])
            shift, log_scale = jnp.split(h @ (p[f"f{f}_w3"] * m3) + p[f"f{f}_w3_b"], 2, -1)
            log_scale = 3.0 * jnp.tanh(log_scale / 3.0)
            u = (u - shift) * jnp.exp(-log_scale)
            log_det = log_det - jnp.sum(log_scale, -1)
        nll = 0.5 * jnp.sum(u * u, -1) + 0.5 * dim * math.log(2 * math.pi) - log_det
        return jnp.mean(nll)

    rng = np.random.default_rng(7)
    a = rng.standard_normal(batch)
    banana = np.stack([a, 0.5 * a * a - 1.0 + 0.3 * rng.standard_normal(batch)], 1)
    angle = rng.uniform(0, 2 * np.pi, batch)
    ring = (2.0 + 0.2 * rng.standard_normal(batch))[:, None] * np.stack(
        [np.cos(angle), np.sin(angle)], 1)
    centre = rng.integers(0, 4, batch)
    corners = np.array([[-2.0, -2.0], [-2.0, 2.0], [2.0, -2.0], [2.0, 2.0]])
    blobs = corners[centre] + 0.4 * rng.standard_normal((batch, 2))
    coupled = np.stack([np.sin(banana[:, 0]) + 0.2 * rng.standard_normal(batch),
                        ring[:, 0] * 0.5 + 0.3 * rng.standard_normal(batch)], 1)
    data = np.concatenate([banana, ring, blobs, coupled], 1)
    data = (data - data.mean(0)) / data.std(0)
    return _train("hessian_free", loss_fn, p, jnp.asarray(data, jnp.float32))


def deeponet_heat(functions: int = 32, queries: int = 48, sensors: int = 100,
                  width: int = 128, trunk_width: int = 96, basis: int = 128,
                  modes: int = 12, nu: float = 0.01) -> Any:
    """A DeepONet learning the solution operator of the periodic 1-D heat equation:
    a branch network (tanh MLP) reads an initial condition sampled at 100 fixed sensors,
    a trunk network reads query coordinates (x, t), and the prediction at each query is
    the inner product of the two 128-wide embeddings plus a bias; the initial conditions
    are random Fourier series and the targets their exact solutions at random points;
    mean squared error; Entropy-SGD (an inner Langevin loop estimating the local-entropy
    gradient)."""
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {
        "b1": (sensors, width), "b1_b": (width,), "b2": (width, width), "b2_b": (width,),
        "b3": (width, basis), "b3_b": (basis,), "t1": (2, trunk_width), "t1_b": (trunk_width,),
        "t2": (trunk_width, trunk_width), "t2_b": (trunk_width,), "t3": (trunk_width, basis),
        "t3_b": (basis,), "out_b": (1,)}
    p = _params(shapes, seed=8)

    def loss_fn(p, u0, where, target):
        branch = jnp.tanh(jnp.tanh(u0 @ p["b1"] + p["b1_b"]) @ p["b2"] + p["b2_b"]) @ p["b3"] \
            + p["b3_b"]
        trunk = jnp.tanh(where @ p["t1"] + p["t1_b"])
        trunk = jnp.tanh(trunk @ p["t2"] + p["t2_b"])
        trunk = jnp.tanh(trunk @ p["t3"] + p["t3_b"])
        predicted = jnp.einsum("fb,fqb->fq", branch, trunk) / math.sqrt(basis) + p["out_b"]
        return jnp.mean(jnp.square(predicted - target))

    rng = np.random.default_rng(8)
    k = np.arange(1, modes + 1)
    a = rng.standard_normal((functions, modes)) * k ** -1.5
    b = rng.standard_normal((functions, modes)) * k ** -1.5
    mean = rng.normal(0, 0.3, (functions, 1))
    xs = np.arange(sensors) / sensors
    u0 = mean + (np.cos(2 * np.pi * xs[:, None] * k) @ a.T
                 + np.sin(2 * np.pi * xs[:, None] * k) @ b.T).T
    qx = rng.uniform(0, 1, (functions, queries))
    qt = rng.uniform(0, 1, (functions, queries))
    decay = np.exp(-nu * (2 * np.pi * k) ** 2 * qt[..., None])               # (F, Q, K)
    phase = 2 * np.pi * qx[..., None] * k
    target = mean + np.sum(decay * (a[:, None] * np.cos(phase) + b[:, None] * np.sin(phase)), -1)
    where = np.stack([qx, qt], -1)
    f32 = lambda v: jnp.asarray(v, jnp.float32)
    return _train("entropy_sgd", loss_fn, p, f32(u0), f32(where), f32(target))


def nbeats_forecast(batch: int = 32, horizon: int = 24, lookback: int = 168, width: int = 256,
                    blocks: int = 3, degree: int = 3, harmonics: int = 12) -> Any:
    """An interpretable N-BEATS forecaster for hourly series: a trend stack and a
    seasonality stack of three blocks each (the blocks of a stack sharing their weights),
    every block four ReLU dense layers over the residual lookback window that emit
    coefficients of a fixed basis, a cubic polynomial for the trend and 12 cosine and
    sine harmonics for seasonality, for both a backcast (subtracted from the block's
    input) and a forecast (summed over blocks); windows scaled by their mean level, and
    a MASE loss whose scale is the mean absolute daily difference of the lookback; SVRG
    (variance-reduced SGD against a weight snapshot)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    thetas = {"trend": degree + 1, "season": 2 * harmonics}
    for stack, size in thetas.items():
        shapes.update({f"{stack}_fc0": (lookback, width), f"{stack}_fc0_b": (width,)})
        for i in range(1, 4):
            shapes.update({f"{stack}_fc{i}": (width, width), f"{stack}_fc{i}_b": (width,)})
        shapes.update({f"{stack}_back": (width, size), f"{stack}_fore": (width, size)})
    p = _params(shapes, seed=9, scale=math.sqrt(2.0))

    def trend_basis(n):
        t = np.arange(n) / n
        return np.stack([t ** i for i in range(degree + 1)])

    def season_basis(n):
        t = np.arange(n) / horizon
        k = np.arange(harmonics)[:, None]
        return np.concatenate([np.cos(2 * np.pi * k * t), np.sin(2 * np.pi * k * t)])

    bases = {"trend": (trend_basis(lookback), trend_basis(horizon)),
             "season": (season_basis(lookback), season_basis(horizon))}
    bases = {k: (jnp.asarray(b, jnp.float32), jnp.asarray(f, jnp.float32))
             for k, (b, f) in bases.items()}

    def loss_fn(p, past, future):
        level = jnp.mean(jnp.abs(past), -1, keepdims=True) + 1e-3
        x, y = past / level, future / level
        scale = jnp.mean(jnp.abs(x[:, horizon:] - x[:, :-horizon]), -1, keepdims=True) + 1e-3
        forecast = 0.0
        for stack in thetas:
            for _ in range(blocks):
                h = x
                for i in range(4):
                    h = jax.nn.relu(h @ p[f"{stack}_fc{i}"] + p[f"{stack}_fc{i}_b"])
                x = x - (h @ p[f"{stack}_back"]) @ bases[stack][0]
                forecast = forecast + (h @ p[f"{stack}_fore"]) @ bases[stack][1]
        return jnp.mean(jnp.abs(forecast - y) / scale)

    rng = np.random.default_rng(9)
    t = np.arange(lookback + horizon)[None]
    level = rng.uniform(20, 200, (batch, 1))
    slope = rng.normal(0, 0.002, (batch, 1)) * level
    daily = rng.uniform(0.05, 0.4, (batch, 1)) * level
    weekly = rng.uniform(0.0, 0.2, (batch, 1)) * level
    shift = rng.uniform(0, 2 * np.pi, (batch, 2))
    series = (level + slope * t + daily * np.sin(2 * np.pi * t / 24 + shift[:, :1])
              + weekly * np.sin(2 * np.pi * t / 168 + shift[:, 1:])
              + 0.05 * level * rng.standard_normal((batch, lookback + horizon)))
    series = np.maximum(series, 0.0)
    return _train("svrg", loss_fn, p, jnp.asarray(series[:, :lookback], jnp.float32),
                  jnp.asarray(series[:, lookback:], jnp.float32))


def xnor_binary_cnn(batch: int = 16, side: int = 28, classes: int = 10,
                    widths: tuple[int, ...] = (16, 32, 64)) -> Any:
    """An XNOR-Net binary convolutional network: after a real-valued first convolution,
    each binary layer batch-normalizes its input, binarizes it by sign (a hard-tanh
    straight-through gradient), convolves it with the sign of its latent weights scaled
    per output channel by their mean magnitude, and multiplies the result by the
    activations' scale map (the channel mean of |input| box-filtered over the kernel's
    window by a one-channel convolution); 3x3 binary layers at 28, 14 and 7 pixels with
    max pooling between, a 1x1 binary layer, global average pooling, batch norm and a
    real dense head; cross-entropy; stochastic Frank-Wolfe with momentum over an
    L-infinity ball."""
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    w1, w2, w3 = widths
    plan: list[Any] = [("b1", 3, w1, w1), "pool", ("b2", 3, w1, w2), ("b3", 3, w2, w2), "pool",
                       ("b4", 3, w2, w3), ("b5", 3, w3, w3), ("b6", 1, w3, w3)]
    shapes: dict[str, tuple[int, ...]] = {"conv0": (3, 3, 1, w1), "conv0_b": (w1,)}
    for spec in plan:
        if spec != "pool":
            k, size, cin, cout = spec
            shapes.update({k: (size, size, cin, cout), f"{k}_bn_g": (cin,),
                           f"{k}_bn_b": (cin,)})
    shapes.update({"head_bn_g": (w3,), "head_bn_b": (w3,), "head": (w3, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=10)

    def sign(x):
        clipped = jnp.clip(x, -1.0, 1.0)
        return clipped + lax.stop_gradient(jnp.sign(x) - clipped)

    def binary_conv(p, k, size, x):
        x = _batch_norm(x, p[f"{k}_bn_g"], p[f"{k}_bn_b"])
        box = jnp.full((size, size, 1, 1), 1.0 / (size * size))
        scale = _conv(jnp.mean(jnp.abs(x), -1, keepdims=True), box)
        alpha = jnp.mean(jnp.abs(p[k]), (0, 1, 2))
        return _conv(sign(x), sign(p[k]) * alpha) * scale

    def loss_fn(p, images, labels):
        x = _conv(images, p["conv0"]) + p["conv0_b"]
        for spec in plan:
            if spec == "pool":
                x = _max_pool(x, 2, 2)
            else:
                x = binary_conv(p, spec[0], spec[1], x)
        x = _layer_norm(x.mean((1, 2)), p["head_bn_g"], p["head_bn_b"], (0,))
        return _cross_entropy(x @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(10)
    labels = rng.integers(0, classes, batch)
    prototypes = _smooth_images(rng, classes, side, 1, 3.0)
    images = np.clip(0.5 + 0.3 * prototypes[labels] + 0.2 * _smooth_images(rng, batch, side, 1,
                                                                           6.0), 0, 1)
    return _train("sfw", loss_fn, p, jnp.asarray(images, jnp.float32),
                  jnp.asarray(labels, jnp.int32))


def ct_filtered_backprojection(images: int = 2, side: int = 160, angles: int = 120,
                               photons: float = 2e4) -> Any:
    """Inference: computed tomography of random Shepp-Logan-style phantoms: the parallel-
    beam Radon transform by marching 160 samples along each of 160 rays for 120 angles
    with bilinear interpolation (four gathers per sample from the flattened image), a
    noisy measurement (Beer-Lambert attenuation of 2*10^4 photons per ray with Gaussian
    counting noise from a fixed key, log-transformed back), the ramp filter with a Hann
    window applied by a zero-padded real FFT of every projection, and filtered
    back-projection by linear interpolation into each filtered projection for every
    pixel and angle (two gathers); the reconstructions, their RMSE and PSNR against the
    phantoms and the sinograms come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    detectors = samples = side
    padded = 1 << int(math.ceil(math.log2(2 * detectors)))
    centre = (side - 1) / 2.0
    attenuation = 2.0 / side                     # attenuation per unit density per pixel

    def run(phantom, key):
        theta = jnp.arange(angles, dtype=jnp.float32) * (jnp.pi / angles)
        cos_t, sin_t = jnp.cos(theta), jnp.sin(theta)
        s = jnp.arange(detectors, dtype=jnp.float32) - (detectors - 1) / 2.0
        t = jnp.arange(samples, dtype=jnp.float32) - (samples - 1) / 2.0
        x = (s[None, :, None] * cos_t[:, None, None] - t[None, None, :] * sin_t[:, None, None])
        y = (s[None, :, None] * sin_t[:, None, None] + t[None, None, :] * cos_t[:, None, None])
        col, row = x + centre, centre - y                                     # (A, D, T)
        c0, r0 = jnp.floor(col), jnp.floor(row)
        fc, fr = col - c0, row - r0
        flat = phantom.reshape(images, side * side)

        def pixel(r, c):
            inside = (r >= 0) & (r < side) & (c >= 0) & (c < side)
            index = (jnp.clip(r, 0, side - 1) * side + jnp.clip(c, 0, side - 1)).astype(jnp.int32)
            return jnp.where(inside, flat[:, index], 0.0)

        sampled = ((1 - fr) * (1 - fc) * pixel(r0, c0) + (1 - fr) * fc * pixel(r0, c0 + 1)
                   + fr * (1 - fc) * pixel(r0 + 1, c0) + fr * fc * pixel(r0 + 1, c0 + 1))
        sinogram = jnp.sum(sampled, -1) * attenuation                          # (I, A, D)
        counts = photons * jnp.exp(-sinogram)
        counts = counts + jnp.sqrt(counts) * jax.random.normal(key, counts.shape)
        measured = -jnp.log(jnp.maximum(counts, 1.0) / photons) / attenuation

        freq = jnp.fft.rfftfreq(padded).astype(jnp.float32)
        ramp = 2.0 * freq * (0.5 + 0.5 * jnp.cos(2.0 * jnp.pi * freq))
        spectrum = jnp.fft.rfft(measured, n=padded, axis=-1) * ramp
        filtered = jnp.fft.irfft(spectrum, n=padded, axis=-1)[..., :detectors]

        yy, xx = jnp.meshgrid(centre - jnp.arange(side, dtype=jnp.float32),
                              jnp.arange(side, dtype=jnp.float32) - centre, indexing="ij")
        where = (xx[None] * cos_t[:, None, None] + yy[None] * sin_t[:, None, None]
                 + (detectors - 1) / 2.0)                                      # (A, S, S)
        w0 = jnp.floor(where)
        frac = where - w0
        lo = jnp.clip(w0, 0, detectors - 1).astype(jnp.int32)
        hi = jnp.clip(w0 + 1, 0, detectors - 1).astype(jnp.int32)
        valid = (where >= 0) & (where <= detectors - 1)
        rows = jnp.arange(angles)[:, None, None]
        values = (1 - frac) * filtered[:, rows, lo] + frac * filtered[:, rows, hi]
        recon = jnp.sum(jnp.where(valid, values, 0.0), 1) * (jnp.pi / (2 * angles))
        error = jnp.sqrt(jnp.mean(jnp.square(recon - phantom), (1, 2)))
        peak = jnp.max(phantom, (1, 2))
        return recon, error, 20.0 * jnp.log10(peak / (error + 1e-6)), measured

    rng = np.random.default_rng(11)
    # modified Shepp-Logan: (density, a, b, x0, y0, angle in degrees)
    ellipses = np.array([[1.0, 0.69, 0.92, 0.0, 0.0, 0], [-0.8, 0.6624, 0.874, 0.0, -0.0184, 0],
                         [-0.2, 0.11, 0.31, 0.22, 0.0, -18], [-0.2, 0.16, 0.41, -0.22, 0.0, 18],
                         [0.1, 0.21, 0.25, 0.0, 0.35, 0], [0.1, 0.046, 0.046, 0.0, 0.1, 0],
                         [0.1, 0.046, 0.046, 0.0, -0.1, 0], [0.1, 0.046, 0.023, -0.08, -0.605, 0],
                         [0.1, 0.023, 0.023, 0.0, -0.606, 0], [0.1, 0.023, 0.046, 0.06, -0.605, 0]])
    grid = (np.arange(side) - centre) / (side / 2.0)
    gx, gy = np.meshgrid(grid, -grid)
    phantoms = np.zeros((images, side, side))
    for i in range(images):
        for density, a, b, x0, y0, degrees in ellipses:
            scale = rng.uniform(0.9, 1.1)
            x0, y0 = x0 + rng.normal(0, 0.02), y0 + rng.normal(0, 0.02)
            phi = np.radians(degrees + rng.normal(0, 5))
            u = (gx - x0) * np.cos(phi) + (gy - y0) * np.sin(phi)
            v = -(gx - x0) * np.sin(phi) + (gy - y0) * np.cos(phi)
            phantoms[i] += density * ((u / (a * scale)) ** 2 + (v / (b * scale)) ** 2 <= 1)
    return jax.jit(run).lower(jnp.asarray(phantoms, jnp.float32), jax.random.PRNGKey(11))


def dopri_three_body(systems: int = 1024, max_steps: int = 2000, rtol: float = 1e-5,
                     atol: float = 1e-7) -> Any:
    """Inference: adaptive Dormand-Prince 5(4) integration of 1024 planar restricted
    three-body problems (a light body near the Earth-Moon pair in the rotating frame, from
    Arenstorf's periodic orbit with perturbed velocities) over one period, in a
    `while_loop` that runs until every system has reached the end time (capped at 2000
    iterations): each system keeps its own time and step size, evaluates the seven
    stages (the last reused as the next first when a step is accepted), estimates its
    error from the embedded fourth-order solution, accepts or rejects by a scaled RMS
    norm and resizes its step by the usual 0.9 * err^(-1/5) rule within [0.2, 10]; the
    final states, accepted and rejected step counts, closest approach to the Moon and
    the drift of the Jacobi constant come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    mu = 0.012277471
    period = 17.0652165601579625588917206249
    a = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
         [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
    b5 = a[6] + [0.0]
    b4 = [5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40]
    error_weights = [x - y for x, y in zip(b5, b4)]

    def rhs(s):
        x, y, vx, vy = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
        d1 = jnp.sqrt((x + mu) ** 2 + y * y) ** 3
        d2 = jnp.sqrt((x - 1 + mu) ** 2 + y * y) ** 3
        ax = x + 2 * vy - (1 - mu) * (x + mu) / d1 - mu * (x - 1 + mu) / d2
        ay = y - 2 * vx - (1 - mu) * y / d1 - mu * y / d2
        return jnp.stack([vx, vy, ax, ay], -1)

    def jacobi(s):
        x, y, vx, vy = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
        r1 = jnp.sqrt((x + mu) ** 2 + y * y)
        r2 = jnp.sqrt((x - 1 + mu) ** 2 + y * y)
        return x * x + y * y + 2 * (1 - mu) / r1 + 2 * mu / r2 - vx * vx - vy * vy

    def run(start):
        def cond(state):
            return (state[0] < max_steps) & jnp.any(state[1] < period)

        def body(state):
            i, t, h, y, k1, accepted, rejected, closest = state
            active = t < period
            step = jnp.maximum(jnp.minimum(h, period - t), 1e-9)[:, None]
            ks = [k1]
            for row in a[1:]:
                y5 = y + step * sum(w * k for w, k in zip(row, ks) if w != 0.0)
                ks.append(rhs(y5))                  # the last stage is at the 5th-order point
            error = step * sum(w * k for w, k in zip(error_weights, ks) if w != 0.0)
            scale = atol + rtol * jnp.maximum(jnp.abs(y), jnp.abs(y5))
            norm = jnp.sqrt(jnp.mean(jnp.square(error / scale), -1))
            ok = active & (norm <= 1.0)
            grow = jnp.clip(0.9 * jnp.maximum(norm, 1e-10) ** -0.2, 0.2, 10.0)
            grow = jnp.where(norm <= 1.0, grow, jnp.minimum(grow, 1.0))
            h = jnp.where(active, step[:, 0] * grow, h)
            t = jnp.where(ok, t + step[:, 0], t)
            y = jnp.where(ok[:, None], y5, y)
            k1 = jnp.where(ok[:, None], ks[6], k1)
            moon = jnp.sqrt((y[:, 0] - 1 + mu) ** 2 + y[:, 1] ** 2)
            return (i + 1, t, h, y, k1, accepted + ok, rejected + (active & ~ok),
                    jnp.where(ok, jnp.minimum(closest, moon), closest))

        n = start.shape[0]
        zeros = jnp.zeros(n, jnp.int32)
        state = (jnp.int32(0), jnp.zeros(n), jnp.full((n,), 1e-3), start, rhs(start), zeros,
                 zeros, jnp.full((n,), jnp.inf))
        iterations, t, _, final, _, accepted, rejected, closest = lax.while_loop(cond, body, state)
        drift = jnp.abs(jacobi(final) - jacobi(start))
        return final, t, accepted, rejected, closest, drift, iterations

    rng = np.random.default_rng(12)
    start = np.tile(np.array([0.994, 0.0, 0.0, -2.00158510637908]), (systems, 1))
    start[:, 2:] += rng.normal(0, 2e-3, (systems, 2))
    start[:, :2] += rng.normal(0, 1e-3, (systems, 2))
    return jax.jit(run).lower(jnp.asarray(start, jnp.float32))


def griffin_lim(signals: int = 4, samples: int = 16384, n_fft: int = 512, hop: int = 128,
                iterations: int = 60, momentum: float = 0.99) -> Any:
    """Inference: phase retrieval by fast Griffin-Lim: the magnitude spectrogram of four
    synthetic signals (a Hann-windowed STFT of framed, reflect-padded audio by a gather
    and a real FFT) is given a random phase from a fixed key, then 60 iterations in a
    `fori_loop` alternate an inverse STFT (inverse real FFTs, windowed overlap-add by a
    scatter-add, normalized by the summed squared window) with a forward STFT, extrapolate
    the spectrum by momentum 0.99 and impose the target magnitudes again; the spectral
    convergence of every iteration is written into a trace, and the waveforms, final
    spectral convergence and log-spectral distance come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    half = n_fft // 2
    frames = 1 + samples // hop

    def run(audio, key):
        window = 0.5 - 0.5 * jnp.cos(2 * jnp.pi * jnp.arange(n_fft, dtype=jnp.float32) / n_fft)
        index = jnp.arange(frames)[:, None] * hop + jnp.arange(n_fft)[None]
        envelope = jnp.maximum(jnp.zeros(samples + n_fft).at[index].add(
            jnp.broadcast_to(window * window, index.shape)), 1e-8)

        def stft(x):
            padded = jnp.pad(x, ((0, 0), (half, half)), mode="reflect")
            return jnp.fft.rfft(padded[:, index] * window, axis=-1)

        def istft(spectrum):
            pieces = jnp.fft.irfft(spectrum, n=n_fft, axis=-1) * window
            total = jnp.zeros((spectrum.shape[0], samples + n_fft)).at[:, index].add(pieces)
            return (total / envelope)[:, half:half + samples]

        target = jnp.abs(stft(audio))
        norm = jnp.sqrt(jnp.sum(target * target, (1, 2)))
        phase = jnp.exp(2j * jnp.pi * jax.random.uniform(key, target.shape)).astype(jnp.complex64)
        spectrum = target * phase

        def body(i, carry):
            spectrum, previous, trace = carry
            rebuilt = stft(istft(spectrum))
            pushed = rebuilt + momentum * (rebuilt - previous)
            spectrum = target * pushed / (jnp.abs(pushed) + 1e-8)
            gap = jnp.sqrt(jnp.sum(jnp.square(jnp.abs(rebuilt) - target), (1, 2))) / norm
            return spectrum, rebuilt, trace.at[i].set(gap)

        spectrum, _, trace = lax.fori_loop(
            0, iterations, body, (spectrum, spectrum, jnp.zeros((iterations, audio.shape[0]))))
        waveform = istft(spectrum)
        final = jnp.abs(stft(waveform))
        convergence = jnp.sqrt(jnp.sum(jnp.square(final - target), (1, 2))) / norm
        lsd = jnp.mean(jnp.sqrt(jnp.mean(jnp.square(
            20 * jnp.log10(final + 1e-5) - 20 * jnp.log10(target + 1e-5)), -1)), -1)
        return waveform, trace, convergence, lsd

    rng = np.random.default_rng(13)
    rate = 16000.0
    t = np.arange(samples) / rate
    audio = np.zeros((signals, samples))
    for s in range(signals):
        notes = rng.uniform(150, 600, 4)
        onsets = np.sort(rng.uniform(0, t[-1] * 0.8, 4))
        for f, start in zip(notes, onsets):
            gate = np.clip((t - start) * 50, 0, 1) * np.exp(-3.0 * np.maximum(t - start, 0))
            for harmonic in range(1, 6):
                audio[s] += gate * np.sin(2 * np.pi * f * harmonic * t) / harmonic
        audio[s] += 0.05 * np.sin(2 * np.pi * np.cumsum(rng.uniform(1000, 3000) + 500
                                                        * np.sin(2 * np.pi * 2 * t)) / rate)
        audio[s] += 0.01 * rng.standard_normal(samples)
    audio *= 0.8 / np.abs(audio).max(1, keepdims=True)
    return jax.jit(run).lower(jnp.asarray(audio, jnp.float32), jax.random.PRNGKey(13))


def seam_carving(images: int = 4, height: int = 128, width: int = 160, seams: int = 32) -> Any:
    """Inference: content-aware image narrowing by seam carving: in a `fori_loop` over 32
    seams, the gradient-magnitude energy of the grey image (central differences, columns
    already given up priced out), a dynamic program over rows as a `lax.scan` (each row's
    cumulative cost the pixel's energy plus the least of its three upper neighbours, the
    choice kept as int8 back-pointers), the cheapest seam traced back by a reverse
    `lax.scan` gathering the pointers, and the seam's pixels removed from every row by a
    gather that shifts the rest left; the narrowed images, each seam's cost and the seams
    come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    costly = 1e6
    lum = jnp.asarray([0.299, 0.587, 0.114], jnp.float32)

    def run(pictures):
        columns = jnp.arange(width)

        def energy(img, live):
            grey = jnp.pad(img @ lum, ((0, 0), (1, 1), (1, 1)), mode="edge")
            dx = grey[:, 1:-1, 2:] - grey[:, 1:-1, :-2]
            dy = grey[:, 2:, 1:-1] - grey[:, :-2, 1:-1]
            return jnp.where(columns < live, jnp.abs(dx) + jnp.abs(dy), costly)

        def down(above, row):
            left = jnp.pad(above[:, :-1], ((0, 0), (1, 0)), constant_values=jnp.inf)
            right = jnp.pad(above[:, 1:], ((0, 0), (0, 1)), constant_values=jnp.inf)
            options = jnp.stack([left, above, right])
            return row + jnp.min(options, 0), jnp.argmin(options, 0).astype(jnp.int8)

        def up(col, pointers):
            step = jnp.take_along_axis(pointers, col[:, None], 1)[:, 0].astype(jnp.int32) - 1
            return col + step, col

        def carve(k, carry):
            img, costs, paths = carry
            e = energy(img, width - k)
            last, pointers = lax.scan(down, e[:, 0], jnp.swapaxes(e[:, 1:], 0, 1))
            end = jnp.argmin(last, -1).astype(jnp.int32)
            top, below = lax.scan(up, end, pointers, reverse=True)
            seam = jnp.concatenate([top[None], below], 0).T                      # (I, H)
            source = jnp.minimum(columns + (columns >= seam[..., None]), width - 1)
            img = jnp.take_along_axis(img, source[..., None], 2)
            img = jnp.where((columns < width - k - 1)[:, None], img, 0.0)
            return img, costs.at[k].set(jnp.min(last, -1)), paths.at[k].set(seam)

        img, costs, paths = lax.fori_loop(
            0, seams, carve, (pictures, jnp.zeros((seams, images)),
                              jnp.zeros((seams, images, height), jnp.int32)))
        return img[:, :, :width - seams], costs, paths

    rng = np.random.default_rng(14)
    pictures = 0.3 * _smooth_images(rng, images, max(height, width), 3, 3.0)[:, :height, :width]
    yy, xx = np.mgrid[0:height, 0:width]
    for i in range(images):
        for _ in range(5):                       # a few sharp-edged objects worth keeping
            cy, cx = rng.uniform(0, height), rng.uniform(0, width)
            r = rng.uniform(6, 20)
            pictures[i][(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] += rng.uniform(-1, 1, 3)
    pictures += 0.02 * rng.standard_normal(pictures.shape)
    return jax.jit(run).lower(jnp.asarray(pictures, jnp.float32))


def ransac_planes(points: int = 12288, planes: int = 3, hypotheses: int = 1024,
                  threshold: float = 0.02) -> Any:
    """Inference: sequential RANSAC plane detection in a 3-D point cloud: in a
    `fori_loop` over three planes, 1024 minimal samples of three points (indices from a
    fixed key folded with the round) each give a plane by a cross product, samples that
    touch already explained points or are degenerate are discarded, every hypothesis is
    scored against every remaining point by a truncated quadratic (MSAC) through a
    points-by-hypotheses matrix product, and the best is refined by least squares (the
    inliers' covariance, its smallest eigenvector by power iteration on the shifted
    matrix in an inner `fori_loop`) before its inliers are labelled and removed; the
    planes, inlier counts, RMS residuals and point labels come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(cloud, key):
        n = cloud.shape[0]

        def find(r, carry):
            free, found, counts, residuals, labels = carry
            pick = jax.random.randint(jax.random.fold_in(key, r), (hypotheses, 3), 0, n)
            a, b, c = cloud[pick[:, 0]], cloud[pick[:, 1]], cloud[pick[:, 2]]
            normal = jnp.cross(b - a, c - a)
            length = jnp.sqrt(jnp.sum(normal * normal, -1))
            normal = normal / (length[:, None] + 1e-12)
            offset = -jnp.sum(normal * a, -1)
            usable = (length > 1e-6) & jnp.all(free[pick], -1)
            distance = cloud @ normal.T + offset                                   # (N, H)
            cost = jnp.sum(jnp.where(free[:, None], jnp.minimum(distance * distance,
                                                                threshold ** 2), 0.0), 0)
            best = jnp.argmin(jnp.where(usable, cost, jnp.inf))
            inlier = free & (jnp.abs(distance[:, best]) < threshold)
            w = inlier.astype(jnp.float32)
            total = jnp.maximum(jnp.sum(w), 1.0)
            centroid = jnp.sum(w[:, None] * cloud, 0) / total
            spread = (cloud - centroid) * w[:, None]
            cov = spread.T @ spread / total
            shifted = jnp.trace(cov) * jnp.eye(3) - cov

            def power(_, v):
                v = shifted @ v
                return v / (jnp.sqrt(jnp.sum(v * v)) + 1e-12)

            refined = lax.fori_loop(0, 32, power, normal[best])
            plane_offset = -jnp.dot(refined, centroid)
            gap = jnp.abs(cloud @ refined + plane_offset)
            inlier = free & (gap < threshold)
            w = inlier.astype(jnp.float32)
            rms = jnp.sqrt(jnp.sum(w * gap * gap) / jnp.maximum(jnp.sum(w), 1.0))
            return (free & ~inlier, found.at[r].set(jnp.append(refined, plane_offset)),
                    counts.at[r].set(jnp.sum(inlier)), residuals.at[r].set(rms),
                    jnp.where(inlier, r, labels))

        start = (jnp.ones(n, bool), jnp.zeros((planes, 4)), jnp.zeros(planes, jnp.int32),
                 jnp.zeros(planes), jnp.full((n,), -1, jnp.int32))
        _, found, counts, residuals, labels = lax.fori_loop(0, planes, find, start)
        return found, counts, residuals, labels

    rng = np.random.default_rng(15)
    per_plane = points // 4
    floor = np.stack([rng.uniform(-2, 2, per_plane), rng.uniform(-2, 2, per_plane),
                      np.zeros(per_plane)], 1)
    wall = np.stack([rng.uniform(-2, 2, per_plane), np.full(per_plane, 1.5),
                     rng.uniform(0, 2, per_plane)], 1)
    u, v = rng.uniform(-1, 1, per_plane), rng.uniform(0, 1.5, per_plane)
    ramp = np.stack([u - 0.5, -0.5 + v * np.cos(0.4), 0.2 + v * np.sin(0.4)], 1)
    clutter = rng.uniform([-2, -2, 0], [2, 2, 2], (points - 3 * per_plane, 3))
    cloud = np.concatenate([floor, wall, ramp], 0) + 0.005 * rng.standard_normal(
        (3 * per_plane, 3))
    cloud = np.concatenate([cloud, clutter], 0)[rng.permutation(points)]
    return jax.jit(run).lower(jnp.asarray(cloud, jnp.float32), jax.random.PRNGKey(15))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "repvgg_classifier/16x32px-32-64-128-256": repvgg_classifier,
    "inception_cutmix/8x32px-4-modules-bf16": inception_cutmix,
    "t5_translation/8x64+48-d192-l2+2": t5_translation,
    "sasrec_recommender/64x50-8192-items-bf16": sasrec_recommender,
    "pkm_language_model/4x128-16384-slots-bf16": pkm_language_model,
    "muzero_unroll/32x8x8-k5": muzero_unroll,
    "maf_density/256x8-5-made": maf_density,
    "deeponet_heat/32x48-100-sensors": deeponet_heat,
    "nbeats_forecast/32x168+24-w256": nbeats_forecast,
    "xnor_binary_cnn/16x28px-16-32-64": xnor_binary_cnn,
    "ct_filtered_backprojection/2x160px-120-angles": ct_filtered_backprojection,
    "dopri_three_body/1024-systems-max2000": dopri_three_body,
    "griffin_lim/4x16384-60-iterations": griffin_lim,
    "seam_carving/4x128x160-32-seams": seam_carving,
    "ransac_planes/12288-points-3x1024": ransac_planes,
}
