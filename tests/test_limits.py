"""Hostile programs: each is a one-line error with exit code 2, never a crash of the
process (each runs in a subprocess so that a regression cannot take the suite down)."""

import os
import subprocess
import sys

import pytest


def _cli(stdin: bytes, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stablecost.serve.cli", "analyze", "-",
                           *args], input=stdin, capture_output=True, timeout=120,
                          env={**os.environ, **env})


def _nested_whiles(depth: int) -> str:
    inner = "stablehlo.return %x : tensor<f32>"
    for i in range(depth):
        inner = (f"%r{i} = stablehlo.while(%a{i} = %x) : tensor<f32>\n cond {{\n"
                 f"  %c{i} = stablehlo.constant dense<true> : tensor<i1>\n"
                 f"  stablehlo.return %c{i} : tensor<i1>\n }} do {{\n {inner}\n }}\n"
                 f"stablehlo.return %r{i} : tensor<f32>")
    head, _, tail = inner.rpartition("stablehlo.return")
    return f"func.func @main(%x: tensor<f32>) -> tensor<f32> {{\n{head}return{tail}\n}}"


def _call_chain(functions: int, calls_per_function: int) -> str:
    out = []
    for i in range(functions):
        body = "".join(f"  %c{j} = func.call @f{i + 1}(%x) : (tensor<f32>) -> tensor<f32>\n"
                       for j in range(calls_per_function)) if i + 1 < functions else ""
        out.append(f"func.func private @f{i}(%x: tensor<f32>) -> tensor<f32> {{\n{body}"
                   "  %y = stablehlo.add %x, %x : tensor<f32>\n  return %y : tensor<f32>\n}")
    main = ("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
            "  %y = func.call @f0(%x) : (tensor<f32>) -> tensor<f32>\n  return %y : tensor<f32>\n}")
    return "module {\n" + "\n".join(out + [main]) + "\n}"


def _nested_counted_loops(depth: int, trips: int) -> str:
    body = "%s = stablehlo.add %x, %x : tensor<f32>"
    for i in range(depth):
        body = (f"%w{i}:2 = stablehlo.while(%i{i} = %zero, %v{i} = %x) : tensor<i64>, "
                f"tensor<f32>\n cond {{\n  %n{i} = stablehlo.constant dense<{trips}> : "
                f"tensor<i64>\n  %k{i} = stablehlo.compare LT, %i{i}, %n{i} : (tensor<i64>, "
                f"tensor<i64>) -> tensor<i1>\n  stablehlo.return %k{i} : tensor<i1>\n }} do {{\n"
                f"  %one{i} = stablehlo.constant dense<1> : tensor<i64>\n"
                f"  %j{i} = stablehlo.add %i{i}, %one{i} : tensor<i64>\n  {body}\n"
                f"  stablehlo.return %j{i}, %v{i} : tensor<i64>, tensor<f32>\n }}")
    return ("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
            "  %zero = stablehlo.constant dense<0> : tensor<i64>\n"
            f"  {body}\n  return %x : tensor<f32>\n}}")


@pytest.mark.parametrize("program, env, message", [
    (b'func.func @main(%x: tensor<f32>) -> tensor<f32> {\n'
     b'  %0 = "stablehlo.ab\\FF\\FE"(%x) : (tensor<f32>) -> tensor<f32>\n'
     b'  return %0 : tensor<f32>\n}', {}, "escaped bytes that are not UTF-8"),
    (b'func.func @main(%x: tensor<f32>) -> tensor<f32> {\n'
     b'  %0 = func.call @"f\\FF"(%x) : (tensor<f32>) -> tensor<f32>\n'
     b'  return %0 : tensor<f32>\n}', {}, "escaped bytes that are not UTF-8"),
    (b"func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\xff",
     {}, "nor UTF-8 text"),
    (_nested_whiles(3500).encode(), {}, "regions nested more than 256 deep"),
    (_call_chain(300, 1).encode(), {}, "calls nested more than 256 deep"),
    (_call_chain(40, 2).encode(), {"STABLECOST_MAX_OPS": "20000"},
     "more than 20,000 ops once calls are inlined"),
    (_nested_counted_loops(40, 10 ** 9).encode(), {}, "overflow a float"),
    (b"func.func @main() -> () {\n  return\n}\n" + b" " * 5000,
     {"STABLECOST_MAX_PROGRAM_BYTES": "1000"}, "over the 1,000-byte budget"),
    (b"func.func @main() -> () {\n  return\n}", {"STABLECOST_MAX_NESTING": "lots"},
     "STABLECOST_MAX_NESTING='lots': must be a positive integer"),
])
def test_hostile_programs_are_one_line_errors(program, env, message):
    done = _cli(program, **env)
    err = done.stderr.decode()
    assert done.returncode == 2, err[-2000:]
    assert message in err and err.count("\n") == 1, err


def test_a_deep_but_legal_program_still_loads():
    done = _cli(_nested_whiles(100).encode())
    assert done.returncode == 0, done.stderr.decode()[-2000:]


def _run(*argv: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stablecost.serve.cli", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("argv, message", [
    (["hardware", "show", "x" * 300], "(300 characters; names are at most 100)"),
    (["analyze", "a" * 6000], "File name too long"),
    (["collect", "kernels", "--out", "/proc/D", "--max-samples", "1"],
     "cannot create the dataset there"),
    (["train", "xgboost", "--data", "/missing", "--tracking-uri", "sqlite:///t.db"],
     "/missing: no such directory"),
])
def test_mistyped_names_and_paths_are_one_line_errors(argv, message, tmp_path):
    done = _run(*argv, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "t.db").exists()     # no MLflow store made for a failed run
