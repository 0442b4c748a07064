"""How well the browser's probe ahead guesses a query's row blocks, on every site set.

While a query's words the site does not use wait for their word pieces and their tokens'
rows, the client (js/src/engine/engine.js `#probeAhead`) asks for the bits of the
partitions that the rest of the query (its words' rows and the special tokens') probes,
then the row blocks of that partial vector's candidates. This bench replays that guess
in Python on each set's queries, clean, slipped and half-typed, as searched (slips
corrected; the half-typed ones read while typing, their last word completed). For the
queries with such a word: whether the guess held every partition and block the whole
vector needs (then the blocks come beside the tokens' rows, a round sooner), the blocks
it missed (read a round later, as before) and the bytes of the blocks it asked for that
the query did not need.

    python bench/probe_ahead.py [--sets fastapi,mkdocs,manpages,npm,postgres,python] [--out DIR]

Writes <out>/probe_ahead.{json,md} (bench/results unless --out).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402

from mkdocs_semantic.bundle.vectors.codes import query_codes  # noqa: E402
from mkdocs_semantic.bundle.vectors.store import (  # noqa: E402
    VectorSet,
    bin_bytes,
    rows_file_bytes,
)
from mkdocs_semantic.bundle.word_rows import FRAME, chunk_words, query_words, word_rows  # noqa: E402
from mkdocs_semantic.model.onnx import load_tokenizer  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

FACTORS = (1.0, 1.5, 2.0, 3.0)
"""The guess's candidates, as a multiple of the query's own (1: what the client asks)."""
PROBE_FACTORS = (1.0, 1.25, 1.5, 2.0)
"""The guess's probe (the rows whose partitions' bits it asks for), as a multiple of the
query's own."""


def queries_of(prefix: str, groups: list[str]) -> dict[str, list[str]]:
    """The set's query texts by kind: its groups as written, slipped and half-typed."""
    files = {"clean": [f"{prefix}-{g}.tsv" for g in groups],
             "slipped": [f"{prefix}-{g}-slipped.tsv" for g in groups],
             "half": [f"{prefix}-{g}-half.tsv" for g in groups]}
    return {kind: [q.text for name in names if (HERE / "relevance" / name).is_file()
                   for q in se.read_tsv(HERE / "relevance" / name, kind)]
            for kind, names in files.items()}


def blocks_of(vectors: VectorSet, codes: np.ndarray) -> tuple[set[int], dict[tuple[int, int], int]]:
    """The partitions `codes` probes and the row blocks of its candidates, with their bytes."""
    holding = vectors.candidate_rows(codes)
    blocks = {}
    for number, block in vectors.candidate_blocks(holding):
        rows = vectors.partition(number).blocks[block][1]
        blocks[(number, block)] = rows_file_bytes(rows, vectors.dim)
    return set(vectors.probed(codes)), blocks


def bits_bytes(vectors: VectorSet, number: int, id_bytes: int) -> int:
    """The size of partition `number`'s bits file."""
    part = vectors.partition(number)
    return bin_bytes(len(part.ids), len(part.bits), len(part.blocks), vectors.dim, id_bytes)


def measure(searcher: Searcher, tokenizer, rows: dict, texts: list[str], *, typing: bool) -> dict:
    vectors = searcher.bundle.vectors
    prefix = searcher.bundle.catalog["model"]["query_prefix"]
    id_bytes = int(searcher.bundle.catalog["vectors"][0]["id_bytes"])
    out = {"queries": len(texts), "with_unknown_word": 0, "blocks_needed": 0,
           "bytes_needed": 0, "guesses": {}, "probes": {}}
    for typed in texts:
        text = searcher.answer(typed, mode="vector", typing=typing).reading.text
        words = query_words(tokenizer, prefix + text)
        if words is None:
            continue  # encoded token by token: no probe ahead
        known = [w for w in words if w in rows]
        if len(known) == len(words):
            continue
        full = searcher.embed(text)
        partial = sum((rows[w].row for w in [FRAME, *known] if rows[w].row is not None),
                      np.zeros(vectors.dim, dtype=np.int64))
        partial_codes = query_codes(partial)
        if full is None or partial_codes is None:
            continue
        out["with_unknown_word"] += 1
        probed, needed = blocks_of(vectors, full)
        out["blocks_needed"] += len(needed)
        out["bytes_needed"] += sum(needed.values())
        for factor in FACTORS:
            wider = replace(vectors, candidates=round(vectors.candidates * factor))
            guessed_probed, guessed = blocks_of(wider, partial_codes)
            missed = set(needed) - set(guessed)
            k = out["guesses"].setdefault(str(factor), {"held": 0, "blocks_missed": 0,
                                                        "bytes_wasted": 0})
            k["held"] += int(probed <= guessed_probed and not missed)
            k["blocks_missed"] += len(missed)
            k["bytes_wasted"] += sum(b for key, b in guessed.items() if key not in needed)
        for factor in PROBE_FACTORS:
            wider = replace(vectors, probe_rows=round(vectors.probe_rows * factor))
            guessed_probed = set(wider.probed(partial_codes))
            k = out["probes"].setdefault(str(factor), {"held": 0, "bits_wasted": 0})
            k["held"] += int(probed <= guessed_probed)
            k["bits_wasted"] += sum(bits_bytes(vectors, p, id_bytes)
                                    for p in guessed_probed - probed)
    return out


