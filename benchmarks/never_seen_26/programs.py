"""The twenty-sixth never-seen set: programs written on 2026-11-28, after the twenty-fifth
set (benchmarks/never_seen_25/), and never used to choose anything: no feature, default,
fallback threshold or model was picked by looking at them. They are here to judge one
trained model, once. The SHA-256 of this file is committed next to it (`SHA256`), and
`fresh_programs.py --set never-seen-26` refuses to run when the two disagree, since an
edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the
twenty-five earlier never-seen sets contain. Two training steps are large, a few
gigaflops each (the SlowFast video network and the Music Transformer); the others are
mid-sized. Ten are training steps, most of them with an update rule that no earlier set
used, and several carry state that is more than one set of weights: eight whole networks
moved together (SVGD), four federated clients' control variates (SCAFFOLD), a snapshot
and its full gradient (Katyusha), a thermostat (SG-NHT), the weights of a learned
optimizer, and running means of every dense layer's inputs and output gradients (Eva).

A SlowFast network classifies clips of a figure gliding in one of eight directions, a
slow pathway on every fourth frame with wide channels and no temporal kernels early on,
a fast pathway on every frame with an eighth of the channels, joined by time-strided
lateral 3-D convolutions; four data-parallel workers under `vmap` send TernGrad's
stochastic ternary gradients. The Music Transformer in bfloat16 models performance event
streams with relative attention only, the relative scores turned into absolute ones by
the skewing reshape, and is trained by a learned optimizer, a tiny MLP applied to
normalized features of every weight. A CaiT in bfloat16 with talking-heads attention,
LayerScale and class-attention layers at the end classifies pictures of polygons under
Eva, a Kronecker-vector second-order method whose inverses are Sherman-Morrison
formulas. A deep Koopman autoencoder of the pendulum, its latent pairs rotated and
damped at rates an auxiliary network reads off their radius and rolled out in a
`lax.scan`, is sampled as eight particles by Stein variational gradient descent (an RBF
kernel over flattened networks, its bandwidth a median found by sorting). A GFlowNet
learns a multimodal reward on a 4-D hypergrid by trajectory balance, sampling its own
trajectories in a `lax.scan` by Gumbel-max over masked moves and fitting them by a
Gauss-Newton step through the Woodbury identity, per-trajectory gradients from `vmap`
and a small system solved by conjugate gradients in a `fori_loop`. WaveGAN, transposed
and strided 1-D convolutions of 25 taps with phase shuffle by gathers, learns
percussion under consensus optimization, which differentiates the squared norm of
both players' gradients (a second backward pass through the first). A Res2Net, whose
bottlenecks convolve channel groups in a chain, learns in one round of SCAFFOLD: four
label-skewed clients under `vmap`, three corrected local steps each in a `lax.scan`. A
graph network-based simulator learns granular flow from neighbours found by `top_k`,
gathered sender features and four rounds of message passing, updated by Katyusha with
two gradients a step. A DeltaNet language model in bfloat16 runs the delta rule over
fast-weight matrices in a float32 `lax.scan` after short causal convolutions, on key-
value recall streams, with anticorrelated perturbed gradient descent. C51 learns return
distributions on gridworld transitions with a small CNN, the projection of the target
distribution done by two scatter-adds, its weights sampled by the stochastic gradient
Nose-Hoover thermostat.

Five are scientific or algorithmic steps without a gradient: polar codes of length 512
decoded by simplified successive cancellation (the decoding tree unrolled, min-sum and
sign-flip combinations, rate-0 and rate-1 nodes settled at once, butterflies of
exclusive-ors for re-encoding); DNA read search by Myers' bit-parallel edit distance, a
`lax.scan` over 4096 text positions of uint32 bit-vector arithmetic for 2048 read-text
pairs; affinity propagation clustering of three data sets (responsibilities from the
two largest entries of every row, availabilities from column sums, damped, in a
`while_loop` that stops when the exemplars settle); four linear programs solved by
PDLP's primal-dual hybrid gradient method (Ruiz equilibration, a power iteration for the
step size, blocks of iterations in a `fori_loop` inside a `while_loop` of restarts to
the average or the last iterate and primal weight updates); and the Abelian sandpile in
int32 (a central pile relaxed by multi-toppling sweeps in a `while_loop`, then 96 grains
dropped in a `fori_loop`, each followed by a `while_loop` of single topplings, recording
avalanche sizes and areas).

The updates new to these sets: TernGrad (clipped, stochastically ternarized worker
gradients, averaged, then momentum SGD), a learned optimizer (a per-weight MLP over
momenta, a second moment, the weight and the step count), Eva (rank-one Kronecker
factors inverted by Sherman-Morrison, KL clipping, momentum), Stein variational
gradient descent (with the authors' running-mean step sizes), a Woodbury Gauss-Newton
step (the n x n system of per-trajectory gradients), consensus optimization (over
RMSProp), SCAFFOLD (client and server control variates), Katyusha (accelerated variance
reduction with a snapshot), anticorrelated perturbed gradient descent (Anti-PGD) and the
stochastic gradient Nose-Hoover thermostat (SG-NHT). Three training steps (the Music
Transformer, CaiT and DeltaNet) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")
_NWC = ("NWC", "WIO", "NWC")
_NDHWC = ("NDHWC", "DHWIO", "NDHWC")


def _params(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
            scale: float = 1.0) -> dict[str, Any]:
    """Starting weights for the named shapes from one numpy generator, in the order
    given. Names ending in `_b` start at zero (biases and shifts), names ending in `_g`
    at one (gains), and the rest Gaussian with standard deviation scale / sqrt(fan-in),
    the fan-in being every axis but the last multiplied together (one for a vector)."""
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


def _norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """x normalized over `axes` by float32 statistics, then scaled and shifted; the result
    has x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axes, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axes, keepdims=True)
    out = (x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
    return (out + shift.astype(jnp.float32)).astype(x.dtype)


def _bn(x: Any, gain: Any, shift: Any) -> Any:
    """Batch norm by the batch's own statistics: every axis but the channels."""
    return _norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels, per position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv2d(x: Any, w: Any, stride: int = 1, groups: int = 1) -> Any:
    """A 2-D NHWC convolution with SAME padding."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=_NHWC,
                                    feature_group_count=groups)


def _conv3d(x: Any, w: Any, stride: tuple[int, int, int] = (1, 1, 1)) -> Any:
    """A 3-D NDHWC convolution with SAME padding."""
    from jax import lax

    return lax.conv_general_dilated(x, w, stride, "SAME", dimension_numbers=_NDHWC)


def _tree_pick(out: Any, count: int) -> list[Any]:
    """Splits a tree whose leaves are tuples of `count` entries into `count` trees."""
    import jax

    return [jax.tree.map(lambda o, i=i: o[i], out, is_leaf=lambda o: isinstance(o, tuple))
            for i in range(count)]


def _shape_pictures(rng: Any, count: int, side: int, classes: int) -> tuple[Any, Any]:
    """numpy pictures (count, side, side, 3) in [0, 1] and their int32 labels: class c is
    a figure drawn from c's recipe (a polygon with 3 + c % 5 corners, outlined when c >= 5,
    or filled) in a random colour, size, turn and place, on a background of smooth colour
    waves and a few distracting strokes."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, side, side, 3), np.float32)
    for i, label in enumerate(labels):
        k = rng.uniform(1, 4, (2, 3))
        phase = rng.uniform(0, 2 * np.pi, 3)
        back = 0.5 + 0.25 * np.sin(k[0] * xx[..., None] * 3 + k[1] * yy[..., None] * 3 + phase)
        for _ in range(rng.integers(1, 4)):                  # distracting strokes
            a, b = rng.uniform(0, 1, 2), rng.uniform(0, 1, 2)
            t = np.clip(((xx - a[0]) * (b[0] - a[0]) + (yy - a[1]) * (b[1] - a[1]))
                        / (np.sum((b - a) ** 2) + 1e-9), 0, 1)
            gap = np.hypot(xx - a[0] - t * (b[0] - a[0]), yy - a[1] - t * (b[1] - a[1]))
            back = np.where((gap < 0.015)[..., None], rng.uniform(0, 1, 3), back)
        corners = 3 + label % 5
        centre, radius = rng.uniform(0.3, 0.7, 2), rng.uniform(0.18, 0.32)
        turn = rng.uniform(0, 2 * np.pi)
        angle = np.arctan2(yy - centre[1], xx - centre[0]) - turn
        sector = 2 * np.pi / corners
        edge = radius * np.cos(np.pi / corners) / np.cos((angle % sector) - sector / 2)
        dist = np.hypot(xx - centre[0], yy - centre[1])
        inside = dist < edge
        if label >= 5:
            inside &= dist > edge - 0.06
        picture = np.where(inside[..., None], rng.uniform(0, 1, 3), back)
        out[i] = np.clip(picture + 0.03 * rng.standard_normal(picture.shape), 0, 1)
    return out, labels.astype(np.int32)


def _update_rule(name: str, **options: Any) -> tuple[Callable[[Any], Any], Callable[..., Any]]:
    """The named update as (init, update): init(params) -> state, and update(params,
    grads, state, key) -> (params, state). The arithmetic and the states are float32;
    parameters keep their dtype."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    f32 = jnp.float32
    tm = jax.tree.map

    def split_like(key: Any, tree: Any) -> Any:
        leaves, treedef = jax.tree.flatten(tree)
        return jax.tree.unflatten(treedef, list(jax.random.split(key, len(leaves))))

    if name == "anti_pgd":
        # anticorrelated perturbed gradient descent (Orvieto, Kersting, Proske, Bach and
        # Lucchi): the weights take the gradient step plus the difference of two
        # consecutive Gaussian perturbations, xi_(t+1) - xi_t, so that the injected noise
        # is anticorrelated in time; gradients clipped by their global norm first
        rate, sigma, clip = options.get("rate", 0.05), options.get("sigma", 1e-3), \
            options.get("clip", 1.0)

        def anti_init(params):
            return tm(lambda p: jnp.zeros(p.shape, f32), params)

        def anti(params, grads, last, key):
            norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(f32))) for g in jax.tree.leaves(grads)))
            scale = jnp.minimum(1.0, clip / (norm + 1e-12))
            keys = split_like(key, params)
            fresh = tm(lambda p, k: sigma * jax.random.normal(k, p.shape, f32), params, keys)
            new = tm(lambda w, g, xi, xo: (w.astype(f32) - rate * scale * g.astype(f32)
                                           + xi - xo).astype(w.dtype),
                     params, grads, fresh, last)
            return new, fresh
        return anti_init, anti

    if name == "sgnht":
        # the stochastic gradient Nose-Hoover thermostat (Ding, Fang, Babbush, Chen, Skeel
        # and Neven): momenta p, one thermostat xi for all weights; p <- p - xi p h -
        # grad U h + sqrt(2 A h) noise, xi <- xi + (p.p / D - 1) h, w <- w + p h, the
        # potential U being the loss times the data set size
        h, diffusion, size = options.get("h", 1e-3), options.get("diffusion", 1.0), \
            options.get("size", 1.0)

        def sgnht_init(params):
            return tm(lambda p: jnp.zeros(p.shape, f32), params), jnp.asarray(diffusion, f32)

        def sgnht(params, grads, state, key):
            momenta, xi = state
            keys = split_like(key, params)
            momenta = tm(lambda p, g, k: p - xi * p * h - size * g.astype(f32) * h
                         + math.sqrt(2 * diffusion * h) * jax.random.normal(k, p.shape, f32),
                         momenta, grads, keys)
            count = sum(p.size for p in jax.tree.leaves(momenta))
            xi = xi + (sum(jnp.sum(p * p) for p in jax.tree.leaves(momenta)) / count - 1.0) * h
            new = tm(lambda w, p: (w.astype(f32) + p * h).astype(w.dtype), params, momenta)
            return new, (momenta, xi)
        return sgnht_init, sgnht

    if name == "learned":
        # a learned optimizer in the manner of Metz, Maheswaranathan, Freeman, Poole and
        # Sohl-Dickstein: every weight's features (its gradient, three momenta, the
        # inverse root of a second moment, the weight itself and two features of the
        # step count), each normalized by its root mean square over the tensor, go
        # through a small MLP shared by all weights, whose two outputs give a direction
        # d and a log magnitude m; the step is 1e-3 d exp(1e-3 m). The MLP's weights are
        # meta-learned elsewhere and arrive as `rule` in the state
        decays = (0.5, 0.9, 0.99)
        hidden = options.get("hidden", 8)

        def learned_init(params):
            rng = np.random.default_rng(options.get("seed", 0))
            features = 3 + len(decays) + 2
            rule = {"w0": rng.standard_normal((features, hidden)) / math.sqrt(features),
                    "b0": rng.normal(0, 0.1, hidden),
                    "w1": rng.standard_normal((hidden, hidden)) / math.sqrt(hidden),
                    "b1": rng.normal(0, 0.1, hidden),
                    "w2": rng.standard_normal((hidden, 2)) / math.sqrt(hidden) * 0.1,
                    "b2": rng.normal(0, 0.01, 2)}
            rule = {k: jnp.asarray(v, f32) for k, v in rule.items()}
            zero = tm(lambda p: jnp.zeros(p.shape + (len(decays),), f32), params)
            return rule, zero, tm(lambda p: jnp.zeros(p.shape, f32), params), \
                jnp.zeros((), jnp.int32)

        def learned(params, grads, state, key):
            del key
            rule, momenta, second, t = state
            tf = t.astype(f32)
            times = jnp.stack([jnp.tanh(tf / 100.0), jnp.tanh(tf / 10000.0)])

            def one(w, g, m, v):
                g = g.astype(f32)
                w32 = w.astype(f32)
                m = m * jnp.asarray(decays, f32) + g[..., None] * (1 - jnp.asarray(decays, f32))
                v = 0.999 * v + 0.001 * g * g
                feats = jnp.concatenate([g[..., None], m, jax.lax.rsqrt(v + 1e-8)[..., None],
                                         w32[..., None]], -1)
                axes = tuple(range(w.ndim))
                feats = feats * jax.lax.rsqrt(jnp.mean(feats * feats, axes, keepdims=True) + 1e-8)
                feats = jnp.concatenate(
                    [feats, jnp.broadcast_to(times, w.shape + (2,))], -1)
                h = jax.nn.relu(feats @ rule["w0"] + rule["b0"])
                h = jax.nn.relu(h @ rule["w1"] + rule["b1"])
                out = h @ rule["w2"] + rule["b2"]
                step = 1e-3 * out[..., 0] * jnp.exp(1e-3 * out[..., 1])
                return (w32 - step).astype(w.dtype), m, v

            new, momenta, second = _tree_pick(tm(one, params, grads, momenta, second), 3)
            return new, (rule, momenta, second, t + 1)
        return learned_init, learned

    raise ValueError(name)


def _fit_step(rule: str, loss_fn: Callable[..., Any], params: Any, key: Any, *batch: Any,
              **options: Any) -> Any:
    """One lowered training step: the loss, its gradients and the named update on
    `batch`, the update's state entering by its shapes only (`eval_shape` of its init);
    `key` seeds the update's noise."""
    import jax

    init, update = _update_rule(rule, **options)

    def step(params, state, key, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state, key)
        return params, state, loss

    return jax.jit(step).lower(params, jax.eval_shape(init, params), key, *batch)


