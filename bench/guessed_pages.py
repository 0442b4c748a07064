"""How many pages' excerpts a query should guess before its final ranking.

The browser engine asks for the excerpt files of each signal's first pages before its
final ranking (js/src/engine/guessed-fragments.js: the keyword ranking's first pages
once its shards are in, the vector candidates' first pages beside their row blocks, at
most `GUESSED_CHUNKS` chunks each), so that the results' excerpts come in the step that
brings the rows. A shown page that was not guessed is read after the ranking, one step
more; a guessed page that is not shown is bytes for nothing.

Per set (bench/static_encoder.py's loaders) and each clean and slipped query, read as
the product reads it, hybrid with the static encoder and the site's default number of
results: for a guess of the first G pages of each signal, the share of queries whose
shown excerpt files were all guessed, the bytes guessed and the bytes read after the
ranking (gzip, as fragment_parts.py counts them, long pages in parts), and their cost in
bench/compare's model: a step (40 ms) for each query that misses a file, plus every byte
at 20 Mbit/s. The vector guess takes the partitioned layout's candidates in sign-code
order, as the engine does (the exact layout has none: only the keyword ranking's pages
are guessed there). The step harness (bench/typed_reading.py) measures the engine
itself, whose steps also depend on what else a step waits for.

    python bench/guessed_pages.py [--sets fastapi,mkdocs,...] [--out DIR]

Writes <out>/guessed_pages.{json,md} (bench/results unless --out).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
import static_encoder as se  # noqa: E402
from fragment_parts import excerpt_files, files_of, page_fragments  # noqa: E402

from mkdocs_semantic.bundle.fragment_parts import PART_CHUNKS  # noqa: E402
from mkdocs_semantic.bundle.vectors import partitions  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.ranking import chunk_order  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

GUESSES = (4, 6, 8, 10, 12, 16)
KINDS = ("clean", "slipped")
STEP_MS = 40.0
MS_PER_BYTE = 8 / 20e6 * 1000
SOURCE = (HERE.parent / "js" / "src" / "engine" / "guessed-fragments.js").read_text()


def shipped(name: str) -> int:
    """A constant of the engine's guess, as js/src/engine/guessed-fragments.js sets it."""
    found = re.search(rf"export const {name} = (\d+);", SOURCE)
    if not found:
        raise SystemExit(f"{name} is not in js/src/engine/guessed-fragments.js")
    return int(found.group(1))


BUDGET = shipped("GUESSED_CHUNKS")


def guessed_files(orders: list[np.ndarray], count: int, page_of_chunk: np.ndarray,
                  starts: np.ndarray, files: dict[int, list]) -> set:
    """The excerpt files a guess of each order's first `count` pages asks for: a page's
    files when its chunks fit what is left of the budget (askGuessedFragments)."""
    out: set = set()
    for order in orders:
        left = BUDGET
        for page in list(dict.fromkeys(page_of_chunk[order].tolist()))[:count]:
            chunks = int(starts[page + 1] - starts[page])
            if chunks <= left:
                left -= chunks
                out.update(files[page])
    return out


def candidate_order(searcher: Searcher, text: str) -> np.ndarray:
    """The partitioned layout's candidates for `text`, best sign score first, ties by
    chunk number (each row's first chunk, as the engine names them); none in the exact
    layout."""
    store = searcher.bundle.vectors
    if store.partitions is None:
        return np.zeros(0, dtype=np.int64)
    codes = searcher.embed(text)
    probed = [store.partition(p) for p in store.probed(codes)]
    firsts = np.concatenate([p.first_chunks for p in probed])
    scores = partitions.sign_scores(np.concatenate([p.bits for p in probed]), codes)
    return firsts[partitions.best_rows(firsts, scores, store.candidates)]


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    bundle = corpus.bundle
    starts = np.asarray(bundle.pages.starts)
    cost = excerpt_files(page_fragments(bundle), PART_CHUNKS)
    files: dict[int, list] = {}
    for key in cost:
        files.setdefault(key[0], []).append(key)
    searcher = Searcher(bundle, None, encoder="static")
    page_of_chunk = searcher._page_of_chunk
    copies = rt.copies(corpus, name)
    out: dict = {}
    for kind in KINDS:
        rows = {count: {"held": 0, "guessed": 0, "late": 0} for count in GUESSES}
        shown_bytes = 0
        for query in copies[kind]:
            reading, ranking = searcher.read_and_rank(query.text, mode="hybrid")
            shown = files_of([r.chunk for r in ranking.fused], starts, PART_CHUNKS)
            shown_bytes += sum(cost[f] for f in shown)
            keyword = ranking.lexical_scores
            orders = [chunk_order(keyword, keyword > 0), candidate_order(searcher, reading.text)]
            for count, row in rows.items():
                guessed = guessed_files(orders, count, page_of_chunk, starts, files)
                row["held"] += shown <= guessed
                row["guessed"] += sum(cost[f] for f in guessed)
                row["late"] += sum(cost[f] for f in shown - guessed)
        queries = len(copies[kind])
        out[kind] = {"queries": queries, "shown": shown_bytes / queries, "guesses": {
            str(count): {"held": row["held"] / queries, "guessed": row["guessed"] / queries,
                         "late": row["late"] / queries,
                         "modeled_ms": ((queries - row["held"]) * STEP_MS
                                        + (row["guessed"] + row["late"]) * MS_PER_BYTE)
                         / queries}
            for count, row in rows.items()}}
    return out


def render(results: dict) -> str:
    pages = shipped("GUESSED_PAGES")
    lines = ["# Guessed pages: how many pages' excerpts a query asks for before its ranking",
             "",
             f"Reproduce: `python bench/guessed_pages.py`. Measured {results['run']}. Per "
             "query (hybrid, static encoder, the site's number of results), a guess of "
             f"each signal's first G pages (at most {BUDGET} chunks a signal; shipped: "
             f"G = {pages}): the share of queries whose shown excerpt files were all "
             "guessed, the bytes guessed and the bytes read after the ranking (gzip, "
             "mean per query), and the modeled cost: 40 ms a query that misses a file, "
             "plus the bytes at 20 Mbit/s. Vector candidates in sign-code order, as the "
             "engine takes them (none in the exact layout).", "",
             "| set | kind | shown | " + " | ".join(
                 f"G = {g}: held, guessed / late, modeled" for g in GUESSES) + " |",
             "|---" * (3 + len(GUESSES)) + "|"]
    for name, kinds in results["sets"].items():
        for kind, data in kinds.items():
            cells = [f"{row['held']:.0%}, {row['guessed'] / 1000:.1f} / "
                     f"{row['late'] / 1000:.1f} kB, {row['modeled_ms']:.1f} ms"
                     for row in data["guesses"].values()]
            lines.append(f"| {name} | {kind} | {data['shown'] / 1000:.1f} kB | "
                         + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return rt.run_sets(__doc__, "guessed_pages", run_set, render)


if __name__ == "__main__":
    sys.exit(main())
