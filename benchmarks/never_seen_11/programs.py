"""The eleventh never-seen set: programs written on 2026-11-27, after the tenth set
(benchmarks/never_seen_10/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-11` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
ten never-seen sets has; unlike the earlier sets, most of the training steps are large
(several gigaflops each). Ten are training steps (forward, loss, backward and an
optimizer update). A dueling double DQN learns from a replay minibatch of stacked
84x84 uint8 Atari frames through the Nature DQN torso, choosing the bootstrap action
with the online network and valuing it with a separate target network passed in as an
argument, under a Huber loss on n-step returns weighted by prioritized-replay
importance weights. A learned image codec with a scale hyperprior trades bits against
distortion: strided convolutions with generalized divisive normalization analyse the
image, a hyper-analysis and hyper-synthesis predict a Gaussian scale per latent (rates
through `erf`), the hyper-latent is priced by a learned factorized density of small
monotone per-channel networks, and transposed convolutions with inverse normalization
reconstruct it, additive uniform noise standing in for quantization. An Autoformer
forecasts a multichannel series with moving-average trend-season decomposition and
auto-correlation in place of attention: real-FFT correlations over every lag, the
strongest lags per sample by `top_k`, values rolled by those lags through a gather. A
top-k sparse autoencoder in bfloat16 learns a dictionary of 8192 directions for
activations, keeping 32 latents per example and decoding by gathered decoder rows
(scatter-add in the backward pass), with an auxiliary top-k over dead latents fitting
the residual. A spiking convolutional network reads two-polarity event frames under a
`lax.scan` over time, its leaky integrate-and-fire neurons spiking through a Heaviside
step whose `custom_vjp` gives a surrogate gradient. A DARTS supernet trains weights and
architecture logits together, every edge of its cells a softmax-weighted sum of
separable, dilated, pooling, skip and zero operations, with a reduction cell between
two normal ones. Madry-style adversarial training of a pre-activation ResNet in
bfloat16 runs a projected-gradient attack (signed input gradients of the frozen network
in a `fori_loop`, projected onto an L-infinity ball) before training on clean and
adversarial images. A binary Tree-LSTM labels the sentiment of every node of random
parse trees, a `lax.scan` over each sentence's own merge schedule gathering children
from a node buffer and writing parents back by `dynamic_update_slice`. A relation
network in bfloat16 answers Sort-of-CLEVR questions by applying one MLP to all 625
ordered pairs of CNN grid objects with the question and summing. A SiamFC tracker
cross-correlates each exemplar's features with its own search region's in one grouped
convolution (the batch folded into channel groups) and trains a balanced logistic loss
on the 17x17 response map. Five are inference or scientific steps without a gradient:
a complex64 state-vector simulation of a quench of a disordered transverse-field Ising
chain on 16 qubits (a `lax.scan` of Trotter steps, a diagonal ZZ phase built from the
basis-index bits, then one 2x2 `tensordot` per qubit axis; magnetizations, echoes, a
Renyi-2 entropy by a complex matrix product, `top_k` bitstrings), model-predictive
path-integral control of a planar quadrotor among obstacles (a `lax.scan` over control
cycles, each rolling 1024 noisy thrust sequences through an inner `lax.scan` over the
horizon and reweighting them by a softmax of their costs), an FMCW radar chain (a
target-synthesized chirp cube, range and Doppler FFTs, 2-D cell-averaging CFAR by
`reduce_window` box sums and a local-maximum test, `top_k` detections and angle FFTs of
their gathered antenna snapshots), the low spectrum of a small-world graph's normalized
Laplacian by Lanczos with full reorthogonalization in a `while_loop` capped at 96
steps (matrix-vector products by `segment_sum`), Sturm-sequence bisection, inverse
iteration by Thomas-algorithm scans and a Fiedler-vector partition, and four
decision-support queries over columnar tables (filters, a join by `searchsorted`,
group-by sums by `segment_sum`, `top_k` orders, distinct counts after a `sort`). The
updates are all new to these sets: Apollo (a diagonal quasi-Newton step from a weak
secant condition), Prodigy (a distance-to-solution learning rate estimated from
gradient inner products), diffGrad (Adam damped by the sigmoid of the gradient's
change), AdaiW (adaptive per-element inertia), Fromage (norm-relative steps with a
shrink), Grokfast-EMA under AdamW (the slow gradient component amplified), StableAdamW
(per-tensor update clipping by the RMS of g^2 / v), preconditioned SGLD (posterior
sampling with RMSProp-scaled noise), the PID optimizer (a derivative term added to
momentum) and SWATS (Adam switching to SGD at an estimated rate); three training steps
(the sparse autoencoder, the adversarial training and the relation network) run in
bfloat16.
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
    update(params, grads, state, loss) -> (params, state). State is float32 whatever the
    parameters' dtype; every parameter keeps its own dtype."""
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

    def tree_dot(a: Any, b: Any) -> Any:
        return sum(jnp.sum(x * y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))

    if name == "apollo":
        # Apollo: a diagonal quasi-Newton step; each tensor's diagonal curvature B is
        # corrected along the last parameter change s by the weak secant condition, with
        # the change of the bias-corrected momentum standing in for the gradient change
        # (B += (s.y - s.Bs) / |s|_4^4 * s^2), then rectified to |B| >= 1 as the divisor
        def apollo(params, grads, state, loss):
            m, curv, last, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            alpha = 0.1 / (1.0 - 0.9 ** n)
            rate = 1e-2 * jnp.minimum(1.0, n / 200.0)

            def per_tensor(p, g_, m_, b_, s_):
                p32 = p.astype(f32)
                delta = g_ - m_
                m_new = m_ + alpha * delta
                scale = jnp.sqrt(jnp.sqrt(jnp.sum(s_ ** 4))) + 1e-4
                u = s_ / scale
                u2 = u * u
                secant = alpha * jnp.sum(delta / scale * u) - jnp.sum(b_ * u2)
                b_new = b_ + secant * u2
                change = -rate * (m_new / jnp.maximum(jnp.abs(b_new), 1.0) + 1e-4 * p32)
                return (p32 + change).astype(p.dtype), m_new, b_new, change

            params, m, curv, last = _unzip(tm(per_tensor, params, g, m, curv, last), params, 4)
            return params, (m, curv, last, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), apollo

    if name == "prodigy":
        # Prodigy: Adam whose learning rate is an estimate d of the distance to the
        # solution, grown from 1e-6 as the running ratio of the weighted inner products
        # <g, x0 - x> to the l1 norm of the weighted gradient sum, never shrinking
        def prodigy_init(params):
            return (zeros(params), zeros(params), zeros(params), wide(params),
                    jnp.zeros((), f32), jnp.full((), 1e-6, f32), count())

        def prodigy(params, grads, state, loss):
            m, v, s, x0, r, d, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            root = math.sqrt(0.999)
            rate = jnp.sqrt(1.0 - 0.999 ** n) / (1.0 - 0.9 ** n)
            inner = tree_dot(g, tm(lambda a, p: a - p.astype(f32), x0, params))
            r = root * r + (1.0 - root) * rate * d * d * inner
            s = tm(lambda s_, g_: root * s_ + (1.0 - root) * rate * d * d * g_, s, g)
            spread = sum(jnp.sum(jnp.abs(a)) for a in jax.tree.leaves(s))
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * d * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * d * d * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - rate * d * 1e-2)
                       - rate * d * m_ / (jnp.sqrt(v_) + d * 1e-8), params, m, v)
            d = jnp.maximum(d, r / (spread + 1e-12))
            return recast(params, moved), (m, v, s, x0, r, d, t)
        return prodigy_init, prodigy

    if name == "diffgrad":
        # diffGrad: Adam whose step is damped per element by a friction coefficient, the
        # sigmoid of the absolute change of the gradient since the previous step
        def diffgrad(params, grads, state, loss):
            m, v, last, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_, g_, l_: p.astype(f32) - 1e-3
                       * jax.nn.sigmoid(jnp.abs(l_ - g_)) * (m_ / (1.0 - 0.9 ** n))
                       / (jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-8), params, m, v, g, last)
            return recast(params, moved), (m, v, g, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), diffgrad

    if name == "adai":
        # AdaiW (adaptive inertia): the momentum coefficient of every element is one
        # minus a base times its bias-corrected second moment over the mean second moment
        # of all parameters, clipped to [0, 0.999]; the momentum is bias-corrected by the
        # running product of those coefficients; decoupled weight decay
        def adai_init(params):
            return zeros(params), zeros(params), tm(lambda p: jnp.ones(p.shape, f32), params), \
                count()

        def adai(params, grads, state, loss):
            m, v, product, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            v = tm(lambda v_, g_: 0.99 * v_ + 0.01 * g_ * g_, v, g)
            size = sum(a.size for a in jax.tree.leaves(v))
            mean = sum(jnp.sum(a) for a in jax.tree.leaves(v)) / (1.0 - 0.99 ** n) / size
            beta = tm(lambda v_: jnp.clip(1.0 - 0.1 * v_ / (1.0 - 0.99 ** n) / (mean + 1e-12),
                                          0.0, 0.999), v)
            m = tm(lambda m_, g_, b: b * m_ + (1.0 - b) * g_, m, g, beta)
            product = tm(lambda q, b: q * b, product, beta)
            moved = tm(lambda p, m_, q: p.astype(f32) * (1.0 - 1e-4) - 0.1 * m_ / (1.0 - q),
                       params, m, product)
            return recast(params, moved), (m, v, product, t)
        return adai_init, adai

    if name == "fromage":
        # Fromage: each tensor steps along its gradient by a fixed fraction of its own
        # norm over the gradient's norm (plainly where either norm is zero) and is then
        # shrunk by 1 / sqrt(1 + rate^2) to keep the norms from growing
        rate = 1e-2

        def fromage(params, grads, state, loss):
            def move(p, g_):
                p32 = p.astype(f32)
                p_norm = jnp.sqrt(jnp.sum(p32 * p32))
                g_norm = jnp.sqrt(jnp.sum(g_ * g_))
                ratio = jnp.where((p_norm > 0) & (g_norm > 0), p_norm / (g_norm + 1e-30), 1.0)
                return (p32 - rate * ratio * g_) / math.sqrt(1.0 + rate * rate)
            return recast(params, tm(move, params, wide(grads))), state + 1
        return (lambda p: count()), fromage

    if name == "grokfast":
        # Grokfast-EMA under AdamW: the slow component of the gradient (an exponential
        # moving average) is amplified and added back before the AdamW moments
        def grokfast(params, grads, state, loss):
            slow, m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            slow = tm(lambda s_, g_: 0.98 * s_ + 0.02 * g_, slow, g)
            h = tm(lambda g_, s_: g_ + 2.0 * s_, g, slow)
            m = tm(lambda m_, h_: 0.9 * m_ + 0.1 * h_, m, h)
            v = tm(lambda v_, h_: 0.98 * v_ + 0.02 * h_ * h_, v, h)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - 1e-3 * 0.1) - 1e-3
                       * (m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.98 ** n)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (slow, m, v, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), grokfast

    if name == "psgld":
        # preconditioned stochastic gradient Langevin dynamics: an RMSProp preconditioner
        # G scales the posterior gradient (the data term times the training-set size plus
        # a Gaussian prior) and the injected Gaussian noise of variance step * G (tempered
        # for a cold posterior), so the iterates sample instead of settling at a mode
        examples, step, prior = 8544.0, 4e-6, 1.0

        def psgld(params, grads, state, loss):
            v, t = state
            g = wide(grads)
            t = t + 1
            key = jax.random.fold_in(jax.random.PRNGKey(811), t)
            v = tm(lambda v_, g_: 0.99 * v_ + 0.01 * g_ * g_, v, g)
            leaves, treedef = jax.tree.flatten(params)
            noise = treedef.unflatten([
                jax.random.normal(jax.random.fold_in(key, i), leaf.shape, f32)
                for i, leaf in enumerate(leaves)])

            def move(p, g_, v_, z):
                p32 = p.astype(f32)
                pre = 1.0 / (1e-5 + jnp.sqrt(v_ * examples * examples))
                drift = examples * g_ + prior * p32
                return p32 - 0.5 * step * pre * drift + jnp.sqrt(step * pre) * z * 1e-2
            return recast(params, tm(move, params, g, v, noise)), (v, t)
        return (lambda p: (zeros(p), count())), psgld

    if name == "pid":
        # the PID optimizer: momentum SGD read as the integral (and proportional) term of
        # a controller, plus a derivative term, a moving average of the gradient's change
        # between steps, subtracted with its own gain
        def pid(params, grads, state, loss):
            integral, derivative, last, t = state
            g = wide(grads)
            first = t == 0
            integral = tm(lambda i_, g_: 0.9 * i_ - 1e-2 * g_, integral, g)
            derivative = tm(lambda d_, g_, l_: jnp.where(first, d_, 0.9 * d_ + 0.1 * (g_ - l_)),
                            derivative, g, last)
            moved = tm(lambda p, i_, d_: p.astype(f32) + i_ - 1e-2 * 5.0 * d_, params,
                       integral, derivative)
            return recast(params, moved), (integral, derivative, g, t + 1)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), pid

    if name == "swats":
        # SWATS: Adam until the learning rate SGD would need to take Adam's step (the
        # projection of the step onto the gradient, averaged and bias-corrected) settles,
        # then momentum SGD at that rate for good; both paths are computed every step and
        # the switch, a flag in the state, picks one
        def swats_init(params):
            return (zeros(params), zeros(params), zeros(params), jnp.zeros((), f32),
                    jnp.zeros((), f32), jnp.zeros((), jnp.bool_), count())

        def swats(params, grads, state, loss):
            m, v, buf, lam, sgd_rate, switched, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            adam = tm(lambda m_, v_: -1e-3 * (m_ / (1.0 - 0.9 ** n))
                      / (jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-8), m, v)
            along = tree_dot(adam, g)
            gamma = jnp.where(along != 0, tree_dot(adam, adam) / jnp.where(along != 0, -along,
                                                                              1.0), 0.0)
            lam = 0.999 * lam + 0.001 * gamma
            settled = lam / (1.0 - 0.999 ** n)
            now = (~switched) & (t > 1) & (along != 0) & (jnp.abs(settled - gamma) < 1e-9)
            sgd_rate = jnp.where(now, settled, sgd_rate)
            switched = switched | now
            buf = tm(lambda b_, g_: jnp.where(switched, 0.9 * b_ + g_, b_), buf, g)
            moved = tm(lambda p, a, b_: jnp.where(switched, p.astype(f32) - 0.1 * sgd_rate * b_,
                                                  p.astype(f32) + a), params, adam, buf)
            return recast(params, moved), (m, v, buf, lam, sgd_rate, switched, t)
        return swats_init, swats

    if name == "stable_adamw":
        # StableAdamW: AdamW with the second-moment decay warmed up as 1 - t^-0.8 (capped
        # at 0.99), and each tensor's learning rate divided by the larger of one and the
        # RMS of g^2 / v, which clips updates when the second moment is stale
        def stable_adamw(params, grads, state, loss):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            beta2 = jnp.minimum(0.99, 1.0 - n ** -0.8)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: beta2 * v_ + (1.0 - beta2) * g_ * g_, v, g)

            def move(p, g_, m_, v_):
                p32 = p.astype(f32)
                rms = jnp.sqrt(jnp.mean(g_ * g_ / jnp.maximum(v_, 1e-16)))
                rate = 2e-4 / jnp.maximum(1.0, rms)
                return p32 - rate * ((m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_) + 1e-8)
                                     + 0.1 * p32)
            return recast(params, tm(move, params, g, m, v)), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), stable_adamw

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
        else:
            loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
            aux = ()
        params, state = update(params, grads, state, loss)
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
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * gain + shift).astype(x.dtype)


