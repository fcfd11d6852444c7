"""The seventeenth never-seen set: programs written on 2026-11-28, after the sixteenth set
(benchmarks/never_seen_16/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-17` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
sixteen never-seen sets has; as in the sets before it, a few training steps are large (a
few gigaflops each) and the rest mid-sized, and two of them upsample by transposed
convolutions. Ten are training steps (forward, loss, backward and an optimizer update).
The world model of Dreamer learns from sixteen-frame episodes of a sprite that four
actions move over a 32x32 scene: a strided convolutional encoder, a recurrent
state-space model in a `lax.scan` (a GRU for the deterministic state, Gaussian prior and
posterior over 32 stochastic units, reparameterized samples), a decoder of three
transposed convolutions from 4x4 to 32x32 and a reward head, under image and reward
likelihoods and a balanced KL term with free nats. CenterNet detects squares, discs and
rings as keypoints: a residual backbone with batch norm, two transposed convolutions with
skip connections back to half the input resolution, a penalty-reduced focal loss on
per-class centre heatmaps and L1 losses on sizes and offsets gathered at the centres. A
pointer-generator summarizer with coverage encodes 96 tokens by a bidirectional LSTM (two
`lax.scan`s, one reversed) and decodes 24 by teacher forcing in a `lax.scan`, mixing the
vocabulary distribution with the attention copied onto the article's words by a
scatter-add into a vocabulary extended by its out-of-vocabulary words. An Informer in
bfloat16 forecasts seven variables 24 steps ahead from 192 with ProbSparse
self-attention (a sparsity measure from logits against sampled keys, gathered; only the
`top_k` queries attend, scattered back over the mean or, masked in the decoder, the
`cumsum` running mean of the values), a distilling convolution and max pooling between
its encoder layers, and full cross attention. DiffPool classifies stochastic-block-model
graphs by their number of communities: dense GraphSAGE layers embed the nodes, a parallel
GNN softly assigns them to ten clusters, and the coarse graph S^T A S is embedded again,
with link-prediction and entropy terms. STGCN forecasts traffic speeds on a graph of 160
road sensors by gated temporal convolutions around Chebyshev graph convolutions (dense
products with the scaled Laplacian). An importance-weighted autoencoder (IWAE) takes the
log-mean-exp of sixteen importance weights per binarized glyph. A FocalNet in bfloat16
replaces attention by focal modulation: depthwise 3x3 and 5x5 context levels and a global
one, each gated into a modulator that multiplies the query. A closed-form continuous-time
network (CfC) classifies irregularly sampled series with missing values in a `lax.scan`,
its time gate blending two heads by the elapsed time. A multi-gate mixture of experts
(MMoE) in bfloat16 predicts clicks and purchases from 26 categorical fields gathered
from one embedding table and 13 counts. Five are inference or scientific steps without a
gradient: Bellman-Ford shortest travel times from sixteen depots over a 48x48 street grid
with closed streets and highways, every round relaxing all edges for all depots (gathers
and a `segment_min`) in a `while_loop` that stops once no time improves (capped at 400
rounds), then shortest-path trees from the tight edges by `segment_max`, hop counts by
pointer doubling in a `fori_loop`, nearest depots and service areas; cloth by
position-based dynamics, a 48x48 sheet dropped onto a sphere, 60 steps in a `fori_loop`
each holding ten Jacobi projections of 13 346 distance constraints in an inner
`fori_loop` (gathered ends, corrections summed per particle by `segment_sum`,
over-relaxed), sphere and ground collisions and damping; spectral indices, a cloud mask
and a land-cover code for four six-band 1024x1024 scenes of uint16 digital numbers, a
memory-bound chain of elementwise maps (reflectance, NDVI, EVI, SAVI, NDWI, MNDWI, NDBI,
NBR, brightness and whiteness tests, nested thresholds) and tile and scene reductions
over 50 MB; quantile normalization and quality control of a 16384-gene by 48-sample
expression matrix (an `argsort` per sample and a scatter of the mean sorted column,
per-gene medians and median absolute deviations by two `sort`s, the most dispersed genes
by `top_k`, Spearman correlations between samples from ranks by another `argsort` and a
matrix product); and a Swiss-style league of 8192 players rated by TrueSkill over 128
rounds in a `fori_loop`, every round pairing players by an `argsort` of noisy ratings,
sampling performances and draws, and updating both players' means and variances by the
truncated-Gaussian corrections (`log_ndtr`, `ndtr`), gathered and scattered back,
then a Spearman correlation with the hidden skills and a `top_k` leaderboard. The updates
are all new to these sets: AdaNorm on Adam (each tensor's gradient scaled up to the
running average of its norm where it falls below it), normalized SGD with momentum (a
step of set length along the momentum, warm-up and cosine decay), Momo (a Polyak-type step
size from averaged losses, gradients and inner products, truncated at a lower bound of
zero), Adam's per-tensor step length grafted onto the direction of heavy-ball SGD,
nonlinear conjugate gradients (Polak-Ribiere, clipped at zero, restarted every 40 steps)
with a clipped step, AdaX (a second moment with a growing long-term memory), signSGD with
majority vote (four workers' gradients from `vmap`, each with its own momentum, the sign
of the sum of their signs), Flora (the momentum of every large matrix kept compressed by
a Gaussian projection drawn from a seed, moved to a new projection every 100 steps under
`lax.cond`), cyclical stochastic-gradient Hamiltonian Monte Carlo (friction, a cosine
cycle of step sizes, injected noise in the sampling part of each cycle) and GradNorm over
Adam (the task weights balanced by the norms of the task gradients of the experts' last
layer, from three pullbacks of one `vjp`); three training steps (the Informer, the
FocalNet and the MMoE) run in bfloat16.
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

    if name == "adanorm":
        # AdaNorm on Adam (Dubey et al.): every tensor keeps an exponential average of its
        # gradient's norm, and where that average exceeds the current norm the gradient is
        # scaled up to it before it enters the first moment (the second moment takes the
        # raw gradient), so steps do not collapse where gradients shrink; bias-corrected
        # Adam steps with decoupled weight decay
        rate, b1, b2, gamma, decay = 1e-3, 0.9, 0.999, 0.95, 1e-4

        def adanorm_init(params):
            return zeros(params), zeros(params), tm(lambda p: jnp.zeros((), f32), params), count()

        def adanorm(params, grads, state, loss):
            m, v, e, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            norm = tm(lambda g_: jnp.sqrt(jnp.sum(g_ * g_)), g)
            e = tm(lambda e_, n_: gamma * e_ + (1.0 - gamma) * n_, e, norm)
            s = tm(lambda g_, e_, n_: jnp.where(e_ > n_, e_ / (n_ + 1e-12), 1.0) * g_, g, e, norm)
            m = tm(lambda m_, s_: b1 * m_ + (1.0 - b1) * s_, m, s)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - rate * decay)
                       - rate * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, e, t)
        return adanorm_init, adanorm

    if name == "nsgd_momentum":
        # normalized SGD with momentum (Cutkosky and Mehta): the momentum of the raw
        # gradients moves the weights by a set length, only its direction counting (the
        # global norm over all tensors divided out); the length follows a linear warm-up
        # over 500 steps and a cosine decay over 20000, with decoupled weight decay
        rate, beta, decay, warmup, total = 0.05, 0.9, 5e-4, 500, 20000

        def nsgd(params, grads, state, loss):
            m, t = state
            m = tm(lambda m_, g: beta * m_ + (1.0 - beta) * g.astype(f32), m, grads)
            n = t.astype(f32)
            length = (rate * jnp.minimum(1.0, (n + 1.0) / warmup)
                      * 0.5 * (1.0 + jnp.cos(math.pi * jnp.minimum(n / total, 1.0))))
            scale = length / (jnp.sqrt(dot(m, m)) + 1e-12)
            moved = tm(lambda p, m_: p.astype(f32) * (1.0 - length * decay) - scale * m_,
                       params, m)
            return recast(params, moved), (m, t + 1)
        return (lambda p: (zeros(p), count())), nsgd

    if name == "momo":
        # Momo (Schaipp, Ohana, Eickenberg, Defazio and Gower): exponential averages of the
        # gradients, the losses and the inner products <g, w> make a model of the loss whose
        # truncation at zero (a lower bound) gives a Polyak-type step size, capped at 1;
        # the three averages start at zero and are bias-corrected alike
        beta, cap = 0.9, 1.0

        def momo_init(params):
            return zeros(params), jnp.zeros((), f32), jnp.zeros((), f32), count()

        def momo(params, grads, state, loss):
            d, f_bar, gamma, t = state
            t = t + 1
            x, g = wide(params), wide(grads)
            d = tm(lambda d_, g_: beta * d_ + (1.0 - beta) * g_, d, g)
            f_bar = beta * f_bar + (1.0 - beta) * loss.astype(f32)
            gamma = beta * gamma + (1.0 - beta) * dot(g, x)
            unbias = 1.0 - beta ** t.astype(f32)
            h = (f_bar + dot(d, x) - gamma) / unbias
            size = jnp.minimum(cap, jax.nn.relu(h) / (dot(d, d) / unbias ** 2 + 1e-12))
            moved = tm(lambda x_, d_: x_ - size * d_ / unbias, x, d)
            return recast(params, moved), (d, f_bar, gamma, t)
        return momo_init, momo

    if name == "grafted_adam_sgd":
        # learning-rate grafting (Agarwal, Anil, Hazan, Koren and Zhang): the direction of
        # heavy-ball SGD taken with the per-tensor step length of Adam, every tensor's
        # momentum rescaled to the norm of the step that Adam would take there
        rate, b1, b2, momentum = 1e-3, 0.9, 0.999, 0.9

        def grafted(params, grads, state, loss):
            m, v, buf, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            buf = tm(lambda b, g_: momentum * b + g_, buf, g)

            def one(p, m_, v_, b):
                adam = rate * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8)
                length = jnp.sqrt(jnp.sum(adam * adam))
                return p.astype(f32) - length * b / (jnp.sqrt(jnp.sum(b * b)) + 1e-12)

            return recast(params, tm(one, params, m, v, buf)), (m, v, buf, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), grafted

    if name == "polak_ribiere":
        # nonlinear conjugate gradients on minibatch gradients (Polak-Ribiere clipped at
        # zero, PR+): the direction is the negative gradient plus beta times the last
        # direction, beta the inner product of the gradient with its change over the last
        # gradient's squared norm, restarted every 40 steps; a fixed rate along it, the
        # step's length clipped to 0.5
        rate, period, radius = 0.05, 40, 0.5

        def cg(params, grads, state, loss):
            g_prev, d_prev, t = state
            g = wide(grads)
            change = tm(jnp.subtract, g, g_prev)
            beta = jnp.maximum(0.0, dot(g, change) / (dot(g_prev, g_prev) + 1e-12))
            beta = jnp.where(t % period == 0, 0.0, beta)
            d = tm(lambda g_, d_: beta * d_ - g_, g, d_prev)
            length = rate * jnp.sqrt(dot(d, d))
            scale = rate * jnp.minimum(1.0, radius / (length + 1e-12))
            moved = tm(lambda p, d_: p.astype(f32) + scale * d_, params, d)
            return recast(params, moved), (g, d, t + 1)
        return (lambda p: (zeros(p), zeros(p), count())), cg

    if name == "adax":
        # AdaX (Li, Zhang, Ding and Zhao): the second moment keeps a long-term memory that
        # grows, v <- (1 + beta2) v + beta2 g^2, normalized by (1 + beta2)^t - 1, so past
        # gradients are never forgotten; the first moment is Adam's, without bias correction
        rate, b1, b2 = 2e-3, 0.9, 1e-4

        def adax(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: (1.0 + b2) * v_ + b2 * g_ * g_, v, g)
            norm = jnp.expm1(t.astype(f32) * math.log1p(b2))
            moved = tm(lambda p, m_, v_: p.astype(f32) - rate * m_ / (jnp.sqrt(v_ / norm) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), adax

    if name == "flora":
        # Flora (Hao, Cao and Mou): the momentum of every matrix (a kernel flattened to its
        # fan-in by its outputs) with at least 32 rows and 32 columns is kept compressed,
        # G A^T for a Gaussian projection A of rank 16 that is drawn from a seed and never
        # stored, and is decompressed by A for the step; every 100 steps the seed changes
        # and the compressed momentum moves onto the new projection under `lax.cond`;
        # smaller tensors keep plain momentum
        rate, beta, rank, period = 0.02, 0.9, 16, 100
        key = jax.random.PRNGKey(17)

        def compressed(p):
            return p.ndim >= 2 and math.prod(p.shape[:-1]) >= 32 and p.shape[-1] >= 32

        def projection(i, seed, columns):
            k = jax.random.fold_in(jax.random.fold_in(key, seed), i)
            return jax.random.normal(k, (rank, columns), f32) / math.sqrt(rank)

        def flora_init(params):
            leaves, treedef = jax.tree.flatten(params)
            return treedef.unflatten([jnp.zeros((math.prod(p.shape[:-1]), rank), f32)
                                      if compressed(p) else jnp.zeros(p.shape, f32)
                                      for p in leaves]), count()

        def flora(params, grads, state, loss):
            buf, t = state
            leaves, treedef = jax.tree.flatten(params)
            seed = t // period
            renew = (t % period == 0) & (t > 0)
            moved, kept = [], []
            for i, (p, g, b) in enumerate(zip(leaves, jax.tree.leaves(grads),
                                              jax.tree.leaves(buf))):
                g = g.astype(f32)
                if compressed(p):
                    rows, cols = math.prod(p.shape[:-1]), p.shape[-1]
                    a = projection(i, seed, cols)
                    old = projection(i, seed - 1, cols)
                    b = lax.cond(renew, lambda c, old=old, a=a: (c @ old) @ a.T, lambda c: c, b)
                    b = beta * b + (1.0 - beta) * g.reshape(rows, cols) @ a.T
                    step = (b @ a).reshape(p.shape)
                else:
                    b = beta * b + (1.0 - beta) * g
                    step = b
                moved.append((p.astype(f32) - rate * step).astype(p.dtype))
                kept.append(b)
            return treedef.unflatten(moved), (treedef.unflatten(kept), t + 1)
        return flora_init, flora

    if name == "cyclical_sghmc":
        # cyclical stochastic-gradient Hamiltonian Monte Carlo (Zhang, Li, Zhang, Chen and
        # Wilson): SGHMC with friction 0.1 whose step size falls along a cosine from its
        # peak to zero in every cycle of 5000 steps; the first 80% of a cycle explores
        # (no noise), the rest samples the posterior of 40000 examples under a unit
        # Gaussian prior, the injected noise drawn inside the step from a key folded with
        # the step count and the tensor's index
        peak, friction, cycle, explore, data, prior = 0.1, 0.1, 5000, 0.8, 40000, 1.0
        key = jax.random.PRNGKey(19)

        def sghmc(params, grads, state, loss):
            v, t = state
            phase = (t % cycle).astype(f32) / cycle
            size = 0.5 * peak / data * (jnp.cos(math.pi * phase) + 1.0)
            noisy = (phase > explore).astype(f32)
            step_key = jax.random.fold_in(key, t)
            leaves, treedef = jax.tree.flatten(params)
            moved, kept = [], []
            for i, (p, g, v_) in enumerate(zip(leaves, jax.tree.leaves(grads),
                                               jax.tree.leaves(v))):
                x = p.astype(f32)
                force = data * g.astype(f32) + prior * x
                noise = jax.random.normal(jax.random.fold_in(step_key, i), p.shape, f32)
                v_ = ((1.0 - friction) * v_ - size * force
                      + noisy * jnp.sqrt(2.0 * friction * size) * noise)
                moved.append((x + v_).astype(p.dtype))
                kept.append(v_)
            return treedef.unflatten(moved), (treedef.unflatten(kept), t + 1)
        return (lambda p: (zeros(p), count())), sghmc

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


def dreamer_world_model(batch: int = 8, steps: int = 16, side: int = 32, actions: int = 4,
                        deter: int = 128, stoch: int = 32, widths: tuple[int, ...] = (24, 48, 96),
                        balance: float = 0.8, free: float = 1.0) -> Any:
    """The world model of Dreamer (Hafner et al.) learned from sixteen-frame episodes of a
    sprite that four actions move over a coloured 32x32 scene: a convolutional encoder
    (4x4 kernels of 24, 48 and 96 channels, stride 2, ELU), a recurrent state-space model
    in a `lax.scan` (a GRU over the last stochastic state and action for the
    deterministic 128-wide state, Gaussian prior and posterior heads over 32 stochastic
    units, the posterior seeing the frame's embedding, reparameterized samples), and a
    decoder of three transposed convolutions (4x4, stride 2, from 4x4 up to 32x32) and a
    reward MLP over every state. Loss: the Gaussian image and reward likelihoods and the
    KL balancing term (0.8 of it training the prior against the stopped posterior, 0.2
    the posterior) with one free nat; AdaNorm on Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c1, c2, c3 = widths
    flat = 4 * 4 * c3
    feat = deter + stoch
    p = _params({"e1": (4, 4, 3, c1), "e1_b": (c1,), "e2": (4, 4, c1, c2), "e2_b": (c2,),
                 "e3": (4, 4, c2, c3), "e3_b": (c3,),
                 "img_in": (stoch + actions, deter), "img_in_b": (deter,),
                 "gru_x": (deter, 3 * deter), "gru_h": (deter, 3 * deter), "gru_b": (3 * deter,),
                 "prior1": (deter, deter), "prior1_b": (deter,),
                 "prior2": (deter, 2 * stoch), "prior2_b": (2 * stoch,),
                 "post1": (deter + flat, deter), "post1_b": (deter,),
                 "post2": (deter, 2 * stoch), "post2_b": (2 * stoch,),
                 "dec_in": (feat, flat), "dec_in_b": (flat,),
                 "d1": (4, 4, c3, c2), "d1_b": (c2,), "d2": (4, 4, c2, c1), "d2_b": (c1,),
                 "d3": (4, 4, c1, 3), "d3_b": (3,),
                 "r1": (feat, deter), "r1_b": (deter,), "r2": (deter, 1), "r2_b": (1,)}, seed=1)

    def deconv(x, w, b):
        return lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=_NHWC) + b

    def gaussian(stats):
        mean, raw = jnp.split(stats, 2, -1)
        return mean, jax.nn.softplus(raw) + 0.1

    def divergence(m1, s1, m2, s2):
        return jnp.sum(jnp.log(s2 / s1) + (s1 * s1 + jnp.square(m1 - m2)) / (2.0 * s2 * s2)
                       - 0.5, -1)

    def loss_fn(p, images, acts, rewards, noise):
        b, t = images.shape[:2]
        x = images.reshape((b * t,) + images.shape[2:])
        x = jax.nn.elu(_conv(x, p["e1"], 2) + p["e1_b"])
        x = jax.nn.elu(_conv(x, p["e2"], 2) + p["e2_b"])
        x = jax.nn.elu(_conv(x, p["e3"], 2) + p["e3_b"])
        embed = jnp.swapaxes(x.reshape(b, t, flat), 0, 1)

        def observe(carry, inputs):
            h, z = carry
            e, a, eps = inputs
            y = jax.nn.elu(jnp.concatenate([z, a], -1) @ p["img_in"] + p["img_in_b"])
            xr, xu, xn = jnp.split(y @ p["gru_x"] + p["gru_b"], 3, -1)
            hr, hu, hn = jnp.split(h @ p["gru_h"], 3, -1)
            r, u = jax.nn.sigmoid(xr + hr), jax.nn.sigmoid(xu + hu - 1.0)
            h = u * jnp.tanh(xn + r * hn) + (1.0 - u) * h
            pm, ps = gaussian(jax.nn.elu(h @ p["prior1"] + p["prior1_b"]) @ p["prior2"]
                              + p["prior2_b"])
            qm, qs = gaussian(jax.nn.elu(jnp.concatenate([h, e], -1) @ p["post1"] + p["post1_b"])
                              @ p["post2"] + p["post2_b"])
            z = qm + qs * eps
            return (h, z), (h, z, pm, ps, qm, qs)

        start = (jnp.zeros((b, deter)), jnp.zeros((b, stoch)))
        inputs = (embed, jnp.swapaxes(acts, 0, 1), jnp.swapaxes(noise, 0, 1))
        _, (h, z, pm, ps, qm, qs) = lax.scan(observe, start, inputs)
        features = jnp.concatenate([h, z], -1).reshape(t * b, feat)
        y = (features @ p["dec_in"] + p["dec_in_b"]).reshape(t * b, 4, 4, c3)
        y = jax.nn.elu(deconv(y, p["d1"], p["d1_b"]))
        y = jax.nn.elu(deconv(y, p["d2"], p["d2_b"]))
        y = deconv(y, p["d3"], p["d3_b"])
        target = jnp.swapaxes(images, 0, 1).reshape(t * b, side, side, 3)
        image_nll = 0.5 * jnp.mean(jnp.sum(jnp.square(y - target), (1, 2, 3)))
        reward = (jax.nn.elu(features @ p["r1"] + p["r1_b"]) @ p["r2"] + p["r2_b"])[:, 0]
        reward_nll = 0.5 * jnp.mean(jnp.square(reward - jnp.swapaxes(rewards, 0, 1).reshape(-1)))
        sg = lax.stop_gradient
        kl = (balance * divergence(sg(qm), sg(qs), pm, ps)
              + (1.0 - balance) * divergence(qm, qs, sg(pm), sg(ps)))
        return image_nll + reward_nll + jnp.mean(jnp.maximum(kl, free))

    rng = np.random.default_rng(1)
    scenes = 0.3 * _smooth_images(rng, batch, side, 3, 3.0)
    moves = np.asarray([(-2, 0), (2, 0), (0, -2), (0, 2)])
    choice = rng.integers(0, actions, (batch, steps))
    acts = np.zeros((batch, steps, actions), np.float32)
    acts[:, 1:] = np.eye(actions)[choice[:, :-1]]
    images = np.repeat(scenes[:, None], steps, 1)
    rewards = np.zeros((batch, steps), np.float32)
    yy, xx = np.mgrid[0:side, 0:side]
    for i in range(batch):
        y, x = rng.integers(8, side - 8, 2)
        colour = rng.uniform(0.5, 1.0, 3)
        for t in range(steps):
            if t:
                y, x = np.clip(np.asarray([y, x]) + moves[choice[i, t - 1]], 3, side - 4)
            blob = np.exp(-((yy - y) ** 2 + (xx - x) ** 2) / 6.0)[..., None]
            images[i, t] = images[i, t] * (1.0 - blob) + blob * colour
            rewards[i, t] = -math.hypot(y - side / 2, x - side / 2) / side
    noise = rng.standard_normal((batch, steps, stoch))
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("adanorm", loss_fn, p, f32(images), f32(acts), f32(rewards), f32(noise))


