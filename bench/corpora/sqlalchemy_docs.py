"""Build the `sqlalchemy-docs` corpus: SQLAlchemy 1.4's documentation, as Markdown.

Downloads Debian's `python-sqlalchemy-doc` package (`apt-get download`, no root needed;
run `apt-get update` first on a fresh machine) and pandoc (the static binary in PyPI's
`pypandoc_binary` wheel, common.py's `pandoc_binary`), unpacks the package with
`dpkg-deb -x` and converts a coherent part of its HTML
(usr/share/doc/python-sqlalchemy-doc/html/, Sphinx with SQLAlchemy's own theme: the
content is `div#docs-body[role=main]`). Taken: the overview (`intro`) and the 1.4 / 2.0
tutorial (`tutorial/`, the unified Core and ORM tutorial), the ORM guide (`orm/`: quick
start, mapping and declarative configuration, inheritance, relationships, collections,
the querying guide and loading techniques, the session and its transactions, events, the
`Query`, `Session` and mapping API) with its extensions (`orm/extensions/`: asyncio,
association proxy, automap, hybrid attributes, mutation tracking, ...), Core (`core/`:
engines, connections, pooling, events, schema and `MetaData`, reflection, defaults,
constraints, DDL, types, the SQL expression API, DML, functions, the compiler extension),
the PostgreSQL, MySQL and SQLite dialects (`dialects/`), the FAQ (`faq/`), the error
messages (`errors`), the 2.0 migration guide (`changelog/migration_20`, the guide the 1.4
documentation points to for its "2.0 style" throughout) and the glossary. Left out
(`LEFT_OUT`): the pages that are a table of contents and a line or two (`orm/mapper_config`,
`orm/relationships`, `orm/session`, `core/index`, `core/types`, `faq/index`, ...),
`tutorial/further_reading` (a list of links), the stubs of moved or removed pages
(`orm/classical`, `orm/loading`, `orm/constructors`, `orm/extensions/declarative/`'s
pages but its index), the two 1.x-style tutorials (`orm/tutorial`, `core/tutorial`: the
legacy API, superseded by the unified tutorial and covering the same ground), the
internals references for extension authors (`orm/internals`, `core/internals`,
`core/visitors`, `core/foundation`) and `orm/examples` (a description of the example
scripts of SQLAlchemy's source tree). Not taken: the other dialects (Oracle, SQL Server,
Firebird, Sybase) and the dialects' index, the changelogs and the migration notes of
earlier releases (`changelog/`, 1.4's own "what's new" included), the contents, index,
search and copyright pages, `_modules/` (the example scripts' highlighted source).

A page is its main content only (the header, sidebar and footer go): its first h1 is the
page's `# title` and the headings below move up to follow it (`orm/basic_relationships`
has a second h1, which becomes `##`); permalinks, images, tables of contents
(`toctree`s, the FAQ pages' local lists), the tutorial pages' "previous / next" boxes, the
footnotes' links back and the "sql" buttons of the code examples go (the SQL they show
stays in the example). Notes, warnings, sidebars and titled boxes start with their label
in bold, a table's caption is an emphasized line before it; code is fenced
with its language (`python`, `pycon` for `pycon+sql`, `sql`; Sphinx's `default` blocks
`python` where its Python lexer highlighted them, none where it gave up: SQL, log
output, shell); object descriptions (functions, classes, methods, attributes,
exceptions) are a code line with their signature then their text; parameters are a list,
each name in bold; other definition lists (the glossary, field lists) the term in bold
then its description; cells of tables are joined so that tables stay pipe tables. Links
to pages of the corpus become relative `.md` links (to the part holding the anchor,
anchors dropped), other internal links (the changelogs, the internals, the example
sources) their text. Brackets in text (`inspect(subject[, raiseerr])` in the summary
tables) go through pandoc and the link rewriting as stand-ins and are written back
escaped (common.py's `hold_brackets`): its link pattern would read an
escaped `[` as the start of a link's text.

Long pages are split rather than cut, as in sphinx_docs.py: the long pages are mostly
references whose names readers look up (`core/connections`, ~30,000 words,
`core/selectable`, `core/sqlelement`, `core/metadata`, `orm/query`, `orm/session_api`,
`orm/events`, ...) or long guides (`tutorial/data_select`, `orm/loading_relationships`).
A page whose Markdown passes 3,000 words is split between its top-level sections (a
section of more than half that in text between its subsections, and so on; common.py's
`sections`), packed in order into parts of at most ~2,940 words, `<stem>.md`,
`<stem>-2.md`, ... (common.py's `parts_of`). A section longer than a part with no
subsection (`LIMIT`: four fifths of a part in the HTML's text, its Markdown being longer)
first gets headings (`named_descriptions`): a heading a description (a function, a
class) named as it, one level below the section's (`create_engine`, `Session`); a
description itself longer than a part has its members lifted out after its own text,
each with a heading one level further down (`Session.merge`), or, with no members, its
parameters (`relationship.back_populates`, the names SQLAlchemy's own cross-references
use); a glossary longer than a part gets a heading a term. A part still over the cap
would be cut as in the other corpora (none is). Pages keep SQLAlchemy's layout:
`docs/<path>.md` (URL `orm/session_basics/`, `orm/loading_relationships-2/`; the
tutorial's index page `tutorial/`). The nav follows the documentation's table of
contents (`contents`), the glossary last.

    python bench/corpora/sqlalchemy_docs.py [--out bench/.cache/sqlalchemy-docs/source]

Downloads stay in bench/.cache/sqlalchemy-docs/downloads (reused); the project's
SOURCES.md records the package's version and licence.
"""

