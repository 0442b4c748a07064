"""Build the `sphinx-docs` corpus: Sphinx 5.3's documentation, as Markdown.

Downloads Debian's `sphinx-doc` package (`apt-get download`, no root needed; run
`apt-get update` first on a fresh machine) and pandoc (the static binary in PyPI's
`pypandoc_binary` wheel, common.py's `pandoc_binary`), unpacks the package with
`dpkg-deb -x` and converts a coherent part of its HTML (usr/share/doc/sphinx-doc/html/,
Sphinx's own documentation built with its `sphinx13` theme: the content is
`div.body[role=main]`). Taken: the getting-started pages (`usage/quickstart`,
`usage/installation`) and the tutorial (`tutorial/`), the user guides (`usage/`: the
reStructuredText primer, roles, directives, field lists and domains, Markdown, the
configuration reference, the builders, theming, internationalization, setuptools, the
web support pages), every extension's page (`usage/extensions/`: autodoc, autosummary,
napoleon with its two example pages, intersphinx, doctest, ...), templating and LaTeX
customization (`templating`, `latex`), the extension-writing guides and tutorials
(`development/`) and the extension API reference (`extdev/`), the manual pages of the
command-line tools (`man/`), the FAQ and the glossary. Left out (`LEFT_OUT`): the pages
that are only a table of contents and a line or two (`usage/index`,
`usage/restructuredtext/index`, `development/index`, `development/tutorials/index`,
`man/index`), a pointer (`usage/advanced/websupport/index`: "read the Web Support Quick
Start"), the tutorial's closing stub (`tutorial/end`, two sentences), a note on the
examples folder of the source tree (`development/tutorials/examples/README`) and
`extdev/deprecated` (a table of deprecated names by release, release history rather
than documentation). Not taken: the changelog (`changes`), `internals/` (contributing
to Sphinx itself, its release process, authors and code of conduct), the list of
projects using Sphinx (`examples`), `support` (a list of links), the contents, index,
module index and search pages, `_modules/` (the highlighted source).

A page is its main content only (the header, sidebar and footer go): its one h1 is the
page's `# title` and the headings below move up to follow it; permalinks, images,
tables of contents (`toctree`s, local `contents`), the "[source]" links to the
highlighted code and the line numbers of numbered code go. Notes, warnings, sidebars and
titled boxes start with their label in bold; code is fenced (with its language where
Sphinx names one: `rst`, `python`, `console`, ...), a code block's caption (a file name)
is an emphasized line before it; object descriptions (a configuration value such as
`html_static_path`, a directive and its options, a role, a command-line option such as
`-b buildername`, an event, a class or method of the API) are a code line with their
signature then their text; other definition lists (parameter fields, the glossary) are
the term in bold then its description; cells of tables are joined so that tables stay
pipe tables. Links to pages of the corpus become relative `.md` links (to the part
holding the anchor, anchors dropped), other internal links (the changelog, the index,
the highlighted source) their text. Brackets in text (`[options]` in a synopsis) go
through pandoc and the link rewriting as stand-ins and are written back escaped
(common.py's `hold_brackets`): its link pattern would read an escaped `[` as the start of a
link's text. The nav follows the documentation's toctrees (`reading_order`).

Long pages are split rather than cut, as in sqlite_docs.py and django_docs.py: the long
pages are references whose names readers look up (`usage/configuration`, ~14,000 words,
cut would keep the project information and the general configuration but none of the
options of the builders; `usage/restructuredtext/directives`,
`usage/restructuredtext/domains`, `extdev/appapi`, `latex`, `usage/extensions/autodoc`
likewise). A page whose Markdown passes 3,000 words is split between its top-level
sections (a section of more than half that in text between its subsections, and so on;
common.py's `sections`), packed in order into parts of at most ~2,940 words,
`<stem>.md`, `<stem>-2.md`, ... (common.py's `parts_of`). A section longer than a part
with no subsection but object descriptions (`extdev/appapi`'s `Extension setup`, ~3,600
words and 36 methods of the application object) first gets a heading a description
(common.py's `named_descriptions`); a part still over the cap would be cut as in the other corpora
(none is). Pages keep Sphinx's layout: `docs/<path>.md` (URL `usage/configuration/`,
`usage/configuration-2/`; a folder's index page `usage/extensions/`).

    python bench/corpora/sphinx_docs.py [--out bench/.cache/sphinx-docs/source]

Downloads stay in bench/.cache/sphinx-docs/downloads (reused); the project's SOURCES.md
records the package's version and licence.
"""

from __future__ import annotations

import functools
import posixpath
import sys
from pathlib import Path

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

