"""The fifteenth never-seen set: programs written on 2026-11-27, after the fourteenth set
(benchmarks/never_seen_14/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-15` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
fourteen never-seen sets has; as in the sets before it, a few training steps are large (a
few gigaflops each) and the rest mid-sized, and two of them differentiate convolutions
inside a loop body. Ten are training steps (forward, loss, backward and an optimizer
update). A RAFT-style optical-flow network encodes two frames to a quarter of their
resolution (instance norm for the matching features, batch norm for the context),
correlates every pixel's features with every other pixel's into a volume and a 2x2-pooled
copy of it, and refines the flow six times in a `lax.scan`: each refinement looks the
volumes up bilinearly in a 7x7 window around the current match by gathers, encodes the
correlations and the flow by convolutions, updates a convolutional GRU, predicts a flow
increment and a convex-upsampling mask (a softmax over each coarse pixel's 3x3
neighbours) and adds its full-resolution L1 error, weighted by 0.8 per refinement before
the last; the matches are detached between refinements. A variational network
reconstructs four-times undersampled MRI: the zero-filled image from complex 2-D FFTs
passes six cascades in a `lax.scan` over stacked weights, each a learned step down the
data-consistency gradient (an FFT, the masked residual against the measured k-space, an
inverse FFT) plus a three-layer CNN over the real and imaginary channels, under an L1
loss on the magnitude. An orthogonal RNN with modReLU units (the sign of a pre-activation
times a ReLU of its magnitude plus a bias) learns the adding problem over 160 steps of a
`lax.scan`. A domain-adversarial network (DANN) learns glyph classes from labelled grey
glyphs and unlabelled glyphs blended into colourful textures, its domain classifier
reading a LeNet-style extractor's features through a gradient reversal layer (a
`custom_vjp` that negates and scales the gradient). A multi-task scene network in
bfloat16 shares an encoder-decoder of 3x3 convolutions with batch norm, repetition
upsampling and a skip connection among segmentation, log-depth and surface-normal heads;
the three task gradients come from one `vjp` whose pullback runs under `vmap` over the
rows of an identity. A neural additive model sums the outputs of 24 per-feature networks
(ExU units with exponentiated weights and clipping, then ReLU layers, every feature at
once by einsums over stacked weights) into the logit of a binary outcome, with a penalty
on the feature contributions. A decoder-only language model in bfloat16, with ALiBi
distance penalties in place of position embeddings, RMS norm and SwiGLU layers, is
fine-tuned on padded instruction and response pairs, the loss masked to the response
tokens by per-example prompt and total lengths. A PoolFormer in bfloat16 mixes tokens by
nothing but 3x3 average pooling minus identity (padding left out of the count), with
one-group group norms, layer scales started at 1e-5 and 4x GELU MLPs over three stages.
DnCNN predicts the noise of grey patches by eight 3x3 convolution layers with batch norm
and subtracts it. An FT-Transformer classifies tabular rows after turning every numeric
feature (by its own weight vector and bias) and every categorical one (by an offset row
of a shared embedding table) into a token beside a CLS token, with ReGLU feed-forward
layers. Five are inference or scientific steps without a gradient: personalized PageRank
for sixteen users on a small-world graph of 8192 nodes built inside the step from a fixed
key (a ring of four neighbours each way, two per cent of the links rewired, the edges
sorted by destination), each user restarting from a softmax of embedding affinities,
power iteration by gathers and a sorted `segment_sum` in a `while_loop` that stops once no
user's vector moves by more than 1e-6 in L1 (capped at 128 iterations), then `top_k`
recommendations; DDIM sampling with classifier-free guidance, a `fori_loop` of sixteen
steps down a cosine schedule, each running a small time- and class-conditioned U-Net
(group norm, scale and shift from the condition, a strided convolution down, repetition
up) on the class and null-class copies of the images as one batch, mixing the two noise
predictions with weight 3 and clipping the implied clean image; hybrid Monte Carlo for a
lattice phi^4 theory on sixteen periodic 48x48 lattices, a `fori_loop` of 40
trajectories, each of ten leapfrog steps in an inner `fori_loop` whose forces are
`jax.grad` of the action (neighbours by `roll`) and a Metropolis test per chain, then a
susceptibility and a Binder cumulant; semi-global stereo matching of four rectified
pairs (5x5 census codes packed into uint32, Hamming costs by `population_count` over 48
disparities, int32 min-plus aggregation along four directions by `lax.scan`s with an
edge-aware penalty, winner-take-all with parabolic sub-pixel refinement, a left-right
check read off the same volume by a diagonal gather, a 3x3 median by `sort`); and t-SNE
of 512 points in 32 dimensions (each point's bandwidth by 40 rounds of bisection on its
perplexity in a `fori_loop`, then 200 iterations of gradient descent on Student-t
affinities in a `fori_loop` with early exaggeration, momentum and delta-bar-delta gains,
and the share of ten nearest neighbours kept, by two `top_k`s). The updates are all new
to these sets: Nesterov momentum with gradient-based adaptive restart (the momentum
dropped whenever the new gradient shows that the last step went uphill) on clipped
gradients, SGD with Barzilai-Borwein step sizes (the quotient of the last changes of the
weights and of the gradient, clipped and followed in log space), Cayley SGD with momentum
(the recurrent matrix kept orthogonal by a fixed-point Cayley retraction along a
skew-symmetric generator), Optimistic Adam (twice the new normalized step less the last
one), PCGrad over Adam (each task's flattened gradient projected off those of the other
tasks it conflicts with, in a random order per task), IVON (gradients taken at weights
drawn from a Gaussian posterior whose Hessian estimate comes from the reparameterization
trick), LISA (AdamW on the embeddings and the head and on two blocks redrawn at random
every twenty steps, the others frozen), Mechanic (the scale of momentum SGD's summed
updates set by six online-learning bets, without a learning rate), AdaHessian (a
Hutchinson estimate of the Hessian diagonal from a Hessian-vector product with a
Rademacher probe, forward over reverse, averaged over each kernel's taps, in place of
Adam's squared gradient) and SOAP (Adam in the eigenbases of Shampoo's two factors,
renewed every ten steps under `lax.cond` by a power-iteration step and Gram-Schmidt in a
`fori_loop`); three training steps (the multi-task network, the language model and the
PoolFormer) run in bfloat16.
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
    update(params, grads, state) -> (params, state). The state is float32 whatever the
    parameters' dtype, and every parameter keeps its own dtype."""
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

    def dot(a: Any, b: Any) -> Any:
        return sum(jnp.sum(x * y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))

    if name == "nesterov_restart":
        # Nesterov momentum with gradient-based adaptive restart (O'Donoghue and Candes):
        # gradients are clipped to global norm 1, and the momentum is dropped whenever the
        # new gradient shows that the previous step went uphill (its inner product with
        # that step is positive)
        rate, momentum, clip = 0.01, 0.9, 1.0

        def restart(params, grads, state):
            buf, last, t = state
            g = wide(grads)
            factor = jnp.minimum(1.0, clip / (jnp.sqrt(dot(g, g)) + 1e-12))
            g = tm(lambda x: factor * x, g)
            keep = jnp.where(dot(g, last) > 0.0, 0.0, momentum)
            buf = tm(lambda b, g_: keep * b + g_, buf, g)
            step = tm(lambda b, g_: -rate * (g_ + momentum * b), buf, g)
            moved = tm(lambda p, s: p.astype(f32) + s, params, step)
            return recast(params, moved), (buf, step, t + 1)
        return (lambda p: (zeros(p), zeros(p), count())), restart

    if name == "barzilai_borwein":
        # SGD with a Barzilai-Borwein step size: the quotient |s|^2 / |s . y| of the last
        # change of the weights s and of the gradient y, clipped to [1e-4, 0.5] and
        # followed a fifth of the way in log space each step (the first step takes 1e-2)
        first, low, high, follow = 1e-2, 1e-4, 0.5, 0.2

        def bb_init(params):
            return wide(params), zeros(params), jnp.full((), math.log(first), f32), count()

        def bb(params, grads, state):
            before, last, log_rate, t = state
            x, g = wide(params), wide(grads)
            s = tm(jnp.subtract, x, before)
            y = tm(jnp.subtract, g, last)
            quotient = jnp.clip(dot(s, s) / (jnp.abs(dot(s, y)) + 1e-30), low, high)
            log_rate = jnp.where(t == 0, log_rate,
                                 (1.0 - follow) * log_rate + follow * jnp.log(quotient))
            rate = jnp.exp(log_rate)
            moved = tm(lambda x_, g_: x_ - rate * g_, x, g)
            return recast(params, moved), (x, g, log_rate, t + 1)
        return bb_init, bb

    if name == "optimistic_adam":
        # Optimistic Adam (Daskalakis, Ilyas, Syrgkanis and Zeng), made for saddle-point
        # problems: each step moves twice the current bias-corrected Adam direction and
        # takes back the previous one
        rate, b1, b2 = 2e-4, 0.5, 0.999

        def oadam(params, grads, state):
            m, v, last, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            direction = tm(lambda m_, v_: (m_ / (1.0 - b1 ** n))
                           / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8), m, v)
            moved = tm(lambda p, d, l: p.astype(f32) - rate * (2.0 * d - l), params, direction,
                       last)
            return recast(params, moved), (m, v, direction, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), oadam

    if name == "lisa":
        # LISA (layerwise importance sampled AdamW): the embedding, the final norm and the
        # head always learn; of the blocks (names `l<i>_...`) two drawn at random learn for
        # twenty steps at a time while the others stand still, moments included
        period, active, rate, decay, b1, b2 = 20, 2, 3e-4, 0.01, 0.9, 0.999

        def block(key: str) -> int | None:
            head = key.split("_")[0]
            return int(head[1:]) if head[:1] == "l" and head[1:].isdigit() else None

        def lisa(params, grads, state):
            m, v, t = state
            blocks = sorted({b for b in map(block, params) if b is not None})
            draw = jax.random.uniform(jax.random.fold_in(jax.random.PRNGKey(1507), t // period),
                                      (len(blocks),))
            chosen = jnp.argsort(jnp.argsort(draw)) < active
            t = t + 1
            n = t.astype(f32)
            new_p, new_m, new_v = {}, {}, {}
            for k, p in params.items():
                g, x = grads[k].astype(f32), p.astype(f32)
                m_k = b1 * m[k] + (1.0 - b1) * g
                v_k = b2 * v[k] + (1.0 - b2) * g * g
                step = (m_k / (1.0 - b1 ** n)) / (jnp.sqrt(v_k / (1.0 - b2 ** n)) + 1e-8)
                moved = x - rate * (step + (decay * x if p.ndim >= 2 else 0.0))
                b = block(k)
                if b is not None:
                    on = chosen[blocks.index(b)]
                    m_k, v_k = jnp.where(on, m_k, m[k]), jnp.where(on, v_k, v[k])
                    moved = jnp.where(on, moved, x)
                new_p[k], new_m[k], new_v[k] = moved.astype(p.dtype), m_k, v_k
            return new_p, (new_m, new_v, t)
        return (lambda p: (zeros(p), zeros(p), count())), lisa

    if name == "mechanic":
        # Mechanic (Cutkosky, Defazio and Mehta) tuning the scale of momentum SGD: the base
        # updates add up in Delta, the weights are the starting point plus s * Delta, and
        # s is the sum of six scales, each an online-learning bet with its own discount
        # beta on the regularized inner product h of Delta with the gradient
        betas = (0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999)
        decay, s_init, momentum = 0.01, 1e-8, 0.9

        def mechanic_init(params):
            six = jnp.zeros(len(betas), f32)
            return wide(params), zeros(params), zeros(params), six, six, six, six

        def mechanic(params, grads, state):
            start, delta, buf, top, energy, reward, scales = state
            x, g = wide(params), wide(grads)
            pull = decay * jnp.sqrt(dot(g, g) / (dot(x, x) + 1e-30)) * jnp.sum(scales)
            h = dot(delta, g) + pull * dot(delta, x)
            beta = jnp.asarray(betas, f32)
            top = jnp.maximum(beta * top, jnp.abs(h))
            energy = beta * beta * energy + h * h
            reward = jnp.maximum(0.0, beta * reward - scales * h)
            scales = (s_init / len(betas) * top + reward) / (jnp.sqrt(energy) + 1e-8)
            buf = tm(lambda b, g_: momentum * b + g_, buf, g)
            delta = tm(jnp.subtract, delta, buf)
            total = jnp.sum(scales)
            moved = tm(lambda x0, d: x0 + total * d, start, delta)
            return recast(params, moved), (start, delta, buf, top, energy, reward, scales)
        return mechanic_init, mechanic

    if name == "soap":
        # SOAP (Vyas et al.): Adam run in the eigenbasis of Shampoo's two preconditioners.
        # Every weight matrix with both sides at most 256 (not a bias, not an `emb_` table)
        # keeps L = E[G G^T] and R = E[G^T G] and bases Q_L and Q_R, renewed every ten steps
        # under `lax.cond` by one power-iteration step and a right-looking modified
        # Gram-Schmidt in a `fori_loop`; its first moment stays in the original space, the
        # second lives in the rotated one. Other tensors take Adam; decoupled weight decay
        largest, period, rate, decay, b1, b2, shampoo = 256, 10, 3e-3, 1e-2, 0.95, 0.95, 0.95

        def rotated(key: str, p: Any) -> bool:
            return (p.ndim == 2 and max(p.shape) <= largest and not key.endswith("_b")
                    and not key.startswith("emb_"))

        def orthonormal(a):
            cols = a.shape[1]

            def column(j, a):
                c = lax.dynamic_index_in_dim(a, j, 1, keepdims=False)
                c = c * lax.rsqrt(jnp.sum(c * c) + 1e-30)
                later = jnp.arange(cols) > j
                a = a - jnp.outer(c, jnp.where(later, c @ a, 0.0))
                return lax.dynamic_update_index_in_dim(a, c, j, 1)
            return lax.fori_loop(0, cols, column, a)

        def renew(bases, left, right):
            def power(cov, q):
                ridge = 1e-4 * jnp.trace(cov) / cov.shape[0] + 1e-30
                return orthonormal(cov @ q + ridge * q)
            return power(left, bases[0]), power(right, bases[1])

        def soap_init(params):
            slots = {}
            for k, p in params.items():
                if rotated(k, p):
                    rows, cols = p.shape
                    slots[k] = (jnp.eye(rows, dtype=f32), jnp.eye(cols, dtype=f32),
                                jnp.zeros((rows, rows), f32), jnp.zeros((cols, cols), f32),
                                jnp.zeros(p.shape, f32), jnp.zeros(p.shape, f32))
                else:
                    slots[k] = (jnp.zeros(p.shape, f32), jnp.zeros(p.shape, f32))
            return slots, count()

        def soap(params, grads, state):
            slots, t = state
            refresh = t % period == 0
            t = t + 1
            c1, c2 = 1.0 - b1 ** t.astype(f32), 1.0 - b2 ** t.astype(f32)
            new_p, new_s = {}, {}
            for k, p in params.items():
                g, x = grads[k].astype(f32), p.astype(f32)
                if len(slots[k]) == 2:
                    m = b1 * slots[k][0] + (1.0 - b1) * g
                    v = b2 * slots[k][1] + (1.0 - b2) * g * g
                    step = (m / c1) / (jnp.sqrt(v / c2) + 1e-8)
                    new_s[k] = (m, v)
                else:
                    q_left, q_right, left, right, m, v = slots[k]
                    left = shampoo * left + (1.0 - shampoo) * (g @ g.T)
                    right = shampoo * right + (1.0 - shampoo) * (g.T @ g)
                    q_left, q_right = lax.cond(refresh, renew, lambda q, *_: q,
                                               (q_left, q_right), left, right)
                    m = b1 * m + (1.0 - b1) * g
                    v = b2 * v + (1.0 - b2) * jnp.square(q_left.T @ g @ q_right)
                    turned = (q_left.T @ (m / c1) @ q_right) / (jnp.sqrt(v / c2) + 1e-8)
                    step = q_left @ turned @ q_right.T
                    new_s[k] = (q_left, q_right, left, right, m, v)
                moved = x - rate * (step + (decay * x if p.ndim >= 2 else 0.0))
                new_p[k] = moved.astype(p.dtype)
            return new_p, (new_s, t)
        return soap_init, soap

    if name == "cayley_sgd":
        # Cayley SGD with momentum (Li, Li and Todorovic): a matrix named `orth_...` stays
        # orthogonal: its momentum becomes a skew-symmetric generator W, the step length is
        # capped at 2 q / |W|, and the Cayley retraction is approximated by two fixed-point
        # rounds Y = X + a/2 W (X + Y); every other tensor takes momentum SGD
        rate, momentum, q = 0.05, 0.9, 0.5

        def cayley(params, grads, state):
            new_p, new_m = {}, {}
            for k, x in params.items():
                mom = momentum * state[k] - grads[k]
                if k.startswith("orth_"):
                    rough = mom @ x.T - 0.5 * x @ (x.T @ mom @ x.T)
                    w = rough - rough.T
                    mom = w @ x
                    alpha = jnp.minimum(rate, 2.0 * q / (jnp.sqrt(jnp.sum(w * w)) + 1e-8))
                    y = x + alpha * mom
                    for _ in range(2):
                        y = x + 0.5 * alpha * (w @ (x + y))
                    new_p[k] = y
                else:
                    new_p[k] = x + rate * mom
                new_m[k] = mom
            return new_p, new_m
        return (lambda p: zeros(p)), cayley

    raise ValueError(name)


def _train(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    """One training step (loss, gradients, the named update) lowered for `batch`, the
    optimizer state entering by its shapes alone (`eval_shape` of its init)."""
    import jax

    init, update = _update_rule(rule)

    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state)
        return params, state, loss

    return jax.jit(step).lower(params, jax.eval_shape(init, params), *batch)


def _layer_norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """Normalization over `axes` with float32 statistics, returned in x's dtype: layer
    norm by default, instance or group norm over spatial axes, batch norm over all but the
    channels."""
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


def _group_norm(x: Any, gain: Any, shift: Any, groups: int) -> Any:
    """Group normalization of NHWC x: float32 statistics over H, W and the channels of
    each group, returned in x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    b, h, w, c = x.shape
    x32 = x.astype(jnp.float32).reshape(b, h, w, groups, c // groups)
    mean = x32.mean((1, 2, 4), keepdims=True)
    var = jnp.square(x32 - mean).mean((1, 2, 4), keepdims=True)
    normed = ((x32 - mean) * lax.rsqrt(var + 1e-5)).reshape(b, h, w, c)
    return (normed * gain.astype(jnp.float32) + shift.astype(jnp.float32)).astype(x.dtype)


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean softmax cross-entropy of integer labels, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], -1))


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME") -> Any:
    """A 2-D NHWC convolution."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), padding, dimension_numbers=_NHWC)


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


def _bilinear(image: Any, rows: Any, cols: Any) -> Any:
    """numpy: samples of an (H, W, C) image at float positions, clamped to its border."""
    import numpy as np

    h, w = image.shape[:2]
    rows, cols = np.clip(rows, 0, h - 1.001), np.clip(cols, 0, w - 1.001)
    r0, c0 = np.floor(rows).astype(int), np.floor(cols).astype(int)
    fr, fc = (rows - r0)[..., None], (cols - c0)[..., None]
    return ((1 - fr) * ((1 - fc) * image[r0, c0] + fc * image[r0, c0 + 1])
            + fr * ((1 - fc) * image[r0 + 1, c0] + fc * image[r0 + 1, c0 + 1]))


def raft_optical_flow(batch: int = 2, side: int = 64, iterations: int = 6, radius: int = 3,
                      hidden: int = 48, context: int = 32, feature: int = 64,
                      gamma: float = 0.8) -> Any:
    """RAFT-style optical flow (Teed and Deng): a feature encoder with instance norm (a
    strided 7x7 and a strided 3x3 convolution to a quarter of the resolution) runs on both
    frames and a context encoder with batch norm on the first; an all-pairs correlation
    volume of their features and its 2x2-pooled copy are looked up bilinearly in a 7x7
    window around every pixel's current match (four gathers per level). Six refinements
    in a `lax.scan` each encode the looked-up correlations and the flow by convolutions,
    update a convolutional GRU (3x3 gates over the hidden state, motion and context),
    predict a flow increment and a convex-upsampling mask, and upsample the flow to full
    resolution as a softmax-weighted mix of each coarse pixel's 3x3 neighbours; the match
    coordinates are detached between refinements. Loss: the L1 errors of every
    refinement against the true flow, weighted 0.8^(6 - i); Nesterov momentum with
    gradient-based adaptive restart."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    grid = side // 4
    window = 2 * radius + 1
    taps = 2 * window * window
    shapes: dict[str, tuple[int, ...]] = {}

    def conv(k: str, size: int, cin: int, cout: int) -> None:
        shapes.update({k: (size, size, cin, cout), f"{k}_b": (cout,)})

    for enc in ("f", "c"):
        for i, (size, cin, cout) in enumerate(((7, 3, 32), (3, 32, 48), (3, 48, 64))):
            conv(f"{enc}{i}", size, cin, cout)
            shapes.update({f"{enc}{i}_n_g": (cout,), f"{enc}{i}_n_b": (cout,)})
    conv("f_out", 1, 64, feature)
    conv("c_out", 1, 64, hidden + context)
    conv("corr1", 1, taps, 64)
    conv("corr2", 3, 64, 48)
    conv("flow1", 7, 2, 32)
    conv("flow2", 3, 32, 16)
    conv("motion", 3, 64, hidden - 2)
    conv("gru_zr", 3, 2 * hidden + context, 2 * hidden)
    conv("gru_q", 3, 2 * hidden + context, hidden)
    conv("head1", 3, hidden, 64)
    conv("head2", 3, 64, 2)
    conv("mask1", 3, hidden, 64)
    conv("mask2", 1, 64, 9 * 16)
    p = _params(shapes, seed=1, scale=math.sqrt(2.0))
    p["head2"] = p["head2"] * 0.05

    def layer(p, k, x, stride=1):
        return _conv(x, p[k], stride) + p[f"{k}_b"]

    def encoder(p, k, x, axes):
        for i, stride in enumerate((2, 2, 1)):
            x = layer(p, f"{k}{i}", x, stride)
            x = jax.nn.relu(_layer_norm(x, p[f"{k}{i}_n_g"], p[f"{k}{i}_n_b"], axes))
        return layer(p, f"{k}_out", x)

    offsets = np.stack(np.meshgrid(np.arange(-radius, radius + 1), np.arange(-radius, radius + 1),
                                   indexing="ij"), -1).reshape(-1, 2).astype(np.float32)

    def lookup(volume, centre):
        """Bilinear samples of each pixel's own correlation map (n, H, W) in a window
        around its centre (n, 2), zero outside the map."""
        n, h, w = volume.shape
        flat = volume.reshape(n, h * w)
        where_ = centre[:, None, :] + offsets
        r0, c0 = jnp.floor(where_[..., 0]), jnp.floor(where_[..., 1])
        fr, fc = where_[..., 0] - r0, where_[..., 1] - c0
        r0, c0 = r0.astype(jnp.int32), c0.astype(jnp.int32)

        def at(r, c):
            inside = (r >= 0) & (r < h) & (c >= 0) & (c < w)
            index = jnp.clip(r, 0, h - 1) * w + jnp.clip(c, 0, w - 1)
            return jnp.where(inside, jnp.take_along_axis(flat, index, 1), 0.0)

        return ((1 - fr) * ((1 - fc) * at(r0, c0) + fc * at(r0, c0 + 1))
                + fr * ((1 - fc) * at(r0 + 1, c0) + fc * at(r0 + 1, c0 + 1)))

    def upsample(flow, mask):
        b = flow.shape[0]
        mask = jax.nn.softmax(mask.reshape(b, grid, grid, 9, 4, 4), 3)
        padded = jnp.pad(4.0 * flow, ((0, 0), (1, 1), (1, 1), (0, 0)))
        around = jnp.stack([padded[:, i:i + grid, j:j + grid] for i in range(3) for j in range(3)],
                           3)
        up = jnp.einsum("bijkuv,bijkc->biujvc", mask, around)
        return up.reshape(b, 4 * grid, 4 * grid, 2)

    rows, cols = np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij")
    base = jnp.asarray(np.stack([rows, cols], -1), jnp.float32)

    def loss_fn(p, first, second, truth):
        b = first.shape[0]
        f = encoder(p, "f", jnp.concatenate([first, second]), (1, 2))
        corr = jnp.einsum("bijc,bxyc->bijxy", f[:b], f[b:]) / math.sqrt(feature)
        level0 = corr.reshape(b * grid * grid, grid, grid)
        level1 = level0.reshape(-1, grid // 2, 2, grid // 2, 2).mean((2, 4))
        start = encoder(p, "c", first, (0, 1, 2))
        h0, ctx = jnp.tanh(start[..., :hidden]), jax.nn.relu(start[..., hidden:])

        def refine(carry, weight):
            h, coords, total = carry
            coords = lax.stop_gradient(coords)
            flow = coords - base
            centre = coords.reshape(-1, 2)
            looked = jnp.concatenate([lookup(level0, centre), lookup(level1, centre / 2.0)], -1)
            c = jax.nn.relu(layer(p, "corr1", looked.reshape(b, grid, grid, taps)))
            c = jax.nn.relu(layer(p, "corr2", c))
            m = jax.nn.relu(layer(p, "flow2", jax.nn.relu(layer(p, "flow1", flow))))
            motion = jnp.concatenate(
                [jax.nn.relu(layer(p, "motion", jnp.concatenate([c, m], -1))), flow], -1)
            x = jnp.concatenate([motion, ctx], -1)
            z, r = jnp.split(jax.nn.sigmoid(layer(p, "gru_zr", jnp.concatenate([h, x], -1))), 2,
                             -1)
            q = jnp.tanh(layer(p, "gru_q", jnp.concatenate([r * h, x], -1)))
            h = (1.0 - z) * h + z * q
            coords = coords + layer(p, "head2", jax.nn.relu(layer(p, "head1", h)))
            mask = 0.25 * layer(p, "mask2", jax.nn.relu(layer(p, "mask1", h)))
            error = jnp.mean(jnp.abs(upsample(coords - base, mask) - truth))
            return (h, coords, total + weight * error), None

        weights = jnp.asarray(gamma ** np.arange(iterations - 1, -1, -1), jnp.float32)
        coords = jnp.broadcast_to(base, (b, grid, grid, 2))
        (_, _, total), _ = lax.scan(refine, (h0, coords, jnp.zeros(())), weights)
        return total

    rng = np.random.default_rng(1)
    first = _smooth_images(rng, batch, side, 3, 6.0)
    flow = 3.0 * _smooth_images(rng, batch, side, 2, 1.5)
    r, c = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    second = np.stack([_bilinear(first[i], r - flow[i, ..., 0], c - flow[i, ..., 1])
                       for i in range(batch)])
    second = second + 0.02 * rng.standard_normal(second.shape)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("nesterov_restart", loss_fn, p, f32(first), f32(second), f32(flow))


def varnet_mri(batch: int = 2, side: int = 64, cascades: int = 6, hidden: int = 32,
               acceleration: int = 4, centre: int = 8) -> Any:
    """A variational network for accelerated MRI (in the manner of Hammernik et al.):
    k-space sampled in a fixed mask of phase-encoding columns (the eight central ones
    and a random quarter of the rest) is zero-filled, inverted by a complex 2-D FFT and
    scaled by its mean magnitude; six cascades in a `lax.scan` over their stacked weights
    each take a learned step down the data-consistency gradient (an FFT, the masked
    residual against the measured k-space, an inverse FFT) and add the output of a
    three-layer CNN over the real and imaginary channels. Loss: the L1 error of the
    magnitude image; SGD with Barzilai-Borwein step sizes."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    stages = []
    for t in range(cascades):
        w = _params({"w1": (3, 3, 2, hidden), "w1_b": (hidden,), "w2": (3, 3, hidden, hidden),
                     "w2_b": (hidden,), "w3": (3, 3, hidden, 2), "w3_b": (2,)}, seed=20 + t,
                    scale=math.sqrt(2.0))
        w["w3"] = w["w3"] * 0.1
        w["eta_g"] = jnp.ones(())
        stages.append(w)
    p = jax.tree.map(lambda *ws: jnp.stack(ws), *stages)

    rng = np.random.default_rng(2)
    lines = rng.uniform(size=side) < 1.0 / acceleration
    lines[side // 2 - centre // 2:side // 2 + centre // 2] = True
    mask = jnp.asarray(np.fft.ifftshift(lines).astype(np.float32))

    def fft(x):
        return jnp.fft.fft2(x, norm="ortho")

    def ifft(x):
        return jnp.fft.ifft2(x, norm="ortho")

    def loss_fn(p, kspace, target):
        y = lax.complex(kspace[..., 0], kspace[..., 1]) * mask
        x = ifft(y)
        scale = jnp.mean(jnp.abs(x), (1, 2), keepdims=True) + 1e-6
        x, y = x / scale, y / scale

        def cascade(x, w):
            consistency = ifft(mask * (fft(x) - y))
            h = jnp.stack([jnp.real(x), jnp.imag(x)], -1)
            h = jax.nn.relu(_conv(h, w["w1"]) + w["w1_b"])
            h = jax.nn.relu(_conv(h, w["w2"]) + w["w2_b"])
            r = _conv(h, w["w3"]) + w["w3_b"]
            return x - w["eta_g"] * consistency + lax.complex(r[..., 0], r[..., 1]), None

        x, _ = lax.scan(cascade, x, p)
        return jnp.mean(jnp.abs(jnp.abs(x) * scale - target))

    images = np.clip(0.5 + 0.2 * _smooth_images(rng, batch, side, 1, 5.0)[..., 0], 0.0, None)
    yy, xx = np.mgrid[0:side, 0:side] / side - 0.5
    for i in range(batch):
        for _ in range(5):
            cy, cx = rng.uniform(-0.3, 0.3, 2)
            a, b = rng.uniform(0.05, 0.2, 2)
            images[i][((yy - cy) / a) ** 2 + ((xx - cx) / b) ** 2 < 1] += rng.uniform(0.2, 0.6)
    images[:, (yy ** 2 + xx ** 2) > 0.22] = 0.0
    phase = 0.5 * _smooth_images(rng, batch, side, 1, 1.5)[..., 0]
    kspace = np.fft.fft2(images * np.exp(1j * phase), norm="ortho")
    kspace += 0.01 * (rng.standard_normal(kspace.shape) + 1j * rng.standard_normal(kspace.shape))
    measured = np.stack([kspace.real, kspace.imag], -1)
    return _train("barzilai_borwein", loss_fn, p, jnp.asarray(measured, jnp.float32),
                  jnp.asarray(images, jnp.float32))


def orthogonal_rnn_adding(batch: int = 128, length: int = 160, hidden: int = 128) -> Any:
    """An orthogonal RNN on the adding problem: each sequence carries uniform values and a
    marker on two positions (one in each half), and the network must output the sum of
    the two marked values after reading all 160 steps. The recurrence h = modReLU(h W +
    x U) (the sign of the pre-activation times a ReLU of its magnitude plus a learned
    bias) runs in a `lax.scan` with an orthogonal W, started from the Q of a QR
    factorization; mean squared error; Cayley SGD with momentum keeps W on the orthogonal
    group, the other weights take momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rng = np.random.default_rng(3)
    q, r = np.linalg.qr(rng.standard_normal((hidden, hidden)))
    p = _params({"inp": (2, hidden), "mod_b": (hidden,), "out": (hidden, 1), "out_b": (1,)},
                seed=3)
    p["orth_rec"] = jnp.asarray(q * np.sign(np.diag(r)), jnp.float32)
    p["mod_b"] = jnp.full((hidden,), -0.02, jnp.float32)

    def loss_fn(p, xs, target):
        def cell(h, x):
            z = h @ p["orth_rec"] + x @ p["inp"]
            return jnp.sign(z) * jax.nn.relu(jnp.abs(z) + p["mod_b"]), None

        h, _ = lax.scan(cell, jnp.zeros((xs.shape[1], hidden)), xs)
        predicted = (h @ p["out"] + p["out_b"])[:, 0]
        return jnp.mean(jnp.square(predicted - target))

    values = rng.uniform(size=(length, batch))
    marks = np.zeros((length, batch))
    firsts = rng.integers(0, length // 2, batch)
    seconds = rng.integers(length // 2, length, batch)
    marks[firsts, np.arange(batch)] = 1.0
    marks[seconds, np.arange(batch)] = 1.0
    target = (values * marks).sum(0)
    xs = np.stack([values, marks], -1)
    return _train("cayley_sgd", loss_fn, p, jnp.asarray(xs, jnp.float32),
                  jnp.asarray(target, jnp.float32))


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


def dann_adaptation(batch: int = 32, side: int = 28, classes: int = 10,
                    reversal: float = 0.3) -> Any:
    """Domain-adversarial training (DANN, Ganin and Lempitsky) from a labelled source
    domain of grey glyphs on black to an unlabelled target domain of the same glyphs
    blended into colourful textures (as MNIST-M is made from MNIST): a LeNet-style
    feature extractor (5x5 convolutions of 32 and 48 maps, each followed by 2x2 max
    pooling) feeds a label classifier (two hidden layers of 100) on the source images
    and, through a gradient reversal layer (a `custom_vjp` that passes features forward
    and multiplies their gradient by -0.3), a domain classifier on both; cross-entropy of
    the labels plus binary cross-entropy of the domains; Optimistic Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    flat = 4 * 4 * 48
    shapes: dict[str, tuple[int, ...]] = {
        "c1": (5, 5, 3, 32), "c1_b": (32,), "c2": (5, 5, 32, 48), "c2_b": (48,),
        "y1": (flat, 100), "y1_b": (100,), "y2": (100, 100), "y2_b": (100,),
        "y3": (100, classes), "y3_b": (classes,),
        "d1": (flat, 100), "d1_b": (100,), "d2": (100, 1), "d2_b": (1,)}
    p = _params(shapes, seed=4, scale=math.sqrt(2.0))

    @jax.custom_vjp
    def reverse(x):
        return x

    reverse.defvjp(lambda x: (x, None), lambda _, g: (-reversal * g,))

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss_fn(p, source, labels, target):
        x = jnp.concatenate([source, target])
        x = pool(jax.nn.relu(_conv(x, p["c1"], padding="VALID") + p["c1_b"]))
        x = pool(jax.nn.relu(_conv(x, p["c2"], padding="VALID") + p["c2_b"]))
        h = x.reshape(x.shape[0], flat)
        y = jax.nn.relu(h[:batch] @ p["y1"] + p["y1_b"])
        y = jax.nn.relu(y @ p["y2"] + p["y2_b"])
        label_loss = _cross_entropy(y @ p["y3"] + p["y3_b"], labels)
        d = (jax.nn.relu(reverse(h) @ p["d1"] + p["d1_b"]) @ p["d2"] + p["d2_b"])[:, 0]
        domain = jnp.concatenate([jnp.zeros(batch), jnp.ones(batch)])
        return label_loss + jnp.mean(jax.nn.softplus(d) - domain * d)

    rng = np.random.default_rng(4)
    glyphs = _glyphs(rng, classes, side)

    def draw(labels):
        out = np.stack([np.roll(glyphs[k], tuple(rng.integers(-2, 3, 2)), (0, 1))
                        for k in labels])
        return out + 0.05 * rng.standard_normal(out.shape)

    labels = rng.integers(0, classes, batch)
    source = np.repeat(draw(labels)[..., None], 3, -1)
    texture = 0.5 + 0.25 * _smooth_images(rng, batch, side, 3, 5.0)
    target = np.abs(texture - draw(rng.integers(0, classes, batch))[..., None])
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("optimistic_adam", loss_fn, p, f32(source), jnp.asarray(labels, jnp.int32),
                  f32(target))


def multitask_pcgrad(batch: int = 4, side: int = 48, classes: int = 7) -> Any:
    """Multi-task scene understanding in bfloat16 with PCGrad (gradient surgery, Yu et
    al.): a shared encoder of 3x3 convolutions with batch norm (16 to 64 channels, two
    strided) and a decoder that upsamples by repetition and joins a skip connection feed
    three heads at half resolution, upsampled to full: semantic segmentation into seven
    classes (cross-entropy), log-depth (L1) and surface normals (one minus the cosine to
    the true normal). The three task losses are differentiated by one `vjp` whose
    pullback runs under `vmap` over the rows of an identity; each task's flattened
    gradient is projected off the gradients of the other tasks it conflicts with
    (negative inner product), in a random order per task, and the projected gradients are
    summed and applied by Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    plan = (("e0", 3, 16, 1), ("e1", 16, 32, 2), ("e2", 32, 32, 1), ("e3", 32, 64, 2),
            ("e4", 64, 64, 1), ("dec", 96, 32, 1))
    heads = (("seg", classes), ("depth", 1), ("normal", 3))
    shapes: dict[str, tuple[int, ...]] = {}
    for k, cin, cout, _ in plan:
        shapes.update({k: (3, 3, cin, cout), f"{k}_bn_g": (cout,), f"{k}_bn_b": (cout,)})
    for k, out in heads:
        shapes.update({f"{k}_h": (3, 3, 32, 16), f"{k}_h_b": (16,), f"{k}_o": (1, 1, 16, out),
                       f"{k}_o_b": (out,)})
    p = _params(shapes, seed=5, dtype=bf16, scale=math.sqrt(2.0))

    def up(x):
        return jnp.repeat(jnp.repeat(x, 2, 1), 2, 2)

    def task_losses(p, images, labels, depth, normals):
        x = images
        skip = None
        for k, _, _, stride in plan[:-1]:
            x = jax.nn.relu(_batch_norm(_conv(x, p[k], stride), p[f"{k}_bn_g"], p[f"{k}_bn_b"]))
            if k == "e2":
                skip = x
        x = jnp.concatenate([up(x), skip], -1)
        x = jax.nn.relu(_batch_norm(_conv(x, p["dec"]), p["dec_bn_g"], p["dec_bn_b"]))
        out = {}
        for k, _ in heads:
            h = jax.nn.relu(_conv(x, p[f"{k}_h"]) + p[f"{k}_h_b"])
            out[k] = up(_conv(h, p[f"{k}_o"]) + p[f"{k}_o_b"]).astype(f32)
        seg = _cross_entropy(out["seg"], labels)
        far = jnp.mean(jnp.abs(out["depth"][..., 0] - depth))
        n = out["normal"] / jnp.sqrt(jnp.sum(jnp.square(out["normal"]), -1, keepdims=True) + 1e-6)
        facing = jnp.mean(1.0 - jnp.sum(n * normals, -1))
        return jnp.stack([seg, far, facing])

    rate, b1, b2 = 1e-3, 0.9, 0.999
    leaves, treedef = jax.tree.flatten(p)
    sizes = [leaf.size for leaf in leaves]
    cuts = np.cumsum(sizes)[:-1].tolist()

    def step(params, state, images, labels, depth, normals, key):
        m, v, t = state
        losses, pull = jax.vjp(lambda q: task_losses(q, images, labels, depth, normals), params)
        (per_task,) = jax.vmap(pull)(jnp.eye(3, dtype=f32))
        flat = jnp.concatenate([g.astype(f32).reshape(3, -1) for g in jax.tree.leaves(per_task)],
                               1)
        squares = jnp.sum(flat * flat, -1)
        order = jnp.argsort(jax.random.uniform(key, (3, 3)), -1)
        merged = jnp.zeros(flat.shape[1], f32)
        for i in range(3):
            g = flat[i]
            for k in range(3):
                j = order[i, k]
                other = flat[j]
                inner = g @ other
                g = g - jnp.where((j != i) & (inner < 0.0), inner / (squares[j] + 1e-20),
                                  0.0) * other
            merged = merged + g
        grads = treedef.unflatten([piece.reshape(leaf.shape) for piece, leaf in
                                   zip(jnp.split(merged, cuts), leaves)])
        t = t + 1
        n = t.astype(f32)
        m = jax.tree.map(lambda m_, g: b1 * m_ + (1.0 - b1) * g, m, grads)
        v = jax.tree.map(lambda v_, g: b2 * v_ + (1.0 - b2) * g * g, v, grads)
        params = jax.tree.map(
            lambda w, m_, v_: (w.astype(f32) - rate * (m_ / (1.0 - b1 ** n))
                               / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8)).astype(w.dtype),
            params, m, v)
        return params, (m, v, t), losses

    rng = np.random.default_rng(5)
    regions = _smooth_images(rng, batch, side, classes, 3.0)
    labels = regions.argmax(-1)
    colours = rng.uniform(-1.0, 1.0, (classes, 3))
    images = colours[labels] + 0.3 * _smooth_images(rng, batch, side, 3, 8.0)
    depth = 1.0 + 0.3 * _smooth_images(rng, batch, side, 1, 2.0)[..., 0] + 0.1 * labels
    dy, dx = np.gradient(depth, axis=(1, 2))
    normals = np.stack([-dx * side, -dy * side, np.ones_like(depth)], -1)
    normals /= np.linalg.norm(normals, axis=-1, keepdims=True)
    state = jax.tree.map(lambda w: jnp.zeros(w.shape, f32), (p, p)) + (jnp.zeros((), jnp.int32),)
    return jax.jit(step).lower(p, state, jnp.asarray(images, bf16), jnp.asarray(labels, jnp.int32),
                               jnp.asarray(depth, f32), jnp.asarray(normals, f32),
                               jax.random.PRNGKey(5))


def neural_additive_ivon(batch: int = 1024, features: int = 24, units: int = 64,
                         hidden: tuple[int, int] = (64, 32), samples: int = 50000) -> Any:
    """A neural additive model (Agarwal et al.) for a binary outcome from 24 tabular
    features: each feature has its own small network, an ExU layer of 64 units (inputs
    shifted, scaled by the exponential of weights started near 4 and clipped to [0, 1])
    followed by layers of 64 and 32 ReLU units and one output, all features' networks
    evaluated together by einsums over stacked weights; the logit is the sum of the
    feature contributions and a bias; binary cross-entropy plus a penalty on the squared
    contributions. IVON (improved variational online Newton, Shen et al.): the gradient is
    taken at weights drawn from the Gaussian posterior (standard deviation 1 / sqrt(N (h +
    delta)) for N = 50000 examples), and the Hessian estimate h is updated from the
    reparameterization trick (gradient times noise over standard deviation) with a
    correction that keeps it positive."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    first, second = hidden
    rng = np.random.default_rng(6)
    p = {"exu_w": jnp.asarray(4.0 + 0.5 * rng.standard_normal((features, units)), jnp.float32),
         "exu_c": jnp.asarray(rng.uniform(-2.0, 2.0, (features, units)), jnp.float32)}
    for k, (cin, cout) in (("fc0", (units, first)), ("fc1", (first, second)), ("fc2", (second, 1))):
        p[k] = jnp.asarray(rng.standard_normal((features, cin, cout)) * math.sqrt(2.0 / cin),
                           jnp.float32)
        p[f"{k}_b"] = jnp.zeros((features, cout), jnp.float32)
    p["bias_b"] = jnp.zeros((), jnp.float32)

    def loss_fn(p, x, y):
        h = jnp.clip((x[..., None] - p["exu_c"]) * jnp.exp(p["exu_w"]), 0.0, 1.0)
        h = jax.nn.relu(jnp.einsum("bfu,fuv->bfv", h, p["fc0"]) + p["fc0_b"])
        h = jax.nn.relu(jnp.einsum("bfu,fuv->bfv", h, p["fc1"]) + p["fc1_b"])
        parts = (jnp.einsum("bfu,fuv->bfv", h, p["fc2"]) + p["fc2_b"])[..., 0]
        logit = parts.sum(-1) + p["bias_b"]
        return jnp.mean(jax.nn.softplus(logit) - y * logit) + 1e-3 * jnp.mean(parts * parts)

    rate, b1, b2, delta, h0 = 0.1, 0.9, 0.99999, 1e-4, 0.1
    tm = jax.tree.map

    def step(mean, state, x, y):
        avg, hess, t = state
        t = t + 1
        leaves, treedef = jax.tree.flatten(mean)
        key = jax.random.fold_in(jax.random.PRNGKey(1506), t)
        noise = treedef.unflatten([jax.random.normal(jax.random.fold_in(key, i), leaf.shape)
                                   for i, leaf in enumerate(leaves)])
        sigma = tm(lambda h: lax.rsqrt(samples * (h + delta)), hess)
        drawn = tm(lambda m, s, e: m + s * e, mean, sigma, noise)
        loss, g = jax.value_and_grad(loss_fn)(drawn, x, y)
        guess = tm(lambda g_, e, s: g_ * e / s, g, noise, sigma)
        avg = tm(lambda a, g_: b1 * a + (1.0 - b1) * g_, avg, g)
        hess = tm(lambda h, e: b2 * h + (1.0 - b2) * e
                  + 0.5 * (1.0 - b2) ** 2 * jnp.square(h - e) / (h + delta), hess, guess)
        unbiased = 1.0 - b1 ** t.astype(jnp.float32)
        mean = tm(lambda m, a, h: m - rate * (a / unbiased + delta * m) / (h + delta), mean, avg,
                  hess)
        return mean, (avg, hess, t), loss

    x = rng.standard_normal((batch, features))
    x[:, ::3] = np.round(x[:, ::3] * 2) / 2                     # a few coarse features
    effects = [np.sin(2 * x[:, 0]), x[:, 1] ** 2 - 1, np.maximum(x[:, 2], 0), -np.abs(x[:, 3]),
               np.tanh(3 * x[:, 4]), 0.5 * x[:, 5]]
    logit = sum(effects) + 0.3 * rng.standard_normal(batch)
    y = (rng.uniform(size=batch) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    state = (tm(jnp.zeros_like, p), tm(lambda w: jnp.full(w.shape, h0, jnp.float32), p),
             jnp.zeros((), jnp.int32))
    return jax.jit(step).lower(p, state, jnp.asarray(x, jnp.float32), jnp.asarray(y))


def alibi_sft_lisa(batch: int = 4, length: int = 96, vocab: int = 2048, width: int = 128,
                   heads: int = 4, layers: int = 4, ff: int = 352) -> Any:
    """Supervised fine-tuning of a decoder-only language model in bfloat16 with ALiBi
    (no position embeddings; each head adds a linear penalty on query-key distance, slopes
    a geometric series) under a causal mask, RMS normalization and SwiGLU feed-forward
    layers. Each example is an instruction and its response (a word-for-word rewrite of
    the instruction through a fixed vocabulary map), padded; the next-token loss counts
    only response tokens, found from per-example prompt and total lengths. LISA
    (layerwise importance sampling): embeddings and head always learn, two of the four
    blocks drawn at random every twenty steps learn by AdamW and the others stand
    still."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"emb": (vocab, width)}
    for l in range(layers):
        shapes.update({f"l{l}_n1_g": (width,), f"l{l}_qkv": (width, 3 * width),
                       f"l{l}_o": (width, width), f"l{l}_n2_g": (width,),
                       f"l{l}_gate": (width, ff), f"l{l}_up": (width, ff),
                       f"l{l}_down": (ff, width)})
    shapes.update({"final_g": (width,), "head": (width, vocab)})
    p = _params(shapes, seed=7, dtype=bf16)
    p["emb"] = (p["emb"].astype(jnp.float32) * math.sqrt(vocab / width) * 0.5).astype(bf16)
    slopes = jnp.asarray(2.0 ** (-8.0 * np.arange(1, heads + 1) / heads), jnp.float32)
    position = np.arange(length)
    gap = jnp.asarray(position[:, None] - position[None, :], jnp.float32)

    def loss_fn(p, tokens, prompt, size):
        b = tokens.shape[0]
        bias = jnp.where(gap >= 0, -slopes[:, None, None] * gap, -1e9)
        x = p["emb"][tokens]
        for l in range(layers):
            h = _rms_norm(x, p[f"l{l}_n1_g"])
            q, k, v = jnp.split((h @ p[f"l{l}_qkv"]).reshape(b, length, 3 * heads, dh), 3, 2)
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / math.sqrt(dh)
            weights = jax.nn.softmax(scores + bias, -1).astype(bf16)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, length, width) \
                @ p[f"l{l}_o"]
            h = _rms_norm(x, p[f"l{l}_n2_g"])
            x = x + (jax.nn.silu(h @ p[f"l{l}_gate"]) * (h @ p[f"l{l}_up"])) @ p[f"l{l}_down"]
        logits = (_rms_norm(x, p["final_g"]) @ p["head"]).astype(jnp.float32)[:, :-1]
        nll = -jnp.take_along_axis(jax.nn.log_softmax(logits, -1), tokens[:, 1:, None], -1)[..., 0]
        after = jnp.arange(1, length)[None, :]
        learn = ((after >= prompt[:, None]) & (after < size[:, None])).astype(jnp.float32)
        return jnp.sum(nll * learn) / jnp.maximum(jnp.sum(learn), 1.0)

    rng = np.random.default_rng(7)
    rewrite = rng.permutation(vocab - 4) + 4
    tokens = np.zeros((batch, length), np.int64)
    prompt = np.zeros(batch, np.int64)
    size = np.zeros(batch, np.int64)
    for i in range(batch):
        n = int(rng.integers(12, (length - 3) // 2))
        words = rng.integers(4, vocab, n)
        row = np.concatenate([[1], words, [2], rewrite[words - 4], [3]])
        tokens[i, :len(row)] = row
        prompt[i], size[i] = n + 2, len(row)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("lisa", loss_fn, p, i32(tokens), i32(prompt), i32(size))


def poolformer_mechanic(batch: int = 16, side: int = 32, classes: int = 10,
                        widths: tuple[int, ...] = (64, 128, 256),
                        depths: tuple[int, ...] = (2, 2, 2)) -> Any:
    """A PoolFormer (MetaFormer, Yu et al.) classifier in bfloat16: a strided 3x3 stem,
    three stages of 64, 128 and 256 channels joined by strided 3x3 convolutions, and
    blocks whose token mixer is nothing but 3x3 average pooling (padding left out of the
    count) minus its input, each half of a block behind a one-group group norm and scaled
    per channel by a layer scale started at 1e-5, with a 4x GELU MLP as the channel mixer;
    global pooling, layer norm and a linear head; cross-entropy. Mechanic sets the scale
    of momentum SGD's updates by its online-learning bets, without a learning rate."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16 = jnp.bfloat16
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_b": (widths[0],)}
    for s, (c, d) in enumerate(zip(widths, depths)):
        if s:
            shapes.update({f"down{s}": (3, 3, widths[s - 1], c), f"down{s}_b": (c,)})
        for i in range(d):
            k = f"s{s}b{i}"
            shapes.update({f"{k}_n1_g": (c,), f"{k}_n1_b": (c,), f"{k}_scale1": (c,),
                           f"{k}_n2_g": (c,), f"{k}_n2_b": (c,), f"{k}_fc1": (c, 4 * c),
                           f"{k}_fc1_b": (4 * c,), f"{k}_fc2": (4 * c, c), f"{k}_fc2_b": (c,),
                           f"{k}_scale2": (c,)})
    shapes.update({"final_g": (widths[-1],), "final_b": (widths[-1],),
                   "head": (widths[-1], classes), "head_b": (classes,)})
    p = _params(shapes, seed=8, dtype=bf16)
    for k in shapes:
        if "_scale" in k:
            p[k] = jnp.full(shapes[k], 1e-5, bf16)

    def pool_minus(x):
        window, strides = (1, 3, 3, 1), (1, 1, 1, 1)
        total = lax.reduce_window(x, np.zeros((), x.dtype), lax.add, window, strides, "SAME")
        ones = jnp.ones((1,) + x.shape[1:3] + (1,), jnp.float32)
        counted = lax.reduce_window(ones, 0.0, lax.add, window, strides, "SAME")
        return total / counted.astype(x.dtype) - x

    def loss_fn(p, images, labels):
        x = _conv(images, p["stem"], 2) + p["stem_b"]
        for s, d in enumerate(depths):
            if s:
                x = _conv(x, p[f"down{s}"], 2) + p[f"down{s}_b"]
            for i in range(d):
                k = f"s{s}b{i}"
                h = _group_norm(x, p[f"{k}_n1_g"], p[f"{k}_n1_b"], 1)
                x = x + p[f"{k}_scale1"] * pool_minus(h)
                h = _group_norm(x, p[f"{k}_n2_g"], p[f"{k}_n2_b"], 1)
                h = jax.nn.gelu(h @ p[f"{k}_fc1"] + p[f"{k}_fc1_b"]) @ p[f"{k}_fc2"]
                x = x + p[f"{k}_scale2"] * (h + p[f"{k}_fc2_b"])
        x = x.astype(jnp.float32).mean((1, 2)).astype(bf16)
        x = _layer_norm(x, p["final_g"], p["final_b"])
        return _cross_entropy(x @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(8)
    labels = rng.integers(0, classes, batch)
    prototypes = _smooth_images(rng, classes, side, 3, 3.0)
    images = 0.8 * prototypes[labels] + 0.6 * _smooth_images(rng, batch, side, 3, 8.0)
    return _train("mechanic", loss_fn, p, jnp.asarray(images, bf16),
                  jnp.asarray(labels, jnp.int32))


def dncnn_adahessian(batch: int = 6, side: int = 32, depth: int = 8, channels: int = 32,
                     sigma: float = 0.2) -> Any:
    """DnCNN (Zhang et al.) blind Gaussian denoising: eight 3x3 convolution layers of 32
    channels (ReLU, batch norm in the six middle ones) predict the noise of a grey patch,
    the residual being the estimate; half the mean squared error against the clean patch.
    AdaHessian (Yao et al.): a Hutchinson estimate of the Hessian diagonal from a
    Hessian-vector product with a Rademacher probe (forward-over-reverse, `jvp` of the
    gradient, so the step holds a second derivative), averaged in magnitude over each
    convolution kernel's 3x3 taps, stands in for Adam's squared gradient (Hessian power
    one), with decoupled weight decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {"c0": (3, 3, 1, channels), "c0_b": (channels,)}
    for i in range(1, depth - 1):
        shapes.update({f"c{i}": (3, 3, channels, channels), f"c{i}_bn_g": (channels,),
                       f"c{i}_bn_b": (channels,)})
    shapes[f"c{depth - 1}"] = (3, 3, channels, 1)
    p = _params(shapes, seed=9, scale=math.sqrt(2.0))

    def loss_fn(p, noisy, clean):
        x = jax.nn.relu(_conv(noisy, p["c0"]) + p["c0_b"])
        for i in range(1, depth - 1):
            x = jax.nn.relu(_batch_norm(_conv(x, p[f"c{i}"]), p[f"c{i}_bn_g"], p[f"c{i}_bn_b"]))
        noise = _conv(x, p[f"c{depth - 1}"])
        return 0.5 * jnp.mean(jnp.square(noisy - noise - clean))

    rate, b1, b2, decay = 0.05, 0.9, 0.999, 1e-4
    tm = jax.tree.map

    def step(params, state, noisy, clean):
        m, v, t = state
        leaves, treedef = jax.tree.flatten(params)
        key = jax.random.fold_in(jax.random.PRNGKey(1509), t)
        probe = treedef.unflatten([jax.random.rademacher(jax.random.fold_in(key, i), leaf.shape,
                                                         jnp.float32)
                                   for i, leaf in enumerate(leaves)])
        (loss, grads), (_, product) = jax.jvp(
            lambda q: jax.value_and_grad(loss_fn)(q, noisy, clean), (params,), (probe,))

        def curvature(z, hz):
            d = jnp.abs(z * hz)
            return jnp.broadcast_to(d.mean((0, 1), keepdims=True), d.shape) if d.ndim == 4 else d

        diagonal = tm(curvature, probe, product)
        t = t + 1
        n = t.astype(jnp.float32)
        m = tm(lambda m_, g: b1 * m_ + (1.0 - b1) * g, m, grads)
        v = tm(lambda v_, d: b2 * v_ + (1.0 - b2) * d * d, v, diagonal)
        params = tm(lambda w, m_, v_: w - rate * ((m_ / (1.0 - b1 ** n))
                                                  / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-4)
                                                  + decay * w), params, m, v)
        return params, (m, v, t), loss

    rng = np.random.default_rng(9)
    clean = 0.5 + 0.2 * _smooth_images(rng, batch, side, 1, 5.0)
    yy, xx = np.mgrid[0:side, 0:side]
    for i in range(batch):
        for _ in range(3):
            cy, cx, r = rng.uniform(0, side), rng.uniform(0, side), rng.uniform(3, 10)
            clean[i][np.hypot(yy - cy, xx - cx) < r] = rng.uniform(0.0, 1.0)
    noisy = clean + sigma * rng.standard_normal(clean.shape)
    state = (tm(jnp.zeros_like, p), tm(jnp.zeros_like, p), jnp.zeros((), jnp.int32))
    return jax.jit(step).lower(p, state, jnp.asarray(noisy, jnp.float32),
                               jnp.asarray(clean, jnp.float32))


def ft_transformer_soap(batch: int = 128, numeric: int = 12,
                        cardinalities: tuple[int, ...] = (8, 16, 5, 32, 64, 12),
                        width: int = 64, heads: int = 8, layers: int = 3, classes: int = 4) -> Any:
    """An FT-Transformer (Gorishniy et al.) for tabular classification: every numeric
    feature becomes a token by its own weight vector and bias, every categorical feature
    by a row of one shared embedding table (offset by feature) plus its bias, and a
    learned CLS token is appended; three pre-norm blocks (the first without its attention
    norm) of eight-head attention and a ReGLU feed-forward layer, then layer norm, ReLU
    and a linear head on the CLS token; cross-entropy. SOAP: Adam in the slowly renewed
    eigenbases of Shampoo's preconditioners for every weight matrix."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    ff = (4 * width) // 3
    dh = width // heads
    tokens = numeric + len(cardinalities) + 1
    shapes: dict[str, tuple[int, ...]] = {
        "num_w": (numeric, width), "num_b": (numeric, width),
        "emb_cat": (sum(cardinalities), width), "cat_b": (len(cardinalities), width),
        "cls": (1, width)}
    for l in range(layers):
        shapes.update({f"l{l}_n1_g": (width,), f"l{l}_n1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_qkv_b": (3 * width,),
                       f"l{l}_o": (width, width), f"l{l}_o_b": (width,),
                       f"l{l}_n2_g": (width,), f"l{l}_n2_b": (width,),
                       f"l{l}_ff1": (width, 2 * ff), f"l{l}_ff1_b": (2 * ff,),
                       f"l{l}_ff2": (ff, width), f"l{l}_ff2_b": (width,)})
    shapes.update({"out_n_g": (width,), "out_n_b": (width,), "out": (width, classes),
                   "out_b": (classes,)})
    p = _params(shapes, seed=10)
    p["num_w"] = p["num_w"] * math.sqrt(numeric / width)
    p["cls"] = p["cls"] / math.sqrt(width)
    offsets = jnp.asarray(np.concatenate([[0], np.cumsum(cardinalities)[:-1]]), jnp.int32)

    def loss_fn(p, numbers, categories, labels):
        b = numbers.shape[0]
        x = jnp.concatenate([numbers[..., None] * p["num_w"] + p["num_b"],
                             p["emb_cat"][categories + offsets] + p["cat_b"],
                             jnp.broadcast_to(p["cls"], (b, 1, width))], 1)
        for l in range(layers):
            h = x if l == 0 else _layer_norm(x, p[f"l{l}_n1_g"], p[f"l{l}_n1_b"])
            q, k, v = jnp.split((h @ p[f"l{l}_qkv"] + p[f"l{l}_qkv_b"])
                                .reshape(b, tokens, 3 * heads, dh), 3, 2)
            weights = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(dh), -1)
            mixed = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, tokens, width)
            x = x + mixed @ p[f"l{l}_o"] + p[f"l{l}_o_b"]
            h = _layer_norm(x, p[f"l{l}_n2_g"], p[f"l{l}_n2_b"])
            a, gate = jnp.split(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"], 2, -1)
            x = x + (jax.nn.relu(a) * gate) @ p[f"l{l}_ff2"] + p[f"l{l}_ff2_b"]
        h = jax.nn.relu(_layer_norm(x[:, -1], p["out_n_g"], p["out_n_b"]))
        return _cross_entropy(h @ p["out"] + p["out_b"], labels)

    rng = np.random.default_rng(10)
    mixing = rng.standard_normal((numeric, numeric)) / math.sqrt(numeric)
    numbers = rng.standard_normal((batch, numeric)) @ mixing
    categories = np.stack([rng.integers(0, c, batch) for c in cardinalities], 1)
    teacher = rng.standard_normal((numeric, classes))
    effects = [rng.standard_normal((c, classes)) for c in cardinalities]
    score = np.tanh(numbers) @ teacher + sum(e[categories[:, i]] for i, e in enumerate(effects))
    labels = np.argmax(score + rng.gumbel(size=score.shape), -1)
    return _train("soap", loss_fn, p, jnp.asarray(numbers, jnp.float32),
                  jnp.asarray(categories, jnp.int32), jnp.asarray(labels, jnp.int32))


def personalized_pagerank(nodes: int = 8192, neighbours: int = 4, queries: int = 16,
                          embed: int = 16, rewire: float = 0.02, teleport: float = 0.1,
                          tolerance: float = 1e-6, max_iterations: int = 128, top: int = 20,
                          sharpness: float = 2.0) -> Any:
    """Graph analytics: personalized PageRank for sixteen users on a small-world graph of
    8192 nodes, built inside the step from a fixed key (a ring on which every node links
    to its four nearest neighbours each way, two per cent of the links rewired to random
    nodes, the edges sorted by destination). Each user's restart distribution is a
    softmax of the affinities of their embedding with the node embeddings; the walk (a
    gather of sources, weights one over the out-degree, a sorted `segment_sum` into
    destinations) restarts with probability 0.1, and power iteration runs in a
    `while_loop` until no user's vector changes by more than 1e-6 in L1 (capped at 128
    iterations). The top twenty nodes and their scores per user, how many nodes beat the
    uniform share, the iteration count and the last change come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(node_vectors, query_vectors):
        k_rewire, k_target = jax.random.split(jax.random.PRNGKey(1511))
        hops = jnp.concatenate([jnp.arange(1, neighbours + 1), -jnp.arange(1, neighbours + 1)])
        src = jnp.repeat(jnp.arange(nodes), 2 * neighbours)
        ring = (src + jnp.tile(hops, nodes)) % nodes
        dst = jnp.where(jax.random.bernoulli(k_rewire, rewire, ring.shape),
                        jax.random.randint(k_target, ring.shape, 0, nodes), ring)
        order = jnp.argsort(dst)
        src, dst = src[order], dst[order]
        degree = jax.ops.segment_sum(jnp.ones(src.shape, jnp.float32), src, nodes)
        weight = (1.0 / degree[src])[:, None]
        affinity = query_vectors @ node_vectors.T / math.sqrt(embed)
        restart = jax.nn.softmax(sharpness * affinity, -1).T                         # (N, Q)

        def unfinished(carry):
            i, _, change = carry
            return (change > tolerance) & (i < max_iterations)

        def sweep(carry):
            i, x, _ = carry
            walked = jax.ops.segment_sum(x[src] * weight, dst, nodes, indices_are_sorted=True)
            fresh = teleport * restart + (1.0 - teleport) * walked
            return i + 1, fresh, jnp.max(jnp.sum(jnp.abs(fresh - x), 0))

        iterations, rank, change = lax.while_loop(
            unfinished, sweep, (jnp.int32(0), restart, jnp.float32(jnp.inf)))
        scores, best = lax.top_k(rank.T, top)
        reach = jnp.sum(rank > 1.0 / nodes, 0)
        return best, scores, reach, iterations, change

    rng = np.random.default_rng(11)
    node_vectors = rng.standard_normal((nodes, embed))
    query_vectors = rng.standard_normal((queries, embed))
    return jax.jit(run).lower(jnp.asarray(node_vectors, jnp.float32),
                              jnp.asarray(query_vectors, jnp.float32))


def ddim_guided_sampler(samples: int = 4, side: int = 16, steps: int = 16, classes: int = 10,
                        guidance: float = 3.0, base: int = 24, horizon: int = 1000) -> Any:
    """Inference: class-conditional image generation by DDIM (deterministic, eta = 0)
    with classifier-free guidance: a `fori_loop` of sixteen steps down a cosine noise
    schedule, each evaluating a small U-Net (weights from a fixed seed, passed in) on the
    current images twice, with their class and with the null class, as one batch of eight,
    mixing the two noise predictions with guidance weight 3, clipping the implied clean
    image to [-1, 1] and stepping to the next noise level. The U-Net: sinusoidal time
    features through an MLP plus a class embedding condition every residual block by a
    scale and shift after group norm; one strided 3x3 convolution down (24 to 48
    channels), repetition up, a skip concatenation and a 3x3 output convolution. The
    images and their 8-bit quantization come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    width = 4 * base
    shapes: dict[str, tuple[int, ...]] = {
        "time1": (base, width), "time1_b": (width,), "time2": (width, width), "time2_b": (width,),
        "label": (classes + 1, width), "in": (3, 3, 3, base), "in_b": (base,),
        "down": (3, 3, base, 2 * base), "down_b": (2 * base,),
        "merge": (3, 3, 3 * base, base), "merge_b": (base,),
        "out_n_g": (base,), "out_n_b": (base,), "out": (3, 3, base, 3), "out_b": (3,)}
    blocks = (("r0", base), ("r1", 2 * base), ("r2", 2 * base), ("r3", base))
    for k, c in blocks:
        shapes.update({f"{k}_n1_g": (c,), f"{k}_n1_b": (c,), f"{k}_c1": (3, 3, c, c),
                       f"{k}_c1_b": (c,), f"{k}_film": (width, 2 * c), f"{k}_film_b": (2 * c,),
                       f"{k}_n2_g": (c,), f"{k}_n2_b": (c,), f"{k}_c2": (3, 3, c, c),
                       f"{k}_c2_b": (c,)})
    p = _params(shapes, seed=12)

    def residual(p, k, x, cond):
        h = _conv(jax.nn.silu(_group_norm(x, p[f"{k}_n1_g"], p[f"{k}_n1_b"], 8)), p[f"{k}_c1"])
        scale, shift = jnp.split(cond @ p[f"{k}_film"] + p[f"{k}_film_b"], 2, -1)
        h = _group_norm(h + p[f"{k}_c1_b"], p[f"{k}_n2_g"], p[f"{k}_n2_b"], 8)
        h = h * (1.0 + scale[:, None, None]) + shift[:, None, None]
        return x + _conv(jax.nn.silu(h), p[f"{k}_c2"]) + p[f"{k}_c2_b"]

    half = base // 2
    frequencies = jnp.asarray(np.exp(-math.log(10000.0) * np.arange(half) / half), jnp.float32)

    def unet(p, x, t, labels):
        angle = t * frequencies
        features = jnp.broadcast_to(jnp.concatenate([jnp.sin(angle), jnp.cos(angle)]),
                                    (x.shape[0], base))
        cond = jax.nn.silu(features @ p["time1"] + p["time1_b"]) @ p["time2"] + p["time2_b"]
        cond = jax.nn.silu(cond + p["label"][labels])
        h0 = residual(p, "r0", _conv(x, p["in"]) + p["in_b"], cond)
        h1 = _conv(h0, p["down"], 2) + p["down_b"]
        h1 = residual(p, "r2", residual(p, "r1", h1, cond), cond)
        h = jnp.concatenate([jnp.repeat(jnp.repeat(h1, 2, 1), 2, 2), h0], -1)
        h = residual(p, "r3", _conv(h, p["merge"]) + p["merge_b"], cond)
        h = jax.nn.silu(_group_norm(h, p["out_n_g"], p["out_n_b"], 8))
        return _conv(h, p["out"]) + p["out_b"]

    grid = np.linspace(0.0, 1.0, horizon + 1)
    alpha = np.cos((grid + 0.008) / 1.008 * np.pi / 2) ** 2
    alpha = np.clip(alpha / alpha[0], 1e-5, 1.0)
    times = np.linspace(horizon, 0, steps, endpoint=False).round().astype(int)
    now = jnp.asarray(alpha[times], jnp.float32)
    after = jnp.asarray(np.append(alpha[times[1:]], 1.0), jnp.float32)
    stamps = jnp.asarray(times, jnp.float32)

    def run(p, noise, labels):
        n = noise.shape[0]
        both = jnp.concatenate([labels, jnp.full((n,), classes, labels.dtype)])

        def denoise(i, x):
            a, a_next = now[i], after[i]
            eps = unet(p, jnp.concatenate([x, x]), stamps[i], both)
            eps = eps[n:] + guidance * (eps[:n] - eps[n:])
            clean = jnp.clip((x - jnp.sqrt(1.0 - a) * eps) / jnp.sqrt(a), -1.0, 1.0)
            eps = (x - jnp.sqrt(a) * clean) / jnp.sqrt(1.0 - a)
            return jnp.sqrt(a_next) * clean + jnp.sqrt(1.0 - a_next) * eps

        images = lax.fori_loop(0, steps, denoise, noise)
        pixels = jnp.clip(jnp.round((images + 1.0) * 127.5), 0, 255).astype(jnp.uint8)
        return images, pixels

    rng = np.random.default_rng(12)
    noise = rng.standard_normal((samples, side, side, 3))
    labels = rng.integers(0, classes, samples)
    return jax.jit(run).lower(p, jnp.asarray(noise, jnp.float32), jnp.asarray(labels, jnp.int32))


def hmc_phi4_lattice(chains: int = 16, side: int = 48, trajectories: int = 40,
                     leapfrog: int = 10, kappa: float = 0.18, coupling: float = 0.02,
                     epsilon: float = 0.1) -> Any:
    """Scientific: hybrid Monte Carlo for a scalar phi^4 field theory on sixteen periodic
    48x48 lattices (hopping parameter 0.18, quartic coupling 0.02): a `fori_loop` of 40
    trajectories, each drawing Gaussian momenta, integrating Hamilton's equations by ten
    leapfrog steps in an inner `fori_loop` whose forces are `jax.grad` of the lattice
    action (neighbour products by `roll`), and accepting or rejecting each chain's
    proposal by the Metropolis test on the change of energy. The fields, a trace of
    magnetization, action density and acceptance per trajectory, the acceptance rates,
    and the susceptibility and Binder cumulant over the second half of the run come
    back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    volume = side * side

    def action(phi):
        hop = jnp.roll(phi, -1, 1) + jnp.roll(phi, -1, 2)
        square = phi * phi
        return jnp.sum(-2.0 * kappa * phi * hop + square + coupling * jnp.square(square - 1.0),
                       (1, 2))

    force = jax.grad(lambda phi: jnp.sum(action(phi)))

    def run(field):
        base = jax.random.PRNGKey(1513)

        def trajectory(n, carry):
            phi, accepted, trace = carry
            k_momentum, k_test = jax.random.split(jax.random.fold_in(base, n))
            momentum = jax.random.normal(k_momentum, phi.shape)
            before = action(phi) + 0.5 * jnp.sum(momentum * momentum, (1, 2))
            momentum = momentum - 0.5 * epsilon * force(phi)

            def leap(_, state):
                q, m = state
                q = q + epsilon * m
                return q, m - epsilon * force(q)

            q, momentum = lax.fori_loop(0, leapfrog - 1, leap, (phi, momentum))
            q = q + epsilon * momentum
            momentum = momentum - 0.5 * epsilon * force(q)
            after = action(q) + 0.5 * jnp.sum(momentum * momentum, (1, 2))
            accept = jnp.log(jax.random.uniform(k_test, (chains,))) < before - after
            phi = jnp.where(accept[:, None, None], q, phi)
            row = jnp.stack([jnp.mean(phi, (1, 2)), action(phi) / volume,
                             accept.astype(jnp.float32)], -1)
            return phi, accepted + accept, trace.at[n].set(row)

        start = (field, jnp.zeros(chains, jnp.int32), jnp.zeros((trajectories, chains, 3)))
        phi, accepted, trace = lax.fori_loop(0, trajectories, trajectory, start)
        magnet = jnp.abs(trace[trajectories // 2:, :, 0])
        second = jnp.mean(magnet ** 2, 0)
        susceptibility = volume * (second - jnp.mean(magnet, 0) ** 2)
        binder = 1.0 - jnp.mean(magnet ** 4, 0) / (3.0 * second ** 2)
        return phi, trace, accepted / trajectories, susceptibility, binder

    rng = np.random.default_rng(13)
    field = 0.5 * rng.standard_normal((chains, side, side))
    return jax.jit(run).lower(jnp.asarray(field, jnp.float32))


def semi_global_matching(pairs: int = 4, height: int = 128, width: int = 160,
                         disparities: int = 48, p1: int = 8, p2: int = 96) -> Any:
    """Vision: stereo disparity by semi-global matching (Hirschmueller) for four
    rectified pairs: 5x5 census transforms packed into uint32 by shifts and ORs, a
    matching cost per pixel and disparity from `population_count` of XORed codes (48
    disparities, out-of-view ones at the maximum), costs aggregated along four directions
    by `lax.scan`s over rows and columns of the int32 min-plus recursion (a penalty of 8
    for a step of one disparity and an edge-aware penalty, 96 divided by one plus the
    intensity change, for larger jumps), winner-take-all by `argmin`, sub-pixel parabola
    fits from gathered neighbours, a left-right consistency check against the right
    view's winners (read off the same volume by a diagonal gather) and a 3x3 median
    filter by `sort`. The disparities (-1 where inconsistent) and the fraction kept per
    pair come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    column = jnp.arange(width)

    def census(image):
        padded = jnp.pad(image, ((0, 0), (2, 2), (2, 2)), mode="edge")
        code = jnp.zeros(image.shape, jnp.uint32)
        bit = 0
        for dy in range(5):
            for dx in range(5):
                if (dy, dx) != (2, 2):
                    darker = padded[:, dy:dy + height, dx:dx + width] < image
                    code = code | (darker.astype(jnp.uint32) << jnp.uint32(bit))
                    bit += 1
        return code

    def run(left, right):
        codes, other = census(left), census(right)
        shifted = jnp.pad(other, ((0, 0), (0, 0), (disparities, 0)))
        cost = jnp.stack([jnp.where(column >= d, lax.population_count(
            codes ^ shifted[:, :, disparities - d:disparities - d + width]), 24)
            for d in range(disparities)], -1).astype(jnp.int32)
        grey = jnp.clip(jnp.round(left * 32.0 + 128.0), 0, 255).astype(jnp.int32)

        def aggregate(axis, backwards):
            c, g = jnp.moveaxis(cost, axis, 0), jnp.moveaxis(grey, axis, 0)
            if backwards:
                c, g = c[::-1], g[::-1]

            def step(carry, inputs):
                previous, previous_grey = carry
                here, here_grey = inputs
                least = previous.min(-1, keepdims=True)
                jump = jnp.maximum(p1 + 1, p2 // (1 + jnp.abs(here_grey - previous_grey)))
                wall = jnp.full(least.shape, 1 << 20, jnp.int32)
                lower = jnp.concatenate([wall, previous[..., :-1]], -1)
                upper = jnp.concatenate([previous[..., 1:], wall], -1)
                smooth = jnp.minimum(jnp.minimum(previous, jnp.minimum(lower, upper) + p1),
                                     least + jump[..., None])
                out = here + smooth - least
                return (out, here_grey), out

            _, rest = lax.scan(step, (c[0], g[0]), (c[1:], g[1:]))
            path = jnp.concatenate([c[:1], rest])
            return jnp.moveaxis(path[::-1] if backwards else path, 0, axis)

        total = sum(aggregate(axis, backwards) for axis in (1, 2) for backwards in (False, True))
        best = jnp.argmin(total, -1)

        def at(d):
            index = jnp.clip(d, 0, disparities - 1)[..., None]
            return jnp.take_along_axis(total, index, -1)[..., 0].astype(jnp.float32)

        below, centre, above = at(best - 1), at(best), at(best + 1)
        curve = below - 2.0 * centre + above
        inner = (best > 0) & (best < disparities - 1) & (curve > 0)
        disparity = best + jnp.where(inner, (below - above) / (2.0 * jnp.maximum(curve, 1.0)), 0.0)
        diagonal = jnp.clip(column[:, None] + jnp.arange(disparities)[None, :], 0, width - 1)
        right_best = jnp.argmin(jnp.take_along_axis(total, jnp.broadcast_to(diagonal, total.shape),
                                                    2), -1)
        back = jnp.take_along_axis(right_best, jnp.clip(column - best, 0, width - 1), 2)
        valid = jnp.abs(best - back) <= 1
        padded = jnp.pad(disparity, ((0, 0), (1, 1), (1, 1)), mode="edge")
        around = jnp.stack([padded[:, i:i + height, j:j + width] for i in range(3)
                            for j in range(3)], -1)
        median = jnp.sort(around, -1)[..., 4]
        return jnp.where(valid, median, -1.0), jnp.mean(valid.astype(jnp.float32), (1, 2))

    rng = np.random.default_rng(14)
    texture = _smooth_images(rng, pairs, width + disparities, 1, 20.0)[..., 0]
    texture = texture[:, :height]
    depth = np.zeros((pairs, height, width))
    yy, xx = np.mgrid[0:height, 0:width]
    for i in range(pairs):
        depth[i] = 6.0 + 10.0 * yy / height                            # a receding floor
        for _ in range(3):                                              # boxes in front
            y0, x0 = rng.integers(0, height - 32), rng.integers(0, width - 40)
            depth[i, y0:y0 + 32, x0:x0 + 40] = rng.uniform(20.0, 40.0)
    left = texture[:, :, :width]
    right = np.stack([_bilinear(texture[i][..., None], yy.astype(float), xx + depth[i])[..., 0]
                      for i in range(pairs)])
    right = right + 0.02 * rng.standard_normal(right.shape)
    return jax.jit(run).lower(jnp.asarray(left, jnp.float32), jnp.asarray(right, jnp.float32))


def tsne_embedding(points: int = 512, dims: int = 32, perplexity: float = 30.0,
                   iterations: int = 200, exaggerated: int = 60, exaggeration: float = 12.0,
                   search: int = 40, rate: float = 100.0, neighbours: int = 10) -> Any:
    """Data analysis: a t-SNE embedding of 512 points in 32 dimensions into the plane:
    each point's Gaussian bandwidth is found by 40 rounds of bisection on its log
    precision in a `fori_loop` until the conditional distribution's entropy matches a
    perplexity of 30, the conditionals are symmetrized, and 200 iterations of gradient
    descent in a `fori_loop` move the embedding (Student-t affinities from all pairwise
    distances, the gradient as a weighted sum by a matrix product, early exaggeration 12
    for the first 60 iterations, momentum 0.5 then 0.8, per-coordinate gains by the
    delta-bar-delta rule, recentring). The embedding, the final KL divergence and the
    share of each point's ten nearest neighbours that the embedding keeps (two `top_k`s)
    come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(x):
        n = x.shape[0]
        eye = jnp.eye(n, dtype=bool)
        square = jnp.sum(x * x, -1)
        dist = jnp.maximum(square[:, None] + square[None, :] - 2.0 * x @ x.T, 0.0)
        dist = dist / jnp.mean(dist)
        target = math.log(perplexity)

        def conditional(log_precision):
            logp = jax.nn.log_softmax(
                jnp.where(eye, -jnp.inf, -jnp.exp(log_precision)[:, None] * dist), -1)
            p = jnp.exp(logp)
            return p, -jnp.sum(jnp.where(eye, 0.0, p * logp), -1)

        def halve(_, bounds):
            low, high = bounds
            middle = 0.5 * (low + high)
            too_flat = conditional(middle)[1] > target
            return jnp.where(too_flat, middle, low), jnp.where(too_flat, high, middle)

        low, high = lax.fori_loop(0, search, halve, (jnp.full(n, -10.0), jnp.full(n, 10.0)))
        given = conditional(0.5 * (low + high))[0]
        p = jnp.maximum((given + given.T) / (2.0 * n), 1e-12)

        def affinities(y):
            s = jnp.sum(y * y, -1)
            kernel = jnp.where(eye, 0.0, 1.0 / (1.0 + s[:, None] + s[None, :] - 2.0 * y @ y.T))
            return kernel, jnp.maximum(kernel / jnp.sum(kernel), 1e-12)

        def descend(i, carry):
            y, update, gains = carry
            kernel, q = affinities(y)
            w = (jnp.where(i < exaggerated, exaggeration, 1.0) * p - q) * kernel
            grad = 4.0 * (jnp.sum(w, 1, keepdims=True) * y - w @ y)
            gains = jnp.maximum(jnp.where(jnp.sign(grad) != jnp.sign(update), gains + 0.2,
                                          gains * 0.8), 0.01)
            update = jnp.where(i < exaggerated, 0.5, 0.8) * update - rate * gains * grad
            y = y + update
            return y - jnp.mean(y, 0), update, gains

        start = 1e-4 * jax.random.normal(jax.random.PRNGKey(1515), (n, 2))
        y, _, _ = lax.fori_loop(0, iterations, descend,
                                (start, jnp.zeros_like(start), jnp.ones_like(start)))
        _, q = affinities(y)
        divergence = jnp.sum(p * jnp.log(p / q))
        s = jnp.sum(y * y, -1)
        flat = s[:, None] + s[None, :] - 2.0 * y @ y.T
        _, near = lax.top_k(jnp.where(eye, -jnp.inf, -dist), neighbours)
        _, near_flat = lax.top_k(jnp.where(eye, -jnp.inf, -flat), neighbours)
        kept = jnp.mean(jnp.any(near[:, :, None] == near_flat[:, None, :], -1))
        return y, divergence, kept

    rng = np.random.default_rng(15)
    centres = 3.0 * rng.standard_normal((8, dims))
    which = rng.integers(0, 8, points)
    spread = rng.uniform(0.5, 1.5, 8)[which, None]
    x = centres[which] + spread * rng.standard_normal((points, dims))
    return jax.jit(run).lower(jnp.asarray(x, jnp.float32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "raft_optical_flow/2x64px-6-refinements": raft_optical_flow,
    "varnet_mri/2x64px-4x-6-cascades": varnet_mri,
    "orthogonal_rnn_adding/128x160-h128": orthogonal_rnn_adding,
    "dann_adaptation/32+32x28px": dann_adaptation,
    "multitask_pcgrad/4x48px-3-tasks-bf16": multitask_pcgrad,
    "neural_additive_ivon/1024x24-features": neural_additive_ivon,
    "alibi_sft_lisa/4x96-d128-l4-bf16": alibi_sft_lisa,
    "poolformer_mechanic/16x32px-64-128-256-bf16": poolformer_mechanic,
    "dncnn_adahessian/6x32px-d8-c32": dncnn_adahessian,
    "ft_transformer_soap/128x18-d64-l3": ft_transformer_soap,
    "personalized_pagerank/8192x16-max128": personalized_pagerank,
    "ddim_guided_sampler/4x16px-16-steps": ddim_guided_sampler,
    "hmc_phi4_lattice/16x48x48-40x10": hmc_phi4_lattice,
    "semi_global_matching/4x128x160-d48": semi_global_matching,
    "tsne_embedding/512x32-200-iterations": tsne_embedding,
}
