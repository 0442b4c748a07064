"""Page-aware fusion of rankings: the ranking spec every reader implements.

A reader wants the right page first, then the right section on it. So:

1. Each signal (vector, lexical) orders the chunks that pass the filters: score
   descending, ties by chunk number. Lexical takes only positive scores, vector
   only scores at or above `min_score` when one is set.
2. A signal's page ranking follows from its chunk order: pages in the order of
   their best chunk, the first `PAGE_DEPTH` pages.
3. Pages fuse by reciprocal rank: page score = sum over signals of
   prior / (rrf_k + page rank / boost), ranks from 1. One signal alone uses the
   same formula. `boost` is the page's `search.boost` meta (1 by default): it
   moves a page up the ranks it already has rather than multiplying its score,
   so a boosted page rises where it matches and does not surface everywhere.
   `prior` is min(1, sqrt(SIZE_MARGIN * typical / chunks on page)), `typical`
   being the 90th percentile of chunks per page (sorted sizes, element
   floor(0.9 * (n - 1))). Pages made of very many short entries (release
   notes, changelogs) match most queries a little; the prior keeps them from
   outranking focused pages, and only pages several times larger than nearly
   all others are damped.
4. Sections within a page fuse the same way on chunk ranks:
   sum over signals of 1 / (rrf_k + chunk rank).
5. Output: pages by score descending (ties by page number), each with up to
   `PER_PAGE` of its sections by section score descending (ties by chunk
   number), until `top_k` sections. Of the pieces of one long section only the
   best is listed: `sections` gives each chunk its section's number (the number
   of the section's first piece).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

PAGE_DEPTH = 100
PER_PAGE = 3
TYPICAL_QUANTILE = 0.9
SIZE_MARGIN = 4


@dataclass(frozen=True)
class Ranked:
    """One section in the fused order."""

    chunk: int
    page_score: float
    section_score: float


def size_priors(page_of_chunk: np.ndarray, pages: int) -> np.ndarray:
    """Per-page size prior (1 for all but outsized pages)."""
    if len(page_of_chunk) == 0:
        return np.ones(pages)
    sizes = np.bincount(page_of_chunk, minlength=pages)
    present = np.sort(sizes[sizes > 0])
    typical = float(max(1, present[int(TYPICAL_QUANTILE * (len(present) - 1))]))
    # sqrt, not ** 0.5: IEEE sqrt is exact in every language, pow need not be.
    return np.minimum(1.0, np.sqrt(SIZE_MARGIN * typical / np.maximum(sizes, 1)))


def chunk_order(scores: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """Eligible chunk numbers, score descending, ties by number."""
    candidates = np.flatnonzero(eligible)
    return candidates[np.lexsort((candidates, -scores[candidates]))]


def fuse(orders: Sequence[np.ndarray], *, page_of_chunk: np.ndarray, sections: np.ndarray,
         priors: np.ndarray, boosts: np.ndarray, rrf_k: int, top_k: int) -> list[Ranked]:
    """Fuse each signal's chunk order into the page-aware result list.

    Vectorized, but every score is the same sum, in the same order, as the step-by-step
    description above (and ranking.js): signal by signal, 0.0 plus each term.
    """
    pages = len(priors)
    page_score = np.zeros(pages)
    page_seen = np.zeros(pages, dtype=bool)
    ranks = []  # per signal: each chunk's rank (0 where the signal did not rank it)
    for order in orders:
        rank = np.zeros(len(page_of_chunk), dtype=np.int64)
        rank[order] = np.arange(1, len(order) + 1)
        ranks.append(rank)
        # Pages in the order of their best chunk: first occurrence in the chunk order.
        in_order, first = np.unique(page_of_chunk[order], return_index=True)
        ranked_pages = in_order[np.argsort(first, kind="stable")][:PAGE_DEPTH]
        page_rank = np.arange(1, len(ranked_pages) + 1)
        page_score[ranked_pages] += priors[ranked_pages] / (
            rrf_k + page_rank / boosts[ranked_pages])
        page_seen[ranked_pages] = True
    candidates = np.flatnonzero(page_seen)
    results: list[Ranked] = []
    for page in candidates[np.lexsort((candidates, -page_score[candidates]))].tolist():
        chunks = np.flatnonzero((page_of_chunk == page) & np.any(np.stack(ranks) > 0, axis=0))
        section = np.zeros(len(chunks))
        for rank in ranks:
            r = rank[chunks]
            section += np.where(r > 0, 1.0 / (rrf_k + np.maximum(r, 1)), 0.0)
        listed: set[int] = set()
        for i in np.lexsort((chunks, -section)).tolist():
            chunk = int(chunks[i])
            if sections[chunk] in listed:
                continue
            listed.add(int(sections[chunk]))
            results.append(Ranked(chunk, float(page_score[page]), float(section[i])))
            if len(results) == top_k:
                return results
            if len(listed) == PER_PAGE:
                break
    return results
