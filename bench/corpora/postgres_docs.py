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

import argparse
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    CACHE,
    FENCE,
    PANDOC_SOURCE,
    Source,
    cap_words,
    debian_package,
    html_to_markdown,
    log,
    pandoc_binary,
    sources_table,
    write_project,
)

NAME = "postgres-docs"
PACKAGE = "postgresql-doc-15"
HTML = Path("usr/share/doc/postgresql-doc-15/html")
# The part pages whose tables of contents give the pages, and their labels.
PARTS = {"tutorial": "Tutorial", "sql": "The SQL Language",
         "admin": "Server Administration"}
ADMONITIONS = ("note", "tip", "caution", "warning", "important")
BLOCKS = {"p", "div", "ul", "ol", "dl", "pre", "blockquote", "table"}
NUMBER = re.compile(r"^(?:(?:Chapter|Part|Appendix)\s+)?[0-9A-Z]+(?:\.[0-9]+)*\.\s+")
CODE = "pgcode"  # a placeholder class: pandoc fences code only when it has a class


# --- downloads ------------------------------------------------------------------------

def unpack(downloads: Path) -> tuple[Path, Source]:
    """The package's HTML folder, fetched and unpacked under `downloads`, and its
    Source line."""
    root, version = debian_package(PACKAGE, downloads / "debs", downloads / "unpacked", NAME)
    if not (root / HTML / "index.html").is_file():
        raise SystemExit(f"{NAME}: no {HTML}/index.html in {PACKAGE} {version}")
    return root / HTML, Source("Debian", PACKAGE, version, licence(root))


def licence(root: Path) -> str:
    """The licence of `Files: *` in the package's Debian copyright file (DEP-5)."""
    path = root / "usr/share/doc" / PACKAGE / "copyright"
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    for paragraph in re.split(r"\n\s*\n", text):
        if re.search(r"^Files:\s*\*\s*$", paragraph, re.M):
            found = re.search(r"^License:\s*(.+)$", paragraph, re.M)
            if found:
                return found.group(1).strip()
    return "see its Debian copyright file"


# --- which pages ----------------------------------------------------------------------

