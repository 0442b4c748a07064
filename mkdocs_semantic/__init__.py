"""Semantic search for MkDocs sites, answered in the reader's browser with no server."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mkdocs-semantic-search")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"
