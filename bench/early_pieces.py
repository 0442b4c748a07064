"""Trial: how many steps would a first query save if its word pieces came with the catalog?

A first query's steps (bench/query_rounds.mjs: the browser engine in Node against the
bundle served from 127.0.0.1, every answer held 100 ms, a step a run of requests that
waited for the one before): the catalog; then the keyword shards, page table, vector
index and word-piece shards, named from the catalog; then the query table's rows, named
from the tokens the word pieces split the words into; and so on. If a page could name a
query's word-piece shards from the query alone (say, shards named by their key and the
tokenizer's hash, which the page's meta tag gives), it would ask for them beside the
catalog, and the rows would no longer wait for them. Modelled here by answering the
word-piece shards at once: each of the set's queries as a first query (a new engine
each, no prefetch), as built and with its pieces answered at once.

    python bench/early_pieces.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/early_pieces.{json,md}.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from query_rounds import measure  # noqa: E402

from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402

VARIANTS = {"as built": [], "word pieces with the catalog": ["--unheld", "pieces"]}


def first_query_steps(bundle: Path, queries: list[str], options: list[str]) -> list[int]:
    """Each query's steps as a first query."""
    with tempfile.TemporaryDirectory() as tmp:
        query_file = Path(tmp) / "queries.txt"
        query_file.write_text("\n".join(q.replace("\n", " ") for q in queries) + "\n",
                              encoding="utf-8")
        run = measure(bundle, query_file, "off", ["--cold-each", *options])
    return [q["rounds"] for q in run["queries"]]


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    queries = [q.text for q in corpus.queries]
    out: dict = {"queries": len(queries), "chunks": len(corpus.bundle.chunks), "variants": {}}
    for label, options in VARIANTS.items():
        steps = first_query_steps(corpus.bundle.root, queries, options)
        out["variants"][label] = {"median": float(np.median(steps)),
                                  "counts": dict(sorted(Counter(steps).items()))}
    return out


def render(results: dict) -> str:
    lines = ["# Trial: a first query's word pieces fetched beside the catalog", "",
             f"Reproduce: `python bench/early_pieces.py`. Measured {results['run']}. Steps of "
             "each query as a first query (the engine in Node, every answer held 100 ms; the "
             "browser adds one for its worker); the model is in the bench's docstring.", "",
             "| set | chunks | queries | " + " | ".join(
                 f"{label}: median (queries by steps)" for label in VARIANTS) + " |",
             "|---|---|---|" + "---|" * len(VARIANTS)]
    for name, s in results["sets"].items():
        cells = [f"{v['median']:g} ("
                 + ", ".join(f"{steps}: {n}" for steps, n in v["counts"].items()) + ")"
                 for v in s["variants"].values()]
        lines.append(f"| {name} | {s['chunks']:,} | {s['queries']} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "early_pieces",
                        "fastapi,mkdocs,manpages,npm,postgres,python", run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
