"""Page-aware fusion of rankings: the ranking spec every reader implements.

A reader wants the right page first, then the right section on it. So:

1. Each signal (vector, lexical) orders the chunks that pass the filters: score
   descending, ties by chunk number. Lexical takes only positive scores, vector its
   first `VECTOR_CHUNKS` chunks (what a page beyond them would add is too little to
   move the top results: measured on every relevance set, bench/results/fusion.md; it
   is also what the partitioned layout scores exactly).
2. A signal's page list follows from its chunk order: pages in the order of their
   best chunk, the first `PAGE_DEPTH` pages, each with its best chunk's score.
3. Each signal's page scores are scaled to 0-1 for this query: (score - floor) /
   (ceiling - floor), clipped to 0-1. Keywords: floor 0, ceiling the query's best
   possible score (the sum of each query term's highest stored score), so a page's
   keyword score is the share of the query's keyword evidence it carries: 1 for a page
   that matches every query term as well as any page does, little for one that shares
   only common words. Vector: floor the query's mean score over every chunk (what an
   unrelated chunk scores, exact in every layout: see `VectorSet.mean_score`), ceiling
   the score of its first page, so the best vector page counts 1 and a page no closer
   than an average chunk counts 0. When the ceiling is not above the floor every listed
   page counts 1. Keyword scores are absolute because a query's keywords have a best
   possible score; cosines have none, so the vector signal is relative to its best
   page. This is what keeps a weak keyword signal (a paraphrase whose words match many
   pages a little) from outvoting a clear vector winner, while a query whose rare terms
   a page matches in full still counts fully (measured on six sets with both query
   encoders: bench/results/fusion.md).
4. Page relevance = min(1, weighted mean over signals of the page's scaled score x
   prior x boost). The mean is over the signals that ranked anything (a page a signal
   does not list counts 0 there), so it is the share of the best possible: 1 for the
   best vector page when it also matches every query term in full. Each signal weighs 1,
   except the keyword signal of a query that names something (`names_a_thing`: at most
   `NAME_WORDS` words, one of them shaped like code: `custom_dir`, `--reload`,
   `gh-deploy`, `TaskGroup`, `CREATE STATISTICS`), which weighs `NAME_KEYWORD_WEIGHT`:
   the model knows what such a name is about, not where the site defines it, and
   readers who type one want the pages that hold it (measured on six sets with both
   query encoders: docs/decisions/exact-names.md). `boost` is the page's
   `search.boost` meta (1 by default): it multiplies what the page already scores, so a
   boosted page rises where it matches and does not surface where it does not. `prior`
   is min(1, sqrt(SIZE_MARGIN * typical / chunks on page)), `typical` being the 90th
   percentile of chunks per page (sorted sizes, element floor(0.9 * (n - 1))). Pages
   made of very many short entries (release notes, changelogs) match most queries a
   little; the prior keeps them from outranking focused pages, and only pages several
   times larger than nearly all others are damped. Pages are ordered by the unclipped
   product, so boosted pages that both reach 1 keep their order.
5. A section's relevance (which orders sections within a page) is the mean over
   the same signals of its own chunk's scaled score.
6. `min_score` (when set) drops the pages whose relevance is below it.
7. Output: pages by relevance descending (ties by page number), each with up to
   `PER_PAGE` of its sections by section relevance descending (ties by chunk
   number), until `top_k` sections. Of the pieces of one long section only the
   best is listed: `sections` gives each chunk its section's number (the number
   of the section's first piece).
8. A name in a heading goes first (hybrid mode). When the query names something
   (`heading_name`) and some of the keyword order's first `NAMED_HEADINGS` sections
   write that name, as typed, in their own heading (`named_sections`, `writes_name`:
   `Depends` in "Import `Depends`"), the best-ranked page holding one goes first, with
   the first page's relevance, and its best-ranked such section first on it, with the
   relevance of that page's best section; everything else keeps the order of step 7.
   A reader who types a name the docs head a section with wants that section, whatever
   the vector signal says (docs/decisions/exact-names.md).

Relevance is relative to the query: it says how close a page comes to the best
vector match this query found and how much of its keywords the page holds, not
whether anything relevant exists.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..bundle.cased_forms import cased_words
from ..constants import (
    NAME_KEYWORD_WEIGHT,
    NAME_WORDS,
    NAMED_HEADINGS,
    PAGE_DEPTH,
    PER_PAGE,
    SIZE_MARGIN,
    TYPICAL_QUANTILE,
)

CODE_SHAPED = re.compile(
    r"[_.:-][A-Za-z0-9_]|^[-!@$<]|[a-z][A-Z]|[A-Z]{2}[a-z]|^[A-Z][A-Z0-9_]+$|\(\)")
"""A word shaped like code: a separator inside (`custom_dir`, `json.dumps`, `gh-deploy`),
a flag or sigil in front (`--reload`, `!ENV`, `$PREFIX`, `<alias>`), camelCase or
CamelCase with an initialism (`prepublishOnly`, `ETag`), ALL CAPITALS (`EPOLLET`,
`CREATE`), or a call (`gather()`).
(JavaScript: the same pattern, js/src/engine/ranking.js)"""
QUOTES = "`'\"*"
NAME_QUOTES = "`'\""
"""What a name typed as code may be wrapped in (step 8)."""
SPACES = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f"
                    "\u3000\ufeff]+")
"""What separates words: JavaScript's `\\s`, so both readers count the same words."""


