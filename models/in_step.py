"""The in-step corrector: from a kernel's standalone price to its time inside a step.

The per-kernel model learned from kernel samples, each timed as its own executable,
warm, alone. Inside a step the same kernel runs after others that evicted its inputs
from the caches, and without a standalone call's dispatch: a non-dot kernel moving
1 MiB or more takes about its cold-cache time alone there, 2.2-2.8x its warm time
(`benchmarks/kernels_in_step.py --warm-cold`), while a small one can take less than
its sample did. The corrector is gradient-boosted trees fitted to

    log(in-step time / predicted time)

of each kernel of profiled steps (`stablecost collect profiles`, each kernel timed
inside the running step), weighted by the kernel's share of its step, from

    the kernel's features  (models/features.py, on the spec the bundle prices with)
    log2 of its predicted microseconds and of its executions per step
    where it sits in its step: log2 of the bytes the whole step moves (executions
        counted: how much of it a cache could hold), of the step's kernel launches,
        and of the kernel's share of those bytes

Kernels of a kind the profiled steps hold little of weigh little in the trees' loss, so
the trees answer them with what fits the dot- and loop-heavy bulk: in sample they put
sorts at a step-weighted mean log ratio of -0.51 against the profiles' +0.14, top-k at
-0.94 against -0.20, FFTs at -0.47 against -0.03. After the trees, each standalone kernel
(a library routine run alone: sort, top-k, FFT, scatter, ...) gets the trees' mean
residual on its class (`OFFSET_FITTED_KINDS` and the first of `OFFSET_MARKERS` among its
opcodes), weighted as the fit is and shrunk toward zero by `OFFSET_SHRINK` programs'
worth of weight. Fused loops and reductions get none: offsets for their classes (loops
with gathers +0.42, with transposes -1.18) brought their kernels closer held out by
family, but the steps of the graph networks held out went further off on both machines
(AMD 34.1 to 43.1 %, Intel 25.8 to 28.1 %): what the profile attributes to a fused loop
depends on its neighbours more than on its opcodes (`benchmarks/RESULTS.md`).

Every input is relative to the machine at hand (its calibrated spec), so the trees fit
on steps profiled on several machines carry to another one. The step calibration
(models/step_calibration.py) is fitted over the corrected kernel times and prices a
step from them; the per-kernel answers `predict` reports stay the kernel model's (a
kernel's own time, as `stablecost collect kernels` measures it). Kernels priced by the
roofline (outside the kernel model's data) are not corrected.

A variant corrects the kernel model's answer raised to the kernel's roofline time on
kernels without a dot or a convolution (`in_step_base`, `floor="roofline"`): summed over a
machine's programs such kernels take about their roofline time inside steps, twice the
kernel model's. Held out by family it came 0.7-1.6 points closer on the zoo of all
three machines, but on never-seen-8, judged blind, it was 48.1 % against 31.0 % without
(it inherits the roofline's price of small kernels run thousands of times in loops), so
the bundle's corrector is fitted without it (benchmarks/RESULTS.md).

Fitted by `train/in_step.py`; saved as `in_step/` in the bundle with its manifest.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from ..featurize.program import FEATURIZER_VERSION
from .features import CHIP_FEATURES, FEATURE_SCHEMA_VERSION, FEATURES

MODEL_NAME = "in_step"
MODEL_FILE = "in_step_xgb.ubj"
META_FILE = "meta.json"
# the inputs after the kernel features, in order
EXTRA_INPUTS = ("predicted_us_log2", "executions_log2", "step_bytes_log2",
                "step_launches_log2", "byte_share_log2")
INPUTS = (*FEATURES, *EXTRA_INPUTS)
# the fitted and the predicted log ratio are clipped to this range. Above: inside a
# step a kernel runs at about its cold-cache time alone, 2.2-2.8x its warm time
# (`benchmarks/kernels_in_step.py --warm-cold`); a larger ratio in the profiles (the
# threefry loops of dropout masks, up to 12x) is the profile's attribution, and learned
# as such it priced the Intel machine's random-bits kernel samples 4x over. Clipped
# here, held out by family the steps came 1-3 points closer on all three machines
# (benchmarks/RESULTS.md). Below: a kernel 400x faster in its step than alone.
LOG_RATIO_RANGE = (-6.0, 1.0)
# Whether the trees see the machine's own numbers (the kernel features named `hw_*`:
# calibrated peaks, bandwidth, launch overhead). The profiles come from two machines,
# and two machines cannot teach how a correction moves with those numbers: each is
# constant on a machine, so the trees split on them as on the machine's name, and a
# machine none of the profiles comes from fell on one side of those splits or the
# other. Fitted without them (the columns blanked), the corrector priced a Zen 5
# machine's zoo 43.8 % off before adapt against 49.0 % with them, and held out by
# family on the profiled machines 31.0 % against 31.8 % (benchmarks/RESULTS.md). A
# corrector records its choice in its meta ("machine_inputs"; one without the key saw
# them).
MACHINE_INPUTS = False
# the trees' hyperparameters (`fit_corrector`), those judged in `benchmarks/step_variants.py`.
# Each round grows five trees on its own subsample of rows and columns and takes their
# mean (`num_parallel_tree`): fitted again with another seed, a corrector of one tree a
# round moved the Zen 5 stored sets' steps by a median 3.2 % (one program in ten 12 % or
# more) and their median APE from 30.9 to 33.5 %; of five, by 1.6 % (4.5 %), 31.9
# against 30.8 % (benchmarks/RESULTS.md). Held out by machine the zoo came out the same.
TREE_PARAMS = {"objective": "reg:squarederror", "max_depth": 6, "eta": 0.1, "subsample": 0.8,
               "colsample_bytree": 0.5, "min_child_weight": 20, "reg_lambda": 10.0,
               "num_parallel_tree": 5}
TREE_ROUNDS = 100
_CHIP_COLUMNS = tuple(FEATURES.index(name) for name in CHIP_FEATURES)
# the kernel classes that get an offset after the trees (the module docstring): a
# kernel's kind, and the first of these opcodes it holds ("" for none of them)
OFFSET_KINDS = ("loop", "reduction", "matmul", "standalone")
OFFSET_MARKERS = ("sort", "chlo.top_k", "fft", "scatter", "gather", "dynamic_update_slice",
                  "dynamic_slice", "reduce_window", "concatenate", "transpose", "iota", "pad")
# the kinds whose classes get an offset (the module docstring)
OFFSET_FITTED_KINDS = ("standalone",)
# weight (in programs: a program's kernels weigh about 1 in all) that each class's mean
# residual is shrunk with; a fifth to a half of a family's weight did best held out
OFFSET_SHRINK = 2.0
_KIND_COLUMNS = tuple(FEATURES.index(f"kind_{kind}") for kind in OFFSET_KINDS)
_MARKER_COLUMNS = tuple(FEATURES.index(f"op_{op}") for op in OFFSET_MARKERS)
OFFSET_CLASSES = tuple(f"{kind}:{marker}" for kind in OFFSET_KINDS
                       for marker in (*OFFSET_MARKERS, ""))
_BYTE_COLUMNS = tuple(FEATURES.index(name) for name in ("bytes_read", "bytes_written"))
_BUSY, _OVERHEAD = FEATURES.index("rl_busy_us"), FEATURES.index("hw_launch_overhead_us")
_MEMORY = FEATURES.index("rl_memory_us")
# the "large" floor raises only kernels run once per step that move at least this much
# per execution (read plus written), to their memory time: summed over the Intel
# machine's profiled steps, non-dot loop kernels of 1 MiB and more took 4-9x the kernel
# model's price inside the step (the warm-cache samples it learned from) and 1.3-2.7x
# their memory time. Kernels in loop bodies are left alone: they touch the same buffers
# every iteration, and raised they priced the stored never-seen programs with loops
# (finite differences, Floyd-Warshall, a Tree-LSTM, dropout's random-bit rounds) 2-3x
# over
LARGE_KERNEL_BYTES = 2**20
# what the trees correct, by the floor under the kernel model's answer (see the module
# docstring): none (the bundle's), the roofline time, the roofline's busy time alone
# (without the spec's launch overhead), or its memory time alone (bytes over the
# calibrated bandwidth), on kernels without a dot or a convolution
BASES = {"": "kernel model",
         "roofline": "kernel model, raised to the roofline on kernels without a dot",
         "busy": "kernel model, raised to the roofline's busy time on kernels without a dot",
         "memory": "kernel model, raised to the roofline's memory time on kernels without "
                   "a dot",
         "large": "kernel model, raised to the roofline's memory time on kernels without a "
                  f"dot run once per step that move {LARGE_KERNEL_BYTES // 2**20} MiB or "
                  "more"}


def in_step_base(X: np.ndarray, predicted_s: np.ndarray, floor: str = "roofline",
                 counts: np.ndarray | None = None) -> np.ndarray:
    """The seconds per execution the trees correct (see BASES) of kernel rows `X` priced
    `predicted_s` by the kernel model; the roofline time is read off the rows' own
    features (busy or memory time, and for the "roofline" floor the spec's launch
    overhead)."""
    from .step_calibration import kernel_groups

    X = np.asarray(X, dtype=np.float64)
    predicted = np.asarray(predicted_s, dtype=np.float64)
    if not floor:
        return predicted
    if floor not in BASES:
        raise ModelError(f"in-step floor {floor!r}: one of {sorted(BASES)}")
    column = _MEMORY if floor in ("memory", "large") else _BUSY
    roofline_s = (np.exp2(X[:, column]) - 1.0) * 1e-6
    if floor == "roofline":
        roofline_s += (np.exp2(X[:, _OVERHEAD]) - 1.0) * 1e-6
    raised = kernel_groups(X) != 0       # not the dot/convolution group
    if floor == "large":
        if counts is None:
            raise ModelError('the "large" in-step floor needs each kernel\'s executions')
        moved = sum(np.exp2(X[:, c]) - 1.0 for c in _BYTE_COLUMNS)
        raised &= (moved >= LARGE_KERNEL_BYTES) & (np.asarray(counts) <= 1.0)
    return np.where(raised, np.maximum(predicted, roofline_s), predicted)


def offset_classes(inputs: np.ndarray) -> np.ndarray:
    """Each row's index into OFFSET_CLASSES, read off its kernel features (the first
    columns of corrector inputs or kernel feature rows alike)."""
    X = np.asarray(inputs)
    kind = np.argmax(X[:, list(_KIND_COLUMNS)], axis=1)
    marker = np.full(len(X), len(OFFSET_MARKERS))
    for j in range(len(OFFSET_MARKERS) - 1, -1, -1):
        marker[X[:, _MARKER_COLUMNS[j]] > 0] = j
    return kind * (len(OFFSET_MARKERS) + 1) + marker


def class_offsets(inputs: np.ndarray, residual: np.ndarray, weight: np.ndarray
                  ) -> dict[str, float]:
    """Each class's weighted mean of `residual` shrunk by OFFSET_SHRINK, for the
    classes of OFFSET_FITTED_KINDS that have rows."""
    classes = offset_classes(inputs)
    size = len(OFFSET_CLASSES)
    total = np.bincount(classes, weight * residual, minlength=size)
    weights = np.bincount(classes, weight, minlength=size)
    rows = np.bincount(classes, minlength=size)
    return {OFFSET_CLASSES[c]: float(total[c] / (weights[c] + OFFSET_SHRINK))
            for c in range(size)
            if rows[c] and OFFSET_CLASSES[c].split(":")[0] in OFFSET_FITTED_KINDS}


def corrector_inputs(X: np.ndarray, predicted_s: np.ndarray, counts: np.ndarray,
                     sample: np.ndarray | None = None, *,
                     machine_inputs: bool = MACHINE_INPUTS) -> np.ndarray:
    """The corrector's input rows (INPUTS order) of kernel rows `X` with predicted
    seconds per execution and executions per step; `sample`: each row's program (all
    one program when None), over which the step context is summed. Without
    `machine_inputs` the machine's own numbers (CHIP_FEATURES) are blanked to 0."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != len(FEATURES):
        raise ModelError(f"kernel features must be (kernels, {len(FEATURES)}), got {X.shape}")
    predicted = np.maximum(np.asarray(predicted_s, dtype=np.float64), 1e-12)
    counts = np.asarray(counts, dtype=np.float64)
    sample = np.zeros(len(X), dtype=np.int64) if sample is None else np.asarray(sample)
    programs = int(sample.max()) + 1 if len(sample) else 0
    if not machine_inputs:
        X = X.copy()
        X[:, _CHIP_COLUMNS] = 0.0
    moved = sum(np.exp2(X[:, c]) - 1.0 for c in _BYTE_COLUMNS)
    step_bytes = np.bincount(sample, counts * moved, minlength=programs)[sample]
    launches = np.bincount(sample, counts, minlength=programs)[sample]
    return np.column_stack([
        X, np.log2(predicted * 1e6), np.log2(np.maximum(counts, 1.0)),
        np.log2(step_bytes + 1.0), np.log2(launches + 1.0),
        np.log2((counts * moved + 1.0) / (step_bytes + 1.0))])


