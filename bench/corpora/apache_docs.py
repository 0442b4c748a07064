"""Build the `apache-docs` corpus: the Apache HTTP Server 2.4 manual, as Markdown.

Downloads Debian's `apache2-doc` package (`apt-get download`, no root needed; run
`apt-get update` first on a fresh machine) and pandoc (the static binary in PyPI's
`pypandoc_binary` wheel, common.py's `pandoc_binary`), unpacks the package with
`dpkg-deb -x` and converts the English pages of its manual. Debian ships one folder a
language (usr/share/doc/apache2-doc/manual/en/, plain `.html` files, no `.html.en`
or type maps), with its own names in the text (`apache2ctl`, `apache2.conf`). Taken:
the top-level guides, howto/, rewrite/, ssl/, vhosts/, misc/, programs/ and mod/;
left out: developer/ and platform/, the link lists, the licence text and the pages
that only point elsewhere (`LEFT_OUT`), and the pages of en/ that are not in English
(Debian's 2.4.71 package holds six in Brazilian Portuguese there; `is_english`).

A page is its main content (`div#page-content`: the preamble and the sections): the
language boxes, the page navigation and the bug links go, the "See also" box stays as a
list. Its h1 is the `# title` and the headings below move up to follow it (a module's
"Summary" becomes `##`, each directive is a `## Alias Directive` section); the module and
directive tables (Description, Syntax, Default, Context, ...) become lists of
`**Label:** value`, the related modules and directives boxes of the guides a paragraph
each; notes, warnings and titled examples start with their label in bold; definition
lists are the term in bold then its description; cells of other tables are joined so
that they stay pipe tables; code is fenced. Links to pages of the corpus become
relative `.md` links (to the part holding the anchor, anchors dropped), other internal
links their text.

Long pages: guides are cut at the first paragraph past ~3,000 words, as the other
corpora. Module pages are split instead, since a cut would lose most of a module's
directives (`mod/core` has ~22,000 words): a module page whose Markdown passes 3,000
words is split between its sections (preamble, topics, directives), packed in order
into parts of at most ~2,940 words, `mod/<stem>.md`, `mod/<stem>-2.md`, ... Each page is
converted once, with a marker between its sections and links as `@@<key>#<anchor>`
placeholders, so that the split counts the Markdown's words and the links are resolved
once every part is known. A single directive longer than the cap (`ProxyPass`) is
still cut. Pages are laid out as `docs/<dir>/<stem>.md` (URL `<dir>/<stem>/`; a
section's index page `<dir>/`), top-level pages as `docs/<stem>.md`.

    python bench/corpora/apache_docs.py [--out bench/.cache/apache-docs/source]

Downloads stay in bench/.cache/apache-docs/downloads (reused); the project's SOURCES.md
records the package's version and licence.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

NAME = "apache-docs"
TITLE = "Apache HTTP Server 2.4 documentation"
PACKAGE = "apache2-doc"
MANUAL = Path("usr/share/doc/apache2-doc/manual/en")
# The folders taken ("" the top level), in nav order, and their labels.
SECTIONS = {"": "Guides", "howto": "How-To / Tutorials", "rewrite": "URL rewriting",
            "ssl": "SSL/TLS", "vhosts": "Virtual hosts", "misc": "Miscellaneous",
            "programs": "Programs", "mod": "Modules"}
LEFT_OUT = {
    "index", "sitemap", "mod/index", "mod/directives", "mod/quickreference",
    "mod/overrides", "programs/index",  # link lists
    "license",  # the Apache License's text
    "programs/other", "rewrite/access", "rewrite/advanced", "rewrite/proxy",  # pointers
}
MARKER = "APACHEDOCSPLIT"  # a paragraph between a module page's segments
BOXES = {"note": "Note", "warning": "Warning", "example": "Example"}
CODE = "apcode"  # a placeholder class for `fence` and `tidy`


# --- which pages ----------------------------------------------------------------------

def select_pages(manual: Path) -> dict[str, list[str]]:
    """Each section's page keys (`mod/core`, `urlmapping`), its index page first; the
    pages left out and those not in English (see `is_english`) dropped."""
    sections: dict[str, list[str]] = {}
    foreign = []
    for folder in SECTIONS:
        keys = [posixpath.join(folder, stem) for stem in common.html_stems(manual / folder)]
        keys = [key for key in keys if key not in LEFT_OUT]
        foreign += [key for key in keys if not is_english(manual / f"{key}.html")]
        sections[folder] = [key for key in keys if key not in foreign]
        if not sections[folder]:
            raise SystemExit(f"{NAME}: no pages in {manual / folder}")
    if foreign:
        common.log(f"{NAME}: {len(foreign)} pages of en/ not in English, left out: "
                   f"{', '.join(foreign)}")
    return sections


def is_english(path: Path) -> bool:
    """Whether the page says it is English (`<html lang="en">`): Debian's en/ folder
    holds a few pages in another language (their English text is not in the package)."""
    head = path.read_text(encoding="utf-8")[:2000]
    found = re.search(r"<html[^>]*\blang=\"([^\"]+)\"", head)
    return found is not None and found.group(1) == "en"


# --- one page -----------------------------------------------------------------------

def content_of(manual: Path, key: str) -> tuple[str, list[Tag]]:
    """The page's title and its main content's blocks (the preamble less its h1, then
    the sections), the navigation gone and the quick view's "See also" kept."""
    content = common.soup_of(manual / f"{key}.html").select_one("div#page-content")
    heading = content.find("h1") if content is not None else None
    if content is None or heading is None:
        raise SystemExit(f"{NAME}: no div#page-content with an h1 in {key}.html")
    title = common.text_of(heading)
    heading.decompose()
    for summary in content.select("div#preamble > h3"):
        summary.name = "h2"
    see_also = see_also_box(content)
    for tag in content.select("div#quickview, div.toplang, div.bottomlang, button, "
                              "div.top, a.permalink, img, script, style"):
        tag.decompose()
    blocks = [child for child in content.children if isinstance(child, Tag)]
    if see_also is not None and blocks:
        blocks[0].append(see_also)
    return title, blocks


