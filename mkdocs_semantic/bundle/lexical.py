"""Keyword search: a code-aware analyzer and a compact BM25 index written into the bundle.

BM25 (Lucene variant, k1=1.2, b=0.75) is computed at build time by bm25s over
field-weighted token lists (a term in a heading counts three times, in the page
title twice); words are stemmed with Snowball's Porter stemmer. The bundle stores,
per term, its postings with the BM25 score quantized to 1-255 under one scale; a
query's score is the integer sum of its terms' stored scores, so every reader
(Python, JavaScript) ranks identically.

Beside its terms the index keys the forms that sections write with a capital letter
(`RETURNING`, `Depends`, `HTTPException`, and the pieces of `fastapi.HTTPException`),
each listing the sections that hold it. A query that names something typed with
capitals (`cased_words`) wants that form: where a section does not write it, each of
that word's terms keeps half its score (`scores`). Prose queries and forms in more than
`HEAD_POSTINGS` sections are left as they are.

A term found in more than `HEAD_POSTINGS` chunks keeps only its `HEAD_POSTINGS`
highest-scoring postings (ties to the lower chunk number) in its shard, the head; the
rest, its tail, sits in a file of its own that a reader loads only for a filtered query.
So the bytes a query reads do not grow with the site: the postings left out are those
where a common word weighs least (static index pruning). An unfiltered query scores
with the heads, a filtered one with every posting, so a filter never misses a match.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..constants import LEXICAL_VERSION, STOPWORDS
from .cased_forms import cased_words, written_forms
from .names import json_bytes
from .shard_lists import ShardReader, bucket_of
from .tokens import SEPARATORS, TOKEN

SHARD_VERSION = LEXICAL_VERSION
"""Version of the sharded form (bundle format 11): shards of a keyed list, postings
addressed as (page, local), long posting lists cut into a head and a tail."""
HEAD_POSTINGS = 4096
"""Postings of a term an unfiltered query reads: about 15 kB gzip however common the term.
On 2,112 manual pages (25,440 chunks) heads of 4,096 ranked as every posting did, heads
of 2,048 and 1,024 cost 0.01 and 0.04 hybrid MRR@10 (a one-off measurement with
bench/fusion.py's manpages set)."""
K1 = 1.2
B = 0.75
FIELD_WEIGHTS = {"title": 2, "heading": 3, "body": 1}
MAX_QUANTUM = 255

# CamelCase parts: HTTPException -> HTTP, Exception; getJSONData -> get, JSON, Data.
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
ASCII_ALNUM = re.compile(r"^[A-Za-z0-9]+$")


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    # The original Porter algorithm: its Snowball form is frozen, so the JavaScript
    # port of the same generated code stems every word identically (checked on the
    # 9,473 words of the FastAPI docs); the newer English stemmer's ports disagree.
    return snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _stemmer().stemWord(word)


def split_parts(token: str) -> list[str]:
    """Parts of an identifier: at . _ : - and at CamelCase boundaries (ASCII only)."""
    parts: list[str] = []
    for piece in SEPARATORS.split(token):
        if not piece:
            continue
        if ASCII_ALNUM.match(piece):
            parts.extend(CAMEL.findall(piece) or [piece])
        else:
            parts.append(piece)
    return parts


def analyze(text: str) -> list[str]:
    """Text -> index terms. A compound identifier yields itself whole (lowercased, not
    stemmed) and its stemmed parts; a plain word yields its stem unless a stop word."""
    terms: list[str] = []
    for match in TOKEN.finditer(text):
        raw = match.group()
        parts = split_parts(raw)
        if len(parts) > 1:
            terms.append(raw.lower())
            words: Sequence[str] = [p.lower() for p in parts]
        else:
            words = [raw.lower()]
        terms.extend(t for t in (stem(w) for w in words if w not in STOPWORDS) if t)
    return terms


@dataclass(frozen=True)
class LexicalFields:
    """The text of one chunk, by field."""

    title: str
    heading: str
    body: str

    def weighted_terms(self) -> list[str]:
        terms: list[str] = []
        for name, text in (("title", self.title), ("heading", self.heading),
                           ("body", self.body)):
            terms.extend(analyze(text) * FIELD_WEIGHTS[name])
        return terms

    def written_forms(self) -> set[str]:
        """The forms with a capital letter the chunk writes, in any field."""
        return set().union(*(written_forms(text) for text in (self.title, self.heading,
                                                              self.body)))


def head_of(docs: np.ndarray, quanta: np.ndarray, size: int = HEAD_POSTINGS) -> np.ndarray:
    """The positions of a posting list's head: its `size` highest scores, ties to the
    lower chunk number, in chunk order."""
    if len(docs) <= size:
        return np.arange(len(docs))
    return np.sort(np.lexsort((docs, -quanta))[:size])


def cased_postings(documents: Sequence[LexicalFields]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each form the documents write with a capital letter -> those documents (quanta 1):
    the forms that analyze to some term and that at most HEAD_POSTINGS documents write."""
    holders: dict[str, list[int]] = {}
    for number, document in enumerate(documents):
        for form in document.written_forms():
            holders.setdefault(form, []).append(number)
    return {form: (np.asarray(docs, dtype=np.int32), np.ones(len(docs), dtype=np.int32))
            for form, docs in holders.items() if len(docs) <= HEAD_POSTINGS and analyze(form)}


@dataclass
class LexicalIndex:
    """Term -> (chunk ids ascending, quantized BM25 scores), every posting; `heads`: for
    the terms that have a tail, the postings of their head."""

    count: int
    scale: float
    postings: dict[str, tuple[np.ndarray, np.ndarray]]
    heads: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    head: int = 0
    """Postings a term keeps in its head (HEAD_POSTINGS unless given)."""
    source: _ShardSource | None = field(default=None, repr=False, compare=False)
    """Read from shards: where the rest of them (lazily) and the tails come from."""

    def __post_init__(self) -> None:
        self.head = self.head or HEAD_POSTINGS
        if not self.heads:
            for term, (docs, quanta) in self.postings.items():
                if len(docs) > self.head:
                    at = head_of(docs, quanta, self.head)
                    self.heads[term] = (docs[at], quanta[at])

    @classmethod
    def build(cls, documents: Sequence[LexicalFields]) -> LexicalIndex:
        import bm25s

        corpus = [doc.weighted_terms() for doc in documents]
        if not any(corpus):
            return cls(count=len(corpus), scale=1.0, postings={})
        retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
        retriever.index(corpus, show_progress=False)
        data = np.asarray(retriever.scores["data"], dtype=np.float64)
        indices = np.asarray(retriever.scores["indices"], dtype=np.int64)
        indptr = np.asarray(retriever.scores["indptr"], dtype=np.int64)
        peak = float(data.max()) if data.size else 0.0
        scale = MAX_QUANTUM / peak if peak > 0 else 1.0
        postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, column in retriever.vocab_dict.items():
            if not term or column + 1 >= len(indptr):
                continue  # bm25s's placeholder for empty documents
            start, end = indptr[column], indptr[column + 1]
            order = np.argsort(indices[start:end], kind="stable")
            docs = indices[start:end][order]
            quanta = np.clip(np.rint(data[start:end][order] * scale), 1, MAX_QUANTUM)
            postings[term] = (docs.astype(np.int32), quanta.astype(np.int32))
        postings.update(cased_postings(documents))
        return cls(count=len(corpus), scale=scale, postings=postings)

    def scores(self, query: str, *, full: bool = False, typed: str | None = None) -> np.ndarray:
        """Quantized BM25 of every chunk for `query` (integers, as float64), from the
        terms' heads; `full`: from every posting (a filtered query). Each of the query's
        `cased_words` that some section writes asks for it: each of its terms keeps half
        its score (rounded up) in a section that writes none of the query's cased words
        holding that term. When `query` is a reading of what the reader `typed`, only the
        words typed so count (a corrected or completed word takes the site's capitals,
        not the reader's)."""
        total = np.zeros(self.count, dtype=np.int64)
        terms = list(dict.fromkeys(analyze(query)))
        cased = cased_words(query)
        if typed is not None:
            as_typed = set(cased_words(typed))
            cased = [word for word in cased if word in as_typed]
        if self.source is not None:
            self.source.need(self, terms + cased, full=full)
        for term in terms:
            self._add(total, term, full)
        # a term of the cased words is halved once, where no section writes one of those
        # words holding it as typed; a word no section writes asks nothing
        kept: dict[str, np.ndarray] = {}
        for word in cased:
            written = self.postings.get(word)
            if written is None:
                continue
            for term in analyze(word):
                if term not in kept:
                    kept[term] = np.zeros(self.count, dtype=bool)
                kept[term][written[0]] = True
        for term, writes in kept.items():
            own = np.zeros(self.count, dtype=np.int64)
            self._add(own, term, full)
            own[writes] = 0
            total -= own // 2
        return total.astype(np.float64)

    def _add(self, total: np.ndarray, term: str, full: bool) -> None:
        """`term`'s quanta added to `total`: from its head, or with `full` every posting."""
        hit = self.postings.get(term) if full else self.heads.get(term, self.postings.get(term))
        if hit is not None:
            total[hit[0]] += hit[1]

    def holds(self, terms: Sequence[str]) -> list[bool]:
        """For each term, whether the index has it (reading the shards that would)."""
        if self.source is not None:
            self.source.need(self, list(dict.fromkeys(terms)), full=False)
        return [term in self.postings for term in terms]

    def possible(self, query: str) -> float:
        """The best score a chunk could get for `query`: the sum, over the query's
        distinct terms in the index, of each term's highest stored score (search/ranking.py
        scales keyword scores by it)."""
        best = 0
        terms = list(dict.fromkeys(analyze(query)))
        if self.source is not None:
            self.source.need(self, terms, full=False)  # a head holds its term's best score
        for term in terms:
            hit = self.postings.get(term)
            if hit is not None and len(hit[1]):
                best += int(hit[1].max())
        return float(best)

    def to_shards(self, starts: np.ndarray, *, target_bytes: int,
                  put_tail: Callable[[bytes], list]) -> list[dict]:
        """The index spread by term over the shards of a keyed list (shard_lists.bucket_of),
        as many as hold `target_bytes` of JSON on average, so that a reader names a term's
        shard from the term alone.

        A shard is `{"terms": [...], "postings": [[page delta, local, quantum, ...], ...],
        "tails": [[i, name, bytes], ...]}`, terms ascending: each posting names its chunk
        by page number and position on the page (`starts[page] + local`), so a page edit
        that keeps other pages' chunk counts leaves their postings unchanged; a term with
        a tail lists its head, and `tails` names the file that `put_tail(data)` wrote for
        its term number `i` (a flat list of the rest, in the same form).
        """
        rows: dict[str, tuple[list[int], list | None]] = {}
        for term in sorted(self.postings):
            docs, quanta = self.postings[term]
            kept = self.heads.get(term)
            if kept is None:
                rows[term] = (_flat(docs, quanta, starts), None)
            else:
                rest = np.ones(len(docs), dtype=bool)
                rest[np.searchsorted(docs, kept[0])] = False
                rows[term] = (_flat(*kept, starts),
                              put_tail(json_bytes(_flat(docs[rest], quanta[rest], starts))))
        total = sum(len(term) + 8 + 4 * len(flat) for term, (flat, _) in rows.items())
        return [{"terms": terms, "postings": [rows[term][0] for term in terms],
                 "tails": [[i, *tail] for i, term in enumerate(terms)
                           if (tail := rows[term][1]) is not None]}
                for terms in _spread(rows, max(1, min(len(rows), -(-total // target_bytes))))]

    @classmethod
    def from_shards(cls, shards: Sequence[object], *, starts: np.ndarray, count: int,
                    scale: float, head: int,
                    read_tail: Callable[[str, int], object]) -> LexicalIndex:
        """The inverse of `to_shards` over all shards (heads of `head` postings), reading
        each tail with `read_tail(name, bytes)` (raises ValueError when malformed)."""
        index = cls(count=count, scale=scale, postings={}, head=head)
        source = _ShardSource(starts=starts, read_tail=read_tail)
        for shard in shards:
            source.add(index, shard, tails=True)
        return index

    @classmethod
    def lazy(cls, shards: ShardReader, *, starts: np.ndarray, count: int, scale: float,
             head: int, read_tail: Callable[[str, int], object],
             failed: Callable[[ValueError], Exception]) -> LexicalIndex:
        """The index of `to_shards`' shards, each read (through `shards`) when a query
        first has one of its terms, and each tail when a filtered query first needs it;
        a malformed one raises `failed(the ValueError)` then."""
        return cls(count=count, scale=scale, postings={}, head=head,
                   source=_ShardSource(starts=starts, read_tail=read_tail, shards=shards,
                                       failed=failed))


class _ShardSource:
    """Fills a LexicalIndex from its shards: all at once (`from_shards`), or the shards of
    a query's terms when it first asks (`lazy`)."""

    def __init__(self, *, starts: np.ndarray, read_tail: Callable[[str, int], object],
                 shards: ShardReader | None = None,
                 failed: Callable[[ValueError], Exception] | None = None) -> None:
        self.starts = starts
        self.read_tail = read_tail
        self.shards = shards
        self.failed = failed
        self.added: set[int] = set()
        self.tails: dict[str, tuple[str, int]] = {}
        """Lazily read: the tails not read yet, by term."""
        self.lock = threading.Lock()

    def need(self, index: LexicalIndex, terms: list[str], *, full: bool) -> None:
        """The shards holding `terms` (and with `full` their tails) added to `index`."""
        if self.shards is None:
            return
        self.shards.prefetch(terms)  # outside the lock: the shards come down together
        with self.lock:
            try:
                for term in terms:
                    number = self.shards.position(term)
                    if number >= 0 and number not in self.added:
                        self.add(index, self.shards.shard(number), tails=False)
                        self.added.add(number)
                    if full and term in self.tails:
                        self.merge_tail(index, term, *self.tails[term])
                        del self.tails[term]
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                problem = exc if isinstance(exc, ValueError) else ValueError(str(exc))
                raise (self.failed(problem) if self.failed else problem) from exc

    def add(self, index: LexicalIndex, shard: object, *, tails: bool) -> None:
        """One shard's terms into `index`, with their tails read now (`tails`) or noted."""
        if not isinstance(shard, dict):
            raise ValueError("a keyword index shard is not an object")
        terms = shard["terms"]
        for term, flat in zip(terms, shard["postings"], strict=True):
            if not isinstance(term, str):
                raise ValueError(f"term {term!r} is not a string")
            index.postings[term] = _unflat(term, flat, self.starts, index.count)
        for entry in shard["tails"]:
            if not (isinstance(entry, list) and len(entry) == 3
                    and isinstance(entry[0], int) and 0 <= entry[0] < len(terms)):
                raise ValueError(f"a tail entry {str(entry)[:60]} names no term")
            term = terms[entry[0]]
            if len(index.postings[term][0]) != index.head:
                raise ValueError(f"{term!r} has a tail but not a full head")
            index.heads[term] = index.postings[term]
            if tails:
                self.merge_tail(index, term, entry[1], entry[2])
            else:
                self.tails[term] = (entry[1], entry[2])
        for term in terms:
            if term not in index.heads and len(index.postings[term][0]) > index.head:
                raise ValueError(f"{term!r} lists more than {index.head} postings and no tail")

    def merge_tail(self, index: LexicalIndex, term: str, name: str, size: int) -> None:
        head_postings = index.heads[term]
        tail = _unflat(term, self.read_tail(name, size), self.starts, index.count)
        docs = np.concatenate([head_postings[0], tail[0]])
        order = np.argsort(docs, kind="stable")
        if np.any(np.diff(docs[order]) == 0):
            raise ValueError(f"the head and tail of {term!r} share a chunk")
        index.postings[term] = (docs[order], np.concatenate([head_postings[1], tail[1]])[order])


def _spread(rows: Mapping[str, object], count: int) -> list[list[str]]:
    """The terms of `rows` (ascending) in `count` keyed shards, by bucket_of."""
    shards: list[list[str]] = [[] for _ in range(count)]
    for term in rows:
        shards[bucket_of(term, count)].append(term)
    return shards


def _flat(docs: np.ndarray, quanta: np.ndarray, starts: np.ndarray) -> list[int]:
    pages = np.searchsorted(starts, docs, side="right") - 1
    local = docs - starts[pages]
    return np.stack([np.diff(pages, prepend=0), local, quanta], axis=1).ravel().tolist()


def _unflat(term: str, flat: object, starts: np.ndarray,
            count: int) -> tuple[np.ndarray, np.ndarray]:
    """Postings from their flat form; ValueError when they name no real chunk."""
    if not isinstance(flat, list):
        raise ValueError(f"the postings of {term!r} are not a list")
    rows = np.asarray(flat, dtype=np.int64).reshape(-1, 3)
    pages = np.cumsum(rows[:, 0])
    if len(rows) and (pages.min() < 0 or pages.max() >= len(starts) - 1):
        raise ValueError(f"postings of {term!r} name a page that does not exist")
    docs = starts[pages] + rows[:, 1]
    if len(rows) and (docs.min() < 0 or docs.max() >= count
                      or np.any(docs >= starts[pages + 1])):
        raise ValueError(f"postings of {term!r} name a chunk that does not exist")
    return docs.astype(np.int32), rows[:, 2].astype(np.int32)
