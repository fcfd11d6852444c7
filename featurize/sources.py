"""The forms a program comes in (a path, MLIR text, bytes, an `ir.Module`, a
`jax.stages.Lowered`, a JAX function with example arguments, a PyTorch module with
example arguments or an ExportedProgram) -> a parsed MLIR module and the label that
names it in messages."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import InvalidArgumentError, ProgramParseError, StablecostError
from .isolation import bytecode_as_text, in_child, parse_bytecode
from .jax_export import looks_exported, read_exported
from .mlir import BYTECODE_MAGIC, check_source, parse_module
from .partition import Mesh, abstract_lowering
from .portable import vhlo_version
from .program_files import read_program_file
from .torch_programs import is_torch_program, looks_pt2, read_pt2, torch_stablehlo

SOURCE_FORMS = ("a .mlir or .mlirbc path (or a jax.export artifact or torch.export .pt2), "
                "MLIR text, bytes, a JAX function, or a torch.nn.Module")


def module_from_source(source: Any, name: str | None, example_args: tuple,
                       example_kwargs: dict, mesh: Mesh | None
                       ) -> tuple[Any, str, str | bytes | None, list[str]]:
    """(MLIR module, label, StableHLO, notes) of any form but a `Program`; `name`
    overrides the label. The StableHLO is what the module was parsed from
    (`Program.stablehlo`): held by reference, never copied, except bytecode, kept as the
    text its isolated read printed, and an `ir.Module`, for which it is None. The notes
    say what a jax.export artifact recorded about itself."""
    reject_empty_text(source, SOURCE_FORMS)
    if isinstance(source, (str, os.PathLike)) and looks_like_path(source):
        path = Path(source)
        label = name or str(path)
        data = read_program_file(path, SOURCE_FORMS)
        module, kept, notes = parse_bytes(data, label)
        return module, label, kept, notes
    if isinstance(source, str):
        label = name or "<string>"
        return parse_module(source, label), label, source, []
    if isinstance(source, (bytes, bytearray, memoryview)):
        label = name or "<bytes>"
        module, kept, notes = parse_bytes(bytes(source), label)
        return module, label, kept, notes
    if is_torch_program(source):
        text, label, notes = torch_stablehlo(source, example_args, example_kwargs, name)
        return parse_module(text, label), label, text, notes
    module_type = type(source).__name__
    if module_type == "Module" and hasattr(source, "body"):
        return source, name or "<module>", None, []
    lowered = as_lowered(source, example_args, example_kwargs, mesh)
    if lowered is not None:
        text = lowered.as_text(debug_info=True)
        label = name or f"<jax {getattr(source, '__name__', type(source).__name__)}>"
        return parse_module(text, label), label, text, []
    raise InvalidArgumentError(
        f"cannot load a program from {type(source).__name__}: give a path, MLIR text, "
        "bytes, a jax.stages.Lowered, a JAX function or torch.nn.Module with example "
        "arguments, or a torch.export ExportedProgram")


def reject_empty_text(source: Any, allowed: str) -> None:
    """An empty or blank string is neither a path nor a program."""
    if isinstance(source, str) and not source.strip():
        raise InvalidArgumentError(f"program is an empty string (give {allowed})")


def looks_like_path(source: str | os.PathLike) -> bool:
    """Whether a string (any `PathLike` is) names a file rather than holding MLIR text."""
    if not isinstance(source, str):
        return True
    return "\n" not in source and "{" not in source and len(source) < 4096


def parse_bytes(data: bytes, label: str) -> tuple[Any, str | bytes, list[str]]:
    """MLIR bytecode, a jax.export artifact or UTF-8 text -> (module, the StableHLO to
    keep, notes). Bytecode is read in a child process (`featurize/isolation.py`):
    jaxlib's reader crashes on some corrupt bytecode; what is kept is then the text the
    child printed (bytecode itself only in a process that is disposable, where it was
    read directly). A StableHLO portable artifact (VHLO) is deserialized there
    (`featurize/portable.py`); a jax.export artifact gives up the portable artifact it
    holds (`featurize/jax_export.py`), which goes the same way. A zip archive is taken
    for a torch.export `.pt2` (`featurize/torch_programs.py`)."""
    if data.startswith(BYTECODE_MAGIC):
        if not in_child():
            module = parse_bytecode(data, label)
            # a portable artifact is kept as the StableHLO it holds, not as VHLO
            kept = module.operation.get_asm(enable_debug_info=True,
                                            large_elements_limit=None) \
                if vhlo_version(data) else data
            return module, kept, []
        check_source(data, label)   # the cheap checks first: no child for what they refuse
        text = bytecode_as_text(data, label)
        return parse_module(text, label), text, []
    if looks_pt2(data):   # before looks_exported: a zip header can pass for a flatbuffer
        text, _, notes = torch_stablehlo(read_pt2(data, label), (), {}, label)
        return parse_module(text, label), text, notes
    if looks_exported(data):
        module_bytes, notes = read_exported(data, label)
        module, kept, _ = parse_bytes(module_bytes, label)
        return module, kept, notes
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProgramParseError(
            f"{label}: neither MLIR bytecode (no 'ML\\xefR' header), a jax.export "
            "artifact, nor UTF-8 text") from None
    return parse_module(text, label), data, []


def as_lowered(source: Any, args: tuple, kwargs: dict, mesh: Mesh | None = None) -> Any:
    """`source` as a `jax.stages.Lowered`: itself, or a JAX function lowered with the
    example arguments (for `mesh`, under an abstract mesh); None when it is neither."""
    if hasattr(source, "compiler_ir") and hasattr(source, "as_text"):
        return source  # jax.stages.Lowered
    if not callable(source):
        return None
    try:
        if mesh is not None:
            return abstract_lowering(source, args, kwargs, mesh)
        if hasattr(source, "lower") and callable(source.lower):
            return source.lower(*args, **kwargs)  # jitted function
        import jax

        return jax.jit(source).lower(*args, **kwargs)
    except StablecostError:
        raise
    except Exception as exc:   # the user's function did not trace with these arguments
        name = getattr(source, "__name__", type(source).__name__)
        message = (str(exc).strip().splitlines() or [""])[0][:300]
        raise InvalidArgumentError(
            f"could not lower the JAX function {name} with the given example arguments: "
            f"{type(exc).__name__}: {message}") from None
