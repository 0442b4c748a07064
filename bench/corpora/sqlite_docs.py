"""Build the `sqlite-docs` corpus: SQLite's documentation, as Markdown.

Downloads Debian's `sqlite3-doc` package (`apt-get download`, no root needed; run
`apt-get update` first on a fresh machine) and pandoc (the static binary in PyPI's
`pypandoc_binary` wheel, common.py's `pandoc_binary`), unpacks the package with
`dpkg-deb -x` and converts the pages of its copy of the SQLite website
(usr/share/doc/sqlite3/, English only). Taken: the top-level pages (the guides, the
`lang_*` SQL language pages, `pragma`, the file format, locking, WAL, FTS3/FTS5, JSON,
R*Tree, the command-line shell, ...) and the C interface's reference, `c3ref/`, one page
a function, object or group of constants. Left out (`LEFT_OUT`): release notes and
news, the legal, download, support and project pages, the site maps, indexes and link
lists (with `capi3ref` and `requirements`, which gather the other pages' text on one
page, and `c3ref`'s function, constant and object lists), two stubs, and the pages
that describe SQLite version 2 or say they are obsolete; `fileformat` is a byte-for-byte
copy of `fileformat2` and links to it go there. Not taken: `releaselog/`, `syntax/`
(the syntax diagrams), `session/` (the session extension's own C reference), images.

The pages' HTML leaves many end tags implied (`<p>`, `<li>`, `<td>` never closed),
which Python's parser nests instead of closing, so each page is first rewritten with
those end tags made explicit (`Closer`), and the few placeholders written as bare tags
(`<language-id>` in `fts3`) kept as text. A page is its main content: the site's
header, menus and scripts, the table of contents, the syntax diagrams (SVG) with their
show/hide buttons and labels, images and the "last modified" footer go. Its title is
the page's big title (`div.fancy_title`), else its first heading when the page starts
with one, else its `<title>` (a `c3ref` page's); the headings below move up to follow
it, their numbers ("2.1. ") dropped, sections left empty go. `pragma`'s hidden
per-pragma headings become `## PRAGMA journal_mode` sections, a bold paragraph right
after a named anchor (`compile`'s options, `faq`'s questions) a heading, and `opcode`'s
table of opcodes a heading an opcode. Blockquotes (the site's indentation) are
unwrapped; code is fenced; definition lists are the term in bold then its description;
cells of tables are joined so that tables stay pipe tables. Links to pages of the
corpus become relative `.md` links (to the part holding the anchor, anchors dropped),
other internal links their text.

Long pages are split rather than cut: most of the site's long pages are references
whose names are what readers look up (`pragma` has ~12,000 words and 70 pragmas, cut it
would keep those up to `cache_size`; `compile`, `cli`, `opcode`, `fts5`, `rescode`,
`fileformat2`, `vtab` likewise). A page whose Markdown passes 3,000 words is split
between its top-level sections (a section of more than half that in text between its
subsections, and so on), packed in order into parts of at most ~2,940 words,
`<stem>.md`, `<stem>-2.md`, ... (common.py's `parts_of`); a part still over the cap (a
long section with no subsection) is cut as in the other corpora. Pages are laid out as
`docs/<stem>.md` (URL `<stem>/`) and `docs/c3ref/<stem>.md` (URL `c3ref/<stem>/`).

    python bench/corpora/sqlite_docs.py [--out bench/.cache/sqlite-docs/source]

Downloads stay in bench/.cache/sqlite-docs/downloads (reused); the project's SOURCES.md
records the package's version and licence.
"""

from __future__ import annotations

import html
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

