"""Dynamic shapes -> static ones: a program whose @main takes `tensor<?x128xf32>` (what
`jax.export` with shape polymorphism produces) is priced at the shapes the user gives.

`shapes` names arguments ({"arg0": (8, 128)}, CLI `--shape arg0=8x128`); `dims` names
the symbolic dimensions of a jax.export module ({"b": 8}, CLI `--dim b=8`). A
jax.export module passes each symbolic dimension to its inner functions as an argument
marked `jax.global_constant = "b"`, computed in @main by `get_dimension_size` of one
argument's dimension (through converts and reshapes): that is where a dimension's value
goes. Every other dynamic dimension is one that jax's shape assertions in @main compare
EQ with an expression of those (the second h of (b, h, h, 4), the 2*b of a (2*b, 4)
argument): its size is that expression evaluated.

With the arguments' static types, StableHLO's `stablehlo-refine-arguments` pass
retypes @main and jax's `refine_polymorphic_shapes` (jaxlib's C++: inlining,
`stablehlo-refine-shapes`, canonicalization, jax's shape assertions checked and
dropped) propagates them through the module.

    >>> module = parse_module(exported.mlir_module())     # @main(%arg0: tensor<?x128xf32>)
    >>> refined, notes = refine(module, "f", None, {"b": 8}, copy)
    >>> notes
    ['dynamic shapes refined to arg0 = 8x128 (b=8)']
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..errors import InvalidArgumentError, UnsupportedProgramError
from .entry import functions

_PASS_THROUGH = frozenset({"stablehlo.convert", "stablehlo.reshape"})


def check_shapes(shapes: Any) -> dict[str, tuple[int, ...]] | None:
    """`shapes` as {"argN": (dims...)}: keys "argN", "%argN" or an int N; a shape is a
    sequence of ints >= 0 or a string "8x128"."""
    if shapes is None:
        return None
    if not isinstance(shapes, Mapping):
        raise InvalidArgumentError(f"shapes must be a mapping like {{'arg0': (8, 128)}}, got "
                                   f"{type(shapes).__name__}")
    out: dict[str, tuple[int, ...]] = {}
    for key, shape in shapes.items():
        name = _arg_name(key)
        out[name] = _shape(shape, name)
    return out


def _arg_name(key: Any) -> str:
    if isinstance(key, int) and not isinstance(key, bool) and key >= 0:
        return f"arg{key}"
    if isinstance(key, str):
        name = key.lstrip("%")
        if name.startswith("arg") and name[3:].isdigit():
            return f"arg{int(name[3:])}"
    raise InvalidArgumentError(f"shapes key {key!r}: name an argument of the entry function "
                               "as 'arg0', 'arg1', ... (or its index)")


def _shape(shape: Any, name: str) -> tuple[int, ...]:
    if isinstance(shape, str):
        text = shape.strip()
        parts = text.split("x") if text else []
        if not all(p.strip().isdigit() for p in parts):
            raise InvalidArgumentError(f"shape of {name} {shape!r}: give sizes joined by 'x' "
                                       "(e.g. 8x128; '' for a scalar)")
        return tuple(int(p) for p in parts)
    if isinstance(shape, (list, tuple)) and all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        return tuple(shape)
    raise InvalidArgumentError(f"shape of {name} {shape!r}: give a tuple of sizes >= 0 "
                               "(e.g. (8, 128)) or a string like '8x128'")


def check_dims(dims: Any) -> dict[str, int] | None:
    if dims is None:
        return None
    if not isinstance(dims, Mapping) or not all(
            isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool)
            and v >= 0 for k, v in dims.items()):
        raise InvalidArgumentError(f"dims must map symbolic dimension names to sizes >= 0 "
                                   f"(e.g. {{'b': 8}}), got {dims!r}")
    return dict(dims)


def needs_refinement(module: Any) -> bool:
    """Whether @main takes an argument with a dynamic dimension."""
    main = functions(module).get("main")
    if main is None:
        return False
    return any(_dynamic(arg.type) for arg in main.regions[0].blocks[0].arguments)


def _dynamic(mlir_type: Any) -> bool:
    from .mlir import bindings

    ir = bindings()[0]
    return isinstance(mlir_type, ir.RankedTensorType) and not mlir_type.has_static_shape


def symbolic_dims(module: Any) -> dict[tuple[int, int], str]:
    """(argument, dimension) -> the jax.export symbolic dimension read from it in @main."""
    from .mlir import bindings

    ir = bindings()[0]
    funcs = functions(module)
    main = funcs.get("main")
    if main is None:
        return {}
    found: dict[tuple[int, int], str] = {}
    for view in main.regions[0].blocks[0].operations:
        op = view.operation
        if op.name != "func.call":
            continue
        callee = funcs.get(op.attributes["callee"].value)
        if callee is None or "arg_attrs" not in callee.attributes:
            continue
        arg_attrs = callee.attributes["arg_attrs"]
        for i, operand in enumerate(op.operands):
            if i >= len(arg_attrs):
                break
            attrs = ir.DictAttr(arg_attrs[i])
            if "jax.global_constant" not in attrs:
                continue
            source = _dimension_source(operand, ir)
            if source is not None:
                found.setdefault(source, ir.StringAttr(attrs["jax.global_constant"]).value)
    return found


def asserted_dims(module: Any) -> list[tuple[tuple[int, int], Any]]:
    """((argument, dimension), the value jax's shape assertions in @main say it equals):
    a dimension whose size follows from others (the second h of (b, h, h, 4), the 2*b
    of a (2*b, 4) argument) is compared EQ with an expression of them."""
    from .mlir import bindings

    ir = bindings()[0]
    main = functions(module).get("main")
    if main is None:
        return []
    out = []
    for view in main.regions[0].blocks[0].operations:
        op = view.operation
        if op.name != "stablehlo.compare" or \
                "EQ" not in str(op.attributes["comparison_direction"]):
            continue
        lhs, rhs = op.operands[0], op.operands[1]
        for side, other in ((lhs, rhs), (rhs, lhs)):
            source = _dimension_source(side, ir)
            if source is not None:
                out.append((source, other))
    return out


_ARITHMETIC: dict[str, Callable[[int, int], int | None]] = {
    "stablehlo.add": lambda a, b: a + b, "stablehlo.subtract": lambda a, b: a - b,
    "stablehlo.multiply": lambda a, b: a * b, "stablehlo.maximum": max,
    "stablehlo.minimum": min,
    "stablehlo.divide": lambda a, b: a // b if b else None,
}


def _evaluate(value: Any, sizes: dict[tuple[int, int], int], ir: Any,
              depth: int = 0) -> int | None:
    """The integer `value` holds in @main when the argument dimensions in `sizes` are
    known: dimension sizes, scalar integer constants and +, -, *, /, max, min of them
    (what jax's shape assertions compute); None for anything else."""
    if depth > 32 or isinstance(value, ir.BlockArgument):
        return None
    op = value.owner
    name = op.name
    if name in _PASS_THROUGH:
        return _evaluate(op.operands[0], sizes, ir, depth + 1)
    if name == "stablehlo.get_dimension_size":
        source = _dimension_source(value, ir)
        return None if source is None else sizes.get(source)
    if name == "stablehlo.constant":
        attr = op.attributes["value"]
        if isinstance(attr, ir.DenseIntElementsAttr) and attr.is_splat:
            return int(ir.IntegerAttr(attr.get_splat_value()).value)
        return None
    combine = _ARITHMETIC.get(name)
    if combine is None or len(op.operands) != 2:
        return None
    a = _evaluate(op.operands[0], sizes, ir, depth + 1)
    b = _evaluate(op.operands[1], sizes, ir, depth + 1)
    return None if a is None or b is None else combine(a, b)


def _referenced(value: Any, names: dict[tuple[int, int], str], ir: Any,
                depth: int = 0) -> set[str]:
    """The symbolic dimensions an assertion's expression reads."""
    if depth > 32 or isinstance(value, ir.BlockArgument):
        return set()
    op = value.owner
    if op.name == "stablehlo.get_dimension_size":
        source = _dimension_source(value, ir)
        return {names[source]} if source in names else set()
    out: set[str] = set()
    for operand in op.operands:
        out |= _referenced(operand, names, ir, depth + 1)
    return out


def _dimension_source(value: Any, ir: Any) -> tuple[int, int] | None:
    """(argument number, dimension) when `value` is `get_dimension_size` of an argument
    of @main, through converts and reshapes; None otherwise."""
    for _ in range(8):
        if isinstance(value, ir.BlockArgument):
            return None
        op = value.owner
        if op.name in _PASS_THROUGH:
            value = op.operands[0]
            continue
        if op.name == "stablehlo.get_dimension_size":
            arg = op.operands[0]
            if isinstance(arg, ir.BlockArgument):
                return arg.arg_number, ir.IntegerAttr(op.attributes["dimension"]).value
        return None
    return None


def refine(module: Any, label: str, shapes: dict[str, tuple[int, ...]] | None,
           dims: dict[str, int] | None, copy: Any) -> tuple[Any, list[str]]:
    """(a module with static shapes, notes): `module` when nothing is dynamic and no
    shapes were given, else a refined copy (`copy()` gives the copy to refine)."""
    from .mlir import bindings

    ir = bindings()[0]
    main = functions(module)["main"]
    args = list(main.regions[0].blocks[0].arguments)
    names = symbolic_dims(module)
    known_dims = sorted(set(names.values()))
    shapes, dims = shapes or {}, dims or {}
    unknown = sorted(set(shapes) - {f"arg{i}" for i in range(len(args))})
    if unknown:
        raise InvalidArgumentError(f"{label}: shapes for {', '.join(unknown)}, but the entry "
                                   f"function has {len(args)} argument(s) (arg0 .. "
                                   f"arg{len(args) - 1})" if args else
                                   f"{label}: shapes given, but the entry function has no "
                                   "arguments")
    stray = sorted(set(dims) - set(known_dims))
    if stray:
        raise InvalidArgumentError(
            f"{label}: dims {', '.join(stray)} are not symbolic dimensions of the program "
            f"(it has {', '.join(known_dims) or 'none'})")
    if not shapes and not dims and not any(_dynamic(a.type) for a in args):
        return module, []
    types: list[str] = []
    missing: list[str] = []
    told: list[str] = []
    # every argument dimension whose size is known: given shapes, given dims, and what
    # jax's shape assertions derive from them (repeated: one derivation may need another)
    sizes: dict[tuple[int, int], int] = {}
    for key, given_shape in shapes.items():
        sizes.update({(int(key[3:]), d): size for d, size in enumerate(given_shape)})
    sizes.update({source: dims[name] for source, name in names.items() if name in dims})
    asserted = asserted_dims(module)
    changed = True
    while changed:
        changed = False
        for source, expression in asserted:
            if source not in sizes:
                size = _evaluate(expression, sizes, ir)
                if size is not None:
                    sizes[source], changed = size, True
    for i, arg in enumerate(args):
        t = arg.type
        given = shapes.get(f"arg{i}")
        if not isinstance(t, ir.RankedTensorType):
            if given is not None:
                raise InvalidArgumentError(f"{label}: arg{i} is {t}, not a ranked tensor: it "
                                           "takes no shape")
            types.append(str(t))
            continue
        declared = [None if t.is_dynamic_dim(d) else t.get_dim_size(d) for d in range(t.rank)]
        if given is not None:
            if len(given) != len(declared) or any(
                    s is not None and s != g for s, g in zip(declared, given)):
                raise InvalidArgumentError(
                    f"{label}: shape {_text(given)} for arg{i} does not fit its type {t}")
            shape = list(given)
        else:
            found = [sizes.get((i, d)) if size is None else size
                     for d, size in enumerate(declared)]
            if any(s is None for s in found):
                free: set[str] = set()
                for d, size in enumerate(found):
                    if size is None:
                        free |= {names[(i, d)]} if (i, d) in names else set().union(
                            *(_referenced(e, names, ir) for src, e in asserted
                              if src == (i, d)))
                hint = ", ".join(sorted(free))
                missing.append(f"arg{i} ({t}" + (f"; dims {hint}" if hint else "") + ")")
                types.append("")
                continue
            shape = [int(s) for s in found if s is not None]
        if any(s is None for s in declared):
            told.append(f"arg{i} = {_text(shape)}")
        types.append(str(ir.RankedTensorType.get(shape, t.element_type,
                                                 loc=ir.Location.unknown(t.context))))
    if missing:
        dims_hint = (f" or dims={{{', '.join(repr(n) + ': ...' for n in known_dims)}}}"
                     f" (--dim {known_dims[0]}=N)") if known_dims else ""
        raise UnsupportedProgramError(
            f"{label}: dynamic shapes: give static shapes for {', '.join(missing)} with "
            f"shapes={{'arg0': (8, 128), ...}} (CLI: --shape arg0=8x128){dims_hint}")
    refined = _run(copy(), types, label, told)
    used = ", ".join(f"{k}={v}" for k, v in sorted(dims.items()))
    note = ("dynamic shapes refined to " + (", ".join(told) or "the given shapes")
            + (f" ({used})" if used else ""))
    return refined, [note]


def _text(shape: Any) -> str:
    return "x".join(str(s) for s in shape) or "a scalar"


def _run(module: Any, types: list[str], label: str, told: list[str]) -> Any:
    from jaxlib.mlir import passmanager

    from .mlir import bindings, context, parse_module, register_passes

    ir = bindings()[0]
    register_passes()
    ctx = context()
    messages: list[str] = []

    def collect(diagnostic: Any) -> bool:
        messages.append(str(diagnostic.message))
        return True

    what = ", ".join(told) or "the given shapes"
    handler = ctx.attach_diagnostic_handler(collect)
    try:
        with ctx, ir.Location.unknown():
            spec = ",".join(types)
            passmanager.PassManager.parse(
                f"builtin.module(stablehlo-refine-arguments{{types='{spec}'}})").run(
                module.operation)
        data = module.operation.get_asm(binary=True)
    except ir.MLIRError as exc:
        first = ((messages[0] if messages else str(exc)).strip().splitlines() or [""])[0]
        raise UnsupportedProgramError(f"{label}: cannot refine the program to {what}: "
                                      f"{first[:300]}") from None
    finally:
        handler.detach()
    try:
        from jaxlib import _jax

        refined = _jax.mlir.refine_polymorphic_shapes(
            data, enable_shape_assertions=True, validate_static_shapes=True)
    except Exception as exc:   # jaxlib's status errors: a failed shape assertion, ...
        lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
        detail = lines[0] if lines else type(exc).__name__
        if "error: " in detail:   # "INVALID_ARGUMENT: ... -:8:5: error: <the message>"
            detail = detail.split("error: ", 1)[1]
        detail = detail.split(" Using the following", 1)[0]   # jax's long assertion text
        raise InvalidArgumentError(f"{label}: shape refinement at {what} failed: "
                                   f"{detail.strip()[:300]}") from None
    return parse_module(bytes(refined), label)
