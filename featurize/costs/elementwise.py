"""Rules for elementwise ops: one FLOP (or one transcendental) per output element,
none for the identities XLA deletes (x*1, x/1, x+0, x-0); random number generators
count one FLOP per element too."""

from __future__ import annotations

from ..program import Op, Program
from .opcost import (
    COMPLEX_FLOPS,
    OpCost,
    body_flops,
    body_transcendentals,
    full_bytes,
    is_complex,
    out_elements,
    real_transcendentals,
)

TRANSCENDENTAL_OPS = frozenset({
    "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "power",
    "rsqrt", "sqrt", "cbrt", "sine", "cosine", "tan", "tanh", "atan2",
    "chlo.erf", "chlo.erfc", "chlo.erf_inv", "chlo.lgamma", "chlo.digamma", "chlo.tan",
    "chlo.asin", "chlo.acos", "chlo.atan", "chlo.sinh", "chlo.cosh", "chlo.asinh",
    "chlo.acosh", "chlo.atanh", "chlo.bessel_i1e", "chlo.polygamma", "chlo.zeta",
})

ELEMENTWISE_OPS = frozenset({
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "negate",
    "abs", "sign", "compare", "select", "clamp", "convert", "and", "or", "xor", "not",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "popcnt",
    "count_leading_zeros", "floor", "ceil", "round_nearest_afz", "round_nearest_even",
    "is_finite", "real", "imag", "complex", "reduce_precision", "map",
    "chlo.conj", "chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf", "chlo.next_after",
    "chlo.square",
}) | {f"chlo.broadcast_{n}" for n in (
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power",
    "atan2", "and", "or", "xor", "compare", "select", "complex", "shift_left",
    "shift_right_arithmetic", "shift_right_logical", "next_after", "polygamma", "zeta")}


# x * 1, x / 1, x + 0 and x - 0 (jax's autodiff emits `ones * g` for the gradient seed
# of a sum): XLA's algebraic simplifier deletes them on every backend, so they do no
# arithmetic. The value is the neutral element; the operands it may be in.
_NEUTRAL = {"multiply": (1, None), "divide": (1, 1), "add": (0, None), "subtract": (0, 1)}


_SPLAT_PASSTHROUGH = frozenset({"broadcast_in_dim", "reshape", "convert"})


def is_identity(op: Op, program: Program) -> bool:
    """Whether `op` is x*1, x/1, x+0 or x-0 (see _NEUTRAL): an operand it may be in is a
    (broadcast, reshaped or converted) scalar constant holding the neutral element."""
    neutral = _NEUTRAL.get(op.opcode)
    inputs = op.inputs
    if neutral is None or len(inputs) != 2:
        return False
    value, only = neutral
    producers, ops = program.producers, program.ops
    # runs for every add and multiply of a program: plain loops, no helper calls
    for vid in (inputs if only is None else (inputs[only],)):
        index = producers[vid]
        while index >= 0:
            producer = ops[index]
            opcode = producer.opcode
            if opcode == "constant":
                if producer.attributes.get("value") == value:
                    return True
                break
            if opcode not in _SPLAT_PASSTHROUGH:
                break
            index = producers[producer.inputs[0]]
    return False


def elementwise_cost(op: Op, program: Program) -> OpCost:
    reads, writes = full_bytes(op)
    if op.opcode in _NEUTRAL and is_identity(op, program):
        return OpCost(0.0, 0.0, reads, writes, "vector")
    elements = out_elements(op)
    transcendentals = 0.0
    if op.opcode == "map":
        transcendentals = float(elements * body_transcendentals(op))
        elements *= max(1, body_flops(op))
    elif op.results and is_complex(op.results[0]):
        elements *= COMPLEX_FLOPS.get(op.opcode, 1)
    return OpCost(float(elements), transcendentals, reads, writes, "vector")


def transcendental_cost(op: Op, program: Program) -> OpCost:
    """One transcendental per output element, or on complex values each of the real
    ones it expands to (`real_transcendentals`)."""
    reads, writes = full_bytes(op)
    per_element = len(real_transcendentals(op))
    return OpCost(0.0, float(out_elements(op) * per_element), reads, writes, "vector")


# FLOPs per element of the quantization ops, as StableHLO's own lowering of them to
# integer math (`stablehlo-legalize-quant-to-math`) spells them: quantize is divide by
# the scale, add the zero point, clamp, round, convert (5); dequantize is convert to
# i32, subtract the zero point, convert to float, multiply by the scale (4); a
# quantize of a quantized value (requantize) is both.
QUANTIZE_FLOPS = {"uniform_quantize": 5, "uniform_dequantize": 4}
QUANTIZE_OPS = frozenset(QUANTIZE_FLOPS)


def quantize_cost(op: Op, program: Program) -> OpCost:
    """uniform_quantize / uniform_dequantize: one elementwise pass (see QUANTIZE_FLOPS).
    The walk has typed quantized values as their integer storage, so a quantize whose
    operand is an integer is a requantize."""
    reads, writes = full_bytes(op)
    per_element = QUANTIZE_FLOPS[op.opcode]
    if op.opcode == "uniform_quantize" and op.operands and \
            op.operands[0].dtype.startswith(("i", "ui", "si")):
        per_element += QUANTIZE_FLOPS["uniform_dequantize"]
    return OpCost(float(out_elements(op) * per_element), 0.0, reads, writes, "vector")


def rng_cost(op: Op, program: Program) -> OpCost:
    reads, writes = full_bytes(op)
    return OpCost(float(out_elements(op)), 0.0, reads, writes, "vector")
