"""The rule table: opcode -> the rule that prices one execution of the op, and the
functions that apply it."""

from __future__ import annotations

from typing import Callable

from ..program import Op, Program
from .collectives import COLLECTIVE_OPS, collective_cost
from .custom_calls import custom_call_cost
from .elementwise import (
    ELEMENTWISE_OPS,
    QUANTIZE_OPS,
    TRANSCENDENTAL_OPS,
    elementwise_cost,
    quantize_cost,
    rng_cost,
    transcendental_cost,
)
from .linalg import (
    cholesky_cost,
    convolution_cost,
    dot_cost,
    dot_general_cost,
    fft_cost,
    triangular_solve_cost,
)
from .movement import (
    COPY_OPS,
    METADATA_OPS,
    MOVEMENT_OPS,
    copy_cost,
    dynamic_update_slice_cost,
    gather_cost,
    metadata_cost,
    movement_cost,
    scatter_cost,
    slice_cost,
)
from .opcost import OpCost
from .reductions import (
    batch_norm_cost,
    reduce_cost,
    reduce_window_cost,
    select_and_scatter_cost,
    sort_cost,
    top_k_cost,
)

Rule = Callable[[Op, Program], OpCost | None]


def _rules() -> dict[str, Rule]:
    rules: dict[str, Rule] = {
        "dot_general": dot_general_cost, "dot": dot_cost, "chlo.ragged_dot": dot_cost,
        "convolution": convolution_cost, "dynamic_conv": convolution_cost,
        "reduce": reduce_cost, "reduce_window": reduce_window_cost,
        "select_and_scatter": select_and_scatter_cost,
        "slice": slice_cost, "dynamic_slice": slice_cost, "real_dynamic_slice": slice_cost,
        "dynamic_update_slice": dynamic_update_slice_cost,
        "gather": gather_cost, "dynamic_gather": gather_cost, "scatter": scatter_cost,
        "sort": sort_cost, "chlo.top_k": top_k_cost, "fft": fft_cost,
        "cholesky": cholesky_cost, "triangular_solve": triangular_solve_cost,
        "rng": rng_cost, "rng_bit_generator": rng_cost,
        "batch_norm_inference": batch_norm_cost, "batch_norm_training": batch_norm_cost,
        "batch_norm_grad": batch_norm_cost,
        "custom_call": custom_call_cost,
    }
    # later groups win where an opcode is in two of them
    for opcodes, rule in ((METADATA_OPS, metadata_cost), (ELEMENTWISE_OPS, elementwise_cost),
                          (TRANSCENDENTAL_OPS, transcendental_cost),
                          (QUANTIZE_OPS, quantize_cost),
                          (MOVEMENT_OPS, movement_cost), (COPY_OPS, copy_cost),
                          (COLLECTIVE_OPS, collective_cost)):
        rules.update(dict.fromkeys(opcodes, rule))
    return rules


_RULES = _rules()


def has_rule(opcode: str) -> bool:
    return opcode in _RULES


def op_cost(op: Op, program: Program) -> OpCost | None:
    """The cost of one execution of `op`, or None when no rule prices it."""
    rule = _RULES.get(op.opcode)
    return rule(op, program) if rule is not None else None


def program_costs(program: Program) -> list[OpCost | None]:
    """`op_cost` for every op, in op order."""
    rules = _RULES
    return [(rule(op, program) if (rule := rules.get(op.opcode)) is not None else None)
            for op in program.ops]