@dataclass
class InStepCorrector:
    booster: Any                      # xgboost.Booster over INPUTS
    meta: dict[str, Any] = field(default_factory=dict)
    # the step calibration fitted over the corrected kernel times
    # (models.step_calibration.StepCalibration; None until `train.in_step` fits one)
    calibration: Any | None = None

    @functools.cached_property
    def digest(self) -> str:
        """The trees' identity (sha256 of the saved model), which a step calibration
        fitted over them records (`models.learned` refuses a mismatch)."""
        digest = hashlib.sha256(bytes(self.booster.save_raw("ubj")))
        if self.meta.get("class_offsets"):
            digest.update(json.dumps(self.meta["class_offsets"], sort_keys=True).encode())
        return digest.hexdigest()[:16]

    @functools.cached_property
    def _offsets(self) -> np.ndarray:
        """The offset of each of OFFSET_CLASSES (0 for a class the fit had no rows of,
        and for every class of a corrector saved without offsets)."""
        given = self.meta.get("class_offsets") or {}
        return np.array([float(given.get(name, 0.0)) for name in OFFSET_CLASSES])

    def log_ratio(self, inputs: np.ndarray, *, offsets: bool = True) -> np.ndarray:
        """log(in-step / base) of each input row: the trees' answer, plus its class's
        offset unless `offsets` is False, clipped to LOG_RATIO_RANGE."""
        import xgboost as xgb

        inputs = np.asarray(inputs)
        raw = np.asarray(self.booster.predict(xgb.DMatrix(inputs.astype(np.float32))),
                         dtype=np.float64)
        if offsets and len(inputs):
            raw = raw + self._offsets[offset_classes(inputs)]
        return np.clip(raw, *LOG_RATIO_RANGE)

    @property
    def floor(self) -> str:
        """The floor under the kernel model's answer that the trees correct (a key of
        BASES; "" for the bundle's, the answer itself)."""
        named = {text: key for key, text in BASES.items()}
        base = self.meta.get("base", BASES[""])
        if base not in named:
            raise ModelError(f"in-step corrector corrects {base!r}, which this stablecost "
                             f"does not know ({sorted(BASES.values())})")
        return named[base]

    def base(self, X: np.ndarray, predicted_s: np.ndarray,
             counts: np.ndarray | None = None) -> np.ndarray:
        """The seconds per execution the trees correct, of kernel rows `X` run `counts`
        times per step."""
        return in_step_base(X, predicted_s, self.floor, counts)

    def correct(self, X: np.ndarray, predicted_s: np.ndarray, counts: np.ndarray,
                sample: np.ndarray | None = None) -> np.ndarray:
        """Each kernel's predicted seconds per execution moved to its in-step time."""
        predicted = np.asarray(predicted_s, dtype=np.float64)
        if not len(predicted):
            return predicted
        base = self.base(X, predicted, counts)
        inputs = corrector_inputs(X, base, counts, sample,
                                  machine_inputs=bool(self.meta.get("machine_inputs", True)))
        return base * np.exp(self.log_ratio(inputs))

    # -- persistence -------------------------------------------------------------------
    def save(self, directory: str | Path) -> Path:
        from ..atomicio import atomic_write_bytes
        from .manifest import write_manifest

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(directory / MODEL_FILE, bytes(self.booster.save_raw("ubj")))
        if self.calibration is None:
            raise ModelError("an in-step corrector is saved with the step calibration "
                             "fitted over it (train/in_step.py)")
        c = self.calibration
        meta = {**self.meta, "model": MODEL_NAME, "featurizer_version": FEATURIZER_VERSION,
                "feature_schema_version": FEATURE_SCHEMA_VERSION, "features": list(FEATURES),
                "inputs": list(INPUTS), "log_ratio_range": list(LOG_RATIO_RANGE),
                "calibration": {"floor_s": c.floor_s, "scale": list(c.scale),
                                "per_launch_s": list(c.per_launch_s),
                                "min_kernels": c.min_kernels,
                                "interval_log_ratio": list(c.interval_log_ratio),
                                "meta": c.meta}}
        atomic_write_bytes(directory / META_FILE, (json.dumps(meta, indent=1) + "\n").encode())
        write_manifest(directory)
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> InStepCorrector:
        """The corrector saved in `directory`: manifest, schema and inputs checked, and
        the trees' answers on two probe rows finite; else a one-line `ModelError`."""
        import xgboost as xgb

        from .bundle_checks import read_bundle

        directory = Path(directory)
        meta, files = read_bundle(directory, MODEL_NAME, [MODEL_FILE])
        path = directory / MODEL_FILE
        if meta.get("inputs") != list(INPUTS):
            raise ModelError(f"{directory / META_FILE}: inputs differ from this "
                             "stablecost's in-step corrector; refit it")
        data = files[MODEL_FILE]
        if not data.startswith(b"{"):
            raise ModelError(f"{path}: not an XGBoost model ({len(data)} bytes)")
        booster = xgb.Booster()
        try:
            booster.load_model(bytearray(data))
        except Exception as exc:  # noqa: BLE001 - XGBoostError, whatever a bad file raises
            why = re.sub(r"^\[[\d:]+\] \S+: ", "", (str(exc).splitlines() or [""])[0])
            raise ModelError(f"{path}: unreadable XGBoost model ({why[:200]})") from None
        if booster.num_features() != len(INPUTS):
            raise ModelError(f"{path}: a model of {booster.num_features()} inputs; this "
                             f"stablecost's corrector has {len(INPUTS)}")
        booster.set_param({"nthread": 1})
        offsets = meta.get("class_offsets") or {}
        if not isinstance(offsets, dict) or set(offsets) - set(OFFSET_CLASSES) or any(
                isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v)
                for v in offsets.values()):
            raise ModelError(f"{directory / META_FILE}: class_offsets must map kernel classes "
                             f"({', '.join(OFFSET_CLASSES[:3])}, ...) to finite numbers")
        corrector = cls(booster, meta, _calibration(directory / META_FILE,
                                                    meta.get("calibration")))
        probe = np.stack([np.zeros(len(INPUTS)), np.ones(len(INPUTS))])
        raw = np.asarray(booster.predict(xgb.DMatrix(probe.astype(np.float32))))
        if raw.size != 2 or not np.all(np.isfinite(raw)):
            raise ModelError(f"{path}: answers {raw.ravel()[:4].tolist()} on a probe; "
                             "expected a finite number per kernel")
        return corrector


