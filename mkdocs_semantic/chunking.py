"""Rendered page HTML -> a list of chunks, split at headings and sized in model tokens.

Pure functions: the caller passes the HTML, page facts and a token counter.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bs4 import BeautifulSoup, CData, NavigableString, Tag


class TokenCounter(Protocol):
    """Counts model tokens the way the model will see them."""

    def __call__(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, special tokens included."""

    def token_ends(self, text: str) -> list[int]:
        """Character offset where each (non-special) token of `text` ends."""

CHUNKING_VERSION = 1
"""Bump whenever the same HTML would chunk differently: cached chunks are then dropped."""
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Elements whose text is never content: theme chrome, permalinks, scripts.
DROP_TAGS = {"script", "style", "noscript", "template", "nav", "svg", "button"}
DROP_CLASSES = {"headerlink", "md-source-file", "md-content__button"}
DROP_ATTRIBUTES = ("data-search-exclude",)
# Containers we descend into when they hold a heading (md_in_html, admonitions, tabs).
BLOCK_TAGS = {
    "p", "pre", "ul", "ol", "dl", "table", "blockquote", "figure", "details",
    "div", "section", "article", "main", "aside", "header", "footer", "hr",
    "form", "fieldset", "address", "center", *HEADINGS,
}  # fmt: skip
LINE_BREAK_TAGS = ("p", "li", "dt", "dd", "tr", "br", "div", "blockquote", "figcaption",
                   "summary", *HEADINGS)
TEXT_TYPES = (NavigableString, CData)  # not comments, doctypes or processing instructions
PAGE_LEAD_MAX_BLOCKS = 3
EXCERPT_CHARS = 240
_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u200b]+")
_SENTENCE_END = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+")


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

    @property
    def embed_text(self) -> str:
        """What the model sees: heading context, then the body."""
        return context_line(self.title, self.path) + "\n" + self.text

    @property
    def excerpt(self) -> str:
        return excerpt(self.text)


@dataclass
class Block:
    text: str
    is_code: bool = False


@dataclass
class Section:
    anchor: str
    level: int
    path: list[str]
    blocks: list[Block] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)

    @property
    def body(self) -> str:
        return "\n".join(b.text for b in self.blocks)


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


def clean_text(text: str) -> str:
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _is_chrome(el: Tag) -> bool:
    if el.name in DROP_TAGS or any(a in el.attrs for a in DROP_ATTRIBUTES):
        return True
    classes = el.get("class")
    return bool(classes) and not DROP_CLASSES.isdisjoint(classes)


def parse_content(html: str) -> Tag:
    """Parse rendered HTML and drop everything that is not page content."""
    soup = BeautifulSoup(html, "html.parser")
    # One pass with plain checks: CSS selectors would walk the tree once per selector.
    for el in soup.find_all(_is_chrome):
        el.decompose()
    # Mark block boundaries so that get_text() never glues two blocks' words together.
    for el in soup.find_all(LINE_BREAK_TAGS):
        if el.find_parent("pre") is None:
            el.append("\n")
    for el in soup.find_all(("td", "th")):
        el.append(" ")
    return soup


def _heading_level(el: Tag, max_level: int) -> int:
    if el.name in HEADINGS:
        level = int(el.name[1])
        if level <= max_level:
            return level
    return 0


def _heading_ids(el: Tag) -> list[str]:
    found = [el] if el.name in HEADINGS else []
    found += el.find_all(HEADINGS)
    return [str(h["id"]) for h in found if h.get("id")]


def _holds_heading(el: Tag, max_level: int) -> bool:
    return el.find(HEADINGS[:max_level]) is not None


def _block_text(el: Tag) -> Block:
    if el.name == "pre" or (el.name == "div" and el.find("pre") and not el.find("p")):
        return Block(text=el.get_text().strip("\n"), is_code=True)
    return Block(text=clean_text(el.get_text()))


def iter_blocks(root: Tag, max_level: int) -> Iterator[Tag | NavigableString]:
    """Yield headings and content blocks in document order, flattening containers
    that hold headings so that every heading starts its own section."""
    for child in root.children:
        if isinstance(child, NavigableString):
            if type(child) in TEXT_TYPES and child.strip():
                yield child
            continue
        if not isinstance(child, Tag):
            continue
        if _heading_level(child, max_level):
            yield child
        elif child.name not in ("pre", "table") and _holds_heading(child, max_level):
            yield from iter_blocks(child, max_level)
        else:
            yield child


