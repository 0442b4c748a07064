"""The floor plan (docs/architecture.md) held against the code: layers, no import
circles, module sizes, and what a reader does not load."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from .conftest import REPO

PACKAGE = REPO / "mkdocs_semantic"

# Top-level modules and sub-packages, by layer; a layer imports only those to its left.
RECORDS = {"chunk", "model", "files", "logs", "constants"}
LAYERS = {
    "bundle": RECORDS,
    "indexing": RECORDS | {"bundle"},
    "search": RECORDS | {"bundle"},
    "pages": RECORDS | {"bundle"},
    "plugin": RECORDS | {"bundle", "indexing", "pages"},
    "portal": RECORDS | {"bundle"},
    "apps": RECORDS | {"bundle", "indexing", "search", "portal", "pages"},
    **{name: RECORDS for name in RECORDS},
}
ENTRY_POINTS = {"mkdocs_semantic", "mkdocs_semantic.__main__"}
"""The package's front doors: they may name anything (the top package lazily)."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str) -> set[str]:
    """Every module of the package that `name` imports anywhere in its code: at the top,
    inside functions and under TYPE_CHECKING alike."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            named = [f"{base}.{alias.name}" for alias in node.names]
            # `from . import theme` names a sibling, not the package that holds both
            targets = named if node.module is None and all(n in MODULES for n in named) \
                else [base, *named]
        else:
            continue
        found.update(t for t in targets if t in MODULES and t != name)
    return found


GRAPH = {name: imported(name) for name in MODULES}


def room(name: str) -> str:
    """The top-level module or sub-package a module belongs to."""
    return name.split(".")[1] if "." in name else name


def test_every_import_goes_down_the_layers():
    wrong = []
    for name, targets in GRAPH.items():
        if name in ENTRY_POINTS:
            continue
        allowed = LAYERS[room(name)] | {room(name)}
        wrong += [f"{name} -> {t}" for t in sorted(targets)
                  if t != "mkdocs_semantic" and room(t) not in allowed]
    assert not wrong, "imports against the layers (docs/architecture.md):\n" + "\n".join(wrong)


def test_no_module_reaches_itself_through_its_imports():
    def reaches(start: str) -> bool:
        seen, todo = set(), list(GRAPH[start])
        while todo:
            name = todo.pop()
            if name == start:
                return True
            if name not in seen and name not in ENTRY_POINTS:
                seen.add(name)
                todo += GRAPH[name]
        return False

    assert [name for name in GRAPH if name not in ENTRY_POINTS and reaches(name)] == []


def test_the_package_top_holds_few_modules_and_none_is_long():
    loose = [p.name for p in PACKAGE.glob("*.py")]
    assert len(loose) <= 12, loose
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 700}
    assert long == {}


def test_a_reader_loads_neither_the_indexer_nor_bs4():
    code = ("import sys, mkdocs_semantic.search, mkdocs_semantic.bundle; "
            "print(sorted(m for m in sys.modules if m == 'bs4' or m == 'onnxruntime' "
            "or m.startswith(('mkdocs_semantic.indexing', 'mkdocs_semantic.apps', "
            "'mkdocs_semantic.plugin'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
