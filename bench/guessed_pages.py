"""How many pages' excerpts a query should guess before its final ranking.

The browser engine asks for the excerpt files of each signal's first pages before its
final ranking (js/src/engine/guessed-fragments.js: the keyword ranking's first pages
once its shards are in, the vector candidates' first pages beside their row blocks, at
most `GUESSED_CHUNKS` chunks each), so that the results' excerpts come in the step that
brings the rows. A shown page that was not guessed is read after the ranking, one step
more; a guessed page that is not shown is bytes for nothing.

Per set (bench/static_encoder.py's loaders) and each clean and slipped query, read as
the product reads it, hybrid with the static encoder and the site's default number of
results: for a guess of the first G pages of each signal (and of K keyword and V vector
pages, `PAIRS`), the share of queries whose shown excerpt files were all guessed, the
bytes guessed and the bytes read after the ranking (gzip, as fragment_parts.py counts
them, long pages in parts), and their cost in bench/compare's model: a step (40 ms) for
each query that misses a file, plus every byte at 20 Mbit/s.

The vector guess takes the partitioned layout's candidates in sign-code order, as the
engine does (the exact layout has none: only the keyword ranking's pages are guessed
there). A corrected query's guesses are those of its reading and, on a site that does
not hold the keyword ranking's pages for the reading (`READING_FIRST_PROBES`), its
typed words' keyword ranking too; a page another guess asked for costs no budget. Each
row's first chunk stands for its row: identical chunks on several pages (which the
engine guesses together) are not modeled, and the sets have few. The step harness
(bench/typed_reading.py) measures the engine itself, whose steps also depend on what
else a step waits for.

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
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.ranking import chunk_order  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

GUESSES = (4, 6, 8, 10, 12, 16)
PAIRS = ((6, 8), (6, 10), (8, 10), (10, 6), (10, 8))
"""Guesses of K keyword pages and V vector pages (K, V)."""
KINDS = ("clean", "slipped")
STEP_MS = 40.0
MS_PER_BYTE = 8 / 20e6 * 1000
ENGINE = HERE.parent / "js" / "src" / "engine"


def shipped(name: str, source: str = "guessed-fragments.js") -> int:
    """A whole-number constant of the browser engine, as js/src/engine/`source` sets it."""
    found = re.search(rf"^(?:export )?const {name} = (\d+);", (ENGINE / source).read_text(),
                      re.MULTILINE)
    if not found:
        raise SystemExit(f"{name} is not in js/src/engine/{source}")
    return int(found.group(1))


BUDGET = shipped("GUESSED_CHUNKS")
READING_FIRST_PROBES = shipped("READING_FIRST_PROBES", "engine.js")
"""A partitioned site of more than this many probes' worth of chunks holds the keyword
ranking's guess for the reading."""
Files = dict[int, list[tuple[int, int]]]


def guessed_files(guesses: list[tuple[list[int], int]], starts: np.ndarray,
                  files: Files) -> set[tuple[int, int]]:
    """The excerpt files asked for by guesses of (pages in order, how many of them),
    in turn: a page's files when some were not asked for yet and its chunks fit what
    is left of that guess's budget (askGuessedFragments)."""
    out: set[tuple[int, int]] = set()
    for pages, count in guesses:
        left = BUDGET
        for page in pages[:count]:
            chunks = int(starts[page + 1] - starts[page])
            if set(files[page]) <= out or chunks > left:
                continue
            left -= chunks
            out.update(files[page])
    return out


def page_order(chunks: np.ndarray, page_of_chunk: np.ndarray) -> list[int]:
    """The pages of `chunks` (best first), each at its best chunk."""
    return list(dict.fromkeys(page_of_chunk[chunks].tolist()))


