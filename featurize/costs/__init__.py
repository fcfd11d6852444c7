"""Exact per-op costs: FLOPs, transcendentals, bytes read per operand and written per
result, and for collectives the bytes one device sends and receives.

Conventions (the ones XLA's HloCostAnalysis uses, so totals are comparable):
- uniform_quantize / uniform_dequantize are elementwise passes of 5 / 4 FLOPs per
  element (StableHLO's own integer lowering of them); quantized values are typed as
  their integer storage, so quantized dots and convolutions are integer arithmetic;
- an elementwise op costs one FLOP per output element (none for x*1, x/1, x+0, x-0,
  which XLA deletes); exp/log/tanh/sqrt/rsqrt/pow/
  logistic/sin/cos/tan/atan2/cbrt/erf cost one *transcendental* per element instead;
- dot_general costs 2 FLOPs per multiply-add: 2 x output elements x contracted size
  (one multiply per output element when the contracted size is 1);
- convolution costs 2 x (input features / feature groups) x output features x
  (batch / batch groups) x the number of (output, kernel) position pairs that land on a
  real input element, per spatial dimension (padding and dilation holes excluded);
- reduce costs (input elements - output elements) x the reducer's ops;
- data movement (broadcast, transpose, slice, pad, gather, ...) costs bytes, no FLOPs;
- a copy XLA would elide (its source is dead after it) costs nothing, see
  `movement.copy_cost`;
- metadata ops (reshape, bitcast_convert, get_tuple_element, constant, ...) cost
  nothing at all.
An op with no rule gets `None` and is reported by the caller, never priced 0.

The rules are grouped by kind of op: `elementwise`, `movement` (and metadata),
`linalg` (dots, convolutions, FFTs, factorizations), `reductions`, `collectives`,
`custom_calls`; `table` maps each opcode to its rule. The names other packages use are
importable from here.
"""

from .collectives import COLLECTIVE_OPS
from .custom_calls import MATMUL_INTENSITY, METADATA_CUSTOM_CALLS, attention_pairs
from .elementwise import ELEMENTWISE_OPS, QUANTIZE_OPS, TRANSCENDENTAL_OPS, is_identity
from .movement import COPY_OPS, METADATA_OPS, MOVEMENT_OPS, copy_elided
from .opcost import COMPLEX_FLOPS, OpCost, body_flops
from .reductions import SCAN_BASE_LENGTH, effective_window
from .table import has_rule, op_cost, program_costs

__all__ = [
    "COLLECTIVE_OPS", "COMPLEX_FLOPS", "COPY_OPS", "ELEMENTWISE_OPS", "MATMUL_INTENSITY",
    "METADATA_CUSTOM_CALLS", "METADATA_OPS", "MOVEMENT_OPS", "QUANTIZE_OPS",
    "SCAN_BASE_LENGTH", "TRANSCENDENTAL_OPS", "OpCost", "attention_pairs", "body_flops",
    "copy_elided", "effective_window", "has_rule", "is_identity", "op_cost", "program_costs",
]
