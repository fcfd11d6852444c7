"""The nineteenth never-seen set: programs written on 2026-11-28, after the eighteenth set
(benchmarks/never_seen_18/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-19` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
eighteen never-seen sets has; as in the sets before it, a few training steps are large (a
few gigaflops each) and the rest mid-sized, and two of them upsample by transposed
convolutions, one in two dimensions and one in one. Ten are training steps (forward,
loss, backward and an optimizer update). PointPillars detects cars in LiDAR sweeps: the
points, grouped into pillars on the host, are decorated with their offsets from their
pillar's mean and centre, encoded by one shared linear layer with batch norm and
max-pooled, scattered into a bird's-eye canvas, and a three-stage strided backbone, its
maps brought back to one resolution by transposed convolutions, feeds an anchor head
under a focal loss, smooth-L1 box residuals (the yaw by the sine of its difference) and
a direction term. A Pairformer trunk in bfloat16 learns the distogram of protein-like
chains through gated triangle multiplicative updates over outgoing and incoming edges
(einsums over the third residue), triangle self-attention around the starting and the
ending node biased by the pair entries between the keys, pair and single transitions and
single attention biased by the pair representation. DeBERTa in bfloat16 is pretrained as
a masked language model with disentangled attention, its content-to-position and
position-to-content terms gathered by `take_along_axis` from products with a shared
table of relative-position embeddings, and an enhanced mask decoder that queries only
the masked positions, absolute positions added. BiDAF answers questions about passages:
character CNNs and word vectors through a highway network, bidirectional LSTMs whose two
directions share one `lax.scan`, the attention flow layer (context-to-query and
query-to-context attention from a trilinear similarity) and start and end pointers.
LightGCN ranks items for users by propagating their embeddings three times over the
normalized interaction graph (gathers and `segment_sum`) under a BPR loss. Graves's
handwriting synthesis predicts pen offsets through an LSTM and a soft Gaussian window
over the text in one `lax.scan`, a second LSTM and a mixture density output of
correlated bivariate Gaussians with an end-of-stroke bit. A causal Demucs denoises speech
in the waveform domain: strided 1-D convolutions with GLUs, a two-layer LSTM bottleneck
in a `lax.scan`, 1-D transposed convolutions with skips, and a multi-resolution STFT loss
over gathered frames and `rfft`. An implicit quantile network (IQN) learns return
distributions from a replay batch, its quantile fractions drawn by `jax.random` and
embedded by cosines, under a quantile Huber loss over all pairs of online and double-Q
target samples. FastSpeech 2 in bfloat16 turns phonemes into mel spectrograms through
feed-forward transformer blocks with convolutional feed-forward layers, duration, pitch
and energy predictors, and a length regulator that gathers every phoneme for its
duration. An x-vector network embeds speakers by dilated time-delay layers and
statistics pooling under an additive angular margin softmax. Five are inference or
scientific steps without a gradient: sweep-and-prune broad-phase collision detection for
131 072 boxes along a corridor (a three-operand `lax.sort` along the axis of largest
spread, chosen at run time, overlap tests against the next 16 boxes by gathers, pair
counts scattered back, a second three-operand `lax.sort` on two keys into uniform-grid
cells with their occupancy by `segment_sum`, and a stable `argsort` of the pair counts);
finite elements for a plane-stress plate with holes (about 12 000 linear triangles whose
stiffness comes from their gathered corners, 120 Jacobi-preconditioned conjugate-gradient
iterations in a `fori_loop`, every product gathering the element unknowns, applying the
element matrices and scatter-adding by `segment_sum`, then von Mises stresses and the
reactions at the clamp); total-variation denoising of two 192x192 images by the
accelerated primal-dual algorithm of Chambolle and Pock, rounds of ten iterations in a
`while_loop` that stops once every image's primal-dual gap falls below 5e-4 of its
energy (capped at 30 rounds); a gravitational-wave search by matched filtering (noise
spectra by Welch's method over framed `rfft`s, 32 chirp templates against four 16 s
segments, 128 complex `ifft`s of 32768 points giving SNR series, their peaks, the best
template and its chirp mass); and background subtraction for a 24-frame uint8 video by a
per-pixel mixture of three Gaussians updated in a `fori_loop`, a memory-bound chain of
elementwise maps with no matrix product or convolution (matching, updates, replacement,
a compare-exchange sort of the components by `jnp.where`, a 3x3 opening by shifted
slices). The updates are new to these sets, two of them as variants or combinations of
earlier ones: Ranger (rectified Adam on centralized gradients inside Lookahead), AdamS
(decoupled weight decay divided by the root of the mean second moment), AngularGrad
(Adam's step damped per coordinate by the angle between consecutive gradients),
AdaMomentum (a second moment of the momentum rather than of the gradient), STORM
(momentum-based variance reduction, a second gradient at the previous weights on the
same batch, a step size from the summed squared gradient norms), adaptive
sharpness-aware minimization (ASAM, the ascent scaled per weight by |w| + 0.01, over
momentum SGD), NosAdam (a hyperharmonic second-moment average that weighs the past
more), AdaInject (the last step's weight change times the squared gradient injected
into the first moment), MGDA-UB over Adam (four task losses weighed by the min-norm
combination, found by Frank-Wolfe, of their gradients with respect to the encoder
output) and averaged SGD (a decaying rate and a running average of the iterates); three
training steps (the Pairformer, DeBERTa and FastSpeech) run in bfloat16.
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

    def moments(m: Any, v: Any, g: Any, b1: float, b2: float) -> tuple[Any, Any]:
        return (tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g),
                tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g))

    if name == "ranger":
        # Ranger (Wright): rectified Adam (Liu et al.), whose adaptive step only starts
        # once the variance of the adaptive rate is tractable (rho_t above 5, plain
        # momentum steps before it), on gradients centralized per tensor (the mean over
        # every axis but the last taken out of tensors of two or more axes), inside
        # Lookahead (Zhang, Lucas, Hinton and Ba): every sixth step the slow weights move
        # half way towards the fast ones and the fast weights restart from them
        rate, b1, b2, sync, alpha = 1e-3, 0.95, 0.999, 6, 0.5
        rho_inf = 2.0 / (1.0 - b2) - 1.0

        def centred(g):
            g = g.astype(f32)
            return g - jnp.mean(g, tuple(range(g.ndim - 1)), keepdims=True) if g.ndim > 1 else g

        def ranger_init(params):
            return zeros(params), zeros(params), wide(params), count()

        def ranger(params, grads, state, loss):
            m, v, slow, t = state
            t = t + 1
            n = t.astype(f32)
            m, v = moments(m, v, tm(centred, grads), b1, b2)
            rho = rho_inf - 2.0 * n * b2 ** n / (1.0 - b2 ** n)
            rectifier = jnp.sqrt(jnp.maximum((rho - 4.0) * (rho - 2.0) * rho_inf, 0.0)
                                 / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho))

            def one(p, m_, v_):
                mean = m_ / (1.0 - b1 ** n)
                adaptive = rectifier * mean / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-5)
                return p.astype(f32) - rate * jnp.where(rho > 5.0, adaptive, mean)

            fast = tm(one, params, m, v)
            syncing = t % sync == 0
            slow = tm(lambda s, f: jnp.where(syncing, s + alpha * (f - s), s), slow, fast)
            fast = tm(lambda s, f: jnp.where(syncing, s, f), slow, fast)
            return recast(params, fast), (m, v, slow, t)
        return ranger_init, ranger

    if name == "adams":
        # Adam with stable weight decay (AdamS; Xie, Xu, Zhang, Sato and Sugiyama): the
        # decoupled weight decay is divided by the square root of the mean bias-corrected
        # second moment over all parameters, so decay and gradient step keep their ratio
        # while the gradients shrink
        rate, b1, b2, decay = 1e-3, 0.9, 0.999, 5e-4

        def adams(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            m, v = moments(m, v, wide(grads), b1, b2)
            leaves = jax.tree.leaves(v)
            size = sum(leaf.size for leaf in leaves)
            mean_v = sum(jnp.sum(leaf) for leaf in leaves) / size / (1.0 - b2 ** n)
            shrink = decay / (jnp.sqrt(mean_v) + 1e-8)
            moved = tm(lambda p, m_, v_: p.astype(f32) * (1.0 - rate * shrink)
                       - rate * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8),
                       params, m, v)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), adams

    if name == "angulargrad":
        # AngularGrad, cosine form (Roy et al.): the angle between consecutive gradients
        # of every coordinate (arctan of their difference over one plus their product)
        # is tracked as a running minimum, and Adam's step is scaled per coordinate by
        # 0.5 tanh|cos(angle)| + 0.5, damping coordinates whose gradient swings
        rate, b1, b2 = 1e-3, 0.9, 0.999

        def angular_init(params):
            return zeros(params), zeros(params), zeros(params), zeros(params), count()

        def angular(params, grads, state, loss):
            m, v, previous, least, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            angle = tm(lambda g_, q: jnp.abs(jnp.arctan((q - g_) / (1.0 + q * g_ + 1e-12))),
                       g, previous)
            least = tm(lambda a, l: jnp.where(t == 1, a, jnp.minimum(a, l)), angle, least)
            m, v = moments(m, v, g, b1, b2)
            moved = tm(lambda p, m_, v_, l: p.astype(f32) - rate
                       * (0.5 * jnp.tanh(jnp.abs(jnp.cos(l))) + 0.5)
                       * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8),
                       params, m, v, least)
            return recast(params, moved), (m, v, g, least, t)
        return angular_init, angular

    if name == "adamomentum":
        # AdaMomentum (Wang, Zou, Xiang and Xu): the second moment averages the square of
        # the momentum rather than of the raw gradient (with eps added inside it), and
        # the step is the bias-corrected momentum over its root
        rate, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-8

        def adamomentum(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g: b1 * m_ + (1.0 - b1) * g.astype(f32), m, grads)
            v = tm(lambda v_, m_: b2 * v_ + (1.0 - b2) * m_ * m_ + eps, v, m)
            moved = tm(lambda p, m_, v_: p.astype(f32)
                       - rate * (m_ / (1.0 - b1 ** n)) / jnp.sqrt(v_ / (1.0 - b2 ** n)),
                       params, m, v)
            return recast(params, moved), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), adamomentum

    if name == "nosadam":
        # NosAdam, hyperharmonic form (Huang, Wang and Dong): the second-moment average
        # weights step k by k^-0.1, so beta2_t = B_(t-1) / B_t with B_t the running sum of
        # those weights and old gradients count more than under Adam's fixed beta2; the
        # momentum is not bias-corrected and the rate decays as 1 / sqrt(t)
        rate, b1, gamma = 1e-3, 0.9, 0.1

        def nosadam_init(params):
            return zeros(params), zeros(params), jnp.zeros((), f32), count()

        def nosadam(params, grads, state, loss):
            m, v, total, t = state
            t = t + 1
            n = t.astype(f32)
            grown = total + n ** -gamma
            b2 = total / grown
            g = wide(grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32) - rate / jnp.sqrt(n) * m_
                       / (jnp.sqrt(v_) + 1e-8), params, m, v)
            return recast(params, moved), (m, v, grown, t)
        return nosadam_init, nosadam

    if name == "adainject":
        # AdaInject on Adam (Dubey, Basha, Singh and Chaudhuri): second-order information
        # is injected into the first moment, which averages g + dtheta g^2 / 2 with dtheta
        # the last step's change of the weight; the second moment and the bias-corrected
        # step are Adam's
        rate, b1, b2, k = 1e-3, 0.9, 0.999, 2.0

        def adainject_init(params):
            return zeros(params), zeros(params), zeros(params), count()

        def adainject(params, grads, state, loss):
            m, v, change, t = state
            t = t + 1
            n = t.astype(f32)
            g = wide(grads)
            m = tm(lambda m_, g_, d: b1 * m_ + (1.0 - b1) * (g_ + d * g_ * g_ / k), m, g, change)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)
            moved = tm(lambda p, m_, v_: p.astype(f32)
                       - rate * (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-8),
                       params, m, v)
            change = tm(lambda p, q: p.astype(f32) - q, params, moved)
            return recast(params, moved), (m, v, change, t)
        return adainject_init, adainject

    if name == "asgd":
        # averaged SGD (Polyak and Juditsky; the form of torch.optim.ASGD): plain SGD with
        # weight decay whose rate decays as lr / (1 + lambda lr t)^0.75, the weights also
        # shrunk by 1 - lambda eta, and a running average of the weights that is a copy
        # until step 2000 and a uniform average of the iterates after it
        rate, lambd, power, t0, decay = 0.05, 1e-4, 0.75, 2000, 5e-4

        def asgd_init(params):
            return zeros(params), count()

        def asgd(params, grads, state, loss):
            average, t = state
            n = t.astype(f32)
            eta = rate / (1.0 + lambd * rate * n) ** power
            mu = 1.0 / jnp.maximum(1.0, n - t0)
            moved = tm(lambda p, g: p.astype(f32) * (1.0 - lambd * eta)
                       - eta * (g.astype(f32) + decay * p.astype(f32)), params, grads)
            average = tm(lambda a, w: a + mu * (w - a), average, moved)
            return recast(params, moved), (average, t + 1)
        return asgd_init, asgd

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
    """Normalization by the batch's own statistics over every axis but the last."""
    return _layer_norm(x, gain, shift, tuple(range(x.ndim - 1)))


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


