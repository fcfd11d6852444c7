"""One chip's performance data (`Hardware`) and the checks a spec passes before it is
used: required sections and keys, positive finite rates, known topologies and kinds."""


from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..dtypes import compute_class
from ..errors import HardwareSpecError

HOST_CPU = "host-cpu"

_TOP_KEYS = {"name", "aliases", "vendor", "kind", "compute", "memory", "kernel",
             "interconnect", "sources", "measured"}
_SECTION_KEYS = {
    "compute": {"matmul_flops_per_s", "vector_flops_per_s", "transcendentals_per_s",
                "f32_matmul_as", "compute_units", "clock_hz",
                "loop_convolution_macs_per_s", "grouped_convolution_units_per_s",
                "transcendentals_per_s_by_op", "board_power_w"},
    "memory": {"capacity_bytes", "bandwidth_bytes_per_s", "on_chip_cache_bytes",
               "fresh_page_s"},
    "kernel": {"launch_overhead_s"},
    "interconnect": {"chips_per_node", "topology", "intra_node_bandwidth_bytes_per_s",
                     "intra_node_latency_s", "inter_node_bandwidth_bytes_per_s",
                     "inter_node_latency_s", "max_chips", "in_switch_reduction_efficiency",
                     "collective_overhead_s", "calibrated"},
}
_OPTIONAL = {"max_chips", "compute_units", "clock_hz", "on_chip_cache_bytes", "board_power_w",
             "loop_convolution_macs_per_s", "grouped_convolution_units_per_s",
             "fresh_page_s", "transcendentals_per_s_by_op", "in_switch_reduction_efficiency",
             "collective_overhead_s", "calibrated"}
# [interconnect.calibrated]: link values fitted to measured collectives
# (`train.link_calibration`), for the whole chip and optionally per collective kind.
_CALIBRATED_VALUES = ("intra_node_bandwidth_bytes_per_s", "intra_node_latency_s",
                      "collective_overhead_s")
_CALIBRATED_OPTIONAL = ("in_switch_reduction_efficiency", "held_out_median_relative_error",
                        "held_out_max_relative_error")
_CALIBRATED_KINDS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")
# Per-kind NCCL protocol regimes (parallel arrays, one entry per protocol).
_PROTOCOL_ARRAYS = ("protocol_names", "protocol_overhead_s", "protocol_latency_s",
                    "protocol_bandwidth_bytes_per_s")
_PROTOCOL_BUFFER = "protocol_buffer_seconds_per_byte"   # optional; absent: 0 each
_PROTOCOL_PEER = "protocol_peer_seconds_per_byte"       # optional; absent: 0 each
# The opcodes `[compute] transcendentals_per_s_by_op` may rate (StableHLO names, the
# ones `hardware calibrate` probes); any other transcendental takes transcendentals_per_s.
RATED_TRANSCENDENTALS = ("exponential", "exponential_minus_one", "log", "log_plus_one",
                         "logistic", "tanh", "chlo.erf", "sine", "cosine", "tan", "sqrt",
                         "rsqrt", "cbrt", "power", "atan2")
_KINDS = {"gpu", "tpu", "cpu"}
_TOPOLOGIES = {"nvswitch", "pcie", "fully_connected", "torus2d", "torus3d", "none"}
_REQUIRED_DTYPES = ("f32", "bf16", "f16")


@dataclass(frozen=True)
class CalibratedProtocol:
    """One NCCL protocol regime fitted to measured collectives of one kind
    (`train.link_calibration.protocols`): a call costs `overhead_s + steps x latency_s +
    bus bytes / bandwidth_bytes_per_s + B x buffer_seconds_per_byte + B / n x
    peer_seconds_per_byte` under it (B: the message bytes, whatever the group size; B / n:
    the bytes of each point-to-point message of an all_to_all on n GPUs, the only kind
    fitted with that term; 0: no such term, as files written before it). Names: LL,
    LL128, Simple (ring) and NVLS (the in-switch algorithm, `latency_s` 0)."""

    name: str
    overhead_s: float
    latency_s: float
    bandwidth_bytes_per_s: float
    buffer_seconds_per_byte: float = 0.0
    peer_seconds_per_byte: float = 0.0