def centernet_detector(batch: int = 8, side: int = 64, classes: int = 3, objects: int = 6,
                       widths: tuple[int, ...] = (32, 64, 128),
                       up: tuple[int, int] = (48, 32)) -> Any:
    """Object detection as keypoint estimation (CenterNet, Zhou et al.): a residual
    backbone with batch norm (a strided 3x3 stem and three stages of 32, 64 and 128
    channels at 32x32, 16x16 and 8x8, each a basic block, the later two entered by a
    strided convolution) is brought back to half the input resolution by two transposed
    convolutions (4x4, stride 2) with skip connections from the backbone, and a shared
    3x3 head predicts one centre heatmap per class, box sizes and sub-pixel offsets. Up
    to six squares, discs and rings per 64x64 image; the penalty-reduced focal loss
    against Gaussian-splatted centre heatmaps, and L1 losses on the sizes and offsets
    gathered at the object centres (`take_along_axis`). Normalized SGD with momentum."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    out = side // 2
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]),
                                          "stem_bn_g": (widths[0],), "stem_bn_b": (widths[0],)}
    cin = widths[0]
    for i, c in enumerate(widths):
        if i:
            shapes.update({f"down{i}": (3, 3, cin, c), f"down{i}_bn_g": (c,),
                           f"down{i}_bn_b": (c,)})
        for part in ("a", "b"):
            shapes.update({f"r{i}{part}": (3, 3, c, c), f"r{i}{part}_bn_g": (c,),
                           f"r{i}{part}_bn_b": (c,)})
        cin = c
    for j, c in enumerate(up, 1):
        shapes.update({f"up{j}": (4, 4, cin, c), f"up{j}_bn_g": (c,), f"up{j}_bn_b": (c,),
                       f"skip{j}": (1, 1, widths[-1 - j], c)})
        cin = c
    shapes.update({"head": (3, 3, cin, 64), "head_b": (64,), "out": (1, 1, 64, classes + 4),
                   "out_b": (classes + 4,)})
    p = _params(shapes, seed=2, scale=math.sqrt(2.0))
    p["out_b"] = p["out_b"].at[:classes].set(-2.19)

    def loss_fn(p, images, heat, centres, sizes, offsets, valid):
        def unit(x, k, stride=1, act=True):
            y = _batch_norm(_conv(x, p[k], stride), p[f"{k}_bn_g"], p[f"{k}_bn_b"])
            return jax.nn.relu(y) if act else y

        x = unit(images, "stem", 2)
        feats = []
        for i in range(len(widths)):
            if i:
                x = unit(x, f"down{i}", 2)
            x = jax.nn.relu(x + unit(unit(x, f"r{i}a"), f"r{i}b", act=False))
            feats.append(x)
        for j in range(1, len(up) + 1):
            x = lax.conv_transpose(x, p[f"up{j}"], (2, 2), "SAME", dimension_numbers=_NHWC)
            x = jax.nn.relu(_batch_norm(x, p[f"up{j}_bn_g"], p[f"up{j}_bn_b"])
                            + _conv(feats[-1 - j], p[f"skip{j}"]))
        y = _conv(jax.nn.relu(_conv(x, p["head"]) + p["head_b"]), p["out"]) + p["out_b"]
        logits, size, offset = y[..., :classes], y[..., classes:classes + 2], y[..., classes + 2:]
        prob = jax.nn.sigmoid(logits)
        peak = heat >= 1.0 - 1e-4
        positive = jnp.where(peak, jnp.square(1.0 - prob) * jax.nn.log_sigmoid(logits), 0.0)
        negative = jnp.where(peak, 0.0, (1.0 - heat) ** 4 * jnp.square(prob)
                             * jax.nn.log_sigmoid(-logits))
        found = jnp.maximum(jnp.sum(valid), 1.0)
        focal = -(jnp.sum(positive) + jnp.sum(negative)) / found
        b = images.shape[0]

        def at_centres(a):
            return jnp.take_along_axis(a.reshape(b, out * out, 2), centres[..., None], 1)

        def l1(a, target):
            return jnp.sum(jnp.abs(at_centres(a) - target) * valid[..., None]) / found

        return focal + 0.1 * l1(size, sizes) + l1(offset, offsets)

    rng = np.random.default_rng(2)
    images = 0.4 * _smooth_images(rng, batch, side, 3, 3.0)
    heat = np.zeros((batch, out, out, classes), np.float32)
    centres = np.zeros((batch, objects), np.int64)
    sizes = np.zeros((batch, objects, 2), np.float32)
    offsets = np.zeros((batch, objects, 2), np.float32)
    valid = np.zeros((batch, objects), np.float32)
    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    oy, ox = np.mgrid[0:out, 0:out]
    for i in range(batch):
        for k in range(rng.integers(2, objects + 1)):
            kind = rng.integers(0, classes)
            h, w = rng.uniform(6.0, 20.0, 2)
            cy, cx = rng.uniform(h / 2, side - h / 2), rng.uniform(w / 2, side - w / 2)
            dy, dx = (yy - cy) / (h / 2), (xx - cx) / (w / 2)
            if kind == 0:
                shape = (np.abs(dy) <= 1) & (np.abs(dx) <= 1)
            elif kind == 1:
                shape = dy ** 2 + dx ** 2 <= 1
            else:
                shape = (dy ** 2 + dx ** 2 <= 1) & (dy ** 2 + dx ** 2 >= 0.4)
            images[i][shape] = rng.uniform(-1.0, 1.0, 3)
            gy, gx = cy / 2, cx / 2
            iy, ix = int(gy), int(gx)
            sigma = max(0.5, min(h, w) / 12)
            splat = np.exp(-((oy - iy) ** 2 + (ox - ix) ** 2) / (2 * sigma ** 2))
            heat[i, ..., kind] = np.maximum(heat[i, ..., kind], splat)
            centres[i, k] = iy * out + ix
            sizes[i, k] = (h / 2, w / 2)
            offsets[i, k] = (gy - iy, gx - ix)
            valid[i, k] = 1.0
    images += 0.05 * rng.standard_normal(images.shape).astype(np.float32)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("nsgd_momentum", loss_fn, p, f32(images), f32(heat),
                  jnp.asarray(centres, jnp.int32), f32(sizes), f32(offsets), f32(valid))


def pointer_generator(batch: int = 16, source: int = 96, target: int = 24, vocab: int = 1024,
                      oov: int = 32, embed: int = 64, hidden: int = 96,
                      coverage: float = 1.0) -> Any:
    """Abstractive summarization with a pointer-generator network and coverage (See, Liu
    and Manning): a bidirectional LSTM encoder (two `lax.scan`s, one reversed) over 96
    source tokens, an LSTM decoder run by teacher forcing in a `lax.scan` over 24 summary
    tokens with additive attention that also sees the coverage (the attention summed
    over earlier steps), a generation probability from the context, state and input that
    mixes the vocabulary distribution (1024 words) with the attention copied onto the
    source tokens by a scatter-add into an extended vocabulary that holds each article's
    32 out-of-vocabulary words, and the negative log-likelihood of the reference plus the
    coverage loss (the overlap of attention and coverage). Momo."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    ext = vocab + oov
    wide = 2 * hidden
    p = _params({"emb": (vocab, embed),
                 "fw": (embed + hidden, 4 * hidden), "fw_b": (4 * hidden,),
                 "bw": (embed + hidden, 4 * hidden), "bw_b": (4 * hidden,),
                 "reduce_h": (wide, hidden), "reduce_h_b": (hidden,),
                 "reduce_c": (wide, hidden), "reduce_c_b": (hidden,),
                 "dec": (embed + wide + hidden, 4 * hidden), "dec_b": (4 * hidden,),
                 "att_h": (wide, wide), "att_s": (hidden, wide), "att_s_b": (wide,),
                 "att_c": (1, wide), "att_v": (wide, 1),
                 "out1": (hidden + wide, 128), "out1_b": (128,), "out2": (128, vocab),
                 "out2_b": (vocab,), "gen": (wide + hidden + embed, 1), "gen_b": (1,)}, seed=3)
    p["att_c"] = p["att_c"] * 0.1

    def lstm(w, b, x, h, c):
        i, f, g, o = jnp.split(jnp.concatenate([x, h], -1) @ w + b, 4, -1)
        c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        return jax.nn.sigmoid(o) * jnp.tanh(c), c

    def known(ids):
        return jnp.where(ids < vocab, ids, 1)

    def loss_fn(p, article, summary):
        b = article.shape[0]
        xs = jnp.swapaxes(p["emb"][known(article)], 0, 1)
        zero = jnp.zeros((b, hidden))

        def encode(name, reverse):
            def cell(carry, x):
                h, c = lstm(p[name], p[f"{name}_b"], x, *carry)
                return (h, c), h
            (h, c), hs = lax.scan(cell, (zero, zero), xs, reverse=reverse)
            return h, c, hs

        hf, cf, hsf = encode("fw", False)
        hb, cb, hsb = encode("bw", True)
        enc = jnp.swapaxes(jnp.concatenate([hsf, hsb], -1), 0, 1)
        keys = enc @ p["att_h"]
        s = jax.nn.relu(jnp.concatenate([hf, hb], -1) @ p["reduce_h"] + p["reduce_h_b"])
        c = jax.nn.relu(jnp.concatenate([cf, cb], -1) @ p["reduce_c"] + p["reduce_c_b"])
        previous = jnp.concatenate([jnp.full((b, 1), 2, summary.dtype), summary[:, :-1]], 1)
        inputs = jnp.swapaxes(p["emb"][known(previous)], 0, 1)
        rows = jnp.arange(b)[:, None]

        def decode(carry, step):
            s, c, context, cover = carry
            y, gold = step
            s, c = lstm(p["dec"], p["dec_b"], jnp.concatenate([y, context], -1), s, c)
            scores = jnp.tanh(keys + (s @ p["att_s"] + p["att_s_b"])[:, None, :]
                              + cover[..., None] * p["att_c"][0]) @ p["att_v"]
            attention = jax.nn.softmax(scores[..., 0], -1)
            context = jnp.einsum("bs,bsd->bd", attention, enc)
            h = jax.nn.relu(jnp.concatenate([s, context], -1) @ p["out1"] + p["out1_b"])
            words = jax.nn.softmax(h @ p["out2"] + p["out2_b"], -1)
            gen = jax.nn.sigmoid(jnp.concatenate([context, s, y], -1) @ p["gen"] + p["gen_b"])
            final = jnp.pad(gen * words, ((0, 0), (0, oov)))
            final = final.at[rows, article].add((1.0 - gen) * attention)
            nll = -jnp.log(jnp.take_along_axis(final, gold[:, None], 1)[:, 0] + 1e-10)
            overlap = jnp.sum(jnp.minimum(attention, cover), -1)
            return (s, c, context, cover + attention), (nll, overlap)

        start = (s, c, jnp.zeros((b, wide)), jnp.zeros(article.shape))
        _, (nll, overlap) = lax.scan(decode, start, (inputs, jnp.swapaxes(summary, 0, 1)))
        return jnp.mean(nll) + coverage * jnp.mean(overlap)

    rng = np.random.default_rng(3)
    article = _markov_tokens(rng, batch, source, vocab)
    summary = np.zeros((batch, target), np.int64)
    for i in range(batch):
        names = vocab + rng.choice(oov, 8, replace=False)
        spots = rng.choice(source, 12, replace=False)
        article[i, spots] = names[rng.integers(0, 8, 12)]
        picked = np.sort(rng.choice(source, target, replace=False))
        summary[i] = article[i, picked]
        fresh = rng.uniform(size=target) < 0.2
        summary[i, fresh] = rng.integers(3, vocab, fresh.sum())
    assert article.max() < ext
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("momo", loss_fn, p, i32(article), i32(summary))


