"""`stablecost analyze` and `stablecost predict`: one program's costs, and its
predicted step time on one or more systems with the per-kernel breakdown."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from .console import (
    dedupe,
    json_text,
    make_console,
    print_notes,
    raise_invalid,
    seconds,
    si,
    where,
)

PROGRAM_HELP = (".mlir or .mlirbc file (text, bytecode, a StableHLO portable artifact), a "
                "jax.export artifact (Exported.serialize() bytes), a torch.export .pt2 "
                "archive (needs stablecost[torch]), or - for stdin")


def _add_program_options(parser: Any) -> None:
    """--entry, --shape, --dim: which function is the step, and static shapes for a
    program with dynamic dimensions."""
    parser.add_argument("--entry", default=None, metavar="NAME",
                        help="the public function that is the step, when the module has "
                             "several and no @main")
    parser.add_argument("--shape", action="append", default=None, metavar="ARG=SHAPE",
                        help="static shape of a dynamically shaped argument of the entry "
                             "function, e.g. arg0=8x128 (repeatable)")
    parser.add_argument("--dim", action="append", default=None, metavar="NAME=SIZE",
                        help="size of a symbolic dimension of a jax.export program with "
                             "shape polymorphism, e.g. b=8 (repeatable)")
    parser.add_argument("--no-cache", action="store_true",
                        help="compute the answer afresh (by default a question asked "
                             "before is answered from the cache: see README, Caches)")


def _pairs(values: list[str] | None, flag: str, example: str) -> dict[str, str] | None:
    if values is None:
        return None
    out: dict[str, str] = {}
    for value in values:
        name, eq, rest = value.partition("=")
        if not eq or not name.strip():
            raise_invalid(f"{flag} {value!r}: give NAME=VALUE, e.g. {flag} {example}")
        if name.strip() in out:
            raise_invalid(f"{flag} {name.strip()} given twice")
        out[name.strip()] = rest.strip()
    return out


def _load_options(args: argparse.Namespace) -> dict[str, Any]:
    """load_program's entry/shapes/dims from --entry, --shape and --dim."""
    shapes = _pairs(args.shape, "--shape", "arg0=8x128")
    dims_text = _pairs(args.dim, "--dim", "b=8")
    dims = None
    if dims_text is not None:
        dims = {}
        for name, size in dims_text.items():
            if not size.isdigit():
                raise_invalid(f"--dim {name}={size}: the size must be an integer >= 0")
            dims[name] = int(size)
    return {"entry": args.entry, "shapes": shapes, "dims": dims}


def add_parsers(sub: Any, parser_class: type) -> None:
    analyze = sub.add_parser("analyze", help="FLOPs, bytes and per-opcode statistics")
    analyze.add_argument("program", help=PROGRAM_HELP)
    analyze.add_argument("--json", action="store_true", help="machine-readable output")
    analyze.add_argument("--mesh", default=None,
                         help="device mesh AXIS=SIZE,...: analyze one device's program")
    _add_program_options(analyze)

    predict = sub.add_parser("predict", help="predicted step time with per-kernel breakdown")
    predict.add_argument("program", help=PROGRAM_HELP)
    predict.add_argument("--hardware", required=True,
                         help="catalog name(s), comma-separated (see `stablecost hardware list`)")
    predict.add_argument("--fidelity", default="auto",
                         help="auto (default: learned where a bundled model exists for the "
                              "chip, else roofline), roofline, learned, measured (compile "
                              "and time it on this machine's backend), all (side by side), "
                              "all+measured (all, and measured beside them)")
    predict.add_argument("--json", action="store_true", help="machine-readable output")
    predict.add_argument("--top", type=int, default=10,
                         help="kernels shown in the breakdown (default 10; 0 = all)")
    predict.add_argument("--mesh", default=None,
                         help="device mesh AXIS=SIZE,... (e.g. data=4,model=2): partitions a "
                              "program sharded by annotations, places a shard_map program")
    predict.add_argument("--topology", default=None,
                         help="interconnect: switch, fully_connected, ring, torus2d, torus3d, "
                              "hierarchical, optionally :DIMS (e.g. torus2d:2x4); default: "
                              "the chip's own fabric")
    predict.add_argument("--no-overlap", action="store_true",
                         help="run communication and compute back to back")
    predict.add_argument("--measured-on", default=None, metavar="CHIP=TIME",
                         help="a step of this program measured on another chip of the same "
                              "kind (e.g. H100-SXM=47.25ms; units s, ms, us): each chip's "
                              "prediction is that time x the ratio of the two chips' "
                              "predictions")
    _add_program_options(predict)


def run(args: argparse.Namespace) -> int:
    return _analyze(args) if args.command == "analyze" else _predict(args)


def _read(arg: str) -> tuple[bytes, str]:
    from ...featurize.program_files import read_source_arg

    return read_source_arg(arg)