NAME = "sqlite-docs"
TITLE = "SQLite documentation"
PACKAGE = "sqlite3-doc"
SITE = Path("usr/share/doc/sqlite3")
API = "c3ref"
LEFT_OUT = {
    # release notes, news and history
    "34to35", "35to36", "changes", "chronology", "news", "oldnews",
    "pressrelease-20071212", "formatchng", "pgszchng2016", "version3",
    # legal, download, support and project pages
    "copyright", "copyright-release", "consortium", "consortium_agreement-20071201",
    "codeofconduct", "codeofethics", "crew", "famous", "books", "download", "getthecode",
    "support", "prosupport", "lts",
    # site maps, indexes, link lists, and pages gathering the others' text on one page
    "index", "sitemap", "docs", "doclist", "keyword_index", "doc_backlink_crossref",
    "doc_keyword_crossref", "doc_pagelink_crossref", "doc_target_crossref", "lang",
    "syntax", "syntaxdiagrams", "fullsql", "capi3ref", "requirements", "session",
    "c3ref/funclist", "c3ref/constlist", "c3ref/objlist",
    # stubs: a redirect to cli.html, "Javascript required"
    "sqlite", "hp1",
    # SQLite version 2, or obsolete by their own note
    "c_interface", "datatypes", "capi3", "vdbe",
    # a copy of fileformat2 (see ALIASES)
    "fileformat",
}
ALIASES = {"fileformat": "fileformat2", "sqlite": "cli"}
"""Pages left out whose links go to the page that holds their text."""
SECTIONS = {"": "Guides", "lang": "SQL language", API: "C/C++ interface"}
MARKER = "SQLITEDOCSPLIT"  # a paragraph between a page's segments
CODE = "sqcode"  # a placeholder class for `fence` and `tidy`
HEADINGS = common.HEADINGS
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "param", "source", "track", "wbr"}
P_CLOSERS = {"address", "article", "aside", "blockquote", "div", "dl", "fieldset",
             "figure", "footer", "form", "header", "hr", "menu", "nav", "ol", "p", "pre",
             "section", "table", "ul", *HEADINGS}
IMPLIED = {
    # tag: (the open tags it closes, the open tags that stop the search)
    "li": ({"li"}, {"ul", "ol", "table", "td", "th"}),
    "dt": ({"dt", "dd"}, {"dl", "table", "td", "th"}),
    "dd": ({"dt", "dd"}, {"dl", "table", "td", "th"}),
    "tr": ({"tr"}, {"table"}),
    "td": ({"td", "th"}, {"tr", "table"}),
    "th": ({"td", "th"}, {"tr", "table"}),
}
P_SCOPE = {"table", "td", "th", "caption", "button", "object"}
KNOWN = {
    *HEADINGS, *VOID, "a", "abbr", "b", "big", "blockquote", "body", "button", "caption",
    "center", "cite", "code", "colgroup", "dd", "div", "dl", "dt", "em", "font", "form",
    "head", "html", "i", "kbd", "label", "li", "nobr", "ol", "option", "p", "pre", "s",
    "samp", "script", "select", "small", "span", "strike", "strong", "style", "sub",
    "sup", "table", "tbody", "td", "textarea", "tfoot", "th", "thead", "title", "tr",
    "tt", "u", "ul", "var", "svg", "circle", "ellipse", "g", "line", "path", "polygon",
    "polyline", "rect", "text",
    "h",  # `pragma`'s hidden headings (`prepare`)
}
"""The elements the site uses; any other tag is a placeholder written unescaped in the
text (`<language-id>` in `fts3`, `<variable-name>` in `compile`): left as a tag, it would
swallow the rest of the page."""


# --- implied end tags ------------------------------------------------------------------