def _moving_clips(rng: Any, count: int, frames: int, side: int, classes: int = 8
                  ) -> tuple[Any, Any]:
    """numpy clips (count, frames, side, side, 3) in [0, 1] and int32 labels: class c is a
    figure (a disc, square or ring, in a random colour) gliding across a still textured
    background in compass direction c (of eight) at 1.5 to 3 pixels a frame and
    pulsing a little, while a distractor blob drifts in a random direction."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, frames, side, side, 3), np.float32)
    for i, label in enumerate(labels):
        k = rng.uniform(0.05, 0.3, 4)
        back = 0.4 + 0.15 * np.sin(k[0] * xx + k[1] * yy)[..., None] \
            * rng.uniform(0.5, 1.0, 3) + 0.1 * np.cos(k[2] * xx - k[3] * yy)[..., None]
        angle = 2 * np.pi * label / classes + rng.normal(0, 0.08)
        speed = rng.uniform(1.5, 3.0)
        start = side / 2 - 0.5 * frames * speed * np.array([np.cos(angle), np.sin(angle)]) \
            + rng.normal(0, 3, 2)
        drift = rng.normal(0, 1.5, 2)
        other = rng.uniform(0, side, 2)
        kind, colour, size = rng.integers(3), rng.uniform(0, 1, 3), rng.uniform(4, 8)
        for f in range(frames):
            cx, cy = start + f * speed * np.array([np.cos(angle), np.sin(angle)])
            r = size * (1 + 0.1 * np.sin(f))
            if kind == 0:
                inside = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
            elif kind == 1:
                inside = (np.abs(xx - cx) < r) & (np.abs(yy - cy) < r)
            else:
                d = np.hypot(xx - cx, yy - cy)
                inside = (d < r) & (d > 0.6 * r)
            ox, oy = other + f * drift
            blob = np.exp(-((xx - ox) ** 2 + (yy - oy) ** 2) / 18.0)[..., None]
            frame = np.where(inside[..., None], colour, back) * (1 - 0.6 * blob) + 0.6 * blob
            out[i, f] = np.clip(frame + 0.02 * rng.standard_normal(frame.shape), 0, 1)
    return out, labels.astype(np.int32)


def slowfast_terngrad(workers: int = 4, per: int = 2, frames: int = 16, side: int = 64,
                      alpha: int = 4, classes: int = 8, rate: float = 0.05,
                      momentum: float = 0.9, decay: float = 1e-4, clip: float = 2.5) -> Any:
    """A SlowFast video network (Feichtenhofer, Fan, Malik and He) classifies 64x64 clips
    of sixteen frames by the compass direction in which a figure glides over a textured
    background (a blob drifting the other way as a distractor). The slow pathway sees
    every fourth frame with wide channels (24, then 64, 128 and 256 in the bottleneck
    stages), the fast pathway every frame with an eighth of them; the slow pathway's
    early kernels have no temporal extent (1x7x7, then 1x3x3 bottlenecks) while the fast
    pathway's do (5x7x7, 3x1x1), and three lateral connections, 5x1x1 convolutions of
    temporal stride 4, carry fast features into the slow pathway by concatenation.
    Batch norm, max pooling, a global average of both pathways and a linear classifier.
    Data-parallel training by TernGrad (Wen, Xu, Yan, Wu, Wang, Chen and Li) over four
    workers under `vmap`, two clips each: every worker clips each gradient tensor to 2.5
    standard deviations and ternarizes it stochastically to {-s, 0, s} (s its largest
    magnitude, the Bernoulli probabilities |g| / s); the mean of the four ternary
    gradients drives momentum SGD with weight decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    slow_w, fast_w = (24, 64, 128, 256), (4, 8, 16, 32)
    shapes: dict[str, tuple[int, ...]] = {
        "s_stem": (1, 7, 7, 3, slow_w[0]), "s_stem_g": (slow_w[0],), "s_stem_b": (slow_w[0],),
        "f_stem": (5, 7, 7, 3, fast_w[0]), "f_stem_g": (fast_w[0],), "f_stem_b": (fast_w[0],)}
    for i in range(3):
        shapes[f"lat{i}"] = (5, 1, 1, fast_w[i], 2 * fast_w[i])
    for s in range(1, 4):
        s_in = slow_w[s - 1] + 2 * fast_w[s - 1]
        s_mid, f_mid = slow_w[s] // 4, fast_w[s] // 2
        s_time = 1 if s == 1 else 3          # the slow pathway's temporal kernels start late
        shapes.update({
            f"s{s}a": (s_time, 1, 1, s_in, s_mid), f"s{s}a_g": (s_mid,), f"s{s}a_b": (s_mid,),
            f"s{s}b": (1, 3, 3, s_mid, s_mid), f"s{s}b_g": (s_mid,), f"s{s}b_b": (s_mid,),
            f"s{s}c": (1, 1, 1, s_mid, slow_w[s]), f"s{s}c_g": (slow_w[s],),
            f"s{s}c_b": (slow_w[s],), f"s{s}skip": (1, 1, 1, s_in, slow_w[s]),
            f"f{s}a": (3, 1, 1, fast_w[s - 1], f_mid), f"f{s}a_g": (f_mid,), f"f{s}a_b": (f_mid,),
            f"f{s}b": (1, 3, 3, f_mid, f_mid), f"f{s}b_g": (f_mid,), f"f{s}b_b": (f_mid,),
            f"f{s}c": (1, 1, 1, f_mid, fast_w[s]), f"f{s}c_g": (fast_w[s],),
            f"f{s}c_b": (fast_w[s],), f"f{s}skip": (1, 1, 1, fast_w[s - 1], fast_w[s])})
    shapes.update({"head": (slow_w[3] + fast_w[3], classes), "head_b": (classes,)})
    p = _params(shapes, seed=1, scale=math.sqrt(2.0))

    def cbr(p, k, x, stride=(1, 1, 1), relu=True):
        x = _bn(_conv3d(x, p[k], stride), p[f"{k}_g"], p[f"{k}_b"])
        return jax.nn.relu(x) if relu else x

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3, 1), (1, 1, 2, 2, 1), "SAME")

    def bottleneck(p, k, x, stride):
        step = (1, stride, stride)
        h = cbr(p, f"{k}a", x)
        h = cbr(p, f"{k}b", h, step)
        h = cbr(p, f"{k}c", h, relu=False)
        return jax.nn.relu(h + _conv3d(x, p[f"{k}skip"], step))

    def loss_fn(p, clips, labels):
        slow = cbr(p, "s_stem", clips[:, ::alpha], (1, 2, 2))
        fast = cbr(p, "f_stem", clips, (1, 2, 2))
        slow, fast = pool(slow), pool(fast)
        for s in range(1, 4):
            slow = jnp.concatenate([slow, _conv3d(fast, p[f"lat{s - 1}"], (alpha, 1, 1))], -1)
            stride = 1 if s == 1 else 2
            slow = bottleneck(p, f"s{s}", slow, stride)
            fast = bottleneck(p, f"f{s}", fast, stride)
        pooled = jnp.concatenate([jnp.mean(slow, (1, 2, 3)), jnp.mean(fast, (1, 2, 3))], -1)
        return jnp.mean(_cross_entropy(pooled @ p["head"] + p["head_b"], labels))

    def ternarize(g, key):
        sigma = jnp.std(g)
        g = jnp.clip(g, -clip * sigma, clip * sigma)
        s = jnp.max(jnp.abs(g))
        keep = jax.random.uniform(key, g.shape) < jnp.abs(g) / (s + 1e-12)
        return s * jnp.sign(g) * keep

    def step(params, velocity, clips, labels, key):
        losses, grads = jax.vmap(jax.value_and_grad(loss_fn), (None, 0, 0))(params, clips, labels)
        leaves, treedef = jax.tree.flatten(grads)
        keys = jax.random.split(key, len(leaves) * workers).reshape(len(leaves), workers, -1)
        sent = [jax.vmap(ternarize)(g, k) for g, k in zip(leaves, keys)]
        mean = jax.tree.unflatten(treedef, [jnp.mean(g, 0) for g in sent])
        velocity = jax.tree.map(lambda v, g, w: momentum * v + g + decay * w, velocity, mean,
                                params)
        params = jax.tree.map(lambda w, v: w - rate * v, params, velocity)
        return params, velocity, jnp.mean(losses)

    rng = np.random.default_rng(1)
    clips, labels = _moving_clips(rng, workers * per, frames, side, classes)
    clips = clips.reshape(workers, per, frames, side, side, 3)
    velocity = jax.tree.map(jnp.zeros_like, p)
    return jax.jit(step).lower(p, velocity, jnp.asarray(clips),
                               jnp.asarray(labels.reshape(workers, per)), jax.random.PRNGKey(1))



def _performance_events(rng: Any, count: int, length: int) -> Any:
    """numpy int32 (count, length): performance event streams in the vocabulary of
    Oore et al. (128 note-ons, 128 note-offs, 100 time shifts of 10 ms and 32 velocity
    bins, 388 tokens): a melody by a random walk over a random major or minor scale with
    occasional leaps, every few notes a chord under it, note lengths from a small set
    of durations, and loudness changing in phrases."""
    import numpy as np

    on, off, shift, loud = 0, 128, 256, 356
    out = np.zeros((count, length), np.int32)
    for i in range(count):
        tonic = rng.integers(48, 60)
        steps = [0, 2, 4, 5, 7, 9, 11] if rng.uniform() < 0.5 else [0, 2, 3, 5, 7, 8, 10]
        scale = [tonic + 12 * o + s for o in range(3) for s in steps]
        degree, velocity, tokens = 7, rng.integers(10, 28), []
        while len(tokens) < length:
            if rng.uniform() < 0.1:
                velocity = int(np.clip(velocity + rng.integers(-4, 5), 0, 31))
                tokens.append(loud + velocity)
            degree = int(np.clip(degree + rng.choice([-2, -1, -1, 0, 1, 1, 2, 4, -4]), 0,
                                 len(scale) - 1))
            notes = [scale[degree]]
            if rng.uniform() < 0.25:                           # a chord under the melody
                notes += [scale[max(degree - 2, 0)] - 12, scale[max(degree - 4, 0)] - 12]
            tokens += [on + n for n in notes]
            tokens.append(shift + int(rng.choice([12, 25, 25, 50, 75, 99])))
            tokens += [off + n for n in notes]
        out[i] = tokens[:length]
    return out


