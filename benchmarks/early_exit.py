"""Loops that stop on their data, priced by several rules against their stored timings.

    STABLECOST_CONFIG_DIR=<calibration only> .venv/bin/python benchmarks/early_exit.py \
        [--set never-seen-9 ...]

A `while_loop` that also stops on its data (`while i < n and not converged`) can run
from one iteration to its counter bound, and where it stops cannot be read from the
program. For every program of the stored never-seen sets timed on this machine
(`benchmarks/timings/host-cpu-<fingerprint>/<set>.json`, the sets that have judged a
model) with such a loop, this prices the step with the learned fidelity, recovers the
step at the loops' cap and run once (`models.cost_model.early_exit_cap`), and prints the
error of each rule for the point between them against the measured step (the geometric
mean of the stored rounds):

- cap: the loops run to their bound (the rule before any);
- 60 % of the cap: the loops run 60 % of the way from one iteration to their cap (the
  shipped rule until 2026-11-28);
- harmonic mean of the two ends (the shipped rule, `models.cost_model.early_exit_step`):
  the least expected absolute percentage error were the step log-uniform between them
  (the median of that range weighted by 1 / time twice, for the prior's density and for
  the error's denominator);
- geometric mean of the two ends;
- one iteration.

It times nothing. Run it with `STABLECOST_CONFIG_DIR` pointing at a directory that holds
only this machine's calibration (`hardware/host-cpu.toml`), as the sets judged models:
the bundle's default for other machines applies, no adaptation of this machine does.
Lowering and analysing the sets' programs takes a few minutes.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from _common import commit, today

RULES = ("cap", "60 % of the cap", "harmonic mean (shipped)", "geometric mean",
         "one iteration")


def rule_steps(once_s: float, cap_s: float) -> dict[str, float]:
    """Each rule's step for a program whose step takes `once_s` with its early-exit
    loops run once and `cap_s` at their cap."""
    from stablecost.models.cost_model import early_exit_step

    return {"cap": cap_s,
            "60 % of the cap": once_s + 0.6 * (cap_s - once_s),
            "harmonic mean (shipped)": early_exit_step(cap_s, 1.0 - once_s / cap_s),
            "geometric mean": math.sqrt(once_s * cap_s),
            "one iteration": once_s}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", default=None,
                        help="only these stored sets (repeatable; default: all)")
    args = parser.parse_args(argv)

    import json

    import numpy as np
    from fresh_programs import NEVER_SEEN_SETS, never_seen_programs
    from set_programs import stored_sets

    import stablecost
    from stablecost.hardware.fingerprint import fingerprint_id, local_machine
    from stablecost.models.cost_model import early_exit_cap, early_exit_share

    fingerprint = fingerprint_id(local_machine().fingerprint)
    sets = {k: v for k, v in stored_sets(fingerprint).items() if k in NEVER_SEEN_SETS}
    unknown = sorted(set(args.set or []) - set(sets))
    if unknown:
        print(f"--set {', '.join(unknown)}: no stored timings on this machine "
              f"({fingerprint[:8]}); stored: {', '.join(sets) or 'none'}", file=sys.stderr)
        return 2
    if not sets:
        print(f"no never-seen set was timed on a machine of fingerprint {fingerprint[:8]}",
              file=sys.stderr)
        return 2
    rows = []
    for which in args.set or list(sets):
        timings = json.loads(Path(sets[which]).read_text())
        for name, (build, _) in never_seen_programs(which).items():
            rounds = timings.get(name)
            if not rounds:
                continue
            analysis = stablecost.analyze(build().as_text(debug_info=True))
            if not any(loop.exits_early and loop.trip_count > 1
                       for loop in analysis.program.loops):
                continue
            p = stablecost.predict(analysis, "host-cpu", fidelity="learned")
            share = early_exit_share(analysis, [k.time_s for k in p.kernels])
            if not 0.0 < share < 1.0:
                continue
            cap_s = early_exit_cap(p.step_time_s, share)
            measured = float(np.exp(np.mean(np.log(rounds if isinstance(rounds, list)
                                                   else [rounds]))))
            rows.append((which, name, measured, rule_steps(cap_s * (1.0 - share), cap_s)))
            print(f"{which} {name}: measured {measured * 1e3:.3g} ms, cap "
                  f"{cap_s * 1e3:.3g} ms, {share:.1%} beyond one iteration",
                  file=sys.stderr, flush=True)
    if not rows:
        print("no stored program has a loop that stops on its data", file=sys.stderr)
        return 2

    print(f"# Early-exit loops priced by five rules ({today()}, commit {commit()})\n")
    print(f"{len(rows)} programs of the stored sets on machine {fingerprint[:8]} "
          f"({', '.join(sorted({r[0] for r in rows}))}); learned step, each rule's point "
          "between the loops run once and at their cap; APE against the stored timings.\n")
    print("| program | measured | " + " | ".join(RULES) + " |")
    print("|---|---:|" + "---:|" * len(RULES))
    errors = {rule: [] for rule in RULES}
    for which, name, measured, steps in rows:
        cells = []
        for rule in RULES:
            error = steps[rule] / measured - 1.0
            errors[rule].append(abs(error))
            cells.append(f"{error:+.0%}")
        print(f"| {which}: {name} | {measured * 1e3:.3g} ms | " + " | ".join(cells) + " |")
    print("| **MAPE** | | " + " | ".join(
        f"**{np.mean(errors[r]):.0%}**" for r in RULES) + " |")
    print("| median APE | | " + " | ".join(
        f"{np.median(errors[r]):.0%}" for r in RULES) + " |")
    print("| largest APE | | " + " | ".join(
        f"{np.max(errors[r]):.0%}" for r in RULES) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