class Closer(HTMLParser):
    """The page's HTML again with the end tags HTML lets it leave out written: an open
    `<p>` ends at the next block, `<li>` at the next item, `<td>`, `<tr>`, `<dt>` and
    `<dd>` likewise, any element at an end tag of one that holds it; stray end tags
    go; a tag that is no element (`KNOWN`) is text. Tags, attributes, text and entities
    are written as they were."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.out: list[str] = []
        self.open: list[str] = []

    def close_to(self, index: int) -> None:
        while len(self.open) > index:
            self.out.append(f"</{self.open.pop()}>")

    def last(self, names: set[str], stops: set[str]) -> int | None:
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index] in names:
                return index
            if self.open[index] in stops:
                return None
        return None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag not in KNOWN:
            self.out.append(html.escape(self.get_starttag_text() or "", quote=False))
            return
        if tag in P_CLOSERS:
            found = self.last({"p"}, P_SCOPE)
            if found is not None:
                self.close_to(found)
        if tag in IMPLIED:
            found = self.last(*IMPLIED[tag])
            if found is not None:
                self.close_to(found)
        self.out.append(self.get_starttag_text() or "")
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        text = self.get_starttag_text() or ""
        self.out.append(text if tag in KNOWN else html.escape(text, quote=False))

    def handle_endtag(self, tag: str) -> None:
        if tag not in KNOWN:
            self.out.append(f"&lt;/{tag}&gt;")
        elif tag in self.open:
            self.close_to(len(self.open) - 1 - self.open[::-1].index(tag))

    def handle_data(self, data: str) -> None:
        self.out.append(data)

    def handle_entityref(self, name: str) -> None:
        self.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.out.append(f"&#{name};")

    def handle_comment(self, data: str) -> None:
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")


def closed(html: str) -> str:
    """`html` with its implied end tags written (see `Closer`)."""
    closer = Closer()
    closer.feed(html)
    closer.close()
    closer.close_to(0)
    return "".join(closer.out)


# --- which pages ----------------------------------------------------------------------

def select_pages(site: Path) -> dict[str, list[str]]:
    """Each section's page keys (`lang_select`, `c3ref/prepare`), sorted."""
    top = [stem for stem in sorted(p.stem for p in site.glob("*.html"))
           if stem not in LEFT_OUT]
    sections = {"": [s for s in top if not s.startswith("lang_")],
                "lang": [s for s in top if s.startswith("lang_")],
                API: [key for key in (f"{API}/{p.stem}" for p in sorted(site.glob(f"{API}/*.html")))
                      if key not in LEFT_OUT]}
    for label, keys in sections.items():
        if not keys:
            raise SystemExit(f"{NAME}: no pages for {SECTIONS[label]} in {site}")
    return sections


# --- one page -------------------------------------------------------------------------

def content_of(site: Path, key: str) -> tuple[str, Tag]:
    """The page's title and its main content, the site's navigation and furniture
    gone."""
    soup = BeautifulSoup(closed((site / f"{key}.html").read_text(encoding="utf-8")),
                         "html.parser")
    page_title = common.text_of(soup.title) if soup.title else ""
    for tag in soup.select("script, style, svg, img, button, div.imgcontainer, "
                           "div.fancy_toc"):
        tag.decompose()
    for para in soup.find_all("p"):
        if "This page last modified" in para.get_text():
            para.decompose()
    fancy = soup.select_one("div.fancy")
    if fancy is not None:
        big = fancy.select_one("div.fancy_title")
        title = common.text_of(big) if big is not None else page_title
        for after in list(fancy.next_siblings):  # `opcode` closes the div before its table
            fancy.append(after.extract())
        content = fancy
    else:
        content = soup.body
        title = page_title
    if content is None:
        raise SystemExit(f"{NAME}: no body in {key}.html")
    for tag in content.select("div.nosearch"):
        tag.decompose()
    if fancy is None and not key.startswith(f"{API}/"):
        first = first_block(content)
        if first is not None and first.name in HEADINGS:
            title = common.text_of(first)
            first.decompose()
    if key.startswith(f"{API}/"):
        for para in content.find_all("p"):
            if common.text_of(para).startswith("See also lists of"):
                para.decompose()
    if not title:
        raise SystemExit(f"{NAME}: no title in {key}.html")
    return title, content


def first_block(content: Tag) -> Tag | None:
    """The content's first heading or block of text."""
    for tag in content.find_all(True):
        if tag.name in HEADINGS or tag.name in common.BLOCKS - {"div"}:
            return tag
    return None


def prepare(content: Tag) -> None:
    """Headings made plain: `pragma`'s hidden ones (`<h _id=...>`) shown as h2, numbers
    dropped; syntax diagrams' labels and blockquotes (indentation) gone."""
    for hidden in content.find_all("h"):
        hidden.name = "h2"
        hidden.attrs = {"id": hidden.get("_id", "")}
        hidden.string = common.text_of(hidden)
    for heading in content.find_all(HEADINGS):
        first = heading.find("span")
        if first is not None and re.fullmatch(r"[\d.]+\s*", first.get_text()):
            first.decompose()
    for para in content.find_all("p"):
        links = para.find_all("a")
        if (len(links) == 1 and links[0].get("href", "").startswith("syntax/")
                and common.text_of(para) == common.text_of(links[0])
                and common.text_of(para).endswith(":")):
            para.decompose()  # a syntax diagram's label, the diagram gone
    for quote in content.find_all("blockquote"):
        quote.unwrap()
    for rule in content.find_all("hr"):
        rule.decompose()
    for table in content.find_all("table"):
        named_rows(table)
    terms = [(para, level_below(para)) for para in named_terms(content)]
    for para, rank in terms:
        para.name = f"h{rank}"
        para.attrs = {}
        para.string = common.text_of(para)
    for wrapper in content.find_all("div", recursive=False):
        if wrapper.find(HEADINGS) is not None and not wrapper.get("class"):
            wrapper.unwrap()
    for heading in reversed(content.find_all(HEADINGS, recursive=False)):
        after = heading.find_next_sibling(True)
        if after is None or (common.level(after) or 9) <= common.level(heading):
            heading.decompose()  # an empty section (a syntax diagram's, mostly)


