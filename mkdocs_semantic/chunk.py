"""The chunk record every layer passes around (`Chunk`, `PageFacts`), and the text
helpers it needs: its link, its heading context and the excerpt results show."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from textwrap import dedent

from .constants import EXCERPT_CHARS

EXCERPT_SOURCE_CHARS = 480
"""Text a result may show of its chunk: readers centre an EXCERPT_CHARS window in it."""


ELLIPSIS = "…"


_NEXT_SENTENCE = re.compile(r"(?:[.!?:;][\"')\]\u201d\u2019]*\s+|[\u3002\uff01\uff1f]\s*|\n)")


@dataclass
class Chunk:
    """One searchable unit: a section (or part of one) of a page."""

    url: str
    anchor: str
    title: str
    path: list[str]
    text: str
    kind: str = "section"
    anchors: list[str] = field(default_factory=list)
    section: str = ""
    facets: dict[str, list[str]] = field(default_factory=dict)
    boost: float = 1.0
    # How results show the chunk, not what it is: not compared. A bundle keeps only
    # `excerpt_parts`, which its reader puts in `shown`.
    code: list[list[int]] = field(default_factory=list, compare=False)
    """[start, end) of each code block's lines in `text`."""
    mid_sentence: bool = field(default=False, compare=False)
    """Whether `text` starts inside a sentence (a long one cut between chunks)."""
    shown: list[str] = field(default_factory=list, compare=False)
    """The excerpt text as a bundle stores it (see `excerpt_parts`), when read from one."""
    link_anchor: str = field(default="", compare=False)
    """The deepest heading whose part of the page holds the whole chunk, when deeper than
    `anchor` (an h4 under the h3 that starts the section): where results link."""
    link_path: list[str] | None = field(default=None, compare=False)
    """The heading path results show, when not `path`: without the page's h1 (the title
    atop the page, which results show already) and down to `link_anchor`'s heading."""

    @property
    def shown_path(self) -> list[str]:
        """The heading path results show: `link_path`, else `path`."""
        return self.path if self.link_path is None else self.link_path

    @property
    def embed_text(self) -> str:
        """What the model sees: heading context, then the body."""
        return context_line(self.title, self.path) + "\n" + self.text

    @property
    def excerpt_parts(self) -> list[str]:
        """What results may show of the text: prose and code alternating, prose first."""
        return self.shown or excerpt_parts(self.text, self.code, mid_sentence=self.mid_sentence)

    @property
    def excerpt(self) -> str:
        return excerpt(excerpt_text(self.excerpt_parts))

    @property
    def href(self) -> str:
        return href(self.url, self.anchor)


def href(url: str, anchor: str) -> str:
    """A section's link relative to the site root: its page's link (`page_link`) and its
    anchor, if any."""
    link = page_link(url)
    return f"{link}#{anchor}" if anchor else link


def page_link(url: str) -> str:
    """A page's link relative to the site root: its URL, or "./" for the home page (URL
    ""). An empty link reads as none, and "" or "#anchor" resolve against the page a
    client is on, not the site root; "/" would leave a site deployed under a path."""
    return url or "./"


LEAD_CHARS = 120
"""How much of a page chunk's lead (white space flattened) a section must open with to
repeat it."""


def opens_with_lead(page: Chunk, chunk: Chunk) -> bool:
    """Whether `chunk` opens with the lead paragraphs of its page's chunk `page` (kind
    "page"), as the section under the page's h1 does; a page chunk that is only its
    title has no lead."""
    lead = " ".join(page.text.split())[:LEAD_CHARS]
    if not lead or lead == " ".join(page.title.split()):
        return False
    return " ".join(chunk.text.split()).startswith(lead)


@dataclass
class PageFacts:
    """What chunking needs to know about a page besides its HTML."""

    url: str
    title: str
    section: str = ""
    facets: dict[str, list[str]] = field(default_factory=dict)
    """Filterable page meta (`tags` and configured facets), values as strings."""
    boost: float = 1.0
    """Ranking weight from page meta `search: {boost: N}`."""


def context_line(title: str, path: Sequence[str]) -> str:
    parts = [title, *[p for p in path if p and p != title]]
    return " > ".join(p for p in parts if p)


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit)
    return flat[: cut if cut > limit // 2 else limit].rstrip() + "…"


def excerpt_parts(text: str, code: Sequence[Sequence[int]] = (), *, mid_sentence: bool = False,
                  limit: int = EXCERPT_SOURCE_CHARS) -> list[str]:
    """The first `limit` characters or so of `text` that results may show, as a list that
    alternates prose (white space flattened) and code (its lines kept), prose first.

    Text that starts inside a sentence starts at the next sentence instead, when one
    starts soon, else at the next word; a leading "…" says so. The text ends at a word,
    with "…" when some was left out.
    """
    parts: list[str] = []
    used = 0
    at = 0
    for start, end in [*code, (len(text), len(text))]:
        for piece, is_code in ((text[at:start], False), (text[start:end], True)):
            if is_code:
                piece = "\n".join(line.rstrip() for line in dedent(piece).splitlines()
                                  if line.strip())
            else:
                piece = " ".join(piece.split())
            if not parts and not is_code and mid_sentence:
                piece = _from_next_sentence(piece)
            if len(parts) % 2 != is_code:
                parts.append("")  # keep prose at even and code at odd positions
            room = limit - used
            if len(piece) > room:
                cut = piece.rfind("\n" if is_code else " ", 0, room + 1)
                piece = piece[: cut if cut > room // 2 else room].rstrip()
                parts += [piece, ELLIPSIS] if is_code else [piece + ELLIPSIS]
                return _drop_empty_tail(parts)
            parts.append(piece)
            used += len(piece)
        at = end
    return _drop_empty_tail(parts)


def _from_next_sentence(prose: str) -> str:
    found = _NEXT_SENTENCE.search(prose, 0, EXCERPT_CHARS // 2)
    # Else the cut itself, which falls between two words where the text has spaces.
    return ELLIPSIS + (prose[found.end():] if found and found.end() < len(prose) else prose)


def _drop_empty_tail(parts: list[str]) -> list[str]:
    while parts and not parts[-1]:
        parts.pop()
    return parts


def excerpt_text(parts: Sequence[str]) -> str:
    """An excerpt's parts as one line of plain text."""
    return " ".join(" ".join(p.split()) for p in parts if p.strip())




