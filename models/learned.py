"""Learned fidelity at inference time: the bundled models of a chip, loaded once.

A bundle directory holds `kernel_xgb/` (the per-kernel XGBoost model, required) and
optionally `step_gnn/` (the per-step GNN). Bundles ship in the package under
`models/bundled/<hardware slug>/`; each one's metadata is checked on load, so a model
trained on other features is refused with a clear error instead of mispredicting.

    step time = blend(GNN, calibration)   where both price it: their geometric mean,
                                          the GNN's weight falling from 1 when they agree
                                          to 0 at 4x apart (models/step_calibration.py)
              = GNN(program)              when a step GNN exists (the program has at
                                          least as many compute kernels as its smallest
                                          training program, and kernels with opcodes
                                          its training programs lacked carry < 10 % of
                                          the kernel time) and there is no calibration
              = calibration               where the GNN does not price it and the
                                          program has loops or is as large as the
                                          calibration's smallest training program
              = floor + sum(count x kernel time)   otherwise (`note` says why)

On a machine whose fingerprint differs from the bundle data's, where the bundle ships an
in-step corrector (`in_step/`, models/in_step.py), the calibration is the corrector's,
over the kernels' corrected (in-step) times, and the GNN takes no part
(`step_composition`).

The GNN fits its training families closely and extrapolates badly to new ones (held
out by family it was worse than the roofline on 5 of 18); the calibration is five
numbers over the same kernel predictions and holds its accuracy on families it never
saw, so it is both the fallback and the GNN's counterweight.

The models read the chip through the spec they were trained with (the bundle's
`hardware.toml`), not through whatever `hardware calibrate` measured last: on a shared
2-core VM two calibrations a minute apart differ by up to 2x in vector FLOP/s, and a
learned kernel time is the roofline's times a learned ratio, so every re-calibration
would move the learned answer with it. Only a `host-cpu` model used on a CPU that its
data's fingerprint does not show to be this one (`hardware.fingerprint.differences`:
vendor, family, model, stepping, ISA extensions, cores, caches, jaxlib; a fingerprint
recorded before these fields existed cannot show it) reads this machine's calibration
instead, and the prediction's notes say so; without a calibration here it keeps the
bundle's spec and the note says that too.

GPUs share one bundle, `bundled/gpu/` (`python -m stablecost.train.gpu_kernels`): a
kernel model trained over every GPU with public measurements through the hardware
features, which prices any catalog GPU of a vendor in its data through that chip's own
spec (`models_for`). It has no step model: the step is the kernel sum, scheduled with
the communication as the roofline's is. A kernel of a class its data never held
(`models.coverage`: a TF32 GEMM, a bf16 loop fusion, a sort, ...) keeps its roofline
time, and the note says which classes and why. On a CPU whose calibration measured the
loop-convolution rate, a kernel holding a convolution XLA:CPU runs as a loop nest does
too, unless the kernel model's data held such kernels (`models.coverage.cpu_uncovered`).
"""

from __future__ import annotations

import functools
import math
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..featurize.analysis import Analysis
from ..featurize.fusion import COLLECTIVE, Kernel
from ..featurize.program import Program
from ..hardware import Hardware
from ..hardware.fingerprint import cpu_identity, differences
from .coverage import (
    cpu_uncovered,
    kernel_class,
    missing_loop_rate_note,
    out_of_range,
    uncovered,
)
from .features import unique_features
from .kernel_model import KernelCostModel
from .power_prior import PowerPrior, tensor_tflops_per_watt
from .roofline import (
    GROUPED_FLOOR_SHARE,
    KernelTime,
    grouped_convolution_floor_s,
    kernel_times,
)
from .step_calibration import blend, gnn_weight, kernel_groups, physical_floor_s

BUNDLE_ROOT = Path(__file__).resolve().parent / "bundled"
# The step GNN learned from whole training steps; a program smaller than the smallest
# of them (a kernel sample of a few kernels) is priced by the kernel sum, as its kernel
# samples were. The GNN records that size (`min_kernels`); this is the bound for a
# model that does not.
MIN_STEP_KERNELS = 16
# Kernels with an opcode the step GNN never saw may carry this share of the summed
# kernel time before the GNN's answer is set aside for the kernel sum. The sum is the
# worse model on familiar programs (82 % vs 17 % MAPE on the test split), so a stray
# unseen kernel (max pooling's select_and_scatter in a ResNet: 0.3 %) does not trip it;
# a dropout mask's integer ops (15 %) or a spectral layer's FFTs (36 %) do.
UNSEEN_SHARE = 0.10
# the step interval table `python -m stablecost.train.intervals --write` fits
STEP_INTERVAL_FILE = "step_interval.json"
# the bundle every GPU without a bundle of its own is priced by
GPU_BUNDLE = "gpu"


