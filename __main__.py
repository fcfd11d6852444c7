"""Run the command line from a checkout, without installing it:

    python3 path/to/checkout collect kernels --out data/   # the checkout is the package
    python3 -m stablecost collect kernels                   # once installed

This is how collection runs on a machine that has jax, numpy, pyarrow and rich but not
the full install (no MLflow, XGBoost or torch-geometric): the measuring commands never
import those.
"""

import importlib.util
import sys
from pathlib import Path

if not __package__:   # `python3 CHECKOUT`: make the directory importable as `stablecost`
    root = Path(__file__).resolve().parent
    if "stablecost" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "stablecost", root / "__init__.py", submodule_search_locations=[str(root)])
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules["stablecost"] = package
        spec.loader.exec_module(package)
    if sys.path and Path(sys.path[0]).resolve() == root:
        sys.path.pop(0)   # the checkout's folders are not top-level modules

from stablecost.serve.cli import main  # noqa: E402

sys.exit(main())