def see_also_box(content: Tag) -> Tag | None:
    """The quick view's "See also" list, labelled, or None."""
    for heading in content.select("div#quickview h3"):
        listing = heading.find_next_sibling()
        if common.text_of(heading) == "See also" and listing is not None and listing.name == "ul":
            holder = BeautifulSoup("<div><p><strong>See also:</strong></p></div>",
                                   "html.parser").div
            holder.append(listing.extract())
            return holder
    return None


def segments_of(key: str, blocks: list[Tag]) -> list[list[Tag]]:
    """Where a page may be split: a module page at each of its sections (the preamble,
    each topic, each directive), any other page nowhere (one segment)."""
    return [[block] for block in blocks] if key.startswith("mod/") else [blocks]


def ids_of(blocks: list[Tag]) -> set[str]:
    ids = {tag["id"] for block in blocks for tag in block.find_all(id=True)}
    return ids | {name.lower() for name in ids}


def convert(manual: Path, key: str, pandoc: Path) -> common.Page:
    """The page as Markdown segments, links to the manual left as placeholders."""
    title, blocks = content_of(manual, key)
    groups = segments_of(key, blocks)
    segments = common.segments_markdown(
        NAME, key, ["".join(map(str, g)) for g in groups], pandoc,
        clean=lambda html: clean(html, key), marker=MARKER, code=CODE)
    return common.Page(key, title, segments, [ids_of(group) for group in groups])


# --- cleaning -------------------------------------------------------------------------

def clean(html: str, key: str) -> str:
    """The page's content as HTML for pandoc."""
    body = BeautifulSoup(f"<div>{html}</div>", "html.parser").div
    for table in body.select("table.module, table.directive"):
        label_list(table)
    for table in body.select("table.related"):
        related(table)
    for heading in body.find_all("h3"):
        if common.text_of(heading) == "See also":
            label_paragraph(heading, "See also")
    for box in body.select(", ".join(f"div.{kind}" for kind in BOXES)):
        labelled_box(box)
    headings = body.find_all(re.compile(r"^h[2-6]$"))
    common.shift_headings(headings)
    for heading in headings:
        for span in heading.find_all("span"):
            span.unwrap()
    for var in body.find_all("var"):
        join_code(var)
    common.flatten_body(body, CODE, lambda link: relink(link, key))
    return str(body)


def join_code(var: Tag) -> None:
    """A placeholder (`<var>`) right beside code joined to it, so that
    `SSL_CLIENT_S_DN_x509` stays one code span rather than two."""
    if var.find_parent(["code", "pre"]) is not None:
        return
    before, after = var.previous_sibling, var.next_sibling
    if isinstance(before, Tag) and before.name == "code":
        before.append(var.get_text())
        var.decompose()
    elif isinstance(after, Tag) and after.name == "code":
        after.insert(0, var.get_text())
        var.decompose()


