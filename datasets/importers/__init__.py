"""Importers of public GPU measurements into the measurement store.

    summary = import_aiconfigurator("../shared/data/aiconfigurator", "stablecost-data")
    summary = import_neusight("../shared/data/neusight", "stablecost-data")
    print(summary.format())

Every measured row becomes one store row holding the StableHLO program that does the
same work (built from `templates`, never by lowering through JAX), the source row's
parameters as JSON, and its latency in seconds. One dataset per GPU: the hardware is
the catalog name when the device is in the catalog (`get_hardware(device)` resolves
it exactly), else a slug of the device name; the fingerprint is
``{"backend": "gpu", "device_name": <device>, "source": <project>}``, so imported data
never mixes with data collected on a machine. Re-importing adds nothing: sample ids are
content hashes of (project, the file's path from its system folder's parent, the params
JSON = the source row's parameters and the program's template arguments).

Nothing is dropped silently: every source row is written, found already present,
merged as a repeat of an identical parameter row of the same file, or skipped with a
counted reason (`ImportSummary`). Rows whose implied throughput exceeds
`OUTLIER_FRACTION` (95%) of the chip's peak are kept and flagged (`outlier`,
`outlier_reason`).

Sources: `aiconfigurator` (GEMM, attention and collective tables) and `neusight` (fp32
PyTorch ops), each with its layout and its mapping of rows to programs. Shared
machinery: `rows` maps one file's rows (merging repeats, content ids), `checks` flags
outliers, `sink` writes one dataset, `parquet` reads source tables, `pool` runs one
task per dataset, `summary` reports what an import did.

Performance: programs come from cached f-string templates; one dataset per task, and
``jobs`` > 1 runs datasets in parallel worker processes.

Group ids (grouped train/test splits hold out whole shape regions)
-------------------------------------------------------------------
``lb(x)`` = floor(log2 x). GEMM: ``dot_general/gemm/<recipe>/m<lb m>/n<lb n>/k<lb k>``.
Attention: ``attention/<phase>/<attn>-<kv>/d<head_dim>/s<lb seq>`` with seq = isl
(prefill) or kv length (decode). Collectives: ``<op>/<dtype>/g<num_gpus>/b<lb(bytes)//2>``
(4x size ranges). NeuSight: bmm ``b<lb>/m/n/k``, linear ``m/n/k``, conv
``k<kernel>/s<stride>/ci<lb>/co<lb>/hw<lb>``, softmax/ln ``r<lb B>/c<lb H>``, other
vector ops ``n<lb B*H>``.
"""

from .aiconfigurator import import_aiconfigurator
from .checks import OUTLIER_FRACTION
from .neusight import import_neusight
from .pool import ProgressFn
from .rows import COLLECTOR_VERSION
from .summary import DatasetSummary, ImportSummary

__all__ = ["COLLECTOR_VERSION", "DatasetSummary", "ImportSummary", "OUTLIER_FRACTION",
           "ProgressFn", "import_aiconfigurator", "import_neusight"]
