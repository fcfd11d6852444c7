"""How closely stablecost's fused kernels match XLA:CPU's own fusion decisions.

    .venv/bin/python benchmarks/fusion_agreement.py

For each JAX program: the number of kernels we form vs the kernels in XLA's compiled
HLO (`compiled.as_text()`: fusions plus unfused compute instructions, outside fused and
reducer computations), and a pairwise agreement over ops matched by their JAX op name
and source position (`name@line:col`; ops whose key occurs in exactly one kernel on
both sides; metadata ops such as reshapes are left out): precision = share of the pairs we fuse
together that XLA also fuses,
recall = share of XLA's fused pairs we also fuse. Per program the pairs are few, so
the last row also pools the pairs of all programs. The HLO text is read with a few
regular expressions: it is XLA's dump format, not the program we parse (that goes
through the MLIR bindings).

XLA:CPU is the only XLA at hand: it does no multi-output fusion, so the multi-output
rows measure how far the GPU/TPU kernels are from XLA:CPU's, not their agreement with
XLA:GPU (whose optimised HLO needs a GPU to dump).

A last table sets the bytes our kernels move at their boundaries (`analyze`'s, and
featurizer version 6's, which let a dot fuse into a consumer larger than its result)
beside XLA's `cost_analysis()["bytes accessed"]` of the compiled program.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

_NOT_KERNELS = {"parameter", "constant", "get-tuple-element", "tuple", "bitcast", "while",
                "conditional", "call", "after-all", "partition-id", "replica-id",
                "opt-barrier", "copy-start", "copy-done"}
_OPCODE = re.compile(r"\s([a-z][a-z0-9\-_]*)\(")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
_CALLED = re.compile(r"(?:calls|to_apply|condition|body)=(%[\w.\-]+)")


_FRAME_ROW = re.compile(r"(\d+) \{(.*)\}$")
_FRAME_REF = re.compile(r'op_name="([^"]*)" stack_frame_id=(\d+)')


def _frames(hlo_text: str) -> dict[str, tuple[str, str]]:
    """stack_frame_id -> (line, column) of its innermost source location."""
    locations: dict[str, tuple[str, str]] = {}
    frames: dict[str, tuple[str, str]] = {}
    section = None
    for line in hlo_text.splitlines():
        stripped = line.strip()
        if stripped in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            section = stripped
            continue
        row = _FRAME_ROW.match(stripped)
        if not row or section not in ("FileLocations", "StackFrames"):
            continue
        fields = dict(kv.split("=", 1) for kv in row.group(2).split())
        if section == "FileLocations":
            locations[row.group(1)] = (fields.get("line", "?"), fields.get("column", "?"))
        elif fields.get("file_location_id") in locations:
            frames[row.group(1)] = locations[fields["file_location_id"]]
    return frames


def xla_kernels(hlo_text: str) -> list[set[str]]:
    """Kernels of a compiled HLO module, each as the set of `op_name@line:col` keys of
    the JAX ops inside it."""
    frames = _frames(hlo_text)
    hlo_text = _FRAME_REF.sub(
        lambda m: 'op_name="{}@{}:{}"'.format(m.group(1), *frames.get(m.group(2), ("?", "?"))),
        hlo_text)
    computations: dict[str, list[str]] = {}
    current = None
    for line in hlo_text.splitlines():
        stripped = line.strip()
        if stripped.endswith("{") and ("->" in stripped) and " = " not in stripped.split("(")[0]:
            name = stripped.split()[1] if stripped.startswith("ENTRY") else stripped.split()[0]
            current = name
            computations[current] = []
        elif stripped == "}":
            current = None
        elif current and " = " in stripped:
            computations[current].append(stripped)
    fused, reducers = set(), set()
    for lines in computations.values():
        for line in lines:
            for m in re.finditer(r"calls=(%[\w.\-]+)", line):
                fused.add(m.group(1))
            for m in re.finditer(r"to_apply=(%[\w.\-]+)", line):
                reducers.add(m.group(1))
    kernels = []
    for name, lines in computations.items():
        if name in fused or name in reducers:
            continue
        for line in lines:
            rhs = line.split(" = ", 1)[1]
            m = _OPCODE.search(" " + rhs)
            opcode = m.group(1) if m else ""
            if opcode in _NOT_KERNELS:
                continue
            names = set(_OP_NAME.findall(line))
            called = re.search(r"calls=(%[\w.\-]+)", line)
            if opcode == "fusion" and called:
                for inner in computations.get(called.group(1), []):
                    names.update(_OP_NAME.findall(inner))
            kernels.append(names)
    return kernels


def our_kernels(analysis, **rule: bool) -> list[set[str]]:
    """Our kernels as sets of op keys; `rule`: `fuse`'s keyword options."""
    from stablecost.featurize.fusion import FREE, fuse, fusion_class

    ops = analysis.program.ops
    kernels = fuse(analysis.program, analysis.costs, **rule)
    # metadata ops (reshape, constant, ...) do no work in any kernel: which one they
    # are attributed to is not a fusion decision, so they are left out of the pairs
    return [{_key(ops[i].location) for i in k.ops if fusion_class(ops[i].opcode) != FREE}
            for k in kernels]


