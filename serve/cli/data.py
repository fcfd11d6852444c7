"""The dataset commands of the `stablecost` CLI.

    stablecost collect kernels|programs [--out DIR] [--budget-minutes N] [--max-samples N]
                                        [--families A,B] [--seed S] [--flush-caches]
                                        [--ray [ADDRESS]] [--hosts-dir DIR]
    stablecost collect programs --tier large ...      (the zoo's large sizes)
    stablecost collect kernels --from-programs PATH [--out DIR] [--families A,B] ...
    stablecost collect profiles --from-programs PATH [--out DIR] [--families A,B] ...
    stablecost dataset info|validate|split|noise PATH
    stablecost dataset validate PATH [--parse] [--write-manifest]
    stablecost import aiconfigurator|neusight PATH [--out DIR]

Damaged, foreign or malformed data (see `datasets/store/integrity.py`): `validate` lists
every item and exits 1; `info` leaves such items out and names each in a warning on
stderr; `split` refuses with a one-line error (exit 2); `collect` sets damaged journal
lines aside and names them, and refuses a damaged shard.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
from typing import Any

from . import checks
from .console import make_console

DEFAULT_DATA_DIR = "stablecost-data"
EXIT_INVALID_DATA = 1


def add_parsers(sub: Any, parser_class: type) -> None:
    collect = sub.add_parser("collect", help="measure kernels or whole programs on this machine")
    collect.add_argument("what", choices=("kernels", "programs", "profiles"),
                         help="profiles: the steps of stored programs (--from-programs) "
                              "timed under XLA's profiler, each kernel's time inside the step")
    collect.add_argument("--out", default=DEFAULT_DATA_DIR,
                         help=f"dataset root (default {DEFAULT_DATA_DIR}); re-runs resume")
    collect.add_argument("--budget-minutes", type=float, default=None,
                         help="stop starting new samples after this long (default: kernels "
                              "10 min, programs the whole sweep)")
    collect.add_argument("--max-samples", type=int, default=None,
                         help="the sweep is its first N samples (re-runs complete it)")
    collect.add_argument("--families", default=None,
                         help="comma-separated op/model families (default: all)")
    collect.add_argument("--seed", type=int, default=0, help="sweep seed (default 0)")
    collect.add_argument("--tier", choices=("zoo", "large"), default="zoo",
                         help="programs: the zoo's sizes (default) or its large tier, whose "
                              "data outgrow a CPU's caches (steps of 0.06-7 s on 2 cores)"),
    collect.add_argument("--from-programs", default=None, metavar="PATH",
                         help="kernels: time the fused kernels of the program rows of the "
                              "dataset(s) under PATH, each distinct kernel once, instead of "
                              "the kernel templates (--families then names program "
                              "families; default budget: all of them)")
    collect.add_argument("--flush-caches", action="store_true",
                         help="evict CPU caches before every timed call (cold timings)")
    collect.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                         help="spread the sweep over the nodes of a Ray cluster, one collector "
                              "per node (needs stablecost[ray]); no ADDRESS starts a local "
                              "cluster, which on one machine is for testing only")
    collect.add_argument("--hosts-dir", default=None,
                         help="with --ray: where each host keeps its own dataset, on its own "
                              "disk (default <out>.hosts)")

    dataset = sub.add_parser("dataset", help="inspect, check, split a measurement dataset")
    dsub = dataset.add_subparsers(dest="action", required=True, parser_class=parser_class)
    info = dsub.add_parser("info", help="rows per kind, family, dtype and source")
    info.add_argument("path")
    info.add_argument("--json", action="store_true")
    validate = dsub.add_parser("validate", help="check every file, shard, row and journal "
                               "line; exit 1 on a problem")
    validate.add_argument("path")
    validate.add_argument("--parse", action="store_true",
                          help="also load every sample's StableHLO (slow)")
    validate.add_argument("--write-manifest", action="store_true",
                          help="first record in manifest.json the checksum of every shard "
                               "that passes the checks and is not listed yet (datasets "
                               "written before manifests), and forget listed shards that "
                               "are gone; then validate")
    split = dsub.add_parser("split", help="deterministic grouped train/val/test split")
    split.add_argument("path")
    split.add_argument("--seed", type=int, default=0)
    split.add_argument("--fractions", default="0.7,0.15,0.15", help="train,val,test")
    split.add_argument("--out", default=None, help="write sample_id,split as CSV here")
    noise = dsub.add_parser("noise", help="re-measure rows; report run-to-run error")
    noise.add_argument("path")
    noise.add_argument("--samples", type=int, default=100, help="rows to re-measure (default 100)")
    noise.add_argument("--seed", type=int, default=0)
    noise.add_argument("--json", action="store_true")

    imp = sub.add_parser("import", help="import public GPU measurements")
    imp.add_argument("source", choices=("aiconfigurator", "neusight"))
    imp.add_argument("path", help="the project's data folder (see ../shared/data/README.md)")
    imp.add_argument("--out", default=DEFAULT_DATA_DIR,
                     help=f"dataset root (default {DEFAULT_DATA_DIR}); re-runs add nothing twice")
    imp.add_argument("--jobs", type=int, default=None,
                     help="worker processes, one dataset each (default: one per core)")


def run(args: argparse.Namespace) -> int:
    if args.command == "collect":
        return _collect(args)
    if args.command == "import":
        return _import(args)
    actions = {"info": _info, "validate": _validate, "split": _split, "noise": _noise}
    return actions[args.action](args)


def _collect(args: argparse.Namespace) -> int:
    from ...datasets.collect import collect
    from ...errors import InvalidArgumentError

    families = None
    if args.families is not None:
        families = [f.strip() for f in args.families.split(",") if f.strip()]
        if not families:
            raise InvalidArgumentError(f"--families {args.families!r} names no family; give "
                                       "comma-separated names, or leave it out for all")
    if args.max_samples is not None and args.max_samples <= 0:
        raise InvalidArgumentError(f"--max-samples {args.max_samples}: must be > 0")
    checks.positive(budget_minutes=args.budget_minutes)
    checks.output_dir(args.out, "--out")
    kind = {"kernels": "kernel", "programs": "program", "profiles": "profile"}[args.what]
    budget = args.budget_minutes
    if budget is None and kind == "kernel" and args.max_samples is None \
            and args.from_programs is None:
        budget = 10.0
    if args.from_programs is not None and args.ray is not None:
        raise InvalidArgumentError("--from-programs runs on this machine only; leave out --ray")
    if kind == "profile" and args.from_programs is None:
        raise InvalidArgumentError("`collect profiles` profiles the steps of stored programs: "
                                   "give --from-programs PATH")
    if args.hosts_dir is not None and args.ray is None:
        raise InvalidArgumentError("--hosts-dir is where the hosts of a --ray fleet keep their "
                                   "datasets; give --ray too, or leave it out")
    run = collect
    if args.ray is not None:
        from ...datasets.fleet import collect_fleet

        run = functools.partial(collect_fleet, address=args.ray or None,
                                hosts_dir=args.hosts_dir)
    extra: dict[str, Any] = {} if args.from_programs is None else {
        "from_programs": args.from_programs}
    if args.tier != "zoo":
        extra["tier"] = args.tier     # `collect` refuses it for anything but programs
    summary = run(kind, args.out, budget_minutes=budget, max_samples=args.max_samples,
                  families=families, seed=args.seed, flush_caches=args.flush_caches, **extra)
    for warning in summary.warnings:
        _warn(warning)
    from rich.table import Table

    console = make_console()
    table = Table(title=f"collected {summary.kind}s into {summary.dataset}")
    for col in ("family", "new samples", "failures"):
        table.add_column(col, justify="left" if col == "family" else "right")
    for family in sorted(set(summary.measured) | set(summary.failures)):
        table.add_row(family, str(summary.measured[family]),
                      str(len(summary.failures.get(family, []))))
    console.print(table)
    console.print(f"{summary.samples} new samples in {summary.elapsed_s:.0f} s "
                  f"({summary.samples_per_min:.0f}/min); {summary.skipped_done} already measured "
                  f"were skipped; the dataset holds {summary.total_rows} rows")
    for host, path in summary.hosts.items():
        console.print(f"host {host}: its own dataset is {path}")
    for family, messages in summary.failures.items():
        console.print(f"[yellow]failed[/] {family} ({len(messages)}): {messages[0]}")
    if summary.interrupted:
        console.print("interrupted: everything measured so far is saved; run the same "
                      "command again to continue")
        return 130
    return 0


def _info(args: argparse.Namespace) -> int:
    from ...datasets import store

    out = []
    for path in store.find_datasets(args.path):
        meta = store.DatasetInfo.read(path)
        said: list[str] = []
        frame = store.read_frame(path, columns=["kind", "family", "dtype", "source", "outlier",
                                                "group_id", "timestamp"],
                                 damaged="skip", warn=said.append)
        for message in said:
            _warn(message)
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        entry: dict[str, Any] = {
            "dataset": str(path), "hardware": meta.hardware, "fingerprint": meta.fingerprint,
            "fingerprint_id": meta.fingerprint_id, "rows": len(frame),
            "groups": int(frame["group_id"].nunique()), "size_bytes": size,
            "outliers": int(frame["outlier"].sum()),
            "by_kind_family": {f"{k}/{f}": int(n) for (k, f), n in
                               frame.groupby(["kind", "family"]).size().items()},
            "by_dtype": {k: int(n) for k, n in frame["dtype"].value_counts().items()},
            "by_source": {k: int(n) for k, n in frame["source"].value_counts().items()},
            "first": str(frame["timestamp"].min()) if len(frame) else None,
            "last": str(frame["timestamp"].max()) if len(frame) else None,
            "skipped": [m.removeprefix("skipped ") for m in said if m.startswith("skipped ")],
            "unchecked": [m for m in said if not m.startswith("skipped ")],
        }
        out.append(entry)
    if args.json:
        json.dump(out if len(out) > 1 else out[0], sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    from rich.table import Table

    console = make_console()
    for e in out:
        console.print(f"[bold]{e['dataset']}[/]: {e['hardware']} ({e['fingerprint_id']}), "
                      f"{e['rows']} rows in {e['groups']} groups, "
                      f"{e['size_bytes'] / 1e6:.2f} MB, {e['outliers']} flagged outliers")
        console.print("  fingerprint: "
                      + ", ".join(f"{k}={v}" for k, v in e["fingerprint"].items()))
        table = Table()
        table.add_column("kind/family")
        table.add_column("rows", justify="right")
        for key, n in sorted(e["by_kind_family"].items()):
            table.add_row(key, str(n))
        console.print(table)
        console.print("  dtypes: " + ", ".join(f"{k} {v}" for k, v in e["by_dtype"].items()))
        sources = sorted(e["by_source"].items(), key=lambda kv: -kv[1])
        shown = ", ".join(f"{k} {v}" for k, v in sources[:6])
        more = f" and {len(sources) - 6} more" if len(sources) > 6 else ""
        console.print(f"  sources: {shown}{more}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    from ...datasets import store

    reports = store.validate(args.path, parse=args.parse, write_manifest=args.write_manifest)
    bad = 0
    for report in reports:
        update = report.manifest_update
        if update is not None and (update.added or update.forgotten):
            shards = sum(name.endswith(".parquet") for name in update.added)
            files = [name for name in update.added if not name.endswith(".parquet")]
            print(f"    manifest.json: recorded {shards} shards"
                  + (f" and {', '.join(files)}" if files else "")
                  + (f"; forgot {len(update.forgotten)} gone ({', '.join(update.forgotten)})"
                     if update.forgotten else ""))
        checked = "checksums verified" if report.checksums else "no manifest: checksums unchecked"
        if report.unchecked_lines:
            checked += f"; {report.unchecked_lines} journal lines without a checksum"
        if report.ok:
            print(f"ok  {report.dataset}: {report.rows} rows in {report.shards} shards "
                  f"({checked})")
        else:
            bad += 1
            print(f"BAD {report.dataset}: {len(report.problems)} problems ({checked})")
            for problem in report.problems[:50]:
                print(f"    {problem}")
            if len(report.problems) > 50:
                print(f"    ... and {len(report.problems) - 50} more")
        for note in report.notes:
            print(f"    note: {note}")
    return EXIT_INVALID_DATA if bad else 0


def _split(args: argparse.Namespace) -> int:
    from ...datasets import store
    from ...datasets.splits import SPLITS, assign_splits
    from ...errors import InvalidArgumentError

    try:
        fractions = [float(x) for x in args.fractions.split(",")]
    except ValueError:
        fractions = []
    if len(fractions) != 3 or not all(math.isfinite(f) for f in fractions):
        raise InvalidArgumentError(f"--fractions {args.fractions!r}: need three numbers like "
                                   "0.7,0.15,0.15")
    checks.output_file(args.out, "--out")
    frame = store.read_frame(args.path, columns=["sample_id", "group_id", "kind"], warn=_warn)
    frame["split"] = assign_splits(frame["group_id"].tolist(), args.seed, fractions)
    for split in SPLITS:
        part = frame[frame["split"] == split]
        kinds = ", ".join(f"{k} {n}" for k, n in part["kind"].value_counts().items())
        print(f"{split:5s} {len(part):7d} rows {part['group_id'].nunique():6d} groups  ({kinds})")
    if args.out:
        from pathlib import Path

        from ...atomicio import atomic_write_bytes

        atomic_write_bytes(Path(args.out),
                           frame[["sample_id", "split"]].to_csv(index=False).encode())
        print(f"wrote {args.out}")
    return 0


def _warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def _noise(args: argparse.Namespace) -> int:
    from ...datasets.noise import noise

    def progress(done: int, total: int) -> None:
        if done % 10 == 0 or done == total:
            sys.stderr.write(f"noise: re-measured {done}/{total}\n")

    report = noise(args.path, samples=args.samples, seed=args.seed, progress=progress)
    if args.json:
        json.dump(report.to_dict(), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    from rich.table import Table

    table = Table(title=f"run-to-run error of re-measured timings ({report.dataset}): "
                        "medians, and the other stored statistics in the last rows")
    for col in ("rows", "", "median err", "median |err|", "p90 |err|", "within 5%", "within 10%",
                "median CV"):
        table.add_column(col, justify="left" if col in ("rows", "") else "right")
    lines = [("all", "", report.overall)]
    lines += [("kind", k, s) for k, s in sorted(report.by_kind.items())]
    lines += [("family", k, s) for k, s in sorted(report.by_family.items())]
    lines += [("statistic", k, s) for k, s in report.by_statistic.items() if k != "median_s"]
    for label, key, s in lines:
        table.add_row(label, f"{key} ({s.rows})" if key else f"({s.rows})",
                      f"{s.median_error:+.1%}", f"{s.median_abs_error:.1%}",
                      f"{s.p90_abs_error:.1%}", f"{s.within_5pct:.0%}",
                      f"{s.within_10pct:.0%}", f"{s.median_cv:.2f}")
    console = make_console()
    console.print(table)
    for failure in report.failures[:5]:
        console.print(f"[yellow]could not re-measure[/] {failure}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from ...datasets import importers
    from ...errors import InvalidArgumentError

    if args.jobs is not None and args.jobs <= 0:
        raise InvalidArgumentError(f"--jobs {args.jobs}: must be > 0")
    run_import = {"aiconfigurator": importers.import_aiconfigurator,
                  "neusight": importers.import_neusight}[args.source]
    state = {"last": 0.0}

    def progress(done: int, total: int, label: str) -> None:
        import time

        now = time.monotonic()
        if now - state["last"] >= 5.0 or done >= total:
            state["last"] = now
            share = f" ({done / total:.0%})" if total else ""
            sys.stderr.write(f"import: {done:,}/{total:,} rows{share}, reading {label}\n")
            sys.stderr.flush()

    checks.output_dir(args.out, "--out")
    summary = run_import(args.path, args.out, progress=progress, jobs=args.jobs)
    print(summary.format())
    return 0
