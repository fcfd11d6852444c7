"""The `stablecost` command line.

    stablecost analyze PROGRAM [--json] [--mesh data=4,model=2]
    stablecost predict PROGRAM --hardware NAME[,NAME...] [--fidelity auto|roofline|learned|all] [--json] [--top N]
                       [--mesh data=4,model=2] [--topology switch|torus2d:2x4|...] [--no-overlap]
    stablecost hardware list | show NAME | calibrate [--quick]
    stablecost collect | dataset | import ...   (see serve/cli_data.py)
    stablecost serve [--host H] [--port P] ...   (see serve/cli_serve.py)
    stablecost train xgboost|gnn | evaluate ... (see serve/cli_train.py)

PROGRAM is a .mlir / .mlirbc path or `-` for stdin. User errors print one line and
exit with code 2.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from typing import Any, Sequence

from ..errors import StablecostError
from . import cli_data, cli_serve, cli_train

EXIT_USER_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every user error
        sys.stderr.write(f"stablecost: error: {message} (see `{self.prog} --help`)\n")
        raise SystemExit(EXIT_USER_ERROR)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="stablecost", description="Predict ML step time from StableHLO.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    analyze = sub.add_parser("analyze", help="FLOPs, bytes and per-opcode statistics")
    analyze.add_argument("program", help=".mlir or .mlirbc file, or - for stdin")
    analyze.add_argument("--json", action="store_true", help="machine-readable output")
    analyze.add_argument("--mesh", default=None,
                         help="device mesh AXIS=SIZE,...: analyze one device's program")

    predict = sub.add_parser("predict", help="predicted step time with per-kernel breakdown")
    predict.add_argument("program", help=".mlir or .mlirbc file, or - for stdin")
    predict.add_argument("--hardware", required=True,
                         help="catalog name(s), comma-separated (see `stablecost hardware list`)")
    predict.add_argument("--fidelity", default="auto",
                         help="auto (default: learned where a bundled model exists for the "
                              "chip, else roofline), roofline, learned, all (side by side)")
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

    hardware = sub.add_parser("hardware", help="the hardware catalog")
    hsub = hardware.add_subparsers(dest="action", required=True, parser_class=_Parser)
    hlist = hsub.add_parser("list", help="every chip in the catalog")
    hlist.add_argument("--json", action="store_true")
    show = hsub.add_parser("show", help="one chip's data and sources")
    show.add_argument("name")
    show.add_argument("--json", action="store_true")
    calibrate = hsub.add_parser("calibrate", help="measure host-cpu on this machine")
    calibrate.add_argument("--quick", action="store_true",
                           help="smaller problems: seconds, less accurate")
    cli_data.add_parsers(sub, _Parser)
    cli_serve.add_parsers(sub, _Parser)
    cli_train.add_parsers(sub, _Parser)
    return parser


_STORAGE_ERRORS = {errno.ENOSPC, errno.EDQUOT}


def main(argv: Sequence[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "analyze":
            return _analyze(args)
        if args.command == "predict":
            return _predict(args)
        if args.command == "hardware":
            return _hardware(args)
        if args.command == "serve":
            return cli_serve.run(args)
        if args.command in ("train", "evaluate"):
            return cli_train.run(args)
        return cli_data.run(args)
    except StablecostError as exc:
        sys.stderr.write(f"stablecost: error: {exc}\n")
        return EXIT_USER_ERROR
    except OSError as exc:
        if exc.errno not in _STORAGE_ERRORS:
            raise
        # a full disk or quota: what was measured before is kept (journal, atomic
        # writes); the same command continues once there is room
        where = f" writing {exc.filename}" if exc.filename else ""
        sys.stderr.write(f"stablecost: error: {exc.strerror}{where}; free some space and "
                         "run the same command again\n")
        return EXIT_USER_ERROR
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("stablecost: interrupted\n")
        return 130


def _load(arg: str, mesh=None):
    from ..featurize.ingest import load_program, read_source_arg

    data, label = read_source_arg(arg)
    return load_program(data, name=label, mesh=mesh)


def _console():
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # `stablecost predict ... | head`: the reader had enough, which is not an
            # error (rich exits 1 here); the same as main()'s BrokenPipeError
            self.quiet = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise SystemExit(0)

    console = _Console(highlight=False)
    if not console.is_terminal:  # pipes and CI logs: do not squeeze tables into 80 columns
        console = _Console(highlight=False, width=160)
    return console


def _analyze(args: argparse.Namespace) -> int:
    from ..featurize.analysis import analyze
    from ..featurize.partition import parse_mesh

    mesh = parse_mesh(args.mesh) if args.mesh is not None else None
    analysis = analyze(_load(args.program, mesh))
    if args.json:
        _print_json(analysis.to_dict())
        return 0
    from rich.table import Table

    console = _console()
    d = analysis.to_dict()
    console.print(f"[bold]{d['source']}[/]: {d['ops']} ops, {d['kernels']} fused kernels")
    console.print(f"  FLOPs            {_si(d['flops'])}")
    console.print(f"  transcendentals  {_si(d['transcendentals'])}")
    console.print(f"  bytes accessed   {_si(d['bytes_accessed'])}B unfused, "
                  f"{_si(d['fused_bytes_accessed'])}B at kernel boundaries")
    if d["communication_bytes"]:
        console.print(f"  communication    {_si(d['communication_bytes'])}B sent per device")
    table = Table(title="per opcode (per step)")
    for col in ("opcode", "ops", "executions", "FLOPs", "transcendentals", "bytes"):
        table.add_column(col, justify="left" if col == "opcode" else "right")
    rows = sorted(d["per_opcode"].items(), key=lambda kv: -kv[1]["flops"])
    for name, s in rows:
        table.add_row(name, str(s["instances"]), f"{s['executions']:g}", _si(s["flops"]),
                      _si(s["transcendentals"]), _si(s["bytes_accessed"]))
    console.print(table)
    _print_notes(console, d)
    return 0


def _predict(args: argparse.Namespace) -> int:
    from ..featurize.analysis import analyze
    from ..featurize.partition import parse_mesh
    from ..models.comm.topology_spec import parse_topology_spec
    from .predict import predict

    names = [n.strip() for n in args.hardware.split(",") if n.strip()]
    if not names:
        raise_invalid("--hardware needs at least one name")
    from .predict import FIDELITIES, resolve_hardware

    if args.fidelity not in FIDELITIES:
        raise_invalid(f"unknown fidelity {args.fidelity!r}; allowed: {', '.join(FIDELITIES)}")
    chips = [resolve_hardware(n, args.fidelity) for n in names]  # bad names fail before parsing
    if args.top < 0:
        raise_invalid(f"--top must be >= 0, got {args.top}")
    mesh = parse_mesh(args.mesh) if args.mesh is not None else None
    if args.topology is not None:   # check the spelling before the (slow) parse
        parse_topology_spec(args.topology)
    analysis = analyze(_load(args.program, mesh))
    predictions = [predict(analysis, hw, fidelity=args.fidelity, topology=args.topology,
                           overlap=not args.no_overlap) for hw in chips]
    if args.json:
        dicts = [p.to_dict() for p in predictions]
        _print_json(dicts[0] if len(dicts) == 1 else dicts)
        return 0
    console = _console()
    for p in predictions:
        _print_prediction(console, p, args.top)
    if len(predictions) > 1:
        from rich.table import Table

        table = Table(title=f"{predictions[0].program}: predicted step time")
        for col in ("hardware", "topology", "step time", "compute", "communication",
                    "exposed comm", "launch overhead"):
            table.add_column(col, justify="left" if col in ("hardware", "topology")
                             else "right")
        for p in predictions:
            table.add_row(p.hardware, p.topology or "-", _seconds(p.step_time_s),
                          _seconds(p.compute_s), _seconds(p.communication_s),
                          _seconds(p.exposed_communication_s), _seconds(p.overhead_s))
        console.print(table)
    return 0


def _print_prediction(console, p, top: int) -> None:
    from rich.table import Table

    system = p.hardware
    if p.num_devices > 1:
        mesh = ",".join(f"{k}={v}" for k, v in p.mesh.items()) if p.mesh else ""
        system = f"{p.num_devices} x {p.hardware}" + (f", mesh {mesh}" if mesh else "") + \
            (f", {p.topology}" if p.topology else "")
    console.print(f"\n[bold]{p.program}[/] on [bold]{system}[/] ({p.fidelity}): "
                  f"step time [bold]{_seconds(p.step_time_s)}[/] "
                  f"(compute {_seconds(p.compute_s)}, of which launch overhead "
                  f"{_seconds(p.overhead_s)}; communication {_seconds(p.communication_s)}, "
                  f"exposed [bold]{_seconds(p.exposed_communication_s)}[/]"
                  f"{'' if p.overlap else ', no overlap'}); {len(p.kernels)} kernels")
    if p.by_fidelity:
        side = Table(title="fidelities side by side")
        for col in ("fidelity", "step time", "compute", "communication", "exposed comm"):
            side.add_column(col, justify="left" if col == "fidelity" else "right")
        for name, d in p.by_fidelity.items():
            side.add_row(name, _seconds(d["step_time_s"]), _seconds(d["compute_s"]),
                         _seconds(d["communication_s"]), _seconds(d["exposed_communication_s"]))
        console.print(side)
    ranked = sorted(p.kernels, key=lambda k: -k.total_time_s)
    shown = ranked if top == 0 else ranked[:top]
    table = Table(title=f"top {len(shown)} kernels by time" if top else "all kernels")
    for col in ("#", "kind", "ops", "count", "FLOPs", "bytes", "time", "share", "bound",
                "source"):
        table.add_column(col, justify="right" if col in (
            "#", "count", "FLOPs", "bytes", "time", "share") else "left")
    for k in shown:
        ops = ",".join(_dedupe(k.ops))
        share = k.total_time_s / p.step_time_s if p.step_time_s else 0.0
        table.add_row(str(k.index), k.kind, ops[:40] + ("…" if len(ops) > 40 else ""),
                      f"{k.count:g}", _si(k.flops), _si(k.bytes_accessed) + "B",
                      _seconds(k.total_time_s), f"{share:.1%}", k.bound, _where(k.location))
    console.print(table)
    if p.collectives:
        ctable = Table(title=f"{len(p.collectives)} collectives (time per execution)")
        for col in ("#", "kind", "bytes", "group", "algorithm", "count", "time", "total",
                    "source"):
            ctable.add_column(col, justify="right" if col in (
                "#", "bytes", "count", "time", "total") else "left")
        for c in p.collectives:
            ctable.add_row(str(c.kernel), c.kind, _si(c.bytes_per_device) + "B",
                           _group(c), c.algorithm, f"{c.count:g}", _seconds(c.time_s),
                           _seconds(c.total_time_s), _where(c.location))
        console.print(ctable)
    if p.critical_path:
        comm = sum(1 for i in p.critical_path if p.kernels[i].bound == "communication")
        console.print(f"critical path: {len(p.critical_path)} kernels, {comm} of them "
                      "collectives")
    _print_notes(console, p.to_dict())


def _group(c) -> str:
    """'4 x [0,2,4,6]' for 2 groups of 4, '8 pairs [0..7]' for a permute."""
    devices = list(c.group)
    shown = ",".join(str(d) for d in devices[:8]) + ("…" if len(devices) > 8 else "")
    if c.kind == "collective_permute":
        return f"{c.groups} pairs over [{shown}]"
    return f"{c.group_size} dev [{shown}]" + (f" x{c.groups}" if c.groups > 1 else "")


def _hardware(args: argparse.Namespace) -> int:
    from .. import hardware as hwmod

    if args.action == "list":
        chips = hwmod.list_hardware()
        if args.json:
            _print_json([hw.to_dict() for hw in chips])
            return 0
        from rich.table import Table

        table = Table(title="hardware catalog (dense peaks)")
        for col in ("name", "kind", "bf16 matmul", "f32 matmul (as)", "HBM bandwidth",
                    "memory", "chips/node", "topology"):
            table.add_column(col, justify="left" if col in ("name", "kind", "topology")
                             else "right")
        for hw in chips:
            table.add_row(hw.name, hw.kind, _si(hw.matmul_flops_per_s["bf16"]) + "FLOP/s",
                          f"{_si(hw.matmul_peak_flops_per_s('f32'))}FLOP/s ({hw.f32_matmul_as})",
                          _si(hw.memory_bandwidth_bytes_per_s) + "B/s",
                          _si(hw.memory_capacity_bytes) + "B", str(hw.chips_per_node),
                          hw.topology)
        console = _console()
        console.print(table)
        if not hwmod.host_cpu_path().is_file():
            console.print("host-cpu: not calibrated on this machine "
                          "(run `stablecost hardware calibrate`)")
        return 0
    if args.action == "show":
        hw = hwmod.get_hardware(args.name)
        d = hw.to_dict()
        if args.json:
            _print_json(d)
            return 0
        console = _console()
        console.print(f"[bold]{hw.name}[/] ({hw.vendor} {hw.kind}) from {hw.path}")
        for key, value in d.items():
            if key in ("name", "vendor", "kind", "sources", "path", "measured"):
                continue
            if isinstance(value, dict):
                value = ", ".join(f"{k}={_si(v)}" for k, v in value.items())
            elif isinstance(value, float):
                value = _si(value)
            console.print(f"  {key:34s} {value}")
        for key, value in d["measured"].items():
            console.print(f"  measured.{key:25s} {value}")
        console.print("sources:")
        for source in hw.sources:
            console.print(f"  - {source.get('title', '')}: {source.get('url', '')} "
                          f"({source.get('covers', '')})")
        return 0
    from ..hardware.calibrate import calibrate_host_cpu

    path, spec = calibrate_host_cpu(quick=args.quick, progress=sys.stderr)
    compute = spec["compute"]
    print(f"host-cpu calibrated: f32 matmul {_si(compute['matmul_flops_per_s']['f32'])}FLOP/s, "
          f"f32 vector {_si(compute['vector_flops_per_s']['f32'])}FLOP/s, bandwidth "
          f"{_si(spec['memory']['bandwidth_bytes_per_s'])}B/s, per-kernel overhead "
          f"{_seconds(spec['kernel']['launch_overhead_s'])}; saved to {path}")
    return 0


def raise_invalid(message: str) -> None:
    from ..errors import InvalidArgumentError

    raise InvalidArgumentError(message)


def _print_notes(console, d: dict[str, Any]) -> None:
    for note in d.get("notes", []):
        console.print(f"[yellow]note:[/] {note}")


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=1)
    sys.stdout.write("\n")


def _where(location: str) -> str:
    """`jit(step)/jvp()/dot_general @ model.py:45:12` -> `dot_general @ model.py:45`."""
    name, _, place = location.partition(" @ ")
    name = name.rsplit("/", 1)[-1]
    place = ":".join(place.split(":")[:2])
    return f"{name} @ {place}" if place else name


def _dedupe(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def _si(value: float) -> str:
    value = float(value)
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{prefix}"
    return f"{value:.3g}"


def _seconds(value: float) -> str:
    if abs(value) < 1e-12:  # float round-off of a difference (exposed = step - compute)
        return "0 ns"
    if value >= 1:
        return f"{value:.3g} s"
    if value >= 1e-3:
        return f"{value * 1e3:.3g} ms"
    if value >= 1e-6:
        return f"{value * 1e6:.3g} µs"
    return f"{value * 1e9:.3g} ns"


if __name__ == "__main__":
    sys.exit(main())