def candidate_order(searcher: Searcher, text: str) -> np.ndarray:
    """The partitioned layout's candidates for `text`, best sign score first, ties by
    chunk number (each row's first chunk, as the engine names them); none in the exact
    layout."""
    store = searcher.bundle.vectors
    codes = searcher.embed(text) if store.partitions is not None else None
    if codes is None:
        return np.zeros(0, dtype=np.int64)
    _, firsts, ranked = store.ranked_candidates(codes)
    return firsts[ranked]


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    """Per kind of query: the shown bytes, and per guess the share held, the bytes
    guessed and read late, and the modeled cost."""
    bundle = corpus.bundle
    starts = np.asarray(bundle.pages.starts)
    cost = excerpt_files(page_fragments(bundle), PART_CHUNKS)
    files: Files = {}
    for key in cost:
        files.setdefault(key[0], []).append(key)
    searcher = Searcher(bundle, None, encoder="static")
    page_of_chunk = bundle.pages.page_of_chunk
    store = bundle.vectors
    holds_for_reading = (store.partitions is not None
                         and len(page_of_chunk) > READING_FIRST_PROBES * store.probe_rows)
    copies = rt.copies(corpus, name)
    out: dict = {}
    for kind in KINDS:
        rows = {counts: {"held": 0, "guessed": 0, "late": 0}
                for counts in [(g, g) for g in GUESSES] + list(PAIRS)}
        shown_bytes = 0
        for query in copies[kind]:
            reading, ranking = searcher.read_and_rank(query.text, mode="hybrid")
            shown = files_of([r.chunk for r in ranking.fused], starts, PART_CHUNKS)
            shown_bytes += sum(cost[f] for f in shown)
            keyword = ranking.lexical_scores
            keywords = [page_order(chunk_order(keyword, keyword > 0), page_of_chunk)]
            if reading.text != query.text and not holds_for_reading:
                # the typed words' keyword guess goes first, as the engine sends it
                typed = bundle.lexical.scores(query.text, typed=query.text)
                keywords.insert(0, page_order(chunk_order(typed, typed > 0), page_of_chunk))
            vectors = page_order(candidate_order(searcher, reading.text), page_of_chunk)
            for (keyword_count, vector_count), row in rows.items():
                guessed = guessed_files([*((pages, keyword_count) for pages in keywords),
                                         (vectors, vector_count)], starts, files)
                row["held"] += shown <= guessed
                row["guessed"] += sum(cost[f] for f in guessed)
                row["late"] += sum(cost[f] for f in shown - guessed)
        queries = len(copies[kind])
        out[kind] = {"queries": queries, "shown": shown_bytes / queries, "guesses": {
            label(counts): {"held": row["held"] / queries, "guessed": row["guessed"] / queries,
                         "late": row["late"] / queries,
                         "modeled_ms": ((queries - row["held"]) * STEP_MS
                                        + (row["guessed"] + row["late"]) * MS_PER_BYTE)
                         / queries}
            for counts, row in rows.items()}}
    return out


def label(counts: tuple[int, int]) -> str:
    """`G` for as many pages of each signal, else `K/V`."""
    keyword, vector = counts
    return str(keyword) if keyword == vector else f"{keyword}/{vector}"


def render(results: dict) -> str:
    """The results as markdown: a table of every G, one of every K/V."""
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
                     for row in (data["guesses"][label((g, g))] for g in GUESSES)]
            lines.append(f"| {name} | {kind} | {data['shown'] / 1000:.1f} kB | "
                         + " | ".join(cells) + " |")
    pairs = [label(counts) for counts in PAIRS]
    lines += ["", "K keyword pages and V vector pages (K/V): the modeled cost, and its "
              f"difference from G = {pages} of each; `sum` adds the differences over every "
              "set and kind.", "",
              "| set | kind | " + " | ".join(pairs) + " |", "|---" * (2 + len(pairs)) + "|"]
    total = dict.fromkeys(pairs, 0.0)
    for name, kinds in results["sets"].items():
        for kind, data in kinds.items():
            base = data["guesses"][label((pages, pages))]["modeled_ms"]
            cells = []
            for pair in pairs:
                ms = data["guesses"][pair]["modeled_ms"]
                total[pair] += ms - base
                cells.append(f"{ms:.1f} ms ({ms - base:+.1f})")
            lines.append(f"| {name} | {kind} | " + " | ".join(cells) + " |")
    lines.append("| sum | | " + " | ".join(f"{total[p]:+.1f} ms" for p in pairs) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return rt.run_sets(__doc__, "guessed_pages", run_set, render, sets=rt.EARLIER_SETS)


if __name__ == "__main__":
    sys.exit(main())
