"""Hand-written inputs the tests share: minimal GPU and CPU chip specs (as a chip
file's dict) and a softmax program."""

from __future__ import annotations

from typing import Any


def gpu_spec(calibrated: dict[str, Any], *, intra_bandwidth: float = 4.5e11,
             inter_bandwidth: float = 5e10, inter_latency: float = 5e-6) -> dict[str, Any]:
    """An 8-chip NVSwitch GPU whose [interconnect.calibrated] table is `calibrated`."""
    return {"name": "x", "vendor": "x", "kind": "gpu",
            "compute": {"matmul_flops_per_s": {"f32": 1e12, "bf16": 1e12, "f16": 1e12},
                        "vector_flops_per_s": {"f32": 1e11, "bf16": 1e11, "f16": 1e11},
                        "transcendentals_per_s": 1e10, "f32_matmul_as": "f32"},
            "memory": {"capacity_bytes": 1e9, "bandwidth_bytes_per_s": 1e11},
            "kernel": {"launch_overhead_s": 1e-6},
            "interconnect": {"chips_per_node": 8, "topology": "nvswitch",
                             "intra_node_bandwidth_bytes_per_s": intra_bandwidth,
                             "intra_node_latency_s": 1e-6,
                             "inter_node_bandwidth_bytes_per_s": inter_bandwidth,
                             "inter_node_latency_s": inter_latency,
                             "calibrated": calibrated}}


def cpu_spec(**compute: Any) -> dict[str, Any]:
    """A CPU with round rates (matmul 1e11, vector 1e10 FLOP/s, transcendentals 1e9/s,
    memory fast enough never to bind, no launch overhead); `compute`: extra
    `[compute]` keys."""
    return {"name": "cpu-x", "vendor": "x", "kind": "cpu",
            "compute": {"matmul_flops_per_s": {"f32": 1e11, "bf16": 1e11, "f16": 1e11},
                        "vector_flops_per_s": {"f32": 1e10, "bf16": 1e10, "f16": 1e10},
                        "transcendentals_per_s": 1e9, "f32_matmul_as": "f32", **compute},
            "memory": {"capacity_bytes": 1e9, "bandwidth_bytes_per_s": 1e13},
            "kernel": {"launch_overhead_s": 0.0},
            "interconnect": {"chips_per_node": 1, "topology": "none",
                             "intra_node_bandwidth_bytes_per_s": 1e10,
                             "intra_node_latency_s": 0.0,
                             "inter_node_bandwidth_bytes_per_s": 1e9,
                             "inter_node_latency_s": 0.0}}


# Softmax of x: f32[8,128] (4096 B): exp(x) is read by the row sum and by the division,
# which needs the sum.
SOFTMAX = """
func.func @main(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<8x128xf32>
  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x128xf32>, tensor<f32>) -> tensor<8xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<8xf32>) -> tensor<8x128xf32>
  %d = stablehlo.divide %e, %b : tensor<8x128xf32>
  return %d : tensor<8x128xf32>
}
"""