from __future__ import annotations

import posixpath
import sys
from pathlib import Path

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

NAME = "sqlalchemy-docs"
TITLE = "SQLAlchemy 1.4 documentation"
PACKAGE = "python-sqlalchemy-doc"
HTML = Path("usr/share/doc/python-sqlalchemy-doc/html")
CONTENTS = "contents"
"""The page whose toctree lists the documentation in reading order."""
MAIN = "div#docs-body"
TAKEN = ("tutorial/", "orm/", "core/", "faq/", "intro", "errors", "glossary",
         "changelog/migration_20", "dialects/postgresql", "dialects/mysql", "dialects/sqlite")
"""The folders taken (every page under them, sub-folders included) and the pages taken."""
LEFT_OUT = {
    # a table of contents and a line or two, a list of links
    "tutorial/further_reading", "orm/index", "orm/mapper_config", "orm/declarative_mapping",
    "orm/scalar_mapping", "orm/relationships", "orm/loading_objects", "orm/session",
    "orm/extending", "orm/extensions/index", "core/index", "core/expression_api",
    "core/types", "core/engines_connections", "core/api_basics", "faq/index",
    # stubs of moved or removed pages
    "orm/classical", "orm/loading", "orm/constructors",
    "orm/extensions/declarative/api", "orm/extensions/declarative/basic_use",
    "orm/extensions/declarative/inheritance", "orm/extensions/declarative/mixins",
    "orm/extensions/declarative/relationships", "orm/extensions/declarative/table_config",
    # the legacy 1.x tutorials, superseded by tutorial/
    "orm/tutorial", "core/tutorial",
    # internals for extension authors
    "orm/internals", "core/internals", "core/visitors", "core/foundation",
    # about the example scripts of SQLAlchemy's source tree
    "orm/examples",
}
# The nav's sections, in order, and their labels.
SECTIONS = {"start": "Getting started", "orm": "SQLAlchemy ORM", "core": "SQLAlchemy Core",
            "dialects": "Dialects", "reference": "FAQ, errors and reference"}
DROPPED = ("a.headerlink, img, script, style, hr, div.toctree-wrapper, div.contents, "
           "a.sql_link, span.fn-backref")