def hardware_slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass
class LearnedModels:
    hardware: str
    path: Path
    kernel: KernelCostModel
    kernel_meta: dict[str, Any]
    step: Any | None = None               # models.gnn.StepGNN when bundled
    step_meta: dict[str, Any] | None = None
    calibration: Any | None = None        # models.step_calibration.StepCalibration
    corrector: Any | None = None          # models.in_step.InStepCorrector
    spec: Hardware | None = None          # the chip as the training data described it
    # step source ("step_gnn" | "kernel_sum") -> (low, high) log(measured / predicted)
    step_interval: dict[str, tuple[float, float]] | None = None

    @property
    def floor_s(self) -> float:
        return float(self.kernel_meta.get("floor_s", 0.0))

    @property
    def coverage(self) -> dict[str, list[str]] | None:
        """The kernel classes of the training data (`models.coverage`), None when the
        bundle does not record them (it then prices every kernel)."""
        table = self.kernel_meta.get("coverage")
        return table if isinstance(table, dict) else None

    @functools.cached_property
    def power_prior(self) -> PowerPrior | None:
        """The GPU kernel model's efficiency prior (`models.power_prior`), None when the
        bundle was fitted against the plain roofline."""
        data = self.kernel_meta.get("power_prior")
        return None if data is None else PowerPrior.from_dict(
            data, f"{self.path / 'kernel_xgb' / 'meta.json'}: power_prior")

    @property
    def is_gpu_bundle(self) -> bool:
        return self.kernel_meta.get("hardware_kind") == "gpu"

    @property
    def adaptation_digest(self) -> str:
        """What an adaptation of this bundle is keyed by (`models.adaptation`): the kernel
        model's data digest, and the in-step corrector's where the bundle has one (it
        changes the steps an adaptation's factors were fitted to)."""
        digest = str(self.kernel_meta.get("data_digest", ""))
        return digest if self.corrector is None else f"{digest}+{self.corrector.digest}"

    def machine_differences(self) -> list[str]:
        """How this machine differs from the one the kernel data was measured on
        (CPU bundles; [] for a GPU bundle or the same machine)."""
        if self.spec is None or self.spec.kind != "cpu":
            return []
        return differences(self.kernel_meta.get("fingerprint") or {}, this_cpu())

    def pricing_hardware(self, hw: Hardware) -> tuple[Hardware, str]:
        """The spec the models price `hw` with, and a note when it is not their own
        (see the module docstring)."""
        if self.spec is None:
            return hw, ""
        if hw.kind != "cpu":
            return (hw if hw is self.spec else self.spec), ""
        differ = self.machine_differences()
        if not differ:
            return self.spec, ""
        what = "; ".join(d.split(" (this machine")[0] for d in differ[:4]) + \
            (f" and {len(differ) - 4} more" if len(differ) > 4 else "")
        if hw is self.spec:
            return hw, (f"the learned {hw.name} model's data may come from another CPU "
                        f"({what}) and {hw.name} is not calibrated here: it is priced with "
                        "the spec it was trained with; `stablecost hardware calibrate` "
                        "prices it through this machine's numbers")
        return hw, (f"the learned {hw.name} model's data may come from another CPU ({what}): "
                    "its kernel ratios are applied to this machine's calibration, accuracy "
                    "unknown")


@dataclass
class LearnedKernels:
    time_s: np.ndarray                    # per kernel of the analysis (collectives: 0)
    low_s: np.ndarray
    high_s: np.ndarray
    step_s: float
    # "step_blend" (GNN and calibration) | "step_gnn" | "step_calibration" | "kernel_sum"
    step_source: str
    floor_s: float = 0.0                  # per-call floor included in step_s
    note: str = ""                        # the step GNN's coverage of this program
    calibrated_s: float | None = None     # the step calibration's answer, where it has one
    gnn_s: float | None = None            # the step GNN's answer, where it has one
    # per kernel: outside the model's training data, priced by the roofline (time_s is
    # the roofline's, launch overhead included; low_s/high_s equal it)
    fallback: np.ndarray | None = None
    calibration: Any | None = None        # the step calibration that priced it, if any


