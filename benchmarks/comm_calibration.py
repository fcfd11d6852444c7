"""Calibrate the collective models against measured NCCL collectives and print the
report: fitted link values per chip and kind, and the error on held-out message sizes
before (datasheet values) and after calibration; then the NCCL protocol model (LL /
LL128 / Simple ring and NVLS, per chip and kind): its fitted regimes, median and p90
error on held-out message sizes and held-out GPU counts against the alpha-beta fit, and
8-GPU all_reduce at 16-256 MiB predicted against measured. `--floors` adds, per chip, a
table of what bounds the error with GPU counts held out: the model's error next to that
of one time per (kind, GPU count, size) and per (kind, GPU count, size, NCCL version),
chosen with the held-out rows themselves (`train/link_calibration/floors.py`).

    stablecost import aiconfigurator ../shared/data/aiconfigurator --out stablecost-data
    python benchmarks/comm_calibration.py stablecost-data [--hardware H100-SXM]
        [--json report.json] [--write-catalog] [--floors]

`--write-catalog` writes the fitted values into the chips' TOML files
(`[interconnect.calibrated]`, the per-kind tables with the protocol fits to every row);
the reports are what those values were judged by.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_root", type=Path,
                        help="a dataset root written by `stablecost import aiconfigurator`")
    parser.add_argument("--hardware", action="append",
                        help="only this chip (repeatable); default: every chip found")
    parser.add_argument("--held-out-every", type=int, default=3,
                        help="hold out sizes whose round(log2 bytes) %% N == 0 (default 3)")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    parser.add_argument("--write-catalog", action="store_true",
                        help="write [interconnect.calibrated] into the chip TOML files")
    parser.add_argument("--floors", action="store_true",
                        help="also print the error floors set by the spread between NCCL "
                             "versions and dtypes, with GPU counts held out")
    args = parser.parse_args(argv)

    from stablecost.errors import StablecostError
    from stablecost.train.link_calibration.catalog import write_catalog
    from stablecost.train.link_calibration.floors import held_out_count_floors
    from stablecost.train.link_calibration.measurements import load_collective_measurements
    from stablecost.train.link_calibration.report import calibrate_collectives
    from stablecost.train.link_calibration.validation import validate_protocols

    start = time.perf_counter()
    try:
        report = calibrate_collectives(args.data_root, args.hardware,
                                       held_out_every=args.held_out_every)
        print(report.format())
        print(f"\n({time.perf_counter() - start:.1f} s)\n")
        start = time.perf_counter()
        protocols = validate_protocols(args.data_root, args.hardware,
                                       held_out_every=args.held_out_every)
    except StablecostError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(protocols.format())
    print(f"\n({time.perf_counter() - start:.1f} s)")
    out = {"alpha_beta": report.to_dict(), "protocols": protocols.to_dict()}
    if args.floors:
        data = load_collective_measurements(args.data_root, args.hardware)
        floors = held_out_count_floors(data, protocols)
        print("\n" + floors.format())
        out["floors"] = floors.to_dict()
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
        print(f"report written to {args.json}")
    if args.write_catalog:
        for path in write_catalog(report, protocols=protocols):
            print(f"wrote [interconnect.calibrated] to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