@dataclass(frozen=True)
class CalibratedLinks:
    """Intra-node link values fitted to measured collectives (`[interconnect.calibrated]`):
    the effective per-direction bandwidth, per-step latency (alpha) and per-call overhead
    the alpha-beta models reproduce the measurements with, as opposed to the datasheet
    values of `Hardware`. `in_switch_reduction_efficiency` 0 means the fit is better
    without the in-switch algorithm. `per_kind` holds the values fitted to one
    collective kind (all_reduce, all_gather, reduce_scatter, all_to_all) where the file
    has them."""

    intra_node_bandwidth_bytes_per_s: float
    intra_node_latency_s: float
    collective_overhead_s: float
    in_switch_reduction_efficiency: float | None = None
    held_out_median_relative_error: float | None = None
    held_out_max_relative_error: float | None = None
    source: str = ""
    per_kind: Mapping[str, "CalibratedLinks"] = field(default_factory=dict)
    protocols: tuple[CalibratedProtocol, ...] = ()

    def for_kind(self, kind: str | None) -> "CalibratedLinks":
        """The values fitted to `kind` when the file has them, else the chip's."""
        return self.per_kind.get(kind, self) if kind else self

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "intra_node_bandwidth_bytes_per_s": self.intra_node_bandwidth_bytes_per_s,
            "intra_node_latency_s": self.intra_node_latency_s,
            "collective_overhead_s": self.collective_overhead_s,
            "in_switch_reduction_efficiency": self.in_switch_reduction_efficiency,
            "held_out_median_relative_error": self.held_out_median_relative_error,
            "held_out_max_relative_error": self.held_out_max_relative_error,
        }
        if self.source:
            out["source"] = self.source
        if self.per_kind:
            out["per_kind"] = {k: v.to_dict() for k, v in self.per_kind.items()}
        if self.protocols:
            out["protocols"] = [dataclasses.asdict(p) for p in self.protocols]
        return out

    def flat(self) -> dict[str, float]:
        """The numbers only, per-kind ones as ``<kind>.<key>`` (how `Hardware.to_dict`
        shows them: one level of numbers, like its other tables)."""
        out = {k: v for k, v in self.to_dict().items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)}
        for kind, links in self.per_kind.items():
            out.update({f"{kind}.{k}": v for k, v in links.flat().items()})
        return out