@dataclass(frozen=True)
class Ranked:
    """One section in the fused order, with its page's and its own relevance (0-1)."""

    chunk: int
    page_score: float
    section_score: float


@dataclass(frozen=True)
class Signal:
    """One signal's chunk scores and its order of the eligible chunks (`chunk_order`).

    A page's score in this signal is (its best chunk's score - `floor`) / (`ceiling` -
    `floor`), clipped to 0-1; `ceiling` None: the score of the signal's first page.
    `weight`: the signal's weight in the fused mean (step 4).
    """

    scores: np.ndarray
    order: np.ndarray
    floor: float
    ceiling: float | None = None
    weight: float = 1.0


def names_a_thing(query: str) -> bool:
    """Whether `query` is a name rather than a question: at most `NAME_WORDS` words, one
    of them (without quotes around it) shaped like code."""
    words = [word for word in SPACES.split(query) if word]
    return 0 < len(words) <= NAME_WORDS and any(
        CODE_SHAPED.search(word.strip(QUOTES)) for word in words)


def keyword_weight(query: str) -> float:
    """The keyword signal's weight in the fusion for `query` (step 4)."""
    return NAME_KEYWORD_WEIGHT if names_a_thing(query) else 1.0


def heading_name(query: str) -> str | None:
    """The name a query types, for step 8: when it names something (`names_a_thing`, or
    words typed with deliberate capitals: `cased_words`), the query without quotes around
    it, a trailing `()`, backticks (headings are read without theirs) or extra spaces;
    None for any other query."""
    if not (names_a_thing(query) or cased_words(query)):
        return None
    inner = _words(query).strip(NAME_QUOTES).removesuffix("()")
    return _words(inner.replace("`", "")) or None


def _words(text: str) -> str:
    """`text`'s words (split as `SPACES` splits), one space between them."""
    return " ".join(word for word in SPACES.split(text) if word)


def writes_name(heading: str, name: str) -> bool:
    """Whether `heading`, its backticks dropped, writes `name` as typed (case kept), as
    whole words: not inside a longer word, identifier or flag."""
    bounded = rf"(?<![A-Za-z0-9_-]){re.escape(name)}(?![A-Za-z0-9_-])"
    return re.search(bounded, heading.replace("`", "")) is not None


def section_heading(title: str, path: Sequence[str]) -> str:
    """A section's own heading: the last of its heading path, or its page's title."""
    return path[-1] if path else title


def named_sections(order: Sequence[int] | np.ndarray, headings: Sequence[str],
                   name: str | None) -> list[int]:
    """Step 8's sections: of `order`'s first `NAMED_HEADINGS` chunks, whose headings
    (`section_heading`) `headings` gives in the same order, those that write `name`."""
    if name is None:
        return []
    return [int(chunk) for chunk, heading in zip(order[:NAMED_HEADINGS], headings)
            if writes_name(heading, name)]


def size_priors(page_of_chunk: np.ndarray, pages: int) -> np.ndarray:
    """Per-page size prior (1 for all but outsized pages)."""
    if len(page_of_chunk) == 0:
        return np.ones(pages)
    sizes = np.bincount(page_of_chunk, minlength=pages)
    present = np.sort(sizes[sizes > 0])
    typical = float(max(1, present[int(TYPICAL_QUANTILE * (len(present) - 1))]))
    # sqrt, not ** 0.5: IEEE sqrt is exact in every language, pow need not be.
    return np.minimum(1.0, np.sqrt(SIZE_MARGIN * typical / np.maximum(sizes, 1)))


