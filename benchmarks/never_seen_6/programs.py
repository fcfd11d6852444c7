"""The sixth never-seen set: programs written on 2026-11-25, after the fifth set
(benchmarks/never_seen_5/) had been committed, and never used to choose anything: not for
a feature, a default, a fallback threshold or a model. They exist to judge the next
trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-6` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
five never-seen sets has. Ten are training steps (forward, loss, backward and an
optimizer update). A Performer classifier approximates softmax attention over 1024
tokens by FAVOR+ positive random features (orthogonal projections, exponentials
stabilized by a maximum) without ever forming the attention matrix. A MobileNetV3 in
bfloat16 stacks inverted-residual bottlenecks: pointwise expansion, strided depthwise
3x3 and 5x5 convolutions, hard-swish and squeeze-excite with a hard sigmoid, batch norm
throughout. A WaveRNN vocoder computes log-mel features from its own audio (framing
gathers, a real FFT, a mel filter bank), upsamples them by a strided transposed 1-D
convolution, splits each 16-bit sample into coarse and fine bytes by shifts and masks
and runs a masked GRU under `lax.scan` into two 256-way softmaxes. A Transformer-XL
segment attends over a cached memory concatenated in front of it, with sinusoidal
relative positions, the relative-shift trick and separate content and position biases.
A neural spline flow maps data through rational-quadratic coupling layers whose bin is
found by `searchsorted` over `cumsum` knots. A Reformer hashes shared query-keys by
random rotations, sorts tokens by (round, bucket, position) with `argsort`, attends
within chunks and one chunk back, scatters the results back to their places and merges
two hash rounds by their log-sum-exp. A neural Turing machine learns a copy task: an
LSTM controller under `lax.scan` reads and writes an external memory by cosine-content
addressing, interpolation, circular shifts and sharpening by a power. A RetinaNet-style
detector in bfloat16 builds a feature pyramid (transposed-convolution upsampling),
matches anchors to boxes by IoU with argmax gathers and trains a focal loss and a
smooth-L1 box regression. A ConvLSTM nowcaster embeds a clip by a causal 3-D
convolution, encodes it by a convolutional LSTM (dilated state-to-state convolutions)
under one `lax.scan` and forecasts from its own predictions under another. Poincare
embeddings place a hierarchy in the hyperbolic ball (arccosh distances over gathered
rows and sampled negatives) and update by Riemannian SGD with a projection back into
the ball. Five are inference or scientific steps without a gradient: a Monte-Carlo
pricer of Asian and barrier options (antithetic normal paths by `cumsum` and `exp`, a
closed-form geometric-Asian control variate through `erf`, a value at risk by `sort`),
Smith-Waterman local alignment with affine gaps in int32 by a `lax.scan` over
anti-diagonals, beam search over a bfloat16 GRU language model (`top_k` over beams
times vocabulary, parent gathers, a length penalty by a power), a sphere-tracing SDF
renderer (a `while_loop` until every ray has stopped, twisted and repeated primitives,
a smooth union, soft shadows by a `fori_loop`, `atan2` sky and gamma), and Canny edge
detection with histograms of oriented gradients (Gaussian and Sobel convolutions,
`atan2` sectors as integers, non-maximum suppression by gathers, hysteresis by a
`while_loop` of 3x3 max windows, a scatter-add per cell and orientation). The updates
vary: SGD with momentum and decoupled weight decay, Adam, AdamW, AMSGrad, Adamax, LAMB,
Adafactor (factored second moments), RMSProp with momentum, centred RMSProp with
clipping and Riemannian SGD; two training steps (the MobileNetV3 and the RetinaNet) and
the beam search run in bfloat16.
"""

from __future__ import annotations

from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")


def _zeros(tree: Any) -> Any:
    """Float32 zeros shaped like each leaf: optimizer state stays float32 for bfloat16
    parameters."""
    import jax
    import jax.numpy as jnp

    return jax.tree.map(lambda p: jnp.zeros(p.shape, jnp.float32), tree)


def _clip(grads: Any, max_norm: float) -> Any:
    """The gradients scaled down to a global L2 norm of at most `max_norm`."""
    import jax
    import jax.numpy as jnp

    total = sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(grads))
    factor = max_norm / jnp.maximum(jnp.sqrt(total), max_norm)
    return jax.tree.map(lambda g: (g * factor).astype(g.dtype), grads)


def _optimizer(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The named update rule as (init, update): init(params) -> state, and
    update(params, grads, state) -> (params, state). Updates keep each parameter's dtype."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    tm = jax.tree.map
    f32 = jnp.float32

    def apply(params, updates, lr):
        return tm(lambda p, u: (p.astype(f32) - lr * u).astype(p.dtype), params, updates)

    def as_f32(grads):
        return tm(lambda g: g.astype(f32), grads)

    def norm(a):
        return jnp.sqrt(jnp.sum(jnp.square(a.astype(f32))))

    if name == "sgdw":
        def sgdw(params, grads, velocity):
            velocity = tm(lambda b, g: 0.9 * b + g, velocity, as_f32(grads))
            # weight decay applied to the parameters directly, not through the momentum
            direction = tm(lambda b, p: b + 5e-4 * p.astype(f32), velocity, params)
            return apply(params, direction, 1e-2), velocity
        return _zeros, sgdw

    if name == "rmsprop_momentum":
        def rmsprop(params, grads, state):
            mean_sq, velocity = state
            grads = as_f32(grads)
            mean_sq = tm(lambda s, g: 0.9 * s + 0.1 * g * g, mean_sq, grads)
            velocity = tm(lambda v, g, s: 0.9 * v + 1e-2 * g * lax.rsqrt(s + 1e-3),
                          velocity, grads, mean_sq)
            return apply(params, velocity, 1.0), (mean_sq, velocity)
        return (lambda params: (_zeros(params), _zeros(params))), rmsprop

    if name == "centered_rmsprop":
        def centered(params, grads, state):
            mean_sq, mean, velocity = state
            grads = as_f32(_clip(grads, 10.0))
            mean_sq = tm(lambda s, g: 0.95 * s + 0.05 * g * g, mean_sq, grads)
            mean = tm(lambda m, g: 0.95 * m + 0.05 * g, mean, grads)
            # the gradient scaled by its estimated standard deviation, not its RMS
            velocity = tm(lambda v, g, s, m: 0.9 * v + 1e-4 * g * lax.rsqrt(s - m * m + 1e-4),
                          velocity, grads, mean_sq, mean)
            return apply(params, velocity, 1.0), (mean_sq, mean, velocity)
        return (lambda params: (_zeros(params), _zeros(params), _zeros(params))), centered

    if name in ("adam", "adamw", "amsgrad", "adamax", "lamb"):
        def init(params):
            largest = _zeros(params) if name == "amsgrad" else ()
            return _zeros(params), _zeros(params), largest, jnp.zeros((), jnp.int32)

        def adam(params, grads, state):
            m, v, largest, t = state
            grads = as_f32(grads)
            t = t + 1
            step = t.astype(f32)
            c1, c2 = 1.0 - 0.9 ** step, 1.0 - 0.999 ** step
            m = tm(lambda m_, g: 0.9 * m_ + 0.1 * g, m, grads)
            if name == "adamax":   # an exponentially weighted infinity norm: no bias to correct
                v = tm(lambda v_, g: jnp.maximum(0.999 * v_, jnp.abs(g)), v, grads)
                u = tm(lambda m_, v_: (m_ / c1) / (v_ + 1e-8), m, v)
                return apply(params, u, 2e-3), (m, v, largest, t)
            v = tm(lambda v_, g: 0.999 * v_ + 0.001 * g * g, v, grads)
            if name == "amsgrad":  # the largest second moment seen so far
                largest = tm(jnp.maximum, largest, v)
            second = largest if name == "amsgrad" else v
            u = tm(lambda m_, v_: (m_ / c1) / (jnp.sqrt(v_ / c2) + 1e-8), m, second)
            if name in ("adamw", "lamb"):   # decoupled weight decay
                u = tm(lambda u_, p: u_ + 1e-2 * p.astype(f32), u, params)
            if name == "lamb":     # each tensor's step scaled by its trust ratio |p| / |u|
                def trust(u_, p):
                    pn, un = norm(p), norm(u_)
                    return u_ * jnp.where((pn > 0) & (un > 0), pn / un, 1.0)
                u = tm(trust, u, params)
            return apply(params, u, 1e-3), (m, v, largest, t)
        return init, adam

    if name == "adafactor":
        def factored_init(params):
            def moments(p):
                if p.ndim >= 2:   # row and column statistics instead of a full matrix
                    return jnp.zeros(p.shape[:-1], f32), jnp.zeros(p.shape[:-2] + p.shape[-1:], f32)
                return jnp.zeros(p.shape, f32)
            return tm(moments, params), jnp.zeros((), jnp.int32)

        def adafactor(params, grads, state):
            second, t = state
            t = t + 1
            decay = 1.0 - t.astype(f32) ** -0.8

            def moments(g, v):
                g2 = jnp.square(g.astype(f32)) + 1e-30
                if isinstance(v, tuple):
                    return (decay * v[0] + (1 - decay) * g2.mean(-1),
                            decay * v[1] + (1 - decay) * g2.mean(-2))
                return decay * v + (1 - decay) * g2

            second = tm(moments, grads, second)

            def update(p, g, v):
                if isinstance(v, tuple):
                    row, col = v
                    v = row[..., :, None] * col[..., None, :] / row.mean(-1)[..., None, None]
                u = g.astype(f32) * lax.rsqrt(v)
                u = u / jnp.maximum(1.0, jnp.sqrt(jnp.mean(u * u)))
                scale = jnp.maximum(1e-3, jnp.sqrt(jnp.mean(jnp.square(p.astype(f32)))))
                lr = jnp.minimum(1e-2, lax.rsqrt(t.astype(f32))) * scale
                return (p.astype(f32) - lr * u).astype(p.dtype)

            return tm(update, params, grads, second), (second, t)
        return factored_init, adafactor

    if name == "poincare_rsgd":
        def rsgd(params, grads, state):
            def update(p, g):
                # the Euclidean gradient rescaled by the inverse Poincare metric, then the
                # point pulled back inside the unit ball
                metric = jnp.square(1.0 - jnp.square(p).sum(-1, keepdims=True)) / 4.0
                p = p - 0.1 * metric * g
                length = jnp.sqrt(jnp.square(p).sum(-1, keepdims=True))
                return jnp.where(length >= 1.0 - 1e-5, p * ((1.0 - 1e-5) / length), p)
            return tm(update, params, grads), state
        return (lambda params: ()), rsgd

    raise ValueError(name)


def _train_step(optimizer: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    """One training step (loss, gradients, the optimizer's update) lowered for `batch`."""
    import jax

    init, update = _optimizer(optimizer)

    def step(carry, *batch):
        params, state = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state)
        return (params, state), loss

    return jax.jit(step).lower((params, init(params)), *batch)


def _weights(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
             gain: float = 1.0) -> dict[str, Any]:
    """Deterministic normal weights scaled by 1/sqrt(fan-in); names ending in `_b` are
    zero biases."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    dtype = dtype or jnp.float32
    out = {}
    for i, (name, shape) in enumerate(shapes.items()):
        if name.endswith("_b"):
            out[name] = jnp.zeros(shape, dtype)
            continue
        fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
        w = jax.random.normal(jax.random.fold_in(jax.random.PRNGKey(seed), i), shape)
        out[name] = (gain * w / np.sqrt(fan_in)).astype(dtype)
    return out


def _norm_params(channels: int) -> Any:
    """Scale (ones) and shift (zeros) of a normalization layer, stacked, in float32."""
    import jax.numpy as jnp

    return jnp.stack([jnp.ones(channels), jnp.zeros(channels)])


def _layer_norm(x, eps: float = 1e-5):
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mu = x32.mean(-1, keepdims=True)
    var = jnp.square(x32 - mu).mean(-1, keepdims=True)
    return ((x32 - mu) * lax.rsqrt(var + eps)).astype(x.dtype)


def _nll(logits, labels):
    """Mean softmax cross-entropy of integer labels, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1).mean()