NAME = "sphinx-docs"
TITLE = "Sphinx 5.3 documentation"
PACKAGE = "sphinx-doc"
HTML = Path("usr/share/doc/sphinx-doc/html")
CONTENTS = "contents"
"""The page whose toctree lists the documentation in reading order."""
TAKEN = ("tutorial/", "usage/", "development/", "extdev/", "man/",
         "templating", "latex", "faq", "glossary")
"""The folders taken (every page under them) and the top-level pages taken."""
LEFT_OUT = {
    # a table of contents and a line or two
    "usage/index", "usage/restructuredtext/index", "development/index",
    "development/tutorials/index", "man/index",
    # a pointer ("read the Web Support Quick Start"), two sentences closing the tutorial
    "usage/advanced/websupport/index", "tutorial/end",
    # about the examples folder of Sphinx's source tree
    "development/tutorials/examples/README",
    # deprecated names by release: release history
    "extdev/deprecated",
}
# The nav's sections, in order, and their labels (those of Sphinx's own sidebar).
SECTIONS = {"start": "Get started", "usage": "Using Sphinx", "extensions": "Extensions",
            "development": "Extending Sphinx", "reference": "Reference"}
DROPPED = ("a.headerlink, img, script, style, hr, div.toctree-wrapper, nav.contents, "
           "span.linenos, div.graphviz")
CODE_LANGUAGES = {"rst": "rst", "rest": "rst", "python": "python", "py": "python",
                  "pycon": "pycon", "console": "console", "doscon": "doscon",
                  "bash": "bash", "ini": "ini", "yaml": "yaml", "latex": "latex",
                  "html": "html", "html+jinja": "jinja", "jinja": "jinja"}
"""Sphinx's highlight language -> the fence's; any other (`default`, a mix of Python,
reST and shell in these pages; `text`, `none`, `po`, `elisp`): no language."""
MARKER = "SPHINXDOCSPLIT"  # a paragraph between a page's segments
CODE = "sxcode"  # a placeholder class for `fence` and `tidy`
PILCROW = "\u00b6"
HEADINGS = common.HEADINGS
DESCRIPTION_NAMES = "span.sig-prename, span.sig-name"
"""What names an object description in its signature (`common.named_descriptions`)."""


# --- which pages ----------------------------------------------------------------------

def select_pages(html: Path) -> dict[str, list[str]]:
    """Each nav section's page keys (`usage/configuration`, `usage/extensions/index`),
    in the documentation's reading order (`reading_order`), LEFT_OUT dropped."""
    found = {p.relative_to(html).with_suffix("").as_posix() for p in html.rglob("*.html")}
    taken = {key for key in found
             if any(key.startswith(t) if t.endswith("/") else key == t for t in TAKEN)}
    sections: dict[str, list[str]] = {where: [] for where in SECTIONS}
    for key in reading_order(html, taken - LEFT_OUT):
        sections[section_of(key)].append(key)
    for where, keys in sections.items():
        if not keys:
            raise SystemExit(f"{NAME}: no pages for {SECTIONS[where]} in {html}")
    return sections


def section_of(key: str) -> str:
    """The nav section a page goes in."""
    if key.startswith("tutorial/") or key in ("usage/quickstart", "usage/installation"):
        return "start"
    if key.startswith("usage/extensions/"):
        return "extensions"
    if key.startswith("usage/") or key in ("templating", "latex"):
        return "usage"
    if key.startswith(("development/", "extdev/")):
        return "development"
    return "reference"


def reading_order(html: Path, keys: set[str]) -> list[str]:
    """`keys` in the order of the documentation's toctrees (CONTENTS's, each page's own
    toctree's pages right after it); a page in no toctree (napoleon's two example pages)
    right after the first page that links to it."""
    order: list[str] = []

    def visit(key: str) -> None:
        if key in order or not (html / f"{key}.html").is_file():
            return
        order.append(key)
        for target in links(html, key)[0]:
            visit(target)

    for target in links(html, CONTENTS)[0]:
        visit(target)
    kept = [key for key in order if key in keys]
    for key in sorted(keys - set(kept)):
        linking = next((at for at, page in enumerate(kept) if key in links(html, page)[1]),
                       len(kept) - 1)
        while linking + 1 < len(kept) and kept[linking + 1] not in order:
            linking += 1  # after the pages placed there already
        kept.insert(linking + 1, key)
    return kept


@functools.cache
def links(html: Path, key: str) -> tuple[list[str], set[str]]:
    """The pages a page's toctrees list (anchors dropped), in order (CONTENTS's
    toctree is the page itself, its items not wrapped), and every page its main content
    links to."""
    main = common.soup_of(html / f"{key}.html").select_one("div.body[role=main]")
    if main is None:
        return [], set()
    items = main.select("li[class*=toctree-l] > a[href]")
    listed = (target_of(key, link["href"]) for link in items)
    linked = {target_of(key, link["href"]) for link in main.select("a[href]")}
    return [target for target in dict.fromkeys(listed) if target], linked - {""}


