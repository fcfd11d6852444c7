"""Learned vs roofline on programs measured now, none of them in the training data.

(Over 400 lines: the fresh programs themselves are written here and nowhere else, next
to the timing loop and the table that judge them.)

    .venv/bin/python benchmarks/fresh_programs.py [--hardware host-cpu] [--quick] [--rounds 2]
        [--timings FILE] [--as-machine DATASET] [--json FILE]
        [--set fresh|never-seen|never-seen-2|never-seen-3|never-seen-4|never-seen-5|
               never-seen-6|never-seen-7|never-seen-8|never-seen-9|never-seen-10|
               never-seen-11|never-seen-12|never-seen-13|never-seen-14|never-seen-15|
               never-seen-16|never-seen-17|never-seen-18|never-seen-19|
               never-seen-20|never-seen-21|never-seen-22|never-seen-23|never-seen-24|
               never-seen-25|never-seen-26|never-seen-27|never-seen-28|
               never-seen-29|never-seen-30|never-seen-31|never-seen-32|never-seen-33|
               never-seen-34]

Builds JAX training steps that are not in the program zoo the bundled models were
trained on, times each on this machine exactly as `stablecost collect programs` does, and prints
the measured
step time next to the learned and roofline predictions for `--hardware` (host-cpu:
this machine's calibration, or the bundled model's when it has none). The summary
rows are the Learned-models issue's "fresh measurements of programs not used in
training" check: MAPE and Kendall tau, learned against roofline, over all of them and
separately over

- programs of a family the zoo has (other code, sizes and shapes: the repository's
  three examples, a post-norm residual MLP of 2 to 24 layers, a depthwise-separable
  CNN, attention at new shapes, an autoencoder, a transposed-convolution decoder, an
  LSTM unrolled by a Python loop, a top-1 mixture of experts, a graph convolution over
  edge lists, a 3-D video convolution), and
- programs of kinds the zoo lacks (a frequency-domain filter through FFTs, a top-k
  item scorer, a prefix-sum sequence model, an MLP with dropout, Fourier-neural-operator
  layers). Their kernels are in the kernel data (the FFT, top-k, scan, bitwise/random
  and complex kernel families), their programs are not.

The held-out kinds are the ones to watch: each time a kind was added to the zoo, its
programs here moved to the first group and new held-out kinds replaced them.

Run it on an idle machine: the two cores are shared, and timings of a busy machine
would make every prediction look wrong. The timings of this VM also drift by tens of
percent between runs, so two models are compared on the *same* timings: `--timings
FILE` keeps every program's measured time in FILE (JSON) and reuses the ones already
there, e.g. once with the old checkout and once with the new.

`--as-machine DATASET` prices stored timings (every round already in `--timings`; it
times nothing) as `predict` would on the machine that measured DATASET (a `data/cpu-*`
dataset): that machine's calibration stands in for host-cpu's, in a private config
directory, and the bundle sees that machine's fingerprint, so the bundle's default for
other machines applies where it would there and no adaptation of the machine running it
does. `--json FILE` also writes every program's times (`benchmarks/generalisation.py`
runs it this way over the stored timings).

Each program is timed `--rounds` times (default 2), one round over all programs after
the other, and the measured time is the geometric mean of its rounds. The rounds also
give the measurement's own floor, printed under the tables: the MAPE of round 1 taken
as a prediction of round 2. No model can be judged finer than that.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

from _common import commit, write_json  # noqa: E402
from export_programs import _sgd  # noqa: E402  (the examples' plain-SGD training step)


def residual_mlp(layers: int, batch: int = 64, width: int = 256) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(ps, x):
        for p in ps:
            h = jax.nn.gelu(x @ p["w1"]) @ p["w2"]
            x = x + h
            m = x.mean(-1, keepdims=True)
            v = ((x - m) ** 2).mean(-1, keepdims=True)
            x = (x - m) * jax.lax.rsqrt(v + 1e-5) * p["g"]
        return (x ** 2).mean()

    ps = [{"w1": jnp.ones((width, 4 * width)), "w2": jnp.ones((4 * width, width)),
           "g": jnp.ones((width,))} for _ in range(layers)]
    return jax.jit(_sgd(loss_fn)).lower(ps, jnp.ones((batch, width)))


def separable_cnn(batch: int = 16, image: int = 32, width: int = 64) -> Any:
    import jax
    import jax.numpy as jnp

    dn = ("NHWC", "HWIO", "NHWC")

    def loss_fn(p, x):
        h = jax.lax.conv_general_dilated(x, p["stem"], (1, 1), "SAME", dimension_numbers=dn)
        for block in p["blocks"]:
            d = jax.lax.conv_general_dilated(h, block["dw"], (1, 1), "SAME",
                                             dimension_numbers=dn,
                                             feature_group_count=width)
            h = h + jax.nn.relu(jax.lax.conv_general_dilated(
                d, block["pw"], (1, 1), "SAME", dimension_numbers=dn))
        return (h.mean((1, 2)) ** 2).mean()

    params = {"stem": jnp.ones((3, 3, 3, width)),
              "blocks": [{"dw": jnp.ones((3, 3, 1, width)), "pw": jnp.ones((1, 1, width, width))}
                         for _ in range(3)]}
    return jax.jit(_sgd(loss_fn)).lower(params, jnp.ones((batch, image, image, 3)))


def attention(seq: int, d_model: int = 256, heads: int = 4, batch: int = 4) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x):
        q, k, v = (jnp.einsum("bsd,dhk->bshk", x, p[n]) for n in ("q", "k", "v"))
        s = jnp.einsum("bqhk,bshk->bhqs", q, k) / np.sqrt(d_model // heads)
        out = jnp.einsum("bhqs,bshk->bqhk", jax.nn.softmax(s, axis=-1), v)
        return (jnp.einsum("bqhk,hkd->bqd", out, p["o"]) ** 2).mean()

    hd = d_model // heads
    params = {n: jnp.ones((d_model, heads, hd)) for n in ("q", "k", "v")}
    params["o"] = jnp.ones((heads, hd, d_model))
    return jax.jit(_sgd(loss_fn)).lower(params, jnp.ones((batch, seq, d_model)))


def autoencoder(batch: int = 64, dims=(784, 256, 32)) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x):
        h = x
        for w in p["enc"]:
            h = jnp.tanh(h @ w)
        for w in p["dec"]:
            h = jax.nn.sigmoid(h @ w)
        return ((h - x) ** 2).mean()

    enc = [jnp.ones((a, b)) * 0.01 for a, b in zip(dims[:-1], dims[1:])]
    dec = [jnp.ones((b, a)) * 0.01 for a, b in reversed(list(zip(dims[:-1], dims[1:])))]
    return jax.jit(_sgd(loss_fn)).lower({"enc": enc, "dec": dec}, jnp.ones((batch, dims[0])))


def upsampling_decoder(batch: int = 8, base: int = 8, channels: int = 64) -> Any:
    import jax
    import jax.numpy as jnp

    dn = ("NHWC", "HWIO", "NHWC")

    def loss_fn(p, z):
        h = z
        for w in p:   # transposed convolutions: each doubles the image side
            h = jax.nn.relu(jax.lax.conv_transpose(h, w, (2, 2), "SAME", dimension_numbers=dn))
        return (h ** 2).mean()

    ws = [jnp.ones((4, 4, channels // 2 ** i, channels // 2 ** (i + 1))) for i in range(3)]
    return jax.jit(_sgd(loss_fn)).lower(ws, jnp.ones((batch, base, base, channels)))


def unrolled_lstm(steps: int = 16, batch: int = 32, hidden: int = 256) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, xs):
        h = c = jnp.zeros((batch, hidden))
        for t in range(steps):   # a Python loop: no while op, every step inlined
            gates = xs[t] @ p["wx"] + h @ p["wh"]
            i, f, g, o = jnp.split(gates, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h ** 2).mean()

    params = {"wx": jnp.ones((hidden, 4 * hidden)) * 0.01,
              "wh": jnp.ones((hidden, 4 * hidden)) * 0.01}
    return jax.jit(_sgd(loss_fn)).lower(params, jnp.ones((steps, batch, hidden)))


def mixture_of_experts(tokens: int = 512, d_model: int = 256, experts: int = 8) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x):
        choice = jnp.argmax(x @ p["router"], axis=-1)            # top-1 routing
        outs = jnp.zeros_like(x)
        for e in range(experts):   # every expert on its tokens, gathered and scattered
            idx = jnp.nonzero(choice == e, size=tokens // experts, fill_value=0)[0]
            h = jax.nn.gelu(x[idx] @ p["up"][e]) @ p["down"][e]
            outs = outs.at[idx].add(h)
        return (outs ** 2).mean()

    params = {"router": jnp.ones((d_model, experts)) * 0.01,
              "up": jnp.ones((experts, d_model, 2 * d_model)) * 0.01,
              "down": jnp.ones((experts, 2 * d_model, d_model)) * 0.01}
    return jax.jit(_sgd(loss_fn)).lower(params, jnp.ones((tokens, d_model)))


def graph_conv(nodes: int = 2048, edges: int = 16384, width: int = 128) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x, src, dst):
        h = x
        for w in p:   # message passing: gather along edges, scatter-add to targets
            h = jax.nn.relu(jax.ops.segment_sum(h[src], dst, num_segments=nodes) @ w)
        return (h ** 2).mean()

    ws = [jnp.ones((width, width)) * 0.01 for _ in range(3)]
    ids = jnp.zeros((edges,), jnp.int32)
    return jax.jit(_sgd(loss_fn)).lower(ws, jnp.ones((nodes, width)), ids, ids)


def video_conv3d(batch: int = 2, frames: int = 8, side: int = 32, channels: int = 32) -> Any:
    import jax
    import jax.numpy as jnp

    dn = ("NDHWC", "DHWIO", "NDHWC")

    def loss_fn(p, x):
        h = x
        for w in p:
            h = jax.nn.relu(jax.lax.conv_general_dilated(h, w, (1, 1, 1), "SAME",
                                                         dimension_numbers=dn))
        return (h ** 2).mean()

    ws = [jnp.ones((3, 3, 3, 3, channels)) * 0.01, jnp.ones((3, 3, 3, channels, channels)) * 0.01]
    return jax.jit(_sgd(loss_fn)).lower(ws, jnp.ones((batch, frames, side, side, 3)))


def fft_filter(batch: int = 64, length: int = 4096) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x):   # a learned filter applied in the frequency domain
        y = jnp.fft.irfft(jnp.fft.rfft(x, axis=-1) * jnp.fft.rfft(p, axis=-1), n=length,
                          axis=-1)
        return (y ** 2).mean()

    return jax.jit(_sgd(loss_fn)).lower(jnp.ones((1, length)), jnp.ones((batch, length)))


def top_k_scorer(batch: int = 256, d_model: int = 256, items: int = 4096, k: int = 32) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x):   # score every item, keep the k best
        values, _ = jax.lax.top_k(x @ p, k)
        return (values ** 2).mean()

    return jax.jit(_sgd(loss_fn)).lower(jnp.ones((d_model, items)) * 0.01,
                                        jnp.ones((batch, d_model)))


def prefix_sum_model(batch: int = 64, length: int = 4096, width: int = 8) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x):   # cumulative sums along the sequence (a reduce_window scan)
        h = jnp.cumsum(x * p["scale"], axis=1)
        return (jnp.tanh(h @ p["mix"]) ** 2).mean()

    params = {"scale": jnp.ones((1, length, width)), "mix": jnp.ones((width, width))}
    return jax.jit(_sgd(loss_fn)).lower(params, jnp.ones((batch, length, width)))


def dropout_mlp(batch: int = 256, width: int = 512, layers: int = 3, rate: float = 0.1) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(ps, x, key_data):   # dropout after every hidden layer: threefry bits
        key = jax.random.wrap_key_data(key_data)
        for i, w in enumerate(ps):
            x = jax.nn.relu(x @ w)
            keep = jax.random.bernoulli(jax.random.fold_in(key, i), 1.0 - rate, x.shape)
            x = jnp.where(keep, x / (1.0 - rate), 0.0)
        return (x ** 2).mean()

    ps = [jnp.ones((width, width)) * 0.01 for _ in range(layers)]
    return jax.jit(_sgd(loss_fn)).lower(ps, jnp.ones((batch, width)),
                                        jnp.zeros((2,), jnp.uint32))


def spectral_layers(batch: int = 16, length: int = 1024, width: int = 32, modes: int = 32,
                    layers: int = 2) -> Any:
    import jax
    import jax.numpy as jnp

    def loss_fn(ps, x):   # Fourier-neural-operator layers: mix the lowest modes per channel
        for p in ps:
            spectrum = jnp.fft.rfft(x, axis=1)[:, :modes, :]
            weights = jax.lax.complex(p["wr"], p["wi"])
            mixed = jnp.einsum("bmi,mio->bmo", spectrum, weights)
            y = jnp.fft.irfft(mixed, n=length, axis=1)
            x = jax.nn.gelu(y + x @ p["w"])
        return (x ** 2).mean()

    ps = [{"wr": jnp.ones((modes, width, width)) * 0.01,
           "wi": jnp.ones((modes, width, width)) * 0.01,
           "w": jnp.ones((width, width)) * 0.01} for _ in range(layers)]
    return jax.jit(_sgd(loss_fn)).lower(ps, jnp.ones((batch, length, width)))


# program -> (builder, the zoo family it resembles, or None when no zoo family does)
NEVER_SEEN = ROOT / "benchmarks" / "never_seen"
NEVER_SEEN_SETS = {"never-seen": "never_seen", "never-seen-2": "never_seen_2",
                   "never-seen-3": "never_seen_3", "never-seen-4": "never_seen_4",
                   "never-seen-5": "never_seen_5", "never-seen-6": "never_seen_6",
                   "never-seen-7": "never_seen_7", "never-seen-8": "never_seen_8",
                   "never-seen-9": "never_seen_9", "never-seen-10": "never_seen_10",
                   "never-seen-11": "never_seen_11", "never-seen-12": "never_seen_12",
                   "never-seen-13": "never_seen_13", "never-seen-14": "never_seen_14",
                   "never-seen-15": "never_seen_15", "never-seen-16": "never_seen_16",
                   "never-seen-17": "never_seen_17", "never-seen-18": "never_seen_18",
                   "never-seen-19": "never_seen_19", "never-seen-20": "never_seen_20",
                   "never-seen-21": "never_seen_21", "never-seen-22": "never_seen_22",
                   "never-seen-23": "never_seen_23", "never-seen-24": "never_seen_24",
                   "never-seen-25": "never_seen_25", "never-seen-26": "never_seen_26",
                   "never-seen-27": "never_seen_27", "never-seen-28": "never_seen_28",
                   "never-seen-29": "never_seen_29", "never-seen-30": "never_seen_30",
                   "never-seen-31": "never_seen_31", "never-seen-32": "never_seen_32",
                   "never-seen-33": "never_seen_33", "never-seen-34": "never_seen_34"}


def never_seen_programs(which: str = "never-seen"
                        ) -> dict[str, tuple[Callable[[], Any], str | None]]:
    """A committed never-seen set (its `--set` name), refused when its file no longer has
    the committed hash (an edited set has been seen)."""
    import hashlib
    import importlib

    sys.path.insert(0, str(ROOT / "benchmarks"))
    folder = ROOT / "benchmarks" / NEVER_SEEN_SETS[which]
    source = folder / "programs.py"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    committed = (folder / "SHA256").read_text().strip()
    if digest != committed:
        raise SystemExit(f"{source} has SHA-256 {digest}, not the committed {committed}: "
                         "the never-seen set was edited, so it is no longer unseen")
    programs = importlib.import_module(f"{NEVER_SEEN_SETS[which]}.programs").PROGRAMS

    return {name: (build, None) for name, build in programs.items()}


def programs(quick: bool) -> dict[str, tuple[Callable[[], Any], str | None]]:
    import export_programs

    zoo_family = {"mlp_train_step": "mlp", "resnet_cnn_train_step": "cnn",
                  "transformer_block_train_step": "transformer_train"}
    out: dict[str, tuple[Callable[[], Any], str | None]] = {
        f"example/{name}": (build, zoo_family[name])
        for name, build in export_programs.EXAMPLES.items()}
    for layers in ((2, 8) if quick else (2, 4, 8, 16, 24)):
        out[f"residual_mlp/{layers}-layers"] = (lambda n=layers: residual_mlp(n), "resmlp")
    out["separable_cnn/32px"] = (separable_cnn, "sepconv")
    for seq in ((128,) if quick else (128, 256, 512)):
        out[f"attention/seq{seq}"] = (lambda s=seq: attention(s), "attention")
    out["autoencoder/784-256-32"] = (autoencoder, "autoencoder")
    out["upsampling_decoder/8to64px"] = (upsampling_decoder, "decoder_cnn")
    for steps in ((8,) if quick else (8, 32)):
        out[f"unrolled_lstm/{steps}-steps"] = (lambda n=steps: unrolled_lstm(n), "unrolled_rnn")
    out["mixture_of_experts/8x256"] = (mixture_of_experts, "moe")
    out["graph_conv/2048-nodes"] = (graph_conv, "graph_net")
    out["video_conv3d/8x32x32"] = (video_conv3d, "conv3d")
    out["fft_filter/4096"] = (fft_filter, None)
    out["top_k_scorer/4096-items"] = (top_k_scorer, None)
    out["prefix_sum/4096"] = (prefix_sum_model, None)
    out["dropout_mlp/3x512"] = (dropout_mlp, None)
    out["spectral_layers/1024x32"] = (spectral_layers, None)
    if quick:
        out.pop("example/transformer_block_train_step")   # the slowest to time
    return out


def compiled_call(lowered: Any) -> Callable[[], Any]:
    """The compiled step on random arguments, as a blocking zero-argument call."""
    import jax

    from stablecost.hardware.timing import blocking

    rng = np.random.default_rng(0)
    args, kwargs = lowered.args_info

    def concrete(info):
        if np.issubdtype(info.dtype, np.integer):
            return jax.numpy.zeros(info.shape, info.dtype)
        return jax.numpy.asarray(rng.standard_normal(info.shape), info.dtype)

    args = jax.tree.map(concrete, args)
    return blocking(lowered.compile(), *args)


def measure(lowered: Any) -> float:
    """One program's step time, timed as `stablecost collect programs` does."""
    from stablecost.datasets.collect import PROGRAM_TIMING
    from stablecost.hardware.timing import measure as time_it

    return time_it(compiled_call(lowered), **PROGRAM_TIMING).median_s


