"""Hostile inputs for stablecost, by class, and how to tell a typed error from a death.

    from adversarial_corpus import corpus, run_cli
    for case in corpus(): print(case.kind, outcome(run_cli(case)))

Classes (each a handful of cases, all small enough to build in a second):

| class | what |
|---|---|
| non-utf8-names | `\\FF` escapes in an op name and a symbol, raw 0xFF bytes |
| deep-nesting | 3,500 nested `stablehlo.while` |
| call-fan-out | 40 functions each calling the next twice (2^40 inlined calls) |
| nested-calls | 500 functions each calling the next once |
| trip-count-product | 40 nested loops of 1e9 trips each |
| bytecode-flips | 3 random bytes changed in an example's bytecode (seeded; see below) |
| huge-input | /dev/zero as the program; a body over the HTTP limit |
| oversized-names | 6,000-character paths, 300-character chip names, 100 kB symbol names |
| odd-attributes | a module attribute of the wrong kind |

The seeds in `KNOWN_BAD_FLIPS` crashed or hung jaxlib 0.10.2's bytecode reader when it
ran in the process itself. A case is bytes for stdin (or argv naming a path) plus
environment overrides; the budgets some cases set (STABLECOST_MAX_OPS, ...) only make
them fail sooner, the defaults refuse them too. Shared by tests/test_adversarial.py and
benchmarks/adversarial.py.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "programs"

# (example, seed) of `flip` that killed (SIGSEGV) or hung (over 15 s) the process when
# jaxlib 0.10.2's bytecode reader ran in it, or raised a traceback: a search of seeds
# 0-1,999 of four examples (0-1,499 for the first two) found 2 crashes, 8 hangs and 1
# traceback among 7,000 flips that featurize/bytecode.py lets through. Kept: both
# crashes, the traceback (a float where an integer attribute belongs), two hangs.
KNOWN_BAD_FLIPS: tuple[tuple[str, int], ...] = (
    ("resnet_cnn_train_step", 870), ("transformer_shard_map_8dev", 1008),
    ("transformer_shard_map_8dev", 209),
    ("mlp_train_step", 1399), ("transformer_block_train_step", 798))


@dataclass(frozen=True)
class Case:
    """One hostile input: `data` on stdin (None: `argv` names the input)."""

    kind: str
    name: str
    data: bytes | None
    argv: tuple[str, ...] = ("analyze", "-")
    env: dict[str, str] = field(default_factory=dict)


def nested_whiles(depth: int) -> str:
    inner = "stablehlo.return %x : tensor<f32>"
    for i in range(depth):
        inner = (f"%r{i} = stablehlo.while(%a{i} = %x) : tensor<f32>\n cond {{\n"
                 f"  %c{i} = stablehlo.constant dense<true> : tensor<i1>\n"
                 f"  stablehlo.return %c{i} : tensor<i1>\n }} do {{\n {inner}\n }}\n"
                 f"stablehlo.return %r{i} : tensor<f32>")
    head, _, tail = inner.rpartition("stablehlo.return")
    return f"func.func @main(%x: tensor<f32>) -> tensor<f32> {{\n{head}return{tail}\n}}"


def call_chain(functions: int, calls_per_function: int, name_chars: int = 0) -> str:
    """`functions` functions, each calling the next `calls_per_function` times; names
    padded to `name_chars` characters."""
    pad = "x" * max(0, name_chars - 8)
    out = []
    for i in range(functions):
        body = "".join(f"  %c{j} = func.call @f{pad}{i + 1}(%x) : (tensor<f32>) -> tensor<f32>\n"
                       for j in range(calls_per_function)) if i + 1 < functions else ""
        out.append(f"func.func private @f{pad}{i}(%x: tensor<f32>) -> tensor<f32> {{\n{body}"
                   "  %y = stablehlo.add %x, %x : tensor<f32>\n  return %y : tensor<f32>\n}")
    main = (f"func.func @main(%x: tensor<f32>) -> tensor<f32> {{\n"
            f"  %y = func.call @f{pad}0(%x) : (tensor<f32>) -> tensor<f32>\n"
            "  return %y : tensor<f32>\n}")
    return "module {\n" + "\n".join(out + [main]) + "\n}"


def nested_counted_loops(depth: int, trips: int) -> str:
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


def bytecode(example: str) -> bytes:
    """An example program's MLIR bytecode (written by this process: trusted)."""
    from stablecost.featurize.mlir import parse_module

    buf = io.BytesIO()
    parse_module((EXAMPLES / f"{example}.mlir").read_text()).operation.write_bytecode(buf)
    return buf.getvalue()


def flip(data: bytes, seed: int, count: int = 3) -> bytes:
    """`count` bytes after the magic set to random values (seeded)."""
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(count):
        out[rng.randrange(4, len(out))] = rng.randrange(256)
    return bytes(out)


_ONE_OP = ("func.func @main(%x: tensor<f32>) -> tensor<f32> {{\n"
           "  %0 = {op}(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}}")


