"""The fourteenth never-seen set: programs written on 2026-11-27, after the thirteenth set
(benchmarks/never_seen_13/) had been committed, and never used to choose anything: not
for a feature, a default, a fallback threshold or a model. They exist to judge the next
trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-14` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
thirteen never-seen sets has; as in the three sets before it, several training steps are
large (a few gigaflops each) and the rest mid-sized. Ten are training steps (forward,
loss, backward and an optimizer update). A ShuffleNetV2 classifier at half width splits
the channels of every unit in two, runs one half through a pointwise, depthwise and
pointwise sequence (a downsampling unit sends its whole input down two strided branches)
and interleaves the halves again by a channel shuffle (a reshape and a transpose); its
gradients come from four microbatches under `vmap`, each with its own batch statistics.
A YOLO-style single-shot detector learns from images of coloured shapes on an 8x8 grid
with three anchors: the responsible cell and anchor of every ground-truth box are found
inside the step (the anchor by its shape's IoU with the box) and the targets are
scattered into place, box centres are trained through sigmoids and sizes in log space,
and predicted boxes that already overlap some box well are left out of the background
objectness loss. ELECTRA in bfloat16 pretrains a small generator and a larger
discriminator that share their token embeddings: the generator fills the masked fifteen
per cent of each sequence's positions (picked by `top_k` over random keys), its
replacements are drawn by the Gumbel-max trick, and the discriminator tells replaced
tokens from original ones under a binary cross-entropy weighted fifty times the
generator's masked-language loss. A gMLP image classifier in bfloat16 mixes 64 patch
tokens by spatial gating units, half of each block's expanded channels normalized and
projected across the tokens (weights near zero, biases at one) and multiplied into the
other half. A BiLSTM-CRF tagger reads padded sentences with a forward and a reverse
`lax.scan` of masked LSTM cells and scores 17 tags by a linear-chain CRF, the log
partition function by the forward algorithm (a log-sum-exp `lax.scan` over the tokens)
less the gathered score of the gold path. A Kim-style convolutional text classifier (1-D
convolutions of widths 3, 4 and 5 over word embeddings, max over time, dropout, a
max-norm limit on the output weights) is trained by elastic averaging across four
replicas under `vmap`. NeuMF recommends items from implicit feedback by fusing a
generalized matrix factorization of one pair of embedding tables with an MLP over
another pair, under binary cross-entropy against four sampled negatives per positive. An
IMPALA learner on vector observations corrects its off-policy trajectories by V-trace
targets from a reverse `lax.scan` (truncated importance weights, per-step discounts that
end episodes) and trains policy-gradient, baseline and entropy terms. A message-passing
neural network for small molecules packed in one node table generates a 48x48 matrix per
bond from bond type and distance features, passes messages three times by batched
matrix-vector products and `segment_sum`, updates atoms by a GRU and reads every graph
out by Set2Set (an LSTM query attending over its own atoms by a segment softmax). A
generative latent optimization model in bfloat16 fits a StyleGAN2-style generator and
one learned latent code per image of a data set jointly: codes gathered from a table and
normalized onto the sphere, a mapping network, weight-modulated and demodulated
convolutions from a learned 4x4 constant up to 32x32 with injected noise and skip RGB
outputs, under a Laplacian-pyramid L1 loss. Five are inference or scientific steps
without a gradient: value iteration for four stochastic, windy 40x40 gridworlds with
walls, pits and a goal, Bellman backups gathering successor values in a `while_loop`
that stops when the largest change of any value is small enough for a 1e-4-optimal
policy (capped at 2000 iterations), then the greedy policy's chance of reaching its goal
by pushing the start distribution through its Markov chain with scatter-adds in a
`fori_loop`; non-local means denoising of four noisy images, a `fori_loop` over the 225
offsets of a 15x15 search window, each a `dynamic_slice`d shifted image whose 7x7 patch
distances come from separable `reduce_window` sums and weigh it into the estimate;
Stam's stable fluids for rising smoke in a closed box, a `fori_loop` of time steps
adding buoyancy and vorticity confinement, advecting velocity, density and temperature
semi-Lagrangian by bilinear gathers and projecting onto divergence-free fields by an
inner `fori_loop` of Jacobi pressure iterations; autoregressive sampling from a small
decoder-only transformer, a prompt prefilled at once into a key-value cache and 64
tokens decoded in a `fori_loop` that writes each new key and value by
`dynamic_update_slice` and samples by temperature and nucleus (top-p) truncation over a
sorted `cumsum` of probabilities; and double SHA-256 of 16384 block headers in uint32
(the first block's midstate computed once per template, the 64 rounds of each
compression in a `fori_loop` that extends a 16-word message schedule in place), with the
difficulty of every hash counted by `clz` after a byte swap. The updates are all new to
these sets: AdaScale SGD (the learning rate scaled by a gain estimated from the spread
of the microbatch gradients, the schedule following the summed gains), SGDR (Nesterov
momentum with decoupled weight decay under cosine annealing with warm restarts whose
periods double), blockwise 8-bit Adam (the first moment stored as int8 and the square
root of the second as uint8, each block of 256 entries with its own float32 scale, small
tensors kept in float32), GaLore (Adam moments kept in a rank-16 projection of each
large matrix's gradient, the projector renewed every 200 steps under `lax.cond` by two
rounds of subspace iteration and Gram-Schmidt in a `fori_loop`), SGD with momentum on
clipped gradients plus annealed Gaussian noise, elastic averaging SGD (EASGD) with
momentum, LazyAdam (the embedding tables' moments and rows updated only where the batch
touched them), K-FAC (Kronecker-factored natural gradients from activation and
pre-activation-gradient covariances, factored Tikhonov damping, damped inverses by a
warm-started Newton-Schulz iteration in a `fori_loop`, the step clipped by its quadratic
KL estimate), AdaGrad-Norm (one scalar step size for the whole network) and layer-wise
DoG (distance over gradients, no learning rate); three training steps (ELECTRA, the gMLP
and the latent-optimized generator) run in bfloat16.
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
    last, drawn in order on the host by numpy's generator (no compilation per shape)."""
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
            noise = rng.standard_normal(shape, dtype=np.float32) * (scale / math.sqrt(fan_in))
            out[name] = jnp.asarray(noise, dtype)
    return out


def _unzip(tree_of_tuples: Any, like: Any, count: int) -> tuple[Any, ...]:
    """A tree whose leaves are `count`-tuples (shaped like `like`) as `count` trees."""
    import jax

    treedef = jax.tree.structure(like)
    flat = treedef.flatten_up_to(tree_of_tuples)
    return tuple(treedef.unflatten([leaf[i] for leaf in flat]) for i in range(count))


