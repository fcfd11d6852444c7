"""Element types as MLIR spells them, their storage sizes, and the compute class a
chip prices them in."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jax.typing import DTypeLike

# Storage bits per element. i1 (pred) is stored as one byte by XLA.
_BITS = {
    "f64": 64, "f32": 32, "tf32": 32, "f16": 16, "bf16": 16,
    "i64": 64, "i32": 32, "i16": 16, "i8": 8, "i4": 4, "i2": 2, "i1": 8,
    "ui64": 64, "ui32": 32, "ui16": 16, "ui8": 8, "ui4": 4, "ui2": 2,
    "si64": 64, "si32": 32, "si16": 16, "si8": 8,
    "complex<f32>": 64, "complex<f64>": 128,
    "index": 64,
}


def bits_per_element(dtype: str) -> int | None:
    """Storage bits of one element, or None for a type stablecost does not know."""
    bits = _BITS.get(dtype)
    if bits is None and dtype.startswith("f8"):
        return 8  # f8E4M3FN, f8E5M2, f8E4M3FNUZ, ...
    if bits is None and dtype.startswith(("f4", "f6")):
        return int(dtype[1])
    return bits


def compute_class(dtype: str) -> str:
    """The key a hardware spec is priced under: f64, f32, bf16, f16, f8, i8 or int."""
    if dtype in ("f64", "f32", "bf16", "f16"):
        return dtype
    if dtype.startswith(("f8", "f4", "f6")):
        return "f8"
    if dtype in ("i8", "ui8", "si8", "i4", "ui4"):
        return "i8"
    if dtype == "complex<f64>":
        return "f64"
    if dtype == "complex<f32>":
        return "f32"
    return "int"


def is_quantized(dtype: str) -> bool:
    return dtype.startswith("!quant.")


def quantized_storage(dtype: str) -> str | None:
    """The integer storage type of a uniform quantized element type, in the spelling
    of `_BITS`: `!quant.uniform<i8:f32, 0.1:3>` -> "i8", `!quant.uniform<u8<1:255>:f32:0,
    {...}>` -> "ui8"; None for any other type. jaxlib's MLIR bindings have no Python
    accessors for quant types, so the printed type is read: its storage type is the
    first parameter, up to the `:` before the expressed type (or the `<` of a
    storage range)."""
    for prefix in ("!quant.uniform<", "!quant.any<", "!quant.calibrated<"):
        if dtype.startswith(prefix):
            params = dtype[len(prefix):]
            break
    else:
        return None
    end = min((i for i in (params.find(":"), params.find("<"), params.find(">")) if i >= 0),
              default=len(params))
    storage = params[:end].strip()
    if storage.startswith("u") and not storage.startswith("ui"):
        storage = "ui" + storage[1:]
    return storage if storage in _BITS and storage.startswith(("i", "ui", "si")) else None


# The dtypes the collector and the zoo generate, by their short names.
_JAX_NAMES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "i8": "int8",
              "i32": "int32", "f64": "float64", "c64": "complex64", "u32": "uint32"}


def jax_dtype(name: str) -> DTypeLike:
    """The jax.numpy dtype of a short name (f32, bf16, f16, i8, i32, f64, c64, u32)."""
    import jax.numpy as jnp

    try:
        return getattr(jnp, _JAX_NAMES[name])
    except KeyError:
        raise ValueError(f"dtype {name!r}; allowed: {', '.join(_JAX_NAMES)}") from None


# MLIR element types -> jax.numpy dtype names, for arrays fed to a compiled program.
_MLIR_JAX_NAMES = {
    "f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16",
    "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8", "i1": "bool_",
    "ui64": "uint64", "ui32": "uint32", "ui16": "uint16", "ui8": "uint8",
    "complex<f32>": "complex64", "complex<f64>": "complex128",
    "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
}


def jax_dtype_of_mlir(name: str) -> DTypeLike:
    """The jax.numpy dtype of an MLIR element type (f32, bf16, i1, ui32, complex<f32>)."""
    import jax.numpy as jnp

    try:
        return getattr(jnp, _MLIR_JAX_NAMES[name])
    except (KeyError, AttributeError):
        raise ValueError(f"element type {name!r}; allowed: "
                         f"{', '.join(_MLIR_JAX_NAMES)}") from None
