"""Decode MLIR attributes into plain Python values.

Built-in attributes come back as int/float/bool/str/lists; StableHLO's structured
attributes (dot and convolution dimension numbers, gather/scatter dimension numbers,
channel handles, comparison directions, precision) become dicts or strings. Large
constant payloads are never expanded: a constant keeps only its scalar value.
"""

from __future__ import annotations

import math
from typing import Any

from .mlir import bindings

# Attributes that carry no information a cost model needs and cost time to decode.
_SKIPPED = frozenset({"value", "backend_config", "mhlo.frontend_attributes",
                      "result_layout", "operand_layouts", "api_version", "called_computations"})


def decode_attributes(op, cache: dict | None = None) -> dict[str, Any]:
    """All attributes of `op` (an `ir.Operation`) decoded, except payload-like ones.

    `cache` (attribute -> decoded value) shares the work between ops: MLIR uniques
    attributes in their context, so the 75 layers of a model repeat a handful of
    dimension-number attributes. Decoded values in it are shared, never mutate them.
    """
    attributes = op.attributes
    if not len(attributes):
        return {}
    if cache is None:
        return {name: decode(attributes[name]) for name in attributes
                if name not in _SKIPPED}
    out = {}
    for name in attributes:
        if name in _SKIPPED:
            continue
        attr = attributes[name]
        value = cache.get(attr, _MISSING)
        if value is _MISSING:
            value = cache[attr] = decode(attr)
        out[name] = value
    return out


_MISSING = object()


def _builtin_decoders(ir) -> dict[type, Any]:
    return {
        ir.DenseI64ArrayAttr: list,
        ir.IntegerAttr: lambda a: a.value,
        ir.BoolAttr: lambda a: a.value,
        ir.StringAttr: lambda a: a.value,
        ir.FlatSymbolRefAttr: lambda a: a.value,
        ir.FloatAttr: lambda a: a.value,
        ir.DenseBoolArrayAttr: lambda a: [bool(x) for x in a],
        ir.DenseIntElementsAttr: _dense_ints,
        ir.ArrayAttr: lambda a: [decode(x) for x in a],
        ir.UnitAttr: lambda a: True,
    }


_decoders: dict[type, Any] | None = None


def decode(attr) -> Any:
    """One attribute as a plain Python value (str() of it when nothing better is known)."""
    global _decoders
    if _decoders is None:
        _decoders = _builtin_decoders(bindings()[0])
    decoder = _decoders.get(type(attr))
    if decoder is not None:
        return decoder(attr)
    return _decode_stablehlo(attr)


def _decode_stablehlo(attr) -> Any:
    stablehlo = bindings()[1]
    if stablehlo.DotDimensionNumbers.isinstance(attr):
        d = stablehlo.DotDimensionNumbers(attr)
        return {
            "lhs_batching_dimensions": list(d.lhs_batching_dimensions),
            "rhs_batching_dimensions": list(d.rhs_batching_dimensions),
            "lhs_contracting_dimensions": list(d.lhs_contracting_dimensions),
            "rhs_contracting_dimensions": list(d.rhs_contracting_dimensions),
        }
    if stablehlo.ConvDimensionNumbers.isinstance(attr):
        d = stablehlo.ConvDimensionNumbers(attr)
        return {
            "input_batch_dimension": d.input_batch_dimension,
            "input_feature_dimension": d.input_feature_dimension,
            "input_spatial_dimensions": list(d.input_spatial_dimensions),
            "kernel_input_feature_dimension": d.kernel_input_feature_dimension,
            "kernel_output_feature_dimension": d.kernel_output_feature_dimension,
            "kernel_spatial_dimensions": list(d.kernel_spatial_dimensions),
            "output_batch_dimension": d.output_batch_dimension,
            "output_feature_dimension": d.output_feature_dimension,
            "output_spatial_dimensions": list(d.output_spatial_dimensions),
        }
    if stablehlo.ComparisonDirectionAttr.isinstance(attr):
        return stablehlo.ComparisonDirectionAttr(attr).value
    if stablehlo.PrecisionAttr.isinstance(attr):
        return stablehlo.PrecisionAttr(attr).value
    if stablehlo.GatherDimensionNumbers.isinstance(attr):
        d = stablehlo.GatherDimensionNumbers(attr)
        return {
            "offset_dims": list(d.offset_dims),
            "collapsed_slice_dims": list(d.collapsed_slice_dims),
            "operand_batching_dims": list(d.operand_batching_dims),
            "start_indices_batching_dims": list(d.start_indices_batching_dims),
            "start_index_map": list(d.start_index_map),
            "index_vector_dim": d.index_vector_dim,
        }
    if stablehlo.ScatterDimensionNumbers.isinstance(attr):
        d = stablehlo.ScatterDimensionNumbers(attr)
        return {
            "update_window_dims": list(d.update_window_dims),
            "inserted_window_dims": list(d.inserted_window_dims),
            "input_batching_dims": list(d.input_batching_dims),
            "scatter_indices_batching_dims": list(d.scatter_indices_batching_dims),
            "scattered_dims_to_operand_dims": list(d.scattered_dims_to_operand_dims),
            "index_vector_dim": d.index_vector_dim,
        }
    if stablehlo.ChannelHandle.isinstance(attr):
        h = stablehlo.ChannelHandle(attr)
        return {"handle": h.handle, "type": h.channel_type}
    return str(attr)


