"""The layout's rules, checked on the code's own imports (every ``import`` statement, at any depth: an import
inside a function is still a dependency, only a later one).

The layers, lowest first: a module may import its own layer and the layers below it, never one above.  And no
two modules import each other, directly or round a longer circle.  docs/architecture.md draws the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
#: lowest first; a module belongs to the first prefix that names it (a package and everything under it)
LAYERS: list[tuple[str, ...]] = [
    ("service.games",),
    ("service.infra", "service.adapters"),
    ("service.integrations",),
    ("service.core",),
    ("service.competition",),
    ("service.api",),
    ("service.serving",),
    ("workers",),
    ("clients",),
]
PACKAGES = ("service", "workers", "clients")


def modules() -> dict[str, Path]:
    found = {}
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The project's modules ``name`` imports (a ``from package import module`` names the module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # ``import a.b.c`` depends on the module a.b.c
                target = target.rpartition(".")[0]
            if target and target != name and target.split(".")[0] in PACKAGES:
                yield target


def layer(name: str) -> int | None:
    for rank, prefixes in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return rank
    return None


GRAPH = {name: sorted(set(imported(name, path, modules()))) for name, path in modules().items()}


def test_every_module_has_a_layer() -> None:
    bare = [name for name in GRAPH if layer(name) is None and name not in PACKAGES]
    assert not bare, f"modules outside every layer (add them to a layer's folder): {bare}"


def test_no_import_goes_up_a_layer() -> None:
    upward = [f"{name} (layer {layer(name)}) imports {target} (layer {layer(target)})"
              for name, targets in GRAPH.items() for target in targets
              if layer(name) is not None and layer(target) is not None and layer(target) > layer(name)]
    assert not upward, "imports against the layers' direction:\n" + "\n".join(upward)


def test_a_game_imports_only_the_game_contract() -> None:
    """A game's package is pure rules: it imports ``service.games`` (the contract) and nothing else of ours."""
    wrong = [f"{name} imports {target}" for name, targets in GRAPH.items() if name.startswith("service.games")
             for target in targets if not target.startswith("service.games")]
    assert not wrong, "\n".join(wrong)


def cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    circles = cycles(GRAPH)
    assert not circles, "modules that import each other (round a circle):\n" + "\n".join(map(str, circles))


@pytest.mark.parametrize("folder", [p for p in sorted((ROOT / "service").iterdir())
                                    if p.is_dir() and (p / "__init__.py").exists()], ids=lambda p: p.name)
def test_every_folder_says_what_lives_there(folder: Path) -> None:
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text()))
    assert doc and len(doc) > 80, f"{folder.name}/__init__.py: say what lives here and what it may import"


def test_the_checker_sees_a_cycle_and_an_upward_import() -> None:
    """The checks are not vacuous: a planted circle and a planted upward import are found."""
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert layer("service.core.store") > layer("service.infra.config")
    assert any(t.startswith("service.core") for t in GRAPH["service.api.matches"])
