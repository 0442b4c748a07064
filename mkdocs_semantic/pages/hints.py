"""The hints a page gives the browser client ahead of the catalog: the names of the
files a first query reads first, so that they come beside the catalog rather than a
round trip after it (js/src/engine/opening.js).

- `pieces`: the hash of the keyed word piece files, known before any page is rendered;
- `keywords`: `<count>:<hashes>` of the keyword index's keyed shards (each shard's own
  hash, bundle/shard_lists.py);
- `pages`: the hash of the page table;
- `words`: `<count>:<hashes>` of the word rows' keyed shards (bundle/word_rows.py);
- `index`: the hash of the static encoder's vector index (partitioned layout).

All but the first are known only once the bundle is written, after every page: a build
writes its pages with the first and then adds the others to each (`rewrite_pages`). A
hint is only a guess to the browser: a stale one costs its requests, nothing else.

Every page carries the keyed hints whole, 8 hex digits a shard, in its meta tag and (on
Material) in its worker's URL, so a list of more than `MAX_HINTED_SHARDS` shards is not
hinted: on such a site a first query reads its keyword shards once the catalog has come.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..bundle.names import NAME
from ..bundle.reader import read_catalog, read_manifest
from ..logs import build_log as log

# Our meta tag, however a later plugin (a minifier) wrote its attributes.
_META = re.compile(r"""<meta\b[^>]*?(?<![\w-])name\s*=\s*["']?semantic-search(?=["'\s/>])[^>]*>""",
                   re.IGNORECASE)
MAX_HINTED_SHARDS = 128
"""The most shards a keyed hint names: 1 kB of hashes in each page."""
LATE = ("keywords", "pages", "words", "index")
"""The hints known only once the bundle is written."""
_LATE_ATTRIBUTE = re.compile(
    rf"""\s+data-(?:{"|".join(LATE)})\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)""")
# Material's config, as Material writes it or a minifier rewrites it.
_MATERIAL_CONFIG = re.compile(
    r"""(<script\b[^>]*?(?<![\w-])id\s*=\s*["']?__config(?=["'\s/>])[^>]*>)(.*?)(</script\s*>)""",
    re.DOTALL | re.IGNORECASE)
WORKER = "material-worker.js"
"""Our replacement for Material's search worker, as the client ships it."""


@dataclass(frozen=True)
class PageHints:
    pieces: str | None = None
    keywords: str | None = None
    pages: str | None = None
    words: str | None = None
    index: str | None = None

    def items(self) -> list[tuple[str, str]]:
        """The hints given, as (name, value), in a fixed order."""
        given = (("pieces", self.pieces), ("keywords", self.keywords), ("pages", self.pages),
                 ("words", self.words), ("index", self.index))
        return [(key, value) for key, value in given if value]


NO_HINTS = PageHints()


def bundle_hints(bundle: Path, *, pieces: str | None) -> PageHints:
    """The hints of the bundle written into `bundle` (and the word pieces' hash)."""
    catalog = read_catalog(bundle, read_manifest(bundle))
    shards = catalog["lexical"]["shards"]
    table = NAME.match(catalog["pages"]["table"][0])  # the catalog's check named it
    static = catalog["encoders"].get("static", {})
    words = static.get("words")
    vectors = catalog["vectors"][static["vectors"]] if static else {}
    index = NAME.match(vectors["index"][0]) if vectors.get("layout") == "partitioned" else None
    return PageHints(pieces=pieces, keywords=_keyed_hint(shards),
                     pages=table.group(1) if table else None,
                     words=_keyed_hint(words) if words else None,
                     index=index.group(1) if index else None)


def _keyed_hint(shards: dict) -> str | None:
    """A keyed list's hint, `<count>:<hashes>`; None for a list too long to hint."""
    count = shards["count"]
    return f"{count}:{shards['hashes']}" if count <= MAX_HINTED_SHARDS else None


def add_late_hints(page_html: str, hints: PageHints) -> str | None:
    """`page_html` with `hints`' late ones (`LATE`) in our meta tag (replacing any there)
    and in Material's worker URL, if the page has one; None if the page has no meta tag
    of ours."""
    meta = _META.search(page_html)
    if meta is None:
        return None
    late = "".join(f' data-{key}="{value}"' for key, value in hints.items() if key in LATE)
    tag = _LATE_ATTRIBUTE.sub("", meta.group(0))
    end = len(tag) - (2 if tag.endswith("/>") else 1)
    tag = tag[:end].rstrip() + late + tag[end:]
    page_html = page_html[:meta.start()] + tag + page_html[meta.end():]
    return _material_worker_hints(page_html, hints)


def material_config(page_html: str) -> tuple[dict, int, int] | None:
    """Material's `__config` object in the page and where its JSON starts and ends; None
    for a page without one (another theme) or with one that is not a JSON object."""
    match = _MATERIAL_CONFIG.search(page_html)
    if match is None:
        return None
    try:
        config = json.loads(match.group(2))
    except ValueError:
        return None
    return (config, match.start(2), match.end(2)) if isinstance(config, dict) else None


def _material_worker_hints(page_html: str, hints: PageHints) -> str:
    """Material's `__config.search`, if it is our worker, given the late hints too."""
    found = material_config(page_html)
    if found is None:
        return page_html
    config, start, end = found
    url = config.get("search")
    if not isinstance(url, str) or not url.partition("?")[0].endswith(WORKER):
        return page_html
    path, _, query = url.partition("?")
    kept = [part for part in query.split("&")
            if part and not part.startswith(tuple(f"{key}=" for key in LATE))]
    late = [f"{key}={value}" for key, value in hints.items() if key in LATE]
    config["search"] = path + "?" + "&".join(kept + late)
    return page_html[:start] + script_json(config) + page_html[end:]


def script_json(value: object) -> str:
    """`value` as JSON that nothing can close a <script> element in (as Jinja's tojson)."""
    return (json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")
            .replace(">", "\\u003e").replace("&", "\\u0026"))


def rewrite_pages(paths: list[Path], hints: PageHints, *, others: Sequence[Path] = ()) -> int:
    """Adds the late hints to every page in `paths` (and to those of `others` that hold
    our meta tag: a dirty build's pages written before); returns how many were rewritten.

    A page is read and written as bytes (its line endings kept) and replaced whole, so
    a failure leaves it as it was. A page of `paths` that cannot be read or written, or
    holds no meta tag of ours, keeps what it had; one warning says how many and names
    the first.
    """
    rewritten, missed = 0, []
    required = set(paths)
    for path in dict.fromkeys([*paths, *others]):  # once each
        try:
            text = path.read_bytes().decode("utf-8")
            changed = add_late_hints(text, hints)
            if changed is None:
                if path in required:
                    missed.append(f"{path} (no semantic-search meta tag)")
            elif changed != text:
                _replace(path, changed.encode("utf-8"))
                rewritten += 1
        except (OSError, UnicodeError) as exc:
            if path in required:
                missed.append(f"{path} ({exc})")
    if missed:
        log.warning("could not add the search hints to %d page(s), first %s: their first "
                    "query takes a round trip more (a plugin after this one may have "
                    "removed the tag, or the file is not writable)", len(missed), missed[0])
    return rewritten


def _replace(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.semantic-hints")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
