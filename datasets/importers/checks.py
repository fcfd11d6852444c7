"""Plausibility checks: a row whose implied FLOP/s, DRAM traffic or link
bandwidth exceeds `OUTLIER_FRACTION` of its chip's peak is flagged as an outlier.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .. import templates as T

OUTLIER_FRACTION = 0.95

Verdict = tuple[str | None, str | None]     # (outlier reason, its category)


@dataclass(frozen=True)
class Peaks:
    """The rates a row's implied throughput is checked against: the catalog chip's, with
    `matmul_by_class` filling rates the catalog lacks (FP4 on B200 from aiconfigurator's
    system file), or only `matmul_by_class` for chips outside the catalog."""

    hw: Any                                   # catalog Hardware, or None
    matmul_by_class: Mapping[str, float]      # f32 | bf16 | f16 | f8 | f4 | i8 -> FLOP/s
    memory_bytes_per_s: float | None
    link_bytes_per_s: float | None
    cache_bytes: float | None
    label: str

    @classmethod
    def of_catalog(cls, hw: Any, extra: Mapping[str, float]) -> "Peaks":
        return cls(hw, dict(extra), hw.memory_bandwidth_bytes_per_s,
                   hw.intra_node_bandwidth_bytes_per_s, hw.on_chip_cache_bytes,
                   f"catalog {hw.name}")

    def matmul(self, dtype: str, precision: str | None = None) -> float | None:
        from ...dtypes import compute_class

        cls = "f4" if dtype.startswith("f4") else compute_class(dtype)
        if self.hw is None:
            return self.matmul_by_class.get(cls)
        table = self.hw.matmul_flops_per_s
        if cls == "f4":   # the catalog prices f4 as f8, but FP4 tensor cores run 2x FP8
            return table.get("f4") or self.matmul_by_class.get("f4")
        if cls == "f8" and "f8" not in table:
            return self.matmul_by_class.get("f8")
        return self.hw.matmul_peak_flops_per_s(dtype, precision)


def check_work(work: T.Work, latency_s: float, peaks: Peaks | None, dtype: str,
               peak_flops: float | None) -> Verdict:
    """(outlier reason, its category) when the implied FLOP/s exceed `peak_flops` or the
    implied DRAM traffic the chip's bandwidth (by more than `OUTLIER_FRACTION`)."""
    if peaks is None:
        return None, None
    reason = kind = None
    if peak_flops and work.flops > OUTLIER_FRACTION * peak_flops * latency_s:
        rate = work.flops / latency_s
        reason = (f"implied {rate:.3g} FLOP/s is {rate / peak_flops:.0%} of the {dtype} "
                  f"matmul peak {peak_flops:.3g} ({peaks.label})")
        kind = f"compute > {OUTLIER_FRACTION:.0%} of the {dtype} peak"
    bandwidth = peaks.memory_bytes_per_s
    if bandwidth and work.bytes > OUTLIER_FRACTION * bandwidth * latency_s:
        rate = work.bytes / latency_s
        why = ""
        if peaks.cache_bytes and work.bytes <= peaks.cache_bytes:
            why = (f"; its {work.bytes / 1e6:.3g} MB fit the {peaks.cache_bytes / 1e6:.0f} MB "
                   "on-chip cache, so repeats run cache-resident")
        text = (f"implied {rate:.3g} B/s is {rate / bandwidth:.0%} of the memory bandwidth "
                f"{bandwidth:.3g} ({peaks.label}){why}")
        reason = f"{reason}; {text}" if reason else text
        kind = kind or f"memory traffic > {OUTLIER_FRACTION:.0%} of DRAM bandwidth"
    return reason, kind


def check_link(bus_bytes: float, latency_s: float, peaks: Peaks | None) -> Verdict:
    """(outlier reason, its category) when the implied nccl-tests bus bandwidth exceeds
    the per-direction link bandwidth (by more than `OUTLIER_FRACTION`)."""
    if peaks is None or not peaks.link_bytes_per_s or bus_bytes <= 0:
        return None, None
    rate = bus_bytes / latency_s
    if rate > OUTLIER_FRACTION * peaks.link_bytes_per_s:
        return (f"implied bus bandwidth {rate:.3g} B/s is {rate / peaks.link_bytes_per_s:.0%} of "
                f"the per-direction link bandwidth {peaks.link_bytes_per_s:.3g} ({peaks.label})",
                f"bus bandwidth > {OUTLIER_FRACTION:.0%} of the link")
    return None, None