def informer_forecaster(batch: int = 8, history: int = 192, label: int = 48, horizon: int = 24,
                        variables: int = 7, width: int = 128, heads: int = 4,
                        factor: int = 5) -> Any:
    """Long-sequence forecasting with an Informer (Zhou et al.) in bfloat16: seven
    variables of a transformer-load-like series, 192 steps of history, a decoder fed the
    last 48 of them and 24 zero placeholders. Embeddings are a circular 1-D convolution
    of the values plus sinusoidal positions and a linear map of four calendar features.
    Two encoder layers use ProbSparse self-attention (for every query the logits against
    30 sampled keys, gathered, give a sparsity measure, max minus mean; only the top 30
    queries by `top_k` attend to all keys and are scattered back over the mean of the
    values), with a distilling step between them (circular convolution, batch norm, ELU,
    3-wide max pooling by stride 2); the decoder has masked ProbSparse self-attention
    (the lazy queries take the running mean of the values by `cumsum`), full cross
    attention and a GELU feed-forward layer. Mean squared error of the 24 predicted
    steps; Adam's per-tensor step length grafted onto the direction of heavy-ball SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"tok": (3, variables, width), "calendar": (4, width)}

    def block(k, cross=False):
        out = {f"{k}_{m}": (width, width) for m in "qkvo"}
        if cross:
            out.update({f"{k}x_{m}": (width, width) for m in "qkvo"})
            out.update({f"{k}_nx_g": (width,), f"{k}_nx_b": (width,)})
        out.update({f"{k}_n1_g": (width,), f"{k}_n1_b": (width,), f"{k}_fc1": (width, 2 * width),
                    f"{k}_fc1_b": (2 * width,), f"{k}_fc2": (2 * width, width),
                    f"{k}_fc2_b": (width,), f"{k}_n2_g": (width,), f"{k}_n2_b": (width,)})
        return out

    shapes.update(block("enc0"))
    shapes.update(block("enc1"))
    shapes.update({"distil": (3, width, width), "distil_bn_g": (width,), "distil_bn_b": (width,),
                   "enc_g": (width,), "enc_b": (width,)})
    shapes.update(block("dec", cross=True))
    shapes.update({"dec_g": (width,), "dec_b": (width,), "out": (width, variables),
                   "out_b": (variables,)})
    p = _params(shapes, seed=4, dtype=bf16)
    position = np.arange(history)[:, None] / np.power(10000.0, np.arange(0, width, 2) / width)
    table = np.zeros((history, width), np.float32)
    table[:, 0::2], table[:, 1::2] = np.sin(position), np.cos(position)

    def circular(x, w):
        x = jnp.concatenate([x[:, -1:], x, x[:, :1]], 1)
        return lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=_NWC)

    def embed(p, values, calendar):
        n = values.shape[1]
        return (circular(values, p["tok"]) + jnp.asarray(table[:n], bf16)
                + calendar @ p["calendar"])

    def heads_of(x):
        b, n, _ = x.shape
        return x.reshape(b, n, heads, dh).transpose(0, 2, 1, 3)

    def prob_attention(p, k, x, causal, key):
        b, n, _ = x.shape
        q, kk, v = (heads_of(x @ p[f"{k}_{m}"]) for m in "qkv")
        sample = min(n, factor * math.ceil(math.log(n)))
        idx = jax.random.randint(key, (n, sample), 0, n)
        measured = jnp.einsum("bhnd,bhnsd->bhns", q, kk[:, :, idx]).astype(f32)
        if causal:
            measured = jnp.where(idx[None, None] <= jnp.arange(n)[:, None], measured, -1e4)
        sparsity = measured.max(-1) - measured.sum(-1) / n
        _, chosen = lax.top_k(sparsity, sample)
        q_top = jnp.take_along_axis(q, chosen[..., None], 2)
        logits = jnp.einsum("bhud,bhkd->bhuk", q_top, kk).astype(f32) / math.sqrt(dh)
        if causal:
            logits = jnp.where(jnp.arange(n) <= chosen[..., None], logits, -1e9)
            lazy = jnp.cumsum(v.astype(f32), 2) / jnp.arange(1, n + 1, dtype=f32)[:, None]
        else:
            lazy = jnp.broadcast_to(v.astype(f32).mean(2, keepdims=True), v.shape)
        weights = jax.nn.softmax(logits, -1).astype(bf16)
        top = jnp.einsum("bhuk,bhkd->bhud", weights, v).astype(f32)
        context = lazy.at[jnp.arange(b)[:, None, None], jnp.arange(heads)[None, :, None],
                          chosen].set(top)
        context = context.astype(bf16).transpose(0, 2, 1, 3).reshape(b, n, width)
        return context @ p[f"{k}_o"]

    def full_attention(p, k, x, memory):
        b, n, _ = x.shape
        q = heads_of(x @ p[f"{k}_q"])
        kk, v = heads_of(memory @ p[f"{k}_k"]), heads_of(memory @ p[f"{k}_v"])
        logits = jnp.einsum("bhqd,bhkd->bhqk", q, kk).astype(f32) / math.sqrt(dh)
        weights = jax.nn.softmax(logits, -1).astype(bf16)
        context = jnp.einsum("bhqk,bhkd->bhqd", weights, v).transpose(0, 2, 1, 3)
        return context.reshape(b, n, width) @ p[f"{k}_o"]

    def feed_forward(p, k, x):
        h = jax.nn.gelu(x @ p[f"{k}_fc1"] + p[f"{k}_fc1_b"]) @ p[f"{k}_fc2"] + p[f"{k}_fc2_b"]
        return _layer_norm(x + h, p[f"{k}_n2_g"], p[f"{k}_n2_b"])

    def loss_fn(p, values, calendar, future, key):
        keys = jax.random.split(key, 3)
        x = embed(p, values, calendar[:, :history])
        for l in range(2):
            k = f"enc{l}"
            x = _layer_norm(x + prob_attention(p, k, x, False, keys[l]), p[f"{k}_n1_g"],
                            p[f"{k}_n1_b"])
            x = feed_forward(p, k, x)
            if l == 0:
                y = jax.nn.elu(_batch_norm(circular(x, p["distil"]), p["distil_bn_g"],
                                           p["distil_bn_b"]))
                x = lax.reduce_window(y, -jnp.inf, lax.max, (1, 3, 1), (1, 2, 1), "SAME")
        memory = _layer_norm(x, p["enc_g"], p["enc_b"])
        start = jnp.concatenate([values[:, -label:], jnp.zeros_like(values[:, :horizon])], 1)
        y = embed(p, start, calendar[:, history - label:])
        y = _layer_norm(y + prob_attention(p, "dec", y, True, keys[2]), p["dec_n1_g"],
                        p["dec_n1_b"])
        y = _layer_norm(y + full_attention(p, "decx", y, memory), p["dec_nx_g"], p["dec_nx_b"])
        y = _layer_norm(feed_forward(p, "dec", y), p["dec_g"], p["dec_b"])
        guess = (y @ p["out"] + p["out_b"]).astype(f32)[:, -horizon:]
        return jnp.mean(jnp.square(guess - future))

    rng = np.random.default_rng(4)
    total = history + horizon
    t = np.arange(4000)
    daily, weekly = 2 * np.pi * t / 24, 2 * np.pi * t / 168
    series = np.zeros((4000, variables))
    for v in range(variables):
        series[:, v] = (np.sin(daily + rng.uniform(0, 6)) * rng.uniform(0.5, 1.5)
                        + 0.5 * np.sin(weekly + rng.uniform(0, 6)) + 0.001 * t * rng.uniform(-1, 1))
    series[:, 1:] += 0.4 * series[:, :1]
    noise = np.zeros_like(series)
    for i in range(1, 4000):
        noise[i] = 0.8 * noise[i - 1] + 0.2 * rng.standard_normal(variables)
    series = (series + noise - series.mean(0)) / series.std(0)
    calendar = np.stack([(t % 24) / 23 - 0.5, (t // 24 % 7) / 6 - 0.5, (t // 24 % 30) / 29 - 0.5,
                         (t // 720 % 12) / 11 - 0.5], -1)
    starts = rng.integers(0, 4000 - total, batch)
    windows = np.stack([series[s:s + total] for s in starts])
    times = np.stack([calendar[s:s + total] for s in starts])
    return _train("grafted_adam_sgd", loss_fn, p, jnp.asarray(windows[:, :history], bf16),
                  jnp.asarray(times, bf16), jnp.asarray(windows[:, history:], f32),
                  jax.random.PRNGKey(4))


def diffpool_graphs(graphs: int = 128, nodes: int = 40, features: int = 12, width: int = 64,
                    clusters: int = 10, classes: int = 3) -> Any:
    """Hierarchical graph classification by differentiable pooling (DiffPool, Ying et al.):
    128 stochastic-block-model graphs of 24 to 40 nodes (padded to 40, with a node mask)
    with two, three or four communities, the class being their number. Dense GraphSAGE
    layers (mean aggregation by batched adjacency products, L2-normalized outputs) give
    node embeddings, and a parallel three-layer GNN a softmax assignment of every node to
    ten clusters, S; the coarse graph is S^T Z with adjacency S^T A S, two more GraphSAGE
    layers run on it, and mean and max over the clusters feed an MLP. Cross-entropy plus
    the link-prediction loss ||A - S S^T|| and the entropy of the assignments; nonlinear
    conjugate gradients (Polak-Ribiere) with a clipped step."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    for prefix, sizes in (("embed", (features, width, width, width)),
                          ("assign", (features, width, width, clusters)),
                          ("coarse", (width, width, width))):
        for l, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            shapes.update({f"{prefix}{l}_n": (a, b), f"{prefix}{l}_s": (a, b),
                           f"{prefix}{l}_b": (b,)})
    shapes.update({"h1": (2 * width, width), "h1_b": (width,), "h2": (width, classes),
                   "h2_b": (classes,)})
    p = _params(shapes, seed=5)

    def sage(p, k, adj, h, last=False):
        out = (adj @ h) @ p[f"{k}_n"] + h @ p[f"{k}_s"] + p[f"{k}_b"]
        if last:
            return out
        out = jax.nn.relu(out)
        return out / (jnp.linalg.norm(out, axis=-1, keepdims=True) + 1e-6)

    def mean_adjacency(a):
        return a / jnp.maximum(jnp.sum(a, -1, keepdims=True), 1.0)

    def loss_fn(p, x, adj, mask, labels):
        looped = adj + jnp.eye(nodes) * mask[..., None]
        norm = mean_adjacency(looped)
        z, s = x, x
        for l in range(3):
            z = sage(p, f"embed{l}", norm, z)
            s = sage(p, f"assign{l}", norm, s, last=l == 2)
        s = jax.nn.softmax(s, -1) * mask[..., None]
        pooled = jnp.einsum("bnk,bnd->bkd", s, z)
        coarse = jnp.einsum("bnk,bnm,bml->bkl", s, adj, s)
        h = pooled
        for l in range(2):
            h = sage(p, f"coarse{l}", mean_adjacency(coarse), h)
        readout = jnp.concatenate([h.mean(1), h.max(1)], -1)
        logits = jax.nn.relu(readout @ p["h1"] + p["h1_b"]) @ p["h2"] + p["h2_b"]
        size = jnp.sum(mask, -1)
        link = jnp.sum(jnp.square(adj - jnp.einsum("bnk,bmk->bnm", s, s)), (1, 2)) / size ** 2
        entropy = -jnp.sum(s * jnp.log(s + 1e-9), -1)
        entropy = jnp.sum(entropy * mask, -1) / size
        return _cross_entropy(logits, labels) + jnp.mean(link) + 0.1 * jnp.mean(entropy)

    rng = np.random.default_rng(5)
    adj = np.zeros((graphs, nodes, nodes), np.float32)
    mask = np.zeros((graphs, nodes), np.float32)
    x = np.zeros((graphs, nodes, features), np.float32)
    labels = rng.integers(0, classes, graphs)
    for g in range(graphs):
        n = rng.integers(24, nodes + 1)
        community = rng.integers(0, labels[g] + 2, n)
        chance = np.where(community[:, None] == community[None, :], 0.45, 0.03)
        links = np.triu(rng.uniform(size=(n, n)) < chance, 1)
        adj[g, :n, :n] = links | links.T
        mask[g, :n] = 1.0
        degree = adj[g, :n, :n].sum(1)
        x[g, :n, 0] = degree / 10.0
        x[g, :n, 1:] = rng.standard_normal((n, features - 1))
    return _train("polak_ribiere", loss_fn, p, jnp.asarray(x), jnp.asarray(adj),
                  jnp.asarray(mask), jnp.asarray(labels, jnp.int32))