def run_set(corpus: se.Corpus, name: str, _embedder) -> dict:
    searcher = Searcher(corpus.bundle, encoder="static")
    if searcher.bundle.vectors.layout != "partitioned":
        return {"layout": "exact"}
    tokenizer = load_tokenizer(searcher.bundle.static_tokenizer, None)
    prefix = searcher.bundle.catalog["model"]["query_prefix"]
    words = chunk_words(tokenizer, prefix, corpus.chunks)
    rows = word_rows(tokenizer, searcher.bundle.table, words)
    return {"layout": "partitioned", "chunks": len(corpus.chunks),
            "kinds": {kind: measure(searcher, tokenizer, rows, texts, typing=kind == "half")
                      for kind, texts in queries_of(corpus.name, corpus.groups).items()}}


def measured_kinds(results: dict):
    """(set, kind, figures, queries with a word the site does not use) of each kind of
    query of each partitioned set."""
    for name, out in results["sets"].items():
        if out.get("layout") == "partitioned":
            for kind, k in out["kinds"].items():
                yield name, kind, k, k["with_unknown_word"]


def render(results: dict) -> str:
    lines = ["# Probe ahead: the row blocks a query's known words guess", "",
             f"Reproduce: `python bench/probe_ahead.py`. Measured {results['run']}. Per set "
             "and kind of query (as searched): the queries with a word the site does not "
             "use (which the browser splits with word pieces, then reads its tokens' rows), "
             "the row blocks the whole vector needs per such query, and for a guess of the "
             "partial vector's best 1x, 1.5x, 2x and 3x as many candidates as a query has "
             "(1x ships): the share of such queries whose guess held every partition and "
             "block the whole vector needs (their blocks come a round sooner), the blocks "
             "it missed (read a round later, as before it) and the bytes of blocks asked "
             "for that the query did not need, per such query.", "",
             "| set | kind | queries | with such a word | needed per such query | "
             + " | ".join(f"{f:g}x: held, missed, wasted" for f in FACTORS) + " |",
             "|---|---|---|---|---|" + "---|" * len(FACTORS)]
    lines += [f"| {name} | - | exact layout: no probe | | |" + " |" * len(FACTORS)
              for name, out in results["sets"].items() if out.get("layout") != "partitioned"]
    for name, kind, k, n in measured_kinds(results):
        if not n:
            lines.append(f"| {name} | {kind} | {k['queries']} | 0 | - |" + " - |" * len(FACTORS))
            continue
        cells = [f"{g['held'] / n:.0%}, {g['blocks_missed']} / {k['blocks_needed']}, "
                 f"{g['bytes_wasted'] / n / 1000:.1f} kB"
                 for g in (k["guesses"][str(f)] for f in FACTORS)]
        needed = f"{k['blocks_needed'] / n:.0f} blocks, {k['bytes_needed'] / n / 1000:.1f} kB"
        lines.append(f"| {name} | {kind} | {k['queries']} | {n} | {needed} | "
                     + " | ".join(cells) + " |")
    lines += ["", "The guess's bits: for a guess that probes the partitions of 1x, 1.25x, 1.5x "
              "and 2x as many rows as a query probes, the share of such queries whose guess "
              "asked for the bits of every partition the whole vector probes (else a bits "
              "round follows the tokens' rows), and the bytes of bits files asked for that "
              "the query did not need, per such query.", "",
              "| set | kind | with such a word | "
              + " | ".join(f"{f:g}x: held, wasted" for f in PROBE_FACTORS) + " |",
              "|---|---|---|" + "---|" * len(PROBE_FACTORS)]
    for name, kind, k, n in measured_kinds(results):
        if n:
            cells = [f"{g['held'] / n:.0%}, {g['bits_wasted'] / n / 1000:.1f} kB"
                     for g in (k["probes"][str(f)] for f in PROBE_FACTORS)]
            lines.append(f"| {name} | {kind} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(se.run_trial(__doc__, "probe_ahead",
                                  "fastapi,mkdocs,manpages,npm,postgres,python", run_set, render))
