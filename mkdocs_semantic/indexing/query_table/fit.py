"""The static query encoder's table, fitted at build time on the site's own text.

The recipe (measured in bench/static_encoder.py against the alternatives, on three
sets): training texts are the chunks, whose model vectors the build already has, plus
up to `max_short` page/heading lines and up to `max_short` sentences of the site,
embedded once and cached like the chunks; the prior of every token is the model's
vector of that token alone; IDF weights; ridge strength `lam`. The fitted table is cached by a
hash of everything it depends on, so a rebuild with no change refits nothing.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ...bundle.table import TokenTable
from ...chunk import Chunk
from ...files import MiB, atomic_write, open_regular
from ...logs import build_log as log
from .ridge import StaticTable, TokenStats, TokenWeights, design_matrix, fit_table, prior_table
from .texts import headings_of, sentences_of, spread_sample, training_spans

TABLE_CACHE_VERSION = 2
TABLE_CACHE_MAX_BYTES = 256 * MiB
"""Every token of a 250k-token vocabulary at 1,024 int8 dimensions fits."""
SOLVE_LOG_TOKENS = 2000
"""A solve over this many tokens takes long enough to say so in the log first."""
SOLVE_BLAS_THREADS = 1
"""BLAS threads of the solve. Its LAPACK calls are on 256 x 256 blocks, where
OpenBLAS's threads cost far more than they share: on a 2-core machine, fastapi-docs'
solve took 1.9-2.1 s on one thread against 3.1-6.1 s on two (load average 2), the
same int8 table (the float32 rows within 2e-9)."""
SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[PAD]", "[UNK]")
REFIT_DRIFT = 0.05
"""The share of the site's section texts (new, changed or gone) since the table's fit
past which a build fits it anew. Below it the table is kept as it is, so that an edit
renames none of its rows (a deploy uploads none of them); words new since the fit have
no rows until then. `mkdocs build` of a site whose text moved more fits it anew."""
TEXT_DIGEST_BYTES = 8


@dataclass(frozen=True)
class Drift:
    """How far the site's section texts moved since the kept table's fit."""

    changed: int
    """Texts new or changed since the fit: the larger of the texts it did not see and
    the texts it saw that are gone (an edited text is one of each)."""
    texts: int
    """Texts the fit saw."""

    @property
    def share(self) -> float:
        return self.changed / max(self.texts, 1)


@dataclass(frozen=True)
class TableRecipe:
    """How the table is fitted (the defaults are the measured choice)."""

    texts: tuple[str, ...] = ("chunks", "headings", "sentences")
    lam: float = 0.01
    weighting: str = "idf"
    max_short: int = 1000
    """Cap on the headings and on the sentences (an even spread over the site)."""
    max_spans: int = 2000
    """How many spans of sentences (query-shaped texts) when `texts` names them."""


class TableFitter:
    """Fits the table for one build, asking the model only for what no cache holds.

    `embed_texts(texts)` returns the model's document vectors of `texts` (cached by the
    caller), `embed_tokens(ids)` the model's vector of each token id alone.
    `before_solve()`, if given, is called once everything is embedded and before the
    solve (the caller may free the model there).
    """

    def __init__(self, *, tokenizer, embed_texts: Callable[[list[str]], np.ndarray],
                 embed_tokens: Callable[[list[int]], np.ndarray], cache_path: Path | None,
                 document_prefix: str = "", recipe: TableRecipe | None = None,
                 before_solve: Callable[[], None] | None = None) -> None:
        self.tokenizer = tokenizer
        self.before_solve = before_solve
        self.embed_texts = embed_texts
        self.embed_tokens = embed_tokens
        self.cache_path = cache_path
        self.prefix = document_prefix
        self.recipe = recipe or TableRecipe()
        self.special = [i for t in SPECIAL_TOKENS if (i := tokenizer.token_to_id(t)) is not None]
        self.refitted = False
        """Whether the last `fit` solved anew (False: the cached table matched)."""
        self.kept = False
        """Whether the last `fit` kept the table before it (`keep_last`), unchecked."""
        self.drift: Drift | None = None
        """When the last `fit` kept a table fitted on other texts, how far they moved."""
        self.last: TokenTable | None = None

    def short_texts(self, chunks: Sequence[Chunk]) -> dict[str, list[str]]:
        return {kind: self.texts_of(kind, chunks) for kind in self.recipe.texts
                if kind != "chunks"}

    def texts_of(self, kind: str, chunks: Sequence[Chunk]) -> list[str]:
        """The training texts of one kind of the recipe's besides the chunks."""
        if kind == "spans":
            return training_spans(chunks, self.recipe.max_spans)
        kinds = {"headings": headings_of, "sentences": sentences_of}
        return spread_sample(kinds[kind](chunks), self.recipe.max_short)

    def text_weights(self, chunks: int, short: dict[str, list[str]]) -> np.ndarray | None:
        """Each training text's weight in the fit, chunks first then the short texts in
        `short`'s order; None: all weigh 1."""
        return None

    def keeps_last(self, keep_last: bool) -> bool:
        """Whether `fit(..., keep_last=keep_last)` returns the last table unchecked."""
        return keep_last and self.last is not None

    def fit(self, chunks: Sequence[Chunk], vectors: np.ndarray, *,
            fingerprint: str, keep_last: bool = False) -> TokenTable:
        """The int8 table for these chunks and their vectors.

        `keep_last`: return the table this fitter made or loaded before, if any, without
        checking it against the chunks (for previews, where a refit per edit costs more
        than a slightly stale table).
        """
        self.kept = self.keeps_last(keep_last)
        if self.kept:
            assert self.last is not None  # keeps_last
            self.refitted = False
            return self.last
        self.last = self._fit(chunks, vectors, fingerprint=fingerprint)
        return self.last

    def _fit(self, chunks: Sequence[Chunk], vectors: np.ndarray, *,
             fingerprint: str) -> TokenTable:
        short = self.short_texts(chunks)
        key = self._key(chunks, short, fingerprint)
        base = self._base(fingerprint)
        digests = text_digests(chunks)
        self.drift = None
        cached, drift = self._load(key, base, digests)
        if cached is not None:
            self.drift = drift
            # Keep the short texts' and tokens' vectors alive in the embedding cache.
            self.embed_texts([t for texts in short.values() for t in texts])
            self.embed_tokens(cached.token_ids.tolist())
            self.refitted = False
            return cached
        sequences = [e.ids for e in self.tokenizer.encode_batch(
            [self.prefix + c.embed_text for c in chunks])]
        targets = [np.asarray(vectors, dtype=np.float32)]
        for texts in short.values():
            sequences += [e.ids for e in self.tokenizer.encode_batch(
                [self.prefix + t for t in texts])]
            targets.append(self.embed_texts(texts) if texts
                           else np.zeros((0, targets[0].shape[1]), np.float32))
        stats = TokenStats.of(sequences, self.special)
        weights = TokenWeights(stats.token_ids, stats.weights(self.recipe.weighting))
        prior = prior_table(stats.token_ids, self.embed_tokens(stats.token_ids.tolist())
                            if len(stats.token_ids) else np.zeros((0, targets[0].shape[1])))
        design = design_matrix(sequences, special_ids=self.special, weights=weights)
        if self.before_solve is not None:
            self.before_solve()
        if len(stats.token_ids) >= SOLVE_LOG_TOKENS:
            log.info("query table: solving for %s tokens", f"{len(stats.token_ids):,}")
        with threadpool_limits(limits=SOLVE_BLAS_THREADS, user_api="blas"):
            fitted = fit_table(design, np.concatenate(targets), lam=self.recipe.lam,
                               prior=prior, weights=weights,
                               sample_weight=self.text_weights(len(chunks), short))
        table = _as_token_table(fitted.quantize())
        self._save(key, table, base=base, texts=digests)
        self.refitted = True
        return table

    def _base(self, fingerprint: str) -> str:
        """What a table depends on besides the site's text: the model and the recipe."""
        return f"{TABLE_CACHE_VERSION}|{fingerprint}|{asdict(self.recipe)}"

    def _key(self, chunks: Sequence[Chunk], short: dict[str, list[str]],
             fingerprint: str) -> str:
        digest = hashlib.sha256()
        digest.update(self._base(fingerprint).encode())
        for chunk in chunks:
            digest.update(b"\0c" + chunk.embed_text.encode())
        for kind, texts in short.items():
            for text in texts:
                digest.update(f"\0{kind}".encode() + text.encode())
        return digest.hexdigest()

    def _load(self, key: str, base: str, texts: np.ndarray
              ) -> tuple[TokenTable | None, Drift | None]:
        """The cached table if it was fitted on exactly these texts (no drift), or on texts
        within REFIT_DRIFT of them with the same model and recipe (their drift)."""
        path = self.cache_path
        if path is None or not os.path.lexists(path):
            return None, None
        try:
            # our own handle: np.load leaves its file open when the file is no archive
            with open_regular(path, max_bytes=TABLE_CACHE_MAX_BYTES) as fh, \
                    np.load(fh, allow_pickle=False) as data:
                drift = None
                if str(data["key"]) != key:
                    if "base" not in data or str(data["base"]) != base:
                        return None, None
                    drift = drift_between(data["texts"], texts)
                    if drift.share > REFIT_DRIFT:
                        return None, None
                elif "texts" in data:  # kept before: still fitted on other texts
                    drift = drift_between(data["texts"], texts)
                    drift = drift if drift.changed else None
                cached_key = str(data["key"])
                table = TokenTable(token_ids=data["token_ids"].astype(np.uint32),
                                   rows=data["rows"].astype(np.int8),
                                   scale=float(data["scale"]))
                fitted_on = texts if drift is None else data["texts"]
        except Exception as exc:  # a broken cache costs a refit, never a build
            log.warning("ignoring unreadable query table cache %s (%s); fitting "
                        "anew", self.cache_path, exc)
            return None, None
        ok = (table.rows.ndim == 2 and len(table.rows) == len(table.token_ids)
              and np.isfinite(table.scale) and table.scale > 0)
        if not ok:
            return None, None
        if drift is not None and cached_key != key:  # the next build's drift: from the fit
            self._save(key, table, base=base, texts=fitted_on)
        return table, drift

    def _save(self, key: str, table: TokenTable, *, base: str, texts: np.ndarray) -> None:
        if self.cache_path is None:
            return
        buffer = io.BytesIO()
        np.savez(buffer, key=np.array(key), token_ids=table.token_ids, rows=table.rows,
                 scale=np.array(table.scale), base=np.array(base),
                 texts=np.asarray(texts, dtype=np.uint64))
        try:
            atomic_write(self.cache_path, buffer.getvalue())
        except OSError as exc:
            log.warning("could not save the query table cache (%s)", exc)


def text_digests(chunks: Sequence[Chunk]) -> np.ndarray:
    """The distinct section texts the table is fitted on, as sorted 64-bit digests."""
    digests = {int.from_bytes(hashlib.blake2b(c.embed_text.encode(),
                                              digest_size=TEXT_DIGEST_BYTES).digest(), "little")
               for c in chunks}
    return np.array(sorted(digests), dtype=np.uint64)


def drift_between(fitted: np.ndarray, now: np.ndarray) -> Drift:
    """How many texts differ between those a table was fitted on and this build's."""
    fitted = np.asarray(fitted, dtype=np.uint64)
    now = np.asarray(now, dtype=np.uint64)
    common = len(np.intersect1d(fitted, now, assume_unique=True))
    return Drift(changed=max(len(now), len(fitted)) - common, texts=len(fitted))


def _as_token_table(table: StaticTable) -> TokenTable:
    return TokenTable(token_ids=table.token_ids.astype(np.uint32),
                      rows=np.ascontiguousarray(table.rows, dtype=np.int8),
                      scale=float(table.scale))
