"""A bundle's chunks read back from its fragments and text shards: all at once, or page by
page as they are asked for (a bundle downloaded without its shards fetches only the
pages its answers show).

Each page's fragment row is `[url, title, section, rows]` (one `[shown anchor, shown
path, excerpt, kind]` per chunk) and its text row one `[text, anchors(, anchor, path)]`
per chunk; `page_chunks` checks them against the page table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import Any, overload

import numpy as np

from ..chunk import Chunk
from .format import KIND_NAMES, BundleError
from .load_once import in_parallel
from .shard_lists import ShardReader


def read_excerpt(stored: object) -> list[str]:
    if isinstance(stored, str):
        return [stored] if stored else []
    if isinstance(stored, list) and all(isinstance(p, str) for p in stored):
        return stored
    raise ValueError(f"an excerpt is a string or a list of strings, not {stored!r:.60}")


def page_facets(facets: dict, pages: int) -> list[dict[str, list[str]]]:
    """Each page's facet values (the `section` key left out: chunks carry it apart)."""
    out: list[dict[str, list[str]]] = [{} for _ in range(pages)]
    for key, values in facets.items():
        if key != "section":
            for value, numbers in values.items():
                for number in numbers:
                    out[number].setdefault(key, []).append(value)
    return out


def page_chunks(number: int, fragment: Any, text_rows: Any, *, size: int,
                boost: float, facets: dict[str, list[str]]) -> list[Chunk]:
    """Page `number`'s chunks from its fragment and text rows, parsed JSON as read
    (ValueError when they do not hold `size` chunks; ValueError, TypeError, KeyError or
    IndexError when they are malformed)."""
    url, title, section, rows = fragment
    if len(rows) != size or len(text_rows) != len(rows):
        raise ValueError(f"page {number} ({url!r}) has the wrong number of chunks")
    chunks = []
    for (shown_anchor, shown_path, excerpt, kind), text_row in zip(rows, text_rows):
        text, anchors, *own = text_row
        anchor, path = own if own else (shown_anchor, shown_path)
        chunks.append(Chunk(url=url, anchor=anchor, title=title, path=path, text=text,
                            kind=KIND_NAMES[kind], anchors=anchors, section=section,
                            facets=facets, boost=boost, shown=read_excerpt(excerpt),
                            link_anchor=shown_anchor if shown_anchor != anchor else "",
                            link_path=shown_path if shown_path != path else None))
    return chunks


class PageChunks(Sequence[Chunk]):
    """Every chunk of a bundle, in chunk order, each page built when one of its chunks is
    first asked for, from the fragments and text shards that hold it (read through
    `ShardReader`s). Iterating reads every page."""

    def __init__(self, *, fragments: ShardReader, texts: ShardReader, starts: np.ndarray,
                 boosts: dict, facets: dict, source: str) -> None:
        self._fragments, self._texts = fragments, texts
        self._starts = starts
        self._boosts = boosts
        self._facets = page_facets(facets, len(starts) - 1)
        self._source = source
        self._pages: dict[int, list[Chunk]] = {}

    def __len__(self) -> int:
        return int(self._starts[-1])

    @overload
    def __getitem__(self, index: int) -> Chunk: ...

    @overload
    def __getitem__(self, index: slice) -> list[Chunk]: ...

    def __getitem__(self, index: int | slice) -> Chunk | list[Chunk]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"chunk {index} of {len(self)}")
        page = int(np.searchsorted(self._starts, index, side="right")) - 1
        return self.page(page)[index - int(self._starts[page])]

    def __iter__(self) -> Iterator[Chunk]:
        for page in range(len(self._starts) - 1):
            yield from self.page(page)

    def prefetch(self, pages: Iterable[int]) -> None:
        """The fragments and text shards of `pages` read now, at the same time."""
        wanted = [int(p) for p in pages]
        in_parallel([partial(reader.prefetch, wanted)
                     for reader in (self._fragments, self._texts) if reader.unread(wanted)])

    def urls(self) -> list[str]:
        """Every page's URL, in page order (reads every fragments shard, no text)."""
        out = []
        for number in range(len(self._starts) - 1):
            fragment = self._row(self._fragments, number)
            if not (isinstance(fragment, list) and fragment and isinstance(fragment[0], str)):
                raise BundleError(f"the chunk files in {self._source} are malformed (page "
                                  f"{number} has no URL): rebuild the site")
            out.append(fragment[0])
        return out

    def find(self, url: str) -> list[Chunk]:
        """The chunks of the page at `url` (none when no page has it): a page read
        before, else the first whose fragment row has that URL (reading fragments in
        page order until one does)."""
        for chunks in self._pages.values():
            if chunks and chunks[0].url == url:
                return chunks
        for number in range(len(self._starts) - 1):
            fragment = self._row(self._fragments, number)
            if isinstance(fragment, list) and fragment and fragment[0] == url:
                return self.page(number)
        return []

    def page(self, number: int) -> list[Chunk]:
        """Page `number`'s chunks (BundleError when its shards do not describe it)."""
        if number not in self._pages:
            try:
                chunks = page_chunks(
                    number, self._row(self._fragments, number), self._row(self._texts, number),
                    size=int(self._starts[number + 1] - self._starts[number]),
                    boost=float(self._boosts.get(str(number), 1.0)),
                    facets=self._facets[number])
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                if isinstance(exc, BundleError):
                    raise
                raise BundleError(f"the chunk files in {self._source} are malformed ({exc}): "
                                  "rebuild the site") from exc
            self._pages[number] = chunks
        return self._pages[number]

    @staticmethod
    def _row(reader: ShardReader, page: int) -> object:
        held = reader.holding(page)
        if held is None:
            raise ValueError(f"no shard holds page {page}")
        (first, _, _), rows = held
        if not isinstance(rows, list) or not 0 <= page - first < len(rows):
            raise ValueError(f"no shard holds page {page}")
        return rows[page - first]
