"""Keyword shards and page excerpts named from what a query knows: what it would save.

Today a query finds the keyword shard of a term and the fragments shard of a page in the
catalog's shard lists (`[[first key, name, bytes], ...]`, in directories on a very large
site), so the catalog carries both lists and a lookup may wait for a directory. Named from
the key itself, as the query table's rows and the word-piece files are (one hash for the
whole set in every name, each file checking itself), neither list would exist:

- `fragments, a file a page`: a page's excerpts in a file of its own, named by its number;
- `keyword buckets of T`: the terms spread over N files by a hash of the term (CRC-32
  here), N chosen so that a file holds about T bytes of JSON on average (at most one
  file a term); a term the site does not use is looked for in its file all the same.

For each bundle, the keys the Python searcher looks up for each query of its relevance
set (lexical and hybrid, first 10: bench/directory_entries.py) are replayed on each
layout: the gzip bytes of the catalog's two lists, and the median query's keyword and
fragments files (their gzip bytes, a self-check's 4 bytes added to each keyed file)
and directories. A browser looks up more pages than the Python searcher (the keyword
ranking's first pages while the final one loads, its candidates' pages), so these are
floors of both layouts' fragments.

    python bench/keyed_shards.py

Bundles: bench/large_site.py's (Debian's manual pages) and bench/directory_entries.py's
(64 copies of fastapi-docs), each built by its own bench first.
Writes bench/results/keyed_shards.{json,md}.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
import zlib
from pathlib import Path

from catalog_lists import (
    gz,
    list_entries,
    read_catalog,
    require_format_8,
    sent,
    shard_list_values,
)
from directory_entries import WORK as COPIES_WORK
from directory_entries import directory_bytes, record_lookups  # bench/directory_entries.py
from query_rounds import queries  # bench/query_rounds.py
from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.bundle import shard_lists
from mkdocs_semantic.constants import ROW_CHECK_BYTES

HERE = Path(__file__).resolve().parent
BUNDLES = {
    "Debian's manual pages (bench/large_site.py)": (
        HERE / ".cache" / "large-site" / "auto" / "site" / "semantic",
        ("manpages-paraphrase.tsv", "manpages-exact.tsv")),
    "64 copies of fastapi-docs (bench/directory_entries.py)": (
        COPIES_WORK / "project" / "site" / "semantic",
        ("fastapi-paraphrase.tsv", "fastapi-exact.tsv")),
}
BUCKET_BYTES = (2 << 10, 4 << 10, 8 << 10)
LISTS = {"lexical": ("lexical", "shards"), "fragments": ("fragments",)}


def bucket_of(term: str, count: int) -> int:
    """The file of `term` among `count`: CRC-32 of its UTF-8 bytes, modulo `count`."""
    return zlib.crc32(term.encode("utf-8")) % count


def buckets(shards: list[dict], target: int) -> list[int]:
    """The terms of `shards` spread over files of about `target` bytes by `bucket_of`
    (no more files than terms): each file's gzip bytes, its check added (an empty file
    holds an empty shard)."""
    terms = [(term, postings, tails.get(i))
             for shard in shards
             for tails in [{t[0]: t[1:] for t in shard["tails"]}]
             for i, (term, postings) in enumerate(zip(shard["terms"], shard["postings"]))]
    total = sum(len(term) + 8 + 4 * len(postings) for term, postings, _ in terms)
    count = max(1, min(len(terms), math.ceil(total / target)))
    held: list[list] = [[] for _ in range(count)]
    for term, postings, tail in terms:
        held[bucket_of(term, count)].append((term, postings, tail))
    sizes = []
    for group in held:
        group.sort(key=lambda item: item[0])
        body = {"terms": [t for t, _, _ in group], "postings": [p for _, p, _ in group],
                "tails": [[i, *tail] for i, (_, _, tail) in enumerate(group) if tail]}
        sizes.append(gz(body) + ROW_CHECK_BYTES)
    return sizes


def measure(name: str, folder: Path, query_files: tuple[str, ...]) -> dict:
    catalog = read_catalog(folder)
    require_format_8(folder, catalog)
    values = shard_list_values(catalog)
    lists = {kind: values[".".join(path)] for kind, path in LISTS.items()}
    entries = {kind: list_entries(folder, value) for kind, value in lists.items()}
    # the folder its payloads are in, which record_lookups names a lookup by
    folder_of = {kind: rows[0][1].split("/")[0] for kind, rows in entries.items()}
    data = {kind: [(folder / e[1]).read_bytes() for e in rows] for kind, rows in entries.items()}
    shard_sent = {kind: [sent(d) for d in files] for kind, files in data.items()}
    # lists with directories as the shipped DIR_ENTRIES cuts them (a bundle may be older)
    cut = {kind: directory_bytes(entries[kind], shard_lists.DIR_ENTRIES)
           for kind, value in lists.items() if isinstance(value, dict)}
    listed = {kind: cut[kind][0] if kind in cut else gz(value) for kind, value in lists.items()}
    dirs = {kind: cut[kind][1] if kind in cut else None for kind in lists}
    pages = [page for d in data["fragments"] for page in json.loads(d)]
    page_sent = [gz(page) + ROW_CHECK_BYTES for page in pages]
    shards = [json.loads(d) for d in data["lexical"]]
    sizes_of_empty = gz({"terms": [], "postings": [], "tails": []}) + ROW_CHECK_BYTES
    lookups = record_lookups(folder, queries(query_files))
    layouts: dict[str, dict] = {}

    def add(layout: str, catalog_bytes: int, per_query: list[dict]) -> None:
        layouts[layout] = {"catalog": catalog_bytes, **{
            key: statistics.median(q[key] for q in per_query)
            for key in ("lexical_files", "lexical", "fragments_files", "fragments",
                        "dir_files", "dirs", "total")}}

    shipped = []
    for keys in lookups:
        row = {}
        dir_files, dir_sent = 0, 0
        for kind in LISTS:
            numbers = {number for where, _, number in keys if where == folder_of[kind]}
            row[f"{kind}_files"] = len(numbers)
            row[kind] = sum(shard_sent[kind][n] for n in numbers)
            if dirs[kind] is not None:
                touched = {n // shard_lists.DIR_ENTRIES for n in numbers}
                dir_files += len(touched)
                dir_sent += sum(dirs[kind][d] for d in touched)
        row.update(dir_files=dir_files, dirs=dir_sent)
        row["total"] = row["lexical"] + row["fragments"] + dir_sent
        shipped.append(row)
    add("shipped", sum(listed.values()), shipped)
    for target in BUCKET_BYTES:
        sizes = buckets(shards, target)
        keyed = []
        for keys in lookups:
            # a term the site does not use is looked for in its file all the same
            terms = {bucket_of(key, len(sizes)) for where, key, _ in keys
                     if where == folder_of["lexical"]}
            shown = {key for where, key, _ in keys if where == folder_of["fragments"]}
            row = {"lexical_files": len(terms), "lexical": sum(sizes[t] for t in terms),
                   "fragments_files": len(shown),
                   "fragments": sum(page_sent[p] for p in shown), "dir_files": 0, "dirs": 0}
            row["total"] = row["lexical"] + row["fragments"]
            keyed.append(row)
        filled = sum(size > sizes_of_empty for size in sizes)
        add(f"fragments a file a page, keyword buckets of {target >> 10} kB ({len(sizes):,} "
            f"files, {filled:,} holding terms)", 0, keyed)
    return {"name": name, "pages": len(pages), "terms": sum(len(s["terms"]) for s in shards),
            "queries": len(lookups), "lists": {k: len(v) for k, v in entries.items()},
            "layouts": layouts}


def render(results: dict) -> str:
    lines = ["# Keyword shards and page excerpts named from what a query knows", "",
             f"Reproduce: `python bench/keyed_shards.py`. Measured {results['run']}. Gzip bytes; "
             "the median query's files over its relevance set's queries, the keys the Python "
             "searcher looks up (lexical and hybrid, first 10); a keyed file counts its 4-byte "
             "self-check. The bench's docstring says how.", ""]
    for site in results["bundles"]:
        lines += [f"## {site['name']}", "",
                  f"{site['pages']:,} pages, {site['terms']:,} terms; shipped lists: "
                  f"{site['lists']['lexical']:,} keyword shards, "
                  f"{site['lists']['fragments']:,} fragments shards; {site['queries']} queries.",
                  "", "| layout | catalog's two lists | keyword: files, kB | fragments: files, kB "
                  "| directories: files, kB | a query's files of these kinds, kB |",
                  "|---|---|---|---|---|---|"]
        for layout, row in site["layouts"].items():
            lines.append(
                f"| {layout} | {row['catalog'] / 1000:,.1f} kB | {row['lexical_files']:g}, "
                f"{row['lexical'] / 1000:,.1f} | {row['fragments_files']:g}, "
                f"{row['fragments'] / 1000:,.1f} | {row['dir_files']:g}, "
                f"{row['dirs'] / 1000:,.1f} | {row['total'] / 1000:,.1f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    found = []
    for name, (folder, query_files) in BUNDLES.items():
        if not (folder / "manifest.json").is_file():
            raise SystemExit(f"{folder} holds no bundle: run the bench that builds it "
                             f"first ({name})")
        found.append(measure(name, folder, query_files))
    results = {"run": time.strftime("%Y-%m-%d %H:%M"), "bundles": found}
    write_results(HERE / "results", "keyed_shards", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
