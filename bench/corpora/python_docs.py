"""Build the `python-docs` corpus: part of the Python 3.11 documentation, as Markdown.

Downloads Debian's `python3.11-doc` package (`apt-get download`, no root needed; run
`apt-get update` first on a fresh machine) and pandoc (the static binary in PyPI's
`pypandoc_binary` wheel, common.py's `pandoc_binary`), unpacks the package with
`dpkg-deb -x` and converts a coherent part of its Sphinx HTML
(usr/share/doc/python3.11/html/) to an MkDocs project: every page of tutorial/,
howto/, faq/ and using/, the built-in functions, constants, types and exceptions, and
the module pages of the library chapters in CHAPTERS (found through each chapter's
table of contents, sub-pages such as asyncio-task included), less EXCLUDED.

A page is its main content only (Sphinx's `div[role=main]`; permalinks "¶", images
and the navigation go): the first h1 becomes the page's `# title`, the rest goes
through pandoc (`-f html -t gfm-raw_html --wrap=none`) with code blocks fenced,
object descriptions (`def`, `class`, options) as a code line then their text, links
to pages of the corpus as relative `.md` links (anchors dropped) and other internal
links as plain text. Pages are cut at the first paragraph past ~3,000 words; laid out
as `docs/<section>/<stem>.md` (URL `<section>/<stem>/`, a section's index page
`<section>/`).

    python bench/corpora/python_docs.py [--out bench/.cache/python-docs/source]

Downloads stay in bench/.cache/python-docs/downloads (reused); the project's
SOURCES.md records the package's version and licence.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

NAME = "python-docs"
PACKAGE = "python3.11-doc"
HTML = Path("usr/share/doc/python3.11/html")
# Whole sections, every page (index.html included, as `<section>/index.md`).
SECTIONS = {"tutorial": "Tutorial", "howto": "HOWTOs", "faq": "FAQ",
            "using": "Using Python"}
# library/: these pages, then the modules of these chapters (chapter pages themselves,
# which are tables of contents only, are left out).
BUILTINS = ("functions", "constants", "stdtypes", "exceptions")
CHAPTERS = (
    "text", "datatypes", "numeric", "functional", "filesys", "persistence", "archiving",
    "fileformats", "crypto", "allos", "concurrency", "ipc", "netdata", "internet",
    "development", "debug", "python",
)
# Out of scope (curses, ctypes, CPython's test package, the email package's 15
# sub-pages) or next to empty (the package pages that only list their modules).
EXCLUDED = {"curses", "curses.ascii", "curses.panel", "ctypes", "test", "concurrent",
            "urllib", "xmlrpc"}
EXCLUDED_PREFIXES = ("email.",)
CODE_LANGUAGES = {"python3": "python", "python": "python", "default": "python",
                  "pycon": "pycon", "shell": "shell", "sh": "sh", "bash": "bash",
                  "doscon": "doscon", "c": "c", "ini": "ini", "json": "json", "xml": "xml",
                  "yaml": "yaml", "sql": "sql"}  # any other: text
PILCROW = "\u00b6"
HEADING_TAG = re.compile(r"^h[1-6]$")


# --- downloads ------------------------------------------------------------------------

def psf_licence(copyright_text: str) -> str:
    """The PSF License if the package's Debian copyright file holds its text."""
    return ("PSF License (Python Software Foundation License Version 2)"
            if "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2" in copyright_text
            else "see its Debian copyright file")


# --- which pages ----------------------------------------------------------------------

def main_content(path: Path) -> Tag:
    soup = common.soup_of(path)
    body = soup.select_one("div[role=main]") or soup.select_one("div.body")
    if body is None:
        raise SystemExit(f"{NAME}: no div[role=main] in {path}")
    return body


def toctree(path: Path) -> list[str]:
    """The stems of the library pages listed in a page's tables of contents."""
    stems: list[str] = []
    if "toctree-wrapper" not in path.read_text(encoding="utf-8"):
        return stems
    for link in main_content(path).select("div.toctree-wrapper li > a[href]"):
        target = link["href"].split("#")[0]
        if target.endswith(".html") and "/" not in target:
            stem = target[: -len(".html")]
            if stem not in stems:
                stems.append(stem)
    return stems


def library_pages(html: Path) -> list[str]:
    """BUILTINS, then each chapter's modules and their sub-pages, first seen first."""
    library = html / "library"
    pages = list(BUILTINS)
    for chapter in CHAPTERS:
        queue = toctree(library / f"{chapter}.html")
        while queue:
            stem = queue.pop(0)
            if stem in pages or stem in EXCLUDED or stem.startswith(EXCLUDED_PREFIXES):
                continue
            pages.append(stem)
            queue += toctree(library / f"{stem}.html")
    return [f"library/{stem}" for stem in pages]


def select_pages(html: Path) -> list[str]:
    """Page paths without `.html` (`tutorial/index`, `library/itertools`), in nav order."""
    pages = []
    for section in SECTIONS:
        pages += [f"{section}/{stem}" for stem in common.html_stems(html / section)]
    return pages + library_pages(html)


def markdown_path(page: str) -> str:
    return f"{page}.md"


# --- one page -------------------------------------------------------------------------

