"""Cost model of the query table's shards: rows per shard, and how shards are named.

A query fetches the table shards of its tokens; the catalog lists every shard. Format 6
cut the table into FORMAT_6_ROWS-row shards, each named by its content's hash, so the
catalog gave each shard its first token id, its name (16 hex digits of hash) and its
size. (Format 7 chose from this model: one row a file, named by the table's hash.)
Yet a refit changes every row of the table, so per-shard hashes let a reader keep no
more of it across rebuilds than one hash of the whole table would: the alternative
names shard i of a table by the table's hash and i, and the catalog then lists only
the table's token ids (delta-coded).

Per set and rows per shard: the table bytes a query fetches with nothing cached (its
tokens' shards, as served: binary, not compressed), median and p90 over the set's
queries, the shards it reads (its files), and the gzip bytes of the catalog's table
list under each naming (the catalog is read once per visit). The hashes are random
digits, as incompressible as real ones.

    python bench/table_shards.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/table_shards.{json,md}.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402

from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

ROWS = (1, 2, 4, 8, 16)
FORMAT_6_ROWS = 8


def gzip_json(value) -> int:
    return len(gzip.compress(json.dumps(value, separators=(",", ":")).encode(), 9))


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    encoder = Searcher(corpus.bundle, None, encoder="static").static
    ids = np.sort(np.asarray(encoder.table.token_ids, dtype=np.int64))
    dim = encoder.dim
    held = set(ids.tolist())
    needs = [sorted(set(encoder.token_ids(q.text)) & held) for q in corpus.queries]
    rng = np.random.default_rng(0)
    deltas = np.diff(ids, prepend=0).tolist()
    table_name = f"table/tab.{int(rng.integers(0, 2**63)):016x}"
    out: dict = {"tokens": len(ids), "queries": len(needs), "rows": {}}
    for rows in ROWS:
        shard_of = {int(t): i // rows for i, t in enumerate(ids)}
        shard_bytes = 4 + rows * (4 + dim)
        files = [len({shard_of[t] for t in need}) for need in needs]
        sent = [count * shard_bytes for count in files]
        count = (len(ids) + rows - 1) // rows
        hashed = [[int(ids[i * rows]), f"table/tab.{int(rng.integers(0, 2**63)):016x}.bin",
                   shard_bytes] for i in range(count)]
        out["rows"][rows] = {
            "query_bytes_median": int(np.median(sent)),
            "query_bytes_p90": int(np.percentile(sent, 90)),
            "query_files_median": float(np.median(files)),
            "catalog_hashed_gzip": gzip_json(hashed),
            "catalog_ids_gzip": gzip_json({"ids": deltas, "rows": rows, "name": table_name}),
        }
    return out


def render(results: dict) -> str:
    lines = ["# Cost model: the query table's shards", "",
             f"Reproduce: `python bench/table_shards.py`. Measured {results['run']}. Format 6: "
             f"{FORMAT_6_ROWS} rows a shard, each named by its hash. Bytes a query fetches with "
             "nothing cached (median / p90, as served), its files (median), and the gzip bytes "
             "of the catalog's table list named per shard (today) or by the table's one hash "
             "(token ids only); see the bench's docstring.", "",
             "| set (tokens, queries) | rows a shard | query bytes | files "
             "| catalog, hashed shards | catalog, table hash "
             "| query median + catalog: hashed / table hash |",
             "|---|---|---|---|---|---|---|"]
    for name, s in results["sets"].items():
        for rows, r in s["rows"].items():
            lines.append(
                f"| {name} ({s['tokens']:,}, {s['queries']}) | {rows} | "
                f"{r['query_bytes_median']:,} / {r['query_bytes_p90']:,} | "
                f"{r['query_files_median']:.0f} | {r['catalog_hashed_gzip']:,} | "
                f"{r['catalog_ids_gzip']:,} | "
                f"{r['query_bytes_median'] + r['catalog_hashed_gzip']:,} / "
                f"{r['query_bytes_median'] + r['catalog_ids_gzip']:,} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "table_shards", "fastapi,mkdocs,manpages,npm,postgres,python",
                        run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
