"""Copies (`mhlo.copy`, from partitioned and HLO-converted modules) priced as XLA
would: free when elided (the source is dead after the copy), their bytes when the
source stays live; the analysis notes say how many were elided."""

from __future__ import annotations

import stablecost
from stablecost.featurize.analysis import analyze

# 8x8xf32 = 256 B
T = "tensor<8x8xf32>"


def _module(body: str, results: str = T, args: str = f"%a: {T}, %b: {T}") -> str:
    return (f"func.func @main({args}) -> ({results}) {{\n{body}\n}}\n")


def _copies(a):
    return [(op.index, a.costs[op.index].unit) for op in a.program.ops
            if op.opcode == "mhlo.copy"]


def test_copy_of_a_dead_value_is_elided():
    a = analyze(stablecost.load_program(_module(f"""
  %0 = stablehlo.add %a, %b : {T}
  %1 = "mhlo.copy"(%0) : ({T}) -> {T}
  %2 = stablehlo.multiply %1, %1 : {T}
  return %2 : {T}""")))
    assert _copies(a) == [(1, "none")]
    # add 3 x 256 + copy 0 + multiply 3 x 256
    assert a.bytes_accessed == 6 * 256
    # one loop kernel: reads a, b, writes the product; the copy starts no kernel
    assert len(a.kernels) == 1 and a.fused_bytes_accessed == 3 * 256
    assert "1 of 1 copy op(s) elided" in " ".join(a.notes)


def test_copy_whose_source_is_read_later_is_kept():
    a = analyze(stablecost.load_program(_module(f"""
  %0 = stablehlo.add %a, %b : {T}
  %1 = "mhlo.copy"(%0) : ({T}) -> {T}
  %2 = stablehlo.multiply %1, %0 : {T}
  return %2 : {T}""")))
    assert _copies(a) == [(1, "memory")]
    assert a.bytes_accessed == 3 * 256 + 2 * 256 + 3 * 256
    assert "0 of 1 copy op(s) elided" in " ".join(a.notes)


def test_copy_of_a_returned_value_or_a_returned_parameter_is_kept():
    a = analyze(stablecost.load_program(_module(f"""
  %0 = stablehlo.add %a, %b : {T}
  %1 = "mhlo.copy"(%0) : ({T}) -> {T}
  %2 = "mhlo.copy"(%a) : ({T}) -> {T}
  return %0, %1, %2 : {T}, {T}, {T}""", results=f"{T}, {T}, {T}")))
    # %1: its source %0 is returned too; %2: a parameter (not donated) returned
    assert _copies(a) == [(1, "memory"), (2, "memory")]


def test_copy_of_a_parameter_used_only_by_it_is_elided():
    a = analyze(stablecost.load_program(_module(f"""
  %0 = "mhlo.copy"(%a) : ({T}) -> {T}
  %1 = stablehlo.add %0, %b : {T}
  return %1 : {T}""")))
    assert _copies(a) == [(0, "none")]
    assert a.bytes_accessed == 3 * 256


def test_loop_copies_keep_values_live_across_iterations():
    # inside the body: a copy of the carried value (dead after it) is elided; a copy of
    # a value from outside the loop is kept (the next iteration reads it again)
    i32 = "tensor<i32>"
    text = f"""
func.func @main(%a: {T}, %b: {T}) -> {T} {{
  %c0 = stablehlo.constant dense<0> : {i32}
  %c1 = stablehlo.constant dense<1> : {i32}
  %c4 = stablehlo.constant dense<4> : {i32}
  %w = stablehlo.add %a, %b : {T}
  %r:2 = stablehlo.while(%i = %c0, %x = %a) : {i32}, {T}
  cond {{
    %p = stablehlo.compare LT, %i, %c4, SIGNED : ({i32}, {i32}) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %x2 = "mhlo.copy"(%x) : ({T}) -> {T}
    %w2 = "mhlo.copy"(%w) : ({T}) -> {T}
    %y = stablehlo.add %x2, %w2 : {T}
    %j = stablehlo.add %i, %c1 : {i32}
    stablehlo.return %j, %y : {i32}, {T}
  }}
  return %r#1 : {T}
}}
"""
    a = analyze(stablecost.load_program(text))
    units = {a.program.ops[i].inputs[0]: unit for i, unit in _copies(a)}
    assert sorted(units.values()) == ["memory", "none"]
    kept = next(i for i, unit in _copies(a) if unit == "memory")
    w = a.program.ops[kept].inputs[0]
    assert a.program.ops[a.program.producers[w]].opcode == "add"   # the outer %w
    assert "1 of 2 copy op(s) elided" in " ".join(a.notes)
    # the kept copy runs 4 times and moves 2 x 256 B each time
    stats = a.per_opcode["mhlo.copy"]
    assert stats.executions == 8 and stats.bytes_accessed == 4 * 512