def fit_corrector(inputs: np.ndarray, log_ratio: np.ndarray, weight: np.ndarray, *,
                  seed: int = 0, rounds: int | None = None, threads: int = 2,
                  meta: dict[str, Any] | None = None, floor: str = "",
                  machine_inputs: bool = MACHINE_INPUTS) -> InStepCorrector:
    """Trees over `inputs` (corrector_inputs rows, made with `machine_inputs` as given
    here) fitted to the clipped log ratios, each row weighted (its share of its step);
    `floor`: the rows and ratios are of `in_step_base` seconds with that floor (see
    BASES); both recorded in the meta.
    The hyperparameters are those judged in `benchmarks/step_variants.py`: shallow
    enough that 60 families do not memorize."""
    import xgboost as xgb

    if len(inputs) < 100:
        raise ModelError(f"{len(inputs)} profiled kernels are too few to fit the in-step "
                         "corrector (at least 100)")
    target = np.clip(np.asarray(log_ratio, dtype=np.float64), *LOG_RATIO_RANGE)
    if not (np.all(np.isfinite(target)) and np.all(np.isfinite(weight))):
        raise ModelError("in-step corrector data holds NaN or infinite values")
    rounds = TREE_ROUNDS if rounds is None else rounds
    params = {**TREE_PARAMS, "nthread": threads, "verbosity": 0, "seed": seed}
    booster = xgb.train(params, xgb.DMatrix(np.asarray(inputs, dtype=np.float32), target,
                                            weight=weight), rounds)
    booster.set_param({"nthread": 1})
    trees = InStepCorrector(booster)
    residual = target - trees.log_ratio(inputs, offsets=False)
    return InStepCorrector(booster, {**(meta or {}), "params": {**params, "rounds": rounds},
                                     "rows": int(len(inputs)),
                                     "base": BASES[floor],
                                     "machine_inputs": bool(machine_inputs),
                                     "offset_shrink": OFFSET_SHRINK,
                                     "class_offsets": class_offsets(inputs, residual,
                                                                    np.asarray(weight))})


def _calibration(path: Path, data: Any) -> Any:
    """The step calibration saved beside the corrector, checked as the bundle's own."""
    from .step_calibration import StepCalibration

    if not isinstance(data, dict):
        raise ModelError(f"{path}: calibration must be an object of step calibration terms")
    try:
        numbers = [data["floor_s"], *data["scale"], *data["per_launch_s"],
                   *data["interval_log_ratio"]]
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in numbers):
            raise TypeError("a term is not a number")
        return StepCalibration(
            floor_s=float(data["floor_s"]), scale=tuple(map(float, data["scale"])),
            per_launch_s=tuple(map(float, data["per_launch_s"])),
            min_kernels=int(data["min_kernels"]),
            interval_log_ratio=(float(data["interval_log_ratio"][0]),
                                float(data["interval_log_ratio"][1])),
            meta=dict(data.get("meta") or {}))
    except ModelError as exc:
        raise ModelError(f"{path}: calibration: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ModelError(f"{path}: damaged calibration ({type(exc).__name__}: {exc})") from None