TUTORIAL_BOX = "SQLAlchemy 1.4 / 2.0 Tutorial"
"""The title of the tutorial pages' "previous / next" boxes."""
CODE_LANGUAGES = {"python": "python", "python+sql": "python", "pycon+sql": "pycon",
                  "sql": "sql"}
"""Sphinx's highlight language -> the fence's (`default`: see `code_language`; any
other, `none`: no language)."""
MARKER = "SQLADOCSPLIT"  # a paragraph between a page's segments
CODE = "sqlacode"  # a placeholder class for `fence` and `tidy`
PILCROW = "\u00b6"
HEADINGS = common.HEADINGS
LIMIT = (common.MAX_WORDS - common.PART_HEAD) * 4 // 5
"""A part's worth of words in the HTML's text: four fifths of a part's, the Markdown
being longer (code fences, links, the signatures' code lines)."""


# --- which pages ----------------------------------------------------------------------

def select_pages(html: Path) -> dict[str, list[str]]:
    """Each nav section's page keys (`orm/session_basics`, `tutorial/index`), in the
    order of the documentation's table of contents, LEFT_OUT dropped; a page taken that
    it does not list (the glossary) last in its section."""
    found = {p.relative_to(html).with_suffix("").as_posix() for p in html.rglob("*.html")}
    taken = {key for key in found
             if any(key.startswith(t) if t.endswith("/") else key == t for t in TAKEN)}
    taken -= LEFT_OUT
    listed = [key for key in contents_order(html) if key in taken]
    sections: dict[str, list[str]] = {where: [] for where in SECTIONS}
    for key in listed + sorted(taken - set(listed)):
        sections[section_of(key)].append(key)
    for where, keys in sections.items():
        if not keys:
            raise SystemExit(f"{NAME}: no pages for {SECTIONS[where]} in {html}")
    return sections


def section_of(key: str) -> str:
    """The nav section a page goes in."""
    if key == "intro" or key.startswith("tutorial/"):
        return "start"
    for folder in ("orm", "core", "dialects"):
        if key.startswith(f"{folder}/"):
            return folder
    return "reference"


def contents_order(html: Path) -> list[str]:
    """The pages CONTENTS's toctree lists, in order, anchors dropped."""
    main = common.soup_of(html / f"{CONTENTS}.html").select_one(MAIN)
    if main is None:
        raise SystemExit(f"{NAME}: no {MAIN} in {CONTENTS}.html")
    items = main.select("li[class*=toctree-l] > a[href]")
    return [key for key in dict.fromkeys(target_of(CONTENTS, a["href"]) for a in items) if key]


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
    content = common.soup_of(html / f"{key}.html").select_one(MAIN)
    heading = content.find("h1") if content is not None else None
    if content is None or heading is None:
        raise SystemExit(f"{NAME}: no {MAIN} with an h1 in {key}.html")
    for tag in content.select(DROPPED):
        tag.decompose()
    for label in content.select("a.fn-backref"):  # a footnote's number, a link back
        label.unwrap()
    for box in content.select("div.topic"):  # the tutorial's "previous / next" boxes
        label = box.select_one("p.topic-title")
        if label is not None and common.text_of(label) == TUTORIAL_BOX:
            box.decompose()
    title = common.text_of(heading, PILCROW)
    common.unwrap_sections(content, heading, "section")
    named_descriptions(content)
    return title, content


def words(node) -> int:
    """The words of a node's text."""
    return len(node.get_text().split()) if isinstance(node, Tag) else len(node.split())


def named_descriptions(content: Tag) -> None:
    """A section longer than a part with no subsection gets headings, so that it is
    split between them rather than cut: a heading a description (`named`), one level
    below its own, or, for a glossary, a heading a term (`named_terms`)."""
    runs: list[list[Tag]] = [[]]
    for node in [node for node in content.children if isinstance(node, Tag)]:
        if node.name in HEADINGS:
            runs.append([])
        runs[-1].append(node)
    for run in runs:
        if sum(map(words, run)) <= LIMIT:
            continue
        rank = min(int(run[0].name[1]) + 1, 6) if run[0].name in HEADINGS else 2
        described = [node for node in run if node.name == "dl" and common.is_signature(node)]
        if len(described) > 1 or any(words(dl) > LIMIT for dl in described):
            for dl in described:
                named(dl, rank, "")
        for glossary in [node for node in run if node.name == "dl"
                         and "glossary" in node.get("class", [])]:
            named_terms(glossary, rank)