def stgcn_traffic(batch: int = 8, sensors: int = 160, history: int = 12, horizons: int = 3,
                  order: int = 3, channels: tuple[int, int, int] = (32, 16, 32)) -> Any:
    """Traffic-speed forecasting on a road-sensor graph by a spatio-temporal graph
    convolutional network (STGCN, Yu, Yin and Zhu): 160 sensors placed at random, linked
    by a thresholded Gaussian kernel of their distances, and twelve five-minute steps of
    speeds. Two ST-Conv blocks each run a gated temporal convolution (a 3x1 convolution
    over time, a GLU with a residual), a Chebyshev graph convolution of order three over
    the scaled normalized Laplacian (dense sensor-by-sensor products), a second gated
    temporal convolution and layer norm over sensors and channels; an output block
    collapses the remaining time and predicts the speeds 15, 30 and 45 minutes ahead.
    Mean squared error; AdaX."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c0, c1, c2 = channels
    shapes: dict[str, tuple[int, ...]] = {}
    cin = 1
    for k in range(2):
        shapes.update({f"b{k}_t1": (3, 1, cin, 2 * c0), f"b{k}_t1_b": (2 * c0,),
                       f"b{k}_cheb": (order, c0, c1), f"b{k}_cheb_b": (c1,),
                       f"b{k}_t2": (3, 1, c1, 2 * c2), f"b{k}_t2_b": (2 * c2,),
                       f"b{k}_n_g": (sensors, c2), f"b{k}_n_b": (sensors, c2)})
        cin = c2
    left = history - 8
    shapes.update({"o_t": (left, 1, c2, 2 * c2), "o_t_b": (2 * c2,), "o_n_g": (sensors, c2),
                   "o_n_b": (sensors, c2), "o_fc": (1, 1, c2, c2), "o_fc_b": (c2,),
                   "o_out": (1, 1, c2, horizons), "o_out_b": (horizons,)})
    p = _params(shapes, seed=6)

    def gated(x, w, b):
        k = w.shape[0]
        y = lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=_NHWC) + b
        cout = w.shape[-1] // 2
        res = x[:, k - 1:]
        if res.shape[-1] < cout:
            res = jnp.pad(res, ((0, 0), (0, 0), (0, 0), (0, cout - res.shape[-1])))
        return (y[..., :cout] + res[..., :cout]) * jax.nn.sigmoid(y[..., cout:])

    def chebyshev(x, lap, w, b):
        terms = [x, jnp.einsum("nm,btmc->btnc", lap, x)]
        for _ in range(2, order):
            terms.append(2.0 * jnp.einsum("nm,btmc->btnc", lap, terms[-1]) - terms[-2])
        return jax.nn.relu(sum(jnp.einsum("btnc,cd->btnd", t, w[i]) for i, t in enumerate(terms))
                           + b)

    def loss_fn(p, x, lap, y):
        for k in range(2):
            x = gated(x, p[f"b{k}_t1"], p[f"b{k}_t1_b"])
            x = chebyshev(x, lap, p[f"b{k}_cheb"], p[f"b{k}_cheb_b"])
            x = gated(x, p[f"b{k}_t2"], p[f"b{k}_t2_b"])
            x = _layer_norm(x, p[f"b{k}_n_g"], p[f"b{k}_n_b"], (-2, -1))
        x = gated(x, p["o_t"], p["o_t_b"])
        x = _layer_norm(x, p["o_n_g"], p["o_n_b"], (-2, -1))
        x = jax.nn.sigmoid(_conv(x, p["o_fc"]) + p["o_fc_b"])
        out = (_conv(x, p["o_out"]) + p["o_out_b"])[:, 0]
        return jnp.mean(jnp.square(out - y))

    rng = np.random.default_rng(6)
    where = rng.uniform(0.0, 1.0, (sensors, 2))
    distance = np.linalg.norm(where[:, None] - where[None], axis=-1)
    weight = np.exp(-np.square(distance / 0.1))
    weight[(weight < 0.1) | (distance == 0)] = 0.0
    degree = weight.sum(1) + 1e-6
    laplacian = np.eye(sensors) - weight / np.sqrt(degree[:, None] * degree[None, :])
    top = np.linalg.eigvalsh(laplacian).max()
    scaled = 2.0 * laplacian / top - np.eye(sensors)
    t = np.arange(900)
    rush = (np.exp(-np.square(((t % 288) - 100) / 20.0)) + np.exp(-np.square(((t % 288) - 210)
                                                                              / 25.0)))
    congestion = rng.uniform(0.3, 1.0, sensors)
    smooth = weight / degree[:, None]
    for _ in range(3):
        congestion = 0.5 * congestion + 0.5 * smooth @ congestion
    lag = rng.integers(0, 12, sensors)
    speed = np.stack([60.0 - 30.0 * congestion[i] * np.roll(rush, lag[i])
                      for i in range(sensors)], 1)
    speed += 2.0 * rng.standard_normal(speed.shape)
    speed = (speed - speed.mean()) / speed.std()
    starts = rng.integers(0, 900 - history - 9, batch)
    x = np.stack([speed[s:s + history] for s in starts])[..., None]
    y = np.stack([speed[s + history + np.asarray([2, 5, 8])].T for s in starts])
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("adax", loss_fn, p, f32(x), f32(scaled), f32(y))


def iwae_glyphs(workers: int = 4, per_worker: int = 16, samples: int = 16, side: int = 28,
                hidden: int = 200, latent: int = 32, rate: float = 1e-4, beta: float = 0.9,
                decay: float = 1e-4) -> Any:
    """An importance-weighted autoencoder (IWAE, Burda, Grosse and Salakhutdinov) on
    dynamically binarized 28x28 glyphs: tanh MLP encoder and decoder (two layers of 200),
    32 Gaussian latents, sixteen reparameterized samples per image and the bound
    log-mean-exp of the importance weights p(x|z) p(z) / q(z|x), Bernoulli pixels. Four
    workers of sixteen images each get their own gradient under `vmap` and keep their
    own momentum; the update is signSGD with majority vote (Signum, Bernstein et al.): the
    sign of the sum of the workers' momentum signs, with weight decay. The share of
    unanimous votes comes back with the loss."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    pixels = side * side
    p = _params({"e1": (pixels, hidden), "e1_b": (hidden,), "e2": (hidden, hidden),
                 "e2_b": (hidden,), "e3": (hidden, 2 * latent), "e3_b": (2 * latent,),
                 "d1": (latent, hidden), "d1_b": (hidden,), "d2": (hidden, hidden),
                 "d2_b": (hidden,), "d3": (hidden, pixels), "d3_b": (pixels,)}, seed=7)
    constant = 0.5 * latent * math.log(2.0 * math.pi)

    def bound(p, x, key):
        h = jnp.tanh(x @ p["e1"] + p["e1_b"])
        h = jnp.tanh(h @ p["e2"] + p["e2_b"])
        mean, raw = jnp.split(h @ p["e3"] + p["e3_b"], 2, -1)
        std = jax.nn.softplus(raw) + 1e-3
        eps = jax.random.normal(key, (samples,) + mean.shape)
        z = mean + std * eps
        h = jnp.tanh(z @ p["d1"] + p["d1_b"])
        h = jnp.tanh(h @ p["d2"] + p["d2_b"])
        logits = h @ p["d3"] + p["d3_b"]
        log_px = -jnp.sum(x * jax.nn.softplus(-logits) + (1.0 - x) * jax.nn.softplus(logits), -1)
        log_pz = -0.5 * jnp.sum(z * z, -1) - constant
        log_qz = -0.5 * jnp.sum(eps * eps, -1) - jnp.sum(jnp.log(std), -1) - constant
        weights = log_px + log_pz - log_qz
        return -jnp.mean(jax.nn.logsumexp(weights, 0) - math.log(samples))

    tm = jax.tree.map

    def step(params, momenta, images, key):
        keys = jax.random.split(key, workers)
        losses, grads = jax.vmap(jax.value_and_grad(bound), (None, 0, 0))(params, images, keys)
        momenta = tm(lambda m, g: beta * m + (1.0 - beta) * g, momenta, grads)
        ballots = tm(lambda m: jnp.sum(jnp.sign(m), 0), momenta)
        params = tm(lambda w, b: w * (1.0 - rate * decay) - rate * jnp.sign(b), params, ballots)
        unanimous = sum(jnp.sum(jnp.abs(b) == workers) for b in jax.tree.leaves(ballots))
        total = sum(b.size for b in jax.tree.leaves(ballots))
        return params, momenta, jnp.mean(losses), unanimous / total

    rng = np.random.default_rng(7)
    glyphs = _glyphs(rng, 20, side, strokes=4)
    which = rng.integers(0, 20, workers * per_worker)
    intensity = np.stack([np.roll(glyphs[k], tuple(rng.integers(-2, 3, 2)), (0, 1))
                          for k in which])
    images = (rng.uniform(size=intensity.shape) < 0.05 + 0.9 * intensity).astype(np.float32)
    images = images.reshape(workers, per_worker, pixels)
    momenta = tm(lambda w: jnp.zeros((workers,) + w.shape, jnp.float32), p)
    return jax.jit(step).lower(p, momenta, jnp.asarray(images), jax.random.PRNGKey(7))


