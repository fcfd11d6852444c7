"""The layers import only downward (docs/ARCHITECTURE.md): the offline branch
(datasets -> train) and the online branch (featurize -> models -> serve) share the root
modules and hardware/, models/ never reads datasets/, and the Python API and the HTTP
service never import the training side. The command line is the one place both
branches meet, and it imports the offline side only inside the commands that need it."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# layer -> the layers it may import (itself always allowed); "root" is the root modules
ALLOWED = {
    "root": set(),
    "hardware": {"root"},
    "featurize": {"root", "hardware"},
    "models": {"root", "hardware", "featurize"},
    "datasets": {"root", "hardware", "featurize"},
    "train": {"root", "hardware", "featurize", "models", "datasets"},
    "serve.api": {"root", "hardware", "featurize", "models"},
    "serve.http": {"root", "hardware", "featurize", "models", "serve.api"},
    "serve.cli": {"root", "hardware", "featurize", "models", "serve.api", "serve.http"},
}
# imported lazily (inside a function) only: the CLI's offline commands
LAZY_ONLY = {"serve.cli": {"datasets", "train"}}
# heavy libraries the online branch must not load at import time
HEAVY = ("torch", "torch_geometric", "xgboost", "mlflow", "fastapi", "sklearn")
SKIP = {"tests", "benchmarks", "examples", ".venv", "build", "mlruns"}


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in SKIP or rel.parts[0].startswith("."):
            continue
        yield rel, ast.parse(path.read_text(), filename=str(rel))


def _dotted(rel: Path) -> str:
    parts = ["stablecost", *rel.with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(rel: Path) -> list[str]:
    parts = ["stablecost", *rel.with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts[:-1]


def layer_of(dotted: str) -> str | None:
    """'stablecost.serve.api.cache' -> 'serve.api'; None for third-party modules."""
    parts = dotted.split(".")
    if parts[0] != "stablecost":
        return None
    if len(parts) == 1 or f"{parts[1]}" not in {"hardware", "featurize", "models", "datasets",
                                                "train", "serve"}:
        return "root"
    if parts[1] == "serve":
        return f"serve.{parts[2]}" if len(parts) > 2 else "serve"
    return parts[1]


def _imports(rel: Path, tree: ast.Module):
    """(imported module, line, whether at module scope) of every import in a file."""
    package = _package(rel)
    top_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] if node.module else [f"{module}.{a.name}" for a in node.names]
            else:
                names = [node.module or ""]
        else:
            continue
        for name in names:
            yield name, node.lineno, id(node) in top_level


def test_every_import_points_down_the_flow():
    wrong = []
    for rel, tree in _modules():
        own = layer_of(_dotted(rel))
        if rel.name in ("__init__.py", "__main__.py") and len(rel.parts) == 1:
            continue   # the package's own re-exports and its `python -m` entry point
        for name, line, at_top in _imports(rel, tree):
            target = layer_of(name)
            if target is None or target == own or target == "serve":
                continue
            allowed = ALLOWED[own] | (LAZY_ONLY.get(own, set()) if not at_top else set())
            if target not in allowed:
                wrong.append(f"{rel}:{line}: {own} imports {name} ({target})")
    assert not wrong, "imports against the flow:\n" + "\n".join(wrong)


def test_the_online_branch_loads_no_heavy_library_at_import_time():
    wrong = []
    for rel, tree in _modules():
        own = layer_of(_dotted(rel))
        if own not in ("featurize", "models", "serve.api", "serve.cli", "hardware", "root"):
            continue
        for name, line, at_top in _imports(rel, tree):
            if at_top and name.split(".")[0] in HEAVY:
                wrong.append(f"{rel}:{line}: imports {name} at module scope")
    assert not wrong, "\n".join(wrong)


def test_the_layer_table_knows_every_package():
    packages = {layer_of(_dotted(rel))
                for rel, _ in _modules()}
    assert packages - {"serve"} <= set(ALLOWED)
