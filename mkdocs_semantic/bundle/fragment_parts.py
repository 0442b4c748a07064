"""A long page's excerpts in parts: files of at most `PART_CHUNKS` of its chunks each, so
that a reader shown one section of a long page (release notes, a changelog) fetches the
part holding it rather than every excerpt of the page.

A page of more than `chunks` chunks has ceil(size / chunks) parts; part p holds its
chunks p * chunks to (p + 1) * chunks. The parts of every long page form one keyed list
(catalog `fragment_parts`: `{chunks, parts}`), numbered in page order: page n's part p
is shard `first_parts[n] + p`. The page's whole file stays in `fragments`, for readers
that read whole pages. (JavaScript: js/src/engine/fragment-parts.js)
"""

from __future__ import annotations

import numpy as np

PART_CHUNKS = 64
"""Chunks a part holds at most: up to about 11 kB of excerpts sent, as the largest whole
pages of ordinary docs; parts of 32 would also split many ordinary pages for little
(docs/decisions/guessed-excerpts.md)."""


def part_counts(sizes: np.ndarray, chunks: int) -> np.ndarray:
    """Each page's number of parts: 0 for a page of at most `chunks` chunks."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return np.where(sizes > chunks, -(-sizes // chunks), 0)


def first_parts(sizes: np.ndarray, chunks: int) -> np.ndarray:
    """Each page's first part number (pages + 1 values: the last is the part count)."""
    return np.concatenate([[0], np.cumsum(part_counts(sizes, chunks))]).astype(np.int64)


def page_parts(fragment: list, chunks: int) -> list[list]:
    """A page's fragment row `[url, title, section, rows]` as its parts' rows (none for a
    page of at most `chunks` chunks)."""
    url, title, section, rows = fragment
    if len(rows) <= chunks:
        return []
    return [[url, title, section, rows[at:at + chunks]] for at in range(0, len(rows), chunks)]
