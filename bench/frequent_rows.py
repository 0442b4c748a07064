"""Trial: would prefetching the rows of a site's most used tokens make warm queries one round?

In bundle format 7 each query-table row is a file of its own (bundle/table.py), so a warm
query whose tokens include one no earlier query used waits a round for that row before
its vector, and so its row blocks, can be known. The lever weighed here: the catalog
lists the N tokens held by the most chunks (or used most often), and the engine
prefetches their rows in idle time, within its prefetch budget (js/src/engine/
prefetch.js, 300 kB over a visit).

Per site set, static encoder's tokenizer and table: the set's queries in order, the
first cold, each later one warm (it has every row an earlier query read, plus the N
prefetched). Figures per N: how many warm queries find every row they need already in
(no round waits for a row), the median count of rows a warm query still fetches, and the
bytes of the N rows (each the table's dimension in int8 plus its check bytes).

    python bench/frequent_rows.py [--sets fastapi,mkdocs,manpages,npm,manshort,postgres,python]

Writes bench/results/frequent_rows.{json,md}.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402

from mkdocs_semantic.constants import ROW_CHECK_BYTES  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

PREFETCHED = (0, 128, 256, 512, 1024)
"""How many of the most used tokens' rows are prefetched, per variant."""
ORDERS = ("chunks holding", "uses")
"""How tokens are ranked: by the chunks holding them, or by all their uses."""


def token_counts(corpus: se.Corpus, encoder, held: set[int]) -> dict[str, Counter]:
    """Per order, each held token's count over the set's chunks (title, path and text)."""
    holding: Counter[int] = Counter()
    uses: Counter[int] = Counter()
    for chunk in corpus.bundle.chunks:
        text = " ".join([chunk.title, *chunk.path, chunk.text])
        ids = [i for i in encoder.tokenizer.encode(text).ids if i in held]
        holding.update(set(ids))
        uses.update(ids)
    return {"chunks holding": holding, "uses": uses}


def warm_rows(queries: list[set[int]], prefetched: set[int]) -> tuple[int, list[int]]:
    """(warm queries needing no row fetched, rows each warm query fetches)."""
    have = set(queries[0]) | prefetched
    none_missing, missing = 0, []
    for rows in queries[1:]:
        new = rows - have
        none_missing += not new
        missing.append(len(new))
        have |= rows
    return none_missing, missing


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    encoder = Searcher(corpus.bundle, None, encoder="static").static
    held = set(encoder.table.token_ids.tolist())
    row_bytes = encoder.table.dim + ROW_CHECK_BYTES
    queries = [{i for i in encoder.token_ids(q.text) if i in held} for q in corpus.queries]
    counts = token_counts(corpus, encoder, held)
    out: dict = {"queries": len(queries), "table_rows": len(held), "row_bytes": row_bytes,
                 "variants": []}
    for order in ORDERS:
        for n in PREFETCHED:
            if n == 0 and order != ORDERS[0]:
                continue
            top = {token for token, _ in counts[order].most_common(n)}
            none_missing, missing = warm_rows(queries, top)
            out["variants"].append({
                "order": order if n else "-", "prefetched": n, "bytes": n * row_bytes,
                "warm_without_row_wait": none_missing,
                "warm_rows_median": float(np.median(missing)),
                "warm_rows_mean": round(float(np.mean(missing)), 2)})
    return out


def render(results: dict) -> str:
    lines = ["# Trial: prefetching the rows of a site's most used tokens", "",
             f"Reproduce: `python bench/frequent_rows.py`. Measured {results['run']}. Each "
             "set's queries in order, the first cold; a warm query has every row an earlier "
             "query read and the N prefetched (the bench's docstring says how).", "",
             "| set | ranked by | rows prefetched | their bytes | warm queries with no row "
             "to wait for | rows a warm query fetches: median / mean |",
             "|---|---|---|---|---|---|"]
    for name, s in results["sets"].items():
        warm = s["queries"] - 1
        for v in s["variants"]:
            lines.append(f"| {name} | {v['order']} | {v['prefetched']:,} | "
                         f"{v['bytes'] / 1000:,.0f} kB | {v['warm_without_row_wait']} of "
                         f"{warm} | {v['warm_rows_median']:g} / {v['warm_rows_mean']:g} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "frequent_rows",
                        "fastapi,mkdocs,manpages,npm,manshort,postgres,python", run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
