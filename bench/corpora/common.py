"""Helpers shared by the corpus scripts: downloads, HTML clean-up for pandoc, the page
cap, the MkDocs project."""

from __future__ import annotations

import argparse
import posixpath
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from bs4 import BeautifulSoup, NavigableString, Tag

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".cache"
MAX_WORDS = 3000
PANDOC_WHEEL = "pypandoc_binary==1.17"
FENCE = re.compile(r"^\s*(```|~~~)")
BLOCKS = {"p", "div", "ul", "ol", "dl", "pre", "blockquote", "table"}  # for flatten_cell
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:")
LINK = "@@"  # a link to a page of the corpus, `@@dir/page#anchor`, until the parts are known
LINKED = re.compile(r"\[((?:`[^`]*`|\\.|[^\]\\`])*)\]\(@@([^)#\s]*)#?([^)\s]*)\)")
PART_HEAD = 60
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
"""Words kept free in a part of a split page for its title and first line."""
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Source:
    """One downloaded package: what the corpus README records."""

    registry: str
    name: str
    version: str
    licence: str


PANDOC_SOURCE = Source("PyPI", "pypandoc_binary (pandoc, the converter)",
                       PANDOC_WHEEL.split("==")[1], "MIT (pandoc: GPL-2.0-or-later)")


