"""Broad technical text for a general query table: sentences and headings of six manuals.

Fetches six Debian documentation packages that no relevance set uses (Django, Apache
httpd's English manual, SQLite, Sphinx, Flask, R's manuals) with `apt-get download`,
unpacks them with `dpkg-deb -x`, and keeps from every HTML page the distinct sentences
of 4 to 40 words (paragraphs, list items, definitions; code left out) and headings of
1 to 12 words. Writes bench/.cache/broad-text/texts.json: per manual, its package and
version, pages read, and the sorted sentences and headings. Nothing is committed: the
text is used to fit and measure a table in bench/static_levers.py only.

    python bench/corpora/broad_text.py [--out bench/.cache/broad-text/texts.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bs4 import BeautifulSoup

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, debian_package, log

from mkdocs_semantic.indexing.query_table.texts import SENTENCE_END

NAME = "broad-text"
MANUALS = {
    "django": ("python-django-doc", "usr/share/doc/python-django-doc/html", "*.html"),
    "apache": ("apache2-doc", "usr/share/doc/apache2-doc/manual/en", "*.html"),
    "sqlite": ("sqlite3-doc", "usr/share/doc/sqlite3", "*.html"),
    "sphinx": ("sphinx-doc", "usr/share/doc/sphinx-doc", "*.html"),
    "flask": ("python-flask-doc", "usr/share/doc/python-flask-doc", "*.html"),
    "r": ("r-doc-html", "usr/share/doc/r-doc-html", "*.html"),
}


def texts_of(page: Path) -> tuple[set[str], set[str]]:
    """A page's sentences of 4 to 40 words and headings of 1 to 12."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8", errors="replace"), "html.parser")
    for tag in soup(["script", "style", "nav", "pre", "code"]):
        tag.decompose()
    headings = set()
    for heading in soup.find_all(["h1", "h2", "h3"]):
        words = heading.get_text(" ").replace("\u00b6", "").split()
        if 1 <= len(words) <= 12:
            headings.add(" ".join(words))
    sentences = set()
    for block in soup.find_all(["p", "li", "dd"]):
        for sentence in SENTENCE_END.split(" ".join(block.get_text(" ").split())):
            if 4 <= len(sentence.split()) <= 40:
                sentences.add(sentence.strip())
    return sentences, headings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CACHE / NAME / "texts.json")
    args = parser.parse_args()
    downloads = CACHE / NAME / "downloads"
    manuals = {}
    for name, (package, folder, pattern) in MANUALS.items():
        root, version = debian_package(package, downloads, downloads, NAME)
        pages = sorted((root / folder).rglob(pattern))
        sentences: set[str] = set()
        headings: set[str] = set()
        for page in pages:
            found, titles = texts_of(page)
            sentences |= found
            headings |= titles
        manuals[name] = {"package": package, "version": version, "pages": len(pages),
                         "sentences": sorted(sentences), "headings": sorted(headings)}
        log(f"{NAME}: {name}: {len(pages)} pages, {len(sentences)} sentences, "
            f"{len(headings)} headings")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(manuals), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