def _update_rule(name: str) -> tuple[Callable[[Any], Any], Callable[..., tuple[Any, Any]]]:
    """The named optimizer as (init, update): init(params) -> state, and
    update(params, grads, state) -> (params, state). State is float32 whatever the
    parameters' dtype, except the 8-bit Adam's quantized moments; every parameter keeps
    its own dtype."""
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

    def squared_norm(tree: Any) -> Any:
        return sum(jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(tree))

    def corrections(t: Any) -> tuple[Any, Any]:
        n = t.astype(f32)
        return 1.0 - 0.9 ** n, 1.0 - 0.999 ** n

    if name == "sgdr":
        # SGDR: Nesterov momentum SGD whose learning rate follows a cosine from its peak
        # to a floor and restarts, the first period 100 steps and each next one twice as
        # long; weight decay is decoupled from the gradient and scaled by the schedule
        peak, floor, first, momentum, decay = 0.05, 5e-4, 100.0, 0.9, 5e-4

        def sgdr(params, grads, state):
            buf, t = state
            n = t.astype(f32)
            cycle = jnp.floor(jnp.log2(n / first + 1.0))
            start = first * (2.0 ** cycle - 1.0)
            rate = floor + 0.5 * (peak - floor) * (
                1.0 + jnp.cos(jnp.pi * (n - start) / (first * 2.0 ** cycle)))
            g = wide(grads)
            buf = tm(lambda b, g_: momentum * b + g_, buf, g)

            def move(p, b, g_):
                p32 = p.astype(f32)
                shrink = rate / peak * decay * p32 if p.ndim >= 2 else 0.0
                return p32 - rate * (g_ + momentum * b) - shrink
            return recast(params, tm(move, params, buf, g)), (buf, t + 1)
        return (lambda p: (zeros(p), count())), sgdr

    if name == "adam_8bit":
        # blockwise 8-bit Adam: every tensor of at least 4096 entries keeps its moments in
        # blocks of 256, the first moment as int8 of m / max|m| and the second as uint8 of
        # sqrt(v) / max sqrt(v), each block with its float32 maximum; the moments are
        # dequantized, updated, used and quantized again within the step; smaller tensors
        # keep float32 moments
        block, smallest, rate = 256, 4096, 1e-3

        def to_blocks(x):
            flat = x.reshape(-1)
            return jnp.pad(flat, (0, -flat.size % block)).reshape(-1, block)

        def from_blocks(x, like):
            return x.reshape(-1)[:like.size].reshape(like.shape)

        def quantize(x, levels, dtype):
            top = jnp.max(jnp.abs(x), -1, keepdims=True) + 1e-12
            return jnp.round(x / top * levels).astype(dtype), top

        def adam8_init(params):
            def one(p):
                if p.size < smallest:
                    return jnp.zeros(p.shape, f32), jnp.zeros(p.shape, f32)
                rows = -(-p.size // block)
                return (jnp.zeros((rows, block), jnp.int8), jnp.zeros((rows, 1), f32),
                        jnp.zeros((rows, block), jnp.uint8), jnp.zeros((rows, 1), f32))
            return tm(one, params), count()

        def adam8(params, grads, state):
            moments, t = state
            t = t + 1
            c1, c2 = corrections(t)

            def move(p, g, s):
                g = g.astype(f32)
                if len(s) == 2:
                    m = 0.9 * s[0] + 0.1 * g
                    v = 0.999 * s[1] + 0.001 * g * g
                    step = (m / c1) / (jnp.sqrt(v / c2) + 1e-8)
                    return (p.astype(f32) - rate * step).astype(p.dtype), (m, v)
                qm, top_m, qv, top_v = s
                g = to_blocks(g)
                m = 0.9 * (qm.astype(f32) / 127.0 * top_m) + 0.1 * g
                v = 0.999 * jnp.square(qv.astype(f32) / 255.0 * top_v) + 0.001 * g * g
                step = from_blocks((m / c1) / (jnp.sqrt(v / c2) + 1e-8), p)
                qm, top_m = quantize(m, 127.0, jnp.int8)
                qv, top_v = quantize(jnp.sqrt(v), 255.0, jnp.uint8)
                return (p.astype(f32) - rate * step).astype(p.dtype), (qm, top_m, qv, top_v)
            params, moments = _unzip(tm(move, params, grads, moments), params, 2)
            return params, (moments, t)
        return adam8_init, adam8

    if name == "galore":
        # GaLore: each matrix whose sides are both at least 64 has its gradient projected
        # onto a rank-16 subspace of its shorter side, Adam runs on the projection and
        # the normalized step is projected back and scaled by 0.25; the projector is
        # renewed every 200 steps (under `lax.cond`) by two rounds of subspace iteration
        # from the last one, orthonormalized by Gram-Schmidt twice per column in a
        # `fori_loop`; every other tensor takes plain Adam
        rank, period, scale, rate = 16, 200, 0.25, 5e-3

        def low_rank(p):
            return p.ndim == 2 and min(p.shape) >= 4 * rank

        def orthonormal(y):
            def column(j, q):
                c = lax.dynamic_index_in_dim(y, j, 1, keepdims=False)
                c = c - q @ (q.T @ c)
                c = c - q @ (q.T @ c)
                c = c / (jnp.sqrt(jnp.sum(c * c)) + 1e-12)
                return lax.dynamic_update_index_in_dim(q, c, j, 1)
            return lax.fori_loop(0, rank, column, jnp.zeros_like(y))

        def galore_init(params):
            leaves, treedef = jax.tree.flatten(params)
            key = jax.random.PRNGKey(1404)
            states = []
            for i, p in enumerate(leaves):
                if not low_rank(p):
                    states.append((jnp.zeros(p.shape, f32), jnp.zeros(p.shape, f32)))
                    continue
                rows, cols = p.shape
                side = min(rows, cols)
                small = (rank, cols) if rows <= cols else (rows, rank)
                start = jax.random.normal(jax.random.fold_in(key, i), (side, rank)) / side ** 0.5
                states.append((start, jnp.zeros(small, f32), jnp.zeros(small, f32)))
            return treedef.unflatten(states), count()

        def galore(params, grads, state):
            moments, t = state
            refresh = t % period == 0
            t = t + 1
            c1, c2 = corrections(t)

            def adam(m, v, g):
                m = 0.9 * m + 0.1 * g
                v = 0.999 * v + 0.001 * g * g
                return m, v, (m / c1) / (jnp.sqrt(v / c2) + 1e-8)

            def move(p, g, s):
                g = g.astype(f32)
                if len(s) == 2:
                    m, v, step = adam(s[0], s[1], g)
                    return (p.astype(f32) - rate * step).astype(p.dtype), (m, v)
                proj, m, v = s
                left = p.shape[0] <= p.shape[1]

                def renew(q):
                    for _ in range(2):
                        q = orthonormal(g @ (g.T @ q) if left else g.T @ (g @ q))
                    return q
                proj = lax.cond(refresh, renew, lambda q: q, proj)
                m, v, step = adam(m, v, proj.T @ g if left else g @ proj)
                full = proj @ step if left else step @ proj.T
                return (p.astype(f32) - rate * scale * full).astype(p.dtype), (proj, m, v)
            params, moments = _unzip(tm(move, params, grads, moments), params, 2)
            return params, (moments, t)
        return galore_init, galore

    if name == "noisy_sgd":
        # SGD with momentum on gradients clipped to global norm 5, plus Gaussian noise of
        # variance 0.01 / (1 + t)^0.55 drawn afresh every step (Neelakantan et al.)
        rate, clip, eta, gamma, momentum = 0.02, 5.0, 0.01, 0.55, 0.9

        def noisy(params, grads, state):
            buf, t = state
            g = wide(grads)
            factor = jnp.minimum(1.0, clip / (jnp.sqrt(squared_norm(g)) + 1e-12))
            sigma = jnp.sqrt(eta / (1.0 + t.astype(f32)) ** gamma)
            key = jax.random.fold_in(jax.random.PRNGKey(1405), t)
            leaves, treedef = jax.tree.flatten(g)
            noise = treedef.unflatten([jax.random.normal(jax.random.fold_in(key, i), leaf.shape)
                                       for i, leaf in enumerate(leaves)])
            buf = tm(lambda b, g_, e: momentum * b + factor * g_ + sigma * e, buf, g, noise)
            moved = tm(lambda p, b: p.astype(f32) - rate * b, params, buf)
            return recast(params, moved), (buf, t + 1)
        return (lambda p: (zeros(p), count())), noisy

    if name == "adagrad_norm":
        # AdaGrad-Norm: one step size for every weight, rate / b, where b^2 is 0.01 plus
        # the running sum of the squared global gradient norms
        rate = 0.5

        def adagrad_norm(params, grads, state):
            total = state + squared_norm(wide(grads))
            step = rate / jnp.sqrt(total)
            moved = tm(lambda p, g_: p.astype(f32) - step * g_.astype(f32), params, grads)
            return recast(params, moved), total
        return (lambda p: jnp.full((), 0.01, f32)), adagrad_norm

    if name == "l_dog":
        # layer-wise DoG (distance over gradients): no learning rate; every tensor steps
        # by r / sqrt(G) against its gradient, r the farthest it has been from its
        # starting value (at least 1e-6 (1 + |x0|)) and G the running sum of its squared
        # gradient norms
        def dog_init(params):
            start = wide(params)
            reach = tm(lambda x: 1e-6 * (1.0 + jnp.sqrt(jnp.sum(x * x))), start)
            return start, reach, tm(lambda x: jnp.zeros((), f32), start)

        def dog(params, grads, state):
            start, reach, total = state

            def move(p, g_, x0, r, s):
                x, g_ = p.astype(f32), g_.astype(f32)
                r = jnp.maximum(r, jnp.sqrt(jnp.sum(jnp.square(x - x0))))
                s = s + jnp.sum(g_ * g_)
                return (x - r / jnp.sqrt(s + 1e-30) * g_).astype(p.dtype), r, s
            params, reach, total = _unzip(tm(move, params, grads, start, reach, total), params, 3)
            return params, (start, reach, total)
        return dog_init, dog

    if name == "lazy_adam":
        # LazyAdam: Adam, except that in an embedding table (a name starting `emb_`) only
        # the rows with a non-zero gradient, the ones the batch looked up, update their
        # moments and weights
        rate = 1e-3

        def lazy(params, grads, state):
            m, v, t = state
            t = t + 1
            c1, c2 = corrections(t)
            new_p, new_m, new_v = {}, {}, {}
            for k, p in params.items():
                g = grads[k].astype(f32)
                m_k = 0.9 * m[k] + 0.1 * g
                v_k = 0.999 * v[k] + 0.001 * g * g
                x = p.astype(f32) - rate * (m_k / c1) / (jnp.sqrt(v_k / c2) + 1e-8)
                if k.startswith("emb_"):
                    touched = jnp.any(g != 0.0, -1, keepdims=True)
                    m_k = jnp.where(touched, m_k, m[k])
                    v_k = jnp.where(touched, v_k, v[k])
                    x = jnp.where(touched, x, p.astype(f32))
                new_p[k], new_m[k], new_v[k] = x.astype(p.dtype), m_k, v_k
            return new_p, (new_m, new_v, t)
        return (lambda p: (zeros(p), zeros(p), count())), lazy

    raise ValueError(name)


def _train(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    """One training step (loss, gradients, the named update) lowered for `batch`; the
    optimizer state enters by its shapes alone (`eval_shape` of its init)."""
    import jax

    init, update = _update_rule(rule)

    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state)
        return params, state, loss

    return jax.jit(step).lower(params, jax.eval_shape(init, params), *batch)


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
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], -1))


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


def _markov_tokens(rng: Any, rows: int, length: int, vocab: int, successors: int = 12,
                   jump: float = 0.1) -> Any:
    """Token sequences (numpy int64) of a sparse random bigram language: every token has
    `successors` likely next tokens with Dirichlet odds, and with probability `jump` the
    next token is uniform instead."""
    import numpy as np

    nexts = rng.integers(0, vocab, (vocab, successors))
    odds = np.cumsum(rng.dirichlet(np.full(successors, 0.5), vocab), -1)
    tokens = np.zeros((rows, length), np.int64)
    tokens[:, 0] = rng.integers(0, vocab, rows)
    for t in range(1, length):
        previous = tokens[:, t - 1]
        pick = np.minimum((rng.uniform(size=rows)[:, None] > odds[previous]).sum(-1),
                          successors - 1)
        tokens[:, t] = np.where(rng.uniform(size=rows) < jump, rng.integers(0, vocab, rows),
                                nexts[previous, pick])
    return tokens