def pandoc_binary(downloads: Path) -> Path:
    """pandoc from PyPI's pypandoc_binary wheel (a static binary), unpacked once."""
    binary = downloads / "pandoc" / "pandoc"
    if binary.exists():
        return binary
    wheels = downloads / "wheels"
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
         "-d", str(wheels), PANDOC_WHEEL])
    wheel = next(wheels.glob("pypandoc_binary-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        binary.parent.mkdir(parents=True, exist_ok=True)
        binary.write_bytes(archive.read("pypandoc/files/pandoc"))
    binary.chmod(0o755)
    return binary


def html_to_markdown(pandoc: Path, html: str, *, timeout: int = 300) -> tuple[str, str]:
    """pandoc's GitHub Markdown of `html` (no raw HTML, lines unwrapped), and "" and the
    last line pandoc said when it gave nothing."""
    proc = subprocess.run([str(pandoc), "-f", "html", "-t", "gfm-raw_html", "--wrap=none"],
                          input=html, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or not proc.stdout.strip():
        return "", (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return proc.stdout, ""


def debian_package(package: str, debs: Path, unpacked: Path, name: str) -> tuple[Path, str]:
    """The Debian package `package` unpacked under `unpacked` (its .deb fetched into
    `debs` with `apt-get download` unless already there), and its version. `name`
    labels errors."""
    into = debs
    found = sorted(into.glob(f"{package}_*.deb"))
    if not found:
        into.mkdir(parents=True, exist_ok=True)
        log(f"{name}: apt-get download {package}")
        try:
            run(["apt-get", "download", package], cwd=into)
        except SystemExit as failed:
            last = (str(failed).strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"{name}: apt-get download {package} failed "
                             f"(apt-get update first?): {last}") from None
        found = sorted(into.glob(f"{package}_*.deb"))
        if not found:
            raise SystemExit(f"{name}: no {package}_*.deb after apt-get download")
    deb = found[-1]
    version = run(["dpkg-deb", "-f", str(deb), "Version"]).strip()
    root = unpacked / f"{package}_{version}"
    if not root.exists():
        root.mkdir(parents=True)
        run(["dpkg-deb", "-x", str(deb), str(root)])
    return root, version


def dep5_licence(copyright_text: str) -> str:
    """The licence of `Files: *` in a Debian copyright file (DEP-5)."""
    for paragraph in re.split(r"\n\s*\n", copyright_text):
        if re.search(r"^Files:\s*\*\s*$", paragraph, re.M):
            found = re.search(r"^License:\s*(.+)$", paragraph, re.M)
            if found:
                return found.group(1).strip()
    return "see its Debian copyright file"


def debian_manual(name: str, package: str, folder: Path,
                  licence: Callable[[str], str] = dep5_licence) -> tuple[Path, Source, Path]:
    """For the corpus `name`: the HTML folder `folder` (holding an index.html) of the
    Debian package `package`, its Source line (the licence read by `licence` from its
    copyright file) and pandoc, fetched once into bench/.cache/<name>/downloads."""
    downloads = CACHE / name / "downloads"
    root, version = debian_package(package, downloads / "debs", downloads / "unpacked", name)
    if not (root / folder / "index.html").is_file():
        raise SystemExit(f"{name}: no {folder}/index.html in {package} {version}")
    path = root / "usr/share/doc" / package / "copyright"
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    source = Source("Debian", package, version, licence(text))
    return root / folder, source, pandoc_binary(downloads)


def html_stems(folder: Path) -> list[str]:
    """The stems of the folder's `.html` pages, sorted, `index` first."""
    stems = sorted(p.stem for p in folder.glob("*.html"))
    return sorted(stems, key=lambda stem: stem != "index")


def in_threads(function: Callable[[T], R], items: list[T]) -> list[R]:
    """`function` of each item, in order, two at a time (pandoc runs beside Python)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(function, items))


def run(cmd: list[str], cwd: Path | None = None) -> str:
    """Run a command, fail loudly with its stderr."""
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.stdout


def soup_of(path: Path) -> BeautifulSoup:
    """The parsed HTML page at `path`."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def text_of(tag: Tag, drop: str = "") -> str:
    """The tag's text, `drop` taken out, white space folded to single spaces."""
    return " ".join(tag.get_text().replace(drop, "").split())


def shift_headings(headings: list[Tag]) -> None:
    """The headings moved up (or down) so that the highest is h2, none below h6, their
    attributes dropped."""
    if not headings:
        return
    shift = min(int(h.name[1]) for h in headings) - 2
    for heading in headings:
        heading.name = f"h{min(max(int(heading.name[1]) - shift, 2), 6)}"
        heading.attrs = {}


def fence(pre: Tag, placeholder: str) -> None:
    """A `pre` block as `<pre><code>` of its text (its end newlines dropped) with the
    class `placeholder`: pandoc fences code only when it has a class (`tidy` drops it)."""
    code = BeautifulSoup("<pre><code></code></pre>", "html.parser")
    code.code.string = pre.get_text().strip("\n")
    code.code["class"] = [placeholder]
    pre.replace_with(code.pre)


def flatten_definitions(dl: Tag, *, signatures: bool = False, drop: str = "") -> None:
    """A definition list as paragraphs: each term in bold as a paragraph of its own,
    then its description. With `signatures`, a list of object descriptions (its first
    term a Sphinx signature, `dt.sig`) has each term as code, its text less `drop`."""
    soup = BeautifulSoup("", "html.parser")
    first = dl.find("dt", recursive=False)
    as_code = signatures and first is not None and "sig" in first.get("class", [])
    out = soup.new_tag("div")
    for child in [c for c in dl.children if isinstance(c, Tag)]:
        if child.name == "dt":
            para = soup.new_tag("p")
            if as_code:
                code = soup.new_tag("code")
                code.string = text_of(child, drop)
                para.append(code)
            else:
                strong = soup.new_tag("strong")
                for part in list(child.contents):
                    strong.append(part.extract())
                para.append(strong)
            out.append(para)
        elif child.name == "dd":
            child.name = "div"
            child.attrs = {}
            out.append(child.extract())
    dl.replace_with(out)


def flatten_cell(cell: Tag) -> None:
    """A table cell of several blocks (paragraphs, lists, code) as one paragraph, so
    that pandoc can write the table as a pipe table (else it writes `[TABLE]`); text
    and inline markup stay as they are, other blocks become their text."""
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


def flatten_body(body: Tag, placeholder: str, relink: Callable[[Tag], None], *,
                 cell_paragraphs: bool = False) -> None:
    """What pandoc needs of a page's cleaned body, in this order: inline code as its
    text, code blocks fenced (`fence`), definition lists flattened, table cells on one
    line (line breaks as spaces; with `cell_paragraphs`, their paragraphs run together),
    a link inside a link unwrapped (the outer one stays), then every link `relink`ed."""
    for code in body.find_all("code"):
        if code.find(lambda tag: tag.name != "a"):
            code.string = code.get_text()
    for pre in body.find_all("pre"):
        fence(pre, placeholder)
    for dl in body.find_all("dl"):
        flatten_definitions(dl)
    flatten_tables(body, cell_paragraphs=cell_paragraphs)
    relink_all(body, relink)


def flatten_tables(body: Tag, *, cell_paragraphs: bool = False,
                   drop_columns: bool = False) -> None:
    """Every table's cells on one line (line breaks as spaces; with `cell_paragraphs`,
    their paragraphs run together), with `drop_columns` its column specs gone first."""
    for table in body.find_all("table"):
        if drop_columns:
            for col in table.find_all(["col", "colgroup"]):
                col.decompose()
        for cell in table.find_all(["td", "th"]):
            for br in cell.find_all("br"):
                br.replace_with(" ")
            if cell_paragraphs:
                for para in cell.find_all("p"):
                    para.insert_before(" ")
                    para.unwrap()
            flatten_cell(cell)


def relink_all(body: Tag, relink: Callable[[Tag], None]) -> None:
    """A link inside a link unwrapped (the outer one stays), then every link `relink`ed."""
    for inner in body.select("a a"):
        inner.unwrap()
    for link in body.find_all("a"):
        relink(link)


def inline_labels(body: Tag, drop: str = "") -> None:
    """Sphinx's admonition titles ("Note") as a bold label starting the paragraph after
    them ("**Note:** text..."), a colon added unless the title ends in punctuation."""
    for label in body.select("p.admonition-title"):
        text = text_of(label, drop)
        label.string = text if text.endswith(("?", ":", ".", "!")) else f"{text}:"
        label.name = "strong"
        label.attrs = {}
        after = label.find_next_sibling()
        if after is not None and after.name == "p":
            after.insert(0, " ")
            after.insert(0, label.extract())


def keep_external(link: Tag) -> bool:
    """Whether the link leaves the site (its href has a scheme: `https:`, `mailto:`);
    if so, its href is all it keeps."""
    href = link.get("href", "")
    if SCHEME.match(href):
        link.attrs = {"href": href}
        return True
    return False


def relative_link(target: str, doc: str) -> str:
    """The relative link from the page `doc` to `target` (paths under docs/)."""
    return posixpath.relpath(target, posixpath.dirname(doc) or ".")


def tidy(markdown: str, placeholder: str) -> str:
    """pandoc's Markdown with code fences less the class `placeholder` (see `fence`; a
    fence in a quote keeps it); pandoc's leftovers (a lone backslash) and trailing
    blanks (not a hard line break's) outside code dropped, runs of blank lines made one."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            line = line.replace(f" {placeholder}", "").replace(placeholder, "")
        elif not fenced:
            if line.strip() == "\\":
                continue
            line = line if line.endswith("  ") and line.strip() else line.rstrip()
        lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))


def cap_words(markdown: str, limit: int = MAX_WORDS) -> tuple[str, bool]:
    """The page up to the paragraph where it passes `limit` words; a code fence
    left open by the cut is closed. Returns the text and whether it was cut."""
    blocks = markdown.split("\n\n")
    kept: list[str] = []
    words = 0
    for block in blocks:
        if words >= limit:
            break
        kept.append(block)
        words += len(block.split())
    if len(kept) == len(blocks):
        return markdown, False
    text = "\n\n".join(kept)
    fences = sum(1 for line in text.splitlines() if FENCE.match(line))
    if fences % 2:
        text += "\n```"
    return text.rstrip() + "\n", True


def index_page(title: str, intro: str,
               sections: list[tuple[str, list[tuple[str, str]]]]) -> str:
    """A home page: the title, the `intro` paragraph, then each section's heading and a
    list of links to its pages, given as (text, doc) pairs."""
    lines = [f"# {title}", "", intro, ""]
    for label, links in sections:
        lines += [f"## {label}", ""]
        lines += [f"- [{text}]({doc})" for text, doc in links]
        lines.append("")
    return "\n".join(lines)


def sectioned_index(title: str, intro: str, sections: dict[str, list[Part]],
                    labels: dict[str, str]) -> str:
    """The home page of a corpus laid out in folders (`labels`: each folder's heading):
    each page's first part, folder by folder."""
    return index_page(title, intro, [
        (label, [(part.title, part.doc) for part in sections[folder]
                 if part.doc == f"{part.key}.md"])
        for folder, label in labels.items()])


def segments_markdown(name: str, key: str, groups: list[str], pandoc: Path, *,
                      clean: Callable[[str], str], marker: str, code: str) -> list[str]:
    """The Markdown of a page's `groups` (each some HTML), converted in one pandoc run
    with `marker` paragraphs between them (`clean`: the page's HTML before conversion,
    `code`: the placeholder class of `fence` and `tidy`), one segment a group."""
    html = f"<p>{marker}</p>".join(f"<div>{group}</div>" for group in groups)
    markdown, error = html_to_markdown(pandoc, clean(html))
    if not markdown:
        raise SystemExit(f"{name}: pandoc failed on {key}.html: {error}")
    segments = [s.strip() for s in re.split(rf"^{marker}$", tidy(markdown, code), flags=re.M)]
    if len(segments) != len(groups):
        raise SystemExit(f"{name}: {key}.html: {len(segments)} segments, not {len(groups)}")
    return segments


def level(node) -> int | None:
    return int(node.name[1]) if isinstance(node, Tag) and node.name in HEADINGS else None


def sections(nodes: list, limit: int) -> list[list]:
    """The nodes grouped at their highest headings; a group over half `limit` words
    (of text: the Markdown has more) grouped again at its next headings, and so on, so
    that the parts can be packed close to the limit."""
    levels = [found for found in map(level, nodes) if found is not None]
    if not levels:
        return [nodes]
    top = min(levels)
    groups: list[list] = [[]]
    for node in nodes:
        if level(node) == top and groups[-1]:
            groups.append([])
        groups[-1].append(node)
    out = []
    for group in groups:
        words = sum(len(node.get_text().split()) for node in group)
        head = group[:1] if level(group[0]) == top else []
        inner = group[len(head):]  # no heading of level `top`: each split goes deeper
        if words > limit // 2 and any(map(level, inner)):
            split = sections(inner, limit)
            out += [head + split[0], *split[1:]]
        else:
            out.append(group)
    return out


def ids_of(nodes: list) -> set[str]:
    """The anchors `nodes` hold: every element id, and the names of `<a>` anchors."""
    ids = set()
    for node in nodes:
        if isinstance(node, Tag):
            for tag in [node, *node.find_all(True)]:
                for attr in ("id", "name"):
                    if tag.get(attr) and (attr == "id" or tag.name == "a"):
                        ids.add(tag[attr])
    return ids


def anchor_heading(section: Tag, heading: Tag) -> None:
    """A Sphinx section's id and the empty anchors (`<span id>`) right before its
    heading moved into the heading, so that they go with it when the page is split."""
    soup = BeautifulSoup("", "html.parser")
    before = heading.previous_sibling
    while before is not None:
        earlier = before.previous_sibling
        if isinstance(before, Tag):
            if before.name != "span" or not before.get("id") or before.get_text(strip=True):
                break
            heading.insert(0, before.extract())
        elif before.strip():
            break
        before = earlier
    if section.get("id"):
        heading.insert(0, soup.new_tag("span", attrs={"id": section["id"]}))


def is_signature(dl: Tag) -> bool:
    """Whether a Sphinx definition list is an object description (its term a
    signature)."""
    first = dl.find("dt", recursive=False)
    return first is not None and "sig" in first.get("class", [])


def named_descriptions(content: Tag, names: str) -> None:
    """A section of a flat Sphinx page (`content`'s children) longer than a part, with
    no subsection but object descriptions, gets a heading a description, one level below
    its own and named as it (the text of its signature's `names`, a CSS selector), so
    that it is split between them rather than cut."""
    limit = MAX_WORDS - PART_HEAD
    runs: list[list[Tag]] = [[]]
    for node in [node for node in content.children if isinstance(node, Tag)]:
        if node.name in HEADINGS:
            runs.append([])
        runs[-1].append(node)
    soup = BeautifulSoup("", "html.parser")
    for run in runs:
        described = [node for node in run if node.name == "dl" and is_signature(node)]
        if sum(len(node.get_text().split()) for node in run) <= limit or len(described) < 2:
            continue
        rank = min(int(run[0].name[1]) + 1, 6) if run[0].name in HEADINGS else 2
        for dl in described:
            parts = dl.find("dt").select(names)
            heading = soup.new_tag(f"h{rank}")
            heading.append(soup.new_tag("code"))
            heading.code.string = "".join(part.get_text() for part in parts).strip()
            dl.insert_before(heading)


def unwrap_sections(content: Tag, title: Tag, selector: str) -> None:
    """A Sphinx page's nested sections (`selector`) unwrapped into a flat run of headings
    and blocks, each section's anchors moved into its heading first (`anchor_heading`),
    and the `title` heading gone."""
    for section in content.select(selector):
        first = section.find(HEADINGS)
        if first is not None:
            anchor_heading(section, first)
    title.decompose()
    for section in content.select(selector):
        section.unwrap()


def plain_headings(body: Tag) -> None:
    """A page's headings moved up (`shift_headings`), their spans and links unwrapped."""
    headings = body.find_all(HEADINGS)
    shift_headings(headings)
    for heading in headings:
        for tag in heading.find_all(["span", "a"]):
            tag.unwrap()


def highlight_language(block: Tag) -> str:
    """The language Sphinx highlighted a block in (`div.highlight-<language>`), or ""."""
    return next((c[len("highlight-"):] for c in block["class"]
                 if c.startswith("highlight-")), "")


def fence_highlighted(body: Tag, language_of: Callable[[Tag], str], code: str) -> None:
    """Sphinx's highlighted blocks as `<pre><code>` in the fence's language
    (`language_of(block)`; `code`, the placeholder class, for none), then every other
    `pre` fenced (`fence`)."""
    for block in body.select("div[class*=highlight-]"):
        pre = block.find("pre")
        fenced = BeautifulSoup("<pre><code></code></pre>", "html.parser")
        fenced.code.string = (pre.get_text() if pre else block.get_text()).strip("\n")
        fenced.code["class"] = [language_of(block)]
        block.replace_with(fenced.pre)
    for pre in body.find_all("pre"):
        if pre.code is None or not pre.code.get("class"):
            fence(pre, code)


BRACKETS = {"[": "\ue000", "]": "\ue001"}
"""Brackets in text -> private-use stand-ins while a page goes through pandoc and the
link rewriting (`hold_brackets`)."""
VERBATIM = ["pre", "code", "kbd", "samp"]


def hold_brackets(body: Tag) -> None:
    """Brackets in text (not code) as BRACKETS's stand-ins until the project is written
    (`restore_brackets`). pandoc writes them `\\[`, `\\]`, and the link pattern
    (`LINKED`) reads an escaped `[` as the start of a link's text: from a synopsis'
    `[options]` to a link further on it would take all as one link, drop a bracket and
    keep the text between as the link's."""
    hold = str.maketrans(BRACKETS)
    for text in body.find_all(string=True):
        if type(text) is NavigableString and not text.find_parent(VERBATIM) and (
                "[" in text or "]" in text):
            text.replace_with(text.translate(hold))


def restore_brackets(out: Path) -> None:
    """The written pages of the project in `out` with their brackets back, escaped as
    pandoc writes them."""
    restore = {ord(held): f"\\{bracket}" for bracket, held in BRACKETS.items()}
    for path in sorted((out / "docs").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if any(held in text for held in BRACKETS.values()):
            path.write_text(text.translate(restore), encoding="utf-8")


def sectioned_page(name: str, key: str, title: str, content: Tag, pandoc: Path, *,
                   clean: Callable[[str], str], marker: str, code: str) -> Page:
    """A page's `content` as Markdown segments grouped at its headings (`sections`),
    each with the anchors it holds, links to the corpus left as placeholders."""
    nodes = [node for node in content.children
             if isinstance(node, Tag) or (type(node) is NavigableString and node.strip())]
    groups = sections(nodes, MAX_WORDS - PART_HEAD)
    segments = segments_markdown(name, key, ["".join(map(str, g)) for g in groups], pandoc,
                                 clean=clean, marker=marker, code=code)
    kept = [(s, ids_of(g)) for s, g in zip(segments, groups) if s]
    return Page(key, title, [s for s, _ in kept], [ids for _, ids in kept])


def write_sectioned(out: Path, name: str, title: str, sections: dict[str, list[Part]],
                    labels: dict[str, str], index: str, source: Source) -> None:
    """A corpus laid out in folders written as a project (`finish`, `write_project`),
    the nav in the order of `labels`, and what it holds logged."""
    converted = finish([part for folder in sections.values() for part in folder], name)
    nav = [(label, [part.doc for part in sections[folder]])
           for folder, label in labels.items()]
    write_project(out, title, converted, index, nav=nav, sources=[source, PANDOC_SOURCE])
    counts = {label: len(sections[folder]) for folder, label in labels.items()}
    log(f"{name}: {len(converted)} pages {counts} in {out}")


def relink_page(link: Tag, key: str, aliases: dict[str, str] | None = None) -> None:
    """A link to a page of the site (an anchor alone: this page) as `@@<key>#<anchor>`
    (resolved once the parts are known; `aliases`: pages whose links go to another),
    an external link as it is, any other (no `href`, a script, a file outside the
    site's pages) as its text."""
    href = link.get("href")
    if href is None or href.startswith("javascript:"):
        link.unwrap()
        return
    if keep_external(link):
        return
    path, _, anchor = href.partition("#")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(key), path))
    target = target.removesuffix(".html")
    target = (aliases or {}).get(target, target)
    if not path:
        link.attrs = {"href": f"{LINK}{key}#{anchor}"}
    elif path.endswith(".html") and not target.startswith(".."):
        link.attrs = {"href": f"{LINK}{target}#{anchor}"}
    else:
        link.unwrap()


def sectioned_main(name: str, title: str, package: str, folder: Path, labels: dict[str, str],
                   select: Callable[[Path], dict[str, list[str]]],
                   convert: Callable[[Path, str, Path], Page],
                   index: Callable[[Source, dict[str, list[Part]]], str], doc: str) -> int:
    """The command of a corpus split between sections: the Debian package's HTML in
    `folder`, the pages `select` picks by label folder, each converted and cut into
    parts, written as a project with the `index` page."""
    out = out_option(name, doc)
    html, source, pandoc = debian_manual(name, package, folder)
    keys = select(html)
    log(f"{name}: converting {sum(map(len, keys.values()))} pages")
    pages = in_threads(lambda key: convert(html, key, pandoc),
                       [key for found in keys.values() for key in found])
    parts = {page.key: parts_of(page) for page in pages}
    by_folder = {where: [part for key in found for part in parts[key]]
                 for where, found in keys.items()}
    every = [part for found in by_folder.values() for part in found]
    if len({part.doc for part in every}) != len(every):
        raise SystemExit(f"{name}: two parts with the same file")
    split = {key: len(found) for key, found in parts.items() if len(found) > 1}
    log(f"{name}: {len(split)} pages split: "
        + ", ".join(f"{key} {n}" for key, n in split.items()))
    write_sectioned(out, name, title, by_folder, labels, index(source, by_folder), source)
    return 0


def out_option(name: str, doc: str) -> Path:
    """The command line's `--out` (default bench/.cache/<name>/source); the help is the
    first line of `doc`, the script's docstring."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CACHE / name / "source")
    return parser.parse_args().out


def write_project(out: Path, site_name: str, pages: dict[str, str], index: str,
                  nav: list[tuple[str, list[str]]] | None = None,
                  sources: list[Source] | None = None) -> None:
    """Write `out` as an MkDocs project: mkdocs.yml and docs/, and SOURCES.md when
    `sources` are given. The nav is the home page and the `nav` sections given (none:
    thousands of pages would each render a full nav; MkDocs builds the pages left out
    all the same)."""
    if out.exists():
        shutil.rmtree(out)
    docs = out / "docs"
    for rel, text in {"index.md": index, **pages}.items():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    lines = ["nav:", "  - Home: index.md"]
    for label, section in nav or []:
        lines += [f"  - {label}:", *(f"    - {rel}" for rel in section)]
    (out / "mkdocs.yml").write_text(
        f"site_name: {site_name}\n" + "\n".join(lines) + "\n"
        "theme:\n  name: mkdocs\n"
        "plugins:\n  - search\n",
        encoding="utf-8")
    if sources is not None:
        (out / "SOURCES.md").write_text(sources_table(sources), encoding="utf-8")


def sources_table(sources: list[Source]) -> str:
    rows = ["| registry | package | version | licence |", "|---|---|---|---|"]
    rows += [f"| {s.registry} | {s.name} | {s.version} | {s.licence} |" for s in sources]
    return "\n".join(rows) + "\n"


# --- pages in parts ------------------------------------------------------------------

@dataclass(frozen=True)
class Page:
    """One page of a manual as Markdown, in segments where it may be split (a single
    segment: never split); links to the corpus still `@@<key>#<anchor>` (`LINK`)."""

    key: str
    """The page's path less `.html`, e.g. `mod/core`."""
    title: str
    segments: list[str]
    anchors: list[set[str]]
    """The ids (anchors) each segment holds."""


@dataclass(frozen=True)
class Part:
    """One page of the corpus: a manual page, or one part of a split page."""

    key: str
    doc: str
    """The Markdown file under docs/, e.g. `mod/core-2.md`."""
    title: str
    markdown: str
    anchors: set[str]


def pack(sizes: list[int], limit: int) -> list[list[int]]:
    """Consecutive segments (their indices) grouped greedily, each group's words at
    most `limit` (but a single segment longer than that)."""
    groups: list[list[int]] = [[]]
    words = 0
    for number, size in enumerate(sizes):
        if groups[-1] and words + size > limit:
            groups.append([])
            words = 0
        groups[-1].append(number)
        words += size
    return groups


def heading_of(segment: str) -> str:
    """A segment's first heading's text (`AllowOverride Directive`)."""
    found = re.search(r"^#{2,6}\s+(.+?)\s*$", segment, re.M)
    return found.group(1) if found else "..."


def parts_of(page: Page) -> list[Part]:
    """The page as one Part, or, when its segments pass `MAX_WORDS`, in several: the
    segments packed in order into parts of at most `MAX_WORDS - PART_HEAD` words,
    `<key>.md`, `<key>-2.md`, ..., the later ones titled `<title> (part N of M)` and
    starting with a line naming their first and last sections."""
    sizes = [len(segment.split()) for segment in page.segments]
    groups = pack(sizes, MAX_WORDS - PART_HEAD) if sum(sizes) > MAX_WORDS else []
    if len(groups) < 2:
        return [Part(page.key, f"{page.key}.md", page.title, "\n\n".join(page.segments),
                     set().union(*page.anchors))]
    parts = []
    for number, group in enumerate(groups, 1):
        segments = [page.segments[i] for i in group]
        anchors = set().union(*(page.anchors[i] for i in group))
        if number == 1:
            parts.append(Part(page.key, f"{page.key}.md", page.title,
                              "\n\n".join(segments), anchors))
            continue
        lead = (f"Part {number} of [{page.title}]({LINK}{page.key}#): "
                f"{heading_of(segments[0])} to {heading_of(segments[-1])}.")
        title = f"{page.title} (part {number} of {len(groups)})"
        parts.append(Part(page.key, f"{page.key}-{number}.md", title,
                          "\n\n".join([lead, *segments]), anchors))
    return parts


def resolve(part: Part, pages: set[str], anchors: dict[str, str], name: str) -> str:
    """The part's Markdown with its `@@` links as relative `.md` links to the part that
    holds the anchor (anchors dropped), or as their text (a page left out, this part)."""
    def link(found: re.Match[str]) -> str:
        text, key, anchor = found.groups()
        if key not in pages:
            return text
        target = anchors.get(f"{key}#{anchor}", f"{key}.md")
        if target == part.doc:
            return text
        return f"[{text}]({relative_link(target, part.doc)})"

    markdown = LINKED.sub(link, part.markdown)
    if f"]({LINK}" in markdown:
        raise SystemExit(f"{name}: {part.doc}: a link left unresolved")
    return markdown


def finish(parts: list[Part], name: str) -> dict[str, str]:
    """Each part's page (`# title`, links resolved, cut at `MAX_WORDS`), by doc; logs
    the pages cut."""
    pages = {part.key for part in parts}
    anchors = {f"{part.key}#{anchor}": part.doc for part in reversed(parts)
               for anchor in part.anchors}
    done, cut = {}, []
    for part in parts:
        text, was_cut = cap_words(f"# {part.title}\n\n{resolve(part, pages, anchors, name)}\n")
        done[part.doc] = text
        if was_cut:
            cut.append(part.doc)
    log(f"{name}: {len(cut)} pages cut at ~{MAX_WORDS} words: {', '.join(cut)}")
    return done


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
