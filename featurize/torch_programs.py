"""PyTorch programs (a `torch.nn.Module` with example arguments, a `torch.export`
`ExportedProgram`, or the `.pt2` archive `torch.export.save` writes) -> StableHLO text,
through torch-mlir (`pip install 'stablecost[torch]'`).

torch.export traces the module; torch-mlir's FX importer lowers the ExportedProgram to
StableHLO (`torch_mlir.fx.export_and_import(..., output_type="stablehlo")`), with the
module's parameters and buffers as the function's leading arguments, as in a JAX step
(see `_lift_state`). The text then goes through the ordinary parse like any `.mlir`.

    >>> text, label, notes = torch_stablehlo(model, (torch.randn(2, 3, 16, 16),), {})
    >>> label
    '<torch CNN>'

A `.pt2` archive is read only when it holds nothing `torch.export.load` would unpickle
or load as code (see `check_pt2`): tensors stored raw, the JSON graph, and example
inputs that torch's restricted `weights_only` unpickler accepts.
"""

from __future__ import annotations

import functools
import io
import json
import sys
import warnings
import zipfile
from typing import Any

from ..errors import (
    InvalidArgumentError,
    MissingExtraError,
    ProgramParseError,
    StablecostError,
    UnsupportedProgramError,
)

ZIP_MAGIC = b"PK\x03\x04"
INSTALL = "pip install 'stablecost[torch]'"
# what a .pt2 archive of torch.export.save may hold, under its one top-level folder
_PT2_FILES = ("archive_format", "archive_version", "byteorder", ".data/version",
              ".data/serialization_id")
_PT2_FOLDERS = ("models/", "data/weights/", "data/constants/", "data/sample_inputs/",
                "extra/")


def is_torch_program(source: Any) -> bool:
    """Whether `source` is a `torch.nn.Module` or an `ExportedProgram` (without importing
    torch: an object of a torch class exists only once torch is imported)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(source, torch.nn.Module):
        return True
    export = sys.modules.get("torch.export")
    return export is not None and isinstance(source, export.ExportedProgram)


def looks_pt2(data: bytes) -> bool:
    """Whether bytes are a zip archive (what `torch.export.save` writes)."""
    return data.startswith(ZIP_MAGIC)


def torch_stablehlo(source: Any, args: tuple, kwargs: dict,
                    label: str | None = None) -> tuple[str, str, list[str]]:
    """(StableHLO text, label, notes) of a module called with `args`/`kwargs`, or of an
    ExportedProgram (which carries its example inputs: give none)."""
    from torch.export import ExportedProgram

    fx = _torch_mlir_fx(label or "a PyTorch program")
    name = type(source).__name__
    label = label or f"<torch {name}>"
    if isinstance(source, ExportedProgram):
        if args or kwargs:
            raise InvalidArgumentError(f"{label}: an ExportedProgram carries its example "
                                       "inputs; give no example arguments")
        exported = source
    else:
        if not args and not kwargs:
            raise InvalidArgumentError(
                f"{label}: a torch.nn.Module needs example arguments, e.g. "
                "load_program(model, torch.randn(8, 3, 32, 32)) or Candidate(args=...)")
        exported = _run(label, "torch.export.export failed with the given example arguments",
                        lambda: _export(source, tuple(args), dict(kwargs)),
                        InvalidArgumentError)
    lifted, n_state, state_bytes = _run(label, "torch.export could not re-export it with its "
                                        "parameters as arguments",
                                        lambda: _lift_state(exported), UnsupportedProgramError)
    module = _run(label, "torch-mlir could not lower it to StableHLO",
                  lambda: fx.export_and_import(lifted, output_type="stablehlo"),
                  UnsupportedProgramError)
    text = module.operation.get_asm(enable_debug_info=True)
    state = (f"; its {n_state} parameters and buffers ({state_bytes:,} bytes) are its first "
             f"{n_state} arguments" if n_state else "")
    return text, label, [f"PyTorch program {label} exported by torch.export and lowered "
                         f"to StableHLO by torch-mlir {_versions()}{state}"]


def read_pt2(data: bytes, label: str) -> Any:
    """The ExportedProgram in a `.pt2` archive, once `check_pt2` passed it."""
    _torch_mlir_fx(label)   # no use reading it without torch-mlir to lower it
    check_pt2(data, label)
    import torch

    return _run(label, "torch.export.load could not read the archive",
                lambda: torch.export.load(io.BytesIO(data)), ProgramParseError)


def check_pt2(data: bytes, label: str) -> None:
    """Refuse a `.pt2` archive with anything `torch.export.load` would run as code: a
    pickled tensor or object (`use_pickle`, custom/opaque objects), a file outside the
    torch.export layout (AOTInductor shared libraries, legacy pickled weights), or
    example inputs torch's `weights_only` unpickler refuses (torch then retries with
    the full unpickler)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ProgramParseError(f"{label}: not a .pt2 archive (a damaged zip file: {exc})"
                                ) from None
    roots = {n.split("/", 1)[0] for n in names}
    if len(roots) != 1 or f"{next(iter(roots))}/archive_format" not in names:
        raise ProgramParseError(f"{label}: a zip file that is not a torch.export .pt2 "
                                "archive (give an archive written by torch.export.save)")
    root = next(iter(roots)) + "/"
    for name in names:
        inner = name[len(root):]
        if inner in _PT2_FILES or inner.endswith("/"):
            continue
        folder = next((f for f in _PT2_FOLDERS if inner.startswith(f)), None)
        legacy = folder in ("data/weights/", "data/constants/") and inner.endswith(".pt")
        if folder is None or legacy:
            raise ProgramParseError(f"{label}: the .pt2 archive holds {inner!r}, which "
                                    "torch.export.load would load as code or pickle; only "
                                    "archives of raw tensors are read")
        if inner.endswith("_config.json"):
            _check_payloads(archive.read(name), inner, label)
        elif folder == "data/sample_inputs/":
            _check_weights_only(archive.read(name), inner, label)


