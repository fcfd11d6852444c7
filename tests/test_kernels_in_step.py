"""benchmarks/kernels_in_step.py's grouping of a step's kernels by kind and opcodes."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from kernels_in_step import kernel_groups  # noqa: E402


def _kernel(index, kind, ops, total_s):
    return SimpleNamespace(index=index, kind=kind, ops=ops, total_time_s=total_s)


def test_kernels_group_by_kind_and_opcode_set_with_their_learned_twins():
    measured = SimpleNamespace(kernels=[
        _kernel(0, "loop", ("maximum", "broadcast_in_dim", "constant"), 3e-3),
        _kernel(1, "loop", ("constant", "maximum", "broadcast_in_dim", "maximum"), 1e-3),
        _kernel(2, "matmul", ("dot_general",), 2e-3),
        _kernel(3, "matmul", ("dot_general",), 1e-3)])
    learned = SimpleNamespace(kernels=[
        _kernel(0, "loop", (), 1e-4), _kernel(1, "loop", (), 1e-4),
        _kernel(2, "matmul", (), 1e-3)])       # kernel 3 has no learned row: counts 0
    groups = kernel_groups(measured, learned)
    relu = groups[("loop", "broadcast_in_dim,constant,maximum")]
    assert relu == [pytest.approx(4e-3), pytest.approx(2e-4), 2]
    assert groups[("matmul", "dot_general")] == [pytest.approx(3e-3), pytest.approx(1e-3), 2]
    assert len(groups) == 2


def test_the_warm_cold_table_gives_each_bucket_its_median_factor(capsys):
    from kernels_in_step import print_warm_cold

    def row(mib, in_step, warm, cold):
        return {"bytes": mib * 2**20, "in_step": in_step, "warm": warm, "cold": cold,
                "learned": in_step / 4, "roofline": in_step}

    rows = [row(0.5, 2e-4, 1e-4, 4e-4), row(0.5, 4e-4, 1e-4, 4e-4),     # x2, x4 warm
            row(8, 3e-3, 1e-3, 3e-3), row(0.1, 1e-3, 1e-6, 1e-6)]      # last: too small
    print_warm_cold(rows)
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    small = next(line for line in lines if line.startswith("| 0.25-1 MiB"))
    # warm: log2 ratios 1 and 2, median factor 2^1.5; cold: 0.5 and 1
    assert "| 2 |" in small and "x2.83 (1.50)" in small and "x0.71 (0.50)" in small
    large = next(line for line in lines if line.startswith("| >= 4 MiB"))
    assert "x3.00" in large and "x1.00 (0.00)" in large and "x4.00 (2.00)" in large
    assert len(lines) == 3      # the header and the two buckets with kernels
