"""The bundle's default adaptation for machines other than its own.

    python -m stablecost.train.other_machines [--data DIR ...] [--hardware host-cpu]
        [--save DIR] [--tracking-uri URI | --no-track]

A bundle used on a machine whose fingerprint differs from its data's reads every kernel
through that machine's calibration (`models.learned`), and on both other machines the
project measured it still priced whole steps short before `stablecost hardware adapt`
(adapt's step factors 1.28 and 1.44). This fits adapt's factors (`train.adapt`: the
same residuals, MAPE-optimal, shrunk per kernel kind) once over the data of every other
machine under `data/` (each dataset priced through its own `hardware.toml`, as predict
does there), and saves them in the bundle as `other_machines/adaptation.json` with its
manifest. `predict` applies it on a machine that has no adaptation of its own and whose
fingerprint differs from the bundle's, and says so in the notes
(`models.adaptation.bundled_adaptation`).

Beside it, `machines.json` holds each of those machines' own factors, fitted on its data
alone as adapt would fit them there (`machine_adaptation`): on a machine the project
measured, predict uses them in place of the default. Their step factor is kept only
where, fitted without a quarter of that machine's program groups, it brought those
closer (adapt's own check, `train.adapt.check_errors`).

It also prints, per machine, what the default does on that machine's programs when
fitted without it (leave one machine out), next to no adaptation: the honest figure for
a machine nobody measured. `benchmarks/cross_machine.py` prints the same column per
program family. A step factor that makes every machine's steps worse there than none
is not shipped (`checked_step_factor`): the default then leaves step times as they are
and corrects kernel sums only (benchmarks/RESULTS.md, "Adapt's step factor held out").
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..datasets import store
from ..errors import InvalidArgumentError, StablecostError
from ..featurize.program import FEATURIZER_VERSION
from ..models.adaptation import (
    MACHINES_FILE,
    OTHER_MACHINES,
    OTHER_MACHINES_FILE,
    OTHER_MACHINES_ID,
    Adaptation,
)
from ..models.learned import LearnedModels, load_models
from .adapt import Residual, check_errors, dataset_residuals, fit_factors
from .data import dataset_hardware

ROOT = Path(__file__).resolve().parent.parent


def other_machines(root: Path, models: LearnedModels) -> list[Path]:
    """The datasets under `root` of the bundle's chip, measured on machines other than
    the one the bundle's kernel data comes from."""
    trained_on = str(models.kernel_meta.get("dataset", ""))
    return [d for d in store.find_datasets(root)
            if store.DatasetInfo.read(d).hardware == models.hardware and d.name != trained_on]


def default_adaptation(models: LearnedModels, residuals: dict[str, list[Residual]]
                       ) -> Adaptation:
    """The factors fitted over every machine's residuals (fingerprint id -> residuals)."""
    pooled = [r for rows in residuals.values() for r in rows]
    if not pooled:
        raise InvalidArgumentError("no samples to fit on: the datasets hold no programs or "
                                   "kernels the bundle prices")
    return _fitted(models, pooled, OTHER_MACHINES_ID, tuple(sorted(residuals)),
                   "bundle-default")


def machine_adaptation(models: LearnedModels, fingerprint_id: str, rows: list[Residual]
                       ) -> tuple[Adaptation, dict[str, dict[str, float]]]:
    """One machine's own factors, fitted on its residuals as adapt fits them, with the
    check adapt reports (`check_errors`); the step factor is 1 where the check's held-out
    steps came no closer with it."""
    adaptation = _fitted(models, rows, fingerprint_id, (fingerprint_id,), "bundle-machine")
    check = check_errors(rows)
    steps = check.get("step")
    if steps is None or steps["mape_after"] >= steps["mape_before"]:
        adaptation = dataclasses.replace(adaptation, step_factor=1.0)
    return adaptation, check


def _fitted(models: LearnedModels, rows: list[Residual], fingerprint_id: str,
            machines: tuple[str, ...], origin: str) -> Adaptation:
    fitted = fit_factors(rows)
    return Adaptation(
        hardware=models.hardware, fingerprint_id=fingerprint_id,
        bundle_digest=models.adaptation_digest,
        featurizer_version=FEATURIZER_VERSION, step_factor=fitted["step"],
        default_kernel_factor=fitted["default"],
        kernel_factors={k: v for k, v in fitted.items() if k not in ("step", "default")},
        samples={k: sum(1 for r in rows if r.kind == k) for k in ("kernel", "step")},
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        machines=machines, origin=origin)


def held_out_steps(residuals: dict[str, list[Residual]]) -> dict[str, dict[str, float]]:
    """Per machine: MAPE of the step residuals with no adaptation and with the factors
    fitted on the other machines only."""
    import math

    import numpy as np

    out = {}
    for machine, rows in residuals.items():
        others = [r for m, rs in residuals.items() if m != machine for r in rs]
        steps = [r for r in rows if r.kind == "step"]
        if not others or not steps:
            continue
        factor = fit_factors(others)["step"]
        out[machine] = {
            "steps": float(len(steps)), "factor": factor,
            "mape_none": float(np.mean([abs(math.exp(-r.log_ratio) - 1) for r in steps])),
            "mape_default": float(np.mean([abs(factor * math.exp(-r.log_ratio) - 1)
                                           for r in steps]))}
    return out


