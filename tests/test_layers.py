"""The import structure: no circles, imports point down the layers, each module where its layer is.

Layers, lowest first: the core (event model, settings, findings, scoring, canonical forms), then
`readers/` and `detectors/` (side by side, neither imports the other), then the engine, then the
frontends (everything else), then the public API (`loopmetric/__init__`, which names the deepeval
metric lazily and is imported by no module of the package). A module imports only
from its own layer's package or from lower layers; lazy imports inside functions count too.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "loopmetric"

_CORE = {"_canonical", "_deep_json", "_errors", "_fingerprint", "_gc", "_memo", "_version", "_settings", "_findings", "_patterns",
         "_model", "_scoring", "_report", "_numbers", "_text_actions"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The loopmetric modules `path` imports (absolute names), anywhere in the file."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("loopmetric"):
                found.add(target)
                for alias in node.names:  # `from . import _score` imports a module
                    if (PACKAGE.parent / Path(*f"{target}.{alias.name}".split("."))).with_suffix(".py").exists():
                        found.add(f"{target}.{alias.name}")
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("loopmetric"))
    found.discard(module)
    return found


@functools.cache  # the package's files do not change during a run: parsed once, not once per module's test
def _graph() -> dict[str, frozenset[str]]:
    return {_module_name(path): frozenset(_imports(path)) for path in sorted(PACKAGE.rglob("*.py"))}


def _layer(module: str) -> tuple[int, str]:
    parts = module.split(".")
    if len(parts) == 1:
        return 5, "api"
    top = parts[1]
    if top in _CORE:
        return 0, "core"
    if top in ("readers", "detectors"):
        return 1, top
    if top == "_engine":
        return 2, "engine"
    return 4, top  # a frontend


def test_no_import_circles():
    graph = _graph()
    # Tarjan's strongly connected components, iteratively.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    circles: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    circles.append(sorted(members))
    # A package's __init__ importing its own submodules is not a circle of layers, but two
    # modules importing each other are.
    real = [c for c in circles if not all(m.startswith(c[0]) for m in c)]
    assert real == []


@pytest.mark.parametrize("module", sorted(_graph()))
def test_imports_point_down_the_layers(module):
    rank, name = _layer(module)
    for target in _graph()[module]:
        target_rank, target_name = _layer(target)
        if target_name == name:
            continue  # within its own package or layer
        assert target_rank < rank or (rank == 4 and target_rank == 4), f"{module} imports {target} (up a layer)"
        assert target_rank != 5, f"{module} imports the public API; import the module that defines the name"
        assert not (rank == 1 and target_rank == 1), f"{module} imports {target}: readers and detectors are apart"


def test_the_package_root_holds_only_the_api_the_engine_and_the_core():
    root = {path.stem for path in PACKAGE.glob("*.py")}
    frontends = {"metric", "plot"}  # single-module frontends; larger ones have a folder
    assert root - _CORE - frontends - {"__init__", "__main__", "_engine"} == set()
