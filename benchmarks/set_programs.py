"""The stored sets' programs (fresh, never-seen to never-seen-6) as a dataset of this
machine: whole steps timed and profiled kernel by kernel, so that step models can learn
in-step kernel times from many more kinds of program than the zoo's 18 families.

    .venv/bin/python benchmarks/set_programs.py [--out DIR] [--set NAME ...]
    .venv/bin/stablecost collect profiles --from-programs DIR --out DIR

Only sets timed on a machine of this fingerprint are taken
(`benchmarks/timings/host-cpu-<fingerprint>/<set>.json`), and never a set without stored
timings: a set that has not judged a model yet stays unseen. Each program
becomes a row of kind "program" (family: the program's kind, before the "/" of its
name; group: its set and name), timed by the collector's rule for whole steps. The
dataset goes beside the sets' timings (default root
`benchmarks/timings/host-cpu-<fingerprint>/sets`), not under `data/`: what scans
`data/` for other machines' data (the bundle's default adaptation,
`train.other_machines`) must not learn from the programs that judge it. Rerunning
skips the programs already stored. It times programs: run it on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))


def stored_sets(fingerprint: str) -> dict[str, Path]:
    """Set name -> its timings file, for the sets timed on this fingerprint."""
    folder = ROOT / "benchmarks" / "timings" / f"host-cpu-{fingerprint[:8]}"
    return {path.stem: path for path in sorted(folder.glob("*.json"))}


def set_samples(which: str) -> list[Any]:
    """The set's programs as collector samples, their StableHLO lowered now."""
    from fresh_programs import NEVER_SEEN_SETS, never_seen_programs, programs

    from stablecost.datasets.collect import Sample

    chosen = never_seen_programs(which) if which in NEVER_SEEN_SETS else programs(quick=False)
    samples = []
    for name, (build, _) in chosen.items():
        kind, _, variant = name.partition("/")
        text = build().as_text(debug_info=True)
        samples.append(Sample("program", kind, variant or kind, "mixed", f"{which}:{name}",
                              {"set": which, "program": name}, stablehlo=text))
    return samples


def measure_text(sample: Any, *, flush: Any, rng: np.random.Generator) -> tuple[str, Any]:
    """Time a sample's own StableHLO (the collector's rule for whole steps)."""
    from stablecost.featurize.xla_compile import time_module
    from stablecost.hardware.timing import PROGRAM_TIMING

    del rng
    return sample.stablehlo, time_module(sample.stablehlo.encode(), sample.sample_id,
                                         PROGRAM_TIMING, flush)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None,
                        help="dataset root (default: "
                             "benchmarks/timings/host-cpu-<fingerprint>/sets)")
    parser.add_argument("--set", action="append", default=None,
                        help="only these stored sets (repeatable; default: all)")
    args = parser.parse_args(argv)

    from stablecost.datasets.collect import CollectSummary, measure_into, open_dataset
    from stablecost.hardware.fingerprint import fingerprint_id, local_machine

    machine = local_machine()
    fingerprint = fingerprint_id(machine.fingerprint)
    sets = stored_sets(fingerprint)
    if not sets:
        print(f"no stored set was timed on a machine of fingerprint {fingerprint[:8]} "
              "(benchmarks/timings/host-cpu-*/): nothing to take", file=sys.stderr)
        return 2
    unknown = sorted(set(args.set or []) - set(sets))
    if unknown:
        print(f"--set {', '.join(unknown)}: not timed on this machine; stored: "
              f"{', '.join(sets)}", file=sys.stderr)
        return 2
    out = Path(args.out or ROOT / "benchmarks" / "timings" / f"host-cpu-{fingerprint[:8]}"
               / "sets")
    with open_dataset(out, machine) as writer:
        summary = CollectSummary(writer.path, "program")
        for which in args.set or list(sets):
            samples = set_samples(which)
            measure_into(writer, machine, samples, summary, budget_s=None,
                         rng=np.random.default_rng(0), measure=measure_text)
            print(f"{which}: {len(samples)} programs; {summary.samples} measured so far, "
                  f"{summary.skipped_done} already stored", flush=True)
    failures = {k: v for k, v in summary.failures.items() if v}
    for family, messages in failures.items():
        print(f"failed: {family}: {messages[0]}", file=sys.stderr)
    print(json.dumps({"dataset": str(out), "measured": summary.samples,
                      "skipped": summary.skipped_done,
                      "failed": sum(len(v) for v in failures.values())}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
