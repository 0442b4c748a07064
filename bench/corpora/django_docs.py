"""Build the `django-docs` corpus: Django 3.2's documentation, as Markdown.

Downloads Debian's `python-django-doc` package (`apt-get download`, no root needed; run
`apt-get update` first on a fresh machine) and pandoc (the static binary in PyPI's
`pypandoc_binary` wheel, common.py's `pandoc_binary`), unpacks the package with
`dpkg-deb -x` and converts a coherent part of its Sphinx HTML
(usr/share/doc/python-django-doc/html/): every page of intro/ (the tutorial), topics/
(the guides), howto/, ref/ (the reference: models and querysets, settings, requests and
responses, templates, forms, the contrib apps, GeoDjango, ...) and faq/, sub-folders
included, less LEFT_OUT: the pages that are only a table of contents or a pointer
(`ref/index`, `topics/db/index`, `topics/http/generic-views`, ...), the class-based
views' `flattened-index` (every view's attributes gathered on one page) and an empty
autodoc stub (`ref/contrib/gis/ogrinspect`). Not taken: releases/ (release notes),
internals/ (contributing to Django), misc/, the glossary and the index, search and
contents pages.

A page is its main content only (`div#yui-main div.yui-g`; the header, sidebar and
footer go): its first h1 is the page's `# title` and the headings below move up to
follow it (the second top section of `ref/django-admin`, `ref/models/fields` and
`ref/urls` included); permalinks, images, tables of contents (`toctree`s and
`ref/settings`'s local one, with its topical index of the settings, a link list),
"[source]" links and the Windows tab of the tutorial's console examples go (the Linux/
macOS one stays). Notes and warnings start with their label in bold; code is fenced
(with its language where pandoc knows it); object descriptions (`def`, `class`, a
command's options such as `--fake`) are a code line then their text; other
definition lists are the term in bold then its description; cells of tables (field
lists, footnotes) are joined so that tables stay pipe tables. Links to pages of the
corpus become relative `.md` links (to the part holding the anchor, anchors dropped),
other internal links their text.

Long pages are split rather than cut, as in sqlite_docs.py: the long pages are mostly
references whose names readers look up (`ref/models/querysets`, ~17,000 words, cut would
keep its methods up to `reverse()`; `ref/settings`, `ref/django-admin`,
`ref/templates/builtins`, `ref/models/fields`, `ref/contrib/admin/index` likewise). A
page whose Markdown passes 3,000 words is split between its top-level sections (a
section of more than half that in text between its subsections, and so on; common.py's
`sections`), packed in order into parts of at most ~2,940 words, `<stem>.md`,
`<stem>-2.md`, ... (common.py's `parts_of`). A section longer than a part with no
subsection but object descriptions (the admin's `ModelAdmin options` and `ModelAdmin
methods`) first gets a heading a description (common.py's `named_descriptions`); a part still over
the cap would be cut as in the other corpora (none is). Pages keep Django's layout:
`docs/<section>/<path>.md` (URL `ref/models/querysets/`, `ref/models/querysets-2/`; a
folder's index page `topics/auth/`).

    python bench/corpora/django_docs.py [--out bench/.cache/django-docs/source]

Downloads stay in bench/.cache/django-docs/downloads (reused); the project's SOURCES.md
records the package's version and licence.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

NAME = "django-docs"
TITLE = "Django 3.2 documentation"
PACKAGE = "python-django-doc"
HTML = Path("usr/share/doc/python-django-doc/html")
# The folders taken, in nav order, and their labels (those of Django's own contents).
SECTIONS = {"intro": "Getting started", "topics": "Using Django", "howto": "How-to guides",
            "ref": "API reference", "faq": "FAQ"}
LEFT_OUT = {
    # tables of contents, a line or two and the toctree
    "intro/index", "topics/index", "howto/index", "ref/index", "faq/index",
    "topics/db/index", "topics/db/examples/index", "topics/http/index", "ref/files/index",
    "ref/forms/index", "ref/models/index", "ref/templates/index", "ref/contrib/gis/index",
    "ref/contrib/gis/utils", "ref/class-based-views/mixins",
    # a pointer ("See Built-in class-based views API"), an autodoc stub with no text
    "topics/http/generic-views", "ref/contrib/gis/ogrinspect",
    # every class-based view's attributes and methods gathered on one page
    "ref/class-based-views/flattened-index",
}
DROPPED = ("a.headerlink, img, script, style, hr, div.toctree-wrapper, div.contents.topic, "
           "div#s-core-settings-topical-index, div.console-block input, "
           "div.console-block label, section.c-content-win")
CODE_LANGUAGES = {"default": "python", "python": "python", "pycon": "pycon",
                  "console": "console", "doscon": "doscon", "bash": "bash", "sql": "sql",
                  "html": "html", "html+django": "django", "xml+django": "django",
                  "javascript": "javascript", "js": "javascript", "css": "css",
                  "ini": "ini", "yaml": "yaml", "diff": "diff", "apache": "apache",
                  "nginx": "nginx", "bat": "bat"}  # any other (text, po, jinja): no language
MARKER = "DJANGODOCSPLIT"  # a paragraph between a page's segments
CODE = "djcode"  # a placeholder class for `fence` and `tidy`
PILCROW = "\u00b6"
HEADINGS = common.HEADINGS
DESCRIPTION_NAMES = "code.descclassname, code.descname"
"""What names an object description in its signature (`common.named_descriptions`)."""


# --- which pages ----------------------------------------------------------------------

def select_pages(html: Path) -> dict[str, list[str]]:
    """Each section's page keys (`ref/models/querysets`, `topics/auth/index`): sorted by
    folder, a folder's index page first, LEFT_OUT dropped."""
    sections: dict[str, list[str]] = {}
    for folder in SECTIONS:
        paths = sorted((html / folder).rglob("*.html"),
                       key=lambda p: (p.parent.parts, p.stem != "index", p.stem))
        sections[folder] = [key for key in (p.relative_to(html).with_suffix("").as_posix()
                                            for p in paths) if key not in LEFT_OUT]
        if not sections[folder]:
            raise SystemExit(f"{NAME}: no pages in {html / folder}")
    return sections


