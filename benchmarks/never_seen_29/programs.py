"""The twenty-ninth never-seen set: programs written on 2026-11-28, after the twenty-eighth
set (benchmarks/never_seen_28/), and never used to choose anything: no feature, default,
fallback threshold or model was picked by looking at them. They are here to judge one
trained model, once. The SHA-256 of this file is committed next to it (`SHA256`), and
`fresh_programs.py --set never-seen-29` refuses to run when the two disagree, since an
edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the
twenty-eight earlier never-seen sets contain. Two training steps are large, a few
gigaflops each (CrossViT and DiffWave); the others are mid-sized, a few of them small.
Ten are training steps: one learns without `jax.grad` (the restricted Boltzmann machine),
one takes Hessian-vector products in a trust-region loop (APPNP), one differentiates a
per-point gradient (the deep Ritz method), one a gradient taken inside its own loss
(virtual adversarial training), and three combine several simulated workers or
clients run under `vmap` (CrossViT, TimesNet and NODE); the dtypes
are float32, bfloat16 (CrossViT, R2D2 and the frozen model under prefix tuning) and
complex64 (the hologram), with uint32 bit masks inside TimesNet's gradient compression.

CrossViT runs a fine and a coarse patch branch side by side and lets their class tokens
cross-attend to each other's patches, its six workers' gradients (one of them noisy)
combined by a coordinate-wise trimmed mean before AdamW. DiffWave learns to denoise
synthetic voice clips through gated, dilated 1-D convolutions conditioned on a log-mel
spectrogram brought up by transposed 1-D convolutions, stepped by INNA, an inertial
Newton-like method with one auxiliary variable per weight. R2D2 refreshes stored LSTM
states by burn-in and learns n-step double-Q targets under value rescaling, with a
target network copied under `lax.cond`. APPNP propagates an MLP's predictions by
personalized PageRank over an edge list and is trained by Steihaug-Toint trust-region
Newton-CG steps. NODE routes tabular rows through soft oblivious trees whose features are
chosen by 1.5-entmax (a `sort` and running moments), its four clients taking different
numbers of local steps that FedNova normalizes. TimesNet folds series into 2-D grids at
the periods its FFT amplitudes favour and convolves them by Inception blocks, its workers'
gradients naturally compressed to powers of two by bit masks. Prefix tuning teaches a
frozen bfloat16 language model to sort digits through reparameterized prefix keys and
values, its stale gradients corrected by delay-compensated ASGD. The deep Ritz method
minimizes a Poisson energy with per-point input gradients, stepped by p-norm mirror
descent. Virtual adversarial training smooths a small CNN's predictions around unlabelled
pictures, by RMSProp with Nesterov momentum. A restricted Boltzmann machine learns glyphs
by persistent contrastive divergence, Gibbs chains sampled in a `fori_loop`.

Five are scientific or algorithmic steps without a gradient: two-dimensional
Navier-Stokes turbulence by a pseudo-spectral vorticity solver (real FFTs, the
two-thirds rule, Runge-Kutta steps in a `fori_loop` inside a `lax.scan`, shell spectra by
`segment_sum`); Monte Carlo path tracing of spheres in a box (all-pairs ray-sphere
intersections, `argmin` and gathers of materials, cosine-weighted sampling and Russian
roulette in a `fori_loop` of bounces); coreness of a power-law graph by iterated
neighbour h-indices (a `sort` of gathered neighbour values per node in a `fori_loop`);
phase-only holograms by Gerchberg-Saxton with angular-spectrum propagation in complex64
(2-D FFTs and their inverses in a `fori_loop`); and American and European options on
binomial lattices by backward induction in a `fori_loop` over fixed-size, masked arrays.

The updates new to these sets: the coordinate-wise trimmed mean (over AdamW), INNA, a
periodically copied target network under Adam with a large epsilon (R2D2's learner),
Steihaug-Toint trust-region Newton-CG, FedNova, natural compression (over momentum SGD),
delay-compensated ASGD, p-norm mirror descent, RMSProp with Nesterov momentum and
persistent contrastive divergence.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NWC = ("NWC", "WIO", "NWC")


def _weights(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
             scale: float = 1.0) -> dict[str, Any]:
    """Starting weights for the named shapes, drawn in the given order from one numpy
    generator: a name ending in `_b` (a bias or shift) or `_z` (a weight that starts at
    zero) gets zeros, one ending in `_g` (a gain) ones, any other a Gaussian with standard
    deviation scale / sqrt(fan-in), the fan-in being the product of all axes but the last."""
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for name, shape in shapes.items():
        if name.endswith(("_b", "_z")):
            value = np.zeros(shape, np.float32)
        elif name.endswith("_g"):
            value = np.ones(shape, np.float32)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else 1
            value = rng.standard_normal(shape).astype(np.float32) * (scale / math.sqrt(fan_in))
        out[name] = jnp.asarray(value, dtype or jnp.float32)
    return out


def _normalize(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """x standardized over `axes` with float32 statistics, then scaled and shifted, in
    x's own dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axes, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axes, keepdims=True)
    y = (x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32) + shift.astype(jnp.float32)
    return y.astype(x.dtype)


def _group_norm(x: Any, gain: Any, shift: Any, groups: int) -> Any:
    """Group norm of a channels-last map: float32 statistics over the spatial axes and
    the channels of each of `groups` groups, then a gain and shift per channel."""
    import jax.numpy as jnp
    from jax import lax

    shape = x.shape
    g = x.astype(jnp.float32).reshape(shape[:-1] + (groups, shape[-1] // groups))
    axes = tuple(range(1, len(shape) - 1)) + (len(shape),)
    mean = jnp.mean(g, axes, keepdims=True)
    var = jnp.mean(jnp.square(g - mean), axes, keepdims=True)
    g = ((g - mean) * lax.rsqrt(var + 1e-5)).reshape(shape)
    return (g * gain + shift).astype(x.dtype)


def _xent(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels, per position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", dilation: int = 1,
          groups: int = 1) -> Any:
    """A channels-last convolution in 1, 2 or 3 dimensions (the kernel's rank decides)."""
    from jax import lax

    dims = w.ndim - 2
    spec = {1: ("NWC", "WIO", "NWC"), 2: ("NHWC", "HWIO", "NHWC"),
            3: ("NDHWC", "DHWIO", "NDHWC")}[dims]
    return lax.conv_general_dilated(x, w, (stride,) * dims, padding,
                                    rhs_dilation=(dilation,) * dims, dimension_numbers=spec,
                                    feature_group_count=groups)


def _adam(params: Any, grads: Any, m: Any, v: Any, t: Any, rate: Any, b1: float = 0.9,
          b2: float = 0.999, decay: float = 0.0) -> tuple[Any, Any, Any]:
    """One bias-corrected Adam step (decoupled weight decay when `decay` is set); t is the
    new step count."""
    import jax
    import jax.numpy as jnp

    m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v_, g: b2 * v_ + (1 - b2) * g * g, v, grads)
    tf = t.astype(jnp.float32)
    c1, c2 = 1 - b1 ** tf, 1 - b2 ** tf
    params = jax.tree.map(lambda w, m_, v_: w - rate * (m_ / c1 / (jnp.sqrt(v_ / c2) + 1e-8)
                                                        + decay * w), params, m, v)
    return params, m, v


def _zeros_like(tree: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return jax.tree.map(lambda w: jnp.zeros(w.shape, jnp.float32), tree)


def _glyphs(rng: Any, count: int, side: int, classes: int = 10) -> tuple[Any, Any]:
    """numpy grey glyphs (count, side, side) in [0, 1] and int32 labels: class c is drawn
    from its own recipe of two to four thick strokes (segments and arcs whose end points
    are fixed per class), each glyph with its own small shift, scale, slant and stroke
    width, then blurred a little and speckled with noise."""
    import numpy as np

    recipe_rng = np.random.default_rng(1000 + classes)
    recipes = []
    for _ in range(classes):
        strokes = []
        for _ in range(recipe_rng.integers(2, 5)):
            if recipe_rng.uniform() < 0.6:
                strokes.append(("line", recipe_rng.uniform(0.15, 0.85, 4)))
            else:
                strokes.append(("arc", np.concatenate([recipe_rng.uniform(0.3, 0.7, 2),
                                                       recipe_rng.uniform(0.12, 0.3, 1),
                                                       recipe_rng.uniform(0, 2 * np.pi, 2)])))
        recipes.append(strokes)
    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, side, side), np.float32)
    for i, label in enumerate(labels):
        shift = rng.normal(0, 0.04, 2)
        scale = rng.uniform(0.85, 1.1)
        slant = rng.normal(0, 0.15)
        width = rng.uniform(0.035, 0.06)
        u = (xx - 0.5 - shift[0]) / scale + 0.5 - slant * (yy - 0.5)
        v = (yy - 0.5 - shift[1]) / scale + 0.5
        ink = np.zeros((side, side))
        for kind, p in recipes[label]:
            if kind == "line":
                a, b = p[:2], p[2:]
                t = np.clip(((u - a[0]) * (b[0] - a[0]) + (v - a[1]) * (b[1] - a[1]))
                            / (np.sum((b - a) ** 2) + 1e-9), 0, 1)
                gap = np.hypot(u - a[0] - t * (b[0] - a[0]), v - a[1] - t * (b[1] - a[1]))
            else:
                cx, cy, r, start, span = p
                angle = (np.arctan2(v - cy, u - cx) - start) % (2 * np.pi)
                on = angle < span + 1.0
                gap = np.where(on, np.abs(np.hypot(u - cx, v - cy) - r), 1.0)
            ink = np.maximum(ink, np.clip(1.5 - gap / width, 0, 1))
        out[i] = np.clip(ink + 0.05 * rng.standard_normal((side, side)), 0, 1)
    return out, labels.astype(np.int32)