def focalnet_classifier(batch: int = 12, side: int = 32, widths: tuple[int, int] = (48, 96),
                        depth: int = 2, kernels: tuple[int, ...] = (3, 5), classes: int = 10,
                        patch: int = 2) -> Any:
    """A focal modulation network (FocalNet, Yang et al.) in bfloat16 classifying 32x32
    images: a 2x2 patch embedding, two stages (48 channels at 16x16, 96 at 8x8 after a
    strided 2x2 convolution) of two blocks, each replacing self-attention by focal
    modulation: a linear map gives a query, a context and three gates; the context
    passes two depthwise convolutions (3x3, then 5x5) with GELU, each level and a global
    average of the last added under its gate, and a 1x1 map of the sum modulates the
    query elementwise; pre-norm, a 4x GELU MLP, mean pooling and a linear head.
    Cross-entropy; Flora (momentum compressed by seeded random projections)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    levels = len(kernels)
    shapes: dict[str, tuple[int, ...]] = {"stem": (patch, patch, 3, widths[0]),
                                          "stem_b": (widths[0],)}
    for s, c in enumerate(widths):
        if s:
            shapes.update({f"down{s}": (2, 2, widths[s - 1], c), f"down{s}_b": (c,)})
        for d in range(depth):
            k = f"s{s}b{d}"
            shapes.update({f"{k}_n1_g": (c,), f"{k}_n1_b": (c,),
                           f"{k}_f": (c, 2 * c + levels + 1), f"{k}_f_b": (2 * c + levels + 1,),
                           f"{k}_h": (c, c), f"{k}_h_b": (c,), f"{k}_proj": (c, c),
                           f"{k}_proj_b": (c,), f"{k}_n2_g": (c,), f"{k}_n2_b": (c,),
                           f"{k}_fc1": (c, 4 * c), f"{k}_fc1_b": (4 * c,),
                           f"{k}_fc2": (4 * c, c), f"{k}_fc2_b": (c,)})
            shapes.update({f"{k}_dw{l}": (size, size, 1, c) for l, size in enumerate(kernels)})
    shapes.update({"final_g": (widths[-1],), "final_b": (widths[-1],),
                   "head": (widths[-1], classes), "head_b": (classes,)})
    p = _params(shapes, seed=8, dtype=bf16)

    def modulate(p, k, x):
        c = x.shape[-1]
        y = x @ p[f"{k}_f"] + p[f"{k}_f_b"]
        q, ctx, gates = y[..., :c], y[..., c:2 * c], y[..., 2 * c:]
        total = jnp.zeros_like(ctx)
        for l in range(levels):
            ctx = jax.nn.gelu(_conv(ctx, p[f"{k}_dw{l}"], groups=c))
            total = total + ctx * gates[..., l:l + 1]
        glob = jax.nn.gelu(ctx.astype(f32).mean((1, 2), keepdims=True)).astype(bf16)
        total = (total + glob * gates[..., levels:]) / (levels + 1)
        modulator = total @ p[f"{k}_h"] + p[f"{k}_h_b"]
        return (q * modulator) @ p[f"{k}_proj"] + p[f"{k}_proj_b"]

    def loss_fn(p, images, labels):
        x = _conv(images, p["stem"], patch, "VALID") + p["stem_b"]
        for s in range(len(widths)):
            if s:
                x = _conv(x, p[f"down{s}"], 2, "VALID") + p[f"down{s}_b"]
            for d in range(depth):
                k = f"s{s}b{d}"
                x = x + modulate(p, k, _layer_norm(x, p[f"{k}_n1_g"], p[f"{k}_n1_b"]))
                h = _layer_norm(x, p[f"{k}_n2_g"], p[f"{k}_n2_b"])
                x = x + jax.nn.gelu(h @ p[f"{k}_fc1"] + p[f"{k}_fc1_b"]) @ p[f"{k}_fc2"] \
                    + p[f"{k}_fc2_b"]
        x = _layer_norm(x.astype(f32).mean((1, 2)), p["final_g"], p["final_b"])
        return _cross_entropy(x @ p["head"].astype(f32) + p["head_b"].astype(f32), labels)

    rng = np.random.default_rng(8)
    labels = rng.integers(0, classes, batch)
    prototypes = _smooth_images(rng, classes, side, 3, 3.0)
    images = 0.8 * prototypes[labels] + 0.6 * _smooth_images(rng, batch, side, 3, 8.0)
    return _train("flora", loss_fn, p, jnp.asarray(images, bf16), jnp.asarray(labels, jnp.int32))


def cfc_irregular(batch: int = 64, steps: int = 64, features: int = 12, hidden: int = 64,
                  backbone: int = 128) -> Any:
    """Classification of irregularly sampled multivariate series by a closed-form
    continuous-time network (CfC, Hasani et al.): at each of 64 observations, spaced by
    exponential gaps and with about a third of the twelve features missing, a LeCun-tanh
    backbone over the masked values, the mask, the log gap and the state feeds two tanh
    heads and a time gate sigmoid(-f(x) t + g(x)) that blends them by the elapsed time,
    in a `lax.scan`; a linear read-out of the last state gives a logit. Binary
    cross-entropy; cyclical stochastic-gradient Hamiltonian Monte Carlo (the posterior
    sampled in the last fifth of every cosine cycle of the step size)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    p = _params({"bb": (2 * features + 1 + hidden, backbone), "bb_b": (backbone,),
                 "ff1": (backbone, hidden), "ff1_b": (hidden,),
                 "ff2": (backbone, hidden), "ff2_b": (hidden,),
                 "ta": (backbone, hidden), "ta_b": (hidden,),
                 "tb": (backbone, hidden), "tb_b": (hidden,),
                 "out": (hidden, 1), "out_b": (1,)}, seed=9)

    def lecun_tanh(x):
        return 1.7159 * jnp.tanh(0.666 * x)

    def loss_fn(p, values, mask, gaps, labels):
        b = values.shape[0]
        inputs = jnp.concatenate([values * mask, mask, jnp.log1p(gaps)[..., None]], -1)

        def cell(h, step):
            x, dt = step
            z = lecun_tanh(jnp.concatenate([x, h], -1) @ p["bb"] + p["bb_b"])
            head1 = jnp.tanh(z @ p["ff1"] + p["ff1_b"])
            head2 = jnp.tanh(z @ p["ff2"] + p["ff2_b"])
            gate = jax.nn.sigmoid(-(z @ p["ta"] + p["ta_b"]) * dt[:, None]
                                  + z @ p["tb"] + p["tb_b"])
            return head1 * (1.0 - gate) + gate * head2, None

        h, _ = lax.scan(cell, jnp.zeros((b, hidden)),
                        (jnp.swapaxes(inputs, 0, 1), jnp.swapaxes(gaps, 0, 1)))
        logit = (h @ p["out"] + p["out_b"])[:, 0]
        return jnp.mean(jax.nn.softplus(logit) - labels * logit)

    rng = np.random.default_rng(9)
    gaps = rng.exponential(1.0, (batch, steps))
    times = np.cumsum(gaps, 1)
    labels = rng.integers(0, 2, batch).astype(np.float32)
    frequency = np.where(labels[:, None] > 0, 0.35, 0.2) * rng.uniform(0.8, 1.2, (batch, 1))
    phase = rng.uniform(0, 2 * np.pi, (batch, 1))
    latent = np.stack([np.sin(frequency * times + phase), np.cos(0.5 * frequency * times),
                       np.exp(-0.02 * times) * labels[:, None]], -1)
    mixing = rng.standard_normal((3, features))
    values = latent @ mixing + 0.2 * rng.standard_normal((batch, steps, features))
    mask = (rng.uniform(size=values.shape) > 0.35).astype(np.float32)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("cyclical_sghmc", loss_fn, p, f32(values), f32(mask), f32(gaps), f32(labels))