def music_transformer_learned(batch: int = 4, length: int = 256, width: int = 128,
                              heads: int = 4, layers: int = 3, hidden: int = 512,
                              vocab: int = 388) -> Any:
    """The Music Transformer (Huang, Vaswani, Uszkoreit et al.) in bfloat16 learns
    performance event streams (note-ons, note-offs, time shifts and velocities, 388
    tokens) of melodies over random scales with chords: a decoder of three pre-norm
    layers of width 128 (four heads) with no absolute positions at all, every head adding to its
    logits relative position scores Q E^T against a learned table E of the 256 backward
    distances, brought from relative to absolute indexing by the skewing procedure (one
    column of zeros padded on the left, a reshape to one more row, the first row
    dropped), under a causal mask; ReLU feed-forward layers of 512 and next-token
    cross-entropy. The update is a learned optimizer (after Metz et al.): per weight, the
    gradient, momenta at three time scales, an inverse root second moment, the weight
    and two step-count features, each normalized over its tensor, go through an MLP of
    two layers of eight shared by every weight, whose two outputs set the direction
    and the log magnitude of the step."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}rel": (heads, length, dh), f"{l}o": (width, width),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}up": (width, hidden),
                       f"{l}up_b": (hidden,), f"{l}down": (hidden, width), f"{l}down_b": (width,)})
    shapes.update({"nf_g": (width,), "nf_b": (width,), "out": (width, vocab)})
    p = _params(shapes, seed=2, dtype=bf16)
    causal = jnp.tril(jnp.ones((length, length), bool))

    def skew(rel):
        """(b, h, L, L) scores by relative index (column m is distance m - (L - 1)) to
        absolute key index, by Huang et al.'s pad-reshape-slice."""
        b, h, n, _ = rel.shape
        padded = jnp.pad(rel, ((0, 0), (0, 0), (0, 0), (1, 0)))
        return padded.reshape(b, h, n + 1, n)[:, :, 1:, :]

    def attend(p, l, x):
        b, n, _ = x.shape
        q, k, v = jnp.split(x @ p[f"{l}qkv"], 3, -1)
        q, k, v = (t.reshape(b, n, heads, dh).transpose(0, 2, 1, 3) for t in (q, k, v))
        scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) \
            + skew(jnp.einsum("bhqd,hmd->bhqm", q, p[f"{l}rel"]))
        scores = jnp.where(causal, scores.astype(jnp.float32) / math.sqrt(dh), -1e9)
        weights = jax.nn.softmax(scores, -1).astype(bf16)
        out = jnp.einsum("bhqk,bhkd->bhqd", weights, v).transpose(0, 2, 1, 3)
        return out.reshape(b, n, width) @ p[f"{l}o"]

    def loss_fn(p, tokens):
        x = p["embed"][tokens[:, :-1]] * jnp.asarray(math.sqrt(width), bf16)
        for l in range(layers):
            x = x + attend(p, l, _norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"]))
            h = _norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + jax.nn.relu(h @ p[f"{l}up"] + p[f"{l}up_b"]) @ p[f"{l}down"] + p[f"{l}down_b"]
        logits = _norm(x, p["nf_g"], p["nf_b"]) @ p["out"]
        return jnp.mean(_cross_entropy(logits, tokens[:, 1:]))

    tokens = _performance_events(np.random.default_rng(2), batch, length + 1)
    return _fit_step("learned", loss_fn, p, jax.random.PRNGKey(2), jnp.asarray(tokens),
                     hidden=8, seed=2)


def cait_eva(batch: int = 8, side: int = 32, patch: int = 4, width: int = 80, heads: int = 4,
             depth: int = 4, class_depth: int = 2, ratio: int = 3, classes: int = 10,
             rate: float = 0.05, momentum: float = 0.9, damping: float = 0.03,
             kl_clip: float = 1e-3, ema: float = 0.95) -> Any:
    """A small CaiT (Touvron, Cord, Sablayrolles, Synnaeve and Jegou) in bfloat16
    classifies 32x32 pictures of filled and outlined polygons on wavy backgrounds (the
    class is the figure). 4x4 patches make 64 tokens of width 80; four self-attention
    layers without a class token use talking-heads attention (the four heads' logits
    mixed by a learned 4x4 matrix before the softmax and their weights by another after
    it) and LayerScale (every residual branch scaled by learned per-channel factors
    starting at 0.1); then two class-attention layers, in which only a class token
    queries itself and the frozen patch tokens, and a linear classifier on it. The update
    is Eva (Zhang, Li, Wang and Chu): every dense layer's gradient is preconditioned by
    the Kronecker product of two rank-one-plus-damping factors, from running means of
    the layer's input vector and of its output gradient (the bias gradient), inverted
    in closed form by the Sherman-Morrison formula; the step is capped by KL clipping
    and taken with momentum SGD, and the other weights take the plain gradient."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    tokens = (side // patch) ** 2
    dense: dict[str, tuple[int, int]] = {"embed": (patch * patch * 3, width)}
    shapes: dict[str, tuple[int, ...]] = {"pos": (tokens, width), "cls": (width,)}
    for l in range(depth + class_depth):
        k = f"{l}."
        dense.update({f"{k}qkv": (width, 3 * width), f"{k}proj": (width, width),
                      f"{k}fc1": (width, ratio * width), f"{k}fc2": (ratio * width, width)})
        shapes.update({f"{k}n1_g": (width,), f"{k}n1_b": (width,), f"{k}n2_g": (width,),
                       f"{k}n2_b": (width,), f"{k}scale1": (width,), f"{k}scale2": (width,)})
        if l < depth:
            shapes.update({f"{k}mix_pre": (heads, heads), f"{k}mix_post": (heads, heads)})
    dense["head"] = (width, classes)
    shapes.update({"nf_g": (width,), "nf_b": (width,)})
    for name, (fan_in, fan_out) in dense.items():
        shapes.update({name: (fan_in, fan_out), f"{name}_b": (fan_out,)})
    p = _params(shapes, seed=3, dtype=bf16)
    for l in range(depth + class_depth):
        for which in ("scale1", "scale2"):
            p[f"{l}.{which}"] = jnp.full((width,), 0.1, bf16)
    eye = jnp.eye(heads, dtype=bf16)
    for l in range(depth):
        p[f"{l}.mix_pre"] = p[f"{l}.mix_pre"] * jnp.asarray(0.2, bf16) + eye
        p[f"{l}.mix_post"] = p[f"{l}.mix_post"] * jnp.asarray(0.2, bf16) + eye
    rows: dict[str, int] = {}

    def linear(p, acts, name, x):
        count = x.size // x.shape[-1]
        rows[name] = count
        acts[name] = jnp.sum(x.astype(f32).reshape(count, -1), 0) / count
        return x @ p[name] + p[f"{name}_b"]

    def split_heads(t):
        b, n, _ = t.shape
        return t.reshape(b, n, heads, dh).transpose(0, 2, 1, 3)

    def talking_heads(p, acts, k, x):
        b, n, _ = x.shape
        q, key, v = (split_heads(t) for t in jnp.split(linear(p, acts, f"{k}qkv", x), 3, -1))
        logits = jnp.einsum("bhqd,bhkd->bhqk", q, key) / math.sqrt(dh)
        logits = jnp.einsum("bhqk,hg->bgqk", logits, p[f"{k}mix_pre"])
        weights = jax.nn.softmax(logits.astype(f32), -1).astype(bf16)
        weights = jnp.einsum("bhqk,hg->bgqk", weights, p[f"{k}mix_post"])
        out = jnp.einsum("bhqk,bhkd->bhqd", weights, v).transpose(0, 2, 1, 3).reshape(b, n, width)
        return linear(p, acts, f"{k}proj", out)

    def class_attention(p, acts, k, cls, patches):
        b = cls.shape[0]
        both = jnp.concatenate([cls, patches], 1)
        w_q, w_kv = jnp.split(p[f"{k}qkv"], [width], -1)
        b_q, b_kv = jnp.split(p[f"{k}qkv_b"], [width], -1)
        rows[f"{k}qkv"] = both.shape[0] * both.shape[1]
        acts[f"{k}qkv"] = jnp.mean(both.astype(f32), (0, 1))
        q = split_heads(cls @ w_q + b_q)
        key, v = (split_heads(t) for t in jnp.split(both @ w_kv + b_kv, 2, -1))
        weights = jax.nn.softmax(jnp.einsum("bhqd,bhkd->bhqk", q, key).astype(f32)
                                 / math.sqrt(dh), -1).astype(bf16)
        out = jnp.einsum("bhqk,bhkd->bhqd", weights, v).transpose(0, 2, 1, 3).reshape(b, 1, width)
        return linear(p, acts, f"{k}proj", out)

    def mlp(p, acts, k, x):
        return linear(p, acts, f"{k}fc2", jax.nn.gelu(linear(p, acts, f"{k}fc1", x)))

    def loss_fn(p, pictures, labels):
        acts: dict[str, Any] = {}
        b = pictures.shape[0]
        g = side // patch
        x = pictures.reshape(b, g, patch, g, patch, 3).transpose(0, 1, 3, 2, 4, 5) \
            .reshape(b, tokens, patch * patch * 3).astype(bf16)
        x = linear(p, acts, "embed", x) + p["pos"]
        for l in range(depth):
            k = f"{l}."
            h = _norm(x, p[f"{k}n1_g"], p[f"{k}n1_b"])
            x = x + p[f"{k}scale1"] * talking_heads(p, acts, k, h)
            x = x + p[f"{k}scale2"] * mlp(p, acts, k, _norm(x, p[f"{k}n2_g"], p[f"{k}n2_b"]))
        cls = jnp.broadcast_to(p["cls"], (b, 1, width))
        for l in range(depth, depth + class_depth):
            k = f"{l}."
            cls = cls + p[f"{k}scale1"] * class_attention(
                p, acts, k, _norm(cls, p[f"{k}n1_g"], p[f"{k}n1_b"]),
                _norm(x, p[f"{k}n1_g"], p[f"{k}n1_b"]))
            cls = cls + p[f"{k}scale2"] * mlp(p, acts, k, _norm(cls, p[f"{k}n2_g"], p[f"{k}n2_b"]))
        logits = linear(p, acts, "head", _norm(cls[:, 0], p["nf_g"], p["nf_b"]))
        return jnp.mean(_cross_entropy(logits, labels)), acts

    def init(params):
        return (jax.tree.map(lambda w: jnp.zeros(w.shape, f32), params),
                {n: jnp.zeros(d[0], f32) for n, d in dense.items()},
                {n: jnp.zeros(d[1], f32) for n, d in dense.items()})

    def step(params, state, pictures, labels):
        velocity, mean_in, mean_out = state
        (loss, acts), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, pictures, labels)
        b = pictures.shape[0]
        grads = jax.tree.map(lambda g: g.astype(f32), grads)
        mean_in = {n: ema * mean_in[n] + (1 - ema) * acts[n] for n in dense}
        mean_out = {n: ema * mean_out[n] + (1 - ema) * grads[f"{n}_b"] * (b / rows[n])
                    for n in dense}
        steps = dict(grads)
        for n in dense:                   # (a a^T + g I)^-1 G (o o^T + g I)^-1, Sherman-Morrison
            a, o, g = mean_in[n], mean_out[n], grads[n]
            left = (g - jnp.outer(a, a @ g) / (damping + a @ a)) / damping
            steps[n] = (left - jnp.outer(left @ o, o) / (damping + o @ o)) / damping
        agreement = sum(jnp.sum(steps[n] * grads[n]) for n in dense)
        nu = jnp.minimum(1.0, jnp.sqrt(kl_clip / (rate * rate * jnp.abs(agreement) + 1e-12)))
        steps = {n: (nu * s if n in dense else s) for n, s in steps.items()}
        velocity = jax.tree.map(lambda v, s: momentum * v + s, velocity, steps)
        params = jax.tree.map(lambda w, v: (w.astype(f32) - rate * v).astype(w.dtype),
                              params, velocity)
        return params, (velocity, mean_in, mean_out), loss

    pictures, labels = _shape_pictures(np.random.default_rng(3), batch, side, classes)
    return jax.jit(step).lower(p, jax.eval_shape(init, p), jnp.asarray(pictures),
                               jnp.asarray(labels))


def koopman_svgd(particles: int = 8, batch: int = 32, horizon: int = 30, dt: float = 0.02,
                 hidden: int = 64, pairs: int = 2, dataset: int = 4096, rate: float = 3e-3,
                 prior: float = 1.0) -> Any:
    """A deep Koopman autoencoder (Lusch, Kutz and Brunton) learns the nonlinear pendulum
    from 32 trajectories of 31 states with energies up to near the separatrix. An MLP
    encoder (two layers of 64, ELU) maps the angle and angular velocity to two pairs of
    latent coordinates, each advanced in time by a rotation and decay whose frequency and
    rate come from an auxiliary MLP of the pair's squared radius (the continuous spectrum
    of the pendulum), and an MLP decoder maps back. The loss adds reconstruction, the
    decoded prediction of all 30 future states by a `lax.scan` of the latent dynamics,
    linearity of the latent path against the encoded states, and an infinity-norm term
    on the first two predictions. Eight particles (eight complete networks) sample the
    posterior by Stein variational gradient descent (Liu and Wang): each particle's
    log-posterior gradient (the data set size times the loss, a Gaussian prior) by `vmap`
    of `grad`, an RBF kernel over the flattened particles with the median heuristic
    bandwidth (a sort of the pairwise distances), each particle moved by the kernel-
    weighted gradients plus the repulsive kernel gradient, with per-coordinate step sizes
    from a running mean of squared directions as in the authors' code."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    latent = 2 * pairs
    shapes = {"e0": (2, hidden), "e0_b": (hidden,), "e1": (hidden, hidden), "e1_b": (hidden,),
              "e2": (hidden, latent), "e2_b": (latent,),
              "d0": (latent, hidden), "d0_b": (hidden,), "d1": (hidden, hidden),
              "d1_b": (hidden,), "d2": (hidden, 2), "d2_b": (2,),
              "a0": (1, hidden), "a0_b": (hidden,), "a1": (hidden, 2), "a1_b": (2,)}
    starts = [_params(shapes, seed=40 + i) for i in range(particles)]
    _, unravel = ravel_pytree(starts[0])
    swarm = jnp.stack([ravel_pytree(s)[0] for s in starts])

    def mlp(p, k, x):
        x = jax.nn.elu(x @ p[f"{k}0"] + p[f"{k}0_b"])
        x = jax.nn.elu(x @ p[f"{k}1"] + p[f"{k}1_b"])
        return x @ p[f"{k}2"] + p[f"{k}2_b"]

    def advance(p, y):
        """One step of the latent dynamics: every pair rotated by its frequency and scaled
        by its growth rate, both from the auxiliary network of its squared radius."""
        y = y.reshape(y.shape[0], pairs, 2)
        radius = jnp.sum(y * y, -1, keepdims=True)
        rates = jax.nn.elu(radius @ p["a0"] + p["a0_b"]) @ p["a1"] + p["a1_b"]
        grow, turn = jnp.exp(rates[..., 0] * dt), rates[..., 1] * dt
        c, s = jnp.cos(turn), jnp.sin(turn)
        out = grow[..., None] * jnp.stack([c * y[..., 0] - s * y[..., 1],
                                           s * y[..., 0] + c * y[..., 1]], -1)
        return out.reshape(y.shape[0], latent)

    def loss_fn(flat, paths):
        p = unravel(flat)
        start = paths[:, 0]
        y0 = mlp(p, "e", start)
        recon = jnp.mean(jnp.square(mlp(p, "d", y0) - start))

        def roll(y, _):
            y = advance(p, y)
            return y, y

        _, ys = lax.scan(roll, y0, None, length=horizon)               # (horizon, b, latent)
        future = jnp.swapaxes(paths[:, 1:], 0, 1)
        guess = mlp(p, "d", ys)
        predict = jnp.mean(jnp.square(guess - future))
        linear = jnp.mean(jnp.square(mlp(p, "e", future) - ys))
        worst = jnp.max(jnp.abs(guess[:2] - future[:2]))
        return recon + predict + 0.1 * linear + 1e-3 * worst

    def step(swarm, history, paths):
        losses, grads = jax.vmap(jax.value_and_grad(loss_fn), (0, None))(swarm, paths)
        score = -dataset * grads - prior * swarm                        # grad log posterior
        gap = swarm[:, None, :] - swarm[None, :, :]
        distance = jnp.sum(gap * gap, -1)
        upper = distance[jnp.triu_indices(particles, 1)]
        width = jnp.median(upper) / math.log(particles + 1.0) + 1e-8
        kernel = jnp.exp(-distance / width)
        # phi_i = mean_j k(x_j, x_i) score_j + grad_(x_j) k(x_j, x_i)
        push = kernel @ score
        repel = (2.0 / width) * (swarm * jnp.sum(kernel, 1, keepdims=True) - kernel @ swarm)
        phi = (push + repel) / particles
        history = 0.9 * history + 0.1 * phi * phi
        swarm = swarm + rate * phi / (1e-6 + jnp.sqrt(history))
        return swarm, history, losses, width

    # pendulum trajectories: theta'' = -sin(theta), RK4 with 10 substeps per sample
    rng = np.random.default_rng(4)
    energy = rng.uniform(0.05, 0.95, batch) * 2.0                      # below the separatrix
    theta = rng.uniform(-1, 1, batch) * np.arccos(1 - energy)
    omega = np.sign(rng.uniform(-1, 1, batch)) * np.sqrt(np.maximum(
        2 * (energy - (1 - np.cos(theta))), 0))
    state = np.stack([theta, omega], 1)
    paths = np.zeros((batch, horizon + 1, 2), np.float32)

    def field(x):
        return np.stack([x[:, 1], -np.sin(x[:, 0])], 1)

    h = dt / 10
    for t in range(horizon + 1):
        paths[:, t] = state
        for _ in range(10):
            k1 = field(state)
            k2 = field(state + 0.5 * h * k1)
            k3 = field(state + 0.5 * h * k2)
            k4 = field(state + h * k3)
            state = state + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return jax.jit(step).lower(swarm, jnp.zeros_like(swarm), jnp.asarray(paths))


