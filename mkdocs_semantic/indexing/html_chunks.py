"""Rendered page HTML -> a list of chunks, split at headings and sized in model tokens.

Pure functions: the caller passes the HTML, page facts and a token counter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from bs4 import BeautifulSoup, CData, NavigableString, PageElement, Tag

from ..chunk import Chunk, PageFacts, context_line


class TokenCounter(Protocol):
    """Counts model tokens the way the model will see them."""

    def __call__(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, special tokens included."""

    def token_ends(self, text: str) -> list[int]:
        """Character offset where each (non-special) token of `text` ends."""

CHUNKING_VERSION = 4
"""Bump whenever the same HTML would chunk differently: cached chunks are then dropped."""
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Elements whose text is never content: theme chrome, permalinks, scripts.
DROP_TAGS = {"script", "style", "noscript", "template", "nav", "svg", "button"}
DROP_CLASSES = {"headerlink", "md-source-file", "md-content__button", "viewcode-link"}
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
# A sentence ends here (then a space follows): . ! ? : ; after any closing quote or bracket,
# or a CJK full stop.
_SENTENCE_TAIL = re.compile(r"(?:[.!?:;][\"')\]\u201d\u2019]*|[\u3002\uff01\uff1f])\s*$")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u200b]+")
# A sentence ends at . ! ? before a space, or at a CJK full stop, which needs no space
# (U+3002, U+FF01, U+FF1F, U+FF61, U+FF0E), after any closing quote or bracket.
_SENTENCE_END = re.compile(
    r"\s*\n\s*|(?<=[.!?])\s+"
    r"|(?<=[\u3002\uff01\uff1f\uff61\uff0e])(?![\u300d\u300f\uff09\u201d\u2019])\s*"
    r"|(?<=[\u3002\uff01\uff1f\uff61\uff0e][\u300d\u300f\uff09\u201d\u2019])\s*"
)
# C0 and C1 controls other than the whitespace ones: deleted, or a space where they are
# separators (str.isspace), so that words are not glued together.
_CONTROL_TABLE = {
    c: (" " if chr(c).isspace() else None)
    for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)]
    if chr(c) not in "\t\n\r\v\f"
}






@dataclass
class Block:
    text: str
    is_code: bool = False
    tokens: int = -1
    """Model tokens of `text` without [CLS]/[SEP]; -1 until `ChunkSizer.measure` counts it."""
    heading: tuple[int, str] | None = None
    """(level, id) when the block is a heading deeper than those that start sections."""


@dataclass
class Section:
    anchor: str
    level: int
    path: list[str]
    blocks: list[Block] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    under_h1: bool = False
    """Whether `path` starts with the page's h1."""

    @property
    def body(self) -> str:
        return "\n".join(b.text for b in self.blocks)
















def clean_text(text: str) -> str:
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def strip_controls(text: str) -> str:
    """Drop C0/C1 control characters, which carry no text (a terminal obeys them);
    tab, newline, CR, VT and FF stay, and separators like NEL become a space."""
    return text.translate(_CONTROL_TABLE)


def _is_chrome(el: Tag) -> bool:
    if el.name in DROP_TAGS or any(a in el.attrs for a in DROP_ATTRIBUTES):
        return True
    classes = el.get("class")  # a list: html parsers split the multi-valued class
    return bool(classes) and not DROP_CLASSES.isdisjoint(classes)  # type: ignore[arg-type]


def parse_content(html: str) -> BeautifulSoup:
    """Parse rendered HTML. The tree is left as parsed: chrome is skipped while walking,
    since removing it would walk each removed element's ancestors and descendants again.

    Of repeated attributes the first wins, as in browsers (`<h2 id=a id=b>` is `#a`).
    """
    return BeautifulSoup(html, "html.parser", on_duplicate_attribute="ignore")


# Every walk below is iterative over `.contents` with an explicit stack, and visits each
# node once: pages nest thousands of elements deep (RecursionError) and a walk per element
# over its ancestors or descendants is quadratic in the depth.