def named_rows(table: Tag) -> None:
    """A two-column table whose rows each start with a named anchor and a name
    (`opcode`'s 186 opcodes) as a heading a row, one level below the section's, then
    its description: one pipe table of 16,000 words could be neither split nor cut."""
    rows = [row for row in table.find_all("tr") if row.find("td") is not None]
    cells = [row.find_all("td") for row in rows]
    if not rows or any(len(pair) != 2 or pair[0].find("a", attrs={"name": True}) is None
                       for pair in cells):
        return
    holder = table.parent if table.parent is not None and table.parent.name == "div" else None
    rank = level_below(holder or table)
    soup = BeautifulSoup("", "html.parser")
    for name, description in cells:
        heading = soup.new_tag(f"h{rank}", attrs={"id": name.a["name"]})
        heading.string = common.text_of(name)
        table.insert_before(heading)
        description.name = "div"
        description.attrs = {}
        table.insert_before(description.extract())
    table.decompose()
    if holder is not None:
        holder.unwrap()


def named_terms(content: Tag) -> list[Tag]:
    """Paragraphs all in bold right after a named anchor (`<a name=...></a>`): the
    site's defined terms (`compile`'s options, `faq`'s questions)."""
    found = []
    for anchor in content.find_all("a", attrs={"name": True}):
        para = anchor.find_next_sibling(True)
        if anchor.get_text(strip=True) or para is None or para.name != "p":
            continue
        parts = [c for c in para.contents if isinstance(c, Tag) or c.strip()]
        if len(parts) == 1 and parts[0].name == "b":
            found.append(para)
    return found


def level_below(para: Tag) -> int:
    """The heading level one below the section the paragraph is in (2 outside any)."""
    above = para.find_previous_sibling(HEADINGS)
    return min(int(above.name[1]) + 1, 6) if above is not None else 2


def convert(site: Path, key: str, pandoc: Path) -> common.Page:
    """The page as Markdown segments, links to the corpus left as placeholders."""
    title, content = content_of(site, key)
    prepare(content)
    return common.sectioned_page(NAME, key, title, content, pandoc,
                                 clean=lambda page: clean(page, key), marker=MARKER, code=CODE)


# --- cleaning -------------------------------------------------------------------------

def clean(html: str, key: str) -> str:
    """The page's content as HTML for pandoc."""
    body = BeautifulSoup(f"<div>{html}</div>", "html.parser").div
    headings = body.find_all(HEADINGS)
    common.shift_headings(headings)
    for heading in headings:
        for tag in heading.find_all(["span", "a"]):
            tag.unwrap()
    common.flatten_body(body, CODE, lambda link: relink(link, key), cell_paragraphs=True)
    return str(body)


def relink(link: Tag, key: str) -> None:
    """`common.relink_page`, links to a page's copy going to the page (`ALIASES`)."""
    common.relink_page(link, key, ALIASES)


# --- the project ----------------------------------------------------------------------

def index(source: common.Source, sections: dict[str, list[common.Part]]) -> str:
    intro = (f"SQLite's documentation (Debian's {source.name} {source.version}): the "
             "guides, the SQL language, the pragmas, the file formats, the extensions, "
             "the command-line shell and the C/C++ interface's reference.")
    return common.sectioned_index(TITLE, intro, sections, SECTIONS)


def main() -> int:
    return common.sectioned_main(NAME, TITLE, PACKAGE, SITE, SECTIONS, select_pages,
                                 convert, index, __doc__)


if __name__ == "__main__":
    sys.exit(main())