def _bce_with_logits(logits, target):
    """Elementwise binary cross-entropy of logits against targets in [0, 1]."""
    import jax.numpy as jnp

    return jnp.maximum(logits, 0.0) - logits * target + jnp.log1p(jnp.exp(-jnp.abs(logits)))


def performer_favor(batch: int = 2, length: int = 1024, vocab: int = 256, d: int = 128,
                    heads: int = 4, features: int = 64, layers: int = 2,
                    classes: int = 10) -> Any:
    """A Performer sequence classifier: bidirectional attention approximated by FAVOR+,
    queries and keys mapped to positive random features exp(w.x - |x|^2/2) over
    orthogonal projections (stabilized by a stopped-gradient maximum), keys summed
    against values once, padding masked out of the keys and the mean pool; AdamW."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    hd = d // heads

    def orthogonal_projection(seed: int) -> Any:
        """Gaussian rows made orthogonal in blocks (QR), rescaled to chi-distributed norms."""
        rng = np.random.default_rng(seed)
        blocks = [np.linalg.qr(rng.standard_normal((hd, hd)))[0].T
                  for _ in range(-(-features // hd))]
        w = np.concatenate(blocks)[:features]
        lengths = np.linalg.norm(rng.standard_normal((features, hd)), axis=1)
        return jnp.asarray(w * lengths[:, None], jnp.float32)            # (m, hd)

    projections = [orthogonal_projection(i) for i in range(layers)]

    def positive_features(x, projection, query):
        x = x * hd ** -0.25
        wx = jnp.einsum("blhe,me->blhm", x, projection)
        # queries stabilized per token, keys by one maximum per sequence and head
        peak = wx.max(-1, keepdims=True) if query else wx.max((1, 3), keepdims=True)
        wx = wx - 0.5 * jnp.square(x).sum(-1, keepdims=True) - lax.stop_gradient(peak)
        return jnp.exp(wx) / np.sqrt(features) + 1e-6

    def attend(w, projection, x, keep):
        q, k, v = (a.reshape(batch, length, heads, hd)
                   for a in jnp.split(_layer_norm(x) @ w["qkv"], 3, -1))
        qf = positive_features(q, projection, True)
        kf = positive_features(k, projection, False) * keep[:, :, None, None]
        kv = jnp.einsum("blhm,blhe->bhme", kf, v)
        num = jnp.einsum("blhm,bhme->blhe", qf, kv)
        den = jnp.einsum("blhm,bhm->blh", qf, kf.sum(1))[..., None]
        return (num / den).reshape(batch, length, d) @ w["out"]

    def loss_fn(p, tokens, lengths, labels):
        keep = (jnp.arange(length)[None, :] < lengths[:, None]).astype(jnp.float32)
        x = p["embed"][tokens] + p["position"]
        for w, projection in zip(p["layers"], projections):
            x = x + attend(w, projection, x, keep)
            x = x + jax.nn.gelu(_layer_norm(x) @ w["up"] + w["up_b"]) @ w["down"]
        pooled = (_layer_norm(x) * keep[..., None]).sum(1) / keep.sum(1, keepdims=True)
        return _nll(pooled @ p["head"], labels)

    p = _weights({"embed": (vocab, d), "position": (length, d), "head": (d, classes)},
                 gain=0.1)
    p["layers"] = [_weights({"qkv": (d, 3 * d), "out": (d, d), "up": (d, 2 * d),
                             "up_b": (2 * d,), "down": (2 * d, d)}, seed=i + 1)
                   for i in range(layers)]
    key = jax.random.PRNGKey(1)
    return _train_step("adamw", loss_fn, p,
                       jax.random.randint(key, (batch, length), 0, vocab),
                       jnp.array([length, 3 * length // 4], jnp.int32)[:batch],
                       jnp.zeros((batch,), jnp.int32))


def mobilenet_v3(batch: int = 16, image: int = 64, classes: int = 100) -> Any:
    """A MobileNetV3-small-like classifier in bfloat16: a strided 3x3 stem with
    hard-swish, inverted-residual bottlenecks (pointwise expansion, depthwise 3x3 or
    5x5 convolution, some strided, squeeze-excite gated by a hard sigmoid, linear
    projection, residual when shapes allow), batch norm in float32 statistics, a
    pooled hard-swish head; RMSProp with momentum, as MobileNets are trained."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    # (expanded channels, output channels, kernel, stride, squeeze-excite, activation)
    config = [(16, 16, 3, 2, True, "relu"), (72, 24, 3, 2, False, "relu"),
              (88, 24, 3, 1, False, "relu"), (96, 40, 5, 2, True, "hswish"),
              (240, 40, 5, 1, True, "hswish"), (120, 48, 5, 1, True, "hswish")]

    def hard_sigmoid(x):
        return jnp.clip(x + 3.0, 0.0, 6.0) / 6.0

    def hard_swish(x):
        return x * hard_sigmoid(x)

    def batch_norm(x, gb):
        x32 = x.astype(f32)
        mu = x32.mean((0, 1, 2))
        var = jnp.square(x32 - mu).mean((0, 1, 2))
        return ((x32 - mu) * lax.rsqrt(var + 1e-3) * gb[0] + gb[1]).astype(bf16)

    def conv(x, w, stride=1, groups=1):
        return lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                        dimension_numbers=_NHWC, feature_group_count=groups)

    def bottleneck(w, x, expand, out, stride, se, act):
        f = jax.nn.relu if act == "relu" else hard_swish
        h = f(batch_norm(x @ w["expand"], w["bn1"])) if "expand" in w else x
        h = f(batch_norm(conv(h, w["depthwise"], stride, expand), w["bn2"]))
        if se:
            s = h.astype(f32).mean((1, 2)).astype(bf16)
            s = hard_sigmoid(jax.nn.relu(s @ w["se1"] + w["se1_b"]) @ w["se2"] + w["se2_b"])
            h = h * s[:, None, None, :]
        h = batch_norm(h @ w["project"], w["bn3"])
        return x + h if stride == 1 and x.shape[-1] == out else h

    def loss_fn(p, img, labels):
        x = hard_swish(batch_norm(conv(img, p["stem"], 2), p["bn_stem"]))
        for w, (expand, out, _, stride, se, act) in zip(p["blocks"], config):
            x = bottleneck(w, x, expand, out, stride, se, act)
        x = hard_swish(batch_norm(x @ p["last"], p["bn_last"]))
        pooled = x.astype(f32).mean((1, 2)).astype(bf16)
        return _nll(hard_swish(pooled @ p["fc"] + p["fc_b"]) @ p["head"], labels)

    def block_weights(cin, expand, out, kernel, se, seed):
        shapes = {"depthwise": (kernel, kernel, 1, expand), "project": (expand, out)}
        if expand != cin:
            shapes["expand"] = (cin, expand)
        if se:
            shapes.update(se1=(expand, expand // 4), se1_b=(expand // 4,),
                          se2=(expand // 4, expand), se2_b=(expand,))
        w = _weights(shapes, seed, bf16)
        w.update(bn1=_norm_params(expand), bn2=_norm_params(expand), bn3=_norm_params(out))
        return w

    p = _weights({"stem": (3, 3, 3, 16), "last": (48, 288), "fc": (288, 512),
                  "fc_b": (512,), "head": (512, classes)}, dtype=bf16)
    p.update(bn_stem=_norm_params(16), bn_last=_norm_params(288))
    cins = [16] + [c[1] for c in config[:-1]]
    p["blocks"] = [block_weights(cin, expand, out, kernel, se, i + 1)
                   for i, (cin, (expand, out, kernel, _, se, _)) in enumerate(zip(cins, config))]
    return _train_step("rmsprop_momentum", loss_fn, p,
                       jax.random.normal(jax.random.PRNGKey(2),
                                         (batch, image, image, 3)).astype(bf16),
                       jnp.zeros((batch,), jnp.int32))


def _mel_filterbank(n_fft: int, mels: int, rate: float) -> Any:
    """Triangular mel filters, (n_fft // 2 + 1, mels), as a numpy array."""
    import numpy as np

    def to_mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    edges = 700.0 * (10.0 ** (np.linspace(0.0, to_mel(rate / 2), mels + 2) / 2595.0) - 1.0)
    freqs = np.linspace(0.0, rate / 2, n_fft // 2 + 1)[:, None]
    rising = (freqs - edges[None, :-2]) / (edges[1:-1] - edges[:-2])
    falling = (edges[None, 2:] - freqs) / (edges[2:] - edges[1:-1])
    return np.maximum(0.0, np.minimum(rising, falling)).astype(np.float32)


def wavernn_vocoder(batch: int = 8, samples: int = 256, hop: int = 32, n_fft: int = 128,
                    mels: int = 40, cond: int = 32, hidden: int = 256) -> Any:
    """A WaveRNN vocoder trained by teacher forcing: log-mel features computed from the
    audio itself (reflect padding, frames gathered, a Hann window, a real FFT, a mel
    filter bank), a 1-D convolution and a stride-32 transposed 1-D convolution upsample
    them to one vector per sample; each 16-bit sample is split into coarse and fine
    bytes (shift, mask), a GRU under `lax.scan` whose input mask hides the current
    coarse byte from the coarse half of the state, two 256-way softmaxes; Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    frames = samples // hop
    window = np.hanning(n_fft + 1)[:-1].astype(np.float32)
    filters = _mel_filterbank(n_fft, mels, 16000.0)
    starts = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None]      # (frames, n_fft)
    half = hidden // 2
    dn = ("NWC", "WIO", "NWC")

    def loss_fn(p, wave):
        coarse, fine = jnp.right_shift(wave, 8), jnp.bitwise_and(wave, 255)
        audio = (wave.astype(jnp.float32) - 32768.0) / 32768.0
        padded = jnp.pad(audio, ((0, 0), (n_fft // 2, n_fft // 2)), mode="reflect")
        spectrum = jnp.fft.rfft(padded[:, starts] * window, axis=-1)
        log_mel = jnp.log(jnp.square(jnp.abs(spectrum)) @ filters + 1e-5)  # (b, frames, mels)
        c = jax.nn.relu(lax.conv_general_dilated(log_mel, p["cond_conv"], (1,), "SAME",
                                                 dimension_numbers=dn) + p["cond_conv_b"])
        upsampled = lax.conv_transpose(c, p["upsample"], (hop,), "VALID", dimension_numbers=dn)

        def scale(byte):
            return byte.astype(jnp.float32) / 127.5 - 1.0

        def previous(byte):
            return jnp.pad(byte, ((0, 0), (1, 0)))[:, :-1]

        inputs = jnp.stack([scale(previous(coarse)), scale(previous(fine)), scale(coarse)], -1)
        x = jnp.concatenate([inputs, upsampled[:, :samples]], -1)
        # the current coarse byte (input row 2) feeds only the fine half of each gate
        row, col = jnp.arange(3 + cond)[:, None], jnp.arange(3 * hidden)[None]
        mask = jnp.where((row == 2) & (col % hidden < half), 0.0, 1.0)
        gates_x = (x @ (p["w_x"] * mask) + p["w_x_b"]).transpose(1, 0, 2)   # (T, b, 3H)

        def cell(h, gx):
            gh = h @ p["w_h"] + p["w_h_b"]
            u = jax.nn.sigmoid(gx[:, :hidden] + gh[:, :hidden])
            r = jax.nn.sigmoid(gx[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
            e = jnp.tanh(gx[:, 2 * hidden:] + r * gh[:, 2 * hidden:])
            h = u * h + (1.0 - u) * e
            return h, h

        _, states = lax.scan(cell, jnp.zeros((batch, hidden)), gates_x)       # (T, b, H)
        coarse_logits = jax.nn.relu(states[..., :half] @ p["o1"] + p["o1_b"]) @ p["o2"]
        fine_logits = jax.nn.relu(states[..., half:] @ p["o3"] + p["o3_b"]) @ p["o4"]
        return _nll(coarse_logits, coarse.T) + _nll(fine_logits, fine.T)

    p = _weights({"cond_conv": (3, mels, 64), "cond_conv_b": (64,), "upsample": (hop, 64, cond),
                  "w_x": (3 + cond, 3 * hidden), "w_x_b": (3 * hidden,),
                  "w_h": (hidden, 3 * hidden), "w_h_b": (3 * hidden,),
                  "o1": (half, half), "o1_b": (half,), "o2": (half, 256),
                  "o3": (half, half), "o3_b": (half,), "o4": (half, 256)})
    wave = jax.random.randint(jax.random.PRNGKey(3), (batch, samples), 0, 65536, jnp.int32)
    return _train_step("adam", loss_fn, p, wave)


def transformer_xl(batch: int = 4, segment: int = 128, memory: int = 128, vocab: int = 1024,
                   d: int = 128, heads: int = 4, layers: int = 2) -> Any:
    """A Transformer-XL language-model segment: each layer attends over its cached
    memory (gradient stopped) concatenated in front of the segment, scores as content
    terms plus position terms against sinusoidal relative-distance embeddings aligned
    by the relative-shift trick (pad, reshape, drop a row), separate learned content
    and position biases, a causal mask offset by the memory; Adafactor."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    hd = d // heads
    klen = memory + segment

    def relative_embeddings():
        distance = jnp.arange(klen - 1, -1, -1, dtype=jnp.float32)
        inv_freq = 1.0 / (10000.0 ** (jnp.arange(0, d, 2, dtype=jnp.float32) / d))
        angle = distance[:, None] * inv_freq[None]
        return jnp.concatenate([jnp.sin(angle), jnp.cos(angle)], -1)         # (klen, d)

    def relative_shift(x):
        """Scores against distances klen-1 .. 0 realigned so column j is key j."""
        b, h, q, k = x.shape
        x = jnp.pad(x, ((0, 0), (0, 0), (0, 0), (1, 0)))
        return x.reshape(b, h, k + 1, q)[:, :, 1:].reshape(b, h, q, k)

    def layer(w, x, mem, rel):
        context = _layer_norm(jnp.concatenate([lax.stop_gradient(mem), x], 1))
        q = (context[:, memory:] @ w["q"]).reshape(batch, segment, heads, hd)
        k, v = (a.reshape(batch, klen, heads, hd) for a in jnp.split(context @ w["kv"], 2, -1))
        r = (rel @ w["r"]).reshape(klen, heads, hd)
        content = jnp.einsum("bqhe,bkhe->bhqk", q + w["content_b"], k)
        position = relative_shift(jnp.einsum("bqhe,khe->bhqk", q + w["position_b"], r))
        visible = jnp.arange(klen)[None, :] <= jnp.arange(segment)[:, None] + memory
        s = jnp.where(visible, (content + position) / np.sqrt(hd), -1e30)
        o = jnp.einsum("bhqk,bkhe->bqhe", jax.nn.softmax(s, -1), v)
        x = x + o.reshape(batch, segment, d) @ w["o"]
        return x + jax.nn.relu(_layer_norm(x) @ w["ff1"] + w["ff1_b"]) @ w["ff2"]

    def loss_fn(p, tokens, mems):
        x = p["embed"][tokens[:, :-1]] * np.sqrt(d)
        rel = relative_embeddings()
        for i, w in enumerate(p["layers"]):
            x = layer(w, x, mems[i], rel)
        return _nll(_layer_norm(x) @ p["embed"].T, tokens[:, 1:])

    p = _weights({"embed": (vocab, d)}, gain=0.02 * vocab ** 0.5)
    p["layers"] = [_weights({"q": (d, d), "kv": (d, 2 * d), "r": (d, d), "o": (d, d),
                             "content_b": (heads, hd), "position_b": (heads, hd),
                             "ff1": (d, 4 * d), "ff1_b": (4 * d,), "ff2": (4 * d, d)},
                            seed=i + 1) for i in range(layers)]
    key = jax.random.PRNGKey(4)
    return _train_step("adafactor", loss_fn, p,
                       jax.random.randint(key, (batch, segment + 1), 0, vocab),
                       jax.random.normal(jax.random.fold_in(key, 1),
                                         (layers, batch, memory, d)))


def spline_flow(batch: int = 1024, dim: int = 8, bins: int = 8, hidden: int = 128,
                couplings: int = 4, bound: float = 3.0) -> Any:
    """A neural spline flow fitted by maximum likelihood: coupling layers (halves
    swapped by a flip between them) whose MLP conditioner emits, per transformed
    coordinate, the widths, heights and knot slopes of a monotone rational-quadratic
    spline on [-3, 3] (softmax, `cumsum` knots, softplus slopes; identity tails); each
    input's bin is found by `searchsorted` and its parameters gathered; Adamax."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    half = dim // 2
    minimum = 1e-3

    def knots(logits):
        sizes = minimum + (1.0 - minimum * bins) * jax.nn.softmax(logits, -1)
        edges = jnp.pad(jnp.cumsum(sizes, -1), [(0, 0)] * (sizes.ndim - 1) + [(1, 0)])
        return 2.0 * bound * edges - bound, 2.0 * bound * sizes

    def rational_quadratic(x, params):
        xs, widths = knots(params[..., :bins])
        ys, heights = knots(params[..., bins:2 * bins])
        slopes = minimum + jax.nn.softplus(params[..., 2 * bins:])
        ones = jnp.ones(slopes.shape[:-1] + (1,))
        slopes = jnp.concatenate([ones, slopes, ones], -1)    # slope 1 meets the linear tails
        inside = (x > -bound) & (x < bound)
        xc = jnp.clip(x, -bound, bound)
        found = jax.vmap(lambda edges, v: jnp.searchsorted(edges, v, side="right"))(
            xs.reshape(-1, bins + 1), xc.reshape(-1))
        index = jnp.clip(found - 1, 0, bins - 1).reshape(x.shape)[..., None]

        def take(a):
            return jnp.take_along_axis(a, index, -1)[..., 0]

        x0, w, y0, h = take(xs), take(widths), take(ys), take(heights)
        d0, d1 = take(slopes), take(slopes[..., 1:])
        s = h / w
        xi = (xc - x0) / w
        mixed = xi * (1.0 - xi)
        denominator = s + (d0 + d1 - 2.0 * s) * mixed
        y = y0 + h * (s * xi * xi + d0 * mixed) / denominator
        derivative = s * s * (d1 * xi * xi + 2.0 * s * mixed + d0 * jnp.square(1.0 - xi)
                              ) / jnp.square(denominator)
        return jnp.where(inside, y, x), jnp.where(inside, jnp.log(derivative), 0.0).sum(-1)

    def loss_fn(p, x):
        log_det = 0.0
        for i, w in enumerate(p["couplings"]):
            if i:
                x = jnp.flip(x, -1)
            fixed, moved = x[:, :half], x[:, half:]
            h = jax.nn.gelu(fixed @ w["l1"] + w["l1_b"])
            h = jax.nn.gelu(h @ w["l2"] + w["l2_b"])
            params = (h @ w["l3"] + w["l3_b"]).reshape(batch, half, 3 * bins - 1)
            moved, ld = rational_quadratic(moved, params)
            x = jnp.concatenate([fixed, moved], -1)
            log_det = log_det + ld
        log_base = -0.5 * jnp.square(x).sum(-1) - 0.5 * dim * np.log(2 * np.pi)
        return -(log_base + log_det).mean()

    p = {"couplings": [
        {**_weights({"l1": (half, hidden), "l1_b": (hidden,), "l2": (hidden, hidden),
                     "l2_b": (hidden,)}, seed=i),
         **_weights({"l3": (hidden, half * (3 * bins - 1)),
                     "l3_b": (half * (3 * bins - 1),)}, seed=100 + i, gain=0.01)}
        for i in range(couplings)]}
    u = jax.random.normal(jax.random.PRNGKey(5), (batch, dim))
    data = u + 0.8 * jnp.sin(2.0 * jnp.flip(u, -1)) + 0.3 * jnp.square(jnp.roll(u, 1, -1))
    return _train_step("adamax", loss_fn, p, data)


def reformer_lsh(batch: int = 1, length: int = 1024, vocab: int = 256, d: int = 128,
                 heads: int = 2, buckets: int = 16, chunk: int = 64, hashes: int = 2,
                 layers: int = 2) -> Any:
    """A Reformer denoiser with LSH attention: shared query-keys hashed by random
    rotations drawn in the step (argmax over [xR, -xR]), tokens sorted by (hash round,
    bucket, position) with `argsort`, attention within chunks of 64 and one chunk back
    against normalized keys (a token sees itself only when nothing else is there),
    results scattered back to their positions and merged over two hash rounds by their
    log-sum-exp weights; LAMB."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    hd = d // heads
    n_chunks = hashes * length // chunk

    def heads_first(a):
        return a.reshape(batch, length, heads, hd).transpose(0, 2, 1, 3)

    def lsh_attention(w, x, rotations):
        h = _layer_norm(x)
        qk, v = heads_first(h @ w["qk"]), heads_first(h @ w["v"])
        rotated = jnp.einsum("bhle,nek->bhnlk", lax.stop_gradient(qk), rotations)
        bucket = jnp.argmax(jnp.concatenate([rotated, -rotated], -1), -1)   # (b, h, n, L)
        rounds = jnp.arange(hashes)[:, None]
        keys = ((rounds * buckets + bucket) * length + jnp.arange(length)).reshape(
            batch, heads, hashes * length)
        order = jnp.argsort(keys, -1)
        position = order % length
        ticker = jnp.arange(hashes * length)
        undo = jax.vmap(jax.vmap(lambda o: jnp.zeros_like(o).at[o].set(ticker)))(order)

        def sorted_chunks(a):
            return jnp.take_along_axis(a, position[..., None], 2).reshape(
                batch, heads, n_chunks, chunk, -1)

        def look_back(a):
            return jnp.concatenate([a, jnp.roll(a, 1, 2)], 3)

        q, values = sorted_chunks(qk), sorted_chunks(v)
        k = q / (jnp.sqrt(jnp.square(q).sum(-1, keepdims=True)) + 1e-6)
        q_pos = position.reshape(batch, heads, n_chunks, chunk)
        k, values, k_pos = look_back(k), look_back(values), look_back(q_pos)
        s = jnp.einsum("bhcqe,bhcke->bhcqk", q, k) / np.sqrt(hd)
        s = jnp.where(q_pos[..., :, None] == k_pos[..., None, :], -1e5, s)
        lse = jax.nn.logsumexp(s, -1, keepdims=True)
        o = jnp.einsum("bhcqk,bhcke->bhcqe", jnp.exp(s - lse), values)
        o = jnp.take_along_axis(o.reshape(batch, heads, -1, hd), undo[..., None], 2)
        lse = jnp.take_along_axis(lse.reshape(batch, heads, -1), undo, 2)
        weights = jax.nn.softmax(lse.reshape(batch, heads, hashes, length), 2)[..., None]
        o = (o.reshape(batch, heads, hashes, length, hd) * weights).sum(2)
        return o.transpose(0, 2, 1, 3).reshape(batch, length, d) @ w["out"]

    def loss_fn(p, noisy, clean, key):
        x = p["embed"][noisy] + p["position"]
        for i, w in enumerate(p["layers"]):
            rotations = jax.random.normal(jax.random.fold_in(key, i),
                                          (hashes, hd, buckets // 2))
            x = x + lsh_attention(w, x, rotations)
            x = x + jax.nn.relu(_layer_norm(x) @ w["up"] + w["up_b"]) @ w["down"]
        return _nll(_layer_norm(x) @ p["head"], clean)

    p = _weights({"embed": (vocab, d), "position": (length, d), "head": (d, vocab)}, gain=0.1)
    p["layers"] = [_weights({"qk": (d, d), "v": (d, d), "out": (d, d), "up": (d, 2 * d),
                             "up_b": (2 * d,), "down": (2 * d, d)}, seed=i + 1)
                   for i in range(layers)]
    key = jax.random.PRNGKey(6)
    clean = jax.random.randint(key, (batch, length), 0, vocab)
    flip = jax.random.bernoulli(jax.random.fold_in(key, 1), 0.15, (batch, length))
    noisy = jnp.where(flip, jax.random.randint(jax.random.fold_in(key, 2), (batch, length),
                                               0, vocab), clean)
    return _train_step("lamb", loss_fn, p, noisy, clean, jax.random.PRNGKey(7))


def ntm_copy(batch: int = 32, bits: int = 8, copy_len: int = 20, slots: int = 128,
             width: int = 32, controller: int = 128) -> Any:
    """A neural Turing machine on the copy task (a sequence of random 8-bit vectors, a
    delimiter, then silence while it replays them) under `lax.scan`: an LSTM controller
    fed the last read, a write head (erase and add) and a read head, each addressed by
    cosine content similarity sharpened by a learned strength, gated interpolation with
    the previous weighting, a circular shift by a 3-tap softmax (rolls) and sharpening
    by a learned power; bitwise cross-entropy on the replay; centred RMSProp with
    clipping, as the original was trained."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    steps = 2 * copy_len + 1
    head = width + 6    # key, strength, gate, three shift weights, sharpening

    def address(params, memory, previous):
        key = params[:, :width]
        strength = jax.nn.softplus(params[:, width:width + 1])
        gate = jax.nn.sigmoid(params[:, width + 1:width + 2])
        shift = jax.nn.softmax(params[:, width + 2:width + 5], -1)
        sharpen = 1.0 + jax.nn.softplus(params[:, width + 5:width + 6])
        norms = (jnp.sqrt(jnp.square(memory).sum(-1))
                 * jnp.sqrt(jnp.square(key).sum(-1, keepdims=True)))
        similarity = jnp.einsum("bnw,bw->bn", memory, key) / (norms + 1e-8)
        w = gate * jax.nn.softmax(strength * similarity, -1) + (1.0 - gate) * previous
        w = (shift[:, :1] * jnp.roll(w, -1, 1) + shift[:, 1:2] * w
             + shift[:, 2:] * jnp.roll(w, 1, 1))
        w = jnp.power(w + 1e-12, sharpen)
        return w / w.sum(-1, keepdims=True)

    def loss_fn(p, sequence):
        def step(state, x):
            h, c, memory, w_read, w_write, read = state
            gates = (jnp.concatenate([x, read], -1) @ p["lstm_x"] + h @ p["lstm_h"]
                     + p["lstm_b"])
            i, f, o, u = jnp.split(gates, 4, -1)
            c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(u)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            write = h @ p["write"] + p["write_b"]
            w_write = address(write[:, :head], memory, w_write)
            erase = jax.nn.sigmoid(write[:, head:head + width])
            add = jnp.tanh(write[:, head + width:])
            memory = (memory * (1.0 - w_write[:, :, None] * erase[:, None])
                      + w_write[:, :, None] * add[:, None])
            w_read = address(h @ p["read"] + p["read_b"], memory, w_read)
            read = jnp.einsum("bn,bnw->bw", w_read, memory)
            return (h, c, memory, w_read, w_write, read), h @ p["out_h"] + read @ p["out_r"]

        focus = jnp.zeros((batch, slots)).at[:, 0].set(1.0)
        start = (jnp.zeros((batch, controller)), jnp.zeros((batch, controller)),
                 jnp.broadcast_to(p["memory0"], (batch, slots, width)), focus, focus,
                 jnp.zeros((batch, width)))
        _, logits = lax.scan(step, start, sequence)
        replay = logits[copy_len + 1:] + p["out_b"]
        return _bce_with_logits(replay, sequence[:copy_len, :, :bits]).mean()

    p = _weights({"lstm_x": (bits + 1 + width, 4 * controller),
                  "lstm_h": (controller, 4 * controller), "lstm_b": (4 * controller,),
                  "write": (controller, head + 2 * width), "write_b": (head + 2 * width,),
                  "read": (controller, head), "read_b": (head,), "out_h": (controller, bits),
                  "out_r": (width, bits), "out_b": (bits,), "memory0": (slots, width)})
    pattern = jax.random.bernoulli(jax.random.PRNGKey(8), 0.5, (copy_len, batch, bits))
    sequence = jnp.zeros((steps, batch, bits + 1))
    sequence = sequence.at[:copy_len, :, :bits].set(pattern.astype(jnp.float32))
    sequence = sequence.at[copy_len, :, bits].set(1.0)                      # the delimiter
    return _train_step("centered_rmsprop", loss_fn, p, sequence)


def retinanet_focal(batch: int = 8, image: int = 64, classes: int = 20, boxes: int = 8,
                    fpn: int = 64) -> Any:
    """A RetinaNet-style detector in bfloat16: a strided convolutional backbone, a
    feature pyramid (1x1 laterals, learned 2x2 transposed-convolution upsampling, 3x3
    smoothing) over strides 4, 8 and 16, a shared head with group norm, three anchors
    per location matched to ground-truth boxes by IoU (max and argmax over boxes,
    positives >= 0.5, ignored in between), a focal loss (a power of 1 - p_t) and a
    smooth-L1 loss on encoded box offsets of the positives, in float32; SGD with
    momentum and decoupled weight decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    strides, sizes, ratios = (4, 8, 16), (16.0, 32.0, 64.0), np.array([0.5, 1.0, 2.0])
    n_anchor = len(ratios)

    def make_anchors():
        out = []
        for stride, size in zip(strides, sizes):
            n = image // stride
            centres = (np.arange(n) + 0.5) * stride
            cy, cx = np.meshgrid(centres, centres, indexing="ij")
            w, h = size / np.sqrt(ratios), size * np.sqrt(ratios)
            grid = np.stack(np.broadcast_arrays(cx[..., None], cy[..., None], w, h), -1)
            out.append(grid.reshape(-1, 4))
        return np.concatenate(out).astype(np.float32)                       # (N, cx cy w h)

    anchors = make_anchors()
    corners = np.concatenate([anchors[:, :2] - anchors[:, 2:] / 2,
                              anchors[:, :2] + anchors[:, 2:] / 2], -1)

    def conv(x, w, stride=1):
        return lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=_NHWC)

    def group_norm(x, gb, groups=8):
        b, h, w, c = x.shape
        g = x.astype(f32).reshape(b, h, w, groups, c // groups)
        mu = g.mean((1, 2, 4), keepdims=True)
        var = jnp.square(g - mu).mean((1, 2, 4), keepdims=True)
        g = ((g - mu) * lax.rsqrt(var + 1e-5)).reshape(b, h, w, c)
        return (g * gb[0] + gb[1]).astype(bf16)

    def up(x, w):
        return lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=_NHWC)

    def loss_fn(p, img, gt_boxes, gt_labels):
        c = img
        features = []
        for i in range(4):
            c = jax.nn.relu(conv(c, p[f"c{i}"], 2) + p[f"c{i}_b"])
            if i:
                features.append(c)
        c3, c4, c5 = features
        p5 = c5 @ p["lat5"]
        p4 = c4 @ p["lat4"] + up(p5, p["up5"])
        p3 = c3 @ p["lat3"] + up(p4, p["up4"])
        cls_out, box_out = [], []
        for level, name in ((p3, "s3"), (p4, "s4"), (p5, "s5")):
            h = jax.nn.relu(group_norm(conv(conv(level, p[name]), p["head"]), p["gn"]))
            cls_out.append(conv(h, p["cls"]).reshape(batch, -1, classes) + p["cls_bias"])
            box_out.append(conv(h, p["box"]).reshape(batch, -1, 4))
        logits = jnp.concatenate(cls_out, 1).astype(f32)                   # (b, N, C)
        offsets = jnp.concatenate(box_out, 1).astype(f32)                  # (b, N, 4)

        valid = gt_labels >= 0
        lo = jnp.maximum(corners[None, :, None, :2], gt_boxes[:, None, :, :2])
        hi = jnp.minimum(corners[None, :, None, 2:], gt_boxes[:, None, :, 2:])
        inter = jnp.prod(jnp.maximum(hi - lo, 0.0), -1)                     # (b, N, G)
        area_gt = jnp.prod(gt_boxes[..., 2:] - gt_boxes[..., :2], -1)
        iou = inter / (np.prod(anchors[:, 2:], -1)[None, :, None] + area_gt[:, None] - inter)
        iou = jnp.where(valid[:, None], iou, -1.0)
        best, match = iou.max(-1), iou.argmax(-1)
        positive, negative = best >= 0.5, best < 0.4
        count = jnp.maximum(positive.sum(), 1).astype(f32)

        labels = jnp.take_along_axis(gt_labels, match, 1)
        target = jax.nn.one_hot(labels, classes) * positive[..., None]
        prob = jax.nn.sigmoid(logits)
        p_t = prob * target + (1.0 - prob) * (1.0 - target)
        alpha = 0.25 * target + 0.75 * (1.0 - target)
        focal = alpha * jnp.power(1.0 - p_t, 2.0) * _bce_with_logits(logits, target)
        cls_loss = jnp.where((positive | negative)[..., None], focal, 0.0).sum() / count

        matched = jnp.take_along_axis(gt_boxes, match[..., None], 1)        # (b, N, 4)
        centre = (matched[..., :2] + matched[..., 2:]) / 2
        size = matched[..., 2:] - matched[..., :2]
        encoded = jnp.concatenate([(centre - anchors[:, :2]) / anchors[:, 2:],
                                   jnp.log(size / anchors[:, 2:])], -1)
        diff = jnp.abs(offsets - encoded)
        smooth = jnp.where(diff < 1.0 / 9.0, 4.5 * diff * diff, diff - 0.5 / 9.0)
        box_loss = (smooth.sum(-1) * positive).sum() / count
        return cls_loss + box_loss

    widths = (3, 32, 64, 96, 128)
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(4):
        shapes[f"c{i}"] = (3, 3, widths[i], widths[i + 1])
        shapes[f"c{i}_b"] = (widths[i + 1],)
    shapes.update(lat3=(64, fpn), lat4=(96, fpn), lat5=(128, fpn), up4=(2, 2, fpn, fpn),
                  up5=(2, 2, fpn, fpn), s3=(3, 3, fpn, fpn), s4=(3, 3, fpn, fpn),
                  s5=(3, 3, fpn, fpn), head=(3, 3, fpn, fpn),
                  cls=(3, 3, fpn, n_anchor * classes), box=(3, 3, fpn, n_anchor * 4))
    p = _weights(shapes, dtype=bf16)
    p["gn"] = _norm_params(fpn)
    p["cls_bias"] = jnp.full((classes,), -np.log(99.0), f32)    # a prior probability of 0.01
    key = jax.random.PRNGKey(9)
    origin = jax.random.uniform(key, (batch, boxes, 2), maxval=image - 24.0)
    extent = jax.random.uniform(jax.random.fold_in(key, 1), (batch, boxes, 2),
                                minval=8.0, maxval=24.0)
    gt_labels = jax.random.randint(jax.random.fold_in(key, 2), (batch, boxes), 0, classes)
    gt_labels = gt_labels.at[:, -2:].set(-1)                               # padding boxes
    return _train_step("sgdw", loss_fn, p,
                       jax.random.normal(jax.random.fold_in(key, 3),
                                         (batch, image, image, 3)).astype(bf16),
                       jnp.concatenate([origin, origin + extent], -1), gt_labels)


def convlstm_nowcast(batch: int = 2, side: int = 24, observed: int = 6, forecast: int = 4,
                     stem: int = 8, hidden: int = 16) -> Any:
    """A precipitation nowcaster: a causal 3x3x3 convolution over (time, height, width)
    embeds the observed radar frames, an encoder ConvLSTM (3x3 input convolutions,
    dilated 3x3 state-to-state convolutions) runs over them under `lax.scan`, and a
    forecaster ConvLSTM started from its state rolls forward under a second
    `lax.scan`, fed its own previous prediction; intensity-weighted squared error;
    AMSGrad."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dn3 = ("NDHWC", "DHWIO", "NDHWC")

    def conv(x, w, dilation=1):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(dilation, dilation),
                                        dimension_numbers=_NHWC)

    def cell(w, state, x):
        h, c = state
        g = conv(x, w["x"]) + conv(h, w["h"], 2) + w["gates_b"]
        i, f, o, u = jnp.split(g, 4, -1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(u)
        return jax.nn.sigmoid(o) * jnp.tanh(c), c

    def loss_fn(p, frames):
        past, future = frames[:, :observed], frames[:, observed:]
        x = jnp.pad(past, ((0, 0), (2, 0), (0, 0), (0, 0), (0, 0)))   # no frame sees a later one
        x = lax.conv_general_dilated(x, p["stem"], (1, 1, 1), ((0, 0), (1, 1), (1, 1)),
                                     dimension_numbers=dn3)
        x = jax.nn.relu(x + p["stem_b"])

        def encode(state, frame):
            return cell(p["encoder"], state, frame), None

        zeros = jnp.zeros((batch, side, side, hidden))
        state, _ = lax.scan(encode, (zeros, zeros), x.transpose(1, 0, 2, 3, 4))

        def roll_forward(carry, _):
            state, previous = carry
            state = cell(p["forecaster"], state, previous)
            frame = jax.nn.sigmoid(state[0] @ p["readout"] + p["readout_b"])
            return (state, frame), frame

        _, predicted = lax.scan(roll_forward, (state, past[:, -1]), None, length=forecast)
        target = future.transpose(1, 0, 2, 3, 4)
        return ((1.0 + 4.0 * target) * jnp.square(predicted - target)).mean()

    def cell_weights(c_in, seed):
        return _weights({"x": (3, 3, c_in, 4 * hidden), "h": (3, 3, hidden, 4 * hidden),
                         "gates_b": (4 * hidden,)}, seed)

    p = _weights({"stem": (3, 3, 3, 1, stem), "stem_b": (stem,), "readout": (hidden, 1),
                  "readout_b": (1,)})
    p["encoder"], p["forecaster"] = cell_weights(stem, 1), cell_weights(1, 2)
    # Gaussian rain cells drifting across the grid at per-sequence velocities
    rng = np.random.default_rng(10)
    times = np.arange(observed + forecast)
    yy, xx = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    start, velocity = rng.uniform(4, side - 4, (2, batch)), rng.uniform(-1.5, 1.5, (2, batch))
    cy, cx = (start[:, :, None] + velocity[:, :, None] * times)[..., None, None]   # (b, T, 1, 1)
    frames = np.exp(-(np.square(yy - cy) + np.square(xx - cx)) / 18.0)
    return _train_step("amsgrad", loss_fn, p, jnp.asarray(frames[..., None], jnp.float32))


def poincare_embeddings(entities: int = 65536, d: int = 32, batch: int = 2048,
                        negatives: int = 50) -> Any:
    """Poincare embeddings of a hierarchy: child-parent pairs and sampled non-parents
    gathered from one table, hyperbolic distances arccosh(1 + 2|u-v|^2 / ((1-|u|^2)
    (1-|v|^2))), a softmax loss ranking the parent closest; Riemannian SGD (the gradient
    scaled by the inverse metric, rows projected back inside the unit ball)."""
    import jax
    import jax.numpy as jnp

    def distance(u, v):
        gap = jnp.square(u - v).sum(-1)
        inside = (1.0 - jnp.square(u).sum(-1)) * (1.0 - jnp.square(v).sum(-1))
        return jnp.arccosh(jnp.maximum(1.0 + 2.0 * gap / (inside + 1e-9), 1.0 + 1e-7))

    def loss_fn(p, child, parent, others):
        u = p["table"][child]
        v = p["table"][jnp.concatenate([parent[:, None], others], 1)]        # (B, 1 + K, d)
        return -jax.nn.log_softmax(-distance(u[:, None], v), -1)[:, 0].mean()

    key = jax.random.PRNGKey(11)
    p = {"table": jax.random.uniform(key, (entities, d), minval=-1e-3, maxval=1e-3)}
    child = jax.random.randint(jax.random.fold_in(key, 1), (batch,), 1, entities)
    return _train_step("poincare_rsgd", loss_fn, p, child, child // 4,
                       jax.random.randint(jax.random.fold_in(key, 2), (batch, negatives),
                                          0, entities))


def monte_carlo_options(paths: int = 8192, steps: int = 64, strikes: int = 64,
                        spot: float = 100.0, rate: float = 0.03, vol: float = 0.25,
                        maturity: float = 1.0, barrier: float = 75.0) -> Any:
    """Inference: Monte-Carlo prices of a strip of arithmetic-average Asian calls and
    down-and-out calls under geometric Brownian motion: antithetic normal increments,
    log-price paths by `cumsum` and `exp`, a control variate from the closed-form price
    of the geometric-average Asian call (normal CDFs by `erf`), standard errors, the
    number of knocked-out paths (int32) and a 99% value at risk by `sort`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.scipy.special import erf

    dt = maturity / steps
    n = steps
    # the geometric average of a discretely monitored lognormal path is lognormal
    vol_g = vol * np.sqrt((n + 1) * (2 * n + 1) / (6.0 * n * n))
    drift_g = (rate - 0.5 * vol * vol) * (n + 1) / (2.0 * n) + 0.5 * vol_g ** 2
    discount = np.exp(-rate * maturity)

    def normal_cdf(x):
        return 0.5 * (1.0 + erf(x / np.sqrt(2.0)))

    def run(key, strike):
        z = jax.random.normal(key, (paths, steps))
        z = jnp.concatenate([z, -z])                                          # antithetic
        log_price = np.log(spot) + jnp.cumsum((rate - 0.5 * vol * vol) * dt
                                              + vol * np.sqrt(dt) * z, axis=1)
        price = jnp.exp(log_price)
        arithmetic = price.mean(1)
        geometric = jnp.exp(log_price.mean(1))
        asian = discount * jnp.maximum(arithmetic[:, None] - strike, 0.0)    # (2P, K)
        geo = discount * jnp.maximum(geometric[:, None] - strike, 0.0)
        d1 = ((jnp.log(spot / strike) + (drift_g + 0.5 * vol_g ** 2) * maturity)
              / (vol_g * np.sqrt(maturity)))
        d2 = d1 - vol_g * np.sqrt(maturity)
        exact = discount * (spot * np.exp(drift_g * maturity) * normal_cdf(d1)
                            - strike * normal_cdf(d2))
        asian_c, geo_c = asian - asian.mean(0), geo - geo.mean(0)
        beta = (asian_c * geo_c).mean(0) / (jnp.square(geo_c).mean(0) + 1e-12)
        corrected = asian - beta * (geo - exact)
        price_cv = corrected.mean(0)
        stderr = corrected.std(0) / np.sqrt(2 * paths)
        knocked = price.min(1) <= barrier
        barrier_call = discount * jnp.where(knocked[:, None], 0.0,
                                            jnp.maximum(price[:, -1:] - strike, 0.0)).mean(0)
        loss = price_cv[strikes // 2] - corrected[:, strikes // 2]   # a short at-the-money call
        value_at_risk = jnp.sort(loss)[int(0.99 * 2 * paths)]
        return price_cv, stderr, barrier_call, knocked.astype(jnp.int32).sum(), value_at_risk

    return jax.jit(run).lower(jax.random.PRNGKey(12),
                              jnp.linspace(70.0, 130.0, strikes, dtype=jnp.float32))


def smith_waterman(pairs: int = 128, query: int = 128, reference: int = 256,
                   alphabet: int = 20, gap_open: int = 11, gap_extend: int = 1) -> Any:
    """Inference: Smith-Waterman local alignment with affine gaps (Gotoh) of 128
    protein query/reference pairs in int32, by a `lax.scan` over the anti-diagonals of
    the score matrix: per diagonal the substitution scores gathered from a query
    profile, gap-open and gap-extend recurrences for E and F, H clamped at zero, and the
    best score with its end cell kept."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rows = np.arange(query + 1)
    floor = -(10 ** 6)

    def run(substitution, q, r):
        profile = substitution[jnp.pad(q, ((0, 0), (1, 0)))]        # (pairs, Lq + 1, alphabet)
        r = jnp.pad(r, ((0, 0), (1, 0)))

        def down(a, fill):   # the value of row i - 1 at row i
            return jnp.concatenate([jnp.full((pairs, 1), fill, a.dtype), a[:, :-1]], 1)

        def diagonal(carry, d):
            h1, h2, e1, f1, best, end_i, end_j = carry
            cols = d - rows
            valid = (rows >= 1) & (cols >= 1) & (cols <= reference)
            letters = jnp.take(r, jnp.clip(cols, 0, reference), axis=1)       # (pairs, Lq + 1)
            score = jnp.take_along_axis(profile, letters[..., None], 2)[..., 0]
            e = jnp.maximum(e1 - gap_extend, h1 - gap_open)                # from (i, j - 1)
            f = jnp.maximum(down(f1, floor) - gap_extend, down(h1, 0) - gap_open)  # (i - 1, j)
            h = jnp.maximum(jnp.maximum(down(h2, 0) + score, 0), jnp.maximum(e, f))
            h = jnp.where(valid, h, 0)
            e, f = jnp.where(valid, e, floor), jnp.where(valid, f, floor)
            top, at = h.max(1), h.argmax(1).astype(jnp.int32)
            better = top > best
            return (h, h1, e, f, jnp.maximum(best, top), jnp.where(better, at, end_i),
                    jnp.where(better, d - at, end_j)), None

        zeros = jnp.zeros((pairs, query + 1), jnp.int32)
        lowest = jnp.full((pairs, query + 1), floor, jnp.int32)
        none = jnp.zeros((pairs,), jnp.int32)
        carry, _ = jax.lax.scan(diagonal, (zeros, zeros, lowest, lowest, none, none, none),
                                jnp.arange(2, query + reference + 1, dtype=jnp.int32))
        return carry[4:]

    rng = np.random.default_rng(13)
    noise = rng.integers(-4, 2, (alphabet, alphabet))
    substitution = np.triu(noise, 1) + np.triu(noise, 1).T + np.diag(rng.integers(4, 12, alphabet))
    q = rng.integers(0, alphabet, (pairs, query))
    r = rng.integers(0, alphabet, (pairs, reference))
    r[:, 60:60 + query // 2] = q[:, 20:20 + query // 2]               # a shared local region
    return jax.jit(run).lower(jnp.asarray(substitution, jnp.int32), jnp.asarray(q, jnp.int32),
                              jnp.asarray(r, jnp.int32))


def beam_search(batch: int = 8, beams: int = 4, vocab: int = 2048, d: int = 256,
                steps: int = 20, eos: int = 1, alpha: float = 0.6) -> Any:
    """Inference: beam search over a bfloat16 GRU language model conditioned on a
    context vector, under `lax.scan`: embeddings gathered for each beam's last token,
    float32 log-softmax, finished beams extended only by end-of-sequence at no cost,
    `top_k` over beams x vocabulary, parents and tokens by integer division and
    remainder, beam states and histories gathered from their parents, the token written
    at the step's index; the winner chosen under a length penalty ((5 + n) / 6)^0.6."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32

    def dot(a, w):
        return jnp.matmul(a.astype(bf16), w, preferred_element_type=f32)

    def run(p, context):
        h = jnp.broadcast_to(jnp.tanh(dot(context, p["init"]))[:, None], (batch, beams, d))
        scores = jnp.broadcast_to(jnp.where(jnp.arange(beams) == 0, 0.0, -1e9), (batch, beams))
        start = (h, jnp.zeros((batch, beams), jnp.int32), scores,
                 jnp.zeros((batch, beams, steps), jnp.int32),
                 jnp.zeros((batch, beams), bool), jnp.zeros((batch, beams), jnp.int32))
        only_eos = jnp.where(jnp.arange(vocab) == eos, 0.0, -1e9)

        def step(carry, t):
            h, last, scores, history, finished, lengths = carry
            x = p["embed"][last]
            zr = jax.nn.sigmoid(dot(x, p["x_zr"]) + dot(h, p["h_zr"]))
            z, r = zr[..., :d], zr[..., d:]
            h = (1.0 - z) * h + z * jnp.tanh(dot(x, p["x_n"]) + dot(r * h, p["h_n"]))
            logp = jax.nn.log_softmax(dot(h, p["out"]), -1)                # (b, k, V)
            logp = jnp.where(finished[..., None], only_eos, logp)
            scores, flat = lax.top_k((scores[..., None] + logp).reshape(batch, -1), beams)
            parent, token = flat // vocab, flat % vocab

            def from_parent(a):
                index = parent.reshape(parent.shape + (1,) * (a.ndim - 2))
                return jnp.take_along_axis(a, index, 1)

            h, history, finished, lengths = (from_parent(a)
                                             for a in (h, history, finished, lengths))
            history = history.at[:, :, t].set(token)
            lengths = lengths + (~finished).astype(jnp.int32)
            return (h, token, scores, history, finished | (token == eos), lengths), None

        (_, _, scores, history, _, lengths), _ = lax.scan(step, start, jnp.arange(steps))
        penalty = jnp.power((5.0 + lengths.astype(f32)) / 6.0, alpha)
        best = jnp.argmax(scores / penalty, -1)
        return jnp.take_along_axis(history, best[:, None, None], 1)[:, 0], scores

    p = _weights({"init": (d, d), "embed": (vocab, d), "x_zr": (d, 2 * d), "h_zr": (d, 2 * d),
                  "x_n": (d, d), "h_n": (d, d), "out": (d, vocab)}, seed=14, dtype=bf16)
    return jax.jit(run).lower(p, jax.random.normal(jax.random.PRNGKey(15), (batch, d)))


def sdf_raymarch(width: int = 192, height: int = 192, max_steps: int = 96,
                 shadow_steps: int = 24, far: float = 40.0) -> Any:
    """Inference: a sphere-tracing renderer of a signed-distance scene (a sphere and a
    torus twisted about its axis joined by a log-sum-exp smooth union, rounded boxes
    repeated along x by `mod`, a ground plane): rays march in a `while_loop` until
    every ray has hit or escaped, normals by a tetrahedron of differences, soft shadows
    by a `fori_loop` toward the light, a checkered floor from integer cell parities,
    Blinn-Phong highlights (a power), an `atan2` sky, fog and gamma."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def length(v):
        return jnp.sqrt(jnp.square(v).sum(-1))

    def scene(p):
        x, y, z = p[..., 0], p[..., 1], p[..., 2]
        sphere = length(p - jnp.array([-1.2, 0.2, -6.0])) - 1.0
        angle = 0.8 * y
        tx, tz = x - 1.0, z + 6.0
        qx = jnp.cos(angle) * tx - jnp.sin(angle) * tz
        qz = jnp.sin(angle) * tx + jnp.cos(angle) * tz
        torus = jnp.sqrt(jnp.square(jnp.sqrt(qx * qx + y * y) - 0.9) + qz * qz) - 0.3
        blend = -0.4 * jnp.logaddexp(-sphere / 0.4, -torus / 0.4)            # smooth union
        rx = jnp.mod(x + 1.5, 3.0) - 1.5
        q = jnp.abs(jnp.stack([rx, y + 0.6, z + 11.0], -1)) - jnp.array([0.5, 0.4, 0.5])
        box = length(jnp.maximum(q, 0.0)) + jnp.minimum(q.max(-1), 0.0) - 0.1
        return jnp.minimum(jnp.minimum(blend, box), y + 1.0)

    def run(origin, light):
        light = light / length(light)
        u = (jnp.arange(width) + 0.5) / width * 2.0 - 1.0
        v = ((jnp.arange(height) + 0.5) / height * 2.0 - 1.0) * (height / width)
        uu, vv = jnp.meshgrid(u, -v)
        direction = jnp.stack([uu, vv, jnp.full_like(uu, -1.5)], -1)
        direction = direction / length(direction)[..., None]

        def marching(state):
            i, _, active = state
            return (i < max_steps) & active.any()

        def march(state):
            i, t, active = state
            dist = scene(origin + t[..., None] * direction)
            t = jnp.where(active, t + dist, t)
            return i + 1, t, active & (dist > 1e-3 * t) & (t < far)

        start = (jnp.zeros((), jnp.int32), jnp.full((height, width), 0.1),
                 jnp.ones((height, width), bool))
        _, t, _ = lax.while_loop(marching, march, start)
        hit = t < far
        pos = origin + t[..., None] * direction
        tetra = np.array([[1, -1, -1], [-1, -1, 1], [-1, 1, -1], [1, 1, 1]], np.float32)
        normal = sum(k * scene(pos + 1e-3 * k)[..., None] for k in tetra)
        normal = normal / (length(normal)[..., None] + 1e-9)

        def shadow_step(_, state):
            s, shade = state
            h = scene(pos + 0.02 * normal + s[..., None] * light)
            return s + jnp.clip(h, 0.02, 0.5), jnp.minimum(shade, 8.0 * h / s)

        _, shade = lax.fori_loop(0, shadow_steps, shadow_step,
                                 (jnp.full((height, width), 0.05), jnp.ones((height, width))))
        shade = jnp.clip(shade, 0.0, 1.0)
        diffuse = jnp.maximum((normal * light).sum(-1), 0.0) * shade
        halfway = light - direction
        halfway = halfway / length(halfway)[..., None]
        highlight = jnp.power(jnp.maximum((normal * halfway).sum(-1), 0.0), 32.0) * shade
        cells = jnp.floor(pos[..., 0]).astype(jnp.int32) + jnp.floor(pos[..., 2]).astype(jnp.int32)
        floor_tint = jnp.where(jnp.bitwise_and(cells, 1) == 0, 0.9, 0.3)
        albedo = jnp.where((pos[..., 1] < -0.99)[..., None],
                           floor_tint[..., None] * jnp.array([1.0, 1.0, 1.0]),
                           jnp.array([0.8, 0.45, 0.3]))
        colour = albedo * (0.1 + 0.9 * diffuse)[..., None] + 0.4 * highlight[..., None]
        heading = jnp.arctan2(direction[..., 0], -direction[..., 2])
        sky = jnp.stack([0.4 + 0.1 * jnp.sin(4.0 * heading), 0.6 + 0.2 * direction[..., 1],
                         0.9 * jnp.ones_like(heading)], -1)
        fog = jnp.exp(-0.002 * jnp.square(t))[..., None]
        colour = jnp.where(hit[..., None], fog * colour + (1.0 - fog) * sky, sky)
        return jnp.power(jnp.clip(colour, 0.0, 1.0), 1.0 / 2.2), hit.sum()

    return jax.jit(run).lower(jnp.array([0.0, 0.5, 0.0]), jnp.array([0.6, 0.8, 0.3]))


def canny_edges(batch: int = 4, side: int = 192, sigma: float = 1.4, low: float = 0.1,
                high: float = 0.25, max_sweeps: int = 64, cell: int = 8,
                orientations: int = 9) -> Any:
    """Inference: Canny edge detection and histograms of oriented gradients on a batch
    of grey images: a 5x5 Gaussian blur and Sobel gradients as 2-D convolutions, `atan2`
    angles quantized to four integer sectors, non-maximum suppression by gathering the
    two neighbours along each pixel's sector, double thresholds, hysteresis by a
    `while_loop` of 3x3 max windows until no edge grows, and a magnitude-weighted
    scatter-add into 9 orientation bins per 8x8 cell, L2-normalized."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    taps = np.arange(-2, 3)
    g = np.exp(-taps ** 2 / (2 * sigma ** 2))
    blur = np.outer(g, g) / np.outer(g, g).sum()
    sobel_x = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
    sobel = np.stack([sobel_x, sobel_x.T], -1)[:, :, None, :]                 # (3, 3, 1, 2)
    # (dy, dx) of the neighbour ahead along the gradient, by sector (0, 45, 90, 135 degrees)
    ahead = [(0, 1), (1, 1), (1, 0), (1, -1)]
    cells = side // cell

    def run(images):
        x = lax.conv_general_dilated(images[..., None], jnp.asarray(blur[:, :, None, None],
                                                                    jnp.float32),
                                     (1, 1), "SAME", dimension_numbers=_NHWC)
        grad = lax.conv_general_dilated(x, jnp.asarray(sobel), (1, 1), "SAME",
                                        dimension_numbers=_NHWC)
        gx, gy = grad[..., 0], grad[..., 1]
        magnitude = jnp.sqrt(gx * gx + gy * gy)
        angle = jnp.arctan2(gy, gx)
        sector = jnp.mod(jnp.round(angle * (4.0 / np.pi)).astype(jnp.int32), 4)
        padded = jnp.pad(magnitude, ((0, 0), (1, 1), (1, 1)))

        def shifted(dy, dx):
            return padded[:, 1 + dy:1 + dy + side, 1 + dx:1 + dx + side]

        forward = jnp.stack([shifted(dy, dx) for dy, dx in ahead], -1)
        backward = jnp.stack([shifted(-dy, -dx) for dy, dx in ahead], -1)
        pick = sector[..., None]
        peak = ((magnitude >= jnp.take_along_axis(forward, pick, -1)[..., 0])
                & (magnitude >= jnp.take_along_axis(backward, pick, -1)[..., 0]))
        thin = jnp.where(peak, magnitude, 0.0)
        top = thin.max((1, 2), keepdims=True)
        strong, weak = thin >= high * top, thin >= low * top

        def growing(state):
            i, _, changed = state
            return (i < max_sweeps) & changed

        def grow(state):
            i, edges, _ = state
            near = lax.reduce_window(edges.astype(jnp.float32), 0.0, lax.max, (1, 3, 3),
                                     (1, 1, 1), "SAME") > 0.0
            grown = edges | (weak & near)
            return i + 1, grown, (grown != edges).any()

        sweeps, edges, _ = lax.while_loop(growing, grow,
                                          (jnp.zeros((), jnp.int32), strong, jnp.array(True)))

        unsigned = jnp.mod(angle, np.pi)
        bins = jnp.minimum((unsigned * (orientations / np.pi)).astype(jnp.int32),
                           orientations - 1)
        row = jnp.arange(side) // cell
        cell_index = (row[:, None] * cells + row[None, :])[None]
        image_index = jnp.arange(batch)[:, None, None] * (cells * cells)
        slot = (image_index + cell_index) * orientations + bins
        hog = jnp.zeros((batch * cells * cells * orientations,)).at[slot.reshape(-1)].add(
            magnitude.reshape(-1)).reshape(batch, cells * cells, orientations)
        hog = hog / jnp.sqrt(jnp.square(hog).sum(-1, keepdims=True) + 1e-6)
        return edges, edges.sum((1, 2), dtype=jnp.int32), hog, sweeps

    yy, xx = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    rng = np.random.default_rng(16)
    images = []
    for i in range(batch):
        rings = np.sin(np.hypot(yy - side / 2, xx - side / 3) / (4.0 + i))
        square = ((abs(yy - side * 0.6) < side / 6) & (abs(xx - side * 0.7) < side / 5))
        images.append(0.5 * rings + square + 0.1 * rng.standard_normal((side, side)))
    return jax.jit(run).lower(jnp.asarray(np.stack(images), jnp.float32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "performer_favor/2x1024-m64": performer_favor,
    "mobilenet_v3/64px-bf16": mobilenet_v3,
    "wavernn_vocoder/8x256-samples": wavernn_vocoder,
    "transformer_xl/128+128-memory": transformer_xl,
    "spline_flow/1024x8-k8": spline_flow,
    "reformer_lsh/1024-2-hashes": reformer_lsh,
    "ntm_copy/32x41-steps": ntm_copy,
    "retinanet_focal/64px-bf16": retinanet_focal,
    "convlstm_nowcast/24px-6+4": convlstm_nowcast,
    "poincare_embeddings/65536x32": poincare_embeddings,
    "monte_carlo_options/16384x64": monte_carlo_options,
    "smith_waterman/128x128x256": smith_waterman,
    "beam_search/8x4-beams-bf16": beam_search,
    "sdf_raymarch/192x192-96": sdf_raymarch,
    "canny_edges/4x192px": canny_edges,
}
