"""Semantic search for MkDocs sites, answered in the reader's browser with no server.

The Python API, for searching a built site and for indexing without MkDocs:

- `Searcher.open(site_or_bundle_dir)` answers queries (`search`, `search_vector`) with
  `Result`s; `open_source(url_or_dir)` first finds (or downloads and verifies) the
  bundle of a site folder or a deployed site's URL, and `Searcher.open(source)` then
  fetches the payloads a query needs; `read_bundle` reads a bundle (`Bundle`) without
  searching it.
- `Indexer(spec, IndexOptions(...), cache_path=..., embedder=...)` chunks HTML
  (`Indexer.chunk(html, PageFacts(...))` -> `Chunk`s) and writes a bundle
  (`Indexer.write`, returning `BuildStats`); `default_model_spec()` is the packaged
  model's `ModelSpec`, `OnnxEmbedder` its embedder, and `Embedder` the protocol any
  other embedder follows.
- Errors: `BundleError` (a bundle cannot be read or written; `RemoteError`, its
  subclass, for a URL) and `ModelError` (a model or tokenizer cannot be used; its
  `option` names the plugin option to fix). Both are `ValueError`s whose message says
  what to do.

Everything else is internal and may change between versions.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .constants import __version__

# Where each public name lives; imported on first use, so that a reader (say
# `mkdocs_semantic.search`) does not load the indexer and its HTML parser.
_PUBLIC = {
    "Bundle": "bundle.reader",
    "BundleError": "bundle.format",
    "read_bundle": "bundle.reader",
    "Chunk": "chunk",
    "PageFacts": "chunk",
    "Embedder": "model.spec",
    "ModelError": "model.spec",
    "ModelSpec": "model.spec",
    "default_model_spec": "model.spec",
    "OnnxEmbedder": "model.onnx",
    "BuildStats": "indexing.indexer",
    "Indexer": "indexing.indexer",
    "IndexOptions": "indexing.indexer",
    "RemoteError": "apps.sources",
    "Source": "apps.sources",
    "open_source": "apps.sources",
    "Result": "search.searcher",
    "Searcher": "search.searcher",
}

if TYPE_CHECKING:
    from .apps.sources import RemoteError, Source, open_source
    from .bundle.format import BundleError
    from .bundle.reader import Bundle, read_bundle
    from .chunk import Chunk, PageFacts
    from .indexing.indexer import BuildStats, Indexer, IndexOptions
    from .model.onnx import OnnxEmbedder
    from .model.spec import Embedder, ModelError, ModelSpec, default_model_spec
    from .search.searcher import Result, Searcher


def __getattr__(name: str) -> object:
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "BuildStats",
    "Bundle",
    "BundleError",
    "Chunk",
    "Embedder",
    "IndexOptions",
    "Indexer",
    "ModelError",
    "ModelSpec",
    "OnnxEmbedder",
    "PageFacts",
    "RemoteError",
    "Result",
    "Searcher",
    "Source",
    "__version__",
    "default_model_spec",
    "open_source",
    "read_bundle",
]
