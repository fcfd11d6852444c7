"""benchmarks/leave_one_machine_out.py: the pooled figures it prints, and bad options."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import leave_one_machine_out as lomo  # noqa: E402


def result(measured, learned, low=0.5, high=2.0):
    measured, learned = np.asarray(measured, float), np.asarray(learned, float)
    return {"family": np.array(["a"] * len(measured)), "measured": measured,
            "learned": learned, "roofline": measured * 2.0,
            "low": learned * low, "high": learned * high}


def test_level_is_the_median_ratio_and_rescaling_removes_it():
    measured = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    # every step priced at twice its time: the level is x0.5 and nothing is left at it
    lines, pooled = lomo.summary_rows(result(measured, measured * 2.0), "m")
    assert pooled["level"] == pytest.approx(0.5)
    assert pooled["mape"] == pytest.approx(1.0)
    assert pooled["mape_at_level"] == pytest.approx(0.0)
    assert pooled["roofline_mape"] == pytest.approx(1.0)
    assert len(lines) == 1 and lines[0].startswith("| m | a | 5 |")


def test_interval_share_counts_steps_between_the_bounds():
    measured = np.ones(4)
    learned = np.array([1.0, 0.4, 3.0, 1.5])    # inside, above high, under low, inside
    _, pooled = lomo.summary_rows(result(measured, learned), "m")
    assert pooled["inside_interval"] == pytest.approx(0.5)
    assert pooled["median_width"] == pytest.approx(4.0)


@pytest.mark.parametrize("argv, message", [
    (["--params", "{not json"], "--params: not a JSON object"),
    (["--params", "[1, 2]"], "--params: expected a JSON object"),
    (["--rounds", "0"], "--rounds 0: must be at least 1"),
])
def test_bad_options_exit_2_with_one_line(argv, message, capsys):
    import stablecost.models.in_step as in_step

    params, rounds = dict(in_step.TREE_PARAMS), in_step.TREE_ROUNDS
    try:
        assert lomo.main(argv) == 2
    finally:
        in_step.TREE_PARAMS, in_step.TREE_ROUNDS = params, rounds
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {message}") and "\n" not in err