def gflownet_woodbury(batch: int = 64, dim: int = 4, side: int = 12, hidden: int = 128,
                      explore: float = 0.05, damping: float = 1e-2, cg_steps: int = 24,
                      rate: float = 0.5, momentum: float = 0.5) -> Any:
    """A generative flow network (Bengio, Jain, Korablyov, Precup and Bengio) learns to
    sample the points of a 4-dimensional hypergrid of side 12 in proportion to a reward
    with sixteen separated modes near the corners (a floor of 1e-3, bonuses for being in
    the outer band and for a thin shell in it), trained by trajectory balance (Malkin,
    Jain, Bengio, Sun and Bengio): 64 trajectories are sampled inside the step in a
    `lax.scan` of up to 45 moves (a coordinate up by one, or stop), by Gumbel-max over the
    valid moves of the forward policy with 5% uniform exploration; a shared MLP trunk on
    the one-hot coordinates has a forward head and a backward head (a coordinate down by
    one), and a learned log partition function. Each trajectory's residual, log Z plus
    its forward log-probabilities less its log reward and backward log-probabilities,
    gets its own gradient (`vmap` of `grad`), and the update is a Gauss-Newton natural
    gradient through the Woodbury identity (as in subsampled natural gradient methods):
    the 64x64 system (J J^T + lambda n I) y = r solved by conjugate gradients in a
    `fori_loop`, the step J^T y taken with heavy-ball momentum."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.flatten_util import ravel_pytree

    steps = dim * (side - 1) + 1
    p = _params({"t0": (dim * side, hidden), "t0_b": (hidden,), "t1": (hidden, hidden),
                 "t1_b": (hidden,), "fwd": (hidden, dim + 1), "fwd_b": (dim + 1,),
                 "bwd": (hidden, dim), "bwd_b": (dim,)}, seed=5)
    p["log_z_b"] = jnp.zeros(())
    flat0, unravel = ravel_pytree(p)

    def trunk(p, x):
        onehot = jax.nn.one_hot(x, side).reshape(x.shape[:-1] + (dim * side,))
        h = jax.nn.leaky_relu(onehot @ p["t0"] + p["t0_b"])
        return jax.nn.leaky_relu(h @ p["t1"] + p["t1_b"])

    def forward_logp(p, x):
        logits = trunk(p, x) @ p["fwd"] + p["fwd_b"]
        valid = jnp.concatenate([x < side - 1, jnp.ones(x.shape[:-1] + (1,), bool)], -1)
        return jax.nn.log_softmax(jnp.where(valid, logits, -1e9), -1)

    def backward_logp(p, x):
        logits = trunk(p, x) @ p["bwd"] + p["bwd_b"]
        return jax.nn.log_softmax(jnp.where(x > 0, logits, -1e9), -1)

    def log_reward(x):
        u = jnp.abs(x / (side - 1) - 0.5)
        outer = jnp.prod((u > 0.25).astype(jnp.float32), -1)
        shell = jnp.prod(((u > 0.3) & (u < 0.4)).astype(jnp.float32), -1)
        return jnp.log(1e-3 + 0.5 * outer + 2.0 * shell)

    def sample(p, key):
        def move(carry, k):
            x, done = carry
            logp = forward_logp(p, x)
            valid = logp > -1e8
            mixed = jnp.log((1 - explore) * jnp.exp(logp)
                            + explore * valid / jnp.sum(valid, -1, keepdims=True))
            pick = jnp.argmax(jnp.where(valid, mixed, -jnp.inf)
                              + jax.random.gumbel(k, mixed.shape), -1)
            pick = jnp.where(done, dim, pick)                 # finished: a dummy stop
            stop = pick == dim
            x_next = x + jax.nn.one_hot(pick, dim + 1, dtype=x.dtype)[:, :dim]
            return (x_next, done | stop), (x, pick, done)

        start = (jnp.zeros((batch, dim), jnp.int32), jnp.zeros(batch, bool))
        (final, _), (states, actions, was_done) = lax.scan(move, start,
                                                           jax.random.split(key, steps))
        return final, jnp.swapaxes(states, 0, 1), actions.T, was_done.T

    def residual(flat, states, actions, was_done, final):
        """One trajectory: states (steps, dim), the move from each, whether it had already
        stopped before it."""
        p = unravel(flat)
        live = ~was_done
        logpf = jnp.take_along_axis(forward_logp(p, states), actions[:, None], -1)[:, 0]
        moved = live & (actions < dim)
        after = states + jax.nn.one_hot(actions, dim + 1, dtype=states.dtype)[:, :dim]
        logpb = jnp.take_along_axis(backward_logp(p, after),
                                    jnp.minimum(actions, dim - 1)[:, None], -1)[:, 0]
        return p["log_z_b"] + jnp.sum(jnp.where(live, logpf, 0.0)) \
            - log_reward(final.astype(jnp.float32)) - jnp.sum(jnp.where(moved, logpb, 0.0))

    def step(flat, velocity, key):
        final, states, actions, was_done = sample(unravel(flat), key)
        r, jac = jax.vmap(jax.value_and_grad(residual), (None, 0, 0, 0, 0))(
            flat, states, actions, was_done, final)
        gram = jac @ jac.T + damping * batch * jnp.eye(batch)

        def cg(_, carry):                                  # conjugate gradients on gram y = r
            y, res, d, rr = carry
            gd = gram @ d
            alpha = rr / (d @ gd + 1e-30)
            y, res = y + alpha * d, res - alpha * gd
            new = res @ res
            return y, res, res + new / (rr + 1e-30) * d, new

        y, _, _, _ = lax.fori_loop(0, cg_steps, cg, (jnp.zeros(batch), r, r, r @ r))
        velocity = momentum * velocity + jac.T @ y
        return flat - rate * velocity, velocity, jnp.mean(r * r), jnp.mean(final, 0)

    return jax.jit(step).lower(flat0, jnp.zeros_like(flat0), jax.random.PRNGKey(5))


def wavegan_consensus(batch: int = 4, samples: int = 4096, rate: int = 16000, latent: int = 64,
                      channels: tuple[int, ...] = (64, 32, 16, 8), kernel: int = 25,
                      stride: int = 4, shuffle: int = 2, gamma: float = 10.0,
                      step_size: float = 1e-4) -> Any:
    """WaveGAN (Donahue, McAuley and Puckette) learns one-shot percussion sounds (4096
    samples at 16 kHz: decaying, pitch-falling sines of kicks and toms, filtered noise
    bursts of snares and hats). The generator lifts a 64-dimensional latent by a dense
    layer to 16 steps of 64 channels and upsamples by four 1-D transposed convolutions
    of 25 taps and stride 4 (64, 32, 16 and 8 channels, ReLU, tanh at the end); the
    discriminator mirrors it with strided 25-tap convolutions and leaky ReLUs, each
    followed by phase shuffle (every clip's features shifted by a random -2 to 2 steps
    with reflection at the ends, a gather). Non-saturating losses. The update is
    consensus optimization (Mescheder, Nowozin and Geiger): the joint gradient field v of
    both players is corrected by gamma = 10 times the gradient of half its squared norm
    (a second backward pass through the first), then RMSProp."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    first = samples // stride ** len(channels)
    g_shapes: dict[str, tuple[int, ...]] = {"dense": (latent, first * channels[0]),
                                            "dense_b": (first * channels[0],)}
    widths = list(channels) + [1]
    for i in range(len(channels)):
        g_shapes.update({f"up{i}": (kernel, widths[i], widths[i + 1]),
                         f"up{i}_b": (widths[i + 1],)})
    d_widths = [1] + list(reversed(channels))
    d_shapes: dict[str, tuple[int, ...]] = {}
    for i in range(len(channels)):
        d_shapes.update({f"down{i}": (kernel, d_widths[i], d_widths[i + 1]),
                         f"down{i}_b": (d_widths[i + 1],)})
    d_shapes.update({"score": (first * d_widths[-1], 1), "score_b": (1,)})
    params = {"g": _params(g_shapes, seed=6), "d": _params(d_shapes, seed=7)}

    def generate(g, z):
        x = jax.nn.relu(z @ g["dense"] + g["dense_b"]).reshape(z.shape[0], first, channels[0])
        for i in range(len(channels)):
            x = lax.conv_transpose(x, g[f"up{i}"], (stride,), "SAME", dimension_numbers=_NWC)
            x = x + g[f"up{i}_b"]
            x = jnp.tanh(x) if i == len(channels) - 1 else jax.nn.relu(x)
        return x

    def phase_shuffle(x, shift):
        length = x.shape[1]
        t = jnp.arange(length)[None, :] - shift[:, None]
        t = jnp.abs(t)                                            # reflect at the start
        t = jnp.where(t > length - 1, 2 * (length - 1) - t, t)    # and at the end
        return jnp.take_along_axis(x, t[..., None], 1)

    def discriminate(d, x, shifts):
        for i in range(len(channels)):
            x = lax.conv_general_dilated(x, d[f"down{i}"], (stride,), "SAME",
                                         dimension_numbers=_NWC) + d[f"down{i}_b"]
            x = jax.nn.leaky_relu(x, 0.2)
            if i < len(channels) - 1:
                x = phase_shuffle(x, shifts[i])
        return (x.reshape(x.shape[0], -1) @ d["score"] + d["score_b"])[:, 0]

    def field(params, real, z, shifts):
        """The two players' gradients: the discriminator's of its loss, the generator's
        of its own."""
        def d_loss(d):
            fake = generate(params["g"], z)
            return jnp.mean(jax.nn.softplus(-discriminate(d, real, shifts[0]))
                            + jax.nn.softplus(discriminate(d, fake, shifts[1])))

        def g_loss(g):
            return jnp.mean(jax.nn.softplus(-discriminate(params["d"], generate(g, z),
                                                          shifts[1])))

        (ld, vd), (lg, vg) = jax.value_and_grad(d_loss)(params["d"]), \
            jax.value_and_grad(g_loss)(params["g"])
        return {"g": vg, "d": vd}, (ld, lg)

    def step(params, mean_square, real, key):
        kz, ks = jax.random.split(key)
        z = jax.random.normal(kz, (batch, latent))
        shifts = jax.random.randint(ks, (2, len(channels) - 1, batch), -shuffle, shuffle + 1)
        v, losses = field(params, real, z, shifts)

        def half_square(params):
            w, _ = field(params, real, z, shifts)
            return 0.5 * sum(jnp.sum(jnp.square(x)) for x in jax.tree.leaves(w))

        correction = jax.grad(half_square)(params)
        direction = jax.tree.map(lambda a, b: a + gamma * b, v, correction)
        mean_square = jax.tree.map(lambda m, d: 0.9 * m + 0.1 * d * d, mean_square, direction)
        params = jax.tree.map(lambda w, d, m: w - step_size * d / (jnp.sqrt(m) + 1e-8),
                              params, direction, mean_square)
        return params, mean_square, losses

    # percussion: kicks and toms (decaying sines falling in pitch), snares (a tone and a
    # noise burst), hats (high-passed noise)
    rng = np.random.default_rng(6)
    t = np.arange(samples) / rate
    real = np.zeros((batch, samples, 1), np.float32)
    for i in range(batch):
        kind = i % 4
        noise = rng.standard_normal(samples)
        if kind in (0, 1):
            f0 = rng.uniform(45, 70) if kind == 0 else rng.uniform(90, 220)
            phase = 2 * np.pi * np.cumsum(f0 * (1 + 1.5 * np.exp(-t * 40))) / rate
            sound = np.sin(phase) * np.exp(-t * rng.uniform(8, 20))
        elif kind == 2:
            sound = 0.5 * np.sin(2 * np.pi * rng.uniform(150, 250) * t) * np.exp(-t * 30) \
                + 0.6 * noise * np.exp(-t * rng.uniform(20, 40))
        else:
            sound = np.diff(noise, prepend=0.0) * 0.4 * np.exp(-t * rng.uniform(40, 90))
        real[i, :, 0] = np.clip(sound, -1, 1)
    mean_square = jax.tree.map(lambda w: jnp.zeros_like(w), params)
    return jax.jit(step).lower(params, mean_square, jnp.asarray(real), jax.random.PRNGKey(6))


