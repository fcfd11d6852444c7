"""The machines: the catalog (one TOML data file per chip, with its sources, in `chips/`,
plus `host-cpu`, measured on this machine by `stablecost hardware calibrate` and kept in
the user's config dir), this machine's fingerprint (`fingerprint.py`), its calibration
probes (`calibrate.py`) and the timing rule every measurement uses (`timing.py`).
"""

from .catalog import (
                      CHIPS_DIR,
                      catalog_names,
                      config_dir,
                      get_hardware,
                      host_cpu_path,
                      list_hardware,
                      load_spec_file,
                      reload_catalog,
                      save_host_cpu,
)
from .spec import HOST_CPU, CalibratedLinks, CalibratedProtocol, Hardware, parse_spec

__all__ = ["CHIPS_DIR", "HOST_CPU", "CalibratedLinks", "CalibratedProtocol", "Hardware",
           "catalog_names", "config_dir", "get_hardware", "host_cpu_path", "list_hardware",
           "load_spec_file", "parse_spec", "reload_catalog", "save_host_cpu"]