# --- one page -------------------------------------------------------------------------

def content_of(html: Path, key: str) -> tuple[str, Tag]:
    """The page's title and its main content as a flat run of headings and blocks
    (Sphinx's nested sections unwrapped, each section's anchors moved into its
    heading), the title's h1 and the furniture gone."""
    content = common.soup_of(html / f"{key}.html").select_one("div#yui-main div.yui-g")
    heading = content.find("h1") if content is not None else None
    if content is None or heading is None:
        raise SystemExit(f"{NAME}: no div.yui-g with an h1 in {key}.html")
    for tag in content.select(DROPPED):
        tag.decompose()
    for source in content.select("span.viewcode-link"):  # "[source]", a link to the code
        (source.find_parent("a") or source).decompose()
    for tag in content.select("div.console-block, section.c-content-unix"):
        tag.unwrap()
    title = common.text_of(heading, PILCROW)
    common.unwrap_sections(content, heading, "div.section")
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
    common.fence_highlighted(  # code, with its language
        body, lambda block: CODE_LANGUAGES.get(common.highlight_language(block), CODE), CODE)
    common.inline_labels(body, PILCROW)  # "Note" -> "**Note:** text..."
    for code in body.find_all("code"):  # `<span class="pre">` pieces as one literal
        if code.find_parent("pre") is None and code.find(lambda tag: tag.name != "a"):
            code.string = code.get_text()
    for dl in body.find_all("dl"):  # an object's signature (`dl.py`, an option) as code
        common.flatten_definitions(dl, signatures=True, drop=PILCROW)
    common.flatten_tables(body, drop_columns=True)
    common.relink_all(body, lambda link: relink(link, key))
    return str(body)


def relink(link: Tag, key: str) -> None:
    """`common.relink_page`: a page left out gives its text, as do links to the module
    sources and images."""
    common.relink_page(link, key)


# --- the project ----------------------------------------------------------------------

def index(source: common.Source, sections: dict[str, list[common.Part]]) -> str:
    intro = (f"Django 3.2's documentation (Debian's {source.name} {source.version}): the "
             "tutorial, the topic guides, the how-to guides, the API reference (models "
             "and querysets, settings, requests and responses, templates, forms, the "
             "contrib apps, GeoDjango, ...) and the FAQ.")
    return common.sectioned_index(TITLE, intro, sections, SECTIONS)


def main() -> int:
    return common.sectioned_main(NAME, TITLE, PACKAGE, HTML, SECTIONS, select_pages,
                                 convert, index, __doc__)


if __name__ == "__main__":
    sys.exit(main())