def res2net_scaffold(clients: int = 4, local: int = 3, batch: int = 6, side: int = 24,
                     widths: tuple[int, ...] = (16, 32, 48), scale: int = 4, classes: int = 10,
                     local_rate: float = 0.05, server_rate: float = 1.0) -> Any:
    """One round of federated learning by SCAFFOLD (Karimireddy, Kale, Mohri, Reddi, Stich
    and Suresh) for a small Res2Net (Gao, Cheng, Zhao, Zhang, Yang and Torr) classifying
    24x24 pictures of polygons. Four clients under `vmap`, each holding mostly three of
    the ten classes, take three local SGD steps in a `lax.scan` on batches of six,
    every step corrected by the difference of the server's and the client's control
    variates; each client's control variate is then refreshed from its total change of
    the weights, and the server moves by the mean change of the weights and of the
    control variates. The network: a 3x3 stem, and at each of three widths (16, 32, 48;
    the last two reached by a strided 3x3 convolution) a Res2Net bottleneck whose middle
    splits the channels into four groups, the first passed on, each later one convolved
    by a 3x3 layer after adding the previous group's output (a hierarchy of receptive
    fields in one block), concatenated and mixed by a 1x1 layer; batch norm by each
    client's batch, global average pooling and a linear classifier."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],),
                                          "stem_b": (widths[0],)}
    for s, w in enumerate(widths):
        if s:
            shapes.update({f"t{s}": (3, 3, widths[s - 1], w), f"t{s}_g": (w,), f"t{s}_b": (w,)})
        g = w // scale
        shapes.update({f"b{s}in": (1, 1, w, w), f"b{s}in_g": (w,), f"b{s}in_b": (w,),
                       f"b{s}out": (1, 1, w, w), f"b{s}out_g": (w,), f"b{s}out_b": (w,)})
        for j in range(1, scale):
            shapes.update({f"b{s}k{j}": (3, 3, g, g), f"b{s}k{j}_g": (g,), f"b{s}k{j}_b": (g,)})
    shapes.update({"head": (widths[-1], classes), "head_b": (classes,)})
    params = _params(shapes, seed=8, scale=math.sqrt(2.0))

    def cbr(p, k, x, stride=1, relu=True):
        x = _bn(_conv2d(x, p[k], stride), p[f"{k}_g"], p[f"{k}_b"])
        return jax.nn.relu(x) if relu else x

    def res2_block(p, s, x):
        h = cbr(p, f"b{s}in", x)
        groups = jnp.split(h, scale, -1)
        outs, last = [groups[0]], None
        for j in range(1, scale):
            inp = groups[j] if last is None else groups[j] + last
            last = cbr(p, f"b{s}k{j}", inp)
            outs.append(last)
        h = cbr(p, f"b{s}out", jnp.concatenate(outs, -1), relu=False)
        return jax.nn.relu(h + x)

    def loss_fn(p, pictures, labels):
        x = cbr(p, "stem", pictures)
        for s in range(len(widths)):
            if s:
                x = cbr(p, f"t{s}", x, 2)
            x = res2_block(p, s, x)
        logits = jnp.mean(x, (1, 2)) @ p["head"] + p["head_b"]
        return jnp.mean(_cross_entropy(logits, labels))

    tm = jax.tree.map

    def client(server, control, own, pictures, labels):
        def local_step(y, batch_):
            loss, g = jax.value_and_grad(loss_fn)(y, *batch_)
            y = tm(lambda w, g_, c, ci: w - local_rate * (g_ - ci + c), y, g, control, own)
            return y, loss

        y, losses = lax.scan(local_step, server, (pictures, labels))
        fresh = tm(lambda ci, c, x, w: ci - c + (x - w) / (local * local_rate), own, control,
                   server, y)
        return tm(lambda w, x: w - x, y, server), tm(lambda a, b: a - b, fresh, own), fresh, \
            jnp.mean(losses)

    def round_(server, control, controls, pictures, labels):
        moved, changed, controls, losses = jax.vmap(client, (None, None, 0, 0, 0))(
            server, control, controls, pictures, labels)
        server = tm(lambda x, d: x + server_rate * jnp.mean(d, 0), server, moved)
        control = tm(lambda c, d: c + jnp.mean(d, 0), control, changed)
        return server, control, controls, losses

    # label-skewed clients: each draws three quarters of its pictures from its own three
    # classes and the rest from all ten
    rng = np.random.default_rng(8)
    pictures = np.zeros((clients, local, batch, side, side, 3), np.float32)
    labels = np.zeros((clients, local, batch), np.int32)
    for c in range(clients):
        own = (np.arange(3) + 3 * c) % classes
        pics, labs = _shape_pictures(rng, 4 * local * batch, side, classes)
        mine = np.flatnonzero(np.isin(labs, own))[:(3 * local * batch) // 4]
        rest = np.flatnonzero(~np.isin(labs, own))[:local * batch - len(mine)]
        pick = np.concatenate([mine, rest])
        rng.shuffle(pick)
        pictures[c] = pics[pick].reshape(local, batch, side, side, 3)
        labels[c] = labs[pick].reshape(local, batch)
    control = tm(jnp.zeros_like, params)
    controls = tm(lambda w: jnp.zeros((clients,) + w.shape), params)
    return jax.jit(round_).lower(params, control, controls, jnp.asarray(pictures),
                                 jnp.asarray(labels))


def gns_katyusha(scenes: int = 2, particles: int = 128, history: int = 6, neighbours: int = 8,
                 latent: int = 48, rounds: int = 4, noise: float = 3e-4, rate: float = 1e-3,
                 tau1: float = 0.3, tau2: float = 0.5) -> Any:
    """A graph network-based simulator (Sanchez-Gonzalez, Godwin, Pfaff, Ying, Leskovec
    and Battaglia) learns the dynamics of a granular fluid (soft repelling grains under
    gravity in a box, simulated beforehand) from two scenes of 128 particles: each
    particle's last five velocities (with random-walk noise added, the target corrected
    to match) and its clipped distances to the walls are encoded by MLPs with layer
    norm, its eight nearest neighbours (by `top_k` of the negated distances) give edges
    whose displacement and distance are encoded alike, four rounds of message passing
    with residual edge and node updates (the sender features gathered, the messages
    summed at the receivers) and unshared weights follow, and a decoder predicts the
    acceleration, fitted by mean squared error. The update is Katyusha (Allen-Zhu):
    accelerated variance-reduced SGD whose point mixes the last two iterates with a
    snapshot; the gradient there of the batch, less the batch gradient at the snapshot,
    plus the full gradient stored for the snapshot (all passed in), moves both the
    mirror sequence and the gradient sequence (negative momentum toward the
    snapshot)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    def mlp_shapes(k: str, fan_in: int) -> dict[str, tuple[int, ...]]:
        return {f"{k}0": (fan_in, latent), f"{k}0_b": (latent,), f"{k}1": (latent, latent),
                f"{k}1_b": (latent,), f"{k}n_g": (latent,), f"{k}n_b": (latent,)}

    node_in = 2 * (history - 1) + 4
    shapes = {**mlp_shapes("enc_node", node_in), **mlp_shapes("enc_edge", 3)}
    for r in range(rounds):
        shapes.update({**mlp_shapes(f"edge{r}", 3 * latent), **mlp_shapes(f"node{r}", 2 * latent)})
    shapes.update({"dec0": (latent, latent), "dec0_b": (latent,), "dec1": (latent, 2),
                   "dec1_b": (2,)})
    p = _params(shapes, seed=9)
    radius, box = 0.08, 1.0

    def mlp(p, k, x):
        x = jax.nn.relu(x @ p[f"{k}0"] + p[f"{k}0_b"])
        return _norm(x @ p[f"{k}1"] + p[f"{k}1_b"], p[f"{k}n_g"], p[f"{k}n_b"])

    def predict(p, positions):
        """positions (scenes, history, particles, 2) -> accelerations (scenes, particles, 2)."""
        velocity = jnp.diff(positions, axis=1)                          # (s, h - 1, n, 2)
        last = positions[:, -1]
        walls = jnp.clip(jnp.concatenate([last, box - last], -1) / radius, 0.0, 1.0)
        nodes = jnp.concatenate([jnp.moveaxis(velocity, 1, 2).reshape(scenes, particles, -1)
                                 / 0.01, walls], -1)
        gap = last[:, :, None, :] - last[:, None, :, :]
        dist = jnp.sum(gap * gap, -1) + jnp.eye(particles) * 1e9
        _, near = jax.lax.top_k(-dist, neighbours)                      # (s, n, k) senders
        sender = jax.vmap(lambda x, i: x[i])(last, near)                # (s, n, k, 2)
        offset = (last[:, :, None, :] - sender) / radius
        edges = jnp.concatenate([offset, jnp.linalg.norm(offset, axis=-1, keepdims=True)], -1)
        v = mlp(p, "enc_node", nodes)
        e = mlp(p, "enc_edge", edges)
        for r in range(rounds):
            from_sender = jax.vmap(lambda x, i: x[i])(v, near)
            receiver = jnp.broadcast_to(v[:, :, None, :], from_sender.shape)
            e = e + mlp(p, f"edge{r}", jnp.concatenate([e, from_sender, receiver], -1))
            v = v + mlp(p, f"node{r}", jnp.concatenate([v, jnp.sum(e, 2)], -1))
        h = jax.nn.relu(v @ p["dec0"] + p["dec0_b"])
        return h @ p["dec1"] + p["dec1_b"]

    def loss_fn(p, positions, target, walk):
        noisy = positions + walk
        # the target acceleration corrected so that the next position is unchanged
        aim = target - (2 * walk[:, -1] - walk[:, -2]) / 0.01 ** 2 * 1e-4
        return jnp.mean(jnp.square(predict(p, noisy) - aim))

    tm = jax.tree.map
    lipschitz = 1.0 / (3.0 * rate)
    alpha = 1.0 / (3.0 * tau1 * lipschitz)

    def step(y, z, snapshot, full, positions, target, key):
        walk = jnp.cumsum(noise / math.sqrt(history) * jax.random.normal(
            key, positions.shape), axis=1)
        x = tm(lambda a, b, c: tau1 * a + tau2 * b + (1 - tau1 - tau2) * c, z, snapshot, y)
        loss, g_here = jax.value_and_grad(loss_fn)(x, positions, target, walk)
        g_snap = jax.grad(loss_fn)(snapshot, positions, target, walk)
        g = tm(lambda a, b, c: a - b + c, g_here, g_snap, full)
        z = tm(lambda a, b: a - alpha * b, z, g)
        y = tm(lambda a, b: a - b / (3 * lipschitz), x, g)
        return y, z, loss

    # the training data: grains repelling softly under gravity in a unit box (explicit
    # Euler, 0.0025 per substep, four substeps a frame of 0.01)
    rng = np.random.default_rng(9)
    positions = np.zeros((scenes, history + 1, particles, 2), np.float32)
    for s in range(scenes):
        x = np.stack([rng.uniform(0.1, 0.5, particles), rng.uniform(0.3, 0.9, particles)], 1)
        v = rng.normal(0, 0.2, (particles, 2))
        frame = 0
        for t in range(40 + history + 1):
            if t >= 40:
                positions[s, frame] = x
                frame += 1
            for _ in range(4):
                gap = x[:, None] - x[None]
                d = np.linalg.norm(gap, axis=-1) + np.eye(particles)
                push = np.clip(0.04 - d, 0, None) / d * 400.0
                force = np.sum(gap * push[..., None], 1) + np.array([0.0, -9.8]) - 0.5 * v
                v = v + 0.0025 * force
                x = x + 0.0025 * v
                out = (x < 0.01) | (x > 0.99)
                v = np.where(out, -0.5 * v, v)
                x = np.clip(x, 0.01, 0.99)
    target = (positions[:, -1] - 2 * positions[:, -2] + positions[:, -3]) / 0.01 ** 2 * 1e-4
    f32 = np.float32
    return jax.jit(step).lower(p, p, p, tm(jnp.zeros_like, p),
                               jnp.asarray(positions[:, :-1], f32), jnp.asarray(target, f32),
                               jax.random.PRNGKey(9))


