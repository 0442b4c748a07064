"""Build the `postgres-docs` corpus: Parts I-III of the PostgreSQL 15 manual, as Markdown.

Downloads Debian's `postgresql-doc-15` package (`apt-get download`, no root needed; run
`apt-get update` first on a fresh machine) and pandoc (the static binary in PyPI's
`pypandoc_binary` wheel, common.py's `pandoc_binary`), unpacks the package with
`dpkg-deb -x` and converts the pages of three parts of its DocBook HTML
(usr/share/doc/postgresql-doc-15/html/): Part I "Tutorial", Part II "The SQL Language"
and Part III "Server Administration", every page listed in each part page's table of
contents (the chapter pages included, the part pages themselves left out). The SQL
command reference (Part VI) and the programming and internals parts are not taken.

A page is its main content only (the navigation header and footer, the tables of
contents and the index anchors go): its first heading, less its number ("2.6. "), is
the page's `# title`, the headings below it move up to follow it (numbers dropped too);
notes, tips and warnings become a paragraph starting "**Note:**"; definition lists
(configuration parameters, options) become the term in bold as a paragraph and then
its description; simple lists and the one-column function and view tables become
lists (a function or a view column an item), cells of other tables are flattened so
that they stay pipe tables; code is fenced; links to pages of the corpus become
relative `.md` links (anchors dropped), other internal links their text. pandoc
(`-f html -t gfm-raw_html --wrap=none`) writes the Markdown; pages are cut at the
first paragraph past ~3,000 words and laid out as `docs/<file-stem>.md` (URL
`<file-stem>/`).

    python bench/corpora/postgres_docs.py [--out bench/.cache/postgres-docs/source]

Downloads stay in bench/.cache/postgres-docs/downloads (reused); the project's
SOURCES.md records the package's version and licence.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

NAME = "postgres-docs"
TITLE = "PostgreSQL 15 documentation"
PACKAGE = "postgresql-doc-15"
HTML = Path("usr/share/doc/postgresql-doc-15/html")
# The part pages whose tables of contents give the pages, and their labels.
PARTS = {"tutorial": "Tutorial", "sql": "The SQL Language",
         "admin": "Server Administration"}
ADMONITIONS = ("note", "tip", "caution", "warning", "important")
NUMBER = re.compile(r"^(?:(?:Chapter|Part|Appendix)\s+)?[0-9A-Z]+(?:\.[0-9]+)*\.\s+")
CODE = "pgcode"  # a placeholder class for `fence` and `tidy`


# --- which pages ----------------------------------------------------------------------

def stem_of(link: Tag) -> str | None:
    target = link["href"].split("#")[0]
    return target[: -len(".html")] if target.endswith(".html") and "/" not in target else None


def select_pages(html: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """Each part's chapters, in the order of the part page's table of contents: the
    chapter's title and its page stems (the chapter page first), pages with no text
    but their table of contents (most chapter pages) left out."""
    parts: dict[str, list[tuple[str, list[str]]]] = {}
    seen: set[str] = set()
    for part in PARTS:
        toc = common.soup_of(html / f"{part}.html").select_one("dl.toc")
        if toc is None:
            raise SystemExit(f"{NAME}: no table of contents in {part}.html")
        parts[part] = []
        for entry in toc.find_all("dt", recursive=False):
            link = entry.find("a", href=True)
            listing = entry.find_next_sibling()
            links = [link] + (listing.select("a[href]")
                              if listing is not None and listing.name == "dd" else [])
            stems = []
            for stem in map(stem_of, links):
                if stem and stem not in seen and has_text(html / f"{stem}.html"):
                    seen.add(stem)
                    stems.append(stem)
            if stems:
                parts[part].append((unnumbered(common.text_of(link)), stems))
    return parts


def has_text(path: Path) -> bool:
    """Whether the page holds more than its title and table of contents."""
    body = common.soup_of(path).body
    if body is None:
        return False
    for tag in body.select("div.navheader, div.navfooter, div.toc, div.titlepage"):
        tag.decompose()
    return bool(body.get_text().strip())


# --- one page -------------------------------------------------------------------------

def unnumbered(title: str) -> str:
    return NUMBER.sub("", title, count=1).strip()


def drop_number(heading: Tag) -> None:
    """The heading less its leading number ("9.4.1. "), inline markup kept."""
    for string in heading.find_all(string=True):
        if string.strip():
            string.replace_with(NUMBER.sub("", string.lstrip(), count=1))
            return


def main_content(path: Path) -> Tag:
    """The body less the navigation header and footer."""
    body = common.soup_of(path).body
    if body is None or body.select_one("div.navheader") is None:
        raise SystemExit(f"{NAME}: no navigation header in {path.name}; not a manual page?")
    for tag in body.select("div.navheader, div.navfooter"):
        tag.decompose()
    return body


def clean(body: Tag, stem: str, pages: set[str]) -> tuple[str, str]:
    """The page's title and its main content as HTML for pandoc."""
    for tag in body.select("div.toc, a.indexterm, script, style, hr, br.table-break"):
        tag.decompose()
    headings = body.find_all(re.compile(r"^h[1-6]$"))
    if not headings:
        raise SystemExit(f"{NAME}: no heading in {stem}.html")
    title = unnumbered(common.text_of(headings[0]))
    headings.pop(0).decompose()
    for box in body.select(", ".join(f"div.{kind}" for kind in ADMONITIONS)):
        admonition(box)
    headings = [h for h in headings if h.parent is not None]
    for heading in headings:
        drop_number(heading)
    common.shift_headings(headings)
    for pre in body.find_all("pre"):
        common.fence(pre, CODE)
    for sup in body.find_all("sup"):
        sup.unwrap()
    for dl in body.find_all("dl"):
        common.flatten_definitions(dl)
    for table in body.select("table.simplelist"):
        simple_list(table)
    for table in body.find_all("table"):
        if table.select_one(".func_table_entry, .catalog_table_entry"):
            function_list(table)
        else:
            for cell in table.find_all(["td", "th"]):
                common.flatten_cell(cell)
    for link in body.find_all("a"):
        relink(link, stem, pages)
    return title, str(body)


