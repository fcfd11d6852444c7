"""Small loop programs (a `lax.scan` RNN cell) measured on this machine against the
learned and roofline predictions.

    .venv/bin/python benchmarks/loop_programs.py [--hardware host-cpu]

Each program is a scan of `tanh(h @ w + x @ u)` over T steps (hidden H, batch B), too
small for the step GNN; it is timed with the collector's program timing rule and
predicted at `fidelity="all"`. Prints one row per program and whether the learned
fidelity fell back to the roofline (models/cost_model.py, LOOP_FALLBACK_SHARE). Run
it on an idle machine.
"""

from __future__ import annotations

import argparse

CONFIGS = ((64, 128, 8), (64, 256, 16), (256, 64, 4), (16, 512, 32))


def scan_rnn(steps: int, hidden: int, batch: int):
    import jax
    import jax.numpy as jnp

    def step(w, u, xs):
        def cell(h, x):
            h = jnp.tanh(h @ w + x @ u)
            return h, h
        return jax.lax.scan(cell, jnp.zeros((batch, hidden)), xs)[1].sum()

    args = (jnp.ones((hidden, hidden)) * 0.01, jnp.ones((hidden, hidden)) * 0.01,
            jnp.ones((steps, batch, hidden)))
    return jax.jit(step).lower(*args), args


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hardware", default="host-cpu")
    args = parser.parse_args()

    import stablecost
    from stablecost.datasets.collect import PROGRAM_TIMING
    from stablecost.hardware.timing import blocking, measure

    print("| T x H x B | measured | learned | error | roofline | error | learned fell back |")
    print("|---|---|---|---|---|---|---|")
    for steps, hidden, batch in CONFIGS:
        lowered, inputs = scan_rnn(steps, hidden, batch)
        measured = measure(blocking(lowered.compile(), *inputs), **PROGRAM_TIMING).median_s
        p = stablecost.predict(lowered.as_text(), args.hardware, fidelity="all")
        learned = p.by_fidelity["learned"].step_time_s
        roofline = p.by_fidelity["roofline"].step_time_s
        fell_back = any("priced by the roofline" in n for n in p.notes)
        print(f"| {steps} x {hidden} x {batch} | {measured * 1e6:,.0f} µs | "
              f"{learned * 1e6:,.0f} µs | {learned / measured - 1:+.0%} | "
              f"{roofline * 1e6:,.0f} µs | {roofline / measured - 1:+.0%} | "
              f"{'yes' if fell_back else 'no'} |")


if __name__ == "__main__":
    main()