def clean(body: Tag, page: str, pages: set[str]) -> str:
    """The main content as HTML pandoc turns into plain Markdown; the title h1 removed
    (see title_of)."""
    for tag in body.select("a.headerlink, img, script, style, hr"):
        tag.decompose()
    for block in body.select("div[class*=highlight-]"):
        language = next((c[len("highlight-"):] for c in block["class"]
                         if c.startswith("highlight-")), "")
        pre = block.find("pre")
        code = BeautifulSoup("<pre><code></code></pre>", "html.parser")
        code.code.string = pre.get_text() if pre else block.get_text()
        code.code["class"] = [CODE_LANGUAGES.get(language, "text")]
        block.replace_with(code.pre)
    common.inline_labels(body, PILCROW)  # "Note" -> "**Note:** text..."
    for code in body.find_all("code"):  # `<span class="pre">` pieces as one literal
        if code.find_parent("pre") is None:
            code.string = code.get_text()
    for dl in body.find_all("dl"):  # an object's signature (`dl.py`, ...) as a code line
        common.flatten_definitions(dl, signatures=True, drop=PILCROW)
    for cell in body.find_all(["td", "th"]):
        flatten_cell(cell)
    headings = body.find_all(HEADING_TAG)
    if headings and headings[0].name == "h1":
        headings.pop(0).decompose()
    if any(h.name == "h1" for h in headings):  # several top sections: all one down
        for heading in headings:
            heading.name = f"h{min(int(heading.name[1]) + 1, 6)}"
    for link in body.find_all("a"):
        relink(link, page, pages)
    return str(body)


def flatten_cell(cell: Tag) -> None:
    """A table cell of several blocks (paragraphs, lists, code) as one paragraph, so
    that pandoc can write the table as a pipe table (else it writes `[TABLE]`). Unlike
    common's `flatten_cell`, any tag counts as a block and text between tags goes."""
    blocks = [c for c in cell.children if isinstance(c, Tag)]
    if len(blocks) <= 1 and not any(b.name in ("ul", "ol", "pre", "div", "blockquote")
                                    for b in blocks):
        return
    soup = BeautifulSoup("", "html.parser")
    para = soup.new_tag("p")
    for block in blocks:
        if para.contents:
            para.append(" ")
        if block.name == "p":
            for part in list(block.contents):
                para.append(part.extract())
        else:
            para.append(common.text_of(block, PILCROW))
    cell.clear()
    cell.append(para)


def relink(link: Tag, page: str, pages: set[str]) -> None:
    """A link to a page of the corpus as a relative `.md` link, an external link as
    it is, any other (and any link in a heading) as its text."""
    if link.find_parent(HEADING_TAG) is not None:  # a heading keeps only its text
        link.unwrap()
        return
    if common.keep_external(link):
        return
    target = link.get("href", "").split("#")[0]
    if target.endswith(".html"):
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
        resolved = resolved[: -len(".html")]
        if resolved in pages and resolved != page:
            link.attrs = {"href": common.relative_link(markdown_path(resolved), page)}
            return
    link.unwrap()


def title_of(body: Tag, page: str) -> str:
    h1 = body.find("h1")
    return common.text_of(h1, PILCROW) if h1 else page.rsplit("/", 1)[-1]


def to_markdown(page: str, html: Path, pages: set[str], pandoc: Path) -> str:
    body = main_content(html / f"{page}.html")
    title = title_of(body, page)
    markdown, error = common.html_to_markdown(pandoc, clean(body, page, pages))
    if not markdown:
        raise SystemExit(f"{NAME}: pandoc failed on {page}.html: {error}")
    text = f"# {title}\n\n{tidy(markdown).strip()}\n"
    return common.cap_words(text)[0]


def tidy(markdown: str) -> str:
    """Drop pandoc's leftovers (a lone backslash, stray pilcrows), trailing blanks and
    runs of blank lines outside code (common's `tidy` keeps hard line breaks and knows
    no pilcrows)."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if common.FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            if line.strip() == "\\":
                continue
            line = line.replace(PILCROW, "").rstrip()
        lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))


def convert_all(pages: list[str], html: Path, pandoc: Path) -> dict[str, str]:
    known = set(pages)
    texts = common.in_threads(lambda p: to_markdown(p, html, known, pandoc), pages)
    return {markdown_path(p): t for p, t in zip(pages, texts)}


def nav(pages: list[str]) -> list[tuple[str, list[str]]]:
    labels = {**SECTIONS, "library": "Library"}
    return [(label, [markdown_path(p) for p in pages if p.startswith(f"{section}/")])
            for section, label in labels.items()]


def index(source: common.Source, counts: dict[str, int]) -> str:
    parts = ", ".join(f"{label} ({counts.get(section, 0)} pages)" for section, label in
                      {**SECTIONS, "library": "Library"}.items())
    return f"""# Python 3.11 documentation

Part of the documentation of Python 3.11 (Debian's {source.name} {source.version}):
{parts}. The library pages are the built-in functions and types and the modules for
text, data types, numbers, functional tools, files and directories, persistence,
archives, file formats, cryptography, operating system services, concurrency,
networking, internet data and protocols, development, debugging and the runtime.
"""


def main() -> int:
    out = common.out_option(NAME, __doc__)
    html, source, pandoc = common.debian_manual(NAME, PACKAGE, HTML, licence=psf_licence)
    pages = select_pages(html)
    common.log(f"{NAME}: converting {len(pages)} pages")
    converted = convert_all(pages, html, pandoc)
    counts: dict[str, int] = {}
    for page in pages:
        counts[page.split("/")[0]] = counts.get(page.split("/")[0], 0) + 1
    common.write_project(out, "Python 3.11 documentation", converted,
                         index(source, counts), nav=nav(pages),
                         sources=[source, common.PANDOC_SOURCE])
    common.log(f"{NAME}: {len(converted)} pages {counts} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
