"""Training and evaluation commands of the `stablecost` CLI.

    stablecost train xgboost --data DIR [--hardware NAME] [--target auto] [--save DIR] ...
    stablecost train gnn --data DIR [--hardware NAME] [--kernel-model DIR] [--save DIR] ...
    stablecost train in-step [--data DIR ...] [--hardware host-cpu]
        [--floor none|roofline|busy|memory] [--save DIR]
    stablecost train calibration --data DIR [--hardware NAME] [--save DIR]
    stablecost evaluate --data DIR [--hardware NAME] [--out DIR]
    stablecost evaluate --programs PATH [PATH ...]

Every training run is an MLflow run (default store: sqlite:///mlflow.db in the working
directory; `--tracking-uri` for another). `mlflow ui --backend-store-uri
sqlite:///mlflow.db` shows the runs side by side.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import checks
from .console import make_console

# `train in-step --floor`: the keys of `models.in_step.BASES` ("" named "none"), spelled
# here so the CLI starts without importing the models
NO_FLOOR = "none"
FLOOR_CHOICES = (NO_FLOOR, "roofline", "busy", "memory", "large")


def add_parsers(sub: Any, parser_class: type) -> None:
    train = sub.add_parser("train", help="train a learned cost model (tracked in MLflow)")
    tsub = train.add_subparsers(dest="model", required=True, parser_class=parser_class)
    for name, helptext in (("xgboost", "per-kernel XGBoost model"),
                           ("gnn", "per-step graph neural network")):
        p = tsub.add_parser(name, help=helptext)
        p.add_argument("--data", required=True, help="dataset or dataset root")
        p.add_argument("--hardware", default=None,
                       help="which dataset under --data (needed when it holds several)")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--tracking-uri", default=None,
                       help="MLflow tracking URI (default sqlite:///mlflow.db)")
        p.add_argument("--experiment", default="stablecost")
        p.add_argument("--no-register", action="store_true",
                       help="do not register the model in the MLflow Model Registry")
        p.add_argument("--save", default=None, help="also write the model bundle here")
        if name == "xgboost":
            p.add_argument("--target", default="auto", help="auto (default), log_time, log_ratio")
            p.add_argument("--n-estimators", type=int, default=400,
                           help="most boosting rounds; early stopping on the validation "
                                "split usually ends sooner (default 400)")
            p.add_argument("--max-depth", type=int, default=6)
            p.add_argument("--learning-rate", type=float, default=0.1)
            p.add_argument("--max-rows", type=int, default=None,
                           help="train on a random subset of this many samples")
            p.add_argument("--source", default=None, metavar="PATTERN",
                           help="only rows whose source matches this fnmatch pattern, e.g. "
                                "'*/trtllm/1.3.0rc20/*' (imported data time one program "
                                "through several libraries and versions)")
            p.add_argument("--variant", default=None, metavar="NAME[,NAME]",
                           help="only rows of these variants (e.g. bfloat16, fp8)")
            p.add_argument("--also", default=None, metavar="DATA",
                           help="another machine's dataset whose kernel samples join the "
                                "fit in their own train/val split (the reported figures stay "
                                "--data's), each priced on its own machine's spec")
            p.add_argument("--also-families", default=None, metavar="NAME[,NAME]",
                           help="with --also: only its kernel samples of these families "
                                "(default: every family)")
            p.add_argument("--select-rows", type=int, default=100_000,
                           help="with --target auto on more training rows than this, "
                                "compare the targets on a subsample of this size and fit "
                                "only the winner on all rows (default 100000)")
        else:
            p.add_argument("--kernel-model", default=None,
                           help="kernel model bundle (default: the bundled one for the hardware)")
            p.add_argument("--target", default="auto", help="auto (default), direct, residual")
            p.add_argument("--epochs", type=int, default=200)
            p.add_argument("--hidden", type=int, default=32,
                           help="width of the node embeddings (default 32)")
            p.add_argument("--layers", type=int, default=2,
                           help="message-passing layers (default 2)")
            p.add_argument("--lr", type=float, default=3e-3)
            p.add_argument("--batch-size", type=int, default=16)
            p.add_argument("--members", type=int, default=3,
                           help="networks in the ensemble, trained from seeds SEED, SEED+1, "
                                "... (with --target auto each target is fitted as the whole "
                                "ensemble); "
                                "predictions are their geometric mean (default 3)")
            p.add_argument("--threads", type=int, default=None,
                           help="torch threads while fitting (default: torch's own; 1 is "
                                "several times faster on a small shared VM)")

    in_step = tsub.add_parser(
        "in-step", help="in-step corrector over the bundled kernel model, from step profiles "
                        "(refit the calibration after it)")
    in_step.add_argument("--data", action="append", default=None,
                         help="a dataset with step profiles (repeatable; default: every "
                              "stored dataset of the chip under data/ that has them)")
    in_step.add_argument("--hardware", default="host-cpu",
                         help="the bundle to correct (default host-cpu)")
    in_step.add_argument("--seed", type=int, default=0, help="split and tree seed")
    in_step.add_argument("--floor", choices=FLOOR_CHOICES, default=None,
                         help="what the trees correct: the kernel model's answer (none), "
                              "or that answer raised to the roofline time (roofline), its "
                              "busy time alone (busy) or its memory time alone (memory) on "
                              "kernels without a dot, or to the memory time on those of "
                              "them run once per step that move 1 MiB or more (large) "
                              "(default: the bundle's own choice)")
    in_step.add_argument("--tracking-uri", default=None,
                         help="MLflow tracking URI (default sqlite:///mlflow.db)")
    in_step.add_argument("--experiment", default="stablecost")
    in_step.add_argument("--save", default=None,
                         help="write it here (default: models/bundled/<hardware>/in_step)")

    calibration = tsub.add_parser(
        "calibration", help="step calibration over the bundled kernel model (five terms)")
    calibration.add_argument("--data", required=True, help="dataset or dataset root")
    calibration.add_argument("--hardware", default=None,
                             help="which dataset under --data (needed when it holds several)")
    calibration.add_argument("--seed", type=int, default=0, help="split seed")
    calibration.add_argument("--tracking-uri", default=None,
                             help="MLflow tracking URI (default sqlite:///mlflow.db)")
    calibration.add_argument("--experiment", default="stablecost")
    calibration.add_argument("--save", default=None,
                             help="write it here (default: into the bundle the kernel model "
                                  "comes from, models/bundled/<hardware>/step_calibration)")

    evaluate = sub.add_parser("evaluate", help="fidelity report on the held-out test split, "
                                               "or your own programs against their measured "
                                               "step (--programs)")
    what = evaluate.add_mutually_exclusive_group(required=True)
    what.add_argument("--data", help="dataset or dataset root")
    what.add_argument("--programs", nargs="+", metavar="PATH",
                      help=".mlir/.mlirbc files or directories of them: time each on this "
                           "machine (fidelity measured) and score learned and roofline "
                           "against it")
    evaluate.add_argument("--hardware", default=None)
    evaluate.add_argument("--out", default="fidelity-report", help="report directory")
    evaluate.add_argument("--seed", type=int, default=0, help="split seed used in training")


def run(args: argparse.Namespace) -> int:
    if args.command == "evaluate":
        return _evaluate(args)
    return _train(args)


def _say(message: str) -> None:
    sys.stderr.write(f"train: {message}\n")
    sys.stderr.flush()


def _train(args: argparse.Namespace) -> int:
    from ...errors import InvalidArgumentError
    from ...train.data import pick_dataset

    checks.output_dir(args.save, "--save")
    if args.model == "in-step":
        import json

        from ...train.in_step import DEFAULT_FLOOR, train_in_step

        for data in args.data or []:
            pick_dataset(data, args.hardware)
        checks.tracking_store(args.tracking_uri, args.experiment)
        path, report = train_in_step(
            args.data, hardware=args.hardware, seed=args.seed, save=args.save,
            floor=DEFAULT_FLOOR if args.floor is None else
            "" if args.floor == NO_FLOOR else args.floor,
            tracking_uri=args.tracking_uri, experiment=args.experiment, say=_say)
        print(json.dumps(report, indent=1))
        print(f"saved {path}")
        return 0
    if args.model == "calibration":
        import json

        from ...train.step_calibration import train_step_calibration

        pick_dataset(args.data, args.hardware)
        checks.tracking_store(args.tracking_uri, args.experiment)
        path, report = train_step_calibration(
            args.data, hardware=args.hardware, seed=args.seed, save=args.save,
            tracking_uri=args.tracking_uri, experiment=args.experiment)
        print(json.dumps(report, indent=1))
        print(f"saved {path}")
        return 0
    if args.model == "xgboost":
        from ...train.xgboost_train import train_xgboost

        checks.positive(n_estimators=args.n_estimators, max_depth=args.max_depth,
                        learning_rate=args.learning_rate, max_rows=args.max_rows,
                        select_rows=args.select_rows)
        pick_dataset(args.data, args.hardware)   # before MLflow makes a store for nothing
        if args.also_families and not args.also:
            raise InvalidArgumentError("--also-families needs --also DATA")
        if args.also:
            pick_dataset(args.also, None)
        checks.tracking_store(args.tracking_uri, args.experiment)
        result = train_xgboost(
            args.data, hardware=args.hardware, seed=args.seed, target=args.target,
            n_estimators=args.n_estimators, max_depth=args.max_depth,
            learning_rate=args.learning_rate, max_rows=args.max_rows, source=args.source,
            variants=tuple(v for v in (args.variant or "").split(",") if v) or None,
            select_rows=args.select_rows, also=args.also,
            also_families=tuple(v for v in (args.also_families or "").split(",") if v) or None,
            tracking_uri=args.tracking_uri, experiment=args.experiment,
            register=not args.no_register, save=args.save, progress=_say)
    else:
        from ...train.gnn_train import train_gnn

        checks.positive(epochs=args.epochs, hidden=args.hidden, layers=args.layers, lr=args.lr,
                        batch_size=args.batch_size, members=args.members,
                        threads=args.threads)
        pick_dataset(args.data, args.hardware)
        checks.tracking_store(args.tracking_uri, args.experiment)
        result = train_gnn(
            args.data, hardware=args.hardware, kernel_model_dir=args.kernel_model,
            seed=args.seed, epochs=args.epochs, hidden=args.hidden, layers=args.layers,
            lr=args.lr, batch_size=args.batch_size, members=args.members, threads=args.threads,
            target=args.target,
            tracking_uri=args.tracking_uri, experiment=args.experiment,
            register=not args.no_register, save=args.save, progress=_say)
    _print_result(result)
    return 0


def _print_result(result: Any) -> None:
    from rich.table import Table

    console = make_console()
    m = result.metrics
    console.print(f"[bold]{result.model}[/] on {result.hardware}: kept target "
                  f"[bold]{result.choice}[/]; MLflow run {result.run_id} in {result.tracking_uri}")
    table = Table(title="accuracy per measured sample (learned vs roofline)")
    for col in ("split", "fidelity", "n", "MAPE", "median APE", "within 10%", "within 25%",
                "Kendall tau"):
        table.add_column(col, justify="left" if col in ("split", "fidelity") else "right")
    for split in ("val", "test"):
        for label, prefix in (("learned", split), ("roofline", f"roofline_{split}"),
                              ("kernel sum", f"kernelsum_{split}")):
            if f"{prefix}_mape" not in m:
                continue
            table.add_row(split, label, f"{m.get(f'{prefix}_n', 0):.0f}",
                          f"{m[f'{prefix}_mape']:.1%}", f"{m[f'{prefix}_median_ape']:.1%}",
                          f"{m[f'{prefix}_within_10pct']:.0%}",
                          f"{m[f'{prefix}_within_25pct']:.0%}",
                          f"{m.get(f'{prefix}_kendall_tau', float('nan')):.3f}")
    console.print(table)
    if result.per_family:
        fam = Table(title="test split per family (learned)")
        for col in ("family", "n", "MAPE", "median APE", "within 10%"):
            fam.add_column(col, justify="left" if col == "family" else "right")
        for family, s in result.per_family.items():
            fam.add_row(family, str(s["n"]), f"{s['mape']:.1%}", f"{s['median_ape']:.1%}",
                        f"{s['within_10pct']:.0%}")
        console.print(fam)
    if result.registered_version:
        state = "now the champion" if result.champion else "champion unchanged (not better)"
        console.print(f"registered version {result.registered_version}: {state}")
    if result.saved_to:
        console.print(f"bundle written to {result.saved_to}")
    for note in result.notes:
        console.print(f"[yellow]note:[/] {note}")


def _evaluate(args: argparse.Namespace) -> int:
    if args.programs:
        from .scoring import run as score_programs

        return score_programs(args.programs, args.hardware)
    from ...train.evaluate import evaluate

    checks.output_dir(args.out, "--out")
    result = evaluate(args.data, hardware=args.hardware, out=args.out, seed=args.seed,
                      progress=_say)
    for scope, table in (("kernel samples", result.kernels), ("programs", result.programs)):
        for fidelity, s in table.items():
            if s.get("n"):
                print(f"{scope:14s} {fidelity:12s} n={s['n']:4d}  MAPE {s['mape']:7.1%}  "
                      f"median APE {s['median_ape']:6.1%}  within 10% {s['within_10pct']:4.0%}")
    print(f"fidelity report: {result.report}")
    return 0
