"""The page table: how many chunks each page has, and which chunks continue a section.

Chunks are numbered in page order, so the chunk counts give every chunk its page. A
long section is cut into pieces that follow each other on its page; a reader lists only
the best piece of a section, so it needs to know which chunk continues the one before
it. The section under a page's h1 that repeats the page chunk's lead continues the page
chunk, so that results list the lead once. Both sit in one small binary payload
(`pages/pages.<h>.bin`), read once:

    u32 pages, u32 chunks, pages x u16 chunk counts, ceil(chunks / 8) bytes of bits
    (bit c, least significant first, set when chunk c continues the section of c - 1)

All little-endian. About 2 bytes a page and one bit a chunk: 35 kB for 150,000
chunks on 8,000 pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..chunk import Chunk, opens_with_lead

MAX_PAGE_CHUNKS = (1 << 16) - 1


@dataclass(frozen=True)
class PageTable:
    counts: np.ndarray
    """Chunks per page (int64, each at least 1)."""
    continues: np.ndarray
    """Per chunk: whether it continues the section of the chunk before it (bool)."""

    @property
    def starts(self) -> np.ndarray:
        """The first chunk of each page, then the chunk count."""
        return np.concatenate([[0], np.cumsum(self.counts)]).astype(np.int64)

    @property
    def page_of_chunk(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.counts)), self.counts)

    @property
    def sections(self) -> np.ndarray:
        """Each chunk's section number: the chunk number of the section's first piece."""
        first = np.arange(len(self.continues))
        first[self.continues] = -1
        return np.maximum.accumulate(first) if len(first) else first


def page_table_bytes(table: PageTable) -> bytes:
    counts = np.asarray(table.counts, dtype=np.int64)
    too_many = np.flatnonzero(counts > MAX_PAGE_CHUNKS)
    if len(too_many):
        raise ValueError(f"page {int(too_many[0])} has {int(counts[too_many[0]])} chunks, "
                         f"more than the {MAX_PAGE_CHUNKS} a bundle holds for one page: split "
                         "the page or leave it out of the index")
    bits = np.packbits(np.asarray(table.continues, dtype=bool), bitorder="little")
    return (np.array([len(counts), int(counts.sum())], dtype="<u4").tobytes()
            + counts.astype("<u2").tobytes() + bits.tobytes())


def page_table_size(pages: int, chunks: int) -> int:
    """The table's size in bytes: u32 pages and chunks, a u16 a page, a bit a chunk."""
    return 8 + 2 * pages + (chunks + 7) // 8


def parse_page_table(data: bytes, *, pages: int, chunks: int) -> PageTable:
    """The table in `data`; ValueError when it is not a table of `pages` pages and
    `chunks` chunks (each page at least one chunk, the first chunk of a page starting a
    section)."""
    expected = page_table_size(pages, chunks)
    if len(data) != expected:
        raise ValueError(f"is {len(data)} bytes, not the {expected} of a page table of "
                         f"{pages} pages and {chunks} chunks")
    head = np.frombuffer(data, dtype="<u4", count=2)
    if int(head[0]) != pages or int(head[1]) != chunks:
        raise ValueError(f"holds {int(head[0])} pages and {int(head[1])} chunks, not "
                         f"{pages} and {chunks}")
    counts = np.frombuffer(data, dtype="<u2", count=pages, offset=8).astype(np.int64)
    if np.any(counts < 1) or int(counts.sum()) != chunks:
        raise ValueError("has a page without chunks or counts that do not add up")
    bits = np.frombuffer(data, dtype=np.uint8, offset=8 + 2 * pages)
    continues = np.unpackbits(bits, bitorder="little", count=chunks).astype(bool)
    table = PageTable(counts=counts, continues=continues)
    if np.any(continues[table.starts[:-1]]):
        raise ValueError("has a page whose first chunk continues the page before")
    return table


def continuations(anchors_by_page: list[list[str]]) -> np.ndarray:
    """Continuation bits from each page's chunk anchors: a chunk continues the section of
    the chunk before it when both carry the same anchor (the pieces of one long section
    follow each other; a repeated anchor further down the page starts a new section)."""
    out: list[bool] = []
    for anchors in anchors_by_page:
        out.extend(i > 0 and anchors[i] == anchors[i - 1] for i in range(len(anchors)))
    return np.array(out, dtype=bool)


def repeated_leads(pages: Sequence[Sequence[Chunk]]) -> np.ndarray:
    """Continuation bits for leads: per chunk, whether it is the section right after its
    page's chunk (kind "page") and opens with that chunk's lead (`opens_with_lead`), as
    the section under the page's h1 does. It continues the page chunk: a reader lists the
    better of the two, not the lead twice."""
    out: list[bool] = []
    for chunks in pages:
        out.extend(i == 1 and chunks[0].kind == "page" and opens_with_lead(chunks[0], chunk)
                   for i, chunk in enumerate(chunks))
    return np.array(out, dtype=bool)