def _load(data: bytes, label: str, mesh=None, options: dict[str, Any] | None = None):
    from ...featurize.ingest import load_program

    return load_program(data, name=label, mesh=mesh, **(options or {}))


def _analyze(args: argparse.Namespace) -> int:
    from . import answers

    data, label = _read(args.program)
    key = answers.key(args, data, label)
    found = answers.load(key)
    if found is None:
        from ...featurize.analysis import analyze
        from ...featurize.partition import parse_mesh

        mesh = parse_mesh(args.mesh) if args.mesh is not None else None
        d = analyze(_load(data, label, mesh, _load_options(args))).to_dict()
        text = json_text(d)
        answers.store(key, text)
    else:
        text, d = found
    if args.json:
        sys.stdout.write(text)
        return 0
    from rich.table import Table

    console = make_console()
    console.print(f"[bold]{d['source']}[/]: {d['ops']} ops, {d['kernels']} fused kernels")
    console.print(f"  FLOPs            {si(d['flops'])}")
    console.print(f"  transcendentals  {si(d['transcendentals'])}")
    console.print(f"  bytes accessed   {si(d['bytes_accessed'])}B unfused, "
                  f"{si(d['fused_bytes_accessed'])}B at kernel boundaries")
    if d["communication_bytes"]:
        console.print(f"  communication    {si(d['communication_bytes'])}B sent per device")
    table = Table(title="per opcode (per step)")
    for col in ("opcode", "ops", "executions", "FLOPs", "transcendentals", "bytes"):
        table.add_column(col, justify="left" if col == "opcode" else "right")
    rows = sorted(d["per_opcode"].items(), key=lambda kv: -kv[1]["flops"])
    for name, s in rows:
        table.add_row(name, str(s["instances"]), f"{s['executions']:g}", si(s["flops"]),
                      si(s["transcendentals"]), si(s["bytes_accessed"]))
    console.print(table)
    print_notes(console, d)
    return 0

def _predict(args: argparse.Namespace) -> int:
    from . import answers

    if args.top < 0:
        raise_invalid(f"--top must be >= 0, got {args.top}")
    data, label = _read(args.program)
    key = answers.key(args, data, label)
    found = answers.load(key)
    if found is None:
        dicts = _predictions(args, data, label)
        text = json_text(dicts[0] if len(dicts) == 1 else dicts)
        answers.store(key, text)
    else:
        text, shown = found
        dicts = shown if isinstance(shown, list) else [shown]
    if args.json:
        sys.stdout.write(text)
        return 0
    console = make_console()
    for d in dicts:
        _print_prediction(console, d, args.top)
    if len(dicts) > 1:
        from rich.table import Table

        table = Table(title=f"{dicts[0]['program_name']}: predicted step time")
        for col in ("hardware", "topology", "step time", "compute", "communication",
                    "exposed comm", "launch overhead"):
            table.add_column(col, justify="left" if col in ("hardware", "topology")
                             else "right")
        for d in dicts:
            table.add_row(d["hardware"], d["topology"] or "-", seconds(d["step_time_s"]),
                          seconds(d["compute_s"]), seconds(d["communication_s"]),
                          seconds(d["exposed_communication_s"]), seconds(d["overhead_s"]))
        console.print(table)
    return 0

def _predictions(args: argparse.Namespace, data: bytes, label: str) -> list[dict[str, Any]]:
    """The predictions `args` ask for, as JSON dicts, one per chip."""
    from ...featurize.analysis import analyze
    from ...featurize.partition import parse_mesh
    from ...models.comm.topology_spec import parse_topology_spec
    from ..api import carry_over, predict
    from ..api.carry import check_carry_fidelity
    from ..api.fidelity import check_fidelity, resolve_hardware

    names = [n.strip() for n in args.hardware.split(",") if n.strip()]
    if not names:
        raise_invalid("--hardware needs at least one name")
    check_fidelity(args.fidelity)
    chips = [resolve_hardware(n, args.fidelity) for n in names]  # bad names fail before parsing
    mesh = parse_mesh(args.mesh) if args.mesh is not None else None
    if args.topology is not None:   # check the spelling before the (slow) parse
        parse_topology_spec(args.topology)
    measured = None if args.measured_on is None else _measured_on(args.measured_on)
    if measured is not None:
        check_carry_fidelity(args.fidelity, "--measured-on")
    analysis = analyze(_load(data, label, mesh, _load_options(args)))
    if measured is not None:
        return [carry_over(analysis, hw, measured[0], measured[1], args.fidelity,
                           topology=args.topology, overlap=not args.no_overlap).to_dict()
                for hw in chips]
    return [predict(analysis, hw, fidelity=args.fidelity, topology=args.topology,
                    overlap=not args.no_overlap).to_dict() for hw in chips]


_UNITS_S = {"s": 1.0, "ms": 1e-3, "us": 1e-6}