def shufflenet_adascale(micro: int = 4, batch: int = 16, side: int = 32, classes: int = 10,
                        stem: int = 24, stages: tuple[tuple[int, int], ...] = ((48, 4), (96, 8),
                                                                              (192, 4)),
                        final: int = 1024) -> Any:
    """A ShuffleNetV2 classifier at half width for 32x32 images: a 3x3 stem, three stages
    of shuffle units (48, 96 and 192 channels, 4, 8 and 4 units) and a 1x1 convolution to
    1024 channels before global pooling. A unit splits its channels in two and passes one
    half through a 1x1 convolution, a depthwise 3x3 and another 1x1 (batch norm after
    each, ReLU after the pointwise ones); a downsampling unit instead feeds its whole
    input to that branch with a strided depthwise convolution and to a second branch of a
    strided depthwise 3x3 and a 1x1; the halves are concatenated and interleaved by a
    channel shuffle. The gradient of four microbatches of 16 is taken under `vmap`, each
    microbatch normalized by its own statistics; AdaScale SGD: the gain r = (s + m) /
    (s / 4 + m), from smoothed estimates of the microbatch gradient variance s and the
    squared mean gradient m, scales the learning rate, and the step decay follows the
    summed gains rather than the step count."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    plan: list[tuple[str, bool]] = []

    def conv_bn(k, size, cin, cout, depthwise=False):
        shapes.update({k: (size, size, 1 if depthwise else cin, cout), f"{k}_bn_g": (cout,),
                       f"{k}_bn_b": (cout,)})

    conv_bn("stem", 3, 3, stem)
    cin = stem
    for s, (width, units) in enumerate(stages):
        half = width // 2
        for u in range(units):
            k = f"s{s}u{u}"
            if u == 0:
                conv_bn(f"{k}_ldw", 3, cin, cin, True)
                conv_bn(f"{k}_lpw", 1, cin, half)
                conv_bn(f"{k}_rpw1", 1, cin, half)
            else:
                conv_bn(f"{k}_rpw1", 1, half, half)
            conv_bn(f"{k}_rdw", 3, half, half, True)
            conv_bn(f"{k}_rpw2", 1, half, half)
            plan.append((k, u == 0))
        cin = width
    conv_bn("last", 1, cin, final)
    shapes.update({"head": (final, classes), "head_b": (classes,)})
    p = _params(shapes, seed=1, scale=math.sqrt(2.0))

    def cbn(p, k, x, stride=1, relu=True, groups=1):
        y = _batch_norm(_conv(x, p[k], stride, groups), p[f"{k}_bn_g"], p[f"{k}_bn_b"])
        return jax.nn.relu(y) if relu else y

    def shuffle(x):
        b, h, w, c = x.shape
        return x.reshape(b, h, w, 2, c // 2).swapaxes(3, 4).reshape(b, h, w, c)

    def unit(p, k, x, down):
        if down:
            left = cbn(p, f"{k}_lpw", cbn(p, f"{k}_ldw", x, 2, False, x.shape[-1]))
            right = cbn(p, f"{k}_rpw1", x)
        else:
            left, right = jnp.split(x, 2, -1)
            right = cbn(p, f"{k}_rpw1", right)
        right = cbn(p, f"{k}_rdw", right, 2 if down else 1, False, right.shape[-1])
        return shuffle(jnp.concatenate([left, cbn(p, f"{k}_rpw2", right)], -1))

    def loss_fn(p, images, labels):
        x = cbn(p, "stem", images)
        for k, down in plan:
            x = unit(p, k, x, down)
        x = cbn(p, "last", x)
        return _cross_entropy(x.mean((1, 2)) @ p["head"] + p["head_b"], labels)

    base, momentum, decay, smooth, milestone = 0.1, 0.9, 5e-4, 0.999, 3000.0
    tm = jax.tree.map

    def step(params, state, images, labels):
        buf, spread_avg, square_avg, progress, t = state
        losses, grads = jax.vmap(jax.value_and_grad(loss_fn), in_axes=(None, 0, 0))(
            params, images, labels)
        mean = tm(lambda g: g.mean(0), grads)
        spread = sum(jnp.sum(jnp.square(g - m[None])) for g, m in
                     zip(jax.tree.leaves(grads), jax.tree.leaves(mean))) / (micro - 1)
        square = jnp.maximum(sum(jnp.sum(m * m) for m in jax.tree.leaves(mean))
                             - spread / micro, 0.0)
        t = t + 1
        spread_avg = smooth * spread_avg + (1.0 - smooth) * spread
        square_avg = smooth * square_avg + (1.0 - smooth) * square
        unbias = 1.0 - smooth ** t.astype(jnp.float32)
        s, m = spread_avg / unbias, square_avg / unbias
        gain = jnp.clip((s + m) / (s / micro + m + 1e-12), 1.0, float(micro))
        rate = base * gain * 0.1 ** jnp.floor(progress / milestone)
        buf = tm(lambda b, g, w: momentum * b + g + decay * w, buf, mean, params)
        params = tm(lambda w, b: w - rate * b, params, buf)
        return params, (buf, spread_avg, square_avg, progress + gain, t), losses.mean(), gain

    rng = np.random.default_rng(1)
    labels = rng.integers(0, classes, (micro, batch))
    images = _smooth_images(rng, micro * batch, side, 3, 4.0).reshape(micro, batch, side, side, 3)
    prototypes = _smooth_images(rng, classes, side, 3, 2.0)
    images = images + 0.8 * prototypes[labels]
    zero = jnp.zeros((), jnp.float32)
    state = (jax.tree.map(jnp.zeros_like, p), zero, zero, zero, jnp.zeros((), jnp.int32))
    return jax.jit(step).lower(p, state, jnp.asarray(images, jnp.float32),
                               jnp.asarray(labels, jnp.int32))


def yolo_detector(batch: int = 8, side: int = 128, classes: int = 8, most: int = 6,
                  anchors: tuple[tuple[float, float], ...] = ((0.08, 0.1), (0.2, 0.24),
                                                              (0.45, 0.4))) -> Any:
    """A YOLO-style single-shot detector (in the manner of YOLOv2-tiny): 3x3 convolutions
    with batch norm and leaky ReLU, max pooling down to an 8x8 grid, 1x1 bottlenecks in
    the last two stages and a 1x1 head giving, per cell and each of three anchors, box
    offsets, an objectness logit and eight class logits. Inside the step every
    ground-truth box (up to six per image, padded) picks its cell by its centre and its
    anchor by the IoU of its shape with the anchor shapes, and the targets are scattered
    into place (padding rows sent out of range and dropped); centres are trained through
    sigmoids and sizes as log ratios to the anchors by squared error (weighted up for
    small boxes), objectness by binary cross-entropy, class by softmax cross-entropy, and
    background objectness is not penalized where the predicted box overlaps a real one by
    IoU above 0.6 (a predictions-by-boxes IoU matrix); SGDR (cosine annealing with warm
    restarts, Nesterov momentum, decoupled weight decay)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    grid = side // 16
    count = len(anchors)
    outputs = count * (5 + classes)
    plan: list[Any] = [(3, 3, 16), "pool", (3, 16, 32), "pool", (3, 32, 64), "pool",
                       (3, 64, 128), (1, 128, 64), (3, 64, 128), "pool",
                       (3, 128, 256), (1, 256, 128), (3, 128, 256)]
    shapes: dict[str, tuple[int, ...]] = {}
    for i, spec in enumerate(plan):
        if spec != "pool":
            size, cin, cout = spec
            shapes.update({f"c{i}": (size, size, cin, cout), f"c{i}_bn_g": (cout,),
                           f"c{i}_bn_b": (cout,)})
    shapes.update({"head": (1, 1, 256, outputs), "head_b": (outputs,)})
    p = _params(shapes, seed=2, scale=math.sqrt(2.0))
    p["head"] = p["head"] * 0.1
    anchor = jnp.asarray(anchors, jnp.float32)

    def forward(p, x):
        for i, spec in enumerate(plan):
            if spec == "pool":
                x = _max_pool(x, 2, 2)
            else:
                x = _batch_norm(_conv(x, p[f"c{i}"]), p[f"c{i}_bn_g"], p[f"c{i}_bn_b"])
                x = jax.nn.leaky_relu(x, 0.1)
        return _conv(x, p["head"]) + p["head_b"]

    def corners(cx, cy, w, h):
        return cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2

    def iou(a, b):
        ax0, ay0, ax1, ay1 = a
        bx0, by0, bx1, by1 = b
        inter = (jnp.maximum(jnp.minimum(ax1, bx1) - jnp.maximum(ax0, bx0), 0.0)
                 * jnp.maximum(jnp.minimum(ay1, by1) - jnp.maximum(ay0, by0), 0.0))
        return inter / ((ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter + 1e-9)

    def loss_fn(p, images, truth, kinds, valid):
        b = images.shape[0]
        out = forward(p, images).reshape(b, grid, grid, count, 5 + classes)
        cell = jnp.arange(grid, dtype=jnp.float32)
        sx, sy = jax.nn.sigmoid(out[..., 0]), jax.nn.sigmoid(out[..., 1])
        px = (sx + cell[None, None, :, None]) / grid
        py = (sy + cell[None, :, None, None]) / grid
        pw = anchor[:, 0] * jnp.exp(jnp.clip(out[..., 2], -8.0, 4.0))
        ph = anchor[:, 1] * jnp.exp(jnp.clip(out[..., 3], -8.0, 4.0))

        cx, cy, w, h = truth[..., 0], truth[..., 1], truth[..., 2], truth[..., 3]
        shape_inter = (jnp.minimum(w[..., None], anchor[:, 0])
                       * jnp.minimum(h[..., None], anchor[:, 1]))
        shape_iou = shape_inter / ((w * h)[..., None] + anchor[:, 0] * anchor[:, 1]
                                   - shape_inter)
        best = jnp.argmax(shape_iou, -1)
        gx = jnp.clip(jnp.floor(cx * grid), 0, grid - 1).astype(jnp.int32)
        gy = jnp.clip(jnp.floor(cy * grid), 0, grid - 1).astype(jnp.int32)
        gy = jnp.where(valid, gy, grid)                       # padding: out of range, dropped
        index = (jnp.broadcast_to(jnp.arange(b)[:, None], best.shape), gy, gx, best)
        slots = (b, grid, grid, count)

        def place(values, dtype=jnp.float32):
            return jnp.zeros(slots, dtype).at[index].set(values.astype(dtype), mode="drop")

        responsible = place(jnp.ones_like(w), bool)
        tx, ty = place(cx * grid - gx), place(cy * grid - jnp.minimum(gy, grid - 1))
        tw = place(jnp.log(jnp.maximum(w, 1e-6) / anchor[best, 0]))
        th = place(jnp.log(jnp.maximum(h, 1e-6) / anchor[best, 1]))
        tk = place(kinds, jnp.int32)
        small = place(2.0 - w * h)

        predicted = corners(px[..., None], py[..., None], pw[..., None], ph[..., None])
        real = corners(*(v[:, None, None, None, :] for v in (cx, cy, w, h)))
        overlap = jnp.where(valid[:, None, None, None, :], iou(predicted, real), 0.0).max(-1)
        background = ~responsible & (jax.lax.stop_gradient(overlap) < 0.6)

        fit = small * (jnp.square(sx - tx) + jnp.square(sy - ty) + jnp.square(out[..., 2] - tw)
                       + jnp.square(out[..., 3] - th))
        objectness = out[..., 4]
        positive = jax.nn.softplus(-objectness)
        negative = jax.nn.softplus(objectness)
        logp = jax.nn.log_softmax(out[..., 5:], -1)
        kind = -jnp.take_along_axis(logp, tk[..., None], -1)[..., 0]
        total = (5.0 * jnp.sum(jnp.where(responsible, fit, 0.0))
                 + jnp.sum(jnp.where(responsible, positive + kind, 0.0))
                 + jnp.sum(jnp.where(background, negative, 0.0)))
        return total / b

    rng = np.random.default_rng(2)
    images = 0.3 * _smooth_images(rng, batch, side, 3, 3.0)
    colours = rng.uniform(-1.0, 1.0, (classes, 3))
    truth = np.zeros((batch, most, 4), np.float32)
    kinds = np.zeros((batch, most), np.int64)
    valid = np.zeros((batch, most), bool)
    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    for i in range(batch):
        for j in range(int(rng.integers(1, most + 1))):
            k = int(rng.integers(classes))
            w, h = rng.uniform(0.06, 0.5, 2)
            cx, cy = rng.uniform(w / 2, 1 - w / 2), rng.uniform(h / 2, 1 - h / 2)
            if k % 2:                                          # odd classes are ellipses
                inside = ((xx - cx) / (w / 2)) ** 2 + ((yy - cy) / (h / 2)) ** 2 <= 1
            else:
                inside = (np.abs(xx - cx) <= w / 2) & (np.abs(yy - cy) <= h / 2)
            images[i][inside] = colours[k]
            truth[i, j], kinds[i, j], valid[i, j] = (cx, cy, w, h), k, True
    images += 0.05 * rng.standard_normal(images.shape)
    return _train("sgdr", loss_fn, p, jnp.asarray(images, jnp.float32), jnp.asarray(truth),
                  jnp.asarray(kinds, jnp.int32), jnp.asarray(valid))


def _encoder(p: dict[str, Any], k: str, x: Any, heads: int, layers: int) -> Any:
    """A post-norm BERT-style encoder stack (bidirectional attention, GELU feed-forward)
    under the parameter prefix `k`, its attention softmax in float32."""
    import jax
    import jax.numpy as jnp

    b, n, width = x.shape
    dh = width // heads
    for l in range(layers):
        q, kk, v = jnp.split((x @ p[f"{k}{l}_qkv"] + p[f"{k}{l}_qkv_b"])
                             .reshape(b, n, 3 * heads, dh), 3, 2)
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, kk).astype(jnp.float32) / math.sqrt(dh)
        weights = jax.nn.softmax(scores, -1).astype(x.dtype)
        mixed = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, n, width)
        x = _layer_norm(x + mixed @ p[f"{k}{l}_o"] + p[f"{k}{l}_o_b"], p[f"{k}{l}_ln1_g"],
                        p[f"{k}{l}_ln1_b"])
        hidden = jax.nn.gelu(x @ p[f"{k}{l}_ff1"] + p[f"{k}{l}_ff1_b"])
        x = _layer_norm(x + hidden @ p[f"{k}{l}_ff2"] + p[f"{k}{l}_ff2_b"], p[f"{k}{l}_ln2_g"],
                        p[f"{k}{l}_ln2_b"])
    return x


def _encoder_shapes(k: str, width: int, ff: int, layers: int) -> dict[str, tuple[int, ...]]:
    """Parameter shapes of `_encoder` under the prefix `k`."""
    shapes: dict[str, tuple[int, ...]] = {}
    for l in range(layers):
        shapes.update({f"{k}{l}_qkv": (width, 3 * width), f"{k}{l}_qkv_b": (3 * width,),
                       f"{k}{l}_o": (width, width), f"{k}{l}_o_b": (width,),
                       f"{k}{l}_ln1_g": (width,), f"{k}{l}_ln1_b": (width,),
                       f"{k}{l}_ff1": (width, ff), f"{k}{l}_ff1_b": (ff,),
                       f"{k}{l}_ff2": (ff, width), f"{k}{l}_ff2_b": (width,),
                       f"{k}{l}_ln2_g": (width,), f"{k}{l}_ln2_b": (width,)})
    return shapes