def split_sections(root: Tag, *, page_title: str, max_level: int) -> list[Section]:
    """Cut the content into sections at headings h1..h<max_level>."""
    sections = [Section(anchor="", level=0, path=[])]
    stack: list[tuple[int, str]] = []
    inline: list[str] = []

    def flush_inline() -> None:
        text = clean_text(" ".join(inline))
        inline.clear()
        if text:
            sections[-1].blocks.append(Block(text=text))

    for node in iter_blocks(root, max_level):
        if isinstance(node, NavigableString):
            inline.append(str(node))
            continue
        level = _heading_level(node, max_level)
        if level:
            flush_inline()
            title = " ".join(node.get_text().split())
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            anchor = node.get("id") or ""
            sections.append(
                Section(
                    anchor=str(anchor),
                    level=level,
                    path=[t for _, t in stack],
                    anchors=[str(anchor)] if anchor else [],
                )
            )
        elif node.name in BLOCK_TAGS:
            flush_inline()
            block = _block_text(node)
            if block.text.strip():
                sections[-1].blocks.append(block)
            # Deeper headings do not start sections, but their ids still lead here.
            sections[-1].anchors.extend(_heading_ids(node))
        else:
            inline.append(node.get_text())
    flush_inline()
    # The page's own h1 repeats the page title: keep its anchor, drop it from paths.
    for section in sections:
        if section.path and section.path[0] == page_title:
            section.path = section.path[1:]
    return sections


class ChunkSizer:
    """Packs text into pieces that fit a token budget, counted with the real tokenizer."""

    def __init__(self, count: TokenCounter, max_tokens: int) -> None:
        self.count = count
        self.max_tokens = max_tokens

    def fits(self, header: str, body: str) -> bool:
        return self.count([header + "\n" + body])[0] <= self.max_tokens

    def budget(self, header: str) -> int:
        # Tokens left for the body once the header, the separator and specials are in.
        return self.max_tokens - self.count([header + "\n"])[0]

    def split_block(self, block: Block, budget: int) -> list[str]:
        """Split one block that is too big alone: lines for code, sentences for prose,
        and a hard cut at token boundaries for a unit that is still too big."""
        units = block.text.split("\n") if block.is_code else _sentences(block.text)
        joiner = "\n" if block.is_code else " "
        return self.pack(units, budget, joiner)

    def pack(self, units: list[str], budget: int, joiner: str) -> list[str]:
        pieces: list[str] = []
        current: list[str] = []
        sizes = self.count(units) if units else []
        used = 0
        for unit, size in zip(units, sizes):
            size -= 2  # counts include [CLS]/[SEP]; the budget already paid for them
            if size > budget:
                if current:
                    pieces.append(joiner.join(current))
                    current, used = [], 0
                pieces.extend(self.hard_split(unit, budget))
                continue
            if current and used + size + 1 > budget:
                pieces.append(joiner.join(current))
                current, used = [], 0
            current.append(unit)
            used += size + (1 if len(current) > 1 else 0)
        if current:
            pieces.append(joiner.join(current))
        return [p for p in pieces if p.strip()]

    def hard_split(self, text: str, budget: int) -> list[str]:
        """Cut after the `budget`-th token, at a space where one is near."""
        pieces = []
        rest = text
        while rest.strip():
            # A token covers at most a few dozen characters: look no further than that.
            window = rest[: budget * 48]
            ends = self.count.token_ends(window)
            if len(ends) <= budget:
                cut = len(window)
            else:
                cut = ends[budget - 1]
                space = window.rfind(" ", 0, cut + 1)
                if space > cut // 2:
                    cut = space
            pieces.append(rest[:cut])
            rest = rest[cut:].lstrip()
        return pieces


def _sentences(text: str) -> list[str]:
    out = []
    for line in text.split("\n"):
        out.extend(s for s in _SENTENCE_END.split(line) if s.strip())
    return out


def _merge_tiny(sections: list[Section], sizes: list[int], min_tokens: int,
                max_tokens: int) -> list[Section]:
    """Merge a section below `min_tokens` into its next (deeper) or previous neighbour,
    keeping every anchor it covered."""
    result: list[Section] = []
    result_sizes: list[int] = []
    pending: tuple[Section, int] | None = None
    for section, size in zip(sections, sizes):
        if pending is not None:
            prev, prev_size = pending
            pending = None
            if section.level > prev.level and prev_size + size <= max_tokens:
                section.blocks = prev.blocks + section.blocks
                section.anchors = prev.anchors + section.anchors
                section.anchor = prev.anchor or section.anchor
                size += prev_size
            else:
                _append_or_merge_back(result, result_sizes, prev, prev_size, max_tokens)
        if size < min_tokens:
            pending = (section, size)
            continue
        result.append(section)
        result_sizes.append(size)
    if pending is not None:
        _append_or_merge_back(result, result_sizes, *pending, max_tokens)
    return result


