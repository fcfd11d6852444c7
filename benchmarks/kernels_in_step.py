"""Where inside a step the learned fidelity misprices a program: each kernel class's
measured time inside the step (XLA's profiler) next to its learned time.

    .venv/bin/python benchmarks/kernels_in_step.py [--set never-seen-2 ...] [--program NAME ...]
        [--top 6] [--thunks 0] [--hardware host-cpu] [--warm-cold N]

For each program of a committed never-seen set (`fresh_programs.py --set`; the set's
hash is checked) or of `fresh_programs.py`'s own list (`--set fresh`), it runs
`predict(..., fidelity="measured")`, which times the step on this machine and splits
the measured step over the kernels by their profiled in-step times, and
`predict(..., fidelity="learned")` on the same analysis, then groups the kernels by
kind and opcode set and prints the groups that take the most measured time: measured
ms, learned ms and their ratio. A ratio far above 1 is time inside the step that the
learned model does not see (or that the profile's split of a thunk among our kernels
puts there: a thunk XLA fused differently from our kernels is shared out by FLOPs and
bytes, `featurize/step_profile.py`).

`--thunks N` profiles each program once more and prints its N longest XLA thunks (by
exclusive time per step) with the kernels of ours whose ops each holds: where XLA
fused, duplicated or split our kernels differently, and which library ran a dot
(`ynn_fusion*`: YNNPACK; `dot.*`: XLA's own dot thunk).

`--warm-cold N` also cuts each program's N non-dot kernels that take the most time inside
the step and move at least 256 KiB (`featurize.outline`) into executables of their own
and times each one alone twice: warm (the collector's rule for kernel samples: the same
inputs call after call, as the kernel model's training data was timed) and cold (the
last-level cache evicted before every call, `hardware.timing.CacheEvictor`). The table
at the end compares each kernel's time inside the step with the two, with its learned
and its roofline time, by bytes moved: how far the warm-cache labels the kernel model
learns from are from what a kernel costs inside a step. `--set` may be repeated.

It times programs: run it on an idle machine, on one CPU device (the measured fidelity
splits the step by the profile only there). Running it on a never-seen set does not
spend the set's judgement of a model (no model is scored), but looking at it before
choosing a model does: use it on a set that has already judged one.
"""

from __future__ import annotations

import argparse
import collections
import sys

from _common import commit, today
from fresh_programs import NEVER_SEEN_SETS, never_seen_programs, programs


