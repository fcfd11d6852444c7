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
