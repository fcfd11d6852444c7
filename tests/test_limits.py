"""Hostile programs: each is a one-line error with exit code 2, never a crash of the
process (each runs in a subprocess so that a regression cannot take the suite down)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from adversarial_corpus import call_chain, nested_counted_loops, nested_whiles  # noqa: E402


def _cli(stdin: bytes, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stablecost.serve.cli", "analyze", "-",
                           *args], input=stdin, capture_output=True, timeout=120,
                          env={**os.environ, **env})


@pytest.mark.parametrize("program, env, message", [
    (b'func.func @main(%x: tensor<f32>) -> tensor<f32> {\n'
     b'  %0 = "stablehlo.ab\\FF\\FE"(%x) : (tensor<f32>) -> tensor<f32>\n'
     b'  return %0 : tensor<f32>\n}', {}, "escaped bytes that are not UTF-8"),
    (b'func.func @main(%x: tensor<f32>) -> tensor<f32> {\n'
     b'  %0 = func.call @"f\\FF"(%x) : (tensor<f32>) -> tensor<f32>\n'
     b'  return %0 : tensor<f32>\n}', {}, "escaped bytes that are not UTF-8"),
    (b"func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\xff",
     {}, "nor UTF-8 text"),
    (nested_whiles(3500).encode(), {}, "regions nested more than 256 deep"),
    (call_chain(300, 1).encode(), {}, "calls nested more than 256 deep"),
    (call_chain(40, 2).encode(), {"STABLECOST_MAX_OPS": "20000"},
     "more than 20,000 ops once calls are inlined"),
    (nested_counted_loops(40, 10 ** 9).encode(), {}, "overflow a float"),
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
    done = _cli(nested_whiles(100).encode())
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


# ---------------------------------------------------------------------- bytecode


MLP = Path(__file__).resolve().parent.parent / "examples" / "programs" / "mlp_train_step.mlir"


@pytest.fixture(scope="module")
def mlp_bytecode() -> bytes:
    import io

    from stablecost.featurize.mlir import parse_module

    buf = io.BytesIO()
    parse_module(MLP.read_text()).operation.write_bytecode(buf)
    return buf.getvalue()


@pytest.mark.parametrize("corrupt, message", [
    # jaxlib's reader aborts the process on a name that is not UTF-8
    (lambda b: b.replace(b"main\0", b"ma\xffn\0"), "is not UTF-8"),
    (lambda b: b[:4] + b"\x0dMLIR\xff\0" + b[b.index(b"\0") + 1:], "producer string is not UTF-8"),
    (lambda b: b[:-100], "bytes, only"),
    (lambda b: b + b"\x7f\x01", "unknown section id 127"),
])
def test_corrupt_bytecode_is_refused_before_parsing(mlp_bytecode, corrupt, message):
    from stablecost.errors import ProgramParseError
    from stablecost.featurize.bytecode import check_bytecode

    bad = corrupt(mlp_bytecode)
    with pytest.raises(ProgramParseError, match="corrupt MLIR bytecode") as caught:
        check_bytecode(bad, "x.mlirbc")
    assert message in str(caught.value)
    done = _cli(bad)
    assert done.returncode == 2 and message in done.stderr.decode(), done.stderr[-2000:]
    assert done.stderr.decode().count("\n") == 1


def test_valid_bytecode_passes_the_check_and_loads_like_the_text(mlp_bytecode):
    from stablecost.featurize.analysis import analyze
    from stablecost.featurize.bytecode import check_bytecode
    from stablecost.featurize.ingest import load_program

    check_bytecode(mlp_bytecode, "mlp.mlirbc")
    from_bytes = analyze(load_program(mlp_bytecode, name="mlp"))   # through the child
    from_text = analyze(load_program(MLP.read_text(), name="mlp"))
    assert from_bytes.flops == from_text.flops
    assert from_bytes.fused_bytes_accessed == from_text.fused_bytes_accessed
    assert [op.location for op in from_bytes.program.ops] == \
        [op.location for op in from_text.program.ops]


def test_a_parse_error_in_the_bytecode_child_is_typed(mlp_bytecode):
    from stablecost.errors import ProgramParseError
    from stablecost.featurize.ingest import load_program

    assert b"\0add\0" in mlp_bytecode   # the op name of stablehlo.add, in the string table
    bad = mlp_bytecode.replace(b"\0add\0", b"\0adX\0")
    with pytest.raises(ProgramParseError, match="adX"):
        load_program(bad, name="x.mlirbc")


@pytest.mark.parametrize("child, env, message", [
    ("import os; os.abort()", {}, r"the MLIR reader crashed on it \((SIGABRT|exit code)"),
    ("import time; time.sleep(30)", {"STABLECOST_MAX_PARSE_SECONDS": "1"},
     r"took over 1 s \(budget STABLECOST_MAX_PARSE_SECONDS\)"),
])
def test_the_bytecode_child_dying_or_hanging_is_one_line(mlp_bytecode, monkeypatch, child,
                                                          env, message):
    from stablecost.errors import ProgramParseError
    from stablecost.featurize import isolation

    isolation._stop_child()
    monkeypatch.setattr(isolation, "_CHILD", child)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    try:
        with pytest.raises(ProgramParseError, match=message):
            isolation.bytecode_as_text(mlp_bytecode, "x.mlirbc")
    finally:
        isolation._stop_child()
    monkeypatch.undo()
    assert "func.func" in isolation.bytecode_as_text(mlp_bytecode, "x.mlirbc")   # a new child