def _conv1d(x: Any, w: Any, stride: int = 1, padding: Any = "VALID", dilation: int = 1) -> Any:
    """A 1-D NWC convolution."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride,), padding, rhs_dilation=(dilation,),
                                    dimension_numbers=_NWC)


def _lstm(gates: Any, c: Any) -> tuple[Any, Any]:
    """One LSTM cell from its summed gate inputs (i, f, g, o; the forget gate biased
    by one): the new hidden state and cell."""
    import jax
    import jax.numpy as jnp

    i, f, g, o = jnp.split(gates, 4, -1)
    c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    return jax.nn.sigmoid(o) * jnp.tanh(c), c


def _smooth_rows(rng: Any, rows: int, width: int) -> Any:
    """numpy: `rows` smooth random profiles of `width` values (cumulated noise, smoothed
    by a moving average and standardized), float32."""
    import numpy as np

    walk = np.cumsum(rng.standard_normal((rows, width + 8)), 1)
    kernel = np.ones(9) / 9.0
    smooth = np.stack([np.convolve(r, kernel, mode="valid") for r in walk])
    smooth = (smooth - smooth.mean(1, keepdims=True)) / (smooth.std(1, keepdims=True) + 1e-6)
    return smooth.astype(np.float32)


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


def pointpillars_detector(scenes: int = 2, grid: int = 128, cell: float = 0.4,
                          pillars: int = 2048, per_pillar: int = 10, features: int = 32,
                          widths: tuple[int, ...] = (32, 64, 128), repeats: int = 2,
                          upsampled: int = 64) -> Any:
    """Car detection in LiDAR sweeps by PointPillars (Lang et al.): the points of a
    51.2 m square in front of the sensor are grouped on the host into at most 2048
    pillars of 0.4 m (up to 10 points each), and the network decorates every point with
    its offsets from its pillar's point mean and from the pillar's centre, runs a
    linear layer with batch norm and ReLU and max-pools over the pillar's points; the
    pillar features are scattered into a 128x128 bird's-eye canvas. A backbone of three
    blocks (a stride-2 3x3 convolution and two more, 32, 64 and 128 channels, batch norm
    and ReLU) gives maps of 64x64, 32x32 and 16x16, which transposed convolutions
    (1x1 of stride 1, 2x2 of stride 2 and 4x4 of stride 4) bring back to 64x64 and
    concatenate. A 1x1 head scores two anchors per cell (yaw 0 and 90 degrees): a
    sigmoid focal loss over the anchors that are not ignored, a smooth-L1 loss on the
    seven box residuals of the positives (the yaw by the sine of its difference) and a
    direction cross-entropy, anchors assigned on the host by bird's-eye IoU. The
    scenes are a noisy ground plane, 5 to 10 cars sampled on their box surfaces, poles
    and walls. Ranger."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    anchors, outputs = 2, 10
    out_side = grid // 2
    x_min, y_min = 0.0, -grid * cell / 2
    shapes: dict[str, tuple[int, ...]] = {"pfn": (9, features), "pfn_g": (features,),
                                          "pfn_b": (features,)}
    cin = features
    for s, c in enumerate(widths):
        for r in range(repeats + 1):
            shapes.update({f"b{s}c{r}": (3, 3, cin, c), f"b{s}c{r}_g": (c,),
                           f"b{s}c{r}_b": (c,)})
            cin = c
        k = 2 ** s
        shapes.update({f"up{s}": (k, k, c, upsampled), f"up{s}_g": (upsampled,),
                       f"up{s}_b": (upsampled,)})
    shapes.update({"head": (1, 1, len(widths) * upsampled, anchors * outputs),
                   "head_b": (anchors * outputs,)})
    p = _params(shapes, seed=1)
    prior = np.zeros((anchors, outputs), np.float32)
    prior[:, 0] = -math.log(99.0)
    p["head_b"] = jnp.asarray(prior.reshape(-1))

    def forward(p, points, mask, coords, valid):
        b = points.shape[0]
        xyz = points[..., :3]
        filled = jnp.maximum(mask.sum(-1, keepdims=True), 1.0)
        mean = (xyz * mask[..., None]).sum(2, keepdims=True) / filled[..., None]
        cx = x_min + (coords[..., 1].astype(f32) + 0.5) * cell
        cy = y_min + (coords[..., 0].astype(f32) + 0.5) * cell
        offsets = jnp.stack([points[..., 0] - cx[..., None], points[..., 1] - cy[..., None]], -1)
        decorated = jnp.concatenate([points, xyz - mean, offsets], -1)
        h = jax.nn.relu(_batch_norm(decorated @ p["pfn"], p["pfn_g"], p["pfn_b"]))
        h = jnp.max(h * mask[..., None], 2)
        flat = jnp.where(valid, coords[..., 0] * grid + coords[..., 1], grid * grid)
        canvas = jnp.zeros((b, grid * grid, features), f32).at[
            jnp.arange(b)[:, None], flat].set(h, mode="drop")
        x = canvas.reshape(b, grid, grid, features)
        merged = []
        for s in range(len(widths)):
            for r in range(repeats + 1):
                k = f"b{s}c{r}"
                x = jax.nn.relu(_batch_norm(_conv(x, p[k], 2 if r == 0 else 1), p[f"{k}_g"],
                                            p[f"{k}_b"]))
            k = 2 ** s
            y = lax.conv_transpose(x, p[f"up{s}"], (k, k), "VALID", dimension_numbers=_NHWC)
            merged.append(jax.nn.relu(_batch_norm(y, p[f"up{s}_g"], p[f"up{s}_b"])))
        out = _conv(jnp.concatenate(merged, -1), p["head"]) + p["head_b"]
        return out.reshape(b, out_side, out_side, anchors, outputs)

    def smooth_l1(d, beta=1.0 / 9.0):
        a = jnp.abs(d)
        return jnp.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)

    def loss_fn(p, points, mask, coords, valid, labels, boxes, directions):
        out = forward(p, points, mask, coords, valid)
        logit, box, direction = out[..., 0], out[..., 1:8], out[..., 8:]
        positive = (labels == 1).astype(f32)
        care = (labels >= 0).astype(f32)
        count = jnp.maximum(positive.sum(), 1.0)
        prob = jax.nn.sigmoid(logit)
        ce = positive * jax.nn.softplus(-logit) + (1.0 - positive) * jax.nn.softplus(logit)
        pt = jnp.where(labels == 1, prob, 1.0 - prob)
        alpha = jnp.where(labels == 1, 0.25, 0.75)
        focal = jnp.sum(alpha * jnp.square(1.0 - pt) * ce * care) / count
        yaw_p, yaw_t = box[..., 6], boxes[..., 6]
        box = box.at[..., 6].set(jnp.sin(yaw_p) * jnp.cos(yaw_t))
        target = boxes.at[..., 6].set(jnp.cos(yaw_p) * jnp.sin(yaw_t))
        regression = jnp.sum(smooth_l1(box - target).sum(-1) * positive) / count
        heading = -jnp.take_along_axis(jax.nn.log_softmax(direction, -1),
                                       directions[..., None], -1)[..., 0]
        return focal + 2.0 * regression + 0.2 * jnp.sum(heading * positive) / count

    rng = np.random.default_rng(1)
    side = grid * cell
    size_a = np.asarray([3.9, 1.6, 1.56])
    z_a = -1.0
    points = np.zeros((scenes, pillars, per_pillar, 4), np.float32)
    mask = np.zeros((scenes, pillars, per_pillar), np.float32)
    coords = np.zeros((scenes, pillars, 2), np.int64)
    valid = np.zeros((scenes, pillars), bool)
    labels = np.zeros((scenes, out_side, out_side, anchors), np.int64)
    targets = np.zeros((scenes, out_side, out_side, anchors, 7), np.float32)
    directions = np.zeros((scenes, out_side, out_side, anchors), np.int64)
    step = side / out_side
    ay, ax = np.meshgrid(y_min + (np.arange(out_side) + 0.5) * step,
                         x_min + (np.arange(out_side) + 0.5) * step, indexing="ij")
    anchor_yaw = np.asarray([0.0, math.pi / 2])
    anchor_dx = np.asarray([size_a[0], size_a[1]])
    anchor_dy = np.asarray([size_a[1], size_a[0]])
    for s in range(scenes):
        cloud = []
        ground = rng.uniform((x_min, y_min), (x_min + side, y_min + side), (2500, 2))
        cloud.append(np.column_stack([ground, -1.7 + 0.03 * rng.standard_normal(2500),
                                      rng.uniform(0.1, 0.3, 2500)]))
        cars = []
        for _ in range(rng.integers(5, 11)):
            l = 3.9 + 0.3 * rng.standard_normal()
            w = 1.6 + 0.1 * rng.standard_normal()
            h = 1.5 + 0.1 * rng.standard_normal()
            x, y = rng.uniform(x_min + 3, x_min + side - 3), rng.uniform(y_min + 3, -y_min - 3)
            yaw = rng.uniform(0.0, 2 * math.pi)
            cars.append((x, y, -1.7 + h / 2, l, w, h, yaw))
            n = int(rng.integers(150, 400))
            local = rng.uniform(-0.5, 0.5, (n, 3))
            face = rng.integers(0, 3, n)
            local[np.arange(n), face] = np.sign(local[np.arange(n), face]) * 0.5
            local *= (l, w, h)
            c, sn = math.cos(yaw), math.sin(yaw)
            world = np.column_stack([x + c * local[:, 0] - sn * local[:, 1],
                                     y + sn * local[:, 0] + c * local[:, 1],
                                     -1.7 + h / 2 + local[:, 2]])
            cloud.append(np.column_stack([world, rng.uniform(0.4, 0.8, n)]))
        for _ in range(8):
            x, y = rng.uniform(x_min, x_min + side), rng.uniform(y_min, -y_min)
            z = rng.uniform(-1.7, 1.5, 60)
            cloud.append(np.column_stack([x + 0.05 * rng.standard_normal(60),
                                          y + 0.05 * rng.standard_normal(60), z,
                                          np.full(60, 0.6)]))
        for _ in range(2):
            (x0, y0), (x1, y1) = rng.uniform((x_min, y_min), (x_min + side, -y_min), (2, 2))
            t = rng.uniform(0, 1, 300)
            cloud.append(np.column_stack([x0 + t * (x1 - x0), y0 + t * (y1 - y0),
                                          rng.uniform(-1.7, 1.0, 300), np.full(300, 0.3)]))
        cloud = np.concatenate(cloud)
        ix = np.floor((cloud[:, 0] - x_min) / cell).astype(np.int64)
        iy = np.floor((cloud[:, 1] - y_min) / cell).astype(np.int64)
        inside = (ix >= 0) & (ix < grid) & (iy >= 0) & (iy < grid)
        cloud, pid = cloud[inside], (iy * grid + ix)[inside]
        unique, inverse = np.unique(pid, return_inverse=True)
        keep = np.arange(len(unique))
        if len(unique) > pillars:
            keep = np.sort(rng.choice(len(unique), pillars, replace=False))
        slot = -np.ones(len(unique), np.int64)
        slot[keep] = np.arange(len(keep))
        order = np.argsort(inverse, kind="stable")
        ranked = inverse[order]
        rank = np.arange(len(order)) - np.searchsorted(ranked, ranked)
        target_slot = slot[ranked]
        ok = (target_slot >= 0) & (rank < per_pillar)
        points[s, target_slot[ok], rank[ok]] = cloud[order[ok]]
        mask[s, target_slot[ok], rank[ok]] = 1.0
        coords[s, :len(keep)] = np.stack([unique[keep] // grid, unique[keep] % grid], -1)
        valid[s, :len(keep)] = True
        gt = np.asarray(cars)
        swap = np.abs(np.sin(gt[:, 6])) > math.sqrt(0.5)
        gdx = np.where(swap, gt[:, 4], gt[:, 3])
        gdy = np.where(swap, gt[:, 3], gt[:, 4])

        def overlap(c_a, d_a, c_g, d_g):
            return np.clip(np.minimum(c_a[..., None] + d_a / 2, c_g + d_g / 2)
                           - np.maximum(c_a[..., None] - d_a / 2, c_g - d_g / 2), 0, None)

        ious = []
        for a in range(anchors):
            inter = (overlap(ax, anchor_dx[a], gt[:, 0], gdx)
                     * overlap(ay, anchor_dy[a], gt[:, 1], gdy))
            ious.append(inter / (anchor_dx[a] * anchor_dy[a] + gdx * gdy - inter))
        iou = np.stack(ious, 2)                          # (cells, cells, anchors, cars)
        for g in range(len(gt)):                         # every car's best anchor is positive
            i, j, a = np.unravel_index(np.argmax(iou[..., g]), iou.shape[:3])
            iou[i, j, a, g] = 2.0
        best, top = iou.argmax(-1), iou.max(-1)
        labels[s] = np.where(top >= 0.6, 1, np.where(top < 0.45, 0, -1))
        g = gt[best]
        diagonal = math.hypot(size_a[0], size_a[1])
        targets[s] = np.stack([(g[..., 0] - ax[..., None]) / diagonal,
                               (g[..., 1] - ay[..., None]) / diagonal,
                               (g[..., 2] - z_a) / size_a[2], np.log(g[..., 3] / size_a[0]),
                               np.log(g[..., 4] / size_a[1]), np.log(g[..., 5] / size_a[2]),
                               g[..., 6] - anchor_yaw], -1)
        directions[s] = (np.mod(g[..., 6], 2 * math.pi) > math.pi).astype(np.int64)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("ranger", loss_fn, p, jnp.asarray(points), jnp.asarray(mask), i32(coords),
                  jnp.asarray(valid), i32(labels), jnp.asarray(targets), i32(directions))


def pairformer_distogram(chains: int = 2, length: int = 48, single: int = 64, pair: int = 32,
                         heads: int = 4, blocks: int = 2, bins: int = 36, offsets: int = 32,
                         aminos: int = 20) -> Any:
    """A protein structure trunk of the Pairformer kind (AlphaFold 3; the triangle updates
    of AlphaFold 2's Evoformer) in bfloat16, trained to predict the distogram of 48-residue
    chains: residue types embedded into a single representation and, by outer sums and
    clipped relative positions, into a pair representation of 48x48x32; two blocks each
    apply gated triangle multiplicative updates over outgoing and incoming edges (an
    einsum over the third residue), gated triangle self-attention around the starting
    and the ending node (every row of the pair grid attends along itself, biased by a
    projection of the pair entries between the two keys), a pair transition, single
    attention with a pair bias and a single transition, all pre-norm. The symmetrized
    pair representation gives logits over 36 distance bins (2 to 22 Angstrom), a
    cross-entropy off the diagonal. The chains are persistent random walks of 3.8
    Angstrom steps, their residue types biased by how buried each residue is. AdamS."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = pair // heads
    shapes: dict[str, tuple[int, ...]] = {"aa": (aminos, single), "left": (single, pair),
                                          "right": (single, pair),
                                          "relpos": (2 * offsets + 1, pair)}
    for b in range(blocks):
        for d in ("out", "in"):
            k = f"{b}{d}"
            shapes.update({f"{k}_n_g": (pair,), f"{k}_n_b": (pair,), f"{k}_left": (pair, pair),
                           f"{k}_left_gate": (pair, pair), f"{k}_right": (pair, pair),
                           f"{k}_right_gate": (pair, pair), f"{k}_gate": (pair, pair),
                           f"{k}_on_g": (pair,), f"{k}_on_b": (pair,), f"{k}_o": (pair, pair)})
        for d in ("start", "end"):
            k = f"{b}{d}"
            shapes.update({f"{k}_n_g": (pair,), f"{k}_n_b": (pair,), f"{k}_qkvg": (pair, 4 * pair),
                           f"{k}_bias": (pair, heads), f"{k}_o": (pair, pair)})
        shapes.update({f"{b}pt_n_g": (pair,), f"{b}pt_n_b": (pair,), f"{b}pt1": (pair, 4 * pair),
                       f"{b}pt2": (4 * pair, pair),
                       f"{b}sa_n_g": (single,), f"{b}sa_n_b": (single,),
                       f"{b}sa_qkvg": (single, 4 * single), f"{b}sa_zn_g": (pair,),
                       f"{b}sa_zn_b": (pair,), f"{b}sa_bias": (pair, heads),
                       f"{b}sa_o": (single, single), f"{b}st_n_g": (single,),
                       f"{b}st_n_b": (single,), f"{b}st1": (single, 4 * single),
                       f"{b}st2": (4 * single, single)})
    shapes.update({"dist_n_g": (pair,), "dist_n_b": (pair,), "dist": (pair, bins),
                   "dist_b": (bins,)})
    p = _params(shapes, seed=2, dtype=bf16)

    def ln(p, k, x):
        return _layer_norm(x, p[f"{k}_g"], p[f"{k}_b"])

    def triangle_multiply(p, k, z, outgoing):
        zn = ln(p, f"{k}_n", z)
        a = jax.nn.sigmoid(zn @ p[f"{k}_left_gate"]) * (zn @ p[f"{k}_left"])
        b = jax.nn.sigmoid(zn @ p[f"{k}_right_gate"]) * (zn @ p[f"{k}_right"])
        if outgoing:
            x = jnp.einsum("bikc,bjkc->bijc", a, b)
        else:
            x = jnp.einsum("bkic,bkjc->bijc", a, b)
        return jax.nn.sigmoid(zn @ p[f"{k}_gate"]) * (ln(p, f"{k}_on", x) @ p[f"{k}_o"])

    def triangle_attention(p, k, z, ending):
        if ending:
            z = jnp.swapaxes(z, 1, 2)
        zn = ln(p, f"{k}_n", z)
        b, n = z.shape[:2]
        q, kk, v, g = jnp.split((zn @ p[f"{k}_qkvg"]).reshape(b, n, n, 4 * heads, dh), 4, 3)
        bias = jnp.transpose(zn @ p[f"{k}_bias"], (0, 3, 1, 2))          # b, h, j, k
        logits = jnp.einsum("bijhd,bikhd->bihjk", q, kk).astype(f32) / math.sqrt(dh)
        weights = jax.nn.softmax(logits + bias[:, None].astype(f32), -1).astype(bf16)
        out = jnp.einsum("bihjk,bikhd->bijhd", weights, v) * jax.nn.sigmoid(g)
        out = out.reshape(b, n, n, pair) @ p[f"{k}_o"]
        return jnp.swapaxes(out, 1, 2) if ending else out

    def single_attention(p, k, s, z):
        b, n = s.shape[:2]
        d = single // heads
        q, kk, v, g = jnp.split((ln(p, f"{k}_n", s) @ p[f"{k}_qkvg"]).reshape(b, n, 4 * heads, d),
                                4, 2)
        bias = jnp.transpose(ln(p, f"{k}_zn", z) @ p[f"{k}_bias"], (0, 3, 1, 2))
        logits = jnp.einsum("bihd,bjhd->bhij", q, kk).astype(f32) / math.sqrt(d)
        weights = jax.nn.softmax(logits + bias.astype(f32), -1).astype(bf16)
        out = jnp.einsum("bhij,bjhd->bihd", weights, v) * jax.nn.sigmoid(g)
        return out.reshape(b, n, single) @ p[f"{k}_o"]

    def transition(p, k, x):
        return jax.nn.relu(ln(p, f"{k}_n", x) @ p[f"{k}1"]) @ p[f"{k}2"]

    def loss_fn(p, residues, relative, bins_, off_diagonal):
        s = p["aa"][residues]
        z = (s @ p["left"])[:, :, None] + (s @ p["right"])[:, None, :] + p["relpos"][relative]
        for b in range(blocks):
            z = z + triangle_multiply(p, f"{b}out", z, True)
            z = z + triangle_multiply(p, f"{b}in", z, False)
            z = z + triangle_attention(p, f"{b}start", z, False)
            z = z + triangle_attention(p, f"{b}end", z, True)
            z = z + transition(p, f"{b}pt", z)
            s = s + single_attention(p, f"{b}sa", s, z)
            s = s + transition(p, f"{b}st", s)
        z = ln(p, "dist_n", z + jnp.swapaxes(z, 1, 2))
        logits = (z @ p["dist"] + p["dist_b"]).astype(f32)
        logp = jax.nn.log_softmax(logits, -1)
        picked = jnp.take_along_axis(logp, bins_[..., None], -1)[..., 0]
        return -jnp.sum(picked * off_diagonal) / jnp.sum(off_diagonal)

    rng = np.random.default_rng(2)
    residues = np.zeros((chains, length), np.int64)
    binned = np.zeros((chains, length, length), np.int64)
    edges = np.linspace(2.0, 22.0, bins - 1)
    for c in range(chains):
        direction = rng.standard_normal(3)
        direction /= np.linalg.norm(direction)
        xyz = [np.zeros(3)]
        for _ in range(length - 1):
            direction = direction + 1.3 * rng.standard_normal(3)
            direction /= np.linalg.norm(direction)
            xyz.append(xyz[-1] + 3.8 * direction)
        xyz = np.asarray(xyz)
        distance = np.linalg.norm(xyz[:, None] - xyz[None], axis=-1)
        binned[c] = np.digitize(distance, edges)
        buried = (distance < 10.0).sum(1)
        rank = np.argsort(np.argsort(buried)) * 4 // length            # quartile of burial
        residues[c] = (5 * rank + rng.integers(0, 5, length)) % aminos
    index = np.arange(length)
    relative = np.clip(index[None, :] - index[:, None], -offsets, offsets) + offsets
    relative = np.broadcast_to(relative, (chains, length, length))
    off_diagonal = np.broadcast_to(1.0 - np.eye(length, dtype=np.float32), (chains, length, length))
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("adams", loss_fn, p, i32(residues), i32(relative), i32(binned),
                  jnp.asarray(off_diagonal))


def deberta_mlm(batch: int = 4, length: int = 128, vocab: int = 2048, width: int = 128,
                heads: int = 4, layers: int = 2, hidden: int = 512, span: int = 32,
                masked: int = 20) -> Any:
    """Masked-language-model pretraining of DeBERTa (He, Liu, Gao and Chen) in bfloat16 on
    token streams of a sparse random Markov chain (2048 tokens, 128 per sequence, 20
    positions per sequence masked: 80% a mask token, 10% a random token, 10% kept).
    Disentangled attention: every logit adds content-to-content, content-to-position and
    position-to-content terms, the last two from the query (key) contents against keys
    (queries) projected from a shared table of 64 relative-position embeddings, each
    gathered from a (token, relative distance) grid by `take_along_axis` at the clipped
    offset of the pair, scaled by 1/sqrt(3d). Two post-norm layers of width 128, then an
    enhanced mask decoder: the last layer's weights applied once more with queries only
    at the masked positions, made from the hidden states plus absolute position
    embeddings, and keys and values from all positions; an MLM head (dense, GELU, layer
    norm, the tied embedding) scores the vocabulary there. AngularGrad."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "emb_n_g": (width,),
                                          "emb_n_b": (width,), "rel": (2 * span, width),
                                          "rel_n_g": (width,), "rel_n_b": (width,),
                                          "abs": (length, width)}
    for l in range(layers):
        shapes.update({f"{l}q": (width, width), f"{l}q_b": (width,), f"{l}k": (width, width),
                       f"{l}k_b": (width,), f"{l}v": (width, width), f"{l}v_b": (width,),
                       f"{l}o": (width, width), f"{l}o_b": (width,), f"{l}n1_g": (width,),
                       f"{l}n1_b": (width,), f"{l}f1": (width, hidden), f"{l}f1_b": (hidden,),
                       f"{l}f2": (hidden, width), f"{l}f2_b": (width,), f"{l}n2_g": (width,),
                       f"{l}n2_b": (width,)})
    shapes.update({"mlm": (width, width), "mlm_b": (width,), "mlm_n_g": (width,),
                   "mlm_n_b": (width,), "out_b": (vocab,)})
    p = _params(shapes, seed=3, dtype=bf16)
    scale = 1.0 / math.sqrt(3 * dh)

    def layer(p, l, query, x, where):
        # query: (b, m, width) at token positions where (b, m); x: (b, n, width)
        b, m = query.shape[:2]
        n = x.shape[1]
        rel = _layer_norm(p["rel"], p["rel_n_g"], p["rel_n_b"])
        q = (query @ p[f"{l}q"] + p[f"{l}q_b"]).reshape(b, m, heads, dh)
        k = (x @ p[f"{l}k"] + p[f"{l}k_b"]).reshape(b, n, heads, dh)
        v = (x @ p[f"{l}v"] + p[f"{l}v_b"]).reshape(b, n, heads, dh)
        q_rel = (rel @ p[f"{l}q"]).reshape(2 * span, heads, dh)
        k_rel = (rel @ p[f"{l}k"]).reshape(2 * span, heads, dh)
        offset = where[:, :, None] - jnp.arange(n)[None, None, :]            # i - j
        to_key = jnp.clip(offset + span, 0, 2 * span - 1)                    # delta(i, j)
        to_query = jnp.clip(span - offset, 0, 2 * span - 1)                  # delta(j, i)
        full = (b, heads, m, n)
        c2c = jnp.einsum("bihd,bjhd->bhij", q, k)
        c2p = jnp.take_along_axis(jnp.einsum("bihd,rhd->bhir", q, k_rel),
                                  jnp.broadcast_to(to_key[:, None], full), 3)
        p2c = jnp.take_along_axis(jnp.einsum("bjhd,rhd->bhrj", k, q_rel),
                                  jnp.broadcast_to(to_query[:, None], full), 2)
        logits = (c2c.astype(f32) + c2p.astype(f32) + p2c.astype(f32)) * scale
        weights = jax.nn.softmax(logits, -1).astype(bf16)
        out = jnp.einsum("bhij,bjhd->bihd", weights, v).reshape(b, m, width)
        h = _layer_norm(query + out @ p[f"{l}o"] + p[f"{l}o_b"], p[f"{l}n1_g"], p[f"{l}n1_b"])
        f = jax.nn.gelu(h @ p[f"{l}f1"] + p[f"{l}f1_b"]) @ p[f"{l}f2"] + p[f"{l}f2_b"]
        return _layer_norm(h + f, p[f"{l}n2_g"], p[f"{l}n2_b"])

    def loss_fn(p, tokens, positions, targets):
        b, n = tokens.shape
        x = _layer_norm(p["embed"][tokens], p["emb_n_g"], p["emb_n_b"])
        everywhere = jnp.broadcast_to(jnp.arange(n)[None], (b, n))
        for l in range(layers):
            x = layer(p, l, x, x, everywhere)
        picked = jnp.take_along_axis(x, positions[..., None], 1) + p["abs"][positions]
        h = layer(p, layers - 1, picked, x, positions)
        h = jax.nn.gelu(h @ p["mlm"] + p["mlm_b"])
        h = _layer_norm(h, p["mlm_n_g"], p["mlm_n_b"])
        return _cross_entropy(h @ p["embed"].T + p["out_b"], targets)

    rng = np.random.default_rng(3)
    successors = rng.integers(3, vocab, (vocab, 8))
    odds = 1.0 / np.arange(1, 9)
    odds /= odds.sum()
    tokens = np.zeros((batch, length), np.int64)
    for i in range(batch):
        token = int(rng.integers(3, vocab))
        for t in range(length):
            tokens[i, t] = token
            token = int(successors[token, rng.choice(8, p=odds)]) if rng.uniform() < 0.9 \
                else int(rng.integers(3, vocab))
    positions = np.stack([np.sort(rng.choice(length, masked, replace=False))
                          for _ in range(batch)])
    targets = np.take_along_axis(tokens, positions, 1)
    inputs = tokens.copy()
    fate = rng.uniform(size=positions.shape)
    replaced = np.where(fate < 0.8, 1, np.where(fate < 0.9, rng.integers(3, vocab, positions.shape),
                                                targets))
    np.put_along_axis(inputs, positions, replaced, 1)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("angulargrad", loss_fn, p, i32(inputs), i32(positions), i32(targets))


def _bilstm(w: Any, u: Any, b: Any, x: Any) -> Any:
    """A bidirectional LSTM over (batch, time, features) in one `lax.scan`: the input
    projections of both directions (w: (2, features, 4h), b: (2, 4h)) are taken for
    all steps at once, the backward one reversed in time, and every step applies the
    stacked recurrent weights (u: (2, h, 4h)) by one batched product. Returns
    (batch, time, 2h), forward features first."""
    import jax.numpy as jnp
    from jax import lax

    hidden = u.shape[1]
    proj = jnp.einsum("btd,kdg->ktbg", x, w) + b[:, None, None]
    proj = jnp.stack([proj[0], proj[1, ::-1]], 1)                      # time, 2, batch, 4h

    def cell(carry, inputs):
        h, c = carry
        h, c = _lstm(inputs + jnp.einsum("kbh,khg->kbg", h, u), c)
        return (h, c), h

    zeros = jnp.zeros((2, x.shape[0], hidden), x.dtype)
    _, hs = lax.scan(cell, (zeros, zeros), proj)
    return jnp.swapaxes(jnp.concatenate([hs[:, 0], hs[::-1, 1]], -1), 0, 1)


def bidaf_reader(batch: int = 16, context: int = 80, question: int = 12, letters: int = 8,
                 words: int = 1500, alphabet: int = 28, char_width: int = 16, filters: int = 32,
                 embed: int = 64, hidden: int = 40) -> Any:
    """Extractive question answering by BiDAF (Seo, Kembhavi, Farhadi and Hajishirzi):
    every word is embedded by its trainable word vector and a character CNN (16-wide
    character embeddings, a width-5 convolution of 32 filters max-pooled over the
    word's 8 characters), passed through a two-layer highway network, and contextualized
    by a shared bidirectional LSTM (both directions in one `lax.scan`); the attention
    flow layer scores every context-question word pair by w . [h; u; h * u], attends
    context-to-query (a softmax over the question) and query-to-context (a softmax over
    the context of the row maxima), and concatenates [h; u~; h * u~; h * h~]; a
    two-layer bidirectional LSTM models it, the start is scored from the model and
    the attended features, and the end from one more bidirectional LSTM over the model;
    cross-entropy of both. The passages are Zipf-distributed words with an answer span
    of one to three words after the two cue words that the question repeats.
    AdaMomentum."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    d = filters + embed
    h2 = 2 * hidden

    def lstm_shapes(name, n_in):
        return {f"{name}_x": (2, n_in, 4 * hidden), f"{name}_h": (2, hidden, 4 * hidden),
                f"{name}_b": (2, 4 * hidden)}

    shapes: dict[str, tuple[int, ...]] = {"words": (words, embed), "chars": (alphabet, char_width),
                                          "char_conv": (5, char_width, filters),
                                          "char_conv_b": (filters,)}
    for k in range(2):
        shapes.update({f"hw{k}_t": (d, d), f"hw{k}_t_b": (d,), f"hw{k}_h": (d, d),
                       f"hw{k}_h_b": (d,)})
    shapes.update(lstm_shapes("ctx", d))
    shapes.update({"sim_h": (h2, 1), "sim_u": (h2, 1), "sim_hu": (h2,)})
    shapes.update(lstm_shapes("model0", 4 * h2))
    shapes.update(lstm_shapes("model1", h2))
    shapes.update(lstm_shapes("end", h2))
    shapes.update({"start": (5 * h2, 1), "stop": (5 * h2, 1)})
    p = _params(shapes, seed=4)

    def bilstm(p, name, x):
        return _bilstm(p[f"{name}_x"], p[f"{name}_h"], p[f"{name}_b"], x)

    def embed_words(p, ids, spelled):
        b, n, w = spelled.shape
        chars = _conv1d(p["chars"][spelled].reshape(b * n, w, char_width), p["char_conv"])
        chars = jnp.max(jax.nn.relu(chars + p["char_conv_b"]), 1).reshape(b, n, filters)
        x = jnp.concatenate([chars, p["words"][ids]], -1)
        for k in range(2):
            gate = jax.nn.sigmoid(x @ p[f"hw{k}_t"] + p[f"hw{k}_t_b"])
            x = gate * jax.nn.relu(x @ p[f"hw{k}_h"] + p[f"hw{k}_h_b"]) + (1.0 - gate) * x
        return bilstm(p, "ctx", x)

    def loss_fn(p, c_ids, c_chars, q_ids, q_chars, start, end):
        h = embed_words(p, c_ids, c_chars)
        u = embed_words(p, q_ids, q_chars)
        similarity = ((h @ p["sim_h"]) + jnp.swapaxes(u @ p["sim_u"], 1, 2)
                      + jnp.einsum("btd,bjd->btj", h * p["sim_hu"], u))
        attended = jnp.einsum("btj,bjd->btd", jax.nn.softmax(similarity, -1), u)
        focus = jax.nn.softmax(jnp.max(similarity, -1), -1)
        summary = jnp.einsum("bt,btd->bd", focus, h)[:, None]
        g = jnp.concatenate([h, attended, h * attended, h * summary], -1)
        m = bilstm(p, "model1", bilstm(p, "model0", g))
        first = (jnp.concatenate([g, m], -1) @ p["start"])[..., 0]
        last = (jnp.concatenate([g, bilstm(p, "end", m)], -1) @ p["stop"])[..., 0]
        return _cross_entropy(first, start) + _cross_entropy(last, end)

    rng = np.random.default_rng(4)
    spelling = np.zeros((words, letters), np.int64)
    for w in range(words):
        n = int(rng.integers(2, letters + 1))
        spelling[w, :n] = rng.integers(2, alphabet, n)
    zipf = 1.0 / np.arange(1, words - 9) ** 1.1
    zipf /= zipf.sum()
    c_ids = rng.choice(np.arange(10, words), (batch, context), p=zipf)
    q_ids = rng.choice(np.arange(10, words), (batch, question), p=zipf)
    start = rng.integers(2, context - 3, batch)
    end = start + rng.integers(0, 3, batch)
    for i in range(batch):
        q_ids[i, 0] = rng.integers(1, 6)                        # a question word
        slot = int(rng.integers(1, question - 2))
        q_ids[i, slot:slot + 2] = c_ids[i, start[i] - 2:start[i]]
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    return _train("adamomentum", loss_fn, p, i32(c_ids), i32(spelling[c_ids]), i32(q_ids),
                  i32(spelling[q_ids]), i32(start), i32(end))


def lightgcn_recommender(users: int = 4000, items: int = 3000, interactions: int = 24000,
                         width: int = 48, layers: int = 3, batch: int = 2048,
                         decay: float = 1e-4) -> Any:
    """Collaborative filtering by LightGCN (He et al.): user and item embeddings of width
    48 are propagated three times over the symmetric-normalized user-item graph of 24000
    interactions (48000 directed edges, each layer a gather of the source rows scaled by
    1/sqrt(deg_u deg_i) and a `segment_sum` onto the targets), the layer outputs are
    averaged, and a BPR loss ranks a batch of 2048 (user, interacted item, sampled
    non-interacted item) triples with L2 decay on the batch's own embeddings. The
    update is STORM (Cutkosky and Orabona): momentum-based variance reduction, the
    direction being the new gradient plus (1 - a) times the old direction less the
    gradient of the previous weights on the same batch (a second forward and backward
    pass), with the step size k / (w + sum of squared gradient norms)^(1/3) and
    a = c eta^2. Interactions come from low-rank user and item tastes."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    nodes = users + items
    rng = np.random.default_rng(5)
    p = {"user": jnp.asarray(0.1 * rng.standard_normal((users, width)), jnp.float32),
         "item": jnp.asarray(0.1 * rng.standard_normal((items, width)), jnp.float32)}
    k_, w_, c_ = 0.1, 0.1, 100.0
    tm = jax.tree.map

    def loss_fn(p, src, dst, weight, user, good, bad):
        e = jnp.concatenate([p["user"], p["item"]])
        total, layer = e, e
        for _ in range(layers):
            layer = jax.ops.segment_sum(layer[src] * weight[:, None], dst, nodes)
            total = total + layer
        final = total / (layers + 1)
        eu, ep, en = final[user], final[users + good], final[users + bad]
        margin = jnp.sum(eu * (ep - en), -1)
        own = (jnp.sum(p["user"][user] ** 2) + jnp.sum(p["item"][good] ** 2)
               + jnp.sum(p["item"][bad] ** 2))
        return jnp.mean(jax.nn.softplus(-margin)) + decay * own / (2 * user.shape[0])

    def step(params, previous, direction, squares, rate, *batch):
        loss, g = jax.value_and_grad(loss_fn)(params, *batch)
        g_old = jax.grad(loss_fn)(previous, *batch)
        a = jnp.minimum(1.0, c_ * rate * rate)
        direction = tm(lambda g_, d, o: g_ + (1.0 - a) * (d - o), g, direction, g_old)
        squares = squares + sum(jnp.sum(x * x) for x in jax.tree.leaves(g))
        rate = k_ / (w_ + squares) ** (1.0 / 3.0)
        moved = tm(lambda w, d: w - rate * d, params, direction)
        return moved, params, direction, squares, rate, loss

    taste_u = rng.standard_normal((users, 8))
    taste_i = rng.standard_normal((items, 8))
    popularity = rng.lognormal(0.0, 1.0, items)
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < interactions:
        u = int(rng.integers(users))
        score = taste_i @ taste_u[u] + np.log(popularity)
        chance = np.exp(score - score.max())
        for i in rng.choice(items, 8, replace=False, p=chance / chance.sum()):
            pairs.add((u, int(i)))
    pairs_ = np.asarray(sorted(pairs))[:interactions]
    deg_u = np.bincount(pairs_[:, 0], minlength=users)
    deg_i = np.bincount(pairs_[:, 1], minlength=items)
    norm = 1.0 / np.sqrt(deg_u[pairs_[:, 0]] * deg_i[pairs_[:, 1]])
    src = np.concatenate([pairs_[:, 0], users + pairs_[:, 1]])
    dst = np.concatenate([users + pairs_[:, 1], pairs_[:, 0]])
    chosen = pairs_[rng.choice(len(pairs_), batch, replace=False)]
    bad = rng.integers(0, items, batch)
    for n in range(batch):
        while (int(chosen[n, 0]), int(bad[n])) in pairs:
            bad[n] = rng.integers(0, items)
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    zeros = tm(jnp.zeros_like, p)
    return jax.jit(step).lower(p, p, zeros, f32(0.0), f32(0.1), i32(src), i32(dst),
                               f32(np.concatenate([norm, norm])), i32(chosen[:, 0]),
                               i32(chosen[:, 1]), i32(bad))


def handwriting_synthesis(batch: int = 8, steps: int = 96, chars: int = 24, alphabet: int = 28,
                          hidden: int = 96, window: int = 5, mixtures: int = 8) -> Any:
    """Handwriting synthesis (Graves, "Generating sequences with recurrent neural
    networks"): pen offsets with an end-of-stroke bit are predicted step by step for
    a given text. A first LSTM reads the previous offset and the last window vector, and
    its state sets a soft window over the 24 characters of the line: a mixture of five
    Gaussians over character positions whose centres only move forward (kappa grows by
    a tenth of exp of its output), the window vector being the character one-hots weighted by it;
    both live in one `lax.scan`. A second LSTM (its input projection taken for all steps
    at once, the recurrence in another `lax.scan`) reads the offsets, the first
    layer's states and the windows, and both layers feed a mixture density output of
    eight correlated bivariate Gaussians and a Bernoulli end-of-stroke; the loss is
    their negative log-likelihood over the valid steps. The lines are drawn from a
    random stroke template per letter. The update is adaptive sharpness-aware
    minimization (ASAM; Kwon, Kim, Park and Choi): a first gradient gives the ascent
    step rho T_w^2 g / ||T_w g|| with T_w = |w| + 0.01, and the gradient at the
    perturbed weights drives momentum SGD with weight decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    h4 = 4 * hidden
    p = _params({"l1_x": (3 + alphabet, h4), "l1_h": (hidden, h4), "l1_b": (h4,),
                 "win": (hidden, 3 * window), "win_b": (3 * window,),
                 "l2_x": (3 + hidden + alphabet, h4), "l2_h": (hidden, h4), "l2_b": (h4,),
                 "mdn": (2 * hidden, 1 + 6 * mixtures), "mdn_b": (1 + 6 * mixtures,)}, seed=6)
    rho_, eta_, rate, momentum, decay = 0.5, 0.01, 0.01, 0.9, 5e-4
    tm = jax.tree.map

    def loss_fn(p, strokes, text, valid):
        x, target = strokes[:, :-1], strokes[:, 1:]
        b = x.shape[0]
        onehot = jax.nn.one_hot(text, alphabet)
        places = jnp.arange(chars, dtype=jnp.float32)

        def first(carry, x_t):
            h, c, kappa, w = carry
            h, c = _lstm(jnp.concatenate([x_t, w], -1) @ p["l1_x"] + h @ p["l1_h"] + p["l1_b"],
                         c)
            alpha, beta, step_ = jnp.split(jnp.exp(h @ p["win"] + p["win_b"]), 3, -1)
            kappa = kappa + 0.1 * step_
            phi = jnp.sum(alpha[..., None] * jnp.exp(-beta[..., None] * jnp.square(
                kappa[..., None] - places)), 1)
            w = jnp.einsum("bu,bua->ba", phi, onehot)
            return (h, c, kappa, w), (h, w)

        zeros = jnp.zeros((b, hidden))
        start = (zeros, zeros, jnp.zeros((b, window)), jnp.zeros((b, alphabet)))
        _, (h1, w) = lax.scan(first, start, jnp.swapaxes(x, 0, 1))
        inputs = jnp.concatenate([jnp.swapaxes(x, 0, 1), h1, w], -1) @ p["l2_x"] + p["l2_b"]

        def second(carry, inp):
            h, c = _lstm(inp + carry[0] @ p["l2_h"], carry[1])
            return (h, c), h

        _, h2 = lax.scan(second, (zeros, zeros), inputs)
        out = jnp.swapaxes(jnp.concatenate([h1, h2], -1), 0, 1) @ p["mdn"] + p["mdn_b"]
        e, pi, mx, my, sx, sy, r = jnp.split(out, [1, 1 + mixtures, 1 + 2 * mixtures,
                                                   1 + 3 * mixtures, 1 + 4 * mixtures,
                                                   1 + 5 * mixtures], -1)
        sx, sy, r = jnp.exp(sx), jnp.exp(sy), jnp.tanh(r)
        dx = (target[..., :1] - mx) / sx
        dy = (target[..., 1:2] - my) / sy
        one_minus = 1.0 - r * r + 1e-6
        log_density = (-(dx * dx + dy * dy - 2.0 * r * dx * dy) / (2.0 * one_minus)
                       - jnp.log(2.0 * math.pi * sx * sy * jnp.sqrt(one_minus)))
        position = -jax.nn.logsumexp(jax.nn.log_softmax(pi, -1) + log_density, -1)
        eos = target[..., 2]
        pen = -(eos * jax.nn.log_sigmoid(e[..., 0]) + (1.0 - eos) * jax.nn.log_sigmoid(-e[..., 0]))
        return jnp.sum((position + pen) * valid) / jnp.sum(valid)

    def step(params, velocity, strokes, text, valid):
        g = jax.grad(loss_fn)(params, strokes, text, valid)
        stretch = tm(lambda w: jnp.abs(w) + eta_, params)
        norm = jnp.sqrt(sum(jnp.sum(jnp.square(t * g_)) for t, g_ in
                            zip(jax.tree.leaves(stretch), jax.tree.leaves(g))))
        ascent = tm(lambda w, t, g_: w + rho_ * t * t * g_ / (norm + 1e-12), params, stretch, g)
        loss, g = jax.value_and_grad(loss_fn)(ascent, strokes, text, valid)
        velocity = tm(lambda v, g_, w: momentum * v + g_ + decay * w, velocity, g, params)
        return tm(lambda w, v: w - rate * v, params, velocity), velocity, loss

    rng = np.random.default_rng(6)
    templates = [rng.standard_normal((int(rng.integers(2, 6)), 2)) * (0.6, 1.0) + (0.5, 0.0)
                 for _ in range(alphabet)]
    templates[1] = np.asarray([[2.0, 0.0]])                 # the space
    strokes = np.zeros((batch, steps + 1, 3), np.float32)
    text = rng.integers(1, alphabet, (batch, chars))
    text[:, 4::5] = 1
    valid = np.zeros((batch, steps), np.float32)
    for i in range(batch):
        pen = [np.zeros(3)]
        for letter in text[i]:
            shape = templates[letter] + 0.1 * rng.standard_normal(templates[letter].shape)
            for k, (dx, dy) in enumerate(shape):
                pen.append(np.asarray([dx, dy, float(k == len(shape) - 1)]))
        pen = np.asarray(pen[:steps + 1])
        strokes[i, :len(pen)] = pen
        valid[i, :len(pen) - 1] = 1.0
    i32 = lambda a: jnp.asarray(a, jnp.int32)
    zeros = tm(jnp.zeros_like, p)
    return jax.jit(step).lower(p, zeros, jnp.asarray(strokes), i32(text), jnp.asarray(valid))


def demucs_denoiser(batch: int = 4, samples: int = 16384,
                    widths: tuple[int, ...] = (16, 32, 64, 128), kernel: int = 8,
                    stride: int = 4, lstm_layers: int = 2,
                    resolutions: tuple[tuple[int, int], ...] = ((512, 128), (1024, 256),
                                                                (256, 64))) -> Any:
    """Speech enhancement in the waveform domain by a causal Demucs (Defossez, Synnaeve and
    Adi): one second of 16 kHz noisy speech, normalized by its standard deviation, goes
    through four encoder layers (a width-8 convolution of stride 4, ReLU, a 1x1
    convolution to twice the channels and a GLU; 16 to 128 channels), a two-layer
    unidirectional LSTM over the 64 remaining steps (both layers inside one
    `lax.scan`, added back as a residual), and four decoder layers that add the
    encoder's skip, apply a 1x1 convolution and a GLU and upsample by a width-8
    transposed convolution of stride 4 (ReLU but for the last). Loss: L1 on the
    waveform plus a multi-resolution STFT loss (spectral convergence and log-magnitude
    L1 at FFT sizes 256, 512 and 1024 with hops of a quarter, frames gathered and Hann
    windowed, `rfft`). Clean signals are voiced syllables (harmonic stacks with gliding
    pitch under formant-like envelopes) and pauses, mixed with coloured noise and hum at
    0 to 10 dB. NosAdam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    depth = len(widths)
    hidden = widths[-1]
    shapes: dict[str, tuple[int, ...]] = {}
    cin = 1
    for i, c in enumerate(widths):
        shapes.update({f"enc{i}": (kernel, cin, c), f"enc{i}_b": (c,), f"enc{i}_mix": (1, c, 2 * c),
                       f"enc{i}_mix_b": (2 * c,), f"dec{i}_mix": (1, c, 2 * c),
                       f"dec{i}_mix_b": (2 * c,), f"dec{i}_up": (kernel, c, cin),
                       f"dec{i}_up_b": (cin,)})
        cin = c
    for l in range(lstm_layers):
        shapes.update({f"lstm{l}_x": (hidden, 4 * hidden), f"lstm{l}_h": (hidden, 4 * hidden),
                       f"lstm{l}_b": (4 * hidden,)})
    p = _params(shapes, seed=7)
    trim = (kernel - stride) // 2

    def glu(x):
        a, b = jnp.split(x, 2, -1)
        return a * jax.nn.sigmoid(b)

    def enhance(p, noisy):
        std = jnp.std(noisy, -1, keepdims=True) + 1e-3
        x = (noisy / std)[..., None]
        skips = []
        for i in range(depth):
            x = jax.nn.relu(_conv1d(x, p[f"enc{i}"], stride, ((trim, trim),)) + p[f"enc{i}_b"])
            x = glu(_conv1d(x, p[f"enc{i}_mix"]) + p[f"enc{i}_mix_b"])
            skips.append(x)

        def cell(carry, x_t):
            hs, cs = carry
            new_h, new_c = [], []
            inp = x_t
            for l in range(lstm_layers):
                h, c = _lstm(inp @ p[f"lstm{l}_x"] + hs[l] @ p[f"lstm{l}_h"] + p[f"lstm{l}_b"],
                             cs[l])
                new_h.append(h)
                new_c.append(c)
                inp = h
            return (jnp.stack(new_h), jnp.stack(new_c)), inp

        zeros = jnp.zeros((lstm_layers, x.shape[0], hidden))
        _, y = lax.scan(cell, (zeros, zeros), jnp.swapaxes(x, 0, 1))
        x = x + jnp.swapaxes(y, 0, 1)
        for i in reversed(range(depth)):
            x = glu(_conv1d(x + skips[i], p[f"dec{i}_mix"]) + p[f"dec{i}_mix_b"])
            x = lax.conv_transpose(x, p[f"dec{i}_up"], (stride,), "VALID",
                                   dimension_numbers=_NWC)[:, trim:-trim] + p[f"dec{i}_up_b"]
            if i:
                x = jax.nn.relu(x)
        return x[..., 0] * std

    def magnitude(x, n_fft, hop):
        padded = jnp.pad(x, ((0, 0), (n_fft // 2, n_fft // 2)), mode="reflect")
        frames = (padded.shape[1] - n_fft) // hop + 1
        index = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None, :]
        window = np.hanning(n_fft + 1)[:-1].astype(np.float32)
        return jnp.abs(jnp.fft.rfft(padded[:, index] * window, axis=-1)) + 1e-7

    def loss_fn(p, noisy, clean):
        guess = enhance(p, noisy)
        total = jnp.mean(jnp.abs(guess - clean))
        for n_fft, hop in resolutions:
            a, b = magnitude(guess, n_fft, hop), magnitude(clean, n_fft, hop)
            converge = jnp.sqrt(jnp.sum(jnp.square(b - a))) / jnp.sqrt(jnp.sum(b * b))
            log_error = jnp.mean(jnp.abs(jnp.log(a) - jnp.log(b)))
            total = total + (converge + log_error) / len(resolutions)
        return total

    rng = np.random.default_rng(7)
    rate = 16000.0
    t = np.arange(samples) / rate
    clean = np.zeros((batch, samples))
    for i in range(batch):
        at = int(rng.integers(0, 1600))
        while at < samples:
            n = int(rng.integers(1600, 4000))
            span = np.arange(min(n, samples - at))
            f0 = rng.uniform(90, 240) * (1.0 + rng.uniform(-0.2, 0.2) * span / n)
            phase = 2 * np.pi * np.cumsum(f0) / rate
            formant = rng.uniform(400, 2500)
            voice = sum(np.exp(-np.square(k * f0 - formant) / (2 * 600.0 ** 2)) * np.sin(k * phase)
                        for k in range(1, 12))
            clean[i, at:at + len(span)] = voice * np.hanning(len(span))
            at += n + int(rng.integers(400, 3200))
    clean /= clean.std(1, keepdims=True) + 1e-6
    white = rng.standard_normal((batch, samples))
    tilt = np.fft.rfftfreq(samples)[None, :] * rate
    coloured = np.fft.irfft(np.fft.rfft(white) / np.sqrt(1.0 + tilt / 300.0), samples)
    noise = coloured + 0.3 * np.sin(2 * np.pi * 50.0 * t)[None] * rng.uniform(0, 1, (batch, 1))
    noise /= noise.std(1, keepdims=True)
    gain = 10.0 ** (-rng.uniform(0.0, 10.0, (batch, 1)) / 20.0)
    noisy = clean + gain * noise
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return _train("nosadam", loss_fn, p, f32(noisy), f32(clean))


def iqn_agent(batch: int = 128, observations: int = 24, actions: int = 8, hidden: int = 128,
              cosines: int = 64, quantiles: int = 32, kappa: float = 1.0,
              gamma: float = 0.99, sync: int = 8000) -> Any:
    """Distributional reinforcement learning by implicit quantile networks (IQN; Dabney,
    Ostrovski, Silver and Munos) on a replay batch of 128 transitions with 24-dimensional
    observations and eight actions: a state torso of two ReLU layers, quantile fractions
    tau drawn inside the step (`jax.random`) and embedded by cos(pi i tau) for i < 64
    and a ReLU layer, their product with the state features fed to a two-layer head
    that gives every action's tau-quantile of the return. The target distribution uses
    32 fresh fractions through the target network at the action that the online
    network's mean over 32 more fractions prefers (double Q-learning), and the loss is
    the quantile Huber loss over all 32x32 pairs of online and target samples. The
    target network is refreshed every 8000 steps by `jnp.where` on a step counter.
    AdaInject."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    f32 = jnp.float32
    p = _params({"s1": (observations, hidden), "s1_b": (hidden,), "s2": (hidden, hidden),
                 "s2_b": (hidden,), "tau": (cosines, hidden), "tau_b": (hidden,),
                 "h1": (hidden, hidden), "h1_b": (hidden,), "h2": (hidden, actions),
                 "h2_b": (actions,)}, seed=8)
    init, update = _update_rule("adainject")
    frequencies = np.pi * np.arange(cosines, dtype=np.float32)

    def quantile_values(p, obs, taus):
        psi = jax.nn.relu(obs @ p["s1"] + p["s1_b"])
        psi = jax.nn.relu(psi @ p["s2"] + p["s2_b"])
        phi = jax.nn.relu(jnp.cos(taus[..., None] * frequencies) @ p["tau"] + p["tau_b"])
        z = jax.nn.relu((psi[:, None] * phi) @ p["h1"] + p["h1_b"])
        return z @ p["h2"] + p["h2_b"]                                    # batch, taus, actions

    def loss_fn(p, target, obs, act, reward, next_obs, done, taus, next_taus, policy_taus):
        z = jnp.take_along_axis(quantile_values(p, obs, taus), act[:, None, None], 2)[..., 0]
        preferred = jnp.argmax(jnp.mean(quantile_values(p, next_obs, policy_taus), 1), -1)
        nxt = jnp.take_along_axis(quantile_values(target, next_obs, next_taus),
                                  preferred[:, None, None], 2)[..., 0]
        y = jax.lax.stop_gradient(reward[:, None] + gamma * (1.0 - done[:, None]) * nxt)
        u = y[:, None, :] - z[:, :, None]
        huber = jnp.where(jnp.abs(u) <= kappa, 0.5 * u * u, kappa * (jnp.abs(u) - 0.5 * kappa))
        weight = jnp.abs(taus[:, :, None] - (u < 0.0).astype(f32))
        return jnp.mean(jnp.sum(jnp.mean(weight * huber / kappa, 2), 1))

    def step(params, target, state, steps, key, obs, act, reward, next_obs, done):
        k1, k2, k3 = jax.random.split(key, 3)
        shape = (obs.shape[0], quantiles)
        taus, next_taus, policy_taus = (jax.random.uniform(k, shape) for k in (k1, k2, k3))
        loss, grads = jax.value_and_grad(loss_fn)(params, target, obs, act, reward, next_obs,
                                                  done, taus, next_taus, policy_taus)
        params, state = update(params, grads, state, loss)
        steps = steps + 1
        target = jax.tree.map(lambda o, t: jnp.where(steps % sync == 0, o, t), params, target)
        return params, target, state, steps, loss

    rng = np.random.default_rng(8)
    obs = rng.standard_normal((batch, observations))
    act = rng.integers(0, actions, batch)
    drift = rng.standard_normal((actions, observations)) * 0.3
    next_obs = 0.9 * obs + drift[act] + 0.1 * rng.standard_normal((batch, observations))
    reward = np.tanh(obs[:, :actions].sum(1) / 3.0) + (act == 0) * 0.5 + rng.standard_normal(batch)
    done = (rng.uniform(size=batch) < 0.05).astype(np.float32)
    f32_ = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(step).lower(p, p, jax.eval_shape(init, p), jnp.int32(0),
                               jax.random.PRNGKey(8), f32_(obs), jnp.asarray(act, jnp.int32),
                               f32_(reward), f32_(next_obs), f32_(done))


def fastspeech_tts(batch: int = 4, phonemes: int = 32, frames: int = 128, symbols: int = 48,
                   width: int = 96, heads: int = 2, filters: int = 256, kernel: int = 3,
                   mels: int = 80, layers: int = 2, buckets: int = 32) -> Any:
    """Non-autoregressive text to speech by FastSpeech 2 (Ren et al.) in bfloat16: two
    feed-forward transformer blocks (self-attention and a convolutional feed-forward of
    width-3 and 1x1 convolutions, post-norm) encode 32 phonemes; a variance adaptor
    predicts each phoneme's log duration, pitch and energy (two width-3 convolutions
    with layer norm and a linear output each) and adds embeddings of the true pitch and
    energy, quantized into 32 buckets; the length regulator repeats every phoneme for
    its duration (frame-to-phoneme indices from the cumulative durations, a gather) into
    128 frames; two more blocks, masked to the valid frames, decode an 80-bin mel
    spectrogram. Four losses (mel L1, and squared errors of log durations, pitch and
    energy) are balanced by MGDA-UB (Sener and Koltun): the gradients of each task's
    loss with respect to the encoder output (one backward pass each), their Gram matrix
    and a Frank-Wolfe min-norm solver of 20 iterations in a `fori_loop` weigh the
    losses, and the weighted sum is differentiated for an Adam step."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    tasks = 4
    shapes: dict[str, tuple[int, ...]] = {"symbol": (symbols, width)}
    for part in ("enc", "dec"):
        for l in range(layers):
            k = f"{part}{l}"
            shapes.update({f"{k}_qkv": (width, 3 * width), f"{k}_o": (width, width),
                           f"{k}_n1_g": (width,), f"{k}_n1_b": (width,),
                           f"{k}_c1": (kernel, width, filters), f"{k}_c1_b": (filters,),
                           f"{k}_c2": (1, filters, width), f"{k}_c2_b": (width,),
                           f"{k}_n2_g": (width,), f"{k}_n2_b": (width,)})
    for k in ("duration", "pitch", "energy"):
        shapes.update({f"{k}_c1": (3, width, width), f"{k}_c1_b": (width,), f"{k}_n1_g": (width,),
                       f"{k}_n1_b": (width,), f"{k}_c2": (3, width, width), f"{k}_c2_b": (width,),
                       f"{k}_n2_g": (width,), f"{k}_n2_b": (width,), f"{k}_out": (width, 1),
                       f"{k}_out_b": (1,)})
    shapes.update({"pitch_emb": (buckets, width), "energy_emb": (buckets, width),
                   "mel": (width, mels), "mel_b": (mels,)})
    p = _params(shapes, seed=9, dtype=bf16)
    edges = np.linspace(-2.5, 2.5, buckets - 1).astype(np.float32)

    def sinusoid(n):
        angle = np.arange(n)[:, None] / np.power(10000.0, np.arange(0, width, 2) / width)
        table = np.zeros((n, width), np.float32)
        table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
        return jnp.asarray(table, bf16)

    def block(p, k, x, keep):
        b, n = x.shape[:2]
        q, kk, v = jnp.split((x @ p[f"{k}_qkv"]).reshape(b, n, 3 * heads, dh), 3, 2)
        logits = jnp.einsum("bihd,bjhd->bhij", q, kk).astype(f32) / math.sqrt(dh)
        logits = jnp.where(keep[:, None, None, :], logits, -1e9)
        weights = jax.nn.softmax(logits, -1).astype(bf16)
        att = jnp.einsum("bhij,bjhd->bihd", weights, v).reshape(b, n, width)
        x = _layer_norm(x + att @ p[f"{k}_o"], p[f"{k}_n1_g"], p[f"{k}_n1_b"])
        f = jax.nn.relu(_conv1d(x, p[f"{k}_c1"], padding="SAME") + p[f"{k}_c1_b"])
        f = _conv1d(f, p[f"{k}_c2"]) + p[f"{k}_c2_b"]
        return _layer_norm(x + f, p[f"{k}_n2_g"], p[f"{k}_n2_b"]) * keep[..., None].astype(bf16)

    def predictor(p, k, z):
        y = jax.nn.relu(_conv1d(z, p[f"{k}_c1"], padding="SAME") + p[f"{k}_c1_b"])
        y = _layer_norm(y, p[f"{k}_n1_g"], p[f"{k}_n1_b"])
        y = jax.nn.relu(_conv1d(y, p[f"{k}_c2"], padding="SAME") + p[f"{k}_c2_b"])
        y = _layer_norm(y, p[f"{k}_n2_g"], p[f"{k}_n2_b"])
        return (y @ p[f"{k}_out"] + p[f"{k}_out_b"])[..., 0].astype(f32)

    def encode(p, phones):
        x = p["symbol"][phones] + sinusoid(phones.shape[1])
        everywhere = jnp.ones(phones.shape, bool)
        for l in range(layers):
            x = block(p, f"enc{l}", x, everywhere)
        return x

    def mel_loss(p, z, durations, pitch, energy, mel):
        bucket = lambda v: jnp.sum(v[..., None] > edges, -1)
        h = z + p["pitch_emb"][bucket(pitch)] + p["energy_emb"][bucket(energy)]
        ends = jnp.cumsum(durations, -1)
        t = jnp.arange(frames)
        index = jnp.minimum(jnp.sum(ends[:, None, :] <= t[None, :, None], -1), phonemes - 1)
        keep = t[None, :] < ends[:, -1:]
        x = jnp.take_along_axis(h, index[..., None], 1) + sinusoid(frames)
        for l in range(layers):
            x = block(p, f"dec{l}", x, keep)
        guess = (x @ p["mel"] + p["mel_b"]).astype(f32)
        error = jnp.abs(guess - mel) * keep[..., None]
        return jnp.sum(error) / (jnp.sum(keep) * mels)

    def variance_losses(p, z, durations, pitch, energy):
        return (jnp.mean(jnp.square(predictor(p, "duration", z) - jnp.log1p(durations))),
                jnp.mean(jnp.square(predictor(p, "pitch", z) - pitch)),
                jnp.mean(jnp.square(predictor(p, "energy", z) - energy)))

    def task_losses(p, z, durations, pitch, energy, mel):
        return (mel_loss(p, z, durations, pitch, energy, mel),) + variance_losses(
            p, z, durations, pitch, energy)

    def min_norm(gram):
        def iterate(_, alpha):
            product = gram @ alpha
            t = jnp.argmin(product)
            e = jax.nn.one_hot(t, tasks)
            aa, ab, bb = alpha @ product, product[t], gram[t, t]
            shift = jnp.clip((aa - ab) / (aa + bb - 2.0 * ab + 1e-12), 0.0, 1.0)
            return (1.0 - shift) * alpha + shift * e
        return lax.fori_loop(0, 20, iterate, jnp.full(tasks, 1.0 / tasks))

    rate, b1, b2 = 1e-3, 0.9, 0.98
    tm = jax.tree.map

    def step(params, m, v, t, phones, durations, pitch, energy, mel):
        z = encode(params, phones)
        per_task = [jax.grad(lambda z_: mel_loss(params, z_, durations, pitch, energy, mel))(z)]
        per_task += [jax.grad(lambda z_, k=k: variance_losses(params, z_, durations, pitch,
                                                              energy)[k])(z)
                     for k in range(tasks - 1)]
        flat = jnp.stack([g.reshape(-1).astype(f32) for g in per_task])
        alpha = lax.stop_gradient(min_norm(flat @ flat.T))

        def weighted(p):
            losses = task_losses(p, encode(p, phones), durations, pitch, energy, mel)
            return sum(a * l for a, l in zip(alpha, losses)), jnp.stack(losses)

        (_, losses), grads = jax.value_and_grad(weighted, has_aux=True)(params)
        t = t + 1
        n = t.astype(f32)
        m = tm(lambda m_, g: b1 * m_ + (1.0 - b1) * g.astype(f32), m, grads)
        v = tm(lambda v_, g: b2 * v_ + (1.0 - b2) * jnp.square(g.astype(f32)), v, grads)
        params = tm(lambda w, m_, v_: (w.astype(f32) - rate * (m_ / (1.0 - b1 ** n))
                                       / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + 1e-9)).astype(w.dtype),
                    params, m, v)
        return params, m, v, t, losses, alpha

    rng = np.random.default_rng(9)
    phones = rng.integers(1, symbols, (batch, phonemes))
    durations = np.clip(1 + phones % 4 + rng.integers(-1, 2, phones.shape), 1, 6)
    for i in range(batch):
        while durations[i].sum() > frames:
            durations[i, int(rng.integers(phonemes))] = 1
    speaker = rng.standard_normal((batch, 1))
    pitch = 0.5 * speaker + 0.6 * np.sin(phones * 1.7) + 0.3 * rng.standard_normal(phones.shape)
    envelope = _smooth_rows(rng, symbols, mels)
    mel = np.zeros((batch, frames, mels), np.float32)
    energy = np.zeros(phones.shape)
    for i in range(batch):
        frame = 0
        for k in range(phonemes):
            shift = int(round(2 * pitch[i, k]))
            spectrum = np.roll(envelope[phones[i, k]], shift)
            span = durations[i, k]
            mel[i, frame:frame + span] = spectrum + 0.1 * rng.standard_normal((span, mels))
            energy[i, k] = mel[i, frame:frame + span].mean()
            frame += span
    energy = (energy - energy.mean()) / energy.std()
    zeros = jax.tree.map(lambda w: jnp.zeros(w.shape, f32), p)
    f32_ = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(step).lower(p, zeros, zeros, jnp.int32(0), jnp.asarray(phones, jnp.int32),
                               jnp.asarray(durations, jnp.int32), f32_(pitch), f32_(energy),
                               f32_(mel))


def xvector_speaker(batch: int = 12, frames: int = 160, features: int = 30,
                    widths: tuple[int, ...] = (96, 96, 96, 96, 288),
                    kernels: tuple[int, ...] = (5, 3, 3, 1, 1),
                    dilations: tuple[int, ...] = (1, 2, 3, 1, 1), embedding: int = 128,
                    speakers: int = 64, margin: float = 0.2, scale: float = 30.0) -> Any:
    """Speaker embeddings by an x-vector network (Snyder et al.) trained with an additive
    angular margin softmax (ArcFace; Deng, Guo, Xue and Zafeiriou): five time-delay
    layers over 160 frames of 30 filterbank features (1-D convolutions of widths 5, 3,
    3, 1 and 1 with dilations 1, 2 and 3, ReLU and batch norm over batch and time, 96
    channels widening to 288), statistics pooling (the mean and standard deviation over
    time), a 128-wide embedding layer with batch norm, and cosine logits against 64
    normalized speaker weights, the true speaker's cosine replaced by cos(theta + 0.2)
    (from the sine, without arccos) and all scaled by 30, under cross-entropy. The
    utterances are sequences of phone templates coloured by a per-speaker spectral
    envelope and a per-utterance channel, with noise. Averaged SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    cin = features
    for i, (c, k) in enumerate(zip(widths, kernels)):
        shapes.update({f"tdnn{i}": (k, cin, c), f"tdnn{i}_b": (c,), f"bn{i}_g": (c,),
                       f"bn{i}_b": (c,)})
        cin = c
    shapes.update({"segment": (2 * cin, embedding), "segment_b": (embedding,),
                   "emb_g": (embedding,), "emb_b": (embedding,),
                   "speakers": (embedding, speakers)})
    p = _params(shapes, seed=10)
    cos_m, sin_m = math.cos(margin), math.sin(margin)

    def loss_fn(p, feats, labels):
        x = feats
        for i, d in enumerate(dilations):
            x = jax.nn.relu(_conv1d(x, p[f"tdnn{i}"], dilation=d) + p[f"tdnn{i}_b"])
            x = _batch_norm(x, p[f"bn{i}_g"], p[f"bn{i}_b"])
        mean = jnp.mean(x, 1)
        std = jnp.sqrt(jnp.mean(jnp.square(x - mean[:, None]), 1) + 1e-5)
        e = jnp.concatenate([mean, std], -1) @ p["segment"] + p["segment_b"]
        e = _batch_norm(e, p["emb_g"], p["emb_b"])
        e = e / jnp.sqrt(jnp.sum(e * e, -1, keepdims=True) + 1e-12)
        w = p["speakers"] / jnp.sqrt(jnp.sum(p["speakers"] ** 2, 0, keepdims=True) + 1e-12)
        cos = jnp.clip(e @ w, -1.0 + 1e-6, 1.0 - 1e-6)
        shifted = cos * cos_m - jnp.sqrt(1.0 - cos * cos) * sin_m
        target = jax.nn.one_hot(labels, speakers, dtype=bool)
        return _cross_entropy(scale * jnp.where(target, shifted, cos), labels)

    rng = np.random.default_rng(10)
    envelopes = 0.7 * _smooth_rows(rng, speakers, features)
    phones = 1.5 * _smooth_rows(rng, 40, features)
    labels = rng.integers(0, speakers, batch)
    feats = np.zeros((batch, frames, features), np.float32)
    for i in range(batch):
        channel = 0.3 * _smooth_rows(rng, 1, features)[0]
        t = 0
        while t < frames:
            span = int(rng.integers(4, 14))
            feats[i, t:t + span] = phones[rng.integers(40)] + envelopes[labels[i]] + channel
            t += span
        feats[i] += 0.3 * rng.standard_normal((frames, features))
    return _train("asgd", loss_fn, p, jnp.asarray(feats), jnp.asarray(labels, jnp.int32))


def sweep_and_prune(boxes: int = 131072, window: int = 16, lanes: int = 48,
                    length: float = 20000.0, report: int = 256) -> Any:
    """Broad-phase collision detection for 131072 axis-aligned boxes scattered along a
    20 km corridor in 48 clusters (a traffic or particle scene), by sort-heavy passes.
    Sweep and prune: the axis of largest spread of the box centres is chosen at run
    time, one `lax.sort` with three operands orders (lower bound, upper bound, box
    index) along it, and every box tests the next 16 boxes of the sweep order for
    overlap on all three axes (gathers); the pairs found are counted per box from both
    sides (a `segment_sum` for the later partner), each box's smallest partner index is
    kept, and boxes whose sweep interval reaches past the window are flagged. A
    uniform-grid pass sorts (cell key, lower bound, index) by two keys with a second
    three-operand `lax.sort`, finds the occupied cells from the key boundaries and
    their occupancy by `segment_sum`; a stable `jnp.argsort` of the pair counts lists
    the 256 most crowded boxes."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    i32 = jnp.int32

    def run(lo, hi):
        n = lo.shape[0]
        centre = 0.5 * (lo + hi)
        axis = jnp.argmax(jnp.var(centre, 0))

        def along(a):
            return jnp.where(axis == 0, a[:, 0], jnp.where(axis == 1, a[:, 1], a[:, 2]))

        ids = jnp.arange(n, dtype=i32)
        start, end, order = lax.sort((along(lo), along(hi), ids), num_keys=1)
        slo, shi = lo[order], hi[order]
        later = jnp.arange(n)[:, None] + jnp.arange(1, window + 1)[None, :]
        inside = later < n
        j = jnp.minimum(later, n - 1)
        touching = inside & (start[j] <= end[:, None])
        for a in range(3):
            touching = touching & (slo[j, a] <= shi[:, None, a]) & (shi[j, a] >= slo[:, None, a])
        found = jnp.sum(touching, 1, dtype=i32)
        from_left = jax.ops.segment_sum(touching.astype(i32).reshape(-1), j.reshape(-1), n)
        counts = jnp.zeros(n, i32).at[order].set(found + from_left)
        partner = jnp.min(jnp.where(touching, order[j], n), 1)
        partner = jnp.full(n, n, i32).at[order].set(partner)
        spill = inside[:, -1] & (start[j[:, -1]] <= end)
        size = 2.0 * jnp.mean(hi - lo)
        cell = jnp.floor((centre - jnp.min(lo, 0)) / size).astype(i32)
        key = (jnp.clip(cell[:, 0], 0, 32767) * 4096 + jnp.clip(cell[:, 1], 0, 63) * 64
               + jnp.clip(cell[:, 2], 0, 63))
        keys, _, members = lax.sort((key, along(lo), ids), num_keys=2)
        boundary = jnp.concatenate([jnp.ones(1, bool), keys[1:] != keys[:-1]])
        group = jnp.cumsum(boundary.astype(i32)) - 1
        occupancy = jax.ops.segment_sum(jnp.ones(n, i32), group, n)
        crowd = jnp.zeros(n, i32).at[members].set(occupancy[group])
        crowded = jnp.argsort(-counts, stable=True)[:report]
        return (counts, partner, jnp.sum(found), jnp.sum(spill), axis, crowd,
                jnp.max(occupancy), jnp.sum(boundary), crowded, counts[crowded])

    rng = np.random.default_rng(11)
    centres = rng.uniform((0.0, 0.0, 0.0), (length, 12.0, 6.0), (lanes, 3))
    widths = rng.uniform(50.0, 600.0, lanes)
    member = rng.integers(0, lanes, boxes)
    centre = centres[member] + np.stack([widths[member] * rng.standard_normal(boxes),
                                         3.0 * rng.standard_normal(boxes),
                                         1.5 * rng.standard_normal(boxes)], 1)
    background = rng.uniform(size=boxes) < 0.2
    centre[background] = rng.uniform((0.0, -6.0, -3.0), (length, 18.0, 9.0),
                                     (int(background.sum()), 3))
    half = rng.lognormal(np.log((2.0, 0.9, 0.8)), 0.3, (boxes, 3))
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(run).lower(f32(centre - half), f32(centre + half))


def fem_plate_cg(nx: int = 121, ny: int = 61, holes: int = 6, iterations: int = 120,
                 poisson: float = 0.3) -> Any:
    """Linear elasticity by the finite element method: a 2 x 1 plate with six circular
    holes, meshed on the host by linear triangles (a jittered 121x61 node grid cut in
    two triangles per cell, those with their centroid in a hole removed: about 6 500
    nodes and 12 000 elements), clamped along its left edge and pulled down along its
    right edge, under plane stress. Each element's strain-displacement matrix and
    stiffness (A B^T D B, 6x6) come from its three gathered corners; the displacement
    is solved matrix-free by 120 iterations of Jacobi-preconditioned conjugate gradients
    in a `fori_loop`, each product gathering the six element unknowns, applying the
    element matrices (a batched einsum) and scatter-adding the results per degree of
    freedom by `segment_sum`, the preconditioner assembled the same way from the
    element diagonals. The residual history, the displacements, per-element von Mises
    stresses, the compliance, the tip deflection and the reactions at the clamp come
    back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(xy, tri, fixed, load):
        dof = 2 * xy.shape[0]
        pa, pb, pc = xy[tri[:, 0]], xy[tri[:, 1]], xy[tri[:, 2]]
        b = jnp.stack([pb[:, 1] - pc[:, 1], pc[:, 1] - pa[:, 1], pa[:, 1] - pb[:, 1]], -1)
        c = jnp.stack([pc[:, 0] - pb[:, 0], pa[:, 0] - pc[:, 0], pb[:, 0] - pa[:, 0]], -1)
        twice = (pb[:, 0] - pa[:, 0]) * (pc[:, 1] - pa[:, 1]) - (pc[:, 0] - pa[:, 0]) * (
            pb[:, 1] - pa[:, 1])
        zero = jnp.zeros_like(b)
        rows = [jnp.stack([b, zero], -1).reshape(-1, 6), jnp.stack([zero, c], -1).reshape(-1, 6),
                jnp.stack([c, b], -1).reshape(-1, 6)]
        strain = jnp.stack(rows, 1) / twice[:, None, None]                # elements, 3, 6
        d = jnp.asarray([[1.0, poisson, 0.0], [poisson, 1.0, 0.0],
                         [0.0, 0.0, 0.5 * (1.0 - poisson)]]) / (1.0 - poisson ** 2)
        k = 0.5 * twice[:, None, None] * jnp.einsum("eki,kl,elj->eij", strain, d, strain)
        dofs = jnp.stack([2 * tri, 2 * tri + 1], -1).reshape(-1, 6)
        free = 1.0 - fixed

        def apply(u):
            return jax.ops.segment_sum(jnp.einsum("eij,ej->ei", k, u[dofs]).reshape(-1),
                                       dofs.reshape(-1), dof)

        diagonal = jax.ops.segment_sum(jnp.diagonal(k, 0, 1, 2).reshape(-1), dofs.reshape(-1), dof)
        inverse = free / jnp.maximum(diagonal, 1e-12)
        f = load * free

        def iterate(i, carry):
            x, r, z, direction, rz, history = carry
            q = apply(direction) * free
            alpha = rz / (jnp.dot(direction, q) + 1e-30)
            x = x + alpha * direction
            r = r - alpha * q
            z = inverse * r
            rz_new = jnp.dot(r, z)
            direction = z + rz_new / (rz + 1e-30) * direction
            return x, r, z, direction, rz_new, history.at[i].set(jnp.sqrt(jnp.dot(r, r)))

        z0 = inverse * f
        start = (jnp.zeros(dof), f, z0, z0, jnp.dot(f, z0), jnp.zeros(iterations))
        u, *_, history = lax.fori_loop(0, iterations, iterate, start)
        stress = jnp.einsum("kl,elj,ej->ek", d, strain, u[dofs])
        mises = jnp.sqrt(stress[:, 0] ** 2 - stress[:, 0] * stress[:, 1] + stress[:, 1] ** 2
                         + 3.0 * stress[:, 2] ** 2)
        reaction = (apply(u) - load) * fixed
        return (u.reshape(-1, 2), mises, history, jnp.dot(f, u), jnp.min(u[1::2]),
                reaction.reshape(-1, 2).sum(0), jnp.max(mises))

    rng = np.random.default_rng(12)
    gx, gy = np.meshgrid(np.linspace(0.0, 2.0, nx), np.linspace(0.0, 1.0, ny), indexing="ij")
    xy = np.stack([gx, gy], -1).reshape(-1, 2)
    border = (gx == 0) | (gx == 2.0) | (gy == 0) | (gy == 1.0)
    xy[~border.reshape(-1)] += rng.uniform(-0.2, 0.2, (int((~border).sum()), 2)) * (2.0 / (nx - 1))
    index = np.arange(nx * ny).reshape(nx, ny)
    a, b_, c_, d_ = index[:-1, :-1], index[1:, :-1], index[1:, 1:], index[:-1, 1:]
    tri = np.concatenate([np.stack([a, b_, c_], -1).reshape(-1, 3),
                          np.stack([a, c_, d_], -1).reshape(-1, 3)])
    centres = rng.uniform((0.3, 0.25), (1.8, 0.75), (holes, 2))
    radii = rng.uniform(0.08, 0.16, holes)
    centroid = xy[tri].mean(1)
    inside = np.zeros(len(tri), bool)
    for (hx, hy), r in zip(centres, radii):
        inside |= np.hypot(centroid[:, 0] - hx, centroid[:, 1] - hy) < r
    tri = tri[~inside]
    used = np.unique(tri)
    renumber = -np.ones(nx * ny, np.int64)
    renumber[used] = np.arange(len(used))
    tri, xy = renumber[tri], xy[used]
    fixed = np.repeat((xy[:, 0] == 0.0).astype(np.float32), 2)
    right = xy[:, 0] == 2.0
    load = np.zeros((len(xy), 2), np.float32)
    load[right, 1] = -1.0 / right.sum()
    return jax.jit(run).lower(jnp.asarray(xy, jnp.float32), jnp.asarray(tri, jnp.int32),
                              jnp.asarray(fixed), jnp.asarray(load.reshape(-1)))


def tv_denoise_primal_dual(images: int = 2, side: int = 192, weight: float = 8.0,
                           tolerance: float = 5e-4, inner: int = 10, max_rounds: int = 30) -> Any:
    """Total-variation denoising (the Rudin-Osher-Fatemi model, min |grad u|_1 +
    lambda/2 |u - f|^2 with lambda 8) of two noisy 192x192 images of piecewise-smooth
    shapes by the accelerated primal-dual algorithm of Chambolle and Pock: a dual ascent
    on the forward-difference gradient projected onto the unit ball per pixel, a
    proximal primal step through the divergence, step sizes updated by
    theta = 1 / sqrt(1 + 2 lambda tau) and an over-relaxed primal point. The iterations
    run in rounds of ten (a `fori_loop`) inside a `while_loop` that stops once every
    image's primal-dual gap (the primal energy less the dual one, -<f, div p> -
    |div p|^2 / (2 lambda)) falls below 5e-4 of its primal energy, capped at 30 rounds.
    The denoised images, the gap after every round, the rounds taken, the PSNR against
    the clean images and the share of pixels on edges come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def gradient(u):
        gx = jnp.concatenate([u[:, :, 1:] - u[:, :, :-1], jnp.zeros_like(u[:, :, :1])], 2)
        gy = jnp.concatenate([u[:, 1:] - u[:, :-1], jnp.zeros_like(u[:, :1])], 1)
        return gx, gy

    def divergence(px, py):
        dx = jnp.concatenate([px[:, :, :1], px[:, :, 1:-1] - px[:, :, :-2], -px[:, :, -2:-1]], 2)
        dy = jnp.concatenate([py[:, :1], py[:, 1:-1] - py[:, :-2], -py[:, -2:-1]], 1)
        return dx + dy

    def run(noisy, clean):
        def energies(u, px, py):
            gx, gy = gradient(u)
            primal = (jnp.sum(jnp.sqrt(gx * gx + gy * gy), (1, 2))
                      + 0.5 * weight * jnp.sum(jnp.square(u - noisy), (1, 2)))
            div = divergence(px, py)
            dual = -jnp.sum(noisy * div, (1, 2)) - jnp.sum(div * div, (1, 2)) / (2.0 * weight)
            return primal, primal - dual

        def iterate(_, carry):
            u, ubar, px, py, tau, sigma = carry
            gx, gy = gradient(ubar)
            px, py = px + sigma * gx, py + sigma * gy
            norm = jnp.maximum(1.0, jnp.sqrt(px * px + py * py))
            px, py = px / norm, py / norm
            new = (u + tau * divergence(px, py) + tau * weight * noisy) / (1.0 + tau * weight)
            theta = 1.0 / jnp.sqrt(1.0 + 2.0 * weight * tau)
            return new, new + theta * (new - u), px, py, theta * tau, sigma / theta

        def unfinished(carry):
            rounds, state, gaps, done = carry
            return (~done) & (rounds < max_rounds)

        def round_(carry):
            rounds, state, gaps, _ = carry
            state = lax.fori_loop(0, inner, iterate, state)
            primal, gap = energies(state[0], state[2], state[3])
            return rounds + 1, state, gaps.at[rounds].set(gap), jnp.all(gap < tolerance * primal)

        step = 1.0 / math.sqrt(8.0)
        zeros = jnp.zeros_like(noisy)
        state = (noisy, noisy, zeros, zeros, jnp.float32(step), jnp.float32(step))
        start = (jnp.int32(0), state, jnp.zeros((max_rounds, noisy.shape[0])), jnp.bool_(False))
        rounds, state, gaps, _ = lax.while_loop(unfinished, round_, start)
        u = state[0]
        mse = jnp.mean(jnp.square(u - clean), (1, 2))
        gx, gy = gradient(u)
        edges = jnp.mean((jnp.sqrt(gx * gx + gy * gy) > 0.05).astype(jnp.float32), (1, 2))
        return u, gaps, rounds, 10.0 * jnp.log10(1.0 / mse), edges

    rng = np.random.default_rng(13)
    yy, xx = np.mgrid[0:side, 0:side] / side
    clean = np.zeros((images, side, side))
    for i in range(images):
        fx, fy = rng.uniform(0.5, 1.5, 2)
        image = 0.3 + 0.2 * np.sin(2 * np.pi * (xx * fx + yy * fy))
        for _ in range(8):
            cy, cx, r = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9), rng.uniform(0.05, 0.2)
            if rng.uniform() < 0.5:
                shape = np.hypot(yy - cy, xx - cx) < r
            else:
                shape = (np.abs(yy - cy) < r) & (np.abs(xx - cx) < 0.7 * r)
            image = np.where(shape, rng.uniform(0.0, 1.0), image)
        clean[i] = image
    noisy = clean + 0.1 * rng.standard_normal(clean.shape)
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(run).lower(f32(noisy), f32(clean))


