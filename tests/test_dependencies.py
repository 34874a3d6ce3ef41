"""pyproject.toml declares what service/, workers/ and clients/ import, and nothing they do not."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = {"service", "workers", "clients", "tests"}
#: imported only by a script that runs a client generated at test time (openapi-python-client)
GENERATED = {"referee_client"}


def imported_modules() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for package in ("service", "workers", "clients"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in OURS | GENERATED:
                        found.setdefault(top, set()).add(path.relative_to(ROOT).as_posix())
    return found


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {normalize(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in project["dependencies"]}


def test_every_third_party_import_is_a_declared_dependency_and_every_dependency_is_imported():
    dists = importlib.metadata.packages_distributions()
    needed: dict[str, set[str]] = {}
    for module, files in imported_modules().items():
        assert module in dists, f"{module} (imported by {sorted(files)}) is not installed"
        for dist in dists[module]:
            needed.setdefault(normalize(dist), set()).update(files)
    deps = declared()
    undeclared = {d: sorted(f) for d, f in needed.items() if d not in deps}
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"
    unused = deps - set(needed)
    assert not unused, f"declared but imported nowhere in service/, workers/, clients/: {sorted(unused)}"
