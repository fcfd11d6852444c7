"""`jax.export` artifacts (`exported.serialize()`) -> the portable artifact inside them
and notes on what was exported.

The artifact is a flatbuffer (`jax._src.export.serialization`): a little-endian 32-bit
offset of its root table, then tables, vectors and strings. It holds the function name,
the platforms and number of devices it was exported for, its input and output
shardings, and the module as a StableHLO portable artifact (VHLO bytecode,
`featurize/portable.py`), which goes on through the ordinary bytecode path (read in a
child process). Reading the flatbuffer is pure Python (the `flatbuffers` package, which
`jax.export.deserialize` needs): damaged input raises Python errors there, never
crashes, and each is a one-line ProgramParseError.

    >>> exp = jax.export.export(jax.jit(f))(x)
    >>> module_bytes, notes = read_exported(bytes(exp.serialize()), "f.jexp")
    >>> notes[0]
    "jax.export artifact of function 'f' for platforms cpu on 1 device(s) (calling convention 10)"
"""

from __future__ import annotations

import struct
from typing import Any

from ..errors import ProgramParseError
from .bytecode import BYTECODE_MAGIC

FORMAT = "jax.export artifact (serialized jax.export.Exported)"


def looks_exported(data: bytes) -> bool:
    """Whether bytes that are not MLIR bytecode look like a jax.export flatbuffer: a
    4-aligned root offset past the 8-byte header (inside the data unless it was
    truncated), and NUL bytes in its first 8, which MLIR text never holds."""
    if len(data) < 8 or data.startswith(BYTECODE_MAGIC):
        return False
    root = int.from_bytes(data[:4], "little")
    return 8 <= root < 1 << 31 and root % 4 == 0 and b"\0" in data[:8]


def read_exported(data: bytes, label: str) -> tuple[bytes, list[str]]:
    """(the portable artifact of the exported module, notes naming the function, its
    platforms, devices and shardings)."""
    if int.from_bytes(data[:4], "little") >= len(data):
        raise ProgramParseError(f"{label}: corrupt {FORMAT}: its root offset points past "
                                f"the end of its {len(data):,} bytes (truncated?)")
    try:
        from jax import export
    except ImportError as exc:   # pragma: no cover - jax is a dependency
        raise ProgramParseError(f"{label}: cannot read a {FORMAT}: {exc}") from None
    version = _schema_version(data)
    what = f"{FORMAT}, flatbuffer schema version {version}" if version else FORMAT
    try:
        exp = export.deserialize(bytearray(data))
        module = bytes(exp.mlir_module_serialized)
    except ImportError as exc:   # flatbuffers missing from the environment
        raise ProgramParseError(f"{label}: cannot read a {what}: {exc}".rstrip(".")
                                + " (pip install flatbuffers)") from None
    except Exception as exc:   # the flatbuffer reader's errors on damaged input
        message = (str(exc).strip().splitlines() or [""])[0][:200]
        kind = "" if isinstance(exc, struct.error) else f"{type(exc).__name__}: "
        raise ProgramParseError(f"{label}: corrupt {what}: {kind}{message}") from None
    if not module.startswith(BYTECODE_MAGIC):
        raise ProgramParseError(f"{label}: corrupt {what}: the module it holds is not MLIR "
                                "bytecode")
    return module, _notes(exp)


def _schema_version(data: bytes) -> int | None:
    try:
        from jax._src.export import serialization_generated as schema

        return int(schema.Exported.GetRootAsExported(bytearray(data)).SerializationVersion())
    except Exception:
        return None


def _notes(exp: Any) -> list[str]:
    """What the Exported says about itself that the module does not."""
    platforms = ", ".join(str(p) for p in exp.platforms) or "no platform"
    notes = [f"jax.export artifact of function {exp.fun_name!r} for platforms {platforms} "
             f"on {exp.nr_devices} device(s) (calling convention "
             f"{exp.calling_convention_version})"]
    if exp.nr_devices > 1:
        # the module carries these too (sdy / mhlo.sharding attributes), which is what
        # placement partitions by when a mesh is given
        notes.append("exported shardings: in " + _shardings(exp.in_shardings_hlo)
                     + "; out " + _shardings(exp.out_shardings_hlo))
    return notes


def _shardings(shardings: Any) -> str:
    shown = ["unspecified" if s is None else str(s) for s in shardings or ()]
    text = ", ".join(shown) or "none"
    return text if len(text) <= 300 else text[:300] + "..."
