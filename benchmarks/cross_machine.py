"""The bundled host-cpu models on another machine: before adapt, with the bundle's
default for other machines, after adapt, roofline.

    .venv/bin/python benchmarks/cross_machine.py [--data data/cpu-3076d9df] [--hardware host-cpu]
        [--spec own|bundle] [--json FILE]

The project keeps every machine's measurements: `data/cpu/` is the machine the bundle
was trained on, and each other `data/*/` dataset holds the kernels and whole programs
`stablecost hardware adapt` measured on a machine of another fingerprint. For each
such dataset (default: every dataset under `data/` whose fingerprint is not the
bundle's), its programs are priced four ways, on the stored timings:

- before adapt: the bundle with no adaptation at all (the learned
  fidelity's own fallbacks included);
- other machines' default: what `predict` uses on a machine with no adaptation of its
  own, the factors `train/other_machines.py` fits over the other machines' data; here
  fitted leave one machine out, on every dataset given except those of this one's
  fingerprint (so it needs two machines' datasets);
- after adapt: the correction `stablecost hardware adapt` fits (train/adapt.py, the
  same residuals and factors), fitted leave-one-family-out: on every kernel sample of
  that machine and the programs of the other families, then applied to the held-out
  family's programs as `predict` applies it (models/adaptation.py);
- roofline: the summed kernel roofline on that machine's own calibrated spec (the
  dataset's `hardware.toml`).

The bundle reads a kernel through a spec: by default (`--spec own`) the measured
machine's calibration, as `predict` does on a machine whose fingerprint differs from
the bundle's (its kernel targets are ratios to the roofline, so they carry to another
machine's numbers); `--spec bundle` prices with the spec the bundle was trained with,
to show what the machine-relative reading is worth.

One Markdown table per dataset: per program family, then pooled (MAPE, median APE,
Kendall τ within families), and a line for the kernel samples (before adapt only: adapt
fits its kernel factors on all of them). Pricing ~2,000 samples takes about 2 minutes on 2 cores;
the figures do not depend on the machine it runs on.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _common import commit, write_json

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("before adapt", "other machines' default", "after adapt", "roofline")


@dataclass
class Priced:
    """Every sample of one dataset, priced by the unadapted bundle."""

    kind: np.ndarray            # kernel / program
    family: np.ndarray
    measured_s: np.ndarray
    residuals: list             # train.adapt.Residual or None, per sample
    before_s: np.ndarray        # the learned step, no adaptation
    roofline_s: np.ndarray      # on the dataset's own spec
    parts: list                 # (analysis, learned kernels) for re-pricing


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def learned_step(models, analysis, learned, roofline_s: float) -> float:
    """The step `predict` gives with no adaptation (models.cost_model.Learned)."""
    from stablecost.models.cost_model import out_of_range

    if out_of_range(analysis, learned):
        return roofline_s
    if learned.step_source != "kernel_sum":
        return learned.step_s
    return learned.floor_s + float(np.dot([k.count for k in analysis.kernels], learned.time_s))


def price(dataset: Path, models, spec: str = "own") -> Priced:
    from stablecost.datasets import store
    from stablecost.errors import StablecostError
    from stablecost.featurize.analysis import analyze
    from stablecost.featurize.ingest import load_program
    from stablecost.models.learned import predict_kernels
    from stablecost.models.roofline import kernel_times
    from stablecost.train.adapt import residual_of
    from stablecost.train.data import dataset_hardware

    own = dataset_hardware(dataset)        # the roofline is always the machine's own
    priced_with = own
    if spec == "bundle":
        if models.spec is None:
            raise StablecostError(f"the {models.hardware} bundle ships no spec of its own")
        priced_with = models.spec
    elif models.pricing_hardware(own)[0] is not own:
        raise StablecostError("this machine matches the bundle's, so the bundle would price "
                              "with its own spec; run with --spec bundle")
    frame = store.read_frame(dataset, columns=["kind", "family", "group_id", "stablehlo",
                                               "median_s"])
    # the kernels `collect kernels --from-programs` outlined are not what adapt measures
    # (its kernel sweep): leave them out, as adapt's fit has none
    frame = frame[frame["family"] != "outlined"]
    kinds, families, measured, residuals, before, roofline, parts = [], [], [], [], [], [], []
    start = time.perf_counter()
    for i, (kind, family, group, text, median_s) in enumerate(frame.itertuples(index=False)):
        analysis = analyze(load_program(text))
        learned = predict_kernels(models, analysis, priced_with)
        rl = float(sum(k.count * t.time_s for k, t in
                       zip(analysis.kernels, kernel_times(analysis.kernels, analysis.program,
                                                          own))))
        kinds.append(kind)
        families.append(family)
        measured.append(median_s)
        residuals.append(residual_of(models, analysis, learned, group, median_s))
        before.append(learned_step(models, analysis, learned, rl))
        roofline.append(rl)
        parts.append((analysis, learned) if kind == "program" else None)
        if (i + 1) % 250 == 0:
            say(f"  priced {i + 1}/{len(frame)} samples ({time.perf_counter() - start:.0f} s)")
    return Priced(np.array(kinds), np.array(families), np.array(measured), residuals,
                  np.array(before), np.array(roofline), parts)


def adapted_step(models, analysis, learned, fitted: dict[str, float], before_s: float) -> float:
    """The step after an adaptation of factors `fitted`, applied as `predict` does."""
    from stablecost.models.adaptation import Adaptation, apply
    from stablecost.models.cost_model import out_of_range

    if out_of_range(analysis, learned):          # the roofline is not adapted
        return before_s
    adaptation = Adaptation(
        hardware=models.hardware, fingerprint_id="", bundle_digest="", featurizer_version="",
        step_factor=fitted["step"], default_kernel_factor=fitted["default"],
        kernel_factors={k: v for k, v in fitted.items() if k not in ("step", "default")})
    step_s = learned.step_s if learned.step_source != "kernel_sum" else None
    time_s, step_s = apply(adaptation, analysis, learned.time_s, step_s, learned.floor_s,
                           learned.fallback)
    if step_s is not None:
        return step_s
    return learned.floor_s + float(np.dot([k.count for k in analysis.kernels], time_s))


def after_adapt(priced: Priced, models) -> np.ndarray:
    """Each program priced after an adaptation fitted without its family."""
    from stablecost.train.adapt import fit_factors

    programs = np.flatnonzero(priced.kind == "program")
    out = np.zeros(len(priced.kind))
    for family in sorted(set(priced.family[programs].tolist())):
        fit = [r for r, kind, fam in zip(priced.residuals, priced.kind, priced.family)
               if r is not None and (kind != "program" or fam != family)]
        fitted = fit_factors(fit)
        for i in programs[priced.family[programs] == family]:
            analysis, learned = priced.parts[i]
            out[i] = adapted_step(models, analysis, learned, fitted, priced.before_s[i])
    return out[programs]


def with_factors(priced: Priced, models, fitted: dict[str, float] | None) -> np.ndarray:
    """Each program priced after an adaptation of factors `fitted` (None: none)."""
    programs = np.flatnonzero(priced.kind == "program")
    if fitted is None:
        return priced.before_s[programs]
    return np.array([adapted_step(models, *priced.parts[i], fitted, priced.before_s[i])
                     for i in programs])


def table(priced: Priced, after_s: np.ndarray, default_s: np.ndarray) -> list[str]:
    from stablecost.train import metrics

    programs = priced.kind == "program"
    family, measured = priced.family[programs], priced.measured_s[programs]
    columns = {"before adapt": priced.before_s[programs],
               "other machines' default": default_s, "after adapt": after_s,
               "roofline": priced.roofline_s[programs]}
    lines = ["| family | n | " + " | ".join(f"{c} MAPE" for c in COLUMNS)
             + " | after adapt τ | roofline τ |",
             "|---|---:|" + "---:|" * (len(COLUMNS) + 2)]

    def row(label: str, rows: np.ndarray, taus: bool) -> str:
        s = {c: metrics.summary(measured[rows], v[rows]) for c, v in columns.items()}
        tau = (f"{s['after adapt']['kendall_tau']:.2f} | {s['roofline']['kendall_tau']:.2f}"
               if taus and rows.sum() > 2 else " | ")
        return (f"| {label} | {rows.sum()} | "
                + " | ".join(f"{s[c]['mape']:.1%}" for c in COLUMNS) + f" | {tau} |")

    for name in sorted(set(family.tolist())):
        lines.append(row(name, family == name, True))
    everything = np.ones(len(measured), dtype=bool)
    lines.append(row("**all programs**", everything, False))
    s = {c: metrics.summary(measured, v) for c, v in columns.items()}
    lines.append("| median APE | | " + " | ".join(f"{s[c]['median_ape']:.1%}" for c in COLUMNS)
                 + " | | |")
    kernels = priced.kind == "kernel"
    k = {c: metrics.summary(priced.measured_s[kernels], v[kernels])
         for c, v in (("learned", priced.before_s), ("roofline", priced.roofline_s))}
    lines.append(f"| kernel samples (MAPE / median APE) | {kernels.sum()} | "
                 f"{k['learned']['mape']:.1%} / {k['learned']['median_ape']:.1%} | | | "
                 f"{k['roofline']['mape']:.1%} / {k['roofline']['median_ape']:.1%} | "
                 f"{k['learned']['kendall_tau']:.2f} before | "
                 f"{k['roofline']['kendall_tau']:.2f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", type=Path,
                        help="a dataset (or a folder of them) measured on another machine; "
                             "repeatable (default: every one under data/ not the bundle's)")
    parser.add_argument("--hardware", default="host-cpu")
    parser.add_argument("--spec", choices=("own", "bundle"), default="own",
                        help="price through the measured machine's calibration (own, as "
                             "predict does there) or the bundle's training spec")
    parser.add_argument("--json", type=Path, default=None,
                        help="also write every program's measured and predicted times to "
                             "this JSON file (`benchmarks/generalisation.py` reads it)")
    args = parser.parse_args(argv)
    checkout = commit()   # the code that runs (HEAD may move before the end)

    from stablecost.datasets import store
    from stablecost.errors import StablecostError
    from stablecost.models.learned import load_models
    from stablecost.train.adapt import fit_factors
    from stablecost.train.other_machines import other_machines

    try:
        models = load_models(args.hardware)
        if models is None:
            raise StablecostError(f"no bundled learned model for {args.hardware}")
        roots = args.data or [ROOT / "data"]
        datasets = [d for root in roots for d in other_machines(root, models)]
        if not datasets:
            raise StablecostError(f"no {args.hardware} dataset of another machine under "
                                  f"{', '.join(map(str, roots))}")
        print(f"Run {datetime.date.today()}, commit {commit()}, bundle "
              f"{models.path.name} (kernel data {models.kernel_meta.get('data_digest')}, "
              f"trained on {models.kernel_meta.get('dataset')}); kernels read through "
              f"{'each machine' if args.spec == 'own' else 'the bundle'}'s spec.\n")
        priced_all = {}
        runs: list[dict] = []
        for dataset in datasets:
            say(f"pricing {dataset}")
            priced_all[dataset] = price(dataset, models, args.spec)
        machine = {d: store.DatasetInfo.read(d).fingerprint_id for d in datasets}
        for dataset, priced in priced_all.items():
            info = store.DatasetInfo.read(dataset)
            after = after_adapt(priced, models)
            fitted = fit_factors([r for r in priced.residuals if r is not None])
            # the bundle's default for other machines, fitted without this one
            others = [r for d, p in priced_all.items() if machine[d] != machine[dataset]
                      for r in p.residuals if r is not None]
            default = with_factors(priced, models, fit_factors(others) if others else None)
            fp = info.fingerprint
            print(f"### {dataset.relative_to(ROOT) if dataset.is_relative_to(ROOT) else dataset}"
                  f" (fingerprint {info.fingerprint_id}: {fp.get('cpu_vendor', '?')} family "
                  f"{fp.get('cpu_family', '?')} model {fp.get('cpu_model_number', '?')}, "
                  f"{fp.get('cpu_isa', 'ISA not recorded')})\n")
            print(f"{int((priced.kind == 'program').sum())} programs, "
                  f"{int((priced.kind == 'kernel').sum())} kernel samples. Adapt fitted on "
                  f"all of them: step x{fitted['step']:.3f}, kernels "
                  f"x{fitted['default']:.3f} by default. The other machines' default is "
                  + ("fitted on the other machines' datasets above (leave one machine out)."
                     if others else "not priced: no other machine's dataset was given.")
                  + "\n")
            print("\n".join(table(priced, after, default)) + "\n")
            programs = priced.kind == "program"
            runs.append({
                "dataset": str(dataset.relative_to(ROOT) if dataset.is_relative_to(ROOT)
                               else dataset),
                "fingerprint_id": info.fingerprint_id,
                "programs": [{"family": str(f), "measured_s": float(m), "before_s": float(b),
                              "default_s": float(d), "after_s": float(a),
                              "roofline_s": float(r)}
                             for f, m, b, d, a, r in zip(
                                 priced.family[programs], priced.measured_s[programs],
                                 priced.before_s[programs], default, after,
                                 priced.roofline_s[programs])]})
        if args.json:
            write_json(args.json, {"commit": checkout, "spec": args.spec, "datasets": runs})
    except StablecostError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
