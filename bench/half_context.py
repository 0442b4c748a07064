"""Trial: completing a half-typed last word by the rest of the query, and the ceiling of
any rule that picks one completion.

While a reader types, a half-typed last word becomes the site word or name that starts
with it and is held by the most chunks (search/spelling.py, rule 1 and its kin). Two
questions about that choice, on the queries of bench/relevance/*-half.tsv:

- context: of the `CANDIDATES` likeliest completions (site words and names that start
  with the word, the word itself included, by the chunks holding them; only long flags
  after `--`), take the one
  whose query a single chunk matches best in keywords (its best keyword score over the
  query's best possible, as the fusion scales it), ties to the likelier. A completion
  that goes with the query's other words should be the one the reader means.
- top page, margin: of those completions and the shipped reading, the one whose hybrid
  ranking's first page is the most relevant (`Result.score`), or leads its second page
  the most (a ranking of one page leads by its whole score): the ranking's own
  confidence.
- ceiling: the best MRR@10 that any one of those completions gives the query (the
  shipped reading's included). No rule that picks one completion does better.

Per site set and encoder, hybrid MRR@10 of the half-typed queries read while typing
(ratio to the complete queries'): the typing issue's target is half >= 0.9 x complete.

    python bench/half_context.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/half_context.{json,md}.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from half_interleave import completion_texts, pages, ratio_cells  # noqa: E402
from readers_typing import copies  # noqa: E402

from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

CANDIDATES = 8
"""Completions of the last word weighed per query, likeliest first."""
RULES = ("shipped", "context", "top page", "margin", "ceiling")


def keyword_coverage(searcher: Searcher, text: str) -> float:
    """The best chunk's keyword score for `text` over its best possible score."""
    lexical = searcher.bundle.lexical
    possible = lexical.possible(text)
    return float(lexical.scores(text).max()) / possible if possible else 0.0


def judged(searcher: Searcher, text: str, top_k: int, relevant: dict[str, int], *,
           typing: bool) -> tuple[float, list[float]]:
    """MRR@10 of `text`'s hybrid ranking and the relevance of its first two pages."""
    answer = searcher.answer(text, mode="hybrid", top_k=top_k, typing=typing)
    page_scores: dict[str, float] = {}
    for result in answer.results:
        page_scores.setdefault(result.url, result.score)
    firsts = list(page_scores.values())[:2]
    return se.mrr_at_10(list(page_scores), relevant), firsts + [0.0] * (2 - len(firsts))


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    queries = copies(corpus, name)
    out: dict = {"queries": len(queries["half"]), "encoders": {}}
    for encoder in ("static", "transformer"):
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)

        complete = [se.mrr_at_10(pages(searcher, q.text, corpus.top_k, typing=True)[0],
                                 q.relevant) for q in queries["complete"]]
        scores: dict[str, list[float]] = {rule: [] for rule in RULES}
        changed: list[str] = []
        for half in queries["half"]:
            shipped = judged(searcher, half.text, corpus.top_k, half.relevant, typing=True)
            texts = completion_texts(searcher, half.text)[:CANDIDATES]
            each = [judged(searcher, text, corpus.top_k, half.relevant, typing=False)
                    for text in texts]
            context = shipped[0]
            if texts:
                coverage = [keyword_coverage(searcher, text) for text in texts]
                best = max(range(len(texts)), key=lambda i: (coverage[i], -i))
                read = searcher.read(half.text, typing=True).text
                context = shipped[0] if texts[best].lower() == read.lower() else each[best][0]
                if context != shipped[0]:
                    changed.append(f"{half.text} -> {texts[best]}")
            heard = [shipped, *each]  # the shipped reading first: ties keep it
            scores["shipped"].append(shipped[0])
            scores["context"].append(context)
            scores["top page"].append(max(heard, key=lambda h: h[1][0])[0])
            scores["margin"].append(max(heard, key=lambda h: h[1][0] - h[1][1])[0])
            scores["ceiling"].append(max(h[0] for h in heard))
        out["encoders"][encoder] = {
            "complete": round(sum(complete) / len(complete), 4),
            "half": {rule: round(sum(v) / len(v), 4) for rule, v in scores.items()},
            "changed": changed}
    return out


def render(results: dict) -> str:
    lines = ["# Trial: completing a half-typed word by the rest of the query; the ceiling "
             "of one completion", "",
             f"Reproduce: `python bench/half_context.py`. Measured {results['run']}. Hybrid "
             "MRR@10 of the half-typed queries read while typing (ratio to the complete "
             f"queries'), {CANDIDATES} completions weighed per query; the rules are in the "
             "bench's docstring.", "",
             "| set | encoder | queries | complete | half, shipped | half, context | "
             "half, top page | half, margin | half, ceiling of one completion | "
             "queries whose MRR@10 the context rule changed |", "|---" * 10 + "|"]
    for name, s in results["sets"].items():
        for encoder, e in s["encoders"].items():
            cells = ratio_cells(e, RULES)
            lines.append(f"| {name} | {encoder} | {s['queries']} | {e['complete']:.3f} | "
                         f"{' | '.join(cells)} | {len(e['changed'])} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "half_context",
                        "fastapi,mkdocs,manpages,npm,postgres,python", run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