def _load_timings(path: Path | None) -> dict[str, list[float]]:
    """{program: [step seconds of round 1, round 2, ...]}; a bare number (the format
    before rounds) is one round."""
    if path is None or not path.is_file():
        return {}
    raw = json.loads(path.read_text())
    return {k: [float(x) for x in (v if isinstance(v, list) else [v])] for k, v in raw.items()}


def _save_timings(path: Path | None, timings: dict[str, list[float]]) -> None:
    if path is None:
        return
    tmp = path.with_suffix(".tmp")   # written after every program: a crash keeps them
    tmp.write_text(json.dumps(timings, indent=1, sort_keys=True))
    os.replace(tmp, path)


def measure_rounds(built: dict[str, Any], timings: dict[str, list[float]], rounds: int,
                   path: Path | None) -> None:
    """Bring every program to `rounds` timings, one round over all programs after the
    other: a slow spell of the machine then hits one timing of several programs rather
    than every timing of one program."""
    from stablecost.datasets.collect import PROGRAM_TIMING
    from stablecost.hardware.timing import measure as time_it

    calls: dict[str, Callable[[], Any]] = {}
    for r in range(rounds):
        for name, lowered in built.items():
            have = timings.setdefault(name, [])
            if len(have) > r:
                continue
            if name not in calls:
                calls[name] = compiled_call(lowered)
            have.append(time_it(calls[name], **PROGRAM_TIMING).median_s)
            print(f"round {r + 1}/{rounds}: {name}: {have[-1] * 1e3:.2f} ms",
                  file=sys.stderr, flush=True)
            _save_timings(path, timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hardware", default="host-cpu")
    parser.add_argument("--quick", action="store_true", help="fewer, smaller programs")
    parser.add_argument("--set", choices=("fresh", *NEVER_SEEN_SETS), default="fresh",
                        help="fresh: the programs of this file; never-seen, never-seen-2, "
                             "never-seen-3, never-seen-4, never-seen-5, never-seen-6, "
                             "never-seen-7, never-seen-8, never-seen-9, never-seen-10, "
                             "never-seen-11, never-seen-12, never-seen-13, never-seen-14, "
                             "never-seen-15, never-seen-16, never-seen-17, never-seen-18, "
                             "never-seen-19, never-seen-20, never-seen-21, never-seen-22, "
                             "never-seen-23, never-seen-24, never-seen-25, never-seen-26, "
                             "never-seen-27, never-seen-28, never-seen-29, never-seen-30, "
                             "never-seen-31, never-seen-32, never-seen-33, never-seen-34: "
                             "the committed sets in benchmarks/never_seen/, "
                             "benchmarks/never_seen_2/ and so on to benchmarks/never_seen_34/ "
                             "(each judges a model once)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="timings per program, taken in rounds over all programs "
                             "(default 2; the measured time is their geometric mean)")
    parser.add_argument("--timings", type=Path,
                        help="JSON file of measured step times: reuse the rounds in it, "
                             "add the ones measured now")
    parser.add_argument("--as-machine", type=Path, default=None, metavar="DATASET",
                        help="price the stored --timings as predict would on the machine "
                             "that measured DATASET (a data/cpu-* dataset): its calibration, "
                             "its fingerprint, no adaptation of this machine's; times nothing")
    parser.add_argument("--json", type=Path, default=None,
                        help="also write every program's measured and predicted times to "
                             "this JSON file (`benchmarks/generalisation.py` reads it)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: must be at least 1")
    timings = _load_timings(args.timings)
    checkout = commit()   # the code that runs (HEAD may move before the end)
    if args.as_machine is not None:
        if args.hardware != "host-cpu":
            parser.error(f"--as-machine prices host-cpu only, not --hardware {args.hardware}")
        as_machine(args.as_machine)

    import stablecost
    from stablecost.train.metrics import summary

    built = {}
    analyses = {}
    families = {}
    chosen = (never_seen_programs(args.set) if args.set in NEVER_SEEN_SETS
              else programs(args.quick))
    if args.as_machine is not None:
        short = [name for name in chosen if len(timings.get(name, [])) < args.rounds]
        if short:
            raise SystemExit(f"--as-machine prices stored timings only: {args.timings} lacks "
                             f"{args.rounds} rounds of {len(short)} programs, e.g. {short[0]}")
    for name, (build, family) in chosen.items():
        built[name] = build()
        analyses[name] = stablecost.analyze(built[name].as_text(debug_info=True))
        families[name] = family
    measure_rounds(built, timings, args.rounds, args.timings)

    rows = []
    print("| program | zoo family | ops | kernels | measured | rounds | learned | error "
          "| roofline | error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    intervals: list[tuple[float, float, float]] = []
    fell_back = 0
    # kernels the learned fidelity priced by the roofline (models.coverage): seconds of
    # them, of all priced kernels, and the programs that had any
    kernel_fallback = [0.0, 0.0, 0]
    records: list[dict[str, Any]] = []
    for name, analysis in analyses.items():
        rounds = timings[name][:args.rounds]
        measured = float(np.exp(np.mean(np.log(rounds))))
        pred = stablecost.predict(analysis, args.hardware, fidelity="all")
        learned = pred.by_fidelity.get("learned")
        roofline = pred.by_fidelity["roofline"]
        if learned is None:
            raise SystemExit(f"no learned model for {args.hardware}")
        lt, rt = learned.step_time_s, roofline.step_time_s
        rows.append((families[name] is not None, measured, lt, rt, rounds))
        if pred.fidelity == "learned" and pred.step_time_low_s is not None:
            intervals.append((pred.step_time_low_s, pred.step_time_high_s, measured))
        whole = any("priced by the roofline, not the learned model" in n for n in pred.notes)
        fell_back += whole
        outside = kernel_s = 0.0
        if pred.fidelity == "learned":
            priced = [k for k in pred.kernels if k.bound not in ("communication", "unpriced")]
            outside = sum(k.total_time_s for k in priced if k.time_low_s is None)
            kernel_s = sum(k.total_time_s for k in priced)
            kernel_fallback[0] += outside
            kernel_fallback[1] += kernel_s
            kernel_fallback[2] += outside > 0
        records.append({"program": name, "family": families[name], "measured_s": measured,
                        "rounds": rounds, "learned_s": lt, "roofline_s": rt,
                        "low_s": pred.step_time_low_s, "high_s": pred.step_time_high_s,
                        "fell_back": whole, "roofline_kernel_s": outside,
                        "kernel_s": kernel_s, "model": pred.model,
                        "memory": dict(pred.memory)})
        spread = " / ".join(f"{t / measured - 1:+.0%}" for t in rounds)
        print(f"| {name} | {families[name] or 'none (held out)'} | "
              f"{len(analysis.program.ops):,} | {len(analysis.kernels):,} | "
              f"{measured * 1e3:.2f} ms | {spread} | {lt * 1e3:.2f} ms | "
              f"{lt / measured - 1:+.0%} | {rt * 1e3:.2f} ms | {rt / measured - 1:+.0%} |",
              flush=True)
    in_zoo = np.array([r[0] for r in rows])
    m, lt, rt = (np.array([r[i] for r in rows]) for i in (1, 2, 3))
    print("\n| programs | fidelity | n | MAPE | median APE | within ±10 % | within ±25 % "
          "| Kendall τ |")
    print("|---|---|---|---|---|---|---|---|")
    for subset, mask in (("all", np.ones(len(rows), bool)), ("zoo-like families", in_zoo),
                         ("held-out families", ~in_zoo)):
        if not mask.any():
            continue
        for label, pred_s in (("learned", lt), ("roofline", rt)):
            s = summary(m[mask], pred_s[mask])
            print(f"| {subset} | {label} | {s['n']:.0f} | {s['mape']:.1%} | "
                  f"{s['median_ape']:.1%} | {s['within_10pct']:.0%} | "
                  f"{s['within_25pct']:.0%} | {s['kendall_tau']:.2f} |")
    s_learned, s_roofline = summary(m, lt), summary(m, rt)
    if args.rounds > 1:
        # the measurement's own floor: one round taken as the prediction of another
        first, second = (np.array([r[4][i] for r in rows]) for i in (0, 1))
        floor = summary(second, first)
        print(f"\nmeasurement floor: round 1 as a prediction of round 2 has MAPE "
              f"{floor['mape']:.1%} (median APE {floor['median_ape']:.1%}, "
              f"{floor['within_10pct']:.0%} within ±10 %)")
    print(f"\nlearned fell back to the roofline on {fell_back} of {len(rows)} programs; "
          f"inside learned steps, kernels the kernel model does not cover were priced by "
          f"the roofline on {kernel_fallback[2]} of them, "
          f"{kernel_fallback[0] / max(kernel_fallback[1], 1e-30):.1%} of the learned kernel "
          "time")
    if intervals:
        inside = [low <= t <= high for low, high, t in intervals]
        width = float(np.median([high / low for low, high, _ in intervals]))
        print(f"\nlearned 80 % step interval: {sum(inside)} of {len(intervals)} measured "
              f"step times inside ({np.mean(inside):.0%}; target 75-85 %), median width "
              f"high / low {width:.2f}")
    print(f"\nall programs: roofline MAPE / learned MAPE "
          f"{s_roofline['mape'] / s_learned['mape']:.1f}x (target ≥ 2x); learned MAPE "
          f"{s_learned['mape']:.1%} (target ≤ 15 %, or 1.25x the measurement floor where "
          "that is above 12 %)")
    if args.json:
        write_json(args.json, {
            "commit": checkout, "set": args.set, "rounds": args.rounds,
            "hardware": args.hardware,
            "as_machine": None if args.as_machine is None else str(args.as_machine),
            "programs": records})


def as_machine(dataset_folder: Path) -> None:
    """From here on, price as `predict` would on the machine that measured the dataset:
    the dataset's calibration is host-cpu's spec (in a private config directory, so no
    adaptation of this machine applies), and the bundle sees that machine's fingerprint
    (so the bundle's default for other machines applies where it would there)."""
    import atexit
    import shutil
    import tempfile

    from stablecost.datasets.store import DatasetInfo
    from stablecost.hardware.fingerprint import fingerprint_id
    from stablecost.models import adaptation, learned
    from stablecost.train.data import pick_dataset

    try:
        dataset = pick_dataset(str(dataset_folder), "host-cpu")
    except Exception as exc:  # noqa: BLE001 - one line for a bad --as-machine
        raise SystemExit(f"--as-machine {dataset_folder}: {exc}") from None
    fingerprint = dict(DatasetInfo.read(dataset).fingerprint)
    config = Path(tempfile.mkdtemp(prefix="stablecost-as-machine-"))
    atexit.register(shutil.rmtree, config, ignore_errors=True)
    (config / "hardware").mkdir()
    shutil.copy(dataset / "hardware.toml", config / "hardware" / "host-cpu.toml")
    os.environ["STABLECOST_CONFIG_DIR"] = str(config)
    cpu = {key: value for key, value in fingerprint.items()
           if key.startswith("cpu_") or key in ("cache_bytes", "jaxlib")}
    learned.this_cpu = lambda: dict(cpu)               # type: ignore[assignment]
    adaptation.local_fingerprint_id = lambda: fingerprint_id(fingerprint)  # type: ignore
    print(f"pricing as the machine of {dataset} (fingerprint {fingerprint_id(fingerprint)}, "
          f"calibration {dataset / 'hardware.toml'})", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
