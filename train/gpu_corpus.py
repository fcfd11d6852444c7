"""The GPU kernel corpus: public GPU measurements (../shared/data), imported and
featurized per chip and op family, for the one GPU kernel model and its
leave-one-GPU-out benchmark.

Slices (chip, family, source tables):
- aiconfigurator GEMMs (family ``gemm``): one library version per chip, as
  `benchmarks/gpu_kernels.py` explains (several libraries time one shape differently):
  TRT-LLM 1.0.0 on A100-SXM-80GB (bf16; Ampere has no fp8), TRT-LLM 1.3.0rc20 on
  H100, H200 and B200 (bf16 and per-tensor fp8);
- aiconfigurator fused attention (family ``attention``), the same library version per
  chip: TRT-LLM's prefill (causal, sliding windows included) and decode kernels with
  bf16 compute and a bf16 kv cache (the rows with an fp8 cache or fp8 compute are left
  out: XLA runs those as converts plus a kernel, or scaled fp8 kernels we do not map);
- NeuSight fp32 ops on P100, P4, T4, V100-PCIe and A100-PCIe (conv on the 80 GB card):
  ``bmm``, ``linear``, ``conv``, ``elementwise`` (add/mul/div/pow with their scalar
  forms, relu, tanh, gelu), ``softmax``, ``layer_norm``.

Each slice's source files are sampled to at most `rows` rows (seeded) into a scratch
copy of the source layout and imported with `stablecost import`'s code (repeats
merged, outliers flagged and dropped), then featurized on the chip's catalog spec.
An attention sample is featurized as the one fused kernel that ran
(`templates.fused_attention`: a cuDNN flash-attention custom call of the row's shape
and mask), not as the unfused program the importer stores (two batched GEMMs and a
softmax whose score matrix the measured kernel never wrote), so the model learns fused
attention as its own kernel class (`standalone:fmha:bf16`) and prices it wherever a
program holds such a kernel.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..models.power_prior import PowerPrior, fit_power_prior
from ..models.roofline import KernelTime
from .data import Featurized

# (chip, aiconfigurator system, library, version, recipes)
GEMM_SLICES = (
    ("A100-SXM-80GB", "a100_sxm", "trtllm", "1.0.0", ("bfloat16",)),
    ("H100-SXM", "h100_sxm", "trtllm", "1.3.0rc20", ("bfloat16", "fp8")),
    ("H200-SXM", "h200_sxm", "trtllm", "1.3.0rc20", ("bfloat16", "fp8")),
    ("B200", "b200_sxm", "trtllm", "1.3.0rc20", ("bfloat16", "fp8")),
)
# family -> NeuSight op folders
NEUSIGHT_FAMILIES = {
    "bmm": ("bmm",), "linear": ("linear",), "conv": ("conv",),
    "elementwise": ("add", "addu", "mul", "mulu", "div", "divu", "pow", "powu", "relu",
                    "tanh", "gelu"),
    "softmax": ("softmax",), "layer_norm": ("ln",),
}
# NeuSight file stem -> catalog chip
NEUSIGHT_CHIPS = {
    "Tesla_P100-PCIE-16GB": "P100-PCIe-16GB", "Tesla_P4": "P4", "Tesla_T4": "T4",
    "Tesla_V100-PCIE-32GB": "V100-PCIe-32GB", "NVIDIA_A100-PCIE-40GB": "A100-PCIe-40GB",
    "NVIDIA_A100_80GB_PCIe": "A100-PCIe-80GB",
}
FAMILIES = ("gemm", "attention", *NEUSIGHT_FAMILIES)
# Features the GPU model may not split on: the chip's absolute peak rates. Each dtype's
# peaks span a narrow band per data source (bf16: Hopper and Blackwell in
# aiconfigurator; fp32: the older NeuSight cards), so a split on them tells the sources
# apart, and a held-out chip whose peak lies between the bands (A100's 312 TF bf16) was
# priced as the other source's kernels: leave-one-GPU-out median APE on A100 GEMMs 49 %
# with them, 13 % without (1,000 rows per slice). The peaks still reach the model through
# the roofline features (`rl_compute_us` is the kernel's FLOPs at the chip's peak for
# its dtype and precision), with bandwidth, cache and compute units as they are.
IGNORED_FEATURES = ("hw_matmul_peak", "hw_vector_peak")
# aiconfigurator attention tables and the rows kept (bf16 compute over a bf16 cache)
ATTENTION_TABLES = ("context_attention_perf", "generation_attention_perf")


def _bf16_attention(frame):
    return (frame["attn_dtype"] == "bfloat16") & (frame["kv_cache_dtype"] == "bfloat16")


@dataclass
class Part:
    """One (chip, family) slice, featurized: kernel rows and the samples they belong to."""

    chip: str
    family: str
    f: Featurized
    target_s: np.ndarray       # per kernel row
    weight: np.ndarray
    classes: list[tuple[str, set[str]]]   # per kernel row: coverage class and opcodes
    # per kernel row: the roofline's terms and the tensor TFLOP/s per watt of the row's
    # dtype (NaN off the tensor units), for the power prior (`models.power_prior`)
    kernel_times: list[KernelTime] = field(default_factory=list)
    tflops_per_watt: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def measured_s(self) -> np.ndarray:
        return self.f.samples["median_s"].to_numpy()

    @property
    def sample_split(self) -> np.ndarray:
        return self.f.samples["split"].to_numpy()

    @property
    def row_split(self) -> np.ndarray:
        return self.sample_split[self.f.sample]


def _sample_file(src: Path, dst: Path, rows: int, seed: int,
                 keep: Callable | None = None) -> int:
    import pandas as pd

    frame = pd.read_parquet(src)
    if keep is not None:
        frame = frame[keep(frame)]
    if len(frame) > rows:
        frame = frame.sample(n=rows, random_state=seed)
    dst.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(dst, index=False)
    return len(frame)


def _stage(data: Path, work: Path, rows: int, seed: int, chips: set[str] | None
           ) -> tuple[Path, Path]:
    """Sampled copies of the slices' files in the layouts the importers read."""
    aic, neu = data / "aiconfigurator", data / "neusight"
    if not aic.is_dir() and not neu.is_dir():
        raise SystemExit(f"{data}: neither aiconfigurator/ nor neusight/ there; --data must "
                         "point at the shared data folder (../shared/data)")
    aic_out, neu_out = work / "aic", work / "neusight"
    for chip, system, library, version, recipes in GEMM_SLICES:
        table = aic / system / "gemm" / library / version / "gemm_perf.parquet"
        if (chips is not None and chip not in chips) or not table.is_file():
            continue
        _sample_file(table, aic_out / system / "gemm" / library / version / table.name,
                     rows * len(recipes), seed,
                     keep=lambda f, r=recipes: f["gemm_dtype"].isin(r))
        for name in ATTENTION_TABLES:
            src = aic / system / "attention" / library / version / f"{name}.parquet"
            if src.is_file():
                _sample_file(src, aic_out / system / "attention" / library / version /
                             src.name, rows // len(ATTENTION_TABLES), seed,
                             keep=_bf16_attention)
        (aic_out / f"{system}.yaml").symlink_to((aic / f"{system}.yaml").resolve())
    for ops in NEUSIGHT_FAMILIES.values():
        for op in ops:
            for f in sorted((neu / "train" / op).glob("*.parquet")):
                card = NEUSIGHT_CHIPS.get(f.stem)
                if card is None or (chips is not None and card not in chips):
                    continue
                _sample_file(f, neu_out / "train" / op / f.name, max(rows // len(ops), 1),
                             seed)
    if (neu / "device_configs").is_dir():
        (neu_out / "device_configs").parent.mkdir(parents=True, exist_ok=True)
        (neu_out / "device_configs").symlink_to((neu / "device_configs").resolve())
    return aic_out, neu_out


def _family(row_family: str, variant: str) -> str:
    if row_family == "dot_general":
        return variant if variant in ("bmm", "linear") else "gemm"
    return {"convolution": "conv", "layer_norm": "layer_norm", "softmax": "softmax",
            "elementwise": "elementwise"}.get(row_family, row_family)


def _fused(params_json: str) -> str:
    """The fused flash-attention program of an imported attention row (its `params`)."""
    import json

    from ..datasets.templates import fused_attention

    p = json.loads(params_json)["program"]
    return fused_attention(p["batch"], p["heads"], p["kv_heads"], p["q_len"], p["kv_len"],
                           p["head_dim"], compute=p["compute"], causal=p["causal"],
                           window=p["window"])


def load_parts(data: str | Path, *, rows: int = 4000, seed: int = 0,
               chips: Sequence[str] | None = None,
               say: Callable[[str], None] = lambda m: None) -> list[Part]:
    """Every (chip, family) slice with data under `data` (../shared/data), at most `rows`
    samples per slice (seeded), featurized on the chip's catalog spec."""
    from ..datasets import store
    from ..datasets.importers import import_aiconfigurator, import_neusight
    from ..featurize.fusion import COLLECTIVE
    from ..hardware import get_hardware
    from ..models.coverage import kernel_class, kernel_opcodes
    from ..models.power_prior import tensor_tflops_per_watt
    from ..models.roofline import kernel_time
    from .data import featurize_rows, kernel_targets, load_frame

    data = Path(data)
    wanted = set(chips) if chips is not None else None
    parts: list[Part] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        aic, neu = _stage(data, work / "src", rows, seed, wanted)
        out = work / "datasets"
        if aic.is_dir():
            import_aiconfigurator(aic, out)
        if (neu / "train").is_dir():
            import_neusight(neu, out)
        for dataset in store.find_datasets(out) if out.is_dir() else []:
            info = store.DatasetInfo.read(dataset)
            hw = get_hardware(info.hardware)
            frame = load_frame(dataset, "kernel", seed=seed)
            frame["op_family"] = [_family(f, v) for f, v in zip(frame["family"],
                                                                frame["variant"])]
            for family in FAMILIES:
                sub = frame[frame["op_family"] == family].reset_index(drop=True)
                if sub.empty:
                    continue
                if family == "attention":
                    sub["stablehlo"] = [_fused(p) for p in sub["params"]]
                start = time.perf_counter()
                f, analyses = featurize_rows(sub, hw, keep_analyses=True)
                assert analyses is not None
                kernels = [(k, a.program) for a in analyses for k in a.kernels
                           if k.kind != COLLECTIVE and k.priced]
                assert len(kernels) == len(f.X), "kernel rows out of step with the features"
                classes = [(kernel_class(k, prog, hw), kernel_opcodes(k, prog))
                           for k, prog in kernels]
                times = [kernel_time(k, prog, hw) for k, prog in kernels]
                per_watt = np.array([tensor_tflops_per_watt(k, prog, hw)
                                     for k, prog in kernels])
                target_s, weight = kernel_targets(f, 0.0)   # CUDA-event timings: no floor
                parts.append(Part(hw.name, family, f, target_s, weight, classes, times,
                                  per_watt))
                say(f"featurized {hw.name} {family}: {len(f.samples):,} samples, "
                    f"{len(f.X):,} kernels ({time.perf_counter() - start:.0f} s)")
    return parts


def power_prior(parts: Sequence[Part]) -> PowerPrior | None:
    """The power prior fitted on the training rows of the GEMM parts among `parts`."""
    gemm = [p for p in parts if p.family == "gemm"]
    if not gemm:
        return None
    train = np.concatenate([p.row_split == "train" for p in gemm])
    x = np.concatenate([p.tflops_per_watt for p in gemm])[train]
    target_s = np.concatenate([p.target_s for p in gemm])[train]
    roofline_s = np.concatenate([p.f.roofline_s for p in gemm])[train]
    return fit_power_prior(x, target_s / roofline_s, roofline_s)


def baseline_s(part: Part, prior: PowerPrior | None) -> np.ndarray:
    """What the model's log ratio is taken against for `part`'s rows: the roofline, its
    compute term divided by the power prior's efficiency where one was fitted."""
    if prior is None:
        return part.f.roofline_s
    return prior.baseline_s(part.kernel_times, part.tflops_per_watt)


def stack(parts: Sequence[Part], prior: PowerPrior | None = None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(X, target_s, baseline_s, weight, row split) of several parts, concatenated."""
    return (np.concatenate([p.f.X for p in parts]),
            np.concatenate([p.target_s for p in parts]),
            np.concatenate([baseline_s(p, prior) for p in parts]),
            np.concatenate([p.weight for p in parts]),
            np.concatenate([p.row_split for p in parts]))


def fit(parts: Sequence[Part], *, target: str = "log_ratio", seed: int = 0,
        n_estimators: int = 400, interval: bool = True, prior: bool = True):
    """The kernel model fitted on the training rows of `parts` (early stopping on their
    validation rows), as `stablecost train xgboost` fits one, against the roofline with
    the power prior of their GEMMs (`power_prior`, kept as the model's `power_prior_`;
    None with `prior=False` or too few chips)."""
    from ..models.kernel_model import KernelCostModel

    chosen = power_prior(parts) if prior else None
    X, target_s, base_s, weight, split = stack(parts, chosen)
    tr, va = split == "train", split == "val"
    model = KernelCostModel(target=target, seed=seed, n_estimators=n_estimators,
                            ignored_features=IGNORED_FEATURES).fit(
        X[tr], target_s[tr], base_s[tr], weight=weight[tr],
        eval_set=(X[va], target_s[va], base_s[va]), interval=interval)
    model.power_prior_ = chosen
    return model


def predict_samples(model, part: Part) -> np.ndarray:
    """The model's time of every sample of `part` (sum of its kernels)."""
    base = baseline_s(part, getattr(model, "power_prior_", None))
    return part.f.sum_per_sample(model.predict(part.f.X, base))


def stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
