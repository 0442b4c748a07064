"""Trial: a one-word half-typed query answered with the results of its likeliest completions.

While a reader types, a half-typed last word is completed to one site word (search/
spelling.py, rule 1 and its kin). A query that is one half-typed word (`Proxy`, `--sl`,
`SEEK_`) is ambiguous: the site may hold many words that start so, and the one held by
the most chunks may not be the reader's. The lever weighed here: such a query is also
searched as each of its next likeliest completions (site words and names that start with
it, by the chunks holding them; only long flags after `--`), and the pages of the
searches are interleaved (the first page of each, then the second of each, ...,
each page once), so that the first results cover several completions.

Per site set and encoder, hybrid MRR@10 of the half-typed queries (bench/relevance/
*-half.tsv, read while typing) as shipped and interleaved with 1 or 2 more completions,
beside the complete queries': the target is half-typed >= 0.9 x complete.

    python bench/half_interleave.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/half_interleave.{json,md}.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from readers_typing import copies  # noqa: E402

from mkdocs_semantic.bundle.lexical import TOKEN  # noqa: E402
from mkdocs_semantic.bundle.vocabulary import (  # noqa: E402
    after_long_dashes,
    identifier_key,
    vocabulary_word,
)
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

MORE = (1, 2)
"""Completions searched beside the shipped reading, per variant."""


def pages(searcher: Searcher, text: str, top_k: int, *, typing: bool) -> tuple[list[str], str]:
    """The hybrid ranking's pages and the text searched."""
    answer = searcher.answer(text, mode="hybrid", top_k=top_k, typing=typing)
    return list(dict.fromkeys(r.url for r in answer.results)), answer.reading.text


def completion_texts(searcher: Searcher, query: str, *, one_word: bool = False) -> list[str]:
    """The query with its last word completed to each site word or name that starts with
    it (only long flags after `--`), likeliest first (rule 1's order); none when the query
    does not end in a word, or (`one_word`) is more than one word."""
    found = list(TOKEN.finditer(query))
    if not found or found[-1].end() != len(query) or searcher.bundle.vocabulary is None \
            or (one_word and len(found) != 1):
        return []
    match = found[-1]
    key = vocabulary_word(match.group()) or identifier_key(match.group()) or ""
    flag = after_long_dashes(query, match.start())
    entries = sorted((e for e in searcher.bundle.vocabulary.starting([key])
                      if e.key.startswith(key) and (e.flag or not flag)),
                     key=lambda e: (-e.count, len(e.key), e.key))
    return [query[:match.start()] + entry.form for entry in entries]


def other_completions(searcher: Searcher, query: str, read: str, count: int) -> list[str]:
    """Up to `count` more completions of a one-word query, likeliest first, other than
    the text it was read as; none for a query of more words."""
    out: list[str] = []
    for text in completion_texts(searcher, query, one_word=True):
        if text.lower() != read.lower() and text not in out:
            out.append(text)
        if len(out) == count:
            break
    return out


def interleaved(rankings: list[list[str]], depth: int = 10) -> list[str]:
    """The first page of each ranking, then the second of each, ..., each page once."""
    out: list[str] = []
    for i in range(depth):
        for ranking in rankings:
            if i < len(ranking) and ranking[i] not in out:
                out.append(ranking[i])
    return out[:depth]


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    queries = copies(corpus, name)
    out: dict = {"queries": len(queries["half"]), "encoders": {}}
    for encoder in ("static", "transformer"):
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        complete = [se.mrr_at_10(pages(searcher, q.text, corpus.top_k, typing=True)[0],
                                 q.relevant) for q in queries["complete"]]
        rows = {"shipped": [], **{f"{n} more": [] for n in MORE}}
        changed = {f"{n} more": [] for n in MORE}
        for half in queries["half"]:
            ranking, read = pages(searcher, half.text, corpus.top_k, typing=True)
            shipped = se.mrr_at_10(ranking, half.relevant)
            rows["shipped"].append(shipped)
            for n in MORE:
                more = other_completions(searcher, half.text, read, n)
                merged = interleaved([ranking, *(pages(searcher, t, corpus.top_k,
                                                       typing=False)[0] for t in more)])
                score = se.mrr_at_10(merged, half.relevant) if more else shipped
                rows[f"{n} more"].append(score)
                if score != shipped:
                    changed[f"{n} more"].append(f"{half.text} ({shipped:.2f} -> {score:.2f})")
        whole = sum(complete) / len(complete)
        out["encoders"][encoder] = {
            "complete": round(whole, 4),
            "half": {label: round(sum(v) / len(v), 4) for label, v in rows.items()},
            "changed": changed}
    return out


def ratio_cells(figures: dict, keys: tuple[str, ...]) -> list[str]:
    """Each variant's half-typed MRR@10 with its ratio to the complete queries' (a
    trial's `{"complete": x, "half": {key: y}}`)."""
    return [f"{figures['half'][k]:.3f} ({figures['half'][k] / figures['complete']:.2f})"
            for k in keys]


def render(results: dict) -> str:
    lines = ["# Trial: one-word half-typed queries interleaved with their likeliest "
             "completions", "",
             f"Reproduce: `python bench/half_interleave.py`. Measured {results['run']}. Hybrid "
             "MRR@10 of the half-typed queries (ratio to the complete queries'); the lever is "
             "in the bench's docstring.", "",
             "| set | encoder | queries | complete | half, shipped | half, 1 more completion | "
             "half, 2 more | queries changed (2 more) |", "|---|---|---|---|---|---|---|---|"]
    for name, s in results["sets"].items():
        for encoder, e in s["encoders"].items():
            cells = ratio_cells(e, ("shipped", "1 more", "2 more"))
            lines.append(f"| {name} | {encoder} | {s['queries']} | {e['complete']:.3f} | "
                         f"{' | '.join(cells)} | {'; '.join(e['changed']['2 more']) or '-'} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "half_interleave",
                        "fastapi,mkdocs,manpages,npm,postgres,python", run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