def kernel_groups(measured, learned) -> dict[tuple[str, str], list[float]]:
    """(kind, opcodes) -> [measured s, learned s, kernels] summed over the step's kernels
    (times per step: count x per-execution time)."""
    by_index = {k.index: k for k in learned.kernels}
    groups: dict[tuple[str, str], list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for k in measured.kernels:
        key = (k.kind, ",".join(sorted(set(k.ops))))
        twin = by_index.get(k.index)
        groups[key][0] += k.total_time_s
        groups[key][1] += twin.total_time_s if twin is not None else 0.0
        groups[key][2] += 1
    return groups


WARM_COLD_MIN_BYTES = 256 * 1024
WARM_COLD_BUCKETS = ((256 * 1024, 1 << 20), (1 << 20, 4 << 20), (4 << 20, float("inf")))


def warm_cold_rows(text: str, name: str, measured, learned, roofline, top: int,
                   evict) -> list[dict[str, float]]:
    """The `top` non-dot kernels of the step (by time inside it) that move at least
    WARM_COLD_MIN_BYTES, each timed alone warm and cold: per execution, seconds."""
    from stablecost.featurize.outline import outline
    from stablecost.featurize.xla_compile import time_module
    from stablecost.hardware.timing import KERNEL_TIMING

    twins = [{k.index: k for k in p.kernels} for p in (learned, roofline)]
    chosen = sorted((k for k in measured.kernels if k.kind in ("loop", "reduction")
                     and k.bytes_accessed >= WARM_COLD_MIN_BYTES and k.count > 0),
                    key=lambda k: -k.total_time_s)[:top]
    if not chosen:
        return []
    alone = {k.index: k for k in outline(text, name).kernels}
    rows = []
    for k in chosen:
        if k.index not in alone or k.index not in twins[0] or k.index not in twins[1]:
            continue
        data = alone[k.index].text.encode()
        warm = time_module(data, f"{name}#{k.index}", KERNEL_TIMING, None).median_s
        cold = time_module(data, f"{name}#{k.index}", KERNEL_TIMING, evict).median_s
        rows.append({"bytes": k.bytes_accessed, "in_step": k.time_s, "warm": warm,
                     "cold": cold, "learned": twins[0][k.index].time_s,
                     "roofline": twins[1][k.index].time_s})
    return rows


def print_warm_cold(rows: list[dict[str, float]]) -> None:
    import numpy as np

    print("\n### Kernels inside the step against the same kernels timed alone\n")
    print("Per kernel, log2 of its time inside the step over each other time; median "
          "(as a factor) and mean absolute log2 (1.0: a factor 2 typical either way).\n")
    print("| bytes moved | kernels | in step / warm alone | in step / cold alone | "
          "in step / learned | in step / roofline |")
    print("|---|---:|---|---|---|---|")
    for low, high in WARM_COLD_BUCKETS:
        chosen = [r for r in rows if low <= r["bytes"] < high and r["in_step"] > 0
                  and r["learned"] > 0 and r["roofline"] > 0]
        if not chosen:
            continue
        cells = []
        for other in ("warm", "cold", "learned", "roofline"):
            ratio = np.log2([r["in_step"] / r[other] for r in chosen])
            cells.append(f"x{2 ** np.median(ratio):.2f} ({np.mean(np.abs(ratio)):.2f})")
        span = f"{low / 2**20:g}-{high / 2**20:g} MiB" if high < float("inf") else \
            f">= {low / 2**20:g} MiB"
        print(f"| {span} | {len(chosen)} | " + " | ".join(cells) + " |")


def print_thunks(text: str, analysis, name: str, top: int) -> None:
    """Profile `text` once and print its `top` longest thunks with our kernels in each
    (kernel indexes are `analysis`'s: the profile analyzes the same program)."""
    from stablecost.featurize.step_profile import profile_step

    profile = profile_step(text, name)
    kernels = {k.index: k for k in analysis.kernels}
    ops = analysis.program.ops
    print(f"\nLongest XLA thunks ({profile.thunks} in all), exclusive ms per step:\n")
    print("| thunk | ms | our kernels in it |")
    print("|---|---:|---|")
    for thunk, (seconds, held) in sorted(profile.thunk_s.items(),
                                         key=lambda kv: -kv[1][0])[:top]:
        what = "; ".join(
            f"{kernels[i].kind}: {','.join(sorted({ops[o].opcode for o in kernels[i].ops}))}"
            for i in held[:3]) + (f"; ... ({len(held)} kernels)" if len(held) > 3 else "")
        print(f"| {thunk} | {seconds * 1e3:.2f} | {what or 'none (unmapped)'} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("fresh", *NEVER_SEEN_SETS), action="append",
                        help="a committed set of programs (repeatable; default never-seen-2)")
    parser.add_argument("--program", action="append", default=None,
                        help="only these programs of the set (repeatable)")
    parser.add_argument("--top", type=int, default=6, help="groups shown per program")
    parser.add_argument("--thunks", type=int, default=0,
                        help="also print each program's N longest XLA thunks")
    parser.add_argument("--hardware", default="host-cpu")
    parser.add_argument("--warm-cold", type=int, default=0, metavar="N",
                        help="also time each program's N largest non-dot kernels alone, "
                             "warm and cold, and print the comparison")
    args = parser.parse_args()
    if args.top < 1 or args.thunks < 0 or args.warm_cold < 0:
        parser.error(f"--top {args.top} / --thunks {args.thunks} / --warm-cold "
                     f"{args.warm_cold}: need --top >= 1, --thunks >= 0, --warm-cold >= 0")
    sets = args.set or ["never-seen-2"]
    chosen = {}
    for which in sets:
        chosen.update(never_seen_programs(which) if which in NEVER_SEEN_SETS
                      else programs(quick=False))
    names = args.program or list(chosen)
    unknown = sorted(set(names) - set(chosen))
    if unknown:
        parser.error(f"--program {', '.join(unknown)}: not in --set {', '.join(sets)}; "
                     f"they have {', '.join(chosen)}")

    import stablecost

    evict = None
    if args.warm_cold:
        from stablecost.hardware.timing import CacheEvictor

        evict = CacheEvictor()
    given = " ".join(f"--set {s}" for s in sets)
    print(f"## Kernels inside the step, {given} ({today()}, commit {commit()})\n")
    print(f"Command: `.venv/bin/python benchmarks/kernels_in_step.py {given}"
          + (f" --warm-cold {args.warm_cold}" if args.warm_cold else "") + "`\n")
    warm_cold: list[dict[str, float]] = []
    for name in names:
        text = chosen[name][0]().as_text(debug_info=True)
        analysis = stablecost.analyze(text)
        measured = stablecost.predict(analysis, args.hardware, fidelity="measured")
        learned = stablecost.predict(analysis, args.hardware, fidelity="learned")
        profiled = any("inside the step" in note for note in measured.notes)
        print(f"### {name}: measured {measured.step_time_s * 1e3:.2f} ms, learned "
              f"{learned.step_time_s * 1e3:.2f} ms"
              + ("" if profiled else " (kernel rows: roofline shares, no profile)") + "\n")
        print("| kind | opcodes | kernels | measured in step | learned | measured / learned |")
        print("|---|---|---:|---:|---:|---:|")
        groups = kernel_groups(measured, learned)
        for (kind, ops), (m, lt, n) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:args.top]:
            ratio = f"{m / lt:.2f}" if lt > 0 else "-"
            print(f"| {kind} | {ops[:80]} | {n:.0f} | {m * 1e3:.2f} ms | {lt * 1e3:.2f} ms | "
                  f"{ratio} |")
        if args.thunks:
            print_thunks(text, analysis, name, args.thunks)
        if args.warm_cold and profiled:
            roofline = stablecost.predict(analysis, args.hardware, fidelity="roofline")
            warm_cold += warm_cold_rows(text, name, measured, learned, roofline,
                                        args.warm_cold, evict)
        print(flush=True)
    if args.warm_cold:
        print_warm_cold(warm_cold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
