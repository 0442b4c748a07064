"""Opening a loaded site for queries: its bundle copy, with the HNSW graph finding the
nearest chunks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..bundle.format import BundleError
from ..bundle.reader import Bundle, read_bundle
from .folder import IndexFolder, StoredSite
from .hnsw import HnswSettings, open_hnsw


def graph_bundle(folder: Path, graph: Path, *, site: str,
                 expansion_search: int | None = None) -> Bundle:
    """The bundle copy at `folder` with the HNSW graph at `graph` finding its nearest
    chunks. Payloads are read when a query first needs them, like a downloaded bundle's;
    a missing or damaged one means a damaged folder."""

    def missing(name: str, size: int) -> None:
        raise BundleError(f"{folder / name} is missing or damaged: load site {site!r} "
                          "again")

    if not folder.is_dir():
        raise BundleError(f"{folder} is missing: load site {site!r} again")
    bundle = read_bundle(folder, fetch=missing)
    vectors = open_hnsw(graph, bundle.vectors,
                        expansion_search=expansion_search or HnswSettings().expansion_search)
    return replace(bundle, vectors=vectors)


def loaded_sites(root: Path) -> list[StoredSite]:
    """The sites of the data folder at `root`, by name; an error when it holds none."""
    folder = IndexFolder(root)
    sites = [site for _, site in sorted(folder.sites().items())] if folder.exists() else []
    if not sites:
        raise BundleError(f"{root} holds no loaded sites: run `mkdocs-semantic load "
                          f"NAME=SOURCE --index {root}` first")
    return sites