def _textures(rng: Any, count: int, side: int, classes: int) -> tuple[Any, Any]:
    """numpy colour pictures (count, side, side, 3) in [0, 1] and int32 labels: class c
    is a texture family (gratings, checkers, dots, rings or waves, by c % 5) at an
    orientation band and frequency band set by c // 5, each picture with its own phase,
    colours and noise."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    out = np.zeros((count, side, side, 3), np.float32)
    for i, label in enumerate(labels):
        family, band = label % 5, label // 5
        angle = rng.uniform(0, np.pi / 2) + band * np.pi / 2
        freq = rng.uniform(3, 5) * (1 + band)
        u = np.cos(angle) * xx + np.sin(angle) * yy
        w = -np.sin(angle) * xx + np.cos(angle) * yy
        phase = rng.uniform(0, 2 * np.pi)
        if family == 0:
            field = np.sin(2 * np.pi * freq * u + phase)
        elif family == 1:
            field = np.sign(np.sin(2 * np.pi * freq * u + phase) * np.sin(2 * np.pi * freq * w))
        elif family == 2:
            field = np.cos(2 * np.pi * freq * u + phase) * np.cos(2 * np.pi * freq * w + phase)
            field = np.where(field > 0.5, 1.0, -1.0)
        elif family == 3:
            c = rng.uniform(0.3, 0.7, 2)
            field = np.sin(2 * np.pi * freq * np.hypot(xx - c[0], yy - c[1]) + phase)
        else:
            field = np.sin(2 * np.pi * freq * u + 2.0 * np.sin(2 * np.pi * 2 * w) + phase)
        a, b = rng.uniform(0, 1, 3), rng.uniform(0, 1, 3)
        picture = a + (b - a) * (0.5 + 0.5 * field)[..., None]
        out[i] = np.clip(picture + 0.05 * rng.standard_normal(picture.shape), 0, 1)
    return out, labels.astype(np.int32)


def crossvit_trimmed(workers: int = 6, per: int = 2, side: int = 48, classes: int = 10,
                     small: tuple[int, int] = (4, 64), large: tuple[int, int] = (12, 128),
                     heads: int = 4, stages: int = 3, rate: float = 1e-3,
                     decay: float = 0.05) -> Any:
    """CrossViT (Chen, Fan and Panda) in bfloat16 classifies 48x48 texture pictures
    with two branches: 4x4 patches (144 tokens of width 64) and 12x12 patches (16 tokens
    of width 128), each with its own class token. Three multi-scale stages run one
    transformer layer on the small branch and two on the large one, then fuse them by
    cross-attention: each branch's class token, projected to the other branch's width,
    queries that branch's patch tokens and is projected back; the two heads' logits are
    averaged. Six workers under `vmap` take gradients of their own two pictures; one of
    them is faulty and adds heavy Gaussian noise. The server's coordinate-wise trimmed
    mean (Yin, Chen, Ramchandran and Bartlett) sorts every coordinate over the workers
    and averages all but the largest and smallest value, and AdamW moves float32 master
    weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.flatten_util import ravel_pytree

    bf16, f32 = jnp.bfloat16, jnp.float32
    branches = {"s": small, "l": large}
    depth = {"s": 1, "l": 2}
    shapes: dict[str, tuple[int, ...]] = {}
    for b, (patch, width) in branches.items():
        tokens = (side // patch) ** 2
        shapes.update({f"{b}patch": (patch * patch * 3, width), f"{b}patch_b": (width,),
                       f"{b}cls": (1, width), f"{b}pos": (tokens + 1, width),
                       f"{b}nf_g": (width,), f"{b}nf_b": (width,), f"{b}head": (width, classes),
                       f"{b}head_b": (classes,)})
        for s in range(stages):
            for l in range(depth[b]):
                k = f"{b}{s}{l}"
                shapes.update({f"{k}n1_g": (width,), f"{k}n1_b": (width,),
                               f"{k}qkv": (width, 3 * width), f"{k}o": (width, width),
                               f"{k}n2_g": (width,), f"{k}n2_b": (width,),
                               f"{k}up": (width, 3 * width), f"{k}up_b": (3 * width,),
                               f"{k}down": (3 * width, width), f"{k}down_b": (width,)})
    for s in range(stages):
        for b, other in (("s", "l"), ("l", "s")):
            w, wo = branches[b][1], branches[other][1]
            k = f"x{s}{b}"
            shapes.update({f"{k}to": (w, wo), f"{k}n_g": (wo,), f"{k}n_b": (wo,),
                           f"{k}q": (wo, wo), f"{k}kv": (wo, 2 * wo), f"{k}o": (wo, wo),
                           f"{k}back": (wo, w)})
    params = _weights(shapes, seed=21, dtype=bf16)
    flat, unravel = ravel_pytree(params)

    def attention(q, k, v):
        b, n, w = q.shape
        split = lambda t: t.reshape(b, t.shape[1], heads, w // heads)
        scores = jnp.einsum("bqhd,bkhd->bhqk", split(q), split(k)).astype(f32)
        weights = jax.nn.softmax(scores / math.sqrt(w // heads), -1).astype(bf16)
        return jnp.einsum("bhqk,bkhd->bqhd", weights, split(v)).reshape(b, n, w)

    def layer(p, k, x):
        h = _normalize(x, p[f"{k}n1_g"], p[f"{k}n1_b"])
        q, kk, v = jnp.split(h @ p[f"{k}qkv"], 3, -1)
        x = x + attention(q, kk, v) @ p[f"{k}o"]
        h = _normalize(x, p[f"{k}n2_g"], p[f"{k}n2_b"])
        return x + jax.nn.gelu(h @ p[f"{k}up"] + p[f"{k}up_b"]) @ p[f"{k}down"] + p[f"{k}down_b"]

    def embed(p, b, pictures):
        patch = branches[b][0]
        n, g = pictures.shape[0], side // patch
        tiles = pictures.reshape(n, g, patch, g, patch, 3).transpose(0, 1, 3, 2, 4, 5)
        x = tiles.reshape(n, g * g, -1) @ p[f"{b}patch"] + p[f"{b}patch_b"]
        cls = jnp.broadcast_to(p[f"{b}cls"], (n, 1, x.shape[-1]))
        return jnp.concatenate([cls, x], 1) + p[f"{b}pos"]

    def loss_fn(p, pictures, labels):
        pictures = pictures.astype(bf16)
        xs = {b: embed(p, b, pictures) for b in branches}
        for s in range(stages):
            for b in branches:
                for l in range(depth[b]):
                    xs[b] = layer(p, f"{b}{s}{l}", xs[b])
            # cross-attention fusion: each class token queries the other branch's patches
            fused = {}
            for b, other in (("s", "l"), ("l", "s")):
                k = f"x{s}{b}"
                cls = xs[b][:, :1] @ p[f"{k}to"]
                seq = _normalize(jnp.concatenate([cls, xs[other][:, 1:]], 1),
                                 p[f"{k}n_g"], p[f"{k}n_b"])
                kk, v = jnp.split(seq @ p[f"{k}kv"], 2, -1)
                out = attention(seq[:, :1] @ p[f"{k}q"], kk, v) @ p[f"{k}o"]
                fused[b] = jnp.concatenate([xs[b][:, :1] + (cls + out) @ p[f"{k}back"],
                                            xs[b][:, 1:]], 1)
            xs = fused
        logits = sum(_normalize(xs[b][:, 0], p[f"{b}nf_g"], p[f"{b}nf_b"]) @ p[f"{b}head"]
                     + p[f"{b}head_b"] for b in branches) / 2
        return jnp.mean(_xent(logits, labels))

    def step(master, state, pictures, labels, key):
        m, v, t = state
        p = unravel(master.astype(bf16))
        losses, grads = jax.vmap(jax.value_and_grad(loss_fn), (None, 0, 0))(p, pictures, labels)
        g = jax.vmap(lambda tree: ravel_pytree(tree)[0])(grads).astype(f32)
        # one faulty worker adds heavy noise; the coordinate-wise trimmed mean drops the
        # largest and the smallest value of every coordinate
        g = g.at[0].add(0.05 * jax.random.normal(key, g.shape[1:]))
        ordered = jnp.sort(g, 0)
        update = jnp.mean(ordered[1:-1], 0)
        master, m, v = _adam(master, update, m, v, t + 1, rate, decay=decay)
        return master, (m, v, t + 1), jnp.mean(losses)

    rng = np.random.default_rng(21)
    pictures, labels = _textures(rng, workers * per, side, classes)
    size = flat.size
    state = (jnp.zeros(size, f32), jnp.zeros(size, f32), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(flat.astype(f32), state,
                               jnp.asarray(pictures.reshape(workers, per, side, side, 3)),
                               jnp.asarray(labels.reshape(workers, per)), jax.random.PRNGKey(21))


def _voiced_audio(rng: Any, count: int, samples: int, rate: int = 16000) -> Any:
    """numpy float32 (count, samples) clips of a crude voice: a glottal pulse train whose
    pitch glides between 90 and 260 Hz, shaped by two or three formant resonances that
    move, broken by unvoiced noise bursts and silences, under a random envelope."""
    import numpy as np

    t = np.arange(samples) / rate
    out = np.zeros((count, samples), np.float32)
    for i in range(count):
        pitch = rng.uniform(90, 260) * (1 + 0.2 * np.sin(2 * np.pi * rng.uniform(1, 4) * t))
        phase = 2 * np.pi * np.cumsum(pitch) / rate
        voice = np.zeros(samples)
        for h in range(1, 24):
            f = h * pitch
            gain = 0.0
            for _ in range(rng.integers(2, 4)):
                wobble = 1 + 0.1 * np.sin(2 * np.pi * t * rng.uniform(1, 3))
                centre = rng.uniform(300, 3000) * wobble
                gain = gain + np.exp(-((f - centre) / 150.0) ** 2)
            voice += (gain + 0.05) * np.sin(h * phase) / h
        noise = rng.standard_normal(samples) * 0.3
        bursts = np.convolve(rng.uniform(size=samples) < 0.002, np.ones(400), "same") > 0
        envelope = np.clip(np.sin(2 * np.pi * rng.uniform(1, 3) * t + rng.uniform(0, 6)), 0.05, 1)
        clip = np.where(bursts, noise, voice) * envelope
        out[i] = clip / (np.max(np.abs(clip)) + 1e-6) * 0.9
    return out


def _log_mel(audio: Any, hop: int, bands: int, rate: int = 16000) -> Any:
    """numpy log-mel frames (count, samples // hop, bands) of clips: Hann frames of four
    hops centred on every hop, power spectra by a real FFT, a triangular mel filter
    bank."""
    import numpy as np

    count, samples = audio.shape
    size = 4 * hop
    padded = np.pad(audio, ((0, 0), (size // 2, size // 2)))
    starts = np.arange(samples // hop) * hop
    frames = padded[:, starts[:, None] + np.arange(size)] * np.hanning(size)
    power = np.abs(np.fft.rfft(frames, axis=-1)) ** 2
    mel = lambda f: 2595 * np.log10(1 + f / 700)
    edges = 700 * (10 ** (np.linspace(mel(0), mel(rate / 2), bands + 2) / 2595) - 1)
    freqs = np.fft.rfftfreq(size, 1 / rate)
    bank = np.zeros((bands, freqs.size))
    for b in range(bands):
        lo, mid, hi = edges[b:b + 3]
        bank[b] = np.clip(np.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)), 0, None)
    return np.log(power @ bank.T + 1e-5).astype(np.float32)


def diffwave_inna(batch: int = 2, samples: int = 3072, channels: int = 32, layers: int = 10,
                  bands: int = 40, hop: int = 64, steps: int = 50, rate: float = 0.05,
                  alpha: float = 0.5, beta: float = 0.1) -> Any:
    """DiffWave (Kong, Ping, Huang, Zhao and Catanzaro), a diffusion vocoder, learns to
    predict the noise added to 3072-sample clips of a crude synthetic voice at a random
    one of 50 levels: a sinusoidal embedding of the level through two SiLU layers, a
    log-mel conditioner (40 bands, made on the host) brought to the sample rate by two
    transposed 1-D convolutions of stride eight, and ten residual layers of dilated 1-D
    convolutions (dilations cycling through 1 to 16) with gated tanh-sigmoid units,
    1x1 conditioner and output convolutions and summed skips. The update is INNA
    (Castera, Bolte, Fevotte and Pauwels), an inertial Newton-like system discretized
    with only gradients: an auxiliary variable psi per weight, each step moving the
    weights by (1/beta - alpha) w - psi/beta - beta g and psi by the same drift without
    the gradient."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {
        "up1": (16, bands, bands), "up1_b": (bands,), "up2": (16, bands, bands),
        "up2_b": (bands,), "in": (1, 1, channels), "in_b": (channels,),
        "t1": (128, 512), "t1_b": (512,), "t2": (512, 512), "t2_b": (512,),
        "skip": (1, channels, channels), "skip_b": (channels,),
        "out_z": (1, channels, 1), "out_b": (1,)}
    for i in range(layers):
        shapes.update({f"{i}t": (512, channels), f"{i}t_b": (channels,),
                       f"{i}dil": (3, channels, 2 * channels), f"{i}dil_b": (2 * channels,),
                       f"{i}cond": (1, bands, 2 * channels), f"{i}res": (1, channels, 2 * channels),
                       f"{i}res_b": (2 * channels,)})
    params = _weights(shapes, seed=22)
    betas = np.linspace(1e-4, 0.05, steps)
    keep = jnp.asarray(np.cumprod(1 - betas), jnp.float32)

    def forward(p, noisy, t, mel):
        half = 64
        freqs = jnp.exp(-math.log(10000.0) * jnp.arange(half) / half)
        angle = t[:, None].astype(jnp.float32) * freqs * 10.0
        temb = jnp.concatenate([jnp.sin(angle), jnp.cos(angle)], -1)
        temb = jax.nn.silu(jax.nn.silu(temb @ p["t1"] + p["t1_b"]) @ p["t2"] + p["t2_b"])
        # the conditioner: two transposed 1-D convolutions of stride eight
        c = jax.lax.conv_transpose(mel, p["up1"], (8,), "SAME", dimension_numbers=_NWC)
        c = jax.nn.leaky_relu(c + p["up1_b"], 0.4)
        c = jax.lax.conv_transpose(c, p["up2"], (8,), "SAME", dimension_numbers=_NWC)
        c = jax.nn.leaky_relu(c + p["up2_b"], 0.4)
        x = jax.nn.relu(_conv(noisy[..., None], p["in"]) + p["in_b"])
        skips = 0.0
        for i in range(layers):
            y = x + (temb @ p[f"{i}t"] + p[f"{i}t_b"])[:, None, :]
            y = _conv(y, p[f"{i}dil"], dilation=2 ** (i % 5)) + p[f"{i}dil_b"] \
                + _conv(c, p[f"{i}cond"])
            gate, filt = jnp.split(y, 2, -1)
            y = jax.nn.sigmoid(gate) * jnp.tanh(filt)
            res, skip = jnp.split(_conv(y, p[f"{i}res"]) + p[f"{i}res_b"], 2, -1)
            x = (x + res) / math.sqrt(2.0)
            skips = skips + skip
        h = jax.nn.relu(_conv(skips / math.sqrt(layers), p["skip"]) + p["skip_b"])
        return (_conv(h, p["out_z"]) + p["out_b"])[..., 0]

    def loss_fn(p, clean, mel, t, noise):
        a = keep[t][:, None]
        noisy = jnp.sqrt(a) * clean + jnp.sqrt(1 - a) * noise
        return jnp.mean((forward(p, noisy, t, mel) - noise) ** 2)

    def step(p, psi, clean, mel, t, noise):
        loss, grads = jax.value_and_grad(loss_fn)(p, clean, mel, t, noise)
        # INNA: an inertial Newton-like system driven by the gradient alone
        drift = jax.tree.map(lambda w, s: (1 / beta - alpha) * w - s / beta, p, psi)
        p = jax.tree.map(lambda w, d, g: w + rate * (d - beta * g), p, drift, grads)
        psi = jax.tree.map(lambda s, d: s + rate * d, psi, drift)
        return p, psi, loss

    rng = np.random.default_rng(22)
    clean = _voiced_audio(rng, batch, samples)
    mel = _log_mel(clean, hop, bands)
    t = rng.integers(0, steps, batch).astype(np.int32)
    noise = rng.standard_normal(clean.shape).astype(np.float32)
    psi = jax.tree.map(lambda w: (1 - alpha * beta) * w, params)
    return jax.jit(step).lower(params, psi, jnp.asarray(clean), jnp.asarray(mel),
                               jnp.asarray(t), jnp.asarray(noise))


def r2d2_rescaled(batch: int = 24, burn: int = 16, train: int = 32, nstep: int = 5,
                  obs: int = 16, embed: int = 64, hidden: int = 128, actions: int = 4,
                  gamma: float = 0.997, rate: float = 1e-4, clip: float = 40.0,
                  copy_every: int = 2500) -> Any:
    """The learner step of R2D2 (Kapturowski, Ostrovski, Quan, Munos and Dabney) in
    bfloat16 on replayed sequences of a T-maze memory task: an LSTM with a dueling
    head refreshes the stored recurrent state over 16 burn-in steps without a gradient
    (for the online and the target network alike), then unrolls 32 training steps in a
    `lax.scan`; the targets are five-step double-Q returns under the invertible value
    rescaling h(x) = sign(x)(sqrt(|x| + 1) - 1) + 0.001 x, the loss is weighted by
    importance weights, and new priorities mix the largest and the mean absolute TD
    error. Adam with an epsilon of 1e-3 on gradients clipped to a global norm of 40;
    the target network is refreshed from the online one every 2500th step under
    `lax.cond`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    length = burn + train
    shapes = {"in": (obs, embed), "in_b": (embed,), "lstm": (embed + hidden, 4 * hidden),
              "lstm_b": (4 * hidden,), "v1": (hidden, 64), "v1_b": (64,), "v2": (64, 1),
              "v2_b": (1,), "a1": (hidden, 64), "a1_b": (64,), "a2": (64, actions),
              "a2_b": (actions,)}
    online = _weights(shapes, seed=23)
    target = jax.tree.map(lambda w: w + 0.0, online)

    def rescale(x, eps=1e-3):
        return jnp.sign(x) * (jnp.sqrt(jnp.abs(x) + 1) - 1) + eps * x

    def unscale(x, eps=1e-3):
        root = (jnp.sqrt(1 + 4 * eps * (jnp.abs(x) + 1 + eps)) - 1) / (2 * eps)
        return jnp.sign(x) * (root ** 2 - 1)

    def unroll(p, observations, state):
        pb = jax.tree.map(lambda w: w.astype(bf16), p)

        def cell(carry, o):
            h, c = carry
            x = jax.nn.relu(o.astype(bf16) @ pb["in"] + pb["in_b"])
            z = (jnp.concatenate([x, h.astype(bf16)], -1) @ pb["lstm"]).astype(f32) + p["lstm_b"]
            i, f, g, o_ = jnp.split(z, 4, -1)
            c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o_) * jnp.tanh(c)
            hb = h.astype(bf16)
            value = jax.nn.relu(hb @ pb["v1"] + pb["v1_b"]) @ pb["v2"] + pb["v2_b"]
            adv = jax.nn.relu(hb @ pb["a1"] + pb["a1_b"]) @ pb["a2"] + pb["a2_b"]
            q = (value + adv - jnp.mean(adv, -1, keepdims=True)).astype(f32)
            return (h, c), q

        state, q = lax.scan(cell, state, jnp.swapaxes(observations, 0, 1))
        return state, jnp.swapaxes(q, 0, 1)

    def loss_fn(p, target, observations, acts, rewards, discounts, start, weights):
        # burn-in: the stored state is refreshed by the first steps, without a gradient
        warm, _ = unroll(p, observations[:, :burn], start)
        warm = lax.stop_gradient(warm)
        warm_t, _ = unroll(target, observations[:, :burn], start)
        _, q = unroll(p, observations[:, burn:], warm)
        _, q_t = unroll(target, observations[:, burn:], warm_t)
        taken = jnp.take_along_axis(q, acts[:, burn:, None], -1)[..., 0]
        best = jnp.argmax(q, -1)
        boot = unscale(jnp.take_along_axis(q_t, best[..., None], -1)[..., 0])
        r, d = rewards[:, burn:], discounts[:, burn:]
        span = train - nstep
        ret = jnp.zeros((batch, span))
        scale = jnp.ones((batch, span))
        for k in range(nstep):
            ret = ret + scale * r[:, k:k + span]
            scale = scale * gamma * d[:, k:k + span]
        aim = lax.stop_gradient(rescale(ret + scale * boot[:, nstep:nstep + span]))
        td = taken[:, :span] - aim
        loss = jnp.mean(weights[:, None] * 0.5 * td ** 2)
        priority = 0.9 * jnp.max(jnp.abs(td), 1) + 0.1 * jnp.mean(jnp.abs(td), 1)
        return loss, priority

    def step(p, target, state, observations, acts, rewards, discounts, start, weights):
        m, v, t = state
        (loss, priority), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            p, target, observations, acts, rewards, discounts, start, weights)
        norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
        grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, clip / (norm + 1e-6)), grads)
        t = t + 1
        m = jax.tree.map(lambda m_, g: 0.9 * m_ + 0.1 * g, m, grads)
        v = jax.tree.map(lambda v_, g: 0.999 * v_ + 0.001 * g * g, v, grads)
        tf = t.astype(f32)
        p = jax.tree.map(lambda w, m_, v_: w - rate * (m_ / (1 - 0.9 ** tf))
                         / (jnp.sqrt(v_ / (1 - 0.999 ** tf)) + 1e-3), p, m, v)
        # the target network is a copy refreshed every 2500 learner steps
        target = lax.cond(t % copy_every == 0, lambda _: p, lambda tg: tg, target)
        return p, target, (m, v, t), loss, priority

    # replayed sequences of a T-maze: a cue at the start says which turn pays at the end
    rng = np.random.default_rng(23)
    observations = rng.normal(0, 0.3, (batch, length, obs)).astype(np.float32)
    cue = rng.choice([-1.0, 1.0], batch)
    offset = rng.integers(0, length - 8, batch)
    for b in range(batch):
        observations[b, offset[b], 0] += 2 * cue[b]
        observations[b, offset[b]:, 1] = np.linspace(0, 1, length - offset[b])
    acts = rng.integers(0, actions, (batch, length)).astype(np.int32)
    rewards = np.zeros((batch, length), np.float32)
    discounts = np.ones((batch, length), np.float32)
    for b in range(batch):
        end = min(offset[b] + int(rng.integers(6, 30)), length - 1)
        rewards[b, end] = np.where((acts[b, end] == 0) == (cue[b] > 0), 1.0, -0.5)
        discounts[b, end] = 0.0
    start = (jnp.asarray(rng.normal(0, 0.1, (batch, hidden)), f32),
             jnp.asarray(rng.normal(0, 0.1, (batch, hidden)), f32))
    weights = rng.uniform(0.4, 1.0, batch).astype(np.float32)
    state = (_zeros_like(online), _zeros_like(online), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(online, target, state, jnp.asarray(observations),
                               jnp.asarray(acts), jnp.asarray(rewards), jnp.asarray(discounts),
                               start, jnp.asarray(weights))


def _community_graph(rng: Any, nodes: int, classes: int, features: int, degree: float
                     ) -> tuple[Any, ...]:
    """numpy arrays of a stochastic-block-model graph: node classes, bag-of-words
    features (each class prefers its own slice of the vocabulary), the symmetric
    normalized edge list with self loops (sources, targets, weights)."""
    import numpy as np

    labels = np.arange(nodes) % classes
    rng.shuffle(labels)
    inside = degree * 0.8 / (nodes / classes)
    outside = degree * 0.2 / nodes
    chance = np.where(labels[:, None] == labels[None, :], inside, outside)
    upper = np.triu(rng.uniform(size=(nodes, nodes)) < chance, 1)
    adjacency = upper | upper.T | np.eye(nodes, dtype=bool)
    src, dst = np.nonzero(adjacency)
    deg = adjacency.sum(1)
    weight = 1.0 / np.sqrt(deg[src] * deg[dst])
    words = np.zeros((nodes, features), np.float32)
    width = features // classes
    for i in range(nodes):
        own = rng.integers(labels[i] * width, (labels[i] + 1) * width, 6)
        any_ = rng.integers(0, features, 10)
        words[i, own] = 1.0
        words[i, any_] = 1.0
    words /= words.sum(1, keepdims=True)
    return labels.astype(np.int32), words, src.astype(np.int32), dst.astype(np.int32), \
        weight.astype(np.float32)


def appnp_steihaug(nodes: int = 2048, classes: int = 6, features: int = 96, hidden: int = 64,
                   hops: int = 10, teleport: float = 0.1, cg_steps: int = 8,
                   radius0: float = 1.0) -> Any:
    """APPNP (Klicpera, Bojchevski and Guennemann) classifies the nodes of a 2048-node
    stochastic-block-model graph from bag-of-words features with 20 labels per class: an
    MLP predicts every node, then ten steps of personalized-PageRank propagation in a
    `fori_loop` (gathers and `segment_sum` over the normalized edge list, a teleport back
    to the predictions) spread them. The step is a Steihaug-Toint trust-region
    Newton-CG step on the flattened weights: conjugate gradients on Hessian-vector
    products in a `fori_loop` of eight iterations that stops at negative curvature or at
    the trust region's edge (masked iterations, the edge found by a quadratic), then a
    trial loss, the ratio of actual to predicted decrease, and the radius quartered or
    doubled."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    rng = np.random.default_rng(24)
    labels, words, src, dst, weight = _community_graph(rng, nodes, classes, features, 10.0)
    train = np.zeros(nodes, np.float32)
    for c in range(classes):
        train[np.nonzero(labels == c)[0][:20]] = 1.0
    params = _weights({"w1": (features, hidden), "w1_b": (hidden,), "w2": (hidden, classes),
                       "w2_b": (classes,)}, seed=24, scale=4.0)
    flat, unravel = ravel_pytree(params)

    def loss_of(flat, x, y, mask, src, dst, weight):
        p = unravel(flat)
        h = jax.nn.relu(x @ p["w1"] + p["w1_b"]) @ p["w2"] + p["w2_b"]

        def propagate(_, z):
            moved = jax.ops.segment_sum(weight[:, None] * z[src], dst, num_segments=nodes)
            return (1 - teleport) * moved + teleport * h

        z = lax.fori_loop(0, hops, propagate, h)
        return jnp.sum(_xent(z, y) * mask) / jnp.sum(mask) + 5e-4 * jnp.sum(p["w1"] ** 2)

    def step(flat, radius, x, y, mask, src, dst, weight):
        args = (x, y, mask, src, dst, weight)
        loss, g = jax.value_and_grad(loss_of)(flat, *args)
        hvp = lambda v: jax.jvp(lambda w: jax.grad(loss_of)(w, *args), (flat,), (v,))[1]

        def to_edge(z, d):
            """tau >= 0 with |z + tau d| = radius."""
            a, b, c = jnp.vdot(d, d), 2 * jnp.vdot(z, d), jnp.vdot(z, z) - radius ** 2
            return (-b + jnp.sqrt(jnp.maximum(b * b - 4 * a * c, 0.0))) / (2 * a + 1e-20)

        def cg(_, carry):
            z, r, d, done = carry
            hd = hvp(d)
            curve = jnp.vdot(d, hd)
            alpha = jnp.vdot(r, r) / jnp.where(curve > 0, curve, 1.0)
            ahead = z + alpha * d
            # negative curvature or leaving the region: stop on its edge
            out = (curve <= 0) | (jnp.linalg.norm(ahead) >= radius)
            edge = z + to_edge(z, d) * d
            new_z = jnp.where(out, edge, ahead)
            new_r = r + alpha * hd
            small = jnp.linalg.norm(new_r) < 1e-6 * jnp.linalg.norm(g)
            beta = jnp.vdot(new_r, new_r) / (jnp.vdot(r, r) + 1e-30)
            new_d = -new_r + beta * d
            keep = lambda old, new: jnp.where(done, old, new)
            return (keep(z, new_z), keep(r, new_r), keep(d, new_d), done | out | small)

        z0 = jnp.zeros_like(flat)
        s, *_ = lax.fori_loop(0, cg_steps, cg, (z0, g, -g, jnp.asarray(False)))
        predicted = -(jnp.vdot(g, s) + 0.5 * jnp.vdot(s, hvp(s)))
        trial = loss_of(flat + s, *args)
        ratio = (loss - trial) / jnp.maximum(predicted, 1e-12)
        at_edge = jnp.linalg.norm(s) > 0.99 * radius
        radius = jnp.where(ratio < 0.25, radius / 4,
                           jnp.where((ratio > 0.75) & at_edge, jnp.minimum(2 * radius, 100.0),
                                     radius))
        flat = jnp.where(ratio > 0.1, flat + s, flat)
        return flat, radius, loss, ratio

    return jax.jit(step).lower(flat, jnp.asarray(radius0, jnp.float32), jnp.asarray(words),
                               jnp.asarray(labels), jnp.asarray(train), jnp.asarray(src),
                               jnp.asarray(dst), jnp.asarray(weight))


def _entmax15(z: Any) -> Any:
    """1.5-entmax along the last axis by sorting (Peters, Niculae and Martins): sparse
    probabilities (z/2 - tau)_+^2 with the threshold tau found from the sorted scores'
    running means and variances."""
    import jax.numpy as jnp

    z = z / 2
    z = z - jnp.max(z, -1, keepdims=True)
    ordered = -jnp.sort(-z, -1)
    k = jnp.arange(1, z.shape[-1] + 1, dtype=z.dtype)
    mean = jnp.cumsum(ordered, -1) / k
    square = jnp.cumsum(ordered ** 2, -1) / k
    delta = (1 - k * (square - mean ** 2)) / k
    tau = mean - jnp.sqrt(jnp.maximum(delta, 0.0))
    support = jnp.sum(tau <= ordered, -1, keepdims=True)
    tau_star = jnp.take_along_axis(tau, support - 1, -1)
    return jnp.maximum(z - tau_star, 0.0) ** 2


def node_fednova(clients: int = 4, rows: int = 64, features: int = 24, classes: int = 3,
                 trees: int = 32, depth: int = 5, layers: int = 2, most: int = 6,
                 local: tuple[int, ...] = (2, 3, 4, 6), rate: float = 0.05,
                 momentum: float = 0.9) -> Any:
    """NODE, neural oblivious decision ensembles (Popov, Morozov and Babenko), classifies
    tabular rows: two densely connected layers of 32 differentiable oblivious trees of
    depth five, each choosing its features by 1.5-entmax (sort-based, with thresholds
    from running means and variances), splitting by a sparsemoid with learned
    thresholds and temperatures and routing every row to its 32 leaves by products over
    the depth, the trees' responses averaged into the prediction. Four clients with
    differently shifted data are federated by FedNova (Wang, Liu, Liang, Joshi and
    Poor): under `vmap`, client i takes 2, 3, 4 or 6 local momentum SGD steps in a masked
    `lax.scan`, its change is divided by the accumulated weight of its momentum, and the
    server applies the average direction scaled by the average of those weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    leaves = 2 ** depth
    shapes: dict[str, tuple[int, ...]] = {}
    width = features
    for l in range(layers):
        shapes.update({f"{l}select": (trees, depth, width), f"{l}cut_b": (trees, depth),
                       f"{l}temp_b": (trees, depth), f"{l}leaf": (trees, leaves, classes)})
        width += trees * classes
    params = _weights(shapes, seed=25)
    bits = (np.arange(leaves)[None, :] >> np.arange(depth)[:, None]) & 1
    code = jnp.asarray(bits, jnp.float32)                           # (depth, leaves)

    def forward(p, x):
        outputs = []
        h = x
        for l in range(layers):
            choose = _entmax15(p[f"{l}select"])                        # (trees, depth, width)
            f = jnp.einsum("bw,tdw->btd", h, choose)
            c = jnp.clip(0.5 * (f - p[f"{l}cut_b"]) * jnp.exp(-p[f"{l}temp_b"]) + 0.5, 0, 1)
            c = c[..., None]
            route = jnp.prod(c * code + (1 - c) * (1 - code), 2)      # (batch, trees, leaves)
            out = jnp.einsum("btl,tlc->btc", route, p[f"{l}leaf"])
            outputs.append(out)
            h = jnp.concatenate([h, out.reshape(out.shape[0], -1)], -1)
        return jnp.mean(jnp.concatenate(outputs, 1), 1)

    def loss_fn(p, x, y):
        return jnp.mean(_xent(forward(p, x), y))

    def client(p0, x, y, taken):
        def local_step(carry, k):
            p, v = carry
            g = jax.grad(loss_fn)(p, x, y)
            active = k < taken
            v = jax.tree.map(lambda v_, g_: jnp.where(active, momentum * v_ + g_, v_), v, g)
            p = jax.tree.map(lambda w, v_: jnp.where(active, w - rate * v_, w), p, v)
            return (p, v), None

        (p, _), _ = lax.scan(local_step, (p0, _zeros_like(p0)), jnp.arange(most))
        k = jnp.arange(most)
        # the momentum's accumulated weight on each local gradient: the client's norm
        norm = jnp.sum(jnp.where(k < taken, (1 - momentum ** (taken - k)) / (1 - momentum), 0.0))
        return jax.tree.map(lambda a, b: (a - b) / norm, p0, p), norm

    def step(p, x, y, taken, share):
        moves, norms = jax.vmap(client, (None, 0, 0, 0))(p, x, y, taken)
        effective = jnp.sum(share * norms)
        p = jax.tree.map(lambda w, d: w - effective * jnp.tensordot(share, d, 1), p, moves)
        return p, jax.vmap(loss_fn, (None, 0, 0))(p, x, y)

    # each client's rows come from its own shifted and scaled population
    rng = np.random.default_rng(25)
    weights_true = rng.normal(0, 1, (features, classes))
    xs, ys = [], []
    for _ in range(clients):
        x = rng.normal(rng.normal(0, 0.7, features), rng.uniform(0.6, 1.4, features),
                       (rows, features))
        score = np.tanh(x) @ weights_true + 0.5 * x[:, :classes] * x[:, classes:2 * classes]
        ys.append(np.argmax(score + rng.gumbel(size=score.shape) * 0.5, 1))
        xs.append(x)
    share = np.full(clients, 1.0 / clients, np.float32)
    return jax.jit(step).lower(params, jnp.asarray(np.stack(xs), jnp.float32),
                               jnp.asarray(np.stack(ys), jnp.int32),
                               jnp.asarray(local, jnp.int32), jnp.asarray(share))


def _seasonal_series(rng: Any, count: int, length: int, channels: int) -> Any:
    """numpy float32 (count, length, channels) series: per channel a level, a slow trend,
    daily (24-step) and two-day (48-step) cycles of random weights and phases, a
    shared weekday effect on some channels, AR(1) noise, and rare spikes."""
    import numpy as np

    t = np.arange(length)
    out = np.zeros((count, length, channels), np.float32)
    for i in range(count):
        common = np.sin(2 * np.pi * t / 24 + rng.uniform(0, 2 * np.pi))
        for c in range(channels):
            level, trend = rng.normal(0, 2), rng.normal(0, 0.01)
            series = level + trend * t
            series += rng.uniform(0.3, 1.5) * np.sin(2 * np.pi * t / 24 + rng.uniform(0, 2 * np.pi))
            series += rng.uniform(0, 0.8) * np.sin(2 * np.pi * t / 48 + rng.uniform(0, 2 * np.pi))
            series += rng.uniform(0, 0.5) * common
            noise = np.zeros(length)
            for k in range(1, length):
                noise[k] = 0.7 * noise[k - 1] + rng.normal(0, 0.2)
            series += noise
            spikes = rng.uniform(size=length) < 0.01
            series[spikes] += rng.normal(0, 3, spikes.sum())
            out[i, :, c] = series
    return out


def timesnet_natural(workers: int = 4, per: int = 2, history: int = 96, horizon: int = 24,
                     channels: int = 7, width: int = 16, inner: int = 32,
                     periods: tuple[int, ...] = (40, 24, 12, 8), chosen: int = 2,
                     rate: float = 0.01, momentum: float = 0.9) -> Any:
    """TimesNet (Wu, Hu, Liu, Zhou, Wang and Long) forecasts 24 steps of seven seasonal
    series from 96: the normalized history is extended to 120 steps by a linear map along
    time and embedded, the strongest two of four candidate periods (40, 24, 12 and 8)
    are picked by the mean FFT amplitude of the embedding (`rfft`, `top_k`), and the
    series folded into a 2-D grid of each period passes an Inception block of 1x1, 3x3
    and 5x5 convolutions; the grids are mixed back with softmax weights of their
    amplitudes. Four workers under `vmap` send their gradients by natural compression
    (Horvath, Ho, Horvath, Sahu, Canini and Richtarik): every entry rounded at random,
    without bias, to one of the two powers of two around it by masking the mantissa bits
    of its float (`bitcast_convert_type`); the server averages them into momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    total = history + horizon
    shapes: dict[str, tuple[int, ...]] = {
        "embed": (channels, width), "embed_b": (width,), "pos": (total, width),
        "extend": (history, total), "extend_b": (total,), "norm_g": (width,), "norm_b": (width,),
        "out": (width, channels), "out_b": (channels,)}
    for k in (1, 3, 5):
        shapes.update({f"a{k}": (k, k, width, inner), f"a{k}_b": (inner,),
                       f"b{k}": (k, k, inner, width), f"b{k}_b": (width,)})
    params = _weights(shapes, seed=26)
    freqs = jnp.asarray([total // p for p in periods])

    def inception(p, x, first):
        outs = [_conv(x, p[f"{first}{k}"]) + p[f"{first}{k}_b"] for k in (1, 3, 5)]
        return sum(outs) / 3

    def forward(p, series):
        mean = jnp.mean(series, 1, keepdims=True)
        std = jnp.std(series, 1, keepdims=True) + 1e-5
        x = (series - mean) / std
        x = jnp.einsum("btc,ts->bsc", x, p["extend"]) + p["extend_b"][None, :, None]
        h = x @ p["embed"] + p["embed_b"] + p["pos"]
        # the strongest candidate periods by FFT amplitude, weighted per series
        amp = jnp.mean(jnp.abs(jnp.fft.rfft(h, axis=1)), -1)          # (batch, frequency)
        score = amp[:, freqs]
        _, top = lax.top_k(jnp.mean(score, 0), chosen)
        picked = jnp.zeros(len(periods), bool).at[top].set(True)
        weights = jax.nn.softmax(jnp.where(picked, score, -1e9), -1)
        mixed = 0.0
        for i, period in enumerate(periods):
            grid = h.reshape(h.shape[0], total // period, period, width)
            grid = inception(p, jax.nn.gelu(inception(p, grid, "a")), "b")
            mixed = mixed + weights[:, i, None, None] * grid.reshape(h.shape)
        h = _normalize(h + mixed, p["norm_g"], p["norm_b"])
        y = h @ p["out"] + p["out_b"]
        return y[:, history:] * std + mean

    def loss_fn(p, past, future):
        return jnp.mean((forward(p, past) - future) ** 2)

    def compress(g, key):
        """Natural compression: every entry rounded at random to one of the two powers
        of two around it, unbiased, by masking the float's mantissa bits."""
        bits = lax.bitcast_convert_type(g, jnp.uint32)
        low = lax.bitcast_convert_type(bits & jnp.uint32(0xFF800000), jnp.float32)
        ratio = jnp.where(low != 0, g / jnp.where(low != 0, low, 1.0), 1.0)
        up = jax.random.uniform(key, g.shape) < ratio - 1
        return jnp.where(up, 2 * low, low)

    def step(p, velocity, past, future, key):
        losses, grads = jax.vmap(jax.value_and_grad(loss_fn), (None, 0, 0))(p, past, future)
        leaves, tree = jax.tree.flatten(grads)
        keys = jax.random.split(key, len(leaves))
        sent = [compress(g, k) for g, k in zip(leaves, keys)]
        mean = jax.tree.unflatten(tree, [jnp.mean(g, 0) for g in sent])
        velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, mean)
        p = jax.tree.map(lambda w, v: w - rate * v, p, velocity)
        return p, velocity, jnp.mean(losses)

    rng = np.random.default_rng(26)
    series = _seasonal_series(rng, workers * per, total, channels)
    series = series.reshape(workers, per, total, channels)
    return jax.jit(step).lower(params, _zeros_like(params), jnp.asarray(series[:, :, :history]),
                               jnp.asarray(series[:, :, history:]), jax.random.PRNGKey(26))


def prefix_dcasgd(batch: int = 8, numbers: int = 30, prefix: int = 16, width: int = 96,
                  heads: int = 4, layers: int = 3, hidden: int = 384, reparam: int = 256,
                  rate: float = 0.05, momentum: float = 0.9, lam: float = 0.04) -> Any:
    """Prefix tuning (Li and Liang) of a frozen bfloat16 causal language model, three
    layers of width 96, to sort 30 digits: sixteen trained vectors pass a reparameterizing
    tanh MLP that gives every layer its own prefix keys and values, prepended to the
    sequence's, and only the answer tokens are scored. The gradient is taken at stale
    weights, as an asynchronous worker would send it, and corrected by delay-compensated
    ASGD (Zheng et al., DC-ASGD-a): g + lambda g * g * (w - w_stale) / sqrt(mean square of
    g), a diagonal outer-product stand-in for the Hessian, before momentum SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    vocab, sep, end = 12, 10, 11
    length = 2 * numbers + 2
    dh = width // heads
    frozen_shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for l in range(layers):
        frozen_shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,),
                              f"{l}qkv": (width, 3 * width), f"{l}o": (width, width),
                              f"{l}n2_g": (width,), f"{l}n2_b": (width,),
                              f"{l}up": (width, hidden), f"{l}up_b": (hidden,),
                              f"{l}down": (hidden, width), f"{l}down_b": (width,)})
    frozen_shapes.update({"nf_g": (width,), "nf_b": (width,)})
    frozen = _weights(frozen_shapes, seed=27, dtype=bf16)
    trained = _weights({"seed": (prefix, width // 2), "r1": (width // 2, reparam),
                        "r1_b": (reparam,), "r2": (reparam, layers * 2 * width),
                        "r2_b": (layers * 2 * width,)}, seed=28)
    allowed = jnp.concatenate([jnp.ones((length, prefix), bool),
                               jnp.tril(jnp.ones((length, length), bool))], 1)

    def loss_fn(q, tokens):
        # the prefix: a reparameterizing MLP turns a few trained vectors into every
        # layer's extra keys and values
        kv = jnp.tanh(q["seed"] @ q["r1"] + q["r1_b"]) @ q["r2"] + q["r2_b"]
        kv = kv.reshape(prefix, layers, 2, heads, dh).astype(bf16)
        b = tokens.shape[0]
        x = frozen["embed"][tokens] + frozen["pos"]
        for l in range(layers):
            h = _normalize(x, frozen[f"{l}n1_g"], frozen[f"{l}n1_b"])
            qq, k, v = (t.reshape(b, length, heads, dh)
                        for t in jnp.split(h @ frozen[f"{l}qkv"], 3, -1))
            k = jnp.concatenate([jnp.broadcast_to(kv[:, l, 0], (b, prefix, heads, dh)), k], 1)
            v = jnp.concatenate([jnp.broadcast_to(kv[:, l, 1], (b, prefix, heads, dh)), v], 1)
            scores = jnp.einsum("bqhd,bkhd->bhqk", qq, k).astype(f32) / math.sqrt(dh)
            att = jax.nn.softmax(jnp.where(allowed, scores, -1e9), -1).astype(bf16)
            mixed = jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, length, width)
            x = x + mixed @ frozen[f"{l}o"]
            h = _normalize(x, frozen[f"{l}n2_g"], frozen[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ frozen[f"{l}up"] + frozen[f"{l}up_b"]) @ frozen[f"{l}down"] \
                + frozen[f"{l}down_b"]
        logits = _normalize(x, frozen["nf_g"], frozen["nf_b"]) @ frozen["embed"].T
        nll = _xent(logits[:, numbers:-1], tokens[:, numbers + 1:])
        return jnp.mean(nll)

    def step(q, stale, state, tokens):
        velocity, square = state
        # the worker's gradient was taken at weights some steps old (stale); DC-ASGD
        # compensates it by a diagonal outer-product approximation of the Hessian
        loss, g = jax.value_and_grad(loss_fn)(stale, tokens)
        square = jax.tree.map(lambda s, g_: 0.95 * s + 0.05 * g_ * g_, square, g)
        g = jax.tree.map(lambda g_, w, ws, s: g_ + lam / jnp.sqrt(s + 1e-7) * g_ * g_ * (w - ws),
                         g, q, stale, square)
        velocity = jax.tree.map(lambda v, g_: momentum * v + g_, velocity, g)
        q = jax.tree.map(lambda w, v: w - rate * v, q, velocity)
        return q, (velocity, square), loss

    rng = np.random.default_rng(27)
    digits = rng.integers(0, 10, (batch, numbers))
    tokens = np.concatenate([digits, np.full((batch, 1), sep), np.sort(digits, 1),
                             np.full((batch, 1), end)], 1).astype(np.int32)
    stale = jax.tree.map(lambda w: w + 0.01 * jnp.asarray(
        rng.standard_normal(w.shape), jnp.float32), trained)
    state = (_zeros_like(trained), jax.tree.map(lambda w: jnp.full(w.shape, 1e-4), trained))
    return jax.jit(step).lower(trained, stale, state, jnp.asarray(tokens))


def deep_ritz_pnorm(interior: int = 2048, boundary: int = 512, width: int = 32, blocks: int = 4,
                    penalty: float = 500.0, rate: float = 0.01) -> Any:
    """The deep Ritz method (E and Yu) for -Laplacian(u) = 1 on the square [-1, 1]^2
    slit along a half-axis, u = 0 on the boundary: a residual network of four blocks of
    width 32 with ReLU-cubed activations, the Ritz energy (half the squared gradient
    less u, by per-point `grad` under `vmap` at 2048 random interior points) plus a
    penalty on 512 boundary points, so that the step differentiates a gradient. The
    update is p-norm mirror descent (Grove, Littlestone and Schuurmans; Gentile): every
    tensor keeps a dual variable that takes the gradient step, and the weights are the
    gradient of half its squared p-norm, with p = 1 + ln(size)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(blocks):
        shapes.update({f"{i}a": (width, width), f"{i}a_b": (width,), f"{i}b": (width, width),
                       f"{i}b_b": (width,)})
    shapes.update({"out": (width, 1), "out_b": (1,)})
    params = _weights(shapes, seed=29)

    def u(p, point):
        h = jnp.concatenate([point, jnp.zeros(width - 2)])      # the input padded to width
        for i in range(blocks):
            z = jnp.maximum(h @ p[f"{i}a"] + p[f"{i}a_b"], 0) ** 3
            z = jnp.maximum(z @ p[f"{i}b"] + p[f"{i}b_b"], 0) ** 3
            h = h + z
        return (h @ p["out"] + p["out_b"])[0]

    def energy(p, inside, edge):
        grads = jax.vmap(jax.grad(u, 1), (None, 0))(p, inside)
        values = jax.vmap(u, (None, 0))(p, inside)
        ritz = jnp.mean(0.5 * jnp.sum(grads ** 2, -1) - values) * 4.0   # the area is 4
        return ritz + penalty * jnp.mean(jax.vmap(u, (None, 0))(p, edge) ** 2)

    def exponent(w):
        return max(2.0, 1.0 + math.log(w.size))

    def primal(theta):
        """w = grad of (1/2)|theta|_p^2: sign(theta) |theta|^(p-1) / |theta|_p^(p-2)."""
        def one(t):
            pw = exponent(t)
            norm = jnp.sum(jnp.abs(t) ** pw) ** (1 / pw) + 1e-12
            return jnp.sign(t) * jnp.abs(t) ** (pw - 1) / norm ** (pw - 2)
        return jax.tree.map(one, theta)

    def step(theta, inside, edge):
        p = primal(theta)
        loss, grads = jax.value_and_grad(energy)(p, inside, edge)
        # mirror descent: the step is taken on the dual variable
        theta = jax.tree.map(lambda t, g: t - rate * g, theta, grads)
        return theta, primal(theta), loss

    def dual(w):
        """The inverse map, by the conjugate exponent q = p / (p - 1)."""
        pw = exponent(w)
        q = pw / (pw - 1)
        norm = np.sum(np.abs(w) ** q) ** (1 / q) + 1e-12
        return np.sign(w) * np.abs(w) ** (q - 1) / norm ** (q - 2)

    theta = {k: jnp.asarray(dual(np.asarray(w)), jnp.float32) for k, w in params.items()}
    rng = np.random.default_rng(29)
    inside = rng.uniform(-1, 1, (interior, 2))
    side = rng.integers(0, 5, boundary)
    s = rng.uniform(-1, 1, boundary)
    edge = np.stack([np.choose(side, [s, s, -np.ones(boundary), np.ones(boundary), (s + 1) / 2]),
                     np.choose(side, [-np.ones(boundary), np.ones(boundary), s, s,
                                      np.zeros(boundary)])], 1)
    return jax.jit(step).lower(theta, jnp.asarray(inside, jnp.float32),
                               jnp.asarray(edge, jnp.float32))


def vat_nesterov_rmsprop(labelled: int = 12, unlabelled: int = 20, side: int = 24,
                         classes: int = 10, xi: float = 1e-6, eps: float = 1.0,
                         rate: float = 1e-3, rho: float = 0.9, mu: float = 0.9) -> Any:
    """Virtual adversarial training (Miyato, Maeda, Koyama and Ishii) of a small
    convolutional classifier on 24x24 textures, twelve labelled and twenty unlabelled:
    one power iteration (the gradient of the KL divergence at a tiny random
    perturbation) finds the direction the prediction is most sensitive to, the KL
    divergence at a perturbation of length one in that direction is the smoothness
    loss, and an entropy term sharpens the unlabelled predictions. The update is
    RMSProp with Nesterov momentum: the scaled gradient accumulates into a momentum and
    the step looks ahead along it."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes = {"c1": (3, 3, 3, 16), "c1_b": (16,), "c2": (3, 3, 16, 16), "c2_b": (16,),
              "c3": (3, 3, 16, 32), "c3_b": (32,), "c4": (3, 3, 32, 48), "c4_b": (48,),
              "fc": (48, classes), "fc_b": (classes,)}
    params = _weights(shapes, seed=30, scale=math.sqrt(2.0))

    def pool(x):
        b, h, w, c = x.shape
        return jnp.mean(x.reshape(b, h // 2, 2, w // 2, 2, c), (2, 4))

    def logits_of(p, x):
        x = jax.nn.leaky_relu(_conv(x, p["c1"]) + p["c1_b"], 0.1)
        x = pool(jax.nn.leaky_relu(_conv(x, p["c2"]) + p["c2_b"], 0.1))
        x = pool(jax.nn.leaky_relu(_conv(x, p["c3"]) + p["c3_b"], 0.1))
        x = jax.nn.leaky_relu(_conv(x, p["c4"]) + p["c4_b"], 0.1)
        return jnp.mean(x, (1, 2)) @ p["fc"] + p["fc_b"]

    def kl(p_logits, q_logits):
        lp = jax.nn.log_softmax(p_logits, -1)
        return jnp.mean(jnp.sum(jnp.exp(lp) * (lp - jax.nn.log_softmax(q_logits, -1)), -1))

    def unit(d):
        return d / (jnp.sqrt(jnp.sum(d * d, (1, 2, 3), keepdims=True)) + 1e-12)

    def loss_fn(p, x_l, y_l, x_u, key):
        clean = logits_of(p, x_u)
        aim = jax.lax.stop_gradient(clean)
        # one power iteration for the direction the prediction is most sensitive to
        d = unit(jax.random.normal(key, x_u.shape))
        g = jax.grad(lambda r: kl(aim, logits_of(p, x_u + r)))(xi * d)
        r_adv = eps * unit(jax.lax.stop_gradient(g))
        vat = kl(aim, logits_of(p, x_u + r_adv))
        probs = jax.nn.softmax(clean, -1)
        entropy = -jnp.mean(jnp.sum(probs * jax.nn.log_softmax(clean, -1), -1))
        return jnp.mean(_xent(logits_of(p, x_l), y_l)) + vat + entropy, vat

    def step(p, state, x_l, y_l, x_u, key):
        m, v = state
        (loss, vat), grads = jax.value_and_grad(loss_fn, has_aux=True)(p, x_l, y_l, x_u, key)
        v = jax.tree.map(lambda v_, g: rho * v_ + (1 - rho) * g * g, v, grads)
        scaled = jax.tree.map(lambda g, v_: g / jnp.sqrt(v_ + 1e-8), grads, v)
        m = jax.tree.map(lambda m_, s: mu * m_ + rate * s, m, scaled)
        p = jax.tree.map(lambda w, m_, s: w - (mu * m_ + rate * s), p, m, scaled)
        return p, (m, v), loss, vat

    rng = np.random.default_rng(30)
    pictures, labels = _textures(rng, labelled + unlabelled, side, classes)
    state = (_zeros_like(params), _zeros_like(params))
    return jax.jit(step).lower(params, state, jnp.asarray(pictures[:labelled]),
                               jnp.asarray(labels[:labelled]), jnp.asarray(pictures[labelled:]),
                               jax.random.PRNGKey(30))


def rbm_pcd(batch: int = 64, chains: int = 64, side: int = 28, hidden: int = 256,
            gibbs: int = 10, rate: float = 0.01, momentum: float = 0.9, decay: float = 2e-4,
            sparsity: float = 0.05) -> Any:
    """A binary restricted Boltzmann machine, 784 visible and 256 hidden units, on
    binarized glyphs, trained by persistent contrastive divergence (Tieleman): 64
    persistent chains advance ten block-Gibbs steps in a `fori_loop` with Bernoulli
    draws, the weights move along the difference of data and model correlations with
    momentum, weight decay and a pull of the hidden units' mean activity towards 5%
    (no `jax.grad` anywhere); a reconstruction error and a one-bit pseudo-log-likelihood
    from free energies come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    visible = side * side
    params = _weights({"w": (visible, hidden), "vis_b": (visible,), "hid_b": (hidden,)},
                      seed=31, scale=0.1)

    def free_energy(p, v):
        return -v @ p["vis_b"] - jnp.sum(jax.nn.softplus(v @ p["w"] + p["hid_b"]), -1)

    def step(p, velocity, persistent, data, key):
        pos_h = jax.nn.sigmoid(data @ p["w"] + p["hid_b"])

        def gibbs_step(k, v):
            kk = jax.random.fold_in(key, k)
            h = jax.random.bernoulli(jax.random.fold_in(kk, 0),
                                     jax.nn.sigmoid(v @ p["w"] + p["hid_b"])).astype(jnp.float32)
            return jax.random.bernoulli(jax.random.fold_in(kk, 1),
                                        jax.nn.sigmoid(h @ p["w"].T + p["vis_b"])
                                        ).astype(jnp.float32)

        chains_v = lax.fori_loop(0, gibbs, gibbs_step, persistent)
        neg_h = jax.nn.sigmoid(chains_v @ p["w"] + p["hid_b"])
        # the contrastive divergence of data and model statistics, a sparsity pull on
        # the hidden units' mean activity, weight decay
        grads = {"w": data.T @ pos_h / batch - chains_v.T @ neg_h / chains - decay * p["w"],
                 "vis_b": jnp.mean(data, 0) - jnp.mean(chains_v, 0),
                 "hid_b": jnp.mean(pos_h, 0) - jnp.mean(neg_h, 0)
                 + 0.1 * (sparsity - jnp.mean(pos_h, 0))}
        velocity = jax.tree.map(lambda v, g: momentum * v + rate * g, velocity, grads)
        p = jax.tree.map(lambda w, v: w + v, p, velocity)
        # monitors: reconstruction error and a one-bit pseudo-log-likelihood
        recon = jax.nn.sigmoid(pos_h @ p["w"].T + p["vis_b"])
        error = jnp.mean(jnp.sum((data - recon) ** 2, -1))
        bit = jax.random.randint(jax.random.fold_in(key, gibbs), (batch,), 0, visible)
        flipped = data.at[jnp.arange(batch), bit].set(1 - data[jnp.arange(batch), bit])
        pseudo = visible * jnp.mean(jax.nn.log_sigmoid(free_energy(p, flipped)
                                                       - free_energy(p, data)))
        return p, velocity, chains_v, error, pseudo

    rng = np.random.default_rng(31)
    glyphs, _ = _glyphs(rng, batch, side)
    data = (glyphs > 0.5).astype(np.float32).reshape(batch, visible)
    persistent = (rng.uniform(size=(chains, visible)) < 0.2).astype(np.float32)
    return jax.jit(step).lower(params, _zeros_like(params), jnp.asarray(persistent),
                               jnp.asarray(data), jax.random.PRNGKey(31))


def navier_stokes_spectral(runs: int = 4, grid: int = 64, dt: float = 0.01, records: int = 6,
                           every: int = 8, forcing: float = 0.5) -> Any:
    """Two-dimensional incompressible Navier-Stokes turbulence on a periodic
    64x64 grid for four viscosities, no gradient: a pseudo-spectral vorticity solver in
    complex Fourier space (the stream function by division by |k|^2, velocities and
    vorticity gradients by inverse real FFTs, the advection term back by a real FFT
    under the two-thirds rule), Kolmogorov forcing and a large-scale drag, classical
    Runge-Kutta steps in a `fori_loop` inside a `lax.scan` of records that bin the energy
    spectrum by shells of |k| (`segment_sum`) and return enstrophies and peaks."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    k1 = np.fft.fftfreq(grid, 1.0 / grid)
    kx = np.fft.rfftfreq(grid, 1.0 / grid)[None, :]
    ky = k1[:, None]
    k2 = kx ** 2 + ky ** 2
    inverse = np.where(k2 > 0, 1.0 / np.maximum(k2, 1e-12), 0.0)
    keep = (np.abs(kx) < grid / 3) & (np.abs(ky) < grid / 3)       # the two-thirds rule
    shells = np.minimum(np.round(np.sqrt(k2)).astype(np.int32), grid // 2)
    c64 = jnp.complex64
    ikx, iky = jnp.asarray(1j * kx, c64), jnp.asarray(1j * ky, c64)
    k2_j, inv_j, keep_j = jnp.asarray(k2, jnp.float32), jnp.asarray(inverse, jnp.float32), \
        jnp.asarray(keep, jnp.float32)
    y = np.arange(grid) * 2 * np.pi / grid
    force_hat = jnp.asarray(np.fft.rfft2(np.broadcast_to(-4 * forcing * np.cos(4 * y)[:, None],
                                                         (grid, grid))), c64)

    def run(omega0, viscosity):
        nu = viscosity[:, None, None]

        def rhs(w):
            psi = w * inv_j
            u = jnp.fft.irfft2(iky * psi, (grid, grid))
            v = jnp.fft.irfft2(-ikx * psi, (grid, grid))
            wx = jnp.fft.irfft2(ikx * w, (grid, grid))
            wy = jnp.fft.irfft2(iky * w, (grid, grid))
            advect = jnp.fft.rfft2(u * wx + v * wy) * keep_j
            return -advect - nu * k2_j * w + force_hat - 0.05 * w * (k2_j < 1.5)

        def rk4(_, w):
            a = rhs(w)
            b = rhs(w + 0.5 * dt * a)
            c = rhs(w + 0.5 * dt * b)
            d = rhs(w + dt * c)
            return w + dt / 6 * (a + 2 * b + 2 * c + d)

        def record(w, _):
            w = lax.fori_loop(0, every, rk4, w)
            density = 0.5 * jnp.abs(w) ** 2 * inv_j
            density = density.at[..., 1:].multiply(2.0)              # the halved spectrum
            spectrum = jax.vmap(lambda e: jax.ops.segment_sum(
                e.reshape(-1), jnp.asarray(shells.reshape(-1)),
                num_segments=grid // 2 + 1))(density)
            field = jnp.fft.irfft2(w, (grid, grid))
            return w, (spectrum, jnp.mean(field ** 2, (1, 2)), jnp.max(jnp.abs(field), (1, 2)))

        w0 = jnp.fft.rfft2(omega0)
        w, (spectra, enstrophy, peak) = lax.scan(record, w0, None, length=records)
        return jnp.fft.irfft2(w, (grid, grid)), spectra, enstrophy, peak

    rng = np.random.default_rng(32)
    noise = rng.standard_normal((runs, grid, grid))
    smooth = np.fft.irfft2(np.fft.rfft2(noise) * np.exp(-k2 / 20.0), (grid, grid))
    omega0 = smooth / smooth.std(axis=(1, 2), keepdims=True)
    viscosity = np.asarray([1e-3, 2e-3, 5e-3, 1e-2][:runs], np.float32)
    return jax.jit(run).lower(jnp.asarray(omega0, jnp.float32), jnp.asarray(viscosity))


def path_tracer(width: int = 96, height: int = 72, samples: int = 8, bounces: int = 5) -> Any:
    """Monte Carlo path tracing of a box of spheres (walls as huge spheres, a mirror
    ball, a diffuse ball and a spherical area light, after smallpt), 96x72 pixels at
    eight jittered samples, no gradient: five bounces in a `fori_loop`, each intersecting
    every ray with every sphere, taking the nearest by `argmin`, gathering its material,
    adding emitted light, and sampling a cosine-weighted direction in a frame built
    about the normal (or reflecting), with Russian roulette after the second bounce."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    # centre, radius, emission, colour, mirror: walls are huge spheres (after smallpt)
    big = 1e4
    scene = [((big + 1, 40.8, 81.6), big, 0, (0.75, 0.25, 0.25), 0),
             ((-big + 99, 40.8, 81.6), big, 0, (0.25, 0.25, 0.75), 0),
             ((50, 40.8, big), big, 0, (0.75, 0.75, 0.75), 0),
             ((50, 40.8, -big + 170), big, 0, (0.0, 0.0, 0.0), 0),
             ((50, big, 81.6), big, 0, (0.75, 0.75, 0.75), 0),
             ((50, -big + 81.6, 81.6), big, 0, (0.75, 0.75, 0.75), 0),
             ((27, 16.5, 47), 16.5, 0, (0.999, 0.999, 0.999), 1),
             ((73, 16.5, 78), 16.5, 0, (0.6, 0.85, 0.6), 0),
             ((50, 681.6 - 0.27, 81.6), 600, 12, (0.0, 0.0, 0.0), 0)]
    centre = jnp.asarray([s[0] for s in scene], jnp.float32)
    radius = jnp.asarray([s[1] for s in scene], jnp.float32)
    emission = jnp.asarray([s[2] for s in scene], jnp.float32)
    colour = jnp.asarray([s[3] for s in scene], jnp.float32)
    mirror = jnp.asarray([s[4] for s in scene], bool)

    def render(key):
        n = width * height * samples
        k0, k1 = jax.random.split(key)
        jitter = jax.random.uniform(k0, (n, 2))
        pixel = jnp.arange(n) // samples
        px = (pixel % width + jitter[:, 0]) / width - 0.5
        py = 0.5 - (pixel // width + jitter[:, 1]) / height
        eye = jnp.asarray([50.0, 52.0, 295.6])
        forward = jnp.asarray([0.0, -0.042612, -1.0])
        forward = forward / jnp.linalg.norm(forward)
        right = jnp.asarray([width * 0.5135 / height, 0.0, 0.0])
        up = jnp.cross(right, forward)
        up = up / jnp.linalg.norm(up) * 0.5135
        direction = forward + px[:, None] * right + py[:, None] * up
        direction = direction / jnp.linalg.norm(direction, axis=-1, keepdims=True)
        origin = eye + 140.0 * direction

        def bounce(i, carry):
            origin, direction, through, light, alive = carry
            oc = origin[:, None, :] - centre[None]
            b = jnp.sum(oc * direction[:, None, :], -1)
            c = jnp.sum(oc * oc, -1) - radius ** 2
            disc = b * b - c
            root = jnp.sqrt(jnp.maximum(disc, 0.0))
            near, far = -b - root, -b + root
            t = jnp.where(near > 1e-2, near, jnp.where(far > 1e-2, far, jnp.inf))
            t = jnp.where(disc > 0, t, jnp.inf)
            hit = jnp.argmin(t, -1)
            dist = jnp.min(t, -1)
            alive = alive & jnp.isfinite(dist)
            point = origin + jnp.where(jnp.isfinite(dist), dist, 0.0)[:, None] * direction
            normal = (point - centre[hit]) / radius[hit][:, None]
            normal = jnp.where(jnp.sum(normal * direction, -1, keepdims=True) > 0, -normal, normal)
            light = light + jnp.where(alive[:, None], through * emission[hit][:, None], 0.0)
            through = through * colour[hit]
            kk = jax.random.fold_in(k1, i)
            u = jax.random.uniform(kk, (n, 3))
            # cosine-weighted directions about the normal, or a mirror reflection
            phi, r2 = 2 * jnp.pi * u[:, 0], u[:, 1]
            helper = jnp.where(jnp.abs(normal[:, :1]) > 0.1, jnp.asarray([0.0, 1.0, 0.0]),
                               jnp.asarray([1.0, 0.0, 0.0]))
            tx = jnp.cross(helper, normal)
            tx = tx / jnp.linalg.norm(tx, axis=-1, keepdims=True)
            ty = jnp.cross(normal, tx)
            diffuse = (tx * (jnp.cos(phi) * jnp.sqrt(r2))[:, None]
                       + ty * (jnp.sin(phi) * jnp.sqrt(r2))[:, None]
                       + normal * jnp.sqrt(1 - r2)[:, None])
            reflect = direction - 2 * jnp.sum(direction * normal, -1, keepdims=True) * normal
            direction = jnp.where(mirror[hit][:, None], reflect, diffuse)
            # Russian roulette after the second bounce
            keep = jnp.max(through, -1)
            survive = (i < 2) | (u[:, 2] < keep)
            through = jnp.where((i < 2)[None, None], through,
                                through / jnp.maximum(keep, 1e-3)[:, None])
            alive = alive & survive
            return point, direction, through, light, alive

        init = (origin, direction, jnp.ones((n, 3)), jnp.zeros((n, 3)), jnp.ones(n, bool))
        *_, light, alive = lax.fori_loop(0, bounces, bounce, init)
        image = jnp.mean(light.reshape(height, width, samples, 3), 2)
        shown = jnp.clip(image, 0, 1) ** (1 / 2.2)
        return shown, jnp.mean(alive), jnp.mean(image, (0, 1))

    return jax.jit(render).lower(jax.random.PRNGKey(33))


def kcore_hindex(nodes: int = 8192, cap: int = 48, rounds: int = 24, exponent: float = 2.5) -> Any:
    """The coreness of every node of an 8192-node power-law graph (Chung-Lu, neighbour
    lists padded to 48 on the host), no gradient, by the h-index iteration of Lu, Zhou,
    Zhang and Stanley: 24 rounds in a `fori_loop`, each gathering the neighbours' current
    values, sorting them in descending order and taking the largest h with h of them at
    least h; the changes per round, the core-size histogram (`segment_sum`), the
    innermost core and the mean neighbour coreness come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(neighbours):
        valid = neighbours < nodes
        degree = jnp.sum(valid, 1).astype(jnp.int32)
        ranks = jnp.arange(1, cap + 1, dtype=jnp.int32)

        def refine(i, carry):
            value, changes = carry
            padded = jnp.concatenate([value, jnp.zeros(1, jnp.int32)])
            seen = -jnp.sort(-padded[neighbours], -1)                # descending
            h = jnp.max(jnp.minimum(ranks, seen), -1)
            return h, changes.at[i].set(jnp.sum(h != value))

        core, changes = lax.fori_loop(0, rounds, refine,
                                      (degree, jnp.zeros(rounds, jnp.int32)))
        sizes = jax.ops.segment_sum(jnp.ones(nodes), core, num_segments=cap + 1)
        top = jnp.max(core)
        padded = jnp.concatenate([core, jnp.zeros(1, jnp.int32)]).astype(jnp.float32)
        around = jnp.sum(jnp.where(valid, padded[neighbours], 0.0), 1) / jnp.maximum(degree, 1)
        return core, changes, sizes, core == top, around

    # a Chung-Lu graph with power-law expected degrees, neighbour lists padded on the host
    rng = np.random.default_rng(34)
    weight = 2.0 * (1 - rng.uniform(size=nodes)) ** (-1 / (exponent - 1))
    weight = np.minimum(weight, cap)
    total = weight.sum()
    src = rng.choice(nodes, int(total / 2), p=weight / total)
    dst = rng.choice(nodes, int(total / 2), p=weight / total)
    lists: list[set[int]] = [set() for _ in range(nodes)]
    for a, b in zip(src, dst):
        if a != b and len(lists[a]) < cap and len(lists[b]) < cap:
            lists[a].add(int(b))
            lists[b].add(int(a))
    neighbours = np.full((nodes, cap), nodes, np.int32)
    for i, near in enumerate(lists):
        neighbours[i, :len(near)] = sorted(near)
    return jax.jit(run).lower(jnp.asarray(neighbours))


def gerchberg_saxton_hologram(count: int = 4, side: int = 128, iterations: int = 40,
                              wavelength: float = 0.633e-6, pitch: float = 8e-6,
                              distance: float = 0.05) -> Any:
    """Phase-only computer-generated holograms of four glyph targets by the
    Gerchberg-Saxton algorithm in complex64, no gradient: a Gaussian beam under the
    hologram's phase is carried 5 cm by angular-spectrum propagation (a 2-D FFT, a
    product with the transfer function, an inverse FFT), the target amplitude is imposed
    with the arriving phase, and the field is carried back with the conjugate transfer
    function to give the next phase; 40 iterations in a `fori_loop` record the
    normalized error, and the diffraction efficiency comes back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c64 = jnp.complex64
    f = np.fft.fftfreq(side, pitch)
    fx, fy = np.meshgrid(f, f)
    arg = 1 / wavelength ** 2 - fx ** 2 - fy ** 2
    transfer = np.where(arg > 0, np.exp(2j * np.pi * distance * np.sqrt(np.maximum(arg, 0))), 0)
    h = jnp.asarray(transfer, c64)
    yy, xx = (np.mgrid[0:side, 0:side] - side / 2) / (side / 4)
    beam = jnp.asarray(np.exp(-(xx ** 2 + yy ** 2) / 2), jnp.float32)

    def forward(u):
        return jnp.fft.ifft2(jnp.fft.fft2(u) * h)

    def backward(u):
        return jnp.fft.ifft2(jnp.fft.fft2(u) * jnp.conj(h))

    def run(target, phase0):
        target = target * jnp.sqrt(jnp.sum(beam ** 2) / jnp.sum(target ** 2, (1, 2), keepdims=True))

        def iterate(i, carry):
            phase, errors = carry
            image = forward((beam * jnp.exp(1j * phase)).astype(c64))
            amp = jnp.abs(image)
            scale = jnp.sum(amp * target, (1, 2), keepdims=True) / jnp.sum(amp * amp, (1, 2),
                                                                           keepdims=True)
            error = jnp.sqrt(jnp.mean((scale * amp - target) ** 2, (1, 2))
                             / jnp.mean(target ** 2, (1, 2)))
            # keep the propagated phase, impose the target amplitude, and go back
            wanted = (target * jnp.exp(1j * jnp.angle(image))).astype(c64)
            return jnp.angle(backward(wanted)), errors.at[i].set(error)

        phase, errors = lax.fori_loop(0, iterations, iterate,
                                      (phase0, jnp.zeros((iterations, count))))
        image = forward((beam * jnp.exp(1j * phase)).astype(c64))
        efficiency = jnp.sum(jnp.where(target > 0.1, jnp.abs(image) ** 2, 0), (1, 2)) \
            / jnp.sum(jnp.abs(image) ** 2, (1, 2))
        return phase, errors, efficiency

    rng = np.random.default_rng(35)
    glyphs, _ = _glyphs(rng, count, side // 2)
    target = np.zeros((count, side, side), np.float32)
    target[:, side // 4:3 * side // 4, side // 4:3 * side // 4] = glyphs
    phase0 = rng.uniform(-np.pi, np.pi, (count, side, side)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(target), jnp.asarray(phase0))


def crr_american(options: int = 256, steps: int = 300) -> Any:
    """American and European calls and puts, 256 of them with dividend yields, on
    Cox-Ross-Rubinstein binomial lattices of 300 steps, no gradient: backward induction
    in a `fori_loop` over the levels on fixed-size arrays (continuation values from
    shifted slices, the early-exercise maximum for the American ones, nodes past the
    level masked), the values two and one levels from the root kept for delta, gamma
    and theta, and the early-exercise premium."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(spot, strike, expiry, vol, rate, carry, call):
        dt = expiry / steps
        up = jnp.exp(vol * jnp.sqrt(dt))
        prob = (jnp.exp((rate - carry) * dt) - 1 / up) / (up - 1 / up)
        disc = jnp.exp(-rate * dt)
        j = jnp.arange(steps + 1, dtype=jnp.float32)
        sign = jnp.where(call, 1.0, -1.0)[:, None]

        def payoff(level):
            price = spot[:, None] * up[:, None] ** (2 * j - level)
            return jnp.maximum(sign * (price - strike[:, None]), 0.0), price

        last, _ = payoff(float(steps))
        values = jnp.stack([last, last])                    # American, European

        def back(i, carry):
            values, keep2, keep1 = carry
            level = steps - 1 - i
            cont = disc[None, :, None] * (prob[None, :, None] * values[:, :, 1:]
                                          + (1 - prob[None, :, None]) * values[:, :, :-1])
            cont = jnp.concatenate([cont, jnp.zeros_like(cont[:, :, :1])], -1)
            exercise, _ = payoff(level.astype(jnp.float32))
            live = j <= level
            american = jnp.where(live, jnp.maximum(cont[0], exercise), 0.0)
            european = jnp.where(live, cont[1], 0.0)
            values = jnp.stack([american, european])
            keep2 = jnp.where(level == 2, values[:, :, :3], keep2)
            keep1 = jnp.where(level == 1, values[:, :, :2], keep1)
            return values, keep2, keep1

        zeros = jnp.zeros((2, options, 3))
        values, keep2, keep1 = lax.fori_loop(0, steps, back, (values, zeros, zeros[..., :2]))
        price = values[:, :, 0]
        s1 = spot[:, None] * up[:, None] ** jnp.asarray([-1.0, 1.0])
        s2 = spot[:, None] * up[:, None] ** jnp.asarray([-2.0, 0.0, 2.0])
        delta = (keep1[..., 1] - keep1[..., 0]) / (s1[:, 1] - s1[:, 0])
        upper = (keep2[..., 2] - keep2[..., 1]) / (s2[:, 2] - s2[:, 1])
        lower = (keep2[..., 1] - keep2[..., 0]) / (s2[:, 1] - s2[:, 0])
        gamma = (upper - lower) / (0.5 * (s2[:, 2] - s2[:, 0]))
        theta = (keep2[..., 1] - price) / (2 * dt)
        return price, price[0] - price[1], delta, gamma, theta

    rng = np.random.default_rng(36)
    spot = rng.uniform(80, 120, options)
    strike = spot * rng.uniform(0.8, 1.2, options)
    f = lambda x: jnp.asarray(x, jnp.float32)
    return jax.jit(run).lower(f(spot), f(strike), f(rng.uniform(0.1, 2.0, options)),
                              f(rng.uniform(0.1, 0.6, options)), f(rng.uniform(0.0, 0.08, options)),
                              f(rng.uniform(0.0, 0.06, options)),
                              jnp.asarray(rng.uniform(size=options) < 0.5))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "crossvit_trimmed/6x2x48px-p4-d64-p12-d128-bf16": crossvit_trimmed,
    "diffwave_inna/2x3072-c32-l10-40-mels": diffwave_inna,
    "r2d2_rescaled/24x48-steps-lstm128-bf16": r2d2_rescaled,
    "appnp_steihaug/2048-nodes-10-hops-8-cg": appnp_steihaug,
    "node_fednova/4x64x24-32-trees-d5": node_fednova,
    "timesnet_natural/4x2x96-24-ahead-4-periods": timesnet_natural,
    "prefix_dcasgd/8x62-prefix16-d96-l3-bf16": prefix_dcasgd,
    "deep_ritz_pnorm/2048-512-points-w32": deep_ritz_pnorm,
    "vat_nesterov_rmsprop/12-20x24px": vat_nesterov_rmsprop,
    "rbm_pcd/64x784-256-10-gibbs": rbm_pcd,
    "navier_stokes_spectral/4x64x64-48-steps": navier_stokes_spectral,
    "path_tracer/96x72x8-5-bounces": path_tracer,
    "kcore_hindex/8192-nodes-24-rounds": kcore_hindex,
    "gerchberg_saxton_hologram/4x128x128-40-iterations-c64": gerchberg_saxton_hologram,
    "crr_american/256-options-300-steps": crr_american,
}