def walk(root: Tag) -> Iterator[tuple[PageElement, bool]]:
    """Every node of `root`'s subtree in document order, chrome left out: a tag as
    `(tag, True)` on the way in and `(tag, False)` on the way out (after its children),
    any other node once as `(node, True)`. `root` itself comes first and last."""
    yield root, True
    stack: list[tuple[Tag, Iterator[PageElement]]] = [(root, iter(root.contents))]
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            yield node, False
        elif not isinstance(child, Tag):
            yield child, True
        elif not _is_chrome(child):
            yield child, True
            stack.append((child, iter(child.contents)))


def tags_holding(root: Tag, names: Collection[str],
                 also: Callable[[Tag], bool] = lambda tag: False) -> set[int]:
    """`id()` of every tag under `root` that has a descendant named in `names` (or one
    `also` accepts), not counting what sits inside chrome."""
    held: set[int] = set()
    open_tags: list[Tag] = []
    for node, entering in walk(root):
        if not isinstance(node, Tag):
            continue
        if entering:
            open_tags.append(node)
            continue
        open_tags.pop()
        if open_tags and (node.name in names or id(node) in held or also(node)):
            held.add(id(open_tags[-1]))
    return held


def is_entry(tag: Tag) -> bool:
    """Whether `tag` names an object a page describes, as Sphinx writes one (a function,
    a class, a configuration value, a directive: `<dt class="sig sig-object" id=...>`):
    it starts a section of its own, one level below the section it is in, linked by
    its id."""
    return tag.name == "dt" and bool(tag.get("id")) and "sig-object" in (tag.get("class") or ())


def _entry_level(entry: Tag, heading_level: int) -> int:
    """An entry's level: one below the last heading's, and one more for each entry it is
    described under (a method under its class)."""
    return heading_level + 1 + sum(1 for parent in entry.parents
                                   if parent.name == "dd" and _follows_entry(parent))


def _follows_entry(dd: Tag) -> bool:
    previous = dd.find_previous_sibling(True)
    return isinstance(previous, Tag) and is_entry(previous)


@dataclass
class Scan:
    """What one walk over an element's subtree found."""

    text: str
    tags: set[str]
    heading_ids: list[str]


def scan(el: Tag) -> Scan:
    """The element's text with a line break after each block (none inside `<pre>`) and a
    space after table cells, the tag names under it and the ids of its headings."""
    parts: list[str] = []
    tags: set[str] = set()
    heading_ids: list[str] = []
    in_pre = 0
    for node, entering in walk(el):
        if not isinstance(node, Tag):
            if type(node) in TEXT_TYPES:
                parts.append(str(node))
        elif entering:
            tags.add(node.name)
            in_pre += node.name == "pre"
            if node.name in HEADINGS and (anchor := heading_anchor(node)):
                heading_ids.append(anchor)
        else:
            in_pre -= node.name == "pre"
            if node.name in LINE_BREAK_TAGS and not in_pre:
                parts.append("\n")
            elif node.name in ("td", "th"):
                parts.append(" ")
    return Scan(text=strip_controls("".join(parts)), tags=tags, heading_ids=heading_ids)


def heading_anchor(heading: Tag) -> str:
    """The fragment that links to `heading`: its id; else, where the heading opens an
    element with an id (docutils and Sphinx put the id on the `<section>`), that id;
    else the `#fragment` of a link of its own to itself (a "¶" permalink); else ""."""
    if heading.get("id"):
        return str(heading["id"])
    parent = heading.parent
    if isinstance(parent, Tag) and parent.get("id") and parent.find(True) is heading:
        return str(parent["id"])
    link = heading.find("a", href=re.compile(r"^#[^#\s]+$"))
    return str(link["href"])[1:] if isinstance(link, Tag) else ""


def _heading_level(el: Tag, max_level: int) -> int:
    if el.name in HEADINGS:
        level = int(el.name[1])
        if level <= max_level:
            return level
    return 0


def _block(found: Scan, name: str) -> Block:
    if name == "pre" or (name == "div" and "pre" in found.tags and "p" not in found.tags):
        return Block(text=found.text.strip("\n"), is_code=True)
    return Block(text=clean_text(found.text))


