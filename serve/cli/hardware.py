"""`stablecost hardware list | show NAME | calibrate`: the catalog, and this machine's
host-cpu calibration."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .console import make_console, print_json, raise_invalid, seconds, si


def add_parsers(sub: Any, parser_class: type) -> None:
    hardware = sub.add_parser("hardware", help="the hardware catalog")
    hsub = hardware.add_subparsers(dest="action", required=True, parser_class=parser_class)
    hlist = hsub.add_parser("list", help="every chip in the catalog")
    hlist.add_argument("--json", action="store_true")
    show = hsub.add_parser("show", help="one chip's data and sources")
    show.add_argument("name")
    show.add_argument("--json", action="store_true")
    calibrate = hsub.add_parser("calibrate", help="measure host-cpu on this machine")
    calibrate.add_argument("--quick", action="store_true",
                           help="smaller problems: seconds, less accurate")
    calibrate.add_argument("--rounds", type=int, default=None,
                           help="full calibrations whose medians are kept, their spread "
                                "recorded (default 3; --quick: 1)")
    adapt = hsub.add_parser("adapt", help="fit the bundled learned model to this machine "
                                          "(a few minutes of measurements)")
    adapt.add_argument("--minutes", type=float, default=5.0,
                       help="measuring time (default 5; running again measures more)")
    adapt.add_argument("--data", default=None,
                       help="where the measurements go (default: the config dir's "
                            "adapt-data/)")
    adapt.add_argument("--tracking-uri", default=None, help="MLflow tracking URI")
    adapt.add_argument("--no-track", action="store_true", help="do not log an MLflow run")


def run(args: argparse.Namespace) -> int:
    from ... import hardware as hwmod

    if args.action == "list":
        chips = hwmod.list_hardware()
        if args.json:
            print_json([hw.to_dict() for hw in chips])
            return 0
        from rich.table import Table

        table = Table(title="hardware catalog (dense peaks)")
        for col in ("name", "kind", "bf16 matmul", "f32 matmul (as)", "HBM bandwidth",
                    "memory", "chips/node", "topology"):
            table.add_column(col, justify="left" if col in ("name", "kind", "topology")
                             else "right")
        for hw in chips:
            table.add_row(hw.name, hw.kind, si(hw.matmul_flops_per_s["bf16"]) + "FLOP/s",
                          f"{si(hw.matmul_peak_flops_per_s('f32'))}FLOP/s ({hw.f32_matmul_as})",
                          si(hw.memory_bandwidth_bytes_per_s) + "B/s",
                          si(hw.memory_capacity_bytes) + "B", str(hw.chips_per_node),
                          hw.topology)
        console = make_console()
        console.print(table)
        if not hwmod.host_cpu_path().is_file():
            console.print("host-cpu: not calibrated on this machine "
                          "(run `stablecost hardware calibrate`)")
        return 0
    if args.action == "show":
        from ..api.fidelity import resolve_hardware

        hw = resolve_hardware(args.name, "auto")   # host-cpu: the bundle's spec until calibrated
        d = hw.to_dict()
        machine = _machine_section(hw)
        if args.json:
            print_json({**d, **machine})
            return 0
        console = make_console()
        console.print(f"[bold]{hw.name}[/] ({hw.vendor} {hw.kind}) from {hw.path}")
        for key, value in d.items():
            if key in ("name", "vendor", "kind", "sources", "path", "measured"):
                continue
            if isinstance(value, dict):
                value = ", ".join(f"{k}={si(v)}" for k, v in value.items())
            elif isinstance(value, float):
                value = si(value)
            console.print(f"  {key:34s} {value}")
        for key, value in d["measured"].items():
            console.print(f"  measured.{key:25s} {value}")
        console.print("sources:")
        for source in hw.sources:
            console.print(f"  - {source.get('title', '')}: {source.get('url', '')} "
                          f"({source.get('covers', '')})")
        if machine:
            _print_machine(console, machine)
        return 0
    if args.action == "adapt":
        return _adapt(args)
    from ...hardware.calibrate import calibrate_host_cpu

    if args.rounds is not None and args.rounds < 1:
        raise_invalid(f"--rounds {args.rounds}: must be >= 1")
    path, spec = calibrate_host_cpu(quick=args.quick, progress=sys.stderr, rounds=args.rounds)
    compute = spec["compute"]
    print(f"host-cpu calibrated: f32 matmul {si(compute['matmul_flops_per_s']['f32'])}FLOP/s, "
          f"f32 vector {si(compute['vector_flops_per_s']['f32'])}FLOP/s, bandwidth "
          f"{si(spec['memory']['bandwidth_bytes_per_s'])}B/s, per-kernel overhead "
          f"{seconds(spec['kernel']['launch_overhead_s'])}, loop-nest convolution "
          f"{si(compute['loop_convolution_macs_per_s'])}MAC/s, depthwise convolution "
          f"{si(compute['grouped_convolution_units_per_s'])} group-pixels/s, a fresh page "
          f"{seconds(spec['memory']['fresh_page_s'])}; saved to {path}")
    return 0


def _machine_section(hw: Any) -> dict[str, Any]:
    """For a CPU: this machine's fingerprint, and how the bundled learned model's data
    fingerprint differs from it ({} for other chips)."""
    if hw.kind != "cpu":
        return {}
    from ...models.learned import load_models, step_composition, this_cpu

    models = load_models(hw.name)
    section: dict[str, Any] = {"this_machine": this_cpu()}
    if models is not None:
        corrector, _ = step_composition(models)
        section["learned_model"] = {
            "path": str(models.path),
            "trained_on": models.kernel_meta.get("fingerprint") or {},
            "differences": models.machine_differences(),
            "steps": ("the in-step corrector's calibration (this machine is not the "
                      "bundle's; no step GNN)" if corrector is not None else
                      "the step GNN blended with the step calibration" if models.step
                      is not None else "the step calibration"),
            "adaptation": _adaptation_in_use(models)}
    return section


def _adaptation_in_use(models: Any) -> dict[str, Any]:
    """The adaptation predict applies to the learned model on this machine: this
    machine's own, the bundle's for this machine or its default for other machines, or
    none (with why)."""
    from ...models.adaptation import bundled_adaptation, find_adaptation

    digest = models.adaptation_digest
    adaptation, why = find_adaptation(models.hardware, digest)
    source = "this machine's (stablecost hardware adapt)"
    if adaptation is None and models.machine_differences():
        adaptation, why_default = bundled_adaptation(models.path, digest)
        why = why or why_default
        if adaptation is not None:
            source = {"bundle-machine": "the bundle's factors for this machine (its data "
                                        "comes from it)"}.get(
                adaptation.origin, "the bundle's default for other machines")
    if adaptation is None:
        return {"source": "none", "why": why}
    return {"source": source, "origin": adaptation.origin, "path": adaptation.path,
            "step_factor": adaptation.step_factor,
            "default_kernel_factor": adaptation.default_kernel_factor,
            "machines": list(adaptation.machines)}


def _print_machine(console: Any, machine: dict[str, Any]) -> None:
    here = machine["this_machine"]
    console.print("this machine: " + ", ".join(f"{k}={v}" for k, v in here.items()))
    learned = machine.get("learned_model")
    if learned is None:
        return
    if not learned["differences"]:
        console.print("learned model: trained on data from this machine")
    else:
        console.print("[yellow]learned model:[/] its data's fingerprint does not show it is "
                      "this machine; predictions say so in their notes:")
        for line in learned["differences"]:
            console.print(f"  - {line}")
    console.print(f"learned steps: {learned['steps']}")
    adaptation = learned["adaptation"]
    if adaptation["source"] == "none":
        console.print("adaptation: none" + (f" ({adaptation['why']})" if adaptation["why"]
                                            else "; `stablecost hardware adapt` fits one"))
        return
    machines = adaptation["machines"]
    fitted_on = ("" if not machines or adaptation["origin"] != "bundle-default" else
                 f", fitted on the data of machines {', '.join(machines)}")
    console.print(f"adaptation: {adaptation['source']}{fitted_on}: step "
                  f"x{adaptation['step_factor']:.3f}, kernels "
                  f"x{adaptation['default_kernel_factor']:.3f} by default "
                  f"({adaptation['path']})")


def _adapt(args: Any) -> int:
    from ...train.adapt import adapt
    from .checks import output_dir, positive, tracking_store

    positive(minutes=args.minutes)
    output_dir(args.data, "--data")
    if not args.no_track:
        tracking_store(args.tracking_uri, "stablecost-adapt")
    result = adapt(minutes=args.minutes, data=args.data, tracking_uri=args.tracking_uri,
                   track=not args.no_track,
                   progress=lambda message: print(message, file=sys.stderr, flush=True))
    a = result.adaptation
    console = make_console()
    console.print(f"[bold]{a.hardware}[/] adapted on machine {a.fingerprint_id}: step "
                  f"x{a.step_factor:.3f}, kernels x{a.default_kernel_factor:.3f} by default; "
                  f"saved to {result.path}")
    for kind, factor in sorted(a.kernel_factors.items()):
        console.print(f"  {kind:20s} x{factor:.3f}")
    for kind, values in result.check.items():
        now = (f", {values['mape_current']:.1%} as predict priced them until now"
               if "mape_current" in values else "")
        console.print(f"held-out {kind} samples ({values['rows']:.0f}): MAPE "
                      f"{values['mape_before']:.1%} with the bare bundle{now}, "
                      f"{values['mape_after']:.1%} after")
    if result.run_id:
        console.print(f"MLflow run {result.run_id} in {result.tracking_uri}")
    return 0
