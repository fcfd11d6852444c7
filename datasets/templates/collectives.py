"""One collective over all devices as the per-device program XLA's
partitioner writes, and its nccl-tests bus bytes.
"""

from __future__ import annotations

from functools import lru_cache

from .mlir import module_text, nbytes, tensor_type

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")


@lru_cache(maxsize=4096)
def collective(op: str, elements: int, dtype: str, num_devices: int) -> str:
    """One collective over all `num_devices` devices, per-device program.

    `elements` is the size of the *larger* per-device buffer, the convention of
    nccl-tests (whose `size` aiconfigurator records): all_reduce and all_to_all take
    and return `elements`; all_gather returns `elements` (takes elements / n);
    reduce_scatter takes `elements` (returns elements / n)."""
    n = num_devices
    if op not in COLLECTIVES:
        raise ValueError(f"collective {op!r}; allowed: {COLLECTIVES}")
    if op != "all_reduce" and elements % n:
        raise ValueError(f"{op} of {elements} elements does not split over {n} devices")
    groups = f"dense<[[{', '.join(str(i) for i in range(n))}]]> : tensor<1x{n}xi64>"
    channel = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
    scalar = tensor_type((), dtype)
    reducer = (f"({{\n    ^bb0(%a: {scalar}, %b: {scalar}):\n"
               f"      %r = stablehlo.add %a, %b : {scalar}\n"
               f"      stablehlo.return %r : {scalar}\n    }})")
    if op == "all_reduce":
        a = r = tensor_type((elements,), dtype)
        line = (f'%0 = "stablehlo.all_reduce"(%arg0) <{{{channel}, replica_groups = {groups}, '
                f"use_global_device_ids}}> {reducer} : ({a}) -> {r}")
    elif op == "all_gather":
        a, r = tensor_type((elements // n,), dtype), tensor_type((elements,), dtype)
        line = (f'%0 = "stablehlo.all_gather"(%arg0) <{{all_gather_dim = 0 : i64, {channel}, '
                f"replica_groups = {groups}, use_global_device_ids}}> : ({a}) -> {r}")
    elif op == "reduce_scatter":
        a, r = tensor_type((elements,), dtype), tensor_type((elements // n,), dtype)
        line = (f'%0 = "stablehlo.reduce_scatter"(%arg0) <{{{channel}, replica_groups = '
                f"{groups}, scatter_dimension = 0 : i64, use_global_device_ids}}> {reducer} "
                f": ({a}) -> {r}")
    else:
        a = r = tensor_type((elements,), dtype)
        line = (f'%0 = "stablehlo.all_to_all"(%arg0) <{{{channel}, concat_dimension = 0 : i64, '
                f"replica_groups = {groups}, split_count = {n} : i64, split_dimension = 0 : i64}}>"
                f" : ({a}) -> {r}")
    return module_text(op, [a], [r], [line], ["%0"], parts=n)


def collective_bus_bytes(op: str, elements: int, dtype: str, num_devices: int) -> float:
    """Bytes each device sends (= receives) in a bandwidth-optimal algorithm: nccl-tests'
    "bus" bytes. all_reduce 2(n-1)/n·S, the others (n-1)/n·S, S = the larger buffer."""
    size = nbytes((elements,), dtype)
    share = (num_devices - 1) / num_devices
    return (2.0 if op == "all_reduce" else 1.0) * share * size