@functools.cache
def this_cpu() -> dict[str, Any]:
    """The fields of a dataset fingerprint that identify this machine's CPU."""
    import jaxlib

    return {**cpu_identity(), "jaxlib": jaxlib.__version__}


_lock = threading.Lock()
_loaded: dict[Path, LearnedModels | None] = {}


def bundle_path(hardware: str, root: Path | None = None) -> Path:
    return _bundle_path(hardware, root or BUNDLE_ROOT)


@functools.lru_cache(maxsize=256)
def _bundle_path(hardware: str, root: Path) -> Path:
    # cached: predict asks for it on every call (the memo key of a learned answer)
    return root / hardware_slug(hardware)[:100]


def available(root: Path | None = None) -> list[str]:
    base = root or BUNDLE_ROOT
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if (p / "kernel_xgb" / "meta.json").is_file())


def models_for(hw: Hardware, root: Path | None = None) -> LearnedModels | None:
    """The models that price `hw`: its own bundle, else (a GPU) the shared GPU bundle
    when its data holds chips of `hw`'s vendor; None when neither."""
    own = load_models(hw.name, root)
    if own is not None or hw.kind != "gpu":
        return own
    shared = load_models(GPU_BUNDLE, root)
    if shared is None or hw.vendor not in (shared.kernel_meta.get("vendors") or []):
        return None
    return shared


def load_kernel_model(hardware: str, root: Path | None = None) -> LearnedModels | None:
    """The bundle's kernel model alone (no step models), or None when it has none: what
    the step models are fitted over, so a step model left from an older kernel model
    does not stop its own refit. Not cached."""
    path = bundle_path(hardware, root)
    if not (path / "kernel_xgb").is_dir():
        return None
    kernel, meta = KernelCostModel.load(path / "kernel_xgb")
    models = LearnedModels(hardware, path, kernel, meta, spec=bundled_hardware(hardware, root),
                           step_interval=_read_step_interval(
                               path / "kernel_xgb" / STEP_INTERVAL_FILE,
                               str(meta.get("data_digest", ""))))
    _ = models.power_prior     # a damaged prior is refused here, not at the first predict
    return models


def load_models(hardware: str, root: Path | None = None) -> LearnedModels | None:
    """The bundled models for `hardware`, or None when it has none (loaded once)."""
    path = bundle_path(hardware, root)
    with _lock:
        if path in _loaded:
            return _loaded[path]
        # a model directory that is there is loaded, whatever it lacks: a damaged bundle
        # is refused (models/manifest.py), never taken for none or for one without a GNN
        models = load_kernel_model(hardware, root)
        if models is not None:
            models.corrector = bundled_corrector(models)
            if (path / "step_calibration").is_dir():
                from .step_calibration import StepCalibration

                models.calibration = StepCalibration.load(path / "step_calibration")
                _check_trained_over(path, "step calibration", models.calibration.meta,
                                   models.kernel_meta)
            if (path / "step_gnn").is_dir():
                from .gnn.estimator import StepGNN

                models.step, models.step_meta = StepGNN.load(path / "step_gnn")
                _check_trained_over(path, "step GNN", models.step_meta, models.kernel_meta)
        _loaded[path] = models
        return models


def bundled_corrector(models: LearnedModels) -> Any | None:
    """The bundle's in-step corrector (`models.in_step`), None when it has none."""
    directory = models.path / "in_step"
    if not directory.is_dir():
        return None
    from .in_step import InStepCorrector

    corrector = InStepCorrector.load(directory)
    _check_trained_over(models.path, "in-step corrector", corrector.meta, models.kernel_meta)
    return corrector


def _check_trained_over(path: Path, what: str, meta: dict[str, Any],
                        kernel_meta: dict[str, Any]) -> None:
    """A step model fitted over another kernel model than the bundle's is refused."""
    from ..errors import ModelError

    trained_over = (meta.get("kernel_model") or {}).get("data_digest")
    if trained_over and trained_over != kernel_meta.get("data_digest"):
        how = {"step GNN": "`stablecost train gnn`",
               "in-step corrector": "`stablecost train in-step`"}.get(
                   what, "`stablecost train calibration`")
        raise ModelError(f"{path}: the {what} was fitted over kernel model {trained_over}, "
                         f"the bundled kernel model is {kernel_meta.get('data_digest')}; "
                         f"refit it over it ({how})")


