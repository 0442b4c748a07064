"""How many entries a shard list's directory should hold: bytes a first query reads.

A shard list longer than `shard_lists.DIRECT_MAX` entries leaves the catalog: it is cut
into directory payloads of `DIR_ENTRIES` entries, the catalog lists one entry per
directory, and a query reads the directory of each key it looks up (a term's keyword
shard, a shown page's fragments) before the shard itself. Larger directories make the
catalog's list shorter and each directory a query reads longer (several of its keys
may share one); the query reads them in the same step either way.

For a bundle whose lists have directories (bench/compare's site at 64 copies, 8,256 pages,
built here unless a site is given), the keys each query looks up are recorded from the
Python searcher (the keyword and hybrid rankings' first 10 results), then every such
list is cut again into directories of E entries, E from ENTRIES: the gzip bytes of the
catalog's list of directories, and the median query's directories (files and gzip bytes)
across every list. Queries: bench/relevance/fastapi-*, as bench/compare asks them.

    python bench/directory_entries.py [--site SITE_FOLDER]

Writes bench/results/directory_entries.{json,md}.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

from catalog_lists import (  # bench/catalog_lists.py
    gz,
    list_entries,
    read_catalog,
    require_format_8,
    shard_list_values,
)
from query_rounds import queries  # bench/query_rounds.py
from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.bundle import shard_lists
from mkdocs_semantic.search.searcher import Searcher

HERE = Path(__file__).resolve().parent
WORK = HERE / ".cache" / "directory-entries"
CORPUS = HERE.parent.parent / "shared" / "corpora" / "fastapi-docs"
COPIES = 64
ENTRIES = (16, 32, 64, 128, 256)


def build_site() -> Path:
    """bench/compare's site at COPIES copies, built once into WORK."""
    sys.path.insert(0, str(HERE / "compare_lib"))
    import sites  # bench/compare_lib/sites.py

    project = WORK / "project"
    site = project / "site"
    if (site / "semantic" / "manifest.json").is_file():
        return site
    if not (CORPUS / "mkdocs.yml").is_file():
        raise SystemExit(f"no corpus at {CORPUS}: the shared folder must sit beside the repository")
    sites.make_project(CORPUS, project, COPIES)
    configs = sites.write_configs(project, WORK / "cache")
    build = sites.mkdocs_build(project, configs["semantic"], "site", "semantic")
    if not build.ok:
        raise SystemExit(f"the {COPIES}-copy site did not build: {build.error}")
    return site


def looked_up(searcher: Searcher, text: str, recorded: list[tuple[str, object, int]]) -> set:
    """(list folder, key, shard number) of every shard-list key the searcher looks up for
    `text` (lexical and hybrid, first 10)."""
    recorded.clear()
    for mode in ("lexical", "hybrid"):
        searcher.search(text, mode=mode, top_k=10)
    return set(recorded)


def record_lookups(folder: Path, texts: list[str]) -> list[set[tuple[str, object, int]]]:
    """`looked_up` for each of `texts`, on the bundle in `folder` read as a remote reader
    reads it: each shard when a key first needs it."""
    # a fetch, though every file is there, makes the reader read shards when a key needs them
    searcher = Searcher.open(folder, fetch=lambda name, size: None)
    recorded: list[tuple[str, object, int]] = []
    position = shard_lists.ShardReader.position

    def recording(reader: shard_lists.ShardReader, key: object) -> int:
        number = position(reader, key)
        if number >= 0:
            recorded.append((reader.entries[number][1].split("/")[0], key, number))
        return number

    shard_lists.ShardReader.position = recording  # type: ignore[method-assign]
    try:
        return [looked_up(searcher, text, recorded) for text in texts]
    finally:
        shard_lists.ShardReader.position = position  # type: ignore[method-assign]


def directory_bytes(rows: list, size: int) -> tuple[int, list[int]]:
    """`rows` cut into directories of `size` entries: the gzip bytes of the catalog's list
    of them, and of each directory."""
    cut = [rows[at:at + size] for at in range(0, len(rows), size)]
    sizes = [gz(part) for part in cut]
    return (gz({"dirs": [[part[0][0], fake_name(part), n] for part, n in zip(cut, sizes)]}),
            sizes)


def measure(site: Path) -> dict:
    folder = site / "semantic"
    catalog = read_catalog(folder)
    require_format_8(folder, catalog)
    entries = {path: list_entries(folder, value)
               for path, value in shard_list_values(catalog).items()
               if isinstance(value, dict)}
    if not entries:
        raise SystemExit(f"{folder}: no shard list has directories")
    folder_of = {path: rows[0][1].split("/")[0] for path, rows in entries.items()}
    per_query = record_lookups(folder, queries())
    sizes: dict[str, dict] = {}
    for size in ENTRIES:
        catalog_bytes, files, sent = 0, [], []
        dir_bytes = {}
        for path, rows in entries.items():
            listed, dir_bytes[folder_of[path]] = directory_bytes(rows, size)
            catalog_bytes += listed
        for keys in per_query:
            touched = {(kind, number // size) for kind, _, number in keys if kind in dir_bytes}
            files.append(len(touched))
            sent.append(sum(dir_bytes[kind][at] for kind, at in touched))
        sizes[str(size)] = {"catalog": catalog_bytes, "files": statistics.median(files),
                            "sent": statistics.median(sent)}
    return {"run": time.strftime("%Y-%m-%d %H:%M"), "site": f"{COPIES} copies of fastapi-docs",
            "shipped": shard_lists.DIR_ENTRIES, "queries": len(per_query),
            "lists": {path: len(rows) for path, rows in entries.items()},
            "sizes": sizes}


def fake_name(part: list) -> str:
    """A directory's name as the writer gives it: folder, kind and 16 hex digits."""
    return f"index/dir.{hashlib.sha256(json.dumps(part).encode()).hexdigest()[:16]}.json"


def render(results: dict) -> str:
    listed = ", ".join(f"`{path}` {count:,} entries" for path, count in results["lists"].items())
    lines = ["# Entries a directory holds: the bytes a first query reads", "",
             f"Reproduce: `python bench/directory_entries.py`. Measured {results['run']} on "
             f"{results['site']} ({listed}); {results['queries']} queries of "
             "bench/relevance/fastapi-*, the keys the Python searcher looks up for each "
             "(keyword and hybrid, first 10). Bytes are gzip bytes of compact JSON; "
             f"shipped: {results['shipped']} entries a directory.", "",
             "| entries a directory | catalog's lists of directories | directories a query "
             "reads: files, bytes (median) | catalog and directories |", "|---|---|---|---|"]
    for size, row in results["sizes"].items():
        lines.append(f"| {size} | {row['catalog'] / 1000:,.1f} kB | {row['files']:g}, "
                     f"{row['sent'] / 1000:,.1f} kB | "
                     f"{(row['catalog'] + row['sent']) / 1000:,.1f} kB |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (else the 64-copy site is built)")
    args = parser.parse_args()
    results = measure(args.site or build_site())
    write_results(HERE / "results", "directory_entries", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