def _key(location: str) -> str:
    """`jit(f)/exp @ file.py:12:8` -> `jit(f)/exp@12:8`, the key `xla_kernels` uses."""
    name, _, where = location.partition(" @ ")
    parts = where.rsplit(":", 2)
    return f"{name}@{parts[1]}:{parts[2]}" if len(parts) == 3 else name


def pair_agreement(ours: list[set[str]], xla: list[set[str]]) -> tuple[int, int, int]:
    def unique(kernels):
        where = defaultdict(set)
        for i, names in enumerate(kernels):
            for n in names:
                where[n].add(i)
        return {n: next(iter(ks)) for n, ks in where.items() if len(ks) == 1}
    a, b = unique(ours), unique(xla)
    common = sorted(set(a) & set(b))
    together_ours = together_xla = both = 0
    for x, y in combinations(common, 2):
        o, t = a[x] == a[y], b[x] == b[y]
        together_ours += o
        together_xla += t
        both += o and t
    return both, together_ours, together_xla


def compare(name: str, lowered, **rule: bool) -> dict:
    import stablecost

    analysis = stablecost.analyze(stablecost.load_program(lowered))
    xla = xla_kernels(lowered.compile().as_text())
    ours = our_kernels(analysis, **rule)
    both, n_ours, n_xla = pair_agreement(ours, xla)
    return {"program": name, "ours": len(ours), "xla": len(xla), "both": both,
            "pairs_ours": n_ours, "pairs_xla": n_xla,
            "precision": both / n_ours if n_ours else 1.0,
            "recall": both / n_xla if n_xla else 1.0}


def programs():
    import jax
    from programs import FLOP_PROGRAMS

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    from export_programs import EXAMPLES

    out = {name: jax.jit(build()[0]).lower(*build()[1]) for name, build in FLOP_PROGRAMS.items()}
    out.update({name: build() for name, build in EXAMPLES.items()})
    out["dropout"] = jax.jit(_dropout).lower(jax.numpy.ones((256, 1024)),
                                             jax.numpy.zeros((2,), jax.numpy.uint32))
    out.update(_zoo())
    return out


def _zoo() -> dict:
    """Two zoo training steps whose dots feed consumers larger than their results: the
    attention's q/k/v gradients concatenated, each expert's weight gradient padded into
    the stack of experts' weights and summed."""
    from stablecost.datasets.collect import lower
    from stablecost.datasets.zoo.sweep import build_program

    steps = {"zoo transformer_train d128-l1-t64": {
                 "family": "transformer_train", "d_model": 128, "layers": 1, "seq": 64,
                 "heads": 2, "vocab": 2048, "batch": 8, "dtype": "f32"},
             "zoo moe d128-e4": {"family": "moe", "d_model": 128, "experts": 4,
                                 "batch": 256, "dtype": "f32"},
             "zoo moe d512-e16": {"family": "moe", "d_model": 512, "experts": 16,
                                  "batch": 1024, "dtype": "f32"}}
    return {name: lower(*build_program(params)) for name, params in steps.items()}


