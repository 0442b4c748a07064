"""The documented Python API: what `mkdocs_semantic` exports, and its type information."""

from __future__ import annotations

import importlib
import inspect
import zipfile
from importlib.resources import files

import mkdocs_semantic

from .client.test_browser_packaging import copy_project, pip_wheel

# What a user of the Python API reaches for, by kind (the package docstring lists them).
SEARCHING = {"Searcher", "Result", "open_source", "Source", "read_bundle", "Bundle"}
INDEXING = {"Indexer", "IndexOptions", "BuildStats", "PageFacts", "Chunk", "Embedder",
            "OnnxEmbedder", "ModelSpec", "default_model_spec"}
ERRORS = {"BundleError", "RemoteError", "ModelError"}


def test_the_package_exports_the_public_api():
    exported = set(mkdocs_semantic.__all__)
    assert SEARCHING | INDEXING | ERRORS | {"__version__"} == exported
    namespace: dict = {}
    exec("from mkdocs_semantic import *", namespace)  # every listed name resolves
    assert exported <= set(namespace)
    for name in ERRORS:
        assert issubclass(namespace[name], ValueError), name
    for name in exported - {"__version__"}:  # each is the object its module defines
        obj = namespace[name]
        assert getattr(importlib.import_module(obj.__module__), name) is obj, name
        assert inspect.getdoc(obj), f"{name} has no docstring"


def test_the_package_and_its_wheel_carry_py_typed(tmp_path):
    assert files("mkdocs_semantic").joinpath("py.typed").is_file()
    project = copy_project(tmp_path / "project", with_client=True)
    built = pip_wheel(project, tmp_path / "dist")
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert "mkdocs_semantic/py.typed" in zipfile.ZipFile(wheel).namelist()