@dataclass(frozen=True)
class Hardware:
    """One chip's performance data. Rates are dense peaks (no structured sparsity)."""

    name: str
    vendor: str
    kind: str
    matmul_flops_per_s: Mapping[str, float]
    vector_flops_per_s: Mapping[str, float]
    transcendentals_per_s: float
    f32_matmul_as: str
    memory_bandwidth_bytes_per_s: float
    memory_capacity_bytes: float
    launch_overhead_s: float
    chips_per_node: int
    topology: str
    intra_node_bandwidth_bytes_per_s: float
    intra_node_latency_s: float
    inter_node_bandwidth_bytes_per_s: float
    inter_node_latency_s: float
    compute_units: int | None = None
    clock_hz: float | None = None
    on_chip_cache_bytes: float | None = None
    max_chips: int | None = None
    # Fraction of the link bandwidth an in-switch reduction (NVLS) reaches; None: the
    # fabric cannot reduce in the switch.
    in_switch_reduction_efficiency: float | None = None
    # Fixed cost of one collective call (kernel launch, setup); None: launch_overhead_s.
    collective_overhead_s: float | None = None
    # [interconnect.calibrated]: values fitted to measured collectives; None: not calibrated.
    calibrated_links: CalibratedLinks | None = None
    # CPU only: multiply-adds per second of a convolution XLA:CPU runs as its own loop
    # nest instead of a library call (featurize/conv_lowering.py), measured by
    # `hardware calibrate`; None: not measured, such a convolution is priced at the
    # matmul rate like any other.
    loop_convolution_macs_per_s: float | None = None
    # groups x output pixels per second of a 3x3 depthwise convolution (calibrated)
    grouped_convolution_units_per_s: float | None = None
    # seconds per 4 KiB page of a buffer mapped afresh on every call (calibrated)
    fresh_page_s: float | None = None
    # Elements per second of single transcendental opcodes (RATED_TRANSCENDENTALS) where
    # they were measured (`hardware calibrate`): on the CPUs measured they span more
    # than 10x (atan2, cbrt, sine against exp). Opcodes not in it, and every
    # transcendental when it is empty, are priced at transcendentals_per_s.
    transcendentals_per_s_by_op: Mapping[str, float] = field(default_factory=dict)
    # GPU only: the board's power limit (datasheet TDP, W); with a tensor peak it gives
    # the FLOP/s per watt from which the GPU kernel model takes how much of that peak
    # the chip sustains (`models.power_prior`). None: not known, no such prior.
    board_power_w: float | None = None
    aliases: tuple[str, ...] = ()
    sources: tuple[Mapping[str, str], ...] = ()
    measured: Mapping[str, Any] = field(default_factory=dict)
    path: str = ""

    def __post_init__(self) -> None:
        # A Hardware built in Python (or by dataclasses.replace) gets the numeric checks
        # of a catalog file; its rate tables are copied read-only, so that replace()
        # never shares the catalog's tables and a prediction cached for this object
        # cannot go stale behind its back.
        where = f"hardware {self.name!r}"
        for table in ("matmul_flops_per_s", "vector_flops_per_s"):
            rates = getattr(self, table)
            if not isinstance(rates, Mapping) or any(d not in rates for d in _REQUIRED_DTYPES):
                raise HardwareSpecError(f"{where}: {table} must map at least "
                                        f"{list(_REQUIRED_DTYPES)} to FLOP/s, got {rates!r}")
            bad = {k: v for k, v in rates.items() if not _positive(v)}
            if bad:
                raise HardwareSpecError(f"{where}: {table} has rates that are not positive "
                                        f"numbers: {bad}")
            object.__setattr__(self, table, _Rates(rates))
        for name in ("transcendentals_per_s", "memory_bandwidth_bytes_per_s",
                     "memory_capacity_bytes", "intra_node_bandwidth_bytes_per_s",
                     "inter_node_bandwidth_bytes_per_s"):
            if not _positive(getattr(self, name)):
                raise HardwareSpecError(f"{where}: {name} must be a positive number, got "
                                        f"{getattr(self, name)!r}")
        for name in ("launch_overhead_s", "intra_node_latency_s", "inter_node_latency_s"):
            if not _non_negative(getattr(self, name)):
                raise HardwareSpecError(f"{where}: {name} must be a number >= 0, got "
                                        f"{getattr(self, name)!r}")
        by_op = self.transcendentals_per_s_by_op
        problem = _by_op_problem(by_op)
        if problem:
            raise HardwareSpecError(f"{where}: transcendentals_per_s_by_op {problem}")
        object.__setattr__(self, "transcendentals_per_s_by_op", _Rates(by_op))
        for name in ("loop_convolution_macs_per_s", "grouped_convolution_units_per_s",
                     "fresh_page_s"):
            rate = getattr(self, name)
            if rate is not None and (self.kind != "cpu" or not _positive(rate)):
                raise HardwareSpecError(f"{where}: {name} must be a positive number on a "
                                        f"cpu spec, got {rate!r} on a {self.kind} spec")
        if self.board_power_w is not None and not _positive(self.board_power_w):
            raise HardwareSpecError(f"{where}: board_power_w must be a positive number of "
                                    f"watts, got {self.board_power_w!r}")
        if isinstance(self.chips_per_node, bool) or not isinstance(self.chips_per_node, int) \
                or self.chips_per_node < 1:
            raise HardwareSpecError(f"{where}: chips_per_node must be an integer >= 1, got "
                                    f"{self.chips_per_node!r}")

    def matmul_peak_flops_per_s(self, dtype: str, precision: str | None = None) -> float:
        """Rate of dot/convolution in `dtype` (MLIR spelling). f32 runs at the rate of
        `f32_matmul_as` (tf32 on Ampere+, bf16 passes on TPU) unless the op asks for
        HIGHEST precision."""
        cls = compute_class(dtype)
        table = self.matmul_flops_per_s
        if cls == "f32" and precision != "HIGHEST":
            cls = self.f32_matmul_as
        if cls == "int":
            cls = "i8" if "i8" in table else "f32"
        for key in (cls, *_FALLBACK.get(cls, ())):
            if key in table:
                return table[key]
        return table["f32"]

    def vector_peak_flops_per_s(self, dtype: str) -> float:
        cls = compute_class(dtype)
        table = self.vector_flops_per_s
        if cls in table:
            return table[cls]
        if cls in ("f8", "i8"):
            return table["f16"]
        return table["f32"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "vendor": self.vendor, "kind": self.kind,
            "aliases": list(self.aliases),
            "matmul_flops_per_s": dict(self.matmul_flops_per_s),
            "vector_flops_per_s": dict(self.vector_flops_per_s),
            "transcendentals_per_s": self.transcendentals_per_s,
            "loop_convolution_macs_per_s": self.loop_convolution_macs_per_s,
            "grouped_convolution_units_per_s": self.grouped_convolution_units_per_s,
            "fresh_page_s": self.fresh_page_s,
            "transcendentals_per_s_by_op": dict(self.transcendentals_per_s_by_op),
            "f32_matmul_as": self.f32_matmul_as,
            "compute_units": self.compute_units, "clock_hz": self.clock_hz,
            "board_power_w": self.board_power_w,
            "memory_capacity_bytes": self.memory_capacity_bytes,
            "memory_bandwidth_bytes_per_s": self.memory_bandwidth_bytes_per_s,
            "on_chip_cache_bytes": self.on_chip_cache_bytes,
            "launch_overhead_s": self.launch_overhead_s,
            "chips_per_node": self.chips_per_node, "topology": self.topology,
            "intra_node_bandwidth_bytes_per_s": self.intra_node_bandwidth_bytes_per_s,
            "intra_node_latency_s": self.intra_node_latency_s,
            "inter_node_bandwidth_bytes_per_s": self.inter_node_bandwidth_bytes_per_s,
            "inter_node_latency_s": self.inter_node_latency_s,
            "max_chips": self.max_chips,
            "in_switch_reduction_efficiency": self.in_switch_reduction_efficiency,
            "collective_overhead_s": self.collective_overhead_s,
            "calibrated_links": (None if self.calibrated_links is None
                                 else self.calibrated_links.flat()),
            "sources": [dict(s) for s in self.sources],
            "measured": dict(self.measured),
            "path": self.path,
        }