def _dropout(x, key_data):
    """A dropout mask from threefry bits: a chain of integer ops with shared operands."""
    import jax
    import jax.numpy as jnp

    keep = jax.random.bernoulli(jax.random.wrap_key_data(key_data), 0.9, x.shape)
    return jnp.where(keep, x / 0.9, 0.0)


def main() -> None:
    progs = programs()
    modes = (("dot/convolution epilogue fused (analyze's kernels)", {}),
             ("epilogue fused + multi-output fusion (GPU/TPU predictions)",
              {"multi_output": True}),
             ("epilogue not fused (XLA:CPU-style)", {"matmul_epilogue": False}),
             ("epilogue fused into widening consumers too (featurizer 6)",
              {"widening_epilogue": True}))
    for title, rule in modes:
        print(f"\n## {title}")
        table([compare(name, lowered, **rule) for name, lowered in progs.items()])
    print("\n## bytes at kernel boundaries, MB per step")
    print(f"{'program':36s} {'ours':>9s} {'fv6 rule':>9s} {'XLA':>9s} {'ours/XLA':>9s} "
          f"{'fv6/XLA':>8s}")
    for name, lowered in progs.items():
        ours, fv6, xla = boundary_bytes(lowered)
        print(f"{name:36s} {ours / 1e6:9.2f} {fv6 / 1e6:9.2f} {xla / 1e6:9.2f} "
              f"{ours / xla:9.2f} {fv6 / xla:8.2f}")


def boundary_bytes(lowered) -> tuple[float, float, float]:
    """(our kernels' boundary bytes, the same under featurizer 6's rule, XLA's bytes
    accessed) of one step."""
    import stablecost
    from stablecost.featurize.fusion import fuse

    analysis = stablecost.analyze(stablecost.load_program(lowered))
    fv6 = fuse(analysis.program, analysis.costs, widening_epilogue=True)
    return (analysis.fused_bytes_accessed, sum(k.bytes_accessed * k.count for k in fv6),
            float(lowered.compile().cost_analysis()["bytes accessed"]))


def table(rows: list[dict]) -> None:
    print(f"{'program':32s} {'kernels':>8s} {'XLA':>6s} {'count err':>9s} "
          f"{'pair prec':>9s} {'pair rec':>9s} {'pairs ours/XLA':>14s}")
    for r in rows:
        err = (r["ours"] - r["xla"]) / r["xla"]
        print(f"{r['program']:32s} {r['ours']:8d} {r['xla']:6d} {err:+9.0%} "
              f"{r['precision']:9.2f} {r['recall']:9.2f} "
              f"{r['pairs_ours']:>7d}/{r['pairs_xla']:<6d}")
    n = len(rows)
    mean_abs = sum(abs(r["ours"] - r["xla"]) / r["xla"] for r in rows) / n
    print(f"{'mean':32s} {'':8s} {'':6s} {mean_abs:9.0%} "
          f"{sum(r['precision'] for r in rows) / n:9.2f} {sum(r['recall'] for r in rows) / n:9.2f}")
    both = sum(r["both"] for r in rows)
    ours, xla = sum(r["pairs_ours"] for r in rows), sum(r["pairs_xla"] for r in rows)
    print(f"{'pooled pairs':32s} {'':8s} {'':6s} {'':9s} "
          f"{both / max(ours, 1):9.2f} {both / max(xla, 1):9.2f} {ours:>7d}/{xla:<6d}")


if __name__ == "__main__":
    main()
