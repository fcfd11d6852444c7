"""What every command prints with: a rich console that stops quietly on a closed pipe,
JSON output, notes, and the number formats (SI prefixes, seconds)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def make_console():
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

def raise_invalid(message: str) -> None:
    from ...errors import InvalidArgumentError

    raise InvalidArgumentError(message)

def print_notes(console, d: dict[str, Any]) -> None:
    for note in d.get("notes", []):
        console.print(f"[yellow]note:[/] {note}")

def json_text(data: Any) -> str:
    """What `--json` prints: indented JSON and a newline."""
    return json.dumps(data, indent=1) + "\n"

def print_json(data: Any) -> None:
    sys.stdout.write(json_text(data))

def where(location: str) -> str:
    """`jit(step)/jvp()/dot_general @ model.py:45:12` -> `dot_general @ model.py:45`."""
    name, _, place = location.partition(" @ ")
    name = name.rsplit("/", 1)[-1]
    place = ":".join(place.split(":")[:2])
    return f"{name} @ {place}" if place else name

def dedupe(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)

def si(value: float) -> str:
    value = float(value)
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{prefix}"
    return f"{value:.3g}"

def seconds(value: float) -> str:
    if abs(value) < 1e-12:  # float round-off of a difference (exposed = step - compute)
        return "0 ns"
    if value >= 1:
        return f"{value:.3g} s"
    if value >= 1e-3:
        return f"{value * 1e3:.3g} ms"
    if value >= 1e-6:
        return f"{value * 1e6:.3g} µs"
    return f"{value * 1e9:.3g} ns"