def iter_blocks(root: Tag, max_level: int) -> Iterator[Tag | NavigableString]:
    """Yield headings and content blocks in document order, flattening containers
    that hold headings so that every heading starts its own section."""
    holding = tags_holding(root, HEADINGS[:max_level], is_entry)
    stack: list[Iterator[PageElement]] = [iter(root.contents)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif isinstance(child, NavigableString):
            if type(child) in TEXT_TYPES and child.strip():
                yield child
        elif not isinstance(child, Tag) or _is_chrome(child):
            continue
        elif _heading_level(child, max_level) or is_entry(child):
            yield child
        elif child.name not in ("pre", "table") and id(child) in holding:
            stack.append(iter(child.contents))
        else:
            yield child


def split_sections(root: Tag, *, page_title: str, max_level: int) -> list[Section]:
    """Cut the content into sections at headings h1..h<max_level>."""
    sections = [Section(anchor="", level=0, path=[])]
    stack: list[tuple[int, str]] = []
    inline: list[str] = []
    heading_level = 0  # the last heading's, which entries are described under

    def flush_inline() -> None:
        text = clean_text(strip_controls(" ".join(inline)))
        inline.clear()
        if text:
            sections[-1].blocks.append(Block(text=text))

    for node in iter_blocks(root, max_level):
        if isinstance(node, NavigableString):
            inline.append(str(node))
            continue
        found = scan(node)
        level = _heading_level(node, max_level)
        if level:
            heading_level = level
        elif is_entry(node):
            level = _entry_level(node, heading_level)
        if level:
            flush_inline()
            title = " ".join(found.text.split())
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            anchor = heading_anchor(node)
            sections.append(
                Section(
                    anchor=str(anchor),
                    level=level,
                    path=[t for _, t in stack],
                    anchors=[str(anchor)] if anchor else [],
                    under_h1=stack[0][0] == 1,
                )
            )
        elif node.name in BLOCK_TAGS:
            flush_inline()
            block = _block(found, node.name)
            if node.name in HEADINGS and (anchor := heading_anchor(node)):
                block.heading = (int(node.name[1]), anchor)
            if block.text.strip():
                sections[-1].blocks.append(block)
            # Deeper headings do not start sections, but their ids still lead here.
            sections[-1].anchors.extend(found.heading_ids)
        else:
            inline.append(found.text)
    flush_inline()
    # The page's own h1 repeats the page title: keep its anchor, drop it from paths.
    for section in sections:
        if section.path and section.path[0] == page_title:
            section.path = section.path[1:]
            section.under_h1 = False
    return sections


class ChunkSizer:
    """Packs text into pieces that fit a token budget, counted with the real tokenizer.

    Every text is tokenized a bounded number of times: units are counted once and their
    counts added up (word-piece counts add across spaces and punctuation), and only the
    finished pieces are counted again, to catch the rare piece where they do not add up.
    """

    def __init__(self, count: TokenCounter, max_tokens: int) -> None:
        self.count = count
        self.max_tokens = max_tokens

    def fits(self, header: str, body: str) -> bool:
        return self.count([header + "\n" + body])[0] <= self.max_tokens

    def budget(self, header: str) -> int:
        # Tokens left for the body once the header, the separator and specials are in.
        return self.max_tokens - self.count([header + "\n"])[0]

    def body_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text without the [CLS]/[SEP] the budget already paid for."""
        return [n - 2 for n in self.count(texts)] if texts else []

    def measure(self, blocks: Sequence[Block]) -> None:
        """Count the blocks not counted yet, in one batch."""
        todo = [b for b in blocks if b.tokens < 0]
        for block, size in zip(todo, self.body_tokens([b.text for b in todo])):
            block.tokens = size

    @staticmethod
    def joined(blocks: Sequence[Block]) -> int:
        """Tokens of the blocks joined by line breaks (a line break is no token)."""
        return sum(b.tokens for b in blocks)

    def split_block(self, block: Block, budget: int) -> list[str]:
        """Split one block that is too big alone: lines for code, sentences for prose,
        and a hard cut at token boundaries for a unit that is still too big."""
        units = block.text.split("\n") if block.is_code else _sentences(block.text)
        joiner = "\n" if block.is_code else ""
        return self.pack(units, budget, joiner)

    def pack(self, units: list[str], budget: int, joiner: str) -> list[str]:
        pieces: list[str] = []
        current: list[str] = []
        used = 0
        for unit, size in zip(units, self.body_tokens(units)):
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
        # Sentences keep the space after them; lines of code keep their indentation.
        return [p if joiner else p.strip() for p in pieces if p.strip()]

    def hard_split(self, text: str, budget: int) -> list[str]:
        """Cut after every `budget` tokens, at a space where one is near: the text is
        tokenized once and cut at the tokens' character offsets."""
        if budget < 1:
            raise ValueError(f"no room for text in a chunk of {self.max_tokens} tokens")
        ends = self.count.token_ends(text)
        pieces = []
        start = 0  # character where the next piece starts
        first = 0  # its first token: the first that ends after `start`
        while first < len(ends):
            last = min(first + budget, len(ends)) - 1
            cut = ends[last]
            if last + 1 < len(ends):
                space = text.rfind(" ", start, cut + 1)
                if space > start + (cut - start) // 2:
                    cut = space
            if text[start:cut].strip():
                pieces.append(text[start:cut].strip())
            start = cut
            while first < len(ends) and ends[first] <= start:
                first += 1
        if text[start:].strip():
            pieces.append(text[start:].strip())
        return pieces

    def refit(self, pieces: list[str], header: str) -> list[str]:
        """Count each finished piece with its header once, and cut again only those
        where the added-up counts were short."""
        budget = self.budget(header)
        fitted: list[str] = []
        sizes = self.count([header + "\n" + p for p in pieces]) if pieces else []
        for piece, size in zip(pieces, sizes):
            margin = 0
            parts = [piece]
            while size > self.max_tokens:
                margin += 4
                parts = self.hard_split(piece, budget - margin)
                size = max(self.count([header + "\n" + p for p in parts]))
            fitted.extend(parts)
        return fitted


def _sentences(text: str) -> list[str]:
    """Sentences and lines, each with the white space after it, so that joining them
    gives back the text (CJK sentences are not separated by spaces)."""
    out = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.end() > start and text[start:match.end()].strip():
            out.append(text[start:match.end()])
            start = match.end()
    if text[start:].strip():
        out.append(text[start:])
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
                # a heading with nothing of its own (an h1 right above an h2) lends the
                # section its anchor only as another way in: results link to the text
                section.anchor = (prev.anchor if prev.blocks else "") or section.anchor
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
    sizer.measure([b for s in sections for b in s.blocks])
    headers = sizer.count([context_line(page.title, s.path) + "\n" for s in sections])
    sizes = [h + sizer.joined(s.blocks) for h, s in zip(headers, sections)]
    sections = _merge_tiny(sections, sizes, min_tokens, sizer.max_tokens)
    chunks: list[Chunk] = []
    for section in sections:
        header = context_line(page.title, section.path)
        pieces = _fit_section(section, header, sizer)
        for body, (code, mid_sentence, link) in zip(pieces, _piece_layout(section, pieces)):
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
                    code=code,
                    mid_sentence=mid_sentence,
                    link_anchor=link[0] if link else "",
                    link_path=_shown_path(section, link),
                )
            )
    return chunks