def _append_or_merge_back(result: list[Section], sizes: list[int], section: Section,
                          size: int, max_tokens: int) -> None:
    if result and sizes[-1] + size <= max_tokens and section.level > 0:
        prev = result[-1]
        heading = section.path[-1] if section.path else ""
        prev.blocks = [*prev.blocks, *([Block(text=heading)] if heading else []),
                       *section.blocks]
        prev.anchors = prev.anchors + section.anchors
        sizes[-1] += size
    else:
        result.append(section)
        sizes.append(size)


def chunk_sections(sections: list[Section], page: PageFacts, *, sizer: ChunkSizer,
                   min_tokens: int) -> list[Chunk]:
    """Turn sections into chunks that fit the budget, merging tiny ones."""
    sections = [s for s in sections if s.blocks or s.anchors]
    if not sections:
        return []
    headers = [context_line(page.title, s.path) for s in sections]
    sizes = sizer.count([h + "\n" + s.body for h, s in zip(headers, sections)])
    sections = _merge_tiny(sections, sizes, min_tokens, sizer.max_tokens)
    chunks: list[Chunk] = []
    for section in sections:
        header = context_line(page.title, section.path)
        for body in _fit_section(section, header, sizer):
            chunks.append(
                Chunk(
                    url=page.url,
                    anchor=section.anchor,
                    title=page.title,
                    path=list(section.path),
                    text=body,
                    anchors=list(section.anchors),
                    section=page.section,
                    facets=page.facets,
                    boost=page.boost,
                )
            )
    return chunks


def _fit_section(section: Section, header: str, sizer: ChunkSizer) -> list[str]:
    body = section.body
    if not body.strip():
        # A heading with nothing under it is still findable by its words.
        return [section.path[-1]] if section.path and section.path[-1] else []
    if sizer.fits(header, body):
        return [body]
    budget = sizer.budget(header)
    if budget < 16:
        raise ValueError(
            f"the heading path {header!r} leaves {budget} tokens for text; "
            "raise max_tokens or lower heading_levels"
        )
    pieces: list[str] = []
    current: list[Block] = []
    for block in section.blocks:
        candidate = "\n".join(b.text for b in [*current, block])
        if sizer.fits(header, candidate):
            current.append(block)
            continue
        if current:
            pieces.append("\n".join(b.text for b in current))
            current = []
        if sizer.fits(header, block.text):
            current = [block]
        else:
            pieces.extend(sizer.split_block(block, budget))
    if current:
        pieces.append("\n".join(b.text for b in current))
    # Packing adds token counts of parts; re-check the whole and cut what still spills.
    fitted: list[str] = []
    for piece in pieces:
        margin = 0
        parts = [piece]
        while not all(sizer.fits(header, part) for part in parts):
            margin += 4
            parts = sizer.hard_split(piece, budget - margin)
        fitted.extend(parts)
    return fitted


def page_chunk(sections: list[Section], page: PageFacts, sizer: ChunkSizer) -> Chunk | None:
    """One chunk for the page as a whole: its title and lead paragraphs."""
    lead: list[str] = []
    for section in sections:
        for block in section.blocks:
            if not block.is_code:
                lead.append(block.text)
            if len(lead) >= PAGE_LEAD_MAX_BLOCKS:
                break
        if lead:
            break
    text = "\n".join(lead)
    if not page.title and not text:
        return None
    header = page.title
    if text and not sizer.fits(header, text):
        text = sizer.pack(_sentences(text), sizer.budget(header), " ")[0]
    first_anchor = next((s.anchor for s in sections if s.anchor), "")
    return Chunk(
        url=page.url,
        anchor="",
        title=page.title,
        path=[],
        text=text or page.title,
        kind="page",
        anchors=[first_anchor] if first_anchor else [],
        section=page.section,
        facets=page.facets,
        boost=page.boost,
    )


def chunk_page(html: str, page: PageFacts, *, count: TokenCounter, max_tokens: int,
               min_tokens: int = 24, heading_levels: int = 3) -> list[Chunk]:
    """Rendered HTML of one page -> its page-level chunk, then its section chunks."""
    root = parse_content(html)
    sizer = ChunkSizer(count, max_tokens)
    sections = split_sections(root, page_title=page.title, max_level=heading_levels)
    chunks = chunk_sections(sections, page, sizer=sizer, min_tokens=min_tokens)
    whole = page_chunk(sections, page, sizer)
    if whole is None:
        return chunks
    # A page that is only its lead would otherwise be indexed twice.
    duplicates = [c for c in chunks if c.embed_text == whole.embed_text]
    for dup in duplicates:
        whole.anchors = list(dict.fromkeys(whole.anchors + dup.anchors))
    return [whole] + [c for c in chunks if c not in duplicates]
