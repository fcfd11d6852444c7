"""FLOPs of `analyze` against XLA's own count on loop-free programs."""

import jax
import pytest
from programs import FLOP_PROGRAMS

import stablecost


@pytest.mark.parametrize("name", sorted(FLOP_PROGRAMS))
def test_flops_match_xla_within_2_percent(name):
    fn, args = FLOP_PROGRAMS[name]()
    lowered = jax.jit(fn).lower(*args)
    xla_flops = lowered.compile().cost_analysis()["flops"]
    ours = stablecost.analyze(stablecost.load_program(lowered)).flops
    assert ours == pytest.approx(xla_flops, rel=0.02), (name, ours, xla_flops)