def _shown_path(section: Section, link: Link | None) -> list[str] | None:
    """The heading path results show, or None when it is the section's path."""
    if not link and not section.under_h1:
        return None
    return [*section.path[section.under_h1:], *(link[1] if link else [])]


Link = tuple[str, list[str]]
"""A heading id and the heading titles from the section's heading down to it."""


def _piece_layout(section: Section, pieces: list[str]
                  ) -> list[tuple[list[list[int]], bool, Link | None]]:
    """For each piece of the section's body: where its code blocks lie in it, whether it
    starts inside a sentence (a prose block cut elsewhere than after a sentence), and the
    deepest sub-heading whose part holds the whole piece, if any."""
    body = section.body
    blocks: list[tuple[int, int, bool]] = []
    headings: list[tuple[int, int, int, str, str]] = []  # start, end, level, id, title
    at = 0
    for block in section.blocks:
        blocks.append((at, at + len(block.text), block.is_code))
        if block.heading:
            headings.append((at, at + len(block.text), *block.heading,
                             " ".join(block.text.split())))
        at += len(block.text) + 1
    layout: list[tuple[list[list[int]], bool, Link | None]] = []
    cursor = 0
    for piece in pieces:
        start = body.find(piece, cursor)
        if start < 0:  # not cut from the body (a heading standing for an empty section)
            layout.append(([], False, None))
            continue
        end = cursor = start + len(piece)
        code = [[max(a, start) - start, min(b, end) - start] for a, b, is_code in blocks
                if is_code and a < end and b > start]
        inside = next((a for a, b, is_code in blocks if a < start < b and not is_code), None)
        mid_sentence = inside is not None and not _SENTENCE_TAIL.search(body[inside:start])
        layout.append((code, mid_sentence, _covering(headings, start, end, section.level)))
    return layout


