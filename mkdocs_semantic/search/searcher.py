"""The reference searcher over a built bundle: the executable spec of ranking.

Vector score: see search/query_encoder.py (int8: an exact integer dot product, then one
division), of every stored vector (the exact layout), of the query's candidates (the
partitioned layout, see bundle/vectors/partitions.py), or of every vector in a partition holding a
chunk that passes the query's filters. Lexical
score: the sum of the query terms' quantized BM25 (see `lexical.py`). Both rankings go
through the page-aware fusion of `search/ranking.py` (vector scores scaled between the query's
mean score and its best page, keyword scores as a share of the query's best possible
score, then averaged); `mode` picks which take part. `Result.score` is the page's relevance
(0-1), `section_score` the section's own; `min_score` drops pages below a relevance.
Every other reader (the browser client) must return the same top-k.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import numpy as np

from ..bundle.format import BundleError
from ..bundle.lexical import analyze
from ..bundle.reader import Bundle, LocatedBundle, PayloadFetch, read_bundle
from ..bundle.vectors.codes import query_codes
from ..chunk import href
from ..constants import MAX_TOP_K, NAMED_HEADINGS, QUERY_ENCODERS, VECTOR_CHUNKS
from ..constants import SEARCH_MODES as MODES
from ..model.onnx import OnnxEmbedder
from ..model.spec import Embedder
from .excerpts import excerpt_window, parts_of, query_terms, window_text
from .query_encoder import StaticQueryEncoder
from .ranking import (
    Ranked,
    Signal,
    chunk_order,
    fuse,
    heading_name,
    keyword_weight,
    named_sections,
    section_heading,
    size_priors,
)
from .spelling import Reading, WordSource, read_query


@dataclass
class Result:
    """One ranked section."""

    chunk_id: int
    url: str
    """The page's URL as the bundle names it ("" for the home page); answers link it
    with chunk.page_link, as `href` does."""
    anchor: str
    title: str
    path: list[str]
    excerpt: str
    """What results show of the section: a window of its text around the query's words
    (the browser client's window, see search/excerpts.py)."""
    score: float
    """The page's relevance, 0-1 (search/ranking.py): 1 for the best vector page when it also
    matches every query term in full."""
    kind: str
    section: str
    vector_score: float | None
    lexical_score: float | None
    section_score: float | None = None
    """The section's own relevance, 0-1 (orders the sections of one page)."""

    @property
    def href(self) -> str:
        """Link relative to the site root, with the section's anchor."""
        return href(self.url, self.anchor)


@dataclass
class Answer:
    """The results of a query, and the query as searched."""

    reading: Reading
    results: list[Result]


@dataclass
class Ranking:
    """A query's fused order (search/ranking.py) before its results are made: what
    several sites merge on, so that only the sections shown get excerpts."""

    fused: list[Ranked]
    vector_scores: np.ndarray | None
    lexical_scores: np.ndarray | None
    terms: list[str]


class Searcher:
    """Answers queries from one bundle, embedding them with the bundle's query encoder
    (or the one asked for: `static` or `transformer`)."""

    def __init__(self, bundle: Bundle, embedder: Embedder | None = None, *,
                 encoder: str | None = None) -> None:
        self.bundle = bundle
        self.encoder = encoder or ("transformer" if embedder is not None
                                   else bundle.manifest.query_encoder)
        if self.encoder not in QUERY_ENCODERS:
            raise ValueError(f"unknown query encoder {self.encoder!r}: use one of "
                             f"{', '.join(QUERY_ENCODERS)}")
        if self.encoder == "static" and bundle.table is None:
            raise BundleError(f"{bundle.root} has no static query encoder: use "
                              "encoder='transformer'")
        self._embedder = embedder
        self._static: StaticQueryEncoder | None = None
        self._model_words: frozenset[str] | None = None
        pages = len(bundle.pages.counts)
        self._page_of_chunk = bundle.pages.page_of_chunk
        self._boosts = np.ones(pages)
        for page, boost in bundle.catalog["pages"]["boosts"].items():
            self._boosts[int(page)] = float(boost)
        self._priors = size_priors(self._page_of_chunk, pages)
        self._sections = bundle.pages.sections

    @classmethod
    def open(cls, path: str | Path | LocatedBundle, embedder: Embedder | None = None, *,
             encoder: str | None = None, fetch: PayloadFetch | None = None) -> Searcher:
        """Open a site directory or bundle directory written by the plugin, or a `Source`
        (`open_source`), whose bundle may fetch payloads as queries need them."""
        if isinstance(path, (str, PathLike)):
            return cls(read_bundle(Path(path), fetch=fetch), embedder, encoder=encoder)
        return cls(read_bundle(path.bundle_dir, fetch=fetch or path.fetch,
                               fetch_range=None if fetch else path.fetch_range), embedder,
                   encoder=encoder)

    @property
    def defaults(self) -> dict:
        return self.bundle.manifest.search

    @property
    def embedder(self) -> Embedder:
        """The transformer, loaded on first use."""
        if self._embedder is None:
            self._embedder = OnnxEmbedder(self.bundle.model_spec())
        return self._embedder

    @property
    def static(self) -> StaticQueryEncoder:
        if self._static is None:
            table, tokenizer = self.bundle.table, self.bundle.static_tokenizer
            # __init__ refused the static encoder for a bundle without its table
            assert table is not None and tokenizer is not None
            static = self.bundle.catalog["encoders"]["static"]
            self._static = StaticQueryEncoder(
                tokenizer_path=tokenizer, table=table,
                max_tokens=static["max_tokens"],
                prefix=self.bundle.catalog["model"]["query_prefix"])
        return self._static

    def embed(self, query: str) -> np.ndarray | None:
        """The query as the vector set is scored with (int8 codes for int8 vectors);
        None when the static encoder knows none of its tokens."""
        if self.encoder == "static":
            vector = self.static.encode(query)
        else:
            vector = self.embedder.embed_queries([query])[0]
        if vector is None:
            return None
        if self.bundle.vectors.dtype == "i8":
            return query_codes(vector)
        if self.encoder == "static":
            # a sum of table rows: unit length makes float scores cosines, like the model's
            vector = vector.astype(np.float64)
            vector /= np.linalg.norm(vector) or 1.0
        return vector

    def scores(self, vector: np.ndarray, *, every: bool = False) -> np.ndarray:
        """Vector score of every chunk; NaN where not scored (a partition not probed).
        `every`: score every chunk, whatever the layout."""
        return self.bundle.vectors.scores(vector, every=every)

    def search(self, query: str, *, top_k: int | None = None, mode: str | None = None,
               filters: dict[str, list[str]] | None = None,
               min_score: float | None = None, typing: bool = False,
               as_typed: bool = False) -> list[Result]:
        """The best sections for `query`; unset options take the bundle's defaults. See
        `answer` for `typing` and `as_typed`."""
        return self.answer(query, top_k=top_k, mode=mode, filters=filters,
                           min_score=min_score, typing=typing, as_typed=as_typed).results

    def answer(self, query: str, *, top_k: int | None = None, mode: str | None = None,
               filters: dict[str, list[str]] | None = None,
               min_score: float | None = None, typing: bool = False,
               as_typed: bool = False) -> Answer:
        """`search`, with the query as searched: its slipped words corrected and, when
        the reader is still `typing`, its half-typed last word completed
        (search/spelling.py); `as_typed`: exactly as typed."""
        reading, ranking = self.read_and_rank(query, top_k=top_k, mode=mode,
                                              filters=filters, min_score=min_score,
                                              typing=typing, as_typed=as_typed)
        return Answer(reading, self.results(ranking))

    def read_and_rank(self, query: str, *, top_k: int | None = None,
                      mode: str | None = None, filters: dict[str, list[str]] | None = None,
                      min_score: float | None = None, typing: bool = False,
                      as_typed: bool = False) -> tuple[Reading, Ranking]:
        """`answer` up to the fused order: the query as searched and its `Ranking`."""
        if not query.strip():
            raise ValueError("the query is empty: type a few words")
        mode = mode or self.defaults["mode"]
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
        reading = Reading(query, query) if as_typed else self.read(query, typing=typing)
        vector = self.embed(reading.text) if mode != "lexical" else None
        return reading, self.ranking(query=reading.text, vector=vector, mode=mode,
                                     top_k=top_k, filters=filters, min_score=min_score,
                                     typed=query)

    def read(self, query: str, *, typing: bool = False,
             words: WordSource | None = None,
             known: Callable[[list[str]], list[bool]] | None = None) -> Reading:
        """The query as it is searched (search/spelling.py); `words`: another reader of
        the bundle's vocabulary (a benchmark's, counting what it reads); `known`: another
        test of the tokens the site uses (a benchmark's; `known` below unless given)."""
        return read_query(query, words=words or self.bundle.vocabulary, typing=typing,
                          known=known or self.known,
                          model_word=lambda word: word in self.model_words)

    def known(self, tokens: list[str]) -> list[bool]:
        """For each token, whether the keyword index holds every term of it."""
        terms = [analyze(token) for token in tokens]
        held = dict(zip(flat := [t for ts in terms for t in ts],
                        self.bundle.lexical.holds(flat)))
        return [all(held[t] for t in ts) for ts in terms]

    @property
    def model_words(self) -> frozenset[str]:
        """The tokens of the model's tokenizer (its `model.vocab`), read once: the query
        encoder's copy in the bundle (or the site's encoder's, the same file)."""
        if self._model_words is None:
            encoders = self.bundle.catalog["encoders"]
            encoder = encoders.get(self.encoder) or encoders[self.bundle.manifest.query_encoder]
            self._model_words = tokenizer_words(self.bundle.root / encoder["tokenizer"][0])
        return self._model_words

    def search_vector(self, vector: np.ndarray | None, *, top_k: int = 10) -> list[Result]:
        """Plain exact nearest chunks for an already embedded query (see `embed`): score
        descending, ties by chunk number; no filters, no page-aware fusion."""
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        if vector is None:
            return []
        scores = self.scores(vector)
        order = chunk_order(scores, ~np.isnan(scores))[:top_k]
        self.bundle.prefetch(order)
        return [self._result(int(i), float(scores[i]), scores, None) for i in order]

    def rank(self, *, query: str, vector: np.ndarray | None, mode: str, top_k: int | None,
             filters: dict[str, list[str]] | None, min_score: float | None) -> list[Result]:
        return self.results(self.ranking(query=query, vector=vector, mode=mode, top_k=top_k,
                                         filters=filters, min_score=min_score))

    def ranking(self, *, query: str, vector: np.ndarray | None, mode: str,
                top_k: int | None, filters: dict[str, list[str]] | None,
                min_score: float | None, typed: str | None = None) -> Ranking:
        """The fused order of the best `top_k` sections (see `rank`); `typed`: what the
        reader typed, when `query` is its reading (LexicalIndex.scores)."""
        top_k = self.defaults["top_k"] if top_k is None else top_k
        if not 1 <= top_k <= MAX_TOP_K:
            raise ValueError(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}")
        if min_score is None:
            min_score = self.defaults.get("min_score")
        eligible = self.filter_mask(filters)
        signals: list[Signal] = []
        vector_scores = lexical_scores = None
        if mode in ("hybrid", "vector") and vector is not None:
            # A filter scores every partition holding an eligible chunk: the partitions
            # probed by distance alone could hold none, and a filtered query misses none.
            vector_scores = self.bundle.vectors.scores(
                vector, every=bool(filters), among=self.filter_partitions(filters))
            passing = eligible & ~np.isnan(vector_scores)
            signals.append(Signal(vector_scores,
                                  chunk_order(vector_scores, passing)[:VECTOR_CHUNKS],
                                  floor=self.bundle.vectors.mean_score(vector)))
        named: list[int] = []
        if mode in ("hybrid", "lexical"):
            lexical_scores = self.bundle.lexical.scores(query, full=bool(filters), typed=typed)
            order = chunk_order(lexical_scores, eligible & (lexical_scores > 0))
            signals.append(Signal(lexical_scores, order, floor=0.0,
                                  ceiling=self.bundle.lexical.possible(query),
                                  weight=keyword_weight(query)))
            if mode == "hybrid" and (name := heading_name(query)) is not None:
                named = named_sections(order, self._headings(order[:NAMED_HEADINGS]), name)
        fused = fuse(signals, page_of_chunk=self._page_of_chunk, sections=self._sections,
                     priors=self._priors, boosts=self._boosts, top_k=top_k,
                     min_score=min_score, named=named)
        return Ranking(fused, vector_scores, lexical_scores, query_terms(query))

    def _headings(self, chunks: Sequence[int] | np.ndarray) -> list[str]:
        """Each chunk's own heading as results show it (`section_heading`)."""
        self.bundle.prefetch(chunks)
        shown = [self.bundle.chunks[int(c)] for c in chunks]
        return [section_heading(c.title, c.shown_path) for c in shown]

    def results(self, ranking: Ranking, count: int | None = None) -> list[Result]:
        """The results of the first `count` sections of `ranking` (all by default)."""
        fused = ranking.fused if count is None else ranking.fused[:count]
        self.bundle.prefetch([r.chunk for r in fused])
        return [self._result(r.chunk, r.page_score, ranking.vector_scores,
                             ranking.lexical_scores, section_score=r.section_score,
                             terms=ranking.terms) for r in fused]

    def filter_partitions(self, filters: dict[str, list[str]] | None) -> list[int] | None:
        """The partitions that hold a chunk passing `filters` (partitioned layout, with a
        filter); None otherwise. The facets payload lists, per value, the partitions
        holding its pages' chunks: a filter's are those listed for one of its values,
        under every key."""
        if not filters or self.bundle.vectors.layout != "partitioned":
            return None
        listed = self.bundle.facets["partitions"]
        picked: set[int] | None = None
        for key, wanted in filters.items():
            held = listed_for(listed, key, wanted)
            picked = held if picked is None else picked & held
        return sorted(picked or ())

    def filter_mask(self, filters: dict[str, list[str]] | None) -> np.ndarray:
        """Chunks whose page matches every filter key (any of that key's values), from
        the facets payload's pages (as the browser client filters)."""
        mask = np.ones(len(self._page_of_chunk), dtype=bool)
        allowed = self.defaults.get("filters", ["section"])
        listed = self.bundle.facets["pages"]
        for key, wanted in (filters or {}).items():
            if key not in allowed:
                raise ValueError(f"unknown filter {key!r}: this bundle has "
                                 f"{', '.join(allowed)}")
            mask &= np.isin(self._page_of_chunk, list(listed_for(listed, key, wanted)))
        return mask

    def _result(self, chunk_id: int, score: float, vector_scores: np.ndarray | None,
                lexical_scores: np.ndarray | None, *,
                section_score: float | None = None, terms: Sequence[str] = ()) -> Result:
        chunk = self.bundle.chunks[chunk_id]
        shown = excerpt_window(parts_of(chunk.excerpt_parts), terms)
        return Result(
            chunk_id=chunk_id,
            url=chunk.url,
            anchor=chunk.link_anchor or chunk.anchor,  # the deep link results show
            title=chunk.title,
            path=list(chunk.shown_path),
            excerpt=window_text(shown),
            score=score,
            kind=chunk.kind,
            section=chunk.section,
            vector_score=None if vector_scores is None or np.isnan(vector_scores[chunk_id])
            else float(vector_scores[chunk_id]),
            lexical_score=None if lexical_scores is None else
            float(lexical_scores[chunk_id]) / self.bundle.lexical.scale,
            section_score=section_score,
        )


def tokenizer_words(path: Path) -> frozenset[str]:
    """The tokens a tokenizer.json's model holds: its `vocab` (a WordPiece or BPE map,
    or a Unigram list of [token, score]); none when it has no vocabulary."""
    import json

    try:
        vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BundleError(f"{path} is not a tokenizer with a vocabulary ({exc}): rebuild "
                          "the site") from exc
    if isinstance(vocab, dict):
        return frozenset(vocab)
    return frozenset(entry[0] for entry in vocab if isinstance(entry, list) and entry)


def listed_for(listed: dict, key: str, values: Sequence[str]) -> set[int]:
    """The numbers (pages or partitions) a facets map `{key: {value: [numbers]}}` lists
    for any of `values` (js/src/engine/engine.js listedFor)."""
    return {n for value in values for n in listed.get(key, {}).get(value, [])}


def main(argv: list[str] | None = None) -> int:
    """`python -m mkdocs_semantic.search SITE_DIR QUERY...`: print the top sections."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        print("usage: python -m mkdocs_semantic.search SITE_DIR QUERY...", file=sys.stderr)
        return 2
    searcher = Searcher.open(args[0])
    for result in searcher.search(" ".join(args[1:]), top_k=5):
        heading = " > ".join([result.title, *result.path])
        print(f"{result.score:6.3f}  {result.href:<50}  {heading}")
    return 0

