"""Index any built HTML site (Hugo, Sphinx, Docusaurus, hand-written...), as Pagefind does.

Each page's main content is the first of `[data-pagefind-body]`, `main`,
`article`, `[role=main]` or `body`, minus `nav`, `aside`, `footer` and site
`header`s; its title is the first `h1`, else `<title>`. URLs are relative to the
site root, with directory URLs (`guide/index.html` -> `guide/`, the home page
is `""`). A page's section is its first URL folder (`guide`), "" at the root.
Symbolic links that lead out of the site are skipped with a warning.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup, Tag

from ..bundle.format import BundleError
from ..bundle.reader import read_bundle
from ..chunk import Chunk, PageFacts
from .html_chunks import tags_holding
from .indexer import Indexer

CONTENT_SELECTORS = ("[data-pagefind-body]", "main", "article", "[role=main]", "body")
CHROME = ("nav", "aside", "footer", "header")
SKIPPED_FILES = {"404.html"}

log = logging.getLogger(__name__)


@dataclass
class Page:
    """One HTML page reduced to what chunking needs."""

    facts: PageFacts
    html: str
    path: Path


def iter_html(site: Path, *, skip: Path | None = None) -> Iterator[Path]:
    """HTML files under `site` in a stable order, leaving out `skip` (the bundle folder)
    and symbolic links that lead out of the site (with a warning naming each)."""
    root = site.resolve()
    for folder in _linked_folders(site):
        if not _inside(folder, root):
            log.warning("skipped %s: it is a link to %s, outside the site %s",
                        folder, _target(folder), site)
    for path in sorted(site.rglob("*.html")):
        if skip is not None and path.is_relative_to(skip):
            continue
        if path.relative_to(site).as_posix() in SKIPPED_FILES or not path.is_file():
            continue
        if not _inside(path, root):
            log.warning("skipped %s: it is a link to %s, outside the site %s",
                        path, _target(path), site)
            continue
        yield path


def _linked_folders(site: Path) -> list[Path]:
    """The links to folders under `site` (rglob does not enter them)."""
    found = []
    for folder, dirs, _ in os.walk(site):
        found += [Path(folder, name) for name in sorted(dirs) if Path(folder, name).is_symlink()]
    return sorted(found)


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve(strict=True).is_relative_to(root)
    except (OSError, RuntimeError):  # a link loop, or a link that vanished
        return False


def _target(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError) as exc:
        return f"nowhere ({exc})"


def page_url(site: Path, path: Path) -> str:
    """`guide/index.html` -> `guide/`; `index.html` -> `""`; `a/b.html` stays."""
    rel = path.relative_to(site).as_posix()
    if rel == "index.html":
        return ""
    if rel.endswith("/index.html"):
        return rel[: -len("index.html")]
    return rel


def read_page(site: Path, path: Path) -> Page | None:
    """The page's main content and facts; None for redirects and `noindex` pages."""
    # The first of repeated attributes wins, as in browsers (and in chunking).
    soup = BeautifulSoup(path.read_bytes(), "html.parser", on_duplicate_attribute="ignore")
    for meta in soup.find_all("meta"):
        name = str(meta.get("name", "")).lower()
        if (str(meta.get("http-equiv", "")).lower() == "refresh"
                or (name == "robots" and "noindex" in str(meta.get("content", "")).lower())):
            return None
    content = main_content(soup)
    h1 = content.find("h1")
    for mark in h1.select(".headerlink") if h1 is not None else []:
        mark.decompose()  # the permalink sign (toc permalink: true) is no part of a title
    title_tag = soup.find("title")
    title = " ".join(shown.get_text().split()) if (shown := h1 or title_tag) else ""
    url = page_url(site, path)
    section = url.split("/", 1)[0] if "/" in url else ""
    return Page(facts=PageFacts(url=url, title=title or path.stem, section=section),
                html=str(content), path=path)


