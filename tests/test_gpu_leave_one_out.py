"""benchmarks/gpu_leave_one_out.py's split of a held-out chip's error into one factor
for the whole chip (bias) and what is left once it is divided out (scatter)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from gpu_leave_one_out import bias_split  # noqa: E402


def test_bias_split_pure_bias():
    # every prediction 1.2x the measurement: bias 1.2, nothing left over
    assert bias_split([1.0, 2.0, 4.0], [1.2, 2.4, 4.8]) == (pytest.approx(1.2), pytest.approx(0.0))


def test_bias_split_bias_and_scatter():
    # ratios 1.1, 1.2, 1.1, 0.88 -> median 1.1; over it 1, 1.0909, 1, 0.8
    # -> |.-1| = 0, 0.0909, 0, 0.2 -> median (0 + 0.0909) / 2 = 0.04545
    bias, scatter = bias_split([1.0, 2.0, 4.0, 10.0], [1.1, 2.4, 4.4, 8.8])
    assert bias == pytest.approx(1.1)
    assert scatter == pytest.approx(0.1 / 1.1 / 2)
