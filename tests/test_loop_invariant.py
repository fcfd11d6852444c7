"""Loop-invariant code motion in the walk (`featurize.walk.HOIST_INVARIANT`, off by
default): an op of a `while` body whose operands the loop never changes runs once."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax import lax

import stablecost
import stablecost.featurize.walk as walk

TRIP = 10


def _relax(x, w, v, h):
    """A loop whose body drives `h` by `x @ w` (invariant) and by `h @ v` (not)."""
    def sweep(_, h):
        return jnp.tanh(x @ w + h @ v + 1.0)
    return lax.fori_loop(0, TRIP, sweep, h)


def _analysis(fn, *shapes, hoist: bool, monkeypatch):
    monkeypatch.setattr(walk, "HOIST_INVARIANT", hoist)
    args = [jnp.zeros(s, jnp.float32) for s in shapes]
    return stablecost.analyze(jax.jit(fn).lower(*args).as_text())


def _dot_counts(analysis) -> list[tuple[float, float]]:
    """(executions, FLOPs) of each kernel holding a dot, smallest first."""
    return sorted((k.count, k.flops) for k in analysis.kernels if k.kind == "matmul")


SHAPES = ((64, 256), (256, 128), (128, 128), (64, 128))


def test_an_invariant_dot_runs_once_and_the_notes_say_so(monkeypatch):
    before = _analysis(_relax, *SHAPES, hoist=False, monkeypatch=monkeypatch)
    after = _analysis(_relax, *SHAPES, hoist=True, monkeypatch=monkeypatch)
    invariant_flops = 2 * 64 * 256 * 128
    assert [c for c, _ in _dot_counts(before)] == [TRIP, TRIP]
    counts = _dot_counts(after)
    assert (1.0, pytest.approx(invariant_flops, rel=0.05)) in \
        [(c, pytest.approx(f, rel=0.05)) for c, f in counts]
    assert any(c == TRIP for c, _ in counts)          # the dot of the carry stays inside
    assert before.flops - after.flops == pytest.approx((TRIP - 1) * invariant_flops,
                                                       rel=0.05)
    assert any("loop-invariant code motion" in note for note in after.notes)
    assert not any("loop-invariant" in note for note in before.notes)


def test_nothing_that_depends_on_the_carry_moves(monkeypatch):
    def carried(x, w):
        return lax.fori_loop(0, TRIP, lambda _, h: jnp.tanh(h @ w), x)

    shapes = ((64, 128), (128, 128))
    before = _analysis(carried, *shapes, hoist=False, monkeypatch=monkeypatch)
    after = _analysis(carried, *shapes, hoist=True, monkeypatch=monkeypatch)
    assert after.flops == before.flops
    assert [k.count for k in after.kernels] == [k.count for k in before.kernels]


def test_ops_of_constants_alone_and_branches_stay_in_the_loop(monkeypatch):
    def branchy(x, w, p):
        def sweep(i, h):
            scale = jnp.float32(2.0) * jnp.float32(0.5)      # folded by XLA, not hoisted
            moved = lax.cond(p > 0, lambda: x @ w, lambda: x @ w * 2.0)   # in a branch
            return jnp.tanh(h * scale + moved)
        return lax.fori_loop(0, TRIP, sweep, jnp.zeros((64, 128), jnp.float32))

    from stablecost.featurize.ingest import load_program

    args = (jnp.zeros((64, 256)), jnp.zeros((256, 128)), jnp.float32(1.0))
    text = jax.jit(branchy).lower(*args).as_text()
    monkeypatch.setattr(walk, "HOIST_INVARIANT", False)
    before = load_program(text)
    monkeypatch.setattr(walk, "HOIST_INVARIANT", True)
    after = load_program(text)
    moved = [b.opcode for a, b in zip(before.ops, after.ops) if a.count != b.count]
    # the branch predicate (p > 0, converted to an index) is invariant and moves, with
    # the constant only it reads; the dots in the branches do not, nor the product of two
    # constants that the loop's own multiply reads
    assert "compare" in moved and set(moved) <= {"compare", "convert", "constant"}
    assert [op.count for op in after.ops if op.opcode == "dot_general"] == [TRIP / 2] * 2