def named(dl: Tag, rank: int, prefix: str) -> None:
    """A heading before the description, `rank` deep, named as it (`prefix` and its
    name: `Session`, `Session.merge`). A description longer than a part has what
    follows its own text lifted out after it: its members (methods, attributes), each
    named one level further down, or, with none, its parameters."""
    name = prefix + description_name(dl)
    dl.insert_before(heading_tag(rank, name))
    if words(dl) <= LIMIT:
        return
    inner = name.removesuffix(".__init__") + "."
    body = dl.find("dd", recursive=False)
    members = [node for node in body.children
               if isinstance(node, Tag) and node.name == "dl" and common.is_signature(node)]
    if members:
        lift(dl, members[0])
        for member in members:
            named(member, min(rank + 1, 6), inner)
        return
    fields = body.find("dl", class_="field-list", recursive=False)
    if fields is not None:
        lift(dl, fields)
        named_parameters(fields, min(rank + 1, 6), inner)


def lift(dl: Tag, first: Tag) -> None:
    """`first` and what follows it in the description's text moved out, after it."""
    after = dl
    for node in [first, *first.next_siblings]:
        after.insert_after(node.extract())
        after = node


def named_parameters(fields: Tag, rank: int, prefix: str) -> None:
    """A description's field list with its parameters as a bold "Parameters" line then a
    heading a parameter (`relationship.back_populates`) before its text; the other
    fields (returns, ...) stay a field list after them."""
    label = next((dt for dt in fields.find_all("dt", recursive=False)
                  if common.text_of(dt) == "Parameters"), None)
    items = label.find_next_sibling("dd").find("ul", recursive=False) if label else None
    if items is None:
        return
    fields.insert_before(BeautifulSoup("<p><strong>Parameters</strong></p>", "html.parser").p)
    for item in items.find_all("li", recursive=False):
        fields.insert_before(heading_tag(rank, prefix + parameter_name(item)))
        item.name = "div"
        fields.insert_before(item.extract())
    label.find_next_sibling("dd").decompose()
    label.decompose()
    if not fields.find("dt", recursive=False):
        fields.decompose()


def parameter_name(item: Tag) -> str:
    """A parameter's name, from its anchor (`sqlalchemy.orm.relationship.params.uselist`)
    or its bold name less its default (`uselist=None`)."""
    target = item.find("span", class_="target", id=True)
    if target is not None and ".params." in target["id"]:
        return target["id"].rpartition(".params.")[2]
    name = item.find("strong")
    return name.get_text().partition("=")[0].strip() if name else "..."


def named_terms(glossary: Tag, rank: int) -> None:
    """A glossary as a heading a term (its synonyms too: `1.x style, 2.0 style`, their
    anchors in it), each followed by its description."""
    after: Tag | None = None
    terms: list[Tag] = []
    for child in [c for c in glossary.children if isinstance(c, Tag)]:
        if child.name == "dt":
            terms.append(child)
            continue
        heading = heading_tag(rank, ", ".join(common.text_of(t, PILCROW) for t in terms),
                              code=False)
        for term in terms:
            if term.get("id"):
                heading.insert(0, BeautifulSoup("", "html.parser").new_tag(
                    "span", attrs={"id": term["id"]}))
            term.decompose()
        terms = []
        child.name = "div"
        child.attrs = {}
        if after is None:
            glossary.insert_before(heading)
        else:
            after.insert_after(heading)
        heading.insert_after(child.extract())
        after = child
    glossary.decompose()