def target_of(key: str, href: str) -> str:
    """The page key an internal link goes to, or "" (an anchor alone, outside the site,
    not a page)."""
    path = href.partition("#")[0]
    if not path.endswith(".html") or common.SCHEME.match(path):
        return ""
    return posixpath.normpath(posixpath.join(posixpath.dirname(key), path))[:-len(".html")]


# --- one page -------------------------------------------------------------------------

def content_of(html: Path, key: str) -> tuple[str, Tag]:
    """The page's title and its main content as a flat run of headings and blocks
    (Sphinx's nested sections unwrapped, each section's anchors moved into its
    heading), the title's h1 and the furniture gone."""
    content = common.soup_of(html / f"{key}.html").select_one("div.body[role=main]")
    heading = content.find("h1") if content is not None else None
    if content is None or heading is None:
        raise SystemExit(f"{NAME}: no div.body with an h1 in {key}.html")
    for tag in content.select(DROPPED):
        tag.decompose()
    for source in content.select("span.viewcode-link"):  # "[source]", a link to the code
        (source.find_parent("a") or source).decompose()
    title = common.text_of(heading, PILCROW)
    common.unwrap_sections(content, heading, "section")
    common.named_descriptions(content, DESCRIPTION_NAMES)
    return title, content


def convert(html: Path, key: str, pandoc: Path) -> common.Page:
    """The page as Markdown segments, links to the corpus left as placeholders."""
    title, content = content_of(html, key)
    return common.sectioned_page(NAME, key, title, content, pandoc,
                                 clean=lambda page: clean(page, key), marker=MARKER, code=CODE)


# --- cleaning -------------------------------------------------------------------------

def clean(html: str, key: str) -> str:
    """The page's content as HTML for pandoc."""
    body = BeautifulSoup(f"<div>{html}</div>", "html.parser").div
    common.plain_headings(body)
    for caption in body.select("div.code-block-caption"):  # a code block's file name
        caption.name = "p"
        caption.attrs = {}
        text = common.text_of(caption, PILCROW)
        caption.clear()
        caption.append(BeautifulSoup("<em></em>", "html.parser").em)
        caption.em.string = text
    common.fence_highlighted(  # code, with its language
        body, lambda block: CODE_LANGUAGES.get(common.highlight_language(block), CODE), CODE)
    for label in body.select("p.sidebar-title, p.topic-title"):  # as admonitions' titles
        label["class"] = ["admonition-title"]
    common.inline_labels(body, PILCROW)  # "Note" -> "**Note:** text..."
    for lines in body.select("div.line-block"):  # one line a `div.line`
        para = BeautifulSoup("<p></p>", "html.parser").p
        for number, line in enumerate(lines.select("div.line")):
            if number:
                para.append(BeautifulSoup("<br/>", "html.parser").br)
            for part in list(line.contents):
                para.append(part.extract())
        lines.replace_with(para)
    for code in body.find_all("code"):  # `<span class="pre">` pieces as one literal
        if code.find_parent("pre") is None and code.find(lambda tag: tag.name != "a"):
            code.string = code.get_text()
    for term in body.select("dl > dt:not(.sig) strong"):
        term.unwrap()  # a term in bold already (`**html**`): the whole term will be
    for dl in body.find_all("dl"):  # an object's signature (a confval, a directive) as code
        common.flatten_definitions(dl, signatures=True, drop=PILCROW)
    common.flatten_tables(body, drop_columns=True)
    # a link to a page left out gives its text
    common.relink_all(body, lambda link: common.relink_page(link, key))
    common.hold_brackets(body)
    return str(body)


# --- the project ----------------------------------------------------------------------

def index(source: common.Source, sections: dict[str, list[common.Part]]) -> str:
    intro = (f"Sphinx 5.3's documentation (Debian's {source.name} {source.version}): "
             "getting started and the tutorial, the user guides (reStructuredText, "
             "configuration, builders, theming, internationalization), the extensions "
             "(autodoc, napoleon, intersphinx, ...), templating and LaTeX, the guides and "
             "API for writing extensions, the command-line tools, the FAQ and the "
             "glossary.")
    return common.sectioned_index(TITLE, intro, sections, SECTIONS)


def main() -> int:
    done = common.sectioned_main(NAME, TITLE, PACKAGE, HTML, SECTIONS, select_pages,
                                 convert, index, __doc__)
    common.restore_brackets(common.out_option(NAME, __doc__))
    return done


if __name__ == "__main__":
    sys.exit(main())