def _read_step_interval(path: Path, digest: str) -> dict[str, tuple[float, float]] | None:
    """The bundle's step interval table (train/intervals.py), None when it has none."""
    import json

    from ..errors import ModelError

    if not path.is_file():
        return None
    try:
        table = json.loads(path.read_text())
        if table["data_digest"] != digest:
            raise ModelError(f"{path}: fitted for kernel model {table['data_digest']}, the "
                             f"bundle's is {digest}; refit it (python -m "
                             "stablecost.train.intervals --write)")
        out = {str(k): (float(v["low_log_ratio"]), float(v["high_log_ratio"]))
               for k, v in dict(table["by_source"]).items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{path}: damaged step interval table ({type(exc).__name__}: "
                         f"{exc})") from None
    if not all(math.isfinite(lo) and math.isfinite(hi) and lo <= hi
               for lo, hi in out.values()):
        raise ModelError(f"{path}: step interval bounds must be finite with low <= high")
    return out


def predict_kernels(models: LearnedModels, analysis: Analysis, hw: Hardware,
                    roofline: Sequence[KernelTime] | None = None) -> LearnedKernels:
    """Learned time of every kernel, its 80 % interval, and the step time.

    `roofline`: the kernels' `kernel_times` on `hw` when the caller has them already
    (ignored when the models price with their own spec, see `pricing_hardware`).
    """
    priced, spec_note = models.pricing_hardware(hw)
    if priced is not hw:   # the caller's roofline was taken on another spec
        roofline, hw = None, priced
    kernels = analysis.kernels
    program = analysis.program
    n = len(kernels)
    time_s, low_s, high_s = np.zeros(n), np.zeros(n), np.zeros(n)
    fallback: np.ndarray | None = None
    fallback_note = ""
    grouped_s = np.zeros(n)    # `grouped_convolution_floor_s` of each kernel
    chosen = [i for i, k in enumerate(kernels) if k.kind != COLLECTIVE and k.priced]
    if chosen:
        subset = [kernels[i] for i in chosen]
        # layered models repeat a few distinct kernels: the models see each one once
        unique_X, first, inverse = unique_features(subset, program, hw)
        if roofline is None:
            unique_times = kernel_times([subset[i] for i in first], program, hw)
        else:
            unique_times = [roofline[chosen[i]] for i in first]
        unique_rl = np.array([t.time_s for t in unique_times])
        rl = unique_rl[inverse]
        base = unique_rl
        prior = models.power_prior
        if prior is not None:
            base = prior.baseline_s(unique_times, np.array(
                [tensor_tflops_per_watt(subset[i], program, hw) for i in first]))
        predicted = models.kernel.predict(unique_X, base)
        interval = models.kernel.predict_interval(unique_X, base)
        low, high = np.minimum(interval.low_s, predicted), np.maximum(interval.high_s, predicted)
        table = models.coverage
        if table is not None:
            why = [uncovered(subset[i], program, hw, table) for i in first]
            ranges = models.kernel_meta.get("ranges")
            if isinstance(ranges, dict):
                why = [w or out_of_range(kernel_class(subset[i], program, hw), x, ranges)
                       for w, i, x in zip(why, first, unique_X)]
        else:
            why = [cpu_uncovered(subset[i], program, hw, models.kernel_meta) for i in first]
        if any(why):
            out = np.array([bool(w) for w in why])
            predicted, low, high = (np.where(out, unique_rl, a) for a in (predicted, low, high))
            fallback = np.zeros(n, dtype=bool)
            fallback[chosen] = out[inverse]
            counts_all = np.array([k.count for k in kernels])
            fallback_note = _fallback_note(why, inverse, counts_all[chosen],
                                           unique_rl[inverse], models)
        time_s[chosen] = predicted[inverse]
        low_s[chosen] = low[inverse]
        high_s[chosen] = high[inverse]
        X = unique_X[inverse]
        grouped_s[chosen] = _grouped_floor(subset, first, program, hw)[inverse]
    counts = np.array([k.count for k in kernels])
    unraised_s = time_s.copy()
    raised = grouped_s > time_s
    if raised.any():
        time_s, low_s, high_s = (np.maximum(a, grouped_s) for a in (time_s, low_s, high_s))
    step_s = models.floor_s + float(np.dot(counts, time_s))
    corrector, calibration = step_composition(models)
    calibrated_s = gnn_s = None
    why_not = note = ""
    if chosen:
        chosen_counts = counts[chosen]
        if calibration is not None and (
                len(chosen) >= calibration.min_kernels or (chosen_counts > 1).any()):
            # kernels priced by the roofline join the step as they are, outside the
            # calibration's terms (fitted over the kernel model's answers)
            outside = np.zeros(len(chosen), bool) if fallback is None else fallback[chosen]
            calibrated_in = unraised_s[chosen]
            if corrector is not None and not outside.all():
                calibrated_in = calibrated_in.copy()
                calibrated_in[~outside] = corrector.correct(
                    X[~outside], calibrated_in[~outside], chosen_counts[~outside])
            calibrated_in = np.maximum(calibrated_in, grouped_s[chosen])
            calibrated_s = calibration.step_s(
                kernel_groups(X), calibrated_in, np.where(outside, 0.0, chosen_counts),
                physical_floor_s(X)) + \
                float(np.dot(chosen_counts[outside], time_s[chosen][outside]))
        if corrector is None:
            gnn_s, why_not, note = _step_gnn(models, program, subset, X, rl, unique_X,
                                             inverse, time_s[chosen], chosen_counts,
                                             None if fallback is None else fallback[chosen])
        elif models.step is not None:
            why_not = ("the step GNN learned the step times of the bundle's own machine and "
                       "takes no part on another one")
    if gnn_s is not None and calibrated_s is not None:
        weight = gnn_weight(gnn_s, calibrated_s)
        step_s, source = blend(gnn_s, calibrated_s), "step_blend"
        if weight < 0.5:
            note = "; ".join(n for n in (note, (
                f"the step GNN's answer ({gnn_s * 1e3:.3g} ms) is "
                f"{gnn_s / calibrated_s:.2g}x the step calibration's "
                f"({calibrated_s * 1e3:.3g} ms): the program looks unlike the GNN's "
                f"training programs, and the step leans on the calibration (GNN weight "
                f"{weight:.2f})")) if n)
    elif gnn_s is not None:
        step_s, source = gnn_s, "step_gnn"
    elif calibrated_s is not None:
        step_s, source = calibrated_s, "step_calibration"
        note = "step time from the step calibration" + (
            "" if corrector is None else " over the kernels' in-step times (the bundle's "
            "in-step corrector, used on machines other than its own)") + \
            (f": {why_not}" if why_not else "")
    else:
        source = "kernel_sum"
        if why_not:
            note = f"step time is the sum of the learned kernel times: {why_not}"
    loop_note = missing_loop_rate_note(kernels, program, hw)
    grouped_note = "" if not raised.any() else (
        f"{int(raised.sum())} kernel(s) with feature-grouped convolutions raised to "
        f"{GROUPED_FLOOR_SHARE:.0%} of {hw.name}'s calibrated depthwise-convolution rate")
    note = "; ".join(n for n in (spec_note, fallback_note, loop_note, grouped_note, note)
                     if n)
    return LearnedKernels(time_s, low_s, high_s, step_s, source, models.floor_s, note,
                          calibrated_s, gnn_s, fallback, calibration)


def _grouped_floor(subset: Sequence[Kernel], first: np.ndarray, program: Program,
                   hw: Hardware) -> np.ndarray:
    """`grouped_convolution_floor_s` of the distinct kernels `subset[first]`."""
    if not hw.grouped_convolution_units_per_s:
        return np.zeros(len(first))
    return np.array([grouped_convolution_floor_s(subset[i], program, hw) for i in first])


def step_composition(models: LearnedModels) -> tuple[Any | None, Any | None]:
    """(in-step corrector or None, step calibration or None) composing a step on this
    machine: on a machine whose fingerprint differs from the bundle data's, the
    bundle's in-step corrector and the calibration fitted over it (on the other
    machines' programs) where it ships them; else the bundle's own calibration over the
    kernel model's answers. Held out by family the corrector made the other machines'
    steps closer and the bundle's own machine's a little worse (benchmarks/RESULTS.md),
    so it is used where it helped. Where it is used the step GNN is not: the GNN
    learned absolute step times of the bundle's machine, and blended with the
    corrector's calibration it made held-out families on the other machines worse
    (cnn on the AMD machine: 44 % alone, 83 % blended)."""
    corrector = models.corrector
    if corrector is not None and corrector.calibration is not None \
            and models.machine_differences():
        return corrector, corrector.calibration
    return None, models.calibration


def _fallback_note(why: list[str], inverse: np.ndarray, counts: np.ndarray,
                   roofline_s: np.ndarray, models: LearnedModels) -> str:
    """Which kernels the roofline priced because the model's data has none like them:
    the reasons, each with its kernel count and share of the (roofline) kernel time."""
    per_kernel = [why[r] for r in inverse]
    weights = counts * roofline_s
    total = max(float(weights.sum()), 1e-30)
    by_reason: dict[str, list[float]] = {}
    for reason, c, w in zip(per_kernel, counts, weights):
        if reason:
            entry = by_reason.setdefault(reason, [0.0, 0.0])
            entry[0] += c
            entry[1] += w
    ranked = sorted(by_reason.items(), key=lambda kv: -kv[1][1])
    shown = "; ".join(f"{reason}: {c:g} kernel run(s), {w / total:.0%} of the roofline "
                      "kernel time" for reason, (c, w) in ranked[:4])
    more = f"; and {len(ranked) - 4} more class(es)" if len(ranked) > 4 else ""
    trained = (", ".join(models.kernel_meta.get("chips") or [])
               or str(models.kernel_meta.get("dataset") or "its training chips"))
    return (f"priced by the roofline, outside the learned kernel model's data (measured on "
            f"{trained}): {shown}{more}")


def _step_gnn(models: LearnedModels, program: Any, subset: Sequence[Any], X: np.ndarray,
              rl: np.ndarray, unique_X: np.ndarray, inverse: np.ndarray,
              kernel_s: np.ndarray, counts: np.ndarray,
              fallback: np.ndarray | None = None) -> tuple[float | None, str, str]:
    """(the step GNN's seconds or None, why it did not price the step, a note on its
    coverage when it did). `fallback`: per kernel, priced by the roofline because the
    kernel model does not cover it; the GNN's node inputs for those are not the kernel
    model's answers it learned from, so it stays out where they carry UNSEEN_SHARE or
    more of the kernel time."""
    if models.step is None:
        return None, "", ""
    smallest = getattr(models.step, "min_kernels_", MIN_STEP_KERNELS)
    if len(kernel_s) < smallest:
        return None, (f"{len(kernel_s)} kernel(s), fewer than the step GNN's smallest "
                      f"training program ({smallest})"), ""
    if fallback is not None and fallback.any():
        weights = counts * kernel_s
        share = float(weights[fallback].sum() / max(weights.sum(), 1e-30))
        if share >= UNSEEN_SHARE:
            return None, (f"kernels the kernel model does not cover, priced by the roofline, "
                          f"carry {share:.0%} of it"), ""
    note = ""
    unseen, rows = models.step.unseen_features(unique_X)
    if unseen:
        weights = counts * kernel_s
        share = float(weights[rows[inverse]].sum() / max(weights.sum(), 1e-30))
        shown = ", ".join(unseen[:4]) + \
            (f" and {len(unseen) - 4} more" if len(unseen) > 4 else "")
        if share >= UNSEEN_SHARE:
            return None, (f"kernels with {shown}, which the step GNN's training programs "
                          f"never had, carry {share:.0%} of it"), ""
        note = (f"the step GNN's training programs never had {shown} (kernels "
                f"with {share:.1%} of the kernel time); the GNN still took part in the step")
    from .gnn.graph import graph_from_parts, kernel_edges

    # the kernel features and predictions are the GNN's node inputs
    graph = graph_from_parts(X, rl, counts, kernel_s, kernel_edges(program, subset),
                             models.floor_s)
    return float(models.step.predict([graph])[0]), "", note


def bundled_hardware(hardware: str, root: Path | None = None) -> Hardware | None:
    """The spec a bundle was trained against (its `hardware.toml`), if it ships one:
    how `host-cpu` is priced on a machine that never ran `hardware calibrate`. Parsed
    once per bundle root (resolved here, so a later BUNDLE_ROOT is not answered from
    an earlier one's cache): callers share the same (frozen) object."""
    return _bundled_hardware(hardware, root or BUNDLE_ROOT)


@functools.lru_cache(maxsize=16)
def _bundled_hardware(hardware: str, root: Path) -> Hardware | None:
    import tomllib

    from ..errors import HardwareSpecError, ModelError
    from ..hardware import parse_spec
    from .manifest import verified_files

    spec = bundle_path(hardware, root) / "kernel_xgb" / "hardware.toml"
    if not spec.parent.is_dir():
        return None
    # the bundle's manifest first: a listed spec that is gone or damaged is refused
    data = verified_files(spec.parent, [], [spec.name]).get(spec.name)
    if data is None:
        return None
    try:
        return parse_spec(tomllib.loads(data.decode()), str(spec))
    except (ValueError, TypeError, KeyError, AttributeError, HardwareSpecError) as exc:
        # TOMLDecodeError and UnicodeDecodeError are ValueErrors
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ModelError(message if message.startswith(str(spec)) else
                         f"{spec}: unusable chip spec ({message})") from None
