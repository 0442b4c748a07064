"""Build the `npm-docs` corpus: the npm CLI's own manual, from the `npm` package.

Fetches the npm package with `npm pack npm@VERSION` and turns its Markdown sources
(`docs/content/{commands,configuring-npm,using-npm}/*.md`, as the package ships them)
into an MkDocs project: the front matter's title becomes the page's `# title` and its
description the first paragraph; HTML comments go; site-absolute links
(`/commands/npm-install`) become relative links to the page's Markdown file. Pages
are not cut: this is a manual of ~90 pages.

    python bench/corpora/npm_docs.py [--out bench/.cache/npm-docs/source]

The downloaded tarball stays in bench/.cache/npm-docs/downloads (reused).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, Source, log, run, sources_table, write_project

NAME = "npm-docs"
PACKAGE = "npm"
VERSION = "11.21.2"
SECTIONS = {"commands": "Commands", "configuring-npm": "Configuring npm",
            "using-npm": "Using npm"}
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
COMMENT = re.compile(r"<!--.*?-->\n?", re.S)
SITE_LINK = re.compile(r"\]\(/([a-z-]+)/([A-Za-z0-9._-]+)/?(#[^)]*)?\)")


def fetch(into: Path) -> Path:
    """The package tarball, from `npm pack` unless already there."""
    tarball = into / f"{PACKAGE}-{VERSION}.tgz"
    if not tarball.exists():
        into.mkdir(parents=True, exist_ok=True)
        log(f"{NAME}: npm pack {PACKAGE}@{VERSION}")
        run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", str(into)])
    return tarball


def read_docs(tarball: Path) -> tuple[dict[str, str], dict]:
    """The Markdown sources by path under docs/content, and package.json."""
    docs, manifest = {}, {}
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            name = member.name.removeprefix("package/")
            if name == "package.json":
                manifest = json.load(archive.extractfile(member))
            parts = name.split("/")
            if (len(parts) == 4 and parts[:2] == ["docs", "content"]
                    and parts[2] in SECTIONS and parts[3].endswith(".md")):
                docs[f"{parts[2]}/{parts[3]}"] = archive.extractfile(member).read().decode()
    return docs, manifest


def front_matter(text: str) -> tuple[dict[str, str], str]:
    found = FRONT_MATTER.match(text)
    if not found:
        return {}, text
    meta = {}
    for line in found.group(1).splitlines():
        key, _, value = line.partition(":")
        meta[key.strip()] = value.strip().strip("\"'")
    return meta, text[found.end():]


def relative_links(text: str, rel: str, pages: set[str]) -> str:
    """`](/commands/npm-ci#x)` -> `](../commands/npm-ci.md#x)` where that page exists."""
    here = os.path.dirname(rel)

    def swap(found: re.Match) -> str:
        target = f"{found.group(1)}/{found.group(2)}.md"
        if target not in pages:
            return found.group(0)
        return f"]({os.path.relpath(target, here)}{found.group(3) or ''})"

    return SITE_LINK.sub(swap, text)


def convert(rel: str, text: str, pages: set[str]) -> str:
    meta, body = front_matter(text)
    title = meta.get("title") or Path(rel).stem
    body = relative_links(COMMENT.sub("", body), rel, pages).strip()
    description = meta.get("description", "")
    return f"# {title}\n\n" + (f"{description}\n\n" if description else "") + body + "\n"


def nav(pages: list[str]) -> list[tuple[str, list[str]]]:
    return [(label, sorted(p for p in pages if p.startswith(f"{section}/")))
            for section, label in SECTIONS.items()]


INDEX = f"""# npm documentation

The documentation of the npm command-line client, version {VERSION}: its commands,
how to configure npm, and how to use it.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CACHE / NAME / "source")
    args = parser.parse_args()
    docs, manifest = read_docs(fetch(CACHE / NAME / "downloads"))
    if not docs:
        raise SystemExit(f"{PACKAGE}@{VERSION}: no docs/content/*/*.md in the package")
    pages = {rel: convert(rel, text, set(docs)) for rel, text in sorted(docs.items())}
    write_project(args.out, "npm Docs", pages, INDEX, nav=nav(list(pages)))
    source = Source("npm", PACKAGE, manifest.get("version", VERSION),
                    manifest.get("license", "see its package.json"))
    (args.out / "SOURCES.md").write_text(sources_table([source]), encoding="utf-8")
    log(f"{NAME}: {len(pages)} pages in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
