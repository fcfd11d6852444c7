"""StableHLO portable artifacts -> a StableHLO module.

A portable artifact (`stablehlo.serialize_portable_artifact`, and the module inside
every `jax.export` artifact) is MLIR bytecode of the versioned VHLO dialect; its
producer string names the StableHLO version it targets (`StableHLO_v1.15.0`). Parsed
as plain bytecode it yields `vhlo.*` ops and no `func.func`, so it is recognised by that
producer and turned back into StableHLO by the StableHLO deserializer, which reads any
version from `stablehlo.get_minimum_version()` to `get_current_version()` (0.9.0 to
1.17.0 with jaxlib 0.10.2). Like all bytecode from outside, it is read in the child
process of `featurize/isolation.py` (this runs there).

    >>> vhlo_version(b"ML\\xefR\\x0dStableHLO_v1.15.0\\x00...")
    '1.15.0'
"""

from __future__ import annotations

from typing import Any

from ..errors import ProgramParseError
from .bytecode import BYTECODE_MAGIC, _Reader

_PRODUCER = b"StableHLO_v"


def vhlo_version(data: bytes) -> str | None:
    """The StableHLO version a portable artifact targets ("1.15.0"); None for bytecode
    of anything else (or no bytecode at all)."""
    if not data.startswith(BYTECODE_MAGIC):
        return None
    head = _Reader(data, len(BYTECODE_MAGIC), len(data), "header", "")
    try:
        head.varint()   # the bytecode format version
    except ProgramParseError:
        return None
    if not data.startswith(_PRODUCER, head.pos):
        return None
    end = data.find(b"\0", head.pos)
    raw = data[head.pos + len(_PRODUCER):end if end >= 0 else head.pos + 64]
    return raw.decode("ascii", "replace")[:32]


def _parts(version: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(p) for p in version.split("."))
    except ValueError:
        return None


def deserialize_artifact(data: bytes, label: str) -> Any:
    """A portable artifact's module, in StableHLO, in this thread's context; an
    unsupported version or a damaged artifact is a one-line ProgramParseError that
    names both."""
    from .mlir import bindings, check_source, context

    version = vhlo_version(data) or "?"
    what = f"StableHLO portable artifact (VHLO bytecode, StableHLO_v{version})"
    check_source(data, label)   # the bytecode envelope, before the reader sees it
    stablehlo = bindings()[1]
    lowest, highest = stablehlo.get_minimum_version(), stablehlo.get_current_version()
    reads = f"this jaxlib reads StableHLO {lowest} to {highest}"
    have, low, high = _parts(version), _parts(lowest), _parts(highest)
    if have is None or (low and have < low) or (high and have > high):
        raise ProgramParseError(f"{label}: unsupported {what}: {reads}")
    ctx = context()
    messages: list[str] = []

    def collect(diagnostic: Any) -> bool:
        messages.append(str(diagnostic.message))
        return True   # handled: nothing printed to stderr

    handler = ctx.attach_diagnostic_handler(collect)
    try:
        return stablehlo.deserialize_portable_artifact(ctx, data)
    except (ValueError, RuntimeError, OverflowError) as exc:
        detail = (messages[0] if messages else str(exc)).strip().splitlines() or [""]
        raise ProgramParseError(f"{label}: corrupt {what}: {detail[0][:200]} "
                                f"({reads})") from None
    finally:
        handler.detach()