def _recall_text(rng: Any, count: int, length: int) -> Any:
    """numpy int32 (count, length): character streams of key-value bindings and queries,
    such as "qx=41;bd=07;?qx=41;" (tokens 0-25 letters, 26-35 digits, 36 "=", 37 ";",
    38 "?"), a query naming a key bound earlier in the stream and repeating its value;
    keys are rebound now and then, so the latest binding must win."""
    import numpy as np

    out = np.zeros((count, length), np.int32)
    for i in range(count):
        seq: list[int] = []
        bound: dict[tuple[int, int], tuple[int, int]] = {}
        while len(seq) < length:
            if bound and rng.uniform() < 0.35:
                keys = list(bound)
                key = keys[rng.integers(len(keys))]
                seq += [38, *key, 36, *bound[key], 37]
            else:
                key = (int(rng.integers(0, 6)), int(rng.integers(0, 26))) \
                    if rng.uniform() < 0.3 else tuple(int(c) for c in rng.integers(0, 26, 2))
                value = tuple(26 + int(c) for c in rng.integers(0, 10, 2))
                bound[key] = value
                seq += [*key, 36, *value, 37]
        out[i] = seq[:length]
    return out


def deltanet_anti_pgd(batch: int = 4, length: int = 128, width: int = 128, heads: int = 4,
                      layers: int = 2, hidden: int = 192, conv: int = 4, vocab: int = 39) -> Any:
    """A DeltaNet language model (Schlag, Irie and Schmidhuber; Yang, Wang, Zhang, Shen and
    Kim) in bfloat16 learns character streams of key-value bindings and queries that must
    recall the latest value bound to a key. Each of two layers projects the normed input
    to queries, keys and values, passes them through short causal depthwise convolutions
    (four taps) and SiLU, normalizes queries and keys per head, and runs the delta rule in
    a float32 `lax.scan` over the 128 positions: every head's 32x32 fast-weight matrix S
    is corrected toward the new value by S <- S + beta (v - S k) k^T with a learned,
    input-dependent beta in (0, 1), and reads out S q; RMS-normed head outputs, an output
    projection and a SwiGLU feed-forward layer follow. The update is anticorrelated
    perturbed gradient descent (Anti-PGD; Orvieto, Kersting, Proske, Bach and Lucchi):
    a gradient step plus the difference of this step's and the last step's Gaussian
    perturbations, after clipping by the global norm."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}conv": (conv, 3 * width), f"{l}beta": (width, heads),
                       f"{l}beta_b": (heads,), f"{l}on_g": (dh,), f"{l}o": (width, width),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}gate": (width, hidden),
                       f"{l}up": (width, hidden), f"{l}down": (hidden, width)})
    shapes.update({"nf_g": (width,), "nf_b": (width,), "out": (width, vocab)})
    p = _params(shapes, seed=10, dtype=bf16)
    for l in range(layers):
        p[f"{l}conv"] = p[f"{l}conv"] * jnp.asarray(0.5, bf16)

    def causal_conv(x, w):
        """Depthwise causal convolution over positions: x (b, n, c), w (taps, c)."""
        padded = jnp.pad(x, ((0, 0), (conv - 1, 0), (0, 0)))
        return sum(padded[:, j:j + x.shape[1]] * w[j] for j in range(conv))

    def delta_rule(q, k, v, beta):
        """q, k, v (n, b, h, d) and beta (n, b, h) in float32 -> outputs (n, b, h, d)."""
        def one(state, xs):
            q_t, k_t, v_t, b_t = xs
            recalled = jnp.einsum("bhvk,bhk->bhv", state, k_t)
            state = state + b_t[..., None, None] * jnp.einsum(
                "bhv,bhk->bhvk", v_t - recalled, k_t)
            return state, jnp.einsum("bhvk,bhk->bhv", state, q_t)

        start = jnp.zeros(q.shape[1:3] + (dh, dh), f32)
        _, out = lax.scan(one, start, (q, k, v, beta))
        return out

    def mixer(p, l, x):
        b, n, _ = x.shape
        qkv = jax.nn.silu(causal_conv(x @ p[f"{l}qkv"], p[f"{l}conv"]))
        q, k, v = (t.reshape(b, n, heads, dh).astype(f32) for t in jnp.split(qkv, 3, -1))
        q = q / (jnp.linalg.norm(q, axis=-1, keepdims=True) + 1e-6)
        k = k / (jnp.linalg.norm(k, axis=-1, keepdims=True) + 1e-6)
        beta = jax.nn.sigmoid((x @ p[f"{l}beta"] + p[f"{l}beta_b"]).astype(f32))
        out = jnp.swapaxes(delta_rule(*(jnp.swapaxes(t, 0, 1) for t in (q, k, v, beta))), 0, 1)
        out = out * lax.rsqrt(jnp.mean(out * out, -1, keepdims=True) + 1e-6) \
            * p[f"{l}on_g"].astype(f32)
        return out.reshape(b, n, width).astype(bf16) @ p[f"{l}o"]

    def loss_fn(p, tokens):
        x = p["embed"][tokens[:, :-1]]
        for l in range(layers):
            x = x + mixer(p, l, _norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"]))
            h = _norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + (jax.nn.silu(h @ p[f"{l}gate"]) * (h @ p[f"{l}up"])) @ p[f"{l}down"]
        logits = _norm(x, p["nf_g"], p["nf_b"]) @ p["out"]
        return jnp.mean(_cross_entropy(logits, tokens[:, 1:]))

    tokens = _recall_text(np.random.default_rng(10), batch, length + 1)
    return _fit_step("anti_pgd", loss_fn, p, jax.random.PRNGKey(10), jnp.asarray(tokens),
                     rate=0.05, sigma=1e-3, clip=1.0)


def c51_sgnht(batch: int = 64, side: int = 10, actions: int = 5, atoms: int = 51,
              v_min: float = -2.0, v_max: float = 2.0, gamma: float = 0.99, n_step: int = 3,
              widths: tuple[int, ...] = (16, 32, 32), hidden: int = 128) -> Any:
    """Categorical distributional Q-learning (C51; Bellemare, Dabney and Munos) on
    replayed three-step transitions of a 10x10 gridworld with walls and lava (a goal
    worth +1, lava -1 and ending the episode, a small cost per step; five actions, the
    observation three planes: agent, goal, hazards). A CNN (16, 32 and 32 channels, one
    strided layer) and an MLP give 51-atom return distributions over [-2, 2] for every
    action; the target network (an argument) evaluates the action the online network
    picks at the next state (double Q-learning), and its distribution, shrunk by gamma^3
    and shifted by the three-step reward, is projected back onto the atoms by splitting
    every atom's mass between its two neighbours (two scatter-adds). Cross-entropy to the
    projection. The weights are sampled rather than optimized, by the stochastic
    gradient Nose-Hoover thermostat (SG-NHT; Ding et al.), a Bayesian treatment of the
    Q network for exploration by posterior sampling."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    support = jnp.linspace(v_min, v_max, atoms)
    delta = (v_max - v_min) / (atoms - 1)
    after = (side + 1) // 2
    p = _params({"c0": (3, 3, 3, widths[0]), "c0_b": (widths[0],),
                 "c1": (3, 3, widths[0], widths[1]), "c1_b": (widths[1],),
                 "c2": (3, 3, widths[1], widths[2]), "c2_b": (widths[2],),
                 "fc": (after * after * widths[2], hidden), "fc_b": (hidden,),
                 "out": (hidden, actions * atoms), "out_b": (actions * atoms,)},
                seed=11, scale=math.sqrt(2.0))

    def logits_of(p, obs):
        x = jax.nn.relu(_conv2d(obs, p["c0"]) + p["c0_b"])
        x = jax.nn.relu(_conv2d(x, p["c1"], 2) + p["c1_b"])
        x = jax.nn.relu(_conv2d(x, p["c2"]) + p["c2_b"])
        x = jax.nn.relu(x.reshape(x.shape[0], -1) @ p["fc"] + p["fc_b"])
        return (x @ p["out"] + p["out_b"]).reshape(-1, actions, atoms)

    def project(probs, reward, done):
        """The distribution of r + gamma^n z under `probs`, onto the fixed atoms."""
        shifted = jnp.clip(reward[:, None] + (1 - done[:, None]) * gamma ** n_step * support,
                           v_min, v_max)
        b = (shifted - v_min) / delta
        low, high = jnp.floor(b).astype(jnp.int32), jnp.ceil(b).astype(jnp.int32)
        same = (low == high).astype(jnp.float32)
        rows = jnp.arange(probs.shape[0])[:, None]
        out = jnp.zeros_like(probs)
        out = out.at[rows, low].add(probs * (high - b + same))
        return out.at[rows, high].add(probs * (b - low))

    def loss_fn(p, target, obs, action, reward, next_obs, done):
        online_next = jax.nn.softmax(logits_of(p, next_obs), -1)
        pick = jnp.argmax(jnp.sum(online_next * support, -1), -1)
        target_next = jax.nn.softmax(logits_of(target, next_obs), -1)
        chosen = jnp.take_along_axis(target_next, pick[:, None, None], 1)[:, 0]
        aim = jax.lax.stop_gradient(project(chosen, reward, done))
        logp = jax.nn.log_softmax(logits_of(p, obs), -1)
        taken = jnp.take_along_axis(logp, action[:, None, None], 1)[:, 0]
        return -jnp.mean(jnp.sum(aim * taken, -1))

    init, update = _update_rule("sgnht", h=1e-4, diffusion=1.0, size=50000.0)

    def step(params, state, target, obs, action, reward, next_obs, done, key):
        loss, grads = jax.value_and_grad(loss_fn)(params, target, obs, action, reward,
                                                  next_obs, done)
        params, state = update(params, grads, state, key)
        return params, state, loss

    # replayed transitions: a random walk with some purpose in gridworlds of random walls
    rng = np.random.default_rng(11)
    moves = np.array([[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]])
    obs = np.zeros((batch, side, side, 3), np.float32)
    next_obs = np.zeros_like(obs)
    action = rng.integers(0, actions, batch)
    reward = np.zeros(batch, np.float32)
    done = np.zeros(batch, np.float32)
    for i in range(batch):
        hazard = rng.uniform(size=(side, side)) < 0.12
        goal = rng.integers(0, side, 2)
        hazard[goal[0], goal[1]] = False
        agent = rng.integers(0, side, 2)
        hazard[agent[0], agent[1]] = False
        obs[i, agent[0], agent[1], 0] = 1
        obs[i, goal[0], goal[1], 1] = 1
        obs[i, ..., 2] = hazard
        total, where = 0.0, agent.copy()
        for k in range(n_step):
            move = moves[action[i]] if k == 0 else moves[rng.integers(0, actions)]
            where = np.clip(where + move, 0, side - 1)
            if (where == goal).all():
                total += gamma ** k
                done[i] = 1
                break
            if hazard[where[0], where[1]]:
                total -= gamma ** k
                done[i] = 1
                break
            total -= 0.01 * gamma ** k
        reward[i] = total
        next_obs[i, where[0], where[1], 0] = 1
        next_obs[i, goal[0], goal[1], 1] = 1
        next_obs[i, ..., 2] = hazard
    target = jax.tree.map(lambda w: w * 0.99, p)
    return jax.jit(step).lower(p, jax.eval_shape(init, p), target, jnp.asarray(obs),
                               jnp.asarray(action, jnp.int32), jnp.asarray(reward),
                               jnp.asarray(next_obs), jnp.asarray(done), jax.random.PRNGKey(11))


