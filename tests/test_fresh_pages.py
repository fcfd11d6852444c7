"""Temporaries XLA:CPU maps afresh on every call: the calibrated cost of a fresh page on
a CPU spec, and the term it adds to a learned step whose temporaries pass 32 MiB."""

from __future__ import annotations

import dataclasses

import pytest
from specs import cpu_spec

from stablecost.errors import HardwareSpecError
from stablecost.featurize.analysis import analyze
from stablecost.featurize.ingest import load_program
from stablecost.hardware import get_hardware, parse_spec
from stablecost.hardware.calibrate import FRESH_BUFFER_BYTES, PAGE_BYTES
from stablecost.models.cost_model import FAULTING_SHARE, fresh_temporaries
from stablecost.models.memory import step_memory


def _text(elements: int) -> str:
    """exp, then a sort, then a sum: the exp's and the sort's results are temporaries of
    4 x `elements` bytes each, the step's result one scalar."""
    import jax
    import jax.numpy as jnp

    def step(x):
        return jnp.sum(jnp.sort(jnp.exp(x)) * 2.0)
    return jax.jit(step).lower(jnp.zeros((elements,), jnp.float32)).as_text()


def _cpu(fresh_page_s=None):
    spec = cpu_spec()
    if fresh_page_s is not None:
        spec["memory"]["fresh_page_s"] = fresh_page_s
    return parse_spec(spec, "test")


def test_a_cpu_spec_may_carry_a_positive_fresh_page_cost():
    assert _cpu(1e-6).fresh_page_s == 1e-6 and _cpu().fresh_page_s is None
    with pytest.raises(HardwareSpecError, match="fresh_page_s"):
        _cpu(-1e-6)
    with pytest.raises(HardwareSpecError, match="fresh_page_s"):
        dataclasses.replace(get_hardware("H100-SXM"), fresh_page_s=1e-6)


def test_temporaries_past_32_mib_pay_their_pages_at_the_calibrated_cost():
    analysis = analyze(load_program(_text(12 << 20)))       # 48 MiB per temporary
    temporary = step_memory(analysis).temporary_bytes
    assert temporary >= FRESH_BUFFER_BYTES
    seconds, note = fresh_temporaries(analysis, _cpu(2e-6))
    assert seconds == pytest.approx(FAULTING_SHARE * 2e-6 * temporary / PAGE_BYTES)
    assert "page faults" in note and f"{temporary / 2**20:.0f} MiB" in note


def test_small_temporaries_a_spec_without_the_cost_and_a_gpu_pay_nothing():
    small = analyze(load_program(_text(1 << 20)))            # 4 MiB per temporary
    assert step_memory(small).temporary_bytes < FRESH_BUFFER_BYTES
    assert fresh_temporaries(small, _cpu(2e-6)) == (0.0, "")
    large = analyze(load_program(_text(12 << 20)))
    assert fresh_temporaries(large, _cpu()) == (0.0, "")
    assert fresh_temporaries(large, get_hardware("H100-SXM")) == (0.0, "")


def test_the_learned_step_adds_the_fresh_pages_and_says_so():
    from stablecost.models.cost_model import Learned
    from stablecost.models.learned import load_models
    from stablecost.models.roofline import kernel_times

    bundle = load_models("host-cpu")
    assert bundle is not None and bundle.spec is not None
    analysis = analyze(load_program(_text(12 << 20)))
    roofline = kernel_times(analysis.kernels, analysis.program, bundle.spec)
    without = Learned().estimate(analysis, bundle.spec, roofline)
    hw = dataclasses.replace(bundle.spec, fresh_page_s=2e-6)
    with_cost = Learned().estimate(analysis, hw, roofline)
    seconds, _ = fresh_temporaries(analysis, hw)
    base = without.step_s if without.step_s is not None else \
        without.floor_s + sum(k.count * t for k, t in zip(analysis.kernels, without.time_s))
    assert seconds > 0 and with_cost.step_s == pytest.approx(base + seconds)
    assert "page faults" in with_cost.note and "page faults" not in without.note