def electra_pretrain(batch: int = 4, length: int = 128, vocab: int = 4096, embed: int = 128,
                     gen_heads: int = 2, gen_ff: int = 512, gen_layers: int = 2,
                     width: int = 192, heads: int = 3, ff: int = 768, layers: int = 2,
                     masked: int = 19, weight: float = 50.0) -> Any:
    """ELECTRA pretraining in bfloat16: token and learned position embeddings shared by a
    generator (two 128-wide post-norm layers working directly on the embeddings) and a
    discriminator (the embeddings projected to 192, two layers). Fifteen per cent of each
    sequence's positions (never the first) are chosen by `top_k` over random keys and
    replaced by [MASK]; the generator predicts them from gathered hidden states against
    the tied embedding matrix, its samples (Gumbel-max over the stopped logits) are
    scattered into the original sequence, and the discriminator labels every token as
    original or replaced, a sampled token equal to the original counting as original;
    loss: the generator's cross-entropy plus fifty times the discriminator's binary
    cross-entropy; blockwise 8-bit Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16 = jnp.bfloat16
    mask_id = 3
    shapes: dict[str, tuple[int, ...]] = {
        "emb": (vocab, embed), "pos": (length, embed), "emb_ln_g": (embed,),
        "emb_ln_b": (embed,)}
    shapes.update(_encoder_shapes("g", embed, gen_ff, gen_layers))
    shapes.update({"gen_out": (embed, embed), "gen_out_b": (embed,), "gen_ln_g": (embed,),
                   "gen_ln_b": (embed,), "gen_bias_b": (vocab,),
                   "disc_in": (embed, width), "disc_in_b": (width,)})
    shapes.update(_encoder_shapes("d", width, ff, layers))
    shapes.update({"disc_head": (width, width), "disc_head_b": (width,),
                   "disc_out": (width, 1), "disc_out_b": (1,)})
    p = _params(shapes, seed=3, dtype=bf16)

    def embed_tokens(p, tokens):
        return _layer_norm(p["emb"][tokens] + p["pos"], p["emb_ln_g"], p["emb_ln_b"])

    def loss_fn(p, tokens, key):
        b = tokens.shape[0]
        k1, k2 = jax.random.split(key)
        keys = jax.random.uniform(k1, tokens.shape).at[:, 0].set(-1.0)
        _, where = lax.top_k(keys, masked)
        rows = jnp.arange(b)[:, None]
        h = _encoder(p, "g", embed_tokens(p, tokens.at[rows, where].set(mask_id)), gen_heads,
                     gen_layers)[rows, where]
        h = _layer_norm(jax.nn.gelu(h @ p["gen_out"] + p["gen_out_b"]), p["gen_ln_g"],
                        p["gen_ln_b"])
        logits = (h @ p["emb"].T + p["gen_bias_b"]).astype(jnp.float32)
        generator = _cross_entropy(logits, tokens[rows, where])
        noise = jax.random.uniform(k2, logits.shape, minval=1e-6, maxval=1.0 - 1e-6)
        sampled = jnp.argmax(lax.stop_gradient(logits) - jnp.log(-jnp.log(noise)), -1)
        corrupted = tokens.at[rows, where].set(sampled.astype(tokens.dtype))
        replaced = (corrupted != tokens).astype(jnp.float32)
        x = embed_tokens(p, corrupted) @ p["disc_in"] + p["disc_in_b"]
        x = _encoder(p, "d", x, heads, layers)
        score = (jax.nn.gelu(x @ p["disc_head"] + p["disc_head_b"]) @ p["disc_out"]
                 + p["disc_out_b"])[..., 0].astype(jnp.float32)
        discriminator = jnp.mean(jax.nn.softplus(score) - replaced * score)
        return generator + weight * discriminator

    rng = np.random.default_rng(3)
    tokens = _markov_tokens(rng, batch, length, vocab - 4) + 4
    tokens[:, 0] = 1                                               # [CLS]
    return _train("adam_8bit", loss_fn, p, jnp.asarray(tokens, jnp.int32),
                  jax.random.PRNGKey(3))


def gmlp_classifier(batch: int = 16, side: int = 32, patch: int = 4, width: int = 96,
                    ff: int = 576, blocks: int = 4, classes: int = 10) -> Any:
    """A gMLP image classifier in bfloat16: 4x4 patches embedded linearly into 64 tokens,
    then blocks of layer norm, a GELU expansion to 576 channels and a spatial gating unit
    (one half of the channels layer-normalized, mixed across the 64 tokens by a learned
    token-by-token matrix started near zero with a bias of one, and multiplied into the
    other half) projected back with a residual connection; a final layer norm, mean
    pooling over tokens and a dense head; cross-entropy; GaLore (Adam in rank-16 gradient
    projections of the large matrices)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    tokens = (side // patch) ** 2
    half = ff // 2
    shapes: dict[str, tuple[int, ...]] = {"patch": (patch * patch * 3, width),
                                          "patch_b": (width,)}
    for i in range(blocks):
        shapes.update({f"b{i}_ln_g": (width,), f"b{i}_ln_b": (width,), f"b{i}_in": (width, ff),
                       f"b{i}_in_b": (ff,), f"b{i}_sgu_ln_g": (half,),
                       f"b{i}_sgu_ln_b": (half,), f"b{i}_sgu": (tokens, tokens),
                       f"b{i}_sgu_b": (tokens,), f"b{i}_out": (half, width),
                       f"b{i}_out_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,), "head": (width, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=4, dtype=bf16)
    for i in range(blocks):
        p[f"b{i}_sgu"] = (p[f"b{i}_sgu"].astype(jnp.float32) * 0.01).astype(bf16)
        p[f"b{i}_sgu_b"] = jnp.ones((tokens,), bf16)

    def loss_fn(p, images, labels):
        b = images.shape[0]
        n = side // patch
        x = images.reshape(b, n, patch, n, patch, 3).transpose(0, 1, 3, 2, 4, 5)
        x = x.reshape(b, tokens, patch * patch * 3) @ p["patch"] + p["patch_b"]
        for i in range(blocks):
            h = _layer_norm(x, p[f"b{i}_ln_g"], p[f"b{i}_ln_b"])
            u, v = jnp.split(jax.nn.gelu(h @ p[f"b{i}_in"] + p[f"b{i}_in_b"]), 2, -1)
            v = _layer_norm(v, p[f"b{i}_sgu_ln_g"], p[f"b{i}_sgu_ln_b"])
            v = jnp.einsum("mn,bnd->bmd", p[f"b{i}_sgu"], v) + p[f"b{i}_sgu_b"][:, None]
            x = x + (u * v) @ p[f"b{i}_out"] + p[f"b{i}_out_b"]
        x = _layer_norm(x, p["final_g"], p["final_b"]).astype(jnp.float32).mean(1)
        return _cross_entropy(x.astype(bf16) @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(4)
    labels = rng.integers(0, classes, batch)
    prototypes = _smooth_images(rng, classes, side, 3, 3.0)
    images = 0.7 * prototypes[labels] + 0.7 * _smooth_images(rng, batch, side, 3, 6.0)
    return _train("galore", loss_fn, p, jnp.asarray(images, bf16), jnp.asarray(labels, jnp.int32))


def bilstm_crf_tagger(batch: int = 32, length: int = 40, vocab: int = 8000, embed: int = 96,
                      hidden: int = 128, tags: int = 17) -> Any:
    """A BiLSTM-CRF sequence tagger: word embeddings read by a forward and a backward LSTM
    (two `lax.scan`s, the second reversed, states held still over padding), emission
    scores from their concatenated states, and a linear-chain CRF with start, end and
    tag-to-tag transition scores whose negative log-likelihood is the log partition
    function (the forward algorithm, a log-sum-exp `lax.scan` over the tokens that keeps
    its state at padded positions) minus the score of the gold path (gathered emissions
    and transitions and the end score of each sentence's last real tag); SGD with
    momentum on clipped gradients plus annealed Gaussian gradient noise."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {
        "emb": (vocab, embed), "fw": (embed + hidden, 4 * hidden), "fw_b": (4 * hidden,),
        "bw": (embed + hidden, 4 * hidden), "bw_b": (4 * hidden,),
        "proj": (2 * hidden, tags), "proj_b": (tags,), "trans": (tags, tags),
        "start_b": (tags,), "end_b": (tags,)}
    p = _params(shapes, seed=5)

    def lstm(w, bias, xs, mask, reverse):
        def cell(carry, inputs):
            h, c = carry
            x, live = inputs
            i, f, g, o = jnp.split(jnp.concatenate([x, h], -1) @ w + bias, 4, -1)
            c_new = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h_new = jax.nn.sigmoid(o) * jnp.tanh(c_new)
            live = live[:, None]
            return ((jnp.where(live, h_new, h), jnp.where(live, c_new, c)),
                    jnp.where(live, h_new, 0.0))
        start = jnp.zeros((xs.shape[1], hidden))
        return lax.scan(cell, (start, start), (xs, mask), reverse=reverse)[1]

    def loss_fn(p, words, gold, lengths):
        mask = jnp.arange(length)[:, None] < lengths[None, :]                  # (T, B)
        x = jnp.swapaxes(p["emb"][words], 0, 1)
        h = jnp.concatenate([lstm(p["fw"], p["fw_b"], x, mask, False),
                             lstm(p["bw"], p["bw_b"], x, mask, True)], -1)
        emissions = h @ p["proj"] + p["proj_b"]                                # (T, B, K)
        trans = p["trans"]

        def forward(alpha, inputs):
            emit, live = inputs
            nxt = jax.nn.logsumexp(alpha[:, :, None] + trans[None], 1) + emit
            return jnp.where(live[:, None], nxt, alpha), None

        alpha, _ = lax.scan(forward, p["start_b"] + emissions[0], (emissions[1:], mask[1:]))
        log_z = jax.nn.logsumexp(alpha + p["end_b"], -1)
        y = gold.T                                                             # (T, B)
        live = mask.astype(jnp.float32)
        emitted = jnp.take_along_axis(emissions, y[..., None], -1)[..., 0]
        last = jnp.take_along_axis(gold, (lengths - 1)[:, None], 1)[:, 0]
        score = (p["start_b"][y[0]] + jnp.sum(emitted * live, 0)
                 + jnp.sum(trans[y[:-1], y[1:]] * live[1:], 0) + p["end_b"][last])
        return jnp.mean(log_z - score)

    rng = np.random.default_rng(5)
    moves = rng.dirichlet(np.full(tags, 0.3), tags)
    lexicon = [rng.choice(vocab - 1, 300, replace=False) + 1 for _ in range(tags)]
    zipf = np.arange(1, 301) ** -1.1
    zipf /= zipf.sum()
    lengths = rng.integers(8, length + 1, batch)
    words = np.zeros((batch, length), np.int64)
    gold = np.zeros((batch, length), np.int64)
    for b in range(batch):
        tag = int(rng.integers(tags))
        for t in range(lengths[b]):
            gold[b, t] = tag
            words[b, t] = lexicon[tag][rng.choice(300, p=zipf)]
            tag = int(rng.choice(tags, p=moves[tag]))
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("noisy_sgd", loss_fn, p, i32(words), i32(gold), i32(lengths))


def kim_cnn_easgd(replicas: int = 4, batch: int = 16, length: int = 48, vocab: int = 8000,
                  embed: int = 64, maps: int = 64, widths: tuple[int, ...] = (3, 4, 5),
                  classes: int = 5) -> Any:
    """A Kim-style convolutional sentence classifier trained by elastic averaging SGD:
    word embeddings, 1-D convolutions of widths 3, 4 and 5 with 64 maps each and ReLU,
    max pooling over time, dropout of half the pooled features, a dense head whose class
    weight vectors are rescaled to an L2 norm of at most 3 after every step; four
    replicas under `vmap` each take a momentum SGD step on their own batch, then every
    replica is pulled toward the shared centre variable and the centre toward the
    replicas by the elastic force 0.9 / 4 times their differences (synchronous EASGD)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"emb": (vocab, embed)}
    for w in widths:
        shapes.update({f"conv{w}": (w, embed, maps), f"conv{w}_b": (maps,)})
    shapes.update({"head": (len(widths) * maps, classes), "head_b": (classes,)})
    centre = _params(shapes, seed=6)
    rate, momentum, max_norm, alpha = 0.05, 0.9, 3.0, 0.9 / replicas
    tm = jax.tree.map

    def loss_fn(p, tokens, labels, key):
        x = p["emb"][tokens]
        pooled = []
        for w in widths:
            y = lax.conv_general_dilated(x, p[f"conv{w}"], (1,), "VALID",
                                         dimension_numbers=("NWC", "WIO", "NWC"))
            pooled.append(jax.nn.relu(y + p[f"conv{w}_b"]).max(1))
        h = jnp.concatenate(pooled, -1)
        h = jnp.where(jax.random.bernoulli(key, 0.5, h.shape), 2.0 * h, 0.0)
        return _cross_entropy(h @ p["head"] + p["head_b"], labels)

    def local(p, m, tokens, labels, key):
        loss, g = jax.value_and_grad(loss_fn)(p, tokens, labels, key)
        m = tm(lambda m_, g_: momentum * m_ - rate * g_, m, g)
        p = tm(lambda w, m_: w + m_, p, m)
        norms = jnp.sqrt(jnp.sum(jnp.square(p["head"]), 0, keepdims=True))
        p["head"] = p["head"] * jnp.minimum(1.0, max_norm / (norms + 1e-12))
        return p, m, loss

    def step(centre, workers, momenta, tokens, labels, key):
        keys = jax.random.split(key, replicas)
        moved, momenta, losses = jax.vmap(local)(workers, momenta, tokens, labels, keys)
        pull = tm(lambda x, c: alpha * (x - c[None]), workers, centre)
        workers = tm(lambda x, d: x - d, moved, pull)
        centre = tm(lambda c, d: c + d.sum(0), centre, pull)
        return centre, workers, momenta, losses

    rng = np.random.default_rng(6)
    lean = rng.dirichlet(np.full(classes, 0.2), vocab)            # each word's class leaning
    weights = np.arange(1, vocab + 1) ** -1.0
    tokens = np.zeros((replicas, batch, length), np.int64)
    labels = rng.integers(0, classes, (replicas, batch))
    for r in range(replicas):
        for b in range(batch):
            n = int(rng.integers(12, length + 1))
            odds = weights * (0.2 + lean[:, labels[r, b]])
            tokens[r, b, :n] = rng.choice(vocab, n, p=odds / odds.sum())
    workers = tm(lambda c: jnp.broadcast_to(c, (replicas,) + c.shape), centre)
    momenta = tm(jnp.zeros_like, workers)
    return jax.jit(step).lower(centre, workers, momenta, jnp.asarray(tokens, jnp.int32),
                               jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(6))


def neumf_recommender(users: int = 16384, items: int = 8192, batch: int = 1024,
                      negatives: int = 4, factors: int = 32,
                      tower: tuple[int, ...] = (128, 128, 64, 32)) -> Any:
    """NeuMF (neural collaborative filtering) on implicit feedback: a generalized matrix
    factorization branch (the element-wise product of a user and an item embedding) and
    an MLP branch over the concatenation of a second pair of user and item embeddings
    (128 -> 128 -> 64 -> 32, ReLU), fused by one output unit; binary cross-entropy over
    1024 observed interactions and four sampled negative items for each; LazyAdam (the
    embedding tables' moments and rows change only where the batch looked them up)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    half = tower[0] // 2
    shapes: dict[str, tuple[int, ...]] = {
        "emb_user_gmf": (users, factors), "emb_item_gmf": (items, factors),
        "emb_user_mlp": (users, half), "emb_item_mlp": (items, half)}
    for i in range(len(tower) - 1):
        shapes.update({f"fc{i}": (tower[i], tower[i + 1]), f"fc{i}_b": (tower[i + 1],)})
    shapes.update({"out": (factors + tower[-1], 1), "out_b": (1,)})
    p = _params(shapes, seed=7)
    for k in shapes:
        if k.startswith("emb_"):
            p[k] = p[k] * (0.1 * math.sqrt(shapes[k][0]))     # standard deviation 0.1

    def loss_fn(p, who, what, label):
        gmf = p["emb_user_gmf"][who] * p["emb_item_gmf"][what]
        x = jnp.concatenate([p["emb_user_mlp"][who], p["emb_item_mlp"][what]], -1)
        for i in range(len(tower) - 1):
            x = jax.nn.relu(x @ p[f"fc{i}"] + p[f"fc{i}_b"])
        logit = (jnp.concatenate([gmf, x], -1) @ p["out"] + p["out_b"])[:, 0]
        return jnp.mean(jax.nn.softplus(logit) - label * logit)

    rng = np.random.default_rng(7)
    taste = rng.standard_normal((users, 8))
    profile = rng.standard_normal((items, 8))
    who = rng.integers(0, users, batch)
    shortlist = rng.integers(0, items, (batch, 64))          # each user picks from 64 items
    scores = np.einsum("bd,bkd->bk", taste[who], profile[shortlist])
    liked = shortlist[np.arange(batch), np.argmax(scores + rng.gumbel(size=scores.shape), 1)]
    sampled = rng.integers(0, items, (batch, negatives))
    who_all = np.repeat(who, negatives + 1)
    what = np.concatenate([liked[:, None], sampled], 1).reshape(-1)
    label = np.tile(np.r_[1.0, np.zeros(negatives)], batch)
    return _train("lazy_adam", loss_fn, p, jnp.asarray(who_all, jnp.int32),
                  jnp.asarray(what, jnp.int32), jnp.asarray(label, jnp.float32))


def impala_vtrace_kfac(trajectories: int = 32, unroll: int = 20, features: int = 64,
                       hidden: int = 256, actions: int = 18, gamma: float = 0.99) -> Any:
    """An IMPALA learner step on vector observations, trained by K-FAC: an MLP torso (two
    ReLU layers of 256) with a joint policy-and-value output layer reads 32 trajectories
    of 20 steps plus a bootstrap observation; V-trace targets come from truncated
    importance ratios of the learner's and the actors' policies for the actions taken
    (rho and c clipped at one) by a reverse `lax.scan`, with per-step discounts that end
    episodes; the loss is the V-trace policy gradient, half the squared baseline error
    and an entropy bonus. K-FAC: every dense layer (its bias as an extra input row)
    keeps running averages of its input covariance A and of the covariance G of the
    per-sample gradients at its pre-activations (taken by differentiating through zero
    probes added to them), damps them by factored Tikhonov damping, inverts them by six
    Newton-Schulz iterations in a `fori_loop` warm-started from the last inverses (a cold
    start when the last inverse is too far off), preconditions the gradient as
    A^-1 grad G^-1, scales the step down when its quadratic KL estimate exceeds 0.001 and
    applies it with momentum."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    layers = (("fc1", features, hidden), ("fc2", hidden, hidden), ("heads", hidden, actions + 1))
    p = _params({k: (cin + 1, cout) for k, cin, cout in layers}, seed=8, scale=math.sqrt(2.0))
    p["heads"] = p["heads"] * 0.05
    smooth, damping, rate, momentum, kl_clip, iterations = 0.95, 1e-3, 0.25, 0.9, 1e-3, 6

    def homogeneous(x):
        return jnp.concatenate([x, jnp.ones(x.shape[:-1] + (1,), x.dtype)], -1)

    def loss_fn(p, probes, obs, taken, behaviour, rewards, discounts):
        inputs = {}
        x = obs
        for k, _, _ in layers:
            inputs[k] = homogeneous(x)
            x = inputs[k] @ p[k] + probes[k]
            if k != "heads":
                x = jax.nn.relu(x)
        logits, values = x[:-1, :, :actions], x[..., actions]
        logp = jax.nn.log_softmax(logits, -1)
        target = jnp.take_along_axis(logp, taken[..., None], -1)[..., 0]
        acting = jnp.take_along_axis(jax.nn.log_softmax(behaviour, -1), taken[..., None],
                                     -1)[..., 0]
        clipped = jnp.minimum(jnp.exp(lax.stop_gradient(target) - acting), 1.0)
        v = lax.stop_gradient(values)
        deltas = clipped * (rewards + discounts * v[1:] - v[:-1])

        def back(acc, inputs):
            delta, discount, c = inputs
            acc = delta + discount * c * acc
            return acc, acc

        _, correction = lax.scan(back, jnp.zeros_like(v[-1]), (deltas, discounts, clipped),
                                 reverse=True)
        vs = v[:-1] + correction
        advantage = clipped * (rewards + discounts * jnp.concatenate([vs[1:], v[-1:]], 0)
                               - v[:-1])
        policy = -jnp.mean(target * advantage)
        baseline = 0.5 * jnp.mean(jnp.square(vs - values[:-1]))
        entropy = -jnp.mean(jnp.sum(jnp.exp(logp) * logp, -1))
        return policy + 0.5 * baseline - 0.01 * entropy, inputs

    def newton_inverse(m, last):
        eye = jnp.eye(m.shape[0], dtype=m.dtype)
        off = jnp.sqrt(jnp.sum(jnp.square(eye - m @ last)))
        cold = eye / jnp.max(jnp.sum(jnp.abs(m), 0))
        start = jnp.where(off < 0.9, last, cold)
        return lax.fori_loop(0, iterations, lambda _, x: x @ (2.0 * eye - m @ x), start)

    def step(params, state, obs, taken, behaviour, rewards, discounts):
        a_avg, g_avg, a_inv, g_inv, buf = state
        probes = {k: jnp.zeros(obs.shape[:-1] + (cout,)) for k, _, cout in layers}
        (loss, inputs), (grads, signals) = jax.value_and_grad(
            loss_fn, argnums=(0, 1), has_aux=True)(params, probes, obs, taken, behaviour,
                                                   rewards, discounts)
        rows = obs.shape[0] * obs.shape[1]
        natural: dict[str, Any] = {}
        a_avg, g_avg, a_inv, g_inv = dict(a_avg), dict(g_avg), dict(a_inv), dict(g_inv)
        for k, cin, cout in layers:
            a = inputs[k].reshape(rows, cin + 1)
            g = signals[k].reshape(rows, cout) * rows
            a_avg[k] = smooth * a_avg[k] + (1.0 - smooth) * (a.T @ a) / rows
            g_avg[k] = smooth * g_avg[k] + (1.0 - smooth) * (g.T @ g) / rows
            pi = jnp.sqrt((jnp.trace(a_avg[k]) / (cin + 1))
                          / (jnp.trace(g_avg[k]) / cout + 1e-12))
            a_inv[k] = newton_inverse(a_avg[k] + pi * math.sqrt(damping) * jnp.eye(cin + 1),
                                      a_inv[k])
            g_inv[k] = newton_inverse(g_avg[k] + math.sqrt(damping) / pi * jnp.eye(cout),
                                      g_inv[k])
            natural[k] = a_inv[k] @ grads[k] @ g_inv[k]
        quadratic = rate ** 2 * sum(jnp.sum(natural[k] * grads[k]) for k in natural)
        scale = jnp.minimum(1.0, jnp.sqrt(kl_clip / (quadratic + 1e-12)))
        buf = {k: momentum * buf[k] + scale * natural[k] for k in natural}
        params = {k: params[k] - rate * buf[k] for k in params}
        return params, (a_avg, g_avg, a_inv, g_inv, buf), loss

    eye = lambda n, s=1.0: jnp.eye(n, dtype=jnp.float32) * s
    state = ({k: eye(cin + 1) for k, cin, _ in layers}, {k: eye(cout) for k, _, cout in layers},
             {k: eye(cin + 1, 1 / (1 + damping)) for k, cin, _ in layers},
             {k: eye(cout, 1 / (1 + damping)) for k, _, cout in layers},
             {k: jnp.zeros_like(w) for k, w in p.items()})

    rng = np.random.default_rng(8)
    drift = rng.standard_normal((features, features)) / math.sqrt(features)
    obs = np.zeros((unroll + 1, trajectories, features))
    obs[0] = rng.standard_normal((trajectories, features))
    done = rng.uniform(size=(unroll, trajectories)) < 0.03
    for t in range(unroll):
        fresh = rng.standard_normal((trajectories, features))
        moved = 0.9 * np.tanh(obs[t] @ drift) + 0.3 * fresh
        obs[t + 1] = np.where(done[t][:, None], fresh, moved)
    behaviour = rng.standard_normal((unroll, trajectories, actions))
    taken = np.array([[rng.choice(actions, p=np.exp(b) / np.exp(b).sum()) for b in row]
                      for row in behaviour])
    rewards = np.where(rng.uniform(size=(unroll, trajectories)) < 0.1,
                       rng.choice([-1.0, 1.0], (unroll, trajectories)), 0.0)
    discounts = gamma * (1.0 - done)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(step).lower(p, state, f32(obs), jnp.asarray(taken, jnp.int32), f32(behaviour),
                               f32(rewards), f32(discounts))


def mpnn_set2set(graphs: int = 48, width: int = 48, edge_hidden: int = 64, passes: int = 3,
                 readout_steps: int = 3, targets: int = 4, atom_types: int = 5,
                 bond_types: int = 4, radial: int = 16) -> Any:
    """A message-passing neural network (Gilmer et al.) regressing four properties of 48
    small molecules packed into one node table: an edge network (bond type one-hot and
    16 Gaussian radial features of the bond length -> 64 -> 48x48) turns every directed
    bond into a matrix once, three passes with shared weights send each atom's state
    through its bonds' matrices (a batched matrix-vector product of gathered states) and
    sum them at the receiving atoms by `segment_sum`, and a GRU updates the atoms; a
    Set2Set readout runs three LSTM steps whose query attends over the graph's own atoms
    by a segment softmax (`segment_max`, exponentials, `segment_sum`), and an MLP maps
    its output to the targets; mean squared error on standardized targets; AdaGrad-Norm."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    node_features = atom_types + 3
    bond_features = bond_types + radial
    shapes: dict[str, tuple[int, ...]] = {
        "embed": (node_features, width), "embed_b": (width,),
        "edge1": (bond_features, edge_hidden), "edge1_b": (edge_hidden,),
        "edge2": (edge_hidden, width * width), "edge2_b": (width * width,),
        "gru_w": (width, 3 * width), "gru_u": (width, 3 * width), "gru_b": (3 * width,),
        "s2s_w": (2 * width, 4 * width), "s2s_u": (width, 4 * width), "s2s_b": (4 * width,),
        "out1": (2 * width, 128), "out1_b": (128,), "out2": (128, targets), "out2_b": (targets,)}
    p = _params(shapes, seed=9)
    p["edge2"] = p["edge2"] / math.sqrt(width)

    rng = np.random.default_rng(9)
    atoms, src, dst, bonds, owner, y = [], [], [], [], [], []
    offset = 0
    centres = np.linspace(0.8, 2.6, radial)
    for g in range(graphs):
        n = int(rng.integers(9, 25))
        kind = rng.choice(atom_types, n, p=[0.55, 0.2, 0.15, 0.05, 0.05])
        pairs = [(i, int(rng.integers(max(0, i - 3), i))) for i in range(1, n)]
        for _ in range(int(rng.integers(0, 3))):                    # ring closures
            i = int(rng.integers(5, n))
            pairs.append((i, i - 5))
        position = np.cumsum(rng.normal(0, 0.9, (n, 3)), 0)
        extra = np.stack([rng.integers(0, 2, n), rng.integers(-1, 2, n), rng.integers(0, 4, n)],
                         1)
        atoms.append(np.concatenate([np.eye(atom_types)[kind], extra], 1))
        lengths = []
        for i, j in pairs:
            distance = np.linalg.norm(position[i] - position[j])
            lengths.append(distance)
            order = np.eye(bond_types)[rng.choice(bond_types, p=[0.6, 0.25, 0.1, 0.05])]
            rbf = np.exp(-np.square(distance - centres) / 0.1)
            for a, b in ((i, j), (j, i)):
                src.append(a + offset)
                dst.append(b + offset)
                bonds.append(np.concatenate([order, rbf]))
        owner.append(np.full(n, g))
        y.append([np.sum(kind == 1), np.mean(lengths), len(pairs) / n,
                  np.sum(np.exp(-np.array(lengths)))])
        offset += n
    atoms_np = np.concatenate(atoms, 0)
    owner_np = np.concatenate(owner)
    y_np = np.array(y)
    y_np = (y_np - y_np.mean(0)) / (y_np.std(0) + 1e-6)
    nodes = offset
    src_j = jnp.asarray(src, jnp.int32)
    dst_j = jnp.asarray(dst, jnp.int32)
    owner_j = jnp.asarray(owner_np, jnp.int32)

    def loss_fn(p, atoms, bonds, target):
        h = jax.nn.relu(atoms @ p["embed"] + p["embed_b"])
        edges = bonds.shape[0]
        matrices = (jax.nn.relu(bonds @ p["edge1"] + p["edge1_b"]) @ p["edge2"]
                    + p["edge2_b"]).reshape(edges, width, width)
        for _ in range(passes):
            sent = jnp.einsum("eij,ej->ei", matrices, h[src_j])
            m = jax.ops.segment_sum(sent, dst_j, num_segments=nodes)
            gates = m @ p["gru_w"] + p["gru_b"]
            recur = h @ p["gru_u"]
            z = jax.nn.sigmoid(gates[:, :width] + recur[:, :width])
            r = jax.nn.sigmoid(gates[:, width:2 * width] + recur[:, width:2 * width])
            candidate = jnp.tanh(gates[:, 2 * width:] + (r * h) @ p["gru_u"][:, 2 * width:])
            h = (1.0 - z) * h + z * candidate
        q_star = jnp.zeros((graphs, 2 * width))
        hq = cq = jnp.zeros((graphs, width))
        for _ in range(readout_steps):
            i, f, g, o = jnp.split(q_star @ p["s2s_w"] + hq @ p["s2s_u"] + p["s2s_b"], 4, -1)
            cq = jax.nn.sigmoid(f) * cq + jax.nn.sigmoid(i) * jnp.tanh(g)
            hq = jax.nn.sigmoid(o) * jnp.tanh(cq)
            e = jnp.sum(h * hq[owner_j], -1)
            top = jax.lax.stop_gradient(jax.ops.segment_max(e, owner_j, num_segments=graphs))
            a = jnp.exp(e - top[owner_j])
            a = a / jax.ops.segment_sum(a, owner_j, num_segments=graphs)[owner_j]
            read = jax.ops.segment_sum(a[:, None] * h, owner_j, num_segments=graphs)
            q_star = jnp.concatenate([hq, read], -1)
        predicted = jax.nn.relu(q_star @ p["out1"] + p["out1_b"]) @ p["out2"] + p["out2_b"]
        return jnp.mean(jnp.square(predicted - target))

    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("adagrad_norm", loss_fn, p, f32(atoms_np), f32(np.array(bonds)), f32(y_np))


def glo_stylegan(dataset: int = 4096, batch: int = 8, latent: int = 128, mapping: int = 4,
                 widths: tuple[tuple[int, int], ...] = ((4, 96), (8, 96), (16, 48), (32, 24))
                 ) -> Any:
    """Generative latent optimization (GLO) of a StyleGAN2-style generator in bfloat16:
    every image of a 4096-image data set owns a learned 128-dimensional code, gathered
    from a table by the batch's indices and normalized onto the unit sphere, which a
    four-layer mapping network turns into a style vector; the synthesis network starts
    from a learned 4x4 constant and at 8, 16 and 32 pixels upsamples by repetition and
    applies two modulated 3x3 convolutions, each scaling its input channels by an affine
    map of the style, convolving with the shared kernel and demodulating every output
    channel by the norm of its style-scaled weights, then adding per-pixel noise with a
    learned strength, a bias and a scaled leaky ReLU; modulated 1x1 convolutions without
    demodulation give RGB at every resolution, summed through upsampling skips. Loss: an
    L1 distance over a four-level Laplacian pyramid (a 5-tap binomial blur as a
    depthwise convolution, band differences, subsampling), in float32; layer-wise DoG."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    side = widths[-1][0]
    shapes: dict[str, tuple[int, ...]] = {"latent": (dataset, latent)}
    for i in range(mapping):
        shapes.update({f"map{i}": (latent, latent), f"map{i}_b": (latent,)})
    shapes["const"] = (1, widths[0][0], widths[0][0], widths[0][1])
    convs: list[tuple[str, int, int, int, bool]] = [("c4", widths[0][1], widths[0][1], 3, True)]
    rgbs = [("rgb4", widths[0][1], 3, 1, False)]
    for (res, cout), (_, cin) in zip(widths[1:], widths[:-1]):
        convs += [(f"c{res}a", cin, cout, 3, True), (f"c{res}b", cout, cout, 3, True)]
        rgbs.append((f"rgb{res}", cout, 3, 1, False))
    for k, cin, cout, size, _ in convs + rgbs:
        # `_s` maps the style to per-input-channel scales, `_s_g` their bias (starting at
        # one); `_noise_b` the strength of injected noise (starting at zero)
        shapes.update({k: (size, size, cin, cout), f"{k}_s": (latent, cin),
                       f"{k}_s_g": (cin,), f"{k}_b": (cout,), f"{k}_noise_b": (1,)})
    p = _params(shapes, seed=10, dtype=bf16)
    p["const"] = jnp.asarray(np.random.default_rng(110).standard_normal(shapes["const"]), bf16)

    def modulated(p, k, x, style, demodulate, noise):
        s = style @ p[f"{k}_s"] + p[f"{k}_s_g"]
        y = _conv(x * s[:, None, None, :], p[k])
        if demodulate:
            energy = jnp.sum(jnp.square(p[k].astype(jnp.float32)), (0, 1))
            scale = jax.lax.rsqrt(jnp.square(s.astype(jnp.float32)) @ energy + 1e-8)
            y = y * scale[:, None, None, :].astype(bf16)
        if noise is not None:
            y = y + p[f"{k}_noise_b"] * noise
        return y + p[f"{k}_b"]

    def act(x):
        return jax.nn.leaky_relu(x, 0.2) * math.sqrt(2.0)

    def up(x):
        return jnp.repeat(jnp.repeat(x, 2, 1), 2, 2)

    taps = np.array([1.0, 4.0, 6.0, 4.0, 1.0])
    blur = jnp.asarray(np.tile((np.outer(taps, taps) / 256.0)[:, :, None, None], (1, 1, 1, 3)),
                       jnp.float32)

    def pyramid(img):
        levels = []
        for _ in range(3):
            low = _conv(img, blur, groups=3)
            levels.append(img - low)
            img = low[:, ::2, ::2]
        return levels + [img]

    def loss_fn(p, index, target, key):
        z = p["latent"][index].astype(jnp.float32)
        z = (z / jnp.sqrt(jnp.sum(z * z, -1, keepdims=True) + 1e-8)).astype(bf16)
        style = z
        for i in range(mapping):
            style = act(style @ p[f"map{i}"] + p[f"map{i}_b"])
        b = index.shape[0]
        keys = iter(jax.random.split(key, len(convs)))

        def noise_for(res):
            return jax.random.normal(next(keys), (b, res, res, 1), bf16)

        x = act(modulated(p, "c4", jnp.broadcast_to(p["const"], (b,) + shapes["const"][1:]),
                          style, True, noise_for(4)))
        rgb = modulated(p, "rgb4", x, style, False, None)
        for res, _ in widths[1:]:
            x = up(x)
            x = act(modulated(p, f"c{res}a", x, style, True, noise_for(res)))
            x = act(modulated(p, f"c{res}b", x, style, True, noise_for(res)))
            rgb = up(rgb) + modulated(p, f"rgb{res}", x, style, False, None)
        made = pyramid(rgb.astype(jnp.float32))
        real = pyramid(target)
        return sum(jnp.mean(jnp.abs(a - b_)) for a, b_ in zip(made, real))

    rng = np.random.default_rng(10)
    index = rng.choice(dataset, batch, replace=False)
    target = np.tanh(_smooth_images(rng, batch, side, 3, 3.0))
    return _train("l_dog", loss_fn, p, jnp.asarray(index, jnp.int32),
                  jnp.asarray(target, jnp.float32), jax.random.PRNGKey(10))


def value_iteration_gridworld(worlds: int = 4, side: int = 40, gamma: float = 0.98,
                              tolerance: float = 1e-4, max_iterations: int = 2000,
                              horizon: int = 256) -> Any:
    """Scientific: value iteration for four stochastic 40x40 gridworlds with eight king
    moves: the intended move succeeds with probability 0.7, each 45-degree veer with 0.1,
    and in windy columns the wind pushes one cell north with 0.1 (else the move stands);
    walls block, pits and the goal are absorbing (-1 and +1 on arrival), and every step
    costs 0.01. Bellman backups gather the successor values of every state, action and
    outcome in a `while_loop` that runs until the largest change of any value is below
    tolerance * (1 - gamma) / (2 gamma), which makes the greedy policy 1e-4-optimal
    (capped at 2000 iterations); the greedy policy's chance of having reached its goal
    within 256 steps comes from pushing the start distribution through its Markov chain
    with scatter-adds in a `fori_loop`; values, policies, iteration count, final change
    and success probabilities come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    states = side * side
    moves = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]
    rng = np.random.default_rng(11)
    successor = np.zeros((worlds, states, 8, 4), np.int64)
    chance = np.zeros((worlds, states, 8, 4))
    payoff = np.zeros((worlds, states, 8, 4))
    goals, starts = np.zeros(worlds, np.int64), np.zeros((worlds, states))
    for w in range(worlds):
        wall = rng.uniform(size=(side, side)) < 0.12
        pit = (rng.uniform(size=(side, side)) < 0.03) & ~wall
        windy = rng.uniform(size=side) < 0.3
        goal = (int(rng.integers(side)), int(rng.integers(side // 2)))
        start = (int(rng.integers(side)), int(rng.integers(side // 2, side)))
        for cell in (goal, start):
            wall[cell] = pit[cell] = False
        goals[w] = goal[0] * side + goal[1]
        starts[w, start[0] * side + start[1]] = 1.0
        for r in range(side):
            for c in range(side):
                s = r * side + c
                if pit[r, c] or (r, c) == goal:
                    successor[w, s] = s                   # absorbing, nothing more to earn
                    chance[w, s, :, 0] = 1.0
                    continue
                for a in range(8):
                    options = [(moves[a], 0.7), (moves[(a + 1) % 8], 0.1),
                               (moves[(a - 1) % 8], 0.1),
                               ((-1, 0) if windy[c] else moves[a], 0.1)]
                    for k, ((dr, dc), odds) in enumerate(options):
                        nr, nc = r + dr, c + dc
                        if not (0 <= nr < side and 0 <= nc < side) or wall[nr, nc]:
                            nr, nc = r, c
                        successor[w, s, a, k] = nr * side + nc
                        chance[w, s, a, k] = odds
                        payoff[w, s, a, k] = (-0.01 + 1.0 * ((nr, nc) == goal)
                                              - 1.0 * pit[nr, nc])
    threshold = tolerance * (1.0 - gamma) / (2.0 * gamma)

    def run(successor, chance, payoff, starts, goals):
        def backup(v):
            ahead = jax.vmap(lambda v_, n_: v_[n_])(v, successor)
            return jnp.sum(chance * (payoff + gamma * ahead), -1)           # (W, S, A)

        def unfinished(carry):
            i, _, change = carry
            return (change > threshold) & (i < max_iterations)

        def sweep(carry):
            i, v, _ = carry
            fresh = backup(v).max(-1)
            return i + 1, fresh, jnp.max(jnp.abs(fresh - v))

        iterations, v, change = lax.while_loop(
            unfinished, sweep, (jnp.int32(0), jnp.zeros((worlds, states)), jnp.float32(jnp.inf)))
        policy = jnp.argmax(backup(v), -1)
        pick = policy[..., None, None]
        nexts = jnp.take_along_axis(successor, pick, 2)[:, :, 0]              # (W, S, K)
        odds = jnp.take_along_axis(chance, pick, 2)[:, :, 0]

        def push(_, dist):
            return jax.vmap(lambda d, n, o: jnp.zeros(states).at[n].add(d[:, None] * o))(
                dist, nexts, odds)

        dist = lax.fori_loop(0, horizon, push, starts)
        reached = jnp.take_along_axis(dist, goals[:, None], 1)[:, 0]
        return v, policy, iterations, change, reached

    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(run).lower(jnp.asarray(successor, jnp.int32), f32(chance), f32(payoff),
                              f32(starts), jnp.asarray(goals, jnp.int32))


def nl_means_denoise(images: int = 4, side: int = 128, patch: int = 3, search: int = 7,
                     sigma: float = 0.1) -> Any:
    """Inference: non-local means denoising (Buades, Coll and Morel) of four grey images
    with Gaussian noise of standard deviation 0.1: a `fori_loop` over the 225 offsets of
    a 15x15 search window cuts each shifted image out of a reflect-padded copy by
    `dynamic_slice`, sums squared differences over 7x7 patches by two separable
    `reduce_window` sums, turns the patch distance into a weight exp(-max(d - 2 sigma^2,
    0) / h^2) with h = 0.4 sigma and accumulates weighted pixels and weights; the centre
    pixel is weighed by the largest weight any other offset earned. The estimates, their
    PSNR against the clean images and the standard deviation of the removed noise come
    back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    window = 2 * search + 1
    extent = side + 2 * patch
    pad = search + patch
    h2 = (0.4 * sigma) ** 2
    box = 2 * patch + 1

    def run(noisy, clean):
        padded = jnp.pad(noisy, ((0, 0), (pad, pad), (pad, pad)), mode="reflect")
        centre = padded[:, search:search + extent, search:search + extent]

        def patch_sum(x):
            x = lax.reduce_window(x, 0.0, lax.add, (1, box, 1), (1, 1, 1), "VALID")
            return lax.reduce_window(x, 0.0, lax.add, (1, 1, box), (1, 1, 1), "VALID")

        def offset(i, carry):
            total, weights, best = carry
            dy, dx = i // window, i % window
            shifted = lax.dynamic_slice(padded, (0, dy, dx), (images, extent, extent))
            distance = patch_sum(jnp.square(shifted - centre)) / (box * box)
            weight = jnp.exp(-jnp.maximum(distance - 2 * sigma ** 2, 0.0) / h2)
            weight = jnp.where(i == search * window + search, 0.0, weight)
            value = shifted[:, patch:patch + side, patch:patch + side]
            return total + weight * value, weights + weight, jnp.maximum(best, weight)

        start = jnp.zeros((images, side, side))
        total, weights, best = lax.fori_loop(0, window * window, offset, (start, start, start))
        estimate = (total + best * noisy) / (weights + best + 1e-12)
        error = jnp.mean(jnp.square(estimate - clean), (1, 2))
        psnr = 10.0 * jnp.log10(1.0 / error)
        removed = jnp.std(noisy - estimate, (1, 2))
        return estimate, psnr, removed

    rng = np.random.default_rng(12)
    clean = 0.5 + 0.15 * _smooth_images(rng, images, side, 1, 6.0)[..., 0]
    yy, xx = np.mgrid[0:side, 0:side]
    for i in range(images):
        for _ in range(6):                              # flat shapes with sharp edges
            cy, cx, r = rng.uniform(0, side), rng.uniform(0, side), rng.uniform(6, 24)
            clean[i][np.abs(yy - cy) + np.abs(xx - cx) < r] = rng.uniform(0.1, 0.9)
    clean = np.clip(clean, 0.0, 1.0)
    noisy = clean + sigma * rng.standard_normal(clean.shape)
    return jax.jit(run).lower(jnp.asarray(noisy, jnp.float32), jnp.asarray(clean, jnp.float32))


def stable_fluids_smoke(side: int = 128, steps: int = 80, jacobi: int = 40, dt: float = 0.5,
                        buoyancy: float = 0.08, weight: float = 0.02,
                        confinement: float = 0.3) -> Any:
    """Scientific: Stam's stable fluids for smoke rising in a closed 128x128 box: a
    `fori_loop` of 80 steps, each injecting density and heat at two sources, adding
    buoyancy (heat lifts, density weighs) and vorticity confinement (the curl of the
    velocity by central differences and a force along the normalized gradient of its
    magnitude), advecting the velocity, density and temperature semi-Lagrangian (every
    cell traced back along the velocity and the fields sampled there bilinearly by four
    gathers), and projecting the velocity onto a divergence-free field by 40 Jacobi
    iterations for the pressure in an inner `fori_loop` and subtracting its gradient,
    with walls on every side. The density, velocity, a trace of kinetic energy and the
    largest remaining divergence come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rows = jnp.arange(side, dtype=jnp.float32)[:, None] * jnp.ones((1, side))
    cols = jnp.ones((side, 1)) * jnp.arange(side, dtype=jnp.float32)[None, :]
    border = ((rows == 0) | (rows == side - 1) | (cols == 0) | (cols == side - 1))

    def shift(f, dy, dx):
        padded = jnp.pad(f, 1, mode="edge")
        return padded[1 + dy:1 + dy + side, 1 + dx:1 + dx + side]

    def ddx(f):
        return 0.5 * (shift(f, 0, 1) - shift(f, 0, -1))

    def ddy(f):
        return 0.5 * (shift(f, 1, 0) - shift(f, -1, 0))

    def sample(field, y, x):
        y = jnp.clip(y, 0.0, side - 1.001)
        x = jnp.clip(x, 0.0, side - 1.001)
        y0, x0 = jnp.floor(y), jnp.floor(x)
        fy, fx = y - y0, x - x0
        i0, j0 = y0.astype(jnp.int32), x0.astype(jnp.int32)
        flat = field.reshape(-1)
        at = lambda i, j: flat[i * side + j]
        return ((1 - fy) * ((1 - fx) * at(i0, j0) + fx * at(i0, j0 + 1))
                + fy * ((1 - fx) * at(i0 + 1, j0) + fx * at(i0 + 1, j0 + 1)))

    def run(source, heat):
        def project(u, v):
            div = ddx(u) + ddy(v)
            pressure = lax.fori_loop(0, jacobi, lambda _, q: 0.25 * (
                shift(q, 0, 1) + shift(q, 0, -1) + shift(q, 1, 0) + shift(q, -1, 0) - div),
                jnp.zeros_like(div))
            u = jnp.where(border, 0.0, u - ddx(pressure))
            v = jnp.where(border, 0.0, v - ddy(pressure))
            return u, v

        def step(i, carry):
            u, v, density, temperature, energy = carry
            density = density + dt * source
            temperature = temperature + dt * heat
            v = v - dt * (buoyancy * temperature - weight * density)       # up is -y
            curl = ddx(v) - ddy(u)
            gx, gy = ddx(jnp.abs(curl)), ddy(jnp.abs(curl))
            norm = jnp.sqrt(gx * gx + gy * gy) + 1e-6
            u = u + dt * confinement * (gy / norm) * curl
            v = v - dt * confinement * (gx / norm) * curl
            back_y, back_x = rows - dt * v, cols - dt * u
            u, v = sample(u, back_y, back_x), sample(v, back_y, back_x)
            density = 0.995 * sample(density, back_y, back_x)
            temperature = 0.99 * sample(temperature, back_y, back_x)
            u, v = project(u, v)
            return u, v, density, temperature, energy.at[i].set(0.5 * jnp.sum(u * u + v * v))

        zero = jnp.zeros((side, side))
        u, v, density, _, energy = lax.fori_loop(
            0, steps, step, (zero, zero, zero, zero, jnp.zeros(steps)))
        residual = jnp.max(jnp.abs(ddx(u) + ddy(v)))
        return density, u, v, energy, residual

    yy, xx = np.mgrid[0:side, 0:side]
    source = np.zeros((side, side))
    for cx in (0.35 * side, 0.65 * side):
        source += np.exp(-((yy - 0.85 * side) ** 2 + (xx - cx) ** 2) / (2 * 4.0 ** 2))
    heat = 1.5 * source
    return jax.jit(run).lower(jnp.asarray(source, jnp.float32), jnp.asarray(heat, jnp.float32))


def nucleus_decoding(sequences: int = 8, prompt: int = 32, new_tokens: int = 64,
                     width: int = 192, heads: int = 4, layers: int = 4, vocab: int = 4096,
                     temperature: float = 0.8, top_p: float = 0.9) -> Any:
    """Inference: sampling from a small decoder-only transformer (pre-norm, learned
    positions, GELU feed-forward, weights from a fixed seed) with a key-value cache:
    the 32-token prompts of eight sequences are prefilled at once under a causal mask,
    writing every layer's keys and values into a cache sized for 96 positions, then a
    `fori_loop` decodes 64 tokens, each step embedding the last token at its position,
    writing its keys and values by `dynamic_update_slice`, attending over the cache
    masked to the positions filled so far, and sampling from the temperature-scaled
    distribution truncated to its top-p nucleus (probabilities sorted by `argsort`, a
    `cumsum`, tokens beyond the 0.9 mass dropped, a categorical draw from a key folded
    with the step). The tokens and their summed log-probabilities come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    total = prompt + new_tokens
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (total, width)}
    for l in range(layers):
        shapes.update({f"l{l}_ln1_g": (width,), f"l{l}_ln1_b": (width,),
                       f"l{l}_qkv": (width, 3 * width), f"l{l}_o": (width, width),
                       f"l{l}_ln2_g": (width,), f"l{l}_ln2_b": (width,),
                       f"l{l}_ff1": (width, 4 * width), f"l{l}_ff1_b": (4 * width,),
                       f"l{l}_ff2": (4 * width, width), f"l{l}_ff2_b": (width,)})
    shapes.update({"final_g": (width,), "final_b": (width,), "head": (width, vocab)})
    p = _params(shapes, seed=13)
    p["embed"] = p["embed"] * math.sqrt(vocab / width)

    def blocks(p, x, positions, caches, start):
        """Runs the layers over the tokens at `positions` (starting at `start`), writing
        their keys and values into the caches and attending over every cached position up
        to each token's own."""
        b, n, _ = x.shape
        visible = jnp.arange(total)[None, :] <= positions[:, None]                 # (n, T)
        new_caches = []
        for l in range(layers):
            h = _layer_norm(x, p[f"l{l}_ln1_g"], p[f"l{l}_ln1_b"])
            q, k, v = jnp.split((h @ p[f"l{l}_qkv"]).reshape(b, n, 3 * heads, dh), 3, 2)
            keys, values = caches[l]
            keys = lax.dynamic_update_slice(keys, k, (0, start, 0, 0))
            values = lax.dynamic_update_slice(values, v, (0, start, 0, 0))
            new_caches.append((keys, values))
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, keys) / math.sqrt(dh)
            weights = jax.nn.softmax(jnp.where(visible, scores, -1e9), -1)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", weights, values).reshape(b, n, width) \
                @ p[f"l{l}_o"]
            h = _layer_norm(x, p[f"l{l}_ln2_g"], p[f"l{l}_ln2_b"])
            x = x + jax.nn.gelu(h @ p[f"l{l}_ff1"] + p[f"l{l}_ff1_b"]) @ p[f"l{l}_ff2"] \
                + p[f"l{l}_ff2_b"]
        logits = _layer_norm(x[:, -1], p["final_g"], p["final_b"]) @ p["head"]
        return logits, new_caches

    def run(p, prompts, key):
        empty = jnp.zeros((sequences, total, heads, dh))
        caches = [(empty, empty) for _ in range(layers)]
        x = p["embed"][prompts] + p["pos"][:prompt]
        logits, caches = blocks(p, x, jnp.arange(prompt), caches, 0)

        def sample(logits, k):
            logp = jax.nn.log_softmax(logits / temperature, -1)
            order = jnp.argsort(-logp, -1)
            ranked = jnp.take_along_axis(logp, order, -1)
            mass = jnp.cumsum(jnp.exp(ranked), -1)
            kept = jnp.where(mass - jnp.exp(ranked) < top_p, ranked, -jnp.inf)
            choice = jax.random.categorical(k, kept, -1)
            token = jnp.take_along_axis(order, choice[:, None], -1)[:, 0]
            return token, jnp.take_along_axis(logp, token[:, None], -1)[:, 0]

        def decode(i, carry):
            logits, caches, out, score = carry
            token, logp = sample(logits, jax.random.fold_in(key, i))
            out = out.at[:, i].set(token)
            position = prompt + i
            x = p["embed"][token][:, None] + lax.dynamic_slice_in_dim(p["pos"], position, 1)
            logits, caches = blocks(p, x, position[None], caches, position)
            return logits, caches, out, score + logp

        start = (logits, caches, jnp.zeros((sequences, new_tokens), jnp.int32),
                 jnp.zeros(sequences))
        _, _, out, score = lax.fori_loop(0, new_tokens, decode, start)
        return out, score

    rng = np.random.default_rng(13)
    prompts = _markov_tokens(rng, sequences, prompt, vocab)
    return jax.jit(run).lower(p, jnp.asarray(prompts, jnp.int32), jax.random.PRNGKey(13))


def _integer_root(value: int, power: int) -> int:
    """The integer part of value ** (1 / power), exactly."""
    low, high = 0, 1 << (value.bit_length() // power + 1)
    while low < high:
        middle = (low + high + 1) // 2
        if middle ** power <= value:
            low = middle
        else:
            high = middle - 1
    return low


def sha256_mining(templates: int = 4, nonces: int = 4096) -> Any:
    """Scientific: double SHA-256 of 16384 80-byte block headers in uint32, as a
    proof-of-work search does it: four header templates differ only in their last four
    bytes, the nonce; the first 64-byte block of each template is compressed once into a
    midstate, then each header's second block (the last 16 bytes, the padding and the
    length) is compressed from its template's midstate and the 32-byte digest hashed
    once more; a compression is a `fori_loop` of the 64 rounds that extends a 16-word
    message schedule in place (`dynamic_update_index_in_dim`), with rotations built from
    shifts. The round constants and initial hash are computed exactly from the primes'
    cube and square roots. The digests, the difficulty of each hash (leading zero bits
    of the byte-reversed digest by `clz` after a byte swap) and the best nonce per
    template come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    primes = [n for n in range(2, 312) if all(n % d for d in range(2, int(n ** 0.5) + 1))]
    mask = (1 << 32) - 1
    constants = np.array([_integer_root(q << 96, 3) & mask for q in primes[:64]], np.uint32)
    initial = np.array([_integer_root(q << 64, 2) & mask for q in primes[:8]], np.uint32)
    u32 = jnp.uint32

    def rotr(x, n):
        return (x >> u32(n)) | (x << u32(32 - n))

    def compress(state, block, k):
        """One SHA-256 compression of `block` (16, N) words into `state` (8, N)."""
        def round_(i, carry):
            a, b, c, d, e, f, g, h, schedule = carry
            j = i % 16
            word = lax.dynamic_index_in_dim(schedule, j, 0, keepdims=False)
            w2 = lax.dynamic_index_in_dim(schedule, (i - 2) % 16, 0, keepdims=False)
            w7 = lax.dynamic_index_in_dim(schedule, (i - 7) % 16, 0, keepdims=False)
            w15 = lax.dynamic_index_in_dim(schedule, (i - 15) % 16, 0, keepdims=False)
            grown = (word + (rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> u32(3))) + w7
                     + (rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> u32(10))))
            word = jnp.where(i < 16, word, grown)
            schedule = lax.dynamic_update_index_in_dim(schedule, word, j, 0)
            t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g))
                  + k[i] + word)
            t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))
            return t1 + t2, a, b, c, d + t1, e, f, g, schedule

        out = lax.fori_loop(0, 64, round_, (*state, block))
        return jnp.stack(out[:8]) + state

    def byteswap(x):
        return ((x >> u32(24)) | ((x >> u32(8)) & u32(0xFF00)) | ((x << u32(8)) & u32(0xFF0000))
                | (x << u32(24)))

    def run(first_blocks, tails, k, start):
        # first_blocks (16, templates); tails (3, templates): the second block's first 12
        # bytes; the nonce is the fourth word
        n = nonces
        midstate = compress(jnp.broadcast_to(start[:, None], (8, templates)), first_blocks, k)
        nonce = byteswap(jnp.arange(n, dtype=u32))                     # little-endian nonce
        words = [jnp.repeat(tails[i], n) for i in range(3)]
        words.append(jnp.tile(nonce, templates))
        total = templates * n
        padding = [jnp.full(total, 0x80000000, u32)] + [jnp.zeros(total, u32)] * 10
        second = jnp.stack(words + padding + [jnp.full(total, 640, u32)])     # 80 bytes
        first = compress(jnp.repeat(midstate, n, 1), second, k)
        padding = [jnp.full(total, 0x80000000, u32)] + [jnp.zeros(total, u32)] * 6
        again = jnp.stack(list(first) + padding + [jnp.full(total, 256, u32)])
        digest = compress(jnp.broadcast_to(start[:, None], (8, total)), again, k)
        top = byteswap(digest[7])
        difficulty = lax.clz(top) + jnp.where(top == 0, lax.clz(byteswap(digest[6])), u32(0))
        best = jnp.argmax(difficulty.reshape(templates, n), -1)
        return digest.T, difficulty, best

    rng = np.random.default_rng(14)
    headers = rng.integers(0, 1 << 32, (templates, 19), dtype=np.uint64).astype(np.uint32)
    return jax.jit(run).lower(jnp.asarray(headers[:, :16].T), jnp.asarray(headers[:, 16:].T),
                              jnp.asarray(constants), jnp.asarray(initial))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "shufflenet_adascale/4x16x32px-0.5x": shufflenet_adascale,
    "yolo_detector/8x128px-8x8x3-anchors": yolo_detector,
    "electra_pretrain/4x128-d128+192-bf16": electra_pretrain,
    "gmlp_classifier/16x32px-d96-l4-bf16": gmlp_classifier,
    "bilstm_crf_tagger/32x40-h128-17-tags": bilstm_crf_tagger,
    "kim_cnn_easgd/4x16x48-3-4-5": kim_cnn_easgd,
    "neumf_recommender/1024x5-16384x8192": neumf_recommender,
    "impala_vtrace_kfac/32x20-h256": impala_vtrace_kfac,
    "mpnn_set2set/48-molecules-d48": mpnn_set2set,
    "glo_stylegan/8x32px-4096-codes-bf16": glo_stylegan,
    "value_iteration_gridworld/4x40x40-max2000": value_iteration_gridworld,
    "nl_means_denoise/4x128px-15x15-7x7": nl_means_denoise,
    "stable_fluids_smoke/128x128-80-steps": stable_fluids_smoke,
    "nucleus_decoding/8x32+64-d192-l4": nucleus_decoding,
    "sha256_mining/4x4096-nonces": sha256_mining,
}
