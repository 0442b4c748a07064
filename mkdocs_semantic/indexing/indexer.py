"""The build pipeline without MkDocs: pages -> chunks -> vectors (cached) -> bundle.

Used by the MkDocs plugin and by `mkdocs-semantic index` for any static site.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from ..bundle import footprint as bundle_footprint
from ..bundle.folder import claim_bundle_dir
from ..bundle.footprint import Footprint, Listing
from ..bundle.format import MANIFEST, STATIC_MAX_TOKENS, BundleWriteError, Manifest
from ..bundle.quantize import quantize
from ..bundle.table import TokenTable
from ..bundle.writer import write_bundle
from ..chunk import Chunk, PageFacts
from ..constants import site_encoders
from ..files import sha256_file
from ..logs import build_log as log
from ..model.onnx import (
    OnnxEmbedder,
    TokenCounter,
    load_tokenizer,
    map_batches,
    plan_batches,
    thread_split,
)
from ..model.spec import Embedder, ModelSpec
from . import layout_basis
from .cache import ChunkCache, EmbeddingCache, cache_key
from .early import EarlyEmbedding
from .html_chunks import CHUNKING_VERSION, chunk_page
from .memory import return_freed_memory
from .progress import Progress
from .query_table.fidelity import TOP, Fidelity, measure
from .query_table.fit import REFIT_DRIFT, Drift, TableFitter
from .query_table.texts import held_out_phrases, sentences_of

PROGRESS_MIN_TEXTS = 64
"""Fewer texts than this embed without a progress line."""
CHECKPOINT_SECONDS = 30.0
"""How often a build saves the vectors it has embedded so far (a killed build loses
at most this much work)."""


@dataclass(frozen=True)
class IndexOptions:
    """How pages are cut and vectors stored (the plugin's options of the same names)."""

    heading_levels: int = 3
    max_tokens: int = 256
    min_tokens: int = 24
    dtype: str = "i8"
    threads: int = 0
    batch_size: int = 32
    search: tuple[tuple[str, object], ...] = ()
    """Search defaults written into the manifest (top_k, min_score)."""
    query_encoder: str = "static"
    """How readers embed queries: `static` (a token table fitted here), `transformer`, or
    `progressive` (both: the table for a browser's first query, the model after)."""
    vector_layout: str = "auto"
    """`exact`, `partitioned` or `auto` (partitioned for large sites;
    see bundle/vectors/partitions.py)."""


@dataclass(frozen=True)
class TableStats:
    """What the static query encoder's table cost one build."""

    refitted: bool
    """False when the cached table matched and nothing was solved."""
    embedded: int
    """Training texts and single tokens the model embedded for it (the rest were cached)."""
    seconds: float
    """The whole step: picking the texts, checking the cache, embedding, solving."""
    kept: bool = False
    """True when a preview kept the table of the build before, unchecked (`preview`)."""
    fidelity: Fidelity | None = None
    """The table against the model on held-out phrases (None in a preview)."""
    drift: Drift | None = None
    """When the table was reused though the site's text moved since its fit: how far
    (query_table/fit.py REFIT_DRIFT)."""


@dataclass
class BuildStats:
    """What one build did; logged as one line and kept for tools and benchmarks."""

    pages: int
    chunks: int
    embedded: int
    reused: int
    bundle_bytes: int
    model_bytes: int
    seconds: float
    table: TableStats | None = None
    """None when the site has no static query encoder (`query_encoder: transformer`)."""
    client_bytes: int = 0
    """The browser client copied beside the bundle (0 where none is, as with
    `mkdocs-semantic index`)."""
    footprint: Footprint | None = None
    """The bundle folder's files, and what changed since the build before."""

    def summary(self) -> str:
        """One line (the plugin's log adds its `semantic: ` prefix)."""
        table = ""
        if self.table is not None:
            if self.table.kept:
                table = "; query table kept from the build before (a preview: `mkdocs " \
                        "build` refits it)"
            else:
                table = (f"; query table {'fitted' if self.table.refitted else 'reused'} "
                         f"({self.table.embedded} embedded, {self.table.seconds:.1f} s)")
                if self.table.drift is not None:
                    drift = self.table.drift
                    table += (f", fitted before {drift.changed:,} of {drift.texts:,} section "
                              f"texts changed (refit past {REFIT_DRIFT:.0%})")
                if self.table.fidelity is not None:
                    fidelity = self.table.fidelity
                    table += (f", {fidelity.agreement:.0%} of top-{TOP} chunks as the model's"
                              f" (cosine {fidelity.cosine:.2f})")
        return (
            f"{self.pages} pages, {self.chunks} chunks, {self.embedded} embedded, "
            f"{self.reused} reused; bundle {human_bytes(self.bundle_bytes)}"
            + (f" + model {human_bytes(self.model_bytes)}" if self.model_bytes else "")
            + (f" + client {human_bytes(self.client_bytes)}" if self.client_bytes else "")
            + self._files() + table + f"; {self.seconds:.1f} s"
        )


    def with_files(self, files: Footprint, *, client_bytes: int = 0) -> BuildStats:
        """These stats with the finished bundle folder's files: its bytes as the host
        stores them, less the client's and the model's."""
        return replace(self, footprint=files, client_bytes=client_bytes,
                       bundle_bytes=files.bytes - client_bytes - self.model_bytes)

    def _files(self) -> str:
        """`, N files` and, after a build before, what a deploy must upload."""
        fp = self.footprint
        if fp is None:
            return ""
        text = f", {fp.files:,} files"
        if fp.changed_files is not None:
            text += (f"; {fp.changed_files:,} to upload since the last build "
                     f"({human_bytes(fp.changed_bytes or 0)})")
        return text


@dataclass
class Plan:
    """What a build would do, computed without embedding anything."""

    chunks: list[Chunk]
    keys: list[bytes]
    missing: dict[bytes, list[int]]


def model_fingerprint(spec: ModelSpec) -> str:
    """What besides the text decides a document vector."""
    return "|".join([spec.sha256, str(spec.max_tokens), spec.pooling, str(spec.normalize),
                     spec.document_prefix])


class Indexer:
    """Holds the model, tokenizer and cache across builds (e.g. `mkdocs serve` rebuilds).

    `embedder` makes the document vectors; by default an `OnnxEmbedder` of `spec`, loaded
    on first use. Another embedder must make the vectors `spec` describes: its sha256
    (with pooling, normalize, max_tokens and document_prefix) keys the embedding cache and
    is written into the bundle, and its tokenizer cuts the chunks. If it has a
    `release()` method, a build that is not a preview calls it before the query table's
    solve, when it has embedded all it needs (see `_release_model`). If it has a
    `workers` attribute above 1, that many batches are embedded at once, each by a call
    of its own from a thread of its own (`OnnxEmbedder` is safe to call so).
    """

    def __init__(self, spec: ModelSpec, options: IndexOptions, *,
                 cache_path: Path | None, embedder: Embedder | None = None) -> None:
        self.spec = spec
        self.options = options
        self.counter = TokenCounter(spec.tokenizer_path)
        self.cache = EmbeddingCache(cache_path, fingerprint=model_fingerprint(spec))
        self.chunk_cache = ChunkCache(
            cache_path.with_name("chunks.json") if cache_path else None,
            fingerprint=f"{CHUNKING_VERSION}|{sha256_file(spec.tokenizer_path)}",
        )
        self._embedder = embedder
        self._fitter: TableFitter | None = None
        self.fit_embedded = 0
        """Texts and tokens embedded for the query table since `query_table` began."""
        self.pages_chunked = 0
        """Pages parsed and chunked since `start_build` (the rest came from the cache)."""
        self.preview = False
        """Builds are previews (`mkdocs serve`): keep the query table of the build before
        instead of refitting it after every edit (seconds to a minute on a large site)."""
        self.embed_early = False
        """Embed chunks in the background as `chunk` cuts them, on all threads but one,
        while the caller reads the next pages (see indexing/early.py). Off for plans and dry runs,
        which embed nothing."""
        self._early: EarlyEmbedding | None = None
        self._listing_before: Listing | None = None
        self.early_embedded = 0
        """Chunk texts of the last `vectors` that were embedded while pages were read."""

    def matches(self, spec: ModelSpec, options: IndexOptions, cache_path: Path | None) -> bool:
        return (spec, options, cache_path) == (self.spec, self.options, self.cache.path)

    @property
    def chunk_budget(self) -> int:
        """max_tokens less what the document prefix takes, so no chunk gets truncated."""
        prefix = self.spec.document_prefix
        return self.options.max_tokens - (self.counter([prefix])[0] - 2 if prefix else 0)

    def chunk(self, html: str, page: PageFacts, *, source: str | None = None) -> list[Chunk]:
        """The page's chunks; unchanged pages come from the chunk cache unparsed. `source`
        names the page's source file, for a later build that skips it (`unbuilt_chunks`)."""
        budget = self.chunk_budget
        key = ChunkCache.key(html, json.dumps(asdict(page), sort_keys=True),
                             f"{budget}|{self.options.min_tokens}|{self.options.heading_levels}")
        cached = self.chunk_cache.get(key)
        if cached is not None:
            chunks = [Chunk(**row) for row in cached]
        else:
            chunks = chunk_page(html, page, count=self.counter, max_tokens=budget,
                                min_tokens=self.options.min_tokens,
                                heading_levels=self.options.heading_levels)
            self.pages_chunked += 1
            self.chunk_cache.put(key, [asdict(c) for c in chunks])
        if source is not None:
            self.chunk_cache.note(source, key)
        self._embed_early(chunks)
        return chunks

    def excluded(self, source: str) -> None:
        """Source page `source` is left out of the index this build."""
        self.chunk_cache.note(source, None)

    def unbuilt_chunks(self, source: str) -> list[Chunk] | None:
        """The chunks of a source page this build did not render (an unchanged page of
        `mkdocs build --dirty`), as the last build cut them; None when the cache does
        not know the page."""
        rows = self.chunk_cache.of_source(source)
        if rows is None:
            return None
        chunks = [Chunk(**row) for row in rows]
        self._embed_early(chunks)
        return chunks

    def start_build(self) -> None:
        """Call before the pages of a (re)build are chunked."""
        self.stop_early()
        self.chunk_cache.start_build()
        self.pages_chunked = 0

    def _embed_early(self, chunks: list[Chunk]) -> None:
        """With `embed_early`, hand the chunks the cache lacks to the background
        embedding, which uses all threads but one (the one reading pages); none with
        fewer than two."""
        if not self.embed_early:
            return
        workers = getattr(self.embedder, "workers", 1)
        if workers < 2:
            return
        texts = [c.embed_text for c in chunks]
        keys = [cache_key(self.cache.fingerprint, t) for t in texts]
        new = [(k, t) for k, t in zip(keys, texts) if k not in self.cache.vectors]
        if not new:
            return
        if self._early is None:
            self.cache.require_dim(self.embedder.dim)
            embedder = self.embedder
            self._early = EarlyEmbedding(
                embed=embedder.embed_documents, lengths=embedder.token_lengths,
                threads=workers - 1, max_items=self.options.batch_size)
        self._early.add([k for k, _ in new], [t for _, t in new])

    def stop_early(self) -> dict[bytes, np.ndarray]:
        """End the background embedding (batches not started are dropped) and return
        what it embedded."""
        early, self._early = self._early, None
        return early.finish() if early is not None else {}

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            workers, threads = thread_split(self.options.threads)
            self._embedder = OnnxEmbedder(self.spec, threads=threads, workers=workers,
                                          batch_size=self.options.batch_size)
        return self._embedder

    def plan(self, chunks: list[Chunk]) -> Plan:
        keys = [cache_key(self.cache.fingerprint, c.embed_text) for c in chunks]
        missing: dict[bytes, list[int]] = {}
        for i, key in enumerate(keys):
            if key not in self.cache.vectors:
                missing.setdefault(key, []).append(i)
        return Plan(chunks=chunks, keys=keys, missing=missing)

    def vectors(self, chunks: list[Chunk],
                progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, int]:
        """Vectors for all chunks, from the cache where possible; returns (vectors, embedded)."""
        dim = self.embedder.dim  # loads the model and checks model.dim, even on a full cache
        self.cache.require_dim(dim)
        early = self.stop_early()
        for key, vector in early.items():
            self.cache.put(key, vector)
        self.cache.start_build()
        plan = self.plan(chunks)
        self.early_embedded = len(set(early).intersection(plan.keys))
        if self.early_embedded and plan.missing and progress is None:
            log.info("embedded %s chunks while the pages were read; %s to go",
                     f"{self.early_embedded:,}", f"{len(plan.missing):,}")
        vectors = np.zeros((len(chunks), dim), dtype=np.float32)
        for i, key in enumerate(plan.keys):
            if key not in plan.missing:
                vectors[i] = self.cache.get(key)
        if plan.missing:
            new = self._embed_missing(plan, progress)
            for rows, vector in zip(plan.missing.values(), new):
                vectors[rows] = vector
        self._save_cache(prune=True)
        return vectors, len(plan.missing) + self.early_embedded

    def _embed_missing(self, plan: Plan,
                       progress: Callable[[int], None] | None) -> np.ndarray:
        """Embed the plan's missing texts one batch at a time, putting each vector in the
        cache and saving it every CHECKPOINT_SECONDS: a killed build keeps its work."""
        keys = list(plan.missing)
        texts = [plan.chunks[rows[0]].embed_text for rows in plan.missing.values()]
        last_save = time.monotonic()

        def keep(batch: list[int], vectors: np.ndarray) -> None:
            nonlocal last_save
            for i, vector in zip(batch, vectors):
                self.cache.put(keys[i], vector)
            if progress is not None:
                progress(len(batch))
            if time.monotonic() - last_save >= CHECKPOINT_SECONDS:
                self._save_cache(prune=False)
                last_save = time.monotonic()

        try:
            return self._embed_texts(texts, label="embedding chunks", on_batch=keep,
                                     report=progress is None)
        except BaseException:
            self._save_cache(prune=False)  # Ctrl-C or an error: keep what is done
            raise

    def _embed_texts(self, texts: list[str], *, label: str,
                     on_batch: Callable[[list[int], np.ndarray], None] | None = None,
                     report: bool = True) -> np.ndarray:
        """Document vectors of `texts`, in token-sized batches of similar length.

        The batches run in a shuffled (seeded) order, so the rate of the first ones is
        the rate of the whole and the time left that `Progress` shows holds from the
        start; short texts first would make it several times too hopeful.
        """
        out = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        if not texts:
            return out
        lengths = self.embedder.token_lengths(texts)
        batches = plan_batches(lengths, max_items=self.options.batch_size)
        random.Random(0).shuffle(batches)
        shown = report and len(texts) >= PROGRESS_MIN_TEXTS
        meter = Progress(label, items=len(texts), tokens=sum(lengths)) if shown else None
        embedder = self.embedder
        vectors = map_batches(lambda batch: embedder.embed_documents([texts[i] for i in batch]),
                              batches, workers=getattr(embedder, "workers", 1))
        for batch, rows in zip(batches, vectors):
            out[batch] = rows
            if on_batch is not None:
                on_batch(batch, out[batch])
            if meter is not None:
                meter.advance(len(batch), sum(lengths[i] for i in batch))
        if meter is not None:
            meter.close()
        return out

    def _save_cache(self, *, prune: bool) -> None:
        try:
            self.cache.save(prune=prune)
        except OSError as exc:
            log.warning("could not save the embedding cache (%s); the next build "
                        "will embed again. Check that cache_dir is writable", exc)

    def cached_vectors(self, keys: list[bytes], texts: list[str], embed) -> np.ndarray:
        """Vectors of `keys` from the cache; `embed(texts)` makes (and caches) the rest."""
        missing = [i for i, key in enumerate(keys) if key not in self.cache.vectors]
        self.fit_embedded += len(missing)
        if missing:
            new = embed([texts[i] for i in missing])
            for i, vector in zip(missing, new):
                self.cache.put(keys[i], vector)
        # every key is cached by now: get finds each one
        return np.stack([self.cache.get(key) for key in keys]) if keys else (  # type: ignore[misc]
            np.zeros((0, self.embedder.dim), dtype=np.float32))

    def text_vectors(self, texts: list[str], *, report: bool = True) -> np.ndarray:
        keys = [cache_key(self.cache.fingerprint, t) for t in texts]
        return self.cached_vectors(keys, texts, lambda missing: self._embed_texts(
            missing, label="embedding query-table texts", report=report))

    def token_vectors(self, ids: list[int]) -> np.ndarray:
        """The model's vector of each token id alone (the query table's prior)."""
        keys = [cache_key(self.cache.fingerprint, f"\0token {i}") for i in ids]
        return self.cached_vectors(keys, [str(i) for i in ids], lambda found: (
            self.embedder.embed_token_ids([int(i) for i in found])))

    @property
    def fitter(self) -> TableFitter:
        if self._fitter is None:
            self._fitter = TableFitter(
                tokenizer=load_tokenizer(self.spec.tokenizer_path, self.spec.max_tokens),
                embed_texts=self.text_vectors, embed_tokens=self.token_vectors,
                cache_path=self.cache.path.with_name("query_table.npz")
                if self.cache.path else None,
                document_prefix=self.spec.document_prefix, before_solve=self._release_model)
        return self._fitter

    def _release_model(self) -> None:
        """Before the query table's solve, in a build that is not a preview: free the
        model (an embedder with a `release()` method, as `OnnxEmbedder`), a few hundred
        MB the solve can use; a later build loads it again. A preview keeps it, as its
        next rebuild embeds the edit at once."""
        release = getattr(self._embedder, "release", None)
        if self.preview or release is None:
            return
        release()
        return_freed_memory()

    def query_table(self, chunks: list[Chunk],
                    vectors: np.ndarray) -> tuple[TokenTable | None, TableStats | None]:
        """The static encoder's table and what it cost (None, None for
        `query_encoder: transformer`)."""
        if "static" not in site_encoders(self.options.query_encoder):
            return None, None
        started = time.perf_counter()
        self.fit_embedded = 0
        # the phrases' model vectors first: the fit may free the model before its solve;
        # none when a preview keeps the table it had (nothing new is measured then)
        kept = self.fitter.keeps_last(self.preview)
        phrases = [] if kept else held_out_phrases(sentences_of(chunks))
        phrase_vectors = self.text_vectors(phrases, report=False)
        table = self.fitter.fit(chunks, vectors, fingerprint=self.cache.fingerprint,
                                keep_last=self.preview)
        fidelity = None if self.fitter.kept or not phrases else \
            self.fidelity(table, phrases, phrase_vectors, vectors)
        try:
            self.cache.save()
        except OSError as exc:
            log.warning("could not save the embedding cache (%s)", exc)
        return table, TableStats(refitted=self.fitter.refitted, embedded=self.fit_embedded,
                                 seconds=time.perf_counter() - started, kept=self.fitter.kept,
                                 fidelity=fidelity, drift=self.fitter.drift)

    def fidelity(self, table: TokenTable, phrases: list[str], phrase_vectors: np.ndarray,
                 vectors: np.ndarray) -> Fidelity | None:
        """The table against the model (`phrase_vectors`) on phrases of the site held out
        of the fit; warns when they agree too little for the static encoder to stand in
        for the model."""
        ids = [e.ids[:STATIC_MAX_TOKENS] for e in self.fitter.tokenizer.encode_batch(
            [self.spec.document_prefix + p for p in phrases])]
        found = measure(table, ids, phrase_vectors, vectors)
        if found is not None and found.low:
            log.warning("the static query encoder finds %s of the model's top-%s chunks for "
                        "phrases of this site: readers' queries by meaning may miss what the "
                        "model would find; set query_encoder: transformer to embed queries "
                        "with the model (a larger download on a reader's first query)",
                        f"{found.agreement:.0%}", TOP)
        return found

    @property
    def layout_basis_path(self) -> Path | None:
        return self.cache.path.with_name("layout.npz") if self.cache.path else None

    def layout_basis(self, out: Path) -> layout_basis.LayoutBasis | None:
        """The int8 scale and partition centroids of the build before, for this model:
        from the bundle in `out`, else from the cache folder (see indexing/layout_basis.py)."""
        if self.options.dtype != "i8":
            return None
        entry = self.spec.manifest_entry()
        entry["sha256"] = self.spec.sha256
        key = layout_basis.model_key(entry)
        for basis in (layout_basis.from_bundle(out), layout_basis.load(self.layout_basis_path)):
            if basis is not None and basis.model == key:
                return basis
        return None

    def _save_layout_basis(self, out: Path) -> None:
        path = self.layout_basis_path
        basis = layout_basis.from_bundle(out) if path else None
        if path is None or basis is None:
            return
        try:
            layout_basis.save(path, basis)
        except OSError as exc:
            log.warning("could not save %s (%s): the next build may rewrite every vector "
                        "file", path, exc)

    @property
    def listing_path(self) -> Path | None:
        return self.cache.path.with_name("bundle_files.json") if self.cache.path else None

    def _previous_listing(self, out: Path) -> Listing | None:
        """The files of the build before: the bundle folder's own, else (a site folder
        emptied by `mkdocs build`) the listing the last build saved beside the cache."""
        if (out / MANIFEST).is_file():
            return bundle_footprint.listing(out)
        path = self.listing_path
        return bundle_footprint.load_listing(path) if path is not None else None

    def footprint(self, out: Path) -> Footprint:
        """The finished bundle folder's files (the client too, once installed) against
        the build before `write`; saves them beside the cache for the next build."""
        now = bundle_footprint.listing(out)
        path = self.listing_path
        if path is not None:
            try:
                bundle_footprint.save_listing(path, now)
            except OSError as exc:
                log.warning("could not save %s (%s): the next build cannot say what a "
                            "deploy must upload", path, exc)
        return bundle_footprint.footprint(now, self._listing_before)

    def write(self, out: Path, chunks: list[Chunk], *, pages: int) -> BuildStats:
        """Embed what the cache lacks, fit the query table, and write the bundle into `out`."""
        started = time.perf_counter()
        claim_bundle_dir(out)  # before minutes of embedding, not after
        self._listing_before = self._previous_listing(out)
        vectors, embedded = self.vectors(chunks)
        try:
            self.chunk_cache.save()
        except OSError as exc:
            log.warning("could not save the chunk cache (%s)", exc)
        table, table_stats = self.query_table(chunks, vectors)
        basis = self.layout_basis(out)
        stored = quantize(vectors, self.options.dtype,
                          previous_scale=basis.scale if basis else None)
        try:
            manifest = write_bundle(out, chunks=chunks, stored=stored,
                                    spec=self.spec, search=dict(self.options.search),
                                    table=table, query_encoder=self.options.query_encoder,
                                    fidelity=table_stats.fidelity.to_json()
                                    if table_stats and table_stats.fidelity else None,
                                    model_sha256=self.spec.sha256,
                                    vector_layout=self.options.vector_layout,
                                    previous_centroids=basis.centroids if basis else None)
        except OSError as exc:  # the embeddings are cached: a build after the fix is quick
            raise BundleWriteError(
                f"could not write the search bundle into {out} ({exc.strerror or exc}): "
                "free space on that disk (or make it writable) and build again") from exc
        self._save_layout_basis(out)
        return stats_of(manifest, out=out, pages=pages, chunks=len(chunks), embedded=embedded,
                        seconds=time.perf_counter() - started, table=table_stats)


MODEL_FILES = ("model/model.", "model/layers.", "model/words.")
"""The model's files in a bundle: the ONNX file, or the client's forward pass's files."""


def stats_of(manifest: Manifest, *, out: Path, pages: int, chunks: int, embedded: int,
             seconds: float, table: TableStats | None = None) -> BuildStats:
    from ..bundle.reader import payloads_of, read_catalog

    payloads = payloads_of(read_catalog(out, manifest), out)
    model_bytes = sum(p.bytes for p in payloads if p.name.startswith(MODEL_FILES))
    return BuildStats(
        pages=pages,
        chunks=chunks,
        embedded=embedded,
        reused=chunks - embedded,
        bundle_bytes=manifest.catalog.bytes + sum(p.bytes for p in payloads) - model_bytes,
        model_bytes=model_bytes,
        seconds=seconds,
        table=table,
    )


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB"):
        if n < 1000:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"
