"""`stablecost evaluate --programs PATH...`: the learned and roofline predictions of the
user's own programs scored against the measured fidelity on this machine.

Each `.mlir` / `.mlirbc` file (directories: every such file in them, sorted) is
predicted with `fidelity="all+measured"` on the local backend's chip; a row gives the
measured step (median), each fidelity's step time and its APE = |predicted - measured|
/ measured, and the summary line the MAPE over the programs measured. A program that
does not load, or that the measured fidelity cannot run here, is listed with why, and
the others are still scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import StablecostError
from .console import make_console, raise_invalid, seconds

SUFFIXES = (".mlir", ".mlirbc")
COMPARED = ("learned", "roofline")


@dataclass
class ProgramScore:
    program: str
    measured_s: float | None = None
    predicted_s: dict[str, float] = field(default_factory=dict)
    why: str = ""                     # why it was not measured

    def ape(self, fidelity: str) -> float | None:
        predicted = self.predicted_s.get(fidelity)
        if predicted is None or not self.measured_s:
            return None
        return abs(predicted - self.measured_s) / self.measured_s


def program_files(paths: list[str]) -> list[Path]:
    """The files named, and the .mlir/.mlirbc files in the directories named."""
    out: list[Path] = []
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            out.extend(sorted(p for p in path.iterdir()
                              if p.is_file() and p.suffix in SUFFIXES))
        elif path.is_file():
            out.append(path)
        else:
            raise_invalid(f"--programs {arg}: no such file or directory")
    if not out:
        raise_invalid(f"--programs {' '.join(paths)}: no {' or '.join(SUFFIXES)} files")
    return out


def score(paths: list[Path], hardware: Any) -> list[ProgramScore]:
    """Every program predicted at all+measured on `hardware` (this machine's chip)."""
    from ..api import predict

    rows = []
    for path in paths:
        row = ProgramScore(str(path))
        try:
            p = predict(path, hardware, fidelity="all+measured")
        except StablecostError as exc:
            row.why = str(exc)
            rows.append(row)
            continue
        row.predicted_s = {name: t.step_time_s for name, t in p.by_fidelity.items()
                           if name != "measured"}
        if "measured" in p.by_fidelity:
            row.measured_s = p.by_fidelity["measured"].step_time_s
        else:
            row.why = next((n.split(": left out: ", 1)[1] for n in p.notes
                            if n.startswith("measured: left out: ")), "not measured")
        rows.append(row)
    return rows


def run(programs: list[str], hardware: str | None) -> int:
    from rich.table import Table

    from ...models.measured import local_hardware
    from ..api.fidelity import resolve_hardware

    paths = program_files(programs)
    local = local_hardware()
    if hardware is not None and hardware != local:
        raise_invalid(f"--hardware {hardware}: evaluate --programs measures on this "
                      f"machine, whose backend is {local}")
    hw = resolve_hardware(local, "all+measured")
    rows = score(paths, hw)
    console = make_console()
    table = Table(title=f"your programs on {hw.name}: predictions against the measured step")
    for col in ("program", "measured", *(c for f in COMPARED for c in (f, "APE"))):
        table.add_column(col, justify="left" if col == "program" else "right")
    for row in rows:
        cells = [row.program, seconds(row.measured_s) if row.measured_s else "-"]
        for fidelity in COMPARED:
            predicted, ape = row.predicted_s.get(fidelity), row.ape(fidelity)
            cells += [seconds(predicted) if predicted is not None else "-",
                      f"{ape:.1%}" if ape is not None else "-"]
        table.add_row(*cells)
    console.print(table)
    for fidelity in COMPARED:
        apes = [a for a in (r.ape(fidelity) for r in rows) if a is not None]
        if apes:
            console.print(f"{fidelity}: MAPE {sum(apes) / len(apes):.1%} over {len(apes)} "
                          "measured program(s)")
    for row in rows:
        if row.why:
            why = row.why if row.why.startswith(row.program) else f"{row.program}: {row.why}"
            console.print(f"[yellow]not measured:[/] {why}")
    return 0