def mmoe_ctr(batch: int = 512, fields: int = 26, rows: int = 1000, dense: int = 13,
             embed: int = 16, experts: int = 6, hidden: tuple[int, int] = (192, 96),
             tower: int = 48, alpha: float = 1.5) -> Any:
    """Click and purchase prediction by a multi-gate mixture of experts (MMoE, Ma et al.)
    in bfloat16, with the two task losses balanced by GradNorm (Chen et al.): 26
    categorical fields (rows of one embedding table gathered at per-field offsets) and
    13 log-scaled counts feed six expert MLPs (192 and 96 units, stacked weights under
    einsums); each task mixes the experts by its own softmax gate and has its own tower.
    One `vjp` of the vector of the two task losses is pulled back three times: by the
    task weights (the gradient of the weighted loss for Adam) and by each unit vector,
    of which only the gradient of the experts' last layer is kept (so XLA drops the
    rest); the task weights then follow the gradient of sum_i |w_i ||g_i|| - mean_j
    (w_j ||g_j||) r_i^1.5|, r_i the task's loss ratio to its first loss relative to the
    other's, and are renormalized to sum to two."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    width = fields * embed + dense
    shapes: dict[str, tuple[int, ...]] = {"table": (fields * rows, embed),
                                          "x1": (experts, width, hidden[0]),
                                          "x1_b": (experts, hidden[0]),
                                          "x2": (experts, hidden[0], hidden[1]),
                                          "x2_b": (experts, hidden[1])}
    tasks = ("click", "buy")
    for t in tasks:
        shapes.update({f"{t}_gate": (width, experts), f"{t}_gate_b": (experts,),
                       f"{t}_t1": (hidden[1], tower), f"{t}_t1_b": (tower,),
                       f"{t}_t2": (tower, 1), f"{t}_t2_b": (1,)})
    p = _params(shapes, seed=10, dtype=bf16)
    rng = np.random.default_rng(10)
    p["table"] = jnp.asarray(0.05 * rng.standard_normal((fields * rows, embed)), bf16)
    for k in ("x1", "x2"):
        p[k] = (p[k].astype(f32) * math.sqrt(experts)).astype(bf16)

    def losses(p, ids, counts, labels):
        b = ids.shape[0]
        e = p["table"][ids + jnp.arange(fields) * rows].reshape(b, fields * embed)
        x = jnp.concatenate([e, counts], -1)
        h = jax.nn.relu(jnp.einsum("bi,eio->beo", x, p["x1"]) + p["x1_b"])
        h = jax.nn.relu(jnp.einsum("beo,eoj->bej", h, p["x2"]) + p["x2_b"])
        out = []
        for i, t in enumerate(tasks):
            gate = jax.nn.softmax((x @ p[f"{t}_gate"] + p[f"{t}_gate_b"]).astype(f32), -1)
            mixed = jnp.einsum("be,bej->bj", gate.astype(bf16), h)
            logit = (jax.nn.relu(mixed @ p[f"{t}_t1"] + p[f"{t}_t1_b"]) @ p[f"{t}_t2"]
                     + p[f"{t}_t2_b"])[:, 0].astype(f32)
            out.append(jnp.mean(jax.nn.softplus(logit) - labels[:, i] * logit))
        return jnp.stack(out)

    rate, b1, b2, weight_rate = 1e-3, 0.9, 0.999, 0.025
    tm = jax.tree.map

    def step(params, state, ids, counts, labels):
        m, v, weights, first, t = state
        values, pull = jax.vjp(lambda q: losses(q, ids, counts, labels), params)
        (grads,) = pull(weights)
        norms = jnp.stack([jnp.sqrt(jnp.sum(jnp.square(pull(jnp.eye(2, dtype=f32)[i])[0]["x2"]
                                                       .astype(f32)))) for i in range(2)])
        first = jnp.where(t == 0, values, first)
        scaled = weights * norms
        ratio = values / first
        target = jnp.mean(scaled) * (ratio / jnp.mean(ratio)) ** alpha
        weights = jnp.maximum(weights - weight_rate * jnp.sign(scaled - target) * norms, 1e-3)
        weights = 2.0 * weights / jnp.sum(weights)
        t = t + 1
        n = t.astype(f32)
        g = tm(lambda a: a.astype(f32), grads)
        m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
        v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
        params = tm(lambda w, m_, v_: (w.astype(f32) - rate * (m_ / (1.0 - b1 ** n))
                                       / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8)).astype(w.dtype),
                    params, m, v)
        return params, (m, v, weights, first, t), values

    ids = np.minimum(rng.zipf(1.3, (batch, fields)) - 1, rows - 1)
    counts = np.log1p(rng.lognormal(1.0, 1.5, (batch, dense)))
    effect = rng.standard_normal((2, fields, rows)) * 0.5
    score = effect[:, np.arange(fields), ids].sum(-1) + (counts @ rng.standard_normal((dense, 2))).T
    click = rng.uniform(size=batch) < 1.0 / (1.0 + np.exp(-(0.3 * score[0] - 2.0)))
    buy = click & (rng.uniform(size=batch) < 1.0 / (1.0 + np.exp(-(0.3 * score[1] - 1.5))))
    labels = np.stack([click, buy], 1).astype(np.float32)
    zeros = tm(lambda w: jnp.zeros(w.shape, f32), p)
    state = (zeros, zeros, jnp.ones(2, f32), jnp.ones(2, f32), jnp.zeros((), jnp.int32))
    return jax.jit(step).lower(p, state, jnp.asarray(ids, jnp.int32), jnp.asarray(counts, bf16),
                               jnp.asarray(labels))


def bellman_ford_routing(side: int = 48, depots: int = 16, highways: int = 48,
                         removed: float = 0.1, max_rounds: int = 400) -> Any:
    """Shortest travel times from sixteen depots over a road network by Bellman-Ford: a
    48x48 street grid (2304 junctions) with a tenth of its streets closed, lognormal travel
    times that differ by direction, and 48 two-way highways between random junctions,
    the edges sorted by destination. Every round relaxes all edges for all depots at once
    (the tails' times gathered, a `segment_min` at the heads) in a `while_loop` that stops
    once no time improves (capped at 400 rounds). A shortest-path tree per depot is then
    read off the tight edges by a `segment_max` of their indices, and the number of hops
    from the depot by pointer doubling over the parents in a `fori_loop` of twelve
    levels; each junction's nearest depot, the service-area sizes (`segment_sum`), the
    eccentricities and the number of rounds come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = side * side
    levels = math.ceil(math.log2(n))

    def run(src, dst, weight, sources):
        e = src.shape[0]
        rows = jnp.arange(depots)
        start = jnp.full((depots, n), jnp.inf).at[rows, sources].set(0.0)

        def unfinished(carry):
            i, _, changed = carry
            return changed & (i < max_rounds)

        def relax(carry):
            i, dist, _ = carry
            candidate = dist[:, src] + weight
            best = jax.ops.segment_min(candidate.T, dst, n, indices_are_sorted=True).T
            new = jnp.minimum(dist, best)
            return i + 1, new, jnp.any(new < dist)

        rounds, dist, _ = lax.while_loop(unfinished, relax,
                                         (jnp.int32(0), start, jnp.bool_(True)))
        candidate = dist[:, src] + weight
        tight = (candidate <= dist[:, dst]) & jnp.isfinite(candidate)
        edge = jnp.where(tight, jnp.arange(e), -1)
        chosen = jax.ops.segment_max(edge.T, dst, n, indices_are_sorted=True).T
        root = jnp.zeros((depots, n), bool).at[rows, sources].set(True)
        itself = jnp.broadcast_to(jnp.arange(n), (depots, n))
        parent = jnp.where((chosen >= 0) & ~root, src[jnp.maximum(chosen, 0)], itself)

        def double(_, carry):
            hops, up = carry
            return hops + jnp.take_along_axis(hops, up, 1), jnp.take_along_axis(up, up, 1)

        hops, _ = lax.fori_loop(0, levels, double, ((parent != itself).astype(jnp.int32), parent))
        reachable = jnp.isfinite(dist)
        eccentricity = jnp.max(jnp.where(reachable, dist, 0.0), 1)
        nearest = jnp.argmin(dist, 0)
        area = jax.ops.segment_sum(jnp.ones(n), nearest, depots)
        served = jnp.min(dist, 0)
        covered = jnp.isfinite(served)
        average = jnp.sum(jnp.where(covered, served, 0.0)) / jnp.maximum(jnp.sum(covered), 1)
        return (dist, parent, hops, rounds, eccentricity, nearest, area, average,
                jnp.sum(reachable, 1))

    rng = np.random.default_rng(11)
    yy, xx = np.divmod(np.arange(n), side)
    right, down = np.flatnonzero(xx < side - 1), np.flatnonzero(yy < side - 1)
    a = np.concatenate([right, down])
    b = np.concatenate([right + 1, down + side])
    keep = rng.uniform(size=a.size) >= removed
    a, b = a[keep], b[keep]
    cost = rng.lognormal(0.0, 0.5, a.size)
    hub_a, hub_b = rng.integers(0, n, highways), rng.integers(0, n, highways)
    hub_cost = 0.2 * np.hypot(yy[hub_a] - yy[hub_b], xx[hub_a] - xx[hub_b]) + 1.0
    src = np.concatenate([a, b, hub_a, hub_b])
    dst = np.concatenate([b, a, hub_b, hub_a])
    weight = np.concatenate([cost, cost * rng.uniform(0.8, 1.25, cost.size), hub_cost, hub_cost])
    order = np.argsort(dst, kind="stable")
    sources = rng.choice(n, depots, replace=False)
    i32 = lambda v: jnp.asarray(v, jnp.int32)
    return jax.jit(run).lower(i32(src[order]), i32(dst[order]),
                              jnp.asarray(weight[order], jnp.float32), i32(sources))


def cloth_pbd(side: int = 48, steps: int = 60, iterations: int = 10, spacing: float = 0.04,
              radius: float = 0.45, relaxation: float = 1.5, damping: float = 0.995) -> Any:
    """Cloth simulation by position-based dynamics (Mueller et al.): a 48x48 sheet of 2304
    particles dropped flat onto a sphere above the ground, 60 steps of 1/60 s in a
    `fori_loop`. Every step predicts positions under gravity and runs ten Jacobi
    iterations of constraint projection in an inner `fori_loop`: each of 13 346 distance
    constraints (structural, shear and bending, stiffness 1, 0.5 and 0.2) gathers its two
    particles and splits its correction between them, the corrections summed per
    particle by `segment_sum`, averaged over the particle's constraints and
    over-relaxed by 1.5; the sphere and the ground push particles out after every
    iteration. Velocities come from the moved positions, damped; the final sheet, its
    velocities and per-step traces of the worst stretch, the kinetic energy and the
    number of particles in contact come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = side * side
    dt = 1.0 / 60.0
    gravity = jnp.asarray([0.0, -9.81, 0.0])
    centre = jnp.asarray([0.0, 0.6, 0.0])

    def collide(q):
        relative = q - centre
        length = jnp.sqrt(jnp.sum(relative * relative, -1, keepdims=True) + 1e-12)
        inside = length < radius + 0.01
        q = jnp.where(inside, centre + relative / length * (radius + 0.01), q)
        return q.at[:, 1].max(0.0), inside[:, 0] | (q[:, 1] <= 0.0)

    def run(x, v, i, j, rest, stiffness, share):
        def project(_, q):
            d = q[j] - q[i]
            length = jnp.sqrt(jnp.sum(d * d, -1) + 1e-12)
            correction = (0.5 * stiffness * (length - rest) / length)[:, None] * d
            delta = jax.ops.segment_sum(correction, i, n) - jax.ops.segment_sum(correction, j, n)
            q, _ = collide(q + relaxation * delta * share[:, None])
            return q

        def step(s, carry):
            x, v, stretch, energy, contacts = carry
            q = lax.fori_loop(0, iterations, project, x + dt * v + dt * dt * gravity)
            q, touching = collide(q)
            v = damping * (q - x) / dt
            v = jnp.where(touching[:, None], 0.9 * v, v)
            d = q[j] - q[i]
            worst = jnp.max(jnp.abs(jnp.sqrt(jnp.sum(d * d, -1)) - rest) / rest)
            return (q, v, stretch.at[s].set(worst), energy.at[s].set(0.5 * jnp.sum(v * v)),
                    contacts.at[s].set(jnp.sum(touching)))

        start = (x, v, jnp.zeros(steps), jnp.zeros(steps), jnp.zeros(steps, jnp.int32))
        return lax.fori_loop(0, steps, step, start)

    index = np.arange(n).reshape(side, side)
    pairs = [(index[:, :-1], index[:, 1:], 1.0), (index[:-1], index[1:], 1.0),
             (index[:-1, :-1], index[1:, 1:], 0.5), (index[:-1, 1:], index[1:, :-1], 0.5),
             (index[:, :-2], index[:, 2:], 0.2), (index[:-2], index[2:], 0.2)]
    i = np.concatenate([a.reshape(-1) for a, _, _ in pairs])
    j = np.concatenate([b.reshape(-1) for _, b, _ in pairs])
    stiffness = np.concatenate([np.full(a.size, k) for a, _, k in pairs])
    gx, gz = np.meshgrid((np.arange(side) - (side - 1) / 2) * spacing,
                         (np.arange(side) - (side - 1) / 2) * spacing)
    rng = np.random.default_rng(12)
    x = np.stack([gx.reshape(-1), np.full(n, 1.3), gz.reshape(-1)], -1)
    x += 0.002 * rng.standard_normal(x.shape)
    rest = np.linalg.norm(x[j] - x[i], axis=-1)
    share = 1.0 / (np.bincount(i, minlength=n) + np.bincount(j, minlength=n))
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return jax.jit(run).lower(f32(x), f32(np.zeros_like(x)), i32(i), i32(j), f32(rest),
                              f32(stiffness), f32(share))


def multispectral_indices(scenes: int = 4, side: int = 1024, tile: int = 64) -> Any:
    """Remote sensing: spectral indices, a cloud mask and a land-cover map for four
    1024x1024 scenes of six bands (blue, green, red, near infrared and two short-wave
    infrared) stored band by band as uint16 digital numbers, 50 MB in all, by a
    memory-bound chain of elementwise maps and reductions: reflectance from the digital
    numbers by a scale and an offset, NDVI, EVI, SAVI, NDWI, MNDWI, NDBI and NBR, a cloud
    test from brightness, whiteness, a haze-optimized difference and the second
    short-wave band, a uint8 land-cover code (no data, cloud, water, dense and sparse
    vegetation, built-up, bare) by nested thresholds; then means of the indices over the
    clear pixels of every 64x64 tile, each tile's class fractions, and per scene the
    cloud cover, the clear-sky band means and the NDVI spread. The code map, NDVI in
    int16 and the tile and scene statistics come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    classes = 7

    def run(dn):
        f32 = jnp.float32
        valid = dn[:, 3] > 0
        refl = jnp.clip(dn.astype(f32) * 2.75e-5 - 0.2, 0.0, 1.0)
        blue, green, red, nir, swir1, swir2 = (refl[:, k] for k in range(6))

        def ratio(a, b):
            return (a - b) / (a + b + 1e-6)

        ndvi, ndwi, mndwi = ratio(nir, red), ratio(green, nir), ratio(green, swir1)
        ndbi, nbr = ratio(swir1, nir), ratio(nir, swir2)
        evi = 2.5 * (nir - red) / (nir + 6.0 * red - 7.5 * blue + 1.0)
        savi = 1.5 * (nir - red) / (nir + red + 0.5)
        brightness = (blue + green + red) / 3.0
        whiteness = (jnp.abs(blue - brightness) + jnp.abs(green - brightness)
                     + jnp.abs(red - brightness)) / (brightness + 1e-6)
        haze = blue - 0.5 * red - 0.08
        cloud = valid & (brightness > 0.25) & (whiteness < 0.7) & (haze > 0.0) & (swir2 > 0.03)
        clear = valid & ~cloud
        code = jnp.where(~valid, 0, jnp.where(cloud, 1, jnp.where(
            mndwi > 0.1, 2, jnp.where(ndvi > 0.5, 3, jnp.where(ndvi > 0.2, 4, jnp.where(
                ndbi > 0.0, 5, 6))))))
        code = code.astype(jnp.uint8)
        weight = clear.astype(f32)
        grid = side // tile

        def tiles(a):
            return a.reshape(scenes, grid, tile, grid, tile).sum((2, 4))

        count = tiles(weight)
        means = jnp.stack([tiles(a * weight) for a in (ndvi, evi, savi, ndwi, nbr)], -1)
        means = means / jnp.maximum(count, 1.0)[..., None]
        fractions = jnp.stack([tiles((code == c).astype(f32)) for c in range(classes)], -1)
        fractions = fractions / (tile * tile)
        clear_total = jnp.maximum(jnp.sum(weight, (1, 2)), 1.0)
        band_means = jnp.sum(refl * weight[:, None], (2, 3)) / clear_total[:, None]
        ndvi_mean = jnp.sum(ndvi * weight, (1, 2)) / clear_total
        ndvi_spread = jnp.sqrt(jnp.sum(jnp.square(ndvi - ndvi_mean[:, None, None]) * weight,
                                       (1, 2)) / clear_total)
        cover = jnp.sum(cloud, (1, 2)) / jnp.maximum(jnp.sum(valid, (1, 2)), 1)
        ndvi_int = jnp.round(jnp.where(clear, ndvi, -1.0) * 10000.0).astype(jnp.int16)
        return code, ndvi_int, means, fractions, cover, band_means, ndvi_mean, ndvi_spread

    rng = np.random.default_rng(13)
    coarse = side // 4
    land = _smooth_images(rng, scenes, coarse, 4, 4.0).argmax(-1)
    clouds = _smooth_images(rng, scenes, coarse, 1, 3.0)[..., 0] > 1.0
    spectra = np.asarray([[0.06, 0.05, 0.03, 0.02, 0.01, 0.01],     # water
                          [0.03, 0.07, 0.04, 0.40, 0.20, 0.09],     # vegetation
                          [0.10, 0.14, 0.18, 0.25, 0.32, 0.26],     # bare soil
                          [0.12, 0.13, 0.14, 0.18, 0.24, 0.21]])    # built-up
    refl = spectra[land].transpose(0, 3, 1, 2)
    refl = np.where(clouds[:, None], 0.45 + 0.05 * rng.uniform(size=(1, 6, 1, 1)), refl)
    refl = np.repeat(np.repeat(refl.astype(np.float32), 4, 2), 4, 3)
    refl *= 1.0 + 0.08 * rng.standard_normal((scenes, 1, side, side), np.float32)
    refl += 0.01 * rng.standard_normal(refl.shape, np.float32)
    dn = np.clip((refl + 0.2) / 2.75e-5, 1, 65535).astype(np.uint16)
    dn[:, :, :40, :] = 0
    return jax.jit(run).lower(jnp.asarray(dn))


def quantile_normalization(genes: int = 16384, samples: int = 48, variable: int = 2000) -> Any:
    """Bioinformatics: normalization and sample quality control of an expression matrix of
    16384 genes in 48 samples (negative-binomial counts with per-sample depth and a
    per-sample nonlinear distortion). The counts are log-transformed and quantile
    normalized: every sample sorted by an `argsort`, the mean of the sorted columns
    scattered back to each sample's order; per-gene medians and median absolute
    deviations by sorting every gene's 48 values (twice); the 2000 most dispersed genes by
    `top_k`, ranked within each sample by another `argsort` and a scatter, give the
    Spearman correlations between all samples by one matrix product. Robust z-scores,
    each sample's share of outlying genes, its nearest sample and its standardized mean
    correlation (connectivity) come back with the normalized matrix."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(counts):
        f32 = jnp.float32
        x = jnp.log2(counts + 1.0)
        cols = jnp.arange(samples)[None, :]
        order = jnp.argsort(x, 0)
        reference = jnp.mean(jnp.take_along_axis(x, order, 0), 1)
        normalized = jnp.zeros_like(x).at[order, cols].set(
            jnp.broadcast_to(reference[:, None], x.shape))
        half = samples // 2

        def median(a):
            s = jnp.sort(a, 1)
            return 0.5 * (s[:, half - 1] + s[:, half])

        centre = median(normalized)
        spread = median(jnp.abs(normalized - centre[:, None]))
        mean, var = normalized.mean(1), normalized.var(1)
        _, chosen = lax.top_k(var / (mean + 1.0), variable)
        picked = normalized[chosen]
        ranks = jnp.zeros_like(picked).at[jnp.argsort(picked, 0), cols].set(
            jnp.broadcast_to(jnp.arange(variable, dtype=f32)[:, None], picked.shape))
        ranks = ranks - 0.5 * (variable - 1)
        cov = ranks.T @ ranks
        scale = jnp.sqrt(jnp.diagonal(cov))
        spearman = cov / (scale[:, None] * scale[None, :])
        z = (normalized - centre[:, None]) / (1.4826 * spread[:, None] + 1e-3)
        outlying = jnp.mean((jnp.abs(z) > 3.5).astype(f32), 0)
        neighbour = jnp.argmax(spearman - 2.0 * jnp.eye(samples), 1)
        connectivity = (jnp.sum(spearman, 1) - 1.0) / (samples - 1)
        connectivity = (connectivity - connectivity.mean()) / (connectivity.std() + 1e-6)
        return normalized, centre, spread, chosen, spearman, outlying, neighbour, connectivity

    rng = np.random.default_rng(14)
    level = rng.lognormal(3.0, 2.0, genes)
    depth = rng.lognormal(0.0, 0.3, samples)
    bend = rng.uniform(0.85, 1.15, samples)
    mean = (level[:, None] ** bend[None, :]) * depth[None, :]
    shape = 5.0
    counts = rng.poisson(rng.gamma(shape, mean / shape)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(counts))


def trueskill_tournament(players: int = 8192, rounds: int = 128, draw: float = 0.1,
                         board: int = 100) -> Any:
    """Rating a Swiss-style online league by TrueSkill (Herbrich, Minka and Graepel): 8192
    players with hidden skills play 128 rounds in a `fori_loop`; every round draws the
    pairings by an `argsort` of the current means plus noise (neighbours in that order
    meet), samples the performances (a draw when they differ by less than the draw
    margin of a 10% draw rate), updates both players' means and variances by the
    truncated-Gaussian corrections v and w for a win or a draw (`log_ndtr`, `ndtr`),
    gathered by the pairings and scattered back, after the dynamics noise, and records
    how often the higher-rated player won. The ratings, the accuracy per round, the
    Spearman correlation of the conservative ratings (mean minus three deviations) with
    the hidden skills (ranks by `argsort` and a scatter) and the top 100 by `top_k`
    come back."""
    from statistics import NormalDist

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.scipy.special import log_ndtr, ndtr
    from jax.scipy.stats import norm

    mu0, sigma0 = 25.0, 25.0 / 3.0
    beta, tau = sigma0 / 2.0, sigma0 / 100.0
    margin = NormalDist().inv_cdf((draw + 1.0) / 2.0) * math.sqrt(2.0) * beta

    def win_terms(t, e):
        x = t - e
        v = jnp.exp(norm.logpdf(x) - log_ndtr(x))
        return v, v * (v + x)

    def draw_terms(t, e):
        low, high = -e - t, e - t
        mass = jnp.maximum(ndtr(high) - ndtr(low), 1e-12)
        v = (norm.pdf(low) - norm.pdf(high)) / mass
        w = v * v + (high * norm.pdf(high) - low * norm.pdf(low)) / mass
        return v, w

    def run(skill, key):
        def play(r, carry):
            mu, sigma, accuracy = carry
            k_pair, k_perf = jax.random.split(jax.random.fold_in(key, r))
            order = jnp.argsort(mu + 3.0 * jax.random.normal(k_pair, (players,)))
            a, b = order[0::2], order[1::2]
            var = sigma * sigma + tau * tau
            performance = skill + beta * jax.random.normal(k_perf, (players,))
            diff = performance[a] - performance[b]
            drawn = jnp.abs(diff) < margin
            a_won = diff > 0.0
            win, lose = jnp.where(a_won, a, b), jnp.where(a_won, b, a)
            c2 = 2.0 * beta * beta + var[win] + var[lose]
            c = jnp.sqrt(c2)
            t, e = (mu[win] - mu[lose]) / c, margin / c
            v_win, w_win = win_terms(t, e)
            v_draw, w_draw = draw_terms(t, e)
            v = jnp.where(drawn, v_draw, v_win)
            w = jnp.clip(jnp.where(drawn, w_draw, w_win), 0.0, 1.0)
            right = jnp.where(drawn, 0.0, ((mu[a] > mu[b]) == a_won).astype(jnp.float32))
            accuracy = accuracy.at[r].set(jnp.sum(right) / jnp.maximum(jnp.sum(~drawn), 1))
            mu = mu.at[win].add(var[win] / c * v).at[lose].add(-var[lose] / c * v)
            var = (var.at[win].multiply(jnp.maximum(1.0 - var[win] / c2 * w, 1e-4))
                   .at[lose].multiply(jnp.maximum(1.0 - var[lose] / c2 * w, 1e-4)))
            return mu, jnp.sqrt(var), accuracy

        start = (jnp.full(players, mu0), jnp.full(players, sigma0), jnp.zeros(rounds))
        mu, sigma, accuracy = lax.fori_loop(0, rounds, play, start)
        conservative = mu - 3.0 * sigma
        places = jnp.arange(players, dtype=jnp.float32)

        def ranks(values):
            return jnp.zeros(players).at[jnp.argsort(values)].set(places) - 0.5 * (players - 1)

        estimated, true = ranks(conservative), ranks(skill)
        spearman = jnp.sum(estimated * true) / jnp.sqrt(jnp.sum(estimated ** 2)
                                                        * jnp.sum(true ** 2))
        leaders, top = lax.top_k(conservative, board)
        return mu, sigma, accuracy, spearman, top, leaders, jnp.mean(sigma)

    rng = np.random.default_rng(15)
    skill = mu0 + sigma0 * rng.standard_normal(players)
    return jax.jit(run).lower(jnp.asarray(skill, jnp.float32), jax.random.PRNGKey(15))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "dreamer_world_model/8x16x32px-rssm128+32": dreamer_world_model,
    "centernet_detector/8x64px-3-classes": centernet_detector,
    "pointer_generator/16x96+24-v1024+32": pointer_generator,
    "informer_forecaster/8x192+48+24-d128-bf16": informer_forecaster,
    "diffpool_graphs/128x40-nodes-10-clusters": diffpool_graphs,
    "stgcn_traffic/8x12-steps-160-sensors": stgcn_traffic,
    "iwae_glyphs/4x16x28px-k16": iwae_glyphs,
    "focalnet_classifier/12x32px-48-96-bf16": focalnet_classifier,
    "cfc_irregular/64x64-steps-h64": cfc_irregular,
    "mmoe_ctr/512x26-fields-6-experts-bf16": mmoe_ctr,
    "bellman_ford_routing/48x48-16-depots-max400": bellman_ford_routing,
    "cloth_pbd/48x48-60-steps-10-iterations": cloth_pbd,
    "multispectral_indices/4x6x1024x1024": multispectral_indices,
    "quantile_normalization/16384x48": quantile_normalization,
    "trueskill_tournament/8192-players-128-rounds": trueskill_tournament,
}
