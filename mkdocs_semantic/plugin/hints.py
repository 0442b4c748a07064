"""The hints a page gives the browser client ahead of the catalog: the names of the
files a first query reads first, so that they come beside the catalog rather than a
round trip after it (js/src/engine/opening.js).

- `pieces`: the hash of the keyed word piece files, known before any page is rendered;
- `keywords`: `<set>:<count>` of the keyword index's keyed shards;
- `pages`: the hash of the page table.

The last two are known only once the bundle is written, after every page: a build
writes its pages with the first and then rewrites their tags (`rewrite_pages`). A hint
is only a guess to the browser: a stale one costs its requests, nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..bundle.reader import read_catalog, read_manifest
from ..logs import build_log as log

_PAGE_TABLE = re.compile(r"^pages/pages\.([0-9a-f]{16})\.bin$")


@dataclass(frozen=True)
class PageHints:
    pieces: str | None = None
    keywords: str | None = None
    pages: str | None = None

    def items(self) -> list[tuple[str, str]]:
        """The hints given, as (name, value), in a fixed order."""
        given = (("pieces", self.pieces), ("keywords", self.keywords), ("pages", self.pages))
        return [(key, value) for key, value in given if value]


NO_HINTS = PageHints()


def bundle_hints(bundle: Path, *, pieces: str | None) -> PageHints:
    """The hints of the bundle written into `bundle` (and the word pieces' hash)."""
    catalog = read_catalog(bundle, read_manifest(bundle))
    shards = catalog["lexical"]["shards"]
    table = _PAGE_TABLE.match(catalog["pages"]["table"][0])
    return PageHints(pieces=pieces, keywords=f"{shards['set']}:{shards['count']}",
                     pages=table.group(1) if table else None)


@dataclass(frozen=True)
class PageEdit:
    """One written page's tags as the build wrote them and as they should be."""

    path: Path
    replacements: tuple[tuple[str, str], ...]
    """(text as written, text with every hint): each replaced once, the first found."""


def rewrite_pages(edits: list[PageEdit]) -> int:
    """Rewrites the pages' tags; returns how many pages were rewritten. A page that
    cannot be read or written (or no longer holds its tags) is left as it is, and one
    warning says how many were."""
    rewritten, failed = 0, []
    for edit in edits:
        try:
            text = edit.path.read_text(encoding="utf-8")
            changed = text
            for written, hinted in edit.replacements:
                changed = changed.replace(written, hinted, 1)
            if changed != text:
                edit.path.write_text(changed, encoding="utf-8")
                rewritten += 1
        except (OSError, UnicodeError) as exc:
            failed.append(f"{edit.path} ({exc})")
    if failed:
        log.warning("could not add the search hints to %d page(s), first %s: their "
                    "first query takes a round trip more (fix the file's permissions, or "
                    "rebuild)", len(failed), failed[0])
    return rewritten