def _dense_ints(dense) -> Any:
    shape = list(dense.type.shape)
    if dense.is_splat:
        values = [dense.get_splat_value().value] * math.prod(shape)
    else:
        values = [int(v) for v in dense]
    if len(shape) == 2:
        rows, cols = shape
        return [values[r * cols:(r + 1) * cols] for r in range(rows)]
    return values


def scalar_constant(op, cache: dict | None = None) -> int | float | None:
    """The value of a one-element (or splat) `stablehlo.constant`, else None.

    Works on `dense_resource<__elided__>` constants too (their value is unknown: None).
    `cache` (attribute -> value) is shared between the constants of one program.
    """
    try:
        attr = op.attributes["value"]
    except TypeError:  # element types the bindings cannot cast (complex constants)
        return None
    if cache is None:
        return _splat_value(attr)
    value = cache.get(attr, _MISSING)
    if value is _MISSING:
        value = cache[attr] = _splat_value(attr)
    return value


def _splat_value(attr) -> int | float | None:
    ir = bindings()[0]
    if isinstance(attr, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr)) and attr.is_splat:
        return attr.get_splat_value().value
    return None


def kernel_config(op, target: str) -> dict[str, Any] | None:
    """What a cost rule needs from a custom call's `backend_config` (the JSON string
    jax writes for these calls, api_version 2), else None. Two kinds carry it:

    - cuDNN flash attention (`__cudnn$fmha*`, from `jax.nn.dot_product_attention(...,
      implementation="cudnn")`): the [batch, heads, q length, kv length] of the score
      matrix, the mask type and sliding window;
    - a kernel whose author gave its cost (Pallas on TPU: `pallas_call(...,
      cost_estimate=pl.CostEstimate(...))` lowers to `tpu_custom_call` with
      "cost_estimate": flops, transcendentals, bytes_accessed, remote_bytes_transferred).

    Only those few fields are kept: a Pallas config also holds the kernel's serialized
    body, which the program IR should not carry.
    """
    is_fmha = target.startswith("__cudnn$fmha")
    if not is_fmha and target != "tpu_custom_call":
        return None
    try:
        attr = op.attributes["backend_config"]
    except (KeyError, IndexError):
        return None
    ir = bindings()[0]
    if isinstance(attr, ir.StringAttr):
        import json

        try:
            config = json.loads(attr.value)
        except ValueError:
            return None
    else:   # api_version 4 (a dictionary attribute): jax emits neither kind that way
        return None
    if not isinstance(config, dict):
        return None
    if is_fmha:
        fmha = config.get("cudnn_fmha_backend_config") or {}
        dims = (fmha.get("intermediate_tensor_shape") or {}).get("dimensions") or []
        try:
            scores = [int(d) for d in dims]
        except (TypeError, ValueError):
            return None
        if len(scores) != 4:
            return None
        return {"fmha_scores": scores, "mask_type": str(fmha.get("mask_type", "NO_MASK")),
                "sliding_window_length": int(fmha.get("sliding_window_length") or 0)}
    estimate = config.get("cost_estimate")
    if estimate is None:
        estimate = (config.get("custom_call_config") or {}).get("cost_estimate")
    if not isinstance(estimate, dict):
        return None
    try:
        return {"cost_estimate": {k: float(estimate.get(k, 0) or 0) for k in (
            "flops", "transcendentals", "bytes_accessed", "remote_bytes_transferred")}}
    except (TypeError, ValueError):
        return None