def corpus(flips: int = 12, seed: int = 0) -> list[Case]:
    """Every class; `flips` seeded bytecode flips besides the known bad ones."""
    cases = [
        Case("non-utf8-names", "escaped op name",
             _ONE_OP.format(op='"stablehlo.ab\\FF\\FE"').encode()),
        Case("non-utf8-names", "escaped callee",
             _ONE_OP.format(op='func.call @"f\\FF"').encode()),
        Case("non-utf8-names", "raw byte in a name",
             _ONE_OP.format(op='"stablehlo.a\xff"').encode("latin-1")),
        Case("non-utf8-names", "raw byte after the program",
             _ONE_OP.format(op='"stablehlo.negate"').encode() + b"\xff"),
        Case("deep-nesting", "3500 nested whiles", nested_whiles(3500).encode()),
        Case("call-fan-out", "40 functions calling the next twice",
             call_chain(40, 2).encode(), env={"STABLECOST_MAX_OPS": "20000"}),
        Case("nested-calls", "500 nested calls", call_chain(500, 1).encode()),
        Case("trip-count-product", "40 nested loops of 1e9 trips",
             nested_counted_loops(40, 10 ** 9).encode()),
        Case("huge-input", "/dev/zero", None, ("analyze", "/dev/zero"),
             {"STABLECOST_MAX_PROGRAM_BYTES": str(1 << 20)}),
        Case("huge-input", "a program over the byte budget",
             b"func.func @main() -> () {\n  return\n}\n" + b" " * 5000,
             env={"STABLECOST_MAX_PROGRAM_BYTES": "1000"}),
        Case("oversized-names", "6000-character path", None, ("analyze", "a" * 6000)),
        Case("oversized-names", "300-character chip name", None,
             ("hardware", "show", "x" * 300)),
        Case("oversized-names", "100 kB symbol names", call_chain(3, 1, 100_000).encode()),
        Case("odd-attributes", "a float tensor as mhlo.num_partitions",
             b"module attributes {mhlo.num_partitions = dense<1.0> : tensor<f32>} {\n"
             + _ONE_OP.format(op='"stablehlo.negate"').encode() + b"\n}"),
    ]
    examples = {name: bytecode(name) for name in
                {"mlp_train_step", *(e for e, _ in KNOWN_BAD_FLIPS)}}
    for example, s in KNOWN_BAD_FLIPS:
        cases.append(Case("bytecode-flips", f"{example} seed {s} (known bad)",
                          flip(examples[example], s)))
    for s in range(seed, seed + flips):
        cases.append(Case("bytecode-flips", f"mlp_train_step seed {s}",
                          flip(examples["mlp_train_step"], s)))
    return cases


def run_cli(case: Case, timeout_s: float = 120) -> subprocess.CompletedProcess:
    """`python -m stablecost.serve.cli ARGV` with the case on stdin."""
    return subprocess.run([sys.executable, "-m", "stablecost.serve.cli", *case.argv],
                          input=case.data or b"", capture_output=True, timeout=timeout_s,
                          env={**os.environ, **case.env}, cwd=ROOT)


def outcome(done: subprocess.CompletedProcess) -> str:
    """"ok", "typed error" (exit 2, one line "stablecost: error: ..."), "death" (a
    signal) or "traceback" (anything else: a Python traceback, another exit code)."""
    err = done.stderr.decode("utf-8", "replace") if isinstance(done.stderr, bytes) \
        else done.stderr
    if done.returncode == 0:
        return "ok"
    if done.returncode < 0:
        return "death"
    if done.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err:
        return "typed error"
    return "traceback"


def run_api(cases: list[Case], timeout_s: float = 120) -> list[tuple[str, str]]:
    """(outcome, message) of `stablecost.analyze(stablecost.load_program(data))` for each
    case with data on stdin, in a child process: one that dies is the case's "death",
    and a new child goes on with the next case."""
    import base64
    import json

    results: list[tuple[str, str]] = []
    pending = list(cases)
    while pending:
        lines = "".join(json.dumps({"data": base64.b64encode(c.data or b"").decode(),
                                    "env": c.env, "name": c.name}) + "\n" for c in pending)
        code = ("import sys; sys.path.insert(0, sys.argv[1]); "
                "from adversarial_corpus import api_child; api_child()")
        done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)],
                              input=lines.encode(), capture_output=True, timeout=timeout_s,
                              cwd=ROOT)
        answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
        results.extend((a["outcome"], a["message"]) for a in answers)
        pending = pending[len(answers):]
        if pending:   # the child died on pending[0]
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
            results.append(("death" if done.returncode < 0 else "traceback",
                            f"exit {done.returncode}: {' '.join(tail)[:300]}"))
            pending = pending[1:]
    return results


def api_child() -> None:  # pragma: no cover - runs in the child of run_api
    """Cases as JSON lines on stdin -> one JSON line of outcome per case on stdout."""
    import base64
    import json

    import stablecost
    from stablecost.errors import StablecostError

    base_env = dict(os.environ)
    for line in sys.stdin:
        case = json.loads(line)
        os.environ.clear()
        os.environ.update({**base_env, **case["env"]})
        try:
            stablecost.analyze(stablecost.load_program(base64.b64decode(case["data"]),
                                                       name=case["name"]))
            result = {"outcome": "ok", "message": ""}
        except StablecostError as exc:
            message = str(exc)
            result = {"outcome": "typed error" if "\n" not in message else "traceback",
                      "message": message[:300]}
        except Exception as exc:   # noqa: BLE001 - what the corpus is looking for
            result = {"outcome": "traceback", "message": f"{type(exc).__name__}: {exc}"[:300]}
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
