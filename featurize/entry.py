"""Which `func.func` of a module is the step: @main, the one public function, or the
one the user names with `entry=` (`--entry`).

A module with several public functions and no @main is refused unless `entry` names
one: which one runs is the user's to say, never a guess. A named entry other than @main
becomes @main of a copy of the module (an @main already there is renamed out of the
way, calls follow the new names), because everything downstream (the walk, XLA's
partitioner, shape refinement) starts at @main.

    >>> module = parse_module("func.func @a(...) ... func.func @b(...) ...")
    >>> entry_name(module, "m.mlir", None)
    UnsupportedProgramError: m.mlir: 2 public functions (@a, @b) and none is @main: ...
    >>> module = with_entry(module, "m.mlir", "b")   # @b is now @main
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgumentError, ProgramParseError, UnsupportedProgramError


def functions(module: Any) -> dict[str, Any]:
    """name -> func.func op, in module order."""
    return {op.attributes["sym_name"].value: op for op in module.body.operations
            if op.operation.name == "func.func"}


def public_functions(module: Any) -> list[str]:
    return [name for name, func in functions(module).items() if _is_public(func)]


def _is_public(func: Any) -> bool:
    attrs = func.attributes
    return "sym_visibility" not in attrs or attrs["sym_visibility"].value == "public"


def _shown(names: list[str]) -> str:
    return ", ".join(f"@{n}" for n in names[:8]) + \
        (f" and {len(names) - 8} more" if len(names) > 8 else "")


def entry_name(module: Any, label: str, entry: str | None) -> str:
    """The name of the function that runs: `entry` when given (it must be a public
    function of the module), else @main, else the only public function."""
    funcs = functions(module)
    if not funcs:
        raise ProgramParseError(f"{label}: the module has no func.func to run")
    public = [n for n, f in funcs.items() if _is_public(f)]
    if entry is not None:
        if entry.startswith("@"):
            entry = entry[1:]
        if entry not in public:
            what = "a private function" if entry in funcs else "no function"
            raise InvalidArgumentError(
                f"{label}: entry {entry!r} is {what} of the module; its public functions "
                f"are {_shown(public) or 'none'}")
        return entry
    if "main" in funcs:
        return "main"
    if len(public) > 1:
        raise UnsupportedProgramError(
            f"{label}: {len(public)} public functions ({_shown(public)}) and none is "
            "@main: stablecost cannot tell which one is the step; choose it with "
            "entry=NAME (CLI: --entry NAME)")
    return public[0] if public else next(iter(funcs))


def check_entry(entry: Any) -> str | None:
    if entry is not None and (not isinstance(entry, str) or not entry.strip("@ ")):
        raise InvalidArgumentError(f"entry must be the name of a public function (a "
                                   f"non-empty string), got {entry!r}")
    return entry


def with_entry(module: Any, label: str, entry: str | None,
               copy: Any = None) -> tuple[Any, str]:
    """(`module` with the chosen entry as @main, its original name). When `entry` is
    another function than @main, `copy()` gives a module to rename in (the caller's
    module is never changed)."""
    name = entry_name(module, label, entry)
    if name == "main":
        return module, name
    if entry is None:   # the only public function: the walk starts there as it is
        return module, name
    from .mlir import bindings, context

    ir = bindings()[0]
    module = copy() if copy is not None else module
    funcs = functions(module)
    with context():
        top = module.operation
        if "main" in funcs:
            spare = next(f"main_{i}" for i in range(len(funcs) + 1)
                         if f"main_{i}" not in funcs)
            ir.SymbolTable.replace_all_symbol_uses("main", spare, top)
            ir.SymbolTable.set_symbol_name(funcs["main"], spare)
        ir.SymbolTable.replace_all_symbol_uses(name, "main", top)
        ir.SymbolTable.set_symbol_name(funcs[name], "main")
    return module, name
