"""The twentieth never-seen set: programs written on 2026-11-28, after the nineteenth set
(benchmarks/never_seen_19/), which had not judged a model yet, and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge a trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-20` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
nineteen never-seen sets has; as in the sets before it, a few training steps are large (a
few gigaflops each) and the rest mid-sized; one of them upsamples by transposed
convolutions, one convolves every example with its own kernel through a grouped
convolution and one takes a Hessian-vector product in every step. Ten are training steps
(forward, loss, backward and an optimizer update). A two-stage detector of the Faster
R-CNN kind finds four kinds of flat shapes in 160x160 scenes: a residual backbone to
stride 8, a region proposal head on three anchors per cell under a logistic and a
smooth-L1 loss, and RoIAlign pooling of 96 proposals per image into 7x7 bins of bilinear
samples gathered from the flattened feature map, for a five-way classifier and
class-specific box deltas. wav2vec 2.0 in bfloat16 is pretrained on raw 16 kHz audio:
seven strided 1-D convolutions, spans of latent frames masked, a grouped positional
convolution and a transformer, and a quantizer of two codebooks chosen by a
straight-through Gumbel softmax (its noise from `jax.random`) whose targets the masked
contexts must pick out by cosine similarity from gathered distractors, with a diversity
penalty. CycleGAN in bfloat16 translates 48x48 pictures between two unpaired domains: two
generators with reflection padding, instance norm, residual blocks and stride-2
transposed convolutions, two PatchGAN critics, and one step that trains the generators
on least-squares adversarial and cycle-consistency losses and then the critics on the
stopped translations, each by its own optimizer state. A Nystromformer classifies
1024-token sequences with attention approximated through 32 segment-mean landmarks, the
pseudo-inverse of the landmark kernel found by six iterations of a scheme of matrix
products, plus a depthwise convolution of the values. A CondConv network
classifies textures by 3x3 convolutions that mix four expert kernels per example by
routing weights, every example convolved with its own kernel by folding the batch into
the channels of one grouped convolution. xDeepFM predicts clicks over 24 categorical
fields by a linear part, a deep network and a compressed interaction network (outer
products of feature maps with the field embeddings compressed by einsums, half of each
layer's maps pooled into the output). An R-GCN classifies the entities of a knowledge
graph of 24 edge types by weights decomposed into six shared bases, messages gathered at
80 000 edges and summed per target by `segment_sum`. DeepAR forecasts hourly counts by a
two-layer LSTM in one `lax.scan` over lagged values and calendar and series embeddings,
under a negative binomial likelihood (`lgamma`). A Charformer in bfloat16 classifies byte
strings after gradient-based subword tokenization (candidate blocks of one to four bytes
by reshaped means and `jnp.repeat`, softmax block scores calibrated by their
position-by-position similarities, a downsampling by four) through a small transformer.
QMIX learns joint action values of five agents from replayed episodes: a shared agent
network with a GRU in a `lax.scan`, and a monotonic mixing network whose weights come from
hypernetworks of the global state, with double-Q targets from target networks. Five are
inference or scientific steps without a gradient: a 16-QAM OFDM link for 64 frames of 14
symbols on 1024-point FFTs (Gray mapping by gathers, pilots, a multipath channel of
shifted slices with a frequency offset and noise from `jax.random`, the offset estimated
from the cyclic prefixes, least-squares channel estimates interpolated in frequency and
time by gathers, unbiased MMSE equalization, max-log LLRs and bit error rates); stable
matching of 1024 proposers to 1024 receivers by the parallel Gale-Shapley algorithm
(preference lists by a stable `argsort` of 1024x1024 scores, rounds of proposals in a
`while_loop` capped at 600 with `segment_max`, `segment_min` and scatters, then a count of
blocking pairs over all pairs); optical pulse propagation by the split-step Fourier
method (sixteen fibres carrying three wavelength channels of on-off keyed pulses in 4096
complex samples, eight amplified spans of sixteen steps in nested `fori_loop`s, each step
an FFT, a dispersion product, an inverse FFT and a Kerr phase rotation, then dispersion
compensation, channel selection by `jnp.roll`, bit decisions and Q factors);
contrast-limited adaptive histogram equalization of four 512x768 uint8 pictures, a
memory-bound chain with no matrix product or convolution (integer luma, 64 tile
histograms by one scatter-add, clipping and redistribution, lookup tables by `cumsum`,
four gathers per pixel from the tables and bilinear blending); and an agent-based SEIR
epidemic on a contact network of 16384 people and about 180 000 directed edges, 90 days
in a `lax.scan` of `jax.random` draws, gathers and `segment_sum`s with a lockdown switched
by the share infectious. The updates are new to these sets, two of them as variants of
earlier ones: AdaSqrt (AdaGrad's sum of squares without the root, the step grown by
sqrt(t)), Scion (a variant of Muon: norm-constrained steps along the momentum
orthogonalized by Newton-Schulz for matrices, along normalized rows for the input layer
and along signs elsewhere), Grams (the magnitude of Adam's step with the sign of the
current gradient), Clippy (AdaGrad scaled down per tensor so that no weight moves by more
than a share of its own size), mixed random weight perturbation (the gradient at weights
shaken by Gaussian noise scaled per filter averaged with the clean one, over momentum
SGD), KOALA (a Kalman filter on the weights with the loss as its measurement), ESGD (a
preconditioner from squared Hessian-vector products with Gaussian probes), DoWG (a step
from the largest distance travelled and the weighted sum of squared gradient norms,
without a learning rate), AcceleGrad (two coupled sequences with an AdaGrad-like scalar
step) and GSAM over Adam (a variant of SAM: the sharpness-aware gradient less a share of
the first gradient's part orthogonal to it); three training steps (wav2vec 2.0, CycleGAN
and the Charformer) run in bfloat16.
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

    def norm(tree: Any) -> Any:
        leaves = jax.tree.leaves(tree)
        return jnp.sqrt(sum(jnp.sum(jnp.square(leaf.astype(f32))) for leaf in leaves))

    if name == "adasqrt":
        # AdaSqrt (Hu, Lin and Tang): AdaGrad's running sum of squared gradients divides
        # the gradient without a square root, and the step grows as sqrt(t) to make up for
        # the sum growing with t
        rate, eps = 1e-3, 0.1

        def adasqrt(params, grads, state, loss):
            total, t = state
            t = t + 1
            g = wide(grads)
            total = tm(lambda a, g_: a + g_ * g_, total, g)
            scale = rate * jnp.sqrt(t.astype(f32))
            moved = tm(lambda p, g_, a: p.astype(f32) - scale * g_ / (a + eps), params, g, total)
            return recast(params, moved), (total, t)
        return (lambda p: (zeros(p), count())), adasqrt

    if name == "grams":
        # Grams (Cao et al.): the magnitude of Adam's bias-corrected step per coordinate,
        # its sign taken from the current gradient rather than the momentum, with
        # decoupled weight decay
        rate, b1, b2, decay = 2e-4, 0.9, 0.999, 1e-2

        def grams(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)

            def one(p, g_, m_, v_):
                step = (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8)
                w = p.astype(f32)
                return w - rate * (jnp.sign(g_) * jnp.abs(step) + decay * w)
            return recast(params, tm(one, params, g, m, v)), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), grams

    if name == "scion":
        # unconstrained Scion (Pethick et al.): a momentum d = (1 - a) d + a g, and every
        # tensor steps along the linear minimization oracle of its own norm ball: a matrix
        # (a kernel flattened to fan-in x fan-out) along its momentum orthogonalized by five
        # quintic Newton-Schulz iterations and scaled by sqrt(fan-out / fan-in), the input
        # layer (names starting `in_`) along rows normalized to sqrt(fan-out), output layers
        # (`out_`) along signs over the fan-in, vectors along signs
        rate, alpha, vector_rate = 0.02, 0.1, 1e-3

        def orthogonalize(m):
            x = m / (jnp.sqrt(jnp.sum(m * m)) + 1e-7)
            tall = x.shape[0] > x.shape[1]
            if tall:
                x = x.T
            for _ in range(5):
                a = x @ x.T
                x = 3.4445 * x + (-4.7750 * a + 2.0315 * a @ a) @ x
            return x.T if tall else x

        def direction(key, d):
            if d.ndim == 1:
                return vector_rate / rate * jnp.sign(d)
            fan_out = d.shape[-1]
            fan_in = d.size // fan_out
            m = d.reshape(fan_in, fan_out)
            if key.startswith("in_"):
                out = m * lax.rsqrt(jnp.sum(m * m, 1, keepdims=True) + 1e-12) * math.sqrt(fan_out)
            elif key.startswith("out_"):
                out = jnp.sign(m) / fan_in
            else:
                out = orthogonalize(m) * math.sqrt(fan_out / fan_in)
            return out.reshape(d.shape)

        def scion(params, grads, state, loss):
            d = tm(lambda d_, g: (1.0 - alpha) * d_ + alpha * g.astype(f32), state, grads)
            moved = jax.tree_util.tree_map_with_path(
                lambda path, p, d_: p.astype(f32) - rate * direction(path[-1].key, d_), params, d)
            return recast(params, moved), d
        return zeros, scion

    if name == "clippy":
        # Clippy (Tang et al.): AdaGrad, its accumulator started at 0.1, whose step is scaled
        # down per tensor by the one factor that keeps every coordinate's move within
        # 0.5 |w| + 0.01
        rate, relative, absolute, initial = 0.05, 0.5, 1e-2, 0.1

        def clippy(params, grads, state, loss):
            acc = tm(lambda a, g: a + jnp.square(g.astype(f32)), state, grads)

            def one(p, g, a):
                w = p.astype(f32)
                step = rate * g.astype(f32) * lax.rsqrt(a)
                room = (relative * jnp.abs(w) + absolute) / (jnp.abs(step) + 1e-12)
                return w - jnp.minimum(1.0, jnp.min(room)) * step
            return recast(params, tm(one, params, grads, acc)), acc
        return (lambda p: tm(lambda q: jnp.full(q.shape, initial, f32), p)), clippy

    if name == "dowg":
        # DoWG (Khaled, Mishchenko and Jin), free of a learning rate: r the largest distance
        # yet of the weights from where they started, v summing r^2 ||g||^2, and the step
        # r^2 / sqrt(v) along the gradient, all by global norms
        def dowg_init(params):
            start = wide(params)
            return start, 1e-4 * (1.0 + norm(start)), jnp.zeros((), f32)

        def dowg(params, grads, state, loss):
            start, r, v = state
            r = jnp.maximum(r, norm(tm(lambda p, s: p.astype(f32) - s, params, start)))
            v = v + r * r * jnp.square(norm(grads))
            eta = r * r * lax.rsqrt(v + 1e-30)
            moved = tm(lambda p, g: p.astype(f32) - eta * g.astype(f32), params, grads)
            return recast(params, moved), (start, r, v)
        return dowg_init, dowg

    if name == "koala":
        # KOALA (Davtyan et al.): the weights are the state of a Kalman filter
        # whose measurement is the loss, aimed at zero, with the gradient as its observation
        # row; a scalar covariance P grows by the process noise q, the gain P / (P ||g||^2 + r)
        # scales the step (loss - 0) g, and P shrinks by the same gain
        q, r, start = 1e-4, 2.0, 0.05

        def koala(params, grads, state, loss):
            p_ = state + q
            g2 = jnp.square(norm(grads))
            gain = p_ / (p_ * g2 + r)
            moved = tm(lambda w, g: w.astype(f32) - gain * loss.astype(f32) * g.astype(f32),
                       params, grads)
            return recast(params, moved), p_ - gain * p_ * g2
        return (lambda p: jnp.full((), start, f32)), koala

    if name == "accelegrad":
        # AcceleGrad (Levy, Yurtsever and Cevher): accelerated steps with an AdaGrad-like
        # scalar step size; the gradient is taken at x = tau z + (1 - tau) y with
        # alpha = max(1, (t + 1) / 4) and tau = 1 / alpha, eta = 2D / sqrt(G^2 + the summed
        # alpha^2 ||g||^2), z moves by alpha eta g and y = x - eta g
        diameter, g0 = 1.0, 1.0

        def accelegrad_init(params):
            w = wide(params)
            return w, w, jnp.zeros((), f32), count()

        def accelegrad(params, grads, state, loss):
            y, z, total, t = state
            alpha = jnp.maximum(1.0, (t.astype(f32) + 1.0) / 4.0)
            total = total + alpha * alpha * jnp.square(norm(grads))
            eta = 2.0 * diameter * lax.rsqrt(g0 * g0 + total)
            z = tm(lambda z_, g: z_ - alpha * eta * g.astype(f32), z, grads)
            y = tm(lambda p, g: p.astype(f32) - eta * g.astype(f32), params, grads)
            t = t + 1
            tau = 1.0 / jnp.maximum(1.0, (t.astype(f32) + 1.0) / 4.0)
            x = tm(lambda z_, y_: tau * z_ + (1.0 - tau) * y_, z, y)
            return recast(params, x), (y, z, total, t)
        return accelegrad_init, accelegrad

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
    norm by default; batch norm, instance norm or group norm by other axes."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = x32.mean(axes, keepdims=True)
    var = jnp.square(x32 - mean).mean(axes, keepdims=True)
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
            + shift.astype(jnp.float32)).astype(x.dtype)


def _batch_norm(x: Any, gain: Any, shift: Any) -> Any:
    """Normalization by the batch's own statistics over every axis but the last."""
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


