"""What pausing the cyclic garbage collector buys while a program is loaded, analyzed
and predicted (`featurize.gcpause.gc_paused`, applied to load_program and analyze).

    .venv/bin/python benchmarks/gc_pause.py [--layers 75] [--rounds 7]

Times the cold path (parse + walk + costs + fusion + one prediction, fresh cache) of the
~10k-op training step of benchmarks/speed.py, alternating rounds with the pause and
without it (the decorator's enter/exit replaced by no-ops), and a warm predict of the
analyzed program both ways. Prints the medians and their ratio. Run it on an idle
machine.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import training_step_text  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=75)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    import stablecost
    from stablecost.featurize import gcpause
    from stablecost.serve.api import ProgramCache

    text = training_step_text(args.layers)
    real = (gcpause._enter, gcpause._exit)
    off = (lambda: None, lambda: None)

    def cold() -> None:
        stablecost.predict(text, "H100-SXM", fidelity="roofline", cache=ProgramCache(1))

    analysis = stablecost.analyze(text)

    def warm() -> None:
        stablecost.predict(analysis, "TPU-v5e", fidelity="roofline", topology=None)

    results: dict[tuple[str, bool], list[float]] = {}
    for _ in range(args.rounds):
        for paused in (True, False):
            gcpause._enter, gcpause._exit = real if paused else off
            for name, fn, repeats in (("cold", cold, 1), ("warm", warm, 20)):
                gc.collect()
                t0 = time.perf_counter()
                for _ in range(repeats):
                    fn()
                results.setdefault((name, paused), []).append(
                    (time.perf_counter() - t0) / repeats)
    gcpause._enter, gcpause._exit = real
    ops = len(analysis.program.ops)
    print(f"| path ({ops:,} ops) | GC paused | GC running | running / paused |")
    print("|---|---|---|---|")
    for name in ("cold", "warm"):
        on = statistics.median(results[(name, True)])
        off_s = statistics.median(results[(name, False)])
        print(f"| {name} | {on * 1e6:,.0f} µs | {off_s * 1e6:,.0f} µs | {off_s / on:.2f} |")


if __name__ == "__main__":
    main()