def heading_tag(rank: int, name: str, *, code: bool = True) -> Tag:
    """An h`rank` holding `name` (as code unless not `code`)."""
    soup = BeautifulSoup("", "html.parser")
    heading = soup.new_tag(f"h{rank}")
    if code:
        heading.append(soup.new_tag("code"))
        heading.code.string = name
    else:
        heading.string = name
    return heading


def description_name(dl: Tag) -> str:
    """A description's name, without its module or class (`Session`, `merge`)."""
    name = dl.find("dt").select_one("span.sig-name")
    return name.get_text().strip() if name else common.text_of(dl.find("dt"), PILCROW)


def convert(html: Path, key: str, pandoc: Path) -> common.Page:
    """The page as Markdown segments, links to the corpus left as placeholders."""
    title, content = content_of(html, key)
    return common.sectioned_page(NAME, key, title, content, pandoc,
                                 clean=lambda page: clean(page, key), marker=MARKER, code=CODE)


# --- cleaning -------------------------------------------------------------------------

def code_language(block: Tag) -> str:
    """The fence's language for a highlighted block (`div.highlight-<language>`):
    CODE_LANGUAGES's, or for Sphinx's `default` (Python, falling back to none when
    Python's lexer fails: SQL, log output, shell) `python` when it highlighted any."""
    language = common.highlight_language(block)
    if language == "default":
        pre = block.find("pre")
        return "python" if pre is not None and pre.find("span", class_=True) else CODE
    return CODE_LANGUAGES.get(language, CODE)


def clean(html: str, key: str) -> str:
    """The page's content as HTML for pandoc."""
    body = BeautifulSoup(f"<div>{html}</div>", "html.parser").div
    common.plain_headings(body)
    common.fence_highlighted(body, code_language, CODE)  # code, with its language
    for aside in body.find_all("aside"):
        aside.name = "div"
    for label in body.select("p.sidebar-title, p.topic-title"):  # as admonitions' titles
        label["class"] = ["admonition-title"]
    common.inline_labels(body, PILCROW)  # "Note" -> "**Note:** text..."
    for code in body.find_all("code"):  # `<span class="pre">` pieces as one literal
        if code.find_parent("pre") is None and code.find(lambda tag: tag.name != "a"):
            code.string = code.get_text()
    for term in body.select("dl > dt:not(.sig) strong"):
        term.unwrap()  # a term in bold already: the whole term will be
    for dl in body.find_all("dl"):  # an object's signature as code
        common.flatten_definitions(dl, signatures=True, drop=PILCROW)
    for table in body.find_all("table"):
        for caption in table.find_all("caption"):  # an emphasized line before it
            line = BeautifulSoup("<p><em></em></p>", "html.parser").p
            line.em.string = common.text_of(caption, PILCROW)
            table.insert_before(line)
            caption.decompose()
    common.flatten_tables(body, drop_columns=True)
    # a link to a page left out gives its text
    common.relink_all(body, lambda link: common.relink_page(link, key))
    common.hold_brackets(body)
    return str(body)


# --- the project ----------------------------------------------------------------------

def index(source: common.Source, sections: dict[str, list[common.Part]]) -> str:
    intro = (f"SQLAlchemy 1.4's documentation (Debian's {source.name} {source.version}): "
             "the 1.4 / 2.0 tutorial, the ORM (mapping, relationships, querying and "
             "loading, the session, extensions such as asyncio and hybrid attributes), "
             "Core (engines and connections, schema and MetaData, types, the SQL "
             "expression language), the PostgreSQL, MySQL and SQLite dialects, the FAQ, "
             "the error messages, the 2.0 migration guide and the glossary.")
    return common.sectioned_index(TITLE, intro, sections, SECTIONS)


def main() -> int:
    done = common.sectioned_main(NAME, TITLE, PACKAGE, HTML, SECTIONS, select_pages,
                                 convert, index, __doc__)
    common.restore_brackets(common.out_option(NAME, __doc__))
    return done


if __name__ == "__main__":
    sys.exit(main())