def _conv1d(x: Any, w: Any, stride: int = 1, padding: Any = "VALID", groups: int = 1) -> Any:
    """A 1-D NWC convolution."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride,), padding, dimension_numbers=_NWC,
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


def _box_iou(a: Any, b: Any) -> Any:
    """numpy: the IoU of every box of `a` (n, 4) with every box of `b` (m, 4), boxes as
    (x1, y1, x2, y2)."""
    import numpy as np

    lo = np.maximum(a[:, None, :2], b[None, :, :2])
    hi = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), -1)
    area = lambda c: (c[:, 2] - c[:, 0]) * (c[:, 3] - c[:, 1])
    return inter / (area(a)[:, None] + area(b)[None, :] - inter + 1e-9)


def _box_deltas(boxes: Any, targets: Any) -> Any:
    """numpy: the regression targets (dx, dy, log dw, log dh) taking `boxes` to
    `targets`, both (n, 4) as (x1, y1, x2, y2)."""
    import numpy as np

    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    tw, th = targets[:, 2] - targets[:, 0], targets[:, 3] - targets[:, 1]
    return np.stack([(targets[:, 0] + targets[:, 2] - boxes[:, 0] - boxes[:, 2]) / (2 * w),
                     (targets[:, 1] + targets[:, 3] - boxes[:, 1] - boxes[:, 3]) / (2 * h),
                     np.log(tw / w), np.log(th / h)], -1).astype(np.float32)


def _smooth_l1(d: Any, beta: float = 1.0 / 9.0) -> Any:
    import jax.numpy as jnp

    a = jnp.abs(d)
    return jnp.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)


def roi_align_rcnn(images: int = 2, side: int = 160, widths: tuple[int, ...] = (32, 64, 128),
                   rois: int = 96, classes: int = 4, pooled: int = 7, hidden: int = 256,
                   sizes: tuple[int, ...] = (24, 48, 96)) -> Any:
    """Two-stage object detection of the Faster R-CNN kind (Ren, He, Girshick and Sun)
    with RoIAlign (He, Gkioxari, Dollar and Girshick) on two 160x160 scenes of four kinds
    of flat shapes (boxes, discs, diamonds and crosses, each in its own colour) over smooth
    backgrounds. A residual backbone (a stride-2 stem and three stages of two 3x3
    convolutions with batch norm, 32, 64 and 128 channels, the last two stages strided
    with 1x1 projections) gives a 20x20 map at stride 8; a region proposal head (a 3x3
    convolution, then objectness and box deltas for three square anchors of 24, 48 and 96
    pixels per cell) is trained by a logistic loss over the anchors not ignored and a
    smooth-L1 loss on the positives, anchors labelled on the host by IoU. 96 proposals
    per image (jittered ground truth and random boxes) are pooled by RoIAlign to 7x7
    bins of four bilinear samples each, the samples gathered from the flattened feature
    map at their four neighbouring cells; two fully connected layers of 256 feed a
    five-way classifier (background and four kinds) and class-specific box deltas, the
    deltas of the labelled class taken by `take_along_axis` under a smooth-L1 loss.
    AdaSqrt."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    stride = 8
    fside = side // stride
    anchors = len(sizes)
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],),
                                          "stem_b": (widths[0],)}
    cin = widths[0]
    for s, c in enumerate(widths):
        shapes.update({f"s{s}a": (3, 3, cin, c), f"s{s}a_g": (c,), f"s{s}a_b": (c,),
                       f"s{s}b": (3, 3, c, c), f"s{s}b_g": (c,), f"s{s}b_b": (c,)})
        if s:
            shapes.update({f"s{s}skip": (1, 1, cin, c), f"s{s}skip_g": (c,),
                           f"s{s}skip_b": (c,)})
        cin = c
    shapes.update({"rpn": (3, 3, cin, cin), "rpn_b": (cin,), "obj": (1, 1, cin, anchors),
                   "obj_b": (anchors,), "delta": (1, 1, cin, 4 * anchors),
                   "delta_b": (4 * anchors,), "fc1": (pooled * pooled * cin, hidden),
                   "fc1_b": (hidden,), "fc2": (hidden, hidden), "fc2_b": (hidden,),
                   "cls": (hidden, classes + 1), "cls_b": (classes + 1,),
                   "box": (hidden, 4 * classes), "box_b": (4 * classes,)})
    p = _params(shapes, seed=1)
    relu = jax.nn.relu

    def bn(p, k, x):
        return _batch_norm(x, p[f"{k}_g"], p[f"{k}_b"])

    def backbone(p, x):
        x = relu(bn(p, "stem", _conv(x, p["stem"], 2)))
        for s in range(len(widths)):
            step = 1 if s == 0 else 2
            y = relu(bn(p, f"s{s}a", _conv(x, p[f"s{s}a"], step)))
            y = bn(p, f"s{s}b", _conv(y, p[f"s{s}b"]))
            skip = bn(p, f"s{s}skip", _conv(x, p[f"s{s}skip"], step)) if s else x
            x = relu(y + skip)
        return x

    def roi_align(feat, boxes, owner):
        b, h, w, c = feat.shape
        table = feat.reshape(b * h * w, c)
        fractions = (np.arange(2 * pooled) + 0.5) / (2 * pooled)
        x1, y1, x2, y2 = (boxes[:, i] / stride - 0.5 for i in range(4))
        ys = y1[:, None] + fractions * (y2 - y1)[:, None]
        xs = x1[:, None] + fractions * (x2 - x1)[:, None]

        def corners(v, size):
            inside = (v > -1.0) & (v < size)
            v = jnp.clip(v, 0.0, size - 1.0)
            low = jnp.floor(v)
            return low.astype(jnp.int32), jnp.minimum(low.astype(jnp.int32) + 1, size - 1), \
                v - low, inside

        top, bottom, fy, in_y = corners(ys, h)
        left, right, fx, in_x = corners(xs, w)
        base = (owner * h * w)[:, None, None]

        def take(rows, cols):
            return table[base + rows[:, :, None] * w + cols[:, None, :]]

        wx = fx[:, None, :, None]
        upper = take(top, left) * (1.0 - wx) + take(top, right) * wx
        lower = take(bottom, left) * (1.0 - wx) + take(bottom, right) * wx
        v = upper * (1.0 - fy[:, :, None, None]) + lower * fy[:, :, None, None]
        v = v * (in_y[:, :, None] & in_x[:, None, :])[..., None]
        return v.reshape(-1, pooled, 2, pooled, 2, c).mean((2, 4))

    def loss_fn(p, pictures, anchor_labels, anchor_deltas, boxes, owner, labels, deltas):
        feat = backbone(p, pictures)
        b = feat.shape[0]
        r = relu(_conv(feat, p["rpn"]) + p["rpn_b"])
        obj = _conv(r, p["obj"]) + p["obj_b"]
        shift = (_conv(r, p["delta"]) + p["delta_b"]).reshape(b, fside, fside, anchors, 4)
        care = (anchor_labels >= 0).astype(jnp.float32)
        positive = (anchor_labels == 1).astype(jnp.float32)
        objectness = jnp.sum(care * (positive * jax.nn.softplus(-obj)
                                     + (1.0 - positive) * jax.nn.softplus(obj)))
        objectness = objectness / jnp.maximum(jnp.sum(care), 1.0)
        proposal = jnp.sum(_smooth_l1(shift - anchor_deltas).sum(-1) * positive)
        proposal = proposal / jnp.maximum(jnp.sum(positive), 1.0)
        pooled_ = roi_align(feat, boxes, owner)
        h = relu(pooled_.reshape(pooled_.shape[0], -1) @ p["fc1"] + p["fc1_b"])
        h = relu(h @ p["fc2"] + p["fc2_b"])
        classify = _cross_entropy(h @ p["cls"] + p["cls_b"], labels)
        guess = (h @ p["box"] + p["box_b"]).reshape(-1, classes, 4)
        chosen = jnp.take_along_axis(guess, jnp.maximum(labels - 1, 0)[:, None, None], 1)[:, 0]
        foreground = (labels > 0).astype(jnp.float32)
        refine = jnp.sum(_smooth_l1(chosen - deltas).sum(-1) * foreground) / labels.shape[0]
        return objectness + proposal + classify + refine

    rng = np.random.default_rng(1)
    pictures = 0.15 * _smooth_images(rng, images, side, 3, 6.0) + 0.4
    palette = rng.uniform(0.1, 1.0, (classes, 3))
    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    centres = (np.arange(fside) + 0.5) * stride
    cy, cx = np.meshgrid(centres, centres, indexing="ij")
    half = np.asarray(sizes, np.float64) / 2
    anchor_boxes = np.stack([cx[..., None] - half, cy[..., None] - half, cx[..., None] + half,
                             cy[..., None] + half], -1).reshape(-1, 4)
    anchor_labels = np.zeros((images, fside * fside * anchors), np.int64)
    anchor_deltas = np.zeros((images, fside * fside * anchors, 4), np.float32)
    boxes = np.zeros((images, rois, 4), np.float32)
    labels = np.zeros((images, rois), np.int64)
    deltas = np.zeros((images, rois, 4), np.float32)
    for i in range(images):
        truth, kinds = [], []
        for _ in range(int(rng.integers(3, 7))):
            k = int(rng.integers(classes))
            w, h = rng.uniform(18, 80, 2)
            x0, y0 = rng.uniform(0, side - w), rng.uniform(0, side - h)
            u, v = (xx - x0 - w / 2) / (w / 2), (yy - y0 - h / 2) / (h / 2)
            inside = (np.abs(u) < 1) & (np.abs(v) < 1)
            shape = (inside, u * u + v * v < 1, np.abs(u) + np.abs(v) < 1,
                     inside & ((np.abs(u) < 0.3) | (np.abs(v) < 0.3)))[k]
            pictures[i][shape] = palette[k] + 0.05 * rng.standard_normal(3)
            truth.append([x0, y0, x0 + w, y0 + h])
            kinds.append(k + 1)
        truth, kinds = np.asarray(truth), np.asarray(kinds)
        iou = _box_iou(anchor_boxes, truth)
        best, top = iou.argmax(1), iou.max(1)
        anchor_labels[i] = np.where(top >= 0.6, 1, np.where(top < 0.3, 0, -1))
        anchor_labels[i, iou.argmax(0)] = 1
        anchor_deltas[i] = _box_deltas(anchor_boxes, truth[best])
        jittered = truth[rng.integers(0, len(truth), rois // 4)]
        scale = np.repeat(jittered[:, 2:] - jittered[:, :2], 2, 0).reshape(-1, 4)
        jittered = jittered + 0.12 * scale * rng.standard_normal(jittered.shape)
        corner = rng.uniform(0, side - 16, (rois - rois // 4, 2))
        extent = rng.uniform(16, 96, corner.shape)
        proposals = np.concatenate([jittered, np.concatenate([corner, corner + extent], 1)])
        proposals = np.clip(proposals, 0, side)
        proposals[:, 2:] = np.maximum(proposals[:, 2:], proposals[:, :2] + 4)
        iou = _box_iou(proposals, truth)
        best, top = iou.argmax(1), iou.max(1)
        boxes[i] = proposals
        labels[i] = np.where(top >= 0.5, kinds[best], 0)
        deltas[i] = _box_deltas(proposals, truth[best])
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    owner = np.repeat(np.arange(images), rois)
    return _train("adasqrt", loss_fn, p, jnp.asarray(pictures, jnp.float32),
                  i32(anchor_labels.reshape(images, fside, fside, anchors)),
                  jnp.asarray(anchor_deltas.reshape(images, fside, fside, anchors, 4)),
                  jnp.asarray(boxes.reshape(-1, 4)), i32(owner), i32(labels.reshape(-1)),
                  jnp.asarray(deltas.reshape(-1, 4)))


def _block(p: dict[str, Any], k: str, x: Any, heads: int, keep: Any = None) -> Any:
    """A pre-norm transformer layer (multi-head self-attention, then a GELU feed-forward
    layer) in x's dtype with float32 softmax; `keep` (batch, keys) masks keys out."""
    import jax
    import jax.numpy as jnp

    b, n, width = x.shape
    dh = width // heads
    h = _layer_norm(x, p[f"{k}n1_g"], p[f"{k}n1_b"])
    q, kk, v = jnp.split((h @ p[f"{k}qkv"] + p[f"{k}qkv_b"]).reshape(b, n, 3 * heads, dh), 3, 2)
    logits = jnp.einsum("bihd,bjhd->bhij", q, kk).astype(jnp.float32) / math.sqrt(dh)
    if keep is not None:
        logits = jnp.where(keep[:, None, None, :], logits, -1e9)
    weights = jax.nn.softmax(logits, -1).astype(x.dtype)
    att = jnp.einsum("bhij,bjhd->bihd", weights, v).reshape(b, n, width)
    x = x + att @ p[f"{k}o"] + p[f"{k}o_b"]
    h = _layer_norm(x, p[f"{k}n2_g"], p[f"{k}n2_b"])
    return x + jax.nn.gelu(h @ p[f"{k}f1"] + p[f"{k}f1_b"]) @ p[f"{k}f2"] + p[f"{k}f2_b"]


def _block_shapes(k: str, width: int, hidden: int) -> dict[str, tuple[int, ...]]:
    return {f"{k}n1_g": (width,), f"{k}n1_b": (width,), f"{k}qkv": (width, 3 * width),
            f"{k}qkv_b": (3 * width,), f"{k}o": (width, width), f"{k}o_b": (width,),
            f"{k}n2_g": (width,), f"{k}n2_b": (width,), f"{k}f1": (width, hidden),
            f"{k}f1_b": (hidden,), f"{k}f2": (hidden, width), f"{k}f2_b": (width,)}


def wav2vec2_pretrain(batch: int = 4, samples: int = 16000, channels: int = 96,
                      width: int = 128, heads: int = 4, layers: int = 3, hidden: int = 512,
                      groups: int = 2, entries: int = 64, final: int = 96, masked: int = 20,
                      distractors: int = 15, span: int = 10, pos_kernel: int = 31,
                      pos_groups: int = 16, temperature: float = 2.0) -> Any:
    """Self-supervised speech pretraining by wav2vec 2.0 (Baevski, Zhou, Mohamed and Auli)
    in bfloat16 on four 1 s utterances at 16 kHz (voiced stretches of harmonic stacks
    with gliding pitch, noise bursts and pauses). A feature encoder of seven strided 1-D
    convolutions (kernels 10, 3, 3, 3, 3, 2 and 2, strides 5, 2, 2, 2, 2, 2 and 2, 96
    channels, GELU, a group norm per channel after the first) turns the waveform into 49
    latent frames; they are normalized and projected to 128, spans of ten frames are
    replaced by a learned mask vector, a grouped convolution (kernel 31, 16 groups) adds
    relative positions, and three pre-norm transformer layers build the context. The
    quantizer picks one of 64 entries in each of two codebooks from the unmasked latents
    by a Gumbel softmax with the straight-through estimator (hard one-hot forward, soft
    gradient; the noise drawn by `jax.random` inside the step). The loss is the
    contrastive task at 20 masked frames per utterance (the cosine similarity of the
    context to its quantized target against 15 distractors from other masked frames,
    gathered, at temperature 0.1), the codebook diversity penalty from the perplexity of
    the averaged softmax, and an L2 penalty on the latents. Scion."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    convs = ((10, 5),) + ((3, 2),) * 4 + ((2, 2),) * 2
    frames = samples
    for k, s in convs:
        frames = (frames - k) // s + 1
    names = ["in_conv"] + [f"conv{i}" for i in range(1, len(convs))]
    shapes: dict[str, tuple[int, ...]] = {}
    cin = 1
    for name, (k, _) in zip(names, convs):
        shapes[name] = (k, cin, channels)
        cin = channels
    shapes.update({"gn_g": (channels,), "gn_b": (channels,), "proj_n_g": (channels,),
                   "proj_n_b": (channels,), "proj": (channels, width), "proj_b": (width,),
                   "mask": (width,), "pos": (pos_kernel, width // pos_groups, width),
                   "pos_b": (width,)})
    for l in range(layers):
        shapes.update(_block_shapes(f"{l}", width, hidden))
    shapes.update({"enc_n_g": (width,), "enc_n_b": (width,), "quant": (channels, groups * entries),
                   "quant_b": (groups * entries,), "codebooks": (groups, entries, final // groups),
                   "out_q": (final, final), "out_q_b": (final,), "out_c": (width, final),
                   "out_c_b": (final,)})
    p = _params(shapes, seed=2, dtype=bf16)

    def encode(p, audio):
        x = audio[..., None]
        for i, (name, (_, s)) in enumerate(zip(names, convs)):
            x = _conv1d(x, p[name], s)
            if i == 0:
                x = _layer_norm(x, p["gn_g"], p["gn_b"], (1,))
            x = jax.nn.gelu(x)
        return x

    def cosine(a, b):
        return jnp.sum(a * b, -1) * lax.rsqrt(jnp.sum(a * a, -1) * jnp.sum(b * b, -1) + 1e-12)

    def loss_fn(p, audio, mask, where, others, key):
        z = encode(p, audio)
        b, t = z.shape[:2]
        x = _layer_norm(z, p["proj_n_g"], p["proj_n_b"]) @ p["proj"] + p["proj_b"]
        x = jnp.where(mask[..., None], p["mask"], x)
        x = x + jax.nn.gelu(_conv1d(x, p["pos"], padding="SAME", groups=pos_groups) + p["pos_b"])
        for l in range(layers):
            x = _block(p, f"{l}", x, heads)
        c = _layer_norm(x, p["enc_n_g"], p["enc_n_b"]) @ p["out_c"] + p["out_c_b"]
        logits = (z @ p["quant"] + p["quant_b"]).reshape(b, t, groups, entries).astype(f32)
        u = jax.random.uniform(key, logits.shape, f32, 1e-6, 1.0 - 1e-6)
        soft = jax.nn.softmax((logits - jnp.log(-jnp.log(u))) / temperature, -1)
        hard = jax.nn.one_hot(jnp.argmax(soft, -1), entries, dtype=f32)
        choice = (hard + soft - lax.stop_gradient(soft)).astype(bf16)
        q = jnp.einsum("btgv,gvd->btgd", choice, p["codebooks"]).reshape(b, t, final)
        q = q @ p["out_q"] + p["out_q_b"]
        context = jnp.take_along_axis(c, where[..., None], 1).astype(f32)
        target = jnp.take_along_axis(q, where[..., None], 1).astype(f32)
        negatives = target[jnp.arange(b)[:, None, None], others]
        candidates = jnp.concatenate([target[:, :, None], negatives], 2)
        similarity = cosine(context[:, :, None], candidates) / 0.1
        contrastive = -jnp.mean(jax.nn.log_softmax(similarity, -1)[..., 0])
        average = jnp.mean(jax.nn.softmax(logits, -1), (0, 1))
        perplexity = jnp.sum(jnp.exp(-jnp.sum(average * jnp.log(average + 1e-7), -1)))
        diversity = (groups * entries - perplexity) / (groups * entries)
        return contrastive + 0.1 * diversity + 10.0 * jnp.mean(jnp.square(z.astype(f32)))

    rng = np.random.default_rng(2)
    rate = 16000.0
    audio = np.zeros((batch, samples))
    for i in range(batch):
        at = int(rng.integers(0, 800))
        while at < samples:
            n = min(int(rng.integers(1200, 4000)), samples - at)
            if rng.uniform() < 0.7:
                f0 = rng.uniform(80, 260) * (1.0 + rng.uniform(-0.15, 0.15) * np.arange(n) / n)
                phase = 2 * np.pi * np.cumsum(f0) / rate
                segment = sum(np.sin(k * phase) / k for k in range(1, 9))
            else:
                segment = np.diff(rng.standard_normal(n + 1))
            audio[i, at:at + n] = segment * np.hanning(n) * rng.uniform(0.3, 1.0)
            at += n + int(rng.integers(200, 2400))
    audio += 0.01 * rng.standard_normal(audio.shape)
    audio = (audio - audio.mean(1, keepdims=True)) / audio.std(1, keepdims=True)
    mask = np.zeros((batch, frames), bool)
    where = np.zeros((batch, masked), np.int64)
    others = np.zeros((batch, masked, distractors), np.int64)
    for i in range(batch):
        while mask[i].sum() < masked + 4:
            start = int(rng.integers(0, frames - span))
            mask[i, start:start + span] = True
        where[i] = np.sort(rng.choice(np.flatnonzero(mask[i]), masked, replace=False))
        for m in range(masked):
            pick = rng.choice(masked - 1, distractors, replace=False)
            others[i, m] = pick + (pick >= m)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("scion", loss_fn, p, jnp.asarray(audio, bf16), jnp.asarray(mask), i32(where),
                  i32(others), jax.random.PRNGKey(2))


def cyclegan_translation(batch: int = 2, side: int = 48, widths: tuple[int, ...] = (16, 32, 64),
                         residual: int = 3, critic: tuple[int, ...] = (32, 64, 128),
                         cycle_weight: float = 10.0) -> Any:
    """Unpaired image-to-image translation by CycleGAN (Zhu, Park, Isola and Efros) in
    bfloat16 between two domains of 48x48 pictures (smooth terrain in a daylight palette,
    and the same kind of terrain in a dusk palette with brush-stroke stripes). Two
    generators (A to B and B to A: a reflection-padded 7x7 convolution, two stride-2
    convolutions to 64 channels, three residual blocks with reflection padding, two 3x3
    transposed convolutions of stride 2 back up and a 7x7 convolution under tanh,
    instance norm throughout) and two PatchGAN critics (4x4 convolutions of stride 2 to
    128 channels, one of stride 1 and a one-channel output of 6x6 patch scores, leaky
    ReLU and instance norm) train in one step: the generators by the least-squares
    adversarial loss of both directions plus ten times the L1 cycle-consistency loss of
    both round trips (four generator passes per image pair), then the critics by the
    least-squares loss on real pictures against the stopped translations, each network
    by its own optimizer state. Grams."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    c0, c1, c2 = widths
    gen_shapes: dict[str, tuple[int, ...]] = {}
    for k in ("ab", "ba"):
        gen_shapes.update({f"{k}_in": (7, 7, 3, c0), f"{k}_in_g": (c0,), f"{k}_in_b": (c0,),
                           f"{k}_d1": (3, 3, c0, c1), f"{k}_d1_g": (c1,), f"{k}_d1_b": (c1,),
                           f"{k}_d2": (3, 3, c1, c2), f"{k}_d2_g": (c2,), f"{k}_d2_b": (c2,)})
        for r in range(residual):
            for j in "xy":
                gen_shapes.update({f"{k}_r{r}{j}": (3, 3, c2, c2), f"{k}_r{r}{j}_g": (c2,),
                                   f"{k}_r{r}{j}_b": (c2,)})
        gen_shapes.update({f"{k}_u1": (3, 3, c2, c1), f"{k}_u1_g": (c1,), f"{k}_u1_b": (c1,),
                           f"{k}_u2": (3, 3, c1, c0), f"{k}_u2_g": (c0,), f"{k}_u2_b": (c0,),
                           f"{k}_out": (7, 7, c0, 3), f"{k}_out_b": (3,)})
    disc_shapes: dict[str, tuple[int, ...]] = {}
    for k in ("a", "b"):
        disc_shapes.update({f"{k}_c0": (4, 4, 3, critic[0]), f"{k}_c0_b": (critic[0],)})
        cin = critic[0]
        for i, c in enumerate(critic[1:] + (critic[-1],), 1):
            disc_shapes.update({f"{k}_c{i}": (4, 4, cin, c), f"{k}_c{i}_g": (c,),
                                f"{k}_c{i}_b": (c,)})
            cin = c
        disc_shapes.update({f"{k}_score": (4, 4, cin, 1), f"{k}_score_b": (1,)})
    gen = _params(gen_shapes, seed=3, dtype=bf16)
    disc = _params(disc_shapes, seed=4, dtype=bf16)
    relu, leaky = jax.nn.relu, lambda x: jax.nn.leaky_relu(x, 0.2)

    def reflect(x, n):
        return jnp.pad(x, ((0, 0), (n, n), (n, n), (0, 0)), mode="reflect")

    def inorm(p, k, x):
        return _layer_norm(x, p[f"{k}_g"], p[f"{k}_b"], (1, 2))

    def generate(p, k, x):
        x = relu(inorm(p, f"{k}_in", _conv(reflect(x, 3), p[f"{k}_in"], padding="VALID")))
        x = relu(inorm(p, f"{k}_d1", _conv(x, p[f"{k}_d1"], 2)))
        x = relu(inorm(p, f"{k}_d2", _conv(x, p[f"{k}_d2"], 2)))
        for r in range(residual):
            y = relu(inorm(p, f"{k}_r{r}x", _conv(reflect(x, 1), p[f"{k}_r{r}x"], padding="VALID")))
            x = x + inorm(p, f"{k}_r{r}y", _conv(reflect(y, 1), p[f"{k}_r{r}y"], padding="VALID"))
        for u in ("u1", "u2"):
            x = relu(inorm(p, f"{k}_{u}", lax.conv_transpose(x, p[f"{k}_{u}"], (2, 2), "SAME",
                                                             dimension_numbers=_NHWC)))
        return jnp.tanh(_conv(reflect(x, 3), p[f"{k}_out"], padding="VALID") + p[f"{k}_out_b"])

    def criticize(p, k, x):
        x = leaky(_conv(x, p[f"{k}_c0"], 2) + p[f"{k}_c0_b"])
        for i in range(1, len(critic) + 1):
            x = leaky(inorm(p, f"{k}_c{i}", _conv(x, p[f"{k}_c{i}"], 2 if i < len(critic) else 1)))
        return (_conv(x, p[f"{k}_score"]) + p[f"{k}_score_b"]).astype(f32)

    def l1(a, b):
        return jnp.mean(jnp.abs(a.astype(f32) - b.astype(f32)))

    init, update = _update_rule("grams")

    def step(gen, disc, gen_state, disc_state, real_a, real_b):
        def gen_loss(gen):
            fake_b, fake_a = generate(gen, "ab", real_a), generate(gen, "ba", real_b)
            adversarial = (jnp.mean(jnp.square(criticize(disc, "b", fake_b) - 1.0))
                           + jnp.mean(jnp.square(criticize(disc, "a", fake_a) - 1.0)))
            cycle = (l1(generate(gen, "ba", fake_b), real_a)
                     + l1(generate(gen, "ab", fake_a), real_b))
            return adversarial + cycle_weight * cycle, (fake_a, fake_b)

        (g_loss, (fake_a, fake_b)), g_grads = jax.value_and_grad(gen_loss, has_aux=True)(gen)
        fake_a, fake_b = lax.stop_gradient(fake_a), lax.stop_gradient(fake_b)

        def disc_loss(disc):
            total = 0.0
            for k, real, fake in (("a", real_a, fake_a), ("b", real_b, fake_b)):
                total = total + 0.5 * (jnp.mean(jnp.square(criticize(disc, k, real) - 1.0))
                                       + jnp.mean(jnp.square(criticize(disc, k, fake))))
            return total

        d_loss, d_grads = jax.value_and_grad(disc_loss)(disc)
        gen, gen_state = update(gen, g_grads, gen_state, g_loss)
        disc, disc_state = update(disc, d_grads, disc_state, d_loss)
        return gen, disc, gen_state, disc_state, g_loss, d_loss

    rng = np.random.default_rng(3)
    terrain = _smooth_images(rng, 2 * batch, side, 1, 5.0)[..., 0]
    detail = _smooth_images(rng, 2 * batch, side, 3, 12.0)
    level = np.tanh(terrain)[..., None]
    day = np.where(level > 0.2, [0.2, 0.6, 0.1], [0.1, 0.3, 0.8]) + 0.3 * level * [0.5, 0.4, 0.2]
    dusk = np.where(level > 0.2, [0.5, 0.3, 0.4], [0.2, 0.1, 0.4]) + 0.3 * level * [0.6, 0.3, 0.1]
    yy, xx = np.mgrid[0:side, 0:side]
    strokes = 0.15 * np.sin((xx + 0.6 * yy) / 2.5)[None, :, :, None]
    real_a = np.clip(day[:batch] + 0.05 * detail[:batch], 0, 1) * 2 - 1
    real_b = np.clip(dusk[batch:] + strokes + 0.05 * detail[batch:], 0, 1) * 2 - 1
    return jax.jit(step).lower(gen, disc, jax.eval_shape(init, gen), jax.eval_shape(init, disc),
                               jnp.asarray(real_a, bf16), jnp.asarray(real_b, bf16))


def nystromformer_classifier(batch: int = 2, length: int = 1024, vocab: int = 64,
                             width: int = 64, heads: int = 4, landmarks: int = 32,
                             layers: int = 2, hidden: int = 256, kernel: int = 33,
                             classes: int = 4, iterations: int = 6) -> Any:
    """Long-sequence classification by a Nystromformer (Xiong et al.) over 1024 tokens: two
    pre-norm layers of width 64 with four heads whose softmax attention is approximated
    through 32 landmarks (the means of consecutive segments of 32 queries and of 32 keys):
    softmax(Q Kl^T) times the Moore-Penrose pseudo-inverse of softmax(Ql Kl^T), found by
    six iterations of Razavi et al.'s matrix iteration Z <- Z (13 I - AZ (15 I - AZ (7 I -
    AZ))) / 4 started from A^T over its largest column and row sums, times
    softmax(Ql K^T) V, plus a depthwise convolution of width 33 over the values; then a
    GELU feed-forward layer of 256, mean pooling and a linear classifier. Each sequence
    scatters four marker tokens among filler tokens of a random Markov chain, and the
    label is the marker that occurs most often. Clippy."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "position": (length, width)}
    for l in range(layers):
        shapes.update(_block_shapes(f"{l}", width, hidden))
        shapes[f"{l}conv"] = (kernel, 1, width)
    shapes.update({"head_n_g": (width,), "head_n_b": (width,), "head": (width, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=5)
    eye = jnp.eye(landmarks)

    def pseudo_inverse(a):
        col = jnp.max(jnp.sum(jnp.abs(a), -2), -1)
        row = jnp.max(jnp.sum(jnp.abs(a), -1), -1)
        z = jnp.swapaxes(a, -1, -2) / (col * row)[..., None, None]
        for _ in range(iterations):
            az = a @ z
            z = 0.25 * z @ (13.0 * eye - az @ (15.0 * eye - az @ (7.0 * eye - az)))
        return z

    def attention(p, l, x):
        b, n, _ = x.shape
        h = _layer_norm(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
        qkv = (h @ p[f"{l}qkv"] + p[f"{l}qkv_b"]).reshape(b, n, 3 * heads, dh)
        q, k, v = (jnp.swapaxes(t, 1, 2) for t in jnp.split(qkv, 3, 2))
        q, k = q / dh ** 0.25, k / dh ** 0.25
        ql = q.reshape(b, heads, landmarks, n // landmarks, dh).mean(3)
        kl = k.reshape(b, heads, landmarks, n // landmarks, dh).mean(3)
        left = jax.nn.softmax(q @ jnp.swapaxes(kl, -1, -2), -1)
        middle = pseudo_inverse(jax.nn.softmax(ql @ jnp.swapaxes(kl, -1, -2), -1))
        right = jax.nn.softmax(ql @ jnp.swapaxes(k, -1, -2), -1)
        out = jnp.swapaxes((left @ middle) @ (right @ v), 1, 2).reshape(b, n, width)
        values = jnp.swapaxes(v, 1, 2).reshape(b, n, width)
        out = out + _conv1d(values, p[f"{l}conv"], padding="SAME", groups=width)
        x = x + out @ p[f"{l}o"] + p[f"{l}o_b"]
        h = _layer_norm(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
        return x + jax.nn.gelu(h @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"] + p[f"{l}f2_b"]

    def loss_fn(p, tokens, labels):
        x = p["embed"][tokens] + p["position"]
        for l in range(layers):
            x = attention(p, l, x)
        pooled = _layer_norm(x, p["head_n_g"], p["head_n_b"]).mean(1)
        return _cross_entropy(pooled @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(5)
    successor = rng.integers(classes + 1, vocab, (vocab, 3))
    tokens = np.zeros((batch, length), np.int64)
    labels = rng.integers(0, classes, batch)
    for i in range(batch):
        token = int(rng.integers(classes + 1, vocab))
        for t in range(length):
            tokens[i, t] = token
            token = int(successor[token, rng.integers(3)]) if rng.uniform() < 0.8 \
                else int(rng.integers(classes + 1, vocab))
        counts = rng.integers(3, 12, classes)
        counts[labels[i]] = counts.max() + int(rng.integers(1, 4))
        places = rng.choice(length, counts.sum(), replace=False)
        tokens[i, places] = np.repeat(np.arange(1, classes + 1), counts)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("clippy", loss_fn, p, i32(tokens), i32(labels))


def condconv_classifier(batch: int = 8, side: int = 32, widths: tuple[int, ...] = (16, 32, 64),
                        blocks: int = 2, experts: int = 4, classes: int = 10,
                        sigma: float = 0.015, mix: float = 0.5) -> Any:
    """Image classification with conditionally parameterized convolutions (CondConv; Yang,
    Bender, Le and Ngiam) on 32x32 pictures of ten texture classes (gratings of a class's
    orientation and frequency, coloured, with noise): after a plain 3x3 stem, three
    stages of two residual blocks (16, 32 and 64 channels, the first block of the later
    stages strided with a 1x1 projection) whose two 3x3 convolutions each mix four expert
    kernels per example by sigmoid routing weights from the globally pooled input; every
    example is convolved with its own kernel by folding the batch into the channels and
    grouping the convolution by example (`feature_group_count` 8), with batch norm and
    ReLU, then global pooling and a linear classifier under cross-entropy. The update is
    mixed random weight perturbation (m-RWP; Li et al.): a second gradient taken at the
    weights perturbed by Gaussian noise whose scale is 0.015 times the norm of each output
    filter (`jax.random` in the step) is averaged with the clean gradient, for momentum
    SGD with weight decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],),
                                          "stem_b": (widths[0],)}
    cin = widths[0]
    plan = []
    for s, c in enumerate(widths):
        for k in range(blocks):
            name = f"s{s}k{k}"
            stride = 2 if s and not k else 1
            for j, width_in in (("x", cin), ("y", c)):
                shapes.update({f"{name}{j}_route": (width_in, experts),
                               f"{name}{j}_route_b": (experts,),
                               f"{name}{j}": (experts, 3, 3, width_in, c),
                               f"{name}{j}_g": (c,), f"{name}{j}_b": (c,)})
            if stride > 1 or cin != c:
                shapes.update({f"{name}skip": (1, 1, cin, c), f"{name}skip_g": (c,),
                               f"{name}skip_b": (c,)})
            plan.append((name, stride, stride > 1 or cin != c))
            cin = c
    shapes.update({"head": (cin, classes), "head_b": (classes,)})
    p = _params(shapes, seed=6, scale=2.0)
    relu = jax.nn.relu

    def condconv(p, k, x, stride):
        b, h, w, c = x.shape
        route = jax.nn.sigmoid(jnp.mean(x, (1, 2)) @ p[f"{k}_route"] + p[f"{k}_route_b"])
        kernels = jnp.einsum("be,ehwio->hwibo", route, p[k])
        cout = kernels.shape[-1]
        folded = jnp.transpose(x, (1, 2, 0, 3)).reshape(1, h, w, b * c)
        y = _conv(folded, kernels.reshape(3, 3, c, b * cout), stride, groups=b)
        y = jnp.transpose(y.reshape(y.shape[1], y.shape[2], b, cout), (2, 0, 1, 3))
        return _batch_norm(y, p[f"{k}_g"], p[f"{k}_b"])

    def loss_fn(p, pictures, labels):
        x = relu(_batch_norm(_conv(pictures, p["stem"]), p["stem_g"], p["stem_b"]))
        for name, stride, project in plan:
            y = relu(condconv(p, f"{name}x", x, stride))
            y = condconv(p, f"{name}y", y, 1)
            if project:
                x = _batch_norm(_conv(x, p[f"{name}skip"], stride), p[f"{name}skip_g"],
                                p[f"{name}skip_b"])
            x = relu(x + y)
        return _cross_entropy(jnp.mean(x, (1, 2)) @ p["head"] + p["head_b"], labels)

    rate, momentum, decay = 0.05, 0.9, 5e-4
    tm = jax.tree.map

    def step(params, velocity, key, pictures, labels):
        leaves, tree = jax.tree.flatten(params)
        keys = jax.random.split(key, len(leaves))
        shaken = []
        for leaf, k in zip(leaves, keys):
            if leaf.ndim >= 2:
                axes = (1, 2, 3) if leaf.ndim == 5 else tuple(range(leaf.ndim - 1))
                size = jnp.sqrt(jnp.sum(jnp.square(leaf), axes, keepdims=True))
                leaf = leaf + sigma * size * jax.random.normal(k, leaf.shape)
            shaken.append(leaf)
        loss, clean = jax.value_and_grad(loss_fn)(params, pictures, labels)
        noisy = jax.grad(loss_fn)(jax.tree.unflatten(tree, shaken), pictures, labels)
        g = tm(lambda a, b: (1.0 - mix) * a + mix * b, clean, noisy)
        velocity = tm(lambda v, g_, w: momentum * v + g_ + decay * w, velocity, g, params)
        return tm(lambda w, v: w - rate * v, params, velocity), velocity, loss

    rng = np.random.default_rng(6)
    labels = rng.integers(0, classes, batch)
    yy, xx = np.mgrid[0:side, 0:side] / side
    angle = np.pi * np.arange(classes) / classes
    frequency = 3.0 + 1.5 * (np.arange(classes) % 3)
    pictures = np.zeros((batch, side, side, 3), np.float32)
    for i, k in enumerate(labels):
        theta = angle[k] + 0.1 * rng.standard_normal()
        wave = np.sin(2 * np.pi * frequency[k] * (xx * np.cos(theta) + yy * np.sin(theta))
                      + rng.uniform(0, 2 * np.pi))
        colour = rng.uniform(0.3, 1.0, 3)
        pictures[i] = wave[..., None] * colour + 0.3 * rng.standard_normal((side, side, 3))
    zeros = jax.tree.map(jnp.zeros_like, p)
    return jax.jit(step).lower(p, zeros, jax.random.PRNGKey(6), jnp.asarray(pictures),
                               jnp.asarray(labels, jnp.int32))


def xdeepfm_ctr(batch: int = 512, fields: int = 24, embed: int = 16,
                maps: tuple[int, ...] = (32, 32, 32), deep: tuple[int, ...] = (256, 128)) -> Any:
    """Click-through prediction by xDeepFM (Lian et al.) on 512 impressions of 24 categorical
    fields (cardinalities from 8 to 4000, 16-wide embeddings in one table, ids Zipf
    distributed within each field): a linear part of per-id weights, a compressed
    interaction network whose three layers each take the outer product of the previous
    layer's feature maps with the field embeddings along the embedding axis and compress
    it to 32 maps (an einsum over previous maps and fields), half of each hidden layer's
    maps going on and half pooled by a sum over the embedding axis into the output, and a
    plain ReLU network of 256 and 128 over the concatenated embeddings; the three logits
    add up under the logistic loss. Clicks are drawn from a hidden factorization machine
    over the same fields. The update is KOALA."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(7)
    cardinality = np.round(np.geomspace(8, 4000, fields)).astype(np.int64)
    rng.shuffle(cardinality)
    offsets = np.concatenate([[0], np.cumsum(cardinality)[:-1]])
    rows = int(cardinality.sum())
    shapes: dict[str, tuple[int, ...]] = {"embed": (rows, embed), "linear": (rows, 1),
                                          "bias_b": (1,)}
    previous = fields
    outputs = 0
    for k, h in enumerate(maps):
        shapes.update({f"cin{k}": (previous, fields, h), f"cin{k}_b": (h,)})
        previous = h // 2 if k < len(maps) - 1 else h
        outputs += h - h // 2 if k < len(maps) - 1 else h
    shapes["cin_out"] = (outputs, 1)
    cin = fields * embed
    for i, d in enumerate(deep):
        shapes.update({f"dnn{i}": (cin, d), f"dnn{i}_b": (d,)})
        cin = d
    shapes.update({"dnn_out": (cin, 1), "dnn_out_b": (1,)})
    p = _params(shapes, seed=7, scale=0.5)

    def loss_fn(p, ids, clicks):
        b = ids.shape[0]
        e = p["embed"][ids]
        linear = jnp.sum(p["linear"][ids][..., 0], -1) + p["bias_b"][0]
        x, pooled = e, []
        for k, h in enumerate(maps):
            z = jnp.einsum("bhd,bmd->bhmd", x, e)
            nxt = jax.nn.relu(jnp.einsum("bhmd,hmn->bnd", z, p[f"cin{k}"])
                              + p[f"cin{k}_b"][:, None])
            if k < len(maps) - 1:
                x, out = nxt[:, :h // 2], nxt[:, h // 2:]
            else:
                out = nxt
            pooled.append(jnp.sum(out, -1))
        interactions = (jnp.concatenate(pooled, -1) @ p["cin_out"])[:, 0]
        d = e.reshape(b, -1)
        for i in range(len(deep)):
            d = jax.nn.relu(d @ p[f"dnn{i}"] + p[f"dnn{i}_b"])
        logit = linear + interactions + (d @ p["dnn_out"] + p["dnn_out_b"])[:, 0]
        return jnp.mean(jax.nn.softplus(logit) - clicks * logit)

    local = np.stack([np.minimum(rng.zipf(1.3, batch) - 1, c - 1) for c in cardinality], 1)
    ids = local + offsets
    hidden = 0.4 * rng.standard_normal((rows, 4))
    weight = 0.3 * rng.standard_normal(rows)
    v = hidden[ids]
    pairs = 0.5 * (np.square(v.sum(1)).sum(-1) - np.square(v).sum((1, 2)))
    logit = weight[ids].sum(1) + pairs - 1.5
    clicks = (rng.uniform(size=batch) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
    return _train("koala", loss_fn, p, jnp.asarray(ids, jnp.int32), jnp.asarray(clicks))


def rgcn_entities(entities: int = 6000, relations: int = 12, triples: int = 40000,
                  width: int = 32, bases: int = 6, classes: int = 8, labelled: int = 1500) -> Any:
    """Entity classification in a knowledge graph by a relational graph convolutional
    network (R-GCN; Schlichtkrull et al.): 6000 entities with learned 32-wide input
    embeddings, 40000 triples over twelve relations taken in both directions (24 edge
    types, 80000 directed edges), and two layers whose per-type weights are mixtures of
    six shared bases (basis decomposition): every node is transformed by each basis, the
    result gathered at every edge's source and mixed by the edge type's coefficients, scaled
    by one over the number of edges of that type into the target and summed per target by
    `segment_sum`, plus a self-connection; cross-entropy on 1500 labelled entities among
    eight classes. The graph is a stochastic block model with a class affinity per
    relation. The update is equilibrated SGD (ESGD; Dauphin, de Vries and Bengio): a
    Hessian-vector product with a Gaussian probe (forward over reverse, `jax.random` in
    the step) accumulates the squared curvature whose root mean preconditions SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    kinds = 2 * relations
    shapes: dict[str, tuple[int, ...]] = {"nodes": (entities, width)}
    for l, (din, dout) in enumerate(((width, width), (width, classes))):
        shapes.update({f"l{l}_bases": (bases, din, dout), f"l{l}_coef": (kinds, bases),
                       f"l{l}_self": (din, dout), f"l{l}_b": (dout,)})
    p = _params(shapes, seed=8)

    def layer(p, l, h, src, dst, kind, scale):
        transformed = jnp.einsum("nd,bdo->bno", h, p[f"l{l}_bases"])
        messages = jnp.einsum("eb,beo->eo", p[f"l{l}_coef"][kind], transformed[:, src])
        total = jax.ops.segment_sum(messages * scale[:, None], dst, num_segments=entities)
        return total + h @ p[f"l{l}_self"] + p[f"l{l}_b"]

    def loss_fn(p, src, dst, kind, scale, nodes, labels):
        h = jax.nn.relu(layer(p, 0, p["nodes"], src, dst, kind, scale))
        logits = layer(p, 1, h, src, dst, kind, scale)
        return _cross_entropy(logits[nodes], labels)

    rate, eps = 0.05, 1e-4
    tm = jax.tree.map

    def step(params, curvature, t, key, *graph):
        leaves, tree = jax.tree.flatten(params)
        probe = jax.tree.unflatten(tree, [jax.random.normal(k, leaf.shape) for leaf, k in
                                          zip(leaves, jax.random.split(key, len(leaves)))])
        loss, grads = jax.value_and_grad(loss_fn)(params, *graph)
        _, hv = jax.jvp(lambda w: jax.grad(loss_fn)(w, *graph), (params,), (probe,))
        curvature = tm(lambda d, h: d + h * h, curvature, hv)
        t = t + 1
        n = t.astype(jnp.float32)
        params = tm(lambda w, g, d: w - rate * g / (jnp.sqrt(d / n) + eps), params, grads,
                    curvature)
        return params, curvature, t, loss

    rng = np.random.default_rng(8)
    group = rng.integers(0, classes, entities)
    members = [np.flatnonzero(group == c) for c in range(classes)]
    affinity = rng.dirichlet(np.full(classes, 0.3), (relations, classes))
    relation = rng.integers(0, relations, triples)
    head = rng.integers(0, entities, triples)
    tail = np.zeros(triples, np.int64)
    for r in range(relations):
        for c in range(classes):
            chosen = np.flatnonzero((relation == r) & (group[head] == c))
            aim = rng.choice(classes, len(chosen), p=affinity[r, c])
            for k in range(classes):
                picked = chosen[aim == k]
                tail[picked] = rng.choice(members[k], len(picked))
    src = np.concatenate([head, tail])
    dst = np.concatenate([tail, head])
    kind = np.concatenate([relation, relation + relations])
    pair = dst * kinds + kind
    _, inverse, counts = np.unique(pair, return_inverse=True, return_counts=True)
    scale = (1.0 / counts[inverse]).astype(np.float32)
    nodes = rng.choice(entities, labelled, replace=False)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    zeros = jax.tree.map(jnp.zeros_like, p)
    return jax.jit(step).lower(p, zeros, jnp.int32(0), jax.random.PRNGKey(8), i32(src), i32(dst),
                               i32(kind), jnp.asarray(scale), i32(nodes), i32(group[nodes]))


def _lstm(gates: Any, c: Any) -> tuple[Any, Any]:
    """One LSTM cell from its summed gate inputs (i, f, g, o; the forget gate biased
    by one): the new hidden state and cell."""
    import jax
    import jax.numpy as jnp

    i, f, g, o = jnp.split(gates, 4, -1)
    c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    return jax.nn.sigmoid(o) * jnp.tanh(c), c


def deepar_forecaster(series: int = 64, context: int = 72, horizon: int = 24, hidden: int = 40,
                      lags: tuple[int, ...] = (1, 2, 3, 24, 48), embed: int = 8) -> Any:
    """Probabilistic demand forecasting by DeepAR (Salinas, Flunkert, Gasthaus and
    Januschowski) on 64 hourly count series over a 72-hour context and a 24-hour horizon,
    trained with teacher forcing over all 96 steps: every step reads the lagged counts 1,
    2, 3, 24 and 48 hours back (sliced from the history, divided by the series' scale, one
    plus its mean over the context), the hour of day as a sine and cosine, an embedding
    of the weekday, an embedding of the series and its age; a two-layer LSTM of 40
    (the first layer's input projection taken for all steps at once, both recurrences in
    one `lax.scan`) gives the mean (softplus, times the scale) and the shape (softplus,
    over the root of the scale) of a negative binomial, and the loss is its negative
    log-likelihood (`lgamma`). The counts come from negative binomials around daily and
    weekly profiles with a level per series. DoWG."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    steps = context + horizon
    history = max(lags)
    features = len(lags) + 2 + 4 + embed + 1
    h4 = 4 * hidden
    p = _params({"series": (series, embed), "weekday": (7, 4), "l0_x": (features, h4),
                 "l0_h": (hidden, h4), "l0_b": (h4,), "l1_x": (hidden, h4), "l1_h": (hidden, h4),
                 "l1_b": (h4,), "mu": (hidden, 1), "mu_b": (1,), "shape": (hidden, 1),
                 "shape_b": (1,)}, seed=9)

    def loss_fn(p, counts, hours, weekdays, ids):
        target = counts[:, history:]
        scale = 1.0 + jnp.mean(target[:, :context], 1, keepdims=True)
        lagged = jnp.stack([counts[:, history - lag:history - lag + steps] for lag in lags], -1)
        angle = 2.0 * math.pi * hours.astype(jnp.float32) / 24.0
        age = jnp.broadcast_to(jnp.log1p(jnp.arange(steps, dtype=jnp.float32))[None, :, None] / 5.0,
                               (series, steps, 1))
        who = jnp.broadcast_to(p["series"][ids][:, None], (series, steps, embed))
        feats = jnp.concatenate([lagged / scale[..., None], jnp.sin(angle)[..., None],
                                 jnp.cos(angle)[..., None], p["weekday"][weekdays], who, age], -1)
        inputs = jnp.swapaxes(feats @ p["l0_x"] + p["l0_b"], 0, 1)

        def cell(carry, x_t):
            (h0, c0), (h1, c1) = carry
            h0, c0 = _lstm(x_t + h0 @ p["l0_h"], c0)
            h1, c1 = _lstm(h0 @ p["l1_x"] + h1 @ p["l1_h"] + p["l1_b"], c1)
            return ((h0, c0), (h1, c1)), h1

        zeros = jnp.zeros((series, hidden))
        _, hs = lax.scan(cell, ((zeros, zeros), (zeros, zeros)), inputs)
        hs = jnp.swapaxes(hs, 0, 1)
        mu = jax.nn.softplus(hs @ p["mu"] + p["mu_b"])[..., 0] * scale
        r = 1.0 / (jax.nn.softplus(hs @ p["shape"] + p["shape_b"])[..., 0] / jnp.sqrt(scale) + 1e-4)
        log_lik = (lax.lgamma(target + r) - lax.lgamma(target + 1.0) - lax.lgamma(r)
                   + r * jnp.log(r / (r + mu)) + target * jnp.log(mu / (r + mu) + 1e-12))
        return -jnp.mean(log_lik)

    rng = np.random.default_rng(9)
    total = history + steps
    start = rng.integers(0, 24 * 7, series)
    clock = start[:, None] + np.arange(total)[None, :]
    level = rng.lognormal(1.5, 0.8, series)
    phase = rng.uniform(0, 2 * np.pi, (series, 1))
    daily = 1.0 + 0.6 * np.sin(2 * np.pi * (clock % 24) / 24 + phase)
    weekly = np.where((clock // 24) % 7 >= 5, rng.uniform(0.5, 1.5, (series, 1)), 1.0)
    mean = level[:, None] * daily * weekly
    dispersion = rng.uniform(2.0, 10.0, (series, 1))
    counts = rng.negative_binomial(dispersion, dispersion / (dispersion + mean)).astype(np.float32)
    hours = (clock[:, history:] % 24).astype(np.int64)
    weekdays = ((clock[:, history:] // 24) % 7).astype(np.int64)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("dowg", loss_fn, p, jnp.asarray(counts), i32(hours), i32(weekdays),
                  i32(np.arange(series)))


def charformer_gbst(batch: int = 8, length: int = 480, width: int = 96, heads: int = 4,
                    layers: int = 3, hidden: int = 384, max_block: int = 4, downsample: int = 4,
                    classes: int = 8, vocab: int = 256) -> Any:
    """Byte-level document classification by a Charformer (Tay et al.) in bfloat16:
    gradient-based subword tokenization (GBST) over 480 bytes embeds every byte, adds a
    depthwise convolution of width four, pools the sequence into blocks of one to four
    bytes (mean pooling of a reshape per block size), scores each candidate block by a
    linear map, repeats blocks and scores back to the byte positions (`jnp.repeat`),
    takes a softmax over the four block sizes at every position, calibrates those scores
    by a softmax over their position-by-position similarities, mixes the candidates by
    them and downsamples by four into 120 latent tokens; three pre-norm transformer layers
    of width 96 with learned positions, mean pooling and a linear layer classify the
    documents into eight topics under cross-entropy. Documents are runs of made-up words,
    mostly from their topic's vocabulary. AcceleGrad."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    tokens = length // downsample
    shapes: dict[str, tuple[int, ...]] = {"bytes": (vocab, width), "offset": (max_block, 1, width),
                                          "offset_b": (width,), "score": (width, 1),
                                          "score_b": (1,), "position": (tokens, width)}
    for l in range(layers):
        shapes.update(_block_shapes(f"{l}", width, hidden))
    shapes.update({"head_n_g": (width,), "head_n_b": (width,), "head": (width, classes),
                   "head_b": (classes,)})
    p = _params(shapes, seed=10, dtype=bf16)

    def loss_fn(p, text, labels):
        b = text.shape[0]
        x = p["bytes"][text]
        x = x + _conv1d(x, p["offset"], padding="SAME", groups=width) + p["offset_b"]
        candidates, scores = [], []
        for size in range(1, max_block + 1):
            pooled = x.reshape(b, length // size, size, width).mean(2)
            scores.append(jnp.repeat((pooled @ p["score"] + p["score_b"])[..., 0], size, axis=1))
            candidates.append(jnp.repeat(pooled, size, axis=1))
        weights = jax.nn.softmax(jnp.stack(scores, -1).astype(f32), -1)
        similar = jax.nn.softmax(weights @ jnp.swapaxes(weights, 1, 2), -1)
        weights = (similar @ weights).astype(bf16)
        mixed = sum(weights[..., i:i + 1] * c for i, c in enumerate(candidates))
        latent = mixed.reshape(b, tokens, downsample, width).mean(2) + p["position"]
        for l in range(layers):
            latent = _block(p, f"{l}", latent, heads)
        pooled = _layer_norm(latent, p["head_n_g"], p["head_n_b"]).mean(1)
        return _cross_entropy(pooled @ p["head"] + p["head_b"], labels)

    rng = np.random.default_rng(10)

    def word():
        return bytes(rng.integers(97, 123, int(rng.integers(2, 9))).tolist())

    common = [word() for _ in range(40)]
    topics = [[word() for _ in range(30)] for _ in range(classes)]
    labels = rng.integers(0, classes, batch)
    text = np.zeros((batch, length), np.int64)
    for i, k in enumerate(labels):
        document = b""
        while len(document) < length:
            pool = topics[k] if rng.uniform() < 0.6 else common
            document += pool[int(rng.integers(len(pool)))] + b" "
        text[i] = np.frombuffer(document[:length], np.uint8)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("accelegrad", loss_fn, p, i32(text), i32(labels))


def qmix_agents(episodes: int = 16, steps: int = 40, agents: int = 5, observations: int = 36,
                state: int = 60, actions: int = 10, hidden: int = 64, mixing: int = 32,
                hyper: int = 64, gamma: float = 0.99, rho: float = 0.05,
                alpha: float = 0.1) -> Any:
    """Cooperative multi-agent value learning by QMIX (Rashid et al.) on a replay batch of
    16 episodes of 40 steps with five agents: every agent's network (shared, fed its
    observation, its last action and its one-hot index) is a ReLU layer and a GRU of 64
    run over the episode in a `lax.scan` (agents folded into the batch), giving Q over ten
    actions; the chosen actions' values are mixed into Q_tot by a monotonic mixing
    network whose weights come from hypernetworks of the global state (absolute values
    of their outputs, an ELU hidden layer of 32 and a state-dependent bias from a
    two-layer network). The target mixes the target networks' values at the actions that
    the online agents prefer among the available ones (double Q-learning), and the loss
    is the squared TD error over the filled steps. The update is surrogate-gap guided
    sharpness-aware minimization (GSAM; Zhuang et al.) over Adam: a second gradient at
    the weights moved by 0.05 along the normalized gradient, minus 0.1 times the part of
    the first gradient orthogonal to it."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    width_in = observations + actions + agents
    shapes = {"fc": (width_in, hidden), "fc_b": (hidden,), "gru_x": (hidden, 3 * hidden),
              "gru_x_b": (3 * hidden,), "gru_h": (hidden, 3 * hidden), "gru_h_b": (3 * hidden,),
              "q": (hidden, actions), "q_b": (actions,), "w1a": (state, hyper), "w1a_b": (hyper,),
              "w1b": (hyper, agents * mixing), "w1b_b": (agents * mixing,), "b1": (state, mixing),
              "b1_b": (mixing,), "w2a": (state, hyper), "w2a_b": (hyper,), "w2b": (hyper, mixing),
              "w2b_b": (mixing,), "v1": (state, mixing), "v1_b": (mixing,), "v2": (mixing, 1),
              "v2_b": (1,)}
    p = _params(shapes, seed=11)
    target = _params(shapes, seed=12)

    def agent_values(p, inputs):
        b, t, a, _ = inputs.shape
        x = jax.nn.relu(inputs @ p["fc"] + p["fc_b"])
        gates = jnp.swapaxes(x @ p["gru_x"] + p["gru_x_b"], 0, 1).reshape(t, b * a, 3 * hidden)

        def cell(h, g):
            gh = h @ p["gru_h"] + p["gru_h_b"]
            r = jax.nn.sigmoid(g[:, :hidden] + gh[:, :hidden])
            z = jax.nn.sigmoid(g[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
            n = jnp.tanh(g[:, 2 * hidden:] + r * gh[:, 2 * hidden:])
            h = (1.0 - z) * n + z * h
            return h, h

        _, hs = lax.scan(cell, jnp.zeros((b * a, hidden)), gates)
        hs = jnp.swapaxes(hs.reshape(t, b, a, hidden), 0, 1)
        return hs @ p["q"] + p["q_b"]

    def mix(p, q, s):
        b, t = q.shape[:2]
        w1 = jnp.abs(jax.nn.relu(s @ p["w1a"] + p["w1a_b"]) @ p["w1b"] + p["w1b_b"])
        h = jax.nn.elu(jnp.einsum("bta,btam->btm", q, w1.reshape(b, t, agents, mixing))
                       + s @ p["b1"] + p["b1_b"])
        w2 = jnp.abs(jax.nn.relu(s @ p["w2a"] + p["w2a_b"]) @ p["w2b"] + p["w2b_b"])
        v = jax.nn.relu(s @ p["v1"] + p["v1_b"]) @ p["v2"] + p["v2_b"]
        return jnp.sum(h * w2, -1) + v[..., 0]

    def loss_fn(p, target, inputs, states, chosen, available, reward, terminated, filled):
        q_all = agent_values(p, inputs)
        taken = jnp.take_along_axis(q_all[:, :-1], chosen[..., None], -1)[..., 0]
        best = jnp.argmax(lax.stop_gradient(jnp.where(available[:, 1:], q_all[:, 1:], -1e9)), -1)
        following = jnp.take_along_axis(agent_values(target, inputs)[:, 1:], best[..., None],
                                        -1)[..., 0]
        y = reward + gamma * (1.0 - terminated) * mix(target, following, states[:, 1:])
        error = mix(p, taken, states[:, :-1]) - lax.stop_gradient(y)
        return jnp.sum(jnp.square(error) * filled) / jnp.sum(filled)

    rate, b1, b2 = 5e-4, 0.9, 0.999
    tm = jax.tree.map

    def dot(a, b):
        return sum(jnp.sum(x * y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))

    def step(params, target, m, v, t, *batch):
        loss, g = jax.value_and_grad(loss_fn)(params, target, *batch)
        size = jnp.sqrt(dot(g, g))
        moved = tm(lambda w, g_: w + rho * g_ / (size + 1e-12), params, g)
        gp = jax.grad(loss_fn)(moved, target, *batch)
        along = dot(g, gp) / (dot(gp, gp) + 1e-12)
        d = tm(lambda g_, q: q - alpha * (g_ - along * q), g, gp)
        t = t + 1
        n = t.astype(f32)
        m = tm(lambda m_, d_: b1 * m_ + (1.0 - b1) * d_, m, d)
        v = tm(lambda v_, d_: b2 * v_ + (1.0 - b2) * d_ * d_, v, d)
        params = tm(lambda w, m_, v_: w - rate * (m_ / (1.0 - b1 ** n))
                    / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8), params, m, v)
        return params, m, v, t, loss

    rng = np.random.default_rng(11)
    length = rng.integers(20, steps + 1, episodes)
    available = rng.uniform(size=(episodes, steps + 1, agents, actions)) < 0.6
    available[..., 0] = True
    chosen = np.zeros((episodes, steps, agents), np.int64)
    for e in range(episodes):
        for t in range(steps):
            for a in range(agents):
                chosen[e, t, a] = rng.choice(np.flatnonzero(available[e, t, a]))
    last = np.zeros((episodes, steps + 1, agents, actions), np.float32)
    last[:, 1:] = np.eye(actions, dtype=np.float32)[chosen]
    obs = rng.standard_normal((episodes, steps + 1, agents, observations)).astype(np.float32)
    identity = np.broadcast_to(np.eye(agents, dtype=np.float32),
                               (episodes, steps + 1, agents, agents))
    inputs = np.concatenate([obs, last, identity], -1)
    states = rng.standard_normal((episodes, steps + 1, state)).astype(np.float32)
    index = np.arange(steps)[None, :]
    filled = (index < length[:, None]).astype(np.float32)
    terminated = (index == length[:, None] - 1).astype(np.float32)
    reward = (0.1 * (chosen == 1).sum(-1) + terminated * rng.uniform(0, 2, (episodes, 1))) * filled
    zeros = jax.tree.map(jnp.zeros_like, p)
    return jax.jit(step).lower(p, target, zeros, zeros, jnp.int32(0), jnp.asarray(inputs),
                               jnp.asarray(states), jnp.asarray(chosen, jnp.int32),
                               jnp.asarray(available), jnp.asarray(reward, f32),
                               jnp.asarray(terminated), jnp.asarray(filled))


def ofdm_link(frames: int = 64, symbols: int = 14, fft: int = 1024, used: int = 600,
              prefix: int = 72, taps: int = 8, snr_db: float = 20.0) -> Any:
    """A 16-QAM OFDM radio link simulated end to end for 64 frames of 14 symbols on 600 of
    1024 subcarriers (with a 72-sample cyclic prefix), no gradient. The transmitter maps
    Gray-coded bit quadruples (uint8) to constellation points by gathers from a level
    table, inserts QPSK pilots on every sixth subcarrier of four symbols (the comb
    staggered by three), places the carriers around an empty DC bin, and takes an inverse
    FFT; the channel is an eight-tap multipath convolution (a sum of shifted slices) with
    a carrier frequency offset and Gaussian noise at 20 dB drawn by `jax.random`. The
    receiver estimates the frequency offset from the correlation of every cyclic prefix
    with the end of its symbol, derotates, strips the prefixes, takes the FFT, estimates
    the channel at the pilots by least squares, interpolates it linearly across frequency
    (gathers of the neighbouring pilots) and then across the four pilot symbols in time,
    estimates the noise from the pilots, equalizes by unbiased MMSE and computes max-log
    bit LLRs per axis; the LLRs, the bit error rate per frame, the EVM, the offsets and
    the channel estimates come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    half = used // 2
    n = symbols * (fft + prefix)
    spacing = 6
    pilot_symbols = (0, 4, 7, 11)
    offsets = (0, 3, 0, 3)
    combs = used // spacing
    levels = np.asarray([-3.0, -1.0, 3.0, 1.0], np.float32) / math.sqrt(10.0)
    carrier = np.arange(used)
    grid_pilot = np.zeros((symbols, used), bool)
    for s, o in zip(pilot_symbols, offsets):
        grid_pilot[s, o::spacing] = True
    left = [np.clip((carrier - o) // spacing, 0, combs - 2) for o in offsets]
    frac = [((carrier - o) / spacing - k).astype(np.float32) for o, k in zip(offsets, left)]
    marks = np.asarray(pilot_symbols)
    before = np.searchsorted(marks, np.arange(symbols), side="right") - 1
    before = np.clip(before, 0, len(marks) - 2)
    t_frac = (np.arange(symbols) - marks[before]) / (marks[before + 1] - marks[before])
    t_frac = t_frac.astype(np.float32)
    noise_power = 10.0 ** (-snr_db / 10.0)

    def pilot_values(shape):
        s = jnp.arange(shape[0])[:, None]
        u = jnp.arange(shape[1])[None, :]
        return jnp.exp(1j * (math.pi / 4) * (2 * ((7 * u + 3 * s) % 4) + 1)).astype(jnp.complex64)

    def run(bits, channel, offset, key):
        table = jnp.asarray(levels)
        wide = bits.astype(jnp.int32)
        data = (table[wide[..., 0] * 2 + wide[..., 1]]
                + 1j * table[wide[..., 2] * 2 + wide[..., 3]]).astype(jnp.complex64)
        pilots = pilot_values((symbols, used))
        grid = jnp.where(grid_pilot, pilots, data)
        zeros = jnp.zeros(grid.shape[:-1] + (fft - used - 1,), jnp.complex64)
        spectrum = jnp.concatenate([grid[..., :1] * 0, grid[..., half:], zeros, grid[..., :half]],
                                   -1)
        wave = jnp.fft.ifft(spectrum, axis=-1) * math.sqrt(fft)
        wave = jnp.concatenate([wave[..., -prefix:], wave], -1).reshape(frames, n)
        h = channel[..., 0] + 1j * channel[..., 1]
        padded = jnp.pad(wave, ((0, 0), (taps - 1, 0)))
        received = sum(h[:, k, None] * padded[:, taps - 1 - k:taps - 1 - k + n]
                       for k in range(taps))
        clock = jnp.arange(n, dtype=jnp.float32)
        received = received * jnp.exp(2j * math.pi * offset[:, None] * clock / fft)
        noise = jax.random.normal(key, (frames, n, 2)) * math.sqrt(noise_power / 2)
        received = received + noise[..., 0] + 1j * noise[..., 1]
        blocks = received.reshape(frames, symbols, fft + prefix)
        corr = jnp.sum(jnp.conj(blocks[..., :prefix]) * blocks[..., fft:], (1, 2))
        estimate = jnp.angle(corr) / (2 * math.pi)
        received = received * jnp.exp(-2j * math.pi * estimate[:, None] * clock / fft)
        blocks = received.reshape(frames, symbols, fft + prefix)[..., prefix:]
        freq = jnp.fft.fft(blocks, axis=-1) / math.sqrt(fft)
        carriers = jnp.concatenate([freq[..., fft - half:], freq[..., 1:half + 1]], -1)
        rows = []
        for s, o, k, w in zip(pilot_symbols, offsets, left, frac):
            raw = carriers[:, s, o::spacing] / pilots[s, o::spacing]
            rows.append(raw[:, k] * (1.0 - w) + raw[:, k + 1] * w)
        rows = jnp.stack(rows, 1)
        response = rows[:, before] * (1.0 - t_frac[:, None]) + rows[:, before + 1] * t_frac[:, None]
        residual = jnp.abs(carriers - response * pilots) ** 2
        sigma2 = jnp.sum(residual * grid_pilot, (1, 2)) / grid_pilot.sum()
        power = jnp.abs(response) ** 2
        equalized = jnp.conj(response) * carriers / (power + sigma2[:, None, None])
        bias = power / (power + sigma2[:, None, None])
        equalized = equalized / bias
        reliability = bias / (1.0 - bias + 1e-6) * 10.0

        def axis_llrs(v):
            distance = jnp.square(v[..., None] - table)
            one_first = jnp.minimum(distance[..., 2], distance[..., 3])
            zero_first = jnp.minimum(distance[..., 0], distance[..., 1])
            one_second = jnp.minimum(distance[..., 1], distance[..., 3])
            zero_second = jnp.minimum(distance[..., 0], distance[..., 2])
            return jnp.stack([one_first - zero_first, one_second - zero_second], -1)

        llrs = jnp.concatenate([axis_llrs(equalized.real), axis_llrs(equalized.imag)], -1)
        llrs = llrs * reliability[..., None]
        is_data = ~grid_pilot
        wrong = ((llrs < 0) != (wide > 0)) & is_data[..., None]
        ber = jnp.sum(wrong, (1, 2, 3)) / (4.0 * is_data.sum())
        evm = jnp.sqrt(jnp.sum(jnp.abs(equalized - data) ** 2 * is_data, (1, 2))
                       / jnp.sum(jnp.abs(data) ** 2 * is_data, (1, 2)))
        return llrs, ber, evm, estimate, response.astype(jnp.complex64), sigma2

    rng = np.random.default_rng(13)
    bits = rng.integers(0, 2, (frames, symbols, used, 4)).astype(np.uint8)
    profile = np.exp(-np.arange(taps) / 2.0)
    profile /= profile.sum()
    channel = rng.standard_normal((frames, taps, 2)) * np.sqrt(profile / 2)[None, :, None]
    offset = rng.uniform(-0.15, 0.15, frames)
    return jax.jit(run).lower(jnp.asarray(bits), jnp.asarray(channel, jnp.float32),
                              jnp.asarray(offset, jnp.float32), jax.random.PRNGKey(13))


def gale_shapley_matching(people: int = 1024, traits: int = 8, max_rounds: int = 600) -> Any:
    """Stable matching of 1024 proposers to 1024 receivers by a parallel, round-based form
    of the Gale-Shapley algorithm, no gradient: both sides' scores come from products of
    latent traits plus noise and a popularity that the whole other side shares, every
    proposer's preference list is a stable `argsort` of its row of scores, and a
    `while_loop` runs rounds until no free proposer has anyone left to propose to (capped
    at 600): each free proposer proposes to the next receiver on its list (a gather), every
    receiver keeps the best offer by a `segment_max` of its scores of the offers (ties to
    the lowest id by a `segment_min`) if it beats the partner it holds, and jilted
    partners are freed by scatters. The matching, the rounds and proposals taken, the
    number of blocking pairs (a check over all 1024x1024 pairs), both sides' mean rank of
    their partners and a histogram of the proposers' ranks come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = people

    def run(u, v, a, b, popularity, merit, noise_p, noise_r):
        s = u @ v.T + popularity[None, :] + noise_p
        t = a @ b.T + merit[None, :] + noise_r
        order = jnp.argsort(-s, axis=1, stable=True)
        ids = jnp.arange(n)

        def unfinished(carry):
            rounds, nxt, partner_p, _, _ = carry
            return (rounds < max_rounds) & jnp.any((partner_p < 0) & (nxt < n))

        def round_(carry):
            rounds, nxt, partner_p, partner_r, proposals = carry
            active = (partner_p < 0) & (nxt < n)
            aim = jnp.take_along_axis(order, jnp.minimum(nxt, n - 1)[:, None], 1)[:, 0]
            offer = jnp.where(active, t[aim, ids], -jnp.inf)
            slot = jnp.where(active, aim, n)
            best = jax.ops.segment_max(offer, slot, n + 1)[:n]
            held = jnp.where(partner_r >= 0, t[ids, jnp.maximum(partner_r, 0)], -jnp.inf)
            wins = active & (offer >= best[aim]) & (offer > held[aim])
            winner = jax.ops.segment_min(jnp.where(wins, ids, n), slot, n + 1)[:n]
            accepted = winner < n
            dumped = jnp.where(accepted & (partner_r >= 0), partner_r, n)
            partner_p = partner_p.at[dumped].set(-1, mode="drop")
            partner_p = partner_p.at[jnp.where(accepted, winner, n)].set(ids, mode="drop")
            partner_r = jnp.where(accepted, winner, partner_r)
            return (rounds + 1, nxt + active, partner_p, partner_r,
                    proposals + jnp.sum(active, dtype=jnp.int32))

        free = jnp.full(n, -1, jnp.int32)
        start = (jnp.int32(0), jnp.zeros(n, jnp.int32), free, free, jnp.int32(0))
        rounds, _, partner_p, partner_r, proposals = lax.while_loop(unfinished, round_, start)
        own = jnp.where(partner_p >= 0, s[ids, jnp.maximum(partner_p, 0)], -jnp.inf)
        kept = jnp.where(partner_r >= 0, t[ids, jnp.maximum(partner_r, 0)], -jnp.inf)
        blocking = jnp.sum((s > own[:, None]) & (t.T > kept[None, :]))
        rank_p = jnp.sum(s > own[:, None], 1)
        rank_r = jnp.sum(t > kept[:, None], 1)
        histogram = jax.ops.segment_sum(jnp.ones(n, jnp.int32), jnp.minimum(rank_p // 16, 63), 64)
        return (partner_p, partner_r, rounds, proposals, blocking, jnp.mean(rank_p),
                jnp.mean(rank_r), histogram, jnp.sum(partner_p >= 0))

    rng = np.random.default_rng(14)
    f32 = lambda x: jnp.asarray(x, jnp.float32)
    return jax.jit(run).lower(*(f32(rng.standard_normal((n, traits))) for _ in range(4)),
                              f32(1.5 * rng.standard_normal(n)), f32(1.5 * rng.standard_normal(n)),
                              f32(rng.standard_normal((n, n))), f32(rng.standard_normal((n, n))))


def nls_split_step(fields: int = 16, samples: int = 4096, spans: int = 8, steps: int = 16,
                   channels: int = 3, slots: int = 32, window: float = 256.0) -> Any:
    """Pulse propagation in optical fibre by the split-step Fourier method for the
    nonlinear Schrodinger equation, no gradient: sixteen fibre configurations (their
    second- and third-order dispersion, Kerr coefficient and loss differing) each carry
    three wavelength channels of 32 on-off keyed sech pulses in a window of 4096
    complex samples. Eight amplified spans of sixteen steps each run in nested
    `fori_loop`s: a linear step in the frequency domain (an FFT, a product with the
    dispersion and loss operator, an inverse FFT) and a nonlinear phase rotation by the
    local power in time; after every span the energy, the peak power and the RMS
    spectral width are recorded and the loss is made up. The receiver compensates the
    accumulated dispersion, selects each channel by shifting its spectrum to baseband
    (`jnp.roll`) under a Gaussian filter, returns to time, integrates the energy of every
    bit slot, decides the bits by a threshold, and counts errors and the Q factor per
    channel."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dt = window / samples
    length = 1.0
    h = length / (spans * steps)
    omega = (2 * np.pi * np.fft.fftfreq(samples, dt)).astype(np.float32)
    d_omega = 2 * np.pi / window
    shifts = [int(round(c * 2.0 / d_omega)) for c in range(-(channels // 2), channels // 2 + 1)]
    slot = samples // slots

    def run(field, beta2, beta3, gamma, loss, bits):
        w = jnp.asarray(omega)
        dispersion = 0.5 * beta2[:, None] * w ** 2 + beta3[:, None] * w ** 3 / 6.0
        linear = jnp.exp(1j * dispersion * h - 0.5 * loss[:, None] * h).astype(jnp.complex64)

        def step_(_, a):
            a = jnp.fft.ifft(jnp.fft.fft(a, axis=-1) * linear, axis=-1)
            power = a.real ** 2 + a.imag ** 2
            return a * jnp.exp(1j * gamma[:, None] * h * power).astype(jnp.complex64)

        def span(k, carry):
            a, trace = carry
            a = lax.fori_loop(0, steps, step_, a)
            power = a.real ** 2 + a.imag ** 2
            spectrum = jnp.abs(jnp.fft.fft(a, axis=-1)) ** 2
            centre = jnp.sum(spectrum * w, -1) / jnp.sum(spectrum, -1)
            spread = jnp.sum(spectrum * (w - centre[:, None]) ** 2, -1)
            width = jnp.sqrt(spread / jnp.sum(spectrum, -1))
            stats = jnp.stack([jnp.sum(power, -1) * dt, jnp.max(power, -1), width], -1)
            a = a * jnp.exp(0.5 * loss[:, None] * length / spans).astype(jnp.complex64)
            return a, trace.at[k].set(stats)

        a, trace = lax.fori_loop(0, spans, span, (field, jnp.zeros((spans, fields, 3))))
        undo = jnp.exp(-1j * dispersion * length).astype(jnp.complex64)
        spectrum = jnp.fft.fft(a, axis=-1) * undo
        passband = jnp.exp(-0.5 * (w / (0.6 * 2.0)) ** 2)
        lanes = jnp.stack([jnp.roll(spectrum, -s, -1) * passband for s in shifts], 1)
        detected = jnp.abs(jnp.fft.ifft(lanes, axis=-1)) ** 2
        energy = detected.reshape(fields, channels, slots, slot)
        energy = energy[..., slot // 4:3 * slot // 4].sum(-1)
        threshold = 0.5 * jnp.max(energy, -1, keepdims=True)
        decided = energy > threshold
        errors = jnp.sum(decided != (bits > 0), -1)
        def moments(chosen):
            total = jnp.maximum(jnp.sum(chosen, -1), 1)
            mean = jnp.sum(energy * chosen, -1) / total
            return mean, jnp.sum((energy - mean[..., None]) ** 2 * chosen, -1) / total

        mean1, var1 = moments(bits > 0)
        mean0, var0 = moments(bits == 0)
        q = (mean1 - mean0) / (jnp.sqrt(var1) + jnp.sqrt(var0) + 1e-9)
        return a, trace, errors, q, energy

    rng = np.random.default_rng(15)
    t = (np.arange(samples) - samples / 2) * dt
    bits = rng.integers(0, 2, (fields, channels, slots)).astype(np.uint8)
    centres = (np.arange(slots) + 0.5) * slot * dt - window / 2
    field = np.zeros((fields, samples), np.complex64)
    for c, s in enumerate(shifts):
        carrier = np.exp(1j * s * d_omega * t)
        pulses = 1.0 / np.cosh((t[None, :] - centres[:, None]) / 0.8)
        field += (bits[:, c, :, None] * pulses[None]).sum(1) * carrier
    f32 = lambda x: jnp.asarray(x, jnp.float32)
    return jax.jit(run).lower(jnp.asarray(field), f32(-rng.uniform(0.5, 1.5, fields)),
                              f32(rng.uniform(-0.05, 0.05, fields)),
                              f32(rng.uniform(0.5, 1.5, fields)),
                              f32(rng.uniform(0.0, 0.2, fields)), jnp.asarray(bits))


def clahe_equalize(images: int = 4, height: int = 512, width: int = 768,
                   tiles: tuple[int, int] = (8, 8), clip: float = 2.5, bins: int = 256) -> Any:
    """Contrast-limited adaptive histogram equalization (CLAHE) of four hazy 512x768 RGB
    pictures in uint8, no gradient: the luma (integer weights and a shift) is split into
    8x8 tiles, each tile's 256-bin histogram built by one scatter-add over all pixels,
    clipped at 2.5 times the mean bin count with the excess spread evenly (the remainder
    to the lowest bins), and turned into a lookup table by its cumulative sum; every
    pixel then reads its value in the tables of the four nearest tile centres (four
    gathers from the flattened tables) and blends them bilinearly, and the colour is
    rescaled by the luma gain with rounding and saturation back to uint8. The global
    histograms before and after (scatter-adds), their entropies and the luma contrast come
    back with the tables."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    ty, tx = tiles
    th, tw = height // ty, width // tx
    limit = max(int(clip * th * tw / bins), 1)
    count = ty * tx

    def run(rgb):
        wide = rgb.astype(jnp.int32)
        luma = (77 * wide[..., 0] + 150 * wide[..., 1] + 29 * wide[..., 2] + 128) >> 8
        tile = (jnp.arange(height) // th)[:, None] * tx + (jnp.arange(width) // tw)[None, :]
        index = (jnp.arange(images)[:, None, None] * count + tile) * bins + luma
        hist = jnp.zeros(images * count * bins, jnp.int32).at[index.reshape(-1)].add(1)
        hist = hist.reshape(images, count, bins)
        excess = jnp.sum(jnp.maximum(hist - limit, 0), -1, keepdims=True)
        hist = (jnp.minimum(hist, limit) + excess // bins
                + (jnp.arange(bins) < excess % bins).astype(jnp.int32))
        cdf = jnp.cumsum(hist, -1)
        low = jnp.min(jnp.where(hist > 0, cdf, th * tw), -1, keepdims=True)
        lut = jnp.clip(jnp.round((cdf - low) * 255.0 / jnp.maximum(th * tw - low, 1)), 0, 255)
        flat = lut.reshape(-1)

        def neighbours(size, cells, n):
            f = (jnp.arange(size) + 0.5) / cells - 0.5
            first = jnp.clip(jnp.floor(f), 0, n - 1).astype(jnp.int32)
            return first, jnp.minimum(first + 1, n - 1), jnp.clip(f - first, 0.0, 1.0)

        y0, y1, wy = neighbours(height, th, ty)
        x0, x1, wx = neighbours(width, tw, tx)
        base = jnp.arange(images)[:, None, None] * (count * bins)

        def read(rows, cols):
            return flat[base + ((rows[:, None] * tx + cols[None, :]) * bins)[None] + luma]

        wx_, wy_ = wx[None, None, :], wy[None, :, None]
        top = read(y0, x0) * (1.0 - wx_) + read(y0, x1) * wx_
        bottom = read(y1, x0) * (1.0 - wx_) + read(y1, x1) * wx_
        out = top * (1.0 - wy_) + bottom * wy_
        gain = (out + 0.5) / (luma + 0.5)
        result = jnp.clip(jnp.round(wide * gain[..., None]), 0, 255).astype(jnp.uint8)
        owners = jnp.arange(images)[:, None, None] * bins

        def histogram(values):
            return jnp.zeros(images * bins, jnp.int32).at[(owners + values).reshape(-1)].add(1)\
                .reshape(images, bins)

        def entropy(h):
            q = h / jnp.sum(h, -1, keepdims=True)
            return -jnp.sum(jnp.where(q > 0, q * jnp.log2(jnp.maximum(q, 1e-12)), 0.0), -1)

        before = histogram(luma)
        after = histogram(jnp.round(out).astype(jnp.int32))
        contrast = jnp.stack([jnp.std(luma.astype(jnp.float32), (1, 2)), jnp.std(out, (1, 2))], -1)
        return result, lut.astype(jnp.uint8), before, after, entropy(before), entropy(after), \
            contrast

    rng = np.random.default_rng(16)
    scene = _smooth_images(rng, images, 256, 3, 10.0)
    scene = np.repeat(np.repeat(scene, height // 256, 1), width // 256, 2)
    yy, xx = np.mgrid[0:height, 0:width]
    light = (0.6 + 0.4 * np.sin(xx / width * np.pi) * (yy / height))[None, :, :, None]
    haze = 110.0 + 25.0 * np.tanh(scene) * light + 3.0 * rng.standard_normal(scene.shape)
    return jax.jit(run).lower(jnp.asarray(np.clip(np.round(haze), 0, 255).astype(np.uint8)))


def seir_contact_network(agents: int = 16384, days: int = 90, ages: int = 8,
                         beta: float = 0.25, latent: float = 3.0, infectious: float = 5.0) -> Any:
    """An agent-based epidemic on a synthetic contact network of 16384 people, no gradient:
    households (every pair of members), work and school groups (four contacts drawn per
    member within the group) and random community contacts give about 180 000 directed
    weighted edges of three settings. A `lax.scan` over 90 days draws four uniforms per
    agent by `jax.random` (the key folded with the day), sums every agent's infectious
    pressure over its incoming edges (a gather of the sources' infectiousness, weights
    cut per setting while a lockdown holds, a `segment_sum` onto the targets), infects
    susceptibles with probability 1 - exp(-beta s_age pressure), moves exposed agents to
    symptomatic or asymptomatic infection, infectious ones to recovery or, by an age-
    dependent fatality, death, and vaccinates older susceptibles from day 20; a lockdown
    starts when 2% are infectious and ends below 0.5%. The daily counts per state, the
    new infections per age group, the lockdown days, the peak day and the attack rate
    come back with the final states."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = agents
    susceptibility = np.asarray([0.4, 0.6, 0.8, 1.0, 1.0, 1.1, 1.2, 1.3], np.float32)
    fatality = np.asarray([1e-4, 1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.08], np.float32)
    cut = np.asarray([1.0, 0.3, 0.5], np.float32)

    def run(src, dst, weight, setting, age, seeded, key):
        s_age = jnp.asarray(susceptibility)[age]
        f_age = jnp.asarray(fatality)[age]
        older = age >= 5

        def day(carry, t):
            state, lockdown = carry
            u = jax.random.uniform(jax.random.fold_in(key, t), (n, 4))
            shedding = (state == 2).astype(jnp.float32) + 0.5 * (state == 3)
            scale = jnp.where(lockdown, jnp.asarray(cut), 1.0)[setting]
            pressure = jax.ops.segment_sum(shedding[src] * weight * scale, dst, num_segments=n)
            infected = (state == 0) & (u[:, 0] < 1.0 - jnp.exp(-beta * s_age * pressure))
            onset = (state == 1) & (u[:, 1] < 1.0 / latent)
            ill = (state == 2) | (state == 3)
            recover = ill & (u[:, 2] < 1.0 / infectious)
            die = recover & (state == 2) & (u[:, 3] < f_age)
            vaccinate = (state == 0) & ~infected & (t >= 20) & older & (u[:, 3] < 0.01)
            new = jnp.where(infected, 1, state)
            new = jnp.where(onset, jnp.where(u[:, 3] < 0.6, 2, 3), new)
            new = jnp.where(recover, jnp.where(die, 5, 4), new)
            new = jnp.where(vaccinate, 6, new)
            counts = jax.ops.segment_sum(jnp.ones(n, jnp.int32), new, num_segments=7)
            share = (counts[2] + counts[3]) / n
            lockdown = jnp.where(lockdown, share > 0.005, share > 0.02)
            by_age = jax.ops.segment_sum(infected.astype(jnp.int32), age, num_segments=ages)
            return (new, lockdown), (counts, by_age, lockdown)

        start = (jnp.where(seeded, 2, 0).astype(jnp.int32), jnp.bool_(False))
        (state, _), (counts, by_age, lockdowns) = lax.scan(day, start, jnp.arange(days))
        peak = jnp.argmax(counts[:, 2] + counts[:, 3])
        attack = jnp.sum(by_age) / n
        return state, counts, by_age, jnp.sum(lockdowns), peak, attack

    rng = np.random.default_rng(17)
    age = rng.choice(ages, n, p=[0.1, 0.12, 0.14, 0.14, 0.14, 0.13, 0.13, 0.1])
    sizes = rng.choice(np.arange(1, 7), n, p=[0.28, 0.34, 0.16, 0.14, 0.05, 0.03])
    household = np.repeat(np.arange(n), sizes)[:n]
    edges = []
    for d in range(1, 6):
        same = np.flatnonzero(household[:-d] == household[d:])
        edges.append((same, same + d, 0))
        edges.append((same + d, same, 0))
    workers = rng.permutation(np.flatnonzero((age >= 1) & (age <= 5)))
    group = np.arange(len(workers)) // 15
    first = np.searchsorted(group, group)
    size = np.bincount(group)[group]
    for _ in range(4):
        partner = workers[first + rng.integers(0, size)]
        keep = partner != workers
        edges.append((workers[keep], partner[keep], 1))
        edges.append((partner[keep], workers[keep], 1))
    for _ in range(2):
        other = rng.integers(0, n, n)
        keep = other != np.arange(n)
        edges.append((np.arange(n)[keep], other[keep], 2))
        edges.append((other[keep], np.arange(n)[keep], 2))
    src = np.concatenate([e[0] for e in edges])
    dst = np.concatenate([e[1] for e in edges])
    setting = np.concatenate([np.full(len(e[0]), e[2]) for e in edges])
    weight = np.asarray([1.0, 0.4, 0.15], np.float32)[setting]
    seeded = np.zeros(n, bool)
    seeded[rng.choice(n, 20, replace=False)] = True
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return jax.jit(run).lower(i32(src), i32(dst), jnp.asarray(weight), i32(setting), i32(age),
                              jnp.asarray(seeded), jax.random.PRNGKey(17))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "roi_align_rcnn/2x160px-2x96-rois-32-64-128": roi_align_rcnn,
    "wav2vec2_pretrain/4x16000-samples-d128-l3-bf16": wav2vec2_pretrain,
    "cyclegan_translation/2+2x48px-16-64-r3-bf16": cyclegan_translation,
    "nystromformer_classifier/2x1024-d64-m32-l2": nystromformer_classifier,
    "condconv_classifier/8x32px-16-32-64-e4": condconv_classifier,
    "xdeepfm_ctr/512x24-fields-cin3x32": xdeepfm_ctr,
    "rgcn_entities/6000-nodes-40000-triples-b6": rgcn_entities,
    "deepar_forecaster/64x72+24-h40": deepar_forecaster,
    "charformer_gbst/8x480-bytes-d96-l3-bf16": charformer_gbst,
    "qmix_agents/16x40-steps-5-agents": qmix_agents,
    "ofdm_link/64x14x1024-16qam": ofdm_link,
    "gale_shapley_matching/1024x1024-max600": gale_shapley_matching,
    "nls_split_step/16x4096-8x16-steps": nls_split_step,
    "clahe_equalize/4x512x768-8x8-tiles": clahe_equalize,
    "seir_contact_network/16384-agents-90-days": seir_contact_network,
}