def _covering(headings: list[tuple[int, int, int, str, str]], start: int, end: int,
              level: int) -> Link | None:
    """The deepest sub-heading whose part (up to the next heading of its level or
    above) holds all of [start, end), with the titles leading to it. A heading that
    ends the piece, with none of its text after it, does not count."""
    open_: list[tuple[int, str, str]] = []  # the sub-headings in force at `start`
    for at, _, depth, anchor, title in headings:
        if depth <= level:  # a section merged in from elsewhere: no sub-heading covers it
            if at < end:
                return None
            break
        if at > start:
            break
        while open_ and open_[-1][0] >= depth:
            open_.pop()
        open_.append((depth, anchor, title))
    later = [depth for at, stop, depth, _, _ in headings if start < at and stop < end]
    while open_ and any(depth <= open_[-1][0] for depth in later):
        open_.pop()
    return (open_[-1][1], [title for _, _, title in open_]) if open_ else None


def _fit_section(section: Section, header: str, sizer: ChunkSizer) -> list[str]:
    body = section.body
    if not body.strip():
        # A heading with nothing under it is still findable by its words.
        return [section.path[-1]] if section.path and section.path[-1] else []
    sizer.measure(section.blocks)  # merging may have added heading blocks
    budget = sizer.budget(header)
    if sizer.joined(section.blocks) <= budget and sizer.fits(header, body):
        return [body]
    if budget < 16:
        raise ValueError(
            f"the heading path {header!r} leaves {budget} tokens for text; "
            "raise max_tokens or lower heading_levels"
        )
    pieces: list[str] = []
    current: list[Block] = []
    used = 0
    for block in section.blocks:
        if current and (block.tokens > budget or used + block.tokens > budget):
            pieces.append("\n".join(b.text for b in current))
            current, used = [], 0
        if block.tokens > budget:
            pieces.extend(sizer.split_block(block, budget))
        else:
            used += block.tokens
            current.append(block)
    if current:
        pieces.append("\n".join(b.text for b in current))
    return sizer.refit(pieces, header)


def page_chunk(sections: list[Section], page: PageFacts, sizer: ChunkSizer) -> Chunk | None:
    """One chunk for the page as a whole: its title and lead paragraphs."""
    lead: list[Block] = []
    for section in sections:
        for block in section.blocks:
            if not block.is_code:
                lead.append(block)
            if len(lead) >= PAGE_LEAD_MAX_BLOCKS:
                break
        if lead:
            break
    text = "\n".join(b.text for b in lead)
    if not page.title and not text:
        return None
    header = page.title
    if text:
        budget = sizer.budget(header)
        sizer.measure(lead)  # a merged heading block may not be counted yet
        if sizer.joined(lead) > budget:
            # Only the first piece is kept: pack no more text than it can hold.
            text = sizer.pack(_sentences(text[: budget * 48]), budget, "")[0]
        text = sizer.refit([text], header)[0]
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
    page = replace(page, title=strip_controls(page.title))
    try:
        root = parse_content(html)
    except RecursionError:
        raise ValueError("its HTML nests elements too deeply for the HTML parser; "
                         "flatten the nesting or exclude the page") from None
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