def checked_step_factor(adaptation: Adaptation, held_out: dict[str, dict[str, float]]
                        ) -> tuple[Adaptation, str]:
    """`adaptation` with its step factor set to 1 when, fitted without each machine, it
    made that machine's steps worse than no factor on every machine held out; and why
    ("" when kept). A factor nobody could check (one machine) is kept."""
    if not held_out or any(v["mape_default"] < v["mape_none"] for v in held_out.values()):
        return adaptation, ""
    worse = ", ".join(f"{m} {v['mape_none']:.1%} -> {v['mape_default']:.1%}"
                      for m, v in held_out.items())
    why = (f"step factor x{adaptation.step_factor:.3f} not shipped: fitted without each "
           f"machine it made that machine's steps worse than none ({worse})")
    return dataclasses.replace(adaptation, step_factor=1.0), why


def save(adaptation: Adaptation, machines: dict[str, Adaptation], report: dict[str, Any],
         folder: Path) -> Path:
    import json

    from ..atomicio import atomic_write_bytes
    from ..models.manifest import write_manifest

    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(folder / OTHER_MACHINES_FILE,
                       (json.dumps(adaptation.to_dict(), indent=1) + "\n").encode())
    atomic_write_bytes(folder / MACHINES_FILE, (json.dumps(
        {m: a.to_dict() for m, a in sorted(machines.items())}, indent=1) + "\n").encode())
    atomic_write_bytes(folder / "report.json", (json.dumps(report, indent=1) + "\n").encode())
    write_manifest(folder)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", type=Path,
                        help="a dataset, or a folder of them, measured on a machine other "
                             "than the bundle's; repeatable (default: every one under data/)")
    parser.add_argument("--hardware", default="host-cpu")
    parser.add_argument("--save", type=Path,
                        help="where to write it (default: the bundle's other_machines/)")
    parser.add_argument("--tracking-uri", help="MLflow tracking URI "
                                               "(default sqlite:///mlflow.db)")
    parser.add_argument("--no-track", action="store_true", help="do not log an MLflow run")
    args = parser.parse_args(argv)

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        models = load_models(args.hardware)
        if models is None:
            raise InvalidArgumentError(f"no bundled learned model for {args.hardware}")
        if not args.no_track:
            from .tracking import configure_checked

            configure_checked(args.tracking_uri, "stablecost-other-machines")
        roots = args.data or [ROOT / "data"]
        datasets = [d for root in roots for d in other_machines(root, models)]
        if not datasets:
            raise InvalidArgumentError(f"no {args.hardware} dataset of another machine under "
                                       f"{', '.join(map(str, roots))}")
        residuals: dict[str, list[Residual]] = {}
        for dataset in datasets:
            info = store.DatasetInfo.read(dataset)
            rows = dataset_residuals(dataset, models, dataset_hardware(dataset), say)
            residuals.setdefault(info.fingerprint_id, []).extend(rows)
        adaptation = default_adaptation(models, residuals)
        held_out = held_out_steps(residuals)
        fitted_step = adaptation.step_factor
        adaptation, dropped = checked_step_factor(adaptation, held_out)
        own = {m: machine_adaptation(models, m, rows) for m, rows in residuals.items()}
        report = {"datasets": [str(d.relative_to(ROOT) if d.is_relative_to(ROOT) else d)
                               for d in datasets], "held_out": held_out,
                  "step_factor_fitted": fitted_step, "step_factor_dropped": dropped,
                  "machines_own_check": {m: check for m, (_, check) in own.items()}}
        folder = save(adaptation, {m: a for m, (a, _) in own.items()}, report,
                      args.save or models.path / OTHER_MACHINES)
    except StablecostError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"fitted on {len(residuals)} machines ({', '.join(adaptation.machines)}): step "
          f"x{adaptation.step_factor:.3f}, kernels x{adaptation.default_kernel_factor:.3f} "
          f"by default; saved to {folder}")
    if dropped:
        print(dropped)
    print("| machine | step samples | step factor fitted without it | MAPE, no adaptation "
          "| MAPE, the others' default |")
    print("|---|---:|---:|---:|---:|")
    for machine, v in held_out.items():
        print(f"| {machine} | {v['steps']:.0f} | x{v['factor']:.3f} | {v['mape_none']:.1%} | "
              f"{v['mape_default']:.1%} |")
    print("\neach machine's own factors (used on that machine):")
    print("| machine | step factor | kernels by default | check: steps before -> after | "
          "kernel sums before -> after |")
    print("|---|---:|---:|---:|---:|")
    for machine, (own_factors, check) in own.items():
        cells = [f"{check[k]['mape_before']:.1%} -> {check[k]['mape_after']:.1%}"
                 if k in check else "-" for k in ("step", "kernel")]
        print(f"| {machine} | x{own_factors.step_factor:.3f} | "
              f"x{own_factors.default_kernel_factor:.3f} | {cells[0]} | {cells[1]} |")
    if not args.no_track:
        import mlflow

        with mlflow.start_run(run_name=f"other-machines-{args.hardware}"):
            mlflow.log_params({"hardware": args.hardware, "machines": ",".join(
                adaptation.machines), "bundle_digest": adaptation.bundle_digest})
            mlflow.log_metrics({"step_factor": adaptation.step_factor,
                                "default_kernel_factor": adaptation.default_kernel_factor,
                                **{f"held_out_mape_default_{m}": v["mape_default"]
                                   for m, v in held_out.items()}})
            mlflow.log_artifacts(str(folder), "other_machines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
