"""The child process that runs XLA's SPMD partitioner for `featurize.partition`.

Run as a script (`python -P spmd_child.py`), it imports jaxlib alone (not jax, not
stablecost: a third of a second instead of two) and waits for one request, a JSON line
on stdin:

    {"bytecode": PATH, "devices": N, "shardy": BOOL, "dump": DIR,
     "overrides": [[K, V], ...], "stderr": FILE}

It then compiles the StableHLO bytecode at PATH for N partitions on a private XLA:CPU
client of N devices, with XLA dumping the module after the `spmd-partitioning` pass into
DIR. The parent reads that dump as soon as it is complete and kills this process: the
rest of the compilation (XLA:CPU's own passes and LLVM code generation, ~97 % of the
time on a 1,000-op training step) produces nothing the cost model uses. An error XLA
reports is written to FILE as one line starting with `error: ` and the exit code is 3.
"""

import json
import sys
from typing import Any


def main() -> int:
    line = sys.stdin.readline()
    if not line:               # the parent went away before asking
        return 0
    request = json.loads(line)
    import numpy as np
    from jaxlib import xla_client

    n = int(request["devices"])
    with open(request["bytecode"], "rb") as f:
        bytecode = f.read()
    client: Any = xla_client.make_cpu_client(num_devices=n)   # jaxlib's stubs lag it
    devices = client.devices()[:n]
    options = xla_client.CompileOptions()
    options.num_replicas = 1
    options.num_partitions = n
    options.device_assignment = xla_client.DeviceAssignment.create(
        np.array([[d.id for d in devices]]))
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = bool(request["shardy"])
    options.env_option_overrides = [("xla_dump_to", request["dump"]),
                                    *[tuple(pair) for pair in request["overrides"]]]
    try:
        client.compile_and_load(bytecode, xla_client.DeviceList(tuple(devices)), options)
    except Exception as exc:   # JaxRuntimeError: XLA rejected the program
        text = str(exc).strip()
        with open(request["stderr"], "a", encoding="utf-8") as f:
            f.write("error: " + (text.splitlines()[0] if text else type(exc).__name__) + "\n")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