def gw_matched_filter(segments: int = 4, seconds: int = 16, rate: int = 2048, templates: int = 32,
                      welch: int = 4096, low: float = 25.0, high: float = 800.0) -> Any:
    """A gravitational-wave search by matched filtering: four 16 s segments of detector
    strain sampled at 2048 Hz (Gaussian noise coloured by a steep seismic wall, a flat
    bucket and rising shot noise; two segments hold a binary inspiral at optimal SNR 12
    and 9) against a bank of 32 Newtonian chirp templates with chirp masses from 5 to 20
    solar masses. The noise spectrum of every segment is estimated by Welch's method
    (fifteen Hann-windowed 2 s frames at half overlap, gathered, `rfft`, averaged) and
    interpolated to the full resolution; data and templates go through `rfft`, every
    template's normalization is its whitened power in the 25 to 800 Hz band, and each
    of the 128 (segment, template) products, weighted by the inverse spectrum and kept
    to positive frequencies, returns by a complex `ifft` of 32768 points as a complex
    SNR series. Per segment and template the peak SNR away from the edges and its
    time, the best template, a detection flag at SNR 8 and the chirp mass estimate
    come back with the spectra and the whitened strain (`irfft`)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    n = seconds * rate
    half = n // 2 + 1
    hop = welch // 2
    frames = (n - welch) // hop + 1
    ratio = n // welch
    df = rate / n
    sun = 4.925491e-6                                   # G M_sun / c^3 in seconds

    def run(strain, bank, masses):
        index = np.arange(frames)[:, None] * hop + np.arange(welch)[None, :]
        window = np.hanning(welch + 1)[:-1].astype(np.float32)
        power = jnp.mean(jnp.square(jnp.abs(jnp.fft.rfft(strain[:, index] * window, axis=-1))), 1)
        power = power * 2.0 / (rate * np.sum(window ** 2))
        k = np.arange(half)
        lower = np.minimum(k // ratio, welch // 2)
        upper = np.minimum(lower + 1, welch // 2)
        frac = ((k % ratio) / ratio).astype(np.float32)
        psd = power[:, lower] * (1.0 - frac) + power[:, upper] * frac
        f = k * df
        band = ((f >= low) & (f <= high)).astype(np.float32)
        weight = band / psd                                            # segments, half
        taper = np.ones(n, np.float32)
        ramp = rate // 4
        taper[:ramp] = 0.5 - 0.5 * np.cos(np.pi * np.arange(ramp) / ramp)
        taper[-ramp:] = taper[:ramp][::-1]
        data = jnp.fft.rfft(strain * taper, axis=-1)
        shapes = jnp.fft.rfft(bank, axis=-1)
        sigma = jnp.sqrt(4.0 * df * jnp.einsum("kf,sf->sk", jnp.square(jnp.abs(shapes)), weight)
                         / rate ** 2)
        product = data[:, None] * jnp.conj(shapes)[None] * weight[:, None].astype(jnp.complex64)
        full = jnp.concatenate([product, jnp.zeros(product.shape[:2] + (n - half,),
                                                   jnp.complex64)], -1)
        series = jnp.fft.ifft(full, axis=-1) * (4.0 * df * n / rate ** 2)
        snr = jnp.abs(series) / sigma[..., None]
        edge = np.zeros(n, bool)
        edge[2 * rate:-2 * rate] = True
        snr = jnp.where(edge, snr, 0.0)
        peak = jnp.max(snr, -1)
        when = jnp.argmax(snr, -1)
        best = jnp.argmax(peak, -1)
        top = jnp.max(peak, -1)
        whitening = jnp.sqrt(weight * 2.0 * df).astype(jnp.complex64)
        whitened = jnp.fft.irfft(data * whitening, n, axis=-1)
        return (peak, when, best, top, top > 8.0, masses[best], psd, whitened,
                jnp.std(whitened, -1))

    rng = np.random.default_rng(14)
    freqs = np.fft.rfftfreq(n, 1.0 / rate)
    f_safe = np.maximum(freqs, 1.0)
    psd_true = 1e-3 * (f_safe / 30.0) ** -12 + 1.0 + (f_safe / 300.0) ** 2
    psd_true[freqs < 10.0] = psd_true[freqs >= 10.0][0]
    white = rng.standard_normal((segments, n))
    strain = np.fft.irfft(np.fft.rfft(white) * np.sqrt(psd_true * rate / 2.0), n)

    def chirp(mass, end):
        # a Newtonian inspiral ending at sample `end`, from `low` Hz up to 700 Hz
        m = mass * sun
        tau_low = 5.0 / 256.0 * (np.pi * low) ** (-8.0 / 3.0) * m ** (-5.0 / 3.0)
        tau_high = 5.0 / 256.0 * (np.pi * 700.0) ** (-8.0 / 3.0) * m ** (-5.0 / 3.0)
        t = np.arange(n) / rate
        tau = np.clip((end / rate) - t, tau_high, None)
        live = ((end / rate) - t <= tau_low) & ((end / rate) - t >= tau_high)
        phase = -2.0 * (tau / (5.0 * m)) ** 0.625
        freq = (5.0 / (256.0 * tau)) ** 0.375 / np.pi * m ** -0.625
        wave = freq ** (2.0 / 3.0) * np.cos(phase) * live
        start = max(int(end - tau_low * rate), 0)
        ramp = np.clip((np.arange(n) - start) / (0.1 * rate), 0.0, 1.0)
        return wave * ramp

    masses = np.geomspace(5.0, 20.0, templates)
    bank = np.stack([chirp(m, n - 1) for m in masses])
    for s, (mass, target) in zip((0, 2), ((8.3, 12.0), (13.1, 9.0))):
        signal = chirp(mass, int(rng.integers(n // 2, n - 3 * rate)))
        spectrum = np.fft.rfft(signal) / rate
        optimal = np.sqrt(4.0 * np.sum(np.abs(spectrum[(freqs >= low) & (freqs <= high)]) ** 2
                                       / psd_true[(freqs >= low) & (freqs <= high)]) / n * rate)
        strain[s] += signal * target / optimal
    f32 = lambda a: jnp.asarray(a, jnp.float32)
    return jax.jit(run).lower(f32(strain), f32(bank), f32(masses))


def mog_background(frames: int = 24, height: int = 144, width: int = 192, components: int = 3,
                   rate: float = 0.02, threshold: float = 2.5, portion: float = 0.7) -> Any:
    """Background subtraction for a 24-frame 144x192 RGB video in uint8 by a per-pixel
    mixture of three Gaussians (Stauffer and Grimson), a memory-bound chain of elementwise
    maps with no matrix product or convolution: in a `fori_loop` over the frames every
    pixel tests the frame against its components (within 2.5 standard deviations), the
    first match in priority order updates its weight, mean and variance with the
    learning rate 0.02 over the weight, a pixel with no match replaces its weakest
    component, the weights are renormalized, and a three-step compare-exchange network
    (`jnp.where`) keeps the components sorted by weight over standard deviation; the
    pixel is foreground unless its match lies among the first components that hold 70%
    of the weight. The foreground masks are cleaned by a 3x3 opening (minima and maxima
    of shifted slices) and per frame the foreground share and per pixel the activity
    come back, with the masks and the background image as uint8. The scene is a
    textured backdrop under slow flicker, crossed by moving boxes and discs, with
    sensor noise."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f32 = jnp.float32
    k_ = components

    def run(video):
        first = video[0].astype(f32)
        weights = [jnp.ones((height, width))] + [jnp.zeros((height, width))] * (k_ - 1)
        means = [first] + [jnp.zeros_like(first)] * (k_ - 1)
        variances = ([jnp.full((height, width), 225.0)]
                     + [jnp.full((height, width), 900.0)] * (k_ - 1))

        def exchange(i, j, w, mu, var):
            swap = w[j] * lax.rsqrt(var[j]) > w[i] * lax.rsqrt(var[i])
            w, mu, var = list(w), list(mu), list(var)
            w[i], w[j] = jnp.where(swap, w[j], w[i]), jnp.where(swap, w[i], w[j])
            var[i], var[j] = jnp.where(swap, var[j], var[i]), jnp.where(swap, var[i], var[j])
            mu[i], mu[j] = (jnp.where(swap[..., None], mu[j], mu[i]),
                            jnp.where(swap[..., None], mu[i], mu[j]))
            return w, mu, var

        def frame(t, carry):
            w, mu, var, masks = carry
            x = video[t].astype(f32)
            earlier = jnp.zeros((height, width), bool)
            cumulative = jnp.zeros((height, width))
            background = jnp.zeros((height, width), bool)
            new_w, new_mu, new_var = [], [], []
            for k in range(k_):
                diff = x - mu[k]
                d2 = jnp.sum(diff * diff, -1)
                hit = (d2 < threshold ** 2 * var[k]) & ~earlier
                background = background | (hit & (cumulative < portion))
                cumulative = cumulative + w[k]
                earlier = earlier | hit
                weight = (1.0 - rate) * w[k] + rate * hit
                rho = jnp.minimum(rate / jnp.maximum(weight, 1e-3), 1.0)
                moved = mu[k] + (rho * hit)[..., None] * diff
                spread = jnp.sum(jnp.square(x - moved), -1) / 3.0
                new_w.append(weight)
                new_mu.append(moved)
                updated = jnp.maximum((1.0 - rho) * var[k] + rho * spread, 16.0)
                new_var.append(jnp.where(hit, updated, var[k]))
            missed = ~earlier
            new_w[-1] = jnp.where(missed, 0.05, new_w[-1])
            new_mu[-1] = jnp.where(missed[..., None], x, new_mu[-1])
            new_var[-1] = jnp.where(missed, 900.0, new_var[-1])
            total = sum(new_w)
            new_w = [a / total for a in new_w]
            for i, j in ((0, 1), (1, 2), (0, 1)):
                new_w, new_mu, new_var = exchange(i, j, new_w, new_mu, new_var)
            masks = lax.dynamic_update_index_in_dim(masks, (~background).astype(jnp.uint8), t, 0)
            return new_w, new_mu, new_var, masks

        start = (weights, means, variances, jnp.zeros((frames, height, width), jnp.uint8))
        w, mu, var, masks = lax.fori_loop(1, frames, frame, start)
        m = masks[1:]
        padded = jnp.pad(m, ((0, 0), (1, 1), (1, 1)))
        shifts = [padded[:, 1 + dy:1 + dy + height, 1 + dx:1 + dx + width]
                  for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
        eroded = shifts[0]
        for s in shifts[1:]:
            eroded = jnp.minimum(eroded, s)
        padded = jnp.pad(eroded, ((0, 0), (1, 1), (1, 1)))
        opened = padded[:, :height, :width]
        for dy in range(3):
            for dx in range(3):
                opened = jnp.maximum(opened, padded[:, dy:dy + height, dx:dx + width])
        share = jnp.mean(opened.astype(f32), (1, 2))
        activity = jnp.sum(opened.astype(jnp.int32), 0)
        image = jnp.clip(jnp.round(mu[0]), 0, 255).astype(jnp.uint8)
        return opened, share, activity, image, w[0]

    rng = np.random.default_rng(15)
    backdrop = 128.0 + 50.0 * _smooth_images(rng, 1, 256, 3, 10.0)[0, :height, :width]
    yy, xx = np.mgrid[0:height, 0:width]
    video = np.zeros((frames, height, width, 3))
    movers = [(rng.uniform(0, height), rng.uniform(0, width), rng.uniform(-6, 6),
               rng.uniform(-8, 8), rng.uniform(8, 24), rng.uniform(0, 255, 3), rng.uniform() < 0.5)
              for _ in range(6)]
    for t in range(frames):
        frame_ = backdrop * (1.0 + 0.03 * math.sin(t / 5.0))
        for y0, x0, vy, vx, r, colour, disc in movers:
            cy, cx = (y0 + vy * t) % height, (x0 + vx * t) % width
            inside = (np.hypot(yy - cy, xx - cx) < r) if disc else (
                (np.abs(yy - cy) < r) & (np.abs(xx - cx) < 1.5 * r))
            frame_ = np.where(inside[..., None], colour, frame_)
        video[t] = frame_ + 4.0 * rng.standard_normal(frame_.shape)
    return jax.jit(run).lower(jnp.asarray(np.clip(np.round(video), 0, 255).astype(np.uint8)))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "pointpillars_detector/2x128x128-2048-pillars-32-64-128": pointpillars_detector,
    "pairformer_distogram/2x48-residues-z32-2-blocks-bf16": pairformer_distogram,
    "deberta_mlm/4x128-d128-l2+emd-bf16": deberta_mlm,
    "bidaf_reader/16x80+12-words-h40": bidaf_reader,
    "lightgcn_recommender/4000+3000-24000-edges-d48": lightgcn_recommender,
    "handwriting_synthesis/8x96-steps-24-chars-h96": handwriting_synthesis,
    "demucs_denoiser/4x16384-samples-16-128": demucs_denoiser,
    "iqn_agent/128x24+8-32x32-quantiles": iqn_agent,
    "fastspeech_tts/4x32+128-frames-d96-bf16": fastspeech_tts,
    "xvector_speaker/12x160x30-64-speakers": xvector_speaker,
    "sweep_and_prune/131072-boxes-w16": sweep_and_prune,
    "fem_plate_cg/121x61-6-holes-120-iterations": fem_plate_cg,
    "tv_denoise_primal_dual/2x192px-max30x10": tv_denoise_primal_dual,
    "gw_matched_filter/4x32768-32-templates": gw_matched_filter,
    "mog_background/24x144x192-k3": mog_background,
}
