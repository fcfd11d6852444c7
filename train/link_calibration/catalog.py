"""The calibrated values in the hardware catalog: `calibration_toml` formats a chip's
fitted values (chip-wide and per kind, with their held-out errors and provenance) as the
`[interconnect.calibrated]` block of its TOML file (hardware/chips/*.toml), between
marker comments; `write_catalog` writes or replaces that block (re-reading the file so
that a block that would not parse is never left behind); `calibrated_topology` builds
the fabric of a chip from the values its file holds.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ...errors import InvalidArgumentError
from ...hardware import Hardware, get_hardware
from ...models.comm.topology import Topology, topology_for
from .fit import LinkParams
from .measurements import CALIBRATED_KINDS, wanted_chips
from .report import CalibrationReport, ErrorStats, percent

if TYPE_CHECKING:
    from .protocols import ProtocolParams
    from .validation import ProtocolReport

_BEGIN = "# --- begin [interconnect.calibrated]: written by stablecost.train.link_calibration ---"
_END = "# --- end [interconnect.calibrated] ---"
_SOURCE_URL = "https://github.com/ai-dynamo/aiconfigurator"


def _toml_float(x: float) -> str:
    text = f"{x:.4g}"
    return text if any(c in text for c in ".en") else text + ".0"


def _values_toml(p: LinkParams, held_out: ErrorStats) -> list[str]:
    lines = [f"intra_node_bandwidth_bytes_per_s = {_toml_float(p.bandwidth_bytes_per_s)}",
             f"intra_node_latency_s = {_toml_float(p.latency_s)}",
             f"collective_overhead_s = {_toml_float(p.overhead_s)}"]
    if p.in_switch_reduction_efficiency is not None:
        note = ("   # 0: fitted better without the in-switch (NVLS) algorithm"
                if p.in_switch_reduction_efficiency == 0 else "")
        lines.append("in_switch_reduction_efficiency = "
                     f"{_toml_float(p.in_switch_reduction_efficiency)}{note}")
    if held_out.rows:
        lines += [f"held_out_median_relative_error = {_toml_float(held_out.median)}",
                  f"held_out_max_relative_error = {_toml_float(held_out.max)}"]
    return lines


def _protocols_toml(p: "ProtocolParams", in_switch: float | None,
                    protocols: "ProtocolReport") -> list[str]:
    """A per-kind table from the protocol fit: the link values are the Simple protocol's
    (what hierarchical and other fabrics use; its bus bandwidth on a full node), the
    overhead the cheapest protocol's, and the protocols as parallel arrays (`flat`'s
    docstring has the formulas)."""
    simple = p.simple
    link_bw = p.link_bandwidth_bytes_per_s(get_hardware(p.hardware).chips_per_node)
    sizes = protocols.split(p.hardware, p.kind, "sizes")
    counts = protocols.split(p.hardware, p.kind, "gpus")
    lines = []
    if sizes is not None and counts is not None:
        lines.append(
            f"# NCCL protocol model: held-out sizes median {percent(sizes.protocols.median)}"
            f" / p90 {percent(sizes.protocols.p90)}, held-out GPU counts median "
            f"{percent(counts.protocols.median)} / p90 {percent(counts.protocols.p90)} "
            f"(single alpha-beta fit: {percent(sizes.alpha_beta.median)} / "
            f"{percent(counts.alpha_beta.median)} median)")
    lines += [f"intra_node_bandwidth_bytes_per_s = {_toml_float(link_bw)}",
              f"intra_node_latency_s = {_toml_float(simple.latency_s)}",
              f"collective_overhead_s = {_toml_float(p.overhead_s)}"]
    if in_switch is not None:
        lines.append(f"in_switch_reduction_efficiency = {_toml_float(in_switch)}"
                     + ("   # NVLS is priced by its protocol below" if p.nvls else ""))
    if sizes is not None:
        lines += [f"held_out_median_relative_error = {_toml_float(sizes.protocols.median)}",
                  f"held_out_max_relative_error = {_toml_float(sizes.protocols.max)}"]
    lines += [
        "protocol_names = [" + ", ".join(json.dumps(q.name) for q in p.protocols) + "]",
        "protocol_overhead_s = [" + ", ".join(_toml_float(q.overhead_s)
                                              for q in p.protocols) + "]",
        "protocol_latency_s = [" + ", ".join(_toml_float(q.latency_s)
                                             for q in p.protocols) + "]",
        "protocol_bandwidth_bytes_per_s = [" + ", ".join(
            _toml_float(q.bandwidth_bytes_per_s) for q in p.protocols) + "]",
        "protocol_buffer_seconds_per_byte = [" + ", ".join(
            _toml_float(q.buffer_seconds_per_byte) for q in p.protocols) + "]"]
    if any(q.peer_seconds_per_byte for q in p.protocols):
        lines.append("protocol_peer_seconds_per_byte = [" + ", ".join(
            _toml_float(q.peer_seconds_per_byte) for q in p.protocols) + "]")
    return lines


def calibration_toml(report: CalibrationReport, hardware: str,
                     protocols: "ProtocolReport | None" = None) -> str:
    """The `[interconnect.calibrated]` block of one chip's TOML file (between markers, so
    `write_catalog` can replace it). `protocols`: per-kind NCCL protocol fits, written
    in place of the per-kind alpha-beta values where they have the chip and kind."""
    name = get_hardware(hardware).name
    chip = report.fit(name)
    versions = ", ".join(v.replace("NCCL ", "") for v in report.libraries[name])
    lo, hi = report.size_range_bytes[name]
    sizes = report.group_sizes[name]
    what = (f"aiconfigurator NCCL {versions} measurements (nccl-tests all_reduce, "
            f"all_gather, reduce_scatter, all_to_all; {min(sizes)}-{max(sizes)} GPUs in one "
            f"node; {', '.join(report.dtypes[name])}; {_bytes(lo)}-{_bytes(hi)})")
    source = (f"fitted by stablecost.train.link_calibration to {what}; held-out median error "
              f"{percent(chip.held_out.median)}")
    lines = [
        _BEGIN,
        f"# Fitted by stablecost.train.link_calibration to {what}.",
        f"# Held out: {report.held_out_rule}; held-out median relative error "
        f"{percent(chip.held_out.median)} (max {percent(chip.held_out.max)}), catalog values "
        f"{percent(chip.held_out_before.median)}.",
        "# Effective values: what the alpha-beta formulas (models/collectives.py) need to",
        "# reproduce NCCL inside one node; the datasheet values above stay the chip's peaks.",
        "[interconnect.calibrated]",
        f"source = {json.dumps(source)}",
        *_values_toml(chip.params, chip.held_out),
    ]
    for kind in CALIBRATED_KINDS:
        try:
            f = report.fit(name, kind)
        except InvalidArgumentError:
            continue
        fitted = None if protocols is None else protocols.fit(name, kind)
        lines += ["", f"[interconnect.calibrated.{kind}]"]
        if fitted is not None and protocols is not None:
            lines += _protocols_toml(fitted, f.params.in_switch_reduction_efficiency,
                                     protocols)
            continue
        lines += [f"# held-out median error {percent(f.held_out.median)} (catalog "
                  f"{percent(f.held_out_before.median)})",
                  *_values_toml(f.params, f.held_out)]
    lines += ["", "[[sources]]",
              'title = "aiconfigurator systems data: NCCL collective measurements '
              f'(comm/nccl/{{{versions}}}/nccl_perf.parquet)"',
              f'url = "{_SOURCE_URL}"',
              'covers = "[interconnect.calibrated]: effective intra-node bandwidth, '
              'per-step latency, per-call overhead and NVLS efficiency'
              + (', and per kind NCCL protocol regimes (LL, LL128, Simple, NVLS),'
                 if protocols is not None else '') +
              ' fitted by stablecost.train.link_calibration"',
              _END]
    return "\n".join(lines) + "\n"


def _bytes(b: float) -> str:
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if b >= size:
            return f"{b / size:g} {unit}"
    return f"{b:g} B"


def write_catalog(report: CalibrationReport, hardware: str | Sequence[str] | None = None,
                  *, directory: str | Path | None = None,
                  protocols: "ProtocolReport | None" = None) -> list[Path]:
    """Write (or replace) the `[interconnect.calibrated]` block of each fitted chip's
    TOML file, before its first `[[sources]]`; returns the files written. `directory`:
    write copies of the catalog files there instead of the catalog itself. A file is
    re-read afterwards, so a block that would not parse is never left behind."""
    from ...atomicio import atomic_write_bytes
    from ...hardware import load_spec_file, reload_catalog

    names = report.hardware() if hardware is None else sorted(wanted_chips(hardware))
    written = []
    for name in names:
        source = Path(get_hardware(name).path)
        path = source if directory is None else Path(directory) / source.name
        text = (path if path.exists() else source).read_text()
        block = calibration_toml(report, name, protocols)
        if _BEGIN in text and _END in text:
            head, rest = text.split(_BEGIN, 1)
            tail = rest.split(_END, 1)[1].lstrip("\n")
            new = head + block + ("\n" + tail if tail else "")
        else:
            at = text.find("\n[[sources]]")
            new = (text.rstrip("\n") + "\n\n" + block if at < 0 else
                   text[:at + 1] + block + "\n" + text[at + 1:])
        atomic_write_bytes(path, new.encode())
        try:
            load_spec_file(path)
        except Exception:
            if path == source or path.exists():
                atomic_write_bytes(path, text.encode())
            raise
        written.append(path)
    reload_catalog()
    return written


def calibrated_topology(hardware: str | Hardware, num_devices: int,
                        kind: str | None = None) -> Topology:
    """`topology_for(hardware, num_devices)` with the chip's `[interconnect.calibrated]`
    intra-node values (those fitted to `kind` when the file has them)."""
    hw = get_hardware(hardware)
    if hw.calibrated_links is None:
        raise InvalidArgumentError(
            f"hardware {hw.name!r} has no [interconnect.calibrated] values; calibrated "
            f"chips: {calibrated_chips()}")
    topology = topology_for(hw, num_devices, calibrated=True)
    per_kind = topology.for_kind(kind) if kind else topology
    return per_kind if per_kind is not topology else dataclasses.replace(topology,
                                                                         per_kind=())


def calibrated_chips() -> list[str]:
    """The catalog chips whose file has an `[interconnect.calibrated]` block."""
    from ...hardware import list_hardware

    return [hw.name for hw in list_hardware() if hw.calibrated_links is not None]
