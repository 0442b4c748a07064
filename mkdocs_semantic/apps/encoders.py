"""Which query encoder a server answers with, and one model a process.

The browser embeds queries with the static table (no model download). A server has
the CPU and the model installed with the package, so `query`, `eval`, `serve` and
`mcp` answer with the model (`transformer`) wherever it is at hand: the site ships its
model, or was built with the installed default one. `static` gives the browser's
ranking exactly. Every site of a process that uses the same model shares one loaded
copy.
"""

from __future__ import annotations

import logging
import threading

from ..bundle.format import BundleError
from ..bundle.reader import Bundle
from ..constants import QUERY_ENCODERS
from ..model.onnx import OnnxEmbedder
from ..model.spec import ModelSpec

log = logging.getLogger("mkdocs_semantic")

_loaded: dict[tuple[ModelSpec, int], OnnxEmbedder] = {}
_lock = threading.Lock()


def server_encoder(bundle: Bundle, asked: str | None) -> str:
    """`asked` (`static` or `transformer`), checked against what `bundle` holds; else
    `transformer` where the model is at hand, and the bundle's own encoder where it is
    not (said in the log). A BundleError in one line when `asked` cannot be had."""
    return server_model(bundle, asked)[0]


def server_model(bundle: Bundle, asked: str | None) -> tuple[str, ModelSpec | None]:
    """`server_encoder`'s choice, and the model it answers with (None: the table): the
    model is located once (a site that ships it has its 23 MB checked)."""
    if asked is not None and asked not in QUERY_ENCODERS:
        raise ValueError(f"unknown query encoder {asked!r}: use one of "
                         f"{', '.join(QUERY_ENCODERS)}")
    if asked == "static":
        if bundle.table is None:
            raise BundleError(f"{bundle.root} has no static query table (it was built with "
                              "query_encoder: transformer): use --query-encoder transformer")
        return asked, None
    try:
        spec = bundle.model_spec()
    except BundleError as exc:
        if asked == "transformer":
            raise
        log.info("answering %s with its static query table: %s", bundle.root, exc)
        return bundle.manifest.query_encoder, None
    return "transformer", spec


def shared_embedder(spec: ModelSpec, threads: int = 0) -> OnnxEmbedder:
    """Model `spec` loaded once a process for every bundle that has the same one (and the
    same onnxruntime `threads`)."""
    with _lock:
        embedder = _loaded.get((spec, threads))
        if embedder is None:
            embedder = _loaded[(spec, threads)] = OnnxEmbedder(spec, threads=threads)
    return embedder