class _Rates(dict):
    """A read-only rate table (dtype -> FLOP/s): use dataclasses.replace(hw,
    matmul_flops_per_s={...}) to change one."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("hardware rate tables are read-only; use dataclasses.replace(hw, "
                        "matmul_flops_per_s={...}) for a changed chip")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _refuse  # type: ignore[assignment]

    # typeshed's dict.__ior__ takes any mapping but dict.__or__ only a dict, so no
    # override of __ior__ can match both; the refusal must cover every argument.
    def __ior__(self, other: Any) -> "_Rates":  # type: ignore[misc]
        self._refuse()
        return self

    def __reduce__(self) -> tuple:
        return _Rates, (dict(self),)


_FALLBACK = {"f8": ("bf16", "f16"), "i8": ("bf16", "f16"), "tf32": ("f32",),
             "f64": ("f32",), "bf16": ("f16", "f32"), "f16": ("bf16", "f32")}


def parse_spec(data: Mapping[str, Any], origin: str) -> Hardware:
    """Validate a hardware mapping (as read from TOML) and build a `Hardware`."""
    def fail(message: str) -> HardwareSpecError:
        return HardwareSpecError(f"{origin}: {message}")

    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise fail(f"unknown keys {sorted(unknown)}; allowed: {sorted(_TOP_KEYS)}")
    for key in ("name", "vendor", "kind", "compute", "memory", "kernel", "interconnect"):
        if key not in data:
            raise fail(f"missing key {key!r}")
    flat: dict[str, Any] = {}
    for section, keys in _SECTION_KEYS.items():
        values = data[section]
        extra = set(values) - keys
        if extra:
            raise fail(f"unknown keys {sorted(extra)} in [{section}]; allowed: {sorted(keys)}")
        missing = keys - set(values) - _OPTIONAL
        if missing:
            raise fail(f"missing keys {sorted(missing)} in [{section}]")
        flat.update(values)
    calibrated = flat.pop("calibrated", None)
    if data["kind"] not in _KINDS:
        raise fail(f"kind {data['kind']!r} is not one of {sorted(_KINDS)}")
    if flat["topology"] not in _TOPOLOGIES:
        raise fail(f"topology {flat['topology']!r} is not one of {sorted(_TOPOLOGIES)}")
    for table in ("matmul_flops_per_s", "vector_flops_per_s"):
        lacking = [d for d in _REQUIRED_DTYPES if d not in flat[table]]
        if lacking:
            raise fail(f"{table} lacks dtypes {lacking}")
        bad = {k: v for k, v in flat[table].items() if not _positive(v)}
        if bad:
            raise fail(f"{table} has non-positive rates {bad}")
    for key in ("transcendentals_per_s", "bandwidth_bytes_per_s", "capacity_bytes",
                "launch_overhead_s"):
        if not (_positive(flat[key]) or (key == "launch_overhead_s" and flat[key] == 0)):
            raise fail(f"{key} must be a positive number, got {flat[key]!r}")
    efficiency = flat.get("in_switch_reduction_efficiency")
    if efficiency is not None and not (_positive(efficiency) and efficiency <= 1):
        raise fail("in_switch_reduction_efficiency must be in (0, 1], "
                   f"got {efficiency!r}")
    overhead = flat.get("collective_overhead_s")
    if overhead is not None and not _non_negative(overhead):
        raise fail(f"collective_overhead_s must be a number >= 0, got {overhead!r}")
    rates = {name: flat.get(name) for name in ("loop_convolution_macs_per_s",
                                               "grouped_convolution_units_per_s",
                                               "fresh_page_s")}
    for name, rate in rates.items():
        if rate is not None and (data["kind"] != "cpu" or not _positive(rate)):
            raise fail(f"{name} must be a positive number, on a cpu spec only; got "
                       f"{rate!r} on a {data['kind']} spec")
    loop_rate, grouped_rate, fresh_page = rates.values()
    by_op = flat.get("transcendentals_per_s_by_op", {})
    problem = _by_op_problem(by_op)
    if problem:
        raise fail(f"transcendentals_per_s_by_op {problem}")
    power = flat.get("board_power_w")
    if power is not None and not _positive(power):
        raise fail(f"board_power_w must be a positive number of watts, got {power!r}")
    calibrated_links = None if calibrated is None else _parse_calibrated(calibrated, fail)
    return Hardware(
        name=data["name"], vendor=data["vendor"], kind=data["kind"],
        matmul_flops_per_s={k: float(v) for k, v in flat["matmul_flops_per_s"].items()},
        vector_flops_per_s={k: float(v) for k, v in flat["vector_flops_per_s"].items()},
        transcendentals_per_s=float(flat["transcendentals_per_s"]),
        loop_convolution_macs_per_s=(None if loop_rate is None else float(loop_rate)),
        grouped_convolution_units_per_s=(None if grouped_rate is None
                                         else float(grouped_rate)),
        fresh_page_s=None if fresh_page is None else float(fresh_page),
        transcendentals_per_s_by_op={k: float(v) for k, v in by_op.items()},
        f32_matmul_as=flat["f32_matmul_as"],
        memory_bandwidth_bytes_per_s=float(flat["bandwidth_bytes_per_s"]),
        memory_capacity_bytes=float(flat["capacity_bytes"]),
        launch_overhead_s=float(flat["launch_overhead_s"]),
        chips_per_node=int(flat["chips_per_node"]), topology=flat["topology"],
        intra_node_bandwidth_bytes_per_s=float(flat["intra_node_bandwidth_bytes_per_s"]),
        intra_node_latency_s=float(flat["intra_node_latency_s"]),
        inter_node_bandwidth_bytes_per_s=float(flat["inter_node_bandwidth_bytes_per_s"]),
        inter_node_latency_s=float(flat["inter_node_latency_s"]),
        compute_units=flat.get("compute_units"), clock_hz=flat.get("clock_hz"),
        board_power_w=None if power is None else float(power),
        on_chip_cache_bytes=flat.get("on_chip_cache_bytes"), max_chips=flat.get("max_chips"),
        in_switch_reduction_efficiency=(None if efficiency is None else float(efficiency)),
        collective_overhead_s=None if overhead is None else float(overhead),
        calibrated_links=calibrated_links,
        aliases=tuple(data.get("aliases", ())),
        sources=tuple(data.get("sources", ())),
        measured=dict(data.get("measured", {})),
        path=origin,
    )


def _by_op_problem(by_op: Any) -> str:
    """What is wrong with a transcendentals_per_s_by_op table ('' when nothing is)."""
    if not isinstance(by_op, Mapping):
        return f"must be a table of opcode = elements per second, got {by_op!r}"
    unknown = sorted(set(by_op) - set(RATED_TRANSCENDENTALS))
    if unknown:
        return f"names opcodes {unknown} it cannot rate; allowed: {list(RATED_TRANSCENDENTALS)}"
    bad = {k: v for k, v in by_op.items() if not _positive(v)}
    if bad:
        return f"has rates that are not positive numbers: {bad}"
    return ""


def _parse_calibrated(table: Any, fail: Any, kind: str = "") -> CalibratedLinks:
    """`[interconnect.calibrated]` (or one of its per-kind sub-tables)."""
    where = "[interconnect.calibrated" + (f".{kind}]" if kind else "]")
    if not isinstance(table, Mapping):
        raise fail(f"{where} must be a table, got {table!r}")
    allowed = set(_CALIBRATED_VALUES) | set(_CALIBRATED_OPTIONAL)
    if not kind:
        allowed |= {"source", *_CALIBRATED_KINDS}
    else:
        allowed |= {*_PROTOCOL_ARRAYS, _PROTOCOL_BUFFER, _PROTOCOL_PEER}
    extra = set(table) - allowed
    if extra:
        raise fail(f"unknown keys {sorted(extra)} in {where}; allowed: {sorted(allowed)}")
    missing = [k for k in _CALIBRATED_VALUES if k not in table]
    if missing:
        raise fail(f"missing keys {missing} in {where}")
    if not _positive(table["intra_node_bandwidth_bytes_per_s"]):
        raise fail(f"{where} intra_node_bandwidth_bytes_per_s must be a positive number, "
                   f"got {table['intra_node_bandwidth_bytes_per_s']!r}")
    for key in ("intra_node_latency_s", "collective_overhead_s",
                "held_out_median_relative_error", "held_out_max_relative_error"):
        if key in table and not _non_negative(table[key]):
            raise fail(f"{where} {key} must be a number >= 0, got {table[key]!r}")
    efficiency = table.get("in_switch_reduction_efficiency")   # 0: fitted without it
    if efficiency is not None and not (_non_negative(efficiency) and efficiency <= 1):
        raise fail(f"{where} in_switch_reduction_efficiency must be in [0, 1], "
                   f"got {efficiency!r}")

    def opt(key: str) -> float | None:
        return None if table.get(key) is None else float(table[key])

    per_kind = {} if kind else {k: _parse_calibrated(table[k], fail, k)
                                for k in _CALIBRATED_KINDS if k in table}
    return CalibratedLinks(
        intra_node_bandwidth_bytes_per_s=float(table["intra_node_bandwidth_bytes_per_s"]),
        intra_node_latency_s=float(table["intra_node_latency_s"]),
        collective_overhead_s=float(table["collective_overhead_s"]),
        in_switch_reduction_efficiency=opt("in_switch_reduction_efficiency"),
        held_out_median_relative_error=opt("held_out_median_relative_error"),
        held_out_max_relative_error=opt("held_out_max_relative_error"),
        source=str(table.get("source", "")), per_kind=per_kind,
        protocols=_parse_protocols(table, fail, where))


def _parse_protocols(table: Any, fail: Any, where: str) -> tuple[CalibratedProtocol, ...]:
    """The `protocol_*` arrays of a per-kind calibrated table (all four or none, and
    optionally `protocol_buffer_seconds_per_byte` and `protocol_peer_seconds_per_byte`)."""
    present = [k for k in _PROTOCOL_ARRAYS if k in table]
    if not present:
        for key in (_PROTOCOL_BUFFER, _PROTOCOL_PEER):
            if key in table:
                raise fail(f"{where} {key} needs {list(_PROTOCOL_ARRAYS)}")
        return ()
    if len(present) != len(_PROTOCOL_ARRAYS):
        raise fail(f"{where} needs all of {list(_PROTOCOL_ARRAYS)} or none, got "
                   f"{present}")
    names, overhead, latency, bandwidth = (table[k] for k in _PROTOCOL_ARRAYS)
    if not all(isinstance(a, list) for a in (names, overhead, latency, bandwidth)) or \
            not len(names) == len(overhead) == len(latency) == len(bandwidth) >= 1:
        raise fail(f"{where} {list(_PROTOCOL_ARRAYS)} must be lists of one length >= 1")
    if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
        raise fail(f"{where} protocol_names must be distinct names, got {names!r}")
    if not all(_non_negative(v) for v in overhead + latency) or \
            not all(_positive(v) for v in bandwidth):
        raise fail(f"{where} protocol overheads and latencies must be numbers >= 0 and "
                   "bandwidths positive numbers")
    per_byte = []
    for key in (_PROTOCOL_BUFFER, _PROTOCOL_PEER):
        values = table.get(key, [0.0] * len(names))
        if not isinstance(values, list) or len(values) != len(names) or \
                not all(_non_negative(v) for v in values):
            raise fail(f"{where} {key} must be a list of {len(names)} numbers >= 0 "
                       f"(one per protocol), got {values!r}")
        per_byte.append(values)
    return tuple(CalibratedProtocol(str(n), float(o), float(a), float(b), float(c), float(d))
                 for n, o, a, b, c, d in zip(names, overhead, latency, bandwidth, *per_byte))


def _positive(value: Any) -> bool:
    return _number(value) and value > 0


def _non_negative(value: Any) -> bool:
    return _number(value) and value >= 0


def _number(value: Any) -> bool:
    """A finite int or float (not a bool, NaN or infinity)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


