"""The `OpCost` record and the helpers the op rules share: full operand and result
bytes, output elements, complex values, summaries of an op's scalar regions."""

from __future__ import annotations

from typing import NamedTuple

from ..program import Op, TensorType


class OpCost(NamedTuple):
    flops: float
    transcendentals: float
    read_bytes: tuple[float, ...]     # per operand
    write_bytes: tuple[float, ...]    # per result
    unit: str                         # matmul | vector | memory | none | comm
    comm_send_bytes: float = 0.0
    comm_recv_bytes: float = 0.0
    group_size: int = 1


NONE_UNIT = "none"


# Real FLOPs of one complex operation (the schoolbook counts: (a+bi)(c+di) is 4
# multiplies and 2 adds; a division is a multiply by the conjugate, 2 more multiplies
# and 2 divisions); other elementwise ops count 1 per element.
COMPLEX_FLOPS = {"add": 2, "subtract": 2, "negate": 2, "multiply": 6, "divide": 11}

# The real transcendentals XLA computes for one element of a complex transcendental op,
# as its elemental emitter expands them: exp(a+bi) is e^a (cos b + i sin b), log(z) is
# log|z| + i atan2(b, a) with |z| a hypotenuse (a square root), a complex sine or cosine
# takes the sine and cosine of a and the cosh and sinh of b (two exponentials), a power
# is exp(w log z), a tanh the sine and cosine of 2b and exponentials of 2a. A sine of
# wide arguments or an atan2 costs 10-40x an exponential on the CPUs measured
# (`hardware calibrate`), so a complex exp counted as one exponential had its
# transcendentals priced up to 45x short. Complex opcodes not listed count one
# transcendental per element.
COMPLEX_TRANSCENDENTALS: dict[str, tuple[str, ...]] = {
    "exponential": ("exponential", "cosine", "sine"),
    "exponential_minus_one": ("exponential_minus_one", "cosine", "sine"),
    "log": ("log", "atan2", "sqrt"),
    "log_plus_one": ("log_plus_one", "atan2", "sqrt"),
    "sqrt": ("sqrt", "sqrt"),
    "rsqrt": ("sqrt", "sqrt"),
    "sine": ("sine", "cosine", "exponential", "exponential"),
    "cosine": ("sine", "cosine", "exponential", "exponential"),
    "tan": ("sine", "cosine", "exponential", "exponential"),
    "tanh": ("sine", "cosine", "exponential", "exponential"),
    "logistic": ("exponential", "cosine", "sine"),
    "power": ("log", "atan2", "sqrt", "exponential", "cosine", "sine"),
}


def real_transcendentals(op: Op) -> tuple[str, ...]:
    """The real transcendental opcodes one output element of elementwise `op` computes:
    its own opcode, or on complex values its expansion (COMPLEX_TRANSCENDENTALS)."""
    if op.results and is_complex(op.results[0]):
        return COMPLEX_TRANSCENDENTALS.get(op.opcode, (op.opcode,))
    return (op.opcode,)


def full_bytes(op: Op) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(bytes of each operand, bytes of each result): what an op that reads and writes
    all of them moves."""
    return (tuple(float(t.nbytes) for t in op.operands),
            tuple(float(t.nbytes) for t in op.results))


def out_elements(op: Op) -> int:
    """Elements of the op's tensor results (tokens and tuples hold none)."""
    return sum(t.num_elements for t in op.results if t.dtype not in ("token", "tuple"))


def is_complex(t: TensorType) -> bool:
    return t.dtype.startswith("complex")


def body_flops(op: Op, default: int = 1) -> int:
    """Real FLOPs of one application of the op's scalar regions (`default` when the op
    carries no summary): on complex values an add counts 2, a multiply 6 (COMPLEX_FLOPS,
    the convention of the elementwise rules)."""
    attrs = op.attributes
    names = attrs.get("body_ops")
    if names is None:
        return attrs.get("body_flops", default)
    if op.operands and is_complex(op.operands[0]):
        return sum(COMPLEX_FLOPS.get(name, 1) for name in names)
    return len(names)


def body_transcendentals(op: Op) -> int:
    """Transcendentals of one application of the op's scalar regions."""
    return op.attributes.get("body_transcendentals", 0)