def soup_of(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


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
        toc = soup_of(html / f"{part}.html").select_one("dl.toc")
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
                parts[part].append((unnumbered(text_of(link)), stems))
    return parts


def has_text(path: Path) -> bool:
    """Whether the page holds more than its title and table of contents."""
    body = soup_of(path).body
    if body is None:
        return False
    for tag in body.select("div.navheader, div.navfooter, div.toc, div.titlepage"):
        tag.decompose()
    return bool(body.get_text().strip())


# --- one page -------------------------------------------------------------------------

def text_of(tag: Tag) -> str:
    return " ".join(tag.get_text().split())


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
    body = soup_of(path).body
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
    title = unnumbered(text_of(headings[0]))
    headings.pop(0).decompose()
    for box in body.select(", ".join(f"div.{kind}" for kind in ADMONITIONS)):
        admonition(box)
    headings = [h for h in headings if h.parent is not None]
    if headings:  # the sub-headings up, so that the highest is h2
        shift = min(int(h.name[1]) for h in headings) - 2
        for heading in headings:
            drop_number(heading)
            heading.name = f"h{min(max(int(heading.name[1]) - shift, 2), 6)}"
            heading.attrs = {}
    for pre in body.find_all("pre"):
        code = BeautifulSoup("<pre><code></code></pre>", "html.parser")
        code.code.string = pre.get_text().strip("\n")
        code.code["class"] = [CODE]
        pre.replace_with(code.pre)
    for sup in body.find_all("sup"):
        sup.unwrap()
    for dl in body.find_all("dl"):
        flatten_definitions(dl)
    for table in body.select("table.simplelist"):
        simple_list(table)
    for table in body.find_all("table"):
        if table.select_one(".func_table_entry, .catalog_table_entry"):
            function_list(table)
        else:
            for cell in table.find_all(["td", "th"]):
                flatten_cell(cell)
    for link in body.find_all("a"):
        relink(link, stem, pages)
    return title, str(body)


def admonition(box: Tag) -> None:
    """A note box as its paragraphs, the first starting with "**Note:**"."""
    heading = box.find(re.compile(r"^h[1-6]$"))
    label = text_of(heading) if heading else box["class"][0].title()
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


def flatten_definitions(dl: Tag) -> None:
    """A definition list (configuration parameters, options, terms) as paragraphs: the
    term in bold as a paragraph of its own, then its description."""
    soup = BeautifulSoup("", "html.parser")
    out = soup.new_tag("div")
    for child in [c for c in dl.children if isinstance(c, Tag)]:
        if child.name == "dt":
            para, strong = soup.new_tag("p"), soup.new_tag("strong")
            for part in list(child.contents):
                strong.append(part.extract())
            para.append(strong)
            out.append(para)
        elif child.name == "dd":
            child.name = "div"
            child.attrs = {}
            out.append(child.extract())
    dl.replace_with(out)


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


def flatten_cell(cell: Tag) -> None:
    """A table cell of several blocks (paragraphs, lists, code) as one paragraph, so
    that pandoc can write the table as a pipe table (else it writes `[TABLE]`); text
    and inline markup stay as they are."""
    blocks = [c for c in cell.children if isinstance(c, Tag) and c.name in BLOCKS]
    if len(blocks) <= 1 and not any(b.name != "p" for b in blocks):
        return
    soup = BeautifulSoup("", "html.parser")
    para = soup.new_tag("p")
    for child in list(cell.children):
        if isinstance(child, Tag) and child.name in BLOCKS:
            if para.get_text().strip():
                para.append(" ")
            if child.name == "p":
                for part in list(child.contents):
                    para.append(part.extract())
            else:
                para.append(text_of(child))
        else:
            para.append(child.extract())
    cell.clear()
    cell.append(para)


def relink(link: Tag, stem: str, pages: set[str]) -> None:
    """A link to another page of the corpus as a relative `.md` link (no anchor), an
    external link as it is, any other (same page, pages left out, anchors) as its text."""
    href = link.get("href", "")
    if re.match(r"^[a-z][a-z0-9+.-]*:", href):
        link.attrs = {"href": href}
        return
    target = href.split("#")[0]
    if target.endswith(".html") and "/" not in target:
        other = target[: -len(".html")]
        if other in pages and other != stem:
            link.attrs = {"href": f"{other}.md"}
            return
    link.unwrap()


def tidy(markdown: str) -> str:
    """Code fences without the placeholder class; pandoc's leftovers (a lone
    backslash), trailing blanks (not a hard line break's) and runs of blank lines
    outside code dropped."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            line = line.replace(f" {CODE}", "").replace(CODE, "")
        elif not fenced:
            if line.strip() == "\\":
                continue
            line = line if line.endswith("  ") and line.strip() else line.rstrip()
        lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))


def to_markdown(stem: str, html: Path, pages: set[str], pandoc: Path) -> str:
    title, body = clean(main_content(html / f"{stem}.html"), stem, pages)
    markdown, error = html_to_markdown(pandoc, body)
    if not markdown:
        raise SystemExit(f"{NAME}: pandoc failed on {stem}.html: {error}")
    return cap_words(f"# {title}\n\n{tidy(markdown).strip()}\n")[0]


def convert_all(stems: list[str], html: Path, pandoc: Path) -> dict[str, str]:
    known = set(stems)
    with ThreadPoolExecutor(max_workers=2) as pool:
        texts = list(pool.map(lambda s: to_markdown(s, html, known, pandoc), stems))
    return {f"{stem}.md": text for stem, text in zip(stems, texts)}


def index(source: Source, parts: dict[str, list[tuple[str, list[str]]]]) -> str:
    lines = ["# PostgreSQL 15 documentation", "",
             f"Parts I to III of the PostgreSQL 15 manual (Debian's {source.name} "
             f"{source.version}): the tutorial, the SQL language and server administration.",
             ""]
    for part, label in PARTS.items():
        lines += [f"## {label}", ""]
        lines += [f"- [{title}]({stems[0]}.md)" for title, stems in parts[part]]
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CACHE / NAME / "source")
    args = parser.parse_args()
    downloads = CACHE / NAME / "downloads"
    html, source = unpack(downloads)
    pandoc = pandoc_binary(downloads)
    parts = select_pages(html)
    by_part = {part: [s for _, stems in chapters for s in stems]
               for part, chapters in parts.items()}
    stems = [stem for part_stems in by_part.values() for stem in part_stems]
    log(f"{NAME}: converting {len(stems)} pages")
    converted = convert_all(stems, html, pandoc)
    nav = [(PARTS[part], [f"{stem}.md" for stem in part_stems])
           for part, part_stems in by_part.items()]
    write_project(args.out, "PostgreSQL 15 documentation", converted,
                  index(source, parts), nav=nav)
    sources = [source, PANDOC_SOURCE]
    (args.out / "SOURCES.md").write_text(sources_table(sources), encoding="utf-8")
    counts = {part: len(part_stems) for part, part_stems in by_part.items()}
    log(f"{NAME}: {len(converted)} pages {counts} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