def _lead_page(named: Sequence[int], page_order: list[int], candidates: np.ndarray,
               page_of_chunk: np.ndarray) -> int | None:
    """Step 8's page: the position in `candidates` of the best-ranked page (`page_order`,
    best first) holding one of the `named` sections; None if none does."""
    pages = {int(page_of_chunk[chunk]) for chunk in named}
    return next((at for at in page_order if int(candidates[at]) in pages), None)


def _lead_first(section_order: list[int], chunks: np.ndarray, section: np.ndarray,
                named: Sequence[int]) -> list[int]:
    """Step 8 on its page: `section_order` (positions in `chunks`, best first) with the
    best-ranked `named` section first, given the first one's relevance in `section`."""
    own = next(i for i in section_order if int(chunks[i]) in named)
    section[own] = section[section_order[0]]
    return [own] + [i for i in section_order if i != own]


def _unit(values: np.ndarray) -> np.ndarray:
    """Clipped to 0-1 (max, then min: the order ranking.js uses)."""
    return np.minimum(1.0, np.maximum(0.0, values))


def chunk_order(scores: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """Eligible chunk numbers, score descending, ties by number."""
    candidates = np.flatnonzero(eligible)
    return candidates[np.lexsort((candidates, -scores[candidates]))]


def fuse(signals: Sequence[Signal], *, page_of_chunk: np.ndarray, sections: np.ndarray,
         priors: np.ndarray, boosts: np.ndarray, top_k: int,
         min_score: float | None = None, named: Sequence[int] = ()) -> list[Ranked]:
    """Fuse the signals into the page-aware result list (steps 2-8 above; `named`: step
    8's sections, chunks the keyword signal orders, best first).

    Vectorized, but every score is the same arithmetic, in the same order, as
    ranking.js: per signal weight * min(1, max(0, (score - floor) / (ceiling - floor)));
    sums signal by signal from 0.0; then / the sum of the weights * prior * boost.
    """
    pages = len(priors)
    taking_part = [s for s in signals if len(s.order)]
    page_sum = np.zeros(pages)
    section_sum = np.zeros(len(page_of_chunk))
    page_seen = np.zeros(pages, dtype=bool)
    chunk_seen = np.zeros(len(page_of_chunk), dtype=bool)
    for signal in taking_part:
        order = signal.order
        # Pages in the order of their best chunk: first occurrence in the chunk order.
        in_order, first = np.unique(page_of_chunk[order], return_index=True)
        by_rank = np.argsort(first, kind="stable")[:PAGE_DEPTH]
        listed_pages = in_order[by_rank]
        best = signal.scores[order[first[by_rank]]]
        floor = signal.floor
        ceiling = best[0] if signal.ceiling is None else signal.ceiling
        span = ceiling - floor
        weight = signal.weight
        if span > 0:
            page_sum[listed_pages] += weight * _unit((best - floor) / span)
            section_sum[order] += weight * _unit((signal.scores[order] - floor) / span)
        else:
            page_sum[listed_pages] += weight
            section_sum[order] += weight
        page_seen[listed_pages] = True
        chunk_seen[order] = True
    count = 0.0
    for signal in taking_part:
        count += signal.weight
    candidates = np.flatnonzero(page_seen)
    key = page_sum[candidates] / count * priors[candidates] * boosts[candidates]
    relevance = np.minimum(1.0, key)
    page_order = np.lexsort((candidates, -key)).tolist()
    named = [int(chunk) for chunk in named if chunk_seen[chunk]]
    led = _lead_page(named, page_order, candidates, page_of_chunk)
    if led is not None:
        relevance[led] = relevance[page_order[0]]
        page_order = [led] + [at for at in page_order if at != led]
    results: list[Ranked] = []
    for at in page_order:
        if min_score is not None and relevance[at] < min_score:
            break  # relevance only falls from here
        page = int(candidates[at])
        chunks = np.flatnonzero((page_of_chunk == page) & chunk_seen)
        section = section_sum[chunks] / count
        section_order = np.lexsort((chunks, -section)).tolist()
        if at == led:
            section_order = _lead_first(section_order, chunks, section, named)
        listed: set[int] = set()
        for i in section_order:
            chunk = int(chunks[i])
            if sections[chunk] in listed:
                continue
            listed.add(int(sections[chunk]))
            results.append(Ranked(chunk, float(relevance[at]), float(section[i])))
            if len(results) == top_k:
                return results
            if len(listed) == PER_PAGE:
                break
    return results