def _batch_norm(x: Any, gain: Any = 1.0, shift: Any = 0.0) -> Any:
    """Batch normalization with the batch's own statistics over every axis but the last
    (without affine parameters when gain and shift are left at their defaults)."""
    return _layer_norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean softmax cross-entropy of integer labels, computed in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1).mean()


def _conv(x: Any, w: Any, stride: int = 1, groups: int = 1, padding: Any = "SAME",
          dilation: int = 1) -> Any:
    """A 2-D NHWC convolution."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), padding,
                                    rhs_dilation=(dilation, dilation), dimension_numbers=_NHWC,
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


def dueling_double_dqn(batch: int = 128, frames: int = 4, side: int = 84, actions: int = 18,
                       hidden: int = 512, gamma: float = 0.99, n_step: int = 3) -> Any:
    """A dueling double DQN update on a replay minibatch of Atari-sized observations
    (stacks of four 84x84 grey frames in uint8): the Nature DQN torso (8x8 stride-4,
    4x4 stride-2 and 3x3 valid convolutions, a 512-unit layer) splits into a state value
    and mean-centred action advantages; the bootstrap action is the online network's
    `argmax` on the next observation and its value comes from a separate target network
    (weights passed in, not trained); n-step discounted returns, a Huber TD loss
    weighted by prioritized-replay importance weights; Apollo."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {
        "c1": (8, 8, frames, 32), "c1_b": (32,), "c2": (4, 4, 32, 64), "c2_b": (64,),
        "c3": (3, 3, 64, 64), "c3_b": (64,), "fc": (7 * 7 * 64, hidden), "fc_b": (hidden,),
        "value": (hidden, 1), "value_b": (1,), "advantage": (hidden, actions),
        "advantage_b": (actions,)}
    p = _params(shapes, seed=1, scale=math.sqrt(2.0))
    target = jax.tree.map(lambda a: a * 0.98, _params(shapes, seed=101, scale=math.sqrt(2.0)))

    def q_values(p, obs):
        x = obs.astype(jnp.float32) / 255.0
        x = jax.nn.relu(_conv(x, p["c1"], 4, padding="VALID") + p["c1_b"])
        x = jax.nn.relu(_conv(x, p["c2"], 2, padding="VALID") + p["c2_b"])
        x = jax.nn.relu(_conv(x, p["c3"], 1, padding="VALID") + p["c3_b"])
        x = jax.nn.relu(x.reshape(x.shape[0], -1) @ p["fc"] + p["fc_b"])
        adv = x @ p["advantage"] + p["advantage_b"]
        return x @ p["value"] + p["value_b"] + adv - adv.mean(-1, keepdims=True)

    def loss_fn(p, target, obs, action, returns, next_obs, done, weight):
        q = jnp.take_along_axis(q_values(p, obs), action[:, None], 1)[:, 0]
        best = jnp.argmax(q_values(lax.stop_gradient(p), next_obs), -1)
        bootstrap = jnp.take_along_axis(q_values(target, next_obs), best[:, None], 1)[:, 0]
        y = lax.stop_gradient(returns + gamma ** n_step * (1.0 - done) * bootstrap)
        err = jnp.abs(q - y)
        huber = jnp.where(err <= 1.0, 0.5 * err * err, err - 0.5)
        return jnp.mean(weight * huber)

    rng = np.random.default_rng(1)
    # frames of drifting low-pass blobs; the next observation shares three frames
    clips = _smooth_images(rng, batch, side, frames + n_step, 5.0)
    clips = np.clip(clips * 50.0 + 110.0, 0, 255).astype(np.uint8)
    obs, next_obs = clips[..., :frames], clips[..., n_step:n_step + frames]
    action = rng.integers(0, actions, batch)
    rewards = rng.choice([0.0, 0.0, 0.0, 1.0, -1.0], (batch, n_step))
    returns = (rewards * gamma ** np.arange(n_step)).sum(1)
    done = (rng.uniform(size=batch) < 0.02).astype(np.float32)
    priority = rng.pareto(1.5, batch) + 0.1
    weight = (batch * priority / priority.sum()) ** -0.4
    weight /= weight.max()
    return _train("apollo", loss_fn, p, target, jnp.asarray(obs), jnp.asarray(action, jnp.int32),
                  jnp.asarray(returns, jnp.float32), jnp.asarray(next_obs),
                  jnp.asarray(done), jnp.asarray(weight, jnp.float32))


