"""The MkDocs plugin: hooks only, the work is done by the modules they call."""

from __future__ import annotations

import fnmatch
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click
import numpy as np
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from .bundle import write_bundle
from .cache import EmbeddingCache, cache_key
from .chunking import Chunk, PageFacts, chunk_page
from .config import SemanticConfig
from .embedding import (
    ModelError,
    ModelSpec,
    OnnxEmbedder,
    TokenCounter,
    default_model_spec,
    sha256_file,
    verify_default_model,
)
from .quantize import quantize

log = logging.getLogger("mkdocs.plugins.semantic")
PROGRESS_MIN_CHUNKS = 64


@dataclass
class BuildStats:
    """What one build did; logged as one line and kept on the plugin for tools."""

    pages: int
    chunks: int
    embedded: int
    reused: int
    bundle_bytes: int
    model_bytes: int
    seconds: float

    def summary(self) -> str:
        return (
            f"semantic: {self.pages} pages, {self.chunks} chunks, {self.embedded} embedded, "
            f"{self.reused} reused; bundle {human_bytes(self.bundle_bytes)} + model "
            f"{human_bytes(self.model_bytes)}; {self.seconds:.1f} s"
        )


class SemanticPlugin(BasePlugin[SemanticConfig]):
    """Chunks and embeds every page, then writes the search bundle into the site."""

    supports_multiple_instances = False

    def __init__(self) -> None:
        self.is_serve = False
        self.spec: ModelSpec | None = None
        self.counter: TokenCounter | None = None
        self.embedder: OnnxEmbedder | None = None
        self.cache: EmbeddingCache | None = None
        self.page_order: list[str] = []
        self.page_chunks: dict[str, list[Chunk]] = {}
        self._verified: set[Path] = set()
        self.last_build: BuildStats | None = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.is_serve = command == "serve"

    def on_config(self, config):
        if not self.config.enabled:
            return
        self._validate_options()
        config_dir = Path(config.config_file_path or ".").resolve().parent
        spec = self._resolve_model(config_dir)
        if spec != self.spec:
            self.spec = spec
            self.embedder = None
            self.counter = TokenCounter(spec.tokenizer_path)
        cache_path = None
        if self.config.cache:
            cache_path = (config_dir / self.config.cache_dir / "embeddings.npz").resolve()
        fingerprint = model_fingerprint(spec)
        if (self.cache is None or self.cache.path != cache_path
                or self.cache.fingerprint != fingerprint):
            self.cache = EmbeddingCache(cache_path, fingerprint=fingerprint)
        return config

    def _validate_options(self) -> None:
        cfg = self.config
        model_max = cfg.model.max_tokens
        checks = [
            ("heading_levels", cfg.heading_levels, 1 <= cfg.heading_levels <= 6,
             "a number from 1 to 6"),
            ("model.max_tokens", model_max, model_max >= 16, "at least 16"),
            ("max_tokens", cfg.max_tokens, 16 <= cfg.max_tokens <= model_max,
             f"between 16 and model.max_tokens ({model_max})"),
            ("min_tokens", cfg.min_tokens, 0 <= cfg.min_tokens < cfg.max_tokens,
             "at least 0 and below max_tokens"),
            ("batch_size", cfg.batch_size, cfg.batch_size >= 1, "at least 1"),
            ("threads", cfg.threads, cfg.threads >= 0, "0 (automatic) or more"),
            ("bundle_dir", cfg.bundle_dir, _is_inner_folder(cfg.bundle_dir),
             "a relative folder inside site_dir, such as 'semantic'"),
        ]
        for option, value, ok, expected in checks:
            if not ok:
                raise PluginError(
                    f"semantic: option '{option}' is {value!r}; it must be {expected}. "
                    "Fix it under 'plugins: - semantic:' in mkdocs.yml"
                )

    def _resolve_model(self, config_dir: Path) -> ModelSpec:
        m = self.config.model
        try:
            if m.path is None:
                if m.tokenizer is not None:
                    raise PluginError(
                        "semantic: option 'model.tokenizer' is set without 'model.path': "
                        "set both to use your own model, or neither for the bundled one"
                    )
                spec = default_model_spec(max_tokens=m.max_tokens)
                if spec.model_path not in self._verified:
                    verify_default_model(spec)
                    self._verified.add(spec.model_path)
                return ModelSpec(**{**spec.__dict__, "pooling": m.pooling,
                                    "normalize": m.normalize,
                                    "query_prefix": m.query_prefix,
                                    "document_prefix": m.document_prefix,
                                    "dim": m.dim or spec.dim})
            model_path = _existing_file(config_dir, m.path, "model.path")
            if m.tokenizer is None:
                raise PluginError(
                    "semantic: option 'model.path' needs 'model.tokenizer' too: "
                    "point it at the model's tokenizer.json"
                )
            tokenizer_path = _existing_file(config_dir, m.tokenizer, "model.tokenizer")
            TokenCounter(tokenizer_path)  # fail now, naming the option, if unreadable
            return ModelSpec(
                id=model_path.name,
                model_path=model_path,
                tokenizer_path=tokenizer_path,
                sha256=sha256_file(model_path),
                pooling=m.pooling,
                normalize=m.normalize,
                max_tokens=m.max_tokens,
                query_prefix=m.query_prefix,
                document_prefix=m.document_prefix,
                dim=m.dim,
            )
        except ModelError as exc:
            option = "model.tokenizer" if "tokenizer" in str(exc) else "model.path"
            raise PluginError(f"semantic: option '{option}': {exc}") from exc

    def on_files(self, files, *, config):
        if not self.config.enabled:
            return
        self.page_order = [f.src_uri for f in files.documentation_pages()]
        return files

    def on_page_content(self, html, *, page, config, files):
        if not self.config.enabled:
            return
        src = page.file.src_uri
        if self._excluded(page):
            self.page_chunks.pop(src, None)
            return html
        facts = PageFacts(url=page.url, title=page.title or page.file.name,
                          section=top_section(page))
        try:
            self.page_chunks[src] = chunk_page(
                html, facts, count=self.counter, max_tokens=self._chunk_budget(),
                min_tokens=self.config.min_tokens, heading_levels=self.config.heading_levels,
            )
        except ValueError as exc:
            raise PluginError(f"semantic: cannot chunk {src}: {exc}") from exc
        return html

    def _chunk_budget(self) -> int:
        """max_tokens less what the document prefix takes, so no chunk gets truncated."""
        prefix = self.spec.document_prefix
        return self.config.max_tokens - (self.counter([prefix])[0] - 2 if prefix else 0)

    def _excluded(self, page) -> bool:
        meta = page.meta.get("search")
        if isinstance(meta, dict) and meta.get("exclude"):
            return True
        src = page.file.src_uri
        return any(fnmatch.fnmatch(src, pattern) for pattern in self.config.exclude)

    def on_post_build(self, *, config):
        if not self.config.enabled:
            return
        started = time.perf_counter()
        chunks = [c for src in self.page_order for c in self.page_chunks.get(src, [])]
        self.page_chunks = {src: self.page_chunks[src] for src in self.page_order
                            if src in self.page_chunks}
        vectors, embedded = self._vectors(chunks)
        stored = quantize(vectors, self.config.dtype)
        out = Path(config.site_dir) / self.config.bundle_dir
        manifest = write_bundle(out, chunks=chunks, stored=stored, spec=self.spec,
                                model_sha256=self.spec.sha256)
        model_bytes = sum(manifest.files[k].bytes for k in ("model", "tokenizer"))
        self.last_build = BuildStats(
            pages=len(self.page_chunks),
            chunks=len(chunks),
            embedded=embedded,
            reused=len(chunks) - embedded,
            bundle_bytes=sum(f.bytes for f in manifest.files.values()) - model_bytes,
            model_bytes=model_bytes,
            seconds=time.perf_counter() - started,
        )
        log.info(self.last_build.summary())

    def _vectors(self, chunks: list[Chunk]) -> tuple[np.ndarray, int]:
        """Vectors for all chunks: from the cache where possible, embedded otherwise."""
        embedder = self._embedder()
        cache = self.cache
        cache.start_build()
        texts = [c.embed_text for c in chunks]
        keys = [cache_key(cache.fingerprint, t) for t in texts]
        vectors = np.zeros((len(chunks), embedder.dim), dtype=np.float32)
        missing: dict[bytes, list[int]] = {}
        for i, key in enumerate(keys):
            hit = cache.get(key)
            if hit is not None and hit.shape[0] == embedder.dim:
                vectors[i] = hit
            else:
                missing.setdefault(key, []).append(i)
        if missing:
            todo = [texts[rows[0]] for rows in missing.values()]
            new = self._embed_with_progress(embedder, todo)
            for (key, rows), vector in zip(missing.items(), new):
                vectors[rows] = vector
                cache.put(key, vector)
        try:
            cache.save()
        except OSError as exc:
            log.warning("semantic: could not save the embedding cache (%s); the next build "
                        "will embed again. Check that cache_dir is writable", exc)
        return vectors, len(missing)

    def _embed_with_progress(self, embedder: OnnxEmbedder, texts: list[str]) -> np.ndarray:
        if len(texts) < PROGRESS_MIN_CHUNKS:
            return embedder.embed_documents(texts)
        with click.progressbar(length=len(texts), label="semantic: embedding chunks",
                               file=sys.stderr, show_pos=True, show_eta=True) as bar:
            return embedder.embed_documents(texts, progress=bar.update)

    def _embedder(self) -> OnnxEmbedder:
        if self.embedder is None:
            self.embedder = OnnxEmbedder(self.spec, threads=self.config.threads,
                                         batch_size=self.config.batch_size)
        try:
            self.embedder.dim  # noqa: B018 - loads the model and checks model.dim now
        except ModelError as exc:
            option = "model.dim" if "model.dim" in str(exc) else "model.path"
            raise PluginError(f"semantic: option '{option}': {exc}") from exc
        return self.embedder


def model_fingerprint(spec: ModelSpec) -> str:
    """What besides the text decides a document vector."""
    return "|".join([spec.sha256, str(spec.max_tokens), spec.pooling, str(spec.normalize),
                     spec.document_prefix])


def top_section(page) -> str:
    """Title of the page's top-level navigation section ("" at the top level)."""
    node = page.parent
    while node is not None and node.parent is not None:
        node = node.parent
    return node.title if node is not None else ""


def human_bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"


def _is_inner_folder(value: str) -> bool:
    path = Path(value)
    return bool(value.strip("/ ")) and not path.is_absolute() and ".." not in path.parts


def _existing_file(config_dir: Path, value: str, option: str) -> Path:
    path = (config_dir / value).resolve()
    if not path.is_file():
        raise PluginError(
            f"semantic: option '{option}' is {value!r}, but {path} does not exist: "
            "fix the path (relative to mkdocs.yml)"
            + (" or remove model.path to use the bundled model" if option == "model.path" else "")
        )
    return path
