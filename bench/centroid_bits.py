"""Two bits a centroid dimension: does a sharper probe let a query read fewer sign bits?

A query in the partitioned layout ranks every partition by its centroid's sign bits (the
vector index carries them, read once) and reads the sign bits of the best partitions'
rows until they hold at least `PROBE_ROWS`. Two bits a dimension (sign, and whether the
value passes the centroid's median magnitude, weighing 3 to 1: bench/sign_codes.py's
code) rank the partitions more sharply, so fewer rows might be probed for the same
recall, while the index grows by a bit a dimension for every partition.

Per bundle and query encoder, for the shipped signs and for two bits, probing at least
3,072, 3,584 and 4,096 rows: recall@10 of the shipped 100 candidates against the exact
scan (bench/sign_codes.py's probe), the median query's bits files, the index's centroid
codes, and the two together (the vector bytes of a first query that differ; its
candidates' row blocks are as many either way). Queries: bench/relevance/manpages-*.

    python bench/centroid_bits.py [BUNDLE ...]

Defaults to the 800-page and the whole manual pages as bench/distinct_scale.py builds
them (run it first). Writes bench/results/centroid_bits.{json,md}.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import sign_codes  # bench/sign_codes.py: the probe by centroid code
from results_file import write_results  # bench/results_file.py

from mkdocs_semantic.bundle.vectors.partitions import PROBE_ROWS
from mkdocs_semantic.bundle.vectors.store import payloads_of_index
from mkdocs_semantic.search.searcher import Searcher

HERE = Path(__file__).resolve().parent
SCALE = HERE / ".cache" / "distinct-scale"
DEFAULTS = (SCALE / "pages-800" / "auto" / "site" / "semantic",
            SCALE / "pages-0" / "auto" / "site" / "semantic")
ENCODERS = ("static", "transformer")
CODES = ("signs", "2 bits")
ROWS = (3072, 3584, PROBE_ROWS)
SHIPPED = ("signs", PROBE_ROWS)


def measure(folder: Path, encoder: str) -> dict:
    searcher = Searcher.open(folder, encoder=encoder)
    vectors = searcher.bundle.vectors
    if vectors.layout != "partitioned":
        raise SystemExit(f"{folder} is not in the partitioned layout: a larger site is needed")
    spec = searcher.bundle.catalog["vectors"][0]
    index = (folder / spec["index"][0]).read_bytes()
    bits_bytes = [size for _, size in payloads_of_index(spec, index)]
    probes = sign_codes.probe_by_centroid_code(folder, vectors, searcher,
                                               vectors.matrix().astype(np.int32), bits_bytes,
                                               ROWS)
    rows = {f"{code}|{r}": probes[f"{code}|{r}"] for code in CODES for r in ROWS}
    return {"chunks": int(vectors.rows), "partitions": len(vectors.partitions),
            "dim": int(vectors.dim), "rows": rows}


def render(results: dict) -> str:
    lines = ["# Two bits a centroid dimension: recall and the bytes a first query's probe "
             "reads", "",
             f"Reproduce: `python bench/centroid_bits.py {' '.join(results['bundles'])}`. "
             f"Measured {results['run']}; bench/relevance/manpages-* queries. Recall@10: "
             "the shipped 100 candidates (sign bits) scored exactly, against the exact scan. "
             "Bits: the median query's probed bits files; codes: the index's centroid codes "
             "(every partition's, read once); together: what differs in a first query's vector "
             "bytes (its candidates' row blocks are as many either way). Shipped: signs, 4,096 "
             "rows.", "",
             "| bundle | encoder | code | rows probed (at least) | recall@10 (against shipped) "
             "| bits | codes | together | against shipped |", "|---" * 9 + "|"]
    for entry in results["measured"]:
        shipped = entry["rows"]["|".join(str(x) for x in SHIPPED)]
        base = shipped["bits"] + shipped["centroid_bytes"]
        label = f"{entry['chunks']:,} chunks, {entry['partitions']} partitions"
        for row in entry["rows"].values():
            both = row["bits"] + row["centroid_bytes"]
            lines.append(
                f"| {label} | {entry['encoder']} | {row['code']} | {row['probe_rows']:,} | "
                f"{row['recall']:.3f} ({row['recall'] - shipped['recall']:+.3f}) | "
                f"{row['bits'] / 1000:,.0f} kB | "
                f"{row['centroid_bytes'] / 1000:,.1f} kB | {both / 1000:,.0f} kB | "
                f"{(both - base) / 1000:+,.0f} kB |")
    plane = results["measured"][0]["dim"] // 8 if results["measured"] else 0
    saved = SHIPPED[1] - min(ROWS)
    lines += ["", f"In bytes alone, two bits cost one more bit a dimension for every partition "
              f"({plane} bytes), read by every first query, and probing {saved:,} rows fewer "
              f"saves {saved:,} rows' sign bits ({plane} bytes each): they pay on a site of "
              f"fewer than {saved:,} partitions, if recall holds there.", ""]
    return "\n".join(lines)


def main() -> int:
    folders = [Path(a) for a in sys.argv[1:]] or list(DEFAULTS)
    for folder in folders:
        if not (folder / "manifest.json").is_file():
            raise SystemExit(f"{folder} holds no bundle: run python bench/distinct_scale.py "
                             "first, or name a partitioned bundle")
    measured = []
    for folder in folders:
        for encoder in ENCODERS:
            print(f"centroid_bits: {folder} {encoder}", file=sys.stderr)
            measured.append({"encoder": encoder, **measure(folder, encoder)})
    results = {"run": time.strftime("%Y-%m-%d %H:%M"),
               "bundles": [Path(os.path.relpath(f.resolve(), HERE.parent)).as_posix()
                           for f in folders],
               "measured": measured}
    write_results(HERE / "results", "centroid_bits", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