def admonition(box: Tag) -> None:
    """A note box as its paragraphs, the first starting with "**Note:**"."""
    heading = box.find(re.compile(r"^h[1-6]$"))
    label = common.text_of(heading) if heading else box["class"][0].title()
    if heading:
        heading.decompose()
    soup = BeautifulSoup("", "html.parser")
    strong = soup.new_tag("strong")
    strong.string = f"{label}:"
    first = box.find("p")
    if first is not None:
        first.insert(0, " ")
        first.insert(0, strong)
    else:
        para = soup.new_tag("p")
        para.append(strong)
        box.insert(0, para)
    box.name = "div"
    box.attrs = {}


def simple_list(table: Tag) -> None:
    """DocBook's simple list (a borderless table, an entry a cell) as a list."""
    soup = BeautifulSoup("", "html.parser")
    items = soup.new_tag("ul")
    for cell in table.select("td"):
        if cell.get_text().strip():
            item = soup.new_tag("li")
            for part in list(cell.contents):
                item.append(part.extract())
            items.append(item)
    table.replace_with(items)


def function_list(table: Tag) -> None:
    """A one-column function or view table (a function's signature, description and
    examples, or a view column's name, type and description, in one cell) as a list,
    a function or column an item; the header row goes."""
    soup = BeautifulSoup("", "html.parser")
    items = soup.new_tag("ul")
    for cell in table.select("td"):
        item = soup.new_tag("li")
        for block in [c for c in cell.children if isinstance(c, Tag)]:
            item.append(block.extract())
        items.append(item)
    holder = table.find_parent("div", class_="table-contents") or table
    holder.replace_with(items)


def relink(link: Tag, stem: str, pages: set[str]) -> None:
    """A link to another page of the corpus as a relative `.md` link (no anchor), an
    external link as it is, any other (same page, pages left out, anchors) as its text."""
    if common.keep_external(link):
        return
    target = link.get("href", "").split("#")[0]
    if target.endswith(".html") and "/" not in target:
        other = target[: -len(".html")]
        if other in pages and other != stem:
            link.attrs = {"href": f"{other}.md"}
            return
    link.unwrap()


def to_markdown(stem: str, html: Path, pages: set[str], pandoc: Path) -> str:
    title, body = clean(main_content(html / f"{stem}.html"), stem, pages)
    markdown, error = common.html_to_markdown(pandoc, body)
    if not markdown:
        raise SystemExit(f"{NAME}: pandoc failed on {stem}.html: {error}")
    return common.cap_words(f"# {title}\n\n{common.tidy(markdown, CODE).strip()}\n")[0]


def convert_all(stems: list[str], html: Path, pandoc: Path) -> dict[str, str]:
    known = set(stems)
    texts = common.in_threads(lambda s: to_markdown(s, html, known, pandoc), stems)
    return {f"{stem}.md": text for stem, text in zip(stems, texts)}


def index(source: common.Source, parts: dict[str, list[tuple[str, list[str]]]]) -> str:
    intro = (f"Parts I to III of the PostgreSQL 15 manual (Debian's {source.name} "
             f"{source.version}): the tutorial, the SQL language and server administration.")
    return common.index_page(TITLE, intro, [
        (label, [(title, f"{stems[0]}.md") for title, stems in parts[part]])
        for part, label in PARTS.items()])


def main() -> int:
    out = common.out_option(NAME, __doc__)
    html, source, pandoc = common.debian_manual(NAME, PACKAGE, HTML)
    parts = select_pages(html)
    by_part = {part: [s for _, stems in chapters for s in stems]
               for part, chapters in parts.items()}
    stems = [stem for part_stems in by_part.values() for stem in part_stems]
    common.log(f"{NAME}: converting {len(stems)} pages")
    converted = convert_all(stems, html, pandoc)
    nav = [(PARTS[part], [f"{stem}.md" for stem in part_stems])
           for part, part_stems in by_part.items()]
    common.write_project(out, TITLE, converted, index(source, parts), nav=nav,
                         sources=[source, common.PANDOC_SOURCE])
    counts = {part: len(part_stems) for part, part_stems in by_part.items()}
    common.log(f"{NAME}: {len(converted)} pages {counts} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