def _check_payloads(config: bytes, inner: str, label: str) -> None:
    try:
        entries = json.loads(config)["config"]
        pickled = [k for k, v in entries.items()
                   if v["use_pickle"] or not str(v["path_name"]).startswith(
                       ("weight_", "tensor_"))]
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ProgramParseError(f"{label}: the .pt2 archive's {inner} is damaged") from None
    if pickled:
        raise ProgramParseError(f"{label}: the .pt2 archive stores {pickled[0]!r} as a "
                                "pickled object, which stablecost does not load; only "
                                "archives of raw tensors are read")


def _check_weights_only(data: bytes, inner: str, label: str) -> None:
    import torch

    try:
        torch.load(io.BytesIO(data), weights_only=True)
    except Exception as exc:
        message = (str(exc).strip().splitlines() or [""])[0][:200]
        raise ProgramParseError(f"{label}: the .pt2 archive's {inner} is not plain "
                                f"tensors ({type(exc).__name__}: {message})") from None


def _export(module: Any, args: tuple, kwargs: dict) -> Any:
    import torch

    return torch.export.export(module, args, kwargs)


def _lift_state(exported: Any) -> tuple[Any, int, int]:
    """`exported` re-exported with its parameters and buffers as leading arguments
    (torch.func.functional_call over `ExportedProgram.module()`): (the ExportedProgram,
    how many, their bytes). torch-mlir would otherwise freeze them into the module as
    constants: a text of twice the weights' size, which XLA cannot compile
    (`dense_resource`) and whose ops on weights (transposes) XLA would fold away. As
    arguments they are what a JAX step takes: parameters in device memory."""
    import torch

    module = exported.module()
    state = dict(module.named_parameters())
    state.update(module.named_buffers())
    args, kwargs = exported.example_inputs
    lifted = torch.export.export(_stateless_class()(module),
                                 (state, tuple(args), dict(kwargs or {})))
    n_bytes = sum(t.numel() * t.element_size() for t in state.values())
    return lifted, len(state), n_bytes


@functools.cache
def _stateless_class() -> type:   # defined on first use: it subclasses torch.nn.Module
    import torch

    class Stateless(torch.nn.Module):
        """Calls a module with its state given as an argument. The module is held
        outside torch's attribute registry so that its own tensors are not exported."""

        def __init__(self, module: Any) -> None:
            super().__init__()
            self.__dict__["inner"] = module

        def forward(self, state: dict, args: tuple, kwargs: dict) -> Any:
            return torch.func.functional_call(self.__dict__["inner"], state, args, kwargs)

    return Stateless


def _run(label: str, what: str, step: Any, error: type[StablecostError]) -> Any:
    """`step()`, its exceptions as one-line `error`s. torch and torch-mlir warn each other
    of their own deprecations there (nothing a user can act on): those are silenced."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            return step()
    except Exception as exc:   # torch's and torch-mlir's own errors, many lines long
        message = (str(exc).strip().splitlines() or [""])[0][:300]
        raise error(f"{label}: {what}: {type(exc).__name__}: {message}") from None


def _torch_mlir_fx(label: str) -> Any:
    try:
        from torch_mlir import fx
    except ImportError as exc:
        raise MissingExtraError(f"{label}: PyTorch programs are lowered to StableHLO by "
                                f"torch-mlir, which is not importable ({exc}): {INSTALL}"
                                ) from None
    return fx


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    import torch

    try:
        mlir = version("torch-mlir")
    except PackageNotFoundError:   # pragma: no cover - imported from a source tree
        mlir = "(unknown version)"
    return f"{mlir} (torch {torch.__version__})"