def scale_hyperprior_codec(batch: int = 4, side: int = 128, n: int = 64, m: int = 96,
                           lam: float = 0.0067) -> Any:
    """A learned image codec with a scale hyperprior trained for rate and distortion:
    an analysis transform of four 5x5 stride-2 convolutions with generalized divisive
    normalization (GDN: each channel divided by the root of a learned affine mix of all
    channels' squares) gives the latent y; a hyper-analysis of absolute values gives z,
    whose rate comes from a learned factorized density (per channel, a small monotone
    network of softplus-constrained 3x3 matrices with tanh gates whose sigmoid is the
    cumulative distribution); a hyper-synthesis of stride-2 transposed convolutions
    predicts a scale for every element of y, whose rate is a Gaussian mass over the
    quantization bin through `erf`; quantization is replaced by additive uniform noise,
    and the synthesis transform of transposed convolutions with inverse GDN
    reconstructs the image; bits per pixel plus lambda times 255^2 times the mean
    squared error; Prodigy."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {}
    analysis = [("a0", 3, n), ("a1", n, n), ("a2", n, n), ("a3", n, m)]
    synthesis = [("s0", m, n), ("s1", n, n), ("s2", n, n), ("s3", n, 3)]
    for k, cin, cout in analysis + synthesis:
        shapes.update({k: (5, 5, cin, cout), f"{k}_b": (cout,)})
    for k in ("a0", "a1", "a2", "s0", "s1", "s2"):
        shapes.update({f"{k}_gdn_beta_g": (n,), f"{k}_gdn_gamma": (n, n)})
    shapes.update({"ha0": (3, 3, m, n), "ha0_b": (n,), "ha1": (5, 5, n, n), "ha1_b": (n,),
                   "ha2": (5, 5, n, n), "ha2_b": (n,), "hs0": (5, 5, n, n), "hs0_b": (n,),
                   "hs1": (5, 5, n, n), "hs1_b": (n,), "hs2": (3, 3, n, m), "hs2_b": (m,)})
    dims = (1, 3, 3, 3, 1)
    for i in range(4):
        shapes.update({f"eb{i}": (n, dims[i + 1], dims[i]), f"eb{i}_b": (n, dims[i + 1])})
        if i < 3:
            shapes[f"eb_tanh{i}_b"] = (n, dims[i + 1])
    p = _params(shapes, seed=2)
    for k in ("a0", "a1", "a2", "s0", "s1", "s2"):
        p[f"{k}_gdn_gamma"] = 0.1 * jnp.eye(n) + 0.01 * jnp.abs(p[f"{k}_gdn_gamma"])
    for i in range(4):
        p[f"eb{i}"] = p[f"eb{i}"] + 1.0

    def gdn(p, k, x, inverse=False):
        gamma = jnp.abs(p[f"{k}_gdn_gamma"])
        norm = jnp.sqrt(jnp.abs(p[f"{k}_gdn_beta_g"]) + 1e-6 + (x * x) @ gamma)
        return x * norm if inverse else x / norm

    def down(p, k, x, stride=2):
        return _conv(x, p[k], stride) + p[f"{k}_b"]

    def up(p, k, x, stride=2):
        return lax.conv_transpose(x, p[k], (stride, stride), "SAME",
                                  dimension_numbers=_NHWC) + p[f"{k}_b"]

    def cumulative(p, x):
        u = x[..., None]
        for i in range(4):
            u = jnp.einsum("coi,...ci->...co", jax.nn.softplus(p[f"eb{i}"]), u) + p[f"eb{i}_b"]
            if i < 3:
                u = u + jnp.tanh(p[f"eb_tanh{i}_b"]) * jnp.tanh(u)
        return u[..., 0]

    def factorized_bits(p, z):
        lower, upper = cumulative(p, z - 0.5), cumulative(p, z + 0.5)
        sign = -jnp.sign(lower + upper)
        mass = jnp.abs(jax.nn.sigmoid(sign * upper) - jax.nn.sigmoid(sign * lower))
        return -jnp.sum(jnp.log2(jnp.maximum(mass, 1e-9)))

    def gaussian_bits(y, scale):
        scale = jnp.maximum(scale, 0.11)
        centre = jnp.abs(y)
        cdf = lambda v: 0.5 * (1.0 + lax.erf(v / (scale * math.sqrt(2.0))))
        mass = cdf(0.5 - centre) - cdf(-0.5 - centre)
        return -jnp.sum(jnp.log2(jnp.maximum(mass, 1e-9)))

    def loss_fn(p, images, key):
        k1, k2 = jax.random.split(key)
        x = images
        for k, _, _ in analysis[:-1]:
            x = gdn(p, k, down(p, k, x))
        y = down(p, "a3", x)
        h = jax.nn.relu(down(p, "ha0", jnp.abs(y), 1))
        h = jax.nn.relu(down(p, "ha1", h))
        z = down(p, "ha2", h)
        z_tilde = z + jax.random.uniform(k1, z.shape, minval=-0.5, maxval=0.5)
        s = jax.nn.relu(up(p, "hs0", z_tilde))
        s = jax.nn.relu(up(p, "hs1", s))
        scale = jnp.exp(up(p, "hs2", s, 1))
        y_tilde = y + jax.random.uniform(k2, y.shape, minval=-0.5, maxval=0.5)
        x = y_tilde
        for k, _, _ in synthesis[:-1]:
            x = gdn(p, k, up(p, k, x), inverse=True)
        recon = up(p, "s3", x)
        pixels = images.shape[0] * images.shape[1] * images.shape[2]
        bpp = (factorized_bits(p, z_tilde) + gaussian_bits(y_tilde, scale)) / pixels
        return bpp + lam * 255.0 ** 2 * jnp.mean(jnp.square(recon - images))

    rng = np.random.default_rng(2)
    images = _smooth_images(rng, batch, side, 3, 10.0) + 0.5 * _smooth_images(rng, batch, side,
                                                                              3, 40.0)
    images = 1.0 / (1.0 + np.exp(-images))
    return _train("prodigy", loss_fn, p, jnp.asarray(images, jnp.float32), jax.random.PRNGKey(2))


def autoformer_forecast(batch: int = 16, length: int = 96, horizon: int = 48, series: int = 7,
                        width: int = 128, heads: int = 8, hidden: int = 256,
                        encoders: int = 2, kernel: int = 25, factor: int = 2) -> Any:
    """An Autoformer forecasting 48 steps of a 7-channel series from the previous 96:
    series decomposition blocks split trend (a replicate-padded moving average by
    `reduce_window`) from the seasonal part; auto-correlation replaces attention, the
    query-key correlation over all lags computed by real FFTs along time, the `top_k`
    strongest lags per sample (c log L of them) softmax-weighted and the values rolled by
    each lag through a gather; the decoder adds cross auto-correlation against the
    encoder output and accumulates trends projected by a circular convolution; token
    embeddings by circular 1-D convolutions plus time-feature projections; MSE on the
    horizon; diffGrad."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    d = width // heads
    lags = int(factor * math.log(length))
    marks = 4
    shapes: dict[str, tuple[int, ...]] = {
        "enc_token": (3, series, width), "enc_time": (marks, width),
        "dec_token": (3, series, width), "dec_time": (marks, width)}

    def correlation_shapes(k):
        return {f"{k}_q": (width, width), f"{k}_q_b": (width,), f"{k}_k": (width, width),
                f"{k}_k_b": (width,), f"{k}_v": (width, width), f"{k}_v_b": (width,),
                f"{k}_o": (width, width), f"{k}_o_b": (width,)}

    for l in range(encoders):
        shapes.update({**correlation_shapes(f"e{l}"), f"e{l}_ff1": (width, hidden),
                       f"e{l}_ff2": (hidden, width)})
    shapes.update({**correlation_shapes("self"), **correlation_shapes("cross"),
                   "d_ff1": (width, hidden), "d_ff2": (hidden, width),
                   "d_trend": (3, width, series), "enc_norm_g": (width,), "enc_norm_b": (width,),
                   "dec_norm_g": (width,), "dec_norm_b": (width,), "out": (width, series),
                   "out_b": (series,)})
    p = _params(shapes, seed=3)

    def circular(x, w):
        x = jnp.concatenate([x[:, -1:], x, x[:, :1]], 1)
        return lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=_NWC)

    def decompose(x):
        half = (kernel - 1) // 2
        padded = jnp.concatenate([jnp.repeat(x[:, :1], half, 1), x,
                                  jnp.repeat(x[:, -1:], half, 1)], 1)
        trend = lax.reduce_window(padded, 0.0, lax.add, (1, kernel, 1), (1, 1, 1),
                                  "VALID") / kernel
        return x - trend, trend

    def auto_correlation(p, k, x, memory):
        b, n = x.shape[0], x.shape[1]
        q = (x @ p[f"{k}_q"] + p[f"{k}_q_b"]).reshape(b, n, heads, d)
        kk = (memory @ p[f"{k}_k"] + p[f"{k}_k_b"]).reshape(b, n, heads, d)
        v = (memory @ p[f"{k}_v"] + p[f"{k}_v_b"]).reshape(b, n, heads, d)
        spectrum = jnp.fft.rfft(q, axis=1) * jnp.conj(jnp.fft.rfft(kk, axis=1))
        corr = jnp.fft.irfft(spectrum, n=n, axis=1).mean((2, 3))           # (b, n)
        weights, delay = lax.top_k(corr, lags)
        weights = jax.nn.softmax(weights, -1)
        index = (jnp.arange(n)[None, None, :] + delay[:, :, None]) % n      # (b, lags, n)
        rolled = jnp.take_along_axis(v[:, None], index[..., None, None], 2)
        out = jnp.einsum("bl,blnhd->bnhd", weights, rolled).reshape(b, n, width)
        return out @ p[f"{k}_o"] + p[f"{k}_o_b"]

    def feed_forward(x, w1, w2):
        return jax.nn.gelu(x @ w1) @ w2

    def season_norm(x, gain, shift):
        x = _layer_norm(x, gain, shift)
        return x - x.mean(1, keepdims=True)

    def loss_fn(p, x_enc, mark_enc, mark_dec, target):
        seasonal, trend = decompose(x_enc)
        mean = jnp.broadcast_to(x_enc.mean(1, keepdims=True), (x_enc.shape[0], horizon, series))
        trend = jnp.concatenate([trend[:, -horizon:], mean], 1)
        seasonal = jnp.concatenate([seasonal[:, -horizon:], jnp.zeros_like(mean)], 1)
        e = circular(x_enc, p["enc_token"]) + mark_enc @ p["enc_time"]
        for l in range(encoders):
            e, _ = decompose(e + auto_correlation(p, f"e{l}", e, e))
            e, _ = decompose(e + feed_forward(e, p[f"e{l}_ff1"], p[f"e{l}_ff2"]))
        e = season_norm(e, p["enc_norm_g"], p["enc_norm_b"])
        x = circular(seasonal, p["dec_token"]) + mark_dec @ p["dec_time"]
        x, t1 = decompose(x + auto_correlation(p, "self", x, x))
        x, t2 = decompose(x + auto_correlation(p, "cross", x, e))
        x, t3 = decompose(x + feed_forward(x, p["d_ff1"], p["d_ff2"]))
        trend = trend + circular(t1 + t2 + t3, p["d_trend"])
        x = season_norm(x, p["dec_norm_g"], p["dec_norm_b"])
        forecast = (trend + x @ p["out"] + p["out_b"])[:, -horizon:]
        return jnp.mean(jnp.square(forecast - target))

    rng = np.random.default_rng(3)
    start = rng.integers(0, 10000, batch)
    t = start[:, None] + np.arange(length + horizon)[None, :]
    periods = np.array([24.0, 24.0 * 7, 12.0, 24.0, 48.0, 24.0, 24.0 * 7])
    phases = rng.uniform(0, 2 * np.pi, series)
    values = (np.sin(2 * np.pi * t[..., None] / periods + phases) + 1e-4 * t[..., None]
              + 0.2 * np.cumsum(rng.standard_normal((batch, length + horizon, series)), 1)
              / np.sqrt(length + horizon))
    hour, day = t % 24, (t // 24) % 7
    mark = np.stack([hour / 23 - 0.5, day / 6 - 0.5, ((t // 24) % 30) / 29 - 0.5,
                     ((t // 720) % 12) / 11 - 0.5], -1)
    mark_dec = mark[:, length - horizon:]
    return _train("diffgrad", loss_fn, p, jnp.asarray(values[:, :length], jnp.float32),
                  jnp.asarray(mark[:, :length], jnp.float32), jnp.asarray(mark_dec, jnp.float32),
                  jnp.asarray(values[:, length:], jnp.float32))


def topk_sparse_autoencoder(batch: int = 256, width: int = 512, latents: int = 8192, k: int = 32,
                            aux_k: int = 256) -> Any:
    """A top-k sparse autoencoder in bfloat16 fitted to a batch of residual-stream
    activations (dictionary learning for interpretability): the pre-encoder bias is
    subtracted, `top_k` keeps the k largest of 8192 latent pre-activations per example,
    and the reconstruction gathers just those rows of the unit-norm decoder (the
    gradient reaches the decoder by scatter-add); the auxiliary loss asks the `aux_k`
    largest latents among those marked dead to reconstruct the detached residual; both
    losses normalized, in float32; StableAdamW."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16 = jnp.bfloat16
    shapes: dict[str, tuple[int, ...]] = {"pre_b": (width,), "enc": (width, latents),
                                          "enc_b": (latents,), "dec": (latents, width)}
    p = _params(shapes, seed=4, dtype=bf16)

    def loss_fn(p, x, dead):
        dec32 = p["dec"].astype(jnp.float32)
        dec = (dec32 * lax.rsqrt(jnp.sum(dec32 * dec32, -1, keepdims=True) + 1e-12)).astype(bf16)
        pre = (x - p["pre_b"]) @ p["enc"] + p["enc_b"]
        values, index = lax.top_k(pre, k)
        recon = jnp.einsum("bk,bkd->bd", jax.nn.relu(values), dec[index]) + p["pre_b"]
        x32 = x.astype(jnp.float32)
        err = x32 - recon.astype(jnp.float32)
        spread = jnp.mean(jnp.square(x32 - x32.mean(0)))
        mse = jnp.mean(err * err) / spread
        masked = jnp.where(dead, pre, jnp.asarray(-1e4, bf16))
        aux_values, aux_index = lax.top_k(masked, aux_k)
        aux = jnp.einsum("bk,bkd->bd", jax.nn.relu(aux_values), dec[aux_index]).astype(jnp.float32)
        residual = lax.stop_gradient(err)
        aux_loss = jnp.mean(jnp.square(residual - aux)) / (jnp.mean(residual * residual) + 1e-6)
        return mse + aux_loss / 32.0

    rng = np.random.default_rng(4)
    # activations as sparse combinations of hidden directions plus a dense offset and noise
    atoms = rng.standard_normal((4096, width)) / math.sqrt(width)
    active = rng.integers(0, 4096, (batch, 20))
    scale = rng.exponential(2.0, (batch, 20))
    x = (np.einsum("bk,bkd->bd", scale, atoms[active]) + 0.3 * rng.standard_normal(width)
         + 0.05 * rng.standard_normal((batch, width)))
    dead = rng.uniform(size=latents) < 0.15
    return _train("stable_adamw", loss_fn, p, jnp.asarray(x, bf16), jnp.asarray(dead))


def spiking_conv_net(batch: int = 8, steps: int = 16, side: int = 32, classes: int = 10,
                     widths: tuple[int, int] = (32, 64), hidden: int = 256) -> Any:
    """A spiking convolutional network classifying event-camera clips, trained through
    time by surrogate gradients: leaky integrate-and-fire neurons (learned per-layer
    leak, reset by subtraction) spike by a Heaviside step whose `custom_vjp` backward is
    a fast-sigmoid derivative, under a `lax.scan` over the time steps of two-channel
    (polarity) event frames; 3x3 convolutions with average pooling, a spiking dense layer
    and a leaky non-spiking readout; cross-entropy on the time-averaged readout plus a
    firing-rate penalty; AdaiW."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    w0, w1 = widths
    quarter = side // 4
    shapes: dict[str, tuple[int, ...]] = {
        "c1": (3, 3, 2, w0), "c1_b": (w0,), "c2": (3, 3, w0, w1), "c2_b": (w1,),
        "fc": (quarter * quarter * w1, hidden), "fc_b": (hidden,), "out": (hidden, classes),
        "out_b": (classes,), "leak_b": (4,)}
    p = _params(shapes, seed=5, scale=2.0)

    @jax.custom_vjp
    def spike(v):
        return (v > 0).astype(v.dtype)

    def spike_forward(v):
        return spike(v), v

    def spike_backward(v, g):
        return (g / jnp.square(1.0 + 10.0 * jnp.abs(v)),)

    spike.defvjp(spike_forward, spike_backward)

    def pool(x):
        return lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") * 0.25

    def lif(v, current, leak):
        v = leak * v + current
        s = spike(v - 1.0)
        return v - s, s

    def loss_fn(p, events, labels):
        leak = jax.nn.sigmoid(p["leak_b"] + 2.0)
        b = events.shape[1]

        def tick(carry, frame):
            v1, v2, v3, readout = carry
            v1, s1 = lif(v1, _conv(frame, p["c1"]) + p["c1_b"], leak[0])
            v2, s2 = lif(v2, _conv(pool(s1), p["c2"]) + p["c2_b"], leak[1])
            v3, s3 = lif(v3, pool(s2).reshape(b, -1) @ p["fc"] + p["fc_b"], leak[2])
            readout = leak[3] * readout + s3 @ p["out"] + p["out_b"]
            rates = jnp.stack([s1.mean(), s2.mean(), s3.mean()])
            return (v1, v2, v3, readout), (readout, rates)

        carry = (jnp.zeros((b, side, side, w0)), jnp.zeros((b, side // 2, side // 2, w1)),
                 jnp.zeros((b, hidden)), jnp.zeros((b, classes)))
        _, (readouts, rates) = lax.scan(tick, carry, events)
        return (_cross_entropy(readouts.mean(0), labels)
                + 0.1 * jnp.sum(jnp.square(rates.mean(0) - 0.05)))

    rng = np.random.default_rng(5)
    labels = rng.integers(0, classes, batch)
    angle = 2 * np.pi * labels / classes
    yy, xx = np.mgrid[0:side, 0:side]
    start = rng.uniform(8, side - 8, (batch, 2))
    speed = 0.8 * np.stack([np.cos(angle), np.sin(angle)], -1)
    frames = []
    for t in range(steps + 1):
        c = start + t * speed
        r2 = (xx[None] - c[:, 0, None, None]) ** 2 + (yy[None] - c[:, 1, None, None]) ** 2
        frames.append(np.exp(-r2 / 18.0))
    diff = np.diff(np.stack(frames), axis=0)                      # (T, B, H, W)
    noise = rng.uniform(size=diff.shape) < 0.01
    events = np.stack([(diff > 0.05) | noise, diff < -0.05], -1).astype(np.float32)
    return _train("adai", loss_fn, p, jnp.asarray(events), jnp.asarray(labels, jnp.int32))


def darts_supernet(batch: int = 8, side: int = 32, channels: int = 12, classes: int = 10,
                   cells: tuple[str, ...] = ("normal", "reduce", "normal"),
                   nodes: int = 4) -> Any:
    """A DARTS architecture-search supernet trained in one step for its weights and its
    architecture together (first-order, single level): every edge of a cell (each of
    four intermediate nodes takes all earlier nodes and the two cell inputs) is a mixed
    operation, the softmax over learned architecture logits weighting separable 3x3 and
    5x5 convolutions (applied twice), dilated 3x3 and 5x5 depthwise-pointwise
    convolutions, 3x3 max and average pooling, a skip (a factorized reduction on
    strided edges) and zero; ReLU-convolution-batch-norm preprocessing without affine
    parameters, a reduction cell that halves the resolution and doubles the channels,
    the concatenation of the intermediate nodes as each cell's output; cross-entropy
    plus an entropy penalty on the edge distributions; Fromage."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    ops = ("none", "skip", "max_pool", "avg_pool", "sep3", "sep5", "dil3", "dil5")
    edges = sum(2 + i for i in range(nodes))
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, 3 * channels)}
    plan = []
    c_pp, c_p, c = 3 * channels, 3 * channels, channels
    reduced_before = False
    for index, kind in enumerate(cells):
        if kind == "reduce":
            c *= 2
        k = f"cell{index}"
        if reduced_before:
            shapes.update({f"{k}_pre0a": (1, 1, c_pp, c // 2), f"{k}_pre0b": (1, 1, c_pp, c // 2)})
        else:
            shapes[f"{k}_pre0"] = (1, 1, c_pp, c)
        shapes[f"{k}_pre1"] = (1, 1, c_p, c)
        for e in range(edges):
            strided = kind == "reduce" and (e in _darts_input_edges(nodes))
            for size in (3, 5):
                for rep in range(2):
                    shapes.update({f"{k}_e{e}_sep{size}_dw{rep}": (size, size, 1, c),
                                   f"{k}_e{e}_sep{size}_pw{rep}": (1, 1, c, c)})
                shapes.update({f"{k}_e{e}_dil{size}_dw": (size, size, 1, c),
                               f"{k}_e{e}_dil{size}_pw": (1, 1, c, c)})
            if strided:
                shapes.update({f"{k}_e{e}_fr_a": (1, 1, c, c // 2),
                               f"{k}_e{e}_fr_b": (1, 1, c, c // 2)})
        plan.append((k, kind, reduced_before))
        reduced_before = kind == "reduce"
        c_pp, c_p = c_p, nodes * c
    shapes.update({"head": (c_p, classes), "head_b": (classes,)})
    p = _params(shapes, seed=6)
    arch_rng = np.random.default_rng(60)
    p["alpha_normal"] = jnp.asarray(1e-3 * arch_rng.standard_normal((edges, len(ops))),
                                    jnp.float32)
    p["alpha_reduce"] = jnp.asarray(1e-3 * arch_rng.standard_normal((edges, len(ops))),
                                    jnp.float32)

    def pool(x, stride, kind):
        pad = ((0, 0), (1, 1), (1, 1), (0, 0))
        if kind == "max":
            out = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, stride, stride, 1),
                                    pad)
        else:
            out = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, stride, stride, 1),
                                    pad) / 9.0
        return _batch_norm(out)

    def dw_pw(x, dw, pw, stride, dilation=1):
        x = _conv(jax.nn.relu(x), dw, stride, groups=x.shape[-1], dilation=dilation)
        return _batch_norm(_conv(x, pw))

    def mixed(p, k, e, x, weights, stride):
        out = weights[1] * (x if stride == 1 else _batch_norm(jnp.concatenate([
            _conv(jax.nn.relu(x), p[f"{k}_e{e}_fr_a"], 2),
            _conv(jax.nn.relu(x[:, 1:, 1:]), p[f"{k}_e{e}_fr_b"], 2)], -1)))
        out = out + weights[2] * pool(x, stride, "max") + weights[3] * pool(x, stride, "avg")
        for slot, size in ((4, 3), (5, 5)):
            h = dw_pw(x, p[f"{k}_e{e}_sep{size}_dw0"], p[f"{k}_e{e}_sep{size}_pw0"], stride)
            h = dw_pw(h, p[f"{k}_e{e}_sep{size}_dw1"], p[f"{k}_e{e}_sep{size}_pw1"], 1)
            out = out + weights[slot] * h
        for slot, size in ((6, 3), (7, 5)):
            out = out + weights[slot] * dw_pw(x, p[f"{k}_e{e}_dil{size}_dw"],
                                              p[f"{k}_e{e}_dil{size}_pw"], stride, 2)
        return out

    def preprocess(p, k, x, factorized):
        if factorized:
            x = jax.nn.relu(x)
            return _batch_norm(jnp.concatenate([_conv(x, p[f"{k}_pre0a"], 2),
                                                _conv(x[:, 1:, 1:], p[f"{k}_pre0b"], 2)], -1))
        return _batch_norm(_conv(jax.nn.relu(x), p[f"{k}_pre0"]))

    def loss_fn(p, images, labels):
        s0 = s1 = _batch_norm(_conv(images, p["stem"]))
        probs = {"normal": jax.nn.softmax(p["alpha_normal"], -1),
                 "reduce": jax.nn.softmax(p["alpha_reduce"], -1)}
        for k, kind, factorized in plan:
            states = [preprocess(p, k, s0, factorized),
                      _batch_norm(_conv(jax.nn.relu(s1), p[f"{k}_pre1"]))]
            e = 0
            for _ in range(nodes):
                total = 0.0
                for j, h in enumerate(states):
                    stride = 2 if kind == "reduce" and j < 2 else 1
                    total = total + mixed(p, k, e, h, probs[kind][e], stride)
                    e += 1
                states.append(total)
            s0, s1 = s1, jnp.concatenate(states[2:], -1)
        logits = s1.mean((1, 2)) @ p["head"] + p["head_b"]
        entropy = sum(-jnp.sum(q * jnp.log(q + 1e-9)) for q in probs.values())
        return _cross_entropy(logits, labels) + 1e-3 * entropy

    rng = np.random.default_rng(6)
    labels = rng.integers(0, classes, batch)
    images = _smooth_images(rng, batch, side, 3, 4.0)
    images += 0.5 * rng.standard_normal((classes, 3))[labels][:, None, None]
    return _train("fromage", loss_fn, p, jnp.asarray(images, jnp.float32),
                  jnp.asarray(labels, jnp.int32))


def _darts_input_edges(nodes: int) -> set[int]:
    """The edges of a DARTS cell that read one of the two cell inputs (node i's edges
    come in order: input 0, input 1, then the earlier intermediate nodes)."""
    out, e = set(), 0
    for i in range(nodes):
        out.update({e, e + 1})
        e += 2 + i
    return out


def pgd_adversarial_training(batch: int = 16, side: int = 32,
                             widths: tuple[int, ...] = (16, 32, 64), classes: int = 10,
                             attack_steps: int = 5, epsilon: float = 8 / 255,
                             step: float = 2 / 255) -> Any:
    """Madry-style adversarial training of a pre-activation ResNet in bfloat16: a
    projected-gradient attack from a uniform random start takes `attack_steps` signed
    input-gradient steps in a `fori_loop` (each a forward and a backward pass of the
    frozen network in training mode), projected onto the L-infinity ball of radius 8/255
    and the valid pixel range; the detached adversarial images and the clean ones are
    then both trained on, half the loss each; batch norm with float32 statistics;
    Grokfast-EMA gradient filtering under AdamW."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16 = jnp.bfloat16
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0])}
    cin = widths[0]
    for s, w in enumerate(widths):
        shapes.update({f"s{s}_bn1_g": (cin,), f"s{s}_bn1_b": (cin,), f"s{s}_c1": (3, 3, cin, w),
                       f"s{s}_bn2_g": (w,), f"s{s}_bn2_b": (w,), f"s{s}_c2": (3, 3, w, w)})
        if cin != w:
            shapes[f"s{s}_skip"] = (1, 1, cin, w)
        cin = w
    shapes.update({"final_g": (cin,), "final_b": (cin,), "head": (cin, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=7, dtype=bf16)

    def net(p, x):
        x = _conv(x.astype(bf16), p["stem"])
        for s in range(len(widths)):
            stride = 1 if s == 0 else 2
            h = jax.nn.relu(_batch_norm(x, p[f"s{s}_bn1_g"], p[f"s{s}_bn1_b"]))
            skip = _conv(h, p[f"s{s}_skip"], stride) if f"s{s}_skip" in p else x
            h = _conv(h, p[f"s{s}_c1"], stride)
            h = jax.nn.relu(_batch_norm(h, p[f"s{s}_bn2_g"], p[f"s{s}_bn2_b"]))
            x = skip + _conv(h, p[f"s{s}_c2"])
        x = jax.nn.relu(_batch_norm(x, p["final_g"], p["final_b"])).mean((1, 2))
        return x @ p["head"] + p["head_b"]

    def loss_fn(p, images, labels, key):
        frozen = lax.stop_gradient(p)
        attack_loss = lambda delta: _cross_entropy(net(frozen, jnp.clip(images + delta, 0, 1)),
                                                   labels)

        def attack(i, delta):
            g = jax.grad(attack_loss)(delta)
            return jnp.clip(delta + step * jnp.sign(g), -epsilon, epsilon)

        start = jax.random.uniform(key, images.shape, minval=-epsilon, maxval=epsilon)
        delta = lax.fori_loop(0, attack_steps, attack, start)
        adversarial = lax.stop_gradient(jnp.clip(images + delta, 0, 1))
        return 0.5 * (_cross_entropy(net(p, images), labels)
                      + _cross_entropy(net(p, adversarial), labels))

    rng = np.random.default_rng(7)
    labels = rng.integers(0, classes, batch)
    images = _smooth_images(rng, batch, side, 3, 3.0)
    images += 0.7 * rng.standard_normal((classes, 3))[labels][:, None, None]
    images = 1.0 / (1.0 + np.exp(-images))
    return _train("grokfast", loss_fn, p, jnp.asarray(images, jnp.float32),
                  jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(7))


def tree_lstm_sentiment(batch: int = 32, leaves: int = 32, hidden: int = 192, embed: int = 192,
                        vocab: int = 8192, classes: int = 5) -> Any:
    """A binary constituency Tree-LSTM for fine-grained sentiment at every node of
    random parse trees: leaves are encoded by an LSTM cell without recurrence, then a
    `lax.scan` over the merges in post-order (a shift-reduce schedule that differs per
    sentence) gathers the two children's states from a node buffer, applies the N-ary
    Tree-LSTM cell (an input gate, a forget gate per child, an output gate and a
    candidate, from separate left and right matrices) and writes the parent into the
    buffer by `dynamic_update_slice`; every one of the 63 nodes is classified into five
    classes; cross-entropy; preconditioned SGLD (Bayesian posterior sampling)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    nodes = 2 * leaves - 1
    shapes: dict[str, tuple[int, ...]] = {
        "embed": (vocab, embed), "leaf": (embed, 3 * hidden), "leaf_b": (3 * hidden,),
        "left": (hidden, 5 * hidden), "right": (hidden, 5 * hidden), "cell_b": (5 * hidden,),
        "cls": (hidden, classes), "cls_b": (classes,)}
    p = _params(shapes, seed=8)

    def loss_fn(p, tokens, left, right, labels):
        b = tokens.shape[0]
        i, o, u = jnp.split(p["embed"][tokens] @ p["leaf"] + p["leaf_b"], 3, -1)
        c_leaf = jax.nn.sigmoid(i) * jnp.tanh(u)
        h_leaf = jax.nn.sigmoid(o) * jnp.tanh(c_leaf)
        pad = jnp.zeros((b, nodes - leaves, hidden))
        rows = jnp.arange(b)

        def merge(carry, xs):
            h_buf, c_buf = carry
            j, li, ri = xs
            hl, hr, cl, cr = h_buf[rows, li], h_buf[rows, ri], c_buf[rows, li], c_buf[rows, ri]
            gates = hl @ p["left"] + hr @ p["right"] + p["cell_b"]
            ig, fl, fr, og, cand = jnp.split(gates, 5, -1)
            c = (jax.nn.sigmoid(ig) * jnp.tanh(cand) + jax.nn.sigmoid(fl + 1.0) * cl
                 + jax.nn.sigmoid(fr + 1.0) * cr)
            h = jax.nn.sigmoid(og) * jnp.tanh(c)
            h_buf = lax.dynamic_update_slice(h_buf, h[:, None], (0, leaves + j, 0))
            c_buf = lax.dynamic_update_slice(c_buf, c[:, None], (0, leaves + j, 0))
            return (h_buf, c_buf), None

        start = (jnp.concatenate([h_leaf, pad], 1), jnp.concatenate([c_leaf, pad], 1))
        (h_all, _), _ = lax.scan(merge, start, (jnp.arange(leaves - 1), left.T, right.T))
        return _cross_entropy(h_all @ p["cls"] + p["cls_b"], labels)

    rng = np.random.default_rng(8)
    tokens = rng.integers(0, vocab, (batch, leaves))
    polarity = rng.choice([-2, -1, 0, 0, 0, 0, 1, 2], vocab)
    left = np.zeros((batch, leaves - 1), np.int64)
    right = np.zeros((batch, leaves - 1), np.int64)
    labels = np.zeros((batch, nodes), np.int64)
    for s in range(batch):
        score = list(polarity[tokens[s]].astype(float))
        frontier = list(range(leaves))
        for j in range(leaves - 1):
            at = rng.integers(0, len(frontier) - 1)
            a, c = frontier[at], frontier[at + 1]
            left[s, j], right[s, j] = a, c
            score.append(score[a] + score[c])
            frontier[at:at + 2] = [leaves + j]
        labels[s] = np.clip(np.round(np.tanh(np.array(score) / 4.0) * 2.0) + 2, 0, 4)
    return _train("psgld", loss_fn, p, jnp.asarray(tokens, jnp.int32),
                  jnp.asarray(left, jnp.int32), jnp.asarray(right, jnp.int32),
                  jnp.asarray(labels, jnp.int32))


def relation_network(batch: int = 8, side: int = 75, conv: int = 24, g_width: int = 256,
                     f_width: int = 256, answers: int = 10) -> Any:
    """A relation network in bfloat16 answering Sort-of-CLEVR questions: four stride-2
    3x3 convolutions with batch norm reduce the image to a 5x5 grid of 24-channel
    objects tagged with their coordinates; the relation function g is applied to all 625
    ordered object pairs with the question (its first layer split into per-object and
    per-question projections that are broadcast-added), summed over pairs, and f maps
    the sum through dropout to ten answers; cross-entropy; the PID optimizer."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    grid = 5
    obj = conv + 2
    shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for i in range(4):
        shapes.update({f"c{i}": (3, 3, cin, conv), f"c{i}_b": (conv,), f"bn{i}_g": (conv,),
                       f"bn{i}_b": (conv,)})
        cin = conv
    shapes.update({"g_i": (obj, g_width), "g_j": (obj, g_width), "g_q": (11, g_width),
                   "g0_b": (g_width,), "g1": (g_width, g_width), "g1_b": (g_width,),
                   "g2": (g_width, g_width), "g2_b": (g_width,), "g3": (g_width, g_width),
                   "g3_b": (g_width,), "f1": (g_width, f_width), "f1_b": (f_width,),
                   "f2": (f_width, f_width), "f2_b": (f_width,), "f3": (f_width, answers),
                   "f3_b": (answers,)})
    p = _params(shapes, seed=9, dtype=bf16)
    coords = np.stack(np.meshgrid(np.linspace(-1, 1, grid), np.linspace(-1, 1, grid),
                                  indexing="ij"), -1).reshape(grid * grid, 2)
    coords = jnp.asarray(coords, bf16)

    def loss_fn(p, images, questions, labels, key):
        x = images
        for i in range(4):
            x = _conv(x, p[f"c{i}"], 2) + p[f"c{i}_b"]
            x = jax.nn.relu(_batch_norm(x, p[f"bn{i}_g"], p[f"bn{i}_b"]))
        b = x.shape[0]
        objects = jnp.concatenate([x.reshape(b, grid * grid, conv),
                                   jnp.broadcast_to(coords, (b, grid * grid, 2))], -1)
        a, c = objects @ p["g_i"], objects @ p["g_j"]
        q = questions @ p["g_q"] + p["g0_b"]
        h = jax.nn.relu(a[:, :, None] + c[:, None, :] + q[:, None, None])
        for k in ("g1", "g2", "g3"):
            h = jax.nn.relu(h @ p[k] + p[f"{k}_b"])
        pooled = h.astype(jnp.float32).sum((1, 2)).astype(bf16)
        h = jax.nn.relu(pooled @ p["f1"] + p["f1_b"])
        h = jax.nn.relu(h @ p["f2"] + p["f2_b"])
        keep = jax.random.bernoulli(key, 0.5, h.shape)
        h = jnp.where(keep, h * 2, 0).astype(bf16)
        return _cross_entropy(h @ p["f3"] + p["f3_b"], labels)

    rng = np.random.default_rng(9)
    palette = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0.5, 0], [0.5, 0.5, 0.5],
                        [1, 1, 0]], np.float32)
    images = np.ones((batch, side, side, 3), np.float32)
    questions = np.zeros((batch, 11), np.float32)
    labels = np.zeros(batch, np.int64)
    yy, xx = np.mgrid[0:side, 0:side]
    for s in range(batch):
        centres = rng.uniform(8, side - 8, (6, 2))
        square = rng.uniform(size=6) < 0.5
        for o in range(6):
            dy, dx = yy - centres[o, 0], xx - centres[o, 1]
            inside = (np.maximum(abs(dy), abs(dx)) < 5) if square[o] else (dy ** 2 + dx ** 2 < 25)
            images[s][inside] = palette[o]
        colour, kind = rng.integers(0, 6), rng.integers(0, 5)
        questions[s, colour], questions[s, 6 + kind] = 1.0, 1.0
        dist = np.linalg.norm(centres - centres[colour], axis=1)
        if kind == 0:
            labels[s] = 2 if square[colour] else 3
        elif kind == 1:
            labels[s] = 0 if centres[colour, 1] < side / 2 else 1
        elif kind == 2:
            labels[s] = 0 if centres[colour, 0] < side / 2 else 1
        elif kind == 3:
            labels[s] = 4 + np.argmin(np.where(dist > 0, dist, np.inf))
        else:
            labels[s] = 4 + np.argmax(dist)
    return _train("pid", loss_fn, p, jnp.asarray(images, bf16), jnp.asarray(questions, bf16),
                  jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(9))


def siamese_tracker(batch: int = 8, exemplar: int = 127, search: int = 255,
                    widths: tuple[int, ...] = (24, 64, 96, 96, 64), radius: int = 2) -> Any:
    """A fully convolutional Siamese tracker (SiamFC) trained on exemplar-search pairs:
    one AlexNet-style backbone of valid convolutions (11x11 stride 2, 3x3 stride-2 max
    pooling, 5x5, then three 3x3, batch norm between) embeds a 127-pixel exemplar crop
    and a 255-pixel search region; each exemplar's 6x6 feature map is cross-correlated
    with its own search features by one grouped convolution (the batch folded into the
    channel groups), giving a 17x17 response map after a learned scale and bias; a
    class-balanced logistic loss marks the cells within `radius` of the target's true
    offset positive; SWATS."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    kernels = (11, 5, 3, 3, 3)
    shapes: dict[str, tuple[int, ...]] = {}
    cin = 3
    for i, (k, w) in enumerate(zip(kernels, widths)):
        shapes[f"c{i}"] = (k, k, cin, w)
        if i < len(widths) - 1:
            shapes.update({f"bn{i}_g": (w,), f"bn{i}_b": (w,)})
        cin = w
    shapes.update({"adjust_g": (1,), "adjust_b": (1,)})
    p = _params(shapes, seed=10)

    def embed(p, x):
        for i in range(len(widths)):
            x = _conv(x, p[f"c{i}"], 2 if i == 0 else 1, padding="VALID")
            if i < len(widths) - 1:
                x = jax.nn.relu(_batch_norm(x, p[f"bn{i}_g"], p[f"bn{i}_b"]))
            if i < 2:
                x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "VALID")
        return x

    def loss_fn(p, z_images, x_images, labels, weights):
        z, x = embed(p, z_images), embed(p, x_images)
        b, hx, wx, c = x.shape
        folded = jnp.transpose(x, (1, 2, 0, 3)).reshape(1, hx, wx, b * c)
        score = _conv(folded, jnp.transpose(z, (1, 2, 3, 0)), groups=b, padding="VALID")
        score = jnp.transpose(score[0], (2, 0, 1)) * 1e-3 * p["adjust_g"] + p["adjust_b"]
        return jnp.sum(weights * jax.nn.softplus(-labels * score)) / b

    rng = np.random.default_rng(10)
    size = 17
    background = _smooth_images(rng, batch, search + 64, 3, 12.0)
    objects = _smooth_images(rng, batch, 64, 3, 4.0) + 1.5 * rng.standard_normal((batch, 1, 1, 3))
    offsets = rng.integers(-32, 33, (batch, 2))
    search_images = np.empty((batch, search, search, 3), np.float32)
    exemplar_images = np.empty((batch, exemplar, exemplar, 3), np.float32)
    labels = -np.ones((batch, size, size), np.float32)
    cy, cx = np.mgrid[0:size, 0:size] - size // 2
    for s in range(batch):
        # the object's centre sits `offsets[s]` pixels from the search region's centre,
        # and the exemplar is centred on it
        canvas = background[s].copy()
        top = search // 2 + offsets[s]
        canvas[top[0]:top[0] + 64, top[1]:top[1] + 64] = objects[s]
        search_images[s] = canvas[32:32 + search, 32:32 + search]
        middle = top + 32
        exemplar_images[s] = canvas[middle[0] - exemplar // 2:middle[0] + exemplar // 2 + 1,
                                    middle[1] - exemplar // 2:middle[1] + exemplar // 2 + 1]
        shift = offsets[s] / 8.0
        near = (cy - shift[0]) ** 2 + (cx - shift[1]) ** 2 <= radius ** 2
        labels[s][near] = 1.0
    positive = labels > 0
    weights = np.where(positive, 0.5 / positive.sum((1, 2), keepdims=True),
                       0.5 / (~positive).sum((1, 2), keepdims=True)).astype(np.float32)
    return _train("swats", loss_fn, p, jnp.asarray(exemplar_images),
                  jnp.asarray(search_images), jnp.asarray(labels), jnp.asarray(weights))


def ising_quench_statevector(qubits: int = 16, steps: int = 64, dt: float = 0.05,
                             coupling: float = 1.0, top: int = 16) -> Any:
    """Inference: exact state-vector simulation in complex64 of a quench of the
    disordered transverse-field Ising chain, 2^16 amplitudes evolved by a `lax.scan`
    over first-order Trotter steps: the ZZ couplings as one diagonal
    phase built in the step from the bits of the basis index, then an RX rotation on
    every qubit applied as a 2x2 `tensordot` along that qubit's axis of the (2,)*n
    view; per step the Z magnetization of every site (probabilities against +-1 bit
    signs), the nearest-neighbour ZZ correlation and the Loschmidt echo; at the end the
    half-chain Renyi-2 entropy from the purity of the reduced density matrix (a complex
    matrix product) and the most probable bitstrings by `top_k`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    size = 2 ** qubits
    half = 2 ** (qubits // 2)

    def run(psi0, fields):
        index = jnp.arange(size, dtype=jnp.int32)
        bits = (index[:, None] >> (qubits - 1 - jnp.arange(qubits, dtype=jnp.int32))) & 1
        signs = (1 - 2 * bits).astype(jnp.float32)                         # (2^n, n)
        zz = jnp.sum(signs[:, :-1] * signs[:, 1:], -1)
        phase = jnp.exp(-1j * (coupling * dt) * zz.astype(jnp.complex64))
        c = jnp.cos(fields * dt).astype(jnp.complex64)
        s = (-1j * jnp.sin(fields * dt)).astype(jnp.complex64)
        rx = jnp.stack([jnp.stack([c, s], -1), jnp.stack([s, c], -1)], -2)  # (n, 2, 2)

        def step(psi, _):
            psi = (psi * phase).reshape((2,) * qubits)
            for q in range(qubits):
                psi = jnp.moveaxis(jnp.tensordot(rx[q], psi, axes=((1,), (q,))), 0, q)
            psi = psi.reshape(size)
            prob = jnp.real(psi * jnp.conj(psi))
            echo = jnp.abs(jnp.sum(jnp.conj(psi0) * psi)) ** 2
            return psi, (prob @ signs, prob @ zz / (qubits - 1), echo)

        psi, (magnetization, correlation, echo) = lax.scan(step, psi0, None, length=steps)
        a = psi.reshape(half, half)
        rho = a @ jnp.conj(a.T)
        purity = jnp.sum(jnp.real(rho * jnp.conj(rho)))
        prob = jnp.real(psi * jnp.conj(psi))
        best, which = lax.top_k(prob, top)
        return magnetization, correlation, echo, -jnp.log(purity), best, which

    rng = np.random.default_rng(11)
    fields = rng.uniform(0.5, 1.5, qubits)
    theta = rng.uniform(0, 0.3, qubits)
    single = np.stack([np.cos(theta / 2), np.sin(theta / 2)], -1)
    psi0 = single[0]
    for q in range(1, qubits):
        psi0 = np.kron(psi0, single[q])
    return jax.jit(run).lower(jnp.asarray(psi0, jnp.complex64), jnp.asarray(fields, jnp.float32))


def mppi_quadrotor(samples: int = 1024, horizon: int = 48, iterations: int = 25,
                   obstacles: int = 8, temperature: float = 0.5, dt: float = 0.02) -> Any:
    """Inference: model-predictive path-integral control of a planar quadrotor flying
    to a goal between circular obstacles, a `lax.scan` over control cycles; each cycle
    perturbs the nominal thrust sequence with Gaussian noise for 1024 samples, rolls all
    of them out by an inner `lax.scan` over the 48-step horizon (rigid-body dynamics
    with semi-implicit Euler, a goal cost, soft obstacle and ground penalties, a control
    cost), weights the samples by a softmax of their negative costs over the
    temperature, updates the nominal sequence by the weighted noise and smooths it, then
    advances the true system (with a wind gust) by the first control and shifts the
    sequence; the trajectory, the best costs and the effective sample sizes come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    mass, inertia, arm, gravity = 0.5, 0.01, 0.15, 9.81
    hover = mass * gravity / 2
    sigma = jnp.asarray([0.6, 0.6], jnp.float32)

    def dynamics(x, u, wind=0.0):
        px, pz, th, vx, vz, om = (x[..., i] for i in range(6))
        thrust = u[..., 0] + u[..., 1]
        vx = vx + dt * (-thrust * jnp.sin(th) / mass + wind)
        vz = vz + dt * (thrust * jnp.cos(th) / mass - gravity)
        om = om + dt * (u[..., 1] - u[..., 0]) * arm / inertia
        return jnp.stack([px + dt * vx, pz + dt * vz, th + dt * om, vx, vz, om], -1)

    def run(x0, goal, nominal, circles, key):
        def cost(x, u):
            to_goal = jnp.square(x[..., 0] - goal[0]) + jnp.square(x[..., 1] - goal[1])
            gap = jnp.sqrt(jnp.square(x[..., None, 0] - circles[:, 0])
                           + jnp.square(x[..., None, 1] - circles[:, 1])) - circles[:, 2]
            hit = jnp.sum(jnp.square(jax.nn.relu(0.2 - gap)), -1)
            ground = jnp.square(jax.nn.relu(-x[..., 1]))
            effort = jnp.sum(jnp.square(u - hover), -1)
            return (to_goal + 0.1 * jnp.square(x[..., 2]) + 500.0 * hit + 1000.0 * ground
                    + 0.01 * effort)

        def cycle(carry, i):
            x, plan = carry
            noise = jax.random.normal(jax.random.fold_in(key, i), (samples, horizon, 2)) * sigma
            controls = jnp.clip(plan + noise, 0.0, 4.0 * hover)

            def roll(states, u):
                states = dynamics(states, u)
                return states, cost(states, u)

            final, costs = lax.scan(roll, jnp.broadcast_to(x, (samples, 6)),
                                    jnp.swapaxes(controls, 0, 1))
            total = (costs.sum(0) + 10.0 * cost(final, jnp.full((samples, 2), hover))
                     + temperature * jnp.sum(plan * noise / sigma ** 2, (1, 2)))
            weights = jax.nn.softmax(-(total - total.min()) / temperature)
            plan = plan + jnp.einsum("k,khc->hc", weights, controls - plan)
            plan = jnp.concatenate([plan[:1], 0.25 * plan[:-2] + 0.5 * plan[1:-1]
                                    + 0.25 * plan[2:], plan[-1:]], 0)
            gust = 0.5 * jnp.sin(0.3 * i.astype(jnp.float32))
            x = dynamics(x, plan[0], gust)
            plan = jnp.concatenate([plan[1:], plan[-1:]], 0)
            return (x, plan), (x, total.min(), 1.0 / jnp.sum(weights * weights))

        _, (path, best, ess) = lax.scan(cycle, (x0, nominal), jnp.arange(iterations))
        return path, best, ess

    rng = np.random.default_rng(12)
    circles = np.concatenate([rng.uniform([0.5, 0.5], [3.5, 2.5], (obstacles, 2)),
                              rng.uniform(0.15, 0.35, (obstacles, 1))], 1)
    return jax.jit(run).lower(jnp.zeros(6, jnp.float32), jnp.asarray([4.0, 2.0], jnp.float32),
                              jnp.full((horizon, 2), hover, jnp.float32),
                              jnp.asarray(circles, jnp.float32), jax.random.PRNGKey(12))


def fmcw_radar_cfar(frames: int = 8, chirps: int = 128, samples: int = 256, antennas: int = 8,
                    targets: int = 24, angle_bins: int = 64, detections: int = 32,
                    guard: int = 2, train: int = 8) -> Any:
    """Inference: an FMCW automotive radar chain over a few frames of moving targets:
    the complex beat signal of every target (range, Doppler and angle phases as a
    product of three complex exponentials contracted by an einsum) plus receiver noise
    forms each frame's chirp x antenna x sample cube; Hann windows, a range FFT along
    the samples and a Doppler FFT along the chirps with the zero velocity centred by a
    roll; non-coherent integration over the antennas; 2-D cell-averaging CFAR (noise
    from the difference of two box sums by `reduce_window`, guard cells excluded) with a
    3x3 local-maximum test; the strongest detections by `top_k`, their antenna
    snapshots gathered and zero-padded into an angle FFT whose peak gives the bearing."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(ranges, speeds, bearings, amplitude, noise):
        t = jnp.arange(frames, dtype=jnp.float32)[:, None] * 0.05
        r = ranges + speeds * t                                              # (F, T)
        fast = jnp.arange(samples, dtype=jnp.float32)
        slow = jnp.arange(chirps, dtype=jnp.float32)
        ant = jnp.arange(antennas, dtype=jnp.float32)
        cis = lambda a: jnp.exp(1j * a.astype(jnp.complex64))
        e_range = cis(2 * jnp.pi * (r / 60.0)[..., None] * fast * 0.5)      # (F, T, N)
        e_doppler = cis(2 * jnp.pi * (speeds / 40.0)[:, None] * slow * 0.5)  # (T, C)
        e_angle = cis(jnp.pi * jnp.sin(bearings)[:, None] * ant)             # (T, A)
        gain = (amplitude / (1.0 + r / 20.0) ** 2).astype(jnp.complex64)
        cube = jnp.einsum("ft,ftn,tc,ta->fcan", gain, e_range, e_doppler, e_angle)
        cube = cube + (noise[0] + 1j * noise[1]).astype(jnp.complex64)
        hann = lambda n: 0.5 - 0.5 * jnp.cos(2 * jnp.pi * jnp.arange(n) / n)
        cube = cube * hann(samples) * hann(chirps)[:, None, None]
        spectrum = jnp.fft.fft(jnp.fft.fft(cube, axis=-1), axis=1)
        spectrum = jnp.roll(spectrum, chirps // 2, axis=1)                  # (F, C, A, N)
        power = jnp.sum(jnp.real(spectrum * jnp.conj(spectrum)), 2)        # (F, C, N)

        def box(x, half):
            width = 2 * half + 1
            return lax.reduce_window(x, 0.0, lax.add, (1, width, width), (1, 1, 1),
                                     ((0, 0), (half, half), (half, half)))

        outer, inner = guard + train, guard
        cells = (2 * outer + 1) ** 2 - (2 * inner + 1) ** 2
        level = (box(power, outer) - box(power, inner)) / cells
        peak = lax.reduce_window(power, -jnp.inf, lax.max, (1, 3, 3), (1, 1, 1),
                                 ((0, 0), (1, 1), (1, 1)))
        hit = (power > 12.0 * level) & (power >= peak)
        snr = jnp.where(hit, power / level, 0.0).reshape(frames, -1)
        strength, where = lax.top_k(snr, detections)
        doppler, rng_bin = where // samples, where % samples
        frame = jnp.arange(frames)[:, None]
        snapshot = spectrum[frame, doppler, :, rng_bin]                    # (F, D, A)
        beams = jnp.abs(jnp.fft.fft(snapshot, n=angle_bins, axis=-1))
        beam = jnp.argmax(jnp.roll(beams, angle_bins // 2, -1), -1)
        bearing = jnp.arcsin(jnp.clip((beam - angle_bins // 2) * 2.0 / angle_bins, -1, 1))
        return (rng_bin * 60.0 / samples * 2.0, (doppler - chirps // 2) * 80.0 / chirps,
                bearing, 10.0 * jnp.log10(strength + 1e-9), jnp.sum(hit, (1, 2)))

    rng = np.random.default_rng(13)
    args = (rng.uniform(5, 55, targets), rng.uniform(-15, 15, targets),
            rng.uniform(-1.0, 1.0, targets), rng.uniform(0.5, 3.0, targets),
            0.05 * rng.standard_normal((2, frames, chirps, antennas, samples)))
    return jax.jit(run).lower(*(jnp.asarray(a, jnp.float32) for a in args))


def lanczos_spectral_partition(grid: int = 128, shortcuts: int = 2048, steps: int = 96,
                               wanted: int = 12, bisections: int = 48,
                               refinements: int = 3) -> Any:
    """Inference: the low end of the spectrum of a weighted small-world graph's
    normalized Laplacian (a 128x128 grid with random shortcuts, its matrix-vector
    product a gather and `segment_sum` over the edge list) by Lanczos with full
    reorthogonalization against the stored basis, in a `while_loop` that stops early
    when the Krylov space is exhausted (capped at `steps`); the wanted eigenvalues of the
    tridiagonal matrix by Sturm-sequence bisection (a `fori_loop` of bisections, each
    count an LDL recurrence under `lax.scan`, vectorized over the eigenvalue indices),
    their eigenvectors by inverse iteration with Thomas-algorithm solves (forward and
    reverse `lax.scan`s), Ritz vectors and residual norms, and a spectral bisection of
    the graph by the Fiedler vector's sign with its cut weight."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = grid * grid

    def run(src, dst, weight, start):
        degree = jax.ops.segment_sum(weight, dst, n)
        scale = lax.rsqrt(degree)

        def laplacian(x):
            y = scale * x
            return x - scale * jax.ops.segment_sum(weight * y[src], dst, n)

        def cond(state):
            j, _, _, _, beta_prev = state
            return (j < steps) & (beta_prev > 1e-5)

        def body(state):
            j, basis, alphas, betas, beta_prev = state
            v = basis[j]
            w = laplacian(v) - beta_prev * basis[jnp.maximum(j - 1, 0)] * (j > 0)
            alpha = jnp.dot(w, v)
            w = w - alpha * v
            w = w - basis.T @ (basis @ w)
            beta = jnp.linalg.norm(w)
            basis = basis.at[j + 1].set(w / jnp.maximum(beta, 1e-12))
            return j + 1, basis, alphas.at[j].set(alpha), betas.at[j].set(beta), beta

        basis = jnp.zeros((steps + 1, n)).at[0].set(start / jnp.linalg.norm(start))
        size, basis, alphas, betas, _ = lax.while_loop(
            cond, body, (jnp.int32(0), basis, jnp.zeros(steps), jnp.zeros(steps),
                         jnp.float32(1.0)))
        valid = jnp.arange(steps) < size
        diag = jnp.where(valid, alphas, 1e3)
        off = jnp.where(jnp.arange(steps) < size - 1, betas, 0.0)[:-1]

        def below(x):                                                     # (wanted,)
            def sturm(carry, xs):
                d, negatives = carry
                a, b2 = xs
                d = a - x - b2 / d
                d = jnp.where(jnp.abs(d) < 1e-12, -1e-12, d)
                return (d, negatives + (d < 0)), None

            squares = jnp.concatenate([jnp.zeros(1), off * off])
            start_d = jnp.full_like(x, 1.0)
            (_, negatives), _ = lax.scan(sturm, (start_d, jnp.zeros_like(x, jnp.int32)),
                                         (diag, squares))
            return negatives

        order = jnp.arange(wanted)
        radius = jnp.max(jnp.abs(diag) + jnp.concatenate([jnp.abs(off), jnp.zeros(1)])
                         + jnp.concatenate([jnp.zeros(1), jnp.abs(off)]))

        def bisect(_, bounds):
            lo, hi = bounds
            mid = 0.5 * (lo + hi)
            more = below(mid) > order
            return jnp.where(more, lo, mid), jnp.where(more, mid, hi)

        lo, hi = lax.fori_loop(0, bisections, bisect, (jnp.full(wanted, -radius),
                                                        jnp.full(wanted, radius)))
        theta = 0.5 * (lo + hi)

        def solve(vectors):                         # (T - theta I) y = vectors, (steps, wanted)
            shifted = diag[:, None] - theta[None, :] + 1e-7
            sub = jnp.concatenate([jnp.zeros(1), off])[:, None]
            sup = jnp.concatenate([off, jnp.zeros(1)])[:, None]

            def forward(carry, xs):
                c_prev, d_prev = carry
                a, b, c, r = xs
                denom = b - a * c_prev
                denom = jnp.where(jnp.abs(denom) < 1e-12, 1e-12, denom)
                c_new, d_new = c / denom, (r - a * d_prev) / denom
                return (c_new, d_new), (c_new, d_new)

            zero = jnp.zeros(wanted)
            _, (cp, dp) = lax.scan(forward, (zero, zero),
                                   (jnp.broadcast_to(sub, shifted.shape), shifted,
                                    jnp.broadcast_to(sup, shifted.shape), vectors))

            def backward(following, xs):
                c, d = xs
                x = d - c * following
                return x, x

            _, y = lax.scan(backward, zero, (cp, dp), reverse=True)
            return y / jnp.linalg.norm(y, axis=0, keepdims=True)

        y = lax.fori_loop(0, refinements, lambda _, v: solve(v), jnp.ones((steps, wanted)))
        ritz = (basis[:steps] * valid[:, None]).T @ y                     # (n, wanted)
        residual = jnp.linalg.norm(jax.vmap(laplacian, 1, 1)(ritz) - ritz * theta, axis=0)
        fiedler = ritz[:, 1] * scale
        side = fiedler > jnp.median(fiedler)
        cut = 0.5 * jnp.sum(jnp.where(side[src] != side[dst], weight, 0.0))
        return theta, residual, size, cut, jnp.sum(side)

    rng = np.random.default_rng(14)
    ids = np.arange(n).reshape(grid, grid)
    pairs = [np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()], 1),
             np.stack([ids[:-1].ravel(), ids[1:].ravel()], 1),
             rng.integers(0, n, (shortcuts, 2))]
    edges = np.concatenate(pairs)
    edges = edges[edges[:, 0] != edges[:, 1]]
    weight = rng.uniform(0.5, 1.5, len(edges))
    src = np.concatenate([edges[:, 0], edges[:, 1]])
    dst = np.concatenate([edges[:, 1], edges[:, 0]])
    return jax.jit(run).lower(jnp.asarray(src, jnp.int32), jnp.asarray(dst, jnp.int32),
                              jnp.asarray(np.concatenate([weight, weight]), jnp.float32),
                              jnp.asarray(rng.standard_normal(n), jnp.float32))


def columnar_analytics(lineitems: int = 1 << 19, orders: int = 1 << 17, customers: int = 1 << 14,
                       parts: int = 1 << 15, nations: int = 25) -> Any:
    """Inference: four decision-support queries in the style of TPC-H over columnar
    tables held as arrays: a pricing summary (a date filter, then sums, averages and
    counts per return flag and line status by `segment_sum`); a shipping-priority query
    (line items joined to their orders by `searchsorted` on the sorted order keys and to
    customers by a gather, filtered by market segment and dates, revenue per order by
    `segment_sum` and the ten largest by `top_k`); revenue per nation over a year; large
    orders by a having-clause on summed quantities; and the count of distinct parts
    bought per nation by a `sort` of composite keys and a segmented count of key
    changes."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    def run(l_order, l_part, l_qty, l_price, l_disc, l_tax, l_ship, l_flag, l_status,
            o_key, o_cust, o_date, o_total, c_nation, c_segment):
        keep = l_ship <= 2300
        group = l_flag * 2 + l_status
        disc_price = l_price * (1.0 - l_disc)
        columns = jnp.stack([l_qty, l_price, disc_price, disc_price * (1.0 + l_tax), l_disc,
                             jnp.ones_like(l_qty)], -1)
        sums = jax.ops.segment_sum(jnp.where(keep[:, None], columns, 0.0), group, 6)
        summary = jnp.concatenate([sums[:, :4], sums[:, :2] / sums[:, 5:],
                                   sums[:, 4:5] / sums[:, 5:], sums[:, 5:]], -1)

        order = jnp.searchsorted(o_key, l_order)
        date, cust = o_date[order], o_cust[order]
        nation = c_nation[cust]
        keep3 = (c_segment[cust] == 1) & (date < 1200) & (l_ship > 1200)
        revenue = jax.ops.segment_sum(jnp.where(keep3, disc_price, 0.0), order, orders,
                                      indices_are_sorted=True)
        top_revenue, top_orders = jax.lax.top_k(revenue, 10)

        year = (date >= 730) & (date < 1095)
        by_nation = jax.ops.segment_sum(jnp.where(year, disc_price, 0.0), nation, nations)

        quantity = jax.ops.segment_sum(l_qty, order, orders, indices_are_sorted=True)
        large = quantity > 300.0
        large_total = jnp.sum(jnp.where(large, o_total, 0.0))

        key = jnp.sort(nation * parts + l_part)
        fresh = jnp.concatenate([jnp.ones(1, bool), key[1:] != key[:-1]])
        distinct = jax.ops.segment_sum(fresh.astype(jnp.int32), key // parts, nations,
                                       indices_are_sorted=True)
        return (summary, top_revenue, o_key[top_orders], by_nation, jnp.sum(large),
                large_total, distinct)

    rng = np.random.default_rng(15)
    o_key = np.sort(rng.choice(orders * 4, orders, replace=False))
    o_cust = rng.integers(0, customers, orders)
    o_date = rng.integers(0, 2400, orders)
    lines = rng.multinomial(lineitems - orders, np.full(orders, 1.0 / orders)) + 1
    owner = np.repeat(np.arange(orders), lines)
    qty = rng.integers(1, 51, lineitems).astype(np.float32)
    price = qty * rng.uniform(900, 2000, lineitems)
    ship = o_date[owner] + rng.integers(1, 122, lineitems)
    o_total = np.bincount(owner, price, orders)
    args = [(o_key[owner], np.int32), (rng.integers(0, parts, lineitems), np.int32),
            (qty, np.float32), (price, np.float32),
            (rng.integers(0, 11, lineitems) / 100.0, np.float32),
            (rng.integers(0, 9, lineitems) / 100.0, np.float32), (ship, np.int32),
            (rng.integers(0, 3, lineitems), np.int32), ((ship > 1800).astype(int), np.int32),
            (o_key, np.int32), (o_cust, np.int32), (o_date, np.int32),
            (o_total, np.float32), (rng.integers(0, nations, customers), np.int32),
            (rng.integers(0, 5, customers), np.int32)]
    return jax.jit(run).lower(*(jnp.asarray(a, t) for a, t in args))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "dueling_double_dqn/128x84x84x4": dueling_double_dqn,
    "scale_hyperprior_codec/4x128px-n64-m96": scale_hyperprior_codec,
    "autoformer_forecast/16x96+48x7": autoformer_forecast,
    "topk_sparse_autoencoder/256x512-8192-k32-bf16": topk_sparse_autoencoder,
    "spiking_conv_net/8x16-steps-32px": spiking_conv_net,
    "darts_supernet/8x32px-c12-3-cells": darts_supernet,
    "pgd_adversarial_training/16x32px-5-steps-bf16": pgd_adversarial_training,
    "tree_lstm_sentiment/32x32-leaves-h192": tree_lstm_sentiment,
    "relation_network/8x75px-625-pairs-bf16": relation_network,
    "siamese_tracker/8x127+255px": siamese_tracker,
    "ising_quench_statevector/16-qubits-64-steps": ising_quench_statevector,
    "mppi_quadrotor/1024x48-25-cycles": mppi_quadrotor,
    "fmcw_radar_cfar/8x128x8x256": fmcw_radar_cfar,
    "lanczos_spectral_partition/16384-nodes-96-steps": lanczos_spectral_partition,
    "columnar_analytics/524288-lineitems": columnar_analytics,
}
