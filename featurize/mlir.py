"""The one place that talks to jaxlib's MLIR bindings: context set-up and parsing.

The bindings are imported from `jaxlib.mlir` rather than `jax.extend.mlir`: they are
the same objects (jax.extend re-exports them), but importing `jax` costs ~0.6 s of
process start and the CLI needs none of it. The upstream dialects (func, ...) are
registered by jaxlib's own extension, the registry `jax.extend.lowering.upstream_dialects`
is built from; if a future jaxlib moves it, the jax route is used instead.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from ..errors import ProgramParseError, UnsupportedProgramError
from .limits import BYTECODE_MAGIC, check_source  # noqa: F401  (re-exported)

_local = threading.local()


def bindings():
    """(ir, stablehlo, chlo, sdy) modules, imported on first use."""
    if "jaxlib.mlir.ir" not in sys.modules:
        # XLA's C++ logging reads this when jaxlib loads: without it, the private CPU
        # client of the partitioner (featurize.partition) prints INFO lines to stderr.
        # A value the user set wins.
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import chlo, sdy, stablehlo

    return ir, stablehlo, chlo, sdy


def _upstream_registry(ir):
    try:
        from jaxlib.mlir._mlir_libs import _jax_mlir_ext

        registry = ir.DialectRegistry()
        _jax_mlir_ext.register_dialects(registry)
        return registry
    except (ImportError, AttributeError):  # pragma: no cover - older/newer jaxlib
        from jax.extend.lowering import upstream_dialects

        return upstream_dialects


def context():
    """An MLIR context with StableHLO, CHLO, Shardy and the upstream dialects.

    One per thread: contexts are not shared across threads.
    """
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ir, stablehlo, chlo, sdy = bindings()
        ctx = ir.Context()
        ctx.append_dialect_registry(_upstream_registry(ir))
        ctx.load_all_available_dialects()
        for dialect in (stablehlo, chlo, sdy):
            dialect.register_dialect(ctx)
        _load_quant(ctx, ir)
        _local.ctx = ctx
    return ctx


_passes_registered = threading.Lock()
_PASSES: list[bool] = []


def register_passes() -> None:
    """Register StableHLO's passes (once per process: they are global)."""
    with _passes_registered:
        if not _PASSES:
            bindings()[1].register_stablehlo_passes()
            _PASSES.append(True)


def _load_quant(ctx: Any, ir: Any) -> None:
    """Load the `quant` dialect (the `!quant.uniform` element types of quantized
    programs) into `ctx`. jaxlib registers it with no Python module of its own, but
    StableHLO's `vhlo-legalize-to-stablehlo` pass depends on it, and running a pass
    manager loads its passes' dependent dialects: run it once on an empty module
    (about 0.5 ms)."""
    from jaxlib.mlir import passmanager

    register_passes()
    with ctx, ir.Location.unknown():
        empty = ir.Module.create()
        passmanager.PassManager.parse("builtin.module(vhlo-legalize-to-stablehlo)").run(
            empty.operation)




def parse_module(source: str | bytes, source_name: str = "<string>") -> Any:
    """Parse MLIR text (pretty or generic) or bytecode into an `ir.Module`.

    Raises ProgramParseError with `source_name:line:col: message` for malformed input
    and UnsupportedProgramError for quantized programs (the bindings have no `quant`
    dialect, so they fail to parse; the first offending op is named).
    """
    check_source(source, source_name)   # what would crash the bindings is refused first
    ir = bindings()[0]
    ctx = context()
    try:
        with ctx:
            return ir.Module.parse(source)
    except ir.MLIRError as exc:
        if _mentions_mhlo(exc, source) and not getattr(_local, "mhlo", False):
            enable_mhlo()   # modules converted from XLA's HLO may hold mhlo ops
            return parse_module(source, source_name)
        raise _parse_error(exc, source, source_name) from None


def _mentions_mhlo(exc: Any, source: str | bytes) -> bool:
    """Whether a parse failed for want of the mhlo dialect: the bindings say so in
    several ways ("dialect 'mhlo' is unknown", "Dialect 'mhlo' not found", "unregistered
    dialect" at an mhlo op), so the text is asked too."""
    message = str(exc).lower()
    if "mhlo" in message:
        return True
    if "unregistered dialect" not in message:
        return False
    return (b"mhlo." in source) if isinstance(source, (bytes, bytearray)) else \
        ("mhlo." in source)


def enable_mhlo() -> None:
    """Register the `mhlo` dialect in this thread's context (on demand: importing it
    costs a few hundred ms, and only modules converted from XLA's HLO use it)."""
    if getattr(_local, "mhlo", False):
        return
    from jaxlib.mlir.dialects import mhlo

    ctx = context()
    mhlo.register_mhlo_dialect(ctx)
    _local.mhlo = True


def _parse_error(exc, source: str | bytes, source_name: str) -> Exception:
    diagnostics = list(getattr(exc, "error_diagnostics", []) or [])
    if diagnostics:
        first = diagnostics[0]
        where = _position(str(first.location))
        message = first.message.splitlines()[0]
    else:
        where, message = "", str(exc).splitlines()[-1].strip()
    place = f"{source_name}:{where}" if where else source_name
    is_bytes = isinstance(source, (bytes, bytearray))
    quantized = b"!quant." in source if is_bytes else "!quant." in source
    if quantized:
        op = _op_in_message(message) or _op_on_line(source, where) or "unknown op"
        return UnsupportedProgramError(
            f"{place}: unsupported program: quantized types (!quant.*) are not supported; "
            f"first offending op: {op}"
        )
    return ProgramParseError(f"{place}: {message}")


def _position(loc: str) -> str:
    """`loc("-":2:26)` -> `2:26`."""
    quote = loc.rfind('"')
    if quote < 0:
        return ""
    tail = loc[quote + 1:].rstrip(")")
    return tail.lstrip(":")


def _op_in_message(message: str) -> str:
    if message.startswith("'"):
        end = message.find("'", 1)
        if end > 1:
            return message[1:end]
    return ""


def _op_on_line(source: str | bytes, where: str) -> str:
    if isinstance(source, (bytes, bytearray)) or not where:
        return ""
    try:
        line = source.splitlines()[int(where.split(":")[0]) - 1]
    except (ValueError, IndexError):
        return ""
    for token in line.replace("(", " ").replace('"', " ").split():
        if token.startswith(("stablehlo.", "chlo.", "mhlo.")):
            return token
    return ""