def polar_ssc_decoding(codewords: int = 4096, n: int = 512, k: int = 256,
                       snrs: tuple[float, ...] = (1.0, 1.5, 2.0, 2.5), design: float = 2.0) -> Any:
    """Polar codes (Arikan) of length 512 and rate one half over a BPSK channel with
    Gaussian noise at four signal-to-noise ratios, 1024 codewords each, no gradient: the
    frozen set from Bhattacharyya parameters at a design point of 2 dB (computed
    beforehand), random messages drawn in the step and encoded by nine butterfly stages
    of exclusive-ors, the channel's log-likelihood ratios, then simplified successive-
    cancellation decoding (Alamdar-Yazdi and Kschischang): the decoding tree unrolled
    over its levels, each node combining the halves of its LLRs by the min-sum rule
    (sign product and smaller magnitude) for the left child and by adding or
    subtracting according to the left child's re-encoded bits for the right, with nodes
    whose leaves are all frozen returning zeros at once and nodes whose leaves all
    carry information deciding by hard decisions at once. The bit and block error rates
    per signal-to-noise ratio and the mean reliability come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    # the frozen set: Bhattacharyya parameters z of the synthetic channels, z -> 2z - z^2
    # (the worse channel) and z^2 (the better) level by level, natural order
    z = np.array([np.exp(-10 ** (design / 10) * k / n)])
    while len(z) < n:
        z = np.stack([2 * z - z * z, z * z], 1).reshape(-1)
    info = np.zeros(n, bool)
    info[np.argsort(z)[:k]] = True
    per = codewords // len(snrs)
    sigma = np.repeat([math.sqrt(1 / (2 * (k / n) * 10 ** (s / 10))) for s in snrs], per)

    def encode(x):
        """The polar transform of the rows of x by butterflies of exclusive-ors; it is its
        own inverse, so it also gives the bits whose encoding is x."""
        size, half = x.shape[1], 1
        while half < size:
            x = x.reshape(x.shape[0], size // (2 * half), 2, half)
            x = jnp.stack([x[:, :, 0] ^ x[:, :, 1], x[:, :, 1]], 2)
            half *= 2
        return x.reshape(-1, size)

    def decode(llr, lo, hi):
        """(bits, re-encoded bits) of the leaves lo..hi from their LLRs (batch, hi - lo)."""
        mask = info[lo:hi]
        if not mask.any():                                          # rate 0
            zero = jnp.zeros(llr.shape, jnp.int32)
            return zero, zero
        if mask.all():                                              # rate 1
            x = (llr < 0).astype(jnp.int32)
            return encode(x), x
        if hi - lo == 1:
            u = (llr < 0).astype(jnp.int32)
            return u, u
        mid = (hi - lo) // 2
        a, b = llr[:, :mid], llr[:, mid:]
        left = jnp.sign(a) * jnp.sign(b) * jnp.minimum(jnp.abs(a), jnp.abs(b))
        u1, x1 = decode(left, lo, lo + mid)
        u2, x2 = decode(b + (1 - 2 * x1) * a, lo + mid, hi)
        return jnp.concatenate([u1, u2], 1), jnp.concatenate([x1 ^ x2, x2], 1)

    def run(sigma, key):
        kb, kn = jax.random.split(key)
        u = jax.random.bernoulli(kb, 0.5, (codewords, n)).astype(jnp.int32) * jnp.asarray(info)
        x = encode(u)
        y = (1.0 - 2.0 * x) + sigma[:, None] * jax.random.normal(kn, (codewords, n))
        llr = 2.0 * y / (sigma[:, None] ** 2)
        u_hat, _ = decode(llr, 0, n)
        wrong = (u_hat != u) & jnp.asarray(info)
        bits = jnp.sum(wrong, 1).reshape(len(snrs), per)
        ber = jnp.sum(bits, 1) / (per * k)
        bler = jnp.mean((bits > 0).astype(jnp.float32), 1)
        return ber, bler, jnp.mean(jnp.abs(llr).reshape(len(snrs), -1), 1)

    return jax.jit(run).lower(jnp.asarray(sigma, jnp.float32), jax.random.PRNGKey(12))


def myers_read_search(patterns: int = 128, texts: int = 16, length: int = 4096, word: int = 32,
                      threshold: int = 4) -> Any:
    """Approximate search of 128 DNA reads of 32 bases in 16 genomic texts of 4096 bases
    by Myers' bit-parallel algorithm, no gradient: each read is one uint32 word of
    vertical deltas, its match masks for the four bases built in the step by shifts and
    sums, and a `lax.scan` over the text positions updates all 2048 read-text pairs at
    once with the bit-vector recurrence (ands, ors, exclusive-ors, a carrying addition
    and shifts of uint32 words), the edit distance of the best alignment ending at each
    position tracked from the top bit of the horizontal deltas. Some reads were planted
    in the texts with up to three substitutions, insertions or deletions. The best
    distance and where it ends for every pair, the number of positions within four
    edits, and the share of reads found come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    top = np.uint32(1 << (word - 1))

    def run(reads, genome):
        bits = jnp.left_shift(jnp.ones((), u32), jnp.arange(word, dtype=u32))
        peq = jnp.stack([jnp.sum(jnp.where(reads == c, bits, u32(0)), -1, dtype=u32)
                         for c in range(4)], -1)                    # (patterns, 4)
        ones = jnp.full((patterns, texts), 0xFFFFFFFF, u32)

        def column(carry, chars):
            pv, mv, score, best, where, hits, j = carry
            eq = jnp.take(peq, chars, axis=1)                       # (patterns, texts)
            xv = eq | mv
            xh = (((eq & pv) + pv) ^ pv) | eq
            ph = mv | ~(xh | pv)
            mh = pv & xh
            score = score + ((ph & top) != 0).astype(jnp.int32) \
                - ((mh & top) != 0).astype(jnp.int32)
            ph, mh = ph << 1, mh << 1
            pv = mh | ~(xv | ph)
            mv = ph & xv
            better = score < best
            return (pv, mv, score, jnp.where(better, score, best), jnp.where(better, j, where),
                    hits + (score <= threshold).astype(jnp.int32), j + 1), None

        zero = jnp.zeros((patterns, texts), jnp.int32)
        start = (ones, jnp.zeros((patterns, texts), u32), zero + word, zero + word, zero, zero,
                 jnp.zeros((), jnp.int32))
        (_, _, _, best, where, hits, _), _ = lax.scan(column, start, genome.T)
        found = jnp.mean((jnp.min(best, 1) <= threshold).astype(jnp.float32))
        return best, where, hits, found, jnp.mean(best.astype(jnp.float32))

    rng = np.random.default_rng(13)
    genome = rng.integers(0, 4, (texts, length))
    reads = rng.integers(0, 4, (patterns, word))
    for i in range(patterns // 2):                    # plant half the reads, mutated
        read = list(reads[i])
        for _ in range(rng.integers(0, 4)):
            kind, at = rng.integers(3), rng.integers(0, len(read))
            if kind == 0:
                read[at] = rng.integers(0, 4)
            elif kind == 1:
                read.insert(at, rng.integers(0, 4))
            elif len(read) > 1:
                del read[at]
        t, at = rng.integers(0, texts), rng.integers(0, length - len(read))
        genome[t, at:at + len(read)] = read
    return jax.jit(run).lower(jnp.asarray(reads, jnp.int32), jnp.asarray(genome, jnp.int32))


def affinity_propagation(sets: int = 3, points: int = 256, dims: int = 8, cap: int = 120,
                         patience: int = 15, damping: float = 0.7) -> Any:
    """Clustering by affinity propagation (Frey and Dueck) of three data sets of 256
    points in eight dimensions (Gaussian blobs of different counts, spreads and sizes),
    no gradient: similarities are negative squared distances, every point's preference
    the median similarity (a sort of all pairs); then a `while_loop` passes
    responsibilities (each similarity less the best competing availability plus
    similarity, from the two largest of every row) and availabilities (the self-
    responsibility plus the positive responsibilities of the others, capped at zero off
    the diagonal), damped by 0.7, for all three sets under `vmap`, until every set's
    exemplars have stood still for 15 rounds or 120 rounds have passed. The exemplars,
    every point's cluster by its most similar exemplar, the number of clusters, the net
    similarity and the rounds come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def prepare(x):
        gap = x[:, None, :] - x[None, :, :]
        s = -jnp.sum(gap * gap, -1)
        off = ~jnp.eye(points, dtype=bool)
        preference = jnp.median(jnp.where(off, s, jnp.nan).reshape(-1)[
            jnp.flatnonzero(off.reshape(-1), size=points * (points - 1))])
        return jnp.where(off, s, preference)

    def exchange(s, r, a):
        both = a + s
        first = jnp.argmax(both, 1)
        top = jnp.max(both, 1)
        second = jnp.max(jnp.where(jax.nn.one_hot(first, points, dtype=bool), -jnp.inf, both), 1)
        competing = jnp.where(jax.nn.one_hot(first, points, dtype=bool), second[:, None],
                              top[:, None])
        r = damping * r + (1 - damping) * (s - competing)
        diag = jnp.diagonal(r)
        positive = jnp.maximum(r, 0.0)
        positive = positive - jnp.diag(jnp.diagonal(positive)) + jnp.diag(diag)
        total = jnp.sum(positive, 0)
        fresh = total[None, :] - positive
        eye = jnp.eye(points, dtype=bool)
        fresh = jnp.where(eye, fresh, jnp.minimum(fresh, 0.0))
        a = damping * a + (1 - damping) * fresh
        return r, a, (jnp.diagonal(a) + jnp.diagonal(r)) > 0

    def run(data):
        s = jax.vmap(prepare)(data)

        def going(state):
            _, _, _, still, rounds = state
            return jnp.any(still < patience) & (rounds < cap)

        def body(state):
            r, a, chosen, still, rounds = state
            r, a, fresh = jax.vmap(exchange)(s, r, a)
            same = jnp.all(fresh == chosen, 1)
            return r, a, fresh, jnp.where(same, still + 1, 0), rounds + 1

        zero = jnp.zeros_like(s)
        state = (zero, zero, jnp.zeros((sets, points), bool), jnp.zeros(sets, jnp.int32), 0)
        r, a, chosen, still, rounds = lax.while_loop(going, body, state)
        toward = jnp.where(chosen[:, None, :], s, -jnp.inf)
        label = jnp.where(chosen, jnp.arange(points)[None, :], jnp.argmax(toward, -1))
        net = jnp.sum(jnp.take_along_axis(s, label[..., None], -1), (1, 2))
        return chosen, label, jnp.sum(chosen, 1), net, rounds

    rng = np.random.default_rng(14)
    data = np.zeros((sets, points, dims), np.float32)
    for i in range(sets):
        blobs = rng.integers(4, 12)
        centres = rng.uniform(-6, 6, (blobs, dims))
        share = rng.dirichlet(np.ones(blobs) * 2)
        which = rng.choice(blobs, points, p=share)
        data[i] = centres[which] + rng.normal(0, 1, (points, dims)) * rng.uniform(0.3, 1.2, blobs)[
            which, None]
    return jax.jit(run).lower(jnp.asarray(data))


def pdhg_linear_programs(problems: int = 4, rows: int = 192, cols: int = 384, block: int = 48,
                         blocks: int = 8, ruiz: int = 8, power: int = 20,
                         tolerance: float = 1e-4) -> Any:
    """Four random bounded linear programs (minimize c.x subject to A x <= b and box bounds,
    192 constraints on 384 variables, A with a fifth of its entries nonzero and rows of
    different scales) solved together by the primal-dual hybrid gradient method as PDLP
    runs it (Applegate, Diaz, Hinder, Lu, Lubin, O'Donoghue and Schudy), no gradient:
    eight rounds of Ruiz equilibration (rows and columns divided by the roots of their
    largest entries) and a Pock-Chambolle rescaling, the operator norm by 20 power
    iterations in a `fori_loop`, then blocks of 48 PDHG iterations (a projected primal
    step, an extrapolated dual step projected onto the nonnegative orthant) in an inner
    `fori_loop` that also keeps the block's running averages, inside a `while_loop` of up
    to eight blocks that restarts each problem from the average or the last iterate,
    whichever has the smaller KKT error, updates the primal weight by the ratio of dual
    to primal movement, and stops once every problem's relative KKT error is under 1e-4.
    The unscaled solutions, objectives, KKT errors and blocks used come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def kkt(a, b, c, lo, hi, x, y):
        """The relative KKT error: primal infeasibility, dual infeasibility (the reduced
        costs not explained by active bounds) and the duality gap."""
        slack = jnp.maximum(a @ x - b, 0.0)
        reduced = c + a.T @ y
        dual_bad = jnp.where(x <= lo + 1e-9, jnp.minimum(reduced, 0.0),
                             jnp.where(x >= hi - 1e-9, jnp.maximum(reduced, 0.0), reduced))
        primal_obj = c @ x
        dual_obj = -b @ y + jnp.sum(jnp.where(reduced > 0, lo * reduced, hi * reduced))
        gap = jnp.abs(primal_obj - dual_obj) / (1 + jnp.abs(primal_obj) + jnp.abs(dual_obj))
        return jnp.linalg.norm(slack) / (1 + jnp.linalg.norm(b)) \
            + jnp.linalg.norm(dual_bad) / (1 + jnp.linalg.norm(c)) + gap

    def solve(a, b, c, lo, hi):
        # Ruiz equilibration, then Pock-Chambolle (alpha = 1)
        def equilibrate(_, carry):
            a, d_row, d_col = carry
            r = 1.0 / jnp.sqrt(jnp.max(jnp.abs(a), 1) + 1e-12)
            k = 1.0 / jnp.sqrt(jnp.max(jnp.abs(a), 0) + 1e-12)
            return r[:, None] * a * k[None, :], d_row * r, d_col * k

        a, d_row, d_col = lax.fori_loop(0, ruiz, equilibrate,
                                        (a, jnp.ones(rows), jnp.ones(cols)))
        r = 1.0 / jnp.sqrt(jnp.sum(jnp.abs(a), 1) + 1e-12)
        k = 1.0 / jnp.sqrt(jnp.sum(jnp.abs(a), 0) + 1e-12)
        a, d_row, d_col = r[:, None] * a * k[None, :], d_row * r, d_col * k
        b, c, lo, hi = b * d_row, c * d_col, lo / d_col, hi / d_col

        def power_step(_, v):
            w = a.T @ (a @ v)
            return w / jnp.linalg.norm(w)

        v = lax.fori_loop(0, power, power_step, jnp.ones(cols) / math.sqrt(cols))
        eta = 0.9 / jnp.sqrt(jnp.linalg.norm(a.T @ (a @ v)))
        weight0 = jnp.linalg.norm(c) / (jnp.linalg.norm(b) + 1e-12)

        def pdhg(_, carry):
            x, y, sx, sy, weight = carry
            x_new = jnp.clip(x - eta / weight * (c + a.T @ y), lo, hi)
            y_new = jnp.maximum(y + eta * weight * (a @ (2 * x_new - x) - b), 0.0)
            return x_new, y_new, sx + x_new, sy + y_new, weight

        def going(state):
            _, _, _, error, count = state
            return (error > tolerance) & (count < blocks)

        def run_block(state):
            x, y, weight, _, count = state
            x1, y1, sx, sy, _ = lax.fori_loop(0, block, pdhg, (x, y, jnp.zeros(cols),
                                                               jnp.zeros(rows), weight))
            xa, ya = sx / block, sy / block
            e_last, e_avg = kkt(a, b, c, lo, hi, x1, y1), kkt(a, b, c, lo, hi, xa, ya)
            use_avg = e_avg < e_last
            xn, yn = jnp.where(use_avg, xa, x1), jnp.where(use_avg, ya, y1)
            dx, dy = jnp.linalg.norm(xn - x), jnp.linalg.norm(yn - y)
            moved = (dx > 1e-10) & (dy > 1e-10)
            weight = jnp.where(moved, jnp.exp(0.5 * jnp.log(dy / jnp.maximum(dx, 1e-10))
                                              + 0.5 * jnp.log(weight)), weight)
            return xn, yn, weight, jnp.minimum(e_last, e_avg), count + 1

        x0 = jnp.clip(jnp.zeros(cols), lo, hi)
        state = (x0, jnp.zeros(rows), weight0, jnp.asarray(jnp.inf), 0)
        x, y, _, error, count = lax.while_loop(going, run_block, state)
        return x * d_col, y * d_row, error, count

    def run(a, b, c, lo, hi):
        x, y, error, count = jax.vmap(solve)(a, b, c, lo, hi)
        return x, y, jnp.sum(c * x, 1), error, count

    rng = np.random.default_rng(15)
    a = rng.standard_normal((problems, rows, cols)) \
        * (rng.uniform(size=(problems, rows, cols)) < 0.2)
    a *= 10 ** rng.uniform(-1, 1, (problems, rows, 1))                 # rows of different scales
    lo = np.zeros((problems, cols))
    hi = rng.uniform(1, 5, (problems, cols))
    inside = rng.uniform(0.2, 0.8, (problems, cols)) * hi               # a strictly feasible point
    b = np.einsum("prc,pc->pr", a, inside) + rng.uniform(0.1, 1.0, (problems, rows))
    c = rng.standard_normal((problems, cols))
    f32 = np.float32
    return jax.jit(run).lower(*(jnp.asarray(t, f32) for t in (a, b, c, lo, hi)))


def abelian_sandpile(grids: int = 4, side: int = 64, pile: int = 1024, drops: int = 96,
                     cap: int = 512, drop_cap: int = 40) -> Any:
    """The Abelian sandpile of Bak, Tang and Wiesenfeld on four 64x64 grids whose edges
    lose grains, no gradient, in int32. First every grid, a random stable configuration
    under a central pile of 1024 to 4096 grains, relaxes in a `while_loop` of at most 512
    parallel sweeps in which each site topples as many times as it holds fours (the
    grains moved to the four neighbours by padded shifts) until no site holds four; then
    96 grains are dropped one at a time at random sites in a `fori_loop`, each followed
    by a `while_loop` of at most 40 sweeps of single topplings until all four grids are
    stable again (an avalanche left unfinished goes on after the next drop), the size
    (topplings) and the area (sites that toppled) of every avalanche recorded. The final
    grids, the share of each height, the mean height, the avalanches and the sweeps of
    the first relaxation come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def spread(t):
        """What the neighbours of every site receive when sites topple t times."""
        padded = jnp.pad(t, ((0, 0), (1, 1), (1, 1)))
        return padded[:, :-2, 1:-1] + padded[:, 2:, 1:-1] + padded[:, 1:-1, :-2] \
            + padded[:, 1:-1, 2:]

    def unstable(state, most=cap):
        return jnp.any(state[0] >= 4) & (state[1] < most)

    def sweep_many(state):
        z, sweeps, count = state
        t = z >> 2
        return z - 4 * t + spread(t), sweeps + 1, count + jnp.sum(t, (1, 2))

    def sweep_once(state):
        z, sweeps, count, area = state
        t = (z >= 4).astype(jnp.int32)
        return z - 4 * t + spread(t), sweeps + 1, count + jnp.sum(t, (1, 2)), area | (t > 0)

    def run(start, piles, sites):
        z = start.at[:, side // 2, side // 2].add(piles)
        zero = jnp.zeros(grids, jnp.int32)
        z, first_sweeps, first_count = lax.while_loop(unstable, sweep_many, (z, 0, zero))

        def drop(i, carry):
            z, sizes, areas = carry
            z = z.at[jnp.arange(grids), sites[i, :, 0], sites[i, :, 1]].add(1)
            z, _, count, area = lax.while_loop(
                lambda s: unstable(s[:2], drop_cap), sweep_once,
                (z, 0, zero, jnp.zeros(z.shape, bool)))
            return z, sizes.at[i].set(count), areas.at[i].set(jnp.sum(area, (1, 2)))

        sizes = jnp.zeros((drops, grids), jnp.int32)
        z, sizes, areas = lax.fori_loop(0, drops, drop, (z, sizes, sizes))
        shares = jnp.stack([jnp.mean((z == h).astype(jnp.float32), (1, 2)) for h in range(4)], 1)
        mean_size = jnp.mean(sizes.astype(jnp.float32), 0)
        return z, shares, jnp.mean(z.astype(jnp.float32), (1, 2)), sizes, areas, mean_size, \
            first_sweeps, first_count

    rng = np.random.default_rng(16)
    start = rng.integers(0, 4, (grids, side, side))
    piles = pile * (1 + np.arange(grids))
    sites = rng.integers(0, side, (drops, grids, 2))
    return jax.jit(run).lower(jnp.asarray(start, jnp.int32), jnp.asarray(piles, jnp.int32),
                              jnp.asarray(sites, jnp.int32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "slowfast_terngrad/4x2x16x64px-24-256-a4": slowfast_terngrad,
    "music_transformer_learned_opt/4x256-d128-l3-bf16": music_transformer_learned,
    "cait_eva/8x32px-p4-d80-4+2-bf16": cait_eva,
    "koopman_svgd/8-particles-32x31-states": koopman_svgd,
    "gflownet_hypergrid/64x4d-side12-h128-woodbury": gflownet_woodbury,
    "wavegan_consensus/4x4096-samples-64-8": wavegan_consensus,
    "res2net_scaffold/4-clients-3x6x24px-16-32-48": res2net_scaffold,
    "gns_katyusha/2x128-particles-k8-d48-4-rounds": gns_katyusha,
    "deltanet_anti_pgd/4x128-d128-l2-bf16": deltanet_anti_pgd,
    "c51_sgnht/64x10x10-5x51-atoms": c51_sgnht,
    "polar_ssc_decoder/4096x512-rate0.5-4-snrs": polar_ssc_decoding,
    "myers_read_search/128x32-in-16x4096-bases": myers_read_search,
    "affinity_propagation/3x256x8-max120": affinity_propagation,
    "pdhg_linear_programs/4x192x384-8x48-iterations": pdhg_linear_programs,
    "abelian_sandpile/4x64x64-96-drops": abelian_sandpile,
}
