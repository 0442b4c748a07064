"""Semantic search for MkDocs sites, answered in the reader's browser with no server.

The Python API, for searching a built site and for indexing without MkDocs:

- `Searcher.open(site_or_bundle_dir)` answers queries (`search`, `search_vector`) with
  `Result`s; `open_source(url_or_dir)` first finds (or downloads and verifies) the
  bundle of a site folder or a deployed site's URL; `read_bundle` reads a bundle
  (`Bundle`) without searching it.
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

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mkdocs-semantic-search")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

# After __version__: the modules below read it while they load.
from .bundle import Bundle, BundleError, read_bundle
from .chunking import Chunk, PageFacts
from .embedding import (
    Embedder,
    ModelError,
    ModelSpec,
    OnnxEmbedder,
    default_model_spec,
)
from .indexer import BuildStats, Indexer, IndexOptions
from .remote import RemoteError, Source, open_source
from .search import Result, Searcher

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