def label_list(table: Tag) -> None:
    """A two-column label table (a module's or a directive's summary) as a list of
    `**Label:** value`, the labels' links to the dictionary pages dropped."""
    soup = BeautifulSoup("", "html.parser")
    items = soup.new_tag("ul")
    for row in table.find_all("tr"):
        label, value = row.find("th"), row.find("td")
        if label is None or value is None:
            continue
        item, strong = soup.new_tag("li"), soup.new_tag("strong")
        strong.string = common.text_of(label)
        item.append(strong)
        item.append(" ")
        for part in list(value.contents):
            item.append(part.extract())
        items.append(item)
    table.replace_with(items)


def related(table: Tag) -> None:
    """A guide's "Related Modules / Related Directives" box as a paragraph each:
    the label in bold, then the names separated by commas."""
    soup = BeautifulSoup("", "html.parser")
    holder = soup.new_tag("div")
    labels = [common.text_of(th) for th in table.find_all("th")]
    cells = table.find_all("td")
    for label, cell in zip(labels, cells):
        para, strong = soup.new_tag("p"), soup.new_tag("strong")
        strong.string = f"{label}:"
        para.append(strong)
        for number, item in enumerate(cell.find_all("li")):
            para.append(" " if number == 0 else ", ")
            for part in list(item.contents):
                para.append(part.extract())
        holder.append(para)
    table.replace_with(holder)


def label_paragraph(heading: Tag, label: str) -> None:
    """A heading as a paragraph of its text in bold, ending with a colon."""
    soup = BeautifulSoup("", "html.parser")
    para, strong = soup.new_tag("p"), soup.new_tag("strong")
    strong.string = label if label.endswith(":") else f"{label}:"
    para.append(strong)
    heading.replace_with(para)


def labelled_box(box: Tag) -> None:
    """A note, warning or example box: its title (or "Note:", "Warning:"; examples have
    none but their title) in bold at its start; the box's text as it is."""
    heading = box.find("h3", recursive=False)
    kind = next(k for k in BOXES if k in box.get("class", []))
    if heading is not None:
        label_paragraph(heading, common.text_of(heading))
    elif kind != "example":
        soup = BeautifulSoup("", "html.parser")
        strong = soup.new_tag("strong")
        strong.string = f"{BOXES[kind]}:"
        first = next((c for c in box.children if isinstance(c, Tag) or c.strip()), None)
        target = first if isinstance(first, Tag) and first.name == "p" else box
        target.insert(0, " ")
        target.insert(0, strong)
    box.attrs = {}


def relink(link: Tag, key: str) -> None:
    """A link to a page of the manual as `@@<key>#<anchor>` (resolved once the parts
    are known), an external link as it is, any other as its text."""
    if common.keep_external(link):
        return
    path, _, anchor = link.get("href", "").partition("#")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(key), path))
    if not path:
        link.attrs = {"href": f"{common.LINK}{key}#{anchor}"}
    elif path.endswith(".html") and not target.startswith(".."):
        link.attrs = {"href": f"{common.LINK}{target.removesuffix('.html')}#{anchor}"}
    else:
        link.unwrap()


# --- Markdown -------------------------------------------------------------------------

def convert_all(keys: list[str], manual: Path, pandoc: Path) -> list[common.Page]:
    return common.in_threads(lambda key: convert(manual, key, pandoc), keys)


def index(source: common.Source, sections: dict[str, list[common.Part]]) -> str:
    intro = (f"The Apache HTTP Server 2.4 manual (Debian's {source.name} {source.version}): "
             "the users' guides, how-tos, URL rewriting, SSL/TLS, virtual hosts, the "
             "programs and the modules' reference.")
    return common.sectioned_index(TITLE, intro, sections, SECTIONS)


def main() -> int:
    out = common.out_option(NAME, __doc__)
    manual, source, pandoc = common.debian_manual(NAME, PACKAGE, MANUAL)
    keys = select_pages(manual)
    common.log(f"{NAME}: converting {sum(map(len, keys.values()))} manual pages")
    pages = convert_all([key for folder in keys.values() for key in folder], manual, pandoc)
    parts = {page.key: common.parts_of(page) for page in pages}
    sections = {folder: [part for key in folder_keys for part in parts[key]]
                for folder, folder_keys in keys.items()}
    common.write_sectioned(out, NAME, TITLE, sections, SECTIONS, index(source, sections),
                           source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