def main_content(soup: BeautifulSoup) -> Tag:
    """The page's content element with site chrome removed."""
    marked = soup.select("[data-pagefind-body]")
    if len(marked) > 1:
        content = soup.new_tag("div")
        for el in marked:
            content.append(el.extract())
    elif marked:
        content = marked[0]
    else:
        found = (soup.select_one(selector) for selector in CONTENT_SELECTORS[1:])
        content = next((el for el in found if el is not None), soup)
    for el in _outermost_chrome(content):
        el.decompose()
    return content


def _outermost_chrome(content: Tag) -> list[Tag]:
    """Chrome elements not inside other chrome, in one walk over the tree.

    A header holding an h1 is an article's own header: it stays. (A find per header,
    or bs4's `decomposed`, which searches the subtree, costs time in the square of
    the nesting depth.)
    """
    titled = tags_holding(content, ("h1",))
    found: list[Tag] = []
    stack = [iter(content.contents)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif isinstance(child, Tag):
            if child.name in CHROME and not (child.name == "header" and id(child) in titled):
                found.append(child)
            else:
                stack.append(iter(child.contents))
    return found


@dataclass
class SitePlan:
    """What `index --dry-run` reports: page and chunk changes against the existing bundle."""

    pages: int
    chunks: int
    pages_new: list[str] = field(default_factory=list)
    pages_changed: list[str] = field(default_factory=list)
    pages_removed: list[str] = field(default_factory=list)
    chunks_new: int = 0
    chunks_removed: int = 0
    from_cache: int = 0
    to_embed: int = 0
    existing_bundle: bool = False
    note: str = ""


def chunk_site(site: Path, indexer: Indexer, *,
               bundle_dir: Path) -> tuple[list[tuple[Path, str]], list[Chunk]]:
    """Read and chunk every page; returns the indexed pages (file, URL), the pages
    that gave chunks, and the chunks."""
    chunks: list[Chunk] = []
    indexed: list[tuple[Path, str]] = []
    for path in iter_html(site, skip=bundle_dir):
        page = read_page(site, path)
        if page is None:
            continue
        try:
            page_chunks = indexer.chunk(page.html, page.facts)
        except ValueError as exc:
            raise BundleError(f"cannot chunk {path}: {exc}") from exc
        if page_chunks:
            indexed.append((path, page.facts.url))
            chunks.extend(page_chunks)
    return indexed, chunks


def plan_site(chunks: list[Chunk], indexer: Indexer, *, bundle_dir: Path) -> SitePlan:
    """Compare `chunks` with the bundle in `bundle_dir` (if any) and with the cache."""
    new_pages = _texts_by_page(chunks)
    cache_plan = indexer.plan(chunks)
    to_embed = sum(len(rows) for rows in cache_plan.missing.values())
    plan = SitePlan(pages=len(new_pages), chunks=len(chunks), from_cache=len(chunks) - to_embed,
                    to_embed=to_embed)
    try:
        old_chunks = read_bundle(bundle_dir).chunks if bundle_dir.exists() else None
    except BundleError as exc:
        old_chunks, plan.note = None, f"the existing bundle is unreadable ({exc})"
    if old_chunks is None:
        plan.pages_new, plan.chunks_new = list(new_pages), len(chunks)
        return plan
    plan.existing_bundle = True
    old_pages = _texts_by_page(old_chunks)
    plan.pages_new = [u for u in new_pages if u not in old_pages]
    plan.pages_removed = [u for u in old_pages if u not in new_pages]
    plan.pages_changed = [u for u in new_pages if u in old_pages and new_pages[u] != old_pages[u]]
    old_texts = {c.embed_text for c in old_chunks}
    new_texts = {c.embed_text for c in chunks}
    plan.chunks_new = sum(1 for c in chunks if c.embed_text not in old_texts)
    plan.chunks_removed = sum(1 for c in old_chunks if c.embed_text not in new_texts)
    return plan


def _texts_by_page(chunks: Iterable[Chunk]) -> dict[str, list[str]]:
    pages: dict[str, list[str]] = {}
    for chunk in chunks:
        pages.setdefault(chunk.url, []).append(chunk.embed_text)
    return pages
