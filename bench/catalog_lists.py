"""What a first query's catalog is made of, and what its shard lists cost.

A first query reads the whole catalog. On a large site most of it is shard lists. Up to
format 8 they were `[[first key, name, bytes], ...]`, each name carrying its own
16-digit hash, which gzip cannot shrink; from format 9 a list's shards are named from
one hash and their number, as the query table's rows are, and the catalog lists first
keys and sizes. Both are read.

For each bundle folder given (by default the one bench/large_site.py builds, Debian's
manual pages), the gzip bytes of every top-level catalog
entry and, per shard list held in the catalog, its gzip bytes as written, as
`[first key, bytes]` pairs and as first keys alone.

    python bench/catalog_lists.py [BUNDLE_FOLDER ...]

Writes bench/results/catalog_lists.{json,md}.
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.bundle.format import check_directory
from mkdocs_semantic.bundle.names import json_bytes, self_checked_body
from mkdocs_semantic.bundle.reader import SHARD_LISTS, shard_list
from mkdocs_semantic.bundle.shard_lists import resolve

HERE = Path(__file__).resolve().parent
DEFAULTS = (HERE / ".cache" / "large-site" / "auto" / "site" / "semantic",)


def sent(data: bytes) -> int:
    """Gzip bytes of a payload, as a static host sends it."""
    return len(gzip.compress(data, 6, mtime=0))


def gz(value: object) -> int:
    """`sent` of `value` as the writer's compact JSON."""
    return sent(json_bytes(value))


def read_catalog(folder: Path) -> dict:
    """The catalog of the bundle in `folder`, as its manifest names it."""
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    return json.loads((folder / manifest["catalog"]["name"]).read_text("utf-8"))


def list_entries(folder: Path, value: object) -> list:
    """Every entry `[first key, name, bytes]` of a shard list as written
    (`shard_list_values`), its directories read: format 9's numbered shards, or an
    older bundle's lists of entries."""
    if isinstance(value, dict) and "stem" in value:
        return [list(entry) for entry in resolve(shard_list(value), lambda name, size: (
            check_directory(json.loads(self_checked_body(name, (folder / name).read_bytes())),
                            name)))]
    if isinstance(value, dict):
        return [entry for _, name, _ in value["dirs"]
                for entry in json.loads((folder / name).read_text("utf-8"))]
    assert isinstance(value, list)
    return value


def shard_list_values(catalog: dict) -> dict[str, object]:
    """The catalog's shard lists (reader.SHARD_LISTS) as written, by path: a list of
    entries, or `{"dirs": [...]}`."""
    found = {}
    for path in SHARD_LISTS:
        value: object = catalog
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            found[".".join(path)] = value
    return found


def require_format_8(folder: Path, catalog: dict) -> None:
    """This bench measures format 8's lists of names against the layouts it proposed;
    a later bundle lists its shards by number (bench/catalog_lists.py measures that)."""
    if any(isinstance(v, dict) and "stem" in v for v in shard_list_values(catalog).values()):
        raise SystemExit(f"{folder}: a format-9 bundle; this bench measured format 8's "
                         "shard lists (its results are kept as measured)")


def shard_lists(catalog: dict) -> dict[str, tuple[object, list]]:
    """The catalog's shard lists held in the catalog itself, by path: (value as written,
    entries)."""
    return {path: (value, value if isinstance(value, list) else list_entries(Path(), value))
            for path, value in shard_list_values(catalog).items()
            if isinstance(value, list) or (isinstance(value, dict) and "first" in value)}


def measure(folder: Path) -> dict:
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    catalog = read_catalog(folder)
    lists = {path: {"entries": len(entries), "as_written": gz(value),
                    "first_and_bytes": gz([[e[0], e[2]] for e in entries]),
                    "first_keys": gz([e[0] for e in entries])}
             for path, (value, entries) in shard_lists(catalog).items()}
    where = folder.resolve()
    shown = where.relative_to(HERE.parent) if where.is_relative_to(HERE.parent) else where.name
    return {"folder": str(shown),
            "chunks": manifest["counts"]["chunks"], "catalog_gz": gz(catalog),
            "parts_gz": {key: gz(value) for key, value in catalog.items()}, "lists": lists}


def render(results: dict) -> str:
    lines = ["# The catalog's parts and its shard lists", "",
             f"Reproduce: `python bench/catalog_lists.py` (after `python bench/large_site.py`, "
             f"which builds the large site). Measured {results['run']}. Bytes are gzip bytes "
             "of compact JSON, as a static host sends the catalog.", ""]
    for site in results["sites"]:
        parts = sorted(site["parts_gz"].items(), key=lambda kv: -kv[1])
        lines += [f"## `{site['folder']}` ({site['chunks']:,} chunks): catalog "
                  f"{site['catalog_gz'] / 1000:,.1f} kB", "",
                  "Largest parts: " + ", ".join(f"`{k}` {v / 1000:,.1f} kB" for k, v in parts[:5])
                  + ".", "",
                  "| shard list | entries | as written | first key and bytes | first keys alone |",
                  "|---|---|---|---|---|"]
        for path, row in site["lists"].items():
            lines.append(f"| `{path}` | {row['entries']:,} | {row['as_written'] / 1000:,.1f} kB | "
                         f"{row['first_and_bytes'] / 1000:,.1f} kB | "
                         f"{row['first_keys'] / 1000:,.1f} kB |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    folders = [Path(a) for a in sys.argv[1:]] or [f for f in DEFAULTS if f.is_dir()]
    missing = [f for f in folders if not (f / "manifest.json").is_file()]
    if missing:
        raise SystemExit(f"{missing[0]} holds no bundle: build it first "
                         "(python bench/large_site.py builds the large site)")
    results = {"run": time.strftime("%Y-%m-%d %H:%M"), "sites": [measure(f) for f in folders]}
    write_results(HERE / "results", "catalog_lists", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
