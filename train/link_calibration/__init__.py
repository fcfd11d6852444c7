"""Calibration of the collective models' link values against measured NCCL collectives:
read the measurements from a dataset store (`measurements`), fit the effective
bandwidth, latency, overhead and in-switch efficiency of each chip's node (`fit`),
measure the error on held-out message sizes and format the report (`report`), and write
the fitted values into the chips' `[interconnect.calibrated]` catalog blocks (`catalog`).

    report = calibrate_collectives("stablecost-data")       # a root `stablecost import
    print(report.format())                                  #   aiconfigurator` wrote
    write_catalog(report)                                   # -> [interconnect.calibrated]
"""

from .catalog import calibrated_topology, write_catalog
from .report import CalibrationReport, calibrate_collectives

__all__ = ["CalibrationReport", "calibrate_collectives", "calibrated_topology",
           "write_catalog"]