def _measured_on(value: str) -> tuple[str, float]:
    """`--measured-on CHIP=TIME` as (chip, seconds)."""
    chip, sep, time = value.partition("=")
    number = time.strip().rstrip("smu")
    unit = time.strip()[len(number):] or "s"
    try:
        seconds = float(number) * _UNITS_S[unit]
    except (ValueError, KeyError):
        seconds = float("nan")
    if not sep or not chip.strip() or not (seconds > 0 and math.isfinite(seconds)):
        raise_invalid(f"--measured-on {value!r}: give CHIP=TIME with a positive time in "
                      "s, ms or us (e.g. H100-SXM=47.25ms)")
    return chip.strip(), seconds

def _print_prediction(console, p: dict[str, Any], top: int) -> None:
    from rich.table import Table

    system = p["hardware"]
    step = p["step_time_s"]
    if p["num_devices"] > 1:
        mesh = ",".join(f"{k}={v}" for k, v in p["mesh"].items()) if p["mesh"] else ""
        system = f"{p['num_devices']} x {p['hardware']}" + \
            (f", mesh {mesh}" if mesh else "") + (f", {p['topology']}" if p["topology"] else "")
    console.print(f"\n[bold]{p['program_name']}[/] on [bold]{system}[/] ({p['fidelity']}): "
                  f"step time [bold]{seconds(step)}[/] "
                  f"(compute {seconds(p['compute_s'])}, of which launch overhead "
                  f"{seconds(p['overhead_s'])}; communication {seconds(p['communication_s'])}, "
                  f"exposed [bold]{seconds(p['exposed_communication_s'])}[/]"
                  f"{'' if p['overlap'] else ', no overlap'}); {len(p['kernels'])} kernels")
    console.print(f"peak memory per device [bold]{si(p['peak_memory_bytes'])}B[/] of "
                  f"{si(p['memory_capacity_bytes'])}B: "
                  + ("fits" if p["fits"] else "[bold red]does not fit[/]"))
    if p["by_fidelity"]:
        side = Table(title="fidelities side by side")
        for col in ("fidelity", "step time", "compute", "communication", "exposed comm"):
            side.add_column(col, justify="left" if col == "fidelity" else "right")
        for name, d in p["by_fidelity"].items():
            side.add_row(name, seconds(d["step_time_s"]), seconds(d["compute_s"]),
                         seconds(d["communication_s"]), seconds(d["exposed_communication_s"]))
        console.print(side)
    ranked = sorted(p["kernels"], key=lambda k: -k["total_time_s"])
    shown = ranked if top == 0 else ranked[:top]
    table = Table(title=f"top {len(shown)} kernels by time" if top else "all kernels")
    for col in ("#", "kind", "ops", "count", "FLOPs", "bytes", "time", "share", "bound",
                "source"):
        table.add_column(col, justify="right" if col in (
            "#", "count", "FLOPs", "bytes", "time", "share") else "left")
    for k in shown:
        ops = ",".join(dedupe(k["ops"]))
        share = k["total_time_s"] / step if step else 0.0
        table.add_row(str(k["index"]), k["kind"], ops[:40] + ("…" if len(ops) > 40 else ""),
                      f"{k['count']:g}", si(k["flops"]), si(k["bytes_accessed"]) + "B",
                      seconds(k["total_time_s"]), f"{share:.1%}", k["bound"],
                      where(k["location"]))
    console.print(table)
    if p["collectives"]:
        ctable = Table(title=f"{len(p['collectives'])} collectives (time per execution)")
        for col in ("#", "kind", "bytes", "group", "algorithm", "count", "time", "total",
                    "source"):
            ctable.add_column(col, justify="right" if col in (
                "#", "bytes", "count", "time", "total") else "left")
        for c in p["collectives"]:
            ctable.add_row(str(c["kernel"]), c["kind"], si(c["bytes_per_device"]) + "B",
                           _group(c), c["algorithm"], f"{c['count']:g}", seconds(c["time_s"]),
                           seconds(c["total_time_s"]), where(c["location"]))
        console.print(ctable)
    if p["critical_path"]:
        comm = sum(1 for i in p["critical_path"]
                   if p["kernels"][i]["bound"] == "communication")
        console.print(f"critical path: {len(p['critical_path'])} kernels, {comm} of them "
                      "collectives")
    print_notes(console, p)

def _group(c: dict[str, Any]) -> str:
    """'4 x [0,2,4,6]' for 2 groups of 4, '8 pairs [0..7]' for a permute."""
    devices = list(c["group"])
    shown = ",".join(str(d) for d in devices[:8]) + ("…" if len(devices) > 8 else "")
    if c["kind"] == "collective_permute":
        return f"{c['groups']} pairs over [{shown}]"
    return f"{c['group_size']} dev [{shown}]" + (f" x{c['groups']}" if c["groups"] > 1 else "")
